"""Benchmark topic osim: the operational space compliance Lambda^-1 = J M^-1 J^T.

soadyn's ``osim_inv`` (Jain's O(N + n_c^2) recursion) against Pinocchio's ``computeDelassusMatrix`` (the
same quantity for rigid constraints at the same frames) and against the dense route (frame Jacobians, CRBA
and a Cholesky solve), on revolute chains of 6, 30, 120 and 240 links with 1, 2, 4 and 8 nodes (6-D and
3-D point nodes spread evenly from the tip towards the base) and on Talos' two grippers. Reports the
ratio to Pinocchio per cell, the log-log slope of the time in N from 30 to 240 links at a fixed node
count, and the full control cycle of the humanoid24 operational space controller with its 2 hands.
Both libraries must agree (1e-8 relative) before anything is timed.
"""

from __future__ import annotations

from typing import Callable

import numpy as np
import scipy.linalg

import soadyn as sd

from .dynamics import Pair, load_chain, load_talos
from .timing import FULL, QUICK, time_calls

SUMMARY = "Lambda^-1: soadyn osim_inv vs Pinocchio computeDelassusMatrix vs dense; N scaling; OSC cycle."
CHAIN_SIZES = (6, 30, 120, 240)
NODE_COUNTS = (1, 2, 4, 8)
AGREE = 1e-8
SEED = 7


class BenchError(RuntimeError):
    """soadyn and Pinocchio disagree: nothing is timed."""


def _swap(dim: int) -> np.ndarray:
    """Row permutation from soadyn's ``[w; v]`` node rows to Pinocchio's ``[v; w]``."""
    return np.eye(6)[[3, 4, 5, 0, 1, 2]] if dim == 6 else np.eye(3)


