"""The LER rover comparison of Jain, Crean, Kuo and Quadrelli 2012 (Sec. 5, Table 1, Figure 6): the rover
(:func:`soadyn.models.ler_rover`) simulated by constraint embedding (CE), the tree-augmented (TA) and the
fully augmented (FA) methods, RK4 at fixed steps, under the hub forces of :func:`soadyn.models.rover.hub_forces`.

Variants (:data:`VARIANTS`): CE with the analytic and with the iterative (Newton) four-bar kinematics
(:meth:`soadyn.Model.embed_loops`, stepped by the embedded simulator); TA and FA each without error
control, with Baumgarte stabilization (:data:`soadyn.sim.DEFAULT_BAUMGARTE`) and with projection after every
step (tolerance :data:`PROJECTION_TOL`). TA and CE run in one kernel call per run, the joint springs inside
the kernels. The FA model has no joints to carry the suspension and steering springs (its hinges are loop
constraints), so the FA runs use a Python RK4 driver (:func:`fa_rollout`, the same stage and update formulas
as the kernels) that adds the springs' equal and opposite body couples
(:func:`soadyn.augmented.fa_spring_forces`) at every stage, then calls the FA closed-chain forward dynamics
(Jain 2012 Lemma 2) and, with projection, :func:`soadyn.loops.project`; FA wall clocks therefore include a
Python driver (a few tens of microseconds per stage, small against the FA dynamics of 186 dofs and 162 rows).

Measures of a run: ``constraint_error`` the largest ``max |phi|`` over the run's states (m or rad; CE: the
closure error of the tree states of its loop solves); ``fidelity_error`` the largest distance (m) between
the world positions of :data:`soadyn.models.rover.LER_FRAMES` and those of the baseline run, over the states
every :data:`SAMPLE` seconds; ``wall_s`` the wall clock of the rollout call. The baseline is CE analytic at
:data:`BASELINE_DT` (0.01 ms), or the first available of CE iterative and TA with projection when CE is not
available (the JSON says which).

:func:`reproduce_table1` is ``soadyn reproduce jain2012-table1``; :func:`reproduce_fig6` is ``soadyn
reproduce jain2012-fig6``.
"""

from __future__ import annotations

import csv
import json
import time
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from ..augmented import fa_spring_forces, fa_state
from ..loops import AssemblyError, forward_dynamics, project
from ..models.rover import LER_FRAMES, hub_forces, ler_initial_state, ler_rover
from ..sim import DEFAULT_BAUMGARTE, SimulationError, Simulator
from ..spatial import quats_to_rots

VARIANTS = {
    "ce_analytic": ("ce", "analytic", "CE (analytic)"),
    "ce_iterative": ("ce", "newton", "CE (iterative)"),
    "ta_none": ("ta", None, "TA (no error control)"),
    "ta_baumgarte": ("ta", "baumgarte", "TA w/ Baumgarte"),
    "ta_projection": ("ta", "projection", "TA w/ projection"),
    "fa_none": ("fa", None, "FA (no error control)"),
    "fa_baumgarte": ("fa", "baumgarte", "FA w/ Baumgarte"),
    "fa_projection": ("fa", "projection", "FA w/ projection"),
}
"""Variant key -> (method, stabilization or CE loop solver, label of Jain 2012 Table 1)."""
TABLE1_DT = 1e-3
TABLE1_DURATION = 3.0
FIG6_DTS = (2e-3, 1e-3, 2.5e-4, 1e-4, 4e-5)
"""Steps of Jain 2012 Fig. 6 (s)."""
FIG6_DURATION = 1.0
FIG6_BUDGET_S = 600.0
"""Default wall-clock budget (s) of one Fig. 6 run (see :func:`reproduce_fig6`)."""
BASELINE_DT = 1e-5
"""Step of the fidelity baseline (0.01 ms, as in the paper)."""
SAMPLE = 0.01
"""Period (s) of the states compared for the fidelity error (a multiple of every step used)."""
PROJECTION_TOL = 1e-12
"""Projection tolerance on ``max |phi|`` of the TA and FA projection variants."""
COLUMNS = ("variant", "method", "dt", "tree_dofs", "constraint_size", "constraint_error", "fidelity_error",
           "wall_s", "normalized_wall", "status")
