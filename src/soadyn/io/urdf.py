"""URDF loading through the maintained parser ``yourdfpy`` (docs/architecture.md, Layout).

Mapping (URDF specification, http://wiki.ros.org/urdf/XML; Pinocchio's ``parsers/urdf`` makes the same
choices):

* every ``<link>`` becomes a body added with :meth:`ModelBuilder.add_body` (so it is also a frame of the
  same name); the body's inbound joint keeps the URDF joint's name;
* ``revolute`` -> :func:`joints.Revolute` with its limits, ``continuous`` -> unlimited ``Revolute``,
  ``prismatic`` -> ``Prismatic``, ``fixed`` -> ``Fixed`` (merged into the parent by ``finalize``),
  ``floating`` -> ``Free``, ``planar`` -> ``Planar(normal=axis)``;
* the joint ``<origin xyz rpy>`` is the predecessor placement ``Transform.from_pose(R, xyz)`` with
  ``R = Rz(yaw) Ry(pitch) Rx(roll)`` (:func:`spatial.rpy_to_rot`);
* the ``<inertial>`` mass, origin and inertia tensor (given in the inertial frame) become an
  :class:`Inertia` in link coordinates: ``com = origin.xyz``, ``Ic = R I R^T``; links without
  ``<inertial>`` carry no inertia;
* the root link is attached to ``"world"`` by a ``Fixed`` joint, or by a ``Free`` joint named
  ``"root_joint"`` when ``floating_base=True`` (Pinocchio's ``JointModelFreeFlyer`` root). A root link
  literally named ``"world"`` is identified with soadyn's world; with ``floating_base=True`` it floats
  instead, as in Pinocchio, as a body named ``"world_link"`` (soadyn's ``"world"`` is the ground).

Non-physical ``<inertial>`` data (common in shipped URDFs: placeholder inertias of sensor links) loads with
one ``UserWarning`` naming each link and its defect, repaired by these rules, applied to the principal
moments ``d`` of the inertia tensor about the centre of mass (the principal axes are kept):

* negative mass: the link's ``<inertial>`` is dropped (the link carries no inertia);
* ``Ic`` not positive semi-definite (a principal moment below ``-1e-12 max(1, max|d|)``): negative moments
  are set to 0;
* triangle inequality violated (``d_i + d_j < d_k (1 - 1e-9)``, impossible for any mass distribution): the
  three moments are replaced by their mean, MuJoCo's ``balanceinertia`` rule (the trace is kept).

``strict=True`` refuses such a file instead (``ModelError`` naming the links and defects). Pinocchio
loads these inertias unchanged.

Mimic joints: ``mimic=True`` (Pinocchio 4's keyword) returns a :class:`soadyn.mimic.MimicModel` whose
coordinates are the independent joints', each ``<mimic>`` joint following its primary exactly
(``q = multiplier * q_primary + offset``). Otherwise the coupling is not enforced: by default a moving joint
with ``<mimic>`` is loaded as an ordinary independent joint (what Pinocchio's ``buildModelFromUrdf`` does
without ``mimic=True``) and a ``UserWarning`` names it; ``mimic="independent"`` does the same silently,
``mimic="error"`` rejects it. On a fixed joint, where it couples nothing, ``<mimic>`` is ignored. Malformed
files raise :class:`~soadyn.model.ModelError` (a ``ValueError``) naming the file and the element.
"""

from __future__ import annotations

import dataclasses
import warnings

import io
import math
from pathlib import Path

import numpy as np

from .. import joints as J
from ..builder import WORLD, ModelBuilder
from ..model import Model, ModelError
from ..spatial import Inertia, Transform

__all__ = ["load_urdf", "load_urdf_string", "JOINT_TYPES"]

JOINT_TYPES = ("revolute", "continuous", "prismatic", "fixed", "floating", "planar")
MIMIC_MODES = (True, "error", "independent")
ROOT_JOINT = "root_joint"
FLOATING_WORLD_LINK = "world_link"
"""Body name of a root link named ``"world"`` loaded with ``floating_base=True``."""
NEGATIVE_MOMENT_TOL = 1e-12
"""A principal moment below ``-NEGATIVE_MOMENT_TOL * max(1, max|d|)`` makes ``Ic`` not positive semi-definite
(the test of :class:`soadyn.spatial.Inertia`)."""
TRIANGLE_TOL = 1e-9
"""Relative slack of the triangle inequality ``d_i + d_j >= d_k (1 - TRIANGLE_TOL)`` on principal moments."""

