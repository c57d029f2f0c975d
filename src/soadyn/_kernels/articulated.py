"""Articulated-body passes (RBDA ch. 7; Jain 2014 Eq. 59): per-joint factors ``U = P S``, ``D = S^T U``,
``D^-1``, the rank-n downdate a body passes to its parent, the ABA passes after kinematics, and the
articulated inertias alone (for M^-1 and the operational space compliance).

The per-body helpers a pass calls read the body's rows from whole arrays by its index: a row such as
``IA[i]`` built and handed to a function that is not inlined costs about 20 ns per call (built, passed
field by field, and reference counted when its array came from Python rather than from
:func:`soadyn._jit.view`), more than a one-dof step itself.
"""

from .._jit import inline_jit, jit
from .joints import OK, SINGULAR, principal_axis
from .kinematics import tree_positions, tree_velocities
from .spatial import add_XtIX, cross_force_add, inertia_mul, positive_pivot, spd_inverse, xforce_T_add, xmotion


@jit
def rank_n_downdate(IA, i, U, Dinv, va, n, out, G):
    """out += P - U D^-1 U^T with ``P = IA[i]``, ``D^-1 = Dinv[i]`` and the rows ``U[va:va+n]`` (each a
    6-vector) of body ``i``'s joint with ``n`` dofs: the articulated inertia a body passes to its parent
    (RBDA Eq. 7.23). ``G`` (6, 6) scratch holds ``G = D^-1 U^T`` row by row."""
    P, Dj = IA[i], Dinv[i]
    for d in range(n):
        for m in range(6):
            s = 0.0
            for e in range(n):
                s += Dj[d, e] * U[va + e, m]
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


@inline_jit
def one_dof_articulated(IA, i, U, Dinv, va, Ia):
    """``Ia = P - U D^-1 U^T`` of a one-dof joint with ``P = IA[i]``, ``U`` the row ``U[va]`` and ``D^-1 =
    Dinv[i, 0, 0]``: the articulated inertia body ``i`` passes to its parent (RBDA Eq. 7.23), the rank-one case
    of :func:`rank_n_downdate` written into ``Ia`` in one sweep (the same products and differences, without
    zeroing ``Ia`` first and adding ``P`` to it). Inlined into its caller."""
    dinv = Dinv[i, 0, 0]
    g0, g1, g2 = dinv * U[va, 0], dinv * U[va, 1], dinv * U[va, 2]
    g3, g4, g5 = dinv * U[va, 3], dinv * U[va, 4], dinv * U[va, 5]
    for r in range(6):
        ur = U[va, r]
        Ia[r, 0] = IA[i, r, 0] - ur * g0
        Ia[r, 1] = IA[i, r, 1] - ur * g1
        Ia[r, 2] = IA[i, r, 2] - ur * g2
        Ia[r, 3] = IA[i, r, 3] - ur * g3
        Ia[r, 4] = IA[i, r, 4] - ur * g4
        Ia[r, 5] = IA[i, r, 5] - ur * g5


@inline_jit
def joint_factors(IA, i, S, armature, va, n, m, U, D, Dinv):
    """The articulated-body factors of body ``i``'s joint with ``n`` dofs at rows ``va``, from its articulated
    inertia ``P = IA[i]``: ``U = P S`` (rows of ``U``), ``D_i = S^T U + diag(armature)`` and ``Dinv_i = D_i^-1``
    (RBDA Eqs. 7.25-7.26; the armature, a rotor inertia on the joint's own coordinates, adds to the
    joint-space inertia the way it adds to ``diag(M)``). ``m``: the joint's :func:`joints.principal_axis`
    code in the frame of ``P`` (-1: none), for which ``U`` is column ``m`` of ``P`` and ``D = P[m, m]``; a
    one-dof ``D`` is inverted as a reciprocal. Returns False if ``D`` is not positive definite. Inlined into its
    callers, as :func:`joint_acceleration`: called once per body, each call paid a reference-count call on entry
    and on exit for each of its arrays."""
    P, Dj = IA[i], D[i]
    if m >= 0:
        for l in range(6):
            U[va, l] = P[l, m]
        Dj[0, 0] = P[m, m] + armature[va]
    else:
        for d in range(n):
            for r in range(6):
                s = 0.0
                for c in range(6):
                    s += P[r, c] * S[va + d, c]
                U[va + d, r] = s
        for d in range(n):
            for e in range(n):
                s = 0.0
                for l in range(6):
                    s += S[va + d, l] * U[va + e, l]
                Dj[d, e] = s
            Dj[d, d] += armature[va + d]
    if n == 1:
        if not positive_pivot(Dj[0, 0], abs(Dj[0, 0])):
            return False
        Dinv[i, 0, 0] = 1.0 / Dj[0, 0]
        return True
    return spd_inverse(Dj, n, Dinv[i])


