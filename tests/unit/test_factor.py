"""The dense factorizations of the contact solvers (soadyn._kernels.factor) against numpy's."""

import numpy as np
import pytest

from soadyn._kernels import factor as F
from soadyn._kernels import lcp as K


def banded_spd(rng, n: int, b: int) -> np.ndarray:
    """A symmetric positive definite matrix with bandwidth ``b``: ``J J^T`` of a banded ``J`` plus a shift."""
    J = np.zeros((n, n))
    for i in range(n):
        lo = max(0, i - b // 2)
        J[i, lo:i + 1] = rng.standard_normal(i + 1 - lo)
    return J @ J.T + 1e-3 * np.eye(n)


@pytest.mark.parametrize("n, b", [(1, 0), (12, 2), (40, 6), (25, 24)])
def test_envelope_cholesky_is_numpys_factor(n, b):
    rng = np.random.default_rng(n + b)
    A = banded_spd(rng, n, b)
    L = A.copy()
    first = np.empty(n, dtype=np.int64)
    assert F.envelope_cholesky(L, first)
    # the envelope: no nonzero of A's lower triangle left of first[i], A[i, first[i]] nonzero
    for i in range(n):
        assert not np.any(A[i, :first[i]]) and A[i, first[i]] != 0.0
    ref = np.linalg.cholesky(A)
    np.testing.assert_allclose(np.tril(L), ref, rtol=0, atol=1e-12 * np.abs(ref).max())
    x = rng.standard_normal(n)
    y = x.copy()
    F.envelope_solve(L, first, y)
    np.testing.assert_allclose(y, np.linalg.solve(A, x), rtol=1e-9, atol=0)


def test_envelope_cholesky_reports_singular_and_indefinite_blocks():
    rng = np.random.default_rng(3)
    J = rng.standard_normal((6, 4))
    first = np.empty(6, dtype=np.int64)
    assert not F.envelope_cholesky(J @ J.T, first)  # rank 4 of 6
    D = np.diag([1.0, 2.0, -1.0, 3.0])
    assert not F.envelope_cholesky(D, first[:4])


def test_lu_solves_a_banded_nonsymmetric_block():
    rng = np.random.default_rng(5)
    n = 30
    A = banded_spd(rng, n, 4) + np.triu(np.tril(rng.standard_normal((n, n)), 2), -2)
    LU = A.copy()
    piv = np.empty(n, dtype=np.int64)
    ratio = F.lu_factor(LU, piv)
    assert ratio == pytest.approx(np.abs(np.diag(LU)).min() / np.abs(A).max(), rel=1e-12)  # the pivot ratio
    X = rng.standard_normal((n, 2))
    Y = X.copy()
    F.lu_solve(LU, piv, Y)
    np.testing.assert_allclose(Y, np.linalg.solve(A, X), rtol=1e-9, atol=1e-12)


def test_lu_reports_a_singular_block_and_an_empty_one():
    """A pivot ratio of 0 for a block of rank 3 of 4 and for a zero block; 1 for an empty one."""
    rng = np.random.default_rng(6)
    piv = np.empty(4, dtype=np.int64)
    J = rng.standard_normal((4, 3))
    assert F.lu_factor(J @ rng.standard_normal((3, 4)), piv) == 0.0
    assert F.lu_factor(np.zeros((4, 4)), piv) == 0.0
    assert F.lu_factor(np.zeros((0, 0)), piv[:0]) == 1.0
    assert not F.factor(J @ J.T, piv, False)


def test_factor_and_solve_by_cholesky_and_by_lu_agree():
    """A regularized contact block's solve by either factorization, and the active-set solve of the LCP
    kernels on it."""
    rng = np.random.default_rng(7)
    n = 20
    M = banded_spd(rng, n, 6)
    q = rng.standard_normal(n)
    idx = np.array([0, 2, 3, 7, 8, 9, 15, 19], dtype=np.int64)
    k = idx.size
    A = M[np.ix_(idx, idx)]
    x = {}
    for spd in (False, True):
        F_ = A.copy()
        piv = np.empty(k, dtype=np.int64)
        assert F.factor(F_, piv, spd)
        x[spd] = -q[idx]
        F.solve(F_, piv, spd, x[spd])
    np.testing.assert_allclose(x[True], x[False], rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(x[True], np.linalg.solve(A, -q[idx]), rtol=1e-10)
    z = np.full(n, np.nan)
    assert K.block_solve(A.copy(), q, idx, k, z)
    np.testing.assert_allclose(z[idx], x[False], rtol=1e-12)
    assert np.all(np.delete(z, idx) == 0.0)


@pytest.mark.parametrize("seed", range(4))
def test_lstsq_is_numpys_minimum_norm_solution(seed):
    """Square, tall and wide; full rank and rank-deficient (a symmetric positive semidefinite block of rank
    r as from coplanar contacts); consistent and inconsistent right-hand sides: the minimum-norm least-squares
    solution of LAPACK's gelsd, and the rank."""
    rng = np.random.default_rng(seed)
    for t in range(60):
        m, n = rng.integers(1, 30, size=2)
        if t % 3 == 0:
            n = m
        r = int(rng.integers(0, min(m, n) + 1))
        A = rng.standard_normal((m, r)) @ rng.standard_normal((r, n))
        if t % 3 == 0:
            B = rng.standard_normal((m, r))
            A = B @ B.T
        b = A @ rng.standard_normal(n) if t % 2 else rng.standard_normal(m)
        x = np.empty(n)
        rank = F.lstsq(A.copy(), b, 1e-13, x)
        ref, _, ref_rank, _ = np.linalg.lstsq(A, b, rcond=1e-13)
        assert rank == ref_rank
        assert np.linalg.norm(x - ref) <= 1e-8 * max(np.linalg.norm(ref), 1.0)
