"""Drumwright 2015 Sec. VII-A (Fig. 1, Table I): the grasp scene, short runs of every contact model, the
Python-stepped no-slip step against the kernel's, and ``soadyn reproduce drumwright-grasp`` (fast variant)."""

import json

import numpy as np
import pytest
from click.testing import CliRunner

import soadyn as sd
from soadyn.cli import main
from soadyn.contact import collide
from soadyn.experiments import drumwright_grasp as dg
from soadyn.models import grasp_scene, grasp_start
from tests.support import ALGORITHMS, assert_close


@pytest.fixture(scope="module")
def model():
    return grasp_scene()


def test_scene_counts(model):
    assert (model.nb, model.nq, model.nv) == (4, 16, 14)
    c = dg.pair_counts(model)
    assert c["per_pair"] == {"box_l-gripper_l": 4, "box_r-box_l": 4, "box_r-gripper_r": 4}
    assert (c["total"], c["coulomb_lcp"], c["noslip_lcp"]) == (12, 72, 12)
    con = collide(model, model.data(), model.neutral_q())
    assert np.all(np.abs(con.gap[:con.count]) < 1e-12), "the faces do not touch at the start"
    assert np.allclose(np.abs(con.normal[:con.count]), [1.0, 0.0, 0.0]), "contact normals are not along x"


def test_paper_contact_generation():
    """Drumwright 2015 Sec. VII-A: 12 contacts per pair (4 shared corners, each with its 3 normals), 36 in all,
    LCP sizes 216 (Coulomb, n_f = 4) and 36 (no-slip)."""
    model = grasp_scene(contacts="rpisim")
    c = dg.pair_counts(model)
    assert c["per_pair"] == {"box_l-gripper_l": 12, "box_r-box_l": 12, "box_r-gripper_r": 12}
    assert (c["total"], c["coulomb_lcp"], c["noslip_lcp"]) == tuple(dg.PAPER_SIZES[k] for k in
                                                                   ("contacts", "coulomb_lcp", "noslip_lcp"))
    con = collide(model, model.data(), model.neutral_q())
    assert np.all(np.abs(con.gap[:con.count]) < 1e-12)
    for pair in np.unique(con.geom[:con.count], axis=0):
        sel = np.all(con.geom[:con.count] == pair, axis=1)
        corners = np.unique(np.round(con.point[:con.count][sel], 12), axis=0)
        assert corners.shape == (4, 3), "the copies sit at the 4 shared corners"
        assert np.allclose(np.abs(corners[:, 1:]), 0.05), "the points are the corners of the 10 cm faces"
        for x in corners:  # each corner carries the three axes, the side normals pointing out of the corner
            n = con.normal[:con.count][sel][np.all(np.isclose(con.point[:con.count][sel], x), axis=1)]
            assert n.shape == (3, 3) and np.allclose(np.abs(n).T @ np.abs(n), np.eye(3))
            side = n[np.abs(n[:, 0]) < 0.5]
            assert np.allclose(side.sum(axis=0)[1:], np.sign(x[1:])), "side normals point away from the box"
    with pytest.raises(ValueError, match="contacts"):
        grasp_scene(contacts="twelve")


def test_corner_copies_only_at_shared_corners():
    """A box shifted sideways shares no corner with the other: no copies, whatever the flag."""
    b = sd.ModelBuilder("two_boxes")
    b.add_body("top", "world", sd.joints.Free(), inertia=sd.Inertia.box(1.0, (0.2, 0.2, 0.2)))
    b.add_geom("top", "top", "box", (0.1, 0.1, 0.1), corner_normals=True)
    b.add_geom("base", "world", "box", (0.1, 0.1, 0.1), placement=(np.eye(3), (0.03, 0.0, -0.2)),
               corner_normals=True)
    m = b.finalize()
    assert m.ncon_max == 24
    con = collide(m, m.data(), m.neutral_q())
    assert con.count == 4 and np.allclose(con.normal, [0.0, 0.0, 1.0])
    with pytest.raises(ValueError, match="corner_normals"):
        sd.ModelBuilder("s").add_geom("ball", "world", "sphere", 0.1, corner_normals=True)


