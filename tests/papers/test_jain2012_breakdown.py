"""The stage loops behind the Jain 2012 Table 1 cost breakdown (soadyn._kernels.stages): each stage of the TA
and CE forward dynamics recomputes what the whole call computes, checked against independent routes (the
ABA, the dense Schur complement G M^-1 G^T, the public forward dynamics); and the breakdown's text."""

import numpy as np
import pytest

import soadyn as sd
from soadyn import embedding, loops
from soadyn._kernels import stages
from soadyn.experiments import jain2012_breakdown as bd
from soadyn.models import initial_state, planar_four_bar
from tests.support import ALGORITHMS, assert_close


@pytest.fixture(scope="module")
def four_bar():
    model = planar_four_bar()
    st = initial_state(model)
    qd = np.array([0.7, -0.4, 0.3])[:model.nv] if model.nv == 3 else np.full(model.nv, 0.3)
    qd = loops.project(model, model.data(), st.q, qd)[1]  # a consistent velocity
    return model, st.q, qd, st.tau(model)


def test_ta_stages_recompute_the_call(four_bar):
    model, q, qd, tau = four_bar
    d = model.data()
    qdd = loops.forward_dynamics(model, d, q, qd, tau).copy()
    lam = d.loop_lambda.copy()
    args = loops.ta_kernel_arguments(model, d, q, qd, tau)
    assert stages.ta_stage(stages.TA_STAGES.index("aba"), 3, *args) == 0
    assert_close(d.qdd, sd.aba(model, model.data(), q, qd, tau), ALGORITHMS, "free accelerations (stage aba)")
    assert stages.ta_stage(stages.TA_STAGES.index("schur"), 3, *args) == 0
    G = loops.constraint_jacobian(model, model.data(), q)
    K = G @ sd.minv(model, model.data(), q) @ G.T
    assert_close(d.loop_K, K, ALGORITHMS, "Schur complement (stage schur) vs dense G M^-1 G^T")
    for name in ("rows", "solve", "correction"):
        assert stages.ta_stage(stages.TA_STAGES.index(name), 3, *args) == 0
        assert_close(d.loop_lambda, lam, ALGORITHMS, f"multipliers after stage {name}")
    assert stages.ta_stage(stages.TA_STAGES.index("all"), 2, *args) == 0
    assert_close(d.qdd, qdd, ALGORITHMS, "qdd (stage all)")


def test_ce_stages_recompute_the_call(four_bar):
    model, q, qd, tau = four_bar
    em = model.embed_loops()
    ed = em.data()
    x, xd = em.from_tree_state(q, qd)
    xdd = embedding.forward_dynamics(em, ed, x, xd, tau).copy()
    q_tree = ed.q.copy()
    args = embedding.ce_kernel_arguments(em, ed)
    for k, name in enumerate(stages.CE_STAGES):
        assert stages.ce_stage(k, 3, *args) == 0, name
        assert_close(ed.q, q_tree, ALGORITHMS, f"tree configuration after stage {name}")
        assert_close(ed.xdd, xdd, ALGORITHMS, f"xdd after stage {name}")


def test_breakdown_text():
    stage = {"aba": 10.0, "rows": 2.0, "schur": 5.0, "solve": 1.0, "correction": 9.0, "all": 27.0}
    m = {"ta": {"stages": stage, "fixed": 3.0, "kkt": 90.0},
         "fa": {"stages": {k: 20 * v for k, v in stage.items()}, "fixed": 3.0, "kkt": 900.0, "springs": 40.0},
         "ce": {"stages": {"loop_solve": 2.0, "hinge_maps": 1.0, "accelerations": 9.0, "all": 12.5}, "fixed": 3.0}}
    run = {"ce_analytic": 15.0, "ta_none": 40.0, "fa_none": 1200.0}
    text = bd.explain(m, run)
    assert set(text) == {"ta", "fa"}
    assert "TA/CE 2.2 per evaluation" in text["ta"] and "TA/CE 2.7:" in text["ta"]
    assert "FA/CE is 43 per kernel evaluation and 80 in rollouts" in text["fa"]
