"""Dense factorizations of the contact solvers' blocks: LU with partial pivoting for any square block, and
Cholesky on the envelope (profile) of a symmetric positive definite one. Both skip the zeros of a banded
block (the contacts of a stack, each box touching the next, ordered pair by pair): ``O(n b^2)`` for
bandwidth ``b`` rather than ``O(n^3)``. Every factorization reports a numerically singular block
(:data:`SINGULAR_TOL`) instead of dividing by a vanishing pivot.
"""

import math

from .._jit import jit

SINGULAR_TOL = 1e-13
"""A block is numerically singular when an LU pivot is below this times its largest entry, or the square of
a Cholesky pivot below this times its largest diagonal entry."""


@jit
def lu_factor(A, piv):
    """In-place LU factorization with partial pivoting, ``P A = L U`` (unit lower ``L`` below the diagonal,
    ``U`` on and above; row swaps in ``piv``). Returns False when a pivot is below :data:`SINGULAR_TOL` times
    the largest entry of ``A`` (numerically singular). Zeros are skipped: a row with a zero multiplier is not
    updated, and a row's update stops at the last nonzero of the pivot row, so a banded matrix (the active
    block of a stack's contacts, each box touching the next) costs ``O(n b^2)``, not ``O(n^3)``."""
    n = A.shape[0]
    scale = 0.0
    for i in range(n):
        for j in range(n):
            scale = max(scale, abs(A[i, j]))
    tol = SINGULAR_TOL * scale
    if scale == 0.0:
        return n == 0
    for k in range(n):
        p = k
        for i in range(k + 1, n):
            if abs(A[i, k]) > abs(A[p, k]):
                p = i
        if not abs(A[p, k]) > tol:
            return False
        piv[k] = p
        if p != k:
            for j in range(n):
                t = A[k, j]
                A[k, j] = A[p, j]
                A[p, j] = t
        inv = 1.0 / A[k, k]
        last = k  # the last nonzero of the pivot row
        for j in range(n - 1, k, -1):
            if A[k, j] != 0.0:
                last = j
                break
        for i in range(k + 1, n):
            l = A[i, k] * inv
            A[i, k] = l
            if l != 0.0:
                for j in range(k + 1, last + 1):
                    A[i, j] -= l * A[k, j]
    return True


@jit
def lu_solve(LU, piv, X):
    """Overwrite ``X`` (n x m) with ``A^-1 X`` from :func:`lu_factor` (row operations on whole rows of X)."""
    n = LU.shape[0]
    m = X.shape[1]
    for k in range(n):
        p = piv[k]
        if p != k:
            for j in range(m):
                t = X[k, j]
                X[k, j] = X[p, j]
                X[p, j] = t
    for i in range(n):  # L y = P x
        for k in range(i):
            l = LU[i, k]
            if l != 0.0:
                for j in range(m):
                    X[i, j] -= l * X[k, j]
    for i in range(n - 1, -1, -1):  # U x = y
        for k in range(i + 1, n):
            u = LU[i, k]
            if u != 0.0:
                for j in range(m):
                    X[i, j] -= u * X[k, j]
        inv = 1.0 / LU[i, i]
        for j in range(m):
            X[i, j] *= inv


@jit
def envelope_cholesky(A, first):
    """In-place Cholesky factor ``L`` (``A = L L^T``) of the symmetric positive definite ``A`` (n x n; only its
    lower triangle is read, ``L`` overwrites it) on its envelope: ``first[i]`` receives the column of the first
    nonzero of row ``i`` (at most ``i``), and ``L`` has no nonzero to its left (George and Liu 1981, Ch. 4),
    so row ``i`` costs ``O((i - first[i])^2)``. Returns False when a pivot ``L_ii^2`` is not above
    :data:`SINGULAR_TOL` times the largest diagonal entry (``A`` singular, or not positive definite)."""
    n = A.shape[0]
    dmax = 0.0
    for i in range(n):
        dmax = max(dmax, A[i, i])
        f = 0
        while f < i and A[i, f] == 0.0:
            f += 1
        first[i] = f
    tol = SINGULAR_TOL * dmax
    for i in range(n):
        fi = first[i]
        for j in range(fi, i):  # L_ij = (A_ij - sum_p L_ip L_jp) / L_jj over the columns both rows hold
            s = A[i, j]
            for p in range(max(fi, first[j]), j):
                s -= A[i, p] * A[j, p]
            A[i, j] = s / A[j, j]
        d = A[i, i]
        for p in range(fi, i):
            d -= A[i, p] * A[i, p]
        if not d > tol:
            return False
        A[i, i] = math.sqrt(d)
    return True


@jit
def envelope_solve(L, first, b):
    """Overwrite ``b`` (n,) with ``A^-1 b`` from :func:`envelope_cholesky`: ``L y = b`` by rows, then
    ``L^T x = y`` by the columns of ``L^T`` (the rows of ``L``), both on the envelope."""
    n = L.shape[0]
    for i in range(n):
        s = b[i]
        for p in range(first[i], i):
            s -= L[i, p] * b[p]
        b[i] = s / L[i, i]
    for i in range(n - 1, -1, -1):
        b[i] /= L[i, i]
        x = b[i]
        for p in range(first[i], i):
            b[p] -= L[i, p] * x


@jit
def factor(A, piv, spd):
    """Factor the square ``A`` in place: Cholesky on its envelope when ``spd`` (symmetric positive definite;
    ``piv``: the envelope, :func:`envelope_cholesky`), else LU with partial pivoting (``piv``: the row swaps,
    :func:`lu_factor`). False when ``A`` is numerically singular."""
    return envelope_cholesky(A, piv) if spd else lu_factor(A, piv)


@jit
def solve(F, piv, spd, b):
    """Overwrite ``b`` (n,) with ``A^-1 b`` from :func:`factor`."""
    if spd:
        envelope_solve(F, piv, b)
    else:
        lu_solve(F, piv, b.reshape((b.shape[0], 1)))
