"""Simulation: :class:`Simulator` steps a model in time (docs/architecture.md: Kernels, Public API); the
:class:`~soadyn.trajectory.Trajectory` it returns, :class:`~soadyn.trajectory.SimulationError` and
:func:`~soadyn.trajectory.energy` live in :mod:`soadyn.trajectory` and are re-exported here. A
:class:`Simulator` of an :class:`~soadyn.embedding.EmbeddedModel` is an
:class:`~soadyn.embedded_sim.EmbeddedSimulator`.

A step is one kernel call; :meth:`Simulator.rollout` runs all steps of a run in one kernel call, or in a
few chunks (one call each) behind a progress bar when the run is long. Models with loop constraints
(``model.nl > 0``) are stepped with the closed-chain accelerations of Jain et al. 2012 Lemma 2 at every
integrator stage, optionally stabilized by Baumgarte terms or projection error control (Sec. 5).
"""

from __future__ import annotations

import math
import numbers
import time

import numpy as np

from ._kernels import joints as _kj
from ._kernels import sim as _ks
from ._kernels.kinematics import BAD_ARRAY
from ._jit import EntryPoint
from .dynamics import as_array, check_status, external_forces, kernel_array
from .embedded_sim import EmbeddedSimulator
from .embedding import EmbeddedModel
from .model import Model
from .trajectory import (INTEGRATORS, SimulationError, Trajectory, constraint_errors, energies, energy,
                         positive_finite)

__all__ = ["Simulator", "Trajectory", "SimulationError", "energy", "INTEGRATORS", "LOOP_METHODS",
           "STABILIZATIONS"]

LOOP_METHODS = ("ta",)
"""Closed-chain methods :class:`Simulator` steps with (``"kkt"`` is rejected: see :class:`Simulator`)."""
STABILIZATIONS = (None, "baumgarte", "projection")
"""Constraint error control of :class:`Simulator` for models with loops (``"none"`` is read as None)."""
DEFAULT_BAUMGARTE = (50.0, 50.0)
"""``(alpha, beta)`` (1/s) of ``stabilization="baumgarte"`` when none are given: the constraint error obeys
``phi'' + 2 alpha phi' + beta^2 phi = 0``, critically damped with a 20 ms time constant (keep
``alpha dt`` well below 1 with explicit integrators)."""
PROJECTION_MAX_ITER = 20
"""Gauss-Newton iterations allowed per projection before a rollout fails (``NOT_CLOSED``)."""

PROGRESS_AFTER_S = 1.0
"""Runs expected to take longer than this (seconds of kernel time) show a progress bar by default."""
CHUNK_S = 0.2
"""Target kernel time of one chunk when a run is split for its progress bar (seconds)."""
_body_eval_seconds = [6e-7]
"""Cost of one dynamics evaluation per body (seconds) for the wall-time estimate of a run: an a priori
value, replaced by the measurement of the last timed rollout (any model without loops) in this process."""
_loop_eval_seconds = [4e-6]
"""The same for models with loops (per body and loop row of one closed-chain evaluation), calibrated on
the last timed rollout of a model with loops."""

_STEP_MASK = (1 << _ks.STEP_SHIFT) - 1
_OK = _kj.OK
_empty = np.empty
_F64 = np.dtype(np.float64)
_NDARRAY = np.ndarray
# Simulator.step's one-step buffers and the Model/Data buffers always have the same types (soadyn._jit.EntryPoint)
_ROLLOUT, _LOOP_ROLLOUT = EntryPoint(_ks.rollout), EntryPoint(_ks.loop_rollout)


def _contact():
    """:mod:`soadyn.contact.stepper`, imported on first use (only simulators with contact need it)."""
    from .contact import stepper

    return stepper


