"""soadyn.lcp: closed-form problems, failures (LCPError), Tikhonov retry, input validation, and the kernels
called from another kernel."""

from pathlib import Path

import numpy as np
import pytest

import soadyn as sd
from soadyn import lcp
from soadyn._jit import jit
from soadyn._kernels import lcp as K
from tests.crosscheck.test_lcp_random import pyramid, relative_error
from tests.support import SAME_MATH, assert_close


# ----------------------------------------------------------------------------------------- closed forms
def test_trivial_solution_when_q_nonnegative():
    M = np.array([[1.0, 2.0], [3.0, -4.0]])
    res = lcp.lemke(M, [0.0, 2.0])
    assert res.status == "ok" and res.pivots == 0 and res.regularization == 0.0
    assert_close(res.z, [0.0, 0.0], 0.0, "z")
    assert_close(res.w, [0.0, 2.0], 0.0, "w")


def test_two_by_two_closed_form():
    # M = [[2, 1], [1, 2]], q = [-3, 1]: z = (1.5, 0), w = (0, 2.5)
    res = lcp.lemke([[2.0, 1.0], [1.0, 2.0]], [-3.0, 1.0])
    assert_close(res.z, [1.5, 0.0], SAME_MATH, "z")
    assert_close(res.w, [0.0, 2.5], SAME_MATH, "w")
    assert res.residual <= 1e-15 and res.pivots == 2


def test_mixed_closed_form():
    # free row: 2 x + y = 1; complementarity: w = x + 3 y - 2 >= 0 perp y >= 0 -> y = 0.6, x = 0.2
    res = lcp.solve_mlcp([[2.0, 1.0], [1.0, 3.0]], [-1.0, -2.0], 1)
    assert_close(res.z, [0.2, 0.6], SAME_MATH, "z")
    assert res.w[0] == 0.0 and abs(res.w[1]) <= 1e-15


def test_equality_only_mixed_problem_is_a_linear_solve():
    rng = np.random.default_rng(2)
    M = rng.normal(size=(5, 5)) + 5.0 * np.eye(5)
    q = rng.normal(size=5)
    assert_close(lcp.solve_mlcp(M, q, 5).z, -np.linalg.solve(M, q), SAME_MATH * 10, "z")


def test_pgs_closed_form_single_contact_sliding():
    """One contact, identity compliance: the normal impulse cancels the approach, friction saturates at
    mu z_n against the tangential velocity along d_1 (pyramid [+x, -x])."""
    A = np.eye(3)
    A[1:, 1:] = [[1.0, -1.0], [-1.0, 1.0]]  # D^T D for the directions +x, -x
    b = np.array([-1.0, -2.0, 2.0])  # normal velocity -1, tangential velocity -2 along +x
    res = lcp.pgs(A, b, 0, 1, 2, 0.25, tol=1e-13)
    assert_close(res.z, [1.0, 0.25, 0.0], 1e-12, "z (normal, beta+, beta-)")
    warm = lcp.pgs(A, b, 0, 1, 2, 0.25, tol=1e-12, z0=res.z)
    assert warm.pivots == 0


# ---------------------------------------------------------------------------------------------- failures
def test_infeasible_lcp_raises_with_the_residual():
    M, q = -np.eye(3), -np.ones(3)
    with pytest.raises(sd.LCPError) as e:
        lcp.lemke(M, q)
    err = e.value
    assert isinstance(err, ValueError) and err.status == "ray"
    assert err.residual == pytest.approx(1.0) and err.pivots >= 1 and err.regularization == 0.0
    assert np.array_equal(err.M, M) and np.array_equal(err.q, q) and err.nfree == 0
    assert "secondary ray" in str(err) and "residual 1.000e+00" in str(err)
    with pytest.raises(sd.LCPError) as e:  # no regularization helps a negative definite M
        lcp.lemke(M, q, tikhonov=1e-6)
    assert e.value.regularization == pytest.approx(1e-6 * K.TIKHONOV_STEP ** (K.TIKHONOV_TRIES - 1))


def test_answers_are_checked_against_the_given_problem():
    """M PSD singular, q infeasible by ``delta``: an answer within ``LCP_TOL`` of the scale is a solution
    (delta = LCP_TOL / 10), one beyond is not (delta = 100 LCP_TOL), even when a regularized run
    (``M + eps I``) ends with it."""
    M = np.array([[1.0, -1.0], [-1.0, 1.0]])
    res = lcp.lemke(M, [-1.0, 1.0 - 0.1 * lcp.LCP_TOL])
    assert res.residual <= lcp.LCP_TOL
    assert_close(res.z, [1.0, 0.0], lcp.LCP_TOL, "z")
    for tikhonov in (0.0, 1e-6):
        with pytest.raises(lcp.LCPError) as e:
            lcp.lemke(M, [-1.0, 1.0 - 100 * lcp.LCP_TOL], tikhonov=tikhonov)
        assert e.value.status in ("ray", "inaccurate") and e.value.residual > lcp.LCP_TOL


