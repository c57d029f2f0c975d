"""The spatial operator identities (Jain 2014, Eq. 59-64; Jain et al. 2012, Eq. 7-8) with the dense
operators of :mod:`soadyn.operators`, against the kernels (CRBA, M^-1, ABA, frame Jacobians) on random
``auto_tree`` models with every joint type (multi-dof joints give nv_i-row blocks)."""

from __future__ import annotations

import functools

import numpy as np
import pytest

import soadyn as sd
from soadyn.models import ALL_JOINTS, auto_tree
from soadyn.operators import SOAOperators, operators
from tests.crosscheck.test_identities import forest_model
from tests.support import ALGORITHMS, SAME_MATH, assert_close

# (nb, branching, seed) of auto_tree models with every joint type; nb = 0: a forest of three trees
CASES = [(9, 1.0, 0), (10, 1.5, 1), (11, 2.0, 2), (12, 3.0, 3), (0, 0.0, 2), (0, 0.0, 1)]  # forest-s1: armature
IDS = [f"nb{nb}-bf{bf:g}-s{s}" if nb else f"forest-s{s}" for nb, bf, s in CASES]


@functools.lru_cache(maxsize=None)
def model_of(nb: int, bf: float, seed: int) -> sd.Model:
    return forest_model(seed) if nb == 0 else auto_tree(nb, bf, seed=seed, joint_mix=ALL_JOINTS)


@pytest.fixture(params=CASES, ids=IDS, scope="module")
def case(request):
    model = model_of(*request.param)
    rng = np.random.default_rng(500 + request.param[2])
    q = model.random_q(rng)
    return model, q, operators(model, q)


def test_shapes_and_block_structure(case):
    model, q, O = case
    nb, nv = model.nb, model.nv
    assert isinstance(O, SOAOperators)
    assert (O.nb, O.nv) == (nb, nv)
    assert O.H.shape == (nv, 6 * nb) and O.K.shape == (6 * nb, nv) and O.G.shape == (6 * nb, nv)
    for A in (O.phi, O.E_phi, O.Mb, O.P, O.tau_bar, O.E_psi, O.psi, O.Omega):
        assert A.shape == (6 * nb, 6 * nb)
    assert O.D.shape == (nv, nv)
    blk = SOAOperators.block
    for i in range(nb):
        for j in range(nb):
            # phi(j, i) and psi(j, i) are nonzero only for j an ancestor of i or i itself
            anc = j == i or _is_ancestor(model, j, i)
            for name, A in (("phi", O.phi), ("psi", O.psi)):
                nz = np.abs(A[blk(j), blk(i)]).max() > 0
                assert nz == anc, f"{name}({j}, {i}) nonzero={nz}, ancestor={anc}"
            if i != j:
                for name, A in (("Mb", O.Mb), ("P", O.P), ("tau_bar", O.tau_bar)):
                    assert not A[blk(i), blk(j)].any(), f"{name} not block diagonal at ({i}, {j})"
        assert_close(O.phi[blk(i), blk(i)], np.eye(6), 0.0, f"phi({i}, {i})")
        # K has the single block K(p(i), i)
        p = model.body_parent[i]
        dof = O.body_dofs[i]
        for j in range(nb):
            nz = O.K[blk(j), dof].any()
            assert nz == (j == p), f"K({j}, {i}) nonzero={nz}, parent={p}"


def _is_ancestor(model, j: int, i: int) -> bool:
    i = model.body_parent[i]
    while i >= 0:
        if i == j:
            return True
        i = model.body_parent[i]
    return False


