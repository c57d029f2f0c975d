"""Derivatives of one contact step of :class:`soadyn.Simulator`: the Jacobian of ``(q, qd, tau) -> (q+, qd+)``
for the OS contact step with the Coulomb friction pyramid (Jain 2014 Eq. 53), by implicit differentiation
of the step's LCP at its solution's active set.

The step (:mod:`soadyn._kernels.contact_sim`, without a collision phase) is rebuilt densely at ``(q, qd,
tau)``: the free velocity ``qf = qd + dt aba(q, qd, tau) (+ the free joints' frame rates)``, the contacts
(:mod:`soadyn.contact.differential`), their rows and friction frames, the Delassus matrix ``W = G M^-1
G^T``, the pyramid LCP, solved again and checked against what :meth:`Simulator.step` returned
(:data:`STATE_TOL`). Each contact is then classified from the LCP solution ``z`` and ``w = M z + q``:

- **separating** (``F_n = 0``): no rows;
- **sticking** (``F_n > 0``, ``sigma = 0``, friction strictly inside the pyramid): its three rows are
  equalities, ``v+ = -b n`` (world axes: the tangents do not matter); with the friction at its limit and no
  slip the contact is differentiated as sliding (at zero speed), the branch on which its friction stays
  feasible;
- **sliding** (``sigma > 0``): the impulse ``F_n n + sum_E beta_j d_j`` on the pyramid's boundary
  (``mu F_n = sum beta_j``, the edges ``E`` with ``beta_j > 0``), rows ``n . v+ = -b`` and
  ``d_j . v+ + sigma = 0`` for ``j`` in ``E``; the edges turn with the contact's slip frame;
- **frictionless** (``mu = 0``): ``n . v+ = -b``, impulse ``F_n n``;

with the loop rows ``G_b qd+ = -loop_erp phi / dt`` always. These equations ``F(x, y) = 0`` in the active
unknowns ``y`` give ``dy/dx = -F_y^+ F_x`` (least squares: redundant rows, such as the four corners of a
resting box, leave the impulses non-unique but not the velocities) and ``dqd+ = dqd+/dx|_y + M^-1 G^T
(dLambda/dy) dy/dx``. ``F_x`` collects the derivatives of the free velocity (:func:`soadyn.derivatives.
aba_derivatives`), of ``M^-1`` at a fixed force (:func:`soadyn.derivatives.rnea_derivatives`), of the
contact rows (the kinematic Hessian, :mod:`soadyn.kinematic_hessian`, and the contact points), of the
normals, gaps (the rows' bias ``b``) and slip frames. The position update (free joints: the centre of mass
on a line, ballistic correction), the free joints' velocities rewritten in their new axes, and the split
position correction (a second LCP on the normal rows, differentiated the same way) follow by the chain rule.

A contact at the boundary of its class (``F_n = 0`` and ``w_n = 0``; a sticking impulse on the pyramid's
boundary; a sliding velocity between two edges) is a point where the step is not differentiable: the
derivative returned is that of the class it was put in (one-sided), and ``degenerate`` says so.
"""

from __future__ import annotations

import weakref
from dataclasses import dataclass, replace

import numpy as np

from ._kernels import contact as _kcon
from ._kernels import contact_motion as _kcm
from ._kernels.contact_sim import PENETRATION_SLOP, TOUCHING_GAP
from .contact.differential import step_contacts
from .contact.pyramid import tangent_basis
from .derivatives import aba_derivatives, rnea_derivatives
from .dynamics import as_array, coupled
from .joints import FREE
from .kinematic_hessian import KinematicHessian, cross3
from .lcp import solve_mlcp
from .loops import UNIVERSAL, constraint_state
from .sim import Simulator
from .step_motion import body_com, correction_rates, move, position_rates, skew, step_velocity, still_joints

__all__ = ["StepDerivatives", "step_derivatives", "STATE_TOL", "ACTIVE_TOL"]

STATE_TOL = 1e-8
"""Largest difference between the rebuilt step's ``(q+, qd+)`` and :meth:`Simulator.step`'s, relative to
``1 + |qd+|``: the LCP solution the derivatives stand on is checked."""

ACTIVE_TOL = 1e-9
"""An impulse or slack counts as zero below this fraction of the LCP's scale."""

GAP_TOL = 1e-12
"""A contact gap (m) this close to 0 is at the kink of its normal row's bias (``gap / dt`` open, ``erp gap /
dt`` or 0 penetrating): reported as degenerate."""

_DATA: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()
"""One scratch Data per model."""

