"""Public tree dynamics: forward kinematics, frame poses, Jacobians and bias accelerations, RNEA, CRBA,
ABA, the recursive M^-1, batches and configuration-space integration.

Each function checks its inputs in O(1) (type, shape; finiteness and unit quaternions are checked in the
kernel), passes arrays that are already float64, C-contiguous and writeable to the kernel as they are
(anything else is converted once) and makes one kernel call with the packed Model and Data buffers
(docs/architecture.md, Kernels); it returns its main result as a view into ``data`` (overwritten by the
next call), except the batch functions, which return new arrays. Bad input raises ``ValueError`` naming
the argument.
"""

from __future__ import annotations

import numpy as np

from . import joints as J
from ._jit import EntryPoint
from ._kernels import batch as _kb
from ._kernels import frames as _kf
from ._kernels import joints as _kj
from ._kernels.kinematics import BAD_ARRAY
from ._kernels import tree as _kt
from .data import Data
from .model import Model
from .spatial import Transform, quat_difference, quat_to_rot, skew

__all__ = [
    "fk", "frame_pose", "frame_jacobian", "frame_velocity", "frame_bias_acceleration",
    "rnea", "crba", "aba", "minv", "aba_batch", "rnea_batch", "integrate", "difference",
]

_F64 = np.dtype(np.float64)
_NDARRAY = np.ndarray
REFERENCES = ("local", "world_aligned")
# the per-call kernels, called through their compiled entry points (soadyn._jit.EntryPoint): their arguments are
# the packed Model and Data buffers and 1-D float64 arrays, always of the same types. A wrapper checks the type,
# dtype and number of dimensions of its input vectors (what the entry point must be given); the kernel checks
# their length and stride, and on BAD_ARRAY the wrapper converts them with kernel_array (or raises the
# shape error) and calls again (docs/architecture.md, Model and Data)
_RNEA, _CRBA, _ABA, _MINV = (EntryPoint(k) for k in (_kt.rnea, _kt.crba, _kt.aba, _kt.minv))
_FRAME_JACOBIAN = EntryPoint(_kf.frame_jacobian)


# ------------------------------------------------------------------------------------- input handling
def as_array(x, shape: tuple, name: str) -> np.ndarray:
    """``x`` as a float64 array of ``shape``; ``ValueError`` naming ``name`` otherwise."""
    if type(x) is np.ndarray and x.dtype == _F64 and x.shape == shape:
        return x
    try:
        a = np.asarray(x)
    except Exception as exc:  # ragged lists and the like
        raise ValueError(f"{name}: cannot be read as an array ({exc})") from None
    if a.dtype.kind not in "biuf":
        raise ValueError(f"{name}: expected real numbers, got dtype {a.dtype}")
    if a.shape != shape:
        raise ValueError(f"{name}: expected shape {shape}, got {a.shape}")
    return a.astype(np.float64)


def kernel_array(x, shape: tuple, name: str) -> np.ndarray:
    """``x`` as the kernels take it: the array itself when it is float64, of ``shape``, C-contiguous,
    aligned and writeable (``flags.carray``; checked in O(1), nothing copied); otherwise a converted copy: the
    one array form the kernels are compiled for, so no input compiles a second signature."""
    if type(x) is _NDARRAY and x.dtype is _F64 and x.shape == shape and x.flags.carray:
        return x
    return np.array(as_array(x, shape, name), dtype=np.float64, order="C")


def input_vectors(model: Model, q, qd, x, xname: str) -> tuple:
    """``(q, qd, x)`` as :func:`kernel_array` makes them: a state and a joint-space input named ``xname``."""
    nv = (model.nv,)
    return kernel_array(q, (model.nq,), "q"), kernel_array(qd, nv, "qd"), kernel_array(x, nv, xname)


def copy_in(x, out: np.ndarray, name: str) -> np.ndarray:
    """Copy ``x`` (checked against ``out``'s shape) into the Data-owned buffer ``out``."""
    out[...] = as_array(x, out.shape, name)
    return out


