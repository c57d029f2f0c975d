"""Frame kinematics derivatives: the frame Jacobian's time variation and the partial derivatives of a
frame's spatial velocity and acceleration (Carpentier & Mansard 2018, Sec. III; Pinocchio's
``getFrameJacobianTimeVariation`` and ``getFrameAccelerationDerivatives``), from the world-frame per-dof
quantities of :mod:`.derivatives`.

For a frame on body ``b`` at world pose ``(R, p)`` and a dof ``l`` of ``b``'s ancestors (``b``
included), with ``V``, ``A`` the world spatial velocity and acceleration of ``b`` (module docstring of
:mod:`.derivatives`): ``dv/dq_l = X (dV/dq_l)``, ``dv/dqd_l = X S_l``, ``da/dq_l = X (dA/dq_l -
V x dV/dq_l)``, ``da/dqd_l = X (dA/dqd_l + S_l x V)``, ``da/dqdd_l = X S_l``, where ``X = ^fX_0`` maps
world motion vectors into the frame (the transport of the moving frame removes the ``S_l x`` terms); the
world-aligned variants are in :func:`frame_acceleration_derivatives`.
"""

from .._jit import jit
from .derivatives import (A_, DADQ, DADV, DVDQ, SD, V_, cross_at, data_derivatives, data_world_kinematics,
                          world_motion_pass)
from .frames import frame_world_pose
from .joints import BAD_IN, NOT_FINITE, OK, all_finite
from .kinematics import check_state, tree_positions, world_poses, world_subspaces
from .layout import (DJ, FRAME_BODY, FRAME_P, FRAME_R_, J_, NF, NV, data_aba, data_world, dfield, mint, model_extras,
                     model_tree)


@jit
def to_frame(R, p, x, k, out, col, local):
    """Column ``col`` of ``out`` = the world motion vector ``x[k]`` (about the world origin) at the point
    ``p``: ``[x_w; x_v + x_w x p]``, rotated into the frame's axes (``R^T``) when ``local``."""
    w0, w1, w2 = x[k, 0], x[k, 1], x[k, 2]
    v0 = x[k, 3] + w1 * p[2] - w2 * p[1]
    v1 = x[k, 4] + w2 * p[0] - w0 * p[2]
    v2 = x[k, 5] + w0 * p[1] - w1 * p[0]
    if local:
        for m in range(3):
            out[m, col] = R[0, m] * w0 + R[1, m] * w1 + R[2, m] * w2
            out[3 + m, col] = R[0, m] * v0 + R[1, m] * v1 + R[2, m] * v2
    else:
        out[0, col], out[1, col], out[2, col] = w0, w1, w2
        out[3, col], out[4, col], out[5, col] = v0, v1, v2


@jit
def frame_kinematics(mi, mf, df, q, qd, qdd, frame):
    """Positions, world subspaces and the world motion pass without gravity, then the frame's world pose
    ``(Data.frame_R, Data.frame_p)``. Returns the frame's body."""
    (body_parent, jnt_type, jnt_qadr, jnt_vadr, jnt_nv, jnt_axis, jnt_axis2, jnt_pitch, body_Xtree_E, body_Xtree_r,
     body_I, dof_S, dof_armature) = model_tree(mi, mf)
    body_subtree_end, gravity_accel, frame_E, frame_r = model_extras(mi, mf)
    X_E, X_r, S, oR, op, oS, oI = data_world_kinematics(mi, df)
    bw, dw, oB, T = data_derivatives(mi, df)
    a0 = T[3, 0]
    a0[:] = 0.0
    tree_positions(body_parent, jnt_type, jnt_qadr, jnt_vadr, jnt_axis, jnt_axis2, jnt_pitch, body_Xtree_E,
                   body_Xtree_r, dof_S, q, X_E, X_r, S)
    world_poses(body_parent, X_E, X_r, oR, op)
    world_subspaces(body_parent, jnt_vadr, jnt_nv, S, oR, op, oS)
    world_motion_pass(body_parent, jnt_type, jnt_vadr, jnt_nv, oS, qd, qdd, a0, bw, dw)
    b = mint(mi, FRAME_BODY, mi[NF])[frame]
    frame_world_pose(b, frame_E[frame], frame_r[frame], oR, op, dfield(mi, df, FRAME_R_, (3, 3)),
                     dfield(mi, df, FRAME_P, 3))
    return b


