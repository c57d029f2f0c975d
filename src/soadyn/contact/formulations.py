"""The contact LCP formulations of Jain 2014, dense and exactly as the paper writes them.

One time step ``dt`` of a model at the state ``(q, qd)`` with applied joint forces ``tau`` and a contact
set (bodies A and B per contact, world contact points, unit normals from B to A, friction coefficients)
becomes one (mixed) LCP ``w = M z + q``, ``w[:nfree] = 0``, ``z[nfree:] >= 0 _|_ w[nfree:] >= 0``:

- ``"nmc"``  (Jain 2014, Eq. 27): the fully augmented (FA) model (every body free, every hinge a loop);
  ``z = [V+; p_b; beta_; sigma]``, size ``6n + n_b + n_u (n_f + 2)``, ``n_b`` the hinge and loop rows.
- ``"mc"``   (Eq. 36): minimal coordinates with the CRBA mass matrix and the loop rows ``G_b``;
  ``z = [qd+; p_b; beta_; sigma]``, size ``N + n_b + n_u (n_f + 2)``.
- ``"rmc"``  (Eq. 41): the standard LCP with ``Y`` and ``X`` of Eq. 39 (dense ``M^-1``);
  ``z = [beta_; sigma]``, size ``n_u (n_f + 2)``; ``qd+ = Y p_u + X`` (Eq. 38).
- ``"os"``   (Eq. 53): mixed only in the loop rows, with the operational space compliance ``Lambda_`` of
  the contact and loop nodes from the O(N + n_c^2) recursion of :mod:`soadyn.osim` (never ``M^-1``);
  ``z = [p_b; beta_; sigma]``, size ``n_b + n_u (n_f + 2)``; ``qd+`` by Eqs. 31-32 (one ABA pass).
- ``"nmc_os"`` (Sec. 8): the OS form on the FA model, ``n_b`` = the hinge (and loop) rows.

Nodes of the OS forms: two per contact, one on body A and one on body B at the contact point with three
world-aligned linear rows (``Q_u = [I, -I]``: ``v_u`` is the velocity of A's node relative to B's), and two
per loop at frame A's pose with six rows in A's axes (``Q_b = [-Q, Q]``, as :mod:`soadyn.loops`); nodes
on the world are dropped.

Velocity-product terms. Eqs. 27, 36 and 41 use the contact velocity ``v_u+ = G_u(x) qd+`` at the step's
configuration, while Eq. 46 discretizes ``dv_u/dt = G_u qdd + Gdot_u qd`` and so adds ``Gdot_u qd dt`` to
``q``; ``contact_bias=False`` drops that term from the OS forms, which then are the MC/NMC problems
reorganized. The FA and the tree discretizations differ by ``O(dt |qd|^2)`` (Coriolis terms and the
hinge rows' ``Gdot_b``): at ``qd = 0`` all five give the same impulses and ``qd+``.
"""

from __future__ import annotations

import weakref
from dataclasses import dataclass, field

import numpy as np

from .. import loops as _loops
from .._kernels import osim as _ko
from ..augmented import fa_forces, fa_state, fully_augmented
from ..dynamics import aba, as_array, check_status, crba, fk, frame_bias_acceleration, frame_jacobian, minv, rnea
from ..model import Model
from ..osim import pack_nodes
from ..spatial import Transform
from .pyramid import Pyramid, check_n_f, pyramid

__all__ = ["FORMULATIONS", "ContactSet", "contact_set", "ContactLCP", "ContactStep", "build", "solve",
           "lcp_sizes", "fa_rows"]

FORMULATIONS = ("nmc", "mc", "rmc", "os", "nmc_os")


# ------------------------------------------------------------------------------------------ contact sets
@dataclass(frozen=True, eq=False)
class ContactSet:
    """Contacts ``i = 0 .. n_u - 1``: ``bodies[i] = (A, B)`` (-1 = world), world ``points``, unit
    ``normals`` from B to A, friction coefficients ``mu``."""

    bodies: np.ndarray  # (n_u, 2) int64
    points: np.ndarray  # (n_u, 3)
    normals: np.ndarray  # (n_u, 3)
    mu: np.ndarray  # (n_u,)

    @property
    def count(self) -> int:
        return self.bodies.shape[0]


