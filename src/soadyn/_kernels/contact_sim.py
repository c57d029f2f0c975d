"""Time stepping with hard contact: the OS formulation of Jain 2014 (Eq. 53) with collisions (Sec. 7), one step
or a whole rollout per kernel call.

One step from ``(q, qd)`` with step ``dt`` (velocity-level time stepping, Jain 2014 Eqs. 32-33):

1. ABA: the free accelerations ``qdd_f`` (joint springs included) and the articulated factors;
2. collision detection at ``q`` (:mod:`.collision`; contacts are reported within the geoms' margins, so
   before they close), the rows of the loops and contacts and the Delassus matrix ``W = Q Lambda Q*`` from
   the node compliance (:mod:`.contact`); with ``prm[14] = SLIP_PYRAMID`` each contact's tangents turned
   along its predicted slip first (:func:`slip_frames`);
3. collisions (Sec. 7, ``Delta_t = 0``), when a contact with restitution ``eps > 0`` approaches faster than
   ``impact_velocity`` and would close its gap within the step: the compression LCP (Eq. 54), then the
   decompression LCP (Eq. 57) with the recovered impulse ``theta_i = eps_i F_n,i n_i`` (Eq. 56), giving
   ``qd^-`` (Eqs. 55, 58); repeated while these impulses set further contacts closing (at most
   :data:`MAX_COLLISION_PHASES`), so an impulse passes along a chain elastically;
4. the step LCP (Eq. 53) for ``qd^+ = qd^- + dt (qdd_f + rho) + M^-1 G^T lam`` (``rho``:
   :func:`joints.add_frame_rates`): the bilateral rows ask ``G_b qd^+ = -loop_erp phi / dt``, the normal
   rows ``n . v^+ >= -gap / dt`` for an open gap (speculative contact: it may close but not cross within
   the step) and, for a penetration, ``>= -erp gap / dt`` (``prm[15] = VELOCITY_CORRECTION``, Jain 2014) or
   ``>= 0`` (``SPLIT_CORRECTION``);
5. ``q^+ = q (+) dt qd^+`` (semi-implicit Euler; free bodies by :func:`joints.step_joints`: their
   velocity-product term is integrated exactly, see :func:`sim.rollout`);
6. with ``SPLIT_CORRECTION``, after a collision or a penetration deeper than :data:`PENETRATION_SLOP`,
   the position correction of :func:`correct_positions` (positions only: no kinetic energy is added).
   ``SPLIT_CORRECTION`` also places the collisions at the time of the first impact in the step,
   ``tc = min gap_i / -v_n,i``: the free acceleration acts for ``tc`` before the impulses and for
   ``dt - tc`` after them (at ``Delta_t = 0`` a bouncing ball would lose ``(1 + e) g tc`` of its rebound
   speed, up to 10 % of a 15 mm apex at 1 ms), and step 6 completes the rebound's position.

The constraint rows are those of ``G_u(q) qd^+`` (the ``Gdot qd`` term of Eq. 46 is left out, as in
Eqs. 36 and 41), so that ``v^+ = W lam + v_f`` holds exactly and all formulations agree. ``M^-1 G^T lam``
is one ABA pass on the factors of step 1 (never M^-1).

Parameters ``prm`` (float64): ``dt, n_f, erp, loop_erp, impact_velocity, mu (< 0: the geoms' values),
restitution (< 0: the geoms' values), solver (0 Lemke, 1 PGS), max_pivots, tikhonov, pgs_iterations,
pgs_tolerance, friction model, mu_v, pyramid, correction``. Statistics per step ``stat`` (float64,
:data:`NSTAT`): contacts detected, active contacts (``F_n > 0``), LCP size, step-LCP pivots (or PGS
iterations), collision-LCP pivots, the number of collision phases, the Tikhonov regularization used (0 if
none), the largest penetration depth (m). A ``stat`` row longer than ``NSTAT`` also receives the step's
contacts (:func:`record_contacts`): ``RECORD`` columns per contact (world point, normal, impulse on body A
over the step: collision phases and step LCP), NaN after the last contact.
"""

import math

import numpy as np

from .._jit import jit
from .collision import collide, geom_world_poses
from .drumwright import (DW_FALLBACK, DW_INFO_SIZE, DW_LCP_SIZE, DW_PIVOTS, DW_TIKHONOV, SOLVER_LEMKE as DW_LEMKE,
                         SOLVER_PPM as DW_PPM, noslip_solve, viscous_solve)
