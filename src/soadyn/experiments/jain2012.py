"""The closed-chain mechanisms of Jain, Crean, Kuo and Quadrelli 2012 (Sec. 4, Figs. 3-4) simulated by the
tree-augmented (TA) and the fully augmented (FA) methods, both with the accelerations of Lemma 2.

``ta``: the mechanism's tree model (the spanning tree) with its cut joints as loop constraints, driven by a
steady torque on its driving joint. ``fa``: every body a free body (:meth:`soadyn.Model.fully_augmented`),
every hinge a loop constraint, started from the FA image of the same initial state
(:func:`soadyn.augmented.fa_state`) and driven by the equivalent body force on the crank
(:func:`soadyn.augmented.fa_forces`; constant because the driving joint connects the crank to the ground).
Both are stepped by :class:`soadyn.Simulator` (one kernel call per run). The runs are compared through the
world positions of the mechanism's named frames, which both models carry under the same names.

:func:`run_mechanism` is ``soadyn run mechanism NAME``; :func:`reproduce_fig4` is ``soadyn reproduce
jain2012-fig4`` (FA and TA overlaid: an angle of the planar four bar and the slider position of the spatial
crank slider, RK4 at 0.1 ms).
"""

from __future__ import annotations

import csv
import dataclasses
import json
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ..model import Model
from ..sim import Simulator, Trajectory

METHODS = ("ta", "fa")
"""``ta``: the tree with its cut joints as loops; ``fa``: the fully augmented model (all bodies free)."""
STABILIZATIONS = ("none", "baumgarte", "projection")
"""Constraint error control choices of :func:`simulate` (``"none"``: no control)."""
FIG4_DT = 1e-4
"""Step of Jain 2012 Fig. 4 (0.1 ms, RK4)."""
FIG4_DURATION = 2.0
"""Simulated time of the Fig. 4 reproduction (s); the paper does not state it."""
MOVING = 1e-9
"""A frame coordinate whose range over a run is below this (m) is left out of the FA plot (it stays put)."""
FIG4_SERIES = {
    "planar_four_bar": ("rocker angle (rad)", "rocker", "rocker_end"),
    "spatial_crank_slider": ("slider position x (m)", "slider", None),
}
"""Fig. 4 series: mechanism -> (label, frame, second frame). With two frames, the angle in the world x-y
plane of the segment from the first to the second (the rocker's joint angle, unwrapped); with one, the world
x of the frame (the slider's position along its rail, which runs along world x through x = 0)."""


def mechanism_names() -> tuple:
    """The five mechanisms of Jain 2012 Sec. 4 (:data:`soadyn.models.mechanisms.MECHANISMS`)."""
    from ..models.mechanisms import MECHANISMS

    return tuple(MECHANISMS)


def with_gravity(model: Model, gravity) -> Model:
    """``model`` with another gravity vector (e.g. zero for a work-energy check)."""
    g = np.array(gravity, dtype=np.float64).reshape(3)
    if not np.all(np.isfinite(g)):
        raise ValueError(f"gravity: expected a finite 3-vector, got {gravity!r}")
    g.setflags(write=False)
    return dataclasses.replace(model, gravity=g)


@dataclass
class MechanismRun:
    """One simulated run. ``model``: the tree (TA) model; ``sim_model``: the model simulated (the tree, or
    its FA model); ``traj``: the trajectory of ``sim_model``; ``frames``: the tree model's frame names and
    ``positions`` (K, nframes, 3) their world positions over time; ``tau``: the driving joint forces of the
    tree model (the FA run is driven by the equivalent body forces ``f_ext``)."""

    name: str
    method: str
    stabilization: str
    model: Model
    sim_model: Model
    traj: Trajectory
    frames: tuple
    positions: np.ndarray
    driver: str
    torque: float
    tau: np.ndarray
    f_ext: np.ndarray | None

    def series(self, frame: str, frame2: str | None = None) -> np.ndarray:
        """World x of ``frame`` over time or, with ``frame2``, the unwrapped angle in the x-y plane of the
        segment ``frame -> frame2``."""
        P = self.positions[:, self.frames.index(frame)]
        if frame2 is None:
            return P[:, 0].copy()
        d = self.positions[:, self.frames.index(frame2)] - P
        return np.unwrap(np.arctan2(d[:, 1], d[:, 0]))


