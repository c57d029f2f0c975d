"""The grasp experiment of Drumwright 2015, Sec. VII-A, Fig. 1, Table I, on soadyn's contact simulator.

Scene (:func:`soadyn.models.grasp_scene`): four 10 cm cubes of 1 kg, two grippers on prismatic joints pushed
inward with 50 N each, two free boxes between them, no floor, friction 100, step 0.01 s. Contact generations
(:data:`CONTACTS`, the scene's ``contacts`` option), each run with every variant:

- ``rpisim``: the paper's. "Twelve contact points were generated between each pair of boxes, yielding 36
  contact points total" (Sec. VII-A): the equal boxes' corners have degenerate normals, and the paper's
  simulator "duplicat[es] each contact with all three possible directions for the contact normal"
  (footnote 3), so each of the 4 shared corners of a face pair is a contact with each of the corner's 3 face
  normals. LCP sizes 216 (Coulomb, 6 per contact) and 36 (no-slip), as the paper's.
- ``corners``: soadyn's default box-box contacts, the 4 corners of the clipped face with the face normal
  (12 contacts, LCP sizes 72 and 12): the same physics with a third of the rows.

Variants:

- ``coulomb_lemke``: Stewart-Trinkle / Anitescu-Potra with a 4-direction pyramid, ``mu_c = 100``, Lemke
  (Tikhonov retries), LCP size ``m (n_f + 2)`` for ``m`` contacts (the paper: 216 at 36 contacts);
- ``noslip_ppm``, ``noslip_lemke``: no-slip (Sec. VI) in the simulation kernel, the normal LCP (size ``m``,
  the paper: 36) by the modified PPM I (Algorithm 1) or by Lemke;
- ``noslip_ppm_python``, ``noslip_qp_python``: the same no-slip step stepped from Python (collision detection,
  ABA, ``W = G M^-1 G^T`` densely, :func:`soadyn.contact.drumwright.noslip` or FIND-INDICES plus the normal
  LCP ``F = W_NN - W_NE W_EE^-1 W_EN`` (Eq. 56) as the QP ``min 1/2 z^T F z + e^T z, z >= 0`` by proxsuite's
  dense ProxQP, the paper's "active-set QP" row). Their times compare with each other, not with the kernel
  rows (each step crosses Python several times).

"Grasped" at step ``k``: both boxes within :data:`GRASP_TOL` (1 cm) of their start height at every state up to
``k``; ``grasped_steps`` counts the steps for which that holds (all of them when the grasp never fails).
Times include everything (collision detection, dynamics, the LCP), as the paper's Table I.
"""

from __future__ import annotations

import csv
import importlib.util
import json
import time
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from .._kernels.contact_solve import NO_SLIP_GAP
from ..contact import drumwright
from ..contact.geometry import collide
from ..contact.settings import ContactSettings
from ..dynamics import aba, frame_jacobian, integrate, minv
from ..lcp import find_indices
from ..model import Model
from ..models.grasp import CONTACT_GENERATIONS, GRASP_PAIRS, GRIP_FORCE, MU, grasp_scene, grasp_start
from ..sim import SimulationError, Simulator

DT = 0.01
"""Step (s), as the paper."""
STEPS = 100
"""Steps per trial: the paper's no-slip runs held for at least 100."""
TIMED_STEPS = 10
"""Steps of the paper's timed runs (Table I: ten iterations of 0.01 s); each trial also times a run this long."""
TRIALS = 10
N_F = 4
GRASP_TOL = 0.01
"""Largest drop or rise (m) of either box from its start height that still counts as grasped."""
ERP = 0.2
"""Fraction of a penetration removed per step (the simulator's default ``ContactSettings.erp``)."""
VARIANTS = {
    "coulomb_lemke": ("coulomb", "lemke", "kernel", "Coulomb mu_c = 100, n_f = 4 (Lemke)"),
    "noslip_ppm": ("no_slip", "ppm", "kernel", "No-slip (modified PPM)"),
    "noslip_lemke": ("no_slip", "lemke", "kernel", "No-slip (Lemke)"),
    "noslip_ppm_python": ("no_slip", "ppm", "python", "No-slip (modified PPM), Python-stepped"),
    "noslip_qp_python": ("no_slip", "qp", "python", "No-slip (proxsuite QP), Python-stepped"),
}
"""name -> (friction, solver, stepper, label)."""
PAPER_TABLE1 = {"coulomb_lemke": (10.9681, 2.1812), "noslip_qp_python": (1.9892, 0.2640),
                "noslip_ppm": (1.6680, 0.3669)}
