"""Friction pyramid matrices of Jain 2014, Eqs. 6-15 (soadyn.contact.pyramid)."""

from __future__ import annotations

import numpy as np
import pytest

from soadyn._kernels import contact as kc
from soadyn._kernels.contact_motion import SLIP_DIRECTION_TOL, slip_frames
from soadyn._kernels.contact_solve import PATH_LEMKE, solve_rows
from soadyn._kernels.lcp import LCP_OK
from soadyn.contact import ContactSettings
from soadyn.contact import pyramid as P
from tests.support import SAME_MATH, assert_close


def _unit(v):
    v = np.asarray(v, dtype=float)
    return v / np.linalg.norm(v)


def test_tangent_basis_rule():
    t1, t2 = P.tangent_basis((0.0, 0.0, 1.0))
    assert_close(t1, [1.0, 0.0, 0.0], SAME_MATH, "floor t1")
    assert_close(t2, [0.0, 1.0, 0.0], SAME_MATH, "floor t2")
    t1, t2 = P.tangent_basis((-1.0, 0.0, 0.0))
    assert_close(t1, [0.0, 1.0, 0.0], SAME_MATH, "wall t1")
    assert_close(t2, [0.0, 0.0, -1.0], SAME_MATH, "wall t2")
    th = 0.3  # incline: the slope direction is t2
    t1, t2 = P.tangent_basis((np.sin(th), 0.0, np.cos(th)))
    assert_close(t2, [-np.cos(th), 0.0, np.sin(th)], SAME_MATH, "incline t2")


def test_tangent_basis_orthonormal_right_handed(rng):
    for _ in range(50):
        n = _unit(rng.normal(size=3))
        t1, t2 = P.tangent_basis(n)
        B = np.column_stack([t1, t2, n])
        assert_close(B.T @ B, np.eye(3), SAME_MATH, "basis orthonormal")
        assert abs(np.linalg.det(B) - 1.0) < 1e-12
        assert_close(P.tangent_basis(n)[0], t1, 0.0, "deterministic")


