"""The simulator's contact step (the OS kernel, Jain 2014 Eq. 53, O(N + n_c^2)) against the dense formulations
built exactly as the paper writes them (:mod:`soadyn.contact.formulations`: NMC, MC, RMC, OS, NMC/OS), on
states whose contacts touch exactly (zero gap, so no position-error terms enter) and without restitution."""

import math

import numpy as np
import pytest

import soadyn as sd
from soadyn import joints as J
from soadyn.contact import ContactSettings, formulations
from soadyn.spatial import Inertia
from tests.support import assert_close

DT = 1e-3


def touching_pendulum():
    """The 3-link scene pendulum, straight, with its last sphere resting on the floor (gap 0)."""
    model = sd.models.pendulum(3, scene="jain2014")
    r = 2.0
    th = math.acos((10.0 - r) / (12.0 - r))
    q = np.array([th, 0.0, 0.0])
    qd = np.array([-1.5, 0.7, 0.4])  # sweeping along the floor and into it
    return model, q, qd


def sliding_box():
    b = sd.ModelBuilder("box", gravity=(0.0, 0.0, -9.81))
    b.add_body("box", "world", J.Free(), inertia=Inertia.box(2.0, (0.4, 0.3, 0.2)))
    b.add_geom("box", "box", "box", (0.2, 0.15, 0.1), mu=0.3)
    b.add_geom("floor", "world", "halfspace", None, mu=0.3)
    model = b.finalize()
    q = np.array([0.0, 0.0, 0.1, 0.0, 0.0, 0.0, 1.0])
    # sliding and pressing, not spinning: the kernel steps a free body's velocity-product term exactly
    # (joints.add_frame_rates), the dense forms by the explicit body-frame update; they agree without spin
    qd = np.array([0.0, 0.0, 0.0, 1.0, -0.5, -0.3])
    return model, q, qd


CASES = {"pendulum": touching_pendulum, "box": sliding_box}


@pytest.mark.parametrize("case", sorted(CASES))
@pytest.mark.parametrize("formulation", ["os", "mc", "rmc", "nmc", "nmc_os"])
def test_kernel_step_matches_dense_formulations(case, formulation):
    model, q, qd = CASES[case]()
    if formulation.startswith("nmc") and model.nb > 1:
        # the FA velocity step enforces the hinges at G_b(x) V+ (Eq. 21), which differs from the tree's step by
        # dt (Jdot qd): the forms agree exactly only where the hinge velocities vanish
        qd = np.zeros_like(qd)
    data = model.data()
    found = sd.contact.collide(model, data, q)
    assert found.count >= 1
    assert np.abs(found.gap).max() < 1e-12
    contacts = formulations.contact_set(model, found.body, found.point, found.normal, found.mu)
    # the paper's settings: contacts as detected at q, the fixed pyramid of the dense forms
    sim = sd.Simulator(model, DT, contact=ContactSettings.classic(restitution=0.0))
    q_next, qd_plus = sim.step(q, qd)
    ref = formulations.solve(formulation, model, q, qd, np.zeros(model.nv), contacts, DT, n_f=4,
                             contact_bias=False)
    assert_close(world_velocities(model, q_next, qd_plus), world_velocities(model, q, ref.qd_plus), 1e-8,
                 f"{case}: post-step velocity, kernel OS vs dense {formulation}")


def world_velocities(model, q, qd):
    """``qd`` with each free joint's velocity as world-axes angular and centre-of-mass velocities: the step
    leaves a free body's velocity in its new body axes (``Simulator`` integrates the frame's turn exactly),
    the dense forms in the axes of the step's start; the world velocities agree."""
    out = np.array(qd, dtype=float)
    for i in np.flatnonzero(model.jnt_type == J.FREE):
        k, j = model.jnt_qadr[i], model.jnt_vadr[i]
        R = sd.spatial.quat_to_rot(q[k + 3:k + 7])
        c = model.body_I[i][[2, 0, 1], [4, 5, 3]] / model.body_I[i][3, 3]
        w = qd[j:j + 3]
        out[j:j + 3] = R @ w
        out[j + 3:j + 6] = R @ (qd[j + 3:j + 6] + np.cross(w, c))
    return out


def test_contact_actually_acts():
    """The comparison above is not vacuous: without contact the step differs."""
    model, q, qd = touching_pendulum()
    sim = sd.Simulator(model, DT, contact=ContactSettings(restitution=0.0))
    _, with_contact = sim.step(q, qd)
    free = sd.Simulator(model, DT)
    _, without = free.step(q, qd)
    assert np.abs(with_contact - without).max() > 1e-3
