"""Algorithm against algorithm over random ``auto_tree`` models with every joint type (docs/architecture.md, Tests):
RNEA/ABA/CRBA/M^-1 consistency, kernels against the dense references of ``tests/reference/dense.py``,
batches against loops, frame Jacobians, velocities and bias accelerations against finite differences,
external forces against Jacobian transposes, energies against the mass matrix and gravity torques."""

from __future__ import annotations

import functools

import numpy as np
import pytest
from scipy.spatial.transform import Rotation

import soadyn as sd
from soadyn.models import ALL_JOINTS, auto_tree
from tests.reference import dense
from tests.support import ALGORITHMS, SAME_MATH, assert_close

FD_EPS = 1e-5
"""Step of the central differences below (along ``integrate``, so it stays on the joint manifolds)."""
FD_TOL = 1e-7
"""Central differences with step 1e-5: truncation error ~ eps^2 |third derivative| ~ 1e-10 x (model
scale), rounding ~ 1e-16 / eps ~ 1e-11; 1e-7 leaves a margin of ~100 over the largest error observed on
these models (~1e-9) while staying far below any real discrepancy (a wrong column or sign is O(1))."""
FD2_TOL = 1e-5
"""Second differences of positions with step 1e-4: rounding ~ 1e-16 / h^2 = 1e-8 per unit of position
(~1e-7 observed), truncation ~ h^2 = 1e-8; 1e-5 leaves a margin of ~100."""

# (nb, branching, seed): chains (1) and branched trees (1.5, 2, 3), all joint types (ALL_JOINTS cycles
# through the nine types, so nb >= 9 contains each, FIXED merged into its parent); nb = 0: a forest
CASES = [(9, 1.0, 0), (10, 1.0, 1), (10, 1.5, 2), (11, 2.0, 3), (12, 3.0, 4), (12, 2.0, 5), (0, 0.0, 0),
         (0, 0.0, 1)]
ARMATURE_SEED = 1
"""The forest of this seed carries a random joint armature on every dof (``ModelBuilder.set_armature``)."""
IDS = [f"nb{nb}-bf{bf:g}-s{s}" if nb else f"forest-s{s}" for nb, bf, s in CASES]


def forest_model(seed: int) -> sd.Model:
    """Three trees on the world (FREE, UNIVERSAL with non-perpendicular axes, PLANAR on a body welded to
    the world), with every joint type below them, random gravity, a world frame and frames on the tips."""
    rng = np.random.default_rng(seed)

    def axis():
        a = rng.normal(size=3)
        return a / np.linalg.norm(a)

    def place():
        return sd.Transform.from_pose(Rotation.random(random_state=rng).as_matrix(), rng.uniform(-0.5, 0.5, 3))

    def inertia():
        A = rng.normal(size=(3, 3))
        return sd.Inertia(rng.uniform(0.5, 2.0), rng.uniform(-0.2, 0.2, 3), 0.05 * (A @ A.T + 0.5 * np.eye(3)))

    J = sd.joints
    b = sd.ModelBuilder(f"forest{seed}", gravity=rng.normal(size=3) * 5.0)
    b.add_body("r0", "world", J.Free(), place(), inertia())
    b.add_body("r1", "world", J.Universal(axis(), axis()), place(), inertia())
    b.add_body("fixed_base", "world", J.Fixed(), place(), inertia())
    b.add_frame("world_point", "fixed_base", place())
    b.add_body("r2", "fixed_base", J.Planar(axis()), place(), inertia())
    b.add_body("c0", "r0", J.Helical(axis(), pitch=-0.3), place(), inertia())
    b.add_body("c1", "r0", J.Spherical(), place(), inertia())
    b.add_body("c2", "r1", J.Universal(axis(), axis()), place(), inertia())
    b.add_body("g0", "c1", J.Cylindrical(axis()), place(), inertia())
    b.add_body("g1", "c2", J.Prismatic(axis()), place(), inertia())
    b.add_body("g2", "r2", J.Free(), place(), inertia())
    b.add_body("g3", "c1", J.Revolute(axis()), place(), inertia())
    b.add_body("g4", "g3", J.Fixed(), place(), inertia())
    for n in ("c0", "g0", "g1", "g2", "g4", "r1"):
        b.add_frame(f"tip_{n}", n, place())
    if seed == ARMATURE_SEED:
        for name, joint in (("r0", 6), ("r1", 2), ("r2", 3), ("c0", 1), ("c1", 3), ("c2", 2), ("g0", 2), ("g1", 1),
                            ("g2", 6), ("g3", 1)):
            b.set_armature(f"{name}_joint", rng.uniform(0.05, 0.5, joint))
    return b.finalize()


