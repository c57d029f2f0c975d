"""The architecture of docs/architecture.md (Layers), checked on the sources: imports run downward through the
layers and form no cycle, ``soadyn.model`` and ``soadyn.data`` import nothing above them, no private name
(``_x``) is used outside the module that defines it, no module passes 600 lines, and every design reference
of the code names a section of docs/architecture.md.

Where a module still breaks a rule, the exception is listed below by name (importer and imported module,
module and private name, file): the lists only shrink. A listed exception that no longer occurs fails the
test too, so each entry is removed with the fix that makes it unnecessary.
"""

from __future__ import annotations

import ast
import functools
import json
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SRC = ROOT / "src"
PACKAGE = SRC / "soadyn"

MAX_LINES = 600
"""No module of the package passes this many lines (docs/architecture.md, Layers)."""

LAYERS = (
    ("kernels", ("soadyn._jit", "soadyn._cache", "soadyn._kernels")),
    ("algebra", ("soadyn.spatial", "soadyn.joints")),
    ("model", ("soadyn.model", "soadyn.data")),
    ("dynamics", ("soadyn.dynamics", "soadyn.lcp", "soadyn.io.model_arrays")),
    ("algorithms", ("soadyn.osim", "soadyn.operators", "soadyn.derivatives", "soadyn.loops", "soadyn.contact.geometry",
                    "soadyn.contact.pyramid", "soadyn.contact.drumwright", "soadyn.contact.settings",
                    "soadyn.kinematic_hessian", "soadyn.contact.differential")),
    ("trajectories", ("soadyn.trajectory",)),
    ("derived models", ("soadyn.builder", "soadyn.augmented", "soadyn.embedding", "soadyn.embedding_nodes",
                        "soadyn.mimic", "soadyn.control", "soadyn.io")),
    ("contact formulations", ("soadyn.contact.formulations",)),
    ("steppers", ("soadyn.embedded_sim", "soadyn.contact.stepper", "soadyn.contact")),
    ("simulation", ("soadyn.sim", "soadyn.step_motion", "soadyn.step_derivatives")),
    ("zoo and views", ("soadyn.models", "soadyn.viz")),
    ("runs", ("soadyn.experiments", "soadyn.sweeps")),
    ("public API", ("soadyn",)),
    ("commands", ("soadyn.cli", "soadyn.bench")),
)
"""Layers from the bottom up, as (name, module prefixes); a module belongs to the layer of its longest
matching prefix (``soadyn`` alone is the package's ``__init__``, the public API). A module may import from
its own layer or a lower one (docs/architecture.md, Layers)."""

KNOWN_UPWARD_IMPORTS: set = set()
"""(importer, imported) pairs that still break the layer order; each is also left out of the cycle check."""

KNOWN_PRIVATE_USES: set = set()
"""(module, private name) pairs still used outside the module that defines the name."""

KNOWN_LONG_FILES = set()
"""Package files (relative to src/soadyn) still over MAX_LINES."""


# ------------------------------------------------------------------------------------------ the sources
def module_name(path: Path) -> str:
    parts = list(path.relative_to(SRC).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


@functools.cache
def sources() -> dict:
    """``module name -> (path, AST)`` of every module of the package."""
    return {module_name(p): (p, ast.parse(p.read_text(), str(p))) for p in sorted(PACKAGE.rglob("*.py"))}


def layer_of(module: str) -> int:
    best, layer = -1, None
    for k, (_, prefixes) in enumerate(LAYERS):
        for prefix in prefixes:
            if (module == prefix or module.startswith(prefix + ".") and prefix != "soadyn") and len(prefix) > best:
                best, layer = len(prefix), k
    assert layer is not None, f"{module}: in no layer of LAYERS (add it to the layer of its job)"
    return layer


def resolve(module: str, is_package: bool, node: ast.ImportFrom) -> str:
    """The absolute module name of ``from ... import`` in ``module``."""
    if node.level == 0:
        return node.module or ""
    base = module.split(".") if is_package else module.split(".")[:-1]
    base = base[: len(base) - node.level + 1]
    return ".".join(base + ([node.module] if node.module else []))


def is_delegation(fn: ast.FunctionDef) -> bool:
    """A function whose body is only imports and one ``return`` (after its docstring): a one-line alias of
    a function of another module, such as ``Model.from_urdf`` (docs/architecture.md, Layers)."""
    body = fn.body[1:] if ast.get_docstring(fn) is not None else fn.body
    imports = [s for s in body if isinstance(s, (ast.Import, ast.ImportFrom))]
    rest = [s for s in body if not isinstance(s, (ast.Import, ast.ImportFrom))]
    return (bool(imports) and len(rest) == 1 and isinstance(rest[0], ast.Return)
            and isinstance(rest[0].value, ast.Call))


def skipped_nodes(tree: ast.Module) -> set:
    """Ids of the import nodes that do not run with the module's code: ``if TYPE_CHECKING:`` blocks and the
    bodies of delegations."""
    out = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            out.update(id(n) for s in node.body for n in ast.walk(s))
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and is_delegation(node):
            out.update(id(n) for n in ast.walk(node))
    return out


@functools.cache
def import_graph() -> dict:
    """``module -> {imported soadyn module: first line}`` over every import statement that runs (top level
    or inside a function), a ``from pkg import sub`` counting as an import of ``pkg.sub``."""
    mods = sources()
    graph = {}
    for name, (path, tree) in mods.items():
        edges = graph.setdefault(name, {})
        skip = skipped_nodes(tree)
        for node in ast.walk(tree):
            if id(node) in skip:
                continue
            targets = []
            if isinstance(node, ast.Import):
                targets = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom):
                base = resolve(name, path.name == "__init__.py", node)
                targets = [f"{base}.{a.name}" if f"{base}.{a.name}" in mods else base for a in node.names]
            for t in targets:
                if (t == "soadyn" or t.startswith("soadyn.")) and t != name:
                    edges.setdefault(t, node.lineno)
    return graph


