"""Closed-chain mechanisms: the five validation mechanisms of Jain, Crean, Kuo and Quadrelli 2012 (Sec. 4,
Figure 3), a redundant four bar and a chain of four bars for scaling studies.

Each mechanism is a tree model (the spanning tree of the TA model) with its cut joints declared as loops
(:mod:`soadyn.loops`). The paper calls a cut joint with ``k`` degrees of freedom a "``k`` degree of freedom
closure loop constraint": a revolute cut joint of a spatial mechanism constrains ``6 - 1 = 5`` directions,
a ball cut joint 3. In a planar mechanism (a tree of hinges normal to one plane) a cut revolute joint
constrains only the 2 in-plane translations that the tree does not already keep (the other 3 rows would be
identically zero: redundant), so planar cuts are ``"planar_pin"`` loops. Planar mechanisms move in the
world x-y plane with gravity along -y; spatial ones have gravity along -z.

:func:`initial_state` gives each mechanism's consistent initial state: ``q`` closed by
:func:`soadyn.loops.assemble` from a closed-form guess with the driving joint held, zero velocity, the name
of the driven joint and a default steady driving torque (:class:`MechanismState`).

=========================  ============  ==========  ===========================  ======  ====
mechanism                  moving        tree dofs   closures                     rows    dof
                           bodies
=========================  ============  ==========  ===========================  ======  ====
planar_crank_slider        3             3           1 planar pin                 2       1
planar_quick_return        5             5           2 planar pins                4       1
planar_four_bar            3             3           1 planar pin                 2       1
spatial_four_bar           3             4           1 ball                       3       1
spatial_crank_slider       3             6           1 revolute                   5       1
redundant_four_bar         3             3           1 ball (or revolute)         3 (5)   1
four_bar_chain(k)          2k + 1        2k + 1      k planar pins                2k      1
=========================  ============  ==========  ===========================  ======  ====

(The paper's body counts are inconsistent about the ground: it calls the crank slider a "3 body" and the
four bar a "4 body" system, with 3 tree dofs each. The counts above are moving bodies.)
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .. import joints as J
from ..builder import ModelBuilder
from ..model import Model
from ..spatial import Inertia, Transform, rot_axis, rot_to_quat

__all__ = [
    "planar_crank_slider", "planar_quick_return", "planar_four_bar", "spatial_four_bar", "spatial_crank_slider",
    "redundant_four_bar", "four_bar_chain", "initial_state", "MechanismState", "MECHANISMS",
    "FOUR_BAR", "CRANK_SLIDER", "QUICK_RETURN", "SPATIAL_FOUR_BAR", "SPATIAL_CRANK_SLIDER",
]

G = 9.81
PLANAR_GRAVITY = (0.0, -G, 0.0)
SPATIAL_GRAVITY = (0.0, 0.0, -G)
X, Y, Z = np.eye(3)

FOUR_BAR = {"crank": 0.5, "coupler": 1.2, "rocker": 1.0, "ground": 1.0}
"""Planar four bar (m): crank pivot at the origin, rocker pivot at ``(ground, 0)``; Grashof crank-rocker
(0.5 + 1.2 < 1.0 + 1.0), so the crank turns fully."""
CRANK_SLIDER = {"crank": 0.3, "coupler": 1.0, "offset": 0.1}
"""Planar crank slider (m): crank pivot at the origin, slider line ``y = offset`` along x."""
QUICK_RETURN = {"crank": 0.2, "crank_pivot": 0.35, "lever": 1.0, "link": 0.35, "ram_height": 1.05}
"""Crank and slotted lever quick return (m): lever pivot at the origin, crank pivot at
``(0, crank_pivot)``, ram guide ``y = ram_height`` along x."""
SPATIAL_FOUR_BAR = {"crank": 0.15, "coupler": 1.15, "rocker": 0.7, "rocker_pivot": (0.8, 0.0, 0.4)}
"""Spatial four bar (RUSR, m): crank about world z at the origin, rocker about world x at ``rocker_pivot``;
the crank tip's distance to the rocker tip's circle stays within [1.00, 1.28] m at every crank angle, so
the crank turns fully."""
SPATIAL_CRANK_SLIDER = {"crank": 0.2, "rod": 0.9, "rail": (0.0, 0.15, 0.35), "reference_angle": 0.9}
"""Spatial crank slider (m): crank about world z at the origin; the slider's rail is the line through
``rail`` along world x (offset from the crank plane in y and z). At the crank angle ``reference_angle``
(rad, the default initial state) the wrist loop's frames coincide."""


