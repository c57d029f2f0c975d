"""Mimic joints as exact couplings (URDF ``<mimic>``; Pinocchio 4's ``buildModelFromUrdf(path, mimic=True)``).

A :class:`MimicModel` wraps the tree :class:`~soadyn.model.Model` that has every joint. Its coordinates are
those of the independent joints only; each mimic joint ``m`` (1-dof) follows its primary ``p``:

    q_m = multiplier * q_p + offset,        qd_m = multiplier * qd_p,        qdd_m = multiplier * qdd_p.

With the constant coupling matrix ``G`` (tree velocities = ``G`` times independent velocities; an identity
row per independent dof, ``multiplier`` in a mimic dof's row at its primary's column) the constrained
dynamics are those of the tree restricted to ``qd_tree = G qd`` (the coupling is holonomic and linear, so
``Gdot = 0``, and the coupling forces do no work on admissible motions):

    M = G^T M_tree G,    tau = G^T rnea_tree(q_tree, G qd, G qdd, f_ext),    J = J_tree G,
    qdd = M^-1 (tau - G^T rnea_tree(q_tree, G qd, 0, f_ext)),    Lambda^-1 = J M^-1 J^T.

Cost: the tree algorithms (O(N) RNEA, O(N d) CRBA) plus dense products with ``G``: ``M`` costs an extra
O(N^2 n) and forward dynamics a Cholesky factorization of the reduced ``M``, O(n^3) (``n`` independent
dofs): no O(N) articulated-body form is used, because a mimic coupling spans two branches of the tree in
general (a gripper's fingers), which the ABA recursion cannot absorb. Pinocchio 4 offers RNEA, CRBA and
Jacobians on mimic models and refuses ABA and M^-1.

Every public function of :mod:`soadyn.dynamics` and :func:`soadyn.osim_inv` accepts a
MimicModel with its :meth:`MimicModel.data`; simulation and loop closures need a plain tree model.
"""

from __future__ import annotations

import numpy as np

from . import dynamics as D
from . import joints as J
from .osim import node_set
from .model import Model, ModelError

__all__ = ["MimicModel", "MimicData"]

MIMIC_TYPES = (J.REVOLUTE, J.PRISMATIC, J.HELICAL)
"""Joint types a mimic joint and its primary may have (1-dof, q and qd of the same size)."""


