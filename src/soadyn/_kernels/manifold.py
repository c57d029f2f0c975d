"""Contact manifolds: the several contacts of a face lying on a face, for the support-function pairs
(cylinders and convex meshes against spheres, capsules, boxes, cylinders and convex meshes) and for the
point sets of a cylinder or a convex mesh on a plane; conventions of :mod:`soadyn._kernels.collision`
(normals from the second geom to the first, ``gap`` the signed distance, contacts in scratch
``pts, nrm, gap``).

GJK/EPA (:mod:`soadyn._kernels.convex`) give one contact: the normal ``n`` and the least gap ``g0``. A box
mesh or a cylinder resting on a face needs more to stand still. As Bullet's polyhedral contact clipping
(``btPolyhedralContactClipping``) and ODE's box-box, the manifold is built in the contact plane:

1. the *support feature* of each core on the side facing the other (``-n`` for ``a``, ``+n`` for ``b``): its
   support points in ``FEATURE_POINTS`` directions tilted from that side's normal (``FEATURE_TILT``), all
   around it. A face within that tilt of the contact plane gives its vertices (a box face its 4 corners,
   a cylinder cap ``FEATURE_POINTS`` points of its rim), an edge or a segment (a cylinder or a capsule lying
   on its side) its two ends, a vertex or a curved point itself. Only support functions are used, so one
   code serves every kind;
2. each feature in contact-plane coordinates (``u, v`` along two tangents, height ``z`` along ``n``) reduced
   to its 2-D convex hull, counter-clockwise (Andrew's monotone chain: A. M. Andrew, "Another efficient
   algorithm for convex hulls in two dimensions", Inf. Process. Lett. 9(5), 1979);
3. the *incident* feature clipped by the *reference* one (the polygon lying flattest in the contact plane,
   else a segment): Sutherland-Hodgman against the half-planes of the reference's edges
   (``boxes.clip_halfplane``), the incident heights carried along (exact: a face's height is affine in
   ``u, v``);
4. at each clipped point the gap is the height of ``a``'s feature over ``b``'s along ``n`` (the reference's
   height from its plane, or its segment's line) less the core radii, never below ``g0`` (no two points of
   convex solids overlap along ``n`` by more than their supports); the GJK/EPA point joins them when they
   all lie higher (a polygon inscribed in a curved rim);
5. the points with ``gap <= margin`` reduced to at most 4 that span them (``spread``: the deepest, the
   farthest from it, the farthest from their line on either side; D. Gregorius, "Robust Contact Creation for
   Physics Simulations", GDC 2015), deepest first.

A one-point feature (a sphere, a vertex, a rim point) or two crossing segments keep the single GJK/EPA
contact.
"""

import math

import numpy as np

from .._jit import jit
from .boxes import clip_halfplane, emit
from .convex import GEOM_CYLINDER, core_radius, support

FEATURE_POINTS = 8
"""Support directions sampled around the contact normal for a feature (the most points of a cylinder cap)."""

FEATURE_TILT = 0.02
"""Least tangent of the angle by which those directions lean from the contact normal: a face tilted less
than this from the contact plane is found as a face (1.15 degrees). A geom of bounding radius ``r`` leans
them by ``margin / r`` where that is more (its faces tilted so little that their far vertices are within the
margin), at most by ``MAX_TILT``."""

MAX_TILT = 0.25
"""Most tangent of that angle (14 degrees), so that a mesh's neighbouring facets do not join a face."""

DEEPEST_TOL = 1e-9
"""The GJK/EPA contact joins the clipped points when they are all shallower than it by more than this
(relative to the pair's bounding radii): a cylinder cap's polygon is inscribed in its rim."""

HULL_TOL = 1e-9
"""Area (relative to the squared extent of a feature) below which three of its points count as collinear."""


@jit
def sort_by_gap(pts, nrm, gap, n):
    """Sort the ``n`` contacts by gap, deepest first (stable insertion sort)."""
    for k in range(1, n):
        j = k
        while j > 0 and gap[j - 1] > gap[j]:
            for c in range(3):
                pts[j, c], pts[j - 1, c] = pts[j - 1, c], pts[j, c]
                nrm[j, c], nrm[j - 1, c] = nrm[j - 1, c], nrm[j, c]
            gap[j], gap[j - 1] = gap[j - 1], gap[j]
            j -= 1


