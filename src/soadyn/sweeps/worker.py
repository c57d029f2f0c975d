"""The work of one sweep task: build the models, run its rollouts one after another (one rollout kernel call
each) and summarize every run in one row. A rollout that fails is a row too, with its error.

This module imports no Ray: the same :func:`run_rollouts` runs in-process (``backend="serial"``) and as a
Ray task, so both give the same numbers, bit for bit.
"""

from __future__ import annotations

import math
import time
from pathlib import Path

import numpy as np

from ..model import Model
from ..sim import SimulationError, Simulator, Trajectory
from .config import SweepSpec, parse_target

__all__ = ["build_model", "initial_state", "run_rollouts", "summarize", "STAT_SUMMARIES", "TIMING_COLUMNS"]

STAT_SUMMARIES = ("max_contacts", "max_active_contacts", "max_lcp_size", "mean_pivots", "collision_steps",
                  "regularized_steps", "max_penetration", "ppm_fallbacks", "max_constraint_error",
                  "final_constraint_error", "max_constraint_velocity_error", "singular_steps",
                  "projection_iterations_max")
"""Entries of :attr:`soadyn.Trajectory.stats` copied into a rollout's row when the run has them (contact and
closed-chain runs)."""
TIMING_COLUMNS = ("wall_time_s",)
"""Columns that measure the machine rather than the rollout (left out when comparing two runs of a sweep)."""


def build_model(spec: SweepSpec, params: dict) -> tuple[Model, tuple | None]:
    """The model of one rollout: ``spec.model`` with ``spec.model_args`` and the ``model.*`` parameters, and
    the start state ``(q0, qd0)`` that comes with it when the factory returns a scene (an object with
    ``model`` and ``start``, such as :func:`soadyn.models.ball_drop`), else None."""
    kwargs = dict(spec.model_args)
    kwargs.update({parse_target(k)[1]: v for k, v in params.items() if parse_target(k)[0] == "model"})
    source = spec.model
    if callable(source):
        built = source(**kwargs)
    else:
        built = _model_from_name(str(source), kwargs, spec.floating_base)
    start = None
    if not isinstance(built, Model) and isinstance(getattr(built, "model", None), Model) and hasattr(built, "start"):
        built, start = built.model, built.start
    if not isinstance(built, Model):
        raise ValueError(f"model: {source!r} returned {type(built).__name__}, not a soadyn.Model or a scene")
    return built, start


def _model_from_name(source: str, kwargs: dict, floating_base: bool) -> Model:
    from .. import models
    from ..models.robots import ROBOTS

    if source in getattr(models, "__all__", ()) and callable(getattr(models, source)):
        return getattr(models, source)(**kwargs)
    if source in ROBOTS:
        return models.robot(source, floating_base, **kwargs)
    path = Path(source).expanduser()
    if path.suffix.lower() == ".urdf":
        if not path.is_file():
            raise ValueError(f"model: URDF file {source!r} not found")
        return Model.from_urdf(path, floating_base=floating_base, **kwargs)
    if path.suffix.lower() == ".xml":
        if not hasattr(Model, "from_mjcf"):
            raise ValueError(f"model: {source!r}: MJCF files need soadyn's MJCF loader, which this version lacks")
        if not path.is_file():
            raise ValueError(f"model: MJCF file {source!r} not found")
        return Model.from_mjcf(path, **kwargs)
    raise ValueError(f"model: unknown model {source!r}: expected a function of soadyn.models (e.g. 'pendulum'), "
                     f"an example-robot-data robot {sorted(ROBOTS)}, a .urdf or .xml file, or a callable")


def initial_state(spec: SweepSpec, model: Model, params: dict, scene_start: tuple | None = None
                  ) -> tuple[np.ndarray, np.ndarray]:
    """``(q0, qd0)`` of one rollout: ``spec.start`` (None: the scene's start if the model came from a scene,
    else the neutral configuration at rest) with the row's ``q0[i]``/``qd0[i]`` values."""
    start = spec.start
    if start is None and scene_start is not None:
        q0, qd0 = (np.array(x, dtype=np.float64) for x in scene_start)
    elif start is None:
        q0, qd0 = model.neutral_q(), np.zeros(model.nv)
    elif isinstance(start, dict):
        unknown = set(start) - {"q0", "qd0"}
        if unknown:
            raise ValueError(f"start: unknown keys {sorted(unknown)} (expected q0, qd0)")
        q0 = np.array(start.get("q0", model.neutral_q()), dtype=np.float64)
        qd0 = np.array(start.get("qd0", np.zeros(model.nv)), dtype=np.float64)
    else:
        if isinstance(start, str):
            from .. import models

            if start not in getattr(models, "__all__", ()):
                raise ValueError(f"start: {start!r} is not a function of soadyn.models")
            start = getattr(models, start)
        q0, qd0 = start(model)
        q0, qd0 = np.array(q0, dtype=np.float64), np.array(qd0, dtype=np.float64)
    for name, value in params.items():
        kind, index = parse_target(name)
        if kind in ("q0", "qd0"):
            x = q0 if kind == "q0" else qd0
            if index >= x.shape[0]:
                raise ValueError(f"parameter {name!r}: index {index} out of range ({kind} has {x.shape[0]} entries)")
            x[index] = value
    return q0, qd0


