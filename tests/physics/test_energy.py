"""Energy, momentum and closed forms of simulated motion: RK4 keeps the energy of the free 12-link
pendulum with a fourth-order error, semi-implicit Euler keeps a bounded energy error where it is
symplectic, the pendulum period matches its closed form, a free-floating body conserves momentum and
energy and rotates as the rigid-body Euler equations say."""

import dataclasses

import numpy as np
import pytest
from scipy.integrate import solve_ivp
from scipy.special import ellipk

import soadyn as sd
from soadyn import joints as J
from soadyn.models.pendulum import GRAVITY, LENGTH, LINK_MASS
from soadyn.spatial import Inertia, crf, quat_to_rot, rot_axis
from tests.support import ALGORITHMS, assert_close

RK4_ORDER_MIN = 3.5
"""Observed order of the RK4 energy error (4 in theory; dt = 4, 2, 1 ms gives about 3.99)."""
RK4_ENERGY_TOL = 1e-9
"""Relative energy drift of the 12-link pendulum over 1 s under RK4 at dt = 1 ms (measured ~4e-11)."""
SYMPLECTIC_GROWTH_MAX = 1.01
"""Semi-implicit Euler on one hinge: max energy error late in the run / early in the run (a bounded,
periodic error gives 1; explicit Euler's error grows without bound)."""
FIRST_ORDER = (0.8, 1.25)
"""Range of the observed order of a first-order method's energy error."""
PERIOD_SMALL_TOL = 2e-5
"""Relative period error at 0.01 rad amplitude vs the small-angle formula (the finite-amplitude
correction is theta0^2 / 16 = 6.3e-6; RK4 at dt = 1 ms and the crossing interpolation add < 1e-8)."""
PERIOD_EXACT_TOL = 1e-9
"""Relative period error at 1 rad amplitude vs the exact elliptic-integral period (measured ~2e-13)."""
FREE_BODY_TOL = 1e-9
"""RK4 at dt = 1 ms vs an adaptive DOP853 solution (rtol 1e-12) of the same ODE: velocities, rotation
matrices and positions over 2 s of tumbling (relative to their magnitude; measured ~1e-11)."""
CONSERVATION_TOL = 1e-9
"""Relative drift of spatial momentum and energy of a floating tree over 1 s under RK4 at dt = 1 ms."""


def _zero_gravity(model: sd.Model) -> sd.Model:
    g = np.zeros(3)
    g.setflags(write=False)
    return dataclasses.replace(model, gravity=g)


def _energy_error(model, q0, qd0, dt, duration, integrator):
    traj = sd.Simulator(model, dt, integrator=integrator).rollout(q0, qd0, duration=duration, progress=False)
    E = traj.energy[:, 2]
    return np.abs(E - E[0]), traj


# ------------------------------------------------------------------------------------ 12-link pendulum
def test_rk4_energy_error_is_fourth_order_on_12_link_pendulum():
    model = sd.models.pendulum(12)
    q0 = np.full(12, 0.3)  # a curled chain: fast motion, 90+ J of kinetic energy within 0.5 s
    qd0 = np.zeros(12)
    dts = (4e-3, 2e-3, 1e-3)
    errors = []
    for dt in dts:
        err, traj = _energy_error(model, q0, qd0, dt, 1.0, "rk4")
        assert traj.energy[:, 0].max() > 50.0, "the test motion should be fast"
        errors.append(err.max())
    orders = [np.log2(errors[k] / errors[k + 1]) for k in range(2)]
    detail = f"max |E - E0| for dt = {dts}: {errors}, observed orders {orders}"
    assert min(orders) > RK4_ORDER_MIN, detail
    E0 = traj.energy[0, 2]
    assert errors[-1] <= RK4_ENERGY_TOL * abs(E0), detail