@jit
def spread(P, h, n, nz, margin, sel):
    """Up to 4 indices into the world points ``P[:n]`` with gaps ``h[:n] <= margin`` that span their contact
    along the plane of normal ``nz``: the deepest, the farthest from it along the plane, the farthest from
    their line on either side (Gregorius, GDC 2015). Writes ``sel`` and returns the count."""
    i1, h1 = -1, np.inf
    for i in range(n):
        if h[i] < h1:
            i1, h1 = i, h[i]
    if i1 < 0 or h1 > margin:
        return 0
    sel[0] = i1
    i2, d2 = -1, 1e-18
    for i in range(n):
        if h[i] > margin:
            continue
        t0, t1, t2 = P[i, 0] - P[i1, 0], P[i, 1] - P[i1, 1], P[i, 2] - P[i1, 2]
        u = t0 * nz[0] + t1 * nz[1] + t2 * nz[2]
        d = (t0 - u * nz[0]) ** 2 + (t1 - u * nz[1]) ** 2 + (t2 - u * nz[2]) ** 2
        if d > d2:
            i2, d2 = i, d
    if i2 < 0:
        return 1
    sel[1] = i2
    k = 2
    e0, e1, e2 = P[i2, 0] - P[i1, 0], P[i2, 1] - P[i1, 1], P[i2, 2] - P[i1, 2]
    hi, lo, ihi, ilo = 1e-12 * d2, -1e-12 * d2, -1, -1
    for i in range(n):
        if h[i] > margin:
            continue
        t0, t1, t2 = P[i, 0] - P[i1, 0], P[i, 1] - P[i1, 1], P[i, 2] - P[i1, 2]
        a = nz[0] * (e1 * t2 - e2 * t1) + nz[1] * (e2 * t0 - e0 * t2) + nz[2] * (e0 * t1 - e1 * t0)
        if a > hi:
            hi, ihi = a, i
        if a < lo:
            lo, ilo = a, i
    if ihi >= 0:
        sel[k] = ihi
        k += 1
    if ilo >= 0:
        sel[k] = ilo
        k += 1
    return k


@jit
def reduce_contacts(pts, nrm, gap, n, margin):
    """A face-face manifold of more than 4 contacts (box-box clipping of a turned face: up to 8) reduced in
    place to the (up to) 4 that span it (:func:`spread` along the first contact's normal), deepest first.
    Clipping a face that lies almost exactly on another leaves corners a few micrometres apart; kept, they
    would give the step LCP rows that are dependent to that precision, and the set of contacts would
    flicker from step to step. Returns the count."""
    if n <= 4:
        return n
    sel = np.empty(4, np.int64)
    k = spread(pts, gap, n, nrm[0], margin, sel)
    P = pts[:n].copy()
    N = nrm[:n].copy()
    g = gap[:n].copy()
    for i in range(k):
        pts[i] = P[sel[i]]
        nrm[i] = N[sel[i]]
        gap[i] = g[sel[i]]
    sort_by_gap(pts, nrm, gap, k)
    return k


@jit
def _cross(A, i, j, x, y):
    """``(A[j] - A[i]) x (p - A[i])`` in 2-D, ``p = (x, y)``: positive when ``p`` lies left of ``i -> j``."""
    return (A[j, 0] - A[i, 0]) * (y - A[i, 1]) - (A[j, 1] - A[i, 1]) * (x - A[i, 0])


