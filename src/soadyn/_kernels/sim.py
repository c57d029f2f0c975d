"""Time stepping: configuration integration, the configuration rate, energies and whole rollouts in one
kernel call (DESIGN section 4)."""

import numpy as np

from .._jit import jit
from .joints import BAD_IN, OK, SPHERICAL, FREE, all_finite, check_q, integrate_joint, joint_qdot, normalize_quat
from .frames import body_world_poses
from .tree import aba_core, check_state, tree_positions, tree_velocities
from .spatial import mul6

SEMI_IMPLICIT, RK4 = 0, 1


@jit
def integrate_config(jtype, qadr, vadr, axis, axis2, q, v, dt, out, R):
    """out = q (+) v dt, joint by joint (:func:`joints.integrate_joint`)."""
    for i in range(jtype.shape[0]):
        integrate_joint(jtype[i], axis[i], axis2[i], q, qadr[i], v, vadr[i], dt, out, R)


@jit
def config_rate(jtype, qadr, vadr, q, v, out, R):
    """out = dq/dt for the velocity ``v`` (the map qd -> qdot, joint by joint)."""
    for i in range(jtype.shape[0]):
        joint_qdot(jtype[i], q, qadr[i], v, vadr[i], out, R)


@jit
def normalize_config(jtype, qadr, q):
    for i in range(jtype.shape[0]):
        if jtype[i] == SPHERICAL:
            normalize_quat(q, qadr[i])
        elif jtype[i] == FREE:
            normalize_quat(q, qadr[i] + 3)


@jit
def rollout(parent, jtype, qadr, vadr, jnv, axis, axis2, pitch, XT_E, XT_r, I, S0,
            q0, qd0, tau, fext, a0, dt, method,
            XJ_E, XJ_r, X_E, X_r, S, v, c, IA, pA, U, D, Dinv, u, a,
            Q, QD):
    """Integrate ``nsteps = tau.shape[0]`` steps of the tree dynamics from ``(q0, qd0)`` with joint forces
    ``tau[n]`` during step ``n``, writing states ``Q[n], QD[n]`` for ``n = 0..nsteps``.
    ``method`` SEMI_IMPLICIT: ``qd' = qd + dt qdd(q, qd)``, ``q' = q (+) qd' dt`` (symplectic Euler on the
    joint manifolds); RK4: classical Runge-Kutta on ``(q, qd)`` with ``dq/dt`` from :func:`config_rate`
    and quaternions renormalized after each step. Returns ``OK``, or a status with the failing step in
    ``Q``'s row count left unwritten (the caller reads the step from the returned code's high bits)."""
    st = check_state(jtype, qadr, q0, qd0)
    if st != OK:
        return st
    if not all_finite(tau) or not all_finite(fext):
        return BAD_IN
    nq = q0.shape[0]
    nv = qd0.shape[0]
    T = np.empty((3, 6, 6))
    R = np.empty((3, 3))
    Q[0] = q0
    QD[0] = qd0
    qdd = np.empty(nv)
    if method == RK4:
        qs = np.empty(nq)
        vs = np.empty(nv)
        kq = np.empty((4, nq))
        kv = np.empty((4, nv))
    for n in range(tau.shape[0]):
        q = Q[n]
        qd = QD[n]
        if method == SEMI_IMPLICIT:
            st = aba_core(parent, jtype, qadr, vadr, jnv, axis, axis2, pitch, XT_E, XT_r, I, S0, q, qd, tau[n],
                          fext, a0, XJ_E, XJ_r, X_E, X_r, S, v, c, IA, pA, U, D, Dinv, u, a, qdd, T)
            if st != OK:
                return st | ((n + 1) << 40)
            for k in range(nv):
                QD[n + 1, k] = qd[k] + dt * qdd[k]
            integrate_config(jtype, qadr, vadr, axis, axis2, q, QD[n + 1], dt, Q[n + 1], R)
        else:
            for stage in range(4):
                h = 0.0 if stage == 0 else (dt if stage == 3 else 0.5 * dt)
                for k in range(nq):
                    qs[k] = q[k] + h * kq[stage - 1, k] if stage > 0 else q[k]
                for k in range(nv):
                    vs[k] = qd[k] + h * kv[stage - 1, k] if stage > 0 else qd[k]
                normalize_config(jtype, qadr, qs)
                st = aba_core(parent, jtype, qadr, vadr, jnv, axis, axis2, pitch, XT_E, XT_r, I, S0, qs, vs,
                              tau[n], fext, a0, XJ_E, XJ_r, X_E, X_r, S, v, c, IA, pA, U, D, Dinv, u, a,
                              kv[stage], T)
                if st != OK:
                    return st | ((n + 1) << 40)
                config_rate(jtype, qadr, vadr, qs, vs, kq[stage], R)
            for k in range(nq):
                Q[n + 1, k] = q[k] + dt / 6.0 * (kq[0, k] + 2.0 * kq[1, k] + 2.0 * kq[2, k] + kq[3, k])
            for k in range(nv):
                QD[n + 1, k] = qd[k] + dt / 6.0 * (kv[0, k] + 2.0 * kv[1, k] + 2.0 * kv[2, k] + kv[3, k])
            normalize_config(jtype, qadr, Q[n + 1])
        if not (all_finite(Q[n + 1]) and all_finite(QD[n + 1])):
            return BAD_IN | ((n + 1) << 40)
    return OK


@jit
def energies(parent, jtype, qadr, vadr, jnv, axis, axis2, pitch, XT_E, XT_r, I, S0,
             Q, QD, gravity,
             XJ_E, XJ_r, X_E, X_r, S, v, c, oR, op,
             E):
    """Kinetic ``sum 1/2 v_i^T I_i v_i``, potential ``-sum m_i g . c_i`` (world centre of mass) and total
    energy for each state (rows of Q, QD) into ``E`` (K, 3)."""
    tmp = np.empty(6)
    for s in range(Q.shape[0]):
        st = check_q(jtype, qadr, Q[s])
        if st != OK:
            return st
        tree_positions(parent, jtype, qadr, vadr, axis, axis2, pitch, XT_E, XT_r, S0, Q[s], XJ_E, XJ_r, X_E, X_r, S)
        tree_velocities(parent, jtype, vadr, jnv, axis2, X_E, X_r, S, QD[s], v, c, tmp)
        kin = 0.0
        pot = 0.0
        body_world_poses(parent, X_E, X_r, oR, op)
        for i in range(parent.shape[0]):
            mul6(I[i], v[i], tmp)
            for m in range(6):
                kin += 0.5 * v[i, m] * tmp[m]
            mass = I[i, 3, 3]
            # m c = (I[2,4], I[0,5], I[1,3]) from the m c~ block
            mc0, mc1, mc2 = I[i, 2, 4], I[i, 0, 5], I[i, 1, 3]
            for m in range(3):
                wc = mass * op[i, m] + oR[i, m, 0] * mc0 + oR[i, m, 1] * mc1 + oR[i, m, 2] * mc2
                pot -= gravity[m] * wc
        E[s, 0] = kin
        E[s, 1] = pot
        E[s, 2] = kin + pot
    return OK
