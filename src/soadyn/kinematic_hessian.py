"""World-frame spatial Jacobians and their configuration derivatives (the kinematic Hessian), dense.

The world spatial Jacobian column of dof ``j`` is the spatial velocity ``J_j = [w; v]`` (world axes, about
the world origin) that a unit ``qd_j`` gives the successor body of its joint and every body after it, so a
body's Jacobian is the columns of its support. Moving dof ``i`` moves the frames of the columns after it by
the motion ``J_i``, so (Pinocchio's ``getJointKinematicHessian``, WORLD)

    d J_j / d q_i = ad(J_i) J_j      for dof i before dof j on the path to j's joint,

with ``ad([w; v]) = [[w~, 0], [v~, w~]]``. Within one joint "before" means the joint's own composition:
the dofs of a free or spherical joint (tangent coordinates: successor-frame motions, as
:mod:`soadyn.derivatives` defines them) move all of the joint's columns, a universal joint's first angle
moves its second axis, and a single-dof joint's column is its own axis of motion (``ad(J_j) J_j = 0``).
Planar joints (coordinates ``(x, y, theta)`` against successor-frame velocities) are not covered.

The point rows of contact Jacobians (the world linear velocity of a body's material point at ``p``,
``v(p) = v + w x p``) and their derivatives are built from these columns.
"""

from __future__ import annotations

import weakref

import numpy as np

from .dynamics import fk
from .joints import FREE, PLANAR, SPHERICAL
from .model import Model

__all__ = ["KinematicHessian", "kinematic_hessian", "cross3"]


def cross3(a, b):
    """``a x b`` over the leading axis of length 3 (``(3,)`` or ``(3, n)`` each, broadcast): ``np.cross``
    without its axis bookkeeping (nor ``np.stack``'s), which dominates at these sizes."""
    return np.array((a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]))


_STRUCTURE: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()
"""Each model's ``(support, before)``."""


def _structure(model: Model) -> tuple:
    """The body supports ``support`` (nb, nv) and the order ``before`` (nv, nv) of :class:`KinematicHessian`,
    which depend on the model only (kept per model, read-only)."""
    if model in _STRUCTURE:
        return _STRUCTURE[model]
    nv, nb = model.nv, model.nb
    joint_of = np.empty(nv, dtype=np.int64)
    for b in range(nb):
        joint_of[model.jnt_vadr[b]:model.jnt_vadr[b] + model.jnt_nv[b]] = b
    support = np.zeros((nb, nv), dtype=bool)
    for b in range(nb):
        s = b
        while s >= 0:
            a, n = int(model.jnt_vadr[s]), int(model.jnt_nv[s])
            support[b, a:a + n] = True
            s = int(model.body_parent[s])
    before = np.zeros((nv, nv), dtype=bool)
    for j in range(nv):
        bj = joint_of[j]
        before[:, j] = support[model.body_parent[bj]] if model.body_parent[bj] >= 0 else False
        a, n = int(model.jnt_vadr[bj]), int(model.jnt_nv[bj])
        if model.jnt_type[bj] in (FREE, SPHERICAL):
            before[a:a + n, j] = True
        else:
            before[a:j, j] = True
    support.setflags(write=False)
    before.setflags(write=False)
    _STRUCTURE[model] = support, before
    return support, before


