"""Operational space compliance: Jain's recursion and Chang-Khatib's path form against the dense
``J M^-1 J^T``, against each other, and against Pinocchio's Delassus matrix."""

import importlib
import os
import subprocess
import sys

import numpy as np
import pytest
from scipy.spatial.transform import Rotation

import soadyn as sd
from soadyn.models import ALL_JOINTS, auto_tree
from soadyn.osim import SingularCompliance, osim, osim_inv
from tests.support import ALGORITHMS, EXTERNAL, assert_close

OSIM_REL = 1e-10
"""osim_inv vs the dense J M^-1 J^T, relative to the largest entry (the issue's bound)."""

LINEAR = np.eye(6)[3:]


def _selection(d):
    if isinstance(d, np.ndarray):
        return d
    return np.eye(6) if d == 6 else LINEAR


def dense_compliance(model, data, q, frames, dims, reference="local"):
    """``Sel J M^-1 J^T Sel^T`` from the frame Jacobians and a dense inverse of CRBA's M."""
    Minv = np.linalg.inv(sd.crba(model, data, q))
    J = np.vstack([_selection(d) @ sd.frame_jacobian(model, data, q, f, reference) for f, d in zip(frames, dims)])
    return J @ Minv @ J.T


CASES = [  # (nb, branching, seed)
    (6, 1.0, 1), (12, 1.0, 2), (12, 1.5, 3), (12, 2.0, 4), (15, 3.0, 5),
]


@pytest.mark.parametrize("nb,bf,seed", CASES)
@pytest.mark.parametrize("method", ["jain", "chang_khatib"])
def test_osim_inv_matches_dense_on_random_trees(nb, bf, seed, method):
    model = auto_tree(nb, branching=bf, joint_mix=ALL_JOINTS, seed=seed)
    data = model.data()
    rng = np.random.default_rng(seed)
    q = model.random_q(rng)
    tips = [f"tip{i}" for i in rng.choice(nb, 4, replace=False)]
    # mixed 6-D / 3-D / custom selections, a repeated node, a node on an ancestor (body0) and a second
    # frame on the same body as another node
    frames = tips + [tips[0], "body0", f"body{int(tips[1][3:])}"]
    dims = [6, 3, 6, np.array([[0, 0, 1.0, 0, 0, 0], [0, 0, 0, 0.6, 0.8, 0]]), 3, 6, 3]
    L = osim_inv(model, data, q, frames, dims, method=method)
    ref = dense_compliance(model, data, q, frames, dims)
    assert_close(L, ref, OSIM_REL, f"Lambda^-1 ({method}, nb={nb}, bf={bf})", scale=np.abs(ref).max())
    assert_close(L, L.T, 1e-14, "symmetry", scale=np.abs(ref).max())


@pytest.mark.parametrize("seed", [0, 1])
def test_world_aligned_and_methods_agree(seed):
    model = auto_tree(10, branching=2.0, joint_mix=ALL_JOINTS, seed=seed)
    data = model.data()
    q = model.random_q(seed)
    frames, dims = ["tip9", "tip4", "tip7"], [6, 3, 3]
    Lw = osim_inv(model, data, q, frames, dims, reference="world_aligned")
    assert_close(Lw, dense_compliance(model, data, q, frames, dims, "world_aligned"), OSIM_REL, "world-aligned",
                 scale=np.abs(Lw).max())
    La = osim_inv(model, data, q, frames, dims, method="jain")
    Lb = osim_inv(model, data, q, frames, dims, method="chang_khatib")
    assert_close(La, Lb, ALGORITHMS, "Jain vs Chang-Khatib", scale=np.abs(La).max())


def test_disjoint_subtrees_are_uncoupled():
    """Two floating bodies attached to the world separately: their cross blocks vanish."""
    b = sd.ModelBuilder("two")
    for name in ("a", "c"):
        b.add_body(name, "world", sd.joints.Free(), None, sd.Inertia.box(1.0, (0.1, 0.2, 0.3)))
    model = b.finalize()
    data = model.data()
    L = osim_inv(model, data, model.random_q(3), ["a", "c"])
    assert np.all(L[:6, 6:] == 0.0)
    assert_close(L[:6, :6], dense_compliance(model, data, model.random_q(3), ["a"], [6]), OSIM_REL, "free body")



