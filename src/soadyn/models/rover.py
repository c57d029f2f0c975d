"""The Lunar Electric Rover (LER) of Jain, Crean, Kuo and Quadrelli 2012 (Sec. 5, Figure 5).

A free-floating chassis and six corners. Each corner is a planar four-bar wishbone suspension: a lower and
an upper arm hinged on the chassis, an upright hinged on the lower arm and closing the loop to the upper
arm's outer pivot (a cut revolute joint of a planar mechanism: a ``"planar_pin"`` loop, 2 rows), then a
steering knuckle on the upright (hinge about the upright's vertical axis) and a wheel on the knuckle (hinge
about the lateral axis): 1 + 6 x 5 = 31 bodies, 6 + 6 x 5 = 36 tree dofs, 12 constraint rows (TA); the FA
model has 6 x 31 = 186 dofs and 30 x 5 + 12 = 162 constraint rows; embedding the four bars (CE) leaves
6 + 6 x 3 = 24 dofs.

The paper gives only the topology. Assumed (SI units, chassis axes: x forward, y left, z up):

* chassis: 2000 kg box 4.5 x 2.2 x 1.0 m, its centre of mass at its origin, origin 1.0 m above ground
  level; corners at x = +1.6, 0, -1.6 on both sides (:data:`LER`);
* per corner (left side; the right side is its mirror image in y): lower arm pivot (y, z) = (0.80, -0.45),
  30 kg, 0.60 m long along +y; upper arm pivot (0.85, -0.05), 20 kg, 0.50 m; upright 25 kg, from the lower
  arm's tip (1.40, -0.45) to the upper arm's tip (1.35, -0.05); all four-bar hinges about chassis x; a 20 kg
  knuckle on the upright at 0.20 m up, steering about the upright's z; a 60 kg wheel (radius 0.5 m, width
  0.3 m) on the knuckle, its centre 0.35 m outboard, spinning about y. Total 2930 kg. The right corners'
  hinge axes are mirrored too (``-x``, ``-z``), so mirrored motions have equal joint angles.
* springs (:meth:`soadyn.ModelBuilder.set_spring`): the suspension spring-damper on the lower arm's
  chassis hinge (24 kN m/rad, 1.5 kN m s/rad: about 1.4 Hz heave, 0.3 damping ratio) with its reference
  angle solved so that the rover is in static equilibrium at the design configuration (all joint angles
  zero, chassis level, at rest); a steering centring spring (2 kN m/rad, 200 N m s/rad) on each knuckle.

Ground reaction (contact is not modelled): each wheel's ground load is applied as a hub force through the
wheel bearing, on the knuckle at the wheel centre, along the knuckle's z axis (a follower force that stays
normal to the chassis floor as the vehicle rotates): the static share ``m_total g / 6`` plus the
out-of-phase terrain excitation ``A sin(2 pi f t + phase)`` (:func:`hub_forces`; left and right in
anti-phase, front, middle and rear a third of a period apart), which makes the suspensions oscillate and
rocks the chassis in roll and pitch. The chassis is free: the forces balance its weight on average.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .. import joints as J
from ..builder import ModelBuilder
from ..model import Model
from ..spatial import Inertia, Transform

__all__ = ["ler_rover", "ler_initial_state", "hub_forces", "LER", "LER_CORNERS", "LER_FRAMES"]

G = 9.81
X, Y, Z = np.eye(3)

LER = {
    "chassis_mass": 2000.0, "chassis_size": (4.5, 2.2, 1.0), "ride_height": 1.0, "corner_x": (1.6, 0.0, -1.6),
    "lower_pivot": (0.80, -0.45), "lower_length": 0.60, "lower_mass": 30.0,
    "upper_pivot": (0.85, -0.05), "upper_length": 0.50, "upper_mass": 20.0,
    "upright_mass": 25.0, "knuckle_height": 0.20, "knuckle_mass": 20.0,
    "wheel_offset": 0.35, "wheel_radius": 0.5, "wheel_width": 0.3, "wheel_mass": 60.0,
    "suspension_stiffness": 24000.0, "suspension_damping": 1500.0,
    "steering_stiffness": 2000.0, "steering_damping": 200.0,
    "excitation_amplitude": 1500.0, "excitation_frequency": 1.0,
}
"""Assumed LER parameters (SI): masses, geometry (``(y, z)`` pairs in the chassis frame, left side),
spring-dampers and the terrain excitation of :func:`hub_forces`."""
LER_CORNERS = ("fl", "fr", "ml", "mr", "rl", "rr")
"""Corner names: front/middle/rear, left/right."""
LER_FRAMES = ("chassis", "chassis_front", "chassis_rear_left") + tuple(f"{c}_hub" for c in LER_CORNERS)
"""Frames whose world positions compare runs (the paper plots three points on the vehicle): the chassis
origin, two chassis corners and the six wheel centres."""


def _rod(mass: float, vec) -> Inertia:
    """A slender rod from the body origin to ``vec``."""
    v = np.asarray(vec, dtype=float)
    L = float(np.linalg.norm(v))
    u = v / L
    Ic = mass * L * L / 12.0 * (np.eye(3) - np.outer(u, u)) + 1e-3 * mass * L * L * np.outer(u, u)
    return Inertia(mass, 0.5 * v, Ic)


def _at(*xyz) -> Transform:
    return Transform.from_pose(None, xyz)


def _build(suspension_ref: float) -> Model:
    P = LER
    b = ModelBuilder("ler_rover", gravity=(0.0, 0.0, -G))
    lx, ly, lz = P["chassis_size"]
    b.add_body("chassis", "world", J.Free(), None, Inertia.box(P["chassis_mass"], P["chassis_size"]),
               joint_name="chassis_free")
    b.add_frame("chassis_front", "chassis", _at(0.5 * lx, 0.0, 0.5 * lz))
    b.add_frame("chassis_rear_left", "chassis", _at(-0.5 * lx, 0.5 * ly, 0.5 * lz))
    # loop frame A: its z along the hinge axes (chassis x), x-y the suspension plane
    R_loop = np.column_stack([Y, Z, X])
    (ly0, lz0), (uy0, uz0) = P["lower_pivot"], P["upper_pivot"]
    L_low, L_up = P["lower_length"], P["upper_length"]
    tip_low = np.array([ly0 + L_low, lz0])
    tip_up = np.array([uy0 + L_up, uz0])
    m, r, w = P["wheel_mass"], P["wheel_radius"], P["wheel_width"]
    it = m * (3 * r * r + w * w) / 12.0
    wheel = Inertia(m, (0.0, 0.0, 0.0), np.diag([it, 0.5 * m * r * r, it]))  # a disc about y
    for c, x in zip(LER_CORNERS, np.repeat(P["corner_x"], 2)):
        s = 1.0 if c[1] == "l" else -1.0  # the right corners mirror the left ones in y (hinge axes too)
        low, up, upr, kn, wh = (f"{c}_{n}" for n in ("lower_arm", "upper_arm", "upright", "knuckle", "wheel"))
        b.add_body(low, "chassis", J.Revolute(s * X), _at(x, s * ly0, lz0), _rod(P["lower_mass"], (0, s * L_low, 0)),
                   joint_name=f"{c}_lower_hinge")
        b.add_body(up, "chassis", J.Revolute(s * X), _at(x, s * uy0, uz0), _rod(P["upper_mass"], (0, s * L_up, 0)),
                   joint_name=f"{c}_upper_hinge")
        top = tip_up - tip_low  # the upper pivot of the upright, from its lower pivot
        b.add_body(upr, low, J.Revolute(s * X), _at(0.0, s * L_low, 0.0),
                   _rod(P["upright_mass"], (0, s * top[0], top[1])), joint_name=f"{c}_upright_hinge")
        b.add_body(kn, upr, J.Revolute(s * Z), _at(0.0, 0.0, P["knuckle_height"]),
                   Inertia.sphere(P["knuckle_mass"], 0.12, com=(0.0, s * 0.5 * P["wheel_offset"], 0.0)),
                   joint_name=f"{c}_steer")
        b.add_body(wh, kn, J.Revolute(Y), _at(0.0, s * P["wheel_offset"], 0.0), wheel, joint_name=f"{c}_spin")
        b.add_frame(f"{c}_hub", kn, _at(0.0, s * P["wheel_offset"], 0.0))
        b.add_frame(f"{c}_close_a", up, Transform.from_pose(R_loop, (0.0, s * L_up, 0.0)))
        b.add_frame(f"{c}_close_b", upr, Transform.from_pose(R_loop, (0.0, s * top[0], top[1])))
        b.add_loop(f"{c}_closure", f"{c}_close_a", f"{c}_close_b", "planar_pin")
        b.set_spring(f"{c}_lower_hinge", P["suspension_stiffness"], P["suspension_damping"], suspension_ref)
        b.set_spring(f"{c}_steer", P["steering_stiffness"], P["steering_damping"], 0.0)
    return b.finalize()


def ler_initial_state(model: Model) -> tuple[np.ndarray, np.ndarray]:
    """The design configuration (every hinge at zero, which closes the four bars exactly; the chassis
    level with its origin :data:`LER` ``ride_height`` above the world origin) at rest: ``(q0, qd0)``. With
    the hub forces' static share it is a static equilibrium of :func:`ler_rover`."""
    q = model.neutral_q()
    q[model.jnt_qadr[model.joint_id("chassis_free")] + 2] = LER["ride_height"]
    return q, np.zeros(model.nv)


