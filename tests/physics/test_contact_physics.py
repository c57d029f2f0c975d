"""Hard contact against closed forms (Jain 2014 OS formulation in the Simulator): restitution e^2, resting
contact, energy, the pendulum scene's penetration."""

import math

import numpy as np
import pytest

import soadyn as sd
from soadyn import joints as J
from soadyn.contact import ContactSettings
from soadyn.spatial import Inertia, Transform

G = 9.81
RADIUS = 0.1


def ball_on_floor(restitution: float, mu: float = 0.5) -> sd.Model:
    b = sd.ModelBuilder("ball", gravity=(0.0, 0.0, -G))
    b.add_body("ball", "world", J.Free(), inertia=Inertia.sphere(1.0, RADIUS))
    # a 5 mm margin: the contact enters the step LCP before it closes (speculative), so the impact is not
    # taken up to v dt deep (4.4 mm at 4.4 m/s and 1 ms), which would lower the rebound by up to 2 %
    b.add_geom("ball", "ball", "sphere", RADIUS, mu=mu, restitution=restitution, margin=0.005)
    b.add_geom("floor", "world", "halfspace", None, mu=mu, restitution=restitution)
    return b.finalize()


def box_on_incline(angle: float, mu: float) -> sd.Model:
    """A 0.2 m cube on the half-space under a plane tilted by ``angle`` about world y (downhill is +x')."""
    b = sd.ModelBuilder("incline", gravity=(0.0, 0.0, -G))
    b.add_body("box", "world", J.Free(), inertia=Inertia.box(2.0, (0.2, 0.2, 0.2)))
    b.add_geom("box", "box", "box", (0.1, 0.1, 0.1), mu=mu)
    c, s = math.cos(angle), math.sin(angle)
    R = np.array([[c, 0.0, s], [0.0, 1.0, 0.0], [-s, 0.0, c]])  # rotation about y by angle
    b.add_geom("slope", "world", "halfspace", None, Transform.from_pose(R), mu=mu)
    return b.finalize()


def free_state(p, R=np.eye(3), v=(0.0, 0.0, 0.0)):
    from scipy.spatial.transform import Rotation

    q = np.concatenate([p, Rotation.from_matrix(R).as_quat()])
    qd = np.zeros(6)
    qd[3:] = R.T @ np.asarray(v, dtype=float)  # body-frame linear velocity
    return q, qd


def test_ball_rebounds_to_e_squared_of_its_height():
    e, h = 0.5, 1.0
    model = ball_on_floor(e)
    sim = sd.Simulator(model, 1e-3, contact=ContactSettings())
    q0, qd0 = free_state((0.0, 0.0, RADIUS + h))
    traj = sim.rollout(q0, qd0, duration=1.2)
    z = traj.q[:, 2] - RADIUS
    first = int(np.argmin(z[:600]))  # the first impact is at t = 0.45 s
    apex = z[first:].max()
    assert traj.stats["collision_steps"] >= 1
    assert abs(apex - e * e * h) <= 0.02 * e * e * h, f"rebound apex {apex:.4f} m, expected {e * e * h:.4f} m"
    assert z.min() > -1e-4  # no deep impact


def test_resting_box_stays_put_for_10_s():
    model = box_on_incline(0.0, 0.8)
    q0, qd0 = free_state((0.3, -0.2, 0.1))
    sim = sd.Simulator(model, 1e-3, contact=ContactSettings())
    traj = sim.rollout(q0, qd0, duration=10.0, progress=False)
    assert np.abs(traj.q[:, :3] - traj.q[0, :3]).max() < 1e-4
    assert traj.stats["max_penetration"] < 1e-4
    assert traj.stats["max_active_contacts"] >= 3


@pytest.mark.parametrize("e", [0.0, 0.5, 1.0])
def test_energy_never_increases(e):
    model = ball_on_floor(e, mu=0.3)
    sim = sd.Simulator(model, 1e-3, contact=ContactSettings())
    q0, qd0 = free_state((0.0, 0.0, RADIUS + 0.5), v=(1.0, 0.5, 0.0))
    traj = sim.rollout(q0, qd0, duration=2.0)
    E = traj.energy[:, 2]
    # semi-implicit Euler in free flight oscillates by about m g |v| dt; nothing may gain more than that
    slack = 1.0 * G * 4.0 * 1e-3
    assert E.max() <= E[0] + slack, f"energy rose by {E.max() - E[0]:.3e} J"
    assert np.diff(E).max() <= slack, f"one step raised the energy by {np.diff(E).max():.3e} J"
    if e == 0.0:
        assert E[-1] < E[0] - 0.9 * 9.81 * 0.5


