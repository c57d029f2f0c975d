"""URDF loading (soadyn.io.urdf): the example-robot-data robots, the element mapping, and every error
case naming its culprit."""

from __future__ import annotations

import numpy as np
import pytest

import soadyn as sd
import soadyn.joints as J
from soadyn.io.urdf import load_urdf, load_urdf_string
from soadyn.model import ModelError
from soadyn.spatial import Inertia, Transform, rpy_to_rot
from tests.support import SAME_MATH, assert_close

yourdfpy = pytest.importorskip("yourdfpy")

EXPECTED = {  # name -> (nq, nv, number of joints, first joints)
    "ur5": (6, 6, 6, ("shoulder_pan_joint", "shoulder_lift_joint", "elbow_joint")),
    "panda": (9, 9, 9, ("panda_joint1", "panda_joint2", "panda_joint3")),
    "solo12": (19, 18, 13, ("root_joint", "FL_HAA", "FL_HFE", "FL_KFE")),
    "talos": (39, 38, 33, ("root_joint", "torso_1_joint", "torso_2_joint")),
}


def _robot_path(name: str):
    try:
        return sd.models.robot_urdf(name)
    except ValueError as exc:  # example-robot-data not installed
        pytest.skip(str(exc))


def _parse(path):
    return yourdfpy.URDF.load(str(path), build_scene_graph=False, load_meshes=False,
                              build_collision_scene_graph=False, load_collision_meshes=False).robot


def _clusters(robot) -> dict:
    """link -> the link heading its rigid cluster (the nearest ancestor entered by a moving joint, or
    the root), computed from the URDF independently of the loader."""
    parent = {j.child: j for j in robot.joints}
    head = {}
    for link in robot.links:
        n = link.name
        while n in parent and parent[n].type == "fixed":
            n = parent[n].parent
        head[link.name] = n
    return head


def _mass(link) -> float:
    return 0.0 if link.inertial is None else float(link.inertial.mass)


# ------------------------------------------------------------------------------------------ robots
@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_robot_sizes_and_joint_names(name):
    path = _robot_path(name)
    model = sd.models.robot(name)
    nq, nv, nj, first = EXPECTED[name]
    assert (model.nq, model.nv, model.nb) == (nq, nv, nj)
    assert model.jnt_names[:len(first)] == first
    robot = _parse(path)
    moving = {j.name for j in robot.joints if j.type != "fixed"}
    floating = sd.models.robots.ROBOTS[name][1]
    assert set(model.jnt_names) == moving | ({"root_joint"} if floating else set())
    assert (model.jnt_type[0] == J.FREE) == floating
    assert np.all(model.body_parent < np.arange(model.nb))


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_robot_every_link_is_a_frame(name):
    robot = _parse(_robot_path(name))
    model = sd.models.robot(name)
    links = {link.name for link in robot.links} - {"world"}  # a root link "world" is the world itself
    assert links <= set(model.frame_names)
    data = model.data()
    q = model.random_q(np.random.default_rng(0))
    for link in sorted(links)[:8]:
        T = sd.frame_pose(model, data, q, link)
        assert_close(T[:3, :3] @ T[:3, :3].T, np.eye(3), SAME_MATH, f"{name}: frame {link} rotation")


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_robot_fixed_links_merged_masses_summed(name):
    robot = _parse(_robot_path(name))
    model = sd.models.robot(name)
    head = _clusters(robot)
    links = {link.name: link for link in robot.links}
    expected = {}
    for link in robot.links:
        expected[head[link.name]] = expected.get(head[link.name], 0.0) + _mass(link)
    for i, body in enumerate(model.body_names):
        assert_close(model.body_mass[i], expected[body], SAME_MATH, f"{name}: merged mass of body {body}")
    root = [n for n in links if n not in {j.child for j in robot.joints}][0]
    welded = expected.get(root, 0.0) if model.jnt_type[0] != J.FREE else 0.0  # carried by the world
    total = sum(_mass(link) for link in robot.links)
    assert_close(model.body_mass.sum(), total - welded, SAME_MATH, f"{name}: total mass")
    if sd.models.robots.ROBOTS[name][1]:
        assert_close(model.body_mass.sum(), total, SAME_MATH, f"{name}: floating-base total mass")


