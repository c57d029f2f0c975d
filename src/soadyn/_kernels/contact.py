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

from .._jit import inline_jit, jit, view
from .spatial import xforce_T_add, xmotion

RANK_ONE_TOL = 1e-14
"""A contact's tangential Delassus block whose smaller eigenvalue is at most this times ``max |M_ij|`` (round-off
of an exact zero) has rank one: its friction directions reduce to two (:func:`pyramid_live`)."""


@inline_jit
def tangent_basis(N, F, i):
    """Rows ``F[i, 0] = n``, ``F[i, 1] = t1``, ``F[i, 2] = t2 = n x t1`` of contact ``i``'s frame, ``n = N[i]``
    (module docstring rule)."""
    n0, n1, n2 = N[i, 0], N[i, 1], N[i, 2]
    ax, ay, az = abs(n0), abs(n1), abs(n2)
    e = 0 if (ax <= ay and ax <= az) else (1 if ay <= az else 2)
    ne = N[i, e]
    for m in range(3):
        F[i, 0, m] = N[i, m]
        F[i, 1, m] = -ne * N[i, m]
    F[i, 1, e] += 1.0
    s = math.sqrt(F[i, 1, 0] ** 2 + F[i, 1, 1] ** 2 + F[i, 1, 2] ** 2)
    for m in range(3):
        F[i, 1, m] /= s
    F[i, 2, 0] = n1 * F[i, 1, 2] - n2 * F[i, 1, 1]
    F[i, 2, 1] = n2 * F[i, 1, 0] - n0 * F[i, 1, 2]
    F[i, 2, 2] = n0 * F[i, 1, 1] - n1 * F[i, 1, 0]


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
            for d in range(3):
                row_node[nb + 3 * i + d, side] = nn
            nn += 1
    contact_coefficients(con_body, con_frame, nb, k, row_coef)
    node_row[0] = 0
    for a in range(nn):
        node_row[a + 1] = node_row[a] + node_dim[a]
    return nn


@jit
def contact_coefficients(con_body, con_frame, nb, k, row_coef):
    """The coefficients of the contact rows (:func:`constraint_nodes`): ``+F_i`` on the node of body A,
    ``-F_i`` on that of body B (``F_i = con_frame[i]``, rows ``n, t1, t2``); the nodes stay when only the
    tangents turn (:func:`.contact_motion.slip_frames`)."""
    for i in range(k):
        for side in range(2):
            if con_body[i, side] < 0:
                continue
            s = 1.0 if side == 0 else -1.0
            for d in range(3):
                for m in range(3):
                    row_coef[nb + 3 * i + d, side, m] = s * con_frame[i, d, m]


@inline_jit
def node_transform(b, wE, wr, oR, op, a, E, r):
    """``^aX_b = ^aX_0 ^0X_b = (wE oR_b, oR_b^T (wr - op_b))`` for node ``a`` on body ``b``."""
    for m in range(3):
        for n in range(3):
            E[m, n] = wE[a, m, 0] * oR[b, 0, n] + wE[a, m, 1] * oR[b, 1, n] + wE[a, m, 2] * oR[b, 2, n]
        r[m] = oR[b, 0, m] * (wr[a, 0] - op[b, 0]) + oR[b, 1, m] * (wr[a, 1] - op[b, 1]) + \
            oR[b, 2, m] * (wr[a, 2] - op[b, 2])


@jit
def row_space(nn):
    """The scratch of :func:`row_velocities` and :func:`row_forces` for ``nn`` nodes."""
    return 6 * nn + 24


@jit
def row_velocities(v, oR, op, node_body, wE, wr, node_sel, node_dim, nn, row_node, row_coef, vr, scr):
    """Constraint-row velocities ``vr = Q J qd`` from the body velocities ``v`` (body frames) of ``qd``;
    ``scr``: scratch of :func:`row_space`."""
    E, r, V, Vb, Vn = view(scr, 0, (3, 3)), view(scr, 9, 3), view(scr, 12, 6), view(scr, 18, 6), view(scr, 24, (nn, 6))
    for a in range(nn):
        node_transform(node_body[a], wE, wr, oR, op, a, E, r)
        for m in range(6):  # a copy, not a view handed to xmotion: no reference counting per node
            Vb[m] = v[node_body[a], m]
        xmotion(E, r, Vb, V)
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
def row_forces(oR, op, node_body, wE, wr, node_sel, node_dim, nn, row_node, row_coef, lam, f, scr):
    """Body forces (body frames, about body origins) ``f = J^T Q^T lam`` of the row impulses ``lam``
    (the dual of :func:`row_velocities`; Jain 2014 Eqs. 23, 35); ``scr``: scratch of :func:`row_space`."""
    f[:] = 0.0
    E, r, F, Fb, Fn = view(scr, 0, (3, 3)), view(scr, 9, 3), view(scr, 12, 6), view(scr, 18, 6), view(scr, 24, (nn, 6))
    Fn[:, :] = 0.0
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
        Fb[:] = 0.0
        xforce_T_add(E, r, F, Fb)
        for m in range(6):  # added here, not through a view of f[b]: no reference counting per node
            f[b, m] += Fb[m]


