"""Closed chains, algorithm against algorithm, on the mechanisms of Jain 2012 Sec. 4 (and a chain of four
bars): constraint Jacobian against finite differences of the position error, TA (Lemma 2) against the
sparse KKT solve, the constraint acceleration, the fully augmented (FA) model against the tree model
(body accelerations and multipliers), FA of random trees with every joint type against the ABA, and
the redundant four bar (least squares with TA, a clear error with KKT)."""

from __future__ import annotations

import functools

import numpy as np
import pytest

import soadyn as sd
from soadyn import joints as J
from soadyn import loops
from soadyn.augmented import fa_forces, fa_state, fully_augmented
from soadyn.models import ALL_JOINTS, auto_tree
from soadyn.models import mechanisms as mech
from tests.crosscheck.test_identities import forest_model
from tests.support import ALGORITHMS, assert_close

FD_EPS = 1e-6
"""Step of the central differences of ``phi`` (along ``integrate``)."""
FD_JACOBIAN = 1e-6
"""``G_c`` against central differences of ``phi`` at closure: truncation ~ eps^2 = 1e-12, rounding
~ 1e-16 / eps = 1e-10 (observed ~1e-10); a wrong row, sign or lever arm is O(1)."""
FA_TOL = 1e-8
"""FA (6 nb coordinates, up to ~60 constraint rows) against the tree: a different model and solve of
the same motion; rounding grows with the Schur complement's condition number (observed <= 1e-11)."""

NAMES = list(mech.MECHANISMS) + ["four_bar_chain3"]


@functools.lru_cache(maxsize=None)
def _model(name: str) -> sd.Model:
    if name.startswith("four_bar_chain"):
        return mech.four_bar_chain(int(name[len("four_bar_chain"):]))
    if name.startswith("redundant_four_bar_"):
        return mech.redundant_four_bar(name[len("redundant_four_bar_"):])
    return mech.MECHANISMS[name]()


@functools.lru_cache(maxsize=None)
def _case(name: str):
    """(model, q, qd, tau): the assembled state, a random velocity in the null space of G_c, the
    default driving torque plus random joint forces."""
    model = _model(name)
    st = mech.initial_state(model)
    rng = np.random.default_rng(sum(map(ord, name)))
    G = loops.constraint_jacobian(model, model.data(), st.q)
    _, s, Vt = np.linalg.svd(G)
    N = Vt[int((s > 1e-10 * s[0]).sum()):]
    qd = 2.0 * N.T @ rng.normal(size=N.shape[0])
    tau = st.tau(model) + 0.5 * rng.normal(size=model.nv)
    return model, st.q, qd, tau


def _solve(model, q, qd, tau, method, f_ext=None):
    data = model.data()
    qdd = loops.forward_dynamics(model, data, q, qd, tau, f_ext=f_ext, method=method).copy()
    return qdd, data.loop_lambda.copy(), data.loop_info.copy()


def _phi_fd(model, q) -> np.ndarray:
    data = model.data()
    out = np.empty((model.nc, model.nv))
    for k in range(model.nv):
        e = np.zeros(model.nv)
        e[k] = FD_EPS
        out[:, k] = (loops.constraint_error(model, data, sd.integrate(model, q, e))
                     - loops.constraint_error(model, data, sd.integrate(model, q, -e))) / (2 * FD_EPS)
    return out


def _body_accelerations(model, q, qd, qdd) -> np.ndarray:
    """The tree's body spatial accelerations ``J_i qdd + Jdot_i qd`` in body coordinates, stacked (6 nb,)."""
    data = model.data()
    return np.concatenate([sd.frame_jacobian(model, data, q, b) @ qdd
                           + sd.frame_bias_acceleration(model, data, q, qd, b) for b in model.body_names])


# ------------------------------------------------------------------------------------------- the models
EXPECTED = {  # moving bodies, tree dofs, closure rows (Jain 2012 Sec. 4; planar cut joints as planar pins)
    "planar_crank_slider": (3, 3, 2),
    "planar_quick_return": (5, 5, 4),
    "planar_four_bar": (3, 3, 2),
    "spatial_four_bar": (3, 4, 3),
    "spatial_crank_slider": (3, 6, 5),
    "four_bar_chain3": (7, 7, 6),
}