def test_semi_implicit_energy_error_bounded_on_one_hinge():
    """With a constant mass matrix (one hinge) semi-implicit Euler is the symplectic Euler method: the
    energy error oscillates with a bounded amplitude proportional to dt over many periods."""
    model = sd.models.pendulum(1)
    q0, qd0 = np.array([1.0]), np.zeros(1)
    amplitude = {}
    for dt in (2e-3, 1e-3):
        err, _ = _energy_error(model, q0, qd0, dt, 60.0, "semi_implicit")  # ~10 periods
        K = err.size
        early, late = err[:K // 6].max(), err[-K // 6:].max()
        assert late <= SYMPLECTIC_GROWTH_MAX * early, f"dt={dt}: energy error grew from {early:.3e} to {late:.3e}"
        amplitude[dt] = err.max()
    order = np.log2(amplitude[2e-3] / amplitude[1e-3])
    assert FIRST_ORDER[0] < order < FIRST_ORDER[1], f"energy error amplitudes {amplitude}, order {order:.3f}"


def test_semi_implicit_energy_drift_first_order_on_12_link_pendulum():
    """With a configuration-dependent mass matrix the velocity-form semi-implicit Euler is not symplectic:
    the energy drifts, but by O(dt)."""
    model = sd.models.pendulum(12)
    q0, qd0 = np.full(12, 0.1), np.zeros(12)
    drift = {}
    for dt in (2e-3, 1e-3):
        err, _ = _energy_error(model, q0, qd0, dt, 5.0, "semi_implicit")
        drift[dt] = err.max()
    order = np.log2(drift[2e-3] / drift[1e-3])
    assert FIRST_ORDER[0] < order < FIRST_ORDER[1], f"energy errors {drift}, order {order:.3f}"


# --------------------------------------------------------------------------------------- simple pendulum
def _period(traj) -> float:
    """Mean period from successive downward zero crossings of q (linear interpolation)."""
    q = traj.q[:, 0]
    k = np.flatnonzero((q[:-1] > 0.0) & (q[1:] <= 0.0))
    tc = traj.t[k] + q[k] / (q[k] - q[k + 1]) * (traj.t[1] - traj.t[0])
    assert tc.size >= 2, "need two crossings"
    return float(np.mean(np.diff(tc)))


def _physical_pendulum_constants():
    r = 0.5 * LENGTH  # one sphere of radius 6 m hanging from its top point
    m, g = LINK_MASS, GRAVITY
    I_hinge = 0.4 * m * r**2 + m * r**2  # sphere about its centre, moved to the hinge
    return np.sqrt(I_hinge / (m * g * r))  # 1 / omega_0


@pytest.mark.parametrize("amplitude", [0.01, 1.0])
def test_one_link_pendulum_period(amplitude):
    model = sd.models.pendulum(1)
    inv_w0 = _physical_pendulum_constants()
    T_small = 2.0 * np.pi * inv_w0
    traj = sd.Simulator(model, 1e-3, "rk4").rollout([amplitude], [0.0], duration=2.3 * T_small, progress=False)
    T = _period(traj)
    if amplitude < 0.1:
        assert_close(T, T_small, PERIOD_SMALL_TOL, "small-angle period", scale=T_small)
    else:
        T_exact = 4.0 * inv_w0 * ellipk(np.sin(0.5 * amplitude) ** 2)
        assert_close(T, T_exact, PERIOD_EXACT_TOL, "finite-amplitude period", scale=T_exact)


def test_armature_is_a_rotor_inertia_on_the_hinge():
    """Joint armature ``a`` adds to the hinge's inertia and nothing else: the exact period becomes
    ``4 sqrt((I_hinge + a) / (m g r)) K(sin^2(theta0 / 2))``, and the energy with the rotor's
    ``1/2 a qd^2`` is conserved."""
    model = sd.models.pendulum(1)
    r = 0.5 * LENGTH
    I_hinge = 1.4 * LINK_MASS * r**2
    armature = np.array([0.7 * I_hinge])
    armature.setflags(write=False)
    model = dataclasses.replace(model, dof_armature=armature)
    inv_w0 = np.sqrt((I_hinge + armature[0]) / (LINK_MASS * GRAVITY * r))
    amplitude = 1.0
    T_exact = 4.0 * inv_w0 * ellipk(np.sin(0.5 * amplitude) ** 2)
    err, traj = _energy_error(model, [amplitude], [0.0], 1e-3, 2.3 * T_exact, "rk4")
    assert_close(_period(traj), T_exact, PERIOD_EXACT_TOL, "period with armature", scale=T_exact)
    assert err.max() <= RK4_ENERGY_TOL * abs(traj.energy[0, 2]), "energy with the rotor term drifts"
    kinetic = 0.5 * (I_hinge + armature[0]) * traj.qd[:, 0] ** 2
    assert_close(traj.energy[:, 0], kinetic, ALGORITHMS, "kinetic energy 1/2 (I_hinge + a) qd^2")


# ------------------------------------------------------------------------------------ free-floating body
def _rigid_body_rhs(I6):
    """Torque-free rigid body in body coordinates (RBDA Eq. 2.74 with zero force, Newton-Euler about
    the body origin): ``I vdot = -v x* I v``; kinematics ``pdot = R v_lin``, ``Rdot = R w~``."""
    I6inv = np.linalg.inv(I6)

    def rhs(_, y):
        R = y[3:12].reshape(3, 3)
        v = y[12:]
        w = v[:3]
        W = np.array([[0.0, -w[2], w[1]], [w[2], 0.0, -w[0]], [-w[1], w[0], 0.0]])
        return np.concatenate([R @ v[3:], (R @ W).ravel(), -I6inv @ (crf(v) @ (I6 @ v))])

    return rhs


def test_free_body_tumbling_matches_rigid_body_equations():
    model = _zero_gravity(sd.models.auto_tree(1, joint_mix=(J.FREE,), seed=7))
    assert model.jnt_type[0] == J.FREE
    q0 = np.array([0.1, -0.2, 0.3, *(np.array([0.2, -0.1, 0.3, 0.9]) / np.linalg.norm([0.2, -0.1, 0.3, 0.9]))])
    qd0 = np.array([1.5, -2.0, 0.7, 0.3, 0.1, -0.4])  # tumbling about no principal axis
    duration, dt = 2.0, 1e-3
    traj = sd.Simulator(model, dt, "rk4").rollout(q0, qd0, duration=duration, progress=False)
    y0 = np.concatenate([q0[:3], quat_to_rot(q0[3:]).ravel(), qd0])
    samples = np.arange(0, len(traj), 100)
    ref = solve_ivp(_rigid_body_rhs(model.body_I[0]), (0.0, duration), y0, method="DOP853", rtol=1e-12,
                    atol=1e-12, t_eval=traj.t[samples]).y.T
    assert_close(traj.qd[samples], ref[:, 12:], FREE_BODY_TOL, "body velocity", scale=np.abs(qd0).max())
    R = np.array([quat_to_rot(traj.q[s, 3:]) for s in samples])
    assert_close(R, ref[:, 3:12].reshape(-1, 3, 3), FREE_BODY_TOL, "orientation")
    assert_close(traj.q[samples, :3], ref[:, :3], FREE_BODY_TOL, "position")
    # the angular velocity really tumbles: its body-frame direction changes
    w = traj.qd[:, :3]
    assert np.abs(w - w[0]).max() > 0.1


def test_free_body_principal_axis_rotation_closed_form():
    """A body with its centre of mass at its origin spinning about a principal axis: ``R(t) = R0 rot(z,
    w t)``, the origin moves on a straight line ``p0 + R0 v0 t``, the body-frame velocity turns back."""
    b = sd.ModelBuilder("spinner", gravity=(0.0, 0.0, 0.0))
    b.add_body("body", "world", J.Free(), inertia=Inertia(2.0, np.zeros(3), np.diag([0.3, 0.5, 0.7])))
    model = b.finalize()
    w = 3.0
    v0 = np.array([0.4, -0.2, 0.5])
    R0 = rot_axis((1.0, 1.0, 0.0), 0.4)
    q0 = np.concatenate([[1.0, 2.0, 3.0], sd.spatial.rot_to_quat(R0)])
    traj = sd.Simulator(model, 1e-3, "rk4").rollout(q0, np.r_[0.0, 0.0, w, v0], duration=3.0, progress=False)
    for s in range(0, len(traj), 250):
        t = traj.t[s]
        Rz = rot_axis((0.0, 0.0, 1.0), w * t)
        assert_close(quat_to_rot(traj.q[s, 3:]), R0 @ Rz, FREE_BODY_TOL, f"orientation at t={t}")
        assert_close(traj.q[s, :3], q0[:3] + R0 @ v0 * t, FREE_BODY_TOL, f"position at t={t}")
        assert_close(traj.qd[s], np.r_[0.0, 0.0, w, Rz.T @ v0], FREE_BODY_TOL, f"body velocity at t={t}")


def _world_momentum(model, data, q, qd) -> np.ndarray:
    """Total spatial momentum ``[angular about the world origin; linear]`` in world coordinates."""
    oR, op = sd.fk(model, data, q, qd)
    h = np.zeros(6)
    for i in range(model.nb):
        hb = model.body_I[i] @ data.v[i]  # body coordinates, about the body origin
        f = oR[i] @ hb[3:]
        h[:3] += oR[i] @ hb[:3] + np.cross(op[i], f)
        h[3:] += f
    return h


def test_floating_tree_conserves_momentum_and_energy():
    model = _zero_gravity(sd.models.auto_tree(4, branching=1.5, seed=3,
                                              joint_mix=(J.FREE, J.REVOLUTE, J.SPHERICAL, J.UNIVERSAL)))
    assert model.jnt_type[0] == J.FREE
    rng = np.random.default_rng(5)
    q0 = model.random_q(rng)
    qd0 = rng.normal(size=model.nv)
    traj = sd.Simulator(model, 1e-3, "rk4").rollout(q0, qd0, duration=1.0, progress=False)
    data = model.data()
    h0 = _world_momentum(model, data, q0, qd0)
    assert np.abs(h0).max() > 0.5, "the test motion should carry momentum"
    for s in range(0, len(traj), 100):
        assert_close(_world_momentum(model, data, traj.q[s], traj.qd[s]), h0, CONSERVATION_TOL,
                     f"spatial momentum at t={traj.t[s]:.2f}")
    E = traj.energy[:, 2]
    assert_close(E, np.full_like(E, E[0]), CONSERVATION_TOL, "total energy")
    assert np.all(traj.energy[:, 1] == 0.0), "zero gravity: no potential energy"


# --------------------------------------------------------------- semi-implicit Euler: exact free flight
FREE_FLIGHT_TOL = 1e-9
"""Relative drift of |v|, kinetic energy and the straight-line centre-of-mass path of a spinning free body
over 3 s of semi-implicit Euler at dt = 1 ms (measured ~1e-13; the explicit velocity-product update gave
+16 % in |v|, exp(w^2 dt^2 N / 2))."""


@pytest.mark.parametrize("com", [(0.0, 0.0, 0.0), (0.05, -0.02, 0.03)])
def test_semi_implicit_free_flight_is_exact(com):
    """A sphere (centre of mass at the body origin, or off it) at 1 m/s spinning at 10 rad/s in zero
    gravity: its centre of mass moves on a straight line at constant speed and its kinetic energy is
    constant, with the default integrator, in one rollout and step by step."""
    b = sd.ModelBuilder("spinner", gravity=(0.0, 0.0, 0.0))
    b.add_body("ball", "world", J.Free(), inertia=Inertia.sphere(1.0, 0.1, com=com))
    model = b.finalize()
    c = np.asarray(com)
    w = np.array([0.0, 0.0, 10.0])  # about an axis through the centre of mass: a constant body velocity
    v_com = np.array([1.0, 0.0, 0.0])
    R0 = rot_axis((1.0, 2.0, 0.5), 0.7)
    q0 = np.concatenate([[0.1, 0.2, 0.3], sd.spatial.rot_to_quat(R0)])
    w_body = R0.T @ w
    qd0 = np.r_[w_body, R0.T @ v_com - np.cross(w_body, c)]  # body-origin velocity, body axes
    sim = sd.Simulator(model, 1e-3)
    assert sim.integrator == "semi_implicit"
    traj = sim.rollout(q0, qd0, duration=3.0, progress=False)
    ke = traj.energy[:, 0]
    assert_close(ke, np.full_like(ke, ke[0]), FREE_FLIGHT_TOL, "kinetic energy", scale=ke[0])
    R = np.array([quat_to_rot(x) for x in traj.q[:, 3:]])
    p_com = traj.q[:, :3] + R @ c
    v_world = np.einsum("sij,sj->si", R, traj.qd[:, 3:] + np.cross(traj.qd[:, :3], c))
    assert_close(v_world, np.tile(v_com, (len(traj), 1)), FREE_FLIGHT_TOL, "centre-of-mass velocity")
    assert_close(p_com, q0[:3] + R0 @ c + traj.t[:, None] * v_com, FREE_FLIGHT_TOL, "centre-of-mass path",
                 scale=3.0)
    q, qd = q0, qd0
    for _ in range(300):
        q, qd = sim.step(q, qd)
    assert_close(np.r_[q, qd], np.r_[traj.q[300], traj.qd[300]], FREE_FLIGHT_TOL, "Simulator.step vs rollout")