from .contact import (constraint_nodes, delassus, pyramid_impulses, pyramid_lcp, row_forces, row_velocities,
                      tangent_basis)
from .joints import OK, add_frame_rates, all_finite, check_q, integrate_config, step_joints
from .lcp import LCP_MAX_PIVOTS, LCP_OK, mlcp, pgs
from .loops import aba_correction, loop_rows
from .sim import DIVERGED, STEP_SHIFT, passive_forces, start_states, step_inputs
from .articulated import aba_core
from .kinematics import check_state, tree_velocities, world_poses

NSTAT = 9
"""Columns of the per-step statistics."""

RECORD = 9
"""Columns of a recorded contact after the statistics: world point (3), unit normal from B to A (3), world
impulse on body A over the step (3, N s; normal and friction, collision phases included)."""

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

FIXED_PYRAMID, SLIP_PYRAMID = 0, 1
"""``prm[14]``: the friction pyramid's tangents from the normal alone (:func:`contact.tangent_basis`, Jain
2014's fixed pyramid), or turned so that ``t1`` points along the contact's predicted slip
(:func:`slip_frames`)."""

VELOCITY_CORRECTION, SPLIT_CORRECTION = 0, 1
"""``prm[15]``: penetration removed through the velocity (normal rows ask ``n . v+ >= -erp gap / dt``,
Jain 2014), or by a separate position correction that leaves the velocities alone (:func:`correct_positions`)."""

PENETRATION_SLOP = 1e-7
"""Penetration (m) below which the split position correction is skipped (round-off of resting contacts)."""

SLIP_DIRECTION_TOL = 1e-9
"""Predicted tangential slip speed (m/s) below which a contact keeps the fixed pyramid's tangents."""

MAX_COLLISION_PHASES = 8
"""Collision phases per step: after one, contacts that its impulses set closing run the next (a Newton's
cradle passes its impulse along the chain, one phase per contact)."""

NO_SLIP_GAP = 1e-5
"""No-slip rows hold every contact's tangential velocity at zero (Drumwright 2015 Eqs. 45-46), so only
touching contacts (gap below this, m) enter them; contacts farther apart are left out of the step."""


@jit
def record_contacts(stat, k, con_point, con_normal):
    """Start the step's record in ``stat[NSTAT:]`` (when the row has room for one): the first ``k``
    contacts' points and normals with zero impulse, NaN rows after them."""
    n = (stat.shape[0] - NSTAT) // RECORD
    for i in range(n):
        r = NSTAT + RECORD * i
        for m in range(3):
            stat[r + m] = con_point[i, m] if i < k else np.nan
            stat[r + 3 + m] = con_normal[i, m] if i < k else np.nan
            stat[r + 6 + m] = 0.0 if i < k else np.nan