def contact_set(model: Model, bodies, points, normals, mu) -> ContactSet:
    """A validated :class:`ContactSet`; bodies by index or name ("world" or -1 for the world)."""
    rows = list(bodies)
    ids = np.empty((len(rows), 2), dtype=np.int64)
    for i, pair in enumerate(rows):
        if len(pair) != 2:
            raise ValueError(f"bodies: row {i} must name two bodies (A, B), got {pair!r}")
        for s, b in enumerate(pair):
            ids[i, s] = -1 if (isinstance(b, str) and b == "world") or (not isinstance(b, str) and b == -1) \
                else model.body_id(b)
        if ids[i, 0] == ids[i, 1]:
            raise ValueError(f"bodies: contact {i} joins body {ids[i, 0]} with itself")
    n = ids.shape[0]
    pts = as_array(np.reshape(points, (-1, 3)) if n else np.zeros((0, 3)), (n, 3), "points")
    nrm = as_array(np.reshape(normals, (-1, 3)) if n else np.zeros((0, 3)), (n, 3), "normals")
    m = np.full(n, float(mu)) if np.ndim(mu) == 0 else as_array(mu, (n,), "mu")
    if not np.all(np.isfinite(pts)):
        raise ValueError("points: contain NaN or inf")
    pyramid(nrm, m)  # validates normals and mu
    return ContactSet(ids, pts.copy(), nrm.copy(), np.array(m, dtype=float))


def _contacts(model: Model, contacts) -> ContactSet:
    """A :class:`ContactSet` from one, from the :class:`~soadyn.contact.geometry.Contacts` of
    :func:`soadyn.contact.collide`, or from any object with ``bodies, points, normals, mu`` (and an optional
    ``count`` of valid rows)."""
    from .geometry import Contacts

    if isinstance(contacts, ContactSet):
        return contacts
    if isinstance(contacts, Contacts):
        return contact_set(model, contacts.body, contacts.point, contacts.normal, contacts.mu)
    try:
        k = int(getattr(contacts, "count", len(contacts.bodies)))
        return contact_set(model, np.asarray(contacts.bodies)[:k], np.asarray(contacts.points)[:k],
                           np.asarray(contacts.normals)[:k], np.asarray(contacts.mu)[:k])
    except AttributeError:
        raise ValueError("contacts: expected a ContactSet or an object with bodies, points, normals and mu") from None


# ------------------------------------------------------------------------------------------- results
@dataclass(frozen=True, eq=False)
class ContactLCP:
    """One formulation's LCP ``w = M z + q`` with ``w[:nfree] = 0`` (Jain 2014 Eq. 9). ``blocks`` names the
    row/column slices of ``z`` (``"v"`` (velocities), ``"p_b"``, ``"beta"`` (``beta_``), ``"sigma"``);
    ``parts`` holds the matrices it was assembled from (``G_u``, ``G_b``, ``Lambda``, ``Q_u``, ``Q_b``, ...)."""

    formulation: str
    M: np.ndarray
    q: np.ndarray
    nfree: int
    size: int
    blocks: dict
    pyramid: Pyramid
    n_b: int
    parts: dict = field(repr=False)


@dataclass(frozen=True, eq=False)
class ContactStep:
    """The solved step: per contact the normal impulse ``normal`` (n_u,) and friction ``beta`` (n_u, n_f),
    the world impulse ``F = D_ beta_`` (n_u, 3) on A (its opposite on B), the sliding speeds ``sigma``
    (n_u,), the bilateral impulses ``p_b``, the tree's post-step velocity ``qd_plus`` (nv,), the FA
    velocities ``v_plus`` (NMC forms, else None), the solver result ``result`` and the ``lcp``."""

    formulation: str
    normal: np.ndarray
    beta: np.ndarray
    F: np.ndarray
    sigma: np.ndarray
    p_b: np.ndarray
    qd_plus: np.ndarray
    v_plus: np.ndarray | None
    result: object
    lcp: ContactLCP


