"""Simulation of closed chains (Jain 2012 Sec. 4 mechanisms): TA and FA trajectories agree, constraint error
control holds the loops closed, the driving torque's work equals the kinetic energy gained, and models
without loops step exactly as before.

Each mechanism starts from its assembled rest state (``soadyn.models.mechanisms.initial_state``) under its
steady driving torque, simulated by :func:`soadyn.experiments.jain2012.simulate` (RK4 unless stated).
"""

import functools

import numpy as np
import pytest

import soadyn as sd
from soadyn import loops
from soadyn._kernels import sim as _ks
from soadyn.experiments import jain2012
from tests.support import assert_close

NAMES = jain2012.mechanism_names()

FA_TA_AGREEMENT = 1e-6
"""m: largest difference of any frame's world position between the FA and the TA run over 2 s. Both are
4th-order RK4 solutions of the same motion in different coordinates, so they agree to integration
accuracy: measured 4.3e-8 (spatial crank slider, quick return) ... 1e-12 at the steps below."""
AGREEMENT_DT = 2e-4
"""Step (s) of the agreement runs."""
AGREEMENT_DT_FAST = {"spatial_four_bar": 5e-5}
"""Smaller steps where the motion is fast: the spatial four bar's crank spins up to ~45 rad/s within 2 s
(its FA-TA difference is 6.9e-6 at 0.2 ms, 2.7e-8 at 0.05 ms)."""
CONTROL_DT = 1e-3
"""Step (s) of the error control runs: coarse enough that uncontrolled drift is visible (up to 3.5e-4)."""
PROJECTION_BOUND = 1e-9
"""m or rad: max |phi| and max |G qd| of every state with projection (tolerance 1e-12; measured 1.0e-12
and <= 6e-14)."""
BAUMGARTE_BOUND = 1e-4
"""max |phi| with Baumgarte (alpha = beta = 50 /s) over 2 s at 1 ms (measured: 1.3e-5 worst, the quick
return; 3.5e-4 without control)."""
BAUMGARTE_GAIN = 10.0
"""Where the uncontrolled drift exceeds ``DRIFT_VISIBLE``, Baumgarte reduces max |phi| by at least this
factor (measured 27x ... 71x)."""
DRIFT_VISIBLE = 1e-6
WORK_ENERGY = 1e-5
"""Relative work-energy residual ``max_t |T(t) - T(0) - W(t)| / |W(T)|`` without gravity, RK4 at 0.25 ms
over 1 s (measured 1.2e-6 worst, the quick return; it shrinks as dt^4)."""
WORK_ENERGY_ORDER = 8.0
"""Halving dt must shrink the work-energy residual by at least this factor (RK4: 16; measured 14-16)
wherever it is above round-off (``1e-9 |W|``)."""


@functools.lru_cache(maxsize=None)
def _run(name, method, stabilization=None, duration=2.0, dt=1e-4, gravity=None):
    return jain2012.simulate(name, method, stabilization, duration=duration, dt=dt, gravity=gravity)


# ---------------------------------------------------------------------------------------- FA vs TA
@pytest.mark.parametrize("name", NAMES)
def test_fa_and_ta_trajectories_agree(name):
    dt = AGREEMENT_DT_FAST.get(name, AGREEMENT_DT)
    ta = _run(name, "ta", dt=dt)
    fa = _run(name, "fa", dt=dt)
    assert fa.sim_model.nv == 6 * ta.model.nb and fa.sim_model.nc > ta.model.nc
    assert fa.traj.t.shape == ta.traj.t.shape and ta.traj.t[-1] == pytest.approx(2.0)
    moved = float(np.ptp(ta.positions, axis=0).max())
    assert moved > 0.1, f"{name}: the mechanism hardly moved ({moved:.3g} m): nothing is compared"
    assert_close(fa.positions, ta.positions, FA_TA_AGREEMENT, f"{name}: FA vs TA frame positions {ta.frames}",
                 scale=1.0)


