"""The MuJoCo pendulum scene of ``soadyn bench contact`` (Jain 2014 Sec. 8): geometry and a short run."""

from __future__ import annotations

import math

import numpy as np
import pytest

import soadyn as sd
from soadyn.bench import contact_mujoco as cm
from tests.support import EXTERNAL, assert_close

mujoco = pytest.importorskip("mujoco")
pytestmark = pytest.mark.external


@pytest.mark.parametrize("n", [3, 12])
def test_scene_geometry(n):
    m = mujoco.MjModel.from_xml_string(cm.mujoco_pendulum_xml(n))
    d = mujoco.MjData(m)
    r = 6.0 / n
    assert (m.nbody, m.njnt, m.nv, m.ngeom) == (n + 1, n, n, n + 2)
    assert m.opt.timestep == 1e-3 and m.opt.cone == mujoco.mjtCone.mjCONE_PYRAMIDAL
    assert_close(m.opt.gravity, [0.0, 0.0, -9.8], 0.0, "gravity")
    balls = [m.geom(f"ball{i}").id for i in range(n)]
    assert_close(m.geom_size[balls, 0], np.full(n, r), 0.0, "radii 6/n")
    assert_close(m.body_mass[1:], np.ones(n), 1e-12, "1 kg links")
    assert_close(m.body_inertia[1:], np.full((n, 3), 0.4 * r * r), 1e-9, "solid spheres")
    assert np.all(m.geom_friction[:, 0] == 0.5) and np.all(m.geom_condim == 3)
    assert np.all(m.jnt_type == mujoco.mjtJoint.mjJNT_HINGE)
    assert_close(m.jnt_axis, np.tile([0.0, 1.0, 0.0], (n, 1)), 0.0, "hinge axes along y")
    # planes: the floor z = 0 facing up, the wall x = 4 facing -x
    mujoco.mj_forward(m, d)
    floor, wall = m.geom("floor").id, m.geom("wall").id
    assert m.geom_type[floor] == m.geom_type[wall] == mujoco.mjtGeom.mjGEOM_PLANE
    assert_close(d.geom_xpos[floor], [0, 0, 0], 0.0, "floor position")
    assert_close(d.geom_xmat[floor].reshape(3, 3)[:, 2], [0, 0, 1], 1e-12, "floor normal")
    assert_close(d.geom_xpos[wall], [4, 0, 0], 0.0, "wall position")
    assert_close(d.geom_xmat[wall].reshape(3, 3)[:, 2], [-1, 0, 0], 1e-12, "wall normal")
    # hanging straight: centres 12/n apart below the base hinge at 10 m; 12 m overall
    assert_close(d.geom_xpos[balls], np.column_stack([np.zeros(n), np.zeros(n), 10.0 - r - 2 * r * np.arange(n)]),
                 1e-12, "sphere centres")
    # the same kinematics as soadyn's pendulum model at the start state, the wall on the swing side
    d.qpos[0] = math.pi / 4
    mujoco.mj_forward(m, d)
    model = sd.models.pendulum(n)
    data = model.data()
    q = np.zeros(n)
    q[0] = math.pi / 4
    for i in range(n):
        assert_close(d.geom_xpos[balls[i]], sd.frame_pose(model, data, q, f"ball{i}")[:3, 3], EXTERNAL, f"ball {i}")
    assert d.geom_xpos[balls[-1], 0] < 0.0 < 4.0


def test_scene_runs_and_hits_the_floor():
    r = cm.run_mujoco_pendulum(3, duration=1.5)
    h, v = r["last_link_height"], r["last_link_normal_velocity"]
    assert h.shape == v.shape == (1501,) and r["wall_s"] > 0
    assert_close(h[0], 10.0 - 10.0 * math.cos(math.pi / 4), 1e-12, "start height")
    assert_close(v[0], -10.0 * math.sin(math.pi / 4), 1e-9, "start normal velocity (1 rad/s toward the wall)")
    assert h.min() > 2.0 - 0.1, "the last sphere (radius 2) stays on the floor"
    assert h.min() < 2.05, "and reaches it"
    assert 0.0 < r["max_penetration"] < 0.1


def test_bad_input():
    with pytest.raises(ValueError, match="n"):
        cm.mujoco_pendulum_xml(0)
    with pytest.raises(ValueError, match="duration"):
        cm.run_mujoco_pendulum(3, duration=-1.0)
