"""Benchmark topic loops: closed-chain forward dynamics, tree-augmented (TA) against fully augmented (FA)
models (Jain, Crean, Kuo and Quadrelli 2012, Sec. 4-5).

Models: the five mechanisms of the paper's Sec. 4 and chains of ``k`` planar four bars sharing links
(``k`` = 1, 4, 16; :mod:`soadyn.models.mechanisms`), each at its assembled initial state with a random
velocity consistent with the loops and the default driving torque plus random joint forces. Per
forward-dynamics call, as a user calls it from Python (input copy included):

- ``ta``: Jain 2012 Lemma 2 on the tree model (``loops.forward_dynamics(method="ta")``);
- ``fa_ta``: Lemma 2 on the FA model (6 nb free-body coordinates, every hinge a loop);
- ``fa_kkt``: the sparse KKT solve on the FA model (block-diagonal mass matrix, scipy ``splu``);
- ``kkt``: for context, the KKT solve on the tree model (dense CRBA mass matrix).

Ratios ``fa_ta / ta`` and ``fa_kkt / ta`` (> 1: the TA model is faster). Before timing, the three
solutions must give the same body spatial accelerations (tree: ``J_i qdd + Jdot_i qd``) to 1e-8 relative;
a disagreement raises :class:`BenchError` and nothing is timed.
"""

from __future__ import annotations

from dataclasses import asdict
from typing import Callable

import numpy as np

from .timing import FULL, QUICK, Timing, fmt_time, time_calls

__all__ = ["run", "format_table", "cases", "BenchError", "AGREE", "CHAIN_LENGTHS", "SUMMARY"]

SUMMARY = "Closed chains: TA (Lemma 2) vs FA Lemma 2 vs FA sparse KKT per forward-dynamics call."
CHAIN_LENGTHS = (1, 4, 16)
AGREE = 1e-8
"""Relative agreement of the body accelerations of TA, FA Lemma 2 and FA KKT required before timing."""
SEED = 2012
METHODS = ("ta", "fa_ta", "fa_kkt", "kkt")


class BenchError(RuntimeError):
    """The TA and FA solutions disagree: nothing is timed."""


def cases() -> list[tuple[str, Callable]]:
    """(name, model constructor) of the benchmarked mechanisms, in table order."""
    from ..models import mechanisms as mech

    out = list(mech.MECHANISMS.items())
    out += [(f"four_bar_chain{k}", lambda k=k: mech.four_bar_chain(k)) for k in CHAIN_LENGTHS]
    return out


def _body_accelerations(model, data, q, qd, qdd) -> np.ndarray:
    import soadyn as sd

    return np.concatenate([sd.frame_jacobian(model, data, q, b) @ qdd
                           + sd.frame_bias_acceleration(model, data, q, qd, b) for b in model.body_names])


def _setup(name: str, model, rng) -> tuple[dict, dict[str, Callable]]:
    """Model sizes, the agreement check and the calls to time."""
    from .. import loops
    from ..augmented import fa_forces, fa_state, fully_augmented
    from ..models import mechanisms as mech

    st = mech.initial_state(model)
    data = model.data()
    G = loops.constraint_jacobian(model, data, st.q)
    _, s, Vt = np.linalg.svd(G)
    N = Vt[int((s > 1e-10 * s[0]).sum()):]
    q, qd = st.q, 2.0 * N.T @ rng.normal(size=N.shape[0])
    tau = st.tau(model) + 0.5 * rng.normal(size=model.nv)
    fa = fully_augmented(model)
    fdata = fa.data()
    q_fa, qd_fa = fa_state(model, fa, q, qd)
    f_fa = fa_forces(model, q, tau)
    tau_fa = np.zeros(fa.nv)

    calls = {
        "ta": lambda: loops.forward_dynamics(model, data, q, qd, tau, method="ta"),
        "fa_ta": lambda: loops.forward_dynamics(fa, fdata, q_fa, qd_fa, tau_fa, f_ext=f_fa, method="ta"),
        "fa_kkt": lambda: loops.forward_dynamics(fa, fdata, q_fa, qd_fa, tau_fa, f_ext=f_fa, method="kkt"),
        "kkt": lambda: loops.forward_dynamics(model, data, q, qd, tau, method="kkt"),
    }
    qdd = calls["ta"]().copy()
    ref = _body_accelerations(model, data, q, qd, qdd)
    scale = max(1.0, float(np.abs(ref).max()))
    errors = {"kkt": float(np.abs(calls["kkt"]() - qdd).max()) / max(1.0, float(np.abs(qdd).max()))}
    for m in ("fa_ta", "fa_kkt"):
        errors[m] = float(np.abs(calls[m]() - ref).max()) / scale
    bad = {k: v for k, v in errors.items() if not v <= AGREE}
    if bad:
        raise BenchError(f"{name}: TA and FA disagree (relative error > {AGREE:g}): "
                         + ", ".join(f"{k} {v:.2e}" for k, v in bad.items()))
    sizes = {"nb": model.nb, "nv": model.nv, "nc": model.nc, "fa_nv": fa.nv, "fa_nc": fa.nc, "agreement": errors}
    return sizes, calls


def run(quick: bool = False, log: Callable[[str], None] = print) -> dict:
    """Run the topic; returns a JSON-ready dict."""
    cfg = QUICK if quick else FULL
    rng = np.random.default_rng(SEED)
    result = {"topic": "loops", "quick": quick, "agree_tolerance": AGREE, "timing": asdict(cfg), "rows": []}
    for name, build in cases():
        sizes, calls = _setup(name, build(), rng)
        t = time_calls(calls, cfg)
        row = {"model": name, **sizes, **{m: t[m].as_dict() for m in METHODS},
               "fa_ta/ta": t["fa_ta"].median / t["ta"].median, "fa_kkt/ta": t["fa_kkt"].median / t["ta"].median}
        result["rows"].append(row)
        log(f"{name}: N={sizes['nv']} nc={sizes['nc']} (FA {sizes['fa_nv']}/{sizes['fa_nc']}), agreement "
            f"{max(sizes['agreement'].values()):.1e}; ta {t['ta']}  fa_ta {t['fa_ta']}  fa_kkt {t['fa_kkt']}")
    return result


def format_table(result: dict) -> str:
    """Per-call medians and the FA/TA ratios (> 1: TA faster)."""
    lines = ["closed-chain forward dynamics per call, median; N/nc: tree dofs/closure rows, FA: 6 nb/hinge + "
             "closure rows", ""]
    head = (f"{'model':<22}{'N/nc':>7}{'FA N/nc':>9}{'TA':>10}{'FA TA':>10}{'FA KKT':>10}{'tree KKT':>10}"
            f"{'FA TA/TA':>10}{'FA KKT/TA':>11}")
    lines += [head, "-" * len(head)]
    for r in result["rows"]:
        ts = [fmt_time(Timing(**r[m]).median) for m in METHODS]
        lines.append(f"{r['model']:<22}{r['nv']:>3}/{r['nc']:<3}{r['fa_nv']:>5}/{r['fa_nc']:<3}"
                     f"{ts[0]:>10}{ts[1]:>10}{ts[2]:>10}{ts[3]:>10}{r['fa_ta/ta']:>10.2f}{r['fa_kkt/ta']:>11.2f}")
    return "\n".join(lines)