@pytest.mark.parametrize("name", NAMES)
def test_mechanism_counts_and_mobility(name):
    model, q, _, _ = _case(name)
    assert (model.nb, model.nv, model.nc) == EXPECTED[name], name
    G = loops.constraint_jacobian(model, model.data(), q)
    s = np.linalg.svd(G, compute_uv=False)
    assert s[-1] > 1e-3 * s[0], f"{name}: G_c is (nearly) rank deficient: singular values {s}"
    assert model.nv - model.nc == 1, f"{name}: {model.nv - model.nc} dofs, expected 1"
    assert np.abs(loops.constraint_error(model, model.data(), q)).max() <= 1e-12, f"{name}: not assembled"


def test_spatial_mechanism_joint_types():
    sfb = _model("spatial_four_bar")
    assert [J.JOINT_TYPE_NAMES[t] for t in sfb.jnt_type] == ["revolute", "universal", "revolute"]
    assert abs(np.dot(sfb.jnt_axis[0], sfb.jnt_axis[2])) < 0.5, "crank and rocker axes must not be parallel"
    scs = _model("spatial_crank_slider")
    assert sorted(J.JOINT_TYPE_NAMES[t] for t in scs.jnt_type) == ["cylindrical", "revolute", "spherical"]
    assert scs.loop_dim.tolist() == [5]


# ------------------------------------------------------------------------------------- tree (TA) model
@pytest.mark.parametrize("name", NAMES)
def test_jacobian_matches_finite_differences(name):
    model, q, _, _ = _case(name)
    G = loops.constraint_jacobian(model, model.data(), q)
    assert_close(G, _phi_fd(model, q), FD_JACOBIAN, f"{name}: G_c vs d phi / dq")


@pytest.mark.parametrize("name", NAMES + ["four_bar_chain16"])
def test_ta_matches_kkt(name):
    model, q, qd, tau = _case(name)
    qdd_ta, lam_ta, info = _solve(model, q, qd, tau, "ta")
    qdd_kkt, lam_kkt, _ = _solve(model, q, qd, tau, "kkt")
    assert info.tolist() == [model.nc, 0], f"{name}: TA reports rank/redundancy {info}"
    assert_close(qdd_ta, qdd_kkt, ALGORITHMS, f"{name}: qdd TA vs KKT")
    assert_close(lam_ta, lam_kkt, ALGORITHMS, f"{name}: lambda TA vs KKT")


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("method", ["ta", "kkt"])
def test_constraint_acceleration_vanishes(name, method):
    model, q, qd, tau = _case(name)
    qdd, _, _ = _solve(model, q, qd, tau, method)
    _, cv, gdot, G = loops.constraint_state(model, model.data(), q, qd)
    assert_close(cv, np.zeros(model.nc), ALGORITHMS, f"{name}: G qd of the consistent velocity",
                 scale=max(1.0, float(np.abs(qd).max())))
    assert_close(G @ qdd + gdot, np.zeros(model.nc), ALGORITHMS, f"{name}/{method}: G qdd + Gdot qd",
                 scale=max(1.0, float(np.abs(gdot).max()), float(np.abs(G).max() * np.abs(qdd).max())))


@pytest.mark.parametrize("name", ["planar_four_bar", "spatial_crank_slider"])
def test_multipliers_are_the_constraint_forces(name):
    """M qdd + C - tau = G_c^T lambda (Jain 2012 Eq. 3): the multipliers explain the joint-space residual."""
    model, q, qd, tau = _case(name)
    data = model.data()
    qdd, lam, _ = _solve(model, q, qd, tau, "ta")
    G = loops.constraint_jacobian(model, data, q)
    residual = sd.rnea(model, data, q, qd, qdd).copy() - tau
    assert_close(residual, G.T @ lam, ALGORITHMS, f"{name}: M qdd + C - tau vs G^T lambda")


