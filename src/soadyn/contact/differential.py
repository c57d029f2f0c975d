"""Contact geometry and its configuration derivatives, for the derivatives of a contact step
(:mod:`soadyn.step_derivatives`).

Collision detection runs as the simulator's step runs it (the geoms' margins widened by the settings'),
then each contact is rebuilt from one of two exact local models and checked against what the detection
reported (point, normal, gap to :data:`GEOMETRY_TOL`):

- **point on a face**: a point ``x`` fixed in one body (a sphere or capsule-end centre with its radius
  ``r``, a box corner, a mesh vertex or cylinder rim point with ``r = 0``) against a plane fixed in the
  other body (a plane or halfspace geom, or the face of a box that a sphere touches): the normal ``n``
  turns with the plane's body (it is constant for a world plane), ``gap = n . (x - o) - r``;
- **two balls**: the centres ``x_a``, ``x_b`` fixed in their bodies (two spheres, or a sphere against a
  box corner, ``r_b = 0``): ``n = (x_a - x_b) / |x_a - x_b|``, ``gap = |x_a - x_b| - r_a - r_b``.

The contact point is the midpoint of the two witness points. Other pairs (a sphere against a box edge,
capsule-capsule, box-box, pairs found by GJK/EPA) raise ``ValueError``: their witness points slide along
edges or come from an iterative search. The derivatives are those of these formulas, so they hold while
each contact keeps its feature (the same corner, face or edge region).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .._kernels import collision as _kc
from ..dynamics import copy_in
from ..kinematic_hessian import KinematicHessian
from ..model import Model
from .geometry import GEOM_BOX, GEOM_CAPSULE, GEOM_HALFSPACE, GEOM_KINDS, GEOM_PLANE, GEOM_SPHERE
from .settings import ContactSettings

__all__ = ["GEOMETRY_TOL", "ContactGeometry", "step_contacts"]

GEOMETRY_TOL = 1e-9
"""Largest difference (m) between a contact's rebuilt point or gap (and its normal) and the detection's."""

_KIND = {v: k for k, v in GEOM_KINDS.items()}
_FLAT = (GEOM_PLANE, GEOM_HALFSPACE)


@dataclass
class ContactGeometry:
    """One contact: bodies ``A``, ``B`` (-1 world), world ``point``, unit ``normal`` from B to A, ``gap``,
    friction ``mu``, restitution ``eps``, and the configuration derivatives (tangent space) ``dpoint``
    (3, nv), ``dnormal`` (3, nv), ``dgap`` (nv,)."""

    A: int
    B: int
    point: np.ndarray
    normal: np.ndarray
    gap: float
    mu: float
    eps: float
    dpoint: np.ndarray
    dnormal: np.ndarray
    dgap: np.ndarray


def _tree(model: Model) -> tuple:
    return (model.body_parent, model.jnt_type, model.jnt_qadr, model.jnt_vadr, model.jnt_nv, model.jnt_axis,
            model.jnt_axis2, model.jnt_pitch, model.body_Xtree_E, model.body_Xtree_r, model.body_I, model.dof_S,
            model.dof_armature)


def _detect(model: Model, data, q, settings: ContactSettings) -> int:
    """The simulator's collision detection at ``q`` into ``data.con_*``; returns the contact count."""
    copy_in(q, data.q, "q")
    margins = settings.geom_margins(model.geom_margin)
    _kc.detect(*_tree(model), data.q, data.X_E, data.X_r, data.S, data.oR, data.op,
               model.geom_body, model.geom_E, model.geom_r, model.geom_type, model.geom_size, margins,
               model.geom_corners, model.geom_mu, model.geom_restitution, model.pair_geom, model.geom_vertadr,
               model.geom_vertnum, model.mesh_vert, data.gR, data.gp, data.con_geom, data.con_body, data.con_point,
               data.con_normal, data.con_gap, data.con_mu, data.con_eps, data.ncon)
    n = int(data.ncon[0])
    if n > data.con_gap.shape[0]:
        raise ValueError(f"collision detection found more contacts than the {model.ncon_max} the model's pairs hold")
    return n


def _face(model, data, ga, gb, point, gap):
    """The point-on-a-face model of the pair ``(ga, gb)``: ``(plane geom, point geom, x, r, n_P, o)`` or None."""
    ta, tb = model.geom_type[ga], model.geom_type[gb]
    if ta in _FLAT or tb in _FLAT:
        gP, gO = (gb, ga) if tb in _FLAT else (ga, gb)
        nP, o = data.gR[gP][:, 2].copy(), data.gp[gP].copy()
        tO = model.geom_type[gO]
        r = float(model.geom_size[gO, 0]) if tO in (GEOM_SPHERE, GEOM_CAPSULE) else 0.0
        x = data.gp[gO].copy() if tO == GEOM_SPHERE else point + (0.5 * gap + r) * nP
        return gP, gO, x, r, nP, o
    if {ta, tb} == {GEOM_SPHERE, GEOM_BOX}:
        gS, gX = (ga, gb) if ta == GEOM_SPHERE else (gb, ga)
        R, pb, h = data.gR[gX], data.gp[gX], model.geom_size[gX]
        c = data.gp[gS].copy()
        loc = R.T @ (c - pb)
        out = np.abs(loc) > h
        if out.sum() == 1:
            k = int(np.flatnonzero(out)[0])
        elif out.sum() == 0:  # centre inside: the face of least penetration, as the detection takes it
            k = int(np.argmin(h - np.abs(loc)))
        else:
            return None
        m = np.zeros(3)
        m[k] = 1.0 if loc[k] >= 0.0 else -1.0
        return gX, gS, c, float(model.geom_size[gS, 0]), R @ m, pb + R @ (m * h)
    return None


