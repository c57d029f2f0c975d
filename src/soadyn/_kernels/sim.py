"""Time stepping: configuration integration, the configuration rate, energies, frame trajectories and whole
rollouts in one kernel call (docs/architecture.md, Kernels).

Status codes of :func:`rollout` and :func:`loop_rollout`: the joint-kernel codes of :mod:`.joints` plus
``DIVERGED`` (and ``NOT_CLOSED`` for projection), with the number ``n + 1`` of the step ``n`` that failed
in bits 40 and up (``0``: the initial state was rejected before any step). States ``Q[0..n]`` are valid
when step ``n`` fails.

The kernels called from Python take ``(model_int, model_float, data_float[, data_int], inputs...)`` and
open the Model and Data fields they read with the ``layout`` accessors; the passes they share with the
contact rollout (:func:`passive_forces`, :func:`step_inputs`) take plain arrays.
"""

import numpy as np

from .._jit import jit, view
from .frames import frame_world_pose
from .joints import (BAD_FEXT, BAD_IN, OK, add_frame_rates, all_finite, check_q, config_rate, normalize_config,
                     step_joints)
from .layout import (FRAME_R_, GRAVITY, MODEL_FLOAT_OFF, SCRATCH, VJ, data_aba, data_kinematics, data_loops,
                     data_multipliers, data_nodes, data_world, dfield, model_extras, model_loops, model_springs,
                     model_tree)
from .loops import loop_rows, projection_passes, ta_passes
from .spatial import mul6
from .articulated import aba_core
from .kinematics import check_state, tree_positions, tree_velocities, world_poses

SEMI_IMPLICIT, RK4 = 0, 1
"""Integration methods of :func:`rollout`."""

DIVERGED = 16
"""Status code: a step produced a non-finite state from finite inputs."""

NOT_CLOSED = 17
"""Status code: projection error control did not bring ``max |phi|`` below its tolerance."""

STEP_SHIFT = 40
"""Bit position of ``failing step + 1`` in a :func:`rollout` status."""


@jit
def step_input(x, n):
    """Row ``n`` of a per-step input schedule, or its only row for a constant input."""
    return x[n if x.shape[0] > 1 else 0]


@jit
def step_inputs(tau, fext, n):
    """``(status, tau_n, fext_n)``: the joint forces and body forces of step ``n`` (:func:`step_input`) and
    ``OK``, or ``BAD_IN`` / ``BAD_FEXT | (n + 1) << STEP_SHIFT`` when they are not finite."""
    tau_n = step_input(tau, n)
    fext_n = step_input(fext, n)
    if not all_finite(tau_n):
        return BAD_IN | ((n + 1) << STEP_SHIFT), tau_n, fext_n
    if not all_finite(fext_n):
        return BAD_FEXT | ((n + 1) << STEP_SHIFT), tau_n, fext_n
    return OK, tau_n, fext_n


@jit
def stage_state(jtype, qadr, q, qd, kq, kv, stage, dt, qs, vs):
    """The state at which RK4 stage ``stage`` evaluates the dynamics: ``(q, qd)`` for stage 0, else
    ``(q, qd) + h k[stage - 1]`` with ``h = dt/2, dt/2, dt`` and the quaternions normalized."""
    if stage == 0:
        qs[:] = q
        vs[:] = qd
        return
    h = dt if stage == 3 else 0.5 * dt
    for k in range(q.shape[0]):
        qs[k] = q[k] + h * kq[stage - 1, k]
    for k in range(qd.shape[0]):
        vs[k] = qd[k] + h * kv[stage - 1, k]
    normalize_config(jtype, qadr, qs)


