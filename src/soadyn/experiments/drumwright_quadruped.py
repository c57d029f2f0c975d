"""The quadruped locomotion experiment of Drumwright 2015 (Sec. VII-B, Tables II-III) on solo12.

Scene: solo12 (example-robot-data) on a floating base, one sphere of radius :data:`FOOT_RADIUS` at each foot
frame, walking on a height map of boxes (:func:`soadyn.models.terrain.box_terrain`), 1 ms steps of
:meth:`soadyn.Simulator.step` in a Python loop with a trot controller (:class:`TrotController`) in the loop.

Contact models (:data:`MODELS`), as the paper's tables pair them: Coulomb friction (the Stewart-Trinkle /
Anitescu-Potra pyramid, Lemke; the paper's Drumwright-Shell row, ``mu_c`` :data:`MU_COULOMB`) against no-slip
contact (Sec. VI, the modified PPM of Algorithm 1) for Table II; purely viscous friction (Sec. IV,
``mu_v`` :data:`MU_VISCOUS`) solved by Lemke and by the modified PPM for Table III.

The paper's numbers come from Moby (event-driven, a different quadruped and controller, an Intel Xeon
2.27 GHz), so only the relations are comparable: which model runs faster, and that the robot walks.
"""

from __future__ import annotations

import csv
import json
import math
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ..contact.geometry import with_geoms
from ..contact.settings import ContactSettings
from ..dynamics import frame_jacobian, rnea
from ..model import Model
from ..models.robots import robot
from ..models.terrain import TERRAIN_GROUP, BoxTerrain, box_terrain
from ..sim import Simulator
from ..spatial import quat_to_rot

__all__ = ["LEGS", "MODELS", "quadruped_model", "standing_state", "TrotGait", "TrotController", "run_model",
           "reproduce", "PAPER"]

LEGS = ("FL", "FR", "HL", "HR")
"""Leg prefixes of solo12, in the order of its joints (HAA, HFE, KFE per leg)."""
STAND = np.array([0.0, 0.8, -1.6, 0.0, 0.8, -1.6, 0.0, -0.8, 1.6, 0.0, -0.8, 1.6])
"""Standing joint angles (solo12's usual stance: front knees back, hind knees forward)."""
FOOT_RADIUS = 0.016
FOOT_GROUP = 1
DT = 1e-3
DURATION = 10.0
MU_COULOMB = 100.0
"""Coulomb friction of the Table II baseline (the paper's ``mu_c = 100``)."""
MU_VISCOUS = 1.0
"""Viscous coefficient of the Table III runs, N s/m per contact. The paper's ``mu_v = 0.1`` (for its own robot)
is nearly ice for the 2.5 kg solo12: with it the trot slips in place (0.24 m in 10 s against 2.7 m with 1.0)."""
MODELS = {
    "coulomb_lemke": ("coulomb", "lemke", "Coulomb pyramid (Lemke)", "II"),
    "noslip_ppm": ("no_slip", "ppm", "No-slip (modified PPM)", "II"),
    "viscous_lemke": ("viscous", "lemke", "Viscous (Lemke)", "III"),
    "viscous_ppm": ("viscous", "ppm", "Viscous (modified PPM)", "III"),
}
"""name -> (friction, solver, label, paper table)."""
PAPER = {"coulomb_lemke": 416.284, "noslip_ppm": 301.796, "viscous_lemke": 2936.36, "viscous_ppm": 2139.73}
"""Run times (s) of Drumwright 2015 Tables II-III (10 s simulated, Moby)."""
PAPER_CONTACTS = {"min": 1, "max": 30, "mean": 6}
"""Contact counts of the paper's no-slip run (Sec. VII-B)."""
KP, KD = 20.0, 0.3
"""Joint PD gains of the gait controller (N m/rad, N m s/rad)."""
FALL_HEIGHT = 0.1
"""The robot has fallen when its base is less than this (m) above the terrain under it ..."""
FALL_UPRIGHT = 0.5
"""... or when its base z axis has a world z component below this (tilted by more than 60 degrees)."""