# ------------------------------------------------------------------------------------------- FA model
@pytest.mark.parametrize("name", NAMES)
def test_fa_model_structure(name):
    model = _model(name)
    fa = fully_augmented(model)
    assert fa.nb == model.nb and fa.nv == 6 * model.nb and fa.body_names == model.body_names
    assert all(t == J.FREE for t in fa.jnt_type) and np.all(fa.body_parent == -1)
    assert_close(fa.body_I, model.body_I, 0.0, f"{name}: FA inertias")
    hinge = sum(6 - int(model.jnt_nv[i]) for i in range(model.nb) if model.jnt_type[i] != J.FREE)
    assert fa.nc == hinge + model.nc, f"{name}: FA rows {fa.nc} != {hinge} + {model.nc}"
    assert fa.loop_names[:model.nb] == model.jnt_names and fa.loop_names[model.nb:] == model.loop_names
    for f, fname in enumerate(model.frame_names):
        g = fa.frame_id(fname)
        assert fa.frame_body[g] == model.frame_body[f], f"{name}: frame {fname!r} moved to another body"
        assert_close(np.c_[fa.frame_E[g], fa.frame_r[g]], np.c_[model.frame_E[f], model.frame_r[f]], 0.0,
                     f"{name}: placement of frame {fname!r}")


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("method", ["ta", "kkt"])
def test_fa_matches_tree(name, method):
    """FA forward dynamics at the mapped state gives the tree's body accelerations and multipliers."""
    model, q, qd, tau = _case(name)
    qdd, lam, _ = _solve(model, q, qd, tau, "ta")
    fa = fully_augmented(model)
    q_fa, qd_fa = fa_state(model, fa, q, qd)
    qdd_fa, lam_fa, info = _solve(fa, q_fa, qd_fa, np.zeros(fa.nv), method, f_ext=fa_forces(model, q, tau))
    if method == "ta":
        assert info.tolist() == [fa.nc, 0], f"{name}: FA reports rank/redundancy {info}"
    assert_close(qdd_fa, _body_accelerations(model, q, qd, qdd), FA_TOL, f"{name}/{method}: FA body accelerations")
    own = slice(int(fa.loop_row[fa.nl - model.nl]), fa.nc)
    assert_close(lam_fa[own], lam, FA_TOL, f"{name}/{method}: FA multipliers of the tree's loops")


@pytest.mark.parametrize("name", ["planar_quick_return", "spatial_four_bar", "spatial_crank_slider"])
def test_fa_state_and_jacobian(name):
    """At the mapped state every FA loop is closed and G_fa qd_fa = 0; the finite-difference Jacobian of
    the FA position error spans the rows of G_c (hinge frames do not coincide at closure, so the two
    differ by an invertible map on the constrained rows: the same constraint manifold)."""
    model, q, qd, _ = _case(name)
    fa = fully_augmented(model)
    q_fa, qd_fa = fa_state(model, fa, q, qd)
    phi, cv, _, G = loops.constraint_state(fa, fa.data(), q_fa, qd_fa)
    assert_close(phi, np.zeros(fa.nc), ALGORITHMS, f"{name}: FA phi")
    assert_close(cv, np.zeros(fa.nc), ALGORITHMS, f"{name}: FA G qd")
    Dphi = _phi_fd(fa, q_fa)
    _, s, Vt = np.linalg.svd(G.copy())
    assert s[-1] > 1e-6 * s[0], f"{name}: FA G_c rank deficient"
    N = Vt[fa.nc:]  # null space of G_c
    assert_close(Dphi @ N.T, np.zeros((fa.nc, N.shape[0])), FD_JACOBIAN, f"{name}: d phi_FA / dq on null(G_c)")


