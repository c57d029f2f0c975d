"""Contact-space quantities of the operational space (OS) contact formulation (Jain 2014 Secs. 2, 6, 7).

The bilateral (loop-closure) and unilateral (contact) constraints act at *nodes*: a node is a frame on a body,
given by its world transform ``^aX_0 = (wE[a], wr[a])``, with ``node_dim[a]`` selected rows of its spatial
velocity (6 for a loop node: ``[w; v]`` in frame A's axes; 3 for a contact node: the linear velocity of the
contact point in world axes). Every constraint row ``r`` is a combination of at most two nodes,
``v_r = c_r0 . V(row_node[r, 0]) + c_r1 . V(row_node[r, 1])`` (a missing node, e.g. the world side, is -1):
``G = Q J`` with ``Q`` these coefficients (Jain 2014 Eqs. 48-50). Rows ``0..nb-1`` are the loop rows ``Q_b``
(``-Q_l`` on the frame A node, ``+Q_l`` on the frame B node, both at frame A's pose, as
:func:`loops.loop_compliance`); then each contact ``i`` has the rows normal ``n_i``, tangents ``t1_i``,
``t2_i`` of the relative linear velocity of the node on body A with respect to the node on body B
(normal from B to A: positive separates). The Delassus matrix ``W = G M^-1 G^T = Q Lambda Q*`` (Eq. 52)
comes from the node compliance ``Lambda`` in O(N + n_c^2) (Jain 2014 Eqs. 64-69), never from M^-1.

The friction pyramid (Eqs. 6-15): ``d_j = cos(2 pi j / n_f) t1 + sin(2 pi j / n_f) t2``, ``j = 0..n_f-1``;
per contact ``D_(i) = [n, d_0 .. d_{n_f-1}]`` and the LCP unknowns ``beta_(i) = (F_n, beta_0 ..)``,
``sigma_i``. The tangent basis: ``t1`` is the world axis least aligned with ``n``, made orthogonal to ``n``
and normalized; ``t2 = n x t1``.
"""

import math

import numpy as np

from .._jit import jit
from .osim import node_compliance
from .spatial import xforce_T_add, xmotion


@jit
def tangent_basis(n, F):
    """Rows ``F[0] = n``, ``F[1] = t1``, ``F[2] = t2 = n x t1`` of the contact frame (module docstring rule)."""
    ax, ay, az = abs(n[0]), abs(n[1]), abs(n[2])
    e = 0 if (ax <= ay and ax <= az) else (1 if ay <= az else 2)
    for m in range(3):
        F[0, m] = n[m]
        F[1, m] = -n[e] * n[m]
    F[1, e] += 1.0
    s = math.sqrt(F[1, 0] ** 2 + F[1, 1] ** 2 + F[1, 2] ** 2)
    for m in range(3):
        F[1, m] /= s
    F[2, 0] = n[1] * F[1, 2] - n[2] * F[1, 1]
    F[2, 1] = n[2] * F[1, 0] - n[0] * F[1, 2]
    F[2, 2] = n[0] * F[1, 1] - n[1] * F[1, 0]


@jit
def constraint_nodes(frame_body, fa, fb, dim, row, RA, pA, Q, con_body, con_point, con_frame, k,
                     node_body, wE, wr, node_sel, node_dim, node_row, row_node, row_coef):
    """Fill the nodes and the row coefficients (module docstring) of the ``nl`` loops and the first ``k``
    contacts. ``con_frame[i]``: rows ``n, t1, t2`` (:func:`tangent_basis`). Returns the node count ``nn``;
    ``node_row[0..nn]`` are the nodes' row offsets in ``Lambda``. Capacities: ``2 (nl + k)`` nodes,
    ``nb + 3 k`` rows."""
    nn = 0
    for r in range(row_node.shape[0]):
        row_node[r, 0] = -1
        row_node[r, 1] = -1
    row_coef[:] = 0.0
    # loops: nodes at frame A's pose on bodies a and b; rows -Q on a, +Q on b
    for l in range(fa.shape[0]):
        for side in range(2):
            b = frame_body[fa[l]] if side == 0 else frame_body[fb[l]]
            if b < 0:
                continue
            node_body[nn] = b
            for m in range(3):
                wr[nn, m] = pA[l, m]
                for c in range(3):
                    wE[nn, m, c] = RA[l, c, m]
            node_sel[nn] = 0.0
            for m in range(6):
                node_sel[nn, m, m] = 1.0
            node_dim[nn] = 6
            s = -1.0 if side == 0 else 1.0
            for d in range(dim[l]):
                r = row[l] + d
                for m in range(6):
                    row_coef[r, side, m] = s * Q[l, d, m]
                row_node[r, side] = nn
            nn += 1
    nb = row[fa.shape[0]]
    # contacts: world-aligned point nodes (linear velocity rows); +F on A, -F on B
    for i in range(k):
        for side in range(2):
            b = con_body[i, side]
            if b < 0:
                continue
            node_body[nn] = b
            for m in range(3):
                wr[nn, m] = con_point[i, m]
                for c in range(3):
                    wE[nn, m, c] = 1.0 if m == c else 0.0
            node_sel[nn] = 0.0
            for m in range(3):
                node_sel[nn, m, 3 + m] = 1.0
            node_dim[nn] = 3
            s = 1.0 if side == 0 else -1.0
            for d in range(3):
                r = nb + 3 * i + d
                for m in range(3):
                    row_coef[r, side, m] = s * con_frame[i, d, m]
                row_node[r, side] = nn
            nn += 1
    node_row[0] = 0
    for a in range(nn):
        node_row[a + 1] = node_row[a] + node_dim[a]
    return nn


