"""Frame kinematics derivatives: the frame Jacobian's time variation and the partial derivatives of a
frame's spatial velocity and acceleration (Carpentier & Mansard 2018, Sec. III; Pinocchio's
``getFrameJacobianTimeVariation`` and ``getFrameAccelerationDerivatives``), from the world-frame per-dof
quantities of :mod:`.derivatives`.

For a frame on body ``b`` at world pose ``(R, p)`` and a dof ``l`` of ``b``'s ancestors (``b``
included), with ``V``, ``A`` the world spatial velocity and acceleration of ``b`` (module docstring of
:mod:`.derivatives`): ``dv/dq_l = X (dV/dq_l)``, ``dv/dqd_l = X S_l``, ``da/dq_l = X (dA/dq_l -
V x dV/dq_l)``, ``da/dqd_l = X (dA/dqd_l + S_l x V)``, ``da/dqdd_l = X S_l``, where ``X = ^fX_0`` maps
world motion vectors into the frame (the transport of the moving frame removes the ``S_l x`` terms).
"""

import numpy as np

from .._jit import jit
from .derivatives import A_, DADQ, DADV, DVDQ, SD, V_, world_motion_pass
from .frames import frame_world_pose
from .joints import OK
from .spatial import cross_motion
from .kinematics import check_state, tree_positions, world_poses, world_subspaces


@jit
def to_frame(R, p, x, out, col, local):
    """Column ``col`` of ``out`` = the world motion vector ``x`` (about the world origin) at the point
    ``p``: ``[x_w; x_v + x_w x p]``, rotated into the frame's axes (``R^T``) when ``local``."""
    w0, w1, w2 = x[0], x[1], x[2]
    v0 = x[3] + w1 * p[2] - w2 * p[1]
    v1 = x[4] + w2 * p[0] - w0 * p[2]
    v2 = x[5] + w0 * p[1] - w1 * p[0]
    if local:
        for m in range(3):
            out[m, col] = R[0, m] * w0 + R[1, m] * w1 + R[2, m] * w2
            out[3 + m, col] = R[0, m] * v0 + R[1, m] * v1 + R[2, m] * v2
    else:
        out[0, col], out[1, col], out[2, col] = w0, w1, w2
        out[3, col], out[4, col], out[5, col] = v0, v1, v2


@jit
def frame_kinematics(parent, jtype, qadr, vadr, jnv, axis, axis2, pitch, XT_E, XT_r, S0, q, qd, qdd, a0,
                     b, fE, fr, X_E, X_r, S, oR, op, oS, bw, dw, R, p):
    """Positions, world subspaces and the world motion pass, then the frame's world pose ``(R, p)``."""
    tree_positions(parent, jtype, qadr, vadr, axis, axis2, pitch, XT_E, XT_r, S0, q, X_E, X_r, S)
    world_poses(parent, X_E, X_r, oR, op)
    world_subspaces(parent, vadr, jnv, S, oR, op, oS)
    world_motion_pass(parent, jtype, vadr, jnv, oS, qd, qdd, a0, bw, dw)
    frame_world_pose(b, fE, fr, oR, op, R, p)


