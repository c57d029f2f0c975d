"""Operational space task/posture control of branching mechanisms (Chang-Khatib 2000, Sec. 2.3).

The optimized control structure, Eqs. 11-13::

    tau      = J^T f' + tau_null
    f'       = Lambda (a_e - h_e - J qdd_null)
    tau_null = RNEA(q, qd, qdd_null)                      (= M qdd_null + b + g)

needs only the task Jacobian ``J``, the bias acceleration ``h_e = Jdot qd``, the operational space inertia
``Lambda`` (from the O(N + n_c^2) compliance of :mod:`soadyn.osim`) and one RNEA: neither M nor M^-1 is
ever formed. Task rows are world-aligned: a ``"position"`` task controls the frame origin (3 rows), a
``"pose"`` task also its orientation (6 rows, ``[w; v]`` order).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ._kernels import frames as _kf
from .data import Data
from .dynamics import as_array, check_status, copy_in, difference, rnea
from .model import Model
from .osim import cholesky_inverse, node_set, osim_inv
from .spatial import quat_log, rot_to_quat

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
    per task with :meth:`set_target`; :meth:`hold` sets every target to the current pose.
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
        self.rows6 = np.concatenate([np.arange(6 * a + (0 if t.kind == "pose" else 3), 6 * a + 6)
                                     for a, t in enumerate(self.tasks)])
        self.posture_kp = float(posture_kp)
        self.posture_kd = float(2.0 * np.sqrt(posture_kp) if posture_kd is None else posture_kd)
        self.damping = float(damping)
        self.q_posture = None if q_posture is None else as_array(q_posture, (model.nq,), "q_posture").copy()
        n = len(self.tasks)
        self.target_p = np.zeros((n, 3))
        self.target_R = np.tile(np.eye(3), (n, 1, 1))
        self.target_v = np.zeros((n, 6))  # world-aligned [w; v]
        self.target_a = np.zeros((n, 6))  # feed-forward [wdot; pddot]
        self._J6 = np.zeros((6 * n, model.nv))
        self._h6 = np.zeros(6 * n)
        self._R = np.zeros((n, 3, 3))
        self._p = np.zeros((n, 3))
        self.last = {}

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
        self._kinematics(q, np.zeros(self.model.nv))
        self.target_p[:] = self._p
        self.target_R[:] = self._R
        self.target_v[:] = 0.0
        self.target_a[:] = 0.0
        if self.q_posture is None:
            self.q_posture = as_array(q, (self.model.nq,), "q").copy()

    # ------------------------------------------------------------------ control law
    def _kinematics(self, q, qd) -> None:
        m, d, ns = self.model, self.data, self.nodes
        copy_in(q, d.q, "q")
        copy_in(qd, d.qd, "qd")
        st = _kf.task_kinematics(*m._tree, d.q, d.qd, ns.body, ns.E, ns.r, d.XJ_E, d.XJ_r, d.X_E, d.X_r, d.S,
                                 d.v, d.c, d.h, d.vJ, d.oR, d.op, self._J6, self._h6)
        check_status(st, m, d.q)
        for a in range(len(self.tasks)):
            b = ns.body[a]
            self._R[a] = d.oR[b] @ ns.E[a].T
            self._p[a] = d.op[b] + d.oR[b] @ ns.r[a]

    def task_errors(self, q, qd):
        """Commanded task accelerations ``a_e`` (m,), Jacobian ``J`` (m, nv) and bias ``h`` (m,)."""
        self._kinematics(q, qd)
        J = self._J6[self.rows6]
        h = self._h6[self.rows6]
        vel = self._J6 @ self.data.qd
        a6 = np.empty(6 * len(self.tasks))
        for a, t in enumerate(self.tasks):
            # orientation error: the world rotation vector of R_target R^T
            e_w = quat_log(rot_to_quat(self.target_R[a] @ self._R[a].T)) if t.kind == "pose" else np.zeros(3)
            e_p = self.target_p[a] - self._p[a]
            e = np.concatenate([e_w, e_p])
            a6[6 * a:6 * a + 6] = self.target_a[a] + t.kp * e + t.kd * (self.target_v[a] - vel[6 * a:6 * a + 6])
        return a6[self.rows6], J, h

    def compute(self, q, qd) -> np.ndarray:
        """The joint forces ``tau`` (nv,) of Chang-Khatib 2000 Eqs. 11-13 (a new array). ``self.last`` keeps
        ``a_e``, ``J``, ``h``, ``Lambda``, ``qdd_null`` and ``f`` for inspection."""
        if self.q_posture is None:
            raise ValueError("no posture target: call hold(q) or pass q_posture")
        m, d = self.model, self.data
        a_e, J, h = self.task_errors(q, qd)
        qdd_null = self.posture_kp * difference(m, d.q, self.q_posture) - self.posture_kd * d.qd
        Linv = osim_inv(m, d, d.q, self.nodes.frames, [KINDS[t.kind] for t in self.tasks], "world_aligned")
        Lam = cholesky_inverse(Linv, self.nodes.frames, self.nodes.row, self.damping)
        f = Lam @ (a_e - h - J @ qdd_null)
        tau = J.T @ f + rnea(m, d, d.q, d.qd, qdd_null)
        self.last = {"a_e": a_e, "J": J, "h": h, "Lambda": Lam, "qdd_null": qdd_null, "f": f}
        return tau
