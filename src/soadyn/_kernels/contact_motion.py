"""The parts of a contact step (:mod:`.contact_sim`) that read or move its velocities and positions rather
than solve for impulses: the friction frames turned along the slip, the rows of a collision phase, the
kinetic energy at the step's configuration, the row velocities of a joint velocity, the row impulses applied
through the articulated-body factors, the share of a collision's restitution impulse that adds no energy,
the positions (semi-implicit Euler with ballistic free flight), the split position correction, the
deepest penetration of a state, and the record of a step's contacts in its statistics row."""

import math

import numpy as np

from .._jit import inline_jit, jit
from .collision import collide, geom_world_poses
from .contact import row_forces, row_velocities
from .joints import FREE, body_com, step_joints
from .contact_solve import keep_lcp
from .lcp import LCP_OK, mlcp
from .spatial import quat_to_rot
from .kinematics import tree_positions, tree_velocities, world_poses
from .layout import data_contact, data_kinematics, model_geoms, model_tree
from .loops import correction_accelerations, correction_forces

NSTAT = 12
"""Columns of the per-step statistics (:mod:`.contact_sim`)."""

RECORD = 9
"""Columns of a recorded contact after the statistics: world point (3), unit normal from B to A (3), world
impulse on body A over the step (3, N s; normal and friction, collision phases included)."""

SLIP_DIRECTION_TOL = 1e-6
"""Predicted tangential slip speed (m/s) below which a contact keeps the fixed pyramid's tangents. A body
held on a slope slips, before friction, by ``dt g_t`` (5e-3 m/s on a 30 degree slope at 1 ms), far above it;
below it the slip is the creep of a resting pile (on a face tilted by 1e-9 rad a box slides at up to
1e-8 m/s before an answer without friction misses the LCP check), whose direction changes from step to step:
turned along it, the tangents would change under the warm start's friction rows every step (what that cost
the resting piles: docs/contact.md)."""


@jit
def slip_frames(k, nb, vr, con_frame):
    """Turn each contact's tangents about its normal so that ``t1`` points along the predicted slip
    ``s = vr_t1 t1 + vr_t2 t2`` (``vr``: the rows' velocities of the step's free velocity, in the fixed
    frames ``con_frame``), ``t2 = n x t1``; a contact slipping slower than :data:`SLIP_DIRECTION_TOL` keeps
    its frame. Coulomb friction then opposes the slip at its full ``mu F_n`` whatever the world's
    orientation (the fixed pyramid of ``n_f = 4`` caps friction along its diagonals at ``mu F_n / sqrt 2``);
    a contact held still on a slope slips, before friction, along the pull of gravity (``dt g_t``), so a
    sticking contact is aligned with the force friction must hold. ``vr`` is rotated with the frames (the
    row velocities in the turned frames)."""
    for i in range(k):
        a = vr[nb + 3 * i + 1]
        b = vr[nb + 3 * i + 2]
        sn = math.sqrt(a * a + b * b)
        if sn <= SLIP_DIRECTION_TOL:
            continue
        a /= sn
        b /= sn
        vr[nb + 3 * i + 1] = sn
        vr[nb + 3 * i + 2] = 0.0
        for m in range(3):
            t1 = con_frame[i, 1, m]
            t2 = con_frame[i, 2, m]
            con_frame[i, 1, m] = a * t1 + b * t2
            con_frame[i, 2, m] = -b * t1 + a * t2


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
def correct_positions(Wd, nb, k, con_gap, collided, back, prm, lam, info, keep):
    """Impulses ``lam`` (loop rows; normal rows; tangent rows zero) of the position correction, whose
    velocity ``M^-1 G^T lam`` moves the positions only (split impulse): the velocities, hence the kinetic
    energy, are left alone. Rows (``w = W lam + b``): the loop rows held (``w = 0``); a contact that collided
    in the step (``collided``) from an open gap brought back by ``back`` (m; ``w = 0`` with ``b = back /
    dt``): the collision phase changed its velocity where it began the step, ``gap`` before touching, so
    it ends the step ``gap + v+ tc`` farther out than had it first closed its gap, in the time ``tc =
    gap / v-`` (approach speed ``v-``), then left at its velocity after the step ``v+`` (``(1 + e) gap``
    for a single contact rebounding at ``v+ = e v-``; ``gap`` for a ball of a Newton's cradle that stops
    against the next); the other contacts
    ``w >= 0`` complementary to ``lam_n >= 0``, with ``b = erp gap / dt`` for a penetration (``erp`` of it
    removed) and ``gap / dt`` for an open gap (it may close, not cross). Solved as a mixed LCP (Lemke; the
    equality rows first, checked inside); returns its status (an unsolved LCP is written to ``keep``,
    :func:`.contact_solve.keep_lcp`)."""
    pull = np.zeros(k, dtype=np.bool_)
    nc = 0
    for i in range(k):
        pull[i] = collided[i] != 0 and con_gap[i] > 0.0
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
            q[r] = back[i] / dt
        else:
            q[r] = (prm[2] * g if g < 0.0 else g) / dt
    z = np.zeros(n)
    w = np.empty(n)
    st = mlcp(M, q, nb + nc, int(prm[8]), prm[9], z, w, info)
    if st != LCP_OK:
        keep_lcp(M, q, nb + nc, keep)
    lam[:] = 0.0
    for r in range(n):
        lam[idx[r]] = z[r]
    return st


