"""Contact geometry and its configuration derivatives, for the derivatives of a contact step
(:mod:`soadyn.step_derivatives`).

Collision detection runs as the simulator's step runs it (the geoms' margins widened by the settings'),
then each contact is rebuilt from one of these exact local models and checked against what the detection
reported (point, normal, gap to :data:`GEOMETRY_TOL`):

- **point on a face**: a point ``x`` fixed in one body (a sphere or capsule-end centre with its radius
  ``r``, a box corner, a mesh vertex or cylinder rim point with ``r = 0``) against a plane fixed in the
  other body (a plane or halfspace geom, or the face of a box that a sphere touches): the normal ``n``
  turns with the plane's body (it is constant for a world plane), ``gap = n . (x - o) - r``;
- **two balls**: ``n = (x_a - x_b) / |x_a - x_b|``, ``gap = |x_a - x_b| - r_a - r_b``, each centre a point
  fixed in its body (a sphere's centre, a box corner with ``r = 0``, a capsule's segment end) or the point of
  a line fixed in its body closest to the other centre (a capsule's axis where the closest point lies inside
  its segment, a box edge's line with ``r = 0`` against a sphere), which slides along the line as both bodies
  move: ``w . (x_a - x_b) = 0`` for each such line ``w``. Spheres and capsules pair this way (a capsule pair
  at the closest points of its segments), and a sphere with a box edge or corner. Parallel capsule segments
  (``|sin| <= PARALLEL_TOL``), whose contacts the detection puts at the ends of their overlap and a tilt
  merges into one, raise ``ValueError``;
- **box face** (box-box, :func:`soadyn._kernels.boxes.box_box`): a reference face of one box (outward normal
  ``m``, centre ``o``, both fixed in that box) and a point ``P`` where three planes meet, each fixed in one of
  the boxes. The face clipping (the incident face clipped to the reference rectangle, Sutherland-Hodgman)
  gives three kinds of point: a corner of the incident face (its three face planes), a corner of the
  reference face carried along ``m`` onto the incident face's plane (that plane and two side planes of the
  reference box), an edge of the incident face crossing a side plane of the reference box (the incident
  face's plane, the side plane of the incident box through that edge, the reference side plane); a corner
  of one box closest to a face of the other (separated boxes within the margin) is the first kind.
  ``N P = d`` (the planes' normals and offsets), ``gap = m . (P - o)``, the normal ``+-m`` (from the
  second geom to the first), the contact point ``P - gap m / 2``;
- **two edges** (box-box, an edge-edge axis): lines ``e + s d_a``, ``f + t d_b`` fixed in the two boxes,
  ``n = +-(d_a x d_b) / |d_a x d_b|`` (oriented from the second box to the first), ``gap = n . (e - f)``,
  the contact point the midpoint of the lines' closest points;
- **a corner on an edge or a corner** (box-box, separated boxes whose closest points are a corner of one and
  an edge or corner of the other): two balls of radius 0.

The contact point is the midpoint of the two witness points. A box-box pair is rebuilt as a whole: every
contact of the pair from the same reference (a face of either box, or the edge pair) whose models all
reproduce it. Where two references do, the faces being parallel, the one whose face holds all the
contacts as corners of the other box is taken (the box whose face holds the other's face: the separating
axis test picks it on either side of the tie, so the derivatives are two-sided), else the detection's
order (faces of the first box, of the second, edge pairs), and the contacts say they are degenerate. Other
pairs (capsule-box, boxes repeating their shared corners with ``corner_normals``, pairs found by GJK/EPA)
raise ``ValueError``: no local model here rebuilds them, or their witness points come from an iterative
search. The derivatives are those of these formulas, so they hold
while each contact keeps its feature (the same corner, face, edge or segment region).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .._kernels import collision as _kc
from .._kernels.boxes import PARALLEL_TOL
from ..dynamics import copy_in
from ..kinematic_hessian import KinematicHessian, cross3
from ..model import Model
from .geometry import GEOM_BOX, GEOM_CAPSULE, GEOM_HALFSPACE, GEOM_KINDS, GEOM_PLANE, GEOM_SPHERE
from .settings import ContactSettings

__all__ = ["GEOMETRY_TOL", "ContactGeometry", "step_contacts"]

GEOMETRY_TOL = 1e-9
"""Largest difference (m) between a contact's rebuilt point or gap (and its normal) and the detection's."""

_KIND = {v: k for k, v in GEOM_KINDS.items()}
_FLAT = (GEOM_PLANE, GEOM_HALFSPACE)


@dataclass
class ContactGeometry:
    """One contact: bodies ``A``, ``B`` (-1 world), world ``point``, unit ``normal`` from B to A, ``gap``,
    friction ``mu``, restitution ``eps``, and the configuration derivatives (tangent space) ``dpoint``
    (3, nv), ``dnormal`` (3, nv), ``dgap`` (nv,); ``degenerate``: why the detection is not differentiable
    there (the derivatives are then those of the model taken), or empty."""

    A: int
    B: int
    point: np.ndarray
    normal: np.ndarray
    gap: float
    mu: float
    eps: float
    dpoint: np.ndarray
    dnormal: np.ndarray
    dgap: np.ndarray
    degenerate: str = ""


def _detect(model: Model, data, q, settings: ContactSettings) -> int:
    """The simulator's collision detection at ``q`` into ``data.con_*``; returns the contact count."""
    copy_in(q, data.q, "q")
    margins = settings.geom_margins(model.geom_margin)
    _kc.detect(model.model_int, model.model_float, data.data_float, data.data_int, data.q, margins)
    n = int(data.ncon[0])
    if n > data.con_gap.shape[0]:
        raise ValueError(f"collision detection found more contacts than the {model.ncon_max} the model's pairs hold")
    return n