@jit
def pyramid_directions(nf, cs):
    """``cs`` (n_f + 1, 3): row ``j`` of every ``P_i`` (:func:`pyramid_lcp`) on ``(n, t1, t2)``: ``[1, 0, 0]``,
    then ``[0, cos th_j, sin th_j]`` with ``th_j = 2 pi j / n_f`` (Jain 2014 Eq. 6)."""
    cs[0, 0], cs[0, 1], cs[0, 2] = 1.0, 0.0, 0.0
    for j in range(nf):
        th = 2.0 * math.pi * j / nf
        cs[1 + j, 0], cs[1 + j, 1], cs[1 + j, 2] = 0.0, math.cos(th), math.sin(th)


@jit
def pyramid_q(vr, nb, k, nf, cs, q):
    """``q = [P vr; 0]`` of :func:`pyramid_lcp`."""
    nbeta = nb + k * (nf + 1)
    for r in range(nb):
        q[r] = vr[r]
    for i in range(k):
        c0 = nb + 3 * i
        r0 = nb + i * (nf + 1)
        for a in range(nf + 1):
            q[r0 + a] = cs[a, 0] * vr[c0] + cs[a, 1] * vr[c0 + 1] + cs[a, 2] * vr[c0 + 2]
        q[nbeta + i] = 0.0


@jit
def pyramid_live(Wd, nb, k, nf, cs, ms, idx):
    """The rows of :func:`pyramid_lcp` but the dominated friction directions, ascending in ``idx``; returns
    their count. A contact whose tangential Delassus block ``W_tt`` (2 x 2, positive semidefinite) has rank
    one (smaller eigenvalue at most :data:`RANK_ONE_TOL` ``ms``: a planar mechanism, a kinematic singularity)
    moves tangentially along one direction ``u`` only: ``W[:, t] d_j = (u . d_j) W[:, t] u``, so the column of
    direction ``d_j`` is ``u . d_j`` times that of ``u``. Only the directions of largest and smallest
    ``u . d_j`` are kept: any other is dominated (``|u . d_j|`` at most theirs, for the same share of
    ``mu p_n``), and with ``z_j = 0`` its row ``w_j`` is a non-negative combination of a kept row's and
    ``sigma`` (up to the contact's tangential velocity across ``u``, which no impulse changes and which the
    caller's check on the whole LCP sees). Each dominated column ties with a kept one in every ratio test of
    Lemke's method, where round-off then picks the pivots."""
    nbeta = nb + k * (nf + 1)
    m = 0
    for r in range(nb):
        idx[m] = r
        m += 1
    for i in range(k):
        c0 = nb + 3 * i
        a, b, c = Wd[c0 + 1, c0 + 1], Wd[c0 + 1, c0 + 2], Wd[c0 + 2, c0 + 2]
        big = 0.5 * (a + c) + math.sqrt(0.25 * (a - c) ** 2 + b * b)  # eigenvalues of W_tt: big, small
        small = (a * c - b * b) / big if big > 0.0 else 0.0
        e0 = nb + i * (nf + 1)
        idx[m] = e0
        m += 1
        if small > RANK_ONE_TOL * ms or big <= RANK_ONE_TOL * ms:
            for j in range(nf):
                idx[m] = e0 + 1 + j
                m += 1
            continue
        u1, u2 = (b, big - a) if abs(big - a) >= abs(big - c) else (big - c, b)  # its eigenvector of big
        lo = hi = 0
        plo = phi = cs[1, 1] * u1 + cs[1, 2] * u2  # u . d_0
        for j in range(1, nf):
            p = cs[1 + j, 1] * u1 + cs[1 + j, 2] * u2
            if p > phi:
                hi, phi = j, p
            if p < plo:
                lo, plo = j, p
        idx[m] = e0 + 1 + min(lo, hi)
        idx[m + 1] = e0 + 1 + max(lo, hi)
        m += 2
    for i in range(k):
        idx[m] = nbeta + i
        m += 1
    return m


