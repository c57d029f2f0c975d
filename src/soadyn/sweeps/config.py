"""What a sweep runs: :class:`SweepSpec` (model, simulation settings, initial state, summaries) and the
parameter table it expands into, one row per rollout.

A parameter is named by its target:

* ``model.<arg>``: a keyword argument of the model factory (``model.n`` of ``pendulum``);
* ``q0[i]``, ``qd0[i]``: coordinate ``i`` of the initial state (added to nothing: the value replaces it);
* ``tau[i]``: a constant joint force held during the whole rollout;
* ``dt``, ``duration``: the step and the simulated time;
* ``contact.<field>``: a field of :class:`soadyn.contact.ContactSettings` (``contact.mu``, ...).

``grid`` gives each parameter a list of values and takes every combination; ``random`` gives each a
distribution (``{"uniform": [lo, hi]}``, ``{"loguniform": [lo, hi]}``, ``{"normal": [mean, std]}``,
``{"choice": [v1, v2, ...]}``) and draws ``samples`` independent values per grid point, from one
``numpy.random.default_rng(seed)`` in a fixed order, so the table is the same on every machine.
"""

from __future__ import annotations

import dataclasses
import itertools
import math
import numbers
import re
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

import numpy as np

__all__ = ["SweepSpec", "load_config", "parameter_table", "DISTRIBUTIONS", "SIM_TARGETS"]

DISTRIBUTIONS = ("uniform", "loguniform", "normal", "choice")
"""Distributions of ``random`` parameters: ``uniform``/``loguniform`` ``[lo, hi]``, ``normal`` ``[mean, std]``,
``choice`` a list of values (each equally likely)."""
SIM_TARGETS = ("dt", "duration")
"""Simulation settings a parameter may set directly."""

_TARGET = re.compile(r"^(?:(model|contact)\.([A-Za-z_]\w*)|(q0|qd0|tau)\[(\d+)\]|(dt|duration))$")


def parse_target(name: str) -> tuple:
    """``"model.n"`` -> ``("model", "n")``, ``"q0[2]"`` -> ``("q0", 2)``, ``"dt"`` -> ``("dt", None)``;
    ``ValueError`` naming the accepted forms otherwise."""
    m = _TARGET.match(name) if isinstance(name, str) else None
    if m is None:
        raise ValueError(f"parameter {name!r}: expected model.<arg>, contact.<field>, q0[i], qd0[i], tau[i], "
                         "dt or duration")
    if m.group(1):
        return m.group(1), m.group(2)
    if m.group(3):
        return m.group(3), int(m.group(4))
    return m.group(5), None


@dataclass
class SweepSpec:
    """One sweep: every rollout builds ``model`` (with ``model_args`` and its row's ``model.*`` parameters),
    starts from ``start`` (with the row's ``q0[i]``/``qd0[i]`` values) and runs ``duration`` seconds with step
    ``dt`` (``integrator``, ``contact``), holding the joint forces ``tau``.

    ``model``: a function of :mod:`soadyn.models` by name (``"pendulum"``, or a scene such as
    ``"ball_drop"``), an example-robot-data robot (``"ur5"``), the path of a URDF or MJCF (``.xml``) file, or
    a Python callable returning a Model or a scene (called with ``model_args`` and the row's ``model.*``
    values). ``start``: None (a scene's start state, else the neutral configuration at zero velocity), the
    name of a :mod:`soadyn.models` function ``(model) -> (q0, qd0)`` (``"pendulum_start"``), a callable of
    the same form, or ``{"q0": [...], "qd0": [...]}``.
    ``contact``: None or the keyword arguments of :class:`soadyn.contact.ContactSettings`.
    ``frames``: frames whose final world position and lowest and highest height are summarized.
    ``summary``: an optional callable ``(trajectory, model) -> {name: number}`` adding columns.
    ``grid``/``random``/``samples``/``seed``: the parameters (see the module). ``rollouts_per_task``: rollouts
    run one after another in one task (one Simulator per model and settings, reused).
    """

    model: Any
    duration: float
    dt: float = 1e-3
    model_args: dict = field(default_factory=dict)
    floating_base: bool = False
    start: Any = None
    integrator: str = "semi_implicit"
    contact: dict | None = None
    frames: tuple = ()
    summary: Callable | None = None
    grid: dict = field(default_factory=dict)
    random: dict = field(default_factory=dict)
    samples: int = 1
    seed: int = 0
    rollouts_per_task: int = 16
    name: str = "sweep"

    def __post_init__(self):
        if not (isinstance(self.model, (str, Path)) or callable(self.model)):
            raise ValueError(f"model: expected a model name, a file path or a callable, got {self.model!r}")
        for key in ("duration", "dt"):
            x = getattr(self, key)
            if isinstance(x, bool) or not isinstance(x, numbers.Real) or not (math.isfinite(x) and x > 0):
                raise ValueError(f"{key}: expected a positive number, got {x!r}")
        for key in ("samples", "rollouts_per_task"):
            x = getattr(self, key)
            if isinstance(x, bool) or not isinstance(x, numbers.Integral) or x < 1:
                raise ValueError(f"{key}: expected a positive integer, got {x!r}")
        if isinstance(self.seed, bool) or not isinstance(self.seed, numbers.Integral):
            raise ValueError(f"seed: expected an integer, got {self.seed!r}")
        if not isinstance(self.model_args, dict):
            raise ValueError(f"model_args: expected a table of factory arguments, got {self.model_args!r}")
        if self.contact is not None and not isinstance(self.contact, dict):
            raise ValueError(f"contact: expected a table of ContactSettings fields or None, got {self.contact!r}")
        if self.summary is not None and not callable(self.summary):
            raise ValueError(f"summary: expected a callable (trajectory, model) -> dict, got {self.summary!r}")
        if isinstance(self.frames, str):
            self.frames = (self.frames,)
        self.frames = tuple(self.frames)
        for section in ("grid", "random"):
            table = getattr(self, section)
            if not isinstance(table, dict):
                raise ValueError(f"{section}: expected a table of parameters, got {table!r}")
            for name, values in table.items():
                parse_target(name)
                check = _check_grid if section == "grid" else _check_distribution
                check(name, values)
        both = set(self.grid) & set(self.random)
        if both:
            raise ValueError(f"parameters {sorted(both)} are in both grid and random")
        if not self.random and self.samples != 1:
            raise ValueError(f"samples: {self.samples} draws asked but no random parameters given")

    @property
    def parameters(self) -> list:
        """Parameter names, grid first, in the order given."""
        return list(self.grid) + list(self.random)


