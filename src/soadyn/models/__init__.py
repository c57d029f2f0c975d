"""The model zoo: random trees for tests, the papers' benchmark systems and example robots."""

from .auto_tree import ALL_JOINTS, auto_tree
from .dual_arm import dual_arm
from .humanoid import humanoid24, humanoid24_posture
from .pendulum import pendulum, pendulum_start
from .robots import robot, robot_urdf

__all__ = ["auto_tree", "ALL_JOINTS", "pendulum", "pendulum_start", "humanoid24", "humanoid24_posture", "robot", "robot_urdf", "dual_arm"]
from .mechanisms import *  # noqa: E402,F401,F403  closed-chain mechanisms (Jain 2012 Sec. 4), see mechanisms.__all__
from .rover import hub_forces, ler_initial_state, ler_rover  # noqa: E402,F401  the LER rover (Jain 2012 Sec. 5)

__all__ += ["ler_rover", "ler_initial_state", "hub_forces"]
from .grasp import grasp_scene, grasp_start  # noqa: E402,F401  the grasp of Drumwright 2015 Sec. VII-A

__all__ += ["grasp_scene", "grasp_start"]
from . import scenes  # noqa: E402,F401  contact scenes with closed-form checks (sd.models.scenes)
from .scenes import (box_on_incline, box_pyramid, box_stack, ball_drop, newtons_cradle, rolling_capsule,  # noqa: E402,F401
                     rolling_sphere, sliding_sphere, solo12_dropped, solo12_standing, staggered_offsets)

__all__ += ["scenes", "ball_drop", "newtons_cradle", "box_on_incline", "rolling_sphere", "rolling_capsule",
            "sliding_sphere", "box_stack", "staggered_offsets", "box_pyramid", "solo12_standing", "solo12_dropped"]