@jit
def pyramid_lcp(Wd, vr, nb, k, nf, mu, M, q):
    """The OS mixed LCP of Jain 2014 Eq. 53 from the Delassus matrix ``Wd`` in (loop rows; ``n, t1, t2`` per
    contact) coordinates and the row targets ``vr``: with ``P = diag(I_nb, P_1 .. P_k)``, ``P_i`` the
    ``(n_f + 1) x 3`` map to the pyramid ``[n, d_0 ..]`` (:func:`pyramid_directions`),
    ``M = [[P W P^T, [0; E_hat]], [[0, E_bar], 0]]``, ``q = [P vr; 0]``, unknowns ``z = [p_b; beta_; sigma]``
    (size ``nb + k (n_f + 2)``; the first ``nb`` rows are free), ``M`` by :func:`pyramid_block`. Returns
    ``max |M_ij|`` (:func:`pyramid_scale`), the scale of the answer's check (:func:`lcp.lcp_residual`)."""
    n = nb + k * (nf + 2)
    cs = np.empty((nf + 1, 3))
    pyramid_directions(nf, cs)
    pyramid_q(vr, nb, k, nf, cs, q)
    every = np.empty(0, dtype=np.int64)  # every contact pair
    pyramid_block(Wd, nb, k, nf, mu, cs, np.arange(n), n, every, every, M, np.empty(k + 1, dtype=np.int64))
    return pyramid_scale(Wd, nb, k, nf, mu, cs)


@jit
def pyramid_scale(Wd, nb, k, nf, mu, cs):
    """``max |M_ij|`` of :func:`pyramid_lcp` without forming ``M``: the largest of 1 (``E_hat``), ``|mu_i|``
    and the diagonal of ``P W P^T`` (positive semidefinite: its largest entry is on the diagonal), the
    diagonal entry of edge ``j`` of contact ``i`` being ``cs_j^T W_ii cs_j`` with ``W_ii`` the contact's
    3 x 3 block."""
    ms = 1.0 if k > 0 else 0.0
    for r in range(nb):
        ms = max(ms, abs(Wd[r, r]))
    for i in range(k):
        ms = max(ms, abs(mu[i]))
        c0 = nb + 3 * i
        for j in range(nf + 1):
            d = 0.0
            for x in range(3):
                for y in range(3):
                    d += cs[j, x] * Wd[c0 + x, c0 + y] * cs[j, y]
            ms = max(ms, abs(d))
    return ms