"""Columns of the Table 1 and Fig. 6 CSV files."""


@dataclass
class RoverRun:
    """One run: ``positions`` (K, nframes, 3) world positions of ``LER_FRAMES`` at ``t`` (every
    :data:`SAMPLE` s); ``status`` ``"ok"``, or the reason the run stopped (then the arrays end there)."""

    variant: str
    dt: float
    duration: float
    tree_dofs: int
    constraint_size: int
    wall_s: float
    constraint_error: float
    t: np.ndarray
    positions: np.ndarray
    status: str = "ok"
    extra: dict = field(default_factory=dict)


def _ce_model(model, solver: str):
    """The embedded rover for the CE loop ``solver``, or the reason it is not available."""
    if not hasattr(model, "embed_loops"):
        return None, "constraint embedding is not available (Model.embed_loops missing)"
    try:
        return model.embed_loops(method=solver), ""
    except (ValueError, NotImplementedError) as exc:
        return None, f"constraint embedding with method={solver!r} is not available: {exc}"


def available(variant: str, model=None) -> str:
    """``""`` when ``variant`` can run here, else the reason it cannot (CE variants need the embedding)."""
    if variant not in VARIANTS:
        raise ValueError(f"variant: expected one of {tuple(VARIANTS)}, got {variant!r}")
    method, solver, _ = VARIANTS[variant]
    if method != "ce":
        return ""
    return _ce_model(ler_rover() if model is None else model, solver)[1]


def _stride(dt: float) -> int:
    k = SAMPLE / dt
    if abs(k - round(k)) > 1e-6 or round(k) < 1:
        raise ValueError(f"dt: {dt:g} s does not divide the sample period {SAMPLE:g} s")
    return int(round(k))


def _schedule(model, dt: float, nsteps: int) -> np.ndarray:
    """The hub forces held during each step (the rollouts hold inputs constant over a step), sampled at
    the step's midpoint: a second-order hold error, where sampling at the step's start would make every
    run's error first order in ``dt`` whatever its integrator."""
    return hub_forces(model, dt * (np.arange(nsteps) + 0.5))


# ------------------------------------------------------------------------------------------ FA driver
def _config_rate(q: np.ndarray, qd: np.ndarray, nb: int) -> np.ndarray:
    """``dq/dt`` of a model of ``nb`` free bodies: ``p' = R v`` and ``quat' = 1/2 quat (x) [w; 0]``
    (scalar-last, body-frame ``[w; v]``)."""
    Q = q.reshape(nb, 7)
    V = qd.reshape(nb, 6)
    out = np.empty((nb, 7))
    out[:, :3] = np.einsum("bij,bj->bi", quats_to_rots(Q[:, 3:]), V[:, 3:])
    vec, w, om = Q[:, 3:6], Q[:, 6], V[:, :3]
    out[:, 3:6] = 0.5 * (w[:, None] * om + np.cross(vec, om))
    out[:, 6] = -0.5 * np.einsum("bi,bi->b", vec, om)
    return out.reshape(-1)


def _normalize(q: np.ndarray, nb: int) -> np.ndarray:
    Q = q.reshape(nb, 7)
    Q[:, 3:] /= np.linalg.norm(Q[:, 3:], axis=1)[:, None]
    return q


