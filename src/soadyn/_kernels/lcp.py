"""Linear complementarity kernels: Lemke's method, mixed LCPs by a Schur complement, projected
and the LCP residual (projected Gauss-Seidel: :mod:`.pgs`).

Problem (Jain 2014, Eq. 9): ``w = M z + q``, ``z >= 0``, ``w >= 0``, ``z^T w = 0``. In a mixed LCP the first
``nfree`` rows are equalities with free ``z`` (``w = 0`` there; Jain 2014, Eqs. 27, 36, 53). The contact LCPs
with friction pyramids (Jain 2014, Eqs. 14, 41, 53) are copositive-plus, not P: Lemke's method processes them
(Stewart and Trinkle 1996, Anitescu and Potra 1997).

No answer leaves a solver unchecked: every ``LCP_OK`` answer has passed :func:`lcp_error`, the natural
residual of the whole (mixed) problem relative to its scale, at most :data:`LCP_TOL` (PGS: its own
tolerance); an answer that fails the check is reported as ``LCP_INACCURATE``, never as solved.

Every solver returns an int status (``LCP_*`` below) and writes ``info`` (float64, shape (4,)):
``info[0]`` pivots (PGS: sweeps), ``info[1]`` Tikhonov regularization used (0 if none), ``info[2]`` the
relative residual of :func:`lcp_error` (PGS: of :func:`pgs_residual`), ``info[3]`` runs (Lemke: 1 when the
plain run solved the problem, ``1 + k`` when the ``k``-th regularized run did). Kernels never raise and
take C-contiguous float64 arrays; work arrays are allocated once per call.
"""

import math

import numpy as np

from .._jit import jit
from .factor import factor, lstsq, lu_factor, lu_solve, solve

LCP_OK, LCP_RAY, LCP_MAX_PIVOTS, LCP_SINGULAR, LCP_NAN, LCP_INACCURATE = 0, 1, 2, 3, 4, 5
"""Solver status codes: solved (and verified); secondary ray (no solution found: for copositive-plus ``M``
the LCP is infeasible); pivot (PGS: sweep) limit reached; free block of a mixed LCP numerically singular; NaN
or inf in the input or the result; the run ended but its answer failed the check of :func:`lcp_error`."""

LCP_TOL = 1e-6
"""Largest relative residual (:func:`lcp_error`) of an answer reported solved: a millionth of the velocity
scale ``|q|_inf``, far below anything a contact step can feel, while wrong answers (a basis chosen by
round-off, a regularized answer to an infeasible problem) are off by O(1). Lemke answers polished on their
active set (:func:`polish`) are at 1e-10 or below on the random problems of the tests; a box face sliding
on a turned slope (four coplanar contacts, non-unique impulses) has steps whose best polished answer is at
1.6e-8, which a tolerance of 1e-8 would reject."""

TIKHONOV_TRIES = 4
"""Regularized runs after a failed or inaccurate plain run: ``M + eps I`` with
``eps = tikhonov * |M|_max * TIKHONOV_STEP^k``, ``k = 0 .. TIKHONOV_TRIES - 1``."""
TIKHONOV_STEP = 100.0
"""Growth of the regularization between runs (1e-10 .. 1e-4 of ``|M|_max`` from ``tikhonov = 1e-10``)."""
RUN_PIVOTS = 5
"""Pivots per row of a :func:`lemke` run while others may follow: longer, it stalls on a degenerate problem's
ties (a resting 6-box pyramid, 216 rows: 10,800 on ``M + 1e-10 |M| I``, then 75 on ``M + 1e-8 |M| I``)."""
PIVOT_TOL = 1e-11
"""A tableau entry ``T[e, i] = (B^-1 a_e)_i`` counts as a pivot candidate when it exceeds this times
``max_j |(B^-1)_ij| max_j |a_ej|``, a bound on the round-off it carries (``a_e``: column ``e`` of
``[I, -M, -d]``). The bound scales with row ``i``, as the round-off does: a tolerance relative to the
column's largest entry instead rejects true pivots in rows that an earlier small pivot left small while
others grew (a folded 12-link chain whose sphere presses on a link two hinges up, Delassus diagonal 4e-9
of the largest: the relative-to-column test rejects a pivot of 1.5e-7 beside entries of 1.6e4 and ends
the run on an answer with residual 6e-3, while the answer it leads to checks at 1e-10)."""
JACOBI_TOL = 1e-13
"""Rows whose diagonal ``M_ii`` exceeds this times ``|M|_max`` are scaled to a unit diagonal before Lemke's
method runs (:func:`jacobi_scale`); the others (round-off columns, the ``sigma`` rows) keep their scale."""
TIE_TOL = 1e-12
"""Relative tolerance under which two ratios of the minimum-ratio test count as tied."""

