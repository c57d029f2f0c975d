"""The constraint embedding API: sizes and loop selection of EmbeddedModel (all, named, hybrid rule),
independent coordinates (automatic and override), the closed-form detection, and bad input (unknown names,
max_size, NaN, loops that cannot be closed, wrong workspace)."""

import numpy as np
import pytest

import soadyn as sd
from soadyn import embedding
from soadyn.loops import AssemblyError, LoopError
from soadyn.models import ler_rover
from soadyn.models import mechanisms as mech


@pytest.fixture(scope="module")
def four_bar():
    m = mech.planar_four_bar()
    return m, mech.initial_state(m)


def test_sizes_and_nodes(four_bar):
    m, st = four_bar
    em = m.embed_loops(q_ref=st.q, independent={"pin": "crank_joint"})
    assert (em.nq, em.nv, em.nl, em.nc) == (1, 1, 0, 0)
    assert em.embedded_loops == ("pin",) and em.cut_loops == ()
    assert em.nodes[0]["bodies"] == ("crank", "coupler", "rocker") and em.nodes[0]["independent"] == ("crank_joint",)
    assert em.tree is m and em.method == "auto" and em.analytic_loops == ("pin",)
    qr = mech.planar_quick_return()
    e2 = qr.embed_loops(q_ref=mech.initial_state(qr).q)
    assert len(e2.nodes) == 1 and len(e2.nodes[0]["bodies"]) == 5, "loops sharing the lever merge into one node"
    rover = ler_rover().embed_loops()
    assert (rover.nv, rover.nc, len(rover.nodes)) == (24, 0, 6) and len(rover.analytic_loops) == 6


def test_hybrid_rule_cuts_large_loops():
    chain = mech.four_bar_chain(4)
    q = mech.initial_state(chain).q
    em = chain.embed_loops(loops="auto", hybrid_size=5, q_ref=q)
    assert em.embedded_loops == ("pin0", "pin1", "pin3") and em.cut_loops == ("pin2",)
    assert (em.nl, em.nc) == (1, 2)
    assert chain.embed_loops(loops="auto", hybrid_size=2, q_ref=q).embedded_loops == ()
    named = chain.embed_loops(loops=["pin1"], q_ref=q)
    assert named.embedded_loops == ("pin1",) and named.nc == 6


def test_automatic_independent_coordinates_are_well_conditioned(four_bar):
    m, st = four_bar
    em = m.embed_loops(q_ref=st.q)
    ind = em.nodes[0]["independent"][0]
    G = sd.loops.constraint_jacobian(m, m.data(), st.q)
    dep = [m.jnt_vadr[m.joint_id(j)] for j in m.jnt_names if j != ind]
    assert np.linalg.cond(G[:, dep]) < 10.0
    # a spherical joint is never independent
    sc = mech.spatial_crank_slider()
    e2 = sc.embed_loops(q_ref=mech.initial_state(sc).q)
    assert "rod_joint" not in e2.nodes[0]["independent"]


def test_bad_requests(four_bar):
    m, st = four_bar
    with pytest.raises(ValueError, match="unknown loop 'nope'"):
        m.embed_loops(loops=["nope"])
    with pytest.raises(ValueError, match="independent: unknown loop"):
        m.embed_loops(independent={"nope": "crank_joint"}, q_ref=st.q)
    with pytest.raises(ValueError, match="unknown joint"):
        m.embed_loops(independent={"pin": "elbow"}, q_ref=st.q)
    with pytest.raises(ValueError, match="need 1 independent"):
        m.embed_loops(independent={"pin": ["crank_joint", "rocker_joint"]}, q_ref=st.q)
    with pytest.raises(ValueError, match="spherical"):
        sc = mech.spatial_crank_slider()
        sc.embed_loops(independent={"wrist": "rod_joint"}, q_ref=mech.initial_state(sc).q)
    with pytest.raises(LoopError, match=r"max_size=5"):
        mech.four_bar_chain(3).embed_loops(max_size=5)
    with pytest.raises(LoopError, match="no closed form"):
        mech.spatial_four_bar().embed_loops(method="analytic", q_ref=mech.initial_state(mech.spatial_four_bar()).q)
    with pytest.raises(ValueError, match="method"):
        m.embed_loops(method="magic")
    with pytest.raises(LoopError, match="no loops"):
        sd.models.pendulum(2).embed_loops()


def test_bad_states(four_bar):
    m, st = four_bar
    em = m.embed_loops(q_ref=st.q, independent={"pin": "rocker_joint"})
    data = em.data()
    x, xd = em.from_tree_state(st.q)
    for args, name in (((np.array([np.nan]), xd, None), "x"), ((x, np.array([np.inf]), None), "xd"),
                       ((x, xd, np.array([0.0, np.nan, 0.0])), "tau")):
        with pytest.raises(ValueError, match=f"^{name}: contains NaN"):
            embedding.forward_dynamics(em, data, *args)
    with pytest.raises(ValueError, match="x: expected shape"):
        embedding.forward_dynamics(em, data, np.zeros(2), xd)
    with pytest.raises(ValueError, match="data"):
        embedding.forward_dynamics(em, m.data(), x, xd)
    # the rocker of a crank-rocker swings within a range: beyond it the loop cannot close
    with pytest.raises(AssemblyError) as err:
        em.tree_state(x + 2.0, data=data)
    e = err.value
    assert isinstance(e, embedding.LoopKinematicsError) and e.loop == "pin" and e.residual > em.tol
    assert np.isfinite(e.sigma_min) and "nearest singular configuration" in str(e)
    # the workspace recovers: a reachable state solves again
    q, _ = em.tree_state(x, data=data)
    np.testing.assert_allclose(q, st.q, atol=1e-12)
    with pytest.raises(ValueError, match="q: contains NaN"):
        em.from_tree_state(np.full(m.nq, np.nan))