MODES = ("separating", "sticking", "sliding", "frictionless")


@dataclass(frozen=True)
class StepDerivatives:
    """``(q_next, qd_next) = Simulator.step(q, qd, tau)`` and its Jacobians (configurations in the tangent
    space, as :mod:`soadyn.derivatives`): ``dq_dq`` ... ``dqd_dtau`` (nv, nv) each. ``modes``: each contact's
    class (:data:`MODES`), ``degenerate``: the contacts at the boundary of their class (one-sided
    derivatives), ``redundant``: the active rows are dependent (impulses not unique), ``correction``: the
    split position correction ran."""

    q_next: np.ndarray
    qd_next: np.ndarray
    dq_dq: np.ndarray
    dq_dqd: np.ndarray
    dq_dtau: np.ndarray
    dqd_dq: np.ndarray
    dqd_dqd: np.ndarray
    dqd_dtau: np.ndarray
    modes: tuple
    degenerate: tuple
    redundant: bool
    correction: bool

    @property
    def is_degenerate(self) -> bool:
        return len(self.degenerate) > 0

    @property
    def A(self) -> np.ndarray:
        """``d[q+; qd+]/d[q; qd]`` (2nv, 2nv)."""
        return np.block([[self.dq_dq, self.dq_dqd], [self.dqd_dq, self.dqd_dqd]])

    @property
    def B(self) -> np.ndarray:
        """``d[q+; qd+]/dtau`` (2nv, nv)."""
        return np.vstack([self.dq_dtau, self.dqd_dtau])


# ----------------------------------------------------------------------------------------- helpers
def _pad(D, nx):
    """A q-only derivative (r, nv) padded to ``nx`` columns."""
    out = np.zeros(D.shape[:-1] + (nx,))
    out[..., :D.shape[-1]] = D
    return out


# ----------------------------------------------------------------------------------------- rows
class _Rows:
    """The step's world rows ``Gw = [G_b; G_1; ..; G_k]`` (loop rows; each contact's relative point velocity
    of body A with respect to body B, world axes) at ``q`` and the derivatives of their products."""

    def __init__(self, model, data, q, qd, kh: KinematicHessian, contacts):
        self.kh, self.contacts, nv = kh, contacts, model.nv
        self.nb = int(model.nc) if model.nl > 0 else 0
        rows, self.loop = [], []
        if model.nl > 0:
            phi, _, _, G = constraint_state(model, data, q, qd)
            self.phi, Gb = phi.copy(), G.copy()
            for l in range(model.nl):
                R, p = data.loop_R[l], data.loop_p[l]
                a = int(model.frame_body[model.loop_frame_a[l]])
                b = int(model.frame_body[model.loop_frame_b[l]])
                for d in range(int(model.loop_dim[l])):
                    Qw, Qv = data.loop_Q[l, d, :3], data.loop_Q[l, d, 3:]
                    f = np.concatenate([R @ Qw + cross3(p, R @ Qv), R @ Qv])
                    self.loop.append((a, b, f))
                    rows.append(f @ (kh.body_jacobian(b) - kh.body_jacobian(a)))
            if np.abs(np.array(rows) - Gb).max() > 1e-9 * (1.0 + np.abs(Gb).max()):
                raise ValueError("the loop rows rebuilt from the loops' frames differ from the constraint Jacobian")
        else:
            self.phi = np.zeros(0)
        k = len(contacts)
        self.P, self.dP = np.array([c.point for c in contacts]).reshape(k, 3), np.zeros((k, 3, nv))
        for i, c in enumerate(contacts):
            self.dP[i] = c.dpoint
        A, B = np.array([c.A for c in contacts], np.int64), np.array([c.B for c in contacts], np.int64)
        self.touch = []  # per moving body: its contacts and their signs (+1 as body A, -1 as body B)
        Gc = np.zeros((k, 3, nv))
        for b in np.unique(np.concatenate([A, B])):
            if b >= 0:
                idx = np.flatnonzero((A == b) | (B == b))
                self.touch.append((int(b), idx, np.where(A[idx] == b, 1.0, -1.0)))
                Gc[idx] += self.touch[-1][2][:, None, None] * kh.point_jacobian(int(b), self.P[idx])
        self.G = np.concatenate([np.array(rows).reshape(-1, nv), Gc.reshape(-1, nv)])

    def contact(self, i):
        r = self.nb + 3 * i
        return self.G[r:r + 3]

    def rate(self, w):
        """``d(Gw w)/dq`` (rows, nv) for a fixed ``w``."""
        kh = self.kh
        out = []
        for a, b, f in self.loop:
            V = (kh.body_jacobian(b) - kh.body_jacobian(a)) @ w
            out.append(V @ kh.wrench_rate(a, f) + f @ (kh.body_hessian_times(b, w) - kh.body_hessian_times(a, w)))
        return np.concatenate([np.array(out).reshape(-1, kh.nv), self.contact_rate(w).reshape(-1, kh.nv)])

    def contact_rate(self, w):
        """``d(G_i w)/dq`` (k, 3, nv) of each contact's rows for a fixed ``w``."""
        out = np.zeros(self.dP.shape)
        for b, idx, sg in self.touch:
            out[idx] += sg[:, None, None] * self.kh.point_rate_q(b, self.P[idx], w, self.dP[idx])
        return out

    def dual(self, lam):
        """``d(Gw^T lam)/dq`` (nv, nv) for fixed world row impulses ``lam``."""
        kh = self.kh
        out = np.zeros((kh.nv, kh.nv))
        for r, (a, b, f) in enumerate(self.loop):
            if lam[r] != 0.0:
                J = kh.body_jacobian(b) - kh.body_jacobian(a)
                out += lam[r] * (J.T @ kh.wrench_rate(a, f) + kh.body_hessian_dual(b, f) - kh.body_hessian_dual(a, f))
        f = lam[self.nb:].reshape(-1, 3)
        for b, idx, sg in self.touch:
            out += kh.point_dual_q(b, self.P[idx], sg[:, None] * f[idx], self.dP[idx])
        return out


