"""Sweeps on Ray (soadyn.sweeps): a local Ray with 2 CPUs gives the rows of a serial run exactly, failed
rollouts (a NaN input, a diverged state, an unsolved LCP) are rows with their error, the tasks of a killed
worker are retried, and the config file, the command, the Parquet file and the plot work."""

from __future__ import annotations

import math
import os
import signal
from pathlib import Path

import numpy as np
import pytest

import soadyn as sd
from soadyn.sweeps import SweepSpec, TIMING_COLUMNS, parameter_table, read_parquet

ray = pytest.importorskip("ray")
pytest.importorskip("pyarrow")

OBJECT_STORE_BYTES = 80 * 2**20
"""Object store of the test's Ray (about Ray's smallest): the rows are small."""
RETRIES = 2
"""Task retries in the killed-worker test."""

# 3-link pendulum without contact, 0.2 s by RK4: a NaN initial rate (rejected input) and a huge joint
# force (the state overflows within the first step) make failed rows among good ones
SPEC = dict(model="pendulum", model_args={"n": 3}, duration=0.2, integrator="rk4", frames=["tip"],
            grid={"qd0[0]": [-1.0, 0.5, math.nan], "tau[0]": [0.0, 1e100]},
            random={"q0[1]": {"uniform": [-0.5, 0.5]}}, samples=2, rollouts_per_task=2)


@pytest.fixture(scope="module")
def local_ray():
    if ray.is_initialized():
        ray.shutdown()
    ray.init(num_cpus=2, include_dashboard=False, object_store_memory=OBJECT_STORE_BYTES, log_to_driver=False)
    yield ray
    ray.shutdown()


def comparable(rows):
    """Rows without their timing columns and trajectory file names, as strings (NaN compares equal)."""
    return [repr({k: v for k, v in r.items() if k not in TIMING_COLUMNS and k != "trajectory"}) for r in rows]


@pytest.fixture(scope="module")
def serial():
    return sd.sweep(backend="serial", **SPEC)


def test_rows_apply_the_parameters(serial):
    """Each row is the run a user would write by hand: rollout 0 again with the Simulator."""
    rows = parameter_table(SweepSpec(**SPEC))
    assert len(serial) == len(rows) == 12
    row = serial.rows[0]
    assert row["status"] == "ok" and row["qd0[0]"] == -1.0 and row["tau[0]"] == 0.0
    model = sd.models.pendulum(3)
    q0 = model.neutral_q()
    q0[1] = rows[0]["q0[1]"]
    qd0 = np.zeros(model.nv)
    qd0[0] = -1.0
    traj = sd.Simulator(model, dt=1e-3, integrator="rk4").rollout(q0, qd0, duration=0.2, progress=False)
    assert row["energy_end"] == traj.energy[-1, 2]
    assert row["q_end"] == traj.q[-1].tolist()
    assert row["tip_z"] == traj.frame_positions(model, "tip")[-1, 2]
    assert row["t_end"] == pytest.approx(0.2, abs=1e-12)


def test_failed_rollouts_are_rows_with_their_error(serial):
    for row in serial.rows:
        if math.isnan(row["qd0[0]"]):
            assert (row["status"], row["error_type"]) == ("failed", "ValueError") and "qd0" in row["error"]
        elif row["tau[0]"] > 0:
            assert (row["status"], row["error_type"]) == ("failed", "SimulationError")
            assert row["failed_step"] == 0 and "non-finite" in row["error"]
        else:
            assert row["status"] == "ok" and row["error"] == "" and np.isfinite(row["energy_drift"])
    assert len(serial.failed) == 8


def test_lcp_failure_is_recorded():
    """Lemke limited to one pivot cannot solve the contact pendulum's impacts: the step's error is kept."""
    res = sd.sweep(model="pendulum", model_args={"n": 3, "scene": "jain2014"}, start="pendulum_start",
                   contact={"max_pivots": 1, "tikhonov": 0.0}, duration=0.3, grid={"qd0[0]": [-2.0, 0.0]},
                   backend="serial")
    bad, good = res.rows
    assert bad["status"] == "failed" and bad["error_type"] == "SimulationError"
    assert "LCP" in bad["error"] and bad["failed_step"] > 0 and bad["t_end"] < 0.3
    assert good["status"] == "ok" and good["max_contacts"] == 0  # no contact, no LCP to fail


