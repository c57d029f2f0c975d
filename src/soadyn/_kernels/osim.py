"""Operational space compliance ``Lambda^-1 = J M^-1 J^T`` of a set of nodes without forming M, M^-1 or J.

Convention (soadyn's, converted from Jain's tip-to-base numbering): for body ``i`` with parent ``p``,
the articulated-body propagator ``psi_i = taubar_i ^iX_p`` with ``taubar_i = 1 - S_i D_i^-1 U_i^T``
(``U_i = P_i S_i``, ``D_i = S_i^T P_i S_i``, ``P`` the articulated inertia) maps a parent acceleration to
the child; its transpose is Chang-Khatib's force propagator ``L_i = ^iX_p^T taubar_i^T`` (Eq. 21).
The extended compliance ``Omega(i, j) = J_i M^-1 J_j^T`` (body-frame Jacobians) has diagonal blocks
``Upsilon(i) = psi_i Upsilon(p) psi_i^T + S_i D_i^-1 S_i^T`` (Jain 2014 Eq. 67-68; Chang-Khatib Table 1
step 3) and off-diagonal blocks ``Omega(i, j) = Psi(i, c) Upsilon(c) Psi(j, c)^T`` through the nearest common
ancestor ``c`` (Jain 2014 Eq. 69; Chang-Khatib Table 1 step 4), ``Psi(i, c)`` the product of the ``psi``
along the path. A node ``a`` is a frame on body ``b_a`` with motion transform ``X_a`` (body -> frame) and a
row selection ``Sel_a`` (d_a x 6); its block is ``Lambda^-1(a, b) = Sel_a X_a Omega(b_a, b_b) X_b^T
Sel_b^T`` (Jain 2014 Eq. 64, ``B* Omega B``).
"""

import numpy as np

from .._jit import borrow, inline_jit, jit, view
from .articulated import articulated_world
from .frames import frame_world_pose
from .joints import OK, check_q
from .kinematics import BAD_ARRAY, tree_positions, vector_ready, world_inertias, world_poses, world_subspaces
from .layout import NQ, SCRATCH, data_aba, data_kinematics, data_nodes, data_world, dfield, model_tree
from .spatial import add_XAXt, xmotion


@jit
def psi_left(E, r, S, U, Dinv, va, n, M, out, y, w):
    """out = psi M = taubar (X M) for a 6x6 ``M``, column by column; ``y`` (6,), ``w`` (6,) scratch.
    ``out`` may alias ``M``."""
    for col in range(6):
        for m in range(6):
            w[m] = M[m, col]
        xmotion(E, r, w, y)
        # y -= S D^-1 (U^T y)
        for d in range(n):
            s = 0.0
            for m in range(6):
                s += U[va + d, m] * y[m]
            w[d] = s
        for d in range(n):
            s = 0.0
            for e in range(n):
                s += Dinv[d, e] * w[e]
            for m in range(6):
                y[m] -= S[va + d, m] * s
        for m in range(6):
            out[m, col] = y[m]


@jit
def taubar_congruence(S, U, Dinv, va, n, Y, G):
    """Y <- taubar Y taubar^T + S D^-1 S^T in place (the second half of Jain 2014 Eq. 68), ``Y`` symmetric.
    With ``taubar = 1 - S G^T``, ``G = U D^-1``: ``Y - S (Y G)^T - (Y G) S^T + S (G^T Y G + D^-1) S^T``.
    ``G`` (18, 6) scratch: rows ``0..n-1`` hold G, ``n..2n-1`` hold Y G, ``2n..3n-1`` the n x n middle."""
    for d in range(n):
        for m in range(6):
            s = 0.0
            for e in range(n):
                s += U[va + e, m] * Dinv[e, d]
            G[d, m] = s
    for d in range(n):
        for m in range(6):
            s = 0.0
            for l in range(6):
                s += Y[m, l] * G[d, l]
            G[n + d, m] = s
    for d in range(n):
        for e in range(n):
            s = Dinv[d, e]
            for m in range(6):
                s += G[d, m] * G[n + e, m]
            G[2 * n + d, e] = s
    for a in range(6):
        for b in range(a, 6):
            s = Y[a, b]
            for d in range(n):
                s -= S[va + d, a] * G[n + d, b] + G[n + d, a] * S[va + d, b]
                w = 0.0
                for e in range(n):
                    w += G[2 * n + d, e] * S[va + e, b]
                s += S[va + d, a] * w
            Y[a, b] = s
            Y[b, a] = s


