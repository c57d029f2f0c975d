"""Every contact LCP answer is checked before it is used, in the rollout and in ``Simulator.step``: the
statistics say which path solved each step (warm start, Lemke, regularized, PGS) and its residual; the
warm start gives the cold solver's motion; PGS answers are checked on the whole pyramid LCP; a step that
cannot be solved raises an error naming that LCP (as the kernel built it) and its residual, the state kept."""

import math
from pathlib import Path

import numpy as np
import pytest

import soadyn as sd
from soadyn import joints as J
from soadyn import lcp
from soadyn._kernels.contact_solve import WARM_PIVOTS
from soadyn.contact import ContactSettings
from soadyn.contact.stepper import PATHS, STAT_COLUMNS
from soadyn.lcp import LCP_TOL
from soadyn.models import scenes as S
from soadyn.spatial import Inertia, Transform

G = 9.81
DT = 1e-3


def warm_agreement(steps: int) -> tuple[float, float]:
    """Largest differences (m, m/s) between warm-started and cold runs of ``steps`` steps: both apply checked
    answers of the same LCPs, each within LCP_TOL of the velocity scale g dt, so the velocities may part by
    ``LCP_TOL g dt`` a step and the positions by ``dt`` times the sum of those."""
    dv = steps * LCP_TOL * G * DT
    return steps * DT * dv, dv


def path_of(name: str) -> int:
    return next(code for code, n in PATHS.items() if n == name)


def box_on_slope(R: np.ndarray, mu: float) -> sd.Model:
    b = sd.ModelBuilder("slope", gravity=(0.0, 0.0, -G))
    b.add_body("box", "world", J.Free(), inertia=Inertia.box(2.0, (0.2, 0.2, 0.2)))
    b.add_geom("box", "box", "box", (0.1, 0.1, 0.1), mu=mu)
    b.add_geom("slope", "world", "halfspace", None, Transform.from_pose(R), mu=mu)
    return b.finalize()


def turned_slope(slope_deg: float, heading_deg: float) -> np.ndarray:
    a, h = math.radians(slope_deg), math.radians(heading_deg)
    Rz = np.array([[math.cos(h), -math.sin(h), 0.0], [math.sin(h), math.cos(h), 0.0], [0.0, 0.0, 1.0]])
    Ry = np.array([[math.cos(a), 0.0, math.sin(a)], [0.0, 1.0, 0.0], [-math.sin(a), 0.0, math.cos(a)]])
    return Rz @ Ry


@pytest.mark.parametrize("solver", ["lemke", "pgs"])
def test_box_face_on_a_turned_slope_uses_only_checked_answers(solver):
    """28 deg slope turned 45 deg about z, mu 0.6, the box on its face moving 0.1 m/s downhill: four
    coplanar contacts (a rank-deficient Delassus matrix, 24 LCP rows). Every step names the path that
    solved it and its residual is within LCP_TOL; the box is not launched (a wrong answer once gave 76
    rad/s)."""
    from scipy.spatial.transform import Rotation

    R = turned_slope(28.0, 45.0)
    q0 = np.concatenate([0.1 * R[:, 2], Rotation.from_matrix(R).as_quat()])
    qd0 = np.zeros(6)
    qd0[3:] = R.T @ (0.1 * R[:, 0])
    sim = sd.Simulator(box_on_slope(R, 0.6), 1e-3, contact=ContactSettings(solver=solver))
    traj = sim.rollout(q0, qd0, duration=0.3, progress=False)
    st = traj.contact_stats
    assert st.shape[1] == len(STAT_COLUMNS) and st[:, 0].min() == 4 and st[:, 2].max() == 24
    assert st[:, 10].max() <= LCP_TOL
    used = {PATHS[int(p)] for p in st[:, 11]}
    assert used <= ({"warm", "lemke", "regularized"} if solver == "lemke" else {"pgs", "lemke", "regularized"})
    if solver == "lemke":
        assert (st[:, 11] == path_of("warm")).any(), "the warm start serves steps (checked like Lemke's)"
    else:  # a PGS answer above LCP_TOL is replaced by Lemke's, and counted
        assert st[:, 8].sum() == (st[:, 11] != path_of("pgs")).sum()
    assert sum(traj.stats["paths"].values()) == st.shape[0]
    assert np.abs(traj.qd[:, :3]).max() < 0.5, "the box must not be set spinning"


