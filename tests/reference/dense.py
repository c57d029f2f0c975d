"""Slow, obviously-correct dense reference implementations (docs/architecture.md, Tests).

Everything here is written directly from the textbook equations with 6x6 NumPy matrices, independent of
the kernels and of :mod:`soadyn.spatial`: joint poses come from first principles (axis-angle and
quaternion rotations through :class:`scipy.spatial.transform.Rotation`), body transforms are explicit
Pluecker matrices, and the dynamics are Featherstone's tables evaluated with full matrices. Only the
model's raw arrays (topology, tree placements, inertias, joint types, axes, pitches, frames) are read.

Conventions (docs/architecture.md, Conventions): spatial vectors are angular first, ``[w; v]`` and
``[n; f]``; the motion transform from frame A to frame B is ``X = [[E, 0], [-E r~, E]]`` with ``E``
mapping A-coordinates to B-coordinates and ``r`` the origin of B in A (Featherstone, RBDA Eq. 2.24);
quaternions are scalar-last ``[x, y, z, w]`` (also SciPy's order).
"""

from __future__ import annotations

import numpy as np
from scipy.spatial.transform import Rotation

from soadyn import joints as J

# ------------------------------------------------------------------------------------- spatial algebra


def skew(v) -> np.ndarray:
    """``v~`` with ``v~ u = v x u``."""
    x, y, z = np.asarray(v, dtype=float)
    return np.array([[0.0, -z, y], [z, 0.0, -x], [-y, x, 0.0]])


def crm(v) -> np.ndarray:
    """Motion cross product ``v x`` (RBDA Eq. 2.31): ``[[w~, 0], [v~, w~]]``."""
    v = np.asarray(v, dtype=float)
    out = np.zeros((6, 6))
    out[:3, :3] = skew(v[:3])
    out[3:, 3:] = skew(v[:3])
    out[3:, :3] = skew(v[3:])
    return out


def crf(v) -> np.ndarray:
    """Force cross product ``v x*`` (RBDA Eq. 2.32): ``[[w~, v~], [0, w~]]``."""
    v = np.asarray(v, dtype=float)
    out = np.zeros((6, 6))
    out[:3, :3] = skew(v[:3])
    out[3:, 3:] = skew(v[:3])
    out[:3, 3:] = skew(v[3:])
    return out


def plucker(E, r) -> np.ndarray:
    """The 6x6 motion transform ``[[E, 0], [-E r~, E]]`` (RBDA Eq. 2.24)."""
    E = np.asarray(E, dtype=float)
    X = np.zeros((6, 6))
    X[:3, :3] = E
    X[3:, 3:] = E
    X[3:, :3] = -E @ skew(r)
    return X


def pose_transform(R, p) -> np.ndarray:
    """Motion transform from frame A to a frame B whose orientation in A is ``R`` and origin ``p``."""
    return plucker(np.asarray(R).T, p)


def homogeneous(R, p) -> np.ndarray:
    T = np.eye(4)
    T[:3, :3] = R
    T[:3, 3] = p
    return T


def rot(axis, angle: float) -> np.ndarray:
    """Rotation by ``angle`` about the unit ``axis`` (SciPy's rotation vector)."""
    return Rotation.from_rotvec(np.asarray(axis, dtype=float) * angle).as_matrix()


def quat_rot(quat) -> np.ndarray:
    """Rotation matrix of a scalar-last quaternion (normalized by SciPy)."""
    return Rotation.from_quat(np.asarray(quat, dtype=float)).as_matrix()


def inertia_parts(I6) -> tuple[float, np.ndarray]:
    """Mass and centre of mass of a 6x6 spatial inertia about the body origin (RBDA Eq. 2.63:
    the top-right block is ``m c~``)."""
    m = float(I6[3, 3])
    if m <= 0.0:
        return 0.0, np.zeros(3)
    mc = np.array([I6[2, 4], I6[0, 5], I6[1, 3]])
    return m, mc / m


# ------------------------------------------------------------------------------------------ joints


def _jq(model, i, q) -> np.ndarray:
    a = model.jnt_qadr[i]
    return np.asarray(q, dtype=float)[a:a + model.jnt_nq[i]]


