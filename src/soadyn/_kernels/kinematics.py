"""Tree kinematics passes: body transforms, velocities, world poses, world-frame subspaces and inertias,
and the input checks of a dynamics call (docs/architecture.md, Kernels).

Bodies are in depth-first preorder (``body_parent[i] < i``); every pass is a plain index loop, ``i`` a body,
``p = parent[i]``, ``k`` a dof. Kernels return a status code (``joints.OK`` or an error code) instead of
raising.
"""

import math

from .._jit import inline_jit, jit
from .joints import (BAD_FEXT, BAD_IN, BAD_QD, FREE, OK, SPHERICAL, UNIVERSAL, all_finite, check_q, joint_transform,
                     principal_axis, quaternion_transform, universal_subspace)
from .spatial import sym3_congruence, cross_motion, xmotion


# ------------------------------------------------------------------------------------------ kinematics
@inline_jit
def positions_pass(b, subtree_end, jtype, qadr, vadr, axis, axis2, pitch, XT_E, XT_r, q, X_E, X_r, S):
    """Pass: body transforms ``^iX_p = X_J(q) X_T`` (RBDA Table 4.1 / Sec. 4.4): ``E = E_J E_T``,
    ``r = r_T + E_T^T r_J``, of every body (``b < 0``), or of body ``b`` and its ancestors only (the bodies
    ``i <= b`` whose subtree ``i .. subtree_end[i]-1`` holds ``b``; ``subtree_end`` is read only then).
    Each transform depends on its own joint only, so the joints with a fast path go first, in a loop without
    calls that take arrays: a revolute joint about ``e_m`` (:func:`joints.principal_axis`) turns two rows of
    ``E_T`` (the rows ``ra = m+1``, ``rb = m+2`` mod 3 of ``E_J`` are ``c e_ra + s e_rb`` and
    ``c e_rb - s e_ra``), a prismatic joint along ``e_m`` moves ``r`` by ``q E_T[m]``, a FREE or SPHERICAL
    joint takes ``E_J`` from its quaternion (:func:`joints.quaternion_transform`); then the other joints
    (:func:`joint_body_transform`). Inlined into its callers: called with its fourteen arrays, the pass cost
    60 ns more in a 6-link chain's frame Jacobian (0.58 us), the free base's generic call 170 ns more in
    Talos'."""
    n = jtype.shape[0] if b < 0 else b + 1
    generic = False
    for i in range(n):
        if b >= 0 and subtree_end[i] <= b:
            continue
        t = jtype[i]
        k = qadr[i]
        if t == FREE or t == SPHERICAL:
            EJ, rJ = quaternion_transform(t, q, k)
            compose_joint(i, EJ, rJ, XT_E, XT_r, X_E, X_r)
            continue
        m = principal_axis(t, axis[i, 0], axis[i, 1], axis[i, 2])
        if m < 0:
            generic = True
        elif m < 3:
            c, s = math.cos(q[k]), math.sin(q[k])
            ra, rb = (m + 1) % 3, (m + 2) % 3
            for col in range(3):
                ya, yb = XT_E[i, ra, col], XT_E[i, rb, col]
                X_E[i, m, col] = XT_E[i, m, col]
                X_E[i, ra, col] = c * ya + s * yb
                X_E[i, rb, col] = c * yb - s * ya
                X_r[i, col] = XT_r[i, col]
        else:
            d = q[k]
            for col in range(3):
                for row in range(3):
                    X_E[i, row, col] = XT_E[i, row, col]
                X_r[i, col] = XT_r[i, col] + d * XT_E[i, m - 3, col]
    for i in range(n if generic else 0):
        t = jtype[i]
        if ((b < 0 or subtree_end[i] > b) and t != FREE and t != SPHERICAL
                and principal_axis(t, axis[i, 0], axis[i, 1], axis[i, 2]) < 0):
            joint_body_transform(i, jtype, qadr, vadr, axis, axis2, pitch, XT_E, XT_r, q, X_E, X_r, S)


