"""Brute-force reference for small (mixed) LCPs, and the test problems of the LCP solvers.

:func:`enumerate_solutions` visits every complementary basis: for each subset ``a`` of the complementarity
rows (``z_a`` free to be nonzero, ``w_a = 0``; the free rows always in ``a``) with a nonsingular principal
block ``M_aa`` it solves ``M_aa z_a = -q_a`` and keeps the feasible ``(z, w)``. These are all the basic
complementary solutions, so every solution that Lemke's method (or a Schur complement then Lemke) returns is
among them; a P-matrix LCP has exactly one.

:func:`contact_lcp` builds the friction-pyramid contact LCP of Jain 2014, Eqs. 11-15 from a random contact
Jacobian.
"""

from itertools import combinations

import numpy as np

MAX_ENUM = 12
"""Largest number of complementarity rows enumerated (2^12 principal blocks)."""


def enumerate_solutions(M, q, nfree=0, tol=1e-9, cond_max=1e10):
    """All basic complementary solutions ``[(z, w), ...]`` of the (mixed) LCP ``w = M z + q`` with free
    first ``nfree`` rows (``w_f = 0``), ``0 <= z_c perp w_c >= 0`` otherwise; duplicates (the same ``z`` from
    degenerate bases) removed. ``tol`` is relative to ``max(1, |q|)`` for feasibility."""
    M = np.asarray(M, dtype=float)
    q = np.asarray(q, dtype=float)
    n = q.shape[0]
    nc = n - nfree
    assert nc <= MAX_ENUM, f"{nc} complementarity rows: too many to enumerate"
    scale = max(1.0, np.abs(q).max(initial=0.0))
    free = list(range(nfree))
    sols = []
    for k in range(nc + 1):
        for sub in combinations(range(nfree, n), k):
            a = free + list(sub)
            z = np.zeros(n)
            if a:
                Maa = M[np.ix_(a, a)]
                if np.linalg.cond(Maa) > cond_max:
                    continue
                z[a] = np.linalg.solve(Maa, -q[a])
            w = M @ z + q
            w[a] = 0.0
            zs = max(1.0, np.abs(z).max())
            if np.all(z[nfree:] >= -tol * zs) and np.all(w[nfree:] >= -tol * scale * zs):
                if not any(np.abs(z - z2).max() <= 1e-7 * zs for z2, _ in sols):
                    sols.append((z, w))
    return sols


def distance_to_solutions(z, sols):
    """``min over the enumerated solutions of max|z - z_s|`` (inf when there is none)."""
    return min((float(np.abs(z - zs).max()) for zs, _ in sols), default=np.inf)


# ------------------------------------------------------------------------------------------- problems
def pyramid(nf):
    """``D(i)`` of Jain 2014, Eq. 7 for the contact normal ``e_z``: columns ``[n, d_1 .. d_nf]`` with the
    pyramid directions ``d_k`` evenly spaced in the tangent plane (3 x (nf + 1))."""
    D = np.zeros((3, nf + 1))
    D[2, 0] = 1.0
    for k in range(nf):
        a = 2.0 * np.pi * k / nf
        D[0, k + 1], D[1, k + 1] = np.cos(a), np.sin(a)
    return D


def contact_matrices(ncontact, nf, mu):
    """``D``, ``E_hat``, ``E_bar`` of Jain 2014, Eqs. 11-15 for ``ncontact`` contacts (``mu`` per contact)."""
    mu = np.broadcast_to(np.asarray(mu, dtype=float), (ncontact,))
    m = nf + 1
    D = np.zeros((3 * ncontact, ncontact * m))
    E_hat = np.zeros((ncontact * m, ncontact))
    E_bar = np.zeros((ncontact, ncontact * m))
    for c in range(ncontact):
        D[3 * c:3 * c + 3, c * m:(c + 1) * m] = pyramid(nf)
        E_hat[c * m + 1:(c + 1) * m, c] = 1.0
        E_bar[c, c * m] = mu[c]
        E_bar[c, c * m + 1:(c + 1) * m] = -1.0
    return D, E_hat, E_bar


