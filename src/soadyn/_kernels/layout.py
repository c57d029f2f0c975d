"""The packed layout of a Model and its Data (docs/architecture.md, Model and Data).

As MuJoCo's mjModel and mjData, every array of a Model lives in one of two flat buffers, ``model_int``
(int64) and ``model_float`` (float64), and every array of a Data in ``data_int`` and ``data_float``; each
field is a view of its buffer under its Model/Data name. A kernel call then passes four buffers instead of
dozens of arrays (numba unboxes each array argument on every call), and a kernel opens the fields it
needs with :func:`soadyn._jit.view`, which costs a few instructions.

``model_int`` starts with a header: the sizes (``NQ``, ``NV``, ``NB``, ...) and the offset of every field
of the four buffers (``model_int[MODEL_INT_OFF + k]`` is the offset of ``MODEL_INT[k]`` in ``model_int``,
and likewise ``MODEL_FLOAT_OFF``, ``DATA_FLOAT_OFF``, ``DATA_INT_OFF``). The Data offsets are fixed by the
model's sizes, so the model computes them once and any Data of it follows them.

The accessors below return the fields a family of kernels reads, in the order the tree passes take them.
"""

import numpy as np

from .._jit import jit, view

# ------------------------------------------------------------------------------------- header of model_int
NQ, NV, NB, NF, NL, NC, NG, NCON_MAX, NPAIR, NMESHVERT, DATA_FLOAT_SIZE, DATA_INT_SIZE = range(12)
SIZES = ("nq", "nv", "nb", "nf", "nl", "nc", "ng", "ncon_max", "npair", "nmeshvert")
"""The size slots of the header, in order (``DATA_FLOAT_SIZE``, ``DATA_INT_SIZE`` follow them)."""

# ------------------------------------------------------------------------------------------- Model fields
MODEL_INT = ("body_parent", "body_subtree_end", "jnt_type", "jnt_qadr", "jnt_vadr", "jnt_nq", "jnt_nv", "dof_body",
             "frame_body", "loop_frame_a", "loop_frame_b", "loop_kind", "loop_dim", "loop_row", "geom_body",
             "geom_type", "geom_group", "geom_mask", "geom_corners", "geom_vertadr", "geom_vertnum", "pair_geom",
             "pair_max")
"""The int64 array fields of a Model, in buffer order (shapes as documented on ``soadyn.model.Model``)."""
MODEL_FLOAT = ("gravity", "gravity_accel", "body_Xtree_E", "body_Xtree_r", "body_I", "body_mass", "jnt_axis",
               "jnt_axis2", "jnt_pitch", "jnt_lower", "jnt_upper", "dof_S", "frame_E", "frame_r", "loop_sel",
               "loop_axis", "loop_axis2", "loop_twist", "dof_stiffness", "dof_damping", "dof_springref", "dof_armature", "geom_size",
               "geom_E", "geom_r", "geom_mu", "geom_restitution", "geom_margin", "mesh_vert")
"""The float64 array fields of a Model, in buffer order."""