def _non_negative_finite(x, name: str) -> float:
    if isinstance(x, bool) or not isinstance(x, numbers.Real):
        raise ValueError(f"{name}: expected (alpha, beta) of finite numbers >= 0, got {x!r}")
    x = float(x)
    if not (math.isfinite(x) and x >= 0.0):
        raise ValueError(f"{name}: expected (alpha, beta) of finite numbers >= 0, got {x!r}")
    return x


class Simulator:
    """Time stepping of a model with fixed step ``dt`` (seconds).

    ``integrator``: ``"semi_implicit"`` (``qd' = qd + dt qdd``, ``q' = q (+) dt qd'``; one dynamics
    evaluation per step, first order; symplectic only for a constant mass matrix, otherwise the energy
    drifts by O(dt) per unit time) or ``"rk4"`` (classical Runge-Kutta, four evaluations, fourth order).

    Free joints under ``"semi_implicit"`` step their centre-of-mass velocity in world axes and rewrite it in
    the new body axes exactly (the explicit update of the body-axes term ``-w x v`` would scale ``|v|`` by
    ``sqrt(1 + |w|^2 dt^2)`` per step): free flight with a constant angular velocity keeps ``|v|`` and the
    kinetic energy to round-off, a rolling sphere its speed. Spherical joints step as ``q (+) dt w``
    (``w`` is its own rotation axis). Details: :func:`soadyn._kernels.sim.rollout`.

    Models with loop constraints (``model.nl > 0``): every evaluation solves the closed-chain dynamics by
    Jain et al. 2012 Lemma 2 (``loop_method="ta"``, the tree-augmented method: ABA, the Schur complement
    from the node compliance, multipliers, ABA correction; :func:`soadyn.loops.forward_dynamics`), in the
    same single kernel call per step or per rollout. ``loop_method="kkt"`` (the sparse KKT solve, a scipy
    call) is not offered by the simulator and is rejected: it cannot run inside the rollout kernel; use
    :func:`soadyn.loops.forward_dynamics` with ``method="kkt"`` to check accelerations. Constraint error
    control (``stabilization``): None (the drift of ``phi`` is left alone), ``"baumgarte"``
    (``2 alpha G qd + beta^2 phi`` added to the constraint acceleration with ``baumgarte=(alpha, beta)`` in
    1/s, default :data:`DEFAULT_BAUMGARTE`) or ``"projection"`` (after every step, positions by
    mass-weighted Gauss-Newton onto ``max |phi| <= projection_tol``, then velocities onto ``G qd = 0``;
    Jain 2012 Sec. 5). The initial state is used as given (close it with :func:`soadyn.loops.assemble`
    and :func:`soadyn.loops.project`); its errors are recorded in the trajectory.

    The joints' passive spring-dampers (``model.dof_stiffness``, ``dof_damping``, ``dof_springref``; see
    :meth:`soadyn.ModelBuilder.set_spring`) act at every dynamics evaluation, added to ``tau``.

    ``contact``: None, or a :class:`soadyn.contact.ContactSettings` for hard contact between the model's
    geoms (velocity-level time steps, semi-implicit only): each step detects the contacts, resolves collisions
    by the compression and decompression LCPs and solves the OS step LCP of Jain 2014 (Eq. 53, with the
    loop-closure rows), or Drumwright's viscous or no-slip model on the same rows, all inside the rollout
    kernel (:mod:`soadyn._kernels.contact_sim`); the trajectory carries per-step ``contact_stats``. A step
    whose LCP is not solved raises :class:`soadyn.LCPError` from :meth:`step` (carrying the step's OS problem)
    and :class:`SimulationError` from :meth:`rollout` (with the states before it).

    The simulator owns one :class:`~soadyn.data.Data` workspace (``sim.data``): use one simulator per thread.
    """

    def __new__(cls, model=None, *args, **kwargs):
        # an embedded (CE) model steps with its own simulator (soadyn.embedded_sim.EmbeddedSimulator)
        if cls is Simulator and isinstance(model, EmbeddedModel):
            return EmbeddedSimulator(model, *args, **kwargs)
        return super().__new__(cls)

    def __init__(self, model: Model, dt: float, integrator: str = "semi_implicit", loop_method: str = "ta",
                 stabilization: str | None = None, baumgarte=None, projection_tol: float = 1e-12, contact=None):
        if not isinstance(model, Model):
            raise ValueError(f"model: expected a soadyn.Model, got {type(model).__name__}")
        self._dt = positive_finite(dt, "dt")
        if not isinstance(integrator, str) or integrator not in INTEGRATORS:
            raise ValueError(f"integrator: expected one of {tuple(INTEGRATORS)}, got {integrator!r}")
        self.model = model
        self._nq, self._nv = model.nq, model.nv  # the next state's sizes, read by every step
        self._integrator = integrator
        self._method = INTEGRATORS[integrator]
        self._loops = model.nl > 0
        self._loop_method, self._stabilization, self._baumgarte, self._tol = self._loop_options(
            loop_method, stabilization, baumgarte, projection_tol)
        self.data = model.data()
        self._held = False  # whether _tau1 or _fext1 hold the last step's inputs (else zeros)
        self._contact = None
        self.contact = contact  # checked; the one-step rows of step() (_step_rows)

    def _info_array(self, nsteps: int, record: bool = False) -> np.ndarray:
        """Per-step statistics filled by the kernel: the loop columns, or the contact statistics (with
        ``record``, followed by room for the step's contacts)."""
        if self._contact is not None:
            return np.zeros((nsteps, _contact().contact_columns(self.model, record)), dtype=np.float64)
        return np.zeros((nsteps, 3), dtype=np.int64)

    def _loop_options(self, loop_method, stabilization, baumgarte, projection_tol):
        m = self.model
        if loop_method == "kkt":
            raise ValueError("loop_method: 'kkt' is not supported by the Simulator (the sparse KKT solve is a "
                             "scipy call that cannot run inside the rollout kernel); use loop_method='ta', the "
                             "same accelerations by Jain 2012 Lemma 2, or soadyn.loops.forward_dynamics(..., "
                             "method='kkt') to check them")
        if not isinstance(loop_method, str) or loop_method not in LOOP_METHODS:
            raise ValueError(f"loop_method: expected one of {LOOP_METHODS}, got {loop_method!r}")
        if stabilization == "none":
            stabilization = None
        if stabilization is not None and (not isinstance(stabilization, str) or stabilization not in STABILIZATIONS):
            raise ValueError(f"stabilization: expected one of {STABILIZATIONS}, got {stabilization!r}")
        if stabilization is not None and not self._loops:
            raise ValueError(f"stabilization: {stabilization!r} needs loop constraints, and model {m.name!r} has "
                             "none (a tree has no constraint error to control)")
        if baumgarte is not None and stabilization != "baumgarte":
            raise ValueError(f"baumgarte: (alpha, beta) given with stabilization={stabilization!r}; pass "
                             "stabilization='baumgarte' to use them")
        alpha = beta = 0.0
        if stabilization == "baumgarte":
            ab = DEFAULT_BAUMGARTE if baumgarte is None else baumgarte
            if isinstance(ab, (str, bytes)) or not hasattr(ab, "__len__") or len(ab) != 2:
                raise ValueError(f"baumgarte: expected (alpha, beta), got {baumgarte!r}")
            alpha = _non_negative_finite(ab[0], "baumgarte")
            beta = _non_negative_finite(ab[1], "baumgarte")
        tol = positive_finite(projection_tol, "projection_tol")
        return loop_method, stabilization, (alpha, beta), tol

    @property
    def dt(self) -> float:
        return self._dt

    @property
    def integrator(self) -> str:
        return self._integrator

    @property
    def contact(self):
        """The :class:`soadyn.contact.ContactSettings` of the contact steps, or None (no contact). Assigning new
        settings (or None) checks them as the constructor does and takes effect from the next step or rollout,
        which starts without a warm start."""
        return self._contact

    @contact.setter
    def contact(self, settings) -> None:
        self._contact = None if settings is None else _contact().contact_options(self, settings)
        one = self._step_rows()
        self._stepped = False
        # the contact kernels bound to this simulator (soadyn.contact.stepper.ContactCall)
        self._call = None if self._contact is None else _contact().ContactCall(self, one)

    def _step_rows(self) -> np.ndarray | None:
        """The one-step rows of :meth:`step` for the current settings: ``tau``, ``f_ext``, the start state and the
        next, the statistics; with contact the warm-start state too, all in one buffer that the contact step's
        call passes whole (:func:`soadyn.contact.stepper.one_step_rows`), which is returned (None without
        contact). Held inputs are carried over."""
        m = self.model
        one = None
        if self._contact is None:
            self._warm = None
            tau1, fext1 = np.zeros((1, m.nv)), np.zeros((1, m.nb, 6))
            self._Q1, self._QD1 = np.zeros((2, m.nq)), np.zeros((2, m.nv))
            self._info1 = self._info_array(1)
        else:
            one, rows = _contact().one_step_rows(m, self._contact)
            tau1, fext1, self._Q1, self._QD1, self._info1, self._warm = rows
        if self._held:
            tau1[...] = self._tau1
            fext1[...] = self._fext1
        self._tau1, self._fext1 = tau1, fext1
        self._rows = (self._Q1[0], self._QD1[0])  # the rows step() starts from
        self._next = (self._Q1[1], self._QD1[1])  # the rows step() returns copies of (without contact)
        return one

    @property
    def loop_method(self) -> str:
        return self._loop_method

    @property
    def stabilization(self) -> str | None:
        return self._stabilization

    @property
    def baumgarte(self) -> tuple[float, float]:
        """``(alpha, beta)`` in use (zeros unless ``stabilization="baumgarte"``)."""
        return self._baumgarte

    @property
    def projection_tol(self) -> float:
        return self._tol

    @property
    def last_step_stats(self) -> dict | None:
        """The contact statistics of the last :meth:`step` (``{column: value}`` over
        :data:`soadyn.contact.stepper.STAT_COLUMNS`: contacts, active contacts, LCP size, pivots, ...,
        ``residual`` (the largest relative residual of the step's LCP answers) and ``path``, the name of
        what solved the step LCP (:data:`soadyn.contact.stepper.PATHS`: ``"warm"``, ``"lemke"``,
        ``"regularized"``, ``"pgs"``, ``"ppm"``, ``"none"``; for a failed step, what was tried last)); None
        for a simulator without contact or before its first step. Steps start from the active set of the
        previous :meth:`step`'s LCP when the same contacts come back (checked like every answer);
        :meth:`rollout` starts cold."""
        if self._contact is None or not self._stepped:
            return None
        c = _contact()
        out = dict(zip(c.STAT_COLUMNS, self._info1[0].tolist()))
        out["path"] = c.PATHS.get(int(out["path"]), "none")
        return out

    def __repr__(self) -> str:
        extra = ""
        if self._loops:
            extra = f" loop_method={self._loop_method!r} stabilization={self._stabilization!r}"
        return f"<soadyn.Simulator {self.model.name!r} dt={self._dt:g} integrator={self._integrator!r}{extra}>"

    # ------------------------------------------------------------------ kernel call
    def _kernel(self, Q, QD, tau, fext, info, entry: bool = False) -> int:
        m, d = self.model, self.data
        if self._call is not None:
            return self._call(Q, QD, tau, fext, info, self._warm, entry=entry)
        if not self._loops:
            kernel = _ROLLOUT.call if entry else _ks.rollout
            return kernel(m.model_int, m.model_float, d.data_float, tau, fext, self._dt, self._method, Q, QD)
        alpha, beta = self._baumgarte
        project = 1 if self._stabilization == "projection" else 0
        kernel = _LOOP_ROLLOUT.call if entry else _ks.loop_rollout
        return kernel(m.model_int, m.model_float, d.data_float, d.data_int, tau, fext, self._dt, self._method, alpha,
                      beta, project, self._tol, PROJECTION_MAX_ITER, Q, QD, info)

    def _fext_row(self, f_ext, out: np.ndarray) -> None:
        out[...] = external_forces(self.model, self.data, f_ext)

    # ------------------------------------------------------------------ one step
    def step(self, q, qd, tau=None, f_ext=None) -> tuple[np.ndarray, np.ndarray]:
        """One step from ``(q, qd)`` with joint forces ``tau`` (nv,) and body-frame external forces
        ``f_ext`` ((nb, 6) or ``{body: 6-vector}``) held during the step. Returns new arrays
        ``(q_next, qd_next)``; one kernel call (with loops: including projection when asked).

        With contact the kernel reads the caller's state where it is and writes the next state into the arrays
        returned (:attr:`soadyn.contact.stepper.ContactCall.one_step`): the state's type, dtype and number of
        dimensions are checked here, its length and stride by the kernel, which returns ``BAD_ARRAY`` for
        another (then converted by ``kernel_array``, or its shape error raised)."""
        if tau is not None or f_ext is not None or self._held:
            self._step_inputs(tau, f_ext)
        call = self._call
        if call is None:
            q0, qd0 = self._rows
            q0[...] = as_array(q, q0.shape, "q")
            qd0[...] = as_array(qd, qd0.shape, "qd")
            st = self._kernel(self._Q1, self._QD1, self._tau1, self._fext1, self._info1, entry=True)
            self._stepped = True
            if st != _OK:
                self._step_failed(st)
            q_next, qd_next = self._next
            return q_next.copy(), qd_next.copy()
        qn, qdn = _empty(self._nq), _empty(self._nv)
        if (type(q) is _NDARRAY and type(qd) is _NDARRAY and q.dtype is _F64 and qd.dtype is _F64 and q.ndim == 1
                and qd.ndim == 1):
            st = call.one_step.call(*call.buffers, q, qd, qn, qdn)
        else:
            st = BAD_ARRAY
        if st == BAD_ARRAY:
            m = self.model
            q, qd = kernel_array(q, (m.nq,), "q"), kernel_array(qd, (m.nv,), "qd")
            st = call.one_step.call(*call.buffers, q, qd, qn, qdn)
        self._stepped = True
        if st != _OK:
            q0, qd0 = self._rows  # the reports read the state from the rows
            q0[...] = q
            qd0[...] = qd
            self._step_failed(st)
        return qn, qdn

    def _step_failed(self, st: int) -> None:
        """Raise the error of the failed one-step call with status ``st`` (its start state in ``_rows``)."""
        code = st & _STEP_MASK
        if self._contact is not None and code in _contact().CONTACT_CODES:
            err = self._contact_error(code)
            raise SimulationError(err, 0, 0.0, None) if isinstance(err, str) else err
        if code == _ks.DIVERGED:
            raise ValueError(f"the step (dt = {self._dt:g} s) gave a non-finite state (the integration "
                             "diverged; try a smaller dt)")
        if code == _ks.NOT_CLOSED:
            raise ValueError(self._not_closed())
        check_status(code, self.model, self._Q1[0], ("q", "qd", "tau", "f_ext"))

    def _step_inputs(self, tau, f_ext) -> None:
        """The one-step rows of ``tau`` and ``f_ext`` (zeros for None; left as they are while both stay None)."""
        self._held = True  # until both rows are written: a bad input leaves them to be rewritten next step
        if tau is None:
            self._tau1[0] = 0.0
        else:
            self._tau1[0] = as_array(tau, (self.model.nv,), "tau")
        self._fext_row(f_ext, self._fext1[0])
        self._held = tau is not None or f_ext is not None

    def _contact_error(self, code: int):
        """The error of a failed contact step from the state in ``_rows``: for an unsolved LCP the step is run
        again from the same warm-start state with room to keep that LCP, which the error carries
        (:func:`soadyn.contact.stepper.contact_failure`)."""
        c = _contact()
        keep = None
        if code == c.LCP_FAILED:
            keep = c.keep_buffer(int(self._info1[0, 2]))
            c.restore_warm(self._warm)
            self._call(self._Q1, self._QD1, self._tau1, self._fext1, self._info1, self._warm, keep, entry=True)
        return c.contact_failure(self, code, 0, self._info1[0], error=True,
                                 problem=None if keep is None else c.kept_problem(keep))

    def _not_closed(self) -> str:
        return (f"projection did not close the loops to max |phi| <= {self._tol:g} in {PROJECTION_MAX_ITER} "
                "Gauss-Newton iterations (the state drifted too far from the constraint manifold, or the "
                "tolerance is below round-off; try a smaller dt or a larger projection_tol)")

    # ------------------------------------------------------------------ rollout
    def _nsteps(self, duration, steps, schedule_rows: int | None) -> int:
        if duration is not None and steps is not None:
            raise ValueError("duration, steps: give one of them, not both")
        if steps is not None:
            if isinstance(steps, bool) or not isinstance(steps, numbers.Integral) or steps < 1:
                raise ValueError(f"steps: expected a positive integer, got {steps!r}")
            return int(steps)
        if duration is not None:
            duration = positive_finite(duration, "duration")
            n = int(round(duration / self._dt))
            if n < 1:
                raise ValueError(f"duration: {duration:g} s is shorter than one step (dt = {self._dt:g} s)")
            return n
        if schedule_rows is not None:
            return schedule_rows
        raise ValueError("duration, steps: give one of them (or a tau or f_ext schedule, one row per step)")

    def _schedule(self, x, row_shape: tuple, name: str, dims: int):
        """``x`` as a C-contiguous owned float64 array of ``(rows,) + row_shape`` and whether it is a
        schedule (one row per step) rather than a constant."""
        a = x if isinstance(x, np.ndarray) else np.asarray(x)
        if a.ndim == dims + 1:
            a = np.array(as_array(a, (a.shape[0],) + row_shape, name), dtype=np.float64, order="C", copy=True)
            return a, True
        a = as_array(a, row_shape, name)
        return np.array(a[None], dtype=np.float64, order="C", copy=True), False

    def _body_evals(self, nsteps: int) -> int:
        """Dynamics evaluations times bodies (plus a per-step overhead of about two bodies; with loops,
        plus the constraint rows) of a run."""
        size = self.model.nb + 2 + (self.model.nc if self._loops else 0)
        return nsteps * (4 if self._method == _ks.RK4 else 1) * size

    def _eval_seconds(self) -> list:
        return _loop_eval_seconds if self._loops else _body_eval_seconds

    def rollout(self, q0, qd0, duration=None, steps=None, tau=None, f_ext=None, progress=None,
                record_contacts: bool = False) -> Trajectory:
        """Simulate ``steps`` steps (or ``round(duration / dt)``) from ``(q0, qd0)``; returns the
        :class:`Trajectory` of the ``steps + 1`` states at ``t = 0, dt, ...``.

        ``tau``: None (zero), a constant (nv,) or a schedule (nsteps, nv) whose row ``n`` acts during step
        ``n``. ``f_ext``: None, a constant (nb, 6) or ``{body: 6-vector}``, or a schedule (nsteps, nb, 6) of
        body-frame forces about the body origins. Without ``duration`` and ``steps``, the length of a
        schedule sets the number of steps.

        All steps run in one kernel call; with ``progress=True``, or by default (``progress=None``) when
        the run is expected to take longer than ``PROGRESS_AFTER_S``, they run in chunks of about
        ``CHUNK_S`` seconds behind a tqdm progress bar. ``progress=False``: never a bar.

        With loops, the trajectory also carries the constraint errors of every state and the per-step
        loop statistics (see :class:`Trajectory`); ``stats`` adds their summary. ``record_contacts``
        (contact simulators): also keep every step's contact points, normals and forces as solved.

        A failure (non-finite input of a step, singular mass matrix, diverged state, loops that projection
        cannot close) raises :class:`SimulationError` (a ``ValueError``) naming the step and time; its
        ``trajectory`` holds the states computed before the failure.
        """
        m = self.model
        q0 = as_array(q0, (m.nq,), "q0")
        qd0 = as_array(qd0, (m.nv,), "qd0")
        if tau is None:
            tau_a, tau_sched = np.zeros((1, m.nv)), False
        else:
            tau_a, tau_sched = self._schedule(tau, (m.nv,), "tau", 1)
        if f_ext is None or isinstance(f_ext, dict):
            fext_a, fext_sched = np.zeros((1, m.nb, 6)), False
            self._fext_row(f_ext, fext_a[0])
        else:
            fext_a, fext_sched = self._schedule(f_ext, (m.nb, 6), "f_ext", 2)
        rows = tau_a.shape[0] if tau_sched else (fext_a.shape[0] if fext_sched else None)
        nsteps = self._nsteps(duration, steps, rows)
        for a, sched, name in ((tau_a, tau_sched, "tau"), (fext_a, fext_sched, "f_ext")):
            if sched and a.shape[0] != nsteps:
                raise ValueError(f"{name}: schedule has {a.shape[0]} rows, expected one per step ({nsteps})")
        if progress is not None and not isinstance(progress, bool):
            raise ValueError(f"progress: expected True, False or None, got {progress!r}")
        if record_contacts and self._contact is None:
            raise ValueError("record_contacts: this simulator has no contact (Simulator(..., contact=...))")

        Q = np.empty((nsteps + 1, m.nq))
        QD = np.empty((nsteps + 1, m.nv))
        info = self._info_array(nsteps, bool(record_contacts))
        Q[0] = q0
        QD[0] = qd0
        calibration = self._eval_seconds()
        expected = self._body_evals(nsteps) * calibration[0]
        show = progress if progress is not None else expected > PROGRESS_AFTER_S
        if show:
            per_step = max(expected / nsteps, 1e-9)
            chunk = int(min(nsteps, max(1, CHUNK_S / per_step)))
            bounds = list(range(0, nsteps, chunk)) + [nsteps]
        else:
            bounds = [0, nsteps]

        if self._contact is not None:
            kernel = _contact().contact_kernel()
        else:
            kernel = _ks.loop_rollout if self._loops else _ks.rollout
        was_compiled = bool(kernel.signatures)
        bar = None
        if show:
            from tqdm.auto import tqdm

            bar = tqdm(total=nsteps, unit="step", desc=f"{m.name} ({self._integrator})", leave=False)
        wall = 0.0
        st = _kj.OK
        s0 = 0
        if self._warm is not None:
            self._warm[0] = -1.0  # a rollout starts cold: its result does not depend on earlier calls
        try:
            for s0, s1 in zip(bounds[:-1], bounds[1:]):
                tau_c = tau_a[s0:s1] if tau_sched else tau_a
                fext_c = fext_a[s0:s1] if fext_sched else fext_a
                t0 = time.perf_counter()
                st = self._kernel(Q[s0:s1 + 1], QD[s0:s1 + 1], tau_c, fext_c, info[s0:s1])
                wall += time.perf_counter() - t0
                if st != _kj.OK:
                    break
                if bar is not None:
                    bar.update(s1 - s0)
        finally:
            if bar is not None:
                bar.close()
        if st == _kj.OK and was_compiled and wall > 0.01:  # calibrate on runs long enough to time
            calibration[0] = wall / self._body_evals(nsteps)

        if st == _kj.OK:
            return self._trajectory(Q, QD, info, nsteps, wall, len(bounds) - 1)
        code, field_ = st & _STEP_MASK, st >> _ks.STEP_SHIFT
        if field_ == 0:  # the initial state was rejected
            check_status(code, m, q0, ("q0", "qd0", "tau", "f_ext"))
        k = s0 + field_ - 1  # the failing step; states 0..k are valid
        t_k = k * self._dt
        traj = self._trajectory(Q[:k + 1].copy(), QD[:k + 1].copy(), info[:k].copy(), k, wall, len(bounds) - 1)
        traj.stats["failed_step"] = k
        reason = self._reason(code, k, tau_sched, fext_sched, info[min(k, nsteps - 1)])
        raise SimulationError(f"step {k} (t = {t_k:.6g} s): {reason}", k, t_k, traj)

    def _reason(self, code: int, k: int, tau_sched: bool, fext_sched: bool, stats) -> str:
        if self._contact is not None and code in _contact().CONTACT_CODES:
            return _contact().contact_failure(self, code, k, stats)
        if code == _ks.DIVERGED:
            return ("the state became non-finite (the integration diverged; try a smaller dt or the rk4 "
                    "integrator)")
        if code == _ks.NOT_CLOSED:
            return self._not_closed()
        if code == _kj.BAD_IN:
            return f"tau{f'[{k}]' if tau_sched else ''}: contains NaN or inf"
        if code == _kj.BAD_FEXT:
            return f"f_ext{f'[{k}]' if fext_sched else ''}: contains NaN or inf"
        try:
            check_status(code, self.model, None)
        except (ValueError, RuntimeError) as exc:
            return str(exc)
        return f"kernel status {code}"

    def _trajectory(self, Q, QD, info, nsteps: int, wall: float, chunks: int) -> Trajectory:
        m = self.model
        E = np.empty((Q.shape[0], 3))
        st = energies(m, self.data, Q, QD, E)
        check_status(st, m, Q[-1], ("trajectory q", "trajectory qd", "input", "f_ext"))
        stats = {
            "model": m.name, "nq": m.nq, "nv": m.nv, "nb": m.nb, "dt": self._dt, "integrator": self._integrator,
            "steps": nsteps, "duration": nsteps * self._dt, "chunks": chunks, "wall_time_s": wall,
            "steps_per_second": nsteps / wall if wall > 0 else float("inf"),
        }
        traj = Trajectory(t=np.arange(Q.shape[0]) * self._dt, q=Q, qd=QD, energy=E, stats=stats,
                          model_name=m.name, model=m)
        if self._loops:
            err = constraint_errors(m, self.data, Q, QD)
            traj.constraint_error = err[:, 0].copy()
            traj.constraint_velocity_error = err[:, 1].copy()
        if self._loops and self._contact is None:
            traj.loop_rank = info[:nsteps, 0].copy()
            traj.loop_singular = info[:nsteps, 1].copy()
            traj.projection_iterations = info[:nsteps, 2].copy()
            stats.update({
                "nl": m.nl, "nc": m.nc, "loop_method": self._loop_method, "stabilization": self._stabilization,
                "baumgarte": list(self._baumgarte), "projection_tol": self._tol,
                "max_constraint_error": float(err[:, 0].max()),
                "final_constraint_error": float(err[-1, 0]),
                "max_constraint_velocity_error": float(err[:, 1].max()),
                "min_loop_rank": int(info[:nsteps, 0].min()) if nsteps else m.nc,
                "singular_steps": int(info[:nsteps, 1].sum()),
                "projection_iterations_mean": float(info[:nsteps, 2].mean()) if nsteps else 0.0,
                "projection_iterations_max": int(info[:nsteps, 2].max()) if nsteps else 0,
            })
        if self._contact is not None:
            _contact().contact_record(self, traj, info[:nsteps])
        return traj
