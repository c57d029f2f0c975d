"""The fully augmented (FA) model of Jain, Crean, Kuo and Quadrelli 2012 (Sec. 1, Figure 2a).

Every body of a tree model becomes an independent free body attached to the world by a ``FREE`` joint
(absolute coordinates: q = world position and quaternion, qd = body-frame spatial velocity ``[w; v]``);
its mass matrix is block diagonal and constant. Every hinge of the tree becomes a loop constraint between
frame A, fixed on the parent body (or the world) at the joint's predecessor placement ``X_tree``, and
frame B at the child body's origin, whose constrained rows ``Q`` are an orthonormal basis of the
complement of the joint's motion subspace ``S`` (``Q S = 0``). The loops of the tree model are kept.

``S`` is constant in the successor frame, and for every joint type but ``UNIVERSAL`` its span expressed
in the predecessor's axes does not depend on the joint's configuration either (rotations about the
joint axis leave ``span S`` invariant; translations do not change motion directions), so ``Q`` is a
constant custom selection in A's axes. A universal joint's constrained angular direction
``(R_AB a2) x a1`` turns with the joint, so it becomes a ``"universal"`` loop (``a1`` in A, ``a2`` in B).
``FREE`` joints constrain nothing and give no loop. The position error ``phi = Q xi`` of each hinge loop
is zero at every tree configuration (``xi`` of the joint transform lies in ``span S``). Frames A and B of
a hinge loop coincide only where the joint is at ``q = 0``; elsewhere ``d phi / dq`` and ``G_c`` share
their null space (the same constraint manifold) but differ by an invertible factor on the constrained
rows.

API: :func:`fully_augmented` (also ``Model.fully_augmented()``); :func:`fa_state`, which maps a tree
state to the FA state and checks that the FA constraints hold there; :func:`fa_forces`, which maps the
tree's joint forces ``tau`` (and body forces) to the equal and opposite body forces of the FA model;
:func:`fa_spring_forces`, the same for the tree's joint spring-dampers (``Model.dof_stiffness``, ...),
evaluated at an FA state. The FA model itself carries no joint springs (its hinges are loops): an FA
simulation of a sprung tree adds :func:`fa_spring_forces` to its body forces at every dynamics evaluation.
"""

from __future__ import annotations

import numpy as np

from . import joints as J
from .builder import ModelBuilder
from .model import Model, ModelError
from .spatial import Inertia, Transform, quats_to_rots, rot_to_quat

__all__ = ["fully_augmented", "fa_state", "fa_forces", "fa_spring_forces", "hinge_constraint_rows", "FA_STATE_TOL"]

FA_STATE_TOL = 1e-9
"""Largest FA position error (relative to the model's size) accepted by :func:`fa_state`: the FA
constraints hold exactly at a mapped tree state, up to the round-off of forward kinematics."""

_ZERO_TOL = 1e-9  # Gram-Schmidt: a projected unit vector shorter than this lies in span S


def hinge_constraint_rows(S: np.ndarray) -> np.ndarray:
    """An orthonormal basis (rows, (6 - n) x 6) of the complement of ``span S`` for a motion subspace
    ``S`` (6 x n): Gram-Schmidt over the unit vectors ``e_0 .. e_5`` projected off ``span S``, so that
    axis-aligned joints get axis-aligned rows (a revolute joint about z constrains ``wx, wy, vx, vy, vz``)."""
    S = np.asarray(S, dtype=float).reshape(6, -1)
    basis = [c for c in np.linalg.qr(S)[0].T[:np.linalg.matrix_rank(S)]] if S.shape[1] else []
    rows = []
    for k in range(6):
        u = np.eye(6)[k]
        for b in basis + rows:
            u = u - np.dot(b, u) * b
        n = np.linalg.norm(u)
        if n > _ZERO_TOL:
            u = u / n
            for b in basis + rows:  # second pass for round-off
                u = u - np.dot(b, u) * b
            rows.append(u / np.linalg.norm(u))
    return np.array(rows).reshape(-1, 6)


def _unique(name: str, taken: set) -> str:
    out, k = name, 1
    while out in taken:
        out = f"{name}_{k}"
        k += 1
    taken.add(out)
    return out


def _armature_joints(model: Model) -> list[str]:
    return [model.jnt_names[i] for i in sorted({int(model.dof_body[k]) for k in np.flatnonzero(model.dof_armature)})]


