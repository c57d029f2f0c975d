"""Constraint embedding (CE) and hybrid CE/TA closed-chain dynamics (Jain et al. 2012 Secs. 1 and 6; Jain,
"Multibody graph transformations and analysis, Part II: closed-chain constraint embedding", Nonlinear
Dynamics 67, 2012).

:meth:`soadyn.model.Model.embed_loops` (:func:`embed_loops`) turns a tree with loop constraints into an
:class:`EmbeddedModel`: the bodies of each embedded loop (the two branches from the loop's frames up to
their common ancestor; loops sharing bodies are merged) become one compound node whose hinge maps the
loop's independent velocities ``theta_dot`` to the spanning-tree velocities ``y_dot = G(y) theta_dot``,
``y_ddot = G theta_ddot + g``. The embedded coordinates ``x`` are the tree coordinates of the bodies
outside embedded loops plus the independent coordinates ``theta`` of each compound node (entries of the
tree's ``q``, in tree order; ``xd`` likewise of ``qd``). The forward dynamics is the articulated-body
algorithm over the nodes (:mod:`soadyn._kernels.embed`): an ODE in minimal coordinates, with the loop
closure held to the loop-solve tolerance and no constraint error control. Loops that are not embedded stay
cut, as loop constraints of the embedded tree solved by Jain 2012 Lemma 2 (hybrid CE/TA).

Loop kinematics ``y(theta)``: Newton's method on the selected rows of the closure error over the dependent
coordinates (``d phi / dq = G_c``), warm-started from the last solution; a singular ``G_dep`` (a dead point)
or no convergence raises :class:`LoopKinematicsError`.
"""

from __future__ import annotations

import numpy as np

from . import joints as J
from ._kernels import embed as _ke
from ._kernels import embed_sim as _ks
from ._kernels import joints as _kj
from .dynamics import as_array, check_status, fk, integrate, kernel_array
from .embedding_nodes import (SCALAR_JOINTS, clusters, loop_bodies, loop_rows, node_dofs, pivoted_columns,
                              planar_closed_form)
from .loops import AssemblyError, LoopError, assemble, constraint_jacobian
from .model import Model, readonly_array
from .trajectory import Trajectory

__all__ = ["EmbeddedModel", "EmbeddedData", "LoopKinematicsError", "embed_loops", "forward_dynamics",
           "METHODS", "DEFAULT_MAX_SIZE", "DEFAULT_HYBRID_SIZE", "LOOP_TOL"]

METHODS = ("auto", "analytic", "newton")
"""Loop kinematics solvers of :func:`embed_loops`."""
DEFAULT_MAX_SIZE = 16
"""Largest compound node (bodies) :func:`embed_loops` builds unless told otherwise."""
DEFAULT_HYBRID_SIZE = 6
"""``loops="auto"``: a loop is embedded while its compound node keeps at most this many tree dofs."""
LOOP_TOL = 1e-13
"""Default loop-solve tolerance on ``max |phi|`` (m or rad)."""
MAX_ITER = 30
"""Newton iterations allowed per loop solve."""


class LoopKinematicsError(AssemblyError):
    """The kinematics of an embedded loop cannot be solved at the given state: carries the ``loop`` name,
    its ``residual``, the configuration ``q`` reached and ``sigma_min``, the smallest singular value of
    the loop's ``G_dep`` there (near zero: a singular configuration, where the dependent coordinates
    bifurcate)."""

    def __init__(self, message: str, loop: str, residual: float, q: np.ndarray, sigma_min: float):
        super().__init__(message, loop, residual, q)
        self.sigma_min = sigma_min


