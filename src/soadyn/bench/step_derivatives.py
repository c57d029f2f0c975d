"""soadyn's analytic contact-step Jacobian (:func:`soadyn.step_derivatives.step_derivatives`) against MuJoCo's
``mjd_transitionFD`` (centred finite differences of ``mj_step``) on the same MJCF scenes, both loaded from
one XML (soadyn through :meth:`soadyn.Model.from_mjcf`): agreement and time per call.

Where the two models agree, so must the Jacobians: a step without contact (a pendulum swinging free of the
floor) and the directions a frictionless contact leaves free (a ball or a box sliding on a frictionless
floor: the tangential positions and velocities). Along a contact normal they differ by design: soadyn's
contact is hard (an LCP: a resting ball's normal velocity after the step is 0 whatever it was, ``dvz+/dvz
= 0``), MuJoCo's is soft (``solref = 0.02 1``: the normal velocity relaxes over about 20 ms, ``dvz+/dvz``
near 1 - dt / 0.02). The table gives both: the largest difference over the shared directions and over
the normal ones. States are at rest orientation (identity), where MuJoCo's free-joint tangent (world
translation, body rotation) and soadyn's (body twist) coincide; soadyn's body-frame linear velocity is
turned into MuJoCo's world-frame one (which, unlike it, does not change when the body turns) and the
velocities permuted (MuJoCo ``[v; w]``, soadyn ``[w; v]``).
"""

from __future__ import annotations

import time
from dataclasses import asdict
from typing import Callable

import numpy as np

from .timing import FULL, QUICK, Timing, time_calls

__all__ = ["run", "format_table", "SCENES", "BenchError", "compare"]

SUMMARY = "soadyn step_derivatives vs MuJoCo mjd_transitionFD: agreement where the models agree, time per call."

SHARED_TOL = 1e-6
"""Largest difference allowed in the shared directions (relative to max(1, |A|)): MuJoCo's differences have
step 1e-6."""


class BenchError(RuntimeError):
    """The two sides disagree where they must agree."""


_HEAD = """<mujoco model="{name}">
  <option timestep="0.001" gravity="0 0 -9.81"/>
  <default><geom condim="1" friction="0 0 0"/></default>
  <worldbody>
    <geom name="floor" type="plane" size="0 0 1"/>
{body}  </worldbody>
</mujoco>
"""

SCENES = {
    "pendulum (no contact)": (
        '    <body name="link" pos="0 0 2"><joint name="hinge" type="hinge" axis="0 1 0"/>\n'
        '      <geom type="sphere" size="0.1" pos="0 0 -1" mass="1"/></body>\n',
        [0.7], [1.5], [0.3], []),
    "ball, frictionless floor": (
        '    <body name="ball"><freejoint name="ball"/><geom type="sphere" size="0.1" mass="1"/></body>\n',
        [0, 0, 0.1 - 1e-4, 1, 0, 0, 0], [1.0, 0.5, -0.2, 0, 0, 0], [0.0] * 6, [2]),
    "box, frictionless floor": (
        '    <body name="box"><freejoint name="box"/><geom type="box" size="0.1 0.1 0.05" mass="1"/></body>\n',
        [0, 0, 0.05 - 1e-4, 1, 0, 0, 0], [1.0, 0.5, -0.2, 0, 0, 0], [0.0] * 6, [2, 3, 4]),
}
"""name -> (MJCF body, MuJoCo qpos, qvel, ctrl-free applied joint forces, the MuJoCo velocity indices along
or about the contact normal: z and, for the box, its tilts)."""


def _maps(nv: int, free: bool):
    """Permutation ``P`` with ``x_mujoco = P x_soadyn`` for a tangent vector (nv,)."""
    P = np.eye(nv)
    if free:
        P = np.zeros((6, 6))
        for k, s in enumerate([3, 4, 5, 0, 1, 2]):  # MuJoCo [v; w] <- soadyn [w; v]
            P[k, s] = 1.0
    return P


def _world_velocity(nv: int, free: bool, qd):
    """``d x_w / d x`` at the identity orientation: soadyn's state tangent (rotation ``a``, translation ``b``;
    body velocities) to one whose linear velocity is in world axes (``v_w = R v``, so ``dv_w = dv - v x a``),
    as MuJoCo's."""
    C = np.eye(2 * nv)
    if free:
        v = qd[3:6]
        C[nv + 3:nv + 6, 0:3] = -np.array([[0.0, -v[2], v[1]], [v[2], 0.0, -v[0]], [-v[1], v[0], 0.0]])
    return C


