"""Every fenced ``python`` block of README.md runs as written: in order, in one namespace (later blocks use
what earlier ones defined, as a reader does), in a temporary working folder (the examples write files)."""

from __future__ import annotations

import re
import time
from pathlib import Path

import pytest

README = Path(__file__).resolve().parents[2] / "README.md"


def python_blocks(text: str) -> list[tuple[int, str]]:
    """(line number, source) of every ```python block."""
    out = []
    for m in re.finditer(r"^```python\n(.*?)^```", text, re.S | re.M):
        out.append((text.count("\n", 0, m.start()) + 2, m.group(1)))
    return out


def test_readme_has_examples():
    blocks = python_blocks(README.read_text())
    assert len(blocks) >= 5, "README.md lost its code examples"
    assert any("sd.rnea" in src for _, src in blocks)


def test_readme_examples_run(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    namespace: dict = {"__name__": "readme"}
    for line, src in python_blocks(README.read_text()):
        t0 = time.perf_counter()
        try:
            exec(compile(src, f"README.md:{line}", "exec"), namespace)
        except ModuleNotFoundError as exc:  # an optional extra (ray, mujoco) that is not installed
            pytest.skip(f"README.md:{line}: {exc}")
        print(f"README.md:{line}: {time.perf_counter() - t0:.2f} s")
