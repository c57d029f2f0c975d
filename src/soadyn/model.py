"""Model building: :class:`ModelBuilder` collects bodies, joints, inertias and frames; ``finalize()``
produces the immutable :class:`Model` (docs/architecture.md, Model and Data).

Topology: bodies ``0..nb-1`` in depth-first preorder, so ``body_parent[i] < i`` and the subtree of body
``i`` is the contiguous range ``i .. body_subtree_end[i] - 1`` (its dofs are ``jnt_vadr[i] ..
subtree_vend``). Every body has exactly one inbound joint; fixed joints are merged into the parent body,
whose inertia absorbs the child's and whose frames absorb the child's frames.
"""

from __future__ import annotations

import dataclasses
import functools
import warnings
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np

from . import joints as J
from .spatial import Inertia, Transform

if TYPE_CHECKING:
    from .data import Data

__all__ = ["ModelBuilder", "Model", "ModelError", "singular_mass_joints"]

WORLD = "world"


def _no_geoms(*shape, dtype=np.float64):
    """Default factory of an empty read-only geom array (models without geoms)."""
    return field(default_factory=lambda: _readonly(np.zeros(shape), dtype))


class ModelError(ValueError):
    """A model that cannot be built: unknown or missing parents, cycles, duplicate names, a singular
    mass matrix."""


@dataclass
class _BodySpec:
    name: str
    parent: str
    joint: J.Joint
    joint_name: str
    placement: Transform
    inertia: Inertia


@dataclass
class _FrameSpec:
    name: str
    body: str
    placement: Transform


def _readonly(a, dtype) -> np.ndarray:
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

    def __post_init__(self):
        for name in ("dof_stiffness", "dof_damping", "dof_springref", "dof_armature"):
            if getattr(self, name) is None:
                object.__setattr__(self, name, _readonly(np.zeros(self.nv), np.float64))

    @property
    def has_springs(self) -> bool:
        """True when some joint carries a spring or a damper."""
        return bool(np.any(self.dof_stiffness) or np.any(self.dof_damping))

    def passive_forces(self, q, qd) -> np.ndarray:
        """The joint springs' and dampers' forces ``tau_passive = -k (q - q_ref) - c qd`` (nv,) at ``(q, qd)``
        (1-dof joints; zero elsewhere): what the simulation kernels add to the applied joint forces at every
        dynamics evaluation (``soadyn._kernels.sim.passive_forces``). A new array."""
        from .dynamics import as_array

        q = as_array(q, (self.nq,), "q")
        qd = as_array(qd, (self.nv,), "qd")
        if not (np.all(np.isfinite(q)) and np.all(np.isfinite(qd))):
            raise ValueError("q, qd: contain NaN or inf")
        out = np.zeros(self.nv)
        one = self.jnt_nv == 1
        k, a = self.jnt_vadr[one], self.jnt_qadr[one]
        out[k] = -self.dof_stiffness[k] * (q[a] - self.dof_springref[k]) - self.dof_damping[k] * qd[k]
        return out

    @functools.cached_property
    def _springs(self) -> tuple:
        """``(dof_stiffness, dof_damping, dof_springref)`` in kernel argument order."""
        return (self.dof_stiffness, self.dof_damping, self.dof_springref)

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
    def _frame_index(self) -> dict:
        return {n: i for i, n in enumerate(self.frame_names)}

    @functools.cached_property
    def _joint_index(self) -> dict:
        return {n: i for i, n in enumerate(self.jnt_names)}

    @functools.cached_property
    def _body_index(self) -> dict:
        return {n: i for i, n in enumerate(self.body_names)}

    def frame_id(self, frame) -> int:
        """Index of a frame given by name or index; ``ValueError`` naming it if unknown."""
        return _lookup(frame, self._frame_index, self.nf, "frame")

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

    # ------------------------------------------------------------------ kernel argument packs
    @functools.cached_property
    def _tree(self) -> tuple:
        """The model arrays every tree kernel takes, in kernel argument order."""
        return (self.body_parent, self.jnt_type, self.jnt_qadr, self.jnt_vadr, self.jnt_nv, self.jnt_axis,
                self.jnt_axis2, self.jnt_pitch, self.body_Xtree_E, self.body_Xtree_r, self.body_I, self.dof_S,
                self.dof_armature)

    @functools.cached_property
    def gravity_accel(self) -> np.ndarray:
        """The fictitious base spatial acceleration ``a_0 = [0; -g]`` (docs/architecture.md, Conventions)."""
        return _readonly(np.r_[0.0, 0.0, 0.0, -self.gravity], np.float64)

    def summary(self) -> str:
        counts = {}
        for t in self.jnt_type:
            counts[J.JOINT_TYPE_NAMES[t]] = counts.get(J.JOINT_TYPE_NAMES[t], 0) + 1
        joints = ", ".join(f"{k} {v}" for k, v in sorted(counts.items()))
        return (f"model {self.name}: nq={self.nq} nv={self.nv} bodies={self.nb} frames={self.nf} "
                f"mass={self.body_mass.sum():.4g} kg; joints: {joints}")

    def __repr__(self) -> str:
        return f"<soadyn.Model {self.name!r} nq={self.nq} nv={self.nv} nb={self.nb} nf={self.nf}>"