@jit
def root_upsilon(S, Dinv, i, va, n, Ups, T):
    """``Ups[i] = S_i D_i^-1 S_i^T`` (Jain 2014 Eq. 68 for a body on the world, ``Upsilon(p) = 0``) by
    :func:`dof_congruence`, compiled apart for a free body's six dofs (a literal count, so the products unroll:
    2.1 -> 1.2 us for ten free bodies)."""
    if n == 6:
        dof_congruence(S, Dinv, i, va, 6, Ups, T)
    else:
        dof_congruence(S, Dinv, i, va, n, Ups, T)


@inline_jit
def dof_congruence(S, Dinv, i, va, n, Ups, T):
    """``Ups[i] = S_i D_i^-1 S_i^T`` for the ``n`` dofs of body ``i`` (from row ``va`` of ``S``): the rows
    ``T = D_i^-1 S_i^T`` first (``T``: (>= 6, 6) scratch), then ``S_i T`` on and above the diagonal, mirrored."""
    for d in range(n):
        for b in range(6):
            t = 0.0
            for e in range(n):
                t += Dinv[i, d, e] * S[va + e, b]
            T[d, b] = t
    for a in range(6):
        for b in range(a, 6):
            s = 0.0
            for d in range(n):
                s += S[va + d, a] * T[d, b]
            Ups[i, a, b] = s
            Ups[i, b, a] = s


@jit
def upsilon_step(E, r, S, U, Dinv, va, n, Up, out, G):
    """out = psi Up psi^T + S D^-1 S^T in body coordinates (Jain 2014 Eq. 68; Chang-Khatib Table 1 step 3):
    ``psi = taubar ^iX_p``, so ``X Up X^T`` (:func:`add_XAXt`) then :func:`taubar_congruence`."""
    out[:] = 0.0
    add_XAXt(E, r, Up, out)
    taubar_congruence(S, U, Dinv, va, n, out, G)


@jit
def taubar_left(S, U, Dinv, va, n, M, out, w):
    """out = taubar M = M - S D^-1 (U^T M) for a 6x6 ``M`` (world coordinates, where ``psi = taubar``);
    ``out`` may alias ``M``; ``w`` (6,) scratch."""
    for col in range(6):
        for d in range(n):
            s = 0.0
            for m in range(6):
                s += U[va + d, m] * M[m, col]
            w[d] = s
        for m in range(6):
            s = M[m, col]
            for d in range(n):
                g = 0.0
                for e in range(n):
                    g += Dinv[d, e] * w[e]
                s -= S[va + d, m] * g
            out[m, col] = s


@jit
def row_selections(sel, dim, first):
    """``first[a] = k`` where node ``a`` selects the rows ``k .. k + d_a - 1`` of the identity (a 6-D node, a
    point node's linear rows), else -1 (a general selection)."""
    for a in range(sel.shape[0]):
        d = dim[a]
        first[a] = -1
        for k in range(7 - d):
            same = True
            for e in range(d):
                for m in range(6):
                    if sel[a, e, m] != (1.0 if m == k + e else 0.0):
                        same = False
                        break
                if not same:
                    break
            if same:
                first[a] = k
                break


@inline_jit
def transform12(E, r, a):
    """The motion transform ``(E[a], r[a])`` as 12 scalars (``E`` row by row, then ``r``), for
    :func:`xmotion12`."""
    return (E[a, 0, 0], E[a, 0, 1], E[a, 0, 2], E[a, 1, 0], E[a, 1, 1], E[a, 1, 2], E[a, 2, 0], E[a, 2, 1],
            E[a, 2, 2], r[a, 0], r[a, 1], r[a, 2])


