"""Narrow-phase collision detection between geoms: spheres, capsules, boxes, cylinders, convex meshes, planes
and halfspaces (pairs with a cylinder or a convex mesh: :mod:`soadyn._kernels.convex` for the deepest
contact, :mod:`soadyn._kernels.manifold` for the others of a face lying on a face).

Conventions (docs/architecture.md, Conventions): a contact of the pair ``(a, b)`` carries the world contact point (the
midpoint of the two witness points), the unit normal pointing FROM geom ``b`` TO geom ``a`` (Jain 2014,
Sec. 2: normals from B to A) and the signed distance ``gap`` (negative = penetration) measured along the
normal, ``gap = (w_a - w_b) . n`` for the witness points ``w_a`` on ``a`` and ``w_b`` on ``b``. A pair
reports the contacts with ``gap <= margin_a + margin_b``.

Geom frames: ``gR[g]`` (columns = geom axes in the world) and ``gp[g]`` (geom origin). Sizes ``geom_size``
(ng, 3): sphere ``(radius, 0, 0)``, capsule ``(radius, half-length along local z, 0)``, box half-extents,
plane ``(hx, hy, 0)`` (0 = unbounded), halfspace unused, cylinder ``(radius, half-length along z, 0)``,
convex mesh ``(bounding radius, 0, 0)`` (its vertices in ``mesh_vert``). Plane and halfspace: the solid
``z <= 0`` of the geom frame with outward normal ``+z``; a plane's contacts are restricted to the rectangle
``|x| <= hx, |y| <= hy`` of its frame when ``hx > 0``.

Pair functions write up to ``MAX_PAIR_CONTACTS`` contacts into scratch arrays ``pts`` (points), ``nrm``
(normals from their SECOND geom argument to their FIRST) and ``gap``, and return the count; ``collide``
orders each pair by type (``_rank``: planes and halfspaces last), calls the one pair function and flips the
normals when it swapped the pair.
"""

import math

import numpy as np

from .._jit import inline_jit, jit, view
from .boxes import (MAX_CORNER_CONTACTS, MAX_PAIR_CONTACTS, PARALLEL_TOL, box_box, capsule_box, clamp,
                    corner_normals, emit, local_coords, segments, sphere_box, world_point)
from .frames import frame_world_pose
from .joints import OK, check_q
from .kinematics import tree_positions, world_poses
from .layout import NCON, data_contact, data_kinematics, dint, model_geoms, model_tree

from .convex import (EPA_FACES, EPA_VERTS, GEOM_BOX, GEOM_CAPSULE, GEOM_CONVEX, GEOM_CYLINDER, GEOM_HALFSPACE,
                     GEOM_PLANE, GEOM_SPHERE, convex_convex, is_flat)
from .manifold import convex_manifold, reduce_contacts, sort_by_gap, spread


# ----------------------------------------------------------------------------------------- poses
@jit
def geom_world_poses(geom_body, geom_E, geom_r, oR, op, gR, gp):
    """World rotation ``gR`` (ng, 3, 3) (columns = geom axes in world) and origin ``gp`` (ng, 3) of every
    geom: ``gR = oR_b E^T``, ``gp = op_b + oR_b r`` for a geom placed at ``(E, r)`` on body ``b``
    (the frame convention of ``frames.frame_world_pose``); world geoms (``b = -1``) use their placement."""
    for g in range(geom_body.shape[0]):
        frame_world_pose(geom_body[g], geom_E[g], geom_r[g], oR, op, gR[g], gp[g])


# ----------------------------------------------------------------------------------------- helpers
@jit
def _perp(u0, u1, u2):
    """A unit vector perpendicular to the unit vector ``u`` (deterministic)."""
    if abs(u0) <= abs(u1) and abs(u0) <= abs(u2):
        x, y, z = 0.0, -u2, u1
    elif abs(u1) <= abs(u2):
        x, y, z = u2, 0.0, -u0
    else:
        x, y, z = -u1, u0, 0.0
    s = math.sqrt(x * x + y * y + z * z)
    return x / s, y / s, z / s