def test_mimic_robot_loads_with_a_warning_or_raises_on_request():
    path = _robot_path("panda")
    with pytest.warns(UserWarning, match=r"panda\.urdf.*panda_finger_joint2.*independent"):
        assert sd.Model.from_urdf(path).nv == 9
    with pytest.raises(ModelError, match=r"panda\.urdf.*panda_finger_joint2.*mimic"):
        load_urdf(path, mimic="error")
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert load_urdf(path, mimic="independent").nv == 9
    assert sd.Model.from_urdf(_robot_path("ur5")).nv == 6


# -------------------------------------------------------------------------------- element mapping
def _link(name, mass=1.0, inertial=True, origin='xyz="0 0 0" rpy="0 0 0"',
          tensor='ixx="0.1" ixy="0" ixz="0" iyy="0.1" iyz="0" izz="0.1"'):
    if not inertial:
        return f'<link name="{name}"/>'
    return (f'<link name="{name}"><inertial><origin {origin}/><mass value="{mass}"/>'
            f'<inertia {tensor}/></inertial></link>')


def _joint(name, type_, parent, child, xyz="0 0 0", rpy="0 0 0", axis="0 0 1", extra=""):
    return (f'<joint name="{name}" type="{type_}"><parent link="{parent}"/><child link="{child}"/>'
            f'<origin xyz="{xyz}" rpy="{rpy}"/><axis xyz="{axis}"/>{extra}</joint>')


def _robot(*elements, name="toy"):
    return f'<?xml version="1.0"?><robot name="{name}">' + "".join(elements) + "</robot>"


LIMIT = '<limit lower="-1.5" upper="2.0" effort="1" velocity="1"/>'


def test_joint_types_limits_and_axes(tmp_path):
    xml = _robot(_link("base"), _link("a"), _link("b"), _link("c"), _link("d"), _link("e"),
                 _joint("rev", "revolute", "base", "a", axis="0 2 0", extra=LIMIT),
                 _joint("cont", "continuous", "a", "b", axis="1 0 0", extra=LIMIT),
                 _joint("pri", "prismatic", "b", "c", axis="0 0 -1", extra=LIMIT),
                 _joint("flo", "floating", "c", "d"),
                 _joint("pla", "planar", "d", "e", axis="0 0 1"))
    path = tmp_path / "toy.urdf"
    path.write_text(xml)
    model = load_urdf(path)
    assert model.name == "toy"
    assert model.jnt_names == ("rev", "cont", "pri", "flo", "pla")
    assert model.jnt_type.tolist() == [J.REVOLUTE, J.REVOLUTE, J.PRISMATIC, J.FREE, J.PLANAR]
    assert (model.nq, model.nv) == (1 + 1 + 1 + 7 + 3, 1 + 1 + 1 + 6 + 3)
    assert_close(model.jnt_axis[:3], [[0, 1, 0], [1, 0, 0], [0, 0, -1]], SAME_MATH, "joint axes")
    assert_close(model.jnt_axis[4], [0, 0, 1], SAME_MATH, "planar normal")
    assert model.jnt_lower.tolist()[:3] == [-1.5, -np.inf, -1.5]
    assert model.jnt_upper.tolist()[:3] == [2.0, np.inf, 2.0]
    again = load_urdf_string(xml, name="renamed")
    assert again.name == "renamed" and again.jnt_names == model.jnt_names
    assert_close(again.body_I, model.body_I, 0.0, "string vs file inertias")


def test_joint_origin_is_urdf_rpy(tmp_path):
    rpy, xyz = (0.3, -0.7, 1.1), (0.1, -0.2, 0.5)
    xml = _robot(_link("base"), _link("arm"),
                 _joint("j", "revolute", "base", "arm", xyz=" ".join(map(str, xyz)),
                        rpy=" ".join(map(str, rpy)), extra=LIMIT))
    model = load_urdf_string(xml)
    X = Transform.from_pose(rpy_to_rot(rpy), xyz)
    assert_close(model.body_Xtree_E[0], X.E, SAME_MATH, "placement rotation")
    assert_close(model.body_Xtree_r[0], xyz, SAME_MATH, "placement translation")
    # independent check of the convention: fixed axes x, y, z, i.e. R = Rz(yaw) Ry(pitch) Rx(roll)
    quarter = load_urdf_string(_robot(_link("base"), _link("arm"),
                                      _joint("j", "revolute", "base", "arm", rpy="0 0 1.5707963267948966")))
    T = sd.frame_pose(quarter, quarter.data(), np.zeros(1), "arm")
    assert_close(T[:3, 0], [0, 1, 0], SAME_MATH, "child x axis after yaw 90 deg")
    roll_then_yaw = load_urdf_string(_robot(_link("base"), _link("arm"), _joint(
        "j", "revolute", "base", "arm", rpy="1.5707963267948966 0 1.5707963267948966")))
    T = sd.frame_pose(roll_then_yaw, roll_then_yaw.data(), np.zeros(1), "arm")
    # Rz(90) Rx(90): the child's z axis (Rx takes z to -y) ends along +x
    assert_close(T[:3, 2], [1, 0, 0], SAME_MATH, "child z axis after roll 90, yaw 90")