@inline_jit
def xmotion12(X, w0, w1, w2, v0, v1, v2):
    """``X [w; v]`` (:func:`soadyn._kernels.spatial.xmotion`) in registers, ``X`` from :func:`transform12`:
    ``w' = E w``, ``v' = E (v - r x w)``."""
    u0 = v0 - (X[10] * w2 - X[11] * w1)
    u1 = v1 - (X[11] * w0 - X[9] * w2)
    u2 = v2 - (X[9] * w1 - X[10] * w0)
    return (X[0] * w0 + X[1] * w1 + X[2] * w2, X[3] * w0 + X[4] * w1 + X[5] * w2, X[6] * w0 + X[7] * w1 + X[8] * w2,
            X[0] * u0 + X[1] * u1 + X[2] * u2, X[3] * u0 + X[4] * u1 + X[5] * u2, X[6] * u0 + X[7] * u1 + X[8] * u2)


@inline_jit
def node_block(Om, k, transpose, E, r, sel, first, a, da, b, db, Linv, ra, rb, Z):
    """Linv[ra:ra+da, rb:rb+db] = Sel_a X_a Om_k X_b^T Sel_b^T and the mirrored block, ``Om_k = Om[k]`` (its
    transpose if ``transpose``), ``X_a = (E[a], r[a])`` the node's motion transform (Jain 2014 Eq. 64 with the
    pick-off ``B_a = X_a^T Sel_a^T``): the transforms as a rotation and a shift in registers (24 products a
    6-vector, :func:`xmotion12`); two 6-D nodes' block goes to ``Linv`` from the registers, a selection of
    identity rows (:func:`row_selections`) is a copy. ``Z`` (12, 6) scratch. Whole arrays and indices: no
    sub-array views per pair."""
    Xb = transform12(E, r, b)
    for m in range(6):  # Z = Om_k X_b^T: row m of Z = X_b (row m of Om_k)
        if transpose:
            z0, z1, z2, z3, z4, z5 = xmotion12(Xb, Om[k, 0, m], Om[k, 1, m], Om[k, 2, m], Om[k, 3, m], Om[k, 4, m],
                                               Om[k, 5, m])
        else:
            z0, z1, z2, z3, z4, z5 = xmotion12(Xb, Om[k, m, 0], Om[k, m, 1], Om[k, m, 2], Om[k, m, 3], Om[k, m, 4],
                                               Om[k, m, 5])
        Z[m, 0], Z[m, 1], Z[m, 2], Z[m, 3], Z[m, 4], Z[m, 5] = z0, z1, z2, z3, z4, z5
    Xa = transform12(E, r, a)
    fa, fb = first[a], first[b]
    if fa == 0 and fb == 0 and da == 6 and db == 6:  # two 6-D nodes: column l of X_a Z is the block's
        for l in range(6):
            c0, c1, c2, c3, c4, c5 = xmotion12(Xa, Z[0, l], Z[1, l], Z[2, l], Z[3, l], Z[4, l], Z[5, l])
            Linv[ra, rb + l], Linv[ra + 1, rb + l], Linv[ra + 2, rb + l] = c0, c1, c2
            Linv[ra + 3, rb + l], Linv[ra + 4, rb + l], Linv[ra + 5, rb + l] = c3, c4, c5
            Linv[rb + l, ra], Linv[rb + l, ra + 1], Linv[rb + l, ra + 2] = c0, c1, c2
            Linv[rb + l, ra + 3], Linv[rb + l, ra + 4], Linv[rb + l, ra + 5] = c3, c4, c5
        return
    C = Z[6:]
    for l in range(6):  # C = X_a Z, column by column
        c0, c1, c2, c3, c4, c5 = xmotion12(Xa, Z[0, l], Z[1, l], Z[2, l], Z[3, l], Z[4, l], Z[5, l])
        C[0, l], C[1, l], C[2, l], C[3, l], C[4, l], C[5, l] = c0, c1, c2, c3, c4, c5
    if fa >= 0 and fb >= 0:
        for d in range(da):
            for e in range(db):
                s = C[fa + d, fb + e]
                Linv[ra + d, rb + e] = s
                Linv[rb + e, ra + d] = s
        return
    for e in range(db):  # Z[:, e] = C Sel_b^T, then Sel_a Z
        for m in range(6):
            s = 0.0
            for l in range(6):
                s += C[m, l] * sel[b, e, l]
            Z[m, e] = s
    for d in range(da):
        for e in range(db):
            s = 0.0
            for m in range(6):
                s += sel[a, d, m] * Z[m, e]
            Linv[ra + d, rb + e] = s
            Linv[rb + e, ra + d] = s