def test_warm_start_moves_a_stack_as_the_cold_solver_does():
    """A resting staggered 5-box stack for 0.2 s: warm-started steps (an active set corrected by at most
    WARM_PIVOTS - 1 block pivots, no Lemke pivots) and cold Lemke steps give the same motion; the warm start
    serves most steps."""
    scene = S.box_stack(5, *S.staggered_offsets(5))
    runs = {}
    for warm in (True, False):
        sim = sd.Simulator(scene.model, DT, contact=ContactSettings(warm_start=warm))
        runs[warm] = sim.rollout(scene.q0, scene.qd0, duration=0.2, progress=False)
    hot, cold = runs[True].contact_stats, runs[False].contact_stats
    warm = hot[:, 11] == path_of("warm")
    assert warm.mean() > 0.9 and hot[warm, 3].max() <= WARM_PIVOTS - 1
    assert (cold[:, 11] == path_of("lemke")).all() and cold[:, 3].min() > 0
    assert max(hot[:, 10].max(), cold[:, 10].max()) <= LCP_TOL
    dq, dv = warm_agreement(hot.shape[0])
    assert np.abs(runs[True].q - runs[False].q).max() < dq
    assert np.abs(runs[True].qd - runs[False].qd).max() < dv


def test_simulator_step_keeps_the_warm_start_between_calls():
    """Steps of a box resting on the floor: the first solves cold, the next start from its active set; a
    fresh simulator's cold step from the same state gives the same result."""
    model = box_on_slope(np.eye(3), 0.5)
    q, qd = np.array([0.0, 0.0, 0.1, 0.0, 0.0, 0.0, 1.0]), np.zeros(6)
    sim = sd.Simulator(model, DT, contact=ContactSettings())
    paths = []
    for _ in range(3):
        q_prev, qd_prev = q, qd
        q, qd = sim.step(q, qd)
        stats = sim.last_step_stats
        paths.append(stats["path"])
        assert set(stats) == set(STAT_COLUMNS) and stats["residual"] <= LCP_TOL
    assert paths == ["lemke", "warm", "warm"]
    q1, qd1 = sd.Simulator(model, DT, contact=ContactSettings()).step(q_prev, qd_prev)
    dq, dv = warm_agreement(1)
    assert np.abs(q1 - q).max() < dq and np.abs(qd1 - qd).max() < dv


def test_pgs_answers_are_checked_on_the_whole_pyramid_lcp():
    """soadyn.lcp.pgs reports the residual of the LCP with the sigma rows; an answer that met PGS's own
    loose tolerance but not LCP_TOL on that LCP is "inaccurate", not "ok"."""
    rng = np.random.default_rng(4)
    nc, nf = 3, 4
    Jt = rng.normal(size=(3 * nc, 6))
    W = Jt @ Jt.T + 1e-3 * np.eye(3 * nc)
    P = np.zeros((nc * (nf + 1), 3 * nc))
    for i in range(nc):
        P[i * (nf + 1), 3 * i] = 1.0
        for j in range(nf):
            th = 2 * math.pi * j / nf
            P[i * (nf + 1) + 1 + j, 3 * i + 1:3 * i + 3] = math.cos(th), math.sin(th)
    A, b = P @ W @ P.T, P @ rng.normal(size=3 * nc)
    b[::nf + 1] = -np.abs(b[::nf + 1]) - 0.5  # approaching contacts
    res = lcp.pgs(A, b, 0, nc, nf, 0.5, iters=100000, tol=1e-12)
    assert res.status == "ok" and res.residual <= LCP_TOL
    with pytest.raises(lcp.LCPError) as info:
        lcp.pgs(A, b, 0, nc, nf, 0.5, iters=100000, tol=0.05)
    assert info.value.status == "inaccurate" and info.value.residual > LCP_TOL


