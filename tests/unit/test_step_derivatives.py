"""Derivatives of the contact step (soadyn.step_derivatives) against central differences of Simulator.step
where the active set does not change, their degenerate points and refusals, and the kinematic Hessian
against central differences of the world Jacobian columns."""

import numpy as np
import pytest

import soadyn as sd
from soadyn import joints as J
from soadyn import loops as L
from soadyn.contact import ContactSettings
from soadyn.kinematic_hessian import KinematicHessian
from soadyn.spatial import Inertia, Transform
from soadyn.step_derivatives import step_derivatives
from tests.support import ALGORITHMS, assert_close

STEP_FD = 1e-5
"""Central differences of Simulator.step against the analytic step Jacobian (relative to max(1, |FD|)):
the step is an LCP solution whose round-off (about 1e-12 of the impulses) becomes 1e-7 of a difference
quotient at the step H."""
H = 1e-5
"""Finite-difference step (tangent space for q): small against the distance to an active-set change."""

FLOOR = np.eye(3)
WALL = np.array([[0.0, 0.0, -1.0], [0.0, 1.0, 0.0], [1.0, 0.0, 0.0]])  # outward normal -x
FLOOR_Y = np.array([[1.0, 0.0, 0.0], [0.0, 0.0, 1.0], [0.0, -1.0, 0.0]])  # outward normal +y


def fd_step(sim, q, qd, tau, h=H):
    """Central differences of ``sim.step`` in (q tangent, qd, tau): (dq+ (nv, 3nv), dqd+ (nv, 3nv))."""
    m = sim.model
    nv = m.nv
    q0, _ = sim.step(q, qd, tau)
    cq, cv = [], []
    for col in range(3 * nv):
        out = []
        for s in (1.0, -1.0):
            e = np.zeros(nv)
            e[col % nv] = s * h
            qq = sd.integrate(m, q, e) if col < nv else q
            a, b = sim.step(qq, qd + e if nv <= col < 2 * nv else qd, tau + e if col >= 2 * nv else tau)
            out.append((sd.difference(m, q0, a), b))
        cq.append((out[0][0] - out[1][0]) / (2 * h))
        cv.append((out[0][1] - out[1][1]) / (2 * h))
    return np.array(cq).T, np.array(cv).T


def check_fd(sim, q, qd, tau, modes, h=H):
    d = step_derivatives(sim, q, qd, tau)
    assert d.modes == modes, d.modes
    Fq, Fv = fd_step(sim, q, qd, tau, h)
    assert_close(np.hstack([d.dq_dq, d.dq_dqd, d.dq_dtau]), Fq, STEP_FD, "dq+/d(q, qd, tau)")
    assert_close(np.hstack([d.dqd_dq, d.dqd_dqd, d.dqd_dtau]), Fv, STEP_FD, "dqd+/d(q, qd, tau)")
    q1, qd1 = sim.step(q, qd, tau)
    assert_close(d.q_next, q1, 0.0, "q+")
    assert_close(d.qd_next, qd1, 0.0, "qd+")
    return d


def box_model(mu=0.5):
    b = sd.ModelBuilder("box", gravity=(0, 0, -9.81))
    b.add_body("box", "world", J.Free(), inertia=Inertia.box(1.0, (0.2, 0.2, 0.2)))
    b.add_geom("box_geom", "box", "box", (0.1, 0.1, 0.1), mu=mu)
    b.add_geom("floor", "world", "halfspace", mu=mu)
    return b.finalize()


def pendulum_wall():
    b = sd.ModelBuilder("pendulum_wall", gravity=(0, 0, -9.81))
    b.add_body("link", "world", J.Revolute((0, 1, 0)), inertia=Inertia(1.0, (0, 0, -1.0), np.diag([1e-3] * 3)))
    b.add_geom("bob", "link", "sphere", 0.05, placement=Transform.from_pose(translation=(0, 0, -1.0)), mu=0.3)
    b.add_geom("wall", "world", "halfspace", placement=(WALL, (0.3, 0, 0)), mu=0.3)
    return b.finalize()


