"""``soadyn warmup``: compile (or load from the cache) every kernel once by calling every public function."""

from __future__ import annotations

import time

import click
import numpy as np

import soadyn

from .app import fail, main
from .kernels import entry_kernels


def warmup_calls(model: soadyn.Model, rng=None) -> list:
    """``[(label, zero-argument callable)]`` calling every public function of soadyn once on ``model``
    (those present in this version): what ``soadyn warmup`` runs."""
    import importlib
    import importlib.util

    sd = soadyn
    rng = np.random.default_rng(rng)
    d = model.data()
    q = model.random_q(rng)
    qd, x = rng.normal(size=(2, model.nv))
    Q = np.array([model.random_q(rng) for _ in range(4)])
    V = rng.normal(size=(4, model.nv))
    frame = model.frame_names[-1]
    two = list(model.frame_names[-2:])
    calls = [
        ("fk", lambda: sd.fk(model, d, q, qd)),
        ("frame_pose", lambda: sd.frame_pose(model, d, q, frame)),
        ("frame_jacobian", lambda: (sd.frame_jacobian(model, d, q, frame),
                                    sd.frame_jacobian(model, d, q, frame, "world_aligned"))),
        ("frame_velocity", lambda: sd.frame_velocity(model, d, q, qd, frame)),
        ("frame_bias_acceleration", lambda: sd.frame_bias_acceleration(model, d, q, qd, frame)),
        ("rnea", lambda: sd.rnea(model, d, q, qd, x)),
        ("crba", lambda: sd.crba(model, d, q)),
        ("aba", lambda: sd.aba(model, d, q, qd, x)),
        ("minv", lambda: sd.minv(model, d, q)),
        ("rnea_batch", lambda: sd.rnea_batch(model, Q, V, V)),
        ("aba_batch", lambda: sd.aba_batch(model, Q, V, V)),
        ("integrate", lambda: sd.integrate(model, q, qd, 0.01)),
        ("difference", lambda: sd.difference(model, q, Q[0])),
        ("derivatives", lambda: (sd.derivatives.rnea_derivatives(model, d, q, qd, x),
                                 sd.derivatives.aba_derivatives(model, d, q, qd, x),
                                 sd.derivatives.frame_jacobian_time_variation(model, d, q, qd, frame),
                                 sd.derivatives.frame_acceleration_derivatives(model, d, q, qd, x, frame),
                                 sd.derivatives.rnea_derivatives_batch(model, Q, V, V),
                                 sd.derivatives.aba_derivatives_batch(model, Q, V, V))),
    ]
    if hasattr(sd, "energy"):
        calls.append(("energy", lambda: sd.energy(model, d, q, qd)))
    if hasattr(sd, "Simulator"):
        def rollout():
            for integrator in ("semi_implicit", "rk4"):
                sim = sd.Simulator(model, dt=1e-3, integrator=integrator)
                traj = sim.rollout(q, qd, steps=3, progress=False)
                sim.step(q, qd)
            traj.frame_positions(model, frame)
        calls.append(("Simulator", rollout))
    try:
        osim = importlib.import_module("soadyn.osim")
    except ImportError:
        osim = None
    if osim is not None and hasattr(osim, "osim_inv"):
        calls.append(("osim_inv", lambda: [osim.osim_inv(model, d, q, two, method=m)
                                           for m in getattr(osim, "METHODS", ("jain",))]))
    try:
        control = importlib.import_module("soadyn.control")
    except ImportError:
        control = None
    if control is not None and hasattr(control, "OperationalSpaceController"):
        def controller():
            ctl = control.OperationalSpaceController(model, [control.Task(frame, "position")], damping=1e-6)
            ctl.hold(q)
            ctl.compute(q, qd)
        calls.append(("OperationalSpaceController", controller))
    if hasattr(sd, "lcp"):
        lcp_M = np.array([[4.0, 1.0, 0.0], [1.0, 3.0, 1.0], [-1.0, 1.0, 2.0]])
        lcp_q = np.array([-2.0, -1.0, 1.0])
        calls.append(("lcp", lambda: (sd.lcp.lemke(lcp_M, lcp_q), sd.lcp.solve_mlcp(lcp_M, lcp_q, 1),
                                      sd.lcp.pgs(lcp_M + lcp_M.T, lcp_q, 1, 1, 1, 0.5))))
        try:
            drumwright = importlib.import_module("soadyn.contact.drumwright")
        except ImportError:
            drumwright = None
        if drumwright is not None:
            W3, vf3, one = np.eye(3), np.array([-1.0, 2.0, 0.0]), np.ones(1)
            calls.append(("drumwright", lambda: (
                drumwright.noslip(W3, vf3), drumwright.noslip(W3, vf3, solver="lemke"),
                drumwright.viscous(W3, vf3, 0, one, 0.01), drumwright.coulomb(W3, vf3, 0, one),
                sd.lcp.ppm(lcp_M + lcp_M.T, lcp_q), sd.lcp.find_indices(lcp_M + lcp_M.T))))
    try:
        contact = importlib.import_module("soadyn.contact")
    except ImportError:
        contact = None
    if contact is not None and hasattr(contact, "collide"):  # one kernel signature for every model
        calls.append(("collide", lambda: contact.collide(model, d, q)))
        calls.append(("contact Simulator", _warmup_contact))
        if importlib.util.find_spec("soadyn.step_derivatives") is not None:
            calls.append(("step_derivatives", _warmup_step_derivatives))
    calls.append(("loops", _warmup_loops))
    calls.append(("embedding", _warmup_embedding))
    return calls


