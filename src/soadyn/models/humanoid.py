"""A 24-link branching humanoid with one-dof joints and two operational points (Chang-Khatib 2000 Sec. 5)."""

from __future__ import annotations

import numpy as np

from .. import joints as J
from ..builder import ModelBuilder
from ..model import Model
from ..spatial import Inertia, Transform

X, Y, Z = (1.0, 0.0, 0.0), (0.0, 1.0, 0.0), (0.0, 0.0, 1.0)


def _segment(mass: float, length: float, radius: float, direction=-1.0) -> Inertia:
    """A solid cylinder along z from the joint (``direction=-1``: hanging down)."""
    return Inertia.cylinder(mass, radius, length, com=(0.0, 0.0, direction * 0.5 * length))


def humanoid24() -> Model:
    """24 one-dof links rooted at the stance (left) foot, which is fixed to the ground.

    Chain from the foot: left ankle roll/pitch, knee, hip pitch/roll/yaw up to the pelvis; from the pelvis:
    the right leg (hip yaw/roll/pitch, knee, ankle pitch/roll), the waist (yaw, pitch, roll) to the torso,
    the neck (yaw), and two arms (shoulder pitch/roll/yaw, elbow). Operational points: frames
    ``"left_hand"`` and ``"right_hand"`` at the finger tips (forearm and hand 0.45 m, reach 0.75 m). About
    62 kg; the shoulders stand 1.47 m high.
    Joint names follow the links (``"l_knee"``, ``"waist_pitch"``, ...); ``q = 0`` stands straight with
    arms hanging; :func:`humanoid24_posture` is a relaxed initial posture.
    """
    b = ModelBuilder("humanoid24", gravity=(0.0, 0.0, -9.81))
    shin, thigh, foot_h, hip_w = 0.42, 0.42, 0.08, 0.1
    small = Inertia.sphere(0.3, 0.04)

    def body(name, parent, axis, xyz, inertia):
        b.add_body(name, parent, J.Revolute(axis), Transform.from_pose(None, xyz), inertia, joint_name=name)

    # stance leg, from the ground up (links point upwards)
    body("l_ankle_roll", "world", X, (0.0, hip_w, foot_h), small)
    body("l_ankle_pitch", "l_ankle_roll", Y, (0.0, 0.0, 0.0), _segment(3.0, shin, 0.05, +1.0))
    body("l_knee", "l_ankle_pitch", Y, (0.0, 0.0, shin), _segment(6.0, thigh, 0.07, +1.0))
    body("l_hip_pitch", "l_knee", Y, (0.0, 0.0, thigh), small)
    body("l_hip_roll", "l_hip_pitch", X, (0.0, 0.0, 0.0), small)
    body("l_hip_yaw", "l_hip_roll", Z, (0.0, 0.0, 0.0),
         Inertia.box(8.0, (0.2, 0.3, 0.15), com=(0.0, -hip_w, 0.05)))  # carries the pelvis
    # swing leg
    body("r_hip_yaw", "l_hip_yaw", Z, (0.0, -2 * hip_w, 0.0), small)
    body("r_hip_roll", "r_hip_yaw", X, (0.0, 0.0, 0.0), small)
    body("r_hip_pitch", "r_hip_roll", Y, (0.0, 0.0, 0.0), _segment(6.0, thigh, 0.07))
    body("r_knee", "r_hip_pitch", Y, (0.0, 0.0, -thigh), _segment(3.0, shin, 0.05))
    body("r_ankle_pitch", "r_knee", Y, (0.0, 0.0, -shin), small)
    body("r_ankle_roll", "r_ankle_pitch", X, (0.0, 0.0, 0.0), Inertia.box(1.0, (0.2, 0.1, 0.05), com=(0.03, 0, -0.05)))
    # waist and torso
    body("waist_yaw", "l_hip_yaw", Z, (0.0, -hip_w, 0.1), small)
    body("waist_pitch", "waist_yaw", Y, (0.0, 0.0, 0.0), small)
    body("waist_roll", "waist_pitch", X, (0.0, 0.0, 0.0), Inertia.box(20.0, (0.2, 0.35, 0.5), com=(0.0, 0.0, 0.25)))
    body("neck_yaw", "waist_roll", Z, (0.0, 0.0, 0.55), Inertia.sphere(4.0, 0.1, com=(0.0, 0.0, 0.1)))
    # arms
    for side, s in (("l", 1.0), ("r", -1.0)):
        body(f"{side}_shoulder_pitch", "waist_roll", Y, (0.0, s * 0.2, 0.45), small)
        body(f"{side}_shoulder_roll", f"{side}_shoulder_pitch", X, (0.0, 0.0, 0.0), small)
        body(f"{side}_shoulder_yaw", f"{side}_shoulder_roll", Z, (0.0, 0.0, 0.0), _segment(2.0, 0.3, 0.04))
        body(f"{side}_elbow", f"{side}_shoulder_yaw", Y, (0.0, 0.0, -0.3), _segment(1.8, 0.45, 0.035))
        b.add_frame("left_hand" if side == "l" else "right_hand", f"{side}_elbow",
                    Transform.from_pose(None, (0.0, 0.0, -0.45)))
    return b.finalize()


def humanoid24_posture(model: Model) -> np.ndarray:
    """A relaxed standing posture: knees and hips slightly bent, elbows at 60 degrees, arms forward."""
    q = model.neutral_q()
    values = {"l_ankle_pitch": 0.3, "l_knee": -0.6, "l_hip_pitch": 0.3, "r_hip_pitch": -0.3, "r_knee": 0.6,
              "r_ankle_pitch": -0.3, "l_shoulder_pitch": -0.4, "r_shoulder_pitch": -0.4, "l_shoulder_roll": 0.15,
              "r_shoulder_roll": -0.15, "l_elbow": -1.0, "r_elbow": -1.0}
    for name, val in values.items():
        q[model.jnt_qadr[model.joint_id(name)]] = val
    return q
