"""Support-function narrow phase for cylinders and convex meshes (conventions of
:mod:`soadyn._kernels.collision`: normals from the second geom argument to the first, ``gap`` the signed
distance, contacts written to scratch ``pts, nrm, gap``).

Every geom is a convex *core* swept by a ball of radius ``rho``: a sphere is its centre (``rho`` = radius),
a capsule its segment (``rho`` = radius), a box, cylinder or convex mesh itself (``rho = 0``). The core's
support point ``s(d) = argmax_{x in core} d . x`` (``support``) is all the algorithms use:

* separated cores: GJK (Gilbert, Johnson, Keerthi 1988) on the Minkowski difference ``D = A - B``, with the
  closest point of each simplex found by enumerating its faces (Johnson's distance sub-algorithm: the
  minimum-norm point among the faces whose affine projection of the origin has positive barycentric
  coordinates); ``gap = |v| - rho_a - rho_b``, normal ``v / |v|`` (``v = w_a - w_b``);
* overlapping cores: EPA (van den Bergen 2001, "Proximity queries and penetration depth computation on 3D
  game objects"), grown from GJK's last simplex, gives the penetration vector; ``gap = -depth - rho_a - rho_b``.

One contact per pair, the deepest; :mod:`soadyn._kernels.manifold` grows it into a contact manifold.
"""

import math

import numpy as np

from .._jit import jit
from .boxes import emit, world_point

GEOM_SPHERE, GEOM_CAPSULE, GEOM_BOX, GEOM_PLANE, GEOM_HALFSPACE, GEOM_CYLINDER, GEOM_CONVEX = 0, 1, 2, 3, 4, 5, 6
"""Geom type codes (``Model.geom_type``)."""

GJK_ITER = 64
"""Most GJK iterations (support points) of one query."""
GJK_TOL = 1e-14
"""GJK stops when the support point improves ``|v|^2`` by less than this fraction (relative)."""
EPA_VERTS = 128
"""Most EPA polytope vertices (= iterations + 4)."""
EPA_FACES = 2 * EPA_VERTS + 1
"""EPA face capacity (a closed triangulated polytope with V vertices has 2 V - 4 faces; dead faces stay in
the list until the capacity is reached, which ends the iteration; one more slot for the result)."""
EPA_TOL = 1e-10
"""EPA stops when the new support point lies within this distance (relative to the shapes' size) of the
closest face."""


@jit
def is_flat(t):
    """True for planes and halfspaces."""
    return t == GEOM_PLANE or t == GEOM_HALFSPACE


@jit
def core_radius(t, s):
    """Radius ``rho`` of the ball swept over the core: sphere and capsule radius, else 0."""
    return s[0] if t == GEOM_SPHERE or t == GEOM_CAPSULE else 0.0


@jit
def support(t, R, p, s, mesh_vert, adr, num, d0, d1, d2):
    """World support point of the core of geom type ``t`` at ``(R, p)``, size ``s`` (convex meshes: the
    vertices ``mesh_vert[adr:adr + num]`` in geom coordinates) in the world direction ``d``."""
    l0 = R[0, 0] * d0 + R[1, 0] * d1 + R[2, 0] * d2
    l1 = R[0, 1] * d0 + R[1, 1] * d1 + R[2, 1] * d2
    l2 = R[0, 2] * d0 + R[1, 2] * d1 + R[2, 2] * d2
    if t == GEOM_SPHERE:
        return p[0], p[1], p[2]
    if t == GEOM_CAPSULE:
        return world_point(R, p, 0.0, 0.0, s[1] if l2 >= 0.0 else -s[1])
    if t == GEOM_BOX:
        return world_point(R, p, s[0] if l0 >= 0.0 else -s[0], s[1] if l1 >= 0.0 else -s[1],
                           s[2] if l2 >= 0.0 else -s[2])
    if t == GEOM_CYLINDER:
        rr = math.sqrt(l0 * l0 + l1 * l1)
        x, y = (s[0] * l0 / rr, s[0] * l1 / rr) if rr > 1e-300 else (0.0, 0.0)
        return world_point(R, p, x, y, s[1] if l2 >= 0.0 else -s[1])
    best, k = -np.inf, adr
    for j in range(adr, adr + num):
        h = mesh_vert[j, 0] * l0 + mesh_vert[j, 1] * l1 + mesh_vert[j, 2] * l2
        if h > best:
            best, k = h, j
    return world_point(R, p, mesh_vert[k, 0], mesh_vert[k, 1], mesh_vert[k, 2])


