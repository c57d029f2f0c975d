"""Constraint embedding (CE) kernels: loop closure in the spanning coordinates, the hinge maps of compound
nodes and the articulated-body forward dynamics over nodes (Jain 2012, Nonlinear Dynamics 67, "Multibody
graph transformations and analysis, Part II: closed-chain constraint embedding"; Jain et al. 2012 Sec. 1,
Fig. 2c), with the loops left cut handled by Lemma 2 of Jain et al. 2012 (hybrid CE/TA).

Nodes. The bodies of the tree are partitioned into nodes listed root to leaves; node ``k`` is row ``k`` of
``nd`` (int64, columns ``B0, NB, D0, NY, NI, R0, NR, PAR``): its ``NB`` bodies ``nd_body[B0:B0+NB]``
(ascending, each with its local parent index ``nd_bpar`` or -1 and the local offset ``nd_boff`` of its
dofs), its ``NY`` spanning dofs ``nd_dof[D0:D0+NY]`` (tree velocity indices, body by body) of which those
with ``nd_ind = 1`` (``NI`` of them) are the independent coordinates ``theta``, its ``NR = NY - NI``
selected constraint rows ``nd_row[R0:R0+NR]`` (rows of the embedded loops) and the body ``PAR`` its root
bodies hang from (-1: the world). An ordinary body is a node with one body, all dofs independent, no rows.

Hinge map. With ``G_c`` the selected rows of the loop constraint Jacobian over the node's dofs and the
acceleration bias ``gdot`` (``G_c ydd + gdot = 0``): ``y_dot = G theta_dot``, ``y_ddot = G theta_ddot + g``
with ``G = [I; -G_dep^-1 G_ind]`` and ``g = [0; -G_dep^-1 gdot]`` (independent rows first in the notation,
stored in the node's dof order).

Forward dynamics in world coordinates about the world origin (``oS``, ``oI``, world spatial velocities and
accelerations), where a child's articulated inertia and force add to its parent body's without a transform:
the node's stacked velocity is ``V_k = 1 V_c + H* theta_dot`` with the rows ``H*_i = sum_{ancestor dofs d
of i in the node} oS_d G_d`` of body ``i``; pass 2 (leaves to root) ``U_i = P_i H*_i``,
``D = sum_i H*_i^T U_i``, ``u = G^T tau_y - sum_i H*_i^T (z_i + P_i abar_i)`` (``abar`` the stacked bias
acceleration), ``P_c += sum_i P_i - (sum_i U_i) D^-1 (sum_i U_i)^T``, ``z_c += sum_i (z_i + P_i abar_i) +
(sum_i U_i) D^-1 u``; pass 3 (root to leaves) ``theta_ddot = D^-1 (u - (sum_i U_i)^T a_c)``,
``a_i = a_c + abar_i + H*_i theta_ddot``. One-body nodes reduce to the ABA (RBDA Table 7.1).
"""

import math

import numpy as np

from .._jit import jit
from .embed_planar import planar_step
from .frames import bias_accelerations, jacobian_columns
from .joints import OK, SINGULAR, integrate_config
from .loops import loop_forces, loop_rows, solve_multipliers
from .kinematics import tree_positions, tree_velocities, world_inertias, world_poses, world_subspaces
from .factor import lu_factor, solve
from .spatial import cross_force_add, force_to_world_add, from_world_motion, spd_inverse, to_world_motion

B0, NB, D0, NY, NI, R0, NR, PAR = range(8)
"""Columns of the node table ``nd``."""

NOT_SOLVED = 18
"""Status code: the loop kinematics did not converge to the tolerance (``info``: node, residual)."""
LOOP_SINGULAR = 19
"""Status code: the dependent-coordinate block ``G_dep`` of a node is singular (``info``: node, pivot)."""

PIVOT_TOL = 1e-10
"""Smallest ``|pivot| / max |G_dep|`` accepted in the LU factorization of a node's ``G_dep``."""