def _face(model, data, ga, gb, point, gap):
    """The point-on-a-face model of the pair ``(ga, gb)``: ``(plane geom, point geom, x, r, n_P, o)`` or None."""
    ta, tb = model.geom_type[ga], model.geom_type[gb]
    if ta in _FLAT or tb in _FLAT:
        gP, gO = (gb, ga) if tb in _FLAT else (ga, gb)
        nP, o = data.gR[gP][:, 2].copy(), data.gp[gP].copy()
        tO = model.geom_type[gO]
        r = float(model.geom_size[gO, 0]) if tO in (GEOM_SPHERE, GEOM_CAPSULE) else 0.0
        x = data.gp[gO].copy() if tO == GEOM_SPHERE else point + (0.5 * gap + r) * nP
        return gP, gO, x, r, nP, o
    if {ta, tb} == {GEOM_SPHERE, GEOM_BOX}:
        gS, gX = (ga, gb) if ta == GEOM_SPHERE else (gb, ga)
        R, pb, h = data.gR[gX], data.gp[gX], model.geom_size[gX]
        c = data.gp[gS].copy()
        loc = R.T @ (c - pb)
        out = np.abs(loc) > h
        if out.sum() == 1:
            k = int(np.flatnonzero(out)[0])
        elif out.sum() == 0:  # centre inside: the face of least penetration, as the detection takes it
            k = int(np.argmin(h - np.abs(loc)))
        else:
            return None
        m = np.zeros(3)
        m[k] = 1.0 if loc[k] >= 0.0 else -1.0
        return gX, gS, c, float(model.geom_size[gS, 0]), R @ m, pb + R @ (m * h)
    return None


def _capsule_ball(model, data, g, x):
    """The ball of capsule ``g`` centred at ``x`` (a detected centre): the end of its segment within
    :data:`GEOMETRY_TOL`, else a point sliding on its axis (``(body, o, w, r)`` of :func:`_centres`)."""
    u, c, h = data.gR[g][:, 2].copy(), data.gp[g], float(model.geom_size[g, 1])
    s = float(u @ (x - c))
    if abs(s) >= h - GEOMETRY_TOL:
        return int(model.geom_body[g]), c + np.copysign(h, s) * u, None, float(model.geom_size[g, 0])
    return int(model.geom_body[g]), c + s * u, u, float(model.geom_size[g, 0])