class MimicModel:
    """A tree model with mimic couplings; coordinates are the independent joints' (see the module doc).

    ``tree``: the model with every joint; ``mimic``: ``{mimic joint: (primary joint, multiplier, offset)}``
    (a primary that is itself a mimic joint is resolved to its own primary)."""

    def __init__(self, tree: Model, mimic: dict):
        self.tree = tree
        self.name = tree.name
        resolved = {m: _resolve(tree, mimic, m) for m in mimic}
        independent = [i for i, n in enumerate(tree.jnt_names) if n not in resolved]
        self.mimic_names = tuple(n for n in tree.jnt_names if n in resolved)
        self.mimic_primary = tuple(resolved[n][0] for n in self.mimic_names)
        self.mimic_multiplier = np.array([resolved[n][1] for n in self.mimic_names], dtype=float)
        self.mimic_offset = np.array([resolved[n][2] for n in self.mimic_names], dtype=float)
        t = tree
        self.jnt_names = tuple(t.jnt_names[i] for i in independent)
        self.jnt_type = t.jnt_type[independent]
        self.jnt_nq, self.jnt_nv = t.jnt_nq[independent], t.jnt_nv[independent]
        self.jnt_lower, self.jnt_upper = t.jnt_lower[independent], t.jnt_upper[independent]
        self.jnt_qadr = np.concatenate([[0], np.cumsum(self.jnt_nq)[:-1]]).astype(np.int64)
        self.jnt_vadr = np.concatenate([[0], np.cumsum(self.jnt_nv)[:-1]]).astype(np.int64)
        self.nq, self.nv = int(self.jnt_nq.sum()), int(self.jnt_nv.sum())
        self.frame_names, self.nf, self.gravity = t.frame_names, t.nf, t.gravity
        # index maps: tree coordinates of the independent ones, and each mimic dof's primary coordinate
        self._q_ind = np.concatenate([np.arange(t.jnt_qadr[i], t.jnt_qadr[i] + t.jnt_nq[i]) for i in independent]
                                     + [np.zeros(0, np.int64)]).astype(np.int64)
        self._v_ind = np.concatenate([np.arange(t.jnt_vadr[i], t.jnt_vadr[i] + t.jnt_nv[i]) for i in independent]
                                     + [np.zeros(0, np.int64)]).astype(np.int64)
        own = {n: k for k, n in enumerate(self.jnt_names)}
        self._q_mimic = np.array([t.jnt_qadr[t.joint_id(n)] for n in self.mimic_names], dtype=np.int64)
        self._v_mimic = np.array([t.jnt_vadr[t.joint_id(n)] for n in self.mimic_names], dtype=np.int64)
        self._q_primary = np.array([self.jnt_qadr[own[p]] for p in self.mimic_primary], dtype=np.int64)
        self._v_primary = np.array([self.jnt_vadr[own[p]] for p in self.mimic_primary], dtype=np.int64)
        G = np.zeros((t.nv, self.nv))
        G[self._v_ind, np.arange(self.nv)] = 1.0
        G[self._v_mimic, self._v_primary] = self.mimic_multiplier
        G.setflags(write=False)
        self.G = G
        """(tree nv, nv) coupling: tree velocities = G @ independent velocities."""

    # ------------------------------------------------------------------ coordinates
    def tree_q(self, q) -> np.ndarray:
        """The tree configuration of the independent configuration ``q`` (a new array)."""
        q = D.as_array(q, (self.nq,), "q")
        out = np.empty(self.tree.nq)
        out[self._q_ind] = q
        out[self._q_mimic] = self.mimic_multiplier * q[self._q_primary] + self.mimic_offset
        return out

    def tree_v(self, v, name: str = "qd") -> np.ndarray:
        """``G v``: the tree velocity (or acceleration) of an independent one (a new array)."""
        v = D.as_array(v, (self.nv,), name)
        out = np.empty(self.tree.nv)
        out[self._v_ind] = v
        out[self._v_mimic] = self.mimic_multiplier * v[self._v_primary]
        return out

    def reduce(self, f) -> np.ndarray:
        """``G^T f``: a tree generalized force as a force on the independent coordinates."""
        return self.G.T @ f

    def neutral_q(self) -> np.ndarray:
        return self.tree.neutral_q()[self._q_ind]

    def random_q(self, rng=None, scale: float = np.pi) -> np.ndarray:
        """A random configuration of the independent joints (as :meth:`Model.random_q`)."""
        return self.tree.random_q(rng, scale)[self._q_ind]

    # ------------------------------------------------------------------ names and workspace
    def frame_id(self, frame) -> int:
        return self.tree.frame_id(frame)

    def body_id(self, body) -> int:
        return self.tree.body_id(body)

    def joint_id(self, joint) -> int:
        """Index of an independent joint."""
        if joint in self.mimic_names:
            raise ValueError(f"joint {joint!r} is a mimic joint of {self.mimic_primary[self.mimic_names.index(joint)]!r}: "
                             "it has no coordinate of its own")
        return self.jnt_names.index(joint) if joint in self.jnt_names else self.tree.joint_id(joint)

    def data(self) -> "MimicData":
        return MimicData(self)

    def coupled_call(self, fname: str, *args):
        """Run the public function ``fname`` of :mod:`soadyn.dynamics` or :mod:`soadyn.osim` on this model
        (``args`` as that function takes them after ``model``)."""
        if fname not in _NO_DATA and getattr(args[0], "model", None) is not self:
            raise ValueError("data: not a Data of this model (create it with model.data())")
        return _FUNCTIONS[fname](self, *args)

    def __repr__(self) -> str:
        return (f"<soadyn.MimicModel {self.name!r} nq={self.nq} nv={self.nv} mimic joints={len(self.mimic_names)} "
                f"(tree nq={self.tree.nq} nv={self.tree.nv})>")