# ------------------------------------------------------------------------------------------- hinge maps
@jit
def node_jacobian(k, nd, nd_dof, nd_row, row_loop, parent, vadr, jnv, S, oR, op, frame_body, fa, fb, row, RA,
                  pAw, Qr, Jw, Gk):
    """``Gk[k, s, j]``: selected constraint row ``s`` of node ``k`` over its dof ``j``,
    ``Q R_A^T (J_b - J_a)`` with ``J_x`` the world-aligned Jacobian of body x at frame A's origin
    (Jain 2012 Eq. 10). The columns of the common ancestors cancel, so only the node's dofs appear."""
    d0, ny, r0 = nd[k, D0], nd[k, NY], nd[k, R0]
    for s in range(nd[k, NR]):
        r = nd_row[r0 + s]
        l = row_loop[r]
        d = r - row[l]
        for j in range(ny):
            Gk[k, s, j] = 0.0
        for side in range(2):
            b = frame_body[fa[l]] if side == 0 else frame_body[fb[l]]
            if b < 0:
                continue
            sgn = -1.0 if side == 0 else 1.0
            for j in range(ny):
                col = nd_dof[d0 + j]
                for m in range(6):
                    Jw[m, col] = 0.0
            jacobian_columns(parent, vadr, jnv, S, oR, op, b, pAw[l], RA[l], 1, Jw, 0)  # in A's axes
            for j in range(ny):
                col = nd_dof[d0 + j]
                acc = 0.0
                for m in range(6):
                    acc += Qr[l, d, m] * Jw[m, col]
                Gk[k, s, j] += sgn * acc


@jit
def factor_dependent(k, nd, nd_ind, Gk, LU, piv):
    """Copy the dependent columns of ``Gk[k]`` into ``LU[k]`` and factor them; returns the pivot ratio."""
    d0, ny, nr = nd[k, D0], nd[k, NY], nd[k, NR]
    c = 0
    for j in range(ny):
        if nd_ind[d0 + j] == 0:
            for s in range(nr):
                LU[k, s, c] = Gk[k, s, j]
            c += 1
    return lu_factor(LU[k, :nr, :nr], piv[k, :nr])


@jit
def hinge_map(k, nd, nd_ind, Gk, LU, piv, Gm, col):
    """``Gm[k] = G`` (NY x NI) of node ``k`` from the factored ``G_dep``: identity rows for the independent
    dofs, ``-G_dep^-1 G_ind`` for the dependent ones. ``col`` (NR,) scratch."""
    d0, ny, ni, nr = nd[k, D0], nd[k, NY], nd[k, NI], nd[k, NR]
    c = 0
    for j in range(ny):
        for e in range(ni):
            Gm[k, j, e] = 0.0
        if nd_ind[d0 + j] == 1:
            Gm[k, j, c] = 1.0
            c += 1
    c = 0
    for j in range(ny):
        if nd_ind[d0 + j] == 0:
            continue
        for s in range(nr):
            col[s] = Gk[k, s, j]
        solve(LU[k, :nr, :nr], piv[k, :nr], False, col[:nr])
        e = 0
        for jj in range(ny):
            if nd_ind[d0 + jj] == 0:
                Gm[k, jj, c] = -col[e]
                e += 1
        c += 1


