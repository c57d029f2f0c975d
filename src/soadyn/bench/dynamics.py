"""Benchmark topic dynamics: soadyn vs Pinocchio for RNEA, CRBA, ABA, M^-1, the frame Jacobian and the
operational space compliance per call; the batched ABA and RNEA per state against Pinocchio's parallel
batches; one simulation step on solo12 against MuJoCo's ``mj_step``.

Models: revolute chains of 6, 30 and 120 links (one URDF string loaded into both libraries; joint axes
cycle x, y, z; inertias and joint offsets drawn once from a fixed seed) and Talos from
example-robot-data with a floating base. Before timing, both libraries are evaluated at one random
state and must agree (M, M^-1, tau and qdd to 1e-8 relative); a disagreement aborts the benchmark.

Both sides are timed as a user calls them from Python, interleaved sample by sample, best of the medians:
``sd.rnea(model, data, q, qd, qdd)`` (input checks included) against ``pin.rnea(model, data, q, v, a)``;
``sd.frame_jacobian(model, data, q, frame)`` (frame axes) against ``pin.computeFrameJacobian(..., LOCAL)``
at the last link; ``sd.osim_inv`` of 4 6-D nodes (link frames from the tip towards the base) against
``pin.computeDelassusMatrix`` with 6-D rigid constraints at the same frames. Batches
(:mod:`soadyn.bench.dynamics_batch`): ``sd.aba_batch`` / ``sd.rnea_batch`` against ``pin.abaInParallel`` /
``pin.rneaInParallel`` at 1 and 2 threads. The step (:mod:`soadyn.bench.dynamics_step`): ``Simulator.step``
on solo12 with four foot contacts against ``mj_step``. ``--callgrind`` adds valgrind's instruction counts
per call of both libraries (:mod:`soadyn.bench.callgrind`) as a second figure.
"""

from __future__ import annotations

import time
from dataclasses import asdict
from typing import Callable

import numpy as np

from .timing import FULL, QUICK, Timing, TimingConfig, time_calls

__all__ = ["run", "format_table", "chain_urdf", "Pair", "load_chain", "load_talos", "check_agreement", "time_model",
           "calls", "ALGORITHMS", "CHAIN_SIZES", "AGREE", "BenchError", "OPTIONS"]

SUMMARY = ("soadyn vs Pinocchio: RNEA, CRBA, ABA, M^-1, Jacobian, Lambda^-1 per call; batches vs pin.*InParallel; "
           "solo12 step vs mj_step.")
ALGORITHMS = ("rnea", "crba", "aba", "minv", "jacobian", "osim")
OSIM_NODES = 4
BEST_OF = 5
"""Per-call timings are the best of this many interleaved medians (1 with --quick)."""
CHAIN_SIZES = (6, 30, 120)
BATCH_K = 2000
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
    frame, fid = _jacobian_frame(pair)
    J = sd.frame_jacobian(m, d, q, frame)
    pairs["jacobian"] = (J[[3, 4, 5, 0, 1, 2]][:, pair.v_sd2pin],
                         pin.computeFrameJacobian(pm, pd, qp, fid, pin.ReferenceFrame.LOCAL))
    frames = osim_frames(pair)
    cms, cds = _pin_constraints(pair, frames)
    P = np.kron(np.eye(len(frames)), np.eye(6)[[3, 4, 5, 0, 1, 2]])
    pairs["osim"] = (P @ sd.osim_inv(m, d, q, frames) @ P.T, pin.computeDelassusMatrix(pm, pd, qp, cms, cds, 0.0))
    errors = {}
    for alg, (a, b) in pairs.items():
        b = np.asarray(b)
        errors[alg] = float(np.abs(a - b).max() / max(1.0, float(np.abs(b).max())))
    bad = {k: v for k, v in errors.items() if not v <= AGREE}
    if bad:
        raise BenchError(f"{pair.name}: soadyn and Pinocchio disagree (relative error > {AGREE:g}): "
                         + ", ".join(f"{k} {v:.3e}" for k, v in bad.items()))
    return errors


def _jacobian_frame(pair: Pair) -> tuple[str, int]:
    """The last link: its name (a frame of both models) and Pinocchio's frame id."""
    name = pair.sd_model.body_names[-1]
    return name, pair.pin_model.getFrameId(name)


