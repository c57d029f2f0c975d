"""The ``soadyn`` command, run in-process through click's CliRunner."""

from __future__ import annotations

import json
import math
import os
import subprocess
import sys

import numpy as np
import pytest
from click.testing import CliRunner

import soadyn as sd
from soadyn.cli import main, resolve_model

URDF = """<robot name="two_link">
  <link name="base"/>
  <link name="upper"><inertial><mass value="1"/><inertia ixx="0.1" ixy="0" ixz="0" iyy="0.1" iyz="0" izz="0.1"/>
  </inertial></link>
  <link name="lower"><inertial><mass value="2"/><inertia ixx="0.1" ixy="0" ixz="0" iyy="0.1" iyz="0" izz="0.1"/>
  </inertial></link>
  <link name="tool"/>
  <joint name="shoulder" type="revolute"><parent link="base"/><child link="upper"/><axis xyz="0 1 0"/>
    <limit lower="-1" upper="1" effort="1" velocity="1"/></joint>
  <joint name="slide" type="prismatic"><parent link="upper"/><child link="lower"/><origin xyz="0 0 -0.5"/>
    <axis xyz="0 0 1"/><limit lower="-1" upper="1" effort="1" velocity="1"/></joint>
  <joint name="tool_mount" type="fixed"><parent link="lower"/><child link="tool"/></joint>
</robot>
"""


def invoke(*args):
    return CliRunner().invoke(main, [str(a) for a in args], catch_exceptions=False)


def _field(output: str, name: str) -> str:
    for line in output.splitlines():
        parts = line.split()
        if parts and parts[0] == name:
            return parts[1]
    raise AssertionError(f"no line {name!r} in:\n{output}")


# ------------------------------------------------------------------------------------------------- info
def test_info_pendulum():
    r = invoke("info", "pendulum:3")
    assert r.exit_code == 0, r.output
    model = sd.models.pendulum(3)
    assert _field(r.output, "nq") == "3" and _field(r.output, "nv") == "3"
    assert _field(r.output, "bodies") == "3" and _field(r.output, "frames") == str(model.nf) == "7"
    rows = [line.split() for line in r.output.splitlines() if line.strip().startswith(("0 ", "1 ", "2 "))]
    assert [row[1:3] + row[-1:] for row in rows] == [["hinge0", "revolute", "world"], ["hinge1", "revolute", "link0"],
                                                     ["hinge2", "revolute", "link1"]], r.output


def test_info_zoo_keywords_and_joint_types():
    r = invoke("info", "auto_tree:3,joint_mix=(7,8),seed=2")
    assert r.exit_code == 0, r.output
    model = sd.models.auto_tree(3, joint_mix=(7, 8), seed=2)
    assert _field(r.output, "nq") == str(model.nq) == "15"
    assert _field(r.output, "nv") == str(model.nv) == "12"
    types = [line.split()[2] for line in r.output.splitlines() if line.strip()[:1].isdigit()]
    assert types == ["spherical", "free", "spherical"], r.output


def test_info_urdf_file(tmp_path):
    path = tmp_path / "two_link.urdf"
    path.write_text(URDF)
    r = invoke("info", path)
    assert r.exit_code == 0, r.output
    assert _field(r.output, "nq") == "2" and _field(r.output, "bodies") == "2"
    rows = [line.split() for line in r.output.splitlines() if line.strip()[:1].isdigit()]
    assert [(row[1], row[2], row[-1]) for row in rows] == [("shoulder", "revolute", "world"),
                                                           ("slide", "prismatic", "upper")]


@pytest.mark.parametrize("spec, message", [
    ("nonsense", "unknown model 'nonsense'"),
    ("pendulum:0", "n must be a positive integer"),
    ("pendulum:3,colour=1", "bad arguments for pendulum"),
    ("missing/robot.urdf", "URDF file not found"),
])
def test_info_bad_spec(spec, message):
    r = CliRunner().invoke(main, ["info", spec])
    assert r.exit_code == 2, r.output  # click's usage error, not a traceback
    assert r.exception is None or isinstance(r.exception, SystemExit), repr(r.exception)
    assert message in r.output, r.output
    if spec == "nonsense":  # the error lists what is accepted
        assert "pendulum" in r.output and "talos" in r.output and ".urdf" in r.output


