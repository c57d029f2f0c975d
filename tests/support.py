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


def coal_shape(kind: str, size, verts=None):
    """The coal shape of a soadyn geom of ``kind`` and ``size`` (half extents, radius and half length), in
    the geom's own frame; ``verts``: a convex geom's points (its hull is taken). Planes and halfspaces are
    z-up through the origin. Needs ``coal`` installed."""
    import coal

    if kind == "sphere":
        return coal.Sphere(size[0])
    if kind == "capsule":
        return coal.Capsule(size[0], 2.0 * size[1])
    if kind == "box":
        return coal.Box(*(2.0 * np.asarray(size)))
    if kind == "cylinder":
        return coal.Cylinder(size[0], 2.0 * size[1])
    if kind == "convex":
        pts = coal.StdVec_Vec3s()
        for v in verts:
            pts.append(np.array(v))
        return coal.Convex.convexHull(pts, False, None)
    if kind == "halfspace":
        return coal.Halfspace(np.array([0.0, 0.0, 1.0]), 0.0)
    return coal.Plane(np.array([0.0, 0.0, 1.0]), 0.0)
