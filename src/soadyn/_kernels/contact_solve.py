"""The step LCP of a contact step (:mod:`.contact_sim`): the friction model's rows solved by Lemke, PGS, PPM
or a warm start from the previous step's active set, every answer checked (:func:`lcp.lcp_error` at
:data:`lcp.LCP_TOL`) before it is used; the warm-start state carried from step to step and the unsolved
problem kept for the error report; the Drumwright models' rows with the margin's speculative contacts
(:func:`drumwright_rows`)."""

import math

import numpy as np

from .._jit import inline_jit, jit, view
from .contact import (pyramid_block, pyramid_directions, pyramid_impulses, pyramid_live, pyramid_q, pyramid_scale,
                      pyramid_w)
from .drumwright import (DW_FALLBACK, DW_INFO_SIZE, DW_LCP_SIZE, DW_PIVOTS, DW_RESIDUAL, DW_TIKHONOV,
                         SOLVER_LEMKE as DW_LEMKE, SOLVER_PPM as DW_PPM, noslip_solve, viscous_solve)
from .factor import factor, solve
from .lcp import LCP_INACCURATE, LCP_OK, LCP_TOL, lcp_residual, mlcp, natural_residual
from .pgs import pgs, pyramid_sigma

PATH_NONE, PATH_WARM, PATH_LEMKE, PATH_REGULARIZED, PATH_PGS, PATH_PPM = 0, 1, 2, 3, 4, 5
"""``stat[11]``: what solved the step LCP (or, for a failed step, was tried last): no LCP; the previous
step's active set (warm start); Lemke; Lemke with the active set of a regularized run; PGS; PPM. Every
one of them checked (:func:`coulomb_rows`)."""

SOLVER_LEMKE, SOLVER_PGS, SOLVER_PPM = 0, 1, 2
"""``prm[7]``: Lemke's method, projected Gauss-Seidel (Coulomb only), the modified PPM I (Drumwright models)."""

COULOMB, VISCOUS, NO_SLIP = 0, 1, 2
"""``prm[12]``: the friction model: the Coulomb pyramid of Jain 2014 (Eq. 53), Drumwright 2015's purely
viscous friction (Sec. IV, coefficient ``prm[13]``) or no-slip (Sec. VI)."""

RANK_TOL = 1e-10
"""FIND-INDICES tolerance of the Drumwright models."""

NO_SLIP_GAP = 1e-5
"""Drumwright 2015's tangential rows (no-slip: ``v+_t = 0``, Eqs. 45-46; viscous: ``p_t = -dt mu_v v+_t``)
act whatever the normal impulse, so a contact enters the Drumwright models' step LCP when it touches (gap
below this, m) or when the step would carry it past its gap (:func:`drumwright_rows`)."""

WARM_PIVOTS = 12
"""Block solves of the warm start (:func:`pyramid_warm`) before the step falls back to Lemke."""
WARM_TIKHONOV = 1e-8
"""Regularization of the warm start's block relative to ``max |M_ij|`` (:func:`pyramid_warm`)."""

ACTIVATION_TOL = 1e-9
"""An open contact left out of the Drumwright rows whose normal row ``w = v+_n + gap / dt`` falls below
``-ACTIVATION_TOL`` times the rows' largest target would cross its gap: it joins the rows and the step is
solved again."""


