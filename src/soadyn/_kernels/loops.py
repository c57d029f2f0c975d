"""Closed-chain kernels: loop kinematics, the TA forward dynamics of Jain et al. 2012 Lemma 2, and the
mass-weighted correction used for projection.

A loop ``l`` joins frame A (body ``ba``, transform ``(EA, rA)`` body -> frame) and frame B. With ``R_X, p_X``
the world poses and ``^AX_B = (R_A^T R_B, R_B^T (p_A - p_B))`` the motion transform from B's to A's axes:
``xi = [log(R_A^T R_B); R_A^T (p_B - p_A)]``, ``V_rel = ^AX_B V_B - V_A`` and the relative acceleration
``^AX_B a_B - a_A - V_A x V_rel``, all in A's axes. Rows ``Q`` select the constrained directions; a
universal loop's angular row is ``n = (R_AB a2) x a1`` with ``Qdot V = w_rel . ((w_rel x R_AB a2) x a1)``.
A frame on the world has zero velocity and the fictitious base acceleration ``a0`` (gravity).

The kernels called from Python (:func:`ta_forward`, :func:`loop_jacobian`, :func:`project_state`) take
``(model_int, model_float, data_float[, data_int], inputs...)`` and hand the fields they open with the
``layout`` accessors to the passes, which take plain arrays (:func:`ta_passes`, :func:`projection_passes`,
:func:`loop_rows`, ...): the rollout kernels run them at every integrator stage.
"""

import numpy as np

from .._jit import jit
from .frames import bias_accelerations, frame_world_pose, jacobian_columns
from .joints import OK, integrate_config
from .osim import node_compliance
from .spatial import cross_motion, rotation_log, spd_inverse, swing_twist_log, xforce_T_add, xmotion
from .articulated import aba_core, articulated_inertias, joint_acceleration
from .kinematics import check_inputs, check_state, tree_positions, tree_velocities, world_poses
from .layout import (H, LOOP_G, LOOP_INFO, NB, NC, NV, QDD, SCRATCH, VJ, data_aba, data_kinematics, data_loops,
                     data_multipliers, data_nodes, data_world, dfield, dint, model_extras, model_loops, model_tree)

UNIVERSAL_LOOP = 5


@jit
def frame_motion_in_frame(b, E, r, v, a, a0, V, A):
    """Spatial velocity ``V`` and acceleration ``A`` of a frame in its own axes (world frames: ``V = 0``,
    ``A = ^fX_0 a0``, computed by the caller's ``E, r`` being the world -> frame transform)."""
    if b >= 0:
        xmotion(E, r, v[b], V)
        xmotion(E, r, a[b], A)
    else:
        for m in range(6):
            V[m] = 0.0
        xmotion(E, r, a0, A)


