"""The five contact LCP formulations of Jain 2014 (NMC Eq. 27, MC Eq. 36, RMC Eq. 41, OS Eq. 53, NMC/OS
Sec. 8) against each other, their sizes against the paper's formulas, and the OS compliance (osim route)
against the dense ``J M^-1 J^T``."""

from __future__ import annotations

import functools

import numpy as np
import pytest

import soadyn as sd
from soadyn import joints as J
from soadyn.contact import formulations as F
from soadyn.contact.formulations import build, contact_set, lcp_sizes, solve
from soadyn.models import auto_tree
from soadyn.models import mechanisms as mech
from soadyn.spatial import Inertia, Transform
from tests.support import SAME_MATH, assert_close

AGREE = 1e-8
"""The brief's agreement of impulses and post-step velocities between formulations."""
DT = 1e-3
ALL = F.FORMULATIONS


@functools.lru_cache(maxsize=None)
def ball_chain(n: int = 3, r: float = 0.5) -> sd.Model:
    """``n`` 1 kg spheres on ball joints hanging from (0, 0, 3): a spatial chain. Its floor contacts below the
    spheres have contact rows of rank 2n (each sphere spins about the line from its joint through its
    contact point without moving it), so impulses that stop the chain are not unique: :func:`_agree`
    compares their generalized impulse."""
    b = sd.ModelBuilder(f"ball_chain{n}", gravity=(0.0, 0.0, -9.8))
    for i in range(n):
        b.add_body(f"s{i}", "world" if i == 0 else f"s{i - 1}", J.Spherical(),
                   Transform.from_pose(None, (0.0, 0.0, 3.0) if i == 0 else (0.0, 0.0, -2 * r)),
                   Inertia.sphere(1.0, r, com=(0.0, 0.0, -r)))
    return b.finalize()


@functools.lru_cache(maxsize=None)
def tree() -> sd.Model:
    return auto_tree(6, branching=1.5, seed=3, joint_mix=(J.SPHERICAL, J.REVOLUTE, J.UNIVERSAL, J.HELICAL))


def _points(model, q, bodies, offsets):
    data = model.data()
    sd.fk(model, data, q)
    return [data.op[a] + data.oR[a] @ np.asarray(o) for (a, _), o in zip(bodies, offsets)]


def chain_case(mu: float, seed: int = 3):
    """Floor contacts under each sphere of the ball chain, whose joint forces are those of forces pushing
    each contact point down (30 N) and sideways (random)."""
    m = ball_chain()
    rng = np.random.default_rng(seed)
    q = m.random_q(rng, 0.4)
    bodies = [(i, -1) for i in range(m.nb)]
    pts = _points(m, q, bodies, [(0.0, 0.0, -1.0)] * m.nb)
    cs = contact_set(m, bodies, pts, [(0.0, 0.0, 1.0)] * m.nb, mu)
    Gu = build("mc", m, q, np.zeros(m.nv), np.zeros(m.nv), cs, DT).parts["G_u"]
    tau = Gu.T @ np.concatenate([[*(8.0 * rng.normal(size=2)), -30.0] for _ in range(m.nb)])
    return m, q, np.zeros(m.nv), tau, cs


def _approaching(model, q, tau, bodies, points, rng):
    """Unit normals mostly against the free relative motion of the contact points (active contacts), with
    a tangential part (friction matters)."""
    cs0 = contact_set(model, bodies, points, [(0.0, 0.0, 1.0)] * len(bodies), 0.0)
    lcp = build("mc", model, q, np.zeros(model.nv), tau, cs0, DT)
    P = lcp.parts
    v = P["G_u"] @ np.linalg.solve(P["M"], P["T_minus_C"]) * DT
    out = []
    for i in range(len(bodies)):
        u = -v[3 * i:3 * i + 3] / np.linalg.norm(v[3 * i:3 * i + 3]) + 0.6 * rng.normal(size=3)
        out.append(u / np.linalg.norm(u))
    return out


def tree_case(mu: float, seed: int = 9):
    """A random tree with a body-world and a body-body contact."""
    m = tree()
    rng = np.random.default_rng(seed)
    q = m.random_q(rng, 1.0)
    tau = 10.0 * rng.normal(size=m.nv)
    bodies = [(5, -1), (4, 1)]
    pts = _points(m, q, bodies, [rng.uniform(-0.3, 0.3, 3) for _ in bodies])
    return m, q, np.zeros(m.nv), tau, contact_set(m, bodies, pts, _approaching(m, q, tau, bodies, pts, rng), mu)


