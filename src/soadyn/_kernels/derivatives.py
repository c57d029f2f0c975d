"""Analytical derivatives of the tree dynamics (Carpentier & Mansard, "Analytical Derivatives of Rigid
Body Dynamics Algorithms", RSS 2018), in world coordinates about the world origin.

A configuration perturbation ``delta_l`` along tangent dof ``l`` (``q (+) delta_l e_l``, the group
exponential of ``soadyn.integrate``) moves every body of the subtree of the dof's body rigidly by the
world twist ``S_l`` (the dof's motion subspace column in world coordinates), so a world-frame column
``S_k`` it moves changes by ``S_l x S_k``. A dof's column is moved by every dof of the ancestor joints
and, within its own joint, by every dof when the column is constant in the successor frame (spherical,
free, planar), or by the earlier dofs only when the joint is a chain of one-dof rotations (universal:
its first axis is fixed in the parent). Per dof ``l`` this gives, with ``Vp_l``, ``Ap_l`` the velocity
and acceleration of the frame the dof moves relative to (the parent, or the universal joint's
intermediate frame):

* ``dV/dq_l = Vp_l x S_l``, ``dA/dq_l = Ap_l x S_l + Vp_l x (Vp_l x S_l)`` (the parts of a moved body's
  ``delta V = S_l x V + dV/dq_l``, ``delta A = S_l x A + dA/dq_l - V x dV/dq_l`` that are not its rigid
  transport);
* ``Sdot_l``, the time derivative of the column, and ``dA/dqd_l = Sdot_l + Vp_l x S_l``.

A body force ``F = I A + V x* I V - f_ext`` then varies as ``delta F = S_l x* F + I dA/dq_l +
B dV/dq_l`` with ``B = V x* I - I V x + (I V) x*bar`` (Carpentier & Mansard Eq. 14-16: Pinocchio's
``doYcrb``), and ``dF/dqd_l = I dA/dqd_l + B S_l``. ``I``, ``B`` and ``F`` add over subtrees (composite
quantities, no transforms in world coordinates), so ``dtau_k/dq_l`` is ``S_k . (Ic dA/dq_l + Bc dV/dq_l)``
with the composites of ``k``'s body when ``l`` moves column ``k``, else ``S_k . (S_l x* Fc + Ic dA/dq_l +
Bc dV/dq_l)`` with those of ``l``'s body; ``(S_l x S_k) . F + S_k . (S_l x* F) = 0`` removes the
transport terms. Each entry is one dot product: O(nv d) for depth d.

Calling convention (docs/architecture.md, Kernels): ``(model_int, model_float, data_float, inputs...)``,
the fields opened inside under their Model/Data names (:mod:`.layout`). Data workspaces:
``deriv_bw`` (3, nb, 6) world velocity, acceleration (first the velocity-product term ``c``), force (then
composite force) per body;
``deriv_dw`` (7, nv, 6) per dof ``Sdot``, ``dV/dq``, ``dA/dq``, ``dA/dqd``, ``Ic S``, ``Bc^T S`` and a
scratch row; ``deriv_B`` (nb, 6, 6) the ``B`` matrices (then composites); ``scratch`` (4, 6, 6).
"""

import numpy as np

from .._jit import jit, parallel_jit, prange, view
from . import layout
from .joints import NOT_FINITE, OK, UNIVERSAL, all_finite
from .articulated import aba_world_accelerations, articulated_bias_world
from .kinematics import check_inputs, tree_positions, world_inertias, world_poses, world_subspaces
from .layout import (AM, DATA_FLOAT_SIZE, DERIV_B, DERIV_BW, DERIV_DW, DQDD_DQ, DQDD_DQD, DTAU_DQ, DTAU_DQD,
                     FEXT_ZERO, FM, MINV, MM, NB, NV, QDD, SCRATCH, TAU, WK, data_kinematics, data_world, dfield,
                     model_tree)
from .spatial import cross_force
from .tree import minv_passes

V_, A_, F_ = 0, 1, 2
SD, DVDQ, DADQ, DADV, PS, QS, TMP = 0, 1, 2, 3, 4, 5, 6


@jit
def model_derivatives(mi, mf):
    """``(body_subtree_end, gravity_accel)``, the Model fields the derivatives read besides the tree's."""
    return (view(mi, mi[layout.MODEL_INT_OFF + layout.BODY_SUBTREE_END], mi[NB]),
            view(mf, mi[layout.MODEL_FLOAT_OFF + layout.GRAVITY_ACCEL], 6))


@jit
def data_world_kinematics(mi, df):
    """``(X_E, X_r, S, oR, op, oS, oI)``: body transforms, subspaces, world poses, subspaces and inertias (only
    the fields used: each view opened costs a reference count)."""
    nb, nv = mi[NB], mi[NV]
    return (dfield(mi, df, layout.X_E, (nb, 3, 3)), dfield(mi, df, layout.X_R, (nb, 3)),
            dfield(mi, df, layout.S, (nv, 6)), dfield(mi, df, layout.OR, (nb, 3, 3)), dfield(mi, df, layout.OP, (nb, 3)),
            dfield(mi, df, layout.OS, (nv, 6)), dfield(mi, df, layout.OI, (nb, 6, 6)))


