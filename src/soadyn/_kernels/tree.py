"""O(N) tree dynamics kernels: kinematics, RNEA, CRBA, ABA, the O(N^2) recursive M^-1 and batches.

Argument order: the model's tree arrays (``Model._tree``: parent, jtype, qadr, vadr, jnv, axis, axis2,
pitch, XT_E, XT_r, I, S0, armature), then inputs, then Data-owned workspace, then outputs. Bodies are in depth-first
preorder (``parent[i] < i``; the subtree of ``i`` is ``i .. subtree_end[i]-1``). Every pass is a plain
index loop; ``i`` is a body, ``p = parent[i]``, ``k`` a dof, ``j`` an ancestor. Kernels return a status
code (``joints.OK`` or an error code, ``SINGULAR | body << 8``) instead of raising.
"""

import numpy as np

from .._jit import jit, parallel_jit, prange
from .joints import (BAD_FEXT, BAD_IN, BAD_QD, OK, SINGULAR, UNIVERSAL, all_finite, check_q, joint_transform,
                     universal_subspace)
from .spatial import (_sym3_congruence, add_XtIX, cross_force_add, cross_motion, inertia_mul, mul6, spd_inverse,
                      xforce_T_add, xmotion)


# ------------------------------------------------------------------------------------------ kinematics
@jit
def tree_positions(parent, jtype, qadr, vadr, axis, axis2, pitch, XT_E, XT_r, S0, q, X_E, X_r, S):
    """Pass: root to leaves. Body transforms ``^iX_p = X_J(q) X_T`` (RBDA Table 4.1 / Sec. 4.4):
    ``E = E_J E_T``, ``r = r_T + E_T^T r_J``, with ``X_J`` in registers. ``S`` holds the model's constant
    motion subspaces (``Data`` starts from them); only UNIVERSAL rows depend on ``q`` and are updated."""
    for i in range(parent.shape[0]):
        t = jtype[i]
        k = qadr[i]
        EJ, rJ = joint_transform(t, axis[i], axis2[i], pitch[i], q, k)
        for row in range(3):
            e0, e1, e2 = EJ[3 * row], EJ[3 * row + 1], EJ[3 * row + 2]
            for col in range(3):
                X_E[i, row, col] = e0 * XT_E[i, 0, col] + e1 * XT_E[i, 1, col] + e2 * XT_E[i, 2, col]
        for col in range(3):
            X_r[i, col] = XT_r[i, col] + XT_E[i, 0, col] * rJ[0] + XT_E[i, 1, col] * rJ[1] + XT_E[i, 2, col] * rJ[2]
        if t == UNIVERSAL:
            universal_subspace(axis[i], axis2[i], q, k, vadr[i], S)


@jit
def tree_velocities(parent, jtype, vadr, jnv, axis2, X_E, X_r, S, qd, v, c, vJ):
    """Pass: root to leaves (RBDA Eq. 5.7-5.8). ``v_i = ^iX_p v_p + S_i qd_i`` and the velocity-product
    acceleration ``c_i = v_i x (S_i qd_i) + Sdot_i qd_i`` (nonzero ``Sdot`` only for UNIVERSAL).
    ``vJ`` is a (6,) scratch array."""
    for i in range(parent.shape[0]):
        p = parent[i]
        for m in range(6):
            s = 0.0
            for k in range(vadr[i], vadr[i] + jnv[i]):
                s += S[k, m] * qd[k]
            vJ[m] = s
        if p >= 0:
            xmotion(X_E[i], X_r[i], v[p], v[i])
            for m in range(6):
                v[i, m] += vJ[m]
        else:
            for m in range(6):
                v[i, m] = vJ[m]
        cross_motion(v[i], vJ, c[i])
        if jtype[i] == UNIVERSAL:
            # Sdot qd = -qd1 qd2 (u x S_1): angular part only
            k = vadr[i]
            w = -qd[k] * qd[k + 1]
            u = axis2[i]
            c[i, 0] += w * (u[1] * S[k, 2] - u[2] * S[k, 1])
            c[i, 1] += w * (u[2] * S[k, 0] - u[0] * S[k, 2])
            c[i, 2] += w * (u[0] * S[k, 1] - u[1] * S[k, 0])


