"""Compilation discipline of the numba kernels (docs/architecture.md, Kernels).

* importing soadyn (every module of it) compiles nothing and writes no cache file;
* after the public API has run on two different models, with well-formed and with awkward inputs
  (read-only, strided, Fortran-ordered, int32, float32, lists), every kernel called from Python has at
  most one compiled signature: wrappers copy inputs into Data-owned buffers, so no input recompiles;
* ``_kernels`` modules import nothing from soadyn except ``_jit`` (and each other);
* numba's decorators appear nowhere but in ``soadyn/_jit.py``; kernels use its decorators bare (no
  eager signatures) and carry its options.

The API runs in a fresh interpreter (this file run as a script), so that what other tests compiled in
this process does not count; the subprocess uses the same numba cache folder as this process.
"""

from __future__ import annotations

import ast
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parents[2] / "src" / "soadyn"
KERNELS = SRC / "_kernels"

NUMBA_DECORATORS = {"njit", "jit", "vectorize", "guvectorize", "cfunc", "jitclass", "generated_jit", "stencil",
                    "experimental"}
"""numba names that create compiled functions or classes (``experimental`` holds ``jitclass``)."""
SOADYN_DECORATORS = {"jit", "inline_jit", "parallel_jit"}
"""The decorators of ``soadyn._jit``."""
NOT_KERNEL_API = {"Model", "ModelBuilder", "ModelError", "Data", "Inertia", "Transform", "joints", "models",
                  "spatial", "Trajectory", "sweep"}
"""Public names of ``soadyn`` that need no exercise of their own (no kernel, or covered by another entry:
``Trajectory.frame_positions`` runs under ``Simulator``; ``sweep`` calls ``Simulator.rollout``). Exception
classes are left out too."""


# =================================================================================== source inspection
def _sources(root: Path):
    for path in sorted(root.rglob("*.py")):
        yield path, ast.parse(path.read_text(), filename=str(path))


def soadyn_imports_of_kernel_module(tree: ast.Module) -> list[str]:
    """Imports of a ``_kernels`` module that reach soadyn outside ``_jit`` and ``_kernels`` (as text)."""
    bad = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            bad += [a.name for a in node.names if a.name.split(".")[0] == "soadyn"
                    and a.name not in ("soadyn._jit",) and not a.name.startswith("soadyn._kernels")]
        elif isinstance(node, ast.ImportFrom):
            mod = node.module or ""
            if node.level == 0:
                if mod.split(".")[0] == "soadyn" and mod != "soadyn._jit" and not mod.startswith("soadyn._kernels"):
                    bad.append(mod)
            elif node.level == 1:
                if not mod:  # from . import x: sibling kernel modules only
                    continue
                # from .x import y: a sibling kernel module
            elif node.level == 2 and mod == "_jit":
                continue
            else:
                bad.append("." * node.level + mod)
    return bad


def numba_decorator_uses(tree: ast.Module) -> list[str]:
    """Uses of numba's compiling decorators: ``numba.njit``, ``from numba import jit``, ``nb.vectorize`` ..."""
    numba_aliases = {"numba"}
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for a in node.names:
                if a.name == "numba" or a.name.startswith("numba."):
                    numba_aliases.add((a.asname or a.name).split(".")[0])
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and (node.module or "").split(".")[0] == "numba":
            found += [f"from {node.module} import {a.name}" for a in node.names if a.name in NUMBA_DECORATORS]
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and node.attr in NUMBA_DECORATORS:
            base = node.value
            while isinstance(base, ast.Attribute):
                base = base.value
            if isinstance(base, ast.Name) and base.id in numba_aliases:
                found.append(f"{ast.unparse(node)} (line {node.lineno})")
    return found


def kernel_decorators(tree: ast.Module) -> list[str]:
    """Decorators of the functions of a ``_kernels`` module that are not a bare ``jit``/``inline_jit``/``parallel_jit``
    (a call such as ``jit("f8(f8)")`` would compile eagerly at import)."""
    bad = []
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef):
            for dec in node.decorator_list:
                if not (isinstance(dec, ast.Name) and dec.id in SOADYN_DECORATORS):
                    bad.append(f"{node.name}: @{ast.unparse(dec)}")
    return bad