# numeric attributes checked before parsing: element tag -> {attribute: number count}
_NUMERIC = {
    "origin": {"xyz": 3, "rpy": 3},
    "axis": {"xyz": 3},
    "limit": {"lower": 1, "upper": 1, "effort": 1, "velocity": 1},
    "mass": {"value": 1},
    "inertia": {a: 1 for a in ("ixx", "ixy", "ixz", "iyy", "iyz", "izz")},
    "mimic": {"multiplier": 1, "offset": 1},
}


def load_urdf(path, floating_base: bool = False, name: str | None = None, *, mimic: str | None = None,
              strict: bool = False, collision: bool = False) -> Model:
    """Load the URDF file ``path`` into a :class:`Model` (see the module docstring for the mapping).

    ``floating_base``: attach the root link by a ``Free`` joint named ``"root_joint"`` instead of
    fixing it to the world. ``name``: model name (default: the URDF robot name). ``mimic``: True returns a
    :class:`soadyn.mimic.MimicModel` (mimic joints follow their primaries exactly); ``"independent"`` loads ``<mimic>`` joints as independent joints, ``"error"`` rejects them; the default
    (None) loads them as independent joints with a warning naming them. ``strict``: refuse non-physical
    inertias instead of repairing them (see the module docstring). The model's ``source`` is the file's
    resolved path (the viewer loads the visual meshes from it). ``collision``: add the links'
    ``<collision>`` geometry as geoms (:mod:`soadyn.io.urdf_collision`).
    Raises ``FileNotFoundError`` for a missing file and ``ModelError`` naming the file and element for
    malformed or unsupported content.
    """
    p = Path(path)
    if not p.is_file():
        raise FileNotFoundError(f"URDF file not found: {str(path)!r}")
    model = _load(p.read_bytes(), str(p), floating_base, name, mimic, strict, file=str(p.resolve()))
    return _with_collision(model, p.read_bytes(), str(p)) if collision else model


def _with_collision(model, data: bytes, source: str):
    import yourdfpy

    from .urdf_collision import with_collision_geoms

    urdf = yourdfpy.URDF.load(io.BytesIO(data), build_scene_graph=False, load_meshes=False,
                              build_collision_scene_graph=False, load_collision_meshes=False)
    return with_collision_geoms(model, urdf.robot, source)


def load_urdf_string(xml: str | bytes, floating_base: bool = False, name: str | None = None, *,
                     mimic: str | None = None, strict: bool = False, source: str = "<urdf string>") -> Model:
    """Load a URDF given as an XML string; ``source`` names it in error messages. Otherwise as
    :func:`load_urdf`."""
    data = xml.encode("utf-8") if isinstance(xml, str) else bytes(xml)
    return _load(data, source, floating_base, name, mimic, strict)


# ----------------------------------------------------------------------------------------------- loading
def _load(data: bytes, source: str, floating_base: bool, name: str | None, mimic: str, strict: bool,
          file: str = "") -> Model:
    import yourdfpy

    if mimic is not None and not any(mimic is m or (isinstance(m, str) and mimic == m) for m in MIMIC_MODES):
        raise ValueError(f"mimic: expected one of {MIMIC_MODES}, got {mimic!r}")
    _check_xml(data, source)
    try:
        urdf = yourdfpy.URDF.load(io.BytesIO(data), build_scene_graph=False, load_meshes=False,
                                  build_collision_scene_graph=False, load_collision_meshes=False)
    except Exception as exc:  # _check_xml catches what we know of; report anything else with the file
        raise ModelError(f"{source}: yourdfpy cannot parse the URDF: {exc}") from exc
    robot = urdf.robot
    root = _check_tree(robot, source, mimic)

    defects: list[str] = []
    inertias = {link.name: _inertia(link, source, defects) for link in robot.links}
    if defects:
        if strict:
            raise ModelError(f"{source}: non-physical <inertial> (strict=True): {'; '.join(defects)}")
        warnings.warn(f"{source}: non-physical <inertial> repaired (strict=True refuses): {'; '.join(defects)}",
                      UserWarning, stacklevel=4)
    # a root link named "world" is the ground, unless it floats (then it is renamed)
    body = {root: FLOATING_WORLD_LINK} if root == WORLD and floating_base else {}
    builder = ModelBuilder(name or robot.name or Path(source).stem)
    try:
        if body or root != WORLD:
            builder.add_body(body.get(root, root), WORLD, J.Free() if floating_base else J.Fixed(),
                             inertia=inertias[root], joint_name=ROOT_JOINT)
        for joint in robot.joints:
            builder.add_body(joint.child, body.get(joint.parent, joint.parent), _joint(joint, source),
                             _placement(joint.origin), inertia=inertias[joint.child], joint_name=joint.name)
        model = dataclasses.replace(builder.finalize(), source=file)
        if mimic is True:
            from ..mimic import MimicModel

            couplings = {j.name: (j.mimic.joint, 1.0 if j.mimic.multiplier is None else j.mimic.multiplier,
                                  0.0 if j.mimic.offset is None else j.mimic.offset)
                         for j in robot.joints if j.mimic is not None and j.type != "fixed"}
            return MimicModel(model, couplings) if couplings else model
        return model
    except ModelError as exc:
        msg = str(exc)
        raise ModelError(msg if msg.startswith(source) else f"{source}: {msg}") from exc