# ------------------------------------------------------------------------------------------ loop closure
@jit
def close_loops(parent, jtype, qadr, vadr, jnv, axis, axis2, pitch, XT_E, XT_r, S0,
                frame_body, frame_E, frame_r, fa, fb, kind, sel, dim, row, ax1, ax2, twist, row_loop,
                nd, nd_dof, nd_ind, nd_row, an, tol, max_iter,
                X_E, X_r, S, v, oR, op, RA, pAw, Qr, phi, cv, gam, Jw, Gk, LU, piv, dq, qn, R3,
                q, info):
    """Close the embedded loops in place: Newton on the selected rows of ``phi(y_dep; theta) = 0`` over the
    dependent dofs of every node at once, ``dy_dep = -G_dep^-1 phi_sel`` (``d phi / dq = G_c`` on the
    constraint manifold, :func:`loops.loop_rows`), warm-started from ``q``, until ``max |phi| <= tol``
    over all rows of the embedded loops (at most ``max_iter`` steps). ``info`` (4,) float receives
    (iterations, residual, node of the failure or -1, pivot ratio of that node). Returns ``OK``,
    ``NOT_SOLVED`` or ``LOOP_SINGULAR``. Leaves ``X_E, X_r, S, oR, op`` and the loop rows at the final ``q``.

    Nodes with a closed form (``an[k, 0] > 0``, :mod:`.embed_planar`) are first solved exactly in one step
    (a node whose closed form has no solution is left to Newton, which then reports it); Newton only
    polishes them (usually no step)."""
    zero6 = np.zeros(6)
    acc = np.zeros((parent.shape[0], 6))
    for m in range(4):
        info[m] = 0.0
    info[2] = -1.0
    analytic = False
    for k in range(nd.shape[0]):
        analytic = analytic or an[k, 0] > 0
    if analytic:
        tree_positions(parent, jtype, qadr, vadr, axis, axis2, pitch, XT_E, XT_r, S0, q, X_E, X_r, S)
        world_poses(parent, X_E, X_r, oR, op)
        dq[:] = 0.0
        for k in range(nd.shape[0]):
            if an[k, 0] > 0:
                planar_step(k, an, jtype, axis, frame_body, frame_E, frame_r, fa, fb, oR, op, dq)
        integrate_config(jtype, qadr, vadr, q, dq, 1.0, qn, R3)
        q[:] = qn
    it = 0
    while True:
        tree_positions(parent, jtype, qadr, vadr, axis, axis2, pitch, XT_E, XT_r, S0, q, X_E, X_r, S)
        world_poses(parent, X_E, X_r, oR, op)
        if phi.shape[0] == 0:
            return OK
        v[:] = 0.0
        loop_rows(frame_body, frame_E, frame_r, fa, fb, kind, sel, dim, row, ax1, ax2, twist, oR, op, v, acc, zero6,
                  RA, pAw, Qr, phi, cv, gam)
        err = 0.0
        for r in range(phi.shape[0]):
            err = max(err, abs(phi[r]))
        info[0] = it
        info[1] = err
        if not math.isfinite(err):
            return NOT_SOLVED
        if err <= tol:
            return OK
        if it >= max_iter:
            return NOT_SOLVED
        dq[:] = 0.0
        for k in range(nd.shape[0]):
            nr = nd[k, NR]
            if nr == 0:
                continue
            node_jacobian(k, nd, nd_dof, nd_row, row_loop, parent, vadr, jnv, S, oR, op, frame_body, fa, fb, row,
                          RA, pAw, Qr, Jw, Gk)
            ratio = factor_dependent(k, nd, nd_ind, Gk, LU, piv)
            if ratio < PIVOT_TOL:
                info[2] = k
                info[3] = ratio
                return LOOP_SINGULAR
            col = np.empty(nr)
            for s in range(nr):
                col[s] = -phi[nd_row[nd[k, R0] + s]]
            solve(LU[k, :nr, :nr], piv[k, :nr], False, col[:nr])
            e = 0
            for j in range(nd[k, NY]):
                if nd_ind[nd[k, D0] + j] == 0:
                    dq[nd_dof[nd[k, D0] + j]] = col[e]
                    e += 1
        integrate_config(jtype, qadr, vadr, q, dq, 1.0, qn, R3)
        q[:] = qn
        it += 1


# ------------------------------------------------------------------------------------ forward dynamics
@jit
def node_hinges(parent, vadr, jnv, S, oR, op, frame_body, fa, fb, row, RA, pAw, Qr, row_loop,
                nd, nd_dof, nd_ind, nd_row, v2x, xd, Jw, Gk, LU, piv, Gm, col, info, qd):
    """At closed positions: the selected loop Jacobians and factored ``G_dep`` of every compound node, the
    hinge maps ``G`` and the tree velocities ``qd = G xd``. Returns ``OK`` or ``LOOP_SINGULAR`` (``info[2:4]``:
    node, pivot ratio)."""
    for k in range(nd.shape[0]):
        if nd[k, NR] == 0:
            continue
        node_jacobian(k, nd, nd_dof, nd_row, row_loop, parent, vadr, jnv, S, oR, op, frame_body, fa, fb, row,
                      RA, pAw, Qr, Jw, Gk)
        ratio = factor_dependent(k, nd, nd_ind, Gk, LU, piv)
        if ratio < PIVOT_TOL:
            info[2] = k
            info[3] = ratio
            return LOOP_SINGULAR
    node_velocities(nd, nd_dof, nd_ind, nd_row, v2x, Gk, LU, piv, Gm, xd, qd, col)
    return OK