@jit
def loop_rows(frame_body, frame_E, frame_r, fa, fb, kind, sel, dim, row, ax1, ax2, twist, oR, op, v, a, a0,
              RA, pA, Q, phi, cv, gamma):
    """Per loop: world pose ``(RA[l], pA[l])`` of frame A, the run-time rows ``Q[l]`` and, per row, the
    position error ``phi``, the constraint velocity ``cv = Q V_rel`` and ``gamma = Q a_rel + Qdot V`` (the
    acceleration-level violation of the accelerations ``a``; Jain 2012 Eq. 12b). The rotation part of ``xi``
    is measured relative to each loop's free axis ``twist[l]`` when it has one (swing-twist coordinates,
    :func:`spatial.swing_twist_log`), so that ``d phi / dq = G_c`` on the constraint manifold."""
    RB = np.empty((3, 3))
    pB = np.empty(3)
    EAB = np.empty((3, 3))
    rAB = np.empty(3)
    RAw = np.empty((3, 3))  # frame A's world -> frame rotation
    VA = np.empty(6)
    VB = np.empty(6)
    AA = np.empty(6)
    AB = np.empty(6)
    Vrel = np.empty(6)
    arel = np.empty(6)
    xi = np.empty(6)
    tmp = np.empty(6)
    for l in range(fa.shape[0]):
        f, g = fa[l], fb[l]
        frame_world_pose(frame_body[f], frame_E[f], frame_r[f], oR, op, RA[l], pA[l])
        frame_world_pose(frame_body[g], frame_E[g], frame_r[g], oR, op, RB, pB)
        for m in range(3):
            for n in range(3):
                RAw[m, n] = RA[l, n, m]
        if frame_body[f] >= 0:
            frame_motion_in_frame(frame_body[f], frame_E[f], frame_r[f], v, a, a0, VA, AA)
        else:
            frame_motion_in_frame(-1, RAw, pA[l], v, a, a0, VA, AA)
        if frame_body[g] >= 0:
            frame_motion_in_frame(frame_body[g], frame_E[g], frame_r[g], v, a, a0, VB, AB)
        else:
            for m in range(3):
                for n in range(3):
                    EAB[m, n] = RB[n, m]
            frame_motion_in_frame(-1, EAB, pB, v, a, a0, VB, AB)
        # ^AX_B = (R_A^T R_B, R_B^T (p_A - p_B))
        for m in range(3):
            for n in range(3):
                EAB[m, n] = RA[l, 0, m] * RB[0, n] + RA[l, 1, m] * RB[1, n] + RA[l, 2, m] * RB[2, n]
            rAB[m] = (RB[0, m] * (pA[l, 0] - pB[0]) + RB[1, m] * (pA[l, 1] - pB[1])
                      + RB[2, m] * (pA[l, 2] - pB[2]))
        xmotion(EAB, rAB, VB, Vrel)
        xmotion(EAB, rAB, AB, arel)
        for m in range(6):
            Vrel[m] -= VA[m]
            arel[m] -= AA[m]
        cross_motion(VA, Vrel, tmp)
        for m in range(6):
            arel[m] -= tmp[m]
        if twist[l, 0] != 0.0 or twist[l, 1] != 0.0 or twist[l, 2] != 0.0:
            swing_twist_log(EAB, twist[l], xi)
        else:
            rotation_log(EAB, xi)
        for m in range(3):
            xi[3 + m] = (RA[l, 0, m] * (pB[0] - pA[l, 0]) + RA[l, 1, m] * (pB[1] - pA[l, 1])
                         + RA[l, 2, m] * (pB[2] - pA[l, 2]))
        Q[l] = sel[l]
        for d in range(dim[l]):
            r = row[l] + d
            s_phi = 0.0
            s_cv = 0.0
            s_g = 0.0
            for m in range(6):
                s_phi += Q[l, d, m] * xi[m]
                s_cv += Q[l, d, m] * Vrel[m]
                s_g += Q[l, d, m] * arel[m]
            phi[r] = s_phi
            cv[r] = s_cv
            gamma[r] = s_g
        if kind[l] == UNIVERSAL_LOOP:
            # row 0: n = a2' x a1 with a2' = R_AB a2; phi = a1 . a2' - a1 . a2; Qdot V = w.((w x a2') x a1)
            a1 = ax1[l]
            u0 = EAB[0, 0] * ax2[l, 0] + EAB[0, 1] * ax2[l, 1] + EAB[0, 2] * ax2[l, 2]
            u1 = EAB[1, 0] * ax2[l, 0] + EAB[1, 1] * ax2[l, 1] + EAB[1, 2] * ax2[l, 2]
            u2 = EAB[2, 0] * ax2[l, 0] + EAB[2, 1] * ax2[l, 1] + EAB[2, 2] * ax2[l, 2]
            n0, n1, n2 = u1 * a1[2] - u2 * a1[1], u2 * a1[0] - u0 * a1[2], u0 * a1[1] - u1 * a1[0]
            for m in range(6):
                Q[l, 0, m] = 0.0
            Q[l, 0, 0], Q[l, 0, 1], Q[l, 0, 2] = n0, n1, n2
            w0, w1, w2 = Vrel[0], Vrel[1], Vrel[2]
            c0, c1, c2 = w1 * u2 - w2 * u1, w2 * u0 - w0 * u2, w0 * u1 - w1 * u0  # w x a2'
            d0, d1, d2 = c1 * a1[2] - c2 * a1[1], c2 * a1[0] - c0 * a1[2], c0 * a1[1] - c1 * a1[0]
            r = row[l]
            phi[r] = (a1[0] * (u0 - ax2[l, 0]) + a1[1] * (u1 - ax2[l, 1]) + a1[2] * (u2 - ax2[l, 2]))
            cv[r] = n0 * w0 + n1 * w1 + n2 * w2
            gamma[r] = n0 * arel[0] + n1 * arel[1] + n2 * arel[2] + w0 * d0 + w1 * d1 + w2 * d2