# ----------------------------------------------------------------------------------- error control
@pytest.mark.parametrize("method", ["ta", "fa"])
@pytest.mark.parametrize("name", NAMES)
def test_projection_keeps_the_loops_closed(name, method):
    run = _run(name, method, "projection", dt=CONTROL_DT)
    traj = run.traj
    assert traj.projection_iterations.sum() > 0, "projection never iterated: the check is void"
    assert traj.stats["stabilization"] == "projection"
    assert_close(traj.constraint_error, np.zeros(len(traj)), PROJECTION_BOUND, f"{name} ({method}): max |phi|",
                 scale=1.0)
    assert_close(traj.constraint_velocity_error, np.zeros(len(traj)), PROJECTION_BOUND,
                 f"{name} ({method}): max |G qd|", scale=1.0)


@pytest.mark.parametrize("method", ["ta", "fa"])
@pytest.mark.parametrize("name", NAMES)
def test_baumgarte_bounds_the_drift(name, method):
    free = _run(name, method, None, dt=CONTROL_DT).traj.constraint_error.max()
    run = _run(name, method, "baumgarte", dt=CONTROL_DT)
    err = run.traj.constraint_error.max()
    assert run.traj.stats["baumgarte"] == list(sd.sim.DEFAULT_BAUMGARTE)
    assert err < BAUMGARTE_BOUND, f"{name} ({method}): max |phi| = {err:.3e} with Baumgarte"
    if free > DRIFT_VISIBLE:
        assert err * BAUMGARTE_GAIN <= free, (f"{name} ({method}): Baumgarte max |phi| {err:.3e} vs "
                                              f"{free:.3e} without control")


def test_drift_without_control_is_measured():
    """The uncontrolled runs above do drift somewhere (else the Baumgarte gain check is void)."""
    worst = max(_run(n, "ta", None, dt=CONTROL_DT).traj.constraint_error.max() for n in NAMES)
    assert worst > 10 * DRIFT_VISIBLE


def test_hinge_loop_error_rate_is_the_constraint_velocity():
    """The position error of a loop with rotational freedom (here the FA hinge loop of one revolute joint,
    at joint angle 2.5 rad) must change at the rate ``G_c qd`` on the constraint manifold, so that
    Gauss-Newton projection and the Baumgarte term ``beta^2 phi`` act on the error they measure.

    With ``phi`` the rows ``Q`` of ``log(R_A^T R_B)`` the rate at a relative rotation ``Rot(z, theta)``
    would be ``J_r^-1(theta z) w_rel``, not ``w_rel`` (the constrained (x, y) rows scaled by
    ``(theta/2) cot(theta/2)`` and mixed by ``theta/2``): projection then diverges near ``theta = pi``, as it
    did on the FA models of the spatial mechanisms before loop errors were measured in swing-twist
    coordinates about the free axis."""
    b = sd.ModelBuilder("hinge", gravity=(0.0, 0.0, -9.81))
    b.add_body("rod", "world", sd.joints.Revolute((0, 0, 1)), None,
               sd.Inertia(1.0, (0.5, 0.0, 0.0), np.diag([1e-3, 0.1, 0.1])))
    tree = b.finalize()
    fa = tree.fully_augmented()
    from soadyn.augmented import fa_state

    q, _ = fa_state(tree, fa, [2.5], [0.0])
    v = np.random.default_rng(0).normal(size=fa.nv)
    data = fa.data()
    h = 1e-6
    rate = (loops.constraint_error(fa, data, sd.integrate(fa, q, v, h))
            - loops.constraint_error(fa, data, sd.integrate(fa, q, v, -h))) / (2 * h)
    assert_close(rate, loops.constraint_jacobian(fa, data, q) @ v, 1e-6, "d phi / dt vs G_c qd at closure")