def external_forces(model: Model, data: Data, f_ext) -> np.ndarray:
    """``f_ext``: None, an (nb, 6) array of body-frame forces ``[n; f]`` about each body origin, or a
    dict ``{body name or index: 6-vector}``."""
    if f_ext is None:
        return data.fext_zero
    if isinstance(f_ext, dict):
        data.fext[:] = 0.0
        for key, val in f_ext.items():
            data.fext[model.body_id(key)] = as_array(val, (6,), f"f_ext[{key!r}]")
        return data.fext
    return kernel_array(f_ext, data.fext.shape, "f_ext")


def check_status(st: int, model: Model, q=None, names=("q", "qd", "input", "f_ext")) -> None:
    """Translate a kernel status code into a ``ValueError`` naming the culprit."""
    if st == _kj.OK:
        return
    code, body = st & 0xFF, (st >> 8) & 0xFFFFFFFF
    if code == _kj.BAD_Q:
        raise ValueError(f"{names[0]}: contains NaN or inf")
    if code == _kj.BAD_QD:
        raise ValueError(f"{names[1]}: contains NaN or inf")
    if code == _kj.BAD_IN:
        raise ValueError(f"{names[2]}: contains NaN or inf")
    if code == _kj.BAD_FEXT:
        raise ValueError(f"{names[3]}: contains NaN or inf")
    if code == _kj.BAD_QUAT:
        for i in range(model.nb):
            t = model.jnt_type[i]
            if t in (J.SPHERICAL, J.FREE):
                o = model.jnt_qadr[i] + (3 if t == J.FREE else 0)
                n = float(np.linalg.norm(q[o:o + 4]))
                if abs(n - 1.0) > _kj.QUAT_NORM_TOL:
                    raise ValueError(f"{names[0]}: quaternion of joint {model.jnt_names[i]!r} (q[{o}:{o + 4}]) "
                                     f"has norm {n:.6g}; unit quaternions [x, y, z, w] are required "
                                     f"(tolerance {_kj.QUAT_NORM_TOL}, normalized on use)")
        raise ValueError(f"{names[0]}: a quaternion is not of unit norm")
    if code == _kj.NOT_FINITE:
        raise ValueError(f"{names[4] if len(names) > 4 else 'result'}: the result is not finite although the inputs "
                         "are: they are too large for float64 arithmetic (velocity products overflow)")
    if code == _kj.SINGULAR:
        raise ValueError(f"mass matrix is singular: joint {model.jnt_names[body]!r} (body {model.body_names[body]!r}) "
                         "moves a subtree without inertia along one of its axes (its articulated inertia is not "
                         "positive definite there)")
    raise RuntimeError(f"kernel status {st}")


def coupled(model) -> bool:
    """True for a model with coupled coordinates (:class:`soadyn.mimic.MimicModel`): the public functions
    hand it its own computation (through its tree model). The per-call functions first test that ``data`` is
    a :class:`~soadyn.data.Data` made by ``model`` (so ``model`` is a plain Model), which spares them this
    call."""
    return not isinstance(model, Model) and hasattr(model, "coupled_call")


def finite_result(x: np.ndarray, what: str) -> np.ndarray:
    """``x`` if every entry is finite; else ``ValueError``: finite inputs so large that the result
    overflows (e.g. ``qd = 1e155``, whose squares exceed the float64 range) must not pass as an answer."""
    if not np.isfinite(x).all():
        raise ValueError(f"{what}: the result is not finite although the inputs are: they are too large for "
                         "float64 arithmetic (velocity products overflow)")
    return x


def check_data(model: Model, data: Data) -> None:
    """``ValueError`` unless ``data`` is a :class:`~soadyn.data.Data` made by ``model.data()``."""
    if getattr(data, "model", None) is not model:
        raise ValueError("data: not a Data of this model (create it with model.data())")


def local_flag(reference: str) -> int:
    """The kernels' ``local`` argument of a frame quantity: 1 for ``reference="local"`` (frame axes), 0 for
    ``"world_aligned"``; ``ValueError`` naming ``reference`` otherwise."""
    if reference == "local":
        return 1
    if reference not in REFERENCES:
        raise ValueError(f"reference: expected one of {REFERENCES}, got {reference!r}")
    return 0


