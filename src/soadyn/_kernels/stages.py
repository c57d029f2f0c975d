"""Stage loops for timing breakdowns: one stage of the TA (:func:`loops.ta_forward`, Jain et al. 2012
Lemma 2) or the CE (:func:`embed_sim.ce_forward`) forward dynamics repeated ``reps`` times in one kernel
call, so that the per-call dispatch cost drops out of the per-stage time. Each kernel first runs the whole
forward dynamics once, so that every buffer holds the state of the call; a stage then recomputes its own
outputs from those buffers (the stages are idempotent). The arguments are those of the forward dynamics
kernel, after ``stage`` and ``reps``.
"""

import numpy as np

from .._jit import jit
from .embed import ce_accelerations, close_loops, node_hinges
from .embed_sim import ce_forward, tree_data
from .joints import OK, normalize_config
from .loops import aba_correction, loop_compliance, loop_forces, loop_rows, solve_multipliers, ta_forward
from .articulated import aba_core
from .kinematics import world_poses
from .layout import (LOOP_INFO, NV, QDD, data_aba, data_kinematics, data_loops, data_multipliers, data_nodes,
                     data_world, dfield, dint, model_extras, model_loops, model_tree)

TA_STAGES = ("aba", "rows", "schur", "solve", "correction", "all")
"""Stages of :func:`ta_stage`: the ABA pass for the free accelerations (Eq. 12a); the loop rows ``Q``,
``phi`` and ``gamma`` (Eq. 12b); the Schur complement ``K = Q Lambda Q*`` from the node compliance; the
multipliers ``K lam = -gamma``; the correction ABA pass with the loop forces (Eq. 12c); the whole call."""
CE_STAGES = ("loop_solve", "hinge_maps", "accelerations", "all")
"""Stages of :func:`ce_stage`: the loop closure (dependent coordinates from the independent ones), the
compound hinge maps ``G`` and their velocities, the articulated-body passes over the compound bodies (with
Lemma 2 for cut loops); the whole call."""


@jit
def ta_stage(stage, reps, model_int, model_float, data_float, data_int, q, qd, tau, fext, alpha, beta):
    """Stage ``stage`` (an index of :data:`TA_STAGES`) of :func:`loops.ta_forward` ``reps`` times. Returns a
    kernel status."""
    mi, mf, df = model_int, model_float, data_float
    parent, jtype, qadr, vadr, jnv, axis, axis2, pitch, XT_E, XT_r, I, S0, armature = model_tree(mi, mf)
    frame_body, frame_E, frame_r, fa, fb, kind, sel, dim, row, ax1, ax2, twist = model_loops(mi, mf)
    a0 = model_extras(mi, mf)[1]
    X_E, X_r, S, v, c, oR, op = data_kinematics(mi, df)
    IA, pA, U, D, Dinv, u, a = data_aba(mi, df)
    oS, oI, oIA, oU = data_world(mi, df)
    cnt, cpar, vid, Ups, W = data_nodes(mi, df, data_int)
    RA, pAw, Q, phi, cv, gamma = data_loops(mi, df)
    K, fl, lam = data_multipliers(mi, df)
    qdd = dfield(mi, df, QDD, mi[NV])
    info = dint(mi, data_int, LOOP_INFO, 2)
    st = ta_forward(mi, mf, df, data_int, q, qd, tau, fext, alpha, beta)
    if st != OK:
        return st
    nb = parent.shape[0]
    nv = qdd.shape[0]
    T = np.empty((4, 6, 6))
    rhs = np.empty(gamma.shape[0])
    qdd_d = np.empty(nv)
    pA_d = np.empty((nb, 6))
    a_d = np.empty((nb, 6))
    u_d = np.empty(nv)
    for _ in range(reps):
        if stage == 0:
            st = aba_core(parent, jtype, qadr, vadr, jnv, axis, axis2, pitch, XT_E, XT_r, I, S0, armature, q, qd, tau,
                          fext, a0, X_E, X_r, S, v, c, IA, pA, U, D, Dinv, u, a, qdd, T)
        elif stage == 1:
            world_poses(parent, X_E, X_r, oR, op)
            loop_rows(frame_body, frame_E, frame_r, fa, fb, kind, sel, dim, row, ax1, ax2, twist, oR, op, v, a, a0,
                      RA, pAw, Q, phi, cv, gamma)
            for r in range(gamma.shape[0]):
                gamma[r] += 2.0 * alpha * cv[r] + beta * beta * phi[r]
        elif stage == 2:
            st = loop_compliance(parent, vadr, jnv, armature, I, S, oR, op, oS, oI, oIA, oU, D, Dinv, cnt, cpar, vid,
                                 Ups, W, frame_body, fa, fb, dim, row, RA, pAw, Q, K)
        elif stage == 3:
            for r in range(gamma.shape[0]):
                rhs[r] = -gamma[r]
            solve_multipliers(K, rhs, lam, info)
        elif stage == 4:
            loop_forces(parent, frame_body, fa, fb, dim, row, oR, op, RA, pAw, Q, lam, fl)
            aba_correction(parent, vadr, jnv, X_E, X_r, S, U, Dinv, fl, pA_d, a_d, u_d, qdd_d)
        else:
            st = ta_forward(mi, mf, df, data_int, q, qd, tau, fext, alpha, beta)
        if st != OK:
            return st
    return OK


