"""Forward kinematics, frame poses, frame Jacobians and frame bias accelerations.

World poses are stored as ``oR[i]`` (orientation of body i in the world, body -> world coordinates) and
``op[i]`` (body origin in the world). A frame ``f`` is ``(frame_body[f], frame_E[f], frame_r[f])``:
``frame_E`` maps body coordinates to frame coordinates, ``frame_r`` is the frame origin in the body.
"""

from .._jit import jit
from .joints import OK, check_q
from .spatial import xmotion
from .tree import check_state, tree_positions, tree_velocities, world_poses


@jit
def frame_world_pose(b, fE, fr, oR, op, R, p):
    """World pose ``(R, p)`` of a frame on body ``b`` (``b < 0``: a world frame)."""
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


@jit
def jacobian_columns(parent, vadr, jnv, S, oR, op, b, p, J, o):
    """Rows ``o .. o+5`` of ``J``: the world-aligned Jacobian at the point ``p`` of body ``b`` (Chang-Khatib
    2000 Eqs. 24-25): for each dof ``k`` of each ancestor ``j``, ``[oR_j S_k^w; oR_j S_k^v + (oR_j S_k^w) x
    (p - op_j)]``. Other columns are left untouched (zero them first)."""
    j = b
    while j >= 0:
        d0, d1, d2 = p[0] - op[j, 0], p[1] - op[j, 1], p[2] - op[j, 2]
        for k in range(vadr[j], vadr[j] + jnv[j]):
            for m in range(3):
                J[o + m, k] = oR[j, m, 0] * S[k, 0] + oR[j, m, 1] * S[k, 1] + oR[j, m, 2] * S[k, 2]
                J[o + 3 + m, k] = oR[j, m, 0] * S[k, 3] + oR[j, m, 1] * S[k, 4] + oR[j, m, 2] * S[k, 5]
            J[o + 3, k] += J[o + 1, k] * d2 - J[o + 2, k] * d1
            J[o + 4, k] += J[o + 2, k] * d0 - J[o, k] * d2
            J[o + 5, k] += J[o, k] * d1 - J[o + 1, k] * d0
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
def fk(parent, jtype, qadr, vadr, jnv, axis, axis2, pitch, XT_E, XT_r, I, S0, armature,
       q, qd,
       X_E, X_r, S, c, vJ,
       oR, op, v):
    """Forward kinematics: body transforms ``^iX_p``, world poses ``(oR, op)`` and body-frame spatial
    velocities ``v`` (RBDA Sec. 4.4)."""
    st = check_state(jtype, qadr, q, qd)
    if st != OK:
        return st
    tree_positions(parent, jtype, qadr, vadr, axis, axis2, pitch, XT_E, XT_r, S0, q, X_E, X_r, S)
    tree_velocities(parent, jtype, vadr, jnv, axis2, X_E, X_r, S, qd, v, c, vJ)
    world_poses(parent, X_E, X_r, oR, op)
    return OK


@jit
def frame_jacobian_world_aligned(parent, jtype, qadr, vadr, jnv, axis, axis2, pitch, XT_E, XT_r, I, S0, armature,
                                 q, fb, fE, fr,
                                 X_E, X_r, S, oR, op,
                                 R, p, J):
    """Frame Jacobian ``J`` (6, nv) in world-aligned coordinates at the frame origin (Chang-Khatib 2000
    Eq. 24-25): for each dof ``k`` of each ancestor ``j`` of the frame's body, ``J[:, k] = [oR_j S_k^w;
    oR_j S_k^v + (oR_j S_k^w) x (p_f - op_j)]``; zero elsewhere. Also outputs the frame's world pose
    ``(R, p)``; the frame-local Jacobian is ``blockdiag(R^T, R^T) J``."""
    st = check_q(jtype, qadr, q)
    if st != OK:
        return st
    tree_positions(parent, jtype, qadr, vadr, axis, axis2, pitch, XT_E, XT_r, S0, q, X_E, X_r, S)
    world_poses(parent, X_E, X_r, oR, op)
    frame_world_pose(fb, fE, fr, oR, op, R, p)
    J[:] = 0.0
    jacobian_columns(parent, vadr, jnv, S, oR, op, fb, p, J, 0)
    return OK


@jit
def frame_motion(parent, jtype, qadr, vadr, jnv, axis, axis2, pitch, XT_E, XT_r, I, S0, armature,
                 q, qd, fb, fE, fr,
                 X_E, X_r, S, v, c, h, vJ, oR, op,
                 R, p, vf, hf):
    """Frame velocity ``vf`` and bias acceleration ``hf = Jdot qd`` (spatial, frame coordinates) by the
    outward recursion ``h_i = ^iX_p h_p + c_i``, ``h_root = 0`` (Chang-Khatib 2000 Eq. 28), then
    ``hf = X_fb h_b``, ``vf = X_fb v_b``. Also the frame's world pose ``(R, p)``."""
    st = check_state(jtype, qadr, q, qd)
    if st != OK:
        return st
    tree_positions(parent, jtype, qadr, vadr, axis, axis2, pitch, XT_E, XT_r, S0, q, X_E, X_r, S)
    tree_velocities(parent, jtype, vadr, jnv, axis2, X_E, X_r, S, qd, v, c, vJ)
    bias_accelerations(parent, X_E, X_r, c, h)
    world_poses(parent, X_E, X_r, oR, op)
    frame_world_pose(fb, fE, fr, oR, op, R, p)
    if fb < 0:
        for m in range(6):
            vf[m] = 0.0
            hf[m] = 0.0
    else:
        xmotion(fE, fr, v[fb], vf)
        xmotion(fE, fr, h[fb], hf)
    return OK
