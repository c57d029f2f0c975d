"""Where the time of Jain et al. 2012 Table 1 goes: one forward-dynamics evaluation (one RK4 stage) of the LER
rover by CE, TA and FA, split into its parts and measured on this machine, to explain soadyn's TA/CE and
FA/CE wall-clock ratios next to the paper's (1.6 and 59).

Parts, in microseconds per evaluation (the best of :data:`SAMPLES` samples, each of many repetitions: on a
shared machine the best sample is the one least disturbed by other processes):

- kernel stages, timed inside one kernel call (:mod:`soadyn._kernels.stages`, so that no call overhead is
  counted): TA and FA (the same Lemma 2 kernel on the tree and on the fully augmented model): the ABA pass,
  the loop rows, the Schur complement ``Q Lambda Q*``, the multipliers' solve, the correction ABA pass; CE:
  the loop solve (analytic four bars), the compound hinge maps, the articulated-body passes;
- fixed cost per call: the public call (``loops.forward_dynamics``, ``embedding.forward_dynamics``: input
  checks, copies, kernel dispatch) minus the same evaluation inside the kernel. The Table 1 runs of CE and TA
  are whole rollouts in one kernel call and do not pay it; the FA runs are stepped from Python and pay it
  four times a step, with the FA driver's spring couples (``augmented.fa_spring_forces``);
- per evaluation in a rollout: the wall clock of 20 RK4 steps minus that of 10 steps (so the call's fixed
  cost drops out), over the 40 evaluations between them, for CE analytic, TA and FA without error control
  (:func:`rollout_times`); the Table 1 wall clock over its evaluations is shown too (on a busy machine long
  runs are slowed by other processes, these short ones much less);
- KKT: the augmented system ``[M, -G^T; G, 0]`` by scipy's sparse LU (``method="kkt"``), the alternative to
  Lemma 2 for the FA model, for reference.

:func:`breakdown` measures them, writes ``jain2012-breakdown.csv`` and ``.json`` and returns the result with
the explanation of each ratio.
"""

from __future__ import annotations

import csv
import json
import time
from pathlib import Path

import numpy as np

from .._kernels import stages as _stages
from ..augmented import fa_spring_forces, fa_state
from ..embedding import ce_kernel_arguments
from ..embedding import forward_dynamics as ce_forward_dynamics
from ..loops import forward_dynamics, ta_kernel_arguments
from ..models.rover import hub_forces, ler_initial_state, ler_rover

REPS = 10
"""Repetitions of a TA or CE stage inside one kernel call (two per FA stage): each sample stays short (about a
millisecond), so that the best of them is one no other process interrupted."""
SAMPLES = 41
"""Samples per measurement; the fastest is kept."""
T_FORCES = 0.25
"""Time (s) of the hub force sample applied in the measured evaluation."""
PAPER = {"ta": 1.6007, "fa": 59.4236}
"""Jain et al. 2012 Table 1: TA (no error control) and FA (no error control) wall clock over CE analytic."""


def _best_time(fn, reps: int = 1, samples: int = SAMPLES) -> float:
    """The best over ``samples`` of the time (s) of ``reps`` calls of ``fn()``, per call."""
    fn()
    out = []
    for _ in range(samples):
        t0 = time.perf_counter()
        for _ in range(reps):
            fn()
        out.append(time.perf_counter() - t0)
    return float(np.min(out)) / reps


def _stage_times(kernel, names, args, reps: int) -> dict:
    """Microseconds per stage: ``kernel(stage, reps, *args)`` minus ``kernel(stage, 0, *args)`` (the
    preparing call and the dispatch), over ``reps``."""
    out = {}
    for k, name in enumerate(names):
        def run(k=k, n=reps):
            st = kernel(k, n, *args)
            if st != 0:
                raise RuntimeError(f"{kernel.__name__} stage {name}: kernel status {st}")

        base = _best_time(lambda k=k: run(k, 0))
        out[name] = max(_best_time(run) - base, 0.0) / reps * 1e6
    return out