@jit
def _balls(a0, a1, a2, ra, b0, b1, b2, rb, f0, f1, f2, margin, pts, nrm, gap, k):
    """Contact between the balls ``(a, ra)`` and ``(b, rb)`` (core points of swept shapes); ``f`` is the
    normal used when the centres coincide. Writes contact ``k`` if ``gap <= margin``; returns 1 or 0."""
    d0, d1, d2 = a0 - b0, a1 - b1, a2 - b2
    dist = math.sqrt(d0 * d0 + d1 * d1 + d2 * d2)
    if dist > 1e-300:
        n0, n1, n2 = d0 / dist, d1 / dist, d2 / dist
    else:
        n0, n1, n2 = f0, f1, f2
    g = dist - ra - rb
    if g > margin:
        return 0
    emit(pts, nrm, gap, k, a0 - ra * n0, a1 - ra * n1, a2 - ra * n2,
          b0 + rb * n0, b1 + rb * n1, b2 + rb * n2, n0, n1, n2, g)
    return 1


@jit
def _segment_point(p, u, hl, x0, x1, x2):
    """Parameter ``t`` in ``[-hl, hl]`` of the point of the segment ``p + t u`` closest to ``x``."""
    return clamp(u[0] * (x0 - p[0]) + u[1] * (x1 - p[1]) + u[2] * (x2 - p[2]), -hl, hl)


# ------------------------------------------------------------------------------- round shapes
@jit
def sphere_sphere(pa, ra, pb, rb, margin, pts, nrm, gap):
    """Sphere ``a`` against sphere ``b``: ``gap = |pa - pb| - ra - rb``, ``n = (pa - pb) / |pa - pb|``
    (``+z`` if the centres coincide). Returns the contact count (0 or 1)."""
    return _balls(pa[0], pa[1], pa[2], ra, pb[0], pb[1], pb[2], rb, 0.0, 0.0, 1.0, margin, pts, nrm, gap, 0)


@jit
def sphere_capsule(pa, ra, Rb, pb, rb, hb, margin, pts, nrm, gap):
    """Sphere ``a`` against capsule ``b`` (axis ``Rb[:, 2]``): the sphere against the ball of the capsule's
    segment point closest to the sphere centre. Returns 0 or 1."""
    u = Rb[:, 2]
    t = _segment_point(pb, u, hb, pa[0], pa[1], pa[2])
    f0, f1, f2 = _perp(u[0], u[1], u[2])
    return _balls(pa[0], pa[1], pa[2], ra, pb[0] + t * u[0], pb[1] + t * u[1], pb[2] + t * u[2], rb,
                  f0, f1, f2, margin, pts, nrm, gap, 0)


