"""Jain 2012 Table 1 (fast variant): two TA variants over 0.02 s write the table's CSV and JSON with the
expected columns; errors are small and the wall clock is normalized."""

import csv
import json
import math

from soadyn.experiments import jain2012_rover as rover_exp


def test_table1_short_run(tmp_path):
    r = rover_exp.reproduce_table1(out_dir=tmp_path, duration=0.02, dt=1e-3, variants=("ta_none", "ta_projection"),
                                   baseline_dt=2.5e-4, progress=False)
    with open(tmp_path / "jain2012-table1.csv") as fh:
        rows = list(csv.DictReader(fh))
    assert tuple(rows[0].keys()) == rover_exp.COLUMNS
    assert [row["variant"] for row in rows] == ["ta_none", "ta_projection"]
    data = json.loads((tmp_path / "jain2012-table1.json").read_text())
    assert data["baseline"]["dt"] == 2.5e-4 and data["normalized_to"] == "ta_projection"
    for row in data["rows"]:
        assert row["status"] == "ok" and (row["tree_dofs"], row["constraint_size"]) == (36, 12)
        assert row["constraint_error"] < 1e-9
        assert 0.0 <= row["fidelity_error"] < 1e-6 and math.isfinite(row["wall_s"])
    proj = [row for row in data["rows"] if row["variant"] == "ta_projection"][0]
    assert proj["normalized_wall"] == 1.0
    assert r["rows"] == data["rows"]
