"""Model building: :class:`ModelBuilder` collects bodies, joints, inertias, frames, springs, geoms and loops;
``finalize()`` produces the immutable :class:`~soadyn.model.Model` (docs/architecture.md, Model and Data).

Topology: bodies ``0..nb-1`` in depth-first preorder, so ``body_parent[i] < i`` and the subtree of body
``i`` is the contiguous range ``i .. body_subtree_end[i] - 1``. Every body has exactly one inbound joint;
fixed joints are merged into the parent body, whose inertia absorbs the child's and whose frames absorb
the child's frames.
"""

from __future__ import annotations

import dataclasses
import warnings
from dataclasses import dataclass

import numpy as np

from . import joints as J
from .model import Model, ModelError
from .spatial import Inertia, Transform

__all__ = ["ModelBuilder", "singular_mass_joints", "WORLD"]

WORLD = "world"


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
            gravity=np.asarray(self.gravity, dtype=np.float64),
            body_names=tuple(kept),
            body_parent=np.asarray(parent_idx, dtype=np.int64),
            body_subtree_end=np.asarray(subtree_end, dtype=np.int64),
            body_Xtree_E=np.asarray(np.array([xtree[n].E for n in kept]).reshape(nb, 3, 3), dtype=np.float64),
            body_Xtree_r=np.asarray(np.array([xtree[n].r for n in kept]).reshape(nb, 3), dtype=np.float64),
            body_I=np.asarray(body_I, dtype=np.float64),
            body_mass=np.asarray([inertia[n].mass for n in kept], dtype=np.float64),
            jnt_names=tuple(specs[n].joint_name for n in kept),
            jnt_type=np.asarray([j.type for j in joints_], dtype=np.int64),
            jnt_qadr=np.asarray(qadr, dtype=np.int64),
            jnt_vadr=np.asarray(vadr, dtype=np.int64),
            jnt_nq=np.asarray(nqs, dtype=np.int64),
            jnt_nv=np.asarray(nvs, dtype=np.int64),
            jnt_axis=np.asarray(np.array([j.axis for j in joints_]).reshape(nb, 3), dtype=np.float64),
            jnt_axis2=np.asarray(np.array([j.axis2 for j in joints_]).reshape(nb, 3), dtype=np.float64),
            jnt_pitch=np.asarray([j.pitch for j in joints_], dtype=np.float64),
            jnt_lower=np.asarray([j.lower for j in joints_], dtype=np.float64),
            jnt_upper=np.asarray([j.upper for j in joints_], dtype=np.float64),
            dof_S=np.asarray(dof_S, dtype=np.float64),
            dof_body=np.asarray(dof_body, dtype=np.int64),
            frame_names=tuple(f[0] for f in frames),
            frame_body=np.asarray([f[1] for f in frames], dtype=np.int64),
            frame_E=np.asarray(np.array([f[2].E for f in frames]).reshape(len(frames), 3, 3), dtype=np.float64),
            frame_r=np.asarray(np.array([f[2].r for f in frames]).reshape(len(frames), 3), dtype=np.float64),
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
        if name not in model.jnt_names:
            why = "a fixed joint (merged away)" if types.get(name) == J.FIXED else "not a joint of the model"
            raise ModelError(f"set_armature: {name!r} is {why}")
        i = model.jnt_names.index(name)
        n = int(model.jnt_nv[i])
        if a.size not in (1, n):
            raise ModelError(f"set_armature: joint {name!r} has {n} dofs, got {a.size} armature values")
        out[model.jnt_vadr[i]:model.jnt_vadr[i] + n] = a
    return dataclasses.replace(model, dof_armature=out)


def _with_springs(model: Model, springs: dict, types: dict) -> Model:
    """``model`` with the spring-dampers ``{joint name: (stiffness, damping, reference)}``."""
    k, c, ref = np.zeros(model.nv), np.zeros(model.nv), np.zeros(model.nv)
    for name, (ks, cs, rs) in springs.items():
        if name not in model.jnt_names:
            why = "a fixed joint (merged away)" if types.get(name) == J.FIXED else "not a joint of the model"
            raise ModelError(f"set_spring: {name!r} is {why}")
        i = model.jnt_names.index(name)
        if model.jnt_nv[i] != 1 or model.jnt_nq[i] != 1:
            raise ModelError(f"set_spring: joint {name!r} is {J.JOINT_TYPE_NAMES[model.jnt_type[i]]}; springs act on "
                             "1-dof joints (revolute, prismatic, helical)")
        a = model.jnt_vadr[i]
        k[a], c[a], ref[a] = ks, cs, rs
    return dataclasses.replace(model, dof_stiffness=k, dof_damping=c, dof_springref=ref)


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
