"""Analytical derivatives of the tree dynamics (Carpentier & Mansard, "Analytical Derivatives of Rigid
Body Dynamics Algorithms", RSS 2018), in world coordinates about the world origin.

A configuration perturbation ``delta_l`` along tangent dof ``l`` (``q (+) delta_l e_l``, the group
exponential of ``soadyn.integrate``) moves every body of the subtree of the dof's body rigidly by the
world twist ``S_l`` (the dof's motion subspace column in world coordinates), so a world-frame column
``S_k`` it moves changes by ``S_l x S_k``. A dof's column is moved by every dof of the ancestor joints
and, within its own joint, by every dof when the column is constant in the successor frame (spherical,
free, planar), or by the earlier dofs only when the joint is a chain of one-dof rotations (universal:
its first axis is fixed in the parent). Per dof ``l`` this gives, with ``Vp_l``, ``Ap_l`` the velocity
and acceleration of the frame the dof moves relative to (the parent, or the universal joint's
intermediate frame):

* ``dV/dq_l = Vp_l x S_l``, ``dA/dq_l = Ap_l x S_l + Vp_l x (Vp_l x S_l)`` (the parts of a moved body's
  ``delta V = S_l x V + dV/dq_l``, ``delta A = S_l x A + dA/dq_l - V x dV/dq_l`` that are not its rigid
  transport);
* ``Sdot_l``, the time derivative of the column, and ``dA/dqd_l = Sdot_l + Vp_l x S_l``.

A body force ``F = I A + V x* I V - f_ext`` then varies as ``delta F = S_l x* F + I dA/dq_l +
B dV/dq_l`` with ``B = V x* I - I V x + (I V) x*bar`` (Carpentier & Mansard Eq. 14-16: Pinocchio's
``doYcrb``), and ``dF/dqd_l = I dA/dqd_l + B S_l``. ``I``, ``B`` and ``F`` add over subtrees (composite
quantities, no transforms in world coordinates), so ``dtau_k/dq_l`` is ``S_k . (Ic dA/dq_l + Bc dV/dq_l)``
with the composites of ``k``'s body when ``l`` moves column ``k``, else ``S_k . (S_l x* Fc + Ic dA/dq_l +
Bc dV/dq_l)`` with those of ``l``'s body; ``(S_l x S_k) . F + S_k . (S_l x* F) = 0`` removes the
transport terms. Each entry is one dot product: O(nv d) for depth d.

Workspace packs: ``bw`` (3, nb, 6) world velocity, acceleration, force (then composite force) per body;
``dw`` (7, nv, 6) per dof ``Sdot``, ``dV/dq``, ``dA/dq``, ``dA/dqd``, ``Ic S``, ``Bc^T S`` and a scratch
row; ``oB`` (nb, 6, 6) the ``B`` matrices (then composites).
"""

import numpy as np

from .._jit import jit, parallel_jit, prange
from .joints import OK, UNIVERSAL
from .spatial import cross_force_add, cross_motion, mul6
from .articulated import aba_core
from .kinematics import check_inputs, tree_positions, world_inertias, world_poses, world_subspaces
from .tree import minv_tree

V_, A_, F_ = 0, 1, 2
SD, DVDQ, DADQ, DADV, PS, QS, TMP = 0, 1, 2, 3, 4, 5, 6


@jit
def sequential(jtype, jnv, i):
    """True when joint ``i``'s columns move only the later ones (one dof, or universal)."""
    return jnv[i] == 1 or jtype[i] == UNIVERSAL


