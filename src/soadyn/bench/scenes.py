"""Benchmark topic scenes: the contact scene suite of :mod:`soadyn.models.scenes` run by soadyn (the
defaults: ``ContactSettings()``, 1 ms steps), MuJoCo (``mj_step``, the MJCF of
:mod:`soadyn.models.scenes_mjcf`) and DART (``World.step``, :mod:`soadyn.models.scenes_dart`) side by side.

Per scene and engine: one recorded run (every state) read by the scene's check
(:mod:`soadyn.bench.scenes_checks`: the closed form or the rest criterion, its verdict), the largest
penetration, the drift (largest distance of a body from its start), the kinetic energy at the end; and the
time per simulated second of runs that only step, the engines interleaved round by round (rotating order),
median and best over the rounds. soadyn's time is one ``Simulator.rollout`` call as a user makes it (input
checks, the kernel, the trajectory's energies); MuJoCo's one ``mj_step(m, d, nstep)``; DART's a Python loop
of ``World.step``. ``--quick`` shortens the runs (and so the checks that need the full duration may fail).
"""

from __future__ import annotations

import math
import platform
from dataclasses import dataclass
from typing import Callable

from ..models import scenes as S
from . import scenes_checks as C
from . import scenes_engines as E

__all__ = ["CASES", "Case", "run", "run_case", "format_table", "start_energies", "check_agreement", "SUMMARY", "BenchError", "AGREE"]

SUMMARY = ("Scenes: ball drops, Newton's cradle, box on an incline, rolling and sliding bodies, stacks, pyramid, "
           "solo12; soadyn vs MuJoCo vs DART with closed-form checks.")


AGREE = 1e-9
"""Largest relative difference of the start energies (kinetic, potential) between the engines: the three
descriptions of a scene must be one system before anything is compared."""


class BenchError(RuntimeError):
    """The engines' versions of a scene differ at the start: nothing is run."""


def start_energies(scene: S.Scene, engine: str) -> tuple[float, float]:
    """``(kinetic, potential)`` of ``scene``'s start state as ``engine`` builds it."""
    if engine == "soadyn":
        from ..sim import energy

        return energy(scene.model, scene.model.data(), scene.q0, scene.qd0)
    if engine == "mujoco":
        import mujoco

        m, d = E.mujoco_start(scene)
        mujoco.mj_energyPos(m, d)
        mujoco.mj_energyVel(m, d)
        return float(d.energy[1]), float(d.energy[0])
    from ..models.scenes_dart import dart_world

    _, skels = dart_world(scene)
    return (float(sum(s.computeKineticEnergy() for s in skels)),
            float(sum(s.computePotentialEnergy() for s in skels)))


def check_agreement(scene: S.Scene, names) -> None:
    """:class:`BenchError` unless every engine of ``names`` starts ``scene`` with soadyn's energies (:data:`AGREE`)."""
    ref = start_energies(scene, "soadyn")
    for e in names:
        got = start_energies(scene, e)
        for what, a, b in (("kinetic", got[0], ref[0]), ("potential", got[1], ref[1])):
            if abs(a - b) > AGREE * max(1.0, abs(b)):
                raise BenchError(f"{scene.name}: {e}'s start {what} energy {a!r} J differs from soadyn's {b!r} J; "
                                 "nothing run")


@dataclass(frozen=True)
class Case:
    """A scene of the suite: ``build()`` makes it, ``check`` names its check in
    :data:`soadyn.bench.scenes_checks.CHECKS`, ``duration`` and ``quick`` (s) are the full and quick run
    lengths."""

    name: str
    build: Callable[[], S.Scene]
    check: str
    duration: float
    quick: float


def _incline_cases() -> list:
    out = []
    for mu in (0.3, 0.6):
        for sign, tag in ((-1, "stick"), (1, "slide")):
            for heading in (0, 45):
                angle = math.atan(mu) + sign * math.radians(3.0)
                out.append(Case(f"incline_mu{mu:g}_{tag}_h{heading}",
                                lambda a=angle, m=mu, h=heading: S.box_on_incline(a, m, math.radians(h)),
                                "incline", 1.0, 1.0))
    return out


CASES = ([Case(f"drop_e{e:g}", lambda e=e: S.ball_drop(restitution=e), "ball_drop", 2.5, 2.5) for e in (0.0, 0.5, 0.9)]
         + [Case("cradle5", lambda: S.newtons_cradle(), "cradle", 1.0, 1.0)]
         + _incline_cases()
         + [Case("rolling_sphere", lambda: S.rolling_sphere(), "rolling_sphere", 3.0, 3.0),
            Case("rolling_capsule", lambda: S.rolling_capsule(), "rolling_capsule", 3.0, 3.0),
            Case("sliding_x", lambda: S.sliding_sphere(direction=0.0), "sliding", 0.5, 0.5),
            Case("sliding_diagonal", lambda: S.sliding_sphere(direction=(1.0, 1.0)), "sliding", 0.5, 0.5),
            Case("stack5", lambda: S.box_stack(5), "rest", 10.0, 1.0),
            Case("stack5_staggered", lambda: S.box_stack(5, *S.staggered_offsets(5)), "rest", 10.0, 1.0),
            Case("stack10", lambda: S.box_stack(10), "rest", 10.0, 1.0),
            Case("pyramid6", lambda: S.box_pyramid(), "rest", 10.0, 1.0),
            Case("solo12_standing", lambda: S.solo12_standing(), "stand", 2.0, 2.0),
            Case("solo12_dropped", lambda: S.solo12_dropped(), "stand", 2.0, 2.0)])
