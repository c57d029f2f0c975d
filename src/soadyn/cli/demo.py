"""``soadyn demo`` (the contact pendulum of Jain 2014 Sec. 8) and ``soadyn view`` (a 3-D replay of a saved run)."""

from __future__ import annotations

from pathlib import Path

import click

from .app import OUT_FOLDER, fail, main
from .modelspec import resolve_model


@main.command(short_help="The contact pendulum of Jain 2014 Sec. 8 by the OS formulation (npz + png + json).")
@click.option("--out", "out", type=OUT_FOLDER, default=Path("soadyn-out"),
              show_default=True, help="Folder for the trajectory (.npz), the plot (.png) and the summary (.json).")
@click.option("--links", type=click.IntRange(min=2), default=12, show_default=True, help="Pendulum links.")
@click.option("--duration", type=click.FloatRange(min=0.0, min_open=True), default=5.0, show_default=True,
              help="Simulated time (s).")
@click.option("--view", is_flag=True, help="Then replay the run in 3-D in the browser (soadyn view).")
def demo(out: Path, links: int, duration: float, view: bool):
    """Swing the n-link pendulum of Jain 2014 Sec. 8 into the floor, the wall and itself: hard contact with
    friction 0.5 and restitution 0.5, 1 ms steps, the OS formulation (Eq. 53, LCP size independent of the
    number of links). Writes OUT/pendulum<N>-os.npz (the trajectory with per-step contact statistics),
    OUT/pendulum<N>-os.png (the last link's height and normal velocity, Fig. 6) and OUT/pendulum<N>-os.json
    (the summary), and prints the summary."""
    from ..experiments import jain2014

    try:
        s = jain2014.demo(out_dir=out, n=links, duration=duration)
    except ValueError as exc:
        fail(str(exc))
    click.echo(f"pendulum{links}: OS formulation, dt = {jain2014.DT:g} s, {duration:g} s simulated")
    click.echo(f"  wall time      {s['wall_time_s']:.3f} s in the kernel ({s['steps'] / s['wall_time_s']:,.0f} "
               f"steps/s; {s['total_time_s']:.2f} s in all)")
    click.echo(f"  contacts       up to {s['max_contacts']}, largest LCP {s['max_lcp_size']}, "
               f"{s['collision_steps']} collision steps, mean pivots {s['mean_pivots']:.2f}")
    click.echo(f"  penetration    {s['max_penetration_m']:.2e} m at most")
    click.echo(f"  energy         {s['energy_start_J']:.3f} J -> {s['energy_end_J']:.3f} J")
    for kind, path in s["files"].items():
        click.echo(f"  wrote          {path} ({kind})")
    if view:
        from ..viz.viewer import view_file

        view_file(s["files"]["trajectory"], html=Path(s["files"]["trajectory"]).with_suffix(".html"), log=click.echo)




@main.command(short_help="Replay a saved trajectory in 3-D in the browser (viser); --html writes a page.")
@click.argument("run", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.option("--model", "model_spec", default=None, help="MODEL of the run, for files saved without one.")
@click.option("--html", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help="Write a standalone page of the replay (opens without a server).")
@click.option("--serve/--no-serve", default=True, show_default=True, help="Serve until Ctrl-C.")
@click.option("--host", default="127.0.0.1", show_default=True, help="Address to serve on.")
@click.option("--port", type=click.IntRange(min=0), default=8080, show_default=True, help="Port (0: any free).")
@click.option("--fps", type=click.FloatRange(min=0.0, min_open=True), default=30.0, show_default=True,
              help="Frames per second of the replay.")
def view(run: Path, model_spec, html, serve: bool, host: str, port: int, fps: float):
    """Replay RUN (a trajectory .npz written by Trajectory.save or soadyn demo) in 3-D: link meshes, geoms,
    frames, contact points and forces, with play/pause, speed and a time slider."""
    from ..viz.viewer import view_file

    try:
        model = resolve_model(model_spec) if model_spec else None
        view_file(run, model, html=html, serve=serve, host=host, port=port, fps=fps, log=click.echo)
    except (ValueError, FileNotFoundError, ImportError) as exc:
        fail(str(exc))
