"""Closed chains: loop constraints between frames, tree-augmented (TA) forward dynamics by Jain et al.
2012 Lemma 2, constraint errors and Jacobians, error control and assembly.

A loop joins frame A (on body a) and frame B (on body b), which coincide when the loop is closed. Its
constrained directions are the rows ``Q`` (d x 6) of the relative spatial velocity of B with respect to A,
``V_rel = ^AX_B V_B - V_A`` in A's axes (Jain 2012 Eq. 9): ``G_c = Q (^AX_B J_B - J_A)`` (Eq. 10). The
position error is ``phi = Q xi`` with ``xi = [log(R_A^T R_B); R_A^T (p_B - p_A)]`` (B relative to A), whose
derivative is ``V_rel`` at closure. Universal loops have a configuration-dependent angular row.
"""

from __future__ import annotations

import dataclasses

import numpy as np

from ._kernels import loops as _kl
from .dynamics import (as_array, check_data, check_status, copy_in, copy_state, crba, external_forces, integrate,
                       kernel_array, rnea)
from .model import Model, readonly_array

__all__ = ["KINDS", "with_loops", "AssemblyError", "LoopError"]

WELD, BALL, REVOLUTE, PRISMATIC, CYLINDRICAL, UNIVERSAL, PLANAR_PIN, CUSTOM = range(8)

_I6 = np.eye(6)
KINDS = {
    "weld": (WELD, _I6),
    "ball": (BALL, _I6[3:]),
    "revolute": (REVOLUTE, _I6[[0, 1, 3, 4, 5]]),  # free: rotation about A's z
    "prismatic": (PRISMATIC, _I6[[0, 1, 2, 3, 4]]),  # free: translation along A's z
    "cylindrical": (CYLINDRICAL, _I6[[0, 1, 3, 4]]),  # free: rotation about and translation along A's z
    "universal": (UNIVERSAL, _I6[[0, 3, 4, 5]]),  # row 0 replaced at run time by (R_AB a2) x a1
    "planar_pin": (PLANAR_PIN, _I6[[3, 4]]),  # A's x and y translations (planar mechanisms)
}
"""Loop kind name -> (code, constrained rows of ``[w; v]`` in A's axes)."""


class LoopError(ValueError):
    """A loop that cannot be declared or solved (same-body frames, singular constraint sets)."""


class AssemblyError(ValueError):
    """The loops cannot be closed from the given guess: carries the ``loop`` name, its ``residual`` and
    the final configuration ``q``."""

    def __init__(self, message: str, loop: str, residual: float, q: np.ndarray):
        super().__init__(message)
        self.loop = loop
        self.residual = residual
        self.q = q


def _frame(model: Model, ref, loop: str, role: str) -> int:
    try:
        return model.frame_id(ref)
    except ValueError:
        raise LoopError(f"loop {loop!r}: {role} {ref!r} is not a frame or body of the model") from None