# ------------------------------------------------------------------------------------------- residual
@jit
def max_abs(M):
    """``max |M_ij|`` of a square matrix (NaN if any entry is NaN), by four running maxima a row (the
    comparisons of one maximum wait on each other; four independent ones run about 3.5x faster)."""
    n = M.shape[0]
    a0 = a1 = a2 = a3 = 0.0
    for i in range(n):
        j = 0
        while j + 4 <= n:
            x0, x1, x2, x3 = abs(M[i, j]), abs(M[i, j + 1]), abs(M[i, j + 2]), abs(M[i, j + 3])
            a0 = x0 if (x0 > a0 or x0 != x0) else a0
            a1 = x1 if (x1 > a1 or x1 != x1) else a1
            a2 = x2 if (x2 > a2 or x2 != x2) else a2
            a3 = x3 if (x3 > a3 or x3 != x3) else a3
            j += 4
        for m in range(j, n):
            x0 = abs(M[i, m])
            a0 = x0 if (x0 > a0 or x0 != x0) else a0
    for x in (a1, a2, a3):
        a0 = x if (x > a0 or x != x) else a0
    return a0


@jit
def lcp_error(M, q, nfree, z, w):
    """Check of an answer ``z``: writes ``w = M z + q`` (``w = 0`` on the ``nfree`` equality rows) and
    returns the natural residual relative to the problem's scale, ``max_i r_i / |q|_inf`` with
    ``r_i = |(M z + q)_i|`` on equality rows and ``r_i = |min(s z_i, w_i)|`` on complementarity rows,
    ``s = |M|_max`` (``z`` in the units of ``w``). It bounds the infeasibility (``-z_i``, ``-w_i``) and the
    complementarity gap (both ``z_i`` and ``w_i`` positive) and is zero iff ``z`` solves the problem.
    ``q = 0``: the residual relative to ``s |z|_inf`` (zero for ``z = 0``). NaN anywhere gives NaN.
    ``M z`` is summed over the non-zero ``z_j`` only (a contact answer has few)."""
    return lcp_residual(M, q, nfree, z, w, max_abs(M))


@jit
def lcp_residual(M, q, nfree, z, w, ms):
    """:func:`lcp_error` with the scale ``ms = max |M_ij|`` given (a caller that built ``M`` knows it)."""
    n = q.shape[0]
    nz = np.empty(n, dtype=np.int64)
    k = 0
    for i in range(n):
        if z[i] != 0.0:
            nz[k] = i
            k += 1
    for i in range(n):
        s = q[i]
        for a in range(k):
            s += M[i, nz[a]] * z[nz[a]]
        w[i] = s
    return natural_residual(q, nfree, z, w, ms)


@jit
def natural_residual(q, nfree, z, w, ms):
    """The relative residual of :func:`lcp_error` from ``w = M z + q`` (computed by the caller, in whatever
    way the structure of ``M`` allows) and ``ms = max |M_ij|``; sets ``w = 0`` on the ``nfree`` rows."""
    n = q.shape[0]
    qs = 0.0
    zs = 0.0
    r = 0.0
    for i in range(n):
        qs = max(qs, abs(q[i]))
        zs = max(zs, abs(z[i]))
        s = w[i]
        if i < nfree:
            e = abs(s)
            w[i] = 0.0
        else:
            e = abs(min(ms * z[i], s))
        if e != e:
            return math.nan
        r = max(r, e)
    scale = qs if qs > 0.0 else ms * zs
    if r == 0.0:
        return 0.0
    return r / scale if scale > 0.0 else math.inf


