"""Contact settings of the :class:`~soadyn.sim.Simulator` (Jain 2014 OS formulation, Sec. 6-7)."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from .._kernels import contact_sim as _kc
from .._kernels import contact_solve as _ks
from .pyramid import check_n_f

__all__ = ["ContactSettings", "FORMULATIONS", "SOLVERS", "FRICTION_MODELS", "PYRAMIDS", "CORRECTIONS",
           "RESTITUTION_LAWS"]

FORMULATIONS = ("os",)
"""Formulations the simulation kernel runs. NMC/OS (Jain 2014 Sec. 8) is the OS formulation on the fully
augmented model: ``Simulator(model.fully_augmented(), dt, contact=ContactSettings(formulation="os"))``.
The NMC, MC and RMC forms of single steps are built by :mod:`soadyn.contact.formulations`."""

SOLVERS = {"lemke": _ks.SOLVER_LEMKE, "pgs": _ks.SOLVER_PGS, "ppm": _ks.SOLVER_PPM}
"""``"lemke"``: Lemke's method (exact, lexicographic; the mixed LCP after eliminating the free rows);
``"pgs"``: projected Gauss-Seidel on the pyramid rows (Coulomb only; approximate, iterations capped);
``"ppm"``: the modified principal pivoting method PPM I of Drumwright 2015 (Algorithm 1; viscous and no-slip
only), falling back to Lemke when it fails (counted in the step statistics)."""

FRICTION_MODELS = {"coulomb": _ks.COULOMB, "viscous": _ks.VISCOUS, "no_slip": _ks.NO_SLIP}
"""Friction models of the simulation kernel: the Coulomb pyramid of Jain 2014 Eqs. 6-15 (Stewart-Trinkle /
Anitescu-Potra), Drumwright 2015's purely viscous friction (Sec. IV; tangential impulse ``-dt mu_v v+_t``)
and no-slip contact (Sec. VI; tangential velocities zero after the step, touching contacts only)."""

SOLVERS_OF = {"coulomb": ("lemke", "pgs"), "viscous": ("ppm", "lemke"), "no_slip": ("ppm", "lemke")}

PYRAMIDS = {"fixed": _kc.FIXED_PYRAMID, "slip": _kc.SLIP_PYRAMID}
"""How the friction pyramid is turned about the normal: ``"fixed"``, its tangents from the normal alone
(Jain 2014; the friction limit then depends on the slip direction: ``mu / sqrt 2`` along the diagonals of a
4-sided pyramid); ``"slip"``, its first tangent along the contact's predicted slip (the tangential velocity
the contact would have after the step without contact forces), so that Coulomb friction opposes a slip,
or holds a sticking contact against the pull on it, at its full ``mu F_n`` whatever the world's orientation;
a contact whose predicted slip is below 1 um/s keeps the fixed tangents (the creep of a resting pile, whose
direction changes from step to step)."""

CORRECTIONS = {"velocity": _kc.VELOCITY_CORRECTION, "split": _kc.SPLIT_CORRECTION}
"""How penetration is removed: ``"velocity"``, by the normal rows ``n . v+ >= -erp gap / dt`` (Jain 2014;
the push-out velocity stays, so a penetration pops the bodies apart with kinetic energy it did not have);
``"split"``, by a separate position correction (split impulse: the normal-row impulses that remove ``erp``
of each penetration move the positions only), so no kinetic energy is added."""

RESTITUTION_LAWS = {"poisson": _kc.POISSON, "energetic": _kc.ENERGETIC}
"""The restitution impulse of a collision: ``"poisson"``, Jain 2014 Eq. 56 as written (``theta_i = eps_i
F_n,i``), which over several simultaneous contacts can end the impact with more kinetic energy than it
began with, even for exact LCP answers; ``"energetic"``, the same impulse scaled back (all contacts of the
collision by one factor) to the largest share that adds no kinetic energy, as Stronge's energetic
restitution demands. A single contact, or contacts that do not interact, are unchanged."""


def _number(x, name: str, lo: float = 0.0, hi: float = math.inf, open_lo: bool = False) -> float:
    if isinstance(x, bool) or not isinstance(x, (int, float, np.integer, np.floating)) or not math.isfinite(x):
        raise ValueError(f"{name}: expected a finite number, got {x!r}")
    x = float(x)
    if x < lo or x > hi or (open_lo and x == lo):
        span = f"({lo}, {hi}]" if open_lo else f"[{lo}, {hi}]"
        raise ValueError(f"{name}: expected a value in {span}, got {x!r}")
    return x


@dataclass(frozen=True)
class ContactSettings:
    """How the simulator treats contact.

    ``friction``: ``"coulomb"`` (the pyramid of ``n_f`` directions, coefficient ``mu``), ``"viscous"``
    (coefficient ``mu_v``, N s/m) or ``"no_slip"`` (:data:`FRICTION_MODELS`); ``solver``: one of
    :data:`SOLVERS_OF` for the model (None: the first, Lemke for Coulomb, PPM for the others).
    ``mu``, ``restitution``: one value for every contact, or None to take each contact's from its geoms
    (:meth:`soadyn.ModelBuilder.add_geom`). ``n_f``: friction pyramid directions (even, Jain 2014 Eq. 6).
    ``erp``: fraction of a penetration removed per step (normal rows ask ``n . v+ >= -erp gap / dt``);
    ``loop_erp``: the same for loop-closure position errors (``G_b qd+ = -loop_erp phi / dt``).
    ``impact_velocity`` (m/s): approach speed above which a contact with restitution > 0 runs the collision
    phase (compression and decompression LCPs, Jain 2014 Sec. 7). ``max_pivots``: Lemke's pivot limit (None:
    50 times the LCP size); ``tikhonov``: the first regularization Lemke retries with after a failure (0: no
    retry). ``pgs_iterations``, ``pgs_tolerance``: the projected Gauss-Seidel limits; a PGS answer is used
    only when it passes the check of every LCP answer on the whole pyramid LCP, else Lemke solves the step.
    ``warm_start``: each step LCP first tries the previous step's active set when the same contacts come
    back (one factorization of the active block, corrected by up to eleven block pivots, used only when its answer
    passes the check; Lemke otherwise), so a resting stack costs no Lemke pivots; False solves every step
    cold.

    ``margin`` (m): contacts are detected while their gap is below the geoms' own margins
    (:meth:`soadyn.ModelBuilder.add_geom`) plus this, before they close: an open contact's normal row lets it
    approach by its gap within the step and no further (speculative contact), so a body arriving at up to
    ``margin / dt`` (5 m/s at the defaults and 1 ms) lands without penetrating. ``pyramid``: :data:`PYRAMIDS`;
    ``correction``: :data:`CORRECTIONS`. Restitution applies only to contacts that close within the step
    faster than ``impact_velocity``; when the impulses of a collision set further contacts closing (a
    Newton's cradle), they collide in turn within the same step.

    The defaults: a 5 mm margin, the slip-oriented pyramid and the split position correction.
    :meth:`classic` gives the papers' settings (no margin, fixed pyramid, penetration removed through the
    velocity, Poisson's restitution, no checks, no warm start), which their reproductions use.

    Checks of every step (a step that fails one raises :class:`soadyn.sim.SimulationError` naming it, the
    states before it kept): ``penetration_limit`` (m): no state may penetrate deeper (``math.inf``: no check);
    ``energy_tolerance``: the kinetic energy the step's impulses add (collisions, contact and loop rows),
    beyond what the bias of a velocity correction or of the loop rows' ``loop_erp`` may add, must stay below
    this fraction of the step's kinetic energy (plus 1e-12 J of round-off). The impulses of an exact LCP
    answer add none (the contact rows dissipate, and a collision's restitution impulse is scaled back when
    Poisson's hypothesis over several contacts would add energy), so the check fires only on a wrong or
    inaccurate answer. It is independent of actuation; semi-implicit Euler's own ``O(dt^2)`` energy error
    per step, which a step without contact has too, is not part of it."""

    formulation: str = "os"
    mu: float | None = None
    restitution: float | None = None
    n_f: int = 4
    solver: str | None = None
    friction: str = "coulomb"
    mu_v: float = 1.0
    erp: float = 0.2
    loop_erp: float = 0.2
    impact_velocity: float = 0.05
    max_pivots: int | None = None
    tikhonov: float = 1e-10
    pgs_iterations: int = 200
    pgs_tolerance: float = 1e-10
    margin: float = 0.005
    pyramid: str = "slip"
    correction: str = "split"
    penetration_limit: float = 1e-3
    energy_tolerance: float = 1e-6
    restitution_law: str = "energetic"
    warm_start: bool = True

    @classmethod
    def classic(cls, **overrides) -> "ContactSettings":
        """The time stepping of the papers (Jain 2014, Drumwright 2015): contacts detected once they touch
        (``margin=0``), the fixed friction pyramid, penetration removed through the velocity and Poisson's
        restitution (Eq. 56), without the penetration and energy checks, every step solved cold;
        ``overrides`` set any field. The papers' reproductions run with these."""
        return cls(**{"margin": 0.0, "pyramid": "fixed", "correction": "velocity", "penetration_limit": math.inf,
                      "energy_tolerance": math.inf, "restitution_law": "poisson", "warm_start": False,
                      **overrides})

    def __post_init__(self):
        if self.formulation not in FORMULATIONS:
            raise ValueError(f"formulation: expected one of {FORMULATIONS}, got {self.formulation!r} (NMC/OS is "
                             "the 'os' formulation on model.fully_augmented(); NMC, MC and RMC steps are built "
                             "by soadyn.contact.formulations)")
        if self.friction not in FRICTION_MODELS:
            raise ValueError(f"friction: expected one of {tuple(FRICTION_MODELS)}, got {self.friction!r}")
        if self.solver is None:
            object.__setattr__(self, "solver", SOLVERS_OF[self.friction][0])
        if self.solver not in SOLVERS_OF[self.friction]:
            raise ValueError(f"solver: {self.solver!r} does not solve friction={self.friction!r}; expected one of "
                             f"{SOLVERS_OF[self.friction]}")
        _number(self.mu_v, "mu_v")
        if self.mu is not None:
            _number(self.mu, "mu")
        if self.restitution is not None:
            _number(self.restitution, "restitution", 0.0, 1.0)
        check_n_f(self.n_f)
        _number(self.erp, "erp", 0.0, 1.0)
        _number(self.loop_erp, "loop_erp", 0.0, 1.0)
        _number(self.impact_velocity, "impact_velocity")
        if self.max_pivots is not None and (isinstance(self.max_pivots, bool) or
                                            not isinstance(self.max_pivots, (int, np.integer)) or self.max_pivots < 1):
            raise ValueError(f"max_pivots: expected a positive integer or None, got {self.max_pivots!r}")
        _number(self.tikhonov, "tikhonov")
        if isinstance(self.pgs_iterations, bool) or not isinstance(self.pgs_iterations, (int, np.integer)) \
                or self.pgs_iterations < 1:
            raise ValueError(f"pgs_iterations: expected a positive integer, got {self.pgs_iterations!r}")
        _number(self.pgs_tolerance, "pgs_tolerance", open_lo=True)
        _number(self.margin, "margin")
        if self.pyramid not in PYRAMIDS:
            raise ValueError(f"pyramid: expected one of {tuple(PYRAMIDS)}, got {self.pyramid!r}")
        if self.correction not in CORRECTIONS:
            raise ValueError(f"correction: expected one of {tuple(CORRECTIONS)}, got {self.correction!r}")
        for name in ("penetration_limit", "energy_tolerance"):
            x = getattr(self, name)
            if isinstance(x, bool) or not isinstance(x, (int, float, np.integer, np.floating)) or not x >= 0.0 \
                    or (name == "penetration_limit" and x == 0.0):
                raise ValueError(f"{name}: expected a {'positive' if name == 'penetration_limit' else 'non-negative'} "
                                 f"number or math.inf (no check), got {x!r}")
        if not isinstance(self.warm_start, (bool, np.bool_)):
            raise ValueError(f"warm_start: expected True or False, got {self.warm_start!r}")
        if self.restitution_law not in RESTITUTION_LAWS:
            raise ValueError(f"restitution_law: expected one of {tuple(RESTITUTION_LAWS)}, got "
                             f"{self.restitution_law!r}")

    def kernel_parameters(self, dt: float) -> np.ndarray:
        """The ``prm`` vector of :func:`soadyn._kernels.contact_sim.contact_step`."""
        return np.array([dt, self.n_f, self.erp, self.loop_erp, self.impact_velocity,
                         -1.0 if self.mu is None else self.mu, -1.0 if self.restitution is None else self.restitution,
                         SOLVERS[self.solver], 0 if self.max_pivots is None else self.max_pivots, self.tikhonov,
                         self.pgs_iterations, self.pgs_tolerance, FRICTION_MODELS[self.friction], self.mu_v,
                         PYRAMIDS[self.pyramid], CORRECTIONS[self.correction], self.penetration_limit,
                         self.energy_tolerance, RESTITUTION_LAWS[self.restitution_law], float(self.warm_start)],
                        dtype=np.float64)

    def geom_margins(self, geom_margin: np.ndarray) -> np.ndarray:
        """The per-geom margins the kernel detects with: a pair's margin is the sum of its geoms', so each
        geom gets its own plus half of :attr:`margin`."""
        out = geom_margin + 0.5 * self.margin
        out.setflags(write=False)  # read-only like the model's arrays: one compiled kernel
        return out