@jit
def loop_compliance(parent, vadr, jnv, armature, I, S, oR, op, oS, oI, oIA, oU, D, Dinv, cnt, cpar, vid, Ups, W,
                    frame_body, fa, fb, dim, row, RA, pA, Q, K):
    """The Schur complement ``K = G_c M^-1 G_c^T = Q Lambda Q*`` (Jain 2012 Eq. 12b) from the operational
    space compliance of two nodes per loop, both at frame A's current pose, one on body a and one on
    body b (Jain 2014 Eq. 64 via :func:`osim.node_compliance`); world-side nodes are left out."""
    nl = fa.shape[0]
    nn = 0
    for l in range(nl):
        nn += (1 if frame_body[fa[l]] >= 0 else 0) + (1 if frame_body[fb[l]] >= 0 else 0)
    nbody = np.empty(nn, dtype=np.int64)
    nloop = np.empty(nn, dtype=np.int64)
    nsign = np.empty(nn)
    wE = np.empty((nn, 3, 3))
    wr = np.empty((nn, 3))
    k = 0
    for l in range(nl):
        for side in range(2):
            b = frame_body[fa[l]] if side == 0 else frame_body[fb[l]]
            if b < 0:
                continue
            nbody[k] = b
            nloop[k] = l
            nsign[k] = -1.0 if side == 0 else 1.0
            for m in range(3):
                wr[k, m] = pA[l, m]
                for n in range(3):
                    wE[k, m, n] = RA[l, n, m]
            k += 1
    sel = np.zeros((nn, 6, 6))
    ndim = np.full(nn, 6, dtype=np.int64)
    nrow = np.empty(nn + 1, dtype=np.int64)
    for k in range(nn):
        for m in range(6):
            sel[k, m, m] = 1.0
        nrow[k] = 6 * k
    nrow[nn] = 6 * nn
    L = np.empty((6 * nn, 6 * nn))
    st = node_compliance(parent, vadr, jnv, armature, I, S, oR, op, oS, oI, oIA, oU, D, Dinv, cnt, cpar, vid, Ups, W,
                         nbody, wE, wr, sel, ndim, nrow, L)
    if st != OK:
        return st
    K[:] = 0.0
    for i in range(nn):
        li = nloop[i]
        for j in range(nn):
            lj = nloop[j]
            s = nsign[i] * nsign[j]
            for d in range(dim[li]):
                for e in range(dim[lj]):
                    acc = 0.0
                    for m in range(6):
                        qm = Q[li, d, m]
                        if qm != 0.0:
                            for n in range(6):
                                acc += qm * L[6 * i + m, 6 * j + n] * Q[lj, e, n]
                    K[row[li] + d, row[lj] + e] += s * acc
    return OK


