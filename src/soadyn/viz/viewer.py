"""3-D replay of a trajectory in a web browser with viser (https://viser.studio): the scene of
:mod:`soadyn.viz.scene` (URDF meshes, geoms, frames), contact points and force arrows, and a timeline
with play/pause, speed and a time slider; :meth:`Viewer.export_html` writes a standalone page (viser's
embedded playback: the recorded frames with their own play/pause/speed/scrub bar) that opens without a
server.

Scene tree: ``/bodies/<body>`` is posed at the body's world pose of the shown state, its link meshes,
geoms and frames are children at their constant body-frame poses; world geoms are under ``/world``;
contacts under ``/contacts``.
"""

from __future__ import annotations

import contextlib
import io
import threading
import time
from pathlib import Path

import numpy as np

from ..model import Model
from ..spatial import rot_to_quat
from ..contact.geometry import GEOM_HALFSPACE, GEOM_PLANE
from .scene import Scene
from .timeline import DEFAULT_FPS, timeline

__all__ = ["Viewer", "SPEEDS", "FORCE_ARROW_LENGTH", "CONTACT_COLOR", "FORCE_COLOR"]

SPEEDS = ("0.1x", "0.25x", "0.5x", "1x", "2x", "4x")
"""Playback speeds offered by the served viewer."""
FORCE_ARROW_LENGTH = 0.25
"""Length of the largest contact force arrow of a run, as a fraction of the scene's reach (at least
:data:`FORCE_ARROW_GEOMS` times the largest geom size on a body, so that it leaves the body it pushes)."""
FORCE_ARROW_GEOMS = 3.0
GEOM_OPACITY = 0.7
"""Opacity of the geoms on bodies when contacts are drawn (contact points and force arrows start inside
them)."""
FRAME_AXES_LENGTH = 0.06
"""Length of drawn frame axes, as a fraction of the scene's reach."""
CONTACT_COLOR = (220, 30, 30)
FORCE_COLOR = (30, 120, 220)


def _viser():
    try:
        import viser
    except ImportError:
        raise ImportError("the 3-D viewer needs viser: pip install soadyn[viz]") from None
    return viser


def _wxyz(R: np.ndarray) -> np.ndarray:
    """viser's scalar-first quaternion of a rotation matrix."""
    x, y, z, w = rot_to_quat(R)
    return np.array([w, x, y, z])


def _path(name: str) -> str:
    return name.replace("/", "_").replace(" ", "_") or "_"


