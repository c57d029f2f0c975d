"""The ``soadyn`` command (console script ``soadyn = soadyn.cli:main``).

Commands: ``demo`` (a pendulum run written as npz + png), ``view`` (a 3-D replay), ``run`` and ``reproduce``
(the papers' scenarios, tables and figures), ``warmup`` (compile every kernel once), ``info MODEL`` (model
summary), ``sweep CONFIG`` (rollouts on Ray), ``bench TOPIC`` (benchmarks against the peer library). ``main``
is a click group (:mod:`.app`); each command group lives in its own module, which adds its commands with
``@main.command()`` / ``@main.group()``; benchmark topics listed in :data:`soadyn.bench.TOPICS` become
``bench`` subcommands automatically.

The numba cache is pointed at a folder keyed by the kernel sources (:func:`setup_cache`) before any
command runs, so no command compiles into a stale cache.
"""

from __future__ import annotations

from . import bench, demo, info, reproduce, scenarios, sweep, warmup  # noqa: F401  (each registers its commands)
from .app import OutputPath, add_force_options, main
from .kernels import entry_kernels, kernel_dispatchers, setup_cache
from .modelspec import resolve_model
from .warmup import warmup_calls

__all__ = ["main", "setup_cache", "resolve_model", "kernel_dispatchers", "entry_kernels", "warmup_calls",
           "OutputPath"]

add_force_options(main)
