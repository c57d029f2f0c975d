"""Shared test setup: a numba cache keyed by the kernel sources (before anything compiles); the seeds of
the randomized tests."""

import os

from soadyn._cache import configure_cache

configure_cache()

import numpy as np  # noqa: E402
import pytest  # noqa: E402


DEFAULT_SEEDS = "12345,1,2"
"""Seeds every test that takes the ``rng`` fixture runs with: a fragile assertion shows up here, on a few
draws, rather than on a user's machine."""


def pytest_addoption(parser):
    parser.addoption("--seeds", default=os.environ.get("SOADYN_TEST_SEEDS", DEFAULT_SEEDS),
                     help="seeds of the rng fixture: a comma-separated list, or 'N:K' for the K seeds N..N+K-1 "
                          f"(environment SOADYN_TEST_SEEDS; default {DEFAULT_SEEDS})")


def seed_list(text: str) -> list[int]:
    """``"1,5,9"`` -> [1, 5, 9]; ``"100:20"`` -> [100, ..., 119]."""
    if ":" in text:
        first, count = (int(x) for x in text.split(":"))
        return list(range(first, first + count))
    return [int(x) for x in text.split(",") if x.strip()]


def pytest_generate_tests(metafunc):
    if "rng" in metafunc.fixturenames:
        seeds = seed_list(metafunc.config.getoption("--seeds"))
        metafunc.parametrize("rng", seeds, indirect=True, ids=[f"seed{s}" for s in seeds])


@pytest.fixture
def rng(request):
    """A NumPy generator seeded by each of the ``--seeds`` in turn."""
    return np.random.default_rng(request.param)
