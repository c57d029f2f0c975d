"""Contact settings of the :class:`~soadyn.sim.Simulator` (Jain 2014 OS formulation, Sec. 6-7)."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from .._kernels import contact_sim as _kc
from .pyramid import check_n_f

__all__ = ["ContactSettings", "FORMULATIONS", "SOLVERS", "FRICTION_MODELS"]

FORMULATIONS = ("os",)
"""Formulations the simulation kernel runs. NMC/OS (Jain 2014 Sec. 8) is the OS formulation on the fully
augmented model: ``Simulator(model.fully_augmented(), dt, contact=ContactSettings(formulation="os"))``.
The NMC, MC and RMC forms of single steps are built by :mod:`soadyn.contact.formulations`."""

SOLVERS = {"lemke": _kc.SOLVER_LEMKE, "pgs": _kc.SOLVER_PGS, "ppm": _kc.SOLVER_PPM}
"""``"lemke"``: Lemke's method (exact, lexicographic; the mixed LCP after eliminating the free rows);
``"pgs"``: projected Gauss-Seidel on the pyramid rows (Coulomb only; approximate, iterations capped);
``"ppm"``: the modified principal pivoting method PPM I of Drumwright 2015 (Algorithm 1; viscous and no-slip
only), falling back to Lemke when it fails (counted in the step statistics)."""

FRICTION_MODELS = {"coulomb": _kc.COULOMB, "viscous": _kc.VISCOUS, "no_slip": _kc.NO_SLIP}
"""Friction models of the simulation kernel: the Coulomb pyramid of Jain 2014 Eqs. 6-15 (Stewart-Trinkle /
Anitescu-Potra), Drumwright 2015's purely viscous friction (Sec. IV; tangential impulse ``-dt mu_v v+_t``)
and no-slip contact (Sec. VI; tangential velocities zero after the step, touching contacts only)."""

SOLVERS_OF = {"coulomb": ("lemke", "pgs"), "viscous": ("ppm", "lemke"), "no_slip": ("ppm", "lemke")}


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
    retry). ``pgs_iterations``, ``pgs_tolerance``: the projected Gauss-Seidel limits."""

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

    def kernel_parameters(self, dt: float) -> np.ndarray:
        """The ``prm`` vector of :func:`soadyn._kernels.contact_sim.contact_step`."""
        return np.array([dt, self.n_f, self.erp, self.loop_erp, self.impact_velocity,
                         -1.0 if self.mu is None else self.mu, -1.0 if self.restitution is None else self.restitution,
                         SOLVERS[self.solver], 0 if self.max_pivots is None else self.max_pivots, self.tikhonov,
                         self.pgs_iterations, self.pgs_tolerance, FRICTION_MODELS[self.friction], self.mu_v],
                        dtype=np.float64)