@jit
def check_state(jtype, qadr, q, qd):
    st = check_q(jtype, qadr, q)
    if st != OK:
        return st
    if not all_finite(qd):
        return BAD_QD
    return OK


@jit
def check_inputs(jtype, qadr, q, qd, x, fext):
    """Status of a dynamics call's inputs: the state, then the joint-space input ``x`` (``qdd`` or ``tau``:
    BAD_IN) and the external forces (BAD_FEXT)."""
    st = check_state(jtype, qadr, q, qd)
    if st != OK:
        return st
    if not all_finite(x):
        return BAD_IN
    if not all_finite(fext):
        return BAD_FEXT
    return OK


@jit
def rank_n_downdate(P, U, Dinv, va, n, out, G):
    """out += P - U D^-1 U^T for the rows ``U[va:va+n]`` (each a 6-vector) of a joint with ``n`` dofs: the
    articulated inertia a body passes to its parent (RBDA Eq. 7.23). ``G`` (6, 6) scratch holds
    ``G = D^-1 U^T`` row by row."""
    for d in range(n):
        for m in range(6):
            s = 0.0
            for e in range(n):
                s += Dinv[d, e] * U[va + e, m]
            G[d, m] = s
    for m in range(6):
        for l in range(6):
            out[m, l] += P[m, l]
    for d in range(n):
        u0, u1, u2, u3, u4, u5 = U[va + d, 0], U[va + d, 1], U[va + d, 2], U[va + d, 3], U[va + d, 4], U[va + d, 5]
        for l in range(6):
            g = G[d, l]
            out[0, l] -= u0 * g
            out[1, l] -= u1 * g
            out[2, l] -= u2 * g
            out[3, l] -= u3 * g
            out[4, l] -= u4 * g
            out[5, l] -= u5 * g


@jit
def joint_factors(P, S, armature, va, n, U, Dj, Djinv):
    """The articulated-body factors of a joint with ``n`` dofs at rows ``va``: ``U = P S`` (rows of ``U``),
    ``D = S^T U + diag(armature)`` and ``D^-1`` (RBDA Eqs. 7.25-7.26; the armature, a rotor inertia on the
    joint's own coordinates, adds to the joint-space inertia the way it adds to ``diag(M)``). Returns False if
    ``D`` is not positive definite."""
    for d in range(n):
        mul6(P, S[va + d], U[va + d])
    for d in range(n):
        for e in range(n):
            s = 0.0
            for m in range(6):
                s += S[va + d, m] * U[va + e, m]
            Dj[d, e] = s
        Dj[d, d] += armature[va + d]
    return spd_inverse(Dj, n, Djinv)


@jit
def joint_acceleration(S, U, Djinv, u, va, n, a, qdd, w):
    """Pass-3 step of the ABA (RBDA Table 7.1): ``qdd_i = D^-1 (u_i - U^T a_i)``, then ``a_i += S qdd_i``,
    with ``a`` the body's acceleration before its joint moves; ``w`` (6,) scratch."""
    for d in range(n):
        s = u[va + d]
        for m in range(6):
            s -= U[va + d, m] * a[m]
        w[d] = s
    for d in range(n):
        s = 0.0
        for e in range(n):
            s += Djinv[d, e] * w[e]
        qdd[va + d] = s
        for m in range(6):
            a[m] += S[va + d, m] * s


# ------------------------------------------------------------------------------------ world-frame passes
@jit
def world_poses(parent, X_E, X_r, oR, op):
    """Pass: root to leaves. ``oR_i = oR_p E_i^T``, ``op_i = op_p + oR_p r_i`` (the world is ``(1, 0)``)."""
    for i in range(parent.shape[0]):
        p = parent[i]
        E = X_E[i]
        r = X_r[i]
        if p < 0:
            for m in range(3):
                op[i, m] = r[m]
                for n in range(3):
                    oR[i, m, n] = E[n, m]
        else:
            for m in range(3):
                op[i, m] = op[p, m] + oR[p, m, 0] * r[0] + oR[p, m, 1] * r[1] + oR[p, m, 2] * r[2]
                for n in range(3):
                    oR[i, m, n] = oR[p, m, 0] * E[n, 0] + oR[p, m, 1] * E[n, 1] + oR[p, m, 2] * E[n, 2]


