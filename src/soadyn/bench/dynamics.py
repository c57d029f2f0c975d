"""Benchmark topic dynamics: soadyn vs Pinocchio for RNEA, CRBA, ABA and M^-1, and the batched ABA.

Models: revolute chains of 6, 30 and 120 links (one URDF string loaded into both libraries; joint axes
cycle x, y, z; inertias and joint offsets drawn once from a fixed seed) and Talos from
example-robot-data with a floating base. Before timing, both libraries are evaluated at one random
state and must agree (M, M^-1, tau and qdd to 1e-8 relative); a disagreement aborts the benchmark.

Both sides are timed as a user calls them from Python: ``sd.rnea(model, data, q, qd, qdd)`` (input
validation and the copy into ``data`` included) against ``pin.rnea(model, data, q, v, a)``. The batch
row compares ``sd.aba_batch`` over K states (one kernel call, numba threads) with a Python loop of
``pin.aba``, and for context with a Python loop of ``sd.aba``.
"""

from __future__ import annotations

import time
from dataclasses import asdict
from typing import Callable

import numpy as np

from .timing import FULL, QUICK, Timing, TimingConfig, time_calls

__all__ = ["run", "format_table", "chain_urdf", "Pair", "load_chain", "load_talos", "check_agreement", "time_model",
           "time_batch", "ALGORITHMS", "CHAIN_SIZES", "AGREE", "BenchError"]

SUMMARY = "soadyn vs Pinocchio: RNEA, CRBA, ABA, M^-1 per call; batched ABA vs a pin.aba loop."
ALGORITHMS = ("rnea", "crba", "aba", "minv")
CHAIN_SIZES = (6, 30, 120)
BATCH_K = 1000
BATCH_K_QUICK = 100
AGREE = 1e-8
"""Relative agreement required between soadyn and Pinocchio before anything is timed."""
SEED = 20240607


class BenchError(RuntimeError):
    """The two libraries disagree, or a model cannot be built: nothing is timed."""


# ------------------------------------------------------------------------------------------------ models
def chain_urdf(n: int, seed: int = SEED) -> str:
    """A URDF string of an ``n``-link revolute chain fixed to the world.

    Joint ``i`` turns about axis ``x``, ``y``, ``z`` for ``i % 3 = 0, 1, 2``; joint origins, link masses,
    centres of mass and inertia tensors are drawn once from ``seed`` (positive definite tensors that
    satisfy the triangle inequality).
    """
    rng = np.random.default_rng(seed)
    axes = ("1 0 0", "0 1 0", "0 0 1")
    out = [f'<robot name="chain{n}">', '  <link name="base"/>']
    for i in range(n):
        mass = rng.uniform(0.5, 2.0)
        com = rng.uniform(-0.1, 0.1, 3)
        principal = rng.uniform(0.01, 0.05, 3)
        principal = np.minimum(principal, 0.95 * (principal.sum() - principal))  # triangle inequality
        A = rng.normal(size=(3, 3))
        R, _ = np.linalg.qr(A)
        Ic = R @ np.diag(principal) @ R.T
        xyz = np.r_[rng.uniform(-0.05, 0.05, 2), rng.uniform(0.1, 0.3)]
        rpy = rng.uniform(-0.3, 0.3, 3)
        parent = "base" if i == 0 else f"link{i - 1}"
        out += [
            f'  <link name="link{i}">',
            "    <inertial>",
            f'      <origin xyz="{_v(com)}" rpy="0 0 0"/>',
            f'      <mass value="{float(mass)!r}"/>',
            "      <inertia " + " ".join(f'i{"xyz"[a]}{"xyz"[b]}="{float(Ic[a, b])!r}"'
                                        for a, b in ((0, 0), (0, 1), (0, 2), (1, 1), (1, 2), (2, 2))) + "/>",
            "    </inertial>",
            "  </link>",
            f'  <joint name="joint{i}" type="revolute">',
            f'    <parent link="{parent}"/>',
            f'    <child link="link{i}"/>',
            f'    <origin xyz="{_v(xyz)}" rpy="{_v(rpy)}"/>',
            f'    <axis xyz="{axes[i % 3]}"/>',
            '    <limit lower="-3.14" upper="3.14" effort="100" velocity="10"/>',
            "  </joint>",
        ]
    out.append("</robot>")
    return "\n".join(out) + "\n"


def _v(x) -> str:
    return " ".join(repr(float(a)) for a in x)