# ------------------------------------------------------------------------------------------- Data fields
DATA_FLOAT = (
    # inputs a wrapper must copy (state of fk, frames, loops, contact)
    ("q", ("nq",)), ("qd", ("nv",)), ("qdd_in", ("nv",)), ("tau_in", ("nv",)), ("fext", ("nb", 6)),
    ("fext_zero", ("nb", 6)),
    # fk
    ("X_E", ("nb", 3, 3)), ("X_r", ("nb", 3)), ("S", ("nv", 6)), ("oR", ("nb", 3, 3)), ("op", ("nb", 3)),
    ("v", ("nb", 6)), ("c", ("nb", 6)), ("vJ", (6,)),
    # rnea
    ("a", ("nb", 6)), ("f", ("nb", 6)), ("tau", ("nv",)),
    # world-frame quantities (crba, minv, osim)
    ("oS", ("nv", 6)), ("oI", ("nb", 6, 6)), ("oIA", ("nb", 6, 6)), ("oU", ("nv", 6)),
    # crba
    ("M", ("nv", "nv")),
    # aba
    ("IA", ("nb", 6, 6)), ("pA", ("nb", 6)), ("U", ("nv", 6)), ("D", ("nb", 6, 6)), ("Dinv", ("nb", 6, 6)),
    ("u", ("nv",)), ("qdd", ("nv",)),
    # minv
    ("Fm", ("nb", 6, "nv")), ("Am", ("nb", 6, "nv")), ("Minv", ("nv", "nv")), ("Wk", (6, "nv")),
    # frames
    ("J", (6, "nv")), ("frame_R", (3, 3)), ("frame_p", (3,)), ("frame_v", (6,)), ("frame_h", (6,)), ("h", ("nb", 6)),
    # derivatives
    ("deriv_bw", (3, "nb", 6)), ("deriv_dw", (7, "nv", 6)), ("deriv_B", ("nb", 6, 6)), ("dtau_dq", ("nv", "nv")),
    ("dtau_dqd", ("nv", "nv")), ("dqdd_dq", ("nv", "nv")), ("dqdd_dqd", ("nv", "nv")), ("dJ", (6, "nv")),
    # osim
    ("Ups", ("nb", 6, 6)), ("Psi", ("nb", 6, 6)),
    # loops
    ("loop_R", ("nl", 3, 3)), ("loop_p", ("nl", 3)), ("loop_Q", ("nl", 6, 6)), ("loop_K", ("nc", "nc")),
    ("loop_f", ("nb", 6)), ("loop_phi", ("nc",)), ("loop_cv", ("nc",)), ("loop_gamma", ("nc",)),
    ("loop_lambda", ("nc",)), ("loop_G", ("nc", "nv")),
    # contact
    ("gR", ("ng", 3, 3)), ("gp", ("ng", 3)), ("con_point", ("ncon_max", 3)), ("con_normal", ("ncon_max", 3)),
    ("con_gap", ("ncon_max",)), ("con_mu", ("ncon_max",)), ("con_eps", ("ncon_max",)),
    # kernel scratch
    ("scratch", (4, 6, 6)),
)
"""The float64 arrays of a Data: name and shape (sizes named as in ``SIZES``), in buffer order."""
DATA_INT = (("node_count", ("nb",)), ("node_cpar", ("nb",)), ("node_vid", ("nb",)), ("loop_info", (2,)),
            ("con_geom", ("ncon_max", 2)), ("con_body", ("ncon_max", 2)), ("ncon", (1,)))
"""The int64 arrays of a Data."""

MODEL_INT_OFF = DATA_INT_SIZE + 1
MODEL_FLOAT_OFF = MODEL_INT_OFF + len(MODEL_INT)
DATA_FLOAT_OFF = MODEL_FLOAT_OFF + len(MODEL_FLOAT)
DATA_INT_OFF = DATA_FLOAT_OFF + len(DATA_FLOAT)
HEADER = DATA_INT_OFF + len(DATA_INT)
"""Length of the header of ``model_int``; its fields follow."""


def _index(names, name):
    return [n if isinstance(n, str) else n[0] for n in names].index(name)


# field indices the kernels use
(BODY_PARENT, BODY_SUBTREE_END, JNT_TYPE, JNT_QADR, JNT_VADR, JNT_NV, FRAME_BODY) = (
    _index(MODEL_INT, n) for n in ("body_parent", "body_subtree_end", "jnt_type", "jnt_qadr", "jnt_vadr", "jnt_nv",
                                   "frame_body"))
(LOOP_FRAME_A, LOOP_FRAME_B, LOOP_KIND, LOOP_DIM, LOOP_ROW, GEOM_BODY, GEOM_TYPE, GEOM_CORNERS,
 GEOM_VERTADR, GEOM_VERTNUM, PAIR_GEOM) = (
    _index(MODEL_INT, n) for n in ("loop_frame_a", "loop_frame_b", "loop_kind", "loop_dim", "loop_row",
                                   "geom_body", "geom_type", "geom_corners", "geom_vertadr", "geom_vertnum",
                                   "pair_geom"))
