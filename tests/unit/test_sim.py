"""Simulator API: argument checks, step vs rollout, input schedules, chunked runs, failures, Trajectory
files and plots, the energy helper."""

import subprocess
import sys

import numpy as np
import pytest

import soadyn as sd
from soadyn import joints as J
from soadyn import sim as sim_module
from soadyn.sim import SimulationError
from tests.support import ALGORITHMS, SAME_MATH, assert_close

PNG_MAGIC = b"\x89PNG\r\n\x1a\n"


@pytest.fixture(scope="module")
def chain():
    return sd.models.pendulum(4)


@pytest.fixture(scope="module")
def floating():
    return sd.models.auto_tree(3, seed=2, joint_mix=(J.FREE, J.REVOLUTE, J.SPHERICAL))


def _state(model, seed=0):
    rng = np.random.default_rng(seed)
    return model.random_q(rng, scale=0.5), rng.normal(scale=0.5, size=model.nv)


# ------------------------------------------------------------------------------------------ arguments
@pytest.mark.parametrize("dt", [0.0, -1e-3, np.nan, np.inf, "0.001", None, True])
def test_bad_dt(chain, dt):
    with pytest.raises(ValueError, match="dt"):
        sd.Simulator(chain, dt)


def test_bad_integrator_and_model(chain):
    with pytest.raises(ValueError, match="integrator"):
        sd.Simulator(chain, 1e-3, integrator="euler")
    with pytest.raises(ValueError, match="model"):
        sd.Simulator("pendulum", 1e-3)
    sim = sd.Simulator(chain, np.float32(1e-3), integrator="rk4")
    assert sim.dt == pytest.approx(1e-3) and sim.integrator == "rk4"


def test_bad_rollout_arguments(chain):
    sim = sd.Simulator(chain, 1e-3)
    q0, qd0 = _state(chain)
    nv = chain.nv
    cases = [
        (dict(), "duration, steps"),
        (dict(duration=0.1, steps=100), "duration, steps"),
        (dict(steps=0), "steps"),
        (dict(steps=2.5), "steps"),
        (dict(duration=-1.0), "duration"),
        (dict(duration=1e-5), "duration"),
        (dict(steps=10, tau=np.zeros(nv + 1)), "tau"),
        (dict(steps=10, tau=np.zeros((9, nv))), "tau"),
        (dict(steps=10, tau=np.zeros((10, nv + 1))), "tau"),
        (dict(steps=10, f_ext=np.zeros((9, chain.nb, 6))), "f_ext"),
        (dict(steps=10, f_ext={"nope": np.zeros(6)}), "body"),
        (dict(steps=10, progress="yes"), "progress"),
    ]
    for kw, name in cases:
        with pytest.raises(ValueError, match=name):
            sim.rollout(q0, qd0, **kw)
    with pytest.raises(ValueError, match="q0"):
        sim.rollout(q0[:-1], qd0, steps=3)
    with pytest.raises(ValueError, match="qd0"):
        sim.rollout(q0, np.r_[qd0[:-1], np.nan], steps=3)
    with pytest.raises(ValueError, match="tau"):
        sim.step(q0, qd0, tau=np.zeros(nv + 1))


def test_bad_quaternion_in_q0(floating):
    q0, qd0 = _state(floating)
    q0[3:7] *= 1.5
    with pytest.raises(ValueError, match="q0: quaternion"):
        sd.Simulator(floating, 1e-3).rollout(q0, qd0, steps=3)


# ------------------------------------------------------------------------------------ step and rollout
@pytest.mark.parametrize("integrator", ["semi_implicit", "rk4"])
def test_step_equals_rollout(floating, integrator):
    sim = sd.Simulator(floating, 2e-3, integrator=integrator)
    q, qd = _state(floating, 1)
    tau = np.random.default_rng(3).normal(size=(5, floating.nv))
    traj = sim.rollout(q, qd, tau=tau, progress=False)
    assert len(traj) == 6 and traj.stats["steps"] == 5
    for n in range(5):
        q, qd = sim.step(q, qd, tau[n])
        assert np.array_equal(q, traj.q[n + 1]), f"q after step {n}"
        assert np.array_equal(qd, traj.qd[n + 1]), f"qd after step {n}"
    assert np.array_equal(traj.t, np.arange(6) * 2e-3)