class Pair:
    """One model loaded into both libraries, with the maps between their coordinates.

    Pinocchio orders a free-flyer velocity ``[v; w]``, soadyn ``[w; v]``; joints are matched by name
    (the free joint by type). ``q_sd2pin`` / ``v_sd2pin`` are index arrays: ``x_pin = x_sd[v_sd2pin]``.
    """

    def __init__(self, name: str, sd_model, pin_model):
        import pinocchio as pin

        from .. import joints as J

        self.name = name
        self.sd_model = sd_model
        self.pin_model = pin_model
        self.sd_data = sd_model.data()
        self.pin_data = pin_model.createData()
        if sd_model.nq != pin_model.nq or sd_model.nv != pin_model.nv:
            raise BenchError(f"{name}: soadyn nq={sd_model.nq} nv={sd_model.nv}, "
                             f"Pinocchio nq={pin_model.nq} nv={pin_model.nv}")
        q_map = np.full(pin_model.nq, -1, dtype=np.int64)
        v_map = np.full(pin_model.nv, -1, dtype=np.int64)
        sd_joint = {nm: i for i, nm in enumerate(sd_model.jnt_names)}
        free_sd = [i for i in range(sd_model.nb) if sd_model.jnt_type[i] == J.FREE]
        for jid in range(1, pin_model.njoints):
            jm = pin_model.joints[jid]
            pname = pin_model.names[jid]
            if jm.shortname() == "JointModelFreeFlyer":
                if len(free_sd) != 1:
                    raise BenchError(f"{name}: cannot match Pinocchio's free flyer {pname!r}")
                i = free_sd[0]
                qa, va = sd_model.jnt_qadr[i], sd_model.jnt_vadr[i]
                q_map[jm.idx_q:jm.idx_q + 7] = np.arange(qa, qa + 7)  # [p; quat xyzw] in both
                v_map[jm.idx_v:jm.idx_v + 3] = np.arange(va + 3, va + 6)  # pin linear <- sd linear
                v_map[jm.idx_v + 3:jm.idx_v + 6] = np.arange(va, va + 3)  # pin angular <- sd angular
            elif pname in sd_joint and sd_model.jnt_nq[sd_joint[pname]] == jm.nq:
                i = sd_joint[pname]
                q_map[jm.idx_q:jm.idx_q + jm.nq] = np.arange(sd_model.jnt_qadr[i], sd_model.jnt_qadr[i] + jm.nq)
                v_map[jm.idx_v:jm.idx_v + jm.nv] = np.arange(sd_model.jnt_vadr[i], sd_model.jnt_vadr[i] + jm.nv)
            else:
                raise BenchError(f"{name}: Pinocchio joint {pname!r} ({jm.shortname()}) has no soadyn match")
        if sorted(q_map) != list(range(sd_model.nq)) or sorted(v_map) != list(range(sd_model.nv)):
            raise BenchError(f"{name}: the joint maps between soadyn and Pinocchio are not permutations")
        self.q_sd2pin = q_map
        self.v_sd2pin = v_map
        pin_model.gravity.linear = np.asarray(sd_model.gravity, dtype=float)

    def q_pin(self, q_sd: np.ndarray) -> np.ndarray:
        return np.ascontiguousarray(q_sd[self.q_sd2pin])

    def v_pin(self, v_sd: np.ndarray) -> np.ndarray:
        return np.ascontiguousarray(v_sd[self.v_sd2pin])

    def m_pin(self, M_sd: np.ndarray) -> np.ndarray:
        return np.ascontiguousarray(M_sd[np.ix_(self.v_sd2pin, self.v_sd2pin)])


def load_chain(n: int) -> Pair:
    import pinocchio as pin

    from ..io.urdf import load_urdf_string

    xml = chain_urdf(n)
    return Pair(f"chain{n}", load_urdf_string(xml, floating_base=False, name=f"chain{n}"),
                pin.buildModelFromXML(xml))


def load_talos() -> Pair:
    """Talos (``talos_reduced.urdf`` of example-robot-data) with a free-flyer base in both libraries; its
    gripper ``<mimic>`` joints are independent joints in both (Pinocchio's default)."""
    import pinocchio as pin

    from ..models.robots import robot, robot_urdf

    path = robot_urdf("talos")
    return Pair("talos", robot("talos", floating_base=True),
                pin.buildModelFromUrdf(str(path), pin.JointModelFreeFlyer()))


# ------------------------------------------------------------------------------------------- agreement
def _sym(U: np.ndarray) -> np.ndarray:
    """Pinocchio fills the upper triangle of M and M^-1; mirror it."""
    return np.triu(U) + np.triu(U, 1).T


