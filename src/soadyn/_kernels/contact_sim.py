"""Time stepping with hard contact: the OS formulation of Jain 2014 (Eq. 53) with collisions (Sec. 7), one step
or a whole rollout per kernel call.

One step from ``(q, qd)`` with step ``dt`` (velocity-level time stepping, Jain 2014 Eqs. 32-33):

1. ABA: the free accelerations ``qdd_f`` (joint springs included) and the articulated factors;
2. collision detection at ``q`` (:mod:`.collision`), the rows of the loops and contacts and the Delassus
   matrix ``W = Q Lambda Q*`` from the node compliance (:mod:`.contact`);
3. collisions (Sec. 7, ``Delta_t = 0``), when a contact with restitution ``eps > 0`` approaches faster than
   ``impact_velocity`` and would close its gap within the step: the compression LCP (Eq. 54), then the
   decompression LCP (Eq. 57) with the recovered impulse ``theta_i = eps_i F_n,i n_i`` (Eq. 56), giving
   ``qd^-`` (Eqs. 55, 58);
4. the step LCP (Eq. 53) for ``qd^+ = qd^- + dt qdd_f + M^-1 G^T lam``: the bilateral rows ask
   ``G_b qd^+ = -loop_erp phi / dt``, the normal rows ``n . v^+ >= -gap / dt`` for an open gap (the
   contact may close but not cross within the step) and ``>= -erp gap / dt`` for a penetration;
5. ``q^+ = q (+) dt qd^+`` (semi-implicit Euler).

The constraint rows are those of ``G_u(q) qd^+`` (the ``Gdot qd`` term of Eq. 46 is left out, as in
Eqs. 36 and 41), so that ``v^+ = W lam + v_f`` holds exactly and all formulations agree. ``M^-1 G^T lam``
is one ABA pass on the factors of step 1 (never M^-1).

Parameters ``prm`` (float64): ``dt, n_f, erp, loop_erp, impact_velocity, mu (< 0: the geoms' values),
restitution (< 0: the geoms' values), solver (0 Lemke, 1 PGS), max_pivots, tikhonov, pgs_iterations,
pgs_tolerance``. Statistics per step ``stat`` (float64, :data:`NSTAT`): contacts detected, active contacts
(``F_n > 0``), LCP size, step-LCP pivots (or PGS iterations), collision-LCP pivots, 1 if a collision phase
ran, the Tikhonov regularization used (0 if none), the largest penetration depth (m).
"""

import numpy as np

from .._jit import jit
from .collision import collide, geom_world_poses
from .drumwright import (DW_FALLBACK, DW_INFO_SIZE, DW_LCP_SIZE, DW_PIVOTS, DW_TIKHONOV, SOLVER_LEMKE as DW_LEMKE,
                         SOLVER_PPM as DW_PPM, noslip_solve, viscous_solve)
from .contact import (constraint_nodes, delassus, pyramid_impulses, pyramid_lcp, row_forces, row_velocities,
                      tangent_basis)
from .joints import OK, all_finite, check_q, integrate_config
from .lcp import LCP_MAX_PIVOTS, LCP_OK, mlcp, pgs
from .loops import aba_correction, loop_rows
from .sim import DIVERGED, STEP_SHIFT, passive_forces, start_states, step_inputs
from .tree import aba_core, check_state, tree_velocities, world_poses

NSTAT = 9
"""Columns of the per-step statistics."""

LCP_FAILED = 18
"""Status code: an LCP of the step was not solved (the solver's code is in ``stat[3]`` of the step)."""

TOO_MANY_CONTACTS = 19
"""Status code: collision detection found more contacts than the buffers hold."""

SOLVER_LEMKE, SOLVER_PGS, SOLVER_PPM = 0, 1, 2
"""``prm[7]``: Lemke's method, projected Gauss-Seidel (Coulomb only), the modified PPM I (Drumwright models)."""

COULOMB, VISCOUS, NO_SLIP = 0, 1, 2
"""``prm[12]``: the friction model: the Coulomb pyramid of Jain 2014 (Eq. 53), Drumwright 2015's purely
viscous friction (Sec. IV, coefficient ``prm[13]``) or no-slip (Sec. VI)."""

RANK_TOL = 1e-10
"""FIND-INDICES tolerance of the Drumwright models."""

NO_SLIP_GAP = 1e-5
"""No-slip rows hold every contact's tangential velocity at zero (Drumwright 2015 Eqs. 45-46), so only
touching contacts (gap below this, m) enter them; contacts farther apart are left out of the step."""