def with_loops(model: Model, specs) -> Model:
    """``model`` with the loops ``specs`` = [(name, frame_a, frame_b, kind, axis, axis2)] (see
    :meth:`soadyn.builder.ModelBuilder.add_loop`)."""
    names, fa, fb, kinds, sels, dims, ax1, ax2 = [], [], [], [], [], [], [], []
    for name, frame_a, frame_b, kind, axis, axis2 in specs:
        a = model.nf if frame_a == "world" else _frame(model, frame_a, name, "frame_a")
        b = model.nf if frame_b == "world" else _frame(model, frame_b, name, "frame_b")
        if a == model.nf or b == model.nf:
            raise LoopError(f"loop {name!r}: name a frame fixed to the world (e.g. one added with "
                            "add_frame(..., 'world', pose)) rather than 'world' itself")
        ba, bb = model.frame_body[a], model.frame_body[b]
        if ba == bb:
            what = "the world" if ba < 0 else f"body {model.body_names[ba]!r}"
            raise LoopError(f"loop {name!r}: frames {model.frame_names[a]!r} and {model.frame_names[b]!r} are both "
                            f"on {what}: a loop must join two different bodies")
        u1 = u2 = np.zeros(3)
        if isinstance(kind, str):
            if kind not in KINDS:
                raise LoopError(f"loop {name!r}: unknown kind {kind!r}; known: {sorted(KINDS)} or a (d x 6) selection")
            code, sel = KINDS[kind]
            if code == UNIVERSAL:
                u1 = _unit(axis if axis is not None else (1.0, 0.0, 0.0), name, "axis")
                u2 = _unit(axis2 if axis2 is not None else (0.0, 1.0, 0.0), name, "axis2")
        else:
            code, sel = CUSTOM, np.asarray(kind, dtype=float)
            if sel.ndim != 2 or sel.shape[1] != 6 or not 1 <= sel.shape[0] <= 6 or not np.all(np.isfinite(sel)):
                raise LoopError(f"loop {name!r}: a custom kind must be a finite (d x 6) selection, 1 <= d <= 6")
            if np.linalg.matrix_rank(sel) < sel.shape[0]:
                raise LoopError(f"loop {name!r}: the rows of the selection are linearly dependent")
        padded = np.zeros((6, 6))
        padded[:sel.shape[0]] = sel
        names.append(name)
        fa.append(a)
        fb.append(b)
        kinds.append(code)
        sels.append(padded)
        dims.append(sel.shape[0])
        ax1.append(u1)
        ax2.append(u2)
    nl = len(names)
    return dataclasses.replace(
        model, nl=nl, nc=int(sum(dims)), loop_names=tuple(names),
        loop_frame_a=readonly_array(fa, np.int64), loop_frame_b=readonly_array(fb, np.int64),
        loop_kind=readonly_array(kinds, np.int64),
        loop_sel=readonly_array(np.array(sels).reshape(nl, 6, 6), np.float64),
        loop_dim=readonly_array(dims, np.int64),
        loop_row=readonly_array(np.concatenate([[0], np.cumsum(dims)]), np.int64),
        loop_axis=readonly_array(np.array(ax1).reshape(nl, 3), np.float64),
        loop_axis2=readonly_array(np.array(ax2).reshape(nl, 3), np.float64),
        loop_twist=readonly_array(
            np.array([_twist_axis(k, s[:d]) for k, s, d in zip(kinds, sels, dims)]).reshape(nl, 3), np.float64))


def _twist_axis(code: int, sel: np.ndarray) -> np.ndarray:
    """The loop's free rotation axis in A's axes: the complement of its purely angular rows when that
    complement is one direction (revolute- and cylindrical-like loops, FA hinges of revolute, helical,
    cylindrical and planar joints), else zero (the rotation error is then the plain logarithm)."""
    if code == UNIVERSAL:
        return np.zeros(3)
    angular = sel[np.all(np.abs(sel[:, 3:]) < 1e-12, axis=1), :3]
    if angular.shape[0] == 0 or np.linalg.matrix_rank(angular) != 2:
        return np.zeros(3)
    return np.linalg.svd(angular)[2][-1]


def _unit(v, loop: str, what: str) -> np.ndarray:
    a = np.asarray(v, dtype=float).reshape(3)
    n = np.linalg.norm(a)
    if not np.isfinite(n) or n < 1e-12:
        raise LoopError(f"loop {loop!r}: {what} must be a finite non-zero 3-vector")
    return a / n


# ------------------------------------------------------------------------------------------ evaluation
METHODS = ("ta", "kkt")


def _need_loops(model: Model) -> None:
    if model.nl == 0:
        raise LoopError(f"model {model.name!r} has no loops")


def _stabilization(baumgarte) -> tuple[float, float]:
    if baumgarte is None:
        return 0.0, 0.0
    try:
        alpha, beta = (float(x) for x in baumgarte)
    except (TypeError, ValueError):
        raise ValueError(f"baumgarte: expected None or (alpha, beta), got {baumgarte!r}") from None
    if not (np.isfinite(alpha) and np.isfinite(beta) and alpha >= 0 and beta >= 0):
        raise ValueError(f"baumgarte: alpha and beta must be finite and >= 0, got {baumgarte!r}")
    return alpha, beta


def constraint_state(model: Model, data, q, qd=None):
    """``(phi, cv, gdot, G)``: position errors (nc,), constraint velocities ``G_c qd``, ``Gdot_c qd`` and
    the constraint Jacobian ``G_c`` (nc, nv) at ``(q, qd)`` (views into ``data``)."""
    _need_loops(model)
    copy_state(model, data, q, qd)
    st = _kl.loop_jacobian(model.model_int, model.model_float, data.data_float, data.q, data.qd)
    check_status(st, model, data.q)
    return data.loop_phi, data.loop_cv, data.loop_gamma, data.loop_G