@inline_jit
def node_fields(node_int, node_float):
    """``(node_body, node_dim, node_row, node_first, vert_body, vert_root, vert_end, node_E, node_r, node_sel, wE,
    wr, Om)``: the nodes of ``soadyn.osim.NodeSet`` and their kernel scratch as views of its two buffers (their
    layout: :func:`osim_inv`)."""
    nn = (node_int.shape[0] - 1) // 10
    return (view(node_int, 0, nn), view(node_int, nn, nn), view(node_int, 2 * nn, nn + 1),
            view(node_int, 3 * nn + 1, nn), view(node_int, 4 * nn + 1, 2 * nn), view(node_int, 6 * nn + 1, 2 * nn),
            view(node_int, 8 * nn + 1, 2 * nn),
            view(node_float, 0, (nn, 3, 3)), view(node_float, 9 * nn, (nn, 3)), view(node_float, 12 * nn, (nn, 6, 6)),
            view(node_float, 48 * nn, (nn, 3, 3)), view(node_float, 57 * nn, (nn, 3)),
            view(node_float, 60 * nn, ((2 * nn - 1) * nn, 6, 6)))


@jit
def osim_inv(model_int, model_float, data_int, data_float, q, node_int, node_float, Linv):
    """Lambda^-1 of ``nn`` nodes in O(N + n_c^2) (Jain 2014 Appendix, Eqs. 64-69), the passes of
    :func:`node_compliance` in world coordinates (``psi_i = taubar_i``) without allocating: kinematics and the
    nodes' world transforms ``^aX_0 = (R_a^T, p_a)``, the world-frame articulated inertias, then
    pass 1 :func:`node_tree`, pass 2 :func:`vertex_upsilons`, pass 3 :func:`vertex_omegas` and the node
    blocks :func:`node_block` of the node pairs with a common root. Also fills the world poses ``Data.oR,
    op``. The nodes (``soadyn.osim.NodeSet``): ``node_int = [node_body (nn), node_dim (nn), node_row (nn + 1),
    then scratch node_first (nn), vert_body, vert_root, vert_end (2 nn each)]``, ``node_float = [node_E (nn, 3, 3),
    node_r (nn, 3), node_sel (nn, 6, 6), then scratch wE (nn, 3, 3), wr (nn, 3), Om ((2 nn - 1) nn, 6, 6)]``
    (at most ``2 nn - 1`` vertices). Output ``Linv`` (m, m)."""
    q, Linv = borrow(q), borrow(Linv)  # the passes update no reference count for them (soadyn._jit.borrow)
    (body_parent, jnt_type, jnt_qadr, jnt_vadr, jnt_nv, jnt_axis, jnt_axis2, jnt_pitch, body_Xtree_E, body_Xtree_r,
     body_I, dof_S, dof_armature) = model_tree(model_int, model_float)
    if not vector_ready(q, model_int[NQ]):
        return BAD_ARRAY
    st = check_q(jnt_type, jnt_qadr, q)
    if st != OK:
        return st
    (node_body, node_dim, node_row, node_first, vert_body, vert_root, vert_end, node_E, node_r, node_sel, wE, wr,
     Om) = node_fields(node_int, node_float)
    nn = node_body.shape[0]
    X_E, X_r, S, v, c, oR, op = data_kinematics(model_int, data_float)
    oS, oI, oIA, oU = data_world(model_int, data_float)
    IA, pA, U, D, Dinv, u, a = data_aba(model_int, data_float)
    cnt, cpar, vid, Ups, W = data_nodes(model_int, data_float, data_int)
    scratch = dfield(model_int, data_float, SCRATCH, 144)
    G, y, Z, R = view(scratch, 0, (18, 6)), view(scratch, 108, 6), view(scratch, 0, (12, 6)), view(scratch, 0, (3, 3))
    tree_positions(body_parent, jnt_type, jnt_qadr, jnt_vadr, jnt_axis, jnt_axis2, jnt_pitch, body_Xtree_E,
                   body_Xtree_r, dof_S, q, X_E, X_r, S)
    world_poses(body_parent, X_E, X_r, oR, op)
    for k in range(nn):
        frame_world_pose(node_body[k], node_E[k], node_r[k], oR, op, R, wr[k])
        for m in range(3):
            for l in range(3):
                wE[k, m, l] = R[l, m]
    world_subspaces(body_parent, jnt_vadr, jnt_nv, S, oR, op, oS)
    world_inertias(body_I, oR, op, oI)
    st = articulated_world(body_parent, jnt_vadr, jnt_nv, dof_armature, oI, oS, oIA, oU, D, Dinv, G)
    if st != OK:
        return st
    vertex_compliance(body_parent, jnt_vadr, jnt_nv, oS, oU, Dinv, cnt, cpar, vid, Ups, W, node_body, vert_body,
                      vert_root, vert_end, Om, G, y)
    node_blocks(node_body, node_dim, node_row, node_first, node_sel, wE, wr, vid, vert_root, Om, Linv, Z)
    return OK


