"""A URDF robot stands on its own collision meshes: solo12 (example-robot-data) loaded with
``collision=True`` (its 17 ``<collision>`` meshes as convex hulls), a halfspace floor, joint springs holding
a crouched posture, dropped from 6 cm above its standing height. After 1 s it rests on its four foot meshes
(and nothing else), the base at the height the legs' geometry gives, with the penetration within the contact
step's error correction. No hand-made spheres."""

import dataclasses

import numpy as np
import pytest

import soadyn as sd
from soadyn.contact import ContactSettings, collide
from soadyn.contact.geometry import with_geoms

pytest.importorskip("trimesh")

REST_SPEED = 0.05  # m/s or rad/s: largest generalized velocity counted as at rest after 1 s
PENETRATION = 1e-3  # m: the deepest contact allowed at rest
TOUCH = 1e-4  # m: a geom within this distance of the floor counts as resting on it (a resting foot's gap is
# zero up to round-off, of either sign)


def _crouched(model):
    q = model.neutral_q()
    for i, n in enumerate(model.jnt_names):
        if n.endswith("HFE"):
            q[model.jnt_qadr[i]] = 0.8 if n.startswith("F") else -0.8
        if n.endswith("KFE"):
            q[model.jnt_qadr[i]] = -1.6 if n.startswith("F") else 1.6
    return q


def test_solo12_stands_on_its_collision_meshes():
    from soadyn.models.robots import robot_urdf

    try:
        path = robot_urdf("solo12")
    except ValueError as exc:
        pytest.skip(str(exc))
    model = sd.Model.from_urdf(path, floating_base=True, mimic="independent", collision=True)
    assert model.ng == 17 and np.all(model.geom_type == sd.contact.geometry.GEOM_CONVEX)
    model = with_geoms(model, [dict(name="floor", body="world", kind="halfspace", mu=0.8)])
    q0 = _crouched(model)
    q0[2] = 0.3
    one = model.jnt_vadr[model.jnt_nv == 1]
    k, c, ref = np.zeros(model.nv), np.zeros(model.nv), np.zeros(model.nv)
    k[one], c[one], ref[one] = 20.0, 0.5, q0[model.jnt_qadr[model.jnt_nv == 1]]
    model = dataclasses.replace(model, dof_stiffness=k, dof_damping=c, dof_springref=ref)
    assert collide(model, model.data(), q0).count == 0  # starts in the air, no self-contact
    traj = sd.Simulator(model, dt=1e-3, contact=ContactSettings()).rollout(q0, np.zeros(model.nv), duration=1.0)
    assert np.abs(traj.qd[-1]).max() < REST_SPEED, f"not at rest: |qd| = {np.abs(traj.qd[-1]).max():.3g}"
    assert 0.2 < traj.q[-1, 2] < 0.26, f"base height {traj.q[-1, 2]:.4f} m"
    near = dataclasses.replace(model, geom_margin=np.full(model.ng, TOUCH))
    touching = collide(near, near.data(), traj.q[-1])
    bodies = {model.geom_name[a] for (a, b), gap in zip(touching.geom, touching.gap) if gap < TOUCH}
    assert bodies == {f"{leg}_FOOT/collision0" for leg in ("FL", "FR", "HL", "HR")}, bodies
    assert touching.gap.min() > -PENETRATION, f"penetration {-touching.gap.min():.3g} m"


ANYMAL_PTP = 1e-6  # m: base height peak-to-peak over the last 0.5 s of the 2 s settle


def test_anymal_stands_on_its_collision_geometry():
    """ANYmal C (example-robot-data) with its 46 URDF ``<collision>`` boxes, cylinders and spheres, joint
    springs holding a standing posture, lowered to 1 cm above a halfspace floor: after 2 s it stands still on
    its four foot spheres (the legs' cylinders and the base's boxes touch neither the floor nor each other)."""
    import warnings

    from soadyn.models.robots import robot_urdf

    try:
        path = robot_urdf("anymal")
    except ValueError as exc:
        pytest.skip(str(exc))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the URDF's camera links have non-physical inertias, repaired
        model = sd.Model.from_urdf(path, floating_base=True, collision=True)
    model = with_geoms(model, [dict(name="floor", body="world", kind="halfspace", mu=0.8)])
    q0 = model.neutral_q()
    for i, n in enumerate(model.jnt_names):
        if n.endswith("HFE"):
            q0[model.jnt_qadr[i]] = 0.6 if n[1] == "F" else -0.6
        if n.endswith("KFE"):
            q0[model.jnt_qadr[i]] = -1.0 if n[1] == "F" else 1.0
    one = model.jnt_vadr[model.jnt_nv == 1]
    k, c, ref = np.zeros(model.nv), np.zeros(model.nv), np.zeros(model.nv)
    k[one], c[one], ref[one] = 300.0, 5.0, q0[model.jnt_qadr[model.jnt_nv == 1]]
    model = dataclasses.replace(model, dof_stiffness=k, dof_damping=c, dof_springref=ref)
    far = dataclasses.replace(model, geom_margin=np.full(model.ng, 10.0))
    q0[2] = 1.0
    floor = model.geom_name.index("floor")
    reach = collide(far, far.data(), q0)
    q0[2] -= min(g for (a, b), g in zip(reach.geom, reach.gap) if floor in (a, b)) - 0.01
    assert collide(model, model.data(), q0).count == 0  # in the air, no self-contact
    traj = sd.Simulator(model, dt=1e-3, contact=ContactSettings()).rollout(q0, np.zeros(model.nv), duration=2.0)
    z = traj.q[traj.t >= traj.t[-1] - 0.5, 2]
    assert np.ptp(z) < ANYMAL_PTP, f"base height peak-to-peak {np.ptp(z):.3g} m"
    near = dataclasses.replace(model, geom_margin=np.full(model.ng, TOUCH))
    touching = collide(near, near.data(), traj.q[-1])
    pairs = {tuple(sorted(model.geom_name[g] for g in ab)) for ab, gap in zip(touching.geom, touching.gap) if gap < TOUCH}
    assert pairs == {(f"{leg}_FOOT/collision1", "floor") for leg in ("LF", "RF", "LH", "RH")}, pairs
    assert touching.gap.min() > -PENETRATION, f"penetration {-touching.gap.min():.3g} m"
