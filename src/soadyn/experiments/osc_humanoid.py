"""Task/posture control of the 24-link humanoid (Chang-Khatib 2000, Figs. 3 and 6), simulated with ABA.

``hold-hands`` (Fig. 3): both hands hold their positions while the posture target rocks the torso back and
forth; the rocking happens in the null space of the hand tasks. ``touch-floor`` (Fig. 6): the left hand
reaches down to the floor along a minimum-jerk path while the right hand holds its position and
orientation and the initial posture is advised.
"""

from __future__ import annotations

import json
import time
from pathlib import Path

import numpy as np

from ..control import OperationalSpaceController, Task
from ..models.humanoid import humanoid24, humanoid24_posture
from ..sim import Simulator, Trajectory

SCENARIOS = ("hold-hands", "touch-floor")
HANDS = ("left_hand", "right_hand")
ROCK_AMPLITUDE = 0.35  # rad, waist pitch posture oscillation (hold-hands)
ROCK_FREQUENCY = 0.5  # Hz
REACH_TIME = 2.5  # s, duration of the left hand's reach (touch-floor)
FLOOR_TARGET_HEIGHT = 0.02  # m, finger tips just above the floor
TOUCH_DAMPING = 1e-3  # singularity-robust damping of Lambda^-1 (its eigenvalues are ~1e-2 here)


def _min_jerk(s: float) -> tuple[float, float, float]:
    """Position, velocity and acceleration factors of the minimum-jerk profile at ``s = t / T``."""
    s = min(max(s, 0.0), 1.0)
    return 10 * s**3 - 15 * s**4 + 6 * s**5, 30 * s**2 - 60 * s**3 + 30 * s**4, 60 * s - 180 * s**2 + 120 * s**3


def run(scenario: str, duration: float = 4.0, dt: float = 1e-3, out_dir="soadyn-out", progress: bool = True) -> dict:
    """Simulate one scenario (semi-implicit Euler at ``dt``, the controller evaluated every step). Writes
    ``osc-humanoid-<scenario>.npz`` (the Trajectory), ``...-tasks.npz`` (hand positions and targets),
    ``...-summary.json`` and two PNGs into ``out_dir``; returns the summary."""
    if scenario not in SCENARIOS:
        raise ValueError(f"scenario: expected one of {SCENARIOS}, got {scenario!r}")
    model = humanoid24()
    q0 = humanoid24_posture(model)
    if scenario == "hold-hands":
        tasks = [Task("left_hand", "position", 400.0), Task("right_hand", "position", 400.0)]
    else:
        tasks = [Task("left_hand", "position", 100.0), Task("right_hand", "pose", 200.0)]
    # reaching to the floor passes near stretched (singular) configurations: damp Lambda there
    ctl = OperationalSpaceController(model, tasks, posture_kp=25.0, damping=TOUCH_DAMPING if scenario == "touch-floor" else 0.0)
    ctl.hold(q0)
    start = ctl.target_p[0].copy()
    floor = np.array([start[0] + 0.15, start[1], FLOOR_TARGET_HEIGHT])
    waist = model.jnt_qadr[model.joint_id("waist_pitch")]
    sim = Simulator(model, dt, "semi_implicit")
    steps = int(round(duration / dt))
    Q = np.empty((steps + 1, model.nq))
    QD = np.empty((steps + 1, model.nv))
    P = np.empty((steps + 1, 2, 3))
    target = np.empty((steps + 1, 2, 3))
    Q[0], QD[0] = q0, 0.0
    bar = None
    if progress:
        from tqdm import tqdm

        bar = tqdm(total=steps, desc=f"osc-humanoid {scenario}", unit="step", mininterval=0.5)
    t0 = time.perf_counter()
    control_time = 0.0
    for n in range(steps + 1):
        t = n * dt
        if scenario == "hold-hands":
            w = 2 * np.pi * ROCK_FREQUENCY
            ctl.q_posture[waist] = q0[waist] + ROCK_AMPLITUDE * np.sin(w * t)
        else:
            s, ds, dds = _min_jerk(t / REACH_TIME)
            d = floor - start
            ctl.set_target("left_hand", position=start + s * d, velocity=np.r_[0, 0, 0, ds * d / REACH_TIME],
                           acceleration=np.r_[0, 0, 0, dds * d / REACH_TIME**2])
        c0 = time.perf_counter()
        tau = ctl.compute(Q[n], QD[n])
        control_time += time.perf_counter() - c0
        P[n] = ctl.frame_p  # tasks are ordered (left_hand, right_hand)
        target[n] = ctl.target_p[[0, 1]]
        if n < steps:
            Q[n + 1], QD[n + 1] = sim.step(Q[n], QD[n], tau)
            if bar is not None:
                bar.update(1)
    if bar is not None:
        bar.close()
    wall = time.perf_counter() - t0
    tt = np.arange(steps + 1) * dt
    err = np.linalg.norm(P - target, axis=2)
    summary = {
        "scenario": scenario, "model": model.name, "nv": model.nv, "dt": dt, "duration": duration, "steps": steps,
        "wall_time_s": wall, "control_cycle_us": control_time / (steps + 1) * 1e6,
        "max_hand_error_m": {h: float(err[:, k].max()) for k, h in enumerate(HANDS)},
        "final_left_hand": P[-1, 0].tolist(),
        "waist_pitch_range_rad": [float(Q[:, waist].min()), float(Q[:, waist].max())],
    }
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    stem = out / f"osc-humanoid-{scenario}"
    traj = Trajectory.from_states(model, tt, Q, QD, stats=summary)
    summary["files"] = {
        "trajectory": str(traj.save(f"{stem}.npz")),
        "tasks": str(_save_tasks(f"{stem}-tasks.npz", tt, P, target)),
        "plot": str(_plot_tasks(f"{stem}.png", scenario, tt, P, target, Q[:, waist])),
        "snapshots": str(_plot_snapshots(f"{stem}-snapshots.png", model, traj, scenario)),
    }
    Path(f"{stem}-summary.json").write_text(json.dumps(summary, indent=2))
    summary["files"]["summary"] = f"{stem}-summary.json"
    return summary


