"""Passive joint spring-dampers: builder checks, ``tau_passive = -k (q - q_ref) - c qd`` in Python and in the
kernel helper, and their effect in the rollout kernels (a damped torsion oscillator in closed form; a
four bar whose spring holds it against gravity)."""

import math

import numpy as np
import pytest

import soadyn as sd
from soadyn import joints as J
from soadyn._kernels import sim as _ks
from soadyn.model import ModelError
from soadyn.spatial import Inertia, Transform
from tests.support import ALGORITHMS, SAME_MATH, assert_close

INERTIA = 0.5  # kg m^2 about the hinge axis


def _oscillator(k=8.0, c=0.4, ref=0.3):
    b = sd.ModelBuilder("oscillator", gravity=(0.0, 0.0, 0.0))
    b.add_body("rotor", "world", J.Revolute((0.0, 0.0, 1.0)), None,
               Inertia(1.0, (0.0, 0.0, 0.0), np.diag([1.0, 1.0, INERTIA])), joint_name="hinge")
    b.set_spring("hinge", k, c, ref)
    return b.finalize()


def test_default_models_have_no_springs():
    m = sd.models.pendulum(3)
    assert not m.has_springs
    for name in ("dof_stiffness", "dof_damping", "dof_springref"):
        a = getattr(m, name)
        assert a.shape == (m.nv,) and not a.flags.writeable and np.all(a == 0.0), name


def test_model_fields_and_passive_forces():
    b = sd.ModelBuilder("springs")
    b.add_body("base", "world", J.Free(), None, Inertia.sphere(2.0, 0.2))
    b.add_body("arm", "base", J.Revolute((0.0, 1.0, 0.0)), Transform.from_pose(None, (0.1, 0, 0)),
               Inertia.sphere(1.0, 0.1, com=(0.2, 0, 0)), joint_name="shoulder")
    b.add_body("slide", "arm", J.Prismatic((1.0, 0.0, 0.0)), None, Inertia.sphere(0.5, 0.05), joint_name="rail")
    b.set_spring("shoulder", 30.0, 2.0, -0.2)
    b.set_spring("rail", 100.0, 0.0, 0.05)
    model = b.finalize()
    assert model.has_springs
    k = model.jnt_vadr[model.joint_id("shoulder")]
    assert model.dof_stiffness[k] == 30.0 and model.dof_damping[k] == 2.0 and model.dof_springref[k] == -0.2
    rng = np.random.default_rng(1)
    q = model.random_q(rng)
    qd = rng.normal(size=model.nv)
    expected = np.zeros(model.nv)
    for name, (kk, cc, rr) in {"shoulder": (30.0, 2.0, -0.2), "rail": (100.0, 0.0, 0.05)}.items():
        i = model.joint_id(name)
        expected[model.jnt_vadr[i]] = -kk * (q[model.jnt_qadr[i]] - rr) - cc * qd[model.jnt_vadr[i]]
    assert_close(model.passive_forces(q, qd), expected, SAME_MATH, "passive forces")
    # the kernel helper adds the same forces to tau
    tau = rng.normal(size=model.nv)
    out = np.empty(model.nv)
    _ks.passive_forces(model.jnt_qadr, model.jnt_vadr, model.jnt_nv, model.dof_stiffness, model.dof_damping,
                       model.dof_springref, q, qd, tau, out)
    assert_close(out, tau + expected, SAME_MATH, "kernel passive forces")


@pytest.mark.parametrize("bad, match", [
    (dict(stiffness=-1.0), "stiffness"), (dict(damping=-0.1), "damping"), (dict(stiffness=np.nan), "stiffness"),
    (dict(reference=np.inf), "reference"), (dict(stiffness="x"), "stiffness"),
])
def test_set_spring_rejects_bad_values(bad, match):
    b = sd.ModelBuilder()
    args = dict(stiffness=1.0, damping=0.0, reference=0.0) | bad
    with pytest.raises(ValueError, match=match):
        b.set_spring("hinge", **args)


def test_set_spring_rejects_bad_joints():
    for joint, jname, match in ((J.Spherical(), "ball", "1-dof"), (J.Revolute((0, 0, 1)), "other", "not a joint")):
        b = sd.ModelBuilder()
        b.add_body("b", "world", joint, None, Inertia.sphere(1.0, 0.1), joint_name="ball" if jname == "ball" else "j")
        b.set_spring(jname, 1.0)
        with pytest.raises(ModelError, match=match):
            b.finalize()


def test_damped_oscillator_closed_form():
    """I th'' = -k (th - ref) - c th': RK4 at 1 ms against the closed-form underdamped solution."""
    k, c, ref = 8.0, 0.4, 0.3
    model = _oscillator(k, c, ref)
    th0 = 1.0
    traj = sd.Simulator(model, 1e-3, "rk4").rollout([th0], [0.0], duration=2.0, progress=False)
    wn = math.sqrt(k / INERTIA)
    zeta = c / (2.0 * math.sqrt(k * INERTIA))
    wd = wn * math.sqrt(1.0 - zeta * zeta)
    t = traj.t
    x = np.exp(-zeta * wn * t) * (th0 - ref) * (np.cos(wd * t) + zeta * wn / wd * np.sin(wd * t)) + ref
    assert_close(traj.q[:, 0], x, ALGORITHMS, "oscillator angle")


def test_spring_holds_loop_at_rest():
    """Planar four bar under gravity: a crank spring whose preload balances gravity at the assembled state
    keeps the closed chain at rest (loop rollout kernel); without the spring it moves."""
    from soadyn.loops import forward_dynamics
    from soadyn.models.mechanisms import initial_state, planar_four_bar

    plain = planar_four_bar()
    st = initial_state(plain)
    data = plain.data()
    # the crank torque that holds the four bar: the closed-chain accelerations are linear in tau
    i = plain.joint_id(st.driver)
    kq = plain.jnt_vadr[i]
    a0 = forward_dynamics(plain, data, st.q, st.qd, np.zeros(plain.nv)).copy()
    e = np.zeros(plain.nv)
    e[kq] = 1.0
    a1 = forward_dynamics(plain, data, st.q, st.qd, e).copy() - a0
    hold = -a0[kq] / a1[kq]
    assert_close(a0 + hold * a1, np.zeros(plain.nv), 1e-9, "holding torque accelerations")
    stiff = 50.0
    ref = st.q[plain.jnt_qadr[i]] + hold / stiff
    sprung = _with_spring(plain, kq, stiff, ref)
    sim = sd.Simulator(sprung, 1e-3, "rk4")
    traj = sim.rollout(st.q, st.qd, duration=0.2, progress=False)
    assert_close(traj.q, np.repeat(st.q[None], len(traj), 0), 1e-9, "four bar held by its spring")
    free = sd.Simulator(plain, 1e-3, "rk4").rollout(st.q, st.qd, duration=0.2, progress=False)
    assert np.abs(free.q[-1] - st.q).max() > 1e-3


def _with_spring(model, k, stiffness, ref):
    import dataclasses

    s = np.zeros(model.nv)
    r = np.zeros(model.nv)
    s[k], r[k] = stiffness, ref
    ro = []
    for a in (s, np.zeros(model.nv), r):
        a = a.copy()
        a.setflags(write=False)
        ro.append(a)
    return dataclasses.replace(model, dof_stiffness=ro[0], dof_damping=ro[1], dof_springref=ro[2])