def constraint_error(model: Model, data, q) -> np.ndarray:
    """The loop position errors ``phi(q)`` (nc,), a new array."""
    return constraint_state(model, data, q)[0].copy()


def constraint_jacobian(model: Model, data, q) -> np.ndarray:
    """The constraint Jacobian ``G_c = Q J`` (nc, nv) of Jain 2012 Eq. 10, a new array."""
    return constraint_state(model, data, q)[3].copy()


def forward_dynamics(model: Model, data, q, qd, tau, f_ext=None, method: str = "ta", baumgarte=None) -> np.ndarray:
    """Closed-chain forward dynamics ``qdd`` (a view of ``data.qdd``) with the loops of ``model``.

    ``method="ta"``: Jain et al. 2012 Lemma 2 - free accelerations by the ABA, the Schur complement
    ``Q Lambda Q*`` from the operational space compliance of the closure nodes (never M or M^-1), the
    multipliers, and the correction by a second ABA pass. ``method="kkt"``: the augmented system
    ``[M, -G^T; G, 0] [qdd; lam] = [tau - C; -Gdot qd]`` by a sparse direct solve (scipy), for checking
    and for fully augmented models. ``baumgarte=(alpha, beta)`` adds ``2 alpha G qd + beta^2 phi`` to the
    constraint acceleration. Redundant loops are solved in the least-squares sense; ``data.loop_info``
    holds (rank, 1 if redundant). The multipliers are in ``data.loop_lambda``."""

    check_data(model, data)
    if method not in METHODS:
        raise ValueError(f"method: expected one of {METHODS}, got {method!r}")
    if method == "kkt":
        alpha, beta = _stabilization(baumgarte)
        return _kkt(model, data, q, qd, tau, f_ext, alpha, beta)
    st = _kl.ta_forward(*ta_kernel_arguments(model, data, q, qd, tau, f_ext, baumgarte))
    check_status(st, model, data.q, ("q", "qd", "tau", "f_ext"))
    return data.qdd


def ta_kernel_arguments(model: Model, data, q, qd, tau, f_ext=None, baumgarte=None) -> tuple:
    """The arguments of the TA kernel (:func:`soadyn._kernels.loops.ta_forward`) for one call, the inputs
    copied into ``data``: for :func:`forward_dynamics`, and for kernels that run its stages one by one
    (the timing breakdown of :mod:`soadyn.experiments.jain2012_breakdown`)."""
    check_data(model, data)
    _need_loops(model)
    alpha, beta = _stabilization(baumgarte)
    copy_in(q, data.q, "q")
    copy_in(qd, data.qd, "qd")
    copy_in(tau, data.tau_in, "tau")
    fext = external_forces(model, data, f_ext)
    return (model.model_int, model.model_float, data.data_float, data.data_int, data.q, data.qd, data.tau_in, fext,
            alpha, beta)


def _kkt(model: Model, data, q, qd, tau, f_ext, alpha: float, beta: float) -> np.ndarray:
    import scipy.sparse as sp
    import scipy.sparse.linalg as spla


    tau = as_array(tau, (model.nv,), "tau")
    if not np.all(np.isfinite(tau)):
        raise ValueError("tau: contains NaN or inf")
    phi, cv, gdot, G = constraint_state(model, data, q, qd)
    phi, cv, gdot, G = phi.copy(), cv.copy(), gdot.copy(), G.copy()
    b = rnea(model, data, q, qd, np.zeros(model.nv), f_ext).copy()
    M = crba(model, data, q).copy()
    K = sp.bmat([[sp.csc_matrix(M), sp.csc_matrix(-G.T)], [sp.csc_matrix(G), None]], format="csc")
    rhs = np.concatenate([tau - b, -gdot - 2.0 * alpha * cv - beta * beta * phi])
    try:
        x = spla.splu(K).solve(rhs)
    except RuntimeError as exc:  # exactly singular: redundant loops
        raise LoopError(f"the KKT matrix of {model.name!r} is singular ({exc}): the loops are redundant; "
                        "use method='ta', which solves them in the least-squares sense") from None
    data.qdd[:] = x[:model.nv]
    data.loop_lambda[:] = x[model.nv:]
    return data.qdd