(LOOP_SEL, LOOP_AXIS, LOOP_AXIS2, LOOP_TWIST, DOF_STIFFNESS, DOF_DAMPING, DOF_SPRINGREF, GEOM_SIZE, GEOM_E, GEOM_R,
 GEOM_MU, GEOM_RESTITUTION, GEOM_MARGIN, MESH_VERT) = (
    _index(MODEL_FLOAT, n) for n in ("loop_sel", "loop_axis", "loop_axis2", "loop_twist", "dof_stiffness",
                                     "dof_damping", "dof_springref", "geom_size", "geom_E", "geom_r", "geom_mu",
                                     "geom_restitution", "geom_margin", "mesh_vert"))
(GRAVITY_ACCEL, BODY_XTREE_E, BODY_XTREE_R, BODY_I, JNT_AXIS, JNT_AXIS2, JNT_PITCH, DOF_S, DOF_ARMATURE, FRAME_E,
 FRAME_R) = (_index(MODEL_FLOAT, n) for n in ("gravity_accel", "body_Xtree_E", "body_Xtree_r", "body_I", "jnt_axis",
                                             "jnt_axis2", "jnt_pitch", "dof_S", "dof_armature", "frame_E", "frame_r"))
(X_E, X_R, S, OR, OP, V, C, A, F, TAU, OS, OI, OIA, OU, MM, IA, PA, U, D, DINV, UU, QDD, FM, AM, MINV, WK, J_,
 FRAME_R_, FRAME_P, FRAME_V, FRAME_H, H, UPS, PSI, SCRATCH) = (
    _index(DATA_FLOAT, n) for n in ("X_E", "X_r", "S", "oR", "op", "v", "c", "a", "f", "tau", "oS", "oI", "oIA",
                                    "oU", "M", "IA", "pA", "U", "D", "Dinv", "u", "qdd", "Fm", "Am", "Minv", "Wk",
                                    "J", "frame_R", "frame_p", "frame_v", "frame_h", "h", "Ups", "Psi",
                                    "scratch"))

VJ = _index(DATA_FLOAT, "vJ")
GRAVITY = _index(MODEL_FLOAT, "gravity")
(LOOP_K, LOOP_F, LOOP_LAMBDA, LOOP_G) = (_index(DATA_FLOAT, n) for n in ("loop_K", "loop_f", "loop_lambda", "loop_G"))
LOOP_INFO, NCON = _index(DATA_INT, "loop_info"), _index(DATA_INT, "ncon")
(FEXT_ZERO, DERIV_BW, DERIV_DW, DERIV_B, DTAU_DQ, DTAU_DQD, DQDD_DQ, DQDD_DQD, DJ) = (
    _index(DATA_FLOAT, n) for n in ("fext_zero", "deriv_bw", "deriv_dw", "deriv_B", "dtau_dq", "dtau_dqd", "dqdd_dq",
                                    "dqdd_dqd", "dJ"))

(LOOP_R, LOOP_P, LOOP_Q, LOOP_PHI, LOOP_CV, LOOP_GAMMA, GR, GP, CON_POINT, CON_NORMAL, CON_GAP, CON_MU, CON_EPS) = (
    _index(DATA_FLOAT, n) for n in ("loop_R", "loop_p", "loop_Q", "loop_phi", "loop_cv", "loop_gamma", "gR", "gp",
                                    "con_point", "con_normal", "con_gap", "con_mu", "con_eps"))

(NODE_COUNT, NODE_CPAR, NODE_VID, CON_GEOM, CON_BODY) = (
    _index(DATA_INT, n) for n in ("node_count", "node_cpar", "node_vid", "con_geom", "con_body"))


# ---------------------------------------------------------------------------------------- packing (Python)
def shape_of(spec: tuple, sizes: dict) -> tuple:
    """A Data field's shape from its spec (``("nb", 6)`` -> ``(nb, 6)``)."""
    return tuple(sizes[d] if isinstance(d, str) else d for d in spec)


def _place(arrays: list, dtype, start: int = 0):
    """Offsets of ``arrays`` laid end to end from ``start``, and the total length."""
    offsets, o = [], start
    for a in arrays:
        offsets.append(o)
        o += int(np.prod(a))
    return offsets, o


