"""The contact step's Jacobian (soadyn.step_derivatives) against MuJoCo's mjd_transitionFD where the two models
agree: a step without contact, and the directions a frictionless contact leaves free (soadyn.bench.
step_derivatives); along the normal, soadyn's hard contact and MuJoCo's soft one differ by design."""

import pytest

from soadyn.bench import step_derivatives as B


@pytest.mark.external
@pytest.mark.parametrize("name", list(B.SCENES))
def test_step_jacobian_matches_mujoco_where_the_models_agree(name, tmp_path):
    pytest.importorskip("mujoco")
    e = B.compare(name, tmp_path)  # raises BenchError beyond SHARED_TOL in the shared directions
    assert e["shared_max_abs_diff"] <= B.SHARED_TOL
    if "dvz_dvz" in e:  # hard contact: the normal velocity after the step does not depend on the one before
        assert abs(e["dvz_dvz"]["soadyn"]) <= B.SHARED_TOL < e["dvz_dvz"]["mujoco"]