def copy_state(model: Model, data: Data, q, qd=None) -> None:
    """Check ``data`` and copy the state into it (``qd=None``: at rest)."""
    check_data(model, data)
    copy_in(q, data.q, "q")
    if qd is None:
        data.qd[:] = 0.0
    else:
        copy_in(qd, data.qd, "qd")


# ------------------------------------------------------------------------------------------ kinematics
def fk(model: Model, data: Data, q, qd=None):
    """Forward kinematics: fills ``data.X_E/X_r`` (``^iX_parent``), ``data.oR/op`` (world poses) and
    ``data.v`` (body-frame spatial velocities). Returns ``(data.oR, data.op)``."""
    if coupled(model):
        return model.coupled_call("fk", data, q, qd)
    copy_state(model, data, q, qd)
    st = _kf.fk(model.model_int, model.model_float, data.data_float, data.q, data.qd)
    check_status(st, model, data.q)
    return data.oR, data.op


def frame_pose(model: Model, data: Data, q, frame) -> np.ndarray:
    """World pose of ``frame`` (name or index) as a 4x4 homogeneous matrix (a new array)."""
    if coupled(model):
        return model.coupled_call("frame_pose", data, q, frame)
    f = model.frame_id(frame)
    fk(model, data, q)
    b = model.frame_body[f]
    X = Transform(model.frame_E[f], model.frame_r[f])
    if b < 0:
        return X.homogeneous()
    T = np.eye(4)
    T[:3, :3] = data.oR[b] @ X.rotation
    T[:3, 3] = data.op[b] + data.oR[b] @ X.r
    return T


def frame_jacobian(model: Model, data: Data, q, frame, reference: str = "local") -> np.ndarray:
    """Frame Jacobian (6, nv) with ``[w; v] = J qd`` the frame's spatial velocity at its origin, in frame
    coordinates (``reference="local"``) or world-aligned axes (``"world_aligned"``). Returns ``data.J``."""
    if type(data) is not Data or data.model is not model:  # else a Data made by this Model
        if coupled(model):
            return model.coupled_call("frame_jacobian", data, q, frame, reference)
        check_data(model, data)
    local = 1 if reference == "local" else local_flag(reference)
    f = model.frame_index.get(frame) if type(frame) is str else None  # a known name, without a method call
    if f is None:
        f = model.frame_id(frame)
    if type(q) is _NDARRAY and q.dtype is _F64 and q.ndim == 1:
        st = _FRAME_JACOBIAN.call(model.model_int, model.model_float, data.data_float, q, f, local)
    else:
        st = BAD_ARRAY
    if st:
        if st == BAD_ARRAY:
            q = kernel_array(q, (model.nq,), "q")
            st = _FRAME_JACOBIAN.call(model.model_int, model.model_float, data.data_float, q, f, local)
        if st:
            check_status(st, model, q)
    return data.J


def _frame_motion(model: Model, data: Data, q, qd, frame) -> None:
    check_data(model, data)
    f = model.frame_id(frame)
    q = kernel_array(q, (model.nq,), "q")
    qd = kernel_array(qd, (model.nv,), "qd")
    st = _kf.frame_motion(model.model_int, model.model_float, data.data_float, q, qd, f)
    check_status(st, model, q)


def frame_velocity(model: Model, data: Data, q, qd, frame, reference: str = "local") -> np.ndarray:
    """Spatial velocity ``[w; v]`` of the frame (at its origin) in frame or world-aligned axes: ``J qd``."""
    if coupled(model):
        return model.coupled_call("frame_velocity", data, q, qd, frame, reference)
    local = local_flag(reference)
    _frame_motion(model, data, q, qd, frame)
    if local:
        return data.frame_v.copy()
    R = data.frame_R
    return np.concatenate([R @ data.frame_v[:3], R @ data.frame_v[3:]])