def _balls(model, data, ga, gb, i, point, normal, gap):
    """The two-ball model of contact ``i`` of the pair: its balls ``(body, o, w, r)`` (:func:`_centres`) for
    geoms ``ga``, ``gb``, or None. Spheres are centred at their centres; a sphere against a box corner meets a
    ball of radius 0 at the corner, against a box edge one sliding on the edge's line; a capsule's ball sits at
    its segment's end or slides on its axis, where the detection put it."""
    ta, tb = model.geom_type[ga], model.geom_type[gb]
    if {ta, tb} <= {GEOM_SPHERE, GEOM_CAPSULE}:
        if ta == tb == GEOM_CAPSULE:
            u, v = data.gR[ga][:, 2], data.gR[gb][:, 2]
            if np.linalg.norm(cross3(u, v)) <= PARALLEL_TOL:
                raise ValueError(f"contact {i} (capsule-capsule): parallel segments (|sin| <= PARALLEL_TOL) get "
                                 "contacts at the ends of their overlap, which a tilt merges into one; not "
                                 "differentiated")
        centres = (point + (0.5 * gap + model.geom_size[ga, 0]) * normal,
                   point - (0.5 * gap + model.geom_size[gb, 0]) * normal)
        return tuple((int(model.geom_body[g]), data.gp[g].copy(), None, float(model.geom_size[g, 0]))
                     if model.geom_type[g] == GEOM_SPHERE else _capsule_ball(model, data, g, x)
                     for g, x in zip((ga, gb), centres))
    if {ta, tb} == {GEOM_SPHERE, GEOM_BOX}:
        gS, gX = (ga, gb) if ta == GEOM_SPHERE else (gb, ga)
        R, pb, h = data.gR[gX], data.gp[gX], model.geom_size[gX]
        c = data.gp[gS]
        loc = R.T @ (c - pb)
        out = np.abs(loc) > h
        if out.sum() < 2:
            return None
        inside = np.flatnonzero(~out)  # the edge's axis, or none at a corner
        box = (int(model.geom_body[gX]), pb + R @ np.clip(loc, -h, h), R[:, inside[0]] if inside.size else None, 0.0)
        sphere = (int(model.geom_body[gS]), c.copy(), None, float(model.geom_size[gS, 0]))
        return (sphere, box) if gS == ga else (box, sphere)
    return None


def _centres(a, b, kh=None):
    """The centres ``x_a``, ``x_b`` of two balls ``(body, o, w, r)`` and, given ``kh``, their rates ``(3, nv)``.
    A ball's centre is the point ``o`` fixed in its body (``w`` None) or the point of the line ``o + s w``
    fixed in its body closest to the other centre: ``w . (x_a - x_b) = 0`` for each line, linear in the free
    parameters ``s``; differentiated, ``dx = J(x) + w ds`` (``J``: the body's material point) with ``ds`` from
    ``dw . (x_a - x_b) + w . (dx_a - dx_b) = 0``."""
    lines = [(k, body, w) for k, (body, _, w, _) in enumerate((a, b)) if w is not None]
    sign = np.array([1.0, -1.0])
    W = np.array([w for _, _, w in lines]).reshape(-1, 3)
    K = (W @ W.T) * sign[[k for k, _, _ in lines]]  # K[i, j] = sign_j w_i . w_j: d(w_i . D)/ds_j
    x = [a[1], b[1]]
    for (k, _, w), s in zip(lines, np.linalg.solve(K, -W @ (a[1] - b[1]))):
        x[k] = x[k] + s * w
    if kh is None:
        return x[0], x[1], None, None
    dx = [kh.point_jacobian(a[0], x[0]), kh.point_jacobian(b[0], x[1])]
    D = x[0] - x[1]
    rhs = -np.array([D @ kh.direction_rate(body, w) for _, body, w in lines]).reshape(-1, kh.nv) - W @ (dx[0] - dx[1])
    for (k, _, w), ds in zip(lines, np.linalg.solve(K, rhs)):
        dx[k] = dx[k] + np.outer(w, ds)
    return x[0], x[1], dx[0], dx[1]


def _ball_model(kh, a, b):
    """``(point, normal, gap, dpoint, dnormal, dgap)`` of two balls (:func:`_centres`): ``n = (x_a - x_b) /
    |x_a - x_b|``, ``gap = |x_a - x_b| - r_a - r_b``, the point midway between the balls' witness points."""
    xa, xb, dxa, dxb = _centres(a, b, kh)
    ra, rb = a[3], b[3]
    d = xa - xb
    L = float(np.linalg.norm(d))
    n = d / L
    dd = dxa - dxb
    dn = (dd - np.outer(n, n @ dd)) / L
    return (0.5 * ((xa - ra * n) + (xb + rb * n)), n, L - ra - rb, 0.5 * (dxa + dxb) - 0.5 * (ra - rb) * dn, dn,
            n @ dd)


def _mismatch(p, n, g, point, normal, gap) -> bool:
    return not (np.abs(p - point).max() <= GEOMETRY_TOL and np.abs(n - normal).max() <= GEOMETRY_TOL
                and abs(g - gap) <= GEOMETRY_TOL)