@jit
def hull2d(F, m, H):
    """The 2-D convex hull of the points ``F[:m]`` (rows ``u, v, z``; ``z`` carried) into ``H``,
    counter-clockwise without repeated or collinear points (Andrew's monotone chain); sorts ``F`` in place.
    Returns the vertex count: 1 (all points coincide), 2 (a segment) or more (a polygon)."""
    ext = 0.0
    for i in range(m):
        for j in range(i):
            ext = max(ext, abs(F[i, 0] - F[j, 0]), abs(F[i, 1] - F[j, 1]))
    if ext == 0.0:
        m = min(m, 1)
    for i in range(1, m):  # sort by (u, v)
        j = i
        while j > 0 and (F[j - 1, 0] > F[j, 0] or (F[j - 1, 0] == F[j, 0] and F[j - 1, 1] > F[j, 1])):
            for c in range(3):
                F[j, c], F[j - 1, c] = F[j - 1, c], F[j, c]
            j -= 1
    if m <= 2:
        for i in range(m):
            for c in range(3):
                H[i, c] = F[i, c]
        return m
    area = HULL_TOL * ext * ext
    h = 0
    for i in range(m):  # lower chain
        while h >= 2 and _cross(H, h - 2, h - 1, F[i, 0], F[i, 1]) <= area:
            h -= 1
        for c in range(3):
            H[h, c] = F[i, c]
        h += 1
    lo = h + 1
    for i in range(m - 2, -1, -1):  # upper chain
        while h >= lo and _cross(H, h - 2, h - 1, F[i, 0], F[i, 1]) <= area:
            h -= 1
        for c in range(3):
            H[h, c] = F[i, c]
        h += 1
    return h - 1  # the last point repeats the first


@jit
def _feature(t, R, p, s, mesh_vert, adr, num, size, tilt, sg, o, n, t1, t2, F, H):
    """Support feature of the core of geom type ``t`` (bounding radius ``size``) on its side ``sg n``
    (``sg = +-1``), as ``(u, v, z)`` relative to ``o``: the support points in the directions
    ``sg n + tilt (cos phi t1 + sin phi t2)``, ``phi = 2 pi (k + 1/2) / FEATURE_POINTS``; points closer than
    ``2 tilt size`` (as far as that tilt moves the support point of a curved surface of that radius: a
    cylinder's side) are replaced by the support point in the mean of their directions (the ends of the
    side's line); then ``hull2d`` into ``H``. Returns the hull's vertex count."""
    D = np.empty((FEATURE_POINTS, 2))
    for k in range(FEATURE_POINTS):
        phi = 2.0 * math.pi * (k + 0.5) / FEATURE_POINTS  # none along t2: symmetric about t1
        D[k, 0], D[k, 1] = tilt * math.cos(phi), tilt * math.sin(phi)
        _project(t, R, p, s, mesh_vert, adr, num, sg, o, n, t1, t2, D[k, 0], D[k, 1], F, k)
    merge = 2.0 * tilt * size
    used = np.zeros(FEATURE_POINTS, np.bool_)
    m = 0
    for i in range(FEATURE_POINTS):
        if used[i]:
            continue
        c = sn = 0.0
        cnt = 0
        for j in range(i, FEATURE_POINTS):
            if not used[j] and abs(F[j, 0] - F[i, 0]) <= merge and abs(F[j, 1] - F[i, 1]) <= merge:
                used[j] = True
                c, sn, cnt = c + D[j, 0], sn + D[j, 1], cnt + 1
        if cnt > 1:  # rows from m on are not yet read (m <= i)
            _project(t, R, p, s, mesh_vert, adr, num, sg, o, n, t1, t2, c / cnt, sn / cnt, F, m)
        else:
            for q in range(3):
                F[m, q] = F[i, q]
        m += 1
    return hull2d(F, m, H)


@jit
def _project(t, R, p, s, mesh_vert, adr, num, sg, o, n, t1, t2, c, sn, F, k):
    """``F[k] = (u, v, z)``, relative to ``o``, of the support point in the direction ``sg n + c t1 + sn t2``."""
    x0, x1, x2 = support(t, R, p, s, mesh_vert, adr, num, sg * n[0] + c * t1[0] + sn * t2[0],
                         sg * n[1] + c * t1[1] + sn * t2[1], sg * n[2] + c * t1[2] + sn * t2[2])
    x0, x1, x2 = x0 - o[0], x1 - o[1], x2 - o[2]
    F[k, 0] = x0 * t1[0] + x1 * t1[1] + x2 * t1[2]
    F[k, 1] = x0 * t2[0] + x1 * t2[1] + x2 * t2[2]
    F[k, 2] = x0 * n[0] + x1 * n[1] + x2 * n[2]