def _forest():
    """Two trees on the world: ``a`` (a free base; ``a2`` and ``b0`` carry no node and join node-carrying
    subtrees; a cylindrical and a universal joint on the way) and ``b`` (a spherical base)."""
    rng = np.random.default_rng(7)
    b = sd.ModelBuilder("forest")

    def add(name, parent, joint):
        E = Rotation.from_rotvec(rng.uniform(-1, 1, 3)).as_matrix()
        b.add_body(name, parent, joint, sd.Transform(E, rng.uniform(-0.3, 0.3, 3)),
                   sd.Inertia.box(rng.uniform(0.5, 2.0), tuple(rng.uniform(0.05, 0.3, 3))))

    add("a0", "world", sd.joints.Free())
    add("a1", "a0", sd.joints.Revolute((0, 1.0, 0)))
    add("a2", "a1", sd.joints.Cylindrical((1.0, 0, 0)))
    add("a3", "a2", sd.joints.Revolute((0, 0, 1.0)))
    add("a4", "a3", sd.joints.Prismatic((0, 1.0, 0)))
    add("a5", "a2", sd.joints.Universal())
    add("a6", "a5", sd.joints.Revolute((1.0, 0, 0)))
    add("a7", "a0", sd.joints.Revolute((0, 0, 1.0)))
    add("b0", "world", sd.joints.Spherical())
    add("b1", "b0", sd.joints.Revolute((0, 1.0, 0)))
    add("b2", "b0", sd.joints.Revolute((1.0, 0, 0)))
    b.add_frame("a4_tool", "a4", sd.Transform(np.eye(3), (0.1, -0.2, 0.05)))
    return b.finalize()


@pytest.mark.parametrize("seed", [0, 1])
def test_node_tree_reads_only_what_it_computes(seed):
    """Jain's passes keep their vertex compliances and node tree in the node set's scratch, and compute only
    the vertex pairs that the node pairs need: with the scratch filled with NaN (and nonsense indices) before
    the call, Lambda^-1 of nodes on a forest (vertices without a node, two world roots, two nodes on one body,
    6-D, point and general selections) is finite and matches the dense J M^-1 J^T and the path walks."""
    osim_mod = importlib.import_module("soadyn.osim")
    model = _forest()
    data = model.data()
    q = model.random_q(seed)
    frames = ["a4", "a6", "a7", "b1", "b2", "a4_tool", "a1"]
    dims = [6, 3, np.array([[0, 0, 1.0, 0, 0, 0], [0, 0, 0, 0.6, 0.8, 0]]), 6, 3, 6, 6]
    ns = osim_mod.node_set(model, data, frames, dims)
    n = len(frames)
    ns.node_int[3 * n + 1:] = 10 ** 6
    ns.node_float[48 * n:] = np.nan
    L = osim_inv(model, data, q, frames, dims)
    ref = dense_compliance(model, data, q, frames, dims)
    assert np.all(np.isfinite(L))
    assert_close(L, ref, OSIM_REL, "Lambda^-1 on a forest", scale=np.abs(ref).max())
    assert np.array_equal(L, L.T)
    a_rows, b_rows = np.r_[0:11, 20:32], np.r_[11:20]  # b1, b2 against the nodes of tree a
    assert np.all(L[np.ix_(a_rows, b_rows)] == 0.0)
    Lb = osim_inv(model, data, q, frames, dims, method="chang_khatib")
    assert_close(L, Lb, ALGORITHMS, "Jain vs Chang-Khatib on a forest", scale=np.abs(ref).max())


ALLOCATIONS = """
import numpy as np
from numba.core.runtime import rtsys
import soadyn as sd
model = sd.models.auto_tree(12, branching=2.0, seed=3)
data = model.data()
q = model.random_q(0)
frames = ["tip11", "tip5", "tip8", "body0"]
sd.osim_inv(model, data, q, frames, [6, 3, 6, 6])
before = rtsys.get_allocation_stats().alloc
for _ in range(10):
    sd.osim_inv(model, data, q, frames, [6, 3, 6, 6])
print((rtsys.get_allocation_stats().alloc - before) / 10)
"""


def test_osim_inv_allocates_no_array_of_its_own():
    """numba's allocation count per call of osim_inv is at most one per array argument (the unboxing of the
    eight arguments): the kernel's scratch comes from Data and the node set."""
    env = dict(os.environ, NUMBA_NRT_STATS="1")
    out = subprocess.run([sys.executable, "-c", ALLOCATIONS], env=env, capture_output=True, text=True, check=True)
    assert float(out.stdout.split()[-1]) <= 8

def test_chain_cost_is_linear_in_bodies():
    """Upsilon is needed only on the paths to the nodes: nodes near the root cost nothing below them.
    (Structural check: bodies without nodes below are not visited, so their workspace stays untouched.)"""
    model = auto_tree(30, joint_mix=(sd.joints.REVOLUTE,), seed=0)
    data = model.data()
    data.Ups[:] = np.nan
    osim_inv(model, data, model.random_q(0), ["tip3"])
    assert np.all(np.isfinite(data.Ups[:4])) and np.all(np.isnan(data.Ups[4:]))


def test_singular_compliance_reports_rank_and_nodes():
    model = auto_tree(5, joint_mix=(sd.joints.REVOLUTE,), seed=2)
    data = model.data()
    q = model.random_q(0)
    with pytest.raises(SingularCompliance) as err:
        osim(model, data, q, ["tip4", "tip4"], [3, 3])
    assert err.value.rank == 3 and err.value.nodes == ["tip4", "tip4"]
    assert "rank 3" in str(err.value)
    # a 6-D node on a 5-dof chain is rank deficient too
    with pytest.raises(SingularCompliance):
        osim(model, data, q, ["tip4"])
    Lam = osim(model, data, q, ["tip4"], damping=1e-3)
    Linv = osim_inv(model, data, q, ["tip4"])
    assert_close(Lam, np.linalg.inv(Linv + 1e-3 * np.eye(6)), ALGORITHMS, "damped Lambda",
                 scale=np.abs(Lam).max())


