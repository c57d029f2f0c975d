"""The contact side of :class:`soadyn.sim.Simulator`: settings checks, the rollout kernel call, per-step
statistics and failure reports (the kernels: :mod:`soadyn._kernels.contact_call`)."""

from __future__ import annotations

import numpy as np

from .._jit import EntryPoint
from .._kernels import contact_call as _kcc
from .._kernels import contact_sim as _kc
from .._kernels import contact_solve as _ks
from .._kernels import lcp as _kl
from .settings import ContactSettings

__all__ = ["CONTACT_STATS", "CONTACT_CODES", "STAT_COLUMNS", "PATHS", "LCP_FAILED", "contact_options",
           "ContactCall", "one_step_rows", "contact_kernel", "contact_columns", "contact_record", "contact_failure",
           "warm_state", "restore_warm", "keep_buffer", "kept_problem"]

CONTACT_STATS = _kc.NSTAT
STAT_COLUMNS = ("contacts", "active", "lcp_size", "pivots", "collision_pivots", "collision", "regularization",
                "penetration", "fallbacks", "energy_gain", "residual", "path")
"""Columns of ``Trajectory.contact_stats`` (one row per step): contacts detected, active contacts
(``F_n > 0``), the step LCP's size, its pivots (PGS: sweeps; warm start: block pivots, at most 3), the collision LCPs'
pivots, collision phases, the Tikhonov regularization whose active set was used (0: none), the largest
penetration at the step's start (m), fallbacks to Lemke (PPM or PGS answers that failed), the kinetic
energy the impulses added (J), ``residual``: the largest relative residual of the step's LCP answers
(:func:`soadyn._kernels.lcp.lcp_error`, each at most :data:`soadyn.lcp.LCP_TOL` before it is applied),
``path``: what solved the step LCP (a code of :data:`PATHS`)."""
PATHS = {_ks.PATH_NONE: "none", _ks.PATH_WARM: "warm", _ks.PATH_LEMKE: "lemke",
         _ks.PATH_REGULARIZED: "regularized", _ks.PATH_PGS: "pgs", _ks.PATH_PPM: "ppm"}
"""``path`` code -> name: no LCP (no contact); ``"warm"``, the previous step's active set solved on this
step's LCP (same contacts); ``"lemke"``; ``"regularized"``, the active set of a Lemke run on ``M + eps I``,
solved on ``M``; ``"pgs"``; ``"ppm"`` (Drumwright models). Every answer is checked on the LCP it solves."""
LCP_FAILED = _kc.LCP_FAILED
CONTACT_CODES = (_kc.LCP_FAILED, _kc.TOO_MANY_CONTACTS, _kc.PENETRATED, _kc.ENERGY_GAINED)
LCP_STATUS = {_kl.LCP_RAY: "ray termination", _kl.LCP_MAX_PIVOTS: "pivot limit reached",
              _kl.LCP_SINGULAR: "singular equality block", _kl.LCP_NAN: "non-finite problem",
              _kl.LCP_INACCURATE: f"no answer passed the check (relative residual <= {_kl.LCP_TOL:g})"}


def contact_options(sim, contact):
    """Check ``contact`` (None or :class:`ContactSettings`) against the simulator's other options."""
    if contact is None:
        return None
    if not isinstance(contact, ContactSettings):
        raise ValueError(f"contact: expected a soadyn.contact.ContactSettings or None, got {type(contact).__name__}")
    if sim.integrator != "semi_implicit":
        raise ValueError(f"integrator: contact steps are velocity-level time steps (Jain 2014 Eqs. 32-33), "
                         f"first order; use integrator='semi_implicit', not {sim.integrator!r}")
    if sim.stabilization is not None:
        raise ValueError("stabilization: with contact, loop-closure errors are controlled by "
                         "ContactSettings.loop_erp inside the step LCP; pass stabilization=None")
    if sim.model.ng == 0:
        raise ValueError(f"contact: model {sim.model.name!r} has no collision geometry (ModelBuilder.add_geom)")
    return contact


def contact_kernel():
    return _kcc.contact_rollout