"""Drumwright 2015 Table I: mean and std of the run time (s) over ten trials, RPIsim (MATLAB), 10 steps."""
PAPER_SIZES = {"contacts_per_pair": 12, "contacts": 36, "coulomb_lcp": 216, "noslip_lcp": 36}
CONTACTS = ("rpisim", "corners")
"""Contact generations run by :func:`reproduce_grasp` (the paper's first; see the module docstring)."""


@dataclass
class Trial:
    """One trial: wall time (s) of the run and of a :data:`TIMED_STEPS` run from the same start, steps run,
    steps grasped, per-step contacts, LCP sizes (touching contacts for no-slip), pivots, PPM fallbacks and (Python-stepped no-slip) equality rows kept by FIND-INDICES; ``error``: why
    the run stopped early (None if it ran to the end)."""

    wall_s: float
    wall_timed_s: float
    steps: int
    grasped_steps: int
    contacts: np.ndarray
    lcp_size: np.ndarray
    pivots: np.ndarray
    fallbacks: int
    rank: np.ndarray = field(default_factory=lambda: np.zeros(0))
    error: str | None = None


def box_heights(model: Model, Q: np.ndarray) -> np.ndarray:
    """(len(Q), 2): the height change of ``box_l`` and ``box_r`` from their start (the free joints' z)."""
    cols = [int(model.jnt_qadr[model.body_id(b)]) + 2 for b in ("box_l", "box_r")]
    return np.asarray(Q)[:, cols]


def grasped_steps(model: Model, Q: np.ndarray, tol: float = GRASP_TOL) -> int:
    """The number of steps after which both boxes are still within ``tol`` of their start height, counted
    from the start until the first state that is not."""
    ok = np.all(np.abs(box_heights(model, Q)) <= tol, axis=1)
    bad = np.nonzero(~ok)[0]
    return (len(ok) - 1) if bad.size == 0 else int(bad[0]) - 1


# ------------------------------------------------------------------------------- kernel variants
def _kernel_trial(model: Model, sim: Simulator, steps: int, force: float) -> Trial:
    q0, qd0, tau = grasp_start(model, force)
    error = None
    t0 = time.perf_counter()
    try:
        sim.rollout(q0, qd0, steps=min(steps, TIMED_STEPS), tau=tau, progress=False)
    except SimulationError:
        pass
    wall_timed = time.perf_counter() - t0
    t0 = time.perf_counter()
    try:
        traj = sim.rollout(q0, qd0, steps=steps, tau=tau, progress=False)
    except SimulationError as exc:
        traj, error = exc.trajectory, str(exc)
    wall = time.perf_counter() - t0
    st = traj.contact_stats
    return Trial(wall, wall_timed, traj.q.shape[0] - 1, grasped_steps(model, traj.q), st[:, 0].astype(int),
                 st[:, 2].astype(int), st[:, 3].astype(int), int(st[:, 8].sum()), error=error)


# ------------------------------------------------------------------------------- Python-stepped no-slip
def contact_rows(model: Model, data, q, contacts, keep: np.ndarray) -> np.ndarray:
    """``G`` (3k, nv) of the contacts ``keep``: per contact the rows ``n, t1, t2`` of the world velocity of
    body A's material point at the contact point relative to body B's (Jain 2014 Eqs. 22, 34)."""
    G = np.zeros((3 * keep.size, model.nv))
    jac = {}
    for r, i in enumerate(keep):
        n = contacts.normal[i]
        t1 = np.cross(n, np.eye(3)[int(np.argmin(np.abs(n)))])
        t1 /= np.linalg.norm(t1)
        F = np.array([n, t1, np.cross(n, t1)])
        for b, sign in zip(contacts.body[i], (1.0, -1.0)):
            if b < 0:
                continue
            if b not in jac:
                Jw = frame_jacobian(model, data, q, model.body_names[b], "world_aligned").copy()
                jac[b] = (Jw, data.frame_p.copy())
            Jw, o = jac[b]
            rel = contacts.point[i] - o
            G[3 * r:3 * r + 3] += sign * (F @ (Jw[3:] - np.cross(rel, Jw[:3].T).T))
    return G


