"""LCP and mixed LCP solvers (Jain 2014, Eq. 9): ``w = M z + q``, ``0 <= z perp w >= 0``, and mixed problems
whose first ``nfree`` rows are equalities with free ``z`` (Jain 2014, Eqs. 27, 36, 53).

* :func:`lemke`: Lemke's complementary pivoting (lexicographic, so degenerate problems terminate), with an
  optional Tikhonov retry; solves P-matrix and copositive-plus problems such as the friction-pyramid contact
  LCPs (Jain 2014, Eqs. 14, 41, 53), or reports that none was found.
* :func:`solve_mlcp`: mixed LCPs, the free rows eliminated by a Schur complement, then Lemke.
* :func:`pgs`: projected Gauss-Seidel, a fast approximate solver for the contact problem without the
  ``sigma`` rows.

No answer is returned unchecked: a result is one whose natural residual relative to the problem's scale
(``soadyn._kernels.lcp.lcp_error``) is at most :data:`LCP_TOL` (PGS: on the whole pyramid LCP, ``sigma``
rows included); anything else raises.
Each returns an :class:`LCPResult` or raises :class:`LCPError` carrying the problem and its residuals. The
kernels (``soadyn._kernels.lcp``) are callable from other kernels; these wrappers validate inputs and copy
them to C-contiguous float64 so each kernel compiles one signature.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ._kernels import lcp as _k
from ._kernels import pgs as _kg

__all__ = ["LCPError", "LCPResult", "STATUS_NAMES", "LCP_TOL", "lemke", "solve_mlcp", "pgs"]

LCP_TOL = _k.LCP_TOL
"""Largest relative residual of an answer reported solved (see :func:`soadyn._kernels.lcp.lcp_error`)."""

STATUS_NAMES = {_k.LCP_OK: "ok", _k.LCP_RAY: "ray", _k.LCP_MAX_PIVOTS: "max_pivots",
                _k.LCP_SINGULAR: "singular", _k.LCP_NAN: "nan", _k.LCP_INACCURATE: "inaccurate"}
"""Kernel status code -> name used in :class:`LCPResult` and :class:`LCPError`."""

_STATUS_TEXT = {"ray": "secondary ray (no solution found; for copositive-plus M the LCP is infeasible)",
                "max_pivots": "iteration limit reached", "singular": "the free block M_ff is numerically singular",
                "nan": "NaN or inf in the solution",
                "inaccurate": f"the answer failed the check (relative residual above {_k.LCP_TOL:g})"}


# ------------------------------------------------------------------------------------ result and error
@dataclass(frozen=True)
class LCPResult:
    """A solved (mixed) LCP: ``z``, ``w = M z + q`` (``w = 0`` on free rows), ``pivots`` (Lemke pivots of
    all runs, or PGS sweeps), ``regularization`` (the ``eps`` of the regularized Lemke run whose active set
    gave the answer, 0 if none), ``residual`` (the natural residual relative to the problem's scale:
    ``max(|w_free|, |min(|M|_max z_i, w_i)|) / |q|_inf``; PGS: that of the whole pyramid LCP, ``sigma`` rows
    included),
    ``status`` (``"ok"``)."""

    z: np.ndarray
    w: np.ndarray
    pivots: int
    regularization: float
    residual: float
    status: str


class LCPError(ValueError):
    """No solution found. Attributes: ``M``, ``q``, ``nfree`` (the problem; None when it was not kept),
    ``status`` (a name of :data:`STATUS_NAMES`), ``residual`` (of the returned ``z``), ``pivots``,
    ``regularization``, ``z``, ``w`` (the last iterate). ``rows``: the problem's size when ``q`` is None."""

    def __init__(self, M, q, nfree, status, residual, pivots, regularization, z, w, solver, rows=None):
        self.M, self.q, self.nfree = M, q, nfree
        self.status, self.residual, self.pivots, self.regularization = status, residual, pivots, regularization
        self.z, self.w = z, w
        reg = f", Tikhonov regularization up to {regularization:.1e}" if regularization else ""
        n = len(q) if q is not None else rows
        super().__init__(f"{solver}: no solution of the {n}-row LCP (nfree={nfree}): "
                         f"{_STATUS_TEXT.get(status, status)}; residual {residual:.3e} after {pivots} "
                         f"{'sweeps' if solver == 'pgs' else 'pivots'}{reg}")


