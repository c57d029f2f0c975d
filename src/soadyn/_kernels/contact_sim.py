"""Time stepping with hard contact: the OS formulation of Jain 2014 (Eq. 53) with collisions (Sec. 7), one step
or a whole rollout per kernel call (:mod:`.contact_call`).

One step from ``(q, qd)`` with step ``dt`` (velocity-level time stepping, Jain 2014 Eqs. 32-33):

1. ABA: the free accelerations ``qdd_f`` (joint springs included) and the articulated factors;
2. collision detection at ``q`` (:mod:`.collision`; contacts are reported within the geoms' margins, so
   before they close), the rows of the loops and contacts and the Delassus matrix ``W = Q Lambda Q*`` from
   the node compliance (:mod:`.contact`); with ``prm[14] = SLIP_PYRAMID`` each contact's tangents turned
   along its predicted slip first (:func:`slip_frames`);
3. collisions (Sec. 7, ``Delta_t = 0``), when a contact with restitution ``eps > 0`` approaches faster than
   ``impact_velocity`` and would close its gap within the step: the compression LCP (Eq. 54), then the
   decompression LCP (Eq. 57) with the recovered impulse ``theta_i = eps_i F_n,i n_i`` (Eq. 56), giving
   ``qd^-`` (Eqs. 55, 58); with ``prm[18] = ENERGETIC`` the decompression impulse scaled back where the
   impact would otherwise gain kinetic energy (:func:`restitution_scale`); repeated while these impulses
   set further contacts closing (at most :data:`MAX_COLLISION_PHASES`), so an impulse passes along a chain
   elastically;
4. the step LCP (Eq. 53) for ``qd^+ = qd^- + dt (qdd_f + rho) + M^-1 G^T lam`` (``rho``:
   :func:`joints.add_frame_rates`): the bilateral rows ask ``G_b qd^+ = -loop_erp phi / dt``, the normal
   rows ``n . v^+ >= -gap / dt`` for a gap open by more than :data:`TOUCHING_GAP` (speculative contact: it
   may close but not cross within the step), ``>= 0`` for a touching contact and, for a penetration,
   ``>= -erp gap / dt`` (``prm[15] = VELOCITY_CORRECTION``, Jain 2014) or ``>= 0``
   (``SPLIT_CORRECTION``); the Drumwright models solve it on the touching contacts and those
   that would cross their gap (:func:`drumwright_rows`);
5. ``q^+ = q (+) dt qd^+`` (semi-implicit Euler; free bodies by :func:`joints.step_joints`: their
   velocity-product term is integrated exactly, see :func:`sim.rollout`; a free body no impulse touched
   moves its centre of mass by the trapezoidal rule, exact in ballistic flight, :func:`ballistic_shifts`);
6. with ``SPLIT_CORRECTION``, after a collision or a penetration deeper than :data:`PENETRATION_SLOP`,
   the position correction of :func:`correct_positions` (positions only: no kinetic energy is added).
   ``SPLIT_CORRECTION`` also places the collisions at the time of the first impact in the step,
   ``tc = min gap_i / -v_n,i``: the free acceleration acts for ``tc`` before the impulses and for
   ``dt - tc`` after them (at ``Delta_t = 0`` a bouncing ball would lose ``(1 + e) g tc`` of its rebound
   speed, up to 10 % of a 15 mm apex at 1 ms), and step 6 completes the rebound's position;
7. before step 5, the checks: the kinetic energy the step's impulses added (collisions, then the step LCP
   from the free velocity, less what the rows' biases of a velocity correction or of the loops' erp may
   add) is ``stat[9]``; above ``prm[17]`` times the step's kinetic energy plus :data:`ENERGY_FLOOR` the
   step fails (``ENERGY_GAINED``); a state penetrating deeper than ``prm[16]`` fails the step that made
   it (``PENETRATED``, :func:`.contact_call.contact_rollout`).

The constraint rows are those of ``G_u(q) qd^+`` (the ``Gdot qd`` term of Eq. 46 is left out, as in
Eqs. 36 and 41), so that ``v^+ = W lam + v_f`` holds exactly and all formulations agree. ``M^-1 G^T lam``
is one ABA pass on the factors of step 1 (never M^-1).

Parameters ``prm`` (float64): ``dt, n_f, erp, loop_erp, impact_velocity, mu (< 0: the geoms' values),
restitution (< 0: the geoms' values), solver (0 Lemke, 1 PGS), max_pivots, tikhonov, pgs_iterations,
pgs_tolerance, friction model, mu_v, pyramid, correction, penetration limit (m, inf: none), energy
tolerance, restitution law, warm start (1: on)``. Statistics per step ``stat`` (float64, :data:`NSTAT`):
contacts detected, active contacts (``F_n > 0``), LCP size, step-LCP pivots (PGS: iterations; warm start: its
block pivots), collision-LCP pivots, the number of collision phases, the Tikhonov regularization used (0 if
none), the largest penetration depth (m), fallbacks (PPM or PGS to Lemke), the kinetic energy the impulses
added (J, step 7), the largest relative residual of the step's LCP answers (:func:`lcp.lcp_error`) and
the path that solved the step LCP (``PATH_*`` of :mod:`.contact_solve`).

No LCP answer is applied unchecked: each has passed :func:`lcp.lcp_error` at :data:`lcp.LCP_TOL` on the
problem it solves (:func:`.contact_solve.coulomb_rows`; the Drumwright models' by their own check). The step
LCP starts from the previous step's active set when the same contacts come back (warm start, checked;
Lemke otherwise), so a resting stack costs one factorization of a small banded block per step instead of
Lemke's pivots. A ``stat`` row longer than ``NSTAT`` also receives the step's contacts
(:func:`contact_motion.record_contacts`): ``RECORD`` columns per contact (world point, normal, impulse on body
A over the step: collision phases and step LCP), NaN after the last.
"""