# -------------------------------------------------------------------------------------------- helpers
_CACHE: "weakref.WeakKeyDictionary[Model, dict]" = weakref.WeakKeyDictionary()


def _work(model: Model) -> dict:
    """Per-model workspaces: the tree's Data, and the FA model and its Data on first use."""
    w = _CACHE.get(model)
    if w is None:
        w = _CACHE[model] = {"data": model.data()}
    return w


def _fa(model: Model) -> tuple:
    w = _work(model)
    if "fa" not in w:
        w["fa"] = fully_augmented(model)
        w["fa_data"] = w["fa"].data()
    return w["fa"], w["fa_data"]


def fa_rows(model: Model) -> int:
    """``n_b`` of the FA model: ``sum (6 - nv_i)`` over the non-free joints plus the loop rows."""
    from ..joints import FREE

    return int(sum(6 - int(model.jnt_nv[i]) for i in range(model.nb) if model.jnt_type[i] != FREE)) + int(model.nc)


def _point_rows(model: Model, data, q, qd, cs: ContactSet, bias: bool):
    """``G_u`` (3 n_u, nv): rows ``J_A(p) - J_B(p)``, the world linear velocity of the material point at
    the contact point of body A relative to that of body B (Jain 2014 Eqs. 22, 34), and ``Gdot_u qd``
    (3 n_u,) (zeros unless ``bias``)."""
    nu = cs.count
    G = np.zeros((3 * nu, model.nv))
    g = np.zeros(3 * nu)
    jac, acc = {}, {}
    for i in range(nu):
        for s, sign in ((0, 1.0), (1, -1.0)):
            b = int(cs.bodies[i, s])
            if b < 0:
                continue
            if b not in jac:
                f = model.frame_id(model.body_names[b])
                Jw = frame_jacobian(model, data, q, f, "world_aligned").copy()
                jac[b] = (Jw, data.frame_p.copy())
                if bias:
                    hb = frame_bias_acceleration(model, data, q, qd, f, "world_aligned")
                    R = data.frame_R
                    acc[b] = (hb, R @ data.frame_v[:3])
            Jw, o = jac[b]
            r = cs.points[i] - o
            G[3 * i:3 * i + 3] += sign * (Jw[3:] - np.cross(r, Jw[:3].T).T)
            if bias:
                hb, w = acc[b]
                g[3 * i:3 * i + 3] += sign * (hb[3:] + np.cross(hb[:3], r) + np.cross(w, np.cross(w, r)))
    return G, g


def _loop_rows(model: Model, data, q, qd):
    """``G_b`` (n_b, nv) and ``Ubar = -Gdot_b qd`` (n_b,) of the model's loops (Jain 2014 Eqs. 17, 29)."""
    if model.nl == 0:
        return np.zeros((0, model.nv)), np.zeros(0)
    _, _, gdot, G = _loops.constraint_state(model, data, q, qd)
    return G.copy(), -gdot.copy()


def _bias_forces(model: Model, data, q, qd, tau, f_ext) -> np.ndarray:
    """``T - C`` (Jain 2014 Eq. 28; Eq. 18's ``C`` on the FA model): ``tau - rnea(q, qd, 0, f_ext)``."""
    return tau - rnea(model, data, q, qd, np.zeros(model.nv), f_ext)


def _state(model: Model, q, qd, tau):
    q = as_array(q, (model.nq,), "q")
    qd = as_array(qd, (model.nv,), "qd")
    tau = as_array(tau, (model.nv,), "tau")
    for name, x in (("q", q), ("qd", qd), ("tau", tau)):
        if not np.all(np.isfinite(x)):
            raise ValueError(f"{name}: contains NaN or inf")
    return q, qd, tau


