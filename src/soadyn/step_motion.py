"""The position update of a contact step (:func:`soadyn._kernels.contact_motion.step_positions`, the split
correction's :func:`soadyn._kernels.joints.integrate_config`) and its tangent-space derivatives, for
:mod:`soadyn.step_derivatives`.

Configurations are differentiated in the tangent space of :mod:`soadyn.derivatives`: a free joint's
perturbation is a successor-frame motion ``[a; b]`` (``R exp(a~)``, ``p + R b``), a spherical joint's a
successor-frame rotation. A free joint's step moves its centre of mass on a line and turns the body about
it, ``R+ = R exp(dt w~)``, ``p_c+ = p_c + dt R u`` (``u = v + w x c``), then writes its velocity in the new
axes, ``v+ = exp(-dt w~) u - w x c`` (:func:`step_velocity` turns it back); an untouched free body moves its
centre by the trapezoidal rule.
"""

from __future__ import annotations

import numpy as np

from ._kernels import contact_motion as _kcm
from ._kernels import joints as _kj
from .joints import FREE, SPHERICAL
from .kinematic_hessian import cross3

__all__ = ["skew", "exp_series", "so3_series", "ad_matrix", "body_com", "position_rates", "correction_rates", "still_joints",
           "move", "step_velocity"]


def skew(v):
    return np.array([[0.0, -v[2], v[1]], [v[2], 0.0, -v[0]], [-v[1], v[0], 0.0]])


def exp_series(A, shift: int, terms: int = 40):
    """``sum_k A^k / (k + shift)!``: ``exp(A)`` (shift 0) and the right Jacobian ``(exp(A) - 1) / A``
    (shift 1) of a small ``A`` (``|A| <~ 5``; steps rotate far less)."""
    out, term = np.eye(A.shape[0]), np.eye(A.shape[0])
    fact = 1.0
    for k in range(1, shift + 1):
        fact *= k
    out /= fact
    term = term / fact
    for k in range(1, terms):
        term = term @ A / (k + shift)
        out = out + term
        if np.abs(term).max() <= 1e-18:
            break
    return out


def so3_series(v):
    """``(exp(v~), sum_k (v~)^k / (k + 1)!)`` in closed form (Rodrigues): ``I + a v~ + b v~^2`` and ``I + b v~
    + c v~^2`` with ``a = sin t / t``, ``b = (1 - cos t) / t^2``, ``c = (t - sin t) / t^3``, ``t = |v|``
    (their Taylor series below ``t = 0.01``): :func:`exp_series` of a rotation's skew matrix."""
    K = skew(v)
    K2 = K @ K
    t2 = float(v @ v)
    if t2 < 1e-4:
        a = 1.0 - t2 / 6.0 * (1.0 - t2 / 20.0)
        b = 0.5 - t2 / 24.0 * (1.0 - t2 / 30.0)
        c = 1.0 / 6.0 - t2 / 120.0 * (1.0 - t2 / 42.0)
    else:
        t = np.sqrt(t2)
        s = np.sin(t)
        a, b, c = s / t, 2.0 * np.sin(0.5 * t) ** 2 / t2, (t - s) / (t2 * t)
    eye = np.eye(3)
    return eye + a * K + b * K2, eye + b * K + c * K2


def ad_matrix(xi):
    """``ad([w; v]) = [[w~, 0], [v~, w~]]``."""
    w, v = skew(xi[:3]), skew(xi[3:])
    return np.block([[w, np.zeros((3, 3))], [v, w]])


def body_com(model, b):
    Ib = model.body_I[b]
    m = Ib[3, 3]
    return np.zeros(3) if m <= 0.0 else np.array([Ib[2, 4], Ib[0, 5], Ib[1, 3]]) / m