def four_bar_case(mu: float):
    """The planar four bar (a planar-pin loop) with its coupler pushed against a wall; one contact."""
    m = mech.planar_four_bar()
    st = mech.initial_state(m)
    data = m.data()
    sd.fk(m, data, st.q)
    b = m.body_id("coupler")
    p = data.op[b] + data.oR[b] @ np.array([0.6, 0.0, 0.0])
    tau = np.array([40.0, 0.0, 0.0])
    rng = np.random.default_rng(2)
    n = _approaching(m, st.q, tau, [(b, -1)], [p], rng)[0]
    n[2] = 0.0  # in the plane of motion
    return m, st.q, np.zeros(m.nv), tau, contact_set(m, [(b, -1)], [p], [n / np.linalg.norm(n)], mu)


def _moving(case, seed: int = 5):
    """``case`` with a velocity ``qd`` whose contact points approach (0.5 m/s) and slide (0.3 m/s), plus a
    random part in the null space of ``G_u`` (generic velocity-product terms)."""
    m, q, _, tau, cs = case
    rng = np.random.default_rng(seed)
    Gu = build("mc", m, q, np.zeros(m.nv), tau, cs, DT).parts["G_u"]
    v = np.concatenate([-0.5 * n + 0.3 * np.cross(n, _unit_any(n)) for n in cs.normals])
    qd = np.linalg.lstsq(Gu, v, rcond=None)[0]
    null = np.linalg.svd(Gu)[2][np.linalg.matrix_rank(Gu):]
    qd += null.T @ rng.normal(size=null.shape[0])
    return m, q, qd, tau, cs


def _unit_any(n):
    a = np.eye(3)[int(np.argmin(np.abs(n)))]
    return a / np.linalg.norm(a)


def _solve_all(case, formulations=ALL, **kw):
    m, q, qd, tau, cs = case
    return {f: solve(f, m, q, qd, tau, cs, DT, **kw) for f in formulations}


def unique_impulses(lcp) -> bool:
    """Whether a step's contact and loop impulses are determined by its velocities: the stacked loop and contact
    Jacobians ``[G_b; G_u]`` have full row rank (else many impulses give the same step, a statically
    indeterminate contact, and which one a solver returns depends on its pivots)."""
    G = np.vstack([lcp.parts["G_b"].reshape(-1, lcp.parts["G_u"].shape[1]), lcp.parts["G_u"]])
    return np.linalg.matrix_rank(G) == G.shape[0]


def _agree(steps, ref: str, what: str):
    """The formulations' steps agree with ``ref``'s: sliding speeds, post-step velocities and the generalized
    impulse of the contacts and loops ``G_u^T F + G_b^T p_b``, and each contact's impulses where they are unique
    (:func:`unique_impulses`)."""
    r = steps[ref]
    Gu, Gb = r.lcp.parts["G_u"], r.lcp.parts["G_b"].reshape(-1, r.lcp.parts["G_u"].shape[1])
    unique = unique_impulses(r.lcp)

    def generalized(s):
        return Gu.T @ s.F.ravel() + Gb.T @ s.p_b[len(s.p_b) - Gb.shape[0]:]

    for f, s in steps.items():
        if unique:
            assert_close(s.normal, r.normal, AGREE, f"{what}: normal impulses {f} vs {ref}")
            assert_close(s.F, r.F, AGREE, f"{what}: contact impulses D_ beta_ {f} vs {ref}")
        assert_close(generalized(s), generalized(r), AGREE, f"{what}: generalized impulses {f} vs {ref}")
        assert_close(s.sigma, r.sigma, AGREE, f"{what}: sliding speeds {f} vs {ref}")
        assert_close(s.qd_plus, r.qd_plus, AGREE, f"{what}: qd+ {f} vs {ref}")