def _rod(mass: float, length: float, axial: float = 1e-3) -> Inertia:
    """A slender rod along the body x axis from the origin (centre of mass at ``length / 2``)."""
    t = mass * length * length / 12.0
    return Inertia(mass, (0.5 * length, 0.0, 0.0), np.diag([axial * mass, t, t]))


def _at(*xyz) -> Transform:
    return Transform.from_pose(None, xyz)


# ------------------------------------------------------------------------------------------ mechanisms
def planar_crank_slider() -> Model:
    """Planar crank slider (Jain 2012 Sec. 4, mechanism 1; Figure 3a): 3 moving bodies, 3 tree dofs, one
    planar-pin closure (2 rows), 1 dof.

    Geometry (:data:`CRANK_SLIDER`): ``crank`` (0.3 m, 1 kg) on a revolute joint about z at the origin;
    ``coupler`` (1.0 m, 2 kg) on a revolute joint at the crank tip; ``slider`` (1.5 kg block) on a
    prismatic joint along x on the line ``y = 0.1``. The loop ``"wrist_pin"`` pins the coupler's end
    (frame ``"coupler_end"``) to the slider's origin. Driven joint: ``"crank_joint"``."""
    p = CRANK_SLIDER
    b = ModelBuilder("planar_crank_slider", gravity=PLANAR_GRAVITY)
    b.add_body("crank", "world", J.Revolute(Z), None, _rod(1.0, p["crank"]))
    b.add_body("coupler", "crank", J.Revolute(Z), _at(p["crank"], 0, 0), _rod(2.0, p["coupler"]))
    b.add_body("slider", "world", J.Prismatic(X), _at(0, p["offset"], 0), Inertia.box(1.5, (0.2, 0.1, 0.1)))
    b.add_frame("coupler_end", "coupler", _at(p["coupler"], 0, 0))
    b.add_loop("wrist_pin", "slider", "coupler_end", "planar_pin")
    return b.finalize()


def planar_quick_return() -> Model:
    """Planar quick return mechanism (Jain 2012 Sec. 4, mechanism 2; Figure 3b), the crank and slotted
    lever layout of a shaper: 5 moving bodies, 5 tree dofs, two planar-pin closures (4 rows), 1 dof.

    Geometry (:data:`QUICK_RETURN`): the slotted ``lever`` (1.0 m, 3 kg) turns about z at the origin; the
    ``block`` (0.3 kg) slides in the lever's slot (prismatic joint along the lever's x axis, the
    slider-in-slot pair); the ``crank`` (0.2 m, 1 kg) turns about z at ``(0, 0.35)``, below the
    lever's tip, so the lever rocks while the crank turns fully; the ``link`` (0.35 m, 0.8 kg) hangs on a
    revolute joint at the lever's tip; the ``ram`` (2 kg) slides along x on the guide ``y = 1.05``.
    Loops: ``"crank_pin"`` pins the crank's tip (frame ``"crank_tip"``) to the block's origin and
    ``"ram_pin"`` pins the link's end (frame ``"link_end"``) to the ram's origin. The forward stroke of
    the ram takes the longer crank arc (quick return). Driven joint: ``"crank_joint"``."""
    p = QUICK_RETURN
    b = ModelBuilder("planar_quick_return", gravity=PLANAR_GRAVITY)
    b.add_body("lever", "world", J.Revolute(Z), None, _rod(3.0, p["lever"]))
    b.add_body("block", "lever", J.Prismatic(X), None, Inertia.box(0.3, (0.08, 0.05, 0.05)))
    b.add_body("crank", "world", J.Revolute(Z), _at(0, p["crank_pivot"], 0), _rod(1.0, p["crank"]))
    b.add_body("link", "lever", J.Revolute(Z), _at(p["lever"], 0, 0), _rod(0.8, p["link"]))
    b.add_body("ram", "world", J.Prismatic(X), _at(0, p["ram_height"], 0), Inertia.box(2.0, (0.4, 0.1, 0.1)))
    b.add_frame("crank_tip", "crank", _at(p["crank"], 0, 0))
    b.add_frame("link_end", "link", _at(p["link"], 0, 0))
    b.add_loop("crank_pin", "block", "crank_tip", "planar_pin")
    b.add_loop("ram_pin", "ram", "link_end", "planar_pin")
    return b.finalize()