def four_bar(floor_y=-10.0, mu=0.4):
    """The planar four bar with a pad on a slider along the coupler, touching a floor ``y = floor_y``."""
    Z = (0, 0, 1)

    def rod(m, length):
        return Inertia(m, (0.5 * length, 0, 0), np.diag([1e-3 * m, m * length ** 2 / 12, m * length ** 2 / 12]))

    b = sd.ModelBuilder("four_bar_contact", gravity=(0.0, -9.81, 0.0))
    b.add_body("crank", "world", J.Revolute(Z), None, rod(1.0, 0.5))
    b.add_body("coupler", "crank", J.Revolute(Z), Transform.from_pose(None, (0.5, 0, 0)), rod(2.0, 1.2))
    b.add_body("rocker", "world", J.Revolute(Z), Transform.from_pose(None, (1.0, 0, 0)), rod(1.5, 1.0))
    b.add_body("pad", "coupler", J.Prismatic((1, 0, 0)), Transform.from_pose(None, (0.6, 0, 0)),
               Inertia.sphere(0.3, 0.05))
    b.add_frame("coupler_end", "coupler", Transform.from_pose(None, (1.2, 0, 0)))
    b.add_frame("rocker_end", "rocker", Transform.from_pose(None, (1.0, 0, 0)))
    b.add_loop("pin", "rocker_end", "coupler_end", "planar_pin")
    b.add_geom("pad", "pad", "sphere", 0.05, mu=mu)
    b.add_geom("floor", "world", "halfspace", placement=(FLOOR_Y, (0, floor_y, 0)), mu=mu)
    return b.finalize()


def settings():
    """Every step solved cold: a warm-started answer is exact only to LCP_TOL, which differences at H would
    amplify (step_derivatives differentiates the cold step)."""
    return ContactSettings(warm_start=False)


def test_sphere_sliding_and_rolling_match_differences():
    sc = sd.models.sliding_sphere(v0=2.0, mu=0.3)
    sim = sd.Simulator(sc.model, dt=1e-3, contact=settings())
    q, qd = sc.start
    q = q.copy()
    q[2] -= 2e-4  # penetrating: away from the kink of the normal row's bias at gap = 0
    qd = qd + np.array([0.0, 5.0, 0.0, 0.0, 0.0, 0.0])
    d = check_fd(sim, q, qd, np.array([0.1, 0.0, 0.0, 0.5, 0.2, 0.0]), ("sliding",))
    assert d.correction and not d.degenerate
    sc = sd.models.rolling_sphere(speed=1.0)
    sim = sd.Simulator(sc.model, dt=1e-3, contact=settings())
    q, qd = sc.start
    q = q.copy()
    q[2] -= 1e-4
    check_fd(sim, q, qd, np.zeros(6), ("sticking",))


def test_box_resting_and_sliding_match_differences():
    sim = sd.Simulator(box_model(), dt=1e-3, contact=settings())
    q = np.array([0, 0, 0.1 - 1e-4, 0, 0, 0, 1.0])
    # four corners sticking: redundant rows, impulses not unique, the motion is
    d = check_fd(sim, q, np.zeros(6), np.zeros(6), ("sticking",) * 4)
    assert d.redundant and d.degenerate  # Lemke loads two corners; the other two touch without impulse
    th = 0.002
    q = np.array([0, 0, 0.1 - 1e-4, np.sin(th / 2), 0, 0, np.cos(th / 2)])
    check_fd(sim, q, np.array([0, 0, 0, 1.0, 0.2, 0]), np.zeros(6), ("sliding", "sliding", "separating", "separating"))


def test_pendulum_against_a_wall_matches_differences():
    sim = sd.Simulator(pendulum_wall(), dt=1e-3, contact=settings())
    th = np.arcsin(0.3 - 0.05 + 1e-4)
    d = check_fd(sim, np.array([-th]), np.array([-1.0]), np.array([0.5]), ("sticking",))
    assert d.redundant  # three contact rows on one dof


def test_four_bar_in_contact_matches_differences():
    m0 = four_bar()
    q = L.assemble(m0, np.array([-0.9, 1.2, 0.3, 0.0]), fixed=["crank_joint"])
    oR, op = sd.fk(m0, m0.data(), q)
    m = four_bar(op[list(m0.body_names).index("pad")][1] - 0.05 + 1e-4)
    sim = sd.Simulator(m, dt=1e-3, contact=settings())
    N = np.append(np.linalg.svd(L.constraint_jacobian(m, m.data(), q)[:, :3])[2][-1], 0.0)
    if (sd.frame_jacobian(m, m.data(), q, "pad", "world_aligned")[4] @ N) < 0:
        N = -N  # N lifts the pad
    check_fd(sim, q, 0.5 * N, np.zeros(4), ("separating",))
    check_fd(sim, q, -0.5 * N + np.array([0, 0, 0, 0.3]), np.zeros(4), ("sliding",))