class Viewer:
    """Serve the replay of ``traj`` (a :class:`soadyn.Trajectory`) of ``model`` (default: the trajectory's
    own, saved with it) on ``http://host:port`` (``port=0``: any free port).

    ``urdf``: the URDF whose visual meshes to draw (default: ``model.source``; False: none); ``geoms``,
    ``frames``: draw the collision geoms, the frames (axes); ``contacts``: contact points and force arrows
    (``tau``: the run's joint forces for the force recomputation, see :mod:`soadyn.viz.timeline`);
    ``fps``: frames per second of the replay; ``speed``: initial playback speed (one of :data:`SPEEDS`);
    ``play``: start playing; ``shadows``: cast shadows; ``environment``: light with viser's environment
    map (both costly for software renderers). The server runs in a background thread until :meth:`close`.
    """

    def __init__(self, traj, model: Model | None = None, *, urdf=None, geoms: bool = True, frames: bool = True,
                 contacts: bool = True, tau=None, fps: float = DEFAULT_FPS, speed: str = "1x", play: bool = True,
                 shadows: bool = True, environment: bool = True, host: str = "127.0.0.1", port: int = 8080):
        model = traj.model if model is None else model
        if model is None:
            raise ValueError("model: this trajectory carries no model (saved by an older soadyn or built by hand); "
                             "pass the Model it was computed with")
        if speed not in SPEEDS:
            raise ValueError(f"speed: expected one of {SPEEDS}, got {speed!r}")
        viser = _viser()
        self.traj = traj
        self.scene = Scene(model, urdf=urdf, geoms=geoms, frames=frames)
        self.timeline = timeline(self.scene, traj, fps=fps, contacts=contacts, forces=contacts, tau=tau)
        self.frame = 0
        self._lock = threading.RLock()
        self._reach = max(1e-3, max(self.scene.reach(traj.q[k]) for k in (0, len(traj) // 2, len(traj) - 1)))
        with contextlib.redirect_stdout(io.StringIO()):  # viser prints a banner whatever verbose says
            self.server = viser.ViserServer(host=host, port=port, verbose=False)
        self.server.scene.set_up_direction("+z")
        self.server.scene.configure_default_lights(cast_shadow=bool(shadows))
        if not environment:  # plain sky and ground light instead
            self.server.scene.configure_environment_map(hdri=None)
            self.server.scene.add_light_hemisphere("/lights/sky", intensity=2.0)
        self._add_nodes()
        self._add_gui(speed, play)
        self._place_camera()
        self.show_frame(0)
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._play_loop, name="soadyn-viewer", daemon=True)
        self._thread.start()

    # ------------------------------------------------------------------ scene
    def _add_nodes(self) -> None:
        sc, m = self.server.scene, self.scene.model
        self.bodies = [sc.add_frame(f"/bodies/{_path(n)}", show_axes=False) for n in m.body_names]
        self.nodes = {}
        axes = FRAME_AXES_LENGTH * self._reach
        for node in self.scene.nodes:
            parent = "/world" if node.body < 0 else f"/bodies/{_path(m.body_names[node.body])}"
            name = f"{parent}/{node.name.split('/')[0]}/{'/'.join(_path(p) for p in node.name.split('/')[1:])}"
            pose = dict(wxyz=_wxyz(node.local[:3, :3]), position=node.local[:3, 3])
            if node.kind == "frame":
                h = sc.add_frame(name, axes_length=axes, axes_radius=0.08 * axes, **pose)
            else:
                see_through = self.timeline.points is not None and node.body >= 0 and node.kind != "mesh"
                h = sc.add_mesh_simple(name, node.vertices, node.faces, color=node.color,
                                       opacity=GEOM_OPACITY if see_through else None, **pose)
            self.nodes[node.name] = h
        tl = self.timeline
        size = float(m.geom_size[m.geom_body >= 0].max(initial=0.0))
        self._arrow = max(FORCE_ARROW_LENGTH * self._reach, FORCE_ARROW_GEOMS * size)
        self._force_scale = 0.0
        if tl.forces is not None:
            fmax = max((float(np.linalg.norm(f, axis=1).max()) for f in tl.forces if len(f)), default=0.0)
            self._force_scale = self._arrow / fmax if fmax > 0.0 else 0.0

    def _place_camera(self) -> None:
        """Look at the bodies' mean position across the plane in which they move most (the horizontal
        direction of least spread), from the free side of the world's planes and walls, slightly above."""
        m = self.scene.model
        P = self.timeline.body[:, :, :3, 3].reshape(-1, 3)
        center = P.mean(axis=0)
        spread = float(np.linalg.norm(P - center, axis=1).max()) + float(m.geom_size[m.geom_body >= 0].max(initial=0.0))
        _, V = np.linalg.eigh(np.cov((P[:, :2] - center[:2]).T) if P.shape[0] > 2 else np.eye(2))
        d = np.array([V[0, 0], V[1, 0], 0.0])
        normals = [m.geom_E[g][2] for g in range(m.ng) if m.geom_body[g] < 0 and m.geom_type[g] in (GEOM_PLANE, GEOM_HALFSPACE)]
        if sum(float(n @ d) for n in normals) < sum(float(n @ -d) for n in normals):
            d = -d
        d = d + np.array([0.0, 0.0, 0.45])
        cam = self.server.initial_camera
        cam.look_at = tuple(center)
        cam.position = tuple(center + max(spread, 0.25) * 2.4 * d / np.linalg.norm(d))

    def show_frame(self, j: int) -> None:
        """Pose the scene at frame ``j`` of the timeline (bodies, contact points and force arrows)."""
        tl = self.timeline
        j = int(np.clip(j, 0, len(tl) - 1))
        with self._lock, self.server.atomic():
            self.frame = j
            for b, h in enumerate(self.bodies):
                T = tl.body[j, b]
                h.wxyz = _wxyz(T[:3, :3])
                h.position = T[:3, 3]
            self._show_contacts(j)
            if hasattr(self, "slider"):
                self.slider.value = float(tl.t[j])
                self.time_text.value = f"t = {tl.t[j]:.3f} s (state {int(tl.index[j])})"

    def _show_contacts(self, j: int) -> None:
        tl, sc = self.timeline, self.server.scene
        if tl.points is None:
            return
        pts = tl.points[j]
        size, a = 0.1 * self._arrow, self._arrow
        if len(pts):
            sc.add_point_cloud("/contacts/points", pts.astype(np.float32), colors=CONTACT_COLOR, point_size=size,
                               point_shape="circle")
        else:
            sc.add_point_cloud("/contacts/points", np.zeros((1, 3), np.float32), colors=CONTACT_COLOR,
                               point_size=size, visible=False)
        if tl.forces is None:
            return
        f = tl.forces[j] * self._force_scale
        keep = np.linalg.norm(f, axis=1) > 1e-9 * self._reach if len(f) else np.zeros(0, bool)
        if keep.any():
            seg = np.stack([pts[keep], pts[keep] + f[keep]], axis=1).astype(np.float32)
            sc.add_arrows("/contacts/forces", seg, colors=FORCE_COLOR, shaft_radius=0.02 * a, head_radius=0.05 * a,
                          head_length=0.15 * a)
        else:
            sc.add_arrows("/contacts/forces", np.zeros((1, 2, 3), np.float32), colors=FORCE_COLOR, visible=False)

    # ------------------------------------------------------------------ timeline GUI
    def _add_gui(self, speed: str, play: bool) -> None:
        gui, tl = self.server.gui, self.timeline
        end = float(tl.t[-1])
        self._playing = bool(play) and len(tl) > 1
        self._speed = float(speed[:-1])
        with gui.add_folder("Timeline"):
            self.play_button = gui.add_button("Pause" if self._playing else "Play")
            self.speed_menu = gui.add_dropdown("Speed", SPEEDS, initial_value=speed)
            step = float(np.min(np.diff(tl.t))) if len(tl) > 1 else 1.0
            self.slider = gui.add_slider("Time (s)", min=float(tl.t[0]), max=max(end, float(tl.t[0]) + step),
                                          step=step, initial_value=float(tl.t[0]))
            self.time_text = gui.add_text("Shown", initial_value="", disabled=True)

        @self.play_button.on_click
        def _(_event) -> None:
            self.playing = not self._playing

        @self.speed_menu.on_update
        def _(_event) -> None:
            self._speed = float(self.speed_menu.value[:-1])

        @self.slider.on_update
        def _(event) -> None:
            if event.client is not None:  # a user scrubbed: pause there
                self.playing = False
                self.show_frame(self.timeline.frame_at(self.slider.value))

    @property
    def playing(self) -> bool:
        return self._playing

    @playing.setter
    def playing(self, value: bool) -> None:
        self._playing = bool(value)
        self.play_button.label = "Pause" if self._playing else "Play"

    def _play_loop(self) -> None:
        tl = self.timeline
        clock = float(tl.t[self.frame])
        last = time.perf_counter()
        while not self._stop.wait(1.0 / DEFAULT_FPS):
            now = time.perf_counter()
            if not self._playing or len(tl) < 2:
                clock, last = float(tl.t[self.frame]), now
                continue
            clock += (now - last) * self._speed
            last = now
            if clock > tl.t[-1]:
                clock = float(tl.t[0])
            j = tl.frame_at(clock)
            if j != self.frame:
                self.show_frame(j)

    # ------------------------------------------------------------------ files and lifetime
    @property
    def url(self) -> str:
        host = self.server.get_host()
        return f"http://{'localhost' if host in ('0.0.0.0', '127.0.0.1') else host}:{self.server.get_port()}"

    def export_html(self, path) -> Path:
        """Write a standalone HTML page of the replay (every frame of the timeline, played at 1x, with
        viser's playback bar: play/pause, speed, time scrub); it opens from the file, without a server.
        Returns the path written."""
        path = Path(path)
        if path.suffix.lower() != ".html":
            path = path.with_name(path.name + ".html")
        tl = self.timeline
        with self._lock:
            was_playing, self._playing = self._playing, False
            shown = self.frame
            self.show_frame(0)
            recording = self.server.get_scene_serializer()
            for j in range(len(tl)):
                self.show_frame(j)
                gap = float(tl.t[j + 1] - tl.t[j]) if j + 1 < len(tl) else 1.0 / DEFAULT_FPS
                recording.insert_sleep(gap)
            html = recording.as_html()
            self.show_frame(shown)
            self.playing = was_playing
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(html, encoding="utf-8")
        return path

    def close(self) -> None:
        """Stop playback and the server."""
        self._stop.set()
        self._thread.join(timeout=2.0)
        with contextlib.redirect_stdout(io.StringIO()):
            self.server.stop()

    def __enter__(self) -> "Viewer":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"<soadyn.viz.Viewer {self.scene.model.name!r} at {self.url}: {len(self.timeline)} frames>"


def view_file(run, model: Model | None = None, html=None, serve: bool = True, log=print, **options) -> Viewer | None:
    """``soadyn view``: load the trajectory file ``run`` (``.npz`` of :meth:`soadyn.Trajectory.save`) and
    replay it with ``model`` (default: the one saved with it). ``html``: also write the standalone page
    there. ``serve``: keep serving until interrupted (Ctrl-C); otherwise close the viewer and return None.
    ``options`` go to :class:`Viewer`."""
    from ..sim import Trajectory

    traj = Trajectory.load(run)
    viewer = Viewer(traj, model, play=serve, **options)
    try:
        if html is not None:
            log(f"wrote {viewer.export_html(html)} (standalone page)")
        if not serve:
            return None
        log(f"replaying {run} ({len(viewer.timeline)} frames, {traj.t[-1] - traj.t[0]:.3g} s) at {viewer.url} "
            "(Ctrl-C to stop)")
        while True:
            time.sleep(3600)
    except KeyboardInterrupt:
        return None
    finally:
        viewer.close()