@jit
def _flatness(H, m):
    """``|m_z| / |m|`` for the Newell normal ``m`` of the polygon ``H[:m]`` (1: it lies in the contact plane)."""
    w0 = w1 = w2 = 0.0
    for i in range(m):
        j = (i + 1) % m
        w0 += (H[i, 1] - H[j, 1]) * (H[i, 2] + H[j, 2])
        w1 += (H[i, 2] - H[j, 2]) * (H[i, 0] + H[j, 0])
        w2 += (H[i, 0] - H[j, 0]) * (H[i, 1] + H[j, 1])
    return abs(w2) / max(math.sqrt(w0 * w0 + w1 * w1 + w2 * w2), 1e-300)


@jit
def _height(H, m, x, y):
    """Height ``z`` at ``(x, y)`` of the reference feature ``H[:m]``: its plane (Newell normal through the
    centroid) for a polygon, its line (parameter clamped to the segment) for a segment."""
    if m == 2:
        e0, e1 = H[1, 0] - H[0, 0], H[1, 1] - H[0, 1]
        s = min(1.0, max(0.0, ((x - H[0, 0]) * e0 + (y - H[0, 1]) * e1) / max(e0 * e0 + e1 * e1, 1e-300)))
        return H[0, 2] + s * (H[1, 2] - H[0, 2])
    w0 = w1 = w2 = c0 = c1 = c2 = 0.0
    for i in range(m):
        j = (i + 1) % m
        w0 += (H[i, 1] - H[j, 1]) * (H[i, 2] + H[j, 2])
        w1 += (H[i, 2] - H[j, 2]) * (H[i, 0] + H[j, 0])
        w2 += (H[i, 0] - H[j, 0]) * (H[i, 1] + H[j, 1])
        c0, c1, c2 = c0 + H[i, 0] / m, c1 + H[i, 1] / m, c2 + H[i, 2] / m
    return c2 - (w0 * (x - c0) + w1 * (y - c1)) / w2


@jit
def _clip_by(H, m, C, k, D):
    """The polygon ``C[:k]`` clipped by the reference ``H[:m]`` (its edges' half-planes, counter-clockwise;
    a segment's two end half-planes), ping-ponging through ``D``; the result in ``C``. Returns its count."""
    if m == 2:
        e0, e1 = H[1, 0] - H[0, 0], H[1, 1] - H[0, 1]
        k = clip_halfplane(C, k, D, -e0, -e1, -(e0 * H[0, 0] + e1 * H[0, 1]))
        return clip_halfplane(D, k, C, e0, e1, e0 * H[1, 0] + e1 * H[1, 1])
    for i in range(m):
        if k == 0:
            return 0
        j = (i + 1) % m
        e0, e1 = H[j, 0] - H[i, 0], H[j, 1] - H[i, 1]
        k = clip_halfplane(C, k, D, e1, -e0, e1 * H[i, 0] - e0 * H[i, 1])
        for q in range(k):
            for c in range(3):
                C[q, c] = D[q, c]
    return k