def entry_kernel_names() -> set[str]:
    """``"module.function"`` of every kernel referenced by soadyn code outside ``_kernels`` (the kernels
    called from Python), found by reading the sources (constants such as status codes are left out)."""
    import importlib

    from numba.core.dispatcher import Dispatcher

    used = set()
    kernel_modules = {p.stem for p in KERNELS.glob("*.py")}
    for path, tree in _sources(SRC):
        if "_kernels" in path.relative_to(SRC).parts:
            continue
        aliases = {}
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and node.module and "_kernels" in node.module.split("."):
                last = node.module.split(".")[-1]
                for a in node.names:
                    if last == "_kernels" and a.name in kernel_modules:
                        aliases[a.asname or a.name] = a.name
                    elif last in kernel_modules:
                        used.add(f"{last}.{a.name}")
        for node in ast.walk(tree):
            if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id in aliases:
                used.add(f"{aliases[node.value.id]}.{node.attr}")
    kernels = set()
    for name in used:
        mod, attr = name.split(".")
        if isinstance(getattr(importlib.import_module(f"soadyn._kernels.{mod}"), attr, None), Dispatcher):
            kernels.add(name)
    return kernels


# ------------------------------------------------------------------------------------------ their tests
@pytest.mark.parametrize("path", sorted(KERNELS.glob("*.py")), ids=lambda p: p.name)
def test_kernel_modules_import_only_jit(path):
    bad = soadyn_imports_of_kernel_module(ast.parse(path.read_text()))
    assert not bad, f"_kernels/{path.name} imports {bad} from soadyn (only .._jit and sibling kernels allowed)"


def test_numba_decorators_only_in_jit_module():
    offenders = {}
    for path, tree in _sources(SRC):
        if path == SRC / "_jit.py":
            continue
        uses = numba_decorator_uses(tree)
        if uses:
            offenders[str(path.relative_to(SRC))] = uses
    assert not offenders, f"numba decorators outside soadyn/_jit.py: {offenders}"
    assert numba_decorator_uses(ast.parse((SRC / "_jit.py").read_text())), "_jit.py no longer defines the decorator"


@pytest.mark.parametrize("path", sorted(KERNELS.glob("*.py")), ids=lambda p: p.name)
def test_kernels_use_the_bare_decorators(path):
    bad = kernel_decorators(ast.parse(path.read_text()))
    assert not bad, f"_kernels/{path.name}: functions not decorated by a bare jit/parallel_jit: {bad}"


def test_every_kernel_carries_the_jit_options():
    import importlib

    from numba.core.dispatcher import Dispatcher

    want = {"nogil": True, "error_model": "numpy", "fastmath": False}
    n = 0
    for path in sorted(KERNELS.glob("*.py")):
        mod = importlib.import_module(f"soadyn._kernels.{path.stem}")
        for name, obj in vars(mod).items():
            if isinstance(obj, Dispatcher) and obj.py_func.__module__ == mod.__name__:
                n += 1
                opts = {k: obj.targetoptions.get(k) for k in want}
                assert opts == want, f"_kernels.{path.stem}.{name}: options {opts}, expected {want}"
                cache = type(getattr(obj, "_cache", None)).__name__
                assert cache == "FunctionCache", f"_kernels.{path.stem}.{name}: not cached on disk ({cache})"
    assert n > 10, f"only {n} kernels found in soadyn._kernels"


def test_source_checkers_catch_violations():
    """The checkers above flag what they should (so that a passing test means something)."""
    kernel_bad = ast.parse("from ..model import Model\nfrom .. import dynamics\nimport soadyn.spatial\n"
                           "from soadyn.data import Data\nfrom .._jit import jit\nfrom .spatial import mul6\n")
    assert sorted(soadyn_imports_of_kernel_module(kernel_bad)) == ["..", "..model", "soadyn.data", "soadyn.spatial"]
    assert not soadyn_imports_of_kernel_module(ast.parse("import math\nimport numpy as np\nfrom .._jit import jit\n"
                                                         "from .joints import OK\n"))
    uses = numba_decorator_uses(ast.parse("import numba as nb\nfrom numba import njit, prange\n"
                                          "from numba.experimental import jitclass\n"
                                          "f = nb.njit(lambda x: x)\n@numba.core.decorators.jit\ndef g(): pass\n"))
    assert len(uses) == 4, uses
    assert not numba_decorator_uses(ast.parse("import numba\nnumba.get_num_threads()\nfrom numba import prange\n"))
    decs = kernel_decorators(ast.parse("@jit\ndef a(): pass\n@jit('f8(f8)')\ndef b(x): pass\n"
                                       "@parallel_jit\ndef c(): pass\n@numba.njit\ndef d(): pass\n"))
    assert decs == ["b: @jit('f8(f8)')", "d: @numba.njit"]


