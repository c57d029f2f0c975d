"""The ``soadyn`` command (console script ``soadyn = soadyn.cli:main``).

Commands: ``demo`` (a pendulum run written as npz + png), ``warmup`` (compile every kernel once),
``info MODEL`` (model summary), ``bench TOPIC`` (benchmarks against the peer library). ``main`` is a click
group: new commands and groups are added with ``@main.command()`` / ``@main.group()``; benchmark topics
listed in :data:`soadyn.bench.TOPICS` become ``bench`` subcommands automatically.

The numba cache is pointed at a folder keyed by the kernel sources (:func:`setup_cache`) before any
command runs, so no command compiles into a stale cache.
"""

from __future__ import annotations

import ast
import inspect
import json
import math
import pkgutil
import time
from pathlib import Path

import click
import numpy as np

import soadyn

__all__ = ["main", "setup_cache", "resolve_model", "kernel_dispatchers", "entry_kernels", "warmup_calls"]


# ------------------------------------------------------------------------------------------------ cache
def kernel_modules() -> list:
    """Every module of ``soadyn._kernels``, imported (importing them compiles nothing)."""
    import importlib

    from . import _kernels

    return [importlib.import_module(f"{_kernels.__name__}.{m.name}")
            for m in sorted(pkgutil.iter_modules(_kernels.__path__), key=lambda m: m.name)]


def kernel_dispatchers() -> dict:
    """``"module.function" -> numba dispatcher`` for every kernel defined in ``soadyn._kernels``."""
    from numba.core.dispatcher import Dispatcher

    out = {}
    for mod in kernel_modules():
        short = mod.__name__.rsplit(".", 1)[1]
        for name, obj in vars(mod).items():
            if isinstance(obj, Dispatcher) and obj.py_func.__module__ == mod.__name__:
                out[f"{short}.{name}"] = obj
    return out


def setup_cache() -> str:
    """Point numba's cache at the folder keyed by the kernel sources (``soadyn._cache.configure_cache``;
    ``NUMBA_CACHE_DIR`` wins if set) and return it. Importing soadyn already does this before any kernel is
    decorated; the command calls it again so that the folder it reports is the one in use."""
    from ._cache import configure_cache

    return configure_cache()


def entry_kernels() -> dict:
    """The kernels called from Python (referenced by a soadyn module outside ``_kernels``):
    ``"module.function" -> dispatcher``. Helpers only called from other kernels are left out."""
    import soadyn as pkg

    disp = kernel_dispatchers()
    root = Path(pkg.__file__).parent
    used = set()
    for path in root.rglob("*.py"):
        if "_kernels" in path.relative_to(root).parts:
            continue
        try:
            tree = ast.parse(path.read_text())
        except (SyntaxError, UnicodeDecodeError):
            continue
        aliases = {}  # local name -> kernel module short name
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and node.module and "_kernels" in node.module.split("."):
                last = node.module.split(".")[-1]
                for a in node.names:
                    if last == "_kernels":
                        aliases[a.asname or a.name] = a.name
                    else:
                        used.add(f"{last}.{a.name}")
        for node in ast.walk(tree):
            if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id in aliases:
                used.add(f"{aliases[node.value.id]}.{node.attr}")
    return {k: disp[k] for k in sorted(used) if k in disp}


# ------------------------------------------------------------------------------------------------ models
def zoo() -> dict:
    """Model zoo builders by name: the functions of ``soadyn.models`` that return a Model."""
    from . import models

    out = {}
    for name in getattr(models, "__all__", ()):
        f = getattr(models, name, None)
        if name == "robot" or not inspect.isfunction(f):
            continue
        if inspect.signature(f).return_annotation in ("Model", soadyn.Model):
            out[name] = f
    return out


def _split_args(text: str) -> list[str]:
    """Split at commas outside brackets and quotes: ``"5,joint_mix=(1,2)"`` -> ``["5", "joint_mix=(1,2)"]``."""
    parts, depth, quote, cur = [], 0, "", []
    for ch in text:
        if quote:
            quote = "" if ch == quote else quote
        elif ch in "'\"":
            quote = ch
        elif ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
        elif ch == "," and depth == 0:
            parts.append("".join(cur))
            cur = []
            continue
        cur.append(ch)
    parts.append("".join(cur))
    return [p.strip() for p in parts if p.strip()]


def _parse_value(text: str):
    try:
        return ast.literal_eval(text)
    except (ValueError, SyntaxError):
        return text


def resolve_model(spec: str, floating_base: bool | None = None) -> soadyn.Model:
    """A model from a spec: a zoo entry ``name[:arg,...,key=value]`` (``pendulum:12``, ``auto_tree:10``,
    ``auto_tree:5,branching=2``), an example-robot-data robot (``talos``, ``ur5``, ...) or a URDF path.
    ``ValueError`` with the accepted forms otherwise."""
    from .models.robots import ROBOTS, robot

    spec = spec.strip()
    builders = zoo()
    name, _, argtext = spec.partition(":")
    if name in builders:
        args, kwargs = [], {}
        for part in _split_args(argtext):
            key, eq, val = part.partition("=")
            if eq:
                kwargs[key.strip()] = _parse_value(val.strip())
            else:
                if kwargs:
                    raise ValueError(f"{spec!r}: positional argument {part!r} after a keyword argument")
                args.append(_parse_value(part))
        try:
            return builders[name](*args, **kwargs)
        except TypeError as exc:
            raise ValueError(f"{spec!r}: bad arguments for {name}{inspect.signature(builders[name])}: {exc}") from None
    if spec in ROBOTS:
        return robot(spec, floating_base)
    path = Path(spec).expanduser()
    if path.suffix.lower() == ".urdf" or path.is_file():
        if not path.is_file():
            raise ValueError(f"{spec!r}: URDF file not found")
        return soadyn.Model.from_urdf(path, floating_base=bool(floating_base))
    raise ValueError(f"unknown model {spec!r}: expected a zoo model {sorted(builders)} as name[:args] "
                     f"(e.g. pendulum:12, auto_tree:10), an example-robot-data robot {sorted(ROBOTS)}, "
                     "or the path of a .urdf file")