def check_agreement(pair: Pair, rng) -> dict:
    """Evaluate all algorithms of both libraries at one random state; return the relative errors and
    raise :class:`BenchError` if any exceeds ``AGREE``."""
    import pinocchio as pin

    import soadyn as sd

    m, d, pm, pd = pair.sd_model, pair.sd_data, pair.pin_model, pair.pin_data
    q = m.random_q(rng)
    qd, qdd, tau = rng.normal(size=(3, m.nv))
    qp, vp, ap, tp = pair.q_pin(q), pair.v_pin(qd), pair.v_pin(qdd), pair.v_pin(tau)
    pairs = {
        "rnea": (pair.v_pin(sd.rnea(m, d, q, qd, qdd)), pin.rnea(pm, pd, qp, vp, ap)),
        "crba": (pair.m_pin(sd.crba(m, d, q)), _sym(pin.crba(pm, pd, qp))),
        "aba": (pair.v_pin(sd.aba(m, d, q, qd, tau)), pin.aba(pm, pd, qp, vp, tp)),
        "minv": (pair.m_pin(sd.minv(m, d, q)), _sym(pin.computeMinverse(pm, pd, qp))),
    }
    errors = {}
    for alg, (a, b) in pairs.items():
        b = np.asarray(b)
        errors[alg] = float(np.abs(a - b).max() / max(1.0, float(np.abs(b).max())))
    bad = {k: v for k, v in errors.items() if not v <= AGREE}
    if bad:
        raise BenchError(f"{pair.name}: soadyn and Pinocchio disagree (relative error > {AGREE:g}): "
                         + ", ".join(f"{k} {v:.3e}" for k, v in bad.items()))
    return errors


# ----------------------------------------------------------------------------------------------- timing
def _calls(pair: Pair, rng) -> dict[str, tuple[Callable, Callable]]:
    import pinocchio as pin

    import soadyn as sd

    m, d, pm, pd = pair.sd_model, pair.sd_data, pair.pin_model, pair.pin_data
    q = m.random_q(rng)
    qd, qdd, tau = rng.normal(size=(3, m.nv))
    qp, vp, ap, tp = pair.q_pin(q), pair.v_pin(qd), pair.v_pin(qdd), pair.v_pin(tau)
    return {
        "rnea": (lambda: sd.rnea(m, d, q, qd, qdd), lambda: pin.rnea(pm, pd, qp, vp, ap)),
        "crba": (lambda: sd.crba(m, d, q), lambda: pin.crba(pm, pd, qp)),
        "aba": (lambda: sd.aba(m, d, q, qd, tau), lambda: pin.aba(pm, pd, qp, vp, tp)),
        "minv": (lambda: sd.minv(m, d, q), lambda: pin.computeMinverse(pm, pd, qp)),
    }


def time_model(pair: Pair, cfg: TimingConfig, rng) -> dict:
    out = {}
    for alg, (f_sd, f_pin) in _calls(pair, rng).items():
        t = time_calls({"soadyn": f_sd, "pinocchio": f_pin}, cfg)
        out[alg] = {"soadyn": t["soadyn"].as_dict(), "pinocchio": t["pinocchio"].as_dict(),
                    "ratio": t["soadyn"].median / t["pinocchio"].median}
    return out