def _placement(origin) -> Transform:
    """The joint predecessor frame: yourdfpy composes ``<origin>`` as ``T = [Rz Ry Rx, xyz]``."""
    if origin is None:
        return Transform.identity()
    return Transform.from_homogeneous(origin)


def _joint(joint, source: str) -> J.Joint:
    t, where = joint.type, f"{source}: joint {joint.name!r}"
    lower, upper = -np.inf, np.inf
    if t in ("revolute", "prismatic") and joint.limit is not None:
        lower = -np.inf if joint.limit.lower is None else joint.limit.lower
        upper = np.inf if joint.limit.upper is None else joint.limit.upper
        if lower > upper:
            raise ModelError(f"{where}: <limit> lower {lower} > upper {upper}")
    axis = np.asarray(joint.axis, dtype=float)
    if t in ("revolute", "continuous", "prismatic", "planar") and not np.linalg.norm(axis) > 1e-12:
        raise ModelError(f"{where}: <axis xyz> must be a non-zero vector, got {axis.tolist()}")
    if t == "revolute":
        return J.Revolute(axis, lower, upper)
    if t == "continuous":
        return J.Revolute(axis)
    if t == "prismatic":
        return J.Prismatic(axis, lower, upper)
    if t == "fixed":
        return J.Fixed()
    if t == "floating":
        return J.Free()
    if t == "planar":
        return J.Planar(normal=axis)
    raise ModelError(f"{where}: unsupported joint type {t!r} (supported: {', '.join(JOINT_TYPES)})")


def _inertia(link, source: str, defects: list) -> Inertia:
    """The link's ``<inertial>`` as an :class:`Inertia` about the link origin, in link axes, repaired by
    the module docstring's rules; each repair appends ``"link 'name': what"`` to ``defects``."""
    inertial = link.inertial
    if inertial is None:
        return Inertia.zero()
    where = f"{source}: link {link.name!r}"
    if inertial.mass is None or inertial.inertia is None:
        raise ModelError(f"{where}: <inertial> needs both <mass> and <inertia>")
    mass = float(inertial.mass)
    if mass < 0.0:
        defects.append(f"link {link.name!r}: negative mass {mass} (inertial dropped)")
        return Inertia.zero()
    T = np.eye(4) if inertial.origin is None else np.asarray(inertial.origin, dtype=float)
    R, com = T[:3, :3], T[:3, 3]
    Ic, what = physical_moments(np.asarray(inertial.inertia, dtype=float))
    if what:
        defects.append(f"link {link.name!r}: {what}")
    try:
        return Inertia(mass, com, R @ Ic @ R.T)
    except ValueError as exc:
        raise ModelError(f"{where}: invalid <inertial>: {exc}") from None


def physical_moments(Ic: np.ndarray) -> tuple[np.ndarray, str]:
    """``(Ic, "")`` when the rotational inertia ``Ic`` (3x3, about the centre of mass) is physical, else the
    repaired tensor and a description of the defects and repairs (rules of the module docstring)."""
    Ic = 0.5 * (Ic + Ic.T)
    d, V = np.linalg.eigh(Ic)
    what = []
    if d.min() < -NEGATIVE_MOMENT_TOL * max(1.0, np.abs(d).max()):
        what.append(f"Ic not positive semi-definite (principal moments {_fmt(d)}; negative ones set to 0)")
    d = np.maximum(d, 0.0)
    if d[0] + d[1] < d[2] * (1.0 - TRIANGLE_TOL):
        what.append(f"principal moments {_fmt(d)} violate the triangle inequality (set to their mean)")
        d = np.full(3, d.mean())
    if not what:
        return Ic, ""
    Ic = (V * d) @ V.T
    return 0.5 * (Ic + Ic.T), "; ".join(what)


def _fmt(d) -> str:
    return "[" + ", ".join(f"{x:.3g}" for x in d) + "]"