@jit
def active_set_solve(M, q, idx, k, z):
    """``z`` with ``M[A, A] z_A = -q_A`` on the active set ``A = idx[:k]`` and zero elsewhere, by LU with
    partial pivoting (:func:`lu_factor`). Returns False (``z`` untouched) when ``M[A, A]`` is numerically
    singular."""
    A = np.empty((k, k))
    for a in range(k):
        for c in range(k):
            A[a, c] = M[idx[a], idx[c]]
    return block_solve(A, q, idx, k, z)


@jit
def block_solve(A, q, idx, k, z):
    """:func:`active_set_solve` with the block ``A = M[A, A]`` (k x k) given; ``A`` is overwritten."""
    b = np.empty(k)
    for a in range(k):
        b[a] = -q[idx[a]]
    piv = np.empty(k, dtype=np.int64)
    if not factor(A, piv, False):
        return False
    solve(A, piv, False, b)
    z[:] = 0.0
    for a in range(k):
        z[idx[a]] = b[a]
    return True


@jit
def polish(M, q, nfree, z, w):
    """Recompute ``z`` from its active set ``A = {free rows} + {i: z_i > 0}`` with the given ``M``: the
    solution of ``M[A, A] z_A = -q_A`` (``z = 0`` elsewhere) by LU (:func:`active_set_solve`) or, where that
    fails the check (a singular or ill-conditioned block, as from coplanar contacts), the least-squares
    minimum-norm solution (:func:`.factor.lstsq`) when it checks better; while that has negative
    complementarity entries, the most negative leaves ``A`` and the block is solved again. A pivoting method
    that picked the right active set on a perturbed tableau (round-off, or ``M + eps I``) then returns the
    solution of the problem itself. Keeps whichever ``z`` has the smallest :func:`lcp_error`; returns that
    residual (``w`` written)."""
    n = q.shape[0]
    best = lcp_error(M, q, nfree, z, w)
    if best == 0.0:
        return best
    idx = np.empty(n, dtype=np.int64)
    k = 0
    for i in range(n):
        if i < nfree or z[i] > 0.0:
            idx[k] = i
            k += 1
    zbest = z.copy()
    zp = np.empty(n)
    wp = np.empty(n)
    zl = np.empty(n)
    while k > 0:
        r = lcp_error(M, q, nfree, zp, wp) if active_set_solve(M, q, idx, k, zp) else math.inf
        if not r <= LCP_TOL:
            A = np.empty((k, k))
            b = np.empty(k)
            for a in range(k):
                for c in range(k):
                    A[a, c] = M[idx[a], idx[c]]
                b[a] = -q[idx[a]]
            x = np.empty(k)
            lstsq(A, b, 1e-13, x)
            zl[:] = 0.0
            for a in range(k):
                zl[idx[a]] = x[a]
            rl = lcp_error(M, q, nfree, zl, wp)
            if rl < r or r == math.inf:
                zp[:] = zl
                r = rl
        worst = -1
        for a in range(k):
            if idx[a] >= nfree and zp[idx[a]] < 0.0 and (worst < 0 or zp[idx[a]] < zp[idx[worst]]):
                worst = a
        if r < best:
            best = r
            zbest[:] = zp
        if worst < 0 or best <= LCP_TOL:
            break
        for a in range(worst, k - 1):
            idx[a] = idx[a + 1]
        k -= 1
    z[:] = zbest
    lcp_error(M, q, nfree, z, w)
    return best


@jit
def all_finite(M, q):
    """True when every entry of ``M`` (n x n) and ``q`` (n) is finite."""
    n = q.shape[0]
    for i in range(n):
        if not math.isfinite(q[i]):
            return False
        for j in range(M.shape[1]):
            if not math.isfinite(M[i, j]):
                return False
    return True


