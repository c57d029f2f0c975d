"""Robots shipped by the ``example-robot-data`` package (installed with ``soadyn[test]``).

Their URDFs are loaded with ``mimic="independent"``: the Panda and Talos grippers declare ``<mimic>``
joints, which are loaded as ordinary joints, as Pinocchio's ``buildModelFromUrdf`` does by default.
"""

from __future__ import annotations

import functools
from pathlib import Path

from ..model import Model

ROBOTS = {
    "ur5": ("ur_description/urdf/ur5_robot.urdf", False),
    "panda": ("panda_description/urdf/panda.urdf", False),
    "solo12": ("solo_description/robots/solo12.urdf", True),
    "anymal": ("anymal_c_simple_description/urdf/anymal.urdf", True),
    "talos": ("talos_data/robots/talos_reduced.urdf", True),
    "talos_full": ("talos_data/robots/talos_full_v2.urdf", True),
}
"""name -> (path under example-robot-data's ``robots/`` folder, floating base by default)."""


@functools.lru_cache(maxsize=1)
def _robots_dir() -> Path:
    from importlib import metadata

    try:
        dist = metadata.distribution("example-robot-data")
    except metadata.PackageNotFoundError:
        raise ValueError("example-robot-data is not installed: pip install example-robot-data "
                         "(or soadyn[test])") from None
    for f in dist.files or ():
        parts = Path(str(f)).parts
        if "example-robot-data" in parts and "robots" in parts:
            root = Path(dist.locate_file(f)).resolve()
            while root.name != "robots":
                root = root.parent
            return root
    raise ValueError("example-robot-data is installed but its robots/ folder was not found")


def robot_urdf(name: str) -> Path:
    """Path of the URDF of an example-robot-data robot (``ur5``, ``panda``, ``solo12``, ``talos``, ...)."""
    if name not in ROBOTS:
        raise ValueError(f"unknown robot {name!r}; available: {sorted(ROBOTS)}")
    return _robots_dir() / ROBOTS[name][0]


def robot(name: str, floating_base: bool | None = None) -> Model:
    """Load an example-robot-data robot (``floating_base`` defaults to the robot's usual base)."""
    from ..io.urdf import load_urdf

    path = robot_urdf(name)
    fb = ROBOTS[name][1] if floating_base is None else bool(floating_base)
    return load_urdf(path, floating_base=fb, name=name, mimic="independent")