@jit
def pyramid_block(Wd, nb, k, nf, mu, cs, idx, m, cstart, cadj, A, seg):
    """``A = M[idx, idx]`` of :func:`pyramid_lcp` for the ``m`` ascending rows ``idx[:m]`` (all of them: ``M``)
    without forming ``M``. ``P W P^T`` block by block: a loop row against every row from ``W`` (times ``cs``
    on a contact's columns); the edge rows of two contacts ``i >= j`` as ``cs_a^T (W_ij cs_c)`` with the 3 x 3
    block ``W_ij``, only for the pairs that couple (:func:`contact_coupling`: ``cadj[cstart[i]:cstart[i +
    1]]``, or every pair where ``cstart`` is empty), mirrored (``A`` exactly symmetric there). ``E_hat`` (1 on
    an edge row in its contact's ``sigma`` column) and ``E_bar`` (``mu_i`` and -1 on the ``sigma`` row of
    contact ``i``) from their pattern; every other entry 0. ``seg`` (k + 1,): int scratch."""
    nbeta = nb + k * (nf + 1)
    for a in range(m):
        for c in range(m):
            A[a, c] = 0.0
    # the block's rows by kind: loop rows below nl, the edge rows of contact i in seg[i] .. seg[i + 1] - 1,
    # the sigma rows from seg[k] on
    a = 0
    while a < m and idx[a] < nb:
        a += 1
    nl = a
    for i in range(k):
        seg[i] = a
        while a < m and idx[a] < nb + (i + 1) * (nf + 1):
            a += 1
    seg[k] = a
    # (a row's edge is idx - nb - i (nf + 1) on contact i's segment: no integer division in the loops)
    for a in range(nl):  # loop rows: a row of W against the loop rows, P^T on a contact's columns
        ia = idx[a]
        for c in range(a + 1):
            A[a, c] = A[c, a] = Wd[ia, idx[c]]
        for i in range(k):
            c0 = nb + 3 * i
            for c in range(seg[i], seg[i + 1]):
                j = idx[c] - nb - i * (nf + 1)
                A[a, c] = A[c, a] = Wd[ia, c0] * cs[j, 0] + Wd[ia, c0 + 1] * cs[j, 1] + Wd[ia, c0 + 2] * cs[j, 2]
    sparse = cstart.shape[0] > 0
    for i in range(k):
        if seg[i] == seg[i + 1]:
            continue
        r0 = nb + 3 * i
        for e in range(cstart[i], cstart[i + 1]) if sparse else range(i + 1):
            j = cadj[e] if sparse else e
            if j > i or seg[j] == seg[j + 1]:
                continue
            c0 = nb + 3 * j
            for c in range(seg[j], seg[j + 1]):
                y = idx[c] - nb - j * (nf + 1)
                h0 = Wd[r0, c0] * cs[y, 0] + Wd[r0, c0 + 1] * cs[y, 1] + Wd[r0, c0 + 2] * cs[y, 2]
                h1 = Wd[r0 + 1, c0] * cs[y, 0] + Wd[r0 + 1, c0 + 1] * cs[y, 1] + Wd[r0 + 1, c0 + 2] * cs[y, 2]
                h2 = Wd[r0 + 2, c0] * cs[y, 0] + Wd[r0 + 2, c0 + 1] * cs[y, 1] + Wd[r0 + 2, c0 + 2] * cs[y, 2]
                for a in range(c if j == i else seg[i], seg[i + 1]):
                    x = idx[a] - nb - i * (nf + 1)
                    A[a, c] = A[c, a] = cs[x, 0] * h0 + cs[x, 1] * h1 + cs[x, 2] * h2
    for a in range(seg[k], m):  # sigma rows
        i = idx[a] - nbeta
        r0 = nb + i * (nf + 1)  # the contact's normal row; its edges follow
        for c in range(seg[i], seg[i + 1]):
            if idx[c] == r0:
                A[a, c] = mu[i]
            else:
                A[a, c], A[c, a] = -1.0, 1.0


COUPLING_ROOM = 32
"""Partners per contact that :func:`coupling_space` leaves room for (a box of a stack or a pyramid touches at
most 16 contacts of its neighbours, each contact two boxes); a step with more allocates its ``cadj``."""


@jit
def coupling_space(nb, k):
    """The int scratch of :func:`contact_coupling` for ``nb`` bodies and ``k`` contacts: its buckets, then room
    for :data:`COUPLING_ROOM` partners per contact."""
    return 5 * k + 2 * nb + 1 + COUPLING_ROOM * k


@jit
def contact_coupling(parent, con_body, k, cstart, ints):
    """The contact pairs whose block of ``W`` may be nonzero: two contacts couple when a body of one and a
    body of the other hang from the same root body (one tree of the world; the world couples nothing), as
    :func:`.delassus.delassus` leaves the blocks of contacts on different trees zero. The contacts are bucketed
    by the roots they touch (a counting sort), and each contact's partners gathered from its two buckets, so
    the cost is the number of pairs, not ``k^2``. Writes ``cstart`` (k + 1,) and returns ``cadj``: the contacts
    that contact ``i`` couples with (itself included, each once) are ``cadj[cstart[i]:cstart[i + 1]]``, a view of
    the int scratch ``ints`` (:func:`coupling_space`) when it has room, else allocated."""
    nb = parent.shape[0]
    o = 5 * k + 2 * nb + 1
    root, bstart, bucket = ints[:2 * k], ints[2 * k:2 * k + nb + 1], ints[2 * k + nb + 1:4 * k + nb + 1]
    seen, fill = ints[4 * k + nb + 1:5 * k + nb + 1], ints[5 * k + nb + 1:o]
    bstart[:] = 0
    for i in range(k):
        for x in range(2):
            b = con_body[i, x]
            while b >= 0 and parent[b] >= 0:
                b = parent[b]
            if x == 1 and b == root[2 * i]:
                b = -1  # both sides on one tree: one bucket
            root[2 * i + x] = b
            if b >= 0:
                bstart[b + 1] += 1
    for b in range(nb):
        bstart[b + 1] += bstart[b]
    fill[:] = bstart[:nb]
    e = 0
    for i in range(k):
        for x in range(2):
            b = root[2 * i + x]
            if b >= 0:
                bucket[fill[b]] = i
                fill[b] += 1
                e += bstart[b + 1] - bstart[b]
    cadj = view(ints, o, e) if o + e <= ints.shape[0] else np.empty(e, dtype=np.int64)
    seen[:] = -1  # the last contact whose partners took contact j
    e = 0
    for i in range(k):
        cstart[i] = e
        for x in range(2):
            b = root[2 * i + x]
            if b < 0:
                continue
            for y in range(bstart[b], bstart[b + 1]):
                j = bucket[y]
                if seen[j] != i:
                    seen[j] = i
                    cadj[e] = j
                    e += 1
    cstart[k] = e
    return cadj