def test_info_robot():
    try:
        sd.models.robot_urdf("ur5")
    except ValueError as exc:
        pytest.skip(str(exc))
    r = invoke("info", "ur5")
    assert r.exit_code == 0, r.output
    assert _field(r.output, "nv") == "6" and "shoulder_pan_joint" in r.output


def test_resolve_model_forms():
    assert resolve_model("pendulum:5").nv == 5
    tree = resolve_model(" auto_tree:4, branching=2 ")
    assert tree.body_parent.tolist() == sd.models.auto_tree(4, 2.0).body_parent.tolist()
    with pytest.raises(ValueError, match="unknown model"):
        resolve_model("pendulum5")


# ------------------------------------------------------------------------------------------------- demo
def test_demo_writes_trajectory_plot_and_summary(tmp_path):
    out = tmp_path / "demo"
    r = invoke("demo", "--duration", "0.6", "--links", "6", "--out", out)
    assert r.exit_code == 0, r.output
    npz, png, js = out / "pendulum6-os.npz", out / "pendulum6-os.png", out / "pendulum6-os.json"
    assert npz.is_file() and png.is_file() and js.is_file(), sorted(p.name for p in out.iterdir())
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    traj = sd.Trajectory.load(npz)
    assert traj.q.shape == (601, 6) and traj.t[-1] == pytest.approx(0.6)
    # the documented start (Jain 2014 Sec. 8): pi/4 from the vertical, 1 rad/s towards the wall
    assert traj.q[0, 0] == pytest.approx(math.pi / 4) and traj.qd[0, 0] == -1.0 and not traj.q[0, 1:].any()
    assert traj.contact_stats.shape == (600, 12)
    assert traj.contact_count.shape == (600,) and traj.contact_count.sum() == len(traj.contact_point) > 0
    assert np.array_equal(traj.contact_count, traj.contact_stats[:, 0])  # every detected contact recorded
    summary = json.loads(js.read_text())
    assert summary["steps"] == 600 and summary["max_contacts"] >= 1  # the pendulum reaches the floor
    assert summary["max_penetration_m"] < 1e-3
    assert "penetration" in r.output and str(npz) in r.output


def test_demo_rejects_bad_options(tmp_path):
    r = CliRunner().invoke(main, ["demo", "--duration", "-1", "--out", str(tmp_path)])
    assert r.exit_code == 2 and "duration" in r.output.lower()


# ----------------------------------------------------------------------------------------------- warmup
WARMUP_PROGRAM = """
import json
from click.testing import CliRunner
from soadyn.cli import entry_kernels, main
r = CliRunner().invoke(main, ["warmup"])
idle = [k for k, d in entry_kernels().items() if not d.signatures]
print(json.dumps({"exit_code": r.exit_code, "output": r.output, "idle": idle, "n": len(entry_kernels())}))
"""


def test_warmup_runs_every_kernel_called_from_python():
    """In a fresh interpreter (what other tests compiled here does not count), ``soadyn warmup`` runs every
    kernel that soadyn calls from Python."""
    from numba.core import config

    env = dict(os.environ)
    if config.CACHE_DIR:  # the cache this process uses, so that nothing is compiled twice
        env["NUMBA_CACHE_DIR"] = config.CACHE_DIR
    r = subprocess.run([sys.executable, "-c", WARMUP_PROGRAM], capture_output=True, text=True, env=env,
                       timeout=900)
    assert r.returncode == 0, r.stderr[-4000:]
    out = json.loads(r.stdout.strip().splitlines()[-1])
    assert out["exit_code"] == 0, out["output"]
    assert "cache folder:" in out["output"] and f"{out['n']} kernels ready" in out["output"], out["output"]
    assert out["n"] > 10 and not out["idle"], f"kernels called from Python that warmup left uncompiled: {out['idle']}"


