"""Runs of one scene of :mod:`soadyn.models.scenes` in soadyn, MuJoCo and DART, recorded the same way.

:class:`Run` holds what the checks of :mod:`soadyn.bench.scenes_checks` read, per recorded state (every step,
``dt`` = 1 ms): the world centre, linear and angular velocity of each body (the scene's parts; the base for a
robot), the kinetic energy, and over the run the largest penetration and a failure if one stopped it. The
timed runs (:func:`timed`) do nothing but step.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass

import numpy as np

from ..models.scenes import Scene

__all__ = ["Run", "ENGINES", "record", "timed", "engines_available", "mujoco_start", "ms_per_second"]

DT = 1e-3
ENGINES = ("soadyn", "mujoco", "dart")


@dataclass
class Run:
    """A recorded run: ``t`` (k + 1,), ``centre``, ``velocity``, ``omega`` (k + 1, n, 3) in world axes, ``ke``
    (k + 1,) J, ``penetration`` (m, largest over the run), ``failure`` (None or the message; the arrays then
    stop at the last good state), ``stats`` (engine extras)."""

    engine: str
    t: np.ndarray
    centre: np.ndarray
    velocity: np.ndarray
    omega: np.ndarray
    ke: np.ndarray
    penetration: float
    failure: str | None = None
    stats: dict | None = None


def engines_available() -> dict:
    """``{engine: True or the reason it cannot run}``."""
    out = {"soadyn": True}
    for name, mod in (("mujoco", "mujoco"), ("dart", "dartpy")):
        try:
            __import__(mod)
            out[name] = True
        except ImportError as exc:
            out[name] = f"{mod} is not installed ({exc}); pip install {mod}"
    return out


def _steps(duration: float) -> int:
    return int(round(duration / DT))


def _hinge_state(scene: Scene, angles: np.ndarray, rates: np.ndarray):
    """World centres, velocities and angular velocities of the hinge parts from their angles and rates
    ((k, n) each)."""
    from ..spatial import rot_axis

    k, n = angles.shape
    C, V, W = np.empty((k, n, 3)), np.empty((k, n, 3)), np.empty((k, n, 3))
    for j, p in enumerate(scene.parts):
        a = np.asarray(p.axis, float) / np.linalg.norm(p.axis)
        arm0 = np.asarray(p.position, float) - np.asarray(p.pivot, float)
        for i in range(k):
            arm = rot_axis(a, angles[i, j]) @ arm0
            C[i, j] = np.asarray(p.pivot) + arm
            W[i, j] = rates[i, j] * a
            V[i, j] = np.cross(W[i, j], arm)
    return C, V, W


# ------------------------------------------------------------------------------------------------- soadyn
def _soadyn_sim(scene: Scene, settings=None):
    from ..contact import ContactSettings
    from ..sim import Simulator

    return Simulator(scene.model, DT, contact=ContactSettings() if settings is None else settings)


def _soadyn_record(scene: Scene, duration: float, settings=None) -> Run:
    from scipy.spatial.transform import Rotation

    from ..sim import SimulationError

    sim = _soadyn_sim(scene, settings)
    failure = None
    try:
        traj = sim.rollout(scene.q0, scene.qd0, duration=duration, progress=False)
    except SimulationError as exc:
        traj, failure = exc.trajectory, str(exc)
    m = scene.model
    Q, QD = traj.q, traj.qd
    hinge = bool(scene.parts) and scene.parts[0].joint == "hinge"
    if hinge:
        C, V, W = _hinge_state(scene, Q[:, m.jnt_qadr], QD[:, m.jnt_vadr])
    else:
        bodies = [m.body_id(p.name) for p in scene.parts] if scene.parts else [0]
        k = Q.shape[0]
        C, V, W = np.empty((k, len(bodies), 3)), np.empty((k, len(bodies), 3)), np.empty((k, len(bodies), 3))
        for j, b in enumerate(bodies):
            qa, va = m.jnt_qadr[b], m.jnt_vadr[b]
            R = Rotation.from_quat(Q[:, qa + 3:qa + 7]).as_matrix()
            C[:, j] = Q[:, qa:qa + 3]
            W[:, j] = np.einsum("kij,kj->ki", R, QD[:, va:va + 3])
            V[:, j] = np.einsum("kij,kj->ki", R, QD[:, va + 3:va + 6])
    st = traj.stats
    return Run("soadyn", traj.t.copy(), C, V, W, traj.energy[:, 0].copy(), float(st.get("max_penetration", 0.0)),
               failure, {k: st[k] for k in ("max_contacts", "max_lcp_size", "mean_pivots", "regularized_steps", "paths")
                         if k in st})


def _soadyn_timed(scene: Scene, duration: float, settings=None):
    from ..sim import SimulationError

    sim = _soadyn_sim(scene, settings)
    t0 = time.perf_counter()
    try:
        sim.rollout(scene.q0, scene.qd0, duration=duration, progress=False)
        done = duration
    except SimulationError as exc:
        done = exc.time
    return time.perf_counter() - t0, done


# ------------------------------------------------------------------------------------------------- MuJoCo
def mujoco_start(scene: Scene):
    """``(MjModel, MjData)`` of ``scene`` at its start state."""
    import mujoco

    from ..models import scenes_mjcf

    m = scenes_mjcf.mujoco_model(scene)
    d = mujoco.MjData(m)
    scenes_mjcf.mujoco_start(scene, m, d)
    return m, d


def _mujoco_record(scene: Scene, duration: float) -> Run:
    import mujoco

    m, d = mujoco_start(scene)
    n = _steps(duration)
    names = [p.name for p in scene.parts] if scene.parts else [None]
    hinge = bool(scene.parts) and scene.parts[0].joint == "hinge"
    if hinge:
        jq = [m.joint(nm).qposadr[0] for nm in names]
        jv = [m.joint(nm).dofadr[0] for nm in names]
        A, Rt = np.empty((n + 1, len(names))), np.empty((n + 1, len(names)))
    else:
        ids = [1 if nm is None else m.body(nm).id for nm in names]
        C, V, W = np.empty((n + 1, len(ids), 3)), np.empty((n + 1, len(ids), 3)), np.empty((n + 1, len(ids), 3))
    ke = np.empty(n + 1)
    vel = np.zeros(6)
    pen = 0.0
    for k in range(n + 1):
        if k:
            mujoco.mj_step(m, d)
        if hinge:
            A[k], Rt[k] = d.qpos[jq], d.qvel[jv]
        else:
            for j, b in enumerate(ids):
                C[k, j] = d.xpos[b]
                mujoco.mj_objectVelocity(m, d, mujoco.mjtObj.mjOBJ_BODY, b, vel, 0)  # [w; v] world axes
                W[k, j], V[k, j] = vel[:3], vel[3:]
        mujoco.mj_energyVel(m, d)
        ke[k] = d.energy[1]
        if d.ncon:
            pen = max(pen, float(-d.contact.dist[:d.ncon].min()))
    if hinge:
        C, V, W = _hinge_state(scene, A, Rt)
    return Run("mujoco", np.arange(n + 1) * DT, C, V, W, ke, pen)


def _mujoco_timed(scene: Scene, duration: float):
    import mujoco

    m, d = mujoco_start(scene)
    t0 = time.perf_counter()
    mujoco.mj_step(m, d, nstep=_steps(duration))
    return time.perf_counter() - t0, duration


# ------------------------------------------------------------------------------------------------- DART
def _dart_record(scene: Scene, duration: float) -> Run:
    from ..models.scenes_dart import dart_world

    w, skels = dart_world(scene)
    n = _steps(duration)
    hinge = bool(scene.parts) and scene.parts[0].joint == "hinge"
    nb = len(skels)
    C, V, W = np.empty((n + 1, nb, 3)), np.empty((n + 1, nb, 3)), np.empty((n + 1, nb, 3))
    A, Rt = np.empty((n + 1, nb)), np.empty((n + 1, nb))
    bodies = [s.getBodyNode(0) for s in skels]
    ke = np.empty(n + 1)
    pen = 0.0
    for k in range(n + 1):
        if k:
            w.step()
            res = w.getLastCollisionResult()
            for c in range(res.getNumContacts()):
                pen = max(pen, float(res.getContact(c).penetrationDepth))
        if hinge:
            for j, s in enumerate(skels):
                A[k, j], Rt[k, j] = s.getPosition(0), s.getVelocity(0)
        else:
            for j, b in enumerate(bodies):
                C[k, j] = b.getWorldTransform().translation()
                V[k, j] = b.getLinearVelocity()
                W[k, j] = b.getAngularVelocity()
        ke[k] = sum(s.computeKineticEnergy() for s in skels)
    if hinge:
        C, V, W = _hinge_state(scene, A, Rt)
    return Run("dart", np.arange(n + 1) * DT, C, V, W, ke, pen)


def _dart_timed(scene: Scene, duration: float):
    from ..models.scenes_dart import dart_world

    w, _ = dart_world(scene)
    n = _steps(duration)
    t0 = time.perf_counter()
    for _ in range(n):
        w.step()
    return time.perf_counter() - t0, duration


# ------------------------------------------------------------------------------------------------- dispatch
def record(engine: str, scene: Scene, duration: float, settings=None) -> Run:
    """A recorded run of ``scene`` for ``duration`` seconds by ``engine`` (``settings``: soadyn's
    :class:`~soadyn.contact.ContactSettings`, None for the defaults)."""
    if engine == "soadyn":
        return _soadyn_record(scene, duration, settings)
    if engine == "mujoco":
        return _mujoco_record(scene, duration)
    if engine == "dart":
        return _dart_record(scene, duration)
    raise ValueError(f"engine: expected one of {ENGINES}, got {engine!r}")


def timed(engine: str, scene: Scene, duration: float, settings=None) -> tuple[float, float]:
    """``(wall seconds, simulated seconds)`` of one run that only steps (soadyn: one ``rollout`` call; MuJoCo:
    one ``mj_step(m, d, nstep)``; DART: ``World.step`` in a Python loop). A soadyn run that fails counts the
    time it simulated."""
    if engine == "soadyn":
        return _soadyn_timed(scene, duration, settings)
    if engine == "mujoco":
        return _mujoco_timed(scene, duration)
    if engine == "dart":
        return _dart_timed(scene, duration)
    raise ValueError(f"engine: expected one of {ENGINES}, got {engine!r}")


def ms_per_second(samples: list) -> dict:
    """Median and best of ``[(wall, simulated)]`` as ms per simulated second."""
    r = sorted(1e3 * w / s for w, s in samples if s > 0)
    if not r:
        return {"median": math.nan, "min": math.nan, "repeats": 0}
    n = len(r)
    med = r[n // 2] if n % 2 else 0.5 * (r[n // 2 - 1] + r[n // 2])
    return {"median": med, "min": r[0], "repeats": n}
