"""soadyn against Pinocchio (Carpentier et al., "The Pinocchio C++ library", SII 2019) on the
example-robot-data URDFs and on programmatic trees with soadyn's non-URDF joint types.

Compared quantities: M (CRBA), bias forces and RNEA, ABA, M^-1, frame poses, local and world-aligned
frame Jacobians, frame velocities and frame bias accelerations (``Jdot qd``). Joints are matched by
name; coordinates are converted by :mod:`tests.crosscheck.pin_convert`.
"""

from __future__ import annotations

import numpy as np
import pytest

import soadyn as sd
import soadyn.joints as J
from soadyn.io.urdf import load_urdf_string
from soadyn.spatial import Inertia, Transform, quat_to_rot
from tests.support import ALGORITHMS, assert_close

pin = pytest.importorskip("pinocchio")

from tests.crosscheck.pin_convert import Coords, sym_upper  # noqa: E402

pytestmark = pytest.mark.external

PIN_TOL = ALGORITHMS
"""Agreement asked of soadyn vs Pinocchio: 1e-9 relative to max(1, |reference|), tighter than EXTERNAL."""

ROBOTS = ("ur5", "panda", "solo12", "talos")
N_STATES = 4


# -------------------------------------------------------------------------------------------- helpers
def _robot_path(name: str) -> str:
    """The robot's URDF path; skips the test when example-robot-data is not installed."""
    try:
        return str(sd.models.robot_urdf(name))
    except ValueError as exc:
        pytest.skip(str(exc))


def _pin_robot(name: str):
    path = _robot_path(name)
    if sd.models.robots.ROBOTS[name][1]:
        return pin.buildModelFromUrdf(path, pin.JointModelFreeFlyer())
    return pin.buildModelFromUrdf(path)


def _states(model, rng, n=N_STATES):
    for _ in range(n):
        yield model.random_q(rng), rng.normal(size=model.nv), rng.normal(size=model.nv), rng.normal(size=model.nv)


def dynamics_quantities(model, pmodel, q, qd, qdd, tau):
    """(name, soadyn value, Pinocchio value in soadyn coordinates) for the joint-space quantities."""
    c = Coords(model, pmodel)
    data, pdata = model.data(), pmodel.createData()
    qp, vp, ap, taup = c.q(q), c.v(qd), c.v(qdd), c.v(tau)
    # tau and qdd are covectors/vectors; P is a permutation, so P maps both ways (P^-1 = P^T)
    yield "M", sd.crba(model, data, q).copy(), c.matrix_to_sd(sym_upper(pin.crba(pmodel, pdata, qp)))
    yield "bias forces", sd.rnea(model, data, q, qd, np.zeros(model.nv)).copy(), \
        c.to_sd(pin.nonLinearEffects(pmodel, pdata, qp, vp))
    yield "rnea", sd.rnea(model, data, q, qd, qdd).copy(), c.to_sd(pin.rnea(pmodel, pdata, qp, vp, ap))
    yield "aba", sd.aba(model, data, q, qd, tau).copy(), c.to_sd(pin.aba(pmodel, pdata, qp, vp, taup))
    yield "minv", sd.minv(model, data, q).copy(), \
        c.matrix_to_sd(sym_upper(pin.computeMinverse(pmodel, pdata, qp)))


def frame_quantities(model, pmodel, q, qd, frames):
    """(name, soadyn value, Pinocchio value) for poses, Jacobians, velocities and bias accelerations of
    the named frames (Pinocchio BODY frames of the same names)."""
    c = Coords(model, pmodel)
    data, pdata = model.data(), pmodel.createData()
    qp, vp = c.q(q), c.v(qd)
    pin.forwardKinematics(pmodel, pdata, qp, vp, np.zeros(pmodel.nv))
    pin.updateFramePlacements(pmodel, pdata)
    pin.computeJointJacobians(pmodel, pdata, qp)
    for name in frames:
        fid = pmodel.getFrameId(name, pin.BODY)
        assert fid < pmodel.nframes, f"Pinocchio has no body frame {name!r}"
        yield f"pose {name}", sd.frame_pose(model, data, q, name), pdata.oMf[fid].homogeneous
        for ref, pref in (("local", pin.LOCAL), ("world_aligned", pin.LOCAL_WORLD_ALIGNED)):
            Jp = pin.getFrameJacobian(pmodel, pdata, fid, pref)
            yield f"jacobian {ref} {name}", sd.frame_jacobian(model, data, q, name, ref).copy(), c.jacobian_to_sd(Jp)
            vel = pin.getFrameVelocity(pmodel, pdata, fid, pref)
            yield f"velocity {ref} {name}", sd.frame_velocity(model, data, q, qd, name, ref), \
                np.r_[vel.angular, vel.linear]
        acc = pin.getFrameAcceleration(pmodel, pdata, fid, pin.LOCAL)
        yield f"bias acceleration local {name}", sd.frame_bias_acceleration(model, data, q, qd, name, "local"), \
            np.r_[acc.angular, acc.linear]
        acc = pin.getFrameClassicalAcceleration(pmodel, pdata, fid, pin.LOCAL_WORLD_ALIGNED)
        yield f"bias acceleration world_aligned {name}", \
            sd.frame_bias_acceleration(model, data, q, qd, name, "world_aligned"), np.r_[acc.angular, acc.linear]


