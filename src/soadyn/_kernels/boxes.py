"""Box pair functions of the narrow phase (sphere-box, capsule-box, box-box) and the geometric helpers
shared with :mod:`soadyn._kernels.collision` (which documents the conventions: normals from the second geom
argument to the first, ``gap = (w_a - w_b) . n``, contacts written to scratch ``pts, nrm, gap``).
"""

import math

import numpy as np

from .._jit import inline_jit, jit

MAX_PAIR_CONTACTS = 8
"""The most contacts one pair produces (box-box face clipping)."""

MAX_CORNER_CONTACTS = 3 * MAX_PAIR_CONTACTS
"""The most contacts of a box pair that repeats its shared corners (:func:`corner_normals`)."""

CORNER_TOL = 1e-6
"""Distance from a box's faces, relative to the pair's summed half-extents, within which a contact point
counts as lying on them (a shared corner, :func:`corner_normals`)."""

PARALLEL_TOL = 1e-6
"""``|sin|`` of the angle below which two directions count as parallel (capsule-capsule gives two contacts,
edge-edge axes of the separating axis test are skipped, a capsule lies flat on a box face)."""

FACE_BIAS = 1e-9
"""Relative amount by which an edge-edge axis must beat the best face axis of a separating axis test
(ties go to faces, so that resting boxes get face contacts)."""

FACE_ANGLE = 1e-3
"""``|sin|`` of the angle to a face normal below which an edge-edge axis is that face's: its two edges lie
in planes parallel to the face, and the face's clipped contacts hold their crossing. Two boxes resting face
on face, yawed against each other and tilted by 6e-8 rad, have an edge-edge axis that beats their face axis
by 6e-10 m, as much as the tilt makes it (a 5-box staggered stack lost 3 of a face's 4 contacts that way)."""

FACE_GAP_TOL = 1e-6
"""Relative amount (of the summed half-extents) by which the smallest gap of a separated pair's face contacts
may exceed the pair's exact distance for the face contacts to stand for it: a box just above another,
tilted and overhanging, has its separating axis separation set by the overhanging corner, below the
distance its face points realize."""



@jit
def clamp(x, lo, hi):
    return lo if x < lo else (hi if x > hi else x)


@inline_jit
def emit(pts, nrm, gap, k, wa0, wa1, wa2, wb0, wb1, wb2, n0, n1, n2, g):
    """Contact ``k``: midpoint of the witness points ``wa``, ``wb``, normal ``n``, gap ``g``."""
    pts[k, 0] = 0.5 * (wa0 + wb0)
    pts[k, 1] = 0.5 * (wa1 + wb1)
    pts[k, 2] = 0.5 * (wa2 + wb2)
    nrm[k, 0] = n0
    nrm[k, 1] = n1
    nrm[k, 2] = n2
    gap[k] = g


@jit
def segments(p0, p1, p2, u0, u1, u2, hu, q0, q1, q2, v0, v1, v2, hv):
    """Closest points ``p + s u``, ``q + t v`` of two segments (unit directions, half-lengths ``hu``,
    ``hv``; Ericson, Real-Time Collision Detection, Sec. 5.1.9, centred parameters). Returns ``(s, t)``."""
    b = u0 * v0 + u1 * v1 + u2 * v2
    r0, r1, r2 = p0 - q0, p1 - q1, p2 - q2
    c = u0 * r0 + u1 * r1 + u2 * r2
    f = v0 * r0 + v1 * r1 + v2 * r2
    den = 1.0 - b * b
    s = clamp((b * f - c) / den, -hu, hu) if den > 1e-14 else clamp(-c, -hu, hu)
    t = b * s + f
    if t < -hv or t > hv:
        t = clamp(t, -hv, hv)
        s = clamp(b * t - c, -hu, hu)
    return s, t


@jit
def local_coords(R, p, x0, x1, x2):
    """Coordinates ``R^T (x - p)`` of the world point ``x`` in the frame ``(R, p)``."""
    d0, d1, d2 = x0 - p[0], x1 - p[1], x2 - p[2]
    return (R[0, 0] * d0 + R[1, 0] * d1 + R[2, 0] * d2, R[0, 1] * d0 + R[1, 1] * d1 + R[2, 1] * d2,
            R[0, 2] * d0 + R[1, 2] * d1 + R[2, 2] * d2)


