"""The replay's scene graph without a browser: a node per URDF visual, geom and frame, node poses equal
forward kinematics (and the kernel's geom poses), the served viewer's body nodes at every frame equal
forward kinematics of the state shown at that time, saved runs carry their model, contact force arrows
against the resting-ball closed form, the ``soadyn view`` command and bad input."""

from __future__ import annotations

import xml.etree.ElementTree as ET

import numpy as np
import pytest
from click.testing import CliRunner

import soadyn as sd
from soadyn import joints as J
from soadyn.spatial import Inertia, Transform, quat_to_rot, rpy_to_rot
from soadyn.contact.geometry import with_geoms
from soadyn.viz.scene import Scene
from soadyn.viz.timeline import contact_forces, timeline

from .scenes import swinging_pendulum

POSE_TOL = 1e-12
"""Node poses against forward kinematics (the same products in another order)."""
MESH_TOL = 1e-6
"""Mesh vertex bounds against the written box (STL stores float32)."""
FORCE_TOL = 1e-6
"""Relative error of the resting ball's contact force against m g (an LCP solved to round-off)."""

BOX = np.array([0.1, 0.2, 0.3])
ARM_ORIGIN = ((0.05, -0.02, 0.3), (0.3, -0.2, 0.1))  # xyz, rpy of the arm's mesh visual
TOOL_ORIGIN = ((0.0, 0.0, 0.1), (0.0, 0.5, 0.0))
TOOL_AT = (0.0, 0.0, 0.6)  # the fixed joint arm -> tool


def _write_robot(folder) -> str:
    """A three-link URDF with a box primitive, an STL mesh (scaled), an OBJ mesh and a COLLADA mesh, the
    last two on a link merged into its parent by a fixed joint."""
    import trimesh

    box = trimesh.creation.box(extents=BOX)
    for ext in ("stl", "obj", "dae"):
        box.export(str(folder / f"box.{ext}"))
    xyz = lambda v: " ".join(str(x) for x in v)  # noqa: E731
    urdf = f"""<robot name="probe">
  <material name="blue"><color rgba="0 0 1 1"/></material>
  <link name="base"><visual><geometry><box size="{xyz(BOX)}"/></geometry><material name="blue"/></visual></link>
  <link name="arm">
    <inertial><mass value="1"/><inertia ixx="0.01" iyy="0.01" izz="0.01" ixy="0" ixz="0" iyz="0"/></inertial>
    <visual><origin xyz="{xyz(ARM_ORIGIN[0])}" rpy="{xyz(ARM_ORIGIN[1])}"/>
      <geometry><mesh filename="box.stl" scale="2 2 2"/></geometry></visual>
  </link>
  <link name="tool">
    <visual><origin xyz="{xyz(TOOL_ORIGIN[0])}" rpy="{xyz(TOOL_ORIGIN[1])}"/>
      <geometry><mesh filename="box.obj"/></geometry></visual>
    <visual><geometry><mesh filename="box.dae"/></geometry></visual>
  </link>
  <joint name="shoulder" type="revolute"><parent link="base"/><child link="arm"/>
    <origin xyz="0 0 0.2" rpy="0.1 0 0"/><axis xyz="0 1 0"/><limit lower="-3" upper="3" effort="1" velocity="1"/>
  </joint>
  <joint name="wrist" type="fixed"><parent link="arm"/><child link="tool"/><origin xyz="{xyz(TOOL_AT)}"/></joint>
</robot>"""
    path = folder / "probe.urdf"
    path.write_text(urdf)
    return str(path)


def _pose(xyz_rpy) -> np.ndarray:
    T = np.eye(4)
    T[:3, :3] = rpy_to_rot(xyz_rpy[1])
    T[:3, 3] = xyz_rpy[0]
    return T


@pytest.fixture
def probe(tmp_path):
    model = sd.Model.from_urdf(_write_robot(tmp_path))
    return with_geoms(model, [dict(name="ball", body="tool", kind="sphere", size=0.05),
                                         dict(name="floor", body="world", kind="halfspace")])


def test_a_node_per_visual_geom_and_frame(probe):
    scene = Scene(probe)  # the URDF comes from model.source
    kinds = {}
    for n in scene.nodes:
        kinds.setdefault(n.kind, []).append(n.source)
    assert sorted(kinds["mesh"]) == ["arm", "base", "tool", "tool"]
    assert kinds["sphere"] == ["ball"] and kinds["halfspace"] == ["floor"]
    assert sorted(kinds["frame"]) == sorted(probe.frame_names)
    assert len({n.name for n in scene.nodes}) == len(scene)
    meshes = {n.name: n for n in scene.nodes if n.kind == "mesh"}
    for name, scale in (("links/base/0", 1.0), ("links/arm/0", 2.0), ("links/tool/0", 1.0), ("links/tool/1", 1.0)):
        v = meshes[name].vertices  # box primitive, STL (scaled), OBJ, DAE: the same centred box
        np.testing.assert_allclose(v.max(axis=0) - v.min(axis=0), scale * BOX, atol=MESH_TOL)
        np.testing.assert_allclose(v.max(axis=0) + v.min(axis=0), 0.0, atol=MESH_TOL)
    assert meshes["links/base/0"].color == (0, 0, 255)
    assert len(Scene(probe, urdf=False, frames=False)) == probe.ng


