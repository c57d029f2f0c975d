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
  literally named ``"world"`` is identified with soadyn's world.

Mimic joints are not enforced as constraints: by default a moving joint with ``<mimic>`` is loaded as an
ordinary independent joint (what Pinocchio's ``buildModelFromUrdf`` does) and a ``UserWarning`` names it;
``mimic="independent"`` does the same silently, ``mimic="error"`` rejects it. On a fixed joint, where it couples
nothing, ``<mimic>`` is ignored. Malformed
files raise :class:`~soadyn.model.ModelError` (a ``ValueError``) naming the file and the element.
"""

from __future__ import annotations

import warnings

import io
import math
from pathlib import Path

import numpy as np

from .. import joints as J
from ..model import WORLD, Model, ModelBuilder, ModelError
from ..spatial import Inertia, Transform

__all__ = ["load_urdf", "load_urdf_string", "JOINT_TYPES"]

JOINT_TYPES = ("revolute", "continuous", "prismatic", "fixed", "floating", "planar")
MIMIC_MODES = ("error", "independent")
ROOT_JOINT = "root_joint"

# numeric attributes checked before parsing: element tag -> {attribute: number count}
_NUMERIC = {
    "origin": {"xyz": 3, "rpy": 3},
    "axis": {"xyz": 3},
    "limit": {"lower": 1, "upper": 1, "effort": 1, "velocity": 1},
    "mass": {"value": 1},
    "inertia": {a: 1 for a in ("ixx", "ixy", "ixz", "iyy", "iyz", "izz")},
    "mimic": {"multiplier": 1, "offset": 1},
}


def load_urdf(path, floating_base: bool = False, name: str | None = None, *, mimic: str | None = None) -> Model:
    """Load the URDF file ``path`` into a :class:`Model` (see the module docstring for the mapping).

    ``floating_base``: attach the root link by a ``Free`` joint named ``"root_joint"`` instead of
    fixing it to the world. ``name``: model name (default: the URDF robot name). ``mimic``:
    ``"independent"`` loads ``<mimic>`` joints as independent joints, ``"error"`` rejects them; the default
    (None) loads them as independent joints with a warning naming them.
    Raises ``FileNotFoundError`` for a missing file and ``ModelError`` naming the file and element for
    malformed or unsupported content.
    """
    p = Path(path)
    if not p.is_file():
        raise FileNotFoundError(f"URDF file not found: {str(path)!r}")
    return _load(p.read_bytes(), str(p), floating_base, name, mimic)


def load_urdf_string(xml: str | bytes, floating_base: bool = False, name: str | None = None, *,
                     mimic: str | None = None, source: str = "<urdf string>") -> Model:
    """Load a URDF given as an XML string; ``source`` names it in error messages. Otherwise as
    :func:`load_urdf`."""
    data = xml.encode("utf-8") if isinstance(xml, str) else bytes(xml)
    return _load(data, source, floating_base, name, mimic)


# ----------------------------------------------------------------------------------------------- loading
def _load(data: bytes, source: str, floating_base: bool, name: str | None, mimic: str) -> Model:
    import yourdfpy

    if mimic is not None and mimic not in MIMIC_MODES:
        raise ValueError(f"mimic: expected one of {MIMIC_MODES}, got {mimic!r}")
    _check_xml(data, source)
    try:
        urdf = yourdfpy.URDF.load(io.BytesIO(data), build_scene_graph=False, load_meshes=False,
                                  build_collision_scene_graph=False, load_collision_meshes=False)
    except Exception as exc:  # _check_xml catches what we know of; report anything else with the file
        raise ModelError(f"{source}: yourdfpy cannot parse the URDF: {exc}") from exc
    robot = urdf.robot
    root = _check_tree(robot, source, mimic)

    links = {link.name: link for link in robot.links}
    builder = ModelBuilder(name or robot.name or Path(source).stem)
    try:
        if root == WORLD:
            if floating_base:
                raise ModelError(f"{source}: the root link is named 'world', it cannot be a floating base")
        else:
            builder.add_body(root, WORLD, J.Free() if floating_base else J.Fixed(),
                             inertia=_inertia(links[root], source), joint_name=ROOT_JOINT)
        for joint in robot.joints:
            builder.add_body(joint.child, joint.parent, _joint(joint, source), _placement(joint.origin),
                             inertia=_inertia(links[joint.child], source), joint_name=joint.name)
        return builder.finalize()
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


def _inertia(link, source: str) -> Inertia:
    """The link's ``<inertial>`` as an :class:`Inertia` about the link origin, in link axes."""
    inertial = link.inertial
    if inertial is None:
        return Inertia.zero()
    where = f"{source}: link {link.name!r}"
    if inertial.mass is None or inertial.inertia is None:
        raise ModelError(f"{where}: <inertial> needs both <mass> and <inertia>")
    mass = float(inertial.mass)
    if mass < 0.0:
        raise ModelError(f"{where}: negative mass {mass}")
    T = np.eye(4) if inertial.origin is None else np.asarray(inertial.origin, dtype=float)
    R, com = T[:3, :3], T[:3, 3]
    try:
        return Inertia(mass, com, R @ np.asarray(inertial.inertia, dtype=float) @ R.T)
    except ValueError as exc:
        raise ModelError(f"{where}: invalid <inertial>: {exc}") from None


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
