"""A planar arm pushing a box on a table, optimized by iLQR over the contact step
(:func:`soadyn.step_derivatives.step_derivatives`).

The arm (two links turning about the vertical, a sphere at its tip) stands beside a table; the box stands
on the table on three small spherical feet (a statically determinate support: the friction of four corners
sliding is shared arbitrarily among them) and is pushed by the tip on its face (a sphere against a box
face). Contact filters keep the box's own shape off the table and the tip off the table and the feet.

iLQR (Li & Todorov 2004; regularization and line search as Tassa, Erez & Todorov 2012) runs in the tangent
space of the state ``x = (q, qd)`` (the box's free joint: deviations ``difference(q_ref, q)``), with the step
Jacobians ``A = d(q+, qd+)/d(q, qd)`` and ``B = d(q+, qd+)/dtau`` of the contact step (Coulomb friction,
the simulator's default settings). The cost: ``sum 1/2 u^T R u`` over the arm torques and a final
Gauss-Newton term ``1/2 |W r(x_T)|^2`` on the box's position, heading and velocity and the arm's velocity.
The initial guess pushes the tip along the table at a constant force (:func:`push_guess`): iLQR needs the
contact active in its nominal trajectory to see the box through it.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from .. import joints
from ..builder import ModelBuilder
from ..contact.settings import ContactSettings
from ..dynamics import difference, frame_jacobian
from ..sim import Simulator
from ..spatial import Inertia, Transform
from ..step_derivatives import step_derivatives
from .ilqr import ilqr as optimize

__all__ = ["LINK", "BOX_HALF", "box_push_model", "start_state", "push_guess", "final_residual", "ContactILQR",
           "contact_ilqr", "push", "run"]

LINK = 0.35
"""Arm link length (m); the shoulder is at the origin, at the height of the box's centre."""
BOX_HALF = (0.08, 0.08, 0.05)
"""Box half extents (m); it stands on three feet of radius :data:`FOOT` (its centre ``0.06`` m up)."""
FOOT = 0.01
TIP = 0.025
"""Radius of the arm's tip sphere (m)."""
HEIGHT = BOX_HALF[2] + FOOT


def box_push_model(mu: float = 0.4):
    """The arm (joints ``shoulder``, ``elbow`` about z, 1 kg links), the box (0.5 kg, free joint) and the
    table (a world halfspace), friction ``mu`` everywhere."""
    b = ModelBuilder("box_push", gravity=(0.0, 0.0, -9.81))
    rod = Inertia(1.0, (0.5 * LINK, 0.0, 0.0), np.diag([1e-4, LINK ** 2 / 12, LINK ** 2 / 12]))
    b.add_body("upper", "world", joints.Revolute((0, 0, 1)), Transform.from_pose(None, (0.0, 0.0, HEIGHT)), rod,
               joint_name="shoulder")
    b.add_body("fore", "upper", joints.Revolute((0, 0, 1)), Transform.from_pose(None, (LINK, 0.0, 0.0)), rod,
               joint_name="elbow")
    b.add_body("box", "world", joints.Free(), inertia=Inertia.box(0.5, tuple(2 * h for h in BOX_HALF)))
    b.add_frame("tip", "fore", Transform.from_pose(None, (LINK, 0.0, 0.0)))
    table, box, feet, tip = 1, 2, 4, 8
    b.add_geom("tip", "fore", "sphere", TIP, placement=Transform.from_pose(None, (LINK, 0.0, 0.0)), mu=mu,
               group=tip, mask=box)
    b.add_geom("box", "box", "box", BOX_HALF, mu=mu, group=box, mask=tip)
    for i, (x, y) in enumerate(((0.06, 0.0), (-0.05, 0.055), (-0.05, -0.055))):
        b.add_geom(f"foot{i}", "box", "sphere", FOOT, placement=Transform.from_pose(None, (x, y, -BOX_HALF[2])),
                   mu=mu, group=feet, mask=table)
    b.add_geom("table", "world", "halfspace", mu=mu, group=table, mask=feet)
    return b.finalize()


def _tip_angles(x: float) -> np.ndarray:
    """Shoulder and elbow angles that put the tip at ``(x, 0)`` (elbow to the left)."""
    c2 = (x * x - 2 * LINK ** 2) / (2 * LINK ** 2)
    q2 = np.arccos(np.clip(c2, -1.0, 1.0))
    return np.array([-np.arctan2(LINK * np.sin(q2), LINK + LINK * np.cos(q2)), q2])