@functools.lru_cache(maxsize=None)
def model_of(nb: int, bf: float, seed: int) -> sd.Model:
    if nb == 0:
        return forest_model(seed)
    return auto_tree(nb, bf, seed=seed, joint_mix=ALL_JOINTS)


@pytest.fixture(params=CASES, ids=IDS)
def case(request):
    nb, bf, seed = request.param
    model = model_of(nb, bf, seed)
    rng = np.random.default_rng(1000 + seed)
    q = model.random_q(rng)
    qd = rng.normal(size=model.nv)
    qdd = rng.normal(size=model.nv)
    tau = rng.normal(size=model.nv) * 5.0
    fext = rng.normal(size=(model.nb, 6))
    return model, model.data(), q, qd, qdd, tau, fext


def test_models_exercise_every_joint_type():
    seen = set()
    for c in CASES:
        seen |= set(int(t) for t in model_of(*c).jnt_type)
    assert seen == set(ALL_JOINTS) - {sd.joints.FIXED}
    # FIXED children were merged into their parents (or the world) and live on as frames
    for c in CASES:
        m = model_of(*c)
        assert any(n.startswith("fixed") for n in m.frame_names), c
        assert not any(n.startswith("fixed") for n in m.body_names), c
    assert np.all(forest_model(ARMATURE_SEED).dof_armature > 0.0)


# ------------------------------------------------------------------------------- algorithm vs algorithm
def test_rnea_of_aba_is_identity(case):
    model, data, q, qd, qdd, tau, fext = case
    for f in (None, fext):
        a = sd.aba(model, data, q, qd, tau, f).copy()
        assert_close(sd.rnea(model, data, q, qd, a, f), tau, ALGORITHMS, "rnea(aba(tau))")
        t = sd.rnea(model, data, q, qd, qdd, f).copy()
        assert_close(sd.aba(model, data, q, qd, t, f), qdd, ALGORITHMS, "aba(rnea(qdd))")


def test_crba_columns_are_rnea_differences(case):
    model, data, q, qd, *_ = case
    M = sd.crba(model, data, q).copy()
    assert_close(M, M.T, SAME_MATH, "crba symmetry")
    base = sd.rnea(model, data, q, qd, np.zeros(model.nv)).copy()
    cols = np.empty_like(M)
    for k in range(model.nv):
        cols[:, k] = sd.rnea(model, data, q, qd, np.eye(model.nv)[k]) - base
    assert_close(cols, M, ALGORITHMS, "rnea(e_k) - rnea(0) vs crba")


def test_minv_is_inverse_of_crba(case):
    model, data, q, *_ = case
    M = sd.crba(model, data, q).copy()
    Minv = sd.minv(model, data, q).copy()
    assert_close(Minv, Minv.T, SAME_MATH, "minv symmetry")
    assert_close(Minv @ M, np.eye(model.nv), ALGORITHMS, "minv @ crba")
    assert_close(M @ Minv, np.eye(model.nv), ALGORITHMS, "crba @ minv")


def test_minv_columns_are_aba_of_unit_torques(case):
    model, data, q, qd, *_ = case
    Minv = sd.minv(model, data, q).copy()
    base = sd.aba(model, data, q, qd, np.zeros(model.nv)).copy()
    for k in range(model.nv):
        col = sd.aba(model, data, q, qd, np.eye(model.nv)[k]) - base
        assert_close(col, Minv[:, k], ALGORITHMS, f"aba(e_{k}) - aba(0) vs minv column {k}")