def test_semi_implicit_step_formula(chain):
    """One semi-implicit step: ``qd' = qd + dt aba(q, qd, tau)``, ``q' = q + dt qd'`` (hinges)."""
    dt = 1e-3
    q, qd = _state(chain, 4)
    tau = np.linspace(-1.0, 1.0, chain.nv)
    q1, qd1 = sd.Simulator(chain, dt).step(q, qd, tau)
    qdd = sd.aba(chain, chain.data(), q, qd, tau).copy()
    assert_close(qd1, qd + dt * qdd, SAME_MATH, "qd'")
    assert_close(q1, q + dt * qd1, SAME_MATH, "q'")


def test_step_does_not_modify_inputs(floating):
    sim = sd.Simulator(floating, 1e-3)
    q, qd = _state(floating)
    q_copy, qd_copy = q.copy(), qd.copy()
    q1, qd1 = sim.step(q, qd)
    q2, _ = sim.step(q, qd)
    assert np.array_equal(q, q_copy) and np.array_equal(qd, qd_copy)
    assert np.array_equal(q1, q2), "step is a function of its inputs"
    assert not np.shares_memory(q1, q2)


def test_step_inputs_do_not_carry_over(floating):
    """tau and f_ext act during their step only: a step without them after one with them is the step of a
    fresh simulator."""
    q, qd = _state(floating, 2)
    fresh = sd.Simulator(floating, 1e-3).step(q, qd)
    sim = sd.Simulator(floating, 1e-3)
    pushed = sim.step(q, qd, np.full(floating.nv, 0.5), np.full((floating.nb, 6), 0.3))
    assert not np.array_equal(pushed[1], fresh[1]), "the inputs must act"
    after = sim.step(q, qd)
    assert np.array_equal(after[0], fresh[0]) and np.array_equal(after[1], fresh[1])
    sim.step(q, qd, f_ext={0: np.ones(6)})
    after = sim.step(q, qd)
    assert np.array_equal(after[1], fresh[1])


def test_tau_shapes(chain):
    sim = sd.Simulator(chain, 1e-3, "rk4")
    q0, qd0 = _state(chain)
    c = np.linspace(0.5, -0.5, chain.nv)
    constant = sim.rollout(q0, qd0, steps=20, tau=c, progress=False)
    schedule = sim.rollout(q0, qd0, tau=np.tile(c, (20, 1)), progress=False)  # sets steps = 20
    assert len(schedule) == 21
    assert np.array_equal(constant.q, schedule.q) and np.array_equal(constant.qd, schedule.qd)
    as_list = sim.rollout(q0, qd0, steps=20, tau=list(c), progress=False)
    assert np.array_equal(constant.q, as_list.q)
    free = sim.rollout(q0, qd0, steps=20, progress=False)
    assert not np.array_equal(constant.q, free.q), "tau must act"
    # a varying schedule acts row by row
    sched = np.random.default_rng(0).normal(size=(20, chain.nv))
    traj = sim.rollout(q0, qd0, tau=sched, progress=False)
    q, qd = q0, qd0
    for n in range(20):
        q, qd = sim.step(q, qd, sched[n])
    assert np.array_equal(q, traj.q[-1]) and np.array_equal(qd, traj.qd[-1])


def test_duration_rounds_to_steps(chain):
    sim = sd.Simulator(chain, 1e-3)
    for duration in (0.0104, 0.0096, 0.01):
        traj = sim.rollout(*_state(chain), duration=duration, progress=False)
        assert traj.stats["steps"] == 10 and len(traj) == 11
        assert traj.t[-1] == pytest.approx(0.01, abs=1e-15)


def test_external_force_forms(floating):
    sim = sd.Simulator(floating, 1e-3)
    q0, qd0 = _state(floating)
    F = np.zeros((floating.nb, 6))
    F[1] = [0.1, -0.2, 0.3, 1.0, 2.0, -1.0]
    as_array = sim.rollout(q0, qd0, steps=10, f_ext=F, progress=False)
    as_dict = sim.rollout(q0, qd0, steps=10, f_ext={floating.body_names[1]: F[1]}, progress=False)
    as_sched = sim.rollout(q0, qd0, steps=10, f_ext=np.tile(F, (10, 1, 1)), progress=False)
    none = sim.rollout(q0, qd0, steps=10, progress=False)
    assert np.array_equal(as_array.q, as_dict.q) and np.array_equal(as_array.q, as_sched.q)
    assert not np.array_equal(as_array.q, none.q), "f_ext must act"
    q1, qd1 = sim.step(q0, qd0, f_ext=F)
    assert np.array_equal(q1, as_array.q[1]) and np.array_equal(qd1, as_array.qd[1])