@jit
def keep_touching(k, con_geom, con_body, con_point, con_normal, con_gap, con_mu, con_eps):
    """Move the contacts with ``gap <= NO_SLIP_GAP`` to the front; returns their count."""
    j = 0
    for i in range(k):
        if con_gap[i] <= NO_SLIP_GAP:
            if j != i:
                con_geom[j] = con_geom[i]
                con_body[j] = con_body[i]
                con_point[j] = con_point[i]
                con_normal[j] = con_normal[i]
                con_gap[j] = con_gap[i]
                con_mu[j] = con_mu[i]
                con_eps[j] = con_eps[i]
            j += 1
    return j


@jit
def solve_rows(Wd, tgt, nb, k, nf, mu, prm, lam, info):
    """Row impulses ``lam`` (loop rows; ``n, t1, t2`` per contact) for the row targets ``tgt`` (velocities +
    biases) by the friction model ``prm[12]``: the Coulomb pyramid (:func:`coulomb_rows`), or Drumwright
    2015's viscous or no-slip model on the same contact-space rows (:mod:`.drumwright`, PPM with Lemke
    fallback, or Lemke). ``info`` (float64 (4,)): pivots (PGS: iterations), regularization, 1 if PPM fell
    back to Lemke, the LCP size solved. Returns the solver status (``LCP_OK`` = 0)."""
    model = int(prm[12])
    if model == COULOMB:
        return coulomb_rows(Wd, tgt, nb, k, nf, mu, prm, lam, info)
    dinfo = np.zeros(DW_INFO_SIZE)
    solver = DW_PPM if int(prm[7]) == SOLVER_PPM else DW_LEMKE
    warm = np.zeros(0, dtype=np.int64)
    if model == NO_SLIP:
        st = noslip_solve(Wd, tgt, nb, k, solver, int(prm[8]), prm[9], RANK_TOL, warm, lam, dinfo)
    else:
        st = viscous_solve(Wd, tgt, nb, k, np.full(k, prm[13]), prm[0], solver, int(prm[8]), prm[9], RANK_TOL,
                           warm, lam, dinfo)
    info[0] = dinfo[DW_PIVOTS]
    info[1] = dinfo[DW_TIKHONOV]
    info[2] = dinfo[DW_FALLBACK]
    info[3] = dinfo[DW_LCP_SIZE]
    return st


@jit
def coulomb_rows(Wd, tgt, nb, k, nf, mu, prm, lam, info):
    """The OS LCP of Jain 2014 Eq. 53 with the friction pyramid: the mixed LCP by Lemke after eliminating the
    ``nb`` free rows, or projected Gauss-Seidel on the pyramid rows without ``sigma`` (approximate: its last
    iterate is used when the iteration limit is reached). ``info`` as :func:`solve_rows`."""
    nbeta = nb + k * (nf + 1)
    n = nbeta + k
    M = np.empty((n, n))
    q = np.empty(n)
    pyramid_lcp(Wd, tgt, nb, k, nf, mu, M, q)
    z = np.zeros(n)
    if int(prm[7]) == SOLVER_PGS:
        A = np.ascontiguousarray(M[:nbeta, :nbeta])
        b = np.ascontiguousarray(q[:nbeta])
        zb = np.zeros(nbeta)
        pinfo = np.zeros(4)
        st = pgs(A, b, nb, k, nf, mu, int(prm[10]), prm[11], zb, pinfo)
        if st == LCP_MAX_PIVOTS:
            st = LCP_OK
        z[:nbeta] = zb
        info[0] = pinfo[0]
        info[1] = 0.0
    else:
        w = np.empty(n)
        linfo = np.zeros(4)
        st = mlcp(M, q, nb, int(prm[8]), prm[9], z, w, linfo)
        info[0] = linfo[0]
        info[1] = linfo[1]
    info[2] = 0.0
    info[3] = n
    if st != LCP_OK:
        return st
    pyramid_impulses(z, nb, k, nf, lam)
    return LCP_OK