def test_arm_pushing_a_turned_box_matches_differences():
    """The box-push scene: the arm's tip (a sphere) pressed on a face of the box turned by 0.1 rad (the face
    normal turns with the box), the box sliding on its three feet. The tip holds the box with its friction
    at the limit and no slip: differentiated on the sliding branch, which the differences follow."""
    from soadyn.experiments import box_push as bp

    m = bp.box_push_model()
    sim = sd.Simulator(m, dt=0.01, contact=settings())
    yaw, bx = 0.1, 0.45
    q = np.zeros(m.nq)
    q[2:5] = (bx, 0.0, bp.HEIGHT - 1e-4)
    q[5:9] = (0, 0, np.sin(yaw / 2), np.cos(yaw / 2))
    n, t = np.array([-np.cos(yaw), -np.sin(yaw), 0.0]), np.array([-np.sin(yaw), np.cos(yaw), 0.0])
    tip = np.array([bx, 0, 0]) + (bp.BOX_HALF[0] + bp.TIP - 1e-4) * n + 0.01 * t
    c2 = (tip @ tip - 2 * bp.LINK ** 2) / (2 * bp.LINK ** 2)
    q[1] = np.arccos(c2)
    q[0] = np.arctan2(tip[1], tip[0]) - np.arctan2(np.sin(q[1]), 1 + np.cos(q[1]))
    Jt = sd.frame_jacobian(m, m.data(), q, "tip", "world_aligned")[3:5, :2]
    qd = np.r_[np.linalg.solve(Jt, (-0.2 * n + 0.05 * t)[:2]), 0, 0, 0.2, 0.05, 0.01, 0]
    d = check_fd(sim, q, qd, np.r_[0.2, -0.3, np.zeros(6)], ("sliding",) * 4, h=3e-6)
    assert [i for i, _ in d.degenerate] == [0]


def test_degenerate_points_are_reported():
    sc = sd.models.sliding_sphere(v0=2.0, mu=0.3)
    sim = sd.Simulator(sc.model, dt=1e-3, contact=settings())
    q, qd = sc.start  # resting exactly at gap = 0
    d = step_derivatives(sim, q, qd)
    assert d.is_degenerate and any("gap = 0" in why for _, why in d.degenerate)
    q = q.copy()
    q[2] -= 2e-4
    assert not step_derivatives(sim, q, qd).is_degenerate


def test_refusals_name_the_cause():
    sc = sd.models.ball_drop(height=1.0, restitution=0.5)
    sim = sd.Simulator(sc.model, dt=1e-3, contact=settings())
    q = sc.start[0].copy()
    q[2] = sc.params["radius"] + 1e-3  # closes its 1 mm gap within the step at 2 m/s: a collision
    with pytest.raises(ValueError, match="collision phase"):
        step_derivatives(sim, q, np.array([0, 0, 0, 0, 0, -2.0]))
    with pytest.raises(ValueError, match="differentiates the contact step"):
        step_derivatives(sd.Simulator(sc.model, dt=1e-3), q, np.zeros(6))
    with pytest.raises(ValueError, match="Coulomb pyramid"):
        step_derivatives(sd.Simulator(sc.model, dt=1e-3, contact=ContactSettings(friction="viscous")), q, np.zeros(6))
    b = sd.ModelBuilder("universal_loop", gravity=(0, 0, -9.81))
    b.add_body("a", "world", J.Revolute((0, 0, 1)), inertia=Inertia.sphere(1.0, 0.1))
    b.add_body("b", "a", J.Revolute((1, 0, 0)), inertia=Inertia.sphere(1.0, 0.1))
    b.add_frame("anchor", "world")
    b.add_loop("u", "b", "anchor", "universal", axis=(1, 0, 0), axis2=(0, 1, 0))
    b.add_geom("ball", "b", "sphere", 0.1)
    b.add_geom("floor", "world", "halfspace", placement=(FLOOR, (0, 0, -1.0)))
    m = b.finalize()
    with pytest.raises(ValueError, match="universal loop"):
        step_derivatives(sd.Simulator(m, dt=1e-3, contact=settings()), np.zeros(2), np.zeros(2))