@jit
def solve_multipliers(K, rhs, lam, info):
    """``K lam = rhs`` for the symmetric positive semi-definite ``K``: Cholesky when ``K`` is positive
    definite; otherwise the minimum-norm least-squares solution from ``eigh`` with the rank in ``info[0]``
    and ``info[1] = 1`` (redundant constraints). ``info[0]`` is the rank either way."""
    m = K.shape[0]
    Kinv = np.empty((m, m))
    if spd_inverse(K, m, Kinv):
        for r in range(m):
            s = 0.0
            for c in range(m):
                s += Kinv[r, c] * rhs[c]
            lam[r] = s
        info[0] = m
        info[1] = 0
        return
    w, V = np.linalg.eigh(K)
    tol = 1e-10 * max(1.0, np.abs(w).max())
    rank = 0
    for r in range(m):
        lam[r] = 0.0
    for k in range(m):
        if w[k] > tol:
            rank += 1
            s = 0.0
            for r in range(m):
                s += V[r, k] * rhs[r]
            s /= w[k]
            for r in range(m):
                lam[r] += V[r, k] * s
    info[0] = rank
    info[1] = 1


@jit
def loop_forces(parent, frame_body, fa, fb, dim, row, oR, op, RA, pA, Q, lam, fl):
    """Body forces (body coordinates, about body origins) of the multipliers: ``F_l = Q_l^T lam_l`` acts at
    frame A in A's axes, ``+F`` on body b and ``-F`` on body a, i.e. ``G_c^T lam`` (Jain 2012 Eq. 12c)."""
    fl[:] = 0.0
    F = np.empty(6)
    E = np.empty((3, 3))
    r = np.empty(3)
    for l in range(fa.shape[0]):
        for m in range(6):
            s = 0.0
            for d in range(dim[l]):
                s += Q[l, d, m] * lam[row[l] + d]
            F[m] = s
        for side in range(2):
            b = frame_body[fa[l]] if side == 0 else frame_body[fb[l]]
            if b < 0:
                continue
            # ^AX_b: E = R_A^T oR_b, r = oR_b^T (p_A - op_b)
            for m in range(3):
                for n in range(3):
                    E[m, n] = RA[l, 0, m] * oR[b, 0, n] + RA[l, 1, m] * oR[b, 1, n] + RA[l, 2, m] * oR[b, 2, n]
                r[m] = oR[b, 0, m] * (pA[l, 0] - op[b, 0]) + oR[b, 1, m] * (pA[l, 1] - op[b, 1]) + oR[b, 2, m] * (pA[l, 2] - op[b, 2])
            if side == 0:
                for m in range(6):
                    F[m] = -F[m]
            xforce_T_add(E, r, F, fl[b])
            if side == 0:
                for m in range(6):
                    F[m] = -F[m]


@jit
def aba_correction(parent, vadr, jnv, X_E, X_r, S, U, Dinv, fext, pA, a, u, qdd):
    """``qdd = M^-1 sum_i J_i^T f_ext_i`` with the articulated factors of a preceding ABA (zero velocity,
    no gravity, no joint forces): pass 2 :func:`correction_forces`, pass 3 :func:`correction_accelerations`
    (RBDA Table 7.1; Jain 2012 Eq. 12c). ``pA``, ``a``, ``u``: scratch."""
    correction_forces(parent, vadr, jnv, X_E, X_r, S, U, Dinv, fext, pA, u)
    correction_accelerations(parent, vadr, jnv, X_E, X_r, S, U, Dinv, u, a, qdd, pA)


