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

from .._jit import inline_jit, jit, view
from .articulated import articulated_inertias, articulated_world
from .frames import frame_world_pose
from .joints import OK, check_q
from .kinematics import BAD_ARRAY, tree_positions, vector_ready, world_inertias, world_poses, world_subspaces
from .layout import (NB, NODE_COUNT, NODE_CPAR, NODE_VID, NQ, PSI, SCRATCH, UPS, data_aba, data_kinematics, data_world,
                     dfield, dint, model_extras, model_tree)
from .spatial import add_XAXt, transpose6, xforce_T_add, xmotion


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
    """``Ups[i] = S_i D_i^-1 S_i^T`` (Jain 2014 Eq. 68 for a body on the world, ``Upsilon(p) = 0``): the
    rows ``T = D_i^-1 S_i^T`` first (``T``: (>= 6, 6) scratch), then ``S_i T`` on and above the diagonal,
    mirrored."""
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
def node_maps(node_E, node_r, node_sel, node_dim, B, y):
    """``B[a] = X_a^T Sel_a^T`` (6 x d_a, in the first d_a columns): the node's selected force directions
    as body-frame forces (Jain 2014 Eq. 61's pick-off operator). ``y`` (6,) scratch."""
    for a in range(node_E.shape[0]):
        for d in range(node_dim[a]):
            y[:] = 0.0
            xforce_T_add(node_E[a], node_r[a], node_sel[a, d], y)
            for m in range(6):
                B[a, m, d] = y[m]


@jit
def node_block(Om, va, vb, transpose, B, a, da, b, db, Linv, ra, rb, tmp):
    """Linv[ra:ra+da, rb:rb+db] = B_a^T Om_vb B_b with ``Om_vb = Om[va, vb]`` (its transpose if
    ``transpose``), and the mirrored block. Whole arrays and indices: no sub-array views per pair."""
    for e in range(db):
        for m in range(6):
            s = 0.0
            for l in range(6):
                s += (Om[va, vb, l, m] if transpose else Om[va, vb, m, l]) * B[b, l, e]
            tmp[m] = s
        for d in range(da):
            s = 0.0
            for m in range(6):
                s += B[a, m, d] * tmp[m]
            Linv[ra + d, rb + e] = s
            Linv[rb + e, ra + d] = s


@inline_jit
def node_fields(node_int, node_float):
    """``(node_body, node_dim, node_row, node_E, node_r, node_sel, wE, wr)``: the nodes of ``soadyn.osim.NodeSet``
    as views of its two buffers (their layout: :func:`osim_inv`)."""
    nn = (node_int.shape[0] - 1) // 3
    return (view(node_int, 0, nn), view(node_int, nn, nn), view(node_int, 2 * nn, nn + 1),
            view(node_float, 0, (nn, 3, 3)), view(node_float, 9 * nn, (nn, 3)), view(node_float, 12 * nn, (nn, 6, 6)),
            view(node_float, 48 * nn, (nn, 3, 3)), view(node_float, 57 * nn, (nn, 3)))


