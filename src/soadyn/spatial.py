"""Python-level spatial algebra: transforms, inertias, cross products and quaternions.

Conventions (docs/architecture.md, Conventions): spatial motion vectors are ``[w; v]`` and force vectors ``[n; f]``
(angular first, Featherstone RBDA ch. 2). A Pluecker motion transform from frame A to frame B is stored
compactly as ``(E, r)``: ``E`` rotates A-coordinates into B-coordinates and ``r`` is the origin of B
expressed in A, so that ``X = [[E, 0], [-E r~, E]]`` (RBDA Eq. 2.24). Quaternions are scalar-last
``[x, y, z, w]``.

These helpers are for model building, tests and analysis. Kernels use their own scalar code in
:mod:`soadyn._kernels.spatial`.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

__all__ = [
    "skew",
    "rot_axis",
    "rpy_to_rot",
    "crm",
    "crf",
    "Transform",
    "Inertia",
    "quat_to_rot",
    "rot_to_quat",
    "quat_mul",
    "quat_exp",
    "quat_log",
    "quat_integrate",
    "quat_difference",
]


def skew(v) -> np.ndarray:
    """The 3x3 matrix ``v~`` with ``v~ @ u == cross(v, u)``."""
    x, y, z = np.asarray(v, dtype=float)
    return np.array([[0.0, -z, y], [z, 0.0, -x], [-y, x, 0.0]])


def rot_axis(axis, angle: float) -> np.ndarray:
    """Rotation matrix of ``angle`` about the unit ``axis`` (Rodrigues' formula)."""
    a = np.asarray(axis, dtype=float)
    a = a / np.linalg.norm(a)
    K = skew(a)
    return np.eye(3) + np.sin(angle) * K + (1.0 - np.cos(angle)) * (K @ K)


def rpy_to_rot(rpy) -> np.ndarray:
    """URDF roll-pitch-yaw (fixed axes x, then y, then z): ``R = Rz(yaw) Ry(pitch) Rx(roll)``."""
    r, p, y = np.asarray(rpy, dtype=float)
    return rot_axis((0, 0, 1), y) @ rot_axis((0, 1, 0), p) @ rot_axis((1, 0, 0), r)


def crm(v) -> np.ndarray:
    """Spatial motion cross-product matrix ``v x`` (RBDA Eq. 2.31), angular first."""
    v = np.asarray(v, dtype=float)
    W, V = skew(v[:3]), skew(v[3:])
    out = np.zeros((6, 6))
    out[:3, :3] = W
    out[3:, :3] = V
    out[3:, 3:] = W
    return out


def crf(v) -> np.ndarray:
    """Spatial force cross-product matrix ``v x* = -(v x)^T`` (RBDA Eq. 2.32)."""
    return -crm(v).T


@dataclass(frozen=True)
class Transform:
    """A Pluecker motion transform ``X`` from frame A to frame B, stored as ``(E, r)``.

    ``E`` (3x3) maps A-coordinates to B-coordinates; ``r`` (3,) is B's origin in A-coordinates.
    Equivalently, B's pose in A is ``rotation = E.T`` and ``translation = r``.
    """

    E: np.ndarray
    r: np.ndarray

    def __post_init__(self):
        E = np.array(self.E, dtype=float).reshape(3, 3)
        r = np.array(self.r, dtype=float).reshape(3)
        if not (np.all(np.isfinite(E)) and np.all(np.isfinite(r))):
            raise ValueError("Transform: E and r must be finite")
        if np.abs(E @ E.T - np.eye(3)).max() > 1e-9 or np.linalg.det(E) < 0:
            raise ValueError("Transform: E must be a proper rotation matrix (orthonormal, det +1)")
        E.setflags(write=False)
        r.setflags(write=False)
        object.__setattr__(self, "E", E)
        object.__setattr__(self, "r", r)

    @staticmethod
    def identity() -> "Transform":
        return Transform(np.eye(3), np.zeros(3))

    @staticmethod
    def from_pose(rotation=None, translation=None) -> "Transform":
        """The transform to a frame whose orientation in A is ``rotation`` and origin is ``translation``."""
        R = np.eye(3) if rotation is None else np.asarray(rotation, dtype=float)
        p = np.zeros(3) if translation is None else np.asarray(translation, dtype=float)
        return Transform(R.T, p)

    @staticmethod
    def from_homogeneous(T) -> "Transform":
        T = np.asarray(T, dtype=float)
        return Transform.from_pose(T[:3, :3], T[:3, 3])

    @property
    def rotation(self) -> np.ndarray:
        """Orientation of frame B in frame A (``E.T``)."""
        return self.E.T

    @property
    def translation(self) -> np.ndarray:
        """Origin of frame B in A-coordinates (``r``)."""
        return self.r

    def homogeneous(self) -> np.ndarray:
        """The 4x4 homogeneous pose of B in A."""
        T = np.eye(4)
        T[:3, :3] = self.E.T
        T[:3, 3] = self.r
        return T

    def matrix(self) -> np.ndarray:
        """The 6x6 motion transform (for analysis and tests, never in kernels)."""
        X = np.zeros((6, 6))
        X[:3, :3] = self.E
        X[3:, 3:] = self.E
        X[3:, :3] = -self.E @ skew(self.r)
        return X

    def __mul__(self, other: "Transform") -> "Transform":
        """Composition ``self * other``: first ``other`` (A->B), then ``self`` (B->C)."""
        return Transform(self.E @ other.E, other.r + other.E.T @ self.r)

    def inverse(self) -> "Transform":
        return Transform(self.E.T, -self.E @ self.r)

    def apply_motion(self, m) -> np.ndarray:
        m = np.asarray(m, dtype=float)
        w = self.E @ m[:3]
        v = self.E @ (m[3:] - np.cross(self.r, m[:3]))
        return np.concatenate([w, v])

    def apply_force(self, f) -> np.ndarray:
        """``X^-* f``: a force in A-coordinates expressed in B-coordinates."""
        f = np.asarray(f, dtype=float)
        n = self.E @ (f[:3] - np.cross(self.r, f[3:]))
        return np.concatenate([n, self.E @ f[3:]])

    def transpose_force(self, f) -> np.ndarray:
        """``X^T f``: a force in B-coordinates expressed in A-coordinates."""
        f = np.asarray(f, dtype=float)
        fA = self.E.T @ f[3:]
        return np.concatenate([self.E.T @ f[:3] + np.cross(self.r, fA), fA])

    def transform_point(self, p) -> np.ndarray:
        """A point given in B-coordinates, expressed in A-coordinates."""
        return self.r + self.E.T @ np.asarray(p, dtype=float)


@dataclass(frozen=True)
class Inertia:
    """Rigid-body inertia: ``mass``, centre of mass ``com`` (body frame) and rotational inertia ``Ic``
    about the centre of mass (body axes)."""

    mass: float
    com: np.ndarray
    Ic: np.ndarray

    def __post_init__(self):
        m = float(self.mass)
        c = np.array(self.com, dtype=float).reshape(3)
        Ic = np.array(self.Ic, dtype=float).reshape(3, 3)
        if not (np.isfinite(m) and np.all(np.isfinite(c)) and np.all(np.isfinite(Ic))):
            raise ValueError("Inertia: mass, com and Ic must be finite")
        if m < 0:
            raise ValueError(f"Inertia: mass must be >= 0, got {m}")
        if np.abs(Ic - Ic.T).max() > 1e-9 * max(1.0, np.abs(Ic).max()):
            raise ValueError("Inertia: Ic must be symmetric")
        if np.linalg.eigvalsh(Ic).min() < -1e-12 * max(1.0, np.abs(Ic).max()):
            raise ValueError("Inertia: Ic must be positive semi-definite")
        c.setflags(write=False)
        Ic.setflags(write=False)
        object.__setattr__(self, "mass", m)
        object.__setattr__(self, "com", c)
        object.__setattr__(self, "Ic", Ic)

    @staticmethod
    def zero() -> "Inertia":
        return Inertia(0.0, np.zeros(3), np.zeros((3, 3)))

    @staticmethod
    def sphere(mass: float, radius: float, com=(0.0, 0.0, 0.0)) -> "Inertia":
        return Inertia(mass, com, np.eye(3) * (0.4 * mass * radius**2))

    @staticmethod
    def box(mass: float, size, com=(0.0, 0.0, 0.0)) -> "Inertia":
        x, y, z = np.asarray(size, dtype=float)
        return Inertia(mass, com, np.diag([y * y + z * z, x * x + z * z, x * x + y * y]) * mass / 12.0)

    @staticmethod
    def cylinder(mass: float, radius: float, length: float, com=(0.0, 0.0, 0.0)) -> "Inertia":
        """Solid cylinder with its axis along z."""
        a = mass * (3 * radius**2 + length**2) / 12.0
        return Inertia(mass, com, np.diag([a, a, 0.5 * mass * radius**2]))

    @staticmethod
    def capsule(mass: float, radius: float, half_length: float, com=(0.0, 0.0, 0.0)) -> "Inertia":
        """Solid capsule with its axis along z: a cylinder of length ``2 half_length`` capped by two
        hemispheres (each: ``83/320 m r^2`` about its centre of mass, ``3 r / 8`` from its flat face)."""
        r, h = float(radius), float(half_length)
        vc, vs = np.pi * r * r * 2.0 * h, 4.0 / 3.0 * np.pi * r ** 3
        mc, ms = mass * vc / (vc + vs), mass * vs / (vc + vs)
        d = h + 3.0 * r / 8.0
        a = mc * (3.0 * r * r + 4.0 * h * h) / 12.0 + ms * (83.0 / 320.0 * r * r + d * d)
        return Inertia(mass, com, np.diag([a, a, 0.5 * mc * r * r + 0.4 * ms * r * r]))

    @staticmethod
    def convex(vertices, density: float) -> "Inertia":
        """Solid convex hull of the points ``vertices`` (n, 3) of uniform ``density``: the hull split into
        tetrahedra from an interior point, each with ``int x x^T dV = V / 20 (sum_i v_i v_i^T + s s^T)``,
        ``s = sum_i v_i`` (Tonon 2004, J. Math. Stat. 1(1), Eq. 2)."""
        from scipy.spatial import ConvexHull

        P = np.asarray(vertices, dtype=float).reshape(-1, 3)
        hull = ConvexHull(P)
        o = P[hull.vertices].mean(axis=0)
        vol, first, second = 0.0, np.zeros(3), np.zeros((3, 3))
        for tri in hull.simplices:
            v = np.vstack([o, P[tri]])
            V = abs(np.linalg.det(v[1:] - o)) / 6.0
            s = v.sum(axis=0)
            vol += V
            first += V * s / 4.0
            second += V / 20.0 * (v.T @ v + np.outer(s, s))
        m = density * vol
        c = first / vol
        C = density * second - m * np.outer(c, c)  # second moment about the centre of mass
        return Inertia(m, c, np.trace(C) * np.eye(3) - C)

    @staticmethod
    def from_geom(kind: str, size, density: float | None = None, mass: float | None = None) -> "Inertia":
        """Mass properties of a solid geom in its own frame (sizes as :meth:`soadyn.ModelBuilder.add_geom`:
        ``"sphere"`` radius, ``"capsule"`` and ``"cylinder"`` (radius, half-length along z), ``"box"``
        half-extents, ``"convex"`` an (n, 3) array of points: their convex hull), from exactly one of ``density``
        (kg/m^3) or ``mass`` (kg). ``ValueError`` naming what is wrong."""
        if (density is None) == (mass is None):
            raise ValueError("from_geom: give exactly one of density= or mass=")
        value = density if mass is None else mass
        if not (np.isfinite(value) and value >= 0.0):
            raise ValueError(f"from_geom: {'density' if mass is None else 'mass'} must be finite and >= 0, "
                             f"got {value!r}")
        if kind == "convex":
            try:
                unit = Inertia.convex(size, 1.0)
            except (TypeError, ValueError) as exc:  # scipy's QhullError is a RuntimeError: let it name the points
                raise ValueError(f"from_geom: a convex geom takes an (n, 3) array of points: {exc}") from None
            scale = density if mass is None else mass / unit.mass
            return Inertia(unit.mass * scale, unit.com, unit.Ic * scale)
        counts = {"sphere": 1, "capsule": 2, "cylinder": 2, "box": 3}
        if kind not in counts:
            raise ValueError(f"from_geom: kind must be one of {sorted(counts) + ['convex']}, got {kind!r}")
        s = np.atleast_1d(np.asarray(size, dtype=float)).ravel()
        if s.size != counts[kind] or not np.all(np.isfinite(s)) or np.any(s <= 0.0):
            raise ValueError(f"from_geom: a {kind} takes {counts[kind]} positive size value(s), got {size!r}")
        volume = {"sphere": lambda: 4.0 / 3.0 * np.pi * s[0] ** 3,
                  "capsule": lambda: np.pi * s[0] ** 2 * (2.0 * s[1] + 4.0 / 3.0 * s[0]),
                  "cylinder": lambda: np.pi * s[0] ** 2 * 2.0 * s[1],
                  "box": lambda: 8.0 * s.prod()}[kind]()
        m = value * volume if mass is None else value
        if kind == "sphere":
            return Inertia.sphere(m, s[0])
        if kind == "capsule":
            return Inertia.capsule(m, s[0], s[1])
        if kind == "cylinder":
            return Inertia.cylinder(m, s[0], 2.0 * s[1])
        return Inertia.box(m, 2.0 * s)

    @staticmethod
    def from_matrix(I6) -> "Inertia":
        I6 = np.asarray(I6, dtype=float)
        m = I6[3, 3]
        if m <= 0:
            return Inertia(0.0, np.zeros(3), I6[:3, :3])
        c = np.array([I6[2, 4], I6[0, 5], I6[1, 3]]) / m  # m c~ block at [0:3, 3:6]
        Cx = skew(c)
        return Inertia(m, c, I6[:3, :3] - m * Cx @ Cx.T)

    def matrix(self) -> np.ndarray:
        """The 6x6 spatial inertia about the body origin (RBDA Eq. 2.63)."""
        Cx = skew(self.com)
        out = np.zeros((6, 6))
        out[:3, :3] = self.Ic + self.mass * Cx @ Cx.T
        out[:3, 3:] = self.mass * Cx
        out[3:, :3] = self.mass * Cx.T
        out[3:, 3:] = self.mass * np.eye(3)
        return out

    def transformed(self, X: Transform) -> "Inertia":
        """This inertia, given in frame B, expressed in frame A where ``X`` maps A to B (``X^T I X``)."""
        return Inertia(self.mass, X.transform_point(self.com), X.E.T @ self.Ic @ X.E)

    def __add__(self, other: "Inertia") -> "Inertia":
        m = self.mass + other.mass
        if m == 0:
            return Inertia(0.0, np.zeros(3), self.Ic + other.Ic)
        c = (self.mass * self.com + other.mass * other.com) / m
        d1, d2 = skew(self.com - c), skew(other.com - c)
        Ic = self.Ic + other.Ic + self.mass * d1 @ d1.T + other.mass * d2 @ d2.T
        return Inertia(m, c, Ic)


# ----------------------------------------------------------------------------------------- quaternions
def quat_to_rot(q) -> np.ndarray:
    """Rotation matrix of the (normalized) scalar-last quaternion ``[x, y, z, w]``."""
    x, y, z, w = np.asarray(q, dtype=float) / np.linalg.norm(q)
    return np.array(
        [
            [1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w)],
            [2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w)],
            [2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y)],
        ]
    )