def test_definitions(case):
    """phi = (I - E_phi)^-1, psi = (I - E_psi)^-1, E_psi = E_phi - K H, the Riccati recursion
    P = Mb + E_phi tau_bar P E_phi*, D = H P H* + A (A = diag(armature)), G = P H* D^-1, tau_bar = I - G H;
    H G = I - A D^-1 (tau_bar is a projector when A = 0)."""
    model, q, O = case
    n6 = 6 * model.nb
    assert_close(O.phi, np.linalg.inv(np.eye(n6) - O.E_phi), ALGORITHMS, "phi vs (I - E_phi)^-1")
    assert_close(O.psi, np.linalg.inv(np.eye(n6) - O.E_psi), ALGORITHMS, "psi vs (I - E_psi)^-1")
    assert_close(O.E_psi, O.E_phi - O.K @ O.H, SAME_MATH, "E_psi vs E_phi - K H")
    assert_close(O.P, O.Mb + O.E_phi @ O.tau_bar @ O.P @ O.E_phi.T, SAME_MATH, "Riccati P")
    A = np.diag(model.dof_armature)
    assert_close(O.D, O.H @ O.P @ O.H.T + A, SAME_MATH, "D = H P H* + A")
    assert_close(O.G, O.P @ O.H.T @ np.linalg.inv(O.D), ALGORITHMS, "G = P H* D^-1")
    assert_close(O.tau_bar, np.eye(n6) - O.G @ O.H, SAME_MATH, "tau_bar = I - G H")
    assert_close(O.H @ O.G, np.eye(model.nv) - A @ np.linalg.inv(O.D), ALGORITHMS, "H G = I - A D^-1")
    if not A.any():
        assert_close(O.tau_bar @ O.tau_bar, O.tau_bar, ALGORITHMS, "tau_bar is a projector")


def test_newton_euler_factorization_equals_crba(case):
    model, q, O = case
    M = sd.crba(model, model.data(), q)
    A = np.diag(model.dof_armature)
    assert_close(O.H @ O.phi @ O.Mb @ O.phi.T @ O.H.T + A, M, ALGORITHMS, "H phi Mb phi* H* + diag(armature) vs crba")
    assert_close(O.mass_matrix(), M, ALGORITHMS, "SOAOperators.mass_matrix vs crba")


def test_innovations_factorization_equals_crba(case):
    model, q, O = case
    M = sd.crba(model, model.data(), q)
    L = np.eye(model.nv) + O.H @ O.phi @ O.K
    assert_close(L @ O.D @ L.T, M, ALGORITHMS, "[I + H phi K] D [I + H phi K]* vs crba")
    assert_close(O.mass_matrix_innovations(), M, ALGORITHMS, "SOAOperators.mass_matrix_innovations vs crba")
    # [I + H phi K] is block triangular with identity diagonal blocks: the factorization is an LDL^T
    for i in range(model.nb):
        d = O.body_dofs[i]
        assert_close(L[d, d], np.eye(d.stop - d.start), 0.0, f"diagonal block {i} of I + H phi K")


def test_inverse_of_innovations_factor(case):
    model, q, O = case
    nv = model.nv
    L = np.eye(nv) + O.H @ O.phi @ O.K
    Linv = np.eye(nv) - O.H @ O.psi @ O.K
    assert_close(Linv @ L, np.eye(nv), ALGORITHMS, "[I - H psi K][I + H phi K]")
    assert_close(L @ Linv, np.eye(nv), ALGORITHMS, "[I + H phi K][I - H psi K]")
    assert_close(O.inverse_factor(), np.linalg.inv(L), ALGORITHMS, "[I + H phi K]^-1 vs numpy inverse")


def test_mass_matrix_inverse_factorization_equals_minv(case):
    model, q, O = case
    data = model.data()
    Minv = sd.minv(model, data, q).copy()
    Linv = np.eye(model.nv) - O.H @ O.psi @ O.K
    assert_close(Linv.T @ np.linalg.inv(O.D) @ Linv, Minv, ALGORITHMS, "[I - H psi K]* D^-1 [I - H psi K] vs minv")
    assert_close(O.mass_matrix_inverse(), Minv, ALGORITHMS, "SOAOperators.mass_matrix_inverse vs minv")
    assert_close(O.mass_matrix_inverse() @ sd.crba(model, data, q), np.eye(model.nv), ALGORITHMS,
                 "operator M^-1 times crba")