@jit
def delassus(parent, vadr, jnv, armature, I, S, oR, op, oS, oI, oIA, oU, D, Dinv, cnt, cpar, vid, Ups, W6,
             node_body, wE, wr, node_sel, node_dim, node_row, nn, row_node, row_coef, Wd):
    """``W = Q Lambda Q*`` (Jain 2014 Eq. 52) for the rows of :func:`constraint_nodes`, with ``Lambda`` the
    compliance of the ``nn`` nodes (:func:`osim.node_compliance`, O(N + n_c^2)). Returns a kernel status."""
    m = node_row[nn]
    L = np.empty((m, m))
    st = node_compliance(parent, vadr, jnv, armature, I, S, oR, op, oS, oI, oIA, oU, D, Dinv, cnt, cpar, vid, Ups, W6,
                         node_body[:nn], wE[:nn], wr[:nn], node_sel[:nn], node_dim[:nn], node_row[:nn + 1], L)
    if st != 0:
        return st
    # rows whose nodes lie on bodies of different subtrees of the world (free bodies: different bodies) do
    # not couple: W's entry is zero without summing L's zero blocks
    root = np.empty(parent.shape[0], dtype=np.int64)
    for i in range(parent.shape[0]):
        root[i] = i if parent[i] < 0 else root[parent[i]]
    nr = Wd.shape[0]
    for r in range(nr):
        for s in range(r + 1):
            acc = 0.0
            for x in range(2):
                a = row_node[r, x]
                if a < 0:
                    continue
                ra = node_row[a]
                for y in range(2):
                    b = row_node[s, y]
                    if b < 0 or root[node_body[b]] != root[node_body[a]]:
                        continue
                    rb = node_row[b]
                    for d in range(node_dim[a]):
                        ca = row_coef[r, x, d]
                        if ca == 0.0:
                            continue
                        t = 0.0
                        for e in range(node_dim[b]):
                            t += L[ra + d, rb + e] * row_coef[s, y, e]
                        acc += ca * t
            Wd[r, s] = acc
            Wd[s, r] = acc
    return 0


@jit
def node_transform(b, wE, wr, oR, op, a, E, r):
    """``^aX_b = ^aX_0 ^0X_b = (wE oR_b, oR_b^T (wr - op_b))`` for node ``a`` on body ``b``."""
    for m in range(3):
        for n in range(3):
            E[m, n] = wE[a, m, 0] * oR[b, 0, n] + wE[a, m, 1] * oR[b, 1, n] + wE[a, m, 2] * oR[b, 2, n]
        r[m] = oR[b, 0, m] * (wr[a, 0] - op[b, 0]) + oR[b, 1, m] * (wr[a, 1] - op[b, 1]) + \
            oR[b, 2, m] * (wr[a, 2] - op[b, 2])


@jit
def row_velocities(v, oR, op, node_body, wE, wr, node_sel, node_dim, nn, row_node, row_coef, vr):
    """Constraint-row velocities ``vr = Q J qd`` from the body velocities ``v`` (body frames) of ``qd``."""
    E = np.empty((3, 3))
    r = np.empty(3)
    V = np.empty(6)
    Vn = np.empty((nn, 6))
    for a in range(nn):
        node_transform(node_body[a], wE, wr, oR, op, a, E, r)
        xmotion(E, r, v[node_body[a]], V)
        for d in range(node_dim[a]):
            s = 0.0
            for m in range(6):
                s += node_sel[a, d, m] * V[m]
            Vn[a, d] = s
    for rr in range(vr.shape[0]):
        s = 0.0
        for x in range(2):
            a = row_node[rr, x]
            if a >= 0:
                for d in range(node_dim[a]):
                    s += row_coef[rr, x, d] * Vn[a, d]
        vr[rr] = s


@jit
def row_forces(oR, op, node_body, wE, wr, node_sel, node_dim, nn, row_node, row_coef, lam, f):
    """Body forces (body frames, about body origins) ``f = J^T Q^T lam`` of the row impulses ``lam``
    (the dual of :func:`row_velocities`; Jain 2014 Eqs. 23, 35)."""
    f[:] = 0.0
    E = np.empty((3, 3))
    r = np.empty(3)
    Fn = np.zeros((nn, 6))
    F = np.empty(6)
    for rr in range(lam.shape[0]):
        if lam[rr] == 0.0:
            continue
        for x in range(2):
            a = row_node[rr, x]
            if a >= 0:
                for d in range(node_dim[a]):
                    Fn[a, d] += row_coef[rr, x, d] * lam[rr]
    for a in range(nn):
        for m in range(6):
            s = 0.0
            for d in range(node_dim[a]):
                s += node_sel[a, d, m] * Fn[a, d]
            F[m] = s
        b = node_body[a]
        node_transform(b, wE, wr, oR, op, a, E, r)
        xforce_T_add(E, r, F, f[b])


