"""The modified PPM I and FIND-INDICES (Drumwright 2015, Algorithms 1-2) against Lemke's method, numpy's rank
and an external QP solver (proxsuite) on PSD problems ``W = G M^-1 G^T`` from full and deficient ``G``."""

import numpy as np
import pytest

from soadyn import lcp
from soadyn.contact import drumwright as dw
from tests.support import ALGORITHMS, EXTERNAL, assert_close


def psd_problem(rng, n, nv, deficient):
    """``(W, q)`` with ``W = G M^-1 G^T`` (n x n, rank <= nv) and ``q = G x`` in its range (the contact case:
    ``vf = G v``), so the LCP has a solution; ``deficient``: a third of the rows repeat others (duplicated
    contacts) and ``nv < n``."""
    G = rng.normal(size=(n, nv))
    if deficient:
        k = max(1, n // 3)
        G[n - k:] = G[:k] * rng.uniform(0.5, 2.0, size=(k, 1))
    A = rng.normal(size=(nv, nv))
    Minv = np.linalg.inv(A @ A.T + nv * np.eye(nv))
    W = G @ Minv @ G.T
    return 0.5 * (W + W.T), G @ rng.normal(size=nv)


CASES = [(n, nv, d) for n, nv, d in [(4, 6, False), (12, 20, False), (30, 40, False), (12, 5, True), (30, 12, True),
                                      (40, 40, True), (60, 8, True)]]


@pytest.mark.parametrize("n, nv, deficient", CASES)
def test_ppm_agrees_with_lemke_pivots_within_2n(n, nv, deficient):
    rng = np.random.default_rng(1000 * n + nv)
    for _ in range(15):
        W, q = psd_problem(rng, n, nv, deficient)
        a = lcp.ppm(W, q)
        b = lcp.lemke(W, q)
        scale = max(1.0, np.abs(q).max())
        assert_close(a.w, b.w, ALGORITHMS, "w = W z + q, PPM vs Lemke", scale=scale)
        assert_close(a.w, W @ a.z + q, ALGORITHMS, "PPM w", scale=scale)
        assert a.residual <= ALGORITHMS * scale, f"PPM residual {a.residual:.2e}"
        assert a.pivots <= 2 * n, f"PPM pivots {a.pivots} > 2n = {2 * n}"
        assert np.count_nonzero(a.z) <= np.linalg.matrix_rank(W), "more positive z than rank(W) (Theorem 1)"
        if not deficient:  # PD: unique z
            assert_close(a.z, b.z, ALGORITHMS, "z, PPM vs Lemke", scale=max(1.0, np.abs(b.z).max()))


def test_ppm_warm_start_from_its_own_solution():
    rng = np.random.default_rng(3)
    W, q = psd_problem(rng, 30, 12, True)
    cold = lcp.ppm(W, q)
    warm = lcp.ppm(W, q, warm=np.flatnonzero(cold.z > 0.0))
    assert warm.pivots == 0 < cold.pivots
    assert_close(warm.z, cold.z, ALGORITHMS, "warm-started z")


def test_ppm_cycling_guard_and_bad_input():
    rng = np.random.default_rng(4)
    W, q = psd_problem(rng, 20, 20, False)
    assert lcp.ppm(W, q).pivots > 1
    with pytest.raises(lcp.LCPError, match="ppm"):
        lcp.ppm(W, q, max_pivots=1)
    with pytest.raises(ValueError, match="M"):
        lcp.ppm(np.triu(np.ones((3, 3))), np.ones(3))
    with pytest.raises(ValueError, match="warm"):
        lcp.ppm(np.eye(3), -np.ones(3), warm=[5])


# ------------------------------------------------------------------------------------------ FIND-INDICES
def box_corner_rows(corners, normal=(0.0, 0.0, 1.0)):
    """Rows ``[(r x d)^T, d^T]`` of the normal and two tangents at each corner of a rigid box."""
    n = np.asarray(normal, dtype=float)
    t1 = np.array([1.0, 0.0, 0.0])
    t2 = np.cross(n, t1)
    return np.array([np.concatenate([np.cross(r, d), d]) for r in corners for d in (n, t1, t2)])


@pytest.mark.parametrize("rows_of", ["all", "tangents", "normals"])
def test_find_indices_maximal_rank_on_degenerate_contact_sets(rows_of):
    corners = [np.array([sx * 0.2, sy * 0.1, -0.05]) for sx in (-1, 1) for sy in (-1, 1)]
    cases = {"resting box, 4 corners twice": corners + corners,
             "duplicated corners": corners + corners[:2] + corners[1:3]}
    Minv = np.diag([10.0, 5.0, 3.0, 0.5, 0.5, 0.5])
    for name, cs in cases.items():
        G = box_corner_rows(cs)
        W = G @ Minv @ G.T
        idx = np.arange(G.shape[0])
        cand = {"all": idx, "tangents": idx[idx % 3 != 0], "normals": idx[idx % 3 == 0]}[rows_of]
        sel = lcp.find_indices(W, cand)
        rank = np.linalg.matrix_rank(G[cand])
        assert sel.size == rank == np.linalg.matrix_rank(G[sel]), f"{name}: {sel.size} rows, rank {rank}"
        assert set(sel) <= set(cand) and list(sel) == sorted(sel), f"{name}: rows not taken in order"
        np.linalg.cholesky(W[np.ix_(sel, sel)])  # non-singular block
        expected = {"all": 6, "tangents": 3, "normals": 3}[rows_of]
        assert rank == expected, f"{name}: rank {rank}"


def test_find_indices_random_deficient():
    rng = np.random.default_rng(6)
    for _ in range(30):
        n, nv = int(rng.integers(2, 40)), int(rng.integers(1, 20))
        W, _ = psd_problem(rng, n, nv, True)
        sel = lcp.find_indices(W)
        assert sel.size == np.linalg.matrix_rank(W), "FIND-INDICES does not reach rank(W)"
        assert sel[0] == 0 and np.all(np.diff(sel) > 0)


# ------------------------------------------------------------------------------- QP solver (external)
def qp_solve(H, g, nonneg):
    """``min 1/2 x^T H x + g^T x`` s.t. ``x[nonneg] >= 0`` by proxsuite (dense ProxQP; H PSD)."""
    proxsuite = pytest.importorskip("proxsuite")
    n = g.size
    C = np.eye(n)[nonneg]
    res = proxsuite.proxqp.dense.solve(H, g, None, None, C, np.zeros(C.shape[0]), np.full(C.shape[0], 1e20),
                                       eps_abs=1e-12, eps_rel=0.0, max_iter=10000)
    return res.x


@pytest.mark.external
@pytest.mark.parametrize("n, nv, deficient", CASES)
def test_ppm_and_lemke_agree_with_qp(n, nv, deficient):
    rng = np.random.default_rng(7 * n + nv)
    for _ in range(5):
        W, q = psd_problem(rng, n, nv, deficient)
        x = qp_solve(W, q, np.arange(n))
        w_qp = W @ x + q
        scale = max(1.0, np.abs(q).max())
        for res in (lcp.ppm(W, q), lcp.lemke(W, q)):
            assert_close(res.w, w_qp, EXTERNAL, "w vs the QP solution", scale=scale)


@pytest.mark.external
def test_noslip_and_viscous_agree_with_qp():
    # no-slip: min 1/2 p^T W p + vf^T p with p_n >= 0 (bilateral and tangential rows free); viscous: the
    # same with the tangential rows scaled by s = sqrt(dt mu_v) and an identity added there
    rng = np.random.default_rng(8)
    dt = 0.01
    for trial in range(10):
        nb, m, nv = int(rng.integers(0, 3)), int(rng.integers(2, 12)), int(rng.integers(10, 40))
        W, vf = psd_problem(rng, nb + 3 * m, nv, trial % 2 == 0)
        N = nb + 3 * np.arange(m)
        scale = max(1.0, np.abs(vf).max())
        p = qp_solve(W, vf, N)
        assert_close(dw.noslip(W, vf, nb).v, W @ p + vf, EXTERNAL, "no-slip velocity vs QP", scale=scale)
        mu_v = rng.uniform(0.0, 20.0, size=m)
        s = np.ones(nb + 3 * m)
        s[N + 1] = s[N + 2] = np.sqrt(dt * mu_v)
        Ws = s[:, None] * W * s[None, :]
        Ws[N + 1, N + 1] += 1.0
        Ws[N + 2, N + 2] += 1.0
        u = qp_solve(Ws, s * vf, N)
        ref = W @ (s * u) + vf
        assert_close(dw.viscous(W, vf, nb, mu_v, dt).v, ref, EXTERNAL, "viscous velocity vs QP", scale=scale)