def quadruped_model(terrain: BoxTerrain | None = None, foot_radius: float = FOOT_RADIUS, mu: float = 1.0) -> Model:
    """solo12 on a floating base with a sphere of ``foot_radius`` at each foot frame (``{leg}_FOOT``) and
    the boxes of ``terrain`` (default :func:`box_terrain`). Feet collide with the terrain only."""
    terrain = box_terrain() if terrain is None else terrain
    feet = [dict(name=f"{leg}_foot", body=f"{leg}_FOOT", kind="sphere", size=foot_radius, mu=mu, group=FOOT_GROUP,
                 mask=TERRAIN_GROUP) for leg in LEGS]
    return with_geoms(robot("solo12", floating_base=True), feet + terrain.geoms())


def standing_state(model: Model, terrain: BoxTerrain, clearance: float = 1e-3) -> tuple[np.ndarray, np.ndarray]:
    """``(q, qd)``: the standing pose at rest, level, its lowest foot ``clearance`` above the terrain under it."""
    q = model.neutral_q()
    q[7:] = STAND
    d = model.data()
    lowest = math.inf
    for leg in LEGS:
        frame_jacobian(model, d, q, f"{leg}_FOOT", "world_aligned")
        p = d.frame_p
        lowest = min(lowest, p[2] - FOOT_RADIUS - terrain.height(p[0], p[1]))
    q[2] = clearance - lowest
    return q, np.zeros(model.nv)


@dataclass(frozen=True)
class TrotGait:
    """A trot: diagonal pairs (FL, HR) and (FR, HL) alternate, half a ``period`` (s) apart; each foot is in
    stance for the fraction ``duty`` of the period (above 0.5: phases with four feet down). Stance feet sweep
    back by ``step_length`` (m) in the base frame; swing feet return on a cubic (Hermite) path that leaves and
    touches down at the stance sweep's speed (no foot velocity relative to the ground at touchdown), raised
    on a cosine arc ``step_height`` (m) high. ``height``: base height above the feet (m); the first ``stand``
    seconds the feet stay put, then the step length ramps up over ``ramp`` seconds."""

    period: float = 0.3
    duty: float = 0.6
    step_length: float = 0.06
    step_height: float = 0.04
    height: float = 0.22
    stand: float = 0.3
    ramp: float = 1.0

    def __post_init__(self):
        for name, lo, strict in (("period", 0.0, True), ("step_length", 0.0, False), ("step_height", 0.0, False),
                                 ("height", 0.0, True), ("stand", 0.0, False), ("ramp", 0.0, True)):
            x = getattr(self, name)
            if isinstance(x, bool) or not isinstance(x, (int, float)) or not math.isfinite(x) or x < lo or \
                    (strict and x == lo):
                raise ValueError(f"{name}: expected a finite number {'>' if strict else '>='} {lo}, got {x!r}")
        if isinstance(self.duty, bool) or not isinstance(self.duty, (int, float)) or not 0.0 < self.duty < 1.0:
            raise ValueError(f"duty: expected a number in (0, 1), got {self.duty!r}")

    @property
    def speed(self) -> float:
        """Nominal forward speed (m/s): a step length per stance time."""
        return self.step_length / (self.duty * self.period)


