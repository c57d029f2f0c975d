"""O(N) tree dynamics kernels: kinematics, RNEA, CRBA, ABA, the O(N^2) recursive M^-1 and batches.

Argument order: the model's tree arrays (``Model._tree``: parent, jtype, qadr, vadr, jnv, axis, axis2,
pitch, XT_E, XT_r, I, S0), then inputs, then Data-owned workspace, then outputs. Bodies are in depth-first
preorder (``parent[i] < i``; the subtree of ``i`` is ``i .. subtree_end[i]-1``). Every pass is a plain
index loop; ``i`` is a body, ``p = parent[i]``, ``k`` a dof, ``j`` an ancestor. Kernels return a status
code (``joints.OK`` or an error code, ``SINGULAR | body << 8``) instead of raising.
"""

import numpy as np

from .._jit import jit, parallel_jit, prange
from .joints import (BAD_FEXT, BAD_IN, BAD_QD, OK, SINGULAR, UNIVERSAL, all_finite, check_q,
                     joint_subspace, joint_transform)
from .spatial import (add_XtIX, compose, cross_force_add, cross_motion, mul6, spd_inverse, xforce_T_add,
                      xmotion)


# ------------------------------------------------------------------------------------------ kinematics
@jit
def tree_positions(parent, jtype, qadr, vadr, axis, axis2, pitch, XT_E, XT_r, S0, q, XJ_E, XJ_r, X_E, X_r, S):
    """Pass: root to leaves. Joint transforms ``X_J(q)``, body transforms ``^iX_p = X_J X_T`` and the
    state-dependent motion subspaces ``S`` (RBDA Table 4.1 / Sec. 4.4)."""
    for i in range(parent.shape[0]):
        t = jtype[i]
        joint_transform(t, axis[i], axis2[i], pitch[i], q, qadr[i], XJ_E[i], XJ_r[i])
        compose(XJ_E[i], XJ_r[i], XT_E[i], XT_r[i], X_E[i], X_r[i])
        joint_subspace(t, axis[i], axis2[i], q, qadr[i], S0, vadr[i], S)


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


# ------------------------------------------------------------------------------------------------ RNEA
@jit
def rnea_passes(parent, vadr, jnv, I, X_E, X_r, S, v, c, qdd, fext, a0, a, f, tau, tmp):
    """RNEA passes after kinematics (RBDA Table 5.1; Chang-Khatib 2000 Table 2).
    pass 1 (root to leaves): ``a_i = ^iX_p a_p + S_i qdd_i + c_i``, ``f_i = I_i a_i + v_i x* I_i v_i - f_ext_i``;
    pass 2 (leaves to root): ``tau_i = S_i^T f_i``, ``f_p += ^iX_p^T f_i``."""
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
        mul6(I[i], a[i], f[i])
        mul6(I[i], v[i], tmp)
        cross_force_add(v[i], tmp, f[i])
        for m in range(6):
            f[i, m] -= fext[i, m]
    for i in range(nb - 1, -1, -1):
        for k in range(vadr[i], vadr[i] + jnv[i]):
            s = 0.0
            for m in range(6):
                s += S[k, m] * f[i, m]
            tau[k] = s
        p = parent[i]
        if p >= 0:
            xforce_T_add(X_E[i], X_r[i], f[i], f[p])