def qp_noslip(W: np.ndarray, vf: np.ndarray) -> tuple[np.ndarray, int]:
    """No-slip impulses (Drumwright 2015 Eqs. 45-57) with the normal LCP solved as a convex QP by proxsuite:
    FIND-INDICES keeps an independent set ``E`` of tangent rows, ``F = W_NN - W_NE W_EE^-1 W_EN`` (Eq. 56),
    ``e = vf_N - W_NE W_EE^-1 vf_E`` (Eq. 57), ``z = argmin 1/2 z^T F z + e^T z, z >= 0``, then
    ``p_E = -W_EE^-1 (vf_E + W_EN z)``. Returns the impulses ``p`` and the rank ``|E|``."""
    import proxsuite

    k = W.shape[0] // 3
    N = np.arange(0, 3 * k, 3)
    E = find_indices(W, np.sort(np.concatenate([N + 1, N + 2])))
    Wee, Wen = W[np.ix_(E, E)], W[np.ix_(E, N)]
    K = np.linalg.solve(Wee, np.column_stack([Wen, vf[E]]))
    F = W[np.ix_(N, N)] - Wen.T @ K[:, :k]
    F = 0.5 * (F + F.T)
    e = vf[N] - Wen.T @ K[:, k]
    res = proxsuite.proxqp.dense.solve(F, e, None, None, np.eye(k), np.zeros(k), np.full(k, 1e20),
                                       eps_abs=1e-12, eps_rel=0.0, max_iter=10000)
    z = np.maximum(res.x, 0.0)
    p = np.zeros(3 * k)
    p[N] = z
    p[E] = -(K[:, k] + K[:, :k] @ z)
    return p, int(E.size)


def python_noslip_step(model: Model, data, q, qd, tau, dt: float, solver: str) -> tuple:
    """One no-slip step from Python (the kernel's step, :mod:`soadyn._kernels.contact_sim`, written densely):
    contacts with ``gap <= NO_SLIP_GAP``, ``qd_f = qd + dt M^-1 (tau - C)``, ``W = G M^-1 G^T``,
    ``vf = G qd_f`` plus ``gap / dt`` (open gap) or ``erp gap / dt`` (penetration) on the normal rows, the
    impulses by ``solver`` (``"ppm"``, ``"lemke"``: :func:`soadyn.contact.drumwright.noslip`; ``"qp"``:
    :func:`qp_noslip`), ``qd+ = qd_f + M^-1 G^T p``, ``q+ = q (+) dt qd+``. Returns ``(q+, qd+, contacts,
    lcp_size, pivots, fallback, rank)``."""
    c = collide(model, data, q)
    qd_f = qd + dt * aba(model, data, q, qd, tau)
    keep = np.nonzero(c.gap[:c.count] <= NO_SLIP_GAP)[0]
    if keep.size == 0:
        return integrate(model, q, qd_f, dt), qd_f, c.count, 0, 0, False, 0
    G = contact_rows(model, data, q, c, keep)
    Minv = minv(model, data, q).copy()
    MGt = Minv @ G.T
    W = G @ MGt
    W = 0.5 * (W + W.T)
    vf = G @ qd_f
    gap = c.gap[keep]
    vf[0::3] += np.where(gap > 0.0, gap, ERP * gap) / dt
    if solver == "qp":
        p, rank = qp_noslip(W, vf)
        pivots, fallback = 0, False
    else:
        sol = drumwright.noslip(W, vf, 0, solver=solver)
        p, rank, pivots, fallback = sol.p, sol.rank, sol.pivots, sol.fallback
    qd_n = qd_f + MGt @ p
    return integrate(model, q, qd_n, dt), qd_n, c.count, keep.size, pivots, fallback, rank


def _python_trial(model: Model, steps: int, force: float, solver: str, dt: float = DT) -> Trial:
    data = model.data()
    q, qd, tau = grasp_start(model, force)
    t0 = time.perf_counter()
    qt, qdt = q, qd
    for _ in range(min(steps, TIMED_STEPS)):
        qt, qdt = python_noslip_step(model, data, qt, qdt, tau, dt, solver)[:2]
    wall_timed = time.perf_counter() - t0
    Q = [q]
    rec = np.zeros((steps, 4), dtype=np.int64)
    fallbacks = 0
    t0 = time.perf_counter()
    for n in range(steps):
        q, qd, ncon, size, piv, fb, rank = python_noslip_step(model, data, q, qd, tau, dt, solver)
        rec[n] = (ncon, size, piv, rank)
        fallbacks += int(fb)
        Q.append(q)
    wall = time.perf_counter() - t0
    return Trial(wall, wall_timed, steps, grasped_steps(model, np.array(Q)), rec[:, 0], rec[:, 1], rec[:, 2],
                 fallbacks, rank=rec[:, 3])


