"""The scenes of :mod:`soadyn.models.scenes` for MuJoCo: MJCF with the same sizes, masses (explicit
``<inertial>``: the same inertia tensors as soadyn's), friction, gravity and 1 ms steps.

MuJoCo's contact is soft and differs from an LCP in ways worth stating (its defaults are kept where a scene
asks for nothing else): ``solref="0.02 1"`` (a 20 ms, critically damped constraint: no bounce) and
``solimp="0.9 0.95 0.001 0.5 2"``, so bodies sink a little under load; pyramidal friction cones
(``cone="pyramidal"``, as the LCP's pyramid; ``condim="3"``, sliding friction only, no torsional or rolling
friction; ``condim="1"`` when ``mu = 0``); friction of a pair is the larger of its two geoms', as in soadyn;
Euler integration (``integrator="Euler"``, MuJoCo's default, semi-implicit). MuJoCo has no restitution
coefficient: a scene with ``e > 0`` gets the direct form ``solref="-k -b"`` of a contact spring-damper whose
damping ratio ``zeta`` gives that restitution, ``e = exp(-zeta pi / sqrt(1 - zeta^2))``, at a contact period
of :data:`BOUNCE_PERIOD` (an approximation: MuJoCo's impedance ``solimp`` scales both).

solo12 comes from example-robot-data's URDF through MuJoCo's own URDF compiler (``MjSpec``, visual and mesh
collision geometry removed, links merged through fixed joints as soadyn does), a free joint on the base, foot
spheres at the ``{leg}_FOOT`` frames taken from the soadyn model, the same joint springs and no joint limits.
"""

from __future__ import annotations

import math
import re

import numpy as np

from ..spatial import rot_to_quat
from .scenes import G, SOLO12_LEGS, Scene

__all__ = ["mjcf", "mujoco_model", "mujoco_start", "restitution_solref", "BOUNCE_PERIOD", "DT"]

DT = 1e-3
BOUNCE_PERIOD = 0.01
"""Period (s) of the contact spring of a bouncing scene (:func:`restitution_solref`): 5 ms of contact."""


def restitution_solref(e: float) -> str:
    """MuJoCo ``solref`` for restitution ``e``: MuJoCo's default for ``e = 0``; otherwise the direct form
    ``"-k -b"`` (stiffness, damping per unit mass) of an oscillator of period :data:`BOUNCE_PERIOD` damped to
    restitution ``e``."""
    if e <= 0.0:
        return "0.02 1"
    ln = math.log(e)
    zeta = -ln / math.sqrt(math.pi ** 2 + ln * ln)
    w = 2.0 * math.pi / BOUNCE_PERIOD
    return f"{-w * w!r} {-2.0 * zeta * w!r}"


def _quat(R) -> str:
    x, y, z, w = rot_to_quat(R)
    return _vec((w, x, y, z))


def _vec(v) -> str:
    return " ".join(repr(float(x)) for x in v)


def _geom(shape: str, size) -> str:
    if shape == "capsule":
        return f'type="capsule" size="{_vec(size[:2])}"'
    return f'type="{shape}" size="{_vec(size)}"'


def mjcf(scene: Scene) -> str:
    """The MJCF of a primitive scene (every scene but solo12's: see :func:`mujoco_model`)."""
    if scene.robot is not None:
        raise ValueError(f"scene {scene.name!r}: a URDF robot scene has no hand-written MJCF; use mujoco_model")
    condim = 1 if scene.mu == 0.0 else 3
    bodies = []
    for p in scene.parts:
        I = p.inertia().Ic
        inertial = f'<inertial pos="0 0 0" mass="{float(p.mass)!r}" diaginertia="{_vec(np.diag(I))}"/>'
        if p.joint == "free":
            bodies.append(f'    <body name="{p.name}" pos="{_vec(p.position)}" quat="{_quat(p.rotation)}">\n'
                          f'      <freejoint name="{p.name}"/>\n      {inertial}\n'
                          f'      <geom name="{p.name}" {_geom(p.shape, p.size)}/>\n    </body>')
        else:
            c = np.asarray(p.position, float) - np.asarray(p.pivot, float)
            bodies.append(f'    <body name="{p.name}" pos="{_vec(p.pivot)}">\n'
                          f'      <joint name="{p.name}" type="hinge" axis="{_vec(p.axis)}"/>\n'
                          f'      <body name="{p.name}_centre" pos="{_vec(c)}" quat="{_quat(p.rotation)}">\n'
                          f'        {inertial}\n        <geom name="{p.name}" {_geom(p.shape, p.size)}/>\n'
                          f'      </body>\n    </body>')
    ground = ""
    if scene.ground is not None:
        ground = f'    <geom name="ground" type="plane" size="0 0 1" quat="{_quat(scene.ground)}"/>\n'
    return f"""<mujoco model="{scene.name}">
  <option timestep="{DT:g}" gravity="0 0 {-G!r}" cone="pyramidal"/>
  <default>
    <geom condim="{condim}" friction="{scene.mu!r} 0.005 0.0001" solref="{restitution_solref(scene.e)}"/>
  </default>
  <worldbody>
{ground}{chr(10).join(bodies)}
  </worldbody>
</mujoco>
"""


