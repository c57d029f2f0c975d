"""Time stepping of embedded (CE and hybrid CE/TA) models: :class:`EmbeddedSimulator`, whose rollout runs all
steps in one kernel call (:func:`soadyn._kernels.embed_sim.ce_rollout`) and returns a
:class:`~soadyn.sim.Trajectory` in embedded coordinates. ``Simulator(embedded_model, dt, ...)`` builds one.
"""

from __future__ import annotations

import time

import numpy as np

from ._kernels import embed as _ke
from ._kernels import embed_sim as _ks
from ._kernels import joints as _kj
from .dynamics import as_array
from .embedding import LOOP_TOL, EmbeddedModel, raise_status
from .trajectory import INTEGRATORS, SimulationError, Trajectory, constraint_errors, energies, positive_finite

__all__ = ["EmbeddedSimulator"]


class EmbeddedSimulator:
    """Fixed-step simulation of an :class:`~soadyn.embedding.EmbeddedModel` in its embedded coordinates
    ``(x, xd)``: every integrator stage solves the loop kinematics (warm-started, to ``loop_tol``) and the
    CE forward dynamics (:func:`soadyn.embedding.forward_dynamics`, plus Lemma 2 for cut loops), with the
    tree's joint springs and dampers added to the tree joint forces. ``integrator``: ``"rk4"`` or
    ``"semi_implicit"`` (as :class:`soadyn.sim.Simulator`). The embedded loops need no error control: their
    closure error is the loop-solve tolerance; cut loops (hybrid) drift as with TA without stabilization.
    One simulator per thread (it owns ``sim.data``)."""

    def __init__(self, em: EmbeddedModel, dt: float, integrator: str = "rk4", loop_tol: float = LOOP_TOL):
        if not isinstance(em, EmbeddedModel):
            raise ValueError(f"em: expected a soadyn.embedding.EmbeddedModel, got {type(em).__name__}")
        self._dt = positive_finite(dt, "dt")
        if not isinstance(integrator, str) or integrator not in INTEGRATORS:
            raise ValueError(f"integrator: expected one of {tuple(INTEGRATORS)}, got {integrator!r}")
        self.model = em
        self._integrator = integrator
        self._method = INTEGRATORS[integrator]
        self._tol = positive_finite(loop_tol, "loop_tol")
        self.data = em.data()

    @property
    def dt(self) -> float:
        return self._dt

    @property
    def integrator(self) -> str:
        return self._integrator

    def __repr__(self) -> str:
        return f"<soadyn.EmbeddedSimulator {self.model.name!r} dt={self._dt:g} {self._integrator}>"

    def step(self, x, xd, tau=None, f_ext=None) -> tuple[np.ndarray, np.ndarray]:
        """One step from ``(x, xd)``: the new ``(x, xd)`` (new arrays)."""
        traj = self.rollout(x, xd, steps=1, tau=tau, f_ext=f_ext, progress=False)
        return traj.q[1].copy(), traj.qd[1].copy()

    def _inputs(self, tau, f_ext, steps, duration):
        t = self.model.tree
        if tau is None:
            tau_a = np.zeros((1, t.nv))
        else:
            a = np.asarray(tau, dtype=float)
            tau_a = np.array(as_array(a, a.shape if a.ndim == 2 and a.shape[1:] == (t.nv,) else (t.nv,), "tau"),
                             dtype=np.float64, order="C", ndmin=2)
        if f_ext is None or isinstance(f_ext, dict):
            fext_a = np.zeros((1, t.nb, 6))
            for key, val in (f_ext or {}).items():
                fext_a[0, t.body_id(key)] = as_array(val, (6,), f"f_ext[{key!r}]")
        else:
            a = np.asarray(f_ext, dtype=float)
            shape = a.shape if a.ndim == 3 and a.shape[1:] == (t.nb, 6) else (t.nb, 6)
            fext_a = np.array(as_array(a, shape, "f_ext"), dtype=np.float64, order="C").reshape(-1, t.nb, 6)
        rows = [a.shape[0] for a in (tau_a, fext_a) if a.shape[0] > 1]
        if duration is not None and steps is not None:
            raise ValueError("duration, steps: give one of them, not both")
        if steps is not None:
            if isinstance(steps, bool) or not isinstance(steps, (int, np.integer)) or steps < 1:
                raise ValueError(f"steps: expected a positive integer, got {steps!r}")
            n = int(steps)
        elif duration is not None:
            n = int(round(positive_finite(duration, "duration") / self._dt))
            if n < 1:
                raise ValueError(f"duration: {duration:g} s is shorter than one step (dt = {self._dt:g} s)")
        elif rows:
            n = rows[0]
        else:
            raise ValueError("duration, steps: give one of them (or a tau or f_ext schedule, one row per step)")
        for a, name in ((tau_a, "tau"), (fext_a, "f_ext")):
            if a.shape[0] > 1 and a.shape[0] != n:
                raise ValueError(f"{name}: schedule has {a.shape[0]} rows, expected one per step ({n})")
        return tau_a, fext_a, n

    def rollout(self, x0, xd0, duration=None, steps=None, tau=None, f_ext=None, progress=None) -> Trajectory:
        """Simulate from the embedded state ``(x0, xd0)`` (from :meth:`EmbeddedModel.from_tree_state`) for
        ``steps`` steps or ``duration`` seconds, all in one kernel call. ``tau``: None, tree joint forces
        (nv of the tree) or a schedule (nsteps, nv); ``f_ext``: None, ``{body: 6-vector}``, (nb, 6) or a
        schedule (nsteps, nb, 6) of body-frame forces. ``progress`` is accepted for the interface of
        :meth:`soadyn.sim.Simulator.rollout` (one call; no bar).

        Returns the :class:`~soadyn.sim.Trajectory` in embedded coordinates (``q`` = x, ``qd`` = xd), with the
        energies of the tree states, ``constraint_error`` / ``constraint_velocity_error`` the largest loop
        errors of every tree state over all loops of the tree (embedded: the loop-solve residual; cut:
        their drift), and ``stats["loop_residual"]`` (nsteps + 1) the largest embedded-loop closure residual
        solved at each step (over its integrator stages). :meth:`EmbeddedModel.tree_trajectory` gives the
        tree trajectory. :class:`~soadyn.sim.SimulationError` names the failing step; a loop that cannot be
        solved raises :class:`~soadyn.embedding.LoopKinematicsError`."""
        if progress is not None and not isinstance(progress, bool):
            raise ValueError(f"progress: expected True, False or None, got {progress!r}")
        em, t, d = self.model, self.model.tree, self.data
        x0 = as_array(x0, (em.nq,), "x0")
        xd0 = as_array(xd0, (em.nv,), "xd0")
        tau_a, fext_a, n = self._inputs(tau, f_ext, steps, duration)
        X = np.empty((n + 1, em.nq))
        XD = np.empty((n + 1, em.nv))
        QT = np.empty((n + 1, t.nq))
        QDT = np.empty((n + 1, t.nv))
        res = np.zeros(n + 1)
        X[0], XD[0] = x0, xd0
        springs = 1 if t.has_springs else 0
        t0 = time.perf_counter()
        st = self._kernel(tau_a, fext_a, springs, X, XD, QT, QDT, res)
        code, field = st & ((1 << _ks.STEP_SHIFT) - 1), st >> _ks.STEP_SHIFT
        if field == 0 and code in (_ke.NOT_SOLVED, _ke.LOOP_SINGULAR) and not np.array_equal(d.q, em.q_ref):
            d.q[:] = em.q_ref  # the last run's state is no warm start for x0: retry from the reference
            st = self._kernel(tau_a, fext_a, springs, X, XD, QT, QDT, res)
        wall = time.perf_counter() - t0
        if st == _kj.OK:
            return self._trajectory(X, XD, QT, QDT, res, n, wall)
        code, field = st & ((1 << _ks.STEP_SHIFT) - 1), st >> _ks.STEP_SHIFT
        if code in (_ke.NOT_SOLVED, _ke.LOOP_SINGULAR):
            d.q_failed = d.q.copy()
            d.q[:] = em.q_ref
            err = em.closure_error(d, "x0" if field == 0 else f"step {field - 1}")
            d.q_failed = None
            raise err
        if field == 0:
            raise_status(em, code, ("x0", "xd0", "tau", "f_ext"))
        k = field - 1
        traj = self._trajectory(X[:k + 1].copy(), XD[:k + 1].copy(), QT[:k + 1].copy(), QDT[:k + 1].copy(),
                                res[:k + 1].copy(), k, wall)
        if code == _ks.DIVERGED:
            why = "the state became non-finite (the integration diverged; try a smaller dt or rk4)"
        elif code == _kj.BAD_IN:
            why = f"tau{f'[{k}]' if tau_a.shape[0] > 1 else ''}: contains NaN or inf"
        elif code == _kj.BAD_FEXT:
            why = f"f_ext{f'[{k}]' if fext_a.shape[0] > 1 else ''}: contains NaN or inf"
        else:
            try:
                raise_status(em, code, ("x", "xd", "tau", "f_ext"))
            except (ValueError, RuntimeError) as exc:
                why = str(exc)
        raise SimulationError(f"step {k} (t = {k * self._dt:.6g} s): {why}", k, k * self._dt, traj)

    def _kernel(self, tau_a, fext_a, springs, X, XD, QT, QDT, res) -> int:
        em, t, d = self.model, self.model.tree, self.data
        return _ks.ce_rollout(t.model_int, t.model_float, d.td.data_float, *em.kernel_args, *em.embedded_joints,
                              springs, tau_a, fext_a, self._tol, em.max_iter, self._dt, self._method,
                              *d.kernel_workspace(), d.q, d.qdd, X, XD, QT, QDT, res)

    def _trajectory(self, X, XD, QT, QDT, res, nsteps: int, wall: float) -> Trajectory:
        em, t = self.model, self.model.tree
        td = t.data()
        E = np.empty((X.shape[0], 3))
        energies(t, td, QT, QDT, E)
        err = constraint_errors(t, td, QT, QDT)
        stats = {"model": em.name, "tree": t.name, "nq": em.nq, "nv": em.nv, "nb": t.nb, "dt": self._dt,
                 "integrator": self._integrator, "steps": nsteps, "duration": nsteps * self._dt, "chunks": 1,
                 "wall_time_s": wall, "steps_per_second": nsteps / wall if wall > 0 else float("inf"),
                 "embedded_loops": list(em.embedded_loops), "cut_loops": list(em.cut_loops), "nc": em.nc,
                 "loop_tol": self._tol, "loop_residual": res, "max_loop_residual": float(res.max(initial=0.0)),
                 "max_constraint_error": float(err[:, 0].max()), "final_constraint_error": float(err[-1, 0]),
                 "max_constraint_velocity_error": float(err[:, 1].max())}
        return Trajectory(t=np.arange(X.shape[0]) * self._dt, q=X, qd=XD, energy=E, stats=stats,
                          model_name=em.name, constraint_error=err[:, 0].copy(),
                          constraint_velocity_error=err[:, 1].copy())
