"""Constraint embedding entry kernels: one CE evaluation, the forward dynamics, whole rollouts and the tree
states of embedded trajectories, each in one call (docs/architecture.md, Kernels). The algorithm is in :mod:`.embed`.

The kernels called from Python take the tree's packed Model buffers and its Data's ``data_float``, then the
embedded model's own arrays (embedded and cut loops, compound nodes) and workspace; :func:`ce_eval` and the
passes of :mod:`.embed` take plain arrays.
"""

import numpy as np

from .._jit import jit
from .embed import ce_accelerations, close_loops, node_hinges
from .joints import BAD_FEXT, BAD_IN, BAD_Q, BAD_QD, OK, all_finite, config_rate, normalize_config
from .layout import (H, NB, VJ, data_kinematics, data_world, dfield, model_extras, model_loops, model_springs,
                     model_tree)
from .sim import DIVERGED, RK4, SEMI_IMPLICIT, STEP_SHIFT, advance, passive_forces, stage_state, step_input


# --------------------------------------------------------------------------------------- entry kernels
@jit
def tree_data(mi, df):
    """The tree's Data fields of the CE kernels: ``(X_E, X_r, S, v, c, h, vJ, oR, op, oS, oI)``."""
    X_E, X_r, S, v, c, oR, op = data_kinematics(mi, df)
    oS, oI = data_world(mi, df)[:2]
    return X_E, X_r, S, v, c, dfield(mi, df, H, (mi[NB], 6)), dfield(mi, df, VJ, 6), oR, op, oS, oI


@jit
def ce_eval(parent, jtype, qadr, vadr, jnv, axis, axis2, pitch, XT_E, XT_r, I, S0, armature,
            frame_body, frame_E, frame_r, fa, fb, kind, sel, dim, row, ax1, ax2, twist, row_loop,
            cfa, cfb, ckind, csel, cdim, crow, cax1, cax2, ctwist,
            nd, nd_body, nd_bpar, nd_boff, nd_dof, nd_ind, nd_row, v2x, xq, an,
            stiffness, damping, springref, springs,
            x, xd, tau, fext, a0, tol, max_iter,
            X_E, X_r, S, v, c, h, vJ, oR, op, oS, oI, oIA, zA, oc, oa, abody, ab, Hb, Us, Dv, un, W,
            Gk, LU, piv, Gm, gk, Jw, col, RA, pAw, Qr, phi, cv, gam,
            cRA, cpAw, cQr, cphi, ccv, cgam, K, lam, fl, Y, Yq, linfo, dq, qn, R3, info, tau_s,
            q, qd, qdd, xdd):
    """One CE evaluation at the embedded state ``(x, xd)``: ``q[xq] = x`` (the other entries of ``q`` are
    the warm start of the dependent coordinates), :func:`close_loops`, :func:`node_hinges`, with
    ``springs != 0`` the tree joints' spring-dampers added to ``tau`` at the tree state
    (:func:`sim.passive_forces`, into ``tau_s``), and :func:`ce_accelerations`. Inputs already checked.
    Returns a status (``info`` as in :func:`close_loops`)."""
    for e in range(x.shape[0]):
        q[xq[e]] = x[e]
    normalize_config(jtype, qadr, q)
    st = close_loops(parent, jtype, qadr, vadr, jnv, axis, axis2, pitch, XT_E, XT_r, S0,
                     frame_body, frame_E, frame_r, fa, fb, kind, sel, dim, row, ax1, ax2, twist, row_loop,
                     nd, nd_dof, nd_ind, nd_row, an, tol, max_iter,
                     X_E, X_r, S, v, oR, op, RA, pAw, Qr, phi, cv, gam, Jw, Gk, LU, piv, dq, qn, R3, q, info)
    if st != OK:
        return st
    st = node_hinges(parent, vadr, jnv, S, oR, op, frame_body, fa, fb, row, RA, pAw, Qr, row_loop,
                     nd, nd_dof, nd_ind, nd_row, v2x, xd, Jw, Gk, LU, piv, Gm, col, info, qd)
    if st != OK:
        return st
    tau_s[:] = tau
    if springs != 0:
        passive_forces(qadr, vadr, jnv, stiffness, damping, springref, q, qd, tau, tau_s)
    return ce_accelerations(parent, jtype, vadr, jnv, axis2, I, frame_body, frame_E, frame_r,
                            fa, fb, kind, sel, dim, row, ax1, ax2, twist, row_loop,
                            cfa, cfb, ckind, csel, cdim, crow, cax1, cax2, ctwist,
                            nd, nd_body, nd_bpar, nd_boff, nd_dof, nd_ind, nd_row, v2x,
                            xd, tau_s, fext, a0,
                            X_E, X_r, S, v, c, h, vJ, oR, op, oS, oI, oIA, zA, oc, oa, abody, ab, Hb, Us, Dv, un, W,
                            Gk, LU, piv, Gm, gk, Jw, col, RA, pAw, Qr, phi, cv, gam,
                            cRA, cpAw, cQr, cphi, ccv, cgam, K, lam, fl, Y, Yq, linfo,
                            qd, qdd, xdd)