def fully_augmented(model: Model) -> Model:
    """The FA model of ``model``: ``nb`` free bodies (same names, inertias and frames), one loop per
    non-free hinge named after the joint, plus the loops of ``model``. Its ``nv`` is ``6 nb`` and its
    ``nc`` is ``sum_i (6 - nv_i)`` over the non-free joints plus ``model.nc``.

    Free-body joints are named ``"<body>_free"``; the hinge's frame A is named ``"<joint>_pred"`` (a
    suffix ``_1, _2, ..`` is appended where a name is taken). ``ModelError`` if a body has no inertia of
    its own (a massless body is fine inside a tree, but a free body needs a positive definite inertia).
    Collision geoms stay on the same bodies (same names and properties) with the same candidate pairs."""
    if not isinstance(model, Model):
        raise ValueError(f"model: expected a soadyn Model, got {type(model).__name__}")
    if np.any(model.dof_armature):
        raise ModelError(f"fully augmented model of {model.name!r}: joint armature (on joints "
                         f"{_armature_joints(model)}) acts on joint coordinates, which the FA model has not")
    b = ModelBuilder(f"{model.name}_fa", gravity=model.gravity)
    taken = set(model.frame_names) | set(model.body_names) | {"world"}
    for i, name in enumerate(model.body_names):  # body names are unique, hence so are "<body>_free"
        if np.linalg.eigvalsh(model.body_I[i]).min() <= 1e-12 * max(1.0, np.abs(model.body_I[i]).max()):
            raise ModelError(f"fully augmented model of {model.name!r}: body {name!r} has no inertia of its own "
                             "(as a free body its mass matrix would be singular)")
        b.add_body(name, "world", J.Free(), None, Inertia.from_matrix(model.body_I[i]), joint_name=f"{name}_free")
    # every frame of the tree model on the same body (the body frames come with add_body)
    body_set = set(model.body_names)
    for f, fname in enumerate(model.frame_names):
        fb = model.frame_body[f]
        if fname in body_set and fb >= 0 and model.body_names[fb] == fname:
            continue
        host = "world" if fb < 0 else model.body_names[fb]
        b.add_frame(fname, host, Transform(model.frame_E[f], model.frame_r[f]))
    # collision geoms on the same bodies; candidate pairs as in the tree model (its parent-child pairs are
    # not parent-child in the FA model, where every body hangs from the world)
    from .contact.geometry import geom_declaration

    for g in range(model.ng):
        b.add_geom(**geom_declaration(model, g))
    kept = {frozenset(p) for p in model.pair_geom.tolist()}
    for i in range(model.ng):
        for j in range(i + 1, model.ng):
            if frozenset((i, j)) not in kept:
                b.exclude_pair(model.geom_name[i], model.geom_name[j])
    # hinges -> loops
    loop_names = set(model.loop_names)
    for i in range(model.nb):
        t = model.jnt_type[i]
        if t == J.FREE:
            continue
        p = model.body_parent[i]
        host = "world" if p < 0 else model.body_names[p]
        fa = _unique(f"{model.jnt_names[i]}_pred", taken)
        b.add_frame(fa, host, Transform(model.body_Xtree_E[i], model.body_Xtree_r[i]))
        lname = _unique(model.jnt_names[i], loop_names)
        if t == J.UNIVERSAL:
            b.add_loop(lname, fa, model.body_names[i], "universal", axis=model.jnt_axis[i], axis2=model.jnt_axis2[i])
        else:
            S = model.dof_S[model.jnt_vadr[i]:model.jnt_vadr[i] + model.jnt_nv[i]].T
            b.add_loop(lname, fa, model.body_names[i], hinge_constraint_rows(S))
    # the tree model's own loops
    if model.nl:
        from .loops import KINDS, UNIVERSAL

        names = {code: n for n, (code, _) in KINDS.items()}
        for l in range(model.nl):
            code, d = int(model.loop_kind[l]), int(model.loop_dim[l])
            kind = names.get(code, np.array(model.loop_sel[l, :d]))
            axis = model.loop_axis[l] if code == UNIVERSAL else None
            axis2 = model.loop_axis2[l] if code == UNIVERSAL else None
            b.add_loop(model.loop_names[l], model.frame_names[model.loop_frame_a[l]],
                       model.frame_names[model.loop_frame_b[l]], kind, axis=axis, axis2=axis2)
    try:
        return b.finalize()
    except ModelError as exc:
        raise ModelError(f"fully augmented model of {model.name!r}: {exc}") from None


