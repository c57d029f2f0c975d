"""The callgrind phase script of the dynamics benchmark: ``python -m soadyn.bench.dynamics_phases MODEL N``
runs every call of :func:`soadyn.bench.dynamics.calls` on MODEL (``chain<n>`` or ``talos``), both libraries,
in the marked phases of :func:`soadyn.bench.callgrind.run_phases`.
"""

from __future__ import annotations

import sys

import numpy as np

from .callgrind import run_phases
from .dynamics import calls, load_chain, load_talos


def main(model: str, n: int) -> None:
    pair = load_talos() if model == "talos" else load_chain(int(model.removeprefix("chain")))
    fns = {}
    for alg, (f_sd, f_pin) in calls(pair, np.random.default_rng(0)).items():
        fns[f"{alg}/soadyn"], fns[f"{alg}/pinocchio"] = f_sd, f_pin
    run_phases(fns, n)


if __name__ == "__main__":
    main(sys.argv[1], int(sys.argv[2]))