@jit
def advance(method, jtype, qadr, vadr, I, q, qd, kq, kv, dt, qn, qdn, R):
    """The new state ``(qn, qdn)`` from the stage rates: semi-implicit Euler ``qd+ = qd + dt (kv[0] + rho)``,
    ``q' = q (+) qd+ dt`` with free bodies' velocity-product term integrated exactly
    (:func:`joints.add_frame_rates`, :func:`joints.step_joints`; ``I`` (nj, 6, 6) the inertia of each
    joint's successor body); RK4 ``y' = y + dt/6 (k0 + 2 k1 + 2 k2 + k3)`` with the quaternions
    normalized."""
    if method == SEMI_IMPLICIT:
        for k in range(qd.shape[0]):
            qdn[k] = qd[k] + dt * kv[0, k]
        add_frame_rates(jtype, vadr, I, qd, dt, qdn)
        step_joints(jtype, qadr, vadr, I, q, qdn, dt, qn, R)
        return
    for k in range(q.shape[0]):
        qn[k] = q[k] + dt / 6.0 * (kq[0, k] + 2.0 * kq[1, k] + 2.0 * kq[2, k] + kq[3, k])
    for k in range(qd.shape[0]):
        qdn[k] = qd[k] + dt / 6.0 * (kv[0, k] + 2.0 * kv[1, k] + 2.0 * kv[2, k] + kv[3, k])
    normalize_config(jtype, qadr, qn)


@jit
def passive_forces(qadr, vadr, jnv, stiffness, damping, springref, q, qd, tau, out):
    """Applied joint forces with the joints' passive spring-dampers added: ``out = tau + tau_passive``,
    ``tau_passive_k = -stiffness_k (q_a - springref_k) - damping_k qd_k`` for the dof ``k`` (``q_a`` its
    coordinate, ``a = qadr[i]``) of every 1-dof joint ``i`` (revolute, prismatic, helical: ``nq = nv = 1``);
    the dofs of other joints pass ``tau`` through (the model keeps their parameters zero). ``stiffness``,
    ``damping``, ``springref`` (nv,) are ``Model.dof_stiffness, dof_damping, dof_springref``; ``out`` (nv,)
    may not alias ``tau``. Call it wherever a kernel forms the joint forces of a dynamics evaluation (every
    integrator stage), in TREE coordinates: an embedded (CE) model maps the result with ``G^T`` like any
    other tree force."""
    for k in range(tau.shape[0]):
        out[k] = tau[k]
    for i in range(qadr.shape[0]):
        if jnv[i] == 1:
            k = vadr[i]
            out[k] -= stiffness[k] * (q[qadr[i]] - springref[k]) + damping[k] * qd[k]