class TrotController:
    """Joint PD torques toward leg inverse kinematics of the gait's foot targets, plus gravity and weight
    compensation; the base is not actuated.

    Foot targets are set in the base frame (with four feet down, the PD levels the body with the ground
    under the feet; in the two-foot phases of the trot, the touching-down pair corrects it); each leg's joint
    targets come from damped Newton steps on the foot position in the base frame with the Jacobian of
    :func:`soadyn.frame_jacobian` (warm-started from the last targets). Torques:
    ``tau = kp (q* - q) - kd qd + g(q) - J^T R^T f`` on the legs, with ``g`` from :func:`soadyn.rnea` at rest
    and ``f`` the robot's weight shared among the stance feet (upward, world axes). The stance feet also
    sweep through a small yaw that steers the robot back to the line ``y = 0`` (:meth:`turn`)."""

    STEER_LATERAL = 2.0
    """rad of heading per m of lateral offset."""
    STEER_YAW = 0.5
    """Fraction of the heading error turned per stance."""
    MAX_TURN = 0.1
    """Largest turn per stance (rad)."""

    def __init__(self, model: Model, gait: TrotGait = TrotGait(), kp: float = KP, kd: float = KD,
                 ik_iterations: int = 2):
        self.model, self.gait, self.kp, self.kd, self.ik_iterations = model, gait, float(kp), float(kd), ik_iterations
        self.data = model.data()
        self.feet = tuple(f"{leg}_FOOT" for leg in LEGS)
        self.weight = float(np.sum(model.body_mass) * np.linalg.norm(model.gravity))
        self._qk = model.neutral_q()  # kinematic configuration: base at the origin, legs at the targets
        self._qk[7:] = STAND
        self._zero = np.zeros(model.nv)
        self.nominal = np.array([self._foot(k)[0] for k in range(4)])  # foot positions in the base frame
        self.nominal[:, 2] = -gait.height
        self.q_des = STAND.copy()
        self._J = np.zeros((4, 3, 3))

    def _foot(self, k: int) -> tuple[np.ndarray, np.ndarray]:
        """Foot ``k`` position in the base frame and its 3x3 leg Jacobian at the kinematic configuration."""
        J = frame_jacobian(self.model, self.data, self._qk, self.feet[k], "world_aligned")
        return self.data.frame_p.copy(), J[3:, 6 + 3 * k:9 + 3 * k].copy()

    def phase(self, t: float, k: int) -> float:
        """Gait phase of leg ``k`` in [0, 1): stance in [0, duty), swing in [duty, 1)."""
        offset = 0.0 if LEGS[k] in ("FL", "HR") else 0.5
        return (t / self.gait.period + offset) % 1.0

    def targets(self, t: float, turn: float = 0.0) -> tuple[np.ndarray, np.ndarray]:
        """Foot targets (4, 3) in the base frame and the stance mask (4,) at time ``t``; ``turn`` (rad): the
        yaw the stance feet sweep through in one stance (positive: the body turns left)."""
        g = self.gait
        out = self.nominal.copy()
        stance = np.ones(4, dtype=bool)
        if t < g.stand:
            return out, stance
        L = g.step_length * min(1.0, (t - g.stand) / g.ramp)
        m = -(1.0 - g.duty) / g.duty  # swing: slope of the stance sweep in the swing's phase: touch down at its speed
        for k in range(4):
            s = self.phase(t - g.stand, k)
            if s < g.duty:
                x = 0.5 - s / g.duty  # in units of the sweep: +1/2 -> -1/2
            else:
                u = (s - g.duty) / (1.0 - g.duty)  # cubic Hermite -1/2 -> +1/2 with end slopes m
                x = -0.5 + 3.0 * u * u - 2.0 * u ** 3 + m * (u - 2.0 * u * u + u ** 3) + m * (u ** 3 - u * u)
                out[k, 2] += g.step_height * 0.5 * (1.0 - math.cos(2.0 * math.pi * u))
                stance[k] = False
            c, sn = math.cos(turn * x), math.sin(turn * x)
            px, py = self.nominal[k, 0], self.nominal[k, 1]
            out[k, 0] = c * px - sn * py + L * x
            out[k, 1] = sn * px + c * py
        return out, stance

    def turn(self, q: np.ndarray) -> float:
        """Steering (rad per stance) back to the line ``y = 0`` heading along +x: yaw toward
        ``-STEER_LATERAL y`` (clipped to 0.3 rad), a fraction ``STEER_YAW`` of the heading error per stance."""
        R = quat_to_rot(q[3:7])
        yaw = math.atan2(R[1, 0], R[0, 0])
        heading = max(-0.3, min(0.3, -self.STEER_LATERAL * q[1]))
        return max(-self.MAX_TURN, min(self.MAX_TURN, self.STEER_YAW * (heading - yaw)))

    def _ik(self, p_base: np.ndarray) -> None:
        """Damped Newton steps on each leg's joints toward the foot targets ``p_base`` (4, 3)."""
        self._qk[7:] = self.q_des
        for _ in range(self.ik_iterations):
            for k in range(4):
                p, J = self._foot(k)
                self._J[k] = J
                e = p_base[k] - p
                dq = np.linalg.solve(J.T @ J + 1e-6 * np.eye(3), J.T @ e)
                self._qk[7 + 3 * k:10 + 3 * k] += dq
        self.q_des = self._qk[7:].copy()

    def torques(self, t: float, q: np.ndarray, qd: np.ndarray) -> np.ndarray:
        """Joint forces (nv,) at time ``t`` and state ``(q, qd)`` (zero on the base)."""
        R = quat_to_rot(q[3:7])  # base -> world
        p_base, stance = self.targets(t, self.turn(q))
        self._ik(p_base)
        g = rnea(self.model, self.data, q, self._zero, self._zero)
        tau = np.zeros(self.model.nv)
        tau[6:] = self.kp * (self.q_des - q[7:]) - self.kd * qd[6:] + g[6:]
        f = R.T @ np.array([0.0, 0.0, self.weight / max(1, int(stance.sum()))])  # ground force in base axes
        for k in np.flatnonzero(stance):
            tau[6 + 3 * k:9 + 3 * k] -= self._J[k].T @ f
        return tau