@jit
def rnea(parent, jtype, qadr, vadr, jnv, axis, axis2, pitch, XT_E, XT_r, I, S0,
         q, qd, qdd, fext, a0,
         XJ_E, XJ_r, X_E, X_r, S, v, c, a, f,
         tau):
    """Inverse dynamics ``tau = M(q) qdd + C(q, qd) qd + g(q) - sum J_i^T f_ext_i`` by the recursive
    Newton-Euler algorithm (RBDA Table 5.1). ``fext`` (nb, 6): body-frame external forces about the body
    origin. ``a0``: base acceleration ``[0; -g]``. Output ``tau`` (nv,)."""
    st = check_state(jtype, qadr, q, qd)
    if st != OK:
        return st
    if not all_finite(qdd):
        return BAD_IN
    if not all_finite(fext):
        return BAD_FEXT
    tmp = np.empty(6)
    tree_positions(parent, jtype, qadr, vadr, axis, axis2, pitch, XT_E, XT_r, S0, q, XJ_E, XJ_r, X_E, X_r, S)
    tree_velocities(parent, jtype, vadr, jnv, axis2, X_E, X_r, S, qd, v, c, tmp)
    rnea_passes(parent, vadr, jnv, I, X_E, X_r, S, v, c, qdd, fext, a0, a, f, tau, tmp)
    return OK


# ------------------------------------------------------------------------------------------------ CRBA
@jit
def crba(parent, jtype, qadr, vadr, jnv, axis, axis2, pitch, XT_E, XT_r, I, S0,
         q,
         XJ_E, XJ_r, X_E, X_r, S, Ic,
         M):
    """Joint-space inertia matrix by the composite-rigid-body algorithm (RBDA Table 6.2).
    pass 1 (leaves to root): ``Ic_p += ^iX_p^T Ic_i ^iX_p``;
    pass 2: ``F = Ic_i S_i``, ``M_ii = S_i^T F``; walking ``j`` up the ancestors: ``F = ^jX_p^T F``,
    ``M_{p i} = S_p^T F``. Output ``M`` (nv, nv), symmetric."""
    st = check_q(jtype, qadr, q)
    if st != OK:
        return st
    nb = parent.shape[0]
    T = np.empty((6, 6))
    F = np.empty((6, 6))
    tmp = np.empty(6)
    tree_positions(parent, jtype, qadr, vadr, axis, axis2, pitch, XT_E, XT_r, S0, q, XJ_E, XJ_r, X_E, X_r, S)
    Ic[:] = I
    for i in range(nb - 1, -1, -1):
        p = parent[i]
        if p >= 0:
            add_XtIX(X_E[i], X_r[i], Ic[i], Ic[p], T)
    M[:] = 0.0
    for i in range(nb):
        n = jnv[i]
        va = vadr[i]
        for d in range(n):
            mul6(Ic[i], S[va + d], F[d])
        for d in range(n):
            for e in range(n):
                s = 0.0
                for m in range(6):
                    s += S[va + e, m] * F[d, m]
                M[va + e, va + d] = s
        j = i
        while parent[j] >= 0:
            for d in range(n):
                tmp[:] = 0.0
                xforce_T_add(X_E[j], X_r[j], F[d], tmp)
                F[d, :] = tmp
            j = parent[j]
            for d in range(n):
                for e in range(vadr[j], vadr[j] + jnv[j]):
                    s = 0.0
                    for m in range(6):
                        s += S[e, m] * F[d, m]
                    M[e, va + d] = s
                    M[va + d, e] = s
    return OK


