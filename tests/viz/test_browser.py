"""End to end in a real headless browser (Debian's chromium driven by Playwright): the served viewer and
the exported standalone page load, render the scene, play, and show the bodies where they are at two
different times. The viewers run without shadows and environment map, which software WebGL (no GPU) takes
tens of seconds to prepare.

Skipped where chromium or Playwright is missing, except under CI (``CI`` set), where that is a failure:
``.ci/run`` installs chromium.
"""

from __future__ import annotations

import io
import os
import time
from pathlib import Path

import numpy as np
import pytest

from .scenes import swinging_pendulum

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking"]
VIEWPORT = {"width": 480, "height": 360}
LOAD_TIMEOUT_MS = 60_000
RENDER_WAIT_MS = 1_500
"""Time given to the software renderer to draw a new pose before a screenshot."""
MIN_BODY_PIXELS = 200
"""Pixels of the bodies' geom colour a screenshot must show (the spheres are a few thousand)."""
MIN_SHIFT_PX = 5.0
"""Distance the bodies' pixel centroid must move between the two shown times."""
CANVAS_ONLY = "body * { visibility: hidden !important; } canvas { visibility: visible !important; }"
"""Style that hides every panel, bar and notification, leaving the 3-D canvas."""


def _browser_or_skip():
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        sync_playwright = None
    missing = "playwright" if sync_playwright is None else (None if Path(CHROMIUM).exists() else CHROMIUM)
    if missing:
        if os.environ.get("CI"):
            pytest.fail(f"{missing} is missing on CI (.ci/run installs chromium; pip install -e '.[test]')")
        pytest.skip(f"{missing} is not installed")
    return sync_playwright


@pytest.fixture(scope="module")
def page():
    sync_playwright = _browser_or_skip()
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_FLAGS)
        pg = browser.new_page(viewport=VIEWPORT)
        pg.set_default_timeout(LOAD_TIMEOUT_MS)
        yield pg
        browser.close()


@pytest.fixture(scope="module")
def traj():
    return swinging_pendulum(links=3, duration=1.0)


def _body_pixels(png: bytes) -> np.ndarray:
    """(n, 2) pixel coordinates of the bodies' geom colour (orange: red high, blue low) in a screenshot."""
    from PIL import Image

    from soadyn.viz.scene import GEOM_COLOR

    img = np.asarray(Image.open(io.BytesIO(png)).convert("RGB")).astype(int)
    r, g, b = img[..., 0], img[..., 1], img[..., 2]
    assert GEOM_COLOR[0] - GEOM_COLOR[2] > 150  # the colour test below finds this hue
    mask = (r - b > 90) & (r > 120) & (g > b)
    return np.argwhere(mask)


def _canvas_shot(pg, path: Path) -> np.ndarray:
    """Screenshot of the 3-D canvas alone (panels hidden for the shot); the bodies' pixel centroid."""
    style = pg.add_style_tag(content=CANVAS_ONLY)
    png = pg.screenshot(path=str(path), timeout=LOAD_TIMEOUT_MS)
    style.evaluate("e => e.remove()")
    px = _body_pixels(png)
    assert px.shape[0] >= MIN_BODY_PIXELS, f"{path.name}: the bodies are not drawn ({px.shape[0]} pixels)"
    return px.mean(axis=0)


def _wait(condition, seconds: float) -> bool:
    deadline = time.monotonic() + seconds
    while not condition() and time.monotonic() < deadline:
        time.sleep(0.1)
    return condition()


def test_served_viewer_plays_and_shows_the_state(page, traj, tmp_path):
    from soadyn.viz.viewer import Viewer

    with Viewer(traj, port=0, play=False, shadows=False, environment=False) as v:
        page.goto(v.url)
        play = page.get_by_role("button", name="Play")
        play.wait_for()
        shots = []
        for name, j in (("a", len(v.timeline) // 4), ("b", 3 * len(v.timeline) // 4)):  # the swing's extremes
            v.show_frame(j)
            page.wait_for_timeout(RENDER_WAIT_MS)
            shots.append(_canvas_shot(page, tmp_path / f"served-{name}.png"))
        assert np.linalg.norm(shots[0] - shots[1]) > MIN_SHIFT_PX, "the bodies did not move between the times"
        start = v.frame
        play.click()
        assert _wait(lambda: v.frame != start, 20.0) and v.playing, "the Play button does not play"
        page.get_by_role("button", name="Pause").click()
        assert _wait(lambda: not v.playing, 10.0), "the Pause button does not pause"


def test_exported_page_plays_without_server(page, traj, tmp_path):
    from soadyn.viz.viewer import Viewer

    with Viewer(traj, port=0, play=False, shadows=False, environment=False) as v:
        html = v.export_html(tmp_path / "replay")
    assert html.suffix == ".html" and "__VISER_EMBED_DATA__" in html.read_text()
    page.goto(html.as_uri())
    slider = page.locator(".mantine-Slider-root")
    slider.wait_for()
    clock = page.locator("input").first
    t0 = float(clock.input_value())
    assert _wait(lambda: float(clock.input_value()) != t0, 20.0), "the timeline does not play"
    page.keyboard.press("Space")  # pause
    box = slider.bounding_box()
    shots = []
    for name, fraction in (("a", 0.25), ("b", 0.75)):  # the swing's extremes again
        page.mouse.click(box["x"] + fraction * box["width"], box["y"] + box["height"] / 2)
        page.wait_for_timeout(RENDER_WAIT_MS)
        shown = float(clock.input_value())
        assert abs(shown - fraction * float(traj.t[-1])) <= 0.1, f"scrubbed to {shown} s"
        shots.append(_canvas_shot(page, tmp_path / f"page-{name}.png"))
    assert np.linalg.norm(shots[0] - shots[1]) > MIN_SHIFT_PX, "the bodies did not move between the times"