@jit
def data_derivatives(mi, df):
    """``(deriv_bw, deriv_dw, deriv_B, scratch)``: the workspaces of the derivative passes."""
    nb, nv = mi[NB], mi[NV]
    return (dfield(mi, df, DERIV_BW, (3, nb, 6)), dfield(mi, df, DERIV_DW, (7, nv, 6)),
            dfield(mi, df, DERIV_B, (nb, 6, 6)), dfield(mi, df, SCRATCH, (4, 6, 6)))


# ------------------------------------------------------------------------------- row helpers (scalars)
@jit
def cross_at(x, i, y, k, out, o):
    """``out[o] = x[i] x y[k]`` for rows of whole arrays (motion cross product, RBDA Eq. 2.31)."""
    w0, w1, w2, v0, v1, v2 = x[i, 0], x[i, 1], x[i, 2], x[i, 3], x[i, 4], x[i, 5]
    m0, m1, m2, m3, m4, m5 = y[k, 0], y[k, 1], y[k, 2], y[k, 3], y[k, 4], y[k, 5]
    out[o, 0] = w1 * m2 - w2 * m1
    out[o, 1] = w2 * m0 - w0 * m2
    out[o, 2] = w0 * m1 - w1 * m0
    out[o, 3] = w1 * m5 - w2 * m4 + v1 * m2 - v2 * m1
    out[o, 4] = w2 * m3 - w0 * m5 + v2 * m0 - v0 * m2
    out[o, 5] = w0 * m4 - w1 * m3 + v0 * m1 - v1 * m0


@jit
def dot_at(x, k, y, l):
    """``x[k] . y[l]`` for rows of whole (., 6) arrays."""
    return (x[k, 0] * y[l, 0] + x[k, 1] * y[l, 1] + x[k, 2] * y[l, 2] + x[k, 3] * y[l, 3] + x[k, 4] * y[l, 4]
            + x[k, 5] * y[l, 5])


# ----------------------------------------------------------------------------------------- the passes
@jit
def cross6(w0, w1, w2, v0, v1, v2, m0, m1, m2, m3, m4, m5):
    """``[w; v] x m`` on scalars (motion cross product, RBDA Eq. 2.31)."""
    return (w1 * m2 - w2 * m1, w2 * m0 - w0 * m2, w0 * m1 - w1 * m0, w1 * m5 - w2 * m4 + v1 * m2 - v2 * m1,
            w2 * m3 - w0 * m5 + v2 * m0 - v0 * m2, w0 * m4 - w1 * m3 + v0 * m1 - v1 * m0)