@jit
def capsule_capsule(Ra, pa, ra, ha, Rb, pb, rb, hb, margin, pts, nrm, gap):
    """Capsule ``a`` against capsule ``b``: balls at the closest points of the two segments; parallel
    segments (``|sin| < PARALLEL_TOL``) whose projections overlap give two contacts, at the ends of the
    overlap. Returns 0, 1 or 2."""
    u = Ra[:, 2]
    v = Rb[:, 2]
    cx0 = u[1] * v[2] - u[2] * v[1]
    cx1 = u[2] * v[0] - u[0] * v[2]
    cx2 = u[0] * v[1] - u[1] * v[0]
    sin = math.sqrt(cx0 * cx0 + cx1 * cx1 + cx2 * cx2)
    if sin > PARALLEL_TOL:
        f0, f1, f2 = cx0 / sin, cx1 / sin, cx2 / sin
    else:
        f0, f1, f2 = _perp(u[0], u[1], u[2])
    if sin <= PARALLEL_TOL:
        # parallel: the overlap [lo, hi] of b's projection on a's segment
        c = u[0] * (pb[0] - pa[0]) + u[1] * (pb[1] - pa[1]) + u[2] * (pb[2] - pa[2])
        lo = max(-ha, c - hb)
        hi = min(ha, c + hb)
        if lo <= hi:
            n = 0
            for m in range(2 if hi - lo > 1e-12 * (ha + hb) else 1):
                s = lo if m == 0 else hi
                x0, x1, x2 = pa[0] + s * u[0], pa[1] + s * u[1], pa[2] + s * u[2]
                t = _segment_point(pb, v, hb, x0, x1, x2)
                n += _balls(x0, x1, x2, ra, pb[0] + t * v[0], pb[1] + t * v[1], pb[2] + t * v[2], rb,
                            f0, f1, f2, margin, pts, nrm, gap, n)
            return n
    s, t = segments(pa[0], pa[1], pa[2], u[0], u[1], u[2], ha, pb[0], pb[1], pb[2], v[0], v[1], v[2], hb)
    return _balls(pa[0] + s * u[0], pa[1] + s * u[1], pa[2] + s * u[2], ra,
                  pb[0] + t * v[0], pb[1] + t * v[1], pb[2] + t * v[2], rb, f0, f1, f2, margin, pts, nrm, gap, 0)


# ------------------------------------------------------------------------------ planes, halfspaces
@inline_jit
def _plane_point(Rb, pb, sb, x0, x1, x2, r, margin, pts, nrm, gap, k):
    """Contact ``k`` of the ball ``(x, r)`` with the plane/halfspace ``b`` (solid ``z <= 0``, normal
    ``Rb[:, 2]``): ``gap = n . (x - pb) - r``; a finite plane (``sb[0] > 0``) keeps it only if the foot point
    lies in its rectangle. Returns 1 if kept and ``gap <= margin``, else 0."""
    n0, n1, n2 = Rb[0, 2], Rb[1, 2], Rb[2, 2]
    h = n0 * (x0 - pb[0]) + n1 * (x1 - pb[1]) + n2 * (x2 - pb[2])
    g = h - r
    if g > margin:
        return 0
    f0, f1, f2 = x0 - h * n0, x1 - h * n1, x2 - h * n2
    if sb[0] > 0.0:
        l0, l1, _ = local_coords(Rb, pb, f0, f1, f2)
        if abs(l0) > sb[0] or abs(l1) > sb[1]:
            return 0
    emit(pts, nrm, gap, k, x0 - r * n0, x1 - r * n1, x2 - r * n2, f0, f1, f2, n0, n1, n2, g)
    return 1


@jit
def sphere_plane(pa, ra, Rb, pb, sb, margin, pts, nrm, gap):
    """Sphere ``a`` against plane or halfspace ``b``: one contact, normal ``b``'s ``+z``. Returns 0 or 1."""
    return _plane_point(Rb, pb, sb, pa[0], pa[1], pa[2], ra, margin, pts, nrm, gap, 0)


@jit
def capsule_plane(Ra, pa, ra, ha, Rb, pb, sb, margin, pts, nrm, gap):
    """Capsule ``a`` against plane or halfspace ``b``: the balls at both segment ends. Returns 0-2."""
    n = 0
    for s in (-ha, ha):
        n += _plane_point(Rb, pb, sb, pa[0] + s * Ra[0, 2], pa[1] + s * Ra[1, 2], pa[2] + s * Ra[2, 2], ra,
                          margin, pts, nrm, gap, n)
    return n


@jit
def box_plane(Ra, pa, ha, Rb, pb, sb, margin, pts, nrm, gap):
    """Box ``a`` against plane or halfspace ``b``: all 8 corners are tested; the (up to) 4 deepest with
    ``gap <= margin`` are kept, deepest first (ties in corner order). Returns 0-4."""
    n = 0
    for c in range(8):
        x0, x1, x2 = world_point(Ra, pa, ha[0] if c & 1 else -ha[0], ha[1] if c & 2 else -ha[1],
                            ha[2] if c & 4 else -ha[2])
        n += _plane_point(Rb, pb, sb, x0, x1, x2, 0.0, margin, pts, nrm, gap, n)
    sort_by_gap(pts, nrm, gap, n)
    return min(n, 4)