def test_node_poses_equal_forward_kinematics(probe, rng):
    scene = Scene(probe)
    data = probe.data()
    origins = {"links/base/0": np.eye(4), "links/arm/0": _pose(ARM_ORIGIN), "links/tool/0": _pose(TOOL_ORIGIN),
               "links/tool/1": np.eye(4)}
    for _ in range(5):
        q = probe.random_q(rng)
        P = scene.poses(q)
        sd.contact.collide(probe, data, q)  # the kernel's geom poses: data.gR, data.gp
        for n, T in zip(scene.nodes, P):
            if n.kind == "mesh":
                expected = sd.frame_pose(probe, data, q, n.source) @ origins[n.name]
            elif n.kind == "frame":
                expected = sd.frame_pose(probe, data, q, n.source)
            else:
                g = probe.geom_name.index(n.source)
                expected = np.eye(4)
                expected[:3, :3], expected[:3, 3] = data.gR[g], data.gp[g]
            np.testing.assert_allclose(T, expected, atol=POSE_TOL, err_msg=n.name)
    # the merged tool link rides on the arm: its visual is TOOL_AT above the arm's origin
    T_arm = sd.frame_pose(probe, data, q, "arm")
    np.testing.assert_allclose(sd.frame_pose(probe, data, q, "tool")[:3, 3], T_arm[:3, :3] @ TOOL_AT + T_arm[:3, 3],
                               atol=POSE_TOL)


def test_robot_meshes_from_example_robot_data():
    try:
        path = sd.models.robot_urdf("solo12")
    except ValueError as exc:  # example-robot-data is not installed
        pytest.skip(str(exc))
    model = sd.models.robot("solo12")
    visuals = sum(len(link.findall("visual")) for link in ET.parse(path).getroot().findall("link"))
    meshes = [n for n in Scene(model, frames=False).nodes if n.kind == "mesh"]
    assert len(meshes) == visuals > 0
    assert all(n.vertices.shape[0] > 0 and n.faces.shape[0] > 0 for n in meshes)


def test_viewer_body_nodes_follow_the_run(tmp_path):
    from soadyn.viz.viewer import Viewer

    traj = swinging_pendulum(links=3, duration=1.0)
    data = traj.model.data()
    with Viewer(traj, port=0, play=False, fps=20.0) as v:
        tl = v.timeline
        assert len(tl) == 21 and len(v.nodes) == len(v.scene)
        dt = traj.t[1] - traj.t[0]
        assert np.all(np.abs(traj.t[tl.index] - tl.t) <= 0.5 * dt + 1e-12)
        for j in (0, 7, 20):
            v.show_frame(j)
            oR, op = sd.fk(traj.model, data, traj.q[tl.index[j]])
            for b, h in enumerate(v.bodies):
                w, x, y, z = h.wxyz
                np.testing.assert_allclose(quat_to_rot([x, y, z, w]), oR[b], atol=POSE_TOL)
                np.testing.assert_allclose(h.position, op[b], atol=POSE_TOL)
            assert v.slider.value == pytest.approx(tl.t[j])  # the GUI follows the frame
        assert tl.frame_at(0.52) == 10 and tl.frame_at(-1.0) == 0 and tl.frame_at(9.0) == 20
        page = v.export_html(tmp_path / "replay.html").read_text()
        assert "__VISER_EMBED_DATA__" in page and "<script" in page


def test_saved_run_carries_its_model(probe, tmp_path, rng):
    t = np.linspace(0.0, 0.1, 4)
    Q = np.array([probe.random_q(rng) for _ in t])
    traj = sd.Trajectory.from_states(probe, t, Q, np.zeros((t.size, probe.nv)), stats={"dt": 1e-3})
    back = sd.Trajectory.load(traj.save(tmp_path / "run"))
    m = back.model
    assert m is not None and m.source == probe.source and m.geom_name == probe.geom_name
    assert m.loop_kind is None and m.nl == 0
    np.testing.assert_array_equal(back.frame_positions(m, "tool"), traj.frame_positions(probe, "tool"))
    assert len(Scene(m)) == len(Scene(probe))
    legacy = sd.Trajectory(t=traj.t, q=traj.q, qd=traj.qd, energy=traj.energy)
    assert sd.Trajectory.load(legacy.save(tmp_path / "bare")).model is None