def _check_grid(name: str, values) -> None:
    if isinstance(values, (str, bytes, dict)) or not hasattr(values, "__len__") or len(values) == 0:
        raise ValueError(f"grid {name!r}: expected a non-empty list of values, got {values!r}")


def _check_distribution(name: str, dist) -> None:
    if not isinstance(dist, dict) or len(dist) != 1 or next(iter(dist)) not in DISTRIBUTIONS:
        raise ValueError(f"random {name!r}: expected one of {{kind: args}} with kind in {DISTRIBUTIONS}, got {dist!r}")
    kind, args = next(iter(dist.items()))
    if kind == "choice":
        _check_grid(name, args)
        return
    if isinstance(args, (str, bytes)) or not hasattr(args, "__len__") or len(args) != 2 \
            or not all(isinstance(a, numbers.Real) and math.isfinite(a) for a in args):
        raise ValueError(f"random {name!r}: {kind} expects two finite numbers, got {args!r}")
    a, b = args
    if (kind in ("uniform", "loguniform") and not a < b) or (kind == "loguniform" and a <= 0) \
            or (kind == "normal" and b < 0):
        raise ValueError(f"random {name!r}: bad {kind} arguments {list(args)!r} (uniform: lo < hi; loguniform: "
                         "0 < lo < hi; normal: std >= 0)")


def _draw(rng: np.random.Generator, dist: dict):
    kind, args = next(iter(dist.items()))
    if kind == "uniform":
        return float(rng.uniform(args[0], args[1]))
    if kind == "loguniform":
        return float(math.exp(rng.uniform(math.log(args[0]), math.log(args[1]))))
    if kind == "normal":
        return float(rng.normal(args[0], args[1]))
    value = args[int(rng.integers(len(args)))]
    return value.item() if isinstance(value, np.generic) else value


def parameter_table(spec: SweepSpec) -> list:
    """The rollouts of ``spec``: a list of ``{parameter: value}``, every grid combination (the first
    parameter varying slowest) times ``samples`` random draws."""
    names = list(spec.grid)
    combos = itertools.product(*(list(spec.grid[n]) for n in names)) if names else [()]
    rng = np.random.default_rng(spec.seed)
    rows = []
    for combo in combos:
        for _ in range(spec.samples):
            row = dict(zip(names, combo))
            for name, dist in spec.random.items():
                row[name] = _draw(rng, dist)
            rows.append(row)
    return rows


def load_config(path) -> tuple[SweepSpec, dict]:
    """Read a sweep config (``.toml``, or ``.yaml``/``.yml`` with PyYAML installed). Returns the
    :class:`SweepSpec` and the run options found beside it (``out``, ``plot``, ``trajectories``,
    ``address``, ``num_cpus``, ``max_retries``), which the command line may override."""
    path = Path(path)
    if not path.is_file():
        raise ValueError(f"config: file {str(path)!r} not found")
    suffix = path.suffix.lower()
    if suffix == ".toml":
        with path.open("rb") as fh:
            try:
                raw = tomllib.load(fh)
            except tomllib.TOMLDecodeError as exc:
                raise ValueError(f"config: {path}: {exc}") from None
    elif suffix in (".yaml", ".yml"):
        try:
            import yaml
        except ImportError:
            raise ValueError("config: YAML needs PyYAML (pip install 'soadyn[ray]'), or write the config as "
                             "TOML") from None
        raw = yaml.safe_load(path.read_text())
    else:
        raise ValueError(f"config: {str(path)!r}: expected a .toml, .yaml or .yml file")
    if not isinstance(raw, dict):
        raise ValueError(f"config: {path}: expected a table at the top level")
    options = {k: raw.pop(k) for k in ("out", "plot", "trajectories", "address", "num_cpus", "max_retries")
               if k in raw}
    fields = {f.name for f in dataclasses.fields(SweepSpec)} - {"summary"}
    unknown = sorted(set(raw) - fields)
    if unknown:
        raise ValueError(f"config: {path}: unknown keys {unknown} (known: {sorted(fields | set(options))})")
    if "model" not in raw or "duration" not in raw:
        raise ValueError(f"config: {path}: 'model' and 'duration' are required")
    raw.setdefault("name", path.stem)
    if isinstance(raw["model"], str) and raw["model"].lower().endswith((".urdf", ".xml")):
        model_path = Path(raw["model"]).expanduser()
        raw["model"] = str(model_path if model_path.is_absolute() else path.parent / model_path)
    return SweepSpec(**raw), options