# ------------------------------------------------------------------------------- kernels vs dense
def test_mass_matrix_vs_dense(case):
    model, data, q, *_ = case
    M = sd.crba(model, data, q).copy()
    assert_close(M, dense.crba(model, q), ALGORITHMS, "crba vs dense CRBA")
    assert_close(M, dense.mass_matrix(model, q), ALGORITHMS, "crba vs sum J^T I J")


def test_rnea_vs_dense(case):
    model, data, q, qd, qdd, tau, fext = case
    assert_close(sd.rnea(model, data, q, qd, qdd), dense.rnea(model, q, qd, qdd), ALGORITHMS, "rnea vs dense")
    assert_close(sd.rnea(model, data, q, qd, qdd, fext), dense.rnea(model, q, qd, qdd, fext), ALGORITHMS,
                 "rnea with f_ext vs dense")


def test_aba_vs_dense_solve(case):
    model, data, q, qd, qdd, tau, fext = case
    assert_close(sd.aba(model, data, q, qd, tau, fext), dense.forward_dynamics(model, q, qd, tau, fext),
                 ALGORITHMS, "aba vs solve(M, tau - C)")


def test_kinematics_vs_dense(case):
    model, data, q, qd, *_ = case
    oR, op = sd.fk(model, data, q, qd)
    R, p = dense.world_poses(model, q)
    assert_close(oR, R, SAME_MATH, "body world orientations")
    assert_close(op, p, SAME_MATH, "body world positions")
    assert_close(data.v, dense.body_velocities(model, q, qd), ALGORITHMS, "body velocities")
    for i in range(model.nb):
        assert_close(data.S[dense.dofs(model, i)].T, dense.joint_subspace(model, i, q), SAME_MATH,
                     f"S of joint {i} ({sd.joints.JOINT_TYPE_NAMES[model.jnt_type[i]]})")


def test_frame_poses_and_jacobians_vs_dense(case):
    model, data, q, *_ = case
    for f in range(model.nf):
        name = model.frame_names[f]
        assert_close(sd.frame_pose(model, data, q, name), dense.frame_pose(model, q, f), SAME_MATH,
                     f"pose of frame {name}")
        for ref in ("local", "world_aligned"):
            assert_close(sd.frame_jacobian(model, data, q, name, ref), dense.frame_jacobian(model, q, f, ref),
                         ALGORITHMS, f"{ref} Jacobian of frame {name}")


# ------------------------------------------------------------------------------------------ batches
def test_batches_equal_loops(case):
    model, data, *_ = case
    rng = np.random.default_rng(7)
    for K in (1, 5, 11):  # fewer, equal and more states than chunks; uneven chunk sizes
        Q = np.array([model.random_q(rng) for _ in range(K)])
        QD, X = rng.normal(size=(K, model.nv)), rng.normal(size=(K, model.nv))
        QDD = sd.aba_batch(model, Q, QD, X)
        TAU = sd.rnea_batch(model, Q, QD, X)
        assert QDD.shape == TAU.shape == (K, model.nv)
        for s in range(K):
            assert_close(QDD[s], sd.aba(model, data, Q[s], QD[s], X[s]), SAME_MATH, f"aba_batch state {s}/{K}")
            assert_close(TAU[s], sd.rnea(model, data, Q[s], QD[s], X[s]), SAME_MATH, f"rnea_batch state {s}/{K}")
        # list input and a Fortran-ordered array give the same answer
        assert_close(sd.aba_batch(model, Q.tolist(), np.asfortranarray(QD), X), QDD, 0.0, "aba_batch input layout")
    assert sd.aba_batch(model, np.zeros((0, model.nq)), np.zeros((0, model.nv)), np.zeros((0, model.nv))).shape == \
        (0, model.nv)


# ------------------------------------------------------------------------ frames vs finite differences
def _rot_log_vee(A) -> np.ndarray:
    """The axial vector of the skew part of ``A``."""
    W = 0.5 * (A - A.T)
    return np.array([W[2, 1], W[0, 2], W[1, 0]])