@jit
def world_point(R, p, l0, l1, l2):
    """The world point ``p + R l``."""
    return (p[0] + R[0, 0] * l0 + R[0, 1] * l1 + R[0, 2] * l2, p[1] + R[1, 0] * l0 + R[1, 1] * l1 + R[1, 2] * l2,
            p[2] + R[2, 0] * l0 + R[2, 1] * l1 + R[2, 2] * l2)


@jit
def _point_box(R, p, h, x0, x1, x2):
    """Squared distance from the world point ``x`` to the box ``(R, p, h)`` and the closest box point
    (world); zero and ``x`` itself inside."""
    l0, l1, l2 = local_coords(R, p, x0, x1, x2)
    c0, c1, c2 = clamp(l0, -h[0], h[0]), clamp(l1, -h[1], h[1]), clamp(l2, -h[2], h[2])
    w0, w1, w2 = world_point(R, p, c0, c1, c2)
    return (l0 - c0) ** 2 + (l1 - c1) ** 2 + (l2 - c2) ** 2, w0, w1, w2


@jit
def sphere_box(pa, ra, Rb, pb, hb, margin, pts, nrm, gap):
    """Sphere ``a`` against box ``b``: the closest box point to the centre (clamping in box coordinates);
    a centre inside the box is pushed out through the nearest face. Returns 0 or 1."""
    l0, l1, l2 = local_coords(Rb, pb, pa[0], pa[1], pa[2])
    c0, c1, c2 = clamp(l0, -hb[0], hb[0]), clamp(l1, -hb[1], hb[1]), clamp(l2, -hb[2], hb[2])
    d0, d1, d2 = l0 - c0, l1 - c1, l2 - c2
    dist = math.sqrt(d0 * d0 + d1 * d1 + d2 * d2)
    if dist > 0.0:
        m0, m1, m2 = d0 / dist, d1 / dist, d2 / dist
        g = dist - ra
    else:  # centre inside: the face of least penetration
        e0, e1, e2 = hb[0] - abs(l0), hb[1] - abs(l1), hb[2] - abs(l2)
        m0, m1, m2 = 0.0, 0.0, 0.0
        if e0 <= e1 and e0 <= e2:
            m0 = 1.0 if l0 >= 0.0 else -1.0
            c0 = m0 * hb[0]
            g = -e0 - ra
        elif e1 <= e2:
            m1 = 1.0 if l1 >= 0.0 else -1.0
            c1 = m1 * hb[1]
            g = -e1 - ra
        else:
            m2 = 1.0 if l2 >= 0.0 else -1.0
            c2 = m2 * hb[2]
            g = -e2 - ra
    if g > margin:
        return 0
    n0, n1, n2 = world_point(Rb, pb, m0, m1, m2)
    n0, n1, n2 = n0 - pb[0], n1 - pb[1], n2 - pb[2]
    b0, b1, b2 = world_point(Rb, pb, c0, c1, c2)
    emit(pts, nrm, gap, 0, pa[0] - ra * n0, pa[1] - ra * n1, pa[2] - ra * n2, b0, b1, b2, n0, n1, n2, g)
    return 1


@jit
def _segment_box_sq(a0, a1, a2, b0, b1, b2, h, t):
    """Squared distance from the point ``a + t b`` (box coordinates) to the box ``[-h, h]``."""
    x0, x1, x2 = a0 + t * b0, a1 + t * b1, a2 + t * b2
    return ((x0 - clamp(x0, -h[0], h[0])) ** 2 + (x1 - clamp(x1, -h[1], h[1])) ** 2
            + (x2 - clamp(x2, -h[2], h[2])) ** 2)


