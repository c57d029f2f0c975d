"""The n-link pendulum of Jain 2014, Sec. 8, and its contact scene (floor, wall, self-collision)."""

from __future__ import annotations

import math

import numpy as np

from .. import joints as J
from ..builder import ModelBuilder
from ..model import Model
from ..spatial import Inertia, Transform

LENGTH = 12.0
"""Overall length of the pendulum (m)."""
BASE_HEIGHT = 10.0
"""Height of the base hinge (m)."""
LINK_MASS = 1.0
GRAVITY = 9.8
WALL_X = 4.0
"""The wall of the ``"jain2014"`` scene: the half-space ``x >= 4`` (m), 4 m from the base hinge's vertical."""
MU = 0.5
"""Friction coefficient of the scene (Jain 2014 Sec. 8)."""
RESTITUTION = 0.5
"""Coefficient of restitution of the scene (Jain 2014 Sec. 8)."""
START_ANGLE = math.pi / 4
"""Initial base hinge angle (rad): the pendulum starts on the far side from the wall."""
START_RATE = 1.0
"""Initial base hinge rate towards the wall (rad/s)."""
MARGIN = 0.01
"""Contact margin of every geom of the scene (m): pairs are reported from a 2 cm gap on, so the step LCP sees a
contact before it closes (the spheres move up to about 1 cm per 1 ms step)."""
SCENES = ("jain2014",)


def pendulum(n: int, scene: str | None = None) -> Model:
    """``n`` identical 1 kg solid spheres on pin hinges (Jain 2014 Sec. 8): radius ``6/n``, centres
    ``12/n`` apart, 12 m overall, base hinge at 10 m height, hinge axes along world y, gravity 9.8.

    Body ``i``'s frame is at its hinge (the top of sphere ``i``); ``q = 0`` hangs straight down and
    positive angles swing the spheres towards -x. Frames: ``"link{i}"`` (hinges), ``"ball{i}"`` (sphere
    centres) and ``"tip"`` (bottom of the last sphere).

    ``scene="jain2014"`` adds the contact scene of Sec. 8: a sphere geom ``"sphere{i}"`` per link, the
    floor (half-space ``z <= 0``) and the wall (half-space ``x >= 4``), friction 0.5 and restitution 0.5 on
    every geom; adjacent links (parent and child) do not collide with each other, all other pairs do.
    Start it from :func:`pendulum_start`.
    """
    if int(n) != n or n < 1:
        raise ValueError(f"n must be a positive integer, got {n!r}")
    if scene is not None and scene not in SCENES:
        raise ValueError(f"scene: unknown scene {scene!r} (available: None, {', '.join(map(repr, SCENES))})")
    n = int(n)
    r = 0.5 * LENGTH / n
    b = ModelBuilder(f"pendulum{n}", gravity=(0.0, 0.0, -GRAVITY))
    for i in range(n):
        placement = Transform.from_pose(None, (0.0, 0.0, BASE_HEIGHT) if i == 0 else (0.0, 0.0, -2.0 * r))
        b.add_body(f"link{i}", "world" if i == 0 else f"link{i - 1}", J.Revolute((0.0, 1.0, 0.0)), placement,
                   Inertia.sphere(LINK_MASS, r, com=(0.0, 0.0, -r)), joint_name=f"hinge{i}")
        b.add_frame(f"ball{i}", f"link{i}", Transform.from_pose(None, (0.0, 0.0, -r)))
        if scene == "jain2014":
            b.add_geom(f"sphere{i}", f"link{i}", "sphere", r, Transform.from_pose(None, (0.0, 0.0, -r)),
                       mu=MU, restitution=RESTITUTION, margin=MARGIN)
    b.add_frame("tip", f"link{n - 1}", Transform.from_pose(None, (0.0, 0.0, -2.0 * r)))
    if scene == "jain2014":
        b.add_geom("floor", "world", "halfspace", mu=MU, restitution=RESTITUTION, margin=MARGIN)
        # the wall: the half-space z' <= 0 of a frame at x = 4 whose z' axis is world -x
        wall = np.array([[0.0, 0.0, -1.0], [0.0, 1.0, 0.0], [1.0, 0.0, 0.0]])
        b.add_geom("wall", "world", "halfspace", None, Transform.from_pose(wall, (WALL_X, 0.0, 0.0)),
                   mu=MU, restitution=RESTITUTION, margin=MARGIN)
    return b.finalize()


def pendulum_start(model: Model) -> tuple[np.ndarray, np.ndarray]:
    """The initial state of Jain 2014 Sec. 8 for a :func:`pendulum` model: the straight pendulum at
    ``pi/4`` from the vertical on the side away from the wall, the base hinge turning at 1 rad/s towards
    the wall. Returns new arrays ``(q0, qd0)``."""
    q0 = np.zeros(model.nq)
    qd0 = np.zeros(model.nv)
    q0[0] = START_ANGLE
    qd0[0] = -START_RATE
    return q0, qd0
