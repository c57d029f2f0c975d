"""MJCF loading through MuJoCo's own compiler (``mujoco.MjModel.from_xml_path``): every default, include,
``<compiler>`` option and geom-derived inertia is resolved by MuJoCo, and this module only maps the compiled
``mjModel`` arrays onto a :class:`~soadyn.builder.ModelBuilder`.

Mapping (MuJoCo documentation, "Computation" and "XML reference"):

* a MuJoCo body with joints ``j1 .. jk`` becomes a chain of soadyn bodies named ``"body/j1"`` .. ``"body/jk"``
  (each carrying one joint, named as in MuJoCo), whose predecessor frames sit at the joint anchors
  (``jnt_pos``) in the body's axes, followed by a fixed child named after the MuJoCo body at the body
  frame, which carries the body's inertia (``body_mass``, ``body_ipos``, ``body_iquat``, ``body_inertia``:
  including what MuJoCo derives from geoms) and its geoms. Fixed children are merged by ``finalize``, so
  every MuJoCo body is a frame of its own name, at its MuJoCo pose. A body without joints is fixed to its
  parent. Sites become frames of their name (``"site/name"`` where a body already has the name).
* ``hinge`` -> :func:`joints.Revolute`, ``slide`` -> ``Prismatic`` (axis and range as compiled; a joint's
  ``ref`` is folded into its predecessor frame, so ``q`` equals MuJoCo's ``qpos``), ``ball`` ->
  ``Spherical``, ``free`` -> ``Free`` (only on bodies whose parent is the world, where MuJoCo's and
  soadyn's free-joint poses coincide).
* Coordinates: hinge and slide ``q`` and ``qd`` equal ``qpos`` and ``qvel``. MuJoCo's quaternions are
  scalar-first, soadyn's scalar-last; a ball joint's velocity is the body angular velocity in both; a free
  joint's MuJoCo velocity is ``[world linear velocity of the body origin, body angular velocity]``, soadyn's
  the body-frame ``[w; v]``. :func:`state_from_mujoco` and :func:`velocity_map` convert.
* joint ``damping`` and ``stiffness`` (with ``springref``) of hinges and slides -> ``ModelBuilder.set_spring``;
  joint ``armature`` (added to the diagonal of the mass matrix, as MuJoCo does) -> ``ModelBuilder.set_armature``;
  gravity (zero when ``<flag gravity="disable">``) -> the builder's gravity; ``<option timestep>`` ->
  ``Model.timestep``.
* geoms that can collide (``contype`` or ``conaffinity`` non-zero, contacts not disabled) of type sphere,
  capsule, box, cylinder, plane (MuJoCo's planes are unbounded for collision: so is the imported one) and
  mesh (its convex hull, as MuJoCo collides with) become soadyn geoms with the sliding friction
  ``friction[0]`` and margin; MuJoCo's pair filter (``contype``/``conaffinity`` bit test, ``<exclude>``, the
  parent-child filter) is reproduced exactly with explicit exclusions.

Refused by default (``ModelError`` listing every instance; ``unsupported="warn"`` loads the model without
them and warns instead), because the loaded model would move differently from MuJoCo's: joint
``frictionloss``, armature on a free joint's translations (MuJoCo's acts on world-frame linear
accelerations, soadyn's coordinates are body-frame), damping or stiffness on ball and free joints, tendons
that act (stiffness, damping, limits), equality constraints, fluid forces (``density``/``viscosity``),
explicit ``<pair>`` contacts, gravity compensation and collision geoms of unsupported types (ellipsoid,
height field, SDF).
Ignored with a warning: actuators (apply ``tau`` instead), and tendons that only route actuators or sensors.
"""

from __future__ import annotations

import warnings
from pathlib import Path

import numpy as np

from .. import joints as J
from ..builder import WORLD, ModelBuilder
from ..model import Model, ModelError
from ..spatial import Inertia, Transform, rot_axis

__all__ = ["load_mjcf", "from_mjmodel", "state_from_mujoco", "velocity_map", "UNSUPPORTED_MODES"]

UNSUPPORTED_MODES = ("error", "warn")
_GEOM_KINDS = {"sphere": "sphere", "capsule": "capsule", "box": "box", "plane": "plane", "cylinder": "cylinder",
               "mesh": "convex"}


