"""FIND-INDICES and the modified principal pivoting method PPM I for LCPs with PSD matrices
(Drumwright 2015, Secs. V-VI, Algorithms 1 and 2, Theorem 1).

Both kernels work on a symmetric positive semi-definite matrix they read a few rows at a time and never
copy whole:

* FIND-INDICES reads ``W'(i, j) = s_i s_j W(i, j) + [i == j] d_i`` (``s = scale``, ``d = shift``: the
  viscous model scales its tangential rows and adds an identity block) on the candidate rows;
* PPM reads the LCP matrix ``F = W[rows][:, rows] + Z^T Z - Y^T Y`` one column per pivot: ``W[rows]`` a
  block of a dense matrix (absent when ``rows`` is empty), ``Z^T Z`` a matrix given by a low-rank factor,
  ``- Y^T Y`` the Schur complement of an equality block (``Y = L^-1 W[E, rows]`` with ``L`` its Cholesky
  factor). A solve with ``k`` positive components costs ``O(k^3 + k n (k + r))`` for an LCP of order ``n``
  with ``r = rows(Z) + rows(Y)``, never ``O(n^3)``.

Cholesky factors are kept up to date by rank-one appends (``O(k^2)``) and Givens deletions (``O(k^2)``)
instead of refactorizations.
"""

import math

import numpy as np

from .._jit import jit
from .lcp import LCP_INACCURATE, LCP_MAX_PIVOTS, LCP_NAN, LCP_OK, LCP_SINGULAR, LCP_TOL

FI_SELECTED = 0
"""``find_indices`` info slot: number of selected (independent) rows."""
FI_INFO_SIZE = 1

PPM_PIVOTS, PPM_NONBASIC, PPM_WARM = 0, 1, 2
"""``ppm`` info slots: pivots made (an index moved into or out of the nonbasic set), size of the final
nonbasic set (components of ``z`` allowed positive), warm-start indices accepted."""
PPM_INFO_SIZE = 3


@jit
def chol_append(L, k, c, dii, tol):
    """Grow the Cholesky factor ``L[:k, :k]`` of ``A`` to that of ``[[A, c], [c^T, dii]]`` (``O(k^2)``).
    Returns False, leaving ``L[:k, :k]`` as it was, when the new pivot ``dii - |L^-1 c|^2`` is not above
    ``tol * dii`` (the new row depends on the old ones: the grown matrix would be singular)."""
    s2 = 0.0
    for a in range(k):
        s = c[a]
        for b in range(a):
            s -= L[k, b] * L[a, b]
        L[k, a] = s / L[a, a]
        s2 += L[k, a] * L[k, a]
    d = dii - s2
    if not d > tol * dii:
        return False
    L[k, k] = math.sqrt(d)
    return True


@jit
def chol_delete(L, k, j):
    """Cholesky factor of ``A`` with row and column ``j`` removed, in place: ``L[:k, :k]`` becomes the
    ``(k-1) x (k-1)`` factor (rows below ``j`` move up one, then Givens rotations on column pairs restore
    the triangle; ``O(k^2)``)."""
    for r in range(j, k - 1):
        for c in range(r + 2):
            L[r, c] = L[r + 1, c]
    for c in range(j, k - 1):
        a = L[c, c]
        b = L[c, c + 1]
        h = math.hypot(a, b)
        cs = a / h
        sn = b / h
        for r in range(c, k - 1):
            x = L[r, c]
            y = L[r, c + 1]
            L[r, c] = cs * x + sn * y
            L[r, c + 1] = cs * y - sn * x
        L[c, c + 1] = 0.0


@jit
def chol_solve(L, k, b, x):
    """``x[:k] = (L L^T)^-1 b[:k]`` with the factor ``L[:k, :k]`` (two triangular solves)."""
    for a in range(k):
        s = b[a]
        for c in range(a):
            s -= L[a, c] * x[c]
        x[a] = s / L[a, a]
    for a in range(k - 1, -1, -1):
        s = x[a]
        for c in range(a + 1, k):
            s -= L[c, a] * x[c]
        x[a] = s / L[a, a]


