"""The Delassus matrix ``W = G M^-1 G^T = Q Lambda Q*`` of the constraint rows (Jain 2014 Eq. 52; the rows and
nodes of :func:`.contact.constraint_nodes`) from the articulated-body factors of an ABA at the same ``q``, never
from ``M^-1``. Both evaluations below work in world coordinates, where the articulated-body force propagator
of joint ``i`` is ``taubar_i^T = 1 - U_i D_i^-1 S_i^T`` with no transform (``oS``, ``oU``:
:func:`kinematics.world_subspaces`, :func:`kinematics.world_forces`; ``D`` does not depend on the frame), and
read the rows through their pick-offs ``g_(r, a)`` (:func:`osim.row_pickoff`): ``W = sum g^T Omega g`` with
the extended compliance ``Omega = psi* H* D^-1 H psi`` (Jain 2014 Eqs. 63-64).

* By vertices (:func:`vertex_delassus`, Eqs. 64-69, O(N + n_c^2)): ``Upsilon`` and the edge propagators over
  the bodies with nodes below, ``Omega`` between the vertices of the node tree, then ``G_v^T Omega(v, w)
  G_w`` for every pair of vertices of one tree.
* By paths (:func:`path_delassus`, ``Omega = psi* H* D^-1 H psi`` read from right to left): each row's
  pick-off is carried from its node to the root by the force propagators, leaving ``y_r(i) = S_i^T h`` on the
  joints of its path (``Y = H psi B Q*``), and ``W[r, s] = sum_i y_r(i)^T D_i^-1 y_s(i)`` over the joints the
  two rows share. Its cost grows with the rows times their paths' length, the vertex method's with the bodies
  and the vertex pairs: few rows on short paths (a legged robot's feet) cost the paths fewer operations
  than the 6x6 blocks of every body and vertex pair.

:func:`delassus` counts the operations of both (:func:`delassus_costs`) and runs the cheaper one.
"""

import numpy as np

from .._jit import inline_jit, jit, view
from .kinematics import world_forces, world_subspaces
from .osim import row_pickoff, vertex_compliance, vertex_pickoffs


@jit
def delassus_space(nbody, nv, nn, nr):
    """``(floats, ints)``: the scratch :func:`delassus` takes from its two workspaces for ``nn`` nodes and ``nr``
    rows of a model of ``nbody`` bodies and ``nv`` dofs: the packed ``Omega`` of at most ``m = min(nbody, 2 nn -
    1)`` vertices (:func:`osim.vertex_compliance`) and its pass scratch, two pick-offs per row and their
    products, per vertex its tree fields and pick-off range (:func:`vertex_delassus`); the int scratch of
    :func:`delassus_costs` and :func:`path_delassus`, whose float scratch (``2 nr nv + 6``) is allocated where the
    vertex method's does not hold it (it runs where it costs less than the vertex method's ``Omega``)."""
    m = max(min(nbody, 2 * nn - 1), 0)
    return 18 * m * (m + 1) + 114 + 26 * nr, max(5 * m + 1 + 2 * nr, 5 * nbody, nbody + nv)


@inline_jit
def delassus(parent, vadr, jnv, S, U, Dinv, oR, op, oS, oU, cnt, cpar, vid, Ups, W6, node_body, wE, wr, node_sel,
             node_dim, node_row, nn, row_node, row_coef, Wd, fs, js):
    """``W = Q Lambda Q*`` (module docstring) for the rows of :func:`.contact.constraint_nodes` by the cheaper of
    :func:`vertex_delassus` and :func:`path_delassus` (:func:`delassus_costs`), from the articulated-body factors
    ``S``, ``U``, ``Dinv`` (body coordinates) of an ABA at the same ``q``, moved to world coordinates (``oS``,
    ``oU``). ``cnt``, ``cpar``, ``vid`` (nbody,) int and ``Ups``, ``W6`` (nbody, 6, 6) workspaces of the vertex
    method; ``fs``, ``js``: float and int scratch of :func:`delassus_space`. Returns whether ``fs`` starts with
    the rows' joint forces ``Y`` (nr, nv) of :func:`path_delassus` (the paths ran in it)."""
    world_subspaces(parent, vadr, jnv, S, oR, op, oS)
    world_forces(parent, vadr, jnv, U, oR, op, oU)
    paths, vertices = delassus_costs(parent, jnv, node_body, nn, row_node, oS.shape[0], js)
    if paths < vertices:
        return path_delassus(parent, vadr, jnv, oS, oU, Dinv, node_body, wE, wr, node_sel, node_dim, row_node,
                             row_coef, Wd, fs, js)
    vertex_delassus(parent, vadr, jnv, oS, oU, Dinv, cnt, cpar, vid, Ups, W6, node_body, wE, wr, node_sel, node_dim,
                    nn, row_node, row_coef, Wd, fs, js)
    return False


