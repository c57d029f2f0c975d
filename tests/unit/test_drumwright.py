"""Drumwright 2015 contact-space solvers (soadyn.contact.drumwright): no-slip, viscous and Coulomb-pyramid
steps on rigid boxes and random Delassus matrices, closed forms, the PPM fallback, bad input."""

import logging

import numpy as np
import pytest

from soadyn.contact import drumwright as dw
from soadyn.lcp import LCPError
from tests.support import ALGORITHMS, SAME_MATH, assert_close

COMPLEMENTARITY = 1e-9
"""Relative tolerance of the complementarity conditions (Drumwright 2015 Eqs. 25-28, the LCP of Eq. 10's
form): violations of ``p >= 0``, ``v >= 0`` and ``|p v|`` relative to the problem's velocity and impulse
scales."""
DT = 0.01
GRAVITY = np.array([0.0, 0.0, -9.81])


# ------------------------------------------------------------------------------------------- problems
def box_problem(corners, vel, mass=2.0, inertia=(0.1, 0.2, 0.3), nfree_rows=None, normal=(0.0, 0.0, 1.0)):
    """A free rigid box (velocity ``[w; v]`` of its centre, world axes) touching a plane at points ``corners``
    (relative to the centre) with the given normal: ``W = G M^-1 G^T`` and ``vf = G (V + dt M^-1 f_g)``.
    Tangents: ``t1`` the x axis made orthogonal to ``normal``, ``t2 = n x t1``. ``nfree_rows``: extra rows of
    ``G`` put first as bilateral rows."""
    n = np.asarray(normal, dtype=float)
    n /= np.linalg.norm(n)
    t1 = np.array([1.0, 0.0, 0.0]) - n[0] * n
    t1 /= np.linalg.norm(t1)
    t2 = np.cross(n, t1)
    rows = [] if nfree_rows is None else list(nfree_rows)
    for r in corners:
        for d in (n, t1, t2):
            rows.append(np.concatenate([np.cross(r, d), d]))
    G = np.array(rows)
    Minv = np.diag(np.concatenate([1.0 / np.asarray(inertia), np.full(3, 1.0 / mass)]))
    f = np.concatenate([np.zeros(3), mass * GRAVITY])
    W = G @ Minv @ G.T
    vf = G @ (np.asarray(vel, dtype=float) + DT * Minv @ f)
    return 0.5 * (W + W.T), vf, G, Minv


CORNERS = [np.array([sx * 0.2, sy * 0.1, -0.05]) for sx in (-1, 1) for sy in (-1, 1)]


def random_problem(rng, nb, m, nv, duplicate=False):
    """``W = G M^-1 G^T`` and ``vf = G x`` (consistent) for a random ``G`` with a redundant bilateral row
    (when ``nb >= 2``) and, if ``duplicate``, the last contact a copy of the first."""
    G = rng.normal(size=(nb + 3 * m, nv))
    if nb >= 2:
        G[1] = 2.0 * G[0]
    if duplicate and m >= 2:
        G[nb + 3 * (m - 1):] = G[nb:nb + 3]
    A = rng.normal(size=(nv, nv))
    Minv = np.linalg.inv(A @ A.T + nv * np.eye(nv))
    W = G @ Minv @ G.T
    return 0.5 * (W + W.T), G @ rng.normal(size=nv)


def normal_rows(nfree, m):
    return nfree + 3 * np.arange(m)


def check_normal_complementarity(sol, nfree, m, vscale, pscale):
    N = normal_rows(nfree, m)
    v, p = sol.v[N], sol.p[N]
    assert v.min(initial=0.0) >= -COMPLEMENTARITY * vscale, f"normal velocity {v.min():.3e} < 0"
    assert p.min(initial=0.0) >= -COMPLEMENTARITY * pscale, f"normal impulse {p.min():.3e} < 0"
    assert np.abs(v * p).max(initial=0.0) <= COMPLEMENTARITY * vscale * pscale, "normal p v != 0"


# -------------------------------------------------------------------------------------------- no-slip
@pytest.mark.parametrize("solver", ["ppm", "lemke"])
def test_noslip_box_sliding_in_stops_dead(solver):
    # four coplanar corners counted twice (8 contacts, degenerate), sliding, spinning about the normal and
    # moving into the plane
    W, vf, G, Minv = box_problem(CORNERS + CORNERS, vel=[0.0, 0.0, 0.5, 0.4, -0.3, -0.1])
    sol = dw.noslip(W, vf, 0, solver=solver)
    assert_close(sol.v, np.zeros_like(sol.v), ALGORITHMS, "post-step constraint velocity")
    # the box's velocity after the step is zero: the impulses stop it and hold it against gravity
    V = Minv @ G.T @ sol.p + (np.linalg.pinv(G) @ vf)
    assert_close(V, np.zeros(6), ALGORITHMS, "box velocity")
    assert sol.rank == 3, "tangential rows of a flat contact patch span vx, vy, wz"
    assert not sol.fallback and sol.lcp_size == 8
    check_normal_complementarity(sol, 0, 8, 1.0, 1.0)