@inline_jit
def compose_joint(i, EJ, rJ, XT_E, XT_r, X_E, X_r):
    """``^iX_p = X_J X_T`` of body ``i``: ``E = E_J E_T``, ``r = r_T + E_T^T r_J``, with ``X_J = (E_J, r_J)`` a
    row-major 9-tuple and a 3-tuple (:func:`joints.joint_transform`)."""
    for row in range(3):
        e0, e1, e2 = EJ[3 * row], EJ[3 * row + 1], EJ[3 * row + 2]
        for col in range(3):
            X_E[i, row, col] = e0 * XT_E[i, 0, col] + e1 * XT_E[i, 1, col] + e2 * XT_E[i, 2, col]
    for col in range(3):
        X_r[i, col] = XT_r[i, col] + XT_E[i, 0, col] * rJ[0] + XT_E[i, 1, col] * rJ[1] + XT_E[i, 2, col] * rJ[2]


@jit
def joint_body_transform(i, jtype, qadr, vadr, axis, axis2, pitch, XT_E, XT_r, q, X_E, X_r, S):
    """``^iX_p = X_J(q) X_T`` of body ``i`` for any joint, with ``X_J`` in registers; a UNIVERSAL joint also
    updates its ``q``-dependent row of ``S``."""
    t = jtype[i]
    k = qadr[i]
    EJ, rJ = joint_transform(t, axis[i], axis2[i], pitch[i], q, k)
    compose_joint(i, EJ, rJ, XT_E, XT_r, X_E, X_r)
    if t == UNIVERSAL:
        universal_subspace(axis[i], axis2[i], q, k, vadr[i], S)


@inline_jit
def tree_positions(parent, jtype, qadr, vadr, axis, axis2, pitch, XT_E, XT_r, S0, q, X_E, X_r, S):
    """Pass: root to leaves. Body transforms ``^iX_p`` of all bodies (:func:`positions_pass`, inlined as it
    is). ``S`` holds the model's constant motion subspaces (``Data`` starts from them); only UNIVERSAL rows
    depend on ``q`` and are updated."""
    positions_pass(-1, parent, jtype, qadr, vadr, axis, axis2, pitch, XT_E, XT_r, q, X_E, X_r, S)


@jit
def tree_velocities(parent, jtype, vadr, jnv, axis2, X_E, X_r, S, qd, v, c, vJ):
    """Pass: root to leaves (RBDA Eq. 5.7-5.8). ``v_i = ^iX_p v_p + S_i qd_i`` and the velocity-product
    acceleration ``c_i = v_i x (S_i qd_i) + Sdot_i qd_i`` (nonzero ``Sdot`` only for UNIVERSAL).
    ``vJ`` is a (6,) scratch array."""
    for i in range(parent.shape[0]):
        p = parent[i]
        for m in range(6):
            s = 0.0
            for k in range(vadr[i], vadr[i] + jnv[i]):
                s += S[k, m] * qd[k]
            vJ[m] = s
        if p >= 0:
            xmotion(X_E[i], X_r[i], v[p], v[i])
            for m in range(6):
                v[i, m] += vJ[m]
        else:
            for m in range(6):
                v[i, m] = vJ[m]
        cross_motion(v[i], vJ, c[i])
        if jtype[i] == UNIVERSAL:
            # Sdot qd = -qd1 qd2 (u x S_1): angular part only
            k = vadr[i]
            w = -qd[k] * qd[k + 1]
            u = axis2[i]
            c[i, 0] += w * (u[1] * S[k, 2] - u[2] * S[k, 1])
            c[i, 1] += w * (u[2] * S[k, 0] - u[0] * S[k, 2])
            c[i, 2] += w * (u[0] * S[k, 1] - u[1] * S[k, 0])


BAD_ARRAY = 16
"""Status code of an input vector of another length than the model's, or with a stride other than one
float64: the caller's fast path checks only the type, dtype and number of dimensions of its vectors
(``soadyn.dynamics``), and on this code converts them (``kernel_array``) and calls again."""


