"""The immutable :class:`Model` (docs/architecture.md, Model and Data), built by
:class:`soadyn.builder.ModelBuilder` or a loader.

Topology: bodies ``0..nb-1`` in depth-first preorder, so ``body_parent[i] < i`` and the subtree of body
``i`` is the contiguous range ``i .. body_subtree_end[i] - 1`` (its dofs are ``jnt_vadr[i] ..
subtree_vend``). Every body has exactly one inbound joint; fixed joints are merged into the parent body,
whose inertia absorbs the child's and whose frames absorb the child's frames.
"""

from __future__ import annotations

import dataclasses
import functools
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np

from . import joints as J
from ._kernels import layout


if TYPE_CHECKING:
    from .data import Data

__all__ = ["Model", "ModelError"]


def _no_geoms(*shape, dtype=np.float64):
    """Default factory of an empty read-only geom array (models without geoms)."""
    return field(default_factory=lambda: readonly_array(np.zeros(shape), dtype))


class ModelError(ValueError):
    """A model that cannot be built: unknown or missing parents, cycles, duplicate names, a singular
    mass matrix."""


def readonly_array(a, dtype) -> np.ndarray:
    """``a`` as a read-only, C-contiguous array of ``dtype`` (a copy): the form of every array of a Model
    and of the model arrays that loops, geoms and embedded joints add (docs/architecture.md, Model and Data)."""
    out = np.ascontiguousarray(np.array(a, dtype=dtype))
    out.setflags(write=False)
    return out