@jit
def world_velocity_pass(parent, jtype, vadr, jnv, oS, qd, bw, dw):
    """Pass: root to leaves, world coordinates. ``V_i = V_p + sum S_k qd_k``, per dof ``Sdot_k``, ``dV/dq``,
    ``dA/dqd`` and the velocity part ``Vp x dV/dq`` of ``dA/dq`` (module docstring), and the velocity-product
    acceleration ``c_i = sum Sdot_k qd_k`` of each body in ``bw[A_]`` (``A_i = A_p + S_i qdd_i + c_i``).
    The body's velocity and ``c_i`` are summed in registers."""
    V, C = bw[V_], bw[A_]
    Sd, dVdq, dAdq, dAdv = dw[SD], dw[DVDQ], dw[DADQ], dw[DADV]
    for i in range(parent.shape[0]):
        p = parent[i]
        if p >= 0:
            x0, x1, x2, x3, x4, x5 = V[p, 0], V[p, 1], V[p, 2], V[p, 3], V[p, 4], V[p, 5]
        else:
            x0 = x1 = x2 = x3 = x4 = x5 = 0.0
        c0 = c1 = c2 = c3 = c4 = c5 = 0.0
        va, n = vadr[i], jnv[i]
        # a chain of one-dof rotations: each dof moves relative to the frame the earlier ones reach, whose
        # velocity x holds while the loop adds the joint's dofs; else every dof moves relative to the parent
        sequential = n == 1 or jtype[i] == UNIVERSAL
        for k in range(va, va + n):
            s0, s1, s2, s3, s4, s5 = oS[k, 0], oS[k, 1], oS[k, 2], oS[k, 3], oS[k, 4], oS[k, 5]
            d0, d1, d2, d3, d4, d5 = cross6(x0, x1, x2, x3, x4, x5, s0, s1, s2, s3, s4, s5)  # Vp x S_k
            dVdq[k, 0], dVdq[k, 1], dVdq[k, 2], dVdq[k, 3], dVdq[k, 4], dVdq[k, 5] = d0, d1, d2, d3, d4, d5
            dAdq[k, 0], dAdq[k, 1], dAdq[k, 2], dAdq[k, 3], dAdq[k, 4], dAdq[k, 5] = cross6(
                x0, x1, x2, x3, x4, x5, d0, d1, d2, d3, d4, d5)  # Vp x (Vp x S_k)
            if sequential:  # Sdot_k = (Vp + S_k qd_k) x S_k = Vp x S_k
                Sd[k, 0], Sd[k, 1], Sd[k, 2], Sd[k, 3], Sd[k, 4], Sd[k, 5] = d0, d1, d2, d3, d4, d5
                y = qd[k]
                x0, x1, x2, x3, x4, x5 = x0 + s0 * y, x1 + s1 * y, x2 + s2 * y, x3 + s3 * y, x4 + s4 * y, x5 + s5 * y
                c0, c1, c2, c3, c4, c5 = c0 + d0 * y, c1 + d1 * y, c2 + d2 * y, c3 + d3 * y, c4 + d4 * y, c5 + d5 * y
        if not sequential:  # columns constant in the successor frame: Sdot_k = V_i x S_k
            for k in range(va, va + n):
                y = qd[k]
                x0, x1, x2 = x0 + oS[k, 0] * y, x1 + oS[k, 1] * y, x2 + oS[k, 2] * y
                x3, x4, x5 = x3 + oS[k, 3] * y, x4 + oS[k, 4] * y, x5 + oS[k, 5] * y
            for k in range(va, va + n):
                d0, d1, d2, d3, d4, d5 = cross6(x0, x1, x2, x3, x4, x5, oS[k, 0], oS[k, 1], oS[k, 2], oS[k, 3],
                                                oS[k, 4], oS[k, 5])
                Sd[k, 0], Sd[k, 1], Sd[k, 2], Sd[k, 3], Sd[k, 4], Sd[k, 5] = d0, d1, d2, d3, d4, d5
                y = qd[k]
                c0, c1, c2, c3, c4, c5 = c0 + d0 * y, c1 + d1 * y, c2 + d2 * y, c3 + d3 * y, c4 + d4 * y, c5 + d5 * y
        V[i, 0], V[i, 1], V[i, 2], V[i, 3], V[i, 4], V[i, 5] = x0, x1, x2, x3, x4, x5
        C[i, 0], C[i, 1], C[i, 2], C[i, 3], C[i, 4], C[i, 5] = c0, c1, c2, c3, c4, c5
        for k in range(va, va + n):
            for m in range(6):
                dAdv[k, m] = Sd[k, m] + dVdq[k, m]


@jit
def acceleration_pass(parent, jtype, vadr, jnv, oS, qd, qdd, a0, bw, dw):
    """Pass: root to leaves, after :func:`world_velocity_pass`. ``A_i = A_p + c_i + sum S_k qdd_k`` in place of
    the ``c_i`` in ``bw[A_]`` (``A`` of the world: ``a0``), and the acceleration part ``Ap_l x S_l`` of
    ``dA/dq_l`` (module docstring), ``Ap_l`` the parent's acceleration plus, in a chain of one-dof rotations,
    the earlier dofs' ``S_k qdd_k + Sdot_k qd_k``."""
    A = bw[A_]
    Sd, dAdq = dw[SD], dw[DADQ]
    for i in range(parent.shape[0]):
        p = parent[i]
        if p >= 0:
            a_0, a_1, a_2, a_3, a_4, a_5 = A[p, 0], A[p, 1], A[p, 2], A[p, 3], A[p, 4], A[p, 5]
        else:
            a_0, a_1, a_2, a_3, a_4, a_5 = a0[0], a0[1], a0[2], a0[3], a0[4], a0[5]
        b0, b1, b2 = A[i, 0] + a_0, A[i, 1] + a_1, A[i, 2] + a_2
        b3, b4, b5 = A[i, 3] + a_3, A[i, 4] + a_4, A[i, 5] + a_5
        sequential = jnv[i] == 1 or jtype[i] == UNIVERSAL
        for k in range(vadr[i], vadr[i] + jnv[i]):
            s0, s1, s2, s3, s4, s5 = oS[k, 0], oS[k, 1], oS[k, 2], oS[k, 3], oS[k, 4], oS[k, 5]
            x = qdd[k]
            b0, b1, b2, b3, b4, b5 = b0 + s0 * x, b1 + s1 * x, b2 + s2 * x, b3 + s3 * x, b4 + s4 * x, b5 + s5 * x
            dAdq[k, 0] += a_1 * s2 - a_2 * s1
            dAdq[k, 1] += a_2 * s0 - a_0 * s2
            dAdq[k, 2] += a_0 * s1 - a_1 * s0
            dAdq[k, 3] += a_1 * s5 - a_2 * s4 + a_4 * s2 - a_5 * s1
            dAdq[k, 4] += a_2 * s3 - a_0 * s5 + a_5 * s0 - a_3 * s2
            dAdq[k, 5] += a_0 * s4 - a_1 * s3 + a_3 * s1 - a_4 * s0
            if sequential:
                y = qd[k]
                a_0, a_1 = a_0 + (s0 * x + Sd[k, 0] * y), a_1 + (s1 * x + Sd[k, 1] * y)
                a_2, a_3 = a_2 + (s2 * x + Sd[k, 2] * y), a_3 + (s3 * x + Sd[k, 3] * y)
                a_4, a_5 = a_4 + (s4 * x + Sd[k, 4] * y), a_5 + (s5 * x + Sd[k, 5] * y)
        A[i, 0], A[i, 1], A[i, 2], A[i, 3], A[i, 4], A[i, 5] = b0, b1, b2, b3, b4, b5