def test_scene_factory_gives_model_and_start():
    """A scene (model and start state) swept over a builder argument: each row starts from its scene."""
    res = sd.sweep(model="ball_drop", grid={"model.height": [0.5, 1.0]}, duration=0.01, backend="serial",
                   contact={})
    for row in res.rows:
        scene = sd.models.ball_drop(height=row["model.height"])
        kinetic, potential = sd.energy(scene.model, scene.model.data(), *scene.start)
        assert row["status"] == "ok" and row["energy_start"] == kinetic + potential


def test_ray_equals_serial_and_writes_parquet(local_ray, serial, tmp_path):
    res = sd.sweep(backend="ray", out=tmp_path, plot="energy_drift", trajectories=True, **SPEC)
    assert comparable(res.rows) == comparable(serial.rows)
    back = read_parquet(res.path)
    assert back.parameters == list(SPEC["grid"]) + list(SPEC["random"])
    assert comparable(back.rows) == comparable(res.rows)  # the file holds every row, failed ones included
    assert res.plot_path.stat().st_size > 0
    ok = [r for r in res.rows if r["status"] == "ok"]
    saved = sd.Trajectory.load(tmp_path / ok[0]["trajectory"])
    assert saved.q[-1].tolist() == ok[0]["q_end"]
    diverged = next(r for r in res.rows if r["error_type"] == "SimulationError")
    assert len(sd.Trajectory.load(tmp_path / diverged["trajectory"])) == diverged["failed_step"] + 1


def kill_once(marker: str):
    """A summary that kills its worker process the first time it runs (the marker file records it)."""
    def summary(traj, model):
        if not os.path.exists(marker):
            Path(marker).write_text(str(os.getpid()))
            os.kill(os.getpid(), signal.SIGKILL)
        return {"checked": 1.0}
    return summary


def test_killed_worker_is_retried(local_ray, serial, tmp_path):
    spec = dict(SPEC, grid={"qd0[0]": [-1.0, 0.5], "tau[0]": [0.0]}, samples=1)
    (tmp_path / "done").write_text("0")  # the serial run must not kill this process
    want = sd.sweep(backend="serial", summary=kill_once(str(tmp_path / "done")), **spec)
    marker = tmp_path / "killed"
    res = sd.sweep(backend="ray", max_retries=RETRIES, summary=kill_once(str(marker)), **spec)
    assert marker.exists() and int(marker.read_text()) != os.getpid()  # a worker was killed
    assert comparable(res.rows) == comparable(want.rows)
    # without retries the killed task's rollouts are recorded as failed, not lost
    marker.unlink()
    res = sd.sweep(backend="ray", max_retries=0, summary=kill_once(str(marker)), **spec)
    assert len(res) == 2 and [r["rollout"] for r in res.rows] == [0, 1]
    assert all(r["status"] == "failed" and "died" in r["error"] for r in res.rows)


def test_config_and_command(tmp_path):
    from click.testing import CliRunner

    from soadyn.cli import main

    (tmp_path / "s.toml").write_text(
        'model = "pendulum"\nmodel_args = { n = 2 }\nduration = 0.05\nplot = "energy_end"\n'
        '[grid]\n"qd0[0]" = [0.0, 1.0]\n"model.n" = [2, 3]\n')
    (tmp_path / "s.yaml").write_text(
        'model: pendulum\nmodel_args: {n: 2}\nduration: 0.05\ngrid: {"qd0[0]": [0.0, 1.0], "model.n": [2, 3]}\n')
    r = CliRunner().invoke(main, ["sweep", str(tmp_path / "s.toml"), "--serial", "--out", str(tmp_path / "o")])
    assert r.exit_code == 0, r.output
    assert "4 rollouts (4 ok, 0 failed)" in r.output
    toml = read_parquet(tmp_path / "o" / "s.parquet")
    assert (tmp_path / "o" / "s-energy_end.png").is_file()
    yaml = sd.sweep(tmp_path / "s.yaml", backend="serial")
    assert comparable(yaml.rows) == comparable(toml.rows)
    assert [r["model.n"] for r in toml.rows] == [2, 3, 2, 3] and toml.rows[1]["q_end"] == [0.0] * 3


@pytest.mark.parametrize("fields, message", [
    (dict(grid={"q[0]": [1.0]}), "expected model.<arg>"),
    (dict(grid={"qd0[7]": [1.0]}), "index 7 out of range"),
    (dict(random={"dt": {"uniform": [2e-3, 1e-3]}}), "lo < hi"),
    (dict(samples=3), "no random parameters"),
    (dict(model="no_such_model"), "unknown model"),
])
def test_bad_config_names_the_cause(fields, message):
    with pytest.raises(ValueError, match=message):
        sd.sweep(backend="serial", **{**dict(model="pendulum", model_args={"n": 2}, duration=0.01), **fields})
