"""Projected Gauss-Seidel for the friction-pyramid contact problem (Jain 2014, Eqs. 12-16), and the whole
pyramid LCP its answers are checked on (:func:`pyramid_full`, :func:`pyramid_sigma`, :func:`lcp.lcp_error`).
Statuses and ``info`` as in :mod:`.lcp`."""

import math

import numpy as np

from .._jit import jit
from .lcp import LCP_MAX_PIVOTS, LCP_NAN, LCP_OK, lcp_error


@jit
def project_pyramid(y, c, act, out, o):
    """Euclidean projection of ``y`` (nf) onto ``{beta >= 0, sum(beta) <= c}`` (``c >= 0``), written to
    ``out[o:o + nf]``: clip at 0; if the sum exceeds ``c``, project onto the simplex ``sum = c`` by the
    active-set iteration ``tau = (sum_active y - c) / |active|`` (Michelot 1986). ``act`` is bool scratch."""
    nf = y.shape[0]
    s = 0.0
    for k in range(nf):
        s += max(y[k], 0.0)
    if s <= c:
        for k in range(nf):
            out[o + k] = max(y[k], 0.0)
        return
    for k in range(nf):
        act[k] = True
    tau = 0.0
    changed = True
    while changed:
        changed = False
        s = 0.0
        m = 0
        for k in range(nf):
            if act[k]:
                s += y[k]
                m += 1
        tau = (s - c) / m
        for k in range(nf):
            if act[k] and y[k] - tau <= 0.0:
                act[k] = False
                changed = True
    for k in range(nf):
        out[o + k] = max(y[k] - tau, 0.0) if act[k] else 0.0


@jit
def pgs_residual(A, b, nfree, ncontact, nf, mu, z, w, y, p, act):
    """Natural residual of the friction-pyramid contact problem solved by :func:`pgs`, with ``w = A z + b``
    written to ``w``: ``|w_i|`` on free rows, ``|min(z_n, w_n)|`` on normal rows and, per pyramid block,
    ``max_k |beta_k - P(beta - w_t)_k|`` with ``P`` the projection onto ``{beta >= 0, sum <= mu z_n}`` (zero
    iff the Jain 2014, Eq. 12 conditions hold with some ``sigma >= 0``). ``y``, ``p``, ``act``: nf scratch."""
    n = b.shape[0]
    for i in range(n):
        s = b[i]
        for j in range(n):
            s += A[i, j] * z[j]
        w[i] = s
    r = 0.0
    for i in range(nfree):
        r = max(r, abs(w[i]))
    for c in range(ncontact):
        a = nfree + c * (nf + 1)
        r = max(r, abs(min(z[a], w[a])))
        for k in range(nf):
            y[k] = z[a + 1 + k] - w[a + 1 + k]
        project_pyramid(y, mu[c] * max(z[a], 0.0), act, p, 0)
        for k in range(nf):
            r = max(r, abs(z[a + 1 + k] - p[k]))
    if r != r:
        return math.nan
    return r