# --------------------------------------------------------------------------------------- validation
def as_square(M, name: str) -> np.ndarray:
    """``M`` as a C-contiguous float64 square matrix (a copy), or ValueError naming ``name``."""
    try:
        A = np.array(M, dtype=np.float64, order="C", copy=True)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"{name}: not a numeric matrix ({exc})") from None
    if A.ndim != 2 or A.shape[0] != A.shape[1]:
        raise ValueError(f"{name}: expected a square matrix, got shape {A.shape}")
    if not np.all(np.isfinite(A)):
        raise ValueError(f"{name}: contains NaN or inf")
    return A


def as_vector(x, n: int, name: str) -> np.ndarray:
    """``x`` as a C-contiguous float64 vector of length ``n`` (a copy), or ValueError naming ``name``."""
    try:
        v = np.array(x, dtype=np.float64, order="C", copy=True)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"{name}: not a numeric vector ({exc})") from None
    if v.ndim == 0:
        v = np.full(n, float(v))
    if v.shape != (n,):
        raise ValueError(f"{name}: expected shape ({n},), got {v.shape}")
    if not np.all(np.isfinite(v)):
        raise ValueError(f"{name}: contains NaN or inf")
    return v


def as_count(x, name: str, lo: int, hi: int | None = None) -> int:
    """An integer in ``[lo, hi]``, or ValueError naming ``name``."""
    if isinstance(x, (bool, np.bool_)) or not isinstance(x, (int, np.integer)):
        raise ValueError(f"{name}: expected an integer, got {x!r}")
    if x < lo or (hi is not None and x > hi):
        raise ValueError(f"{name}: {x} out of range [{lo}, {'inf' if hi is None else hi}]")
    return int(x)


def _nonneg(x, name: str) -> float:
    x = float(x)
    if not np.isfinite(x) or x < 0.0:
        raise ValueError(f"{name}: expected a finite value >= 0, got {x}")
    return x


def _problem(M, q, nfree=0):
    """Validated ``(M, q, nfree)``."""
    M = as_square(M, "M")
    q = as_vector(q, M.shape[0], "q")
    return M, q, as_count(nfree, "nfree", 0, M.shape[0])


def _finish(status, z, w, info, M, q, nfree, solver) -> LCPResult:
    """:class:`LCPResult`, or :class:`LCPError` for a status other than ok."""
    name = STATUS_NAMES[int(status)]
    pivots, reg, res = int(info[0]), float(info[1]), float(info[2])
    if name != "ok":
        raise LCPError(M, q, nfree, name, res, pivots, reg, z, w, solver)
    return LCPResult(z=z, w=w, pivots=pivots, regularization=reg, residual=res, status=name)


# ------------------------------------------------------------------------------------- Lemke and MLCP
def lemke(M, q, max_pivots: int | None = None, tikhonov: float = 0.0) -> LCPResult:
    """Solve ``w = M z + q``, ``0 <= z perp w >= 0`` by Lemke's method (covering vector 1, lexicographic
    minimum ratio, so degenerate problems terminate). ``M`` (n x n, not necessarily symmetric), ``q`` (n).
    ``max_pivots``: pivot limit per run (default ``50 n``). Every answer is polished on its active set and
    checked on the given problem (relative residual at most :data:`LCP_TOL`). ``tikhonov > 0``: when the
    plain run fails or its answer fails the check (degenerate problems: redundant rows, tied ratios), runs
    on ``M + eps I``, ``eps = tikhonov |M|_max 100^k`` (``k < 4``) find the active set, which is then solved
    with the given ``M`` and checked (the result's ``regularization``: the ``eps`` that worked). Raises
    :class:`LCPError` when no checked solution is found (a ray: for copositive-plus ``M`` the LCP is
    infeasible; ``"inaccurate"``: an answer failed the check) and ValueError for bad input."""
    M, q, _ = _problem(M, q)
    maxp = 0 if max_pivots is None else as_count(max_pivots, "max_pivots", 1)
    tik = _nonneg(tikhonov, "tikhonov")
    n = q.shape[0]
    z, w, info = np.zeros(n), np.zeros(n), np.zeros(4)
    status = _k.lemke(M, q, maxp, tik, z, w, info)
    return _finish(status, z, w, info, M, q, 0, "lemke")