def test_contact_force_of_a_resting_ball():
    mass, radius, g = 2.0, 0.1, 9.81
    b = sd.ModelBuilder("ball", gravity=(0.0, 0.0, -g))
    b.add_body("ball", "world", J.Free(), inertia=Inertia.sphere(mass, radius))
    b.add_geom("sphere", "ball", "sphere", radius)
    b.add_geom("floor", "world", "halfspace", None, mu=0.5)
    ball = b.finalize()
    q = np.array([0.3, -0.2, radius, 0.0, 0.0, 0.0, 1.0])
    points, forces = contact_forces(ball, q, np.zeros(6), np.zeros(6), dt=1e-3)
    assert points.shape == (1, 3) and points[0, 2] == pytest.approx(0.0, abs=1e-12)
    np.testing.assert_allclose(forces[0], [0.0, 0.0, mass * g], rtol=FORCE_TOL, atol=FORCE_TOL * mass * g)
    traj = sd.Trajectory.from_states(ball, [0.0, 1e-3], [q, q], np.zeros((2, 6)), stats={"dt": 1e-3})
    tl = timeline(Scene(ball), traj)
    assert len(tl.points) == len(tl) and tl.forces[0].shape == (1, 3)
    np.testing.assert_allclose(tl.forces[0][0], forces[0])


def test_replay_draws_the_recorded_contacts():
    """A run rolled out with record_contacts=True is replayed with the forces the kernel solved (no re-solve)."""
    from soadyn.contact import ContactSettings

    b = sd.ModelBuilder("ball", gravity=(0.0, 0.0, -9.81))
    b.add_body("ball", "world", J.Free(), inertia=Inertia.sphere(1.0, 0.1))
    b.add_geom("sphere", "ball", "sphere", 0.1, restitution=0.5)
    b.add_geom("floor", "world", "halfspace", None, mu=0.5)
    ball = b.finalize()
    sim = sd.Simulator(ball, 1e-3, contact=ContactSettings())
    traj = sim.rollout([0.0, 0.0, 0.3, 0.0, 0.0, 0.0, 1.0], np.zeros(6), steps=600, record_contacts=True,
                       progress=False)
    tl = timeline(Scene(ball), traj)
    assert any(len(f) for f in tl.forces), "the ball never touched"
    for j, k in enumerate(tl.index):
        p, _, f = traj.contacts(min(int(k), len(traj) - 2))
        assert np.array_equal(tl.points[j], p) and np.array_equal(tl.forces[j], f)


def test_view_command_writes_a_standalone_page(tmp_path):
    from soadyn.cli import main

    run = swinging_pendulum(links=2, duration=0.2).save(tmp_path / "run.npz")
    out = CliRunner().invoke(main, ["view", str(run), "--no-serve", "--port", "0", "--html", str(tmp_path / "r.html")])
    assert out.exit_code == 0, out.output
    assert "__VISER_EMBED_DATA__" in (tmp_path / "r.html").read_text()
    bare = sd.Trajectory(t=np.zeros(1), q=np.zeros((1, 2)), qd=np.zeros((1, 2)), energy=np.zeros((1, 3)))
    out = CliRunner().invoke(main, ["view", str(bare.save(tmp_path / "bare")), "--no-serve", "--port", "0"])
    assert out.exit_code != 0 and "carries no model" in out.output
    out = CliRunner().invoke(main, ["view", str(tmp_path / "bare.npz"), "--no-serve", "--port", "0",
                                    "--model", "pendulum:2", "--html", str(tmp_path / "p.html")])
    assert out.exit_code == 0, out.output


def test_bad_input_is_named():
    from soadyn.viz.viewer import Viewer

    traj = swinging_pendulum(links=2, duration=0.1)
    scene = Scene(traj.model)
    with pytest.raises(ValueError, match="fps"):
        timeline(scene, traj, fps=0.0)
    with pytest.raises(ValueError, match="not the model of this trajectory"):
        timeline(Scene(sd.models.pendulum(3)), traj)
    with pytest.raises(ValueError, match="speed"):
        Viewer(traj, speed="3x")
    with pytest.raises(ValueError, match="plane_half_size"):
        Scene(traj.model, plane_half_size=-1.0)
    with pytest.raises(FileNotFoundError, match="urdf"):
        Scene(traj.model, urdf="missing.urdf")
    with pytest.raises(ValueError, match="not a frame of model"):
        Scene(traj.model, urdf=sd.models.robot_urdf("ur5"))