def fallen(q: np.ndarray, terrain: BoxTerrain) -> bool:
    """True when the base is below :data:`FALL_HEIGHT` over the terrain, or tilted past :data:`FALL_UPRIGHT`, or
    off the terrain (its feet would fall past the edge)."""
    h = terrain.height(q[0], q[1])
    R = quat_to_rot(q[3:7])
    return bool(not math.isfinite(h) or q[2] - h < FALL_HEIGHT or R[2, 2] < FALL_UPRIGHT)


def run_model(name: str, duration: float = DURATION, terrain: BoxTerrain | None = None, gait: TrotGait = TrotGait(),
              mu_viscous: float = MU_VISCOUS, kp: float = KP, kd: float = KD, progress: bool = False) -> dict:
    """One run of contact model ``name`` (:data:`MODELS`): the run time (all of the loop: controller,
    collision detection, contact solve, integration) and the time in :meth:`Simulator.step` alone, contact
    counts, LCP sizes, pivots and PPM fallbacks over the steps, the distance walked forward (base x) and
    whether and when the robot fell."""
    if name not in MODELS:
        raise ValueError(f"name: expected one of {tuple(MODELS)}, got {name!r}")
    friction, solver, label, table = MODELS[name]
    terrain = box_terrain() if terrain is None else terrain
    model = quadruped_model(terrain)
    settings = ContactSettings.classic(friction=friction, solver=solver,
                                       mu=MU_COULOMB if friction == "coulomb" else None, mu_v=mu_viscous)
    sim = Simulator(model, DT, contact=settings)
    ctl = TrotController(model, gait, kp, kd)
    q, qd = standing_state(model, terrain)
    x0 = float(q[0])
    nsteps = int(round(duration / DT))
    stats = np.zeros((nsteps, 4))  # contacts, LCP size, pivots, fallbacks
    fell_at = None
    step_time = 0.0
    bar = None
    if progress:
        from tqdm.auto import tqdm

        bar = tqdm(total=nsteps, desc=name, unit="step", leave=False, miniters=100)
    t0 = time.perf_counter()
    k = 0
    for k in range(nsteps):
        tau = ctl.torques(k * DT, q, qd)
        ts = time.perf_counter()
        q, qd = sim.step(q, qd, tau)
        step_time += time.perf_counter() - ts
        s = sim.last_step_stats
        stats[k] = s["contacts"], s["lcp_size"], s["pivots"], s["fallbacks"]
        if bar is not None and k % 100 == 99:
            bar.update(100)
        if fallen(q, terrain):
            fell_at = (k + 1) * DT
            break
    wall = time.perf_counter() - t0
    if bar is not None:
        bar.close()
    stats = stats[:k + 1]
    c = stats[:, 0]
    return {"model": name, "label": label, "paper_table": table, "friction": friction, "solver": solver,
            "mu": MU_COULOMB if friction == "coulomb" else None, "mu_v": mu_viscous if friction == "viscous" else None,
            "steps": int(k + 1), "simulated_s": (k + 1) * DT, "run_time_s": wall, "step_time_s": step_time,
            "contacts_min": int(c.min()), "contacts_max": int(c.max()), "contacts_mean": float(c.mean()),
            "contacts_std": float(c.std()), "lcp_size_max": int(stats[:, 1].max()),
            "lcp_size_mean": float(stats[:, 1].mean()), "pivots_mean": float(stats[:, 2].mean()),
            "pivots_max": int(stats[:, 2].max()), "ppm_fallbacks": int(stats[:, 3].sum()),
            "distance_m": float(q[0] - x0), "lateral_m": float(q[1]), "final_height_m": float(q[2]),
            "fell": fell_at is not None, "fell_at_s": fell_at,
            "paper_run_time_s": PAPER[name]}


