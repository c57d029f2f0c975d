"""Closed-chain API: loop declarations that cannot work, bad states, impossible assemblies and the input
checks of the mechanisms and the fully augmented model (docs/architecture.md, Public API: errors name the culprit)."""

from __future__ import annotations

import numpy as np
import pytest

import soadyn as sd
from soadyn import joints as J
from soadyn import loops
from soadyn.augmented import fa_forces, fa_state, fully_augmented, hinge_constraint_rows
from soadyn.model import ModelError
from soadyn.models import mechanisms as mech


def _rod(mass=1.0, length=1.0):
    return sd.Inertia(mass, (0.5 * length, 0, 0), np.diag([1e-3, mass * length ** 2 / 12, mass * length ** 2 / 12]))


def _four_bar(crank=0.5, coupler=1.2, rocker=1.0, ground=1.0, loop=("pin", "rocker_end", "coupler_end", "planar_pin"),
              **loop_kw):
    b = sd.ModelBuilder("four_bar_test", gravity=(0, -9.81, 0))
    b.add_body("crank", "world", J.Revolute((0, 0, 1)), None, _rod(1.0, crank))
    b.add_body("coupler", "crank", J.Revolute((0, 0, 1)), sd.Transform.from_pose(None, (crank, 0, 0)), _rod(2.0, coupler))
    b.add_body("rocker", "world", J.Revolute((0, 0, 1)), sd.Transform.from_pose(None, (ground, 0, 0)), _rod(1.5, rocker))
    b.add_frame("coupler_end", "coupler", sd.Transform.from_pose(None, (coupler, 0, 0)))
    b.add_frame("coupler_mid", "coupler", sd.Transform.from_pose(None, (0.5 * coupler, 0, 0)))
    b.add_frame("rocker_end", "rocker", sd.Transform.from_pose(None, (rocker, 0, 0)))
    b.add_frame("ground_point", "world", sd.Transform.from_pose(None, (0.3, 0.2, 0)))
    b.add_frame("ground_point2", "world", sd.Transform.from_pose(None, (0.6, 0.2, 0)))
    b.add_loop(*loop, **loop_kw)
    return b.finalize()


# ------------------------------------------------------------------------------------------ declarations
def test_loop_between_frames_on_one_body_names_the_loop():
    with pytest.raises(loops.LoopError, match=r"loop 'same'.*'coupler_end' and 'coupler_mid'.*body 'coupler'"):
        _four_bar(loop=("same", "coupler_end", "coupler_mid", "ball"))


def test_loop_between_two_world_frames():
    with pytest.raises(loops.LoopError, match=r"loop 'grounded'.*the world"):
        _four_bar(loop=("grounded", "ground_point", "ground_point2", "ball"))


def test_loop_on_body_and_its_own_frame():
    with pytest.raises(loops.LoopError, match="loop 'self'"):
        _four_bar(loop=("self", "coupler", "coupler_end", "weld"))


@pytest.mark.parametrize("role, frames", [("frame_a", ("nowhere", "coupler_end")),
                                          ("frame_b", ("rocker_end", "nowhere"))])
def test_unknown_frame(role, frames):
    with pytest.raises(loops.LoopError, match=rf"loop 'pin': {role} 'nowhere' is not a frame"):
        _four_bar(loop=("pin", *frames, "planar_pin"))


def test_world_itself_is_not_a_loop_frame():
    with pytest.raises(loops.LoopError, match="loop 'pin'.*frame fixed to the world"):
        _four_bar(loop=("pin", "world", "coupler_end", "planar_pin"))


@pytest.mark.parametrize("kind, message", [
    ("hinge", r"unknown kind 'hinge'"),
    (np.ones((2, 5)), r".*finite \(d x 6\) selection"),
    (np.ones(6), r".*finite \(d x 6\) selection"),
    (np.zeros((7, 6)), r".*finite \(d x 6\) selection"),
    (np.full((1, 6), np.nan), r".*finite \(d x 6\) selection"),
    (np.array([[0, 0, 0, 1.0, 0, 0], [0, 0, 0, 2.0, 0, 0]]), ".*linearly dependent"),
])
def test_bad_kinds(kind, message):
    with pytest.raises(loops.LoopError, match="loop 'pin': " + message):
        _four_bar(loop=("pin", "rocker_end", "coupler_end", kind))