@inline_jit
def joint_acceleration(S, U, Dinv, i, u, va, n, a, qdd, w):
    """Pass-3 step of the ABA (RBDA Table 7.1) for body ``i``: ``qdd_i = D_i^-1 (u_i - U^T a_i)``, then
    ``a_i += S qdd_i``, with ``a[i]`` the body's acceleration before its joint moves; ``w`` (6,) scratch.
    Inlined into its callers, as :func:`joint_factors`."""
    Dj, ai = Dinv[i], a[i]
    for d in range(n):
        s = u[va + d]
        for m in range(6):
            s -= U[va + d, m] * ai[m]
        w[d] = s
    for d in range(n):
        s = 0.0
        for e in range(n):
            s += Dj[d, e] * w[e]
        qdd[va + d] = s
        for m in range(6):
            ai[m] += S[va + d, m] * s


@jit
def articulated_world(parent, vadr, jnv, armature, oI, oS, oIA, oU, D, Dinv, G):
    """Pass: leaves to root. Articulated inertias in world coordinates, where a child's contribution adds
    without a transform (Featherstone RBDA Sec. 7.3 in a common frame): ``U_i = P_i S_i``,
    ``D_i = S_i^T U_i``, ``P_p += P_i - U_i D_i^-1 U_i^T``. ``G`` (6, 6) scratch. Returns OK or
    ``SINGULAR | i << 8``."""
    for i in range(parent.shape[0]):
        for m in range(6):
            for l in range(6):
                oIA[i, m, l] = oI[i, m, l]
    for i in range(parent.shape[0] - 1, -1, -1):
        n = jnv[i]
        va = vadr[i]
        p = parent[i]
        if n == 1:  # rank one, in registers: U = P s, D = s . U, P_p += P - U D^-1 U^T
            if not one_dof_downdate(oIA, i, oS, armature[va], va, p, oU, D, Dinv):
                return SINGULAR | (i << 8)
            continue
        if not joint_factors(oIA, i, oS, armature, va, n, -1, oU, D, Dinv):
            return SINGULAR | (i << 8)
        if p >= 0:
            rank_n_downdate(oIA, i, oU, Dinv, va, n, oIA[p], G)
    return OK


@jit
def one_dof_downdate(IA, i, S, armature, va, p, U, D, Dinv):
    """:func:`joint_factors` and :func:`rank_n_downdate` of a one-dof joint (dof ``va``, parent ``p``; the
    downdate only below a parent): ``U = P s``, ``D = s . U + armature``, ``D^-1`` a reciprocal, ``IA[p] += P
    - U D^-1 U^T`` in one sweep. Returns False if ``D`` is not positive."""
    s0, s1, s2, s3, s4, s5 = S[va, 0], S[va, 1], S[va, 2], S[va, 3], S[va, 4], S[va, 5]
    for r in range(6):
        U[va, r] = (IA[i, r, 0] * s0 + IA[i, r, 1] * s1 + IA[i, r, 2] * s2 + IA[i, r, 3] * s3 + IA[i, r, 4] * s4
                    + IA[i, r, 5] * s5)
    u0, u1, u2, u3, u4, u5 = U[va, 0], U[va, 1], U[va, 2], U[va, 3], U[va, 4], U[va, 5]
    d = s0 * u0 + s1 * u1 + s2 * u2 + s3 * u3 + s4 * u4 + s5 * u5 + armature
    D[i, 0, 0] = d
    if not positive_pivot(d, abs(d)):
        return False
    dinv = 1.0 / d
    Dinv[i, 0, 0] = dinv
    if p >= 0:
        g0, g1, g2, g3, g4, g5 = u0 * dinv, u1 * dinv, u2 * dinv, u3 * dinv, u4 * dinv, u5 * dinv
        for r in range(6):
            ur = U[va, r]
            IA[p, r, 0] = IA[p, r, 0] + IA[i, r, 0] - ur * g0
            IA[p, r, 1] = IA[p, r, 1] + IA[i, r, 1] - ur * g1
            IA[p, r, 2] = IA[p, r, 2] + IA[i, r, 2] - ur * g2
            IA[p, r, 3] = IA[p, r, 3] + IA[i, r, 3] - ur * g3
            IA[p, r, 4] = IA[p, r, 4] + IA[i, r, 4] - ur * g4
            IA[p, r, 5] = IA[p, r, 5] + IA[i, r, 5] - ur * g5
    return True