def _system(formulation: str, model: Model, q, qd, tau):
    """(model, data, q, qd, tau, f_ext) of the system the formulation works on: the tree itself, or its
    FA model at the FA image of the state with the joint forces as equal and opposite body forces."""
    if formulation in ("nmc", "nmc_os"):
        fa, fdata = _fa(model)
        q_fa, qd_fa = fa_state(model, fa, q, qd)
        return fa, fdata, q_fa, qd_fa, np.zeros(fa.nv), fa_forces(model, q, tau)
    return model, _work(model)["data"], q, qd, tau, None


# ------------------------------------------------------------------------------------------- assembly
def _mixed(model, data, q, qd, tau, f_ext, cs, pyr, dt):
    """Eq. 27 (on the FA model) and Eq. 36 (minimal coordinates): ``z = [v+; p_b; beta_; sigma]``."""
    M = crba(model, data, q).copy()
    Gu, _ = _point_rows(model, data, q, qd, cs, False)
    Gb, Ubar = _loop_rows(model, data, q, qd)
    TC = _bias_forces(model, data, q, qd, tau, f_ext)
    N, nb, nu, w = model.nv, Gb.shape[0], cs.count, pyr.n_f + 1
    n = N + nb + nu * (w + 1)
    A = np.zeros((n, n))
    sv, sb, sbeta, ss = slice(0, N), slice(N, N + nb), slice(N + nb, N + nb + nu * w), slice(N + nb + nu * w, n)
    GuD = Gu.T @ pyr.D
    A[sv, sv] = M
    A[sv, sb] = -Gb.T
    A[sv, sbeta] = -GuD
    A[sb, sv] = Gb
    A[sbeta, sv] = GuD.T
    A[sbeta, ss] = pyr.E_hat
    A[ss, sbeta] = pyr.E_bar
    b = np.zeros(n)
    b[sv] = -M @ qd - TC * dt
    b[sb] = -Gb @ qd - Ubar * dt
    return A, b, N + nb, {"v": sv, "p_b": sb, "beta": sbeta, "sigma": ss}, nb, \
        {"M": M, "G_u": Gu, "G_b": Gb, "Ubar": Ubar, "T_minus_C": TC}


def _rmc(model, data, q, qd, tau, cs, pyr, dt):
    """Eq. 41 with ``Y``, ``X`` of Eq. 39: ``z = [beta_; sigma]``."""
    Minv = minv(model, data, q).copy()
    Gu, _ = _point_rows(model, data, q, qd, cs, False)
    Gb, Ubar = _loop_rows(model, data, q, qd)
    TC = _bias_forces(model, data, q, qd, tau, None)
    nb = Gb.shape[0]
    if nb:
        A_b = Gb @ Minv @ Gb.T
        K = Minv @ Gb.T @ np.linalg.inv(A_b)
        Y = Minv - K @ Gb @ Minv
        X = qd + Y @ TC * dt + K @ Ubar * dt
    else:
        A_b, Y, X = np.zeros((0, 0)), Minv, qd + Minv @ TC * dt
    DG = pyr.D.T @ Gu
    nu, w = cs.count, pyr.n_f + 1
    n = nu * (w + 1)
    A = np.zeros((n, n))
    sbeta, ss = slice(0, nu * w), slice(nu * w, n)
    A[sbeta, sbeta] = DG @ Y @ DG.T
    A[sbeta, ss] = pyr.E_hat
    A[ss, sbeta] = pyr.E_bar
    b = np.zeros(n)
    b[sbeta] = DG @ X
    return A, b, 0, {"beta": sbeta, "sigma": ss}, nb, \
        {"Minv": Minv, "Y": Y, "X": X, "G_u": Gu, "G_b": Gb, "Ubar": Ubar, "T_minus_C": TC, "A_b": A_b}


