"""The numba cache location, keyed by a hash of the kernel sources (docs/architecture.md, Kernels): numba's own cache
does not notice an edited helper in another file, so every change to ``_kernels/`` gets a fresh folder."""

from __future__ import annotations

import hashlib
import os
import sys
from pathlib import Path

KERNELS = Path(__file__).parent / "_kernels"


def kernel_hash() -> str:
    h = hashlib.sha256()
    for f in sorted(KERNELS.glob("*.py")) + [Path(__file__).parent / "_jit.py"]:
        h.update(f.name.encode())
        h.update(f.read_bytes())
    return h.hexdigest()[:16]


def configure_cache(base: str | os.PathLike | None = None) -> str:
    """Point numba's cache at ``base/<kernel hash>`` unless the user set ``NUMBA_CACHE_DIR``. Returns the
    folder. ``soadyn/__init__`` calls this before any kernel module is imported: numba chooses a kernel's
    cache folder when the kernel is decorated, so setting it any later has no effect on soadyn's kernels."""
    if "NUMBA_CACHE_DIR" in os.environ:
        return os.environ["NUMBA_CACHE_DIR"]
    base = Path(base or os.environ.get("SOADYN_CACHE", Path.home() / ".cache" / "soadyn"))
    folder = str(base / f"numba-{kernel_hash()}")
    os.environ["NUMBA_CACHE_DIR"] = folder
    numba_config = sys.modules.get("numba.core.config")
    if numba_config is not None:  # numba was imported first and has read its environment already
        numba_config.CACHE_DIR = folder
    return folder
