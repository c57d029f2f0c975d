"""The contact simulator's workspaces (soadyn.contact.stepper.ContactCall): a step with more rows than they
hold, a rollout that grows them, and the memo that lets a step reuse the kinematics and contacts its caller's
last penetration check found. Each is checked bit for bit against the same steps taken another way. And a
resting step allocates nothing: every scratch array comes from the workspaces."""

import numpy as np
import pytest
from numba.core.runtime import _nrt_python, rtsys

from soadyn._kernels.contact_solve import PATH_WARM
from soadyn.contact import ContactSettings
from soadyn.contact.stepper import WORKSPACE_CONTACTS, ContactCall, one_step_rows
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


def test_detection_memo_outlives_the_simulators_data_being_used():
    """The memo's kinematics and contacts live in a Data that only the contact kernel writes: kinematics and
    collision detection run on ``sim.data`` at other states between two steps leave the next step from the
    memo's state bit for bit equal to a fresh simulator's step."""
    from soadyn.contact.geometry import collide
    from soadyn.dynamics import fk

    scene = S.box_stack(3)
    settings = ContactSettings(warm_start=False)
    sim = Simulator(scene.model, 1e-3, contact=settings)
    q, qd = scene.start
    for _ in range(5):
        q, qd = sim.step(q, qd)
    elsewhere = q.copy()
    elsewhere[2::7] += 0.01  # every box lifted 1 cm: other poses, fewer contacts
    assert len(collide(scene.model, sim.data, elsewhere)) < len(collide(scene.model, scene.model.data(), q))
    fk(scene.model, sim.data, elsewhere, qd)
    on = sim.step(q, qd)
    assert all(np.array_equal(a, b) for a, b in zip(on, Simulator(scene.model, 1e-3, contact=settings).step(q, qd)))


@pytest.mark.parametrize("scene", [S.box_stack(3), S.solo12_standing()], ids=["stack3", "solo12"])
def test_a_resting_step_allocates_nothing(scene):
    """numba's allocation counter over two rollouts from the same resting state: 20 and 220 steps allocate
    alike (the arguments' wrappers and the first step's cold Lemke solve), so the 200 warm-started steps
    between allocate nothing."""
    _nrt_python.memsys_enable_stats()
    sim = Simulator(scene.model, 1e-3, contact=ContactSettings())
    tr = sim.rollout(*scene.start, duration=0.3, progress=False)
    q, qd = tr.q[-1].copy(), tr.qd[-1].copy()
    allocs = []
    for n in (20, 220):  # each rollout starts cold: the same first step
        before = rtsys.get_allocation_stats().alloc
        traj = sim.rollout(q, qd, steps=n, progress=False)
        allocs.append(rtsys.get_allocation_stats().alloc - before)
        assert (traj.contact_stats[1:, 11] == PATH_WARM).all()  # the steps measured are the warm ones
    assert allocs[0] > 0 and allocs[1] == allocs[0], allocs


def test_step_reads_the_callers_state_where_it_is():
    """``Simulator.step`` hands the contact kernel a 1-D float64 state as it is (read-only too: the kernel only
    reads it); the kernel refuses a strided column (``BAD_ARRAY``), which is then converted, as lists are before
    the call: each takes the same step bit for bit, and none is written to or returned."""
    scene = S.solo12_standing()
    settings = ContactSettings()
    q, qd = scene.start
    ref = Simulator(scene.model, 1e-3, contact=settings).step(q.copy(), qd.copy())
    q_ro, qd_ro = q.copy(), qd.copy()
    q_ro.setflags(write=False)
    qd_ro.setflags(write=False)
    wide = np.zeros((scene.model.nq, 2))
    wide[:, 0] = q
    for qi, qdi in ((q.copy(), qd.copy()), (q_ro, qd_ro), (wide[:, 0], qd.copy()), (q.tolist(), qd.tolist())):
        before = np.array(qi), np.array(qdi)
        out = Simulator(scene.model, 1e-3, contact=settings).step(qi, qdi)
        assert all(np.array_equal(a, b) for a, b in zip(out, ref))
        assert np.array_equal(np.asarray(qi), before[0]) and np.array_equal(np.asarray(qdi), before[1])
        assert not any(np.shares_memory(a, b) for a in out for b in (qi, qdi) if isinstance(b, np.ndarray))


def test_settings_vector_holds_the_parameters_then_the_margins():
    """The kernel reads ``settings[:NPRM]`` as its parameters and the rest as the geoms' margins: the settings'
    parameter vector has exactly NPRM entries, and the simulator's vector is both, in that order."""
    from soadyn._kernels.contact_sim import NPRM

    scene = S.solo12_standing()
    settings = ContactSettings(margin=2e-3)
    sim = Simulator(scene.model, 1e-3, contact=settings)
    vec = ContactCall(sim, one_step_rows(scene.model, settings)[0]).head[4]
    assert settings.kernel_parameters(1e-3).shape == (NPRM,)
    assert np.array_equal(vec[:NPRM], settings.kernel_parameters(1e-3))
    assert np.array_equal(vec[NPRM:], settings.geom_margins(scene.model.geom_margin))


def test_new_contact_settings_take_effect_at_the_next_step():
    """Assigning ``sim.contact`` rebuilds the simulator's one-step rows for the new settings: switched to a
    pyramid of 8 edges, it steps on bit for bit like a simulator made with them (both start cold) and warm-starts
    again, which needs the larger pyramid's room for the warm start; switched to None, it steps like a
    simulator without contact; a bad value is refused and leaves the settings as they were."""
    scene = S.solo12_standing()
    sim = Simulator(scene.model, 1e-3, contact=ContactSettings())
    state = scene.start
    for _ in range(3):
        state = sim.step(*state)
    wide = ContactSettings(n_f=8)
    sim.contact = wide
    assert sim.contact is wide and sim.last_step_stats is None
    fresh = Simulator(scene.model, 1e-3, contact=wide)
    mine = theirs = state
    for _ in range(3):
        mine, theirs = sim.step(*mine), fresh.step(*theirs)
        assert all(np.array_equal(a, b) for a, b in zip(mine, theirs))
    assert sim.last_step_stats["path"] == "warm"
    with pytest.raises(ValueError, match="contact"):
        sim.contact = "stiff"
    assert sim.contact is wide
    sim.contact = None
    free = Simulator(scene.model, 1e-3).step(*mine)
    assert all(np.array_equal(a, b) for a, b in zip(sim.step(*mine), free))