def warm_state(model, contact: ContactSettings) -> np.ndarray:
    """The warm-start state a simulator carries from step to step (:func:`soadyn._kernels.contact_solve.warm_size`),
    empty (none yet), followed by the room where each kernel call copies it as the call found it
    (:func:`soadyn._kernels.contact_call.contact_rollout`)."""
    w = np.zeros(2 * _ks.warm_size(int(model.loop_row[model.nl]) if model.nl else 0, model.ncon_max, contact.n_f))
    w[0] = -1.0
    return w


def restore_warm(warm: np.ndarray) -> None:
    """Put back the warm-start state the last kernel call found (the copy it made), to run that call again."""
    n = warm.shape[0] // 2
    warm[:n] = warm[n:]


def keep_buffer(rows: int) -> np.ndarray:
    """Room for an LCP of ``rows`` rows (:func:`soadyn._kernels.contact_solve.keep_lcp`)."""
    return np.zeros(2 + rows * (rows + 1))


def kept_problem(keep: np.ndarray):
    """``(M, q, nfree)`` of an LCP written by :func:`soadyn._kernels.contact_solve.keep_lcp`, or None."""
    n = int(keep[0]) if keep.shape[0] else 0
    if n <= 0:
        return None
    return keep[2:2 + n * n].reshape(n, n).copy(), keep[2 + n * n:2 + n * n + n].copy(), int(keep[1])


_NO_KEEP = np.zeros(0)


_ROLLOUT, _ONE_STEP = EntryPoint(_kcc.contact_rollout), EntryPoint(_kcc.contact_one_step)
"""The kernels' entry points, shared like those of ``soadyn.dynamics``: compiled (or loaded) once for the types
of their first call, which every later call has (but for the one step's state, read-only or not: the kernel
only reads it)."""

WORKSPACE_CONTACTS = 64
"""Contacts whose Delassus matrix and warm-start block a simulator's workspace holds (``Simulator.step``
allocates them anew only for a step with more; a rollout grows its own to the most rows of its steps)."""


class ContactCall:
    """The contact kernels (:mod:`soadyn._kernels.contact_call`) bound to a simulator: their arguments that do
    not change from call to call gathered once, for the simulator's settings when it was made, in two buffers:
    ``fbuf`` holds the call's Data floats, the settings' kernel parameters and the geoms' margins widened by the
    settings' (one ``settings`` vector), then the steps' float workspace ``ws``; ``ibuf`` the Data ints, then
    the int workspace ``wi``. ``head`` and ``space`` are their parts as
    :func:`soadyn._kernels.contact_call.contact_rollout` takes them.

    A call runs the rollout kernel from ``Q[0], QD[0]`` over ``Q[1] ..`` from the warm-start state ``warm``
    (:func:`warm_state`, updated); a failing step's LCP is written to ``keep`` when it has room. With ``entry``,
    the kernel's compiled entry point (:class:`soadyn._jit.EntryPoint`: no type dispatch of every argument), else
    numba's dispatcher. :attr:`one_step` is the call of ``Simulator.step``: nine arrays, the simulator's
    one-step rows in one (:func:`one_step_rows`).

    The call owns its Data, which only its kernel writes: a call leaves the kinematics and the contacts of its
    last state there (its penetration check), and a next call that starts from that very state uses them
    rather than compute them again (:func:`soadyn._kernels.contact_motion.recall_state`)."""

    __slots__ = ("head", "space", "buffers")

    one_step = _ONE_STEP
    """``one_step.call(*buffers, q, qd, qn, qdn)``: one step from ``(q, qd)`` to ``(qn, qdn)`` (1-D float64 arrays:
    the kernel checks their lengths and strides, ``BAD_ARRAY``) with the inputs and the warm-start state of the
    simulator's one-step rows, keeping nothing (:func:`soadyn._kernels.contact_call.contact_one_step`), called
    by ``Simulator.step`` without a Python frame of its own."""

    def __init__(self, sim, one: np.ndarray):
        m = sim.model
        d = m.data()
        settings = np.concatenate([sim.contact.kernel_parameters(sim.dt), sim.contact.geom_margins(m.geom_margin)])
        nfloat, nint = _kc.step_space(m.model_int, m.model_float, sim.contact.n_f)
        solver = _kc.solver_space(m.nc, min(m.ncon_max, WORKSPACE_CONTACTS), sim.contact.n_f)
        ndf, ndi, nset = d.data_float.shape[0], d.data_int.shape[0], settings.shape[0]
        fbuf = np.concatenate([d.data_float, settings, np.zeros(nfloat + solver)])  # ws[0] = 0: no memo
        ibuf = np.concatenate([d.data_int, np.zeros(nint, dtype=np.int64)])
        self.head = (m.model_int, m.model_float, fbuf[:ndf], ibuf[:ndi], fbuf[ndf:ndf + nset])
        self.space = (fbuf[ndf + nset:], ibuf[ndi:])
        self.buffers = (m.model_int, m.model_float, fbuf, ibuf, one)

    def __call__(self, Q, QD, tau, fext, stats, warm, keep=None, entry: bool = False) -> int:
        kernel = _ROLLOUT.call if entry else _kcc.contact_rollout
        return kernel(*self.head, tau, fext, Q[0], QD[0], Q[1:], QD[1:], stats, warm,
                      _NO_KEEP if keep is None else keep, *self.space)


