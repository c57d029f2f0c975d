"""The dual-arm robot of Jain 2014, Fig. 1 and Table 1: 26 links, 26 revolute dofs, no loops.

A fixed torso (the world) carries a 4-link sensor head and two 7-link arms; each arm ends in a 4-link hand
(the paper's "3 finger hand": a palm link and three one-link fingers, so that the link count is the
paper's 26). Dimensions and masses are plausible for a human-sized manipulator (m, kg); they do not affect
the LCP sizes of Table 1.

Zero configuration: the head points up (+z), the arms reach forward (+x) from shoulders at
``y = +-SHOULDER_Y`` and the fingers continue along +x. Frames: every link, ``"head_sensor"``, and
``"{side}_finger{k}_tip"`` for ``side`` in (left, right), ``k`` in (0, 1, 2).
"""

from __future__ import annotations

import numpy as np

from .. import joints as J
from ..builder import ModelBuilder
from ..model import Model
from ..spatial import Inertia, Transform

__all__ = ["dual_arm", "ARM", "HEAD", "FINGERS", "SHOULDER_Y", "SHOULDER_Z"]

SHOULDER_Y = 0.25
"""Lateral offset of the shoulders from the torso's mid-plane (m)."""
SHOULDER_Z = 0.45
"""Height of the shoulders above the torso frame (m)."""
X, Y, Z = np.eye(3)

HEAD = (("neck_yaw", Z, 0.10, 1.5), ("neck_pitch", Y, 0.08, 1.0), ("head_roll", X, 0.08, 1.0),
        ("sensor_tilt", Y, 0.12, 2.0))
"""Head links: (name, joint axis, length along z (m), mass (kg)), base at ``(0, 0, 0.6)``."""
ARM = (("shoulder_yaw", Z, 0.08, 2.5), ("shoulder_pitch", Y, 0.08, 2.5), ("upper_arm_roll", X, 0.30, 2.0),
       ("elbow_pitch", Y, 0.28, 1.5), ("wrist_roll", X, 0.06, 0.6), ("wrist_pitch", Y, 0.06, 0.5),
       ("wrist_yaw", Z, 0.05, 0.4))
"""Arm links: (name, joint axis, length along x (m), mass (kg)) from the shoulder outwards."""
PALM = ("palm_roll", X, 0.09, 0.4)
"""The hand's palm: (name, joint axis, length along x, mass)."""
FINGERS = ((0.03, 0.07), (0.0, 0.08), (-0.03, 0.07))
"""Finger links: (lateral offset at the palm's tip, outwards from the torso's mid-plane (m), length along
x (m)) for fingers 0, 1, 2; each bends about the palm's y axis; 0.05 kg each."""


def _link(mass: float, length: float, axis: np.ndarray) -> Inertia:
    """A slender box of ``length`` along ``axis`` (x or z) from the link frame, 6 cm thick."""
    size = 0.06 * np.ones(3) + (length - 0.06) * axis
    return Inertia.box(mass, size, com=0.5 * length * axis)


def _chain(b: ModelBuilder, parent: str, prefix: str, links, along: np.ndarray, base: Transform) -> str:
    placement = base
    for name, axis, length, mass in links:
        body = f"{prefix}{name}"
        b.add_body(body, parent, J.Revolute(axis), placement, _link(mass, length, along), joint_name=f"{body}_joint")
        parent = body
        placement = Transform.from_pose(None, length * along)
    return parent


def dual_arm() -> Model:
    """The 26-link, 26-dof dual-arm robot of Jain 2014 Fig. 1 (Table 1's reference system): a 4-link head
    (:data:`HEAD`), two 7-link arms (:data:`ARM`) and two hands of a palm and three fingers, all revolute,
    on a fixed torso."""
    b = ModelBuilder("dual_arm", gravity=(0.0, 0.0, -9.81))
    tip = _chain(b, "world", "head_", HEAD, Z, Transform.from_pose(None, (0.0, 0.0, 0.6)))
    b.add_frame("head_sensor", tip, Transform.from_pose(None, (0.05, 0.0, HEAD[-1][2])))
    for side, sign in (("left", 1.0), ("right", -1.0)):
        wrist = _chain(b, "world", f"{side}_", ARM, X, Transform.from_pose(None, (0.0, sign * SHOULDER_Y,
                                                                                   SHOULDER_Z)))
        palm = _chain(b, wrist, f"{side}_", (PALM,), X, Transform.from_pose(None, (ARM[-1][2], 0.0, 0.0)))
        for k, (dy, length) in enumerate(FINGERS):
            finger = f"{side}_finger{k}"
            b.add_body(finger, palm, J.Revolute(Y), Transform.from_pose(None, (PALM[2], sign * dy, 0.0)),
                       _link(0.05, length, X), joint_name=f"{finger}_joint")
            b.add_frame(f"{finger}_tip", finger, Transform.from_pose(None, (length, 0.0, 0.0)))
    return b.finalize()