def osim_frames(pair: Pair, count: int = OSIM_NODES) -> list[str]:
    """``count`` link frames spread evenly from the tip towards the base."""
    links = list(pair.sd_model.body_names)
    idx = np.linspace(len(links) - 1, len(links) // 4, count).round().astype(int)
    return [links[i] for i in idx]


def _pin_constraints(pair: Pair, frames):
    """6-D rigid constraints of Pinocchio at ``frames`` (local axes), initialized for the Delassus matrix."""
    import pinocchio as pin

    pm, pd = pair.pin_model, pair.pin_data
    cms, cds = pin.StdVec_RigidConstraintModel(), pin.StdVec_RigidConstraintData()
    for f in frames:
        fr = pm.frames[pm.getFrameId(f)]
        cm = pin.RigidConstraintModel(pin.ContactType.CONTACT_6D, pm, fr.parentJoint, fr.placement,
                                      pin.ReferenceFrame.LOCAL)
        cms.append(cm)
        cds.append(cm.createData())
    pin.initConstraintDynamics(pm, pd, cms, cds)
    return cms, cds


# ----------------------------------------------------------------------------------------------- timing
def calls(pair: Pair, rng) -> dict[str, tuple[Callable, Callable]]:
    """``{algorithm: (soadyn call, Pinocchio call)}`` at one random state, as a user writes them."""
    import pinocchio as pin

    import soadyn as sd

    m, d, pm, pd = pair.sd_model, pair.sd_data, pair.pin_model, pair.pin_data
    q = m.random_q(rng)
    qd, qdd, tau = rng.normal(size=(3, m.nv))
    qp, vp, ap, tp = pair.q_pin(q), pair.v_pin(qd), pair.v_pin(qdd), pair.v_pin(tau)
    frame, fid = _jacobian_frame(pair)
    local = pin.ReferenceFrame.LOCAL
    frames = osim_frames(pair)
    cms, cds = _pin_constraints(pair, frames)
    return {
        "rnea": (lambda: sd.rnea(m, d, q, qd, qdd), lambda: pin.rnea(pm, pd, qp, vp, ap)),
        "crba": (lambda: sd.crba(m, d, q), lambda: pin.crba(pm, pd, qp)),
        "aba": (lambda: sd.aba(m, d, q, qd, tau), lambda: pin.aba(pm, pd, qp, vp, tp)),
        "minv": (lambda: sd.minv(m, d, q), lambda: pin.computeMinverse(pm, pd, qp)),
        "jacobian": (lambda: sd.frame_jacobian(m, d, q, frame), lambda: pin.computeFrameJacobian(pm, pd, qp, fid, local)),
        "osim": (lambda: sd.osim_inv(m, d, q, frames), lambda: pin.computeDelassusMatrix(pm, pd, qp, cms, cds, 0.0)),
    }


def best_of(fns: dict, cfg: TimingConfig, rounds: int) -> dict:
    """:func:`time_calls` ``rounds`` times; per function the round with the smallest median."""
    best = {}
    for _ in range(rounds):
        for name, t in time_calls(fns, cfg).items():
            if name not in best or t.median < best[name].median:
                best[name] = t
    return best


def time_model(pair: Pair, cfg: TimingConfig, rng, rounds: int) -> dict:
    out = {}
    for alg, (f_sd, f_pin) in calls(pair, rng).items():
        t = best_of({"soadyn": f_sd, "pinocchio": f_pin}, cfg, rounds)
        out[alg] = {"soadyn": t["soadyn"].as_dict(), "pinocchio": t["pinocchio"].as_dict(),
                    "ratio": t["soadyn"].median / t["pinocchio"].median}
    return out


# ------------------------------------------------------------------------------------------------- run
def model_specs(include_talos: bool = True) -> list[tuple[str, Callable[[], Pair]]]:
    specs = [(f"chain{n}", lambda n=n: load_chain(n)) for n in CHAIN_SIZES]
    if include_talos:
        specs.append(("talos", load_talos))
    return specs


def _callgrind_option(command):
    import click

    return click.option("--callgrind", is_flag=True,
                        help="Also count instructions per call of both libraries with valgrind's callgrind "
                             "(deterministic; minutes per model).")(command)


OPTIONS = (_callgrind_option,)
"""Extra command-line options of ``soadyn bench dynamics`` (keyword arguments of :func:`run`)."""


def run(quick: bool = False, log: Callable[[str], None] = print, include_talos: bool = True,
        callgrind: bool = False, step: bool = True) -> dict:
    """Run the topic; returns a JSON-ready dict (see ``benchmarks/README.md``). ``callgrind``: also the
    instruction counts per call (needs valgrind); ``step``: also the solo12 step against MuJoCo."""
    from . import callgrind as cg
    from .dynamics_batch import time_parallel
    from .dynamics_step import time_step

    if callgrind and not cg.available():
        raise BenchError("--callgrind needs valgrind, which is not installed (Debian/Ubuntu: apt-get install "
                         "valgrind)")
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
                 "agreement": errors, "algorithms": time_model(pair, cfg, rng, 1 if quick else BEST_OF)}
        entry["batch"] = time_parallel(pair, K, cfg, rng, AGREE, BenchError)
        if callgrind:
            log(f"{name}: counting instructions with callgrind ...")
            try:
                entry["callgrind"] = cg.instructions_per_call("soadyn.bench.dynamics_phases", [name])
            except cg.CallgrindError as exc:
                raise BenchError(str(exc)) from None
        result["models"][name] = entry
    if step:
        try:
            result["step"] = time_step(cfg)
        except ValueError as exc:  # example-robot-data or MuJoCo missing
            log(f"step: skipped ({exc})")
    return result