# ------------------------------------------------------------------------------------------- the model
class EmbeddedModel:
    """A tree with loop constraints in which the loops ``embedded_loops`` are embedded (compound nodes) and
    ``cut_loops`` stay cut (TA loop constraints). Build with :meth:`soadyn.model.Model.embed_loops`.

    ``tree``: the original :class:`~soadyn.model.Model`; ``nq``, ``nv``: sizes of the embedded coordinates
    ``x``, ``xd``; ``nl``, ``nc``: the cut loops and their constraint rows; ``x_q``, ``x_v``: the tree ``q``
    and ``qd`` entries the embedded coordinates are; ``nodes``: per compound node (bodies, independent
    joint dofs, loops); ``q_ref``: the reference tree configuration (initial warm start of the loop
    solves); ``tol``, ``max_iter``: the loop solve.
    """

    def __init__(self, tree: Model, loops, independent, method: str, max_size: int, hybrid_size: int, q_ref,
                 tol: float):
        if not isinstance(tree, Model):
            raise ValueError(f"model: expected a soadyn.Model, got {type(tree).__name__}")
        if tree.nl == 0:
            raise LoopError(f"model {tree.name!r} has no loops to embed")
        if np.any(tree.dof_armature):
            raise ValueError(f"model {tree.name!r}: constraint embedding does not support joint armature yet "
                             "(simulate the tree with its loops cut instead: soadyn.Simulator)")
        if method not in METHODS:
            raise ValueError(f"method: expected one of {METHODS}, got {method!r}")
        for v, name in ((max_size, "max_size"), (hybrid_size, "hybrid_size")):
            if isinstance(v, bool) or not isinstance(v, (int, np.integer)) or v < 1:
                raise ValueError(f"{name}: expected a positive integer, got {v!r}")
        if not (isinstance(tol, (int, float)) and np.isfinite(tol) and tol > 0):
            raise ValueError(f"tol: expected a positive finite number, got {tol!r}")
        self.tree = tree
        self.name = f"{tree.name}_embedded"
        self.method = method
        self.tol = float(tol)
        self.max_iter = MAX_ITER
        self.q_ref = _assembled_reference(tree) if q_ref is None else as_array(q_ref, (tree.nq,), "q_ref").copy()
        if not np.all(np.isfinite(self.q_ref)):
            raise ValueError("q_ref: contains NaN or inf")
        Gc = constraint_jacobian(tree, tree.data(), self.q_ref)
        emb = self._select(loops, int(max_size), int(hybrid_size), Gc)
        groups = clusters(tree, emb)
        for bodies, ls in groups:
            if len(bodies) > max_size:
                names = [tree.loop_names[l] for l in sorted(ls)]
                raise LoopError(f"loops {names}: embedding them makes a compound body of {len(bodies)} bodies, "
                                f"more than max_size={max_size}; cut some of them (loops=[...]) or raise max_size")
        self._build(groups, independent or {}, Gc)

    # ------------------------------------------------------------------ choices
    def _select(self, loops, max_size: int, hybrid_size: int, Gc) -> list[int]:
        t = self.tree
        if loops is None:
            return list(range(t.nl))
        if isinstance(loops, str) and loops == "auto":
            # greedy: smallest loops first, embedded while their compound node keeps <= hybrid_size dofs
            chosen: list[int] = []
            for l in sorted(range(t.nl), key=lambda l: len(node_dofs(t, loop_bodies(t, l)))):
                trial = clusters(t, chosen + [l])
                if all(len(node_dofs(t, b)) <= hybrid_size and len(b) <= max_size for b, _ in trial):
                    chosen.append(l)
            return sorted(chosen)
        if isinstance(loops, str) or not all(isinstance(n, str) for n in loops):
            raise ValueError(f"loops: expected None, 'auto' or a list of loop names, got {loops!r}")
        out = []
        for n in loops:
            if n not in t.loop_names:
                raise ValueError(f"loops: unknown loop {n!r}; loops of {t.name!r}: {list(t.loop_names)}")
            out.append(t.loop_names.index(n))
        return sorted(set(out))

    def _build(self, groups, independent: dict, Gc: np.ndarray) -> None:
        t = self.tree
        for key in independent:
            if key not in t.loop_names:
                raise ValueError(f"independent: unknown loop {key!r}; loops of {t.name!r}: {list(t.loop_names)}")
        emb = sorted(l for _, ls in groups for l in ls)
        cut = [l for l in range(t.nl) if l not in emb]
        self.embedded_loops = tuple(t.loop_names[l] for l in emb)
        self.cut_loops = tuple(t.loop_names[l] for l in cut)
        self.nl = len(cut)
        self.nc = int(sum(t.loop_dim[l] for l in cut))
        erow = {}  # tree row -> embedded-loop row
        for r in loop_rows(t, emb):
            erow[r] = len(erow)
        in_node = {}
        specs = []
        for bodies, ls in groups:
            dofs = node_dofs(t, bodies)
            rows = loop_rows(t, ls)
            A = Gc[np.ix_(rows, dofs)]
            sel = pivoted_columns(A.T, [], list(range(len(rows))), np.linalg.matrix_rank(A, tol=1e-9), "loop rows") \
                if len(rows) else []
            A = A[sorted(sel)]
            nr = len(sel)
            names = [t.loop_names[l] for l in sorted(ls)]
            eligible = [j for j, k in enumerate(dofs) if t.jnt_type[t.dof_body[k]] in SCALAR_JOINTS]
            forced = [j for j in range(len(dofs)) if j not in eligible]
            given = [j for l in ls if t.loop_names[l] in independent for j in self._joint_dofs(independent[
                t.loop_names[l]], dofs, t.loop_names[l])]
            if given:
                ind = sorted(set(given))
                if len(ind) != len(dofs) - nr or any(j in forced for j in ind):
                    raise ValueError(f"independent: loops {names} need {len(dofs) - nr} independent 1-dof "
                                     f"coordinates (revolute, prismatic, helical, cylindrical or universal dofs of "
                                     f"their bodies), got {len(ind)}")
                dep = [j for j in range(len(dofs)) if j not in ind]
                if nr and np.linalg.matrix_rank(A[:, dep], tol=1e-9) < nr:
                    raise LoopError(f"independent: for loops {names} the remaining coordinates cannot be solved "
                                    "for at the reference configuration (singular G_dep)")
            else:
                try:
                    dep = pivoted_columns(A, forced, [j for j in eligible if j not in forced], nr - len(forced),
                                   f"loops {names}")
                except LoopError:
                    raise LoopError(f"loops {names}: no set of dependent coordinates is well conditioned at the "
                                    "reference configuration; give q_ref (an assembled configuration away from "
                                    "singular points) or independent={...}") from None
                ind = [j for j in range(len(dofs)) if j not in dep]
            specs.append((sorted(bodies), dofs, set(ind), [erow[r] for r in np.array(rows)[sorted(sel)]], names,
                          sorted(ls)))
            for i in bodies:
                in_node[i] = len(specs) - 1
        # one-body nodes for the other bodies; nodes ordered by their first body
        for i in range(t.nb):
            if i not in in_node:
                dofs = node_dofs(t, [i])
                specs.append(([i], dofs, set(range(len(dofs))), [], [], []))
        specs.sort(key=lambda s: s[0][0])
        self.nodes = tuple({"bodies": tuple(t.body_names[i] for i in b),
                            "independent": tuple(t.jnt_names[t.dof_body[d[j]]] for j in sorted(ind)),
                            "loops": tuple(n)} for b, d, ind, _, n, _ in specs if n)
        self._specs = specs
        self._arrays(specs, emb, cut)

    def _joint_dofs(self, names, dofs, loop: str) -> list[int]:
        t = self.tree
        out = []
        for n in ([names] if isinstance(names, str) else list(names)):
            try:
                i = t.joint_id(n)
            except ValueError:
                raise ValueError(f"independent[{loop!r}]: unknown joint {n!r}") from None
            ks = [j for j, k in enumerate(dofs) if t.dof_body[k] == i]
            if not ks:
                raise ValueError(f"independent[{loop!r}]: joint {n!r} is not in the loop's compound body")
            if t.jnt_type[i] not in SCALAR_JOINTS:
                raise ValueError(f"independent[{loop!r}]: joint {n!r} is a {J.JOINT_TYPE_NAMES[t.jnt_type[i]]} "
                                 "joint; independent coordinates must be revolute, prismatic, helical, "
                                 "cylindrical or universal dofs")
            out += ks
        return out

    def _arrays(self, specs, emb, cut) -> None:
        t = self.tree
        nd, body, bpar, boff, dof, ind, rows = [], [], [], [], [], [], []
        for bodies, dofs, inds, rs, _, _ in specs:
            local = {b: n for n, b in enumerate(bodies)}
            par = {t.body_parent[b] for b in bodies if t.body_parent[b] not in local}
            nd.append([len(body), len(bodies), len(dof), len(dofs), len(inds), len(rows), len(rs), par.pop()])
            off = 0
            for b in bodies:
                body.append(b)
                bpar.append(local.get(t.body_parent[b], -1))
                boff.append(off)
                off += t.jnt_nv[b]
            dof += dofs
            ind += [1 if j in inds else 0 for j in range(len(dofs))]
            rows += rs
        i64 = np.int64
        self._nd = np.array(nd, dtype=i64).reshape(-1, 8)
        self._nodes = tuple(np.array(a, dtype=i64) for a in (body, bpar, boff, dof, ind, rows))
        self._rmax = max([1] + [n[_ke.NR] for n in nd])
        self._ymax = max(n[_ke.NY] for n in nd)
        self._nimax = max(6, max(n[_ke.NI] for n in nd))
        # embedded coordinates: tree q / qd entries in tree order
        indep = {d for n, s in zip(nd, specs) for j, d in enumerate(s[1]) if j in s[2]}
        xq, xv, ej, eqa, eva, eax, eax2, ein = [], [], [], [], [], [], [], []
        multi = {b for s in specs if s[4] for b in s[0]}
        for i in range(t.nb):
            if i not in multi:
                ej.append(t.jnt_type[i])
                eqa.append(len(xq))
                eva.append(len(xv))
                eax.append(t.jnt_axis[i])
                eax2.append(t.jnt_axis2[i])
                ein.append(t.body_I[i])
                xq += range(t.jnt_qadr[i], t.jnt_qadr[i] + t.jnt_nq[i])
                xv += range(t.jnt_vadr[i], t.jnt_vadr[i] + t.jnt_nv[i])
                continue
            for k in range(t.jnt_vadr[i], t.jnt_vadr[i] + t.jnt_nv[i]):
                if k in indep:
                    ej.append(J.REVOLUTE)
                    eqa.append(len(xq))
                    eva.append(len(xv))
                    eax.append((0.0, 0.0, 1.0))
                    eax2.append((0.0, 0.0, 1.0))
                    ein.append(np.zeros((6, 6)))
                    xq.append(t.jnt_qadr[i] + k - t.jnt_vadr[i])
                    xv.append(k)
        self.x_q = np.array(xq, dtype=i64)
        self.x_v = np.array(xv, dtype=i64)
        self.nq, self.nv = len(xq), len(xv)
        v2x = np.full(t.nv, -1, dtype=i64)
        v2x[self.x_v] = np.arange(self.nv)
        self._v2x = v2x
        # the joints of the embedded coordinates (type, q and v addresses, axes, inertias), read-only like the
        # model's joint arrays so that the kernels they reach (integrate_config) compile once
        self.embedded_joints = (readonly_array(ej, i64), readonly_array(eqa, i64), readonly_array(eva, i64),
                                readonly_array(np.reshape(eax, (-1, 3)), np.float64),
                                readonly_array(np.reshape(eax2, (-1, 3)), np.float64),
                                readonly_array(np.reshape(ein, (-1, 6, 6)), np.float64))
        self._emb = self._subset(emb)
        self._cut = self._subset(cut)[:-1]
        self._nce = int(sum(t.loop_dim[l] for l in emb))
        self._emb_ids = np.array(emb, dtype=i64)
        self._cut_ids = np.array(cut, dtype=i64)
        self._closed_forms(specs, emb)

    def _closed_forms(self, specs, emb) -> None:
        """Rows of the closed-form table ``an`` of the nodes that are planar one-dof loops
        of revolute and prismatic joints closed by a planar pin (:mod:`soadyn._kernels.embed_planar`)."""
        t = self.tree
        nn = len(specs)
        self._an = np.zeros((nn, 8), dtype=np.int64)
        if self.method == "newton":
            self.analytic_loops = ()
            return
        oR = fk(t, t.data(), self.q_ref)[0].copy()
        missing = []
        for k, (bodies, dofs, ind, _, names, ls) in enumerate(specs):
            if not ls:
                continue
            row = planar_closed_form(t, oR, bodies, dofs, ind, ls, emb)
            if row is None:
                missing += names
            else:
                self._an[k] = row
        if self.method == "analytic" and missing:
            raise LoopError(f"method='analytic': loops {missing} have no closed form (planar one-dof loops of "
                            "revolute and prismatic joints closed by a planar_pin: four bars, crank sliders); "
                            "use method='auto' or 'newton'")
        self.analytic_loops = tuple(n for s in specs for n in s[4] if n not in missing)

    def _subset(self, ls) -> tuple:
        """The tree's loop arrays (after frame arrays) restricted to the loops ``ls``, rows renumbered, and
        the row -> loop map."""
        t = self.tree
        ls = np.array(ls, dtype=np.int64)
        fa, fb, kind, sel, dim = t.loop_frame_a, t.loop_frame_b, t.loop_kind, t.loop_sel, t.loop_dim
        ax1, ax2, twist = t.loop_axis, t.loop_axis2, t.loop_twist
        d = np.ascontiguousarray(dim[ls])
        row = np.concatenate([[0], np.cumsum(d)]).astype(np.int64)
        row_loop = np.repeat(np.arange(len(ls)), d).astype(np.int64)
        return tuple(np.ascontiguousarray(a[ls]) for a in (fa, fb, kind, sel)) + (d, row) + tuple(
            np.ascontiguousarray(a[ls]).reshape(len(ls), 3) for a in (ax1, ax2, twist)) + (row_loop,)

    @property
    def kernel_args(self) -> tuple:
        """The embedded model's own arrays of the CE kernels (embedded and cut loops, nodes), in kernel order;
        the kernels take them after the tree's ``model_int, model_float`` and its Data's ``data_float``."""
        return self._emb + self._cut + (self._nd,) + self._nodes + (self._v2x, self.x_q, self._an)

    # ------------------------------------------------------------------ public
    def data(self) -> "EmbeddedData":
        """A workspace for this embedded model (one per thread)."""
        return EmbeddedData(self)

    def __repr__(self) -> str:
        return (f"<soadyn.EmbeddedModel {self.name!r} nq={self.nq} nv={self.nv} embedded={list(self.embedded_loops)}"
                f" cut={list(self.cut_loops)}>")

    def from_tree_state(self, q, qd=None) -> tuple[np.ndarray, np.ndarray]:
        """The embedded state ``(x, xd)`` of a tree state (new arrays): the entries ``q[x_q]``, ``qd[x_v]``."""
        q = as_array(q, (self.tree.nq,), "q")
        qd = np.zeros(self.tree.nv) if qd is None else as_array(qd, (self.tree.nv,), "qd")
        for a, n in ((q, "q"), (qd, "qd")):
            if not np.all(np.isfinite(a)):
                raise ValueError(f"{n}: contains NaN or inf")
        return q[self.x_q].copy(), qd[self.x_v].copy()

    def tree_state(self, x, xd=None, data: "EmbeddedData | None" = None) -> tuple[np.ndarray, np.ndarray]:
        """The tree state ``(q, qd)`` (new arrays) of the embedded state ``(x, xd)``: the loop kinematics
        ``y(theta)`` solved to ``tol`` (warm-started from ``data``'s last solution, or ``q_ref``) and
        ``y_dot = G theta_dot``. :class:`LoopKinematicsError` if the loops cannot be closed."""
        data = self.data() if data is None else data
        X = kernel_array(as_array(x, (self.nq,), "x")[None], (1, self.nq), "x")
        XD = np.zeros((1, self.nv)) if xd is None else kernel_array(as_array(xd, (self.nv,), "xd")[None],
                                                                     (1, self.nv), "xd")
        QT, QDT = self._tree_states(data, X, XD, ("x", "xd"))
        return QT[0], QDT[0]

    def tree_states(self, X, XD, data: "EmbeddedData | None" = None) -> tuple[np.ndarray, np.ndarray]:
        """The tree states (K, nq), (K, nv) of the embedded states ``X`` (K, nq), ``XD`` (K, nv) in one kernel
        call (each solve warm-started from the previous row)."""
        data = self.data() if data is None else data
        X = np.atleast_2d(np.asarray(X, dtype=float))
        X = kernel_array(X, (X.shape[0], self.nq), "X")
        XD = kernel_array(XD, (X.shape[0], self.nv), "XD")
        return self._tree_states(data, X, XD, ("X", "XD"))

    def _tree_states(self, data, X, XD, names) -> tuple[np.ndarray, np.ndarray]:
        _check(self, data)
        QT = np.empty((X.shape[0], self.tree.nq))
        QDT = np.empty((X.shape[0], self.tree.nv))
        res = np.empty(X.shape[0])
        d, td = data, data.td
        t = self.tree
        st = _ks.ce_tree_states(t.model_int, t.model_float, td.data_float, *self.kernel_args, X, XD, self.tol,
                                self.max_iter, d.RA, d.pAw, d.Qr, d.phi, d.cv, d.gam, d.Jw, d.Gk, d.LU, d.piv, d.Gm,
                                d.col, d.dq, d.qn, d.R3, d.info, d.q, QT, QDT, res)
        if st != _kj.OK:
            code, row = st & ((1 << _ks.STEP_SHIFT) - 1), (st >> _ks.STEP_SHIFT) - 1
            if code in (_ke.NOT_SOLVED, _ke.LOOP_SINGULAR):
                data.q[:] = self.q_ref  # the failed iterate is no warm start
                raise self.closure_error(data, f"{names[0]}[{row}]" if X.shape[0] > 1 else names[0])
            raise_status(self, code, names + ("input", "f_ext"))
        return QT, QDT

    def tree_trajectory(self, traj):
        """The :class:`~soadyn.sim.Trajectory` of the tree (its ``q``, ``qd``, energies and loop errors) for
        a trajectory of this embedded model, e.g. to compare frame positions and the closure error with TA
        and FA runs."""
        if traj.q.shape[1] != self.nq or traj.model_name not in ("", self.name):
            raise ValueError(f"traj: not a trajectory of {self.name!r} (nq={self.nq})")
        Q, QD = self.tree_states(traj.q, traj.qd)
        return Trajectory.from_states(self.tree, traj.t, Q, QD, stats=dict(traj.stats, embedded=self.name))

    def closure_error(self, data, where: str) -> LoopKinematicsError:
        """The :class:`LoopKinematicsError` of a failed loop solve left in ``data`` (``where``: the input that
        led to it), naming the loop and the smallest singular value of its ``G_dep``."""
        t = self.tree
        info = data.info
        q = data.q_failed if data.q_failed is not None else data.q.copy()
        node, res = int(info[2]), float(info[1])
        spec = self._specs[node] if node >= 0 else None
        row = self._emb[5]

        def err(k):  # k: index among the embedded loops
            return float(np.abs(data.phi[row[k]:row[k + 1]]).max(initial=0.0))

        cands = [k for k, l in enumerate(self._emb_ids) if spec is None or l in spec[5]]
        k = max(cands, key=err)
        l = int(self._emb_ids[k])
        spec = spec or next(s for s in self._specs if l in s[5])
        sig = float("nan")
        if np.all(np.isfinite(q)):
            dep = [d for j, d in enumerate(spec[1]) if j not in spec[2]]
            G = constraint_jacobian(t, t.data(), q)[np.ix_(loop_rows(t, spec[5]), dep)]
            sig = float(np.linalg.svd(G, compute_uv=False).min()) if G.size else sig
        why = "G_dep is singular" if node >= 0 else "Newton did not converge"
        return LoopKinematicsError(
            f"{where}: the kinematics of loop {t.loop_names[l]!r} cannot be solved ({why}; residual {res:.3e} vs tol "
            f"{self.tol:.1e} after {int(info[0])} Newton steps); nearest singular configuration: smallest singular "
            f"value of G_dep {sig:.3e} at the configuration reached (error.q). The independent coordinates are "
            "outside the loop's range or at a dead point: choose other independent coordinates (independent=...) "
            "or a closer reference configuration (q_ref)", t.loop_names[l], res, q, sig)