def random_compliance(rng, ncontact, ndof, duplicate=()):
    """``A = J M^-1 J^T`` (3 ncontact square) for a random full-row-rank contact Jacobian ``J`` (3 ncontact x
    ndof) and a random SPD mass matrix; contact ``c`` in ``duplicate`` (pairs ``(c, c0)``) copies the rows
    of ``c0`` (two contacts at the same point: degenerate)."""
    J = rng.normal(size=(3 * ncontact, ndof))
    for c, c0 in duplicate:
        J[3 * c:3 * c + 3] = J[3 * c0:3 * c0 + 3]
    B = rng.normal(size=(ndof, ndof))
    Mass = B @ B.T + ndof * np.eye(ndof)
    return J @ np.linalg.solve(Mass, J.T)


def contact_lcp(A, v, nf, mu):
    """The contact LCP with friction pyramids (Jain 2014, Eqs. 14, 41): ``M = [[D^T A D, E_hat], [E_bar, 0]]``,
    ``q = [D^T v, 0]``, ``z = (beta, sigma)``; ``A`` the contact compliance (3 nc square), ``v`` the free
    contact velocity (3 nc)."""
    ncontact = A.shape[0] // 3
    D, E_hat, E_bar = contact_matrices(ncontact, nf, mu)
    M = np.block([[D.T @ A @ D, E_hat], [E_bar, np.zeros((ncontact, ncontact))]])
    q = np.concatenate([D.T @ v, np.zeros(ncontact)])
    return M, q


def random_contact_lcp(rng, ncontact, nf, mu=0.5, ndof=None, duplicate=(), scale_v=1.0):
    """:func:`contact_lcp` for a random compliance and free velocity (approaching on average)."""
    A = random_compliance(rng, ncontact, ndof or 3 * ncontact + 4, duplicate)
    v = rng.normal(size=3 * ncontact) * scale_v
    v[2::3] -= 0.5 * scale_v
    return contact_lcp(A, v, nf, mu)


def random_kkt_mlcp(rng, ndof, nb, ncontact, nf, mu=0.5):
    """A mixed LCP with a KKT free block (Jain 2014, Eq. 36 form): free rows ``[[H, -G^T], [G, 0]]`` for the
    velocities (ndof) and bilateral impulses (nb), then the contact rows ``[D^T J, 0, 0, E_hat]`` and
    ``[0, 0, E_bar, 0]`` with the velocity coupling ``-J^T D`` in the first block row. Returns ``(M, q, nfree)``."""
    B = rng.normal(size=(ndof, ndof))
    H = B @ B.T + ndof * np.eye(ndof)
    G = rng.normal(size=(nb, ndof))
    J = rng.normal(size=(3 * ncontact, ndof))
    D, E_hat, E_bar = contact_matrices(ncontact, nf, mu)
    nz = ncontact * (nf + 1)
    n = ndof + nb + nz + ncontact
    M = np.zeros((n, n))
    f, b, c = ndof, ndof + nb, ndof + nb + nz
    M[:f, :f] = H
    M[:f, f:b] = -G.T
    M[:f, b:c] = -J.T @ D
    M[f:b, :f] = G
    M[b:c, :f] = D.T @ J
    M[b:c, c:] = E_hat
    M[c:, b:c] = E_bar
    v0 = rng.normal(size=ndof)
    q = np.concatenate([-H @ v0, rng.normal(size=nb) * 0.1, np.zeros(nz + ncontact)])
    return M, q, ndof + nb


def random_p_matrix(rng, n):
    """A non-symmetric P-matrix: ``S + K`` with ``S`` SPD and ``K`` skew (positive definite, hence P)."""
    B = rng.normal(size=(n, n))
    K = rng.normal(size=(n, n))
    return B @ B.T / n + 0.5 * np.eye(n) + (K - K.T)


def random_psd(rng, n, rank):
    """A symmetric PSD matrix of the given rank (rank-deficient for rank < n)."""
    B = rng.normal(size=(n, rank))
    return B @ B.T
