"""Benchmark topic drumwright: contact-space solve time against the number of contacts at fixed dofs
(Drumwright 2015, Secs. V-VI: the modified PPM I is ``O(m^3 + m^2 n)`` for ``m`` dofs and ``n`` contacts,
i.e. linear in the contacts at fixed dofs; Lemke on the Coulomb pyramid grows like ``n^3``).

Scene: ``BOXES`` free boxes (6 dofs each: ``6 BOXES`` dofs whatever the contact count) falling onto a plane
while sliding and spinning, ``m`` contacts spread over their bottom faces (coplanar points, so most are
redundant: each box's tangential rows span 3 directions, its normal rows 3). ``W = G M^-1 G^T`` and
``vf = G (v + dt M^-1 f)`` are built outside the timing. Per solve, kernel calls as the step kernel makes
them (preallocated outputs):

- ``noslip_ppm``, ``noslip_lemke``: no-slip (Sec. VI) by PPM and by Lemke on the same normal LCP;
- ``viscous_ppm``, ``viscous_lemke``: purely viscous friction (Sec. IV, ``mu_v = MU_V``);
- ``coulomb_lemke``: the Stewart-Trinkle pyramid (``n_f = 4``, ``mu = MU``; LCP order ``6 m``), up to
  ``COULOMB_MAX`` contacts (its dense Lemke tableau grows as ``m^2`` per pivot), with Tikhonov retries
  (``TIKHONOV``) when Lemke stops on a ray.

Before timing, PPM and Lemke must give the same post-step velocities (``AGREE`` relative) and no-slip
tangential velocities must vanish; otherwise :class:`BenchError`. The growth exponent is the least-squares
slope of ``log(time)`` against ``log(m)`` over ``m >= FIT_FROM``, from the medians and from the minima
(the latter less sensitive to a busy shared machine).
"""

from __future__ import annotations

from dataclasses import asdict
from typing import Callable

import numpy as np

from .timing import FULL, QUICK, Timing, fmt_time, time_calls

__all__ = ["run", "format_table", "scene", "growth_exponent", "BenchError", "CONTACTS", "QUICK_CONTACTS",
           "SUMMARY"]

SUMMARY = "Drumwright 2015 contact solvers: no-slip/viscous PPM vs Lemke and the Coulomb pyramid, 4..400 contacts."
CONTACTS = (4, 8, 16, 32, 64, 128, 256, 400)
QUICK_CONTACTS = (4, 16, 64, 256)
COULOMB_MAX = 128
BOXES = 5
MU = 0.5
MU_V = 2.0
DT = 1e-3
AGREE = 1e-8
FIT_FROM = 16
TIKHONOV = 1e-8
"""Lemke's first Tikhonov retry on the Coulomb pyramid, relative to the largest diagonal entry of ``W``
(Drumwright 2015 Sec. VII-A: "employing Tikhonov regularization as necessary")."""
TOL = 1e-10
SEED = 2015
METHODS = ("noslip_ppm", "noslip_lemke", "viscous_ppm", "viscous_lemke", "coulomb_lemke")


class BenchError(RuntimeError):
    """PPM and Lemke disagree, or a solver failed: nothing is timed."""