@jit
def find_indices(W, rows, scale, shift, tol, sel, L, info):
    """FIND-INDICES (Drumwright 2015, Algorithm 2): a maximal set of rows among ``rows`` (taken in order)
    whose block of ``W'(i, j) = scale[i] scale[j] W(i, j) + [i == j] shift[i]`` is non-singular, by
    incremental Cholesky updates (``O(k^2)`` per candidate, ``k`` the rows selected so far).

    A candidate ``r`` is accepted when its pivot ``W'(r, r) - |L^-1 W'(sel, r)|^2`` exceeds
    ``tol * W'(r, r)`` (its squared distance from the span of the selected rows, in the ``M^-1`` metric,
    relative to its own squared length) and its diagonal exceeds ``tol`` times the largest candidate
    diagonal (zero rows are never selected).

    Inputs: ``W`` (n, n) symmetric PSD, ``rows`` (c,) int64 candidate row indices of ``W``, ``scale`` and
    ``shift`` (n,), ``tol``. Outputs: ``sel[:k]`` the selected row indices (c,), ``L[:k, :k]`` the
    lower Cholesky factor of ``W'[sel, sel]`` (c, c) and ``info[FI_SELECTED] = k``.
    Status ``LCP_NAN`` when a candidate's diagonal is not finite, else ``LCP_OK``.
    """
    info[FI_SELECTED] = 0.0
    nc = rows.shape[0]
    dmax = 0.0
    for a in range(nc):
        r = rows[a]
        d = scale[r] * scale[r] * W[r, r] + shift[r]
        if not math.isfinite(d):
            return LCP_NAN
        dmax = max(dmax, d)
    c = np.empty(nc)
    k = 0
    for a in range(nc):
        r = rows[a]
        dii = scale[r] * scale[r] * W[r, r] + shift[r]
        if not dii > tol * dmax:
            continue
        for b in range(k):
            s = sel[b]
            c[b] = scale[s] * scale[r] * W[s, r]
        if chol_append(L, k, c, dii, tol):
            sel[k] = r
            k += 1
    info[FI_SELECTED] = k
    return LCP_OK


@jit
def lcp_entry(W, rows, Z, Y, i, j):
    """``F[i, j]`` with ``F = W[rows][:, rows] + Z^T Z - Y^T Y`` (no ``W`` term when ``rows`` is empty)."""
    s = W[rows[i], rows[j]] if rows.shape[0] > 0 else 0.0
    for t in range(Z.shape[0]):
        s += Z[t, i] * Z[t, j]
    for t in range(Y.shape[0]):
        s -= Y[t, i] * Y[t, j]
    return s


@jit
def _room(L, k):
    """``L`` if it has room for row ``k``, else a copy of its triangle ``L[:k, :k]`` in twice the space."""
    if k < L.shape[0]:
        return L
    L2 = np.empty((2 * L.shape[0], 2 * L.shape[0]))
    for a in range(k):
        for b in range(a + 1):
            L2[a, b] = L[a, b]
    return L2


@jit
def _add(W, rows, Z, Y, i, B, k, L, c, tol, fmax):
    """Append index ``i`` to the nonbasic set ``B[:k]`` and grow the factor of ``F[B, B]``; False when
    ``F[B + i, B + i]`` would be singular (or ``F_ii <= tol fmax``: a zero column)."""
    for a in range(k):
        c[a] = lcp_entry(W, rows, Z, Y, B[a], i)
    dii = lcp_entry(W, rows, Z, Y, i, i)
    if not dii > tol * fmax or not chol_append(L, k, c, dii, tol):
        return False
    B[k] = i
    return True