@dataclass
class _System:
    """Active equations ``C Gw u + h + E y = 0`` in the unknowns ``y``, with ``u = u0 + M^-1 Gw^T D y``
    (``Gw``: :class:`_Rows`), and the derivatives of their parts: ``dC`` entries ``(equation, contact,
    d c / dx)`` for a direction ``c`` (3,) of ``C`` on a contact's rows, ``dD`` entries ``(contact, unknown,
    d d / dx)`` for a direction of ``D``, ``dh`` (m, nx)."""

    C: np.ndarray
    D: np.ndarray
    E: np.ndarray
    h: np.ndarray
    y: np.ndarray
    dC: list
    dD: list
    dh: np.ndarray


def _solve_system(s: _System, rows: _Rows, Minv, dMinv, u0, du0):
    """``(u, du/dx, redundant)`` by the implicit function theorem on ``s`` (module docstring)."""
    G, nv = rows.G, Minv.shape[0]
    lam = s.D @ s.y
    a = Minv @ (G.T @ lam)
    u = u0 + a
    ur = G @ u
    dD = np.zeros((G.shape[0], du0.shape[1]))
    for i, j, dd in s.dD:
        r = rows.nb + 3 * i
        dD[r:r + 3] += s.y[j] * dd
    du_y = du0 + Minv @ (G.T @ dD)
    du_y[:, :nv] += dMinv(a) + Minv @ rows.dual(lam)
    Fx = s.C @ (G @ du_y) + s.dh
    Fx[:, :nv] += s.C @ rows.rate(u)
    for e, i, dc in s.dC:
        r = rows.nb + 3 * i
        Fx[e] += ur[r:r + 3] @ dc
    if s.y.size == 0:
        return u, du_y, False
    K = s.C @ G @ Minv @ G.T @ s.D + s.E
    # least squares by one SVD, its rank the redundancy (numpy's lstsq and matrix_rank cutoff)
    Uk, sv, Vk = np.linalg.svd(K)
    r = int(np.count_nonzero(sv > sv[0] * K.shape[0] * np.finfo(float).eps))
    dy = -Vk[:r].T @ ((Uk[:, :r].T @ Fx) / sv[:r, None])
    return u, du_y + Minv @ (G.T @ (s.D @ dy)), r < K.shape[0]


