"""Contact-space solvers of Drumwright 2015: the no-slip model (Sec. VI, Eqs. 45-57), the purely viscous
model (Sec. IV, Eqs. 29-42) and the Stewart-Trinkle / Anitescu-Potra Coulomb baseline (Sec. III-C,
Eqs. 23-28, with an ``n_f``-direction friction pyramid).

Interface (every kernel): the Delassus matrix ``W = G M^-1 G^T`` ((nfree + 3m) square, symmetric PSD, maybe
rank deficient), rows ``[nfree bilateral rows; per contact i: normal n_i, tangents t1_i, t2_i]``; ``vf`` the
constraint-space velocity after the step without constraint impulses. Output: impulses ``p`` (nfree + 3m)
with post-step velocity ``v+ = W p + vf``: ``v+ = 0`` on the bilateral rows (rows dependent on others get
``p = 0``: FIND-INDICES drops them, Drumwright 2015 Algorithm 2) and the contact rows follow the model.

No-slip and viscous reduce to a normal LCP with a PSD matrix that is never formed for PPM (:func:`ppm.ppm`
reads it a column at a time from ``W`` and low-rank factors), so at fixed dofs their cost grows linearly
with the number of contacts (Drumwright 2015, Sec. V). ``info`` (``DW_INFO_SIZE``): pivots, Lemke fallback
(1 if PPM failed and Lemke solved), PPM status of a failed PPM run, independent equality rows kept by
FIND-INDICES (bilateral, and tangential for no-slip), positive normal impulses, LCP order, natural residual
``max |min(z, w)|`` of the LCP relative to its ``|q|_inf``, Tikhonov regularization used. Every LCP answer
is checked by its solver (:func:`lcp.lcp_error`, :func:`ppm.ppm_error`) before it is used.
"""

import math

import numpy as np

from .._jit import jit
from .lcp import LCP_NAN, LCP_OK, lemke, mlcp
from .ppm import PPM_INFO_SIZE, PPM_PIVOTS, find_indices, lcp_entry, ppm

SOLVER_PPM, SOLVER_LEMKE = 0, 1
"""Solver flag of :func:`noslip_solve` and :func:`viscous_solve`: PPM (Lemke fallback) or Lemke alone."""

DW_PIVOTS, DW_FALLBACK, DW_PPM_STATUS, DW_RANK, DW_ACTIVE, DW_LCP_SIZE, DW_RESIDUAL, DW_TIKHONOV = range(8)
DW_INFO_SIZE = 8


@jit
def _finish_lcp(e, z, w, info):
    """Natural residual ``max |min(z, w)|`` relative to ``|e|_inf`` (the answer was checked by its solver)
    and the count of positive ``z``."""
    r = 0.0
    es = 0.0
    act = 0
    for i in range(z.shape[0]):
        r = max(r, abs(min(z[i], w[i])))
        es = max(es, abs(e[i]))
        if z[i] > 0.0:
            act += 1
    info[DW_RESIDUAL] = r / es if es > 0.0 else r
    info[DW_ACTIVE] = act


@jit
def forward_rows(L, k, X):
    """``X[:k] = L[:k, :k]^-1 X[:k]`` in place (forward substitution on whole rows)."""
    for a in range(k):
        for b in range(a):
            lab = L[a, b]
            if lab != 0.0:
                for j in range(X.shape[1]):
                    X[a, j] -= lab * X[b, j]
        inv = 1.0 / L[a, a]
        for j in range(X.shape[1]):
            X[a, j] *= inv


@jit
def forward_vec(L, k, x):
    """``x[:k] = L[:k, :k]^-1 x[:k]`` in place."""
    for a in range(k):
        s = x[a]
        for b in range(a):
            s -= L[a, b] * x[b]
        x[a] = s / L[a, a]


@jit
def backward_vec(L, k, x):
    """``x[:k] = L[:k, :k]^-T x[:k]`` in place."""
    for a in range(k - 1, -1, -1):
        s = x[a]
        for b in range(a + 1, k):
            s -= L[b, a] * x[b]
        x[a] = s / L[a, a]