def test_start_and_bad_input(model):
    q0, qd0, tau = grasp_start(model, 30.0)
    assert_close(q0, model.neutral_q(), 0.0, "q0")
    assert tau[model.jnt_vadr[model.body_id("gripper_l")]] == 30.0
    assert tau[model.jnt_vadr[model.body_id("gripper_r")]] == -30.0
    assert np.count_nonzero(tau) == 2 and not qd0.any()
    with pytest.raises(ValueError, match="force"):
        grasp_start(model, -1.0)
    with pytest.raises(ValueError, match="half_size"):
        grasp_scene(half_size=0.0)
    with pytest.raises(ValueError, match="variant"):
        dg.run_variant("coulomb_pgs")
    with pytest.raises(ValueError, match="trials"):
        dg.run_variant("noslip_ppm", trials=0)


def test_grasped_steps(model):
    Q = np.tile(model.neutral_q(), (6, 1))
    assert dg.grasped_steps(model, Q) == 5
    Q[4, model.jnt_qadr[model.body_id("box_r")] + 2] = -0.02
    assert dg.grasped_steps(model, Q) == 3


@pytest.mark.parametrize("contacts", ["corners", "rpisim"])
@pytest.mark.parametrize("variant", ["coulomb_lemke", "noslip_ppm", "noslip_lemke"])
def test_short_runs(model, variant, contacts):
    scene = model if contacts == "corners" else grasp_scene(contacts=contacts)
    (trial,) = dg.run_variant(variant, trials=1, steps=5, model=scene)
    assert trial.error is None and trial.steps == 5
    assert trial.grasped_steps == 5, f"{variant}: the boxes left the grasp within 5 steps"
    m = 12 if contacts == "corners" else 36
    assert trial.contacts[0] == m
    assert trial.lcp_size[0] == (6 * m if variant == "coulomb_lemke" else m)


def test_noslip_holds_the_boxes(model):
    sim = dg.Simulator(model, dg.DT, contact=dg.ContactSettings(friction="no_slip", solver="ppm", mu=dg.MU))
    q0, qd0, tau = grasp_start(model)
    traj = sim.rollout(q0, qd0, steps=20, tau=tau, progress=False)
    assert np.abs(dg.box_heights(model, traj.q)).max() < 1e-9, "no-slip lets the boxes slide"
    assert np.abs(traj.qd).max() < 1e-9, "no-slip grasp is not at rest"


@pytest.mark.parametrize("solver", ["ppm", pytest.param("qp", marks=pytest.mark.external)])
def test_python_step_matches_kernel(model, solver):
    if solver == "qp":
        pytest.importorskip("proxsuite")
    sim = dg.Simulator(model, dg.DT, contact=dg.ContactSettings(friction="no_slip", solver="ppm", mu=dg.MU))
    data = model.data()
    q, qd, tau = grasp_start(model)
    qd = qd.copy()
    qd[0] = 0.01  # the left gripper already moving in: a non-trivial step
    qk, qdk = sim.step(q, qd, tau)
    qp_, qdp, ncon, size, _, _, rank = dg.python_noslip_step(model, data, q, qd, tau, dg.DT, solver)
    assert (ncon, size) == (12, 12)
    assert 0 < rank <= model.nv
    assert_close(qdp, qdk, ALGORITHMS if solver == "ppm" else 1e-7, f"qd+ ({solver})")
    assert_close(qp_, qk, ALGORITHMS if solver == "ppm" else 1e-7, f"q+ ({solver})")


def test_command_writes_files(tmp_path):
    res = CliRunner().invoke(main, ["reproduce", "drumwright-grasp", "--trials", "1", "--steps", "12",
                                    "--out", str(tmp_path)])
    assert res.exit_code == 0, res.output
    assert "Coulomb" in res.output and "No-slip" in res.output
    data = json.loads((tmp_path / "drumwright-grasp.json").read_text())
    rows = {(r["contacts"], r["variant"]): r for r in data["rows"]}
    for gen, m in (("corners", 12), ("rpisim", 36)):
        assert {(gen, v) for v in ("coulomb_lemke", "noslip_ppm", "noslip_lemke", "noslip_ppm_python")} <= set(rows)
        for v in ("noslip_ppm", "noslip_lemke", "noslip_ppm_python"):
            assert rows[gen, v]["grasped_steps_min"] == 12
            assert rows[gen, v]["lcp_size_first_step"] == m
        assert rows[gen, "coulomb_lemke"]["lcp_size_first_step"] == 6 * m
        assert data["counts"][gen]["total"] == m and "coulomb_lemke/noslip_ppm" in data["speed_ratios"][gen]
    for r in rows.values():
        assert r["trials"] == 1 and r["steps"] == 12 and r["mean_s"] > 0
    lines = (tmp_path / "drumwright-grasp.csv").read_text().splitlines()
    assert len(lines) == 1 + len(rows)