@jit
def record_impulses(stat, nb, k, lam, con_frame):
    """Add the world impulses ``sum_d lam[n, t1, t2]_d frame_d`` of the first ``k`` contacts' rows (after
    the ``nb`` loop rows) to the record of :func:`record_contacts`."""
    n = min(k, (stat.shape[0] - NSTAT) // RECORD)
    for i in range(n):
        r = NSTAT + RECORD * i + 6
        for d in range(3):
            x = lam[nb + 3 * i + d]
            for m in range(3):
                stat[r + m] += x * con_frame[i, d, m]


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
def slip_frames(k, nb, vr, con_frame):
    """Turn each contact's tangents about its normal so that ``t1`` points along the predicted slip
    ``s = vr_t1 t1 + vr_t2 t2`` (``vr``: the rows' velocities of the step's free velocity, in the fixed
    frames ``con_frame``), ``t2 = n x t1``; a contact slipping slower than :data:`SLIP_DIRECTION_TOL` keeps
    its frame. Coulomb friction then opposes the slip at its full ``mu F_n`` whatever the world's
    orientation (the fixed pyramid of ``n_f = 4`` caps friction along its diagonals at ``mu F_n / sqrt 2``);
    a contact held still on a slope slips, before friction, along the pull of gravity (``dt g_t``), so a
    sticking contact is aligned with the force friction must hold."""
    for i in range(k):
        a = vr[nb + 3 * i + 1]
        b = vr[nb + 3 * i + 2]
        sn = math.sqrt(a * a + b * b)
        if sn <= SLIP_DIRECTION_TOL:
            continue
        a /= sn
        b /= sn
        for m in range(3):
            t1 = con_frame[i, 1, m]
            t2 = con_frame[i, 2, m]
            con_frame[i, 1, m] = a * t1 + b * t2
            con_frame[i, 2, m] = -b * t1 + a * t2


@jit
def correct_positions(Wd, nb, k, con_gap, collided, eps, prm, lam, info):
    """Impulses ``lam`` (loop rows; normal rows; tangent rows zero) of the position correction, whose
    velocity ``M^-1 G^T lam`` moves the positions only (split impulse): the velocities, hence the kinetic
    energy, are left alone. Rows (``w = W lam + b``): the loop rows held (``w = 0``); a contact that collided
    in the step (``collided``) from an open gap brought back by ``(1 + eps) gap`` (``w = 0`` with ``b = (1 + eps) gap / dt``):
    the collision phase reversed it where it began the step, ``gap`` before touching, so it ends the step
    ``(1 + eps) gap`` farther out than had it touched first and rebounded; the other contacts
    ``w >= 0`` complementary to ``lam_n >= 0``, with ``b = erp gap / dt`` for a penetration (``erp`` of it
    removed) and ``gap / dt`` for an open gap (it may close, not cross). Solved as a mixed LCP (Lemke; the
    equality rows first); returns its status."""
    pull = np.zeros(k, dtype=np.bool_)
    nc = 0
    for i in range(k):
        pull[i] = collided[i] and con_gap[i] > 0.0
        if pull[i]:
            nc += 1
    n = nb + k
    idx = np.empty(n, dtype=np.int64)  # rows of Wd: loops, collided normals, the other normals
    for r in range(nb):
        idx[r] = r
    j = nb
    for first in (True, False):
        for i in range(k):
            if pull[i] == first:
                idx[j] = nb + 3 * i
                j += 1
    M = np.empty((n, n))
    q = np.zeros(n)
    for r in range(n):
        for c in range(n):
            M[r, c] = Wd[idx[r], idx[c]]
    dt = prm[0]
    for r in range(nb, n):
        i = (idx[r] - nb) // 3
        g = con_gap[i]
        if pull[i]:
            q[r] = (1.0 + eps[i]) * g / dt
        else:
            q[r] = (prm[2] * g if g < 0.0 else g) / dt
    z = np.zeros(n)
    w = np.empty(n)
    st = mlcp(M, q, nb + nc, int(prm[8]), prm[9], z, w, info)
    lam[:] = 0.0
    for r in range(n):
        lam[idx[r]] = z[r]
    return st


@jit
def phase_rows(nb, k, colliding, con_gap):
    """The rows of a collision phase: the loop rows, then the three rows of each contact that collides or
    already touches (``gap <= 0``). Open contacts that do not close within the step take no part: nothing
    moves during the impulses (``Delta_t = 0``), and the step LCP keeps them from crossing afterwards.
    Returns their contact count and the row indices."""
    ks = 0
    for i in range(k):
        if colliding[i] or con_gap[i] <= 0.0:
            ks += 1
    idx = np.empty(nb + 3 * ks, dtype=np.int64)
    for r in range(nb):
        idx[r] = r
    j = 0
    for i in range(k):
        if colliding[i] or con_gap[i] <= 0.0:
            for d in range(3):
                idx[nb + 3 * j + d] = nb + 3 * i + d
            j += 1
    return ks, idx


@jit
def contact_step(parent, jtype, qadr, vadr, jnv, axis, axis2, pitch, XT_E, XT_r, I, S0, armature,
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
    split = int(prm[15]) == SPLIT_CORRECTION
    nbody = parent.shape[0]
    nv = qd.shape[0]
    T = np.empty((4, 6, 6))
    R = np.empty((3, 3))
    tau_s = np.empty(nv)
    stat[:] = 0.0
    # 1. free accelerations and articulated factors
    passive_forces(qadr, vadr, jnv, stiffness, damping, springref, q, qd, tau, tau_s)
    st = aba_core(parent, jtype, qadr, vadr, jnv, axis, axis2, pitch, XT_E, XT_r, I, S0, armature, q, qd, tau_s,
                  fext, a0, X_E, X_r, S, v, c, IA, pA, U, D, Dinv, u, a, qdd, T)
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
    record_contacts(stat, k, con_point, con_normal)
    nl = fa.shape[0]
    nb = row[nl]
    for m in range(nv):
        qdn[m] = qd[m] + dt * qdd[m]
    add_frame_rates(jtype, vadr, I, qd, dt, qdn)
    if k == 0 and nb == 0:
        step_joints(jtype, qadr, vadr, axis, axis2, I, q, qdn, dt, qn, R)
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
    vr = np.empty(nr)
    vb = np.empty((nbody, 6))
    cb = np.empty((nbody, 6))
    nn = constraint_nodes(frame_body, fa, fb, dim, row, RA, pAw, Qr, con_body, con_point, con_frame, k,
                          node_body, wE, wr, node_sel, node_dim, node_row, row_node, row_coef)
    if int(prm[14]) == SLIP_PYRAMID and k > 0:
        # tangents along the slip of the free velocity, then the rows again
        row_velocities_of(parent, jtype, vadr, jnv, axis2, X_E, X_r, S, qdn, vb, cb, vJ, oR, op,
                          node_body, wE, wr, node_sel, node_dim, nn, row_node, row_coef, vr)
        slip_frames(k, nb, vr, con_frame)
        nn = constraint_nodes(frame_body, fa, fb, dim, row, RA, pAw, Qr, con_body, con_point, con_frame, k,
                              node_body, wE, wr, node_sel, node_dim, node_row, row_node, row_coef)
    Wd = np.empty((nr, nr))
    st = delassus(parent, vadr, jnv, armature, I, S, oR, op, oS, oI, oIA, oU, D, Dinv, cnt, cpar, vid, Ups, W6,
                  node_body, wE, wr, node_sel, node_dim, node_row, nn, row_node, row_coef, Wd)
    if st != OK:
        return st
    tgt = np.empty(nr)
    lam = np.empty(nr)
    info = np.zeros(4)
    # 3. collisions: compression (Eq. 54) and decompression (Eq. 57) at Delta_t = 0 among the contacts with
    # restitution that close within the step faster than impact_velocity and those already touching; the
    # phases repeat while their impulses set further contacts closing
    qm = np.empty(nv)
    qm[:] = qd
    colliding = np.zeros(k, dtype=np.bool_)
    collided = np.zeros(k, dtype=np.bool_)
    pre = 0.0  # the part of the step whose free acceleration qm already holds
    for _ in range(MAX_COLLISION_PHASES):
        row_velocities_of(parent, jtype, vadr, jnv, axis2, X_E, X_r, S, qm, vb, cb, vJ, oR, op,
                          node_body, wE, wr, node_sel, node_dim, nn, row_node, row_coef, vr)
        any_collision = False
        tc = dt
        for i in range(k):
            vn = vr[nb + 3 * i]
            colliding[i] = eps[i] > 0.0 and vn < -prm[4] and con_gap[i] + dt * vn < 0.0
            if colliding[i]:
                tc = min(tc, max(con_gap[i], 0.0) / -vn)
            any_collision = any_collision or colliding[i]
            collided[i] = collided[i] or colliding[i]
        if not any_collision:
            break
        if split and stat[5] == 0.0:
            # the impact at its time tc within the step: the free acceleration acts before it for tc
            pre = tc
            for m in range(nv):
                qm[m] += tc * qdd[m]
            row_velocities_of(parent, jtype, vadr, jnv, axis2, X_E, X_r, S, qm, vb, cb, vJ, oR, op,
                              node_body, wE, wr, node_sel, node_dim, nn, row_node, row_coef, vr)
        stat[5] += 1.0
        ks, idx = phase_rows(nb, k, colliding, con_gap)
        Ws = np.empty((idx.shape[0], idx.shape[0]))
        for r in range(idx.shape[0]):
            for c in range(idx.shape[0]):
                Ws[r, c] = Wd[idx[r], idx[c]]
        vs = np.empty(idx.shape[0])
        lams = np.empty(idx.shape[0])
        mus = np.empty(ks)
        theta = np.zeros(idx.shape[0])
        for j in range(ks):
            mus[j] = mu[(idx[nb + 3 * j] - nb) // 3]
        for phase in range(2):
            for r in range(idx.shape[0]):
                vs[r] = vr[idx[r]]
            if phase == 1:
                # recovered impulse theta (Eq. 56), applied with the decompression impulses (Eq. 58)
                for j in range(ks):
                    theta[nb + 3 * j] = eps[(idx[nb + 3 * j] - nb) // 3] * lams[nb + 3 * j]
                for r in range(idx.shape[0]):  # vs += Ws theta (a loop: no BLAS threads for a small product)
                    acc = 0.0
                    for c2 in range(idx.shape[0]):
                        acc += Ws[r, c2] * theta[c2]
                    vs[r] += acc
            st = solve_rows(Ws, vs, nb, ks, nf, mus, prm, lams, info)
            stat[4] += info[0]
            stat[6] = max(stat[6], info[1])
            stat[8] += info[2]
            if st != LCP_OK:
                stat[3] = st
                return LCP_FAILED
            if phase == 1:
                lams += theta
            lam[:] = 0.0
            for r in range(idx.shape[0]):
                lam[idx[r]] = lams[r]
            apply_impulses(parent, vadr, jnv, X_E, X_r, S, U, Dinv, oR, op, node_body, wE, wr, node_sel, node_dim,
                           nn, row_node, row_coef, lam, qm)
            record_impulses(stat, nb, k, lam, con_frame)
            row_velocities_of(parent, jtype, vadr, jnv, axis2, X_E, X_r, S, qm, vb, cb, vJ, oR, op,
                              node_body, wE, wr, node_sel, node_dim, nn, row_node, row_coef, vr)
    # 4. the step LCP (Eq. 53)
    for m in range(nv):
        qdn[m] = qm[m] + (dt - pre) * qdd[m]
    add_frame_rates(jtype, vadr, I, qd, dt, qdn)
    row_velocities_of(parent, jtype, vadr, jnv, axis2, X_E, X_r, S, qdn, vb, cb, vJ, oR, op,
                      node_body, wE, wr, node_sel, node_dim, nn, row_node, row_coef, vr)
    for r in range(nb):
        tgt[r] = vr[r] + loop_erp * phi[r] / dt
    for i in range(k):
        g = con_gap[i]
        r = nb + 3 * i
        tgt[r] = vr[r] + (g / dt if g > 0.0 else (0.0 if split else erp * g / dt))
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
    record_impulses(stat, nb, k, lam, con_frame)
    # 5. positions; free joints' velocities rewritten in their new body axes
    step_joints(jtype, qadr, vadr, axis, axis2, I, q, qdn, dt, qn, R)
    if split and (stat[7] > PENETRATION_SLOP or stat[5] > 0.0):
        # 6. position correction (split impulse): positions only, computed at q and applied at q+
        st = correct_positions(Wd, nb, k, con_gap, collided, eps, prm, lam, info)
        if st != LCP_OK:
            stat[3] = st
            return LCP_FAILED
        dq = np.zeros(nv)
        apply_impulses(parent, vadr, jnv, X_E, X_r, S, U, Dinv, oR, op, node_body, wE, wr, node_sel, node_dim,
                       nn, row_node, row_coef, lam, dq)
        qc = qn.copy()
        integrate_config(jtype, qadr, vadr, axis, axis2, qc, dq, dt, qn, R)
    return OK


@jit
def row_velocities_of(parent, jtype, vadr, jnv, axis2, X_E, X_r, S, qd, v, c, vJ, oR, op,
                      node_body, wE, wr, node_sel, node_dim, nn, row_node, row_coef, vr):
    """Row velocities ``G qd`` of a generalized velocity ``qd`` at the step's configuration: the body
    velocities by one pass (:func:`tree.tree_velocities`), then :func:`contact.row_velocities`."""
    tree_velocities(parent, jtype, vadr, jnv, axis2, X_E, X_r, S, qd, v, c, vJ)
    row_velocities(v, oR, op, node_body, wE, wr, node_sel, node_dim, nn, row_node, row_coef, vr)


@jit
def contact_rollout(parent, jtype, qadr, vadr, jnv, axis, axis2, pitch, XT_E, XT_r, I, S0, armature,
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
        st = contact_step(parent, jtype, qadr, vadr, jnv, axis, axis2, pitch, XT_E, XT_r, I, S0, armature,
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