def scene(m: int, boxes: int = BOXES, seed: int = SEED) -> tuple[np.ndarray, np.ndarray]:
    """``(W, vf)`` for ``m`` contacts spread over ``boxes`` falling, sliding boxes (module docstring)."""
    rng = np.random.default_rng(seed)
    nv = 6 * boxes
    Minv = np.zeros((nv, nv))
    v = np.zeros(nv)
    for b in range(boxes):
        I = rng.uniform(0.05, 0.3, size=3)
        mass = rng.uniform(0.5, 3.0)
        Minv[6 * b:6 * b + 6, 6 * b:6 * b + 6] = np.diag(np.concatenate([1.0 / I, np.full(3, 1.0 / mass)]))
        v[6 * b:6 * b + 6] = [0.0, 0.0, rng.normal(), rng.normal(), rng.normal(), -1.0]
    v[5::6] -= DT * 9.81
    n, t1, t2 = np.eye(3)[2], np.eye(3)[0], np.eye(3)[1]
    G = np.zeros((3 * m, nv))
    for i in range(m):
        b = i % boxes
        r = np.array([rng.uniform(-0.2, 0.2), rng.uniform(-0.1, 0.1), -0.05])
        for d, dvec in enumerate((n, t1, t2)):
            G[3 * i + d, 6 * b:6 * b + 3] = np.cross(r, dvec)
            G[3 * i + d, 6 * b + 3:6 * b + 6] = dvec
    W = G @ Minv @ G.T
    return np.ascontiguousarray(0.5 * (W + W.T)), G @ v


def growth_exponent(ms, times) -> float:
    """Least-squares slope of ``log t`` against ``log m`` over ``m >= FIT_FROM`` (nan with fewer than 2)."""
    pts = [(np.log(m), np.log(t)) for m, t in zip(ms, times) if m >= FIT_FROM and t == t]
    if len(pts) < 2:
        return float("nan")
    x, y = np.array(pts).T
    return float(np.polyfit(x, y, 1)[0])


def _calls(W, vf, m):
    """The kernel calls to time and the outputs they fill."""
    from .._kernels import drumwright as K

    n = W.shape[0]
    mu_v = np.full(m, MU_V)
    mu = np.full(m, MU)
    warm = np.zeros(0, dtype=np.int64)
    tikhonov = TIKHONOV * float(np.diag(W).max())
    out = {name: (np.zeros(n), np.zeros(K.DW_INFO_SIZE)) for name in METHODS}

    def call(name):
        p, info = out[name]
        if name == "noslip_ppm":
            return K.noslip_solve(W, vf, 0, m, K.SOLVER_PPM, 0, 0.0, TOL, warm, p, info)
        if name == "noslip_lemke":
            return K.noslip_solve(W, vf, 0, m, K.SOLVER_LEMKE, 0, 0.0, TOL, warm, p, info)
        if name == "viscous_ppm":
            return K.viscous_solve(W, vf, 0, m, mu_v, DT, K.SOLVER_PPM, 0, 0.0, TOL, warm, p, info)
        if name == "viscous_lemke":
            return K.viscous_solve(W, vf, 0, m, mu_v, DT, K.SOLVER_LEMKE, 0, 0.0, TOL, warm, p, info)
        return K.coulomb_solve(W, vf, 0, m, mu, 4, 0, tikhonov, TOL, p, info)

    return call, out


def _check(W, vf, m, call, out, methods) -> dict:
    """Solve once with each method; BenchError unless they succeed and agree. Returns the statistics."""
    from .._kernels import drumwright as K

    stats = {}
    for name in methods:
        st = call(name)
        if st != 0:
            raise BenchError(f"m={m}: {name} failed with status {st}")
        p, info = out[name]
        stats[name] = {"pivots": int(info[K.DW_PIVOTS]), "fallback": bool(info[K.DW_FALLBACK]),
                       "active": int(info[K.DW_ACTIVE]), "rank": int(info[K.DW_RANK]),
                       "lcp_size": int(info[K.DW_LCP_SIZE]),
                       "regularization": float(info[K.DW_TIKHONOV])}
    scale = max(1.0, float(np.abs(vf).max()))
    v = {name: W @ out[name][0] + vf for name in methods}
    errors = {"noslip": float(np.abs(v["noslip_ppm"] - v["noslip_lemke"]).max()) / scale,
              "viscous": float(np.abs(v["viscous_ppm"] - v["viscous_lemke"]).max()) / scale,
              "noslip_tangential": float(np.abs(np.delete(v["noslip_ppm"], np.s_[::3])).max()) / scale}
    bad = {k: e for k, e in errors.items() if not e <= AGREE}
    if bad:
        raise BenchError(f"m={m}: " + ", ".join(f"{k} {e:.2e}" for k, e in bad.items()) + f" > {AGREE:g}")
    return {"stats": stats, "agreement": errors}