def test_inertial_frame_rotated_into_link_frame():
    # a thin rod along the inertial x axis (Ic = 1 - e_x e_x^T); the inertial frame is yawed by 30 deg, so
    # the rod lies along d = (cos 30, sin 30, 0) in link axes: Ic = 1 - d d^T
    rod = 'ixx="0" ixy="0" ixz="0" iyy="1" iyz="0" izz="1"'
    yaw = np.pi / 6
    xml = _robot(_link("base"), _link("arm", mass=2.0, origin=f'xyz="0.1 0.2 0.3" rpy="0 0 {yaw!r}"', tensor=rod),
                 _joint("j", "revolute", "base", "arm", axis="1 0 0", extra=LIMIT))
    model = load_urdf_string(xml)
    d = np.array([np.cos(yaw), np.sin(yaw), 0.0])
    expected = Inertia(2.0, [0.1, 0.2, 0.3], np.eye(3) - np.outer(d, d))
    assert_close(model.body_I[0], expected.matrix(), SAME_MATH, "rotated rod inertia")
    assert model.body_mass[0] == 2.0


def test_fixed_child_merged_into_parent():
    xml = _robot(_link("base"), _link("arm", mass=1.5), _link("tool", mass=0.5, origin='xyz="0 0 0.1"'),
                 _joint("j", "revolute", "base", "arm", axis="0 1 0", extra=LIMIT),
                 _joint("weld", "fixed", "arm", "tool", xyz="0.4 0 0", rpy="0 0 0.5"))
    model = load_urdf_string(xml)
    assert model.nb == 1 and model.jnt_names == ("j",)
    X = Transform.from_pose(rpy_to_rot((0, 0, 0.5)), (0.4, 0, 0))
    tool = Inertia(0.5, [0, 0, 0.1], np.eye(3) * 0.1).transformed(X)
    expected = Inertia(1.5, np.zeros(3), np.eye(3) * 0.1) + tool
    assert_close(model.body_I[0], expected.matrix(), SAME_MATH, "merged inertia")
    assert_close(model.body_mass.sum(), 2.0, SAME_MATH, "merged mass")
    f = model.frame_id("tool")
    assert model.frame_body[f] == 0
    q = np.array([0.8])
    T_arm = sd.frame_pose(model, model.data(), q, "arm")
    assert_close(sd.frame_pose(model, model.data(), q, "tool"), T_arm @ X.homogeneous(), SAME_MATH,
                 "tool frame pose")


def test_floating_base_and_root_links():
    xml = _robot(_link("base", mass=3.0), _link("arm"), _joint("j", "continuous", "base", "arm", extra=""))
    fixed = load_urdf_string(_robot(_link("base", mass=3.0), _link("arm"),
                                    _joint("j", "continuous", "base", "arm")))
    assert fixed.nv == 1 and fixed.frame_body[fixed.frame_id("base")] == -1
    floating = load_urdf_string(xml, floating_base=True)
    assert floating.jnt_names == ("root_joint", "j") and floating.jnt_type[0] == J.FREE
    assert (floating.nq, floating.nv) == (8, 7)
    assert_close(floating.body_mass.sum(), 4.0, SAME_MATH, "floating mass")
    world_root = _robot(_link("world", inertial=False), _link("base"),
                        _joint("j", "revolute", "world", "base", extra=LIMIT))
    model = load_urdf_string(world_root)
    assert model.body_parent.tolist() == [-1] and model.frame_names == ("base",)
    # floating, a root link named "world" is a free body (as in Pinocchio), renamed: "world" is the ground
    floating = load_urdf_string(world_root, floating_base=True, source="w.urdf")
    assert floating.body_names == ("world_link", "base") and floating.jnt_names == ("root_joint", "j")
    assert floating.frame_body[floating.frame_id("world_link")] == 0


