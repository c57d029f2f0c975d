"""Analytical dynamics derivatives (soadyn.derivatives) against central finite differences of soadyn's own
RNEA, ABA and frame functions on random trees with every joint type (configuration perturbations through
``soadyn.integrate``: the tangent space), and against Pinocchio's computeRNEADerivatives,
computeABADerivatives, getFrameJacobianTimeVariation and getFrameAccelerationDerivatives on
example-robot-data robots (joints matched by name, tests/crosscheck/pin_convert.py)."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

import soadyn as sd
from soadyn import derivatives as D
from soadyn.models import ALL_JOINTS, auto_tree
from tests.support import ALGORITHMS, SAME_MATH, assert_close

FD_STEP = 1e-6
"""Central-difference step: truncation error ~ step^2, round-off ~ 1e-16 |f| / step."""
FD_TOL = 1e-6
"""Agreement asked of an analytical derivative with its central difference (relative to max(1, |FD|))."""
PIN_DERIV_TOL = 1e-8
"""Agreement asked of soadyn's derivatives with Pinocchio's (relative to max(1, |Pinocchio|))."""


ARMATURE_SEED = 1
"""The tree of this seed carries a random joint armature on every dof."""


def _tree(seed: int):
    """A branched tree with every joint type (universal, planar, spherical, free included), f_ext on all."""
    m = auto_tree(9, branching=1.5, seed=seed, joint_mix=ALL_JOINTS)
    rng = np.random.default_rng(seed)
    if seed == ARMATURE_SEED:
        armature = np.random.default_rng(100 + seed).uniform(0.05, 0.5, m.nv)
        armature.setflags(write=False)
        m = dataclasses.replace(m, dof_armature=armature)
    return m, m.random_q(rng), rng.normal(size=m.nv), rng.normal(size=m.nv), rng.normal(size=(m.nb, 6))


def _fd(model, f, q, qd, x):
    """Central differences of ``f(q, qd, x)`` along each tangent dof of q, each entry of qd and of x."""
    nv = model.nv
    cols = [[], [], []]
    for k in range(nv):
        e = np.zeros(nv)
        e[k] = FD_STEP
        cols[0].append(f(sd.integrate(model, q, e), qd, x) - f(sd.integrate(model, q, -e), qd, x))
        cols[1].append(f(q, qd + e, x) - f(q, qd - e, x))
        cols[2].append(f(q, qd, x + e) - f(q, qd, x - e))
    return [np.array(c).T / (2.0 * FD_STEP) for c in cols]


@pytest.mark.parametrize("seed", [0, 1])
def test_rnea_and_aba_derivatives_match_finite_differences(seed):
    m, q, qd, qdd, fext = _tree(seed)
    data, scratch = m.data(), m.data()
    r = D.rnea_derivatives(m, data, q, qd, qdd, fext)
    assert_close(r.tau, sd.rnea(m, scratch, q, qd, qdd, fext), ALGORITHMS, "tau")
    fd = _fd(m, lambda q_, qd_, a_: sd.rnea(m, scratch, q_, qd_, a_, fext).copy(), q, qd, qdd)
    for name, got, want in zip(("dtau_dq", "dtau_dqd", "M"), r[1:], fd):
        assert_close(got, want, FD_TOL, f"rnea {name}")
    assert_close(r.M, sd.crba(m, scratch, q), SAME_MATH, "M vs crba")

    tau = r.tau.copy()
    a = D.aba_derivatives(m, data, q, qd, tau, fext)
    assert_close(a.qdd, qdd, ALGORITHMS, "aba qdd")
    fd = _fd(m, lambda q_, qd_, t_: sd.aba(m, scratch, q_, qd_, t_, fext).copy(), q, qd, tau)
    for name, got, want in zip(("dqdd_dq", "dqdd_dqd", "Minv"), a[1:], fd):
        assert_close(got, want, FD_TOL, f"aba {name}")


def test_frame_derivatives_match_finite_differences():
    m, q, qd, qdd, _ = _tree(2)
    data, scratch = m.data(), m.data()
    frame = f"tip{m.nb - 1}"
    for ref in ("local", "world_aligned"):
        J, dJ = D.frame_jacobian_time_variation(m, data, q, qd, frame, ref)
        assert_close(J, sd.frame_jacobian(m, scratch, q, frame, ref), SAME_MATH, f"J {ref}")
        ahead = sd.frame_jacobian(m, scratch, sd.integrate(m, q, qd, FD_STEP), frame, ref).copy()
        behind = sd.frame_jacobian(m, scratch, sd.integrate(m, q, qd, -FD_STEP), frame, ref).copy()
        assert_close(dJ, (ahead - behind) / (2.0 * FD_STEP), FD_TOL, f"dJ {ref}")
        assert_close(dJ @ qd, sd.frame_bias_acceleration(m, scratch, q, qd, frame, ref), ALGORITHMS,
                     f"dJ qd {ref}")

    R = sd.frame_pose(m, scratch, q, frame)[:3, :3]
    for ref in ("local", "world_aligned"):
        def va(q_, qd_, a_):
            out = D.frame_acceleration_derivatives(m, scratch, q_, qd_, a_, frame, ref)
            return np.r_[out.v, out.a]

        r = D.frame_acceleration_derivatives(m, data, q, qd, qdd, frame, ref)
        J = sd.frame_jacobian(m, scratch, q, frame, ref)
        if ref == "local":
            local = r
            assert_close(r.v, J @ qd, ALGORITHMS, "frame v")
            assert_close(r.a, J @ qdd + sd.frame_bias_acceleration(m, scratch, q, qd, frame), ALGORITHMS, "frame a")
        else:  # the local spatial velocity and acceleration in world axes
            for what, got, want in (("v", r.v, local.v), ("a", r.a, local.a)):
                assert_close(got, np.r_[R @ want[:3], R @ want[3:]], ALGORITHMS, f"frame {what} {ref}")
        dq, dqd, dqdd = _fd(m, va, q, qd, qdd)
        assert_close(r.dv_dq, dq[:6], FD_TOL, f"dv_dq {ref}")
        assert_close(r.da_dq, dq[6:], FD_TOL, f"da_dq {ref}")
        assert_close(dqd[:6], J, FD_TOL, f"dv_dqd {ref}")
        assert_close(r.da_dqd, dqd[6:], FD_TOL, f"da_dqd {ref}")
        assert_close(r.da_dqdd, dqdd[6:], FD_TOL, f"da_dqdd {ref}")


def test_batches_equal_single_calls():
    m, q, qd, qdd, _ = _tree(3)
    rng = np.random.default_rng(3)
    K = 5
    Q = np.array([m.random_q(rng) for _ in range(K)])
    QD, X = rng.normal(size=(K, m.nv)), rng.normal(size=(K, m.nv))
    data = m.data()
    for batch, single in ((D.rnea_derivatives_batch, D.rnea_derivatives),
                          (D.aba_derivatives_batch, D.aba_derivatives)):
        out = batch(m, Q, QD, X)
        for s in range(K):
            for got, want in zip(out, single(m, data, Q[s], QD[s], X[s])):
                assert_close(got[s], want, SAME_MATH, f"{batch.__name__} state {s}")
    Q[2, 0] = np.nan
    with pytest.raises(ValueError, match="state 2 of the batch"):
        D.aba_derivatives_batch(m, Q, QD, X)


def test_bad_input_is_named():
    m, q, qd, qdd, _ = _tree(0)
    with pytest.raises(ValueError, match="qdd"):
        D.rnea_derivatives(m, m.data(), q, qd, qdd[:-1])
    with pytest.raises(ValueError, match="qd: contains NaN"):
        D.aba_derivatives(m, m.data(), q, np.full(m.nv, np.nan), qdd)
    with pytest.raises(ValueError, match="reference"):
        D.frame_jacobian_time_variation(m, m.data(), q, qd, "tip1", "world")
    with pytest.raises(ValueError, match="reference"):
        D.frame_acceleration_derivatives(m, m.data(), q, qd, qdd, "tip1", "world")


# ---------------------------------------------------------------------------------------- Pinocchio
@pytest.mark.external
@pytest.mark.parametrize("name, frame", [("ur5", "tool0"), ("panda", "panda_hand_tcp"), ("solo12", "HR_FOOT"),
                                         ("talos", "right_sole_link")])
def test_derivatives_match_pinocchio(name, frame):
    pin = pytest.importorskip("pinocchio")
    from tests.crosscheck.pin_convert import Coords, sym_upper

    try:
        path = str(sd.models.robot_urdf(name))
    except ValueError as exc:
        pytest.skip(str(exc))
    m = sd.models.robot(name)
    pm = (pin.buildModelFromUrdf(path, pin.JointModelFreeFlyer()) if sd.models.robots.ROBOTS[name][1]
          else pin.buildModelFromUrdf(path))
    c, pdata, data = Coords(m, pm), pm.createData(), m.data()
    rng = np.random.default_rng(7)
    q, qd, qdd, tau = m.random_q(rng), rng.normal(size=m.nv), rng.normal(size=m.nv), rng.normal(size=m.nv)
    fext = rng.normal(size=(m.nb, 6))
    pin_f = pin.StdVec_Force()
    for _ in range(pm.njoints):
        pin_f.append(pin.Force.Zero())
    for i in range(m.nb):  # both: forces in the joint's (body's) frame about its origin
        pin_f[pm.getJointId(m.jnt_names[i])] = pin.Force(fext[i, 3:], fext[i, :3])
    qp, vp = c.q(q), c.v(qd)

    r = D.rnea_derivatives(m, data, q, qd, qdd, fext)
    dq, dv, da = pin.computeRNEADerivatives(pm, pdata, qp, vp, c.v(qdd), pin_f)
    for what, got, want in (("dtau_dq", r.dtau_dq, dq), ("dtau_dqd", r.dtau_dqd, dv), ("M", r.M, sym_upper(da))):
        assert_close(got, c.matrix_to_sd(want), PIN_DERIV_TOL, f"{name} {what}")

    a = D.aba_derivatives(m, data, q, qd, tau, fext)
    pin_a = pin.computeABADerivatives(pm, pdata, qp, vp, c.v(tau), pin_f)
    for what, got, want in zip(("dqdd_dq", "dqdd_dqd", "Minv"), a[1:], pin_a):
        assert_close(got, c.matrix_to_sd(want), PIN_DERIV_TOL, f"{name} {what}")

    fid = pm.getFrameId(frame)
    pin.computeJointJacobiansTimeVariation(pm, pdata, qp, vp)
    pin.updateFramePlacements(pm, pdata)
    for ref, pref in (("local", pin.LOCAL), ("world_aligned", pin.LOCAL_WORLD_ALIGNED)):
        _, dJ = D.frame_jacobian_time_variation(m, data, q, qd, frame, ref)
        want = c.jacobian_to_sd(pin.getFrameJacobianTimeVariation(pm, pdata, fid, pref))
        assert_close(dJ, want, PIN_DERIV_TOL, f"{name} dJ {ref}")

    pin.computeForwardKinematicsDerivatives(pm, pdata, qp, vp, c.v(qdd))
    for ref, pref in (("local", pin.LOCAL), ("world_aligned", pin.LOCAL_WORLD_ALIGNED)):
        fa = D.frame_acceleration_derivatives(m, data, q, qd, qdd, frame, ref)
        got = list(fa[2:])
        if ref == "world_aligned":
            # Pinocchio varies v and a at the frame origin held fixed in the world; soadyn's derivatives also
            # follow the origin, which moves by the linear rows of the world-aligned Jacobian da_dqdd
            got[0] = got[0] - np.r_[np.zeros((3, m.nv)), np.cross(fa.v[:3, None], fa.da_dqdd[3:], axis=0)]
            got[1] = got[1] - np.r_[np.zeros((3, m.nv)), np.cross(fa.a[:3, None], fa.da_dqdd[3:], axis=0)]
        for what, mine, want in zip(("dv_dq", "da_dq", "da_dqd", "da_dqdd"), got,
                                    pin.getFrameAccelerationDerivatives(pm, pdata, fid, pref)):
            assert_close(mine, c.jacobian_to_sd(want), PIN_DERIV_TOL, f"{name} {what} {ref}")