def fa_rollout(tree, fa, q0, qd0, dt: float, nsteps: int, fext, stabilization=None, progress=None):
    """RK4 (the stage and update formulas of :func:`soadyn._kernels.sim.rollout`) of the FA model ``fa`` of the
    sprung tree ``tree`` from ``(q0, qd0)`` with the body-force schedule ``fext`` (nsteps, nb, 6), the tree's
    joint springs added at every stage as body couples (:func:`soadyn.augmented.fa_spring_forces`).
    ``stabilization``: None, ``"baumgarte"`` or ``"projection"``. Returns ``(Q, QD, wall_s, status)``;
    ``status`` is ``"ok"`` or why the run stopped (its states end at the last valid one)."""
    nb = fa.nb
    data = fa.data()
    baum = DEFAULT_BAUMGARTE if stabilization == "baumgarte" else None
    zero = np.zeros(fa.nv)
    Q = np.empty((nsteps + 1, fa.nq))
    QD = np.empty((nsteps + 1, fa.nv))
    Q[0], QD[0] = q0, qd0
    kq = np.empty((4, fa.nq))
    kv = np.empty((4, fa.nv))
    bar = None
    if progress or (progress is None and nsteps >= 100):
        from tqdm.auto import tqdm

        bar = tqdm(total=nsteps, unit="step", desc=f"{fa.name} (rk4, {stabilization or 'none'})", leave=False)
    status = "ok"
    t0 = time.perf_counter()
    n = 0
    try:
        for n in range(nsteps):
            q, qd, f = Q[n], QD[n], fext[n]
            for s in range(4):
                if s == 0:
                    qs, vs = q, qd
                else:
                    h = dt if s == 3 else 0.5 * dt
                    qs = _normalize(q + h * kq[s - 1], nb)
                    vs = qd + h * kv[s - 1]
                fs = f + fa_spring_forces(tree, fa, qs, vs)
                kv[s] = forward_dynamics(fa, data, qs, vs, zero, fs, baumgarte=baum)
                kq[s] = _config_rate(qs, vs, nb)
            Q[n + 1] = _normalize(q + dt / 6.0 * (kq[0] + 2 * kq[1] + 2 * kq[2] + kq[3]), nb)
            QD[n + 1] = qd + dt / 6.0 * (kv[0] + 2 * kv[1] + 2 * kv[2] + kv[3])
            if stabilization == "projection":
                Q[n + 1], QD[n + 1] = project(fa, data, Q[n + 1], QD[n + 1], tol=PROJECTION_TOL)
            if not (np.all(np.isfinite(Q[n + 1])) and np.all(np.isfinite(QD[n + 1]))):
                raise FloatingPointError("the state became non-finite")
            if bar is not None and n % 100 == 99:
                bar.update(100)
    except (AssemblyError, FloatingPointError, ValueError) as exc:
        status = f"failed at step {n} (t = {n * dt:.4g} s): {exc}"
        Q, QD = Q[:n + 1], QD[:n + 1]
    finally:
        if bar is not None:
            bar.close()
    return Q, QD, time.perf_counter() - t0, status


