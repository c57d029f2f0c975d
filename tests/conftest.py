"""Shared test setup: a numba cache keyed by the kernel sources (before anything compiles)."""

from soadyn._cache import configure_cache

configure_cache()

import numpy as np  # noqa: E402
import pytest  # noqa: E402


@pytest.fixture
def rng():
    return np.random.default_rng(12345)
