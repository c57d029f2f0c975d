"""``soadyn reproduce all --quick``: every experiment of the four papers runs into one folder and the index
(Markdown, HTML, JSON) lists each with a verdict next to the paper's values; the verdict rules themselves."""

import json
import math

import pytest
from click.testing import CliRunner

from soadyn.cli import main
from soadyn.experiments import paper_values as pv
from soadyn.experiments.reproduce_all import EXPERIMENTS

VERDICTS = {"matches", "partly", "differs", "not compared"}
ROW_VERDICTS = {"match", "differs", "not compared"}


@pytest.fixture(scope="module")
def index(tmp_path_factory):
    out = tmp_path_factory.mktemp("all")
    res = CliRunner().invoke(main, ["reproduce", "all", "--quick", "--out", str(out)])
    assert res.exit_code == 0, res.output
    return out, json.loads((out / "index.json").read_text())


def test_index_lists_every_experiment_with_a_verdict(index):
    out, idx = index
    assert idx["quick"] is True
    assert [e["key"] for e in idx["experiments"]] == [e.key for e in EXPERIMENTS]
    md, page = (out / "index.md").read_text(), (out / "index.html").read_text()
    for e in idx["experiments"]:
        assert e["verdict"] in VERDICTS, f"{e['key']}: {e['verdict']} {e.get('error')}"
        assert e["rows"], f"{e['key']}: nothing compared"
        assert f"{e['paper']}, {e['item']}" in md and f"id='{e['key']}'" in page
        for f in e["files"]:
            assert (out / f).is_file(), f"{e['key']}: the index links a missing file {f}"
        for r in e["rows"]:
            assert r["verdict"] in ROW_VERDICTS
            assert r["verdict"] == "match" or r["note"], f"{e['key']}: {r['quantity']} differs unexplained"


def test_index_holds_the_papers_sizes(index):
    _, idx = index
    by = {e["key"]: {r["quantity"]: r for r in e["rows"]} for e in idx["experiments"]}
    for f in ("NMC", "MC", "RMC", "OS"):
        assert by["jain2014-table1"][f"{f} LCP size"]["verdict"] == "match"
    grasp = by["drumwright-grasp"]
    for q, paper in (("contacts at the start", "36"), ("Coulomb LCP size", "216"), ("no-slip LCP size", "36")):
        row = grasp[f"[paper's contacts] {q}"]
        assert (row["paper"], row["soadyn"], row["verdict"]) == (paper, paper, "match")
        assert grasp[f"[soadyn's 4-point contacts] {q}"]["verdict"] == "differs"
    assert by["jain2012-table1"]["ta_none: tree dofs, constraint size"]["soadyn"] == "36, 12"


def test_size_and_ratio_rules():
    assert pv.size_row("n", 24, 24).verdict == "match"
    assert pv.size_row("n", (36, 12), (36, 11), "why").verdict == "differs"
    band = pv.RATIO_BAND
    assert pv.ratio_row("r", 10.0, 10.0 * band * (1 - 1e-9)).verdict == "match"
    assert pv.ratio_row("r", 10.0, 10.0 / band * (1 + 1e-9)).verdict == "match"
    assert pv.ratio_row("r", 10.0, 10.0 * band * (1 + 1e-6), "why").verdict == "differs"
    assert pv.ratio_row("r", 10.0, math.nan, "why").verdict == "differs"
    rows = [pv.size_row("a", 1, 1), pv.info_row("b", 1, 2, "ref")]
    assert pv.verdict(rows) == "matches"
    assert pv.verdict(rows + [pv.size_row("c", 1, 2, "why")]) == "partly"
    assert pv.verdict([pv.size_row("c", 1, 2, "why")]) == "differs"
    assert pv.verdict(rows[1:]) == "not compared"
