"""Benchmark topic derivatives: soadyn vs Pinocchio for the analytical dynamics derivatives.

Per call, as a user calls them from Python: ``sd.derivatives.rnea_derivatives`` against
``pin.computeRNEADerivatives``, ``sd.derivatives.aba_derivatives`` against ``pin.computeABADerivatives``
(both return dtau/dq, dtau/dqd, M, respectively dqdd/dq, dqdd/dqd, M^-1), and the batched ABA derivatives
over K states (one kernel call, numba threads) against a Python loop of ``pin.computeABADerivatives``.
Models: the revolute chains of 6 and 30 links and Talos with a floating base of the dynamics topic
(:mod:`soadyn.bench.dynamics`). Before timing, both libraries are evaluated at one random state and
must agree to 1e-8 relative; a disagreement aborts the benchmark.
"""

from __future__ import annotations

import time
from dataclasses import asdict
from typing import Callable

import numpy as np

from .dynamics import AGREE, SEED, BenchError, Pair, load_chain, load_talos
from .timing import FULL, QUICK, Timing, TimingConfig, time_calls

__all__ = ["run", "format_table", "check_agreement", "time_model", "time_batch", "ALGORITHMS", "BenchError"]

SUMMARY = "soadyn vs Pinocchio: RNEA and ABA derivatives per call; batched ABA derivatives vs a Pinocchio loop."
ALGORITHMS = ("rnea_derivatives", "aba_derivatives")
CHAIN_SIZES = (6, 30)
BATCH_K = 500
BATCH_K_QUICK = 50


def _pin_matrix(pair: Pair, A_sd: np.ndarray) -> np.ndarray:
    return np.ascontiguousarray(A_sd[np.ix_(pair.v_sd2pin, pair.v_sd2pin)])


def _sym(U: np.ndarray) -> np.ndarray:
    return np.triu(U) + np.triu(U, 1).T


def _state(pair: Pair, rng):
    m = pair.sd_model
    q = m.random_q(rng)
    qd, qdd, tau = rng.normal(size=(3, m.nv))
    return q, qd, qdd, tau, pair.q_pin(q), pair.v_pin(qd), pair.v_pin(qdd), pair.v_pin(tau)


def check_agreement(pair: Pair, rng) -> dict:
    """Both libraries' derivatives at one random state; :class:`BenchError` beyond ``AGREE``."""
    import pinocchio as pin

    from .. import derivatives as D

    m, d, pm, pd = pair.sd_model, pair.sd_data, pair.pin_model, pair.pin_data
    q, qd, qdd, tau, qp, vp, ap, tp = _state(pair, rng)
    r = D.rnea_derivatives(m, d, q, qd, qdd)
    dq, dv, da = pin.computeRNEADerivatives(pm, pd, qp, vp, ap)
    errors = {}
    pairs = [("dtau_dq", r.dtau_dq, dq), ("dtau_dqd", r.dtau_dqd, dv), ("M", r.M, _sym(da))]
    a = D.aba_derivatives(m, d, q, qd, tau)
    pairs += list(zip(("dqdd_dq", "dqdd_dqd", "Minv"), a[1:], pin.computeABADerivatives(pm, pd, qp, vp, tp)))
    for name, mine, theirs in pairs:
        theirs = np.asarray(theirs)
        errors[name] = float(np.abs(_pin_matrix(pair, mine) - theirs).max() / max(1.0, float(np.abs(theirs).max())))
    bad = {k: v for k, v in errors.items() if not v <= AGREE}
    if bad:
        raise BenchError(f"{pair.name}: soadyn and Pinocchio derivatives disagree (relative error > {AGREE:g}): "
                         + ", ".join(f"{k} {v:.3e}" for k, v in bad.items()))
    return errors


def time_model(pair: Pair, cfg: TimingConfig, rng) -> dict:
    import pinocchio as pin

    from .. import derivatives as D

    m, d, pm, pd = pair.sd_model, pair.sd_data, pair.pin_model, pair.pin_data
    q, qd, qdd, tau, qp, vp, ap, tp = _state(pair, rng)
    calls = {
        "rnea_derivatives": (lambda: D.rnea_derivatives(m, d, q, qd, qdd),
                             lambda: pin.computeRNEADerivatives(pm, pd, qp, vp, ap)),
        "aba_derivatives": (lambda: D.aba_derivatives(m, d, q, qd, tau),
                            lambda: pin.computeABADerivatives(pm, pd, qp, vp, tp)),
    }
    out = {}
    for alg, (f_sd, f_pin) in calls.items():
        t = time_calls({"soadyn": f_sd, "pinocchio": f_pin}, cfg)
        out[alg] = {"soadyn": t["soadyn"].as_dict(), "pinocchio": t["pinocchio"].as_dict(),
                    "ratio": t["soadyn"].median / t["pinocchio"].median}
    return out


