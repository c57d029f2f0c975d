"""The resting stacks and pyramid of the scene suite with the default contact settings for the suite's full
10 s: no box drifts or sinks by 0.5 mm, the kinetic energy ends below 1e-6 J, no step fails."""

import pytest

from soadyn.bench import scenes as B
from soadyn.bench import scenes_checks as C
from soadyn.bench.scenes_engines import record


@pytest.mark.parametrize("name", ["stack5", "stack5_staggered", "stack10", "pyramid6"])
def test_stacks_and_pyramid_rest_for_ten_seconds(name):
    case = next(c for c in B.CASES if c.name == name)
    assert case.check == "rest" and case.duration == 10.0
    run = record("soadyn", case.build(), case.duration)
    assert run.failure is None and run.t[-1] >= case.duration - 1e-9
    assert C.drift(run) < C.REST_DRIFT, f"drift {C.drift(run):.3e} m"
    assert run.penetration < C.REST_PENETRATION, f"penetration {run.penetration:.3e} m"
    assert run.ke[-1] < C.REST_KE, f"kinetic energy {run.ke[-1]:.3e} J at the end"