def load_mjcf(path, *, unsupported: str = "error", name: str | None = None) -> Model:
    """Compile the MJCF file ``path`` with MuJoCo and map it onto a :class:`Model` (see the module
    docstring). ``unsupported``: ``"error"`` (default) raises :class:`ModelError` naming every feature that
    soadyn cannot represent; ``"warn"`` drops them with a ``UserWarning``. ``name``: model name (default:
    MuJoCo's ``<mujoco model>``). ``FileNotFoundError`` for a missing file, ``ModelError`` when MuJoCo's
    compiler rejects it."""
    import mujoco

    if unsupported not in UNSUPPORTED_MODES:
        raise ValueError(f"unsupported: expected one of {UNSUPPORTED_MODES}, got {unsupported!r}")
    p = Path(path)
    if not p.is_file():
        raise FileNotFoundError(f"MJCF file not found: {str(path)!r}")
    try:
        m = mujoco.MjModel.from_xml_path(str(p))
    except ValueError as exc:
        raise ModelError(f"{p}: MuJoCo's compiler rejects the model: {exc}") from exc
    return from_mjmodel(m, source=str(p), unsupported=unsupported, name=name)


def from_mjmodel(m, *, source: str = "<mjModel>", unsupported: str = "error", name: str | None = None) -> Model:
    """Map a compiled ``mujoco.MjModel`` onto a :class:`Model`; otherwise as :func:`load_mjcf`."""
    import mujoco

    if unsupported not in UNSUPPORTED_MODES:
        raise ValueError(f"unsupported: expected one of {UNSUPPORTED_MODES}, got {unsupported!r}")
    lost, ignored = _unsupported(m), _ignored(m)
    if lost and unsupported == "error":
        raise ModelError(f"{source}: soadyn cannot represent {'; '.join(lost)} (pass unsupported='warn' to load "
                         "the model without them)")
    if lost:
        warnings.warn(f"{source}: loaded without {'; '.join(lost)}", UserWarning, stacklevel=3)
    if ignored:
        warnings.warn(f"{source}: ignored {'; '.join(ignored)}", UserWarning, stacklevel=3)

    gravity = np.zeros(3) if m.opt.disableflags & mujoco.mjtDisableBit.mjDSBL_GRAVITY else np.array(m.opt.gravity)
    builder = ModelBuilder(name or Path(source).stem, gravity=gravity, exclude_parent_child=False)
    bodies = [_name(m, mujoco.mjtObj.mjOBJ_BODY, b, f"body{b}") for b in range(m.nbody)]
    bodies[0] = WORLD
    joint_names = [_name(m, mujoco.mjtObj.mjOBJ_JOINT, j, f"joint{j}") for j in range(m.njnt)]
    springs = not m.opt.disableflags & mujoco.mjtDisableBit.mjDSBL_SPRING
    dampers = not m.opt.disableflags & mujoco.mjtDisableBit.mjDSBL_DAMPER
    try:
        for b in range(1, m.nbody):
            parent = bodies[m.body_parentid[b]]
            offset = Transform.from_pose(_quat_matrix(m.body_quat[b]), m.body_pos[b])  # parent -> body frame
            anchor = None  # the previous joint's anchor in the body's axes (None: still in the parent frame)
            for j in range(m.body_jntadr[b], m.body_jntadr[b] + m.body_jntnum[b]):
                joint, pre = _joint(m, j, bodies[b], source)
                if joint.type == J.FREE:  # MuJoCo's free joint places the body in the world directly
                    a, step = np.zeros(3), Transform.identity()
                else:
                    a = np.array(m.jnt_pos[j])
                    step = Transform.from_pose(None, a) * offset if anchor is None else \
                        Transform.from_pose(None, a - anchor)
                child = f"{bodies[b]}/{joint_names[j]}"
                builder.add_body(child, parent, joint, pre * step, joint_name=joint_names[j])
                k = float(m.jnt_stiffness[j]) if springs else 0.0
                c = float(m.dof_damping[m.jnt_dofadr[j]]) if dampers else 0.0
                if joint.nv == 1 and (k or c):
                    builder.set_spring(joint_names[j], k, c, float(m.qpos_spring[m.jnt_qposadr[j]]))
                arm = _armature(m, j)
                if np.any(arm):
                    builder.set_armature(joint_names[j], arm)
                parent, anchor = child, a
            place = offset if anchor is None else Transform.from_pose(None, -anchor)
            R = _quat_matrix(m.body_iquat[b])
            inertia = Inertia(m.body_mass[b], m.body_ipos[b], R @ np.diag(m.body_inertia[b]) @ R.T)
            builder.add_body(bodies[b], parent, J.Fixed(), place, inertia, joint_name=f"{bodies[b]}_weld")
        taken = set(bodies) | {f"{bodies[m.jnt_bodyid[j]]}/{n}" for j, n in enumerate(joint_names)}
        for s in range(m.nsite):
            site = _name(m, mujoco.mjtObj.mjOBJ_SITE, s, f"site{s}")
            builder.add_frame(f"site/{site}" if site in taken else site, bodies[m.site_bodyid[s]],
                              Transform.from_pose(_quat_matrix(m.site_quat[s]), m.site_pos[s]))
        if not m.opt.disableflags & mujoco.mjtDisableBit.mjDSBL_CONTACT:
            _add_geoms(builder, m, bodies)
        model = builder.finalize()
    except ModelError as exc:
        raise ModelError(f"{source}: {exc}") from exc
    if model.jnt_names != tuple(joint_names):
        raise ModelError(f"{source}: joint order {model.jnt_names} differs from MuJoCo's {tuple(joint_names)}")
    import dataclasses

    return dataclasses.replace(model, timestep=float(m.opt.timestep))


