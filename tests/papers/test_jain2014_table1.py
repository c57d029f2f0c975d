"""Jain 2014 Table 1: LCP sizes of the formulations for the 26-link dual-arm robot (4 contacts, n_f = 4)."""

from __future__ import annotations

import json

import numpy as np

from soadyn import joints as J
from soadyn.contact.formulations import build, lcp_sizes
from soadyn.experiments import jain2014_table1 as T
from soadyn.models import dual_arm


def test_dual_arm_model():
    m = dual_arm()
    assert (m.nb, m.nv, m.nc) == (26, 26, 0)
    assert np.all(m.jnt_type == J.REVOLUTE)
    assert np.all(m.body_parent < np.arange(m.nb))
    roots = [m.body_names[i] for i in range(m.nb) if m.body_parent[i] < 0]
    assert roots == ["head_neck_yaw", "left_shoulder_yaw", "right_shoulder_yaw"]  # head and two arms on the torso
    for side in ("left", "right"):  # a 7-link arm, then a palm carrying three one-link fingers
        palm = m.body_id(f"{side}_palm_roll")
        assert [m.body_names[i] for i in range(m.nb) if m.body_parent[i] == palm] == [
            f"{side}_finger{k}" for k in range(3)]
        depth, i = 0, palm
        while i >= 0:
            depth, i = depth + 1, m.body_parent[i]
        assert depth == 8


def test_table1_sizes_from_built_lcps(tmp_path):
    r = T.reproduce_table1(out_dir=tmp_path)
    rows = {row["formulation"]: row for row in r["rows"]}
    for f, size in T.PAPER.items():
        assert rows[f]["built"] == size == rows[f]["formula"], f
    assert rows["nmc_os"]["built"] == 130 + 24
    assert max(row["max_qd_plus_difference_vs_mc"] for row in r["rows"]) < 1e-8
    assert min(r["normal_impulses"]) > 0.0, "the fingertips bear on the table"
    saved = json.loads((tmp_path / "jain2014_table1.json").read_text())
    assert [row["built"] for row in saved["rows"]] == [310, 50, 24, 24, 154]
    assert (tmp_path / "jain2014_table1.csv").read_text().splitlines()[0].startswith("formulation,paper,formula,built")


def test_formula_matches_paper_parameters():
    """Table 1's parameters: n = 26, N = 26, n_b(NMC) = 5n = 130, n_u = 4, n_f = 4."""
    m = dual_arm()
    assert lcp_sizes(m, 4) == {"nmc": 6 * 26 + 130 + 24, "mc": 26 + 24, "rmc": 24, "os": 24, "nmc_os": 130 + 24}
    q = T.table1_state(m)
    cs = T.table1_contacts(m, q)
    assert cs.count == 4 and np.all(cs.bodies[:, 1] == -1)
    assert build("nmc", m, q, np.zeros(26), np.zeros(26), cs, T.DT).nfree == 6 * 26 + 130
