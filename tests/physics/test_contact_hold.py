"""Contact steps that hold: no step's impulses add kinetic energy (the energetic restitution law scales back
a decompression impulse that would), no state penetrates deeper than the limit, and a step that would
break this fails with a SimulationError naming the check; short versions of the long runs (the
README's 12-link scene, a box on a plane from random small velocities, a 10-box stack); the Drumwright models
and loop closures inside contact scenes with the margin's speculative contacts.

The long runs themselves (60 s, 1000 runs) are too long for the suite; their figures are in the README's
contact section."""

import math
from pathlib import Path

import numpy as np
import pytest

import soadyn as sd
from soadyn import joints as J
from soadyn._kernels import contact_sim as _kc
from soadyn.bench import scenes as B
from soadyn.bench import scenes_checks as C
from soadyn.bench.scenes_engines import record
from soadyn.contact import ContactSettings
from soadyn.models import scenes as S
from soadyn.sim import SimulationError
from soadyn.spatial import Inertia, Transform
from soadyn.trajectory import energy

ENERGY_TOL = ContactSettings().energy_tolerance
SLIDE_TOL = C.INCLINE_ACCEL
"""Welded half boxes on an incline: acceleration within 2 % of g (sin - mu cos), as the one-piece box."""
LOOP_CLOSED = 1e-6
"""Largest loop-closure error (m or rad) of the welded pieces over the run (loop_erp holds it)."""


def energy_gains(traj) -> np.ndarray:
    return traj.contact_stats[:, 9]


def assert_held(traj, scale: float):
    """Every step's impulses added at most the tolerated kinetic energy; no state penetrated 1 mm."""
    assert energy_gains(traj).max() <= ENERGY_TOL * scale + _kc.ENERGY_FLOOR, energy_gains(traj).max()
    assert traj.stats["max_penetration"] < ContactSettings().penetration_limit


# ------------------------------------------------------------------------------------ restitution law
def test_energetic_restitution_scales_back_only_an_energy_gain():
    """Two rows of a PSD Delassus matrix: a compression that stops both contacts, then decompression
    impulses that would leave more kinetic energy than the impact began with (scaled back to exactly the
    start's), or less (kept)."""
    W = np.array([[1.0, 0.9], [0.9, 1.0]])
    v0 = np.array([-1.0, -1.0])
    pc = np.linalg.solve(W, -v0)  # both normal velocities zero after compression
    vc = v0 + W @ pc
    start = 0.0

    def gain(s, pd):
        p = pc + s * pd
        return p @ v0 + 0.5 * p @ W @ p - start

    big = 1.5 * pc  # more than e = 1 would give back
    s = _kc.restitution_scale(W, v0, pc, vc, big)
    assert 0.0 < s < 1.0 and abs(gain(s, big)) <= 1e-12
    small = 0.5 * pc
    assert _kc.restitution_scale(W, v0, pc, vc, small) == 1.0 and gain(1.0, small) < 0.0


def pendulum_run(duration, **kw):
    scene = sd.models.pendulum(12, scene="jain2014")
    q0, qd0 = sd.models.pendulum_start(scene)
    sim = sd.Simulator(scene, dt=1e-3, contact=ContactSettings(**kw))
    return sim.rollout(q0, qd0, duration=duration, progress=False)


@pytest.mark.parametrize("n_f, solver", [(4, "lemke"), (8, "lemke"), (4, "pgs"), (8, "pgs")])
def test_pendulum_scene_holds(n_f, solver):
    """Short version of the 60 s runs: the 12-link scene for 3 s (its first collisions and sliding contacts)."""
    traj = pendulum_run(3.0, n_f=n_f, solver=solver)
    assert traj.stats["collision_steps"] > 0
    assert_held(traj, 2.0 * traj.energy[:, 0].max())


STATES = np.load(Path(__file__).parent / "data" / "pendulum12_states.npz")
"""States of the 12-link scene: of its 60 s runs at t = 12.029 s (n_f = 4) and 12.516 s (n_f = 8), whose step
LCPs Lemke once failed (residual 4e-2 and 3e-2, then PGS too): the last two links lie folded on the floor and
the last sphere presses on link 9's, along a direction the two hinges between can barely move; and ``whip``,
t = 1.099 s of a run from a start perturbed by 1e-3 rad, where link 7's sphere strikes the wall at 7.4 m/s
from 4.2 mm away while the links below whip."""


