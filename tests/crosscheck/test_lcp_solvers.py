"""LCP solvers against brute-force enumeration, against lemkelcp, and against each other.

Classes: symmetric PD, non-symmetric P, rank-deficient PSD, friction-pyramid contact problems (Jain 2014,
Eqs. 11-15; several contacts, duplicated contacts), mixed LCPs with KKT free blocks (Jain 2014, Eq. 36
form), degenerate ``q``. Lemke's solution must be one of the enumerated basic solutions (the only one for P).
"""

import numpy as np
import pytest

from soadyn import lcp
from tests.reference import lcp_enum as ref
from tests.support import ALGORITHMS, assert_close

LCP_TOL = 1e-9
"""Feasibility and complementarity of a solution, relative to the problem's scale."""


def check_solution(M, q, z, w, nfree=0, tol=LCP_TOL, what="LCP"):
    """``w = M z + q``, free rows ``w = 0``, ``z_c, w_c >= -tol``, ``z_c^T w_c <= tol`` (scaled)."""
    s = max(1.0, np.abs(q).max(), np.abs(z).max()) * max(1.0, np.abs(M).max())
    r = M @ z + q
    assert np.abs(w[nfree:] - r[nfree:]).max(initial=0.0) <= tol * s, f"{what}: w != M z + q"
    assert np.abs(r[:nfree]).max(initial=0.0) <= tol * s, f"{what}: free rows not solved"
    assert z[nfree:].min(initial=0.0) >= -tol * s, f"{what}: z < 0 ({z[nfree:].min():.3e})"
    assert w[nfree:].min(initial=0.0) >= -tol * s, f"{what}: w < 0 ({w[nfree:].min():.3e})"
    assert abs(z[nfree:] @ w[nfree:]) <= tol * s * max(1.0, np.abs(z).max()), f"{what}: z^T w = {z @ w:.3e}"


def in_enumeration(M, q, res, nfree=0, unique=False, what="LCP"):
    sols = ref.enumerate_solutions(M, q, nfree)
    assert sols, f"{what}: the enumeration found no solution"
    if unique:
        assert len(sols) == 1, f"{what}: a P-matrix LCP with {len(sols)} solutions"
    d = ref.distance_to_solutions(res.z, sols)
    assert d <= 1e-7 * max(1.0, np.abs(res.z).max()), f"{what}: Lemke's z is {d:.3e} from every enumerated solution"


# ----------------------------------------------------------------------------------- vs enumeration
@pytest.mark.parametrize("n", [1, 2, 5, 8])
def test_symmetric_pd_and_p_matrices_unique_solution(n):
    rng = np.random.default_rng(100 + n)
    for trial in range(12):
        if trial % 2:
            M = ref.random_p_matrix(rng, n)
        else:
            B = rng.normal(size=(n, n))
            M = B @ B.T + 0.1 * np.eye(n)
        q = rng.normal(size=n)
        res = lcp.lemke(M, q)
        check_solution(M, q, res.z, res.w, what=f"n={n} trial {trial}")
        in_enumeration(M, q, res, unique=True, what=f"n={n} trial {trial}")


def test_rank_deficient_psd():
    rng = np.random.default_rng(7)
    solved = 0
    for trial in range(30):
        n = int(rng.integers(3, 9))
        M = ref.random_psd(rng, n, rank=int(rng.integers(1, n)))
        q = M @ rng.normal(size=n) + np.abs(rng.normal(size=n)) * (trial % 2)  # feasible: q in range(M) + w
        try:
            res = lcp.lemke(M, q)
        except lcp.LCPError as exc:  # a ray certifies infeasibility: then the enumeration finds nothing
            assert exc.status == "ray"
            assert not ref.enumerate_solutions(M, q), f"trial {trial}: ray on a solvable PSD LCP"
            continue
        solved += 1
        check_solution(M, q, res.z, res.w, what=f"PSD trial {trial}")
        in_enumeration(M, q, res, what=f"PSD trial {trial}")
    assert solved >= 20


@pytest.mark.parametrize("ncontact,nf,duplicate", [(1, 4, ()), (2, 2, ()), (2, 2, ((1, 0),)), (3, 2, ((2, 1),)),
                                                   (1, 6, ())])
