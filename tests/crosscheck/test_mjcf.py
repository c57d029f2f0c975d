"""MJCF import (``soadyn.io.mjcf``) against MuJoCo itself.

Every model shipped in dm_control's suite is compiled once by MuJoCo and loaded by soadyn; at two random
states the mass matrix ``T^T M T`` (``mj_fullM``), the bias ``T^T rnea(q, qd, Tdot qvel)`` (``qfrc_bias``)
and the passive joint forces (``qfrc_passive``) agree to ``ALGORITHMS`` (1e-9 relative), where ``T`` maps
MuJoCo's velocities to soadyn's (``velocity_map``: a free joint's world linear velocity becomes body-frame)
and ``Tdot qvel`` is the resulting ``-w x v`` acceleration term of free joints. Measured: about 1e-15.

Models with features soadyn cannot represent are refused by default with the feature and its MuJoCo names
in the message; loaded with ``unsupported="warn"`` they are compared with those features removed from
MuJoCo's side too (fluid forces and acting tendons left out of the passive check). Joint armature (on
cheetah, dog, hopper, humanoid, humanoid_CMU, quadruped, walker) is part of M on both sides, and ``aba``
agrees with ``M^-1 (tau - bias)`` from MuJoCo's M and bias.
"""

import os
import warnings

import numpy as np
import pytest

import soadyn as sd
from soadyn import joints as J
from soadyn.io.mjcf import from_mjmodel, load_mjcf, state_from_mujoco, velocity_map
from soadyn.model import ModelError
from tests.support import ALGORITHMS, assert_close

mujoco = pytest.importorskip("mujoco")
pytestmark = pytest.mark.external

STATES = 2  # random states per model

# dm_control suite model -> what the default import refuses (None: loads as it is)
SUITE = {
    "acrobot": None,
    "ball_in_cup": "tendons with stiffness",
    "cartpole": None,
    "cheetah": None,
    "dog": "collision geoms of type ellipsoid",
    "finger": "joint frictionloss",
    "fish": "fluid forces",
    "hopper": None,
    "humanoid": None,
    "humanoid_CMU": "collision geoms of type ellipsoid",
    "manipulator": "equality constraints",
    "pendulum": None,
    "point_mass": None,
    "quadruped": "equality constraints",
    "reacher": None,
    "stacker": "equality constraints",
    "swimmer": "fluid forces",
    "walker": None,
}


def _suite_path(name: str) -> str:
    suite = pytest.importorskip("dm_control.suite")
    return os.path.join(os.path.dirname(suite.__file__), f"{name}.xml")


def _random_qpos(m, rng) -> np.ndarray:
    qpos = np.array(m.qpos0)
    for j in range(m.njnt):
        a, t = m.jnt_qposadr[j], m.jnt_type[j]
        if t == mujoco.mjtJoint.mjJNT_FREE:
            qpos[a:a + 3] = rng.uniform(-1.0, 1.0, 3)
            a += 3
        if int(t) in (mujoco.mjtJoint.mjJNT_FREE, mujoco.mjtJoint.mjJNT_BALL):
            quat = rng.normal(size=4)
            qpos[a:a + 4] = quat / np.linalg.norm(quat)
        else:
            qpos[a] = rng.uniform(-1.0, 1.0)
    return qpos


