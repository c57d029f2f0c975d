"""Batches: the ABA and the RNEA over K states in one kernel call, in parallel over threads (``prange``
over chunks of states). The chunks' Data buffers are rows of one workspace allocated once per call and
not zeroed: the passes write every entry they read (the motion subspaces are copied in from the Model).
"""

import numpy as np

from .._jit import parallel_jit, prange
from .articulated import aba_passes
from .joints import BAD_IN, NOT_FINITE, OK, all_finite
from .kinematics import check_state, tree_positions, tree_velocities
from .layout import DATA_FLOAT_SIZE, F, NB, NV, SCRATCH, data_aba, data_kinematics, dfield, model_extras, model_tree
from .tree import rnea_passes


@parallel_jit
def aba_batch(model_int, model_float, Q, QD, TAU, nchunks, QDD, status):
    """ABA over K states (rows of ``Q``, ``QD``, ``TAU``) without external forces, in ``nchunks`` parallel
    chunks. Outputs ``QDD`` (K, nv) and per-state ``status`` (K,). Each state runs the passes of
    :func:`articulated.aba_core` called one by one, as :func:`rnea_batch` calls its passes: a call of
    ``aba_core`` itself passes its 32 arguments once more per state."""
    (body_parent, jnt_type, jnt_qadr, jnt_vadr, jnt_nv, jnt_axis, jnt_axis2, jnt_pitch, body_Xtree_E, body_Xtree_r,
     body_I, dof_S, dof_armature) = model_tree(model_int, model_float)
    gravity_accel = model_extras(model_int, model_float)[1]
    K = Q.shape[0]
    fext = np.zeros((model_int[NB], 6))
    work = np.empty((nchunks, model_int[DATA_FLOAT_SIZE]))
    for ch in prange(nchunks):
        data_float = work[ch]
        X_E, X_r, S, v, c, oR, op = data_kinematics(model_int, data_float)
        IA, pA, U, D, Dinv, u, a = data_aba(model_int, data_float)
        S[:] = dof_S
        T = dfield(model_int, data_float, SCRATCH, (4, 6, 6))
        for s in range(ch * K // nchunks, (ch + 1) * K // nchunks):
            st = check_state(jnt_type, jnt_qadr, Q[s], QD[s])
            if st == OK and not all_finite(TAU[s]):
                st = BAD_IN
            if st == OK:
                tree_positions(body_parent, jnt_type, jnt_qadr, jnt_vadr, jnt_axis, jnt_axis2, jnt_pitch, body_Xtree_E,
                               body_Xtree_r, dof_S, Q[s], X_E, X_r, S)
                tree_velocities(body_parent, jnt_type, jnt_vadr, jnt_nv, jnt_axis2, X_E, X_r, S, QD[s], v, c, T[2, 1])
                st = aba_passes(body_parent, jnt_type, jnt_vadr, jnt_nv, jnt_axis, dof_armature, body_I, X_E, X_r, S,
                                v, c, TAU[s], fext, gravity_accel, IA, pA, U, D, Dinv, u, a, QDD[s], T)
            if st == OK and not all_finite(QDD[s]):
                st = NOT_FINITE
            status[s] = st


@parallel_jit
def rnea_batch(model_int, model_float, Q, QD, QDD, nchunks, TAU, status):
    """RNEA over K states in parallel (see :func:`aba_batch`). Output ``TAU`` (K, nv)."""
    (body_parent, jnt_type, jnt_qadr, jnt_vadr, jnt_nv, jnt_axis, jnt_axis2, jnt_pitch, body_Xtree_E, body_Xtree_r,
     body_I, dof_S, dof_armature) = model_tree(model_int, model_float)
    gravity_accel = model_extras(model_int, model_float)[1]
    K = Q.shape[0]
    nb = model_int[NB]
    fext = np.zeros((nb, 6))
    work = np.empty((nchunks, model_int[DATA_FLOAT_SIZE]))
    for ch in prange(nchunks):
        data_float = work[ch]
        X_E, X_r, S, v, c, oR, op = data_kinematics(model_int, data_float)
        IA, pA, U, D, Dinv, u, a = data_aba(model_int, data_float)
        f = dfield(model_int, data_float, F, (nb, 6))
        S[:] = dof_S
        tmp = dfield(model_int, data_float, SCRATCH, (4, 6, 6))[0, 0]
        for s in range(ch * K // nchunks, (ch + 1) * K // nchunks):
            st = check_state(jnt_type, jnt_qadr, Q[s], QD[s])
            if st == OK and not all_finite(QDD[s]):
                st = BAD_IN
            if st == OK:
                tree_positions(body_parent, jnt_type, jnt_qadr, jnt_vadr, jnt_axis, jnt_axis2, jnt_pitch, body_Xtree_E,
                               body_Xtree_r, dof_S, Q[s], X_E, X_r, S)
                tree_velocities(body_parent, jnt_type, jnt_vadr, jnt_nv, jnt_axis2, X_E, X_r, S, QD[s], v, c, tmp)
                rnea_passes(body_parent, jnt_vadr, jnt_nv, dof_armature, body_I, X_E, X_r, S, v, c, QDD[s], fext, gravity_accel, a, f,
                            TAU[s], tmp)
                if not all_finite(TAU[s]):
                    st = NOT_FINITE
            status[s] = st