# ------------------------------------------------------------------------------------------------- ABA
@jit
def aba_passes(parent, vadr, jnv, I, X_E, X_r, S, v, c, tau, fext, a0, IA, pA, U, D, Dinv, u, a, qdd, T, Ia, tmp,
               pa):
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
        mul6(I[i], v[i], tmp)
        for m in range(6):
            pA[i, m] = -fext[i, m]
        cross_force_add(v[i], tmp, pA[i])
    # pass 2
    for i in range(nb - 1, -1, -1):
        n = jnv[i]
        va = vadr[i]
        for d in range(n):
            mul6(IA[i], S[va + d], U[va + d])
        for d in range(n):
            s = tau[va + d]
            for m in range(6):
                s -= S[va + d, m] * pA[i, m]
            u[va + d] = s
            for e in range(n):
                s = 0.0
                for m in range(6):
                    s += S[va + d, m] * U[va + e, m]
                D[i, d, e] = s
        if not spd_inverse(D[i], n, Dinv[i]):
            return SINGULAR | (i << 8)
        p = parent[i]
        if p >= 0:
            # Ia = IA - U Dinv U^T ; pa = pA + Ia c + U Dinv u
            for d in range(n):
                s = 0.0
                for e in range(n):
                    s += Dinv[i, d, e] * u[va + e]
                tmp[d] = s  # Dinv u
            for m in range(6):
                for l in range(6):
                    s = IA[i, m, l]
                    for d in range(n):
                        w = 0.0
                        for e in range(n):
                            w += Dinv[i, d, e] * U[va + e, l]
                        s -= U[va + d, m] * w
                    Ia[m, l] = s
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
        n = jnv[i]
        va = vadr[i]
        for m in range(6):
            a[i, m] += c[i, m]
        for d in range(n):
            s = u[va + d]
            for m in range(6):
                s -= U[va + d, m] * a[i, m]
            tmp[d] = s
        for d in range(n):
            s = 0.0
            for e in range(n):
                s += Dinv[i, d, e] * tmp[e]
            qdd[va + d] = s
        for d in range(n):
            for m in range(6):
                a[i, m] += S[va + d, m] * qdd[va + d]
    return OK


@jit
def aba(parent, jtype, qadr, vadr, jnv, axis, axis2, pitch, XT_E, XT_r, I, S0,
        q, qd, tau, fext, a0,
        XJ_E, XJ_r, X_E, X_r, S, v, c, IA, pA, U, D, Dinv, u, a,
        qdd):
    """Forward dynamics ``qdd = M^-1 (tau - C qd - g + sum J_i^T f_ext_i)`` by the articulated-body
    algorithm, O(N) (RBDA Table 7.1; Jain 2014 Eq. 59). Output ``qdd`` (nv,)."""
    st = check_state(jtype, qadr, q, qd)
    if st != OK:
        return st
    if not all_finite(tau):
        return BAD_IN
    if not all_finite(fext):
        return BAD_FEXT
    T = np.empty((3, 6, 6))
    return aba_core(parent, jtype, qadr, vadr, jnv, axis, axis2, pitch, XT_E, XT_r, I, S0, q, qd, tau, fext, a0,
                    XJ_E, XJ_r, X_E, X_r, S, v, c, IA, pA, U, D, Dinv, u, a, qdd, T)


@jit
def aba_core(parent, jtype, qadr, vadr, jnv, axis, axis2, pitch, XT_E, XT_r, I, S0,
             q, qd, tau, fext, a0,
             XJ_E, XJ_r, X_E, X_r, S, v, c, IA, pA, U, D, Dinv, u, a, qdd, T):
    """Kinematics then the ABA passes, for callers that step many times (inputs already checked).
    ``T``: (3, 6, 6) scratch."""
    tree_positions(parent, jtype, qadr, vadr, axis, axis2, pitch, XT_E, XT_r, S0, q, XJ_E, XJ_r, X_E, X_r, S)
    tree_velocities(parent, jtype, vadr, jnv, axis2, X_E, X_r, S, qd, v, c, T[2, 1])
    return aba_passes(parent, vadr, jnv, I, X_E, X_r, S, v, c, tau, fext, a0, IA, pA, U, D, Dinv, u, a, qdd,
                      T[0], T[1], T[2, 1], T[2, 0])