@jit
def ce_forward(model_int, model_float, data_float,
               fa, fb, kind, sel, dim, row, ax1, ax2, twist, row_loop,
               cfa, cfb, ckind, csel, cdim, crow, cax1, cax2, ctwist,
               nd, nd_body, nd_bpar, nd_boff, nd_dof, nd_ind, nd_row, v2x, xq, an,
               x, xd, tau, fext, tol, max_iter,
               oIA, zA, oc, oa, abody, ab, Hb, Us, Dv, un, W,
               Gk, LU, piv, Gm, gk, Jw, col, RA, pAw, Qr, phi, cv, gam,
               cRA, cpAw, cQr, cphi, ccv, cgam, K, lam, fl, Y, Yq, linfo, dq, qn, R3, info,
               q, qd, qdd, xdd):
    """CE forward dynamics ``xdd`` (and the tree state ``q, qd, qdd``) at ``(x, xd)`` with tree joint forces
    ``tau`` and body forces ``fext``: :func:`ce_eval` after the input checks (``BAD_Q`` for ``x``,
    ``BAD_QD`` for ``xd``, ``BAD_IN`` for ``tau``, ``BAD_FEXT`` for ``fext``). No joint springs: this is
    the dynamics of the applied ``tau``, as :func:`loops.ta_forward`."""
    if not all_finite(x):
        return BAD_Q
    if not all_finite(xd):
        return BAD_QD
    if not all_finite(tau):
        return BAD_IN
    if not all_finite(fext):
        return BAD_FEXT
    mi, mf = model_int, model_float
    parent, jtype, qadr, vadr, jnv, axis, axis2, pitch, XT_E, XT_r, I, S0, armature = model_tree(mi, mf)
    frame_body, frame_E, frame_r = model_loops(mi, mf)[:3]
    a0 = model_extras(mi, mf)[1]
    X_E, X_r, S, v, c, h, vJ, oR, op, oS, oI = tree_data(mi, data_float)
    return ce_eval(parent, jtype, qadr, vadr, jnv, axis, axis2, pitch, XT_E, XT_r, I, S0, armature,
                   frame_body, frame_E, frame_r, fa, fb, kind, sel, dim, row, ax1, ax2, twist, row_loop,
                   cfa, cfb, ckind, csel, cdim, crow, cax1, cax2, ctwist,
                   nd, nd_body, nd_bpar, nd_boff, nd_dof, nd_ind, nd_row, v2x, xq, an,
                   tau, tau, tau, 0,
                   x, xd, tau, fext, a0, tol, max_iter,
                   X_E, X_r, S, v, c, h, vJ, oR, op, oS, oI, oIA, zA, oc, oa, abody, ab, Hb, Us, Dv, un, W,
                   Gk, LU, piv, Gm, gk, Jw, col, RA, pAw, Qr, phi, cv, gam,
                   cRA, cpAw, cQr, cphi, ccv, cgam, K, lam, fl, Y, Yq, linfo, dq, qn, R3, info, np.empty(tau.shape[0]),
                   q, qd, qdd, xdd)


