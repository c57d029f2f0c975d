"""The step derivatives of a free body without an active contact: the simulator moves it by the ballistic
rule or not as the step LCP's round-off impulses decide, and the derivatives follow its choice."""

import numpy as np

import soadyn as sd
from soadyn.step_derivatives import step_derivatives
from tests.support import assert_close
from tests.unit.test_step_derivatives import box_on_box, settings


def test_a_flying_box_follows_the_simulators_ballistic_rule():
    """A box spinning fast just above the base's face (one contact in the margin, separating): the step LCP's
    round-off impulses, or none, decide whether the kernel moves the box by the ballistic rule; the
    derivatives stand on the simulator's choice (step_derivatives raises if its step differs)."""
    m = box_on_box(base=(0.15, 0.15, 0.1))
    sim = sd.Simulator(m, dt=2e-3, contact=settings())
    q = np.array([0.11676134735651382, 0.04882596343526366, 0.05457603883908943, 0.2747729556940876,
                  -0.00547478947366623, 0.3179983906733384, 0.9073846334540392])
    qd = np.array([-3.230460663324377, 13.866238911077517, -3.8406792589788687, 0.9782189237416827,
                   -0.6007676311202053, -0.5892422437300947])
    d = step_derivatives(sim, q, qd)
    assert d.modes == ("separating",)
    assert_close(d.q_next, sim.step(q, qd)[0], 0.0, "q+")