@jit
def _segment_box(a0, a1, a2, b0, b1, b2, hl, h, ts):
    """Exact minimum over ``t in [-hl, hl]`` of the squared distance from ``a + t b`` (box coordinates)
    to the box ``[-h, h]``: the function is piecewise quadratic and convex, with breakpoints where a
    coordinate crosses a face plane; each piece is minimized in closed form. Returns ``(g, t, lo, hi)``:
    the minimum, its parameter, and the piece ``[lo, hi]`` holding it (``lo = hi`` unless the piece is flat,
    i.e. the segment is parallel to the faces it is outside of). ``ts`` is scratch of 8."""
    n = 0
    ts[n] = -hl
    n += 1
    for i in range(3):
        ai = a0 if i == 0 else (a1 if i == 1 else a2)
        bi = b0 if i == 0 else (b1 if i == 1 else b2)
        if bi != 0.0:
            for s in (-1.0, 1.0):
                t = (s * h[i] - ai) / bi
                if -hl < t < hl:
                    ts[n] = t
                    n += 1
    ts[n] = hl
    n += 1
    for k in range(1, n):  # insertion sort
        x = ts[k]
        j = k - 1
        while j >= 0 and ts[j] > x:
            ts[j + 1] = ts[j]
            j -= 1
        ts[j + 1] = x
    best, tbest, lo, hi = np.inf, -hl, -hl, -hl
    for k in range(n - 1):
        t0, t1 = ts[k], ts[k + 1]
        tm = 0.5 * (t0 + t1)
        A = 0.0
        B = 0.0
        for i in range(3):
            ai = a0 if i == 0 else (a1 if i == 1 else a2)
            bi = b0 if i == 0 else (b1 if i == 1 else b2)
            x = ai + bi * tm
            if x > h[i]:
                A += bi * bi
                B += bi * (ai - h[i])
            elif x < -h[i]:
                A += bi * bi
                B += bi * (ai + h[i])
        t = clamp(-B / A, t0, t1) if A > 0.0 else t0
        g = _segment_box_sq(a0, a1, a2, b0, b1, b2, h, t)
        if g < best:
            best, tbest = g, t
            flat = A <= PARALLEL_TOL * PARALLEL_TOL
            lo, hi = (t0, t1) if flat else (t, t)
    return best, tbest, lo, hi


@jit
def _capsule_box_ball(Rb, pb, hb, a0, a1, a2, b0, b1, b2, t, r, margin, pts, nrm, gap, k):
    """Contact ``k`` between the capsule ball at ``a + t b`` (box coordinates, outside the box) and the box;
    returns 1 if ``gap <= margin``, else 0."""
    x0, x1, x2 = a0 + t * b0, a1 + t * b1, a2 + t * b2
    c0, c1, c2 = clamp(x0, -hb[0], hb[0]), clamp(x1, -hb[1], hb[1]), clamp(x2, -hb[2], hb[2])
    dist = math.sqrt((x0 - c0) ** 2 + (x1 - c1) ** 2 + (x2 - c2) ** 2)
    g = dist - r
    if g > margin or dist <= 0.0:
        return 0
    m0, m1, m2 = (x0 - c0) / dist, (x1 - c1) / dist, (x2 - c2) / dist
    n0, n1, n2 = world_point(Rb, pb, m0, m1, m2)
    n0, n1, n2 = n0 - pb[0], n1 - pb[1], n2 - pb[2]
    w0, w1, w2 = world_point(Rb, pb, x0 - r * m0, x1 - r * m1, x2 - r * m2)
    v0, v1, v2 = world_point(Rb, pb, c0, c1, c2)
    emit(pts, nrm, gap, k, w0, w1, w2, v0, v1, v2, n0, n1, n2, g)
    return 1