@jit
def vector_ready(x, n):
    """True if the 1-D float64 array ``x`` holds ``n`` contiguous entries (its stride is read as given: a kernel
    compiled for C-contiguous vectors receives any 1-D float64 array from a compiled entry point)."""
    return x.shape[0] == n and (n < 2 or x.strides[0] == 8)


@jit
def vectors_ready(q, nq, x, y, nv):
    """:func:`vector_ready` of ``q`` (``nq``) and of the two joint-space vectors ``x``, ``y`` (``nv``)."""
    return vector_ready(q, nq) and vector_ready(x, nv) and vector_ready(y, nv)


@jit
def check_state(jtype, qadr, q, qd):
    st = check_q(jtype, qadr, q)
    if st != OK:
        return st
    if not all_finite(qd):
        return BAD_QD
    return OK


@jit
def check_inputs(jtype, qadr, q, qd, x, fext):
    """Status of a dynamics call's inputs: the state, then the joint-space input ``x`` (``qdd`` or ``tau``:
    BAD_IN) and the external forces (BAD_FEXT)."""
    st = check_state(jtype, qadr, q, qd)
    if st != OK:
        return st
    if not all_finite(x):
        return BAD_IN
    if not all_finite(fext):
        return BAD_FEXT
    return OK


# ------------------------------------------------------------------------------------ world-frame passes
@inline_jit
def world_poses_pass(b, subtree_end, parent, X_E, X_r, oR, op):
    """Pass: root to leaves. World poses ``oR_i = oR_p E_i^T``, ``op_i = op_p + oR_p r_i`` (the world is
    ``(1, 0)``) of every body (``b < 0``) or of body ``b`` and its ancestors (as :func:`positions_pass`;
    inlined as it is)."""
    for i in range(parent.shape[0] if b < 0 else b + 1):
        if b >= 0 and subtree_end[i] <= b:
            continue
        p = parent[i]
        E = X_E[i]
        r = X_r[i]
        if p < 0:
            for m in range(3):
                op[i, m] = r[m]
                for n in range(3):
                    oR[i, m, n] = E[n, m]
        else:
            for m in range(3):
                op[i, m] = op[p, m] + oR[p, m, 0] * r[0] + oR[p, m, 1] * r[1] + oR[p, m, 2] * r[2]
                for n in range(3):
                    oR[i, m, n] = oR[p, m, 0] * E[n, 0] + oR[p, m, 1] * E[n, 1] + oR[p, m, 2] * E[n, 2]


@inline_jit
def world_poses(parent, X_E, X_r, oR, op):
    """Pass: root to leaves. World poses of all bodies (:func:`world_poses_pass`, inlined as it is)."""
    world_poses_pass(-1, parent, parent, X_E, X_r, oR, op)


@jit
def world_subspaces(parent, vadr, jnv, S, oR, op, oS):
    """``oS = ^0X_i S``: motion subspaces in world coordinates at the world origin,
    ``[oR s_w; oR s_v + op x (oR s_w)]``."""
    for i in range(parent.shape[0]):
        for k in range(vadr[i], vadr[i] + jnv[i]):
            for m in range(3):
                oS[k, m] = oR[i, m, 0] * S[k, 0] + oR[i, m, 1] * S[k, 1] + oR[i, m, 2] * S[k, 2]
                oS[k, 3 + m] = oR[i, m, 0] * S[k, 3] + oR[i, m, 1] * S[k, 4] + oR[i, m, 2] * S[k, 5]
            oS[k, 3] += op[i, 1] * oS[k, 2] - op[i, 2] * oS[k, 1]
            oS[k, 4] += op[i, 2] * oS[k, 0] - op[i, 0] * oS[k, 2]
            oS[k, 5] += op[i, 0] * oS[k, 1] - op[i, 1] * oS[k, 0]