# ------------------------------------------------------------------------------------ work and energy
@pytest.mark.parametrize("method", ["ta", "fa"])
@pytest.mark.parametrize("name", NAMES)
def test_driving_work_equals_kinetic_energy_gain(name, method):
    """Without gravity the loop forces do no work, so ``T(t) - T(0) = torque (theta(t) - theta(0))``."""
    res = {}
    for dt in (5e-4, 2.5e-4):
        run = _run(name, method, None, duration=1.0, dt=dt, gravity=(0.0, 0.0, 0.0))
        E = run.traj.energy
        assert np.all(E[:, 1] == 0.0), "potential energy without gravity"
        W = jain2012.driver_work(run)
        assert W[-1] > 1.0, f"{name}: the torque did little work ({W[-1]:.3g} J)"
        res[dt] = float(np.abs(E[:, 0] - E[0, 0] - W).max())
        scale = abs(W[-1])
    assert res[2.5e-4] <= WORK_ENERGY * scale, (f"{name} ({method}): |dT - W| = {res[2.5e-4]:.3e} J for "
                                                f"W = {scale:.4g} J")
    if res[5e-4] > 1e-9 * scale:
        assert res[5e-4] >= WORK_ENERGY_ORDER * res[2.5e-4], (f"{name} ({method}): residual {res[5e-4]:.3e} -> "
                                                              f"{res[2.5e-4]:.3e} J when dt is halved")


def test_fa_and_ta_driver_angles_agree():
    """The FA crank angle (from the crank's orientation) is the TA coordinate."""
    ta = _run("spatial_crank_slider", "ta", None, duration=1.0, dt=2.5e-4, gravity=(0.0, 0.0, 0.0))
    fa = _run("spatial_crank_slider", "fa", None, duration=1.0, dt=2.5e-4, gravity=(0.0, 0.0, 0.0))
    a = jain2012.driver_angle(ta)
    assert a[-1] > 2 * np.pi, "the crank should turn more than once"
    assert_close(jain2012.driver_angle(fa), a, 1e-6, "crank angle, FA vs TA")


# ------------------------------------------------------------------------------------------- no loops
@pytest.mark.parametrize("integrator", ["semi_implicit", "rk4"])
def test_tree_models_step_as_before(integrator):
    """Without loops the simulator runs the tree rollout kernel as before: bit-identical states, no loop
    arrays, no loop statistics."""
    model = sd.models.auto_tree(5, seed=4, joint_mix=(sd.joints.FREE, sd.joints.REVOLUTE, sd.joints.SPHERICAL))
    rng = np.random.default_rng(2)
    q0, qd0 = model.random_q(rng, scale=0.5), rng.normal(scale=0.5, size=model.nv)
    tau = rng.normal(size=(40, model.nv))
    sim = sd.Simulator(model, 1e-3, integrator)
    traj = sim.rollout(q0, qd0, tau=tau, progress=False)
    Q = np.empty((41, model.nq))
    QD = np.empty((41, model.nv))
    Q[0], QD[0] = q0, qd0
    d = model.data()
    st = _ks.rollout(model.model_int, model.model_float, d.data_float, tau, d.fext_zero[None].copy(), 1e-3,
                     sd.sim.INTEGRATORS[integrator], Q, QD)
    assert st == 0
    assert np.array_equal(traj.q, Q) and np.array_equal(traj.qd, QD)
    for name in ("constraint_error", "constraint_velocity_error", "loop_rank", "loop_singular",
                 "projection_iterations"):
        assert getattr(traj, name) is None, name
    assert "max_constraint_error" not in traj.stats and "loop_method" not in traj.stats


def test_loops_change_the_motion():
    """The same tree without its loop falls differently (the loop forces act)."""
    run = _run("planar_four_bar", "ta", None, duration=0.2, dt=1e-3)
    model = run.model
    import dataclasses

    tree = dataclasses.replace(model, nl=0, nc=0)
    free = sd.Simulator(tree, 1e-3, "rk4").rollout(run.traj.q[0], run.traj.qd[0], duration=0.2, tau=run.tau,
                                                  progress=False)
    assert np.abs(free.q - run.traj.q).max() > 1e-2