# ----------------------------------------------------------------------------------------------- M^-1
@jit
def articulated_inertias(parent, vadr, jnv, I, X_E, X_r, S, IA, U, D, Dinv, T, Ia):
    """Pass: leaves to root. The inertia-only part of the ABA pass 2: ``IA``, ``U``, ``D``, ``Dinv``."""
    for i in range(parent.shape[0]):
        IA[i] = I[i]
    for i in range(parent.shape[0] - 1, -1, -1):
        n = jnv[i]
        va = vadr[i]
        for d in range(n):
            mul6(IA[i], S[va + d], U[va + d])
        for d in range(n):
            for e in range(n):
                s = 0.0
                for m in range(6):
                    s += S[va + d, m] * U[va + e, m]
                D[i, d, e] = s
        if not spd_inverse(D[i], n, Dinv[i]):
            return SINGULAR | (i << 8)
        p = parent[i]
        if p >= 0:
            for m in range(6):
                for l in range(6):
                    s = IA[i, m, l]
                    for d in range(n):
                        w = 0.0
                        for e in range(n):
                            w += Dinv[i, d, e] * U[va + e, l]
                        s -= U[va + d, m] * w
                    Ia[m, l] = s
            add_XtIX(X_E[i], X_r[i], Ia, IA[p], T)
    return OK


@jit
def minv(parent, jtype, qadr, vadr, jnv, axis, axis2, pitch, XT_E, XT_r, I, S0,
         subtree_end, q,
         XJ_E, XJ_r, X_E, X_r, S, IA, U, D, Dinv, Fm, Am,
         Minv):
    """``M^-1`` in O(N^2) without forming ``M``: the articulated-body algorithm run for all unit torques at
    once (the ``[I - H psi K]* D^-1 [I - H psi K]`` factorization, Jain 2014 Eq. 59; Carpentier & Mansard
    2018's recursive M^-1). Bodies in depth-first order make each subtree's dofs the contiguous range
    ``vadr[i] .. vend(i)``.
    pass 1 (leaves to root): ``Minv[i, i] = D_i^-1``, ``Minv[i, desc] = -D_i^-1 S_i^T Fm_i[:, desc]``,
    ``Fm_p[:, sub(i)] += X^T (Fm_i + U_i Minv[i, :])[:, sub(i)]`` (bias forces of the unit torques);
    pass 2 (root to leaves), columns ``k >= vadr[i]``: ``Am_i = X Am_p``,
    ``Minv[i, k] -= D_i^-1 U_i^T Am_i[:, k]``, ``Am_i[:, k] += S_i Minv[i, k]``; then symmetrize.
    ``Fm``, ``Am``: (nb, 6, nv) workspaces. Output ``Minv`` (nv, nv)."""
    st = check_q(jtype, qadr, q)
    if st != OK:
        return st
    nb = parent.shape[0]
    nv = Minv.shape[0]
    T = np.empty((3, 6, 6))
    tree_positions(parent, jtype, qadr, vadr, axis, axis2, pitch, XT_E, XT_r, S0, q, XJ_E, XJ_r, X_E, X_r, S)
    st = articulated_inertias(parent, vadr, jnv, I, X_E, X_r, S, IA, U, D, Dinv, T[0], T[1])
    if st != OK:
        return st
    Minv[:] = 0.0
    Fm[:] = 0.0
    # pass 1: leaves to root
    for i in range(nb - 1, -1, -1):
        n = jnv[i]
        va = vadr[i]
        ve = vadr[subtree_end[i] - 1] + jnv[subtree_end[i] - 1]  # end of the subtree's dofs
        for d in range(n):
            for e in range(n):
                Minv[va + d, va + e] = Dinv[i, d, e]
        for k in range(va + n, ve):
            for d in range(n):
                s = 0.0
                for e in range(n):
                    w = 0.0
                    for m in range(6):
                        w += S[va + e, m] * Fm[i, m, k]
                    s -= Dinv[i, d, e] * w
                Minv[va + d, k] = s
        p = parent[i]
        if p >= 0:
            for k in range(va, ve):
                for m in range(6):
                    s = Fm[i, m, k]
                    for d in range(n):
                        s += U[va + d, m] * Minv[va + d, k]
                    T[2, 0, m] = s
                T[2, 1, :] = 0.0
                xforce_T_add(X_E[i], X_r[i], T[2, 0], T[2, 1])
                for m in range(6):
                    Fm[p, m, k] += T[2, 1, m]
    # pass 2: root to leaves
    for i in range(nb):
        n = jnv[i]
        va = vadr[i]
        p = parent[i]
        for k in range(va, nv):
            if p >= 0:
                for m in range(6):
                    T[2, 0, m] = Am[p, m, k]
                xmotion(X_E[i], X_r[i], T[2, 0], T[2, 1])
                for m in range(6):
                    Am[i, m, k] = T[2, 1, m]
            else:
                for m in range(6):
                    Am[i, m, k] = 0.0
            for d in range(n):
                s = 0.0
                for e in range(n):
                    w = 0.0
                    for m in range(6):
                        w += U[va + e, m] * Am[i, m, k]
                    s += Dinv[i, d, e] * w
                Minv[va + d, k] -= s
            for m in range(6):
                s = 0.0
                for d in range(n):
                    s += S[va + d, m] * Minv[va + d, k]
                Am[i, m, k] += s
    for r in range(nv):
        for k in range(r):
            Minv[r, k] = Minv[k, r]
    return OK


