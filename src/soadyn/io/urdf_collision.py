"""URDF ``<collision>`` elements as soadyn geoms (``Model.from_urdf(..., collision=True)``).

Each ``<collision>`` of a link becomes a geom on that link (a frame of the model, so links merged through
fixed joints keep their geoms), placed at the element's ``<origin>`` and named ``"<link>/<name>"`` (or
``"<link>/collision<k>"`` for unnamed elements):

* ``<box size>`` -> ``"box"`` with half the sizes; ``<sphere radius>`` -> ``"sphere"``;
* ``<cylinder radius length>`` -> ``"cylinder"`` (radius, length / 2), its axis along z as in URDF;
* ``<mesh filename scale>`` -> ``"convex"``: the convex hull of the mesh's vertices (read by trimesh: STL, OBJ,
  DAE, ...; ``package://`` and relative names resolved by yourdfpy's file name handler), scaled.

Candidate pairs follow :func:`soadyn.contact.geometry.with_geoms` (geoms of parent and child links are not
tested against each other), less the pairs of the robot's own geoms that already touch at the neutral
configuration (``Model.neutral_q``): collision meshes of neighbouring links usually overlap where the
links meet, and such pairs are what an SRDF's ``<disable_collisions reason="Default">`` lists. Every geom
gets friction ``mu``.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from ..model import Model, ModelError
from ..spatial import Transform

__all__ = ["collision_specs", "with_collision_geoms"]


def collision_specs(robot, source: str, mu: float = 0.5) -> list[dict]:
    """The :meth:`~soadyn.ModelBuilder.add_geom` argument dicts of the ``<collision>`` elements of the
    yourdfpy ``robot`` (``source``: the URDF file, for mesh names and error messages)."""
    import yourdfpy

    specs = []
    for link in robot.links:
        for k, col in enumerate(link.collisions):
            name = f"{link.name}/{col.name or f'collision{k}'}"
            g = col.geometry
            where = f"{source}: link {link.name!r} <collision> {k + 1}"
            if g.box is not None:
                kind, size = "box", 0.5 * np.asarray(g.box.size, dtype=float)
            elif g.sphere is not None:
                kind, size = "sphere", float(g.sphere.radius)
            elif g.cylinder is not None:
                kind, size = "cylinder", (float(g.cylinder.radius), 0.5 * float(g.cylinder.length))
            elif g.mesh is not None:
                path = yourdfpy.filename_handler_magic(g.mesh.filename, dir=str(Path(source).parent))
                kind, size = "convex", _mesh_points(path, g.mesh.scale, where)
            else:
                raise ModelError(f"{where}: no <box>, <sphere>, <cylinder> or <mesh> geometry")
            placement = Transform.identity() if col.origin is None else Transform.from_homogeneous(col.origin)
            specs.append(dict(name=name, body=link.name, kind=kind, size=size, placement=placement, mu=mu))
    return specs


def _mesh_points(path: str, scale, where: str) -> np.ndarray:
    import trimesh

    if not Path(path).is_file():
        raise ModelError(f"{where}: mesh file not found: {path!r}")
    try:
        mesh = trimesh.load(path, force="mesh")
    except Exception as exc:  # trimesh raises many types for unreadable files
        raise ModelError(f"{where}: cannot read the mesh {path!r}: {exc}") from None
    points = np.asarray(mesh.convex_hull.vertices, dtype=float)
    return points * (1.0 if scale is None else np.asarray(scale, dtype=float))


def with_collision_geoms(model: Model, robot, source: str, mu: float = 0.5) -> Model:
    """``model`` (loaded from the yourdfpy ``robot``) with its ``<collision>`` geoms added."""
    from ..contact.geometry import with_geoms

    specs = collision_specs(robot, source, mu)
    if not specs:
        raise ModelError(f"{source}: collision=True but the URDF has no <collision> elements")
    try:
        out = with_geoms(model, specs)
    except ValueError as exc:
        raise ModelError(f"{source}: {exc}") from exc
    return _without_touching_pairs(out)


def _without_touching_pairs(model: Model) -> Model:
    """``model`` without the candidate pairs that are in contact at its neutral configuration."""
    import dataclasses

    from ..contact.geometry import collide

    touching = {tuple(p) for p in collide(model, model.data(), model.neutral_q()).geom.tolist()}
    keep = np.array([tuple(p) not in touching for p in model.pair_geom.tolist()], dtype=bool)
    pairs, pmax = model.pair_geom[keep].copy(), model.pair_max[keep].copy()
    pairs.setflags(write=False)
    pmax.setflags(write=False)
    return dataclasses.replace(model, npair=int(keep.sum()), pair_geom=pairs, pair_max=pmax,
                               ncon_max=int(pmax.sum()))