# ------------------------------------------------------------------------------------------- URDF robots
@pytest.mark.parametrize("name", ROBOTS)
def test_robot_structure_matches(name):
    pmodel, model = _pin_robot(name), sd.models.robot(name)
    assert (model.nq, model.nv) == (pmodel.nq - _n_unbounded(pmodel), pmodel.nv)
    assert set(model.jnt_names) == set(pmodel.names[1:])
    assert_close(model.gravity, pmodel.gravity.linear, 0.0, "gravity")
    moving_mass = sum(pmodel.inertias[i].mass for i in range(1, pmodel.njoints))
    assert_close(model.body_mass.sum(), moving_mass, PIN_TOL, "total moving mass")
    for i, jname in enumerate(model.jnt_names):
        jid = pmodel.getJointId(jname)
        I_pin = pmodel.inertias[jid]
        I_sd = Inertia(I_pin.mass, I_pin.lever, I_pin.inertia).matrix()
        assert_close(model.body_I[i], I_sd, PIN_TOL, f"{name}: spatial inertia of {jname}")


def _n_unbounded(pmodel) -> int:
    return sum(1 for j in pmodel.joints if j.nq == 2 and j.nv == 1)


@pytest.mark.parametrize("name", ROBOTS)
def test_robot_dynamics_match(name):
    pmodel, model = _pin_robot(name), sd.models.robot(name)
    rng = np.random.default_rng(7)
    for k, (q, qd, qdd, tau) in enumerate(_states(model, rng)):
        for what, actual, expected in dynamics_quantities(model, pmodel, q, qd, qdd, tau):
            assert_close(actual, expected, PIN_TOL, f"{name} state {k}: {what}")


@pytest.mark.parametrize("name", ROBOTS)
def test_robot_frames_match(name):
    pmodel, model = _pin_robot(name), sd.models.robot(name)
    # a URDF root link named "world" (ur5) is soadyn's world itself, not a frame
    links = [f.name for f in pmodel.frames if f.type == pin.FrameType.BODY and f.name != "world"]
    assert set(links) <= set(model.frame_names)
    rng = np.random.default_rng(8)
    for k, (q, qd, _, _) in enumerate(_states(model, rng, n=2)):
        for what, actual, expected in frame_quantities(model, pmodel, q, qd, links):
            assert_close(actual, expected, PIN_TOL, f"{name} state {k}: {what}")


def _toy_urdf(seed: int) -> str:
    """A URDF with every URDF joint type, rotated joint origins and rotated inertial frames."""
    rng = np.random.default_rng(seed)

    def vec(lo, hi):
        return " ".join(repr(float(x)) for x in rng.uniform(lo, hi, 3))

    def link(name):
        # a physical inertia (a solid box; the inertial frame's rpy rotates it): with non-physical ones
        # soadyn would repair what Pinocchio keeps
        a, b, c = rng.uniform(0.1, 1.0, 3)
        Ic = (np.diag([b * b + c * c, a * a + c * c, a * a + b * b]) / 12.0).tolist()
        return (f'<link name="{name}"><inertial><origin xyz="{vec(-0.2, 0.2)}" rpy="{vec(-2, 2)}"/>'
                f'<mass value="{float(rng.uniform(0.5, 2))!r}"/><inertia ixx="{Ic[0][0]!r}" ixy="{Ic[0][1]!r}" '
                f'ixz="{Ic[0][2]!r}" iyy="{Ic[1][1]!r}" iyz="{Ic[1][2]!r}" izz="{Ic[2][2]!r}"/></inertial></link>')

    def joint(name, type_, parent, child, axis=None):
        axis = axis or vec(-1, 1)
        return (f'<joint name="{name}" type="{type_}"><parent link="{parent}"/><child link="{child}"/>'
                f'<origin xyz="{vec(-0.5, 0.5)}" rpy="{vec(-2, 2)}"/><axis xyz="{axis}"/>'
                '<limit lower="-2" upper="2" effort="1" velocity="1"/></joint>')

    chain = [("floating", "float"), ("revolute", "rev"), ("continuous", "cont"), ("prismatic", "pri"),
             ("fixed", "weld"), ("planar", "plane"), ("continuous", "cont2")]
    parts = [link("base")] + [link(f"l{k}") for k in range(len(chain))]
    for k, (type_, name) in enumerate(chain):
        # Pinocchio's URDF planar joint is the xy plane of the joint frame: give soadyn the z normal too
        parts.append(joint(name, type_, f"l{k - 1}" if k else "base", f"l{k}", "0 0 1" if type_ == "planar" else None))
    parts.append(joint("side", "revolute", "l1", "side_link"))
    parts.append(link("side_link"))
    return '<robot name="toy">' + "".join(parts) + "</robot>"