@pytest.mark.parametrize("name", ["planar_quick_return", "spatial_crank_slider"])
def test_fa_keeps_the_tree_loops(name):
    """Away from closure the FA model's own loops have the tree's position errors, its hinge loops none."""
    model = _model(name)
    q = sd.integrate(model, _case(name)[1], 0.1 * np.random.default_rng(3).normal(size=model.nv))
    fa = fully_augmented(model)
    phi = loops.constraint_error(model, model.data(), q)
    assert np.abs(phi).max() > 1e-3, "the perturbed state should not close the loops"
    phi_fa = loops.constraint_error(fa, fa.data(), fa_state(model, fa, q)[0])
    own = int(fa.loop_row[fa.nl - model.nl])
    assert_close(phi_fa[own:], phi, ALGORITHMS, f"{name}: FA errors of the tree's loops")
    assert_close(phi_fa[:own], np.zeros(own), ALGORITHMS, f"{name}: FA hinge errors")


def _all_joint_cases():
    return [auto_tree(10, branching=1.5, seed=s, joint_mix=ALL_JOINTS) for s in (0, 1)] + [forest_model(0)]


@pytest.mark.parametrize("index", [0, 1, 2], ids=["auto10-s0", "auto10-s1", "forest"])
@pytest.mark.parametrize("method", ["ta", "kkt"])
def test_fa_of_trees_with_every_joint_type(index, method):
    """FA of trees with every joint type (helical, non-perpendicular universal, planar, free on a body,
    fixed merges, world frames) against the tree's ABA with joint and external forces."""
    model = _all_joint_cases()[index]
    rng = np.random.default_rng(index)
    q, qd, tau = model.random_q(rng), rng.normal(size=model.nv), rng.normal(size=model.nv)
    f_ext = rng.normal(size=(model.nb, 6))
    qdd = sd.aba(model, model.data(), q, qd, tau, f_ext=f_ext).copy()
    fa = fully_augmented(model)
    assert fa.nc == sum(6 - int(model.jnt_nv[i]) for i in range(model.nb) if model.jnt_type[i] != J.FREE)
    q_fa, qd_fa = fa_state(model, fa, q, qd)
    qdd_fa, _, info = _solve(fa, q_fa, qd_fa, np.zeros(fa.nv), method, f_ext=fa_forces(model, q, tau, f_ext))
    assert_close(qdd_fa, _body_accelerations(model, q, qd, qdd), FA_TOL, f"{model.name}/{method}: FA vs ABA")


def test_fa_universal_hinge_is_a_universal_loop():
    model = _model("spatial_four_bar")
    fa = fully_augmented(model)
    l = fa.loop_names.index("coupler_joint")
    assert fa.loop_kind[l] == loops.UNIVERSAL and fa.loop_dim[l] == 4
    assert_close(fa.loop_axis[l], model.jnt_axis[1], 0.0, "universal loop axis (in A)")
    assert_close(fa.loop_axis2[l], model.jnt_axis2[1], 0.0, "universal loop axis2 (in B)")
    r = fa.loop_names.index("crank_joint")
    assert fa.loop_kind[r] == loops.CUSTOM and fa.loop_dim[r] == 5


def test_model_method_builds_the_fa_model():
    model = _model("planar_four_bar")
    fa = model.fully_augmented()
    assert fa.nv == 18 and fa.nc == 17 and fa.loop_names == ("crank_joint", "coupler_joint", "rocker_joint", "pin")


# ------------------------------------------------------------------------------------------ redundancy
@pytest.mark.parametrize("kind", ["ball", "revolute"])
def test_redundant_four_bar_least_squares(kind):
    """All hinge axes parallel, closed by a spatial loop: rank 2 < nc. TA solves in the least-squares
    sense: the constraints hold and the motion is that of the planar four bar."""
    model = _model(f"redundant_four_bar_{kind}")
    _, q, qd, tau = _case("planar_four_bar")  # same bodies, joints and assembled state
    data = model.data()
    qdd, lam, info = _solve(model, q, qd, tau, "ta")
    assert info[0] == 2 < model.nc and info[1] == 1, f"redundant {kind}: info {info}"
    _, _, gdot, G = loops.constraint_state(model, data, q, qd)
    assert_close(G @ qdd + gdot, np.zeros(model.nc), ALGORITHMS, f"redundant {kind}: G qdd + Gdot qd")
    qdd_planar, lam_planar, _ = _solve(_model("planar_four_bar"), q, qd, tau, "ta")
    assert_close(qdd, qdd_planar, ALGORITHMS, f"redundant {kind}: qdd vs the planar-pin four bar")
    # the multipliers are the minimum-norm ones: the in-plane force, nothing along the zero rows
    rows = {"ball": [0, 1], "revolute": [2, 3]}[kind]
    assert_close(lam[rows], lam_planar, ALGORITHMS, f"redundant {kind}: in-plane multipliers")
    assert_close(np.delete(lam, rows), np.zeros(model.nc - 2), ALGORITHMS, f"redundant {kind}: idle multipliers")