def test_regularized_runs_find_the_active_set_of_coplanar_contacts():
    """Four coplanar contacts of a box face (rank-deficient W), pushed by gravity and sliding: the plain run
    may end on a basis chosen by round-off; every answer reported solved solves the given problem."""
    rng = np.random.default_rng(3)
    corners = np.array([[1.0, 1.0], [1.0, -1.0], [-1.0, 1.0], [-1.0, -1.0]]) * 0.1
    J = np.zeros((12, 6))
    for i, (x, y) in enumerate(corners):  # rows n, t1, t2 of corner i: v + w x r, r = (x, y, -0.1)
        r = np.array([x, y, -0.1])
        for a, e in enumerate(np.eye(3)[[2, 0, 1]]):
            J[3 * i + a, :3] = np.cross(r, e)
            J[3 * i + a, 3:] = e
    Minv = np.diag([1.0 / 0.0133] * 3 + [0.5] * 3)
    W = J @ Minv @ J.T
    solved = 0
    for _ in range(200):
        Wp = W + 1e-16 * (lambda E: E + E.T)(rng.normal(size=W.shape))
        v = J @ np.r_[1e-3 * rng.normal(size=3), 0.1 * rng.normal(size=2), -9.81e-3]
        A, b = pyramid(Wp, v, 0.6, 4)
        try:
            res = lcp.lemke(A, b, tikhonov=1e-10)
        except lcp.LCPError:
            continue
        solved += 1
        assert relative_error(A, b, res.z) <= 2 * lcp.LCP_TOL
    assert solved == 200


STATES = Path(__file__).parents[1] / "physics" / "data" / "pendulum12_states.npz"


def _checked(M, q, z, tol):
    """``z`` solves the LCP to ``tol`` (checked here from the equations, not by the solver)."""
    w = M @ z + q
    return z.min() >= 0.0 and np.abs(np.minimum(np.abs(M).max() * z, w)).max() <= tol * np.abs(q).max()


def test_pivot_candidates_are_judged_against_their_own_row():
    """A tableau column whose true pivot, 1.5e-7, sits in a row of unit size beside an entry of 1e5 in a row
    that an earlier small pivot blew up: a tolerance relative to the column's largest entry rejects it (and
    the ratio test picks the wrong row); judged against the round-off bound of its own row it is the pivot."""
    n = 2
    T = np.zeros((2 * n + 2, n))  # column-major: T[j] is column j; B^-1 = columns 0, 1
    T[0, 0], T[1, 1] = 1e5, 1.0
    T[2] = [1e5, 1.5e-7]  # the entering column
    T[5] = [1e5, 1.5e-8]  # q: ratios 1 and 0.1
    basis = np.array([0, 1])
    r = K.leaving_row(T, 2, basis, np.ones(2 * n + 1), np.empty(n, dtype=np.int64), np.empty(n, dtype=np.int64))
    assert r == 1


@pytest.mark.parametrize("name", ["", "_stiff"])
def test_nearly_jammed_contact_steps_are_solved(name):
    """Step LCPs of a folded 12-link chain (18 rows; one normal row of Delassus diagonal 4e-9 and 1e-10 of the
    largest): plain runs solve them, on the Jacobi-scaled problem with the row-scaled pivot test; without
    these the answers were off by 6e-3 and 7e-2. The answers need normal impulses of 9e2 and 3e3 N s."""
    d = np.load(STATES)
    M, q = d["M" + name], d["q" + name]
    r = lcp.lemke(M, q)
    assert r.regularization == 0.0 and _checked(M, q, r.z, 1e-9)
    assert r.z[0] > 5e2  # the normal impulse the nearly jammed contact needs (N s)


def test_jacobi_scaling_keeps_the_problem():
    """``D M D``, ``D q`` with ``D = diag(1 / sqrt(M_ii))`` where ``M_ii`` is not round-off (1 elsewhere)."""
    M = np.array([[4.0, 1.0, 0.0], [1.0, 1e-20, 2.0], [0.0, -2.0, 0.25]])
    q = np.array([-1.0, 2.0, -3.0])
    d, Ms, qs = np.empty(3), np.empty((3, 3)), np.empty(3)
    K.jacobi_scale(M, q, np.abs(M).max(), d, Ms, qs)
    assert_close(d, [0.5, 1.0, 2.0], SAME_MATH, "D")
    assert_close(Ms, np.diag(d) @ M @ np.diag(d), SAME_MATH, "D M D")
    assert_close(qs, d * q, SAME_MATH, "D q")


