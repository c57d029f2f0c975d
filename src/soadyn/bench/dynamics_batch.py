"""Batches for the dynamics benchmark: ``sd.aba_batch`` / ``sd.rnea_batch`` (one kernel call, numba threads)
against Pinocchio's ``abaInParallel`` / ``rneaInParallel`` over a ``pin.ModelPool`` (one call, OpenMP
threads), per state, at the same thread counts.
"""

from __future__ import annotations

import numpy as np

from .timing import Timing, TimingConfig, time_calls

__all__ = ["THREADS", "time_parallel"]

THREADS = (1, 2)
"""Thread counts compared (both libraries use the same count)."""


def time_parallel(pair, K: int, cfg: TimingConfig, rng, agree: float, error) -> dict:
    """Per-state times of the batched ABA and RNEA of both libraries over K random states, for each thread
    count of :data:`THREADS` that this machine has; the results must agree (``agree`` relative, else
    ``error`` is raised) before anything is timed."""
    import numba
    import pinocchio as pin

    import soadyn as sd

    m, pm = pair.sd_model, pair.pin_model
    Q = np.array([m.random_q(rng) for _ in range(K)])
    QD, X = rng.normal(size=(2, K, m.nv))
    # Pinocchio takes one state per column
    Qp = np.asfortranarray(Q[:, pair.q_sd2pin].T)
    Vp = np.asfortranarray(QD[:, pair.v_sd2pin].T)
    Xp = np.asfortranarray(X[:, pair.v_sd2pin].T)
    pool = pin.ModelPool(pm, max(THREADS))
    out = np.zeros((pm.nv, K), order="F")
    pin.abaInParallel(1, pool, Qp, Vp, Xp, out)
    err_aba = _rel(sd.aba_batch(m, Q, QD, X)[:, pair.v_sd2pin].T, out)
    pin.rneaInParallel(1, pool, Qp, Vp, Xp, out)
    err_rnea = _rel(sd.rnea_batch(m, Q, QD, X)[:, pair.v_sd2pin].T, out)
    if not max(err_aba, err_rnea) <= agree:
        raise error(f"{pair.name}: batches disagree with Pinocchio (aba {err_aba:.2e}, rnea {err_rnea:.2e})")
    batch_cfg = TimingConfig(warmup_s=cfg.warmup_s, sample_s=cfg.sample_s, repeats=max(3, cfg.repeats // 3),
                             max_number=cfg.max_number)
    before = numba.get_num_threads()
    result = {"K": K, "max_rel_error": max(err_aba, err_rnea), "threads": {}}
    try:
        for nt in THREADS:
            if nt > numba.config.NUMBA_NUM_THREADS:
                continue
            numba.set_num_threads(nt)
            t = time_calls({
                "aba_soadyn": lambda: sd.aba_batch(m, Q, QD, X),
                "aba_pinocchio": lambda: pin.abaInParallel(nt, pool, Qp, Vp, Xp, out),
                "rnea_soadyn": lambda: sd.rnea_batch(m, Q, QD, X),
                "rnea_pinocchio": lambda: pin.rneaInParallel(nt, pool, Qp, Vp, Xp, out),
            }, batch_cfg)
            row = {k: Timing(v.median / K, v.min / K, v.max / K, v.number, v.repeats).as_dict() for k, v in t.items()}
            for alg in ("aba", "rnea"):
                row[f"{alg}_ratio"] = t[f"{alg}_soadyn"].median / t[f"{alg}_pinocchio"].median
            result["threads"][str(nt)] = row
    finally:
        numba.set_num_threads(before)
    return result


def _rel(a: np.ndarray, b: np.ndarray) -> float:
    return float(np.abs(a - b).max() / max(1.0, float(np.abs(b).max())))
