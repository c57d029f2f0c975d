"""No wrong LCP answer reported solved: 10^4 random problems per class through the solver kernels (Lemke with
and without its regularized runs, PPM), each answer checked here from the equations.

Classes: P-matrices (SPD and non-symmetric diagonally dominant); friction-pyramid contact LCPs
(Jain 2014 Eqs. 11-15) from rank-deficient ``W = J M^-1 J^T`` with more contact rows than dofs, some with
duplicated (coplanar-like) contacts; PSD rank-deficient ``J J^T`` with feasible ``q``; degenerate ``q``
(entries in {-1, 0, 1}, ties in the ratio test); and infeasible PSD problems (``q`` outside every feasible
cone), where any "solved" answer would be wrong. Solvable classes must all be solved.
"""

import numpy as np
import pytest

from soadyn._kernels import lcp as K
from soadyn._kernels import ppm as KP

N_PROBLEMS = 10_000
"""Random problems per class."""
CHECK_TOL = 2 * K.LCP_TOL
"""This file's check of an answer reported solved (the kernels accept at ``LCP_TOL``; 2x for round-off in
recomputing ``w`` here)."""


def pyramid(W, v, mu, nf):
    """The Stewart-Trinkle LCP (Jain 2014 Eq. 14) of contacts with rows ``(n, t1, t2)`` and Delassus ``W``."""
    k = W.shape[0] // 3
    nb = k * (nf + 1)
    P = np.zeros((nb, 3 * k))
    th = 2.0 * np.pi * np.arange(nf) / nf
    for i in range(k):
        P[i * (nf + 1), 3 * i] = 1.0
        P[i * (nf + 1) + 1:(i + 1) * (nf + 1), 3 * i + 1] = np.cos(th)
        P[i * (nf + 1) + 1:(i + 1) * (nf + 1), 3 * i + 2] = np.sin(th)
    M = np.zeros((nb + k, nb + k))
    M[:nb, :nb] = P @ W @ P.T
    q = np.zeros(nb + k)
    q[:nb] = P @ v
    for i in range(k):
        r0 = i * (nf + 1)
        M[r0 + 1:r0 + 1 + nf, nb + i] = 1.0
        M[nb + i, r0 + 1:r0 + 1 + nf] = -1.0
        M[nb + i, r0] = mu
    return M, q


def p_matrix(rng):
    n = int(rng.integers(1, 13))
    if rng.random() < 0.5:
        B = rng.normal(size=(n, n))
        M = B @ B.T + 0.1 * np.eye(n)
    else:
        M = rng.normal(size=(n, n))
        M += np.diag(np.abs(M).sum(1) + 0.1)
    return M, rng.normal(size=n)


def contact(rng):
    """Contacts on a body with ``d`` dofs, ``3k > d`` rows: ``v = J u`` (+ open gaps), always solvable."""
    k = int(rng.integers(1, 6))
    d = int(rng.integers(1, 3 * k)) if rng.random() < 0.5 else 6
    J = rng.normal(size=(3 * k, d))
    if k >= 2 and rng.random() < 0.5:  # a repeated contact (exactly, or 1e-3 apart)
        J[3:6] = J[0:3] + (rng.random() < 0.5) * 1e-3 * rng.normal(size=(3, d))
    A = rng.normal(size=(d, d))
    W = J @ np.linalg.solve(A @ A.T + 0.1 * np.eye(d), J.T)
    v = J @ rng.normal(size=d)
    v[0::3] += (rng.random() < 0.5) * np.maximum(rng.normal(size=k), 0.0)
    return pyramid(W, v, rng.uniform(0.0, 1.5), int(rng.choice([4, 8])))


def psd_feasible(rng):
    m = int(rng.integers(2, 14))
    J = rng.normal(size=(m, int(rng.integers(1, m))))
    M = J @ J.T
    return M, -M @ np.maximum(rng.normal(size=m), 0.0) + np.maximum(rng.normal(size=m), 0.0)