@jit
def world_motion_pass(parent, jtype, vadr, jnv, oS, qd, qdd, a0, bw, dw):
    """World velocities, accelerations (``A`` of the world: ``a0``) and the per-dof ``Sdot``, ``dV/dq``,
    ``dA/dq``, ``dA/dqd`` at a given ``qdd`` (module docstring): :func:`world_velocity_pass`,
    :func:`acceleration_pass`."""
    world_velocity_pass(parent, jtype, vadr, jnv, oS, qd, bw, dw)
    acceleration_pass(parent, jtype, vadr, jnv, oS, qd, qdd, a0, bw, dw)


@jit
def bias_forces(oR, op, oI, fext, bw, oB, Y):
    """Per body: the bias force ``F = V x* I V - f_ext`` (``f_ext`` given in body coordinates about the body
    origin) and ``B = V x* I - I (V x) + (I V) x*bar`` (world), from the 10 parameters of the world inertia
    ``I = [[Ibar, h~], [h~^T, m 1]]``. ``Y`` (6, 6) scratch."""
    V, F = bw[V_], bw[F_]
    for i in range(oI.shape[0]):
        w0, w1, w2, v0, v1, v2 = V[i, 0], V[i, 1], V[i, 2], V[i, 3], V[i, 4], V[i, 5]
        c0, c1, c2, m = oI[i, 2, 4], oI[i, 0, 5], oI[i, 1, 3], oI[i, 3, 3]
        # h = I V = [Ibar w + c x v; m v - c x w]
        h0 = oI[i, 0, 0] * w0 + oI[i, 0, 1] * w1 + oI[i, 0, 2] * w2 + c1 * v2 - c2 * v1
        h1 = oI[i, 0, 1] * w0 + oI[i, 1, 1] * w1 + oI[i, 1, 2] * w2 + c2 * v0 - c0 * v2
        h2 = oI[i, 0, 2] * w0 + oI[i, 1, 2] * w1 + oI[i, 2, 2] * w2 + c0 * v1 - c1 * v0
        h3 = m * v0 - (c1 * w2 - c2 * w1)
        h4 = m * v1 - (c2 * w0 - c0 * w2)
        h5 = m * v2 - (c0 * w1 - c1 * w0)
        # F = V x* h
        F[i, 0], F[i, 1], F[i, 2], F[i, 3], F[i, 4], F[i, 5] = cross_force(w0, w1, w2, v0, v1, v2,
                                                                           h0, h1, h2, h3, h4, h5)
        # f_ext to world coordinates about the world origin: f = R f_b, n = R n_b + p x f
        g0 = oR[i, 0, 0] * fext[i, 3] + oR[i, 0, 1] * fext[i, 4] + oR[i, 0, 2] * fext[i, 5]
        g1 = oR[i, 1, 0] * fext[i, 3] + oR[i, 1, 1] * fext[i, 4] + oR[i, 1, 2] * fext[i, 5]
        g2 = oR[i, 2, 0] * fext[i, 3] + oR[i, 2, 1] * fext[i, 4] + oR[i, 2, 2] * fext[i, 5]
        x, y, z = op[i, 0], op[i, 1], op[i, 2]
        for r in range(3):
            F[i, r] -= oR[i, r, 0] * fext[i, 0] + oR[i, r, 1] * fext[i, 1] + oR[i, r, 2] * fext[i, 2]
        F[i, 0] -= y * g2 - z * g1
        F[i, 1] -= z * g0 - x * g2
        F[i, 2] -= x * g1 - y * g0
        F[i, 3] -= g0
        F[i, 4] -= g1
        F[i, 5] -= g2
        # B = Y + Y^T + hbar with Y = V x* I (I symmetric: -I (V x) = Y^T), hbar e = e x* h;
        # row l of Y^T is V x* I[l] (column l of I = row l)
        for l in range(6):
            Y[l, 0], Y[l, 1], Y[l, 2], Y[l, 3], Y[l, 4], Y[l, 5] = cross_force(
                w0, w1, w2, v0, v1, v2, oI[i, l, 0], oI[i, l, 1], oI[i, l, 2], oI[i, l, 3], oI[i, l, 4], oI[i, l, 5])
        for r in range(6):
            for c in range(6):
                oB[i, r, c] = Y[r, c] + Y[c, r]
        oB[i, 0, 1] += h2
        oB[i, 0, 2] -= h1
        oB[i, 1, 0] -= h2
        oB[i, 1, 2] += h0
        oB[i, 2, 0] += h1
        oB[i, 2, 1] -= h0
        oB[i, 0, 4] += h5
        oB[i, 0, 5] -= h4
        oB[i, 1, 3] -= h5
        oB[i, 1, 5] += h3
        oB[i, 2, 3] += h4
        oB[i, 2, 4] -= h3
        oB[i, 3, 1] += h5
        oB[i, 3, 2] -= h4
        oB[i, 4, 0] -= h5
        oB[i, 4, 2] += h3
        oB[i, 5, 0] += h4
        oB[i, 5, 1] -= h3