# ---------------------------------------------------------------------------------------------- Lemke
@jit
def tableau_pivot(T, r, e, leaving, nonbasic, k):
    """Pivot of the column-major tableau ``T`` (``T[j, i]``: column j, row i) on row ``r``, entering column
    ``e`` = ``nonbasic[k]``, ``leaving`` the variable basic in row r. Only the nonbasic columns and the ``q``
    column are updated (a basic column is a unit vector): O(n^2) per pivot, contiguous in memory. The
    leaving column (``e_r`` before) gets its Gauss-Jordan image ``(e_r - T[e] + T[e, r] e_r) / T[e, r]``,
    the entering one becomes ``e_r``; ``nonbasic[k]`` becomes ``leaving``."""
    ncol, n = T.shape
    inv = 1.0 / T[e, r]
    for kk in range(nonbasic.shape[0] + 1):
        j = nonbasic[kk] if kk < nonbasic.shape[0] else ncol - 1
        if j == e:
            continue
        f = T[j, r] * inv
        if f != 0.0:
            for i in range(n):
                T[j, i] -= f * T[e, i]
            T[j, r] = f
    for i in range(n):
        T[leaving, i] = -T[e, i] * inv
        T[e, i] = 0.0
    T[leaving, r] = inv
    T[e, r] = 1.0
    nonbasic[k] = leaving


@jit
def noise_bound(T, e, i, scale):
    """The round-off that tableau entry ``T[e, i]`` can carry, over :data:`PIVOT_TOL`: ``max_j |(B^-1)_ij|``
    (row ``i`` of the first ``n`` columns) times ``scale[e]`` (``max_j |a_ej|``, :func:`lemke_run`)."""
    n = T.shape[1]
    r = 0.0
    for j in range(n):
        r = max(r, abs(T[j, i]))
    return r * scale[e]


@jit
def leaving_row(T, e, basis, scale, cand, ok):
    """Row leaving the basis when column ``e`` enters: the lexicographic minimum-ratio test on the rows
    ``(qbar_i, (B^-1)_i) / T[e, i]`` over the pivot candidates ``T[e, i] > PIVOT_TOL noise_bound`` (Cottle,
    Pang and Stone 1992, Sec. 4.9), so Lemke's method cannot cycle; the artificial variable tied in the first
    ratio leaves at once (it ends the run). ``B^-1`` is the first ``n`` columns of the tableau (those of
    ``w`` in ``[I, -M, -d, q]``); ``scale``: the largest entry of each column of ``[I, -M, -d]``. The bound
    of a row is computed only for rows whose ratio could be the minimum. Returns -1 when there is no
    candidate (a ray). ``cand`` is int64 scratch of length n, ``ok`` int64 scratch of length n."""
    n = T.shape[1]
    qc = T.shape[0] - 1
    theta = math.inf
    for i in range(n):
        ok[i] = 0  # 0: not checked, 1: a candidate, -1: round-off
        if T[e, i] > 0.0 and T[qc, i] / T[e, i] <= theta + TIE_TOL * (1.0 + abs(theta)):
            ok[i] = 1 if T[e, i] > PIVOT_TOL * noise_bound(T, e, i, scale) else -1
            if ok[i] == 1:
                theta = min(theta, T[qc, i] / T[e, i])
    if theta == math.inf:
        return -1
    nc = 0
    lim = theta + TIE_TOL * (1.0 + abs(theta))
    for i in range(n):
        if T[e, i] > 0.0 and T[qc, i] / T[e, i] <= lim:
            if ok[i] == 0:
                ok[i] = 1 if T[e, i] > PIVOT_TOL * noise_bound(T, e, i, scale) else -1
            if ok[i] != 1:
                continue
            if basis[i] == 2 * n:
                return i
            cand[nc] = i
            nc += 1
    for j in range(n):  # lexicographic tie break on the columns of B^-1
        if nc == 1:
            break
        best = math.inf
        for k in range(nc):
            i = cand[k]
            best = min(best, T[j, i] / T[e, i])
        lim = best + TIE_TOL * (1.0 + abs(best))
        m = 0
        for k in range(nc):
            i = cand[k]
            if T[j, i] / T[e, i] <= lim:
                cand[m] = i
                m += 1
        nc = m
    return cand[0]


