"""Mimic joints as exact couplings (soadyn.mimic), against two oracles:

* Pinocchio 4's ``buildModelFromUrdf(path, mimic=True)`` where it loads the file (RNEA, CRBA, frame
  Jacobians; Pinocchio refuses ABA and M^-1 on mimic models);
* Pinocchio's model without the coupling, reduced by a coupling matrix ``G`` built here from the URDF's
  ``<mimic>`` tags: ``M = G^T M G``, ``tau = G^T rnea(q_t, G qd, G qdd)``, ``J = J_tree G``, and ABA, M^-1 and
  the operational space compliance from dense solves with that ``M``.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import soadyn as sd
from soadyn.io.urdf import load_urdf_string
from soadyn.mimic import MimicModel
from soadyn.model import ModelError
from tests.support import ALGORITHMS, SAME_MATH, assert_close

pin = pytest.importorskip("pinocchio")
yourdfpy = pytest.importorskip("yourdfpy")

from tests.crosscheck.pin_convert import Coords, sym_upper  # noqa: E402
from tests.crosscheck.test_robot_zoo import ROOT, URDFS  # noqa: E402
from tests.crosscheck.test_robot_zoo import _load as _load_tree  # noqa: E402
from tests.crosscheck.test_robot_zoo import _share_repaired_inertias  # noqa: E402

pytestmark = pytest.mark.external

PIN_TOL = ALGORITHMS
N_LINKS = 12
"""Links whose poses and Jacobians are compared per robot."""
MIMIC_URDFS = [u for u in URDFS if "<mimic" in (ROOT / u).read_text(errors="replace")]


def _couplings(path):
    """{mimic joint: (primary, multiplier, offset)} read from the URDF."""
    robot = yourdfpy.URDF.load(path, build_scene_graph=False, load_meshes=False,
                               build_collision_scene_graph=False, load_collision_meshes=False).robot
    return {j.name: (j.mimic.joint, j.mimic.multiplier if j.mimic.multiplier is not None else 1.0,
                     j.mimic.offset if j.mimic.offset is not None else 0.0)
            for j in robot.joints if j.mimic is not None and j.type != "fixed"}


def _load(path, floating, **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # repaired inertias, singular mass matrices: tested elsewhere
        return sd.Model.from_urdf(path, floating_base=floating, **kw)


def _reference_G(model: MimicModel, tree: sd.Model, couplings: dict) -> tuple:
    """(G, q_tree(q)) built from the URDF tags and the tree's joint table, independently of soadyn.mimic."""
    def root(name):
        p, m, o = couplings[name]
        if p in couplings:
            p2, m2, o2 = root(p)
            return p2, m * m2, m * o2 + o
        return p, m, o

    G = np.zeros((tree.nv, model.nv))
    col = {}
    for k, name in enumerate(model.jnt_names):
        i = tree.joint_id(name)
        for d in range(tree.jnt_nv[i]):
            G[tree.jnt_vadr[i] + d, model.jnt_vadr[k] + d] = 1.0
        col[name] = (model.jnt_qadr[k], model.jnt_vadr[k])

    for name in couplings:
        p, m, _ = root(name)
        G[tree.jnt_vadr[tree.joint_id(name)], col[p][1]] += m

    def q_tree(q):
        out = np.empty(tree.nq)
        for k, name in enumerate(model.jnt_names):
            i = tree.joint_id(name)
            out[tree.jnt_qadr[i]:tree.jnt_qadr[i] + tree.jnt_nq[i]] = q[model.jnt_qadr[k]:model.jnt_qadr[k] + model.jnt_nq[k]]
        for name in couplings:
            p, m, o = root(name)
            out[tree.jnt_qadr[tree.joint_id(name)]] = m * q[col[p][0]] + o
        return out

    return G, q_tree


