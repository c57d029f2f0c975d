"""Jain 2014 Sec. 8, Table 2 and Fig. 6 (fast variants; full runs: ``soadyn reproduce jain2014-table2`` and
``jain2014-fig6``)."""

import json

import numpy as np
import pytest

from soadyn.contact import lcp_sizes as model_lcp_sizes
from soadyn.experiments import jain2014
from soadyn.models import pendulum


@pytest.mark.parametrize("n", jain2014.TABLE2_LINKS)
def test_lcp_size_formulas_give_the_papers_table2(n):
    sizes = jain2014.lcp_sizes(n)
    paper = jain2014.PAPER_TABLE2[n]
    assert (sizes["os"], sizes["nmc_os"], sizes["nmc"]) == paper[:3]
    # the same numbers from the model-level formulas of the formulations module
    general = model_lcp_sizes(pendulum(n), 4, 4)
    assert general["os"] == sizes["os"] and general["nmc"] == sizes["nmc"]


def test_table2_fast_variant_writes_files_and_meets_the_sizes(tmp_path):
    r = jain2014.reproduce_table2(out_dir=tmp_path, links=(3,), duration=0.8, echo=lambda s: None)
    row = r["rows"][0]
    assert (tmp_path / "jain2014-table2.csv").is_file()
    assert json.loads((tmp_path / "jain2014-table2.json").read_text())["rows"][0]["n"] == 3
    # every step's LCP has the OS size n_u (n_f + 2) (+ 5 n hinge rows for NMC/OS)
    for f, extra in (("os", 0), ("nmc_os", 15)):
        assert row[f]["max_contacts"] >= 1
        assert row[f]["max_lcp_size"] == extra + 6 * row[f]["max_contacts"]
    assert row["speedup"] > 1.0  # the NMC/OS step carries the 15 hinge rows
    assert row["os"]["max_penetration_m"] < 1e-3 and row["nmc_os"]["max_penetration_m"] < 1e-3


def test_fig6_fast_variant_os_and_nmc_os_agree_early(tmp_path):
    r = jain2014.reproduce_fig6(out_dir=tmp_path, n=3, duration=0.8)
    assert (tmp_path / "jain2014-fig6.png").read_bytes()[:4] == b"\x89PNG"
    data = np.loadtxt(tmp_path / "jain2014-fig6.csv", delimiter=",", skiprows=1)
    assert data.shape == (801, 5)
    # same scene, two coordinate choices: the last link agrees through the first contacts (paper Fig. 6)
    assert r["agree_until_s"] == pytest.approx(0.8)
    assert np.abs(data[:, 1] - data[:, 2]).max() < 0.05