import numpy as np

from .._jit import inline_jit, jit, view
from .collision import collide_space
from .contact import (constraint_nodes, contact_coefficients, contact_coupling, coupling_space, row_space,
                      row_velocities, tangent_basis)
from .delassus import delassus, delassus_space
from .contact_motion import NSTAT, RECORD  # noqa: F401 (the statistics' layout, as the stepper reads it)
from .contact_motion import (apply_impulses, body_energy, correct_positions, kinetic_energy,
                             memo_space, phase_rows, recall_state, record_contacts, record_impulses, restitution_scale,
                             row_velocities_of, slip_frames, step_contacts, step_positions)
from .contact_solve import (COULOMB, PATH_LEMKE, PATH_REGULARIZED, drumwright_rows, failed, keep_contacts,
                            lcp_space, same_contacts, solve_rows)
from .joints import OK, add_frame_rates, integrate_config
from .lcp import LCP_OK
from .loops import loop_rows
from .sim import passive_forces
from .articulated import aba_passes
from .kinematics import tree_positions, tree_velocities, world_poses
from .layout import (NB, NC, NCON_MAX, NG, NL, NODE_COUNT, NODE_CPAR, NODE_VID, NQ, NV, PSI, QDD, SCRATCH, UPS, VJ,
                     data_aba, data_contact, data_kinematics, data_loops, data_world, dfield, dint, model_extras,
                     model_geoms, model_loops, model_springs, model_tree)

LCP_FAILED = 18
"""Status code: an LCP of the step was not solved (the solver's code is in ``stat[3]`` of the step)."""

TOO_MANY_CONTACTS = 19
"""Status code: collision detection found more contacts than the buffers hold."""

PENETRATED = 22
"""Status code: the step left a penetration deeper than ``prm[16]`` (seen by the next step's collision
detection, or by :func:`max_penetration` after the last step)."""

ENERGY_GAINED = 23
"""Status code: the step's impulses added kinetic energy beyond ``prm[17]`` (:func:`contact_step`, step 7)."""

NPRM = 20
"""Length of the parameters ``prm`` (module docstring) at the start of the ``settings`` of
:func:`.contact_call.contact_rollout`."""

FIXED_PYRAMID, SLIP_PYRAMID = 0, 1
"""``prm[14]``: the friction pyramid's tangents from the normal alone (:func:`contact.tangent_basis`, Jain
2014's fixed pyramid), or turned so that ``t1`` points along the contact's predicted slip
(:func:`slip_frames`)."""

VELOCITY_CORRECTION, SPLIT_CORRECTION = 0, 1
"""``prm[15]``: penetration removed through the velocity (normal rows ask ``n . v+ >= -erp gap / dt``,
Jain 2014), or by a separate position correction that leaves the velocities alone (:func:`correct_positions`)."""

POISSON, ENERGETIC = 0, 1
"""``prm[18]``: the restitution impulse of Jain 2014 Eq. 56 as written (Poisson's hypothesis), or scaled back
where it would make a collision end with more kinetic energy than it began with (:func:`restitution_scale`)."""

PENETRATION_SLOP = 1e-7
"""Penetration (m) below which the split position correction is skipped (round-off of resting contacts)."""