# ----------------------------------------------------------------------------------------- contacts
def _frame(c, pyramid: str, vf, dvf, nx):
    """``(t1, t2, dt1/dx, dt2/dx, defined)``: the contact's friction tangents as the step takes them (turned along
    the predicted slip ``vf``, the relative velocity of the free motion, for the ``"slip"`` pyramid, else
    :func:`soadyn.contact.pyramid.tangent_basis`, the kernels' rule); ``defined`` is False for a slip frame
    without a predicted slip, which any perturbation turns."""
    n, dn = c.normal, _pad(c.dnormal, nx)
    if pyramid == "slip":
        s = vf - n * (n @ vf)
        ns = float(np.linalg.norm(s))
        if ns > _kcm.SLIP_DIRECTION_TOL:
            ds = dvf - np.outer(n, n @ dvf + vf @ dn) - (n @ vf) * dn
            t1 = s / ns
            dt1 = (ds - np.outer(t1, t1 @ ds)) / ns
            return t1, cross3(n, t1), dt1, cross3(dn, t1) + cross3(n, dt1), True
    t1, t2 = tangent_basis(n)  # t1: the axis e of n's smallest component, made orthogonal to n
    e = int(np.argmin(np.abs(n)))
    nu = float(np.linalg.norm(np.eye(3)[e] - n[e] * n))
    du = -(np.outer(n, dn[e]) + n[e] * dn)
    dt1 = (du - np.outer(t1, t1 @ du)) / nu
    return t1, t2, dt1, cross3(dn, t1) + cross3(n, dt1), pyramid != "slip"


def _classify(z, w, qv, v, nb, k, nf, mu):
    """Each contact's mode (:data:`MODES`), its active pyramid edges, its ``sigma``, and the degenerate
    contacts. ``v``: the rows' velocities after the step (contact frames). A contact touching without
    impulse (``F_n = 0``, ``w_n = 0``) is kept active, sticking or sliding as its velocity says: the
    one-sided derivative on which it stays in contact (redundant contacts, such as a flat box's four corners,
    share their impulse arbitrarily and all stay)."""
    zs = max(float(np.abs(z).max(initial=0.0)), 1e-300)
    ws = max(float(np.abs(qv).max(initial=0.0)), float(np.abs(w).max(initial=0.0)), 1e-300)
    tz, tw = ACTIVE_TOL * zs, ACTIVE_TOL * ws
    nbeta = nb + k * (nf + 1)
    th = 2.0 * np.pi * np.arange(nf) / nf
    modes, edges, sigma, degenerate = [], [], [], []
    for i in range(k):
        r0 = nb + i * (nf + 1)
        fn, wn, beta, wb = z[r0], w[r0], z[r0 + 1:r0 + 1 + nf], w[r0 + 1:r0 + 1 + nf]
        sig, wsig = z[nbeta + i], w[nbeta + i]
        E = np.flatnonzero(beta > tz)
        if fn <= tz and wn > tw:
            modes.append("separating")
        elif mu[i] == 0.0:
            modes.append("frictionless")
        elif fn <= tz:  # touching without impulse: the mode its velocity gives
            vt = v[nb + 3 * i + 1:nb + 3 * i + 3]
            proj = np.cos(th) * vt[0] + np.sin(th) * vt[1]
            if np.abs(vt).max() <= tw:
                modes.append("sticking")
            else:
                modes.append("sliding")
                E = np.flatnonzero(proj <= proj.min() + tw)
                sig = -proj.min()
        elif sig > tz:
            modes.append("sliding")
            if np.any(np.delete(wb, E) <= tw):
                degenerate.append((i, "sliding between two pyramid edges"))
        elif wsig <= tw:  # at rest with the friction at its limit: the sliding branch (stick would need more)
            modes.append("sliding")
            degenerate.append((i, "friction at its limit without slip: differentiated as sliding"))
        else:
            modes.append("sticking")
        if fn <= tz and wn <= tw:
            degenerate.append((i, "F_n = 0 and w_n = 0: touching without impulse (kept in contact)"))
        edges.append(E)
        sigma.append(sig)
    return modes, edges, np.array(sigma), degenerate