@jit
def ppm_error(W, rows, Z, Y, q, basis, k, z, w, qmax, fmax):
    """The check of a PPM answer (as :func:`lcp.lcp_error`): ``w_B = F[B, B] z_B + q_B`` recomputed from
    ``F`` (the other ``w_i`` are those of the last iteration, formed from ``F`` directly), then the natural
    residual ``max_i |min(fmax z_i, w_i)| / |q|_inf`` (``fmax`` the largest diagonal of the PSD ``F``, which
    bounds its entries). NaN anywhere gives NaN."""
    for a in range(k):
        i = basis[a]
        s = q[i]
        for c in range(k):
            s += lcp_entry(W, rows, Z, Y, i, basis[c]) * z[basis[c]]
        w[i] = s
    r = 0.0
    for i in range(q.shape[0]):
        e = abs(min(fmax * z[i], w[i]))
        if e != e:
            return math.nan
        r = max(r, e)
    if r == 0.0:
        return 0.0
    return r / qmax if qmax > 0.0 else math.inf


@jit
def ppm(W, rows, Z, Y, q, max_pivots, tol, warm, basis, z, w, info):
    """Modified principal pivoting method PPM I (Drumwright 2015, Algorithm 1) for the LCP
    ``w = F z + q, 0 <= z _|_ w >= 0`` with the PSD matrix ``F = W[rows][:, rows] + Z^T Z - Y^T Y``.

    The nonbasic set ``B`` holds the indices whose ``z`` may be positive (``w_B = 0``); every iteration
    solves ``F[B, B] z_B = -q_B`` with the updated Cholesky factor of ``F[B, B]`` and forms
    ``w = F[:, B] z_B + q`` from ``|B|`` columns of ``F`` (Algorithm 1, lines 10-14), then moves the most
    negative ``w_i`` into ``B`` and, if any, the most negative ``z_j`` out of it (lines 15-40). By
    Drumwright 2015 Theorem 1 an index whose row of ``F`` depends on those in ``B`` has ``w_i = 0`` once
    ``w_B = 0``, so ``B`` stays linearly independent: at most ``rank(F)`` nonbasic indices.

    Inputs: ``W`` (N, N) symmetric, ``rows`` (n,) int64 rows of ``W`` forming the LCP (or empty: no ``W``
    term), ``Z`` (r1, n), ``Y`` (r2, n) (``r1 = r2 = 0`` for a plain LCP ``F = W``), ``q`` (n,), ``max_pivots`` (Drumwright uses ``2 n``), ``tol`` (relative:
    ``w_i < -tol * (|q|_inf + max_i F_ii |z|_inf)`` counts as negative, ``z_j < -tol |z_B|_inf`` too, and a
    Cholesky pivot below ``tol`` times its diagonal as singular), ``warm`` (w,) int64 indices to start
    nonbasic (a warm start; indices out of range, repeated or dependent are skipped; empty: cold start
    from ``argmin q``). Outputs: ``basis[:k]`` the final nonbasic indices (n,), ``z`` and ``w`` (n,),
    ``info`` (``PPM_INFO_SIZE``: pivots, ``k``, warm indices accepted).

    Status: ``LCP_OK`` (the answer passed :func:`ppm_error` at :data:`lcp.LCP_TOL`); ``LCP_INACCURATE`` (it
    did not); ``LCP_MAX_PIVOTS`` after ``max_pivots`` pivots (cycling); ``LCP_SINGULAR`` when a
    pivot would make ``F[B, B]`` singular; ``LCP_NAN`` for a non-finite ``q`` or iterate. Any status other
    than ``LCP_OK`` tells the caller to fall back to Lemke's algorithm (``z`` and ``w`` then hold the last
    iterate).
    """
    n = q.shape[0]
    for t in range(PPM_INFO_SIZE):
        info[t] = 0.0
    qmax = 0.0
    fmax = 0.0
    for i in range(n):
        z[i] = 0.0
        w[i] = q[i]
        if not math.isfinite(q[i]):
            return LCP_NAN
        qmax = max(qmax, abs(q[i]))
        fmax = max(fmax, lcp_entry(W, rows, Z, Y, i, i))
    if n == 0:
        return LCP_OK
    L = np.empty((min(n, 16), min(n, 16)))
    c = np.empty(n)
    zB = np.empty(n)
    qB = np.empty(n)
    yz = np.empty(Y.shape[0])
    zz = np.empty(Z.shape[0])
    hasW = rows.shape[0] > 0
    inB = np.zeros(n, dtype=np.bool_)
    k = 0
    # warm start: the given indices, as long as F[B, B] stays non-singular
    for a in range(warm.shape[0]):
        i = warm[a]
        if i < 0 or i >= n or inB[i]:
            continue
        L = _room(L, k)
        if _add(W, rows, Z, Y, i, basis, k, L, c, tol, fmax):
            inB[i] = True
            k += 1
    info[PPM_WARM] = k
    if k == 0:  # lines 2-8: trivial solution, else start from the most negative q
        i = 0
        for j in range(1, n):
            if q[j] < q[i]:
                i = j
        if q[i] >= -tol * qmax:
            return LCP_OK
        if not _add(W, rows, Z, Y, i, basis, k, L, c, tol, fmax):
            return LCP_SINGULAR
        inB[i] = True
        k = 1
    pivots = 1 if info[PPM_WARM] == 0 else 0
    while True:
        # lines 10-14: z_B = -F[B, B]^-1 q_B, w = F[:, B] z_B + q
        for a in range(k):
            qB[a] = -q[basis[a]]
        chol_solve(L, k, qB, zB)
        zmax = 0.0
        for a in range(k):
            if not math.isfinite(zB[a]):
                return LCP_NAN
            zmax = max(zmax, abs(zB[a]))
        for t in range(Y.shape[0]):
            s = 0.0
            for a in range(k):
                s += Y[t, basis[a]] * zB[a]
            yz[t] = s
        for t in range(Z.shape[0]):
            s = 0.0
            for a in range(k):
                s += Z[t, basis[a]] * zB[a]
            zz[t] = s
        for i in range(n):
            if inB[i]:
                w[i] = 0.0
                continue
            s = q[i]
            if hasW:
                ri = rows[i]
                for a in range(k):
                    s += W[ri, rows[basis[a]]] * zB[a]
            for t in range(Z.shape[0]):
                s += Z[t, i] * zz[t]
            for t in range(Y.shape[0]):
                s -= Y[t, i] * yz[t]
            w[i] = s
        wtol = tol * (qmax + fmax * zmax)
        i = -1
        for j in range(n):
            if not inB[j] and w[j] < -wtol and (i < 0 or w[j] < w[i]):
                i = j
        ja = 0
        for a in range(1, k):
            if zB[a] < zB[ja]:
                ja = a
        drop = k > 0 and zB[ja] < -tol * zmax
        if i < 0 and not drop:  # lines 24-29: solved, if the answer passes the check
            for a in range(k):
                z[basis[a]] = zB[a]
            info[PPM_PIVOTS] = pivots
            info[PPM_NONBASIC] = k
            return LCP_OK if ppm_error(W, rows, Z, Y, q, basis, k, z, w, qmax, fmax) <= LCP_TOL else LCP_INACCURATE
        if pivots >= max_pivots:
            info[PPM_PIVOTS] = pivots
            info[PPM_NONBASIC] = k
            for a in range(k):
                z[basis[a]] = zB[a]
            return LCP_MAX_PIVOTS
        if i >= 0:  # line 32: move i into the nonbasic set
            L = _room(L, k)
            if not _add(W, rows, Z, Y, i, basis, k, L, c, tol, fmax):
                info[PPM_PIVOTS] = pivots
                info[PPM_NONBASIC] = k
                return LCP_SINGULAR
            inB[i] = True
            k += 1
            pivots += 1
        if drop:  # lines 17-22 and 34-38: move the most negative z_j back into the basic set
            inB[basis[ja]] = False
            chol_delete(L, k, ja)
            for a in range(ja, k - 1):
                basis[a] = basis[a + 1]
            k -= 1
            pivots += 1