@jit
def world_subspaces(parent, vadr, jnv, S, oR, op, oS):
    """``oS = ^0X_i S``: motion subspaces in world coordinates at the world origin,
    ``[oR s_w; oR s_v + op x (oR s_w)]``."""
    for i in range(parent.shape[0]):
        for k in range(vadr[i], vadr[i] + jnv[i]):
            for m in range(3):
                oS[k, m] = oR[i, m, 0] * S[k, 0] + oR[i, m, 1] * S[k, 1] + oR[i, m, 2] * S[k, 2]
                oS[k, 3 + m] = oR[i, m, 0] * S[k, 3] + oR[i, m, 1] * S[k, 4] + oR[i, m, 2] * S[k, 5]
            oS[k, 3] += op[i, 1] * oS[k, 2] - op[i, 2] * oS[k, 1]
            oS[k, 4] += op[i, 2] * oS[k, 0] - op[i, 0] * oS[k, 2]
            oS[k, 5] += op[i, 0] * oS[k, 1] - op[i, 1] * oS[k, 0]


@jit
def world_inertias(I, oR, op, oI):
    """``oI_i = ^iX_0^T I_i ^iX_0``: body inertias in world coordinates about the world origin, from the
    compact form ``I = [[Ibar, h~], [h~^T, m 1]]`` (``h = m c``; RBDA Eq. 2.63): rotated
    ``Ibar' = R Ibar R^T``, ``h' = R h``, then moved from the body origin ``p`` to the world origin,
    ``Ibar_0 = Ibar' + m p~ p~^T + p~ h'~^T + h'~ p~^T``, ``h_0 = m p + h'`` (no division by the mass)."""
    for i in range(I.shape[0]):
        R = oR[i]
        m = I[i, 3, 3]
        b0, b1, b2 = I[i, 2, 4], I[i, 0, 5], I[i, 1, 3]  # h in body coordinates
        g0 = R[0, 0] * b0 + R[0, 1] * b1 + R[0, 2] * b2
        g1 = R[1, 0] * b0 + R[1, 1] * b1 + R[1, 2] * b2
        g2 = R[2, 0] * b0 + R[2, 1] * b1 + R[2, 2] * b2
        a00, a01, a02, a11, a12, a22 = _sym3_congruence(R.T, I[i, 0, 0], I[i, 0, 1], I[i, 0, 2], I[i, 1, 1],
                                                        I[i, 1, 2], I[i, 2, 2])
        x, y, z = op[i, 0], op[i, 1], op[i, 2]
        # m p~ p~^T + p~ h'~^T + h'~ p~^T = (m p.p + 2 p.h') 1 - m p p^T - p h'^T - h' p^T
        dd = m * (x * x + y * y + z * z) + 2.0 * (x * g0 + y * g1 + z * g2)
        oI[i, 0, 0] = a00 + dd - m * x * x - 2.0 * x * g0
        oI[i, 1, 1] = a11 + dd - m * y * y - 2.0 * y * g1
        oI[i, 2, 2] = a22 + dd - m * z * z - 2.0 * z * g2
        oI[i, 0, 1] = oI[i, 1, 0] = a01 - m * x * y - x * g1 - g0 * y
        oI[i, 0, 2] = oI[i, 2, 0] = a02 - m * x * z - x * g2 - g0 * z
        oI[i, 1, 2] = oI[i, 2, 1] = a12 - m * y * z - y * g2 - g1 * z
        h0, h1, h2 = m * x + g0, m * y + g1, m * z + g2
        # h~ block (top right) and its transpose
        oI[i, 0, 3] = oI[i, 3, 0] = 0.0
        oI[i, 1, 4] = oI[i, 4, 1] = 0.0
        oI[i, 2, 5] = oI[i, 5, 2] = 0.0
        oI[i, 0, 4] = oI[i, 4, 0] = -h2
        oI[i, 0, 5] = oI[i, 5, 0] = h1
        oI[i, 1, 3] = oI[i, 3, 1] = h2
        oI[i, 1, 5] = oI[i, 5, 1] = -h0
        oI[i, 2, 3] = oI[i, 3, 2] = -h1
        oI[i, 2, 4] = oI[i, 4, 2] = h0
        for a in range(3):
            for b in range(3):
                oI[i, 3 + a, 3 + b] = m if a == b else 0.0