@jit
def _plane_manifold(P, n, Rb, pb, sb, margin, pts, nrm, gap):
    """The contacts of the points ``P[:n]`` (a mesh's vertices or a cylinder's rim points) with the plane or
    halfspace ``b``: the (up to) 4 points of ``manifold.spread`` among those within the margin (heights over
    the plane), deepest first. Returns 0-4."""
    sel = np.empty(4, np.int64)
    nz = Rb[:, 2]
    h = np.empty(n)
    for i in range(n):
        h[i] = nz[0] * (P[i, 0] - pb[0]) + nz[1] * (P[i, 1] - pb[1]) + nz[2] * (P[i, 2] - pb[2])
    k = spread(P, h, n, nz, margin, sel)
    c = 0
    for i in range(k):
        c += _plane_point(Rb, pb, sb, P[sel[i], 0], P[sel[i], 1], P[sel[i], 2], 0.0, margin, pts, nrm, gap, c)
    sort_by_gap(pts, nrm, gap, c)
    return c


@jit
def cylinder_plane(Ra, pa, sa, Rb, pb, sb, margin, pts, nrm, gap, P):
    """Cylinder ``a`` (radius, half-length along its z) against plane or halfspace ``b``: the rim points of
    both caps in the direction of the plane's inward normal and at 90, 180 and 270 degrees from it, through
    ``_plane_manifold`` (a cylinder standing on a cap gets 4 rim contacts, one lying on its side 2). Returns
    0-4."""
    l0, l1, _ = local_coords(Ra, pa, pa[0] - Rb[0, 2], pa[1] - Rb[1, 2], pa[2] - Rb[2, 2])
    rr = math.sqrt(l0 * l0 + l1 * l1)
    c, s = (l0 / rr, l1 / rr) if rr > 1e-12 else (1.0, 0.0)
    k = 0
    for z in (-sa[1], sa[1]):
        for q in range(4):
            x, y = (c, s) if q == 0 else ((-s, c) if q == 1 else ((-c, -s) if q == 2 else (s, -c)))
            P[k, 0], P[k, 1], P[k, 2] = world_point(Ra, pa, sa[0] * x, sa[0] * y, z)
            k += 1
    return _plane_manifold(P, 8, Rb, pb, sb, margin, pts, nrm, gap)


@jit
def convex_plane(Ra, pa, mesh_vert, adr, num, Rb, pb, sb, margin, pts, nrm, gap, P):
    """Convex mesh ``a`` (vertices ``mesh_vert[adr:adr + num]``) against plane or halfspace ``b``: its
    vertices through ``_plane_manifold``. Returns 0-4."""
    for k in range(num):
        P[k, 0], P[k, 1], P[k, 2] = world_point(Ra, pa, mesh_vert[adr + k, 0], mesh_vert[adr + k, 1],
                                                mesh_vert[adr + k, 2])
    return _plane_manifold(P, num, Rb, pb, sb, margin, pts, nrm, gap)


# ------------------------------------------------------------------------------------- dispatch
@jit
def bounding_radius(t, size):
    """Radius of the geom's bounding sphere about its origin (infinite for planes and halfspaces; a convex
    mesh stores it as its size)."""
    if t == GEOM_SPHERE or t == GEOM_CONVEX:
        return size[0]
    if t == GEOM_CAPSULE:
        return size[0] + size[1]
    if t == GEOM_BOX:
        return math.sqrt(size[0] * size[0] + size[1] * size[1] + size[2] * size[2])
    if t == GEOM_CYLINDER:
        return math.sqrt(size[0] * size[0] + size[1] * size[1])
    return np.inf