@pytest.mark.parametrize("seed", [0, 1])
def test_urdf_joint_types_match(seed):
    """Continuous (Pinocchio nq = 2), planar, floating, prismatic, fixed joints and rotated inertial
    frames, loaded from one URDF string by both libraries."""
    xml = _toy_urdf(seed)
    model, pmodel = load_urdf_string(xml), pin.buildModelFromXML(xml)
    assert pmodel.nq == model.nq + 3  # two continuous joints (cos, sin) and the planar angle
    rng = np.random.default_rng(300 + seed)
    frames = list(model.frame_names)
    for k, (q, qd, qdd, tau) in enumerate(_states(model, rng)):
        for what, actual, expected in dynamics_quantities(model, pmodel, q, qd, qdd, tau):
            assert_close(actual, expected, PIN_TOL, f"toy URDF {seed} state {k}: {what}")
    for k, (q, qd, _, _) in enumerate(_states(model, rng, n=2)):
        for what, actual, expected in frame_quantities(model, pmodel, q, qd, frames):
            assert_close(actual, expected, PIN_TOL, f"toy URDF {seed} state {k}: {what}")


# ------------------------------------------------------------------------------ programmatic joint types
# soadyn joint -> Pinocchio joint model. Not matched: FIXED (Pinocchio has no fixed joint in a model
# built by hand; fixed joints are covered by the URDF robots, where both merge them).
# PLANAR is matched only with normal z and in-plane x axis x: Pinocchio's JointModelPlanar is the xy plane
# of its joint frame, and a soadyn planar joint with another normal has a successor frame that is not
# rotated into that plane, so no placement makes the two bodies coincide.
def _pin_joint(joint: J.Joint):
    a, u = joint.axis, joint.axis2
    t = joint.type
    if t == J.REVOLUTE:
        return pin.JointModelRevoluteUnaligned(a)
    if t == J.PRISMATIC:
        return pin.JointModelPrismaticUnaligned(a)
    if t == J.HELICAL:
        return pin.JointModelHelicalUnaligned(a, joint.pitch)
    if t == J.UNIVERSAL:
        return pin.JointModelUniversal(a, u)
    if t == J.CYLINDRICAL:  # rotation about and translation along one axis commute: q = [angle, disp]
        jc = pin.JointModelComposite(2)
        jc.addJoint(pin.JointModelRevoluteUnaligned(a))
        jc.addJoint(pin.JointModelPrismaticUnaligned(a))
        return jc
    if t == J.PLANAR:
        assert np.allclose(a, [0, 0, 1]) and np.allclose(u, [1, 0, 0])
        return pin.JointModelPlanar()
    if t == J.SPHERICAL:
        return pin.JointModelSpherical()
    if t == J.FREE:
        return pin.JointModelFreeFlyer()
    raise AssertionError(f"no Pinocchio equivalent for {joint.type_name}")


def _unit(rng) -> np.ndarray:
    a = rng.normal(size=3)
    return a / np.linalg.norm(a)


def _mixed_joints(rng) -> list:
    a, b = _unit(rng), _unit(rng)
    b = np.cross(a, b) / np.linalg.norm(np.cross(a, b))
    return [J.Free(), J.Revolute(_unit(rng)), J.Prismatic(_unit(rng)), J.Helical(_unit(rng), pitch=0.07),
            J.Universal(a, b), J.Cylindrical(_unit(rng)), J.Planar((0, 0, 1), (1, 0, 0)), J.Spherical(),
            J.Revolute(_unit(rng)), J.Helical(_unit(rng), pitch=-0.12)]


