"""The n-link pendulum of Jain 2014, Sec. 8."""

from __future__ import annotations

from .. import joints as J
from ..model import Model, ModelBuilder
from ..spatial import Inertia, Transform

LENGTH = 12.0
"""Overall length of the pendulum (m)."""
BASE_HEIGHT = 10.0
"""Height of the base hinge (m)."""
LINK_MASS = 1.0
GRAVITY = 9.8


def pendulum(n: int, scene: str | None = None) -> Model:
    """``n`` identical 1 kg solid spheres on pin hinges (Jain 2014 Sec. 8): radius ``6/n``, centres
    ``12/n`` apart, 12 m overall, base hinge at 10 m height, hinge axes along world y, gravity 9.8.

    Body ``i``'s frame is at its hinge (the top of sphere ``i``); ``q = 0`` hangs straight down and
    positive angles swing the spheres towards -x. Frames: ``"link{i}"`` (hinges), ``"ball{i}"`` (sphere
    centres) and ``"tip"`` (bottom of the last sphere).
    """
    if int(n) != n or n < 1:
        raise ValueError(f"n must be a positive integer, got {n!r}")
    if scene is not None:
        raise ValueError(f"scene: unknown scene {scene!r} (available: None)")
    n = int(n)
    r = 0.5 * LENGTH / n
    b = ModelBuilder(f"pendulum{n}", gravity=(0.0, 0.0, -GRAVITY))
    for i in range(n):
        placement = Transform.from_pose(None, (0.0, 0.0, BASE_HEIGHT) if i == 0 else (0.0, 0.0, -2.0 * r))
        b.add_body(f"link{i}", "world" if i == 0 else f"link{i - 1}", J.Revolute((0.0, 1.0, 0.0)), placement,
                   Inertia.sphere(LINK_MASS, r, com=(0.0, 0.0, -r)), joint_name=f"hinge{i}")
        b.add_frame(f"ball{i}", f"link{i}", Transform.from_pose(None, (0.0, 0.0, -r)))
    b.add_frame("tip", f"link{n - 1}", Transform.from_pose(None, (0.0, 0.0, -2.0 * r)))
    return b.finalize()