@jit
def frame_jacobian_time_variation(parent, jtype, qadr, vadr, jnv, axis, axis2, pitch, XT_E, XT_r, I, S0,
                                  q, qd, b, fE, fr, local,
                                  X_E, X_r, S, oR, op, oS, bw, dw, R, p,
                                  J, dJ):
    """``J`` and ``dJ = d/dt J(q(t))`` of the frame ``(b, fE, fr)`` along ``qd`` (columns of ``b``'s
    ancestors; others zero). World-aligned (``local`` false): ``J_k = [s_w; s_v + s_w x p]`` with ``S_k =
    [s_w; s_v]`` in world coordinates about the world origin, so ``dJ_k = [sd_w; sd_v + sd_w x p + s_w x
    pdot]`` with ``Sdot_k`` of the world motion pass and ``pdot`` the frame origin's velocity. Local:
    ``J^f = R^T J``, ``dJ^f = R^T (dJ - w x J)`` per 3-row block, ``w`` the frame's angular velocity."""
    st = check_state(jtype, qadr, q, qd)
    if st != OK:
        return st
    nv = qd.shape[0]
    a0 = np.zeros(6)
    qdd = np.zeros(nv)
    frame_kinematics(parent, jtype, qadr, vadr, jnv, axis, axis2, pitch, XT_E, XT_r, S0, q, qd, qdd, a0,
                     b, fE, fr, X_E, X_r, S, oR, op, oS, bw, dw, R, p)
    J[:] = 0.0
    dJ[:] = 0.0
    if b < 0:
        return OK
    V = bw[V_, b]
    Sd = dw[SD]
    # pdot = V_v + V_w x p
    pd0 = V[3] + V[1] * p[2] - V[2] * p[1]
    pd1 = V[4] + V[2] * p[0] - V[0] * p[2]
    pd2 = V[5] + V[0] * p[1] - V[1] * p[0]
    j = b
    while j >= 0:
        for k in range(vadr[j], vadr[j] + jnv[j]):
            to_frame(R, p, oS[k], J, k, False)
            to_frame(R, p, Sd[k], dJ, k, False)
            s0, s1, s2 = oS[k, 0], oS[k, 1], oS[k, 2]
            dJ[3, k] += s1 * pd2 - s2 * pd1
            dJ[4, k] += s2 * pd0 - s0 * pd2
            dJ[5, k] += s0 * pd1 - s1 * pd0
            if local:
                for o in range(0, 6, 3):
                    x0, x1, x2 = J[o, k], J[o + 1, k], J[o + 2, k]
                    y0 = dJ[o, k] - (V[1] * x2 - V[2] * x1)
                    y1 = dJ[o + 1, k] - (V[2] * x0 - V[0] * x2)
                    y2 = dJ[o + 2, k] - (V[0] * x1 - V[1] * x0)
                    for m in range(3):
                        J[o + m, k] = R[0, m] * x0 + R[1, m] * x1 + R[2, m] * x2
                        dJ[o + m, k] = R[0, m] * y0 + R[1, m] * y1 + R[2, m] * y2
        j = parent[j]
    return OK


@jit
def frame_acceleration_derivatives(parent, jtype, qadr, vadr, jnv, axis, axis2, pitch, XT_E, XT_r, I, S0,
                                   q, qd, qdd, b, fE, fr,
                                   X_E, X_r, S, oR, op, oS, bw, dw, R, p,
                                   va, dv_dq, da_dq, da_dqd, da_dqdd):
    """The frame's spatial velocity and acceleration (frame coordinates, no gravity) ``va`` (6, 2) and
    their partial derivatives (module docstring): ``dv/dq``, ``da/dq`` (tangent space), ``da/dqd``,
    ``da/dqdd`` (= ``dv/dqd`` = the local frame Jacobian), each (6, nv)."""
    st = check_state(jtype, qadr, q, qd)
    if st != OK:
        return st
    a0 = np.zeros(6)
    x = np.empty((2, 6))
    frame_kinematics(parent, jtype, qadr, vadr, jnv, axis, axis2, pitch, XT_E, XT_r, S0, q, qd, qdd, a0,
                     b, fE, fr, X_E, X_r, S, oR, op, oS, bw, dw, R, p)
    dv_dq[:] = 0.0
    da_dq[:] = 0.0
    da_dqd[:] = 0.0
    da_dqdd[:] = 0.0
    va[:] = 0.0
    if b < 0:
        return OK
    V, A = bw[V_, b], bw[A_, b]
    to_frame(R, p, V, va, 0, True)
    to_frame(R, p, A, va, 1, True)
    dVdq, dAdq, dAdv = dw[DVDQ], dw[DADQ], dw[DADV]
    j = b
    while j >= 0:
        for k in range(vadr[j], vadr[j] + jnv[j]):
            to_frame(R, p, dVdq[k], dv_dq, k, True)
            to_frame(R, p, oS[k], da_dqdd, k, True)
            cross_motion(V, dVdq[k], x[0])
            for m in range(6):
                x[0, m] = dAdq[k, m] - x[0, m]
            to_frame(R, p, x[0], da_dq, k, True)
            cross_motion(oS[k], V, x[1])
            for m in range(6):
                x[1, m] += dAdv[k, m]
            to_frame(R, p, x[1], da_dqd, k, True)
        j = parent[j]
    return OK
