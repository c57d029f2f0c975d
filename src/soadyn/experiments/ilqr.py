"""iLQR (Li & Todorov, ICINCO 2004) with the regularization and line search of Tassa, Erez & Todorov (IROS
2012), over any step and its Jacobians, in the tangent space of the state: the shared optimizer of
:mod:`soadyn.experiments.trajopt` and :mod:`soadyn.experiments.box_push`.

The cost is ``sum_t 1/2 u_t^T R u_t + l(x_T)``. The backward pass takes the step Jacobians ``A_t = dx+/dx``,
``B_t = dx+/du`` and the final cost's gradient and Hessian (Gauss-Newton or exact); ``Q_uu`` is regularized
by ``mu I`` (Levenberg-Marquardt), ``mu`` divided by 10 after an accepted iteration (at least ``1e-8``),
multiplied by 10 after a refused one (the run stops past ``1e6``). The forward pass rolls out ``u_t + alpha
k_t + K_t dx_t`` and takes the first ``alpha`` of ``1, 0.5, 0.25, 0.1, 0.03, 0.01`` that lowers the cost; a
trial whose rollout raises ``ValueError`` (a state the simulator refuses) or whose cost is not finite counts
as no decrease. The run has converged when an iteration lowers the cost by less than ``tol max(1, J)``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable

import numpy as np

__all__ = ["ILQRTrace", "ilqr"]

ALPHAS = (1.0, 0.5, 0.25, 0.1, 0.03, 0.01)
"""Line-search steps on the feedforward term, tried in this order."""


@dataclass
class ILQRTrace:
    """The states ``X`` (a list of T+1, as ``step`` makes them), the controls ``U`` (T, nu), the total cost
    after each iteration ``costs`` (the initial one first; a refused iteration repeats the cost) and
    ``converged``."""

    X: list
    U: np.ndarray
    costs: list = field(default_factory=list)
    converged: bool = False


def ilqr(x0, U0, step: Callable, difference: Callable, linearize: Callable, final: Callable, R,
         iterations: int, tol: float) -> ILQRTrace:
    """Minimize ``sum_t 1/2 u_t^T R u_t + l(x_T)`` over the controls from ``x0`` and the guess ``U0`` (T, nu)
    (module docstring). ``step(x, u)``: the next state; ``difference(x_ref, x)``: the tangent deviation of
    ``x`` from ``x_ref``; ``linearize(X, U)``: the Jacobians ``[(A_t, B_t)]`` along a trajectory;
    ``final(x)``: ``(l, l_x, l_xx)``."""
    R = np.asarray(R, float)
    U = np.array(U0, float)
    T = U.shape[0]

    def rollout(X=None, k=None, K=None, alpha=1.0):
        Xn, Un = [x0], U.copy()
        for t in range(T):
            if k is not None:
                Un[t] = U[t] + alpha * k[t] + K[t] @ difference(X[t], Xn[t])
            Xn.append(step(Xn[t], Un[t]))
        return Xn, Un

    def cost(X, U):
        with np.errstate(over="ignore", invalid="ignore"):  # a diverging trial is refused by its cost
            J = 0.5 * float(np.einsum("ti,ij,tj->", U, R, U)) + final(X[-1])[0]
        return J if np.isfinite(J) else np.inf

    X, U = rollout()
    J = cost(X, U)
    out = ILQRTrace(X, U, [J])
    mu = 1e-6
    for _ in range(iterations):
        AB = linearize(X, U)
        _, Vx, Vxx = final(X[-1])
        nu = U.shape[1]
        k, K = np.zeros_like(U), np.zeros((T, nu, Vx.size))
        for t in range(T - 1, -1, -1):
            A, B = AB[t]
            Qx, Qu = A.T @ Vx, R @ U[t] + B.T @ Vx
            Qxx, Quu, Qux = A.T @ Vxx @ A, R + B.T @ Vxx @ B, B.T @ Vxx @ A
            reg = Quu + mu * np.eye(nu)
            k[t], K[t] = -np.linalg.solve(reg, Qu), -np.linalg.solve(reg, Qux)
            Vx = Qx + K[t].T @ Quu @ k[t] + K[t].T @ Qu + Qux.T @ k[t]
            Vxx = Qxx + K[t].T @ Quu @ K[t] + K[t].T @ Qux + Qux.T @ K[t]
            Vxx = 0.5 * (Vxx + Vxx.T)
        for alpha in ALPHAS:
            try:
                Xn, Un = rollout(X, k, K, alpha)
            except ValueError:
                continue
            Jn = cost(Xn, Un)
            if Jn < J:
                break
        else:
            mu *= 10.0
            out.costs.append(J)
            if mu > 1e6:
                break
            continue
        mu = max(1e-8, mu / 10.0)
        improvement = J - Jn
        X, U, J = Xn, Un, Jn
        out.X, out.U = X, U
        out.costs.append(J)
        if improvement < tol * max(1.0, J):
            out.converged = True
            break
    return out