# ---------------------------------------------------------------------------------------------- sizes
def test_sizes_pendulum_chain_table2():
    """Jain 2014 Table 2 (4 contacts, n_f = 4): OS 24; NMC/OS 39 .. 174; NMC 57 .. 354; the 3-link chain's
    LCPs as built have these sizes."""
    paper = {3: (39, 57), 6: (54, 90), 12: (84, 156), 15: (99, 189), 24: (144, 288), 30: (174, 354)}
    for n, (nmc_os, nmc) in paper.items():
        s = lcp_sizes(sd.models.pendulum(n), 4)
        assert (s["os"], s["nmc_os"], s["nmc"], s["rmc"], s["mc"]) == (24, nmc_os, nmc, 24, n + 24), n
    m = sd.models.pendulum(3)
    q = np.array([0.3, -0.2, 0.1])
    bodies = [(0, -1), (1, -1), (2, -1), (2, 0)]
    cs = contact_set(m, bodies, _points(m, q, bodies, [(0, 0, -2.0)] * 4), [(0.0, 0.0, 1.0)] * 4, 0.5)
    built = {f: build(f, m, q, np.zeros(3), np.zeros(3), cs, DT) for f in ALL}
    assert {f: l.size for f, l in built.items()} == {"os": 24, "nmc_os": 39, "nmc": 57, "mc": 27, "rmc": 24}
    assert {f: l.nfree for f, l in built.items()} == {"os": 0, "nmc_os": 15, "nmc": 33, "mc": 3, "rmc": 0}
    for f, l in built.items():
        assert l.M.shape == (l.size, l.size) and l.q.shape == (l.size,), f


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_sizes_random_trees_follow_formulas(seed):
    m = auto_tree(5, branching=1.7, seed=seed, joint_mix=(J.REVOLUTE, J.SPHERICAL, J.UNIVERSAL, J.PRISMATIC,
                                                              J.FREE, J.CYLINDRICAL))
    rng = np.random.default_rng(seed)
    q = m.random_q(rng)
    nu, nf = 3, 6
    bodies = [(4, -1), (3, 1), (2, -1)]
    nrm = rng.normal(size=(nu, 3))
    cs = contact_set(m, bodies, _points(m, q, bodies, rng.normal(size=(nu, 3))), nrm / np.linalg.norm(nrm, axis=1)[:, None],
                     0.3)
    fa = m.fully_augmented()
    c = nu * (nf + 2)
    expect = {"nmc": 6 * m.nb + fa.nc + c, "mc": m.nv + c, "rmc": c, "os": c, "nmc_os": fa.nc + c}
    assert lcp_sizes(m, nu, nf) == expect
    for f in ALL:
        assert build(f, m, q, np.zeros(m.nv), np.zeros(m.nv), cs, DT, n_f=nf).size == expect[f], f


def test_sizes_with_loops():
    m = mech.four_bar_chain(2)
    st = mech.initial_state(m)
    cs = contact_set(m, [(1, -1)], [(0.5, 0.5, 0.0)], [(0.0, 1.0, 0.0)], 0.5)
    c = 6
    fa_nb = 5 * m.nb + m.nc
    expect = {"nmc": 6 * m.nb + fa_nb + c, "mc": m.nv + m.nc + c, "rmc": c, "os": m.nc + c, "nmc_os": fa_nb + c}
    assert lcp_sizes(m, 1) == expect
    for f in ALL:
        lcp = build(f, m, st.q, st.qd, np.zeros(m.nv), cs, DT)
        assert lcp.size == expect[f] and lcp.n_b == {"nmc": fa_nb, "nmc_os": fa_nb, "rmc": m.nc}.get(f, m.nc), f


# ------------------------------------------------------------------------------------------ agreement
@pytest.mark.parametrize("mu, regime", [(10.0, "stick"), (0.05, "slide")])
@pytest.mark.parametrize("case", [chain_case, tree_case])
def test_all_five_agree_at_rest(case, mu, regime):
    """At ``qd = 0`` (no velocity-product terms) every formulation gives the same impulses, sliding speeds
    and post-step velocities."""
    steps = _solve_all(case(mu))
    _agree(steps, "mc", f"{case.__name__} {regime}")
    s = steps["mc"]
    assert np.all(s.normal > 1e-6), "every contact is active"
    if regime == "stick":
        assert np.abs(s.sigma).max() < 1e-12, "every contact sticks"
    else:
        assert np.all(s.sigma > 1e-6), "every contact slides"
        assert_close(s.beta.sum(axis=1), s.lcp.pyramid.mu * s.normal, 1e-9, "sliding: friction on the cone")


@pytest.mark.parametrize("mu", [2.0, 0.05])
def test_all_five_agree_with_a_loop(mu):
    """Planar four bar (planar-pin loop, n_b = 2; one degree of freedom) pushed against a wall: the same qd+
    and generalized impulse of the contact and the loop. The contact sticks, so its normal and friction rows
    and the loop's hold a mechanism of one degree of freedom: the impulses are statically indeterminate, and
    each formulation's answer is checked on its own LCP (the FA forms carry the loop's rows after the hinge
    rows)."""
    steps = _solve_all(four_bar_case(mu))
    assert not unique_impulses(steps["mc"].lcp)
    _agree(steps, "mc", f"four bar mu={mu}")
    for f, s in steps.items():
        assert s.result.status == "ok" and s.result.residual <= 1e-12, f
        assert s.normal[0] > 1e-6 and np.abs(s.p_b[-2:]).max() > 1e-3, "the contact and the loop carry load"