@jit
def world_motion_pass(parent, jtype, vadr, jnv, oS, qd, qdd, a0, bw, dw):
    """Pass: root to leaves, world coordinates. ``V_i = V_p + sum S_k qd_k``, ``Sdot_k``,
    ``A_i = A_p + sum (S_k qdd_k + Sdot_k qd_k)`` (``A`` of the world: ``a0``), and per dof ``dV/dq``,
    ``dA/dq``, ``dA/dqd`` (module docstring)."""
    V, A = bw[V_], bw[A_]
    Sd, dVdq, dAdq, dAdv, t = dw[SD], dw[DVDQ], dw[DADQ], dw[DADV], dw[TMP]
    for i in range(parent.shape[0]):
        p = parent[i]
        for m in range(6):
            V[i, m] = V[p, m] if p >= 0 else 0.0
            A[i, m] = A[p, m] if p >= 0 else a0[m]
        va, n = vadr[i], jnv[i]
        if sequential(jtype, jnv, i):
            # each dof moves relative to the frame reached by the earlier ones (Vp_k = V so far)
            for k in range(va, va + n):
                cross_motion(V[i], oS[k], dVdq[k])
                cross_motion(A[i], oS[k], dAdq[k])
                cross_motion(V[i], dVdq[k], t[0])
                for m in range(6):
                    dAdq[k, m] += t[0, m]
                    Sd[k, m] = dVdq[k, m]
                    dAdv[k, m] = 2.0 * dVdq[k, m]
                for m in range(6):
                    V[i, m] += oS[k, m] * qd[k]
                    A[i, m] += oS[k, m] * qdd[k] + Sd[k, m] * qd[k]
        else:
            # columns constant in the successor frame: every dof moves relative to the parent
            for k in range(va, va + n):
                cross_motion(V[i], oS[k], dVdq[k])
                cross_motion(A[i], oS[k], dAdq[k])
                cross_motion(V[i], dVdq[k], t[0])
                for m in range(6):
                    dAdq[k, m] += t[0, m]
            for k in range(va, va + n):
                for m in range(6):
                    V[i, m] += oS[k, m] * qd[k]
            for k in range(va, va + n):
                cross_motion(V[i], oS[k], Sd[k])
                for m in range(6):
                    dAdv[k, m] = Sd[k, m] + dVdq[k, m]
                    A[i, m] += oS[k, m] * qdd[k] + Sd[k, m] * qd[k]


@jit
def dot6(a, b):
    """a . b for 6-vectors."""
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2] + a[3] * b[3] + a[4] * b[4] + a[5] * b[5]


@jit
def body_forces(oR, op, oI, fext, bw, oB, C):
    """Per body: ``F = I A + V x* I V - f_ext`` (``f_ext`` given in body coordinates about the body
    origin) and ``B = V x* I - I (V x) + (I V) x*bar`` (world). ``C`` (6, 6) scratch."""
    V, A, F = bw[V_], bw[A_], bw[F_]
    for i in range(oI.shape[0]):
        Ii = oI[i]
        mul6(Ii, A[i], F[i])
        h0, h1, h2 = dot6(Ii[0], V[i]), dot6(Ii[1], V[i]), dot6(Ii[2], V[i])
        h3, h4, h5 = dot6(Ii[3], V[i]), dot6(Ii[4], V[i]), dot6(Ii[5], V[i])
        w0, w1, w2, v0, v1, v2 = V[i, 0], V[i, 1], V[i, 2], V[i, 3], V[i, 4], V[i, 5]
        F[i, 0] += w1 * h2 - w2 * h1 + v1 * h5 - v2 * h4
        F[i, 1] += w2 * h0 - w0 * h2 + v2 * h3 - v0 * h5
        F[i, 2] += w0 * h1 - w1 * h0 + v0 * h4 - v1 * h3
        F[i, 3] += w1 * h5 - w2 * h4
        F[i, 4] += w2 * h3 - w0 * h5
        F[i, 5] += w0 * h4 - w1 * h3
        # f_ext to world coordinates about the world origin: f = R f_b, n = R n_b + p x f
        R = oR[i]
        fb = fext[i]
        g0 = R[0, 0] * fb[3] + R[0, 1] * fb[4] + R[0, 2] * fb[5]
        g1 = R[1, 0] * fb[3] + R[1, 1] * fb[4] + R[1, 2] * fb[5]
        g2 = R[2, 0] * fb[3] + R[2, 1] * fb[4] + R[2, 2] * fb[5]
        x, y, z = op[i, 0], op[i, 1], op[i, 2]
        F[i, 0] -= R[0, 0] * fb[0] + R[0, 1] * fb[1] + R[0, 2] * fb[2] + y * g2 - z * g1
        F[i, 1] -= R[1, 0] * fb[0] + R[1, 1] * fb[1] + R[1, 2] * fb[2] + z * g0 - x * g2
        F[i, 2] -= R[2, 0] * fb[0] + R[2, 1] * fb[1] + R[2, 2] * fb[2] + x * g1 - y * g0
        F[i, 3] -= g0
        F[i, 4] -= g1
        F[i, 5] -= g2
        # B = Y + Y^T + hbar with Y = V x* I (I symmetric: -I (V x) = Y^T), hbar e = e x* h;
        # row l of C is column l of Y (= V x* I[l], I symmetric)
        B = oB[i]
        C[:] = 0.0
        for l in range(6):
            cross_force_add(V[i], Ii[l], C[l])
        for m in range(6):
            for l in range(6):
                B[m, l] = C[m, l] + C[l, m]
        B[0, 1] += h2
        B[0, 2] -= h1
        B[1, 0] -= h2
        B[1, 2] += h0
        B[2, 0] += h1
        B[2, 1] -= h0
        B[0, 4] += h5
        B[0, 5] -= h4
        B[1, 3] -= h5
        B[1, 5] += h3
        B[2, 3] += h4
        B[2, 4] -= h3
        B[3, 1] += h5
        B[3, 2] -= h4
        B[4, 0] -= h5
        B[4, 2] += h3
        B[5, 0] += h4
        B[5, 1] -= h3