@jit
def node_velocities(nd, nd_dof, nd_ind, nd_row, v2x, Gk, LU, piv, Gm, xd, qd, col):
    """Hinge maps ``Gm`` of every node (positions evaluated, ``Gk`` and ``LU`` current) and the tree
    velocities ``qd = G xd`` (Jain 2012 CE: ``y_dot = G theta_dot``)."""
    for k in range(nd.shape[0]):
        d0, ny = nd[k, D0], nd[k, NY]
        hinge_map(k, nd, nd_ind, Gk, LU, piv, Gm, col)
        for j in range(ny):
            s = 0.0
            c = 0
            for jj in range(ny):
                if nd_ind[d0 + jj] == 1:
                    s += Gm[k, j, c] * xd[v2x[nd_dof[d0 + jj]]]
                    c += 1
            qd[nd_dof[d0 + j]] = s


@jit
def node_bias(nd, nd_ind, nd_row, gdot, LU, piv, gk, col):
    """``gk[k] = g``: zero on the independent dofs, ``-G_dep^-1 gdot_sel`` on the dependent ones."""
    for k in range(nd.shape[0]):
        d0, ny, nr = nd[k, D0], nd[k, NY], nd[k, NR]
        for s in range(nr):
            col[s] = gdot[nd_row[nd[k, R0] + s]]
        if nr > 0:
            solve(LU[k, :nr, :nr], piv[k, :nr], False, col[:nr])
        e = 0
        for j in range(ny):
            if nd_ind[d0 + j] == 1:
                gk[k, j] = 0.0
            else:
                gk[k, j] = -col[e]
                e += 1