def test_pivot_limit():
    rng = np.random.default_rng(0)
    B = rng.normal(size=(10, 10))
    M, q = B @ B.T + np.eye(10), -np.ones(10) - rng.uniform(size=10)
    assert lcp.lemke(M, q).pivots > 3
    with pytest.raises(lcp.LCPError) as e:
        lcp.lemke(M, q, max_pivots=3)
    assert e.value.status == "max_pivots" and e.value.pivots == 3


def test_singular_free_block():
    M = np.array([[1.0, 1.0, 0.0], [1.0, 1.0, 0.0], [0.0, 0.0, 1.0]])  # M_ff = [[1, 1], [1, 1]]
    q = np.array([-1.0, -1.0, -1.0])
    with pytest.raises(lcp.LCPError) as e:
        lcp.solve_mlcp(M, q, 2)
    assert e.value.status == "singular" and "singular" in str(e.value)
    res = lcp.solve_mlcp(M, q, 2, tikhonov=1e-8)  # consistent free rows: the regularized block solves them
    assert res.regularization > 0.0 and res.residual <= 1e-6
    assert_close(res.z, [0.5, 0.5, 1.0], 1e-6, "regularized z")


def test_pgs_not_converged():
    rng = np.random.default_rng(1)
    B = rng.normal(size=(10, 10))
    A = B @ B.T + 0.01 * np.eye(10)
    b = rng.normal(size=10)
    with pytest.raises(lcp.LCPError) as e:
        lcp.pgs(A, b, 0, 2, 4, 0.5, iters=2, tol=1e-12)
    assert e.value.status == "max_pivots" and e.value.pivots == 2 and e.value.residual > 1e-12


# ------------------------------------------------------------------------------------------- bad input
@pytest.mark.parametrize("call,name", [
    (lambda: lcp.lemke(np.ones((2, 3)), [1.0, 1.0]), "M"),
    (lambda: lcp.lemke(np.ones(3), [1.0, 1.0, 1.0]), "M"),
    (lambda: lcp.lemke([[1.0, np.nan], [0.0, 1.0]], [1.0, 1.0]), "M"),
    (lambda: lcp.lemke([["a", 1.0], [0.0, 1.0]], [1.0, 1.0]), "M"),
    (lambda: lcp.lemke(np.eye(2), [1.0, 1.0, 1.0]), "q"),
    (lambda: lcp.lemke(np.eye(2), [1.0, np.inf]), "q"),
    (lambda: lcp.lemke(np.eye(2), [1.0, 1.0], max_pivots=0), "max_pivots"),
    (lambda: lcp.lemke(np.eye(2), [1.0, 1.0], tikhonov=-1.0), "tikhonov"),
    (lambda: lcp.lemke(np.eye(2), [1.0, 1.0], tikhonov=np.nan), "tikhonov"),
    (lambda: lcp.solve_mlcp(np.eye(2), [1.0, 1.0], 3), "nfree"),
    (lambda: lcp.solve_mlcp(np.eye(2), [1.0, 1.0], -1), "nfree"),
    (lambda: lcp.solve_mlcp(np.eye(2), [1.0, 1.0], 1.0), "nfree"),
    (lambda: lcp.solve_mlcp(np.eye(2), [1.0, 1.0], True), "nfree"),
    (lambda: lcp.pgs(np.eye(5), np.ones(5), 0, 2, 4, 0.5), "ncontact"),
    (lambda: lcp.pgs(np.eye(5), np.ones(5), 0, 1, 4, [0.5, 0.5]), "mu"),
    (lambda: lcp.pgs(np.eye(5), np.ones(5), 0, 1, 4, -0.5), "mu"),
    (lambda: lcp.pgs(np.eye(5), np.ones(4), 0, 1, 4, 0.5), "b"),
    (lambda: lcp.pgs(np.diag([1.0, 0.0, 1.0, 1.0, 1.0]), np.ones(5), 0, 1, 4, 0.5), "A"),
    (lambda: lcp.pgs(np.eye(5), np.ones(5), 0, 1, 4, 0.5, iters=0), "iters"),
    (lambda: lcp.pgs(np.eye(5), np.ones(5), 0, 1, 4, 0.5, z0=np.ones(4)), "z0"),
])
def test_bad_input_names_the_argument(call, name):
    with pytest.raises(ValueError, match=f"^{name}:"):
        call()


