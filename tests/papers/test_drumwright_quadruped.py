"""Drumwright 2015 Sec. VII-B (Tables II-III): geoms on a finished model (with_geoms), the box terrain, the
trot controller, the simulator's per-step statistics and short runs of every contact model."""

from __future__ import annotations

import csv
import json
import math

import numpy as np
import pytest

import soadyn as sd
from soadyn.contact import collide
from soadyn.contact.geometry import GEOM_BOX, GEOM_SPHERE, with_geoms
from soadyn.model import ModelError
from soadyn.models.terrain import TERRAIN_GROUP, box_terrain
from tests.support import SAME_MATH, assert_close

from soadyn.experiments import drumwright_quadruped as dq
from soadyn.models.robots import robot_urdf

try:
    robot_urdf("solo12")
except ValueError as exc:  # example-robot-data (the test extra) is not installed
    pytest.skip(str(exc), allow_module_level=True)


@pytest.fixture(scope="module")
def solo():
    return sd.models.robot("solo12", floating_base=True)


def _feet(radius=0.016, **kw):
    return [dict(name=f"{leg}_ball", body=f"{leg}_FOOT", kind="sphere", size=radius, **kw) for leg in dq.LEGS]


# ------------------------------------------------------------------------------------------ with_geoms
def test_with_geoms_puts_spheres_at_frames(solo):
    placement = (np.eye(3), [0.0, 0.0, 0.03])
    m = with_geoms(solo, _feet() + [dict(name="floor", body="world", kind="halfspace"),
                                    dict(name="pad", body="FL_FOOT", kind="box", size=(0.01, 0.01, 0.01),
                                         placement=placement)])
    assert (m.ng, solo.ng) == (6, 0)
    assert m.nq == solo.nq and m.frame_names == solo.frame_names
    for k, leg in enumerate(dq.LEGS):  # merged foot links: the geom sits on the lower leg at the frame
        f = solo.frame_id(f"{leg}_FOOT")
        assert m.geom_body[k] == solo.frame_body[f] == solo.body_id(f"{leg}_LOWER_LEG")
        assert_close(m.geom_r[k], solo.frame_r[f], SAME_MATH, f"{leg} sphere position")
    f = solo.frame_id("FL_FOOT")
    assert_close(m.geom_r[5], solo.frame_r[f] + [0.0, 0.0, 0.03], SAME_MATH, "pad placed in the frame")
    assert m.geom_type.tolist() == [GEOM_SPHERE] * 4 + [sd.contact.GEOM_KINDS["halfspace"], GEOM_BOX]
    pairs = {tuple(p) for p in m.pair_geom.tolist()}
    assert {(k, 4) for k in range(4)} <= pairs, "each foot against the floor, the world geom second"
    assert (5, 0) not in pairs and (0, 5) not in pairs, "geoms on one body never pair"
    assert m.ncon_max == int(m.pair_max.sum())
    # at the standing pose 1 mm into the floor every sphere touches it (and the pad does not)
    q, _ = dq.standing_state(m, box_terrain(max_height=0.0), clearance=-0.001)
    c = collide(m, m.data(), q)
    assert sorted(map(tuple, c.geom.tolist())) == [(k, 4) for k in range(4)]
    assert_close(c.gap, np.full(4, -0.001), 1e-12, "foot sphere gaps")


def test_with_geoms_keeps_existing_geoms_and_pairs(solo):
    m1 = with_geoms(solo, _feet(group=1, mask=TERRAIN_GROUP))
    assert m1.npair == 0, "feet in group 1 with mask 2 never test each other"
    m2 = with_geoms(m1, [dict(name="floor", body="world", kind="halfspace", group=TERRAIN_GROUP, mask=1)])
    assert m2.geom_name[:4] == m1.geom_name and m2.pair_geom.tolist() == [[k, 4] for k in range(4)]
    m3 = with_geoms(with_geoms(solo, _feet()), [dict(name="floor", body="world", kind="halfspace")])
    assert m3.pair_geom[:6].tolist() == with_geoms(solo, _feet()).pair_geom.tolist(), "old pairs come first"
    assert m3.npair == 6 + 4