@pytest.mark.parametrize("n_f", [2, 4, 6, 8])
def test_directions(n_f, rng):
    n = _unit(rng.normal(size=3))
    D = P.directions(n, n_f)
    t1, t2 = P.tangent_basis(n)
    assert D.shape == (3, n_f)
    assert_close(np.linalg.norm(D, axis=0), np.ones(n_f), SAME_MATH, "unit directions")
    assert_close(n @ D, np.zeros(n_f), SAME_MATH, "tangent directions")
    assert_close(D[:, 0], t1, SAME_MATH, "d_0 = t1")
    assert_close(D[:, n_f // 2:], -D[:, :n_f // 2], 0.0, "opposite directions in the set")
    # angles compared on the circle: d_0's angle is 0 up to round-off, which may fall on either side of 0
    ang = np.arctan2(t2 @ D, t1 @ D)
    diff = np.angle(np.exp(1j * (ang - 2 * np.pi * np.arange(n_f) / n_f)))
    assert_close(diff, np.zeros(n_f), SAME_MATH, "angles 2 pi j / n_f (on the circle)")


def test_per_contact_matrices():
    n = _unit([0.2, -0.3, 1.0])
    Du = P.D_underline(n, 4)
    assert Du.shape == (3, 5)
    assert_close(Du[:, 0], n, 0.0, "D_ first column is n (Eq. 7)")
    assert_close(Du[:, 1:], P.directions(n, 4), 0.0, "D_ = [n, D]")
    assert_close(P.E(4), np.ones(4), 0.0, "E (Eq. 11)")
    assert_close(P.E_hat(4), [0, 1, 1, 1, 1], 0.0, "E^ (Eq. 13)")
    assert_close(P.E_bar(0.7, 4), [[0.7, -1, -1, -1, -1]], 0.0, "E- (Eq. 13)")


def test_system_block_diagonals(rng):
    nu, nf = 3, 4
    normals = np.array([_unit(rng.normal(size=3)) for _ in range(nu)])
    mu = np.array([0.1, 0.5, 1.0])
    pyr = P.pyramid(normals, mu, nf)
    w = nf + 1
    assert pyr.D.shape == (3 * nu, nu * w) and pyr.E_hat.shape == (nu * w, nu) and pyr.E_bar.shape == (nu, nu * w)
    for i in range(nu):
        for j in range(nu):
            blk = pyr.D[3 * i:3 * i + 3, w * j:w * j + w]
            assert_close(blk, P.D_underline(normals[i], nf) if i == j else np.zeros((3, w)), 0.0, f"D_ block {i},{j}")
            assert_close(pyr.E_hat[w * i:w * i + w, j], P.E_hat(nf) if i == j else np.zeros(w), 0.0, "E^ block")
            assert_close(pyr.E_bar[i, w * j:w * j + w], P.E_bar(mu[i], nf)[0] if i == j else np.zeros(w), 0.0,
                         "E- block")
    # E- beta_ >= 0 (Eq. 12) keeps D_ beta_ inside the friction cone: |F_t| <= mu F_n
    beta_ = rng.uniform(0, 1, nu * w)
    for i in range(nu):
        b = beta_[w * i:w * i + w]
        b[1:] *= mu[i] * b[0] / b[1:].sum()
    F = (pyr.D @ beta_).reshape(nu, 3)
    Fn = np.einsum("ij,ij->i", F, normals)
    Ft = np.linalg.norm(F - Fn[:, None] * normals, axis=1)
    assert np.all(Ft <= mu * Fn + 1e-12)
    assert_close(pyr.E_bar @ beta_, np.zeros(nu), 1e-12, "on the pyramid's boundary")


def test_bad_input():
    for bad in (3, 0, -2, 4.0, True, "4"):
        with pytest.raises(ValueError, match="n_f"):
            P.directions((0, 0, 1.0), bad)
    with pytest.raises(ValueError, match="normal"):
        P.tangent_basis((0, 0, 0.5))
    with pytest.raises(ValueError, match="normal"):
        P.tangent_basis((0, np.nan, 1.0))
    with pytest.raises(ValueError, match="mu"):
        P.E_bar(-0.1)
    with pytest.raises(ValueError, match="mu"):
        P.pyramid([(0, 0, 1.0)], [np.inf])
    with pytest.raises(ValueError, match="mu"):
        P.pyramid([(0, 0, 1.0), (1.0, 0, 0)], [0.1, 0.2, 0.3])
    with pytest.raises(ValueError, match="normals"):
        P.pyramid(np.ones((2, 2)), 0.5)


def test_slip_frames_turn_only_above_the_slip_tolerance():
    """The slip-oriented pyramid (``_kernels.contact_motion.slip_frames``): a contact whose predicted slip
    exceeds ``SLIP_DIRECTION_TOL`` gets ``t1`` along it (``t2 = n x t1``, the row velocities ``(|s|, 0)``);
    a slower one, the creep of a resting pile, keeps its fixed tangents and velocities."""
    normals = np.array([_unit([0.2, -0.1, 1.0])] * 3)
    frames = np.empty((3, 3, 3))
    for i in range(3):
        kc.tangent_basis(normals, frames, i)
    fixed = frames.copy()
    nb = 2  # two loop rows first: untouched
    # a box held on a 1 degree slope slips by dt g sin(1 deg) = 1.7e-4 m/s at 1 ms before friction; a face
    # tilted by 1e-9 rad lets a resting pile creep at 1e-8 m/s
    slips = [(3e-3, -4e-3), (8e-9, -6e-9), (0.0, 0.0)]
    assert 1e-8 < SLIP_DIRECTION_TOL < 1e-3 * 9.81 * np.sin(np.radians(1.0))
    vr = np.array([7.0, -7.0] + [x for a, b in slips for x in (-0.01, a, b)])
    before = vr.copy()
    slip_frames(3, nb, vr, frames)
    s = slips[0][0] * fixed[0, 1] + slips[0][1] * fixed[0, 2]  # the slip in world axes
    assert_close(frames[0, 1], s / np.linalg.norm(s), SAME_MATH, "t1 along the slip")
    assert_close(frames[0, 2], np.cross(frames[0, 0], frames[0, 1]), SAME_MATH, "t2 = n x t1")
    assert_close(vr[nb:nb + 3], [-0.01, np.linalg.norm(s), 0.0], SAME_MATH, "row velocities in the turned frame")
    np.testing.assert_array_equal(frames[1:], fixed[1:])  # a creep below the tolerance, and no slip
    np.testing.assert_array_equal(vr[nb + 3:], before[nb + 3:])
    np.testing.assert_array_equal(vr[:nb], before[:nb])


def _rank_one(angle):
    """A contact's Delassus matrix in (n, t1, t2) whose tangential block moves along one direction only,
    ``u = (cos angle, sin angle)`` in (t1, t2), coupled to the normal."""
    u = np.array([0.0, np.cos(angle), np.sin(angle)])
    return np.diag([1.0, 0.0, 0.0]) + np.outer(u, u) + 0.2 * (np.outer([1.0, 0, 0], u) + np.outer(u, [1.0, 0, 0]))


@pytest.mark.parametrize("nf, angle, kept", [(4, 0.0, [1, 3]), (4, np.pi / 6, [1, 3]), (8, 0.0, [1, 5]),
                                             (8, np.pi / 6, [2, 6])])
def test_rank_one_contacts_keep_their_two_extreme_directions(nf, angle, kept):
    """Rows of the pyramid LCP Lemke solves first (kc.pyramid_live): a contact whose tangential block has rank
    one keeps its normal, the directions of largest and smallest u . d_j, and its sigma row; a full-rank
    contact keeps every row."""
    cs = np.empty((nf + 1, 3))
    kc.pyramid_directions(nf, cs)
    idx = np.empty(nf + 2, dtype=np.int64)
    m = kc.pyramid_live(_rank_one(angle), 0, 1, nf, cs, 1.0, idx)
    assert list(idx[:m]) == [0] + kept + [nf + 1]
    full = _rank_one(angle) + np.diag([0.0, 0.1, 0.1])
    assert kc.pyramid_live(full, 0, 1, nf, cs, 1.0, idx) == nf + 2


def _solve_rows(Wd, tgt, nf, mu=0.5):
    prm = ContactSettings(n_f=nf, solver="lemke").kernel_parameters(1e-3)
    lam, info, none = np.zeros(3), np.zeros(6), np.empty(0, dtype=np.int64)
    st = solve_rows(Wd, np.asarray(tgt, dtype=float), 0, 1, nf, np.array([mu]), prm, lam, info, np.zeros(0), False,
                    np.zeros(0), none, none, np.zeros(0), none)
    return st, lam, info


def test_rank_one_contact_sticks_and_slides_in_closed_form():
    """One contact whose tangential motion is along t1 only (t2 moves nothing), approaching at 1 m/s:
    sliding at 0.3 m/s along t1, it sticks (v+_n = -1 + p_n + 0.2 p_t = 0, v+_t1 = -0.3 + 0.2 p_n + p_t = 0,
    |p_t| <= mu p_n) on the two extreme directions; sliding at 0.2 m/s along t2, which no impulse changes,
    friction opposes it at mu p_n (p = (1, 0, 0.5)), an answer only the whole LCP has (the reduced one misses
    its check)."""
    W = _rank_one(0.0)
    st, lam, info = _solve_rows(W, [-1.0, -0.3, 0.0], 4)
    assert st == LCP_OK and info[5] == PATH_LEMKE and info[4] <= 1e-12
    assert_close(lam, [0.94 / 0.96, 0.3 - 0.2 * 0.94 / 0.96, 0.0], 1e-12, "sticking impulse")
    st, lam, info = _solve_rows(W, [-1.0, 0.0, -0.2], 4)
    assert st == LCP_OK and info[4] <= 1e-12
    assert_close(lam, [1.0, 0.0, 0.5], 1e-12, "friction against the slip no impulse stops")
