"""Collision geometry: geom kinds and their validation, candidate pairs, and :func:`collide`.

Geoms are declared with :meth:`soadyn.ModelBuilder.add_geom` (a name, a body or ``"world"``, a kind, a
size, a placement in the body frame and contact properties) and stored in the model as ``geom_*`` arrays.

=============  =================================  ==========================================================
kind           size                               shape (in the geom frame)
=============  =================================  ==========================================================
``sphere``     ``radius``                         ball about the origin
``capsule``    ``(radius, half_length)``          segment ``z in [-half_length, half_length]`` swept by a ball
``box``        ``(hx, hy, hz)`` half-extents      ``|x| <= hx, |y| <= hy, |z| <= hz``
``halfspace``  none                               the solid ``z <= 0``, outward normal ``+z``: any depth below
                                                  ``z = 0`` is penetration. Use it for floors and walls.
``plane``      none (unbounded) or ``(hx, hy)``   the same one-sided test (solid below, like MuJoCo's plane);
                                                  with a size, contacts only where the foot point lies in
                                                  the rectangle ``|x| <= hx, |y| <= hy`` (a finite floor
                                                  tile; objects beside it fall past its edge)
``cylinder``   ``(radius, half_length)``          solid cylinder about the z axis, ``|z| <= half_length``
``convex``     ``(n, 3)`` points or a mesh file   the convex hull of the points (or of the file's vertices,
                                                  read by trimesh: STL, OBJ, DAE, ...), geom coordinates
=============  =================================  ==========================================================

Pairs with a cylinder or a convex mesh are found from support functions (GJK and EPA, one contact per
pair; against planes and halfspaces a manifold of up to 4 contacts), see :mod:`soadyn._kernels.convex`.

An unbounded plane and a halfspace give the same contacts; the plane's size only restricts where.

Candidate pairs (``Model.pair_geom``), built by ``finalize``: every pair of geoms except pairs on the same
body (rigidly joined: bodies merged through fixed joints count as one), world-world pairs, plane/halfspace
pairs, pairs named in :meth:`~soadyn.ModelBuilder.exclude_pair`, pairs on a parent and child body when the
builder's ``exclude_parent_child`` is true (the default; a body attached to the world is never excluded
from world geoms), and pairs whose collision filters do not match: a pair collides only if
``(group_a & mask_b) and (group_b & mask_a)``. Each pair ``(a, b)`` is oriented so that ``b`` is the geom
on the body with the lower index (world geoms, body ``-1``, are always ``b``; ties: the lower geom index),
so contact normals, which point from ``b`` to ``a`` (Jain 2014, Sec. 2), point away from the floor.

Contact properties of a pair: friction ``mu = max(mu_a, mu_b)`` and restitution ``e = max(e_a, e_b)``
(the more frictional and the bouncier surface wins, as MuJoCo's default friction mix); the margin is
``margin_a + margin_b``: contacts are reported while ``gap <= margin``.

Degenerate box corners: two equal boxes face to face share their corners, where the contact normal is not
unique. By default such a pair gives the 4 corner contacts of the face clipping, with the face normal. With
``corner_normals=True`` on both boxes, every contact at a corner of both boxes is repeated with the outward
normals of box ``b``'s other two faces at that corner (12 contacts per face pair): the treatment of
Drumwright 2015's grasping simulator, which "duplicat[es] each contact with all three possible directions for
the contact normal" (Sec. VII-A, footnote 3).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np

from .._kernels import collision as _kc
from ..model import readonly_array
from ..spatial import Transform

__all__ = ["GEOM_KINDS", "GEOM_SPHERE", "GEOM_CAPSULE", "GEOM_BOX", "GEOM_PLANE", "GEOM_HALFSPACE", "GEOM_CYLINDER",
           "GEOM_CONVEX", "Contacts", "convex_hull",
           "collide", "with_geoms"]

GEOM_SPHERE, GEOM_CAPSULE, GEOM_BOX, GEOM_PLANE, GEOM_HALFSPACE, GEOM_CYLINDER, GEOM_CONVEX = (
    _kc.GEOM_SPHERE, _kc.GEOM_CAPSULE, _kc.GEOM_BOX, _kc.GEOM_PLANE, _kc.GEOM_HALFSPACE, _kc.GEOM_CYLINDER,
    _kc.GEOM_CONVEX)
GEOM_KINDS = {"sphere": GEOM_SPHERE, "capsule": GEOM_CAPSULE, "box": GEOM_BOX, "plane": GEOM_PLANE,
              "halfspace": GEOM_HALFSPACE, "cylinder": GEOM_CYLINDER, "convex": GEOM_CONVEX}
"""Geom kind name -> type code (``Model.geom_type``)."""

_FLAT = (GEOM_PLANE, GEOM_HALFSPACE)
_SIZE_COUNT = {GEOM_SPHERE: (1,), GEOM_CAPSULE: (2,), GEOM_BOX: (3,), GEOM_PLANE: (0, 2), GEOM_HALFSPACE: (0,),
               GEOM_CYLINDER: (2,)}
_SIZE_NAMES = {GEOM_SPHERE: "radius", GEOM_CAPSULE: "(radius, half_length)", GEOM_BOX: "half-extents (hx, hy, hz)",
               GEOM_PLANE: "none or (hx, hy)", GEOM_HALFSPACE: "none", GEOM_CYLINDER: "(radius, half_length)",
               GEOM_CONVEX: "an (n, 3) array of points or a mesh file"}
_CONTACTS = {GEOM_SPHERE: 1, GEOM_CAPSULE: 2, GEOM_BOX: 4, GEOM_CYLINDER: 4, GEOM_CONVEX: 4}
# most contacts against a plane or halfspace


def pair_max(ta: int, tb: int, corners: bool = False) -> int:
    """The most contacts the narrow phase produces for geom types ``ta`` and ``tb`` (``corners``: both
    geoms repeat shared corners, ``corner_normals``)."""
    if ta in _FLAT or tb in _FLAT:
        return 0 if (ta in _FLAT and tb in _FLAT) else _CONTACTS[tb if ta in _FLAT else ta]
    ta, tb = min(ta, tb), max(ta, tb)
    if tb >= GEOM_CYLINDER:  # support-function pairs: a sphere's one contact, a capsule's segment, else a manifold
        return {GEOM_SPHERE: 1, GEOM_CAPSULE: 2}.get(ta, 4)  # (soadyn._kernels.manifold)
    if (ta, tb) == (GEOM_BOX, GEOM_BOX):
        return _kc.MAX_CORNER_CONTACTS if corners else _kc.MAX_PAIR_CONTACTS
    return {(0, 0): 1, (0, 1): 1, (0, 2): 1, (1, 1): 2, (1, 2): 2}[(ta, tb)]


def convex_hull(points, name: str = "convex") -> np.ndarray:
    """The vertices (k, 3) of the convex hull of ``points`` (an (n, 3) array, or a mesh file that trimesh
    reads: STL, OBJ, DAE, ...), in hull order; ``ValueError`` naming the geom for fewer than 4 points or a flat
    set."""
    from scipy.spatial import ConvexHull, QhullError

    if isinstance(points, (str, Path)):
        import trimesh

        try:
            mesh = trimesh.load(str(points), force="mesh")
        except Exception as exc:  # trimesh raises many types for unreadable files
            raise ValueError(f"geom {name!r}: cannot read the mesh file {str(points)!r}: {exc}") from None
        points = mesh.vertices
    try:
        P = np.asarray(points, dtype=float).reshape(-1, 3)
    except (TypeError, ValueError):
        raise ValueError(f"geom {name!r}: a convex geom takes {_SIZE_NAMES[GEOM_CONVEX]}") from None
    if P.shape[0] < 4 or not np.all(np.isfinite(P)):
        raise ValueError(f"geom {name!r}: a convex geom needs at least 4 finite points, got {P.shape[0]}")
    try:
        hull = ConvexHull(P)
    except QhullError as exc:
        raise ValueError(f"geom {name!r}: the points span no volume (flat or degenerate): {exc}") from None
    return np.ascontiguousarray(P[hull.vertices])


@dataclass(frozen=True)
class GeomSpec:
    """A validated geom declaration (see :meth:`soadyn.ModelBuilder.add_geom`)."""

    name: str
    body: str
    type: int
    size: np.ndarray  # (3,), zero-padded
    placement: Transform
    mu: float
    restitution: float
    margin: float
    group: int
    mask: int
    corner_normals: bool = False
    vertices: np.ndarray | None = None  # convex: hull vertices (k, 3) in geom coordinates


def _number(x, what: str, name: str) -> float:
    try:
        v = float(x)
    except (TypeError, ValueError):
        raise ValueError(f"geom {name!r}: {what} must be a number, got {x!r}") from None
    if not np.isfinite(v):
        raise ValueError(f"geom {name!r}: {what} must be finite, got {x!r}")
    return v


def _bits(x, what: str, name: str) -> int:
    if isinstance(x, bool) or not isinstance(x, (int, np.integer)) or not -2 ** 63 <= int(x) < 2 ** 63:
        raise ValueError(f"geom {name!r}: {what} must be an int64 bit mask, got {x!r}")
    return int(x)


def _placement(placement, name: str) -> Transform:
    """``None`` (identity), a :class:`Transform` (body -> geom, as frames), a 4x4 homogeneous pose or a
    ``(rotation, translation)`` pair of the geom in the body frame."""
    if placement is None:
        return Transform.identity()
    if isinstance(placement, Transform):
        return placement
    try:
        if isinstance(placement, (tuple, list)) and len(placement) == 2:
            return Transform.from_pose(np.asarray(placement[0], dtype=float).reshape(3, 3),
                                       np.asarray(placement[1], dtype=float).reshape(3))
        return Transform.from_homogeneous(np.asarray(placement, dtype=float).reshape(4, 4))
    except (TypeError, ValueError) as exc:
        raise ValueError(f"geom {name!r}: placement must be a Transform, a 4x4 pose or (rotation, translation) "
                         f"with a proper rotation matrix ({exc})") from None


def geom_spec(name, body, kind, size, placement=None, mu=0.5, restitution=0.0, margin=0.0, group=1,
              mask=-1, corner_normals=False) -> GeomSpec:
    """Validate a geom declaration; ``ValueError`` naming the geom and the offending argument."""
    if not isinstance(name, str) or not name:
        raise ValueError(f"geom name must be a non-empty string, got {name!r}")
    if not isinstance(body, str):
        raise ValueError(f"geom {name!r}: body must be a body name or 'world', got {body!r}")
    if kind not in GEOM_KINDS:
        raise ValueError(f"geom {name!r}: kind must be one of {sorted(GEOM_KINDS)}, got {kind!r}")
    t = GEOM_KINDS[kind]
    vertices = None
    s = np.zeros(3)
    if t == GEOM_CONVEX:
        vertices = convex_hull(size, name)
        vertices.setflags(write=False)
        s[0] = np.sqrt((vertices ** 2).sum(axis=1).max())  # bounding radius about the geom origin
    else:
        vals = [] if size is None else np.atleast_1d(np.asarray(size, dtype=object)).ravel().tolist()
        if len(vals) not in _SIZE_COUNT[t]:
            raise ValueError(f"geom {name!r}: a {kind} takes size {_SIZE_NAMES[t]}, got {size!r}")
        for k, v in enumerate(vals):
            s[k] = _number(v, "size", name)
        if t == GEOM_PLANE and vals:
            if not (s[0] > 0.0 and s[1] > 0.0):
                raise ValueError(f"geom {name!r}: a finite plane needs half-sizes (hx, hy) > 0, got {size!r} "
                                 "(leave the size out for an unbounded plane)")
        elif np.any(s[:len(vals)] <= 0.0):
            raise ValueError(f"geom {name!r}: {kind} size {_SIZE_NAMES[t]} must be > 0, got {size!r}")
    mu = _number(mu, "mu", name)
    restitution = _number(restitution, "restitution", name)
    margin = _number(margin, "margin", name)
    if mu < 0.0:
        raise ValueError(f"geom {name!r}: mu must be >= 0, got {mu}")
    if not 0.0 <= restitution <= 1.0:
        raise ValueError(f"geom {name!r}: restitution must be in [0, 1], got {restitution}")
    if margin < 0.0:
        raise ValueError(f"geom {name!r}: margin must be >= 0, got {margin}")
    if not isinstance(corner_normals, (bool, np.bool_)):
        raise ValueError(f"geom {name!r}: corner_normals must be True or False, got {corner_normals!r}")
    if corner_normals and t != GEOM_BOX:
        raise ValueError(f"geom {name!r}: corner_normals applies to boxes only, got a {kind}")
    s.setflags(write=False)
    return GeomSpec(name, body, t, s, _placement(placement, name), mu, restitution, margin,
                    _bits(group, "group", name), _bits(mask, "mask", name), bool(corner_normals), vertices)


def geom_declaration(model, g: int) -> dict:
    """The :meth:`~soadyn.ModelBuilder.add_geom` arguments that reproduce geom ``g`` of ``model`` (on the
    body of the same name, at the same placement in the body frame)."""
    t, s, b = int(model.geom_type[g]), model.geom_size[g], int(model.geom_body[g])
    n = {GEOM_SPHERE: 1, GEOM_CAPSULE: 2, GEOM_BOX: 3, GEOM_PLANE: 2 if s[0] > 0.0 else 0, GEOM_CYLINDER: 2}.get(t, 0)
    kind = next(k for k, c in GEOM_KINDS.items() if c == t)
    size = tuple(float(x) for x in s[:n]) or None
    if t == GEOM_CONVEX:
        size = model.mesh_vert[model.geom_vertadr[g]:model.geom_vertadr[g] + model.geom_vertnum[g]].copy()
    return dict(name=model.geom_name[g], body="world" if b < 0 else model.body_names[b], kind=kind,
                size=size, placement=Transform(model.geom_E[g], model.geom_r[g]),
                mu=float(model.geom_mu[g]), restitution=float(model.geom_restitution[g]),
                margin=float(model.geom_margin[g]), group=int(model.geom_group[g]), mask=int(model.geom_mask[g]),
                corner_normals=bool(model.geom_corners[g]))


def model_fields(specs: list, excluded: set, host: dict, index: dict, parent: np.ndarray,
                 exclude_parent_child: bool) -> dict:
    """The ``Model`` geom fields from validated specs. ``host`` maps a body name to (kept body name or
    ``"world"``, transform kept body -> body) after fixed-joint merging, ``index`` a kept body name to its
    index, ``parent`` the kept bodies' parents; ``excluded`` holds frozensets of geom-name pairs."""
    from ..model import ModelError

    ng = len(specs)
    names = tuple(g.name for g in specs)
    gid = {n: i for i, n in enumerate(names)}
    body, E, r = np.zeros(ng, np.int64), np.zeros((ng, 3, 3)), np.zeros((ng, 3))
    for i, g in enumerate(specs):
        if g.body not in host:
            raise ModelError(f"geom {g.name!r}: body {g.body!r} is not a body of the model")
        h, X = host[g.body]
        X = g.placement * X  # kept body -> geom
        body[i], E[i], r[i] = index.get(h, -1), X.E, X.r
    for pair in excluded:
        for n in pair:
            if n not in gid:
                raise ModelError(f"exclude_pair: {n!r} is not a geom of the model")
    types = np.array([g.type for g in specs], np.int64)
    groups = np.array([g.group for g in specs], np.int64)
    masks = np.array([g.mask for g in specs], np.int64)
    corners = np.array([g.corner_normals for g in specs], np.int64)
    pairs, pmax = [], []
    for i in range(ng):
        for j in range(i + 1, ng):
            bi, bj = body[i], body[j]
            if bi == bj or pair_max(types[i], types[j]) == 0 or frozenset((names[i], names[j])) in excluded:
                continue
            if exclude_parent_child and ((bi >= 0 and parent[bi] == bj >= 0) or (bj >= 0 and parent[bj] == bi >= 0)):
                continue
            if not (groups[i] & masks[j]) or not (groups[j] & masks[i]):
                continue
            a, b = (i, j) if (bj, j) < (bi, i) else (j, i)  # b: lower body index (world first)
            pairs.append((a, b))
            pmax.append(pair_max(types[i], types[j], bool(corners[i] and corners[j])))
    npair = len(pairs)
    counts = np.array([0 if g.vertices is None else g.vertices.shape[0] for g in specs], np.int64)
    verts = [g.vertices for g in specs if g.vertices is not None]
    return dict(
        ng=ng, geom_name=names, geom_body=readonly_array(body, np.int64), geom_type=readonly_array(types, np.int64),
        geom_size=readonly_array(np.array([g.size for g in specs]).reshape(ng, 3), np.float64),
        geom_E=readonly_array(E, np.float64), geom_r=readonly_array(r, np.float64),
        geom_mu=readonly_array([g.mu for g in specs], np.float64),
        geom_restitution=readonly_array([g.restitution for g in specs], np.float64),
        geom_margin=readonly_array([g.margin for g in specs], np.float64),
        geom_group=readonly_array(groups, np.int64), geom_mask=readonly_array(masks, np.int64),
        geom_corners=readonly_array(corners, np.int64),
        geom_vertadr=readonly_array(np.cumsum(counts) - counts, np.int64),
        geom_vertnum=readonly_array(counts, np.int64),
        mesh_vert=readonly_array(np.concatenate(verts) if verts else np.zeros((0, 3)), np.float64),
        npair=npair, pair_geom=readonly_array(np.array(pairs, np.int64).reshape(npair, 2), np.int64),
        pair_max=readonly_array(np.array(pmax, np.int64), np.int64), ncon_max=int(sum(pmax)))