def fa_state(model: Model, fa_model: Model, q, qd=None, tol: float = FA_STATE_TOL):
    """The FA state ``(q_fa, qd_fa)`` of the tree state ``(q, qd)``: each body's world pose
    ``[position, quaternion xyzw]`` and body-frame spatial velocity ``[w; v]`` (from :func:`soadyn.fk`:
    ``data.oR, data.op, data.v``). Raises ``ValueError`` if ``fa_model`` is not the FA model of ``model``
    or if the FA hinge constraints are violated there by more than ``tol`` (relative): the tree's loops
    are not checked (``q`` need not close them)."""
    from .dynamics import as_array, fk
    from .loops import constraint_state

    if fa_model.nb != model.nb or fa_model.nv != 6 * model.nb or fa_model.body_names != model.body_names:
        raise ValueError(f"fa_model: {fa_model.name!r} is not the fully augmented model of {model.name!r}")
    q = as_array(q, (model.nq,), "q")
    qd = np.zeros(model.nv) if qd is None else as_array(qd, (model.nv,), "qd")
    data = model.data()
    fk(model, data, q, qd)
    q_fa = np.empty(fa_model.nq)
    qd_fa = np.empty(fa_model.nv)
    for i in range(model.nb):
        a, k = fa_model.jnt_qadr[i], fa_model.jnt_vadr[i]
        q_fa[a:a + 3] = data.op[i]
        q_fa[a + 3:a + 7] = rot_to_quat(data.oR[i])
        qd_fa[k:k + 6] = data.v[i]
    if fa_model.nl:
        nh = fa_model.nl - model.nl  # hinge loops come first
        phi, cv, _, _ = constraint_state(fa_model, fa_model.data(), q_fa, qd_fa)
        rows = slice(0, int(fa_model.loop_row[nh]))
        scale = max(1.0, float(np.abs(q_fa).max()), float(np.abs(qd_fa).max()))
        for what, err in (("position", phi[rows]), ("velocity", cv[rows])):
            e = float(np.abs(err).max(initial=0.0))
            if not e <= tol * scale:
                l = int(np.searchsorted(fa_model.loop_row, int(np.argmax(np.abs(err))), side="right") - 1)
                raise ValueError(f"fa_state: FA hinge {what} error {e:.3e} at loop {fa_model.loop_names[l]!r} "
                                 f"exceeds {tol:.1e} x {scale:.3g}: fa_model does not match model")
    return q_fa, qd_fa


def fa_forces(model: Model, q, tau, f_ext=None) -> np.ndarray:
    """Body forces (nb, 6) on the FA model equivalent to the tree's joint forces ``tau`` (nv,) and body
    forces ``f_ext`` (None or (nb, 6), body coordinates about body origins, as in :func:`soadyn.aba`) at
    the tree configuration ``q``: joint ``i`` pushes its body with a spatial force ``f_i`` whose
    generalized force is ``S_i^T f_i = tau_i`` (``f_i = S_i (S_i^T S_i)^-1 tau_i``; the hinge loop's
    multipliers carry the rest of any other choice) and its parent with the reaction ``-^iX_p^T f_i``. Pass the result as ``f_ext`` with ``tau = 0``
    to the FA model's forward dynamics."""
    from .dynamics import as_array, fk

    tau = as_array(tau, (model.nv,), "tau")
    out = np.zeros((model.nb, 6)) if f_ext is None else as_array(f_ext, (model.nb, 6), "f_ext").copy()
    if not np.all(np.isfinite(tau)) or not np.all(np.isfinite(out)):
        raise ValueError("tau, f_ext: contain NaN or inf")
    data = model.data()
    fk(model, data, q)
    for i in range(model.nb):
        k = model.jnt_vadr[i]
        S = data.S[k:k + model.jnt_nv[i]].T
        f = S @ np.linalg.solve(S.T @ S, tau[k:k + model.jnt_nv[i]])
        out[i] += f
        p = model.body_parent[i]
        if p >= 0:
            out[p] -= Transform(data.X_E[i], data.X_r[i]).transpose_force(f)
    return out


