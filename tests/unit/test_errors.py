"""Bad input to every public function of :mod:`soadyn.dynamics` raises ``ValueError`` naming the argument
(docs/architecture.md, Public API: "Never a silently wrong answer"): wrong shapes, wrong dtypes (strings, complex,
objects), NaN/inf entries, non-unit quaternions, unknown frames and references, Data of another model."""

from __future__ import annotations

import re

import numpy as np
import pytest

import soadyn as sd
from soadyn import joints as J
from soadyn.models import ALL_JOINTS, auto_tree

MODEL = auto_tree(9, 1.5, seed=1, joint_mix=ALL_JOINTS)
RNG = np.random.default_rng(0)
Q = MODEL.random_q(RNG)
QD = RNG.normal(size=MODEL.nv)
QDD = RNG.normal(size=MODEL.nv)
TAU = RNG.normal(size=MODEL.nv)
FEXT = RNG.normal(size=(MODEL.nb, 6))
FRAME = "tip3"
K = 3
QS = np.array([MODEL.random_q(RNG) for _ in range(K)])
QDS = RNG.normal(size=(K, MODEL.nv))
XS = RNG.normal(size=(K, MODEL.nv))
QUAT_ADR = [int(MODEL.jnt_qadr[i] + (3 if MODEL.jnt_type[i] == J.FREE else 0))
            for i in range(MODEL.nb) if MODEL.jnt_type[i] in (J.SPHERICAL, J.FREE)]


def _data():
    return MODEL.data()


# name -> (callable taking keyword arguments, valid keyword arguments, the arguments that carry q)
FUNCS = {
    "fk": (lambda q, qd: sd.fk(MODEL, _data(), q, qd), dict(q=Q, qd=QD), ("q",)),
    "frame_pose": (lambda q: sd.frame_pose(MODEL, _data(), q, FRAME), dict(q=Q), ("q",)),
    "frame_jacobian": (lambda q: sd.frame_jacobian(MODEL, _data(), q, FRAME), dict(q=Q), ("q",)),
    "frame_velocity": (lambda q, qd: sd.frame_velocity(MODEL, _data(), q, qd, FRAME), dict(q=Q, qd=QD), ("q",)),
    "frame_bias_acceleration": (lambda q, qd: sd.frame_bias_acceleration(MODEL, _data(), q, qd, FRAME),
                                dict(q=Q, qd=QD), ("q",)),
    "rnea": (lambda q, qd, qdd, f_ext: sd.rnea(MODEL, _data(), q, qd, qdd, f_ext),
             dict(q=Q, qd=QD, qdd=QDD, f_ext=FEXT), ("q",)),
    "crba": (lambda q: sd.crba(MODEL, _data(), q), dict(q=Q), ("q",)),
    "aba": (lambda q, qd, tau, f_ext: sd.aba(MODEL, _data(), q, qd, tau, f_ext),
            dict(q=Q, qd=QD, tau=TAU, f_ext=FEXT), ("q",)),
    "minv": (lambda q: sd.minv(MODEL, _data(), q), dict(q=Q), ("q",)),
    "aba_batch": (lambda Q, QD, TAU: sd.aba_batch(MODEL, Q, QD, TAU), dict(Q=QS, QD=QDS, TAU=XS), ("Q",)),
    "rnea_batch": (lambda Q, QD, QDD: sd.rnea_batch(MODEL, Q, QD, QDD), dict(Q=QS, QD=QDS, QDD=XS), ("Q",)),
    "integrate": (lambda q, v: sd.integrate(MODEL, q, v), dict(q=Q, v=QD), ("q",)),
    "difference": (lambda q0, q1: sd.difference(MODEL, q0, q1), dict(q0=Q, q1=QS[0]), ("q0", "q1")),
}