@jit
def composite_pass(parent, vadr, jnv, oS, oIc, oB, bw, dw, tau):
    """Pass: leaves to root. Composite ``Ic``, ``Bc``, ``Fc`` (added into the parent's after use);
    ``tau_k = S_k . Fc``, ``Ic S_k`` and ``Bc^T S_k`` per dof."""
    F = bw[F_]
    PS_, QS_ = dw[PS], dw[QS]
    for i in range(parent.shape[0] - 1, -1, -1):
        for k in range(vadr[i], vadr[i] + jnv[i]):
            tau[k] = dot6(oS[k], F[i])
            mul6(oIc[i], oS[k], PS_[k])
            for m in range(6):
                s = 0.0
                for n in range(6):
                    s += oB[i, n, m] * oS[k, n]
                QS_[k, m] = s
        p = parent[i]
        if p >= 0:
            for m in range(6):
                F[p, m] += F[i, m]
                for l in range(6):
                    oIc[p, m, l] += oIc[i, m, l]
                    oB[p, m, l] += oB[i, m, l]


@jit
def assemble(parent, jtype, vadr, jnv, subtree_end, oS, oIc, oB, bw, dw, G, dtau_dq, dtau_dqd, M):
    """Fill ``dtau/dq``, ``dtau/dqd`` and ``M`` column by column (module docstring): rows of the subtree
    from the per-dof composites, rows of the ancestors from the body's composites. ``G`` (>= 3, 6)
    scratch."""
    F = bw[F_]
    dVdq, dAdq, dAdv, PS_, QS_ = dw[DVDQ], dw[DADQ], dw[DADV], dw[PS], dw[QS]
    dtau_dq[:] = 0.0
    dtau_dqd[:] = 0.0
    M[:] = 0.0
    for i in range(parent.shape[0]):
        va, n = vadr[i], jnv[i]
        last = subtree_end[i] - 1
        ve = vadr[last] + jnv[last]
        seq = sequential(jtype, jnv, i)
        for l in range(va, va + n):
            # G0 = S_l x* Fc + Ic dA/dq_l + Bc dV/dq_l ; G1 = Ic dA/dqd_l + Bc S_l ; G2 = Ic S_l
            mul6(oIc[i], dAdq[l], G[0])
            mul6(oB[i], dVdq[l], G[1])
            for m in range(6):
                G[0, m] += G[1, m]
            cross_force_add(oS[l], F[i], G[0])
            mul6(oIc[i], dAdv[l], G[1])
            mul6(oB[i], oS[l], G[2])
            for m in range(6):
                G[1, m] += G[2, m]
            for k in range(va, ve):
                if seq and va <= k < l:  # column k not moved by dof l
                    dtau_dq[k, l] = dot6(oS[k], G[0])
                else:
                    dtau_dq[k, l] = dot6(PS_[k], dAdq[l]) + dot6(QS_[k], dVdq[l])
                dtau_dqd[k, l] = dot6(PS_[k], dAdv[l]) + dot6(QS_[k], oS[l])
                M[k, l] = dot6(PS_[k], oS[l])
            j = parent[i]
            while j >= 0:
                for k in range(vadr[j], vadr[j] + jnv[j]):
                    dtau_dq[k, l] = dot6(oS[k], G[0])
                    dtau_dqd[k, l] = dot6(oS[k], G[1])
                    M[k, l] = dot6(oS[k], PS_[l])
                j = parent[j]