def test_cache_is_pointed_at_the_kernel_hash_folder(tmp_path):
    """``setup_cache`` (run by every command) makes the already imported kernels cache into the folder
    keyed by the kernel sources."""
    prog = ("import os, json; import soadyn.cli as c; folder = c.setup_cache(); "
            "paths = {k: d._cache._cache_path for k, d in c.kernel_dispatchers().items()}; "
            "print(json.dumps([folder, paths]))")
    env = {k: v for k, v in os.environ.items() if k != "NUMBA_CACHE_DIR"}
    env["SOADYN_CACHE"] = str(tmp_path)
    r = subprocess.run([sys.executable, "-c", prog], capture_output=True, text=True, env=env, timeout=120)
    assert r.returncode == 0, r.stderr
    folder, paths = json.loads(r.stdout.strip().splitlines()[-1])
    from soadyn._cache import kernel_hash

    assert folder == str(tmp_path / f"numba-{kernel_hash()}")
    assert paths and all(p.startswith(folder) for p in paths.values()), paths


def test_help_lists_commands():
    r = invoke("--help")
    for cmd in ("demo", "warmup", "info", "bench"):
        assert cmd in r.output
    assert "dynamics" in invoke("bench", "--help").output


# ------------------------------------------------------------------------------------------------ bench
@pytest.mark.external
def test_bench_dynamics_quick_json(tmp_path):
    pytest.importorskip("pinocchio")
    path = tmp_path / "bench.json"
    r = invoke("bench", "dynamics", "--quick", "--json", path)
    assert r.exit_code == 0, r.output
    result = json.loads(path.read_text())
    assert result["topic"] == "dynamics" and result["quick"] is True
    models = result["models"]
    assert {"chain6", "chain30", "chain120"} <= set(models), sorted(models)
    for name, e in models.items():
        assert max(e["agreement"].values()) <= 1e-8, (name, e["agreement"])
        for alg in ("rnea", "crba", "aba", "minv", "jacobian", "osim"):
            a = e["algorithms"][alg]
            for lib in ("soadyn", "pinocchio"):
                t = a[lib]
                assert 0 < t["min"] <= t["median"] <= t["max"] < 1.0, (name, alg, lib, t)
            assert a["ratio"] == pytest.approx(a["soadyn"]["median"] / a["pinocchio"]["median"])
            assert f"{a['ratio']:.2f}" in r.output
        b = e["batch"]
        assert b["K"] == result["batch_K"] and b["max_rel_error"] <= 1e-8 and "1" in b["threads"]
        for row in b["threads"].values():
            for alg in ("aba", "rnea"):
                assert row[f"{alg}_ratio"] == pytest.approx(row[f"{alg}_soadyn"]["median"] /
                                                           row[f"{alg}_pinocchio"]["median"])
    assert models["chain30"]["nv"] == 30
    for key in ("cpu", "numba", "pinocchio", "numba_threads"):
        assert result["machine"][key], key
    assert "ratio" in r.output and "batches over K=" in r.output
    if "step" in result:
        assert result["step"]["contacts_soadyn"] == 4 and result["step"]["ratio"] > 0


def test_bench_dynamics_callgrind_without_valgrind(monkeypatch):
    """--callgrind on a machine without valgrind fails at once with a message naming the missing tool."""
    pytest.importorskip("pinocchio")
    import shutil

    real = shutil.which
    monkeypatch.setattr(shutil, "which", lambda name, *a, **k: None if name == "valgrind" else real(name, *a, **k))
    r = invoke("bench", "dynamics", "--quick", "--callgrind")
    assert r.exit_code != 0 and "valgrind" in r.output and "not installed" in r.output


def test_run_osc_humanoid_writes_its_files(tmp_path):
    from click.testing import CliRunner

    from soadyn.cli import main

    res = CliRunner().invoke(main, ["run", "osc-humanoid", "--scenario", "hold-hands", "--duration", "0.05",
                                    "--out", str(tmp_path)])
    assert res.exit_code == 0, res.output
    assert "max tracking error" in res.output
    for suffix in (".npz", "-tasks.npz", ".png", "-snapshots.png", "-summary.json"):
        assert (tmp_path / f"osc-humanoid-hold-hands{suffix}").exists()
    bad = CliRunner().invoke(main, ["run", "osc-humanoid", "--scenario", "jump"])
    assert bad.exit_code != 0