def compare_with_mujoco(model, m, rng, passive: bool = True) -> None:
    """M, bias (and passive forces) of ``model`` against MuJoCo's ``m`` at ``STATES`` random states."""
    md, data = mujoco.MjData(m), model.data()
    for _ in range(STATES):
        md.qpos[:] = _random_qpos(m, rng)
        md.qvel[:] = rng.normal(size=m.nv)
        mujoco.mj_forward(m, md)
        M_mj = np.zeros((m.nv, m.nv))
        mujoco.mj_fullM(m, md, M_mj)
        q, qd = state_from_mujoco(model, md.qpos, md.qvel)
        T = velocity_map(model, q)
        qdd = np.zeros(model.nv)  # Tdot qvel: the body-frame linear velocity turns with the body
        for i in np.flatnonzero(model.jnt_type == J.FREE):
            v = model.jnt_vadr[i]
            qdd[v + 3:v + 6] = -np.cross(qd[v:v + 3], qd[v + 3:v + 6])
        assert_close(T.T @ sd.crba(model, data, q) @ T, M_mj, ALGORITHMS, f"{model.name}: M vs mj_fullM",
                     scale=np.abs(M_mj).max())
        assert_close(T.T @ sd.rnea(model, data, q, qd, qdd), md.qfrc_bias, ALGORITHMS,
                     f"{model.name}: bias vs qfrc_bias")
        # forward dynamics: MuJoCo's qacc_smooth-style M^-1 (tau - bias) in MuJoCo's coordinates, mapped
        # to soadyn's accelerations qdd = T qacc + Tdot qvel
        tau_mj = rng.normal(size=m.nv)
        qacc = np.linalg.solve(M_mj, tau_mj - md.qfrc_bias)
        tau = np.linalg.solve(T.T, tau_mj)
        assert_close(sd.aba(model, data, q, qd, tau), T @ qacc + qdd, ALGORITHMS,
                     f"{model.name}: aba vs M^-1 (tau - qfrc_bias)", scale=max(1.0, np.abs(qacc).max()))
        if passive:
            assert_close(T.T @ model.passive_forces(q, qd), md.qfrc_passive, ALGORITHMS,
                         f"{model.name}: passive forces vs qfrc_passive")


@pytest.mark.parametrize("name", sorted(SUITE))
def test_dm_control_suite(name, rng):
    path = _suite_path(name)
    m = mujoco.MjModel.from_xml_path(path)  # compiled once: soadyn maps the compiled model
    refused = SUITE[name]
    if refused is not None:
        with pytest.raises(ModelError, match=refused):
            from_mjmodel(m, source=path)
        with pytest.warns(UserWarning, match=refused):
            model = from_mjmodel(m, source=path, unsupported="warn")
    else:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # actuators are ignored with a warning
            model = from_mjmodel(m, source=path)
    assert model.timestep == m.opt.timestep
    compare_with_mujoco(model, m, rng, passive=refused not in ("fluid forces", "tendons with stiffness"))


# a hand-written model with every supported joint, anchors away from the body origin, hinge and slide refs,
# several joints on one body, springs, armature (hinge, ball), sites and a collision filter of each kind
MJCF = """
<mujoco model="mix">
  <option timestep="0.004" gravity="0.5 -1 -9"/>
  <worldbody>
    <geom name="floor" type="plane" size="0 0 1"/>
    <body name="base" pos="0.1 0.2 1" quat="0.9 0.1 0.3 0.2">
      <freejoint name="root"/>
      <geom name="torso" type="box" size="0.2 0.1 0.05" density="800"/>
      <body name="arm" pos="0.3 0 0" euler="10 20 30">
        <joint name="h" type="hinge" axis="0.3 1 0.2" pos="0.05 0.02 -0.01" ref="0.4" damping="0.3"
               stiffness="2" springref="0.1" armature="0.02"/>
        <joint name="s" type="slide" axis="1 0 0.5" pos="0.01 0 0" ref="0.05" damping="0.2"/>
        <geom name="upper" type="capsule" fromto="0 0 0 0.3 0 0" size="0.04" contype="2" conaffinity="2"/>
        <site name="tip" pos="0.3 0 0"/>
        <body name="hand" pos="0.3 0 0">
          <joint name="b" type="ball" pos="0.02 0.01 0" armature="0.01"/>
          <geom name="ball" type="sphere" size="0.05" pos="0.1 0 0" friction="0.9"/>
          <geom name="ghost" type="sphere" size="0.05" contype="0" conaffinity="0" mass="0.3"/>
        </body>
      </body>
    </body>
    <body name="box" pos="1 1 0.5">
      <joint type="free"/>
      <geom name="cube" type="box" size="0.1 0.1 0.1" mass="2" contype="4" conaffinity="1"/>
    </body>
  </worldbody>
  <contact><exclude body1="base" body2="box"/></contact>
</mujoco>
"""