@inline_jit
def overlaps(a, b, geom_type, gR, gp, rb, margin):
    """Broad-phase test of the pair ``(a, b)``: bounding spheres (radii ``rb``) closer than ``margin``, or
    the bounding sphere of the other geom reaching within ``margin`` of a plane/halfspace's surface. Two
    planes/halfspaces never overlap."""
    fa, fb = is_flat(geom_type[a]), is_flat(geom_type[b])
    if fa and fb:
        return False
    if fa or fb:
        h, o = (a, b) if fa else (b, a)
        z = (gR[h, 0, 2] * (gp[o, 0] - gp[h, 0]) + gR[h, 1, 2] * (gp[o, 1] - gp[h, 1])
             + gR[h, 2, 2] * (gp[o, 2] - gp[h, 2]))
        return z <= rb[o] + margin
    r = rb[a] + rb[b] + margin
    return (gp[a, 0] - gp[b, 0]) ** 2 + (gp[a, 1] - gp[b, 1]) ** 2 + (gp[a, 2] - gp[b, 2]) ** 2 <= r * r


@jit
def _rank(t):
    """Order of geom types in a pair: sphere, capsule, box, cylinder, convex mesh, then planes/halfspaces."""
    return t + 10 if is_flat(t) else t


@inline_jit
def pair_contacts(a, b, geom_type, geom_size, geom_vertadr, geom_vertnum, mesh_vert, margin, gR, gp, pts, nrm, gap,
                  ts, poly, P, V, F, FN, E):
    """Contacts of the geom pair ``(a, b)`` into the scratch ``pts, nrm, gap`` (normals from ``b`` to
    ``a``): the pair is ordered by type (``_rank``) for the pair functions and the normals flipped back.
    Plane/halfspace pairs give none. Returns the count. Inlined into :func:`collide`, as :func:`_plane_point`
    into the plane pairs: a call passes some twenty arrays, each with its reference count updated."""
    ta, tb = geom_type[a], geom_type[b]
    flip = _rank(ta) > _rank(tb)
    if flip:
        a, b, ta, tb = b, a, tb, ta
    Ra, pa, sa, Rb, pb, sb = gR[a], gp[a], geom_size[a], gR[b], gp[b], geom_size[b]
    n = 0
    if is_flat(tb):
        if is_flat(ta):
            return 0
        if ta == GEOM_SPHERE:
            n = sphere_plane(pa, sa[0], Rb, pb, sb, margin, pts, nrm, gap)
        elif ta == GEOM_CAPSULE:
            n = capsule_plane(Ra, pa, sa[0], sa[1], Rb, pb, sb, margin, pts, nrm, gap)
        elif ta == GEOM_BOX:
            n = box_plane(Ra, pa, sa, Rb, pb, sb, margin, pts, nrm, gap)
        elif ta == GEOM_CYLINDER:
            n = cylinder_plane(Ra, pa, sa, Rb, pb, sb, margin, pts, nrm, gap, P)
        else:
            n = convex_plane(Ra, pa, mesh_vert, geom_vertadr[a], geom_vertnum[a], Rb, pb, sb, margin, pts, nrm, gap,
                             P)
    elif tb >= GEOM_CYLINDER:
        n = convex_convex(ta, Ra, pa, sa, geom_vertadr[a], geom_vertnum[a], tb, Rb, pb, sb, geom_vertadr[b],
                          geom_vertnum[b], mesh_vert, margin, pts, nrm, gap, V, F, FN, E)
        if n == 1 and ta != GEOM_SPHERE:
            n = convex_manifold(ta, Ra, pa, sa, geom_vertadr[a], geom_vertnum[a], bounding_radius(ta, sa), tb, Rb, pb,
                                sb, geom_vertadr[b], geom_vertnum[b], bounding_radius(tb, sb), mesh_vert, margin, pts,
                                nrm, gap)
    elif ta == GEOM_SPHERE:
        if tb == GEOM_SPHERE:
            n = sphere_sphere(pa, sa[0], pb, sb[0], margin, pts, nrm, gap)
        elif tb == GEOM_CAPSULE:
            n = sphere_capsule(pa, sa[0], Rb, pb, sb[0], sb[1], margin, pts, nrm, gap)
        else:
            n = sphere_box(pa, sa[0], Rb, pb, sb, margin, pts, nrm, gap)
    elif ta == GEOM_CAPSULE:
        if tb == GEOM_CAPSULE:
            n = capsule_capsule(Ra, pa, sa[0], sa[1], Rb, pb, sb[0], sb[1], margin, pts, nrm, gap)
        else:
            n = capsule_box(Ra, pa, sa[0], sa[1], Rb, pb, sb, margin, pts, nrm, gap, ts)
    else:
        n = reduce_contacts(pts, nrm, gap, box_box(Ra, pa, sa, Rb, pb, sb, margin, pts, nrm, gap, poly), margin)
    if flip:
        for k in range(n):
            for m in range(3):
                nrm[k, m] = -nrm[k, m]
    return n


