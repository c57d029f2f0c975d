"""Forward kinematics, frame poses, frame Jacobians and frame bias accelerations.

World poses are stored as ``oR[i]`` (orientation of body i in the world, body -> world coordinates) and
``op[i]`` (body origin in the world). A frame ``f`` is ``(frame_body[f], frame_E[f], frame_r[f])``:
``frame_E`` maps body coordinates to frame coordinates, ``frame_r`` is the frame origin in the body.
"""

from .._jit import borrow, inline_jit, jit
from .joints import OK, check_q, unit_subspace
from .kinematics import (BAD_ARRAY, check_state, positions_pass, tree_positions, tree_velocities, vector_ready,
                         world_poses, world_poses_pass)
from .layout import (FRAME_BODY, FRAME_H, FRAME_P, FRAME_R_, FRAME_V, H, J_, NB, NF, NQ, NV, SCRATCH, data_kinematics,
                     dfield, mint, model_extras, model_tree)
from .spatial import rotate, rotate_T, xmotion


@inline_jit
def frame_world_pose(b, fE, fr, oR, op, R, p):
    """World pose ``(R, p)`` of a frame on body ``b`` (``b < 0``: a world frame). Inlined into its callers, as
    :func:`jacobian_columns`."""
    if b < 0:
        for m in range(3):
            p[m] = fr[m]
            for n in range(3):
                R[m, n] = fE[n, m]
    else:
        for m in range(3):
            p[m] = op[b, m] + oR[b, m, 0] * fr[0] + oR[b, m, 1] * fr[1] + oR[b, m, 2] * fr[2]
            for n in range(3):
                R[m, n] = oR[b, m, 0] * fE[n, 0] + oR[b, m, 1] * fE[n, 1] + oR[b, m, 2] * fE[n, 2]


@inline_jit
def jacobian_columns(parent, vadr, jnv, S, oR, op, b, p, R, local, J, o):
    """Rows ``o .. o+5`` of ``J``: the Jacobian at the point ``p`` of body ``b`` (Chang-Khatib 2000 Eqs. 24-25)
    in world axes (``local`` 0; ``R`` is not read) or in the axes of the rotation ``R`` (``local`` 1: the
    world-aligned rows premultiplied by ``blockdiag(R^T, R^T)``). For each dof ``k`` of each ancestor ``j``,
    with ``w = oR_j S_k^w``, ``u = oR_j S_k^v`` and ``d = p - op_j``: ``J[:, k] = [w; u + w x d]``, in R's
    axes ``[R^T w; R^T u + (R^T w) x (R^T d)]`` (a rotation distributes over the cross product). Where
    ``S_k`` is a unit axis ``e_m`` (:func:`joints.unit_subspace`: a revolute joint about a coordinate axis,
    a prismatic joint along one), ``w`` or ``u`` is a column of ``oR_j`` and the other is zero, and only the
    column is turned into R's axes. Other columns are left untouched (zero them first). Inlined into its
    callers: with :func:`kinematics.positions_pass`, :func:`kinematics.world_poses_pass` and
    :func:`frame_world_pose` also inlined, Talos' frame Jacobian takes 0.59 us in the kernel, 0.83 us when
    they were called."""
    j = b
    while j >= 0:
        d0, d1, d2 = p[0] - op[j, 0], p[1] - op[j, 1], p[2] - op[j, 2]
        if local:
            d0, d1, d2 = rotate_T(R, d0, d1, d2)
        for k in range(vadr[j], vadr[j] + jnv[j]):
            m = unit_subspace(S, k)
            if m < 0:
                w0, w1, w2 = rotate(oR[j], S[k, 0], S[k, 1], S[k, 2])
                u0, u1, u2 = rotate(oR[j], S[k, 3], S[k, 4], S[k, 5])
                if local:
                    w0, w1, w2 = rotate_T(R, w0, w1, w2)
                    u0, u1, u2 = rotate_T(R, u0, u1, u2)
            elif m < 3:
                w0, w1, w2 = oR[j, 0, m], oR[j, 1, m], oR[j, 2, m]
                if local:
                    w0, w1, w2 = rotate_T(R, w0, w1, w2)
                u0, u1, u2 = 0.0, 0.0, 0.0
            else:
                u0, u1, u2 = oR[j, 0, m - 3], oR[j, 1, m - 3], oR[j, 2, m - 3]
                if local:
                    u0, u1, u2 = rotate_T(R, u0, u1, u2)
                w0, w1, w2 = 0.0, 0.0, 0.0
            J[o, k], J[o + 1, k], J[o + 2, k] = w0, w1, w2
            J[o + 3, k] = u0 + w1 * d2 - w2 * d1
            J[o + 4, k] = u1 + w2 * d0 - w0 * d2
            J[o + 5, k] = u2 + w0 * d1 - w1 * d0
        j = parent[j]