@pytest.mark.parametrize("n_f", [4, 8])
def test_folded_chain_step_is_solved_by_lemke(n_f):
    """The folded chain's 3-contact step: one normal row of Delassus diagonal 5e-9 (n_f = 4) and 5e-8 (8) of
    the largest, whose answer needs normal impulses of 5e2 to 8e2 N s (the hinges take them), and the
    friction directions out of the chain's plane (and, with n_f = 8, the diagonal ones) tied with the
    in-plane ones. Lemke solves it without regularization, and the step adds no energy."""
    scene = sd.models.pendulum(12, scene="jain2014")
    sim = sd.Simulator(scene, dt=1e-3, contact=ContactSettings(n_f=n_f, solver="lemke"))
    q, qd = STATES[f"q_nf{n_f}"], STATES[f"qd_nf{n_f}"]
    q1, qd1 = sim.step(q, qd)
    st = sim.last_step_stats
    assert st["contacts"] == 3 and st["lcp_size"] == 3 * (n_f + 2)
    assert st["path"] == "lemke" and st["regularization"] == 0.0 and st["residual"] <= 1e-9
    assert st["energy_gain"] <= ENERGY_TOL * energy(scene, scene.data(), q, qd)[0] + _kc.ENERGY_FLOOR
    assert st["penetration"] < ContactSettings().penetration_limit


def test_a_contact_that_collided_in_the_step_does_not_approach_after_it():
    """The wall contact collides within the step (at t_c = 0.57 dt, e = 0.5); the free acceleration of the
    whipping links after the impact would carry it back towards the wall at 3 m/s. Its impact used up the
    gap it had at the step's start, so the step LCP lets it approach no further (w = v+_n >= 0) and the split
    correction brings it back to where the bounce left it; with the start's gap still allowed, the step
    left it 3.0 mm inside the wall (a penetration check failure)."""
    scene = sd.models.pendulum(12, scene="jain2014")
    sim = sd.Simulator(scene, dt=1e-3, contact=ContactSettings(n_f=4, solver="lemke"))
    q1, qd1 = sim.step(STATES["q_whip"], STATES["qd_whip"])
    assert sim.last_step_stats["collision"] >= 1.0
    found = sd.contact.collide(scene, scene.data(), q1)
    wall = [i for i in range(found.count) if found.body[i].tolist() == [7, -1]]  # link 7's sphere on the wall
    assert len(wall) == 1 and found.gap[wall[0]] >= -1e-6


def test_penetration_check_reports_the_step_that_made_it():
    """A ball at 10 m/s against a 1 mm margin: the contact is first seen 5 mm deep."""
    scene = S.ball_drop(height=0.025, restitution=0.0)
    sim = sd.Simulator(scene.model, 1e-3, contact=ContactSettings(margin=0.001))
    qd0 = scene.qd0.copy()
    qd0[5] = -10.0  # body-frame vertical velocity (the ball starts unrotated)
    with pytest.raises(SimulationError, match="penetration check") as info:
        sim.rollout(scene.q0, qd0, duration=0.05, progress=False)
    traj = info.value.trajectory
    assert traj.q.shape[0] == info.value.step + 1  # the states before the failing step are kept
    assert traj.q[-1, 2] - S.BALL_RADIUS > 0.0  # none of them penetrates
    with pytest.raises(SimulationError, match="penetration check"):  # Simulator.step from the last of them
        sim.step(traj.q[-1], traj.qd[-1])


# ------------------------------------------------------------------------------------ short long runs
def test_box_on_a_plane_from_random_small_velocities_holds():
    """30 runs of 0.3 s (the long run: 1000 of 2 s): a 0.2 m box resting face-down given random linear
    (|v| <= 0.2 m/s) and angular (|w| <= 2 rad/s) velocities."""
    scene = S.box_stack(1)
    sim = sd.Simulator(scene.model, 1e-3, contact=ContactSettings())
    rng = np.random.default_rng(7)
    for _ in range(30):
        qd0 = np.concatenate([rng.uniform(-2.0, 2.0, 3), rng.uniform(-0.2, 0.2, 3)])
        traj = sim.rollout(scene.q0, qd0, duration=0.3, progress=False)
        assert_held(traj, 2.0 * traj.energy[0, 0] + 1e-3)


def test_ten_box_stack_holds():
    """0.2 s of the 10-box stack (the long run: 60 s): no energy added, no penetration."""
    scene = S.box_stack(10)
    traj = sd.Simulator(scene.model, 1e-3, contact=ContactSettings()).rollout(scene.q0, scene.qd0, duration=0.2,
                                                                              progress=False)
    assert_held(traj, 1e-3)
    assert traj.stats["max_penetration"] < C.REST_PENETRATION


# ------------------------------------------------------------------------------------ Drumwright models
@pytest.mark.parametrize("friction, solver", [("no_slip", "ppm"), ("no_slip", "lemke"), ("viscous", "ppm")])
def test_drumwright_models_honour_the_margin(friction, solver):
    """The ball lands from 1 m with e = 0: the contact joins the Drumwright rows in the step that would carry
    it across its gap (it was left out while open), so it lands without penetrating and does not hop."""
    case = next(c for c in B.CASES if c.name == "drop_e0")
    scene = case.build()
    run = record("soadyn", scene, 1.0, ContactSettings(friction=friction, solver=solver))
    out = C.check(case.check, scene, run)
    assert out["ok"], out
    assert run.penetration < 1e-5


