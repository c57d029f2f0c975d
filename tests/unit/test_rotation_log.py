"""The control kernel's rotation logarithm against SciPy, across the whole angle range including pi."""

import numpy as np
import pytest
from scipy.spatial.transform import Rotation

from soadyn._kernels.spatial import rotation_log
from tests.support import assert_close

LOG_TOL = 1e-9
"""Rotation vector accuracy (rad); the near-pi branch recovers the axis through a square root."""


@pytest.mark.parametrize("angle", [0.0, 1e-9, 1e-4, 0.3, 1.5, 2.5, 2.9, np.pi - 1e-3, np.pi - 1e-7])
def test_rotation_log_matches_scipy(angle, rng):
    for _ in range(20):
        axis = rng.normal(size=3)
        axis /= np.linalg.norm(axis)
        R = Rotation.from_rotvec(angle * axis).as_matrix()
        out = np.empty(3)
        rotation_log(np.ascontiguousarray(R), out)
        assert_close(out, angle * axis, LOG_TOL, f"log at angle {angle}", scale=1.0)


def test_rotation_log_at_pi_returns_a_valid_rotation_vector(rng):
    for _ in range(20):
        axis = rng.normal(size=3)
        axis /= np.linalg.norm(axis)
        R = Rotation.from_rotvec(np.pi * axis).as_matrix()
        out = np.empty(3)
        rotation_log(np.ascontiguousarray(R), out)
        assert abs(np.linalg.norm(out) - np.pi) < LOG_TOL
        assert_close(Rotation.from_rotvec(out).as_matrix(), R, LOG_TOL, "exp(log R) at pi")
