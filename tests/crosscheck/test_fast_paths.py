"""The joint fast paths of the tree kernels (docs/architecture.md, Kernels) against the dense references of
``tests/reference/dense.py``: a branched tree on a free base whose revolute and prismatic joints turn about
and slide along the coordinate axes (the fast paths), mixed with joints about other axes (the generic
path), with a spherical joint (the free and spherical joints' transforms from their quaternions are a fast
path of the body transforms too), and the frame Jacobian, which moves only the frame's body and its ancestors, called for frames on
different branches in turn."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.spatial.transform import Rotation

import soadyn as sd
from soadyn._kernels.joints import principal_axis
from tests.reference import dense
from tests.support import ALGORITHMS, assert_close

AXES = np.eye(3)


def fast_path_model(seed: int) -> sd.Model:
    """A free base with three branches; revolute and prismatic joints about ``e_x, e_y, e_z`` and, on every
    third body of a branch, a joint about a negative or oblique axis; a fourth branch of a spherical joint
    and a revolute joint about ``e_z``."""
    rng = np.random.default_rng(seed)
    J = sd.joints

    def place():
        return sd.Transform.from_pose(Rotation.random(random_state=rng).as_matrix(), rng.uniform(-0.4, 0.4, 3))

    def inertia():
        A = rng.normal(size=(3, 3))
        return sd.Inertia(rng.uniform(0.5, 2.0), rng.uniform(-0.2, 0.2, 3), 0.05 * (A @ A.T + 0.5 * np.eye(3)))

    b = sd.ModelBuilder(f"fast_paths{seed}", gravity=(0.0, 0.0, -9.81))
    b.add_body("base", "world", J.Free(), place(), inertia())
    for branch in range(3):
        parent = "base"
        for k in range(5):
            name = f"b{branch}_{k}"
            axis = AXES[(branch + k) % 3]
            if k == 2:
                axis = -axis if branch else rng.normal(size=3)
            joint = J.Prismatic(axis) if (branch + k) % 2 else J.Revolute(axis)
            b.add_body(name, parent, joint, place(), inertia())
            b.add_frame(f"tip_{name}", name, place())
            parent = name
    b.add_body("s0", "base", J.Spherical(), place(), inertia())
    b.add_body("s1", "s0", J.Revolute(AXES[2]), place(), inertia())
    for name in ("s0", "s1"):
        b.add_frame(f"tip_{name}", name, place())
    return b.finalize()


@pytest.fixture(scope="module")
def model():
    return fast_path_model(3)


def test_the_model_takes_every_fast_path_and_the_generic_one(model):
    codes = [principal_axis(int(model.jnt_type[i]), *map(float, model.jnt_axis[i])) for i in range(model.nb)]
    assert set(codes) == {-1, 0, 1, 2, 3, 4, 5}, codes
    assert {sd.joints.FREE, sd.joints.SPHERICAL} <= set(model.jnt_type.tolist())
    for i, m in enumerate(codes):
        if m >= 0:  # the code names the motion subspace exactly
            assert np.array_equal(model.dof_S[model.jnt_vadr[i]], np.eye(6)[m]), model.jnt_names[i]


def test_dynamics_match_the_dense_references(model, rng):
    data = model.data()
    for _ in range(3):
        q = model.random_q(rng)
        qd, qdd, tau = rng.normal(size=(3, model.nv))
        assert_close(sd.rnea(model, data, q, qd, qdd), dense.rnea(model, q, qd, qdd), ALGORITHMS, "rnea vs dense")
        M = dense.crba(model, q)
        assert_close(sd.crba(model, data, q), M, ALGORITHMS, "crba vs dense")
        assert_close(sd.aba(model, data, q, qd, tau), dense.forward_dynamics(model, q, qd, tau), ALGORITHMS,
                     "aba vs dense")
        assert_close(sd.minv(model, data, q) @ M, np.eye(model.nv), ALGORITHMS, "minv @ dense M")
        Q = np.array([model.random_q(rng) for _ in range(4)])
        QD, X = rng.normal(size=(2, 4, model.nv))
        ref = np.array([dense.forward_dynamics(model, Q[s], QD[s], X[s]) for s in range(4)])
        assert_close(sd.aba_batch(model, Q, QD, X), ref, ALGORITHMS, "aba_batch vs dense")
        ref = np.array([dense.rnea(model, Q[s], QD[s], X[s]) for s in range(4)])
        assert_close(sd.rnea_batch(model, Q, QD, X), ref, ALGORITHMS, "rnea_batch vs dense")


def test_frame_jacobians_on_alternating_branches_match_the_dense_reference(model, rng):
    data = model.data()
    frames = [f for f in range(model.nf) if model.frame_names[f].startswith("tip_")]
    for _ in range(2):
        q = model.random_q(rng)
        for f in frames[::-1] + frames:  # each call after one on another branch
            for ref in ("local", "world_aligned"):
                assert_close(sd.frame_jacobian(model, data, q, f, ref), dense.frame_jacobian(model, q, f, ref),
                             ALGORITHMS, f"jacobian of {model.frame_names[f]} ({ref})")
            assert_close(sd.frame_pose(model, data, q, f), dense.frame_pose(model, q, f), ALGORITHMS,
                         f"pose of {model.frame_names[f]}")