@jit
def articulated_world(parent, vadr, jnv, armature, oI, oS, oIA, oU, D, Dinv, G):
    """Pass: leaves to root. Articulated inertias in world coordinates, where a child's contribution adds
    without a transform (Featherstone RBDA Sec. 7.3 in a common frame): ``U_i = P_i S_i``,
    ``D_i = S_i^T U_i``, ``P_p += P_i - U_i D_i^-1 U_i^T``. ``G`` (6, 6) scratch. Returns OK or
    ``SINGULAR | i << 8``."""
    oIA[:] = oI
    for i in range(parent.shape[0] - 1, -1, -1):
        n = jnv[i]
        va = vadr[i]
        if not joint_factors(oIA[i], oS, armature, va, n, oU, D[i], Dinv[i]):
            return SINGULAR | (i << 8)
        p = parent[i]
        if p >= 0:
            rank_n_downdate(oIA[i], oU, Dinv[i], va, n, oIA[p], G)
    return OK


# ------------------------------------------------------------------------------------------------ RNEA
@jit
def rnea_passes(parent, vadr, jnv, armature, I, X_E, X_r, S, v, c, qdd, fext, a0, a, f, tau, tmp):
    """RNEA passes after kinematics (RBDA Table 5.1; Chang-Khatib 2000 Table 2).
    pass 1 (root to leaves): ``a_i = ^iX_p a_p + S_i qdd_i + c_i``, ``f_i = I_i a_i + v_i x* I_i v_i - f_ext_i``;
    pass 2 (leaves to root): ``tau_i = S_i^T f_i + armature_i qdd_i``, ``f_p += ^iX_p^T f_i``."""
    nb = parent.shape[0]
    for i in range(nb):
        p = parent[i]
        if p >= 0:
            xmotion(X_E[i], X_r[i], a[p], a[i])
        else:
            xmotion(X_E[i], X_r[i], a0, a[i])
        for m in range(6):
            s = c[i, m]
            for k in range(vadr[i], vadr[i] + jnv[i]):
                s += S[k, m] * qdd[k]
            a[i, m] += s
        inertia_mul(I[i], a[i], f[i])
        inertia_mul(I[i], v[i], tmp)
        cross_force_add(v[i], tmp, f[i])
        for m in range(6):
            f[i, m] -= fext[i, m]
    for i in range(nb - 1, -1, -1):
        for k in range(vadr[i], vadr[i] + jnv[i]):
            s = 0.0
            for m in range(6):
                s += S[k, m] * f[i, m]
            tau[k] = s + armature[k] * qdd[k]
        p = parent[i]
        if p >= 0:
            xforce_T_add(X_E[i], X_r[i], f[i], f[p])


@jit
def rnea(parent, jtype, qadr, vadr, jnv, axis, axis2, pitch, XT_E, XT_r, I, S0, armature,
         q, qd, qdd, fext, a0,
         X_E, X_r, S, v, c, a, f,
         tau):
    """Inverse dynamics ``tau = M(q) qdd + C(q, qd) qd + g(q) - sum J_i^T f_ext_i`` by the recursive
    Newton-Euler algorithm (RBDA Table 5.1). ``fext`` (nb, 6): body-frame external forces about the body
    origin. ``a0``: base acceleration ``[0; -g]``. Output ``tau`` (nv,)."""
    st = check_inputs(jtype, qadr, q, qd, qdd, fext)
    if st != OK:
        return st
    tmp = np.empty(6)
    tree_positions(parent, jtype, qadr, vadr, axis, axis2, pitch, XT_E, XT_r, S0, q, X_E, X_r, S)
    tree_velocities(parent, jtype, vadr, jnv, axis2, X_E, X_r, S, qd, v, c, tmp)
    rnea_passes(parent, vadr, jnv, armature, I, X_E, X_r, S, v, c, qdd, fext, a0, a, f, tau, tmp)
    return OK