def _contact(model, data, kh: KinematicHessian, i: int) -> ContactGeometry:
    ga, gb = int(data.con_geom[i, 0]), int(data.con_geom[i, 1])
    A, B = int(model.geom_body[ga]), int(model.geom_body[gb])
    point, normal, gap = data.con_point[i].copy(), data.con_normal[i].copy(), float(data.con_gap[i])
    pair = f"{_KIND[model.geom_type[ga]]}-{_KIND[model.geom_type[gb]]}"
    face = _face(model, data, ga, gb, point, gap)
    if face is not None:
        gP, gO, x, r, nP, o = face
        P, O = int(model.geom_body[gP]), int(model.geom_body[gO])
        h = float(nP @ (x - o))
        s = 1.0 if gP == gb else -1.0
        p, n, g = x - 0.5 * (r + h) * nP, s * nP, h - r
        if _mismatch(p, n, g, point, normal, gap):
            raise ValueError(f"contact {i} ({pair}): the point-on-a-face model does not reproduce the detected contact")
        dnP = kh.direction_rate(P, nP)
        dx = kh.point_jacobian(O, x)
        dh = (x - o) @ dnP + nP @ (dx - kh.point_jacobian(P, o))
        dp = dx - 0.5 * np.outer(nP, dh) - 0.5 * (r + h) * dnP
        return ContactGeometry(A, B, point, normal, gap, float(data.con_mu[i]), float(data.con_eps[i]), dp, s * dnP, dh)
    balls = _balls(model, data, ga, gb, i, point, normal, gap)
    if balls is None:
        raise ValueError(f"contact {i} ({pair}): step derivatives cover a point against a face (spheres, capsules, "
                         "boxes, meshes against planes and halfspaces; a sphere against a box face), two balls "
                         "(spheres and capsules, a sphere against a box edge or corner) and box-box pairs; this "
                         "contact is none of them")
    p, n, g, dp, dn, dg = _ball_model(kh, *balls)
    if _mismatch(p, n, g, point, normal, gap):
        raise ValueError(f"contact {i} ({pair}): the two-ball model does not reproduce the detected contact")
    return ContactGeometry(A, B, point, normal, gap, float(data.con_mu[i]), float(data.con_eps[i]), dp, dn, dg)


def _plane_points(cands) -> np.ndarray:
    """The point where each candidate's three planes ``(body, normal a, point o)`` meet (``a_i . P = a_i .
    o_i``), (n, 3); NaN where they do not meet in one point."""
    N = np.array([[a for _, a, _ in planes] for _, planes in cands])
    O = np.array([[o for _, _, o in planes] for _, planes in cands])
    ok = np.abs(np.linalg.det(N)) > PARALLEL_TOL
    P = np.full((len(cands), 3), np.nan)
    P[ok] = np.linalg.solve(N[ok], np.einsum("kij,kij->ki", N[ok], O[ok])[:, :, None])[:, :, 0]
    return P


def _face_candidates(R, pr, hr, k, m, Ri, pi, hi, body_r, body_i):
    """The points the face clipping of :func:`soadyn._kernels.boxes.box_box` can report for the reference
    face ``k`` (outward normal ``m``) of the box ``(R, pr, hr)`` against the incident box ``(Ri, pi, hi)``:
    ``(kind, planes)`` for each incident-face corner, reference-face corner and incident edge crossing a
    reference side plane; the planes ``(body, a, o)`` meet at the point."""
    j = int(np.argmax(np.abs(Ri.T @ m)))  # the incident face: the one most anti-parallel to m
    f = (-1.0 if Ri[:, j] @ m > 0.0 else 1.0) * Ri[:, j]
    c = pi + hi[j] * f
    j1, j2, u, v = (j + 1) % 3, (j + 2) % 3, (k + 1) % 3, (k + 2) % 3
    o = pr + hr[k] * m
    out = []
    for s1 in (1.0, -1.0):
        for s2 in (1.0, -1.0):
            x = c + s1 * hi[j1] * Ri[:, j1] + s2 * hi[j2] * Ri[:, j2]
            out.append(("corner", ((body_i, f, x), (body_i, Ri[:, j1], x), (body_i, Ri[:, j2], x))))
    for s1 in (1.0, -1.0):
        for s2 in (1.0, -1.0):
            x = o + s1 * hr[u] * R[:, u] + s2 * hr[v] * R[:, v]
            out.append(("reference corner", ((body_i, f, c), (body_r, R[:, u], x), (body_r, R[:, v], x))))
    for side in (j1, j2):  # the incident face's edges at +-hi[side] along Ri[:, side]
        for s1 in (1.0, -1.0):
            e = c + s1 * hi[side] * Ri[:, side]
            for w in (u, v):
                for s2 in (1.0, -1.0):
                    out.append(("edge crossing", ((body_i, f, e), (body_i, Ri[:, side], e),
                                                  (body_r, R[:, w], pr + s2 * hr[w] * R[:, w]))))
    return o, out


