"""Every URDF shipped by example-robot-data that Pinocchio loads, loaded by soadyn with a fixed and with a
floating base and compared with Pinocchio (Carpentier et al., SII 2019): RNEA, CRBA, local frame
Jacobians of every link, and ABA and M^-1 where the mass matrix is regular. Where it is singular (a joint
moving a subtree without inertia, e.g. romeo's hands) ABA and M^-1 raise a ValueError naming that joint
(Pinocchio returns NaN). Links whose non-physical inertia soadyn repairs (with a warning) get the repaired
inertia in the Pinocchio model too, and every other body's inertia must equal Pinocchio's.

Speed: one model per variant, two random states, meshes never loaded; every model shares the compiled
kernels (one signature per kernel)."""

from __future__ import annotations

import re
import warnings

import numpy as np
import pytest

import soadyn as sd
from soadyn.io.urdf import FLOATING_WORLD_LINK, load_urdf
from soadyn.spatial import Inertia
from tests.support import ALGORITHMS, SAME_MATH, assert_close

pin = pytest.importorskip("pinocchio")

from tests.crosscheck.pin_convert import Coords, sym_upper  # noqa: E402

pytestmark = pytest.mark.external

PIN_TOL = ALGORITHMS
"""Agreement asked of soadyn vs Pinocchio: 1e-9 relative to max(1, |reference|)."""
N_STATES = 2
BACKWARD_ERROR = 1e-15
"""Relative backward error of ABA and of the M^-1 recursion (a few units of round-off): their results are
compared at ``max(PIN_TOL, BACKWARD_ERROR cond(M))``."""


def _robots_dir():
    try:
        return sd.models.robot_urdf("ur5").parents[2]
    except ValueError:  # example-robot-data not installed
        return None


ROOT = _robots_dir()
URDFS = sorted(str(p.relative_to(ROOT)) for p in ROOT.rglob("*.urdf")) if ROOT else []


def _pinocchio(path: str, floating: bool):
    """Pinocchio's model, or None where Pinocchio refuses the file (ur3.urdf has no robot name)."""
    try:
        return pin.buildModelFromUrdf(path, pin.JointModelFreeFlyer()) if floating else pin.buildModelFromUrdf(path)
    except (RuntimeError, ValueError):
        return None


