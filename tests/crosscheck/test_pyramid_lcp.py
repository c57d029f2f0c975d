"""The friction-pyramid LCP of the contact step formed from its structure (``soadyn._kernels.contact``:
``pyramid_block`` for any set of rows, ``pyramid_w`` for ``w = M z + q``), only on the contact pairs that
couple (``contact_coupling``), against the matrix written out from Jain 2014 Eq. 53:
``M = [[P W P^T, [0; E_hat]], [[0, E_bar], 0]]`` with ``W`` the Delassus matrix of loop and contact rows on a
forest of three trees (contacts between trees, with the world, within one tree)."""

import numpy as np
import pytest

from soadyn._kernels import contact as kc

NF = 4


def forest_case(seed, nb):
    """``(parent, con_body, W, mu)``: three trees of 2, 3 and 1 bodies (one dof each); contact ``i`` between
    ``con_body[i]`` (-1: the world) with rows ``(n, t1, t2)`` whose Jacobian touches the dofs of its bodies'
    trees; ``nb`` loop rows within the first tree. ``W = G M^-1 G^T`` with ``M`` block-diagonal over the trees,
    so the blocks of contacts on different trees are exactly zero."""
    rng = np.random.default_rng(seed)
    parent = np.array([-1, 0, -1, 2, 3, -1], dtype=np.int64)
    tree = np.array([0, 0, 1, 1, 1, 2])
    con_body = np.array([[1, -1], [0, 3], [4, -1], [5, -1], [2, 5], [1, 1], [4, 3]], dtype=np.int64)
    k, nv = con_body.shape[0], parent.shape[0]
    G = np.zeros((nb + 3 * k, nv))
    G[:nb, tree == 0] = rng.normal(size=(nb, 2))
    for i, (a, b) in enumerate(con_body):
        for body in (a, b):
            if body >= 0:
                cols = tree == tree[body]
                G[nb + 3 * i:nb + 3 * i + 3, cols] += rng.normal(size=(3, cols.sum()))
    Minv = np.zeros((nv, nv))
    for t in range(3):
        cols = np.flatnonzero(tree == t)
        A = rng.normal(size=(cols.size, cols.size))
        Minv[np.ix_(cols, cols)] = np.linalg.inv(A @ A.T + cols.size * np.eye(cols.size))
    W = G @ Minv @ G.T
    W = (W + W.T) / 2
    return parent, con_body, W, rng.uniform(0.2, 1.0, size=k)


def dense_pyramid(W, nb, k, mu):
    """Eq. 53's ``M`` written out: ``P = diag(I_nb, P_1 .. P_k)`` with the rows ``[n, d_0 .. d_{nf-1}]`` of
    ``d_j = cos(2 pi j / nf) t1 + sin(2 pi j / nf) t2``, ``E_hat`` (1 from each edge to its contact's sigma),
    ``E_bar`` (``mu_i`` on the normal, -1 on the edges)."""
    nbeta = nb + k * (NF + 1)
    n = nbeta + k
    Pi = np.array([[1.0, 0.0, 0.0]] + [[0.0, np.cos(2 * np.pi * j / NF), np.sin(2 * np.pi * j / NF)]
                                      for j in range(NF)])
    P = np.zeros((nbeta, nb + 3 * k))
    P[:nb, :nb] = np.eye(nb)
    for i in range(k):
        P[nb + i * (NF + 1):nb + (i + 1) * (NF + 1), nb + 3 * i:nb + 3 * i + 3] = Pi
    M = np.zeros((n, n))
    M[:nbeta, :nbeta] = P @ W @ P.T
    for i in range(k):
        r0 = nb + i * (NF + 1)
        M[r0 + 1:r0 + NF + 1, nbeta + i] = 1.0
        M[nbeta + i, r0] = mu[i]
        M[nbeta + i, r0 + 1:r0 + NF + 1] = -1.0
    return M


@pytest.mark.parametrize("nb", [0, 2])
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_pyramid_block_and_w_on_the_coupled_pairs_match_eq53(seed, nb):
    parent, con_body, W, mu = forest_case(seed, nb)
    k = con_body.shape[0]
    cstart = np.empty(k + 1, dtype=np.int64)
    room = np.full(kc.coupling_space(parent.size, k), -7, dtype=np.int64)  # scratch as a step leaves it
    cadj = kc.contact_coupling(parent, con_body, k, cstart, room).copy()
    # without room for the pairs in its scratch, the same pairs in an array of their own
    start2 = np.empty(k + 1, dtype=np.int64)
    tight = np.full(5 * k + 2 * parent.size + 1, -7, dtype=np.int64)
    np.testing.assert_array_equal(kc.contact_coupling(parent, con_body, k, start2, tight)[:cstart[k]],
                                  cadj[:cstart[k]])
    np.testing.assert_array_equal(start2, cstart)
    cadj = cadj[:cstart[k]]
    # the coupling holds every nonzero block and no pair of contacts on different trees
    for i in range(k):
        near = set(cadj[cstart[i]:cstart[i + 1]])
        for j in range(k):
            block = W[nb + 3 * i:nb + 3 * i + 3, nb + 3 * j:nb + 3 * j + 3]
            assert (j in near) == bool(np.any(block != 0.0)), (i, j)
    assert 0 < cadj.size < k * k
    ref = dense_pyramid(W, nb, k, mu)
    n = ref.shape[0]
    scale = np.abs(ref).max()
    cs = np.full((NF + 1, 3), np.nan)
    kc.pyramid_directions(NF, cs)
    every = np.empty(0, dtype=np.int64)
    rng = np.random.default_rng(10 + seed)
    for trial in range(6):
        idx = np.arange(n) if trial == 0 else np.sort(rng.choice(n, size=rng.integers(1, n), replace=False))
        for start, adj in ((cstart, cadj), (every, every)):
            A = np.full((idx.size, idx.size), np.nan)
            kc.pyramid_block(W, nb, k, NF, mu, cs, idx, idx.size, start, adj, A, np.full(k + 1, -7, dtype=np.int64))
            np.testing.assert_allclose(A, ref[np.ix_(idx, idx)], rtol=0, atol=1e-13 * scale)
    q = rng.normal(size=n)
    z = np.where(rng.random(n) < 0.4, 0.0, rng.normal(size=n))
    for start, adj in ((cstart, cadj), (every, every)):
        w = np.full(n, np.nan)
        kc.pyramid_w(W, q, nb, k, NF, mu, cs, start, adj, z, w, np.full(2 * (nb + 3 * k), np.nan))
        np.testing.assert_allclose(w, ref @ z + q, rtol=0, atol=1e-13 * scale * (1 + np.abs(z).sum()))