@jit
def frame_jacobian_time_variation(model_int, model_float, data_float, q, qd, frame, local):
    """``Data.J`` and ``Data.dJ = d/dt J(q(t))`` (6, nv) of frame ``frame`` along ``qd`` (columns of its
    body's ancestors; others zero). World-aligned (``local`` false): ``J_k = [s_w; s_v + s_w x p]`` with
    ``S_k = [s_w; s_v]`` in world coordinates about the world origin, so ``dJ_k = [sd_w; sd_v + sd_w x p +
    s_w x pdot]`` with ``Sdot_k`` of the world motion pass and ``pdot`` the frame origin's velocity. Local:
    ``J^f = R^T J``, ``dJ^f = R^T (dJ - w x J)`` per 3-row block, ``w`` the frame's angular velocity."""
    tree = model_tree(model_int, model_float)
    st = check_state(tree[1], tree[2], q, qd)
    if st != OK:
        return st
    nv = model_int[NV]
    zero = data_aba(model_int, data_float)[5]  # Data.u, scratch: qdd = 0
    zero[:] = 0.0
    b = frame_kinematics(model_int, model_float, data_float, q, qd, zero, frame)
    parent, vadr, jnv = tree[0], tree[3], tree[4]
    oS = data_world(model_int, data_float)[0]
    bw, dw, oB, T = data_derivatives(model_int, data_float)
    R = dfield(model_int, data_float, FRAME_R_, (3, 3))
    p = dfield(model_int, data_float, FRAME_P, 3)
    J = dfield(model_int, data_float, J_, (6, nv))
    dJ = dfield(model_int, data_float, DJ, (6, nv))
    J[:] = 0.0
    dJ[:] = 0.0
    if b < 0:
        return OK
    V = bw[V_]
    Sd = dw[SD]
    # pdot = V_v + V_w x p
    pd0 = V[b, 3] + V[b, 1] * p[2] - V[b, 2] * p[1]
    pd1 = V[b, 4] + V[b, 2] * p[0] - V[b, 0] * p[2]
    pd2 = V[b, 5] + V[b, 0] * p[1] - V[b, 1] * p[0]
    j = b
    while j >= 0:
        for k in range(vadr[j], vadr[j] + jnv[j]):
            to_frame(R, p, oS, k, J, k, False)
            to_frame(R, p, Sd, k, dJ, k, False)
            s0, s1, s2 = oS[k, 0], oS[k, 1], oS[k, 2]
            dJ[3, k] += s1 * pd2 - s2 * pd1
            dJ[4, k] += s2 * pd0 - s0 * pd2
            dJ[5, k] += s0 * pd1 - s1 * pd0
            if local:
                for o in range(0, 6, 3):
                    x0, x1, x2 = J[o, k], J[o + 1, k], J[o + 2, k]
                    y0 = dJ[o, k] - (V[b, 1] * x2 - V[b, 2] * x1)
                    y1 = dJ[o + 1, k] - (V[b, 2] * x0 - V[b, 0] * x2)
                    y2 = dJ[o + 2, k] - (V[b, 0] * x1 - V[b, 1] * x0)
                    for m in range(3):
                        J[o + m, k] = R[0, m] * x0 + R[1, m] * x1 + R[2, m] * x2
                        dJ[o + m, k] = R[0, m] * y0 + R[1, m] * y1 + R[2, m] * y2
        j = parent[j]
    return OK if all_finite(dJ) else NOT_FINITE