@jit
def inertia_forces(oI, bw):
    """Per body: ``F += I A``, completing the body force ``F = I A + V x* I V - f_ext`` of :func:`bias_forces`."""
    A, F = bw[A_], bw[F_]
    for i in range(oI.shape[0]):
        for r in range(6):
            s = 0.0
            for c in range(6):
                s += oI[i, r, c] * A[i, c]
            F[i, r] += s


@jit
def composite_pass(parent, vadr, jnv, armature, oS, qdd, oIc, oB, bw, dw, tau):
    """Pass: leaves to root. Composite ``Ic``, ``Bc``, ``Fc`` (added into the parent's after use);
    ``tau_k = S_k . Fc + armature_k qdd_k``, ``Ic S_k`` and ``Bc^T S_k`` per dof."""
    F = bw[F_]
    PS_, QS_ = dw[PS], dw[QS]
    for i in range(parent.shape[0] - 1, -1, -1):
        for k in range(vadr[i], vadr[i] + jnv[i]):
            tau[k] = dot_at(oS, k, F, i) + armature[k] * qdd[k]
            for m in range(6):
                a = 0.0
                b = 0.0
                for n in range(6):
                    a += oIc[i, m, n] * oS[k, n]
                    b += oB[i, n, m] * oS[k, n]
                PS_[k, m] = a
                QS_[k, m] = b
        p = parent[i]
        if p >= 0:
            for m in range(6):
                F[p, m] += F[i, m]
                for n in range(6):
                    oIc[p, m, n] += oIc[i, m, n]
                    oB[p, m, n] += oB[i, m, n]