def start_state(model, box_x: float = 0.45, gap: float = 0.01):
    """``(q, qd)``: the box at ``box_x`` on the x axis, standing; the tip ``gap`` behind its face, at rest."""
    q = np.zeros(model.nq)
    q[:2] = _tip_angles(box_x - BOX_HALF[0] - TIP - gap)
    q[2:5] = (box_x, 0.0, HEIGHT)
    q[8] = 1.0
    return q, np.zeros(model.nv)


def _box(model):
    """The box's free joint: (q address, v address)."""
    j = int(np.flatnonzero(model.jnt_type == joints.FREE)[0])
    return int(model.jnt_qadr[j]), int(model.jnt_vadr[j])


def push_guess(sim, q0, qd0, steps: int, force: float = 2.0, damping: float = 2.0) -> np.ndarray:
    """Arm torques (steps, 2) of a rollout whose tip pushes along +x at ``force`` (N) through the tip Jacobian,
    its sideways motion damped: the initial guess."""
    model = sim.model
    data = model.data()
    U = np.zeros((steps, 2))
    q, qd = q0.copy(), qd0.copy()
    for t in range(steps):
        Jtip = frame_jacobian(model, data, q, "tip", "world_aligned")[3:5, :2]
        v = Jtip @ qd[:2]
        U[t] = Jtip.T @ np.array([force, -damping * v[1]])
        tau = np.zeros(model.nv)
        tau[:2] = U[t]
        q, qd = sim.step(q, qd, tau)
    return U


def final_residual(model, q, qd, goal):
    """``(r, dr/dx)``: the box's ``x, y`` and heading from ``goal`` (3,), the box's and the arm's velocities,
    in the tangent space of ``x = (q, qd)``."""
    qa, va = _box(model)
    nv = model.nv
    x, y, z, w = q[qa + 3:qa + 7]
    R = np.array([[1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w)],
                  [2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w)],
                  [2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y)]])
    yaw = np.arctan2(R[1, 0], R[0, 0])
    r = np.concatenate([q[qa:qa + 2] - goal[:2], [np.angle(np.exp(1j * (yaw - goal[2])))], qd])
    J = np.zeros((3 + nv, 2 * nv))
    J[:2, va + 3:va + 6] = R[:2]  # the position moves by R b for a body-frame translation b
    J[2, va:va + 3] = R[2]  # the heading turns by the world z component of R a
    J[3:, nv:] = np.eye(nv)
    return r, J


@dataclass
class ContactILQR:
    """States ``Q`` (T+1, nq), ``QD`` (T+1, nv), arm torques ``U`` (T, 2), the cost after each iteration
    ``costs``, the degenerate steps of the last linearization ``degenerate_steps``."""

    Q: np.ndarray
    QD: np.ndarray
    U: np.ndarray
    costs: list = field(default_factory=list)
    converged: bool = False
    degenerate_steps: int = 0


def contact_ilqr(sim, q0, qd0, U0, goal, weights, R, iterations: int = 30, tol: float = 1e-4) -> ContactILQR:
    """Minimize ``sum_t 1/2 u^T R u + 1/2 |weights * r(x_T)|^2`` (:func:`final_residual`, Gauss-Newton) over the
    arm torques from ``(q0, qd0)`` and the guess ``U0`` (T, 2), by :func:`soadyn.experiments.ilqr.ilqr` in the
    state's tangent space (states ``(q, qd)``)."""
    model = sim.model
    nv, nu = model.nv, 2
    W2 = np.asarray(weights, float) ** 2
    degenerate = [0]

    def full(u):
        tau = np.zeros(nv)
        tau[:nu] = u
        return tau

    def linearize(X, U):
        lin = [step_derivatives(sim, q, qd, full(u)) for (q, qd), u in zip(X, U)]
        degenerate[0] = sum(d.is_degenerate for d in lin)
        return [(d.A, d.B[:, :nu]) for d in lin]

    def final(x):
        r, Jr = final_residual(model, x[0], x[1], goal)
        return 0.5 * float(W2 @ (r * r)), Jr.T @ (W2 * r), Jr.T @ (W2[:, None] * Jr)

    trace = optimize((q0, qd0), U0, lambda x, u: sim.step(x[0], x[1], full(u)),
                     lambda xr, x: np.concatenate([difference(model, xr[0], x[0]), x[1] - xr[1]]), linearize, final,
                     R, iterations, tol)
    return ContactILQR(np.array([x[0] for x in trace.X]), np.array([x[1] for x in trace.X]), trace.U, trace.costs,
                       trace.converged, degenerate[0])


