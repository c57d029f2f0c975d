"""Operational space dynamics of branching mechanisms (Jain 2014 Sec. 6 and Appendix; Chang-Khatib 2000).

Nodes are frames with a row selection: 6 (the full spatial velocity ``[w; v]`` of the frame), 3 (the linear
velocity of the frame origin, a point node) or an explicit (d x 6) selection matrix, all in frame-local
coordinates (``reference="world_aligned"`` rotates 6- and 3-row nodes to world axes). The compliance
``Lambda^-1 = J M^-1 J^T`` is computed in O(N + n_c^2) from one articulated-body pass, never forming M,
M^-1 or J.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import scipy.linalg

from ._jit import EntryPoint
from ._kernels import osim as _ko, osim_paths as _kp
from .data import Data
from .dynamics import (check_data, check_status, copy_in, coupled, frame_bias_acceleration, frame_jacobian, kernel_array,
                       local_flag, minv, rnea)
from .model import Model

__all__ = ["NodeSet", "node_set", "pack_nodes", "osim_inv", "osim", "OSDynamics", "operational_space_dynamics",
           "SingularCompliance"]

METHODS = ("jain", "chang_khatib")
_OSIM_INV = EntryPoint(_ko.osim_inv)  # its arguments always have the same types (soadyn._jit.EntryPoint)
_NDARRAY, _F64, _EMPTY = np.ndarray, np.dtype(np.float64), np.empty
_KEY_TYPES = frozenset((tuple, str, int))  # frames hashable as they are


class SingularCompliance(ValueError):
    """``Lambda^-1`` is singular (the node Jacobian is rank deficient): carries ``rank``, ``eigenvalues``
    and the ``nodes`` whose rows span the deficient directions."""

    def __init__(self, message: str, rank: int, eigenvalues: np.ndarray, nodes: list):
        super().__init__(message)
        self.rank = rank
        self.eigenvalues = eigenvalues
        self.nodes = nodes


@dataclass(frozen=True, eq=False)
class NodeSet:
    """Kernel description of a list of nodes: bodies, frame transforms (body -> frame), selections
    (padded to 6 x 6), row counts and row offsets into ``Lambda^-1``."""

    frames: tuple
    body: np.ndarray  # (n,) int64
    E: np.ndarray  # (n, 3, 3)
    r: np.ndarray  # (n, 3)
    sel: np.ndarray  # (n, 6, 6): rows 0..dim-1 used
    dim: np.ndarray  # (n,) int64
    row: np.ndarray  # (n + 1,) int64 row offsets
    rotatable: bool  # every node is a full 6-row or a 3-row point node
    m: int  # rows of Lambda^-1
    node_int: np.ndarray = None  # [body, dim, row] packed, then kernel scratch (soadyn._kernels.osim.osim_inv)
    node_float: np.ndarray = None  # [E, r, sel] packed, then kernel scratch (soadyn._kernels.osim.osim_inv)
    shape: tuple = None  # (m, m), the shape of Lambda^-1

    def __post_init__(self):
        node_int, node_float = pack_nodes(self.body, self.E, self.r, self.sel, self.dim, self.row)
        object.__setattr__(self, "node_int", node_int)
        object.__setattr__(self, "node_float", node_float)
        object.__setattr__(self, "shape", (self.m, self.m))


def pack_nodes(body, E, r, sel, dim, row) -> tuple[np.ndarray, np.ndarray]:
    """``(node_int, node_float)``: n nodes as the kernel ``soadyn._kernels.osim.osim_inv`` takes them,
    ``[body (n), dim (n), row (n + 1)]`` and ``[E (n, 3, 3), r (n, 3), sel (n, 6, 6)]``, each followed by the
    kernel's scratch: the nodes' selection kinds and node tree vertices (7 n), their world transforms (12 n)
    and the compliance between the vertices (36 (2 n - 1) n)."""
    n = len(body)
    node_int = np.concatenate([np.asarray(body).ravel(), np.asarray(dim).ravel(), np.asarray(row).ravel(),
                               np.zeros(7 * n, dtype=np.int64)])
    node_float = np.concatenate([np.asarray(E, dtype=np.float64).ravel(), np.asarray(r, dtype=np.float64).ravel(),
                                 np.asarray(sel, dtype=np.float64).ravel(), np.zeros(12 * n + 36 * (2 * n - 1) * n)])
    return node_int.astype(np.int64), node_float


def _selection(d, what: str) -> np.ndarray:
    if d is None or (np.ndim(d) == 0 and int(d) == 6):
        return np.eye(6)
    if np.ndim(d) == 0 and int(d) == 3:
        return np.eye(6)[3:]
    sel = np.asarray(d, dtype=float)
    if sel.ndim != 2 or sel.shape[1] != 6 or not 1 <= sel.shape[0] <= 6 or not np.all(np.isfinite(sel)):
        raise ValueError(f"dims[{what}]: expected 6, 3 or a finite (d x 6) selection matrix with 1 <= d <= 6")
    return sel


def node_set(model: Model, data: Data, frames, dims=None) -> NodeSet:
    """The :class:`NodeSet` of ``frames`` (names or indices) with ``dims`` (None: all 6; one value for all;
    or one value per frame), cached on ``data``."""
    try:  # the per-call case first: frames and dims seen before (dims None, an int, or a tuple/list of ints)
        key = (frames if type(frames) in _KEY_TYPES else tuple(frames),
               dims if dims is None or type(dims) is int else tuple(dims))
        cached = data.node_sets.get(key)
    except TypeError:  # selection matrices
        key, cached = None, None
    if cached is not None:
        return cached
    if isinstance(frames, (str, int, np.integer)):
        frames = [frames]
    frames = tuple(frames)
    if not frames:
        raise ValueError("frames: at least one frame is required")
    if dims is None or isinstance(dims, (int, np.integer)) or (isinstance(dims, np.ndarray) and dims.ndim == 2):
        dims = [dims] * len(frames)
    dims = list(dims)
    if len(dims) != len(frames):
        raise ValueError(f"dims: {len(dims)} entries for {len(frames)} frames")
    ids = [model.frame_id(f) for f in frames]
    for f, i in zip(frames, ids):
        if model.frame_body[i] < 0:
            raise ValueError(f"frames: {f!r} is fixed to the world; it has no operational space")
    sels = [_selection(d, str(f)) for f, d in zip(frames, dims)]
    n = len(frames)
    sel = np.zeros((n, 6, 6))
    for a, s in enumerate(sels):
        sel[a, :s.shape[0]] = s
    dim = np.array([s.shape[0] for s in sels], dtype=np.int64)
    ns = NodeSet(
        frames=frames,
        body=np.array([model.frame_body[i] for i in ids], dtype=np.int64),
        E=np.ascontiguousarray(model.frame_E[ids]),
        r=np.ascontiguousarray(model.frame_r[ids]),
        sel=sel,
        dim=dim,
        row=np.concatenate([[0], np.cumsum(dim)]).astype(np.int64),
        rotatable=all((s.shape == (6, 6) and np.array_equal(s, np.eye(6))) or
                      (s.shape == (3, 6) and np.array_equal(s, np.eye(6)[3:])) for s in sels),
        m=int(dim.sum()),
    )
    if key is not None:
        data.node_sets[key] = ns
    return ns


def _world_rotation(ns: NodeSet, data: Data) -> np.ndarray:
    """Block-diagonal rotation from frame-local to world-aligned rows for every node."""
    R = np.zeros((ns.m, ns.m))
    for a in range(len(ns.frames)):
        Rf = data.oR[ns.body[a]] @ ns.E[a].T
        r0 = ns.row[a]
        for blk in range(ns.dim[a] // 3):
            R[r0 + 3 * blk:r0 + 3 * blk + 3, r0 + 3 * blk:r0 + 3 * blk + 3] = Rf
    return R


def osim_inv(model: Model, data: Data, q, frames, dims=None, reference: str = "local",
             method: str = "jain") -> np.ndarray:
    """The operational space compliance ``Lambda^-1 = J M^-1 J^T`` (m x m, a new array) of the nodes.

    ``method="jain"``: the Upsilon/Omega recursion over the node tree, O(N + n_c^2) (Jain 2014 Eqs.
    64-69); ``"chang_khatib"``: the per-pair path walks of Chang-Khatib 2000 Table 1, O(N n_c^2), kept as an
    independent implementation for cross-checking."""
    if type(data) is not Data or data.model is not model:  # else a Data made by this Model
        if coupled(model):
            return model.coupled_call("osim_inv", data, q, frames, dims, reference, method)
        check_data(model, data)
    ns = node_set(model, data, frames, dims)
    Linv = _EMPTY(ns.shape)
    if reference == "local" and method == "jain" and type(q) is _NDARRAY and q.dtype is _F64 and q.ndim == 1:
        # the per-call case: q's length and stride are checked by the kernel
        if not _OSIM_INV.call(model.model_int, model.model_float, data.data_int, data.data_float, q, ns.node_int,
                              ns.node_float, Linv):
            return Linv
    return _osim_inv_checked(model, data, q, ns, reference, method, Linv)


def _osim_inv_checked(model: Model, data: Data, q, ns: NodeSet, reference: str, method: str,
                      Linv: np.ndarray) -> np.ndarray:
    """:func:`osim_inv` with every check: the reference and method, q converted, the kernel's status."""
    local = local_flag(reference)
    if method not in METHODS:
        raise ValueError(f"method: expected one of {METHODS}, got {method!r}")
    if not local and not ns.rotatable:
        raise ValueError("reference='world_aligned' needs 6-row or 3-row (point) nodes, not custom selections")
    q = kernel_array(q, (model.nq,), "q")
    if method == "jain":
        st = _OSIM_INV.call(model.model_int, model.model_float, data.data_int, data.data_float, q, ns.node_int,
                            ns.node_float, Linv)
    else:
        st = _kp.osim_inv_paths(model.model_int, model.model_float, data.data_float, q, ns.node_int, ns.node_float,
                                Linv)
    if st:
        check_status(st, model, q)
    if not local:
        R = _world_rotation(ns, data)
        Linv = R @ Linv @ R.T
    return Linv