CSV_COLUMNS = ("model", "label", "paper_table", "friction", "solver", "mu", "mu_v", "simulated_s", "run_time_s",
               "step_time_s", "paper_run_time_s", "contacts_min", "contacts_max", "contacts_mean", "contacts_std",
               "lcp_size_max", "lcp_size_mean", "pivots_mean", "pivots_max", "ppm_fallbacks", "distance_m",
               "lateral_m", "final_height_m", "fell", "fell_at_s")


def reproduce(out_dir="soadyn-out", duration: float = DURATION, models=tuple(MODELS), progress: bool = False,
              echo=None) -> dict:
    """Drumwright 2015 Tables II-III: every contact model of ``models`` on the same terrain and gait; the
    speedups no-slip PPM vs Coulomb Lemke and viscous PPM vs viscous Lemke (of the whole loop, as the paper
    times it, and of the :meth:`Simulator.step` calls alone); the check that the robot walks
    forward without falling in every model. Writes ``drumwright-quadruped.csv`` and ``.json`` into
    ``out_dir``; returns the JSON content."""
    if isinstance(duration, bool) or not isinstance(duration, (int, float)) or not 0.0 < duration < math.inf:
        raise ValueError(f"duration: expected a finite number > 0, got {duration!r}")
    for m in models:
        if m not in MODELS:
            raise ValueError(f"models: unknown model {m!r}; expected some of {tuple(MODELS)}")
    gait = TrotGait()
    terrain = box_terrain(length=max(5.0, gait.speed * duration + 2.0))  # long enough to stay on it
    rows = []
    for m in models:
        r = run_model(m, duration, terrain, gait, progress=progress)
        rows.append(r)
        if echo is not None:
            echo(format_row(r))
    by = {r["model"]: r for r in rows}
    speedups = {}
    for slow, fast in (("coulomb_lemke", "noslip_ppm"), ("viscous_lemke", "viscous_ppm")):
        if slow in by and fast in by:
            speedups[f"{fast}_vs_{slow}"] = {"measured": by[slow]["run_time_s"] / by[fast]["run_time_s"],
                                             "step": by[slow]["step_time_s"] / by[fast]["step_time_s"],
                                             "paper": PAPER[slow] / PAPER[fast]}
    walks = {r["model"]: bool(not r["fell"] and r["distance_m"] > 0.25 * gait.speed * duration) for r in rows}
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    stem = out / "drumwright-quadruped"
    with open(f"{stem}.csv", "w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(CSV_COLUMNS)
        for r in rows:
            w.writerow([r[c] for c in CSV_COLUMNS])
    result = {"table": "Drumwright 2015, Tables II-III", "robot": "solo12", "dt": DT, "duration": duration,
              "terrain": {"cells": list(terrain.shape), "cell_m": terrain.cell,
                          "max_height_m": float(terrain.heights.max()), "origin": list(terrain.origin)},
              "gait": {"period_s": gait.period, "step_length_m": gait.step_length, "step_height_m": gait.step_height,
                       "nominal_speed_mps": gait.speed},
              "foot_radius_m": FOOT_RADIUS, "rows": rows, "speedups": speedups, "walks_without_falling": walks,
              "all_walk": all(walks.values()), "paper_contacts": PAPER_CONTACTS,
              "files": {"table": f"{stem}.csv", "summary": f"{stem}.json"}}
    Path(f"{stem}.json").write_text(json.dumps(result, indent=2) + "\n")
    return result


def format_row(r: dict) -> str:
    """One run as a line of text."""
    fell = f"FELL at {r['fell_at_s']:.3f} s" if r["fell"] else "upright"
    return (f"  {r['label']:<27} {r['run_time_s']:8.2f} s (step {r['step_time_s']:6.2f} s, paper "
            f"{r['paper_run_time_s']:8.2f} s)  contacts {r['contacts_min']}/{r['contacts_max']}/"
            f"{r['contacts_mean']:.2f}  LCP max {r['lcp_size_max']:3d}  fallbacks {r['ppm_fallbacks']}  "
            f"walked {r['distance_m']:+.3f} m  {fell}")