def degenerate_q(rng):
    m = int(rng.integers(2, 14))
    J = rng.normal(size=(m, int(rng.integers(1, m + 1))))
    M = J @ J.T + (rng.random() < 0.5) * 0.1 * np.eye(m)
    y = (rng.random(m) < 0.5).astype(float)
    q = -M @ y + rng.choice([0.0, 0.0, 1.0], size=m)  # feasible (z = y), many exact zeros and ties
    return M, q


def psd_infeasible(rng):
    """``J J^T`` with a ``y >= 0`` in the null space of ``J^T`` and ``q . y < 0``: by Farkas' lemma no
    ``z >= 0`` has ``J J^T z + q >= 0``."""
    m = int(rng.integers(2, 14))
    y = np.abs(rng.normal(size=m)) + 0.1
    G = rng.normal(size=(m, int(rng.integers(1, m))))
    J = G - np.outer(y, y @ G) / (y @ y)
    q = rng.normal(size=m)
    q -= (q @ y / (y @ y) + rng.uniform(0.01, 1.0)) * y
    return J @ J.T, q


def relative_error(M, q, z):
    """The natural residual from the equations, relative to ``|q|_inf`` (``z`` in the units of ``w``)."""
    w = M @ z + q
    r = np.abs(np.minimum(np.abs(M).max() * z, w)).max()
    return r / np.abs(q).max() if np.abs(q).max() > 0.0 else r


def run(gen, solve, seed):
    """``(solved, wrong and reported solved, worst residual of a solved answer)`` over N_PROBLEMS."""
    rng = np.random.default_rng(seed)
    solved = wrong = 0
    worst = 0.0
    for _ in range(N_PROBLEMS):
        M, q = gen(rng)
        z = np.zeros(q.size)
        if solve(M, q, z) == K.LCP_OK:
            solved += 1
            r = relative_error(M, q, z)
            worst = max(worst, r)
            wrong += not r <= CHECK_TOL
    return solved, wrong, worst


def lemke(tikhonov):
    def solve(M, q, z):
        return K.lemke(M, q, 0, tikhonov, z, np.empty(q.size), np.empty(4))
    return solve


def ppm(M, q, z):
    n = q.size
    return KP.ppm(M, np.arange(n), np.zeros((0, n)), np.zeros((0, n)), q, 2 * n, 1e-10, np.zeros(0, dtype=np.int64),
                  np.zeros(n, dtype=np.int64), z, np.empty(n), np.empty(KP.PPM_INFO_SIZE))


@pytest.mark.parametrize("name, gen, solvable", [
    ("P-matrix", p_matrix, True),
    ("contact pyramid, rank-deficient W", contact, True),
    ("PSD rank-deficient", psd_feasible, True),
    ("degenerate q", degenerate_q, True),
    ("infeasible PSD", psd_infeasible, False),
])
def test_no_wrong_answer_reported_solved(name, gen, solvable):
    solved, wrong, worst = run(gen, lemke(1e-10), seed=7)
    assert wrong == 0, f"{name}: {wrong} wrong answers reported solved (worst residual {worst:.2e})"
    if solvable:
        assert solved == N_PROBLEMS, f"{name}: {N_PROBLEMS - solved} solvable problems not solved"
    else:
        assert solved == 0, f"{name}: {solved} infeasible problems reported solved"


@pytest.mark.parametrize("gen", [psd_feasible, degenerate_q])
def test_ppm_never_reports_a_wrong_answer(gen):
    solved, wrong, worst = run(gen, ppm, seed=8)
    assert wrong == 0, f"{wrong} wrong PPM answers reported solved (worst residual {worst:.2e})"
    assert solved >= N_PROBLEMS // 2  # most; the others end in an honest failure and Lemke takes over


def test_plain_lemke_fails_honestly_where_regularized_runs_succeed():
    """Without the regularized runs, degenerate contact problems may end in a ray or a wrong basis: then the
    status says so (no wrong answer reported solved either way)."""
    solved, wrong, worst = run(contact, lemke(0.0), seed=7)
    assert wrong == 0, f"{wrong} wrong answers reported solved (worst residual {worst:.2e})"
