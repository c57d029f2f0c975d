"""The documentation site: it builds with ``mkdocs build --strict`` (broken links, missing pictures and
unresolved API references fail), and every python example of its pages runs.

The examples of a page run in order in one namespace, in a temporary folder, as a reader pasting them into
one Python session would. A block that needs a server or a browser is skipped only when the line before it
is ``<!-- docs-test: skip (reason) -->``, and the page says so to its readers.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs"
PAGES = sorted(p.relative_to(DOCS).as_posix() for p in DOCS.rglob("*.md"))
SKIP = re.compile(r"<!-- docs-test: skip \((.+)\) -->\s*$")
FENCE = re.compile(r"^```python[ \t]*\n(.*?)^```[ \t]*$", re.S | re.M)
BUILD_TIMEOUT_S = 300
"""A site build that takes longer has hung."""


def python_blocks(text: str) -> list[tuple[str, str | None]]:
    """The page's ```python blocks as ``(code, skip reason or None)``."""
    out = []
    for m in FENCE.finditer(text):
        before = text[:m.start()].rstrip("\n").rsplit("\n", 1)[-1]
        skip = SKIP.match(before.strip())
        out.append((m.group(1), skip.group(1) if skip else None))
    return out


def test_pages_found():
    assert {"index.md", "getting-started.md", "architecture.md", "sweeps.md"} <= set(PAGES)
    assert sum(len(python_blocks((DOCS / p).read_text())) for p in PAGES) >= 20


def test_block_extraction():
    text = "x\n```python\na = 1\n```\n<!-- docs-test: skip (needs a browser) -->\n```python\nb = 2\n```\n"
    assert python_blocks(text) == [("a = 1\n", None), ("b = 2\n", "needs a browser")]


def test_site_builds_strict(tmp_path):
    pytest.importorskip("mkdocs")
    pytest.importorskip("mkdocstrings")
    r = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "-f", str(ROOT / "mkdocs.yml"),
                        "-d", str(tmp_path / "site")], cwd=ROOT, capture_output=True, text=True,
                       timeout=BUILD_TIMEOUT_S)
    assert r.returncode == 0, r.stdout + r.stderr
    assert (tmp_path / "site" / "index.html").is_file()
    api = (tmp_path / "site" / "api" / "dynamics" / "index.html").read_text()
    assert "forward dynamics" in api.lower() and "aba_batch" in api  # the docstrings made it in


@pytest.mark.parametrize("page", [p for p in PAGES if python_blocks((DOCS / p).read_text())])
def test_examples_run(page, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("MPLBACKEND", "Agg")
    namespace = {"__name__": "__docs__"}
    for k, (code, skip) in enumerate(python_blocks((DOCS / page).read_text())):
        if skip is not None:
            continue
        try:
            exec(compile(code, f"{page} block {k + 1}", "exec"), namespace)
        except Exception as exc:
            raise AssertionError(f"{page}, python block {k + 1} failed: {type(exc).__name__}: {exc}") from exc