@jit
def node_tree(parent, node_body, cnt, cpar, vid, vert_body, vert_root, vert_end):
    """Pass 1 of :func:`osim_inv`: the node tree. Leaves to root: ``cnt[i]`` the nodes in the subtree of ``i``;
    root to leaves: the vertices (a body with a node, or where two node-carrying subtrees meet) numbered in
    preorder, ``vid[i]`` (-1: none), ``vert_body[x]``; over the bodies with nodes below, ``cpar[i]`` the
    nearest vertex ancestor (-1: none) and ``vert_root[x]`` the vertex at the root of ``x``'s subtree of the
    world. ``vert_end[y]``: the vertices ``x > y`` whose ``Omega(x, y)`` :func:`vertex_omegas` needs are those
    below ``vert_end[y]``: every one for a node's vertex (``nb``), for a vertex without a node (where subtrees
    meet) those of its subtree outside its last child's (the first vertex of the last child), as Eq. 69 reads
    ``Omega(y, c)`` only through ``Omega(x, y) = W(x) Omega(y, c)^T`` for ``x`` in a later child of ``c``.
    Returns the number of vertices."""
    nb = parent.shape[0]
    for i in range(nb):
        cnt[i] = 0
        vid[i] = 0  # here: 1 if a node is on the body, plus 2 per node-carrying child
    for k in range(node_body.shape[0]):
        cnt[node_body[k]] += 1
        vid[node_body[k]] = 1
    for i in range(nb - 1, -1, -1):
        p = parent[i]
        if p >= 0 and cnt[i] > 0:
            cnt[p] += cnt[i]
            vid[p] += 2
    nvert = 0
    for i in range(nb):
        if cnt[i] == 0:
            vid[i] = -1
            continue
        p = parent[i]
        c = -1 if p < 0 else (p if vid[p] >= 0 else cpar[p])
        cpar[i] = c
        own = vid[i] & 1
        if own or vid[i] >= 4:
            vid[i] = nvert
            vert_body[nvert] = i
            vert_root[nvert] = nvert if c < 0 else vert_root[vid[c]]
            vert_end[nvert] = nb if own else 0
            if c >= 0 and vert_end[vid[c]] < nb:
                vert_end[vid[c]] = nvert
            nvert += 1
        else:
            vid[i] = -1
    return nvert


@inline_jit
def upsilon_one_dof(S, U, dinv, va, i, p, Ups, t):
    """``Ups[i] = taubar Ups[p] taubar^T + s d^-1 s^T`` (Eq. 68 in world coordinates) for a one-dof joint below
    a body: with ``taubar = 1 - s g^T``, ``g = u d^-1``, ``t = Ups[p] g``: ``Ups[p] - s t^T - t s^T + (g . t +
    d^-1) s s^T`` (:func:`taubar_congruence` in registers). ``t`` (6,) scratch."""
    beta = dinv
    for m in range(6):
        s = 0.0
        for l in range(6):
            s += Ups[p, m, l] * U[va, l]
        t[m] = s * dinv
        beta += t[m] * U[va, m] * dinv
    for m in range(6):
        sm, tm = S[va, m], t[m]
        for l in range(m, 6):
            x = Ups[p, m, l] - sm * t[l] - tm * S[va, l] + beta * sm * S[va, l]
            Ups[i, m, l] = x
            Ups[i, l, m] = x


