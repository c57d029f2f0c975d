"""Contact scenes a user builds first, with their closed-form checks: ball drops, Newton's cradle, a box on
an incline, rolling and sliding bodies, box stacks and a pyramid, solo12 standing and dropped.

Each builder returns a :class:`Scene`: the soadyn model (``scene.model``), a start state (``scene.q0``,
``scene.qd0``), a default duration and an engine-neutral description of the same bodies (:class:`Part`: shape,
size, mass, pose, velocity, joint) from which :mod:`soadyn.models.scenes_mjcf` writes the MJCF for MuJoCo and
:mod:`soadyn.models.scenes_dart` builds the DART world, so that the three simulate the same system. Contact
settings are left to the simulator (:class:`soadyn.contact.ContactSettings` defaults); every geom carries the
scene's friction ``mu`` and restitution ``e`` (a pair takes the larger of its two geoms' values).

Sizes and masses: balls are solid spheres, boxes solid cuboids, capsules solid (cylinder and two hemispheres,
:func:`capsule_inertia`); the ground is the half-space under a plane through the origin, normal ``ground[:, 2]``.
Gravity :data:`G` along ``-z``.

Closed forms (:func:`drop_apexes`, :func:`incline_acceleration`, :func:`rolling_time`, :func:`rolling_speed`):
the apexes of a ball dropped from ``h`` with restitution ``e``, a box sliding down an incline with Coulomb
friction, and a sphere launched sliding without spin on a plane (it rolls from ``t* = 2 v0 / (7 mu g)`` on, at
``5/7 v0``).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from .. import joints as J
from ..builder import ModelBuilder
from ..model import Model
from ..spatial import Inertia, Transform, rot_axis, rot_to_quat

__all__ = ["G", "Part", "Scene", "ball_drop", "newtons_cradle", "box_on_incline", "rolling_sphere", "rolling_capsule",
           "sliding_sphere", "box_stack", "staggered_offsets", "box_pyramid", "solo12_standing", "solo12_dropped",
           "solo12_model", "capsule_inertia", "drop_apexes", "incline_acceleration", "rolling_time", "rolling_speed",
           "SOLO12_STAND", "SOLO12_FOOT_RADIUS", "SOLO12_KP", "SOLO12_KD", "SOLO12_LEGS"]

G = 9.81
"""Gravity (m/s^2) of every scene, along ``-z``."""
BALL_RADIUS = 0.1
BOX_SIZE = 0.2
"""Edge of the stack and pyramid boxes (m); each weighs :data:`BOX_MASS`."""
BOX_MASS = 1.0
SOLO12_STAND = np.array([0.0, 0.8, -1.6, 0.0, 0.8, -1.6, 0.0, -0.8, 1.6, 0.0, -0.8, 1.6])
"""solo12's standing joint angles (front knees back, hind knees forward), the springs' rest angles."""
SOLO12_FOOT_RADIUS = 0.016
SOLO12_KP = 20.0
"""Joint spring stiffness (N m/rad) holding solo12's legs at :data:`SOLO12_STAND` (a passive PD, the same in
every engine)."""
SOLO12_KD = 0.3
"""Joint damping (N m s/rad)."""
SOLO12_LEGS = ("FL", "FR", "HL", "HR")


@dataclass(frozen=True)
class Part:
    """One rigid body of a scene, engine-neutral. ``shape``: ``"sphere"`` (``size = (radius,)``),
    ``"capsule"`` (``(radius, half_length)``, axis along the body's z) or ``"box"`` (half-extents); solid, of
    ``mass`` (kg). ``position`` and ``rotation``: the body's centre and axes in the world at the start.
    ``joint``: ``"free"`` (then ``velocity`` and ``omega``: the world linear velocity of the centre and the world
    angular velocity at the start) or ``"hinge"`` (a revolute joint about the world ``axis`` through ``pivot``;
    ``position``/``rotation`` are the pose at joint angle 0, ``angle`` and ``rate`` the start state)."""

    name: str
    shape: str
    size: tuple
    mass: float
    position: tuple = (0.0, 0.0, 0.0)
    rotation: np.ndarray = field(default_factory=lambda: np.eye(3))
    velocity: tuple = (0.0, 0.0, 0.0)
    omega: tuple = (0.0, 0.0, 0.0)
    joint: str = "free"
    pivot: tuple = (0.0, 0.0, 0.0)
    axis: tuple = (0.0, 1.0, 0.0)
    angle: float = 0.0
    rate: float = 0.0

    def inertia(self) -> Inertia:
        """The body's inertia about its centre, in its own axes."""
        if self.shape == "sphere":
            return Inertia.sphere(self.mass, self.size[0])
        if self.shape == "box":
            return Inertia.box(self.mass, 2.0 * np.asarray(self.size))
        return Inertia(self.mass, (0.0, 0.0, 0.0), np.diag(capsule_inertia(self.mass, *self.size)))


@dataclass(frozen=True)
class Scene:
    """A scene: the soadyn ``model``, its start state ``(q0, qd0)``, a default ``duration`` (s), the bodies as
    :class:`Part` (``parts``; empty for a URDF robot, named by ``robot``), the ground (``ground``: rotation of
    the plane whose half-space below is solid, None for no ground), friction ``mu`` and restitution ``e`` of
    every geom, and ``params``: the builder's arguments (the closed-form checks read them)."""

    name: str
    model: Model
    q0: np.ndarray
    qd0: np.ndarray
    duration: float
    parts: tuple
    ground: np.ndarray | None
    mu: float
    e: float
    params: dict
    robot: str | None = None

    @property
    def start(self) -> tuple[np.ndarray, np.ndarray]:
        """``(q0, qd0)`` as new arrays."""
        return self.q0.copy(), self.qd0.copy()


# ------------------------------------------------------------------------------------------ closed forms
def capsule_inertia(mass: float, radius: float, half_length: float) -> tuple[float, float, float]:
    """Principal moments ``(Ixx, Iyy, Izz)`` of a solid capsule (axis z) about its centre: a cylinder of length
    ``2 half_length`` and two hemispheres (each with its centre of mass ``3 r / 8`` from its flat face), of one
    density."""
    r, a = float(radius), float(half_length)
    vc, vs = math.pi * r * r * 2.0 * a, 4.0 / 3.0 * math.pi * r ** 3
    mc, ms = mass * vc / (vc + vs), mass * vs / (vc + vs)
    ixx = mc * (4.0 * a * a / 12.0 + r * r / 4.0) + ms * (0.4 * r * r + a * a + 0.75 * a * r)
    izz = mc * r * r / 2.0 + ms * 0.4 * r * r
    return ixx, ixx, izz


def drop_apexes(h: float, e: float, k: int = 3) -> np.ndarray:
    """Apex heights after the first ``k`` bounces of a ball dropped from ``h`` (its lowest point above the
    floor) with restitution ``e``: ``e^(2j) h``, ``j = 1..k``."""
    return float(h) * float(e) ** (2.0 * np.arange(1, int(k) + 1))


def incline_acceleration(angle: float, mu: float, g: float = G) -> float:
    """Acceleration down a slope of ``angle`` (rad) with Coulomb friction ``mu``, starting at rest:
    ``g (sin - mu cos)`` when ``tan(angle) > mu``, else 0 (the body sticks)."""
    s, c = math.sin(angle), math.cos(angle)
    return g * (s - mu * c) if s > mu * c else 0.0


def rolling_time(v0: float, mu: float, g: float = G) -> float:
    """Time at which a solid sphere launched at ``v0`` without spin on a plane (friction ``mu``) starts
    rolling: ``t* = 2 v0 / (7 mu g)`` (sliding friction ``mu m g`` slows the centre and spins it up until
    ``v = w r``)."""
    return 2.0 * v0 / (7.0 * mu * g)


def rolling_speed(v0: float) -> float:
    """Speed of that sphere once it rolls: ``5/7 v0`` (angular momentum about the contact point is kept)."""
    return 5.0 * v0 / 7.0


# ------------------------------------------------------------------------------------------ checks of input
def _num(x, name: str, lo: float = -math.inf, hi: float = math.inf, open_lo: bool = False) -> float:
    if isinstance(x, bool) or not isinstance(x, (int, float, np.integer, np.floating)) or not math.isfinite(x):
        raise ValueError(f"{name}: expected a finite number, got {x!r}")
    x = float(x)
    if x < lo or x > hi or (open_lo and x == lo):
        raise ValueError(f"{name}: expected a value in {'(' if open_lo else '['}{lo:g}, {hi:g}], got {x!r}")
    return x


def _count(n, name: str, lo: int = 1) -> int:
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < lo:
        raise ValueError(f"{name}: expected an integer >= {lo}, got {n!r}")
    return int(n)


# ------------------------------------------------------------------------------------------ assembly
def _build(name: str, parts, ground, mu: float, e: float) -> tuple[Model, np.ndarray, np.ndarray]:
    """The soadyn model of ``parts`` (+ the ground half-space) and the start state from the parts."""
    b = ModelBuilder(name, gravity=(0.0, 0.0, -G))
    for p in parts:
        inertia = p.inertia()
        if p.joint == "free":
            b.add_body(p.name, "world", J.Free(), inertia=inertia)
            b.add_geom(p.name, p.name, p.shape, p.size[0] if p.shape == "sphere" else p.size, mu=mu, restitution=e)
        else:
            # body frame at the pivot with world axes; the centre hangs at position - pivot
            c = np.asarray(p.position, float) - np.asarray(p.pivot, float)
            I = Inertia(p.mass, c, p.rotation @ inertia.Ic @ p.rotation.T)
            b.add_body(p.name, "world", J.Revolute(p.axis), Transform.from_pose(None, p.pivot), I)
            b.add_geom(p.name, p.name, p.shape, p.size[0] if p.shape == "sphere" else p.size,
                       Transform.from_pose(p.rotation, c), mu=mu, restitution=e)
    if ground is not None:
        b.add_geom("ground", "world", "halfspace", None, Transform.from_pose(ground), mu=mu, restitution=e)
    model = b.finalize()
    q, qd = model.neutral_q(), np.zeros(model.nv)
    for p in parts:
        i = model.body_id(p.name)
        qa, va = model.jnt_qadr[i], model.jnt_vadr[i]
        if p.joint == "free":
            R = np.asarray(p.rotation, float)
            q[qa:qa + 3] = p.position
            q[qa + 3:qa + 7] = rot_to_quat(R)
            qd[va:va + 3] = R.T @ np.asarray(p.omega, float)  # body-frame [w; v]
            qd[va + 3:va + 6] = R.T @ np.asarray(p.velocity, float)
        else:
            q[qa], qd[va] = p.angle, p.rate
    return model, q, qd


def _scene(name, parts, ground, mu, e, duration, params) -> Scene:
    model, q0, qd0 = _build(name, parts, ground, mu, e)
    return Scene(name, model, q0, qd0, float(duration), tuple(parts), None if ground is None else np.asarray(ground),
                 float(mu), float(e), dict(params))


# ------------------------------------------------------------------------------------------ builders
def ball_drop(radius: float = BALL_RADIUS, height: float = 1.0, restitution: float = 0.5, mu: float = 0.5,
              mass: float = 1.0, duration: float = 2.5) -> Scene:
    """A solid ball dropped from rest, its lowest point ``height`` above a floor (``z = 0``). Check:
    :func:`drop_apexes`."""
    r = _num(radius, "radius", 0.0, open_lo=True)
    h = _num(height, "height", 0.0, open_lo=True)
    e = _num(restitution, "restitution", 0.0, 1.0)
    part = Part("ball", "sphere", (r,), _num(mass, "mass", 0.0, open_lo=True), (0.0, 0.0, r + h))
    return _scene("ball_drop", [part], np.eye(3), _num(mu, "mu", 0.0), e, duration,
                  dict(radius=r, height=h, restitution=e))


def newtons_cradle(n: int = 5, gap: float = 1e-3, restitution: float = 1.0, radius: float = 0.05,
                   length: float = 0.5, angle: float = math.radians(30.0), mass: float = 0.5,
                   duration: float = 1.0) -> Scene:
    """``n`` balls of ``radius`` hanging on ``length`` (pivot to centre) from pins along the world y axis,
    in a row along x with ``gap`` between neighbours at rest; the first (most negative x) is released from rest
    at ``angle`` (rad) out of the row. No floor, no friction losses (mu 0). Expected: with ``e = 1`` the
    energy is kept and only the last ball leaves, at the first ball's impact speed."""
    n = _count(n, "n", 2)
    gap = _num(gap, "gap", 0.0)
    e = _num(restitution, "restitution", 0.0, 1.0)
    r, L = _num(radius, "radius", 0.0, open_lo=True), _num(length, "length", 0.0, open_lo=True)
    a = _num(angle, "angle", 0.0, math.pi / 2)
    m = _num(mass, "mass", 0.0, open_lo=True)
    pitch = 2.0 * r + gap
    parts = []
    for i in range(n):
        x = (i - 0.5 * (n - 1)) * pitch
        pivot = (x, 0.0, L + r)
        # a positive angle about +y swings a hanging ball towards -x: the first one is released at +angle
        parts.append(Part(f"ball{i}", "sphere", (r,), m, (x, 0.0, r), joint="hinge", pivot=pivot, axis=(0.0, 1.0, 0.0),
                          angle=a if i == 0 else 0.0))
    return _scene("newtons_cradle", parts, None, 0.0, e, duration,
                  dict(n=n, gap=gap, restitution=e, radius=r, length=L, angle=a, mass=m))


def _incline_rotation(angle: float, heading: float) -> np.ndarray:
    """The slope's axes: tilted by ``angle`` about y (downhill +x, normal z), then turned by ``heading`` about
    world z."""
    return rot_axis((0.0, 0.0, 1.0), heading) @ rot_axis((0.0, 1.0, 0.0), angle)


def box_on_incline(angle: float = math.radians(28.0), mu: float = 0.6, heading: float = 0.0, size: float = 0.2,
                   mass: float = 2.0, duration: float = 1.0) -> Scene:
    """A solid cube (edge ``size``, ``mass``) at rest face-down on a slope of ``angle`` (rad) through the
    origin, the slope turned by ``heading`` (rad) about world z. Downhill is ``ground[:, 0]``. Check:
    :func:`incline_acceleration` (sticks when ``tan(angle) <= mu``)."""
    a = _num(angle, "angle", 0.0, math.pi / 2, open_lo=False)
    hd = _num(heading, "heading")
    s = _num(size, "size", 0.0, open_lo=True)
    R = _incline_rotation(a, hd)
    part = Part("box", "box", (0.5 * s,) * 3, _num(mass, "mass", 0.0, open_lo=True), tuple(0.5 * s * R[:, 2]), R)
    return _scene("box_on_incline", [part], R, _num(mu, "mu", 0.0), 0.0, duration,
                  dict(angle=a, mu=float(mu), heading=hd, size=s))


def _direction(direction) -> np.ndarray:
    if isinstance(direction, (int, float, np.integer, np.floating)) and not isinstance(direction, bool):
        t = _num(direction, "direction")
        return np.array([math.cos(t), math.sin(t), 0.0])
    try:
        d = np.asarray(direction, dtype=float).reshape(2)
    except (TypeError, ValueError):
        raise ValueError(f"direction: expected an angle about z (rad) or an (x, y) vector, got {direction!r}") from None
    n = float(np.hypot(*d))
    if not (np.all(np.isfinite(d)) and n > 0):
        raise ValueError(f"direction: expected a non-zero finite (x, y), got {direction!r}")
    return np.array([d[0] / n, d[1] / n, 0.0])


def rolling_sphere(speed: float = 1.0, radius: float = BALL_RADIUS, mu: float = 0.5, mass: float = 1.0,
                   direction=0.0, duration: float = 3.0) -> Scene:
    """A solid sphere rolling without slipping on the floor at ``speed`` along ``direction`` (an angle about z
    or an (x, y) vector). Expected: it keeps its speed (no rolling resistance in any of the models)."""
    r = _num(radius, "radius", 0.0, open_lo=True)
    v = _num(speed, "speed") * _direction(direction)
    omega = np.cross((0.0, 0.0, 1.0), v) / r  # v + w x (-r z) = 0
    part = Part("ball", "sphere", (r,), _num(mass, "mass", 0.0, open_lo=True), (0.0, 0.0, r), velocity=tuple(v),
                omega=tuple(omega))
    return _scene("rolling_sphere", [part], np.eye(3), _num(mu, "mu", 0.0), 0.0, duration,
                  dict(speed=float(speed), radius=r, direction=tuple(v / max(abs(speed), 1e-300))))


def rolling_capsule(speed: float = 1.0, radius: float = 0.05, half_length: float = 0.1, mu: float = 0.5,
                    mass: float = 1.0, direction=0.0, duration: float = 3.0) -> Scene:
    """A solid capsule lying on the floor (axis horizontal, perpendicular to ``direction``) rolling without
    slipping at ``speed``. Expected: it keeps its speed."""
    r = _num(radius, "radius", 0.0, open_lo=True)
    a = _num(half_length, "half_length", 0.0, open_lo=True)
    d = _direction(direction)
    axis = np.cross((0.0, 0.0, 1.0), d)  # horizontal, perpendicular to the motion
    R = np.column_stack([d, np.cross(axis, d), axis])  # body z along the capsule's axis
    v = _num(speed, "speed") * d
    omega = np.cross((0.0, 0.0, 1.0), v) / r
    part = Part("capsule", "capsule", (r, a), _num(mass, "mass", 0.0, open_lo=True), (0.0, 0.0, r), R,
                tuple(v), tuple(omega))
    return _scene("rolling_capsule", [part], np.eye(3), _num(mu, "mu", 0.0), 0.0, duration,
                  dict(speed=float(speed), radius=r, half_length=a, direction=tuple(d)))


def sliding_sphere(v0: float = 2.0, direction=0.0, mu: float = 0.3, radius: float = BALL_RADIUS, mass: float = 1.0,
                   duration: float = 0.5) -> Scene:
    """A solid sphere launched at ``v0`` along ``direction`` without spin, sliding on the floor. Check:
    :func:`rolling_time` and :func:`rolling_speed`."""
    r = _num(radius, "radius", 0.0, open_lo=True)
    d = _direction(direction)
    v0 = _num(v0, "v0", 0.0, open_lo=True)
    mu = _num(mu, "mu", 0.0, open_lo=True)
    part = Part("ball", "sphere", (r,), _num(mass, "mass", 0.0, open_lo=True), (0.0, 0.0, r), velocity=tuple(v0 * d))
    return _scene("sliding_sphere", [part], np.eye(3), mu, 0.0, duration, dict(v0=v0, mu=mu, radius=r, direction=tuple(d)))


def staggered_offsets(n: int, seed: int = 0, offset=(0.003, 0.005), yaw: float = math.radians(5.0)):
    """``(offsets, yaws)`` of a staggered stack of ``n`` boxes: each box shifted from the one below by a
    distance drawn uniformly from ``offset`` (m) in a random horizontal direction, and turned about z by a yaw
    drawn uniformly from ``[-yaw, yaw]`` (rad); the bottom box stays at the origin, unturned. Seeded."""
    n = _count(n, "n")
    rng = np.random.default_rng(seed)
    lo, hi = (float(x) for x in offset)
    dist = rng.uniform(lo, hi, n)
    phi = rng.uniform(0.0, 2.0 * math.pi, n)
    steps = np.column_stack([dist * np.cos(phi), dist * np.sin(phi)])
    steps[0] = 0.0
    yaws = rng.uniform(-yaw, yaw, n)
    yaws[0] = 0.0
    return np.cumsum(steps, axis=0), yaws


def box_stack(n: int = 5, offsets=None, yaws=None, size: float = BOX_SIZE, mass: float = BOX_MASS, mu: float = 0.5,
              duration: float = 10.0) -> Scene:
    """``n`` solid cubes (edge ``size``, ``mass`` each) stacked on the floor, each face exactly on the one
    below; ``offsets`` ((n, 2), m) shift the boxes horizontally and ``yaws`` ((n,), rad) turn them about z
    (None: an exact stack; :func:`staggered_offsets` draws a staggered one). Expected: at rest."""
    n = _count(n, "n")
    s = _num(size, "size", 0.0, open_lo=True)
    off = np.zeros((n, 2)) if offsets is None else np.asarray(offsets, dtype=float)
    yw = np.zeros(n) if yaws is None else np.asarray(yaws, dtype=float)
    if off.shape != (n, 2) or not np.all(np.isfinite(off)):
        raise ValueError(f"offsets: expected finite (n, 2) = ({n}, 2) horizontal shifts, got shape {off.shape}")
    if yw.shape != (n,) or not np.all(np.isfinite(yw)):
        raise ValueError(f"yaws: expected finite ({n},) angles, got shape {yw.shape}")
    m = _num(mass, "mass", 0.0, open_lo=True)
    parts = [Part(f"box{i}", "box", (0.5 * s,) * 3, m, (off[i, 0], off[i, 1], (i + 0.5) * s),
                  rot_axis((0.0, 0.0, 1.0), yw[i])) for i in range(n)]
    staggered = bool(np.any(off) or np.any(yw))
    return _scene(f"box_stack{n}" + ("_staggered" if staggered else ""), parts, np.eye(3), _num(mu, "mu", 0.0), 0.0,
                  duration, dict(n=n, size=s, offsets=off.tolist(), yaws=yw.tolist()))


def box_pyramid(rows: int = 3, spacing: float = 0.22, size: float = BOX_SIZE, mass: float = BOX_MASS,
                mu: float = 0.5, duration: float = 10.0) -> Scene:
    """A pyramid of ``rows (rows + 1) / 2`` cubes (6 for 3 rows): ``rows`` on the floor ``spacing`` apart
    (centre to centre, along x), each upper box resting across the two below it. Expected: at rest."""
    k = _count(rows, "rows")
    s = _num(size, "size", 0.0, open_lo=True)
    sp = _num(spacing, "spacing", s)
    if sp >= 2.0 * s:
        raise ValueError(f"spacing: an upper box must rest on both boxes below (< 2 size = {2 * s:g}), got {sp!r}")
    m = _num(mass, "mass", 0.0, open_lo=True)
    parts = []
    for row in range(k):
        count = k - row
        for j in range(count):
            parts.append(Part(f"box{len(parts)}", "box", (0.5 * s,) * 3, m,
                              ((j - 0.5 * (count - 1)) * sp, 0.0, (row + 0.5) * s)))
    return _scene(f"box_pyramid{len(parts)}", parts, np.eye(3), _num(mu, "mu", 0.0), 0.0, duration,
                  dict(rows=k, spacing=sp, size=s))


# ------------------------------------------------------------------------------------------ solo12
def solo12_model(mu: float = 1.0, kp: float = SOLO12_KP, kd: float = SOLO12_KD) -> Model:
    """solo12 (example-robot-data) on a free base with a sphere of :data:`SOLO12_FOOT_RADIUS` at each
    ``{leg}_FOOT`` frame and a floor; joint springs ``kp`` toward :data:`SOLO12_STAND` with damping ``kd``.
    Only the feet collide (with the floor)."""
    import dataclasses

    from ..contact.geometry import with_geoms
    from .robots import robot

    base = robot("solo12", floating_base=True)
    feet = [dict(name=f"{leg}_foot", body=f"{leg}_FOOT", kind="sphere", size=SOLO12_FOOT_RADIUS, mu=mu, group=1,
                 mask=2) for leg in SOLO12_LEGS]
    floor = dict(name="ground", body="world", kind="halfspace", mu=mu, group=2, mask=1)
    model = with_geoms(base, feet + [floor])
    k = np.zeros(model.nv)
    c = np.zeros(model.nv)
    ref = np.zeros(model.nv)
    k[6:], c[6:], ref[6:] = _num(kp, "kp", 0.0), _num(kd, "kd", 0.0), SOLO12_STAND
    ro = [a.copy() for a in (k, c, ref)]
    for a in ro:
        a.setflags(write=False)
    return dataclasses.replace(model, dof_stiffness=ro[0], dof_damping=ro[1], dof_springref=ro[2])


def _solo12(name: str, clearance: float, mu: float, duration: float) -> Scene:
    from ..dynamics import frame_pose

    model = solo12_model(mu)
    q = model.neutral_q()
    q[7:] = SOLO12_STAND
    d = model.data()
    lowest = min(float(frame_pose(model, d, q, f"{leg}_FOOT")[2, 3]) for leg in SOLO12_LEGS) - SOLO12_FOOT_RADIUS
    q[2] = clearance - lowest
    q.setflags(write=False)
    qd = np.zeros(model.nv)
    qd.setflags(write=False)
    return Scene(name, model, q, qd, float(duration), (), np.eye(3), float(mu), 0.0,
                 dict(clearance=clearance, kp=SOLO12_KP, kd=SOLO12_KD), robot="solo12")


def solo12_standing(mu: float = 1.0, duration: float = 2.0) -> Scene:
    """solo12 (:func:`solo12_model`) in its standing pose, level, at rest, the feet just touching the floor.
    Expected: it settles and stays (base peak-to-peak < 1 um over the last 0.5 s)."""
    return _solo12("solo12_standing", 0.0, _num(mu, "mu", 0.0), duration)


def solo12_dropped(height: float = 0.1, mu: float = 1.0, duration: float = 2.0) -> Scene:
    """solo12 in its standing pose released at rest with its feet ``height`` (m) above the floor. Expected: it
    lands on its feet and settles."""
    return _solo12("solo12_dropped", _num(height, "height", 0.0), _num(mu, "mu", 0.0), duration)