def test_kinematic_hessian_matches_differences_of_the_world_columns(rng):
    mix = tuple(t for t in sd.models.ALL_JOINTS if t != J.PLANAR)
    m = sd.models.auto_tree(6, branching=1.5, joint_mix=mix, seed=3)
    q = m.random_q(rng)
    kh = KinematicHessian(m, m.data(), q)
    h = 1e-6
    for i in range(m.nv):
        e = np.zeros(m.nv)
        e[i] = h
        Jp = KinematicHessian(m, m.data(), sd.integrate(m, q, e)).J
        Jm = KinematicHessian(m, m.data(), sd.integrate(m, q, -e)).J
        assert_close(kh.H[:, i, :], (Jp - Jm) / (2 * h), 1e-7, f"dJ/dq_{i}")
    # a body's world Jacobian is the frame Jacobian at its origin moved to the world origin
    b = m.nb - 1
    Jw = sd.frame_jacobian(m, m.data(), q, m.body_names[b], "world_aligned")
    p = kh.op[b]
    assert_close(kh.body_jacobian(b)[3:] + np.cross(kh.body_jacobian(b)[:3], p, axis=0), Jw[3:], ALGORITHMS, "v(o)")


def test_a_step_with_several_lcp_solutions_differentiates_the_simulators():
    """A state of the box push (the arm's tip holding the box on its three sliding feet) whose step LCP has
    several solutions with different velocities: the derivatives stand on the one the simulator took."""
    from soadyn.experiments import box_push

    m = box_push.box_push_model()
    sim = sd.Simulator(m, dt=0.01, contact=settings())
    q = np.array([-1.0964810954980102, 2.0860926129495083, 0.45619416737691271, -3.7559661084002193e-03,
                  5.9999999999999942e-02, 7.2474018208848538e-18, 2.8648612642065591e-16, 3.6121096354341083e-02,
                  9.9934742026892753e-01])
    qd = np.array([-2.1853451550143009e-03, -8.6104172818357444e-03, 1.5973179737073383e-15, 4.5926169606710215e-15,
                   1.9358917258887207e-02, 2.1511753955231272e-03, -1.3171966803405403e-03, -3.0113601167015904e-15])
    tau = np.array([-0.0963558494142141, -0.530757204124185, 0, 0, 0, 0, 0, 0])
    d = step_derivatives(sim, q, qd, tau)  # raises if it does not reproduce the simulator's step
    # which of the solutions the simulator takes (the tip sticking or sliding with the feet) turns on the
    # round-off of the Delassus matrix; the derivatives follow it, all four contacts closed
    assert len(d.modes) == 4 and set(d.modes) <= {"sticking", "sliding"}
    assert_close(d.qd_next, sim.step(q, qd, tau)[1], 0.0, "qd+")


# ----------------------------------------------------------------------------------------- box on box
SMALL = np.array([0.05, 0.04, 0.03])


def rotvec(v):
    from scipy.spatial.transform import Rotation

    return Rotation.from_rotvec(v).as_matrix()


def box_state(p, R, v=(0, 0, 0), w=(0, 0, 0)):
    """A free joint's ``q`` (position, scalar-last quaternion) and body-frame ``qd`` for a world velocity."""
    from scipy.spatial.transform import Rotation

    return np.r_[p, Rotation.from_matrix(R).as_quat()], np.r_[R.T @ np.asarray(w, float), R.T @ np.asarray(v, float)]


def box_on_box(base_free=False, base=(0.3, 0.3, 0.1), small=SMALL, base_R=FLOOR):
    """A small free box on a base box: fixed in the world, its top face at z = 0 (turned by ``base_R`` about
    its centre), or free on a floor."""
    b = sd.ModelBuilder("box_on_box", gravity=(0, 0, -9.81))
    if base_free:
        b.add_body("base", "world", J.Free(), inertia=Inertia.box(5.0, tuple(2 * np.array(base))))
        b.add_geom("base", "base", "box", base, mu=0.5)
        b.add_geom("floor", "world", "halfspace", mu=0.5)
    else:
        b.add_geom("base", "world", "box", base, placement=(base_R, (0, 0, -base[2])), mu=0.5)
    b.add_body("top", "world", J.Free(), inertia=Inertia.box(1.0, tuple(2 * np.array(small))))
    b.add_geom("top", "top", "box", small, mu=0.5)
    return b.finalize()