@inline_jit
def propagator_one_dof(S, U, dinv, va, i, p, start, W, h):
    """``W[i] = taubar W[p]`` (``start``: ``taubar`` itself) for a one-dof joint, ``taubar = 1 - s (u d^-1)^T``
    (:func:`taubar_left` in registers). ``h`` (6,) scratch."""
    if start:
        for m in range(6):
            sm = S[va, m]
            for l in range(6):
                W[i, m, l] = (1.0 if m == l else 0.0) - sm * (U[va, l] * dinv)
        return
    for l in range(6):
        s = 0.0
        for m in range(6):
            s += U[va, m] * W[p, m, l]
        h[l] = dinv * s
    for m in range(6):
        sm = S[va, m]
        for l in range(6):
            W[i, m, l] = W[p, m, l] - sm * h[l]


@jit
def vertex_upsilons(parent, vadr, jnv, S, U, Dinv, cnt, cpar, Ups, W, G, y):
    """Pass 2 of :func:`osim_inv`, root to leaves over the bodies with nodes below, in world coordinates:
    ``Upsilon(i) = taubar_i Upsilon(p) taubar_i^T + S_i D_i^-1 S_i^T`` (Eq. 68) and the edge products ``W(i) =
    Psi(i, cpar(i))``; one-dof joints in registers (:func:`upsilon_one_dof`, :func:`propagator_one_dof`).
    ``G`` (18, 6), ``y`` (6,) scratch."""
    for i in range(parent.shape[0]):
        if cnt[i] == 0:
            continue
        p = parent[i]
        n = jnv[i]
        va = vadr[i]
        if p < 0:  # Upsilon(p) = 0
            root_upsilon(S, Dinv, i, va, n, Ups, G)
        elif n == 1:
            upsilon_one_dof(S, U, Dinv[i, 0, 0], va, i, p, Ups, y)
        else:
            for m in range(6):
                for l in range(6):
                    Ups[i, m, l] = Ups[p, m, l]
            taubar_congruence(S, U, Dinv[i], va, n, Ups[i], G)
        c = cpar[i]
        if c < 0:
            continue
        if n == 1:
            propagator_one_dof(S, U, Dinv[i, 0, 0], va, i, p, p == c, W, y)
            continue
        for m in range(6):
            for l in range(6):
                W[i, m, l] = (1.0 if m == l else 0.0) if p == c else W[p, m, l]
        taubar_left(S, U, Dinv[i], va, n, W[i], W[i], y)


@jit
def vertex_omegas(cpar, vid, vert_body, vert_root, vert_end, nvert, Ups, W, Om):
    """Pass 3 of :func:`osim_inv`, vertex pairs in preorder: ``Omega(x, x) = Upsilon(v)`` and, for ``y < x``
    with the same root, ``Omega(x, y) = W(v) Omega(cpar(v), y)`` (Eq. 69; ``v`` the body of ``x``), the lower
    triangle packed: ``Omega(x, y) = Om[x (x + 1) / 2 + y]``. Only the pairs that the node pairs need
    (``x < vert_end[y]``, :func:`node_tree`): pairs of different roots do not couple."""
    for x in range(nvert):
        v = vert_body[x]
        o = x * (x + 1) // 2
        for m in range(6):
            for l in range(6):
                Om[o + x, m, l] = Ups[v, m, l]
        c = cpar[v]
        if c < 0:
            continue
        ic = vid[c]
        for y in range(x):
            if vert_root[y] != vert_root[x] or x >= vert_end[y]:
                continue
            # row m of Omega(x, y) = sum over j of W(v)[m, j] (row j of Omega(ic, y)), six sums in registers
            if ic < y:  # Omega(ic, y) = Omega(y, ic)^T
                k = y * (y + 1) // 2 + ic
                for m in range(6):
                    s0 = s1 = s2 = s3 = s4 = s5 = 0.0
                    for j in range(6):
                        w = W[v, m, j]
                        s0 += w * Om[k, 0, j]
                        s1 += w * Om[k, 1, j]
                        s2 += w * Om[k, 2, j]
                        s3 += w * Om[k, 3, j]
                        s4 += w * Om[k, 4, j]
                        s5 += w * Om[k, 5, j]
                    Om[o + y, m, 0], Om[o + y, m, 1], Om[o + y, m, 2] = s0, s1, s2
                    Om[o + y, m, 3], Om[o + y, m, 4], Om[o + y, m, 5] = s3, s4, s5
                continue
            k = ic * (ic + 1) // 2 + y
            for m in range(6):
                s0 = s1 = s2 = s3 = s4 = s5 = 0.0
                for j in range(6):
                    w = W[v, m, j]
                    s0 += w * Om[k, j, 0]
                    s1 += w * Om[k, j, 1]
                    s2 += w * Om[k, j, 2]
                    s3 += w * Om[k, j, 3]
                    s4 += w * Om[k, j, 4]
                    s5 += w * Om[k, j, 5]
                Om[o + y, m, 0], Om[o + y, m, 1], Om[o + y, m, 2] = s0, s1, s2
                Om[o + y, m, 3], Om[o + y, m, 4], Om[o + y, m, 5] = s3, s4, s5


