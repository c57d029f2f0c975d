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
from .spatial import add_XtIX, compose, cross_force_add, cross_motion, mul6, spd_inverse, xforce_T_add, xmotion


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
def world_inertias(I, oR, op, oI, T):
    """``oI_i = ^iX_0^T I_i ^iX_0``: body inertias in world coordinates about the world origin
    (``^iX_0 = (oR_i^T, op_i)``). ``T`` (6x6) scratch."""
    for i in range(I.shape[0]):
        oI[i] = 0.0
        add_XtIX(oR[i].T, op[i], I[i], oI[i], T)


@jit
def articulated_world(parent, vadr, jnv, oI, oS, oIA, oU, D, Dinv):
    """Pass: leaves to root. Articulated inertias in world coordinates, where a child's contribution adds
    without a transform (Featherstone RBDA Sec. 7.3 in a common frame): ``U_i = P_i S_i``,
    ``D_i = S_i^T U_i``, ``P_p += P_i - U_i D_i^-1 U_i^T``. Returns OK or ``SINGULAR | i << 8``."""
    oIA[:] = oI
    for i in range(parent.shape[0] - 1, -1, -1):
        n = jnv[i]
        va = vadr[i]
        for d in range(n):
            mul6(oIA[i], oS[va + d], oU[va + d])
        for d in range(n):
            for e in range(n):
                s = 0.0
                for m in range(6):
                    s += oS[va + d, m] * oU[va + e, m]
                D[i, d, e] = s
        if not spd_inverse(D[i], n, Dinv[i]):
            return SINGULAR | (i << 8)
        p = parent[i]
        if p >= 0:
            for m in range(6):
                for l in range(m, 6):
                    s = oIA[i, m, l]
                    for d in range(n):
                        w = 0.0
                        for e in range(n):
                            w += Dinv[i, d, e] * oU[va + e, l]
                        s -= oU[va + d, m] * w
                    oIA[p, m, l] += s
                    if l != m:
                        oIA[p, l, m] += s
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
         XJ_E, XJ_r, X_E, X_r, S, oR, op, oS, oIc,
         M):
    """Joint-space inertia matrix by the composite-rigid-body algorithm (RBDA Table 6.2) in world
    coordinates, where composite inertias add without transforms and each entry of ``M`` is one dot
    product: pass 1 (leaves to root) ``Ic_p += Ic_i``; pass 2 ``F = Ic_i S_i``, ``M_{j i} = S_j^T F`` for
    ``j`` = i and its ancestors. Output ``M`` (nv, nv), symmetric."""
    st = check_q(jtype, qadr, q)
    if st != OK:
        return st
    nb = parent.shape[0]
    T = np.empty((6, 6))
    F = np.empty((6, 6))
    tree_positions(parent, jtype, qadr, vadr, axis, axis2, pitch, XT_E, XT_r, S0, q, XJ_E, XJ_r, X_E, X_r, S)
    world_poses(parent, X_E, X_r, oR, op)
    world_subspaces(parent, vadr, jnv, S, oR, op, oS)
    world_inertias(I, oR, op, oIc, T)
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
    """Pass: leaves to root, in body coordinates. The inertia-only part of the ABA pass 2: ``IA``, ``U``,
    ``D``, ``Dinv``."""
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
         XJ_E, XJ_r, X_E, X_r, S, oR, op, oS, oI, oIA, oU, D, Dinv, Fm, Am,
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
    ``Fm``, ``Am``: (nb, 6, nv) workspaces. Output ``Minv`` (nv, nv)."""
    st = check_q(jtype, qadr, q)
    if st != OK:
        return st
    nb = parent.shape[0]
    nv = Minv.shape[0]
    T = np.empty((6, 6))
    w = np.empty(6)
    tree_positions(parent, jtype, qadr, vadr, axis, axis2, pitch, XT_E, XT_r, S0, q, XJ_E, XJ_r, X_E, X_r, S)
    world_poses(parent, X_E, X_r, oR, op)
    world_subspaces(parent, vadr, jnv, S, oR, op, oS)
    world_inertias(I, oR, op, oI, T)
    st = articulated_world(parent, vadr, jnv, oI, oS, oIA, oU, D, Dinv)
    if st != OK:
        return st
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
        for k in range(va + n, ve):
            for e in range(n):
                s = 0.0
                for m in range(6):
                    s += oS[va + e, m] * Fm[i, m, k]
                w[e] = s
            for d in range(n):
                s = 0.0
                for e in range(n):
                    s -= Dinv[i, d, e] * w[e]
                Minv[va + d, k] = s
        if p >= 0:  # each column of sub(i) gets its bias force from child i alone
            for m in range(6):
                for k in range(va, ve):
                    s = Fm[i, m, k] if k >= va + n else 0.0
                    for d in range(n):
                        s += oU[va + d, m] * Minv[va + d, k]
                    Fm[p, m, k] = s
    # pass 2: root to leaves
    for i in range(nb):
        n = jnv[i]
        va = vadr[i]
        p = parent[i]
        for k in range(va, nv):
            if p >= 0:
                for e in range(n):
                    s = 0.0
                    for m in range(6):
                        s += oU[va + e, m] * Am[p, m, k]
                    w[e] = s
                for d in range(n):
                    s = 0.0
                    for e in range(n):
                        s += Dinv[i, d, e] * w[e]
                    Minv[va + d, k] -= s
            for m in range(6):
                s = Am[p, m, k] if p >= 0 else 0.0
                for d in range(n):
                    s += oS[va + d, m] * Minv[va + d, k]
                Am[i, m, k] = s
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
