"""Instruction counts under valgrind (``soadyn.bench.callgrind``): the marked phases of a small phase script run
under the real valgrind, and the split of the dumps into phases."""

from __future__ import annotations

import os
import textwrap

import pytest

from soadyn.bench import callgrind as cg

PHASES = """
import itertools
import sys
from soadyn.bench.callgrind import run_phases

def loop(k):
    def f():
        for _ in itertools.repeat(None, k):
            pass
    return f

run_phases({"loop0": loop(0), "loop400": loop(400), "loop1200": loop(1200)}, int(sys.argv[1]))
"""


@pytest.mark.skipif(not cg.available(), reason="valgrind is not installed")
def test_phases_under_valgrind_count_each_call(tmp_path, monkeypatch):
    """An empty Python loop of k iterations costs a + b k instructions: the per-call counts of k = 0, 400, 1200 must
    show it (the 1200-loop's extra work three times the 400-loop's), which fails if a marker is missed, counted
    twice or the dumps are assigned to the wrong calls."""
    (tmp_path / "cg_phases.py").write_text(textwrap.dedent(PHASES))
    path = [str(tmp_path), *os.environ.get("PYTHONPATH", "").split(os.pathsep)]
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join(p for p in path if p))
    counts = cg.instructions_per_call("cg_phases", [], n=20, timeout=300)
    assert list(counts) == ["loop0", "loop400", "loop1200"]
    extra400, extra1200 = counts["loop400"] - counts["loop0"], counts["loop1200"] - counts["loop0"]
    assert extra400 > 400 * 5, counts  # at least a few instructions per iteration
    assert extra1200 / extra400 == pytest.approx(3.0, rel=0.02), counts


def test_phase_counts_subtract_the_empty_loop_and_check_the_dump_count():
    counts = [10_000, 300, 300 + 20 * 50, 300 + 20 * 70]
    assert cg.phase_counts(counts, ["a", "b"], 20) == {"a": 50.0, "b": 70.0}
    for wrong in (counts[:-1], counts + [5]):
        with pytest.raises(cg.CallgrindError, match="expected 4 phase dumps"):
            cg.phase_counts(wrong, ["a", "b"], 20)


def test_valgrind_env_targets_a_cpu_valgrind_decodes_in_a_cache_of_its_own():
    env = cg.valgrind_env()
    assert env["NUMBA_CPU_NAME"] == "haswell" and "avx512" not in env["NUMBA_CPU_FEATURES"]
    assert env["NUMBA_CACHE_DIR"].endswith("-callgrind")
    assert env["NUMBA_CACHE_DIR"] != os.environ.get("NUMBA_CACHE_DIR")