def solve_mlcp(M, q, nfree: int, max_pivots: int | None = None, tikhonov: float = 0.0) -> LCPResult:
    """Solve the mixed LCP whose first ``nfree`` rows are equalities with free ``z`` (``w = 0`` there) and
    whose other rows are complementarity rows (Jain 2014, Eqs. 27, 36, 53), by a Schur complement on the
    free block (LU with partial pivoting) and :func:`lemke` on the reduced problem. ``tikhonov > 0`` also
    regularizes a singular free block (``M_ff + eps I``). Raises :class:`LCPError` (``status`` ``"singular"``
    for a numerically singular free block) when no solution is found, ValueError for bad input."""
    M, q, nfree = _problem(M, q, nfree)
    maxp = 0 if max_pivots is None else as_count(max_pivots, "max_pivots", 1)
    tik = _nonneg(tikhonov, "tikhonov")
    n = q.shape[0]
    z, w, info = np.zeros(n), np.zeros(n), np.zeros(4)
    status = _k.mlcp(M, q, nfree, maxp, tik, z, w, info)
    return _finish(status, z, w, info, M, q, nfree, "solve_mlcp")


# ------------------------------------------------------------------------------ projected Gauss-Seidel
def pgs(A, b, nfree: int, ncontact: int, nf: int, mu, iters: int = 1000, tol: float = 1e-10,
        z0=None) -> LCPResult:
    """Projected Gauss-Seidel for the friction-pyramid contact problem without the ``sigma`` rows
    (Jain 2014, Eqs. 12-16). Unknowns ``z = (free rows (nfree), then per contact [normal impulse, nf pyramid
    coefficients])``, ``w = A z + b``: free rows ``w = 0``; ``0 <= z_n perp w_n >= 0``; each pyramid block in
    ``{beta >= 0, sum(beta) <= mu_i z_n}`` with maximal dissipation. ``A`` symmetric PSD with positive
    diagonal (n x n, ``n = nfree + ncontact (nf + 1)``), ``mu`` a scalar or one value per contact, ``z0`` a
    warm start (default 0). Stops when the natural residual relative to ``|b|_inf`` is ``<= tol``
    (``pivots`` counts sweeps); raises :class:`LCPError` (``"max_pivots"``) after ``iters`` sweeps. The
    answer is then checked on the whole LCP it claims to solve (Jain 2014 Eq. 14, ``sigma`` rows included,
    ``sigma`` completed from the answer: :func:`soadyn._kernels.pgs.pyramid_sigma`): the result's
    ``residual`` is that LCP's relative residual (:func:`soadyn._kernels.lcp.lcp_error`), and above
    :data:`LCP_TOL` the answer is not returned (:class:`LCPError` ``"inaccurate"``)."""
    A = as_square(A, "A")
    n = A.shape[0]
    b = as_vector(b, n, "b")
    nfree = as_count(nfree, "nfree", 0, n)
    ncontact = as_count(ncontact, "ncontact", 0)
    nf = as_count(nf, "nf", 0)
    if nfree + ncontact * (nf + 1) != n:
        raise ValueError(f"ncontact: nfree + ncontact * (nf + 1) = {nfree + ncontact * (nf + 1)} != {n} rows of A")
    mu = as_vector(mu, ncontact, "mu")
    if np.any(mu < 0.0):
        raise ValueError("mu: friction coefficients must be >= 0")
    if np.any(np.diag(A) <= 0.0):
        raise ValueError("A: the diagonal must be positive")
    iters = as_count(iters, "iters", 1)
    tol = _nonneg(tol, "tol")
    z = np.zeros(n) if z0 is None else as_vector(z0, n, "z0")
    info = np.zeros(4)
    status = _kg.pgs(A, b, nfree, ncontact, nf, mu, iters, tol, z, info)
    M, q = np.empty((n + ncontact, n + ncontact)), np.empty(n + ncontact)
    _kg.pyramid_full(A, b, nfree, ncontact, nf, mu, M, q)
    zf, wf = np.concatenate([z, np.zeros(ncontact)]), np.empty(n + ncontact)
    _kg.pyramid_sigma(M, q, nfree, ncontact, nf, zf, wf)
    info[2] = _k.lcp_error(M, q, nfree, zf, wf)
    if status == _k.LCP_OK and not info[2] <= LCP_TOL:
        status = _k.LCP_INACCURATE
    w = A @ z + b
    w[:nfree] = 0.0
    return _finish(status, z, w, info, A, b, nfree, "pgs")


# ------------------------------------------------------------ PPM and FIND-INDICES (Drumwright 2015)
from ._kernels import ppm as _kp  # noqa: E402

