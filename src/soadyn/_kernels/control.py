"""The operational space control cycle in one kernel call (Chang-Khatib 2000 Sec. 2.3, Eqs. 11-13):
task Jacobians and bias accelerations, task errors, the compliance Lambda^-1 from one articulated-body
pass (Jain 2014 Appendix), a Cholesky solve for f', and RNEA for tau_null. Never forms M or M^-1."""

import numpy as np

from .._jit import jit
from .frames import bias_accelerations, frame_world_pose, jacobian_columns
from .joints import BAD_IN, OK, SINGULAR_TASK, all_finite
from .osim import node_compliance
from .spatial import classical_acceleration, rotation_log, spd_inverse, xmotion
from .kinematics import check_state, tree_positions, tree_velocities, world_poses
from .layout import (F, FEXT_ZERO, H, NB, VJ, data_aba, data_kinematics, data_nodes, data_world, dfield, model_extras,
                     model_tree)
from .tree import rnea_passes


@jit
def osc_cycle(model_int, model_float, data_float, data_int, q, qd, qdd_null,
              node_body, node_E, node_r, node_sel, node_dim, node_row,
              target_p, target_R, target_v, target_a, kp, kd, damping,
              node_R, node_p, J6, h6, a_e, J, hs, Linv, fs, tau):
    """tau = J^T f' + RNEA(q, qd, qdd_null), f' = (Lambda^-1 + damping)^-1 (a_e - h_e - J qdd_null)
    (Chang-Khatib 2000 Eqs. 11-13) for ``n`` task frames with world-aligned rows selected by ``node_sel``,
    without external forces. The model and the workspace are the packed Model and Data buffers; the nodes,
    targets, gains and outputs are the controller's (``soadyn.control.OperationalSpaceController``).

    pass 1: kinematics, world poses and body bias accelerations ``h_i = ^iX_p h_p + c_i`` (Eq. 28);
    per node: pose ``(node_R, node_p)``, world-aligned Jacobian ``J6`` and classical bias ``h6`` (Eqs. 24-28)
    and the commanded acceleration ``a6 = a_target + kp e + kd (v_target - J6 qd)`` with the error
    ``e = [log(R_target R^T); p_target - p]``, then the selected rows ``J``, ``hs``, ``a_e``;
    pass 2: ``Lambda^-1`` of world-aligned nodes by :func:`osim.node_compliance`;
    pass 3: Cholesky solve for ``fs``; RNEA with ``qdd_null`` (RBDA Table 5.1) plus ``J^T fs``.
    Returns OK, a kernel status, or ``SINGULAR_TASK`` when ``Lambda^-1 + damping`` is not positive definite."""
    mi, mf, df = model_int, model_float, data_float
    parent, jtype, qadr, vadr, jnv, axis, axis2, pitch, XT_E, XT_r, I, S0, armature = model_tree(mi, mf)
    a0 = model_extras(mi, mf)[1]
    X_E, X_r, S, v, c, oR, op = data_kinematics(mi, df)
    oS, oI, oIA, oU = data_world(mi, df)
    IA, pA, U, D, Dinv, u, a = data_aba(mi, df)
    cnt, cpar, vid, Ups, W = data_nodes(mi, df, data_int)
    nb = mi[NB]
    h = dfield(mi, df, H, (nb, 6))
    f = dfield(mi, df, F, (nb, 6))
    fext = dfield(mi, df, FEXT_ZERO, (nb, 6))
    vJ = dfield(mi, df, VJ, 6)
    st = check_state(jtype, qadr, q, qd)
    if st != OK:
        return st
    if not all_finite(qdd_null):
        return BAD_IN
    nn = node_body.shape[0]
    nv = qd.shape[0]
    m = a_e.shape[0]
    tree_positions(parent, jtype, qadr, vadr, axis, axis2, pitch, XT_E, XT_r, S0, q, X_E, X_r, S)
    tree_velocities(parent, jtype, vadr, jnv, axis2, X_E, X_r, S, qd, v, c, vJ)
    world_poses(parent, X_E, X_r, oR, op)
    bias_accelerations(parent, X_E, X_r, c, h)
    # pass 1: task kinematics and errors, per node
    J6[:] = 0.0
    vf = np.empty(6)
    hf = np.empty(6)
    a6 = np.empty(6)
    e = np.empty(3)
    Rerr = np.empty((3, 3))
    wE = np.empty((nn, 3, 3))
    for k in range(nn):
        b = node_body[k]
        R = node_R[k]
        p = node_p[k]
        frame_world_pose(b, node_E[k], node_r[k], oR, op, R, p)
        o = 6 * k
        jacobian_columns(parent, vadr, jnv, S, oR, op, b, p, R, 0, J6, o)
        xmotion(node_E[k], node_r[k], v[b], vf)
        xmotion(node_E[k], node_r[k], h[b], hf)
        classical_acceleration(vf, hf)  # h_v + w x v
        for r in range(3):
            h6[o + r] = R[r, 0] * hf[0] + R[r, 1] * hf[1] + R[r, 2] * hf[2]
            h6[o + 3 + r] = R[r, 0] * hf[3] + R[r, 1] * hf[4] + R[r, 2] * hf[5]
        for r in range(3):  # R_target R^T
            for l in range(3):
                Rerr[r, l] = (target_R[k, r, 0] * R[l, 0] + target_R[k, r, 1] * R[l, 1]
                              + target_R[k, r, 2] * R[l, 2])
        rotation_log(Rerr, e)
        for r in range(6):
            s = 0.0
            for col in range(nv):
                s += J6[o + r, col] * qd[col]
            err = e[r] if r < 3 else target_p[k, r - 3] - p[r - 3]
            a6[r] = target_a[k, r] + kp[k] * err + kd[k] * (target_v[k, r] - s)
        for d in range(node_dim[k]):
            row = node_row[k] + d
            hs[row] = 0.0
            a_e[row] = 0.0
            for col in range(nv):
                J[row, col] = 0.0
            for r in range(6):
                w = node_sel[k, d, r]
                if w != 0.0:
                    hs[row] += w * h6[o + r]
                    a_e[row] += w * a6[r]
                    for col in range(nv):
                        J[row, col] += w * J6[o + r, col]
        for r in range(3):  # world-aligned node axes: ^aX_0 = (1, p)
            for l in range(3):
                wE[k, r, l] = 1.0 if r == l else 0.0
    # pass 2: Lambda^-1 of the world-aligned nodes
    st = node_compliance(parent, vadr, jnv, armature, I, S, oR, op, oS, oI, oIA, oU, D, Dinv, cnt, cpar, vid, Ups, W,
                         node_body, wE, node_p, node_sel, node_dim, node_row, Linv)
    if st != OK:
        return st
    # pass 3: f' = (Lambda^-1 + damping 1)^-1 (a_e - h - J qdd_null), tau = RNEA(qdd_null) + J^T f'
    A = np.empty((m, m))
    Ainv = np.empty((m, m))
    rhs = np.empty(m)
    for r in range(m):
        for l in range(m):
            A[r, l] = Linv[r, l] + (damping if r == l else 0.0)
        s = a_e[r] - hs[r]
        for col in range(nv):
            s -= J[r, col] * qdd_null[col]
        rhs[r] = s
    if not spd_inverse(A, m, Ainv):
        return SINGULAR_TASK
    for r in range(m):
        s = 0.0
        for l in range(m):
            s += Ainv[r, l] * rhs[l]
        fs[r] = s
    rnea_passes(parent, vadr, jnv, armature, I, X_E, X_r, S, v, c, qdd_null, fext, a0, a, f, tau, vJ)
    for col in range(nv):
        s = tau[col]
        for r in range(m):
            s += J[r, col] * fs[r]
        tau[col] = s
    return OK