def test_noslip_random_problems_ppm_matches_lemke():
    rng = np.random.default_rng(11)
    for trial in range(60):
        nb, m, nv = int(rng.integers(0, 4)), int(rng.integers(1, 10)), int(rng.integers(3, 30))
        W, vf = random_problem(rng, nb, m, nv, duplicate=trial % 2 == 0)
        a = dw.noslip(W, vf, nb, solver="ppm")
        b = dw.noslip(W, vf, nb, solver="lemke")
        vscale = max(1.0, np.abs(vf).max())
        N = normal_rows(nb, m)
        tang = np.concatenate([N + 1, N + 2, np.arange(nb)]).astype(int)
        assert_close(a.v[tang], np.zeros(tang.size), ALGORITHMS, "no-slip tangential/bilateral velocity",
                     scale=vscale)
        check_normal_complementarity(a, nb, m, vscale, max(1.0, np.abs(a.p).max()))
        assert_close(a.v, b.v, ALGORITHMS, "post-step velocity, PPM vs Lemke", scale=vscale)
        assert not a.fallback


def test_noslip_separating_contacts_get_no_impulse():
    W, vf, _, _ = box_problem(CORNERS, vel=[0.0, 0.0, 0.0, 0.0, 0.0, 3.0])  # lifting off faster than gravity
    sol = dw.noslip(W, vf, 0)
    assert_close(sol.p, np.zeros_like(sol.p), 0.0, "impulses of a separating box")
    assert sol.active == 0 and sol.pivots == 0
    # Eqs. 45-46 hold at every contact given, separating or not: a box leaving sideways is held tangentially
    W, vf, _, _ = box_problem(CORNERS, vel=[0.0, 0.0, 0.0, 0.2, 0.0, 3.0])
    sol = dw.noslip(W, vf, 0)
    N = normal_rows(0, 4)
    assert np.all(sol.v[N] > 0.1) and not np.any(sol.p[N]), "the box separates without normal impulse"
    assert_close(sol.v[np.concatenate([N + 1, N + 2])], np.zeros(8), ALGORITHMS, "tangential velocity")


def test_noslip_warm_start_from_previous_active_set():
    W, vf, _, _ = box_problem(CORNERS + CORNERS, vel=[0.3, -0.2, 0.5, 0.4, -0.3, -0.1])
    cold = dw.noslip(W, vf, 0)
    active = np.flatnonzero(cold.p[normal_rows(0, 8)] > 0.0)
    warm = dw.noslip(W, vf, 0, warm=active)
    assert warm.pivots == 0 < cold.pivots, "warm start from the solution's active set needs no pivot"
    assert_close(warm.v, cold.v, ALGORITHMS, "warm-started velocity")


def test_ppm_failure_falls_back_to_lemke_and_logs(caplog):
    rng = np.random.default_rng(5)
    W, vf = random_problem(rng, 0, 12, 60)
    with caplog.at_level(logging.WARNING, logger="soadyn.contact.drumwright"):
        sol = dw.noslip(W, vf, 0, max_pivots=1)
    ref = dw.noslip(W, vf, 0, solver="lemke")
    assert sol.fallback and sol.ppm_status == "max_pivots"
    assert any("solved by Lemke" in r.getMessage() for r in caplog.records), "fallback not logged"
    assert_close(sol.v, ref.v, ALGORITHMS, "fallback solution")


# -------------------------------------------------------------------------------------------- viscous
def test_viscous_point_mass_closed_form():
    # unit point mass: W = I; approaching the plane at 1 m/s, sliding at v_t: p_n = 1, p_t = -dt mu v_t+,
    # v_t+ = v_t / (1 + dt mu)
    for mu_v in (0.0, 3.0, 50.0):
        for vt in ([2.0, 0.0], [-1.0, 0.5]):
            vf = np.array([-1.0, *vt])
            sol = dw.viscous(np.eye(3), vf, 0, mu_v, DT)
            vt_plus = np.array(vt) / (1.0 + DT * mu_v)
            assert_close(sol.v, [0.0, *vt_plus], SAME_MATH, f"velocity (mu_v={mu_v})")
            assert_close(sol.p, [1.0, *(-DT * mu_v * vt_plus)], SAME_MATH, f"impulse (mu_v={mu_v})")