def test_pendulum_scene_penetration_below_1_mm():
    from soadyn.experiments import jain2014

    run = jain2014.simulate(6, "os", duration=2.5)
    st = run.traj.stats
    assert st["max_contacts"] >= 1 and st["collision_steps"] >= 1
    assert st["max_penetration"] < 1e-3, f"penetration {st['max_penetration']:.2e} m"
    assert run.traj.energy[-1, 2] < run.traj.energy[0, 2]


def sliding_box(friction: str, **kw):
    model = box_on_incline(0.0, 0.5)
    q0, qd0 = free_state((0.0, 0.0, 0.1), v=(1.0, 0.3, 0.0))
    sim = sd.Simulator(model, 1e-3, contact=ContactSettings.classic(friction=friction, restitution=0.0, **kw))
    return model, sim, q0, qd0


def contact_point_velocities(model, q, q_next, qd_next):
    """World velocities (k, 3) of the box after a step from ``q`` at the contact points detected at ``q``: the
    step leaves ``qd_next`` in the box's axes at ``q_next`` (its centre is its origin)."""
    from scipy.spatial.transform import Rotation

    found = sd.contact.collide(model, model.data(), q)
    R = Rotation.from_quat(q_next[3:7]).as_matrix()
    w, v = R @ qd_next[:3], R @ qd_next[3:]
    return np.array([v + np.cross(w, p - q[:3]) for p in found.point]).reshape(-1, 3)


@pytest.mark.parametrize("solver", ["ppm", "lemke"])
def test_no_slip_contacts_stop_sliding_in_one_step(solver):
    model, sim, q0, qd0 = sliding_box("no_slip", solver=solver)
    traj = sim.rollout(q0, qd0, steps=20)
    touching = 0
    for k in range(1, 21):
        vc = contact_point_velocities(model, traj.q[k - 1], traj.q[k], traj.qd[k])
        touching += len(vc)
        if len(vc):
            err = np.abs(vc[:, :2]).max()
            assert err < 1e-9, f"step {k}: tangential velocity {err:.2e} at a contact"
    assert touching >= 30  # the stopped box tips onto its front edge (2 contacts) and rocks back (36 counted)
    assert traj.stats["ppm_fallbacks"] == 0 or solver == "lemke"


def test_viscous_friction_opposes_and_scales_with_sliding_velocity():
    mu_v = 2.0
    decel = {}
    for speed in (0.5, 1.0):
        model = box_on_incline(0.0, 0.5)
        q0, qd0 = free_state((0.0, 0.0, 0.1), v=(speed, 0.0, 0.0))
        sim = sd.Simulator(model, 1e-3, contact=ContactSettings(friction="viscous", mu_v=mu_v, restitution=0.0))
        traj = sim.rollout(q0, qd0, steps=50)
        vx = traj.qd[:, 3]
        assert np.all(np.diff(vx) < 0.0) and np.all(vx > 0.0), "viscous friction opposes the sliding velocity"
        decel[speed] = (vx[10] - vx[11]) / 1e-3
    # four corners, each -mu_v v_t: m dv/dt = -4 mu_v v (linearly implicit: v' = v / (1 + 4 mu_v dt / m))
    assert abs(decel[1.0] / decel[0.5] - 2.0) < 1e-6
    v10 = 1.0 / (1.0 + 4 * mu_v * 1e-3 / 2.0) ** 10
    assert abs(decel[1.0] - v10 * (4 * mu_v / 2.0) / (1.0 + 4 * mu_v * 1e-3 / 2.0)) < 1e-6 * decel[1.0]


def test_an_unsolved_contact_lcp_raises_lcp_error_and_leaves_the_state():
    model = box_on_incline(0.0, 0.5)
    q0, qd0 = free_state((0.0, 0.0, 0.1), v=(1.0, 0.0, -1.0))
    q_in, qd_in = q0.copy(), qd0.copy()
    sim = sd.Simulator(model, 1e-3, contact=ContactSettings(max_pivots=1, tikhonov=0.0, restitution=0.0))
    with pytest.raises(sd.LCPError) as info:
        sim.step(q0, qd0)
    err = info.value
    assert err.M.shape[0] == err.q.shape[0] == 4 * (4 + 2)  # the step's OS problem: 4 corners, n_f = 4
    assert "left at the step's start" in "".join(getattr(err, "__notes__", []))
    assert np.array_equal(q0, q_in) and np.array_equal(qd0, qd_in)
    with pytest.raises(sd.sim.SimulationError, match="could not be solved"):
        sim.rollout(q0, qd0, steps=3)
