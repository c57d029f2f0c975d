"""ModelBuilder and Model: topology checks, fixed-joint merging, depth-first ordering, configurations
and name lookups (docs/architecture.md: Conventions, Model and Data)."""

from __future__ import annotations

import numpy as np
import pytest

import soadyn as sd
import soadyn.joints as J
from soadyn.builder import ModelBuilder
from soadyn.model import ModelError
from soadyn.spatial import Inertia, Transform, quat_to_rot, rot_axis
from tests.support import ALGORITHMS, SAME_MATH, assert_close


def _rot(rng) -> np.ndarray:
    q = rng.normal(size=4)
    return quat_to_rot(q / np.linalg.norm(q))


def _inertia(rng) -> Inertia:
    A = rng.normal(size=(3, 3))
    return Inertia(rng.uniform(0.5, 2.0), rng.uniform(-0.2, 0.2, 3), A @ A.T * 0.05 + 0.01 * np.eye(3))


def _X(rng) -> Transform:
    return Transform.from_pose(_rot(rng), rng.uniform(-0.5, 0.5, 3))


# ------------------------------------------------------------------------------------ topology errors
def test_missing_parent_is_named():
    b = ModelBuilder()
    b.add_body("a", "world", J.Revolute(), inertia=Inertia.sphere(1, 0.1))
    b.add_body("b", "ghost", J.Revolute(), inertia=Inertia.sphere(1, 0.1))
    with pytest.raises(ModelError, match=r"body 'b'.*parent 'ghost'"):
        b.finalize()


def test_cycle_is_reported():
    b = ModelBuilder()
    b.add_body("root", "world", J.Revolute(), inertia=Inertia.sphere(1, 0.1))
    b.add_body("a", "b", J.Revolute(), inertia=Inertia.sphere(1, 0.1))
    b.add_body("b", "a", J.Revolute(), inertia=Inertia.sphere(1, 0.1))
    with pytest.raises(ModelError, match=r"\['a', 'b'\].*cycle"):
        b.finalize()


def test_duplicate_names():
    b = ModelBuilder()
    b.add_body("a", "world", J.Revolute(), inertia=Inertia.sphere(1, 0.1))
    with pytest.raises(ModelError, match="duplicate name 'a'"):
        b.add_body("a", "world", J.Revolute())
    with pytest.raises(ModelError, match="duplicate name 'a'"):
        b.add_frame("a", "a")
    with pytest.raises(ModelError, match="duplicate name 'world'"):
        b.add_body("world", "a", J.Revolute())
    b.add_frame("tip", "a")
    with pytest.raises(ModelError, match="duplicate name 'tip'"):
        b.add_body("tip", "a", J.Revolute())
    b.add_body("c", "a", J.Revolute(), inertia=Inertia.sphere(1, 0.1), joint_name="shared")
    b.add_body("d", "c", J.Revolute(), inertia=Inertia.sphere(1, 0.1), joint_name="shared")
    with pytest.raises(ModelError, match=r"duplicate joint names \['shared'\]"):
        b.finalize()


def test_frame_on_unknown_body():
    b = ModelBuilder()
    b.add_body("a", "world", J.Revolute(), inertia=Inertia.sphere(1, 0.1))
    b.add_frame("f", "nobody")
    with pytest.raises(ModelError, match=r"frame 'f'.*body 'nobody'"):
        b.finalize()


def test_bad_arguments():
    b = ModelBuilder()
    with pytest.raises(ValueError, match="non-empty string"):
        b.add_body("", "world", J.Revolute())
    with pytest.raises(ValueError, match=r"body 'a'.*Joint"):
        b.add_body("a", "world", "revolute")
    with pytest.raises(ValueError, match="gravity"):
        ModelBuilder(gravity=(0, 0, np.nan))


def _singular_model_works_except_forward_dynamics(b: ModelBuilder, joint: str) -> None:
    """Loads with a warning naming ``joint``; kinematics, rnea and crba work; aba and minv raise naming it."""
    with pytest.warns(UserWarning, match=f"joint {joint!r} moves a subtree without inertia"):
        model = b.finalize()
    assert sd.builder.singular_mass_joints(model) == [joint]
    data, q = model.data(), model.neutral_q()
    z = np.zeros(model.nv)
    M = sd.crba(model, data, q)
    assert np.linalg.matrix_rank(M) < model.nv, "the mass matrix is singular"
    assert np.all(np.isfinite(sd.rnea(model, data, q, z, z)))
    sd.frame_jacobian(model, data, q, model.frame_names[-1])
    for call in (lambda: sd.aba(model, data, q, z, z), lambda: sd.minv(model, data, q)):
        with pytest.raises(ValueError, match=f"joint {joint!r}.*without inertia"):
            call()


