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

from ._jit import EntryPoint
from ._kernels import derivatives as _kd
from ._kernels import frame_derivatives as _kfd
from .data import Data
from .dynamics import REFERENCES, batch_inputs, batch_status, check_status, coupled, external_forces, kernel_array
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
    """A frame's spatial velocity ``v`` and acceleration ``a`` (without gravity; frame or world-aligned axes)
    and their partial derivatives (new arrays)."""

    v: np.ndarray  # (6,)
    a: np.ndarray  # (6,)
    dv_dq: np.ndarray  # (6, nv), tangent space
    da_dq: np.ndarray  # (6, nv), tangent space
    da_dqd: np.ndarray  # (6, nv)
    da_dqdd: np.ndarray  # (6, nv) = dv/dqd = the frame Jacobian (same axes)


# the per-call kernels, called with the packed Model and Data buffers and arrays from kernel_array, always of
# the same types (soadyn._jit.EntryPoint)
_RNEA_DERIVATIVES, _ABA_DERIVATIVES = EntryPoint(_kd.rnea_derivatives), EntryPoint(_kd.aba_derivatives)

_new = tuple.__new__
"""``_new(cls, values)``: a NamedTuple from a tuple of its fields, without the argument parsing of
``cls(...)`` (0.1 us of a 4 us call at n = 6)."""


def _checked(model, data, what: str) -> None:
    """``ValueError`` unless ``model`` is a plain tree Model and ``data`` one of its Data."""
    if not isinstance(model, Model):
        if coupled(model):
            raise ValueError(f"{what}: models with coupled coordinates are not supported; differentiate their tree "
                             "model and apply the coupling's chain rule")
        raise ValueError(f"model: expected a soadyn Model, got {type(model).__name__}")
    if data is not None and getattr(data, "model", None) is not model:
        raise ValueError("data: not a Data of this model (create it with model.data())")


def rnea_derivatives(model: Model, data: Data, q, qd, qdd, f_ext=None) -> RNEADerivatives:
    """Inverse dynamics and its partial derivatives with respect to ``q`` (tangent space), ``qd`` and
    ``qdd`` (``M``), in one set of O(N) passes in world coordinates (Carpentier & Mansard 2018, Alg. 1;
    Pinocchio's ``computeRNEADerivatives``). ``f_ext`` as for :func:`soadyn.rnea` (body-frame forces,
    which move with their bodies)."""
    if type(model) is not Model or getattr(data, "model", None) is not model:
        _checked(model, data, "rnea_derivatives")
    nv = (model.nv,)
    q = kernel_array(q, (model.nq,), "q")
    qd = kernel_array(qd, nv, "qd")
    qdd = kernel_array(qdd, nv, "qdd")
    fext = data.fext_zero if f_ext is None else external_forces(model, data, f_ext)
    st = _RNEA_DERIVATIVES.call(model.model_int, model.model_float, data.data_float, q, qd, qdd, fext)
    if st:
        check_status(st, model, q, ("q", "qd", "qdd", "f_ext", "rnea_derivatives"))
    return _new(RNEADerivatives, (data.tau, data.dtau_dq, data.dtau_dqd, data.M))


def aba_derivatives(model: Model, data: Data, q, qd, tau, f_ext=None) -> ABADerivatives:
    """Forward dynamics and its partial derivatives: ``dqdd/dtau = M^-1`` (the O(n^2) recursion of
    :func:`soadyn.minv`), ``qdd = M^-1 (tau - b(q, qd))``, ``dqdd/dq = -M^-1 dtau/dq`` and ``dqdd/dqd =
    -M^-1 dtau/dqd`` with the RNEA derivatives at ``(q, qd, qdd)`` (Carpentier & Mansard 2018, Sec. IV-B;
    Pinocchio's ``computeABADerivatives``)."""
    if type(model) is not Model or getattr(data, "model", None) is not model:
        _checked(model, data, "aba_derivatives")
    nv = (model.nv,)
    q = kernel_array(q, (model.nq,), "q")
    qd = kernel_array(qd, nv, "qd")
    tau = kernel_array(tau, nv, "tau")
    fext = data.fext_zero if f_ext is None else external_forces(model, data, f_ext)
    st = _ABA_DERIVATIVES.call(model.model_int, model.model_float, data.data_float, q, qd, tau, fext)
    if st:
        check_status(st, model, q, ("q", "qd", "tau", "f_ext", "aba_derivatives"))
    return _new(ABADerivatives, (data.qdd, data.dqdd_dq, data.dqdd_dqd, data.Minv))


