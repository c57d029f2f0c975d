"""Contact-space solvers of Drumwright 2015: the no-slip model (Sec. VI, Eqs. 45-57), the purely viscous
model (Sec. IV, Eqs. 29-42) and the Stewart-Trinkle / Anitescu-Potra Coulomb baseline (Sec. III-C,
Eqs. 23-28, with an ``n_f``-direction friction pyramid).

Interface (every kernel): the Delassus matrix ``W = G M^-1 G^T`` ((nfree + 3m) square, symmetric PSD, maybe
rank deficient), rows ``[nfree bilateral rows; per contact i: normal n_i, tangents t1_i, t2_i]``; ``vf`` the
constraint-space velocity after the step without constraint impulses. Output: impulses ``p`` (nfree + 3m)
with post-step velocity ``v+ = W p + vf``: ``v+ = 0`` on the bilateral rows (rows dependent on others get
``p = 0``: FIND-INDICES drops them, Drumwright 2015 Algorithm 2) and the contact rows follow the model.

No-slip and viscous reduce to the normal LCP ``F = W_NN - W_NE X^-1 W_EN`` (Eqs. 56-57; ``X`` the
independent equality block: bilateral plus, for no-slip, tangential rows) with ``F`` never formed for PPM:
:func:`ppm.ppm` reads ``W_NN`` columns and ``Y = L^-1 W_EN`` (``X = L L^T``). ``info`` (``DW_INFO_SIZE``):
pivots, Lemke fallback (1 if PPM failed and Lemke solved), PPM status of a failed PPM run, independent
equality rows kept, positive normal impulses, LCP order, natural residual ``max |min(z, w)|`` of the LCP,
Tikhonov regularization used.
"""

import math

import numpy as np

from .._jit import jit
from .lcp import LCP_NAN, LCP_OK, lemke, mlcp
from .ppm import PPM_INFO_SIZE, PPM_NONBASIC, PPM_PIVOTS, find_indices, ppm

SOLVER_PPM, SOLVER_LEMKE = 0, 1
"""Solver flag of :func:`noslip_solve` and :func:`viscous_solve`: PPM (Lemke fallback) or Lemke alone."""

DW_PIVOTS, DW_FALLBACK, DW_PPM_STATUS, DW_RANK, DW_ACTIVE, DW_LCP_SIZE, DW_RESIDUAL, DW_TIKHONOV = range(8)
DW_INFO_SIZE = 8


@jit
def _finish_lcp(z, w, info):
    """Natural residual and the count of positive ``z``."""
    r = 0.0
    act = 0
    for i in range(z.shape[0]):
        r = max(r, abs(min(z[i], w[i])))
        if z[i] > 0.0:
            act += 1
    info[DW_RESIDUAL] = r
    info[DW_ACTIVE] = act


@jit
def equality_normal_lcp(W, vf, nfree, m, scale, shift, cand, solver, max_pivots, tikhonov, tol, warm, p, info):
    """Shared core of :func:`noslip_solve` and :func:`viscous_solve` on ``W'(i, j) = s_i s_j W(i, j) +
    [i == j] d_i`` (``s = scale``, ``d = shift``; ``s = 1, d = 0`` on the normal rows): equality rows
    chosen among ``cand`` by FIND-INDICES (Algorithm 2), the normal LCP (Eqs. 56-57) solved by PPM
    (Algorithm 1) or Lemke, then ``p_E = -X^-1 (s vf_E + W'_EN z)`` scaled back by ``s``."""
    n = W.shape[0]
    for t in range(DW_INFO_SIZE):
        info[t] = 0.0
    for i in range(n):
        p[i] = 0.0
    nc = cand.shape[0]
    sel = np.empty(nc, dtype=np.int64)
    L = np.empty((nc, nc))
    fi = np.empty(1)
    st = find_indices(W, cand, scale, shift, tol, sel, L, fi)
    if st != LCP_OK:
        return st
    k = int(fi[0])
    info[DW_RANK] = k
    info[DW_LCP_SIZE] = m
    rows = np.empty(m, dtype=np.int64)
    for j in range(m):
        rows[j] = nfree + 3 * j
    # c = L^-1 s vf_E, Y = L^-1 W'_EN
    c = np.empty(k)
    Y = np.empty((k, m))
    for a in range(k):
        ra = sel[a]
        s = scale[ra] * vf[ra]
        for b in range(a):
            s -= L[a, b] * c[b]
        c[a] = s / L[a, a]
        for j in range(m):
            Y[a, j] = scale[ra] * W[ra, rows[j]]
        for b in range(a):
            lab = L[a, b]
            if lab != 0.0:
                for j in range(m):
                    Y[a, j] -= lab * Y[b, j]
        inv = 1.0 / L[a, a]
        for j in range(m):
            Y[a, j] *= inv
    # e = vf_N - Y^T c; entries within tol |vf|_inf of zero are roundoff (Eq. 57 with the equality rows
    # spanning a normal row) and are set to zero
    vmax = 0.0
    for i in range(n):
        vmax = max(vmax, abs(scale[i] * vf[i]))
    e = np.empty(m)
    for j in range(m):
        s = vf[rows[j]]
        for a in range(k):
            s -= Y[a, j] * c[a]
        e[j] = s if abs(s) > tol * vmax else 0.0
    z = np.empty(m)
    w = np.empty(m)
    st = LCP_NAN
    if solver == SOLVER_PPM:
        basis = np.empty(m, dtype=np.int64)
        pinfo = np.empty(PPM_INFO_SIZE)
        st = ppm(W, rows, Y, e, max_pivots if max_pivots > 0 else 2 * m, tol, warm, basis, z, w, pinfo)
        info[DW_PIVOTS] = pinfo[PPM_PIVOTS]
        if st != LCP_OK:
            info[DW_PPM_STATUS] = st
            info[DW_FALLBACK] = 1.0
    if solver != SOLVER_PPM or st != LCP_OK:
        F = np.empty((m, m))
        for i in range(m):
            for j in range(m):
                s = W[rows[i], rows[j]]
                for a in range(k):
                    s -= Y[a, i] * Y[a, j]
                F[i, j] = s
        linfo = np.empty(4)
        st = lemke(F, e, 0 if solver == SOLVER_PPM else max_pivots, tikhonov, z, w, linfo)
        info[DW_PIVOTS] += linfo[0]
        info[DW_TIKHONOV] = linfo[1]
    _finish_lcp(z, w, info)
    if st != LCP_OK:
        return st
    # p_E = -L^-T (c + Y z), scaled back; p_N = z
    x = np.empty(k)
    for a in range(k):
        s = c[a]
        for j in range(m):
            s += Y[a, j] * z[j]
        x[a] = -s
    for a in range(k - 1, -1, -1):
        s = x[a]
        for b in range(a + 1, k):
            s -= L[b, a] * x[b]
        x[a] = s / L[a, a]
    for a in range(k):
        p[sel[a]] = scale[sel[a]] * x[a]
    for j in range(m):
        p[rows[j]] = z[j]
    return LCP_OK


