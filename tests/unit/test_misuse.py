"""Misuse that must end in a clear error, never a crash or a silently wrong answer: rebinding Data arrays,
finite inputs so large that the results overflow."""

from __future__ import annotations

import numpy as np
import pytest

import soadyn as sd


@pytest.fixture(scope="module")
def chain():
    return sd.models.pendulum(3)


def test_data_arrays_cannot_be_rebound(chain):
    data = chain.data()
    with pytest.raises(AttributeError, match=r"Data.M is a workspace array of shape \(3, 3\)"):
        data.M = np.zeros((1, 1))
    with pytest.raises(AttributeError, match="Data.model cannot be rebound"):
        data.model = sd.models.pendulum(2)
    data.M[...] = 0.0  # writing into the array is how it is meant
    M = sd.crba(chain, data, chain.neutral_q())
    assert M.shape == (3, 3) and np.all(np.linalg.eigvalsh(M) > 0)


@pytest.mark.parametrize("call", ["rnea", "aba", "rnea_batch", "aba_batch"])
def test_huge_finite_velocities_raise_instead_of_returning_inf(chain, call):
    data, q = chain.data(), chain.neutral_q() + 0.3
    qd = np.full(chain.nv, 1e155)  # finite, but qd^2 overflows float64
    z = np.zeros(chain.nv)
    calls = {"rnea": lambda: sd.rnea(chain, data, q, qd, z), "aba": lambda: sd.aba(chain, data, q, qd, z),
             "rnea_batch": lambda: sd.rnea_batch(chain, q[None], qd[None], z[None]),
             "aba_batch": lambda: sd.aba_batch(chain, q[None], qd[None], z[None])}
    with pytest.raises(ValueError, match=f"{call}: the result is not finite although the inputs are"):
        calls[call]()
    # moderate velocities still work
    assert np.all(np.isfinite(sd.rnea(chain, data, q, np.full(chain.nv, 1e3), z)))
