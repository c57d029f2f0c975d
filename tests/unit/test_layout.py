"""The packed Model and Data (docs/architecture.md, Model and Data; ``soadyn._kernels.layout``): every array
field is a view of its buffer at the offset the header gives, kernels receive well-formed inputs without a
copy, and a pickled model packs its own buffers."""

from __future__ import annotations

import dataclasses
import pickle

import numpy as np
import pytest

import soadyn as sd
from soadyn._kernels import layout
from soadyn.dynamics import kernel_array


@pytest.fixture(scope="module")
def model():
    return sd.models.auto_tree(7, joint_mix=sd.models.ALL_JOINTS, seed=3)


def _within(a: np.ndarray, buf: np.ndarray, offset: int) -> bool:
    """``a`` is the C-contiguous block of ``buf`` starting at ``offset``."""
    start = (a.__array_interface__["data"][0] - buf.__array_interface__["data"][0]) // buf.itemsize
    return a.flags.c_contiguous and np.shares_memory(a, buf) and start == offset


def test_model_fields_are_views_of_the_two_buffers(model):
    mi, mf = model.model_int, model.model_float
    assert not mi.flags.writeable and not mf.flags.writeable
    assert [mi[layout.NQ], mi[layout.NV], mi[layout.NB], mi[layout.NF]] == [model.nq, model.nv, model.nb, model.nf]
    arrays = {f.name for f in dataclasses.fields(model) if isinstance(getattr(model, f.name), np.ndarray)}
    assert arrays - {"model_int", "model_float"} <= set(layout.MODEL_INT) | set(layout.MODEL_FLOAT)
    for off, names, buf in ((layout.MODEL_INT_OFF, layout.MODEL_INT, mi), (layout.MODEL_FLOAT_OFF, layout.MODEL_FLOAT, mf)):
        for k, name in enumerate(names):
            a = getattr(model, name)
            if a is None:  # loop fields of a model without loops
                continue
            assert not a.flags.writeable, name
            assert a.size == 0 or _within(a, buf, mi[off + k]), name
    np.testing.assert_array_equal(model.gravity_accel, np.r_[0.0, 0.0, 0.0, -model.gravity])


def test_data_fields_are_views_of_the_two_buffers(model):
    data = model.data()
    mi = model.model_int
    assert data.data_float.size == mi[layout.DATA_FLOAT_SIZE] and data.data_int.size == mi[layout.DATA_INT_SIZE]
    for off, specs, buf in ((layout.DATA_FLOAT_OFF, layout.DATA_FLOAT, data.data_float),
                            (layout.DATA_INT_OFF, layout.DATA_INT, data.data_int)):
        for k, (name, spec) in enumerate(specs):
            a = getattr(data, name)
            assert a.shape == layout.shape_of(spec, model.sizes), name
            assert a.size == 0 or _within(a, buf, mi[off + k]), name
    np.testing.assert_array_equal(data.S, model.dof_S)
    np.testing.assert_array_equal(data.q, model.neutral_q())


def test_kernel_inputs_pass_without_a_copy_and_others_are_converted():
    x = np.arange(6.0)
    assert kernel_array(x, (6,), "x") is x
    ro = x.copy()
    ro.setflags(write=False)
    for bad in (ro, np.repeat(np.arange(6.0), 2)[::2], np.arange(6), [0, 1, 2, 3, 4, 5], np.arange(6, dtype=np.float32)):
        y = kernel_array(bad, (6,), "x")
        assert y is not bad and y.dtype == np.float64 and y.flags.c_contiguous and y.flags.writeable
        np.testing.assert_array_equal(y, np.arange(6.0))
    with pytest.raises(ValueError, match="x: expected shape"):
        kernel_array(np.zeros(5), (6,), "x")


def test_results_read_the_callers_inputs(model, rng):
    """A float64 input goes to the kernel as it is: rnea and aba read the caller's arrays, so an aba of the
    rnea torques returns the accelerations, and nothing of Data holds the inputs."""
    data = model.data()
    q = model.random_q(rng)
    qd, qdd = rng.normal(size=(2, model.nv))
    tau = sd.rnea(model, data, q, qd, qdd).copy()
    np.testing.assert_allclose(sd.aba(model, data, q, qd, tau), qdd, rtol=0, atol=1e-9 * max(1.0, np.abs(qdd).max()))
    assert not np.shares_memory(data.data_float, qdd)


def test_pickled_model_packs_its_own_buffers(model, rng):
    copy = pickle.loads(pickle.dumps(model))
    assert copy.model_float is not model.model_float and not copy.model_float.flags.writeable
    np.testing.assert_array_equal(copy.model_float, model.model_float)
    np.testing.assert_array_equal(copy.model_int, model.model_int)
    q = model.random_q(rng)
    np.testing.assert_array_equal(sd.crba(copy, copy.data(), q), sd.crba(model, model.data(), q))


def test_overflowing_result_is_an_error_naming_the_function(model):
    data = model.data()
    qd = np.full(model.nv, 1e155)
    with pytest.raises(ValueError, match="rnea: the result is not finite"):
        sd.rnea(model, data, model.neutral_q(), qd, np.zeros(model.nv))