@jit
def node_pass2(nd, nd_body, nd_bpar, nd_boff, nd_dof, nd_ind, Gm, gk, oS, oc, tau, oIA, zA, Hb, ab, Us, Dv, un, W,
               with_bias):
    """Pass 2 (leaves to root) of the CE articulated-body algorithm (module docstring): per node the hinge
    rows ``Hb`` and bias accelerations ``ab`` of its bodies (``with_bias = 0``: no bias, no joint forces;
    the correction pass of the cut loops, which reuses ``Hb``, ``Us`` and ``Dv``), ``D^-1`` in ``Dv``,
    ``u`` in ``un``, ``sum_i U_i`` in ``Us``, and the fold of ``P`` (``with_bias = 1`` only) and ``z`` onto
    the parent body. ``W`` (6, 6) scratch. Returns ``OK`` or ``SINGULAR | k << 8`` for node ``k``."""
    w = np.empty(6)
    Dk = np.empty((Dv.shape[1], Dv.shape[1]))
    for k in range(nd.shape[0] - 1, -1, -1):
        b0, nb, d0, ni, c = nd[k, B0], nd[k, NB], nd[k, D0], nd[k, NI], nd[k, PAR]
        if with_bias == 1:
            # hinge rows and bias accelerations, root bodies of the node first
            for t in range(nb):
                i = nd_body[b0 + t]
                pt = nd_bpar[b0 + t]
                for m in range(6):
                    ab[i, m] = oc[i, m] if pt < 0 else ab[nd_body[b0 + pt], m] + oc[i, m]
                    for e in range(ni):
                        Hb[i, m, e] = 0.0 if pt < 0 else Hb[nd_body[b0 + pt], m, e]
                for dd in range(jnv_of(nd_boff, b0, t, nd[k, NY], nb)):
                    j = nd_boff[b0 + t] + dd
                    dof = nd_dof[d0 + j]
                    for m in range(6):
                        ab[i, m] += oS[dof, m] * gk[k, j]
                        for e in range(ni):
                            Hb[i, m, e] += oS[dof, m] * Gm[k, j, e]
            # u = G^T tau_y
            for e in range(ni):
                s = 0.0
                for j in range(nd[k, NY]):
                    s += Gm[k, j, e] * tau[nd_dof[d0 + j]]
                un[k, e] = s
        else:
            for e in range(ni):
                un[k, e] = 0.0
        if with_bias == 1:
            for e in range(ni):
                for m in range(6):
                    Us[k, m, e] = 0.0
                for f in range(ni):
                    Dk[e, f] = 0.0
        for m in range(6):
            w[m] = 0.0
        for t in range(nb):
            i = nd_body[b0 + t]
            if with_bias == 1:
                # z_i + P_i abar_i (accumulated in zA[i]), U_i = P_i H*_i, D += H*_i^T U_i
                for m in range(6):
                    s = 0.0
                    for n in range(6):
                        s += oIA[i, m, n] * ab[i, n]
                    zA[i, m] += s
                for e in range(ni):
                    for m in range(6):
                        s = 0.0
                        for n in range(6):
                            s += oIA[i, m, n] * Hb[i, n, e]
                        W[m, e] = s
                        Us[k, m, e] += s
                    for f in range(e + 1):
                        s = 0.0
                        for m in range(6):
                            s += Hb[i, m, f] * W[m, e]
                        Dk[e, f] += s
            for e in range(ni):
                s = 0.0
                for m in range(6):
                    s += Hb[i, m, e] * zA[i, m]
                un[k, e] -= s
            for m in range(6):
                w[m] += zA[i, m]
        if with_bias == 1:
            for e in range(ni):
                for f in range(e):
                    Dk[f, e] = Dk[e, f]
            if not spd_inverse(Dk, ni, Dv[k]):
                return SINGULAR | (k << 8)
        if c < 0:
            continue
        # fold onto the parent body: P_c += sum P_i - Us D^-1 Us^T, z_c += sum(z_i + P_i abar_i) + Us D^-1 u
        for e in range(ni):
            s = 0.0
            for f in range(ni):
                s += Dv[k, e, f] * un[k, f]
            W[0, e] = s
        for m in range(6):
            s = w[m]
            for e in range(ni):
                s += Us[k, m, e] * W[0, e]
            zA[c, m] += s
        if with_bias == 1:
            for t in range(nb):
                i = nd_body[b0 + t]
                for m in range(6):
                    for n in range(6):
                        oIA[c, m, n] += oIA[i, m, n]
            for m in range(6):
                for e in range(ni):
                    s = 0.0
                    for f in range(ni):
                        s += Us[k, m, f] * Dv[k, f, e]
                    W[m, e] = s
            for m in range(6):
                for n in range(6):
                    s = 0.0
                    for e in range(ni):
                        s += W[m, e] * Us[k, n, e]
                    oIA[c, m, n] -= s
    return OK


@jit
def jnv_of(nd_boff, b0, t, ny, nb):
    """The number of dofs of body ``t`` of a node (from the local offsets)."""
    return (nd_boff[b0 + t + 1] if t + 1 < nb else ny) - nd_boff[b0 + t]


@jit
def node_pass3(nd, nd_body, nd_dof, nd_ind, v2x, Gm, gk, Hb, ab, Us, Dv, un, a0, with_bias, oa, qdd, xdd):
    """Pass 3 (root to leaves): ``theta_ddot = D^-1 (u - Us^T a_c)``, ``a_i = a_c + abar_i + H*_i theta_ddot``
    (world coordinates), ``y_ddot = G theta_ddot + g`` into ``qdd`` and ``theta_ddot`` into ``xdd``."""
    th = np.empty(Dv.shape[1])
    w = np.empty(Dv.shape[1])
    for k in range(nd.shape[0]):
        b0, nb, d0, ni, c = nd[k, B0], nd[k, NB], nd[k, D0], nd[k, NI], nd[k, PAR]
        for e in range(ni):
            s = un[k, e]
            for m in range(6):
                s -= Us[k, m, e] * (oa[c, m] if c >= 0 else a0[m])
            w[e] = s
        for e in range(ni):
            s = 0.0
            for f in range(ni):
                s += Dv[k, e, f] * w[f]
            th[e] = s
        for t in range(nb):
            i = nd_body[b0 + t]
            for m in range(6):
                s = oa[c, m] if c >= 0 else a0[m]
                if with_bias == 1:
                    s += ab[i, m]
                for e in range(ni):
                    s += Hb[i, m, e] * th[e]
                oa[i, m] = s
        for j in range(nd[k, NY]):
            s = gk[k, j] if with_bias == 1 else 0.0
            for e in range(ni):
                s += Gm[k, j, e] * th[e]
            dof = nd_dof[d0 + j]
            qdd[dof] = s
            if nd_ind[d0 + j] == 1:
                xdd[v2x[dof]] = s


