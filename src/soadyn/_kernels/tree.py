"""The public tree dynamics kernels: RNEA, CRBA, ABA and the recursive M^-1 (docs/architecture.md, Kernels).

Calling convention: ``(model_int, model_float, data_float, inputs...)``. A kernel opens the Model and Data
fields it reads as views of the packed buffers (``layout.model_tree``, ``layout.data_kinematics``, ...),
under their Model/Data names, checks its inputs (finite, unit quaternions) and returns a status code
(``joints.OK``, an error code, ``SINGULAR | body << 8``, or ``NOT_FINITE`` when finite inputs overflow)
instead of raising. Inputs are the caller's arrays, never copied. Bodies are in depth-first preorder
(``body_parent[i] < i``; the subtree of ``i`` is ``i .. body_subtree_end[i]-1``); ``i`` is a body,
``p = parent[i]``, ``k`` a dof, ``j`` an ancestor.
"""

from numba import uint64

from .._jit import borrow, jit
from .articulated import aba_core, articulated_world
from .joints import NOT_FINITE, OK, all_finite, check_q
from .kinematics import (BAD_ARRAY, check_inputs, tree_positions, tree_velocities, vector_ready, vectors_ready,
                         world_inertias, world_poses, world_subspaces)
from .layout import (AM, F, FM, MM, MINV, NB, NQ, NV, SCRATCH, TAU, WK, QDD, data_aba, data_kinematics, data_world,
                     dfield, model_extras, model_tree)
from .spatial import cross_force_add, inertia_mul, xforce_T_add, xmotion


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
def rnea(model_int, model_float, data_float, q, qd, qdd, fext):
    """Inverse dynamics ``tau = M(q) qdd + C(q, qd) qd + g(q) - sum J_i^T f_ext_i`` by the recursive
    Newton-Euler algorithm (RBDA Table 5.1) into ``Data.tau`` (nv,). ``fext`` (nb, 6): body-frame external
    forces about the body origin."""
    (body_parent, jnt_type, jnt_qadr, jnt_vadr, jnt_nv, jnt_axis, jnt_axis2, jnt_pitch, body_Xtree_E, body_Xtree_r,
     body_I, dof_S, dof_armature) = model_tree(model_int, model_float)
    if not vectors_ready(q, model_int[NQ], qd, qdd, model_int[NV]):
        return BAD_ARRAY
    st = check_inputs(jnt_type, jnt_qadr, q, qd, qdd, fext)
    if st != OK:
        return st
    gravity_accel = model_extras(model_int, model_float)[1]
    X_E, X_r, S, v, c, oR, op = data_kinematics(model_int, data_float)
    IA, pA, U, D, Dinv, u, a = data_aba(model_int, data_float)
    nb, nv = model_int[NB], model_int[NV]
    f = dfield(model_int, data_float, F, (nb, 6))
    tau = dfield(model_int, data_float, TAU, nv)
    tmp = dfield(model_int, data_float, SCRATCH, (4, 6, 6))[0, 0]
    tree_positions(body_parent, jnt_type, jnt_qadr, jnt_vadr, jnt_axis, jnt_axis2, jnt_pitch, body_Xtree_E,
                   body_Xtree_r, dof_S, q, X_E, X_r, S)
    tree_velocities(body_parent, jnt_type, jnt_vadr, jnt_nv, jnt_axis2, X_E, X_r, S, qd, v, c, tmp)
    rnea_passes(body_parent, jnt_vadr, jnt_nv, dof_armature, body_I, X_E, X_r, S, v, c, qdd, fext, gravity_accel, a, f,
                tau, tmp)
    return OK if all_finite(tau) else NOT_FINITE