def _frames_to_check(model):
    # every body's tip frame, the merged fixed bodies' points, a world frame if any
    return [f for f, n in enumerate(model.frame_names) if n.startswith(("tip", "fixed", "g4"))
            or model.frame_body[f] < 0]


def test_frame_jacobian_vs_finite_differences(case):
    model, data, q, *_ = case
    for f in _frames_to_check(model):
        name = model.frame_names[f]
        T0 = sd.frame_pose(model, data, q, f)
        R0 = T0[:3, :3]
        fd_local = np.zeros((6, model.nv))
        fd_world = np.zeros((6, model.nv))
        for k in range(model.nv):
            e = np.zeros(model.nv)
            e[k] = FD_EPS
            Tp = sd.frame_pose(model, data, sd.integrate(model, q, e), f)
            Tm = sd.frame_pose(model, data, sd.integrate(model, q, -e), f)
            dR = (Tp[:3, :3] - Tm[:3, :3]) / (2 * FD_EPS)
            dp = (Tp[:3, 3] - Tm[:3, 3]) / (2 * FD_EPS)
            fd_local[:, k] = np.r_[_rot_log_vee(R0.T @ dR), R0.T @ dp]
            fd_world[:, k] = np.r_[_rot_log_vee(dR @ R0.T), dp]
        assert_close(sd.frame_jacobian(model, data, q, f, "local"), fd_local, FD_TOL,
                     f"local Jacobian of {name} vs finite differences of its pose")
        assert_close(sd.frame_jacobian(model, data, q, f, "world_aligned"), fd_world, FD_TOL,
                     f"world-aligned Jacobian of {name} vs finite differences of its pose")


def test_frame_velocity_is_jacobian_times_qd(case):
    model, data, q, qd, *_ = case
    for f in _frames_to_check(model):
        name = model.frame_names[f]
        for ref in ("local", "world_aligned"):
            Jq = sd.frame_jacobian(model, data, q, f, ref) @ qd
            assert_close(sd.frame_velocity(model, data, q, qd, f, ref), Jq, ALGORITHMS,
                         f"{ref} velocity of {name} vs J qd")


def test_frame_bias_acceleration_vs_finite_differences(case):
    """Along ``q(t) = integrate(q0, qd t)`` the velocity ``qd`` is constant (every joint's integrate is
    a one-parameter subgroup of its configuration manifold), so ``d/dt [J(q(t)) qd] = Jdot qd``: the
    spatial acceleration in frame axes (``local``) or the classical ``[wdot; pddot]`` (world aligned)."""
    model, data, q, qd, *_ = case
    qp = sd.integrate(model, q, qd, FD_EPS)
    qm = sd.integrate(model, q, qd, -FD_EPS)
    for f in _frames_to_check(model):
        name = model.frame_names[f]
        for ref in ("local", "world_aligned"):
            fd = (sd.frame_jacobian(model, data, qp, f, ref) @ qd
                  - sd.frame_jacobian(model, data, qm, f, ref) @ qd) / (2 * FD_EPS)
            assert_close(sd.frame_bias_acceleration(model, data, q, qd, f, ref), fd, FD_TOL,
                         f"{ref} bias acceleration of {name} vs d/dt (J qd)")


def test_world_aligned_bias_is_classical_acceleration_of_the_origin(case):
    """Second-order check on positions alone: ``pddot = (p(+h) - 2 p(0) + p(-h)) / h^2`` along the same
    constant-velocity path equals the linear part of the world-aligned bias acceleration."""
    model, data, q, qd, *_ = case
    h = 1e-4
    qp, qm = sd.integrate(model, q, qd, h), sd.integrate(model, q, qd, -h)
    for f in _frames_to_check(model)[:4]:
        p0 = sd.frame_pose(model, data, q, f)[:3, 3]
        pp = sd.frame_pose(model, data, qp, f)[:3, 3]
        pm = sd.frame_pose(model, data, qm, f)[:3, 3]
        acc = (pp - 2 * p0 + pm) / h**2
        assert_close(sd.frame_bias_acceleration(model, data, q, qd, f, "world_aligned")[3:], acc, FD2_TOL,
                     f"classical acceleration of {model.frame_names[f]} vs second difference of its position")


