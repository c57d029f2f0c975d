"""Data: every workspace and output array of the algorithms for one model, allocated once
(docs/architecture.md, Model and Data). One Data per thread. Public functions return views into these
arrays, overwritten by the next call of the same stage.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from ._kernels import layout

if TYPE_CHECKING:
    from .model import Model


class Data:
    """Workspace of a :class:`~soadyn.model.Model`; create with ``model.data()``."""

    def __init__(self, model: "Model"):
        self.model = model  # the model this workspace belongs to (checked by every wrapper)
        # every array below is a view of data_int or data_float, at the offsets the model's header gives
        # (soadyn._kernels.layout.DATA_FLOAT, DATA_INT, in this order); kernels take the two buffers.
        di, df, views = layout.data_views(model.model_int, model.sizes)
        self.data_int = di  # every int64 array, packed
        self.data_float = df  # every float64 array, packed
        for name, a in views.items():
            object.__setattr__(self, name, a)
        # inputs, copied here by the wrappers that need a state in Data:
        #   q (nq,), qd (nv,), qdd_in (nv,) rnea input accelerations, tau_in (nv,) aba input torques,
        #   fext (nb, 6) body-frame external forces, fext_zero (nb, 6) stays zero: "no external force"
        self.q[:] = model.neutral_q()
        # fk: X_E, X_r (nb, 3, 3), (nb, 3) ^iX_parent; S (nv, 6) motion subspaces at q (body frame; UNIVERSAL
        #   rows vary); oR, op (nb, 3, 3), (nb, 3) world poses; v (nb, 6) body spatial velocities; c (nb, 6)
        #   velocity-product accelerations v x (S qd) + Sdot qd; vJ (6,) scratch
        self.S[:] = model.dof_S
        # rnea: a (nb, 6) body accelerations (also aba), f (nb, 6) body forces, tau (nv,) output
        # world-frame quantities (crba, minv, osim), world coordinates about its origin: oS (nv, 6) motion
        #   subspaces, oI (nb, 6, 6) body inertias, oIA (nb, 6, 6) composite (crba) or articulated (minv,
        #   osim) inertias, oU (nv, 6) = oIA oS
        # crba: M (nv, nv)
        # aba (articulated-body factors, reused by osim): IA (nb, 6, 6) articulated inertias (Jain's P),
        #   pA (nb, 6) bias forces, U (nv, 6) = IA S per dof, D, Dinv (nb, 6, 6) nv_i x nv_i blocks of
        #   S^T IA S and its inverse, u (nv,) = tau - S^T pA, qdd (nv,) output
        # minv: Fm, Am (nb, 6, nv) bias forces and accelerations of the unit torques (world frame), column k
        #   of body i's block at [i, :, k]; Minv (nv, nv) output; Wk (6, nv) scratch
        # frames: J (6, nv) Jacobian; frame_R (3, 3), frame_p (3,), frame_v (6,), frame_h (6,) the last
        #   frame's world pose, spatial velocity and bias acceleration Jdot qd (frame coordinates);
        #   h (nb, 6) body bias accelerations (Chang-Khatib Eq. 28)
        # derivatives (soadyn.derivatives), world-frame passes of Carpentier & Mansard 2018: deriv_bw (3, nb, 6)
        #   world velocity, acceleration, (composite) force per body; deriv_dw (7, nv, 6) per dof: Sdot, dV/dq,
        #   dA/dq, dA/dqd, Ic S, Bc^T S, scratch; deriv_B (nb, 6, 6) (composite) d(V x* I V)/dV terms;
        #   dtau_dq, dtau_dqd (nv, nv) rnea partials (tangent space); dqdd_dq, dqdd_dqd (nv, nv) aba partials;
        #   dJ (6, nv) frame Jacobian time variation
        # osim (Jain 2014 Appendix): node_count, node_cpar, node_vid (nb,) int: nodes in each subtree,
        #   nearest node-tree vertex ancestor, vertex index (-1: none); Ups (nb, 6, 6) Upsilon(i) =
        #   Omega(i, i) (Jain 2014 Eq. 68); Psi (nb, 6, 6) psi products along node-tree edges
        self.node_sets = {}  # cached node descriptions, keyed by (frames, dims)
        # loops (soadyn.loops), nl loops with nc rows: loop_R (nl, 3, 3), loop_p (nl, 3) frame A poses;
        #   loop_Q (nl, 6, 6) constrained directions at q; loop_K (nc, nc) Schur complement G M^-1 G^T;
        #   loop_f (nb, 6) body forces of the multipliers; loop_phi, loop_cv, loop_gamma, loop_lambda (nc,)
        #   position errors, constraint velocities, acceleration-level violation, multipliers;
        #   loop_G (nc, nv) constraint Jacobian; loop_info (2,) int (rank of K, 1 if K was singular)
        # contact (capacity K = model.ncon_max): gR (ng, 3, 3), gp (ng, 3) geom world poses (columns = geom
        #   axes); con_geom, con_body (K, 2) int geom pair (a, b) and their bodies (-1 world); con_point,
        #   con_normal (K, 3) world points and unit normals from b to a; con_gap (K,) signed distances;
        #   con_mu, con_eps (K,) friction and restitution; ncon (1,) int contacts of the last detection
        # scratch (4, 6, 6): kernel scratch space

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