@pytest.mark.parametrize("joint", [J.Revolute((0, 1, 0)), J.Prismatic((1, 0, 0)), J.Spherical(), J.Free()])
def test_massless_leaf_loads_but_forward_dynamics_raise(joint):
    b = ModelBuilder()
    b.add_body("a", "world", J.Revolute(), inertia=Inertia.sphere(1.0, 0.1))
    b.add_body("leaf", "a", joint, Transform.from_pose(None, (0.3, 0, 0)), joint_name="leaf_joint")
    _singular_model_works_except_forward_dynamics(b, "leaf_joint")


def test_point_mass_on_revolute_axis_is_singular_but_offset_is_not():
    """A point mass on its own revolute axis has no inertia about it; off the axis it has."""
    for com, ok in (((0, 0, 0.5), False), ((0.5, 0, 0), True)):
        b = ModelBuilder()
        b.add_body("a", "world", J.Revolute((0, 0, 1)), inertia=Inertia(1.0, com, np.zeros((3, 3))),
                   joint_name="a_joint")
        if ok:
            assert sd.builder.singular_mass_joints(b.finalize()) == []
        else:
            _singular_model_works_except_forward_dynamics(b, "a_joint")


# ---------------------------------------------------------------------------------- fixed-joint merging
def _fixed_pair(seed: int):
    """(model with fixed children, the same model with the fixed children merged by hand, rng)."""
    rng = np.random.default_rng(seed)
    XA, XB, XC, XD, XG = (_X(rng) for _ in range(5))
    IA, IB, IC, ID, IG = (_inertia(rng) for _ in range(5))
    Ff, Fc = _X(rng), _X(rng)
    axis_a, axis_g = rng.normal(size=3), rng.normal(size=3)

    b = ModelBuilder("with_fixed")
    b.add_body("A", "world", J.Revolute(axis_a), XA, IA)
    b.add_body("B", "A", J.Fixed(), XB, IB)            # fixed child of A
    b.add_body("C", "B", J.Fixed(), XC, IC)            # fixed grandchild (a fixed chain)
    b.add_body("G", "C", J.Revolute(axis_g), XG, IG)   # moving body beyond the fixed chain
    b.add_body("D", "world", J.Fixed(), XD, ID)        # welded to the world: inertia leaves the model
    b.add_frame("tool", "C", Fc)
    b.add_frame("mark", "D", Ff)
    with_fixed = b.finalize()

    # by hand: X_AB, X_AC = XC XB (motion transforms compose right to left), I_A' = I_A + sum X^T I X
    XAC = Transform(XC.E @ XB.E, XB.r + XB.E.T @ XC.r)
    I6 = IA.matrix() + XB.matrix().T @ IB.matrix() @ XB.matrix() + XAC.matrix().T @ IC.matrix() @ XAC.matrix()
    XAG = Transform(XG.E @ XAC.E, XAC.r + XAC.E.T @ XG.r)
    h = ModelBuilder("merged")
    h.add_body("A", "world", J.Revolute(axis_a), XA, Inertia.from_matrix(I6))
    h.add_body("G", "A", J.Revolute(axis_g), XAG, IG)
    h.add_frame("B", "A", XB)
    h.add_frame("C", "A", XAC)
    h.add_frame("tool", "A", Transform(Fc.E @ XAC.E, XAC.r + XAC.E.T @ Fc.r))
    h.add_frame("D", "world", XD)
    h.add_frame("mark", "world", Transform(Ff.E @ XD.E, XD.r + XD.E.T @ Ff.r))
    return with_fixed, h.finalize(), rng


def test_fixed_joints_merged_like_by_hand():
    model, merged, rng = _fixed_pair(0)
    assert model.nb == 2 and model.body_names == ("A", "G") and model.jnt_type.tolist() == [J.REVOLUTE] * 2
    assert model.body_parent.tolist() == [-1, 0]
    assert_close(model.body_I, merged.body_I, SAME_MATH, "merged spatial inertias")
    assert_close(model.body_mass, merged.body_mass, SAME_MATH, "merged masses")
    assert_close(model.body_Xtree_E, merged.body_Xtree_E, SAME_MATH, "X_tree rotations")
    assert_close(model.body_Xtree_r, merged.body_Xtree_r, SAME_MATH, "X_tree translations")
    for name in ("B", "C", "tool", "D", "mark", "G"):
        f, g = model.frame_id(name), merged.frame_id(name)
        assert model.frame_body[f] == merged.frame_body[g], f"frame {name}: body"
        assert_close(model.frame_E[f], merged.frame_E[g], SAME_MATH, f"frame {name}: rotation")
        assert_close(model.frame_r[f], merged.frame_r[g], SAME_MATH, f"frame {name}: origin")
    d1, d2 = model.data(), merged.data()
    for _ in range(3):
        q, qd, qdd = model.random_q(rng), rng.normal(size=2), rng.normal(size=2)
        assert_close(sd.crba(model, d1, q), sd.crba(merged, d2, q), ALGORITHMS, "M with fixed vs merged")
        assert_close(sd.rnea(model, d1, q, qd, qdd), sd.rnea(merged, d2, q, qd, qdd), ALGORITHMS, "rnea")
        for name in ("tool", "mark", "C"):
            assert_close(sd.frame_pose(model, d1, q, name), sd.frame_pose(merged, d2, q, name), SAME_MATH,
                         f"pose of frame {name}")