# ----------------------------------------------------------------------------------------------- helpers
def _name(m, obj, i: int, default: str) -> str:
    import mujoco

    return mujoco.mj_id2name(m, obj, i) or default


def _quat_matrix(q) -> np.ndarray:
    """Rotation matrix of MuJoCo's scalar-first unit quaternion ``[w, x, y, z]``."""
    R = np.empty(9)
    import mujoco

    mujoco.mju_quat2Mat(R, np.asarray(q, dtype=float))
    return R.reshape(3, 3)


def _joint(m, j: int, body: str, source: str):
    """The soadyn joint of MuJoCo joint ``j`` and the transform that folds its ``ref`` into the predecessor
    frame (MuJoCo rotates by ``qpos - qpos0``, soadyn by ``q``)."""
    import mujoco

    t, axis = m.jnt_type[j], np.array(m.jnt_axis[j])
    lo, hi = (m.jnt_range[j] if m.jnt_limited[j] else (-np.inf, np.inf))
    ref = float(m.qpos0[m.jnt_qposadr[j]])
    if t == mujoco.mjtJoint.mjJNT_HINGE:
        return J.Revolute(axis, lo, hi), Transform.from_pose(rot_axis(axis, -ref), None)
    if t == mujoco.mjtJoint.mjJNT_SLIDE:
        return J.Prismatic(axis, lo, hi), Transform.from_pose(None, -ref * axis / np.linalg.norm(axis))
    if t == mujoco.mjtJoint.mjJNT_BALL:
        return J.Spherical(), Transform.identity()
    if m.body_parentid[m.jnt_bodyid[j]] != 0:
        raise ModelError(f"free joint of body {body!r}: free joints are supported on children of the world only")
    return J.Free(), Transform.identity()


def _armature(m, j: int) -> np.ndarray:
    """Joint ``j``'s armature in soadyn's dof order: MuJoCo's free-joint dofs are ``[v_world, w_body]``,
    soadyn's ``[w; v_body]`` (armature on the translations, which differs between the two coordinates,
    is refused by :func:`_unsupported`)."""
    import mujoco

    a = np.array(m.dof_armature[m.jnt_dofadr[j]:m.jnt_dofadr[j] + (6 if m.jnt_type[j] == mujoco.mjtJoint.mjJNT_FREE
                 else 3 if m.jnt_type[j] == mujoco.mjtJoint.mjJNT_BALL else 1)])
    return np.r_[a[3:], a[:3]] if a.size == 6 else a


