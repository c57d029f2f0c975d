"""The kernel inventory of the command: every numba kernel of ``soadyn._kernels``, the ones called from Python
(what ``soadyn warmup`` must exercise), and the numba cache folder."""

from __future__ import annotations

import ast
import pkgutil
from pathlib import Path


def kernel_modules() -> list:
    """Every module of ``soadyn._kernels``, imported (importing them compiles nothing)."""
    import importlib

    from .. import _kernels

    return [importlib.import_module(f"{_kernels.__name__}.{m.name}")
            for m in sorted(pkgutil.iter_modules(_kernels.__path__), key=lambda m: m.name)]


def kernel_dispatchers() -> dict:
    """``"module.function" -> numba dispatcher`` for every kernel defined in ``soadyn._kernels``."""
    from numba.core.dispatcher import Dispatcher

    out = {}
    for mod in kernel_modules():
        short = mod.__name__.rsplit(".", 1)[1]
        for name, obj in vars(mod).items():
            if isinstance(obj, Dispatcher) and obj.py_func.__module__ == mod.__name__:
                out[f"{short}.{name}"] = obj
    return out


def setup_cache() -> str:
    """Point numba's cache at the folder keyed by the kernel sources (``soadyn._cache.configure_cache``;
    ``NUMBA_CACHE_DIR`` wins if set) and return it. Importing soadyn already does this before any kernel is
    decorated; the command calls it again so that the folder it reports is the one in use."""
    from .._cache import configure_cache

    return configure_cache()


def entry_kernels() -> dict:
    """The kernels called from Python (referenced by a soadyn module outside ``_kernels``):
    ``"module.function" -> dispatcher``. Helpers only called from other kernels are left out."""
    import soadyn as pkg

    disp = kernel_dispatchers()
    root = Path(pkg.__file__).parent
    used = set()
    for path in root.rglob("*.py"):
        if "_kernels" in path.relative_to(root).parts:
            continue
        try:
            tree = ast.parse(path.read_text())
        except (SyntaxError, UnicodeDecodeError):
            continue
        aliases = {}  # local name -> kernel module short name
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and node.module and "_kernels" in node.module.split("."):
                last = node.module.split(".")[-1]
                for a in node.names:
                    if last == "_kernels":
                        aliases[a.asname or a.name] = a.name
                    else:
                        used.add(f"{last}.{a.name}")
        for node in ast.walk(tree):
            if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id in aliases:
                used.add(f"{aliases[node.value.id]}.{node.attr}")
    return {k: disp[k] for k in sorted(used) if k in disp}