# ------------------------------------------------------------------------------------------ import order
def test_model_and_data_import_nothing_above_them():
    """``soadyn.model`` and ``soadyn.data`` imported in a fresh process pull in only the algebra below them.
    The package's own ``__init__`` re-exports the whole API (the top layer), so the program imports them
    under an empty ``soadyn`` package: what is loaded is what model.py and data.py import themselves."""
    program = (
        "import json, sys, types\n"
        f"pkg = types.ModuleType('soadyn'); pkg.__path__ = [{str(PACKAGE)!r}]; sys.modules['soadyn'] = pkg\n"
        "import soadyn.model, soadyn.data\n"
        "print(json.dumps(sorted(m for m in sys.modules if m.startswith('soadyn.'))))\n"
    )
    r = subprocess.run([sys.executable, "-c", program], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    loaded = set(json.loads(r.stdout.strip().splitlines()[-1]))
    assert {"soadyn.model", "soadyn.data"} <= loaded, loaded
    above = sorted(m for m in loaded if layer_of(m) > layer_of("soadyn.model"))
    assert not above, f"importing soadyn.model and soadyn.data loads modules above them: {above}"


def test_layer_map_covers_the_package():
    for name in sources():
        layer_of(name)


def test_imports_run_downward():
    graph = import_graph()
    upward = {(a, b): line for a, edges in graph.items() for b, line in edges.items() if layer_of(b) > layer_of(a)}
    new = {f"{a} (line {line}) imports {b} ({LAYERS[layer_of(b)][0]} above {LAYERS[layer_of(a)][0]})"
           for (a, b), line in upward.items() if (a, b) not in KNOWN_UPWARD_IMPORTS}
    assert not new, "imports up the layers:\n" + "\n".join(sorted(new))
    gone = KNOWN_UPWARD_IMPORTS - set(upward)
    assert not gone, f"fixed, remove from KNOWN_UPWARD_IMPORTS: {sorted(gone)}"


def test_no_import_cycle():
    graph = {a: {b for b in edges if b in sources() and (a, b) not in KNOWN_UPWARD_IMPORTS}
             for a, edges in import_graph().items()}
    # a package imports its submodules by design (re-exports): its own __init__ is no part of a cycle
    graph = {a: {b for b in edges if not a.startswith(b + ".")} for a, edges in graph.items()}
    state, stack, cycles = {}, [], []

    def visit(a):
        state[a] = 1
        stack.append(a)
        for b in sorted(graph.get(a, ())):
            if state.get(b) == 1:
                cycles.append(stack[stack.index(b):] + [b])
            elif b not in state:
                visit(b)
        stack.pop()
        state[a] = 2

    for a in sorted(graph):
        if a not in state:
            visit(a)
    assert not cycles, "import cycles:\n" + "\n".join(" -> ".join(c) for c in cycles)


# ------------------------------------------------------------------------------------------ private names
def private(name: str) -> bool:
    return name.startswith("_") and not name.startswith("__")


def defined_names(tree: ast.Module) -> set:
    """Every name a module binds: functions, classes, assignment targets (names and attributes), arguments,
    loop and ``with`` targets, imports, and attributes set by ``object.__setattr__(self, "_x", ...)``."""
    out = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            out.add(node.name)
        elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            out.add(node.id)
        elif isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store):
            out.add(node.attr)
        elif isinstance(node, ast.arg):
            out.add(node.arg)
        elif isinstance(node, ast.alias):
            out.add((node.asname or node.name).split(".")[0])
        elif (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "__setattr__"
              and len(node.args) >= 2 and isinstance(node.args[1], ast.Constant)
              and isinstance(node.args[1].value, str)):
            out.add(node.args[1].value)
    return out