def _add_geoms(builder: ModelBuilder, m, bodies: list) -> None:
    """The collision geoms of supported types, with MuJoCo's pair filter as explicit exclusions."""
    import mujoco

    kinds = {int(getattr(mujoco.mjtGeom, f"mjGEOM_{k.upper()}")): k for k in _GEOM_KINDS}
    names, keep = [], []
    for g in range(m.ngeom):
        if not (m.geom_contype[g] or m.geom_conaffinity[g]) or int(m.geom_type[g]) not in kinds:
            continue
        kind = kinds[int(m.geom_type[g])]
        size = {"sphere": m.geom_size[g][:1], "capsule": m.geom_size[g][:2], "box": m.geom_size[g],
                "plane": None, "cylinder": m.geom_size[g][:2], "mesh": None}[kind]
        if kind == "mesh":  # MuJoCo collides with the mesh's convex hull too
            mesh = m.geom_dataid[g]
            size = m.mesh_vert[m.mesh_vertadr[mesh]:m.mesh_vertadr[mesh] + m.mesh_vertnum[mesh]]
        nm = _name(m, mujoco.mjtObj.mjOBJ_GEOM, g, f"geom{g}")
        builder.add_geom(nm, bodies[m.geom_bodyid[g]], _GEOM_KINDS[kind], size,
                         Transform.from_pose(_quat_matrix(m.geom_quat[g]), m.geom_pos[g]),
                         mu=float(m.geom_friction[g][0]), margin=float(m.geom_margin[g]))
        names.append(nm)
        keep.append(g)
    excluded = {int(s) for s in m.exclude_signature}
    filter_parent = not m.opt.disableflags & mujoco.mjtDisableBit.mjDSBL_FILTERPARENT
    for i, a in enumerate(keep):
        for k in range(i + 1, len(keep)):
            if not _mujoco_pair(m, a, keep[k], excluded, filter_parent):
                builder.exclude_pair(names[i], names[k])


def _mujoco_pair(m, g1: int, g2: int, excluded: set, filter_parent: bool) -> bool:
    """MuJoCo's dynamic pair filter (``mj_collision``'s broad phase): different weld bodies, the
    ``contype``/``conaffinity`` test, no ``<exclude>`` of the two bodies, and (filterparent) no weld
    parent-child pair unless one of them is the world."""
    b1, b2 = int(m.geom_bodyid[g1]), int(m.geom_bodyid[g2])
    w1, w2 = int(m.body_weldid[b1]), int(m.body_weldid[b2])
    if w1 == w2:
        return False
    if not ((m.geom_contype[g1] & m.geom_conaffinity[g2]) or (m.geom_contype[g2] & m.geom_conaffinity[g1])):
        return False
    lo, hi = min(b1, b2), max(b1, b2)
    if ((lo << 16) + hi) in excluded:
        return False
    if filter_parent and w1 and w2:
        p1, p2 = int(m.body_weldid[m.body_parentid[w1]]), int(m.body_weldid[m.body_parentid[w2]])
        if p1 == w2 or p2 == w1:
            return False
    return True


def _unsupported(m) -> list[str]:
    """What soadyn cannot represent, one entry per feature with the MuJoCo names involved."""
    import mujoco

    def names(obj, ids, prefix):
        return ", ".join(repr(_name(m, obj, int(i), f"{prefix}{int(i)}")) for i in ids)

    out = []
    jnt = mujoco.mjtObj.mjOBJ_JOINT
    dof_jnt = np.asarray(m.dof_jntid)
    js = sorted({int(dof_jnt[d]) for d in np.flatnonzero(m.dof_frictionloss)})
    if js:
        out.append(f"joint frictionloss (joints {names(jnt, js, 'joint')})")
    free = [j for j in range(m.njnt) if int(m.jnt_type[j]) == mujoco.mjtJoint.mjJNT_FREE
            and np.any(m.dof_armature[m.jnt_dofadr[j]:m.jnt_dofadr[j] + 3])]
    if free:  # MuJoCo's a * qacc in world coordinates is a * (vdot + w x v) in soadyn's body-frame ones
        out.append(f"armature on the translations of free joints (joints {names(jnt, free, 'joint')})")
    multi = [j for j in range(m.njnt) if int(m.jnt_type[j]) in (mujoco.mjtJoint.mjJNT_FREE, mujoco.mjtJoint.mjJNT_BALL)]
    bad = [j for j in multi if m.jnt_stiffness[j] or np.any(m.dof_damping[m.dof_jntid == j])]
    if bad:
        out.append(f"damping or stiffness of ball/free joints (joints {names(jnt, bad, 'joint')})")
    if m.ntendon:
        acting = [t for t in range(m.ntendon) if m.tendon_stiffness[t] or m.tendon_damping[t]
                  or m.tendon_limited[t] or m.tendon_armature[t] or m.tendon_frictionloss[t]]
        if acting:
            out.append(f"tendons with stiffness, damping, armature, friction or limits "
                       f"(tendons {names(mujoco.mjtObj.mjOBJ_TENDON, acting, 'tendon')})")
    if m.neq:
        out.append(f"{m.neq} equality constraints ({names(mujoco.mjtObj.mjOBJ_EQUALITY, range(m.neq), 'equality')})")
    if m.opt.density or m.opt.viscosity:
        out.append(f"fluid forces (density {m.opt.density}, viscosity {m.opt.viscosity})")
    comp = np.flatnonzero(m.body_gravcomp)
    if comp.size:
        out.append(f"gravity compensation (bodies {names(mujoco.mjtObj.mjOBJ_BODY, comp, 'body')})")
    if m.npair:
        out.append(f"{m.npair} explicit <pair> contacts")
    if not m.opt.disableflags & mujoco.mjtDisableBit.mjDSBL_CONTACT:
        supported = {int(getattr(mujoco.mjtGeom, f"mjGEOM_{k.upper()}")) for k in _GEOM_KINDS}
        geoms = [g for g in range(m.ngeom) if (m.geom_contype[g] or m.geom_conaffinity[g])
                 and int(m.geom_type[g]) not in supported]
        if geoms:
            kinds = sorted({mujoco.mjtGeom(int(m.geom_type[g])).name[7:].lower() for g in geoms})
            listed = names(mujoco.mjtObj.mjOBJ_GEOM, geoms, "geom")
            out.append(f"collision geoms of type {', '.join(kinds)} (geoms {listed})")
    return out