@jit
def rnea_derivative_passes(parent, jtype, qadr, vadr, jnv, axis, axis2, pitch, XT_E, XT_r, I, S0, armature, subtree_end,
                           q, qd, qdd, fext, a0, X_E, X_r, S, oR, op, oS, oI, bw, dw, oB, C,
                           tau, dtau_dq, dtau_dqd, M):
    """Kinematics in world coordinates, then the passes of :func:`rnea_derivatives` (inputs checked).
    ``oI`` ends holding the composite inertias."""
    tree_positions(parent, jtype, qadr, vadr, axis, axis2, pitch, XT_E, XT_r, S0, q, X_E, X_r, S)
    world_poses(parent, X_E, X_r, oR, op)
    world_subspaces(parent, vadr, jnv, S, oR, op, oS)
    world_inertias(I, oR, op, oI)
    world_motion_pass(parent, jtype, vadr, jnv, oS, qd, qdd, a0, bw, dw)
    body_forces(oR, op, oI, fext, bw, oB, C)
    composite_pass(parent, vadr, jnv, oS, oI, oB, bw, dw, tau)
    assemble(parent, jtype, vadr, jnv, subtree_end, oS, oI, oB, bw, dw, C, dtau_dq, dtau_dqd, M)
    for k in range(tau.shape[0]):  # the joint armature: armature qdd in tau, on the diagonal of M
        tau[k] += armature[k] * qdd[k]
        M[k, k] += armature[k]


@jit
def rnea_derivatives(parent, jtype, qadr, vadr, jnv, axis, axis2, pitch, XT_E, XT_r, I, S0, armature, subtree_end,
                     q, qd, qdd, fext, a0,
                     X_E, X_r, S, oR, op, oS, oI, bw, dw, oB,
                     tau, dtau_dq, dtau_dqd, M):
    """``tau = rnea(q, qd, qdd, f_ext)`` with its partial derivatives ``dtau/dq`` (tangent space),
    ``dtau/dqd`` and ``dtau/dqdd = M`` (Carpentier & Mansard 2018, Alg. 1, in the form of the module
    docstring). Outputs ``tau`` (nv,), three (nv, nv) matrices."""
    st = check_inputs(jtype, qadr, q, qd, qdd, fext)
    if st != OK:
        return st
    C = np.empty((6, 6))
    rnea_derivative_passes(parent, jtype, qadr, vadr, jnv, axis, axis2, pitch, XT_E, XT_r, I, S0, armature, subtree_end,
                           q, qd, qdd, fext, a0, X_E, X_r, S, oR, op, oS, oI, bw, dw, oB, C,
                           tau, dtau_dq, dtau_dqd, M)
    return OK


@jit
def minus_minv_product(parent, vadr, jnv, subtree_end, Minv, B, out, w):
    """``out = -M^-1 B`` for a matrix ``B`` with the sparsity of the RNEA derivatives: column ``l`` (a dof
    of body ``i``) is nonzero only in the rows of ``i``'s ancestors and subtree, so ``out[:, l] =
    -sum_k B[k, l] M^-1[k, :]`` over those rows (``M^-1`` symmetric: its rows are its columns). ``w`` (nv,)
    scratch. O(nv nnz(B))."""
    nv = Minv.shape[0]
    for i in range(parent.shape[0]):
        last = subtree_end[i] - 1
        va, ve = vadr[i], vadr[last] + jnv[last]
        for l in range(va, va + jnv[i]):
            for c in range(nv):
                w[c] = 0.0
            for k in range(va, ve):
                b = B[k, l]
                for c in range(nv):
                    w[c] -= b * Minv[k, c]
            j = parent[i]
            while j >= 0:
                for k in range(vadr[j], vadr[j] + jnv[j]):
                    b = B[k, l]
                    for c in range(nv):
                        w[c] -= b * Minv[k, c]
                j = parent[j]
            for c in range(nv):
                out[c, l] = w[c]