@jit
def _add_support(ta, Ra, pa, sa, aa, na, tb, Rb, pb, sb, ab, nb, mesh_vert, d0, d1, d2, V, k):
    """Vertex ``k`` of the Minkowski difference in direction ``d``: ``V[k] = [w, s_a(d), s_b(-d)]``."""
    x0, x1, x2 = support(ta, Ra, pa, sa, mesh_vert, aa, na, d0, d1, d2)
    y0, y1, y2 = support(tb, Rb, pb, sb, mesh_vert, ab, nb, -d0, -d1, -d2)
    V[k, 0], V[k, 1], V[k, 2] = x0 - y0, x1 - y1, x2 - y2
    V[k, 3], V[k, 4], V[k, 5] = x0, x1, x2
    V[k, 6], V[k, 7], V[k, 8] = y0, y1, y2


# ------------------------------------------------------------------------------------------------ GJK
@jit
def _affine_closest(V, idx, m, lam):
    """Barycentric coordinates ``lam[:m]`` of the origin's projection on the affine hull of ``V[idx[:m], :3]``
    (least squares on the Gram system); returns False when the points are affinely dependent."""
    if m == 1:
        lam[0] = 1.0
        return True
    G = np.zeros((3, 3))
    r = np.zeros(3)
    i0 = idx[0]
    for a in range(m - 1):
        ia = idx[a + 1]
        for c in range(3):
            r[a] -= (V[ia, c] - V[i0, c]) * V[i0, c]
        for b in range(m - 1):
            ib = idx[b + 1]
            for c in range(3):
                G[a, b] += (V[ia, c] - V[i0, c]) * (V[ib, c] - V[i0, c])
    n = m - 1
    scale = G[0, 0] + G[n - 1, n - 1] + 1e-300
    # Gaussian elimination with partial pivoting on the n x n system
    for c in range(n):
        piv = c
        for rr in range(c + 1, n):
            if abs(G[rr, c]) > abs(G[piv, c]):
                piv = rr
        if abs(G[piv, c]) <= 1e-14 * scale:
            return False
        if piv != c:
            for cc in range(n):
                G[c, cc], G[piv, cc] = G[piv, cc], G[c, cc]
            r[c], r[piv] = r[piv], r[c]
        for rr in range(c + 1, n):
            f = G[rr, c] / G[c, c]
            for cc in range(c, n):
                G[rr, cc] -= f * G[c, cc]
            r[rr] -= f * r[c]
    mu = np.zeros(3)
    for c in range(n - 1, -1, -1):
        acc = r[c]
        for cc in range(c + 1, n):
            acc -= G[c, cc] * mu[cc]
        mu[c] = acc / G[c, c]
    lam[0] = 1.0
    for a in range(n):
        lam[a + 1] = mu[a]
        lam[0] -= mu[a]
    return True


