"""MuJoCo's side of ``soadyn bench contact``: the multi-link pendulum scene of Jain 2014 Sec. 8 in MJCF.

``n`` identical 1 kg solid spheres on pin hinges (axis world y, perpendicular to the swing plane x-z),
12 m overall: radius ``6/n``, centres ``12/n`` apart, the base hinge at ``(0, 0, 10)``; a floor (plane
``z = 0``) and a wall (plane ``x = 4``, facing -x, towards the pendulum). Friction 0.5 on every geom,
gravity 9.8, 1 ms steps, pyramidal friction cones (``cone="pyramidal"``, ``condim=3``), as the LCP's
pyramid. The pendulum starts at pi/4 from the vertical on the side away from the wall (``qpos[0] = pi/4``:
a positive angle about +y swings the links towards -x, as in :func:`soadyn.models.pendulum`) with
1 rad/s at the base hinge towards the wall (``qvel[0] = -1``). Self-collision is between non-adjacent links
only: MuJoCo filters parent-child contacts (``filterparent``), and adjacent links are parent and child.

Contact model: MuJoCo's soft contact with its defaults, ``solref="0.02 1"`` (20 ms time constant,
critically damped: no bounce, there is no restitution coefficient) and ``solimp="0.9 0.95 0.001 0.5 2"``.
The constraint is soft, so bodies penetrate a little; :func:`run_mujoco_pendulum` reports the largest
penetration, the measure of how far this is from the hard contact of the LCP formulations.
"""

from __future__ import annotations

import math
import time

import numpy as np

__all__ = ["mujoco_pendulum_xml", "run_mujoco_pendulum", "LENGTH", "BASE_HEIGHT", "WALL_X", "MU", "DT"]

LENGTH = 12.0
BASE_HEIGHT = 10.0
WALL_X = 4.0
MU = 0.5
DT = 1e-3
GRAVITY = 9.8
SOLREF = "0.02 1"
SOLIMP = "0.9 0.95 0.001 0.5 2"


def mujoco_pendulum_xml(n: int, elliptic: bool = False) -> str:
    """The MJCF of the n-link pendulum scene (module docstring); ``elliptic=True`` uses elliptic cones."""
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 1:
        raise ValueError(f"n: expected a positive integer, got {n!r}")
    r = 0.5 * LENGTH / n
    cone = "elliptic" if elliptic else "pyramidal"
    body, close = [], []
    for i in range(n):
        pos = f"0 0 {BASE_HEIGHT:g}" if i == 0 else f"0 0 {-2 * r!r}"
        ind = "    " * (i + 2)
        body.append(f'{ind}<body name="link{i}" pos="{pos}">\n'
                    f'{ind}  <joint name="hinge{i}" type="hinge" axis="0 1 0" pos="0 0 0"/>\n'
                    f'{ind}  <geom name="ball{i}" type="sphere" size="{r!r}" pos="0 0 {-r!r}" mass="1"/>\n')
        close.append(f"{ind}</body>\n")
    tree = "".join(body) + "".join(reversed(close))
    return f"""<mujoco model="jain2014_pendulum{n}">
  <option timestep="{DT:g}" gravity="0 0 {-GRAVITY:g}" cone="{cone}"/>
  <default>
    <geom condim="3" friction="{MU:g} 0.005 0.0001" solref="{SOLREF}" solimp="{SOLIMP}"/>
  </default>
  <worldbody>
    <geom name="floor" type="plane" pos="0 0 0" size="0 0 1"/>
    <geom name="wall" type="plane" pos="{WALL_X:g} 0 0" zaxis="-1 0 0" size="0 0 1"/>
{tree}  </worldbody>
</mujoco>
"""


def run_mujoco_pendulum(n: int, duration: float = 5.0, elliptic: bool = False) -> dict:
    """Simulate the scene for ``duration`` seconds. ``wall_s``: the wall time of the stepping alone (one
    ``mj_step(..., nstep)`` call); a second, recorded run (same trajectory) gives the last link's centre
    height ``last_link_height`` and vertical (floor-normal) velocity ``last_link_normal_velocity`` per state
    (``steps + 1`` entries, from t = 0) and ``max_penetration`` (m), the largest contact depth."""
    import mujoco

    if not (np.isfinite(duration) and duration > 0):
        raise ValueError(f"duration: expected a finite time > 0, got {duration!r}")
    model = mujoco.MjModel.from_xml_string(mujoco_pendulum_xml(n, elliptic))
    steps = int(round(duration / DT))

    def start():
        d = mujoco.MjData(model)
        d.qpos[0] = math.pi / 4
        d.qvel[0] = -1.0
        mujoco.mj_forward(model, d)
        return d

    d = start()
    t0 = time.perf_counter()
    mujoco.mj_step(model, d, nstep=steps)
    wall = time.perf_counter() - t0
    d = start()
    last = model.body(f"link{n - 1}").id
    ball = model.geom(f"ball{n - 1}").id
    height = np.empty(steps + 1)
    vz = np.empty(steps + 1)
    vel = np.zeros(6)
    pen = 0.0
    for k in range(steps + 1):
        if k:
            mujoco.mj_step(model, d)
        height[k] = d.geom_xpos[ball, 2]
        mujoco.mj_objectVelocity(model, d, mujoco.mjtObj.mjOBJ_GEOM, ball, vel, 0)  # [w; v] world axes
        vz[k] = vel[5]
        if d.ncon:
            pen = max(pen, float(-d.contact.dist[:d.ncon].min()))
    return {"n": int(n), "steps": steps, "wall_s": wall, "max_penetration": pen, "last_link_height": height,
            "last_link_normal_velocity": vz, "body": int(last)}