def time_batch(pair: Pair, K: int, cfg: TimingConfig, rng) -> dict:
    """``sd.aba_batch`` over K states vs Python loops of ``pin.aba`` and ``sd.aba``; per-state times."""
    import pinocchio as pin

    import soadyn as sd

    m, d, pm, pd = pair.sd_model, pair.sd_data, pair.pin_model, pair.pin_data
    Q = np.array([m.random_q(rng) for _ in range(K)])
    QD = rng.normal(size=(K, m.nv))
    TAU = rng.normal(size=(K, m.nv))
    Qp = [pair.q_pin(x) for x in Q]
    Vp = [pair.v_pin(x) for x in QD]
    Tp = [pair.v_pin(x) for x in TAU]

    ref = np.array([pin.aba(pm, pd, Qp[k], Vp[k], Tp[k]).copy() for k in range(K)])
    got = sd.aba_batch(m, Q, QD, TAU)[:, pair.v_sd2pin]
    err = float(np.abs(got - ref).max() / max(1.0, float(np.abs(ref).max())))
    if not err <= AGREE:
        raise BenchError(f"{pair.name}: aba_batch disagrees with pin.aba (relative error {err:.3e})")

    def pin_loop():
        for k in range(K):
            pin.aba(pm, pd, Qp[k], Vp[k], Tp[k])

    def sd_loop():
        for k in range(K):
            sd.aba(m, d, Q[k], QD[k], TAU[k])

    batch_cfg = TimingConfig(warmup_s=cfg.warmup_s, sample_s=cfg.sample_s, repeats=max(3, cfg.repeats // 3),
                             max_number=cfg.max_number)
    t = time_calls({"soadyn_batch": lambda: sd.aba_batch(m, Q, QD, TAU), "pinocchio_loop": pin_loop,
                    "soadyn_loop": sd_loop}, batch_cfg)
    per_state = {k: Timing(v.median / K, v.min / K, v.max / K, v.number, v.repeats).as_dict() for k, v in t.items()}
    return {"K": K, "max_rel_error": err, **per_state,
            "speedup_vs_pinocchio_loop": t["pinocchio_loop"].median / t["soadyn_batch"].median,
            "speedup_vs_soadyn_loop": t["soadyn_loop"].median / t["soadyn_batch"].median}


# ------------------------------------------------------------------------------------------------- run
def model_specs(include_talos: bool = True) -> list[tuple[str, Callable[[], Pair]]]:
    specs = [(f"chain{n}", lambda n=n: load_chain(n)) for n in CHAIN_SIZES]
    if include_talos:
        specs.append(("talos", load_talos))
    return specs


def run(quick: bool = False, log: Callable[[str], None] = print, include_talos: bool = True) -> dict:
    """Run the topic; returns a JSON-ready dict (see ``benchmarks/README.md``)."""
    try:
        import pinocchio  # noqa: F401
    except ImportError:
        raise BenchError("the dynamics benchmark needs Pinocchio: pip install pin (or soadyn[test])") from None
    cfg = QUICK if quick else FULL
    K = BATCH_K_QUICK if quick else BATCH_K
    rng = np.random.default_rng(SEED)
    result = {"topic": "dynamics", "quick": quick, "agree_tolerance": AGREE, "timing": asdict(cfg),
              "batch_K": K, "models": {}}
    for name, load in model_specs(include_talos):
        t0 = time.perf_counter()
        try:
            pair = load()
        except ValueError as exc:  # example-robot-data missing
            log(f"{name}: skipped ({exc})")
            result.setdefault("skipped", {})[name] = str(exc)
            continue
        errors = check_agreement(pair, rng)
        log(f"{name}: nq={pair.sd_model.nq} nv={pair.sd_model.nv}, agreement with Pinocchio "
            f"{max(errors.values()):.1e} (loaded and checked in {time.perf_counter() - t0:.1f} s); timing ...")
        entry = {"nq": pair.sd_model.nq, "nv": pair.sd_model.nv, "nb": pair.sd_model.nb,
                 "agreement": errors, "algorithms": time_model(pair, cfg, rng)}
        entry["aba_batch"] = time_batch(pair, K, cfg, rng)
        result["models"][name] = entry
    return result


def format_table(result: dict) -> str:
    """The per-call table (median [min, max] per library, ratio soadyn/Pinocchio) and the batch table."""
    models = result["models"]
    lines = ["per call, median [min, max]; ratio = soadyn / Pinocchio median (< 1: soadyn faster)", ""]
    head = f"{'model':<9} {'nv':>4}  {'alg':<5} {'soadyn':>30} {'Pinocchio':>30} {'ratio':>7}"
    lines += [head, "-" * len(head)]
    for name, e in models.items():
        for alg in ALGORITHMS:
            a = e["algorithms"][alg]
            s, p = Timing(**a["soadyn"]), Timing(**a["pinocchio"])
            lines.append(f"{name:<9} {e['nv']:>4}  {alg:<5} {str(s):>30} {str(p):>30} {a['ratio']:>7.2f}")
    K = result["batch_K"]
    lines += ["", f"aba over K={K} random states, per state, median [min, max]", ""]
    head = (f"{'model':<9} {'sd.aba_batch':>30} {'pin.aba loop':>30} {'sd.aba loop':>30} "
            f"{'vs pin':>7} {'vs sd':>6}")
    lines += [head, "-" * len(head)]
    for name, e in models.items():
        b = e["aba_batch"]
        cols = [str(Timing(**b[k])) for k in ("soadyn_batch", "pinocchio_loop", "soadyn_loop")]
        lines.append(f"{name:<9} {cols[0]:>30} {cols[1]:>30} {cols[2]:>30} "
                     f"{b['speedup_vs_pinocchio_loop']:>6.1f}x {b['speedup_vs_soadyn_loop']:>5.1f}x")
    return "\n".join(lines)