def run(quick: bool = False, log: Callable[[str], None] = print, contacts=None) -> dict:
    """Run the sweep; returns a JSON-ready dict with ``rows`` (one per contact count: per-method timings,
    pivots, active contacts, LCP sizes, agreement) and ``growth`` (fitted exponent per method)."""
    cfg = QUICK if quick else FULL
    ms = tuple(contacts) if contacts is not None else (QUICK_CONTACTS if quick else CONTACTS)
    result = {"topic": "drumwright", "quick": quick, "dofs": 6 * BOXES, "agree_tolerance": AGREE,
              "coulomb_max": COULOMB_MAX, "timing": asdict(cfg), "rows": []}
    for m in ms:
        W, vf = scene(m)
        methods = [k for k in METHODS if k != "coulomb_lemke" or m <= COULOMB_MAX]
        call, out = _calls(W, vf, m)
        checked = _check(W, vf, m, call, out, methods)
        t = time_calls({name: (lambda name=name: call(name)) for name in methods}, cfg)
        row = {"contacts": m, "rows": W.shape[0], **checked,
               **{name: (t[name].as_dict() if name in t else None) for name in METHODS},
               "noslip_lemke/ppm": t["noslip_lemke"].median / t["noslip_ppm"].median,
               "viscous_lemke/ppm": t["viscous_lemke"].median / t["viscous_ppm"].median}
        if "coulomb_lemke" in t:
            row["coulomb/noslip_ppm"] = t["coulomb_lemke"].median / t["noslip_ppm"].median
        result["rows"].append(row)
        log(f"m={m}: " + "  ".join(f"{k} {t[k]}" for k in methods))
    for key, stat in (("growth", "median"), ("growth_min", "min")):
        result[key] = {name: growth_exponent([r["contacts"] for r in result["rows"] if r[name]],
                                             [r[name][stat] for r in result["rows"] if r[name]])
                       for name in METHODS}
    return result


def format_table(result: dict) -> str:
    """Per-solve medians, pivots of PPM, speedups and the fitted growth exponents."""
    lines = [f"contact solve per call (median), {result['dofs']} dofs; PPM pivots in brackets", ""]
    head = (f"{'m':>5}{'no-slip PPM':>18}{'no-slip Lemke':>15}{'viscous PPM':>18}{'viscous Lemke':>15}"
            f"{'Coulomb Lemke':>15}{'NS L/P':>8}{'V L/P':>8}{'C/NS':>8}")
    lines += [head, "-" * len(head)]
    for r in result["rows"]:
        def cell(name, piv=False):
            if r[name] is None:
                return "-"
            s = fmt_time(Timing(**r[name]).median)
            return f"{s} [{r['stats'][name]['pivots']}]" if piv else s
        cs = r.get("coulomb/noslip_ppm")
        lines.append(f"{r['contacts']:>5}{cell('noslip_ppm', True):>18}{cell('noslip_lemke'):>15}"
                     f"{cell('viscous_ppm', True):>18}{cell('viscous_lemke'):>15}{cell('coulomb_lemke'):>15}"
                     f"{r['noslip_lemke/ppm']:>8.2f}{r['viscous_lemke/ppm']:>8.2f}"
                     f"{(f'{cs:.1f}' if cs else '-'):>8}")
    lines.append("")
    for key, stat in (("growth", "medians"), ("growth_min", "minima")):
        lines.append(f"growth exponent (time ~ m^k, m >= {FIT_FROM}, {stat}): "
                     + ", ".join(f"{k} {v:.2f}" for k, v in result[key].items()))
    return "\n".join(lines)