# ------------------------------------------------------------------------------------ loops in contact
def welded_halves(angle: float, mu: float) -> tuple:
    """The incline's 2 kg, 0.2 m cube as two 1 kg halves (0.2 x 0.2 x 0.1, stacked along the slope normal),
    each on a free joint, welded by a loop closure; on a slope of ``angle`` about world y. Returns the model
    and its start state, at rest on the slope."""
    from scipy.spatial.transform import Rotation

    c, s = math.cos(angle), math.sin(angle)
    R = np.array([[c, 0.0, s], [0.0, 1.0, 0.0], [-s, 0.0, c]])
    b = sd.ModelBuilder("welded_halves", gravity=(0.0, 0.0, -S.G))
    for name in ("lower", "upper"):
        b.add_body(name, "world", J.Free(), inertia=Inertia.box(1.0, (0.2, 0.2, 0.1)))
        b.add_geom(name, name, "box", (0.1, 0.1, 0.05), mu=mu, restitution=0.0)
    b.add_frame("lower_top", "lower", Transform.from_pose(np.eye(3), (0.0, 0.0, 0.05)))
    b.add_frame("upper_bottom", "upper", Transform.from_pose(np.eye(3), (0.0, 0.0, -0.05)))
    b.add_loop("weld", "lower_top", "upper_bottom", kind="weld")
    b.add_geom("slope", "world", "halfspace", None, Transform.from_pose(R), mu=mu, restitution=0.0)
    model = b.finalize()
    quat = Rotation.from_matrix(R).as_quat()
    q0 = np.concatenate([0.05 * R[:, 2], quat, 0.15 * R[:, 2], quat])
    return model, q0, np.zeros(12), R[:, 0]


@pytest.mark.parametrize("solver", ["lemke", "pgs"])
@pytest.mark.parametrize("mu, sign", [(0.3, 1), (0.6, -1)])
def test_welded_halves_slide_or_stick_on_an_incline(solver, mu, sign):
    """With the loop rows in the step LCP: the welded pieces stick (< 1 mm in 1 s) or slide at
    g (sin - mu cos) like the one-piece box; the weld holds; no step adds energy."""
    angle = math.atan(mu) + sign * math.radians(3.0)
    model, q0, qd0, down = welded_halves(angle, mu)
    sim = sd.Simulator(model, 1e-3, contact=ContactSettings(solver=solver))
    traj = sim.rollout(q0, qd0, duration=1.0, progress=False)
    travel = (traj.q[:, :3] - traj.q[0, :3]) @ down
    a = S.incline_acceleration(angle, mu)
    if a == 0.0:
        assert np.abs(travel).max() < C.INCLINE_STICK
    else:
        k = traj.t.size // 2
        fit = 2.0 * np.polyfit(traj.t[k:], travel[k:], 2)[0]
        assert abs(fit / a - 1.0) <= SLIDE_TOL, (fit, a)
    assert traj.stats["max_constraint_error"] < LOOP_CLOSED
    assert_held(traj, 2.0 * traj.energy[:, 0].max() + 1e-3)


@pytest.mark.parametrize("friction", ["coulomb", "no_slip"])
def test_welded_halves_land_without_penetrating(friction):
    """Dropped 0.3 m onto a flat floor (e = 0): the speculative contacts hold the welded pair (Lemke's
    mixed LCP and the Drumwright model's bilateral rows): no penetration, no hop."""
    model, q0, qd0, _ = welded_halves(0.0, 0.5)
    q0 = q0.copy()
    q0[2] += 0.3
    q0[9] += 0.3
    traj = sd.Simulator(model, 1e-3, contact=ContactSettings(friction=friction)).rollout(q0, qd0, duration=0.6,
                                                                                          progress=False)
    z = traj.q[:, 2] - 0.05
    land = int(np.argmax(z < 1e-3))
    assert land > 0 and z[land:].max() < 1e-3
    assert traj.stats["max_penetration"] < 1e-5
    assert traj.stats["max_constraint_error"] < LOOP_CLOSED


# ------------------------------------------------------------------------------------ Simulator.step
STEP_AGREEMENT = 1e-12
"""Simulator.step, called once per step, against one rollout of the same steps (the same kernel)."""


@pytest.mark.parametrize("scene", ["drop", "welded"])
def test_simulator_step_matches_the_rollout(scene):
    """A bounce (flight, collision, rebound) and the welded halves sliding: Simulator.step after
    Simulator.step gives the rollout's states."""
    if scene == "drop":
        sc = S.ball_drop(height=0.1, restitution=0.5)
        model, q, qd, n = sc.model, sc.q0, sc.qd0, 250
    else:
        model, q, qd, _ = welded_halves(math.atan(0.3) + math.radians(3.0), 0.3)
        n = 100
    sim = sd.Simulator(model, 1e-3, contact=ContactSettings())
    traj = sim.rollout(q, qd, duration=n * 1e-3, progress=False)
    assert traj.stats["collision_steps"] >= (1 if scene == "drop" else 0)
    for k in range(n):
        q, qd = sim.step(q, qd)
    assert np.abs(q - traj.q[-1]).max() <= STEP_AGREEMENT and np.abs(qd - traj.qd[-1]).max() <= STEP_AGREEMENT