# ------------------------------------------------------------------------------------------------ CRBA
@jit
def crba(model_int, model_float, data_float, q):
    """Joint-space inertia matrix by the composite-rigid-body algorithm (RBDA Table 6.2) in world
    coordinates, where composite inertias add without transforms and each entry of ``M`` is one dot
    product: pass 1 (leaves to root) ``Ic_p += Ic_i``; pass 2 ``F = Ic_i S_i``, ``M_{j i} = S_j^T F`` for
    ``j`` = i and its ancestors; then ``M_kk += armature_k``. Output ``Data.M`` (nv, nv), symmetric; ``Data.oIA`` holds the composite
    inertias."""
    (body_parent, jnt_type, jnt_qadr, jnt_vadr, jnt_nv, jnt_axis, jnt_axis2, jnt_pitch, body_Xtree_E, body_Xtree_r,
     body_I, dof_S, dof_armature) = model_tree(model_int, model_float)
    if not vector_ready(q, model_int[NQ]):
        return BAD_ARRAY
    st = check_q(jnt_type, jnt_qadr, q)
    if st != OK:
        return st
    X_E, X_r, S, v, c, oR, op = data_kinematics(model_int, data_float)
    oS, oI, oIA, oU = data_world(model_int, data_float)
    nb, nv = model_int[NB], model_int[NV]
    M = dfield(model_int, data_float, MM, (nv, nv))
    Fc = dfield(model_int, data_float, SCRATCH, (4, 6, 6))[0]
    tree_positions(body_parent, jnt_type, jnt_qadr, jnt_vadr, jnt_axis, jnt_axis2, jnt_pitch, body_Xtree_E,
                   body_Xtree_r, dof_S, q, X_E, X_r, S)
    world_poses(body_parent, X_E, X_r, oR, op)
    world_subspaces(body_parent, jnt_vadr, jnt_nv, S, oR, op, oS)
    world_inertias(body_I, oR, op, oIA)
    # pass 1: leaves to root
    for i in range(nb - 1, 0, -1):
        p = body_parent[i]
        if p >= 0:
            for m in range(6):
                for l in range(6):
                    oIA[p, m, l] += oIA[i, m, l]
    # pass 2: columns of body i against i and its ancestors
    for i in range(nb):
        n = jnt_nv[i]
        va = jnt_vadr[i]
        if n == 1:  # F = Ic_i s in registers, then one dot product per dof of i and its ancestors
            s0, s1, s2, s3, s4, s5 = oS[va, 0], oS[va, 1], oS[va, 2], oS[va, 3], oS[va, 4], oS[va, 5]
            f0 = (oIA[i, 0, 0] * s0 + oIA[i, 0, 1] * s1 + oIA[i, 0, 2] * s2 + oIA[i, 0, 3] * s3 + oIA[i, 0, 4] * s4
                  + oIA[i, 0, 5] * s5)
            f1 = (oIA[i, 1, 0] * s0 + oIA[i, 1, 1] * s1 + oIA[i, 1, 2] * s2 + oIA[i, 1, 3] * s3 + oIA[i, 1, 4] * s4
                  + oIA[i, 1, 5] * s5)
            f2 = (oIA[i, 2, 0] * s0 + oIA[i, 2, 1] * s1 + oIA[i, 2, 2] * s2 + oIA[i, 2, 3] * s3 + oIA[i, 2, 4] * s4
                  + oIA[i, 2, 5] * s5)
            f3 = (oIA[i, 3, 0] * s0 + oIA[i, 3, 1] * s1 + oIA[i, 3, 2] * s2 + oIA[i, 3, 3] * s3 + oIA[i, 3, 4] * s4
                  + oIA[i, 3, 5] * s5)
            f4 = (oIA[i, 4, 0] * s0 + oIA[i, 4, 1] * s1 + oIA[i, 4, 2] * s2 + oIA[i, 4, 3] * s3 + oIA[i, 4, 4] * s4
                  + oIA[i, 4, 5] * s5)
            f5 = (oIA[i, 5, 0] * s0 + oIA[i, 5, 1] * s1 + oIA[i, 5, 2] * s2 + oIA[i, 5, 3] * s3 + oIA[i, 5, 4] * s4
                  + oIA[i, 5, 5] * s5)
            j = i
            while j >= 0:
                for e in range(jnt_vadr[j], jnt_vadr[j] + jnt_nv[j]):
                    s = oS[e, 0] * f0 + oS[e, 1] * f1 + oS[e, 2] * f2 + oS[e, 3] * f3 + oS[e, 4] * f4 + oS[e, 5] * f5
                    M[e, va] = s
                    M[va, e] = s
                j = body_parent[j]
            continue
        for d in range(n):  # F = Ic_i S_i
            for r in range(6):
                s = 0.0
                for m in range(6):
                    s += oIA[i, r, m] * oS[va + d, m]
                Fc[d, r] = s
        j = i
        while j >= 0:
            for e in range(jnt_vadr[j], jnt_vadr[j] + jnt_nv[j]):
                for d in range(n):
                    s = 0.0
                    for m in range(6):
                        s += oS[e, m] * Fc[d, m]
                    M[e, va + d] = s
                    M[va + d, e] = s
            j = body_parent[j]
    for k in range(nv):
        M[k, k] += dof_armature[k]
    return OK