# ------------------------------------------------------------------------------------------ output paths
class OutputPath(click.ParamType):
    """An output folder (``--out``) or file (``--json``), checked before the run: a folder is created and
    must accept a file; an existing non-empty folder or an existing file is only written into with
    ``--force`` (a user's files are never replaced silently)."""

    name = "path"

    def __init__(self, folder: bool):
        self.folder = folder

    def convert(self, value, param, ctx):
        path = Path(value)
        force = bool(ctx and ctx.meta.get("soadyn_force"))
        try:
            if self.folder:
                if path.exists() and not path.is_dir():
                    self.fail(f"{path} exists and is not a folder", param, ctx)
                taken = sorted(p.name for p in path.iterdir()) if path.is_dir() else []
                if taken and not force:
                    self.fail(f"{path} already holds files ({', '.join(taken[:5])}{', ...' if len(taken) > 5 else ''})"
                              ": pass --force to write into it (files of the same names are replaced), or choose "
                              "another folder", param, ctx)
                path.mkdir(parents=True, exist_ok=True)
                probe = path / ".soadyn-write-test"
                probe.write_bytes(b"")
                probe.unlink()
            else:
                if path.is_dir():
                    self.fail(f"{path} is a folder", param, ctx)
                if path.exists() and not force:
                    self.fail(f"{path} exists: pass --force to replace it, or choose another file", param, ctx)
                if not path.parent.is_dir():
                    self.fail(f"folder {path.parent} does not exist", param, ctx)
        except OSError as exc:
            self.fail(f"{path}: cannot write there ({exc.strerror or exc})", param, ctx)
        return path


OUT_FOLDER = OutputPath(folder=True)
OUT_FILE = OutputPath(folder=False)


def _remember_force(ctx, param, value):
    ctx.meta["soadyn_force"] = bool(value)


def _add_force_options(group: click.Group) -> None:
    """Give every command with an output path a ``--force`` flag, processed before the path (eager)."""
    for cmd in group.commands.values():
        if isinstance(cmd, click.Group):
            _add_force_options(cmd)
        elif any(isinstance(p.type, OutputPath) for p in cmd.params) and not any(p.name == "force" for p in cmd.params):
            cmd.params.append(click.Option(["--force"], is_flag=True, is_eager=True, expose_value=False,
                                           callback=_remember_force,
                                           help="Write into an existing output folder or replace an existing file."))


class _Group(click.Group):
    """The command group: operating-system errors (disk full, permissions) end in one clear line."""

    def invoke(self, ctx):
        try:
            return super().invoke(ctx)
        except OSError as exc:
            where = f": {exc.filename}" if getattr(exc, "filename", None) else ""
            raise click.ClickException(f"{exc.strerror or exc}{where}") from None