def check_geometry_fd(model, q, h=1e-6, tol=1e-8):
    """The contacts' dpoint, dnormal, dgap against central differences of the detected contacts (each
    matched to the nearest one found at the perturbed configurations), to ``tol`` relative."""
    from soadyn.contact.differential import step_contacts

    data, st = model.data(), settings()
    cs = step_contacts(model, data, q, st, KinematicHessian(model, data, q))
    for col in range(model.nv):
        e = np.zeros(model.nv)
        e[col] = h
        side = []
        for qq in (sd.integrate(model, q, e), sd.integrate(model, q, -e)):
            found = step_contacts(model, data, qq, st, KinematicHessian(model, data, qq))
            assert len(found) == len(cs)
            side.append([min(found, key=lambda f: np.abs(f.point - c.point).max() + abs(f.A - c.A)) for c in cs])
        for c, a, b in zip(cs, *side):
            assert_close(c.dpoint[:, col], (a.point - b.point) / (2 * h), tol, f"dpoint/dq_{col}")
            assert_close(c.dnormal[:, col], (a.normal - b.normal) / (2 * h), tol, f"dnormal/dq_{col}")
            assert_close(c.dgap[col], (a.gap - b.gap) / (2 * h), tol, f"dgap/dq_{col}")
    return cs


def test_box_corners_on_a_box_face_match_differences():
    """A small box turned by 0.15 rad about x on a fixed base: its two lower corners on the base's top face
    (the face clipping's incident corners), sliding."""
    m = box_on_box()
    th = 0.15
    R = rotvec((th, 0, 0))
    q, qd = box_state((0, 0, SMALL[1] * np.sin(th) + SMALL[2] * np.cos(th) - 1e-4), R, v=(0.5, 0.1, 0))
    assert len(check_geometry_fd(m, q)) == 2
    sim = sd.Simulator(m, dt=1e-3, contact=settings())
    check_fd(sim, q, qd, np.zeros(6), ("sliding", "sliding"))
    assert not step_derivatives(sim, q, qd).degenerate


def test_box_overhanging_a_box_corner_matches_differences():
    """The small box, tilted by a few mrad, over the base's corner (0.3, 0.3): the clipped polygon holds an
    incident corner, two incident edges crossing the base's side planes and the base's corner carried onto
    the incident face, all penetrating."""
    m = box_on_box()
    R = rotvec((0.001, 0, 0)) @ rotvec((0, -0.0015, 0))
    q, qd = box_state((0.29, 0.285, SMALL[2] - 6e-4), R, v=(0.3, 0.2, 0))
    cs = check_geometry_fd(m, q)
    on = sorted(int(np.isclose(c.point[0], 0.3, atol=1e-12)) + int(np.isclose(c.point[1], 0.3, atol=1e-12))
                for c in cs)
    assert on == [0, 1, 1, 2] and all(c.gap < 0 for c in cs)  # a corner, two crossings, the base's corner
    check_fd(sd.Simulator(m, dt=1e-3, contact=settings()), q, qd, np.zeros(6),
             ("sliding", "separating", "separating", "sliding"))


def test_box_resting_flat_on_a_box_takes_the_base_face():
    """Face on face, the small box held by the larger base face: the separating axis test picks the base's
    face on either side of the tie, so the normals turn with the base (fixed), not with the small box."""
    m = box_on_box()
    q, qd = box_state((0.05, -0.02, SMALL[2] - 5e-4), FLOOR)
    cs = check_geometry_fd(m, q)
    assert len(cs) == 4 and all(np.abs(c.dnormal).max() == 0.0 for c in cs)
    d = check_fd(sd.Simulator(m, dt=1e-3, contact=settings()), q, qd, np.zeros(6), ("sticking",) * 4)
    assert not any("parallel faces" in why for _, why in d.degenerate)


def test_crossed_parallel_faces_are_reported_degenerate():
    """Equal faces crossed at 45 degrees (the clipped octagon reduced to 4 points): neither face holds the
    other, the reference switches with the tilt, every contact is reported."""
    m = box_on_box(base=(0.05, 0.05, 0.05), small=(0.05, 0.05, 0.03))
    R = rotvec((0, 0, np.pi / 4 + 0.1))
    q, qd = box_state((0.003, -0.002, 0.03 - 3e-4), R, v=(0.2, 0.1, 0))
    d = step_derivatives(sd.Simulator(m, dt=1e-3, contact=settings()), q, qd)
    assert len(d.modes) == 4 and {i for i, why in d.degenerate if "parallel faces" in why} == {0, 1, 2, 3}