def _os_nodes(model, data, cs: ContactSet):
    """Node arrays for :func:`soadyn._kernels.osim.osim_inv` and the maps ``Q_u`` (3 n_u, m), ``Q_b``
    (n_b, m) (Jain 2014 Eq. 48). Contact nodes: world-aligned, linear rows; loop nodes: frame A's axes,
    six rows (the loops' rows ``Q`` from :func:`soadyn.loops.constraint_state`, already evaluated)."""
    oR, op = data.oR, data.op
    body, E, r, sel, dim, owner = [], [], [], [], [], []
    lin = np.zeros((6, 6))
    lin[:3, 3:] = np.eye(3)
    for i in range(cs.count):
        for s, sign in ((0, 1.0), (1, -1.0)):
            b = int(cs.bodies[i, s])
            if b >= 0:
                body.append(b)
                E.append(oR[b])  # body -> world axes
                r.append(oR[b].T @ (cs.points[i] - op[b]))
                sel.append(lin)
                dim.append(3)
                owner.append(("u", i, sign))
    nl = model.nl
    if nl:
        RA, pA, Qrow = data.loop_R, data.loop_p, data.loop_Q
        for l in range(nl):
            for f, sign in ((model.loop_frame_a[l], -1.0), (model.loop_frame_b[l], 1.0)):
                b = int(model.frame_body[f])
                if b >= 0:
                    body.append(b)
                    E.append(RA[l].T @ oR[b])  # body -> frame A's axes
                    r.append(oR[b].T @ (pA[l] - op[b]))
                    sel.append(np.eye(6))
                    dim.append(6)
                    owner.append(("b", l, sign))
    dim = np.array(dim, dtype=np.int64)
    row = np.concatenate([[0], np.cumsum(dim)]).astype(np.int64)
    m = int(row[-1])
    Qu = np.zeros((3 * cs.count, m))
    Qb = np.zeros((int(model.nc), m))
    for a, (kind, i, sign) in enumerate(owner):
        if kind == "u":
            Qu[3 * i:3 * i + 3, row[a]:row[a + 1]] = sign * np.eye(3)
        else:
            d = int(model.loop_dim[i])
            Qb[model.loop_row[i]:model.loop_row[i] + d, row[a]:row[a + 1]] = sign * Qrow[i, :d]
    arrays = (np.array(body, dtype=np.int64), np.array(E).reshape(-1, 3, 3), np.array(r).reshape(-1, 3),
              np.array(sel).reshape(-1, 6, 6), dim, row)
    return arrays, Qu, Qb


def node_compliance(model: Model, data, q, node_body, node_E, node_r, node_sel, node_dim, node_row) -> np.ndarray:
    """``Lambda_ = J M^-1 J^T`` (m, m) of arbitrary nodes (body, body -> node transform, selection) by the
    O(N + n_c^2) Upsilon/Omega recursion (Jain 2014 Eqs. 64-69, :func:`soadyn._kernels.osim.osim_inv`)."""
    m = int(node_row[-1])
    L = np.empty((m, m))
    if m == 0:
        return L
    st = _ko.osim_inv(model.model_int, model.model_float, data.data_int, data.data_float, data.q,
                      *pack_nodes(node_body, node_E, node_r, node_sel, node_dim, node_row), L)
    check_status(st, model, data.q)
    return L


def _os(model, data, q, qd, tau, f_ext, cs, pyr, dt, contact_bias):
    """Eq. 53 (``"os"``; ``"nmc_os"`` on the FA model): ``z = [p_b; beta_; sigma]``."""
    Gb, Ubar = _loop_rows(model, data, q, qd)  # also fills data.loop_R/loop_p/loop_Q for the loop nodes
    fk(model, data, q, qd)
    nodes, Qu, Qb = _os_nodes(model, data, cs)
    Lam = node_compliance(model, data, q, *nodes)
    Gu, gdot_u = _point_rows(model, data, q, qd, cs, contact_bias)
    qdd_f = aba(model, data, q, qd, tau, f_ext).copy()  # Eq. 42
    delta_b = Gb @ qdd_f - Ubar  # Eq. 42
    delta_u = Gu @ qdd_f + gdot_u  # Eq. 45
    v_u = Gu @ qd
    nb, nu, w = Gb.shape[0], cs.count, pyr.n_f + 1
    n = nb + nu * (w + 1)
    L = np.vstack([Qb, pyr.D.T @ Qu])  # [Q_b; D_* Q_u]
    A = np.zeros((n, n))
    sb, sbeta, ss = slice(0, nb), slice(nb, nb + nu * w), slice(nb + nu * w, n)
    A[:nb + nu * w, :nb + nu * w] = L @ Lam @ L.T  # Eq. 52
    A[sbeta, ss] = pyr.E_hat
    A[ss, sbeta] = pyr.E_bar
    b = np.zeros(n)
    b[sb] = delta_b * dt
    b[sbeta] = pyr.D.T @ (v_u + delta_u * dt)
    return A, b, nb, {"p_b": sb, "beta": sbeta, "sigma": ss}, nb, \
        {"Lambda": Lam, "Q_u": Qu, "Q_b": Qb, "G_u": Gu, "G_b": Gb, "Ubar": Ubar, "qdd_f": qdd_f,
         "Gdot_u_qd": gdot_u, "nodes": nodes}