@pytest.mark.parametrize("urdf", MIMIC_URDFS)
def test_mimic_model_matches_pinocchio(urdf):
    path = str(ROOT / urdf)
    floating = "panda" in urdf or "talos" in urdf
    couplings = _couplings(path)
    try:
        model = _load(path, floating, mimic=True)
    except ModelError as exc:  # a <mimic joint=...> that names no joint (alex_psyonic_hands)
        assert any(p not in {j for j in couplings} and f"{p!r} is not a moving joint" in str(exc)
                   for p, _, _ in couplings.values()), str(exc)
        return
    if not couplings:  # <mimic> on fixed joints only (talos_left_arm): nothing to couple
        assert isinstance(model, sd.Model)
        return
    tree, repaired = _load_tree(path, floating)
    assert isinstance(model, MimicModel) and model.nv == tree.nv - len(couplings)
    assert set(model.mimic_names) == set(couplings)
    G, q_tree = _reference_G(model, tree, couplings)
    assert_close(model.G, G, 0.0, f"{urdf}: coupling matrix")
    ptree = pin.buildModelFromUrdf(path, pin.JointModelFreeFlyer()) if floating else pin.buildModelFromUrdf(path)
    _share_repaired_inertias(tree, ptree, repaired, urdf)
    try:
        pmimic = (pin.buildModelFromUrdf(path, pin.JointModelFreeFlyer(), mimic=True) if floating
                  else pin.buildModelFromUrdf(path, mimic=True))
        for i in range(1, pmimic.njoints):  # the same (repaired) inertias as the tree
            pmimic.inertias[i] = ptree.inertias[ptree.getJointId(pmimic.names[i])]
    except (RuntimeError, ValueError):  # Pinocchio wants primaries before their mimics (talos)
        pmimic = None
    ct, data, pdt = Coords(tree, ptree), model.data(), ptree.createData()
    singular = bool(sd.builder.singular_mass_joints(model.tree))
    rng = np.random.default_rng(len(urdf))
    q, qd, qdd, tau = model.random_q(rng), *rng.normal(size=(3, model.nv))
    qt = q_tree(q)
    assert_close(model.tree_q(q), qt, SAME_MATH, f"{urdf}: tree configuration")
    Mt = ct.matrix_to_sd(sym_upper(pin.crba(ptree, pdt, ct.q(qt))))
    M = G.T @ Mt @ G
    rnea_ref = G.T @ ct.to_sd(pin.rnea(ptree, pdt, ct.q(qt), ct.v(G @ qd), ct.v(G @ qdd)))
    assert_close(sd.crba(model, data, q), M, PIN_TOL, f"{urdf}: M = G^T M_tree G")
    assert_close(sd.rnea(model, data, q, qd, qdd), rnea_ref, PIN_TOL, f"{urdf}: rnea")
    pin.computeJointJacobians(ptree, pdt, ct.q(qt))
    pin.updateFramePlacements(ptree, pdt)
    # the last links in tree order: grippers and hands, where the mimic joints are
    links = [f.name for f in ptree.frames if f.type == pin.FrameType.BODY and f.name in model.frame_names][-N_LINKS:]
    for name in links:
        Jt = ct.jacobian_to_sd(pin.getFrameJacobian(ptree, pdt, ptree.getFrameId(name, pin.BODY), pin.LOCAL))
        assert_close(sd.frame_jacobian(model, data, q, name), Jt @ G, PIN_TOL, f"{urdf}: Jacobian of {name}")
        assert_close(sd.frame_pose(model, data, q, name), pdt.oMf[ptree.getFrameId(name, pin.BODY)].homogeneous,
                     PIN_TOL, f"{urdf}: pose of {name}")
    if pmimic is not None:
        cm, pdm = Coords(model, pmimic), pmimic.createData()
        assert_close(sd.crba(model, data, q), cm.matrix_to_sd(sym_upper(pin.crba(pmimic, pdm, cm.q(q)))), PIN_TOL,
                     f"{urdf}: M vs Pinocchio mimic=True")
        assert_close(sd.rnea(model, data, q, qd, qdd), cm.to_sd(pin.rnea(pmimic, pdm, cm.q(q), cm.v(qd), cm.v(qdd))),
                     PIN_TOL, f"{urdf}: rnea vs Pinocchio mimic=True")
        pin.computeJointJacobians(pmimic, pdm, cm.q(q))
        pin.updateFramePlacements(pmimic, pdm)
        for name in links:
            Jp = pin.getFrameJacobian(pmimic, pdm, pmimic.getFrameId(name, pin.BODY), pin.LOCAL)
            assert_close(sd.frame_jacobian(model, data, q, name), cm.jacobian_to_sd(Jp), PIN_TOL,
                         f"{urdf}: Jacobian of {name} vs Pinocchio mimic=True")
    if singular:
        with pytest.raises(ValueError, match="without inertia"):
            sd.aba(model, data, q, qd, tau)
        return
    bias = G.T @ ct.to_sd(pin.rnea(ptree, pdt, ct.q(qt), ct.v(G @ qd), np.zeros(tree.nv)))
    tol = max(PIN_TOL, 1e-15 * np.linalg.cond(M))
    assert_close(sd.aba(model, data, q, qd, tau), np.linalg.solve(M, tau - bias), tol, f"{urdf}: aba")
    assert_close(sd.minv(model, data, q), np.linalg.inv(M), tol, f"{urdf}: minv")
    # operational space nodes: the last two links that move (a frame fixed to the world has none)
    nodes = [n for n in links if model.tree.frame_body[model.tree.frame_id(n)] >= 0][-2:]
    assert len(nodes) == 2, f"{urdf}: two moving links expected among {links}"
    Jn = np.vstack([sd.frame_jacobian(model, data, q, n).copy() for n in nodes])
    assert_close(sd.osim_inv(model, data, q, nodes), Jn @ np.linalg.solve(M, Jn.T), tol, f"{urdf}: osim_inv")
    sel = np.vstack([Jn[:6], Jn[9:12]])  # a 6-row node and a 3-row point node
    assert_close(sd.osim_inv(model, data, q, nodes, dims=[6, 3]), sel @ np.linalg.solve(M, sel.T), tol,
                 f"{urdf}: osim_inv with dims [6, 3]")