@jit
def restitution_scale(Ws, v0, pc, vc, pd):
    """The share ``s`` in [0, 1] of a collision's decompression impulse ``pd`` (restitution ``theta`` included,
    Eq. 58) that is applied: 1 unless the impact would then end with more kinetic energy than it began with,
    else the largest ``s`` for which it does not. In row space (``Ws`` the phase's Delassus matrix): the
    compression impulse ``pc`` at the row velocities ``v0`` changes the kinetic energy by ``pc . v0 + pc^T Ws
    pc / 2`` (<= 0: the compression LCP dissipates), then ``s pd`` at ``vc`` by ``s pd . vc + s^2 pd^T Ws pd /
    2``. Poisson's hypothesis (Eq. 56) over several simultaneous contacts can otherwise add energy, even
    with exact LCP answers; Stronge's energetic restitution forbids it. The scaled result is the convex
    combination of the compression's end and the decompression's end: normal velocities stay >= 0 and the
    impulses inside the friction cone."""
    n = pc.shape[0]
    c = 0.0
    b = 0.0
    a = 0.0
    for r in range(n):
        wc = 0.0
        wd = 0.0
        for j in range(n):
            wc += Ws[r, j] * pc[j]
            wd += Ws[r, j] * pd[j]
        c += pc[r] * (v0[r] + 0.5 * wc)
        b += pd[r] * vc[r]
        a += 0.5 * pd[r] * wd
    if c + b + a <= 0.0:
        return 1.0
    if a <= 0.0:
        return 0.0 if b <= 0.0 else min(1.0, max(0.0, -c / b))
    disc = b * b - 4.0 * a * c
    if disc < 0.0:
        return 0.0
    return min(1.0, max(0.0, (-b + math.sqrt(disc)) / (2.0 * a)))


@jit
def kinetic_energy(parent, jtype, vadr, jnv, axis2, X_E, X_r, S, I, armature, qd, v, c, vJ):
    """``qd^T M qd / 2`` at the step's configuration, as ``sum_i v_i . I_i v_i / 2`` over the body velocities
    (one pass, :func:`tree.tree_velocities`; ``v, c, vJ`` scratch) plus the joints' armature
    ``sum_k armature_k qd_k^2 / 2``."""
    tree_velocities(parent, jtype, vadr, jnv, axis2, X_E, X_r, S, qd, v, c, vJ)
    return body_energy(I, armature, qd, v)


@jit
def body_energy(I, armature, qd, v):
    """:func:`kinetic_energy` from the body velocities ``v`` of ``qd`` already at hand."""
    e = 0.0
    for b in range(v.shape[0]):
        for r in range(6):
            acc = 0.0
            for j in range(6):
                acc += I[b, r, j] * v[b, j]
            e += v[b, r] * acc
    for k in range(qd.shape[0]):
        e += armature[k] * qd[k] * qd[k]
    return 0.5 * e