@inline_jit
def joint_bias_forces(tau, S, pA, i, va, n, u):
    """``u_i = tau_i - S_i^T pA_i`` for the ``n`` dofs of body ``i`` from dof ``va`` (RBDA Table 7.1, pass 2)."""
    for d in range(n):
        s = tau[va + d]
        for m in range(6):
            s -= S[va + d, m] * pA[i, m]
        u[va + d] = s


@jit
def articulated_bias_world(parent, vadr, jnv, oS, oIA, oU, Dinv, f, c, tau, pA, u, w):
    """Pass: leaves to root, world coordinates, after :func:`articulated_world`: the bias forces of the ABA's
    pass 2 (RBDA Table 7.1). ``pA_i = f_i + sum pa`` over the children, ``u_i = tau_i - S_i^T pA_i`` and
    ``pa = pA_i + Ia c_i + U_i D_i^-1 u_i`` with ``Ia = P_i - U_i D_i^-1 U_i^T``, computed as
    ``pA_i + P_i c_i + U_i D_i^-1 (u_i - U_i^T c_i)``. ``f``: the bodies' bias forces ``V x* I V - f_ext``,
    ``c``: their velocity-product accelerations ``A_i - A_p - S_i qdd_i``, both (nb, 6). ``w`` (2, 6)
    scratch."""
    for i in range(parent.shape[0]):
        for m in range(6):
            pA[i, m] = f[i, m]
    for i in range(parent.shape[0] - 1, -1, -1):
        va, n = vadr[i], jnv[i]
        joint_bias_forces(tau, oS, pA, i, va, n, u)
        p = parent[i]
        if p < 0:
            continue
        for d in range(n):  # u_i - U_i^T c_i, then D_i^-1 (...)
            s = u[va + d]
            for m in range(6):
                s -= oU[va + d, m] * c[i, m]
            w[0, d] = s
        for d in range(n):
            s = 0.0
            for e in range(n):
                s += Dinv[i, d, e] * w[0, e]
            w[1, d] = s
        for m in range(6):
            s = pA[i, m]
            for l in range(6):
                s += oIA[i, m, l] * c[i, l]
            for d in range(n):
                s += oU[va + d, m] * w[1, d]
            pA[p, m] += s


@jit
def aba_world_accelerations(parent, vadr, jnv, oS, oU, Dinv, u, a0, c, a, qdd, w):
    """Pass: root to leaves, world coordinates: the ABA's pass 3 (RBDA Table 7.1) after
    :func:`articulated_bias_world`: ``a'_i = a_p + c_i`` (``a_p = a0`` at a root), ``qdd_i = D_i^-1 (u_i -
    U_i^T a'_i)``, ``a_i = a'_i + S_i qdd_i`` (:func:`joint_acceleration`). ``w`` (6,) scratch."""
    for i in range(parent.shape[0]):
        p = parent[i]
        for m in range(6):
            a[i, m] = c[i, m] + (a[p, m] if p >= 0 else a0[m])
        joint_acceleration(oS, oU, Dinv, i, u, vadr[i], jnv[i], a, qdd, w)