@jit
def assemble(parent, jtype, vadr, jnv, subtree_end, armature, oS, oIc, oB, bw, dw, G, dtau_dq, dtau_dqd, M):
    """Fill ``dtau/dq``, ``dtau/dqd`` and ``M`` column by column (module docstring): rows of the subtree
    from the per-dof composites, rows of the ancestors from the body's composites (``M`` symmetric: its
    ancestor rows are mirrored into the subtree's; the joint armature on its diagonal). ``G`` (>= 2, 6)
    scratch."""
    F = bw[F_]
    dVdq, dAdq, dAdv, PS_, QS_ = dw[DVDQ], dw[DADQ], dw[DADV], dw[PS], dw[QS]
    dtau_dq[:] = 0.0
    dtau_dqd[:] = 0.0
    M[:] = 0.0
    for i in range(parent.shape[0]):
        va, n = vadr[i], jnv[i]
        last = subtree_end[i] - 1
        ve = vadr[last] + jnv[last]
        sequential = n == 1 or jtype[i] == UNIVERSAL
        for l in range(va, va + n):
            # G0 = S_l x* Fc + Ic dA/dq_l + Bc dV/dq_l ; G1 = Ic dA/dqd_l + Bc S_l
            for m in range(6):
                x = 0.0
                y = 0.0
                for c in range(6):
                    x += oIc[i, m, c] * dAdq[l, c] + oB[i, m, c] * dVdq[l, c]
                    y += oIc[i, m, c] * dAdv[l, c] + oB[i, m, c] * oS[l, c]
                G[0, m] = x
                G[1, m] = y
            s0, s1, s2, s3, s4, s5 = oS[l, 0], oS[l, 1], oS[l, 2], oS[l, 3], oS[l, 4], oS[l, 5]
            f0, f1, f2, f3, f4, f5 = F[i, 0], F[i, 1], F[i, 2], F[i, 3], F[i, 4], F[i, 5]
            G[0, 0] += s1 * f2 - s2 * f1 + s4 * f5 - s5 * f4
            G[0, 1] += s2 * f0 - s0 * f2 + s5 * f3 - s3 * f5
            G[0, 2] += s0 * f1 - s1 * f0 + s3 * f4 - s4 * f3
            G[0, 3] += s1 * f5 - s2 * f4
            G[0, 4] += s2 * f3 - s0 * f5
            G[0, 5] += s0 * f4 - s1 * f3
            # the joint's own rows and its subtree's: [Ic S_k; Bc^T S_k] . [dA/dq_l; dV/dq_l] and . [dA/dqd_l; S_l]
            a0, a1, a2, a3, a4, a5 = dAdq[l, 0], dAdq[l, 1], dAdq[l, 2], dAdq[l, 3], dAdq[l, 4], dAdq[l, 5]
            b0, b1, b2, b3, b4, b5 = dVdq[l, 0], dVdq[l, 1], dVdq[l, 2], dVdq[l, 3], dVdq[l, 4], dVdq[l, 5]
            c0, c1, c2, c3, c4, c5 = dAdv[l, 0], dAdv[l, 1], dAdv[l, 2], dAdv[l, 3], dAdv[l, 4], dAdv[l, 5]
            for k in range(va, ve):
                p0, p1, p2, p3, p4, p5 = PS_[k, 0], PS_[k, 1], PS_[k, 2], PS_[k, 3], PS_[k, 4], PS_[k, 5]
                r0, r1, r2, r3, r4, r5 = QS_[k, 0], QS_[k, 1], QS_[k, 2], QS_[k, 3], QS_[k, 4], QS_[k, 5]
                if sequential and k < l:  # column k not moved by dof l
                    dtau_dq[k, l] = dot_at(oS, k, G, 0)
                else:
                    dtau_dq[k, l] = (p0 * a0 + p1 * a1 + p2 * a2 + p3 * a3 + p4 * a4 + p5 * a5
                                     + r0 * b0 + r1 * b1 + r2 * b2 + r3 * b3 + r4 * b4 + r5 * b5)
                dtau_dqd[k, l] = (p0 * c0 + p1 * c1 + p2 * c2 + p3 * c3 + p4 * c4 + p5 * c5
                                  + r0 * s0 + r1 * s1 + r2 * s2 + r3 * s3 + r4 * s4 + r5 * s5)
            for k in range(va, va + n):
                M[k, l] = dot_at(PS_, k, oS, l)
            M[l, l] += armature[l]
            # the ancestors' rows: S_k . G0, S_k . G1, S_k . Ic S_l
            g0, g1, g2, g3, g4, g5 = G[0, 0], G[0, 1], G[0, 2], G[0, 3], G[0, 4], G[0, 5]
            h0, h1, h2, h3, h4, h5 = G[1, 0], G[1, 1], G[1, 2], G[1, 3], G[1, 4], G[1, 5]
            e0, e1, e2, e3, e4, e5 = PS_[l, 0], PS_[l, 1], PS_[l, 2], PS_[l, 3], PS_[l, 4], PS_[l, 5]
            j = parent[i]
            while j >= 0:
                for k in range(vadr[j], vadr[j] + jnv[j]):
                    x0, x1, x2, x3, x4, x5 = oS[k, 0], oS[k, 1], oS[k, 2], oS[k, 3], oS[k, 4], oS[k, 5]
                    dtau_dq[k, l] = x0 * g0 + x1 * g1 + x2 * g2 + x3 * g3 + x4 * g4 + x5 * g5
                    dtau_dqd[k, l] = x0 * h0 + x1 * h1 + x2 * h2 + x3 * h3 + x4 * h4 + x5 * h5
                    M[k, l] = M[l, k] = x0 * e0 + x1 * e1 + x2 * e2 + x3 * e3 + x4 * e4 + x5 * e5
                j = parent[j]


# ------------------------------------------------------------------------------------------------ RNEA
@jit
def rnea_derivatives_state(mi, mf, df, q, qd, qdd, fext, tau, dtau_dq, dtau_dqd, M):
    """:func:`rnea_derivatives` with the outputs given (a batch's rows)."""
    (body_parent, jnt_type, jnt_qadr, jnt_vadr, jnt_nv, jnt_axis, jnt_axis2, jnt_pitch, body_Xtree_E, body_Xtree_r,
     body_I, dof_S, dof_armature) = model_tree(mi, mf)
    st = check_inputs(jnt_type, jnt_qadr, q, qd, qdd, fext)
    if st != OK:
        return st
    body_subtree_end, gravity_accel = model_derivatives(mi, mf)
    X_E, X_r, S, oR, op, oS, oI = data_world_kinematics(mi, df)
    bw, dw, oB, T = data_derivatives(mi, df)
    tree_positions(body_parent, jnt_type, jnt_qadr, jnt_vadr, jnt_axis, jnt_axis2, jnt_pitch, body_Xtree_E,
                   body_Xtree_r, dof_S, q, X_E, X_r, S)
    world_poses(body_parent, X_E, X_r, oR, op)
    world_subspaces(body_parent, jnt_vadr, jnt_nv, S, oR, op, oS)
    world_inertias(body_I, oR, op, oI)
    # the passes of the module docstring (oI ends holding the composite inertias)
    world_motion_pass(body_parent, jnt_type, jnt_vadr, jnt_nv, oS, qd, qdd, gravity_accel, bw, dw)
    bias_forces(oR, op, oI, fext, bw, oB, T[0])
    inertia_forces(oI, bw)
    composite_pass(body_parent, jnt_vadr, jnt_nv, dof_armature, oS, qdd, oI, oB, bw, dw, tau)
    assemble(body_parent, jnt_type, jnt_vadr, jnt_nv, body_subtree_end, dof_armature, oS, oI, oB, bw, dw, T[1], dtau_dq,
             dtau_dqd, M)
    return OK if all_finite(tau) else NOT_FINITE


