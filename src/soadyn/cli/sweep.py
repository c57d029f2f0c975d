"""``soadyn sweep CONFIG``: a grid or Monte Carlo set of rollouts on Ray (:mod:`soadyn.sweeps`)."""

from __future__ import annotations

from pathlib import Path

import click

from .app import OUT_FOLDER, fail, main


@main.command("sweep", short_help="Run a grid or Monte Carlo set of rollouts from a TOML/YAML config, on Ray.")
@click.argument("config", type=click.Path(dir_okay=False, path_type=Path))
@click.option("--address", default=None, help="An existing Ray cluster ('auto', 'ray://head:10001'); default: a local Ray.")
@click.option("--num-cpus", type=click.IntRange(min=1), default=None, help="CPUs of the local Ray (default: all).")
@click.option("--serial", is_flag=True, help="Run the rollouts in this process, without Ray.")
@click.option("--out", "out", type=OUT_FOLDER, default=None,
              help="Folder for the Parquet results, plot and trajectories (default: the config's, else soadyn-out).")
@click.option("--plot", default=None, help="A summary column to plot over the parameters.")
@click.option("--trajectories", is_flag=True, default=None, help="Also save every trajectory (.npz).")
def sweep(config: Path, address, num_cpus, serial: bool, out, plot, trajectories):
    """Run the sweep described by CONFIG (see soadyn.sweeps.config): one row per rollout in
    OUT/<name>.parquet, with a progress bar; failed rollouts are rows with their error."""
    from ..sweeps import describe, run_config

    try:
        result = run_config(config, out=out, plot=plot, trajectories=trajectories, address=address,
                            num_cpus=num_cpus, serial=serial, progress=True)
    except (ValueError, ImportError) as exc:
        fail(str(exc))
    for line in describe(result, "serial" if serial else "ray"):
        click.echo(line)
