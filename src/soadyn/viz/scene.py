"""The 3-D scene of a model, independent of any renderer: one node per link visual (the URDF's meshes and
primitives, loaded through yourdfpy and trimesh: STL, DAE, OBJ), per collision geom and per frame, each
fixed on a body (or the world) at a constant pose; the world poses of all nodes at a configuration come
from forward kinematics.

:mod:`soadyn.viz.viewer` draws a :class:`Scene` with viser. Every node carries its own triangle mesh
(frames carry none), so the scene can be checked without a browser.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ..contact.geometry import GEOM_KINDS
from ..dynamics import as_array, fk
from ..model import Model
from ..spatial import Transform

__all__ = ["Node", "Scene", "LINK_COLOR", "GEOM_COLOR", "PLANE_COLOR"]

LINK_COLOR = (190, 190, 200)
"""RGB of URDF visuals without a material colour."""
GEOM_COLOR = (235, 140, 50)
"""RGB of collision geoms on bodies."""
PLANE_COLOR = (170, 175, 180)
"""RGB of world geoms (floors, walls, obstacles)."""
SPHERE_SUBDIVISIONS = 2
"""Icosphere refinement of drawn spheres and capsule caps (320 triangles per sphere)."""
PLANE_THICKNESS = 0.02
"""Drawn thickness of planes and half-spaces as a fraction of their drawn half-size (the slab lies below
the surface ``z = 0`` of the geom frame, on the solid side)."""
MIN_PLANE_HALF_SIZE = 1.0
"""Smallest half-size (m) of a drawn unbounded plane or half-space."""


@dataclass(frozen=True, eq=False)
class Node:
    """One drawn object fixed on body ``body`` (-1: the world) at the pose ``local`` (4x4, in body
    coordinates). ``kind``: ``"mesh"`` (a URDF visual), a geom kind (``"sphere"``, ``"capsule"``, ...) or
    ``"frame"``; ``vertices`` (V, 3) and ``faces`` (F, 3) in node coordinates (None for frames);
    ``source``: the URDF link, geom or frame it shows."""

    name: str
    kind: str
    body: int
    local: np.ndarray
    vertices: np.ndarray | None
    faces: np.ndarray | None
    color: tuple
    source: str


def _homogeneous(E, r) -> np.ndarray:
    return Transform(np.asarray(E), np.asarray(r)).homogeneous()


def _trimesh():
    try:
        import trimesh
    except ImportError:  # pragma: no cover - trimesh comes with yourdfpy
        raise ImportError("the viewer needs trimesh: pip install soadyn[viz]") from None
    return trimesh


# ------------------------------------------------------------------------------------------------ geoms
def _geom_mesh(kind: str, size: np.ndarray, half_size: float):
    """Triangle mesh of a geom in its own frame (planes and half-spaces: a slab below ``z = 0``)."""
    tm = _trimesh()
    if kind == "sphere":
        return tm.creation.icosphere(subdivisions=SPHERE_SUBDIVISIONS, radius=size[0])
    if kind == "capsule":  # trimesh's capsule: along z, centred, height = distance of the cap centres
        return tm.creation.capsule(height=2.0 * size[1], radius=size[0])
    if kind == "cylinder":
        return tm.creation.cylinder(radius=size[0], height=2.0 * size[1])
    if kind == "box":
        return tm.creation.box(extents=2.0 * size[:3])
    if kind in ("plane", "halfspace"):
        hx, hy = (size[0], size[1]) if kind == "plane" and size[0] > 0.0 else (half_size, half_size)
        h = PLANE_THICKNESS * max(hx, hy)
        slab = tm.creation.box(extents=(2.0 * hx, 2.0 * hy, h))
        slab.apply_translation((0.0, 0.0, -0.5 * h))
        return slab
    raise ValueError(f"geom kind {kind!r} cannot be drawn (drawn kinds: sphere, capsule, cylinder, box, plane, "
                     "halfspace)")


# ----------------------------------------------------------------------------------------- URDF visuals
def _material_colors(robot) -> dict:
    return {m.name: m.color.rgba for m in (robot.materials or []) if m.color is not None}


def _visual_color(visual, named: dict) -> tuple:
    mat = visual.material
    rgba = None
    if mat is not None:
        rgba = mat.color.rgba if mat.color is not None else named.get(mat.name)
    if rgba is None:
        return LINK_COLOR
    return tuple(int(round(255 * float(np.clip(c, 0.0, 1.0)))) for c in rgba[:3])


def _visual_mesh(geometry, urdf_dir: str, where: str):
    """The trimesh of a URDF ``<geometry>`` (mesh file, box, cylinder or sphere), in the visual's frame."""
    import yourdfpy

    tm = _trimesh()
    if geometry.mesh is not None:
        fname = yourdfpy.filename_handler_magic(geometry.mesh.filename, dir=urdf_dir)
        if not Path(fname).is_file():
            raise ValueError(f"{where}: mesh file {geometry.mesh.filename!r} not found (looked for {fname!r})")
        try:
            mesh = tm.load(fname, force="mesh")
        except Exception as exc:  # trimesh raises many types for unreadable files
            raise ValueError(f"{where}: cannot read mesh {fname!r}: {exc}") from exc
        if geometry.mesh.scale is not None:
            mesh.apply_scale(np.broadcast_to(np.asarray(geometry.mesh.scale, dtype=float), (3,)))
        return mesh
    if geometry.box is not None:
        return tm.creation.box(extents=np.asarray(geometry.box.size, dtype=float))
    if geometry.cylinder is not None:
        return tm.creation.cylinder(radius=geometry.cylinder.radius, height=geometry.cylinder.length)
    if geometry.sphere is not None:
        return tm.creation.icosphere(subdivisions=SPHERE_SUBDIVISIONS, radius=geometry.sphere.radius)
    raise ValueError(f"{where}: <visual> without a mesh, box, cylinder or sphere")