def test_chunked_rollout_is_bit_identical(chain, monkeypatch):
    sim = sd.Simulator(chain, 1e-3, "rk4")
    q0, qd0 = _state(chain)
    tau = np.random.default_rng(1).normal(size=(300, chain.nv))
    whole = sim.rollout(q0, qd0, tau=tau, progress=False)
    assert whole.stats["chunks"] == 1
    monkeypatch.setattr(sim_module, "CHUNK_S", 1e-9)  # one step per chunk budget -> many chunks
    monkeypatch.setattr(sim_module, "_body_eval_seconds", [1e-6])
    chunked = sim.rollout(q0, qd0, tau=tau, progress=True)
    assert chunked.stats["chunks"] == 300
    assert np.array_equal(whole.q, chunked.q) and np.array_equal(whole.qd, chunked.qd)
    assert np.array_equal(whole.energy, chunked.energy)
    # automatic: a run expected to exceed PROGRESS_AFTER_S is chunked, progress=False never is
    monkeypatch.setattr(sim_module, "CHUNK_S", 50.5 * 4 * (chain.nb + 2) * 1e-6)  # 50 steps a chunk
    monkeypatch.setattr(sim_module, "_body_eval_seconds", [1e-6])
    monkeypatch.setattr(sim_module, "PROGRESS_AFTER_S", 0.0)
    auto = sim.rollout(q0, qd0, tau=tau)
    assert auto.stats["chunks"] == 6 and np.array_equal(auto.q, whole.q)
    assert sim.rollout(q0, qd0, tau=tau, progress=False).stats["chunks"] == 1


def test_stats(chain):
    traj = sd.Simulator(chain, 1e-3, "rk4").rollout(*_state(chain), steps=50, progress=False)
    s = traj.stats
    assert s["model"] == chain.name == traj.model_name
    assert (s["nq"], s["nv"], s["dt"], s["integrator"], s["steps"]) == (chain.nq, chain.nv, 1e-3, "rk4", 50)
    assert s["wall_time_s"] > 0 and s["steps_per_second"] == pytest.approx(50 / s["wall_time_s"])
    assert traj.q.shape == (51, chain.nq) and traj.qd.shape == (51, chain.nv) and traj.energy.shape == (51, 3)


# --------------------------------------------------------------------------------------------- failure
@pytest.mark.parametrize("integrator", ["semi_implicit", "rk4"])
def test_nan_in_tau_schedule_names_step(chain, integrator):
    sim = sd.Simulator(chain, 1e-3, integrator)
    q0, qd0 = _state(chain)
    tau = np.zeros((100, chain.nv))
    clean = sim.rollout(q0, qd0, tau=tau, progress=False)
    k = 37
    tau[k, 2] = np.nan
    with pytest.raises(SimulationError, match=rf"step {k} \(t = 0\.037 s\): tau\[{k}\]") as info:
        sim.rollout(q0, qd0, tau=tau, progress=False)
    exc = info.value
    assert isinstance(exc, ValueError)
    assert exc.step == k and exc.time == pytest.approx(k * 1e-3)
    part = exc.trajectory
    assert len(part) == k + 1, "states 0..k are valid"
    assert np.array_equal(part.q, clean.q[:k + 1]) and np.array_equal(part.qd, clean.qd[:k + 1])
    assert np.array_equal(part.energy, clean.energy[:k + 1])
    assert part.stats["failed_step"] == k


def test_nan_in_chunked_run_names_global_step(chain, monkeypatch):
    monkeypatch.setattr(sim_module, "CHUNK_S", 10.5 * (chain.nb + 2) * 1e-6)  # 10 steps a chunk
    monkeypatch.setattr(sim_module, "_body_eval_seconds", [1e-6])
    f_ext = np.zeros((100, chain.nb, 6))
    f_ext[64, 1, 4] = np.inf
    with pytest.raises(SimulationError, match=r"step 64 .*f_ext\[64\]") as info:
        sd.Simulator(chain, 1e-3).rollout(*_state(chain), f_ext=f_ext, progress=True)
    assert len(info.value.trajectory) == 65