def pack_model(fields: dict, sizes: dict):
    """``(model_int, model_float, views)`` for a Model's arrays ``fields`` (name -> array or None) and sizes
    (``SIZES`` -> int): the two read-only buffers, with the header, and each field as a read-only view of
    them (None stays None)."""
    ints = [np.ascontiguousarray(fields[n], dtype=np.int64) if fields[n] is not None else None for n in MODEL_INT]
    flts = [np.ascontiguousarray(fields[n], dtype=np.float64) if fields[n] is not None else None for n in MODEL_FLOAT]
    ioff, ni = _place([0 if a is None else a.size for a in ints], np.int64, HEADER)
    foff, nf = _place([0 if a is None else a.size for a in flts], np.float64)
    dshapes = [shape_of(s, sizes) for _, s in DATA_FLOAT]
    dioff = [shape_of(s, sizes) for _, s in DATA_INT]
    doff, nd = _place([int(np.prod(s)) for s in dshapes], np.float64)
    dioff, ndi = _place([int(np.prod(s)) for s in dioff], np.int64)
    mi = np.zeros(ni, dtype=np.int64)
    mf = np.zeros(nf)
    mi[:len(SIZES)] = [sizes[s] for s in SIZES]
    mi[DATA_FLOAT_SIZE], mi[DATA_INT_SIZE] = nd, ndi
    mi[MODEL_INT_OFF:MODEL_INT_OFF + len(MODEL_INT)] = ioff
    mi[MODEL_FLOAT_OFF:MODEL_FLOAT_OFF + len(MODEL_FLOAT)] = foff
    mi[DATA_FLOAT_OFF:DATA_FLOAT_OFF + len(DATA_FLOAT)] = doff
    mi[DATA_INT_OFF:DATA_INT_OFF + len(DATA_INT)] = dioff
    for buf, arrays, offs in ((mi, ints, ioff), (mf, flts, foff)):
        for a, o in zip(arrays, offs):
            if a is not None:
                buf[o:o + a.size] = a.ravel()
    mi.setflags(write=False)
    mf.setflags(write=False)
    views = {}
    for buf, names, arrays, offs in ((mi, MODEL_INT, ints, ioff), (mf, MODEL_FLOAT, flts, foff)):
        for n, a, o in zip(names, arrays, offs):
            views[n] = None if a is None else buf[o:o + a.size].reshape(a.shape)
    return mi, mf, views


def data_views(model_int: np.ndarray, sizes: dict):
    """``(data_int, data_float, views)``: zeroed Data buffers for a model and each Data field as a view."""
    di = np.zeros(model_int[DATA_INT_SIZE], dtype=np.int64)
    df = np.zeros(model_int[DATA_FLOAT_SIZE])
    views = {}
    for buf, specs, off in ((df, DATA_FLOAT, DATA_FLOAT_OFF), (di, DATA_INT, DATA_INT_OFF)):
        for k, (n, spec) in enumerate(specs):
            shape = shape_of(spec, sizes)
            o = model_int[off + k]
            views[n] = buf[o:o + int(np.prod(shape))].reshape(shape)
    return di, df, views


# --------------------------------------------------------------------------------------- accessors (numba)
@jit
def mint(mi, k, n):
    """Model int field ``MODEL_INT[k]`` with ``n`` rows (1-D)."""
    return view(mi, mi[MODEL_INT_OFF + k], n)


@jit
def model_tree(mi, mf):
    """The fields every tree pass reads: ``(body_parent, jnt_type, jnt_qadr, jnt_vadr, jnt_nv, jnt_axis,
    jnt_axis2, jnt_pitch, body_Xtree_E, body_Xtree_r, body_I, dof_S, dof_armature)``."""
    nb, nv = mi[NB], mi[NV]
    o = MODEL_FLOAT_OFF
    return (mint(mi, BODY_PARENT, nb), mint(mi, JNT_TYPE, nb), mint(mi, JNT_QADR, nb), mint(mi, JNT_VADR, nb),
            mint(mi, JNT_NV, nb), view(mf, mi[o + JNT_AXIS], (nb, 3)), view(mf, mi[o + JNT_AXIS2], (nb, 3)),
            view(mf, mi[o + JNT_PITCH], nb), view(mf, mi[o + BODY_XTREE_E], (nb, 3, 3)),
            view(mf, mi[o + BODY_XTREE_R], (nb, 3)), view(mf, mi[o + BODY_I], (nb, 6, 6)),
            view(mf, mi[o + DOF_S], (nv, 6)), view(mf, mi[o + DOF_ARMATURE], nv))