def _link_nodes(model: Model, urdf) -> list:
    """A node per ``<visual>`` of every link of the URDF file ``urdf`` whose link is a frame of ``model``."""
    import yourdfpy

    path = Path(urdf)
    if not path.is_file():
        raise FileNotFoundError(f"urdf: file not found: {str(urdf)!r}")
    robot = yourdfpy.URDF.load(str(path), build_scene_graph=False, load_meshes=False,
                               build_collision_scene_graph=False, load_collision_meshes=False).robot
    named = _material_colors(robot)
    frames = set(model.frame_names)
    nodes = []
    for link in robot.links:
        if not link.visuals:
            continue
        if link.name not in frames:
            raise ValueError(f"urdf: link {link.name!r} of {str(path)!r} is not a frame of model {model.name!r}: "
                             "is this the model's URDF?")
        f = model.frame_id(link.name)
        on_body = _homogeneous(model.frame_E[f], model.frame_r[f])
        for k, visual in enumerate(link.visuals):
            mesh = _visual_mesh(visual.geometry, str(path.parent), f"{path.name}: link {link.name!r}")
            origin = np.eye(4) if visual.origin is None else np.asarray(visual.origin, dtype=float)
            nodes.append(Node(f"links/{link.name}/{k}", "mesh", int(model.frame_body[f]), on_body @ origin,
                              np.asarray(mesh.vertices, dtype=np.float32), np.asarray(mesh.faces, dtype=np.uint32),
                              _visual_color(visual, named), link.name))
    return nodes