def _balls(model, data, ga, gb):
    """The two-ball model of the pair: ``(x_a, r_a, x_b, r_b)`` (centres of geoms ``ga``, ``gb``) or None."""
    ta, tb = model.geom_type[ga], model.geom_type[gb]
    if ta == GEOM_SPHERE and tb == GEOM_SPHERE:
        return data.gp[ga].copy(), float(model.geom_size[ga, 0]), data.gp[gb].copy(), float(model.geom_size[gb, 0])
    if {ta, tb} == {GEOM_SPHERE, GEOM_BOX}:
        gS, gX = (ga, gb) if ta == GEOM_SPHERE else (gb, ga)
        R, pb, h = data.gR[gX], data.gp[gX], model.geom_size[gX]
        c = data.gp[gS]
        loc = R.T @ (c - pb)
        if np.sum(np.abs(loc) > h) != 3:
            return None
        corner = pb + R @ np.clip(loc, -h, h)
        rs = float(model.geom_size[gS, 0])
        return (c.copy(), rs, corner, 0.0) if gS == ga else (corner, 0.0, c.copy(), rs)
    return None


def _mismatch(p, n, g, point, normal, gap) -> bool:
    return not (np.abs(p - point).max() <= GEOMETRY_TOL and np.abs(n - normal).max() <= GEOMETRY_TOL
                and abs(g - gap) <= GEOMETRY_TOL)


def _contact(model, data, kh: KinematicHessian, i: int) -> ContactGeometry:
    ga, gb = int(data.con_geom[i, 0]), int(data.con_geom[i, 1])
    A, B = int(model.geom_body[ga]), int(model.geom_body[gb])
    point, normal, gap = data.con_point[i].copy(), data.con_normal[i].copy(), float(data.con_gap[i])
    pair = f"{_KIND[model.geom_type[ga]]}-{_KIND[model.geom_type[gb]]}"
    face = _face(model, data, ga, gb, point, gap)
    if face is not None:
        gP, gO, x, r, nP, o = face
        P, O = int(model.geom_body[gP]), int(model.geom_body[gO])
        h = float(nP @ (x - o))
        s = 1.0 if gP == gb else -1.0
        p, n, g = x - 0.5 * (r + h) * nP, s * nP, h - r
        if _mismatch(p, n, g, point, normal, gap):
            raise ValueError(f"contact {i} ({pair}): the point-on-a-face model does not reproduce the detected contact")
        dnP = kh.direction_rate(P, nP)
        dx = kh.point_jacobian(O, x)
        dh = (x - o) @ dnP + nP @ (dx - kh.point_jacobian(P, o))
        dp = dx - 0.5 * np.outer(nP, dh) - 0.5 * (r + h) * dnP
        return ContactGeometry(A, B, point, normal, gap, float(data.con_mu[i]), float(data.con_eps[i]), dp, s * dnP, dh)
    balls = _balls(model, data, ga, gb)
    if balls is None:
        raise ValueError(f"contact {i} ({pair}): step derivatives cover a point against a face (spheres, capsules, "
                         "boxes, meshes against planes and halfspaces; a sphere against a box face) and two balls "
                         "(spheres, a sphere against a box corner); this contact is neither")
    xa, ra, xb, rb = balls
    d = xa - xb
    L = float(np.linalg.norm(d))
    n = d / L
    p, g = 0.5 * ((xa - ra * n) + (xb + rb * n)), L - ra - rb
    if _mismatch(p, n, g, point, normal, gap):
        raise ValueError(f"contact {i} ({pair}): the two-ball model does not reproduce the detected contact")
    dxa, dxb = kh.point_jacobian(A, xa), kh.point_jacobian(B, xb)
    dd = dxa - dxb
    dn = (dd - np.outer(n, n @ dd)) / L
    dp = 0.5 * (dxa + dxb) - 0.5 * (ra - rb) * dn
    return ContactGeometry(A, B, point, normal, gap, float(data.con_mu[i]), float(data.con_eps[i]), dp, dn, n @ dd)


def step_contacts(model: Model, data, q, settings: ContactSettings, kh: KinematicHessian) -> list:
    """The contacts the simulator's step finds at ``q`` (its margins), each with its derivatives
    (:class:`ContactGeometry`); ``kh``: the kinematic Hessian at ``q``."""
    k = _detect(model, data, q, settings)
    return [_contact(model, data, kh, i) for i in range(k)]