def test_fixed_frames_follow_their_body():
    model, _, rng = _fixed_pair(1)
    assert model.frame_body[model.frame_id("mark")] == -1 and model.frame_body[model.frame_id("tool")] == 0
    q = model.random_q(rng)
    data = model.data()
    T_A = sd.frame_pose(model, data, q, "A")
    T_tool = sd.frame_pose(model, data, q, "tool")
    f = model.frame_id("tool")
    local = Transform(model.frame_E[f], model.frame_r[f]).homogeneous()
    assert_close(T_tool, T_A @ local, SAME_MATH, "tool pose from A's pose")
    assert_close(sd.frame_pose(model, data, model.random_q(rng), "mark"),
                 sd.frame_pose(model, data, q, "mark"), 0.0, "a world-welded frame does not move")


# ------------------------------------------------------------------------------------------- ordering
def _scrambled_tree(seed: int, n: int = 12):
    """A random tree whose bodies are added in a random order (parents may be named before they exist)."""
    rng = np.random.default_rng(seed)
    parent = [-1] + [int(rng.integers(-1, i)) for i in range(1, n)]
    kinds = [J.Revolute(rng.normal(size=3)), J.Prismatic(rng.normal(size=3)), J.Spherical(), J.Free(),
             J.Revolute(rng.normal(size=3), -0.5, 0.25), J.Fixed()]
    b = ModelBuilder(f"scrambled{seed}")
    for i in rng.permutation(n):
        joint = kinds[i % len(kinds)] if i else J.Revolute()
        b.add_body(f"b{i}", f"b{parent[i]}" if parent[i] >= 0 else "world", joint, _X(rng), _inertia(rng),
                   joint_name=f"j{i}")
    return b.finalize(), parent


@pytest.mark.parametrize("seed", range(4))
def test_depth_first_order_and_subtrees(seed):
    model, parent = _scrambled_tree(seed)
    name_parent = {f"b{i}": (f"b{p}" if p >= 0 else None) for i, p in enumerate(parent)}
    idx = {n: i for i, n in enumerate(model.body_names)}
    assert np.all(model.body_parent < np.arange(model.nb)), "parent[i] < i"

    def kept_ancestor(n):  # nearest ancestor not welded by a fixed joint
        p = name_parent[n]
        while p is not None and p not in idx:
            p = name_parent[p]
        return p

    for n, i in idx.items():
        p = kept_ancestor(n)
        assert model.body_parent[i] == (idx[p] if p else -1), f"parent of {n}"
    for i in range(model.nb):
        desc = {i}
        for k in range(i + 1, model.nb):
            j = k
            while j > i:
                j = model.body_parent[j]
            if j == i:
                desc.add(k)
        assert desc == set(range(i, model.body_subtree_end[i])), f"subtree of {model.body_names[i]}"
    assert model.jnt_vadr.tolist() == np.concatenate([[0], np.cumsum(model.jnt_nv)[:-1]]).tolist()
    assert model.jnt_qadr.tolist() == np.concatenate([[0], np.cumsum(model.jnt_nq)[:-1]]).tolist()
    assert model.dof_body.tolist() == np.repeat(np.arange(model.nb), model.jnt_nv).tolist()


def test_sizes_per_joint_type():
    b = ModelBuilder()
    joints = [J.Revolute(), J.Prismatic(), J.Helical(pitch=0.1), J.Universal(), J.Cylindrical(), J.Planar(),
              J.Spherical(), J.Free()]
    parent = "world"
    for k, j in enumerate(joints):
        parent = b.add_body(f"b{k}", parent, j, Transform.from_pose(None, (0.1, 0.2, 0.3)), Inertia.sphere(1, 0.1))
    model = b.finalize()
    assert model.jnt_nq.tolist() == [1, 1, 1, 2, 2, 3, 4, 7] and model.jnt_nv.tolist() == [1, 1, 1, 2, 2, 3, 3, 6]
    assert (model.nq, model.nv) == (21, 19)
    assert model.dof_S.shape == (19, 6)