def one_step_rows(model, contact: ContactSettings) -> tuple:
    """``(one, (tau1, fext1, Q1, QD1, stats1, warm))``: the one-step rows of a simulator with contact, views of one
    buffer ``one`` in the order :func:`soadyn._kernels.contact_call.contact_one_step` reads them: the inputs
    ``tau1`` (1, nv) and ``fext1`` (1, nb, 6), the rows ``Q1`` (2, nq), ``QD1`` (2, nv) (a step's start state
    for its reports, then room), the statistics ``stats1`` (1, NSTAT) and the warm-start state
    (:func:`warm_state`)."""
    nq, nv, nb = model.nq, model.nv, model.nb
    warm = warm_state(model, contact)
    sizes = (nv, 6 * nb, 2 * nq, 2 * nv, CONTACT_STATS, warm.shape[0])
    one = np.zeros(sum(sizes))
    parts = np.split(one, np.cumsum(sizes)[:-1])
    parts[5][:] = warm
    shapes = ((1, nv), (1, nb, 6), (2, nq), (2, nv), (1, CONTACT_STATS), warm.shape)
    return one, tuple(p.reshape(s) for p, s in zip(parts, shapes))


def contact_columns(model, record: bool) -> int:
    """Columns of the kernel's per-step rows: the statistics, then with ``record`` room for every contact the
    model's pairs can produce (:data:`soadyn._kernels.contact_sim.RECORD` columns each)."""
    return CONTACT_STATS + (_kc.RECORD * model.ncon_max if record else 0)