def measure(reps: int = REPS) -> dict:
    """The per-stage and per-call times (us) of CE (analytic), TA and FA on the rover at its initial state
    under the hub forces at :data:`T_FORCES`."""
    model = ler_rover()
    q0, qd0 = ler_initial_state(model)
    fext = hub_forces(model, np.array([T_FORCES]))[0]
    tau = np.zeros(model.nv)
    out = {}
    # TA: the tree with its 12 loop rows
    d = model.data()
    args = ta_kernel_arguments(model, d, q0, qd0, tau, fext)
    out["ta"] = {"stages": _stage_times(_stages.ta_stage, _stages.TA_STAGES, args, reps),
                 "call": _best_time(lambda: forward_dynamics(model, d, q0, qd0, tau, fext), reps) * 1e6,
                 "kkt": _best_time(lambda: forward_dynamics(model, d, q0, qd0, tau, fext, method="kkt")) * 1e6}
    # FA: every body free, every hinge 5 loop rows (186 dofs, 162 rows), springs as body couples
    fa = model.fully_augmented()
    x0, xd0 = fa_state(model, fa, q0, qd0)
    fs = fext + fa_spring_forces(model, fa, x0, xd0)
    fd = fa.data()
    ztau = np.zeros(fa.nv)
    args = ta_kernel_arguments(fa, fd, x0, xd0, ztau, fs)
    out["fa"] = {"stages": _stage_times(_stages.ta_stage, _stages.TA_STAGES, args, 2),
                 "call": _best_time(lambda: forward_dynamics(fa, fd, x0, xd0, ztau, fs)) * 1e6,
                 "kkt": _best_time(lambda: forward_dynamics(fa, fd, x0, xd0, ztau, fs, method="kkt")) * 1e6,
                 "springs": _best_time(lambda: fa_spring_forces(model, fa, x0, xd0), 5) * 1e6}
    # CE: the embedded rover (24 dofs, analytic four bars)
    em = model.embed_loops(method="analytic")
    x, xd = em.from_tree_state(q0, qd0)
    ed = em.data()
    ce_forward_dynamics(em, ed, x, xd, tau, fext)
    args = ce_kernel_arguments(em, ed)
    out["ce"] = {"stages": _stage_times(_stages.ce_stage, _stages.CE_STAGES, args, reps),
                 "call": _best_time(lambda: ce_forward_dynamics(em, ed, x, xd, tau, fext), reps) * 1e6}
    for m in out.values():
        m["fixed"] = max(m["call"] - m["stages"]["all"], 0.0)
    out["sizes"] = {"ta": (model.nv, model.nc), "fa": (fa.nv, fa.nc), "ce": (em.nv, em.nc)}
    return out


def rollout_times(samples: int = 5) -> dict:
    """Microseconds per evaluation inside rollouts (see the module docstring), by variant."""
    from .jain2012_rover import simulate

    model = ler_rover()
    out = {}
    for v in ("ce_analytic", "ta_none", "fa_none"):
        n = samples if v != "fa_none" else 2
        t10 = min(simulate(v, 1e-3, 0.01, progress=False, model=model).wall_s for _ in range(n))
        t20 = min(simulate(v, 1e-3, 0.02, progress=False, model=model).wall_s for _ in range(n))
        out[v] = max(t20 - t10, 0.0) / 40 * 1e6
    return out


def run_stage_times(table1: dict) -> dict:
    """Microseconds per forward-dynamics evaluation in the Table 1 runs (wall clock over 4 evaluations per
    RK4 step), by variant."""
    steps = int(round(table1["duration"] / table1["dt"]))
    return {r["variant"]: r["wall_s"] / (4 * steps) * 1e6 for r in table1["rows"] if r["wall_s"] is not None}


def explain(m: dict, run: dict) -> dict:
    """A few sentences per ratio (TA/CE, FA/CE) from the measured parts: ``m`` from :func:`measure`, ``run``
    from :func:`rollout_times`."""
    ce, ta, fa = m["ce"]["stages"], m["ta"]["stages"], m["fa"]["stages"]
    ce_run, ta_run, fa_run = run.get("ce_analytic"), run.get("ta_none"), run.get("fa_none")  # per rollout evaluation
    text = {}
    if ce_run and ta_run:
        text["ta"] = (f"In the kernel one TA evaluation takes {ta['all']:.0f} us (first ABA pass {ta['aba']:.0f}, "
                      f"loop rows {ta['rows']:.0f}, Schur complement of the 12 rows {ta['schur']:.0f}, solve "
                      f"{ta['solve']:.0f}, correction pass {ta['correction']:.0f}) and one CE evaluation "
                      f"{ce['all']:.0f} us (loop solve {ce['loop_solve']:.0f}, hinge maps {ce['hinge_maps']:.0f}, "
                      f"compound-body passes {ce['accelerations']:.0f}): TA/CE {ta['all'] / ce['all']:.1f} per "
                      f"evaluation, against the paper's {PAPER['ta']:.1f} for whole runs. Inside rollouts an "
                      f"evaluation costs {ta_run:.0f} us (TA) and {ce_run:.0f} us (CE), TA/CE "
                      f"{ta_run / ce_run:.1f}: the rollouts' cost per evaluation outside the dynamics (RK4 "
                      f"updates, joint springs, and Simulator.rollout's energies and constraint errors of every "
                      f"state, for CE after mapping each state to the tree; on a busy machine also other "
                      f"processes) is {ta_run - ta['all']:+.0f} us for TA and {ce_run - ce['all']:+.0f} us for "
                      f"CE. The paper's wall clock has no such bookkeeping.")
    if ce_run and fa_run:
        text["fa"] = (f"One FA evaluation takes {fa['all']:.0f} us in the kernel: the Schur complement of the 162 "
                      f"rows {fa['schur']:.0f} us and its solve {fa['solve']:.0f} us (an explicit O(n_c^3) "
                      f"inverse of the 162 x 162 matrix), the ABA passes over the 31 free bodies "
                      f"{fa['aba'] + fa['correction']:.0f} us; the run adds the Python driver (spring couples "
                      f"{m['fa']['springs']:.0f} us, call {m['fa']['fixed']:.0f} us) for {fa_run:.0f} us per "
                      f"evaluation. FA/CE is {fa['all'] / ce['all']:.0f} per kernel evaluation and "
                      f"{fa_run / ce_run:.0f} in rollouts (paper {PAPER['fa']:.0f}): the dense 162-row solve, "
                      f"which the paper's FA does not report separately, decides it; the sparse KKT solve of "
                      f"the FA model would take {m['fa']['kkt']:.0f} us.")
    return text