@jit
def correction_forces(parent, vadr, jnv, X_E, X_r, S, U, Dinv, fext, pA, u):
    """Pass 2 of :func:`aba_correction` (leaves to root): ``pA_i = -f_i``, ``u_i = -S_i^T pA_i``, ``pA_p +=
    X^T (pA_i + U_i D_i^-1 u_i)``; ``pA`` (nb, 6) written."""
    nb = parent.shape[0]
    for i in range(nb):
        for m in range(6):
            pA[i, m] = -fext[i, m]
    for i in range(nb - 1, -1, -1):
        n = jnv[i]
        va = vadr[i]
        for d in range(n):
            s = 0.0
            for m in range(6):
                s -= S[va + d, m] * pA[i, m]
            u[va + d] = s
        p = parent[i]
        if p >= 0:
            for d in range(n):  # pA_i += U_i D_i^-1 u_i in place (pass 3 reads no pA)
                g = 0.0
                for e in range(n):
                    g += Dinv[i, d, e] * u[va + e]
                for m in range(6):
                    pA[i, m] += U[va + d, m] * g
            xforce_T_add(X_E[i], X_r[i], pA[i], pA[p])


@jit
def correction_accelerations(parent, vadr, jnv, X_E, X_r, S, U, Dinv, u, a, qdd, w):
    """Pass 3 of :func:`aba_correction` (root to leaves) from the joint forces ``u`` of pass 2: ``a_i = X
    a_p``, ``qdd_i = D_i^-1 (u_i - U_i^T a_i)``, ``a_i += S_i qdd_i``; ``a`` (nb, 6) the bodies' accelerations
    (body frames), ``w`` (nb, 6) scratch."""
    for i in range(parent.shape[0]):
        p = parent[i]
        n = jnv[i]
        va = vadr[i]
        if p >= 0:
            xmotion(X_E[i], X_r[i], a[p], a[i])
        else:
            for m in range(6):
                a[i, m] = 0.0
        joint_acceleration(S, U, Dinv, i, u, va, n, a, qdd, w[i])


@jit
def ta_passes(parent, jtype, qadr, vadr, jnv, axis, axis2, pitch, XT_E, XT_r, I, S0, armature,
               frame_body, frame_E, frame_r, fa, fb, kind, sel, dim, row, ax1, ax2, twist,
               q, qd, tau, fext, a0, alpha, beta,
               X_E, X_r, S, v, c, IA, pA, U, D, Dinv, u, a, oR, op, oS, oI, oIA, oU, cnt, cpar, vid, Ups, W,
               RA, pAw, Q, K, fl,
               phi, cv, gamma, lam, qdd, info):
    """Closed-chain forward dynamics by Jain et al. 2012 Lemma 2 (Eqs. 11-12):
    step 1: free accelerations ``qdd_f`` by the ABA (Eq. 12a), which also gives the free node accelerations;
    step 2: ``gamma = Q a_rel + Qdot V + 2 alpha Q V_rel + beta^2 phi`` (Eq. 12b with Baumgarte terms) and the
    Schur complement ``K = Q Lambda Q*`` from the node compliance; ``K lam = -gamma``;
    step 3: the correction ``qdd_d = M^-1 G_c^T lam`` by an ABA pass with the loop forces (Eq. 12c);
    step 4: ``qdd = qdd_f + qdd_d`` (Eq. 11).
    ``info``: (rank of K, 1 if K was singular). Returns a kernel status."""
    st = check_inputs(jtype, qadr, q, qd, tau, fext)
    if st != OK:
        return st
    T = np.empty((4, 6, 6))
    st = aba_core(parent, jtype, qadr, vadr, jnv, axis, axis2, pitch, XT_E, XT_r, I, S0, armature, q, qd, tau, fext, a0,
                  X_E, X_r, S, v, c, IA, pA, U, D, Dinv, u, a, qdd, T)
    if st != OK:
        return st
    world_poses(parent, X_E, X_r, oR, op)
    loop_rows(frame_body, frame_E, frame_r, fa, fb, kind, sel, dim, row, ax1, ax2, twist, oR, op, v, a, a0,
              RA, pAw, Q, phi, cv, gamma)
    for r in range(gamma.shape[0]):
        gamma[r] += 2.0 * alpha * cv[r] + beta * beta * phi[r]
    st = loop_compliance(parent, vadr, jnv, armature, I, S, oR, op, oS, oI, oIA, oU, D, Dinv, cnt, cpar, vid, Ups, W,
                         frame_body, fa, fb, dim, row, RA, pAw, Q, K)
    if st != OK:
        return st
    rhs = np.empty(gamma.shape[0])
    for r in range(gamma.shape[0]):
        rhs[r] = -gamma[r]
    solve_multipliers(K, rhs, lam, info)
    loop_forces(parent, frame_body, fa, fb, dim, row, oR, op, RA, pAw, Q, lam, fl)
    nv = qdd.shape[0]
    qdd_d = np.empty(nv)
    aba_correction(parent, vadr, jnv, X_E, X_r, S, U, Dinv, fl, np.empty((parent.shape[0], 6)),
                   np.empty((parent.shape[0], 6)), np.empty(nv), qdd_d)
    for k in range(nv):
        qdd[k] += qdd_d[k]
    return OK


