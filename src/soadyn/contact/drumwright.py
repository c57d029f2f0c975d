"""Contact-space solvers of Drumwright 2015 on the Delassus matrix: no-slip (Sec. VI, Eqs. 45-57), purely
viscous friction (Sec. IV) and the Stewart-Trinkle / Anitescu-Potra Coulomb pyramid baseline (Sec. III-C).

Every solver takes the Delassus matrix ``W = G M^-1 G^T`` ((nfree + 3m) square, symmetric PSD, maybe rank
deficient) with rows ``[nfree bilateral rows; per contact: normal, tangent 1, tangent 2]`` and ``vf``, the
constraint-space velocity after the step without constraint impulses, and returns the impulses ``p`` with
the post-step velocity ``v = W p + vf`` (:class:`ContactSolution`):

* ``"no_slip"`` (:func:`noslip`): ``v = 0`` on bilateral and tangential rows, ``0 <= p_n perp v_n >= 0``;
  FIND-INDICES keeps an independent set of equality rows, the normal LCP (PSD) is solved by the modified
  PPM I (``solver="ppm"``, falling back to Lemke with a logged warning) or by Lemke;
* ``"viscous"`` (:func:`viscous`): tangential impulses ``p_t = -dt mu_v v_t`` (post-step ``v_t``: linearly
  implicit, stable for any ``mu_v dt``), normal LCP as above;
* ``"coulomb"`` (:func:`coulomb`): the ``n_f``-direction friction pyramid, a mixed LCP of order
  ``nfree' + m (2 + n_f)`` solved by Lemke (Tikhonov retries when ``tikhonov > 0``).

Bad input (shapes, NaN, asymmetric ``W``, negative coefficients, a contact set whose rows of ``W`` are all
zero) raises ``ValueError`` naming the argument; an LCP without a solution found raises
:class:`soadyn.lcp.LCPError`.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass

import numpy as np

from .._kernels import drumwright as _kd
from .._kernels.lcp import LCP_OK
from ..lcp import STATUS_NAMES, LCPError, as_count, as_square, as_vector
from .pyramid import check_n_f

__all__ = ["FRICTION_MODELS", "SOLVERS", "RANK_TOL", "ContactSolution", "noslip", "viscous", "coulomb", "solve"]

FRICTION_MODELS = ("coulomb", "viscous", "no_slip")
SOLVERS = {"ppm": _kd.SOLVER_PPM, "lemke": _kd.SOLVER_LEMKE}
"""Solvers of the no-slip and viscous normal LCPs (the Coulomb pyramid always uses Lemke)."""
RANK_TOL = 1e-10
"""Relative tolerance of FIND-INDICES (a row is dependent when its squared distance from the span of the
selected rows is below this times its squared length) and of PPM's sign tests."""

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class ContactSolution:
    """Solved contact step. ``p``: impulses (rows of ``W``); ``v = W p + vf``: post-step constraint
    velocity; ``friction``, ``solver``: what ran; ``pivots``: PPM plus Lemke pivots; ``fallback``: PPM
    failed (``ppm_status``: why) and Lemke solved; ``rank``: independent equality rows kept by FIND-INDICES
    (bilateral, and tangential for no-slip); ``active``: contacts with positive normal impulse;
    ``lcp_size``: order of the LCP solved; ``residual``: its natural residual ``max |min(z, w)|``;
    ``regularization``: Tikhonov ``eps`` used (0 if none)."""

    p: np.ndarray
    v: np.ndarray
    friction: str
    solver: str
    pivots: int
    fallback: bool
    ppm_status: str | None
    rank: int
    active: int
    lcp_size: int
    residual: float
    regularization: float


# --------------------------------------------------------------------------------------- validation
def _problem(W, vf, nfree) -> tuple[np.ndarray, np.ndarray, int, int]:
    """Validated ``(W, vf, nfree, m)`` as C-contiguous float64 copies."""
    W = as_square(W, "W")
    n = W.shape[0]
    scale = float(np.abs(W).max()) if n else 0.0
    if n and float(np.abs(W - W.T).max()) > 1e-9 * max(scale, 1e-300):
        raise ValueError("W: not symmetric (a Delassus matrix G M^-1 G^T is)")
    if n and float(np.diag(W).min()) < -1e-9 * scale:
        raise ValueError("W: negative diagonal entry (a Delassus matrix is positive semi-definite)")
    nfree = as_count(nfree, "nfree", 0, n)
    if (n - nfree) % 3:
        raise ValueError(f"nfree: {n} rows of W minus nfree = {nfree} is not 3 rows per contact")
    m = (n - nfree) // 3
    try:
        vf = np.array(vf, dtype=np.float64, order="C", copy=True)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"vf: not a numeric vector ({exc})") from None
    if vf.shape != (n,):
        raise ValueError(f"vf: expected shape ({n},), got {vf.shape}")
    if not np.all(np.isfinite(vf)):
        raise ValueError("vf: contains NaN or inf")
    if m:
        contact_diag = np.diag(W)[nfree:]
        if not float(contact_diag.max()) > RANK_TOL * max(scale, 0.0):
            raise ValueError(f"W: the {m} contact(s) have no independent row (their rows of W are zero: nothing "
                             "the contact impulses can move)")
    return W, vf, nfree, m