# --------------------------------------------------------------------------------------------- batches
@parallel_jit
def aba_batch(parent, jtype, qadr, vadr, jnv, axis, axis2, pitch, XT_E, XT_r, I, S0,
              Q, QD, TAU, fext, a0, nchunks,
              QDD, status):
    """ABA over K states (rows of Q, QD, TAU) in parallel: ``nchunks`` chunks, each with its own workspace
    allocated once. Outputs ``QDD`` (K, nv) and per-state ``status`` (K,)."""
    K = Q.shape[0]
    nb = parent.shape[0]
    nv = QD.shape[1]
    for ch in prange(nchunks):
        XJ_E = np.empty((nb, 3, 3))
        XJ_r = np.empty((nb, 3))
        X_E = np.empty((nb, 3, 3))
        X_r = np.empty((nb, 3))
        S = np.empty((nv, 6))
        v = np.empty((nb, 6))
        c = np.empty((nb, 6))
        IA = np.empty((nb, 6, 6))
        pA = np.empty((nb, 6))
        U = np.empty((nv, 6))
        D = np.empty((nb, 6, 6))
        Dinv = np.empty((nb, 6, 6))
        u = np.empty(nv)
        a = np.empty((nb, 6))
        T = np.empty((3, 6, 6))
        for s in range(ch * K // nchunks, (ch + 1) * K // nchunks):
            st = check_state(jtype, qadr, Q[s], QD[s])
            if st == OK and not all_finite(TAU[s]):
                st = BAD_IN
            if st == OK:
                st = aba_core(parent, jtype, qadr, vadr, jnv, axis, axis2, pitch, XT_E, XT_r, I, S0,
                              Q[s], QD[s], TAU[s], fext, a0, XJ_E, XJ_r, X_E, X_r, S, v, c, IA, pA, U, D, Dinv,
                              u, a, QDD[s], T)
            status[s] = st


@parallel_jit
def rnea_batch(parent, jtype, qadr, vadr, jnv, axis, axis2, pitch, XT_E, XT_r, I, S0,
               Q, QD, QDD, fext, a0, nchunks,
               TAU, status):
    """RNEA over K states in parallel (see :func:`aba_batch`). Output ``TAU`` (K, nv)."""
    K = Q.shape[0]
    nb = parent.shape[0]
    nv = QD.shape[1]
    for ch in prange(nchunks):
        XJ_E = np.empty((nb, 3, 3))
        XJ_r = np.empty((nb, 3))
        X_E = np.empty((nb, 3, 3))
        X_r = np.empty((nb, 3))
        S = np.empty((nv, 6))
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
                               XJ_E, XJ_r, X_E, X_r, S)
                tree_velocities(parent, jtype, vadr, jnv, axis2, X_E, X_r, S, QD[s], v, c, tmp)
                rnea_passes(parent, vadr, jnv, I, X_E, X_r, S, v, c, QDD[s], fext, a0, a, f, TAU[s], tmp)
            status[s] = st
