"""The contact step's Delassus matrix ``W = G M^-1 G^T`` (``soadyn._kernels.contact.delassus``: from the
articulated-body factors, Jain 2014 Eqs. 52, 64-69) against the dense product of the rows' Jacobians with
M^-1 (``soadyn.minv``): contact rows between two bodies of one tree, a body and the world, and bodies of
different trees, with loop rows whose two nodes are on one tree."""

import numpy as np
import pytest

import soadyn as sd
from soadyn._kernels import contact as kc
from tests.support import ALGORITHMS, assert_close


def point_jacobian(model, data, q, b, p):
    """(6, nv): ``[w; v_p]`` of body ``b`` at the world point ``p``, world axes (zero for the world)."""
    if b < 0:
        return np.zeros((6, model.nv))
    J = sd.frame_jacobian(model, data, q, model.body_names[b], "world_aligned").copy()
    r = p - data.frame_p
    J[3:] -= np.cross(r, J[:3].T).T
    return J


def dense_delassus(model, q, loops, contacts):
    """``G M^-1 G^T`` with the rows of :func:`soadyn._kernels.contact.constraint_nodes` written out: loop row
    ``Q_d . ([R^T w; R^T v_p]_b - [..]_a)`` at frame A's pose ``(R, p)``, contact rows ``F_i (v_A - v_B)``."""
    data = model.data()
    rows = []
    for fa, fb, R, p, Q, dim in loops:
        Ja = point_jacobian(model, data, q, model.frame_body[fa], p)
        Jb = point_jacobian(model, data, q, model.frame_body[fb], p)
        E = np.kron(np.eye(2), R.T)
        rows += [Q[d] @ E @ (Jb - Ja) for d in range(dim)]
    for (a, b), p, F in contacts:
        rows += list(F @ (point_jacobian(model, data, q, a, p)[3:] - point_jacobian(model, data, q, b, p)[3:]))
    G = np.array(rows)
    return G @ sd.minv(model, data, q) @ G.T


def kernel_delassus(model, q, loops, contacts):
    data = model.data()
    sd.fk(model, data, q)
    sd.aba(model, data, q, np.zeros(model.nv), np.zeros(model.nv))  # the articulated-body factors at q
    nl, k = len(loops), len(contacts)
    dim = np.array([l[5] for l in loops], dtype=np.int64)
    row = np.concatenate([[0], np.cumsum(dim)]).astype(np.int64)
    fa = np.array([l[0] for l in loops], dtype=np.int64)
    fb = np.array([l[1] for l in loops], dtype=np.int64)
    RA = np.array([l[2] for l in loops]).reshape(nl, 3, 3)
    pA = np.array([l[3] for l in loops]).reshape(nl, 3)
    Q = np.array([l[4] for l in loops]).reshape(nl, 6, 6)
    con_body = np.array([c[0] for c in contacts], dtype=np.int64).reshape(k, 2)
    con_point = np.array([c[1] for c in contacts]).reshape(k, 3)
    con_frame = np.array([c[2] for c in contacts]).reshape(k, 3, 3)
    nr, cap = row[nl] + 3 * k, 2 * (nl + k)
    node_body, node_dim = np.empty(cap, dtype=np.int64), np.empty(cap, dtype=np.int64)
    node_row, row_node = np.empty(cap + 1, dtype=np.int64), np.empty((nr, 2), dtype=np.int64)
    wE, wr, node_sel = np.empty((cap, 3, 3)), np.empty((cap, 3)), np.empty((cap, 6, 6))
    row_coef = np.empty((nr, 2, 6))
    nn = kc.constraint_nodes(np.array(model.frame_body), fa, fb, dim, row, RA, pA, Q, con_body, con_point, con_frame,
                             k, node_body, wE, wr, node_sel, node_dim, node_row, row_node, row_coef)
    t = [np.array(a) for a in (model.body_parent, model.jnt_vadr, model.jnt_nv)]
    W = np.full((nr, nr), np.nan)
    nf, ni = kc.delassus_space(len(model.body_parent), nn, nr)
    kc.delassus(*t, data.S, data.U, data.Dinv, data.oR, data.op, data.oS, data.oU, data.node_count, data.node_cpar,
                data.node_vid, data.Ups, data.Psi, node_body, wE, wr, node_sel, node_dim, node_row, nn, row_node,
                row_coef, W, np.full(nf, np.nan), np.full(ni, -1, dtype=np.int64))
    return W


def contact_frame(rng):
    n = rng.normal(size=3)
    F = np.empty((3, 3))
    kc.tangent_basis((n / np.linalg.norm(n))[None, :], F[None], 0)
    return F


def random_tree_case():
    """A branched random tree with every joint type; contacts between bodies of the tree (siblings, parent and
    child, one body twice) and with the world; two loops within the tree (one of full rank 6, one of 3 rows)."""
    model = sd.models.auto_tree(9, branching=2.0, joint_mix=sd.models.ALL_JOINTS, seed=3)
    rng = np.random.default_rng(7)
    q = model.random_q(rng)
    pairs = [(8, 5), (3, -1), (6, 2), (-1, 7), (8, 4), (1, 0), (8, 0)]
    contacts = [(pair, rng.normal(size=3), contact_frame(rng)) for pair in pairs]
    loops = []
    for a, b, dim in ((8, 6, 6), (2, 5, 3)):
        R = np.linalg.qr(rng.normal(size=(3, 3)))[0]
        loops.append((model.frame_id(f"tip{a}"), model.frame_id(f"tip{b}"), R, rng.normal(size=3),
                      rng.normal(size=(6, 6)), dim))
    return model, q, loops, contacts


def box_stack_case():
    """Three free boxes stacked on the floor, as collision detection finds them: every body a tree of its own."""
    scene = sd.models.scenes.box_stack(3)
    model = scene.model
    found = sd.contact.collide(model, model.data(), scene.q0)
    assert found.count >= 8  # the floor's four and four of a box on a box
    F = np.empty((found.count, 3, 3))
    for i in range(found.count):
        kc.tangent_basis(np.ascontiguousarray(found.normal), F, i)
    return model, scene.q0, [], [(found.body[i], found.point[i], F[i]) for i in range(found.count)]


@pytest.mark.parametrize("case", [random_tree_case, box_stack_case], ids=["random_tree", "box_stack"])
def test_delassus_matches_the_dense_product(case):
    model, q, loops, contacts = case()
    W = kernel_delassus(model, q, loops, contacts)
    ref = dense_delassus(model, q, loops, contacts)
    assert_close(W, ref, ALGORITHMS, "Delassus matrix W", scale=np.abs(ref).max())
    assert np.array_equal(W, W.T), "W is not exactly symmetric"
    assert np.count_nonzero(np.abs(ref) > 1e-6 * np.abs(ref).max()) > ref.size // 4  # rows do couple