# ------------------------------------------------------------------------------------------------- scene
class Scene:
    """The drawn scene of ``model``: URDF visuals (from ``urdf``, default ``model.source`` when it is a
    URDF file; ``urdf=False``: none), collision geoms (``geoms``) and frames (``frames``).

    Unbounded planes and half-spaces are drawn as slabs of half-size ``plane_half_size`` (m; default: the
    reach of the model at its neutral configuration, at least :data:`MIN_PLANE_HALF_SIZE`).
    ``nodes`` lists the :class:`Node` objects; :meth:`poses` gives their world poses at a configuration.
    """

    def __init__(self, model: Model, urdf=None, geoms: bool = True, frames: bool = True,
                 plane_half_size: float | None = None):
        if not isinstance(model, Model):
            raise ValueError(f"model: expected a soadyn.Model, got {type(model).__name__}")
        self.model = model
        self._data = model.data()
        if urdf is None and model.source.lower().endswith(".urdf") and Path(model.source).is_file():
            urdf = model.source
        self.urdf = None if urdf is False or urdf is None else str(urdf)
        if plane_half_size is None:
            plane_half_size = max(MIN_PLANE_HALF_SIZE, 1.5 * self.reach(model.neutral_q()))
        elif not (np.isfinite(plane_half_size) and plane_half_size > 0.0):
            raise ValueError(f"plane_half_size: expected a positive number, got {plane_half_size!r}")
        nodes = _link_nodes(model, self.urdf) if self.urdf else []
        if geoms:
            kinds = {code: name for name, code in GEOM_KINDS.items()}
            for g in range(model.ng):
                kind = kinds.get(int(model.geom_type[g]), str(int(model.geom_type[g])))
                mesh = _geom_mesh(kind, model.geom_size[g], plane_half_size)
                b = int(model.geom_body[g])
                nodes.append(Node(f"geoms/{model.geom_name[g]}", kind, b,
                                  _homogeneous(model.geom_E[g], model.geom_r[g]),
                                  np.asarray(mesh.vertices, dtype=np.float32), np.asarray(mesh.faces, dtype=np.uint32),
                                  PLANE_COLOR if b < 0 else GEOM_COLOR, model.geom_name[g]))
        if frames:
            for f, name in enumerate(model.frame_names):
                nodes.append(Node(f"frames/{name}", "frame", int(model.frame_body[f]),
                                  _homogeneous(model.frame_E[f], model.frame_r[f]), None, None, (0, 0, 0), name))
        self.nodes = nodes

    def __len__(self) -> int:
        return len(self.nodes)

    def __repr__(self) -> str:
        kinds = {}
        for n in self.nodes:
            kinds[n.kind] = kinds.get(n.kind, 0) + 1
        return f"<soadyn.viz.Scene {self.model.name!r}: {kinds}>"

    def body_poses(self, q) -> np.ndarray:
        """World poses (nb, 4, 4) of the bodies at ``q`` (forward kinematics)."""
        q = as_array(q, (self.model.nq,), "q")
        oR, op = fk(self.model, self._data, q)
        T = np.zeros((self.model.nb, 4, 4))
        T[:, :3, :3] = oR
        T[:, :3, 3] = op
        T[:, 3, 3] = 1.0
        return T

    def poses(self, q) -> np.ndarray:
        """World poses (len(nodes), 4, 4) of every node at ``q``."""
        B = self.body_poses(q)
        return np.array([n.local if n.body < 0 else B[n.body] @ n.local for n in self.nodes]).reshape(-1, 4, 4)

    def reach(self, q) -> float:
        """The largest distance from the world origin of a body origin, a frame or a geom on a body at
        ``q`` (world geoms excluded), plus the largest geom size: a scale for planes, arrows and the
        camera."""
        B = self.body_poses(q)
        m = self.model
        pts = [B[:, :3, 3], np.zeros((1, 3))]
        on = m.frame_body >= 0
        pts.append(np.einsum("kij,kj->ki", B[m.frame_body[on], :3, :3], m.frame_r[on]) + B[m.frame_body[on], :3, 3])
        body_geoms = m.geom_body >= 0
        pts.append(np.einsum("kij,kj->ki", B[m.geom_body[body_geoms], :3, :3], m.geom_r[body_geoms])
                   + B[m.geom_body[body_geoms], :3, 3])
        size = float(m.geom_size[body_geoms].max()) if body_geoms.any() else 0.0
        return float(np.linalg.norm(np.vstack(pts), axis=1).max()) + size