def _coefficients(x, m: int, name: str) -> np.ndarray:
    """One coefficient >= 0 per contact (a scalar is broadcast; :func:`soadyn.lcp.as_vector` checks the rest)."""
    a = as_vector(x, m, name)
    if np.any(a < 0.0):
        raise ValueError(f"{name}: coefficients must be >= 0, got min {float(a.min())}")
    return a


def _options(max_pivots, tikhonov, tol) -> tuple[int, float, float]:
    if max_pivots is None:
        maxp = 0
    elif isinstance(max_pivots, (bool, np.bool_)) or not isinstance(max_pivots, (int, np.integer)) \
            or max_pivots < 1:
        raise ValueError(f"max_pivots: expected an integer >= 1 or None, got {max_pivots!r}")
    else:
        maxp = int(max_pivots)
    tik = float(tikhonov)
    if not np.isfinite(tik) or tik < 0.0:
        raise ValueError(f"tikhonov: expected a finite value >= 0, got {tikhonov!r}")
    tol = float(tol)
    if not 0.0 < tol < 1.0:
        raise ValueError(f"tol: expected a value in (0, 1), got {tol!r}")
    return maxp, tik, tol


def _solver(solver: str) -> int:
    if solver not in SOLVERS:
        raise ValueError(f"solver: expected one of {sorted(SOLVERS)}, got {solver!r}")
    return SOLVERS[solver]


def _warm(warm, m: int) -> np.ndarray:
    if warm is None:
        return np.zeros(0, dtype=np.int64)
    a = np.asarray(warm)
    if a.ndim != 1 or (a.size and not np.issubdtype(a.dtype, np.integer)):
        raise ValueError(f"warm: expected a 1-d array of contact indices, got {warm!r}")
    if a.size and (a.min() < 0 or a.max() >= m):
        raise ValueError(f"warm: contact indices must lie in [0, {m - 1}]")
    return np.ascontiguousarray(a, dtype=np.int64)


