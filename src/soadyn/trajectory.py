"""The record of a simulation run and what both simulators share: :class:`Trajectory` (states, energies, loop
errors, contact statistics; saved and loaded, with the frame positions and energies derived from them),
:class:`SimulationError`, :func:`energy`, the integrator table and the kernel calls and input checks of
:class:`soadyn.sim.Simulator` and :class:`soadyn.embedded_sim.EmbeddedSimulator` (docs/architecture.md,
Public API)."""

from __future__ import annotations

import dataclasses
import json
import math
import numbers
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from ._kernels import sim as _ks
from .data import Data
from .dynamics import check_data, as_array, check_status
from .model import Model

__all__ = ["Trajectory", "SimulationError", "energy", "INTEGRATORS"]

INTEGRATORS = {"semi_implicit": _ks.SEMI_IMPLICIT, "rk4": _ks.RK4}
"""Integrator names accepted by :class:`~soadyn.sim.Simulator` (and the embedded simulator) and their kernel
codes."""


class SimulationError(ValueError):
    """A rollout failed at ``step`` (time ``time``): non-finite inputs, a singular mass matrix, a diverged
    state or, with projection, loops that could not be closed. ``trajectory`` holds the states up to and
    including the last valid one (``t <= time``)."""

    def __init__(self, message: str, step: int, time: float, trajectory: "Trajectory"):
        super().__init__(message)
        self.step = step
        self.time = time
        self.trajectory = trajectory


def _json_default(x):
    if isinstance(x, np.integer):
        return int(x)
    if isinstance(x, np.floating):
        return float(x)
    if isinstance(x, np.ndarray):
        return x.tolist()
    raise TypeError(f"stats value of type {type(x).__name__} cannot be saved as JSON")