def test_universal_loop_needs_nonzero_axes():
    with pytest.raises(loops.LoopError, match="loop 'pin': axis2 must be a finite non-zero"):
        _four_bar(loop=("pin", "rocker_end", "coupler_end", "universal"), axis=(0, 0, 1), axis2=(0, 0, 0))


def test_duplicate_loop_name():
    b = sd.ModelBuilder()
    b.add_loop("l", "a", "b", "ball")
    with pytest.raises(ModelError, match="duplicate loop name 'l'"):
        b.add_loop("l", "a", "b", "ball")


def test_custom_selection_is_kept():
    sel = np.array([[0, 0, 0, 1.0, 0, 0], [0, 0, 0, 0, 1.0, 0]])
    m = _four_bar(loop=("pin", "rocker_end", "coupler_end", sel))
    assert m.nc == 2 and m.loop_kind[0] == loops.CUSTOM
    np.testing.assert_array_equal(m.loop_sel[0, :2], sel)


# -------------------------------------------------------------------------------------------- evaluation
def test_model_without_loops():
    m = sd.models.pendulum(2)
    with pytest.raises(loops.LoopError, match="has no loops"):
        loops.forward_dynamics(m, m.data(), m.neutral_q(), np.zeros(m.nv), np.zeros(m.nv))


@pytest.mark.parametrize("arg, method", [
    ("q", "ta"), ("q", "kkt"),
    ("qd", "ta"), ("qd", "kkt"),
    ("tau", "ta"), ("tau", "kkt"),
    ("f_ext", "ta"), ("f_ext", "kkt"),
])
def test_nan_states_are_rejected(arg, method):
    m = mech.planar_four_bar()
    st = mech.initial_state(m)
    args = {"q": st.q.copy(), "qd": st.qd.copy(), "tau": st.tau(m), "f_ext": np.zeros((m.nb, 6))}
    args[arg].flat[1] = np.nan
    with pytest.raises(ValueError, match=f"{arg}: contains NaN or inf"):
        loops.forward_dynamics(m, m.data(), args["q"], args["qd"], args["tau"], f_ext=args["f_ext"], method=method)


def test_nan_configuration_in_constraint_state():
    m = mech.planar_four_bar()
    q = mech.initial_state(m).q.copy()
    q[0] = np.inf
    with pytest.raises(ValueError, match="q: contains NaN or inf"):
        loops.constraint_state(m, m.data(), q)


def test_bad_shapes_method_and_stabilization():
    m = mech.planar_four_bar()
    st = mech.initial_state(m)
    d = m.data()
    with pytest.raises(ValueError, match="q: expected shape"):
        loops.forward_dynamics(m, d, st.q[:2], st.qd, st.tau(m))
    with pytest.raises(ValueError, match="method: expected one of"):
        loops.forward_dynamics(m, d, st.q, st.qd, st.tau(m), method="lu")
    for bad in ((1.0,), (-1.0, 1.0), (np.nan, 1.0), "ab"):
        with pytest.raises(ValueError, match="baumgarte"):
            loops.forward_dynamics(m, d, st.q, st.qd, st.tau(m), baumgarte=bad)
    with pytest.raises(ValueError, match="data: not a Data of this model"):
        loops.forward_dynamics(m, mech.planar_four_bar().data(), st.q, st.qd, st.tau(m))


# -------------------------------------------------------------------------------------------- assembly
def test_impossible_assembly_names_the_loop_and_residual():
    # the coupler (0.1) and the rocker (0.3) cannot bridge the gap of at least 1.0 - 0.5 between the
    # crank tip and the rocker pivot
    m = _four_bar(coupler=0.1, rocker=0.3)
    with pytest.raises(loops.AssemblyError, match=r"loop 'pin' cannot be closed \(residual") as info:
        loops.assemble(m, np.array([0.0, 0.0, np.pi]))
    err = info.value
    # the pin can come no closer than the gap 0.5 - 0.4 = 0.1: max-norm residual >= 0.1 / sqrt(2)
    assert err.loop == "pin" and err.residual >= 0.1 / np.sqrt(2) - 1e-9, (err.loop, err.residual)
    assert err.q.shape == (m.nq,) and np.all(np.isfinite(err.q))