@jit
def cut_loop_response(parent, frame_body, frame_E, frame_r, cfa, cfb, ckind, csel, cdim, crow, cax1, cax2, ctwist,
                      nd, nd_body, nd_bpar, nd_boff, nd_dof, nd_ind, v2x, Gm, gk, oS, oc, oR, op, oIA, zA, Hb, ab,
                      Us, Dv, un, W, cRA, cpAw, cQr, fl, oa, abody, K, Y, Yq):
    """The response of the embedded tree to unit multipliers of the cut loops (hybrid CE/TA, Jain 2012
    Lemma 2 on the embedded tree): for each cut row ``s`` the body forces ``G_c^T e_s`` (:func:`loops.loop_forces`),
    the correction passes (no velocity, no gravity) giving ``M_theta^-1 (G_c G)^T e_s``,
    stored as the row ``Y[s]``, its tree accelerations ``Yq[s]`` and the constraint accelerations
    ``K[:, s] = G_c G Y[s]``
    (the Schur complement ``G_c G M_theta^-1 G^T G_c^T``)."""
    nb = parent.shape[0]
    nc = K.shape[0]
    e_s = np.zeros(nc)
    zero6 = np.zeros(6)
    vz = np.zeros((nb, 6))
    rphi = np.empty(nc)
    rcv = np.empty(nc)
    rg = np.empty(nc)
    for s in range(nc):
        e_s[:] = 0.0
        e_s[s] = 1.0
        loop_forces(parent, frame_body, cfa, cfb, cdim, crow, oR, op, cRA, cpAw, cQr, e_s, fl)
        for i in range(nb):
            for m in range(6):
                zA[i, m] = 0.0
                fl[i, m] = -fl[i, m]
            force_to_world_add(oR[i], op[i], fl[i], zA[i])
        node_pass2(nd, nd_body, nd_bpar, nd_boff, nd_dof, nd_ind, Gm, gk, oS, oc, zero6, oIA, zA, Hb, ab, Us, Dv,
                   un, W, 0)
        node_pass3(nd, nd_body, nd_dof, nd_ind, v2x, Gm, gk, Hb, ab, Us, Dv, un, zero6, 0, oa, Yq[s], Y[s])
        for i in range(nb):
            from_world_motion(oR[i], op[i], oa[i], abody[i])
        loop_rows(frame_body, frame_E, frame_r, cfa, cfb, ckind, csel, cdim, crow, cax1, cax2, ctwist, oR, op, vz,
                  abody, zero6, cRA, cpAw, cQr, rphi, rcv, rg)
        for r in range(nc):
            K[r, s] = rg[r]