# ------------------------------------------------------------------------------------------------- ABA
@jit
def aba(model_int, model_float, data_float, q, qd, tau, fext):
    """Forward dynamics ``qdd = M^-1 (tau - C qd - g + sum J_i^T f_ext_i)`` by the articulated-body
    algorithm, O(N) (RBDA Table 7.1; Jain 2014 Eq. 59; :func:`articulated.aba_passes`) into ``Data.qdd``
    (nv,); ``Data.IA, U, D, Dinv`` keep the articulated-body factors."""
    (body_parent, jnt_type, jnt_qadr, jnt_vadr, jnt_nv, jnt_axis, jnt_axis2, jnt_pitch, body_Xtree_E, body_Xtree_r,
     body_I, dof_S, dof_armature) = model_tree(model_int, model_float)
    if not vectors_ready(q, model_int[NQ], qd, tau, model_int[NV]):
        return BAD_ARRAY
    st = check_inputs(jnt_type, jnt_qadr, q, qd, tau, fext)
    if st != OK:
        return st
    gravity_accel = model_extras(model_int, model_float)[1]
    X_E, X_r, S, v, c, oR, op = data_kinematics(model_int, data_float)
    IA, pA, U, D, Dinv, u, a = data_aba(model_int, data_float)
    qdd = dfield(model_int, data_float, QDD, model_int[NV])
    st = aba_core(body_parent, jnt_type, jnt_qadr, jnt_vadr, jnt_nv, jnt_axis, jnt_axis2, jnt_pitch, body_Xtree_E,
                  body_Xtree_r, body_I, dof_S, dof_armature, q, qd, tau, fext, gravity_accel, X_E, X_r, S, v, c, IA, pA, U, D, Dinv,
                  u, a, qdd, dfield(model_int, data_float, SCRATCH, (4, 6, 6)))
    if st != OK:
        return st
    return OK if all_finite(qdd) else NOT_FINITE


# ----------------------------------------------------------------------------------------------- M^-1
@jit
def row_dots(w, j, A, k0, k1, out):
    """out[k] = w[j] . A[:, k] for columns ``k0 <= k < k1`` of the (6, nv) block ``A`` (row ``w[j]`` held in
    registers)."""
    w0, w1, w2, w3, w4, w5 = w[j, 0], w[j, 1], w[j, 2], w[j, 3], w[j, 4], w[j, 5]
    for k in range(uint64(k0), uint64(k1)):
        out[k] = w0 * A[0, k] + w1 * A[1, k] + w2 * A[2, k] + w3 * A[3, k] + w4 * A[4, k] + w5 * A[5, k]