@jit
def drumwright_rows(Wd, tgt, nb, k, nf, mu, con_gap, prm, lam, info, keep):
    """The step's row impulses by a Drumwright model (:func:`solve_rows`) with the speculative contacts of
    the margin: the rows of the touching contacts (gap <= :data:`NO_SLIP_GAP`) are solved first; an open
    contact whose normal row then asks it to cross its gap (``v+_n < -gap / dt``, :data:`ACTIVATION_TOL`)
    joins the rows (its tangential rows too: it touches within the step) and the step is solved again, until
    none does (at most ``k`` rounds). Open contacts that stay out get no impulse. ``info`` as
    :func:`solve_rows` (pivots summed over the rounds; the last round's size, residual and path). Returns the
    solver status."""
    nr = nb + 3 * k
    on = np.zeros(k, dtype=np.bool_)
    scale = 0.0
    for r in range(nr):
        scale = max(scale, abs(tgt[r]))
    for i in range(k):
        on[i] = con_gap[i] <= NO_SLIP_GAP
    sub = np.zeros(6)
    every = np.empty(0, dtype=np.int64)  # the subset's contacts: every pair formed
    info[:] = 0.0
    st = LCP_OK
    for _ in range(k + 1):
        ks = 0
        for i in range(k):
            if on[i]:
                ks += 1
        idx = np.empty(nb + 3 * ks, dtype=np.int64)
        for r in range(nb):
            idx[r] = r
        j = nb
        for i in range(k):
            if on[i]:
                for d in range(3):
                    idx[j + d] = nb + 3 * i + d
                j += 3
        n = idx.shape[0]
        Ws = np.empty((n, n))
        ts = np.empty(n)
        lams = np.empty(n)
        mus = np.empty(ks)
        for r in range(n):
            ts[r] = tgt[idx[r]]
            for c in range(n):
                Ws[r, c] = Wd[idx[r], idx[c]]
        for jj in range(ks):
            mus[jj] = mu[(idx[nb + 3 * jj] - nb) // 3]
        none = np.empty(0)
        st = LCP_OK
        if n > 0:
            st = solve_rows(Ws, ts, nb, ks, nf, mus, prm, lams, sub, none, False, keep, every, every, none, every)
        info[0] += sub[0]
        info[1] = max(info[1], sub[1])
        info[2] += sub[2]
        info[3] = sub[3]
        info[4] = sub[4]
        info[5] = sub[5]
        if st != LCP_OK:
            return st
        lam[:] = 0.0
        for r in range(n):
            lam[idx[r]] = lams[r]
        crossing = False
        for i in range(k):
            if on[i]:
                continue
            r = nb + 3 * i
            w = tgt[r]
            for c in range(n):
                w += Wd[r, idx[c]] * lams[c]
            if w < -ACTIVATION_TOL * scale:
                on[i] = True
                crossing = True
        if not crossing:
            break
    return st


@inline_jit
def solve_rows(Wd, tgt, nb, k, nf, mu, prm, lam, info, warm, hot, keep, cstart, cadj, scratch, iscratch):
    """Row impulses ``lam`` (loop rows; ``n, t1, t2`` per contact) for the row targets ``tgt`` (velocities +
    biases) by the friction model ``prm[12]``: the Coulomb pyramid (:func:`coulomb_rows`), or Drumwright
    2015's viscous or no-slip model on the same contact-space rows (:mod:`.drumwright`, PPM with Lemke
    fallback, or Lemke). ``info`` (float64 (6,)): pivots (PGS: sweeps), regularization, 1 if PPM or PGS
    fell back to Lemke, the LCP size solved, the answer's relative residual (:func:`lcp.lcp_error`), the
    path that solved it (``PATH_*``). ``warm``, ``hot``: the previous answer and whether to start from it
    (:func:`coulomb_rows`); ``keep``: where an unsolved problem is written (:func:`keep_lcp`); ``cstart``,
    ``cadj``: the contact pairs that couple (:func:`contact.contact_coupling`; empty: every pair); ``scratch``,
    ``iscratch``: float and int workspaces of the pyramid LCP's vectors and the warm start's block and rows
    (:func:`coulomb_rows`; what does not fit is allocated). Returns the solver status (``LCP_OK`` = 0: solved
    and checked)."""
    model = int(prm[12])
    if model == COULOMB:
        return coulomb_rows(Wd, tgt, nb, k, nf, mu, prm, lam, info, warm, hot, keep, cstart, cadj, scratch,
                            iscratch)
    dinfo = np.zeros(DW_INFO_SIZE)
    solver = DW_PPM if int(prm[7]) == SOLVER_PPM else DW_LEMKE
    cold = np.zeros(0, dtype=np.int64)
    if model == NO_SLIP:
        st = noslip_solve(Wd, tgt, nb, k, solver, int(prm[8]), prm[9], RANK_TOL, cold, lam, dinfo)
    else:
        st = viscous_solve(Wd, tgt, nb, k, np.full(k, prm[13]), prm[0], solver, int(prm[8]), prm[9], RANK_TOL,
                           cold, lam, dinfo)
    info[0] = dinfo[DW_PIVOTS]
    info[1] = dinfo[DW_TIKHONOV]
    info[2] = dinfo[DW_FALLBACK]
    info[3] = dinfo[DW_LCP_SIZE]
    info[4] = dinfo[DW_RESIDUAL]
    if solver == DW_PPM and dinfo[DW_FALLBACK] == 0.0:
        info[5] = PATH_PPM
    else:
        info[5] = PATH_LEMKE if dinfo[DW_TIKHONOV] == 0.0 else PATH_REGULARIZED
    return st


@jit
def keep_lcp(M, q, nfree, keep):
    """Write an unsolved LCP to ``keep`` (``[n, nfree, M row by row, q]``) when it has room."""
    n = q.shape[0]
    if keep.shape[0] < 2 + n * (n + 1):
        return
    keep[0] = n
    keep[1] = nfree
    for i in range(n):
        for j in range(n):
            keep[2 + i * n + j] = M[i, j]
        keep[2 + n * n + i] = q[i]


@jit
def lcp_space(nb, k, nf):
    """``(floats, ints)``: the workspaces :func:`coulomb_rows` takes for ``nb`` loop rows and ``k`` contacts
    without allocating, a warm start's block of up to ``nb + 3 k`` rows included: the LCP's vectors, the pyramid
    directions, the block's right-hand side and the block; the rows' activity, indices and pivots, the block's
    segments (:func:`.contact.pyramid_block`)."""
    n = nb + k * (nf + 2)
    nr = nb + 3 * k
    return 4 * n + 2 * nr + 3 * (nf + 1) + nr * nr, 3 * n + k + 1


@jit
def coulomb_rows(Wd, tgt, nb, k, nf, mu, prm, lam, info, warm, hot, keep, cstart, cadj, scratch, iscratch):
    """The OS LCP of Jain 2014 Eq. 53 with the friction pyramid (:func:`contact.pyramid_lcp`), every answer
    checked on the whole LCP by :func:`lcp.lcp_error` before it is used:

    * warm start (``hot``: ``warm`` holds the previous step's answer to the same contacts): its active set
      solved on this LCP without forming it (:func:`pyramid_warm`: one regularized factorization of the
      active block, corrected by block pivots; ``info[0]`` their number) and used when it passes the check
      (``PATH_WARM``): a resting contact set keeps its active set from step to step, and the LCP's matrix is
      formed only when the warm start fails;
    * ``prm[7]`` PGS: projected Gauss-Seidel on the pyramid rows (started from ``warm``), completed with
      ``sigma`` (:func:`pgs.pyramid_sigma`) and checked at :data:`lcp.LCP_TOL` (``PATH_PGS``); an answer above it
      is not used: Lemke solves the step (``info[2] = 1``);
    * the mixed LCP by Lemke after eliminating the ``nb`` free rows (polished and checked inside,
      regularized runs when ``prm[9] > 0``; ``PATH_LEMKE``, ``PATH_REGULARIZED``);
    * when Lemke ends with an answer that misses the check (``LCP_INACCURATE``: a degenerate LCP of coplanar
      contacts, a rank-deficient ``W``; a 10-box stack met one after 9 s with residual 1.3e-6), PGS started
      from it (:func:`pgs_rows`, ``PATH_PGS``, counted as a fallback: ``info[2] = 1``); on that LCP 100 sweeps
      brought the residual to 2e-7, where PGS from zero needed 1e5.

    The answer ``z`` is written to ``warm`` when it has room (empty: none kept). An unsolved LCP is written to ``keep``
    (:func:`keep_lcp`). ``info``, ``cstart``, ``cadj``, ``scratch``, ``iscratch`` as :func:`solve_rows` (sizes:
    :func:`lcp_space`)."""
    nbeta = nb + k * (nf + 1)
    n = nbeta + k
    nr = nb + 3 * k
    need = 3 * n + 2 * nr + 3 * (nf + 1)
    if scratch.shape[0] >= need:
        q, z, w, lv = view(scratch, 0, n), view(scratch, n, n), view(scratch, 2 * n, n), view(scratch, 3 * n, 2 * nr)
        cs = view(scratch, 3 * n + 2 * nr, (nf + 1, 3))
        rest = view(scratch, need, scratch.shape[0] - need)
    else:
        q, z, w, lv, cs = np.empty(n), np.empty(n), np.empty(n), np.empty(2 * nr), np.empty((nf + 1, 3))
        rest = scratch
    if iscratch.shape[0] >= 3 * n + k + 1:
        active, idx, piv = view(iscratch, 0, n), view(iscratch, n, n), view(iscratch, 2 * n, n)
        seg = view(iscratch, 3 * n, k + 1)
    else:
        active, idx, piv = np.empty(n, dtype=np.int64), np.empty(n, dtype=np.int64), np.empty(n, dtype=np.int64)
        seg = np.empty(k + 1, dtype=np.int64)
    pyramid_directions(nf, cs)
    pyramid_q(tgt, nb, k, nf, cs, q)
    ms = pyramid_scale(Wd, nb, k, nf, mu, cs)  # max |M_ij|, the scale of every check
    z[:] = 0.0
    info[:] = 0.0
    info[3] = n
    info[4] = math.inf
    st = LCP_INACCURATE
    hot = hot and warm.shape[0] >= n
    if hot and int(prm[7]) != SOLVER_PGS:
        for i in range(n):
            active[i] = 1 if warm[i] > 0.0 else 0
        info[4], solves = pyramid_warm(Wd, q, nb, k, nf, mu, cs, ms, cstart, cadj, active, idx, piv, seg, z, w, lv,
                                       rest)
        if info[4] <= LCP_TOL:
            st = LCP_OK
            info[0] = solves - 1
            info[5] = PATH_WARM
    M = view(rest, 0, (0, 0))
    if st != LCP_OK:  # the whole LCP
        M = np.empty((n, n))
        pyramid_block(Wd, nb, k, nf, mu, cs, np.arange(n), n, cstart, cadj, M, seg)
    if int(prm[7]) == SOLVER_PGS:
        if hot:
            z[:nbeta] = warm[:nbeta]
        st = pgs_rows(M, q, nb, k, nf, mu, prm, ms, z, w, info)
        if st != LCP_OK:
            info[2] = 1.0
    if st != LCP_OK:
        linfo = np.zeros(4)
        st = live_lemke(Wd, M, q, nb, k, nf, mu, cs, ms, prm, cstart, cadj, idx, seg, z, w, linfo)
        info[0] += linfo[0]
        info[1] = linfo[1]
        info[4] = linfo[2]
        info[5] = PATH_LEMKE if linfo[1] == 0.0 else PATH_REGULARIZED
        if st == LCP_INACCURATE and int(prm[7]) != SOLVER_PGS:
            # Lemke ended with an answer that misses the check (a degenerate LCP of coplanar contacts): PGS
            # from it (not after a pivot limit or another failure, which the step reports)
            lemke_status, pivots = st, info[0]
            st = pgs_rows(M, q, nb, k, nf, mu, prm, ms, z, w, info)
            info[0] += pivots
            info[2] = 1.0
            if st != LCP_OK:
                st = lemke_status
    if st != LCP_OK:
        keep_lcp(M, q, nb, keep)
        return st
    if warm.shape[0] >= n:
        warm[:n] = z
    pyramid_impulses(z, nb, k, nf, cs, lam)
    return LCP_OK


@jit
def live_lemke(Wd, M, q, nb, k, nf, mu, cs, ms, prm, cstart, cadj, idx, seg, z, w, info):
    """The pyramid LCP ``M z + q`` (:func:`coulomb_rows`) solved by Lemke (:func:`lcp.mlcp`, ``prm[8]``
    pivots, regularized runs from ``prm[9]``), first without the dominated friction directions
    (:func:`.contact.pyramid_live`; ``z = 0`` there) when a contact has any, its answer checked on the whole
    LCP; the whole LCP when that answer misses the check. ``w`` written, ``info`` as :func:`lcp.mlcp` (pivots
    of both runs; the residual on the whole LCP). ``idx`` (n,), ``seg`` (k + 1,): int scratch. Returns the
    solver status."""
    n = q.shape[0]
    m = pyramid_live(Wd, nb, k, nf, cs, ms, idx)
    pivots = 0.0
    if m < n:
        A = np.empty((m, m))
        pyramid_block(Wd, nb, k, nf, mu, cs, idx, m, cstart, cadj, A, seg)
        ql, zl, wl = np.empty(m), np.empty(m), np.empty(m)
        for a in range(m):
            ql[a] = q[idx[a]]
        st = mlcp(A, ql, nb, int(prm[8]), prm[9], zl, wl, info)
        z[:] = 0.0
        for a in range(m):
            z[idx[a]] = zl[a]
        info[2] = lcp_residual(M, q, nb, z, w, ms)
        if st == LCP_OK and info[2] <= LCP_TOL:
            return LCP_OK
        pivots = info[0]
    st = mlcp(M, q, nb, int(prm[8]), prm[9], z, w, info)
    info[0] += pivots
    return st


@jit
def pyramid_warm(Wd, q, nb, k, nf, mu, cs, ms, cstart, cadj, active, idx, piv, seg, z, w, lv, scratch):
    """A warm start on the LCP of :func:`pyramid_lcp` without forming ``M``: the free rows and the rows with
    ``active[i]`` (on entry the previous step's positive ``z``) solved on their block (:func:`pyramid_block`;
    ``cs``: :func:`pyramid_directions`; ``cstart``, ``cadj``: the contacts that couple,
    :func:`contact_coupling`), then checked: ``w = M z + q`` from the structure (:func:`pyramid_w`) and the
    residual of :func:`lcp.lcp_error` with the scale ``ms = max |M_ij|`` (:func:`pyramid_scale`).

    An answer that misses the check corrects its active set by block principal pivoting (Judice and Pires
    1994): the active rows with ``z_i < 0`` leave, the others with ``w_i < 0`` enter (each by more than the
    check allows), and the block is solved again, at most :data:`WARM_PIVOTS` times. The block is solved with
    ``WARM_TIKHONOV ms`` added to its diagonal: the face of a box has four coplanar contacts whose normal rows
    have rank three, and the regularized block gives the least-norm impulses, all four corners loaded; that
    answer carries over from step to step, where one of the many vertex answers (three corners, the centre
    of pressure on the diagonal of two) flips with round-off. The regularization adds
    ``WARM_TIKHONOV ms |z|`` to a row's residual and is checked with it. Without a ``sigma`` row (no sliding
    contact) the regularized block is symmetric positive definite: Cholesky on its envelope, the
    contacts of a stack or a pile coupling only with their neighbours (:func:`.factor.factor`).

    The block and its right-hand side are formed in ``scratch`` when they fit (a resting pile's block of some
    100 rows, allocated and freed every step, cost as much as its factorization); ``active`` (n,): 1 for an
    active row; ``idx``, ``piv`` (n,), ``seg`` (k + 1,): int scratch; ``lv`` (2 nr): the scratch of
    :func:`.contact.pyramid_w`.
    Returns the relative residual (``inf`` when a block is singular) and the number of block solves (``z``,
    ``w``, ``active`` written)."""
    nbeta = nb + k * (nf + 1)
    n = nbeta + k
    qs = 0.0
    for i in range(n):
        qs = max(qs, abs(q[i]))
    b = view(scratch, 0, n) if n <= scratch.shape[0] else np.empty(n)
    r = math.inf
    solves = 0
    while solves < WARM_PIVOTS:
        solves += 1
        m = 0
        for i in range(n):
            if i < nb or active[i]:
                idx[m] = i
                m += 1
        A = view(scratch, n, (m, m)) if n + m * m <= scratch.shape[0] else np.empty((m, m))
        pyramid_block(Wd, nb, k, nf, mu, cs, idx, m, cstart, cadj, A, seg)
        for a in range(m):
            A[a, a] += WARM_TIKHONOV * ms
        spd = m == 0 or idx[m - 1] < nbeta  # no sigma row
        if not factor(A, piv[:m], spd):
            z[:] = 0.0
            return math.inf, solves
        for a in range(m):
            b[a] = -q[idx[a]]
        solve(A, piv[:m], spd, b[:m])
        z[:] = 0.0
        for a in range(m):
            z[idx[a]] = b[a]
        pyramid_w(Wd, q, nb, k, nf, mu, cs, cstart, cadj, z, w, lv)
        r = natural_residual(q, nb, z, w, ms)
        if r <= LCP_TOL:
            return r, solves
        tol = LCP_TOL * qs  # a row within this does not fail the check
        changed = False
        for i in range(nb, n):
            if active[i] and ms * z[i] < -tol:
                active[i] = 0
                changed = True
            elif not active[i] and w[i] < -tol:
                active[i] = 1
                changed = True
        if not changed:
            break
    return r, solves


@jit
def pgs_rows(M, q, nb, k, nf, mu, prm, ms, z, w, info):
    """PGS on the pyramid rows of the LCP of :func:`contact.pyramid_lcp` (``M``, ``q``; ``ms = max |M_ij|``)
    from ``z`` (``prm[10]`` sweeps to the tolerance ``prm[11]``), ``sigma`` completed
    (:func:`pgs.pyramid_sigma`) and the answer checked at :data:`lcp.LCP_TOL`: ``info[0]`` the sweeps,
    ``info[4]`` the residual, ``info[5] = PATH_PGS``. Returns ``LCP_OK`` or ``LCP_INACCURATE``."""
    nbeta = nb + k * (nf + 1)
    A = np.ascontiguousarray(M[:nbeta, :nbeta])
    b = np.ascontiguousarray(q[:nbeta])
    zb = np.ascontiguousarray(z[:nbeta])
    pinfo = np.zeros(4)
    pgs(A, b, nb, k, nf, mu, int(prm[10]), prm[11], zb, pinfo)
    z[:nbeta] = zb
    pyramid_sigma(M, q, nb, k, nf, z, w)
    info[0] = pinfo[0]
    info[4] = lcp_residual(M, q, nb, z, w, ms)
    info[5] = PATH_PGS
    return LCP_OK if info[4] <= LCP_TOL else LCP_INACCURATE


@jit
def failed(stat, st, info):
    """The statistics of a step whose LCP (``info`` of :func:`solve_rows`) was not solved: its status in
    ``stat[3]``, size, residual and the path tried in ``stat[2]``, ``stat[10]``, ``stat[11]``."""
    stat[3] = st
    stat[2] = info[3]
    stat[10] = info[4]
    stat[11] = info[5]


@jit
def warm_size(nbr, ncon, nf):
    """Length of the warm-start state of :func:`contact_step` for ``nbr`` loop rows and ``ncon`` contacts:
    ``[contacts of the last answer (-1: none), their geom pairs (2 ncon), the answer (nbr + ncon (nf + 2))]``."""
    return 1 + 2 * ncon + nbr + ncon * (nf + 2)


@jit
def same_contacts(warm, k, con_geom):
    """Whether the last step's answer in ``warm`` was for the same ``k`` contacts (the same geom pairs in the
    same order), so that its active set applies row by row."""
    if warm.shape[0] == 0 or warm[0] != k:
        return False
    for i in range(k):
        if warm[1 + 2 * i] != con_geom[i, 0] or warm[2 + 2 * i] != con_geom[i, 1]:
            return False
    return True


@jit
def keep_contacts(warm, k, con_geom):
    """Record the contacts of the answer just written to ``warm``."""
    if warm.shape[0] == 0:
        return
    warm[0] = k
    for i in range(k):
        warm[1 + 2 * i] = con_geom[i, 0]
        warm[2 + 2 * i] = con_geom[i, 1]