@jit
def rollout(model_int, model_float, data_float, tau, fext, dt, method, Q, QD):
    """Integrate ``nsteps = Q.shape[0] - 1`` steps of the tree dynamics ``qdd = ABA(q, qd, tau, f_ext)``
    (RBDA Table 7.1) from ``(q0, qd0) = (Q[0], QD[0])``, writing the states ``Q[n], QD[n]`` (``t = n dt``)
    for ``n = 1..nsteps``.

    Inputs are held constant during a step (zero-order hold): ``tau`` (ntau, nv) and ``fext``
    (nfext, nb, 6) give row ``n`` for step ``n``, or their only row when they have one. Every stage adds
    the joint springs and dampers ``Model.dof_stiffness, dof_damping, dof_springref`` at the stage state
    (:func:`passive_forces`).

    ``method`` SEMI_IMPLICIT (semi-implicit Euler in velocity form on the joint manifolds)::

        qd' = qd + dt (qdd(q, qd) + rho),      q' = q (+) qd' dt   (joints.step_joints)

    first order; it is the symplectic Euler method (Hairer, Lubich & Wanner, Geometric Numerical
    Integration, Sec. VI.3, Theorem 3.3) when the mass matrix is constant (e.g. one hinge), so the energy
    error stays bounded there; with a configuration-dependent ``M(q)`` the velocity form is not
    symplectic and the energy drifts by O(dt) per unit time. FREE joints, whose velocities are body-axes
    coordinates, step the centre-of-mass velocity in the step's body axes with its classical acceleration
    (``rho``, :func:`joints.add_frame_rates`), move the centre of mass on a line and turn the body about
    it, then rewrite the velocity in the new body axes exactly (:func:`joints.step_free_joint`): the
    explicit update of the velocity-product term ``-w x v`` would scale ``|v|`` by
    ``sqrt(1 + |w|^2 dt^2)`` every step. Free flight with a constant angular velocity (a sphere, a body
    spinning about a principal axis) is then exact to round-off. SPHERICAL joints need no such step: their
    body-axes angular velocity is its own rotation axis. The gyroscopic term ``w x I w`` of a tumbling
    asymmetric body stays explicit (first order).

    ``method`` RK4 (classical Runge-Kutta, Hairer, Norsett & Wanner I, Sec. II.1, Table 1.2) on
    ``y = (q, qd)`` with ``dq/dt`` from :func:`config_rate`::

        k1 = f(y), k2 = f(y + dt/2 k1), k3 = f(y + dt/2 k2), k4 = f(y + dt k3),
        y' = y + dt/6 (k1 + 2 k2 + 2 k3 + k4)

    where ``f`` evaluates the dynamics at the stage configuration with unit quaternions (a vector field
    that agrees with the exact one on the unit sphere and keeps it invariant, so RK4 keeps order 4), and
    the quaternions of ``y'`` are normalized (a projection step, GNI Sec. IV.4, order preserving).

    Returns ``OK``, or an error code ``| (n + 1) << STEP_SHIFT`` for the failing step ``n`` (``Q[0..n]``
    valid): ``BAD_IN``/``BAD_FEXT`` when ``tau``/``fext`` of step ``n`` are not finite, ``SINGULAR | i << 8``
    from ABA, ``DIVERGED`` when the new state is not finite. An invalid initial state returns the
    :func:`tree.check_state` code with step field 0."""
    mi, mf, df = model_int, model_float, data_float
    parent, jtype, qadr, vadr, jnv, axis, axis2, pitch, XT_E, XT_r, I, S0, armature = model_tree(mi, mf)
    stiffness, damping, springref = model_springs(mi, mf)
    a0 = model_extras(mi, mf)[1]
    X_E, X_r, S, v, c, oR, op = data_kinematics(mi, df)
    IA, pA, U, D, Dinv, u, a = data_aba(mi, df)
    st = check_state(jtype, qadr, Q[0], QD[0])
    if st != OK:
        return st
    nq = Q.shape[1]
    nv = QD.shape[1]
    nsteps = Q.shape[0] - 1
    T = dfield(mi, df, SCRATCH, (4, 6, 6))
    R = np.empty((3, 3))
    qs = np.empty(nq)
    vs = np.empty(nv)
    kq = np.empty((4, nq))
    kv = np.empty((4, nv))
    tau_s = np.empty(nv)
    for n in range(nsteps):
        q = Q[n]
        qd = QD[n]
        st, tau_n, fext_n = step_inputs(tau, fext, n)
        if st != OK:
            return st
        for stage in range(1 if method == SEMI_IMPLICIT else 4):
            stage_state(jtype, qadr, q, qd, kq, kv, stage, dt, qs, vs)
            passive_forces(qadr, vadr, jnv, stiffness, damping, springref, qs, vs, tau_n, tau_s)
            st = aba_core(parent, jtype, qadr, vadr, jnv, axis, axis2, pitch, XT_E, XT_r, I, S0, armature, qs, vs,
                          tau_s, fext_n, a0, X_E, X_r, S, v, c, IA, pA, U, D, Dinv, u, a, kv[stage], T)
            if st != OK:
                return st | ((n + 1) << STEP_SHIFT)
            if method != SEMI_IMPLICIT:
                config_rate(jtype, qadr, vadr, qs, vs, kq[stage], R)
        advance(method, jtype, qadr, vadr, I, q, qd, kq, kv, dt, Q[n + 1], QD[n + 1], R)
        if not (all_finite(Q[n + 1]) and all_finite(QD[n + 1])):
            return DIVERGED | ((n + 1) << STEP_SHIFT)
    return OK