def cholesky_inverse(Linv: np.ndarray, frames, dims_rows: np.ndarray, damping: float = 0.0) -> np.ndarray:
    """``(Lambda^-1 + damping I)^-1`` by Cholesky; :class:`SingularCompliance` if not positive definite."""
    m = Linv.shape[0]
    A = Linv + damping * np.eye(m) if damping else Linv
    scale = max(1.0, float(np.abs(np.diag(A)).max()))
    try:
        c = scipy.linalg.cho_factor(A, lower=True, check_finite=False)
        if np.min(np.abs(np.diag(c[0]))) ** 2 > 1e-12 * scale:
            return scipy.linalg.cho_solve(c, np.eye(m), check_finite=False)
    except np.linalg.LinAlgError:
        pass
    w, V = np.linalg.eigh(A)
    tol = 1e-10 * scale
    rank = int(np.sum(w > tol))
    null = V[:, w <= tol]
    weight = np.add.reduceat(np.abs(null).sum(axis=1), dims_rows[:-1]) if null.size else np.zeros(len(frames))
    nodes = [f for f, wt in zip(frames, weight) if wt > 1e-6]
    raise SingularCompliance(
        f"Lambda^-1 ({m} x {m}) is singular: rank {rank}, smallest eigenvalue {w.min():.3e}; the node Jacobian "
        f"is rank deficient in the rows of nodes {nodes} (remove redundant rows or pass damping > 0)",
        rank, w, nodes)


