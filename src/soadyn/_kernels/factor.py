"""Dense factorizations of the contact solvers' blocks: LU with partial pivoting for any square block, and
Cholesky on the envelope (profile) of a symmetric positive definite one. Both skip the zeros of a banded
block (the contacts of a stack, each box touching the next, ordered pair by pair): ``O(n b^2)`` for
bandwidth ``b`` rather than ``O(n^3)``. Every factorization reports a numerically singular block
(:data:`SINGULAR_TOL`) instead of dividing by a vanishing pivot. A rank-deficient block gets its
minimum-norm least-squares solution (:func:`lstsq`).

All of it is written out here rather than called from LAPACK: numba reaches LAPACK through SciPy's
OpenBLAS, whose threads, once a call has woken them, spin for a while after it. A contact step that calls it
now and then (the least-squares solve of Lemke's answer, :func:`.lcp.polish`) kept a second core busy: a
resting 10-box stack took 91 us of CPU per step for 57 us of wall time.
"""

import math

import numpy as np

from .._jit import jit

SINGULAR_TOL = 1e-13
"""A block is numerically singular when an LU pivot is below this times its largest entry, or the square of
a Cholesky pivot below this times its largest diagonal entry."""


@jit
def lu_factor(A, piv):
    """In-place LU factorization with partial pivoting, ``P A = L U`` (unit lower ``L`` below the diagonal,
    ``U`` on and above; row swaps in ``piv``). Returns the pivot ratio ``min |pivot| / max |A_ij|`` (1 for an
    empty ``A``), or 0 when a pivot is not above :data:`SINGULAR_TOL` times the largest entry (numerically
    singular; the factorization stops there): a caller with a pivot tolerance of its own compares the ratio
    with it. Zeros are skipped: a row with a zero multiplier is not updated, and a row's update stops at the
    last nonzero of the pivot row, so a banded matrix (the active block of a stack's contacts, each box
    touching the next) costs ``O(n b^2)``, not ``O(n^3)``."""
    n = A.shape[0]
    scale = 0.0
    for i in range(n):
        for j in range(n):
            scale = max(scale, abs(A[i, j]))
    tol = SINGULAR_TOL * scale
    if scale == 0.0:
        return 1.0 if n == 0 else 0.0
    smallest = math.inf
    for k in range(n):
        p = k
        for i in range(k + 1, n):
            if abs(A[i, k]) > abs(A[p, k]):
                p = i
        if not abs(A[p, k]) > tol:
            return 0.0
        smallest = min(smallest, abs(A[p, k]))
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
    return smallest / scale


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
    return envelope_cholesky(A, piv) if spd else lu_factor(A, piv) > 0.0


@jit
def solve(F, piv, spd, b):
    """Overwrite ``b`` (n,) with ``A^-1 b`` from :func:`factor`."""
    if spd:
        envelope_solve(F, piv, b)
    else:
        lu_solve(F, piv, b.reshape((b.shape[0], 1)))


@jit
def householder(A, r0, col, v):
    """The Householder reflection ``H = I - 2 v v^T / v^T v`` that maps ``A[r0:, col]`` (column ``col``, rows
    ``r0 ..``) onto ``alpha e_1`` (Golub and Van Loan 2013, Alg. 5.1.1, sign chosen against cancellation):
    ``v`` (rows ``r0 ..``) written and ``(alpha, v^T v)`` returned; ``alpha = 0`` for a zero column (no
    reflection)."""
    m = A.shape[0]
    s = 0.0
    for i in range(r0, m):
        s += A[i, col] * A[i, col]
    alpha = math.sqrt(s)
    if alpha == 0.0:
        return 0.0, 0.0
    if A[r0, col] > 0.0:
        alpha = -alpha
    vv = 0.0
    for i in range(r0, m):
        v[i] = A[i, col]
    v[r0] -= alpha
    for i in range(r0, m):
        vv += v[i] * v[i]
    return alpha, vv


@jit
def reflect(A, r0, c0, v, vv):
    """``A[r0:, c0:] = H A[r0:, c0:]`` for the reflection ``(v, vv)`` of :func:`householder`."""
    m, n = A.shape
    for c in range(c0, n):
        d = 0.0
        for i in range(r0, m):
            d += v[i] * A[i, c]
        d *= 2.0 / vv
        for i in range(r0, m):
            A[i, c] -= d * v[i]


@jit
def reflect_vector(x, r0, v, vv):
    """``x[r0:] = H x[r0:]`` for the reflection ``(v, vv)`` of :func:`householder`."""
    d = 0.0
    for i in range(r0, x.shape[0]):
        d += v[i] * x[i]
    d *= 2.0 / vv
    for i in range(r0, x.shape[0]):
        x[i] -= d * v[i]


@jit
def lstsq(A, b, rcond, x):
    """The minimum-norm least-squares solution ``x`` of ``A x = b`` (``A`` (m, n), destroyed; ``b`` (m,)) by a
    complete orthogonal decomposition (Golub and Van Loan 2013, Sec. 5.5.2): Householder QR with column
    pivoting ``A P = Q [R11 R12; 0 0]`` (Alg. 5.4.1), the rank ``r`` the number of diagonal entries of ``R``
    above ``rcond`` times the first, then ``[R11 R12]^T = Z [L; 0]`` by a second QR, so that
    ``x = P Z [L^-T (Q^T b)_r; 0]``. Gives what LAPACK's ``gelsd`` gives (SVD) to round-off for ``rcond`` well
    below the gap in the singular values. Returns the rank."""
    m, n = A.shape
    y = b.copy()
    perm = np.arange(n)
    v = np.empty(max(m, n))
    p = min(m, n)
    r = p
    for j in range(p):
        best, jb = -1.0, j  # the column of largest remaining norm (recomputed: no downdating)
        for c in range(j, n):
            s = 0.0
            for i in range(j, m):
                s += A[i, c] * A[i, c]
            if s > best:
                best, jb = s, c
        if jb != j:
            for i in range(m):
                A[i, j], A[i, jb] = A[i, jb], A[i, j]
            perm[j], perm[jb] = perm[jb], perm[j]
        alpha, vv = householder(A, j, j, v)
        if alpha == 0.0 or (j > 0 and abs(alpha) <= rcond * abs(A[0, 0])):
            r = j
            break
        reflect(A, j, j + 1, v, vv)
        reflect_vector(y, j, v, vv)
        A[j, j] = alpha
        for i in range(j + 1, m):
            A[i, j] = 0.0
    # [R11 R12]^T (n, r) = Z [L; 0]: the reflections kept in V's rows
    T = np.zeros((n, r))
    for i in range(r):
        for c in range(i, n):
            T[c, i] = A[i, c]
    V = np.zeros((r, n))
    vvs = np.zeros(r)
    for j in range(r):
        alpha, vv = householder(T, j, j, V[j])
        if alpha != 0.0:
            reflect(T, j, j + 1, V[j], vv)
            vvs[j] = vv
            T[j, j] = alpha
    # L^T u = y_r (L = T[:r, :r] upper triangular, so L^T lower), then x_p = Z [u; 0]
    xp = np.zeros(n)
    for i in range(r):
        s = y[i]
        for c in range(i):
            s -= T[c, i] * xp[c]
        xp[i] = s / T[i, i]
    for j in range(r - 1, -1, -1):
        if vvs[j] > 0.0:
            reflect_vector(xp, j, V[j], vvs[j])
    for i in range(n):
        x[perm[i]] = xp[i]
    return r
