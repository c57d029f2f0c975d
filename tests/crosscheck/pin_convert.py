"""Map soadyn coordinates to Pinocchio's, joint by joint, matched by name.

Conventions (Pinocchio docs, ``multibody/joint/*.hpp``; soadyn's docs/architecture.md, Conventions):

* free flyer: both use ``q = [p; quat xyzw]``; Pinocchio's velocity is ``[v; w]`` (local), soadyn's
  ``[w; v]`` (local);
* unbounded revolute (``JointModelRUB*``, URDF ``continuous``): Pinocchio ``q = [cos t, sin t]``;
* planar: Pinocchio ``q = [x, y, cos t, sin t]``, ``v = [vx, vy, wz]``; soadyn ``q = [x, y, t]``,
  ``qd = [w, vx, vy]``;
* every other matched type has identical coordinates.

Spatial vectors from Pinocchio (``Motion``, Jacobian rows) are linear-first; :func:`lin_ang_swap`
converts them to soadyn's angular-first order.

``Coords`` holds the velocity permutation ``P`` (``v_pin = P qd``), so that ``M_sd = P^T M_pin P``,
``tau_sd = P^T tau_pin`` and ``J_sd = swap(J_pin) P``.
"""

from __future__ import annotations

import numpy as np

import soadyn.joints as J


def lin_ang_swap(x: np.ndarray) -> np.ndarray:
    """Reorder the leading 6-axis of ``x`` from ``[lin; ang]`` to ``[ang; lin]`` (an involution)."""
    x = np.asarray(x)
    return np.concatenate([x[3:6], x[0:3]], axis=0)


def sym_upper(A: np.ndarray) -> np.ndarray:
    """The symmetric matrix whose upper triangle is that of ``A`` (Pinocchio fills only that part)."""
    A = np.asarray(A)
    return np.triu(A) + np.triu(A, 1).T


class Coords:
    """Coordinate maps between a soadyn model and a Pinocchio model with the same joint names."""

    def __init__(self, model, pin_model):
        if model.nv != pin_model.nv:
            raise ValueError(f"nv differs: soadyn {model.nv}, Pinocchio {pin_model.nv}")
        self.model, self.pin_model = model, pin_model
        self.P = np.zeros((pin_model.nv, model.nv))
        self._joints = []  # (soadyn joint index, pin idx_q, pin nq)
        for i, name in enumerate(model.jnt_names):
            if not pin_model.existJointName(name):
                raise ValueError(f"joint {name!r} is not a Pinocchio joint")
            jp = pin_model.joints[pin_model.getJointId(name)]
            t, va, nv = model.jnt_type[i], model.jnt_vadr[i], model.jnt_nv[i]
            if jp.nv != nv:
                raise ValueError(f"joint {name!r}: nv soadyn {nv}, Pinocchio {jp.nv}")
            if t == J.FREE:
                order = [3, 4, 5, 0, 1, 2]  # pin [v; w] <- sd [w; v]
            elif t == J.PLANAR:
                order = [1, 2, 0]  # pin [vx, vy, wz] <- sd [w, vx, vy]
            else:
                order = list(range(nv))
            for k, src in enumerate(order):
                self.P[jp.idx_v + k, va + src] = 1.0
            self._joints.append((i, jp.idx_q, jp.nq))

    def q(self, q: np.ndarray) -> np.ndarray:
        """A soadyn configuration in Pinocchio's coordinates."""
        m = self.model
        out = np.zeros(self.pin_model.nq)
        for i, a, nq in self._joints:
            qi = q[m.jnt_qadr[i]:m.jnt_qadr[i] + m.jnt_nq[i]]
            t = m.jnt_type[i]
            if t == J.PLANAR:
                out[a:a + 4] = [qi[0], qi[1], np.cos(qi[2]), np.sin(qi[2])]
            elif nq == 2 and t == J.REVOLUTE:
                out[a:a + 2] = [np.cos(qi[0]), np.sin(qi[0])]
            else:
                if nq != len(qi):
                    raise ValueError(f"joint {m.jnt_names[i]!r}: nq soadyn {len(qi)}, Pinocchio {nq}")
                out[a:a + nq] = qi
        return out

    def v(self, qd: np.ndarray) -> np.ndarray:
        """A soadyn velocity (or acceleration) in Pinocchio's coordinates."""
        return self.P @ qd

    def to_sd(self, x_pin: np.ndarray) -> np.ndarray:
        """A Pinocchio generalized force (or velocity) vector in soadyn's coordinates."""
        return self.P.T @ x_pin

    def matrix_to_sd(self, A_pin: np.ndarray) -> np.ndarray:
        """An nv x nv Pinocchio matrix (M or M^-1) in soadyn's coordinates: ``P^T A P``."""
        return self.P.T @ A_pin @ self.P

    def jacobian_to_sd(self, J_pin: np.ndarray) -> np.ndarray:
        """A 6 x nv Pinocchio Jacobian (linear rows first) as soadyn's ``[w; v]`` Jacobian."""
        return lin_ang_swap(J_pin) @ self.P