def test_eq63_identity(case):
    model, q, O = case
    lhs = (np.eye(model.nv) - O.H @ O.psi @ O.K) @ O.H @ O.phi
    assert_close(lhs, O.H @ O.psi, ALGORITHMS, "(I - H psi K) H phi vs H psi (Jain 2014 Eq. 63)")


def test_articulated_factors_match_aba(case):
    """D (and P, G) against the articulated-body factors left in Data by the kernel ABA."""
    model, q, O = case
    data = model.data()
    rng = np.random.default_rng(3)
    sd.aba(model, data, q, rng.normal(size=model.nv), rng.normal(size=model.nv))
    blk = SOAOperators.block
    for i in range(model.nb):
        d = O.body_dofs[i]
        n = d.stop - d.start
        assert_close(data.D[i, :n, :n], O.D[d, d], SAME_MATH, f"data.D block of body {i} vs H P H*")
        assert_close(data.Dinv[i, :n, :n], np.linalg.inv(O.D[d, d]), ALGORITHMS, f"data.Dinv block of body {i}")
        assert_close(data.IA[i], O.P[blk(i), blk(i)], SAME_MATH, f"data.IA of body {i} vs P")
        assert_close(data.U[d].T, O.P[blk(i), blk(i)] @ O.H[d, blk(i)].T, SAME_MATH, f"data.U of body {i} vs P H*")
        assert_close(data.U[d].T @ data.Dinv[i, :n, :n], O.G[blk(i), d], ALGORITHMS, f"U D^-1 of body {i} vs G")


def test_velocities_and_jacobians(case):
    """V = phi* H* qd (Jain 2014 Eq. 60) against fk, and the block rows of phi* H* against the body
    Jacobians of frame_jacobian."""
    model, q, O = case
    data = model.data()
    qd = np.random.default_rng(4).normal(size=model.nv)
    sd.fk(model, data, q, qd)
    V = (O.phi.T @ O.H.T @ qd).reshape(model.nb, 6)
    assert_close(V, data.v, ALGORITHMS, "phi* H* qd vs fk body velocities")
    Jall = O.body_jacobians()
    for i in range(model.nb):
        Jb = sd.frame_jacobian(model, data, q, model.body_names[i], "local")
        assert_close(Jall[SOAOperators.block(i)], Jb, ALGORITHMS, f"(phi* H*) block row {i} vs body Jacobian")


def test_operational_space_compliance_omega(case):
    """J_i M^-1 J_j* = Omega(i, j) for body-origin frames (Jain 2014 Eq. 62-64, pick-off B = e_i)."""
    model, q, O = case
    data = model.data()
    Minv = sd.minv(model, data, q).copy()
    blk = SOAOperators.block
    Jb = [sd.frame_jacobian(model, data, q, model.body_names[i], "local").copy() for i in range(model.nb)]
    for i in range(model.nb):
        for j in range(model.nb):
            assert_close(Jb[i] @ Minv @ Jb[j].T, O.Omega[blk(i), blk(j)], ALGORITHMS,
                         f"J_{i} M^-1 J_{j}* vs Omega({i}, {j})")


def test_forward_dynamics_factorized(case):
    """qdd = [I - H psi K]* D^-1 [I - H psi K] (T - C) (Jain et al. 2012, Eq. 8) against aba."""
    model, q, O = case
    data = model.data()
    rng = np.random.default_rng(5)
    qd, tau = rng.normal(size=model.nv), rng.normal(size=model.nv)
    C = sd.rnea(model, data, q, qd, np.zeros(model.nv)).copy()
    Linv = O.inverse_factor()
    qdd = Linv.T @ np.linalg.solve(O.D, Linv @ (tau - C))
    assert_close(sd.aba(model, data, q, qd, tau), qdd, ALGORITHMS, "factorized forward dynamics vs aba")


def test_operators_reject_bad_q():
    model = model_of(*CASES[0])
    q = model.neutral_q()
    q[0] = np.nan
    with pytest.raises(ValueError, match="q"):
        operators(model, q)
    with pytest.raises(ValueError, match="q"):
        operators(model, np.zeros(model.nq + 1))