"""The suite, in table order."""


def _warm(scene: S.Scene) -> None:
    """Compile or load soadyn's kernels for this scene outside the timed runs."""
    E.timed("soadyn", scene, 0.002)


def run_case(case: Case, quick: bool = False, engines=E.ENGINES, repeats: int | None = None, settings=None) -> dict:
    """One row: per engine the check, penetration, drift, final KE, failure and ms per simulated second."""
    scene = case.build()
    duration = case.quick if quick else case.duration
    repeats = (1 if quick else 3) if repeats is None else repeats
    avail = E.engines_available()
    names = [e for e in engines if avail.get(e) is True]
    row = {"scene": case.name, "check": case.check, "duration": duration, "nv": scene.model.nv, "engines": {}}
    check_agreement(scene, names)
    _warm(scene)
    for e in names:
        r = E.record(e, scene, duration, settings if e == "soadyn" else None)
        row["engines"][e] = {"check": C.check(case.check, scene, r), "penetration": r.penetration,
                             "drift": C.drift(r), "ke_end": float(r.ke[-1]), "failure": r.failure,
                             "simulated": float(r.t[-1]), **({"stats": r.stats} if r.stats else {})}
    samples = {e: [] for e in names}
    for k in range(repeats):
        order = names[k % len(names):] + names[:k % len(names)]
        for e in order:
            samples[e].append(E.timed(e, scene, duration, settings if e == "soadyn" else None))
    for e in names:
        row["engines"][e]["ms_per_s"] = E.ms_per_second(samples[e])
    for e in engines:
        if avail.get(e) is not True:
            row["engines"][e] = {"unavailable": avail.get(e, "unknown engine")}
    return row


def run(quick: bool = False, log=print, cases=None, engines=E.ENGINES) -> dict:
    """Every case of :data:`CASES` (or the names in ``cases``); ``log`` gets one line per scene."""
    chosen = CASES if cases is None else [c for c in CASES if c.name in set(cases)]
    rows = []
    for case in chosen:
        row = run_case(case, quick, engines)
        rows.append(row)
        log(_line(row))
    avail = E.engines_available()
    return {"topic": "scenes", "quick": quick, "dt": E.DT, "engines": {e: avail[e] is True for e in E.ENGINES},
            "unavailable": {e: v for e, v in avail.items() if v is not True}, "python": platform.python_version(),
            "rows": rows}


def _cell(r: dict) -> str:
    if not r or "unavailable" in r:
        return "n/a"
    return f"{r['ms_per_s']['median']:.3g}"


def _verdict(r: dict) -> str:
    if not r or "unavailable" in r:
        return "-"
    return ("ok" if r["check"]["ok"] else "FAIL") + ("*" if r["failure"] else "")


def _line(row: dict) -> str:
    parts = [f"{e} {_cell(r)} ms/s {_verdict(r)}" for e, r in row["engines"].items()]
    return f"{row['scene']}: " + ", ".join(parts)


def format_table(result: dict) -> str:
    """One line per scene: ms per simulated second of soadyn / MuJoCo / DART with the soadyn / MuJoCo ratio,
    penetration and drift of each, soadyn's check value against the expected one and the three verdicts
    (``*``: the run failed before its end)."""
    head = (f"{'scene':<26} {'ms/sim-s soadyn':>15} {'MuJoCo':>8} {'DART':>8} {'sd/MJ':>6} "
            f"{'pen sd':>8} {'pen MJ':>8} {'pen DART':>8} {'drift sd':>8} {'drift MJ':>8} {'drift DART':>10} "
            f"{'KE end sd':>9} {'check (soadyn)':>24} {'verdicts sd/MJ/DART':>20}")
    lines = [head]
    for row in result["rows"]:
        en = row["engines"]
        sd, mj, dt = en.get("soadyn", {}), en.get("mujoco", {}), en.get("dart", {})

        def num(r, key):
            return f"{r[key]:.1e}" if key in r else "n/a"

        ratio = "n/a"
        if "ms_per_s" in sd and "ms_per_s" in mj and mj["ms_per_s"]["median"] > 0:
            ratio = f"{sd['ms_per_s']['median'] / mj['ms_per_s']['median']:.2f}"
        chk = sd.get("check", {})
        cv = f"{chk.get('value', math.nan):.4g} / {chk.get('expected', math.nan):.4g}" if chk else "n/a"
        lines.append(f"{row['scene']:<26} {_cell(sd):>15} {_cell(mj):>8} {_cell(dt):>8} {ratio:>6} {num(sd, 'penetration'):>8} "
                     f"{num(mj, 'penetration'):>8} {num(dt, 'penetration'):>8} {num(sd, 'drift'):>8} "
                     f"{num(mj, 'drift'):>8} {num(dt, 'drift'):>10} {num(sd, 'ke_end'):>9} {cv:>24} "
                     f"{'/'.join(_verdict(r) for r in (sd, mj, dt)):>20}")
    if result.get("unavailable"):
        lines.append("not run: " + "; ".join(f"{e}: {why}" for e, why in result["unavailable"].items()))
    return "\n".join(lines)