def frame_bias_acceleration(model: Model, data: Data, q, qd, frame, reference: str = "local") -> np.ndarray:
    """``Jdot qd`` for the Jacobian of :func:`frame_jacobian` with the same ``reference`` (Chang-Khatib 2000
    Eq. 26-28): the frame acceleration at ``qdd = 0`` without gravity. ``"local"``: the spatial
    acceleration in frame coordinates; ``"world_aligned"``: the classical acceleration ``[wdot; pddot]``
    of the frame origin in world axes. Returns a new (6,) array."""
    if coupled(model):
        return model.coupled_call("frame_bias_acceleration", data, q, qd, frame, reference)
    local = local_flag(reference)
    _frame_motion(model, data, q, qd, frame)
    h = data.frame_h
    if local:
        return h.copy()
    w, v = data.frame_v[:3], data.frame_v[3:]
    R = data.frame_R
    return np.concatenate([R @ h[:3], R @ (h[3:] + np.cross(w, v))])


# ---------------------------------------------------------------------------------------------- dynamics
def rnea(model: Model, data: Data, q, qd, qdd, f_ext=None) -> np.ndarray:
    """Inverse dynamics by the recursive Newton-Euler algorithm (RBDA Table 5.1):
    ``tau = M(q) qdd + C(q, qd) qd + g(q) - sum_i J_i^T f_ext_i``. Returns ``data.tau`` (nv,)."""
    if type(data) is not Data or data.model is not model:  # else a Data made by this Model
        if coupled(model):
            return model.coupled_call("rnea", data, q, qd, qdd, f_ext)
        check_data(model, data)
    fext = data.fext_zero if f_ext is None else external_forces(model, data, f_ext)
    if (type(q) is _NDARRAY and type(qd) is _NDARRAY and type(qdd) is _NDARRAY and q.dtype is _F64 and qd.dtype is _F64
            and qdd.dtype is _F64 and q.ndim == 1 and qd.ndim == 1 and qdd.ndim == 1):
        st = _RNEA.call(model.model_int, model.model_float, data.data_float, q, qd, qdd, fext)
    else:
        st = BAD_ARRAY
    if st:
        if st == BAD_ARRAY:
            q, qd, qdd = input_vectors(model, q, qd, qdd, "qdd")
            st = _RNEA.call(model.model_int, model.model_float, data.data_float, q, qd, qdd, fext)
        if st:
            check_status(st, model, q, ("q", "qd", "qdd", "f_ext", "rnea"))
    return data.tau


def crba(model: Model, data: Data, q) -> np.ndarray:
    """Joint-space inertia matrix ``M(q)`` by the composite-rigid-body algorithm (RBDA Table 6.2).
    Returns ``data.M`` (nv, nv)."""
    if type(data) is not Data or data.model is not model:  # else a Data made by this Model
        if coupled(model):
            return model.coupled_call("crba", data, q)
        check_data(model, data)
    if type(q) is _NDARRAY and q.dtype is _F64 and q.ndim == 1:
        st = _CRBA.call(model.model_int, model.model_float, data.data_float, q)
    else:
        st = BAD_ARRAY
    if st:
        if st == BAD_ARRAY:
            q = kernel_array(q, (model.nq,), "q")
            st = _CRBA.call(model.model_int, model.model_float, data.data_float, q)
        if st:
            check_status(st, model, q)
    return data.M


def aba(model: Model, data: Data, q, qd, tau, f_ext=None) -> np.ndarray:
    """Forward dynamics by the O(N) articulated-body algorithm (RBDA Table 7.1):
    ``qdd = M^-1 (tau - C qd - g + sum_i J_i^T f_ext_i)``. Returns ``data.qdd`` (nv,)."""
    if type(data) is not Data or data.model is not model:  # else a Data made by this Model
        if coupled(model):
            return model.coupled_call("aba", data, q, qd, tau, f_ext)
        check_data(model, data)
    fext = data.fext_zero if f_ext is None else external_forces(model, data, f_ext)
    if (type(q) is _NDARRAY and type(qd) is _NDARRAY and type(tau) is _NDARRAY and q.dtype is _F64 and qd.dtype is _F64
            and tau.dtype is _F64 and q.ndim == 1 and qd.ndim == 1 and tau.ndim == 1):
        st = _ABA.call(model.model_int, model.model_float, data.data_float, q, qd, tau, fext)
    else:
        st = BAD_ARRAY
    if st:
        if st == BAD_ARRAY:
            q, qd, tau = input_vectors(model, q, qd, tau, "tau")
            st = _ABA.call(model.model_int, model.model_float, data.data_float, q, qd, tau, fext)
        if st:
            check_status(st, model, q, ("q", "qd", "tau", "f_ext", "aba"))
    return data.qdd