def osim(model: Model, data: Data, q, frames, dims=None, reference: str = "local", damping: float = 0.0,
         method: str = "jain") -> np.ndarray:
    """The operational space inertia ``Lambda = (J M^-1 J^T)^-1`` (Chang-Khatib 2000 Eq. 6) by Cholesky of
    :func:`osim_inv`. A singular compliance raises :class:`SingularCompliance` (rank and the offending
    nodes) unless ``damping > 0``, which returns ``(Lambda^-1 + damping I)^-1``."""
    if not (np.isfinite(damping) and damping >= 0):
        raise ValueError(f"damping: expected a finite value >= 0, got {damping!r}")
    Linv = osim_inv(model, data, q, frames, dims, reference, method)
    ns = node_set(model, data, frames, dims)
    return cholesky_inverse(Linv, ns.frames, ns.row, damping)


@dataclass(frozen=True, eq=False)
class OSDynamics:
    """Operational space dynamics ``Lambda a_e + mu + rho = f_e`` (Chang-Khatib 2000 Eqs. 4-10)."""

    J: np.ndarray  # (m, nv) task Jacobian
    h: np.ndarray  # (m,) bias acceleration Jdot qd (Eq. 7)
    Linv: np.ndarray  # (m, m) compliance (Eq. 6)
    Lambda: np.ndarray  # (m, m) operational space inertia
    Jbar: np.ndarray  # (nv, m) dynamically consistent inverse M^-1 J^T Lambda (Eq. 8)
    N: np.ndarray  # (nv, nv) null-space projector 1 - Jbar J (Eq. 10)
    mu: np.ndarray  # (m,) Coriolis/centrifugal: Jbar^T b - Lambda h
    rho: np.ndarray  # (m,) gravity: Jbar^T g