@jit
def _simplex_closest(V, m, lam):
    """Closest point to the origin of the simplex ``V[:m, :3]`` (Johnson's sub-algorithm by enumeration):
    keeps in ``V[:k]`` only the vertices of the face that holds it, their barycentric coordinates in
    ``lam[:k]``, and returns ``k`` (``k = 4``: the origin is inside the tetrahedron)."""
    idx = np.empty(4, np.int64)
    sub = np.empty(4)
    best, best_mask = np.inf, 0
    bl = np.zeros(4)
    for mask in range(1, 1 << m):
        k = 0
        for i in range(m):
            if mask >> i & 1:
                idx[k] = i
                k += 1
        if not _affine_closest(V, idx, k, sub):
            continue
        ok = True
        for i in range(k):
            if sub[i] <= 0.0:
                ok = False
        if not ok:
            continue
        x0 = x1 = x2 = 0.0
        for i in range(k):
            x0 += sub[i] * V[idx[i], 0]
            x1 += sub[i] * V[idx[i], 1]
            x2 += sub[i] * V[idx[i], 2]
        d = x0 * x0 + x1 * x1 + x2 * x2
        if d < best:
            best, best_mask = d, mask
            for i in range(k):
                bl[i] = sub[i]
    if best_mask == 0:  # degenerate round-off: keep the vertex nearest the origin
        j, dj = 0, np.inf
        for i in range(m):
            d = V[i, 0] ** 2 + V[i, 1] ** 2 + V[i, 2] ** 2
            if d < dj:
                j, dj = i, d
        best_mask, bl[0] = 1 << j, 1.0
    k = 0
    for i in range(m):
        if best_mask >> i & 1:
            for c in range(9):
                V[k, c] = V[i, c]
            lam[k] = bl[k]
            k += 1
    return k


@jit
def gjk(ta, Ra, pa, sa, aa, na, tb, Rb, pb, sb, ab, nb, mesh_vert, V, lam):
    """GJK distance between the cores of ``a`` and ``b``. Returns ``(m, dist)``: the final simplex
    ``V[:m]`` (rows ``[w, s_a, s_b]``) with barycentric coordinates ``lam[:m]`` of the closest point
    ``v = sum lam w``, and ``dist = |v|``; ``m = 4`` or ``dist`` at round-off level: the cores overlap."""
    d0, d1, d2 = pa[0] - pb[0], pa[1] - pb[1], pa[2] - pb[2]
    if d0 * d0 + d1 * d1 + d2 * d2 < 1e-300:
        d0 = 1.0
    _add_support(ta, Ra, pa, sa, aa, na, tb, Rb, pb, sb, ab, nb, mesh_vert, -d0, -d1, -d2, V, 0)
    m = 1
    lam[0] = 1.0
    v0, v1, v2 = V[0, 0], V[0, 1], V[0, 2]
    scale = 1e-300
    for it in range(GJK_ITER):
        vv = v0 * v0 + v1 * v1 + v2 * v2
        scale = max(scale, abs(V[0, 0]) + abs(V[0, 1]) + abs(V[0, 2]))
        if vv <= (1e-12 * scale) ** 2:
            return m, math.sqrt(vv)
        _add_support(ta, Ra, pa, sa, aa, na, tb, Rb, pb, sb, ab, nb, mesh_vert, -v0, -v1, -v2, V, m)
        vw = v0 * V[m, 0] + v1 * V[m, 1] + v2 * V[m, 2]
        if vv - vw <= GJK_TOL * vv:
            return m, math.sqrt(vv)
        m = _simplex_closest(V, m + 1, lam)
        v0 = v1 = v2 = 0.0
        for i in range(m):
            v0 += lam[i] * V[i, 0]
            v1 += lam[i] * V[i, 1]
            v2 += lam[i] * V[i, 2]
        if m == 4:
            return 4, 0.0
    return m, math.sqrt(v0 * v0 + v1 * v1 + v2 * v2)


# ------------------------------------------------------------------------------------------------ EPA
@jit
def _face(V, F, FN, f, i, j, k):
    """Face ``f`` = triangle ``(i, j, k)`` (counter-clockwise seen from outside): unit normal and distance
    from the origin in ``FN[f]``; returns False if degenerate."""
    e0, e1, e2 = V[j, 0] - V[i, 0], V[j, 1] - V[i, 1], V[j, 2] - V[i, 2]
    g0, g1, g2 = V[k, 0] - V[i, 0], V[k, 1] - V[i, 1], V[k, 2] - V[i, 2]
    n0, n1, n2 = e1 * g2 - e2 * g1, e2 * g0 - e0 * g2, e0 * g1 - e1 * g0
    nn = math.sqrt(n0 * n0 + n1 * n1 + n2 * n2)
    F[f, 0], F[f, 1], F[f, 2], F[f, 3] = i, j, k, 1
    if nn < 1e-300:
        F[f, 3] = 0
        return False
    FN[f, 0], FN[f, 1], FN[f, 2] = n0 / nn, n1 / nn, n2 / nn
    FN[f, 3] = (n0 * V[i, 0] + n1 * V[i, 1] + n2 * V[i, 2]) / nn
    return True