def _planar_four_bar(name: str, kind) -> Model:
    p = FOUR_BAR
    b = ModelBuilder(name, gravity=PLANAR_GRAVITY)
    b.add_body("crank", "world", J.Revolute(Z), None, _rod(1.0, p["crank"]))
    b.add_body("coupler", "crank", J.Revolute(Z), _at(p["crank"], 0, 0), _rod(2.0, p["coupler"]))
    b.add_body("rocker", "world", J.Revolute(Z), _at(p["ground"], 0, 0), _rod(1.5, p["rocker"]))
    b.add_frame("coupler_end", "coupler", _at(p["coupler"], 0, 0))
    b.add_frame("rocker_end", "rocker", _at(p["rocker"], 0, 0))
    b.add_loop("pin", "rocker_end", "coupler_end", kind)
    return b.finalize()


def planar_four_bar() -> Model:
    """Planar four bar (Jain 2012 Sec. 4, mechanism 3; Figure 3c): 3 moving bodies (4 with the ground),
    3 tree dofs, one planar-pin closure (2 rows), 1 dof.

    Geometry (:data:`FOUR_BAR`): ``crank`` (0.5 m, 1 kg) about z at the origin; ``coupler`` (1.2 m, 2 kg)
    on a revolute joint at the crank tip; ``rocker`` (1.0 m, 1.5 kg) about z at ``(1, 0)``. The loop
    ``"pin"`` pins the coupler's end (``"coupler_end"``) to the rocker's end (``"rocker_end"``, frame A).
    A Grashof crank-rocker. Driven joint: ``"crank_joint"``."""
    return _planar_four_bar("planar_four_bar", "planar_pin")


def redundant_four_bar(kind: str = "ball") -> Model:
    """The planar four bar of :func:`planar_four_bar` (same bodies, all hinge axes parallel to z) closed by
    a spatial ``"ball"`` (3 rows) or ``"revolute"`` (5 rows) loop: the rows along z (and, for the
    revolute, about x and y) are identically zero, so the constraints are redundant (rank 2), the Schur
    complement is singular and the multipliers are not unique. Its motion is that of the planar four bar."""
    if kind not in ("ball", "revolute"):
        raise ValueError(f"kind: expected 'ball' or 'revolute', got {kind!r}")
    return _planar_four_bar(f"redundant_four_bar_{kind}", kind)