@jit
def lemke_run(M, q, eps, max_pivots, T, basis, nonbasic, scale, cand, ok, z):
    """One run of Lemke's complementary pivoting on ``M + eps I`` with covering vector ``d = 1`` (the
    standard choice; :func:`lemke` scales ``M`` to a unit diagonal first). ``T`` ((2n + 2) x n, column-major:
    ``T[j]`` is column j) holds ``B^-1 [I, -(M + eps I), -d, q]``; ``basis[i]`` is the variable basic in row
    ``i`` (``w_j``: j, ``z_j``: n + j, ``z0``: 2n), ``nonbasic`` (n + 1) the others; ``scale`` (2n + 1) gets
    the largest entry of each column of ``[I, -(M + eps I), -d]`` (:func:`leaving_row`); ``cand``, ``ok``:
    int scratch (n). Writes ``z`` (the basic ``z`` values, clipped at 0) and returns ``(status, pivots)``.
    Precondition: ``min q < 0``."""
    n = q.shape[0]
    qc = 2 * n + 1
    for j in range(2 * n + 1):
        scale[j] = 1.0
    for i in range(n):
        for j in range(n):
            T[j, i] = 0.0
            T[n + j, i] = -M[i, j]
        T[i, i] = 1.0
        T[n + i, i] -= eps
        T[2 * n, i] = -1.0
        T[qc, i] = q[i]
        basis[i] = i
        nonbasic[i] = n + i
    for j in range(n):
        c = 0.0
        for i in range(n):
            c = max(c, abs(T[n + j, i]))
        scale[n + j] = c
    nonbasic[n] = 2 * n
    # z0 enters; the most negative q_i leaves (the last of tied rows keeps the tableau lexico-positive)
    r = 0
    for i in range(n):
        if q[i] <= q[r]:
            r = i
    leaving = basis[r]
    tableau_pivot(T, r, 2 * n, leaving, nonbasic, n)
    basis[r] = 2 * n
    pivots = 1
    status = LCP_MAX_PIVOTS
    while pivots < max_pivots:
        e = leaving + n if leaving < n else leaving - n  # the complement of the variable that left
        r = leaving_row(T, e, basis, scale, cand, ok)
        if r < 0:
            status = LCP_RAY
            break
        k = 0
        while nonbasic[k] != e:
            k += 1
        leaving = basis[r]
        tableau_pivot(T, r, e, leaving, nonbasic, k)
        basis[r] = e
        pivots += 1
        if leaving == 2 * n:
            status = LCP_OK
            break
    for j in range(n):
        z[j] = 0.0
    for i in range(n):
        if n <= basis[i] < 2 * n:
            z[basis[i] - n] = max(T[qc, i], 0.0)
    return status, pivots


@jit
def jacobi_scale(M, q, ms, d, Ms, qs):
    """``Ms = D M D``, ``qs = D q`` with ``D = diag(d)``, ``d_i = 1 / sqrt(M_ii)`` where ``M_ii > JACOBI_TOL ms``
    and 1 elsewhere. ``z`` solves the LCP ``(M, q)`` iff ``D^-1 z`` solves ``(Ms, qs)`` (``w = D^-1 ws``): the
    scaling keeps the problem and evens the rows, so that the ratio tests compare like with like (a contact
    step whose normal row has a Delassus diagonal 1e-10 of the others' is solved scaled and fails unscaled)."""
    n = q.shape[0]
    for i in range(n):
        d[i] = 1.0 / math.sqrt(M[i, i]) if M[i, i] > JACOBI_TOL * ms else 1.0
    for i in range(n):
        qs[i] = d[i] * q[i]
        for j in range(n):
            Ms[i, j] = d[i] * M[i, j] * d[j]