@jit
def _blow_up(ta, Ra, pa, sa, aa, na, tb, Rb, pb, sb, ab, nb, mesh_vert, V, m):
    """Grow GJK's final simplex (the origin on or in it) to a tetrahedron of ``D`` by support points in the
    coordinate directions and the normals of the current simplex. Returns the vertex count (4 unless ``D``
    is flat)."""
    for trial in range(12):
        if m == 4:
            break
        if m == 3:
            e0, e1, e2 = V[1, 0] - V[0, 0], V[1, 1] - V[0, 1], V[1, 2] - V[0, 2]
            g0, g1, g2 = V[2, 0] - V[0, 0], V[2, 1] - V[0, 1], V[2, 2] - V[0, 2]
            d0, d1, d2 = e1 * g2 - e2 * g1, e2 * g0 - e0 * g2, e0 * g1 - e1 * g0
            if trial % 2:
                d0, d1, d2 = -d0, -d1, -d2
        else:
            ax = trial % 6
            d0, d1, d2 = (1.0 if ax == 0 else (-1.0 if ax == 1 else 0.0),
                          1.0 if ax == 2 else (-1.0 if ax == 3 else 0.0),
                          1.0 if ax == 4 else (-1.0 if ax == 5 else 0.0))
        _add_support(ta, Ra, pa, sa, aa, na, tb, Rb, pb, sb, ab, nb, mesh_vert, d0, d1, d2, V, m)
        # keep it only if it raises the affine dimension
        ok = True
        for i in range(m):
            if abs(V[m, 0] - V[i, 0]) + abs(V[m, 1] - V[i, 1]) + abs(V[m, 2] - V[i, 2]) < 1e-12:
                ok = False
        if ok and m == 2:
            e0, e1, e2 = V[1, 0] - V[0, 0], V[1, 1] - V[0, 1], V[1, 2] - V[0, 2]
            g0, g1, g2 = V[2, 0] - V[0, 0], V[2, 1] - V[0, 1], V[2, 2] - V[0, 2]
            c0, c1, c2 = e1 * g2 - e2 * g1, e2 * g0 - e0 * g2, e0 * g1 - e1 * g0
            ok = c0 * c0 + c1 * c1 + c2 * c2 > 1e-24 * (e0 * e0 + e1 * e1 + e2 * e2) * (g0 * g0 + g1 * g1 + g2 * g2)
        if ok and m == 3:
            e0, e1, e2 = V[1, 0] - V[0, 0], V[1, 1] - V[0, 1], V[1, 2] - V[0, 2]
            g0, g1, g2 = V[2, 0] - V[0, 0], V[2, 1] - V[0, 1], V[2, 2] - V[0, 2]
            c0, c1, c2 = e1 * g2 - e2 * g1, e2 * g0 - e0 * g2, e0 * g1 - e1 * g0
            h = c0 * (V[3, 0] - V[0, 0]) + c1 * (V[3, 1] - V[0, 1]) + c2 * (V[3, 2] - V[0, 2])
            ok = abs(h) > 1e-12 * math.sqrt(c0 * c0 + c1 * c1 + c2 * c2) * (
                abs(V[3, 0] - V[0, 0]) + abs(V[3, 1] - V[0, 1]) + abs(V[3, 2] - V[0, 2]))
        if ok:
            m += 1
    return m