# ------------------------------------------------------------------------------------------------ CRBA
@jit
def crba(parent, jtype, qadr, vadr, jnv, axis, axis2, pitch, XT_E, XT_r, I, S0, armature,
         q,
         X_E, X_r, S, oR, op, oS, oIc,
         M):
    """Joint-space inertia matrix by the composite-rigid-body algorithm (RBDA Table 6.2) in world
    coordinates, where composite inertias add without transforms and each entry of ``M`` is one dot
    product: pass 1 (leaves to root) ``Ic_p += Ic_i``; pass 2 ``F = Ic_i S_i``, ``M_{j i} = S_j^T F`` for
    ``j`` = i and its ancestors; then ``M_kk += armature_k``. Output ``M`` (nv, nv), symmetric."""
    st = check_q(jtype, qadr, q)
    if st != OK:
        return st
    nb = parent.shape[0]
    F = np.empty((6, 6))
    tree_positions(parent, jtype, qadr, vadr, axis, axis2, pitch, XT_E, XT_r, S0, q, X_E, X_r, S)
    world_poses(parent, X_E, X_r, oR, op)
    world_subspaces(parent, vadr, jnv, S, oR, op, oS)
    world_inertias(I, oR, op, oIc)
    # pass 1: leaves to root
    for i in range(nb - 1, 0, -1):
        p = parent[i]
        if p >= 0:
            for m in range(6):
                for l in range(6):
                    oIc[p, m, l] += oIc[i, m, l]
    # pass 2: columns of body i against i and its ancestors
    for i in range(nb):
        n = jnv[i]
        va = vadr[i]
        for d in range(n):
            mul6(oIc[i], oS[va + d], F[d])
        j = i
        while j >= 0:
            for e in range(vadr[j], vadr[j] + jnv[j]):
                for d in range(n):
                    s = 0.0
                    for m in range(6):
                        s += oS[e, m] * F[d, m]
                    M[e, va + d] = s
                    M[va + d, e] = s
            j = parent[j]
    for k in range(M.shape[0]):
        M[k, k] += armature[k]
    return OK


# ------------------------------------------------------------------------------------------------- ABA
@jit
def aba_passes(parent, vadr, jnv, armature, I, X_E, X_r, S, v, c, tau, fext, a0, IA, pA, U, D, Dinv, u, a, qdd, T, Ia,
               tmp, pa, G):
    """Articulated-body passes after kinematics (RBDA Table 7.1; Jain 2014 Eq. 59 factors K, D, psi).
    pass 1 (root to leaves): ``IA_i = I_i``, ``pA_i = v_i x* I_i v_i - f_ext_i``;
    pass 2 (leaves to root): ``U_i = IA_i S_i``, ``D_i = S_i^T U_i``, ``u_i = tau_i - S_i^T pA_i``,
    ``Ia = IA_i - U_i D_i^-1 U_i^T``, ``pa = pA_i + Ia c_i + U_i D_i^-1 u_i``, ``IA_p += X^T Ia X``,
    ``pA_p += X^T pa``;
    pass 3 (root to leaves): ``a'_i = ^iX_p a_p + c_i``, ``qdd_i = D_i^-1 (u_i - U_i^T a'_i)``,
    ``a_i = a'_i + S_i qdd_i``.
    On return ``IA`` holds the articulated inertias, ``U``, ``D``, ``Dinv`` the AB factors.
    Returns ``OK`` or ``SINGULAR | i << 8`` when ``D_i`` is not positive definite."""
    nb = parent.shape[0]
    # pass 1
    for i in range(nb):
        IA[i] = I[i]
        inertia_mul(I[i], v[i], tmp)
        for m in range(6):
            pA[i, m] = -fext[i, m]
        cross_force_add(v[i], tmp, pA[i])
    # pass 2
    for i in range(nb - 1, -1, -1):
        n = jnv[i]
        va = vadr[i]
        if not joint_factors(IA[i], S, armature, va, n, U, D[i], Dinv[i]):
            return SINGULAR | (i << 8)
        for d in range(n):
            s = tau[va + d]
            for m in range(6):
                s -= S[va + d, m] * pA[i, m]
            u[va + d] = s
        p = parent[i]
        if p >= 0:
            # Ia = IA - U Dinv U^T ; pa = pA + Ia c + U Dinv u
            for d in range(n):
                s = 0.0
                for e in range(n):
                    s += Dinv[i, d, e] * u[va + e]
                tmp[d] = s  # Dinv u
            Ia[:] = 0.0
            rank_n_downdate(IA[i], U, Dinv[i], va, n, Ia, G)
            for m in range(6):
                s = pA[i, m]
                for l in range(6):
                    s += Ia[m, l] * c[i, l]
                for d in range(n):
                    s += U[va + d, m] * tmp[d]
                pa[m] = s
            add_XtIX(X_E[i], X_r[i], Ia, IA[p], T)
            xforce_T_add(X_E[i], X_r[i], pa, pA[p])
    # pass 3
    for i in range(nb):
        p = parent[i]
        if p >= 0:
            xmotion(X_E[i], X_r[i], a[p], a[i])
        else:
            xmotion(X_E[i], X_r[i], a0, a[i])
        for m in range(6):
            a[i, m] += c[i, m]
        joint_acceleration(S, U, Dinv[i], u, vadr[i], jnv[i], a[i], qdd, tmp)
    return OK


