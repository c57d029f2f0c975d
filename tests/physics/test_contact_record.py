"""Contacts recorded by the simulation kernel (``rollout(..., record_contacts=True)``): recording leaves the
run unchanged, the recorded impulses account for the whole change of a bouncing ball's momentum (collision
phases included), a resting box's recorded forces carry its weight, and a saved run keeps them for the
viewer."""

import numpy as np
import pytest
from scipy.spatial.transform import Rotation

import soadyn as sd
from soadyn.contact import ContactSettings
from tests.physics.test_contact_physics import G, ball_on_floor, box_on_incline, free_state
from tests.support import ALGORITHMS, assert_close

REST_FORCE_TOL = 1e-6
"""Relative agreement of a resting box's total recorded contact force with its weight (velocity-level steps
leave round-off-sized velocities; measured ~1e-12)."""


def _world_velocity(q, qd):
    return Rotation.from_quat(q[3:7]).apply(qd[3:6])


def test_recorded_impulses_are_the_momentum_change_of_a_bouncing_ball(tmp_path):
    model = ball_on_floor(restitution=0.8)
    q0, qd0 = free_state([0.0, 0.0, 0.4], v=(0.3, 0.0, 0.0))
    sim = sd.Simulator(model, 1e-3, contact=ContactSettings())
    traj = sim.rollout(q0, qd0, steps=800, record_contacts=True, progress=False)
    plain = sim.rollout(q0, qd0, steps=800, progress=False)
    assert np.array_equal(traj.q, plain.q) and np.array_equal(traj.contact_stats, plain.contact_stats)
    assert plain.contact_count is None
    assert traj.contact_count.shape == (800,) and traj.contact_count.sum() == traj.contact_force.shape[0]
    assert traj.contact_stats[:, 5].sum() >= 1, "the ball never collided"
    # m (v_N - v_0) = sum of the impulses + m g T (the ball's mass is 1 kg)
    dv = _world_velocity(traj.q[-1], traj.qd[-1]) - _world_velocity(q0, qd0)
    impulse = traj.contact_force.sum(axis=0) * sim.dt + np.array([0.0, 0.0, -G]) * 800 * sim.dt
    assert_close(impulse, dv, ALGORITHMS, "recorded impulses vs momentum change", scale=float(np.abs(dv).max()))
    p, n, f = traj.contacts(int(np.argmax(traj.contact_count > 0)))
    assert_close(n, [[0.0, 0.0, 1.0]], ALGORITHMS, "floor normal")
    with pytest.raises(ValueError, match="record_contacts"):
        sd.Simulator(model, 1e-3).rollout(q0, qd0, steps=2, record_contacts=True)
    with pytest.raises(ValueError, match="no contacts recorded"):
        plain.contacts(0)
    loaded = sd.Trajectory.load(traj.save(tmp_path / "ball"))
    for name in ("contact_count", "contact_point", "contact_normal", "contact_force"):
        assert np.array_equal(getattr(loaded, name), getattr(traj, name)), name


def test_recorded_forces_carry_a_resting_box():
    model = box_on_incline(0.0, mu=0.8)  # a flat floor
    q0, qd0 = free_state([0.0, 0.0, 0.1])
    sim = sd.Simulator(model, 1e-3, contact=ContactSettings())
    traj = sim.rollout(q0, qd0, steps=300, record_contacts=True, progress=False)
    weight = 2.0 * G
    for n in (100, 299):
        p, nrm, f = traj.contacts(n)
        assert len(p) >= 3
        assert_close(f.sum(axis=0), [0.0, 0.0, weight], REST_FORCE_TOL, f"step {n}: total contact force",
                     scale=weight)
        assert_close(p[:, 2], np.zeros(len(p)), 1e-6, f"step {n}: contact points on the floor")
