"""Constraint embedding (CE) forward dynamics against the TA closed-chain dynamics (Jain 2012 Lemma 2) and a
dense minimal-coordinate reference (``G^T M G``), on the five Jain 2012 mechanisms, a redundant four bar,
four-bar chains and hybrid CE/TA models; loop kinematics and hinge maps.
"""

import numpy as np
import pytest

from soadyn import embedding, loops
from soadyn.models import mechanisms as mech
from tests.reference.embedded import embedded_accelerations, hinge_map
from tests.support import ALGORITHMS, SAME_MATH, assert_close

CASES = {
    **{name: (ctor, None) for name, ctor in mech.MECHANISMS.items()},
    "redundant_four_bar": (mech.redundant_four_bar, None),
    "four_bar_chain3": (lambda: mech.four_bar_chain(3), None),
    "four_bar_chain4_hybrid": (lambda: mech.four_bar_chain(4), "auto"),
    "quick_return_hybrid": (mech.planar_quick_return, ["crank_pin"]),
}


def _setup(case, seed=0):
    ctor, loops_ = CASES[case]
    model = ctor()
    st = mech.initial_state(model)
    em = model.embed_loops(loops=loops_, q_ref=st.q, independent={model.loop_names[0]: st.driver},
                           hybrid_size=5)
    rng = np.random.default_rng(seed)
    x, _ = em.from_tree_state(st.q)
    return model, em, x, rng.normal(size=em.nv), rng.normal(size=model.nv), st


def _rows(model, names):
    ids = [model.loop_names.index(n) for n in names]
    return [r for l in ids for r in range(model.loop_row[l], model.loop_row[l + 1])]


@pytest.mark.parametrize("case", sorted(CASES))
def test_ce_accelerations_match_ta(case):
    model, em, x, xd, tau, _ = _setup(case)
    data = em.data()
    xdd = embedding.forward_dynamics(em, data, x, xd, tau).copy()
    q, qd, qdd = data.q.copy(), data.qd.copy(), data.qdd.copy()
    td = model.data()
    rows = _rows(model, em.embedded_loops)
    assert np.abs(loops.constraint_jacobian(model, td, q)[rows] @ qd).max() < 1e-12, "qd = G xd violates G_c qd = 0"
    qdd_ta = loops.forward_dynamics(model, td, q, qd, tau).copy()
    assert_close(qdd, qdd_ta, ALGORITHMS, f"{case}: CE tree accelerations vs TA")
    assert_close(xdd, qdd_ta[em.x_v], ALGORITHMS, f"{case}: CE embedded accelerations vs TA")


@pytest.mark.parametrize("case", [c for c in sorted(CASES) if CASES[c][1] is None])
def test_ce_accelerations_match_dense_reference(case):
    model, em, x, xd, tau, _ = _setup(case, seed=1)
    data = em.data()
    xdd = embedding.forward_dynamics(em, data, x, xd, tau).copy()
    th, qdd = embedded_accelerations(model, data.q, data.qd, tau, em.x_v)
    assert_close(xdd, th, ALGORITHMS, f"{case}: CE vs G^T M G")
    assert_close(data.qdd, qdd, ALGORITHMS, f"{case}: CE tree accelerations vs G theta_ddot + g")


def test_external_forces_enter_like_tree_forces():
    model, em, x, xd, tau, _ = _setup("spatial_crank_slider", seed=2)
    f = np.random.default_rng(3).normal(size=(model.nb, 6))
    data = em.data()
    xdd = embedding.forward_dynamics(em, data, x, xd, tau, f).copy()
    qdd_ta = loops.forward_dynamics(model, model.data(), data.q, data.qd, tau, f)
    assert_close(xdd, qdd_ta[em.x_v], ALGORITHMS, "CE vs TA with body forces")


@pytest.mark.parametrize("case", ["planar_four_bar", "spatial_four_bar", "spatial_crank_slider", "four_bar_chain3"])
def test_tree_state_closes_loops_and_maps_velocities(case):
    model, em, x, xd, _, st = _setup(case)
    x = x + 0.3  # a different independent coordinate: the loops are solved anew
    q, qd = em.tree_state(x, xd)
    td = model.data()
    phi = loops.constraint_state(model, td, q)[0]
    assert np.abs(phi[_rows(model, em.embedded_loops)]).max() <= em.tol, "closure residual above the solve tolerance"
    assert_close(q[em.x_q], x, SAME_MATH, "independent coordinates kept")
    assert_close(qd, hinge_map(model, q, em.x_v) @ xd, ALGORITHMS, "qd = G xd")
    x2, xd2 = em.from_tree_state(q, qd)
    assert_close(x2, x, SAME_MATH, "from_tree_state(tree_state(x))")
    assert_close(xd2, xd, SAME_MATH, "from_tree_state(tree_state(xd))")
    Q, QD = em.tree_states(np.array([x, x + 0.01]), np.array([xd, xd]))
    assert_close(Q[0], q, 1e-10, "tree_states row 0 vs tree_state")


@pytest.mark.parametrize("name", ["planar_four_bar", "planar_crank_slider"])
@pytest.mark.parametrize("driver", ["crank_joint", "coupler_joint", "other"])
def test_closed_form_loop_kinematics_match_newton(name, driver):
    model = mech.MECHANISMS[name]()
    st = mech.initial_state(model)
    driver = {"planar_four_bar": "rocker_joint", "planar_crank_slider": "slider_joint"}[name] if driver == "other" \
        else driver
    ind = {model.loop_names[0]: driver}
    ea = model.embed_loops(q_ref=st.q, independent=ind, method="analytic")
    en = model.embed_loops(q_ref=st.q, independent=ind, method="newton")
    assert ea.analytic_loops == model.loop_names and en.analytic_loops == ()
    x, _ = ea.from_tree_state(st.q)
    da, dn = ea.data(), en.data()
    for dx in (0.02, 0.05, -0.04):
        qa, _ = ea.tree_state(x + dx, data=da)
        assert da.info[0] == 0, "the closed form needs no Newton step"
        qn, _ = en.tree_state(x + dx, data=dn)
        assert_close(qa, qn, 1e-12, f"{name}/{driver}: closed form vs Newton")
    xd = np.array([0.7])
    tau = np.random.default_rng(4).normal(size=model.nv)
    assert_close(embedding.forward_dynamics(ea, da, x, xd, tau), embedding.forward_dynamics(en, dn, x, xd, tau),
                 1e-11, "accelerations with the closed form vs Newton")