# ------------------------------------------------------------------------------- non-physical inertias
DEFECTS = {  # name -> (inertia tensor attributes or mass, expected defect, repaired principal moments)
    "not_psd": ('ixx="1" ixy="0" ixz="0" iyy="-0.5" iyz="0" izz="1"', 1.0, "not positive semi-definite",
                [0.0, 1.0, 1.0]),
    "triangle": ('ixx="0.1" ixy="0" ixz="0" iyy="0.1" iyz="0" izz="0.4"', 1.0, "triangle inequality",
                 [0.2, 0.2, 0.2]),
    "negative_mass": ('ixx="1" ixy="0" ixz="0" iyy="1" iyz="0" izz="1"', -2.0, "negative mass -2", None),
}


@pytest.mark.parametrize("case", sorted(DEFECTS))
def test_non_physical_inertia_is_repaired_with_a_warning_or_refused_when_strict(case):
    tensor, mass, defect, moments = DEFECTS[case]
    xml = _robot(_link("base"), _link("arm", mass=1.0), _link("tip", mass=mass, tensor=tensor),
                 _joint("j", "revolute", "base", "arm", extra=LIMIT),
                 _joint("k", "revolute", "arm", "tip", xyz="0.3 0 0", extra=LIMIT))
    with pytest.warns(UserWarning, match=f"link 'tip': .*{defect}"):
        model = load_urdf_string(xml, source="r.urdf")
    I = Inertia.from_matrix(model.body_I[1])
    if moments is None:  # negative mass: the inertial is dropped
        assert I.mass == 0.0 and not model.body_I[1].any()
    else:
        assert_close(np.linalg.eigvalsh(I.Ic), moments, SAME_MATH, f"{case}: repaired principal moments")
        assert_close(I.mass, mass, 0.0, "mass kept")
    with pytest.raises(ModelError, match=f"r.urdf.*strict.*link 'tip': .*{defect}"):
        load_urdf_string(xml, strict=True, source="r.urdf")


def test_physical_inertias_load_silently(recwarn):
    thin_rod = 'ixx="0" ixy="0" ixz="0" iyy="1" iyz="0" izz="1"'  # on the triangle's boundary: physical
    load_urdf_string(_robot(_link("base"), _link("arm", tensor=thin_rod),
                            _joint("j", "revolute", "base", "arm", axis="0 1 0", extra=LIMIT)), strict=True)
    assert not recwarn.list


def test_urdf_without_movable_joints_loads_and_every_call_works():
    xml = _robot(_link("base", mass=2.0), _link("cam"), _joint("k", "fixed", "base", "cam", xyz="0 0 1"))
    model = load_urdf_string(xml)
    assert (model.nq, model.nv, model.nb) == (0, 0, 0)
    data, q, z = model.data(), np.zeros(0), np.zeros(0)
    assert sd.crba(model, data, q).shape == (0, 0) and sd.minv(model, data, q).shape == (0, 0)
    assert sd.rnea(model, data, q, z, z).shape == (0,) and sd.aba(model, data, q, z, z).shape == (0,)
    assert sd.frame_jacobian(model, data, q, "cam").shape == (6, 0)
    assert_close(sd.frame_pose(model, data, q, "cam")[:3, 3], [0, 0, 1], 0.0, "fixed frame pose")
    assert sd.aba_batch(model, np.zeros((3, 0)), np.zeros((3, 0)), np.zeros((3, 0))).shape == (3, 0)
    traj = sd.Simulator(model, 1e-3).rollout(q, z, duration=0.005)
    assert traj.q.shape[1] == 0


def test_link_without_inertial_has_zero_inertia():
    xml = _robot(_link("base"), _link("arm"), _link("ghost", inertial=False),
                 _joint("j", "revolute", "base", "arm", extra=LIMIT),
                 _joint("k", "fixed", "arm", "ghost", xyz="1 2 3"))
    model = load_urdf_string(xml)
    assert_close(model.body_I[0], Inertia(1.0, np.zeros(3), 0.1 * np.eye(3)).matrix(), SAME_MATH, "arm inertia")


def test_mimic_on_fixed_joint_is_ignored():
    xml = _robot(_link("base"), _link("arm"), _link("pad"),
                 _joint("j", "revolute", "base", "arm", extra=LIMIT),
                 _joint("k", "fixed", "arm", "pad", extra='<mimic joint="j"/>'))
    assert load_urdf_string(xml).nv == 1