@jit
def loop_rollout(model_int, model_float, data_float, data_int, tau, fext, dt, method, alpha, beta, project, tol,
                 max_iter, Q, QD, info):
    """Integrate ``nsteps = Q.shape[0] - 1`` steps of the closed-chain dynamics of a tree with the model's
    loop constraints from ``(q0, qd0) = (Q[0], QD[0])``, writing ``Q[n], QD[n]`` (``t = n dt``) as
    :func:`rollout` does.

    Every integrator stage evaluates the accelerations by Jain et al. 2012 Lemma 2 (:func:`loops.ta_passes`:
    free ABA accelerations, the Schur complement ``Q Lambda Q*`` from the node compliance, the multipliers
    and the ABA correction, Eqs. 11-12), with the Baumgarte terms ``2 alpha G qd + beta^2 phi`` added to
    the constraint acceleration (``alpha = beta = 0``: no stabilization; Baumgarte 1972, Jain 2012 Sec. 5).
    ``method`` SEMI_IMPLICIT or RK4 with the stage and update formulas of :func:`rollout`; the joint
    springs and dampers enter every stage as there (:func:`passive_forces`).

    ``project != 0``: after each step, projection error control (Jain 2012 Sec. 5,
    :func:`loops.projection_passes`): positions by mass-weighted Gauss-Newton onto ``phi = 0`` until
    ``max |phi| <= tol`` (at most ``max_iter`` iterations), then velocities onto ``G qd = 0``.

    ``info`` (nsteps, 3) int64 receives per step ``n``: the smallest rank of the Schur complement over the
    stages, 1 if it was singular (redundant loops, solved in the least-squares sense) at any stage, and
    the projection iterations (0 without projection).

    Returns ``OK`` or an error code ``| (n + 1) << STEP_SHIFT`` for the failing step ``n`` (``Q[0..n]``
    valid): ``BAD_IN``/``BAD_FEXT`` for non-finite inputs of step ``n``, ``SINGULAR | i << 8`` from the ABA,
    ``DIVERGED`` for a non-finite state, ``NOT_CLOSED`` when projection does not converge. An invalid
    initial state returns the :func:`tree.check_state` code with step field 0."""
    mi, mf, df = model_int, model_float, data_float
    parent, jtype, qadr, vadr, jnv, axis, axis2, pitch, XT_E, XT_r, I, S0, armature = model_tree(mi, mf)
    stiffness, damping, springref = model_springs(mi, mf)
    frame_body, frame_E, frame_r, fa, fb, kind, sel, dim, row, ax1, ax2, twist = model_loops(mi, mf)
    a0 = model_extras(mi, mf)[1]
    X_E, X_r, S, v, c, oR, op = data_kinematics(mi, df)
    IA, pA, U, D, Dinv, u, a = data_aba(mi, df)
    oS, oI, oIA, oU = data_world(mi, df)
    cnt, cpar, vid, Ups, W = data_nodes(mi, df, data_int)
    RA, pAw, Qr, phi, cv, gamma = data_loops(mi, df)
    K, fl, lam = data_multipliers(mi, df)
    vJ = dfield(mi, df, VJ, 6)
    st = check_state(jtype, qadr, Q[0], QD[0])
    if st != OK:
        return st
    nq = Q.shape[1]
    nv = QD.shape[1]
    nsteps = Q.shape[0] - 1
    R = np.empty((3, 3))
    qs = np.empty(nq)
    vs = np.empty(nv)
    kq = np.empty((4, nq))
    kv = np.empty((4, nv))
    tau_s = np.empty(nv)
    linfo = np.zeros(2, dtype=np.int64)
    pinfo = np.zeros(4, dtype=np.int64)
    for n in range(nsteps):
        q = Q[n]
        qd = QD[n]
        st, tau_n, fext_n = step_inputs(tau, fext, n)
        if st != OK:
            return st
        rank = phi.shape[0]
        singular = 0
        for stage in range(1 if method == SEMI_IMPLICIT else 4):
            stage_state(jtype, qadr, q, qd, kq, kv, stage, dt, qs, vs)
            passive_forces(qadr, vadr, jnv, stiffness, damping, springref, qs, vs, tau_n, tau_s)
            # Jain 2012 Lemma 2 at the stage state
            st = ta_passes(parent, jtype, qadr, vadr, jnv, axis, axis2, pitch, XT_E, XT_r, I, S0, armature,
                           frame_body, frame_E, frame_r, fa, fb, kind, sel, dim, row, ax1, ax2, twist,
                           qs, vs, tau_s, fext_n, a0, alpha, beta,
                           X_E, X_r, S, v, c, IA, pA, U, D, Dinv, u, a, oR, op, oS, oI, oIA, oU, cnt, cpar, vid,
                           Ups, W, RA, pAw, Qr, K, fl, phi, cv, gamma, lam, kv[stage], linfo)
            if st != OK:
                return st | ((n + 1) << STEP_SHIFT)
            rank = min(rank, linfo[0])
            singular = max(singular, linfo[1])
            if method != SEMI_IMPLICIT:
                config_rate(jtype, qadr, vadr, qs, vs, kq[stage], R)
        advance(method, jtype, qadr, vadr, I, q, qd, kq, kv, dt, Q[n + 1], QD[n + 1], R)
        if not (all_finite(Q[n + 1]) and all_finite(QD[n + 1])):
            return DIVERGED | ((n + 1) << STEP_SHIFT)
        iters = 0
        if project != 0:
            st = projection_passes(parent, jtype, qadr, vadr, jnv, axis, axis2, pitch, XT_E, XT_r, I, S0,
                                   armature, frame_body, frame_E, frame_r, fa, fb, kind, sel, dim, row, ax1, ax2,
                                   twist, Q[n + 1], QD[n + 1], tol, max_iter,
                                   X_E, X_r, S, v, c, vJ, IA, U, D, Dinv, oR, op, oS, oI, oIA, oU, cnt, cpar, vid,
                                   Ups, W, RA, pAw, Qr, K, fl, phi, cv, gamma, lam, pinfo, R)
            if st != OK:
                return st | ((n + 1) << STEP_SHIFT)
            if not (all_finite(Q[n + 1]) and all_finite(QD[n + 1])):
                return DIVERGED | ((n + 1) << STEP_SHIFT)
            if pinfo[3] == 0:
                return NOT_CLOSED | ((n + 1) << STEP_SHIFT)
            iters = pinfo[2]
            normalize_config(jtype, qadr, Q[n + 1])
        info[n, 0] = rank
        info[n, 1] = singular
        info[n, 2] = iters
    return OK


