"""The contact simulator's workspaces (soadyn.contact.stepper.ContactCall): a step with more rows than they
hold, a rollout that grows them, and the detection memo that lets a step reuse the contacts its caller's
last penetration check found. Each is checked bit for bit against the same steps taken another way."""

import numpy as np

from soadyn.contact import ContactSettings
from soadyn.contact.stepper import WORKSPACE_CONTACTS
from soadyn.models import scenes as S
from soadyn.sim import Simulator


def test_steps_match_a_rollout_beyond_the_workspace():
    """A 25-box stack has 100 contacts, more than the simulator's workspace holds: each ``Simulator.step``
    allocates its Delassus matrix, while one rollout grows its workspace after the first step. Both take the
    same steps (the step loop also reusing each step's last detection)."""
    scene = S.box_stack(25)
    settings = ContactSettings()
    n = 25
    traj = Simulator(scene.model, 1e-3, contact=settings).rollout(*scene.start, steps=n, progress=False)
    assert traj.contact_stats[:, 0].min() > WORKSPACE_CONTACTS
    sim = Simulator(scene.model, 1e-3, contact=settings)
    q, qd = scene.start
    for k in range(n):
        q, qd = sim.step(q, qd)
        assert np.array_equal(q, traj.q[k + 1]) and np.array_equal(qd, traj.qd[k + 1]), k


def test_detection_memo_serves_only_the_state_it_was_made_at():
    """After a step the simulator keeps the contacts found at the state it returned. A step from that state
    uses them, a step from another state detects its own: either equals a fresh simulator's step from the same
    state (warm start off, so that the two simulators' solvers start alike)."""
    scene = S.box_stack(3)
    settings = ContactSettings(warm_start=False)
    traj = Simulator(scene.model, 1e-3, contact=settings).rollout(*scene.start, steps=40, progress=False)
    sim = Simulator(scene.model, 1e-3, contact=settings)

    def fresh(q, qd):
        return Simulator(scene.model, 1e-3, contact=settings).step(q, qd)

    state = sim.step(traj.q[10], traj.qd[10])  # the memo holds the contacts at this state
    for q, qd in ((traj.q[30], traj.qd[30]), (traj.q[30] + 1e-6, traj.qd[30])):
        other = sim.step(q, qd)  # another state: detected anew
        assert all(np.array_equal(a, b) for a, b in zip(other, fresh(q, qd)))
        on = sim.step(*other)  # the state the last step returned: the memo's contacts
        assert all(np.array_equal(a, b) for a, b in zip(on, fresh(*other)))
    assert all(np.array_equal(a, b) for a, b in zip(sim.step(*state), fresh(*state)))  # written over since