@jit
def lemke(M, q, max_pivots, tikhonov, z, w, info):
    """Solve the LCP ``w = M z + q``, ``0 <= z perp w >= 0`` (Jain 2014, Eq. 9) by Lemke's method
    (:func:`lemke_run`: covering vector 1, lexicographic minimum ratio, dense column-major tableau allocated
    once) on the Jacobi-scaled problem (:func:`jacobi_scale`), every answer polished on its active set
    (:func:`polish`) and checked (:func:`lcp_error` at most :data:`LCP_TOL`) on the given one.

    ``q >= 0`` gives the trivial solution ``z = 0``. Degenerate problems (coplanar or redundant contacts:
    rank-deficient ``M``, tied ratios) can end the plain run in a ray or on a wrong basis when round-off
    decides the ties; then, if ``tikhonov > 0``, Lemke runs on ``Ms + eps I`` (the scaled ``Ms``;
    :data:`TIKHONOV_TRIES`, ``eps`` relative to ``|Ms|_max``, growing by :data:`TIKHONOV_STEP`), which
    separates the ties, and its active set is polished and checked on the given ``M``: a reported solution is
    always one of the given problem, the regularization only finds its active set (``info[1]``: the ``eps``
    of the run that did).
    ``max_pivots <= 0``: ``50 n`` a run; while others may follow a run gets :data:`RUN_PIVOTS` ``n`` first, and
    runs cut short rerun with the whole budget if none passes. Outputs: ``z``, ``w = M z + q`` (n), ``info``
    (4): pivots of all runs, regularization, relative residual, runs. Returns ``LCP_OK``, ``LCP_RAY``,
    ``LCP_MAX_PIVOTS``, ``LCP_INACCURATE`` (the runs ended but no answer passed the check; ``z`` that of the last
    run) or ``LCP_NAN``."""
    n = q.shape[0]
    info[0] = 0.0
    info[1] = 0.0
    info[2] = 0.0
    info[3] = 0.0
    if not all_finite(M, q):
        for i in range(n):
            z[i] = 0.0
            w[i] = q[i]
        info[2] = math.nan
        return LCP_NAN
    trivial = True
    ms = max_abs(M)
    for i in range(n):
        if q[i] < 0.0:
            trivial = False
    if trivial:
        for i in range(n):
            z[i] = 0.0
            w[i] = q[i]
        info[3] = 1.0
        return LCP_OK
    maxp = max_pivots if max_pivots > 0 else 50 * n
    d, Ms, qs = np.empty(n), np.empty((n, n)), np.empty(n)
    jacobi_scale(M, q, ms, d, Ms, qs)
    mss = max_abs(Ms)
    T = np.empty((2 * n + 2, n))
    basis = np.empty(n, dtype=np.int64)
    nonbasic = np.empty(n + 1, dtype=np.int64)
    scale = np.empty(2 * n + 1)
    cand = np.empty(n, dtype=np.int64)
    ok = np.empty(n, dtype=np.int64)
    total = 0
    tries = 0
    eps = 0.0
    status = LCP_NAN
    runs = 1 + (TIKHONOV_TRIES if tikhonov > 0.0 else 0)
    short = min(RUN_PIVOTS * n, maxp) if runs > 1 else maxp  # a run's budget while others may follow
    cut = np.zeros(runs, dtype=np.bool_)  # runs stopped at the short budget, repeated last with the whole
    for whole in range(2):
        for k in range(runs):
            if whole == 1 and not cut[k]:
                continue
            eps = 0.0 if k == 0 else tikhonov * max(mss, 1e-300) * TIKHONOV_STEP ** (k - 1)
            status, pivots = lemke_run(Ms, qs, eps, maxp if whole == 1 else short, T, basis, nonbasic, scale, cand,
                                       ok, z)
            for i in range(n):
                z[i] *= d[i]
            total += pivots
            tries += 1
            cut[k] = whole == 0 and status == LCP_MAX_PIVOTS and short < maxp
            r = polish(M, q, 0, z, w)
            info[2] = r
            if status == LCP_OK or status == LCP_MAX_PIVOTS or status == LCP_RAY:
                if r <= LCP_TOL:
                    status = LCP_OK
                    break
                if status == LCP_OK:
                    status = LCP_INACCURATE
        if status == LCP_OK or not cut.any():
            break
    info[0] = total
    info[1] = eps
    info[3] = tries
    if status != LCP_OK and not info[2] == info[2]:
        return LCP_NAN
    return status