@jit
def model_extras(mi, mf):
    """``(body_subtree_end, gravity_accel, frame_E, frame_r)``, the frames' body is ``mint(mi, ...)``."""
    nb, nf = mi[NB], mi[NF]
    o = MODEL_FLOAT_OFF
    return (mint(mi, BODY_SUBTREE_END, nb), view(mf, mi[o + GRAVITY_ACCEL], 6), view(mf, mi[o + FRAME_E], (nf, 3, 3)),
            view(mf, mi[o + FRAME_R], (nf, 3)))


@jit
def dfield(mi, df, k, shape):
    """Data float field ``DATA_FLOAT[k]`` of ``shape``."""
    return view(df, mi[DATA_FLOAT_OFF + k], shape)


@jit
def dint(mi, di, k, n):
    """Data int field ``DATA_INT[k]`` with ``n`` rows (1-D)."""
    return view(di, mi[DATA_INT_OFF + k], n)


@jit
def data_kinematics(mi, df):
    """``(X_E, X_r, S, v, c, oR, op)``: body transforms, motion subspaces, velocities, world poses."""
    nb, nv = mi[NB], mi[NV]
    return (dfield(mi, df, X_E, (nb, 3, 3)), dfield(mi, df, X_R, (nb, 3)), dfield(mi, df, S, (nv, 6)),
            dfield(mi, df, V, (nb, 6)), dfield(mi, df, C, (nb, 6)), dfield(mi, df, OR, (nb, 3, 3)),
            dfield(mi, df, OP, (nb, 3)))


@jit
def data_world(mi, df):
    """``(oS, oI, oIA, oU)``: world-frame motion subspaces and inertias."""
    nb, nv = mi[NB], mi[NV]
    return (dfield(mi, df, OS, (nv, 6)), dfield(mi, df, OI, (nb, 6, 6)), dfield(mi, df, OIA, (nb, 6, 6)),
            dfield(mi, df, OU, (nv, 6)))


@jit
def data_aba(mi, df):
    """``(IA, pA, U, D, Dinv, u, a)``: the articulated-body factors and accelerations."""
    nb, nv = mi[NB], mi[NV]
    return (dfield(mi, df, IA, (nb, 6, 6)), dfield(mi, df, PA, (nb, 6)), dfield(mi, df, U, (nv, 6)),
            dfield(mi, df, D, (nb, 6, 6)), dfield(mi, df, DINV, (nb, 6, 6)), dfield(mi, df, UU, nv),
            dfield(mi, df, A, (nb, 6)))


@jit
def model_springs(mi, mf):
    """``(dof_stiffness, dof_damping, dof_springref)``: the joint springs."""
    nv = mi[NV]
    o = MODEL_FLOAT_OFF
    return (view(mf, mi[o + DOF_STIFFNESS], nv), view(mf, mi[o + DOF_DAMPING], nv),
            view(mf, mi[o + DOF_SPRINGREF], nv))


@jit
def model_loops(mi, mf):
    """``(frame_body, frame_E, frame_r, loop_frame_a, loop_frame_b, loop_kind, loop_sel, loop_dim, loop_row,
    loop_axis, loop_axis2, loop_twist)``: the frames and the loop closures (``loop_row`` has ``nl + 1``
    entries, ``[0]`` without loops)."""
    nf, nl = mi[NF], mi[NL]
    o = MODEL_FLOAT_OFF
    return (mint(mi, FRAME_BODY, nf), view(mf, mi[o + FRAME_E], (nf, 3, 3)), view(mf, mi[o + FRAME_R], (nf, 3)),
            mint(mi, LOOP_FRAME_A, nl), mint(mi, LOOP_FRAME_B, nl), mint(mi, LOOP_KIND, nl),
            view(mf, mi[o + LOOP_SEL], (nl, 6, 6)), mint(mi, LOOP_DIM, nl), mint(mi, LOOP_ROW, nl + 1),
            view(mf, mi[o + LOOP_AXIS], (nl, 3)), view(mf, mi[o + LOOP_AXIS2], (nl, 3)),
            view(mf, mi[o + LOOP_TWIST], (nl, 3)))