@jit
def ce_rollout(model_int, model_float, data_float,
               fa, fb, kind, sel, dim, row, ax1, ax2, twist, row_loop,
               cfa, cfb, ckind, csel, cdim, crow, cax1, cax2, ctwist,
               nd, nd_body, nd_bpar, nd_boff, nd_dof, nd_ind, nd_row, v2x, xq, an,
               ejtype, eqadr, evadr, eaxis, eaxis2, einertia, springs,
               tau, fext, tol, max_iter, dt, method,
               oIA, zA, oc, oa, abody, ab, Hb, Us, Dv, un, W,
               Gk, LU, piv, Gm, gk, Jw, col, RA, pAw, Qr, phi, cv, gam,
               cRA, cpAw, cQr, cphi, ccv, cgam, K, lam, fl, Y, Yq, linfo, dq, qn, R3, info,
               q, qdd, X, XD, QT, QDT, resid):
    """Integrate ``nsteps = X.shape[0] - 1`` steps of the embedded (CE, or hybrid CE/TA) dynamics from
    ``(X[0], XD[0])``, writing the embedded states ``X[n], XD[n]`` and the tree states ``QT[n], QDT[n]``
    (``t = n dt``). Every integrator stage closes the embedded loops (:func:`close_loops`, warm-started
    from the previous stage) and evaluates :func:`ce_accelerations`; the embedded coordinates integrate with
    the joint arrays ``ejtype, eqadr, evadr, eaxis, eaxis2`` (independent loop coordinates as 1-dof
    joints) and ``einertia`` (the inertia of each embedded joint's successor body, read by free joints)
    by the stage and update formulas of :func:`sim.rollout` (``method`` SEMI_IMPLICIT or RK4).
    With ``springs != 0`` every stage adds the tree joints' spring-dampers ``Model.dof_stiffness,
    dof_damping, dof_springref`` (:func:`sim.passive_forces`) to ``tau``, which enters mapped by ``G^T``.
    ``resid[n]`` receives the largest loop-closure residual ``max |phi|`` of the embedded loops over the
    stages of step ``n`` (at state ``n`` for ``n = nsteps``). Inputs held per step as in :func:`sim.rollout`.

    Returns ``OK`` or a status ``| (n + 1) << STEP_SHIFT`` for the failing step ``n`` (``X[0..n]`` valid):
    ``BAD_IN``/``BAD_FEXT`` for non-finite inputs, ``NOT_SOLVED``/``LOOP_SINGULAR`` from the loop closure
    (``info``: node, residual, pivot), ``SINGULAR | k << 8`` from the node passes, ``DIVERGED``; the
    initial state's own failure (non-finite, or loops that cannot be closed) has step field 0."""
    mi, mf = model_int, model_float
    parent, jtype, qadr, vadr, jnv, axis, axis2, pitch, XT_E, XT_r, I, S0, armature = model_tree(mi, mf)
    frame_body, frame_E, frame_r = model_loops(mi, mf)[:3]
    stiffness, damping, springref = model_springs(mi, mf)
    a0 = model_extras(mi, mf)[1]
    X_E, X_r, S, v, c, h, vJ, oR, op, oS, oI = tree_data(mi, data_float)
    nx = X.shape[1]
    nxd = XD.shape[1]
    nsteps = X.shape[0] - 1
    xs = np.empty(nx)
    vs = np.empty(nxd)
    kq = np.empty((4, nx))
    kv = np.empty((4, nxd))
    R = np.empty((3, 3))
    qd = np.empty(QDT.shape[1])
    tau_s = np.empty(QDT.shape[1])
    if not (all_finite(X[0]) and all_finite(XD[0])):
        return BAD_Q if not all_finite(X[0]) else BAD_QD
    for n in range(nsteps + 1):
        tau_n = step_input(tau, min(n, nsteps - 1)) if nsteps > 0 else tau[0]
        fext_n = step_input(fext, min(n, nsteps - 1)) if nsteps > 0 else fext[0]
        if n < nsteps:
            if not all_finite(tau_n):
                return BAD_IN | ((n + 1) << STEP_SHIFT)
            if not all_finite(fext_n):
                return BAD_FEXT | ((n + 1) << STEP_SHIFT)
        worst = 0.0
        for stage in range(1 if (method == SEMI_IMPLICIT or n == nsteps) else 4):
            stage_state(ejtype, eqadr, X[n], XD[n], kq, kv, stage, dt, xs, vs)
            st = ce_eval(parent, jtype, qadr, vadr, jnv, axis, axis2, pitch, XT_E, XT_r, I, S0, armature,
                         frame_body, frame_E, frame_r, fa, fb, kind, sel, dim, row, ax1, ax2, twist, row_loop,
                         cfa, cfb, ckind, csel, cdim, crow, cax1, cax2, ctwist,
                         nd, nd_body, nd_bpar, nd_boff, nd_dof, nd_ind, nd_row, v2x, xq, an,
                         stiffness, damping, springref, springs,
                         xs, vs, tau_n, fext_n, a0, tol, max_iter,
                         X_E, X_r, S, v, c, h, vJ, oR, op, oS, oI, oIA, zA, oc, oa, abody, ab, Hb, Us, Dv, un, W,
                         Gk, LU, piv, Gm, gk, Jw, col, RA, pAw, Qr, phi, cv, gam,
                         cRA, cpAw, cQr, cphi, ccv, cgam, K, lam, fl, Y, Yq, linfo, dq, qn, R3, info, tau_s,
                         q, qd, qdd, kv[stage])
            if st != OK:
                field = 0 if (n == 0 and stage == 0) else min(n + 1, nsteps)
                return st | (field << STEP_SHIFT)
            worst = max(worst, info[1])
            if stage == 0:
                QT[n] = q
                QDT[n] = qd
            if method == RK4:
                config_rate(ejtype, eqadr, evadr, xs, vs, kq[stage], R)
        resid[n] = worst
        if n == nsteps:
            break
        advance(method, ejtype, eqadr, evadr, einertia, X[n], XD[n], kq, kv, dt, X[n + 1], XD[n + 1], R)
        if not (all_finite(X[n + 1]) and all_finite(XD[n + 1])):
            return DIVERGED | ((n + 1) << STEP_SHIFT)
    return OK