def _warmup_embedding() -> None:
    """Constraint embedding kernels on the planar four bar: CE forward dynamics (and its stage loop), tree
    states and rollouts."""
    from .. import embedding
    from .._kernels import stages
    from ..models import initial_state, planar_four_bar

    model = planar_four_bar()
    state = initial_state(model)
    em = model.embed_loops(q_ref=state.q)
    x, xd = em.from_tree_state(state.q, state.qd)
    ed = em.data()
    embedding.forward_dynamics(em, ed, x, xd, state.tau(model))
    stages.ce_stage(0, 1, *embedding.ce_kernel_arguments(em, ed))  # the stage loop of the cost breakdown
    for integrator in ("rk4", "semi_implicit"):
        em.tree_trajectory(soadyn.Simulator(em, 1e-3, integrator=integrator).rollout(x, xd, steps=2))


def _warmup_contact() -> None:
    """The contact step kernel (each friction model and solver) on the 3-link pendulum scene of Jain 2014."""
    from ..contact import ContactSettings
    from ..models.pendulum import pendulum, pendulum_start

    model = pendulum(3, scene="jain2014")
    q0, qd0 = pendulum_start(model)
    for friction, solver in (("coulomb", "lemke"), ("coulomb", "pgs"), ("no_slip", "ppm"), ("viscous", "lemke")):
        settings = ContactSettings(friction=friction, solver=solver)
        soadyn.Simulator(model, 1e-3, contact=settings).rollout(q0, qd0, steps=2, progress=False)


def _warmup_step_derivatives() -> None:
    """The kernels the contact step's derivatives call (the pyramid LCP, contact frames, the position
    update) on a sphere sliding into a plane."""
    from ..contact import ContactSettings
    from ..models import sliding_sphere
    from ..step_derivatives import step_derivatives

    scene = sliding_sphere(v0=2.0, mu=0.3)
    q, qd = scene.start
    q = q.copy()
    q[2] -= 2e-4
    step_derivatives(soadyn.Simulator(scene.model, 1e-3, contact=ContactSettings()), q, qd)


def _warmup_loops() -> None:
    """Closed-chain kernels on the planar four bar: TA and KKT forward dynamics, constraint state,
    projection, and loop simulations with each error control."""
    from .. import loops
    from .._kernels import stages
    from ..models import initial_state, planar_four_bar

    model = planar_four_bar()
    d = model.data()
    state = initial_state(model)
    q, qd, tau = state.q, state.qd, state.tau(model)
    for method in loops.METHODS:
        loops.forward_dynamics(model, d, q, qd, tau, method=method, baumgarte=(1.0, 1.0))
    stages.ta_stage(0, 1, *loops.ta_kernel_arguments(model, d, q, qd, tau))  # the stage loop of the cost breakdown
    loops.constraint_state(model, d, q, qd)
    loops.project(model, d, q, qd)
    for stabilization in (None, "baumgarte", "projection"):
        try:
            sim = soadyn.Simulator(model, dt=1e-3, integrator="rk4", stabilization=stabilization)
        except TypeError:  # a Simulator without loop options
            return
        sim.rollout(q, qd, steps=2, tau=tau, progress=False)


@main.command(short_help="Compile (or load from the cache) every kernel once.")
def warmup():
    """Compile every kernel once (or load it from the cache) by calling every public function on a small
    tree with all joint types; prints the cache folder."""
    from numba.core import config

    model = soadyn.models.auto_tree(6, joint_mix=soadyn.models.ALL_JOINTS, seed=1, name="warmup")
    calls = warmup_calls(model, rng=0)
    from tqdm.auto import tqdm

    t0 = time.perf_counter()
    bar = tqdm(calls, desc="warmup", unit="function")
    failed = {}
    for label, fn in bar:
        bar.set_postfix_str(label)
        try:
            fn()
        except Exception as exc:  # keep compiling the others; reported below
            failed[label] = f"{type(exc).__name__}: {exc}"
    bar.close()
    entries = entry_kernels()
    missing = [k for k, disp in entries.items() if not disp.signatures]
    ready = len(entries) - len(missing)
    click.echo(f"{ready} kernels ready (compiled or loaded from the cache) in {time.perf_counter() - t0:.1f} s")
    click.echo(f"cache folder: {config.CACHE_DIR or '(numba default: __pycache__ next to the kernels)'}")
    if missing:
        click.echo(f"not exercised by warmup (compile on first use): {', '.join(missing)}")
    if failed:
        fail("warmup calls failed: " + "; ".join(f"{k}: {v}" for k, v in failed.items()))