@jit
def model_geoms(mi, mf):
    """``(geom_body, geom_type, geom_size, geom_E, geom_r, geom_mu, geom_restitution, geom_margin,
    geom_corners, pair_geom, geom_vertadr, geom_vertnum, mesh_vert)``: the collision geometry."""
    ng, npair, nmv = mi[NG], mi[NPAIR], mi[NMESHVERT]
    o = MODEL_FLOAT_OFF
    return (mint(mi, GEOM_BODY, ng), mint(mi, GEOM_TYPE, ng), view(mf, mi[o + GEOM_SIZE], (ng, 3)),
            view(mf, mi[o + GEOM_E], (ng, 3, 3)), view(mf, mi[o + GEOM_R], (ng, 3)), view(mf, mi[o + GEOM_MU], ng),
            view(mf, mi[o + GEOM_RESTITUTION], ng), view(mf, mi[o + GEOM_MARGIN], ng), mint(mi, GEOM_CORNERS, ng),
            view(mi, mi[MODEL_INT_OFF + PAIR_GEOM], (npair, 2)), mint(mi, GEOM_VERTADR, ng),
            mint(mi, GEOM_VERTNUM, ng), view(mf, mi[o + MESH_VERT], (nmv, 3)))


@jit
def data_loops(mi, df):
    """``(loop_R, loop_p, loop_Q, loop_phi, loop_cv, loop_gamma)``: the loop frames' world poses, their
    constraint directions, errors, velocities and bias accelerations."""
    nl, nc = mi[NL], mi[NC]
    return (dfield(mi, df, LOOP_R, (nl, 3, 3)), dfield(mi, df, LOOP_P, (nl, 3)), dfield(mi, df, LOOP_Q, (nl, 6, 6)),
            dfield(mi, df, LOOP_PHI, nc), dfield(mi, df, LOOP_CV, nc), dfield(mi, df, LOOP_GAMMA, nc))


@jit
def data_contact(mi, df, di):
    """``(gR, gp, con_geom, con_body, con_point, con_normal, con_gap, con_mu, con_eps)``: the geoms' world
    poses and the contacts of collision detection."""
    ng, nk = mi[NG], mi[NCON_MAX]
    o = DATA_INT_OFF
    return (dfield(mi, df, GR, (ng, 3, 3)), dfield(mi, df, GP, (ng, 3)), view(di, mi[o + CON_GEOM], (nk, 2)),
            view(di, mi[o + CON_BODY], (nk, 2)), dfield(mi, df, CON_POINT, (nk, 3)),
            dfield(mi, df, CON_NORMAL, (nk, 3)), dfield(mi, df, CON_GAP, nk), dfield(mi, df, CON_MU, nk),
            dfield(mi, df, CON_EPS, nk))




@jit
def data_nodes(mi, df, di):
    """``(node_count, node_cpar, node_vid, Ups, Psi)``: the node tree of the operational space compliance
    (Jain 2014 Appendix) and its Upsilon and psi blocks."""
    nb = mi[NB]
    return (dint(mi, di, NODE_COUNT, nb), dint(mi, di, NODE_CPAR, nb), dint(mi, di, NODE_VID, nb),
            dfield(mi, df, UPS, (nb, 6, 6)), dfield(mi, df, PSI, (nb, 6, 6)))


@jit
def data_multipliers(mi, df):
    """``(loop_K, loop_f, loop_lambda)``: the Schur complement of the loop rows, the body forces of the
    multipliers and the multipliers."""
    nb, nc = mi[NB], mi[NC]
    return dfield(mi, df, LOOP_K, (nc, nc)), dfield(mi, df, LOOP_F, (nb, 6)), dfield(mi, df, LOOP_LAMBDA, nc)
