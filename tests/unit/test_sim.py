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