def with_geoms(model, specs, exclude_parent_child: bool = True):
    """A new model: ``model`` with the geoms ``specs`` added, for models that come finished (a URDF robot).

    Each spec is a dict of :meth:`soadyn.ModelBuilder.add_geom` arguments (``name``, ``body``, ``kind``,
    ``size``, ``placement``, ``mu``, ...); ``body`` is a body name, ``"world"`` or any frame name of the
    model (a URDF link merged through a fixed joint, such as solo12's ``FL_FOOT``): the placement is then
    relative to that frame. The model's own geoms and their candidate pairs are kept as they are (they come
    first); the pairs that involve a new geom follow the rules of the module docstring, with parent-child
    pairs left out when ``exclude_parent_child``. ``ValueError`` (:class:`soadyn.model.ModelError` for a
    duplicate name or an unknown body or frame) naming the spec."""
    import dataclasses

    from ..model import Model, ModelError

    if not isinstance(model, Model):
        raise ValueError(f"model: expected a soadyn.Model, got {type(model).__name__}")
    if isinstance(specs, (dict, str, bytes)) or not hasattr(specs, "__iter__"):
        raise ValueError(f"specs: expected a list of add_geom argument dicts, got {type(specs).__name__}")
    new = []
    for k, s in enumerate(specs):
        if not isinstance(s, dict):
            raise ValueError(f"specs[{k}]: expected a dict of add_geom arguments, got {type(s).__name__}")
        try:
            new.append(geom_spec(**{"size": None, **s}))
        except TypeError as exc:
            raise ValueError(f"specs[{k}]: {exc}") from None
    if not new:
        raise ValueError("specs: no geoms to add")
    old = [geom_spec(**geom_declaration(model, g)) for g in range(model.ng)]
    seen = set()
    for g in old + new:
        if g.name in seen:
            raise ModelError(f"duplicate geom name {g.name!r}")
        seen.add(g.name)
    host = {"world": ("world", Transform.identity())}
    for f, name in enumerate(model.frame_names):
        b = int(model.frame_body[f])
        host[name] = ("world" if b < 0 else model.body_names[b], Transform(model.frame_E[f], model.frame_r[f]))
    for name in model.body_names:
        host[name] = (name, Transform.identity())
    index = {n: i for i, n in enumerate(model.body_names)}
    old_names = [g.name for g in old]
    excluded = {frozenset((a, b)) for i, a in enumerate(old_names) for b in old_names[i + 1:]}
    f = model_fields(old + new, excluded, host, index, np.asarray(model.body_parent), bool(exclude_parent_child))
    pairs = np.concatenate([model.pair_geom, f["pair_geom"]]).reshape(-1, 2)
    pmax = np.concatenate([model.pair_max, f["pair_max"]])
    f.update(npair=pairs.shape[0], pair_geom=readonly_array(pairs, np.int64), pair_max=readonly_array(pmax, np.int64),
             ncon_max=int(pmax.sum()))
    return dataclasses.replace(model, **f)