def breakdown(table1: dict, out_dir="soadyn-out", reps: int = REPS) -> dict:
    """Measure the parts (:func:`measure`), set them next to the Table 1 run (``table1``: the result of
    :func:`soadyn.experiments.jain2012_rover.reproduce_table1`) and explain the ratios. Writes
    ``jain2012-breakdown.csv`` (method, part, us per evaluation) and ``.json``; returns the JSON content."""
    m = measure(reps)
    run = rollout_times()
    table_run = run_stage_times(table1)
    rows = []
    for method, key in (("CE (analytic)", "ce"), ("TA", "ta"), ("FA", "fa")):
        for part, us in m[key]["stages"].items():
            rows.append((method, "kernel: " + ("whole evaluation" if part == "all" else part), us))
        rows.append((method, "fixed cost per public call", m[key]["fixed"]))
        for extra in ("kkt", "springs"):
            if extra in m[key]:
                rows.append((method, {"kkt": "KKT by sparse LU (per call)",
                                      "springs": "FA driver: spring couples"}[extra], m[key][extra]))
        variant = {"ce": "ce_analytic", "ta": "ta_none", "fa": "fa_none"}[key]
        rows.append((method, "per evaluation in a rollout (20 - 10 steps)", run[variant]))
        if variant in table_run:
            rows.append((method, "per evaluation in the Table 1 run", table_run[variant]))
    ce_table = table_run.get("ce_analytic")
    ratios = {k: {"table1_run": table_run[v] / ce_table if ce_table and v in table_run else None,
                  "rollout": run[v] / run["ce_analytic"] if run["ce_analytic"] else None,
                  "kernel": m[k]["stages"]["all"] / m["ce"]["stages"]["all"], "paper": PAPER[k]}
              for k, v in (("ta", "ta_none"), ("fa", "fa_none"))}
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    stem = out / "jain2012-breakdown"
    with open(f"{stem}.csv", "w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(["method", "part", "us_per_evaluation"])
        w.writerows([(a, b, f"{c:.3f}") for a, b, c in rows])
    result = {"table": "Jain et al. 2012, Table 1: cost breakdown per forward-dynamics evaluation",
              "sizes": m["sizes"], "parts": m, "rollout_us_per_evaluation": run,
              "table1_us_per_evaluation": table_run, "ratios": ratios,
              "explanation": explain(m, run), "rows": [list(r) for r in rows],
              "files": {"breakdown": f"{stem}.csv", "breakdown_summary": f"{stem}.json"}}
    Path(f"{stem}.json").write_text(json.dumps(result, indent=2, default=float) + "\n")
    return result


def format_breakdown(result: dict) -> str:
    """The breakdown as text lines."""
    lines = [f"  {'method':<15}{'part':<42}{'us':>10}"]
    lines += [f"  {a:<15}{b:<42}{c:>10.1f}" for a, b, c in result["rows"]]
    for k, r in result["ratios"].items():
        t1 = "-" if r["table1_run"] is None else f"{r['table1_run']:.2f}"
        ro = "-" if r["rollout"] is None else f"{r['rollout']:.2f}"
        lines.append(f"  {k.upper()}/CE: Table 1 run {t1}, rollout {ro}, kernel evaluation {r['kernel']:.2f}, "
                     f"paper {r['paper']:.2f}")
    for k, text in result["explanation"].items():
        lines.append(f"  why {k.upper()}/CE differs: {text}")
    return "\n".join(lines)