def _settings(spec: SweepSpec, params: dict) -> tuple[float, float, dict | None, dict]:
    """``(dt, duration, contact keyword arguments, tau entries)`` of one rollout."""
    dt, duration = float(spec.dt), float(spec.duration)
    contact = None if spec.contact is None else dict(spec.contact)
    tau = {}
    for name, value in params.items():
        kind, key = parse_target(name)
        if kind == "dt":
            dt = value
        elif kind == "duration":
            duration = value
        elif kind == "contact":
            contact = {**(contact or {}), key: value}
        elif kind == "tau":
            tau[key] = value
    return dt, duration, contact, tau


def summarize(spec: SweepSpec, model: Model, traj: Trajectory) -> dict:
    """The summary columns of a finished rollout: energies (start, end, largest drift of the total), the final
    state, the frames' final positions and height range, contact and loop statistics, and ``spec.summary``."""
    E = traj.energy[:, 2]
    out = {"energy_start": float(E[0]), "energy_end": float(E[-1]),
           "energy_drift": float(np.max(np.abs(E - E[0]))),
           "q_end": traj.q[-1].tolist(), "qd_end": traj.qd[-1].tolist()}
    if spec.frames:
        P = traj.frame_positions(model, list(spec.frames))
        for j, frame in enumerate(spec.frames):
            for axis, c in zip("xyz", P[-1, j]):
                out[f"{frame}_{axis}"] = float(c)
            out[f"{frame}_z_min"] = float(P[:, j, 2].min())
            out[f"{frame}_z_max"] = float(P[:, j, 2].max())
    for key in STAT_SUMMARIES:
        if key in traj.stats:
            out[key] = float(traj.stats[key])
    if spec.summary is not None:
        extra = spec.summary(traj, model)
        if not isinstance(extra, dict):
            raise ValueError(f"summary: expected a dict of numbers, got {type(extra).__name__}")
        out.update({str(k): (v.item() if isinstance(v, np.generic) else v) for k, v in extra.items()})
    return out


def run_rollout(spec: SweepSpec, index: int, params: dict, models: dict, keep: bool) -> dict:
    """One rollout's row: ``rollout`` (its index), the parameters, ``status`` (``"ok"`` or ``"failed"``),
    ``error_type`` and ``error`` (empty when ok), ``failed_step`` (-1 unless a step failed), ``t_end`` (the
    time reached), ``wall_time_s`` and the summaries (absent when failed). With ``keep``, the trajectory
    (the states before the failure, for a failed step) is under ``"trajectory"``."""
    row = {"rollout": index, **params, "status": "ok", "error_type": "", "error": "", "failed_step": -1,
           "t_end": math.nan}
    t0 = time.perf_counter()
    traj = None
    try:
        key = repr(sorted((k, v) for k, v in params.items() if k.startswith("model.")))
        if key not in models:
            models[key] = build_model(spec, params)
        model, scene_start = models[key]
        q0, qd0 = initial_state(spec, model, params, scene_start)
        dt, duration, contact, tau_entries = _settings(spec, params)
        tau = np.zeros(model.nv)
        for k, v in tau_entries.items():
            if k >= model.nv:
                raise ValueError(f"parameter 'tau[{k}]': index {k} out of range (tau has {model.nv} entries)")
            tau[k] = v
        if contact is not None:
            from ..contact import ContactSettings

            contact = ContactSettings(**contact)
        sim = Simulator(model, dt=dt, integrator=spec.integrator, contact=contact)
        try:
            traj = sim.rollout(q0, qd0, duration=duration, tau=tau, progress=False)
        except SimulationError as exc:
            traj = exc.trajectory
            row["failed_step"] = int(exc.step)
            row["t_end"] = float(exc.time)
            raise
        row["t_end"] = float(traj.t[-1])
        row.update(summarize(spec, model, traj))
    except Exception as exc:  # noqa: BLE001  every failure becomes the row's error, never a lost rollout
        row["status"] = "failed"
        row["error_type"] = type(exc).__name__
        row["error"] = str(exc) or repr(exc)
    row["wall_time_s"] = time.perf_counter() - t0
    if keep and traj is not None:
        row["trajectory"] = traj
    return row


def run_rollouts(spec: SweepSpec, rows: list, keep: bool = False) -> list:
    """Run the rollouts ``rows`` (``[(index, {parameter: value}), ...]``) one after another, each model
    built once per task; returns their rows (see :func:`run_rollout`) in the same order."""
    models: dict = {}
    return [run_rollout(spec, index, params, models, keep) for index, params in rows]