def _ignored(m) -> list[str]:
    """What the import leaves out without changing the passive dynamics."""
    out = []
    if m.nu:
        out.append(f"{m.nu} actuators (soadyn takes joint forces tau directly)")
    if m.ntendon:
        passive = [t for t in range(m.ntendon) if not (m.tendon_stiffness[t] or m.tendon_damping[t]
                   or m.tendon_limited[t] or m.tendon_armature[t] or m.tendon_frictionloss[t])]
        if passive:
            out.append(f"{len(passive)} tendons that exert no passive force")
    return out


# ----------------------------------------------------------------------------------------------- states
def state_from_mujoco(model: Model, qpos, qvel) -> tuple[np.ndarray, np.ndarray]:
    """soadyn's ``(q, qd)`` of MuJoCo's ``(qpos, qvel)`` for a model loaded by :func:`load_mjcf` (same joint
    order): quaternions become scalar-last, a free joint's ``[v_world, w_body]`` becomes ``[w; R^T v]``."""
    qpos = np.asarray(qpos, dtype=float).reshape(model.nq)
    qvel = np.asarray(qvel, dtype=float).reshape(model.nv)
    q, qd = qpos.copy(), qvel.copy()
    for i in range(model.nb):
        a, v, t = model.jnt_qadr[i], model.jnt_vadr[i], model.jnt_type[i]
        if t == J.SPHERICAL:
            q[a:a + 4] = np.r_[qpos[a + 1:a + 4], qpos[a]]
        elif t == J.FREE:
            q[a + 3:a + 7] = np.r_[qpos[a + 4:a + 7], qpos[a + 3]]
            R = _quat_matrix(qpos[a + 3:a + 7])
            qd[v:v + 3] = qvel[v + 3:v + 6]
            qd[v + 3:v + 6] = R.T @ qvel[v:v + 3]
    return q, qd


def velocity_map(model: Model, q) -> np.ndarray:
    """The (nv, nv) matrix ``T(q)`` with ``qd = T qvel`` (identity but for free joints); MuJoCo's mass matrix
    is ``T^T M T`` and its generalized forces ``T^T tau``."""
    from ..spatial import quat_to_rot

    q = np.asarray(q, dtype=float).reshape(model.nq)
    T = np.eye(model.nv)
    for i in range(model.nb):
        if model.jnt_type[i] == J.FREE:
            a, v = model.jnt_qadr[i], model.jnt_vadr[i]
            T[v:v + 6, v:v + 6] = 0.0
            T[v:v + 3, v + 3:v + 6] = np.eye(3)
            T[v + 3:v + 6, v:v + 3] = quat_to_rot(q[a + 3:a + 7]).T
    return T
