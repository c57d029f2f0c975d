"""Operational space compliance by per-pair path walks (Chang-Khatib 2000 Table 1), in body coordinates: the
independent cross-check of :func:`soadyn._kernels.osim.osim_inv`, O(N n_c^2) (``soadyn.osim.osim_inv(...,
method="chang_khatib")``). Conventions: :mod:`soadyn._kernels.osim`."""

import numpy as np

from .._jit import jit
from .articulated import articulated_inertias
from .joints import OK, check_q
from .kinematics import BAD_ARRAY, tree_positions, vector_ready, world_poses
from .layout import NB, NQ, UPS, data_aba, data_kinematics, dfield, model_extras, model_tree
from .osim import node_block, node_fields, psi_left, row_selections, upsilon_step
from .spatial import transpose6


@jit
def path_from(parent, h, k, path):
    """The bodies from ``k`` up to (not including) its ancestor ``h``, into ``path``; returns their count."""
    n = 0
    while k != h:
        path[n] = k
        n += 1
        k = parent[k]
    return n


@jit
def osim_inv_paths(model_int, model_float, data_float, q, node_int, node_float, Linv):
    """Lambda^-1 by Chang-Khatib 2000 Table 1: step 3 (outward ``Omega_ii``, here for every body), step 4
    (for each node pair, from the nearest common ancestor ``h``: ``Omega_{h,j}`` walked out to ``b_b`` by
    ``Omega_{h,k} = Omega_{h,p} L_k``, then ``Omega_{k,j} = L_k^T Omega_{p,j}`` walked out to ``b_a``), step 5
    (node transforms). O(n m^2): the cross-check for :func:`osim.osim_inv`, with its arguments (``data_int`` aside)."""
    (parent, jtype, qadr, vadr, jnv, axis, axis2, pitch, XT_E, XT_r, I, S0,
     armature) = model_tree(model_int, model_float)
    if not vector_ready(q, model_int[NQ]):
        return BAD_ARRAY
    st = check_q(jtype, qadr, q)
    if st != OK:
        return st
    subtree_end = model_extras(model_int, model_float)[0]
    nb = model_int[NB]
    node_body, node_dim, node_row, node_first, _, _, _, node_E, node_r, node_sel, _, _, Om = node_fields(
        node_int, node_float)
    nn = node_body.shape[0]
    X_E, X_r, S, v, c, oR, op = data_kinematics(model_int, data_float)
    IA, pA, U, D, Dinv, u, a = data_aba(model_int, data_float)
    Ups = dfield(model_int, data_float, UPS, (nb, 6, 6))
    T = np.empty((4, 6, 6))
    O = Om[0]  # Omega(ba, bb) of the pair
    y = np.empty(6)
    w = np.empty(6)
    G = np.empty((18, 6))
    path = np.empty(nb, dtype=np.int64)
    tree_positions(parent, jtype, qadr, vadr, axis, axis2, pitch, XT_E, XT_r, S0, q, X_E, X_r, S)
    world_poses(parent, X_E, X_r, oR, op)
    st = articulated_inertias(parent, vadr, jnv, armature, I, X_E, X_r, S, IA, U, D, Dinv, T[0], T[1])
    if st != OK:
        return st
    for i in range(nb):
        p = parent[i]
        if p < 0:
            O[:] = 0.0
            upsilon_step(X_E[i], X_r[i], S, U, Dinv[i], vadr[i], jnv[i], O, Ups[i], G)
        else:
            upsilon_step(X_E[i], X_r[i], S, U, Dinv[i], vadr[i], jnv[i], Ups[p], Ups[i], G)
    row_selections(node_sel, node_dim, node_first)
    Z = np.empty((12, 6))
    for a in range(nn):
        ba = node_body[a]
        for b in range(a + 1):
            bb = node_body[b]
            h = ba  # nearest common ancestor: depth-first ranges
            while h >= 0 and not (h <= bb < subtree_end[h]):
                h = parent[h]
            if h < 0:
                O[:] = 0.0
            else:
                O[:] = Ups[h]
                # Omega(h, bb): walk out from h to bb, Omega(h, k) = Omega(h, p) psi_k^T = (psi_k Omega(p, h))^T
                npath = path_from(parent, h, bb, path)
                for s in range(npath - 1, -1, -1):
                    k = path[s]
                    transpose6(O)
                    psi_left(X_E[k], X_r[k], S, U, Dinv[k], vadr[k], jnv[k], O, O, y, w)
                    transpose6(O)
                # Omega(k, bb) = psi_k Omega(p, bb), walked out from h to ba
                npath = path_from(parent, h, ba, path)
                for s in range(npath - 1, -1, -1):
                    k = path[s]
                    psi_left(X_E[k], X_r[k], S, U, Dinv[k], vadr[k], jnv[k], O, O, y, w)
            node_block(Om, 0, False, node_E, node_r, node_sel, node_first, a, node_dim[a], b, node_dim[b], Linv,
                       node_row[a], node_row[b], Z)
    return OK