@pytest.mark.parametrize("case", [chain_case, tree_case])
def test_velocity_level_groups_agree_in_motion(case):
    """With ``qd != 0``: MC, RMC and OS without Eq. 45's ``Gdot_u qd`` are one problem reorganized, as are
    NMC and NMC/OS; OS and NMC/OS with it (the acceleration-level Eq. 46, tree vs FA) give the same
    impulses. The FA and tree velocity-level problems differ by O(dt |qd|^2)."""
    c = _moving(case(0.3))
    flat = _solve_all(c, contact_bias=False)
    assert flat["mc"].normal.min() > 1e-6 and flat["mc"].sigma.min() > 1e-6, "active, sliding contacts"
    _agree({f: flat[f] for f in ("mc", "rmc", "os")}, "mc", "minimal, velocity level")
    _agree({f: flat[f] for f in ("nmc", "nmc_os")}, "nmc", "FA, velocity level")
    acc = _solve_all(c, ("os", "nmc_os"))
    assert_close(acc["nmc_os"].F, acc["os"].F, AGREE, "Eq. 46 impulses, FA vs tree")
    assert np.abs(acc["os"].F - flat["os"].F).max() > 1e-9, "Gdot_u qd changes the impulses"


def test_os_contact_bias_term():
    """OS's q with and without Eq. 45's term differ by exactly ``D_* Gdot_u qd dt``, and ``Gdot_u qd``
    is the classical acceleration of the contact points at ``qdd = 0`` (central differences)."""
    m, q, qd, tau, cs = _moving(tree_case(0.3))
    a = build("os", m, q, qd, tau, cs, DT)
    b = build("os", m, q, qd, tau, cs, DT, contact_bias=False)
    g = a.parts["Gdot_u_qd"]
    assert_close(a.q - b.q, np.concatenate([a.pyramid.D.T @ g * DT, np.zeros(cs.count)]), SAME_MATH, "bias term")
    # material points: body coordinates fixed at q
    data = m.data()
    sd.fk(m, data, q)
    local = [(int(a_), data.oR[a_].T @ (p - data.op[a_])) for (a_, _), p in zip(cs.bodies, cs.points)]

    def rel_velocity(t):
        qt = sd.integrate(m, q, qd * t)
        pts = []
        for (a_, r), (_, b_) in zip(local, cs.bodies):
            sd.fk(m, data, qt)
            pts.append(data.op[a_] + data.oR[a_] @ r)
        cst = contact_set(m, cs.bodies, pts, cs.normals, cs.mu)
        return build("mc", m, qt, qd, tau, cst, DT).parts["G_u"] @ qd

    h = 1e-5
    # only body A's material point moves with A; for the body-body contact B's point is A's, which is not
    # a material point of B: compare the world contact (row block 0) only
    fd = (rel_velocity(h) - rel_velocity(-h)) / (2 * h)
    assert_close(g[:3], fd[:3], 1e-6, "Gdot_u qd vs central differences (body-world contact)")


# --------------------------------------------------------------------------------------- OS compliance
def _node_jacobian(model, q, body, E, r, dim):
    """Dense node Jacobian: rows ``Sel X_node`` of the body's world-aligned Jacobian moved to the node."""
    data = model.data()
    Jw = sd.frame_jacobian(model, data, q, model.body_names[body], "world_aligned").copy()
    o = data.frame_p.copy()
    R = data.oR[body]
    p = o + R @ r  # node origin
    Jp = np.vstack([Jw[:3], Jw[3:] - np.cross(p - o, Jw[:3].T).T])
    Rn = E @ R.T  # world -> node axes
    Jn = np.vstack([Rn @ Jp[:3], Rn @ Jp[3:]])
    return Jn[3:] if dim == 3 else Jn