def test_box_on_a_free_box_matches_differences():
    """The base free on the floor (tilted by 2 mrad, sliding on two corners, turning), the small box tilted on
    its top face and pushed: the face's normal turns with the base."""
    m = box_on_box(base_free=True, base=(0.2, 0.2, 0.05))
    th, Rb = 0.15, rotvec((0, 0.002, 0))
    pb = np.array([0, 0, 0.05 - 1e-4 + 0.2 * np.sin(0.002)])
    qb, qdb = box_state(pb, Rb, v=(0.2, 0, 0), w=Rb @ np.array([0, 0, 0.3]))
    Rt = Rb @ rotvec((th, 0, 0))
    qt, qdt = box_state(pb + Rb @ np.array([0.01, 0.02, 0.05 + SMALL[1] * np.sin(th) + SMALL[2] * np.cos(th) - 1e-4]),
                        Rt, v=(0.5, 0.1, 0))
    q = np.r_[qb, qt]
    cs = check_geometry_fd(m, q)
    assert any(np.abs(c.dnormal).max() > 0.1 for c in cs if c.B == 0)  # the top box's contacts on the base
    tau = np.r_[np.zeros(6), 0.1, 0, 0.2, 1, 0.5, 0]
    check_fd(sd.Simulator(m, dt=1e-3, contact=settings()), q, np.r_[qdb, qdt], tau,
             ("sliding", "sliding", "separating", "separating", "sliding", "sliding"))


def test_crossed_box_edges_match_differences():
    """A box edge across a box edge (the base turned by 45 degrees about x, the small box about y): the
    edge-edge axis, one contact, sliding and sticking."""
    from soadyn.contact.geometry import collide

    m = box_on_box(base=(0.3, 0.1, 0.1), small=(0.05, 0.2, 0.05), base_R=rotvec((np.pi / 4, 0, 0)))
    R = rotvec((0, np.pi / 4 + 0.1, 0)) @ rotvec((0, 0, 0.2))
    q, _ = box_state((0.01, 0.02, 0.1 * (np.sqrt(2) - 1) + 0.05 * np.sqrt(2)), R)
    c = collide(m, m.data(), q)
    q[2] -= (c.gap[0] + 2e-4) / c.normal[0, 2]  # 0.2 mm deep
    cs = check_geometry_fd(m, q)
    assert len(cs) == 1 and abs(cs[0].normal @ R[:, 1]) < 1e-12 and abs(cs[0].normal[0]) < 1e-12  # _|_ both edges
    sim = sd.Simulator(m, dt=1e-3, contact=settings())
    check_fd(sim, q, box_state(q[:3], R, v=(0.2, 0.3, 0), w=(0.3, 0, 0))[1], np.zeros(6), ("sliding",))
    check_fd(sim, q, np.zeros(6), np.zeros(6), ("sticking",))


def test_box_corner_over_a_box_edge_matches_differences():
    """A corner 4 mm from an edge of the base (separated within the margin: the exact closest points, a corner
    and a point sliding on the edge), closing at 5 m/s so that its row is active within the step. The normal
    turns by 17 per rad of the small box (a lever of 0.07 m over the gap); sliding at 3 m/s, the step's
    Jacobian curves enough that differences at 1e-5 carry 2.5e-5 of it (2.5e-7 at the step 1e-6 taken)."""
    m = box_on_box()
    d = np.array([1.0, 0.0, 1.0]) / np.sqrt(2)  # from the base's edge (x = 0.3, z = 0) toward the corner
    u = -SMALL / np.linalg.norm(SMALL)
    axis = np.cross(u, -d)
    R = rotvec(axis / np.linalg.norm(axis) * np.arccos(u @ -d))  # the corner -SMALL points at the edge
    q, _ = box_state(np.array([0.3, 0.0, 0.0]) + 0.004 * d + R @ SMALL, R)
    cs = check_geometry_fd(m, q, h=1e-7, tol=1e-7)
    assert len(cs) == 1 and abs(cs[0].gap - 0.004) < 1e-12 and np.abs(cs[0].normal - d).max() < 1e-12
    sim = sd.Simulator(m, dt=1e-3, contact=settings())
    qd = box_state(q[:3], R, v=-5.0 * d + np.array([0, 0.2, 0]), w=(0.2, 0.1, 0))[1]
    assert not check_fd(sim, q, qd, np.zeros(6), ("sticking",)).degenerate
    qd = box_state(q[:3], R, v=-5.0 * d + np.array([0, 3.0, 0]), w=(0.2, 0.1, 0))[1]
    assert not check_fd(sim, q, qd, np.zeros(6), ("sliding",), h=1e-6).degenerate