@jit
def vertex_delassus(parent, vadr, jnv, oS, oU, Dinv, cnt, cpar, vid, Ups, W6, node_body, wE, wr, node_sel,
                    node_dim, nn, row_node, row_coef, Wd, fs, js):
    """``W`` by vertices (module docstring): with the row pick-offs ``g_(r, a)``, ``W[r, s] = sum_(a, b) g_(r,
    a)^T Omega(b_a, b_b) g_(s, b)`` over the nodes of the two rows (:func:`osim.vertex_compliance`). The
    pick-offs are gathered by the vertex of their node (``G_v`` (6, p_v), one column per row side on vertex
    ``v``: :func:`osim.vertex_pickoffs`), and each pair of vertices ``(v, w)`` of one subtree of the world adds
    ``G_v^T Omega(v, w) G_w`` on the rows of its pick-offs: ``H = Omega(v, w) G_w``, then one row of the block
    per pick-off of ``v`` (contiguous columns), added at ``W[r, s]`` and ``W[s, r]`` (vertices of different
    subtrees do not couple; free bodies: each vertex on its own). ``oS``, ``oU``: the factors in world
    coordinates; the rest as :func:`delassus`."""
    nr = Wd.shape[0]
    m = max(min(parent.shape[0], 2 * nn - 1), 0)
    nom = m * (m + 1) // 2
    Om, G, y = view(fs, 0, (nom, 6, 6)), view(fs, 36 * nom, (18, 6)), view(fs, 36 * nom + 108, 6)
    og = 36 * nom + 114  # G_v: (6, p_v) at og + 6 start[v]
    h, acc = view(fs, og + 12 * nr, (6, 2 * nr)), view(fs, og + 24 * nr, 2 * nr)
    vert_body, vert_root, vert_end = view(js, 0, m), view(js, m, m), view(js, 2 * m, m)
    start, fill, prow = view(js, 3 * m, m + 1), view(js, 4 * m + 1, m), view(js, 5 * m + 1, 2 * nr)
    nvert = vertex_compliance(parent, vadr, jnv, oS, oU, Dinv, cnt, cpar, vid, Ups, W6, node_body[:nn], vert_body,
                              vert_root, vert_end, Om, G, y)
    vertex_pickoffs(vid, node_body, node_dim, node_sel, wE, wr, row_node, row_coef, nvert, start, fill, prow,
                    view(fs, og, 12 * nr))
    Wd[:, :] = 0.0
    for v in range(nvert):
        o, sv, pv = v * (v + 1) // 2, start[v], start[v + 1] - start[v]
        for w in range(v + 1):
            sw, pw = start[w], start[w + 1] - start[w]
            if vert_root[w] != vert_root[v] or pw == 0 or pv == 0:
                continue
            Gv, Gw, Ovw = view(fs, og + 6 * sv, (6, pv)), view(fs, og + 6 * sw, (6, pw)), Om[o + w]
            for k in range(6):  # H = Omega(v, w) G_w: Om[o + w] holds it for v >= w
                o0, o1, o2, o3, o4, o5 = Ovw[k, 0], Ovw[k, 1], Ovw[k, 2], Ovw[k, 3], Ovw[k, 4], Ovw[k, 5]
                for j in range(pw):
                    h[k, j] = (o0 * Gw[0, j] + o1 * Gw[1, j] + o2 * Gw[2, j] + o3 * Gw[3, j] + o4 * Gw[4, j]
                               + o5 * Gw[5, j])
            for i in range(pv):  # row i of G_v^T H; v = w: the block is symmetric, j <= i
                g0, g1, g2, g3, g4, g5 = Gv[0, i], Gv[1, i], Gv[2, i], Gv[3, i], Gv[4, i], Gv[5, i]
                for j in range(pw if v != w else i + 1):
                    acc[j] = g0 * h[0, j] + g1 * h[1, j] + g2 * h[2, j] + g3 * h[3, j] + g4 * h[4, j] + g5 * h[5, j]
                r = prow[sv + i]
                for j in range(pw if v != w else i):  # and the pair (w, v): W[s, r] (W stays exactly symmetric)
                    s = prow[sw + j]
                    Wd[r, s] += acc[j]
                    Wd[s, r] += acc[j]
                if v == w:
                    Wd[r, r] += acc[i]