@jit
def osim_inv(model_int, model_float, data_int, data_float, q, node_int, node_float, Linv):
    """Lambda^-1 of ``nn`` nodes in O(N + n_c^2) (Jain 2014 Appendix, Eqs. 64-69): kinematics, then
    :func:`node_compliance` with the nodes' world transforms ``^aX_0 = (R_a^T, p_a)``. Also fills the world
    poses ``Data.oR, op``. The nodes (``soadyn.osim.NodeSet``): ``node_int = [node_body (nn), node_dim (nn),
    node_row (nn + 1)]``, ``node_float = [node_E (nn, 3, 3), node_r (nn, 3), node_sel (nn, 6, 6), then
    scratch wE (nn, 3, 3), wr (nn, 3)]``. Output ``Linv`` (m, m)."""
    (body_parent, jnt_type, jnt_qadr, jnt_vadr, jnt_nv, jnt_axis, jnt_axis2, jnt_pitch, body_Xtree_E, body_Xtree_r,
     body_I, dof_S, dof_armature) = model_tree(model_int, model_float)
    if not vector_ready(q, model_int[NQ]):
        return BAD_ARRAY
    st = check_q(jnt_type, jnt_qadr, q)
    if st != OK:
        return st
    nb = model_int[NB]
    node_body, node_dim, node_row, node_E, node_r, node_sel, wE, wr = node_fields(node_int, node_float)
    nn = node_body.shape[0]
    X_E, X_r, S, v, c, oR, op = data_kinematics(model_int, data_float)
    oS, oI, oIA, oU = data_world(model_int, data_float)
    IA, pA, U, D, Dinv, u, a = data_aba(model_int, data_float)
    Ups = dfield(model_int, data_float, UPS, (nb, 6, 6))
    Psi = dfield(model_int, data_float, PSI, (nb, 6, 6))
    node_count = dint(model_int, data_int, NODE_COUNT, nb)
    node_cpar = dint(model_int, data_int, NODE_CPAR, nb)
    node_vid = dint(model_int, data_int, NODE_VID, nb)
    R = dfield(model_int, data_float, SCRATCH, (4, 6, 6))[0, :3, :3]
    tree_positions(body_parent, jnt_type, jnt_qadr, jnt_vadr, jnt_axis, jnt_axis2, jnt_pitch, body_Xtree_E,
                   body_Xtree_r, dof_S, q, X_E, X_r, S)
    world_poses(body_parent, X_E, X_r, oR, op)
    for k in range(nn):
        frame_world_pose(node_body[k], node_E[k], node_r[k], oR, op, R, wr[k])
        for m in range(3):
            for l in range(3):
                wE[k, m, l] = R[l, m]
    return node_compliance(body_parent, jnt_vadr, jnt_nv, dof_armature, body_I, S, oR, op, oS, oI, oIA, oU, D, Dinv, node_count,
                           node_cpar, node_vid, Ups, Psi, node_body, wE, wr, node_sel, node_dim, node_row, Linv)


@jit
def vertex_compliance(parent, vadr, jnv, armature, I, S, oR, op, oS, oI, oIA, oU, D, Dinv, cnt, cpar, vid, Ups, W,
                      node_body):
    """The extended compliance between the vertices of the node tree (passes 1-3 of :func:`node_compliance`)
    after the position kinematics (``S``, ``oR``, ``op`` filled), in world coordinates. Returns
    ``(status, Om, vroot)``: ``Om[v, w]`` (nvert, nvert, 6, 6) for ``v >= w``, ``vid[i]`` the vertex of body
    ``i`` (-1: none) and ``vroot[v]`` the vertex at the root of ``v``'s subtree of the world (vertices with
    different roots do not couple; their ``Om`` blocks are zero)."""
    nb = parent.shape[0]
    nn = node_body.shape[0]
    T = np.empty((6, 6))
    y = np.empty(6)
    G = np.empty((18, 6))
    world_subspaces(parent, vadr, jnv, S, oR, op, oS)
    world_inertias(I, oR, op, oI)
    st = articulated_world(parent, vadr, jnv, armature, oI, oS, oIA, oU, D, Dinv, T)
    if st != OK:
        return st, np.empty((0, 0, 6, 6)), np.empty(0, dtype=np.int64)
    # pass 1: node counts; a vertex carries a node or joins two node-carrying child subtrees
    cnt[:] = 0
    vid[:] = 0  # here: number of node-carrying children
    for a in range(nn):
        cnt[node_body[a]] += 1
    for i in range(nb - 1, -1, -1):
        p = parent[i]
        if p >= 0 and cnt[i] > 0:
            cnt[p] += cnt[i]
            vid[p] += 1
    own = np.zeros(nb, dtype=np.int64)
    for a in range(nn):
        own[node_body[a]] = 1
    nvert = 0
    for i in range(nb):
        if cnt[i] > 0 and (own[i] == 1 or vid[i] >= 2):
            vid[i] = nvert
            nvert += 1
        else:
            vid[i] = -1
    verts = np.empty(nvert, dtype=np.int64)
    # pass 2: root to leaves over bodies with nodes below
    for i in range(nb):
        if cnt[i] == 0:
            continue
        p = parent[i]
        n = jnv[i]
        va = vadr[i]
        if p < 0:  # Upsilon(p) = 0: Upsilon(i) = S D^-1 S^T
            root_upsilon(oS, Dinv, i, va, n, Ups, G)
            cpar[i] = -1
        else:
            Ups[i] = Ups[p]
            cpar[i] = p if vid[p] >= 0 else cpar[p]
            taubar_congruence(oS, oU, Dinv[i], va, n, Ups[i], G)
        if cpar[i] >= 0:
            if p == cpar[i]:
                for m in range(6):
                    for l in range(6):
                        T[m, l] = 1.0 if m == l else 0.0
                taubar_left(oS, oU, Dinv[i], va, n, T, W[i], y)
            else:
                taubar_left(oS, oU, Dinv[i], va, n, W[p], W[i], y)
        if vid[i] >= 0:
            verts[vid[i]] = i
    # pass 3: Omega between vertices
    Om = np.empty((nvert, nvert, 6, 6))
    for a in range(nvert):
        v = verts[a]
        Om[a, a] = Ups[v]
        c = cpar[v]
        ic = vid[c] if c >= 0 else -1
        for b in range(a):
            if ic < 0:
                Om[a, b] = 0.0
                continue
            for m in range(6):
                for l in range(6):
                    s = 0.0
                    for k in range(6):
                        if ic > b:
                            s += W[v, m, k] * Om[ic, b, k, l]
                        else:
                            s += W[v, m, k] * Om[b, ic, l, k]
                    Om[a, b, m, l] = s
    vroot = np.empty(nvert, dtype=np.int64)
    for a in range(nvert):
        c = cpar[verts[a]]
        vroot[a] = a if c < 0 else vroot[vid[c]]
    return OK, Om, vroot