# ------------------------------------------------------------------------------------------ errors
def _write(tmp_path, xml, fname="bad.urdf"):
    path = tmp_path / fname
    path.write_text(xml)
    return path


BASE = (_link("base"), _link("arm"))


@pytest.mark.parametrize("xml, culprit", [
    (_robot(*BASE, _joint("spin", "gearbox", "base", "arm")), r"joint 'spin'.*unsupported joint type 'gearbox'"),
    (_robot(*BASE, _joint("j", "revolute", "nowhere", "arm")), r"joint 'j'.*parent link 'nowhere'"),
    (_robot(*BASE, _joint("j", "revolute", "base", "nolink")), r"joint 'j'.*child link 'nolink'"),
    (_robot(*BASE, '<joint name="j" type="revolute"><parent link="base"/></joint>'), r"joint 'j'.*<child"),
    (_robot(_link("base"), _link("a"), _link("b"), _joint("j1", "revolute", "base", "a"),
            _joint("j2", "revolute", "b", "b")), r"joint 'j2'.*same link 'b'"),
    (_robot(_link("base"), _link("a"), _link("b"), _joint("j0", "revolute", "base", "a"),
            _joint("j1", "revolute", "a", "b"), _joint("j2", "revolute", "b", "a")),
     r"joint 'j2'.*link 'a' is already the child of joint 'j0'"),
    (_robot(_link("a"), _link("b"), _joint("j1", "revolute", "a", "b"), _joint("j2", "revolute", "b", "a")),
     r"cycle"),
    (_robot(_link("base"), _link("a"), _link("b"), _link("c"), _joint("j1", "revolute", "base", "a"),
            _joint("j2", "revolute", "b", "c")), r"several root links \['base', 'b'\]"),
    (_robot(*BASE, _joint("j", "revolute", "base", "arm", xyz="0 nan 0")), r"joint 'j'.*<origin xyz='0 nan 0'>"),
    (_robot(*BASE, _joint("j", "revolute", "base", "arm", rpy="0 0")), r"joint 'j'.*<origin rpy='0 0'>"),
    (_robot(*BASE, _joint("j", "revolute", "base", "arm", axis="0 0 x")), r"joint 'j'.*<axis xyz='0 0 x'>"),
    (_robot(*BASE, _joint("j", "revolute", "base", "arm", axis="0 0 0")), r"joint 'j'.*non-zero"),
    (_robot(_link("base"), _link("arm", mass="inf"), _joint("j", "revolute", "base", "arm")),
     r"link 'arm'.*<mass value='inf'>"),
    (_robot(_link("base"), _link("arm", tensor='ixx="1" iyy="1" izz="1"'), _joint("j", "revolute", "base", "arm")),
     r"link 'arm'.*ixy"),
    (_robot(*BASE, _joint("j", "revolute", "base", "arm", extra='<limit lower="1" upper="-1"/>')),
     r"joint 'j'.*lower 1.0 > upper -1.0"),
    (_robot(*BASE, _link("arm"), _joint("j", "revolute", "base", "arm")), r"duplicate link name 'arm'"),
    (_robot(*BASE, _link("c"), _joint("j", "revolute", "base", "arm"), _joint("j", "revolute", "arm", "c")),
     r"duplicate joint name 'j'"),
    (_robot(_link("base"), _link("world"), _joint("j", "revolute", "base", "world")), r"duplicate name 'world'"),
    ('<robot name="x"><link name="a"></robot>', r"not well-formed"),
    ('<model name="x"/>', r"<model>, expected <robot>"),
    (_robot(), r"no <link>"),
])
def test_malformed_files_name_file_and_element(tmp_path, xml, culprit):
    path = _write(tmp_path, xml)
    with pytest.raises(ValueError, match=culprit) as info:
        load_urdf(path)
    assert str(path) in str(info.value), f"message does not name the file: {info.value}"
    with pytest.raises(ValueError, match=culprit):
        load_urdf_string(xml)


def test_missing_file_and_bad_mimic_mode(tmp_path):
    missing = tmp_path / "nothere.urdf"
    with pytest.raises(FileNotFoundError, match="nothere.urdf"):
        load_urdf(missing)
    with pytest.raises(FileNotFoundError, match="nothere.urdf"):
        sd.Model.from_urdf(missing)
    with pytest.raises(ValueError, match="mimic"):
        load_urdf_string(_robot(*BASE, _joint("j", "revolute", "base", "arm")), mimic="couple")