def contact_record(sim, traj, stats: np.ndarray) -> None:
    """Attach the per-step contact statistics (and recorded contacts) to ``traj`` and summarize them in
    ``traj.stats``."""
    if stats.shape[1] > CONTACT_STATS:
        rec = stats[:, CONTACT_STATS:].reshape(stats.shape[0], -1, _kc.RECORD)
        found = ~np.isnan(rec[:, :, 0])  # each step's contacts come first
        rows = rec[found]
        traj.contact_count = found.sum(axis=1).astype(np.int64)
        traj.contact_point = np.ascontiguousarray(rows[:, 0:3])
        traj.contact_normal = np.ascontiguousarray(rows[:, 3:6])
        traj.contact_force = np.ascontiguousarray(rows[:, 6:9] / sim.dt)
        stats = stats[:, :CONTACT_STATS]
    traj.contact_stats = np.ascontiguousarray(stats)
    c = sim.contact
    n = stats.shape[0]
    summary = {
        "contact": {"formulation": c.formulation, "friction": c.friction, "solver": c.solver, "n_f": c.n_f, "mu": c.mu,
                    "mu_v": c.mu_v,
                    "restitution": c.restitution, "erp": c.erp, "loop_erp": c.loop_erp, "margin": c.margin,
                    "pyramid": c.pyramid, "correction": c.correction,
                    "penetration_limit": c.penetration_limit, "energy_tolerance": c.energy_tolerance,
                    "warm_start": c.warm_start},
        "max_contacts": int(stats[:, 0].max()) if n else 0,
        "max_active_contacts": int(stats[:, 1].max()) if n else 0,
        "max_lcp_size": int(stats[:, 2].max()) if n else 0,
        "mean_pivots": float(stats[:, 3].mean()) if n else 0.0,
        "collision_steps": int((stats[:, 5] > 0).sum()) if n else 0,
        "regularized_steps": int((stats[:, 6] > 0).sum()) if n else 0,
        "max_penetration": float(stats[:, 7].max()) if n else 0.0,
        "ppm_fallbacks": int(stats[:, 8].sum()) if n else 0,
        "max_energy_gain": float(stats[:, 9].max()) if n else 0.0,
        "max_residual": float(stats[:, 10].max()) if n else 0.0,
        "paths": {PATHS[p]: int((stats[:, 11] == p).sum()) for p in PATHS if n and (stats[:, 11] == p).any()},
    }
    if traj.constraint_error is not None:
        summary["max_constraint_error"] = float(traj.constraint_error.max())
    traj.stats.update(summary)


def contact_failure(sim, code: int, k: int, stats, error: bool = False, problem=None):
    """The message for a failed contact step ``k`` (``stats``: that step's row of statistics: the failed
    LCP's size, status, residual and the path tried); with ``error`` (a failed :meth:`Simulator.step`), the
    error to raise (for a failed check, the message of the simulator's SimulationError): for an unsolved
    LCP a :class:`soadyn.lcp.LCPError` carrying that LCP (``problem``: ``(M, q, nfree)`` as the kernel
    built it, with the settings' margins and pyramid; None when the kernel kept none, as for the Drumwright
    models)."""
    if code == _kc.TOO_MANY_CONTACTS:
        msg = (f"collision detection found more contacts than the {sim.model.ncon_max} the model's geom pairs can "
               "produce")
        return ValueError(msg) if error else msg
    if code in (_kc.PENETRATED, _kc.ENERGY_GAINED):  # the simulator raises SimulationError with it
        return guard_message(sim.contact, code, k)
    status, rows, residual = int(stats[3]), int(stats[2]), float(stats[10])
    path = PATHS.get(int(stats[11]), "none")
    msg = (f"the {rows}-row contact LCP of step {k} ({int(stats[0])} contacts) could not be solved (solver "
           f"{sim.contact.solver!r}, friction {sim.contact.friction!r}, last tried: {path}): "
           f"{LCP_STATUS.get(status, 'unsolved')}, relative residual {residual:.3e} (at most {_kl.LCP_TOL:g} "
           "accepted); the state is left at the step's start. Try a smaller dt, tikhonov > 0, or another solver")
    if not error:
        return msg
    from ..lcp import STATUS_NAMES, LCPError

    M, q, nfree = problem if problem is not None else (None, None, 0)
    err = LCPError(M, q, nfree, STATUS_NAMES.get(status, "unsolved"), residual, 0, float(stats[6]), None, None,
                   sim.contact.solver, rows=rows)
    err.add_note(msg)
    return err


def guard_message(contact: ContactSettings, code: int, k: int) -> str:
    """What the failed check of step ``k`` (:attr:`ContactSettings.penetration_limit`,
    :attr:`ContactSettings.energy_tolerance`) says."""
    if code == _kc.PENETRATED:
        return (f"penetration check: step {k} left a penetration deeper than penetration_limit = "
                f"{contact.penetration_limit:g} m; the state is left at the step's start. Try a smaller dt or a larger "
                "margin (contacts are seen margin / dt before they close)")
    return (f"energy check: the impulses of step {k} added kinetic energy beyond energy_tolerance = "
            f"{contact.energy_tolerance:g} of the step's kinetic energy (an inaccurate LCP answer); the state is "
            "left at the step's start. Try solver='lemke' or more pgs_iterations")