def test_divergence_names_step(chain):
    tau = np.zeros((50, chain.nv))
    tau[20:] = 1e305
    with pytest.raises(SimulationError, match="step 2[0-9] .*diverged") as info:
        sd.Simulator(chain, 1e-3).rollout(*_state(chain), tau=tau, progress=False)
    part = info.value.trajectory
    assert np.all(np.isfinite(part.q)) and np.all(np.isfinite(part.qd))


def test_step_failure_names_argument(chain):
    sim = sd.Simulator(chain, 1e-3)
    q, qd = _state(chain)
    with pytest.raises(ValueError, match="tau"):
        sim.step(q, qd, tau=np.full(chain.nv, np.nan))
    with pytest.raises(ValueError, match="q: "):
        sim.step(np.full(chain.nq, np.nan), qd)
    with pytest.raises(ValueError, match="diverged"):
        sim.step(q, np.full(chain.nv, 1e200))  # finite, but v x I v overflows


# ------------------------------------------------------------------------------------ trajectory files
def test_save_load_round_trip(floating, tmp_path):
    traj = sd.Simulator(floating, 1e-3, "rk4").rollout(*_state(floating), steps=40, progress=False)
    path = traj.save(tmp_path / "run")
    assert path.suffix == ".npz" and path.exists()
    back = sd.Trajectory.load(path)
    for name in ("t", "q", "qd", "energy"):
        a, b = getattr(traj, name), getattr(back, name)
        assert a.dtype == b.dtype and np.array_equal(a, b), name
    assert back.stats == traj.stats
    assert back.model_name == traj.model_name
    np.savez(tmp_path / "other.npz", x=np.zeros(3))
    with pytest.raises(ValueError, match="path"):
        sd.Trajectory.load(tmp_path / "other.npz")


def test_frame_positions(chain):
    traj = sd.Simulator(chain, 1e-3).rollout(*_state(chain), steps=30, progress=False)
    data = chain.data()
    P = traj.frame_positions(chain, "tip")
    assert P.shape == (31, 3)
    expect = np.array([sd.frame_pose(chain, data, q, "tip")[:3, 3] for q in traj.q])
    assert_close(P, expect, SAME_MATH, "tip positions")
    both = traj.frame_positions(chain, ["tip", "ball0"])
    assert both.shape == (31, 2, 3) and np.array_equal(both[:, 0], P)
    with pytest.raises(ValueError, match="frame"):
        traj.frame_positions(chain, "nope")
    with pytest.raises(ValueError, match="model"):
        traj.frame_positions(sd.models.pendulum(3), "tip")


def test_plot_writes_png(chain, tmp_path):
    traj = sd.Simulator(chain, 1e-3).rollout(*_state(chain), steps=30, progress=False)
    path = traj.plot(tmp_path / "run.png", model=chain, frames=("tip", "ball1"),
                     quantities=("energy", "energy_drift", "q", "qd"))
    data = path.read_bytes()
    assert path == tmp_path / "run.png" and len(data) > 1000 and data[:8] == PNG_MAGIC
    loaded = sd.Trajectory.load(traj.save(tmp_path / "run.npz"))
    assert loaded.plot(tmp_path / "energy").read_bytes()[:8] == PNG_MAGIC  # .png appended
    with pytest.raises(ValueError, match="quantities"):
        traj.plot(tmp_path / "x.png", quantities=("momentum",))
    with pytest.raises(ValueError, match="model"):
        traj.plot(tmp_path / "x.png", frames=("tip",))


def test_columns_figure(tmp_path):
    from soadyn.viz import columns_figure

    t = np.linspace(0.0, 1.0, 50)
    path = columns_figure(tmp_path / "cols.png", t, {"sin": np.sin(t), "pair": np.c_[t, t**2]}, title="x")
    assert path.read_bytes()[:8] == PNG_MAGIC
    path = columns_figure(tmp_path / "sep.png", t, {"a": t, "b": -t}, separate=True)
    assert path.stat().st_size > 1000