@jit
def apply_impulses(parent, vadr, jnv, X_E, X_r, S, U, Dinv, oR, op, node_body, wE, wr, node_sel, node_dim, nn,
                   row_node, row_coef, lam, qd):
    """``qd += M^-1 G^T lam`` (Jain 2014 Eqs. 55, 58): the row impulses as body impulses (:func:`row_forces`),
    then one ABA pass on the articulated factors of the step (:func:`loops.aba_correction`)."""
    nb = parent.shape[0]
    nv = qd.shape[0]
    f = np.empty((nb, 6))
    row_forces(oR, op, node_body, wE, wr, node_sel, node_dim, nn, row_node, row_coef, lam, f)
    dqd = np.empty(nv)
    aba_correction(parent, vadr, jnv, X_E, X_r, S, U, Dinv, f, np.empty((nb, 6)), np.empty((nb, 6)), np.empty(nv),
                   dqd)
    for k in range(nv):
        qd[k] += dqd[k]


@jit
def contact_step(parent, jtype, qadr, vadr, jnv, axis, axis2, pitch, XT_E, XT_r, I, S0,
                 stiffness, damping, springref,
                 frame_body, frame_E, frame_r, fa, fb, kind, sel, dim, row, ax1, ax2, twist,
                 geom_body, geom_type, geom_size, geom_E, geom_r, geom_mu, geom_eps, geom_margin, geom_corners,
                 pair_geom, geom_vertadr, geom_vertnum, mesh_vert,
                 q, qd, tau, fext, a0, prm,
                 X_E, X_r, S, v, c, vJ, IA, pA, U, D, Dinv, u, a, qdd, oR, op, oS, oI, oIA, oU, cnt, cpar, vid,
                 Ups, W6, RA, pAw, Qr, phi, cv, gamma, gR, gp, con_geom, con_body, con_point, con_normal, con_gap,
                 con_mu, con_eps,
                 qn, qdn, stat):
    """One contact step (module docstring) from ``(q, qd)`` to ``(qn, qdn)``; ``stat`` (NSTAT,) receives the
    step statistics. Inputs are assumed checked (:func:`contact_rollout` checks them). Returns ``OK``,
    ``TOO_MANY_CONTACTS``, ``LCP_FAILED`` (the solver status in ``stat[3]``) or an ABA status."""
    dt = prm[0]
    nf = int(prm[1])
    erp = prm[2]
    loop_erp = prm[3]
    nbody = parent.shape[0]
    nv = qd.shape[0]
    T = np.empty((4, 6, 6))
    R = np.empty((3, 3))
    tau_s = np.empty(nv)
    stat[:] = 0.0
    # 1. free accelerations and articulated factors
    passive_forces(qadr, vadr, jnv, stiffness, damping, springref, q, qd, tau, tau_s)
    st = aba_core(parent, jtype, qadr, vadr, jnv, axis, axis2, pitch, XT_E, XT_r, I, S0, q, qd, tau_s, fext, a0,
                  X_E, X_r, S, v, c, IA, pA, U, D, Dinv, u, a, qdd, T)
    if st != OK:
        return st
    # 2. contacts, rows and the Delassus matrix
    world_poses(parent, X_E, X_r, oR, op)
    geom_world_poses(geom_body, geom_E, geom_r, oR, op, gR, gp)
    k = collide(geom_type, geom_size, geom_margin, geom_corners, geom_mu, geom_eps, geom_body, pair_geom,
                geom_vertadr, geom_vertnum, mesh_vert, gR, gp,
                con_geom, con_body, con_point, con_normal, con_gap, con_mu, con_eps)
    if k > con_gap.shape[0]:
        return TOO_MANY_CONTACTS
    stat[0] = k
    for i in range(k):
        stat[7] = max(stat[7], -con_gap[i])
    if int(prm[12]) == NO_SLIP:
        k = keep_touching(k, con_geom, con_body, con_point, con_normal, con_gap, con_mu, con_eps)
    nl = fa.shape[0]
    nb = row[nl]
    for m in range(nv):
        qdn[m] = qd[m] + dt * qdd[m]
    if k == 0 and nb == 0:
        integrate_config(jtype, qadr, vadr, axis, axis2, q, qdn, dt, qn, R)
        return OK
    if nl > 0:
        loop_rows(frame_body, frame_E, frame_r, fa, fb, kind, sel, dim, row, ax1, ax2, twist, oR, op, v, a, a0,
                  RA, pAw, Qr, phi, cv, gamma)
    con_frame = np.empty((k, 3, 3))
    mu = np.empty(k)
    eps = np.empty(k)
    for i in range(k):
        tangent_basis(con_normal[i], con_frame[i])
        mu[i] = con_mu[i] if prm[5] < 0.0 else prm[5]
        eps[i] = con_eps[i] if prm[6] < 0.0 else prm[6]
    nr = nb + 3 * k
    cap = 2 * (nl + k)
    node_body = np.empty(cap, dtype=np.int64)
    wE = np.empty((cap, 3, 3))
    wr = np.empty((cap, 3))
    node_sel = np.empty((cap, 6, 6))
    node_dim = np.empty(cap, dtype=np.int64)
    node_row = np.empty(cap + 1, dtype=np.int64)
    row_node = np.empty((nr, 2), dtype=np.int64)
    row_coef = np.empty((nr, 2, 6))
    nn = constraint_nodes(frame_body, fa, fb, dim, row, RA, pAw, Qr, con_body, con_point, con_frame, k,
                          node_body, wE, wr, node_sel, node_dim, node_row, row_node, row_coef)
    Wd = np.empty((nr, nr))
    st = delassus(parent, vadr, jnv, I, S, oR, op, oS, oI, oIA, oU, D, Dinv, cnt, cpar, vid, Ups, W6,
                  node_body, wE, wr, node_sel, node_dim, node_row, nn, row_node, row_coef, Wd)
    if st != OK:
        return st
    vr = np.empty(nr)
    tgt = np.empty(nr)
    lam = np.empty(nr)
    info = np.zeros(4)
    vb = np.empty((nbody, 6))
    cb = np.empty((nbody, 6))
    # 3. collisions: compression (Eq. 54) and decompression (Eq. 57) at Delta_t = 0
    row_velocities(v, oR, op, node_body, wE, wr, node_sel, node_dim, nn, row_node, row_coef, vr)
    colliding = np.zeros(k, dtype=np.bool_)
    any_collision = False
    for i in range(k):
        vn = vr[nb + 3 * i]
        if eps[i] > 0.0 and vn < -prm[4] and con_gap[i] + dt * vn < 0.0:
            colliding[i] = True
            any_collision = True
    qm = np.empty(nv)
    qm[:] = qd
    if any_collision:
        stat[5] = 1.0
        for phase in range(2):
            if phase == 1:
                # recovered impulse theta (Eq. 56), applied with the decompression impulses (Eq. 58)
                theta = np.zeros(nr)
                for i in range(k):
                    theta[nb + 3 * i] = eps[i] * lam[nb + 3 * i]
                row_velocities_of(parent, jtype, vadr, jnv, axis2, X_E, X_r, S, qm, vb, cb, vJ, oR, op,
                                  node_body, wE, wr, node_sel, node_dim, nn, row_node, row_coef, vr)
                for r in range(nr):  # vr += Wd theta (a loop: no BLAS threads for a small product)
                    acc = 0.0
                    for c2 in range(nr):
                        acc += Wd[r, c2] * theta[c2]
                    vr[r] += acc
            for r in range(nr):
                tgt[r] = vr[r]
            for i in range(k):
                g = con_gap[i]
                if g > 0.0 and not colliding[i]:
                    tgt[nb + 3 * i] += g / dt
            st = solve_rows(Wd, tgt, nb, k, nf, mu, prm, lam, info)
            stat[4] += info[0]
            stat[6] = max(stat[6], info[1])
            stat[8] += info[2]
            if st != LCP_OK:
                stat[3] = st
                return LCP_FAILED
            if phase == 1:
                lam += theta
            apply_impulses(parent, vadr, jnv, X_E, X_r, S, U, Dinv, oR, op, node_body, wE, wr, node_sel, node_dim,
                           nn, row_node, row_coef, lam, qm)
    # 4. the step LCP (Eq. 53)
    for m in range(nv):
        qdn[m] = qm[m] + dt * qdd[m]
    row_velocities_of(parent, jtype, vadr, jnv, axis2, X_E, X_r, S, qdn, vb, cb, vJ, oR, op,
                      node_body, wE, wr, node_sel, node_dim, nn, row_node, row_coef, vr)
    for r in range(nb):
        tgt[r] = vr[r] + loop_erp * phi[r] / dt
    for i in range(k):
        g = con_gap[i]
        r = nb + 3 * i
        tgt[r] = vr[r] + (g / dt if g > 0.0 else erp * g / dt)
        tgt[r + 1] = vr[r + 1]
        tgt[r + 2] = vr[r + 2]
    st = solve_rows(Wd, tgt, nb, k, nf, mu, prm, lam, info)
    if st != LCP_OK:
        stat[3] = st
        return LCP_FAILED
    stat[2] = info[3]
    stat[3] = info[0]
    stat[6] = max(stat[6], info[1])
    stat[8] += info[2]
    for i in range(k):
        if lam[nb + 3 * i] > 0.0:
            stat[1] += 1.0
    apply_impulses(parent, vadr, jnv, X_E, X_r, S, U, Dinv, oR, op, node_body, wE, wr, node_sel, node_dim, nn,
                   row_node, row_coef, lam, qdn)
    # 5. positions
    integrate_config(jtype, qadr, vadr, axis, axis2, q, qdn, dt, qn, R)
    return OK