@jit
def capsule_box(Ra, pa, ra, ha, Rb, pb, hb, margin, pts, nrm, gap, ts):
    """Capsule ``a`` against box ``b``. Segment outside the box: the exact closest segment point (see
    ``_segment_box``), plus a second ball contact at the end of the flat piece (segment parallel to a face)
    or else at the segment end farther away, if within the margin. Segment meeting the box: separating
    axis test over the box axes and ``axis x box axes``; the least overlap gives the normal and depth,
    with both segment ends as contacts when the segment lies parallel to the chosen face. Returns 0-2."""
    a0, a1, a2 = local_coords(Rb, pb, pa[0], pa[1], pa[2])
    b0, b1, b2 = local_coords(Rb, pb, pb[0] + Ra[0, 2], pb[1] + Ra[1, 2], pb[2] + Ra[2, 2])
    g2, t, lo, hi = _segment_box(a0, a1, a2, b0, b1, b2, ha, hb, ts)
    if g2 > 0.0:  # separated segment
        n = _capsule_box_ball(Rb, pb, hb, a0, a1, a2, b0, b1, b2, t, ra, margin, pts, nrm, gap, 0)
        if n == 0:
            return 0
        if hi > lo:
            t2 = lo if abs(lo - t) > abs(hi - t) else hi
        else:
            t2 = -ha if t > 0.0 else ha
        if abs(t2 - t) > 1e-12 * ha:
            n += _capsule_box_ball(Rb, pb, hb, a0, a1, a2, b0, b1, b2, t2, ra, margin, pts, nrm, gap, n)
        return n
    # the segment meets the box: least overlap over the box axes and axis x box axes
    best, bi, L0, L1, L2 = np.inf, -1, 0.0, 0.0, 0.0
    for k in range(6):
        if k < 3:
            l0, l1, l2 = (1.0 if k == 0 else 0.0), (1.0 if k == 1 else 0.0), (1.0 if k == 2 else 0.0)
        else:
            e0, e1, e2 = (1.0 if k == 3 else 0.0), (1.0 if k == 4 else 0.0), (1.0 if k == 5 else 0.0)
            l0, l1, l2 = b1 * e2 - b2 * e1, b2 * e0 - b0 * e2, b0 * e1 - b1 * e0
            s = math.sqrt(l0 * l0 + l1 * l1 + l2 * l2)
            if s < PARALLEL_TOL:
                continue
            l0, l1, l2 = l0 / s, l1 / s, l2 / s
        ov = (hb[0] * abs(l0) + hb[1] * abs(l1) + hb[2] * abs(l2) + ha * abs(b0 * l0 + b1 * l1 + b2 * l2)
              - abs(a0 * l0 + a1 * l1 + a2 * l2))
        if ov < best - (FACE_BIAS * (hb[0] + hb[1] + hb[2] + ha) if k >= 3 else 0.0):
            sg = 1.0 if a0 * l0 + a1 * l1 + a2 * l2 >= 0.0 else -1.0
            best, bi, L0, L1, L2 = ov, k, sg * l0, sg * l1, sg * l2
    n0, n1, n2 = world_point(Rb, pb, L0, L1, L2)
    n0, n1, n2 = n0 - pb[0], n1 - pb[1], n2 - pb[2]
    bn = b0 * L0 + b1 * L1 + b2 * L2
    if bi < 3 and abs(bn) < PARALLEL_TOL:  # parallel to the face: both ends, depth below the face plane
        n = 0
        for m in range(2):
            tt = -ha if m == 0 else ha
            x0, x1, x2 = a0 + tt * b0, a1 + tt * b1, a2 + tt * b2
            above = x0 * L0 + x1 * L1 + x2 * L2 - hb[bi]
            g = above - ra
            if g <= margin:
                w0, w1, w2 = world_point(Rb, pb, x0 - ra * L0, x1 - ra * L1, x2 - ra * L2)
                v0, v1, v2 = world_point(Rb, pb, x0 - above * L0, x1 - above * L1, x2 - above * L2)
                emit(pts, nrm, gap, n, w0, w1, w2, v0, v1, v2, n0, n1, n2, g)
                n += 1
        return n
    tt = t if bi >= 3 or abs(bn) < PARALLEL_TOL else (-ha if bn > 0.0 else ha)
    g = -best - ra
    if g > margin:
        return 0
    x0, x1, x2 = a0 + tt * b0, a1 + tt * b1, a2 + tt * b2
    w0, w1, w2 = world_point(Rb, pb, x0 - ra * L0, x1 - ra * L1, x2 - ra * L2)
    emit(pts, nrm, gap, 0, w0, w1, w2, w0 - g * n0, w1 - g * n1, w2 - g * n2, n0, n1, n2, g)
    return 1