@jit
def ce_accelerations(parent, jtype, vadr, jnv, axis2, I, frame_body, frame_E, frame_r,
                     fa, fb, kind, sel, dim, row, ax1, ax2, twist, row_loop,
                     cfa, cfb, ckind, csel, cdim, crow, cax1, cax2, ctwist,
                     nd, nd_body, nd_bpar, nd_boff, nd_dof, nd_ind, nd_row, v2x,
                     xd, tau, fext, a0,
                     X_E, X_r, S, v, c, h, vJ, oR, op, oS, oI, oIA, zA, oc, oa, abody, ab, Hb, Us, Dv, un, W,
                     Gk, LU, piv, Gm, gk, Jw, col, RA, pAw, Qr, phi, cv, gam,
                     cRA, cpAw, cQr, cphi, ccv, cgam, K, lam, fl, Y, Yq, linfo,
                     qd, qdd, xdd):
    """CE forward dynamics at closed positions (``X_E, X_r, S, oR, op`` of the tree configuration, as left by
    :func:`close_loops`) with the hinge maps ``G`` and tree velocities ``qd = G xd`` of :func:`node_hinges`:
    the biases ``g`` from the
    constraint acceleration bias ``gdot``, then the articulated-body passes over the nodes (module
    docstring; Jain 2012 CE) for ``xdd`` (embedded) and ``qdd`` (tree). With cut loops (``cfa`` not empty),
    Jain 2012 Lemma 2 on the embedded tree: ``K lam = -gamma`` with ``K`` from :func:`cut_loop_response`,
    ``xdd += Y lam``; ``linfo`` (rank of K, 1 if singular). ``tau`` (tree nv) enters as ``G^T tau``;
    ``fext`` body-frame forces. Returns ``OK`` or ``SINGULAR | k << 8``."""
    nb = parent.shape[0]
    tree_velocities(parent, jtype, vadr, jnv, axis2, X_E, X_r, S, qd, v, c, vJ)
    if phi.shape[0] > 0:
        bias_accelerations(parent, X_E, X_r, c, h)
        loop_rows(frame_body, frame_E, frame_r, fa, fb, kind, sel, dim, row, ax1, ax2, twist, oR, op, v, h,
                  np.zeros(6), RA, pAw, Qr, phi, cv, gam)
    node_bias(nd, nd_ind, nd_row, gam, LU, piv, gk, col)
    # world-frame quantities: oS, oI, bias velocities and forces
    world_subspaces(parent, vadr, jnv, S, oR, op, oS)
    world_inertias(I, oR, op, oI)
    ov = np.empty(6)
    tmp = np.empty(6)
    nf = np.empty(6)
    for i in range(nb):
        to_world_motion(oR[i], op[i], v[i], ov)
        to_world_motion(oR[i], op[i], c[i], oc[i])
        for m in range(6):
            s = 0.0
            for n in range(6):
                s += oI[i, m, n] * ov[n]
                oIA[i, m, n] = oI[i, m, n]
            tmp[m] = s
            zA[i, m] = 0.0
            nf[m] = -fext[i, m]
        cross_force_add(ov, tmp, zA[i])
        force_to_world_add(oR[i], op[i], nf, zA[i])
    st = node_pass2(nd, nd_body, nd_bpar, nd_boff, nd_dof, nd_ind, Gm, gk, oS, oc, tau, oIA, zA, Hb, ab, Us, Dv, un,
                    W, 1)
    if st != OK:
        return st
    node_pass3(nd, nd_body, nd_dof, nd_ind, v2x, Gm, gk, Hb, ab, Us, Dv, un, a0, 1, oa, qdd, xdd)
    if cphi.shape[0] == 0:
        return OK
    # cut loops: Lemma 2 on the embedded tree
    for i in range(nb):
        from_world_motion(oR[i], op[i], oa[i], abody[i])
    loop_rows(frame_body, frame_E, frame_r, cfa, cfb, ckind, csel, cdim, crow, cax1, cax2, ctwist, oR, op, v, abody,
              a0, cRA, cpAw, cQr, cphi, ccv, cgam)
    cut_loop_response(parent, frame_body, frame_E, frame_r, cfa, cfb, ckind, csel, cdim, crow, cax1, cax2, ctwist,
                      nd, nd_body, nd_bpar, nd_boff, nd_dof, nd_ind, v2x, Gm, gk, oS, oc, oR, op, oIA, zA, Hb, ab,
                      Us, Dv, un, W, cRA, cpAw, cQr, fl, oa, abody, K, Y, Yq)
    rhs = np.empty(cgam.shape[0])
    for r in range(cgam.shape[0]):
        rhs[r] = -cgam[r]
    solve_multipliers(K, rhs, lam, linfo)
    for e in range(xdd.shape[0]):
        s = 0.0
        for r in range(lam.shape[0]):
            s += Y[r, e] * lam[r]
        xdd[e] += s
    for e in range(qdd.shape[0]):
        s = 0.0
        for r in range(lam.shape[0]):
            s += Yq[r, e] * lam[r]
        qdd[e] += s
    return OK