def push(duration: float = 1.0, dt: float = 0.01, iterations: int = 25, goal=(0.6, 0.03, 0.0)):
    """The box pushed from ``(0.45, 0)`` to ``goal`` (x, y, heading), at rest, in ``duration``:
    ``(model, sim, result)``."""
    model = box_push_model()
    sim = Simulator(model, dt=dt, contact=ContactSettings())
    q0, qd0 = start_state(model)
    T = int(round(duration / dt))
    U0 = push_guess(sim, q0, qd0, T)
    weights = np.concatenate([[30.0, 30.0, 3.0], np.full(model.nv, 1.0)])
    res = contact_ilqr(sim, q0, qd0, U0, np.asarray(goal, float), weights, 1e-3 * np.eye(2), iterations)
    return model, sim, res


def run(out_dir, duration: float = 1.0, dt: float = 0.01, iterations: int = 25) -> dict:
    """The push, written to ``out_dir``: ``trajopt-box-push.png`` (cost per iteration, a top view of the box
    and the tip, the box's coordinates and the arm torques) and ``trajopt-box-push.json``. Returns the
    summary."""
    import json
    import time
    from pathlib import Path

    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from ..dynamics import frame_pose

    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    goal = (0.6, 0.03, 0.0)
    t0 = time.perf_counter()
    model, sim, res = push(duration, dt, iterations, goal)
    wall = time.perf_counter() - t0
    qa, _ = _box(model)
    data = model.data()
    tip = np.array([frame_pose(model, data, q, "tip")[:3, 3] for q in res.Q])
    t = dt * np.arange(res.Q.shape[0])
    fig, ax = plt.subplots(1, 4, figsize=(19, 4.2))
    ax[0].semilogy(res.costs, "o-")
    ax[0].set(xlabel="iteration", ylabel="cost", title="iLQR cost per iteration")
    for n in np.linspace(0, res.Q.shape[0] - 1, 6).astype(int):
        R = frame_pose(model, data, res.Q[n], "box")[:3, :3]
        c = res.Q[n, qa:qa + 2]
        corners = np.array([[1, 1], [-1, 1], [-1, -1], [1, -1], [1, 1]]) * BOX_HALF[:2]
        xy = c + corners @ R[:2, :2].T
        ax[1].plot(xy[:, 0], xy[:, 1], color=plt.cm.viridis(n / res.Q.shape[0]), lw=1)
    ax[1].plot(res.Q[:, qa], res.Q[:, qa + 1], "k-", label="box centre")
    ax[1].plot(tip[:, 0], tip[:, 1], "r-", label="arm tip")
    ax[1].plot(*goal[:2], "k+", ms=12, label="goal")
    ax[1].set(xlabel="x (m)", ylabel="y (m)", title="top view", aspect="equal")
    ax[1].legend(fontsize=8)
    ax[2].plot(t, res.Q[:, qa] - goal[0], label="x - goal")
    ax[2].plot(t, res.Q[:, qa + 1] - goal[1], label="y - goal")
    ax[2].set(xlabel="t (s)", ylabel="m", title="box position error")
    ax[2].legend()
    for j, name in enumerate(("shoulder", "elbow")):
        ax[3].step(t[:-1], res.U[:, j], where="post", label=name)
    ax[3].set(xlabel="t (s)", ylabel="N m", title="arm torques")
    ax[3].legend()
    fig.tight_layout()
    png, js = out / "trajopt-box-push.png", out / "trajopt-box-push.json"
    fig.savefig(png, dpi=100)
    plt.close(fig)
    r, _ = final_residual(model, res.Q[-1], res.QD[-1], np.asarray(goal))
    summary = {"iterations": len(res.costs) - 1, "converged": res.converged, "costs": res.costs,
               "goal": list(goal), "final_box": res.Q[-1, qa:qa + 3].tolist(),
               "final_error_xy_m": float(np.hypot(r[0], r[1])), "final_heading_error_rad": float(r[2]),
               "final_box_speed": float(np.linalg.norm(res.QD[-1, 2:])), "steps": int(res.U.shape[0]), "dt": dt,
               "degenerate_steps_last_iteration": res.degenerate_steps, "max_torque": float(np.abs(res.U).max()),
               "wall_time_s": wall, "files": {"plot": str(png), "summary": str(js)}}
    js.write_text(json.dumps(summary, indent=1))
    return summary