def spatial_four_bar() -> Model:
    """Spatial four bar (Jain 2012 Sec. 4, mechanism 4; Figure 3d), an R-U-S-R linkage: 3 moving bodies
    (4 with the ground), 4 tree dofs, one ball closure (3 rows), 1 dof.

    Geometry (:data:`SPATIAL_FOUR_BAR`): ``crank`` (0.15 m, 1 kg) turns about world z at the origin;
    ``coupler`` (1.15 m, 2 kg) hangs on a universal joint at the crank tip (first axis the crank's z,
    second the coupler's y: the universal joint removes the coupler's idle spin about its own axis that
    a spherical joint would leave); ``rocker`` (0.7 m, 1.5 kg, extending along its local y) turns about
    world x at ``(0.8, 0, 0.4)``: the crank and rocker axes are perpendicular and skew. The loop
    ``"ball"`` joins the coupler's end (``"coupler_end"``) and the rocker's end (``"rocker_end"``, frame
    A) by a spherical joint. The crank turns fully. Driven joint: ``"crank_joint"``."""
    p = SPATIAL_FOUR_BAR
    b = ModelBuilder("spatial_four_bar", gravity=SPATIAL_GRAVITY)
    b.add_body("crank", "world", J.Revolute(Z), None, _rod(1.0, p["crank"]))
    b.add_body("coupler", "crank", J.Universal(Z, Y), _at(p["crank"], 0, 0), _rod(2.0, p["coupler"]))
    b.add_body("rocker", "world", J.Revolute(X), _at(*p["rocker_pivot"]),
               Inertia(1.5, (0.0, 0.5 * p["rocker"], 0.0), np.diag([1.5 * p["rocker"] ** 2 / 12, 1.5e-3,
                                                                    1.5 * p["rocker"] ** 2 / 12])))
    b.add_frame("coupler_end", "coupler", _at(p["coupler"], 0, 0))
    b.add_frame("rocker_end", "rocker", _at(0, p["rocker"], 0))
    b.add_loop("ball", "rocker_end", "coupler_end", "ball")
    return b.finalize()


def spatial_crank_slider() -> Model:
    """Spatial crank slider (Jain 2012 Sec. 4, mechanism 5; Figure 3e), an R-S-R-C linkage: 3 moving bodies
    (4 with the ground), 6 tree dofs, one revolute closure (a 1-dof cut joint: 5 rows), 1 dof.

    Geometry (:data:`SPATIAL_CRANK_SLIDER`): ``crank`` (0.2 m, 1 kg) turns about world z at the origin;
    the connecting ``rod`` (0.9 m, 2 kg) hangs on a spherical joint at the crank tip; the ``slider``
    (1.5 kg) rides on a cylindrical joint along the rail (world x through ``(0, 0.15, 0.35)``). The loop
    ``"wrist"`` is a revolute joint between the rod's end (``"rod_end"``, B, turned about its z axis so
    that the frames coincide at the reference crank angle 0.9 rad) and the slider's wrist frame
    ``"slider_wrist"`` (A, whose z axis is the slider's y axis, normal to the rail).

    Why this tree: the paper's mechanism has revolute, prismatic and spherical hinges and 6 tree dofs on
    3 moving bodies with one inbound joint each. With 1-dof revolute/prismatic and 3-dof spherical joints
    alone, 3 bodies have 5 or 7 dofs; 6 needs the slider's rotary and prismatic hinges about and along
    its rail in one (cylindrical) joint: 1 (crank R) + 3 (rod S) + 2 (slider R+P) = 6. Why this closure:
    6 - 5 = 1 dof with a full-rank (5 x 6) Jacobian. The slider's roll about the rail and the wrist's
    revolute angle hold the rod's direction like a universal joint, so the rod's spin about its own axis
    is determined (an R-S-S-P linkage with a ball closure would leave that spin idle: 2 dofs, and a
    universal closure there would be 6 - 4 = 2 dofs as well). Driven joint: ``"crank_joint"``."""
    p = SPATIAL_CRANK_SLIDER
    b = ModelBuilder("spatial_crank_slider", gravity=SPATIAL_GRAVITY)
    b.add_body("crank", "world", J.Revolute(Z), None, _rod(1.0, p["crank"]))
    b.add_body("rod", "crank", J.Spherical(), _at(p["crank"], 0, 0), _rod(2.0, p["rod"], axial=5e-3))
    b.add_body("slider", "world", J.Cylindrical(X), _at(*p["rail"]), Inertia.box(1.5, (0.2, 0.1, 0.1)))
    # the rod's wrist frame is turned about its z axis so that the cut joint's angle is zero at the
    # reference state: frames A and B coincide there (the loop's zero, as a tree joint's q = 0)
    gamma0 = _spatial_crank_slider_pose(p["reference_angle"])[3]
    b.add_frame("rod_end", "rod", Transform.from_pose(rot_axis(Z, -gamma0), (p["rod"], 0.0, 0.0)))
    b.add_frame("slider_wrist", "slider", Transform.from_pose(rot_axis(X, -0.5 * np.pi), None))
    b.add_loop("wrist", "slider_wrist", "rod_end", "revolute")
    return b.finalize()