@jit
def vertex_compliance(parent, vadr, jnv, oS, oU, Dinv, cnt, cpar, vid, Ups, W, node_body, vert_body, vert_root,
                      vert_end, Om, G, y):
    """The extended compliance between the vertices of the node tree from the articulated-body factors in world
    coordinates (``oS``, ``oU``, ``Dinv``): pass 1 :func:`node_tree`, pass 2 :func:`vertex_upsilons` and pass 3
    :func:`vertex_omegas` (``Om`` packed; ``vert_*`` (>= the vertex count), ``G`` (18, 6), ``y`` (6,) scratch).
    Returns the vertex count."""
    nvert = node_tree(parent, node_body, cnt, cpar, vid, vert_body, vert_root, vert_end)
    vertex_upsilons(parent, vadr, jnv, oS, oU, Dinv, cnt, cpar, Ups, W, G, y)
    vertex_omegas(cpar, vid, vert_body, vert_root, vert_end, nvert, Ups, W, Om)
    return nvert


@inline_jit
def row_pickoff(node_dim, node_sel, wE, wr, row_coef, r, x, a):
    """The pick-off ``g_(r, a) = B_a C^T`` of side ``x`` of row ``r`` on node ``a`` (``C = row_coef[r, x,
    :node_dim[a]]``, ``B_a = ^aX_0^T Sel_a^T``, Eq. 64): the world wrench about the world origin of a unit
    impulse of the row at the node, ``[E^T n + r x f_0; f_0 = E^T f]`` for ``[n; f] = Sel_a^T C`` (a contact
    node, ``node_dim`` 3, linear rows in world axes: ``[r x C; C]``). Returns its six components."""
    n0, n1, n2, f0, f1, f2 = 0.0, 0.0, 0.0, row_coef[r, x, 0], row_coef[r, x, 1], row_coef[r, x, 2]
    if node_dim[a] != 3:
        f0 = f1 = f2 = 0.0
        for d in range(node_dim[a]):
            c = row_coef[r, x, d]
            n0, n1, n2 = n0 + node_sel[a, d, 0] * c, n1 + node_sel[a, d, 1] * c, n2 + node_sel[a, d, 2] * c
            f0, f1, f2 = f0 + node_sel[a, d, 3] * c, f1 + node_sel[a, d, 4] * c, f2 + node_sel[a, d, 5] * c
        n0, n1, n2, f0, f1, f2 = (wE[a, 0, 0] * n0 + wE[a, 1, 0] * n1 + wE[a, 2, 0] * n2,
                                  wE[a, 0, 1] * n0 + wE[a, 1, 1] * n1 + wE[a, 2, 1] * n2,
                                  wE[a, 0, 2] * n0 + wE[a, 1, 2] * n1 + wE[a, 2, 2] * n2,
                                  wE[a, 0, 0] * f0 + wE[a, 1, 0] * f1 + wE[a, 2, 0] * f2,
                                  wE[a, 0, 1] * f0 + wE[a, 1, 1] * f1 + wE[a, 2, 1] * f2,
                                  wE[a, 0, 2] * f0 + wE[a, 1, 2] * f1 + wE[a, 2, 2] * f2)
    return (n0 + (wr[a, 1] * f2 - wr[a, 2] * f1), n1 + (wr[a, 2] * f0 - wr[a, 0] * f2),
            n2 + (wr[a, 0] * f1 - wr[a, 1] * f0), f0, f1, f2)


