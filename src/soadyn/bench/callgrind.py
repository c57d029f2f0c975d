"""Instruction counts for the dynamics benchmark (``soadyn bench dynamics --callgrind``): where wall time on a
shared machine is too noisy to decide, ``valgrind --tool=callgrind`` counts the instructions each library
executes per call, deterministically.

One valgrind run per model executes a phase script (``python -m <module> <args>``, e.g.
:mod:`soadyn.bench.dynamics_phases`) built on :func:`run_phases`: it warms every call up, then runs an empty
loop and each call ``n`` times, with a marker between phases (``os.getppid()``, whose libc function valgrind
is told to dump its counters before). Instructions per call are the phase's count minus the empty loop's,
divided by ``n``: the Python call of each library's binding included, as a user pays it.

valgrind decodes no AVX-512 instruction, so the run compiles soadyn's kernels for one fixed CPU that it
decodes (:data:`VALGRIND_CPU`, numba's ``NUMBA_CPU_NAME`` and ``NUMBA_CPU_FEATURES``), in a cache folder of
their own next to soadyn's (the user's kernels stay as they are). A plain run of the phase script with that
environment compiles them first: compiled under valgrind they would take hours. The counts are thus those of
the same machine code on every host.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

__all__ = ["available", "instructions_per_call", "phase_counts", "run_phases", "valgrind_env", "CallgrindError"]

MARKER = "getppid"
"""The libc function whose calls mark phase boundaries: ``os.getppid()`` calls it, nothing else in the process
does. (A libc function called through ctypes is no marker: valgrind does not see libffi's call into it.)"""
VALGRIND_CPU = {"NUMBA_CPU_NAME": "haswell",
                "NUMBA_CPU_FEATURES": "+avx,+avx2,+bmi,+bmi2,+cmov,+cx16,+f16c,+fma,+fxsr,+lzcnt,+mmx,+movbe,"
                                      "+popcnt,+sse,+sse2,+sse3,+sse4.1,+sse4.2,+ssse3,+xsave"}
"""numba's target under valgrind: AVX2 without AVX-512, which valgrind cannot decode."""
CALLS = 200
"""Calls per phase."""


class CallgrindError(RuntimeError):
    """valgrind is missing or its run failed."""


def available() -> bool:
    return shutil.which("valgrind") is not None


def instructions_per_call(script: str, args: list[str], n: int = CALLS, timeout: float = 1800.0) -> dict:
    """``{call name: instructions per call}`` of the phase script module ``script`` run with ``args`` and
    ``n`` calls per phase."""
    if not available():
        raise CallgrindError("--callgrind needs valgrind, which is not installed (Debian/Ubuntu: "
                             "apt-get install valgrind)")
    env = valgrind_env()
    phases = [sys.executable, "-m", script, *args]
    _run(phases + ["1"], env, timeout, "compiling the kernels for valgrind's CPU")
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "cg.out"
        proc = _run(["valgrind", "--tool=callgrind", f"--dump-before={MARKER}", f"--callgrind-out-file={out}",
                     *phases, str(n)], env, timeout, "the valgrind run")
        names = proc.stdout.strip().splitlines()[-1].split(",")
        dumps = sorted(Path(tmp).glob("cg.out.*"), key=lambda p: int(p.suffix[1:]))
        return phase_counts([_total(p) for p in dumps], names, n)


def phase_counts(counts: list[int], names: list[str], n: int) -> dict:
    """``{call name: instructions per call}`` from the instruction totals of the dumps in order (dump 1: setup;
    dump 2: the empty loop; then one per call of ``names``) and ``n`` calls per phase."""
    if len(counts) != len(names) + 2:
        raise CallgrindError(f"expected {len(names) + 2} phase dumps, got {len(counts)}: was the marker "
                             f"{MARKER!r} called elsewhere, or not seen?")
    empty = counts[1]
    return {name: (c - empty) / n for name, c in zip(names, counts[2:])}


def valgrind_env() -> dict:
    """The environment of the runs: numba targets :data:`VALGRIND_CPU` and caches in soadyn's cache folder
    with ``-callgrind`` appended."""
    from .._cache import configure_cache

    env = dict(os.environ)
    env.update(VALGRIND_CPU)
    env["NUMBA_CACHE_DIR"] = configure_cache() + "-callgrind"
    return env


def _run(cmd: list[str], env: dict, timeout: float, what: str) -> subprocess.CompletedProcess:
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, env=env)
    if proc.returncode != 0:
        raise CallgrindError(f"{what} ({' '.join(cmd)}) failed ({proc.returncode}): {proc.stderr[-2000:]}")
    return proc


def _total(path: Path) -> int:
    for line in path.read_text().splitlines():
        m = re.match(r"(?:totals|summary):\s+(\d+)", line)
        if m:
            return int(m.group(1))
    raise CallgrindError(f"no instruction total in {path.name}")


def run_phases(fns: dict, n: int) -> None:
    """The body of a phase script: warm up ``fns`` (name -> zero-argument call), then the marked phases;
    prints the call names (the order of the dumps) on the last line."""
    for f in fns.values():
        for _ in range(3):
            f()
    marker = os.getppid
    marker()
    for _ in range(n):
        pass
    marker()
    for f in fns.values():
        for _ in range(n):
            f()
        marker()
    print(",".join(fns))