def joint_pose(model, i: int, q) -> tuple[np.ndarray, np.ndarray]:
    """Orientation ``R`` and origin ``p`` of joint ``i``'s successor frame in its predecessor frame,
    from the parametrizations documented in :mod:`soadyn.joints`."""
    t = model.jnt_type[i]
    a, u = model.jnt_axis[i], model.jnt_axis2[i]
    qi = _jq(model, i, q)
    z = np.zeros(3)
    if t == J.REVOLUTE:
        return rot(a, qi[0]), z
    if t == J.PRISMATIC:
        return np.eye(3), qi[0] * a
    if t == J.HELICAL:
        return rot(a, qi[0]), model.jnt_pitch[i] * qi[0] * a
    if t == J.UNIVERSAL:
        return rot(a, qi[0]) @ rot(u, qi[1]), z
    if t == J.CYLINDRICAL:
        return rot(a, qi[0]), qi[1] * a
    if t == J.PLANAR:
        return rot(a, qi[2]), qi[0] * u + qi[1] * np.cross(a, u)
    if t == J.SPHERICAL:
        return quat_rot(qi), z
    if t == J.FREE:
        return quat_rot(qi[3:7]), qi[:3].copy()
    raise ValueError(f"unknown joint type {t}")


def joint_transform(model, i: int, q) -> np.ndarray:
    """``X_J(q)`` (6x6): predecessor-frame motion vectors to successor coordinates."""
    return pose_transform(*joint_pose(model, i, q))


def joint_subspace(model, i: int, q) -> np.ndarray:
    """Motion subspace ``S_i(q)`` (6 x nv_i) in the successor frame: the successor's velocity relative to
    the predecessor per unit joint velocity, written from each joint's parametrization."""
    t = model.jnt_type[i]
    a, u = model.jnt_axis[i], model.jnt_axis2[i]
    z = np.zeros(3)
    if t == J.REVOLUTE:
        cols = [np.r_[a, z]]
    elif t == J.PRISMATIC:
        cols = [np.r_[z, a]]
    elif t == J.HELICAL:
        cols = [np.r_[a, model.jnt_pitch[i] * a]]
    elif t == J.UNIVERSAL:
        # w = qd1 a (predecessor axes) + qd2 u; in successor axes the first is rot(u, q2)^T a
        q2 = _jq(model, i, q)[1]
        cols = [np.r_[rot(u, q2).T @ a, z], np.r_[u, z]]
    elif t == J.CYLINDRICAL:
        cols = [np.r_[a, z], np.r_[z, a]]
    elif t == J.PLANAR:
        cols = [np.r_[a, z], np.r_[z, u], np.r_[z, np.cross(a, u)]]
    elif t == J.SPHERICAL:
        cols = [np.r_[e, z] for e in np.eye(3)]
    elif t == J.FREE:
        cols = list(np.eye(6))
    else:
        raise ValueError(f"unknown joint type {t}")
    return np.array(cols, dtype=float).T


def joint_bias(model, i: int, q, qd) -> np.ndarray:
    """``Sdot_i qd_i`` (6,): nonzero only for UNIVERSAL, where ``d/dt rot(u, q2)^T a = -qd2 u x
    (rot(u, q2)^T a)``."""
    if model.jnt_type[i] != J.UNIVERSAL:
        return np.zeros(6)
    k = model.jnt_vadr[i]
    S1 = joint_subspace(model, i, q)[:3, 0]
    out = np.zeros(6)
    out[:3] = -qd[k] * qd[k + 1] * np.cross(model.jnt_axis2[i], S1)
    return out


def dofs(model, i: int) -> slice:
    return slice(model.jnt_vadr[i], model.jnt_vadr[i] + model.jnt_nv[i])


# --------------------------------------------------------------------------------------- kinematics


def tree_transform(model, i: int) -> np.ndarray:
    """``X_T`` of body ``i``: parent frame to the joint's predecessor frame."""
    return plucker(model.body_Xtree_E[i], model.body_Xtree_r[i])


def body_transforms(model, q) -> list[np.ndarray]:
    """``^iX_p = X_J(q) X_T`` for every body (RBDA Sec. 4.4)."""
    return [joint_transform(model, i, q) @ tree_transform(model, i) for i in range(model.nb)]