@dataclass(eq=False)
class Trajectory:
    """A recorded run: ``K`` states at times ``t``.

    ``t`` (K,) seconds; ``q`` (K, nq); ``qd`` (K, nv); ``energy`` (K, 3) kinetic, potential, total (J);
    ``stats``: dict of run facts (model, nq, nv, dt, integrator, steps, kernel wall time, steps per second,
    ...), JSON-serializable; ``model_name``: the model the run belongs to.

    Runs of a model with loops also carry (None otherwise), saved and loaded with the rest:
    ``constraint_error`` (K,) ``max |phi|`` of each state (loop position errors, m or rad);
    ``constraint_velocity_error`` (K,) ``max |G_c qd|``; and per step ``n`` (K - 1 rows, step ``n`` goes from
    state ``n`` to ``n + 1``): ``loop_rank`` the smallest rank of the Schur complement ``Q Lambda Q*`` over
    the integrator stages, ``loop_singular`` 1 where it was singular (redundant loops, solved in the
    least-squares sense), ``projection_iterations`` the Gauss-Newton iterations of projection (0 without).

    Runs with contact carry ``contact_stats`` (K - 1, 9), per step: contacts detected, active contacts,
    LCP size, pivots of the step LCP (PGS: iterations), pivots of the collision LCPs, 1 if a collision
    phase ran, the Tikhonov regularization used, the largest penetration depth (m) at the step's start,
    PPM fallbacks to Lemke (:data:`soadyn.contact.stepper.STAT_COLUMNS`); ``stats`` adds their summary.
    Rolled out with ``record_contacts=True`` they also carry the contacts of every step, as the kernel solved
    them: ``contact_count`` (K - 1,) contacts of step ``n`` (detected at state ``n``), and for all of them in
    step order ``contact_point`` (N, 3) world points, ``contact_normal`` (N, 3) unit normals (from body B to
    body A) and ``contact_force`` (N, 3) the world force on body A averaged over the step (impulse / dt, normal
    and friction, collisions included); :meth:`contacts` gives one step's.

    ``model``: the :class:`Model` of the run (set by :class:`Simulator` and :meth:`from_states`), saved
    with the trajectory so that a loaded run can be replayed (:meth:`view`) without rebuilding it.
    """

    t: np.ndarray
    q: np.ndarray
    qd: np.ndarray
    energy: np.ndarray
    stats: dict = field(default_factory=dict)
    model_name: str = ""
    constraint_error: np.ndarray | None = None
    constraint_velocity_error: np.ndarray | None = None
    loop_rank: np.ndarray | None = None
    loop_singular: np.ndarray | None = None
    projection_iterations: np.ndarray | None = None
    contact_stats: np.ndarray | None = None
    contact_count: np.ndarray | None = None
    contact_point: np.ndarray | None = None
    contact_normal: np.ndarray | None = None
    contact_force: np.ndarray | None = None
    model: Model | None = field(default=None, repr=False)

    def __len__(self) -> int:
        return int(self.t.shape[0])

    def __repr__(self) -> str:
        span = f"t = {self.t[0]:.4g} .. {self.t[-1]:.4g} s" if len(self) else "empty"
        return f"<soadyn.Trajectory {self.model_name!r}: {len(self)} states, {span}>"

    def contacts(self, n: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """``(points, normals, forces)`` (each (m, 3)) of step ``n`` as recorded by
        ``rollout(..., record_contacts=True)``."""
        if self.contact_count is None:
            raise ValueError("trajectory: no contacts recorded (rollout(..., record_contacts=True) records them)")
        if not 0 <= n < self.contact_count.shape[0]:
            raise ValueError(f"n: step {n} out of range [0, {self.contact_count.shape[0]})")
        a = int(self.contact_count[:n].sum())
        b = a + int(self.contact_count[n])
        return self.contact_point[a:b], self.contact_normal[a:b], self.contact_force[a:b]

    # ------------------------------------------------------------------ files
    def _arrays(self) -> dict:
        return {f.name: getattr(self, f.name) for f in dataclasses.fields(self)
                if isinstance(getattr(self, f.name), np.ndarray)}

    def save(self, path) -> Path:
        """Write the trajectory to an ``.npz`` file (arrays as stored, ``stats`` as JSON text, the model's
        arrays under ``model.*``); loads back bit for bit with :meth:`load`. Returns the path written."""
        from .io.model_arrays import model_to_arrays

        path = Path(path)
        if path.suffix != ".npz":
            path = path.with_name(path.name + ".npz")
        model = model_to_arrays(self.model) if self.model is not None else {}
        np.savez(path, **self._arrays(), stats=np.array(json.dumps(self.stats, default=_json_default)),
                 model_name=np.array(self.model_name), **model)
        return path

    @classmethod
    def load(cls, path) -> "Trajectory":
        """Read a trajectory written by :meth:`save` (with its model when it was saved with one)."""
        from .io.model_arrays import model_from_arrays

        with np.load(Path(path), allow_pickle=False) as z:
            names = {f.name for f in dataclasses.fields(cls)}
            missing = [n for n in ("t", "q", "qd", "energy") if n not in z.files]
            if missing:
                raise ValueError(f"path: {str(path)!r} is not a saved Trajectory (missing {missing})")
            kw = {n: z[n] for n in z.files if n in names and n not in ("stats", "model_name")}
            stats = json.loads(str(z["stats"])) if "stats" in z.files else {}
            model_name = str(z["model_name"]) if "model_name" in z.files else ""
            model = model_from_arrays(z)
        return cls(**kw, stats=stats, model_name=model_name, model=model)

    @classmethod
    def from_states(cls, model: Model, t, Q, QD, stats: dict | None = None) -> "Trajectory":
        """A trajectory of states recorded outside :meth:`Simulator.rollout` (e.g. a closed-loop run
        stepped from Python), with energies (and, for a model with loops, the constraint errors)
        evaluated in one kernel call each."""
        t = np.ascontiguousarray(t, dtype=np.float64)
        Q = np.ascontiguousarray(as_array(Q, (t.shape[0], model.nq), "Q"))
        QD = np.ascontiguousarray(as_array(QD, (t.shape[0], model.nv), "QD"))
        E = np.empty((t.shape[0], 3))
        data = model.data()
        check_status(energies(model, data, Q, QD, E), model, Q[0], ("Q", "QD"))
        traj = cls(t=t, q=Q, qd=QD, energy=E, stats=dict(stats or {}), model_name=model.name, model=model)
        if model.nl > 0:
            err = constraint_errors(model, data, Q, QD)
            traj.constraint_error = err[:, 0].copy()
            traj.constraint_velocity_error = err[:, 1].copy()
        return traj

    # ------------------------------------------------------------------ derived quantities
    def _check_model(self, model: Model) -> None:
        if not isinstance(model, Model):
            raise ValueError(f"model: expected a soadyn.Model, got {type(model).__name__}")
        if model.nq != self.q.shape[1] or (self.model_name and model.name != self.model_name):
            raise ValueError(f"model: {model.name!r} (nq={model.nq}) is not the model of this trajectory "
                             f"({self.model_name!r}, nq={self.q.shape[1]})")

    def frame_positions(self, model: Model, frame) -> np.ndarray:
        """World positions (K, 3) of ``frame`` (name or index) along the trajectory (one kernel call).
        ``frame`` may also be a list of frames: then the result is (K, nframes, 3)."""
        self._check_model(model)
        single = isinstance(frame, (str, int, np.integer))
        ids = np.array([model.frame_id(f) for f in ([frame] if single else frame)], dtype=np.int64)
        data = model.data()
        P = np.empty((len(self), ids.size, 3))
        Q = np.ascontiguousarray(self.q, dtype=np.float64)
        if not Q.flags.writeable:
            Q = Q.copy()
        st = _ks.frame_positions(model.model_int, model.model_float, data.data_float, Q, ids, P)
        check_status(st, model, Q[0], ("trajectory q", "trajectory qd", "input", "f_ext"))
        return P[:, 0] if single else P

    def plot(self, path=None, model: Model | None = None, frames=(), quantities=("energy",)) -> Path:
        """Write a PNG with one panel per quantity (``"energy"``, ``"energy_drift"``, ``"q"``, ``"qd"``)
        and, when ``frames`` are given (needs ``model``), a panel of their heights over time.
        Default path: ``<model_name>.png``. Returns the path written."""
        from .viz.plots import trajectory_figure

        return trajectory_figure(self, path, model=model, frames=frames, quantities=quantities)

    def view(self, model: Model | None = None, **options):
        """Replay the run in 3-D in a web browser: a :class:`soadyn.viz.viewer.Viewer` serving the scene
        (``model`` defaults to the trajectory's own; ``options`` as :class:`~soadyn.viz.viewer.Viewer`).
        Needs ``soadyn[viz]``. Returns the viewer (its server runs in the background)."""
        from .viz.viewer import Viewer

        return Viewer(self, model, **options)


def constraint_errors(model: Model, data: Data, Q: np.ndarray, QD: np.ndarray) -> np.ndarray:
    """Loop constraint errors of a model with loops, one kernel call: ``(max |phi|, max |G_c qd|)``
    of each state (K, 2)."""
    err = np.empty((Q.shape[0], 2))
    st = _ks.constraint_errors(model.model_int, model.model_float, data.data_float, Q, QD, err)
    check_status(st, model, Q[0], ("trajectory q", "trajectory qd", "input", "f_ext"))
    return err


def energies(model: Model, data: Data, Q: np.ndarray, QD: np.ndarray, E: np.ndarray) -> int:
    """Kinetic, potential and total energy (K, 3) of the states ``Q``, ``QD`` into ``E``, one kernel call;
    returns the kernel's status."""
    return _ks.energies(model.model_int, model.model_float, data.data_float, Q, QD, E)


def energy(model: Model, data: Data, q, qd) -> tuple[float, float]:
    """``(kinetic, potential)`` energy of the state ``(q, qd)``: ``1/2 qd^T M(q) qd`` and ``-sum m_i g . c_i``
    (zero at the world origin)."""
    check_data(model, data)
    data.q[:] = as_array(q, (model.nq,), "q")
    data.qd[:] = as_array(qd, (model.nv,), "qd")
    E = np.empty((1, 3))
    st = energies(model, data, data.q[None], data.qd[None], E)
    check_status(st, model, data.q)
    if not np.all(np.isfinite(E)):
        raise ValueError("qd: contains NaN or inf")
    return float(E[0, 0]), float(E[0, 1])


def positive_finite(x, name: str) -> float:
    """``x`` as a positive finite float, or ValueError naming ``name``."""
    if isinstance(x, bool) or not isinstance(x, numbers.Real):
        raise ValueError(f"{name}: expected a positive number, got {x!r}")
    x = float(x)
    if not (math.isfinite(x) and x > 0.0):
        raise ValueError(f"{name}: expected a positive finite number, got {x!r}")
    return x