# -------------------------------------------------------------------------------------------- validation
def _check_tree(robot, source: str, mimic: str | None) -> str:
    """Check names, joint types, mimics and the tree structure; return the root link's name."""
    link_names = [link.name for link in robot.links]
    _no_duplicates(link_names, "link", source)
    _no_duplicates([j.name for j in robot.joints], "joint", source)
    if not link_names:
        raise ModelError(f"{source}: the URDF has no <link>")
    known = set(link_names)
    parent_joint: dict[str, str] = {}
    children: dict[str, list[str]] = {}
    for j in robot.joints:
        where = f"{source}: joint {j.name!r}"
        if j.type not in JOINT_TYPES:
            raise ModelError(f"{where}: unsupported joint type {j.type!r} (supported: {', '.join(JOINT_TYPES)})")
        if j.mimic is not None and j.type != "fixed":
            if mimic == "error":
                raise ModelError(f"{where} mimics joint {j.mimic.joint!r}: mimic joints are not enforced "
                                 "(pass mimic='independent' to load it as an independent joint)")
            if mimic is None:
                warnings.warn(f"{where} mimics joint {j.mimic.joint!r}: loaded as an independent joint "
                              "(the coupling is not enforced)", UserWarning, stacklevel=5)
        for role, link in (("parent", j.parent), ("child", j.child)):
            if link not in known:
                raise ModelError(f"{where}: {role} link {link!r} is not a <link> of the URDF")
        if j.child in parent_joint:
            raise ModelError(f"{where}: link {j.child!r} is already the child of joint "
                             f"{parent_joint[j.child]!r}; a URDF must be a tree")
        if j.child == j.parent:
            raise ModelError(f"{where}: parent and child are the same link {j.child!r}")
        parent_joint[j.child] = j.name
        children.setdefault(j.parent, []).append(j.child)
    roots = [n for n in link_names if n not in parent_joint]
    if len(roots) > 1:
        raise ModelError(f"{source}: several root links {roots}: the links must form one tree")
    reached, stack = set(), list(roots)
    while stack:
        n = stack.pop()
        reached.add(n)
        stack.extend(children.get(n, []))
    lost = [n for n in link_names if n not in reached]
    if lost:
        raise ModelError(f"{source}: links {lost} form a cycle (not connected to a root link)")
    return roots[0]


def _no_duplicates(names: list, what: str, source: str) -> None:
    seen = set()
    for n in names:
        if n in seen:
            raise ModelError(f"{source}: duplicate {what} name {n!r}")
        seen.add(n)


def _check_xml(data: bytes, source: str) -> None:
    """Well-formedness, required elements and finite numbers, checked on the raw XML so that errors
    name the element (yourdfpy fails with bare ``AttributeError``/``KeyError`` on missing elements and
    fills missing inertia entries with defaults)."""
    from lxml import etree

    try:
        root = etree.fromstring(data, parser=etree.XMLParser(remove_blank_text=True))
    except etree.XMLSyntaxError as exc:
        raise ModelError(f"{source}: not well-formed XML: {exc}") from None
    if root.tag != "robot":
        raise ModelError(f"{source}: the root element is <{root.tag}>, expected <robot>")
    if not root.get("name"):
        raise ModelError(f"{source}: <robot> needs a name attribute")
    for kind in ("link", "joint"):
        for k, el in enumerate(root.findall(kind)):
            nm = el.get("name")
            if not nm:
                raise ModelError(f"{source}: <{kind}> number {k + 1} (line {el.sourceline}) has no name attribute")
            where = f"{source}: {kind} {nm!r}"
            if kind == "joint":
                if el.get("type") is None:
                    raise ModelError(f"{where}: missing type attribute")
                for role in ("parent", "child"):
                    sub = el.find(role)
                    if sub is None or not sub.get("link"):
                        raise ModelError(f"{where}: missing <{role} link=...>")
            else:
                inertial = el.find("inertial")
                if inertial is not None:
                    if inertial.find("mass") is None or inertial.find("mass").get("value") is None:
                        raise ModelError(f"{where}: <inertial> needs <mass value=...>")
                    inertia = inertial.find("inertia")
                    missing = [a for a in _NUMERIC["inertia"] if inertia is None or inertia.get(a) is None]
                    if missing:
                        raise ModelError(f"{where}: <inertial> needs <inertia> with {', '.join(missing)}")
            for sub in el.iter(*_NUMERIC):
                if kind == "link" and sub.getparent().tag != "inertial":
                    continue  # visual/collision geometry is not used
                for attr, count in _NUMERIC[sub.tag].items():
                    text = sub.get(attr)
                    if text is not None and not _finite_numbers(text, count):
                        raise ModelError(f"{where}: <{sub.tag} {attr}={text!r}> must be {count} finite "
                                         f"number{'s' if count > 1 else ''}")


def _finite_numbers(text: str, count: int) -> bool:
    parts = text.split()
    if len(parts) != count:
        return False
    try:
        return all(math.isfinite(float(p)) for p in parts)
    except ValueError:
        return False