def test_contact_pyramids_vs_enumeration(ncontact, nf, duplicate):
    rng = np.random.default_rng(ncontact * 10 + nf)
    for trial in range(8 if ncontact * (nf + 2) <= 10 else 3):
        M, q = ref.random_contact_lcp(rng, ncontact, nf, mu=rng.uniform(0.1, 1.0), duplicate=duplicate)
        res = lcp.lemke(M, q)
        check_solution(M, q, res.z, res.w, what=f"contact trial {trial}")
        in_enumeration(M, q, res, what=f"contact trial {trial}")


@pytest.mark.parametrize("ncontact,nf", [(4, 4), (6, 8), (10, 4)])
def test_large_contact_problems_solved(ncontact, nf):
    """Sizes beyond enumeration (24 = the OS LCP of Jain 2014 Table 2): complementarity checked directly,
    also with two contacts duplicated and with zero free velocities (degenerate)."""
    rng = np.random.default_rng(ncontact + nf)
    for trial in range(10):
        dup = ((1, 0),) if trial % 3 == 1 else ()
        M, q = ref.random_contact_lcp(rng, ncontact, nf, mu=0.6, duplicate=dup)
        if trial % 3 == 2:
            q[: ncontact * (nf + 1) // 2] = 0.0
        res = lcp.lemke(M, q)
        check_solution(M, q, res.z, res.w, what=f"{ncontact} contacts trial {trial}")
        assert res.pivots <= 10 * q.size


def test_degenerate_problems_terminate():
    """Zeros in q, duplicated rows and columns, ties in the first ratio: the lexicographic rule ends them."""
    rng = np.random.default_rng(3)
    for trial in range(20):
        n = int(rng.integers(2, 8))
        B = rng.normal(size=(n, n))
        M = B @ B.T + 0.1 * np.eye(n)
        k = int(rng.integers(0, n - 1))
        M[k + 1], M[:, k + 1] = M[k], M[:, k]  # a duplicated row and column (PSD, singular)
        M[k + 1, k + 1] = M[k, k]
        q = rng.normal(size=n)
        q[k + 1] = q[k]
        q[rng.integers(0, n)] = 0.0
        if trial % 2:
            q[:] = -1.0  # every ratio tied
        res = lcp.lemke(M, q)
        check_solution(M, q, res.z, res.w, what=f"degenerate trial {trial}")
        in_enumeration(M, q, res, what=f"degenerate trial {trial}")


@pytest.mark.parametrize("ndof,nb,ncontact,nf", [(3, 1, 1, 2), (4, 2, 2, 2), (6, 0, 1, 4)])
def test_mixed_lcp_with_kkt_free_block_vs_enumeration(ndof, nb, ncontact, nf):
    rng = np.random.default_rng(ndof * 100 + nb)
    solved = 0
    for trial in range(6):
        M, q, nfree = ref.random_kkt_mlcp(rng, ndof, nb, ncontact, nf)
        try:
            res = lcp.solve_mlcp(M, q, nfree)
        except lcp.LCPError as exc:  # the reduced LCP is copositive-plus: a ray certifies infeasibility
            assert exc.status == "ray"
            assert not ref.enumerate_solutions(M, q, nfree), f"trial {trial}: ray on a solvable MLCP"
            continue
        solved += 1
        assert np.all(res.w[:nfree] == 0.0)
        check_solution(M, q, res.z, res.w, nfree=nfree, what=f"MLCP trial {trial}")
        in_enumeration(M, q, res, nfree=nfree, what=f"MLCP trial {trial}")
    assert solved >= 4


def test_mixed_lcp_matches_lemke_on_the_reduced_problem():
    """Schur complement by hand (dense inverse) then Lemke == solve_mlcp; nfree = 0 == lemke."""
    rng = np.random.default_rng(11)
    M, q, nfree = ref.random_kkt_mlcp(rng, 6, 2, 3, 4)
    Mff_inv = np.linalg.inv(M[:nfree, :nfree])
    Mr = M[nfree:, nfree:] - M[nfree:, :nfree] @ Mff_inv @ M[:nfree, nfree:]
    qr = q[nfree:] - M[nfree:, :nfree] @ Mff_inv @ q[:nfree]
    red = lcp.lemke(Mr, qr)
    full = lcp.solve_mlcp(M, q, nfree)
    assert_close(full.z[nfree:], red.z, ALGORITHMS, "contact unknowns of the MLCP")
    assert_close(full.z[:nfree], -Mff_inv @ (q[:nfree] + M[:nfree, nfree:] @ red.z), ALGORITHMS, "free unknowns")
    Mc, qc = ref.random_contact_lcp(rng, 2, 4)
    assert_close(lcp.solve_mlcp(Mc, qc, 0).z, lcp.lemke(Mc, qc).z, 1e-15, "nfree = 0")


# ---------------------------------------------------------------------------------------- lemkelcp
def _lemkelcp(M, q, max_iter):
    """lemkelcp 0.1's solver (its module-level wrapper fails on Python 3: it assigns into ``range``)."""
    lemkelcp = pytest.importorskip("lemkelcp.lemkelcp")
    t = lemkelcp.lemketableau(M, q, max_iter)
    t.wPos, t.zPos = list(t.wPos), list(t.zPos)
    return t.lemkeAlgorithm()


@pytest.mark.external
@pytest.mark.parametrize("n", [3, 10, 24])
def test_against_lemkelcp_on_p_matrices(n):
    rng = np.random.default_rng(n)
    for trial in range(10):
        M = ref.random_p_matrix(rng, n)
        q = rng.normal(size=n)
        z_ext, code, msg = _lemkelcp(M, q, 1000)
        assert code == 0, msg
        assert_close(lcp.lemke(M, q).z, z_ext, ALGORITHMS, f"z vs lemkelcp (n={n}, trial {trial})")


# -------------------------------------------------------------------------------------------- PGS
def _pgs_problem(rng, nfree, ncontact, nf, mu):
    """PGS data ``(A, b)`` for the contact problem without sigma rows, and the matching mixed LCP with
    sigma rows for Lemke: ``A = D^T C D`` with ``C`` a random SPD compliance of the free and contact rows."""
    m = nfree + 3 * ncontact
    B = rng.normal(size=(m, m + 3))
    C = B @ B.T / m + 0.2 * np.eye(m)
    D, E_hat, E_bar = ref.contact_matrices(ncontact, nf, mu)
    T = np.zeros((m, nfree + D.shape[1]))
    T[:nfree, :nfree] = np.eye(nfree)
    T[nfree:, nfree:] = D
    A = T.T @ C @ T
    v = rng.normal(size=m)
    v[nfree + 2::3] -= 1.0
    b = T.T @ v
    n = A.shape[0]
    M = np.zeros((n + ncontact, n + ncontact))
    M[:n, :n] = A
    M[nfree:n, n:] = E_hat
    M[n:, nfree:n] = E_bar
    return A, b, M, np.concatenate([b, np.zeros(ncontact)]), T


@pytest.mark.parametrize("nfree,ncontact,nf", [(0, 1, 4), (0, 3, 4), (2, 2, 4), (0, 4, 8)])
def test_pgs_converges_to_lemke(nfree, ncontact, nf):
    """The contact forces ``T z`` (free impulses, normal and friction forces) and velocities of PGS agree
    with Lemke's mixed LCP solution to 1e-6."""
    rng = np.random.default_rng(nfree * 10 + ncontact + nf)
    for trial in range(4):
        mu = rng.uniform(0.2, 0.8, size=ncontact)
        A, b, M, q, T = _pgs_problem(rng, nfree, ncontact, nf, mu)
        lem = lcp.solve_mlcp(M, q, nfree)
        pg = lcp.pgs(A, b, nfree, ncontact, nf, mu, iters=20000, tol=1e-11)
        n = A.shape[0]
        assert_close(T @ pg.z, T @ lem.z[:n], 1e-6, f"PGS forces vs Lemke (trial {trial})")
        assert_close(pg.w[nfree:], lem.w[nfree:n] - M[nfree:n, n:] @ lem.z[n:], 1e-6,
                     f"PGS velocities vs Lemke (trial {trial})")