def test_import_does_not_load_matplotlib():
    code = "import sys, soadyn; assert 'matplotlib' not in sys.modules"
    subprocess.run([sys.executable, "-c", code], check=True)


# -------------------------------------------------------------------------------------------- energy
def test_energy_helper(floating):
    data = floating.data()
    q, qd = _state(floating, 9)
    kinetic, potential = sd.energy(floating, data, q, qd)
    M = sd.crba(floating, floating.data(), q)
    assert_close(kinetic, 0.5 * qd @ M @ qd, ALGORITHMS, "kinetic energy")
    # potential: -sum m g . c over the bodies' world centres of mass
    oR, op = sd.fk(floating, floating.data(), q)
    pot = 0.0
    for i in range(floating.nb):
        inertia = sd.Inertia.from_matrix(floating.body_I[i])
        pot -= inertia.mass * floating.gravity @ (op[i] + oR[i] @ inertia.com)
    assert_close(potential, pot, SAME_MATH, "potential energy")
    traj = sd.Simulator(floating, 1e-3).rollout(q, qd, steps=3, progress=False)
    assert_close(traj.energy[0], [kinetic, potential, kinetic + potential], SAME_MATH, "trajectory energy")
    with pytest.raises(ValueError, match="qd"):
        sd.energy(floating, data, q, qd[:-1])


# ------------------------------------------------------------------------------------- closed chains
@pytest.fixture(scope="module")
def four_bar():
    """A planar four bar (crank, coupler, rocker; one planar pin loop) and a consistent state: assembled
    with the crank held, moving along the constraint's null space."""
    from soadyn import loops

    b = sd.ModelBuilder("unit_four_bar", gravity=(0.0, -9.81, 0.0))
    rod = lambda m, L: sd.Inertia(m, (L / 2, 0, 0), np.diag([1e-3, m * L * L / 12, m * L * L / 12]))  # noqa: E731
    b.add_body("crank", "world", J.Revolute((0, 0, 1)), None, rod(1.0, 0.5))
    b.add_body("coupler", "crank", J.Revolute((0, 0, 1)), sd.Transform.from_pose(None, (0.5, 0, 0)), rod(2.0, 1.2))
    b.add_body("rocker", "world", J.Revolute((0, 0, 1)), sd.Transform.from_pose(None, (1.0, 0, 0)), rod(1.5, 1.0))
    b.add_frame("coupler_end", "coupler", sd.Transform.from_pose(None, (1.2, 0, 0)))
    b.add_frame("rocker_end", "rocker", sd.Transform.from_pose(None, (1.0, 0, 0)))
    b.add_loop("pin", "rocker_end", "coupler_end", "planar_pin")
    model = b.finalize()
    q = loops.assemble(model, [1.2, -0.9, 1.9], fixed=["crank_joint"])
    G = loops.constraint_jacobian(model, model.data(), q)
    qd = 2.0 * np.linalg.svd(G)[2][-1]
    return model, q, qd