def _face_model(kh, body_r, m, o, s, planes, P):
    """``(point, normal, gap, dpoint, dnormal, dgap)`` of the box face model: ``gap = m . (P - o)``."""
    N = np.array([a for _, a, _ in planes])
    rhs = np.array([(oi - P) @ kh.direction_rate(b, a) + a @ kh.point_jacobian(b, oi) for b, a, oi in planes])
    dP = np.linalg.solve(N, rhs)
    g = float(m @ (P - o))
    dm = kh.direction_rate(body_r, m)
    dg = (P - o) @ dm + m @ (dP - kh.point_jacobian(body_r, o))
    return P - 0.5 * g * m, s * m, g, dP - 0.5 * (np.outer(m, dg) + g * dm), s * dm, dg


def _edges(boxes, i, j, normal):
    """The edge pair of the edge-edge axis ``(i, j)`` as the detection takes it for the contact normal
    ``normal`` (from box b to box a): ``(e, d_a, f, d_b, n)``, or None for parallel edges."""
    (_, Ra, pa, ha), (_, Rb, pb, hb) = boxes
    c = cross3(Ra[:, i], Rb[:, j])
    L = float(np.linalg.norm(c))
    if L < PARALLEL_TOL:
        return None
    n = c / L if c @ normal >= 0.0 else -c / L
    e, f = pa.copy(), pb.copy()
    for k in range(3):  # the supporting edges: of a toward b (-n), of b toward a (+n)
        if k != i:
            e += (-ha[k] if Ra[:, k] @ n > 0.0 else ha[k]) * Ra[:, k]
        if k != j:
            f += (hb[k] if Rb[:, k] @ n > 0.0 else -hb[k]) * Rb[:, k]
    return e, Ra[:, i], f, Rb[:, j], n


def _edge_model(kh, A, B, e, da, f, db, n, want_rates):
    """``(point, normal, gap, dpoint, dnormal, dgap)`` of the two-edge model (rates None unless
    ``want_rates``): the lines' closest points ``x``, ``y`` (:func:`_centres`), ``gap = n . (x - y)``."""
    x, y, dx, dy = _centres((A, e, da, 0.0), (B, f, db, 0.0), kh if want_rates else None)
    p, g = 0.5 * (x + y), float(n @ (x - y))
    if not want_rates:
        return p, n, g, None, None, None
    dc = cross3(kh.direction_rate(A, da), db[:, None]) + cross3(da[:, None], kh.direction_rate(B, db))
    L = float(np.linalg.norm(cross3(da, db)))
    dn = (dc - np.outer(n, n @ dc)) * (float(n @ cross3(da, db)) / L) / L
    return p, n, g, 0.5 * (dx + dy), dn, (x - y) @ dn + n @ (dx - dy)


def _box_balls(boxes, point, normal, gap):
    """The two-ball model (radii 0) of a contact of separated boxes at a corner of one of them: its witness
    points ``point +- gap n / 2`` as a corner (on three face planes of its box) or a point sliding on an edge
    (on two), or None."""
    if gap <= 0.0:
        return None
    balls = []
    for (body, R, p, h), w in zip(boxes, (point + 0.5 * gap * normal, point - 0.5 * gap * normal)):
        on = np.abs(np.abs(R.T @ (w - p)) - h) <= GEOMETRY_TOL
        if on.sum() < 2:
            return None
        balls.append((body, w, None if on.all() else R[:, np.flatnonzero(~on)[0]], 0.0))
    return tuple(balls) if balls[0][2] is None or balls[1][2] is None else None