@jit
def pgs(A, b, nfree, ncontact, nf, mu, iters, tol, z, info):
    """Projected Gauss-Seidel for the friction-pyramid contact problem without the ``sigma`` rows
    (Jain 2014, Eqs. 12-16): unknowns ``z = (z_f (nfree), then per contact [normal impulse, nf pyramid
    coefficients beta])``, velocity ``w = A z + b``; free rows solve ``w = 0``, each normal ``0 <= z_n perp
    w_n >= 0``, and each pyramid block lies in ``{beta >= 0, sum(beta) <= mu_i z_n}`` with maximal
    dissipation (``-w_t`` in its normal cone).

    One sweep: free and normal rows by (projected) Gauss-Seidel, ``z_i -= w_i / A_ii``; each pyramid block
    by one projected gradient step ``beta <- P(beta - w_t / L)`` with one step ``1 / L`` for the whole block
    (``L`` the largest Gershgorin row sum of its diagonal block: a per-coefficient step would change the
    fixed point). Converges on symmetric PSD ``A`` with positive diagonal. ``z`` holds the initial guess on
    entry (warm start) and the result on exit. Stops when :func:`pgs_residual` relative to ``|b|_inf`` is
    ``<= tol`` (checked each sweep) or after ``iters`` sweeps (``LCP_MAX_PIVOTS``). ``info``: sweeps, 0,
    relative residual, 1."""
    n = b.shape[0]
    bs = 0.0
    for i in range(n):
        bs = max(bs, abs(b[i]))
    if bs == 0.0:
        bs = 1.0
    info[0] = 0.0
    info[1] = 0.0
    info[3] = 1.0
    w = np.empty(n)
    y = np.empty(nf)
    p = np.empty(nf)
    act = np.empty(nf, dtype=np.bool_)
    L = np.empty(ncontact)
    for c in range(ncontact):
        a = nfree + c * (nf + 1) + 1
        L[c] = 0.0
        for k in range(nf):
            s = 0.0
            for l in range(nf):
                s += abs(A[a + k, a + l])
            L[c] = max(L[c], s)
    r = pgs_residual(A, b, nfree, ncontact, nf, mu, z, w, y, p, act) / bs
    it = 0
    while it < iters and r > tol:
        for i in range(nfree):
            s = b[i]
            for j in range(n):
                s += A[i, j] * z[j]
            z[i] -= s / A[i, i]
        for c in range(ncontact):
            a = nfree + c * (nf + 1)
            s = b[a]
            for j in range(n):
                s += A[a, j] * z[j]
            z[a] = max(z[a] - s / A[a, a], 0.0)
            for k in range(nf):
                s = b[a + 1 + k]
                for j in range(n):
                    s += A[a + 1 + k, j] * z[j]
                y[k] = z[a + 1 + k] - s / L[c] if L[c] > 0.0 else z[a + 1 + k]
            project_pyramid(y, mu[c] * z[a], act, z, a + 1)
        r = pgs_residual(A, b, nfree, ncontact, nf, mu, z, w, y, p, act) / bs
        it += 1
    info[0] = it
    info[2] = r
    if r != r:
        return LCP_NAN
    return LCP_OK if r <= tol else LCP_MAX_PIVOTS


@jit
def pyramid_sigma(M, q, nfree, ncontact, nf, z, w):
    """Complete an answer of :func:`pgs` (``z`` of the whole pyramid LCP, Jain 2014 Eqs. 12-16: free rows,
    per contact ``[z_n, beta]``, then the ``ncontact`` ``sigma``) with ``sigma_i = max(0, -min_j w_beta_ij)``
    (the slip speed along the pyramid's most opposed edge; ``w`` of the rows without ``sigma``), so that it
    can be checked by :func:`lcp.lcp_error` on the LCP it claims to solve. ``w`` is scratch."""
    nbeta = nfree + ncontact * (nf + 1)
    for i in range(ncontact):
        z[nbeta + i] = 0.0
    lcp_error(M, q, nfree, z, w)
    for i in range(ncontact):
        r0 = nfree + i * (nf + 1)
        sg = 0.0
        for j in range(nf):
            sg = max(sg, -w[r0 + 1 + j])
        z[nbeta + i] = sg


@jit
def pyramid_full(A, b, nfree, ncontact, nf, mu, M, q):
    """The whole pyramid LCP (Jain 2014 Eq. 14) of the problem :func:`pgs` solves: ``M = [[A, E_hat],
    [E_bar, 0]]``, ``q = [b; 0]`` (``E_hat``: a 1 in each pyramid row of contact ``i``'s ``sigma`` column;
    ``E_bar``: ``mu_i`` on its normal, ``-1`` on its pyramid rows)."""
    nbeta = b.shape[0]
    n = nbeta + ncontact
    M[:, :] = 0.0
    for i in range(nbeta):
        for j in range(nbeta):
            M[i, j] = A[i, j]
        q[i] = b[i]
    for c in range(ncontact):
        r0 = nfree + c * (nf + 1)
        for j in range(nf):
            M[r0 + 1 + j, nbeta + c] = 1.0
            M[nbeta + c, r0 + 1 + j] = -1.0
        M[nbeta + c, r0] = mu[c]
        q[nbeta + c] = 0.0
    return n
