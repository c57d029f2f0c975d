"""Dense reference of constraint embedding: the minimal-coordinate equations of motion of a tree with loop
constraints in the independent coordinates ``theta`` (Jain 2012 CE): ``M_theta theta_ddot = rhs`` with
``M_theta = G^T M G`` and ``rhs = G^T (tau - C - M g)``, where ``qd = G theta_dot`` spans the null space of
the constraint Jacobian ``G_c`` (identity rows for the independent dofs) and ``qdd = G theta_ddot + g`` with
``G_c g = -Gdot_c qd``. ``M`` and ``C`` from the dense RNEA of :mod:`tests.reference.dense`; ``G_c`` and
``Gdot_c qd`` from :func:`soadyn.loops.constraint_state` (least squares, so redundant rows are harmless).
"""

from __future__ import annotations

import numpy as np

from soadyn import loops
from tests.reference import dense


def hinge_map(model, q, independent) -> np.ndarray:
    """``G`` (nv, n): ``G_c G = 0`` with ``G[independent] = I``."""
    Gc = loops.constraint_jacobian(model, model.data(), q)
    ind = np.asarray(independent)
    dep = np.setdiff1d(np.arange(model.nv), ind)
    G = np.zeros((model.nv, ind.size))
    G[ind] = np.eye(ind.size)
    G[dep] = np.linalg.lstsq(Gc[:, dep], -Gc[:, ind], rcond=None)[0]
    return G


def embedded_accelerations(model, q, qd, tau, independent) -> tuple[np.ndarray, np.ndarray]:
    """``(theta_ddot, qdd)`` at the closed state ``(q, qd)`` (``G_c qd = 0``) with joint forces ``tau``."""
    G = hinge_map(model, q, independent)
    _, _, gdot, Gc = (a.copy() for a in loops.constraint_state(model, model.data(), q, qd))
    dep = np.setdiff1d(np.arange(model.nv), independent)
    g = np.zeros(model.nv)
    g[dep] = np.linalg.lstsq(Gc[:, dep], -gdot, rcond=None)[0]
    M = dense.mass_matrix(model, q)
    C = dense.bias_forces(model, q, qd)
    th = np.linalg.solve(G.T @ M @ G, G.T @ (np.asarray(tau, float) - C - M @ g))
    return th, G @ th + g