@jit
def add_outer(w, j, x, k0, k1, A):
    """A[:, k] += w[j] x[k] for columns ``k0 <= k < k1`` (a rank-one update of the (6, nv) block ``A``)."""
    w0, w1, w2, w3, w4, w5 = w[j, 0], w[j, 1], w[j, 2], w[j, 3], w[j, 4], w[j, 5]
    for k in range(uint64(k0), uint64(k1)):
        c = x[k]
        A[0, k] += w0 * c
        A[1, k] += w1 * c
        A[2, k] += w2 * c
        A[3, k] += w3 * c
        A[4, k] += w4 * c
        A[5, k] += w5 * c


@jit
def minv(model_int, model_float, data_float, q):
    """``M^-1`` in O(N^2) without forming ``M``: the articulated-body algorithm run for all unit torques at
    once (the ``[I - H psi K]* D^-1 [I - H psi K]`` factorization, Jain 2014 Eq. 59; Carpentier & Mansard
    2018's recursive M^-1), in world coordinates so that forces and accelerations propagate between
    bodies without transforms. Bodies in depth-first order make each subtree's dofs the contiguous range
    ``jnt_vadr[i] .. vend(i)``.
    pass 1 (leaves to root): ``Minv[i, i] = D_i^-1``, ``Minv[i, desc] = -D_i^-1 S_i^T Fm_i[:, desc]``,
    ``Fm_p[:, sub(i)] += (Fm_i + U_i Minv[i, :])[:, sub(i)]`` (bias forces of the unit torques);
    pass 2 (root to leaves), columns ``k >= jnt_vadr[i]``: ``Minv[i, k] -= D_i^-1 U_i^T Am_p[:, k]``,
    ``Am_i[:, k] = Am_p[:, k] + S_i Minv[i, k]``; then symmetrize.
    ``Data.Fm``, ``Data.Am``: (nb, 6, nv) workspaces, body i's 6 x nv block stored by rows (column k is
    ``Am[i, :, k]``), so that each pass sweeps the columns with six contiguous rows, in loops that LLVM
    vectorizes across columns: their index is unsigned (``uint64``), as numba tests a signed index for
    wraparound, which keeps a loop scalar (a 120-link chain: 56 -> 38 us). The bias forces need one block,
    ``Fm[0]``, as in Pinocchio's computeMinverse: the columns ``sub(i)`` of ``Fm_i`` are read only while
    ``i`` is visited, and the subtrees of siblings are disjoint; ``Data.Wk`` (6, nv): projections of the
    unit-torque forces and accelerations on a body's dofs. Output ``Data.Minv`` (nv, nv)."""
    # arguments borrowed (soadyn._jit.borrow): the passes update no reference count for them
    model_int, model_float, data_float, q = borrow(model_int), borrow(model_float), borrow(data_float), borrow(q)
    (body_parent, jnt_type, jnt_qadr, jnt_vadr, jnt_nv, jnt_axis, jnt_axis2, jnt_pitch, body_Xtree_E, body_Xtree_r,
     body_I, dof_S, dof_armature) = model_tree(model_int, model_float)
    if not vector_ready(q, model_int[NQ]):
        return BAD_ARRAY
    st = check_q(jnt_type, jnt_qadr, q)
    if st != OK:
        return st
    body_subtree_end = model_extras(model_int, model_float)[0]
    X_E, X_r, S, v, c, oR, op = data_kinematics(model_int, data_float)
    oS, oI, oIA, oU = data_world(model_int, data_float)
    IA, pA, U, D, Dinv, u, a = data_aba(model_int, data_float)
    nb, nv = model_int[NB], model_int[NV]
    Fm = dfield(model_int, data_float, FM, (nb, 6, nv))
    Am = dfield(model_int, data_float, AM, (nb, 6, nv))
    Minv = dfield(model_int, data_float, MINV, (nv, nv))
    Wk = dfield(model_int, data_float, WK, (6, nv))
    return minv_passes(body_parent, jnt_type, jnt_qadr, jnt_vadr, jnt_nv, jnt_axis, jnt_axis2, jnt_pitch,
                       body_Xtree_E, body_Xtree_r, body_I, dof_S, dof_armature, body_subtree_end, q, X_E, X_r, S, oR, op, oS, oI,
                       oIA, oU, D, Dinv, Fm, Am, Minv, dfield(model_int, data_float, SCRATCH, (4, 6, 6))[0], Wk)


