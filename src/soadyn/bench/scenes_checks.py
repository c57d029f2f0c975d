"""The physics checks of the scene suite: each reads a recorded :class:`~soadyn.bench.scenes_engines.Run` of a
:class:`~soadyn.models.scenes.Scene` and compares it with the scene's closed form
(:mod:`soadyn.models.scenes`) or rest criterion, to the named tolerances below. A check returns
``{"ok": bool, "value": float, "expected": float, "what": str}`` (``value`` and ``expected`` in the units
``what`` names); a run that failed fails its check.
"""

from __future__ import annotations

import math

import numpy as np

from ..models.scenes import G, Scene, drop_apexes, incline_acceleration, rolling_speed, rolling_time
from .scenes_engines import Run

__all__ = ["CHECKS", "check", "drift", "APEX_TOL", "NO_REBOUND", "DROP_PENETRATION", "CRADLE_ENERGY", "CRADLE_OTHERS",
           "INCLINE_STICK", "INCLINE_ACCEL", "ROLL_SPHERE", "ROLL_CAPSULE", "SLIDE_TOL", "REST_DRIFT",
           "REST_PENETRATION", "REST_KE", "STAND_PTP", "STAND_WINDOW"]

APEX_TOL = 0.03
"""Ball drop, e > 0: the first three apexes within 3 % of ``e^(2k) h``."""
NO_REBOUND = 1e-3
"""Ball drop, e = 0: no rebound above 1 mm."""
DROP_PENETRATION = 1e-3
"""Ball drop: penetration below 1 mm."""
CRADLE_ENERGY = 0.99
"""Newton's cradle: the last ball rises to at least 99 % of the first ball's release height ..."""
CRADLE_OTHERS = 0.01
"""... and the other balls keep at most 1 % of the energy then (only the last ball leaves)."""
INCLINE_STICK = 1e-3
"""Box on an incline, tan(angle) <= mu: travel below 1 mm in 1 s."""
INCLINE_ACCEL = 0.02
"""Box on an incline, tan(angle) > mu: acceleration within 2 % of g (sin - mu cos)."""
ROLL_SPHERE = 5e-3
"""Rolling sphere: speed kept within 0.5 % (over 3 s)."""
ROLL_CAPSULE = 1e-2
"""Rolling capsule: speed kept within 1 % (over 3 s)."""
SLIDE_TOL = 0.02
"""Sliding sphere: rolling starts at t* = 2 v0 / (7 mu g) within 2 %, then moves at 5/7 v0 within 2 %."""
REST_DRIFT = 5e-4
"""Stacks and pyramid: no box moves more than 0.5 mm from its start ..."""
REST_PENETRATION = 5e-4
"""... penetration below 0.5 mm ..."""
REST_KE = 1e-6
"""... and kinetic energy below 1e-6 J at the end."""
STAND_PTP = 1e-6
"""solo12: base peak-to-peak below 1 um over the last :data:`STAND_WINDOW` seconds."""
STAND_WINDOW = 0.5


def _result(ok: bool, value: float, expected: float, what: str) -> dict:
    return {"ok": bool(ok), "value": float(value), "expected": float(expected), "what": what}


def drift(run: Run) -> float:
    """Largest distance of a body centre from its start position over the run (m)."""
    return float(np.linalg.norm(run.centre - run.centre[:1], axis=2).max())


def _apexes(z: np.ndarray, vz: np.ndarray) -> np.ndarray:
    """Heights at the samples where the vertical velocity turns from up to down."""
    turn = np.flatnonzero((vz[:-1] > 0.0) & (vz[1:] <= 0.0))
    return np.array([z[i:i + 2].max() for i in turn])


def _ball_drop(scene: Scene, run: Run) -> dict:
    p = scene.params
    z = run.centre[:, 0, 2] - p["radius"]
    vz = run.velocity[:, 0, 2]
    deep = run.penetration >= DROP_PENETRATION
    pen = f"; penetration {run.penetration:.2e} m{' (too deep)' if deep else ''}"
    if p["restitution"] == 0.0:
        first = int(np.argmax(z < 0.5 * p["height"]))  # half way down
        landed = np.flatnonzero(vz[first:] >= -1e-9)  # the fall stopped
        rebound = float(z[first + landed[0]:].max()) if landed.size else math.inf
        return _result(rebound < NO_REBOUND and not deep, rebound, NO_REBOUND, "rebound height (m)" + pen)
    want = drop_apexes(p["height"], p["restitution"], 3)
    got = _apexes(z, vz)
    if got.size < 3:
        return _result(False, got.size, 3, "apexes seen" + pen)
    err = np.abs(got[:3] / want - 1.0)
    k = int(np.argmax(err))
    return _result(err.max() <= APEX_TOL and not deep, got[k], want[k], f"apex {k + 1} height (m), worst of 3" + pen)