def frame_jacobian_time_variation(model: Model, data: Data, q, qd, frame, reference: str = "local"):
    """``(J, dJ)``: the frame Jacobian of :func:`soadyn.frame_jacobian` (same ``reference``) and its time
    derivative ``d/dt J(q(t))`` along ``qd`` (Pinocchio's ``getFrameJacobianTimeVariation`` with ``LOCAL`` or
    ``LOCAL_WORLD_ALIGNED``): ``dJ qd`` is :func:`soadyn.frame_bias_acceleration`. Returns ``(data.J,
    data.dJ)``, each (6, nv)."""
    _checked(model, data, "frame_jacobian_time_variation")
    if reference not in REFERENCES:
        raise ValueError(f"reference: expected one of {REFERENCES}, got {reference!r}")
    f = model.frame_id(frame)
    q = kernel_array(q, (model.nq,), "q")
    qd = kernel_array(qd, (model.nv,), "qd")
    st = _kfd.frame_jacobian_time_variation(model.model_int, model.model_float, data.data_float, q, qd, f,
                                            reference == "local")
    if st:
        check_status(st, model, q, ("q", "qd", "input", "f_ext", "frame_jacobian_time_variation"))
    return data.J, data.dJ


def frame_acceleration_derivatives(model: Model, data: Data, q, qd, qdd, frame,
                                   reference: str = "local") -> FrameAccelerationDerivatives:
    """Partial derivatives of the spatial velocity and acceleration of ``frame`` (at its origin, without
    gravity) with respect to ``q`` (tangent space), ``qd`` and ``qdd`` (Carpentier & Mansard 2018, Sec. III;
    Pinocchio's ``getFrameAccelerationDerivatives``). ``reference="local"``: ``v``, ``a`` in the frame's axes
    (Pinocchio's ``LOCAL``); ``"world_aligned"``: in world axes (``LOCAL_WORLD_ALIGNED``), whose derivatives
    also follow the motion of the frame origin."""
    _checked(model, data, "frame_acceleration_derivatives")
    if reference not in REFERENCES:
        raise ValueError(f"reference: expected one of {REFERENCES}, got {reference!r}")
    f = model.frame_id(frame)
    nv = (model.nv,)
    q = kernel_array(q, (model.nq,), "q")
    qd = kernel_array(qd, nv, "qd")
    qdd = kernel_array(qdd, nv, "qdd")
    va = np.empty((6, 2))
    out = np.empty((4, 6, model.nv))
    st = _kfd.frame_acceleration_derivatives(model.model_int, model.model_float, data.data_float, q, qd, qdd, f,
                                             reference == "local", va, out)
    if st:
        check_status(st, model, q, ("q", "qd", "qdd", "f_ext", "frame_acceleration_derivatives"))
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
    _checked(model, None, name)
    Q, QD, X, K, nchunks = batch_inputs(model, Q, QD, X, xname)
    nv = model.nv
    first, out = np.empty((K, nv)), [np.empty((K, nv, nv)) for _ in range(3)]
    status = np.zeros(K, dtype=np.int64)
    kernel(model.model_int, model.model_float, Q, QD, X, nchunks, first, *out, status)
    batch_status(model, status, Q, ("Q", "QD", xname, "f_ext", name))
    return (first, *out)