# ------------------------------------------------------------------------------------ detection
@dataclass(frozen=True)
class Contacts:
    """Contacts found by :func:`collide` (copies; ``count`` rows each). Normals point from geom ``b``
    (``geom[:, 1]``) to geom ``a`` (``geom[:, 0]``); ``gap`` is the signed distance (negative:
    penetration); ``mu`` and ``eps`` are the pair's friction and restitution (maxima over the two geoms)."""

    count: int
    geom: np.ndarray  # (count, 2) int64 geom indices (a, b)
    body: np.ndarray  # (count, 2) int64 their bodies (-1 world)
    point: np.ndarray  # (count, 3) world contact points (midpoint of the witness points)
    normal: np.ndarray  # (count, 3) unit normals from b to a, world coordinates
    gap: np.ndarray  # (count,) signed distances
    mu: np.ndarray  # (count,) friction coefficients
    eps: np.ndarray  # (count,) restitution coefficients

    def __len__(self) -> int:
        return self.count


def collide(model, data, q) -> Contacts:
    """Collision detection at configuration ``q``: body poses (tree positions), geom world poses
    (``data.gR``, ``data.gp``), then the narrow phase over ``model.pair_geom`` into ``data.con_*``. Returns a
    :class:`Contacts` of copies. A model without geoms gives no contacts."""
    from ..dynamics import check_data, check_status, copy_in

    check_data(model, data)
    copy_in(q, data.q, "q")
    st = _kc.detect(model.model_int, model.model_float, data.data_float, data.data_int, data.q, model.geom_margin)
    check_status(st, model, data.q)
    n = int(data.ncon[0])
    if n > data.con_gap.shape[0]:
        raise RuntimeError(f"collide: {n} contacts exceed the capacity ncon_max = {model.ncon_max}")
    return Contacts(n, data.con_geom[:n].copy(), data.con_body[:n].copy(), data.con_point[:n].copy(),
                    data.con_normal[:n].copy(), data.con_gap[:n].copy(), data.con_mu[:n].copy(),
                    data.con_eps[:n].copy())