def quats_to_rots(quats: np.ndarray) -> np.ndarray:
    """Rotation matrices (n, 3, 3) of the scalar-last quaternions (n, 4), normalized first: :func:`quat_to_rot`
    of many quaternions at once."""
    qn = quats / np.linalg.norm(quats, axis=1)[:, None]
    x, y, z, w = qn.T
    return np.stack([
        np.stack([1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w)], 1),
        np.stack([2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w)], 1),
        np.stack([2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y)], 1)], 1)


def rot_to_quat(R) -> np.ndarray:
    """Scalar-last unit quaternion of a rotation matrix (Shepperd's method), with ``w >= 0``."""
    R = np.asarray(R, dtype=float)
    t = np.trace(R)
    if t > 0:
        s = 2.0 * np.sqrt(1.0 + t)
        q = np.array([(R[2, 1] - R[1, 2]) / s, (R[0, 2] - R[2, 0]) / s, (R[1, 0] - R[0, 1]) / s, 0.25 * s])
    else:
        i = int(np.argmax(np.diag(R)))
        j, k = (i + 1) % 3, (i + 2) % 3
        s = 2.0 * np.sqrt(1.0 + R[i, i] - R[j, j] - R[k, k])
        q = np.empty(4)
        q[i] = 0.25 * s
        q[j] = (R[j, i] + R[i, j]) / s
        q[k] = (R[k, i] + R[i, k]) / s
        q[3] = (R[k, j] - R[j, k]) / s
    q /= np.linalg.norm(q)
    return q if q[3] >= 0 else -q