def _check(name: str, method: str, stabilization) -> str:
    names = mechanism_names()
    if name not in names:
        raise ValueError(f"name: unknown mechanism {name!r}; expected one of {names}")
    if method not in METHODS:
        raise ValueError(f"method: expected one of {METHODS}, got {method!r}")
    stabilization = "none" if stabilization is None else stabilization
    if stabilization not in STABILIZATIONS:
        raise ValueError(f"stabilization: expected one of {STABILIZATIONS}, got {stabilization!r}")
    return stabilization


def simulate(name: str, method: str = "ta", stabilization=None, duration: float = 2.0, dt: float = FIG4_DT,
             integrator: str = "rk4", gravity=None, torque: float | None = None, baumgarte=None,
             progress: bool | None = False) -> MechanismRun:
    """Simulate mechanism ``name`` from its consistent initial state
    (:func:`soadyn.models.mechanisms.initial_state`: assembled, at rest) under its steady driving torque
    (or ``torque``), by the ``method`` ``"ta"`` or ``"fa"``. ``gravity``: None (the mechanism's own) or a
    3-vector. Returns the :class:`MechanismRun`; a failure raises :class:`soadyn.sim.SimulationError`."""
    from ..augmented import fa_forces, fa_state
    from ..models.mechanisms import MECHANISMS, initial_state

    stabilization = _check(name, method, stabilization)
    model = MECHANISMS[name]()
    if gravity is not None:
        model = with_gravity(model, gravity)
    state = initial_state(model)
    torque = state.torque if torque is None else float(torque)
    state = dataclasses.replace(state, torque=torque)
    tau = state.tau(model)
    stab = None if stabilization == "none" else stabilization
    f_ext = None
    if method == "ta":
        sim_model, q0, qd0 = model, state.q, state.qd
    else:
        if model.body_parent[model.joint_id(state.driver)] >= 0:
            raise ValueError(f"{name}: the driving joint {state.driver!r} does not connect a body to the ground, "
                             "so its FA body forces change with the configuration")
        sim_model = model.fully_augmented()
        q0, qd0 = fa_state(model, sim_model, state.q, state.qd)
        f_ext = fa_forces(model, state.q, tau)
    sim = Simulator(sim_model, dt, integrator, stabilization=stab, baumgarte=baumgarte)
    if method == "ta":
        traj = sim.rollout(q0, qd0, duration=duration, tau=tau, progress=progress)
    else:
        traj = sim.rollout(q0, qd0, duration=duration, f_ext=f_ext, progress=progress)
    frames = tuple(model.frame_names)
    positions = traj.frame_positions(sim_model, list(frames))
    traj.stats.update({"mechanism": name, "method": method, "driver": state.driver, "torque": torque})
    return MechanismRun(name, method, stabilization, model, sim_model, traj, frames, positions, state.driver,
                        torque, tau, f_ext)


def driver_angle(run: MechanismRun) -> np.ndarray:
    """The driving joint's angle over time, relative to its initial value (rad): the TA coordinate, or for
    an FA run the rotation of the crank's orientation about the joint axis, ``R_0^T R(t) = Rot(a, theta)``
    (``a`` the axis in the crank's frame), unwrapped."""
    model = run.model
    j = model.joint_id(run.driver)
    if run.method == "ta":
        theta = run.traj.q[:, model.jnt_qadr[j]]
        return theta - theta[0]
    from ..spatial import quat_to_rot

    a = np.asarray(model.dof_S[model.jnt_vadr[j], :3], dtype=float)
    k = run.sim_model.jnt_qadr[run.sim_model.joint_id(f"{model.body_names[j]}_free")]
    R0 = quat_to_rot(run.traj.q[0, k + 3:k + 7])
    out = np.empty(len(run.traj))
    for s, q in enumerate(run.traj.q):
        Rrel = R0.T @ quat_to_rot(q[k + 3:k + 7])
        vee = 0.5 * np.array([Rrel[2, 1] - Rrel[1, 2], Rrel[0, 2] - Rrel[2, 0], Rrel[1, 0] - Rrel[0, 1]])
        out[s] = np.arctan2(a @ vee, 0.5 * (np.trace(Rrel) - 1.0))
    return np.unwrap(out)