@jit
def node_compliance(parent, vadr, jnv, armature, I, S, oR, op, oS, oI, oIA, oU, D, Dinv, cnt, cpar, vid, Ups, W,
                    node_body, wE, wr, node_sel, node_dim, node_row, Linv):
    """Lambda^-1 after the position kinematics (``S``, ``oR``, ``op`` filled), in world coordinates, where
    the articulated-body propagator is ``psi_i = taubar_i`` (no transform). Node ``a`` is given by its
    world transform ``^aX_0 = (wE[a], wr[a])`` and its selection.

    pass 1 (leaves to root): world-frame articulated inertias and the AB factors ``U, D^-1``; node counts per
    subtree. The *node tree* has as vertices the node bodies and every body where two node-carrying subtrees
    meet (closed under nearest common ancestors), each linked to its nearest vertex ancestor ``cpar``.
    pass 2 (root to leaves, bodies with nodes below): ``Upsilon(i) = taubar_i Upsilon(p) taubar_i^T +
    S_i D_i^-1 S_i^T`` (Eq. 68) and the edge products ``W(i) = Psi(i, cpar(i))``.
    pass 3 (vertex pairs in preorder): ``Omega(v, v) = Upsilon(v)``, ``Omega(v, w) = W(v) Omega(cpar(v), w)``
    (Eq. 69); O(1) per pair. Then ``Lambda^-1(a, b) = B_a^T Omega(b_a, b_b) B_b`` with the node pick-off
    ``B_a = ^aX_0^T Sel_a^T``.
    ``cnt``, ``cpar``, ``vid``: (nb,) int64 workspaces; ``Ups``, ``W``: (nb, 6, 6)."""
    nn = node_body.shape[0]
    y = np.empty(6)
    st, Om, vroot = vertex_compliance(parent, vadr, jnv, armature, I, S, oR, op, oS, oI, oIA, oU, D, Dinv, cnt, cpar,
                                      vid, Ups, W, node_body)
    if st != OK:
        return st
    B = np.empty((nn, 6, 6))
    node_maps(wE, wr, node_sel, node_dim, B, y)
    Linv[:, :] = 0.0
    for a in range(nn):
        va_ = vid[node_body[a]]
        for b in range(a + 1):
            vb_ = vid[node_body[b]]
            if vroot[va_] != vroot[vb_]:
                continue
            if va_ >= vb_:
                node_block(Om, va_, vb_, False, B, a, node_dim[a], b, node_dim[b], Linv, node_row[a], node_row[b], y)
            else:
                node_block(Om, vb_, va_, True, B, a, node_dim[a], b, node_dim[b], Linv, node_row[a], node_row[b], y)
    return OK