@jit
def minv_passes(body_parent, jnt_type, jnt_qadr, jnt_vadr, jnt_nv, jnt_axis, jnt_axis2, jnt_pitch, body_Xtree_E,
                body_Xtree_r, body_I, dof_S, dof_armature, body_subtree_end, q, X_E, X_r, S, oR, op, oS, oI, oIA, oU, D, Dinv, Fm,
                Am, Minv, T, Wk):
    """The passes of :func:`minv` on the tree arrays; ``T`` (6, 6) and ``Wk`` (6, nv) scratch."""
    nb = body_parent.shape[0]
    nv = Minv.shape[0]
    tree_positions(body_parent, jnt_type, jnt_qadr, jnt_vadr, jnt_axis, jnt_axis2, jnt_pitch, body_Xtree_E,
                   body_Xtree_r, dof_S, q, X_E, X_r, S)
    world_poses(body_parent, X_E, X_r, oR, op)
    world_subspaces(body_parent, jnt_vadr, jnt_nv, S, oR, op, oS)
    world_inertias(body_I, oR, op, oI)
    st = articulated_world(body_parent, jnt_vadr, jnt_nv, dof_armature, oI, oS, oIA, oU, D, Dinv, T)
    if st != OK:
        return st
    F = Fm[0]  # the bias forces Fm_i of the body visited, (6, nv)
    # pass 1: leaves to root. Body i's rows are zero right of its subtree's dofs (pass 2 reads them there)
    # and right of its own dofs for a multi-dof joint (accumulated below); the lower triangle is left to the
    # final mirror
    for i in range(nb - 1, -1, -1):
        n = jnt_nv[i]
        va = jnt_vadr[i]
        ve = jnt_vadr[body_subtree_end[i] - 1] + jnt_nv[body_subtree_end[i] - 1]  # end of the subtree's dofs
        p = body_parent[i]
        for d in range(n):
            for k in range(uint64(ve if n == 1 else va + n), uint64(nv)):
                Minv[va + d, k] = 0.0
        if n == 1:  # one sweep over the columns: Minv[va, va] = D^-1, Minv[va, k] = -D^-1 S . F[:, k] for
            # the descendants' dofs and, below a parent, F[:, k] += U Minv[va, k] over the subtree
            dinv = Dinv[i, 0, 0]
            s0, s1, s2, s3, s4, s5 = oS[va, 0], oS[va, 1], oS[va, 2], oS[va, 3], oS[va, 4], oS[va, 5]
            Minv[va, va] = dinv
            if p < 0:
                for k in range(uint64(va + 1), uint64(ve)):
                    Minv[va, k] = -(dinv * (s0 * F[0, k] + s1 * F[1, k] + s2 * F[2, k] + s3 * F[3, k] + s4 * F[4, k]
                                            + s5 * F[5, k]))
                continue
            u0, u1, u2, u3, u4, u5 = oU[va, 0], oU[va, 1], oU[va, 2], oU[va, 3], oU[va, 4], oU[va, 5]
            F[0, va], F[1, va], F[2, va] = u0 * dinv, u1 * dinv, u2 * dinv
            F[3, va], F[4, va], F[5, va] = u3 * dinv, u4 * dinv, u5 * dinv
            for k in range(uint64(va + 1), uint64(ve)):
                x = -(dinv * (s0 * F[0, k] + s1 * F[1, k] + s2 * F[2, k] + s3 * F[3, k] + s4 * F[4, k] + s5 * F[5, k]))
                Minv[va, k] = x
                F[0, k] += u0 * x
                F[1, k] += u1 * x
                F[2, k] += u2 * x
                F[3, k] += u3 * x
                F[4, k] += u4 * x
                F[5, k] += u5 * x
            continue
        for d in range(n):
            for e in range(n):
                Minv[va + d, va + e] = Dinv[i, d, e]
        # Minv[i, desc] = -D^-1 S^T F[:, desc]
        for e in range(n):
            row_dots(oS, va + e, F, va + n, ve, Wk[e])
        for d in range(n):
            for e in range(n):
                c = Dinv[i, d, e]
                for k in range(uint64(va + n), uint64(ve)):
                    Minv[va + d, k] -= c * Wk[e, k]
        if p >= 0:  # Fm_p[:, sub(i)] = Fm_i + U_i Minv[i, :], in place: each column of sub(i) comes from i alone
            for m in range(6):
                for k in range(uint64(va), uint64(va + n)):
                    F[m, k] = 0.0
            for d in range(n):
                add_outer(oU, va + d, Minv[va + d], va, ve, F)
    # pass 2: root to leaves, columns k >= jnt_vadr[i]
    for i in range(nb):
        n = jnt_nv[i]
        va = jnt_vadr[i]
        p = body_parent[i]
        A = Am[i]
        if n == 1:  # over the columns k >= va: Minv[va, k] -= D^-1 U . Am[p, :, k], then
            # Am[i, :, k] = Am[p, :, k] + S Minv[va, k] (Am_p = 0 at a root), in two sweeps: LLVM vectorizes
            # each of them from 8 columns on, one fused sweep from 32 (Talos' pass 2: 2.1 -> 1.9 us)
            dinv = Dinv[i, 0, 0]
            s0, s1, s2, s3, s4, s5 = oS[va, 0], oS[va, 1], oS[va, 2], oS[va, 3], oS[va, 4], oS[va, 5]
            if p < 0:
                for k in range(uint64(va), uint64(nv)):
                    x = Minv[va, k]
                    A[0, k] = s0 * x
                    A[1, k] = s1 * x
                    A[2, k] = s2 * x
                    A[3, k] = s3 * x
                    A[4, k] = s4 * x
                    A[5, k] = s5 * x
                continue
            u0, u1, u2, u3, u4, u5 = oU[va, 0], oU[va, 1], oU[va, 2], oU[va, 3], oU[va, 4], oU[va, 5]
            P = Am[p]
            row = Minv[va]
            for k in range(uint64(va), uint64(nv)):
                row[k] -= dinv * (u0 * P[0, k] + u1 * P[1, k] + u2 * P[2, k] + u3 * P[3, k] + u4 * P[4, k] + u5 * P[5, k])
            for k in range(uint64(va), uint64(nv)):
                x = row[k]
                A[0, k] = P[0, k] + s0 * x
                A[1, k] = P[1, k] + s1 * x
                A[2, k] = P[2, k] + s2 * x
                A[3, k] = P[3, k] + s3 * x
                A[4, k] = P[4, k] + s4 * x
                A[5, k] = P[5, k] + s5 * x
            continue
        if p >= 0:  # Minv[i, k] -= D^-1 U^T Am_p[:, k];  Am_i = Am_p
            P = Am[p]
            for e in range(n):
                row_dots(oU, va + e, P, va, nv, Wk[e])
            for d in range(n):
                for e in range(n):
                    c = Dinv[i, d, e]
                    for k in range(uint64(va), uint64(nv)):
                        Minv[va + d, k] -= c * Wk[e, k]
            for m in range(6):
                for k in range(uint64(va), uint64(nv)):
                    A[m, k] = P[m, k]
        else:
            for m in range(6):
                for k in range(uint64(va), uint64(nv)):
                    A[m, k] = 0.0
        for d in range(n):  # Am_i[:, k] += S_i Minv[i, k]
            add_outer(oS, va + d, Minv[va + d], va, nv, A)
    for r in range(nv):
        for k in range(r):
            Minv[r, k] = Minv[k, r]
    return OK