def four_bar_chain(k: int) -> Model:
    """``k`` planar four bars in series sharing links: pivots ``(j, 0)`` for ``j = 0..k``; link ``Lj``
    (revolute about z at pivot j) carries the coupler ``cj`` (1.2 m) on a revolute joint at 0.5 m along
    it, whose end is pinned to the tip of ``L(j+1)`` (1.0 m along it; loop ``"pin{j}"``). Four bar ``j``
    is (ground, ``Lj``, ``cj``, ``L(j+1)``) with the proportions of :func:`planar_four_bar`, a Grashof
    crank-rocker, so every input angle closes; its rocker is the next one's crank. ``2k + 1`` bodies and
    tree dofs, ``k`` loops (2k rows), 1 dof. Driven joint: ``"L0_joint"``."""
    if isinstance(k, bool) or int(k) != k or k < 1:
        raise ValueError(f"k must be a positive integer, got {k!r}")
    k = int(k)
    p = FOUR_BAR
    b = ModelBuilder(f"four_bar_chain{k}", gravity=PLANAR_GRAVITY)
    for j in range(k + 1):
        b.add_body(f"L{j}", "world", J.Revolute(Z), _at(j * p["ground"], 0, 0), _rod(1.0, p["rocker"]))
        b.add_frame(f"L{j}_tip", f"L{j}", _at(p["rocker"], 0, 0))
        if j < k:
            b.add_body(f"c{j}", f"L{j}", J.Revolute(Z), _at(p["crank"], 0, 0), _rod(2.0, p["coupler"]))
            b.add_frame(f"c{j}_end", f"c{j}", _at(p["coupler"], 0, 0))
    for j in range(k):
        b.add_loop(f"pin{j}", f"L{j + 1}_tip", f"c{j}_end", "planar_pin")
    return b.finalize()


MECHANISMS = {
    "planar_crank_slider": planar_crank_slider,
    "planar_quick_return": planar_quick_return,
    "planar_four_bar": planar_four_bar,
    "spatial_four_bar": spatial_four_bar,
    "spatial_crank_slider": spatial_crank_slider,
}
"""The five mechanisms of Jain 2012 Sec. 4, in the paper's order: name -> constructor."""


# ------------------------------------------------------------------------------------- initial states
@dataclass(frozen=True)
class MechanismState:
    """A consistent initial state: assembled ``q``, zero ``qd``, the ``driver`` joint's name and a default
    steady driving ``torque`` (N m, on the driver's dof)."""

    q: np.ndarray
    qd: np.ndarray
    driver: str
    torque: float

    def tau(self, model: Model) -> np.ndarray:
        """The joint forces (nv,): ``torque`` on the driver's dof, zero elsewhere."""
        tau = np.zeros(model.nv)
        tau[model.jnt_vadr[model.joint_id(self.driver)]] = self.torque
        return tau


def _circle_intersection(c0, r0, c1, r1, sign: float) -> np.ndarray:
    """The intersection of the circles (c0, r0) and (c1, r1) left (``sign=+1``) or right of c0 -> c1."""
    c0, c1 = np.asarray(c0, float), np.asarray(c1, float)
    d = c1 - c0
    L = np.linalg.norm(d)
    a = (r0 * r0 - r1 * r1 + L * L) / (2 * L)
    h2 = r0 * r0 - a * a
    if h2 < 0:
        raise ValueError("the circles do not intersect: the mechanism cannot close at this input angle")
    e = d / L
    return c0 + a * e + sign * np.sqrt(h2) * np.array([-e[1], e[0]])


