"""Benchmarks run by ``soadyn bench <topic>`` (docs/architecture.md, Benchmarks): ratios against the peer a user would
pick instead, measured side by side in one process, median over many calls after warm-up, with the
min-max spread. Absolute times are context only. How to run them: ``benchmarks/README.md``.

A topic is a module of this package with ``run(quick, log) -> dict`` (JSON-ready numbers),
``format_table(result) -> str``, ``BenchError`` (raised when the libraries disagree: nothing is timed) and
a one-line ``SUMMARY``; :data:`TOPICS` lists them and the ``soadyn bench`` command picks them up.
"""

from __future__ import annotations

import importlib
import os
import platform
import sys

__all__ = ["TOPICS", "topic", "machine_info"]

TOPICS = {
    "dynamics": "soadyn.bench.dynamics",
    "osim": "soadyn.bench.osim",
    "loops": "soadyn.bench.loops",
    "drumwright": "soadyn.bench.drumwright",
    "contact": "soadyn.bench.contact",
    "scenes": "soadyn.bench.scenes",
    "derivatives": "soadyn.bench.derivatives",
    "step-derivatives": "soadyn.bench.step_derivatives",
}
"""topic name -> module."""


def topic(name: str):
    """The module of benchmark topic ``name``; ``ValueError`` listing the topics if unknown."""
    if name not in TOPICS:
        raise ValueError(f"unknown benchmark topic {name!r}; available: {sorted(TOPICS)}")
    return importlib.import_module(TOPICS[name])


def _cpu_name() -> str:
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def _version(module: str) -> str | None:
    try:
        return importlib.import_module(module).__version__
    except Exception:
        return None


def machine_info() -> dict:
    """CPU, core and thread counts and the versions that matter for the numbers."""
    import numba

    import soadyn

    try:
        affinity = len(os.sched_getaffinity(0))
    except AttributeError:
        affinity = os.cpu_count()
    return {
        "cpu": _cpu_name(),
        "machine": platform.machine(),
        "system": f"{platform.system()} {platform.release()}",
        "cpu_count": os.cpu_count(),
        "cpus_available": affinity,
        "numba_threads": numba.get_num_threads(),
        "numba_threading_layer": _threading_layer(),
        "python": sys.version.split()[0],
        "soadyn": soadyn.__version__,
        "numpy": _version("numpy"),
        "numba": numba.__version__,
        "pinocchio": _version("pinocchio"),
        "mujoco": _version("mujoco"),
        "dartpy": _version("dartpy"),
    }


def _threading_layer() -> str | None:
    import numba

    try:
        return numba.threading_layer()
    except ValueError:  # no parallel kernel has run yet
        return None
