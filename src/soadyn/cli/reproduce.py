"""``soadyn reproduce ...``: the papers' tables and figures, each computed by its module of
:mod:`soadyn.experiments`; this module only wires and prints them."""

from __future__ import annotations

import math
from pathlib import Path

import click

from .app import OUT_FOLDER, fail, main


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
    from ..experiments import jain2012

    try:
        r = jain2012.reproduce_fig4(out_dir=out, duration=duration, dt=dt)
    except ValueError as exc:
        fail(str(exc))
    click.echo(f"Jain 2012 Fig. 4: FA vs TA, rk4, dt = {dt:g} s, {duration:g} s ({r['wall_time_s']:.1f} s)")
    for name, m in r["mechanisms"].items():
        click.echo(f"  {name:<21} {m['quantity']}: max |FA - TA| = {m['max_abs_difference']:.3e} "
                   f"(range {m['range'][0]:.4g} .. {m['range'][1]:.4g}); max |phi| TA {m['max_constraint_error']['ta']:.1e}, "
                   f"FA {m['max_constraint_error']['fa']:.1e}")
    for kind, path in r["files"].items():
        click.echo(f"  wrote        {path} ({kind})")


def _rover_rows(rows: list) -> None:
    from ..experiments.jain2012_rover import VARIANTS

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
    from ..experiments import jain2012_rover

    try:
        r = jain2012_rover.reproduce_table1(out_dir=out, duration=duration, dt=dt, baseline_dt=baseline_dt,
                                            progress=None)
    except ValueError as exc:
        fail(str(exc))
    b = r["baseline"]
    click.echo(f"Jain 2012 Table 1: LER rover, rk4, dt = {dt:g} s, {duration:g} s; baseline {b['variant']} at "
               f"dt = {b['dt']:g} s; wall clock normalized to {r['normalized_to']} ({r['wall_time_s']:.1f} s)")
    _rover_rows(r["rows"])
    for v, why in r["missing"].items():
        click.echo(f"  missing      {v}: {why}")
    files = dict(r["files"])
    if breakdown:
        from ..experiments import jain2012_breakdown

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
    from ..experiments import jain2012_rover

    try:
        r = jain2012_rover.reproduce_fig6(out_dir=out, duration=duration, budget_s=budget, baseline_dt=baseline_dt,
                                          progress=None)
    except ValueError as exc:
        fail(str(exc))
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
    from ..experiments import jain2014

    try:
        r = jain2014.reproduce_table2(out_dir=out, links=links or jain2014.TABLE2_LINKS, duration=duration,
                                      echo=click.echo)
    except ValueError as exc:
        fail(str(exc))
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
    from ..experiments import jain2014

    try:
        r = jain2014.reproduce_fig6(out_dir=out, n=links, duration=duration)
    except ValueError as exc:
        fail(str(exc))
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
    from ..experiments import jain2014_table1

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
    from ..experiments import drumwright_grasp as dg

    click.echo(f"Drumwright 2015 Table I: grasp, dt = {dg.DT:g} s, {trials} trials of {steps} steps")
    for gen in dg.CONTACTS:
        c = dg.pair_counts(contacts=gen)
        click.echo(f"  [{gen}] contacts at the start: {c['total']} (paper: 12 per pair, 36); LCP sizes: Coulomb "
                   f"{c['coulomb_lcp']} (paper 216), no-slip {c['noslip_lcp']} (paper 36)")
    try:
        r = dg.reproduce_grasp(out_dir=out, trials=trials, steps=steps, echo=click.echo)
    except ValueError as exc:
        fail(str(exc))
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
    from ..experiments import drumwright_quadruped as dq

    click.echo(f"Drumwright 2015 Tables II-III: solo12 trotting on uneven terrain, dt = {dq.DT:g} s, {duration:g} s "
               f"per model (paper: 416.3 s Coulomb, 301.8 s no-slip; 2936.4 s / 2139.7 s viscous Lemke / PPM)")
    try:
        r = dq.reproduce(out_dir=out, duration=duration, progress=True, echo=click.echo)
    except ValueError as exc:
        fail(str(exc))
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
    from ..experiments.reproduce_all import reproduce_all

    index = reproduce_all(out_dir=out, quick=quick, echo=click.echo)
    for kind, path in index["files"].items():
        click.echo(f"  wrote        {path} (index, {kind})")
    failed = [e["key"] for e in index["experiments"] if e["verdict"] == "failed"]
    if failed:
        fail(f"experiments failed: {', '.join(failed)} (see {index['files']['md']})")