# --------------------------------------------------------------------------------- error control, assembly
def project(model: Model, data, q, qd, tol: float = 1e-12, max_iter: int = 20):
    """Projection error control (Jain 2012 Sec. 5): positions by Gauss-Newton onto ``phi(q) = 0`` with the
    mass-weighted minimum-norm step ``dq = -M^-1 G^T (G M^-1 G^T)^+ phi``, then velocities onto
    ``G qd = 0`` the same way, in one kernel call (the Schur complement from the node compliance, M^-1 G^T
    by an ABA pass). Returns new ``(q, qd)``; :class:`AssemblyError` if positions do not converge."""

    check_data(model, data)
    _need_loops(model)
    q = kernel_array(q, (model.nq,), "q").copy()
    qd = kernel_array(qd, (model.nv,), "qd").copy()
    info = np.zeros(4, dtype=np.int64)
    st = _kl.project_state(model.model_int, model.model_float, data.data_float, data.data_int, q, qd, float(tol),
                           int(max_iter), info)
    check_status(st, model, q)
    if not info[3]:
        _raise_assembly(model, data, q, tol, "projection")
    return q, qd


def assemble(model: Model, q_guess, fixed=(), tol: float = 1e-10, max_iter: int = 100) -> np.ndarray:
    """Close the loops from ``q_guess`` by damped Gauss-Newton (minimum-norm steps in the free velocity
    coordinates), holding the dofs of the joints named in ``fixed`` (names or joint indices). Returns the
    assembled ``q``; :class:`AssemblyError` names the loop with the largest residual when it fails."""

    data = model.data()
    q = as_array(q_guess, (model.nq,), "q_guess").copy()
    free = np.ones(model.nv, dtype=bool)
    for j in fixed:
        i = model.joint_id(j)
        free[model.jnt_vadr[i]:model.jnt_vadr[i] + model.jnt_nv[i]] = False
    damping = 1e-6
    for _ in range(max_iter):
        phi = constraint_error(model, data, q)
        err = float(np.abs(phi).max(initial=0.0))
        if err <= tol:
            return q
        Gf = _phi_jacobian(model, data, q, np.flatnonzero(free))
        K = Gf @ Gf.T + damping * np.eye(model.nc)
        step = np.zeros(model.nv)
        step[free] = -Gf.T @ np.linalg.solve(K, phi)
        # backtrack on the residual norm
        t = 1.0
        while t > 1e-4:
            trial = integrate(model, q, t * step)
            if np.linalg.norm(constraint_state(model, data, trial)[0]) < np.linalg.norm(phi):
                break
            t *= 0.5
        q = trial
    _raise_assembly(model, data, q, tol, "assembly")


def _phi_jacobian(model: Model, data, q, dofs) -> np.ndarray:
    """Central differences of ``phi`` along ``integrate(q, eps e_k)`` for the dofs ``k`` (nc, len(dofs)):
    the exact derivative of the position error away from closure, where ``G_c`` (exact on the constraint
    manifold) is only a first-order approximation."""

    eps = 1e-7
    out = np.empty((model.nc, len(dofs)))
    for col, k in enumerate(dofs):
        e = np.zeros(model.nv)
        e[k] = eps
        out[:, col] = (constraint_error(model, data, integrate(model, q, e))
                       - constraint_error(model, data, integrate(model, q, -e))) / (2 * eps)
    return out


def _raise_assembly(model: Model, data, q, tol: float, what: str):
    phi = constraint_state(model, data, q)[0]
    worst = int(np.argmax([np.abs(phi[model.loop_row[l]:model.loop_row[l + 1]]).max() for l in range(model.nl)]))
    res = float(np.abs(phi[model.loop_row[worst]:model.loop_row[worst + 1]]).max())
    raise AssemblyError(f"{what} failed: loop {model.loop_names[worst]!r} cannot be closed (residual {res:.3e} > "
                        f"{tol:.1e}); the guess is too far or the loop is geometrically impossible",
                        model.loop_names[worst], res, q)
