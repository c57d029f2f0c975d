"""ModelBuilder.set_armature: the values land on the joint's dofs of Model.dof_armature, bad input is
refused with the cause, and the armature keeps a massless joint's mass matrix regular; models that cannot
carry it (fully augmented, constraint embedding) refuse it instead of dropping it."""

import numpy as np
import pytest

import soadyn as sd
from soadyn.augmented import fully_augmented
from soadyn import joints as J
from soadyn.model import ModelError
from tests.support import ALGORITHMS, SAME_MATH, assert_close


def _arm(armature=None):
    b = sd.ModelBuilder("arm")
    b.add_body("base", "world", J.Free(), None, sd.Inertia(2.0, (0, 0, 0), np.eye(3) * 0.1), joint_name="root")
    b.add_body("link", "base", J.Revolute((0, 0, 1)), None, sd.Inertia(1.0, (0.3, 0, 0), np.eye(3) * 0.01),
               joint_name="hinge")
    b.add_body("ball", "link", J.Spherical(), sd.Transform.from_pose(None, (0.6, 0, 0)),
               sd.Inertia(0.5, (0.1, 0, 0), np.eye(3) * 0.01), joint_name="wrist")
    for name, value in (armature or {}).items():
        b.set_armature(name, value)
    return b


def test_values_land_on_the_joint_dofs():
    model = _arm({"hinge": 0.2, "wrist": [0.1, 0.2, 0.3], "root": np.arange(6.0)}).finalize()
    assert model.dof_armature.shape == (model.nv,) and not model.dof_armature.flags.writeable
    assert np.array_equal(model.dof_armature, np.r_[np.arange(6.0), 0.2, 0.1, 0.2, 0.3])
    assert np.array_equal(_arm().finalize().dof_armature, np.zeros(10))
    # exactly the diagonal of M changes
    q = model.neutral_q()
    bare = _arm().finalize()
    M0 = sd.crba(bare, bare.data(), q).copy()
    assert_close(sd.crba(model, model.data(), q) - M0, np.diag(model.dof_armature), SAME_MATH, "M - M_bare")


def test_bad_armature_is_refused():
    for bad in (-0.1, np.nan, [], "x"):
        with pytest.raises(ValueError, match="armature"):
            _arm().set_armature("hinge", bad)
    with pytest.raises(ModelError, match="joint 'wrist' has 3 dofs, got 2"):
        _arm({"wrist": [0.1, 0.2]}).finalize()
    with pytest.raises(ModelError, match="'nope' is not a joint"):
        _arm({"nope": 0.1}).finalize()


def test_armature_regularizes_a_massless_joint():
    b = sd.ModelBuilder("rotor")
    b.add_body("wheel", "world", J.Revolute((0, 0, 1)), None, sd.Inertia(1.0, (0, 0, 0), np.zeros((3, 3))),
               joint_name="spin")  # a point mass on its own axis: M = 0 without armature
    with pytest.warns(UserWarning, match="singular"):
        b.finalize()
    b.set_armature("spin", 0.5)
    model = b.finalize()
    qdd = sd.aba(model, model.data(), model.neutral_q(), [0.0], [1.0])
    assert qdd[0] == pytest.approx(2.0, rel=1e-12)


def test_models_that_cannot_carry_armature_refuse_it():
    model = _arm({"hinge": 0.2}).finalize()
    with pytest.raises(ModelError, match="armature"):
        fully_augmented(model)


def test_kinetic_energy_counts_the_rotors():
    model = _arm({"hinge": 0.2, "wrist": [0.1, 0.2, 0.3], "root": np.arange(6.0)}).finalize()
    rng = np.random.default_rng(4)
    q, qd = model.random_q(rng), rng.normal(size=model.nv)
    kinetic, _ = sd.energy(model, model.data(), q, qd)
    M = sd.crba(model, model.data(), q)
    assert_close(kinetic, 0.5 * qd @ M @ qd, ALGORITHMS, "kinetic energy vs 1/2 qd^T M qd")