def _four_bar_angles(theta: float, pivot0, pivot1, crank: float, coupler: float, rocker: float):
    """(coupler joint angle, rocker angle) of a planar four bar with the crank at ``theta`` (open branch:
    the coupler end above the line crank tip -> rocker pivot)."""
    C = np.asarray(pivot0, float) + crank * np.array([np.cos(theta), np.sin(theta)])
    R = _circle_intersection(C, coupler, pivot1, rocker, 1.0)
    beta = np.arctan2(R[1] - C[1], R[0] - C[0])
    psi = np.arctan2(R[1] - pivot1[1], R[0] - pivot1[0])
    return beta, psi


def _by_joint(model: Model, **values) -> np.ndarray:
    """A configuration from the joint values given by joint name (1-dof joints)."""
    q = model.neutral_q()
    for name, v in values.items():
        q[model.jnt_qadr[model.joint_id(name)]] = v
    return q


def _guess_crank_slider(model: Model, theta: float) -> np.ndarray:
    p = CRANK_SLIDER
    C = p["crank"] * np.array([np.cos(theta), np.sin(theta)])
    x = C[0] + np.sqrt(p["coupler"] ** 2 - (p["offset"] - C[1]) ** 2)
    beta = np.arctan2(p["offset"] - C[1], x - C[0])
    return _by_joint(model, crank_joint=theta, coupler_joint=beta - theta, slider_joint=x)


def _guess_quick_return(model: Model, theta: float) -> np.ndarray:
    p = QUICK_RETURN
    P = np.array([0.0, p["crank_pivot"]]) + p["crank"] * np.array([np.cos(theta), np.sin(theta)])
    phi = np.arctan2(P[1], P[0])
    T = p["lever"] * np.array([np.cos(phi), np.sin(phi)])
    x = T[0] + np.sqrt(p["link"] ** 2 - (p["ram_height"] - T[1]) ** 2)
    gamma = np.arctan2(p["ram_height"] - T[1], x - T[0])
    return _by_joint(model, lever_joint=phi, block_joint=np.linalg.norm(P), crank_joint=theta,
                     link_joint=gamma - phi, ram_joint=x)


def _guess_four_bar(model: Model, theta: float) -> np.ndarray:
    p = FOUR_BAR
    beta, psi = _four_bar_angles(theta, (0, 0), (p["ground"], 0), p["crank"], p["coupler"], p["rocker"])
    return _by_joint(model, crank_joint=theta, coupler_joint=beta - theta, rocker_joint=psi)


def _guess_spatial_four_bar(model: Model, theta: float) -> np.ndarray:
    p = SPATIAL_FOUR_BAR
    C = p["crank"] * np.array([np.cos(theta), np.sin(theta), 0.0])
    P = np.asarray(p["rocker_pivot"], float)
    # rocker tip R = P + l (0, cos psi, sin psi); |R - C| = coupler: a cos psi + b sin psi = c
    d = P - C
    l, Lc = p["rocker"], p["coupler"]
    a, bb = 2 * l * d[1], 2 * l * d[2]
    c = Lc * Lc - d @ d - l * l
    rho, phase = np.hypot(a, bb), np.arctan2(bb, a)
    if abs(c) > rho:
        raise ValueError("spatial four bar: cannot close at this crank angle")
    psi = phase + np.arccos(c / rho)
    R = P + l * np.array([0.0, np.cos(psi), np.sin(psi)])
    u = rot_axis(Z, theta).T @ (R - C) / Lc  # coupler direction in crank axes
    q1, q2 = np.arctan2(u[1], u[0]), -np.arcsin(np.clip(u[2], -1, 1))
    q = _by_joint(model, crank_joint=theta, rocker_joint=psi)
    q[model.jnt_qadr[model.joint_id("coupler_joint")]:][:2] = (q1, q2)
    return q