@jit
def normal_lcp(W, rows, Z, Y, e, solver, max_pivots, tikhonov, tol, warm, z, w, info):
    """Solve the LCP ``(e, F)``, ``F = W[rows][:, rows] + Z^T Z - Y^T Y`` (:func:`ppm.lcp_entry`), by PPM
    (``SOLVER_PPM``; ``max_pivots <= 0``: 2m) with a Lemke fallback on the formed ``F``, or by Lemke
    (``SOLVER_LEMKE``; ``max_pivots <= 0``: Lemke's default). Fills the LCP slots of ``info``."""
    m = e.shape[0]
    st = LCP_NAN
    if solver == SOLVER_PPM:
        basis = np.empty(m, dtype=np.int64)
        pinfo = np.empty(PPM_INFO_SIZE)
        st = ppm(W, rows, Z, Y, e, max_pivots if max_pivots > 0 else 2 * m, tol, warm, basis, z, w, pinfo)
        info[DW_PIVOTS] = pinfo[PPM_PIVOTS]
        if st != LCP_OK:
            info[DW_PPM_STATUS] = st
            info[DW_FALLBACK] = 1.0
    if solver != SOLVER_PPM or st != LCP_OK:
        F = np.empty((m, m))
        for i in range(m):
            for j in range(i, m):
                F[i, j] = lcp_entry(W, rows, Z, Y, i, j)
                F[j, i] = F[i, j]
        linfo = np.empty(4)
        st = lemke(F, e, 0 if solver == SOLVER_PPM else max_pivots, tikhonov, z, w, linfo)
        info[DW_PIVOTS] += linfo[0]
        info[DW_TIKHONOV] = linfo[1]
    _finish_lcp(e, z, w, info)
    info[DW_LCP_SIZE] = m
    return st


@jit
def _clean(x, tol, vmax):
    """``x`` with entries within ``tol vmax`` of zero set to zero (roundoff of a Schur complement whose
    equality rows span a normal row, Eq. 57)."""
    for j in range(x.shape[0]):
        if not abs(x[j]) > tol * vmax:
            x[j] = 0.0


@jit
def _vmax(vf):
    s = 0.0
    for i in range(vf.shape[0]):
        s = max(s, abs(vf[i]))
    return s


@jit
def noslip_solve(W, vf, nfree, m, solver, max_pivots, tikhonov, tol, warm, p, info):
    """No-slip contact (Drumwright 2015, Sec. VI, Eqs. 45-57): velocity-level, ``v+ = 0`` on the bilateral
    and tangential rows (Eqs. 24, 45, 46: at every contact given, also one that separates),
    ``0 <= p_n _|_ v+_n >= 0`` (Eq. 25). FIND-INDICES (Algorithm 2: bilateral rows, then per contact ``t1``,
    ``t2``) keeps an independent set ``E`` of the equality rows, so ``X = W_EE = L L^T`` (the equality block
    ``A`` of Eq. 47) is non-singular; the dependent rows follow (their velocities are combinations of those
    in ``E``) and get ``p = 0``. The normal LCP ``F = W_NN - Y^T Y`` (Eq. 56, PSD; ``Y = L^-1 W_EN``),
    ``e = vf_N - Y^T L^-1 vf_E`` (Eq. 57) is solved by PPM (``solver = SOLVER_PPM``, Algorithm 1 with
    Theorem 1, Lemke fallback recorded in ``info``) or by Lemke (``SOLVER_LEMKE``); then
    ``p_E = -L^-T (L^-1 vf_E + Y p_N)``. Cost ``O(m k^2)`` plus ``O(m k)`` per pivot, ``k <= rank(W)``.

    Inputs: ``W`` (n, n), ``vf`` (n), ``nfree``, ``m`` (``n = nfree + 3m``), ``solver``, ``max_pivots``
    (``<= 0``: 2m for PPM, 50m for Lemke), ``tikhonov`` (Lemke's retry), ``tol`` (FIND-INDICES and PPM
    relative tolerance), ``warm`` (int64 contact indices to start PPM nonbasic; may be empty). Outputs:
    ``p`` (n), ``info`` (``DW_INFO_SIZE``). Status ``LCP_*`` (``LCP_OK`` solved)."""
    n = W.shape[0]
    for t in range(DW_INFO_SIZE):
        info[t] = 0.0
    for i in range(n):
        p[i] = 0.0
    nc = nfree + 2 * m
    cand = np.empty(nc, dtype=np.int64)
    for i in range(nfree):
        cand[i] = i
    for j in range(m):
        cand[nfree + 2 * j] = nfree + 3 * j + 1
        cand[nfree + 2 * j + 1] = nfree + 3 * j + 2
    sel = np.empty(nc, dtype=np.int64)
    L = np.empty((nc, nc))
    fi = np.empty(1)
    st = find_indices(W, cand, np.ones(n), np.zeros(n), tol, sel, L, fi)
    if st != LCP_OK:
        return st
    k = int(fi[0])
    info[DW_RANK] = k
    rows = np.empty(m, dtype=np.int64)
    for j in range(m):
        rows[j] = nfree + 3 * j
    c = np.empty(k)
    Y = np.empty((k, m))
    for a in range(k):
        c[a] = vf[sel[a]]
        for j in range(m):
            Y[a, j] = W[sel[a], rows[j]]
    forward_vec(L, k, c)
    forward_rows(L, k, Y)
    e = np.empty(m)
    for j in range(m):
        s = vf[rows[j]]
        for a in range(k):
            s -= Y[a, j] * c[a]
        e[j] = s
    _clean(e, tol, _vmax(vf))
    z = np.empty(m)
    w = np.empty(m)
    st = normal_lcp(W, rows, np.empty((0, m)), Y, e, solver, max_pivots, tikhonov, tol, warm, z, w, info)
    if st != LCP_OK:
        return st
    for a in range(k):
        s = c[a]
        for j in range(m):
            s += Y[a, j] * z[j]
        c[a] = -s
    backward_vec(L, k, c)
    for a in range(k):
        p[sel[a]] = c[a]
    for j in range(m):
        p[rows[j]] = z[j]
    return LCP_OK