def test_inputs_are_not_modified_and_awkward_forms_accepted():
    M = np.array([[2.0, 1.0], [1.0, 2.0]], order="F")
    q = np.array([-3.0, 1.0, 7.0])[:2]
    M0, q0 = M.copy(), q.copy()
    res = lcp.lemke(M, q.astype(np.float32))
    assert np.array_equal(M, M0) and np.array_equal(q, q0)
    assert_close(res.z, [1.5, 0.0], SAME_MATH, "z")


# ------------------------------------------------------------------------------------------------ kernels
def test_status_codes():
    assert (K.LCP_OK, K.LCP_RAY, K.LCP_MAX_PIVOTS, K.LCP_SINGULAR, K.LCP_NAN, K.LCP_INACCURATE) == (0, 1, 2, 3, 4, 5)
    assert set(lcp.STATUS_NAMES) == {0, 1, 2, 3, 4, 5}


def test_lcp_error_kernel():
    M = np.array([[2.0, 1.0], [1.0, 2.0]])
    q = np.array([-3.0, 1.0])
    w = np.empty(2)
    assert K.lcp_error(M, q, 0, np.array([1.5, 0.0]), w) == 0.0
    assert_close(w, [0.0, 2.5], 0.0, "w")
    # relative to |q|_inf = 3, z in the units of w by |M|_max = 2: z = -0.5 infeasible (w = (-4, 0.5))
    assert K.lcp_error(M, q, 0, np.array([-0.5, 0.0]), w) == 4.0 / 3.0
    assert K.lcp_error(M, q, 1, np.array([1.5, 0.0]), w) == 0.0 and w[0] == 0.0  # free row: w reported 0
    assert K.lcp_error(M, q, 1, np.array([1.0, 0.0]), w) == 1.0 / 3.0  # free row violated by 1
    assert K.lcp_error(M, q, 0, np.array([1.5, 1.0]), w) == 2.0 / 3.0  # z_i w_i != 0: min(2 * 1, 2)
    assert np.isnan(K.lcp_error(M, q, 0, np.array([np.nan, 0.0]), w))


def test_kernels_report_nan_input():
    z, w, info = np.zeros(2), np.zeros(2), np.zeros(4)
    M = np.array([[1.0, 0.0], [0.0, np.nan]])
    assert K.lemke(M, np.array([-1.0, -1.0]), 0, 0.0, z, w, info) == K.LCP_NAN
    assert K.mlcp(M, np.array([-1.0, -1.0]), 1, 0, 0.0, z, w, info) == K.LCP_NAN


@jit
def _batch_of_lcps(Ms, qs, nfree, Z, status):
    """A kernel calling the solver kernels in a loop (as the contact step kernel does)."""
    n = qs.shape[1]
    w = np.empty(n)
    info = np.empty(4)
    for k in range(qs.shape[0]):
        if nfree == 0:
            status[k] = K.lemke(Ms[k], qs[k], 0, 0.0, Z[k], w, info)
        else:
            status[k] = K.mlcp(Ms[k], qs[k], nfree, 0, 0.0, Z[k], w, info)


def test_solver_kernels_callable_from_a_kernel():
    rng = np.random.default_rng(4)
    Ms = np.array([(lambda B: B @ B.T + np.eye(6))(rng.normal(size=(6, 6))) for _ in range(5)])
    qs = rng.normal(size=(5, 6))
    for nfree in (0, 2):
        Z, status = np.zeros((5, 6)), np.full(5, -1, dtype=np.int64)
        _batch_of_lcps(Ms, qs, nfree, Z, status)
        assert np.all(status == K.LCP_OK)
        for k in range(5):
            assert_close(Z[k], lcp.solve_mlcp(Ms[k], qs[k], nfree).z, SAME_MATH, f"kernel-called solve {k}")


def test_runs_that_may_be_followed_get_a_short_budget_and_rerun_when_none_passes():
    """Murty's LCP (``M`` unit lower triangular with 2 below the diagonal, ``q = -1``) takes Lemke 2^n pivots.
    At n = 6 that is 64, more than ``RUN_PIVOTS n = 30``: without regularized runs to follow the plain run
    has the whole budget; with them every run stops at 30 (the plain one and four on ``M + eps I``, which
    has the same structure), none passes, and the plain run is repeated with the whole budget."""
    n = 6
    M = np.eye(n) + 2.0 * np.tril(np.ones((n, n)), -1)
    q = -np.ones(n)
    plain = lcp.lemke(M, q)
    assert plain.pivots == 2 ** n and np.array_equal(plain.z, np.eye(n)[0])
    assert K.RUN_PIVOTS * n < 2 ** n < 50 * n
    cut = lcp.lemke(M, q, tikhonov=1e-10)
    assert cut.pivots == (1 + K.TIKHONOV_TRIES) * K.RUN_PIVOTS * n + 2 ** n
    assert cut.regularization == 0.0 and np.array_equal(cut.z, plain.z)