@jit
def aba(parent, jtype, qadr, vadr, jnv, axis, axis2, pitch, XT_E, XT_r, I, S0, armature,
        q, qd, tau, fext, a0,
        X_E, X_r, S, v, c, IA, pA, U, D, Dinv, u, a,
        qdd):
    """Forward dynamics ``qdd = M^-1 (tau - C qd - g + sum J_i^T f_ext_i)`` by the articulated-body
    algorithm, O(N) (RBDA Table 7.1; Jain 2014 Eq. 59). Output ``qdd`` (nv,)."""
    st = check_inputs(jtype, qadr, q, qd, tau, fext)
    if st != OK:
        return st
    T = np.empty((4, 6, 6))
    return aba_core(parent, jtype, qadr, vadr, jnv, axis, axis2, pitch, XT_E, XT_r, I, S0, armature, q, qd, tau, fext,
                    a0, X_E, X_r, S, v, c, IA, pA, U, D, Dinv, u, a, qdd, T)


@jit
def aba_core(parent, jtype, qadr, vadr, jnv, axis, axis2, pitch, XT_E, XT_r, I, S0, armature,
             q, qd, tau, fext, a0,
             X_E, X_r, S, v, c, IA, pA, U, D, Dinv, u, a, qdd, T):
    """Kinematics then the ABA passes, for callers that step many times (inputs already checked).
    ``T``: (4, 6, 6) scratch."""
    tree_positions(parent, jtype, qadr, vadr, axis, axis2, pitch, XT_E, XT_r, S0, q, X_E, X_r, S)
    tree_velocities(parent, jtype, vadr, jnv, axis2, X_E, X_r, S, qd, v, c, T[2, 1])
    return aba_passes(parent, vadr, jnv, armature, I, X_E, X_r, S, v, c, tau, fext, a0, IA, pA, U, D, Dinv, u, a, qdd,
                      T[0], T[1], T[2, 1], T[2, 0], T[3])


# ----------------------------------------------------------------------------------------------- M^-1
@jit
def articulated_inertias(parent, vadr, jnv, armature, I, X_E, X_r, S, IA, U, D, Dinv, T, Ia):
    """Pass: leaves to root, in body coordinates. The inertia-only part of the ABA pass 2: ``IA``, ``U``,
    ``D``, ``Dinv``."""
    for i in range(parent.shape[0]):
        IA[i] = I[i]
    for i in range(parent.shape[0] - 1, -1, -1):
        n = jnv[i]
        va = vadr[i]
        if not joint_factors(IA[i], S, armature, va, n, U, D[i], Dinv[i]):
            return SINGULAR | (i << 8)
        p = parent[i]
        if p >= 0:
            Ia[:] = 0.0
            rank_n_downdate(IA[i], U, Dinv[i], va, n, Ia, T)
            add_XtIX(X_E[i], X_r[i], Ia, IA[p], T)
    return OK


@jit
def column_dots(w, j, A, b, k0, k1, out):
    """out[k] = w[j] . A[b, k] for columns ``k0 <= k < k1`` of the (nb, nv, 6) array ``A`` (row ``w[j]``
    held in registers)."""
    w0, w1, w2, w3, w4, w5 = w[j, 0], w[j, 1], w[j, 2], w[j, 3], w[j, 4], w[j, 5]
    for k in range(k0, k1):
        out[k] = w0 * A[b, k, 0] + w1 * A[b, k, 1] + w2 * A[b, k, 2] + w3 * A[b, k, 3] + w4 * A[b, k, 4] + w5 * A[b, k, 5]