@jit
def ce_tree_states(model_int, model_float, data_float,
                   fa, fb, kind, sel, dim, row, ax1, ax2, twist, row_loop,
                   cfa, cfb, ckind, csel, cdim, crow, cax1, cax2, ctwist,
                   nd, nd_body, nd_bpar, nd_boff, nd_dof, nd_ind, nd_row, v2x, xq, an,
                   X, XD, tol, max_iter,
                   RA, pAw, Qr, phi, cv, gam, Jw, Gk, LU, piv, Gm, col, dq, qn, R3, info,
                   q, QT, QDT, resid):
    """The tree states ``QT[s], QDT[s]`` of the embedded states ``(X[s], XD[s])``: ``y(theta)`` by
    :func:`close_loops` warm-started from the previous row (from ``q`` for the first) and ``y_dot = G theta_dot``;
    ``resid[s]`` the closure residual. Returns ``OK`` or ``status | (s + 1) << STEP_SHIFT`` for the failing
    row ``s`` (``info`` as in :func:`close_loops`)."""
    mi, mf = model_int, model_float
    parent, jtype, qadr, vadr, jnv, axis, axis2, pitch, XT_E, XT_r, I, S0, armature = model_tree(mi, mf)
    frame_body, frame_E, frame_r = model_loops(mi, mf)[:3]
    X_E, X_r, S, v, c, h, vJ, oR, op, oS, oI = tree_data(mi, data_float)
    for s in range(X.shape[0]):
        if not all_finite(X[s]):
            return BAD_Q | ((s + 1) << STEP_SHIFT)
        if not all_finite(XD[s]):
            return BAD_QD | ((s + 1) << STEP_SHIFT)
        for e in range(X.shape[1]):
            q[xq[e]] = X[s, e]
        normalize_config(jtype, qadr, q)
        st = close_loops(parent, jtype, qadr, vadr, jnv, axis, axis2, pitch, XT_E, XT_r, S0,
                         frame_body, frame_E, frame_r, fa, fb, kind, sel, dim, row, ax1, ax2, twist, row_loop,
                         nd, nd_dof, nd_ind, nd_row, an, tol, max_iter,
                         X_E, X_r, S, v, oR, op, RA, pAw, Qr, phi, cv, gam, Jw, Gk, LU, piv, dq, qn, R3, q, info)
        if st != OK:
            return st | ((s + 1) << STEP_SHIFT)
        st = node_hinges(parent, vadr, jnv, S, oR, op, frame_body, fa, fb, row, RA, pAw, Qr, row_loop,
                         nd, nd_dof, nd_ind, nd_row, v2x, XD[s], Jw, Gk, LU, piv, Gm, col, info, QDT[s])
        if st != OK:
            return st | ((s + 1) << STEP_SHIFT)
        QT[s] = q
        resid[s] = info[1]
    return OK