def minv(model: Model, data: Data, q) -> np.ndarray:
    """``M(q)^-1`` in O(N^2) by the articulated-body factorization (Jain 2014 Eq. 59), never inverting a
    dense matrix. Returns ``data.Minv`` (nv, nv)."""
    if type(data) is not Data or data.model is not model:  # else a Data made by this Model
        if coupled(model):
            return model.coupled_call("minv", data, q)
        check_data(model, data)
    if type(q) is _NDARRAY and q.dtype is _F64 and q.ndim == 1:
        st = _MINV.call(model.model_int, model.model_float, data.data_float, q)
    else:
        st = BAD_ARRAY
    if st:
        if st == BAD_ARRAY:
            q = kernel_array(q, (model.nq,), "q")
            st = _MINV.call(model.model_int, model.model_float, data.data_float, q)
        if st:
            check_status(st, model, q)
    return data.Minv


def batch_inputs(model: Model, Q, QD, X, xname: str):
    """Checked batch inputs ``(Q, QD, X, K, nchunks)`` of a ``*_batch`` kernel."""
    Q = kernel_array(Q, np.shape(Q), "Q")
    if Q.ndim != 2 or Q.shape[1] != model.nq:
        raise ValueError(f"Q: expected shape (K, {model.nq}), got {Q.shape}")
    K = Q.shape[0]
    QD = kernel_array(QD, (K, model.nv), "QD")
    X = kernel_array(X, (K, model.nv), xname)
    nchunks = max(1, min(K, 4 * _num_threads()))
    return Q, QD, X, K, nchunks


def _num_threads() -> int:
    import numba

    return numba.get_num_threads()


def batch_status(model: Model, status: np.ndarray, Q, names) -> None:
    """Raise ``ValueError`` for the first bad state of a batch."""
    bad = np.flatnonzero(status)
    if bad.size:
        s = int(bad[0])
        try:
            check_status(int(status[s]), model, Q[s], names)
        except ValueError as exc:
            raise ValueError(f"state {s} of the batch ({bad.size} bad): {exc}") from None


def aba_batch(model: Model, Q, QD, TAU) -> np.ndarray:
    """ABA for K states at once (rows of ``Q`` (K, nq), ``QD``, ``TAU`` (K, nv)), in parallel over
    threads in one kernel call. Returns a new (K, nv) array."""
    if coupled(model):
        return model.coupled_call("aba_batch", Q, QD, TAU)
    Q, QD, TAU, K, nchunks = batch_inputs(model, Q, QD, TAU, "TAU")
    QDD = np.empty((K, model.nv))
    status = np.zeros(K, dtype=np.int64)
    _kb.aba_batch(model.model_int, model.model_float, Q, QD, TAU, nchunks, QDD, status)
    batch_status(model, status, Q, ("Q", "QD", "TAU", "f_ext", "aba_batch"))
    return QDD


def rnea_batch(model: Model, Q, QD, QDD) -> np.ndarray:
    """RNEA for K states at once, in parallel. Returns a new (K, nv) array."""
    if coupled(model):
        return model.coupled_call("rnea_batch", Q, QD, QDD)
    Q, QD, QDD, K, nchunks = batch_inputs(model, Q, QD, QDD, "QDD")
    TAU = np.empty((K, model.nv))
    status = np.zeros(K, dtype=np.int64)
    _kb.rnea_batch(model.model_int, model.model_float, Q, QD, QDD, nchunks, TAU, status)
    batch_status(model, status, Q, ("Q", "QD", "QDD", "f_ext", "rnea_batch"))
    return TAU