class KinematicHessian:
    """World spatial Jacobian columns ``J`` (6, nv), body supports ``support`` (nb, nv) bool, the order
    ``before`` (nv, nv) bool (``before[i, j]``: dof ``i`` moves column ``j``) and the Hessian ``H`` (6, nv,
    nv), ``H[:, i, j] = d J_j / d q_i``, at one configuration; body world poses ``oR``, ``op``."""

    def __init__(self, model: Model, data, q):
        if np.any(model.jnt_type == PLANAR):
            raise ValueError(f"model {model.name!r}: planar joints are not covered by the kinematic Hessian")
        oR, op = fk(model, data, q)
        self.oR, self.op = oR.copy(), op.copy()
        nv, nb = model.nv, model.nb
        S = data.S
        J = np.zeros((6, nv))
        for b in range(nb):
            a, n = int(model.jnt_vadr[b]), int(model.jnt_nv[b])
            w = oR[b] @ S[a:a + n, :3].T
            J[:3, a:a + n] = w
            J[3:, a:a + n] = oR[b] @ S[a:a + n, 3:].T + cross3(op[b], w)
        support, before = _structure(model)
        w, v = J[:3], J[3:]
        H = np.empty((6, nv, nv))  # ad(J_i) J_j for every pair, kept where dof i moves column j
        H[:3] = cross3(w[:, :, None], w[:, None, :])
        H[3:] = cross3(w[:, :, None], v[:, None, :]) + cross3(v[:, :, None], w[:, None, :])
        H *= before
        self.J, self.support, self.before, self.H, self.nv = J, support, before, H, nv

    def body_jacobian(self, b: int) -> np.ndarray:
        """The world spatial Jacobian (6, nv) of body ``b`` (zeros for the world, ``b = -1``)."""
        if b < 0:
            return np.zeros((6, self.nv))
        return self.J * self.support[b]

    def body_hessian_times(self, b: int, w: np.ndarray) -> np.ndarray:
        """``d (J_b w) / dq`` (6, nv) for a fixed ``w`` (nv,): column ``i`` is ``sum_j H[:, i, j] w_j`` over
        the support of ``b``."""
        if b < 0:
            return np.zeros((6, self.nv))
        return self.H @ (w * self.support[b])

    def body_hessian_dual(self, b: int, F: np.ndarray) -> np.ndarray:
        """``d (J_b^T F) / dq`` (nv, nv) for a fixed world wrench ``F`` (6,) (moment about the origin; force)."""
        if b < 0:
            return np.zeros((self.nv, self.nv))
        return np.einsum("a,aij->ji", F, self.H) * self.support[b][:, None]

    # ------------------------------------------------------------------ material points
    def point_jacobian(self, b: int, p: np.ndarray) -> np.ndarray:
        """``dv(p)/dqd`` (3, nv): the world velocity of body ``b``'s material point at the world point ``p``;
        (m, 3, nv) for ``m`` points ``p`` (m, 3)."""
        if b < 0:
            return np.zeros(p.shape + (self.nv,))
        Jb = self.body_jacobian(b)
        if p.ndim == 1:
            return Jb[3:] + cross3(Jb[:3], p)
        return (Jb[3:, None, :] + cross3(Jb[:3, None, :], p.T[:, :, None])).transpose(1, 0, 2)

    def point_rate_q(self, b: int, P: np.ndarray, w: np.ndarray, dP: np.ndarray) -> np.ndarray:
        """``d/dq [point_jacobian(b, p(q)) w]`` (m, 3, nv) for a fixed ``w`` at ``m`` points ``P`` (m, 3) of body
        ``b`` moving by ``dP`` (m, 3, nv)."""
        if b < 0:
            return np.zeros((P.shape[0], 3, self.nv))
        D = self.body_hessian_times(b, w)
        omega = self.body_jacobian(b)[:3] @ w
        out = D[3:, None, :] + cross3(D[:3, None, :], P.T[:, :, None]) + cross3(omega, dP.transpose(1, 0, 2))
        return out.transpose(1, 0, 2)

    def point_dual_q(self, b: int, P: np.ndarray, f: np.ndarray, dP: np.ndarray) -> np.ndarray:
        """``d/dq sum_c [point_jacobian(b, p_c(q))^T f_c]`` (nv, nv) for fixed world forces ``f`` (m, 3) at ``m``
        points ``P`` (m, 3) of body ``b`` moving by ``dP`` (m, 3, nv)."""
        if b < 0:
            return np.zeros((self.nv, self.nv))
        F = np.concatenate([cross3(P.T, f.T).sum(axis=1), f.sum(axis=0)])
        Jw = self.body_jacobian(b)[:3]
        return self.body_hessian_dual(b, F) + Jw.T @ cross3(dP.transpose(1, 0, 2), f.T[:, :, None]).sum(axis=1)

    def direction_rate(self, b: int, n: np.ndarray) -> np.ndarray:
        """``dn/dq`` (3, nv) of a direction ``n`` fixed in body ``b``: ``w x n``."""
        if b < 0:
            return np.zeros((3, self.nv))
        return cross3(self.body_jacobian(b)[:3], n)

    def wrench_rate(self, b: int, F: np.ndarray) -> np.ndarray:
        """``dF/dq`` (6, nv) of a world wrench ``F`` fixed in body ``b``: ``-ad(J_i)^T F`` per column."""
        if b < 0:
            return np.zeros((6, self.nv))
        Jb = self.body_jacobian(b)
        w, v = Jb[:3], Jb[3:]
        m, f = F[:3, None], F[3:, None]
        return np.vstack([cross3(w, m) + cross3(v, f), cross3(w, f)])


def kinematic_hessian(model: Model, data, q) -> KinematicHessian:
    """The world spatial Jacobian columns and their derivatives at ``q`` (module docstring)."""
    return KinematicHessian(model, data, q)