@pytest.mark.parametrize("kind", ["ball", "revolute"])
def test_redundant_four_bar_kkt_raises(kind):
    model = _model(f"redundant_four_bar_{kind}")
    _, q, qd, tau = _case("planar_four_bar")
    with pytest.raises(loops.LoopError, match="redundant"):
        loops.forward_dynamics(model, model.data(), q, qd, tau, method="kkt")


# ---------------------------------------------------------------- loops closed at a turned free axis
def _turned_revolute_loop() -> sd.Model:
    """A body on three prismatic joints and a spherical joint, held to a world frame by a revolute loop:
    it closes at every turn ``gamma`` about the loop's z axis (q = [1, 0, 0, quat(Rz(gamma))])."""
    b = sd.ModelBuilder("turned_revolute_loop")
    inertia = sd.Inertia(1.0, (0.1, 0.0, 0.0), np.diag([0.01, 0.02, 0.02]))
    b.add_body("x", "world", J.Prismatic((1, 0, 0)), None, inertia)
    b.add_body("y", "x", J.Prismatic((0, 1, 0)), None, inertia)
    b.add_body("z", "y", J.Prismatic((0, 0, 1)), None, inertia)
    b.add_body("e", "z", J.Spherical(), None, inertia)
    b.add_frame("socket", "world", sd.Transform.from_pose(None, (1.0, 0.0, 0.0)))
    b.add_loop("hinge", "socket", "e", "revolute")
    return b.finalize()


def _turned_state(gamma: float) -> np.ndarray:
    return np.r_[1.0, 0.0, 0.0, sd.spatial.rot_to_quat(sd.spatial.rot_axis((0, 0, 1), gamma))]


@pytest.mark.parametrize("gamma", [
    0.0,
    1.0,
    2.5,
])
def test_turned_revolute_loop_jacobian(gamma):
    model = _turned_revolute_loop()
    q = _turned_state(gamma)
    assert np.abs(loops.constraint_error(model, model.data(), q)).max() <= 1e-15
    G = loops.constraint_jacobian(model, model.data(), q)
    assert_close(G, _phi_fd(model, q), FD_JACOBIAN, f"turned revolute loop (gamma {gamma}): G_c vs d phi / dq")


@pytest.mark.parametrize("gamma", [
    0.0,
    1.0,
    2.5,
])
def test_turned_revolute_loop_projection(gamma):
    model = _turned_revolute_loop()
    data = model.data()
    q = sd.integrate(model, _turned_state(gamma), np.array([0.0, 0.0, 0.0, 0.1, 0.1, 0.0]))
    q, _ = loops.project(model, data, q, np.zeros(model.nv))
    assert np.abs(loops.constraint_error(model, data, q)).max() <= 1e-12


def test_fa_projection():
    """Projection of a slightly perturbed FA state of the planar four bar (its hinges are turned)."""
    model, q, _, _ = _case("planar_four_bar")
    fa = fully_augmented(model)
    q_fa, _ = fa_state(model, fa, q)
    q_fa = sd.integrate(fa, q_fa, 1e-6 * np.random.default_rng(0).normal(size=fa.nv))
    q_fa, _ = loops.project(fa, fa.data(), q_fa, np.zeros(fa.nv))
    assert np.abs(loops.constraint_error(fa, fa.data(), q_fa)).max() <= 1e-12
