"""``soadyn info MODEL``: a model's sizes, joints and frames."""

from __future__ import annotations

import click
import numpy as np

from .app import main
from .modelspec import resolve_model


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
    from ..joints import JOINT_TYPE_NAMES

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
