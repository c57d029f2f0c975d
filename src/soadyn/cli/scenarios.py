"""``soadyn run ...``: the papers' scenarios (operational space control of the humanoid, closed-chain mechanisms)."""

from __future__ import annotations

from pathlib import Path

import click

from .app import OUT_FOLDER, fail, main


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
    from ..experiments import osc_humanoid

    try:
        summary = osc_humanoid.run(scenario, duration=duration, dt=dt, out_dir=out)
    except ValueError as exc:
        fail(str(exc))
    click.echo(f"osc-humanoid {scenario}: {summary['steps']} steps of {dt:g} s in {summary['wall_time_s']:.2f} s "
               f"(control cycle {summary['control_cycle_us']:.0f} us)")
    for hand, err in summary["max_hand_error_m"].items():
        click.echo(f"  {hand:<11} max tracking error {err * 1e3:.3f} mm")
    lo, hi = summary["waist_pitch_range_rad"]
    click.echo(f"  waist pitch  {lo:.3f} .. {hi:.3f} rad")
    for kind, path in summary["files"].items():
        click.echo(f"  wrote        {path} ({kind})")


def _mechanism_names() -> list:
    from ..models.mechanisms import MECHANISMS

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
    from ..experiments import jain2012

    try:
        s = jain2012.run_mechanism(name, method, stabilization, duration=duration, dt=dt, integrator=integrator,
                                   out_dir=out)
    except ValueError as exc:
        fail(str(exc))
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


@run.command("trajopt", short_help="iLQR with the analytical step derivatives: a double pendulum swing-up and a "
                                   "planar arm pushing a box.")
@click.option("--task", type=click.Choice(["swing-up", "box-push", "all"]), default="all", show_default=True,
              help="Which optimization to run.")
@click.option("--duration", type=click.FloatRange(min=0.0, min_open=True), default=None,
              help="Horizon (s); default 2 (swing-up), 1 (box-push).")
@click.option("--dt", type=click.FloatRange(min=0.0, min_open=True), default=0.01, show_default=True,
              help="Time step (s).")
@click.option("--iterations", type=click.IntRange(min=1), default=None,
              help="Most iLQR iterations; default 100 (swing-up), 25 (box-push).")
@click.option("--out", "out", type=OUT_FOLDER, default=Path("soadyn-out"),
              show_default=True, help="Output folder.")
def run_trajopt(task: str, duration: float | None, dt: float, iterations: int | None, out: Path):
    """iLQR (Tassa et al. 2012): a double pendulum swung from hanging to upright (step Jacobians from
    soadyn.derivatives.aba_derivatives), and a two-link arm pushing a box on a table to a goal (the contact
    step's Jacobians from soadyn.step_derivatives); writes the cost per iteration and the trajectory."""
    from ..experiments import box_push, trajopt

    if task in ("swing-up", "all"):
        s = trajopt.run(out, duration=duration or 2.0, dt=dt, iterations=iterations or 100)
        click.echo(f"trajopt swing-up: {s['iterations']} iterations in {s['wall_time_s']:.2f} s, cost "
                   f"{s['costs'][0]:.4g} -> {s['costs'][-1]:.4g} (converged: {s['converged']})")
        click.echo(f"  final state {', '.join(f'{x:.4f}' for x in s['final_state'])} (goal pi, 0, 0, 0)")
        for kind, path in s["files"].items():
            click.echo(f"  wrote        {path} ({kind})")
    if task in ("box-push", "all"):
        s = box_push.run(out, duration=duration or 1.0, dt=dt, iterations=iterations or 25)
        click.echo(f"trajopt box-push: {s['iterations']} iterations in {s['wall_time_s']:.2f} s, cost "
                   f"{s['costs'][0]:.4g} -> {s['costs'][-1]:.4g}; box {s['final_error_xy_m'] * 1e3:.2f} mm and "
                   f"{s['final_heading_error_rad']:.4f} rad from the goal, speed {s['final_box_speed']:.3g}")
        for kind, path in s["files"].items():
            click.echo(f"  wrote        {path} ({kind})")