def _impulses_of(u, qf, Minv, Gr, bias, nb, k, nf, mu):
    """An LCP solution ``z`` (pyramid variables) whose impulses give the step velocity ``u``: the rows'
    velocities fix each contact's ``sigma``, which impulses may be positive (a touching contact, the pyramid
    edges opposing its slip) and the friction limit of a sliding one; the impulses then solve
    ``Gr^T lam = M (u - qf)`` by non-negative least squares."""
    from scipy.optimize import nnls

    vb = Gr @ u + bias
    tol = ACTIVE_TOL * max(1.0, float(np.abs(vb).max(initial=0.0)))
    th = 2.0 * np.pi * np.arange(nf) / nf
    nbeta = nb + k * (nf + 1)
    cols, rows_mu, sigma = [], [], np.zeros(k)
    L = np.zeros((Gr.shape[0], 2 * nb + k * (nf + 1)))
    for r in range(nb):
        L[r, 2 * r], L[r, 2 * r + 1] = 1.0, -1.0
    cols = list(range(2 * nb))
    for i in range(k):
        r, c0 = nb + 3 * i, 2 * nb + i * (nf + 1)
        proj = np.cos(th) * vb[r + 1] + np.sin(th) * vb[r + 2]
        sigma[i] = max(0.0, -proj.min())
        L[r, c0] = 1.0
        L[r + 1, c0 + 1:c0 + 1 + nf], L[r + 2, c0 + 1:c0 + 1 + nf] = np.cos(th), np.sin(th)
        if vb[r] <= tol:
            cols.append(c0)
            cols += [c0 + 1 + j for j in range(nf) if proj[j] + sigma[i] <= tol]
            if sigma[i] > tol:
                rows_mu.append((i, c0))
    A = np.vstack([Gr.T @ L, np.zeros((len(rows_mu), L.shape[1]))])
    for e, (i, c0) in enumerate(rows_mu):
        A[Gr.shape[1] + e, c0], A[Gr.shape[1] + e, c0 + 1:c0 + 1 + nf] = mu[i], -1.0
    rhs = np.concatenate([np.linalg.solve(Minv, u - qf), np.zeros(len(rows_mu))])
    x = np.zeros(L.shape[1])
    x[cols] = nnls(A[:, cols], rhs, maxiter=50 * len(cols))[0]
    z = np.zeros(nbeta + k)
    z[:nb] = x[0:2 * nb:2] - x[1:2 * nb:2]
    z[nb:nbeta] = x[2 * nb:]
    z[nbeta:] = sigma
    return z


def _bias_scale(gap, split, erp):
    """``db/dgap * dt`` of a normal row's bias ``b`` (``gap/dt`` open beyond ``TOUCHING_GAP``, ``erp gap / dt``
    or 0 penetrating, 0 touching)."""
    return 1.0 if gap > TOUCHING_GAP else (erp if gap < 0.0 and not split else 0.0)


def _step_system(rows, contacts, modes, edges, sigma, frames, dframes, z, lam, nb, nf, mu, settings, dt, nx):
    """The step LCP's active equations (:class:`_System`)."""
    k = len(contacts)
    size = {"separating": 0, "sticking": 3, "frictionless": 1}
    m = nb + sum(size.get(modes[i], 2 + len(edges[i])) for i in range(k))
    R = nb + 3 * k
    C, D, E = np.zeros((m, R)), np.zeros((R, m)), np.zeros((m, m))
    h, y, dh = np.zeros(m), np.zeros(m), np.zeros((m, nx))
    dC, dD = [], []
    C[:nb, :nb] = np.eye(nb)
    D[:nb, :nb] = np.eye(nb)
    h[:nb] = settings.loop_erp * rows.phi / dt
    y[:nb] = z[:nb]
    dh[:nb, :rows.kh.nv] = settings.loop_erp / dt * rows.G[:nb]  # d phi / dq = G_b (exact at phi = 0)
    split = settings.correction == "split"
    e = nb
    for i, c in enumerate(contacts):
        if modes[i] == "separating":
            continue
        r, n, dn = nb + 3 * i, c.normal, _pad(c.dnormal, nx)
        s = _bias_scale(c.gap, split, settings.erp)
        b, db = s * c.gap / dt, s * _pad(c.dgap, nx) / dt
        if modes[i] == "sticking":
            C[e:e + 3, r:r + 3] = np.eye(3)
            D[r:r + 3, e:e + 3] = np.eye(3)
            h[e:e + 3] = b * n
            dh[e:e + 3] = np.outer(n, db) + b * dn
            y[e:e + 3] = frames[i].T @ lam[r:r + 3]
            e += 3
            continue
        C[e, r:r + 3], D[r:r + 3, e], h[e], dh[e], y[e] = n, n, b, db, z[nb + i * (nf + 1)]
        dC.append((e, i, dn))
        dD.append((i, e, dn))
        if modes[i] == "frictionless":
            e += 1
            continue
        t1, t2 = frames[i, 1], frames[i, 2]
        dt1, dt2 = dframes[i]
        ns = len(edges[i])
        sg = e + 1 + ns  # the sigma unknown and the friction-limit equation
        for a, j in enumerate(edges[i]):
            th = 2.0 * np.pi * j / nf
            d, dd = np.cos(th) * t1 + np.sin(th) * t2, np.cos(th) * dt1 + np.sin(th) * dt2
            col = e + 1 + a
            C[col, r:r + 3], D[r:r + 3, col], E[col, sg], y[col] = d, d, 1.0, z[nb + i * (nf + 1) + 1 + j]
            E[sg, col] = -1.0
            dC.append((col, i, dd))
            dD.append((i, col, dd))
        E[sg, e] = mu[i]
        y[sg] = sigma[i]
        e = sg + 1
    return _System(C, D, E, h, y, dC, dD, dh)