def _save_tasks(path, t, P, target) -> Path:
    np.savez(path, t=t, hands=np.array(HANDS), position=P, target=target)
    return Path(path)


def _plot_tasks(path, scenario, t, P, target, waist) -> Path:
    from ..viz.plots import new_figure, save_figure

    fig, axes = new_figure(3, f"humanoid24, {scenario}")
    for k, h in enumerate(HANDS):
        for c, (axis, style) in enumerate(zip("xyz", ("C0", "C1", "C2"))):
            axes[0].plot(t, P[:, k, c], style, ls="-" if k == 0 else "--", label=f"{h} {axis}")
    axes[0].set_ylabel("hand position (m)")
    axes[0].legend(ncol=3, fontsize=7)
    for k, h in enumerate(HANDS):
        axes[1].semilogy(t, np.maximum(np.linalg.norm(P[:, k] - target[:, k], axis=1), 1e-12), label=h)
    axes[1].set_ylabel("tracking error (m)")
    axes[1].legend(fontsize=7)
    axes[2].plot(t, waist)
    axes[2].set_ylabel("waist pitch (rad)")
    axes[2].set_xlabel("t (s)")
    return save_figure(fig, path)


def _plot_snapshots(path, model, traj: Trajectory, scenario: str, count: int = 6) -> Path:
    """Side views (x-z) of the stick figure at ``count`` instants, as in Chang-Khatib Fig. 6."""
    from ..viz.plots import save_figure
    import matplotlib.pyplot as plt

    names = list(model.body_names) + list(HANDS)
    X = traj.frame_positions(model, names)
    parent = list(model.body_parent) + [model.body_id("l_elbow"), model.body_id("r_elbow")]
    idx = np.linspace(0, len(traj) - 1, count).astype(int)
    fig, axes = plt.subplots(1, count, figsize=(2.2 * count, 3.2), sharey=True)
    for ax, k in zip(axes, idx):
        for i, p in enumerate(parent):
            if p >= 0:
                ax.plot([X[k, p, 0], X[k, i, 0]], [X[k, p, 2], X[k, i, 2]], "k-", lw=1.5)
        ax.plot(X[k, -2:, 0], X[k, -2:, 2], "ro", ms=4)
        ax.axhline(0.0, color="0.6", lw=1)
        ax.set_title(f"t = {traj.t[k]:.2f} s", fontsize=8)
        ax.set_aspect("equal")
        ax.set_xlim(-0.6, 0.9)
    axes[0].set_ylim(-0.1, 1.9)
    fig.suptitle(f"humanoid24, {scenario} (side view)")
    return save_figure(fig, path)