# ------------------------------------------------------------------------------------------ mixed LCP
@jit
def mlcp(M, q, nfree, max_pivots, tikhonov, z, w, info):
    """Solve the mixed LCP whose first ``nfree`` rows are equalities with free ``z_f`` (``w_f = 0``) and
    whose other rows are complementarity rows (Jain 2014, Eqs. 27, 36, 53: a free block such as
    ``[[M, -G^*], [G, 0]]`` or ``Q_b Lambda Q_b^*``).

    The free rows are eliminated by a Schur complement: with ``M_ff = P L U`` (partial pivoting),
    ``M_r = M_cc - M_cf M_ff^-1 M_fc``, ``q_r = q_c - M_cf M_ff^-1 q_f``; the standard LCP ``(M_r, q_r)`` is
    solved by :func:`lemke` and ``z_f = -M_ff^-1 (q_f + M_fc z_c)``. A numerically singular ``M_ff`` returns
    ``LCP_SINGULAR`` (with ``z = 0``, ``w = q``, ``info[2]`` the residual of that) unless ``tikhonov > 0``,
    when ``M_ff + eps I`` is tried with the same ``eps`` sequence as :func:`lemke`. Outputs: ``z``, ``w``
    (``w_f = 0`` exactly, ``w_c = M_c z + q_c``), ``info`` as :func:`lemke` (``info[1]``: the larger of the
    free-block and reduced-LCP regularizations; ``info[2]``: relative residual of the full problem, after
    :func:`polish` on it; ``LCP_INACCURATE`` when it exceeds :data:`LCP_TOL`)."""
    n = q.shape[0]
    nc = n - nfree
    info[0] = 0.0
    info[1] = 0.0
    info[2] = 0.0
    info[3] = 0.0
    if not all_finite(M, q):
        for i in range(n):
            z[i] = 0.0
            w[i] = q[i]
        info[2] = math.nan
        return LCP_NAN
    LU = np.empty((nfree, nfree))
    piv = np.empty(nfree, dtype=np.int64)
    eps_f = 0.0
    k = 0
    while True:
        for i in range(nfree):
            for j in range(nfree):
                LU[i, j] = M[i, j]
            LU[i, i] += eps_f
        ok = lu_factor(LU, piv) > 0.0
        if ok or not tikhonov > 0.0 or k == TIKHONOV_TRIES:
            break
        eps_f = tikhonov * 10.0 ** k
        k += 1
    if not ok:
        for i in range(n):
            z[i] = 0.0
            w[i] = q[i]
        info[1] = eps_f
        info[2] = lcp_error(M, q, nfree, z, w)
        info[3] = k + 1
        return LCP_SINGULAR
    # X = M_ff^-1 [M_fc, q_f]
    X = np.empty((nfree, nc + 1))
    for i in range(nfree):
        for j in range(nc):
            X[i, j] = M[i, nfree + j]
        X[i, nc] = q[i]
    lu_solve(LU, piv, X)
    Mr = np.empty((nc, nc))
    qr = np.empty(nc)
    for i in range(nc):
        for j in range(nc):
            Mr[i, j] = M[nfree + i, nfree + j]
        qr[i] = q[nfree + i]
        for k2 in range(nfree):
            a = M[nfree + i, k2]
            if a != 0.0:
                for j in range(nc):
                    Mr[i, j] -= a * X[k2, j]
                qr[i] -= a * X[k2, nc]
    zc = np.empty(nc)
    wc = np.empty(nc)
    status = lemke(Mr, qr, max_pivots, tikhonov, zc, wc, info)
    for i in range(nfree):
        s = -X[i, nc]
        for j in range(nc):
            s -= X[i, j] * zc[j]
        z[i] = s
    for j in range(nc):
        z[nfree + j] = zc[j]
    info[1] = max(info[1], eps_f)
    if nfree > 0:  # without free rows lemke has polished and checked this very problem
        info[2] = polish(M, q, nfree, z, w)
    else:
        w[:] = wc
    if k > 0:
        info[3] += k
    if not info[2] == info[2]:
        return LCP_NAN
    if status == LCP_OK and not info[2] <= LCP_TOL:
        return LCP_INACCURATE
    return status