def fa_spring_forces(model: Model, fa_model: Model, q_fa, qd_fa) -> np.ndarray:
    """Body forces (nb, 6) on the FA model equivalent to the joint spring-dampers of the tree ``model``
    (``tau_i = -k_i (theta_i - ref_i) - c_i theta_dot_i``, see :meth:`soadyn.ModelBuilder.set_spring`) at
    the FA state ``(q_fa, qd_fa)``: for each sprung revolute joint ``i`` between parent ``p`` (or the world)
    and body ``i``, the hinge angle ``theta`` is the rotation of body ``i`` relative to the joint's
    predecessor frame ``A`` (``R_A = R_p E_tree^T``) about the joint axis ``a``, ``theta = atan2(a . vee,
    (tr R_rel - 1) / 2)`` with ``R_rel = R_A^T R_i`` (in ``(-pi, pi]``), and ``theta_dot = a . R_A^T
    (w_i - w_p)`` (world angular velocities), vectorized over the springs. The torque acts as a pair of
    equal and opposite couples:
    ``tau R_i^T R_A a`` on body ``i`` and ``-tau R_p^T R_A a`` on ``p`` (body coordinates ``[n; f]``, about
    the body origins; a couple has no force part). On the constraint manifold this is :func:`fa_forces` of
    the spring torques at the tree state. Only revolute springs are mapped (``ValueError`` for others)."""
    from .dynamics import as_array

    if fa_model.nb != model.nb or fa_model.nv != 6 * model.nb or fa_model.body_names != model.body_names:
        raise ValueError(f"fa_model: {fa_model.name!r} is not the fully augmented model of {model.name!r}")
    q_fa = as_array(q_fa, (fa_model.nq,), "q_fa")
    qd_fa = as_array(qd_fa, (fa_model.nv,), "qd_fa")
    if not (np.all(np.isfinite(q_fa)) and np.all(np.isfinite(qd_fa))):
        raise ValueError("q_fa, qd_fa: contain NaN or inf")
    out = np.zeros((model.nb, 6))
    k, c = model.dof_stiffness, model.dof_damping
    sprung = (k[model.jnt_vadr] != 0) | (c[model.jnt_vadr] != 0)
    idx = np.flatnonzero((model.jnt_nv == 1) & sprung)
    if idx.size == 0:
        return out
    bad = [model.jnt_names[i] for i in idx if model.jnt_type[i] != J.REVOLUTE]
    if bad:
        raise ValueError(f"model: joints {bad} are not revolute; fa_spring_forces maps revolute springs only")
    R = quats_to_rots(q_fa.reshape(model.nb, 7)[:, 3:])
    W = np.einsum("bij,bj->bi", R, qd_fa.reshape(model.nb, 6)[:, :3])  # world angular velocities
    par = model.body_parent[idx]
    Rp = np.where((par >= 0)[:, None, None], R[np.maximum(par, 0)], np.eye(3))
    Wp = np.where((par >= 0)[:, None], W[np.maximum(par, 0)], 0.0)
    RA = Rp @ np.transpose(model.body_Xtree_E[idx], (0, 2, 1))
    Rrel = np.transpose(RA, (0, 2, 1)) @ R[idx]
    vee = 0.5 * np.stack([Rrel[:, 2, 1] - Rrel[:, 1, 2], Rrel[:, 0, 2] - Rrel[:, 2, 0],
                          Rrel[:, 1, 0] - Rrel[:, 0, 1]], 1)
    a = model.jnt_axis[idx]
    theta = np.arctan2(np.einsum("si,si->s", a, vee), 0.5 * (np.trace(Rrel, axis1=1, axis2=2) - 1.0))
    axis_w = np.einsum("sij,sj->si", RA, a)
    theta_dot = np.einsum("si,si->s", axis_w, W[idx] - Wp)
    dof = model.jnt_vadr[idx]
    tau = -k[dof] * (theta - model.dof_springref[dof]) - c[dof] * theta_dot
    out[idx, :3] += tau[:, None] * np.einsum("sji,sj->si", R[idx], axis_w)
    inner = par >= 0
    np.add.at(out[:, :3], par[inner], -tau[inner, None] * np.einsum("sji,sj->si", Rp[inner], axis_w[inner]))
    return out