__all__ += ["ppm", "find_indices"]

PPM_TOL = 1e-10
"""Relative tolerance of :func:`ppm`'s sign tests and of :func:`find_indices`' dependence test."""


def _symmetric(M, name: str) -> None:
    scale = float(np.abs(M).max()) if M.size else 0.0
    if M.size and float(np.abs(M - M.T).max()) > 1e-9 * max(scale, 1e-300):
        raise ValueError(f"{name}: expected a symmetric (positive semi-definite) matrix")


def ppm(M, q, warm=None, max_pivots: int | None = None, tol: float = PPM_TOL) -> LCPResult:
    """Solve ``w = M z + q``, ``0 <= z perp w >= 0`` for a symmetric positive semi-definite ``M`` by the
    modified principal pivoting method PPM I (Drumwright 2015, Algorithm 1 with Theorem 1): at most
    ``rank(M)`` indices with positive ``z``, one column of ``M`` read per pivot, Cholesky updates of the
    nonbasic block. ``warm``: indices to start with positive ``z`` (a previous solution's); ``max_pivots``:
    limit (default ``2 n``). The answer is checked like Lemke's (relative residual at most
    :data:`LCP_TOL`). Raises :class:`LCPError` (``"max_pivots"``: cycling; ``"singular"``: a pivot on a
    dependent row, as when ``q`` is not in the range of ``M``; ``"inaccurate"``: the answer failed the check)
    when PPM stops without a solution: Lemke's method (:func:`lemke`) is the fallback. ValueError for bad
    input."""
    M, q, _ = _problem(M, q)
    _symmetric(M, "M")
    n = q.shape[0]
    maxp = 2 * n if max_pivots is None else as_count(max_pivots, "max_pivots", 1)
    tol = _nonneg(tol, "tol")
    if warm is None:
        warm = np.zeros(0, dtype=np.int64)
    else:
        warm = np.asarray(warm)
        if warm.ndim != 1 or (warm.size and not np.issubdtype(warm.dtype, np.integer)):
            raise ValueError(f"warm: expected a 1-d array of indices, got {warm!r}")
        if warm.size and (warm.min() < 0 or warm.max() >= n):
            raise ValueError(f"warm: indices must lie in [0, {n - 1}]")
        warm = np.ascontiguousarray(warm, dtype=np.int64)
    z, w, info = np.zeros(n), np.zeros(n), np.zeros(_kp.PPM_INFO_SIZE)
    basis = np.zeros(n, dtype=np.int64)
    none = np.zeros((0, n))
    status = _kp.ppm(M, np.arange(n, dtype=np.int64), none, none, q, maxp, tol, warm, basis, z, w, info)
    res = _k.lcp_error(M, q, 0, z, w)
    return _finish(status, z, w, np.array([info[_kp.PPM_PIVOTS], 0.0, res]), M, q, 0, "ppm")


def find_indices(W, rows=None, tol: float = PPM_TOL) -> np.ndarray:
    """FIND-INDICES (Drumwright 2015, Algorithm 2): the indices, among ``rows`` (default all, taken in
    order), of a maximal set of rows of the symmetric PSD matrix ``W`` (e.g. ``G M^-1 G^T``) whose block
    ``W[sel, sel]`` is non-singular, found by incremental Cholesky updates. A row is dependent when its
    squared ``W``-distance from the span of those selected is below ``tol`` times its squared length."""
    W = as_square(W, "W")
    _symmetric(W, "W")
    n = W.shape[0]
    rows = np.arange(n) if rows is None else np.asarray(rows)
    if rows.ndim != 1 or (rows.size and not np.issubdtype(rows.dtype, np.integer)):
        raise ValueError(f"rows: expected a 1-d array of row indices, got {rows!r}")
    if rows.size and (rows.min() < 0 or rows.max() >= n or np.unique(rows).size != rows.size):
        raise ValueError(f"rows: indices must be distinct and lie in [0, {n - 1}]")
    tol = _nonneg(tol, "tol")
    rows = np.ascontiguousarray(rows, dtype=np.int64)
    c = rows.shape[0]
    sel, L, info = np.zeros(c, dtype=np.int64), np.zeros((c, c)), np.zeros(_kp.FI_INFO_SIZE)
    _kp.find_indices(W, rows, np.ones(n), np.zeros(n), tol, sel, L, info)
    return sel[:int(info[_kp.FI_SELECTED])].copy()