def _lookup(key, index: dict, n: int, what: str) -> int:
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


class ModelBuilder:
    """Collects bodies, joints, inertias and frames, then :meth:`finalize` builds the :class:`Model`.

    Parents may be named before they are added; ``finalize`` reports missing parents and cycles.
    Every body also gets a frame of its own name at its origin.
    """

    def __init__(self, name: str = "model", gravity=(0.0, 0.0, -9.81), exclude_parent_child: bool = True):
        self.name = name
        self.exclude_parent_child = bool(exclude_parent_child)  # no contacts between parent and child bodies
        self.gravity = np.asarray(gravity, dtype=float).reshape(3)
        if not np.all(np.isfinite(self.gravity)):
            raise ValueError("gravity must be finite")
        self._bodies: list[_BodySpec] = []
        self._frames: list[_FrameSpec] = []
        self._names: set[str] = {WORLD}
        self._loops: list[tuple] = []
        self._loop_names: set[str] = set()
        self._geoms: list = []  # soadyn.contact.geometry.GeomSpec
        self._excluded: set[frozenset] = set()
        self._springs: dict[str, tuple] = {}
        self._armature: dict[str, np.ndarray] = {}
        self._geom_inertia: list[tuple[str, Inertia]] = []  # (body, inertia in body coordinates) of add_geom

    def add_body(self, name: str, parent: str, joint: J.Joint, placement: Transform | None = None,
                 inertia: Inertia | None = None, joint_name: str | None = None) -> str:
        """Add body ``name`` attached to ``parent`` (a body name or ``"world"``) by ``joint``, whose
        predecessor frame is ``placement`` relative to the parent body frame. Returns ``name``."""
        if not isinstance(name, str) or not name:
            raise ValueError(f"body name must be a non-empty string, got {name!r}")
        if name in self._names:
            raise ModelError(f"duplicate name {name!r}: body and frame names must be unique")
        if not isinstance(joint, J.Joint):
            raise ValueError(f"body {name!r}: joint must be a soadyn.joints.Joint, got {type(joint).__name__}")
        if not isinstance(parent, str):
            raise ValueError(f"body {name!r}: parent must be a body name or 'world', got {parent!r}")
        placement = Transform.identity() if placement is None else placement
        inertia = Inertia.zero() if inertia is None else inertia
        jname = joint_name or f"{name}_joint"
        self._bodies.append(_BodySpec(name, parent, joint, jname, placement, inertia))
        self._names.add(name)
        return name

    def add_frame(self, name: str, body: str, placement: Transform | None = None) -> str:
        """Add a named frame fixed to ``body`` (or ``"world"``) at ``placement`` in the body frame."""
        if name in self._names:
            raise ModelError(f"duplicate name {name!r}: body and frame names must be unique")
        self._frames.append(_FrameSpec(name, body, Transform.identity() if placement is None else placement))
        self._names.add(name)
        return name

    def add_loop(self, name: str, frame_a: str, frame_b: str, kind="revolute", axis=None, axis2=None) -> str:
        """Close a loop between ``frame_a`` and ``frame_b`` (frames or bodies; ``"world"`` for the ground)
        with a loop joint of ``kind`` (see :mod:`soadyn.loops`): ``"weld"``, ``"ball"``, ``"revolute"``,
        ``"prismatic"``, ``"cylindrical"`` (axis: frame A's z), ``"universal"`` (``axis`` in A, ``axis2`` in
        B), ``"planar_pin"`` (frame A's x-y translations) or an explicit (d x 6) selection of the relative
        spatial velocity ``[w; v]`` in A's axes. The frames coincide when the loop is closed."""
        if name in self._loop_names:
            raise ModelError(f"duplicate loop name {name!r}")
        self._loop_names.add(name)
        self._loops.append((name, frame_a, frame_b, kind, axis, axis2))
        return name

    def set_spring(self, joint_name: str, stiffness: float, damping: float = 0.0, reference: float = 0.0) -> str:
        """A passive spring-damper on the 1-dof joint ``joint_name`` (revolute, prismatic or helical):
        ``tau = -stiffness (q - reference) - damping qd`` acts on its dof at every dynamics evaluation of a
        simulation (N m/rad and N m s/rad, or N/m and N s/m). ``stiffness, damping >= 0`` and finite. A second
        call for the same joint replaces the first. Checked against the joint at :meth:`finalize`."""
        if not isinstance(joint_name, str):
            raise ValueError(f"joint_name: expected a joint name, got {joint_name!r}")
        vals = []
        for what, x in (("stiffness", stiffness), ("damping", damping), ("reference", reference)):
            try:
                x = float(x)
            except (TypeError, ValueError):
                raise ValueError(f"{what}: expected a finite number, got {x!r}") from None
            if not np.isfinite(x) or (what != "reference" and x < 0.0):
                raise ValueError(f"{what}: expected a finite number{' >= 0' if what != 'reference' else ''}, "
                                 f"got {x!r} (joint {joint_name!r})")
            vals.append(x)
        self._springs[joint_name] = tuple(vals)
        return joint_name

    def set_armature(self, joint_name: str, armature) -> str:
        """Joint armature of ``joint_name``: a rotor inertia on each of its velocity coordinates (kg m^2 for
        rotations, kg for translations), added to the diagonal of the mass matrix as MuJoCo's joint
        ``armature`` (a geared motor's reflected inertia ``gear^2 I_rotor``, without its gyroscopic effect).
        A number (every dof of the joint) or one value per dof, finite and ``>= 0``; checked against the joint
        at :meth:`finalize`. A second call for the same joint replaces the first."""
        if not isinstance(joint_name, str):
            raise ValueError(f"joint_name: expected a joint name, got {joint_name!r}")
        try:
            a = np.array(armature, dtype=np.float64).reshape(-1)
        except (TypeError, ValueError):
            raise ValueError(f"armature: expected a number or one number per dof, got {armature!r}") from None
        if a.size == 0 or not np.all(np.isfinite(a)) or np.any(a < 0.0):
            raise ValueError(f"armature: expected finite numbers >= 0, got {armature!r} (joint {joint_name!r})")
        self._armature[joint_name] = a
        return joint_name

    def add_geom(self, name: str, body: str, kind: str, size=None, placement=None, mu: float = 0.5,
                 restitution: float = 0.0, margin: float = 0.0, group: int = 1, mask: int = -1,
                 corner_normals: bool = False, density: float | None = None, mass: float | None = None) -> str:
        """Add a collision geom ``name`` fixed to ``body`` (or ``"world"``): ``kind`` ``"sphere"`` (size:
        radius), ``"capsule"`` (radius, half-length along its z), ``"box"`` (half-extents), ``"plane"`` (none,
        or a finite rectangle (hx, hy)) or ``"halfspace"`` (the solid z <= 0 of its frame), at ``placement``
        in the body frame (a Transform, a 4x4 pose or (rotation, translation)); friction ``mu``,
        ``restitution``, contact ``margin``, collision ``group``/``mask`` bits; ``corner_normals`` (boxes):
        a contact at a corner shared with another such box is repeated with the normals of the corner's
        other two faces (RPIsim's contacts, Drumwright 2015 Sec. VII-A). See :mod:`soadyn.contact.geometry`.
        ``"cylinder"`` takes (radius, half-length along z), ``"convex"`` an (n, 3) array of points or a mesh
        file (its convex hull). ``density`` (kg/m^3) or ``mass`` (kg): the solid geom's mass properties
        (:meth:`Inertia.from_geom`) are added to the body's inertia at :meth:`finalize`. Returns ``name``."""
        from .contact.geometry import geom_spec

        g = geom_spec(name, body, kind, size, placement, mu, restitution, margin, group, mask, corner_normals)
        if any(h.name == name for h in self._geoms):
            raise ModelError(f"duplicate geom name {name!r}")
        if density is not None or mass is not None:
            if body == WORLD or kind in ("plane", "halfspace"):
                raise ValueError(f"geom {name!r}: density/mass need a solid geom on a body, got a {kind} on {body!r}")
            shape = g.vertices if kind == "convex" else g.size[:{"sphere": 1, "box": 3}.get(kind, 2)]
            try:
                inertia = Inertia.from_geom(kind, shape, density=density, mass=mass)
            except ValueError as exc:
                raise ValueError(f"geom {name!r}: {exc}") from None
            self._geom_inertia.append((body, inertia.transformed(g.placement)))
        self._geoms.append(g)
        return name

    def exclude_pair(self, geom1: str, geom2: str) -> None:
        """Never test the geoms ``geom1`` and ``geom2`` against each other (checked at :meth:`finalize`)."""
        if not (isinstance(geom1, str) and isinstance(geom2, str)) or geom1 == geom2:
            raise ValueError(f"exclude_pair: expected two different geom names, got {geom1!r}, {geom2!r}")
        self._excluded.add(frozenset((geom1, geom2)))

    # ------------------------------------------------------------------ finalize
    def finalize(self) -> Model:
        specs = {b.name: b for b in self._bodies}
        children: dict[str, list[str]] = {WORLD: []}
        for b in self._bodies:
            if b.parent != WORLD and b.parent not in specs:
                raise ModelError(f"body {b.name!r}: parent {b.parent!r} is not a body of the model")
            children.setdefault(b.parent, []).append(b.name)
        reached = _depth_first(children)
        if len(reached) != len(self._bodies):
            lost = sorted(set(specs) - set(reached))
            raise ModelError(f"bodies {lost} are not connected to the world: the parent links form a cycle")
        for f in self._frames:
            if f.body != WORLD and f.body not in specs:
                raise ModelError(f"frame {f.name!r}: body {f.body!r} is not a body of the model")
        own = {b.name: b.inertia for b in self._bodies}  # with the mass of geoms added with density/mass
        for body, extra in self._geom_inertia:
            if body not in own:
                raise ModelError(f"geom with mass: body {body!r} is not a body of the model")
            own[body] = own[body] + extra

        # merge fixed joints: each body maps to (kept ancestor or WORLD, transform ancestor -> body)
        host: dict[str, tuple[str, Transform]] = {WORLD: (WORLD, Transform.identity())}
        kept: list[str] = []
        inertia: dict[str, Inertia] = {}
        xtree: dict[str, Transform] = {}
        parent: dict[str, str] = {}
        for name in reached:
            b = specs[name]
            ph, pX = host[b.parent]
            if b.joint.type == J.FIXED:
                X = b.placement * pX
                host[name] = (ph, X)
                if ph != WORLD:
                    inertia[ph] = inertia[ph] + own[name].transformed(X)
            else:
                host[name] = (name, Transform.identity())
                kept.append(name)
                inertia[name] = own[name]
                xtree[name] = b.placement * pX
                parent[name] = ph

        index = {n: i for i, n in enumerate(kept)}
        nb = len(kept)
        parent_idx = np.array([index.get(parent[n], -1) for n in kept], dtype=np.int64)
        subtree_end = np.arange(1, nb + 1, dtype=np.int64)
        for i in range(nb - 1, -1, -1):
            p = parent_idx[i]
            if p >= 0:
                subtree_end[p] = max(subtree_end[p], subtree_end[i])

        joints_ = [specs[n].joint for n in kept]
        nqs = np.array([j.nq for j in joints_], dtype=np.int64)
        nvs = np.array([j.nv for j in joints_], dtype=np.int64)
        qadr = np.concatenate([[0], np.cumsum(nqs)[:-1]]).astype(np.int64) if nb else np.zeros(0, np.int64)
        vadr = np.concatenate([[0], np.cumsum(nvs)[:-1]]).astype(np.int64) if nb else np.zeros(0, np.int64)
        nv = int(nvs.sum())
        dof_S = np.zeros((nv, 6))
        dof_body = np.zeros(nv, dtype=np.int64)
        for i, j in enumerate(joints_):
            dof_S[vadr[i]:vadr[i] + nvs[i]] = j.motion_subspace().T
            dof_body[vadr[i]:vadr[i] + nvs[i]] = i

        # frames: one per body (including merged ones), then the declared frames
        frames: list[tuple[str, int, Transform]] = []
        for b in self._bodies:
            h, X = host[b.name]
            frames.append((b.name, index.get(h, -1), X))
        for f in self._frames:
            h, X = host[f.body]
            frames.append((f.name, index.get(h, -1), f.placement * X))

        body_I = np.array([inertia[n].matrix() for n in kept]).reshape(nb, 6, 6)
        from .contact.geometry import model_fields

        geoms = model_fields(self._geoms, self._excluded, host, index, parent_idx, self.exclude_parent_child)
        model = Model(
            name=self.name,
            nq=int(nqs.sum()),
            nv=nv,
            nb=nb,
            nf=len(frames),
            gravity=_readonly(self.gravity, np.float64),
            body_names=tuple(kept),
            body_parent=_readonly(parent_idx, np.int64),
            body_subtree_end=_readonly(subtree_end, np.int64),
            body_Xtree_E=_readonly(np.array([xtree[n].E for n in kept]).reshape(nb, 3, 3), np.float64),
            body_Xtree_r=_readonly(np.array([xtree[n].r for n in kept]).reshape(nb, 3), np.float64),
            body_I=_readonly(body_I, np.float64),
            body_mass=_readonly([inertia[n].mass for n in kept], np.float64),
            jnt_names=tuple(specs[n].joint_name for n in kept),
            jnt_type=_readonly([j.type for j in joints_], np.int64),
            jnt_qadr=_readonly(qadr, np.int64),
            jnt_vadr=_readonly(vadr, np.int64),
            jnt_nq=_readonly(nqs, np.int64),
            jnt_nv=_readonly(nvs, np.int64),
            jnt_axis=_readonly(np.array([j.axis for j in joints_]).reshape(nb, 3), np.float64),
            jnt_axis2=_readonly(np.array([j.axis2 for j in joints_]).reshape(nb, 3), np.float64),
            jnt_pitch=_readonly([j.pitch for j in joints_], np.float64),
            jnt_lower=_readonly([j.lower for j in joints_], np.float64),
            jnt_upper=_readonly([j.upper for j in joints_], np.float64),
            dof_S=_readonly(dof_S, np.float64),
            dof_body=_readonly(dof_body, np.int64),
            frame_names=tuple(f[0] for f in frames),
            frame_body=_readonly([f[1] for f in frames], np.int64),
            frame_E=_readonly(np.array([f[2].E for f in frames]).reshape(len(frames), 3, 3), np.float64),
            frame_r=_readonly(np.array([f[2].r for f in frames]).reshape(len(frames), 3), np.float64),
            **geoms,
        )
        if len(set(model.jnt_names)) != nb:
            dup = sorted({n for n in model.jnt_names if model.jnt_names.count(n) > 1})
            raise ModelError(f"duplicate joint names {dup}")
        if self._armature:
            model = _with_armature(model, self._armature, {b.joint_name: b.joint.type for b in self._bodies})
        massless = singular_mass_joints(model)
        if massless:
            warnings.warn(f"{model.name}: joint {massless[0]!r} moves a subtree without inertia along one of its axes, "
                          "so the mass matrix is singular: kinematics, rnea and crba work, aba, minv and simulation "
                          f"raise ValueError naming the joint (all such joints: {massless})", UserWarning, stacklevel=2)
        if self._springs:
            model = _with_springs(model, self._springs, {b.joint_name: b.joint.type for b in self._bodies})
        if self._loops:
            from .loops import with_loops

            model = with_loops(model, self._loops)
        return model