@jit
def frame_acceleration_derivatives(model_int, model_float, data_float, q, qd, qdd, frame, local, va, out):
    """The spatial velocity and acceleration (no gravity) of frame ``frame``, the columns of ``va`` (6, 2),
    and their partial derivatives ``out`` (4, 6, nv): ``dv/dq``, ``da/dq`` (tangent space), ``da/dqd``,
    ``da/dqdd`` (= ``dv/dqd`` = the frame Jacobian). Local (module docstring): frame coordinates. World-aligned
    (``local`` false): ``v = [V_w; V_v + V_w x p]`` and ``a = [A_w; A_v + A_w x p]`` at the frame origin ``p``
    in world axes, whose variations along dof ``l`` are those of ``V``, ``A`` (``S_l x V + dV/dq_l``,
    ``S_l x A + dA/dq_l - V x dV/dq_l``) at ``p`` plus the motion of ``p``, ``dp_l = s_v + s_w x p``:
    ``[0; V_w x dp_l]`` and ``[0; A_w x dp_l]``."""
    tree = model_tree(model_int, model_float)
    st = check_state(tree[1], tree[2], q, qd)
    if st != OK:
        return st
    if not all_finite(qdd):
        return BAD_IN
    b = frame_kinematics(model_int, model_float, data_float, q, qd, qdd, frame)
    parent, vadr, jnv = tree[0], tree[3], tree[4]
    oS = data_world(model_int, data_float)[0]
    bw, dw, oB, T = data_derivatives(model_int, data_float)
    R = dfield(model_int, data_float, FRAME_R_, (3, 3))
    p = dfield(model_int, data_float, FRAME_P, 3)
    dv_dq, da_dq, da_dqd, da_dqdd = out[0], out[1], out[2], out[3]
    out[:] = 0.0
    va[:] = 0.0
    if b < 0:
        return OK
    V, A = bw[V_], bw[A_]
    x = T[3]  # rows 1-3: scratch
    to_frame(R, p, V, b, va, 0, local)
    to_frame(R, p, A, b, va, 1, local)
    dVdq, dAdq, dAdv = dw[DVDQ], dw[DADQ], dw[DADV]
    j = b
    while j >= 0:
        for k in range(vadr[j], vadr[j] + jnv[j]):
            to_frame(R, p, oS, k, da_dqdd, k, local)
            # x1 = dV/dq_k, x2 = dA/dq_k - V x dV/dq_k (+ the world-aligned transport terms S_k x V, S_k x A)
            cross_at(V, b, dVdq, k, x, 2)
            for m in range(6):
                x[1, m] = dVdq[k, m]
                x[2, m] = dAdq[k, m] - x[2, m]
            if not local:
                cross_at(oS, k, V, b, x, 3)
                for m in range(6):
                    x[1, m] += x[3, m]
                cross_at(oS, k, A, b, x, 3)
                for m in range(6):
                    x[2, m] += x[3, m]
            to_frame(R, p, x, 1, dv_dq, k, local)
            to_frame(R, p, x, 2, da_dq, k, local)
            if not local:  # the motion of the frame origin: dp_k is the linear part of the world-aligned J_k
                add_cross_to_linear(V, b, da_dqdd, k, dv_dq)
                add_cross_to_linear(A, b, da_dqdd, k, da_dq)
            cross_at(oS, k, V, b, x, 3)
            for m in range(6):
                x[3, m] += dAdv[k, m]
            to_frame(R, p, x, 3, da_dqd, k, local)
        j = parent[j]
    return OK if all_finite(out) else NOT_FINITE


@jit
def add_cross_to_linear(X, b, J, k, out):
    """``out[3:6, k] += X[b]_w x J[3:6, k]`` (the angular part of the row ``X[b]`` crossed with the linear
    part of column ``k`` of ``J``)."""
    w0, w1, w2 = X[b, 0], X[b, 1], X[b, 2]
    d0, d1, d2 = J[3, k], J[4, k], J[5, k]
    out[3, k] += w1 * d2 - w2 * d1
    out[4, k] += w2 * d0 - w0 * d2
    out[5, k] += w0 * d1 - w1 * d0