# --------------------------------------------------------------------------------------------- runs
def simulate(variant: str, dt: float = TABLE1_DT, duration: float = TABLE1_DURATION, progress=None,
             model=None) -> RoverRun:
    """Run one variant of :data:`VARIANTS` from the rover's static equilibrium
    (:func:`soadyn.models.rover.ler_initial_state`) under the hub forces, RK4 with step ``dt`` for
    ``duration`` seconds. ``ValueError`` if the variant is not available (:func:`available`). A run that
    fails part way (a diverged state, projection that cannot close the loops) returns its valid part with
    the reason in ``status``."""
    if variant not in VARIANTS:
        raise ValueError(f"variant: expected one of {tuple(VARIANTS)}, got {variant!r}")
    method, option, _ = VARIANTS[variant]
    model = ler_rover() if model is None else model
    stride = _stride(dt)
    nsteps = int(round(duration / dt))
    if nsteps < 1 or nsteps % stride:
        raise ValueError(f"duration: {duration:g} s must be a positive multiple of the sample period {SAMPLE:g} s")
    q0, qd0 = ler_initial_state(model)
    fext = _schedule(model, dt, nsteps)
    status = "ok"
    extra = {}
    if method == "fa":
        fa = model.fully_augmented()
        x0, xd0 = fa_state(model, fa, q0, qd0)
        Q, QD, wall, status = fa_rollout(model, fa, x0, xd0, dt, nsteps, fext, option, progress)
        from ..sim import Trajectory

        traj = Trajectory.from_states(fa, dt * np.arange(Q.shape[0]), Q, QD)
        sim_model, dofs, rows = fa, fa.nv, fa.nc
        Qs = traj.q[::stride]
    elif method == "ta":
        sim = Simulator(model, dt, "rk4", stabilization=option, projection_tol=PROJECTION_TOL)
        t0 = time.perf_counter()
        try:
            traj = sim.rollout(q0, qd0, f_ext=fext, progress=progress)
        except SimulationError as exc:
            traj, status = exc.trajectory, str(exc)
        wall = time.perf_counter() - t0
        sim_model, dofs, rows = model, model.nv, model.nc
        Qs = traj.q[::stride]
    else:
        em, why = _ce_model(model, option)
        if em is None:
            raise ValueError(f"variant {variant!r}: {why}")
        sim = _ce_simulator(em, dt)
        x0, xd0 = em.from_tree_state(q0, qd0)
        t0 = time.perf_counter()
        try:
            traj = sim.rollout(x0, xd0, f_ext=fext, progress=progress)
        except SimulationError as exc:
            traj, status = exc.trajectory, str(exc)
        wall = time.perf_counter() - t0
        sim_model, dofs, rows = model, em.nv, em.nc
        Qs = em.tree_states(traj.q[::stride], traj.qd[::stride])[0]
        extra["max_loop_residual"] = float(traj.stats.get("max_loop_residual", np.nan))
    from ..sim import Trajectory

    sampled = Trajectory(t=traj.t[::stride], q=np.ascontiguousarray(Qs), qd=np.zeros((Qs.shape[0], sim_model.nv)),
                         energy=np.zeros((Qs.shape[0], 3)), model_name=sim_model.name)
    positions = sampled.frame_positions(sim_model, list(LER_FRAMES))
    cerr = float(np.max(traj.constraint_error)) if traj.constraint_error is not None else 0.0
    return RoverRun(variant, dt, duration, int(dofs), int(rows), wall, cerr, sampled.t, positions, status, extra)


def _ce_simulator(em, dt: float):
    try:
        return Simulator(em, dt, "rk4")
    except ValueError:
        from ..embedded_sim import EmbeddedSimulator

        return EmbeddedSimulator(em, dt, "rk4")


def fidelity_error(run: RoverRun, baseline: RoverRun) -> float:
    """The largest frame position difference (m) between ``run`` and ``baseline`` over their common
    sample times (NaN when the run failed before the end)."""
    if run.status != "ok":
        return float("nan")
    k = min(len(run.t), len(baseline.t))
    return float(np.linalg.norm(run.positions[:k] - baseline.positions[:k], axis=2).max())


def baseline_run(duration: float, model, dt: float = BASELINE_DT, progress=None) -> tuple[RoverRun, str]:
    """The fidelity baseline at ``dt`` (:data:`BASELINE_DT`): CE analytic, else CE iterative, else TA with
    projection (the first available); returns the run and its variant key."""
    for v in ("ce_analytic", "ce_iterative", "ta_projection"):
        if not available(v, model):
            return simulate(v, dt, duration, progress=progress, model=model), v
    raise RuntimeError("no baseline variant is available")


# ------------------------------------------------------------------------------------------- outputs
def _write(stem: Path, rows: list[dict], result: dict) -> None:
    with open(f"{stem}.csv", "w", newline="") as fh:
        w = csv.DictWriter(fh, fieldnames=list(COLUMNS))
        w.writeheader()
        for r in rows:
            w.writerow({k: r[k] for k in COLUMNS})
    result["rows"] = rows
    Path(f"{stem}.json").write_text(json.dumps(result, indent=2, default=float) + "\n")


