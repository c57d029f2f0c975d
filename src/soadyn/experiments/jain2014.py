"""The multi-link pendulum of Jain 2014 Sec. 8 with contact and collisions: OS vs NMC/OS (Table 2, Fig. 6) and
the demo scene.

``os``: the pendulum's tree model in minimal coordinates, stepped by the OS formulation (Eq. 53; LCP size
``n_u (n_f + 2)``, independent of the number of links). ``nmc_os``: the fully augmented model (every link a
free body, every hinge 5 bilateral rows, :meth:`soadyn.Model.fully_augmented`) stepped by the same OS kernel
(Sec. 8: the OS form with the non-minimal coordinate compliance; LCP size ``n_b + n_u (n_f + 2)``,
``n_b = 5 n``), started from the FA image of the same initial state. Both: 1 ms steps, friction 0.5,
restitution 0.5, 4 pyramid directions, 5 s (:func:`soadyn.models.pendulum` with ``scene="jain2014"``).
"""

from __future__ import annotations

import csv
import json
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ..augmented import fa_state
from ..contact.settings import ContactSettings
from ..dynamics import frame_velocity
from ..model import Model
from ..models.pendulum import pendulum, pendulum_start
from ..sim import Simulator, Trajectory

FORMULATIONS = ("os", "nmc_os")
TABLE2_LINKS = (3, 6, 12, 15, 24, 30)
"""Pendulum sizes of Jain 2014 Table 2."""
PAPER_TABLE2 = {  # n: (OS, NMC/OS, NMC LCP sizes at 4 contacts and n_f = 4; OS s, NMC/OS s, speedup)
    3: (24, 39, 57, 0.63, 2.20, 3.5), 6: (24, 54, 90, 1.0, 4.44, 4.44), 12: (24, 84, 156, 1.88, 15.7, 8.36),
    15: (24, 99, 189, 2.91, 33.59, 11.5), 24: (24, 144, 288, 4.76, 127.94, 26.88),
    30: (24, 174, 354, 5.13, 257.72, 50.28)}
DT = 1e-3
DURATION = 5.0
N_F = 4
PAPER_CONTACTS = 4
"""The contact count of the paper's LCP sizes."""


@dataclass
class PendulumRun:
    """One simulated run: the model stepped, the trajectory, and the last link's height and vertical
    velocity (the quantities of Fig. 6)."""

    n: int
    formulation: str
    model: Model
    traj: Trajectory
    height: np.ndarray
    normal_velocity: np.ndarray

    @property
    def wall_time_s(self) -> float:
        return float(self.traj.stats["wall_time_s"])


def lcp_sizes(n: int, n_u: int = PAPER_CONTACTS, n_f: int = N_F) -> dict:
    """The LCP sizes of Jain 2014 (Table 1 formulas) for the ``n``-link pendulum: ``N = n`` hinge dofs,
    no loops; the FA model has ``6 n`` coordinates and ``n_b = 5 n`` hinge rows."""
    contact = n_u * (n_f + 2)
    return {"os": contact, "nmc_os": 5 * n + contact, "nmc": 6 * n + 5 * n + contact}


def simulate(n: int, formulation: str = "os", duration: float = DURATION, dt: float = DT, solver: str = "lemke",
             progress: bool | None = None, record_contacts: bool = False) -> PendulumRun:
    """Run the Sec. 8 scene with ``n`` links by ``formulation`` (``"os"`` or ``"nmc_os"``); with
    ``record_contacts`` the trajectory carries each step's contact points and forces (for the viewer)."""
    if formulation not in FORMULATIONS:
        raise ValueError(f"formulation: expected one of {FORMULATIONS}, got {formulation!r}")
    tree = pendulum(n, scene="jain2014")
    q0, qd0 = pendulum_start(tree)
    model = tree
    if formulation == "nmc_os":
        model = tree.fully_augmented()
        q0, qd0 = fa_state(tree, model, q0, qd0)
    sim = Simulator(model, dt, contact=ContactSettings.classic(n_f=N_F, solver=solver))
    sim.rollout(q0, qd0, steps=1, progress=False)  # compile or load the kernel before the timed run
    traj = sim.rollout(q0, qd0, duration=duration, progress=progress, record_contacts=record_contacts)
    traj.stats["formulation"] = formulation
    height, vz = last_link_motion(model, traj, n)
    return PendulumRun(n, formulation, model, traj, height, vz)


def last_link_motion(model: Model, traj: Trajectory, n: int) -> tuple[np.ndarray, np.ndarray]:
    """Height (m) and vertical velocity (m/s) of the last sphere's centre along ``traj``."""
    frame = f"ball{n - 1}"
    height = traj.frame_positions(model, frame)[:, 2].copy()
    data = model.data()
    vz = np.array([frame_velocity(model, data, q, qd, frame, reference="world_aligned")[5]
                   for q, qd in zip(traj.q, traj.qd)])
    return height, vz