@jit
def viscous_solve(W, vf, nfree, m, mu_v, dt, solver, max_pivots, tikhonov, tol, warm, p, info):
    """Purely viscous friction (Drumwright 2015, Sec. IV, Eqs. 29-42) at the velocity level: the viscous
    impulse ``p_t = -dt mu_v v+_t`` on each tangent row (the force ``-mu_v T v`` of Eq. 15 over the step,
    at the post-step velocity: linearly implicit, so stable for any ``mu_v dt``), normal rows complementary,
    bilateral rows ``v+ = 0``.

    In the coordinates of an independent row set ``R`` of ``W`` (FIND-INDICES over all rows, ``r =
    |R| <= rank``): ``K = L_R^-1 W_R.`` gives ``W = K^T K``, the impulse moves ``a = K p``, and the viscous
    rows turn the unit metric into ``P = I + U U^T`` (``U = K_T sqrt(dt mu_v)``, Woodbury), so ``v_BN =
    Z^T Z p_BN + g`` with ``Z = L_P^-1 K_BN`` and ``g = vf_BN - Z^T h``, ``h = L_P^-1 K_T dt mu_v vf_T``.
    Bilateral rows are then eliminated as in :func:`noslip_solve` (FIND-INDICES on ``Z_B^T Z_B``), leaving
    the normal LCP ``F = Z_N^T Z_N - Y^T Y`` (Eqs. 41-42 in these terms, PSD) for PPM (Lemke fallback) or
    Lemke. Tangential impulses follow from ``a = L_P^-T (Z p_BN - h)``. Cost ``O(n r^2)`` plus ``O(m r)``
    per pivot: linear in the contacts at fixed dofs. Inputs and outputs as :func:`noslip_solve`, plus
    ``mu_v`` (m) >= 0 and ``dt`` > 0."""
    n = W.shape[0]
    for t in range(DW_INFO_SIZE):
        info[t] = 0.0
    for i in range(n):
        p[i] = 0.0
    # independent rows of W and K = L_R^-1 W_R. (W = K^T K)
    sel = np.empty(n, dtype=np.int64)
    L = np.empty((n, n))
    fi = np.empty(1)
    st = find_indices(W, np.arange(n), np.ones(n), np.zeros(n), tol, sel, L, fi)
    if st != LCP_OK:
        return st
    r = int(fi[0])
    K = np.empty((r, n))
    for a in range(r):
        for j in range(n):
            K[a, j] = W[sel[a], j]
    forward_rows(L, r, K)
    # P = I + sum_t dt mu_v K_t K_t^T = LP LP^T; h = LP^-1 sum_t K_t dt mu_v vf_t
    P = np.zeros((r, r))
    h = np.zeros(r)
    for a in range(r):
        P[a, a] = 1.0
    for j in range(m):
        g2 = dt * mu_v[j]
        for d in range(1, 3):
            col = nfree + 3 * j + d
            for a in range(r):
                ka = g2 * K[a, col]
                h[a] += ka * vf[col]
                for b in range(a + 1):
                    P[a, b] += ka * K[b, col]
    LP = np.empty((r, r))
    for a in range(r):  # Cholesky of P (>= I, so every pivot >= 1)
        for b in range(a + 1):
            s = P[a, b]
            for t in range(b):
                s -= LP[a, t] * LP[b, t]
            if b < a:
                LP[a, b] = s / LP[b, b]
            elif s > 0.0:
                LP[a, a] = math.sqrt(s)
            else:
                return LCP_NAN
    forward_vec(LP, r, h)
    ZB = np.empty((r, nfree))
    ZN = np.empty((r, m))
    for a in range(r):
        for i in range(nfree):
            ZB[a, i] = K[a, i]
        for j in range(m):
            ZN[a, j] = K[a, nfree + 3 * j]
    forward_rows(LP, r, ZB)
    forward_rows(LP, r, ZN)
    # bilateral rows: FIND-INDICES on Z_B^T Z_B, Y = L_B^-1 Z_B'^T Z_N, c = L_B^-1 g_B'
    WB = np.empty((nfree, nfree))
    for i in range(nfree):
        for i2 in range(i + 1):
            s = 0.0
            for a in range(r):
                s += ZB[a, i] * ZB[a, i2]
            WB[i, i2] = s
            WB[i2, i] = s
    selB = np.empty(nfree, dtype=np.int64)
    LB = np.empty((nfree, nfree))
    st = find_indices(WB, np.arange(nfree), np.ones(nfree), np.zeros(nfree), tol, selB, LB, fi)
    if st != LCP_OK:
        return st
    kb = int(fi[0])
    info[DW_RANK] = kb
    Y = np.zeros((kb, m))
    c = np.empty(kb)
    for a in range(kb):
        i = selB[a]
        s = vf[i]
        for t in range(r):
            s -= ZB[t, i] * h[t]
            zt = ZB[t, i]
            if zt != 0.0:
                for j in range(m):
                    Y[a, j] += zt * ZN[t, j]
        c[a] = s
    forward_rows(LB, kb, Y)
    forward_vec(LB, kb, c)
    e = np.empty(m)
    for j in range(m):
        s = vf[nfree + 3 * j]
        for t in range(r):
            s -= ZN[t, j] * h[t]
        for a in range(kb):
            s -= Y[a, j] * c[a]
        e[j] = s
    _clean(e, tol, _vmax(vf))
    z = np.empty(m)
    w = np.empty(m)
    st = normal_lcp(W, np.empty(0, dtype=np.int64), ZN, Y, e, solver, max_pivots, tikhonov, tol, warm, z, w,
                    info)
    if st != LCP_OK:
        return st
    # p_B' = -L_B^-T (c + Y z); p_N = z
    for a in range(kb):
        s = c[a]
        for j in range(m):
            s += Y[a, j] * z[j]
        c[a] = -s
    backward_vec(LB, kb, c)
    for a in range(kb):
        p[selB[a]] = c[a]
    for j in range(m):
        p[nfree + 3 * j] = z[j]
    # a = LP^-T (Z p_BN - h); p_t = -dt mu_v (K_t^T a + vf_t)
    y = np.empty(r)
    for t in range(r):
        s = -h[t]
        for a in range(kb):
            s += ZB[t, selB[a]] * c[a]
        for j in range(m):
            s += ZN[t, j] * z[j]
        y[t] = s
    backward_vec(LP, r, y)
    for j in range(m):
        for d in range(1, 3):
            col = nfree + 3 * j + d
            s = vf[col]
            for t in range(r):
                s += K[t, col] * y[t]
            p[col] = -dt * mu_v[j] * s
    return LCP_OK