@jit
def epa(ta, Ra, pa, sa, aa, na, tb, Rb, pb, sb, ab, nb, mesh_vert, V, m, F, FN, E):
    """Penetration of overlapping cores: the face of ``D``'s boundary closest to the origin, grown from
    GJK's simplex ``V[:m]``. Returns ``(depth, n, w_a, w_b)``: the cores separate when ``a`` moves by
    ``depth`` along ``n`` (from ``b`` to ``a``); ``w_a``, ``w_b`` are the deepest points. ``depth < 0``:
    failure (flat Minkowski difference)."""
    m = _blow_up(ta, Ra, pa, sa, aa, na, tb, Rb, pb, sb, ab, nb, mesh_vert, V, m)
    if m < 4:
        return -1.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0
    # orient the tetrahedron counter-clockwise seen from outside
    e0, e1, e2 = V[1, 0] - V[0, 0], V[1, 1] - V[0, 1], V[1, 2] - V[0, 2]
    g0, g1, g2 = V[2, 0] - V[0, 0], V[2, 1] - V[0, 1], V[2, 2] - V[0, 2]
    h = ((e1 * g2 - e2 * g1) * (V[3, 0] - V[0, 0]) + (e2 * g0 - e0 * g2) * (V[3, 1] - V[0, 1])
         + (e0 * g1 - e1 * g0) * (V[3, 2] - V[0, 2]))
    if h > 0.0:
        for c in range(9):
            V[1, c], V[2, c] = V[2, c], V[1, c]
    _face(V, F, FN, 0, 0, 1, 2)
    _face(V, F, FN, 1, 0, 3, 1)
    _face(V, F, FN, 2, 0, 2, 3)
    _face(V, F, FN, 3, 1, 3, 2)
    nf = 4
    size = 0.0
    for i in range(4):
        size = max(size, abs(V[i, 0]) + abs(V[i, 1]) + abs(V[i, 2]))
    bi = bj = bk = -1
    bd = 0.0
    for it in range(EPA_VERTS - 4):
        best, dist = -1, np.inf
        for f in range(nf):
            if F[f, 3] and FN[f, 3] < dist:
                best, dist = f, FN[f, 3]
        if best < 0 or dist < -EPA_TOL * size:
            break  # a broken polytope (round-off): keep the last good face
        bi, bj, bk, bd = F[best, 0], F[best, 1], F[best, 2], dist
        n0, n1, n2 = FN[best, 0], FN[best, 1], FN[best, 2]
        _add_support(ta, Ra, pa, sa, aa, na, tb, Rb, pb, sb, ab, nb, mesh_vert, n0, n1, n2, V, m)
        if n0 * V[m, 0] + n1 * V[m, 1] + n2 * V[m, 2] - dist <= EPA_TOL * size:
            break
        # the faces the new vertex sees, grown from the closest face through shared edges (a connected
        # region, so that its boundary is one loop), are removed; their boundary (horizon) gets new faces
        for f in range(nf):
            if F[f, 3] == 1 and (FN[f, 0] * (V[m, 0] - V[F[f, 0], 0]) + FN[f, 1] * (V[m, 1] - V[F[f, 0], 1])
                                 + FN[f, 2] * (V[m, 2] - V[F[f, 0], 2])) > 0.0:
                F[f, 3] = 2  # sees the vertex
        F[best, 3] = 3  # removed
        grown = True
        while grown:
            grown = False
            for f in range(nf):
                if F[f, 3] != 2:
                    continue
                for g in range(nf):
                    if F[g, 3] == 3 and _adjacent(F, f, g):
                        F[f, 3] = 3
                        grown = True
                        break
        ne = 0
        for f in range(nf):
            if F[f, 3] == 2:
                F[f, 3] = 1
            elif F[f, 3] == 3:
                F[f, 3] = 0
                for s in range(3):
                    i, j = F[f, s], F[f, (s + 1) % 3]
                    shared = -1
                    for q in range(ne):
                        if E[q, 0] == j and E[q, 1] == i:
                            shared = q
                    if shared >= 0:
                        E[shared, 0], E[shared, 1] = E[ne - 1, 0], E[ne - 1, 1]
                        ne -= 1
                    else:
                        E[ne, 0], E[ne, 1] = i, j
                        ne += 1
        if nf + ne >= EPA_FACES:
            break
        for q in range(ne):
            _face(V, F, FN, nf, E[q, 0], E[q, 1], m)
            nf += 1
        m += 1
    if bi < 0:
        return -1.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0
    # barycentric coordinates of the origin's projection on the closest face give the witness points
    _face(V, F, FN, nf, bi, bj, bk)
    x0, x1, x2 = bd * FN[nf, 0], bd * FN[nf, 1], bd * FN[nf, 2]
    lam = _barycentric(V, bi, bj, bk, x0, x1, x2)
    w = np.zeros(6)
    for c in range(6):
        w[c] = lam[0] * V[bi, 3 + c] + lam[1] * V[bj, 3 + c] + lam[2] * V[bk, 3 + c]
    return bd, -FN[nf, 0], -FN[nf, 1], -FN[nf, 2], w[0], w[1], w[2], w[3], w[4], w[5]