def raise_status(em: EmbeddedModel, st: int, names: tuple) -> None:
    """Raise the error of a CE kernel's status ``st`` (``names``: the inputs, as for
    :func:`soadyn.dynamics.check_status`); a singular compound node is named by its bodies."""
    if st & 0xFF == _kj.SINGULAR:
        bodies = [em.tree.body_names[i] for i in em._specs[(st >> 8) & 0xFFFFFFFF][0]]
        raise ValueError(f"the embedded mass matrix is singular at the compound node of bodies {bodies}: "
                         "its D = H* P H is not positive definite")
    check_status(st, em.tree, None, names)


def _check(em: EmbeddedModel, data) -> None:
    if not isinstance(em, EmbeddedModel):
        raise ValueError(f"em: expected a soadyn.embedding.EmbeddedModel, got {type(em).__name__}")
    if getattr(data, "model", None) is not em:
        raise ValueError("data: not an EmbeddedData of this embedded model (create it with em.data())")


class EmbeddedData:
    """Workspace of an :class:`EmbeddedModel` (``em.data()``): the tree's :class:`~soadyn.data.Data` (``td``)
    and the CE arrays, allocated once. ``q``: the last tree configuration solved (the warm start of the next
    loop solve); ``qd``, ``qdd``: the tree velocities and accelerations of the last evaluation; ``xdd``: the
    embedded accelerations; ``info``: (Newton steps, residual, failing node or -1, pivot ratio)."""

    def __init__(self, em: EmbeddedModel):
        t = em.tree
        z = np.zeros
        nb, nv, nn = t.nb, t.nv, em._nd.shape[0]
        rmax, ymax, nimax, nce, ncc = em._rmax, em._ymax, em._nimax, em._nce, em.nc
        self.model = em
        self.td = t.data()
        self.q = em.q_ref.copy()  # warm start / last solution
        self.q_failed = None
        self.qd = z(nv)
        self.qdd = z(nv)
        self.xdd = z(em.nv)
        self.x_in = z(em.nq)
        self.xd_in = z(em.nv)
        self.tau_in = z(nv)
        self.fext = z((nb, 6))
        # world-frame node passes
        self.oIA = z((nb, 6, 6))
        self.zA = z((nb, 6))
        self.oc = z((nb, 6))
        self.oa = z((nb, 6))
        self.abody = z((nb, 6))
        self.ab = z((nb, 6))
        self.Hb = z((nb, 6, nimax))
        self.Us = z((nn, 6, nimax))
        self.Dv = z((nn, nimax, nimax))
        self.un = z((nn, nimax))
        self.W = z((6, nimax))
        # hinge maps
        self.Gk = z((nn, rmax, ymax))
        self.LU = z((nn, rmax, rmax))
        self.piv = np.zeros((nn, rmax), dtype=np.int64)
        self.Gm = z((nn, ymax, nimax))
        self.gk = z((nn, ymax))
        self.Jw = z((6, nv))
        self.col = z(rmax)
        # embedded loops
        nle, nlc = len(em._emb_ids), len(em._cut_ids)
        self.RA, self.pAw, self.Qr = z((nle, 3, 3)), z((nle, 3)), z((nle, 6, 6))
        self.phi, self.cv, self.gam = z(nce), z(nce), z(nce)
        # cut loops
        self.cRA, self.cpAw, self.cQr = z((nlc, 3, 3)), z((nlc, 3)), z((nlc, 6, 6))
        self.cphi, self.ccv, self.cgam = z(ncc), z(ncc), z(ncc)
        self.K, self.lam, self.fl = z((ncc, ncc)), z(ncc), z((nb, 6))
        self.Y, self.Yq = z((ncc, em.nv)), z((ncc, nv))
        self.linfo = np.zeros(2, dtype=np.int64)
        # loop solve
        self.dq, self.qn, self.R3 = z(nv), z(t.nq), z((3, 3))
        self.info = z(4)

    def __repr__(self) -> str:
        return f"<soadyn.EmbeddedData for {self.model.name!r}>"

    def kernel_workspace(self) -> tuple:
        """The CE workspace arguments of the CE kernels, in kernel order (the tree's workspace is ``td``)."""
        return (self.oIA, self.zA, self.oc, self.oa, self.abody, self.ab, self.Hb, self.Us, self.Dv, self.un, self.W,
                self.Gk, self.LU, self.piv, self.Gm, self.gk, self.Jw, self.col, self.RA, self.pAw, self.Qr, self.phi,
                self.cv, self.gam, self.cRA, self.cpAw, self.cQr, self.cphi, self.ccv, self.cgam, self.K, self.lam,
                self.fl, self.Y, self.Yq, self.linfo, self.dq, self.qn, self.R3, self.info)