def test_with_geoms_bad_input(solo):
    with pytest.raises(ValueError, match="model"):
        with_geoms("solo12", _feet())
    with pytest.raises(ValueError, match="specs"):
        with_geoms(solo, _feet()[0])
    with pytest.raises(ValueError, match="specs"):
        with_geoms(solo, [])
    with pytest.raises(ValueError, match=r"specs\[1\]"):
        with_geoms(solo, [_feet()[0], ("ball", "FL_FOOT", "sphere", 0.01)])
    with pytest.raises(ValueError, match=r"specs\[0\].*colour"):
        with_geoms(solo, [dict(name="b", body="FL_FOOT", kind="sphere", size=0.01, colour="red")])
    with pytest.raises(ModelError, match="nowhere"):
        with_geoms(solo, [dict(name="b", body="nowhere", kind="sphere", size=0.01)])
    with pytest.raises(ModelError, match="duplicate geom name 'FL_ball'"):
        with_geoms(solo, _feet() + _feet()[:1])
    with pytest.raises(ModelError, match="duplicate geom name 'FL_ball'"):
        with_geoms(with_geoms(solo, _feet()), _feet()[:1])
    with pytest.raises(ValueError, match="size"):
        with_geoms(solo, [dict(name="b", body="FL_FOOT", kind="sphere", size=-0.01)])


# --------------------------------------------------------------------------------------------- terrain
def test_box_terrain_builds():
    t = box_terrain(length=1.0, width=0.4, cell=0.2, max_height=0.02, origin=(0.0, 0.0), seed=3)
    assert t.shape == (5, 2) and t.extent == (0.0, 1.0, 0.0, 0.4)
    assert np.all((t.heights >= 0.0) & (t.heights <= 0.02)) and np.ptp(t.heights) > 0.0
    assert box_terrain(seed=3).heights.tobytes() == box_terrain(seed=3).heights.tobytes()
    assert t.height(0.5, 0.1) == t.heights[2, 0] and math.isnan(t.height(-0.01, 0.1))
    # a ball sunk 1 mm into each cell touches its top face
    b = sd.ModelBuilder("ball")
    b.add_body("ball", "world", sd.joints.Free(), inertia=sd.Inertia.sphere(1.0, 0.05))
    b.add_geom("ball", "ball", "sphere", 0.05, group=1, mask=TERRAIN_GROUP)
    m = with_geoms(b.finalize(), t.geoms())
    assert m.ng == 11 and m.npair == 10
    d = m.data()
    for (i, j), h in np.ndenumerate(t.heights):
        q = m.neutral_q()
        q[:3] = [(i + 0.5) * 0.2, (j + 0.5) * 0.2, h + 0.05 - 0.001]
        c = collide(m, d, q)
        assert c.count == 1 and c.gap[0] == pytest.approx(-0.001, abs=1e-12), (i, j)
        assert_close(c.normal[0], [0.0, 0.0, 1.0], SAME_MATH, "terrain normal")


@pytest.mark.parametrize("kw, name", [(dict(cell=0.0), "cell"), (dict(length=-1.0), "length"),
                                      (dict(max_height=0.2), "max_height"), (dict(max_height=-0.01), "max_height"),
                                      (dict(origin=(0.0,)), "origin"), (dict(mu=math.inf), "mu"),
                                      (dict(width=True), "width")])
def test_box_terrain_bad_input(kw, name):
    with pytest.raises(ValueError, match=name):
        box_terrain(**kw)


# ------------------------------------------------------------------------------------------ controller
@pytest.fixture(scope="module")
def scene():
    terrain = box_terrain(length=2.0, width=1.0, origin=(-0.5, -0.5))
    return terrain, dq.quadruped_model(terrain)