def test_loop_options_are_validated(four_bar, chain):
    model = four_bar[0]
    with pytest.raises(ValueError, match="loop_method: 'kkt' is not supported"):
        sd.Simulator(model, 1e-3, loop_method="kkt")
    for bad in ("fa", None, 3):
        with pytest.raises(ValueError, match="loop_method"):
            sd.Simulator(model, 1e-3, loop_method=bad)
    for bad in ("stiff", "Projection", 1):
        with pytest.raises(ValueError, match="stabilization"):
            sd.Simulator(model, 1e-3, stabilization=bad)
    bad_gains = [(-1.0, 1.0), (1.0, np.nan), (1.0, np.inf), (1.0,), (1.0, 2.0, 3.0), "ab", 5.0, ("1", 2.0), (True, 1.0)]
    for bad in bad_gains:
        with pytest.raises(ValueError, match="baumgarte"):
            sd.Simulator(model, 1e-3, stabilization="baumgarte", baumgarte=bad)
    with pytest.raises(ValueError, match="baumgarte: .* given with stabilization=None"):
        sd.Simulator(model, 1e-3, baumgarte=(1.0, 1.0))
    with pytest.raises(ValueError, match="baumgarte"):
        sd.Simulator(model, 1e-3, stabilization="projection", baumgarte=(1.0, 1.0))
    for bad in (0.0, -1e-12, np.nan, "1e-12"):
        with pytest.raises(ValueError, match="projection_tol"):
            sd.Simulator(model, 1e-3, stabilization="projection", projection_tol=bad)
    # a tree has no constraint error to control
    for stab in ("baumgarte", "projection"):
        with pytest.raises(ValueError, match="stabilization: .* needs loop constraints"):
            sd.Simulator(chain, 1e-3, stabilization=stab)
    with pytest.raises(ValueError, match="kkt"):
        sd.Simulator(chain, 1e-3, loop_method="kkt")
    # accepted forms
    sim = sd.Simulator(model, 1e-3, stabilization="baumgarte")
    assert sim.baumgarte == sd.sim.DEFAULT_BAUMGARTE and sim.loop_method == "ta"
    sim = sd.Simulator(model, 1e-3, stabilization="baumgarte", baumgarte=np.array([0.0, 3]))
    assert sim.baumgarte == (0.0, 3.0) and isinstance(sim.baumgarte[1], float)
    assert sd.Simulator(model, 1e-3, stabilization="none").stabilization is None
    assert sd.Simulator(model, 1e-3).baumgarte == (0.0, 0.0)
    assert sd.Simulator(chain, 1e-3, stabilization="none").stabilization is None
    assert "stabilization='projection'" in repr(sd.Simulator(model, 1e-3, stabilization="projection"))


@pytest.mark.parametrize("baumgarte", [None, (3.0, 7.0)])
def test_loop_semi_implicit_step_formula(four_bar, baumgarte):
    """One semi-implicit step with loops: ``qd' = qd + dt qdd`` with ``qdd`` the closed-chain accelerations
    of ``loops.forward_dynamics`` (Lemma 2, with the Baumgarte terms when asked), ``q' = q + dt qd'``."""
    from soadyn import loops

    model, q, qd = four_bar
    dt = 1e-3
    tau = np.array([0.7, -0.2, 0.1])
    stab = None if baumgarte is None else "baumgarte"
    qp = q + np.array([0.0, 1e-3, -2e-3])  # off the constraint manifold, so that beta^2 phi matters
    q1, qd1 = sd.Simulator(model, dt, stabilization=stab, baumgarte=baumgarte).step(qp, qd, tau)
    qdd = loops.forward_dynamics(model, model.data(), qp, qd, tau, baumgarte=baumgarte).copy()
    assert_close(qd1, qd + dt * qdd, SAME_MATH, "qd'")
    assert_close(q1, qp + dt * qd1, SAME_MATH, "q'")
    if baumgarte is not None:
        plain = loops.forward_dynamics(model, model.data(), qp, qd, tau)
        assert np.abs(plain - qdd).max() > 1e-3, "the Baumgarte terms must act"


def test_loop_projection_step(four_bar):
    """A step with projection is the plain step followed by ``loops.project`` (same kernel)."""
    from soadyn import loops

    model, q, qd = four_bar
    tau = np.array([3.0, 0.0, 0.0])
    q1, qd1 = sd.Simulator(model, 5e-3, "semi_implicit").step(q, qd, tau)
    data = model.data()
    assert np.abs(loops.constraint_error(model, data, q1)).max() > 1e-6, "the plain step must drift"
    qp, qdp = loops.project(model, data, q1, qd1, tol=1e-12, max_iter=sd.sim.PROJECTION_MAX_ITER)
    q2, qd2 = sd.Simulator(model, 5e-3, "semi_implicit", stabilization="projection").step(q, qd, tau)
    assert_close(q2, qp, SAME_MATH, "projected q")
    assert_close(qd2, qdp, SAME_MATH, "projected qd")
    phi, cv, _, _ = loops.constraint_state(model, data, q2, qd2)
    assert np.abs(phi).max() <= 1e-12 and np.abs(cv).max() < 1e-12


@pytest.mark.parametrize("integrator", ["semi_implicit", "rk4"])
def test_loop_step_equals_rollout(four_bar, integrator):
    model, q, qd = four_bar
    sim = sd.Simulator(model, 2e-3, integrator, stabilization="projection")
    tau = np.random.default_rng(5).normal(size=(6, model.nv))
    traj = sim.rollout(q, qd, tau=tau, progress=False)
    for n in range(6):
        q, qd = sim.step(q, qd, tau[n])
        assert np.array_equal(q, traj.q[n + 1]) and np.array_equal(qd, traj.qd[n + 1]), f"state {n + 1}"