def build(formulation: str, model: Model, q, qd, tau, contacts, dt: float, n_f: int = 4,
          contact_bias: bool = True) -> ContactLCP:
    """The LCP of ``formulation`` (one of :data:`FORMULATIONS`) for one step ``dt`` from ``(q, qd)`` with
    joint forces ``tau`` and the ``contacts`` (a :class:`ContactSet` or a ``collide`` result).
    ``contact_bias`` keeps Eq. 45's ``Gdot_u qd`` in the OS forms (see the module docstring)."""
    if formulation not in FORMULATIONS:
        raise ValueError(f"formulation: expected one of {FORMULATIONS}, got {formulation!r}")
    if not isinstance(model, Model):
        raise ValueError(f"model: expected a soadyn Model, got {type(model).__name__}")
    dt = float(dt)
    if not (np.isfinite(dt) and dt > 0):
        raise ValueError(f"dt: expected a finite step > 0, got {dt!r}")
    n_f = check_n_f(n_f)
    q, qd, tau = _state(model, q, qd, tau)
    cs = _contacts(model, contacts)
    if np.any(cs.bodies >= model.nb):
        raise ValueError(f"contacts: body index out of range for {model.nb} bodies")
    pyr = pyramid(cs.normals, cs.mu, n_f)
    sm, sdata, sq, sqd, stau, fext = _system(formulation, model, q, qd, tau)
    if formulation in ("nmc", "mc"):
        A, b, nfree, blocks, nb, parts = _mixed(sm, sdata, sq, sqd, stau, fext, cs, pyr, dt)
    elif formulation == "rmc":
        A, b, nfree, blocks, nb, parts = _rmc(sm, sdata, sq, sqd, stau, cs, pyr, dt)
    else:
        A, b, nfree, blocks, nb, parts = _os(sm, sdata, sq, sqd, stau, fext, cs, pyr, dt,
                                             bool(contact_bias))
    parts.update(model=sm, data=sdata, q=sq, qd=sqd, tau=stau, f_ext=fext, dt=dt, tree=(model, q, qd))
    return ContactLCP(formulation, A, b, int(nfree), int(b.shape[0]), blocks, pyr, int(nb), parts)


# ------------------------------------------------------------------------------------------- solution
def _tree_velocity(model: Model, data, q, V: np.ndarray) -> np.ndarray:
    """The tree's ``qd`` whose body velocities are the FA velocities ``V`` (nb, 6), joint by joint:
    ``qd_i = S_i^+ (V_i - ^iX_p V_p)`` (exact where ``V`` satisfies the hinge constraints)."""
    fk(model, data, q)
    qd = np.empty(model.nv)
    for i in range(model.nb):
        k, n, p = model.jnt_vadr[i], model.jnt_nv[i], model.body_parent[i]
        rel = V[i] - (Transform(data.X_E[i], data.X_r[i]).apply_motion(V[p]) if p >= 0 else 0.0)
        if n:
            qd[k:k + n] = np.linalg.lstsq(data.S[k:k + n].T, rel, rcond=None)[0]
    return qd