def _solo12_model(scene: Scene):
    import mujoco

    from .robots import robot_urdf

    text = robot_urdf("solo12").read_text()
    text = re.sub(r"<visual>.*?</visual>|<collision>.*?</collision>", "", text, flags=re.S)
    spec = mujoco.MjSpec.from_string(text)
    spec.option.timestep = DT
    spec.option.gravity = [0.0, 0.0, -G]
    spec.option.cone = mujoco.mjtCone.mjCONE_PYRAMIDAL
    base = spec.worldbody.first_body()
    base.add_freejoint(name="base")
    m = scene.model
    kp, kd = scene.params["kp"], scene.params["kd"]
    for j in spec.joints:
        if j.type == mujoco.mjtJoint.mjJNT_HINGE:
            k = m.jnt_vadr[m.joint_id(j.name)]
            j.limited = mujoco.mjtLimited.mjLIMITED_FALSE
            j.stiffness, j.damping, j.springref = [kp, 0.0, 0.0], [kd, 0.0, 0.0], float(m.dof_springref[k])
    for leg in SOLO12_LEGS:
        f = m.frame_id(f"{leg}_FOOT")
        body = spec.body(m.body_names[m.frame_body[f]])
        # at the foot frame's origin in the axes of its body (the lower leg, merged as in soadyn)
        body.add_geom(name=f"{leg}_foot", type=mujoco.mjtGeom.mjGEOM_SPHERE, size=[_foot_radius(m, leg), 0, 0],
                      pos=list(np.asarray(m.frame_r[f], float)), friction=[scene.mu, 0.005, 0.0001], condim=3)
    spec.worldbody.add_geom(name="ground", type=mujoco.mjtGeom.mjGEOM_PLANE, size=[0, 0, 1],
                            friction=[scene.mu, 0.005, 0.0001], condim=3)
    return spec.compile()


def _foot_radius(m, leg: str) -> float:
    return float(m.geom_size[list(m.geom_name).index(f"{leg}_foot"), 0])


def mujoco_model(scene: Scene):
    """The ``mujoco.MjModel`` of ``scene``."""
    import mujoco

    if scene.robot == "solo12":
        return _solo12_model(scene)
    return mujoco.MjModel.from_xml_string(mjcf(scene))


def mujoco_start(scene: Scene, model, data) -> None:
    """Set ``data`` (an ``MjData`` of :func:`mujoco_model`) to the scene's start state and run
    ``mj_forward``."""
    import mujoco

    from ..spatial import quat_to_rot

    mujoco.mj_resetData(model, data)
    m = scene.model
    q, qd = scene.q0, scene.qd0
    for i in range(m.nb):
        name = "base" if scene.robot is not None and i == 0 else (m.joint_names[i] if scene.robot else m.body_names[i])
        j = model.joint(name)
        qa, va = m.jnt_qadr[i], m.jnt_vadr[i]
        if m.jnt_nq[i] == 7:
            x, y, z, w = q[qa + 3:qa + 7]
            data.qpos[j.qposadr[0]:j.qposadr[0] + 7] = [*q[qa:qa + 3], w, x, y, z]
            R = quat_to_rot(q[qa + 3:qa + 7])
            data.qvel[j.dofadr[0]:j.dofadr[0] + 3] = R @ qd[va + 3:va + 6]  # world linear velocity
            data.qvel[j.dofadr[0] + 3:j.dofadr[0] + 6] = qd[va:va + 3]  # body-frame angular velocity
        else:
            data.qpos[j.qposadr[0]] = q[qa]
            data.qvel[j.dofadr[0]] = qd[va]
    mujoco.mj_forward(model, data)
