"""The planar four bar against its closed-form position and velocity analysis: the configuration found by
``soadyn.loops.assemble`` (Gauss-Newton on the loop error, from a rough guess) against the circle
intersection of the coupler and rocker circles and Freudenstein's equation, and the velocity ratio from
the null space of ``G_c`` against the implicit derivative of Freudenstein's equation."""

from __future__ import annotations

import numpy as np
import pytest

from soadyn import loops
from soadyn.models import mechanisms as mech
from tests.support import assert_close

CLOSED_FORM = 1e-9
"""Assembled angles vs closed form: assembly stops at |phi| <= 1e-12 (below), and the angles'
sensitivity to phi is O(1) away from the toggle positions."""
ASSEMBLY_TOL = 1e-12

A, B, C, D = (mech.FOUR_BAR[k] for k in ("crank", "coupler", "rocker", "ground"))
ANGLES = [0.0, 0.7, 1.6, 2.5, 3.3, 4.4, 5.5]


def closed_form(theta: float) -> tuple[float, float]:
    """(coupler angle, rocker angle), both absolute (from the ground line), of the open branch: the
    rocker tip is the intersection of the circle of radius B about the crank tip and the circle of
    radius C about the rocker pivot (D, 0) lying left of the line crank tip -> rocker pivot."""
    P = A * np.array([np.cos(theta), np.sin(theta)])
    O = np.array([D, 0.0])
    d = O - P
    L = np.hypot(*d)
    a = (B * B - C * C + L * L) / (2 * L)
    h = np.sqrt(B * B - a * a)
    e = d / L
    R = P + a * e + h * np.array([-e[1], e[0]])
    return np.arctan2(R[1] - P[1], R[0] - P[0]), np.arctan2(R[1], R[0] - D)


def freudenstein(theta: float, psi: float) -> float:
    """``K1 cos psi - K2 cos theta + K3 - cos(theta - psi)`` (zero on the closed four bar)."""
    K1, K2, K3 = D / A, D / C, (A * A - B * B + C * C + D * D) / (2 * A * C)
    return K1 * np.cos(psi) - K2 * np.cos(theta) + K3 - np.cos(theta - psi)


def _wrap(x: float) -> float:
    return (x + np.pi) % (2 * np.pi) - np.pi


@pytest.mark.parametrize("theta", ANGLES)
def test_assembly_matches_circle_intersection(theta):
    model = mech.planar_four_bar()
    beta, psi = closed_form(theta)
    guess = np.array([theta, beta - theta + 0.15, psi - 0.1])  # a rough guess on the same branch
    q = loops.assemble(model, guess, fixed=["crank_joint"], tol=ASSEMBLY_TOL)
    assert q[0] == theta, "the held crank moved"
    assert_close(_wrap(q[0] + q[1] - beta), 0.0, CLOSED_FORM, f"coupler angle at crank {theta}", scale=1.0)
    assert_close(_wrap(q[2] - psi), 0.0, CLOSED_FORM, f"rocker angle at crank {theta}", scale=1.0)
    assert_close(freudenstein(q[0], q[2]), 0.0, CLOSED_FORM, f"Freudenstein residual at crank {theta}", scale=1.0)


@pytest.mark.parametrize("theta", ANGLES)
def test_initial_state_matches_closed_form(theta):
    model = mech.planar_four_bar()
    q = mech.initial_state(model, angle=theta).q
    beta, psi = closed_form(theta)
    assert_close(_wrap(q[0] + q[1] - beta), 0.0, CLOSED_FORM, f"initial coupler angle at crank {theta}", scale=1.0)
    assert_close(_wrap(q[2] - psi), 0.0, CLOSED_FORM, f"initial rocker angle at crank {theta}", scale=1.0)


@pytest.mark.parametrize("theta", ANGLES)
def test_velocity_ratio_matches_freudenstein(theta):
    """The rocker/crank rate of the one-dimensional null space of G_c equals -F_theta / F_psi."""
    model = mech.planar_four_bar()
    q = mech.initial_state(model, angle=theta).q
    G = loops.constraint_jacobian(model, model.data(), q)
    n = np.linalg.svd(G)[2][-1]
    th, psi = q[0], q[2]
    F_theta = (D / C) * np.sin(th) + np.sin(th - psi)
    F_psi = -(D / A) * np.sin(psi) - np.sin(th - psi)
    assert_close(n[2] / n[0], -F_theta / F_psi, CLOSED_FORM, f"d psi / d theta at crank {theta}")