# -------------------------------------------------------------------------------------------------- CLI
@click.group(cls=_Group, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(soadyn.__version__, prog_name="soadyn")
def main():
    """soadyn: minimal-coordinate multibody dynamics with the spatial operator algebra."""
    setup_cache()


def _fail(msg: str):
    raise click.ClickException(msg)


# ------------------------------------------------------------------------------------------------- demo
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
    from .experiments import jain2014

    try:
        s = jain2014.demo(out_dir=out, n=links, duration=duration)
    except ValueError as exc:
        _fail(str(exc))
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
        from .viz.viewer import view_file

        view_file(s["files"]["trajectory"], html=Path(s["files"]["trajectory"]).with_suffix(".html"), log=click.echo)


# ------------------------------------------------------------------------------------------------- view
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
    from .viz.viewer import view_file

    try:
        model = resolve_model(model_spec) if model_spec else None
        view_file(run, model, html=html, serve=serve, host=host, port=port, fps=fps, log=click.echo)
    except (ValueError, FileNotFoundError, ImportError) as exc:
        _fail(str(exc))


# -------------------------------------------------------------------------------------------------- run
@main.group(short_help="Run the papers' scenarios (soadyn run osc-humanoid ...).")
def run():
    """Simulate a scenario of the papers and write its trajectory, data, plots and summary."""


@run.command("osc-humanoid", short_help="Task/posture control of the 24-link humanoid (Chang-Khatib 2000).")
@click.option("--scenario", type=click.Choice(["hold-hands", "touch-floor"]), default="hold-hands",
              show_default=True, help="hold-hands: Fig. 3 (torso rocks in the null space); touch-floor: Fig. 6.")
@click.option("--duration", type=click.FloatRange(min=0.0, min_open=True), default=4.0, show_default=True,
              help="Simulated time (s).")
@click.option("--dt", type=click.FloatRange(min=0.0, min_open=True), default=1e-3, show_default=True,
              help="Time step of the ABA simulation and the control rate (s).")
@click.option("--out", "out", type=OUT_FOLDER, default=Path("soadyn-out"),
              show_default=True, help="Output folder.")
def run_osc_humanoid(scenario: str, duration: float, dt: float, out: Path):
    """Operational space control of humanoid24 with two operational points, the controller of
    Chang-Khatib 2000 Eqs. 11-13 evaluated every step, simulated by ABA (semi-implicit Euler)."""
    from .experiments import osc_humanoid

    try:
        summary = osc_humanoid.run(scenario, duration=duration, dt=dt, out_dir=out)
    except ValueError as exc:
        _fail(str(exc))
    click.echo(f"osc-humanoid {scenario}: {summary['steps']} steps of {dt:g} s in {summary['wall_time_s']:.2f} s "
               f"(control cycle {summary['control_cycle_us']:.0f} us)")
    for hand, err in summary["max_hand_error_m"].items():
        click.echo(f"  {hand:<11} max tracking error {err * 1e3:.3f} mm")
    lo, hi = summary["waist_pitch_range_rad"]
    click.echo(f"  waist pitch  {lo:.3f} .. {hi:.3f} rad")
    for kind, path in summary["files"].items():
        click.echo(f"  wrote        {path} ({kind})")


def _mechanism_names() -> list:
    from .models.mechanisms import MECHANISMS

    return list(MECHANISMS)


@run.command("mechanism", short_help="A closed-chain mechanism of Jain 2012 Sec. 4, by TA or FA.")
@click.argument("name", type=click.Choice(_mechanism_names()))
@click.option("--method", type=click.Choice(["ta", "fa"]), default="ta", show_default=True,
              help="ta: the tree with its cut joints as loops; fa: every body free, every hinge a loop.")
@click.option("--stabilization", type=click.Choice(["none", "baumgarte", "projection"]), default="none",
              show_default=True, help="Constraint error control.")
@click.option("--duration", type=click.FloatRange(min=0.0, min_open=True), default=2.0, show_default=True,
              help="Simulated time (s).")
@click.option("--dt", type=click.FloatRange(min=0.0, min_open=True), default=1e-4, show_default=True,
              help="Time step (s).")
@click.option("--integrator", type=click.Choice(["rk4", "semi_implicit"]), default="rk4", show_default=True)
@click.option("--out", "out", type=OUT_FOLDER, default=Path("soadyn-out"),
              show_default=True, help="Output folder.")
def run_mechanism(name: str, method: str, stabilization: str, duration: float, dt: float, integrator: str,
                  out: Path):
    """Simulate mechanism NAME of Jain et al. 2012 Sec. 4 from its assembled rest state under its steady
    driving torque, with the accelerations of Lemma 2 on the TA or the FA model; writes the trajectory
    (npz), a plot of the coordinates (FA: body origins) and constraint errors (png) and a summary (json)."""
    from .experiments import jain2012

    try:
        s = jain2012.run_mechanism(name, method, stabilization, duration=duration, dt=dt, integrator=integrator,
                                   out_dir=out)
    except ValueError as exc:
        _fail(str(exc))
    click.echo(f"{name} ({method.upper()}, {integrator}, dt = {dt:g} s, stabilization {stabilization}): "
               f"nv = {s['nv']}, {s['nc']} constraint rows, {s['steps']} steps in {s['kernel_time_s']:.2f} s "
               f"({s['steps_per_second']:,.0f} steps/s)")
    click.echo(f"  driver       {s['driver']}, {s['torque']:g} N m, turned {s['driver_angle_change_rad']:.4f} rad")
    click.echo(f"  constraint   max |phi| = {s['max_constraint_error']:.3e}, final {s['final_constraint_error']:.3e}, "
               f"max |G qd| = {s['max_constraint_velocity_error']:.3e}")
    click.echo(f"  energy       change {s['energy_change_J']:.6g} J, driver work {s['driver_work_J']:.6g} J")
    if stabilization == "projection":
        click.echo(f"  projection   at most {s['projection_iterations_max']} Gauss-Newton iterations a step")
    for kind, path in s["files"].items():
        click.echo(f"  wrote        {path} ({kind})")


# -------------------------------------------------------------------------------------------- reproduce
@main.group(short_help="Reproduce the papers' figures (soadyn reproduce jain2012-fig4 ...).")
def reproduce():
    """Reproduce a figure or table of the papers and write its plot and data."""


@reproduce.command("jain2012-fig4", short_help="FA vs TA trajectories of two mechanisms (Jain 2012 Fig. 4).")
@click.option("--duration", type=click.FloatRange(min=0.0, min_open=True), default=2.0, show_default=True,
              help="Simulated time (s).")
@click.option("--dt", type=click.FloatRange(min=0.0, min_open=True), default=1e-4, show_default=True,
              help="Time step (s); the paper's is 0.1 ms.")
@click.option("--out", "out", type=OUT_FOLDER, default=Path("soadyn-out"),
              show_default=True, help="Output folder.")
def reproduce_jain2012_fig4(duration: float, dt: float, out: Path):
    """Jain et al. 2012 Fig. 4: FA and TA trajectories (RK4, no constraint error control) of the rocker
    angle of the planar four bar and the slider position of the spatial crank slider, overlaid; writes
    the plot (png), the plotted series (csv) and the maximum differences (json)."""
    from .experiments import jain2012

    try:
        r = jain2012.reproduce_fig4(out_dir=out, duration=duration, dt=dt)
    except ValueError as exc:
        _fail(str(exc))
    click.echo(f"Jain 2012 Fig. 4: FA vs TA, rk4, dt = {dt:g} s, {duration:g} s ({r['wall_time_s']:.1f} s)")
    for name, m in r["mechanisms"].items():
        click.echo(f"  {name:<21} {m['quantity']}: max |FA - TA| = {m['max_abs_difference']:.3e} "
                   f"(range {m['range'][0]:.4g} .. {m['range'][1]:.4g}); max |phi| TA {m['max_constraint_error']['ta']:.1e}, "
                   f"FA {m['max_constraint_error']['fa']:.1e}")
    for kind, path in r["files"].items():
        click.echo(f"  wrote        {path} ({kind})")


def _rover_rows(rows: list) -> None:
    from .experiments.jain2012_rover import VARIANTS

    click.echo(f"  {'method':<24}{'dt (ms)':>8}{'tree dofs':>10}{'constr.':>8}{'constraint err':>16}"
               f"{'fidelity err':>14}{'wall (s)':>10}{'norm. wall':>11}")
    for r in rows:
        label = VARIANTS[r["variant"]][2]
        if r["wall_s"] is None:
            click.echo(f"  {label:<24}{r['dt'] * 1e3:>8g}  {r['status']}")
            continue
        fid = r["fidelity_error"]
        fe = "-" if fid is None or not math.isfinite(fid) else f"{fid:.4e}"
        nw = "-" if r["normalized_wall"] is None else f"{r['normalized_wall']:.3f}"
        click.echo(f"  {label:<24}{r['dt'] * 1e3:>8g}{r['tree_dofs']:>10}{r['constraint_size']:>8}"
                   f"{r['constraint_error']:>16.4e}{fe:>14}{r['wall_s']:>10.3f}{nw:>11}"
                   + ("" if r["status"] == "ok" else f"  ({r['status']})"))


@reproduce.command("jain2012-table1", short_help="LER rover: CE, TA and FA variants at 1 ms (Jain 2012 Table 1).")
@click.option("--duration", type=click.FloatRange(min=0.0, min_open=True), default=3.0, show_default=True,
              help="Simulated time (s); a multiple of 0.01 s.")
@click.option("--dt", type=click.FloatRange(min=0.0, min_open=True), default=1e-3, show_default=True,
              help="Time step (s).")
@click.option("--baseline-dt", type=click.FloatRange(min=0.0, min_open=True), default=1e-5, show_default=True,
              help="Step of the fidelity baseline (s).")
@click.option("--out", "out", type=OUT_FOLDER, default=Path("soadyn-out"),
              show_default=True, help="Output folder.")
@click.option("--breakdown/--no-breakdown", default=True, show_default=True,
              help="Also measure the cost of one evaluation of CE, TA and FA part by part.")
def reproduce_jain2012_table1(duration: float, dt: float, baseline_dt: float, out: Path, breakdown: bool):
    """Jain et al. 2012 Table 1: the LER rover by CE (analytic, iterative), TA and FA (no error control,
    Baumgarte, projection), RK4: tree dofs, constraint size, max constraint error, fidelity error against a
    small-step baseline and wall clock normalized to CE analytic; then the cost of one forward-dynamics
    evaluation split into kernel stages (ABA passes, loop rows, Schur complement, solve; CE's loop solve),
    the fixed cost per call and the KKT alternative, with why TA/CE and FA/CE differ from the paper's;
    writes csv and json."""
    from .experiments import jain2012_rover

    try:
        r = jain2012_rover.reproduce_table1(out_dir=out, duration=duration, dt=dt, baseline_dt=baseline_dt,
                                            progress=None)
    except ValueError as exc:
        _fail(str(exc))
    b = r["baseline"]
    click.echo(f"Jain 2012 Table 1: LER rover, rk4, dt = {dt:g} s, {duration:g} s; baseline {b['variant']} at "
               f"dt = {b['dt']:g} s; wall clock normalized to {r['normalized_to']} ({r['wall_time_s']:.1f} s)")
    _rover_rows(r["rows"])
    for v, why in r["missing"].items():
        click.echo(f"  missing      {v}: {why}")
    files = dict(r["files"])
    if breakdown:
        from .experiments import jain2012_breakdown

        b = jain2012_breakdown.breakdown(r, out_dir=out)
        click.echo("Cost per forward-dynamics evaluation (one RK4 stage):")
        click.echo(jain2012_breakdown.format_breakdown(b))
        files.update(b["files"])
    for kind, path in files.items():
        click.echo(f"  wrote        {path} ({kind})")


@reproduce.command("jain2012-fig6", short_help="LER rover: errors vs wall clock over step sizes (Jain 2012 Fig. 6).")
@click.option("--duration", type=click.FloatRange(min=0.0, min_open=True), default=1.0, show_default=True,
              help="Simulated time (s); a multiple of 0.01 s.")
@click.option("--budget", type=click.FloatRange(min=0.0, min_open=True), default=600.0, show_default=True,
              help="Skip a run whose predicted wall clock exceeds this (s).")
@click.option("--baseline-dt", type=click.FloatRange(min=0.0, min_open=True), default=1e-5, show_default=True,
              help="Step of the fidelity baseline (s).")
@click.option("--out", "out", type=OUT_FOLDER, default=Path("soadyn-out"),
              show_default=True, help="Output folder.")
def reproduce_jain2012_fig6(duration: float, budget: float, baseline_dt: float, out: Path):
    """Jain et al. 2012 Fig. 6: constraint error and fidelity error vs wall clock (log-log) for every
    variant at steps 2, 1, 0.25, 0.1 and 0.04 ms; writes the plot (png), csv and json."""
    from .experiments import jain2012_rover

    try:
        r = jain2012_rover.reproduce_fig6(out_dir=out, duration=duration, budget_s=budget, baseline_dt=baseline_dt,
                                          progress=None)
    except ValueError as exc:
        _fail(str(exc))
    b = r["baseline"]
    click.echo(f"Jain 2012 Fig. 6: LER rover, rk4, {duration:g} s; baseline {b['variant']} at dt = {b['dt']:g} s "
               f"({r['wall_time_s']:.1f} s)")
    _rover_rows(r["rows"])
    for v, why in r["missing"].items():
        click.echo(f"  missing      {v}: {why}")
    for kind, path in r["files"].items():
        click.echo(f"  wrote        {path} ({kind})")


@reproduce.command("jain2014-table2", short_help="OS vs NMC/OS pendulum runs: LCP sizes, times (Jain 2014 Table 2).")
@click.option("--links", "links", type=click.IntRange(min=2), multiple=True,
              help="Pendulum sizes (repeatable); default: 3 6 12 15 24 30.")
@click.option("--duration", type=click.FloatRange(min=0.0, min_open=True), default=5.0, show_default=True,
              help="Simulated time (s).")
@click.option("--out", "out", type=OUT_FOLDER, default=Path("soadyn-out"),
              show_default=True, help="Output folder.")
def reproduce_jain2014_table2(links, duration: float, out: Path):
    """Jain 2014 Table 2: the pendulum scene by OS and NMC/OS for each size; prints the paper's LCP sizes at
    4 contacts next to those met, the wall times and the speedup; writes csv and json."""
    from .experiments import jain2014

    try:
        r = jain2014.reproduce_table2(out_dir=out, links=links or jain2014.TABLE2_LINKS, duration=duration,
                                      echo=click.echo)
    except ValueError as exc:
        _fail(str(exc))
    for kind, path in r["files"].items():
        click.echo(f"  wrote        {path} ({kind})")


@reproduce.command("jain2014-fig6", short_help="Last-link height and velocity, OS vs NMC/OS (Jain 2014 Fig. 6).")
@click.option("--links", type=click.IntRange(min=2), default=12, show_default=True, help="Pendulum links.")
@click.option("--duration", type=click.FloatRange(min=0.0, min_open=True), default=5.0, show_default=True,
              help="Simulated time (s).")
@click.option("--out", "out", type=OUT_FOLDER, default=Path("soadyn-out"),
              show_default=True, help="Output folder.")
def reproduce_jain2014_fig6(links: int, duration: float, out: Path):
    """Jain 2014 Fig. 6: the last link's height and normal velocity by OS and NMC/OS overlaid; writes the
    plot (png), the series (csv) and a summary (json)."""
    from .experiments import jain2014

    try:
        r = jain2014.reproduce_fig6(out_dir=out, n=links, duration=duration)
    except ValueError as exc:
        _fail(str(exc))
    click.echo(f"Jain 2014 Fig. 6: {links}-link pendulum, OS vs NMC/OS, {duration:g} s")
    for f, run in r["runs"].items():
        click.echo(f"  {f:<7} wall {run['wall_time_s']:.3f} s, largest LCP {run['max_lcp_size']}, "
                   f"penetration {run['max_penetration_m']:.2e} m")
    click.echo(f"  the heights agree to 5 cm until t = {r['agree_until_s']:.3f} s")
    for kind, path in r["files"].items():
        click.echo(f"  wrote        {path} ({kind})")


@reproduce.command("jain2014-table1", short_help="LCP sizes of the five formulations for the dual arm (Jain 2014 Table 1).")
@click.option("--out", "out", type=OUT_FOLDER, default=Path("soadyn-out"),
              show_default=True, help="Output folder.")
def reproduce_jain2014_table1(out: Path):
    """Jain 2014 Table 1: the NMC, MC, RMC, OS (and NMC/OS) LCP sizes for the 26-link dual-arm robot with 4
    fingertip contacts and n_f = 4, from LCPs actually built (and solved) next to the paper's values and
    formulas; writes CSV and JSON."""
    from .experiments import jain2014_table1

    r = jain2014_table1.reproduce_table1(out_dir=out)
    click.echo(f"Jain 2014 Table 1: {r['model']}, {r['links']} links, {r['dofs']} dofs, {r['contacts']} contacts, "
               f"n_f = {r['n_f']}")
    click.echo(f"  {'formulation':<12}{'paper':>7}{'formula':>9}{'built':>7}{'eq. rows':>10}{'build+solve':>13}"
               f"{'max |qd+ - qd+_mc|':>20}")
    for row in r["rows"]:
        paper = "-" if row["paper"] is None else str(row["paper"])
        click.echo(f"  {row['formulation']:<12}{paper:>7}{row['formula']:>9}{row['built']:>7}{row['equality_rows']:>10}"
                   f"{row['build_solve_ms']:>10.2f} ms{row['max_qd_plus_difference_vs_mc']:>20.2e}")
    for kind, path in r["files"].items():
        click.echo(f"  wrote        {path} ({kind})")


@reproduce.command("drumwright-grasp", short_help="Grasp: Coulomb vs no-slip run times and grasp (Drumwright 2015 Table I).")
@click.option("--trials", type=click.IntRange(min=1), default=10, show_default=True, help="Trials per variant.")
@click.option("--steps", type=click.IntRange(min=1), default=100, show_default=True,
              help="Steps of 0.01 s per trial.")
@click.option("--out", "out", type=OUT_FOLDER, default=Path("soadyn-out"),
              show_default=True, help="Output folder.")
def reproduce_drumwright_grasp(trials: int, steps: int, out: Path):
    """Drumwright 2015 Sec. VII-A, Table I: two grippers push two boxes held under gravity, with the paper's
    contacts (each of the 4 shared corners of a face pair with its 3 normals: 36 contacts) and with soadyn's
    default box contacts (4 per pair: 12); Coulomb (mu_c = 100,
    4-direction pyramid, Lemke) and no-slip (modified PPM, Lemke; and, Python-stepped, PPM and the proxsuite
    QP), each run --trials times; prints the mean and std of the run times (10 steps, as the paper, and
    --steps), the contact counts and LCP sizes and for how many steps both boxes stay within 1 cm of their
    start height; writes CSV and JSON."""
    from .experiments import drumwright_grasp as dg

    click.echo(f"Drumwright 2015 Table I: grasp, dt = {dg.DT:g} s, {trials} trials of {steps} steps")
    for gen in dg.CONTACTS:
        c = dg.pair_counts(contacts=gen)
        click.echo(f"  [{gen}] contacts at the start: {c['total']} (paper: 12 per pair, 36); LCP sizes: Coulomb "
                   f"{c['coulomb_lcp']} (paper 216), no-slip {c['noslip_lcp']} (paper 36)")
    try:
        r = dg.reproduce_grasp(out_dir=out, trials=trials, steps=steps, echo=click.echo)
    except ValueError as exc:
        _fail(str(exc))
    for gen, ratios in r["speed_ratios"].items():
        for name, ratio in ratios.items():
            paper = "-" if ratio["paper"] is None else f"{ratio['paper']:.2f}"
            click.echo(f"  [{gen}] time ratio {name}: {ratio['timed']:.2f} ({dg.TIMED_STEPS} steps), "
                       f"{ratio['run']:.2f} ({steps} steps); paper {paper}")
    for kind, path in r["files"].items():
        click.echo(f"  wrote        {path} ({kind})")


@reproduce.command("drumwright-quadruped",
                   short_help="solo12 trotting on uneven terrain under four contact models (Drumwright 2015 Tables II-III).")
@click.option("--duration", type=click.FloatRange(min=0.0, min_open=True), default=10.0, show_default=True,
              help="Simulated time per model (s).")
@click.option("--out", "out", type=OUT_FOLDER, default=Path("soadyn-out"),
              show_default=True, help="Output folder.")
def reproduce_drumwright_quadruped(duration: float, out: Path):
    """Drumwright 2015 Sec. VII-B, Tables II-III: solo12 with foot spheres trotting on a height map of boxes at
    1 ms, stepped in Python under a trot controller, with Coulomb friction (Lemke) vs no-slip (modified PPM)
    and viscous friction solved by Lemke vs the modified PPM; prints run times, contact counts (min, max,
    mean), LCP sizes, PPM fallbacks, the distance walked and whether the robot fell in each model; writes
    CSV and JSON."""
    from .experiments import drumwright_quadruped as dq

    click.echo(f"Drumwright 2015 Tables II-III: solo12 trotting on uneven terrain, dt = {dq.DT:g} s, {duration:g} s "
               f"per model (paper: 416.3 s Coulomb, 301.8 s no-slip; 2936.4 s / 2139.7 s viscous Lemke / PPM)")
    try:
        r = dq.reproduce(out_dir=out, duration=duration, progress=True, echo=click.echo)
    except ValueError as exc:
        _fail(str(exc))
    for name, ratio in r["speedups"].items():
        click.echo(f"  speedup {name}: {ratio['measured']:.2f} (whole loop; steps alone {ratio['step']:.2f}; paper "
                   f"{ratio['paper']:.2f})")
    for name, ok in r["walks_without_falling"].items():
        click.echo(f"  {name:<14} {'walks forward without falling' if ok else 'FAILS: fell or did not walk forward'}")
    for kind, path in r["files"].items():
        click.echo(f"  wrote        {path} ({kind})")

@reproduce.command("all", short_help="Every table and figure of the four papers, with an index next to the papers' values.")
@click.option("--out", "out", type=click.Path(file_okay=False, path_type=Path), default=Path("soadyn-out"),
              show_default=True, help="Output folder (index.md, index.html, index.json and every result).")
@click.option("--quick", is_flag=True, help="The test suite's short runs: sizes and trends, not the timings.")
def reproduce_all_command(out: Path, quick: bool):
    """Run every reproduction (Jain 2014 Tables 1-2, Fig. 6; Jain 2012 Fig. 4, Table 1, Fig. 6; Chang-Khatib
    2000 Figs. 3 and 6; Drumwright 2015 Tables I-III) into OUT and write an index that sets each result next
    to the paper's values with a verdict and explains every difference."""
    from .experiments.reproduce_all import reproduce_all

    index = reproduce_all(out_dir=out, quick=quick, echo=click.echo)
    for kind, path in index["files"].items():
        click.echo(f"  wrote        {path} (index, {kind})")
    failed = [e["key"] for e in index["experiments"] if e["verdict"] == "failed"]
    if failed:
        _fail(f"experiments failed: {', '.join(failed)} (see {index['files']['md']})")


# ----------------------------------------------------------------------------------------------- warmup
def warmup_calls(model: soadyn.Model, rng=None) -> list:
    """``[(label, zero-argument callable)]`` calling every public function of soadyn once on ``model``
    (those present in this version): what ``soadyn warmup`` runs."""
    import importlib

    sd = soadyn
    rng = np.random.default_rng(rng)
    d = model.data()
    q = model.random_q(rng)
    qd, x = rng.normal(size=(2, model.nv))
    Q = np.array([model.random_q(rng) for _ in range(4)])
    V = rng.normal(size=(4, model.nv))
    frame = model.frame_names[-1]
    two = list(model.frame_names[-2:])
    calls = [
        ("fk", lambda: sd.fk(model, d, q, qd)),
        ("frame_pose", lambda: sd.frame_pose(model, d, q, frame)),
        ("frame_jacobian", lambda: (sd.frame_jacobian(model, d, q, frame),
                                    sd.frame_jacobian(model, d, q, frame, "world_aligned"))),
        ("frame_velocity", lambda: sd.frame_velocity(model, d, q, qd, frame)),
        ("frame_bias_acceleration", lambda: sd.frame_bias_acceleration(model, d, q, qd, frame)),
        ("rnea", lambda: sd.rnea(model, d, q, qd, x)),
        ("crba", lambda: sd.crba(model, d, q)),
        ("aba", lambda: sd.aba(model, d, q, qd, x)),
        ("minv", lambda: sd.minv(model, d, q)),
        ("rnea_batch", lambda: sd.rnea_batch(model, Q, V, V)),
        ("aba_batch", lambda: sd.aba_batch(model, Q, V, V)),
        ("integrate", lambda: sd.integrate(model, q, qd, 0.01)),
        ("difference", lambda: sd.difference(model, q, Q[0])),
    ]
    if hasattr(sd, "energy"):
        calls.append(("energy", lambda: sd.energy(model, d, q, qd)))
    if hasattr(sd, "Simulator"):
        def rollout():
            for integrator in ("semi_implicit", "rk4"):
                sim = sd.Simulator(model, dt=1e-3, integrator=integrator)
                traj = sim.rollout(q, qd, steps=3, progress=False)
                sim.step(q, qd)
            traj.frame_positions(model, frame)
        calls.append(("Simulator", rollout))
    try:
        osim = importlib.import_module("soadyn.osim")
    except ImportError:
        osim = None
    if osim is not None and hasattr(osim, "osim_inv"):
        calls.append(("osim_inv", lambda: [osim.osim_inv(model, d, q, two, method=m)
                                           for m in getattr(osim, "METHODS", ("jain",))]))
    try:
        control = importlib.import_module("soadyn.control")
    except ImportError:
        control = None
    if control is not None and hasattr(control, "OperationalSpaceController"):
        def controller():
            ctl = control.OperationalSpaceController(model, [control.Task(frame, "position")], damping=1e-6)
            ctl.hold(q)
            ctl.compute(q, qd)
        calls.append(("OperationalSpaceController", controller))
    if hasattr(sd, "lcp"):
        lcp_M = np.array([[4.0, 1.0, 0.0], [1.0, 3.0, 1.0], [-1.0, 1.0, 2.0]])
        lcp_q = np.array([-2.0, -1.0, 1.0])
        calls.append(("lcp", lambda: (sd.lcp.lemke(lcp_M, lcp_q), sd.lcp.solve_mlcp(lcp_M, lcp_q, 1),
                                      sd.lcp.pgs(lcp_M + lcp_M.T, lcp_q, 1, 1, 1, 0.5))))
        try:
            drumwright = importlib.import_module("soadyn.contact.drumwright")
        except ImportError:
            drumwright = None
        if drumwright is not None:
            W3, vf3, one = np.eye(3), np.array([-1.0, 2.0, 0.0]), np.ones(1)
            calls.append(("drumwright", lambda: (
                drumwright.noslip(W3, vf3), drumwright.noslip(W3, vf3, solver="lemke"),
                drumwright.viscous(W3, vf3, 0, one, 0.01), drumwright.coulomb(W3, vf3, 0, one),
                sd.lcp.ppm(lcp_M + lcp_M.T, lcp_q), sd.lcp.find_indices(lcp_M + lcp_M.T))))
    try:
        contact = importlib.import_module("soadyn.contact")
    except ImportError:
        contact = None
    if contact is not None and hasattr(contact, "collide"):  # one kernel signature for every model
        calls.append(("collide", lambda: contact.collide(model, d, q)))
        calls.append(("contact Simulator", _warmup_contact))
    calls.append(("loops", _warmup_loops))
    calls.append(("embedding", _warmup_embedding))
    return calls


def _warmup_embedding() -> None:
    """Constraint embedding kernels on the planar four bar: CE forward dynamics (and its stage loop), tree
    states and rollouts."""
    from . import embedding
    from ._kernels import stages
    from .models import initial_state, planar_four_bar

    model = planar_four_bar()
    state = initial_state(model)
    em = model.embed_loops(q_ref=state.q)
    x, xd = em.from_tree_state(state.q, state.qd)
    ed = em.data()
    embedding.forward_dynamics(em, ed, x, xd, state.tau(model))
    stages.ce_stage(0, 1, *embedding.ce_kernel_arguments(em, ed))  # the stage loop of the cost breakdown
    for integrator in ("rk4", "semi_implicit"):
        em.tree_trajectory(soadyn.Simulator(em, 1e-3, integrator=integrator).rollout(x, xd, steps=2))


def _warmup_contact() -> None:
    """The contact step kernel (each friction model and solver) on the 3-link pendulum scene of Jain 2014."""
    from .contact import ContactSettings
    from .models.pendulum import pendulum, pendulum_start

    model = pendulum(3, scene="jain2014")
    q0, qd0 = pendulum_start(model)
    for friction, solver in (("coulomb", "lemke"), ("coulomb", "pgs"), ("no_slip", "ppm"), ("viscous", "lemke")):
        settings = ContactSettings(friction=friction, solver=solver)
        soadyn.Simulator(model, 1e-3, contact=settings).rollout(q0, qd0, steps=2, progress=False)


def _warmup_loops() -> None:
    """Closed-chain kernels on the planar four bar: TA and KKT forward dynamics, constraint state,
    projection, and loop simulations with each error control."""
    from . import loops
    from ._kernels import stages
    from .models import initial_state, planar_four_bar

    model = planar_four_bar()
    d = model.data()
    state = initial_state(model)
    q, qd, tau = state.q, state.qd, state.tau(model)
    for method in loops.METHODS:
        loops.forward_dynamics(model, d, q, qd, tau, method=method, baumgarte=(1.0, 1.0))
    stages.ta_stage(0, 1, *loops.ta_kernel_arguments(model, d, q, qd, tau))  # the stage loop of the cost breakdown
    loops.constraint_state(model, d, q, qd)
    loops.project(model, d, q, qd)
    for stabilization in (None, "baumgarte", "projection"):
        try:
            sim = soadyn.Simulator(model, dt=1e-3, integrator="rk4", stabilization=stabilization)
        except TypeError:  # a Simulator without loop options
            return
        sim.rollout(q, qd, steps=2, tau=tau, progress=False)


@main.command(short_help="Compile (or load from the cache) every kernel once.")
def warmup():
    """Compile every kernel once (or load it from the cache) by calling every public function on a small
    tree with all joint types; prints the cache folder."""
    from numba.core import config

    model = soadyn.models.auto_tree(6, joint_mix=soadyn.models.ALL_JOINTS, seed=1, name="warmup")
    calls = warmup_calls(model, rng=0)
    from tqdm.auto import tqdm

    t0 = time.perf_counter()
    bar = tqdm(calls, desc="warmup", unit="function")
    failed = {}
    for label, fn in bar:
        bar.set_postfix_str(label)
        try:
            fn()
        except Exception as exc:  # keep compiling the others; reported below
            failed[label] = f"{type(exc).__name__}: {exc}"
    bar.close()
    entries = entry_kernels()
    missing = [k for k, disp in entries.items() if not disp.signatures]
    ready = len(entries) - len(missing)
    click.echo(f"{ready} kernels ready (compiled or loaded from the cache) in {time.perf_counter() - t0:.1f} s")
    click.echo(f"cache folder: {config.CACHE_DIR or '(numba default: __pycache__ next to the kernels)'}")
    if missing:
        click.echo(f"not exercised by warmup (compile on first use): {', '.join(missing)}")
    if failed:
        _fail("warmup calls failed: " + "; ".join(f"{k}: {v}" for k, v in failed.items()))


# ------------------------------------------------------------------------------------------------- info
@main.command(short_help="Print a model's sizes, joints and frames.")
@click.argument("model_spec", metavar="MODEL")
@click.option("--floating-base/--fixed-base", default=None,
              help="For robots and URDF files: attach the root by a free joint (default: the robot's usual "
                   "base; fixed for URDF files).")
def info(model_spec: str, floating_base):
    """Print a model's sizes, joints and frames.

    MODEL: a zoo model name[:args] (pendulum:12, auto_tree:10, auto_tree:5,branching=2), an
    example-robot-data robot (talos, ur5, panda, solo12, ...) or the path of a URDF file.
    """
    try:
        model = resolve_model(model_spec, floating_base)
    except (ValueError, FileNotFoundError) as exc:
        raise click.BadParameter(str(exc), param_hint="MODEL") from None
    from .joints import JOINT_TYPE_NAMES

    click.echo(f"model   {model.name}")
    click.echo(f"nq      {model.nq}")
    click.echo(f"nv      {model.nv}")
    click.echo(f"bodies  {model.nb}")
    click.echo(f"frames  {model.nf}")
    click.echo(f"mass    {float(np.sum(model.body_mass)):.6g} kg")
    click.echo(f"joints  {model.nb}")
    w = max([len(n) for n in model.jnt_names] + [4])
    click.echo(f"  {'#':>3}  {'name':<{w}}  {'type':<11}  {'nq':>2} {'nv':>2}  parent")
    for i in range(model.nb):
        p = int(model.body_parent[i])
        parent = "world" if p < 0 else model.body_names[p]
        click.echo(f"  {i:>3}  {model.jnt_names[i]:<{w}}  {JOINT_TYPE_NAMES[model.jnt_type[i]]:<11}  "
                   f"{int(model.jnt_nq[i]):>2} {int(model.jnt_nv[i]):>2}  {parent}")


# ------------------------------------------------------------------------------------------------ sweep
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
    from .sweeps import describe, run_config

    try:
        result = run_config(config, out=out, plot=plot, trajectories=trajectories, address=address,
                            num_cpus=num_cpus, serial=serial, progress=True)
    except (ValueError, ImportError) as exc:
        _fail(str(exc))
    for line in describe(result, "serial" if serial else "ray"):
        click.echo(line)


# ------------------------------------------------------------------------------------------------ bench
@main.group(short_help="Benchmarks against the peer library (soadyn bench dynamics ...).")
def bench():
    """Benchmarks against the peer library a user would pick instead (median over many calls after
    warm-up, with min-max spread). See benchmarks/README.md."""


def _bench_command(name: str, module: str):
    def command(json_path: Path | None, quick: bool):
        from . import bench as bench_pkg

        mod = bench_pkg.topic(name)
        info_ = bench_pkg.machine_info()
        click.echo(f"soadyn bench {name}{' --quick' if quick else ''}: {info_['cpu']}, {info_['cpus_available']} "
                   f"CPUs, numba {info_['numba']} ({info_['numba_threads']} threads), "
                   f"pinocchio {info_['pinocchio']}")
        t0 = time.perf_counter()
        try:
            result = mod.run(quick=quick, log=click.echo)
        except mod.BenchError as exc:
            _fail(str(exc))
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
    command = click.option("--quick", is_flag=True, help="Fewer repetitions and states (for tests).")(command)
    command = click.option("--json", "json_path", type=OUT_FILE, default=None,
                           help="Also write all numbers and machine info as JSON to this file.")(command)
    return bench.command(name, short_help=getattr(mod, "SUMMARY", None))(command)


def _register_bench_topics():
    from .bench import TOPICS

    for name, module in TOPICS.items():
        _bench_command(name, module)


_register_bench_topics()
_add_force_options(main)


if __name__ == "__main__":  # pragma: no cover
    main()