@jit
def path_from(parent, h, k, path):
    """The bodies from ``k`` up to (not including) its ancestor ``h``, into ``path``; returns their count."""
    n = 0
    while k != h:
        path[n] = k
        n += 1
        k = parent[k]
    return n


@jit
def osim_inv_paths(model_int, model_float, data_float, q, node_int, node_float, Linv):
    """Lambda^-1 by Chang-Khatib 2000 Table 1: step 3 (outward ``Omega_ii``, here for every body), step 4
    (for each node pair, from the nearest common ancestor ``h``: ``Omega_{h,j}`` walked out to ``b_b`` by
    ``Omega_{h,k} = Omega_{h,p} L_k``, then ``Omega_{k,j} = L_k^T Omega_{p,j}`` walked out to ``b_a``), step 5
    (node transforms). O(n m^2): the cross-check for :func:`osim_inv`, with its arguments (``data_int`` aside)."""
    (parent, jtype, qadr, vadr, jnv, axis, axis2, pitch, XT_E, XT_r, I, S0,
     armature) = model_tree(model_int, model_float)
    if not vector_ready(q, model_int[NQ]):
        return BAD_ARRAY
    st = check_q(jtype, qadr, q)
    if st != OK:
        return st
    subtree_end = model_extras(model_int, model_float)[0]
    nb = model_int[NB]
    node_body, node_dim, node_row, node_E, node_r, node_sel = node_fields(node_int, node_float)[:6]
    nn = node_body.shape[0]
    X_E, X_r, S, v, c, oR, op = data_kinematics(model_int, data_float)
    IA, pA, U, D, Dinv, u, a = data_aba(model_int, data_float)
    Ups = dfield(model_int, data_float, UPS, (nb, 6, 6))
    T = np.empty((4, 6, 6))
    Oh = np.empty((1, 1, 6, 6))
    O = Oh[0, 0]  # Omega(ba, bb) of the pair
    y = np.empty(6)
    w = np.empty(6)
    G = np.empty((18, 6))
    path = np.empty(nb, dtype=np.int64)
    tree_positions(parent, jtype, qadr, vadr, axis, axis2, pitch, XT_E, XT_r, S0, q, X_E, X_r, S)
    world_poses(parent, X_E, X_r, oR, op)
    st = articulated_inertias(parent, vadr, jnv, armature, I, X_E, X_r, S, IA, U, D, Dinv, T[0], T[1])
    if st != OK:
        return st
    for i in range(nb):
        p = parent[i]
        if p < 0:
            O[:] = 0.0
            upsilon_step(X_E[i], X_r[i], S, U, Dinv[i], vadr[i], jnv[i], O, Ups[i], G)
        else:
            upsilon_step(X_E[i], X_r[i], S, U, Dinv[i], vadr[i], jnv[i], Ups[p], Ups[i], G)
    B = np.empty((nn, 6, 6))
    node_maps(node_E, node_r, node_sel, node_dim, B, y)
    for a in range(nn):
        ba = node_body[a]
        for b in range(a + 1):
            bb = node_body[b]
            h = ba  # nearest common ancestor: depth-first ranges
            while h >= 0 and not (h <= bb < subtree_end[h]):
                h = parent[h]
            if h < 0:
                O[:] = 0.0
            else:
                O[:] = Ups[h]
                # Omega(h, bb): walk out from h to bb, Omega(h, k) = Omega(h, p) psi_k^T = (psi_k Omega(p, h))^T
                npath = path_from(parent, h, bb, path)
                for s in range(npath - 1, -1, -1):
                    k = path[s]
                    transpose6(O)
                    psi_left(X_E[k], X_r[k], S, U, Dinv[k], vadr[k], jnv[k], O, O, y, w)
                    transpose6(O)
                # Omega(k, bb) = psi_k Omega(p, bb), walked out from h to ba
                npath = path_from(parent, h, ba, path)
                for s in range(npath - 1, -1, -1):
                    k = path[s]
                    psi_left(X_E[k], X_r[k], S, U, Dinv[k], vadr[k], jnv[k], O, O, y, w)
            node_block(Oh, 0, 0, False, B, a, node_dim[a], b, node_dim[b], Linv, node_row[a], node_row[b], y)
    return OK
