"""Joints: the kernels' joint transforms and motion subspaces against first principles and finite
differences, the UNIVERSAL ``Sdot qd`` term, configuration integrate/difference, and the quaternion
helpers of :mod:`soadyn.spatial`."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.linalg import expm
from scipy.spatial.transform import Rotation

import soadyn as sd
from soadyn import joints as J
from soadyn import spatial as sp
from tests.reference import dense
from tests.support import ALGORITHMS, SAME_MATH, assert_close

FD_EPS = 1e-6
"""Central-difference step along ``integrate`` for the joint-level checks."""
FD_TOL = 1e-8
"""Central differences of unit-scale joint poses with step 1e-6: truncation ~ eps^2 = 1e-12, rounding
~ 1e-16 / eps = 1e-10; 1e-8 is a 100x margin over rounding, far below any modelling error (O(1))."""

MOVING = (J.REVOLUTE, J.PRISMATIC, J.HELICAL, J.UNIVERSAL, J.CYLINDRICAL, J.PLANAR, J.SPHERICAL, J.FREE)
NAMES = [J.JOINT_TYPE_NAMES[t] for t in MOVING]


def _axis(rng):
    a = rng.normal(size=3)
    return a / np.linalg.norm(a)


def make_joint(t: int, rng) -> J.Joint:
    a = _axis(rng)
    if t == J.REVOLUTE:
        return J.Revolute(a)
    if t == J.PRISMATIC:
        return J.Prismatic(a)
    if t == J.HELICAL:
        return J.Helical(a, pitch=0.3)
    if t == J.UNIVERSAL:
        return J.Universal(a, _axis(rng))  # axes deliberately not perpendicular
    if t == J.CYLINDRICAL:
        return J.Cylindrical(a)
    if t == J.PLANAR:
        return J.Planar(a, np.cross(a, _axis(rng)))
    if t == J.SPHERICAL:
        return J.Spherical()
    return J.Free()


def single_joint_model(t: int, seed: int = 0) -> sd.Model:
    """One body on a joint of type ``t`` with random axes, a random tree placement and inertia, plus a
    second body on a revolute joint (so the first joint's transform also enters a child)."""
    rng = np.random.default_rng(seed)
    b = sd.ModelBuilder(f"single_{J.JOINT_TYPE_NAMES[t]}")
    R = Rotation.random(random_state=seed).as_matrix()
    b.add_body("body", "world", make_joint(t, rng), sd.Transform.from_pose(R, rng.uniform(-1, 1, 3)),
               sd.Inertia(1.3, rng.uniform(-0.2, 0.2, 3), np.diag([0.1, 0.2, 0.3])))
    b.add_body("child", "body", J.Revolute(_axis(rng)), sd.Transform.from_pose(None, rng.uniform(-1, 1, 3)),
               sd.Inertia(0.7, rng.uniform(-0.2, 0.2, 3), np.diag([0.05, 0.04, 0.03])))
    return b.finalize()


def _xj_pose(data) -> tuple[np.ndarray, np.ndarray]:
    """Successor pose (R, p) in the predecessor frame from the kernel's ``X_J = (E, r)`` of body 0, recovered
    from ``^0X_world = X_J X_T`` and the tree placement: ``E_J = E E_T^T``, ``r_J = E_T (r - r_T)``."""
    model = data.model
    ET, rT = model.body_Xtree_E[0], model.body_Xtree_r[0]
    EJ = data.X_E[0] @ ET.T
    return EJ.T.copy(), ET @ (data.X_r[0] - rT)


def _vee(W) -> np.ndarray:
    W = 0.5 * (W - W.T)
    return np.array([W[2, 1], W[0, 2], W[1, 0]])


@pytest.fixture(params=MOVING, ids=NAMES)
def jtype(request):
    return request.param


def test_joint_transform_vs_first_principles(jtype, rng):
    model = single_joint_model(jtype)
    data = model.data()
    for _ in range(5):
        q = model.random_q(rng)
        sd.fk(model, data, q)
        R, p = dense.joint_pose(model, 0, q)
        Rk, pk = _xj_pose(data)
        assert_close(Rk, R, SAME_MATH, f"{J.JOINT_TYPE_NAMES[jtype]}: X_J rotation vs first principles")
        assert_close(pk, p, SAME_MATH, f"{J.JOINT_TYPE_NAMES[jtype]}: X_J translation vs first principles")
        assert_close(Rk.T @ Rk, np.eye(3), SAME_MATH, "X_J rotation is orthonormal")


def test_joint_neutral_is_identity(jtype):
    model = single_joint_model(jtype)
    data = model.data()
    sd.fk(model, data, model.neutral_q())
    R, p = _xj_pose(data)
    assert_close(R, np.eye(3), SAME_MATH, "X_J(neutral) rotation")
    assert_close(p, np.zeros(3), SAME_MATH, "X_J(neutral) translation")


def test_motion_subspace_vs_finite_differences(jtype, rng):
    """Column k of S (successor frame) is ``[vee(R^T dR/dt); R^T dp/dt]`` along ``integrate(q, e_k t)``."""
    model = single_joint_model(jtype)
    data = model.data()
    n = model.jnt_nv[0]
    for _ in range(4):
        q = model.random_q(rng)
        sd.fk(model, data, q)
        S_kernel = data.S[:n].T.copy()
        R0, _ = _xj_pose(data)
        fd = np.zeros((6, n))
        for k in range(n):
            e = np.zeros(model.nv)
            e[k] = FD_EPS
            sd.fk(model, data, sd.integrate(model, q, e))
            Rp, pp = _xj_pose(data)
            sd.fk(model, data, sd.integrate(model, q, -e))
            Rm, pm = _xj_pose(data)
            fd[:, k] = np.r_[_vee(R0.T @ (Rp - Rm)), R0.T @ (pp - pm)] / (2 * FD_EPS)
        name = J.JOINT_TYPE_NAMES[jtype]
        assert_close(S_kernel, fd, FD_TOL, f"{name}: kernel S vs finite differences of X_J")
        assert_close(dense.joint_subspace(model, 0, q), fd, FD_TOL, f"{name}: reference S vs finite differences")
        # the kernel's state-dependent S equals the model's constant S except for UNIVERSAL
        if jtype != J.UNIVERSAL:
            assert_close(S_kernel, model.dof_S[:n].T, 0.0, f"{name}: S is the constant dof_S")


def test_motion_subspace_through_frame_jacobian(jtype):
    """The local Jacobian of the body frame of a one-joint chain is S."""
    model = single_joint_model(jtype)
    data = model.data()
    q = model.random_q(np.random.default_rng(3))
    n = model.jnt_nv[0]
    Jb = sd.frame_jacobian(model, data, q, "body", "local")
    assert_close(Jb[:, :n], dense.joint_subspace(model, 0, q), SAME_MATH, "body Jacobian vs S")
    assert not Jb[:, n:].any(), "the child's dof does not move the parent body"


def test_universal_sdot_qd_vs_finite_differences():
    """``c = v x (S qd) + Sdot qd`` of the root body is ``Sdot qd`` (``v = S qd``); compare with
    ``(S(q + qd h) - S(q - qd h)) qd / 2h`` (UNIVERSAL integrates additively)."""
    model = single_joint_model(J.UNIVERSAL, seed=4)
    data = model.data()
    rng = np.random.default_rng(4)
    for _ in range(5):
        q = model.random_q(rng)
        qd = np.r_[rng.normal(size=2), 0.0]
        sd.fk(model, data, sd.integrate(model, q, qd, FD_EPS))
        Sp = data.S[:2].T.copy()
        sd.fk(model, data, sd.integrate(model, q, qd, -FD_EPS))
        Sm = data.S[:2].T.copy()
        fd = (Sp - Sm) @ qd[:2] / (2 * FD_EPS)
        sd.fk(model, data, q, qd)
        assert np.abs(fd).max() > 1e-3, "test setup: Sdot qd should not vanish"
        assert_close(data.c[0], fd, FD_TOL, "universal Sdot qd vs finite differences of S")
        assert_close(data.c[0], dense.joint_bias(model, 0, q, qd), SAME_MATH, "universal Sdot qd vs reference")
        # and as the body's bias acceleration (local spatial Jdot qd)
        h = sd.frame_bias_acceleration(model, data, q, qd, "body", "local")
        assert_close(h, fd, FD_TOL, "universal: frame_bias_acceleration of the body vs Sdot qd")


@pytest.mark.parametrize("t", [t for t in MOVING if t != J.UNIVERSAL], ids=[n for t, n in zip(MOVING, NAMES)
                                                                           if t != J.UNIVERSAL])
def test_constant_subspace_joints_have_no_sdot(t, rng):
    model = single_joint_model(t, seed=5)
    data = model.data()
    q, qd = model.random_q(rng), np.r_[rng.normal(size=model.nv - 1), 0.0]
    sd.fk(model, data, q, qd)
    assert_close(data.c[0], np.zeros(6), SAME_MATH, f"{J.JOINT_TYPE_NAMES[t]}: c of the root body")


# ------------------------------------------------------------------------------- integrate / difference
def _twist_matrix(S, v) -> np.ndarray:
    xi = S @ v
    T = np.zeros((4, 4))
    T[:3, :3] = dense.skew(xi[:3])
    T[:3, 3] = xi[3:]
    return T


def test_integrate_is_the_successor_frame_exponential(jtype, rng):
    """For joints with constant S: ``T_J(integrate(q, v)) = T_J(q) expm(S v)`` (successor-frame twist)."""
    model = single_joint_model(jtype, seed=6)
    for _ in range(5):
        q = model.random_q(rng)
        v = rng.normal(size=model.nv)
        q1 = sd.integrate(model, q, v)
        T1 = dense.homogeneous(*dense.joint_pose(model, 0, q1))
        if jtype == J.UNIVERSAL:
            assert_close(q1[:2], q[:2] + v[:2], SAME_MATH, "universal integrates additively")
            continue
        n = model.jnt_nv[0]
        expected = dense.homogeneous(*dense.joint_pose(model, 0, q)) @ expm(_twist_matrix(model.dof_S[:n].T, v[:n]))
        assert_close(T1, expected, ALGORITHMS, f"{J.JOINT_TYPE_NAMES[jtype]}: T_J(q (+) v) vs T_J(q) exp(S v)")


def test_integrate_is_a_one_parameter_group(jtype, rng):
    model = single_joint_model(jtype, seed=7)
    q, v = model.random_q(rng), rng.normal(size=model.nv)
    a = sd.integrate(model, sd.integrate(model, q, v, 0.3), v, 0.5)
    b = sd.integrate(model, q, v, 0.8)
    assert_close(a, b, ALGORITHMS, "integrate(integrate(q, v, s), v, t) vs integrate(q, v, s + t)")
    assert_close(sd.integrate(model, q, v, 0.8), sd.integrate(model, q, 0.8 * v), SAME_MATH, "dt scaling")
    assert_close(sd.integrate(model, q, np.zeros(model.nv)), q, SAME_MATH, "integrate(q, 0)")
    back = sd.integrate(model, sd.integrate(model, q, v), -v)
    assert_close(back, q, ALGORITHMS, "integrate(integrate(q, v), -v)")


def _same_config(model, a, b, tol, what):
    """Compare configurations, quaternions up to sign."""
    a, b = a.copy(), b.copy()
    for i in range(model.nb):
        if model.jnt_type[i] in (J.SPHERICAL, J.FREE):
            o = model.jnt_qadr[i] + (3 if model.jnt_type[i] == J.FREE else 0)
            if np.dot(a[o:o + 4], b[o:o + 4]) < 0:
                b[o:o + 4] *= -1
    assert_close(a, b, tol, what)


def test_integrate_difference_round_trips(jtype, rng):
    model = single_joint_model(jtype, seed=8)
    for scale in (1e-7, 0.3, 2.0):
        q0 = model.random_q(rng)
        v = rng.normal(size=model.nv)
        v *= scale / np.linalg.norm(v)  # |rotation| < pi: the logarithm's principal branch
        q1 = sd.integrate(model, q0, v)
        assert_close(sd.difference(model, q0, q1), v, ALGORITHMS, f"difference(q0, q0 (+) v), |v| ~ {scale}")
        q2 = model.random_q(rng)
        _same_config(model, sd.integrate(model, q0, sd.difference(model, q0, q2)), q2, ALGORITHMS,
                     "q0 (+) difference(q0, q2)")
    q = model.random_q(rng)
    assert_close(sd.difference(model, q, q), np.zeros(model.nv), SAME_MATH, "difference(q, q)")


def test_difference_ignores_quaternion_sign():
    for t in (J.SPHERICAL, J.FREE):
        model = single_joint_model(t, seed=9)
        rng = np.random.default_rng(9)
        q0, q1 = model.random_q(rng), model.random_q(rng)
        q1n = q1.copy()
        o = 3 if t == J.FREE else 0
        q1n[o:o + 4] *= -1
        assert_close(sd.difference(model, q0, q1n), sd.difference(model, q0, q1), ALGORITHMS,
                     f"{J.JOINT_TYPE_NAMES[t]}: difference to -quat")


def test_integrate_all_joint_types_in_one_tree(rng):
    model = sd.models.auto_tree(10, 1.5, seed=2, joint_mix=sd.models.ALL_JOINTS)
    q0, v = model.random_q(rng), 0.5 * rng.normal(size=model.nv)
    q1 = sd.integrate(model, q0, v)
    assert_close(sd.difference(model, q0, q1), v, ALGORITHMS, "tree: difference(q0, q0 (+) v)")
    for i in range(model.nb):
        if model.jnt_type[i] in (J.SPHERICAL, J.FREE):
            o = model.jnt_qadr[i] + (3 if model.jnt_type[i] == J.FREE else 0)
            assert abs(np.linalg.norm(q1[o:o + 4]) - 1.0) < SAME_MATH, "integrate keeps unit quaternions"


# ------------------------------------------------------------------------------------- quaternions
def _rand_quat(rng):
    q = rng.normal(size=4)
    return q / np.linalg.norm(q)


def test_quat_to_rot_matches_scipy(rng):
    for _ in range(20):
        q = _rand_quat(rng)
        assert_close(sp.quat_to_rot(q), Rotation.from_quat(q).as_matrix(), SAME_MATH, "quat_to_rot vs scipy")
        assert_close(sp.quat_to_rot(3.0 * q), sp.quat_to_rot(q), SAME_MATH, "quat_to_rot normalizes")


def test_rot_to_quat_round_trips(rng):
    rots = [Rotation.from_quat(_rand_quat(rng)).as_matrix() for _ in range(20)]
    # the branches of Shepperd's method: near-identity, and angle near pi about each axis
    rots += [np.eye(3)] + [Rotation.from_rotvec(np.pi * e * (1 - 1e-9)).as_matrix() for e in np.eye(3)]
    rots += [Rotation.from_rotvec(np.pi * a / np.linalg.norm(a)).as_matrix() for a in rng.normal(size=(5, 3))]
    for R in rots:
        q = sp.rot_to_quat(R)
        assert abs(np.linalg.norm(q) - 1.0) < SAME_MATH
        assert q[3] >= 0.0
        assert_close(sp.quat_to_rot(q), R, 1e-10, "quat_to_rot(rot_to_quat(R))")
    for _ in range(10):
        q = _rand_quat(rng)
        q = q if q[3] >= 0 else -q
        assert_close(sp.rot_to_quat(sp.quat_to_rot(q)), q, 1e-10, "rot_to_quat(quat_to_rot(q))")


def test_quat_mul_matches_rotation_composition(rng):
    for _ in range(10):
        a, b = _rand_quat(rng), _rand_quat(rng)
        ab = sp.quat_mul(a, b)
        assert_close(sp.quat_to_rot(ab), sp.quat_to_rot(a) @ sp.quat_to_rot(b), SAME_MATH, "R(a b) = R(a) R(b)")
        assert_close(ab, (Rotation.from_quat(a) * Rotation.from_quat(b)).as_quat() * np.sign(
            np.dot(ab, (Rotation.from_quat(a) * Rotation.from_quat(b)).as_quat())), SAME_MATH, "quat_mul vs scipy")
    assert_close(sp.quat_mul([0, 0, 0, 1.0], a), a, 0.0, "identity quaternion")


def test_quat_exp_log(rng):
    for th in (0.0, 1e-10, 1e-7, 1e-3, 0.5, 2.0, np.pi - 1e-6):
        phi = th * _axis(rng)
        q = sp.quat_exp(phi)
        assert abs(np.linalg.norm(q) - 1.0) < SAME_MATH
        assert_close(sp.quat_to_rot(q), Rotation.from_rotvec(phi).as_matrix(), SAME_MATH, f"quat_exp, |phi| ~ {th}")
        assert_close(sp.quat_log(q), phi, 1e-10, f"quat_log(quat_exp(phi)), |phi| ~ {th}")
        assert_close(sp.quat_log(-q), phi, 1e-10, "quat_log(-q)")
    for _ in range(10):
        q = _rand_quat(rng)
        phi = sp.quat_log(q)
        assert np.linalg.norm(phi) <= np.pi + 1e-12
        assert_close(Rotation.from_rotvec(phi).as_matrix(), sp.quat_to_rot(q), 1e-10, "exp(log(q))")


def test_quat_integrate_and_difference(rng):
    for _ in range(10):
        q0 = _rand_quat(rng)
        w = rng.normal(size=3)
        dt = 0.37
        q1 = sp.quat_integrate(q0, w, dt)
        # body-frame angular velocity: R1 = R0 exp(w~ dt)
        assert_close(sp.quat_to_rot(q1), sp.quat_to_rot(q0) @ Rotation.from_rotvec(w * dt).as_matrix(), SAME_MATH,
                     "quat_integrate is a body-frame rotation")
        assert_close(sp.quat_difference(q0, q1), w * dt, 1e-10, "quat_difference(q0, quat_integrate(q0, w, dt))")
        q2 = _rand_quat(rng)
        d = sp.quat_difference(q0, q2)
        assert_close(sp.quat_to_rot(sp.quat_integrate(q0, d, 1.0)), sp.quat_to_rot(q2), 1e-10,
                     "quat_integrate(q0, quat_difference(q0, q2), 1)")


def test_rot_axis_and_rpy(rng):
    for _ in range(10):
        a = _axis(rng)
        th = rng.uniform(-4, 4)
        assert_close(sp.rot_axis(a, th), Rotation.from_rotvec(a * th).as_matrix(), SAME_MATH, "rot_axis vs scipy")
        rpy = rng.uniform(-np.pi, np.pi, 3)
        # URDF: fixed axes x, y, z  ==  scipy's extrinsic "xyz"
        assert_close(sp.rpy_to_rot(rpy), Rotation.from_euler("xyz", rpy).as_matrix(), SAME_MATH, "rpy_to_rot")
    assert_close(sp.rpy_to_rot([0.0, 0.0, np.pi / 2]) @ [1.0, 0.0, 0.0], [0.0, 1.0, 0.0], SAME_MATH, "yaw 90 deg")


def test_planar_difference_full_turn_with_translation_is_unreachable():
    """A planar turn of 2 pi k with a translation has no constant body velocity (the SE(2) exponential's
    translation factor vanishes): ``difference`` says so instead of returning a huge velocity."""
    b = sd.ModelBuilder()
    b.add_body("p", "world", sd.joints.Planar(), None, sd.Inertia.box(1.0, (1.0, 1.0, 1.0)))
    model = b.finalize()
    with pytest.raises(ValueError, match="multiple of 2 pi"):
        sd.difference(model, [0.0, 0.0, 0.0], [1.0, 0.0, 2 * np.pi])
    v = sd.difference(model, [0.0, 0.0, 0.0], [0.0, 0.0, 2 * np.pi])
    assert np.allclose(v, [2 * np.pi, 0.0, 0.0])
    assert np.allclose(sd.integrate(model, [0.0, 0.0, 0.0], v), [0.0, 0.0, 2 * np.pi])
