"""Simulation of embedded (CE) closed chains: CE, TA and FA trajectories of the five Jain 2012 mechanisms
agree (Deliver 4 of the constraint embedding issue), the CE closure error stays at the loop-solve
tolerance over a 10 s run, and a hybrid CE/TA run follows the TA run.
"""

import functools

import numpy as np
import pytest

import soadyn as sd
from soadyn.embedded_sim import EmbeddedSimulator
from soadyn.experiments import jain2012
from soadyn.models import mechanisms as mech

NAMES = jain2012.mechanism_names()
AGREEMENT = 1e-6
"""m: largest difference of any frame's world position between the CE run and the TA and FA runs over 1 s
(all RK4 at the steps below; they agree to integration accuracy)."""
DT = 2e-4
DT_FAST = {"spatial_four_bar": 5e-5}
"""Steps (s) of the agreement runs, as in tests/physics/test_loop_simulation.py."""
CLOSURE = 1e-12
"""Largest loop error of the CE states over a 10 s four-bar run (the loop-solve tolerance is 1e-13)."""


@functools.lru_cache(maxsize=None)
def _ce(name, dt, duration, loops=None):
    model = mech.MECHANISMS[name]()
    st = mech.initial_state(model)
    em = model.embed_loops(loops=loops, q_ref=st.q, independent={model.loop_names[0]: st.driver})
    x0, xd0 = em.from_tree_state(st.q, st.qd)
    traj = EmbeddedSimulator(em, dt, "rk4").rollout(x0, xd0, duration=duration, tau=st.tau(model))
    return model, em, traj


@pytest.mark.parametrize("name", NAMES)
def test_ce_ta_and_fa_trajectories_agree(name):
    dt = DT_FAST.get(name, DT)
    model, em, traj = _ce(name, dt, 1.0)
    ce = em.tree_trajectory(traj).frame_positions(model, list(model.frame_names))
    for method in ("ta", "fa"):
        other = jain2012.simulate(name, method, duration=1.0, dt=dt).positions
        err = float(np.abs(ce - other).max())
        assert err <= AGREEMENT, f"{name}: CE vs {method.upper()} frame positions differ by {err:.3e} m"
    assert traj.constraint_error.max() <= CLOSURE, f"{name}: CE closure error {traj.constraint_error.max():.3e}"


def test_four_bar_closure_error_stays_at_the_solve_tolerance_for_10_s():
    model, em, traj = _ce("planar_four_bar", 1e-3, 10.0)
    assert len(traj) == 10001
    assert traj.constraint_error.max() <= CLOSURE, f"max |phi| {traj.constraint_error.max():.3e}"
    assert traj.constraint_velocity_error.max() <= CLOSURE, "max |G_c qd|"
    assert traj.stats["loop_residual"].max() <= em.tol
    crank = traj.q[:, 0]
    assert crank.max() - crank.min() > 3.0, "the crank should swing through a wide range (measured 4.1 rad)"


def test_hybrid_run_follows_ta():
    model, em, traj = _ce("planar_quick_return", DT, 0.5, loops=("crank_pin",))
    assert em.cut_loops == ("ram_pin",) and em.nl == 1 and em.nc == 2
    ce = em.tree_trajectory(traj).frame_positions(model, list(model.frame_names))
    ta = jain2012.simulate("planar_quick_return", "ta", duration=0.5, dt=DT).positions
    assert float(np.abs(ce - ta).max()) <= AGREEMENT
    assert traj.constraint_error.max() < 1e-6, "the cut loop drifts only at integration accuracy"


def test_simulator_dispatches_embedded_models():
    model, em, traj = _ce("planar_four_bar", 1e-3, 0.2)
    sim = sd.Simulator(em, 1e-3, integrator="rk4")
    assert isinstance(sim, EmbeddedSimulator)
    st = mech.initial_state(model)
    again = sim.rollout(*em.from_tree_state(st.q, st.qd), duration=0.2, tau=st.tau(model))
    np.testing.assert_array_equal(again.q, traj.q)
    x1, xd1 = sim.step(traj.q[0], traj.qd[0], tau=st.tau(model))
    np.testing.assert_allclose(x1, traj.q[1], rtol=0, atol=1e-15)
