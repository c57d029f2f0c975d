"""The force-closure grasp of Drumwright 2015, Sec. VII-A, Fig. 1: two gripper boxes on prismatic joints push
inward on two free boxes held side by side under gravity, with no floor under them."""

from __future__ import annotations

import numpy as np

from .. import joints as J
from ..builder import ModelBuilder
from ..model import Model
from ..spatial import Inertia, Transform

__all__ = ["grasp_scene", "grasp_start", "GRASP_BODIES", "GRASP_PAIRS", "CONTACT_GENERATIONS"]

HALF_SIZE = 0.05
"""Half-extent of every box (m): four equal 10 cm cubes, as the equal boxes of Fig. 1."""
BOX_MASS = 1.0
"""Mass of each grasped box (kg)."""
GRIPPER_MASS = 1.0
"""Mass of each gripper box (kg)."""
MU = 100.0
"""Friction coefficient of every geom (the paper's mu_c = 100)."""
MARGIN = 1e-3
"""Contact margin of every geom (m): a pair is reported from a 2 mm gap on, so that the faces touching at
the start (gap zero up to round-off) are found in the first step."""
GRIP_FORCE = 50.0
"""Inward force on each gripper joint (N): five times the 9.81 N that friction must carry per gripper (the
two boxes weigh 19.6 N and each gripper holds half), so ``mu >= 0.2`` suffices under Coulomb friction."""
GRASP_BODIES = ("gripper_l", "gripper_r", "box_l", "box_r")
"""Bodies in index order; each carries one box geom of its own name."""
GRASP_PAIRS = (("box_l", "gripper_l"), ("box_r", "box_l"), ("box_r", "gripper_r"))
"""The three touching pairs (Drumwright's 12 contact points each, 36 in all)."""
CONTACT_GENERATIONS = {"corners": 4, "rpisim": 12}
"""Contact generations of :func:`grasp_scene` -> contacts per touching pair at the start."""


def grasp_scene(half_size: float = HALF_SIZE, box_mass: float = BOX_MASS, gripper_mass: float = GRIPPER_MASS,
                mu: float = MU, margin: float = MARGIN, contacts: str = "corners") -> Model:
    """Drumwright 2015 Fig. 1 along world x, gravity ``-z`` (9.81): ``gripper_l`` and ``gripper_r`` slide on
    prismatic joints ``slide_l``, ``slide_r`` (axis x) with their centres at ``x = -/+ 3 h``; the free boxes
    ``box_l``, ``box_r`` (free joints) sit between them at ``x = -/+ h`` (``h = half_size``), so at the
    neutral configuration the faces at ``x = -2h, 0, 2h`` touch. All four are cubes of half-extent ``h`` with
    box geoms of friction ``mu`` and margin ``margin``; no floor and no world geom. The two grippers do not
    collide with each other; the pairs box-far gripper are kept (they never meet while the grasp holds).

    ``contacts``: how a touching pair of faces is turned into contacts (:data:`CONTACT_GENERATIONS`):
    ``"corners"``, the face clipping's 4 corner points with the face normal (12 contacts in all);
    ``"rpisim"``, the paper's simulator: each of the 4 corners with all three normals of the corner
    (``corner_normals`` geoms; Sec. VII-A, footnote 3), 12 contacts per pair and 36 in all.

    The neutral configuration is the start; the free joints' positions are then the boxes' displacements
    from their start (``q[jnt_qadr + 2]`` the drop in height). Drive the grippers with
    :func:`grasp_start`'s joint forces."""
    if contacts not in CONTACT_GENERATIONS:
        raise ValueError(f"contacts: expected one of {tuple(CONTACT_GENERATIONS)}, got {contacts!r}")
    for name, x in (("half_size", half_size), ("box_mass", box_mass), ("gripper_mass", gripper_mass)):
        if not (isinstance(x, (int, float)) and np.isfinite(x) and x > 0):
            raise ValueError(f"{name}: expected a finite number > 0, got {x!r}")
    h = float(half_size)
    b = ModelBuilder("drumwright_grasp")
    side = (2 * h, 2 * h, 2 * h)
    for name, x, m in (("gripper_l", -3 * h, gripper_mass), ("gripper_r", 3 * h, gripper_mass)):
        b.add_body(name, "world", J.Prismatic((1.0, 0.0, 0.0)), Transform.from_pose(None, (x, 0.0, 0.0)),
                   Inertia.box(float(m), side), joint_name=f"slide_{name[-1]}")
    for name, x in (("box_l", -h), ("box_r", h)):
        b.add_body(name, "world", J.Free(), Transform.from_pose(None, (x, 0.0, 0.0)),
                   Inertia.box(float(box_mass), side),
                   joint_name=f"{name}_free")
    for name in GRASP_BODIES:
        b.add_geom(name, name, "box", (h, h, h), mu=mu, margin=margin, corner_normals=contacts == "rpisim")
    b.exclude_pair("gripper_l", "gripper_r")
    return b.finalize()


def grasp_start(model: Model, force: float = GRIP_FORCE) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(q0, qd0, tau)`` of the grasp: the neutral configuration at rest, and the constant joint forces
    pushing each gripper inward with ``force`` (N, >= 0)."""
    if not (isinstance(force, (int, float)) and np.isfinite(force) and force >= 0):
        raise ValueError(f"force: expected a finite number >= 0, got {force!r}")
    tau = np.zeros(model.nv)
    tau[model.jnt_vadr[model.body_id("gripper_l")]] = force
    tau[model.jnt_vadr[model.body_id("gripper_r")]] = -force
    return model.neutral_q(), np.zeros(model.nv), tau