@jit
def vertex_pickoffs(vid, node_body, node_dim, node_sel, wE, wr, row_node, row_coef, nvert, start, fill, prow, g):
    """The row pick-offs (:func:`row_pickoff`) of the rows on nodes, gathered by the vertex of their node (a
    counting sort): vertex ``v``'s are ``e = start[v] .. start[v + 1] - 1``, on row ``prow[e]``, ``G_v``
    (6, p_v) at ``g[6 start[v]:]``. ``fill`` (nvert,) scratch."""
    start[:nvert + 1] = 0
    for r in range(row_node.shape[0]):
        for x in range(2):
            if row_node[r, x] >= 0:
                start[vid[node_body[row_node[r, x]]] + 1] += 1
    for v in range(nvert):
        start[v + 1] += start[v]
        fill[v] = start[v]
    for r in range(row_node.shape[0]):
        for x in range(2):
            a = row_node[r, x]
            if a < 0:
                continue
            v = vid[node_body[a]]
            e, p = 5 * start[v] + fill[v], start[v + 1] - start[v]  # G_v[m, e - start[v]] at g[e + m p]
            prow[fill[v]] = r
            fill[v] += 1
            g[e], g[e + p], g[e + 2 * p], g[e + 3 * p], g[e + 4 * p], g[e + 5 * p] = row_pickoff(
                node_dim, node_sel, wE, wr, row_coef, r, x, a)


@jit
def node_blocks(node_body, node_dim, node_row, node_first, node_sel, wE, wr, vid, vert_root, Om, Linv, Z):
    """``Lambda^-1(a, b) = B_a^T Omega(b_a, b_b) B_b`` (Eq. 64) of every node pair from the packed ``Om`` of
    :func:`vertex_compliance` (:func:`node_block`); pairs of different roots are zero. ``node_first`` (nn,),
    ``Z`` (12, 6) scratch."""
    row_selections(node_sel, node_dim, node_first)
    for a in range(node_body.shape[0]):
        x = vid[node_body[a]]
        for b in range(a + 1):
            w = vid[node_body[b]]
            if vert_root[x] != vert_root[w]:  # uncoupled
                for d in range(node_dim[a]):
                    for e in range(node_dim[b]):
                        Linv[node_row[a] + d, node_row[b] + e] = 0.0
                        Linv[node_row[b] + e, node_row[a] + d] = 0.0
                continue
            k = x * (x + 1) // 2 + w if x >= w else w * (w + 1) // 2 + x
            node_block(Om, k, x < w, wE, wr, node_sel, node_first, a, node_dim[a], b, node_dim[b], Linv, node_row[a],
                       node_row[b], Z)


@jit
def node_compliance(parent, vadr, jnv, armature, I, S, oR, op, oS, oI, oIA, oU, D, Dinv, cnt, cpar, vid, Ups, W,
                    node_body, wE, wr, node_sel, node_dim, node_row, Linv):
    """Lambda^-1 after the position kinematics (``S``, ``oR``, ``op`` filled), in world coordinates, where
    the articulated-body propagator is ``psi_i = taubar_i`` (no transform): the world-frame articulated-body
    factors, :func:`vertex_compliance` then :func:`node_blocks`, with scratch of its own. Node ``a`` is given
    by its world transform ``^aX_0 = (wE[a], wr[a])`` and its selection. ``cnt``, ``cpar``, ``vid``: (nb,)
    int64 workspaces; ``Ups``, ``W``: (nb, 6, 6)."""
    nn = node_body.shape[0]
    ints = np.empty(7 * nn, dtype=np.int64)
    G, y, Z = np.empty((18, 6)), np.empty(6), np.empty((12, 6))
    Om = np.empty(((2 * nn - 1) * nn, 6, 6))
    vert_root = ints[2 * nn:4 * nn]
    world_subspaces(parent, vadr, jnv, S, oR, op, oS)
    world_inertias(I, oR, op, oI)
    st = articulated_world(parent, vadr, jnv, armature, oI, oS, oIA, oU, D, Dinv, G)
    if st != OK:
        return st
    vertex_compliance(parent, vadr, jnv, oS, oU, Dinv, cnt, cpar, vid, Ups, W, node_body, ints[:2 * nn], vert_root,
                      ints[4 * nn:6 * nn], Om, G, y)
    node_blocks(node_body, node_dim, node_row, ints[6 * nn:], node_sel, wE, wr, vid, vert_root, Om, Linv, Z)
    return OK
