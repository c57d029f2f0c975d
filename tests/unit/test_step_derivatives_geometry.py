"""Derivatives of the contact step (soadyn.step_derivatives) through the two-ball model's sliding centres:
capsule on capsule (the closest points of two segments) and a sphere on a box edge, against central
differences of the detection and of Simulator.step where the active set does not change."""

import numpy as np
import pytest

import soadyn as sd
from soadyn import joints as J
from soadyn.spatial import Inertia
from soadyn.step_derivatives import step_derivatives
from tests.unit.test_step_derivatives import box_state, check_fd, check_geometry_fd, rotvec, settings

RADIUS, HALF = 0.05, 0.3
"""The capsules' radius and half-length."""

ALONG_X = rotvec((0, np.pi / 2, 0))  # a capsule's axis (its z) along world x


def capsules(base_free=False):
    """A capsule along x: fixed in the world (under gravity) or free (no gravity); a free capsule on it."""
    b = sd.ModelBuilder("capsules", gravity=(0, 0, 0.0 if base_free else -9.81))
    rod = Inertia.box(1.0, (2 * RADIUS, 2 * RADIUS, 2 * (HALF + RADIUS)))
    if base_free:
        b.add_body("base", "world", J.Free(), inertia=rod)
    b.add_geom("base", "base" if base_free else "world", "capsule", (RADIUS, HALF), placement=(ALONG_X, (0, 0, 0)),
               mu=0.5)
    b.add_body("top", "world", J.Free(), inertia=rod)
    b.add_geom("top", "top", "capsule", (RADIUS, HALF), mu=0.5)
    return b.finalize()


def test_crossed_capsules_match_differences():
    """A capsule lying across the fixed one at 110 degrees, 0.1 mm deep (both closest points inside their
    segments): at rest it sticks, pushed and turning it slides, the closest point sliding along both axes."""
    m = capsules()
    R = rotvec((0, 0, 0.35)) @ rotvec((-np.pi / 2, 0, 0))  # the top capsule's axis (-sin 0.35, cos 0.35, 0)
    q, _ = box_state((0.02, 0.0, 2 * RADIUS - 1e-4), R)
    cs = check_geometry_fd(m, q)
    assert len(cs) == 1 and abs(cs[0].gap + 1e-4) < 1e-12 and np.abs(cs[0].dnormal).max() > 0.1
    sim = sd.Simulator(m, dt=1e-3, contact=settings())
    d = check_fd(sim, q, np.zeros(6), np.zeros(6), ("sticking",))
    assert not d.degenerate
    d = check_fd(sim, q, box_state(q[:3], R, v=(0.3, 0.2, 0), w=(0, 0, 0.5))[1], np.zeros(6), ("sliding",))
    assert not d.degenerate


def test_capsule_end_on_a_free_capsule_matches_differences():
    """Two free capsules without gravity, pressed together: the top one tilted by 0.4 rad, its lower end on
    the middle of the other (a segment end against the closest point of a segment), both moving. The step's
    positions here jump by about 1e-9 m between perturbations beyond 8e-6 (second differences of
    Simulator.step's q+ in the base's height, its velocities smooth), which differences at 1e-5 would turn
    into 5e-5: they take a step of 1e-6."""
    m = capsules(base_free=True)
    a = 0.4
    R = rotvec((-(np.pi / 2 - a), 0, 0))  # axis (0, cos a, sin a)
    end = np.array([0.05, 0.0, 2 * RADIUS - 1e-4])
    qt, _ = box_state(end + HALF * R[:, 2], R)
    qb, _ = box_state((0, 0, 0), np.eye(3))
    q = np.r_[qb, qt]
    cs = check_geometry_fd(m, q)
    assert len(cs) == 1 and abs(cs[0].gap + 1e-4) < 1e-12
    sim = sd.Simulator(m, dt=1e-3, contact=settings())
    tau = np.r_[0, 0, 0, 0, 0, 2.0, 0, 0, 0, R.T @ np.array([0, 0, -2.0])]
    qd = np.r_[box_state((0, 0, 0), np.eye(3), v=(-0.1, 0, 0), w=(0, 0, 0.4))[1],
               box_state(qt[:3], R, v=(0.2, 0.1, 0), w=(0.3, 0, 0.2))[1]]
    d = check_fd(sim, q, qd, tau, ("sliding",), h=1e-6)
    assert not d.degenerate
    d = check_fd(sim, q, np.zeros(12), tau, ("sticking",), h=1e-6)
    assert not d.degenerate