def position_rates(model, qd, u, du, untouched, dt, nx):
    """Tangent derivatives ``(dq1/dx, dqd_out/dx)`` of the position update ``q1 = q (+) dt u`` (free joints:
    :func:`soadyn._kernels.joints.step_free_joint`, with the ballistic shift of an untouched body) and of
    the step's output velocity (free joints rewritten in their new body axes)."""
    nv = model.nv
    Iq, Iqd = np.zeros((nv, nx)), np.zeros((nv, nx))
    Iq[:, :nv] = np.eye(nv)
    Iqd[:, nv:2 * nv] = np.eye(nv)
    dq1, dqo = Iq + dt * du, du.copy()
    for b in range(model.nb):
        t, a = model.jnt_type[b], int(model.jnt_vadr[b])
        if t not in (FREE, SPHERICAL):
            continue
        w, dw, al = u[a:a + 3], du[a:a + 3], Iq[a:a + 3]
        RwT, Jr = so3_series(-dt * w)
        a1 = RwT @ al + dt * Jr @ dw
        dq1[a:a + 3] = a1
        if t == SPHERICAL:
            continue
        c = body_com(model, b)
        uc = u[a + 3:a + 6] + cross3(w, c)
        duc = du[a + 3:a + 6] - skew(c) @ dw
        be = Iq[a + 3:a + 6]
        inner = be - skew(c + dt * uc) @ al + dt * duc
        if untouched[b]:
            u0 = qd[a + 3:a + 6] + cross3(qd[a:a + 3], c)
            du0 = Iqd[a + 3:a + 6] - skew(c) @ Iqd[a:a + 3]
            inner += 0.5 * dt * (-skew(u0 - uc) @ al + du0 - duc)
        dq1[a + 3:a + 6] = RwT @ inner + skew(c) @ a1
        dqo[a + 3:a + 6] = skew(RwT @ uc) @ (dt * Jr @ dw) + RwT @ duc + skew(c) @ dw
    return dq1, dqo


def correction_rates(model, dq1, dc, ddc, dt):
    """Tangent derivative of ``q1 (+) dt dc`` (the split correction, :func:`soadyn._kernels.joints.
    integrate_joint`: SO(3) and SE(3) exponentials of the successor-frame motion)."""
    out = dq1 + dt * ddc
    for b in range(model.nb):
        t, a = model.jnt_type[b], int(model.jnt_vadr[b])
        if t == SPHERICAL:
            E, Jr = so3_series(-dt * dc[a:a + 3])
            out[a:a + 3] = E @ dq1[a:a + 3] + Jr @ (dt * ddc[a:a + 3])
        elif t == FREE:
            ad = ad_matrix(dt * dc[a:a + 6])
            out[a:a + 6] = exp_series(-ad, 0) @ dq1[a:a + 6] + exp_series(-ad, 1) @ (dt * ddc[a:a + 6])
    return out


def still_joints(model, u, qf):
    """Per joint: a free joint whose step velocity equals its free velocity (no impulse reached it)."""
    return np.array([model.jnt_type[b] == FREE and bool(np.all(u[model.jnt_vadr[b]:model.jnt_vadr[b] + 6] ==
                                                                qf[model.jnt_vadr[b]:model.jnt_vadr[b] + 6]))
                     for b in range(model.nb)])


def move(model, q, qd, u, still, dc, dt):
    """``(q+, qd_out)``: the kernel's position update with the step velocity ``u`` (the ballistic rule for the
    free joints marked ``still``), then the split correction ``(+) dt dc``."""
    ref = u + np.repeat(np.where(still, 0.0, 1.0), model.jnt_nv)
    q1, qo, R = np.empty(model.nq), u.copy(), np.empty((3, 3))
    _kcm.step_positions(model.jnt_type, model.jnt_qadr, model.jnt_vadr, model.body_I, q, qd, ref, qo, dt, q1, R,
                        np.empty((model.nb, 3)))
    if not np.any(dc):
        return q1, qo
    q2 = np.empty(model.nq)
    _kj.integrate_config(model.jnt_type, model.jnt_qadr, model.jnt_vadr, q1, dc, dt, q2, R)
    return q2, qo


def step_velocity(model, qd_next, dt):
    """The step velocity ``u`` of the simulator's output ``qd_next``: its free joints' velocities written back
    in the step's body axes (``v = exp(dt w~) (v+ + w x c) - w x c``)."""
    u = qd_next.copy()
    for b in np.flatnonzero(model.jnt_type == FREE):
        a = int(model.jnt_vadr[b])
        w, c = u[a:a + 3], body_com(model, b)
        u[a + 3:a + 6] = so3_series(dt * w)[0] @ (u[a + 3:a + 6] + cross3(w, c)) - cross3(w, c)
    return u