@inline_jit
def _sat(Ra, ha, Rb, hb, T0, T1, T2, L0, L1, L2):
    """Separation of two boxes along the unit axis ``L``: ``|T.L| - r_a - r_b`` (``T = p_b - p_a``), and
    ``T.L``."""
    ra = (ha[0] * abs(Ra[0, 0] * L0 + Ra[1, 0] * L1 + Ra[2, 0] * L2)
          + ha[1] * abs(Ra[0, 1] * L0 + Ra[1, 1] * L1 + Ra[2, 1] * L2)
          + ha[2] * abs(Ra[0, 2] * L0 + Ra[1, 2] * L1 + Ra[2, 2] * L2))
    rb = (hb[0] * abs(Rb[0, 0] * L0 + Rb[1, 0] * L1 + Rb[2, 0] * L2)
          + hb[1] * abs(Rb[0, 1] * L0 + Rb[1, 1] * L1 + Rb[2, 1] * L2)
          + hb[2] * abs(Rb[0, 2] * L0 + Rb[1, 2] * L1 + Rb[2, 2] * L2))
    tl = T0 * L0 + T1 * L1 + T2 * L2
    return abs(tl) - ra - rb, tl


@jit
def _box_box_distance(Ra, pa, ha, Rb, pb, hb):
    """Exact distance between two disjoint boxes and its witness points ``(d, wa, wb)``: the minimum over
    the vertices of each box against the other box and over the 144 edge pairs (the closest points of two
    convex polytopes can always be taken vertex-to-solid or edge-to-edge)."""
    best, w = np.inf, (0.0, 0.0, 0.0, 0.0, 0.0, 0.0)
    for side in range(2):
        R, p, h = (Ra, pa, ha) if side == 0 else (Rb, pb, hb)
        Ro, po, ho = (Rb, pb, hb) if side == 0 else (Ra, pa, ha)
        for c in range(8):
            v0, v1, v2 = world_point(R, p, h[0] if c & 1 else -h[0], h[1] if c & 2 else -h[1], h[2] if c & 4 else -h[2])
            d2, q0, q1, q2 = _point_box(Ro, po, ho, v0, v1, v2)
            if d2 < best:
                best = d2
                w = (v0, v1, v2, q0, q1, q2) if side == 0 else (q0, q1, q2, v0, v1, v2)
    for i in range(3):
        i1, i2 = (i + 1) % 3, (i + 2) % 3
        for ci in range(4):
            s1 = ha[i1] if ci & 1 else -ha[i1]
            s2 = ha[i2] if ci & 2 else -ha[i2]
            e0 = pa[0] + s1 * Ra[0, i1] + s2 * Ra[0, i2]
            e1 = pa[1] + s1 * Ra[1, i1] + s2 * Ra[1, i2]
            e2 = pa[2] + s1 * Ra[2, i1] + s2 * Ra[2, i2]
            for j in range(3):
                j1, j2 = (j + 1) % 3, (j + 2) % 3
                for cj in range(4):
                    t1 = hb[j1] if cj & 1 else -hb[j1]
                    t2 = hb[j2] if cj & 2 else -hb[j2]
                    f0 = pb[0] + t1 * Rb[0, j1] + t2 * Rb[0, j2]
                    f1 = pb[1] + t1 * Rb[1, j1] + t2 * Rb[1, j2]
                    f2 = pb[2] + t1 * Rb[2, j1] + t2 * Rb[2, j2]
                    s, t = segments(e0, e1, e2, Ra[0, i], Ra[1, i], Ra[2, i], ha[i],
                                     f0, f1, f2, Rb[0, j], Rb[1, j], Rb[2, j], hb[j])
                    x0, x1, x2 = e0 + s * Ra[0, i], e1 + s * Ra[1, i], e2 + s * Ra[2, i]
                    y0, y1, y2 = f0 + t * Rb[0, j], f1 + t * Rb[1, j], f2 + t * Rb[2, j]
                    d2 = (x0 - y0) ** 2 + (x1 - y1) ** 2 + (x2 - y2) ** 2
                    if d2 < best:
                        best = d2
                        w = (x0, x1, x2, y0, y1, y2)
    return math.sqrt(best), w