def driver_work(run: MechanismRun) -> np.ndarray:
    """Work (J) done by the steady driving torque up to each state: ``torque (theta(t) - theta(0))``."""
    return run.torque * driver_angle(run)


# ---------------------------------------------------------------------------------------------- outputs
def _plot_run(path, run: MechanismRun) -> Path:
    from ..viz.plots import new_figure, plot_columns, save_figure

    traj = run.traj
    fig, axes = new_figure(2, f"{run.name}, {run.method.upper()} ({traj.stats['integrator']}, dt = "
                              f"{traj.stats['dt']:g} s, stabilization: {run.stabilization})")
    if run.method == "ta":
        model = run.model
        labels = []
        for i in range(model.nb):
            for k in range(model.jnt_nq[i]):
                labels.append(model.jnt_names[i] + (f"[{k}]" if model.jnt_nq[i] > 1 else ""))
        plot_columns(axes[0], traj.t, traj.q, labels, "generalized coordinates q")
    else:  # the world coordinates of the mechanism's frames that move (body origins and named points)
        cols, labels = [], []
        for j, f in enumerate(run.frames):
            for c, ax in enumerate("xyz"):
                x = run.positions[:, j, c]
                if np.ptp(x) > MOVING:
                    cols.append(x)
                    labels.append(f"{f} {ax}")
        plot_columns(axes[0], traj.t, np.column_stack(cols) if cols else run.positions[:, 0, :], labels or None,
                     "frame positions (m)")
    axes[1].semilogy(traj.t, np.maximum(traj.constraint_error, 1e-18), lw=1.0, label="max |phi|")
    axes[1].semilogy(traj.t, np.maximum(traj.constraint_velocity_error, 1e-18), lw=1.0, label="max |G qd|")
    axes[1].set_ylabel("constraint error")
    axes[1].legend(fontsize="x-small")
    axes[1].grid(True, alpha=0.3)
    return save_figure(fig, path)


def run_mechanism(name: str, method: str = "ta", stabilization=None, duration: float = 2.0, dt: float = FIG4_DT,
                  integrator: str = "rk4", out_dir="soadyn-out", progress: bool | None = None) -> dict:
    """Simulate one mechanism (:func:`simulate`) and write ``<name>-<method>.npz`` (the Trajectory),
    ``<name>-<method>.png`` (coordinates, or body origins for FA, and the constraint errors) and
    ``<name>-<method>-summary.json`` into ``out_dir``; returns the summary."""
    t0 = time.perf_counter()
    run = simulate(name, method, stabilization, duration=duration, dt=dt, integrator=integrator, progress=progress)
    wall = time.perf_counter() - t0
    traj = run.traj
    s = traj.stats
    E = traj.energy[:, 2]
    work = driver_work(run)
    summary = {
        "mechanism": name, "method": method, "stabilization": run.stabilization, "integrator": integrator,
        "dt": dt, "duration": s["duration"], "steps": s["steps"], "nq": s["nq"], "nv": s["nv"], "nc": s["nc"],
        "driver": run.driver, "torque": run.torque, "kernel_time_s": s["wall_time_s"],
        "steps_per_second": s["steps_per_second"], "wall_time_s": wall,
        "max_constraint_error": s["max_constraint_error"], "final_constraint_error": s["final_constraint_error"],
        "max_constraint_velocity_error": s["max_constraint_velocity_error"],
        "projection_iterations_max": s["projection_iterations_max"], "singular_steps": s["singular_steps"],
        "driver_angle_change_rad": float(driver_angle(run)[-1]),
        "driver_work_J": float(work[-1]), "energy_change_J": float(E[-1] - E[0]),
        "work_energy_residual_J": float((E[-1] - E[0]) - work[-1]),
    }
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    stem = out / f"{name}-{method}"
    summary["files"] = {"trajectory": str(traj.save(f"{stem}.npz")), "plot": str(_plot_run(f"{stem}.png", run))}
    Path(f"{stem}-summary.json").write_text(json.dumps(summary, indent=2) + "\n")
    summary["files"]["summary"] = f"{stem}-summary.json"
    return summary


