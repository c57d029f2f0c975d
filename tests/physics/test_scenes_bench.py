"""The scene suite's physics figures in soadyn with the default contact settings, short runs (the full
10 s runs are in ``soadyn bench scenes``); the checks themselves on synthetic runs; the bench row plumbing."""

import math

import numpy as np
import pytest

from soadyn.bench import scenes as B
from soadyn.bench import scenes_checks as C
from soadyn.bench.scenes_engines import Run, record
from soadyn.models import scenes as S


def soadyn_check(case_name: str, duration: float | None = None) -> dict:
    case = next(c for c in B.CASES if c.name == case_name)
    scene = case.build()
    run = record("soadyn", scene, case.quick if duration is None else duration)
    return C.check(case.check, scene, run)


@pytest.mark.parametrize("name", ["incline_mu0.3_stick_h0", "incline_mu0.3_slide_h0", "incline_mu0.6_stick_h0",
                                  "incline_mu0.6_slide_h0"])
def test_incline_sticks_or_slides_at_the_coulomb_acceleration(name):
    out = soadyn_check(name)
    assert out["ok"], out


def test_newtons_cradle_keeps_its_energy_and_only_the_last_ball_leaves():
    out = soadyn_check("cradle5", 0.8)
    assert out["ok"], out


# ------------------------------------------------------------------------------------ the checks can fail
def synthetic(scene, z, vz=None, ke=None, pen=0.0, failure=None):
    """A one-body run of vertical motion ``z`` (centre height) sampled at 1 ms."""
    k = z.size
    t = np.arange(k) * 1e-3
    centre = np.zeros((k, 1, 3))
    centre[:, 0, 2] = z
    vel = np.zeros((k, 1, 3))
    vel[:, 0, 2] = np.gradient(z, t) if vz is None else vz
    return Run("test", t, centre, vel, np.zeros((k, 1, 3)), np.zeros(k) if ke is None else ke, pen, failure)


def bouncing(h, e, r, n=3000):
    """Centre heights of an ideal ball of radius r with restitution e dropped from h (its lowest point), 1 ms."""
    t = np.arange(n) * 1e-3
    z = np.full(n, r)
    start, z0, v0 = 0.0, h, 0.0  # flight start time, height, upward speed
    while start < t[-1] and (v0 > 1e-3 or z0 > 0.0):
        v_land = math.sqrt(v0 * v0 + 2.0 * S.G * z0)
        end = start + (v0 + v_land) / S.G
        sel = (t >= start) & (t < end)
        s_ = t[sel] - start
        z[sel] = r + z0 + v0 * s_ - 0.5 * S.G * s_ * s_
        start, z0, v0 = end, 0.0, e * v_land
    return z


def test_ball_drop_check_accepts_the_closed_form_and_rejects_a_lower_bounce():
    scene = S.ball_drop(restitution=0.5)
    good = C.check("ball_drop", scene, synthetic(scene, bouncing(1.0, 0.5, S.BALL_RADIUS)))
    assert good["ok"], good
    low = C.check("ball_drop", scene, synthetic(scene, bouncing(1.0, 0.47, S.BALL_RADIUS)))
    assert not low["ok"]
    deep = C.check("ball_drop", scene, synthetic(scene, bouncing(1.0, 0.5, S.BALL_RADIUS), pen=2e-3))
    assert not deep["ok"]


def test_rest_check_rejects_drift_energy_and_failures():
    scene = S.box_stack(1)
    z = np.full(1000, 0.1)
    assert C.check("rest", scene, synthetic(scene, z, vz=np.zeros(1000)))["ok"]
    assert not C.check("rest", scene, synthetic(scene, z + np.linspace(0, 1e-3, 1000), vz=np.zeros(1000)))["ok"]
    ke = np.zeros(1000)
    ke[-1] = 2e-6
    assert not C.check("rest", scene, synthetic(scene, z, vz=np.zeros(1000), ke=ke))["ok"]
    assert not C.check("rest", scene, synthetic(scene, z, vz=np.zeros(1000), failure="LCP"))["ok"]


# ------------------------------------------------------------------------------------ the bench row
@pytest.mark.external
def test_bench_row_has_every_engine_and_the_table_prints():
    pytest.importorskip("mujoco")
    row = B.run_case(next(c for c in B.CASES if c.name == "cradle5"), quick=True, repeats=1)
    for e in ("soadyn", "mujoco"):
        r = row["engines"][e]
        assert r["ms_per_s"]["median"] > 0 and r["simulated"] == pytest.approx(1.0)
        assert set(r["check"]) == {"ok", "value", "expected", "what"}
    table = B.format_table({"rows": [row], "unavailable": {}})
    assert "cradle5" in table and len(table.splitlines()) == 2


def test_bench_refuses_engines_that_disagree(monkeypatch):
    scene = S.ball_drop()
    monkeypatch.setattr(B, "start_energies", lambda sc, e: (0.0, 1.0 if e == "soadyn" else 2.0))
    with pytest.raises(B.BenchError, match="potential"):
        B.check_agreement(scene, ["mujoco"])