def _with_armature(model: Model, armature: dict, types: dict) -> Model:
    """``model`` with the joint armature ``{joint name: value or one value per dof}``."""
    out = np.zeros(model.nv)
    for name, a in armature.items():
        if name not in model._joint_index:
            why = "a fixed joint (merged away)" if types.get(name) == J.FIXED else "not a joint of the model"
            raise ModelError(f"set_armature: {name!r} is {why}")
        i = model._joint_index[name]
        n = int(model.jnt_nv[i])
        if a.size not in (1, n):
            raise ModelError(f"set_armature: joint {name!r} has {n} dofs, got {a.size} armature values")
        out[model.jnt_vadr[i]:model.jnt_vadr[i] + n] = a
    return dataclasses.replace(model, dof_armature=_readonly(out, np.float64))


def _with_springs(model: Model, springs: dict, types: dict) -> Model:
    """``model`` with the spring-dampers ``{joint name: (stiffness, damping, reference)}``."""
    k, c, ref = np.zeros(model.nv), np.zeros(model.nv), np.zeros(model.nv)
    for name, (ks, cs, rs) in springs.items():
        if name not in model._joint_index:
            why = "a fixed joint (merged away)" if types.get(name) == J.FIXED else "not a joint of the model"
            raise ModelError(f"set_spring: {name!r} is {why}")
        i = model._joint_index[name]
        if model.jnt_nv[i] != 1 or model.jnt_nq[i] != 1:
            raise ModelError(f"set_spring: joint {name!r} is {J.JOINT_TYPE_NAMES[model.jnt_type[i]]}; springs act on "
                             "1-dof joints (revolute, prismatic, helical)")
        a = model.jnt_vadr[i]
        k[a], c[a], ref[a] = ks, cs, rs
    return dataclasses.replace(model, dof_stiffness=_readonly(k, np.float64), dof_damping=_readonly(c, np.float64),
                               dof_springref=_readonly(ref, np.float64))