@jit
def ta_forward(model_int, model_float, data_float, data_int, q, qd, tau, fext, alpha, beta):
    """Closed-chain forward dynamics of the model's loops by Jain et al. 2012 Lemma 2 (:func:`ta_passes`)
    into ``Data.qdd`` (nv,), with the multipliers in ``Data.loop_lambda`` (nc,), the loop rows in
    ``Data.loop_R, loop_p, loop_Q, loop_phi, loop_cv, loop_gamma`` and ``Data.loop_info`` = (rank of K,
    1 if K was singular). ``fext`` (nb, 6) body-frame external forces; ``alpha, beta`` the Baumgarte terms.
    Returns a kernel status."""
    mi, mf, df = model_int, model_float, data_float
    X_E, X_r, S, v, c, oR, op = data_kinematics(mi, df)
    RA, pAw, Qr, phi, cv, gamma = data_loops(mi, df)
    K, fl, lam = data_multipliers(mi, df)
    qdd = dfield(mi, df, QDD, mi[NV])
    info = dint(mi, data_int, LOOP_INFO, 2)
    return ta_passes(*model_tree(mi, mf), *model_loops(mi, mf), q, qd, tau, fext, model_extras(mi, mf)[1], alpha,
                     beta, X_E, X_r, S, v, c, *data_aba(mi, df), oR, op, *data_world(mi, df),
                     *data_nodes(mi, df, data_int), RA, pAw, Qr, K, fl, phi, cv, gamma, lam, qdd, info)


@jit
def loop_jacobian(model_int, model_float, data_float, q, qd):
    """Position errors ``phi``, constraint velocities ``cv = G_c qd``, ``gdot = Gdot_c qd`` (the constraint
    acceleration at ``qdd = 0`` without gravity, from the bias accelerations ``h``) and the dense constraint Jacobian
    ``G_c = Q blockdiag(R_A^T) (J_b - J_a)`` (nc, nv), with ``J_x`` the world-aligned Jacobian of body x at
    frame A's origin (Jain 2012 Eq. 10), into ``Data.loop_phi, loop_cv, loop_gamma, loop_G``. For analysis,
    projection and assembly."""
    mi, mf, df = model_int, model_float, data_float
    parent, jtype, qadr, vadr, jnv, axis, axis2, pitch, XT_E, XT_r, I, S0, armature = model_tree(mi, mf)
    frame_body, frame_E, frame_r, fa, fb, kind, sel, dim, row, ax1, ax2, twist = model_loops(mi, mf)
    st = check_state(jtype, qadr, q, qd)
    if st != OK:
        return st
    X_E, X_r, S, v, c, oR, op = data_kinematics(mi, df)
    RA, pAw, Q, phi, cv, gdot = data_loops(mi, df)
    nb, nv, nc = mi[NB], mi[NV], mi[NC]
    h = dfield(mi, df, H, (nb, 6))
    vJ = dfield(mi, df, VJ, 6)
    G = dfield(mi, df, LOOP_G, (nc, nv))
    tree_positions(parent, jtype, qadr, vadr, axis, axis2, pitch, XT_E, XT_r, S0, q, X_E, X_r, S)
    tree_velocities(parent, jtype, vadr, jnv, axis2, X_E, X_r, S, qd, v, c, vJ)
    world_poses(parent, X_E, X_r, oR, op)
    bias_accelerations(parent, X_E, X_r, c, h)
    loop_rows(frame_body, frame_E, frame_r, fa, fb, kind, sel, dim, row, ax1, ax2, twist, oR, op, v, h, np.zeros(6),
              RA, pAw, Q, phi, cv, gdot)
    Jw = np.zeros((6, nv))
    for r in range(G.shape[0]):
        for k in range(nv):
            G[r, k] = 0.0
    for l in range(fa.shape[0]):
        for side in range(2):
            b = frame_body[fa[l]] if side == 0 else frame_body[fb[l]]
            if b < 0:
                continue
            sgn = -1.0 if side == 0 else 1.0
            Jw[:] = 0.0
            jacobian_columns(parent, vadr, jnv, S, oR, op, b, pAw[l], RA[l], 1, Jw, 0)  # in A's axes
            for k in range(nv):
                for d in range(dim[l]):
                    s = 0.0
                    for m in range(6):
                        s += Q[l, d, m] * Jw[m, k]
                    G[row[l] + d, k] += sgn * s
    return OK


