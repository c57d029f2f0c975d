"""The spatial operators of the spatial operator algebra (SOA) as dense matrices, for analysis and tests.

Jain's operator factorizations of the tree mass matrix and its inverse (Jain, *Robot and Multibody
Dynamics*, 2011, ch. 5-7; Jain 2014, Eq. 59; Jain et al. 2012, Eq. 7)::

    M         = H phi Mb phi* H*                                   (Newton-Euler factorization)
    M         = [I + H phi K] D [I + H phi K]*                     (innovations factorization)
    [I + H phi K]^-1 = I - H psi K
    M^-1      = [I - H psi K]* D^-1 [I - H psi K]
    (I - H psi K) H phi = H psi                                    (Jain 2014, Eq. 63)
    Omega     = psi* H* D^-1 H psi,   J M^-1 J* = B* Omega B       (Jain 2014, Eq. 62-64)

Everything here is an O(N^2)-memory dense matrix built from the definitions; the O(N) kernels in
:mod:`soadyn._kernels` never form these operators. The numbers are for checking the identities above and
for studying the structure of a model, not for speed.

Convention (soadyn, not Jain's numbering)
-----------------------------------------
Jain numbers the links from the tips to the base, so that his ``phi`` is block lower triangular. soadyn
numbers the bodies ``0 .. nb-1`` from the base with ``parent[i] < i`` (docs/architecture.md, Conventions).
The operators here keep Jain's *meaning* and the formulas above verbatim, with ``A* = A.T``:

- ``phi(j, i)`` is the force transform from body ``i`` to body ``j`` when ``j`` is ``i`` or an ancestor of
  ``i``: ``phi(j, i) = (^iX_j)^T`` (so ``phi(i, i) = 1``), and zero otherwise. In soadyn's numbering
  ``phi`` is therefore block *upper* triangular, and the stacked body velocities are
  ``V = phi* H* qd`` (Jain 2014, Eq. 60), i.e. ``V_i = sum_j ^iX_j S_j qd_j`` over the ancestors ``j``.
- ``E_phi`` has the single off-diagonal blocks ``E_phi(p(i), i) = (^iX_p)^T`` and ``phi = (I - E_phi)^-1``.
- ``H`` (nv x 6nb) is block diagonal with ``H(i) = S_i^T`` (nv_i x 6), ``S_i`` the motion subspace in
  body ``i``'s frame at ``q`` (q-dependent for UNIVERSAL joints).
- ``Mb`` (6nb x 6nb): block-diagonal spatial inertias about the body origins (Jain's ``M``).
- Articulated-body quantities (Jain 2011, ch. 7): the articulated inertias ``P`` (Riccati recursion, base
  ward) ``P(i) = Mb(i) + sum_{c child of i} phi(i, c) tau_bar(c) P(c) phi(i, c)*``,
  ``D(i) = H(i) P(i) H(i)* + diag(armature_i)`` (nv_i x nv_i; the joint armature adds to ``M``'s diagonal,
  so to ``D``, and the factorizations above hold with it), ``G(i) = P(i) H(i)* D(i)^-1`` (6 x nv_i),
  ``tau_bar(i) = I - G(i) H(i)``; the Kalman-gain operator ``K`` (6nb x nv) has the single blocks
  ``K(p(i), i) = phi(p(i), i) G(i)`` (no block for a body whose parent is the world);
  ``E_psi(p(i), i) = phi(p(i), i) tau_bar(i)`` and the articulated-body propagation operator
  ``psi = (I - E_psi)^-1``, whose ``(j, i)`` block is the product of the ``E_psi`` blocks along the path
  from ``i`` up to its ancestor ``j``.

Joints with ``nv_i > 1`` give ``nv_i``-row blocks of ``H``, ``D``, ``G`` and ``K``; the identities hold
unchanged (Jain 2014, Sec. 10.1: "irrespective of ... the types of hinges").
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .model import Model
from .spatial import Transform

__all__ = ["SOAOperators", "operators"]


@dataclass(frozen=True, eq=False)
class SOAOperators:
    """The spatial operators of a model at one configuration, as dense arrays (see the module docstring
    for the convention). ``nb`` bodies, ``nv`` dofs."""

    H: np.ndarray  # (nv, 6nb) hinge map, block diagonal, H(i) = S_i^T
    phi: np.ndarray  # (6nb, 6nb) rigid-body propagation, phi(j, i) = (^iX_j)^T for j ancestor-or-self of i
    E_phi: np.ndarray  # (6nb, 6nb) E_phi(p(i), i) = (^iX_p)^T; phi = (I - E_phi)^-1
    Mb: np.ndarray  # (6nb, 6nb) block-diagonal spatial inertias (Jain's M)
    P: np.ndarray  # (6nb, 6nb) block-diagonal articulated-body inertias
    D: np.ndarray  # (nv, nv) block diagonal, D(i) = H(i) P(i) H(i)^T
    G: np.ndarray  # (6nb, nv) block diagonal, G(i) = P(i) H(i)^T D(i)^-1
    K: np.ndarray  # (6nb, nv) Kalman gain, K(p(i), i) = phi(p(i), i) G(i)
    tau_bar: np.ndarray  # (6nb, 6nb) block diagonal, tau_bar(i) = I - G(i) H(i)
    E_psi: np.ndarray  # (6nb, 6nb) E_psi(p(i), i) = phi(p(i), i) tau_bar(i)
    psi: np.ndarray  # (6nb, 6nb) articulated-body propagation, (I - E_psi)^-1
    Omega: np.ndarray  # (6nb, 6nb) extended operational space compliance psi* H* D^-1 H psi (Jain 2014 Eq. 64)
    armature: np.ndarray  # (nv,) joint armature (Model.dof_armature), part of M's diagonal and of D
    body_dofs: tuple  # slice of the dofs of each body (rows of H, D, columns of G, K)

    @property
    def nb(self) -> int:
        return self.Mb.shape[0] // 6

    @property
    def nv(self) -> int:
        return self.H.shape[0]

    @staticmethod
    def block(i: int) -> slice:
        """The rows/columns of body ``i`` in a 6nb-sized operator."""
        return slice(6 * i, 6 * i + 6)

    def mass_matrix(self) -> np.ndarray:
        """``M = H phi Mb phi* H* + diag(armature)`` (Jain 2014, Eq. 59, first line, plus the joints'
        rotor inertias)."""
        A = self.H @ self.phi
        return A @ self.Mb @ A.T + np.diag(self.armature)

    def mass_matrix_innovations(self) -> np.ndarray:
        """``M = [I + H phi K] D [I + H phi K]*`` (Jain 2014, Eq. 59, second line)."""
        L = np.eye(self.nv) + self.H @ self.phi @ self.K
        return L @ self.D @ L.T

    def inverse_factor(self) -> np.ndarray:
        """``I - H psi K``, the inverse of ``I + H phi K`` (Jain 2014, Eq. 59, third line)."""
        return np.eye(self.nv) - self.H @ self.psi @ self.K

    def mass_matrix_inverse(self) -> np.ndarray:
        """``M^-1 = [I - H psi K]* D^-1 [I - H psi K]`` (Jain 2014, Eq. 59, fourth line)."""
        L = self.inverse_factor()
        return L.T @ np.linalg.inv(self.D) @ L

    def body_jacobians(self) -> np.ndarray:
        """``phi* H*`` (6nb x nv): block row ``i`` is body ``i``'s Jacobian at its origin in body
        coordinates (Jain 2014, Eq. 60-61 with the pick-off ``B = e_i``)."""
        return self.phi.T @ self.H.T


def operators(model: Model, q) -> SOAOperators:
    """The spatial operators of ``model`` at configuration ``q`` as dense matrices (:class:`SOAOperators`).

    Kinematics (the body transforms ``^iX_p`` and motion subspaces ``S_i(q)``) come from
    :func:`soadyn.fk`; every operator is then built from its definition (module docstring; Jain 2011,
    ch. 5-7; Jain 2014, Eq. 59-64). Cost: O(nb^2) dense 6x6 products, for analysis and tests only.
    """
    from .dynamics import fk

    data = model.data()
    fk(model, data, q)
    nb, nv = model.nb, model.nv
    parent = model.body_parent
    dofs = tuple(slice(int(model.jnt_vadr[i]), int(model.jnt_vadr[i] + model.jnt_nv[i])) for i in range(nb))
    blk = SOAOperators.block

    # ^iX_p (motion transform parent -> body i) and S_i at q
    Xup = [Transform(data.X_E[i], data.X_r[i]).matrix() for i in range(nb)]
    S = [data.S[dofs[i]].T.copy() for i in range(nb)]  # 6 x nv_i

    H = np.zeros((nv, 6 * nb))
    Mb = np.zeros((6 * nb, 6 * nb))
    E_phi = np.zeros((6 * nb, 6 * nb))
    for i in range(nb):
        H[dofs[i], blk(i)] = S[i].T
        Mb[blk(i), blk(i)] = model.body_I[i]
        if parent[i] >= 0:
            E_phi[blk(parent[i]), blk(i)] = Xup[i].T

    # phi(j, i) = phi(j, p(i)) phi(p(i), i): built root-to-leaves along each body's path
    phi = np.zeros((6 * nb, 6 * nb))
    for i in range(nb):
        phi[blk(i), blk(i)] = np.eye(6)
        p = parent[i]
        j = p
        while j >= 0:
            phi[blk(j), blk(i)] = phi[blk(j), blk(p)] @ Xup[i].T
            j = parent[j]

    # articulated-body quantities: Riccati recursion leaves to root (Jain 2011, ch. 7)
    P = np.zeros((6 * nb, 6 * nb))
    D = np.zeros((nv, nv))
    G = np.zeros((6 * nb, nv))
    K = np.zeros((6 * nb, nv))
    tau_bar = np.zeros((6 * nb, 6 * nb))
    E_psi = np.zeros((6 * nb, 6 * nb))
    Pi = [np.array(model.body_I[i], dtype=float) for i in range(nb)]
    for i in range(nb - 1, -1, -1):
        Di = S[i].T @ Pi[i] @ S[i] + np.diag(model.dof_armature[dofs[i]])
        Gi = Pi[i] @ S[i] @ np.linalg.inv(Di)
        tb = np.eye(6) - Gi @ S[i].T
        P[blk(i), blk(i)] = Pi[i]
        D[dofs[i], dofs[i]] = Di
        G[blk(i), dofs[i]] = Gi
        tau_bar[blk(i), blk(i)] = tb
        p = parent[i]
        if p >= 0:
            phi_pi = Xup[i].T  # phi(p, i)
            K[blk(p), dofs[i]] = phi_pi @ Gi
            E_psi[blk(p), blk(i)] = phi_pi @ tb
            Pi[p] = Pi[p] + phi_pi @ (tb @ Pi[i]) @ phi_pi.T  # phi(p, i) P+(i) phi(p, i)*

    # psi(j, i) = psi(j, p(i)) E_psi(p(i), i)
    psi = np.zeros((6 * nb, 6 * nb))
    for i in range(nb):
        psi[blk(i), blk(i)] = np.eye(6)
        p = parent[i]
        j = p
        while j >= 0:
            psi[blk(j), blk(i)] = psi[blk(j), blk(p)] @ E_psi[blk(p), blk(i)]
            j = parent[j]

    Hpsi = H @ psi
    Omega = Hpsi.T @ np.linalg.solve(D, Hpsi)
    return SOAOperators(H=H, phi=phi, E_phi=E_phi, Mb=Mb, P=P, D=D, G=G, K=K, tau_bar=tau_bar, E_psi=E_psi,
                        psi=psi, Omega=Omega, armature=np.array(model.dof_armature), body_dofs=dofs)
