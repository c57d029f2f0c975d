"""Joint types and their Python-side description (docs/architecture.md, Conventions).

A joint connects a predecessor frame (fixed in the parent body, placed by ``X_tree``) to the successor
(child body) frame, which coincide at the neutral configuration. Each type has an integer code used by the
kernels, a configuration size ``nq`` and a velocity size ``nv``. Velocities are chosen so that the motion
subspace ``S`` (6 x nv, angular first) is constant in the successor frame, except for ``UNIVERSAL``, whose
first column turns with the second angle (its ``S`` and ``Sdot qd`` are evaluated in the kernels).

=============  ====  ====  ==============================================================================
type           nq    nv    configuration / velocity
=============  ====  ====  ==============================================================================
FIXED          0     0     merged into the parent by :meth:`ModelBuilder.finalize`
REVOLUTE       1     1     angle about ``axis``
PRISMATIC      1     1     displacement along ``axis``
HELICAL        1     1     angle about ``axis``, with ``pitch`` metres of travel per radian
UNIVERSAL      2     2     angle about ``axis`` (predecessor), then about ``axis2`` (successor)
CYLINDRICAL    2     2     angle about and displacement along ``axis``
PLANAR         3     3     q = (x, y, theta): translation in the plane normal to ``axis`` (along ``axis2``
                           and ``axis x axis2``) then rotation about ``axis``; qd = successor-frame
                           (w, vx, vy)
SPHERICAL      4     3     q = unit quaternion [x, y, z, w] of the successor in the predecessor frame;
                           qd = successor-frame angular velocity
FREE           7     6     q = [position(3), quaternion(4)] in the predecessor frame; qd = successor-frame
                           spatial velocity [w; v]
=============  ====  ====  ==============================================================================
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

FIXED, REVOLUTE, PRISMATIC, HELICAL, UNIVERSAL, CYLINDRICAL, PLANAR, SPHERICAL, FREE = range(9)

JOINT_TYPE_NAMES = ("fixed", "revolute", "prismatic", "helical", "universal", "cylindrical", "planar",
                    "spherical", "free")
JOINT_NQ = np.array([0, 1, 1, 1, 2, 2, 3, 4, 7], dtype=np.int64)
JOINT_NV = np.array([0, 1, 1, 1, 2, 2, 3, 3, 6], dtype=np.int64)

__all__ = [
    "FIXED", "REVOLUTE", "PRISMATIC", "HELICAL", "UNIVERSAL", "CYLINDRICAL", "PLANAR", "SPHERICAL", "FREE",
    "JOINT_TYPE_NAMES", "JOINT_NQ", "JOINT_NV", "Joint",
    "Fixed", "Revolute", "Prismatic", "Helical", "Universal", "Cylindrical", "Planar", "Spherical", "Free",
]


def _unit(v, what: str) -> np.ndarray:
    a = np.asarray(v, dtype=float).reshape(3)
    n = np.linalg.norm(a)
    if not np.isfinite(n) or n < 1e-12:
        raise ValueError(f"{what} must be a finite non-zero 3-vector, got {v!r}")
    return a / n


def _perpendicular(a: np.ndarray) -> np.ndarray:
    """A unit vector perpendicular to the unit vector ``a`` (deterministic)."""
    e = np.eye(3)[int(np.argmin(np.abs(a)))]
    u = e - a * np.dot(a, e)
    return u / np.linalg.norm(u)


@dataclass(frozen=True)
class Joint:
    """A joint description: ``type`` code, unit ``axis``, unit ``axis2`` and ``pitch``, plus optional
    position limits ``lower``/``upper`` for 1-dof joints (used by :meth:`Model.random_q`)."""

    type: int
    axis: np.ndarray = field(default_factory=lambda: np.array([0.0, 0.0, 1.0]))
    axis2: np.ndarray = field(default_factory=lambda: np.array([1.0, 0.0, 0.0]))
    pitch: float = 0.0
    lower: float = -np.inf
    upper: float = np.inf

    @property
    def nq(self) -> int:
        return int(JOINT_NQ[self.type])

    @property
    def nv(self) -> int:
        return int(JOINT_NV[self.type])

    @property
    def type_name(self) -> str:
        return JOINT_TYPE_NAMES[self.type]

    def motion_subspace(self) -> np.ndarray:
        """``S`` (6 x nv) in the successor frame at the neutral configuration."""
        a, u = self.axis, self.axis2
        z = np.zeros(3)
        cols = {
            FIXED: [],
            REVOLUTE: [np.r_[a, z]],
            PRISMATIC: [np.r_[z, a]],
            HELICAL: [np.r_[a, self.pitch * a]],
            UNIVERSAL: [np.r_[a, z], np.r_[u, z]],
            CYLINDRICAL: [np.r_[a, z], np.r_[z, a]],
            PLANAR: [np.r_[a, z], np.r_[z, u], np.r_[z, np.cross(a, u)]],
            SPHERICAL: [np.r_[e, z] for e in np.eye(3)],
            FREE: list(np.eye(6)),
        }[self.type]
        return np.array(cols, dtype=float).reshape(-1, 6).T.copy()

    def neutral(self) -> np.ndarray:
        q = np.zeros(self.nq)
        if self.type in (SPHERICAL, FREE):
            q[-1] = 1.0
        return q


def Fixed() -> Joint:
    return Joint(FIXED)


def Revolute(axis=(0.0, 0.0, 1.0), lower: float = -np.inf, upper: float = np.inf) -> Joint:
    return Joint(REVOLUTE, _unit(axis, "revolute axis"), lower=float(lower), upper=float(upper))


def Prismatic(axis=(0.0, 0.0, 1.0), lower: float = -np.inf, upper: float = np.inf) -> Joint:
    return Joint(PRISMATIC, _unit(axis, "prismatic axis"), lower=float(lower), upper=float(upper))


def Helical(axis=(0.0, 0.0, 1.0), pitch: float = 0.0, lower: float = -np.inf, upper: float = np.inf) -> Joint:
    if not np.isfinite(pitch):
        raise ValueError(f"helical pitch must be finite, got {pitch!r}")
    return Joint(HELICAL, _unit(axis, "helical axis"), pitch=float(pitch), lower=float(lower), upper=float(upper))


def Universal(axis1=(1.0, 0.0, 0.0), axis2=(0.0, 1.0, 0.0)) -> Joint:
    a1, a2 = _unit(axis1, "universal axis1"), _unit(axis2, "universal axis2")
    if np.linalg.norm(np.cross(a1, a2)) < 1e-6:
        raise ValueError("universal joint axes must not be parallel")
    return Joint(UNIVERSAL, a1, a2)


def Cylindrical(axis=(0.0, 0.0, 1.0)) -> Joint:
    return Joint(CYLINDRICAL, _unit(axis, "cylindrical axis"))


def Planar(normal=(0.0, 0.0, 1.0), x_axis=None) -> Joint:
    """Planar joint in the plane normal to ``normal``; in-plane coordinates along ``x_axis`` (default: a
    deterministic perpendicular) and ``normal x x_axis``."""
    a = _unit(normal, "planar normal")
    u = _perpendicular(a) if x_axis is None else _unit(x_axis, "planar x_axis")
    if abs(np.dot(a, u)) > 1e-9:
        raise ValueError("planar x_axis must be perpendicular to the normal")
    return Joint(PLANAR, a, u)


def Spherical() -> Joint:
    return Joint(SPHERICAL)


def Free() -> Joint:
    return Joint(FREE)