@pytest.fixture
def mix(tmp_path):
    path = tmp_path / "mix.xml"
    path.write_text(MJCF)
    return str(path)


def test_hand_written_model(mix, rng):
    model = sd.Model.from_mjcf(mix)
    m = mujoco.MjModel.from_xml_path(mix)
    assert model.jnt_names == ("root", "h", "s", "b", "joint4")
    assert model.timestep == 0.004
    assert_close(model.gravity, [0.5, -1.0, -9.0], 0.0, "gravity")
    compare_with_mujoco(model, m, rng)
    # frames: every MuJoCo body and site at MuJoCo's pose
    md, data = mujoco.MjData(m), model.data()
    md.qpos[:] = _random_qpos(m, rng)
    mujoco.mj_kinematics(m, md)
    q, _ = state_from_mujoco(model, md.qpos, md.qvel)
    for name, pos, mat in (("hand", md.xpos[3], md.xmat[3]), ("tip", md.site_xpos[0], md.site_xmat[0])):
        T = sd.frame_pose(model, data, q, name)
        assert_close(T[:3, 3], pos, ALGORITHMS, f"frame {name} position")
        assert_close(T[:3, :3], np.reshape(mat, (3, 3)), ALGORITHMS, f"frame {name} rotation")


def test_collision_filter_matches_mujoco(mix):
    model = sd.Model.from_mjcf(mix)
    pairs = {frozenset(model.geom_name[g] for g in p) for p in model.pair_geom}
    # the ghost geom (contype = conaffinity = 0) is visual only; upper (bits 2/2) meets nothing with bit 2
    # but the cube's contype 4 & floor's conaffinity 1 = 0 while floor's contype 1 & cube's conaffinity 1
    # passes MuJoCo's OR rule; torso-cube is excluded by <exclude>; torso-upper is a parent-child pair
    assert "ghost" not in model.geom_name
    assert pairs == {frozenset(p) for p in (("floor", "torso"), ("floor", "ball"), ("floor", "cube"),
                                            ("torso", "ball"), ("ball", "cube"))}
    assert model.geom_mu[model.geom_name.index("ball")] == 0.9


def test_refusals_name_the_feature(tmp_path):
    path = tmp_path / "eq.xml"
    path.write_text("""<mujoco><worldbody><body name="a"><joint name="j1" armature="0.1"/><geom size="0.1"/>
        <body name="c" pos="0 0 -1"><joint name="j2" frictionloss="1"/><geom size="0.1"/></body></body>
        </worldbody><equality><joint name="tie" joint1="j1" joint2="j2"/></equality></mujoco>""")
    with pytest.raises(ModelError, match=r"frictionloss \(joints 'j2'\).*'tie'"):
        load_mjcf(path)
    with pytest.raises(FileNotFoundError):
        load_mjcf(tmp_path / "missing.xml")
    # MuJoCo's free-joint armature acts on world-frame translations: refused
    free = tmp_path / "free.xml"
    free.write_text("<mujoco><worldbody><body name='f'><joint type='free' name='root' armature='0.1'/>"
                    "<geom size='0.1'/></body></worldbody></mujoco>")
    with pytest.raises(ModelError, match=r"armature on the translations of free joints \(joints 'root'\)"):
        load_mjcf(free)
    bad = tmp_path / "bad.xml"
    bad.write_text("<mujoco><worldbody><body><joint type='nonsense'/></body></worldbody></mujoco>")
    with pytest.raises(ModelError, match="compiler"):
        load_mjcf(bad)
    with pytest.raises(ValueError, match="unsupported"):
        load_mjcf(path, unsupported="ignore")