def _cradle(scene: Scene, run: Run) -> dict:
    p = scene.params
    m, L, r = p["mass"], p["length"], p["radius"]
    h0 = L * (1.0 - math.cos(p["angle"]))
    z = run.centre[:, :, 2] - r  # height above the rest position
    vz = run.velocity[:, -1, 2]
    moving = np.flatnonzero(vz > 1e-6)
    if moving.size == 0:
        return _result(False, 0.0, CRADLE_ENERGY, "last ball's rise / release height")
    top = np.flatnonzero(vz[moving[0]:] <= 0.0)
    if top.size == 0:
        return _result(False, z[:, -1].max() / h0, CRADLE_ENERGY, "last ball's rise / release height (no apex)")
    k = moving[0] + top[0]
    rise = z[k, -1] / h0
    others = (0.5 * m * (run.velocity[k, :-1] ** 2).sum() + m * G * z[k, :-1].sum()) / (m * G * h0)
    ok = rise >= CRADLE_ENERGY and others <= CRADLE_OTHERS
    return _result(ok, rise, CRADLE_ENERGY, f"last ball's rise / release height (others keep {others:.2%})")


def _incline(scene: Scene, run: Run) -> dict:
    p = scene.params
    d = scene.ground[:, 0]
    travel = (run.centre[:, 0] - run.centre[0, 0]) @ d
    a = incline_acceleration(p["angle"], p["mu"])
    if a == 0.0:
        moved = float(np.abs(travel).max())
        return _result(moved < INCLINE_STICK, moved, INCLINE_STICK, "travel (m), sticks")
    k = run.t.size // 2
    fit = 2.0 * np.polyfit(run.t[k:], travel[k:], 2)[0]
    return _result(abs(fit / a - 1.0) <= INCLINE_ACCEL, fit, a, "acceleration (m/s^2), slides")


def _rolling(tol: float):
    def check(scene: Scene, run: Run) -> dict:
        v = np.linalg.norm(run.velocity[:, 0, :2], axis=1)
        ratio = v[-1] / scene.params["speed"]
        return _result(abs(ratio - 1.0) <= tol, ratio, 1.0, "final / initial speed")
    return check


def _sliding(scene: Scene, run: Run) -> dict:
    p = scene.params
    v0, r = p["v0"], p["radius"]
    contact = np.array([0.0, 0.0, -r])
    slip = np.linalg.norm((run.velocity[:, 0] + np.cross(run.omega[:, 0], contact))[:, :2], axis=1)
    t_star, v_roll = rolling_time(v0, p["mu"]), rolling_speed(v0)
    sliding = np.flatnonzero((slip > 0.2 * v0) & (run.t > 0.0))
    if sliding.size < 2:
        return _result(False, math.nan, t_star, "rolling start t* (s)")
    b, a = np.polyfit(run.t[sliding], slip[sliding], 1)
    t_fit = -a / b
    v_end = float(np.linalg.norm(run.velocity[-1, 0, :2]))
    ok = abs(t_fit / t_star - 1.0) <= SLIDE_TOL and abs(v_end / v_roll - 1.0) <= SLIDE_TOL
    return _result(ok, t_fit, t_star, f"rolling start t* (s); then {v_end / v_roll:.4f} x 5/7 v0")


def _rest(scene: Scene, run: Run) -> dict:
    dr, ke = drift(run), float(run.ke[-1])
    ok = dr < REST_DRIFT and run.penetration < REST_PENETRATION and ke < REST_KE
    return _result(ok, dr, REST_DRIFT, f"drift (m); KE at the end {ke:.2e} J")


def _stand(scene: Scene, run: Run) -> dict:
    k = max(0, run.t.size - int(round(STAND_WINDOW / (run.t[1] - run.t[0]))) - 1)
    ptp = float(np.ptp(run.centre[k:, 0], axis=0).max())
    return _result(ptp < STAND_PTP, ptp, STAND_PTP, f"base peak-to-peak over the last {STAND_WINDOW:g} s (m)")


CHECKS = {"ball_drop": _ball_drop, "cradle": _cradle, "incline": _incline, "rolling_sphere": _rolling(ROLL_SPHERE),
          "rolling_capsule": _rolling(ROLL_CAPSULE), "sliding": _sliding, "rest": _rest, "stand": _stand}
"""Check name -> function(scene, run)."""


def check(name: str, scene: Scene, run: Run) -> dict:
    """Run check ``name`` (:data:`CHECKS`) on ``run``; a failed run fails it (``what`` says why)."""
    out = CHECKS[name](scene, run)
    if run.failure is not None:
        out = {**out, "ok": False, "what": f"failed at t = {run.t[-1]:.3f} s: {run.failure}"}
    return out
