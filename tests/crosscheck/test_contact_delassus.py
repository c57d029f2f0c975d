"""The contact step's Delassus matrix ``W = G M^-1 G^T`` (``soadyn._kernels.delassus``: from the
articulated-body factors, Jain 2014 Eqs. 52, 63-69, by vertices and by paths) against the dense product of the
rows' Jacobians with M^-1 (``soadyn.minv``): contact rows between two bodies of one tree, a body and the world,
and bodies of different trees, with loop rows whose two nodes are on one tree; and the choice between the two
methods."""

import numpy as np
import pytest

import soadyn as sd
from soadyn._kernels import contact as kc
from soadyn._kernels import contact_motion as kcm
from soadyn._kernels import delassus as kd
from soadyn._kernels.kinematics import world_forces, world_subspaces
from soadyn._kernels.osim import node_tree
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
    """``G M^-1 G^T`` (:func:`dense_rows`)."""
    G = dense_rows(model, q, loops, contacts)
    return G @ sd.minv(model, model.data(), q) @ G.T


def dense_rows(model, q, loops, contacts):
    """``G`` with the rows of :func:`soadyn._kernels.contact.constraint_nodes` written out: loop row
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
    return np.array(rows)


def kernel_delassus(model, q, loops, contacts, method):
    """W by ``method``: "vertices", "paths" or "auto" (then also the two methods' counts, the int scratch and
    the nodes); "impulses": the velocity changes ``M^-1 G^T lam`` of :func:`contact_motion.apply_impulses` for
    ``lam`` = 1, 2, .., nr, from the rows' joint forces of the paths and from the row impulses, and ``lam``."""
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
    nf, ni = kd.delassus_space(len(model.body_parent), model.nv, nn, nr)
    fs, js = np.full(max(nf, 2 * nr * model.nv + 6), np.nan), np.full(ni, -1, dtype=np.int64)
    rows = (node_body, wE, wr, node_sel, node_dim)
    if method == "auto":
        kd.delassus(*t, data.S, data.U, data.Dinv, data.oR, data.op, data.oS, data.oU, data.node_count,
                    data.node_cpar, data.node_vid, data.Ups, data.Psi, *rows, node_row, nn, row_node, row_coef, W, fs,
                    js)
        return W, kd.delassus_costs(t[0], t[2], node_body, nn, row_node, model.nv, js), js, node_body, nn
    world_subspaces(*t, data.S, data.oR, data.op, data.oS)
    world_forces(*t, data.U, data.oR, data.op, data.oU)
    if method == "vertices":
        kd.vertex_delassus(*t, data.oS, data.oU, data.Dinv, data.node_count, data.node_cpar, data.node_vid, data.Ups,
                           data.Psi, *rows, nn, row_node, row_coef, W, fs, js)
    else:
        kd.path_delassus(*t, data.oS, data.oU, data.Dinv, *rows, row_node, row_coef, W, fs, js)
    if method != "impulses":
        return W
    lam, nb, nv = np.arange(1.0, nr + 1.0), len(model.body_parent), model.nv
    dqd = []
    for Y in (fs[:nr * nv].reshape(nr, nv), np.empty((0, nv))):
        qd = np.zeros(nv)
        kcm.apply_impulses(*t, data.X_E, data.X_r, data.S, data.U, data.Dinv, data.oR, data.op, *rows, nn, row_node,
                           row_coef, lam, qd, *(np.full((nb, 6), np.nan) for _ in range(3)), np.full(nv, np.nan),
                           np.full(nv, np.nan), np.full(kc.row_space(nn), np.nan), Y)
        dqd.append(qd)
    return dqd, lam


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


def solo12_feet_case():
    """solo12 standing on its four feet: four contacts with the world, one at the end of each leg."""
    scene = sd.models.scenes.solo12_standing()
    model = scene.model
    found = sd.contact.collide(model, model.data(), scene.q0)
    assert found.count == 4
    F = np.empty((found.count, 3, 3))
    for i in range(found.count):
        kc.tangent_basis(np.ascontiguousarray(found.normal), F, i)
    return model, scene.q0, [], [(found.body[i], found.point[i], F[i]) for i in range(found.count)]


CASES = [random_tree_case, box_stack_case, solo12_feet_case]


@pytest.mark.parametrize("method", ["vertices", "paths"])
@pytest.mark.parametrize("case", CASES, ids=["random_tree", "box_stack", "solo12_feet"])
def test_delassus_matches_the_dense_product(case, method):
    model, q, loops, contacts = case()
    W = kernel_delassus(model, q, loops, contacts, method)
    ref = dense_delassus(model, q, loops, contacts)
    assert_close(W, ref, ALGORITHMS, f"Delassus matrix W by {method}", scale=np.abs(ref).max())
    assert np.array_equal(W, W.T), "W is not exactly symmetric"
    assert np.count_nonzero(np.abs(ref) > 1e-6 * np.abs(ref).max()) > ref.size // 4  # rows do couple


@pytest.mark.parametrize("case, paths", [(random_tree_case, True), (box_stack_case, False), (solo12_feet_case, True)],
                         ids=["random_tree", "box_stack", "solo12_feet"])
def test_delassus_runs_the_method_that_costs_less(case, paths):
    """The paths for solo12's four feet on four legs (counted 2.9e3 against 4.9e3 by vertices; measured 1.5 us
    against 2.8 us) and for the random tree's 30 rows (1.1e4 against 2.6e4), the vertices for three stacked
    boxes, whose many contacts on each box share one vertex (7.0e3 against 5.1e3); either way the same matrix.
    The vertices counted are those of :func:`soadyn._kernels.osim.node_tree`."""
    model, q, loops, contacts = case()
    W, (path, vertex), js, node_body, nn = kernel_delassus(model, q, loops, contacts, "auto")
    assert (path < vertex) == paths
    assert np.array_equal(W, kernel_delassus(model, q, loops, contacts, "paths" if paths else "vertices"))
    nb = len(model.body_parent)
    cnt, cpar, vid = (np.zeros(nb, dtype=np.int64) for _ in range(3))
    vert = [np.zeros(2 * nn, dtype=np.int64) for _ in range(3)]
    nvert = node_tree(np.array(model.body_parent), node_body[:nn], cnt, cpar, vid, *vert)
    assert js[3 * nb:4 * nb].sum() == nvert


@pytest.mark.parametrize("case", CASES, ids=["random_tree", "box_stack", "solo12_feet"])
def test_impulses_from_the_paths_match_the_row_impulses(case):
    """``M^-1 G^T lam`` from the joint forces the paths leave (``u = Y^T lam``, then ABA pass 3) against the
    row impulses' ABA pass and the dense ``M^-1 G^T lam``."""
    model, q, loops, contacts = case()
    (by_paths, by_rows), lam = kernel_delassus(model, q, loops, contacts, "impulses")
    G = dense_rows(model, q, loops, contacts)
    ref = sd.minv(model, model.data(), q) @ G.T @ lam
    scale = np.abs(ref).max()
    assert_close(by_rows, ref, ALGORITHMS, "M^-1 G^T lam by the row impulses", scale=scale)
    assert_close(by_paths, ref, ALGORITHMS, "M^-1 G^T lam by the paths", scale=scale)