@inline_jit
def world_forces(parent, vadr, jnv, U, oR, op, oU):
    """``oU = ^0X_i^* U``: rows of force vectors of body ``i``'s dofs (the articulated-body factors ``U = P S``)
    in world coordinates at the world origin, ``[oR u_n + op x (oR u_f); oR u_f]`` (the dual of
    :func:`world_subspaces`)."""
    for i in range(parent.shape[0]):
        for k in range(vadr[i], vadr[i] + jnv[i]):
            for m in range(3):
                oU[k, m] = oR[i, m, 0] * U[k, 0] + oR[i, m, 1] * U[k, 1] + oR[i, m, 2] * U[k, 2]
                oU[k, 3 + m] = oR[i, m, 0] * U[k, 3] + oR[i, m, 1] * U[k, 4] + oR[i, m, 2] * U[k, 5]
            oU[k, 0] += op[i, 1] * oU[k, 5] - op[i, 2] * oU[k, 4]
            oU[k, 1] += op[i, 2] * oU[k, 3] - op[i, 0] * oU[k, 5]
            oU[k, 2] += op[i, 0] * oU[k, 4] - op[i, 1] * oU[k, 3]


@jit
def world_inertias(I, oR, op, oI):
    """``oI_i = ^iX_0^T I_i ^iX_0``: body inertias in world coordinates about the world origin, from the
    compact form ``I = [[Ibar, h~], [h~^T, m 1]]`` (``h = m c``; RBDA Eq. 2.63): rotated
    ``Ibar' = R Ibar R^T``, ``h' = R h``, then moved from the body origin ``p`` to the world origin,
    ``Ibar_0 = Ibar' + m p~ p~^T + p~ h'~^T + h'~ p~^T``, ``h_0 = m p + h'`` (no division by the mass)."""
    for i in range(I.shape[0]):
        R = oR[i]
        m = I[i, 3, 3]
        b0, b1, b2 = I[i, 2, 4], I[i, 0, 5], I[i, 1, 3]  # h in body coordinates
        g0 = R[0, 0] * b0 + R[0, 1] * b1 + R[0, 2] * b2
        g1 = R[1, 0] * b0 + R[1, 1] * b1 + R[1, 2] * b2
        g2 = R[2, 0] * b0 + R[2, 1] * b1 + R[2, 2] * b2
        a00, a01, a02, a11, a12, a22 = sym3_congruence(R.T, I[i, 0, 0], I[i, 0, 1], I[i, 0, 2], I[i, 1, 1],
                                                        I[i, 1, 2], I[i, 2, 2])
        x, y, z = op[i, 0], op[i, 1], op[i, 2]
        # m p~ p~^T + p~ h'~^T + h'~ p~^T = (m p.p + 2 p.h') 1 - m p p^T - p h'^T - h' p^T
        dd = m * (x * x + y * y + z * z) + 2.0 * (x * g0 + y * g1 + z * g2)
        oI[i, 0, 0] = a00 + dd - m * x * x - 2.0 * x * g0
        oI[i, 1, 1] = a11 + dd - m * y * y - 2.0 * y * g1
        oI[i, 2, 2] = a22 + dd - m * z * z - 2.0 * z * g2
        oI[i, 0, 1] = oI[i, 1, 0] = a01 - m * x * y - x * g1 - g0 * y
        oI[i, 0, 2] = oI[i, 2, 0] = a02 - m * x * z - x * g2 - g0 * z
        oI[i, 1, 2] = oI[i, 2, 1] = a12 - m * y * z - y * g2 - g1 * z
        h0, h1, h2 = m * x + g0, m * y + g1, m * z + g2
        # h~ block (top right) and its transpose
        oI[i, 0, 3] = oI[i, 3, 0] = 0.0
        oI[i, 1, 4] = oI[i, 4, 1] = 0.0
        oI[i, 2, 5] = oI[i, 5, 2] = 0.0
        oI[i, 0, 4] = oI[i, 4, 0] = -h2
        oI[i, 0, 5] = oI[i, 5, 0] = h1
        oI[i, 1, 3] = oI[i, 3, 1] = h2
        oI[i, 1, 5] = oI[i, 5, 1] = -h0
        oI[i, 2, 3] = oI[i, 3, 2] = -h1
        oI[i, 2, 4] = oI[i, 4, 2] = h0
        for a in range(3):
            for b in range(3):
                oI[i, 3 + a, 3 + b] = m if a == b else 0.0