# ------------------------------------------------------------------------------------------ public API
def _assembled_reference(tree: Model, tries: int = 6) -> np.ndarray:
    """The default reference configuration: the loops closed (:func:`soadyn.loops.assemble`) from the neutral
    configuration, or, where that fails or lands on a singular configuration (collinear links: the loop
    Jacobian loses rank, which would misread the loop's degrees of freedom), from small seeded perturbations
    of it; the assembled configuration of highest loop-Jacobian rank is kept (the neutral one if none
    assembles)."""
    rng = np.random.default_rng(0)
    best, best_rank = tree.neutral_q(), -1
    for k in range(tries):
        start = tree.neutral_q() if k == 0 else integrate(tree, tree.neutral_q(), 0.3 * rng.normal(size=tree.nv))
        try:
            q = assemble(tree, start)
        except AssemblyError:
            continue
        rank = int(np.linalg.matrix_rank(constraint_jacobian(tree, tree.data(), q)))
        if rank > best_rank:
            best, best_rank = q, rank
        if best_rank == tree.nc:
            break
    return best


def embed_loops(model: Model, loops=None, independent=None, method: str = "auto", max_size: int = DEFAULT_MAX_SIZE,
                hybrid_size: int = DEFAULT_HYBRID_SIZE, q_ref=None, tol: float = LOOP_TOL) -> EmbeddedModel:
    """Embed loops of ``model`` (constraint embedding, Jain 2012 CE; hybrid CE/TA, Jain et al. 2012 Sec. 6).

    ``loops``: None (all loops), a list of loop names, or ``"auto"``: the hybrid rule - loops in order of
    size (the tree dofs of their compound node) are embedded while every compound node keeps at most
    ``hybrid_size`` tree dofs (CE costs grow with the cube of a node's dofs, TA's with the cube of the
    cut constraints: small loops are embedded, large ones cut). Loops not embedded stay cut (TA).
    ``independent``: ``{loop name: joint name or names}`` overrides the independent coordinates of the
    loop's compound node (1-dof-coordinate joints: revolute, prismatic, helical, cylindrical, universal);
    by default they are chosen by QR with column pivoting of the loop Jacobian ``G_c`` over the node's
    dofs at ``q_ref``: the best-conditioned columns become dependent, the rest independent (joints with
    quaternion or planar coordinates are always dependent). ``method``: the loop solver - ``"analytic"``
    (closed form for planar one-dof loops of revolute and prismatic joints closed by a ``planar_pin``: the
    planar four bar, the crank slider, wishbone suspensions, detected at ``q_ref``; other loops raise
    :class:`~soadyn.loops.LoopError`), ``"newton"`` (Newton's method on the closure, any loop) or ``"auto"``
    (analytic where available, else Newton; ``em.analytic_loops`` lists the closed-form loops).
    ``max_size``: the largest compound node (bodies);
    larger requests raise :class:`~soadyn.loops.LoopError` naming the loops. ``q_ref``: a reference tree
    configuration, assembled (:func:`soadyn.loops.assemble`; default the neutral one), used for the
    choice of coordinates and as the first warm start. ``tol``: the loop-solve tolerance on ``max |phi|``."""
    return EmbeddedModel(model, loops, independent, method, max_size, hybrid_size, q_ref, tol)