@jit
def convex_manifold(ta, Ra, pa, sa, aa, na, ba, tb, Rb, pb, sb, ab, nb, bb, mesh_vert, margin, pts, nrm, gap):
    """The manifold of the geoms ``a`` and ``b`` (bounding radii ``ba``, ``bb``) around their single contact
    ``pts[0], nrm[0], gap[0]`` (GJK/EPA; normal from ``b`` to ``a``), written over it (steps 1-5 above).
    Returns the count (1-4)."""
    n = nrm[0].copy()
    g0 = gap[0]
    # tangents: t1 along a cylinder's axis where it has one in the contact plane (the sampled directions are
    # then symmetric about the axis, and the merged ends of its side lie exactly on its line)
    t1 = np.zeros(3)
    t2 = np.empty(3)
    if ta == GEOM_CYLINDER or tb == GEOM_CYLINDER:
        R = Ra if ta == GEOM_CYLINDER else Rb
        w = R[0, 2] * n[0] + R[1, 2] * n[1] + R[2, 2] * n[2]
        for c in range(3):
            t1[c] = R[c, 2] - w * n[c]
    if t1[0] ** 2 + t1[1] ** 2 + t1[2] ** 2 < 1e-18:
        if abs(n[0]) <= abs(n[1]) and abs(n[0]) <= abs(n[2]):
            t1[0], t1[1], t1[2] = 0.0, -n[2], n[1]
        elif abs(n[1]) <= abs(n[2]):
            t1[0], t1[1], t1[2] = n[2], 0.0, -n[0]
        else:
            t1[0], t1[1], t1[2] = -n[1], n[0], 0.0
    t1 /= math.sqrt(t1[0] ** 2 + t1[1] ** 2 + t1[2] ** 2)
    t2[0], t2[1], t2[2] = n[1] * t1[2] - n[2] * t1[1], n[2] * t1[0] - n[0] * t1[2], n[0] * t1[1] - n[1] * t1[0]
    o = pts[0].copy()
    F = np.empty((FEATURE_POINTS, 3))
    A = np.empty((2 * FEATURE_POINTS, 3))
    B = np.empty((2 * FEATURE_POINTS, 3))
    tilt_a = min(max(FEATURE_TILT, margin / ba), MAX_TILT)
    tilt_b = min(max(FEATURE_TILT, margin / bb), MAX_TILT)
    ma = _feature(ta, Ra, pa, sa, mesh_vert, aa, na, ba, tilt_a, -1.0, o, n, t1, t2, F, A)
    mb = _feature(tb, Rb, pb, sb, mesh_vert, ab, nb, bb, tilt_b, 1.0, o, n, t1, t2, F, B)
    if ma < 2 or mb < 2:
        return 1
    if ma == 2 and mb == 2:  # two segments: only parallel ones touch along a stretch
        e0, e1 = A[1, 0] - A[0, 0], A[1, 1] - A[0, 1]
        f0, f1 = B[1, 0] - B[0, 0], B[1, 1] - B[0, 1]
        if abs(e0 * f1 - e1 * f0) > FEATURE_TILT * math.sqrt((e0 * e0 + e1 * e1) * (f0 * f0 + f1 * f1)):
            return 1
    a_ref = mb < 3 or (ma >= 3 and _flatness(A, ma) > _flatness(B, mb))
    Href, mref, Hinc, minc = (A, ma, B, mb) if a_ref else (B, mb, A, ma)
    C = np.empty((4 * FEATURE_POINTS, 3))
    D = np.empty((4 * FEATURE_POINTS, 3))
    for q in range(minc):
        for c in range(3):
            C[q, c] = Hinc[q, c]
    k = _clip_by(Href, mref, C, minc, D)
    if k == 0:
        return 1
    ra, rb = core_radius(ta, sa), core_radius(tb, sb)
    P = np.empty((k + 1, 3))
    h = np.empty(k + 1)
    least = np.inf
    for q in range(k):
        zr = _height(Href, mref, C[q, 0], C[q, 1])
        za, zb = (zr, C[q, 2]) if a_ref else (C[q, 2], zr)
        h[q] = max(za - zb - ra - rb, g0)
        least = min(least, h[q])
        zm = 0.5 * (za - ra + zb + rb)  # midpoint of the witness points
        for c in range(3):
            P[q, c] = o[c] + C[q, 0] * t1[c] + C[q, 1] * t2[c] + zm * n[c]
    if least > g0 + DEEPEST_TOL * (ba + bb):  # a curved feature's polygon misses the deepest point: add it
        for c in range(3):
            P[k, c] = o[c]
        h[k] = g0
        k += 1
    sel = np.empty(4, np.int64)
    cnt = spread(P, h, k, n, margin, sel)
    if cnt == 0:
        return 1
    for i in range(cnt):
        j = sel[i]
        emit(pts, nrm, gap, i, P[j, 0], P[j, 1], P[j, 2], P[j, 0], P[j, 1], P[j, 2], n[0], n[1], n[2], h[j])
    sort_by_gap(pts, nrm, gap, cnt)
    return cnt