def test_parallel_capsules_are_refused():
    """A capsule lying along the fixed one: the detection's two contacts at the ends of the overlap merge into
    one under any tilt, which no one-sided model follows; the error names the contact and the cause."""
    m = capsules()
    q, _ = box_state((0.1, 0.0, 2 * RADIUS - 1e-4), ALONG_X)
    with pytest.raises(ValueError, match=r"contact 0 \(capsule-capsule\): parallel segments"):
        step_derivatives(sd.Simulator(m, dt=1e-3, contact=settings()), q, np.zeros(6))


# ----------------------------------------------------------------------------------------- sphere on a box edge
EDGE_BOX = np.array([0.3, 0.1, 0.1])
RIDGE = rotvec((np.pi / 4, 0, 0))  # the box turned by 45 degrees about x: an edge along x on top


def sphere_on_edge(box_free=False, support="box"):
    """A free sphere on the top edge of a box turned by 45 degrees about x (the edge on the x axis), fixed in
    the world (under gravity) or free (no gravity); or, ``support="capsule"``, on a fixed capsule along x."""
    b = sd.ModelBuilder("sphere_on_edge", gravity=(0, 0, 0.0 if box_free else -9.81))
    if box_free:
        b.add_body("box", "world", J.Free(), inertia=Inertia.box(2.0, tuple(2 * EDGE_BOX)))
    if support == "capsule":
        b.add_geom("capsule", "world", "capsule", (RADIUS, HALF), placement=(ALONG_X, (0, 0, 0)), mu=0.5)
    else:
        b.add_geom("box", "box" if box_free else "world", "box", tuple(EDGE_BOX),
                   placement=(RIDGE, (0, 0, -EDGE_BOX[2] * np.sqrt(2))), mu=0.5)
    b.add_body("ball", "world", J.Free(), inertia=Inertia.sphere(1.0, RADIUS))
    b.add_geom("ball", "ball", "sphere", RADIUS, mu=0.5)
    return b.finalize()


def ball_over_the_edge(beta, reach=RADIUS, depth=1e-4):
    """The sphere's centre ``reach - depth`` from the x axis at ``beta`` from the vertical (within the box
    edge's 45 degrees)."""
    return (reach - depth) * np.array([0.0, np.sin(beta), np.cos(beta)]) + np.array([0.02, 0.0, 0.0])


@pytest.mark.parametrize("support, reach", [("box", RADIUS), ("capsule", 2 * RADIUS)])
def test_sphere_on_a_box_edge_or_a_capsule_matches_differences(support, reach):
    """The sphere 0.1 mm deep on the fixed edge (or on the capsule's side: the ball sliding on its axis),
    0.3 rad from the vertical (friction 0.5 holds it): at rest it sticks, pushed along the edge it slides."""
    m = sphere_on_edge(support=support)
    q, _ = box_state(ball_over_the_edge(0.3, reach), np.eye(3))
    cs = check_geometry_fd(m, q)
    assert len(cs) == 1 and abs(cs[0].normal @ [0, np.sin(0.3), np.cos(0.3)] - 1) < 1e-12
    sim = sd.Simulator(m, dt=1e-3, contact=settings())
    assert not check_fd(sim, q, np.zeros(6), np.zeros(6), ("sticking",)).degenerate
    qd = box_state(q[:3], np.eye(3), v=(0.4, -0.02, 0), w=(0, 0, 1.0))[1]
    assert not check_fd(sim, q, qd, np.zeros(6), ("sliding",)).degenerate


def test_sphere_on_the_edge_of_a_free_box_matches_differences():
    """No gravity: the sphere pressed on the edge of a free box (the edge turns and moves with it), both
    moving."""
    m = sphere_on_edge(box_free=True)
    qb, _ = box_state((0, 0, 0), np.eye(3))
    qs, _ = box_state(ball_over_the_edge(-0.2), np.eye(3))
    q = np.r_[qb, qs]
    assert len(check_geometry_fd(m, q)) == 1
    sim = sd.Simulator(m, dt=1e-3, contact=settings())
    tau = np.r_[0, 0, 0, 0, 0, 1.0, 0, 0, 0, 0, 0, -1.0]
    qd = np.r_[box_state((0, 0, 0), np.eye(3), v=(0, 0.1, 0.05), w=(0.3, 0.2, 0.4))[1],
               box_state(qs[:3], np.eye(3), v=(0.3, 0, -0.02))[1]]
    assert not check_fd(sim, q, qd, tau, ("sliding",)).degenerate
    assert not check_fd(sim, q, np.zeros(12), tau, ("sticking",)).degenerate