def _twin_trees(seed: int, armature: bool = False):
    """The same random tree built in soadyn and in Pinocchio: a chain with two side branches (with
    ``armature``: a random joint armature on every dof, Pinocchio's ``model.armature``).

    Pinocchio's CRBA and computeMinverse assume joints added in depth-first order (contiguous subtrees),
    so its twin is built in preorder; soadyn gets the bodies in reverse order (parents named before
    they exist), which its builder reorders depth-first, so the joint orders differ and the name map
    is exercised."""
    rng = np.random.default_rng(seed)
    joints = _mixed_joints(rng)
    parents = [-1, 0, 1, 2, 3, 1, 5, 6, 0, 8]  # preorder: parents[i] < i, subtrees contiguous
    specs = []
    pm = pin.Model()
    pm.gravity = pin.Motion(np.r_[0.0, 0.0, -9.81], np.zeros(3))
    ids = []
    for i, (jt, p) in enumerate(zip(joints, parents)):
        qr = rng.normal(size=4)
        R = quat_to_rot(qr / np.linalg.norm(qr))
        r = rng.uniform(-0.5, 0.5, 3) if i else np.zeros(3)
        A = rng.normal(size=(3, 3))
        inertia = Inertia(rng.uniform(0.5, 2.0), rng.uniform(-0.2, 0.2, 3), A @ A.T * 0.05 + 0.02 * np.eye(3))
        specs.append((f"b{i}", f"b{p}" if p >= 0 else "world", jt, Transform.from_pose(R, r), inertia, f"j{i}"))
        jid = pm.addJoint(ids[p] if p >= 0 else 0, _pin_joint(jt), pin.SE3(R, r), f"j{i}")
        pm.appendBodyToJoint(jid, pin.Inertia(inertia.mass, inertia.com, inertia.Ic), pin.SE3.Identity())
        pm.addBodyFrame(f"b{i}", jid, pin.SE3.Identity(), 0)
        ids.append(jid)
    b = sd.ModelBuilder(f"twin{seed}", gravity=(0.0, 0.0, -9.81))
    for name, parent, jt, X, inertia, jname in reversed(specs):
        b.add_body(name, parent, jt, X, inertia, joint_name=jname)
        if armature:
            b.set_armature(jname, rng.uniform(0.05, 0.5, jt.nv))
    model = b.finalize()
    if armature:
        pm.armature = Coords(model, pm).P @ model.dof_armature
    assert model.jnt_names != tuple(pm.names[1:]), "the twin is meant to exercise a joint reordering"
    return model, pm


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_joint_types_dynamics_match(seed):
    model, pmodel = _twin_trees(seed)
    assert sorted(set(model.jnt_type.tolist())) == sorted({J.FREE, J.REVOLUTE, J.PRISMATIC, J.HELICAL,
                                                           J.UNIVERSAL, J.CYLINDRICAL, J.PLANAR, J.SPHERICAL})
    rng = np.random.default_rng(100 + seed)
    for k, (q, qd, qdd, tau) in enumerate(_states(model, rng)):
        for what, actual, expected in dynamics_quantities(model, pmodel, q, qd, qdd, tau):
            assert_close(actual, expected, PIN_TOL, f"twin tree {seed} state {k}: {what}")


def test_armature_dynamics_match():
    """Joint armature on every joint type: M, RNEA, ABA and M^-1 as Pinocchio's (``model.armature``)."""
    model, pmodel = _twin_trees(3, armature=True)
    assert np.all(model.dof_armature > 0.0)
    rng = np.random.default_rng(103)
    for k, (q, qd, qdd, tau) in enumerate(_states(model, rng)):
        for what, actual, expected in dynamics_quantities(model, pmodel, q, qd, qdd, tau):
            assert_close(actual, expected, PIN_TOL, f"twin tree with armature, state {k}: {what}")


@pytest.mark.parametrize("seed", [0, 1])
def test_joint_types_frames_match(seed):
    model, pmodel = _twin_trees(seed)
    rng = np.random.default_rng(200 + seed)
    frames = [f"b{i}" for i in range(model.nb)]
    for k, (q, qd, _, _) in enumerate(_states(model, rng, n=2)):
        for what, actual, expected in frame_quantities(model, pmodel, q, qd, frames):
            assert_close(actual, expected, PIN_TOL, f"twin tree {seed} state {k}: {what}")


def test_conversion_detects_wrong_order():
    """The coordinate map is not vacuous: without it (raw Pinocchio order) the comparison fails."""
    model, pmodel = _twin_trees(0)
    c = Coords(model, pmodel)
    rng = np.random.default_rng(3)
    q, qd = model.random_q(rng), rng.normal(size=model.nv)
    tau_pin = pin.rnea(pmodel, pmodel.createData(), c.q(q), c.v(qd), np.zeros(model.nv))
    tau_sd = sd.rnea(model, model.data(), q, qd, np.zeros(model.nv))
    assert_close(tau_sd, c.to_sd(tau_pin), PIN_TOL, "rnea, converted")
    with pytest.raises(AssertionError):
        assert_close(tau_sd, tau_pin, PIN_TOL, "rnea, not converted")