def _box_pair(model, data, kh: KinematicHessian, idx) -> list:
    """The contacts ``idx`` of one box-box pair, rebuilt from one reference (module docstring)."""
    ga, gb = int(data.con_geom[idx[0], 0]), int(data.con_geom[idx[0], 1])
    name = f"box-box, geoms {model.geom_name[ga]!r} and {model.geom_name[gb]!r}"
    if model.geom_corners[ga] and model.geom_corners[gb]:
        raise ValueError(f"contact {idx[0]} ({name}): boxes with corner_normals repeat their shared corners with "
                         "other normals; these duplicates are not differentiated")
    boxes = [(int(model.geom_body[g]), data.gR[g], data.gp[g], model.geom_size[g]) for g in (ga, gb)]
    det = [(data.con_point[i].copy(), data.con_normal[i].copy(), float(data.con_gap[i])) for i in idx]
    normal = det[0][1]
    refs = []  # (reference, each contact's matching model or None), in the detection's order
    for r in (0, 1):
        (br, R, pr, hr), (bi, Ri, pi, hi) = boxes[r], boxes[1 - r]
        s = -1.0 if r == 0 else 1.0  # the outward normal m of a reference face on a is -n, on b +n
        for k in range(3):
            for sg in (1.0, -1.0):
                m = sg * R[:, k]
                if np.abs(s * m - normal).max() > GEOMETRY_TOL:
                    continue
                o, cands = _face_candidates(R, pr, hr, k, m, Ri, pi, hi, br, bi)
                P = _plane_points(cands)
                g = (P - o) @ m
                pm = P - 0.5 * g[:, None] * m
                found = []
                for p_d, n_d, g_d in det:  # the first candidate that reproduces the contact (NaN never does)
                    near = (np.abs(pm - p_d).max(axis=1) <= GEOMETRY_TOL) & (np.abs(g - g_d) <= GEOMETRY_TOL)
                    hit = np.flatnonzero(near & (np.abs(s * m - n_d).max() <= GEOMETRY_TOL))
                    found.append((*cands[hit[0]], P[hit[0]]) if hit.size else None)
                refs.append((("face", br, m, o, s), found))
    if len(idx) == 1:
        for i in range(3):
            for j in range(3):
                edges = _edges(boxes, i, j, normal)
                if edges is not None and not _mismatch(*_edge_model(kh, boxes[0][0], boxes[1][0], *edges, False)[:3],
                                                       *det[0]):
                    refs.append((("edge", edges), [True]))
        balls = _box_balls(boxes, *det[0])
        if balls is not None and not _mismatch(*_ball_model(kh, *balls)[:3], *det[0]):
            refs.append((("balls", balls), [True]))
    whole = [(ref, found) for ref, found in refs if all(f is not None for f in found)]
    if not whole:
        hit = [any(found[c] is not None for _, found in refs) for c in range(len(idx))]
        c = hit.index(False) if False in hit else 0
        raise ValueError(f"contact {idx[c]} ({name}): no box-box local model (a corner on a face, a face corner "
                         "carried onto a face, an edge crossing a side plane, two edges, a corner on an edge or "
                         "corner) reproduces the detected contact" + ("" if False in hit else " from one reference for the whole pair"))
    cornered = [w for w in whole if w[0][0] == "face" and all(f[0] == "corner" for f in w[1])]
    ref, found = (cornered or whole)[0]
    why = "" if len(cornered or whole) == 1 else ("box-box: parallel faces of which neither holds the other alone; "
                                                 "the reference face, and so the normal, switches with the tilt")
    out = []
    for c, i in enumerate(idx):
        if ref[0] == "face":
            _, br, m, o, s = ref
            geo = _face_model(kh, br, m, o, s, found[c][1], found[c][2])
        elif ref[0] == "edge":
            geo = _edge_model(kh, boxes[0][0], boxes[1][0], *ref[1], True)
        else:
            geo = _ball_model(kh, *ref[1])
        out.append(ContactGeometry(boxes[0][0], boxes[1][0], *det[c], float(data.con_mu[i]), float(data.con_eps[i]),
                                   *geo[3:], why))
    return out


def step_contacts(model: Model, data, q, settings: ContactSettings, kh: KinematicHessian) -> list:
    """The contacts the simulator's step finds at ``q`` (its margins), each with its derivatives
    (:class:`ContactGeometry`); ``kh``: the kinematic Hessian at ``q``."""
    k = _detect(model, data, q, settings)
    out, i = [], 0
    while i < k:  # the contacts of one pair are consecutive
        j = i + 1
        while j < k and np.array_equal(data.con_geom[j], data.con_geom[i]):
            j += 1
        if model.geom_type[data.con_geom[i, 0]] == GEOM_BOX and model.geom_type[data.con_geom[i, 1]] == GEOM_BOX:
            out += _box_pair(model, data, kh, list(range(i, j)))
        else:
            out += [_contact(model, data, kh, c) for c in range(i, j)]
        i = j
    return out