@inline_jit
def clip_halfplane(src, n, dst, a0, a1, bound):
    """Sutherland-Hodgman (Sutherland and Hodgman, "Reentrant polygon clipping", CACM 17(1), 1974; Ericson,
    Real-Time Collision Detection, 2005, Sec. 8.3.4): the convex polygon ``src[:n]`` (rows ``x, y, ...``)
    clipped to the half-plane ``a0 x + a1 y <= bound``, into ``dst``; the columns after ``x, y`` are
    interpolated along the clipped edges. Returns the vertex count (at most ``n + 1``)."""
    m = 0
    for k in range(n):
        j = k - 1 if k > 0 else n - 1
        da = a0 * src[j, 0] + a1 * src[j, 1] - bound
        db = a0 * src[k, 0] + a1 * src[k, 1] - bound
        if (da <= 0.0) != (db <= 0.0):  # the edge crosses the boundary
            s = da / (da - db)
            for c in range(src.shape[1]):
                dst[m, c] = src[j, c] + s * (src[k, c] - src[j, c])
            m += 1
        if db <= 0.0:
            for c in range(src.shape[1]):
                dst[m, c] = src[k, c]
            m += 1
    return m


@jit
def _face_contacts(Rr, pr, hr, k, m0, m1, m2, Ri, pi, hi, margin, pts, nrm, gap, poly, n0, n1, n2):
    """Face contacts of the reference box ``(Rr, pr, hr)``, face ``k`` with outward normal ``m`` (toward the
    incident box ``(Ri, pi, hi)``): the incident face (the one most anti-parallel to ``m``) clipped to the
    reference face's rectangle (ODE's dBoxBox); each clipped vertex whose height above the reference face
    is ``<= margin`` is a contact with normal ``n`` (``+-m``, from geom b to geom a). Returns 0-8."""
    j, best = 0, -1.0
    for jj in range(3):
        c = abs(Ri[0, jj] * m0 + Ri[1, jj] * m1 + Ri[2, jj] * m2)
        if c > best:
            j, best = jj, c
    sg = -1.0 if Ri[0, j] * m0 + Ri[1, j] * m1 + Ri[2, j] * m2 > 0.0 else 1.0
    f0, f1, f2 = sg * Ri[0, j], sg * Ri[1, j], sg * Ri[2, j]  # incident face normal
    c0, c1, c2 = pi[0] + hi[j] * f0, pi[1] + hi[j] * f1, pi[2] + hi[j] * f2  # incident face centre
    j1, j2 = (j + 1) % 3, (j + 2) % 3
    u, v = (k + 1) % 3, (k + 2) % 3
    for q in range(4):
        s1 = 1.0 if q == 0 or q == 3 else -1.0
        s2 = 1.0 if q < 2 else -1.0
        x0 = c0 + s1 * hi[j1] * Ri[0, j1] + s2 * hi[j2] * Ri[0, j2] - pr[0]
        x1 = c1 + s1 * hi[j1] * Ri[1, j1] + s2 * hi[j2] * Ri[1, j2] - pr[1]
        x2 = c2 + s1 * hi[j1] * Ri[2, j1] + s2 * hi[j2] * Ri[2, j2] - pr[2]
        poly[0, q, 0] = x0 * Rr[0, u] + x1 * Rr[1, u] + x2 * Rr[2, u]
        poly[0, q, 1] = x0 * Rr[0, v] + x1 * Rr[1, v] + x2 * Rr[2, v]
    n = 4
    n = clip_halfplane(poly[0], n, poly[1], 1.0, 0.0, hr[u])
    n = clip_halfplane(poly[1], n, poly[0], -1.0, 0.0, hr[u])
    n = clip_halfplane(poly[0], n, poly[1], 0.0, 1.0, hr[v])
    n = clip_halfplane(poly[1], n, poly[0], 0.0, -1.0, hr[v])
    # heights above the reference face: the incident face plane (P - c) . f = 0 along m
    mf = m0 * f0 + m1 * f1 + m2 * f2
    uf = Rr[0, u] * f0 + Rr[1, u] * f1 + Rr[2, u] * f2
    vf = Rr[0, v] * f0 + Rr[1, v] * f1 + Rr[2, v] * f2
    of = (pr[0] - c0) * f0 + (pr[1] - c1) * f1 + (pr[2] - c2) * f2
    out = 0
    for q in range(n):
        x, y = poly[0, q, 0], poly[0, q, 1]
        z = -(of + x * uf + y * vf) / mf
        g = z - hr[k]
        if g <= margin and out < MAX_PAIR_CONTACTS:
            P0 = pr[0] + x * Rr[0, u] + y * Rr[0, v] + z * m0
            P1 = pr[1] + x * Rr[1, u] + y * Rr[1, v] + z * m1
            P2 = pr[2] + x * Rr[2, u] + y * Rr[2, v] + z * m2
            emit(pts, nrm, gap, out, P0, P1, P2, P0 - g * m0, P1 - g * m1, P2 - g * m2, n0, n1, n2, g)
            out += 1
    return out