def test_assembly_with_a_held_driver_keeps_it():
    m = mech.planar_four_bar()
    q = loops.assemble(m, [0.4, -0.5, 1.4], fixed=["crank_joint"])
    assert q[0] == 0.4 and np.abs(loops.constraint_error(m, m.data(), q)).max() <= 1e-10


def test_assembly_rejects_unknown_fixed_joint():
    m = mech.planar_four_bar()
    with pytest.raises(ValueError, match="unknown joint 'crank'"):
        loops.assemble(m, m.neutral_q(), fixed=["crank"])


# ------------------------------------------------------------------------------------ mechanisms and FA
def test_mechanism_inputs():
    with pytest.raises(ValueError, match="k must be a positive integer"):
        mech.four_bar_chain(0)
    with pytest.raises(ValueError, match="k must be a positive integer"):
        mech.four_bar_chain(1.5)
    with pytest.raises(ValueError, match="kind: expected 'ball' or 'revolute'"):
        mech.redundant_four_bar("weld")
    with pytest.raises(ValueError, match="'pendulum2' is not a mechanism"):
        mech.initial_state(sd.models.pendulum(2))


def test_mechanism_state():
    m = mech.planar_quick_return()
    st = mech.initial_state(m, angle=2.0)
    assert st.driver == "crank_joint" and st.q[m.jnt_qadr[m.joint_id("crank_joint")]] == 2.0
    assert np.abs(loops.constraint_error(m, m.data(), st.q)).max() <= 1e-12
    tau = st.tau(m)
    assert tau[m.jnt_vadr[m.joint_id("crank_joint")]] == st.torque and np.count_nonzero(tau) == 1
    assert np.all(st.qd == 0)


def test_fully_augmented_input_checks():
    with pytest.raises(ValueError, match="model: expected a soadyn Model"):
        fully_augmented("four bar")
    # a massless body is fine inside a tree (its child carries inertia along its axis) but not free
    b = sd.ModelBuilder("massless_link")
    b.add_body("ghost", "world", J.Revolute((0, 0, 1)))
    b.add_body("mass", "ghost", J.Revolute((0, 0, 1)), sd.Transform.from_pose(None, (1, 0, 0)), _rod())
    with pytest.raises(ModelError, match="fully augmented model of 'massless_link'.*ghost"):
        fully_augmented(b.finalize())


def test_fa_state_and_forces_input_checks():
    m = mech.planar_four_bar()
    st = mech.initial_state(m)
    other = fully_augmented(mech.planar_crank_slider())
    with pytest.raises(ValueError, match="fa_model: 'planar_crank_slider_fa' is not the fully augmented model"):
        fa_state(m, other, st.q)
    fa = fully_augmented(m)
    with pytest.raises(ValueError, match="q: expected shape"):
        fa_state(m, fa, st.q[:2])
    with pytest.raises(ValueError, match="tau, f_ext: contain NaN"):
        fa_forces(m, st.q, np.array([np.nan, 0, 0]))


def test_fa_state_detects_a_foreign_model():
    """Same bodies and names, another geometry: the FA hinge loops of one do not close at the other's state."""
    m = mech.planar_four_bar()
    fa_other = fully_augmented(_four_bar(crank=0.6))
    with pytest.raises(ValueError, match="FA hinge position error .* at loop 'coupler_joint'"):
        fa_state(m, fa_other, mech.initial_state(m).q)


@pytest.mark.parametrize("S, rows", [
    (np.eye(6)[:, [2]], np.eye(6)[[0, 1, 3, 4, 5]]),  # revolute z
    (np.eye(6)[:, [3, 4, 5]], np.eye(6)[[0, 1, 2]]),  # translations
    (np.eye(6)[:, :3], np.eye(6)[3:]),  # spherical
])
def test_hinge_constraint_rows_axis_aligned(S, rows):
    np.testing.assert_allclose(hinge_constraint_rows(S), rows, atol=1e-15)


def test_hinge_constraint_rows_general(rng):
    S = rng.normal(size=(6, 2))
    Q = hinge_constraint_rows(S)
    assert Q.shape == (4, 6)
    np.testing.assert_allclose(Q @ Q.T, np.eye(4), atol=1e-12)
    np.testing.assert_allclose(Q @ S, 0.0, atol=1e-12)