@jit
def ballistic_shifts(jtype, qadr, vadr, I, q, qd, qf, qdn, dt, shift, R):
    """The trapezoidal correction of each FREE joint's centre-of-mass step, for the joints that no impulse
    touched in the step (``qdn`` equal to the free velocity ``qf`` on their six dofs): ``shift = dt R (u -
    u+) / 2`` (``u, u+`` the centre-of-mass velocities before and after the step in the step's body axes
    ``R``), so that with :func:`joints.step_joints` the centre moves by ``dt R (u + u+) / 2``, exact for the
    constant acceleration of a ballistic flight (semi-implicit Euler's ``dt R u+`` lags by ``g dt t / 2``:
    a ball bouncing at 1 ms loses about ``g dt`` of its speed per flight, 2.5 % of its third apex with
    e = 0.5). The translation of a free joint is cyclic (nothing in the dynamics depends on it but contact
    and a uniform gravity), so the correction feeds nothing back. Zero for the other joints."""
    for i in range(jtype.shape[0]):
        shift[i, :] = 0.0
        if jtype[i] != FREE:
            continue
        j = vadr[i]
        free = True
        for m in range(6):
            free = free and qdn[j + m] == qf[j + m]
        if not free:
            continue
        c0, c1, c2 = body_com(I, i)
        du0 = qd[j + 3] - qdn[j + 3] + (qd[j + 1] - qdn[j + 1]) * c2 - (qd[j + 2] - qdn[j + 2]) * c1
        du1 = qd[j + 4] - qdn[j + 4] + (qd[j + 2] - qdn[j + 2]) * c0 - (qd[j] - qdn[j]) * c2
        du2 = qd[j + 5] - qdn[j + 5] + (qd[j] - qdn[j]) * c1 - (qd[j + 1] - qdn[j + 1]) * c0
        quat_to_rot(q, qadr[i] + 3, R)
        for m in range(3):
            shift[i, m] = 0.5 * dt * (R[m, 0] * du0 + R[m, 1] * du1 + R[m, 2] * du2)


@jit
def step_positions(jtype, qadr, vadr, I, q, qd, qf, qdn, dt, qn, R, shift):
    """``qn`` from ``q`` by the step velocity ``qdn`` (:func:`joints.step_joints`), the centre of mass of
    each free joint that no impulse touched moved by the trapezoidal rule (:func:`ballistic_shifts`;
    ``shift`` (njoint, 3) scratch)."""
    ballistic_shifts(jtype, qadr, vadr, I, q, qd, qf, qdn, dt, shift, R)
    step_joints(jtype, qadr, vadr, I, q, qdn, dt, qn, R)
    for i in range(jtype.shape[0]):
        if jtype[i] == FREE:
            for m in range(3):
                qn[qadr[i] + m] += shift[i, m]


@jit
def memo_space(nq):
    """The size of the memo of a state (:func:`remember_state`) of a model with ``nq`` coordinates: ``[valid,
    k, q]``."""
    return 2 + nq


@jit
def remember_state(memo, q, k, K):
    """Keep the state ``q`` just examined in the memo: the kinematics and the ``k`` contacts (of at most ``K``)
    detected there stay where they were written, in the Data of the call's contact simulator, which only its
    contact kernel writes (:class:`soadyn.contact.stepper.ContactCall` owns it); the step that goes on from
    ``q`` uses them (:func:`recall_state`)."""
    memo[0] = 1.0 if k <= K else 0.0
    memo[1] = k
    memo[2:] = q


@jit
def recall_state(memo, q):
    """Whether the memo was written at this very ``q`` (:func:`remember_state`: the last state of a rollout,
    from which ``Simulator.step`` goes on), the Data still holding its kinematics and contacts. The memo is
    used once."""
    hit = memo[0] == 1.0
    for m in range(q.shape[0]):
        hit = hit and memo[2 + m] == q[m]
    memo[0] = 0.0
    return hit


@inline_jit
def step_contacts(geom_body, geom_type, geom_size, geom_E, geom_r, geom_mu, geom_eps, geom_margin, geom_corners,
                  pair_geom, geom_vertadr, geom_vertnum, mesh_vert, oR, op, gR, gp,
                  con_geom, con_body, con_point, con_normal, con_gap, con_mu, con_eps, recalled, memo, cf, ci):
    """The contacts of a step (the body poses ``oR``, ``op`` of its ``q`` given): with ``recalled``
    (:func:`recall_state` found the memo written at ``q``) those the ``con_*`` arrays hold, else geom poses and
    :func:`.collision.collide` (``cf``, ``ci``: its scratch). Returns the count."""
    if recalled:
        return int(memo[1])
    geom_world_poses(geom_body, geom_E, geom_r, oR, op, gR, gp)
    return collide(geom_type, geom_size, geom_margin, geom_corners, geom_mu, geom_eps, geom_body, pair_geom,
                   geom_vertadr, geom_vertnum, mesh_vert, gR, gp,
                   con_geom, con_body, con_point, con_normal, con_gap, con_mu, con_eps, cf, ci)