# ------------------------------------------------------------------------------------- configurations
def _quat_slices(model):
    for i in range(model.nb):
        t = model.jnt_type[i]
        if t in (J.SPHERICAL, J.FREE):
            o = model.jnt_qadr[i] + (3 if t == J.FREE else 0)
            yield i, slice(o, o + 4)


def test_neutral_q():
    model, _ = _scrambled_tree(5)
    q = model.neutral_q()
    assert q.shape == (model.nq,)
    quats = list(_quat_slices(model))
    assert quats, "the tree should contain spherical and free joints"
    mask = np.ones(model.nq, bool)
    for _, s in quats:
        assert q[s].tolist() == [0.0, 0.0, 0.0, 1.0]
        mask[s] = False
    assert not q[mask].any()
    # at the neutral configuration every joint frame coincides with its predecessor frame
    oR, op = sd.fk(model, model.data(), q)
    for i in range(model.nb):
        X = Transform(model.body_Xtree_E[i], model.body_Xtree_r[i])
        p = model.body_parent[i]
        R0, p0 = (np.eye(3), np.zeros(3)) if p < 0 else (oR[p], op[p])
        assert_close(oR[i], R0 @ X.rotation, SAME_MATH, f"neutral orientation of {model.body_names[i]}")
        assert_close(op[i], p0 + R0 @ X.r, SAME_MATH, f"neutral position of {model.body_names[i]}")


def test_random_q_quaternions_and_limits():
    model, _ = _scrambled_tree(6, n=18)
    rng = np.random.default_rng(0)
    limited = [i for i in range(model.nb) if np.isfinite(model.jnt_lower[i])]
    assert limited, "the tree should contain limited joints"
    Q = np.array([model.random_q(rng) for _ in range(200)])
    for _, s in _quat_slices(model):
        assert_close(np.linalg.norm(Q[:, s], axis=1), np.ones(len(Q)), SAME_MATH, "quaternion norms")
    for i in range(model.nb):
        a = model.jnt_qadr[i]
        if model.jnt_type[i] == J.FREE:
            assert np.all(np.abs(Q[:, a:a + 3]) <= 1.0), "free-joint position in [-1, 1]"
        elif model.jnt_nq[i] == 1:
            lo, hi = model.jnt_lower[i], model.jnt_upper[i]
            lo, hi = (lo, hi) if np.isfinite(lo) else (-np.pi, np.pi)
            assert np.all((Q[:, a] >= lo) & (Q[:, a] <= hi)), f"joint {model.jnt_names[i]} within limits"
            assert Q[:, a].max() - Q[:, a].min() > 0.5 * (hi - lo), f"joint {model.jnt_names[i]} spread"
    assert np.array_equal(model.random_q(3), model.random_q(3)), "seeded random_q is reproducible"


# ---------------------------------------------------------------------------------------------- names
def test_name_lookups():
    model, _, _ = _fixed_pair(2)
    assert model.frame_id("tool") == model.frame_names.index("tool")
    assert model.joint_id("G_joint") == 1 and model.body_id("G") == 1
    assert model.frame_id(0) == 0 and model.joint_id(np.int64(1)) == 1
    for lookup, what in ((model.frame_id, "frame"), (model.joint_id, "joint"), (model.body_id, "body")):
        with pytest.raises(ValueError, match=f"unknown {what} 'nope'"):
            lookup("nope")
        with pytest.raises(ValueError, match="out of range"):
            lookup(99)
        with pytest.raises(ValueError, match="out of range"):
            lookup(-1)
    with pytest.raises(ValueError, match=r"similar: \['tool'\]"):
        model.frame_id("TOO")
    with pytest.raises(ValueError, match="unknown joint 'B'"):  # merged bodies are frames, not joints
        model.joint_id("B")


def test_model_is_read_only():
    model, _, _ = _fixed_pair(3)
    with pytest.raises(ValueError):
        model.body_I[0, 0, 0] = 1.0
    with pytest.raises(AttributeError):
        model.nq = 3
    assert all(a.flags.c_contiguous for a in (model.body_I, model.dof_S, model.frame_E))
    # a rotated axis is stored normalized
    b = ModelBuilder()
    b.add_body("a", "world", J.Revolute(rot_axis((1, 0, 0), 0.3) @ [0, 0, 2.0]), inertia=Inertia.sphere(1, 0.1))
    assert_close(np.linalg.norm(b.finalize().jnt_axis[0]), 1.0, SAME_MATH, "unit axis")