def time_batch(pair: Pair, K: int, cfg: TimingConfig, rng) -> dict:
    """``aba_derivatives_batch`` over K states vs a Python loop of ``pin.computeABADerivatives``."""
    import pinocchio as pin

    from .. import derivatives as D

    m, pm, pd = pair.sd_model, pair.pin_model, pair.pin_data
    Q = np.array([m.random_q(rng) for _ in range(K)])
    QD, TAU = rng.normal(size=(2, K, m.nv))
    Qp, Vp, Tp = [pair.q_pin(x) for x in Q], [pair.v_pin(x) for x in QD], [pair.v_pin(x) for x in TAU]
    got = D.aba_derivatives_batch(m, Q, QD, TAU)[1][-1]
    ref = pin.computeABADerivatives(pm, pd, Qp[-1], Vp[-1], Tp[-1])[0]
    err = float(np.abs(_pin_matrix(pair, got) - ref).max() / max(1.0, float(np.abs(ref).max())))
    if not err <= AGREE:
        raise BenchError(f"{pair.name}: aba_derivatives_batch disagrees with Pinocchio (relative error {err:.3e})")

    def pin_loop():
        for k in range(K):
            pin.computeABADerivatives(pm, pd, Qp[k], Vp[k], Tp[k])

    batch_cfg = TimingConfig(warmup_s=cfg.warmup_s, sample_s=cfg.sample_s, repeats=max(3, cfg.repeats // 3),
                             max_number=cfg.max_number)
    t = time_calls({"soadyn_batch": lambda: D.aba_derivatives_batch(m, Q, QD, TAU), "pinocchio_loop": pin_loop},
                   batch_cfg)
    per_state = {k: Timing(v.median / K, v.min / K, v.max / K, v.number, v.repeats).as_dict() for k, v in t.items()}
    return {"K": K, "max_rel_error": err, **per_state,
            "speedup_vs_pinocchio_loop": t["pinocchio_loop"].median / t["soadyn_batch"].median}


def run(quick: bool = False, log: Callable[[str], None] = print) -> dict:
    """Run the topic; returns a JSON-ready dict."""
    try:
        import pinocchio  # noqa: F401
    except ImportError:
        raise BenchError("the derivatives benchmark needs Pinocchio: pip install pin (or soadyn[test])") from None
    cfg = QUICK if quick else FULL
    K = BATCH_K_QUICK if quick else BATCH_K
    rng = np.random.default_rng(SEED)
    result = {"topic": "derivatives", "quick": quick, "agree_tolerance": AGREE, "timing": asdict(cfg),
              "batch_K": K, "models": {}}
    specs = [(f"chain{n}", lambda n=n: load_chain(n)) for n in CHAIN_SIZES] + [("talos", load_talos)]
    for name, load in specs:
        t0 = time.perf_counter()
        try:
            pair = load()
        except ValueError as exc:  # example-robot-data missing
            log(f"{name}: skipped ({exc})")
            result.setdefault("skipped", {})[name] = str(exc)
            continue
        errors = check_agreement(pair, rng)
        log(f"{name}: nv={pair.sd_model.nv}, agreement with Pinocchio {max(errors.values()):.1e} "
            f"(checked in {time.perf_counter() - t0:.1f} s); timing ...")
        result["models"][name] = {"nv": pair.sd_model.nv, "agreement": errors,
                                  "algorithms": time_model(pair, cfg, rng),
                                  "aba_derivatives_batch": time_batch(pair, K, cfg, rng)}
    return result


def format_table(result: dict) -> str:
    """Per-call table (median [min, max], ratio soadyn / Pinocchio) and the batch table."""
    lines = ["per call, median [min, max]; ratio = soadyn / Pinocchio median (< 1: soadyn faster)", ""]
    head = f"{'model':<8} {'nv':>4}  {'algorithm':<17} {'soadyn':>30} {'Pinocchio':>30} {'ratio':>6}"
    lines += [head, "-" * len(head)]
    for name, e in result["models"].items():
        for alg in ALGORITHMS:
            a = e["algorithms"][alg]
            s, p = Timing(**a["soadyn"]), Timing(**a["pinocchio"])
            lines.append(f"{name:<8} {e['nv']:>4}  {alg:<17} {str(s):>30} {str(p):>30} {a['ratio']:>6.2f}")
    lines += ["", f"aba derivatives over K={result['batch_K']} random states, per state, median [min, max]", ""]
    head = f"{'model':<8} {'sd.aba_derivatives_batch':>30} {'pin loop':>30} {'speedup':>8}"
    lines += [head, "-" * len(head)]
    for name, e in result["models"].items():
        b = e["aba_derivatives_batch"]
        lines.append(f"{name:<8} {str(Timing(**b['soadyn_batch'])):>30} {str(Timing(**b['pinocchio_loop'])):>30} "
                     f"{b['speedup_vs_pinocchio_loop']:>7.1f}x")
    return "\n".join(lines)