def quat_mul(a, b) -> np.ndarray:
    """Hamilton product ``a b`` of scalar-last quaternions."""
    ax, ay, az, aw = a
    bx, by, bz, bw = b
    return np.array(
        [
            aw * bx + ax * bw + ay * bz - az * by,
            aw * by - ax * bz + ay * bw + az * bx,
            aw * bz + ax * by - ay * bx + az * bw,
            aw * bw - ax * bx - ay * by - az * bz,
        ]
    )


def quat_exp(phi) -> np.ndarray:
    """Unit quaternion of the rotation vector ``phi`` (angle ``|phi|`` about ``phi/|phi|``)."""
    phi = np.asarray(phi, dtype=float)
    th = np.linalg.norm(phi)
    if th < 1e-8:
        s = 0.5 - th * th / 48.0
    else:
        s = np.sin(0.5 * th) / th
    return np.array([s * phi[0], s * phi[1], s * phi[2], np.cos(0.5 * th)])


def quat_log(q) -> np.ndarray:
    """Rotation vector of a unit quaternion, angle in ``[0, pi]``."""
    q = np.asarray(q, dtype=float) / np.linalg.norm(q)
    if q[3] < 0:
        q = -q
    s = np.linalg.norm(q[:3])
    th = 2.0 * np.arctan2(s, q[3])
    if s < 1e-12:
        return 2.0 * q[:3] / q[3]
    return th * q[:3] / s


def quat_integrate(q, omega_body, dt: float) -> np.ndarray:
    """Rotate ``q`` by the body-frame angular velocity ``omega_body`` held for ``dt``: ``q exp(w dt)``."""
    out = quat_mul(q, quat_exp(np.asarray(omega_body, dtype=float) * dt))
    return out / np.linalg.norm(out)


def quat_difference(q0, q1) -> np.ndarray:
    """Body-frame rotation vector ``phi`` with ``quat_integrate(q0, phi, 1) == q1``."""
    q0 = np.asarray(q0, dtype=float)
    conj = np.array([-q0[0], -q0[1], -q0[2], q0[3]]) / np.dot(q0, q0)
    return quat_log(quat_mul(conj, q1))