@jit
def box_box(Ra, pa, ha, Rb, pb, hb, margin, pts, nrm, gap, poly):
    """Box ``a`` against box ``b`` (ODE's dBoxBox, Gottschalk's separating axis test): the 15 axes (face
    normals of both, edge cross products; near-parallel edges skipped, and edge axes within
    :data:`FACE_ANGLE` of a face normal; ties go to faces). Largest separation ``> margin``: no contact. A face
    axis: the incident face clipped to the reference face, up to 8 contacts (4 corners for resting boxes). An
    edge-edge axis: one contact at the closest points of the two supporting edges, depth from the axis.
    Separated boxes (within the margin) get their exact distance (vertex-box and edge-edge enumeration);
    the face contacts are used when they realize it (:data:`FACE_GAP_TOL`), else one contact at the exact
    closest points."""
    T0, T1, T2 = pb[0] - pa[0], pb[1] - pa[1], pb[2] - pa[2]
    scale = ha[0] + ha[1] + ha[2] + hb[0] + hb[1] + hb[2]
    best, axis, L0, L1, L2, tl = -np.inf, -1, 0.0, 0.0, 0.0, 0.0
    for k in range(15):
        if k < 3:
            l0, l1, l2 = Ra[0, k], Ra[1, k], Ra[2, k]
        elif k < 6:
            l0, l1, l2 = Rb[0, k - 3], Rb[1, k - 3], Rb[2, k - 3]
        else:
            i, j = (k - 6) // 3, (k - 6) % 3
            l0 = Ra[1, i] * Rb[2, j] - Ra[2, i] * Rb[1, j]
            l1 = Ra[2, i] * Rb[0, j] - Ra[0, i] * Rb[2, j]
            l2 = Ra[0, i] * Rb[1, j] - Ra[1, i] * Rb[0, j]
            s = math.sqrt(l0 * l0 + l1 * l1 + l2 * l2)
            if s < PARALLEL_TOL:
                continue
            l0, l1, l2 = l0 / s, l1 / s, l2 / s
            c = 0.0  # the largest cosine to a face normal
            for m in range(3):
                c = max(c, abs(Ra[0, m] * l0 + Ra[1, m] * l1 + Ra[2, m] * l2),
                        abs(Rb[0, m] * l0 + Rb[1, m] * l1 + Rb[2, m] * l2))
            if 1.0 - c * c < FACE_ANGLE * FACE_ANGLE:
                continue
        sep, t = _sat(Ra, ha, Rb, hb, T0, T1, T2, l0, l1, l2)
        if sep > best + (FACE_BIAS * scale if k >= 6 else 0.0):
            best, axis, L0, L1, L2, tl = sep, k, l0, l1, l2, t
    if best > margin:
        return 0
    sg = -1.0 if tl > 0.0 else 1.0  # normal from b to a
    n0, n1, n2 = sg * L0, sg * L1, sg * L2
    n = 0
    if axis < 3:  # reference face on a, outward normal -n
        n = _face_contacts(Ra, pa, ha, axis, -n0, -n1, -n2, Rb, pb, hb, margin, pts, nrm, gap, poly, n0, n1, n2)
    elif axis < 6:  # reference face on b, outward normal n
        n = _face_contacts(Rb, pb, hb, axis - 3, n0, n1, n2, Ra, pa, ha, margin, pts, nrm, gap, poly, n0, n1, n2)
    if best > 0.0:
        d, w = _box_box_distance(Ra, pa, ha, Rb, pb, hb)
        if d > margin:
            return 0
        g = np.inf
        for c in range(n):
            g = min(g, gap[c])
        if g > d + FACE_GAP_TOL * scale:  # the face contacts do not realize the distance (or there are none)
            emit(pts, nrm, gap, 0, w[0], w[1], w[2], w[3], w[4], w[5],
                  (w[0] - w[3]) / d, (w[1] - w[4]) / d, (w[2] - w[5]) / d, d)
            return 1
    if axis < 6:
        return n
    # edge-edge: the supporting edges of a (toward b, -n) and of b (toward a, +n)
    i, j = (axis - 6) // 3, (axis - 6) % 3
    e0, e1, e2 = pa[0], pa[1], pa[2]
    f0, f1, f2 = pb[0], pb[1], pb[2]
    for k in range(3):
        if k != i:
            s = -ha[k] if Ra[0, k] * n0 + Ra[1, k] * n1 + Ra[2, k] * n2 > 0.0 else ha[k]
            e0, e1, e2 = e0 + s * Ra[0, k], e1 + s * Ra[1, k], e2 + s * Ra[2, k]
        if k != j:
            s = hb[k] if Rb[0, k] * n0 + Rb[1, k] * n1 + Rb[2, k] * n2 > 0.0 else -hb[k]
            f0, f1, f2 = f0 + s * Rb[0, k], f1 + s * Rb[1, k], f2 + s * Rb[2, k]
    s, t = segments(e0, e1, e2, Ra[0, i], Ra[1, i], Ra[2, i], ha[i], f0, f1, f2, Rb[0, j], Rb[1, j], Rb[2, j], hb[j])
    x0, x1, x2 = e0 + s * Ra[0, i], e1 + s * Ra[1, i], e2 + s * Ra[2, i]
    y0, y1, y2 = f0 + t * Rb[0, j], f1 + t * Rb[1, j], f2 + t * Rb[2, j]
    emit(pts, nrm, gap, 0, x0, x1, x2, y0, y1, y2, n0, n1, n2, best)
    return 1