def _correction_system(rows, contacts, active, lam_c, nb, erp, dt, nx):
    """The split position correction's active equations: loop rows held, active normal rows ``n . u + b =
    0`` with ``b = erp gap / dt`` (penetrating) or ``gap / dt``."""
    k = len(contacts)
    idx = [i for i in range(k) if active[i]]
    m, R = nb + len(idx), nb + 3 * k
    C, D, h, y, dh = np.zeros((m, R)), np.zeros((R, m)), np.zeros(m), np.zeros(m), np.zeros((m, nx))
    C[:nb, :nb] = np.eye(nb)
    D[:nb, :nb] = np.eye(nb)
    y[:nb] = lam_c[:nb]
    dC, dD = [], []
    for e, i in enumerate(idx, start=nb):
        c, r = contacts[i], nb + 3 * i
        s = erp if c.gap < 0.0 else 1.0
        C[e, r:r + 3], D[r:r + 3, e], h[e], y[e] = c.normal, c.normal, s * c.gap / dt, lam_c[nb + i]
        dh[e, :rows.kh.nv] = s * c.dgap / dt
        dC.append((e, i, _pad(c.dnormal, nx)))
        dD.append((i, e, _pad(c.dnormal, nx)))
    return _System(C, D, np.zeros((m, m)), h, y, dC, dD, dh)


# ----------------------------------------------------------------------------------------- the step
def _free_velocity(model, data, q, qd, tau, dt, nx):
    """``qf`` and ``dqf/dx``, ``M^-1``: the step's velocity without contact (passive joint forces, the free
    joints' frame rates :func:`soadyn._kernels.joints.add_frame_rates` included)."""
    nv = model.nv
    one = model.jnt_nv == 1
    k, qa = model.jnt_vadr[one], model.jnt_qadr[one]
    K, Dm = np.zeros(nv), np.zeros(nv)
    K[k], Dm[k] = model.dof_stiffness[k], model.dof_damping[k]
    tau_s = tau.copy()
    tau_s[k] -= model.dof_stiffness[k] * (q[qa] - model.dof_springref[k]) + model.dof_damping[k] * qd[k]
    d = aba_derivatives(model, data, q, qd, tau_s)
    Minv = d.Minv.copy()
    qf = qd + dt * d.qdd
    dqf = np.zeros((nv, nx))
    dqf[:, :nv] = dt * (d.dqdd_dq - Minv * K)
    dqf[:, nv:2 * nv] = np.eye(nv) + dt * (d.dqdd_dqd - Minv * Dm)
    dqf[:, 2 * nv:] = dt * Minv
    for b in np.flatnonzero(model.jnt_type == FREE):
        a = int(model.jnt_vadr[b])
        c, w = body_com(model, b), qd[a:a + 3]
        u = qd[a + 3:a + 6] + cross3(w, c)
        qf[a + 3:a + 6] += dt * cross3(w, u)
        dqf[a + 3:a + 6, nv + a:nv + a + 3] += dt * (-skew(u) - skew(w) @ skew(c))
        dqf[a + 3:a + 6, nv + a + 3:nv + a + 6] += dt * skew(w)
    return qf, dqf, Minv


def _row_impulses(z, nb, k, nf, lam):
    """Row impulses ``lam`` (loop rows; ``n, t1, t2`` per contact) of a pyramid LCP solution ``z`` (Jain 2014
    Eq. 7, as :func:`soadyn._kernels.contact.pyramid_impulses`)."""
    th = 2.0 * np.pi * np.arange(nf) / nf
    lam[:nb] = z[:nb]
    for i in range(k):
        r0 = nb + i * (nf + 1)
        beta = z[r0 + 1:r0 + 1 + nf]
        lam[nb + 3 * i:nb + 3 * i + 3] = z[r0], np.cos(th) @ beta, np.sin(th) @ beta


_COLD: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()


def _cold(sim: Simulator) -> Simulator:
    """A simulator like ``sim`` that solves every step LCP cold: the step differentiated is the exact
    solution of its LCP (a warm-started answer is exact only to ``LCP_TOL``), and ``sim``'s own warm start is
    left as it was."""
    if sim not in _COLD:
        _COLD[sim] = Simulator(sim.model, sim.dt, contact=replace(sim.contact, warm_start=False))
    return _COLD[sim]


