"""Instruction counts for the dynamics benchmark (``soadyn bench dynamics --callgrind``): where wall time on a
shared machine is too noisy to decide, ``valgrind --tool=callgrind`` counts the instructions each library
executes per call, deterministically.

One valgrind run per model executes a phase script (``python -m <module> <args>``, e.g.
:mod:`soadyn.bench.dynamics_phases`) built on :func:`run_phases`: it warms every call up, then runs an empty
loop and each call ``n`` times, with a marker between phases (a call of libc's ``ffs``, which valgrind is
told to dump its counters before). Instructions per call are the phase's count minus the empty loop's,
divided by ``n``: the Python call of each library's binding included, as a user pays it.
"""

from __future__ import annotations

import ctypes
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

__all__ = ["available", "instructions_per_call", "run_phases", "CallgrindError"]

MARKER = "ffs"
"""The libc function whose calls mark phase boundaries (nothing else in the process calls it)."""
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
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "cg.out"
        cmd = ["valgrind", "--tool=callgrind", f"--dump-before={MARKER}", f"--callgrind-out-file={out}",
               sys.executable, "-m", script, *args, str(n)]
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, env=_numba_host_env())
        if proc.returncode != 0:
            raise CallgrindError(f"valgrind run of {script} {' '.join(args)} failed ({proc.returncode}): {proc.stderr[-2000:]}")
        names = proc.stdout.strip().splitlines()[-1].split(",")
        dumps = sorted(Path(tmp).glob("cg.out.*"), key=lambda p: int(p.suffix[1:]))
        counts = [_total(p) for p in dumps]
    # dump 1: setup; dump 2: the empty loop; then one per call, in the order printed
    if len(counts) < len(names) + 2:
        raise CallgrindError(f"expected {len(names) + 2} phase dumps, got {len(counts)}")
    empty = counts[1]
    return {name: (c - empty) / n for name, c in zip(names, counts[2:])}


def _numba_host_env() -> dict:
    """The environment with numba's target CPU pinned to this machine's (``NUMBA_CPU_NAME``,
    ``NUMBA_CPU_FEATURES``): under valgrind the CPU reports fewer features, which would change the key of
    numba's cache and recompile every kernel there; pinned, the run loads the kernels this process compiled
    and counts the instructions of the same machine code."""
    import llvmlite.binding as ll

    env = dict(os.environ)
    env["NUMBA_CPU_NAME"] = ll.get_host_cpu_name()
    env["NUMBA_CPU_FEATURES"] = ll.get_host_cpu_features().flatten()
    return env


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
    marker = getattr(ctypes.CDLL(None), MARKER)
    marker(1)
    for _ in range(n):
        pass
    marker(1)
    for f in fns.values():
        for _ in range(n):
            f()
        marker(1)
    print(",".join(fns))
