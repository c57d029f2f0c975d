"""soadyn.lcp: closed-form problems, failures (LCPError), Tikhonov retry, input validation, and the kernels
called from another kernel."""

import numpy as np
import pytest

import soadyn as sd
from soadyn import lcp
from soadyn._jit import jit
from soadyn._kernels import lcp as K
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
    assert e.value.regularization == pytest.approx(1e-3)


def test_tikhonov_retry_solves_a_nearly_feasible_psd_problem():
    """M PSD singular, q infeasible by 1e-9 (roundoff-sized): plain Lemke ends in a ray (which certifies
    infeasibility), the retry with M + eps I returns z whose residual on the given problem is ~eps."""
    M = np.array([[1.0, -1.0], [-1.0, 1.0]])
    q = np.array([-1.0, 1.0 - 1e-9])
    with pytest.raises(lcp.LCPError) as e:
        lcp.lemke(M, q)
    assert e.value.status == "ray"
    res = lcp.lemke(M, q, tikhonov=1e-6)
    assert res.regularization == 1e-6
    assert res.residual <= 2e-6
    assert_close(res.z, [1.0, 0.0], 2e-6, "regularized z")


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
    assert (K.LCP_OK, K.LCP_RAY, K.LCP_MAX_PIVOTS, K.LCP_SINGULAR, K.LCP_NAN) == (0, 1, 2, 3, 4)
    assert set(lcp.STATUS_NAMES) == {0, 1, 2, 3, 4}


def test_lcp_residual_kernel():
    M = np.array([[2.0, 1.0], [1.0, 2.0]])
    q = np.array([-3.0, 1.0])
    assert K.lcp_residual(M, q, 0, np.array([1.5, 0.0]), np.array([0.0, 2.5])) == 0.0
    # w inconsistent with M z + q by 0.25; z = -0.5 infeasible; nfree row with w = 0.3
    assert K.lcp_residual(M, q, 0, np.array([1.5, 0.0]), np.array([0.0, 2.75])) == 0.25
    assert K.lcp_residual(M, q, 0, np.array([-0.5, 0.0]), np.array([-4.0, 0.5])) == 4.0
    assert K.lcp_residual(M, q, 1, np.array([1.5, 0.0]), np.array([0.0, 2.5])) == 0.0
    assert K.lcp_residual(M, q, 0, np.array([1.5, 1.0]), np.array([1.0, 4.5])) == 1.0  # z_i w_i != 0
    assert np.isnan(K.lcp_residual(M, q, 0, np.array([np.nan, 0.0]), np.array([0.0, 2.5])))


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