@jit
def mass_weighted_correction(parent, vadr, jnv, armature, I, S, X_E, X_r, oR, op, oS, oI, oIA, oU, IA, U, D, Dinv,
                             cnt, cpar, vid, Ups, W, frame_body, fa, fb, dim, row, RA, pAw, Q, K, fl, rhs, lam, info,
                             dx):
    """``dx = M^-1 G_c^T lam`` with ``K lam = rhs``, ``K = G_c M^-1 G_c^T``: the mass-weighted minimum-norm
    correction of projection error control (Jain 2012 Sec. 5), with the Schur complement from the node
    compliance and ``M^-1 G_c^T lam`` by an ABA pass on the loop forces; positions already evaluated
    (``X_E, X_r, S, oR, op`` and the loop rows ``RA, pAw, Q``)."""
    T = np.empty((2, 6, 6))
    st = articulated_inertias(parent, vadr, jnv, armature, I, X_E, X_r, S, IA, U, D, Dinv, T[0], T[1])
    if st != OK:
        return st
    st = loop_compliance(parent, vadr, jnv, armature, I, S, oR, op, oS, oI, oIA, oU, D, Dinv, cnt, cpar, vid, Ups, W,
                         frame_body, fa, fb, dim, row, RA, pAw, Q, K)
    if st != OK:
        return st
    solve_multipliers(K, rhs, lam, info)
    loop_forces(parent, frame_body, fa, fb, dim, row, oR, op, RA, pAw, Q, lam, fl)
    nb = parent.shape[0]
    aba_correction(parent, vadr, jnv, X_E, X_r, S, U, Dinv, fl, np.empty((nb, 6)), np.empty((nb, 6)),
                   np.empty(dx.shape[0]), dx)
    return OK