@jit
def ce_stage(stage, reps, model_int, model_float, data_float,
             fa, fb, kind, sel, dim, row, ax1, ax2, twist, row_loop,
             cfa, cfb, ckind, csel, cdim, crow, cax1, cax2, ctwist,
             nd, nd_body, nd_bpar, nd_boff, nd_dof, nd_ind, nd_row, v2x, xq, an,
             x, xd, tau, fext, tol, max_iter,
             oIA, zA, oc, oa, abody, ab, Hb, Us, Dv, un, W,
             Gk, LU, piv, Gm, gk, Jw, col, RA, pAw, Qr, phi, cv, gam,
             cRA, cpAw, cQr, cphi, ccv, cgam, K, lam, fl, Y, Yq, linfo, dq, qn, R3, info,
             q, qd, qdd, xdd):
    """Stage ``stage`` (an index of :data:`CE_STAGES`) of :func:`embed_sim.ce_forward` ``reps`` times (no
    joint springs, as ``ce_forward``). Returns a kernel status."""
    mi, mf = model_int, model_float
    st = ce_forward(mi, mf, data_float, fa, fb, kind, sel, dim, row, ax1, ax2, twist, row_loop,
                    cfa, cfb, ckind, csel, cdim, crow, cax1, cax2, ctwist,
                    nd, nd_body, nd_bpar, nd_boff, nd_dof, nd_ind, nd_row, v2x, xq, an,
                    x, xd, tau, fext, tol, max_iter,
                    oIA, zA, oc, oa, abody, ab, Hb, Us, Dv, un, W,
                    Gk, LU, piv, Gm, gk, Jw, col, RA, pAw, Qr, phi, cv, gam,
                    cRA, cpAw, cQr, cphi, ccv, cgam, K, lam, fl, Y, Yq, linfo, dq, qn, R3, info,
                    q, qd, qdd, xdd)
    if st != OK:
        return st
    parent, jtype, qadr, vadr, jnv, axis, axis2, pitch, XT_E, XT_r, I, S0, armature = model_tree(mi, mf)
    frame_body, frame_E, frame_r = model_loops(mi, mf)[:3]
    a0 = model_extras(mi, mf)[1]
    X_E, X_r, S, v, c, h, vJ, oR, op, oS, oI = tree_data(mi, data_float)
    for _ in range(reps):
        if stage == 0:
            for e in range(x.shape[0]):
                q[xq[e]] = x[e]
            normalize_config(jtype, qadr, q)
            st = close_loops(parent, jtype, qadr, vadr, jnv, axis, axis2, pitch, XT_E, XT_r, S0,
                             frame_body, frame_E, frame_r, fa, fb, kind, sel, dim, row, ax1, ax2, twist, row_loop,
                             nd, nd_dof, nd_ind, nd_row, an, tol, max_iter,
                             X_E, X_r, S, v, oR, op, RA, pAw, Qr, phi, cv, gam, Jw, Gk, LU, piv, dq, qn, R3, q, info)
        elif stage == 1:
            st = node_hinges(parent, vadr, jnv, S, oR, op, frame_body, fa, fb, row, RA, pAw, Qr, row_loop,
                             nd, nd_dof, nd_ind, nd_row, v2x, xd, Jw, Gk, LU, piv, Gm, col, info, qd)
        elif stage == 2:
            st = ce_accelerations(parent, jtype, vadr, jnv, axis2, I, frame_body, frame_E, frame_r,
                                  fa, fb, kind, sel, dim, row, ax1, ax2, twist, row_loop,
                                  cfa, cfb, ckind, csel, cdim, crow, cax1, cax2, ctwist,
                                  nd, nd_body, nd_bpar, nd_boff, nd_dof, nd_ind, nd_row, v2x,
                                  xd, tau, fext, a0,
                                  X_E, X_r, S, v, c, h, vJ, oR, op, oS, oI, oIA, zA, oc, oa, abody, ab, Hb, Us, Dv,
                                  un, W, Gk, LU, piv, Gm, gk, Jw, col, RA, pAw, Qr, phi, cv, gam,
                                  cRA, cpAw, cQr, cphi, ccv, cgam, K, lam, fl, Y, Yq, linfo,
                                  qd, qdd, xdd)
        else:
            st = ce_forward(mi, mf, data_float, fa, fb, kind, sel, dim, row, ax1, ax2, twist, row_loop,
                            cfa, cfb, ckind, csel, cdim, crow, cax1, cax2, ctwist,
                            nd, nd_body, nd_bpar, nd_boff, nd_dof, nd_ind, nd_row, v2x, xq, an,
                            x, xd, tau, fext, tol, max_iter,
                            oIA, zA, oc, oa, abody, ab, Hb, Us, Dv, un, W,
                            Gk, LU, piv, Gm, gk, Jw, col, RA, pAw, Qr, phi, cv, gam,
                            cRA, cpAw, cQr, cphi, ccv, cgam, K, lam, fl, Y, Yq, linfo, dq, qn, R3, info,
                            q, qd, qdd, xdd)
        if st != OK:
            return st
    return OK