def _load(path: str, floating: bool):
    """soadyn's model and the links whose inertia it repaired (named by its warning)."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        model = load_urdf(path, floating_base=floating, mimic="independent")
    repaired = set()
    for w in caught:
        msg = str(w.message)
        if "non-physical <inertial>" in msg:
            repaired |= set(re.findall(r"link '([^']+)'", msg))
        elif "without inertia" not in msg:
            raise AssertionError(f"unexpected warning: {msg}")
    return model, repaired


def _frame_name(model, pmodel, fid: int) -> str:
    name = pmodel.frames[fid].name
    return FLOATING_WORLD_LINK if name == "world" and pmodel.frames[fid].parentJoint else name


def _share_repaired_inertias(model, pmodel, repaired, where):
    """Check the body inertias against Pinocchio's; give Pinocchio soadyn's where a link was repaired, after
    checking that the repaired inertia is physical."""
    repaired_bodies = {model.frame_body[model.frame_id(FLOATING_WORLD_LINK if n == "world" else n)] for n in repaired}
    for i, jname in enumerate(model.jnt_names):
        jid = pmodel.getJointId(jname)
        if i in repaired_bodies:
            I = Inertia.from_matrix(model.body_I[i])
            d = np.sort(np.linalg.eigvalsh(I.Ic))
            slack = SAME_MATH * max(1.0, d[2])  # a body sums its links' inertias: round-off
            assert d[0] >= -slack and d[0] + d[1] >= d[2] - slack, f"{where}: {jname}: repaired Ic {d}"
            pmodel.inertias[jid] = pin.Inertia(I.mass, I.com, 0.5 * (I.Ic + I.Ic.T))
        else:
            Ip = pmodel.inertias[jid]
            assert_close(model.body_I[i], Inertia(Ip.mass, Ip.lever, Ip.inertia).matrix(), PIN_TOL,
                         f"{where}: spatial inertia of {jname}")


@pytest.mark.skipif(not URDFS, reason="example-robot-data is not installed")
@pytest.mark.parametrize("floating", [False, True], ids=["fixed", "floating"])
@pytest.mark.parametrize("urdf", URDFS)
def test_robot_matches_pinocchio(urdf, floating):
    path = str(ROOT / urdf)
    pmodel = _pinocchio(path, floating)
    if pmodel is None:
        with pytest.raises(ValueError):
            load_urdf(path, floating_base=floating)
        return
    model, repaired = _load(path, floating)
    where = f"{urdf} ({'floating' if floating else 'fixed'})"
    assert model.nv == pmodel.nv, f"{where}: nv {model.nv} vs Pinocchio {pmodel.nv}"
    _share_repaired_inertias(model, pmodel, repaired, where)
    c = Coords(model, pmodel)
    data, pdata = model.data(), pmodel.createData()
    singular = sd.builder.singular_mass_joints(model)
    frames = [(f, _frame_name(model, pmodel, f)) for f in range(pmodel.nframes)
              if pmodel.frames[f].type == pin.FrameType.BODY and _frame_name(model, pmodel, f) != "world"]
    rng = np.random.default_rng(len(urdf) + floating)
    for k in range(N_STATES):
        q, qd, qdd = model.random_q(rng), rng.normal(size=model.nv), rng.normal(size=model.nv)
        qp, vp = c.q(q), c.v(qd)
        at = f"{where} state {k}"
        assert_close(sd.rnea(model, data, q, qd, qdd), c.to_sd(pin.rnea(pmodel, pdata, qp, vp, c.v(qdd))), PIN_TOL,
                     f"{at}: rnea")
        M = sd.crba(model, data, q).copy()
        assert_close(M, c.matrix_to_sd(sym_upper(pin.crba(pmodel, pdata, qp))), PIN_TOL, f"{at}: crba")
        pin.computeJointJacobians(pmodel, pdata, qp)
        pin.updateFramePlacements(pmodel, pdata)
        for fid, name in frames:  # (Pinocchio's getFrameJacobian crashes when nv = 0)
            Jp = pin.getFrameJacobian(pmodel, pdata, fid, pin.LOCAL) if model.nv else np.zeros((6, 0))
            assert_close(sd.frame_jacobian(model, data, q, name), c.jacobian_to_sd(Jp), PIN_TOL,
                         f"{at}: local Jacobian of {name}")
        if singular:
            for call in (lambda: sd.aba(model, data, q, qd, qdd), lambda: sd.minv(model, data, q)):
                with pytest.raises(ValueError, match="joint '(" + "|".join(map(re.escape, singular)) + ")'.*without"):
                    call()
            continue
        # both solves are backward stable: their forward errors grow with cond(M) (icub's is up to 1e18 at rest)
        tol = max(PIN_TOL, BACKWARD_ERROR * np.linalg.cond(M)) if model.nv else PIN_TOL
        tau = rng.normal(size=model.nv)
        qdd = sd.aba(model, data, q, qd, tau).copy()
        assert_close(qdd, c.to_sd(pin.aba(pmodel, pdata, qp, vp, c.v(tau))), tol, f"{at}: aba")
        assert_close(sd.rnea(model, data, q, qd, qdd), tau, PIN_TOL, f"{at}: rnea(aba(tau))",
                     scale=max(1.0, np.abs(M).max(initial=0.0) * np.abs(qdd).max(initial=0.0)))
        assert_close(sd.minv(model, data, q), c.matrix_to_sd(sym_upper(pin.computeMinverse(pmodel, pdata, qp))),
                     tol, f"{at}: minv")


def test_the_sweep_covers_the_known_defects():
    """The sweep is not vacuous: it holds the robots whose loading once failed."""
    if not URDFS:
        pytest.skip("example-robot-data is not installed")
    names = {u.rsplit("/", 1)[-1] for u in URDFS}
    assert {"romeo.urdf", "tiago.urdf", "ur5_robot.urdf", "quadrotor_base.urdf", "panda.urdf"} <= names
    assert len(URDFS) >= 60