def _depth_first(children: dict[str, list[str]]) -> list[str]:
    """Bodies reachable from the world in depth-first preorder (children in insertion order)."""
    order: list[str] = []
    stack = list(reversed(children.get(WORLD, [])))
    seen = set()
    while stack:
        n = stack.pop()
        if n in seen:
            continue
        seen.add(n)
        order.append(n)
        stack.extend(reversed(children.get(n, [])))
    return order


def singular_mass_joints(model: Model) -> list[str]:
    """Joints that move a subtree carrying no inertia along one of their axes (e.g. a massless leaf body,
    or a point mass on its own revolute axis), tested at the neutral configuration: the mass matrix of
    such a model is singular. Pinocchio loads these models and its ABA returns NaN; soadyn loads them
    (``finalize`` warns) and :func:`soadyn.aba`/:func:`soadyn.minv` raise ``ValueError`` naming the joint."""
    Ic = model.body_I.copy()
    for i in range(model.nb - 1, -1, -1):
        p = model.body_parent[i]
        if p >= 0:
            X = Transform(model.body_Xtree_E[i], model.body_Xtree_r[i]).matrix()
            Ic[p] += X.T @ Ic[i] @ X
    out = []
    for i in range(model.nb):
        va, n = model.jnt_vadr[i], model.jnt_nv[i]
        S = model.dof_S[va:va + n].T
        d = np.linalg.eigvalsh(S.T @ Ic[i] @ S + np.diag(model.dof_armature[va:va + n]))
        if d.min() <= 1e-12 * max(1.0, d.max()):
            out.append(model.jnt_names[i])
    return out