# ------------------------------------------------------------------------------------------ unit cases
def _chain(mimic_tags: str, extra_joint: str = "") -> str:
    link = ('<link name="{}"><inertial><origin xyz="0.1 0 0"/><mass value="1"/><inertia ixx="0.01" ixy="0" '
            'ixz="0" iyy="0.02" iyz="0" izz="0.02"/></inertial></link>')
    joint = ('<joint name="{}" type="{}"><parent link="{}"/><child link="{}"/><origin xyz="0.3 0 0"/>'
             '<axis xyz="0 0 1"/><limit lower="-2" upper="2" effort="1" velocity="1"/>{}</joint>')
    parts = [link.format(n) for n in ("base", "a", "b", "c")]
    parts += [joint.format("ja", "revolute", "base", "a", ""), joint.format("jb", "revolute", "a", "b", ""),
              joint.format("jc", "prismatic", "base", "c", mimic_tags), extra_joint]
    return '<robot name="m">' + "".join(parts) + "</robot>"


def test_mimic_follows_primary_with_multiplier_and_offset():
    xml = _chain('<mimic joint="ja" multiplier="-0.5" offset="0.2"/>')
    model = load_urdf_string(xml, mimic=True)
    assert model.jnt_names == ("ja", "jb") and (model.nq, model.nv) == (2, 2)
    q = np.array([0.8, -0.3])
    qt = model.tree_q(q)
    assert_close(qt[model.tree.jnt_qadr[model.tree.joint_id("jc")]], -0.5 * 0.8 + 0.2, SAME_MATH, "q_mimic")
    # the mimic joint's motion is the primary's: a frame on c moves with ja only
    J = sd.frame_jacobian(model, model.data(), q, "c", "world_aligned")
    assert_close(J[:, 1], np.zeros(6), 0.0, "c does not move with jb")
    assert_close(J[:, 0], [0, 0, 0, 0, 0, -0.5], SAME_MATH, "c slides at -0.5 m/rad of ja along world z")
    with pytest.raises(ValueError, match="mimic joint"):
        model.joint_id("jc")


def test_chained_mimics_resolve_to_the_primary_and_bad_primaries_are_refused():
    chained = _chain('<mimic joint="jb" multiplier="2" offset="0.1"/>').replace(
        '<joint name="jb" type="revolute"><parent link="a"/><child link="b"/><origin xyz="0.3 0 0"/><axis xyz="0 0 1"/>'
        '<limit lower="-2" upper="2" effort="1" velocity="1"/>',
        '<joint name="jb" type="revolute"><parent link="a"/><child link="b"/><origin xyz="0.3 0 0"/><axis xyz="0 0 1"/>'
        '<limit lower="-2" upper="2" effort="1" velocity="1"/><mimic joint="ja" multiplier="3" offset="1"/>')
    model = load_urdf_string(chained, mimic=True)
    assert model.jnt_names == ("ja",) and model.mimic_primary == ("ja", "ja")
    qt = model.tree_q([0.5])
    t = model.tree
    assert_close(qt[t.jnt_qadr[t.joint_id("jb")]], 3 * 0.5 + 1, SAME_MATH, "q_jb")
    assert_close(qt[t.jnt_qadr[t.joint_id("jc")]], 2 * (3 * 0.5 + 1) + 0.1, SAME_MATH, "q_jc through jb")
    with pytest.raises(ModelError, match="mimic joint 'jc': 'nope' is not a moving joint"):
        load_urdf_string(_chain('<mimic joint="nope"/>'), mimic=True)


def test_mimic_dynamics_are_the_constrained_tree_dynamics():
    """Physics: the coupled system conserves energy-rate balance, d/dt (qd^T M qd / 2) = qd^T (tau - g)
    at rest-free gravity, checked through the power identity qd^T (M qdd + C qd) = d/dt T by finite
    differences of the kinetic energy along the motion."""
    model = load_urdf_string(_chain('<mimic joint="ja" multiplier="-0.5" offset="0.2"/>'), mimic=True)
    data = model.data()
    rng = np.random.default_rng(4)
    q, qd = model.random_q(rng), rng.normal(size=model.nv)
    qdd = sd.aba(model, data, q, qd, np.zeros(model.nv)).copy()
    assert_close(sd.rnea(model, data, q, qd, qdd), np.zeros(model.nv), ALGORITHMS, "rnea(aba(0)) = 0")

    def kinetic(qq, vv):
        return 0.5 * vv @ sd.crba(model, data, qq) @ vv

    h = 1e-6
    dT = (kinetic(q + h * qd, qd + h * qdd) - kinetic(q - h * qd, qd - h * qdd)) / (2 * h)
    g = sd.rnea(model, data, q, np.zeros(2), np.zeros(2)).copy()
    assert abs(dT - (-qd @ g)) <= 1e-6 * max(1.0, abs(dT)), f"power balance {dT} vs {-qd @ g}"