def task_jacobian(model: Model, data: Data, q, qd, ns: NodeSet, reference: str):
    """Stacked ``Sel_a J_a`` (m, nv) and ``Sel_a Jdot_a qd`` (m,) of the nodes (new arrays)."""
    J = np.empty((ns.m, model.nv))
    h = np.empty(ns.m)
    for a, f in enumerate(ns.frames):
        rows = slice(ns.row[a], ns.row[a + 1])
        sel = ns.sel[a, :ns.dim[a]]
        if reference == "world_aligned":
            sel = sel if ns.dim[a] == 6 else np.eye(6)[3:]
        J[rows] = sel @ frame_jacobian(model, data, q, f, reference)
        h[rows] = sel @ frame_bias_acceleration(model, data, q, qd, f, reference)
    return J, h


def operational_space_dynamics(model: Model, data: Data, q, qd, frames, dims=None,
                               reference: str = "local") -> OSDynamics:
    """All the operational space quantities of Chang-Khatib 2000 Sec. 2 for analysis and tests. ``Lambda``
    comes from :func:`osim`; ``Jbar``, ``N``, ``mu``, ``rho`` use the recursive ``M^-1`` (O(N^2)). For
    control use :class:`soadyn.control.OperationalSpaceController`, which never forms M or M^-1."""
    ns = node_set(model, data, frames, dims)
    J, h = task_jacobian(model, data, q, qd, ns, reference)
    Linv = osim_inv(model, data, q, frames, dims, reference)
    Lam = cholesky_inverse(Linv, ns.frames, ns.row)
    Minv = minv(model, data, q).copy()
    Jbar = Minv @ J.T @ Lam
    g = rnea(model, data, q, np.zeros(model.nv), np.zeros(model.nv)).copy()
    b = rnea(model, data, q, qd, np.zeros(model.nv)).copy() - g
    return OSDynamics(J=J, h=h, Linv=Linv, Lambda=Lam, Jbar=Jbar, N=np.eye(model.nv) - Jbar @ J,
                      mu=Jbar.T @ b - Lam @ h, rho=Jbar.T @ g)