def forward_dynamics(em: EmbeddedModel, data: EmbeddedData, x, xd, tau=None, f_ext=None) -> np.ndarray:
    """Embedded forward dynamics: ``xdd`` (a view of ``data.xdd``) at the embedded state ``(x, xd)``, with
    ``tau`` the joint forces in TREE coordinates (nv of the tree, mapped by ``G^T``: drivers, springs,
    wheel torques) and ``f_ext`` body forces as for :func:`soadyn.aba`. The tree state and accelerations
    are left in ``data.q``, ``data.qd``, ``data.qdd``. Articulated-body passes over the compound nodes
    (Jain 2012 CE), then Lemma 2 for the cut loops (hybrid)."""
    _check(em, data)
    t = em.tree
    data.x_in[:] = as_array(x, (em.nq,), "x")
    data.xd_in[:] = as_array(xd, (em.nv,), "xd")
    data.tau_in[:] = 0.0 if tau is None else as_array(tau, (t.nv,), "tau")
    if f_ext is None:
        data.fext[:] = 0.0
    elif isinstance(f_ext, dict):
        data.fext[:] = 0.0
        for key, val in f_ext.items():
            data.fext[t.body_id(key)] = as_array(val, (6,), f"f_ext[{key!r}]")
    else:
        data.fext[:] = as_array(f_ext, (t.nb, 6), "f_ext")
    start = data.q.copy()
    st = _call_forward(em, data)
    if st in (_ke.NOT_SOLVED, _ke.LOOP_SINGULAR) and not np.array_equal(start, em.q_ref):
        data.q[:] = em.q_ref  # retry from the reference configuration
        st = _call_forward(em, data)
    if st != _kj.OK:
        if st in (_ke.NOT_SOLVED, _ke.LOOP_SINGULAR):
            data.q_failed = data.q.copy()
            data.q[:] = start
            err = em.closure_error(data, "x")
            data.q_failed = None
            raise err
        raise_status(em, st, ("x", "xd", "tau", "f_ext"))
    return data.xdd


def _call_forward(em: EmbeddedModel, data: EmbeddedData) -> int:
    return _ks.ce_forward(*ce_kernel_arguments(em, data))


def ce_kernel_arguments(em: EmbeddedModel, data: EmbeddedData) -> tuple:
    """The arguments of the CE kernel (:func:`soadyn._kernels.embed_sim.ce_forward`) for the inputs last set
    by :func:`forward_dynamics` in ``data``: for kernels that run its stages one by one (the timing
    breakdown of :mod:`soadyn.experiments.jain2012_breakdown`)."""
    t = em.tree
    return (t.model_int, t.model_float, data.td.data_float, *em.kernel_args, data.x_in, data.xd_in, data.tau_in,
            data.fext, em.tol, em.max_iter, *data.kernel_workspace(), data.q, data.qd, data.qdd, data.xdd)