@functools.cache
def private_uses() -> dict:
    """``(module, private name) -> first line`` for every private name a module takes from elsewhere:
    ``from m import _x``, ``m._x`` of an imported soadyn module, and ``obj._x`` (``obj`` neither ``self``
    nor ``cls``) where ``_x`` is defined by another soadyn module and not by this one (private attributes of
    other libraries' objects, such as numba's ``_getvalue``, are theirs to keep)."""
    mods = sources()
    defined = {name: defined_names(tree) for name, (_, tree) in mods.items()}
    elsewhere = set().union(*defined.values())
    out = {}
    for name, (path, tree) in mods.items():
        own = defined[name]
        external = set()  # names bound to modules outside soadyn
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                external.update((a.asname or a.name).split(".")[0] for a in node.names
                                if not a.name.startswith("soadyn"))
            elif isinstance(node, ast.ImportFrom):
                base = resolve(name, path.name == "__init__.py", node)
                for a in node.names:
                    if not (base == "soadyn" or base.startswith("soadyn.")):
                        external.add(a.asname or a.name)
                    elif private(a.name) and f"{base}.{a.name}" not in mods:
                        out.setdefault((name, a.name), node.lineno)
        for node in ast.walk(tree):
            if (isinstance(node, ast.Attribute) and private(node.attr) and node.attr not in own
                    and node.attr in elsewhere and not (isinstance(node.value, ast.Name) and node.value.id in external | {"self", "cls"})):
                out.setdefault((name, node.attr), node.lineno)
    return {k: v for k, v in out.items() if f"{k[0]}.{k[1]}" not in mods}


def test_no_private_name_outside_its_module():
    uses = private_uses()
    new = sorted(f"{m} (line {line}): {n}" for (m, n), line in uses.items() if (m, n) not in KNOWN_PRIVATE_USES)
    assert not new, "private names used outside their module (make them public or move the code):\n" + "\n".join(new)
    gone = KNOWN_PRIVATE_USES - set(uses)
    assert not gone, f"fixed, remove from KNOWN_PRIVATE_USES: {sorted(gone)}"


# ------------------------------------------------------------------------------------------ sizes, docs
def test_no_module_over_600_lines():
    long = {str(p.relative_to(PACKAGE)): len(p.read_text().splitlines()) for p, _ in sources().values()}
    long = {f: n for f, n in long.items() if n > MAX_LINES}
    new = sorted(f"{f}: {n} lines" for f, n in long.items() if f not in KNOWN_LONG_FILES)
    assert not new, f"modules over {MAX_LINES} lines (split them by job):\n" + "\n".join(new)
    gone = KNOWN_LONG_FILES - set(long)
    assert not gone, f"fixed, remove from KNOWN_LONG_FILES: {sorted(gone)}"


BLAS_CALL = re.compile(r"np\.linalg\.\w+|np\.dot\(|\w \@ \w")
KNOWN_BLAS_CALLS = {"derivatives.py": 1, "loops.py": 1}
"""Kernels that call BLAS or LAPACK (through SciPy's OpenBLAS): the step derivatives' ``M^-1 B`` product and
the redundant-loop multipliers' ``eigh``, neither in a contact step."""


def test_kernels_call_no_blas_but_the_known():
    """A kernel does its linear algebra itself (soadyn._kernels.factor): an OpenBLAS call wakes its threads,
    which then spin on the other cores for a while. One least-squares call by LAPACK in Lemke's polish made a
    resting 10-box stack take 91 us of CPU per step for 57 us of wall time."""
    found = {}
    for path in sorted((PACKAGE / "_kernels").glob("*.py")):
        code = [ln for ln in path.read_text().splitlines() if not ln.lstrip().startswith(("#", "``", '"""'))]
        n = sum(len(BLAS_CALL.findall(ln.split("#")[0])) for ln in code if "``" not in ln)
        if n:
            found[path.name] = n
    assert found == KNOWN_BLAS_CALLS


CITATION = re.compile(r"docs/architecture\.md(?:,|:)\s*([A-Z][A-Za-z /]*(?:,\s*[A-Z][A-Za-z /]*)*)")


def test_design_references_name_sections_of_docs_architecture():
    """Every citation ``docs/architecture.md, <section>`` (or ``docs/architecture.md: <section>, <section>``) in
    the package, the tests and the docs names a section of that page, and every Markdown document the code
    mentions is a file of the repository (no citation of a document users do not have)."""
    sections = set(re.findall(r"^## (.+)$", (ROOT / "docs" / "architecture.md").read_text(), re.M))
    in_repo = {p.relative_to(ROOT).as_posix() for p in ROOT.rglob("*.md") if ".git" not in p.parts}
    names = {Path(p).name for p in in_repo}
    bad = []
    code = [*PACKAGE.rglob("*.py"), *(ROOT / "tests").rglob("*.py")]
    for path in [*code, *(ROOT / "docs").glob("*.md"), ROOT / "README.md"]:
        text = path.read_text()
        if path in code:
            for ref in set(re.findall(r"[\w./-]*\w\.md\b", text)):
                if ref not in in_repo and ref.lstrip("./") not in in_repo and ("/" in ref or ref not in names):
                    bad.append(f"{path.relative_to(ROOT)}: mentions {ref}, which is not in the repository")
        for m in CITATION.finditer(text):
            for cited in (c.strip() for c in m.group(1).split(",")):
                if not any(cited.startswith(s) for s in sections):
                    bad.append(f"{path.relative_to(ROOT)}: cites docs/architecture.md section {cited!r}, which "
                               f"does not exist (sections: {sorted(sections)})")
    assert not bad, "\n".join(bad)