@jit
def _adjacent(F, f, g):
    """True when the faces ``f`` and ``g`` share an edge."""
    shared = 0
    for s in range(3):
        for t in range(3):
            if F[f, s] == F[g, t]:
                shared += 1
    return shared >= 2


@jit
def _barycentric(V, i, j, k, x0, x1, x2):
    """Barycentric coordinates of the point ``x`` (in the plane of the triangle ``V[i], V[j], V[k]``)."""
    e0, e1, e2 = V[j, 0] - V[i, 0], V[j, 1] - V[i, 1], V[j, 2] - V[i, 2]
    g0, g1, g2 = V[k, 0] - V[i, 0], V[k, 1] - V[i, 1], V[k, 2] - V[i, 2]
    r0, r1, r2 = x0 - V[i, 0], x1 - V[i, 1], x2 - V[i, 2]
    ee, eg, gg = e0 * e0 + e1 * e1 + e2 * e2, e0 * g0 + e1 * g1 + e2 * g2, g0 * g0 + g1 * g1 + g2 * g2
    re, rg = r0 * e0 + r1 * e1 + r2 * e2, r0 * g0 + r1 * g1 + r2 * g2
    den = ee * gg - eg * eg
    out = np.empty(3)
    if den <= 1e-300:
        out[0], out[1], out[2] = 1.0, 0.0, 0.0
        return out
    out[1] = (gg * re - eg * rg) / den
    out[2] = (ee * rg - eg * re) / den
    out[0] = 1.0 - out[1] - out[2]
    return out


@jit
def convex_convex(ta, Ra, pa, sa, aa, na, tb, Rb, pb, sb, ab, nb, mesh_vert, margin, pts, nrm, gap, V, F, FN, E):
    """Geom ``a`` against geom ``b`` through their cores: GJK when the cores are apart, EPA when they
    overlap; one contact with normal from ``b`` to ``a``. Returns 0 or 1."""
    ra, rb = core_radius(ta, sa), core_radius(tb, sb)
    lam = np.empty(4)
    m, dist = gjk(ta, Ra, pa, sa, aa, na, tb, Rb, pb, sb, ab, nb, mesh_vert, V, lam)
    if m < 4 and dist > 1e-9 * (ra + rb + 1e-3):
        g = dist - ra - rb
        if g > margin:
            return 0
        x = np.zeros(6)
        for i in range(m):
            for c in range(6):
                x[c] += lam[i] * V[i, 3 + c]
        n0, n1, n2 = (x[0] - x[3]) / dist, (x[1] - x[4]) / dist, (x[2] - x[5]) / dist
    else:
        depth, n0, n1, n2, x0, x1, x2, y0, y1, y2 = epa(ta, Ra, pa, sa, aa, na, tb, Rb, pb, sb, ab, nb, mesh_vert,
                                                         V, m, F, FN, E)
        if depth < 0.0:
            return 0
        g = -depth - ra - rb
        x = np.empty(6)
        x[0], x[1], x[2], x[3], x[4], x[5] = x0, x1, x2, y0, y1, y2
    emit(pts, nrm, gap, 0, x[0] - ra * n0, x[1] - ra * n1, x[2] - ra * n2,
         x[3] + rb * n0, x[4] + rb * n1, x[5] + rb * n2, n0, n1, n2, g)
    return 1