@jit
def aba_derivatives(parent, jtype, qadr, vadr, jnv, axis, axis2, pitch, XT_E, XT_r, I, S0, armature, subtree_end,
                    q, qd, tau, fext, a0,
                    X_E, X_r, S, oR, op, oS, oI, bw, dw, oB,
                    v, c, IA, pA, U, D, Dinv, u, a, oIA, oU, Fm, Am, rtau, dtau_dq, dtau_dqd, M,
                    qdd, dqdd_dq, dqdd_dqd, Minv):
    """``qdd = aba(q, qd, tau, f_ext)`` and its partial derivatives: ``dqdd/dtau = M^-1`` (the O(n^2)
    recursion of :func:`soadyn._kernels.tree.minv_tree`), ``dqdd/dq = -M^-1 dtau/dq``, ``dqdd/dqd =
    -M^-1 dtau/dqd`` with the RNEA derivatives taken at ``(q, qd, qdd)`` (Carpentier & Mansard 2018,
    Sec. IV-B). Outputs ``qdd`` (nv,), three (nv, nv) matrices; ``rtau`` (nv,) scratch."""
    st = check_inputs(jtype, qadr, q, qd, tau, fext)
    if st != OK:
        return st
    T = np.empty((4, 6, 6))
    st = aba_core(parent, jtype, qadr, vadr, jnv, axis, axis2, pitch, XT_E, XT_r, I, S0, armature, q, qd, tau, fext,
                  a0, X_E, X_r, S, v, c, IA, pA, U, D, Dinv, u, a, qdd, T)
    if st != OK:
        return st
    rnea_derivative_passes(parent, jtype, qadr, vadr, jnv, axis, axis2, pitch, XT_E, XT_r, I, S0, armature, subtree_end,
                           q, qd, qdd, fext, a0, X_E, X_r, S, oR, op, oS, oI, bw, dw, oB, T[0],
                           rtau, dtau_dq, dtau_dqd, M)
    st = minv_tree(parent, jtype, qadr, vadr, jnv, axis, axis2, pitch, XT_E, XT_r, I, S0, armature, subtree_end, q,
                   X_E, X_r, S, oR, op, oS, oI, oIA, oU, D, Dinv, Fm, Am, Minv)
    if st != OK:
        return st
    w = rtau  # rtau (the RNEA of the result) is no longer needed: scratch
    minus_minv_product(parent, vadr, jnv, subtree_end, Minv, dtau_dq, dqdd_dq, w)
    minus_minv_product(parent, vadr, jnv, subtree_end, Minv, dtau_dqd, dqdd_dqd, w)
    return OK


# --------------------------------------------------------------------------------------------- batches
@jit
def rnea_derivatives_chunk(parent, jtype, qadr, vadr, jnv, axis, axis2, pitch, XT_E, XT_r, I, S0, armature, subtree_end,
                           Q, QD, QDD, fext, a0, s0, s1, TAU, DQ, DQD, MM, status):
    """:func:`rnea_derivatives` for the states ``s0 .. s1-1``, with a workspace allocated once."""
    nb = parent.shape[0]
    nv = QD.shape[1]
    X_E = np.empty((nb, 3, 3))
    X_r = np.empty((nb, 3))
    S = S0.copy()
    oR = np.empty((nb, 3, 3))
    op = np.empty((nb, 3))
    oS = np.empty((nv, 6))
    oI = np.empty((nb, 6, 6))
    bw = np.empty((3, nb, 6))
    dw = np.empty((7, nv, 6))
    oB = np.empty((nb, 6, 6))
    for s in range(s0, s1):
        status[s] = rnea_derivatives(parent, jtype, qadr, vadr, jnv, axis, axis2, pitch, XT_E, XT_r, I, S0, armature,
                                     subtree_end, Q[s], QD[s], QDD[s], fext, a0, X_E, X_r, S, oR, op, oS, oI,
                                     bw, dw, oB, TAU[s], DQ[s], DQD[s], MM[s])