# ----------------------------------------------------------------------------------- configuration space
def integrate(model: Model, q, v, dt: float = 1.0) -> np.ndarray:
    """``q (+) v dt``: each joint moved along the group exponential of its constant velocity (SE(3) for
    free joints, SO(3) for spherical, SE(2) for planar, addition otherwise). Returns a new (nq,) array."""
    if coupled(model):
        return model.coupled_call("integrate", q, v, dt)
    q = _valid_q(model, q, "q")
    v = kernel_array(v, (model.nv,), "v")
    if not np.all(np.isfinite(v)):
        raise ValueError("v: contains NaN or inf")
    if isinstance(dt, bool) or not isinstance(dt, (int, float, np.integer, np.floating)) or not np.isfinite(dt):
        raise ValueError(f"dt: expected a finite real number, got {dt!r}")
    out = np.empty(model.nq)
    R = np.empty((3, 3))

    _kj.integrate_config(model.jnt_type, model.jnt_qadr, model.jnt_vadr, q, v, float(dt), out, R)
    return out


def difference(model: Model, q0, q1) -> np.ndarray:
    """The velocity ``v`` with ``integrate(model, q0, v) == q1`` (per-joint group logarithm)."""
    if coupled(model):
        return model.coupled_call("difference", q0, q1)
    q0 = _valid_q(model, q0, "q0")
    q1 = _valid_q(model, q1, "q1")
    if model.is_vector_space:
        return q1 - q0
    v = np.empty(model.nv)
    for i in range(model.nb):
        t, a, k = model.jnt_type[i], model.jnt_qadr[i], model.jnt_vadr[i]
        if t == J.SPHERICAL:
            v[k:k + 3] = quat_difference(q0[a:a + 4], q1[a:a + 4])
        elif t == J.FREE:
            v[k:k + 6] = _se3_log(q0[a:a + 7], q1[a:a + 7])
        elif t == J.PLANAR:
            v[k:k + 3] = _se2_log(q0[a:a + 3], q1[a:a + 3], model.jnt_names[i])
        else:
            v[k:k + model.jnt_nv[i]] = q1[a:a + model.jnt_nq[i]] - q0[a:a + model.jnt_nq[i]]
    return v


def _valid_q(model: Model, q, name: str) -> np.ndarray:
    q = kernel_array(q, (model.nq,), name)
    check_status(_kj.check_q(model.jnt_type, model.jnt_qadr, q), model, q, (name,))
    return q


def _se3_log(q0, q1) -> np.ndarray:
    R0 = quat_to_rot(q0[3:])
    w = quat_difference(q0[3:], q1[3:])
    dp = R0.T @ (q1[:3] - q0[:3])
    th = np.linalg.norm(w)
    W = skew(w)
    if th < 1e-6:
        Vinv = np.eye(3) - 0.5 * W + W @ W / 12.0
    else:
        Vinv = np.eye(3) - 0.5 * W + (1.0 - th * np.sin(th) / (2.0 * (1.0 - np.cos(th)))) / th**2 * W @ W
    return np.concatenate([w, Vinv @ dp])


def _se2_log(q0, q1, joint: str) -> np.ndarray:
    """Constant body velocity of a planar joint from ``q0`` to ``q1`` in unit time (the turn is the
    unwrapped angle difference, as :func:`integrate` adds it)."""
    phi = q1[2] - q0[2]
    c, s = np.cos(q0[2]), np.sin(q0[2])
    d = np.array([[c, s], [-s, c]]) @ (q1[:2] - q0[:2])
    if abs(phi) > np.pi and abs(np.sin(0.5 * phi)) < 1e-9 and np.abs(d).max() > 0:
        raise ValueError(f"difference: planar joint {joint!r} turns by {phi:.6g} rad (a multiple of 2 pi) while "
                         "translating: no constant velocity reaches q1")
    if abs(phi) < 1e-6:
        sa, ca = 1.0 - phi**2 / 6.0, 0.5 * phi
    else:
        sa, ca = np.sin(phi) / phi, (1.0 - np.cos(phi)) / phi
    V = np.array([[sa, -ca], [ca, sa]])
    return np.concatenate([[phi], np.linalg.solve(V, d)])