# ------------------------------------------------------------------------------------------ runs
def available_variants() -> tuple:
    """The variants that can run here (the QP one needs proxsuite)."""
    if importlib.util.find_spec("proxsuite") is None:
        return tuple(v for v in VARIANTS if v != "noslip_qp_python")
    return tuple(VARIANTS)


def run_variant(variant: str, trials: int = TRIALS, steps: int = STEPS, force: float = GRIP_FORCE,
                model: Model | None = None) -> list[Trial]:
    """``trials`` runs of ``steps`` steps of ``variant`` (:data:`VARIANTS`) after one untimed warm-up run
    (compilation)."""
    if variant not in VARIANTS:
        raise ValueError(f"variant: expected one of {tuple(VARIANTS)}, got {variant!r}")
    for name, x in (("trials", trials), ("steps", steps)):
        if isinstance(x, bool) or not isinstance(x, (int, np.integer)) or x < 1:
            raise ValueError(f"{name}: expected a positive integer, got {x!r}")
    model = grasp_scene() if model is None else model
    friction, solver, stepper, _ = VARIANTS[variant]
    if stepper == "kernel":
        sim = Simulator(model, DT, contact=ContactSettings.classic(friction=friction, solver=solver, mu=MU, n_f=N_F))
        _kernel_trial(model, sim, 1, force)
        return [_kernel_trial(model, sim, steps, force) for _ in range(trials)]
    _python_trial(model, 1, force, solver)
    return [_python_trial(model, steps, force, solver) for _ in range(trials)]


def summarize(variant: str, runs: list[Trial]) -> dict:
    """Mean and std of the run time, grasped steps (min over trials), contact counts and LCP sizes."""
    walls = np.array([r.wall_s for r in runs])
    timed = np.array([r.wall_timed_s for r in runs])
    contacts = np.concatenate([r.contacts for r in runs])
    sizes = np.concatenate([r.lcp_size for r in runs])
    first = runs[0]
    out = {"variant": variant, "label": VARIANTS[variant][3], "trials": len(runs), "steps": int(first.steps),
           "mean_s": float(walls.mean()), "std_s": float(walls.std()), "min_s": float(walls.min()),
           "timed_steps": min(int(first.steps), TIMED_STEPS), "timed_mean_s": float(timed.mean()),
           "timed_std_s": float(timed.std()),
           "grasped_steps_min": int(min(r.grasped_steps for r in runs)),
           "grasped_steps_max": int(max(r.grasped_steps for r in runs)),
           "contacts_first_step": int(first.contacts[0]) if first.contacts.size else 0,
           "contacts_min": int(contacts.min()), "contacts_max": int(contacts.max()),
           "contacts_mean": float(contacts.mean()),
           "lcp_size_first_step": int(first.lcp_size[0]) if first.lcp_size.size else 0,
           "lcp_size_min": int(sizes.min()), "lcp_size_max": int(sizes.max()), "lcp_size_mean": float(sizes.mean()),
           "mean_pivots": float(np.mean(np.concatenate([r.pivots for r in runs]))),
           "fallbacks": int(sum(r.fallbacks for r in runs)),
           "errors": [r.error for r in runs if r.error is not None]}
    if first.rank.size:
        ranks = np.concatenate([r.rank for r in runs])
        out["equality_rank_min"], out["equality_rank_max"] = int(ranks.min()), int(ranks.max())
    paper = PAPER_TABLE1.get(variant)
    out["paper_mean_s"], out["paper_std_s"] = (paper if paper else (None, None))
    return out


def pair_counts(model: Model | None = None, contacts: str = "corners") -> dict:
    """Contacts per touching pair at the start, in all, and the LCP sizes, for ``model`` (default: the scene
    with the contact generation ``contacts``)."""
    model = grasp_scene(contacts=contacts) if model is None else model
    c = collide(model, model.data(), model.neutral_q())
    names = model.body_names
    per = {f"{a}-{b}": 0 for a, b in GRASP_PAIRS}
    for i in range(c.count):
        a, b = names[c.body[i, 0]], names[c.body[i, 1]]
        per[f"{a}-{b}" if f"{a}-{b}" in per else f"{b}-{a}"] += 1
    return {"per_pair": per, "total": int(c.count), "coulomb_lcp": int(c.count * (N_F + 2)),
            "noslip_lcp": int(c.count)}