@jit
def collide_space(ng, geom_vertnum):
    """``(floats, ints)``: the scratch :func:`collide` takes for ``ng`` geoms: one pair's contacts, the clipping
    polygons, a convex's vertices, the EPA polytope and the geoms' bounding radii."""
    nvert = max(8, geom_vertnum.max() if geom_vertnum.shape[0] else 0)
    return 7 * MAX_CORNER_CONTACTS + 8 + 64 + 3 * nvert + 9 * (EPA_VERTS + 1) + 4 * EPA_FACES + ng, 10 * EPA_FACES


@jit
def collide(geom_type, geom_size, geom_margin, geom_corners, geom_mu, geom_restitution, geom_body, pair_geom,
            geom_vertadr, geom_vertnum, mesh_vert, gR, gp, con_geom, con_body, con_point, con_normal, con_gap, con_mu,
            con_eps, cf, ci):
    """Narrow phase over the candidate pairs ``pair_geom`` (npair, 2), in order: every contact with
    ``gap <= margin_a + margin_b`` is written to the ``con_*`` arrays (capacity ``K = con_gap.shape[0]``):
    ``con_geom`` (K, 2) the pair ``(a, b)``, ``con_body`` (K, 2) their bodies (-1 world), ``con_point``
    (K, 3) world point (midpoint of the witness points), ``con_normal`` (K, 3) unit normal from ``b`` to
    ``a`` (Jain 2014, Sec. 2), ``con_gap`` (K,) signed distance, ``con_mu = max(mu_a, mu_b)``,
    ``con_eps = max(e_a, e_b)``. Convex meshes: vertices ``mesh_vert[geom_vertadr[g]:][:geom_vertnum[g]]``.
    Nothing is written past ``K``; returns the number of contacts found (more than ``K`` means overflow).
    Each pair first passes the bounding-sphere test ``overlaps``. Two boxes with ``geom_corners`` set repeat
    their shared corners with the other face normals (``boxes.corner_normals``). ``cf``, ``ci``: float and int
    scratch of :func:`collide_space` (a contact step takes it from its workspace: no allocation per step)."""
    K = con_gap.shape[0]
    ng = geom_type.shape[0]
    nvert = max(8, geom_vertnum.max() if geom_vertnum.shape[0] else 0)
    mc = MAX_CORNER_CONTACTS
    pts, nrm, gap = view(cf, 0, (mc, 3)), view(cf, 3 * mc, (mc, 3)), view(cf, 6 * mc, mc)
    o = 7 * mc
    ts, poly, P = view(cf, o, 8), view(cf, o + 8, (2, 16, 2)), view(cf, o + 72, (nvert, 3))
    o += 72 + 3 * nvert
    V, FN, rb = view(cf, o, (EPA_VERTS + 1, 9)), view(cf, o + 9 * (EPA_VERTS + 1), (EPA_FACES, 4)), view(
        cf, o + 9 * (EPA_VERTS + 1) + 4 * EPA_FACES, ng)
    F, E = view(ci, 0, (EPA_FACES, 4)), view(ci, 4 * EPA_FACES, (3 * EPA_FACES, 2))
    for g in range(ng):
        rb[g] = bounding_radius(geom_type[g], geom_size[g])
    count = 0
    for k in range(pair_geom.shape[0]):
        a, b = pair_geom[k, 0], pair_geom[k, 1]
        margin = geom_margin[a] + geom_margin[b]
        if not overlaps(a, b, geom_type, gR, gp, rb, margin):
            continue
        n = pair_contacts(a, b, geom_type, geom_size, geom_vertadr, geom_vertnum, mesh_vert, margin, gR, gp,
                          pts, nrm, gap, ts, poly, P, V, F, FN, E)
        if geom_corners[a] and geom_corners[b] and geom_type[a] == GEOM_BOX and geom_type[b] == GEOM_BOX:
            n = corner_normals(gR[a], gp[a], geom_size[a], gR[b], gp[b], geom_size[b], n, pts, nrm, gap)
        for c in range(n):
            if count < K:
                con_geom[count, 0] = a
                con_geom[count, 1] = b
                con_body[count, 0] = geom_body[a]
                con_body[count, 1] = geom_body[b]
                for m in range(3):
                    con_point[count, m] = pts[c, m]
                    con_normal[count, m] = nrm[c, m]
                con_gap[count] = gap[c]
                con_mu[count] = max(geom_mu[a], geom_mu[b])
                con_eps[count] = max(geom_restitution[a], geom_restitution[b])
            count += 1
    return count