@jit
def constraint_errors(model_int, model_float, data_float, Q, QD, err):
    """Loop closure errors of the states ``(Q[s], QD[s])`` into ``err`` (K, 2): ``max |phi(q)|`` (the
    position errors ``phi = Q xi`` of :func:`loops.loop_rows`) and ``max |G_c(q) qd|`` (the constraint
    velocities ``Q V_rel``, Jain 2012 Eq. 9) over the constraint rows (0 for a model without loops).
    Returns ``OK`` or the :func:`tree.check_state` code of the first bad row."""
    mi, mf, df = model_int, model_float, data_float
    parent, jtype, qadr, vadr, jnv, axis, axis2, pitch, XT_E, XT_r, I, S0, armature = model_tree(mi, mf)
    X_E, X_r, S, v, c, oR, op = data_kinematics(mi, df)
    RA, pAw, Qr, phi, cv, gamma = data_loops(mi, df)
    vJ = dfield(mi, df, VJ, 6)
    loops = model_loops(mi, mf)
    acc = np.zeros((parent.shape[0], 6))
    zero6 = np.zeros(6)
    for s in range(Q.shape[0]):
        st = check_state(jtype, qadr, Q[s], QD[s])
        if st != OK:
            return st
        tree_positions(parent, jtype, qadr, vadr, axis, axis2, pitch, XT_E, XT_r, S0, Q[s], X_E, X_r, S)
        tree_velocities(parent, jtype, vadr, jnv, axis2, X_E, X_r, S, QD[s], v, c, vJ)
        world_poses(parent, X_E, X_r, oR, op)
        loop_rows(*loops, oR, op, v, acc, zero6, RA, pAw, Qr, phi, cv, gamma)
        ep = 0.0
        ev = 0.0
        for r in range(phi.shape[0]):
            ep = max(ep, abs(phi[r]))
            ev = max(ev, abs(cv[r]))
        err[s, 0] = ep
        err[s, 1] = ev
    return OK