@jit
def pyramid_lcp(Wd, vr, nb, k, nf, mu, M, q):
    """The OS mixed LCP of Jain 2014 Eq. 53 from the Delassus matrix ``Wd`` in (loop rows; ``n, t1, t2`` per
    contact) coordinates and the row targets ``vr``: with ``P = diag(I_nb, P_1 .. P_k)``, ``P_i`` the
    ``(n_f + 1) x 3`` map to the pyramid ``[n, d_0 ..]``,
    ``M = [[P W P^T, [0; E_hat]], [[0, E_bar], 0]]``, ``q = [P vr; 0]``, unknowns ``z = [p_b; beta_; sigma]``
    (size ``nb + k (n_f + 2)``; the first ``nb`` rows are free)."""
    nbeta = nb + k * (nf + 1)
    n = nbeta + k
    # P has at most two non-zeros per row (a loop or normal row: one; a pyramid edge: cos, sin on t1, t2), so
    # P W P^T and P vr are formed entry by entry, without a BLAS call (whose threads cost more than the
    # product at these sizes), and a pair of contacts whose 3 x 3 block of W is zero (no body in common
    # below the world) is skipped
    col = np.full((nbeta, 2), -1, dtype=np.int64)
    coef = np.zeros((nbeta, 2))
    for r in range(nb):
        col[r, 0] = r
        coef[r, 0] = 1.0
    for i in range(k):
        r0 = nb + i * (nf + 1)
        c0 = nb + 3 * i
        col[r0, 0] = c0
        coef[r0, 0] = 1.0
        for j in range(nf):
            th = 2.0 * math.pi * j / nf
            col[r0 + 1 + j, 0] = c0 + 1
            col[r0 + 1 + j, 1] = c0 + 2
            coef[r0 + 1 + j, 0] = math.cos(th)
            coef[r0 + 1 + j, 1] = math.sin(th)
    M[:n, :n] = 0.0
    for a in range(nbeta):
        s = 0.0
        for x in range(2):
            if col[a, x] >= 0:
                s += coef[a, x] * vr[col[a, x]]
        q[a] = s
    # groups of rows: each loop row alone, then the nf + 1 rows of each contact (3 rows of W)
    ng = nb + k
    for g in range(ng):
        a0, a1, w0 = group_rows(g, nb, nf)
        for h in range(g + 1):
            b0, b1, v0 = group_rows(h, nb, nf)
            zero = True
            for x in range(w0, w0 + (1 if g < nb else 3)):
                for y in range(v0, v0 + (1 if h < nb else 3)):
                    if Wd[x, y] != 0.0:
                        zero = False
            if zero:
                continue
            for a in range(a0, a1):
                for b in range(b0, min(b1, a + 1)):
                    s = 0.0
                    for x in range(2):
                        ca = col[a, x]
                        if ca < 0:
                            continue
                        t = 0.0
                        for y in range(2):
                            cb = col[b, y]
                            if cb >= 0:
                                t += Wd[ca, cb] * coef[b, y]
                        s += coef[a, x] * t
                    M[a, b] = s
                    M[b, a] = s
    for i in range(k):
        r0 = nb + i * (nf + 1)
        for j in range(nf):
            M[r0 + 1 + j, nbeta + i] = 1.0  # E_hat
            M[nbeta + i, r0 + 1 + j] = -1.0  # E_bar = [mu, -E*]
        M[nbeta + i, r0] = mu[i]
        q[nbeta + i] = 0.0
    return n


@jit
def group_rows(g, nb, nf):
    """Rows ``[a0, a1)`` of group ``g`` in the pyramid LCP (a loop row ``g < nb``, else contact ``g - nb``)
    and its first row in ``W``."""
    if g < nb:
        return g, g + 1, g
    i = g - nb
    return nb + i * (nf + 1), nb + (i + 1) * (nf + 1), nb + 3 * i


@jit
def pyramid_impulses(z, nb, k, nf, lam):
    """Row impulses ``lam`` (loop rows; ``n, t1, t2`` per contact) of an LCP solution ``z = [p_b; beta_; ..]``:
    ``lam_b = p_b`` and ``lam_i = P_i^T beta_(i)`` (Eq. 7: ``F_u = D_ beta_``)."""
    for r in range(nb):
        lam[r] = z[r]
    for i in range(k):
        r0 = nb + i * (nf + 1)
        fn = z[r0]
        f1 = 0.0
        f2 = 0.0
        for j in range(nf):
            th = 2.0 * math.pi * j / nf
            f1 += math.cos(th) * z[r0 + 1 + j]
            f2 += math.sin(th) * z[r0 + 1 + j]
        lam[nb + 3 * i] = fn
        lam[nb + 3 * i + 1] = f1
        lam[nb + 3 * i + 2] = f2