def hub_forces(model: Model, t, amplitude: float | None = None, frequency: float | None = None) -> np.ndarray:
    """Body forces (len(t), nb, 6) of the ground reaction at the times ``t`` (a schedule for
    :meth:`soadyn.Simulator.rollout`, row ``n`` for step ``n``; pass ``t = dt * arange(nsteps)``): on
    each knuckle, the hub force ``F_c(t) = m_total g / 6 + A sin(2 pi f t + phase_c)`` along the knuckle's
    z axis through the wheel centre (body coordinates about the knuckle origin: ``[r_hub x F e_z; F e_z]``).
    Phases: 0, 2 pi / 3, 4 pi / 3 for the front, middle and rear left wheels, plus pi on the right.
    ``amplitude`` ``A`` (N) and ``frequency`` ``f`` (Hz) default to :data:`LER`. The same body forces act on
    the FA model (same body frames)."""
    t = np.atleast_1d(np.asarray(t, dtype=float))
    A = LER["excitation_amplitude"] if amplitude is None else float(amplitude)
    f = LER["excitation_frequency"] if frequency is None else float(frequency)
    if not (np.all(np.isfinite(t)) and np.isfinite(A) and np.isfinite(f)):
        raise ValueError("t, amplitude, frequency: must be finite")
    static = model.body_mass.sum() * np.linalg.norm(model.gravity) / len(LER_CORNERS)
    out = np.zeros((t.size, model.nb, 6))
    for k, c in enumerate(LER_CORNERS):
        phase = 2.0 * np.pi / 3.0 * (k // 2) + (np.pi if c[1] == "r" else 0.0)
        F = static + A * np.sin(2.0 * np.pi * f * t + phase)
        i = model.body_id(f"{c}_knuckle")
        r = model.frame_r[model.frame_id(f"{c}_hub")]
        out[:, i, 3:] = F[:, None] * Z
        out[:, i, :3] = F[:, None] * np.cross(r, Z)
    return out


@dataclass(frozen=True)
class _Equilibrium:
    reference: float
    residual: float


def _suspension_reference() -> _Equilibrium:
    """The spring reference angle of the lower arm hinges that holds the rover at rest at
    :func:`ler_initial_state` under gravity and the static hub loads: the closed-chain accelerations
    (Jain 2012 Lemma 2) are affine in the spring's preload torque, so one solve fixes it."""
    from ..loops import forward_dynamics

    K = LER["suspension_stiffness"]
    model = _build(0.0)
    q, qd = ler_initial_state(model)
    fext = hub_forces(model, [0.0], amplitude=0.0)[0]
    data = model.data()
    a0 = forward_dynamics(model, data, q, qd, np.zeros(model.nv), fext).copy()
    tau = np.zeros(model.nv)
    for c in LER_CORNERS:
        tau[model.jnt_vadr[model.joint_id(f"{c}_lower_hinge")]] = 1.0
    a1 = forward_dynamics(model, data, q, qd, tau, fext).copy() - a0
    preload = -float(a0 @ a1) / float(a1 @ a1)  # the common extra torque on the six lower hinges
    residual = float(np.abs(a0 + preload * a1).max())
    return _Equilibrium(preload / K, residual)


def ler_rover() -> Model:
    """The LER model (Jain 2012 Sec. 5) with the assumptions of this module: 31 bodies, 36 dofs, six
    planar-pin loops (12 rows), suspension and steering spring-dampers; in static equilibrium at
    :func:`ler_initial_state` under the static share of :func:`hub_forces`."""
    eq = _suspension_reference()
    if not eq.residual <= 1e-8:
        raise RuntimeError(f"ler_rover: the suspension preload leaves accelerations {eq.residual:.3e} at rest")
    return _build(eq.reference)