@jit
def energies(model_int, model_float, data_float, Q, QD, E):
    """Energies of the states ``(Q[s], QD[s])`` into ``E`` (K, 3): kinetic
    ``T = sum_i 1/2 v_i^T I_i v_i + sum_k 1/2 armature_k qd_k^2`` (RBDA Eq. 2.71, body-frame spatial velocities
    and inertias; the joint armature's rotor energy), potential ``V = -sum_i m_i g . c_i``
    (``c_i`` the world centre of mass of body ``i``, from ``m c`` read off the ``m c~`` block of ``I_i``,
    RBDA Eq. 2.63) and ``T + V``. Returns ``OK`` or the :func:`joints.check_q` code of the first bad row."""
    mi, mf, df = model_int, model_float, data_float
    parent, jtype, qadr, vadr, jnv, axis, axis2, pitch, XT_E, XT_r, I, S0, armature = model_tree(mi, mf)
    gravity = view(mf, mi[MODEL_FLOAT_OFF + GRAVITY], 3)
    X_E, X_r, S, v, c, oR, op = data_kinematics(mi, df)
    tmp = dfield(mi, df, VJ, 6)
    for s in range(Q.shape[0]):
        st = check_q(jtype, qadr, Q[s])
        if st != OK:
            return st
        tree_positions(parent, jtype, qadr, vadr, axis, axis2, pitch, XT_E, XT_r, S0, Q[s], X_E, X_r, S)
        tree_velocities(parent, jtype, vadr, jnv, axis2, X_E, X_r, S, QD[s], v, c, tmp)
        world_poses(parent, X_E, X_r, oR, op)
        kin = 0.0
        pot = 0.0
        for i in range(parent.shape[0]):
            mul6(I[i], v[i], tmp)
            for m in range(6):
                kin += 0.5 * v[i, m] * tmp[m]
            mass = I[i, 3, 3]
            # m c = (I[2,4], I[0,5], I[1,3]) from the m c~ block
            mc0, mc1, mc2 = I[i, 2, 4], I[i, 0, 5], I[i, 1, 3]
            for m in range(3):
                wc = mass * op[i, m] + oR[i, m, 0] * mc0 + oR[i, m, 1] * mc1 + oR[i, m, 2] * mc2
                pot -= gravity[m] * wc
        for k in range(QD.shape[1]):
            kin += 0.5 * armature[k] * QD[s, k] * QD[s, k]
        E[s, 0] = kin
        E[s, 1] = pot
        E[s, 2] = kin + pot
    return OK


@jit
def frame_positions(model_int, model_float, data_float, Q, frames, P):
    """World positions ``P[s, j]`` (K, nfr, 3) of the model's frames ``frames[j]`` (nfr,) at the
    configurations ``Q[s]``: forward kinematics (RBDA Sec. 4.4) then ``p = op_b + oR_b r_f``.
    Returns ``OK`` or the :func:`joints.check_q` code of the first bad row."""
    mi, mf, df = model_int, model_float, data_float
    parent, jtype, qadr, vadr, jnv, axis, axis2, pitch, XT_E, XT_r, I, S0, armature = model_tree(mi, mf)
    frame_body, frame_E, frame_r = model_loops(mi, mf)[:3]
    X_E, X_r, S, v, c, oR, op = data_kinematics(mi, df)
    R = dfield(mi, df, FRAME_R_, (3, 3))
    for s in range(Q.shape[0]):
        st = check_q(jtype, qadr, Q[s])
        if st != OK:
            return st
        tree_positions(parent, jtype, qadr, vadr, axis, axis2, pitch, XT_E, XT_r, S0, Q[s], X_E, X_r, S)
        world_poses(parent, X_E, X_r, oR, op)
        for j in range(frames.shape[0]):
            f = frames[j]
            frame_world_pose(frame_body[f], frame_E[f], frame_r[f], oR, op, R, P[s, j])
    return OK
