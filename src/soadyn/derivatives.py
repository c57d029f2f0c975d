"""Analytical derivatives of the tree dynamics (Carpentier & Mansard, "Analytical Derivatives of Rigid Body
Dynamics Algorithms", RSS 2018): RNEA and ABA partial derivatives, the frame Jacobian's time variation and
frame velocity and acceleration derivatives, single states and batches.

Configuration derivatives are taken in the tangent space, as Pinocchio defines them: column ``l`` of
``dtau_dq`` is ``d/de tau(integrate(q, e * unit_l), ...)`` at ``e = 0``, so a free joint's six columns are
body-frame twists ``[w; v]`` and a spherical joint's three are body-frame rotations. Matrices are returned
as views into ``data`` (overwritten by the next call), batches as new arrays.

>>> d = sd.rnea_derivatives(model, data, q, qd, qdd)          # d.dtau_dq, d.dtau_dqd, d.M
>>> d = sd.aba_derivatives(model, data, q, qd, tau)           # d.dqdd_dq, d.dqdd_dqd, d.Minv
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from ._kernels import derivatives as _kd
from ._kernels import frame_derivatives as _kfd
from .data import Data
from .dynamics import (REFERENCES, batch_inputs, batch_status, check_status, copy_in, copy_state, coupled, external_forces,
                       finite_result)
from .model import Model

__all__ = ["RNEADerivatives", "ABADerivatives", "FrameAccelerationDerivatives", "rnea_derivatives",
           "aba_derivatives", "rnea_derivatives_batch", "aba_derivatives_batch", "frame_jacobian_time_variation",
           "frame_acceleration_derivatives"]


class RNEADerivatives(NamedTuple):
    """``tau = rnea(q, qd, qdd, f_ext)`` and its partial derivatives (views into ``data``)."""

    tau: np.ndarray  # (nv,)
    dtau_dq: np.ndarray  # (nv, nv), tangent space
    dtau_dqd: np.ndarray  # (nv, nv)
    M: np.ndarray  # (nv, nv) = dtau/dqdd


class ABADerivatives(NamedTuple):
    """``qdd = aba(q, qd, tau, f_ext)`` and its partial derivatives (views into ``data``)."""

    qdd: np.ndarray  # (nv,)
    dqdd_dq: np.ndarray  # (nv, nv), tangent space
    dqdd_dqd: np.ndarray  # (nv, nv)
    Minv: np.ndarray  # (nv, nv) = dqdd/dtau


class FrameAccelerationDerivatives(NamedTuple):
    """A frame's spatial velocity ``v`` and acceleration ``a`` (frame coordinates, without gravity) and
    their partial derivatives (new arrays)."""

    v: np.ndarray  # (6,)
    a: np.ndarray  # (6,)
    dv_dq: np.ndarray  # (6, nv), tangent space
    da_dq: np.ndarray  # (6, nv), tangent space
    da_dqd: np.ndarray  # (6, nv)
    da_dqdd: np.ndarray  # (6, nv) = dv/dqd = the frame Jacobian (local)


def _tree(model: Model) -> tuple:
    """The model arrays of the tree kernels, in their argument order."""
    return (model.body_parent, model.jnt_type, model.jnt_qadr, model.jnt_vadr, model.jnt_nv, model.jnt_axis,
            model.jnt_axis2, model.jnt_pitch, model.body_Xtree_E, model.body_Xtree_r, model.body_I, model.dof_S)


def _plain(model, what: str) -> None:
    if coupled(model):
        raise ValueError(f"{what}: models with coupled coordinates are not supported; differentiate their tree "
                         "model and apply the coupling's chain rule")
    if not isinstance(model, Model):
        raise ValueError(f"model: expected a soadyn Model, got {type(model).__name__}")


def _state(model: Model, data: Data, q, qd, x, xbuf, xname: str, f_ext):
    if getattr(data, "model", None) is not model:
        raise ValueError("data: not a Data of this model (create it with model.data())")
    copy_in(q, data.q, "q")
    copy_in(qd, data.qd, "qd")
    copy_in(x, xbuf, xname)
    return external_forces(model, data, f_ext)


def rnea_derivatives(model: Model, data: Data, q, qd, qdd, f_ext=None) -> RNEADerivatives:
    """Inverse dynamics and its partial derivatives with respect to ``q`` (tangent space), ``qd`` and
    ``qdd`` (``M``), in one set of O(N) passes in world coordinates (Carpentier & Mansard 2018, Alg. 1;
    Pinocchio's ``computeRNEADerivatives``). ``f_ext`` as for :func:`soadyn.rnea` (body-frame forces,
    which move with their bodies)."""
    _plain(model, "rnea_derivatives")
    fext = _state(model, data, q, qd, qdd, data.qdd_in, "qdd", f_ext)
    st = _kd.rnea_derivatives(*_tree(model), model.dof_armature, model.body_subtree_end,
                              data.q, data.qd, data.qdd_in, fext,
                              model.gravity_accel, data.X_E, data.X_r, data.S, data.oR, data.op, data.oS, data.oI,
                              data.deriv_bw, data.deriv_dw, data.deriv_B,
                              data.tau, data.dtau_dq, data.dtau_dqd, data.M)
    check_status(st, model, data.q, ("q", "qd", "qdd", "f_ext"))
    return RNEADerivatives(finite_result(data.tau, "rnea_derivatives"), data.dtau_dq, data.dtau_dqd, data.M)


def aba_derivatives(model: Model, data: Data, q, qd, tau, f_ext=None) -> ABADerivatives:
    """Forward dynamics and its partial derivatives: ``dqdd/dtau = M^-1`` (the O(n^2) recursion of
    :func:`soadyn.minv`), ``dqdd/dq = -M^-1 dtau/dq`` and ``dqdd/dqd = -M^-1 dtau/dqd`` with the RNEA
    derivatives at ``qdd = aba(q, qd, tau)`` (Carpentier & Mansard 2018, Sec. IV-B; Pinocchio's
    ``computeABADerivatives``)."""
    _plain(model, "aba_derivatives")
    fext = _state(model, data, q, qd, tau, data.tau_in, "tau", f_ext)
    st = _kd.aba_derivatives(*_tree(model), model.dof_armature, model.body_subtree_end,
                             data.q, data.qd, data.tau_in, fext,
                             model.gravity_accel, data.X_E, data.X_r, data.S, data.oR, data.op, data.oS, data.oI,
                             data.deriv_bw, data.deriv_dw, data.deriv_B,
                             data.v, data.c, data.IA, data.pA, data.U, data.D, data.Dinv, data.u, data.a,
                             data.oIA, data.oU, data.Fm, data.Am, data.tau, data.dtau_dq, data.dtau_dqd, data.M,
                             data.qdd, data.dqdd_dq, data.dqdd_dqd, data.Minv)
    check_status(st, model, data.q, ("q", "qd", "tau", "f_ext"))
    return ABADerivatives(finite_result(data.qdd, "aba_derivatives"), data.dqdd_dq, data.dqdd_dqd, data.Minv)


def frame_jacobian_time_variation(model: Model, data: Data, q, qd, frame, reference: str = "local"):
    """``(J, dJ)``: the frame Jacobian of :func:`soadyn.frame_jacobian` (same ``reference``) and its time
    derivative ``d/dt J(q(t))`` along ``qd`` (Pinocchio's ``getFrameJacobianTimeVariation`` with ``LOCAL`` or
    ``LOCAL_WORLD_ALIGNED``): ``dJ qd`` is :func:`soadyn.frame_bias_acceleration`. Returns ``(data.J,
    data.dJ)``, each (6, nv)."""
    _plain(model, "frame_jacobian_time_variation")
    if reference not in REFERENCES:
        raise ValueError(f"reference: expected one of {REFERENCES}, got {reference!r}")
    f = model.frame_id(frame)
    copy_state(model, data, q, qd)
    st = _kfd.frame_jacobian_time_variation(
        *_tree(model), data.q, data.qd, model.frame_body[f], model.frame_E[f], model.frame_r[f],
        reference == "local", data.X_E, data.X_r, data.S, data.oR, data.op, data.oS, data.deriv_bw,
        data.deriv_dw, data.frame_R, data.frame_p, data.J, data.dJ)
    check_status(st, model, data.q)
    return data.J, finite_result(data.dJ, "frame_jacobian_time_variation")


def frame_acceleration_derivatives(model: Model, data: Data, q, qd, qdd, frame) -> FrameAccelerationDerivatives:
    """Partial derivatives of the spatial velocity and acceleration of ``frame`` (frame coordinates, at
    its origin, without gravity) with respect to ``q`` (tangent space), ``qd`` and ``qdd`` (Carpentier &
    Mansard 2018, Sec. III; Pinocchio's ``getFrameAccelerationDerivatives`` with ``LOCAL``)."""
    _plain(model, "frame_acceleration_derivatives")
    f = model.frame_id(frame)
    _state(model, data, q, qd, qdd, data.qdd_in, "qdd", None)
    nv = model.nv
    va = np.empty((6, 2))
    out = [np.empty((6, nv)) for _ in range(4)]
    st = _kfd.frame_acceleration_derivatives(
        *_tree(model), data.q, data.qd, data.qdd_in, model.frame_body[f], model.frame_E[f], model.frame_r[f],
        data.X_E, data.X_r, data.S, data.oR, data.op, data.oS, data.deriv_bw, data.deriv_dw, data.frame_R,
        data.frame_p, va, *out)
    check_status(st, model, data.q, ("q", "qd", "qdd"))
    return FrameAccelerationDerivatives(va[:, 0].copy(), va[:, 1].copy(), *out)


def rnea_derivatives_batch(model: Model, Q, QD, QDD):
    """:func:`rnea_derivatives` for K states (rows of ``Q`` (K, nq), ``QD``, ``QDD`` (K, nv)) in parallel
    over threads in one kernel call. Returns new arrays ``(TAU (K, nv), DTAU_DQ, DTAU_DQD, M (K, nv,
    nv))``."""
    return _batch(model, _kd.rnea_derivatives_batch, "rnea_derivatives_batch", Q, QD, QDD, "QDD")


def aba_derivatives_batch(model: Model, Q, QD, TAU):
    """:func:`aba_derivatives` for K states in parallel. Returns new arrays ``(QDD (K, nv), DQDD_DQ,
    DQDD_DQD, MINV (K, nv, nv))``."""
    return _batch(model, _kd.aba_derivatives_batch, "aba_derivatives_batch", Q, QD, TAU, "TAU")


def _batch(model: Model, kernel, name: str, Q, QD, X, xname: str) -> tuple:
    """One call of a batch derivative ``kernel`` over the rows of ``Q``, ``QD`` and ``X`` (named ``xname``):
    the first result (K, nv) and the three (K, nv, nv) derivative arrays, checked."""
    _plain(model, name)
    Q, QD, X, K, nchunks = batch_inputs(model, Q, QD, X, xname)
    nv = model.nv
    first, out = np.empty((K, nv)), [np.empty((K, nv, nv)) for _ in range(3)]
    status = np.zeros(K, dtype=np.int64)
    kernel(*_tree(model), model.dof_armature, model.body_subtree_end, Q, QD, X, np.zeros((model.nb, 6)),
           model.gravity_accel, nchunks, first, *out, status)
    batch_status(model, status, Q, ("Q", "QD", xname, "f_ext"))
    return (finite_result(first, name), *out)
