"""Time-series plots written as PNG files.

Figures are drawn with matplotlib's object API on an Agg canvas (no pyplot, no global backend switch,
no display needed); matplotlib is imported inside the functions, never when soadyn is imported.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

QUANTITIES = ("energy", "energy_drift", "q", "qd")
"""Panels :func:`trajectory_figure` can draw besides frame heights."""
MAX_COLUMNS = 12
"""Generic column panels label at most this many lines (the rest are drawn unlabelled)."""
PANEL_SIZE = (8.0, 2.6)
"""Width and height of one panel (inches)."""
DPI = 110


def new_figure(nrows: int, title: str | None = None):
    """A matplotlib Figure with ``nrows`` stacked axes sharing the time axis, on an Agg canvas.
    Returns ``(fig, axes)``."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    nrows = max(1, int(nrows))
    fig = Figure(figsize=(PANEL_SIZE[0], PANEL_SIZE[1] * nrows + 0.4), dpi=DPI, layout="constrained")
    FigureCanvasAgg(fig)
    axes = fig.subplots(nrows, 1, sharex=True, squeeze=False)[:, 0]
    if title:
        fig.suptitle(title)
    axes[-1].set_xlabel("time (s)")
    return fig, list(axes)


def save_figure(fig, path) -> Path:
    """Write ``fig`` as a PNG (``.png`` appended when missing; folders created). Returns the path."""
    path = Path(path)
    if path.suffix.lower() != ".png":
        path = path.with_name(path.name + ".png")
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, format="png")
    return path


def plot_columns(ax, t, Y, labels=None, ylabel: str | None = None, title: str | None = None) -> None:
    """Columns of ``Y`` (K,) or (K, n) against ``t`` (K,)."""
    t = np.asarray(t, dtype=float)
    Y = np.asarray(Y, dtype=float)
    if Y.ndim == 1:
        Y = Y[:, None]
    if Y.shape[0] != t.shape[0]:
        raise ValueError(f"Y: {Y.shape[0]} rows for {t.shape[0]} times")
    labels = list(labels) if labels is not None else [str(k) for k in range(Y.shape[1])]
    for k in range(Y.shape[1]):
        ax.plot(t, Y[:, k], lw=1.0, label=labels[k] if k < MAX_COLUMNS and k < len(labels) else None)
    if ylabel:
        ax.set_ylabel(ylabel)
    if title:
        ax.set_title(title, fontsize="medium")
    if 1 < Y.shape[1] or labels:
        ax.legend(fontsize="x-small", ncol=min(6, max(1, min(Y.shape[1], MAX_COLUMNS))), loc="best")
    ax.grid(True, alpha=0.3)


def plot_energy(ax, t, energy, drift: bool = False) -> None:
    """Kinetic, potential and total energy (``energy`` (K, 3)); with ``drift``, the total energy error
    ``E(t) - E(0)`` instead."""
    energy = np.asarray(energy, dtype=float)
    if drift:
        plot_columns(ax, t, energy[:, 2] - energy[0, 2], ["E - E(0)"], "energy drift (J)")
    else:
        plot_columns(ax, t, energy, ["kinetic", "potential", "total"], "energy (J)")


def plot_heights(ax, t, positions: dict) -> None:
    """Heights (world z) of frames: ``positions`` maps a frame name to its (K, 3) world positions."""
    names = list(positions)
    Z = np.column_stack([np.asarray(positions[n], dtype=float)[:, 2] for n in names]) if names else None
    if Z is not None:
        plot_columns(ax, t, Z, names, "height z (m)")


def trajectory_figure(traj, path=None, model=None, frames=(), quantities=("energy",)) -> Path:
    """The PNG of :meth:`soadyn.Trajectory.plot`: one panel per entry of ``quantities``
    (:data:`QUANTITIES`) and, when ``frames`` are given, one panel of their heights (needs ``model``).
    Default path: ``<model_name>.png``. Returns the path written."""
    if isinstance(quantities, str):
        quantities = (quantities,)
    quantities = tuple(quantities)
    bad = [x for x in quantities if x not in QUANTITIES]
    if bad:
        raise ValueError(f"quantities: unknown {bad}; available: {QUANTITIES}")
    if isinstance(frames, (str, int, np.integer)):
        frames = (frames,)
    frames = tuple(frames)
    if frames and model is None:
        raise ValueError("model: needed to plot frames")
    if not quantities and not frames:
        raise ValueError("quantities, frames: nothing to plot")
    positions = {}
    if frames:
        P = traj.frame_positions(model, list(frames))
        for j, f in enumerate(frames):
            positions[model.frame_names[model.frame_id(f)]] = P[:, j]
    stats = traj.stats or {}
    title = traj.model_name or "trajectory"
    if "integrator" in stats and "dt" in stats:
        title += f" ({stats['integrator']}, dt = {stats['dt']:g} s)"
    fig, axes = new_figure(len(quantities) + (1 if frames else 0), title)
    for ax, name in zip(axes, quantities):
        if name in ("energy", "energy_drift"):
            plot_energy(ax, traj.t, traj.energy, drift=name == "energy_drift")
        elif name == "q":
            plot_columns(ax, traj.t, traj.q, [f"q{k}" for k in range(traj.q.shape[1])], "q")
        else:
            plot_columns(ax, traj.t, traj.qd, [f"qd{k}" for k in range(traj.qd.shape[1])], "qd")
    if frames:
        plot_heights(axes[-1], traj.t, positions)
    if path is None:
        path = f"{traj.model_name or 'trajectory'}.png"
    return save_figure(fig, path)


def columns_figure(path, t, columns: dict, title: str | None = None, ylabel: str | None = None,
                   separate: bool = False) -> Path:
    """A PNG of named time series: ``columns`` maps a label to a (K,) or (K, n) array over ``t`` (K,).
    All in one panel, or one panel each with ``separate``. Returns the path written."""
    if not columns:
        raise ValueError("columns: nothing to plot")
    names = list(columns)
    fig, axes = new_figure(len(names) if separate else 1, title)
    if separate:
        for ax, n in zip(axes, names):
            Y = np.asarray(columns[n], dtype=float)
            labels = [n] if Y.ndim == 1 else [f"{n}[{k}]" for k in range(Y.shape[1])]
            plot_columns(ax, t, Y, labels, ylabel or n)
    else:
        Ys, labels = [], []
        for n in names:
            Y = np.asarray(columns[n], dtype=float)
            Y = Y[:, None] if Y.ndim == 1 else Y
            Ys.append(Y)
            labels += [n] if Y.shape[1] == 1 else [f"{n}[{k}]" for k in range(Y.shape[1])]
        plot_columns(axes[0], t, np.hstack(Ys), labels, ylabel)
    return save_figure(fig, path)