@jit
def add_column_products(w, j, x, k0, k1, A, b):
    """A[b, k] += w[j] x[k] for columns ``k0 <= k < k1`` (a rank-one update of body b's 6 x nv block)."""
    w0, w1, w2, w3, w4, w5 = w[j, 0], w[j, 1], w[j, 2], w[j, 3], w[j, 4], w[j, 5]
    for k in range(k0, k1):
        c = x[k]
        A[b, k, 0] += w0 * c
        A[b, k, 1] += w1 * c
        A[b, k, 2] += w2 * c
        A[b, k, 3] += w3 * c
        A[b, k, 4] += w4 * c
        A[b, k, 5] += w5 * c


@jit
def minv(parent, jtype, qadr, vadr, jnv, axis, axis2, pitch, XT_E, XT_r, I, S0, armature,
         subtree_end, q,
         X_E, X_r, S, oR, op, oS, oI, oIA, oU, D, Dinv, Fm, Am,
         Minv):
    """``M^-1`` in O(N^2) without forming ``M``: the articulated-body algorithm run for all unit torques at
    once (the ``[I - H psi K]* D^-1 [I - H psi K]`` factorization, Jain 2014 Eq. 59; Carpentier & Mansard
    2018's recursive M^-1), in world coordinates so that forces and accelerations propagate between
    bodies without transforms. Bodies in depth-first order make each subtree's dofs the contiguous range
    ``vadr[i] .. vend(i)``.
    pass 1 (leaves to root): ``Minv[i, i] = D_i^-1``, ``Minv[i, desc] = -D_i^-1 S_i^T Fm_i[:, desc]``,
    ``Fm_p[:, sub(i)] += (Fm_i + U_i Minv[i, :])[:, sub(i)]`` (bias forces of the unit torques);
    pass 2 (root to leaves), columns ``k >= vadr[i]``: ``Minv[i, k] -= D_i^-1 U_i^T Am_p[:, k]``,
    ``Am_i[:, k] = Am_p[:, k] + S_i Minv[i, k]``; then symmetrize.
    ``Fm``, ``Am``: (nb, nv, 6) workspaces (column k of body i's 6 x nv block is ``Fm[i, k]``). Output ``Minv`` (nv, nv)."""
    st = check_q(jtype, qadr, q)
    if st != OK:
        return st
    nb = parent.shape[0]
    nv = Minv.shape[0]
    T = np.empty((6, 6))
    tree_positions(parent, jtype, qadr, vadr, axis, axis2, pitch, XT_E, XT_r, S0, q, X_E, X_r, S)
    world_poses(parent, X_E, X_r, oR, op)
    world_subspaces(parent, vadr, jnv, S, oR, op, oS)
    world_inertias(I, oR, op, oI)
    st = articulated_world(parent, vadr, jnv, armature, oI, oS, oIA, oU, D, Dinv, T)
    if st != OK:
        return st
    Wk = np.empty((6, nv))  # projections of the unit-torque forces/accelerations on a body's dofs
    Minv[:] = 0.0
    # pass 1: leaves to root
    for i in range(nb - 1, -1, -1):
        n = jnv[i]
        va = vadr[i]
        ve = vadr[subtree_end[i] - 1] + jnv[subtree_end[i] - 1]  # end of the subtree's dofs
        p = parent[i]
        for d in range(n):
            for e in range(n):
                Minv[va + d, va + e] = Dinv[i, d, e]
        # Minv[i, desc] = -D^-1 S^T Fm_i[:, desc]
        for e in range(n):
            column_dots(oS, va + e, Fm, i, va + n, ve, Wk[e])
        for d in range(n):
            for e in range(n):
                c = Dinv[i, d, e]
                for k in range(va + n, ve):
                    Minv[va + d, k] -= c * Wk[e, k]
        if p >= 0:  # Fm_p[:, sub(i)] = Fm_i + U_i Minv[i, :]: each column of sub(i) comes from child i alone
            for k in range(va, ve):
                for m in range(6):
                    Fm[p, k, m] = Fm[i, k, m] if k >= va + n else 0.0
            for d in range(n):
                add_column_products(oU, va + d, Minv[va + d], va, ve, Fm, p)
    # pass 2: root to leaves, columns k >= vadr[i]
    for i in range(nb):
        n = jnv[i]
        va = vadr[i]
        p = parent[i]
        if p >= 0:
            # Minv[i, k] -= D^-1 U^T Am_p[:, k];  Am_i = Am_p
            for e in range(n):
                column_dots(oU, va + e, Am, p, va, nv, Wk[e])
            for d in range(n):
                for e in range(n):
                    c = Dinv[i, d, e]
                    for k in range(va, nv):
                        Minv[va + d, k] -= c * Wk[e, k]
            for k in range(va, nv):
                for m in range(6):
                    Am[i, k, m] = Am[p, k, m]
        else:
            for k in range(va, nv):
                for m in range(6):
                    Am[i, k, m] = 0.0
        # Am_i[:, k] += S_i Minv[i, k]
        for d in range(n):
            add_column_products(oS, va + d, Minv[va + d], va, nv, Am, i)
    for r in range(nv):
        for k in range(r):
            Minv[r, k] = Minv[k, r]
    return OK


