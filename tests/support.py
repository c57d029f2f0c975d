"""Named tolerances and the one assertion helper of the test suite (docs/architecture.md, Tests)."""

import numpy as np

SAME_MATH = 1e-12
"""The same mathematics reorganized (relative)."""
ALGORITHMS = 1e-9
"""Different algorithms of the same quantity (relative)."""
EXTERNAL = 1e-7
"""External oracles: Pinocchio, MuJoCo, coal (relative)."""


def assert_close(actual, expected, tol: float, what: str, scale: float | None = None) -> None:
    """Assert ``max|actual - expected| <= tol * max(1, max|expected|)`` (or ``tol * scale``), naming
    the quantity ``what`` in the failure message."""
    actual = np.asarray(actual, dtype=float)
    expected = np.asarray(expected, dtype=float)
    assert actual.shape == expected.shape, f"{what}: shape {actual.shape} != {expected.shape}"
    ref = scale if scale is not None else max(1.0, float(np.abs(expected).max(initial=0.0)))
    err = float(np.abs(actual - expected).max(initial=0.0))
    assert err <= tol * ref, f"{what}: max error {err:.3e} > {tol:.1e} x {ref:.3e}"
