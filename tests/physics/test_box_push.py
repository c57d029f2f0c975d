"""The box-pushing trajectory optimization (soadyn.experiments.box_push): iLQR over the contact step's
Jacobians lowers the cost, its trajectory replays in the simulator, and the run writes its plot and summary."""

import json

import numpy as np

import soadyn as sd
from soadyn.experiments import box_push
from tests.support import assert_close


def test_push_lowers_the_cost_and_replays(tmp_path):
    s = box_push.run(tmp_path, duration=0.4, dt=0.01, iterations=6)
    assert (tmp_path / "trajopt-box-push.png").stat().st_size > 0
    saved = json.loads((tmp_path / "trajopt-box-push.json").read_text())
    costs = saved["costs"]
    assert costs == s["costs"] and len(costs) == s["iterations"] + 1
    assert all(b <= a for a, b in zip(costs, costs[1:])), "iLQR cost went up"
    assert costs[-1] < 0.5 * costs[0]
    model, sim, res = box_push.push(duration=0.2, dt=0.01, iterations=1, goal=(0.47, 0.0, 0.0))
    q, qd = res.Q[0], res.QD[0]
    for u in res.U:
        q, qd = sim.step(q, qd, np.r_[u, np.zeros(model.nv - 2)])
    assert_close(np.r_[q, qd], np.r_[res.Q[-1], res.QD[-1]], 0.0, "replayed final state")