def _check_sim(sim):
    if not isinstance(sim, Simulator):
        raise ValueError(f"sim: expected a soadyn.Simulator, got {type(sim).__name__}")
    if sim.contact is None:
        raise ValueError("sim: step_derivatives differentiates the contact step (Simulator(..., contact="
                         "ContactSettings())); without contact use soadyn.derivatives.aba_derivatives")
    if sim.contact.friction != "coulomb":
        raise ValueError(f"sim.contact.friction: step derivatives cover the Coulomb pyramid, not "
                         f"{sim.contact.friction!r}")
    if coupled(sim.model):
        raise ValueError("sim.model: models with coupled coordinates are not supported")
    if sim.model.nl > 0 and np.any(sim.model.loop_kind == UNIVERSAL):
        raise ValueError("sim.model: universal loop joints (their rows turn with frame B) are not differentiated; "
                         "the other loop kinds' rows are fixed in frame A")


def step_derivatives(sim: Simulator, q, qd, tau=None) -> StepDerivatives:
    """One step of ``sim`` from ``(q, qd)`` under joint forces ``tau`` and its Jacobians (module docstring).
    Raises ``ValueError`` for a step outside what is differentiated: a collision phase (restitution), a
    contact pair without a differentiated geometry model (:mod:`soadyn.contact.differential`), a friction
    model other than the Coulomb pyramid, planar joints, or a rebuilt step that does not reproduce
    :meth:`Simulator.step` (:data:`STATE_TOL`)."""
    _check_sim(sim)
    model, st, dt = sim.model, sim.contact, sim.dt
    nv, nx = model.nv, 3 * model.nv
    q = as_array(q, (model.nq,), "q").copy()
    qd = as_array(qd, (nv,), "qd").copy()
    tau = np.zeros(nv) if tau is None else as_array(tau, (nv,), "tau").copy()
    cold = _cold(sim)
    q_sim, qd_sim = cold.step(q, qd, tau)
    if cold.last_step_stats["collision"] > 0:
        raise ValueError("the step runs a collision phase (a contact with restitution closing faster than "
                         "impact_velocity): not differentiated; use restitution=0 or a smaller approach speed")
    data = _DATA.get(model)
    if data is None:
        data = _DATA[model] = model.data()
    kh = KinematicHessian(model, data, q)
    contacts = step_contacts(model, data, q, st, kh)
    k, nf = len(contacts), st.n_f
    qf, dqf, Minv = _free_velocity(model, data, q, qd, tau, dt, nx)
    zero = np.zeros(nv)
    g0 = rnea_derivatives(model, data, q, zero, zero).dtau_dq.copy()

    def dMinv(a):  # d(M^-1 f)/dq at a fixed f = M a: -M^-1 d(M a)/dq
        return -Minv @ (rnea_derivatives(model, data, q, zero, a).dtau_dq - g0)

    rows = _Rows(model, data, q, qd, kh, contacts)
    nb = rows.nb
    mu = np.array([c.mu if st.mu is None else st.mu for c in contacts])
    frames, dframes, slipping = np.zeros((k, 3, 3)), [], []
    rate_f = rows.contact_rate(qf)
    for i, c in enumerate(contacts):
        G3 = rows.contact(i)
        dvf = G3 @ dqf
        dvf[:, :nv] += rate_f[i]
        t1, t2, dt1, dt2, defined = _frame(c, st.pyramid, G3 @ qf, dvf, nx)
        frames[i] = (c.normal, t1, t2)
        slipping.append(defined)
        dframes.append((dt1, dt2))
    split = st.correction == "split"
    Gr = rows.G.copy()
    for i in range(k):
        Gr[nb + 3 * i:nb + 3 * i + 3] = frames[i] @ rows.contact(i)
    W = Gr @ Minv @ Gr.T
    tgt = Gr @ qf
    tgt[:nb] += st.loop_erp * rows.phi / dt
    tgt[nb::3] += np.array([_bias_scale(c.gap, split, st.erp) * c.gap / dt for c in contacts]).reshape(k)
    n = nb + k * (nf + 2)
    M, qv, z, lam = np.empty((n, n)), np.empty(n), np.zeros(n), np.zeros(nb + 3 * k)
    modes, edges, sigma = [], [], np.zeros(0)
    degenerate = [(i, c.degenerate) for i, c in enumerate(contacts) if c.degenerate]
    if n > 0:
        _kcon.pyramid_lcp(W, tgt, nb, k, nf, mu, M, qv)
        z = solve_mlcp(M, qv, nb, st.max_pivots, st.tikhonov).z
        _row_impulses(z, nb, k, nf, lam)
        u_sim = step_velocity(model, qd_sim, dt)
        if np.abs(qf + Minv @ (Gr.T @ lam) - u_sim).max() > STATE_TOL * (1.0 + np.abs(u_sim).max()):
            # the LCP has several solutions: find the simulator's, from its velocity
            z = _impulses_of(u_sim, qf, Minv, Gr, tgt - Gr @ qf, nb, k, nf, mu)
            _row_impulses(z, nb, k, nf, lam)
            degenerate.append((-1, "the step's LCP has several solutions; the simulator's is differentiated"))
        modes, edges, sigma, found = _classify(z, M @ z + qv, qv, W @ lam + tgt, nb, k, nf, mu)
        degenerate += found
        degenerate += [(i, "sliding without a predicted slip: the friction frame is undefined") for i in range(k)
                       if modes[i] == "sliding" and not slipping[i]]
    system = _step_system(rows, contacts, modes, edges, sigma, frames, dframes, z, lam, nb, nf, mu, st, dt, nx)
    u, du, redundant = _solve_system(system, rows, Minv, dMinv, qf, dqf)
    correction = split and k > 0 and max(-c.gap for c in contacts) > PENETRATION_SLOP
    dc, ddc = np.zeros(nv), np.zeros((nv, nx))
    if correction:
        idx = np.concatenate([np.arange(nb), nb + 3 * np.arange(k)]).astype(np.int64)
        bc = np.array([(st.erp if c.gap < 0.0 else 1.0) * c.gap / dt for c in contacts])
        res_c = solve_mlcp(W[np.ix_(idx, idx)], np.concatenate([np.zeros(nb), bc]), nb, st.max_pivots, st.tikhonov)
        pushed = res_c.z[nb:] > ACTIVE_TOL * max(float(np.abs(res_c.z).max(initial=0.0)), 1e-300)
        active = pushed | (res_c.w[nb:] <= ACTIVE_TOL * max(float(np.abs(bc).max(initial=0.0)), 1e-300))
        degenerate += [(i, "position correction: lambda = 0 and w = 0 (kept)") for i in range(k)
                       if active[i] and not pushed[i]]
        cs = _correction_system(rows, contacts, active, res_c.z, nb, st.erp, dt, nx)
        dc, ddc, red_c = _solve_system(cs, rows, Minv, dMinv, np.zeros(nv), np.zeros((nv, nx)))
        redundant = redundant or red_c
    degenerate += [(i, "gap = 0 or TOUCHING_GAP: the normal row's bias changes slope")
                   for i, c in enumerate(contacts) if min(abs(c.gap), abs(c.gap - TOUCHING_GAP)) <= GAP_TOL]
    if split and k > 0 and abs(max(-c.gap for c in contacts) - PENETRATION_SLOP) <= GAP_TOL:
        degenerate.append((-1, "the deepest penetration is at the position correction's threshold"))
    still = still_joints(model, u, qf)
    q_next, qo = move(model, q, qd, u, still, dc, dt)
    if np.abs(q_next - q_sim).max() > STATE_TOL:
        # round-off impulses (~1e-16) on a body without an active contact decide the kernel's ballistic rule
        for b in np.flatnonzero(model.jnt_type == FREE):
            if np.abs(q_next[model.jnt_qadr[b]:][:3] - q_sim[model.jnt_qadr[b]:][:3]).max() > STATE_TOL:
                still[b] = not still[b]
                degenerate.append((-1, f"body {model.body_names[b]!r}: the ballistic rule set by round-off impulses"))
        q_next, qo = move(model, q, qd, u, still, dc, dt)
    dq1, dqo = position_rates(model, qd, u, du, still, dt, nx)
    dq_next = correction_rates(model, dq1, dc, ddc, dt) if correction else dq1
    err = max(np.abs(q_next - q_sim).max(initial=0.0), np.abs(qo - qd_sim).max(initial=0.0))
    if not err <= STATE_TOL * (1.0 + np.abs(qd_sim).max(initial=0.0)):
        raise ValueError(f"the rebuilt step differs from Simulator.step by {err:.3g} (beyond STATE_TOL): its LCP "
                         "solution is not the simulator's (a non-unique solution?); no derivatives returned")
    return StepDerivatives(q_sim, qd_sim, dq_next[:, :nv], dq_next[:, nv:2 * nv], dq_next[:, 2 * nv:],
                           dqo[:, :nv], dqo[:, nv:2 * nv], dqo[:, 2 * nv:], tuple(modes), tuple(degenerate),
                           redundant, bool(correction))
