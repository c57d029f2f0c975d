"""Operational space task/posture control of branching mechanisms (Chang-Khatib 2000, Sec. 2.3).

The optimized control structure, Eqs. 11-13::

    tau      = J^T f' + tau_null
    f'       = Lambda (a_e - h_e - J qdd_null)
    tau_null = RNEA(q, qd, qdd_null)                      (= M qdd_null + b + g)

needs only the task Jacobian ``J``, the bias acceleration ``h_e = Jdot qd``, the operational space inertia
``Lambda`` (from the O(N + n_c^2) compliance of :mod:`soadyn.osim`) and one RNEA: neither M nor M^-1 is
ever formed. Task rows are world-aligned: a ``"position"`` task controls the frame origin (3 rows), a
``"pose"`` task also its orientation (6 rows, ``[w; v]`` order). The node selections are those of
:func:`soadyn.osim.node_set` (3 = linear rows); in the kernel they select rows of the world-aligned
``[w; v]`` of the frame.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ._kernels import control as _kc
from ._kernels import joints as _kj
from .dynamics import as_array, check_status, copy_in, difference, frame_pose
from .model import Model
from .osim import cholesky_inverse, node_set

__all__ = ["Task", "OperationalSpaceController"]

KINDS = {"position": 3, "pose": 6}


@dataclass
class Task:
    """A task on ``frame``: ``kind`` ``"position"`` or ``"pose"``, PD gains ``kp`` and ``kd``
    (default critical damping ``2 sqrt(kp)``)."""

    frame: str
    kind: str = "position"
    kp: float = 400.0
    kd: float | None = None

    def __post_init__(self):
        if self.kind not in KINDS:
            raise ValueError(f"Task {self.frame!r}: kind must be one of {tuple(KINDS)}, got {self.kind!r}")
        if not (np.isfinite(self.kp) and self.kp >= 0):
            raise ValueError(f"Task {self.frame!r}: kp must be finite and >= 0")
        if self.kd is None:
            self.kd = 2.0 * np.sqrt(self.kp)
        if not (np.isfinite(self.kd) and self.kd >= 0):
            raise ValueError(f"Task {self.frame!r}: kd must be finite and >= 0")


class OperationalSpaceController:
    """Task/posture controller with several operational points (Chang-Khatib 2000 Eqs. 11-13).

    ``posture_kp``/``posture_kd``: the posture behaviour ``qdd_null = kp (q_posture - q) - kd qd`` advised
    in the null space (``q_posture`` defaults to the configuration passed to :meth:`hold`). Targets are set
    per task with :meth:`set_target`; :meth:`hold` sets every target to the current pose. ``damping`` > 0
    uses ``(Lambda^-1 + damping 1)^-1`` for Lambda (robust near singular configurations).
    One :meth:`compute` is one kernel call (task kinematics, errors, Lambda^-1, Cholesky, RNEA).
    """

    def __init__(self, model: Model, tasks, posture_kp: float = 25.0, posture_kd: float | None = None,
                 q_posture=None, damping: float = 0.0):
        self.model = model
        self.data = model.data()
        self.tasks = [t if isinstance(t, Task) else Task(*t) for t in tasks]
        if not self.tasks:
            raise ValueError("tasks: at least one task is required")
        frames = [t.frame for t in self.tasks]
        if len(set(frames)) != len(frames):
            raise ValueError(f"tasks: each frame may carry one task, got {frames}")
        self.nodes = node_set(model, self.data, frames, [KINDS[t.kind] for t in self.tasks])
        self.posture_kp = float(posture_kp)
        self.posture_kd = float(2.0 * np.sqrt(posture_kp) if posture_kd is None else posture_kd)
        if not (np.isfinite(damping) and damping >= 0):
            raise ValueError(f"damping: expected a finite value >= 0, got {damping!r}")
        self.damping = float(damping)
        self.q_posture = None if q_posture is None else as_array(q_posture, (model.nq,), "q_posture").copy()
        n, m, nv = len(self.tasks), self.nodes.m, model.nv
        self.kp = np.array([t.kp for t in self.tasks])
        self.kd = np.array([t.kd for t in self.tasks])
        self.target_p = np.zeros((n, 3))
        self.target_R = np.tile(np.eye(3), (n, 1, 1))
        self.target_v = np.zeros((n, 6))  # world-aligned [w; v]
        self.target_a = np.zeros((n, 6))  # feed-forward [wdot; pddot]
        self.frame_R = np.zeros((n, 3, 3))  # task frame orientations at the last compute
        self.frame_p = np.zeros((n, 3))  # task frame positions at the last compute
        self._J6 = np.zeros((6 * n, nv))
        self._h6 = np.zeros(6 * n)
        self.a_e = np.zeros(m)  # commanded task accelerations (rows of the tasks)
        self.J = np.zeros((m, nv))  # task Jacobian (world-aligned rows)
        self.h = np.zeros(m)  # task bias accelerations Jdot qd
        self.Linv = np.zeros((m, m))  # task compliance Lambda^-1
        self.f = np.zeros(m)  # f' of Eq. 13
        self.qdd_null = np.zeros(nv)
        self.tau = np.zeros(nv)

    # ------------------------------------------------------------------ targets
    def _task_index(self, frame) -> int:
        for a, t in enumerate(self.tasks):
            if t.frame == frame:
                return a
        raise ValueError(f"no task on frame {frame!r}; tasks: {[t.frame for t in self.tasks]}")

    def set_target(self, frame, position=None, rotation=None, velocity=None, acceleration=None) -> None:
        """Set the world target of the task on ``frame``: ``position`` (3,), ``rotation`` (3x3), and the
        world-aligned ``velocity`` and feed-forward ``acceleration`` ``[w; v]`` (6,)."""
        a = self._task_index(frame)
        if position is not None:
            self.target_p[a] = as_array(position, (3,), "position")
        if rotation is not None:
            self.target_R[a] = as_array(rotation, (3, 3), "rotation")
        if velocity is not None:
            self.target_v[a] = as_array(velocity, (6,), "velocity")
        if acceleration is not None:
            self.target_a[a] = as_array(acceleration, (6,), "acceleration")

    def hold(self, q) -> None:
        """Targets at the current task poses with zero velocity; posture target ``q`` if none was given."""
        for a, t in enumerate(self.tasks):
            T = frame_pose(self.model, self.data, q, t.frame)
            self.target_R[a] = T[:3, :3]
            self.target_p[a] = T[:3, 3]
        self.target_v[:] = 0.0
        self.target_a[:] = 0.0
        if self.q_posture is None:
            self.q_posture = as_array(q, (self.model.nq,), "q").copy()

    # ------------------------------------------------------------------ control law
    def compute(self, q, qd) -> np.ndarray:
        """The joint forces ``tau`` (nv,) of Chang-Khatib 2000 Eqs. 11-13 (a new array). The attributes
        ``a_e``, ``J``, ``h``, ``Linv``, ``f``, ``qdd_null``, ``frame_R`` and ``frame_p`` keep this cycle's
        values."""
        if self.q_posture is None:
            raise ValueError("no posture target: call hold(q) or pass q_posture")
        m, d, ns = self.model, self.data, self.nodes
        copy_in(q, d.q, "q")
        copy_in(qd, d.qd, "qd")
        error = self.q_posture - d.q if m.is_vector_space else difference(m, d.q, self.q_posture)
        np.multiply(error, self.posture_kp, out=self.qdd_null)
        self.qdd_null -= self.posture_kd * d.qd
        st = _kc.osc_cycle(m.model_int, m.model_float, d.data_float, d.data_int, d.q, d.qd, self.qdd_null,
                           ns.body, ns.E, ns.r, ns.sel, ns.dim, ns.row, self.target_p, self.target_R, self.target_v,
                           self.target_a, self.kp, self.kd, self.damping, self.frame_R, self.frame_p, self._J6,
                           self._h6, self.a_e, self.J, self.h, self.Linv, self.f, self.tau)
        if st == _kj.SINGULAR_TASK:
            cholesky_inverse(self.Linv, ns.frames, ns.row, self.damping)  # raises with rank and nodes
        check_status(st, m, d.q, ("q", "qd", "qdd_null", "f_ext"))
        return self.tau.copy()