def _row(run: RoverRun | None, variant: str, dt: float, base: RoverRun, reason: str = "") -> dict:
    method = VARIANTS[variant][0]
    if run is None:
        return {"variant": variant, "method": method, "dt": dt, "tree_dofs": None, "constraint_size": None,
                "constraint_error": None, "fidelity_error": None, "wall_s": None, "normalized_wall": None,
                "status": reason if reason.startswith("skipped") else f"missing: {reason}"}
    return {"variant": variant, "method": method, "dt": dt, "tree_dofs": run.tree_dofs,
            "constraint_size": run.constraint_size, "constraint_error": run.constraint_error,
            "fidelity_error": fidelity_error(run, base), "wall_s": run.wall_s, "normalized_wall": None,
            "status": run.status}


def _normalize_wall(rows: list[dict], reference: dict) -> str:
    """Fill ``normalized_wall`` per step size against the reference variant (CE analytic, else the first
    available of :data:`VARIANTS` order given by ``reference``); returns the reference's key."""
    for key in reference:
        refs = {r["dt"]: r["wall_s"] for r in rows if r["variant"] == key and r["wall_s"]}
        if refs:
            for r in rows:
                if r["wall_s"] is not None and r["dt"] in refs:
                    r["normalized_wall"] = r["wall_s"] / refs[r["dt"]]
            return key
    return ""


def _warmup(model, variants) -> None:
    """Compile (or load) the kernels of every variant with a short run, so no timing includes compilation."""
    for v in variants:
        simulate(v, 1e-3, SAMPLE, progress=False, model=model)


def reproduce_table1(out_dir="soadyn-out", duration: float = TABLE1_DURATION, dt: float = TABLE1_DT,
                     variants=None, progress=None, baseline_dt: float | None = None) -> dict:
    """Jain 2012 Table 1: every variant at ``dt`` (1 ms) for ``duration`` (3 s), RK4: tree dofs,
    constraint size, constraint error (max over the run), fidelity error against the baseline at
    ``baseline_dt`` (default :data:`BASELINE_DT`), wall clock normalized to CE analytic (or the first
    available reference, named in the JSON). Writes ``jain2012-table1.csv`` and ``.json``; returns the JSON
    content. Variants that cannot run here are listed with the reason."""
    variants = tuple(VARIANTS) if variants is None else tuple(variants)
    model = ler_rover()
    missing = {v: available(v, model) for v in variants}
    runnable = [v for v in variants if not missing[v]]
    _warmup(model, runnable)
    t_all = time.perf_counter()
    bdt = BASELINE_DT if baseline_dt is None else float(baseline_dt)
    base, base_key = baseline_run(duration, model, bdt, progress)
    rows = []
    for v in variants:
        run = simulate(v, dt, duration, progress=progress, model=model) if not missing[v] else None
        rows.append(_row(run, v, dt, base, missing[v]))
    ref = _normalize_wall(rows, ("ce_analytic", "ce_iterative", "ta_projection", "ta_none"))
    result = {"table": "Jain et al. 2012, Table 1 (LER rover)", "integrator": "rk4", "dt": dt, "duration": duration,
              "baseline": {"variant": base_key, "dt": bdt, "status": base.status},
              "normalized_to": ref, "missing": {v: r for v, r in missing.items() if r},
              "fidelity_frames": list(LER_FRAMES), "sample_period": SAMPLE}
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    stem = out / "jain2012-table1"
    result["wall_time_s"] = time.perf_counter() - t_all
    result["files"] = {"table": f"{stem}.csv", "summary": f"{stem}.json"}
    _write(stem, rows, result)
    return result