def reproduce_grasp(out_dir="soadyn-out", trials: int = TRIALS, steps: int = STEPS, force: float = GRIP_FORCE,
                    variants=None, contacts=CONTACTS, echo=print) -> dict:
    """Drumwright 2015 Table I on soadyn: every variant (default: :func:`available_variants`) on the scene of
    every contact generation in ``contacts`` (:data:`CONTACTS`), ``trials`` runs of ``steps`` steps each.
    Writes ``drumwright-grasp.csv`` (one row per generation and variant) and ``.json`` (rows, counts, the
    paper's values, the speed ratios per generation) into ``out_dir``; returns the JSON content."""
    variants = available_variants() if variants is None else tuple(variants)
    contacts = tuple(contacts)
    for c in contacts:
        if c not in CONTACT_GENERATIONS:
            raise ValueError(f"contacts: expected a subset of {tuple(CONTACT_GENERATIONS)}, got {c!r}")
    rows, ratios, counts = [], {}, {}
    pairs = [("coulomb_lemke", "noslip_ppm"), ("coulomb_lemke", "noslip_lemke"),
             ("noslip_qp_python", "noslip_ppm_python")]
    for c in contacts:
        model = grasp_scene(contacts=c)
        counts[c] = pair_counts(model)
        by = {}
        for v in variants:
            by[v] = dict(summarize(v, run_variant(v, trials, steps, force, model)), contacts=c)
            rows.append(by[v])
            echo(f"  [{c}] " + format_row(by[v]))
        ratios[c] = {f"{a}/{b}": {"run": by[a]["mean_s"] / by[b]["mean_s"],
                                  "timed": by[a]["timed_mean_s"] / by[b]["timed_mean_s"], "paper": paper_ratio(a, b)}
                     for a, b in pairs if a in by and b in by}
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    stem = out / "drumwright-grasp"
    header = ["contacts", "variant", "label", "trials", "steps", "mean_s", "std_s", "timed_steps", "timed_mean_s",
              "timed_std_s", "grasped_steps_min", "grasped_steps_max",
              "contacts_first_step", "contacts_min", "contacts_max", "lcp_size_first_step", "lcp_size_min",
              "lcp_size_max", "mean_pivots", "fallbacks", "paper_mean_s", "paper_std_s"]
    with open(f"{stem}.csv", "w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(header)
        w.writerows([[r[h] for h in header] for r in rows])
    result = {"table": "Drumwright 2015, Table I", "dt": DT, "steps": steps, "trials": trials, "n_f": N_F, "mu_c": MU,
              "grip_force_N": force, "grasp_tolerance_m": GRASP_TOL, "counts": counts,
              "paper": {"sizes": PAPER_SIZES, "table1": PAPER_TABLE1, "speedup_noslip_over_coulomb": 5.5},
              "rows": rows, "speed_ratios": ratios,
              "files": {"table": f"{stem}.csv", "summary": f"{stem}.json"}}
    Path(f"{stem}.json").write_text(json.dumps(result, indent=2) + "\n")
    return result


def paper_ratio(a: str, b: str) -> float | None:
    """The ratio of the mean times of Table I for variants ``a`` and ``b`` (the kernel and Python no-slip rows
    both stand for the paper's no-slip rows of the same solver)."""
    key = {"noslip_lemke": None, "noslip_ppm_python": "noslip_ppm"}
    pa, pb = PAPER_TABLE1.get(key.get(a, a)), PAPER_TABLE1.get(key.get(b, b))
    return None if pa is None or pb is None else pa[0] / pb[0]


def format_row(r: dict) -> str:
    """One variant as a line of text."""
    return (f"  {r['label']:<40} {r['timed_steps']} steps {1e3 * r['timed_mean_s']:7.2f} +- "
            f"{1e3 * r['timed_std_s']:6.2f} ms, {r['steps']} steps {1e3 * r['mean_s']:7.2f} +- "
            f"{1e3 * r['std_s']:6.2f} ms  grasped "
            f"{r['grasped_steps_min']:>4}/{r['steps']} steps  contacts {r['contacts_min']}-{r['contacts_max']}  "
            f"LCP {r['lcp_size_first_step']} (max {r['lcp_size_max']})  pivots {r['mean_pivots']:.1f}"
            + (f"  fallbacks {r['fallbacks']}" if r["fallbacks"] else "")
            + (f"  stopped: {r['errors'][0]}" if r["errors"] else ""))