@jit
def detect(model_int, model_float, data_float, data_int, q, geom_margin):
    """Collision detection at ``q``: tree positions and body world poses (RBDA Sec. 4.4), geom world
    poses (``geom_world_poses``) into ``Data.gR, gp``, then ``collide`` with the per-geom margins
    ``geom_margin`` (ng,) (the model's, or a simulator's widened ones) into ``Data.con_*``;
    ``Data.ncon[0]`` = the number of contacts found. Returns the status of ``q`` (``joints.check_q``)."""
    mi, mf, df = model_int, model_float, data_float
    parent, jtype, qadr, vadr, jnv, axis, axis2, pitch, XT_E, XT_r, I, S0, armature = model_tree(mi, mf)
    (geom_body, geom_type, geom_size, geom_E, geom_r, geom_mu, geom_restitution, _, geom_corners, pair_geom,
     geom_vertadr, geom_vertnum, mesh_vert) = model_geoms(mi, mf)
    X_E, X_r, S, v, c, oR, op = data_kinematics(mi, df)
    gR, gp, con_geom, con_body, con_point, con_normal, con_gap, con_mu, con_eps = data_contact(mi, df, data_int)
    ncon = dint(mi, data_int, NCON, 1)
    st = check_q(jtype, qadr, q)
    if st != OK:
        return st
    tree_positions(parent, jtype, qadr, vadr, axis, axis2, pitch, XT_E, XT_r, S0, q, X_E, X_r, S)
    world_poses(parent, X_E, X_r, oR, op)
    geom_world_poses(geom_body, geom_E, geom_r, oR, op, gR, gp)
    nf, ni = collide_space(geom_type.shape[0], geom_vertnum)
    ncon[0] = collide(geom_type, geom_size, geom_margin, geom_corners, geom_mu, geom_restitution, geom_body,
                      pair_geom, geom_vertadr, geom_vertnum, mesh_vert, gR, gp,
                      con_geom, con_body, con_point, con_normal, con_gap, con_mu, con_eps, np.empty(nf),
                      np.empty(ni, dtype=np.int64))
    return OK
