"""Trajectory optimization with the analytical derivatives (soadyn.experiments.trajopt): the step Jacobian
against central differences of the step, and the iLQR swing-up of a double pendulum checked by replaying
its controls in soadyn's Simulator (semi-implicit Euler)."""

from __future__ import annotations

import json

import numpy as np

import soadyn as sd
from soadyn.experiments import trajopt
from tests.support import ALGORITHMS, assert_close

FD_STEP = 1e-6
FD_TOL = 1e-7
"""Step Jacobian vs central differences (relative to max(1, |FD|))."""
GOAL_TOL = 0.02
"""Final joint angles and velocities of the optimized swing-up within this of upright at rest (rad, rad/s)."""


def test_step_jacobian_matches_finite_differences():
    m = trajopt.double_pendulum()
    d = m.data()
    x, u, dt = np.array([0.3, -0.5, 0.7, 0.2]), np.array([0.4, -0.1]), 0.01
    x1, A, B = trajopt.step_jacobian(m, d, x, u, dt)
    assert_close(x1, trajopt.step(m, d, x, u, dt), ALGORITHMS, "x+")
    E = FD_STEP * np.eye(4)
    A_fd = np.array([trajopt.step(m, d, x + e, u, dt) - trajopt.step(m, d, x - e, u, dt) for e in E]).T
    B_fd = np.array([trajopt.step(m, d, x, u + e, dt) - trajopt.step(m, d, x, u - e, dt) for e in E[:2, :2]]).T
    assert_close(A, A_fd / (2 * FD_STEP), FD_TOL, "dx+/dx")
    assert_close(B, B_fd / (2 * FD_STEP), FD_TOL, "dx+/du")


def test_swing_up_reaches_upright_and_replays_in_the_simulator():
    m, res = trajopt.swing_up(duration=2.0, dt=0.01, iterations=60)
    assert res.converged
    assert all(b <= a for a, b in zip(res.costs, res.costs[1:])), "iLQR cost went up"
    assert res.costs[-1] < 1e-3 * res.costs[0]
    goal = np.array([np.pi, 0.0, 0.0, 0.0])
    assert np.abs(res.X[-1] - goal).max() < GOAL_TOL, res.X[-1]
    sim = sd.Simulator(m, dt=0.01, integrator="semi_implicit")
    q, qd = res.X[0, :2], res.X[0, 2:]
    for u in res.U:
        q, qd = sim.step(q, qd, tau=u)
    assert_close(np.r_[q, qd], res.X[-1], ALGORITHMS, "replayed final state")


def test_run_writes_plot_and_summary(tmp_path):
    s = trajopt.run(tmp_path, duration=0.5, dt=0.05, iterations=3)
    assert (tmp_path / "trajopt-swing-up.png").stat().st_size > 0
    saved = json.loads((tmp_path / "trajopt-swing-up.json").read_text())
    assert saved["costs"] == s["costs"] and len(saved["costs"]) == s["iterations"] + 1