def _write_csv(path: Path, header: list, rows: list) -> Path:
    with open(path, "w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(header)
        w.writerows(rows)
    return path


def _summary(run: PendulumRun) -> dict:
    s = run.traj.stats
    st = run.traj.contact_stats
    at4 = st[st[:, 0] == PAPER_CONTACTS, 2]
    return {"n": run.n, "formulation": run.formulation, "nv": run.model.nv, "nl": run.model.nl,
            "wall_time_s": run.wall_time_s, "steps": s["steps"], "max_contacts": s["max_contacts"],
            "max_lcp_size": s["max_lcp_size"], "lcp_size_at_4_contacts": int(at4[0]) if at4.size else None,
            "collision_steps": s["collision_steps"], "max_penetration_m": s["max_penetration"],
            "mean_pivots": s["mean_pivots"], "energy_start_J": float(run.traj.energy[0, 2]),
            "energy_end_J": float(run.traj.energy[-1, 2])}


def reproduce_table2(out_dir="soadyn-out", links=TABLE2_LINKS, duration: float = DURATION,
                     progress: bool | None = None, echo=print) -> dict:
    """Jain 2014 Table 2: OS and NMC/OS runs for each ``n`` in ``links``; the LCP sizes of the paper at 4
    contacts next to those met (the size at 4 contacts and the largest), the wall times and the speedup.
    Writes ``jain2014-table2.csv`` and ``.json`` into ``out_dir``; returns the JSON content."""
    rows = []
    for n in links:
        runs = {f: simulate(n, f, duration=duration, progress=progress) for f in FORMULATIONS}
        sizes = lcp_sizes(n)
        row = {"n": n, "paper": dict(zip(("os", "nmc_os", "nmc", "os_s", "nmc_os_s", "speedup"),
                                         PAPER_TABLE2.get(n, (None,) * 6))),
               "formula": sizes, "os": _summary(runs["os"]), "nmc_os": _summary(runs["nmc_os"])}
        row["speedup"] = runs["nmc_os"].wall_time_s / runs["os"].wall_time_s
        rows.append(row)
        echo(f"n = {n:2d}: OS {row['os']['wall_time_s']:.3f} s, NMC/OS {row['nmc_os']['wall_time_s']:.3f} s, "
             f"speedup {row['speedup']:.1f}")
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    stem = out / "jain2014-table2"
    header = ["n", "os_size_paper", "os_size_at4", "os_size_max", "nmc_os_size_paper", "nmc_os_size_at4",
              "nmc_os_size_max", "nmc_size_paper", "nmc_size_formula", "os_s", "nmc_os_s", "speedup",
              "os_max_penetration_m", "nmc_os_max_penetration_m", "paper_speedup"]
    table = [[r["n"], r["paper"]["os"], r["os"]["lcp_size_at_4_contacts"], r["os"]["max_lcp_size"],
              r["paper"]["nmc_os"], r["nmc_os"]["lcp_size_at_4_contacts"], r["nmc_os"]["max_lcp_size"],
              r["paper"]["nmc"], r["formula"]["nmc"], r["os"]["wall_time_s"], r["nmc_os"]["wall_time_s"],
              r["speedup"], r["os"]["max_penetration_m"], r["nmc_os"]["max_penetration_m"], r["paper"]["speedup"]]
             for r in rows]
    result = {"table": "Jain 2014, Table 2", "dt": DT, "duration": duration, "n_f": N_F, "rows": rows,
              "files": {"table": str(_write_csv(Path(f"{stem}.csv"), header, table)), "summary": f"{stem}.json"}}
    Path(f"{stem}.json").write_text(json.dumps(result, indent=2) + "\n")
    echo(format_table2(result))
    return result


def format_table2(result: dict) -> str:
    """Table 2 as text: sizes paper / met (at 4 contacts, largest), times and speedups."""
    def size(x):
        return "-" if x is None else str(x)

    lines = [f"{'n':>3} | {'OS paper':>8} {'met':>5} {'max':>4} | {'NMC/OS paper':>12} {'met':>5} {'max':>4} | "
             f"{'NMC paper':>9} | {'OS s':>7} {'NMC/OS s':>9} {'speedup':>8} (paper {'':>5})"]
    for r in result["rows"]:
        lines.append(f"{r['n']:>3} | {size(r['paper']['os']):>8} {size(r['os']['lcp_size_at_4_contacts']):>5} "
                     f"{r['os']['max_lcp_size']:>4} | {size(r['paper']['nmc_os']):>12} "
                     f"{size(r['nmc_os']['lcp_size_at_4_contacts']):>5} {r['nmc_os']['max_lcp_size']:>4} | "
                     f"{size(r['paper']['nmc']):>9} | {r['os']['wall_time_s']:7.3f} {r['nmc_os']['wall_time_s']:9.3f} "
                     f"{r['speedup']:8.1f} (paper {size(r['paper']['speedup']):>5})")
    return "\n".join(lines)


def reproduce_fig6(out_dir="soadyn-out", n: int = 12, duration: float = DURATION, progress: bool | None = None) -> dict:
    """Jain 2014 Fig. 6: height and vertical velocity of the last link, OS and NMC/OS overlaid, for the
    ``n``-link pendulum. Writes ``jain2014-fig6.png``, ``.csv`` (the series) and ``.json``; returns the JSON
    content."""
    runs = {f: simulate(n, f, duration=duration, progress=progress) for f in FORMULATIONS}
    t = runs["os"].traj.t
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    stem = out / "jain2014-fig6"
    _write_csv(Path(f"{stem}.csv"), ["t", "height_os", "height_nmc_os", "vz_os", "vz_nmc_os"],
               [[repr(float(t[k])), repr(float(runs["os"].height[k])), repr(float(runs["nmc_os"].height[k])),
                 repr(float(runs["os"].normal_velocity[k])), repr(float(runs["nmc_os"].normal_velocity[k]))]
                for k in range(len(t))])
    first = _first_divergence(t, runs["os"].height, runs["nmc_os"].height)
    result = {"figure": "Jain 2014, Fig. 6", "n": n, "dt": DT, "duration": duration,
              "runs": {f: _summary(r) for f, r in runs.items()},
              "max_height_difference_m": float(np.abs(runs["os"].height - runs["nmc_os"].height).max()),
              "agree_until_s": first}
    result["files"] = {"plot": str(plot_last_link(f"{stem}.png", t, runs, f"Jain 2014 Fig. 6: {n}-link pendulum")),
                       "series": f"{stem}.csv", "summary": f"{stem}.json"}
    Path(f"{stem}.json").write_text(json.dumps(result, indent=2) + "\n")
    return result


def _first_divergence(t, a, b, tol: float = 0.05) -> float:
    """The first time the two height series differ by more than ``tol`` (m); the end if never."""
    idx = np.nonzero(np.abs(a - b) > tol)[0]
    return float(t[idx[0]]) if idx.size else float(t[-1])


def plot_last_link(path, t, runs: dict, title: str) -> Path:
    """Two panels: the last link's height and vertical velocity for each run (OS red, NMC/OS blue)."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    from ..viz.plots import save_figure

    fig = Figure(figsize=(9.0, 6.0), dpi=110, layout="constrained")
    FigureCanvasAgg(fig)
    ax1, ax2 = fig.subplots(2, 1, sharex=True)
    style = {"os": ("C3", "-", "OS"), "nmc_os": ("C0", "--", "NMC/OS")}
    for f, run in runs.items():
        color, ls, label = style[f]
        ax1.plot(t, run.height, color=color, ls=ls, lw=1.2, label=label)
        ax2.plot(t, run.normal_velocity, color=color, ls=ls, lw=1.0, label=label)
    ax1.set_ylabel("last link height (m)")
    ax2.set_ylabel("last link normal velocity (m/s)")
    ax2.set_xlabel("time (s)")
    for ax in (ax1, ax2):
        ax.grid(True, alpha=0.3)
        ax.legend(fontsize="small")
    fig.suptitle(title)
    return save_figure(fig, path)


def demo(out_dir="soadyn-out", n: int = 12, duration: float = DURATION, progress: bool | None = None) -> dict:
    """``soadyn demo``: the 12-link pendulum by the OS formulation; writes the trajectory (``.npz``, with the
    contacts of every step, which ``soadyn view`` draws), the Fig. 6 plot of the last link and a JSON summary
    into ``out_dir``; returns the summary."""
    t0 = time.perf_counter()
    run = simulate(n, "os", duration=duration, progress=progress, record_contacts=True)
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    stem = out / f"pendulum{n}-os"
    summary = _summary(run)
    summary["total_time_s"] = time.perf_counter() - t0
    summary["files"] = {"trajectory": str(run.traj.save(f"{stem}.npz")),
                        "plot": str(plot_last_link(f"{stem}.png", run.traj.t, {"os": run},
                                                   f"{n}-link pendulum, OS formulation (Jain 2014 Sec. 8)")),
                        "summary": f"{stem}.json"}
    Path(f"{stem}.json").write_text(json.dumps(summary, indent=2) + "\n")
    return summary