def _bad_values(x: np.ndarray, is_q: bool) -> dict:
    x = np.asarray(x, dtype=float)
    out = {}
    if x.ndim == 1:
        out["too_long"] = np.r_[x, 0.0]
        out["too_short"] = x[:-1].copy()
        out["column"] = x.reshape(-1, 1)
        out["ragged"] = [list(x[:2]), list(x[2:])]
        out["scalar"] = 1.0
    else:
        out["wrong_columns"] = x[:, :-1].copy()
        out["flat"] = x.ravel().copy()
    out["strings"] = np.full(x.shape, "a")
    out["complex"] = x.astype(complex) + 1j
    out["objects"] = np.full(x.shape, None, dtype=object)
    nan = x.copy()
    nan.flat[nan.size // 2] = np.nan
    out["nan"] = nan
    inf = x.copy()
    inf.flat[-1] = -np.inf
    out["inf"] = inf
    if is_q:
        for o in QUAT_ADR[:1]:
            bad = x.copy()
            if bad.ndim == 1:
                bad[o:o + 4] *= 2.0
            else:
                bad[-1, o:o + 4] *= 2.0
            out["quat_norm2"] = bad
    return out


CASES = []
for fname, (fn, valid, qargs) in FUNCS.items():
    for arg, val in valid.items():
        for kind, bad in _bad_values(val, arg in qargs).items():
            CASES.append(pytest.param(fname, arg, kind, bad, id=f"{fname}-{arg}-{kind}"))


def _names(msg: str, name: str) -> bool:
    return re.search(rf"(?<![A-Za-z0-9_]){re.escape(name)}(?![A-Za-z0-9_])", msg) is not None


def test_valid_inputs_pass():
    for fname, (fn, valid, _) in FUNCS.items():
        out = fn(**valid)
        arrays = out if isinstance(out, tuple) else (out,)
        assert all(np.all(np.isfinite(a)) for a in arrays), fname


@pytest.mark.parametrize("fname, arg, kind, bad", CASES)
def test_bad_argument_raises_value_error_naming_it(fname, arg, kind, bad):
    fn, valid, _ = FUNCS[fname]
    kwargs = dict(valid)
    kwargs[arg] = bad
    with pytest.raises(ValueError) as exc:
        fn(**kwargs)
    assert _names(str(exc.value), arg), f"{fname}: message does not name {arg!r}: {exc.value}"


@pytest.mark.parametrize("fname", ["frame_pose", "frame_jacobian", "frame_velocity", "frame_bias_acceleration"])
@pytest.mark.parametrize("frame", ["no_such_frame", "TIP3", MODEL.nf, -1, None, 2.0])
def test_unknown_frame(fname, frame):
    data = _data()
    calls = {
        "frame_pose": lambda: sd.frame_pose(MODEL, data, Q, frame),
        "frame_jacobian": lambda: sd.frame_jacobian(MODEL, data, Q, frame),
        "frame_velocity": lambda: sd.frame_velocity(MODEL, data, Q, QD, frame),
        "frame_bias_acceleration": lambda: sd.frame_bias_acceleration(MODEL, data, Q, QD, frame),
    }
    with pytest.raises(ValueError, match="frame"):
        calls[fname]()


def test_frames_by_index_and_name_agree():
    data = _data()
    f = MODEL.frame_id(FRAME)
    assert np.array_equal(sd.frame_pose(MODEL, data, Q, f), sd.frame_pose(MODEL, data, Q, FRAME))
    assert np.array_equal(sd.frame_jacobian(MODEL, data, Q, np.int64(f)).copy(),
                          sd.frame_jacobian(MODEL, data, Q, FRAME).copy())


@pytest.mark.parametrize("fname", ["frame_jacobian", "frame_velocity", "frame_bias_acceleration"])
@pytest.mark.parametrize("reference", ["world", "LOCAL", "", None, 0])
def test_unknown_reference(fname, reference):
    data = _data()
    calls = {
        "frame_jacobian": lambda: sd.frame_jacobian(MODEL, data, Q, FRAME, reference),
        "frame_velocity": lambda: sd.frame_velocity(MODEL, data, Q, QD, FRAME, reference),
        "frame_bias_acceleration": lambda: sd.frame_bias_acceleration(MODEL, data, Q, QD, FRAME, reference),
    }
    with pytest.raises(ValueError, match="reference"):
        calls[fname]()


# ------------------------------------------------------------------------------------------- f_ext
@pytest.mark.parametrize("fname", ["rnea", "aba"])
def test_f_ext_dict_errors(fname):
    fn, valid, _ = FUNCS[fname]
    cases = {
        "unknown body": ({"no_such_body": np.ones(6)}, "no_such_body"),
        "frame, not a body": ({"tip3": np.ones(6)}, "tip3"),
        "body index out of range": ({MODEL.nb: np.ones(6)}, str(MODEL.nb)),
        "short wrench": ({MODEL.body_names[2]: np.ones(3)}, "f_ext"),
        "string wrench": ({MODEL.body_names[2]: ["a"] * 6}, "f_ext"),
        "nan wrench": ({MODEL.body_names[2]: np.r_[np.ones(5), np.nan]}, "f_ext"),
        "inf wrench": ({1: np.r_[np.ones(5), np.inf]}, "f_ext"),
    }
    for what, (fext, name) in cases.items():
        kwargs = dict(valid, f_ext=fext)
        with pytest.raises(ValueError) as exc:
            fn(**kwargs)
        msg = str(exc.value)
        assert _names(msg, name) or _names(msg, "f_ext"), f"{fname} f_ext {what}: {msg}"


def test_f_ext_dict_equals_array():
    data = _data()
    fext = np.zeros((MODEL.nb, 6))
    fext[2] = FEXT[2]
    fext[4] = FEXT[4]
    a = sd.rnea(MODEL, data, Q, QD, QDD, fext).copy()
    b = sd.rnea(MODEL, data, Q, QD, QDD, {MODEL.body_names[2]: FEXT[2], 4: FEXT[4]}).copy()
    assert np.array_equal(a, b)


# -------------------------------------------------------------------------------------- quaternions
def test_nearly_unit_quaternions_are_normalized_on_use():
    """Within the kernels' tolerance a quaternion is normalized, not rejected: results equal those of the
    normalized configuration."""
    data = _data()
    q = Q.copy()
    for o in QUAT_ADR:
        q[o:o + 4] *= 1.0004
    for name, f in [("crba", lambda x: sd.crba(MODEL, data, x)), ("minv", lambda x: sd.minv(MODEL, data, x)),
                    ("rnea", lambda x: sd.rnea(MODEL, data, x, QD, QDD)),
                    ("aba", lambda x: sd.aba(MODEL, data, x, QD, TAU)),
                    ("frame_jacobian", lambda x: sd.frame_jacobian(MODEL, data, x, FRAME)),
                    ("frame_pose", lambda x: sd.frame_pose(MODEL, data, x, FRAME))]:
        a, b = f(q).copy(), f(Q).copy()
        assert np.abs(a - b).max() <= 1e-12 * max(1.0, np.abs(b).max()), f"{name}: not normalized on use"


@pytest.mark.parametrize("scale", [0.0, 0.5, 1.01])
def test_non_unit_quaternion_rejected_and_named(scale):
    q = Q.copy()
    o = QUAT_ADR[-1]
    q[o:o + 4] *= scale
    j = [i for i in range(MODEL.nb) if MODEL.jnt_qadr[i] <= o < MODEL.jnt_qadr[i] + MODEL.jnt_nq[i]][0]
    with pytest.raises(ValueError) as exc:
        sd.crba(MODEL, _data(), q)
    msg = str(exc.value)
    assert _names(msg, "q") and MODEL.jnt_names[j] in msg, msg


# ---------------------------------------------------------------------------------------- integrate dt
@pytest.mark.parametrize("dt", [np.nan, np.inf, "a", None, 1j])
def test_integrate_bad_dt(dt):
    with pytest.raises(ValueError) as exc:
        sd.integrate(MODEL, Q, QD, dt)
    assert _names(str(exc.value), "dt"), str(exc.value)


# ----------------------------------------------------------------------------------- data of another model
def _pair():
    """Two models with the same nq and nb but different nv (spherical + revolute: nq 5, nv 4; planar +
    universal: nq 5, nv 5)."""
    def build(name, j1, j2):
        b = sd.ModelBuilder(name)
        b.add_body("a", "world", j1, inertia=sd.Inertia.sphere(1.0, 0.1, (0.1, 0.0, 0.0)))
        b.add_body("b", "a", j2, sd.Transform.from_pose(None, (0.0, 0.0, 1.0)),
                   inertia=sd.Inertia.sphere(1.0, 0.1, (0.0, 0.1, 0.0)))
        return b.finalize()

    A = build("A", J.Spherical(), J.Revolute((0.0, 1.0, 0.0)))
    B = build("B", J.Planar(), J.Universal())
    assert (A.nq, A.nb) == (B.nq, B.nb) and A.nv != B.nv
    return A, B


@pytest.mark.parametrize("fname", ["fk", "frame_pose", "frame_jacobian", "frame_velocity", "frame_bias_acceleration",
                                   "rnea", "crba", "aba", "minv"])
@pytest.mark.parametrize("other", ["same_nq_nb", "different_nb", "not_data"])
def test_data_of_another_model(fname, other):
    A, B = _pair()
    if other == "same_nq_nb":
        data = B.data()
    elif other == "different_nb":
        data = MODEL.data()
    else:
        data = {"q": np.zeros(A.nq)}
    q, qd = A.neutral_q(), np.zeros(A.nv)
    calls = {
        "fk": lambda: sd.fk(A, data, q, qd),
        "frame_pose": lambda: sd.frame_pose(A, data, q, "b"),
        "frame_jacobian": lambda: sd.frame_jacobian(A, data, q, "b"),
        "frame_velocity": lambda: sd.frame_velocity(A, data, q, qd, "b"),
        "frame_bias_acceleration": lambda: sd.frame_bias_acceleration(A, data, q, qd, "b"),
        "rnea": lambda: sd.rnea(A, data, q, qd, qd),
        "crba": lambda: sd.crba(A, data, q),
        "aba": lambda: sd.aba(A, data, q, qd, qd),
        "minv": lambda: sd.minv(A, data, q),
    }
    with pytest.raises(ValueError) as exc:
        calls[fname]()
    assert _names(str(exc.value), "data"), str(exc.value)


def test_batch_error_names_the_state():
    Qb = QS.copy()
    Qb[1, 0] = np.nan
    with pytest.raises(ValueError, match=r"state 1 .*Q"):
        sd.aba_batch(MODEL, Qb, QDS, XS)
    QDb = QDS.copy()
    QDb[2, 0] = np.inf
    with pytest.raises(ValueError, match=r"state 2 .*QD"):
        sd.rnea_batch(MODEL, QS, QDb, XS)
