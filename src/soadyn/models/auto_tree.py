"""Random tree-topology models with every joint type, for tests (after Featherstone's ``autoTree``)."""

from __future__ import annotations

import numpy as np

from .. import joints as J
from ..builder import ModelBuilder
from ..model import Model
from ..spatial import Inertia, Transform, quat_to_rot, rot_axis

ALL_JOINTS = (J.REVOLUTE, J.PRISMATIC, J.HELICAL, J.UNIVERSAL, J.CYLINDRICAL, J.PLANAR, J.SPHERICAL, J.FREE,
              J.FIXED)


def _random_axis(rng, skew: float | None) -> np.ndarray:
    if skew is None:
        a = rng.normal(size=3)
        return a / np.linalg.norm(a)
    return rot_axis((1.0, 0.0, 0.0), skew) @ np.array([0.0, 0.0, 1.0])


def _joint(t: int, rng, skew) -> J.Joint:
    a = _random_axis(rng, skew)
    if t == J.REVOLUTE:
        return J.Revolute(a)
    if t == J.PRISMATIC:
        return J.Prismatic(a)
    if t == J.HELICAL:
        return J.Helical(a, pitch=rng.uniform(-0.2, 0.2))
    if t == J.UNIVERSAL:
        b = np.cross(a, _random_axis(rng, None))
        return J.Universal(a, b)
    if t == J.CYLINDRICAL:
        return J.Cylindrical(a)
    if t == J.PLANAR:
        return J.Planar(a)
    if t == J.SPHERICAL:
        return J.Spherical()
    if t == J.FREE:
        return J.Free()
    if t == J.FIXED:
        return J.Fixed()
    raise ValueError(f"joint_mix: unknown joint type code {t!r}")


def _random_inertia(rng, size: float) -> Inertia:
    A = rng.normal(size=(3, 3))
    Ic = (A @ A.T + 0.5 * np.eye(3)) * 0.05 * size**2
    return Inertia(rng.uniform(0.5, 2.0), rng.uniform(-0.2, 0.2, 3) * size, Ic)


def _random_rotation(rng) -> np.ndarray:
    q = rng.normal(size=4)
    return quat_to_rot(q / np.linalg.norm(q))


def auto_tree(nb: int, branching: float = 1.0, skew: float | None = None, seed=0,
              joint_mix=(J.REVOLUTE,), taper: float = 1.0, name: str | None = None) -> Model:
    """A random tree of ``nb`` moving bodies.

    ``branching``: Featherstone's branching factor (1 = unbranched chain, 2 = binary tree; parent of body
    ``i`` is ``floor((i - 1 + ceil(bf)) / bf) - 1``). ``skew``: None for random joint axes, else the
    angle between each axis and the joint frame's z axis. ``joint_mix``: joint type codes assigned in
    turn (``ALL_JOINTS`` exercises every type; ``FIXED`` entries add a massive fixed-joint child with a
    frame, merged into its parent at ``finalize``). ``taper``: link length ratio between generations.
    Frames ``"body{i}"`` (body origins) and ``"tip{i}"`` (a random point on each body) are added.
    """
    if nb < 1:
        raise ValueError(f"nb must be >= 1, got {nb}")
    if branching < 1.0:
        raise ValueError(f"branching must be >= 1, got {branching}")
    rng = np.random.default_rng(seed)
    mix = tuple(joint_mix)
    moving = [t for t in mix if t != J.FIXED]
    if not moving:
        raise ValueError("joint_mix must contain at least one moving joint type")
    b = ModelBuilder(name or f"auto_tree_{nb}_{branching:g}_{seed}", gravity=(0.0, 0.0, -9.81))
    fixed_count = 0
    for i in range(nb):
        parent = int(np.floor((i + np.ceil(branching)) / branching)) - 1 if i > 0 else -1
        parent = min(parent, i - 1)
        size = taper ** i
        t = mix[i % len(mix)]
        if t == J.FIXED:
            t = moving[i % len(moving)]
        placement = Transform.from_pose(_random_rotation(rng), rng.uniform(-0.5, 0.5, 3) * size)
        pname = "world" if parent < 0 else f"body{parent}"
        b.add_body(f"body{i}", pname, _joint(t, rng, skew), placement, _random_inertia(rng, size),
                   joint_name=f"joint{i}")
        b.add_frame(f"tip{i}", f"body{i}", Transform.from_pose(_random_rotation(rng), rng.uniform(-0.3, 0.3, 3)))
        if J.FIXED in mix and i % len(mix) == mix.index(J.FIXED):
            fixed_count += 1
            name_f = f"fixed{fixed_count}"
            b.add_body(name_f, f"body{i}", J.Fixed(),
                       Transform.from_pose(_random_rotation(rng), rng.uniform(-0.3, 0.3, 3)),
                       _random_inertia(rng, size), joint_name=f"{name_f}_joint")
            b.add_frame(f"{name_f}_point", name_f, Transform.from_pose(None, rng.uniform(-0.2, 0.2, 3)))
    return b.finalize()