@pytest.mark.parametrize("solver", ["ppm", "lemke"])
def test_viscous_forces_oppose_and_scale_with_sliding_velocity(solver):
    corners = CORNERS[:3]
    for scale_v in (1.0, 2.0):
        W, vf, _, _ = box_problem(corners, vel=[0.0, 0.0, 0.3, scale_v * 0.8, scale_v * -0.4, -0.2])
        for mu_v in (0.5, 1.0, 4.0):
            mu = mu_v * np.array([1.0, 2.0, 0.5])
            sol = dw.viscous(W, vf, 0, mu, DT, solver=solver)
            N = normal_rows(0, 3)
            for d in (1, 2):
                # linear in mu_v and in the (post-step) sliding velocity: p_t = -dt mu_v v_t
                assert_close(sol.p[N + d], -DT * mu * sol.v[N + d], SAME_MATH, "viscous impulse", scale=1.0)
            vt = sol.v[np.concatenate([N + 1, N + 2])]
            pt = sol.p[np.concatenate([N + 1, N + 2])]
            assert np.all(pt * vt <= SAME_MATH) and np.sum(pt * vt) < 0.0, "viscous impulses do not oppose sliding"
            check_normal_complementarity(sol, 0, 3, 1.0, 1.0)


def test_viscous_random_problems_ppm_matches_lemke():
    rng = np.random.default_rng(12)
    for trial in range(40):
        nb, m, nv = int(rng.integers(0, 4)), int(rng.integers(1, 10)), int(rng.integers(3, 30))
        W, vf = random_problem(rng, nb, m, nv, duplicate=trial % 2 == 1)
        mu_v = rng.uniform(0.0, 5.0, size=m)
        a = dw.viscous(W, vf, nb, mu_v, DT)
        b = dw.viscous(W, vf, nb, mu_v, DT, solver="lemke")
        vscale = max(1.0, np.abs(vf).max())
        assert_close(a.v, b.v, ALGORITHMS, "viscous velocity, PPM vs Lemke", scale=vscale)
        assert_close(a.v[:nb], np.zeros(nb), ALGORITHMS, "bilateral velocity", scale=vscale)
        check_normal_complementarity(a, nb, m, vscale, max(1.0, np.abs(a.p).max()))


# -------------------------------------------------------------------------------------------- Coulomb
def test_coulomb_point_mass_slides_and_sticks():
    # unit point mass hitting the plane at 1 m/s: p_n = 1; sliding at 2 m/s along t1 with mu = 0.5 loses
    # mu p_n = 0.5; sliding at 0.2 m/s sticks
    sol = dw.coulomb(np.eye(3), [-1.0, 2.0, 0.0], 0, 0.5)
    assert_close(sol.p, [1.0, -0.5, 0.0], SAME_MATH, "sliding impulse")
    assert_close(sol.v, [0.0, 1.5, 0.0], SAME_MATH, "sliding velocity")
    sol = dw.coulomb(np.eye(3), [-1.0, 0.2, -0.1], 0, 0.5)
    assert_close(sol.v, [0.0, 0.0, 0.0], SAME_MATH, "sticking velocity")
    assert sol.lcp_size == 6


@pytest.mark.parametrize("mu", [0.05, 0.4, 100.0])
def test_coulomb_pyramid_complementarity(mu):
    # a box sliding and spinning onto a plane: the n_f = 4 pyramid's conditions
    W, vf, _, _ = box_problem(CORNERS, vel=[0.1, -0.2, 0.6, 0.5, -0.2, -0.3])
    sol = dw.coulomb(W, vf, 0, mu, 4)
    N = normal_rows(0, 4)
    pn, pt = sol.p[N], sol.p[np.stack([N + 1, N + 2], axis=1)]
    vt = sol.v[np.stack([N + 1, N + 2], axis=1)]
    check_normal_complementarity(sol, 0, 4, 1.0, 1.0)
    tol = COMPLEMENTARITY
    # inside the pyramid: sum_k beta_k <= mu p_n with d_k = +-t1, +-t2, so |p_t1| + |p_t2| <= mu p_n
    assert np.all(np.abs(pt).sum(axis=1) <= mu * pn + tol), "friction outside the pyramid"
    # maximal dissipation: lambda = max_k(-d_k . v_t) = |v_t|_inf; beta_k > 0 only where -d_k . v_t = lambda,
    # and a sliding contact (lambda > 0) is on the pyramid's boundary
    for i in range(4):
        lam = np.abs(vt[i]).max()
        if lam > tol:
            assert abs(np.abs(pt[i]).sum() - mu * pn[i]) <= tol * max(1.0, pn[i]), f"contact {i}: slides inside"
            for d in range(2):
                if abs(pt[i, d]) > tol:
                    assert -np.sign(pt[i, d]) * vt[i, d] >= lam - tol, f"contact {i}: friction not opposing"
    assert not sol.fallback and sol.lcp_size == 4 * 6
    if mu == 100.0:
        assert_close(sol.v, np.zeros(12), ALGORITHMS, "high friction: the box sticks")