@pytest.mark.parametrize("which", ["tree", "four_bar", "tree_fa"])
def test_os_compliance_is_dense_J_Minv_JT(which):
    """``Lambda_`` from the Upsilon/Omega recursion (Jain 2014 Eq. 64) equals ``J M^-1 J^T`` (Eq. 51), and
    the OS matrix block ``[Q_b; D_* Q_u] Lambda_ [..]^T`` equals ``[G_b; D_* G_u] M^-1 [..]^T`` (Eq. 47)."""
    m, q, qd, tau, cs = (four_bar_case(0.5) if which == "four_bar" else tree_case(0.5))
    lcp = build("nmc_os" if which == "tree_fa" else "os", m, q, qd, tau, cs, DT)
    P = lcp.parts
    sm, sq = P["model"], P["q"]
    body, E, r, _, dim, row = P["nodes"]
    Jn = np.vstack([_node_jacobian(sm, sq, b, E[a], r[a], dim[a]) for a, b in enumerate(body)])
    Minv = sd.minv(sm, sm.data(), sq).copy()
    dense = Jn @ Minv @ Jn.T
    assert_close(P["Lambda"], dense, 1e-10, f"{which}: Lambda_ osim vs J M^-1 J^T")
    G = np.vstack([P["G_b"], lcp.pyramid.D.T @ P["G_u"]])
    k = G.shape[0]
    assert_close(lcp.M[:k, :k], G @ Minv @ G.T, 1e-10, f"{which}: OS block vs Eq. 47")
    assert_close(np.vstack([P["Q_b"], P["Q_u"]]) @ Jn, np.vstack([P["G_b"], P["G_u"]]), 1e-10,
                 f"{which}: Q J = [G_b; G_u] (Eq. 50)")


def test_rmc_block_matches_mc_schur_complement():
    """Eq. 41's ``D_* G_u Y G_u* D_`` is the Schur complement of Eq. 36's free block (loops included)."""
    m, q, qd, tau, cs = four_bar_case(0.5)
    mc = build("mc", m, q, qd, tau, cs, DT)
    rmc = build("rmc", m, q, qd, tau, cs, DT)
    f = mc.nfree
    S = mc.M[f:, f:] - mc.M[f:, :f] @ np.linalg.solve(mc.M[:f, :f], mc.M[:f, f:])
    s = mc.q[f:] - mc.M[f:, :f] @ np.linalg.solve(mc.M[:f, :f], mc.q[:f])
    assert_close(rmc.M, S, 1e-9, "RMC matrix vs MC Schur complement")
    assert_close(rmc.q, s, 1e-9, "RMC q vs MC Schur complement")


# -------------------------------------------------------------------------------------------- bad input
def test_bad_input():
    m, q, qd, tau, cs = chain_case(0.5)
    with pytest.raises(ValueError, match="formulation"):
        build("lcp", m, q, qd, tau, cs, DT)
    with pytest.raises(ValueError, match="dt"):
        build("os", m, q, qd, tau, cs, 0.0)
    with pytest.raises(ValueError, match="n_f"):
        build("os", m, q, qd, tau, cs, DT, n_f=3)
    with pytest.raises(ValueError, match="qd"):
        build("mc", m, q, np.full(m.nv, np.nan), tau, cs, DT)
    with pytest.raises(ValueError, match="tau"):
        build("mc", m, q, qd, np.zeros(m.nv + 1), cs, DT)
    with pytest.raises(ValueError, match="contacts"):
        build("mc", m, q, qd, tau, object(), DT)
    with pytest.raises(ValueError, match="normals"):
        contact_set(m, [(0, -1)], [(0, 0, 0)], [(0, 0, 2.0)], 0.5)
    with pytest.raises(ValueError, match="mu"):
        contact_set(m, [(0, -1)], [(0, 0, 0)], [(0, 0, 1.0)], -0.1)
    with pytest.raises(ValueError, match="bodies"):
        contact_set(m, [(0, 0)], [(0, 0, 0)], [(0, 0, 1.0)], 0.1)
    with pytest.raises(ValueError, match="body"):
        contact_set(m, [("nope", -1)], [(0, 0, 0)], [(0, 0, 1.0)], 0.1)
    with pytest.raises(ValueError, match="n_u"):
        lcp_sizes(m, -1)


def test_fa_and_tree_discretizations_differ_by_order_dt():
    """In motion, NMC (FA) and MC (tree) differ only by their velocity-product terms: the difference of
    impulses and qd+ shrinks linearly with dt (a wrong Coriolis, Gdot_b or FA mapping would leave O(1))."""
    m, q, qd, tau, cs = _moving(tree_case(0.3))
    diff = []
    for dt in (1e-3, 1e-4):
        a, b = (solve(f, m, q, qd, tau, cs, dt) for f in ("nmc", "mc"))
        diff.append((np.abs(a.F - b.F).max(), np.abs(a.qd_plus - b.qd_plus).max()))
    (F1, v1), (F2, v2) = diff
    assert 1e-6 < F1 < 1e-2 and 1e-6 < v1 < 1e-2
    assert 9.0 < F1 / F2 < 11.0 and 9.0 < v1 / v2 < 11.0, f"not O(dt): {diff}"