@jit
def coulomb_solve(W, vf, nfree, m, mu, n_f, max_pivots, tikhonov, tol, p, info):
    """Coulomb friction, the Stewart-Trinkle / Anitescu-Potra velocity-level model (Drumwright 2015,
    Sec. III-C, Eqs. 23-28) with the friction cone replaced by the ``n_f``-direction pyramid
    ``d_k = cos(2 pi k / n_f) t1 + sin(2 pi k / n_f) t2``:

    ``0 <= p_n _|_ v+_n >= 0``, ``0 <= beta_ik _|_ lambda_i + d_k . v+_t >= 0``,
    ``0 <= lambda_i _|_ mu_i p_n,i - sum_k beta_ik >= 0``, bilateral ``v+ = 0``,

    a mixed LCP of order ``nE + m (2 + n_f)`` (``nE`` independent bilateral rows, from FIND-INDICES;
    copositive-plus, not PSD) solved by :func:`lcp.mlcp` (Lemke on the Schur complement; ``tikhonov > 0``
    retries regularized). Variables ``[p_E; p_n (m); beta (m n_f); lambda (m)]``; ``p_t = sum_k beta_ik d_k``.
    Inputs: ``W``, ``vf``, ``nfree``, ``m`` as :func:`noslip_solve`, ``mu`` (m) >= 0, ``n_f`` >= 3,
    ``max_pivots`` (``<= 0``: Lemke's default), ``tikhonov``, ``tol`` (FIND-INDICES). Outputs ``p`` (n),
    ``info`` (``DW_INFO_SIZE``; ``DW_ACTIVE`` counts positive normal impulses)."""
    n = W.shape[0]
    for t in range(DW_INFO_SIZE):
        info[t] = 0.0
    for i in range(n):
        p[i] = 0.0
    sel = np.empty(nfree, dtype=np.int64)
    L = np.empty((nfree, nfree))
    fi = np.empty(1)
    cand = np.arange(nfree)
    st = find_indices(W, cand, np.ones(n), np.zeros(n), tol, sel, L, fi)
    if st != LCP_OK:
        return st
    kb = int(fi[0])
    nd = kb + m + m * n_f  # variables acting through W
    nz = nd + m
    info[DW_RANK] = kb
    info[DW_LCP_SIZE] = nz
    # each of the first nd variables is c0 e_r0 + c1 e_r1 in constraint space
    r0 = np.empty(nd, dtype=np.int64)
    r1 = np.empty(nd, dtype=np.int64)
    c0 = np.zeros(nd)
    c1 = np.zeros(nd)
    for a in range(kb):
        r0[a] = sel[a]
        r1[a] = sel[a]
        c0[a] = 1.0
    for i in range(m):
        a = kb + i
        r0[a] = nfree + 3 * i
        r1[a] = r0[a]
        c0[a] = 1.0
        for kk in range(n_f):
            a = kb + m + i * n_f + kk
            th = 2.0 * math.pi * kk / n_f
            r0[a] = nfree + 3 * i + 1
            r1[a] = nfree + 3 * i + 2
            c0[a] = math.cos(th)
            c1[a] = math.sin(th)
    A = np.zeros((nz, nz))
    q = np.zeros(nz)
    for u in range(nd):
        q[u] = c0[u] * vf[r0[u]] + c1[u] * vf[r1[u]]
        for v in range(u, nd):
            s = c0[u] * (c0[v] * W[r0[u], r0[v]] + c1[v] * W[r0[u], r1[v]]) \
                + c1[u] * (c0[v] * W[r1[u], r0[v]] + c1[v] * W[r1[u], r1[v]])
            A[u, v] = s
            A[v, u] = s
    for i in range(m):
        li = nd + i
        A[li, kb + i] = mu[i]
        for kk in range(n_f):
            b = kb + m + i * n_f + kk
            A[b, li] = 1.0
            A[li, b] = -1.0
    z = np.empty(nz)
    w = np.empty(nz)
    linfo = np.empty(4)
    st = mlcp(A, q, kb, max_pivots, tikhonov, z, w, linfo)
    info[DW_PIVOTS] = linfo[0]
    info[DW_TIKHONOV] = linfo[1]
    info[DW_RESIDUAL] = linfo[2]
    act = 0
    for i in range(m):
        if z[kb + i] > 0.0:
            act += 1
    info[DW_ACTIVE] = act
    if st != LCP_OK:
        return st
    for u in range(nd):
        p[r0[u]] += c0[u] * z[u]
        if r1[u] != r0[u]:
            p[r1[u]] += c1[u] * z[u]
    return LCP_OK