def _finish(st, W, vf, nfree, p, info, friction, solver) -> ContactSolution:
    v = W @ p + vf
    ppm_status = STATUS_NAMES[int(info[_kd.DW_PPM_STATUS])] if info[_kd.DW_FALLBACK] else None
    if st != LCP_OK:
        raise LCPError(W, vf, nfree, STATUS_NAMES[int(st)], float(info[_kd.DW_RESIDUAL]),
                       int(info[_kd.DW_PIVOTS]), float(info[_kd.DW_TIKHONOV]), p, v, f"{friction} ({solver})")
    if ppm_status is not None:
        log.warning("%s contact LCP (%d contacts): PPM stopped (%s), solved by Lemke's method instead",
                    friction, (W.shape[0] - nfree) // 3, ppm_status)
    return ContactSolution(p=p, v=v, friction=friction, solver=solver, pivots=int(info[_kd.DW_PIVOTS]),
                           fallback=bool(info[_kd.DW_FALLBACK]), ppm_status=ppm_status,
                           rank=int(info[_kd.DW_RANK]), active=int(info[_kd.DW_ACTIVE]),
                           lcp_size=int(info[_kd.DW_LCP_SIZE]), residual=float(info[_kd.DW_RESIDUAL]),
                           regularization=float(info[_kd.DW_TIKHONOV]))


# ------------------------------------------------------------------------------------------ solvers
def noslip(W, vf, nfree: int = 0, *, solver: str = "ppm", warm=None, max_pivots: int | None = None,
           tikhonov: float = 0.0, tol: float = RANK_TOL) -> ContactSolution:
    """No-slip contact (Drumwright 2015, Sec. VI, Eqs. 45-57): zero tangential and bilateral velocity after
    the step, complementary normal impulses. ``solver``: ``"ppm"`` (modified PPM I, Algorithm 1, with a
    logged Lemke fallback) or ``"lemke"``; ``warm``: contact indices to start PPM with positive normal
    impulse (e.g. the previous step's active contacts); ``max_pivots``: PPM's limit (default 2m) or, for
    ``"lemke"``, Lemke's (default 50m); ``tikhonov``: Lemke's regularized retry."""
    W, vf, nfree, m = _problem(W, vf, nfree)
    maxp, tik, tol = _options(max_pivots, tikhonov, tol)
    p, info = np.zeros(W.shape[0]), np.zeros(_kd.DW_INFO_SIZE)
    st = _kd.noslip_solve(W, vf, nfree, m, _solver(solver), maxp, tik, tol, _warm(warm, m), p, info)
    return _finish(st, W, vf, nfree, p, info, "no_slip", solver)


def viscous(W, vf, nfree: int, mu_v, dt: float, *, solver: str = "ppm", warm=None, max_pivots: int | None = None,
            tikhonov: float = 0.0, tol: float = RANK_TOL) -> ContactSolution:
    """Purely viscous friction (Drumwright 2015, Sec. IV): tangential impulses ``p_t = -dt mu_v v_t`` at the
    post-step tangential velocity, complementary normal impulses, bilateral rows ``v = 0``. ``mu_v``: one
    coefficient >= 0 per contact (N s/m) or a scalar; ``dt`` > 0. Other options as :func:`noslip`."""
    W, vf, nfree, m = _problem(W, vf, nfree)
    mu_v = _coefficients(mu_v, m, "mu_v")
    dt = float(dt)
    if not np.isfinite(dt) or dt <= 0.0:
        raise ValueError(f"dt: expected a finite value > 0, got {dt!r}")
    maxp, tik, tol = _options(max_pivots, tikhonov, tol)
    p, info = np.zeros(W.shape[0]), np.zeros(_kd.DW_INFO_SIZE)
    st = _kd.viscous_solve(W, vf, nfree, m, mu_v, dt, _solver(solver), maxp, tik, tol, _warm(warm, m), p, info)
    return _finish(st, W, vf, nfree, p, info, "viscous", solver)


def coulomb(W, vf, nfree: int, mu, n_f: int = 4, *, max_pivots: int | None = None, tikhonov: float = 0.0,
            tol: float = RANK_TOL) -> ContactSolution:
    """Coulomb friction by the Stewart-Trinkle / Anitescu-Potra velocity-level model with an ``n_f``-direction
    pyramid (Drumwright's baseline, Sec. III-C): the mixed LCP of order ``nfree' + m (2 + n_f)`` solved by
    Lemke's method (``tikhonov > 0``: regularized retries). ``mu``: one coefficient >= 0 per contact or a
    scalar; ``n_f``: even, >= 2 (directions ``cos(2 pi k / n_f) t1 + sin(2 pi k / n_f) t2``)."""
    W, vf, nfree, m = _problem(W, vf, nfree)
    mu = _coefficients(mu, m, "mu")
    n_f = check_n_f(n_f)
    maxp, tik, tol = _options(max_pivots, tikhonov, tol)
    p, info = np.zeros(W.shape[0]), np.zeros(_kd.DW_INFO_SIZE)
    st = _kd.coulomb_solve(W, vf, nfree, m, mu, n_f, maxp, tik, tol, p, info)
    return _finish(st, W, vf, nfree, p, info, "coulomb", "lemke")


def solve(friction: str, W, vf, nfree: int = 0, *, mu=None, mu_v=None, dt: float | None = None, n_f: int = 4,
          solver: str | None = None, **options) -> ContactSolution:
    """Dispatch on the friction model name (:data:`FRICTION_MODELS`): ``"no_slip"`` -> :func:`noslip`,
    ``"viscous"`` -> :func:`viscous` (needs ``mu_v`` and ``dt``), ``"coulomb"`` -> :func:`coulomb` (needs
    ``mu``; ``solver`` must be None or ``"lemke"``). ``options``: ``warm``, ``max_pivots``, ``tikhonov``,
    ``tol`` as the functions take them."""
    if friction == "no_slip":
        return noslip(W, vf, nfree, solver=solver or "ppm", **options)
    if friction == "viscous":
        if mu_v is None or dt is None:
            raise ValueError("mu_v, dt: the viscous model needs both")
        return viscous(W, vf, nfree, mu_v, dt, solver=solver or "ppm", **options)
    if friction == "coulomb":
        if mu is None:
            raise ValueError("mu: the Coulomb model needs friction coefficients")
        if solver not in (None, "lemke"):
            raise ValueError(f"solver: the Coulomb pyramid is solved by 'lemke', got {solver!r}")
        return coulomb(W, vf, nfree, mu, n_f, **options)
    raise ValueError(f"friction: expected one of {FRICTION_MODELS}, got {friction!r}")
