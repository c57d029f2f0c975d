"""The packed Model and Data (docs/architecture.md, Model and Data; ``soadyn._kernels.layout``): every array
field is a view of its buffer at the offset the header gives, kernels receive well-formed inputs without a
copy, and a pickled model packs its own buffers."""

from __future__ import annotations

import dataclasses
import pickle

import numba
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


# each accessor's views copied out of the kernel (a kernel never returns a view)
@numba.njit
def _model_springs(mi, mf):
    t = layout.model_springs(mi, mf)
    return (t[0].copy(), t[1].copy(), t[2].copy())


@numba.njit
def _model_loops(mi, mf):
    t = layout.model_loops(mi, mf)
    return (t[0].copy(), t[1].copy(), t[2].copy(), t[3].copy(), t[4].copy(), t[5].copy(),
            t[6].copy(), t[7].copy(), t[8].copy(), t[9].copy(), t[10].copy(), t[11].copy())


@numba.njit
def _model_geoms(mi, mf):
    t = layout.model_geoms(mi, mf)
    return (t[0].copy(), t[1].copy(), t[2].copy(), t[3].copy(), t[4].copy(), t[5].copy(),
            t[6].copy(), t[7].copy(), t[8].copy(), t[9].copy(), t[10].copy(), t[11].copy(), t[12].copy())


@numba.njit
def _data_loops(mi, df):
    t = layout.data_loops(mi, df)
    return (t[0].copy(), t[1].copy(), t[2].copy(), t[3].copy(), t[4].copy(), t[5].copy())


@numba.njit
def _data_contact(mi, df, di):
    t = layout.data_contact(mi, df, di)
    return (t[0].copy(), t[1].copy(), t[2].copy(), t[3].copy(), t[4].copy(), t[5].copy(),
            t[6].copy(), t[7].copy(), t[8].copy())


@pytest.mark.parametrize("make", [lambda: sd.models.four_bar_chain(2), lambda: sd.models.scenes.box_stack(2).model])
def test_accessors_open_the_fields_under_their_names(make):
    """The accessors of the loop, spring, geometry and contact kernels read what the Model and Data hold
    (a model with loops and one with geoms and no loops, whose ``loop_row`` is ``[0]``)."""
    model = make()
    data = model.data()
    data.data_float[:] = np.arange(data.data_float.size)  # distinct values: a wrong offset cannot match
    data.data_int[:] = np.arange(data.data_int.size)
    names = (["dof_stiffness", "dof_damping", "dof_springref"]
             + ["frame_body", "frame_E", "frame_r", "loop_frame_a", "loop_frame_b", "loop_kind", "loop_sel", "loop_dim", "loop_row",
                "loop_axis", "loop_axis2", "loop_twist"]
             + ["geom_body", "geom_type", "geom_size", "geom_E", "geom_r", "geom_mu", "geom_restitution", "geom_margin",
                "geom_corners", "pair_geom", "geom_vertadr", "geom_vertnum", "mesh_vert"])
    dnames = ["loop_R", "loop_p", "loop_Q", "loop_phi", "loop_cv", "loop_gamma", "gR", "gp", "con_geom", "con_body",
              "con_point", "con_normal", "con_gap", "con_mu", "con_eps"]
    mi, mf, df, di = model.model_int, model.model_float, data.data_float, data.data_int
    got = (*_model_springs(mi, mf), *_model_loops(mi, mf), *_model_geoms(mi, mf), *_data_loops(mi, df),
           *_data_contact(mi, df, di))
    expected = [getattr(model, n) for n in names] + [getattr(data, n) for n in dnames]
    assert len(got) == len(expected)
    for name, g, e in zip(names + dnames, got, expected):
        np.testing.assert_array_equal(g.ravel(), np.zeros(0) if e is None else np.ravel(e), err_msg=name)
    assert model.loop_row[model.nl] == model.nc


def _forms(x: np.ndarray) -> dict:
    """``x`` in the forms a per-call function takes without a conversion (readonly) or converts once."""
    ro = x.copy()
    ro.setflags(write=False)
    wide = np.zeros(2 * x.size)
    wide[::2] = x
    return {"readonly": ro, "strided": wide[::2], "big-endian": x.astype(">f8"), "list": x.tolist()}


def test_per_call_functions_take_any_vector_form(model, rng):
    """The per-call functions check the type, dtype and dimensions of their vectors in Python and leave the
    length and the stride to the kernel (``kinematics.vector_ready``), converting on its BAD_ARRAY status:
    every form gives the result of the plain float64 arrays (bit for bit: the same arithmetic on the same
    numbers), and a vector of another length or dimension raises the shape error naming it."""
    data = model.data()
    q = model.random_q(rng)
    qd, x = rng.normal(size=(2, model.nv))
    frame, nodes = model.frame_names[-1], list(model.body_names[-2:])
    calls = {
        "rnea": lambda q, qd, x: sd.rnea(model, data, q, qd, x),
        "aba": lambda q, qd, x: sd.aba(model, data, q, qd, x),
        "crba": lambda q, qd, x: sd.crba(model, data, q),
        "minv": lambda q, qd, x: sd.minv(model, data, q),
        "frame_jacobian": lambda q, qd, x: sd.frame_jacobian(model, data, q, frame),
        "osim_inv": lambda q, qd, x: sd.osim_inv(model, data, q, nodes),
    }
    for name, call in calls.items():
        want = call(q, qd, x).copy()
        for arg in range(3):
            plain = [q, qd, x]
            for form, a in _forms(plain[arg]).items():
                args = list(plain)
                args[arg] = a
                np.testing.assert_array_equal(call(*args), want, err_msg=f"{name}, argument {arg} {form}")
        for bad in (q[:-1], np.r_[q, 0.0], q[None, :], np.zeros((model.nq, 1))):
            with pytest.raises(ValueError, match="q: expected shape"):
                call(bad, qd, x)
        if name in ("rnea", "aba"):
            with pytest.raises(ValueError, match="qd: expected shape"):
                call(q, qd[:-1], x)
            xname = "qdd" if name == "rnea" else "tau"
            with pytest.raises(ValueError, match=f"{xname}: expected shape"):
                call(q, qd, np.zeros(2 * model.nv)[::2][:-1])
