"""The LER rover (Jain 2012 Sec. 5): model sizes for TA, FA and CE, closed loops and static equilibrium at
the initial state, the spring forces in tree and FA coordinates, and TA vs FA agreement over a short run."""

import numpy as np
import pytest

from soadyn.augmented import fa_forces, fa_spring_forces, fa_state
from soadyn.experiments import jain2012_rover as rover_exp
from soadyn.loops import constraint_error, forward_dynamics
from soadyn.models import hub_forces, ler_initial_state, ler_rover
from tests.support import SAME_MATH, assert_close


@pytest.fixture(scope="module")
def model():
    return ler_rover()


def test_sizes(model):
    assert (model.nb, model.nv, model.nl, model.nc) == (31, 36, 6, 12)
    fa = model.fully_augmented()
    assert (fa.nb, fa.nv, fa.nc) == (31, 186, 162)


def test_ce_sizes(model):
    if not hasattr(model, "embed_loops"):
        pytest.skip("constraint embedding not available")
    em = model.embed_loops()
    assert (em.nv, em.nc) == (24, 0)


def test_loops_close_at_initial_state(model):
    q0, qd0 = ler_initial_state(model)
    assert np.abs(constraint_error(model, model.data(), q0)).max() <= 1e-10


def test_static_equilibrium(model):
    """At rest in the design configuration, springs, gravity and the static hub loads balance: the
    closed-chain accelerations vanish; without the springs the rover sags."""
    q0, qd0 = ler_initial_state(model)
    fext = hub_forces(model, [0.0], amplitude=0.0)[0]
    tau = model.passive_forces(q0, qd0)
    a = forward_dynamics(model, model.data(), q0, qd0, tau, fext)
    assert np.abs(a).max() <= 1e-8, f"max |qdd| at rest {np.abs(a).max():.3e}"
    sag = forward_dynamics(model, model.data(), q0, qd0, np.zeros(model.nv), fext)
    assert np.abs(sag).max() > 1.0


def test_passive_forces_and_fa_springs(model):
    """tau_passive = -k (q - q_ref) - c qd on the sprung hinges; the FA body couples of the same springs
    at the FA image of a tree state are fa_forces of those torques."""
    rng = np.random.default_rng(0)
    q0, _ = ler_initial_state(model)
    q = q0.copy()
    qd = rng.normal(scale=0.3, size=model.nv)
    for c in ("fl", "rr"):
        q[model.jnt_qadr[model.joint_id(f"{c}_steer")]] = 0.1
    tau = model.passive_forces(q, qd)
    k, cc, ref = model.dof_stiffness, model.dof_damping, model.dof_springref
    sprung = 0
    for i in range(model.nb):
        v = model.jnt_vadr[i]
        if model.jnt_nv[i] == 1:
            expected = -k[v] * (q[model.jnt_qadr[i]] - ref[v]) - cc[v] * qd[v]
            assert tau[v] == pytest.approx(expected, rel=1e-14, abs=1e-9)
            sprung += bool(k[v])
    assert sprung == 12  # six suspension and six steering springs
    fa = model.fully_augmented()
    x, xd = fa_state(model, fa, q0, np.zeros(model.nv))  # the tree q0 closes every FA hinge
    tau0 = model.passive_forces(q0, np.zeros(model.nv))
    assert_close(fa_spring_forces(model, fa, x, xd), fa_forces(model, q0, tau0), SAME_MATH, "FA spring couples",
                 scale=max(1.0, np.abs(tau0).max()))


def test_ta_and_fa_trajectories_agree(model):
    ta = rover_exp.simulate("ta_none", 1e-3, 0.05, progress=False, model=model)
    fa = rover_exp.simulate("fa_none", 1e-3, 0.05, progress=False, model=model)
    assert ta.status == fa.status == "ok"
    moved = np.abs(ta.positions[-1] - ta.positions[0]).max()
    assert moved > 1e-5, "the excitation moves the rover"
    assert_close(fa.positions, ta.positions, 1e-9, "FA vs TA frame positions")