@jit
def noslip_solve(W, vf, nfree, m, solver, max_pivots, tikhonov, tol, warm, p, info):
    """No-slip contact (Drumwright 2015, Sec. VI, Eqs. 45-57): velocity-level, ``v+ = 0`` on the bilateral
    and tangential rows (Eqs. 24, 45, 46), ``0 <= p_n _|_ v+_n >= 0`` (Eq. 25). FIND-INDICES (Algorithm 2:
    bilateral rows, then per contact ``t1``, ``t2``) keeps an independent set ``E`` of the equality rows, so
    ``X = W_EE`` (the equality block ``A`` of Eq. 47) is non-singular; the dependent rows follow (their
    velocities are combinations of those in ``E``) and get ``p = 0``. The normal LCP ``F = W_NN -
    W_NE X^-1 W_EN`` (Eq. 56, PSD), ``e = vf_N - W_NE X^-1 vf_E`` (Eq. 57) is solved by PPM
    (``solver = SOLVER_PPM``, Algorithm 1 with Theorem 1, Lemke fallback recorded in ``info``) or by Lemke
    (``SOLVER_LEMKE``).

    Inputs: ``W`` (n, n), ``vf`` (n), ``nfree``, ``m`` (``n = nfree + 3m``), ``solver``, ``max_pivots``
    (``<= 0``: 2m for PPM, 50m for Lemke), ``tikhonov`` (Lemke's retry), ``tol`` (FIND-INDICES and PPM
    relative tolerance), ``warm`` (int64 contact indices to start PPM nonbasic; may be empty). Outputs:
    ``p`` (n), ``info`` (``DW_INFO_SIZE``). Status ``LCP_*`` (``LCP_OK`` solved)."""
    n = W.shape[0]
    scale = np.ones(n)
    shift = np.zeros(n)
    cand = np.empty(nfree + 2 * m, dtype=np.int64)
    for i in range(nfree):
        cand[i] = i
    for j in range(m):
        cand[nfree + 2 * j] = nfree + 3 * j + 1
        cand[nfree + 2 * j + 1] = nfree + 3 * j + 2
    return equality_normal_lcp(W, vf, nfree, m, scale, shift, cand, solver, max_pivots, tikhonov, tol, warm, p,
                               info)


@jit
def viscous_solve(W, vf, nfree, m, mu_v, dt, solver, max_pivots, tikhonov, tol, warm, p, info):
    """Purely viscous friction (Drumwright 2015, Sec. IV, Eqs. 29-42) at the velocity level: the viscous
    impulse ``p_t = -dt mu_v v+_t`` on each tangent row (the force ``-mu_v T v`` of Eq. 15 over the step,
    at the post-step velocity: linearly implicit, so stable for any ``mu_v dt``), normal rows complementary,
    bilateral rows ``v+ = 0``.

    With ``S = diag(sqrt(dt mu_v))`` on the tangent rows and ``u = S^-1 p_t``: ``(I + S W_tt S) u + S (W_t.
    p_rest + vf_t) = 0``, an equality block made PD by the identity (tangents always independent; a zero
    ``mu_v`` gives ``p_t = 0``), so the normal LCP (Eqs. 41-42) is the Schur complement of a PSD matrix:
    PSD, solved by PPM (Lemke fallback) or Lemke per ``solver``. Inputs and outputs as
    :func:`noslip_solve`, plus ``mu_v`` (m) >= 0 and ``dt`` > 0."""
    n = W.shape[0]
    scale = np.ones(n)
    shift = np.zeros(n)
    cand = np.empty(nfree + 2 * m, dtype=np.int64)
    for i in range(nfree):
        cand[i] = i
    for j in range(m):
        s = math.sqrt(dt * mu_v[j])
        for d in range(1, 3):
            r = nfree + 3 * j + d
            scale[r] = s
            shift[r] = 1.0
            cand[nfree + 2 * j + d - 1] = r
    return equality_normal_lcp(W, vf, nfree, m, scale, shift, cand, solver, max_pivots, tikhonov, tol, warm, p,
                               info)


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