def reproduce_fig6(out_dir="soadyn-out", duration: float = FIG6_DURATION, dts=FIG6_DTS, variants=None,
                   progress=None, baseline_dt: float | None = None, budget_s: float = FIG6_BUDGET_S) -> dict:
    """Jain 2012 Fig. 6: constraint error and fidelity error against wall clock, log-log, for every variant
    at the steps ``dts`` over ``duration`` (1 s). Each variant runs its steps from the largest down; a run
    whose wall clock, extrapolated from the previous step in proportion to the number of steps, would
    exceed ``budget_s`` is skipped and listed with its prediction (the FA variants at the smallest steps
    on a small machine). Writes ``jain2012-fig6.png``, ``.csv`` and ``.json``; returns the JSON content."""
    variants = tuple(VARIANTS) if variants is None else tuple(variants)
    model = ler_rover()
    missing = {v: available(v, model) for v in variants}
    runnable = [v for v in variants if not missing[v]]
    _warmup(model, runnable)
    t_all = time.perf_counter()
    bdt = BASELINE_DT if baseline_dt is None else float(baseline_dt)
    base, base_key = baseline_run(duration, model, bdt, progress)
    rows = []
    for v in variants:
        last = None
        for dt in sorted(dts, reverse=True):
            reason = missing[v]
            if not reason and last is not None and last.status == "ok":
                predicted = last.wall_s * last.dt / dt
                if predicted > budget_s:
                    reason = f"skipped: predicted wall clock {predicted:.0f} s > budget {budget_s:g} s"
            run = simulate(v, dt, duration, progress=progress, model=model) if not reason else None
            rows.append(_row(run, v, dt, base, reason))
            last = run if run is not None else last
    ref = _normalize_wall(rows, ("ce_analytic", "ce_iterative", "ta_projection", "ta_none"))
    result = {"figure": "Jain et al. 2012, Fig. 6 (LER rover)", "integrator": "rk4", "dts": list(dts),
              "duration": duration, "baseline": {"variant": base_key, "dt": bdt, "status": base.status},
              "normalized_to": ref, "missing": {v: r for v, r in missing.items() if r}, "budget_s": budget_s,
              "fidelity_frames": list(LER_FRAMES), "sample_period": SAMPLE}
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    stem = out / "jain2012-fig6"
    result["wall_time_s"] = time.perf_counter() - t_all
    result["files"] = {"plot": str(_plot_fig6(f"{stem}.png", rows, result)), "table": f"{stem}.csv",
                       "summary": f"{stem}.json"}
    _write(stem, rows, result)
    return result


def _plot_fig6(path, rows: list[dict], result: dict) -> Path:
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    from ..viz.plots import save_figure

    fig = Figure(figsize=(11.0, 4.2), dpi=110, layout="constrained")
    FigureCanvasAgg(fig)
    axes = fig.subplots(1, 2)
    markers = {"ce": "o", "ta": "s", "fa": "^"}
    dts = sorted({r["dt"] for r in rows}, reverse=True)
    for c, v in enumerate(VARIANTS):
        pts = [r for r in rows if r["variant"] == v and r["wall_s"]]
        if not pts:
            continue
        for ax, key in zip(axes, ("constraint_error", "fidelity_error")):
            xs = [r["wall_s"] for r in pts if r[key] and np.isfinite(r[key])]
            ys = [max(r[key], 1e-18) for r in pts if r[key] and np.isfinite(r[key])]
            sizes = [80.0 / (1 + dts.index(r["dt"])) for r in pts if r[key] and np.isfinite(r[key])]
            ax.scatter(xs, ys, s=sizes, marker=markers[VARIANTS[v][0]], color=f"C{c}", label=VARIANTS[v][2])
    for ax, label in zip(axes, ("constraint error (max |phi|)", "fidelity error (m)")):
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_xlabel("wall clock (s)")
        ax.set_ylabel(label)
        ax.grid(True, alpha=0.3, which="both")
    axes[0].legend(fontsize="x-small")
    fig.suptitle(f"Jain 2012 Fig. 6: LER rover, RK4, {result['duration']:g} s, steps "
                 f"{', '.join(f'{d * 1e3:g}' for d in dts)} ms (smaller marker: smaller step)")
    return save_figure(fig, path)