class MimicData:
    """Workspace of a :class:`MimicModel`: the tree's Data plus the reduced outputs."""

    def __init__(self, model: MimicModel):
        self.model = model
        self.tree = model.tree.data()
        self.M = np.zeros((model.nv, model.nv))
        self.Minv = np.zeros((model.nv, model.nv))
        self.tau = np.zeros(model.nv)
        self.qdd = np.zeros(model.nv)
        self.J = np.zeros((6, model.nv))


def _resolve(tree: Model, mimic: dict, name: str, depth: int = 0) -> tuple:
    """(independent primary, multiplier, offset) of the mimic joint ``name``, through chains of mimics."""
    primary, mult, off = mimic[name]
    for n in (name, primary):
        if n not in tree.jnt_names:
            raise ModelError(f"mimic joint {name!r}: {n!r} is not a moving joint of the model")
        if tree.jnt_type[tree.joint_id(n)] not in MIMIC_TYPES:
            raise ModelError(f"mimic joint {name!r}: {n!r} is a {J.JOINT_TYPE_NAMES[tree.jnt_type[tree.joint_id(n)]]} "
                             "joint; mimic couplings join 1-dof joints")
    if primary in mimic:
        if depth > len(mimic):
            raise ModelError(f"mimic joint {name!r}: the mimic relations form a cycle")
        p2, m2, o2 = _resolve(tree, mimic, primary, depth + 1)
        return p2, mult * m2, mult * o2 + off
    return primary, float(mult), float(off)


# ------------------------------------------------------------------------------------------ functions
def _tree_state(model: MimicModel, data: MimicData, q, qd=None):
    return model.tree_q(q), (None if qd is None else model.tree_v(qd))


def _fk(model, data, q, qd=None):
    qt, vt = _tree_state(model, data, q, qd)
    return D.fk(model.tree, data.tree, qt, vt)


def _frame_pose(model, data, q, frame):
    return D.frame_pose(model.tree, data.tree, model.tree_q(q), frame)


def _frame_jacobian(model, data, q, frame, reference="local"):
    np.matmul(D.frame_jacobian(model.tree, data.tree, model.tree_q(q), frame, reference), model.G, out=data.J)
    return data.J


def _frame_velocity(model, data, q, qd, frame, reference="local"):
    return D.frame_velocity(model.tree, data.tree, *_tree_state(model, data, q, qd), frame, reference)


def _frame_bias_acceleration(model, data, q, qd, frame, reference="local"):
    return D.frame_bias_acceleration(model.tree, data.tree, *_tree_state(model, data, q, qd), frame, reference)


def _rnea(model, data, q, qd, qdd, f_ext=None):
    qt, vt = _tree_state(model, data, q, qd)
    tau = D.rnea(model.tree, data.tree, qt, vt, model.tree_v(qdd, "qdd"), f_ext)
    data.tau[:] = model.reduce(tau)
    return D.finite_result(data.tau, "rnea")


def _crba(model, data, q):
    Mt = D.crba(model.tree, data.tree, model.tree_q(q))
    data.M[:] = model.G.T @ Mt @ model.G
    return data.M


def _factor(model, data, q) -> np.ndarray:
    """Cholesky factor of the reduced mass matrix at ``q``; ValueError naming a massless joint if singular."""
    M = _crba(model, data, q)
    try:
        return np.linalg.cholesky(M)
    except np.linalg.LinAlgError:
        massless = [n for n in _massless(model)] or ["(a combination of joints)"]
        raise ValueError(f"mass matrix is singular: joint {massless[0]!r} moves a subtree without inertia along "
                         "one of its axes (the reduced mass matrix of the mimic model is not positive definite)") from None


