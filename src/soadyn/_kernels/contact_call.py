"""The contact simulator's kernel calls: a rollout of contact steps (:func:`.contact_sim.contact_step`) from
a start state, and the one step of ``Simulator.step``, which takes the simulator's buffers packed in three
arrays so that a call from Python unboxes few (docs/architecture.md, Kernels)."""

import math

import numpy as np

from .._jit import borrow, jit, view
from .contact_motion import NSTAT, max_penetration
from .contact_sim import NPRM, PENETRATED, contact_step, solver_space, step_scratch, step_space
from .joints import OK, all_finite, check_q
from .kinematics import BAD_ARRAY, check_state, vector_ready
from .layout import DATA_FLOAT_SIZE, DATA_INT_SIZE, NB, NC, NG, NQ, NV, model_tree
from .sim import DIVERGED, STEP_SHIFT, step_inputs


@jit
def contact_rollout(mi, mf, df, di, settings, tau, fext, q0, qd0, Q, QD, stats, warm, keep, ws, wi):
    """``nsteps = Q.shape[0]`` contact steps (:func:`.contact_sim.contact_step`) of the model ``(mi, mf)`` with Data
    ``(df, di)`` from ``(q0, qd0)``, writing the state after step ``n`` to ``Q[n], QD[n]`` and its statistics to
    ``stats[n]``. ``settings``: the parameters ``prm`` (:data:`.contact_sim.NPRM`, :mod:`.contact_sim`), then the geoms'
    margins widened by the settings' (ng,); ``tau`` (ntau, nv), ``fext`` (nfext, nb, 6): row ``n`` for step ``n`` or one
    constant row. ``warm`` (2 nw): the warm-start state (:func:`.contact_solve.warm_size`; ``warm[0] = -1``: none yet),
    carried through the steps and left with the last answer (a later call goes on warm), then a copy of it as the call
    found it (a failed call is run again from that). ``keep``: where a failing step writes its unsolved LCP
    (:func:`.contact_solve.keep_lcp`; empty: not kept). ``ws``, ``wi``: the float and int workspaces
    (:func:`.contact_sim.step_space`, then in ``ws`` :func:`.contact_sim.solver_space`; kept by a caller that steps
    again: a step allocates only what does not fit, the solver's part grown here with the steps' rows). Returns ``OK``,
    the status of a bad start state (``BAD_ARRAY``: ``q0`` or ``qd0`` not a contiguous vector of the model's length; no
    step shift), or a status ``| (n + 1) << STEP_SHIFT`` for the failing step ``n`` (``Q[:n]`` valid, ``stats[n]`` that
    of the failed step, nothing written after)."""
    # the arguments without their reference counts (the caller holds them; the Model and Data fields are
    # views, which hold none): the passes and per-body helpers below update no reference count atomically
    (settings, tau, fext, q0, qd0, Q, QD, stats, warm, keep, ws, wi) = (
        borrow(settings), borrow(tau), borrow(fext), borrow(q0), borrow(qd0), borrow(Q), borrow(QD), borrow(stats),
        borrow(warm), borrow(keep), borrow(ws), borrow(wi))
    jnt_type, jnt_qadr = model_tree(mi, mf)[1:3]
    prm, geom_margin = view(settings, 0, NPRM), view(settings, NPRM, mi[NG])
    nw = warm.shape[0] // 2
    warm[nw:] = warm[:nw]
    warm = view(warm, 0, nw)
    if not (vector_ready(q0, mi[NQ]) and vector_ready(qd0, mi[NV])):
        return BAD_ARRAY
    st = check_state(jnt_type, jnt_qadr, q0, qd0)
    if st != OK:
        return st
    nfloat, nint = step_space(mi, mf, int(prm[1]))
    if ws.shape[0] < nfloat or wi.shape[0] < nint:
        ws, wi = np.empty(nfloat), np.empty(nint, dtype=np.int64)
        ws[0] = 0.0  # no memo
    wl = view(ws, nfloat, ws.shape[0] - nfloat)
    nsteps = Q.shape[0]
    for n in range(nsteps):
        st, tau_n, fext_n = step_inputs(tau, fext, n)
        if st != OK:
            return st
        q, qd = (q0, qd0) if n == 0 else (Q[n - 1], QD[n - 1])
        st = contact_step(mi, mf, df, di, geom_margin, prm, q, qd, tau_n, fext_n, Q[n], QD[n], stats[n], warm, keep,
                          ws, wi, wl)
        need = solver_space(mi[NC], int(stats[n, 0]), int(prm[1]))
        if need > wl.shape[0]:
            wl = np.empty(need)
        if n > 0 and stats[n, 7] > prm[16]:  # step n - 1 left this penetration
            return PENETRATED | (n << STEP_SHIFT)
        if st != OK:
            return st | ((n + 1) << STEP_SHIFT)
        if not (all_finite(Q[n]) and all_finite(QD[n])):
            return DIVERGED | ((n + 1) << STEP_SHIFT)
        if check_q(jnt_type, jnt_qadr, Q[n]) != OK:
            return DIVERGED | ((n + 1) << STEP_SHIFT)
    if nsteps > 0 and math.isfinite(prm[16]):
        memo, cf, ci = step_scratch(mi, mf, ws, wi)
        depth = max_penetration(mi, mf, df, di, geom_margin, Q[nsteps - 1], memo, cf, ci)
        if depth > prm[16]:
            return PENETRATED | (nsteps << STEP_SHIFT)
    return OK


@jit
def contact_one_step(mi, mf, fbuf, ibuf, one, q, qd, qn, qdn):
    """One contact step (:func:`contact_rollout` of one step) of the model ``(mi, mf)`` from ``(q, qd)`` to
    ``(qn, qdn)``, the call of ``Simulator.step``. ``fbuf``: the Data's floats (``mi[DATA_FLOAT_SIZE]``), the
    ``settings`` (``NPRM + ng``), then ``ws``; ``ibuf``: the Data's ints (``mi[DATA_INT_SIZE]``), then ``wi``;
    ``one``: the simulator's one-step rows ``tau`` (nv), ``fext`` (nb, 6), the step's start state and the next
    (2 nq, 2 nv: the rows ``Q1``, ``QD1``), its statistics (``NSTAT``), then ``warm``. Nothing is kept of an
    unsolved LCP. Returns the status of :func:`contact_rollout`."""
    ndf, ndi = mi[DATA_FLOAT_SIZE], mi[DATA_INT_SIZE]
    nset = NPRM + mi[NG]
    nq, nv, nb = mi[NQ], mi[NV], mi[NB]
    o = nv + 6 * nb + 2 * nq + 2 * nv
    df, di, settings = view(fbuf, 0, ndf), view(ibuf, 0, ndi), view(fbuf, ndf, nset)
    ws, wi = view(fbuf, ndf + nset, fbuf.shape[0] - ndf - nset), view(ibuf, ndi, ibuf.shape[0] - ndi)
    tau, fext = view(one, 0, (1, nv)), view(one, nv, (1, nb, 6))
    stats, warm = view(one, o, (1, NSTAT)), view(one, o + NSTAT, one.shape[0] - o - NSTAT)
    return contact_rollout(mi, mf, df, di, settings, tau, fext, q, qd, view(qn, 0, (1, nq)), view(qdn, 0, (1, nv)),
                           stats, warm, view(fbuf, 0, 0), ws, wi)