def test_osim_is_the_inverse():
    model = auto_tree(12, branching=1.5, joint_mix=ALL_JOINTS, seed=7)
    data = model.data()
    q = model.random_q(1)
    frames, dims = ["tip11", "tip6"], [6, 3]
    Lam = osim(model, data, q, frames, dims)
    assert_close(Lam @ osim_inv(model, data, q, frames, dims), np.eye(9), ALGORITHMS, "Lambda Lambda^-1")


def test_bad_input():
    model = auto_tree(4, seed=0)
    data = model.data()
    q = model.random_q(0)
    with pytest.raises(ValueError, match="frames"):
        osim_inv(model, data, q, [])
    with pytest.raises(ValueError, match="unknown frame"):
        osim_inv(model, data, q, ["nope"])
    with pytest.raises(ValueError, match="dims"):
        osim_inv(model, data, q, ["tip1"], [4])
    with pytest.raises(ValueError, match="dims"):
        osim_inv(model, data, q, ["tip1", "tip2"], [6])
    with pytest.raises(ValueError, match="method"):
        osim_inv(model, data, q, ["tip1"], method="dense")
    with pytest.raises(ValueError, match="world_aligned"):
        osim_inv(model, data, q, ["tip1"], [np.eye(6)[:2]], reference="world_aligned")
    bad = q.copy()
    bad[0] = np.nan
    with pytest.raises(ValueError, match="q"):
        osim_inv(model, data, bad, ["tip1"])
    with pytest.raises(ValueError, match="damping"):
        osim(model, data, q, ["tip1"], damping=-1.0)


# ------------------------------------------------------------------------------------------ real robots
def _robot(name):
    pytest.importorskip("yourdfpy")
    try:
        return sd.models.robot(name)
    except ValueError as exc:  # example-robot-data missing
        pytest.skip(str(exc))


@pytest.mark.parametrize("name,frames,dims", [
    ("talos", ["gripper_left_base_link", "gripper_right_base_link"], [6, 6]),
    ("talos", ["gripper_left_base_link", "gripper_right_base_link", "left_sole_link", "right_sole_link"],
     [3, 3, 6, 6]),
    ("solo12", ["FL_FOOT", "FR_FOOT", "HL_FOOT", "HR_FOOT"], [3, 3, 3, 3]),
])
def test_robots_match_dense(name, frames, dims):
    model = _robot(name)
    data = model.data()
    for seed in range(2):
        q = model.random_q(seed)
        L = osim_inv(model, data, q, frames, dims)
        assert_close(L, dense_compliance(model, data, q, frames, dims), OSIM_REL, f"{name} Lambda^-1",
                     scale=np.abs(L).max())


@pytest.mark.external
def test_pinocchio_delassus_on_talos():
    pin = pytest.importorskip("pinocchio")
    model = _robot("talos")
    path = str(sd.models.robot_urdf("talos"))
    pm = pin.buildModelFromUrdf(path, pin.JointModelFreeFlyer())
    pd = pm.createData()
    q = model.random_q(4)
    qp = pin.neutral(pm)
    for i, name in enumerate(model.jnt_names):
        jid = pm.getJointId(name)
        a, n = model.jnt_qadr[i], model.jnt_nq[i]
        qp[pm.joints[jid].idx_q:pm.joints[jid].idx_q + n] = q[a:a + n]
    frames = ["gripper_left_base_link", "gripper_right_base_link"]
    for ctype, dim in ((pin.ContactType.CONTACT_6D, 6), (pin.ContactType.CONTACT_3D, 3)):
        cms, cds = pin.StdVec_RigidConstraintModel(), pin.StdVec_RigidConstraintData()
        for f in frames:
            fr = pm.frames[pm.getFrameId(f)]
            cm = pin.RigidConstraintModel(ctype, pm, fr.parentJoint, fr.placement, pin.ReferenceFrame.LOCAL)
            cms.append(cm)
            cds.append(cm.createData())
        pin.initConstraintDynamics(pm, pd, cms, cds)
        ref = pin.computeDelassusMatrix(pm, pd, qp, cms, cds, 0.0)
        L = osim_inv(model, model.data(), q, frames, dim)
        if dim == 6:  # Pinocchio orders [v; w]
            P = np.kron(np.eye(2), np.block([[np.zeros((3, 3)), np.eye(3)], [np.eye(3), np.zeros((3, 3))]]))
            L = P @ L @ P.T
        assert_close(L, ref, EXTERNAL, f"Delassus {dim}-D", scale=np.abs(ref).max())