def _massless(model):
    from .builder import singular_mass_joints

    return [n for n in singular_mass_joints(model.tree) if n in model.jnt_names]


def _aba(model, data, q, qd, tau, f_ext=None):
    L = _factor(model, data, q)
    tau = D.as_array(tau, (model.nv,), "tau")
    qt, vt = _tree_state(model, data, q, qd)
    bias = model.reduce(D.rnea(model.tree, data.tree, qt, vt, np.zeros(model.tree.nv), f_ext))
    data.qdd[:] = _cho_solve(L, tau - bias)
    return D.finite_result(data.qdd, "aba")


def _minv(model, data, q):
    L = _factor(model, data, q)
    data.Minv[:] = _cho_solve(L, np.eye(model.nv))
    return data.Minv


def _cho_solve(L, b):
    return np.linalg.solve(L.T, np.linalg.solve(L, b))


def _aba_batch(model, Q, QD, TAU):
    data = model.data()
    return np.array([_aba(model, data, q, qd, tau).copy() for q, qd, tau in _rows(model, Q, QD, TAU, "TAU")])


def _rnea_batch(model, Q, QD, QDD):
    data = model.data()
    return np.array([_rnea(model, data, q, qd, qdd).copy() for q, qd, qdd in _rows(model, Q, QD, QDD, "QDD")])


def _rows(model, Q, QD, X, xname):
    Q = np.asarray(Q, dtype=float)
    if Q.ndim != 2 or Q.shape[1] != model.nq:
        raise ValueError(f"Q: expected shape (K, {model.nq}), got {Q.shape}")
    QD = D.as_array(QD, (Q.shape[0], model.nv), "QD")
    X = D.as_array(X, (Q.shape[0], model.nv), xname)
    return zip(Q, QD, X)


def _integrate(model, q, v, dt=1.0):
    return D.integrate(model.tree, model.tree_q(q), model.tree_v(v, "v"), dt)[model._q_ind]


def _difference(model, q0, q1):
    return D.difference(model.tree, model.tree_q(q0), model.tree_q(q1))[model._v_ind]


def _osim_inv(model, data, q, frames, dims=None, reference="local", method="jain"):
    """``Lambda^-1 = J M^-1 J^T`` of the nodes ``frames`` with ``dims`` as :func:`soadyn.osim_inv` takes them
    (6-row, 3-row point or (d x 6) selection nodes): each node's rows are its selection times the frame
    Jacobian ``J_tree G``; ``M^-1`` through the Cholesky factor of the reduced ``M`` (``method`` is not
    used: there is one route on a mimic model)."""
    ns = node_set(model.tree, data.tree, frames, dims)
    if reference != "local" and not ns.rotatable:
        raise ValueError("reference='world_aligned' needs 6-row or 3-row (point) nodes, not custom selections")
    Jn = np.vstack([ns.sel[a, :ns.dim[a]] @ _frame_jacobian(model, data, q, f, reference)
                    for a, f in enumerate(ns.frames)])
    L = _factor(model, data, q)
    Y = np.linalg.solve(L, Jn.T)
    return Y.T @ Y


_FUNCTIONS = {
    "fk": _fk, "frame_pose": _frame_pose, "frame_jacobian": _frame_jacobian, "frame_velocity": _frame_velocity,
    "frame_bias_acceleration": _frame_bias_acceleration, "rnea": _rnea, "crba": _crba, "aba": _aba,
    "minv": _minv, "osim_inv": _osim_inv, "aba_batch": _aba_batch, "rnea_batch": _rnea_batch,
    "integrate": _integrate, "difference": _difference,
}
_NO_DATA = ("aba_batch", "rnea_batch", "integrate", "difference")