# --------------------------------------------------------------------------------------------- batches
@parallel_jit
def aba_batch(parent, jtype, qadr, vadr, jnv, axis, axis2, pitch, XT_E, XT_r, I, S0, armature,
              Q, QD, TAU, fext, a0, nchunks,
              QDD, status):
    """ABA over K states (rows of Q, QD, TAU) in parallel: ``nchunks`` chunks, each with its own workspace
    allocated once. Outputs ``QDD`` (K, nv) and per-state ``status`` (K,)."""
    K = Q.shape[0]
    nb = parent.shape[0]
    nv = QD.shape[1]
    for ch in prange(nchunks):
        X_E = np.empty((nb, 3, 3))
        X_r = np.empty((nb, 3))
        S = S0.copy()
        v = np.empty((nb, 6))
        c = np.empty((nb, 6))
        IA = np.empty((nb, 6, 6))
        pA = np.empty((nb, 6))
        U = np.empty((nv, 6))
        D = np.empty((nb, 6, 6))
        Dinv = np.empty((nb, 6, 6))
        u = np.empty(nv)
        a = np.empty((nb, 6))
        T = np.empty((4, 6, 6))
        for s in range(ch * K // nchunks, (ch + 1) * K // nchunks):
            st = check_state(jtype, qadr, Q[s], QD[s])
            if st == OK and not all_finite(TAU[s]):
                st = BAD_IN
            if st == OK:
                st = aba_core(parent, jtype, qadr, vadr, jnv, axis, axis2, pitch, XT_E, XT_r, I, S0, armature,
                              Q[s], QD[s], TAU[s], fext, a0, X_E, X_r, S, v, c, IA, pA, U, D, Dinv,
                              u, a, QDD[s], T)
            status[s] = st


@parallel_jit
def rnea_batch(parent, jtype, qadr, vadr, jnv, axis, axis2, pitch, XT_E, XT_r, I, S0, armature,
               Q, QD, QDD, fext, a0, nchunks,
               TAU, status):
    """RNEA over K states in parallel (see :func:`aba_batch`). Output ``TAU`` (K, nv)."""
    K = Q.shape[0]
    nb = parent.shape[0]
    for ch in prange(nchunks):
        X_E = np.empty((nb, 3, 3))
        X_r = np.empty((nb, 3))
        S = S0.copy()
        v = np.empty((nb, 6))
        c = np.empty((nb, 6))
        a = np.empty((nb, 6))
        f = np.empty((nb, 6))
        tmp = np.empty(6)
        for s in range(ch * K // nchunks, (ch + 1) * K // nchunks):
            st = check_state(jtype, qadr, Q[s], QD[s])
            if st == OK and not all_finite(QDD[s]):
                st = BAD_IN
            if st == OK:
                tree_positions(parent, jtype, qadr, vadr, axis, axis2, pitch, XT_E, XT_r, S0, Q[s],
                               X_E, X_r, S)
                tree_velocities(parent, jtype, vadr, jnv, axis2, X_E, X_r, S, QD[s], v, c, tmp)
                rnea_passes(parent, vadr, jnv, armature, I, X_E, X_r, S, v, c, QDD[s], fext, a0, a, f, TAU[s], tmp)
            status[s] = st