@jit
def rnea_derivatives(model_int, model_float, data_float, q, qd, qdd, fext):
    """``tau = rnea(q, qd, qdd, f_ext)`` with its partial derivatives ``dtau/dq`` (tangent space),
    ``dtau/dqd`` and ``dtau/dqdd = M`` (Carpentier & Mansard 2018, Alg. 1, in the form of the module
    docstring). Outputs ``Data.tau`` (nv,), ``Data.dtau_dq``, ``Data.dtau_dqd``, ``Data.M`` (nv, nv)."""
    nv = model_int[NV]
    return rnea_derivatives_state(model_int, model_float, data_float, q, qd, qdd, fext,
                                  dfield(model_int, data_float, TAU, nv),
                                  dfield(model_int, data_float, DTAU_DQ, (nv, nv)),
                                  dfield(model_int, data_float, DTAU_DQD, (nv, nv)),
                                  dfield(model_int, data_float, MM, (nv, nv)))


# ------------------------------------------------------------------------------------------------- ABA
@jit
def minus_minv_product(Minv, B, out):
    """``out = -M^-1 B`` (one BLAS product, then the sign)."""
    np.dot(Minv, B, out)
    for r in range(out.shape[0]):
        for c in range(out.shape[1]):
            out[r, c] = -out[r, c]


@jit
def aba_derivatives_state(mi, mf, df, q, qd, tau, fext, qdd, dqdd_dq, dqdd_dqd, Minv):
    """:func:`aba_derivatives` with the outputs given (a batch's rows)."""
    (body_parent, jnt_type, jnt_qadr, jnt_vadr, jnt_nv, jnt_axis, jnt_axis2, jnt_pitch, body_Xtree_E, body_Xtree_r,
     body_I, dof_S, dof_armature) = model_tree(mi, mf)
    st = check_inputs(jnt_type, jnt_qadr, q, qd, tau, fext)
    if st != OK:
        return st
    body_subtree_end, gravity_accel = model_derivatives(mi, mf)
    nb, nv = mi[NB], mi[NV]
    X_E, X_r, S, oR, op, oS, oI = data_world_kinematics(mi, df)
    oIA, oU = data_world(mi, df)[2:]
    D, Dinv = dfield(mi, df, layout.D, (nb, 6, 6)), dfield(mi, df, layout.DINV, (nb, 6, 6))
    pA, u, a = dfield(mi, df, layout.PA, (nb, 6)), dfield(mi, df, layout.UU, nv), dfield(mi, df, layout.A, (nb, 6))
    bw, dw, oB, T = data_derivatives(mi, df)
    # kinematics, world subspaces and inertias, articulated inertias, M^-1 (tree.minv_passes)
    st = minv_passes(body_parent, jnt_type, jnt_qadr, jnt_vadr, jnt_nv, jnt_axis, jnt_axis2, jnt_pitch, body_Xtree_E,
                     body_Xtree_r, body_I, dof_S, dof_armature, body_subtree_end, q, X_E, X_r, S, oR, op, oS, oI, oIA,
                     oU, D, Dinv, dfield(mi, df, FM, (nb, 6, nv)), dfield(mi, df, AM, (nb, 6, nv)), Minv, T[0],
                     dfield(mi, df, WK, (6, nv)))
    if st != OK:
        return st
    # qdd by the ABA's bias-force and acceleration passes in world coordinates on the articulated inertias
    # of M^-1 (as Pinocchio's computeABADerivatives): world velocities, c_i, the bodies' bias forces
    world_velocity_pass(body_parent, jnt_type, jnt_vadr, jnt_nv, oS, qd, bw, dw)
    bias_forces(oR, op, oI, fext, bw, oB, T[0])
    articulated_bias_world(body_parent, jnt_vadr, jnt_nv, oS, oIA, oU, Dinv, bw[F_], bw[A_], tau, pA, u, T[2])
    aba_world_accelerations(body_parent, jnt_vadr, jnt_nv, oS, oU, Dinv, u, gravity_accel, bw[A_], a, qdd, T[3, 0])
    # the RNEA derivatives at (q, qd, qdd), then dqdd/dq = -M^-1 dtau/dq, dqdd/dqd = -M^-1 dtau/dqd
    dtau_dq = dfield(mi, df, DTAU_DQ, (nv, nv))
    dtau_dqd = dfield(mi, df, DTAU_DQD, (nv, nv))
    acceleration_pass(body_parent, jnt_type, jnt_vadr, jnt_nv, oS, qd, qdd, gravity_accel, bw, dw)
    inertia_forces(oI, bw)
    composite_pass(body_parent, jnt_vadr, jnt_nv, dof_armature, oS, qdd, oI, oB, bw, dw, dfield(mi, df, TAU, nv))
    assemble(body_parent, jnt_type, jnt_vadr, jnt_nv, body_subtree_end, dof_armature, oS, oI, oB, bw, dw, T[1], dtau_dq,
             dtau_dqd, dfield(mi, df, MM, (nv, nv)))
    minus_minv_product(Minv, dtau_dq, dqdd_dq)
    minus_minv_product(Minv, dtau_dqd, dqdd_dqd)
    return OK if all_finite(qdd) else NOT_FINITE