TARGET_ROUNDOFF = 1e-12
"""A row target below this times the largest free velocity component of the step is round-off and set to 0:
the rows of two faces welded together move by 1e-18 m/s, and an LCP whose targets are all round-off cannot
be checked relative to them."""

TOUCHING_GAP = 1e-7
"""Open gap (m) up to which a contact counts as touching in the step LCP (its normal row asks
``n . v+ >= 0``, not ``>= -gap / dt``). The gaps of a face resting on a face differ by round-off (1e-13 to
1e-9 m); as ``gap / dt`` targets they would make the step LCP of its coplanar contacts inconsistent at the
level of the answer check (a rigid face cannot meet targets that are not affine over it), and Lemke's
answers to such LCPs miss :data:`lcp.LCP_TOL`."""

MAX_COLLISION_PHASES = 8
"""Collision phases per step: after one, contacts that its impulses set closing run the next (a Newton's
cradle passes its impulse along the chain, one phase per contact)."""

ENERGY_FLOOR = 1e-12
"""Kinetic energy (J) a step's impulses may add beyond ``prm[17]`` times the step's kinetic energy: the
round-off of a step whose bodies rest (kinetic energy near zero)."""


@jit
def phase_solved(st, info, stat, warm):
    """Account a collision phase's LCP (``info`` of :func:`.contact_solve.solve_rows`) in the step's
    statistics; False when it was not solved (``stat`` then describes it, :func:`.contact_solve.failed`, and
    the warm start is dropped)."""
    stat[4] += info[0]
    stat[6] = max(stat[6], info[1])
    stat[8] += info[2]
    stat[10] = max(stat[10], info[4])
    if st == LCP_OK:
        return True
    failed(stat, st, info)
    warm[0] = -1.0
    return False


@inline_jit
def carve(buf, at, shape):
    """``(view, at + size)``: the array of ``shape`` (a tuple) at ``buf[at]`` and the offset past it (a step's
    scratch taken from its workspace, :func:`step_space`)."""
    n = 1
    for d in shape:
        n *= d
    return view(buf, at, shape), at + n


@jit
def step_space(mi, mf, nf):
    """``(floats, ints)``: the scratch a :func:`contact_step` of the model ``(mi, mf)`` takes from its two
    workspaces ``ws``, ``wi``, for the most contacts ``K = ncon_max`` its geom pairs can produce: the memo of
    a state (:func:`.contact_motion.memo_space`, first, kept from call to call) and collision detection's
    (:func:`.collision.collide_space`); per contact its frame, coefficients and collision state; per
    constraint node (two a loop or contact) its pose, selection and rows (:func:`.contact.row_space`); per row
    its coefficients, velocities, target and impulse; per body the row-velocity and impulse passes and the
    centre-of-mass shifts; the contact pairs that couple (:func:`.contact.coupling_space`); the int scratch of
    the step LCP with ``nf`` pyramid edges (:func:`.contact_solve.lcp_space`); the scratch of the Delassus
    matrix (:func:`.delassus.delassus_space`)."""
    nb, nq, nv, nc, nl, K = mi[NB], mi[NQ], mi[NV], mi[NC], mi[NL], mi[NCON_MAX]
    nr = nc + 3 * K
    cap = 2 * (nl + K)
    df, di = delassus_space(nb, nv, cap, nr)
    cf, ci = collide_space(mi[NG], model_geoms(mi, mf)[11])
    return (memo_space(nq) + cf + 15 + nq + 6 * nv + 13 * K + 48 * cap + row_space(cap) + 16 * nr + 33 * nb + df,
            ci + 3 * cap + 1 + 2 * nr + 3 * K + 1 + coupling_space(nb, K) + lcp_space(nc, K, nf)[1] + di)


@inline_jit
def step_scratch(mi, mf, ws, wi):
    """``(memo, cf, ci)``: the head of a :func:`contact_step`'s workspaces (:func:`step_space`), the memo of a state
    (:func:`.contact_motion.memo_space`, kept from call to call) and collision detection's float and int scratch
    (:func:`.collision.collide_space`), as the step and the rollout's penetration check take them."""
    nm = memo_space(mi[NQ])
    nf, ni = collide_space(mi[NG], model_geoms(mi, mf)[11])
    return view(ws, 0, nm), view(ws, nm, nf), view(wi, 0, ni)