@jit
def bias_accelerations(parent, X_E, X_r, c, h):
    """Pass: root to leaves. Body bias accelerations ``h_i = ^iX_p h_p + c_i``, ``h_root = 0``
    (Chang-Khatib 2000 Eq. 28): the accelerations at ``qdd = 0`` without gravity."""
    for i in range(parent.shape[0]):
        pi = parent[i]
        if pi >= 0:
            xmotion(X_E[i], X_r[i], h[pi], h[i])
            for m in range(6):
                h[i, m] += c[i, m]
        else:
            for m in range(6):
                h[i, m] = c[i, m]


@jit
def fk(model_int, model_float, data_float, q, qd):
    """Forward kinematics into Data: body transforms ``^iX_p`` (``X_E``, ``X_r``), world poses ``(oR, op)``
    and body-frame spatial velocities ``v`` (RBDA Sec. 4.4)."""
    (body_parent, jnt_type, jnt_qadr, jnt_vadr, jnt_nv, jnt_axis, jnt_axis2, jnt_pitch, body_Xtree_E, body_Xtree_r,
     body_I, dof_S, dof_armature) = model_tree(model_int, model_float)
    st = check_state(jnt_type, jnt_qadr, q, qd)
    if st != OK:
        return st
    X_E, X_r, S, v, c, oR, op = data_kinematics(model_int, data_float)
    tree_positions(body_parent, jnt_type, jnt_qadr, jnt_vadr, jnt_axis, jnt_axis2, jnt_pitch, body_Xtree_E,
                   body_Xtree_r, dof_S, q, X_E, X_r, S)
    tree_velocities(body_parent, jnt_type, jnt_vadr, jnt_nv, jnt_axis2, X_E, X_r, S, qd, v, c,
                    dfield(model_int, data_float, SCRATCH, (4, 6, 6))[0, 0])
    world_poses(body_parent, X_E, X_r, oR, op)
    return OK


