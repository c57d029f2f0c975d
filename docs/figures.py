"""Render the pictures of the documentation from soadyn's own runs into docs/img/.

    python docs/figures.py            # every figure
    python docs/figures.py sweep      # only those whose name contains "sweep"

Each figure is a short run of the scenario its page describes; the pages say which.
"""

from __future__ import annotations

import shutil
import sys
import tempfile
from pathlib import Path

import numpy as np

import soadyn as sd

IMG = Path(__file__).resolve().parent / "img"


def arm_model() -> sd.Model:
    """The two-link arm of the getting-started page."""
    b = sd.ModelBuilder("arm", gravity=(0.0, 0.0, -9.81))
    b.add_body("upper", "world", sd.joints.Revolute((0, 1, 0)),
               inertia=sd.Inertia.cylinder(1.0, 0.05, 0.5, com=(0, 0, -0.25)))
    b.add_body("lower", "upper", sd.joints.Revolute((0, 1, 0)),
               placement=sd.Transform.from_pose(translation=(0, 0, -0.5)),
               inertia=sd.Inertia.cylinder(0.5, 0.04, 0.4, com=(0, 0, -0.2)))
    b.add_frame("tool", "lower", sd.Transform.from_pose(translation=(0, 0, -0.4)))
    return b.finalize()


def getting_started(tmp: Path) -> None:
    arm = arm_model()
    traj = sd.Simulator(arm, dt=1e-3, integrator="rk4").rollout([1.2, -0.4], [0.0, 0.0], duration=3.0)
    traj.plot(IMG / "getting-started-arm.png", model=arm, frames=["tool"], quantities=("q", "energy_drift"))


def dynamics(tmp: Path) -> None:
    from soadyn.viz.plots import columns_figure

    model = sd.models.pendulum(3)
    q0, qd0 = np.array([1.0, 0.5, 0.0]), np.zeros(3)
    runs = {dt: sd.Simulator(model, dt=dt, integrator="rk4").rollout(q0, qd0, duration=5.0) for dt in (1e-2, 5e-3)}
    semi = sd.Simulator(model, dt=1e-3).rollout(q0, qd0, duration=5.0)
    t = semi.t
    cols = {"semi-implicit, dt = 1 ms": semi.energy[:, 2] - semi.energy[0, 2]}
    for dt, tr in runs.items():
        cols[f"rk4, dt = {dt * 1e3:g} ms"] = np.interp(t, tr.t, tr.energy[:, 2] - tr.energy[0, 2])
    columns_figure(IMG / "dynamics-energy.png", t, cols, title="3-link pendulum: total energy drift",
                   ylabel="E(t) - E(0) (J)", separate=True)


def operational_space(tmp: Path) -> None:
    from soadyn.experiments import osc_humanoid

    res = osc_humanoid.run("hold-hands", duration=4.0, out_dir=tmp, progress=False)
    shutil.copy(res["files"]["plot"], IMG / "osc-hold-hands-tasks.png")
    shutil.copy(res["files"]["snapshots"], IMG / "osc-hold-hands-snapshots.png")


def closed_chains(tmp: Path) -> None:
    from soadyn.experiments import jain2012

    res = jain2012.reproduce_fig4(out_dir=tmp, duration=2.0)
    shutil.copy(res["files"]["plot"], IMG / "jain2012-fig4.png")


def contact(tmp: Path) -> None:
    from soadyn.experiments import jain2014

    res = jain2014.reproduce_fig6(out_dir=tmp, n=12, duration=5.0)
    shutil.copy(res["files"]["plot"], IMG / "jain2014-fig6.png")


def sweep(tmp: Path) -> None:
    res = sd.sweep(model="pendulum", model_args={"n": 3, "scene": "jain2014"}, start="pendulum_start",
                   contact={"n_f": 4}, duration=2.0, grid={"qd0[0]": np.linspace(-3.0, 0.0, 13).tolist(),
                                                           "model.n": [3, 6]},
                   frames=["tip"], backend="serial", out=tmp, plot="tip_z_min")
    shutil.copy(res.plot_path, IMG / "sweep-tip-z-min.png")


def viewer(tmp: Path) -> None:
    """A screenshot of the browser replay (headless chromium driven by Playwright)."""
    from playwright.sync_api import sync_playwright

    from soadyn.viz.viewer import Viewer

    scene = sd.models.pendulum(6, scene="jain2014")
    traj = sd.Simulator(scene, dt=1e-3, contact=sd.contact.ContactSettings()).rollout(
        *sd.models.pendulum_start(scene), duration=2.0)
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path="/usr/bin/chromium",
                                    args=["--headless", "--no-sandbox", "--disable-gpu",
                                          "--disable-background-networking"])
        page = browser.new_page(viewport={"width": 900, "height": 560})
        page.set_default_timeout(120_000)
        with Viewer(traj, port=0, play=False, contacts=False, shadows=False, environment=False) as v:
            page.goto(v.url)
            page.get_by_role("button", name="Play").wait_for()
            page.add_style_tag(content="[class*='Notification'] { display: none !important; }")  # renderer notice
            v.show_frame(v.timeline.frame_at(1.15))
            page.wait_for_timeout(4_000)
            page.screenshot(path=str(IMG / "viewer-pendulum.png"))
        browser.close()


FIGURES = {"getting_started": getting_started, "dynamics": dynamics, "operational_space": operational_space,
           "closed_chains": closed_chains, "contact": contact, "sweep": sweep, "viewer": viewer}

if __name__ == "__main__":
    IMG.mkdir(exist_ok=True)
    wanted = sys.argv[1:]
    for name, make in FIGURES.items():
        if wanted and not any(w in name for w in wanted):
            continue
        with tempfile.TemporaryDirectory() as tmp:
            make(Path(tmp))
        print(f"rendered {name}")
