"""What a replay shows at each of its frames: the recorded state nearest to the frame's time, the body
poses of that state (forward kinematics), its contact points and contact forces.

A run rolled out with ``record_contacts=True`` carries the contacts the simulation kernel solved at each
step (:meth:`soadyn.Trajectory.contacts`): the replay draws those, the points and the force on body A of
the step that starts at the shown state (collisions included). For other runs (and runs made outside the
simulator) the replay detects the contacts at each shown state and re-solves the contact step of Jain 2014
Eq. 53 (the OS formulation, :func:`soadyn.contact.formulations.solve`) with the run's time step and
friction pyramid, drawing ``F / dt`` (normal and friction); the applied joint forces are not saved with a
run: pass them as ``tau`` (constant or one row per state) when the run was driven; the default, zero, is
exact for passive runs.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..contact.geometry import collide
from ..dynamics import as_array
from .scene import Scene

__all__ = ["Timeline", "timeline", "contact_forces", "DEFAULT_FPS"]

DEFAULT_FPS = 30.0
"""Frames per second of a replay (the recorded states nearest to each frame time are shown)."""


@dataclass(frozen=True, eq=False)
class Timeline:
    """``t`` (F,) frame times (s); ``index`` (F,) the recorded state shown at each frame; ``body`` (F, nb,
    4, 4) world body poses; ``points`` and ``forces``: per frame the (n_k, 3) world contact points and
    forces on body A (N), or None when not computed."""

    t: np.ndarray
    index: np.ndarray
    body: np.ndarray
    points: list | None
    forces: list | None

    def __len__(self) -> int:
        return int(self.t.shape[0])

    def frame_at(self, time: float) -> int:
        """The frame shown at ``time`` (the last frame at or before it, clipped to the run)."""
        return int(np.clip(np.searchsorted(self.t, float(time), side="right") - 1, 0, len(self) - 1))


def _frame_indices(t: np.ndarray, fps: float) -> tuple[np.ndarray, np.ndarray]:
    """Frame times ``t0 + j / fps`` over the run and the nearest recorded state of each."""
    if t.shape[0] < 2 or t[-1] - t[0] <= 0.0:
        return t[:1].copy(), np.zeros(1, dtype=np.int64)
    n = int(np.floor((t[-1] - t[0]) * fps + 1e-9)) + 1
    times = t[0] + np.arange(n) / fps
    hi = np.clip(np.searchsorted(t, times), 1, t.shape[0] - 1)
    index = np.where(times - t[hi - 1] <= t[hi] - times, hi - 1, hi)
    if n > t.shape[0]:  # fewer states than frames: show every state once
        return t.copy(), np.arange(t.shape[0], dtype=np.int64)
    return times, index.astype(np.int64)


def _step(traj) -> float:
    dt = (traj.stats or {}).get("dt")
    if dt is None:
        dt = float(np.median(np.diff(traj.t))) if len(traj) > 1 else 1e-3
    return float(dt)


def contact_forces(model, q, qd, tau, dt: float, n_f: int = 4, contacts=None) -> tuple[np.ndarray, np.ndarray]:
    """World contact points (n, 3) and the contact forces (n, 3) on body A of each contact (N) for one step
    ``dt`` from ``(q, qd)`` under joint forces ``tau``: the OS step LCP of Jain 2014 Eq. 53 solved by
    :func:`soadyn.contact.formulations.solve`, force = impulse / dt. ``contacts``: a ``collide`` result
    (default: detected at ``q``)."""
    from ..contact import formulations

    if contacts is None:
        contacts = collide(model, model.data(), q)
    if contacts.count == 0:
        return np.zeros((0, 3)), np.zeros((0, 3))
    step = formulations.solve("os", model, q, qd, tau, contacts, dt, n_f)
    return contacts.point.copy(), step.F / dt


def timeline(scene: Scene, traj, fps: float = DEFAULT_FPS, contacts: bool = True, forces: bool = True,
             tau=None) -> Timeline:
    """The :class:`Timeline` of ``traj`` (a :class:`soadyn.Trajectory` of ``scene.model``) at ``fps`` frames
    per second. ``contacts``: detect contact points (models with geoms); ``forces``: also the contact
    forces (see the module docstring; ``tau``: None, a constant (nv,) or one row per state (K, nv))."""
    model = scene.model
    if traj.q.shape[1] != model.nq or traj.qd.shape[1] != model.nv:
        raise ValueError(f"model: {model.name!r} (nq={model.nq}, nv={model.nv}) is not the model of this "
                         f"trajectory ({traj.model_name!r}, nq={traj.q.shape[1]}, nv={traj.qd.shape[1]})")
    if len(traj) == 0:
        raise ValueError("trajectory: no states to show")
    if not (np.isfinite(fps) and fps > 0.0):
        raise ValueError(f"fps: expected a positive number, got {fps!r}")
    times, index = _frame_indices(np.asarray(traj.t, dtype=float), float(fps))
    body = np.array([scene.body_poses(traj.q[k]) for k in index]).reshape(len(index), model.nb, 4, 4)
    if not contacts or model.ng == 0:
        return Timeline(times, index, body, None, None)
    if traj.contact_count is not None and traj.contact_count.shape[0] > 0:  # recorded by the kernel
        steps = [min(int(k), traj.contact_count.shape[0] - 1) for k in index]
        recorded = [traj.contacts(n) for n in steps]
        return Timeline(times, index, body, [p.copy() for p, _, _ in recorded],
                        [f.copy() for _, _, f in recorded] if forces else None)
    if tau is None:
        tau = np.zeros((1, model.nv))
    else:
        tau = np.asarray(tau, dtype=float)
        tau = as_array(tau, (len(traj), model.nv) if tau.ndim == 2 else (model.nv,), "tau").reshape(-1, model.nv)
    dt = _step(traj)
    n_f = int((traj.stats or {}).get("contact", {}).get("n_f", 4))
    data = model.data()
    points, fs = [], []
    for k in index:
        found = collide(model, data, traj.q[k])
        if forces:
            _, f = contact_forces(model, traj.q[k], traj.qd[k], tau[k if tau.shape[0] > 1 else 0], dt, n_f, found)
            fs.append(f)
        points.append(found.point.copy())
    return Timeline(times, index, body, points, fs if forces else None)
