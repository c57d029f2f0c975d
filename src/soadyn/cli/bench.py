"""``soadyn bench TOPIC``: one subcommand per benchmark topic of :data:`soadyn.bench.TOPICS`."""

from __future__ import annotations

import json
import time
from pathlib import Path

import click

from .app import OUT_FILE, fail, main


@main.group(short_help="Benchmarks against the peer library (soadyn bench dynamics ...).")
def bench():
    """Benchmarks against the peer library a user would pick instead (median over many calls after
    warm-up, with min-max spread). See benchmarks/README.md."""


def _bench_command(name: str, module: str):
    def command(json_path: Path | None, quick: bool, **options):
        from .. import bench as bench_pkg

        mod = bench_pkg.topic(name)
        info_ = bench_pkg.machine_info()
        click.echo(f"soadyn bench {name}{' --quick' if quick else ''}: {info_['cpu']}, {info_['cpus_available']} "
                   f"CPUs, numba {info_['numba']} ({info_['numba_threads']} threads), "
                   f"pinocchio {info_['pinocchio']}")
        t0 = time.perf_counter()
        try:
            result = mod.run(quick=quick, log=click.echo, **options)
        except mod.BenchError as exc:
            fail(str(exc))
        result["machine"] = bench_pkg.machine_info()
        result["wall_time_s"] = time.perf_counter() - t0
        click.echo("")
        click.echo(mod.format_table(result))
        if json_path is not None:
            json_path.parent.mkdir(parents=True, exist_ok=True)
            json_path.write_text(json.dumps(result, indent=2) + "\n")
            click.echo(f"\nwrote {json_path}")

    import importlib

    mod = importlib.import_module(module)
    command.__doc__ = (mod.__doc__ or "").strip()
    for option in getattr(mod, "OPTIONS", ()):  # the topic's own options, passed to its run()
        command = option(command)
    command = click.option("--quick", is_flag=True, help="Fewer repetitions and states (for tests).")(command)
    command = click.option("--json", "json_path", type=OUT_FILE, default=None,
                           help="Also write all numbers and machine info as JSON to this file.")(command)
    return bench.command(name, short_help=getattr(mod, "SUMMARY", None))(command)


def _register_bench_topics():
    from ..bench import TOPICS

    for name, module in TOPICS.items():
        _bench_command(name, module)


_register_bench_topics()