# ================================================================================= subprocess programs
IMPORT_PROGRAM = r"""
import importlib, json, pkgutil, sys
import soadyn
mods = ["soadyn"]
for m in pkgutil.walk_packages(soadyn.__path__, "soadyn."):
    importlib.import_module(m.name)
    mods.append(m.name)
from numba.core.dispatcher import Dispatcher
compiled = {}
n = 0
for name, mod in list(sys.modules.items()):
    if name == "soadyn" or name.startswith("soadyn."):
        for attr, obj in vars(mod).items():
            if isinstance(obj, Dispatcher):
                n += 1
                if obj.signatures:
                    compiled[f"{name}.{attr}"] = [str(s) for s in obj.signatures]
print(json.dumps({"modules": mods, "dispatchers": n, "compiled": compiled}))
"""


def _cache_env(cache_dir: str | None = None) -> dict:
    """This process's environment with the numba cache folder it actually uses (so the subprocess
    finds what this process compiled), or ``cache_dir``."""
    from numba.core import config

    env = dict(os.environ)
    folder = cache_dir or config.CACHE_DIR
    if folder:
        env["NUMBA_CACHE_DIR"] = str(folder)
    else:
        env.pop("NUMBA_CACHE_DIR", None)
    return env


def test_import_compiles_nothing(tmp_path):
    cache = tmp_path / "numba-cache"
    r = subprocess.run([sys.executable, "-c", IMPORT_PROGRAM], capture_output=True, text=True,
                       env=_cache_env(str(cache)), timeout=300)
    assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout.strip().splitlines()[-1])
    assert "soadyn._kernels.tree" in out["modules"] and "soadyn.cli" in out["modules"], out["modules"]
    assert out["dispatchers"] > 10, "no kernels found after importing every soadyn module"
    assert not out["compiled"], f"importing soadyn compiled: {out['compiled']}"
    written = [str(p.relative_to(cache)) for p in cache.rglob("*") if p.is_file()] if cache.exists() else []
    assert not written, f"importing soadyn wrote cache files: {written}"


# ------------------------------------------------------------------------------- the API exercise
def _variants(x, kind: str):
    """``x`` (a float array) in an awkward form."""
    import numpy as np

    x = np.asarray(x, dtype=float)
    if kind == "readonly":
        y = x.copy()
        y.setflags(write=False)
        return y
    if kind == "strided":
        big = np.zeros(x.shape[:-1] + (2 * x.shape[-1],))
        big[..., ::2] = x
        return big[..., ::2]
    if kind == "fortran":
        return np.asfortranarray(x)
    if kind == "float32":
        return x.astype(np.float32)
    if kind == "list":
        return x.tolist()
    if kind == "int32":  # only meaningful where the values are integers
        return np.rint(x).astype(np.int32)
    raise ValueError(kind)


VARIANTS = ("readonly", "strided", "fortran", "float32", "list", "int32")