def recover(lcp: ContactLCP, z: np.ndarray):
    """``(p_b, qd_plus, v_plus)`` from a solution ``z`` of ``lcp``: the LCP's own velocities (NMC, MC),
    Eq. 38 (RMC) or Eqs. 31-32 (OS forms, one ABA pass with the impulses as average forces)."""
    P = lcp.parts
    f, blocks = lcp.formulation, lcp.blocks
    beta_ = z[blocks["beta"]]
    p_u = P["G_u"].T @ (lcp.pyramid.D @ beta_)  # Eq. 35
    model, q, qd = P["tree"]
    if f in ("nmc", "mc"):
        v, p_b = z[blocks["v"]].copy(), z[blocks["p_b"]].copy()
    elif f == "rmc":
        v = P["Y"] @ p_u + P["X"]  # Eq. 38
        if lcp.n_b:  # Eq. 37b, times dt
            dt = P["dt"]
            p_b = np.linalg.solve(P["A_b"], -P["G_b"] @ P["Minv"] @ (P["T_minus_C"] * dt + p_u) + P["Ubar"] * dt)
        else:
            p_b = np.zeros(0)
    else:
        p_b = z[blocks["p_b"]].copy()
        dt = P["dt"]
        gen = P["tau"] + (P["G_b"].T @ p_b + p_u) / dt  # Eq. 31
        v = P["qd"] + aba(P["model"], P["data"], P["q"], P["qd"], gen, P["f_ext"]) * dt  # Eq. 32
    if f in ("nmc", "nmc_os"):
        return p_b, _tree_velocity(model, _work(model)["data"], q, v.reshape(-1, 6)), v
    return p_b, v, None


def solve(formulation: str, model: Model, q, qd, tau, contacts, dt: float, n_f: int = 4,
          contact_bias: bool = True, solver=None) -> ContactStep:
    """Build (:func:`build`) and solve one formulation's LCP (``soadyn.lcp.solve_mlcp`` unless ``solver``
    (a callable ``(M, q, nfree) -> result with .z``) is given) and recover the step."""
    lcp = build(formulation, model, q, qd, tau, contacts, dt, n_f, contact_bias)
    if solver is None:
        from ..lcp import solve_mlcp as solver
    res = solver(lcp.M, lcp.q, lcp.nfree)
    z = np.asarray(res.z, dtype=float)
    p_b, qd_plus, v_plus = recover(lcp, z)
    nu, w = lcp.pyramid.n_u, lcp.pyramid.n_f + 1
    beta_ = z[lcp.blocks["beta"]].reshape(nu, w)
    F = (lcp.pyramid.D @ z[lcp.blocks["beta"]]).reshape(nu, 3)
    return ContactStep(formulation, beta_[:, 0].copy(), beta_[:, 1:].copy(), F, z[lcp.blocks["sigma"]].copy(),
                       p_b, qd_plus, v_plus, res, lcp)


def lcp_sizes(model: Model, n_u: int, n_f: int = 4) -> dict:
    """The LCP sizes of Jain 2014 (Eqs. 27, 36, 41, 53, Sec. 8; Tables 1, 2) for ``n_u`` contacts:
    NMC ``6n + n_b,FA + n_u (n_f + 2)``, MC ``N + n_b + ..``, RMC ``n_u (n_f + 2)``, OS ``n_b + ..``,
    NMC/OS ``n_b,FA + ..`` (``n_b,FA`` = :func:`fa_rows`, ``n_b`` = the loop rows)."""
    n_f = check_n_f(n_f)
    if isinstance(n_u, bool) or not isinstance(n_u, (int, np.integer)) or n_u < 0:
        raise ValueError(f"n_u: expected an integer >= 0, got {n_u!r}")
    c = int(n_u) * (n_f + 2)
    nbf = fa_rows(model)
    return {"nmc": 6 * model.nb + nbf + c, "mc": model.nv + model.nc + c, "rmc": c, "os": model.nc + c,
            "nmc_os": nbf + c}
