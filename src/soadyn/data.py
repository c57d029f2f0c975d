"""Data: every workspace and output array of the algorithms for one model, allocated once
(docs/architecture.md, Model and Data). One Data per thread. Public functions return views into these
arrays, overwritten by the next call of the same stage.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    from .model import Model


class Data:
    """Workspace of a :class:`~soadyn.model.Model`; create with ``model.data()``."""

    def __init__(self, model: "Model"):
        nb, nv = model.nb, model.nv
        z = np.zeros
        self.model = model  # the model this workspace belongs to (checked by every wrapper)
        # inputs, copied here by the wrappers before each kernel call
        self.q = model.neutral_q()  # (nq,)
        self.qd = z(nv)  # (nv,)
        self.qdd_in = z(nv)  # (nv,) rnea input accelerations
        self.tau_in = z(nv)  # (nv,) aba input torques
        self.fext = z((nb, 6))  # (nb, 6) body-frame external forces
        self.fext_zero = z((nb, 6))  # (nb, 6) stays zero: the "no external force" argument
        # fk: joint and body transforms, motion subspaces, world poses, velocities
        self.X_E = z((nb, 3, 3))  # ^iX_parent, rotation
        self.X_r = z((nb, 3))  # ^iX_parent, translation
        self.S = np.array(model.dof_S)  # motion subspace columns at q (body frame; UNIVERSAL rows vary)
        self.oR = z((nb, 3, 3))  # body orientation in the world
        self.op = z((nb, 3))  # body origin in the world
        self.v = z((nb, 6))  # body spatial velocity (body frame)
        self.c = z((nb, 6))  # velocity-product acceleration v x (S qd) + Sdot qd
        self.vJ = z(6)  # scratch
        # rnea
        self.a = z((nb, 6))  # body spatial accelerations (also aba)
        self.f = z((nb, 6))  # body spatial forces
        self.tau = z(nv)  # output joint forces
        # world-frame quantities (crba, minv, osim): coordinates of the world, about its origin
        self.oS = z((nv, 6))  # motion subspaces
        self.oI = z((nb, 6, 6))  # body inertias
        self.oIA = z((nb, 6, 6))  # composite (crba) or articulated (minv, osim) inertias
        self.oU = z((nv, 6))  # U = oIA oS
        # crba
        self.M = z((nv, nv))  # joint-space inertia matrix
        # aba (articulated-body factors, reused by osim)
        self.IA = z((nb, 6, 6))  # articulated-body inertias (Jain's P)
        self.pA = z((nb, 6))  # articulated bias forces
        self.U = z((nv, 6))  # U = IA S (per dof)
        self.D = z((nb, 6, 6))  # D = S^T IA S (nv_i x nv_i blocks)
        self.Dinv = z((nb, 6, 6))  # D^-1
        self.u = z(nv)  # u = tau - S^T pA
        self.qdd = z(nv)  # output accelerations
        # minv
        self.Fm = z((nb, nv, 6))  # bias forces of the unit torques (world frame), per column
        self.Am = z((nb, nv, 6))  # accelerations of the unit torques (world frame), per column
        self.Minv = z((nv, nv))  # inverse joint-space inertia matrix
        # frames: Jacobian, pose, velocity, bias acceleration
        self.J = z((6, nv))  # frame Jacobian (world-aligned, then optionally rotated)
        self.frame_R = z((3, 3))  # last frame's world orientation
        self.frame_p = z(3)  # last frame's world position
        self.frame_v = z(6)  # last frame's spatial velocity (frame coordinates)
        self.frame_h = z(6)  # last frame's bias acceleration Jdot qd (frame coordinates)
        self.h = z((nb, 6))  # body bias accelerations (Chang-Khatib Eq. 28)
        # derivatives (soadyn.derivatives): world-frame passes of Carpentier & Mansard 2018
        self.deriv_bw = z((3, nb, 6))  # world velocity, acceleration, (composite) force per body
        self.deriv_dw = z((7, nv, 6))  # per dof: Sdot, dV/dq, dA/dq, dA/dqd, Ic S, Bc^T S, scratch
        self.deriv_B = z((nb, 6, 6))  # (composite) d(V x* I V)/dV terms
        self.dtau_dq = z((nv, nv))  # rnea partial derivatives (tangent space)
        self.dtau_dqd = z((nv, nv))
        self.dqdd_dq = z((nv, nv))  # aba partial derivatives
        self.dqdd_dqd = z((nv, nv))
        self.dJ = z((6, nv))  # frame Jacobian time variation
        # osim: operational space compliance (Jain 2014 Appendix)
        self.node_count = np.zeros(nb, dtype=np.int64)  # nodes in each subtree
        self.node_cpar = np.zeros(nb, dtype=np.int64)  # nearest node-tree vertex ancestor
        self.node_vid = np.zeros(nb, dtype=np.int64)  # node-tree vertex index (-1: not a vertex)
        self.Ups = z((nb, 6, 6))  # Upsilon(i) = Omega(i, i), Jain 2014 Eq. 68
        self.Psi = z((nb, 6, 6))  # psi products along node-tree edges
        self.node_sets = {}  # cached node descriptions, keyed by (frames, dims)
        # loops: closure constraints (soadyn.loops)
        nl, nc = model.nl, model.nc
        self.loop_R = z((nl, 3, 3))  # frame A orientations
        self.loop_p = z((nl, 3))  # frame A positions
        self.loop_Q = z((nl, 6, 6))  # constrained directions at q (universal rows vary)
        self.loop_K = z((nc, nc))  # Schur complement G_c M^-1 G_c^T
        self.loop_f = z((nb, 6))  # body forces of the multipliers
        self.loop_phi = z(nc)  # position errors
        self.loop_cv = z(nc)  # constraint velocities G_c qd
        self.loop_gamma = z(nc)  # acceleration-level violation of the free motion (+ stabilization)
        self.loop_lambda = z(nc)  # Lagrange multipliers
        self.loop_G = z((nc, nv))  # constraint Jacobian
        self.loop_info = np.zeros(2, dtype=np.int64)  # (rank of K, 1 if K was singular)
        # contact: geom world poses and the contacts of soadyn.contact.collide (capacity model.ncon_max)
        ng, K = model.ng, model.ncon_max
        self.gR = z((ng, 3, 3))  # geom orientations in the world (columns = geom axes)
        self.gp = z((ng, 3))  # geom origins in the world
        self.con_geom = np.zeros((K, 2), dtype=np.int64)  # geom pair (a, b) of each contact
        self.con_body = np.zeros((K, 2), dtype=np.int64)  # their bodies (-1 world)
        self.con_point = z((K, 3))  # world contact points
        self.con_normal = z((K, 3))  # unit normals from geom b to geom a (world)
        self.con_gap = z(K)  # signed distances (negative: penetration)
        self.con_mu = z(K)  # friction coefficients
        self.con_eps = z(K)  # restitution coefficients
        self.ncon = np.zeros(1, dtype=np.int64)  # contacts found by the last detection

    def __setattr__(self, name: str, value) -> None:
        """The arrays are allocated once for the model and handed to the kernels as they are: rebinding one
        (``data.M = np.zeros((1, 1))``) would let a kernel write out of bounds, so it is refused; write into
        the array instead (``data.M[...] = x``)."""
        old = self.__dict__.get(name)
        if isinstance(old, np.ndarray):
            raise AttributeError(f"Data.{name} is a workspace array of shape {old.shape}, owned by the Data: "
                                 f"write into it (data.{name}[...] = x) instead of rebinding it")
        if name == "model" and "model" in self.__dict__:
            raise AttributeError("Data.model cannot be rebound: create a Data with model.data()")
        object.__setattr__(self, name, value)

    def __repr__(self) -> str:
        return f"<soadyn.Data for {self.model.name!r}>"