@inline_jit
def path_delassus(parent, vadr, jnv, oS, oU, Dinv, node_body, wE, wr, node_sel, node_dim, row_node, row_coef, Wd,
                  fs, js):
    """``W`` by paths (module docstring): each side ``x`` of row ``r`` starts from its pick-off ``h = g_(r, a)`` on
    the node's body and climbs to the root, joint ``i`` taking ``y = S_i^T h`` into ``Y[r]`` and ``D_i^-1 y``
    into ``T[r]`` and passing ``h - U_i D_i^-1 y`` to the parent (ABA pass 2 for the unit impulse; a root
    passes nothing); then ``W[r, s] = Y[r] . T[s]`` over the dofs of row ``r``'s paths (``T[s]`` is zero off
    row ``s``'s). ``oS``, ``oU``: the factors in world coordinates; ``fs``, ``js`` as :func:`delassus` (``fs``
    allocated when it has no room for ``2 nr nv + 6``). Returns whether ``Y`` (nr, nv) is at the start of the
    given ``fs``."""
    nr, nv = Wd.shape[0], oS.shape[0]
    given = fs.shape[0] >= 2 * nr * nv + 6
    if not given:
        fs = np.empty(2 * nr * nv + 6)
    Y, T, y = view(fs, 0, (nr, nv)), view(fs, nr * nv, (nr, nv)), view(fs, 2 * nr * nv, 6)
    mark, dofs = view(js, 0, parent.shape[0]), view(js, parent.shape[0], nv)
    for r in range(nr):
        for m in range(nv):
            Y[r, m] = 0.0
            T[r, m] = 0.0
        for x in range(2):
            a = row_node[r, x]
            if a < 0:
                continue
            h0, h1, h2, h3, h4, h5 = row_pickoff(node_dim, node_sel, wE, wr, row_coef, r, x, a)
            i = node_body[a]
            while i >= 0:
                n, va = jnv[i], vadr[i]
                root = parent[i] < 0  # no force passes on
                for d in range(n):
                    k = va + d
                    y[d] = (oS[k, 0] * h0 + oS[k, 1] * h1 + oS[k, 2] * h2 + oS[k, 3] * h3 + oS[k, 4] * h4
                            + oS[k, 5] * h5)
                    Y[r, k] += y[d]
                for d in range(n):
                    t = 0.0
                    for e in range(n):
                        t += Dinv[i, d, e] * y[e]
                    k = va + d
                    T[r, k] += t
                    if not root:
                        h0, h1, h2 = h0 - oU[k, 0] * t, h1 - oU[k, 1] * t, h2 - oU[k, 2] * t
                        h3, h4, h5 = h3 - oU[k, 3] * t, h4 - oU[k, 4] * t, h5 - oU[k, 5] * t
                i = parent[i]
    mark[:] = -1
    for r in range(nr):
        nd = 0  # the dofs of row r's paths: side 0's to the root, side 1's up to where it meets side 0's
        for x in range(2):
            a = row_node[r, x]
            i = -1 if a < 0 else node_body[a]
            while i >= 0 and mark[i] != r:
                mark[i] = r
                for d in range(jnv[i]):
                    dofs[nd] = vadr[i] + d
                    nd += 1
                i = parent[i]
        for s in range(r, nr):
            acc = 0.0
            for e in range(nd):
                acc += Y[r, dofs[e]] * T[s, dofs[e]]
            Wd[r, s] = acc
            Wd[s, r] = acc
    return given


@inline_jit
def delassus_costs(parent, jnv, node_body, nn, row_node, nv, js):
    """``(paths, vertices)``: the time :func:`path_delassus` and :func:`vertex_delassus` take for these rows, in
    the units of one of the paths' multiply-adds, counted from the tree and the rows' nodes. The paths: ``12 n_i
    + n_i^2`` per joint of every row side's path, the products ``Y[r] . T[s]`` over row ``r``'s dofs and the
    zeroed ``2 nr nv``. The vertices: ``82 + 16 n_i`` per body with nodes below (``Upsilon`` and the
    propagator), 80 per pair of vertices of one tree (``Omega``; the vertices are the node bodies and the branch
    points, :func:`osim.node_tree`), ``7 p^2`` for the pick-offs ``p`` of one tree and 1300 for the passes'
    fixed cost: weights fitted to the times of both methods on nine node sets (a random tree with loops,
    chains of 12 and 30 bodies with 3 to 20 contacts, boxes stacked 1, 3 and 5 high, solo12's feet), which
    they predict within 25 %. ``js``: int scratch (``5 nbody``)."""
    nb, nr = parent.shape[0], row_node.shape[0]
    root, node, kids = view(js, 0, nb), view(js, nb, nb), view(js, 2 * nb, nb)
    verts, sides = view(js, 3 * nb, nb), view(js, 4 * nb, nb)
    root[:] = -1
    node[:] = 0
    kids[:] = 0
    verts[:] = 0
    sides[:] = 0
    vertex = 1300.0
    for a in range(nn):  # the bodies on the nodes' paths, each with its root; the vertices
        b = node_body[a]
        i, last = b, -1
        while i >= 0 and root[i] < 0:
            vertex += 82.0 + 16.0 * jnv[i]
            last, i = i, parent[i]
        top = last if i < 0 else root[i]
        if i >= 0 and last >= 0:  # a new branch with nodes joins body i
            kids[i] += 1
            if kids[i] == 2 and node[i] == 0:
                verts[top] += 1
        i = b
        while i >= 0 and root[i] < 0:
            root[i] = top
            i = parent[i]
        if node[b] == 0:
            node[b] = 1
            if kids[b] < 2:
                verts[top] += 1
    path = 2.0 * nr * nv
    for r in range(nr):
        dofs = 0.0
        for x in range(2):
            a = row_node[r, x]
            if a < 0:
                continue
            sides[root[node_body[a]]] += 1
            i = node_body[a]
            while i >= 0:
                path += 12.0 * jnv[i] + jnv[i] * jnv[i]
                dofs += jnv[i]
                i = parent[i]
        path += dofs * (nr - r)
    for b in range(nb):
        vertex += 40.0 * verts[b] * (verts[b] + 1) + 7.0 * sides[b] * sides[b]
    return path, vertex
