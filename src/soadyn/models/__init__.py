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