@dataclass(frozen=True, eq=False)
class Model:
    """An immutable tree-topology multibody model: a struct of read-only, C-contiguous arrays.

    Shapes: ``nb`` bodies (= joints), ``nq`` configuration and ``nv`` velocity coordinates, ``nf`` frames.
    """

    name: str
    nq: int
    nv: int
    nb: int
    nf: int
    gravity: np.ndarray  # (3,) gravitational acceleration in world coordinates
    body_names: tuple
    body_parent: np.ndarray  # (nb,) int64, parent body index, -1 for the world
    body_subtree_end: np.ndarray  # (nb,) int64, subtree of i is bodies i .. end-1
    body_Xtree_E: np.ndarray  # (nb, 3, 3) rotation part of X_tree (parent frame -> joint predecessor frame)
    body_Xtree_r: np.ndarray  # (nb, 3) joint frame origin in parent coordinates
    body_I: np.ndarray  # (nb, 6, 6) spatial inertia about the body origin, body coordinates
    body_mass: np.ndarray  # (nb,)
    jnt_names: tuple
    jnt_type: np.ndarray  # (nb,) int64 joint type code (soadyn.joints)
    jnt_qadr: np.ndarray  # (nb,) int64 first index in q
    jnt_vadr: np.ndarray  # (nb,) int64 first index in qd
    jnt_nq: np.ndarray  # (nb,) int64
    jnt_nv: np.ndarray  # (nb,) int64
    jnt_axis: np.ndarray  # (nb, 3) unit axis (planar: plane normal)
    jnt_axis2: np.ndarray  # (nb, 3) universal: second axis; planar: in-plane x axis
    jnt_pitch: np.ndarray  # (nb,) helical pitch (m/rad)
    jnt_lower: np.ndarray  # (nb,) lower limit of 1-dof joints (-inf if none)
    jnt_upper: np.ndarray  # (nb,) upper limit of 1-dof joints (+inf if none)
    dof_S: np.ndarray  # (nv, 6) motion subspace columns in the successor frame (neutral value)
    dof_body: np.ndarray  # (nv,) int64 body owning each dof
    frame_names: tuple
    frame_body: np.ndarray  # (nf,) int64 body carrying the frame, -1 for the world
    frame_E: np.ndarray  # (nf, 3, 3) rotation body coordinates -> frame coordinates
    frame_r: np.ndarray  # (nf, 3) frame origin in body coordinates
    # loop closures (soadyn.loops): nl loops with nc constraint rows in all
    nl: int = 0
    nc: int = 0
    loop_names: tuple = ()
    loop_frame_a: np.ndarray = None  # (nl,) int64 frame A (its axes carry Q)
    loop_frame_b: np.ndarray = None  # (nl,) int64 frame B
    loop_kind: np.ndarray = None  # (nl,) int64 loop kind code (soadyn.loops)
    loop_sel: np.ndarray = None  # (nl, 6, 6) constrained directions Q (rows over [w; v] in A's axes), padded
    loop_dim: np.ndarray = None  # (nl,) int64 constraint rows of each loop
    loop_row: np.ndarray = None  # (nl + 1,) int64 row offsets
    loop_axis: np.ndarray = None  # (nl, 3) universal loops: first axis, in A's axes
    loop_axis2: np.ndarray = None  # (nl, 3) universal loops: second axis, in B's axes
    loop_twist: np.ndarray = None  # (nl, 3) free rotation axis in A's axes (zero if none or several)
    # passive joint spring-dampers of 1-dof joints (zeros elsewhere; ModelBuilder.set_spring):
    # tau_passive = -dof_stiffness (q - dof_springref) - dof_damping qd, added to the applied joint forces
    dof_stiffness: np.ndarray = None  # (nv,) N m/rad or N/m, >= 0
    dof_damping: np.ndarray = None  # (nv,) N m s/rad or N s/m, >= 0
    dof_springref: np.ndarray = None  # (nv,) spring rest coordinate (rad or m)
    # joint armature (ModelBuilder.set_armature; MJCF joint armature): a rotor inertia on each velocity
    # coordinate, added to diag(M) (kg m^2 or kg), as MuJoCo's dof_armature; zeros by default
    dof_armature: np.ndarray = None  # (nv,) >= 0
    # collision geometry (soadyn.contact.geometry; ModelBuilder.add_geom): ng geoms, npair candidate pairs
    ng: int = 0
    geom_name: tuple = ()
    geom_body: np.ndarray = _no_geoms(0, dtype=np.int64)  # (ng,) int64 body carrying the geom, -1 for the world
    geom_type: np.ndarray = _no_geoms(0, dtype=np.int64)  # (ng,) int64 GEOM_SPHERE/CAPSULE/BOX/PLANE/HALFSPACE
    geom_size: np.ndarray = _no_geoms(0, 3)  # (ng, 3) sizes, zero-padded (see soadyn.contact.geometry)
    geom_E: np.ndarray = _no_geoms(0, 3, 3)  # (ng, 3, 3) rotation body coordinates -> geom coordinates
    geom_r: np.ndarray = _no_geoms(0, 3)  # (ng, 3) geom origin in body coordinates
    geom_mu: np.ndarray = _no_geoms(0)  # (ng,) friction coefficients
    geom_restitution: np.ndarray = _no_geoms(0)  # (ng,) restitution coefficients in [0, 1]
    geom_margin: np.ndarray = _no_geoms(0)  # (ng,) contact margins (a pair reports gap <= margin_a + margin_b)
    geom_group: np.ndarray = _no_geoms(0, dtype=np.int64)  # (ng,) int64 collision group bits
    geom_mask: np.ndarray = _no_geoms(0, dtype=np.int64)  # (ng,) int64 collision mask bits
    geom_corners: np.ndarray = _no_geoms(0, dtype=np.int64)  # (ng,) int64 1: boxes duplicate shared corners
    geom_vertadr: np.ndarray = _no_geoms(0, dtype=np.int64)  # (ng,) int64 convex meshes: first row in mesh_vert
    geom_vertnum: np.ndarray = _no_geoms(0, dtype=np.int64)  # (ng,) int64 convex meshes: vertex count (0 otherwise)
    mesh_vert: np.ndarray = _no_geoms(0, 3)  # (nmeshvert, 3) convex meshes' hull vertices, geom coordinates
    npair: int = 0
    pair_geom: np.ndarray = _no_geoms(0, 2, dtype=np.int64)  # (npair, 2) int64 candidate pairs (a, b)
    pair_max: np.ndarray = _no_geoms(0, dtype=np.int64)  # (npair,) int64 most contacts of each pair
    ncon_max: int = 0  # sum(pair_max): the contact capacity of Data
    timestep: float = 0.0  # the integration step the model file asks for (MJCF <option timestep>); 0: none
    source: str = ""  # the model file it was loaded from (a URDF path), "" for built models
    # derived in __post_init__
    gravity_accel: np.ndarray = field(init=False, repr=False, default=None)  # (6,) base acceleration [0; -g]
    model_int: np.ndarray = field(init=False, repr=False, default=None)  # every int64 field, packed
    model_float: np.ndarray = field(init=False, repr=False, default=None)  # every float64 field, packed
    # {frame name: index} (frame_id resolves indices and unknown names too); a plain attribute, read per call
    frame_index: dict = field(init=False, repr=False, default=None)

    def __post_init__(self):
        """Pack every array field into ``model_int`` and ``model_float`` (``soadyn._kernels.layout``) and
        rebind each field to its read-only view there: kernels take the two buffers."""
        for name in ("dof_stiffness", "dof_damping", "dof_springref", "dof_armature"):
            if getattr(self, name) is None:
                object.__setattr__(self, name, np.zeros(self.nv))
        if self.loop_row is None:  # no loops: row offsets [0], so that kernels read loop_row[nl] = 0
            object.__setattr__(self, "loop_row", np.zeros(1, dtype=np.int64))
        # the fictitious base spatial acceleration a_0 = [0; -g] (docs/architecture.md, Conventions)
        object.__setattr__(self, "gravity_accel", np.r_[0.0, 0.0, 0.0, -np.asarray(self.gravity, dtype=np.float64)])
        sizes = self.sizes
        mi, mf, views = layout.pack_model({n: getattr(self, n) for n in layout.MODEL_INT + layout.MODEL_FLOAT}, sizes)
        for name, a in views.items():
            object.__setattr__(self, name, a)
        object.__setattr__(self, "model_int", mi)
        object.__setattr__(self, "model_float", mf)
        object.__setattr__(self, "frame_index", {n: i for i, n in enumerate(self.frame_names)})

    @property
    def sizes(self) -> dict:
        """The sizes that fix the shapes of the Model and Data arrays (``soadyn._kernels.layout.SIZES``)."""
        return {"nq": self.nq, "nv": self.nv, "nb": self.nb, "nf": self.nf, "nl": self.nl, "nc": self.nc,
                "ng": self.ng, "ncon_max": self.ncon_max, "npair": self.npair,
                "nmeshvert": 0 if self.mesh_vert is None else len(self.mesh_vert)}

    def __reduce__(self):
        """Pickle through the constructor, so that the copy packs its own buffers."""
        return (_model_from_fields, (type(self), {f.name: getattr(self, f.name) for f in dataclasses.fields(self)
                                                  if f.init},))

    @property
    def has_springs(self) -> bool:
        """True when some joint carries a spring or a damper."""
        return bool(np.any(self.dof_stiffness) or np.any(self.dof_damping))

    def passive_forces(self, q, qd) -> np.ndarray:
        """The joint springs' and dampers' forces ``tau_passive = -k (q - q_ref) - c qd`` (nv,) at ``(q, qd)``
        (1-dof joints; zero elsewhere): what the simulation kernels add to the applied joint forces at every
        dynamics evaluation (``soadyn._kernels.sim.passive_forces``). A new array."""
        q = np.asarray(q, dtype=np.float64)
        qd = np.asarray(qd, dtype=np.float64)
        if q.shape != (self.nq,) or qd.shape != (self.nv,):
            raise ValueError(f"q, qd: expected shapes ({self.nq},) and ({self.nv},), got {q.shape} and {qd.shape}")
        if not (np.all(np.isfinite(q)) and np.all(np.isfinite(qd))):
            raise ValueError("q, qd: contain NaN or inf")
        out = np.zeros(self.nv)
        one = self.jnt_nv == 1
        k, a = self.jnt_vadr[one], self.jnt_qadr[one]
        out[k] = -self.dof_stiffness[k] * (q[a] - self.dof_springref[k]) - self.dof_damping[k] * qd[k]
        return out

    # ------------------------------------------------------------------ construction
    @staticmethod
    def from_urdf(path, floating_base: bool = False, name: str | None = None, mimic: bool | str | None = None,
                  strict: bool = False, collision: bool = False) -> "Model":
        """Load a URDF file (see :func:`soadyn.io.urdf.load_urdf`): ``mimic=True`` gives a
        :class:`soadyn.mimic.MimicModel` whose mimic joints follow their primaries exactly; otherwise
        ``<mimic>`` joints load as independent joints with a warning, silently with ``mimic="independent"``,
        or raise with ``mimic="error"``. ``strict=True`` refuses non-physical inertias instead of repairing them.
        ``collision=True`` adds the links' ``<collision>`` geometry as geoms."""
        from .io.urdf import load_urdf

        return load_urdf(path, floating_base=floating_base, name=name, mimic=mimic, strict=strict,
                         collision=collision)

    @staticmethod
    def from_mjcf(path, unsupported: str = "error", name: str | None = None) -> "Model":
        """Load an MJCF file through MuJoCo's compiler (see :func:`soadyn.io.mjcf.load_mjcf`)."""
        from .io.mjcf import load_mjcf

        return load_mjcf(path, unsupported=unsupported, name=name)

    def data(self) -> "Data":
        """A fresh :class:`~soadyn.data.Data` workspace for this model (one per thread)."""
        from .data import Data

        return Data(self)

    def fully_augmented(self) -> "Model":
        """The fully augmented (FA) model: every body a free body, every hinge a loop constraint
        (Jain 2012 Sec. 1; see :func:`soadyn.augmented.fully_augmented`)."""
        from .augmented import fully_augmented

        return fully_augmented(self)

    def embed_loops(self, loops=None, independent=None, method: str = "auto", max_size: int = 16,
                    hybrid_size: int = 6, q_ref=None, tol: float = 1e-13):
        """Constraint embedding: the :class:`soadyn.embedding.EmbeddedModel` with ``loops`` (None: all,
        a list of names, or ``"auto"``: the hybrid rule) aggregated into compound bodies and the other
        loops cut (Jain 2012 Secs. 1, 6; see :func:`soadyn.embedding.embed_loops`)."""
        from .embedding import embed_loops

        return embed_loops(self, loops, independent, method, max_size, hybrid_size, q_ref, tol)

    # ------------------------------------------------------------------ names
    @property
    def joint_names(self) -> tuple:
        return self.jnt_names

    @functools.cached_property
    def _joint_index(self) -> dict:
        return {n: i for i, n in enumerate(self.jnt_names)}

    @functools.cached_property
    def _body_index(self) -> dict:
        return {n: i for i, n in enumerate(self.body_names)}

    def frame_id(self, frame) -> int:
        """Index of a frame given by name or index; ``ValueError`` naming it if unknown."""
        if type(frame) is str:  # the per-call case first: a name
            f = self.frame_index.get(frame)
            if f is not None:
                return f
        return _lookup(frame, self.frame_index, self.nf, "frame")

    def joint_id(self, joint) -> int:
        return _lookup(joint, self._joint_index, self.nb, "joint")

    def body_id(self, body) -> int:
        return _lookup(body, self._body_index, self.nb, "body")

    # ------------------------------------------------------------------ configurations
    def neutral_q(self) -> np.ndarray:
        """The neutral configuration: zeros, identity quaternions."""
        q = np.zeros(self.nq)
        for i in range(self.nb):
            if self.jnt_type[i] in (J.SPHERICAL, J.FREE):
                q[self.jnt_qadr[i] + self.jnt_nq[i] - 1] = 1.0
        return q

    def random_q(self, rng=None, scale: float = np.pi) -> np.ndarray:
        """A random configuration: 1-dof joints uniform within their limits (or in ``[-scale, scale]``
        where unlimited), uniformly random unit quaternions, free-joint positions in ``[-1, 1]``."""
        rng = np.random.default_rng(rng)
        q = np.empty(self.nq)
        for i in range(self.nb):
            a, t = self.jnt_qadr[i], self.jnt_type[i]
            if t in (J.SPHERICAL, J.FREE):
                if t == J.FREE:
                    q[a:a + 3] = rng.uniform(-1.0, 1.0, 3)
                    a += 3
                quat = rng.normal(size=4)
                q[a:a + 4] = quat / np.linalg.norm(quat)
            elif self.jnt_nq[i] == 1:
                lo, hi = self.jnt_lower[i], self.jnt_upper[i]
                lo = lo if np.isfinite(lo) else -scale
                hi = hi if np.isfinite(hi) else scale
                q[a] = rng.uniform(lo, hi)
            else:
                q[a:a + self.jnt_nq[i]] = rng.uniform(-scale, scale, self.jnt_nq[i])
        return q

    @functools.cached_property
    def is_vector_space(self) -> bool:
        """True when every joint's configuration is a plain vector (no quaternion or planar joint): then
        ``difference(q0, q1) = q1 - q0`` and ``integrate(q, v) = q + v``."""
        return self.nq == self.nv and not np.any(self.jnt_type == J.PLANAR)

    def summary(self) -> str:
        counts = {}
        for t in self.jnt_type:
            counts[J.JOINT_TYPE_NAMES[t]] = counts.get(J.JOINT_TYPE_NAMES[t], 0) + 1
        joints = ", ".join(f"{k} {v}" for k, v in sorted(counts.items()))
        return (f"model {self.name}: nq={self.nq} nv={self.nv} bodies={self.nb} frames={self.nf} "
                f"mass={self.body_mass.sum():.4g} kg; joints: {joints}")

    def __repr__(self) -> str:
        return f"<soadyn.Model {self.name!r} nq={self.nq} nv={self.nv} nb={self.nb} nf={self.nf}>"


def _model_from_fields(cls, fields: dict) -> Model:
    return cls(**fields)


def _lookup(key, index: dict, n: int, what: str) -> int:
    if type(key) is str and key in index:  # the common case first: a known name
        return index[key]
    if isinstance(key, (int, np.integer)) and not isinstance(key, bool):
        if 0 <= key < n:
            return int(key)
        raise ValueError(f"{what} index {key} out of range [0, {n})")
    try:
        return index[key]
    except (KeyError, TypeError):
        close = [k for k in index if isinstance(key, str) and key.lower() in k.lower()][:5]
        hint = f"; similar: {close}" if close else ""
        raise ValueError(f"unknown {what} {key!r}{hint}") from None
