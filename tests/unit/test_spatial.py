"""Spatial algebra of :mod:`soadyn.spatial` against explicit 6x6 matrices (Featherstone, RBDA ch. 2)."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.spatial.transform import Rotation

from soadyn.spatial import Inertia, Transform, crf, crm, skew
from tests.reference import dense
from tests.support import SAME_MATH, assert_close


def rand_transform(rng) -> Transform:
    return Transform(Rotation.random(random_state=rng).as_matrix(), rng.uniform(-2, 2, 3))


def rand_inertia(rng) -> Inertia:
    A = rng.normal(size=(3, 3))
    return Inertia(rng.uniform(0.1, 3.0), rng.uniform(-1, 1, 3), A @ A.T + 0.1 * np.eye(3))


def test_skew(rng):
    a, b = rng.normal(size=3), rng.normal(size=3)
    assert_close(skew(a) @ b, np.cross(a, b), SAME_MATH, "skew(a) b = a x b")
    assert_close(skew(a), -skew(a).T, 0.0, "skew is antisymmetric")


def test_transform_matrix_layout(rng):
    X = rand_transform(rng)
    M = X.matrix()
    assert_close(M, dense.plucker(X.E, X.r), 0.0, "Transform.matrix vs [[E, 0], [-E r~, E]]")
    # a pure translation by r moves the reference point: v_B = v_A - r x w (RBDA Eq. 2.24)
    T = Transform(np.eye(3), X.r)
    w, v = rng.normal(size=3), rng.normal(size=3)
    assert_close(T.apply_motion(np.r_[w, v]), np.r_[w, v - np.cross(X.r, w)], SAME_MATH, "translation of a twist")
    # pose accessors
    assert_close(X.rotation, X.E.T, 0.0, "rotation = E^T")
    H = X.homogeneous()
    assert_close(H[:3, :3], X.E.T, 0.0, "homogeneous rotation")
    assert_close(H[:3, 3], X.r, 0.0, "homogeneous translation")
    assert_close(Transform.from_homogeneous(H).matrix(), M, SAME_MATH, "from_homogeneous(homogeneous())")
    assert_close(Transform.from_pose(X.rotation, X.translation).matrix(), M, 0.0, "from_pose")


def test_transform_composition_and_inverse(rng):
    for _ in range(10):
        A, B = rand_transform(rng), rand_transform(rng)
        assert_close((A * B).matrix(), A.matrix() @ B.matrix(), SAME_MATH, "(A * B).matrix() = A B")
        assert_close(A.inverse().matrix(), np.linalg.inv(A.matrix()), SAME_MATH, "inverse vs numpy inverse")
        assert_close((A * A.inverse()).matrix(), np.eye(6), SAME_MATH, "A * A^-1")
        # composition of poses: homogeneous matrices multiply in the opposite order (B's frame within A's)
        assert_close((A * B).homogeneous(), B.homogeneous() @ A.homogeneous(), SAME_MATH, "pose composition")


def test_transform_apply(rng):
    for _ in range(10):
        X = rand_transform(rng)
        M = X.matrix()
        m, f = rng.normal(size=6), rng.normal(size=6)
        assert_close(X.apply_motion(m), M @ m, SAME_MATH, "apply_motion = X m")
        assert_close(X.apply_force(f), np.linalg.inv(M).T @ f, SAME_MATH, "apply_force = X^-T f")
        assert_close(X.transpose_force(f), M.T @ f, SAME_MATH, "transpose_force = X^T f")
        # power is invariant: (X^-T f) . (X m) = f . m
        assert_close(X.apply_force(f) @ X.apply_motion(m), f @ m, SAME_MATH, "power invariance")
        p = rng.normal(size=3)
        assert_close(X.transform_point(p), X.homogeneous()[:3, :3] @ p + X.homogeneous()[:3, 3], SAME_MATH,
                     "transform_point")


def test_transform_rejects_non_rotations():
    with pytest.raises(ValueError):
        Transform(2.0 * np.eye(3), np.zeros(3))
    with pytest.raises(ValueError):
        Transform(np.diag([1.0, 1.0, -1.0]), np.zeros(3))
    with pytest.raises(ValueError):
        Transform(np.eye(3), [np.nan, 0.0, 0.0])


def test_inertia_matrix(rng):
    I = rand_inertia(rng)
    c, m = I.com, I.mass
    M = I.matrix()
    assert_close(M, M.T, SAME_MATH, "spatial inertia is symmetric")
    assert np.linalg.eigvalsh(M).min() > 0
    # RBDA Eq. 2.63 as the inertia of a point set: the momentum of a rigid body with velocity [w; v] at
    # the origin is h = [Ic w + c x (m vc); m vc], with vc = v + w x c the velocity of the centre of mass
    w, v = rng.normal(size=3), rng.normal(size=3)
    vc = v + np.cross(w, c)
    h = np.r_[I.Ic @ w + np.cross(c, m * vc), m * vc]
    assert_close(M @ np.r_[w, v], h, SAME_MATH, "Inertia.matrix() [w; v] vs momentum")
    m_ref, c_ref = dense.inertia_parts(M)
    assert_close(m_ref, m, SAME_MATH, "mass from matrix")
    assert_close(c_ref, c, SAME_MATH, "com from matrix")


def test_inertia_from_matrix_round_trip(rng):
    for _ in range(5):
        I = rand_inertia(rng)
        J = Inertia.from_matrix(I.matrix())
        assert_close(J.mass, I.mass, SAME_MATH, "from_matrix mass")
        assert_close(J.com, I.com, SAME_MATH, "from_matrix com")
        assert_close(J.Ic, I.Ic, SAME_MATH, "from_matrix Ic")
    Z = Inertia.from_matrix(np.zeros((6, 6)))
    assert Z.mass == 0.0 and not Z.matrix().any()


def test_inertia_transformed(rng):
    for _ in range(5):
        I, X = rand_inertia(rng), rand_transform(rng)
        assert_close(I.transformed(X).matrix(), X.matrix().T @ I.matrix() @ X.matrix(), SAME_MATH,
                     "transformed(X) = X^T I X")
        # kinetic energy is frame-independent: v_B = X v_A
        vA = rng.normal(size=6)
        vB = X.apply_motion(vA)
        assert_close(vA @ I.transformed(X).matrix() @ vA, vB @ I.matrix() @ vB, SAME_MATH, "kinetic energy")


def test_inertia_add(rng):
    for _ in range(5):
        A, B = rand_inertia(rng), rand_inertia(rng)
        assert_close((A + B).matrix(), A.matrix() + B.matrix(), SAME_MATH, "(A + B).matrix() = A + B")
    Z = Inertia.zero()
    assert_close((A + Z).matrix(), A.matrix(), SAME_MATH, "A + 0")
    assert_close((Z + Z).matrix(), np.zeros((6, 6)), 0.0, "0 + 0")
    # a point mass plus a massless rotor keeps the rotor's rotational inertia
    rotor = Inertia(0.0, np.zeros(3), np.diag([1.0, 2.0, 3.0]))
    pm = Inertia(2.0, [1.0, 0.0, 0.0], np.zeros((3, 3)))
    assert_close((rotor + pm).matrix(), rotor.matrix() + pm.matrix(), SAME_MATH, "massless + point mass")


def test_inertia_shapes():
    I = Inertia.box(12.0, (1.0, 2.0, 3.0))
    assert_close(np.diag(I.Ic), [13.0, 10.0, 5.0], SAME_MATH, "box inertia")
    assert_close(np.diag(Inertia.sphere(5.0, 2.0).Ic), [8.0, 8.0, 8.0], SAME_MATH, "sphere inertia")
    assert_close(np.diag(Inertia.cylinder(12.0, 1.0, 2.0).Ic), [7.0, 7.0, 6.0], SAME_MATH, "cylinder inertia")
    with pytest.raises(ValueError):
        Inertia(-1.0, np.zeros(3), np.eye(3))
    with pytest.raises(ValueError):
        Inertia(1.0, np.zeros(3), -np.eye(3))


def test_cross_products(rng):
    for _ in range(10):
        v, m, f = rng.normal(size=6), rng.normal(size=6), rng.normal(size=6)
        assert_close(crm(v), dense.crm(v), 0.0, "crm layout [[w~, 0], [v~, w~]]")
        assert_close(crf(v), -crm(v).T, 0.0, "crf = -crm^T")
        assert_close(crm(v) @ v, np.zeros(6), SAME_MATH, "v x v = 0")
        # the power of v x* f against m equals -(f . (v x m)) (RBDA Eq. 2.33)
        assert_close((crf(v) @ f) @ m, -(f @ (crm(v) @ m)), SAME_MATH, "(v x* f) . m = -f . (v x m)")
        # crm is the Lie bracket: antisymmetric, and Jacobi identity
        assert_close(crm(v) @ m, -(crm(m) @ v), SAME_MATH, "v x m = -m x v")
        assert_close(crm(v) @ crm(m) - crm(m) @ crm(v), crm(crm(v) @ m), SAME_MATH, "[v x, m x] = (v x m) x")
        X = rand_transform(rng)
        Xm = X.matrix()
        assert_close(Xm @ (crm(v) @ m), crm(Xm @ v) @ (Xm @ m), SAME_MATH, "X (v x m) = (X v) x (X m)")
        assert_close(Xm @ crm(v) @ np.linalg.inv(Xm), crm(Xm @ v), SAME_MATH, "X crm(v) X^-1 = crm(X v)")
        Xf = np.linalg.inv(Xm).T
        assert_close(Xf @ (crf(v) @ f), crf(Xm @ v) @ (Xf @ f), SAME_MATH, "X* (v x* f) = (X v) x* (X* f)")