def _nodes(pair: Pair, count: int) -> list[str]:
    """``count`` link frames spread evenly from the tip towards the base."""
    links = list(pair.sd_model.body_names)
    idx = np.linspace(len(links) - 1, len(links) // 4, count).round().astype(int)
    return [links[i] for i in idx]


def _pin_constraints(pin, pm, frames, dim):
    ctype = pin.ContactType.CONTACT_6D if dim == 6 else pin.ContactType.CONTACT_3D
    cms, cds = pin.StdVec_RigidConstraintModel(), pin.StdVec_RigidConstraintData()
    for f in frames:
        fr = pm.frames[pm.getFrameId(f)]
        cm = pin.RigidConstraintModel(ctype, pm, fr.parentJoint, fr.placement, pin.ReferenceFrame.LOCAL)
        cms.append(cm)
        cds.append(cm.createData())
    return cms, cds


def _calls(pair: Pair, frames, dim, rng) -> dict[str, Callable]:
    import pinocchio as pin

    m, pm = pair.sd_model, pair.pin_model
    data, pd = m.data(), pm.createData()
    q = m.random_q(rng)
    qp = pair.q_pin(q)
    cms, cds = _pin_constraints(pin, pm, frames, dim)
    pin.initConstraintDynamics(pm, pd, cms, cds)
    ref = pin.computeDelassusMatrix(pm, pd, qp, cms, cds, 0.0)
    P = np.kron(np.eye(len(frames)), _swap(dim))
    L = P @ sd.osim_inv(m, data, q, frames, dim) @ P.T
    err = np.abs(L - ref).max() / max(1.0, np.abs(ref).max())
    if not err <= AGREE:
        raise BenchError(f"{pair.name}: osim_inv and computeDelassusMatrix differ by {err:.2e} (relative)")
    sel = np.eye(6) if dim == 6 else np.eye(6)[3:]

    def dense():
        J = np.vstack([sel @ sd.frame_jacobian(m, data, q, f) for f in frames])
        c = scipy.linalg.cho_factor(sd.crba(m, data, q))
        return J @ scipy.linalg.cho_solve(c, J.T)

    return {
        "soadyn": lambda: sd.osim_inv(m, data, q, frames, dim),
        "pinocchio": lambda: pin.computeDelassusMatrix(pm, pd, qp, cms, cds, 0.0),
        "dense": dense,
    }


def _cycle(cfg) -> dict:
    from ..control import OperationalSpaceController, Task
    from ..models.humanoid import humanoid24, humanoid24_posture

    model = humanoid24()
    q = humanoid24_posture(model)
    qd = np.random.default_rng(SEED).normal(size=model.nv) * 0.3
    ctl = OperationalSpaceController(model, [Task("right_hand", "pose"), Task("left_hand", "position")])
    ctl.hold(q)
    t = time_calls({"cycle": lambda: ctl.compute(q, qd)}, cfg)["cycle"]
    return {"model": "humanoid24", "nodes": 2, "rows": 9, "timing": t.as_dict()}


def run(quick: bool = False, log: Callable[[str], None] = print) -> dict:
    cfg = QUICK if quick else FULL
    rng = np.random.default_rng(SEED)
    sizes = CHAIN_SIZES[:2] if quick else CHAIN_SIZES
    counts = NODE_COUNTS[:2] if quick else NODE_COUNTS
    rows = []
    for n in sizes:
        pair = load_chain(n)
        for count in counts:
            for dim in (6, 3):
                frames = _nodes(pair, count)
                t = time_calls(_calls(pair, frames, dim, rng), cfg)
                rows.append({"model": f"chain{n}", "n": n, "nodes": count, "dim": dim,
                             **{k: v.as_dict() for k, v in t.items()}})
                log(f"chain{n:<4d} {count} x {dim}-D: soadyn {t['soadyn']}  pinocchio {t['pinocchio']}  "
                    f"dense {t['dense']}")
    if not quick:
        try:
            pair = load_talos()
        except ValueError as exc:
            log(f"talos skipped: {exc}")
        else:
            for dim in (6, 3):
                frames = ["gripper_left_base_link", "gripper_right_base_link"]
                t = time_calls(_calls(pair, frames, dim, rng), cfg)
                rows.append({"model": "talos", "n": pair.sd_model.nv, "nodes": 2, "dim": dim,
                             **{k: v.as_dict() for k, v in t.items()}})
    slopes = []
    if len(sizes) > 2:
        for count in counts:
            for dim in (6, 3):
                pts = [(r["n"], r["soadyn"]["median"]) for r in rows
                       if r["model"].startswith("chain") and r["nodes"] == count and r["dim"] == dim and r["n"] >= 30]
                (n0, t0), (n1, t1) = pts[0], pts[-1]
                slopes.append({"nodes": count, "dim": dim, "from": n0, "to": n1,
                               "slope": float(np.log(t1 / t0) / np.log(n1 / n0))})
    return {"topic": "osim", "rows": rows, "slopes": slopes, "cycle": _cycle(cfg)}


def format_table(result: dict) -> str:
    from .timing import fmt_time

    lines = [f"{'model':<10}{'nodes':>6}{'dim':>5}{'soadyn':>12}{'pinocchio':>12}{'dense':>12}{'sd/pin':>9}"
             f"{'dense/sd':>10}"]
    for r in result["rows"]:
        s, p, d = r["soadyn"]["median"], r["pinocchio"]["median"], r["dense"]["median"]
        lines.append(f"{r['model']:<10}{r['nodes']:>6}{r['dim']:>5}{fmt_time(s):>12}{fmt_time(p):>12}"
                     f"{fmt_time(d):>12}{s / p:>9.2f}{d / s:>10.1f}")
    if result["slopes"]:
        lines.append("")
        lines.append("log-log slope of soadyn's time in N (fixed nodes): " + ", ".join(
            f"{s['nodes']}x{s['dim']}D {s['slope']:.2f}" for s in result["slopes"]))
    c = result["cycle"]
    lines.append(f"OSC control cycle, {c['model']} with {c['nodes']} points ({c['rows']} task rows): "
                 f"{fmt_time(c['timing']['median'])} per cycle")
    return "\n".join(lines)