@jit
def _on_corner(R, p, h, x0, x1, x2, tol):
    """Whether the world point ``x`` lies within ``tol`` of three faces of the box ``(R, p, h)``."""
    l0, l1, l2 = local_coords(R, p, x0, x1, x2)
    return abs(l0) >= h[0] - tol and abs(l1) >= h[1] - tol and abs(l2) >= h[2] - tol


@jit
def corner_normals(Ra, pa, ha, Rb, pb, hb, n, pts, nrm, gap):
    """The ``n`` contacts of the boxes ``a``, ``b`` (in ``pts, nrm, gap``) plus, for each one whose point is a
    corner of both boxes (within ``CORNER_TOL``), a copy with the outward normal of each face of ``b`` at that
    corner that is not the contact's own normal (normals from ``b`` to ``a``; gap: the point's height over
    that face). Two equal boxes face to face thus give 4 corners with 3 normals each: the contacts of
    Drumwright 2015's grasping simulator, which duplicates "each contact with all three possible directions
    for the contact normal" at the degenerate corners (Sec. VII-A, footnote 3). Returns the new count (at
    most ``MAX_CORNER_CONTACTS``)."""
    tol = CORNER_TOL * (ha[0] + ha[1] + ha[2] + hb[0] + hb[1] + hb[2])
    out = n
    for c in range(n):
        x0, x1, x2 = pts[c, 0], pts[c, 1], pts[c, 2]
        if not (_on_corner(Ra, pa, ha, x0, x1, x2, tol) and _on_corner(Rb, pb, hb, x0, x1, x2, tol)):
            continue
        l0, l1, l2 = local_coords(Rb, pb, x0, x1, x2)
        for k in range(3):
            lk = l0 if k == 0 else (l1 if k == 1 else l2)
            s = 1.0 if lk >= 0.0 else -1.0
            m0, m1, m2 = s * Rb[0, k], s * Rb[1, k], s * Rb[2, k]
            if abs(m0 * nrm[c, 0] + m1 * nrm[c, 1] + m2 * nrm[c, 2]) >= 1.0 - PARALLEL_TOL \
                    or out >= MAX_CORNER_CONTACTS:
                continue  # the contact's own normal (or no room: at most 4 shared corners, 12 contacts)
            emit(pts, nrm, gap, out, x0, x1, x2, x0, x1, x2, m0, m1, m2, s * lk - hb[k])
            out += 1
    return out
