"""The world kinematic Hessian (soadyn.kinematic_hessian) against Pinocchio's getJointKinematicHessian (WORLD)
on example-robot-data robots, every body, joints matched by name (tests/crosscheck/pin_convert.py)."""

import numpy as np
import pytest

import soadyn as sd
from soadyn.kinematic_hessian import KinematicHessian
from tests.support import EXTERNAL, assert_close


@pytest.mark.external
@pytest.mark.parametrize("name", ["ur5", "solo12"])
def test_kinematic_hessian_matches_pinocchio(name):
    pin = pytest.importorskip("pinocchio")
    from tests.crosscheck.pin_convert import Coords, lin_ang_swap

    try:
        path = str(sd.models.robot_urdf(name))
    except ValueError as exc:
        pytest.skip(str(exc))
    m = sd.models.robot(name)
    pm = (pin.buildModelFromUrdf(path, pin.JointModelFreeFlyer()) if sd.models.robots.ROBOTS[name][1]
          else pin.buildModelFromUrdf(path))
    c, pdata = Coords(m, pm), pm.createData()
    q = m.random_q(np.random.default_rng(3))
    kh = KinematicHessian(m, m.data(), q)
    pin.computeJointJacobians(pm, pdata, c.q(q))
    pin.computeJointKinematicHessians(pm, pdata, c.q(q))
    for b in range(m.nb):
        raw = np.asarray(pin.getJointKinematicHessian(pm, pdata, pm.getJointId(m.jnt_names[b]), pin.WORLD))
        # the binding hands the column-major tensor over as is: H[a, j, i] = d J_j / d q_i
        H = raw.ravel(order="C").reshape((6, m.nv, m.nv), order="F")
        H = np.einsum("aji,jl,ik->akl", lin_ang_swap(H.reshape(6, -1)).reshape(H.shape), c.P, c.P)
        assert_close(kh.H * kh.support[b], H, EXTERNAL, f"{name} {m.body_names[b]} dJ/dq")
        Jp = np.asarray(pin.getJointJacobian(pm, pdata, pm.getJointId(m.jnt_names[b]), pin.WORLD))
        assert_close(kh.body_jacobian(b), lin_ang_swap(Jp) @ c.P, EXTERNAL, f"{name} {m.body_names[b]} J")