def reproduce_fig4(out_dir="soadyn-out", duration: float = FIG4_DURATION, dt: float = FIG4_DT,
                   integrator: str = "rk4", progress: bool | None = None) -> dict:
    """Jain 2012 Fig. 4: FA and TA trajectories overlaid, the rocker angle of the planar four bar and the
    slider position of the spatial crank slider (:data:`FIG4_SERIES`), RK4 at 0.1 ms, without constraint
    error control (as plotted in the paper). Writes ``jain2012-fig4.png``, ``jain2012-fig4.csv`` (the
    plotted series) and ``jain2012-fig4.json`` (settings, max FA-TA differences, constraint errors) into
    ``out_dir``; returns the JSON content."""
    t_all = time.perf_counter()
    series = {}
    t = None
    result = {"figure": "Jain et al. 2012, Fig. 4", "integrator": integrator, "dt": dt, "duration": duration,
              "stabilization": "none", "mechanisms": {}}
    for name, (label, f1, f2) in FIG4_SERIES.items():
        runs = {m: simulate(name, m, None, duration=duration, dt=dt, integrator=integrator, progress=progress)
                for m in ("fa", "ta")}
        t = runs["ta"].traj.t
        ys = {m: runs[m].series(f1, f2) for m in runs}
        frames_diff = float(np.abs(runs["fa"].positions - runs["ta"].positions).max())
        series[name] = ys
        result["mechanisms"][name] = {
            "quantity": label,
            "max_abs_difference": float(np.abs(ys["fa"] - ys["ta"]).max()),
            "range": [float(ys["ta"].min()), float(ys["ta"].max())],
            "max_frame_position_difference_m": frames_diff,
            "max_constraint_error": {m: float(runs[m].traj.constraint_error.max()) for m in runs},
            "steps_per_second": {m: float(runs[m].traj.stats["steps_per_second"]) for m in runs},
            "nc": {m: int(runs[m].sim_model.nc) for m in runs},
            "nv": {m: int(runs[m].sim_model.nv) for m in runs},
        }
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    stem = out / "jain2012-fig4"
    names = list(FIG4_SERIES)
    with open(f"{stem}.csv", "w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(["t"] + [f"{n}_{m}" for n in names for m in ("ta", "fa")])
        for k in range(len(t)):
            w.writerow([repr(float(t[k]))] + [repr(float(series[n][m][k])) for n in names for m in ("ta", "fa")])
    result["wall_time_s"] = time.perf_counter() - t_all
    result["files"] = {"plot": str(_plot_fig4(f"{stem}.png", t, series, result)), "series": f"{stem}.csv",
                       "summary": f"{stem}.json"}
    Path(f"{stem}.json").write_text(json.dumps(result, indent=2) + "\n")
    return result


def _plot_fig4(path, t, series: dict, result: dict) -> Path:
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    from ..viz.plots import save_figure

    fig = Figure(figsize=(11.0, 3.8), dpi=110, layout="constrained")
    FigureCanvasAgg(fig)
    axes = fig.subplots(1, len(series), squeeze=False)[0]
    for ax, (name, ys) in zip(axes, series.items()):
        info = result["mechanisms"][name]
        ax.plot(t, ys["fa"], "C0-", lw=2.5, alpha=0.6, label="FA")
        ax.plot(t, ys["ta"], "C3--", lw=1.2, label="TA")
        ax.set_title(f"{name.replace('_', ' ')} (max |FA - TA| = {info['max_abs_difference']:.1e})",
                     fontsize="medium")
        ax.set_xlabel("time (s)")
        ax.set_ylabel(info["quantity"])
        ax.legend(fontsize="small")
        ax.grid(True, alpha=0.3)
    fig.suptitle(f"Jain 2012 Fig. 4: FA and TA ({result['integrator']}, dt = {result['dt']:g} s)")
    return save_figure(fig, path)