@jit
def pyramid_w(Wd, q, nb, k, nf, mu, cs, cstart, cadj, z, w, lv):
    """``w = M z + q`` of :func:`pyramid_lcp` from its structure, without ``M``: ``P W P^T beta`` as
    ``P (W lam)`` with the row impulses ``lam`` of ``z`` (:func:`pyramid_impulses`), ``W lam`` over the loop
    rows and the contact pairs that couple (:func:`pyramid_block`), plus ``E_hat sigma`` on the edges and
    ``E_bar beta`` on the ``sigma`` rows. ``lv`` (2 nr): scratch."""
    nbeta = nb + k * (nf + 1)
    nr = nb + 3 * k
    lam, v = view(lv, 0, nr), view(lv, nr, nr)
    pyramid_impulses(z, nb, k, nf, cs, lam)
    v[:] = 0.0  # W lam over the rows with an impulse
    for c in range(nb):
        if lam[c] != 0.0:
            for r in range(nr):
                v[r] += Wd[r, c] * lam[c]
    sparse = cstart.shape[0] > 0
    for j in range(k):
        c0 = nb + 3 * j
        l0, l1, l2 = lam[c0], lam[c0 + 1], lam[c0 + 2]
        if l0 == 0.0 and l1 == 0.0 and l2 == 0.0:
            continue
        for r in range(nb):
            v[r] += Wd[r, c0] * l0 + Wd[r, c0 + 1] * l1 + Wd[r, c0 + 2] * l2
        for e in range(cstart[j], cstart[j + 1]) if sparse else range(k):
            r0 = nb + 3 * (cadj[e] if sparse else e)
            for x in range(3):
                v[r0 + x] += Wd[r0 + x, c0] * l0 + Wd[r0 + x, c0 + 1] * l1 + Wd[r0 + x, c0 + 2] * l2
    for r in range(nb):
        w[r] = q[r] + v[r]
    for i in range(k):
        c0 = nb + 3 * i
        r0 = nb + i * (nf + 1)
        e = 0.0
        for a in range(nf + 1):
            w[r0 + a] = q[r0 + a] + cs[a, 0] * v[c0] + cs[a, 1] * v[c0 + 1] + cs[a, 2] * v[c0 + 2]
            if a > 0:
                w[r0 + a] += z[nbeta + i]  # E_hat sigma
                e += z[r0 + a]
        w[nbeta + i] = q[nbeta + i] + mu[i] * z[r0] - e  # E_bar beta


@jit
def pyramid_impulses(z, nb, k, nf, cs, lam):
    """Row impulses ``lam`` (loop rows; ``n, t1, t2`` per contact) of an LCP solution ``z = [p_b; beta_; ..]``:
    ``lam_b = p_b`` and ``lam_i = P_i^T beta_(i)`` (Eq. 7: ``F_u = D_ beta_``); ``cs``: :func:`pyramid_directions`."""
    for r in range(nb):
        lam[r] = z[r]
    for i in range(k):
        r0 = nb + i * (nf + 1)
        fn = z[r0]
        f1 = 0.0
        f2 = 0.0
        for j in range(1, nf + 1):
            f1 += cs[j, 1] * z[r0 + j]
            f2 += cs[j, 2] * z[r0 + j]
        lam[nb + 3 * i] = fn
        lam[nb + 3 * i + 1] = f1
        lam[nb + 3 * i + 2] = f2