@jit
def aba_derivatives_chunk(parent, jtype, qadr, vadr, jnv, axis, axis2, pitch, XT_E, XT_r, I, S0, armature, subtree_end,
                          Q, QD, TAU, fext, a0, s0, s1, QDD, DQ, DQD, MINV, status):
    """:func:`aba_derivatives` for the states ``s0 .. s1-1``, with a workspace allocated once."""
    nb = parent.shape[0]
    nv = QD.shape[1]
    X_E = np.empty((nb, 3, 3))
    X_r = np.empty((nb, 3))
    S = S0.copy()
    oR = np.empty((nb, 3, 3))
    op = np.empty((nb, 3))
    oS = np.empty((nv, 6))
    oI = np.empty((nb, 6, 6))
    bw = np.empty((3, nb, 6))
    dw = np.empty((7, nv, 6))
    oB = np.empty((nb, 6, 6))
    v = np.empty((nb, 6))
    c = np.empty((nb, 6))
    IA = np.empty((nb, 6, 6))
    pA = np.empty((nb, 6))
    U = np.empty((nv, 6))
    D = np.empty((nb, 6, 6))
    Dinv = np.empty((nb, 6, 6))
    u = np.empty(nv)
    a = np.empty((nb, 6))
    oIA = np.empty((nb, 6, 6))
    oU = np.empty((nv, 6))
    Fm = np.zeros((nb, nv, 6))
    Am = np.zeros((nb, nv, 6))
    rtau = np.empty(nv)
    dtau_dq = np.empty((nv, nv))
    dtau_dqd = np.empty((nv, nv))
    M = np.empty((nv, nv))
    for s in range(s0, s1):
        status[s] = aba_derivatives(parent, jtype, qadr, vadr, jnv, axis, axis2, pitch, XT_E, XT_r, I, S0, armature,
                                    subtree_end, Q[s], QD[s], TAU[s], fext, a0, X_E, X_r, S, oR, op, oS, oI, bw,
                                    dw, oB, v, c, IA, pA, U, D, Dinv, u, a, oIA, oU, Fm, Am, rtau, dtau_dq,
                                    dtau_dqd, M, QDD[s], DQ[s], DQD[s], MINV[s])


@parallel_jit
def rnea_derivatives_batch(parent, jtype, qadr, vadr, jnv, axis, axis2, pitch, XT_E, XT_r, I, S0, armature, subtree_end,
                           Q, QD, QDD, fext, a0, nchunks,
                           TAU, DQ, DQD, MM, status):
    """:func:`rnea_derivatives` over K states in parallel, in ``nchunks`` chunks. Outputs ``TAU`` (K, nv),
    ``DQ``, ``DQD``, ``MM`` (K, nv, nv), per-state ``status`` (K,)."""
    K = Q.shape[0]
    for ch in prange(nchunks):
        rnea_derivatives_chunk(parent, jtype, qadr, vadr, jnv, axis, axis2, pitch, XT_E, XT_r, I, S0, armature,
                               subtree_end,
                               Q, QD, QDD, fext, a0, ch * K // nchunks, (ch + 1) * K // nchunks,
                               TAU, DQ, DQD, MM, status)


@parallel_jit
def aba_derivatives_batch(parent, jtype, qadr, vadr, jnv, axis, axis2, pitch, XT_E, XT_r, I, S0, armature, subtree_end,
                          Q, QD, TAU, fext, a0, nchunks,
                          QDD, DQ, DQD, MINV, status):
    """:func:`aba_derivatives` over K states in parallel, in ``nchunks`` chunks. Outputs ``QDD`` (K, nv),
    ``DQ``, ``DQD``, ``MINV`` (K, nv, nv), per-state ``status`` (K,)."""
    K = Q.shape[0]
    for ch in prange(nchunks):
        aba_derivatives_chunk(parent, jtype, qadr, vadr, jnv, axis, axis2, pitch, XT_E, XT_r, I, S0, armature,
                              subtree_end,
                              Q, QD, TAU, fext, a0, ch * K // nchunks, (ch + 1) * K // nchunks,
                              QDD, DQ, DQD, MINV, status)