@jit
def projection_passes(parent, jtype, qadr, vadr, jnv, axis, axis2, pitch, XT_E, XT_r, I, S0, armature,
                  frame_body, frame_E, frame_r, fa, fb, kind, sel, dim, row, ax1, ax2, twist,
                  q, qd, tol, max_iter,
                  X_E, X_r, S, v, c, vJ, IA, U, D, Dinv, oR, op, oS, oI, oIA, oU, cnt, cpar, vid, Ups, W,
                  RA, pAw, Q, K, fl, phi, cv, gamma, lam, info, R3):
    """Projection error control in place (Jain 2012 Sec. 5): positions by Gauss-Newton onto ``phi = 0``
    with mass-weighted minimum-norm steps ``q <- q (+) M^-1 G^T (G M^-1 G^T)^+ (-phi)`` until
    ``max |phi| <= tol`` (at most ``max_iter`` steps), then velocities onto ``G qd = 0``. ``info`` receives
    (rank, singular flag, iterations, converged). ``R3`` (3x3) scratch."""
    nb = parent.shape[0]
    nv = qd.shape[0]
    zero6 = np.zeros(6)
    acc = np.zeros((nb, 6))
    dx = np.empty(nv)
    rhs = np.empty(phi.shape[0])
    qn = np.empty(q.shape[0])
    it = 0
    converged = 0
    while True:
        tree_positions(parent, jtype, qadr, vadr, axis, axis2, pitch, XT_E, XT_r, S0, q, X_E, X_r, S)
        world_poses(parent, X_E, X_r, oR, op)
        v[:] = 0.0
        loop_rows(frame_body, frame_E, frame_r, fa, fb, kind, sel, dim, row, ax1, ax2, twist, oR, op, v, acc, zero6,
                  RA, pAw, Q, phi, cv, gamma)
        err = 0.0
        for r in range(phi.shape[0]):
            err = max(err, abs(phi[r]))
            rhs[r] = -phi[r]
        if err <= tol:
            converged = 1
            break
        if it >= max_iter:
            break
        st = mass_weighted_correction(parent, vadr, jnv, armature, I, S, X_E, X_r, oR, op, oS, oI, oIA, oU, IA, U, D,
                                      Dinv, cnt, cpar, vid, Ups, W, frame_body, fa, fb, dim, row, RA, pAw, Q, K, fl,
                                      rhs, lam, info, dx)
        if st != OK:
            return st
        integrate_config(jtype, qadr, vadr, q, dx, 1.0, qn, R3)
        q[:] = qn
        it += 1
    # velocities: G qd = 0 at the projected positions
    tree_velocities(parent, jtype, vadr, jnv, axis2, X_E, X_r, S, qd, v, c, vJ)
    loop_rows(frame_body, frame_E, frame_r, fa, fb, kind, sel, dim, row, ax1, ax2, twist, oR, op, v, acc, zero6,
              RA, pAw, Q, phi, cv, gamma)
    for r in range(cv.shape[0]):
        rhs[r] = -cv[r]
    st = mass_weighted_correction(parent, vadr, jnv, armature, I, S, X_E, X_r, oR, op, oS, oI, oIA, oU, IA, U, D, Dinv,
                                  cnt, cpar, vid, Ups, W, frame_body, fa, fb, dim, row, RA, pAw, Q, K, fl,
                                  rhs, lam, info, dx)
    if st != OK:
        return st
    for k in range(nv):
        qd[k] += dx[k]
    info[2] = it
    info[3] = converged
    return OK


@jit
def project_state(model_int, model_float, data_float, data_int, q, qd, tol, max_iter, info):
    """Projection error control of the state ``(q, qd)`` in place onto the model's loops
    (:func:`projection_passes`); ``info`` (4,) int64 receives (rank, singular flag, iterations, converged).
    Returns a kernel status."""
    mi, mf, df = model_int, model_float, data_float
    X_E, X_r, S, v, c, oR, op = data_kinematics(mi, df)
    IA, pA, U, D, Dinv, u, a = data_aba(mi, df)
    RA, pAw, Qr, phi, cv, gamma = data_loops(mi, df)
    K, fl, lam = data_multipliers(mi, df)
    vJ = dfield(mi, df, VJ, 6)
    R3 = dfield(mi, df, SCRATCH, (3, 3))
    return projection_passes(*model_tree(mi, mf), *model_loops(mi, mf), q, qd, tol, max_iter,
                             X_E, X_r, S, v, c, vJ, IA, U, D, Dinv, oR, op, *data_world(mi, df),
                             *data_nodes(mi, df, data_int), RA, pAw, Qr, K, fl, phi, cv, gamma, lam, info, R3)