@jit
def row_velocities_of(parent, jtype, vadr, jnv, axis2, X_E, X_r, S, qd, v, c, vJ, oR, op,
                      node_body, wE, wr, node_sel, node_dim, nn, row_node, row_coef, vr):
    """Row velocities ``G qd`` of a generalized velocity ``qd`` at the step's configuration: the body
    velocities by one pass (:func:`tree.tree_velocities`), then :func:`contact.row_velocities`."""
    tree_velocities(parent, jtype, vadr, jnv, axis2, X_E, X_r, S, qd, v, c, vJ)
    row_velocities(v, oR, op, node_body, wE, wr, node_sel, node_dim, nn, row_node, row_coef, vr)


@jit
def contact_rollout(parent, jtype, qadr, vadr, jnv, axis, axis2, pitch, XT_E, XT_r, I, S0,
                    stiffness, damping, springref,
                    frame_body, frame_E, frame_r, fa, fb, kind, sel, dim, row, ax1, ax2, twist,
                    geom_body, geom_type, geom_size, geom_E, geom_r, geom_mu, geom_eps, geom_margin, geom_corners,
                    pair_geom, geom_vertadr, geom_vertnum, mesh_vert,
                    q0, qd0, tau, fext, a0, prm,
                    X_E, X_r, S, v, c, vJ, IA, pA, U, D, Dinv, u, a, qdd, oR, op, oS, oI, oIA, oU, cnt, cpar, vid,
                    Ups, W6, RA, pAw, Qr, phi, cv, gamma, gR, gp, con_geom, con_body, con_point, con_normal,
                    con_gap, con_mu, con_eps,
                    Q, QD, stats):
    """``nsteps = Q.shape[0] - 1`` contact steps (:func:`contact_step`) from ``(q0, qd0)``, writing the
    states ``Q[n], QD[n]`` and the statistics ``stats[n]`` of step ``n``. ``tau`` (ntau, nv) and ``fext``
    (nfext, nb, 6): row ``n`` for step ``n`` or one constant row. Returns ``OK`` or a status
    ``| (n + 1) << STEP_SHIFT`` for the failing step ``n`` (``Q[0..n]`` valid, nothing written after)."""
    st = check_state(jtype, qadr, q0, qd0)
    if st != OK:
        return st
    start_states(q0, qd0, Q, QD)
    for n in range(Q.shape[0] - 1):
        st, tau_n, fext_n = step_inputs(tau, fext, n)
        if st != OK:
            return st
        st = contact_step(parent, jtype, qadr, vadr, jnv, axis, axis2, pitch, XT_E, XT_r, I, S0,
                          stiffness, damping, springref,
                          frame_body, frame_E, frame_r, fa, fb, kind, sel, dim, row, ax1, ax2, twist,
                          geom_body, geom_type, geom_size, geom_E, geom_r, geom_mu, geom_eps, geom_margin, geom_corners,
                          pair_geom, geom_vertadr, geom_vertnum, mesh_vert,
                          Q[n], QD[n], tau_n, fext_n, a0, prm,
                          X_E, X_r, S, v, c, vJ, IA, pA, U, D, Dinv, u, a, qdd, oR, op, oS, oI, oIA, oU, cnt, cpar,
                          vid, Ups, W6, RA, pAw, Qr, phi, cv, gamma, gR, gp, con_geom, con_body, con_point,
                          con_normal, con_gap, con_mu, con_eps,
                          Q[n + 1], QD[n + 1], stats[n])
        if st != OK:
            return st | ((n + 1) << STEP_SHIFT)
        if not (all_finite(Q[n + 1]) and all_finite(QD[n + 1])):
            return DIVERGED | ((n + 1) << STEP_SHIFT)
        if check_q(jtype, qadr, Q[n + 1]) != OK:
            return DIVERGED | ((n + 1) << STEP_SHIFT)
    return OK