def compare(name: str, workdir) -> dict:
    """One scene: the two Jacobians and their differences; ``workdir`` receives the XML."""
    import mujoco

    import soadyn as sd
    from soadyn.contact import ContactSettings
    from soadyn.step_derivatives import step_derivatives

    body, qpos, qvel, qfrc, normal = SCENES[name]
    path = f"{workdir}/{name.split()[0].strip(',')}.xml"
    with open(path, "w") as fh:
        fh.write(_HEAD.format(name=name.split()[0].strip(","), body=body))
    m = mujoco.MjModel.from_xml_path(path)
    d = mujoco.MjData(m)
    model = sd.Model.from_mjcf(path)
    sim = sd.Simulator(model, dt=m.opt.timestep, contact=ContactSettings())
    free = m.nq == 7
    P = _maps(m.nv, free)
    q = np.array(qpos, float)
    if free:  # soadyn's quaternion is [x, y, z, w], MuJoCo's [w, x, y, z]
        q = np.r_[q[:3], q[4:7], q[3]]
    qd, tau = P.T @ np.array(qvel, float), P.T @ np.array(qfrc, float)
    ours = step_derivatives(sim, q, qd, tau)
    d.qpos[:], d.qvel[:], d.qfrc_applied[:] = qpos, qvel, qfrc
    nv = m.nv
    A, B = np.zeros((2 * nv, 2 * nv)), np.zeros((2 * nv, m.nu))
    mujoco.mjd_transitionFD(m, d, 1e-6, 1, A, B, None, None)
    PP = np.kron(np.eye(2), P)
    A_sd = PP @ _world_velocity(nv, free, ours.qd_next) @ ours.A @ np.linalg.inv(_world_velocity(nv, free, qd)) @ PP.T
    shared = np.setdiff1d(np.arange(2 * nv), np.r_[normal, np.asarray(normal, int) + nv]).astype(int)
    diff = np.abs(A_sd - A)
    scale = max(1.0, float(np.abs(A).max()))
    out = {"nv": nv, "contacts": len(ours.modes), "modes": list(ours.modes),
           "shared_max_abs_diff": float(diff[np.ix_(shared, shared)].max()) / scale,
           "normal_max_abs_diff": float(diff[np.ix_(normal, normal)].max(initial=0.0)) if normal else 0.0}
    if normal:
        k = normal[0]
        out["dvz_dvz"] = {"soadyn": float(A_sd[nv + k, nv + k]), "mujoco": float(A[nv + k, nv + k])}
    if not out["shared_max_abs_diff"] <= SHARED_TOL:
        raise BenchError(f"{name}: soadyn and MuJoCo disagree in the shared directions "
                         f"({out['shared_max_abs_diff']:.3e} > {SHARED_TOL:g})")

    def mj():
        mujoco.mjd_transitionFD(m, d, 1e-6, 1, A, B, None, None)

    out["call"] = (lambda: step_derivatives(sim, q, qd, tau), mj)
    return out


def run(quick: bool = False, log: Callable[[str], None] = print) -> dict:
    """Run the topic; returns a JSON-ready dict."""
    import tempfile

    try:
        import mujoco  # noqa: F401
    except ImportError:
        raise BenchError("the step-derivatives benchmark needs MuJoCo: pip install mujoco") from None
    cfg = QUICK if quick else FULL
    result = {"topic": "step-derivatives", "quick": quick, "shared_tolerance": SHARED_TOL, "timing": asdict(cfg),
              "scenes": {}}
    with tempfile.TemporaryDirectory() as tmp:
        for name in SCENES:
            t0 = time.perf_counter()
            e = compare(name, tmp)
            ours, theirs = e.pop("call")
            log(f"{name}: shared directions agree to {e['shared_max_abs_diff']:.1e} "
                f"({time.perf_counter() - t0:.1f} s); timing ...")
            t = time_calls({"soadyn": ours, "mujoco": theirs}, cfg)
            e["soadyn"], e["mujoco"] = t["soadyn"].as_dict(), t["mujoco"].as_dict()
            e["ratio"] = t["soadyn"].median / t["mujoco"].median
            result["scenes"][name] = e
    return result


def format_table(result: dict) -> str:
    """Agreement and time per call (median [min, max]; ratio = soadyn / MuJoCo)."""
    lines = ["A = d(q+, qd+)/d(q, qd): largest |soadyn - MuJoCo| over the directions the models share and along "
             "the contact normal (hard vs soft contact); time per call, median [min, max]", ""]
    head = (f"{'scene':<26} {'nv':>3} {'contacts':>8} {'shared':>9} {'normal':>8} {'dvz+/dvz sd/mj':>16} "
            f"{'soadyn':>30} {'MuJoCo FD':>30} {'ratio':>6}")
    lines += [head, "-" * len(head)]
    for name, e in result["scenes"].items():
        dv = e.get("dvz_dvz")
        dvs = f"{dv['soadyn']:.3f}/{dv['mujoco']:.3f}" if dv else "-"
        lines.append(f"{name:<26} {e['nv']:>3} {e['contacts']:>8} {e['shared_max_abs_diff']:>9.1e} "
                     f"{e['normal_max_abs_diff']:>8.3f} {dvs:>16} {str(Timing(**e['soadyn'])):>30} "
                     f"{str(Timing(**e['mujoco'])):>30} {e['ratio']:>6.2f}")
    return "\n".join(lines)