def test_failed_step_names_the_kernels_lcp_and_its_residual():
    """A box 3 mm above the floor falling at 5 m/s, Lemke limited to one pivot: the step LCP (its four
    corners seen within the 5 mm margin: 24 rows) cannot be solved. The error carries that LCP as the kernel
    built it (margin, gap targets), names its size, contacts, path and residual, not the mass matrix; the
    state stays at the step's start."""
    model = box_on_slope(np.eye(3), 0.5)
    q0 = np.array([0.0, 0.0, 0.103, 0.0, 0.0, 0.0, 1.0])
    qd0 = np.array([0.0, 0.0, 0.0, 0.0, 0.0, -5.0])
    q_in = q0.copy()
    sim = sd.Simulator(model, 1e-3, contact=ContactSettings(max_pivots=1, tikhonov=0.0, restitution=0.0))
    with pytest.raises(sd.LCPError) as info:
        sim.step(q0, qd0)
    err = info.value
    note = "".join(getattr(err, "__notes__", []))
    assert "24-row contact LCP of step 0 (4 contacts)" in note and "last tried: lemke" in note
    assert "relative residual" in note and "mass matrix" not in note and err.residual > LCP_TOL
    assert err.M.shape == (24, 24) and err.nfree == 0
    normal = err.q[0:20:5]  # n . v_free + gap / dt of each corner
    assert np.allclose(normal, -5.0 - G * 1e-3 + 0.003 / 1e-3, rtol=0, atol=1e-9)
    assert np.array_equal(q0, q_in) and sim.last_step_stats["path"] == "lemke"
    with pytest.raises(sd.sim.SimulationError, match="24-row contact LCP of step 0 .*could not be solved") as fail:
        sim.rollout(q0, qd0, steps=3, progress=False)
    assert fail.value.step == 0 and np.array_equal(fail.value.trajectory.q, q0[None])


def test_a_degenerate_step_lcp_that_lemke_misses_is_completed_by_pgs():
    """A state of the resting 10-box stack (reached after 9 s) whose step LCP (240 rows, Delassus rank 140 of
    the coplanar face contacts) Lemke's method answered 1.3e-6 off the check on the machine that recorded it:
    the step is solved all the same (PGS continues from Lemke's answer), its answer checked, no energy
    gained and the stack still at rest."""
    stack = S.box_stack(10)
    x = np.load(Path(__file__).parent / "data" / "stack10_degenerate_state.npy")
    q, qd = x[:stack.model.nq], x[stack.model.nq:]
    sim = sd.Simulator(stack.model, 1e-3, contact=ContactSettings())
    q1, qd1 = sim.step(q, qd)
    st = sim.last_step_stats
    assert st["path"] in ("lemke", "regularized", "pgs") and st["residual"] <= LCP_TOL, st
    assert st["energy_gain"] <= 1e-12, st
    assert np.abs(qd1).max() < 1e-3 and np.abs(q1 - q).max() < 1e-5


def test_warm_start_keeps_holding_on_a_resting_stack():
    """A resting 10-box stack for 2 s: the warm start serves at least 95 % of the steps of the second
    second as of the first (its least-norm answers carry over; Lemke's vertex answers, kept as the active
    set, held for 72 % of the second second), and the stack stays at rest."""
    scene = S.box_stack(10)
    sim = sd.Simulator(scene.model, DT, contact=ContactSettings())
    traj = sim.rollout(scene.q0, scene.qd0, duration=2.0, progress=False)
    warm = traj.contact_stats[:, 11] == path_of("warm")
    per_second = warm.reshape(2, -1).mean(axis=1)
    assert per_second.min() >= 0.95, f"warm-started share per second: {per_second}"
    assert np.abs(traj.q[-1] - traj.q[0]).max() < 1e-5 and traj.stats["max_penetration"] < 1e-5