def format_table(result: dict) -> str:
    """The per-call table (median [min, max] per library, ratio soadyn/Pinocchio, callgrind ratio when
    counted), the batch table and the step row."""
    models = result["models"]
    lines = ["per call, median [min, max]; ratio = soadyn / Pinocchio median (< 1: soadyn faster); "
             "Ir ratio: instructions per call (callgrind)", ""]
    head = f"{'model':<9} {'nv':>4}  {'alg':<8} {'soadyn':>30} {'Pinocchio':>30} {'ratio':>7} {'Ir ratio':>9}"
    lines += [head, "-" * len(head)]
    for name, e in models.items():
        cg = e.get("callgrind", {})
        for alg in ALGORITHMS:
            a = e["algorithms"][alg]
            s, p = Timing(**a["soadyn"]), Timing(**a["pinocchio"])
            ir = (f"{cg[alg + '/soadyn'] / cg[alg + '/pinocchio']:>9.2f}" if alg + "/soadyn" in cg else f"{'':>9}")
            lines.append(f"{name:<9} {e['nv']:>4}  {alg:<8} {str(s):>30} {str(p):>30} {a['ratio']:>7.2f} {ir}")
    K = result["batch_K"]
    lines += ["", f"batches over K={K} random states, per state, median [min, max]; ratio = soadyn / Pinocchio "
              "(pin.abaInParallel, pin.rneaInParallel)", ""]
    head = (f"{'model':<9} {'thr':>3} {'sd.aba_batch':>30} {'pin.abaInParallel':>30} {'ratio':>6} "
            f"{'sd.rnea_batch':>30} {'pin.rneaInParallel':>30} {'ratio':>6}")
    lines += [head, "-" * len(head)]
    for name, e in models.items():
        for nt, b in e["batch"]["threads"].items():
            cols = [str(Timing(**b[k])) for k in ("aba_soadyn", "aba_pinocchio", "rnea_soadyn", "rnea_pinocchio")]
            lines.append(f"{name:<9} {nt:>3} {cols[0]:>30} {cols[1]:>30} {b['aba_ratio']:>6.2f} "
                         f"{cols[2]:>30} {cols[3]:>30} {b['rnea_ratio']:>6.2f}")
    if "step" in result:
        st = result["step"]
        lines += ["", f"one step from Python, {st['model']} ({st['contacts_soadyn']} contacts; MuJoCo "
                  f"{st['contacts_mujoco']}): Simulator.step {Timing(**st['soadyn'])}, mj_step "
                  f"{Timing(**st['mujoco'])}, ratio {st['ratio']:.2f}"]
    return "\n".join(lines)