# ---------------------------------------------------------------------------------------- external forces
def test_external_forces_enter_as_jacobian_transposes(case):
    model, data, q, qd, qdd, tau, fext = case
    tau0 = sd.rnea(model, data, q, qd, qdd).copy()
    expected = tau0.copy()
    for i in range(model.nb):
        Jb = sd.frame_jacobian(model, data, q, model.body_names[i], "local")
        expected -= Jb.T @ fext[i]
    assert_close(sd.rnea(model, data, q, qd, qdd, fext), expected, ALGORITHMS, "rnea(f_ext) vs rnea - sum J^T f")
    # the dict form names bodies
    i = model.nb - 1
    fd = {model.body_names[i]: fext[i]}
    Jb = sd.frame_jacobian(model, data, q, model.body_names[i], "local").copy()
    assert_close(sd.rnea(model, data, q, qd, qdd, fd), tau0 - Jb.T @ fext[i], ALGORITHMS,
                 "rnea(f_ext dict) vs rnea - J^T f")
    # forward dynamics: qdd(f) - qdd(0) = M^-1 sum J^T f
    a0 = sd.aba(model, data, q, qd, tau).copy()
    a1 = sd.aba(model, data, q, qd, tau, fext).copy()
    Minv = sd.minv(model, data, q).copy()
    assert_close(a1 - a0, Minv @ (tau0 - expected), ALGORITHMS, "aba(f_ext) - aba(0) vs M^-1 sum J^T f")


# ----------------------------------------------------------------------------------------------- energy
def test_energies(case):
    model, data, q, qd, *_ = case
    M = sd.crba(model, data, q).copy()
    T = dense.kinetic_energy(model, q, qd)
    assert_close(0.5 * qd @ M @ qd, T, ALGORITHMS, "1/2 qd^T M qd vs sum 1/2 v^T I v")
    # gravity torques are the gradient of the potential energy along integrate
    g = sd.rnea(model, data, q, np.zeros(model.nv), np.zeros(model.nv)).copy()
    fd = np.empty(model.nv)
    for k in range(model.nv):
        e = np.zeros(model.nv)
        e[k] = FD_EPS
        fd[k] = (dense.potential_energy(model, sd.integrate(model, q, e))
                 - dense.potential_energy(model, sd.integrate(model, q, -e))) / (2 * FD_EPS)
    assert_close(g, fd, FD_TOL, "gravity torques rnea(q, 0, 0) vs dU/dq along integrate",
                 scale=max(1.0, abs(dense.potential_energy(model, q))))


# ------------------------------------------------------------------------------------ the code under test
def test_kernels_are_cached_under_the_kernel_source_hash():
    """The cross-checks above are only meaningful if the kernels run their current sources. numba's own
    cache checks only a kernel's own file, so a cached ``tree.crba`` keeps an old inlined helper from
    ``_kernels/joints.py`` after that file changes; docs/architecture.md (Kernels) therefore keys the test
    cache by a hash of ``_kernels/`` (``configure_cache`` in ``tests/conftest.py``). The dispatchers must actually cache
    there, not in ``__pycache__`` next to the sources."""
    import os

    from soadyn._kernels import tree

    folder = os.environ.get("NUMBA_CACHE_DIR")
    assert folder, "NUMBA_CACHE_DIR is not set"
    path = os.path.abspath(tree.crba._cache._cache_path)
    assert path.startswith(os.path.abspath(folder)), (
        f"tree.crba caches in {path}, not under NUMBA_CACHE_DIR={folder}: the cache locator was chosen when the "
        "kernels were decorated, before configure_cache() set NUMBA_CACHE_DIR, so edited helpers in other "
        "kernel files are not recompiled")