@jit
def frame_jacobian(model_int, model_float, data_float, q, frame, local):
    """Jacobian ``Data.J`` (6, nv) of frame ``frame`` at its origin (Chang-Khatib 2000 Eq. 24-25): for each
    dof ``k`` of each ancestor ``j`` of the frame's body, world-aligned ``J[:, k] = [oR_j S_k^w; oR_j S_k^v +
    (oR_j S_k^w) x (p_f - op_j)]``, zero elsewhere, or with ``local`` (1) in the frame's axes,
    ``blockdiag(R^T, R^T) J`` (:func:`jacobian_columns`). ``Data.frame_R``, ``Data.frame_p``: the frame's
    world pose. Only the frame's body and its ancestors are moved (:func:`kinematics.positions_pass`), as
    Pinocchio's frame Jacobian visits only the frame's support: ``Data.X_E, X_r, oR, op`` of other bodies
    keep their values."""
    # arguments borrowed (soadyn._jit.borrow): the passes update no reference count for them
    model_int, model_float, data_float, q = borrow(model_int), borrow(model_float), borrow(data_float), borrow(q)
    (body_parent, jnt_type, jnt_qadr, jnt_vadr, jnt_nv, jnt_axis, jnt_axis2, jnt_pitch, body_Xtree_E, body_Xtree_r,
     body_I, dof_S, dof_armature) = model_tree(model_int, model_float)
    if not vector_ready(q, model_int[NQ]):
        return BAD_ARRAY
    st = check_q(jnt_type, jnt_qadr, q)
    if st != OK:
        return st
    body_subtree_end, gravity_accel, frame_E, frame_r = model_extras(model_int, model_float)
    frame_body = mint(model_int, FRAME_BODY, model_int[NF])
    X_E, X_r, S, v, c, oR, op = data_kinematics(model_int, data_float)
    nv = model_int[NV]
    J = dfield(model_int, data_float, J_, (6, nv))
    R = dfield(model_int, data_float, FRAME_R_, (3, 3))
    p = dfield(model_int, data_float, FRAME_P, 3)
    b = frame_body[frame]
    if b >= 0:  # the frame's body and its ancestors
        positions_pass(b, body_subtree_end, jnt_type, jnt_qadr, jnt_vadr, jnt_axis, jnt_axis2, jnt_pitch, body_Xtree_E,
                       body_Xtree_r, q, X_E, X_r, S)
        world_poses_pass(b, body_subtree_end, body_parent, X_E, X_r, oR, op)
    frame_world_pose(b, frame_E[frame], frame_r[frame], oR, op, R, p)
    J[:] = 0.0
    jacobian_columns(body_parent, jnt_vadr, jnt_nv, S, oR, op, b, p, R, local, J, 0)
    return OK


@jit
def frame_motion(model_int, model_float, data_float, q, qd, frame):
    """Velocity ``Data.frame_v`` and bias acceleration ``Data.frame_h = Jdot qd`` (spatial, frame
    coordinates) of frame ``frame`` by the outward recursion ``h_i = ^iX_p h_p + c_i``, ``h_root = 0``
    (Chang-Khatib 2000 Eq. 28), then ``hf = X_fb h_b``, ``vf = X_fb v_b``. Also the frame's world pose
    ``(Data.frame_R, Data.frame_p)``."""
    (body_parent, jnt_type, jnt_qadr, jnt_vadr, jnt_nv, jnt_axis, jnt_axis2, jnt_pitch, body_Xtree_E, body_Xtree_r,
     body_I, dof_S, dof_armature) = model_tree(model_int, model_float)
    st = check_state(jnt_type, jnt_qadr, q, qd)
    if st != OK:
        return st
    body_subtree_end, gravity_accel, frame_E, frame_r = model_extras(model_int, model_float)
    frame_body = mint(model_int, FRAME_BODY, model_int[NF])
    X_E, X_r, S, v, c, oR, op = data_kinematics(model_int, data_float)
    nb = model_int[NB]
    h = dfield(model_int, data_float, H, (nb, 6))
    R = dfield(model_int, data_float, FRAME_R_, (3, 3))
    p = dfield(model_int, data_float, FRAME_P, 3)
    vf = dfield(model_int, data_float, FRAME_V, 6)
    hf = dfield(model_int, data_float, FRAME_H, 6)
    tree_positions(body_parent, jnt_type, jnt_qadr, jnt_vadr, jnt_axis, jnt_axis2, jnt_pitch, body_Xtree_E,
                   body_Xtree_r, dof_S, q, X_E, X_r, S)
    tree_velocities(body_parent, jnt_type, jnt_vadr, jnt_nv, jnt_axis2, X_E, X_r, S, qd, v, c, vf)
    bias_accelerations(body_parent, X_E, X_r, c, h)
    world_poses(body_parent, X_E, X_r, oR, op)
    b = frame_body[frame]
    frame_world_pose(b, frame_E[frame], frame_r[frame], oR, op, R, p)
    if b < 0:
        for m in range(6):
            vf[m] = 0.0
            hf[m] = 0.0
    else:
        xmotion(frame_E[frame], frame_r[frame], v[b], vf)
        xmotion(frame_E[frame], frame_r[frame], h[b], hf)
    return OK