@jit
def aba_derivatives(model_int, model_float, data_float, q, qd, tau, fext):
    """``qdd = aba(q, qd, tau, f_ext)`` and its partial derivatives (Carpentier & Mansard 2018, Sec. IV-B):
    ``dqdd/dtau = M^-1`` (the O(n^2) recursion of :func:`soadyn._kernels.tree.minv`), ``qdd`` by the ABA's
    bias-force and acceleration passes in world coordinates on the articulated inertias of that recursion
    (:func:`articulated.articulated_bias_world`, :func:`articulated.aba_world_accelerations`; ``Data.pA``,
    ``Data.a`` hold their world-frame bias forces and accelerations), ``dqdd/dq = -M^-1 dtau/dq``,
    ``dqdd/dqd = -M^-1 dtau/dqd`` with the RNEA derivatives at ``(q, qd, qdd)``. Outputs ``Data.qdd`` (nv,),
    ``Data.dqdd_dq``, ``Data.dqdd_dqd``, ``Data.Minv`` (nv, nv); ``Data.dtau_dq``, ``Data.dtau_dqd``, ``Data.M``
    keep the RNEA derivatives."""
    nv = model_int[NV]
    return aba_derivatives_state(model_int, model_float, data_float, q, qd, tau, fext,
                                 dfield(model_int, data_float, QDD, nv),
                                 dfield(model_int, data_float, DQDD_DQ, (nv, nv)),
                                 dfield(model_int, data_float, DQDD_DQD, (nv, nv)),
                                 dfield(model_int, data_float, MINV, (nv, nv)))


# --------------------------------------------------------------------------------------------- batches
@jit
def batch_workspace(mi, mf, df):
    """Prepare a fresh Data buffer ``df`` of a batch chunk: the model's constant motion subspaces in
    ``Data.S``; returns ``Data.fext_zero``, zeroed."""
    data_kinematics(mi, df)[2][:] = model_tree(mi, mf)[11]
    fext = dfield(mi, df, FEXT_ZERO, (mi[NB], 6))
    fext[:] = 0.0
    return fext


@parallel_jit
def rnea_derivatives_batch(model_int, model_float, Q, QD, QDD, nchunks, TAU, DQ, DQD, MS, status):
    """:func:`rnea_derivatives` over K states (rows of ``Q``, ``QD``, ``QDD``) without external forces, in
    ``nchunks`` parallel chunks, each with its own Data buffer. Outputs ``TAU`` (K, nv), ``DQ``, ``DQD``,
    ``MS`` (K, nv, nv), per-state ``status`` (K,)."""
    K = Q.shape[0]
    work = np.empty((nchunks, model_int[DATA_FLOAT_SIZE]))
    for ch in prange(nchunks):
        df = work[ch]
        fext = batch_workspace(model_int, model_float, df)
        for s in range(ch * K // nchunks, (ch + 1) * K // nchunks):
            status[s] = rnea_derivatives_state(model_int, model_float, df, Q[s], QD[s], QDD[s], fext, TAU[s], DQ[s],
                                               DQD[s], MS[s])


@parallel_jit
def aba_derivatives_batch(model_int, model_float, Q, QD, TAU, nchunks, QDDS, DQ, DQD, MINVS, status):
    """:func:`aba_derivatives` over K states in parallel (as :func:`rnea_derivatives_batch`). Outputs
    ``QDDS`` (K, nv), ``DQ``, ``DQD``, ``MINVS`` (K, nv, nv), per-state ``status`` (K,)."""
    K = Q.shape[0]
    work = np.empty((nchunks, model_int[DATA_FLOAT_SIZE]))
    for ch in prange(nchunks):
        df = work[ch]
        fext = batch_workspace(model_int, model_float, df)
        for s in range(ch * K // nchunks, (ch + 1) * K // nchunks):
            status[s] = aba_derivatives_state(model_int, model_float, df, Q[s], QD[s], TAU[s], fext, QDDS[s], DQ[s],
                                              DQD[s], MINVS[s])