def test_coulomb_with_bilateral_rows_and_redundancy():
    rng = np.random.default_rng(13)
    for _ in range(20):
        nb, m, nv = int(rng.integers(2, 5)), int(rng.integers(1, 6)), int(rng.integers(4, 20))
        W, vf = random_problem(rng, nb, m, nv)
        sol = dw.coulomb(W, vf, nb, rng.uniform(0.0, 1.0, size=m), 4)
        vscale = max(1.0, np.abs(vf).max())
        assert_close(sol.v[:nb], np.zeros(nb), ALGORITHMS, "bilateral velocity", scale=vscale)
        assert sol.rank == nb - 1, "the redundant bilateral row is dropped"
        check_normal_complementarity(sol, nb, m, vscale, max(1.0, np.abs(sol.p).max()))


def test_solve_dispatches_on_friction_model():
    W, vf = np.eye(3), np.array([-1.0, 2.0, 0.0])
    assert dw.solve("no_slip", W, vf).friction == "no_slip"
    assert dw.solve("viscous", W, vf, mu_v=1.0, dt=DT).friction == "viscous"
    assert_close(dw.solve("coulomb", W, vf, mu=0.5).v, [0.0, 1.5, 0.0], SAME_MATH, "coulomb via solve")
    assert dw.FRICTION_MODELS == ("coulomb", "viscous", "no_slip")


# ------------------------------------------------------------------------------------------ bad input
def test_bad_input():
    W, vf = np.eye(3), np.array([-1.0, 2.0, 0.0])
    with pytest.raises(ValueError, match="mu_v"):
        dw.viscous(W, vf, 0, -0.1, DT)
    with pytest.raises(ValueError, match="mu"):
        dw.coulomb(W, vf, 0, [-1.0])
    with pytest.raises(ValueError, match="dt"):
        dw.viscous(W, vf, 0, 1.0, 0.0)
    bad = W.copy()
    bad[0, 0] = np.nan
    with pytest.raises(ValueError, match="W: contains NaN"):
        dw.noslip(bad, vf)
    with pytest.raises(ValueError, match="vf: contains NaN"):
        dw.noslip(W, [np.nan, 0.0, 0.0])
    with pytest.raises(ValueError, match="W: not symmetric"):
        dw.noslip(np.triu(np.ones((3, 3))), vf)
    with pytest.raises(ValueError, match="no independent row"):
        dw.noslip(np.zeros((3, 3)), vf)
    with pytest.raises(ValueError, match="no independent row"):
        dw.coulomb(np.diag([1.0, 0.0, 0.0, 0.0]), [0.0, -1.0, 0.0, 0.0], 1, 0.5)
    with pytest.raises(ValueError, match="nfree"):
        dw.noslip(np.eye(4), np.zeros(4), 0)
    with pytest.raises(ValueError, match="solver"):
        dw.noslip(W, vf, solver="pgs")
    with pytest.raises(ValueError, match="n_f"):
        dw.coulomb(W, vf, 0, 0.5, n_f=3)
    with pytest.raises(ValueError, match="friction"):
        dw.solve("dry", W, vf)
    with pytest.raises(ValueError, match="warm"):
        dw.noslip(W, vf, warm=[3])


def test_inconsistent_problem_raises_lcp_error():
    # a bilateral row equal to the normal row, with vf asking the normal to approach while the joint is
    # held: no impulse can satisfy both
    W = np.array([[1.0, 1.0, 0.0, 0.0], [1.0, 1.0, 0.0, 0.0], [0.0, 0.0, 1.0, 0.0], [0.0, 0.0, 0.0, 1.0]])
    vf = np.array([0.0, -1.0, 0.0, 0.0])
    for solver in ("ppm", "lemke"):
        with pytest.raises(LCPError):
            dw.noslip(W, vf, 1, solver=solver)
    with pytest.raises(LCPError):
        dw.viscous(W, vf, 1, 1.0, DT)


# ------------------------------------------------------------------------------------------- benchmark
def test_bench_sweep_agrees_and_fits_growth():
    from soadyn.bench import drumwright as bench

    r = bench.run(quick=True, log=lambda s: None, contacts=(4, 16, 32))
    assert [row["contacts"] for row in r["rows"]] == [4, 16, 32]
    for row in r["rows"]:
        assert max(row["agreement"].values()) <= bench.AGREE
        assert row["stats"]["noslip_ppm"]["pivots"] <= 2 * row["contacts"], "PPM pivots beyond 2m"
        assert not row["stats"]["noslip_ppm"]["fallback"] and not row["stats"]["viscous_ppm"]["fallback"]
    assert set(r["growth"]) == set(bench.METHODS) and np.isfinite(r["growth"]["noslip_ppm"])
    assert "growth exponent" in bench.format_table(r)