# ------------------------------------------------------------------------------------------------- ABA
@inline_jit
def aba_passes(parent, jtype, vadr, jnv, axis, armature, I, X_E, X_r, S, v, c, tau, fext, a0, IA, pA, U, D, Dinv, u, a,
               qdd, T):
    """Articulated-body passes after kinematics (RBDA Table 7.1; Jain 2014 Eq. 59 factors K, D, psi).
    pass 1 (root to leaves): ``IA_i = I_i``, ``pA_i = v_i x* I_i v_i - f_ext_i``;
    pass 2 (leaves to root): ``U_i = IA_i S_i``, ``D_i = S_i^T U_i``, ``u_i = tau_i - S_i^T pA_i``,
    ``Ia = IA_i - U_i D_i^-1 U_i^T``, ``pa = pA_i + Ia c_i + U_i D_i^-1 u_i``, ``IA_p += X^T Ia X``,
    ``pA_p += X^T pa``;
    pass 3 (root to leaves): ``a'_i = ^iX_p a_p + c_i``, ``qdd_i = D_i^-1 (u_i - U_i^T a'_i)``,
    ``a_i = a'_i + S_i qdd_i``.
    On return ``IA`` holds the articulated inertias, ``U``, ``D``, ``Dinv`` the AB factors. ``T`` (4, 6, 6)
    scratch: ``Ia = T[1]``, the 6-vectors ``pa``, ``tmp`` in ``T[2]``, ``G = T[3]``, ``T[0]`` for :func:`add_XtIX`.
    Returns ``OK`` or ``SINGULAR | i << 8`` when ``D_i`` is not positive definite."""
    nb = parent.shape[0]
    Tx, Ia, pa, tmp, G = T[0], T[1], T[2, 0], T[2, 1], T[3]
    # pass 1
    for i in range(nb):
        for m in range(6):
            for l in range(6):
                IA[i, m, l] = I[i, m, l]
        inertia_mul(I[i], v[i], tmp)
        for m in range(6):
            pA[i, m] = -fext[i, m]
        cross_force_add(v[i], tmp, pA[i])
    # pass 2
    for i in range(nb - 1, -1, -1):
        n = jnv[i]
        va = vadr[i]
        if not joint_factors(IA, i, S, armature, va, n, principal_axis(jtype[i], axis[i, 0], axis[i, 1], axis[i, 2]), U, D,
                             Dinv):
            return SINGULAR | (i << 8)
        joint_bias_forces(tau, S, pA, i, va, n, u)
        p = parent[i]
        if p >= 0:
            # Ia = IA - U Dinv U^T ; pa = pA + Ia c + U Dinv u
            for d in range(n):
                s = 0.0
                for e in range(n):
                    s += Dinv[i, d, e] * u[va + e]
                tmp[d] = s  # Dinv u
            if n == 1:
                one_dof_articulated(IA, i, U, Dinv, va, Ia)
            else:
                Ia[:] = 0.0
                rank_n_downdate(IA, i, U, Dinv, va, n, Ia, G)
            for m in range(6):
                s = pA[i, m]
                for l in range(6):
                    s += Ia[m, l] * c[i, l]
                for d in range(n):
                    s += U[va + d, m] * tmp[d]
                pa[m] = s
            add_XtIX(X_E, X_r, i, Ia, IA, p, Tx)
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
        joint_acceleration(S, U, Dinv, i, u, vadr[i], jnv[i], a, qdd, tmp)
    return OK


@jit
def aba_core(parent, jtype, qadr, vadr, jnv, axis, axis2, pitch, XT_E, XT_r, I, S0, armature,
             q, qd, tau, fext, a0,
             X_E, X_r, S, v, c, IA, pA, U, D, Dinv, u, a, qdd, T):
    """Kinematics then the ABA passes, for callers that step many times (inputs already checked).
    ``T``: (4, 6, 6) scratch."""
    tree_positions(parent, jtype, qadr, vadr, axis, axis2, pitch, XT_E, XT_r, S0, q, X_E, X_r, S)
    tree_velocities(parent, jtype, vadr, jnv, axis2, X_E, X_r, S, qd, v, c, T[2, 1])
    return aba_passes(parent, jtype, vadr, jnv, axis, armature, I, X_E, X_r, S, v, c, tau, fext, a0, IA, pA, U, D, Dinv,
                      u, a, qdd, T)


@jit
def articulated_inertias(parent, vadr, jnv, armature, I, X_E, X_r, S, IA, U, D, Dinv, T, Ia):
    """Pass: leaves to root, in body coordinates. The inertia-only part of the ABA pass 2: ``IA``, ``U``,
    ``D``, ``Dinv``. ``T``, ``Ia``: (6, 6) scratch."""
    for i in range(parent.shape[0]):
        for m in range(6):
            for l in range(6):
                IA[i, m, l] = I[i, m, l]
    for i in range(parent.shape[0] - 1, -1, -1):
        n = jnv[i]
        va = vadr[i]
        if not joint_factors(IA, i, S, armature, va, n, -1, U, D, Dinv):
            return SINGULAR | (i << 8)
        p = parent[i]
        if p >= 0:
            Ia[:] = 0.0
            rank_n_downdate(IA, i, U, Dinv, va, n, Ia, T)
            add_XtIX(X_E, X_r, i, Ia, IA, p, T)
    return OK


