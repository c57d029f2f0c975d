"""The contact step's defaults on the scene suite's closed-form checks (:mod:`soadyn.bench.scenes_checks`):
ball drops (no hop with e = 0, apexes e^(2k) h, no penetration), the box on an incline turned 45 deg about z
(friction that does not depend on the world's orientation), rolling and sliding-to-rolling spheres (also
along a diagonal), solo12 standing still; and the other solvers and friction models on the same checks.
The incline at heading 0 and Newton's cradle are in ``test_scenes_bench.py``, the Drumwright models in
``test_contact_hold.py``."""

import pytest

from soadyn.bench import scenes as B
from soadyn.bench import scenes_checks as C
from soadyn.bench.scenes_engines import record
from soadyn.contact import ContactSettings

CASES = {c.name: c for c in B.CASES}


def check(name: str, settings=None) -> dict:
    case = CASES[name]
    scene = case.build()
    return C.check(case.check, scene, record("soadyn", scene, case.quick, settings))


@pytest.mark.parametrize("name", ["drop_e0", "drop_e0.5", "drop_e0.9",
                                  "incline_mu0.3_stick_h45", "incline_mu0.3_slide_h45",
                                  "incline_mu0.6_stick_h45", "incline_mu0.6_slide_h45",
                                  "rolling_sphere", "rolling_capsule", "sliding_x", "sliding_diagonal",
                                  "solo12_standing"])
def test_default_settings_pass_the_scene_checks(name):
    out = check(name)
    assert out["ok"], out


@pytest.mark.parametrize("name", ["drop_e0", "drop_e0.5", "drop_e0.9", "incline_mu0.6_stick_h45",
                                  "incline_mu0.3_slide_h45", "incline_mu0.6_slide_h0", "sliding_diagonal"])
def test_pgs_passes_the_scene_checks(name):
    out = check(name, ContactSettings(solver="pgs"))
    assert out["ok"], out