def _spatial_crank_slider_pose(theta: float):
    """(slider roll, slider x, rod orientation in the world, wrist angle of an untwisted rod end) at the
    crank angle ``theta``: the rod joins the crank tip to the slider's wrist and lies normal to the
    wrist axis, which the slider's roll about the rail turns."""
    p = SPATIAL_CRANK_SLIDER
    C = p["crank"] * np.array([np.cos(theta), np.sin(theta), 0.0])
    rail = np.asarray(p["rail"], float)
    off = rail - C
    x = C[0] + np.sqrt(p["rod"] ** 2 - off[1] ** 2 - off[2] ** 2)
    S = np.array([x, rail[1], rail[2]])
    d = (S - C) / p["rod"]
    roll = np.arctan2(-d[1], d[2])  # slider roll about x: the wrist axis (0, cos, sin) normal to the rod
    W = rot_axis(X, roll) @ rot_axis(X, -0.5 * np.pi)  # wrist frame orientation in the world
    u = W.T @ d
    gamma = np.arctan2(u[1], u[0])
    return roll, x - rail[0], W @ rot_axis(Z, gamma), gamma


def _guess_spatial_crank_slider(model: Model, theta: float) -> np.ndarray:
    roll, x, R_rod, _ = _spatial_crank_slider_pose(theta)
    q = _by_joint(model, crank_joint=theta)
    q[model.jnt_qadr[model.joint_id("rod_joint")]:][:4] = rot_to_quat(rot_axis(Z, theta).T @ R_rod)
    q[model.jnt_qadr[model.joint_id("slider_joint")]:][:2] = (roll, x)
    return q


def _guess_chain(model: Model, theta: float) -> np.ndarray:
    p = FOUR_BAR
    k = (model.nb - 1) // 2
    q = model.neutral_q()
    ang = theta
    for j in range(k + 1):
        q[model.jnt_qadr[model.joint_id(f"L{j}_joint")]] = ang
        if j < k:
            beta, psi = _four_bar_angles(ang, (j * p["ground"], 0), ((j + 1) * p["ground"], 0), p["crank"],
                                         p["coupler"], p["rocker"])
            q[model.jnt_qadr[model.joint_id(f"c{j}_joint")]] = beta - ang
            ang = psi
    return q


_STATES = {
    # name: (guess(model, angle), default driver angle, driver, torque)
    "planar_crank_slider": (_guess_crank_slider, 0.8, "crank_joint", 2.0),
    "planar_quick_return": (_guess_quick_return, 0.6, "crank_joint", 5.0),
    "planar_four_bar": (_guess_four_bar, 1.2, "crank_joint", 3.0),
    "redundant_four_bar_ball": (_guess_four_bar, 1.2, "crank_joint", 3.0),
    "redundant_four_bar_revolute": (_guess_four_bar, 1.2, "crank_joint", 3.0),
    "spatial_four_bar": (_guess_spatial_four_bar, 0.7, "crank_joint", 2.0),
    "spatial_crank_slider": (_guess_spatial_crank_slider, SPATIAL_CRANK_SLIDER["reference_angle"], "crank_joint", 2.0),
}


def initial_state(model: Model, angle: float | None = None, tol: float = 1e-12) -> MechanismState:
    """The consistent initial state of a mechanism of this module (found by ``model.name``): the
    closed-form configuration at the driver angle ``angle`` (default: the mechanism's own), closed to
    ``tol`` by :func:`soadyn.loops.assemble` with the driving joint held, and zero velocity."""
    from ..loops import assemble

    name = model.name
    if name.startswith("four_bar_chain"):
        spec = (_guess_chain, 1.2, "L0_joint", 3.0)
    elif name in _STATES:
        spec = _STATES[name]
    else:
        raise ValueError(f"model: {name!r} is not a mechanism of soadyn.models.mechanisms")
    guess, default, driver, torque = spec
    theta = default if angle is None else float(angle)
    q = assemble(model, guess(model, theta), fixed=[driver], tol=tol)
    return MechanismState(q=q, qd=np.zeros(model.nv), driver=driver, torque=torque)