def _api_calls(model, rng):
    """``{public name: f(kind)}``: each calls that public function with its array inputs in form
    ``kind`` (``None``: plain float64 arrays)."""
    import importlib

    import numpy as np

    import soadyn as sd

    d = model.data()
    q = model.random_q(rng)
    if model.nq == model.nv:  # vector-space joints only (the pendulum): integer-valued states for int32
        q = np.rint(q * 3.0) / 3.0
    qd = np.rint(rng.normal(size=model.nv) * 4.0)
    x = np.rint(rng.normal(size=model.nv) * 4.0)
    Q = np.array([model.random_q(rng) for _ in range(3)])
    V = np.rint(rng.normal(size=(3, model.nv)) * 4.0)
    frame = model.frame_names[-1]
    tips = [f for f in model.frame_names if f.startswith("tip")]
    two = [tips[len(tips) // 2], tips[-1]] if len(tips) >= 2 else None  # nodes on different bodies

    def v(a, kind):
        if kind is None:
            return a
        if kind == "int32" and (a is q or a is Q) and model.nq != model.nv:
            return a  # quaternions are not integers; int32 is exercised on the pendulum
        return _variants(a, kind)

    calls = {
        "fk": lambda k: sd.fk(model, d, v(q, k), v(qd, k)),
        "frame_pose": lambda k: sd.frame_pose(model, d, v(q, k), frame),
        "frame_jacobian": lambda k: (sd.frame_jacobian(model, d, v(q, k), frame),
                                     sd.frame_jacobian(model, d, v(q, k), frame, "world_aligned")),
        "frame_velocity": lambda k: sd.frame_velocity(model, d, v(q, k), v(qd, k), frame),
        "frame_bias_acceleration": lambda k: sd.frame_bias_acceleration(model, d, v(q, k), v(qd, k), frame),
        "rnea": lambda k: (sd.rnea(model, d, v(q, k), v(qd, k), v(x, k)),
                           sd.rnea(model, d, v(q, k), v(qd, k), v(x, k),
                                   f_ext=v(np.ones((model.nb, 6)), k))),
        "crba": lambda k: sd.crba(model, d, v(q, k)),
        "aba": lambda k: (sd.aba(model, d, v(q, k), v(qd, k), v(x, k)),
                          sd.aba(model, d, v(q, k), v(qd, k), v(x, k), f_ext=v(np.ones((model.nb, 6)), k))),
        "minv": lambda k: sd.minv(model, d, v(q, k)),
        "aba_batch": lambda k: sd.aba_batch(model, v(Q, k), v(V, k), v(V, k)),
        "rnea_batch": lambda k: sd.rnea_batch(model, v(Q, k), v(V, k), v(V, k)),
        "integrate": lambda k: sd.integrate(model, v(q, k), v(qd, k), 0.01),
        "difference": lambda k: sd.difference(model, v(q, k), v(q, k)),
        "derivatives": lambda k: (sd.derivatives.rnea_derivatives(model, d, v(q, k), v(qd, k), v(x, k),
                                                                  f_ext=v(np.ones((model.nb, 6)), k)),
                                  sd.derivatives.aba_derivatives(model, d, v(q, k), v(qd, k), v(x, k)),
                                  sd.derivatives.frame_jacobian_time_variation(model, d, v(q, k), v(qd, k), frame),
                                  sd.derivatives.frame_acceleration_derivatives(model, d, v(q, k), v(qd, k),
                                                                                v(x, k), frame),
                                  sd.derivatives.rnea_derivatives_batch(model, v(Q, k), v(V, k), v(V, k)),
                                  sd.derivatives.aba_derivatives_batch(model, v(Q, k), v(V, k), v(V, k))),
    }
    if hasattr(sd, "energy"):
        calls["energy"] = lambda k: sd.energy(model, d, v(q, k), v(qd, k))
    if hasattr(sd, "Simulator"):
        def simulate(k):
            for integrator in ("semi_implicit", "rk4"):
                sim = sd.Simulator(model, dt=1e-3, integrator=integrator)
                traj = sim.rollout(v(q, k), v(qd, k), steps=2, tau=v(x, k), progress=False)
                sim.step(v(q, k), v(qd, k), tau=v(x, k))
            traj.frame_positions(model, frame)
        calls["Simulator"] = simulate
    try:
        osim = importlib.import_module("soadyn.osim")
    except ImportError:
        osim = None
    if osim is not None and two:  # operational space: on the tree (the pendulum's nodes are planar)
        methods = getattr(osim, "METHODS", ("jain",))
        calls["osim_inv"] = lambda k: [osim.osim_inv(model, d, v(q, k), two, method=m) for m in methods]
        calls["osim"] = lambda k: osim.osim(model, d, v(q, k), two, damping=1e-6)
        calls["operational_space_dynamics"] = lambda k: osim.operational_space_dynamics(
            model, d, v(q, k), v(qd, k), two)
    try:
        control = importlib.import_module("soadyn.control")
    except ImportError:
        control = None
    if control is not None and two:
        def controller(k):
            ctl = control.OperationalSpaceController(model, [control.Task(two[1], "position")], damping=1e-6)
            ctl.hold(v(q, k))
            ctl.compute(v(q, k), v(qd, k))
        calls["control"] = controller  # soadyn.control.OperationalSpaceController
    if hasattr(sd, "lcp"):  # LCP solvers: integer-valued problems (exact under int32), solvable in every form
        lcp_M = np.array([[4.0, 1.0, 0.0], [1.0, 3.0, 1.0], [-1.0, 1.0, 2.0]])  # a P-matrix
        lcp_q = np.array([-2.0, -1.0, 1.0])
        pgs_A = np.array([[4.0, 1.0, 0.0, 0.0], [1.0, 4.0, 1.0, -1.0], [0.0, 1.0, 3.0, -1.0], [0.0, -1.0, -1.0, 3.0]])
        pgs_b = np.array([-1.0, -2.0, 1.0, -1.0])
        calls["lcp"] = lambda k: (sd.lcp.lemke(v(lcp_M, k), v(lcp_q, k)),
                                  sd.lcp.solve_mlcp(v(lcp_M, k), v(lcp_q, k), 1),
                                  sd.lcp.pgs(v(pgs_A, k), v(pgs_b, k), 1, 1, 2, v(np.ones(1), k)))
    try:
        drumwright = importlib.import_module("soadyn.contact.drumwright")
    except ImportError:
        drumwright = None
    if drumwright is not None and hasattr(sd, "lcp"):  # Drumwright 2015: a unit point mass hitting a plane
        dw_W = np.eye(3)
        dw_vf = np.array([-1.0, 2.0, 0.0])
        dw_M = np.array([[2.0, 1.0, 0.0], [1.0, 2.0, 1.0], [0.0, 1.0, 2.0]])  # symmetric PD
        calls["drumwright"] = lambda k: (drumwright.noslip(v(dw_W, k), v(dw_vf, k)),
                                         drumwright.noslip(v(dw_W, k), v(dw_vf, k), solver="lemke"),
                                         drumwright.viscous(v(dw_W, k), v(dw_vf, k), 0, v(np.ones(1), k), 0.5),
                                         drumwright.coulomb(v(dw_W, k), v(dw_vf, k), 0, v(np.ones(1), k)),
                                         sd.lcp.ppm(v(dw_M, k), v(lcp_q, k)), sd.lcp.find_indices(v(dw_M, k)))
    try:
        contact = importlib.import_module("soadyn.contact")
    except ImportError:
        contact = None
    if contact is not None and hasattr(contact, "collide"):  # on this model (no geoms) and a scene of every kind
        scene = _geom_scene()
        sd_, sq = scene.data(), _geom_scene_q(scene)
        calls["collide"] = lambda k: (contact.collide(model, d, v(q, k)),
                                      contact.collide(scene, sd_, sq if k == "int32" else _variants(sq, k)
                                                      if k else sq))
        if hasattr(contact, "ContactSettings"):  # the contact step kernel, Lemke and PGS
            sqd = np.zeros(scene.nv)

            def simulate_contact(k):
                for friction, solver in (("coulomb", "lemke"), ("coulomb", "pgs"), ("no_slip", "ppm"),
                                         ("viscous", "lemke")):
                    # the configuration overlaps every pair on purpose: the depth check would stop step 0;
                    # one step: the no-slip LCP of the step after it is degenerate enough that whether PPM
                    # solves it depends on round-off (perturbations of q of 1e-12 decide it either way)
                    settings = contact.ContactSettings(friction=friction, solver=solver,
                                                       penetration_limit=float("inf"))
                    sim = sd.Simulator(scene, dt=1e-3, contact=settings)
                    sim.rollout(sq, v(sqd, k), steps=1, progress=False)
                    sim.step(sq, v(sqd, k))
            calls["contact"] = simulate_contact
            stepd = importlib.import_module("soadyn.step_derivatives")  # a sphere sliding into a plane
            sphere = sd.models.sliding_sphere(v0=2.0, mu=0.3)
            s_q, s_qd = sphere.start
            s_q = s_q.copy()
            s_q[2] -= 2e-4
            s_sim = sd.Simulator(sphere.model, dt=1e-3, contact=contact.ContactSettings())
            calls["step_derivatives"] = lambda k: stepd.step_derivatives(s_sim, s_q if k == "int32" else
                                                                         v(s_q, k), v(s_qd, k))
    if model.nl:  # closed chains: TA and KKT forward dynamics, constraint state, projection, stage loops
        from soadyn import loops
        from soadyn._kernels import stages

        state = sd.models.initial_state(model)
        lq, lqd, ltau = state.q, state.qd, state.tau(model)
        calls["loops"] = lambda k: ([loops.forward_dynamics(model, d, v(lq, k), v(lqd, k), v(ltau, k), method=m)
                                     for m in loops.METHODS],
                                    loops.constraint_state(model, d, v(lq, k), v(lqd, k)),
                                    loops.project(model, d, v(lq, k), v(lqd, k)),
                                    stages.ta_stage(0, 1, *loops.ta_kernel_arguments(model, d, v(lq, k), v(lqd, k),
                                                                                     v(ltau, k))))
        if hasattr(sd, "Simulator"):
            def simulate_loops(k):
                for stabilization in (None, "baumgarte", "projection"):
                    sim = sd.Simulator(model, dt=1e-3, integrator="rk4", stabilization=stabilization)
                    traj = sim.rollout(v(lq, k), v(lqd, k), steps=2, tau=v(ltau, k), progress=False)
                    sim.step(v(lq, k), v(lqd, k), tau=v(ltau, k))
                traj.frame_positions(model, model.frame_names[-1])
            calls["Simulator"] = simulate_loops
        if hasattr(sd, "embedding"):  # constraint embedding: forward dynamics, tree states, rollouts
            em = model.embed_loops(q_ref=lq)
            ed = em.data()
            ex, exd = em.from_tree_state(lq, lqd)

            def embed(k):
                sd.embedding.forward_dynamics(em, ed, v(ex, k), v(exd, k), v(ltau, k))
                stages.ce_stage(0, 1, *sd.embedding.ce_kernel_arguments(em, ed))
                em.tree_state(v(ex, k), v(exd, k), data=ed)
                for integrator in ("rk4", "semi_implicit"):
                    sim = sd.Simulator(em, 1e-3, integrator=integrator)
                    traj = sim.rollout(v(ex, k), v(exd, k), steps=2, tau=v(ltau, k))
                    sim.step(v(ex, k), v(exd, k), tau=v(ltau, k))
                em.tree_trajectory(traj)
            calls["embedding"] = embed
    return calls


def _geom_scene():
    """Free bodies with a sphere, a capsule and two boxes over a halfspace and a finite plane, touching."""
    import numpy as np

    import soadyn as sd

    b = sd.ModelBuilder("geoms")
    b.add_geom("floor", "world", "halfspace")
    b.add_geom("tile", "world", "plane", (2.0, 2.0), placement=(np.eye(3), [0, 0, 0.01]))
    for k, (kind, size) in enumerate([("sphere", 0.2), ("capsule", (0.1, 0.3)), ("box", (0.2, 0.2, 0.2)),
                                      ("box", (0.1, 0.2, 0.3))]):
        b.add_body(f"b{k}", "world", sd.joints.Free(), inertia=sd.Inertia.sphere(1.0, 0.1))
        b.add_geom(f"g{k}", f"b{k}", kind, size)
    return b.finalize()


def _geom_scene_q(model):
    """A configuration with every pair type in contact."""
    import numpy as np

    q = model.neutral_q()
    for k, p in enumerate([(0.0, 0.0, 0.15), (0.25, 0.0, 0.05), (0.0, 0.3, 0.15), (0.2, 0.2, 0.28)]):
        q[model.jnt_qadr[k]:model.jnt_qadr[k] + 3] = p
    return np.asarray(q)


def exercise(out_path: str) -> None:
    """Run the public API on two models, plain then awkward inputs; write which call gave each entry
    kernel its signatures (JSON)."""
    import numpy as np
    from numba.core.dispatcher import Dispatcher

    import soadyn as sd
    import soadyn._kernels

    import importlib
    import pkgutil

    mods = [importlib.import_module(f"soadyn._kernels.{m.name}")
            for m in pkgutil.iter_modules(soadyn._kernels.__path__)]
    disp = {f"{m.__name__.rsplit('.', 1)[1]}.{n}": o for m in mods for n, o in vars(m).items()
            if isinstance(o, Dispatcher) and o.py_func.__module__ == m.__name__}

    def snapshot():
        return {k: [str(s) for s in o.signatures] for k, o in disp.items()}

    models = [sd.models.auto_tree(9, joint_mix=sd.models.ALL_JOINTS, seed=3, name="all_joints"),
              sd.models.pendulum(4), sd.models.planar_four_bar()]
    origin: dict[str, list] = {}  # kernel -> [[signature, model, function, variant], ...]
    failures: dict[str, str] = {}
    covered = set()
    for kind in (None,) + VARIANTS:
        for model in models:
            rng = np.random.default_rng(7)
            for fname, call in _api_calls(model, rng).items():
                covered.add(fname)
                before = snapshot()
                try:
                    call(kind)
                except Exception as exc:  # recorded: an awkward input must not crash either
                    failures[f"{fname}[{kind}] on {model.name}"] = f"{type(exc).__name__}: {exc}"
                after = snapshot()
                for k, sigs in after.items():
                    for s in sigs:
                        if s not in before[k]:
                            origin.setdefault(k, []).append([s, model.name, fname, kind or "plain"])
    from numba.core import types

    def holds_array(t):
        return isinstance(t, types.Array) or (isinstance(t, types.BaseTuple) and any(map(holds_array, t.types)))

    array_returns = {k: str(o.overloads[s].signature.return_type) for k, o in disp.items() for s in o.signatures
                     if holds_array(o.overloads[s].signature.return_type)}
    Path(out_path).write_text(json.dumps({"origin": origin, "final": snapshot(), "failures": failures,
                                          "covered": sorted(covered), "array_returns": array_returns}))


@pytest.fixture(scope="module")
def exercised(tmp_path_factory):
    out = tmp_path_factory.mktemp("jit") / "signatures.json"
    r = subprocess.run([sys.executable, __file__, "exercise", str(out)], capture_output=True, text=True,
                       env=_cache_env(), timeout=900)
    assert r.returncode == 0, f"exercise program failed:\n{r.stdout[-3000:]}\n{r.stderr[-6000:]}"
    return json.loads(out.read_text())


def test_exercise_covers_the_public_api(exercised):
    import soadyn as sd

    public = {n for n in sd.__all__ if n not in NOT_KERNEL_API
              and not (isinstance(getattr(sd, n), type) and issubclass(getattr(sd, n), BaseException))}
    missing = public - set(exercised["covered"])
    assert not missing, f"public functions not exercised by this test (add them to _api_calls): {sorted(missing)}"


def test_entry_kernels_are_found():
    names = entry_kernel_names()
    for k in ("tree.rnea", "tree.crba", "tree.aba", "tree.minv", "batch.aba_batch", "frames.fk"):
        assert k in names, f"{k} not recognized as a kernel called from Python: {sorted(names)}"


def test_awkward_inputs_are_accepted(exercised):
    assert not exercised["failures"], f"public functions failed on awkward inputs: {exercised['failures']}"


def test_every_entry_kernel_ran(exercised):
    never = sorted(k for k in entry_kernel_names() if k in exercised["final"] and not exercised["final"][k])
    assert not never, f"kernels called from Python that the exercise never ran (extend _api_calls): {never}"


def test_entry_kernels_return_no_array(exercised):
    """A ``soadyn._jit.view`` holds no reference to its buffer, so no kernel may hand one back to Python: the
    kernels called from Python return status codes and numbers."""
    returned = {k: t for k, t in exercised["array_returns"].items() if k in entry_kernel_names()}
    assert not returned, f"kernels called from Python that return arrays: {returned}"


KNOWN_RECOMPILES = {}
"""Recompiles found by this test and not yet fixed in the wrappers: strict xfails, so that the fix turns
them into failures to be removed from here."""


def _kernel_param(name: str):
    if name in KNOWN_RECOMPILES:
        return pytest.param(name, marks=pytest.mark.xfail(strict=True, reason=KNOWN_RECOMPILES[name]))
    return name


@pytest.mark.parametrize("kernel", [_kernel_param(k) for k in sorted(entry_kernel_names())])
def test_one_signature_per_kernel(exercised, kernel):
    if kernel not in exercised["final"]:
        pytest.fail(f"{kernel} is referenced from Python but is not a kernel of soadyn._kernels")
    # a signature with a literal argument type comes from a constant in another kernel's call (numba types
    # `f(x, 0)` inside a kernel with Literal[int](0) when it compiles f for that call), never from Python:
    # it appears when the calling kernel is compiled in this run, not when it is loaded from the cache
    origin = [o for o in exercised["origin"].get(kernel, []) if "Literal[" not in o[0]]
    sigs = [s for s in exercised["final"][kernel] if "Literal[" not in s]
    detail = "\n".join(f"  {s}\n    first from {fn}({kind}) on {model}" for s, model, fn, kind in origin)
    assert len(sigs) <= 1, f"{kernel} compiled {len(sigs)} signatures (a recompile per input form):\n{detail}"


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "exercise":
        exercise(sys.argv[2])
    else:
        sys.exit(f"usage: {sys.argv[0]} exercise OUT.json")