def ancestors(model, i: int) -> list[int]:
    """``i`` and its ancestors, leaf first."""
    out = []
    while i >= 0:
        out.append(i)
        i = model.body_parent[i]
    return out


def body_to_ancestor(model, Xup, i: int, j: int) -> np.ndarray:
    """``^iX_j`` for ``j`` an ancestor of ``i`` (or ``i`` itself, or the world ``-1``)."""
    X = np.eye(6)
    while i != j:
        X = X @ Xup[i]
        i = model.body_parent[i]
        if i < -1:
            raise ValueError("not an ancestor")
    return X


def world_poses(model, q) -> tuple[np.ndarray, np.ndarray]:
    """World orientations ``(nb, 3, 3)`` and origins ``(nb, 3)`` by composing 4x4 homogeneous poses
    ``T_i = T_p T_tree T_J``."""
    T = []
    for i in range(model.nb):
        E, r = model.body_Xtree_E[i], model.body_Xtree_r[i]
        Ti = homogeneous(E.T, r) @ homogeneous(*joint_pose(model, i, q))
        p = model.body_parent[i]
        T.append(Ti if p < 0 else T[p] @ Ti)
    T = np.array(T).reshape(model.nb, 4, 4)
    return T[:, :3, :3].copy(), T[:, :3, 3].copy()


def frame_pose(model, q, f: int) -> np.ndarray:
    """World pose (4x4) of frame ``f``: ``frame_E`` maps body to frame coordinates, ``frame_r`` is the
    frame origin in the body."""
    b = model.frame_body[f]
    Tf = homogeneous(model.frame_E[f].T, model.frame_r[f])
    if b < 0:
        return Tf
    R, p = world_poses(model, q)
    return homogeneous(R[b], p[b]) @ Tf


def body_jacobians(model, q) -> np.ndarray:
    """Body Jacobians ``(nb, 6, nv)`` at the body origin in body coordinates, by the summation formula
    ``J_i[:, dofs(j)] = ^iX_j S_j`` over ``j`` ancestor of ``i`` (Jain 2014 Eq. 60-61,
    ``V = phi* H* qd``)."""
    Xup = body_transforms(model, q)
    Jb = np.zeros((model.nb, 6, model.nv))
    for i in range(model.nb):
        for j in ancestors(model, i):
            Jb[i][:, dofs(model, j)] = body_to_ancestor(model, Xup, i, j) @ joint_subspace(model, j, q)
    return Jb


def frame_jacobian(model, q, f: int, reference: str = "local") -> np.ndarray:
    """Frame Jacobian (6, nv) at the frame origin: ``^fX_b J_b`` (frame axes) or its world-aligned
    rotation ``blockdiag(R_f, R_f) ^fX_b J_b``."""
    b = model.frame_body[f]
    if b < 0:
        return np.zeros((6, model.nv))
    Jf = plucker(model.frame_E[f], model.frame_r[f]) @ body_jacobians(model, q)[b]
    if reference == "local":
        return Jf
    R = frame_pose(model, q, f)[:3, :3]
    out = Jf.copy()
    out[:3] = R @ Jf[:3]
    out[3:] = R @ Jf[3:]
    return out


def body_velocities(model, q, qd) -> np.ndarray:
    """Body spatial velocities ``(nb, 6)`` (body coordinates): ``J_i qd``."""
    return np.einsum("ikn,n->ik", body_jacobians(model, q), qd)


# ----------------------------------------------------------------------------------------- dynamics