def test_controller_torques_and_leg_ik(scene):
    terrain, m = scene
    ctl = dq.TrotController(m, dq.TrotGait(stand=0.0, ramp=0.01))
    q, qd = dq.standing_state(m, terrain)
    d = m.data()
    for t in (0.0, 0.05, 0.1, 0.2):
        tau = ctl.torques(t, q, qd)
        assert tau.shape == (m.nv,) and np.all(np.isfinite(tau))
        assert np.all(tau[:6] == 0.0), "the base is not actuated"
        assert np.abs(tau).max() < 10.0, "a few N m at the stand, as solo12's motors give"
    # the joint targets put the feet at the targets (in the base frame, base at the origin)
    ctl = dq.TrotController(m, dq.TrotGait(stand=0.0, ramp=0.01), ik_iterations=8)
    targets, stance = ctl.targets(0.1)
    ctl.torques(0.1, q, qd)
    qk = m.neutral_q()
    qk[7:] = ctl.q_des
    for k, leg in enumerate(dq.LEGS):
        p = sd.frame_pose(m, d, qk, f"{leg}_FOOT")[:3, 3]
        assert_close(p, targets[k], 1e-8, f"{leg} foot at its IK target")
    assert stance.tolist() == [True, False, False, True], "a trot: FL and HR in stance together"
    assert (targets[~stance, 2] > ctl.nominal[~stance, 2]).all(), "swing feet are raised"


def test_last_step_stats():
    terrain = box_terrain(length=1.0, width=1.0, max_height=0.0, origin=(-0.5, -0.5))
    m = dq.quadruped_model(terrain)
    sim = sd.Simulator(m, 1e-3, contact=sd.contact.ContactSettings(friction="no_slip"))
    assert sim.last_step_stats is None
    q, qd = dq.standing_state(m, terrain, clearance=-1e-4)
    sim.step(q, qd)
    s = sim.last_step_stats
    assert s["contacts"] == 4 and s["lcp_size"] == 4 and s["fallbacks"] == 0
    assert sd.Simulator(m, 1e-3).last_step_stats is None


# ---------------------------------------------------------------------------------------------- runs
def test_short_runs_of_every_model(tmp_path):
    r = dq.reproduce(out_dir=tmp_path, duration=0.5)
    rows = {row["model"]: row for row in r["rows"]}
    assert set(rows) == set(dq.MODELS)
    for name, row in rows.items():
        assert not row["fell"] and row["steps"] == 500, name
        assert row["contacts_min"] >= 0 and row["contacts_max"] >= 2 and row["run_time_s"] > 0.0, name
        assert math.isfinite(row["distance_m"]) and abs(row["distance_m"]) < 0.2, name
    assert rows["coulomb_lemke"]["lcp_size_max"] == 6 * rows["coulomb_lemke"]["contacts_max"], "n (n_f + 2)"
    assert rows["noslip_ppm"]["lcp_size_max"] <= rows["noslip_ppm"]["contacts_max"]
    saved = json.loads((tmp_path / "drumwright-quadruped.json").read_text())
    assert saved["duration"] == 0.5 and len(saved["rows"]) == 4
    with open(tmp_path / "drumwright-quadruped.csv") as fh:
        table = list(csv.DictReader(fh))
    assert [t["model"] for t in table] == list(dq.MODELS)


@pytest.mark.parametrize("kw, name", [(dict(period=0.0), "period"), (dict(duty=1.0), "duty"),
                                      (dict(step_height=-0.01), "step_height"), (dict(ramp=math.nan), "ramp")])
def test_gait_bad_input(kw, name):
    with pytest.raises(ValueError, match=name):
        dq.TrotGait(**kw)


def test_run_bad_input(tmp_path):
    with pytest.raises(ValueError, match="name"):
        dq.run_model("stewart_trinkle", duration=0.01)
    with pytest.raises(ValueError, match="duration"):
        dq.reproduce(out_dir=tmp_path, duration=0.0)
    with pytest.raises(ValueError, match="models"):
        dq.reproduce(out_dir=tmp_path, duration=0.01, models=("coulomb",))
