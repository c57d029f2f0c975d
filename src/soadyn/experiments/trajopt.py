"""Trajectory optimization with the analytical dynamics derivatives: iLQR (Li & Todorov 2004; the
regularization and line search of Tassa, Erez & Todorov, IROS 2012) over the semi-implicit Euler step
``qd+ = qd + dt aba(q, qd, tau)``, ``q+ = q + dt qd+``, whose Jacobian comes from
:func:`soadyn.derivatives.aba_derivatives`:

``dqd+/dq = dt dqdd/dq``, ``dqd+/dqd = 1 + dt dqdd/dqd``, ``dqd+/dtau = dt M^-1``, ``dq+/d. = [1 0] +
dt dqd+/d.``.

The example swings a double pendulum (two actuated revolute joints) from hanging down to upright. Models
whose configuration is not a vector space (free, spherical, planar joints) and contact are not covered.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from .. import derivatives as D
from ..dynamics import aba
from ..model import Model
from .ilqr import ilqr as optimize

__all__ = ["step", "step_jacobian", "ILQRResult", "ilqr", "double_pendulum", "swing_up"]


def _vector_space(model: Model) -> None:
    if not model.is_vector_space:
        raise ValueError(f"model {model.name!r}: the trajectory optimizer takes models whose configuration is a "
                         "vector space (no free, spherical or planar joints)")


def step(model: Model, data, x: np.ndarray, u: np.ndarray, dt: float) -> np.ndarray:
    """One semi-implicit Euler step of the state ``x = [q; qd]`` under joint forces ``u``."""
    nv = model.nv
    qd1 = x[nv:] + dt * aba(model, data, x[:nv], x[nv:], u)
    return np.concatenate([x[:nv] + dt * qd1, qd1])


def step_jacobian(model: Model, data, x: np.ndarray, u: np.ndarray, dt: float):
    """``(x+, A, B)``: the step and its Jacobians ``A = dx+/dx`` (2nv x 2nv), ``B = dx+/du`` (2nv x nv)."""
    nv = model.nv
    d = D.aba_derivatives(model, data, x[:nv], x[nv:], u)
    dqd = np.hstack([dt * d.dqdd_dq, np.eye(nv) + dt * d.dqdd_dqd])
    A = np.vstack([np.hstack([np.eye(nv), np.zeros((nv, nv))]) + dt * dqd, dqd])
    Bv = dt * d.Minv
    B = np.vstack([dt * Bv, Bv])
    qd1 = x[nv:] + dt * d.qdd
    return np.concatenate([x[:nv] + dt * qd1, qd1]), A, B


@dataclass
class ILQRResult:
    """States ``X`` (T+1, 2nv), controls ``U`` (T, nv), the total cost after each iteration ``costs``."""

    X: np.ndarray
    U: np.ndarray
    costs: list = field(default_factory=list)
    converged: bool = False


def ilqr(model: Model, x0, U0, dt: float, x_goal, Q_final, R, iterations: int = 100, tol: float = 1e-6) -> ILQRResult:
    """Minimize ``sum_t 1/2 u_t^T R u_t + 1/2 (x_T - x_goal)^T Q_final (x_T - x_goal)`` over the controls,
    from ``x0`` with the initial guess ``U0`` (T, nv), by :func:`soadyn.experiments.ilqr.ilqr` (backward pass
    with Levenberg-Marquardt regularization of ``Q_uu``, forward pass with a backtracking line search on the
    feedforward term)."""
    _vector_space(model)
    data = model.data()
    x_goal, Q_final = np.asarray(x_goal, float), np.asarray(Q_final, float)

    def final(x):
        e = x - x_goal
        return 0.5 * float(e @ Q_final @ e), Q_final @ e, Q_final.copy()

    trace = optimize(np.asarray(x0, float), U0, lambda x, u: step(model, data, x, u, dt), lambda xr, x: x - xr,
                     lambda X, U: [step_jacobian(model, data, x, u, dt)[1:] for x, u in zip(X, U)], final, R,
                     iterations, tol)
    return ILQRResult(np.array(trace.X), trace.U, trace.costs, trace.converged)


def double_pendulum() -> Model:
    """Two 1 m, 1 kg links on revolute joints about y (gravity -z), both actuated."""
    from .. import joints
    from ..builder import ModelBuilder
    from ..spatial import Inertia, Transform

    b = ModelBuilder("double_pendulum", gravity=(0.0, 0.0, -9.81))
    b.add_body("link1", "world", joints.Revolute((0, 1, 0)),
               inertia=Inertia.cylinder(1.0, 0.02, 1.0, com=(0, 0, -0.5)))
    b.add_body("link2", "link1", joints.Revolute((0, 1, 0)),
               placement=Transform.from_pose(translation=(0, 0, -1.0)),
               inertia=Inertia.cylinder(1.0, 0.02, 1.0, com=(0, 0, -0.5)))
    b.add_frame("tip", "link2", Transform.from_pose(translation=(0, 0, -1.0)))
    return b.finalize()


def swing_up(duration: float = 2.0, dt: float = 0.01, iterations: int = 100):
    """The double pendulum from hanging at rest to upright at rest in ``duration``: ``(model, result)``."""
    model = double_pendulum()
    T = int(round(duration / dt))
    x0 = np.zeros(2 * model.nv)
    x_goal = np.array([np.pi, 0.0, 0.0, 0.0])
    res = ilqr(model, x0, np.zeros((T, model.nv)), dt, x_goal, Q_final=np.diag([1e3, 1e3, 1e2, 1e2]),
               R=1e-3 * np.eye(model.nv), iterations=iterations)
    return model, res


def run(out_dir, duration: float = 2.0, dt: float = 0.01, iterations: int = 100) -> dict:
    """The swing-up, written to ``out_dir``: ``trajopt-swing-up.png`` (cost per iteration, joint angles and
    torques along the optimized trajectory) and ``trajopt-swing-up.json``. Returns the summary."""
    import json
    import time
    from pathlib import Path

    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    t0 = time.perf_counter()
    model, res = swing_up(duration, dt, iterations)
    wall = time.perf_counter() - t0
    t = dt * np.arange(res.X.shape[0])
    fig, ax = plt.subplots(1, 3, figsize=(14, 4))
    ax[0].semilogy(res.costs, "o-")
    ax[0].set(xlabel="iteration", ylabel="cost", title="iLQR cost per iteration")
    for j in range(model.nv):
        ax[1].plot(t, res.X[:, j], label=f"q{j + 1}")
        ax[2].step(t[:-1], res.U[:, j], where="post", label=f"tau{j + 1}")
    ax[1].axhline(np.pi, color="gray", lw=0.5)
    ax[1].set(xlabel="t (s)", ylabel="rad", title="joint angles")
    ax[2].set(xlabel="t (s)", ylabel="N m", title="joint torques")
    ax[1].legend()
    ax[2].legend()
    fig.tight_layout()
    png, js = out / "trajopt-swing-up.png", out / "trajopt-swing-up.json"
    fig.savefig(png, dpi=100)
    plt.close(fig)
    summary = {"iterations": len(res.costs) - 1, "converged": res.converged, "costs": res.costs,
               "final_state": res.X[-1].tolist(), "goal": [np.pi, 0.0, 0.0, 0.0], "steps": int(res.U.shape[0]),
               "dt": dt, "max_torque": float(np.abs(res.U).max()), "wall_time_s": wall,
               "files": {"plot": str(png), "summary": str(js)}}
    js.write_text(json.dumps(summary, indent=1))
    return summary