def test_loop_trajectory_records(four_bar, tmp_path):
    from soadyn import loops

    model, q, qd = four_bar
    traj = sd.Simulator(model, 1e-3, "semi_implicit").rollout(q, qd, steps=30, tau=[1.0, 0, 0], progress=False)
    assert traj.constraint_error.shape == (31,) and traj.constraint_velocity_error.shape == (31,)
    assert traj.loop_rank.shape == traj.loop_singular.shape == traj.projection_iterations.shape == (30,)
    assert np.all(traj.loop_rank == 2) and not traj.loop_singular.any() and not traj.projection_iterations.any()
    data = model.data()
    for k in (0, 17, 30):
        phi, cv, _, _ = loops.constraint_state(model, data, traj.q[k], traj.qd[k])
        assert traj.constraint_error[k] == np.abs(phi).max(), f"max |phi| of state {k}"
        assert traj.constraint_velocity_error[k] == np.abs(cv).max(), f"max |G qd| of state {k}"
    assert traj.constraint_error[-1] > 1e-8, "semi-implicit steps drift off the constraint"
    s = traj.stats
    assert (s["nl"], s["nc"], s["loop_method"], s["stabilization"]) == (1, 2, "ta", None)
    assert s["max_constraint_error"] == traj.constraint_error.max() and s["min_loop_rank"] == 2
    back = sd.Trajectory.load(traj.save(tmp_path / "loops"))
    for name in ("constraint_error", "constraint_velocity_error", "loop_rank", "loop_singular",
                 "projection_iterations"):
        a, b = getattr(traj, name), getattr(back, name)
        assert a.dtype == b.dtype and np.array_equal(a, b), name
    assert back.stats == traj.stats
    again = sd.Trajectory.from_states(model, traj.t, traj.q, traj.qd)
    assert np.array_equal(again.constraint_error, traj.constraint_error)


def test_loop_chunked_rollout_is_bit_identical(four_bar, monkeypatch):
    model, q, qd = four_bar
    sim = sd.Simulator(model, 2e-3, "rk4", stabilization="projection", projection_tol=1e-13)
    whole = sim.rollout(q, qd, steps=120, tau=[2.0, 0, 0], progress=False)
    assert whole.projection_iterations.sum() > 0
    monkeypatch.setattr(sim_module, "CHUNK_S", 1e-9)
    chunked = sim.rollout(q, qd, steps=120, tau=[2.0, 0, 0], progress=True)
    assert chunked.stats["chunks"] == 120
    for name in ("q", "qd", "energy", "constraint_error", "projection_iterations", "loop_rank"):
        assert np.array_equal(getattr(whole, name), getattr(chunked, name)), name


def test_projection_failure_names_step(four_bar):
    model, q, qd = four_bar
    sim = sd.Simulator(model, 1e-3, "semi_implicit", stabilization="projection", projection_tol=1e-300)
    with pytest.raises(SimulationError, match=r"step \d .*: projection did not close the loops") as info:
        sim.rollout(q, qd, steps=10, progress=False)  # a few steps may close to phi = 0 exactly
    k = info.value.step
    assert len(info.value.trajectory) == k + 1 and info.value.trajectory.constraint_error.shape == (k + 1,)
    with pytest.raises(ValueError, match="projection did not close"):
        sim.step(info.value.trajectory.q[-1], info.value.trajectory.qd[-1])  # the failing step again


def test_loop_nan_tau_names_step(four_bar):
    model, q, qd = four_bar
    tau = np.zeros((20, model.nv))
    tau[12, 0] = np.nan
    with pytest.raises(SimulationError, match=r"step 12 .*tau\[12\]") as info:
        sd.Simulator(model, 1e-3, "rk4").rollout(q, qd, tau=tau, progress=False)
    part = info.value.trajectory
    assert len(part) == 13 and part.loop_rank.shape == (12,)
    with pytest.raises(ValueError, match="q0"):
        sd.Simulator(model, 1e-3).rollout(np.full(model.nq, np.nan), qd, steps=2)