@jit
def max_penetration(mi, mf, df, di, geom_margin, q, memo, cf, ci):
    """The deepest penetration (m, 0 if none) at configuration ``q`` of the model ``(mi, mf)`` with Data ``(df,
    di)``: kinematics, then collision detection with the margins ``geom_margin`` (the rollout's last state, which
    no further step examines; ``cf``, ``ci``: :func:`.collision.collide`'s scratch), left for the step that goes
    on from ``q`` (:func:`remember_state`). It takes the packed buffers and opens the fields itself: called with
    the forty arrays it reads, the call cost the one step of ``Simulator.step`` 0.2 us more."""
    (parent, jtype, qadr, vadr, _, axis, axis2, pitch, XT_E, XT_r, _, S0, _) = model_tree(mi, mf)
    (geom_body, geom_type, geom_size, geom_E, geom_r, geom_mu, geom_eps, _, geom_corners, pair_geom, geom_vertadr,
     geom_vertnum, mesh_vert) = model_geoms(mi, mf)
    X_E, X_r, S, _, _, oR, op = data_kinematics(mi, df)
    gR, gp, con_geom, con_body, con_point, con_normal, con_gap, con_mu, con_eps = data_contact(mi, df, di)
    tree_positions(parent, jtype, qadr, vadr, axis, axis2, pitch, XT_E, XT_r, S0, q, X_E, X_r, S)
    world_poses(parent, X_E, X_r, oR, op)
    geom_world_poses(geom_body, geom_E, geom_r, oR, op, gR, gp)
    k = collide(geom_type, geom_size, geom_margin, geom_corners, geom_mu, geom_eps, geom_body, pair_geom,
                geom_vertadr, geom_vertnum, mesh_vert, gR, gp,
                con_geom, con_body, con_point, con_normal, con_gap, con_mu, con_eps, cf, ci)
    remember_state(memo, q, k, con_gap.shape[0])
    depth = 0.0
    for i in range(min(k, con_gap.shape[0])):
        depth = max(depth, -con_gap[i])
    return depth


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


@inline_jit
def apply_impulses(body_parent, jnt_vadr, jnt_nv, X_E, X_r, S, U, Dinv, oR, op, node_body, wE, wr, node_sel,
                   node_dim, nn, row_node, row_coef, lam, qd, f, pA, a, u, dqd, scr, Y):
    """``qd += M^-1 G^T lam`` (Jain 2014 Eqs. 55, 58) by one ABA pass on the articulated factors of the step
    (:func:`loops.aba_correction`; ``pA``, ``a``, ``u``, ``dqd``: its scratch): its joint forces ``u`` from
    the row impulses as body impulses ``f`` (:func:`row_forces`, ``scr`` its scratch) and pass 2, or, when the
    Delassus matrix came by paths, ``u = Y^T lam`` from the rows' joint forces ``Y`` (nr, nv) that
    :func:`.delassus.path_delassus` left (pass 2 of each unit impulse; empty: none); then pass 3."""
    if Y.shape[0] > 0:
        u[:] = 0.0
        for r in range(lam.shape[0]):
            if lam[r] != 0.0:
                for m in range(u.shape[0]):
                    u[m] += Y[r, m] * lam[r]
    else:
        row_forces(oR, op, node_body, wE, wr, node_sel, node_dim, nn, row_node, row_coef, lam, f, scr)
        correction_forces(body_parent, jnt_vadr, jnt_nv, X_E, X_r, S, U, Dinv, f, pA, u)
    correction_accelerations(body_parent, jnt_vadr, jnt_nv, X_E, X_r, S, U, Dinv, u, a, dqd, pA)
    for k in range(qd.shape[0]):
        qd[k] += dqd[k]


@inline_jit
def row_velocities_of(parent, jtype, vadr, jnv, axis2, X_E, X_r, S, qd, v, c, vJ, oR, op,
                      node_body, wE, wr, node_sel, node_dim, nn, row_node, row_coef, vr, scr):
    """Row velocities ``G qd`` of a generalized velocity ``qd`` at the step's configuration: the body
    velocities by one pass (:func:`tree.tree_velocities`), then :func:`contact.row_velocities` (``scr``: its
    scratch)."""
    tree_velocities(parent, jtype, vadr, jnv, axis2, X_E, X_r, S, qd, v, c, vJ)
    row_velocities(v, oR, op, node_body, wE, wr, node_sel, node_dim, nn, row_node, row_coef, vr, scr)