@jit
def solver_space(nb, k, nf):
    """The size of the workspace ``wl`` a :func:`contact_step` with ``nb`` loop rows and ``k`` contacts (``nf``
    pyramid edges) uses without allocating: the Delassus matrix of its ``nr = nb + 3 k`` rows, then the step
    LCP's vectors and the warm start's block of up to ``nr`` rows (:func:`.contact_solve.coulomb_rows`). Sized
    by the rows of a step, not the model's ``ncon_max`` (the Delassus matrix of every contact a model's pairs
    could produce is too large to keep); a step with more rows allocates what does not fit."""
    nr = nb + 3 * k
    return nr * nr + lcp_space(nb, k, nf)[0]


@jit
def contact_step(mi, mf, df, di, geom_margin, prm, q, qd, tau, fext, qn, qdn, stat, warm, keep, ws, wi, wl):
    """One contact step (module docstring) of the model ``(mi, mf)`` with Data ``(df, di)`` from ``(q, qd)``
    to ``(qn, qdn)``; ``geom_margin``: the geoms' margins widened by the settings'. ``stat`` (NSTAT,)
    receives the step statistics; ``warm`` (:func:`.contact_solve.warm_size`) carries the step LCP's answer
    from step to step (:func:`.contact_solve.coulomb_rows` starts from it when the same contacts come back);
    an LCP that is not solved is written to ``keep`` when it has room (:func:`.contact_solve.keep_lcp`);
    ``ws``, ``wi``: float and int workspaces of :func:`step_space`; ``wl``: the Delassus matrix's and the
    step LCP's (:func:`solver_space`; what does not fit is allocated). Inputs are assumed checked
    (:func:`.contact_call.contact_rollout` checks them). Returns ``OK``, ``TOO_MANY_CONTACTS``, ``LCP_FAILED`` (the
    solver status in ``stat[3]``, the failed LCP's size, residual and path in ``stat[2]``, ``stat[10]``,
    ``stat[11]``), ``ENERGY_GAINED`` or an ABA status."""
    (body_parent, jnt_type, jnt_qadr, jnt_vadr, jnt_nv, jnt_axis, jnt_axis2, jnt_pitch, body_Xtree_E, body_Xtree_r,
     body_I, dof_S, dof_armature) = model_tree(mi, mf)
    dof_stiffness, dof_damping, dof_springref = model_springs(mi, mf)
    (frame_body, frame_E, frame_r, loop_frame_a, loop_frame_b, loop_kind, loop_sel, loop_dim, loop_row, loop_axis,
     loop_axis2, loop_twist) = model_loops(mi, mf)
    (geom_body, geom_type, geom_size, geom_E, geom_r, geom_mu, geom_restitution, _, geom_corners, pair_geom,
     geom_vertadr, geom_vertnum, mesh_vert) = model_geoms(mi, mf)
    gravity_accel = model_extras(mi, mf)[1]
    X_E, X_r, S, v, c, oR, op = data_kinematics(mi, df)
    IA, pA, U, D, Dinv, u, a = data_aba(mi, df)
    oS, _, _, oU = data_world(mi, df)
    loop_R, loop_p, loop_Q, loop_phi, loop_cv, loop_gamma = data_loops(mi, df)
    gR, gp, con_geom, con_body, con_point, con_normal, con_gap, con_mu, con_eps = data_contact(mi, df, di)
    nbody, nv, nl = mi[NB], mi[NV], mi[NL]
    vJ = dfield(mi, df, VJ, 6)
    qdd = dfield(mi, df, QDD, nv)
    Ups = dfield(mi, df, UPS, (nbody, 6, 6))
    Psi = dfield(mi, df, PSI, (nbody, 6, 6))
    T = dfield(mi, df, SCRATCH, (4, 6, 6))
    node_count, node_cpar, node_vid = dint(mi, di, NODE_COUNT, nbody), dint(mi, di, NODE_CPAR, nbody), dint(
        mi, di, NODE_VID, nbody)
    dt = prm[0]
    nf = int(prm[1])
    erp = prm[2]
    loop_erp = prm[3]
    split = int(prm[15]) == SPLIT_CORRECTION
    stat[:] = 0.0
    # the memo of a state, the scratch of collision detection, the velocities and the bodies
    memo, cf, ci = step_scratch(mi, mf, ws, wi)
    o, oi = memo.shape[0] + cf.shape[0], ci.shape[0]
    R, o = carve(ws, o, (3, 3))
    tau_s, o = carve(ws, o, (nv,))
    qf, o = carve(ws, o, (nv,))
    qm, o = carve(ws, o, (nv,))
    dq, o = carve(ws, o, (nv,))
    qc, o = carve(ws, o, (mi[NQ],))
    info, o = carve(ws, o, (6,))
    vb, o = carve(ws, o, (nbody, 6))
    cb, o = carve(ws, o, (nbody, 6))
    fi, o = carve(ws, o, (nbody, 6))
    pAi, o = carve(ws, o, (nbody, 6))
    ai, o = carve(ws, o, (nbody, 6))
    ui, o = carve(ws, o, (nv,))
    dqi, o = carve(ws, o, (nv,))
    shift, o = carve(ws, o, (nbody, 3))
    # 1. free accelerations and articulated factors
    # (the kinematics of q and its contacts left by the call that ended at q, Simulator.step's next call)
    recalled = recall_state(memo, q)
    if not recalled:
        tree_positions(body_parent, jnt_type, jnt_qadr, jnt_vadr, jnt_axis, jnt_axis2, jnt_pitch, body_Xtree_E,
                       body_Xtree_r, dof_S, q, X_E, X_r, S)
        world_poses(body_parent, X_E, X_r, oR, op)
    passive_forces(jnt_qadr, jnt_vadr, jnt_nv, dof_stiffness, dof_damping, dof_springref, q, qd, tau, tau_s)
    tree_velocities(body_parent, jnt_type, jnt_vadr, jnt_nv, jnt_axis2, X_E, X_r, S, qd, v, c, T[2, 1])
    st = aba_passes(body_parent, jnt_type, jnt_vadr, jnt_nv, jnt_axis, dof_armature, body_I, X_E, X_r, S, v, c, tau_s,
                    fext, gravity_accel, IA, pA, U, D, Dinv, u, a, qdd, T)
    if st != OK:
        return st
    # 2. contacts, rows and the Delassus matrix
    k = step_contacts(geom_body, geom_type, geom_size, geom_E, geom_r, geom_mu, geom_restitution, geom_margin,
                      geom_corners, pair_geom, geom_vertadr, geom_vertnum, mesh_vert, oR, op, gR, gp,
                      con_geom, con_body, con_point, con_normal, con_gap, con_mu, con_eps, recalled, memo, cf, ci)
    if k > con_gap.shape[0]:
        return TOO_MANY_CONTACTS
    stat[0] = k
    for i in range(k):
        stat[7] = max(stat[7], -con_gap[i])
    record_contacts(stat, k, con_point, con_normal)
    nb = loop_row[nl]
    for m in range(nv):
        qdn[m] = qd[m] + dt * qdd[m]
    add_frame_rates(jnt_type, jnt_vadr, body_I, qd, dt, qdn)
    qf[:] = qdn  # the free velocity: no impulse
    if k == 0 and nb == 0:
        step_positions(jnt_type, jnt_qadr, jnt_vadr, body_I, q, qd, qf, qdn, dt, qn, R, shift)
        return OK
    if nl > 0:
        loop_rows(frame_body, frame_E, frame_r, loop_frame_a, loop_frame_b, loop_kind, loop_sel, loop_dim, loop_row,
                  loop_axis, loop_axis2, loop_twist, oR, op, v, a, gravity_accel, loop_R, loop_p, loop_Q, loop_phi,
                  loop_cv, loop_gamma)
    # the scratch of the contacts, the constraint nodes and the rows
    nr = nb + 3 * k
    cap = 2 * (nl + k)
    con_frame, o = carve(ws, o, (k, 3, 3))
    mu, o = carve(ws, o, (k,))
    eps, o = carve(ws, o, (k,))
    approach, o = carve(ws, o, (k,))
    back, o = carve(ws, o, (k,))
    wE, o = carve(ws, o, (cap, 3, 3))
    wr, o = carve(ws, o, (cap, 3))
    node_sel, o = carve(ws, o, (cap, 6, 6))
    row_coef, o = carve(ws, o, (nr, 2, 6))
    vr, o = carve(ws, o, (nr,))
    vfree, o = carve(ws, o, (nr,))
    tgt, o = carve(ws, o, (nr,))
    lam, o = carve(ws, o, (nr,))
    rsc, o = carve(ws, o, (row_space(cap),))
    node_body, oi = carve(wi, oi, (cap,))
    node_dim, oi = carve(wi, oi, (cap,))
    node_row, oi = carve(wi, oi, (cap + 1,))
    row_node, oi = carve(wi, oi, (nr, 2))
    cstart, oi = carve(wi, oi, (k + 1,))
    colliding, oi = carve(wi, oi, (k,))  # 0 or 1: the contact collides in this phase, or did in one
    collided, oi = carve(wi, oi, (k,))
    cpl, oi = carve(wi, oi, (coupling_space(nbody, k),))
    lsi, oi = carve(wi, oi, (lcp_space(nb, k, nf)[1],))
    for i in range(k):
        tangent_basis(con_normal, con_frame, i)
        mu[i] = con_mu[i] if prm[5] < 0.0 else prm[5]
        eps[i] = con_eps[i] if prm[6] < 0.0 else prm[6]
    nn = constraint_nodes(frame_body, loop_frame_a, loop_frame_b, loop_dim, loop_row, loop_R, loop_p, loop_Q,
                          con_body, con_point, con_frame, k, node_body, wE, wr, node_sel, node_dim, node_row, row_node,
                          row_coef)
    free_rows = False  # vfree holds the row velocities of the free velocity
    if int(prm[14]) == SLIP_PYRAMID and k > 0:
        # tangents along the slip of the free velocity, then the rows again
        row_velocities_of(body_parent, jnt_type, jnt_vadr, jnt_nv, jnt_axis2, X_E, X_r, S, qdn, vb, cb, vJ, oR, op,
                          node_body, wE, wr, node_sel, node_dim, nn, row_node, row_coef, vr, rsc)
        slip_frames(k, nb, vr, con_frame)
        vfree[:] = vr
        free_rows = True
        contact_coefficients(con_body, con_frame, nb, k, row_coef)
    cadj = contact_coupling(body_parent, con_body, k, cstart, cpl)
    if nr * nr <= wl.shape[0]:
        Wd, ls = view(wl, 0, (nr, nr)), view(wl, nr * nr, wl.shape[0] - nr * nr)
    else:
        Wd, ls = np.empty((nr, nr)), wl
    dfs, dis = delassus_space(nbody, nv, nn, nr)
    paths = delassus(body_parent, jnt_vadr, jnt_nv, S, U, Dinv, oR, op, oS, oU, node_count, node_cpar, node_vid,
                     Ups, Psi, node_body, wE, wr, node_sel, node_dim, node_row, nn, row_node, row_coef, Wd,
                     view(ws, o, dfs), view(wi, oi, dis))
    Y = view(ws, o, (nr if paths else 0, nv))  # the rows' joint forces, when W came by paths
    info[:] = 0.0
    # 3. collisions: compression (Eq. 54) and decompression (Eq. 57) at Delta_t = 0 among the contacts with
    # restitution that close within the step faster than impact_velocity and those already touching; the
    # phases repeat while their impulses set further contacts closing
    qm[:] = qd
    colliding[:] = 0
    collided[:] = 0
    approach[:] = 0.0  # approach speed of each contact when it collided
    pre = 0.0  # the part of the step whose free acceleration qm already holds
    gain = 0.0  # kinetic energy the impulses add (step 7)
    restitution = False  # without it no contact collides: no phase
    for i in range(k):
        restitution = restitution or eps[i] > 0.0
    for phase in range(MAX_COLLISION_PHASES if restitution else 0):
        if phase == 0:  # qm = qd, whose body velocities v the ABA of step 1 left
            row_velocities(v, oR, op, node_body, wE, wr, node_sel, node_dim, nn, row_node, row_coef, vr, rsc)
        else:
            row_velocities_of(body_parent, jnt_type, jnt_vadr, jnt_nv, jnt_axis2, X_E, X_r, S, qm, vb, cb, vJ, oR,
                              op, node_body, wE, wr, node_sel, node_dim, nn, row_node, row_coef, vr, rsc)
        any_collision = False
        tc = dt
        for i in range(k):
            vn = vr[nb + 3 * i]
            colliding[i] = 1 if eps[i] > 0.0 and vn < -prm[4] and con_gap[i] + dt * vn < 0.0 else 0
            if colliding[i]:
                tc = min(tc, max(con_gap[i], 0.0) / -vn)
                any_collision = True
                collided[i] = 1
        if not any_collision:
            break
        if split and stat[5] == 0.0:
            # the impact at its time tc within the step: the free acceleration acts before it for tc
            pre = tc
            for m in range(nv):
                qm[m] += tc * qdd[m]
            row_velocities_of(body_parent, jnt_type, jnt_vadr, jnt_nv, jnt_axis2, X_E, X_r, S, qm, vb, cb, vJ, oR,
                              op, node_body, wE, wr, node_sel, node_dim, nn, row_node, row_coef, vr, rsc)
        for i in range(k):
            if colliding[i]:
                approach[i] = max(approach[i], -vr[nb + 3 * i])
        stat[5] += 1.0
        ke0 = kinetic_energy(body_parent, jnt_type, jnt_vadr, jnt_nv, jnt_axis2, X_E, X_r, S, body_I, dof_armature, qm,
                             vb, cb, vJ)
        ks, idx = phase_rows(nb, k, colliding, con_gap)
        every = np.empty(0, dtype=np.int64)  # the phase's contacts: every pair formed
        ns = idx.shape[0]
        Ws = np.empty((ns, ns))
        for r in range(ns):
            for c in range(ns):
                Ws[r, c] = Wd[idx[r], idx[c]]
        v0 = np.empty(ns)
        vc = np.empty(ns)
        pc = np.empty(ns)
        pd = np.empty(ns)
        mus = np.empty(ks)
        for j in range(ks):
            mus[j] = mu[(idx[nb + 3 * j] - nb) // 3]
        for r in range(ns):
            v0[r] = vr[idx[r]]
        # compression (Eq. 54): the contacts stop approaching
        st = solve_rows(Ws, v0, nb, ks, nf, mus, prm, pc, info, np.empty(0), False, keep, every, every, ls, lsi)
        if not phase_solved(st, info, stat, warm):
            return LCP_FAILED
        for r in range(ns):
            acc = 0.0
            for c in range(ns):  # a loop: no BLAS threads for a small product
                acc += Ws[r, c] * pc[c]
            vc[r] = v0[r] + acc
        # decompression (Eq. 57) with the recovered impulse theta = eps p_n (Eq. 56), applied with it (Eq. 58)
        theta = np.zeros(ns)
        for j in range(ks):
            theta[nb + 3 * j] = eps[(idx[nb + 3 * j] - nb) // 3] * pc[nb + 3 * j]
        vs = np.empty(ns)
        for r in range(ns):
            acc = 0.0
            for c in range(ns):
                acc += Ws[r, c] * theta[c]
            vs[r] = vc[r] + acc
        st = solve_rows(Ws, vs, nb, ks, nf, mus, prm, pd, info, np.empty(0), False, keep, every, every, ls, lsi)
        if not phase_solved(st, info, stat, warm):
            return LCP_FAILED
        pd += theta
        s_d = restitution_scale(Ws, v0, pc, vc, pd) if int(prm[18]) == ENERGETIC else 1.0
        lam[:] = 0.0
        for r in range(ns):
            lam[idx[r]] = pc[r] + s_d * pd[r]
        apply_impulses(body_parent, jnt_vadr, jnt_nv, X_E, X_r, S, U, Dinv, oR, op, node_body, wE, wr, node_sel,
                       node_dim, nn, row_node, row_coef, lam, qm, fi, pAi, ai, ui, dqi, rsc, Y)
        record_impulses(stat, nb, k, lam, con_frame)
        gain += kinetic_energy(body_parent, jnt_type, jnt_vadr, jnt_nv, jnt_axis2, X_E, X_r, S, body_I, dof_armature,
                               qm, vb, cb, vJ) - ke0
    # 4. the step LCP (Eq. 53)
    for m in range(nv):
        qdn[m] = qm[m] + (dt - pre) * qdd[m]
    add_frame_rates(jnt_type, jnt_vadr, body_I, qd, dt, qdn)
    if stat[5] == 0.0 and free_rows:  # no collision: qdn is the free velocity of step 2
        vr[:] = vfree
    else:
        row_velocities_of(body_parent, jnt_type, jnt_vadr, jnt_nv, jnt_axis2, X_E, X_r, S, qdn, vb, cb, vJ, oR, op,
                          node_body, wE, wr, node_sel, node_dim, nn, row_node, row_coef, vr, rsc)
    for r in range(nb):
        tgt[r] = vr[r] + loop_erp * loop_phi[r] / dt
    for i in range(k):
        # a contact that collided in the step reached its surface at the impact; the split correction of step 6
        # brings it back there (back[i]), so its gap allows no approach after it: w = v+_n >= 0
        g = 0.0 if split and collided[i] else con_gap[i]
        r = nb + 3 * i
        tgt[r] = vr[r] + (g / dt if g > TOUCHING_GAP else (erp * g / dt if g < 0.0 and not split else 0.0))
        tgt[r + 1] = vr[r + 1]
        tgt[r + 2] = vr[r + 2]
    vscale = 0.0
    for m in range(nv):
        vscale = max(vscale, abs(qdn[m]))
    for r in range(nr):  # round-off of the step's velocities is no target (two welded faces: v = 1e-18)
        if abs(tgt[r]) < TARGET_ROUNDOFF * vscale:
            tgt[r] = 0.0
    ke_f = body_energy(body_I, dof_armature, qdn, vb)  # vb: the body velocities of qdn (either branch above)
    if int(prm[12]) == COULOMB:
        hot = prm[19] > 0.0 and same_contacts(warm, k, con_geom)
        st = solve_rows(Wd, tgt, nb, k, nf, mu, prm, lam, info, warm[1 + 2 * con_gap.shape[0]:], hot, keep, cstart,
                        cadj, ls, lsi)
    else:
        st = drumwright_rows(Wd, tgt, nb, k, nf, mu, con_gap, prm, lam, info, keep)
    if st != LCP_OK:
        failed(stat, st, info)
        warm[0] = -1.0
        return LCP_FAILED
    keep_contacts(warm, k, con_geom)
    stat[2] = info[3]
    stat[3] = info[0]
    stat[6] = max(stat[6], info[1])
    stat[8] += info[2]
    stat[10] = max(stat[10], info[4])
    stat[11] = info[5]
    for i in range(k):
        if lam[nb + 3 * i] > 0.0:
            stat[1] += 1.0
    apply_impulses(body_parent, jnt_vadr, jnt_nv, X_E, X_r, S, U, Dinv, oR, op, node_body, wE, wr, node_sel,
                   node_dim, nn, row_node, row_coef, lam, qdn, fi, pAi, ai, ui, dqi, rsc, Y)
    record_impulses(stat, nb, k, lam, con_frame)
    # 7. (checked before the positions move) the impulses' work: the step LCP's impulse lam at the free
    # velocity v_f does lam . (v_f + v+) / 2 = lam . v+ - lam^T W lam / 2 <= lam . v+, and lam . v+ <= 0 but
    # for the rows whose target has a bias b (w = v+ + b): -lam b, which the gap of an open contact makes
    # negative and only the velocity correction of a penetration and the loop rows' erp can make positive
    allow = 0.0
    for r in range(nb):
        allow += max(0.0, -lam[r] * (tgt[r] - vr[r]))
    for i in range(k):
        r = nb + 3 * i
        allow += max(0.0, -lam[r] * (tgt[r] - vr[r]))
    for b in range(nbody):  # the body velocities of qdn: those before the impulse and the pass's changes a_i
        for m in range(6):
            vb[b, m] += ai[b, m]
    ke_n = body_energy(body_I, dof_armature, qdn, vb)
    gain += ke_n - ke_f - allow
    stat[9] = gain
    if gain > prm[17] * (ke_n + ke_f) + ENERGY_FLOOR:
        return ENERGY_GAINED
    back[:] = 0.0  # how far each collided contact is brought back in step 6
    if stat[5] > 0.0:
        row_velocities_of(body_parent, jnt_type, jnt_vadr, jnt_nv, jnt_axis2, X_E, X_r, S, qdn, vb, cb, vJ, oR, op,
                          node_body, wE, wr, node_sel, node_dim, nn, row_node, row_coef, vr, rsc)
        for i in range(k):
            if collided[i] and approach[i] > 0.0:
                back[i] = con_gap[i] * (1.0 + max(vr[nb + 3 * i], 0.0) / approach[i])
    # 5. positions; free joints' velocities rewritten in their new body axes
    step_positions(jnt_type, jnt_qadr, jnt_vadr, body_I, q, qd, qf, qdn, dt, qn, R, shift)
    if split and (stat[7] > PENETRATION_SLOP or stat[5] > 0.0):
        # 6. position correction (split impulse): positions only, computed at q and applied at q+
        st = correct_positions(Wd, nb, k, con_gap, collided, back, prm, lam, info, keep)
        if st != LCP_OK:
            stat[3] = st
            stat[2] = nb + k
            stat[10] = info[2]
            stat[11] = PATH_LEMKE if info[1] == 0.0 else PATH_REGULARIZED
            warm[0] = -1.0
            return LCP_FAILED
        stat[10] = max(stat[10], info[2])
        dq[:] = 0.0
        apply_impulses(body_parent, jnt_vadr, jnt_nv, X_E, X_r, S, U, Dinv, oR, op, node_body, wE, wr, node_sel,
                       node_dim, nn, row_node, row_coef, lam, dq, fi, pAi, ai, ui, dqi, rsc, Y)
        qc[:] = qn
        integrate_config(jnt_type, jnt_qadr, jnt_vadr, qc, dq, dt, qn, R)
    return OK