def rnea(model, q, qd, qdd, f_ext=None) -> np.ndarray:
    """Recursive Newton-Euler inverse dynamics with 6x6 matrices (RBDA Table 5.1), gravity as the base
    acceleration ``a_0 = [0; -g]``, ``f_ext`` (nb, 6) body-frame forces about the body origins; plus the
    joint armature's ``armature * qdd``."""
    nb = model.nb
    qd, qdd = np.asarray(qd, dtype=float), np.asarray(qdd, dtype=float)
    f_ext = np.zeros((nb, 6)) if f_ext is None else np.asarray(f_ext, dtype=float)
    Xup = body_transforms(model, q)
    a0 = np.r_[np.zeros(3), -np.asarray(model.gravity)]
    v, a, f = np.zeros((nb, 6)), np.zeros((nb, 6)), np.zeros((nb, 6))
    for i in range(nb):
        S = joint_subspace(model, i, q)
        vJ = S @ qd[dofs(model, i)]
        p = model.body_parent[i]
        vp = np.zeros(6) if p < 0 else v[p]
        ap = a0 if p < 0 else a[p]
        v[i] = Xup[i] @ vp + vJ
        a[i] = Xup[i] @ ap + S @ qdd[dofs(model, i)] + joint_bias(model, i, q, qd) + crm(v[i]) @ vJ
        I = model.body_I[i]
        f[i] = I @ a[i] + crf(v[i]) @ I @ v[i] - f_ext[i]
    tau = np.zeros(model.nv)
    for i in range(nb - 1, -1, -1):
        tau[dofs(model, i)] = joint_subspace(model, i, q).T @ f[i]
        p = model.body_parent[i]
        if p >= 0:
            f[p] += Xup[i].T @ f[i]
    return tau + model.dof_armature * qdd


def crba(model, q) -> np.ndarray:
    """Composite-rigid-body mass matrix with 6x6 matrices (RBDA Table 6.2), plus the joint armature on the
    diagonal."""
    nb = model.nb
    Xup = body_transforms(model, q)
    Ic = [np.array(model.body_I[i], dtype=float) for i in range(nb)]
    for i in range(nb - 1, -1, -1):
        p = model.body_parent[i]
        if p >= 0:
            Ic[p] = Ic[p] + Xup[i].T @ Ic[i] @ Xup[i]
    M = np.zeros((model.nv, model.nv))
    for i in range(nb):
        F = Ic[i] @ joint_subspace(model, i, q)
        M[dofs(model, i), dofs(model, i)] = joint_subspace(model, i, q).T @ F
        j = i
        while model.body_parent[j] >= 0:
            F = Xup[j].T @ F
            j = model.body_parent[j]
            M[dofs(model, j), dofs(model, i)] = joint_subspace(model, j, q).T @ F
            M[dofs(model, i), dofs(model, j)] = M[dofs(model, j), dofs(model, i)].T
    return M + np.diag(model.dof_armature)


def mass_matrix(model, q) -> np.ndarray:
    """``M = sum_i J_i^T I_i J_i + diag(armature)`` with the body Jacobians (kinetic energy
    ``1/2 qd^T M qd``)."""
    Jb = body_jacobians(model, q)
    return sum(Jb[i].T @ model.body_I[i] @ Jb[i] for i in range(model.nb)) + np.diag(model.dof_armature)


def bias_forces(model, q, qd, f_ext=None) -> np.ndarray:
    """``C(q, qd) = C qd + g - sum J_i^T f_ext_i``: the inverse dynamics at ``qdd = 0``."""
    return rnea(model, q, qd, np.zeros(model.nv), f_ext)


def forward_dynamics(model, q, qd, tau, f_ext=None) -> np.ndarray:
    """``qdd`` from ``M qdd = tau - C`` (numpy.linalg.solve)."""
    return np.linalg.solve(mass_matrix(model, q), np.asarray(tau, dtype=float) - bias_forces(model, q, qd, f_ext))


def kinetic_energy(model, q, qd) -> float:
    """``sum_i 1/2 v_i^T I_i v_i + sum_k 1/2 armature_k qd_k^2``."""
    v = body_velocities(model, q, qd)
    qd = np.asarray(qd, dtype=float)
    return 0.5 * float(sum(v[i] @ model.body_I[i] @ v[i] for i in range(model.nb))
                       + qd @ (model.dof_armature * qd))


def potential_energy(model, q) -> float:
    """``-sum_i m_i g . c_i`` with ``c_i`` the world position of body ``i``'s centre of mass."""
    R, p = world_poses(model, q)
    U = 0.0
    for i in range(model.nb):
        m, c = inertia_parts(model.body_I[i])
        U -= m * float(np.dot(model.gravity, p[i] + R[i] @ c))
    return U
