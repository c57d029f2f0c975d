"""The scenes of :mod:`soadyn.models.scenes` for DART (``dartpy``, minimal coordinates and a boxed LCP, as
soadyn): skeletons built in code with the same sizes, masses, inertia tensors, friction and gravity, 1 ms
steps.

DART combines the friction of a pair as the smaller of its two shapes' coefficients and restitution as their
product: every shape gets the scene's ``mu`` and ``sqrt(e)``, so every pair has ``mu`` and ``e``. The ground is
a 20 m x 20 m box 1 m thick whose top face is the scene's ground plane (DART's FCL detector has no half-space).
Collision detection: DART's ODE detector (its default, FCL, has no capsule). solo12 (example-robot-data) is built in code from the soadyn model: the same bodies,
joint placements, inertias, springs and foot spheres.
"""

from __future__ import annotations

import math

import numpy as np

from .scenes import G, Scene

__all__ = ["dart_available", "dart_world", "DT", "GROUND_HALF"]

DT = 1e-3
GROUND_HALF = (10.0, 10.0, 0.5)


def dart_available() -> bool:
    """Whether ``dartpy`` imports."""
    try:
        import dartpy  # noqa: F401
    except ImportError:
        return False
    return True


def _iso(R, p):
    import dartpy as dart

    T = dart.math.Isometry3()
    T.set_rotation(np.asarray(R, dtype=float))
    T.set_translation(np.asarray(p, dtype=float))
    return T


def _shape(shape: str, size):
    import dartpy as dart

    if shape == "sphere":
        return dart.dynamics.SphereShape(float(size[0]))
    if shape == "box":
        return dart.dynamics.BoxShape(2.0 * np.asarray(size, dtype=float))
    return dart.dynamics.CapsuleShape(float(size[0]), 2.0 * float(size[1]))


def _attach(body, shape, mu: float, e: float, T=None):
    node = body.createShapeNode(shape)
    if T is not None:
        node.setRelativeTransform(T)
    node.createCollisionAspect()
    dyn = node.createDynamicsAspect()
    dyn.setFrictionCoeff(mu)
    dyn.setRestitutionCoeff(math.sqrt(e))
    return node


def _ground(scene: Scene):
    import dartpy as dart

    sk = dart.dynamics.Skeleton("ground")
    joint, body = sk.createWeldJointAndBodyNodePair(None)
    R = scene.ground
    joint.setTransformFromParentBodyNode(_iso(R, R @ np.array([0.0, 0.0, -GROUND_HALF[2]])))
    _attach(body, dart.dynamics.BoxShape(2.0 * np.asarray(GROUND_HALF)), scene.mu, scene.e)
    return sk


def _parts(scene: Scene):
    import dartpy as dart

    out = []
    for p in scene.parts:
        sk = dart.dynamics.Skeleton(p.name)
        Ic = p.inertia().Ic
        if p.joint == "free":
            joint, body = sk.createFreeJointAndBodyNodePair(None)
            body.setInertia(dart.dynamics.Inertia(p.mass, np.zeros(3), Ic))
            _attach(body, _shape(p.shape, p.size), scene.mu, scene.e)
            joint.setPositions(dart.dynamics.FreeJoint.convertToPositions(_iso(p.rotation, p.position)))
            joint.setLinearVelocity(np.asarray(p.velocity, dtype=float))  # world axes
            joint.setAngularVelocity(np.asarray(p.omega, dtype=float))
        else:
            props = dart.dynamics.RevoluteJointProperties()
            props.mAxis = np.asarray(p.axis, dtype=float)
            props.mT_ParentBodyToJoint = _iso(np.eye(3), p.pivot)
            joint, body = sk.createRevoluteJointAndBodyNodePair(None, props)
            c = np.asarray(p.position, float) - np.asarray(p.pivot, float)
            body.setInertia(dart.dynamics.Inertia(p.mass, c, p.rotation @ Ic @ p.rotation.T))
            _attach(body, _shape(p.shape, p.size), scene.mu, scene.e, _iso(p.rotation, c))
            joint.setPosition(0, p.angle)
            joint.setVelocity(0, p.rate)
        out.append(sk)
    return out


def _robot(scene: Scene):
    """The soadyn model's tree as a DART skeleton (free root, revolute joints), feet as spheres."""
    import dartpy as dart

    from ..spatial import Inertia, quat_to_rot

    m = scene.model
    sk = dart.dynamics.Skeleton(m.name)
    bodies = []
    kp, kd = scene.params["kp"], scene.params["kd"]
    for i in range(m.nb):
        parent = None if m.body_parent[i] < 0 else bodies[m.body_parent[i]]
        T = _iso(np.asarray(m.body_Xtree_E[i]).T, m.body_Xtree_r[i])  # the joint frame's pose in the parent
        if m.jnt_nq[i] == 7:
            props = dart.dynamics.FreeJointProperties()
            props.mT_ParentBodyToJoint = T
            joint, body = sk.createFreeJointAndBodyNodePair(parent, props)
        else:
            props = dart.dynamics.RevoluteJointProperties()
            props.mT_ParentBodyToJoint = T
            props.mAxis = np.asarray(m.jnt_axis[i], dtype=float)
            joint, body = sk.createRevoluteJointAndBodyNodePair(parent, props)
            joint.setSpringStiffness(0, kp)
            joint.setDampingCoefficient(0, kd)
            joint.setRestPosition(0, float(m.dof_springref[m.jnt_vadr[i]]))
        inertia = Inertia.from_matrix(m.body_I[i])
        body.setInertia(dart.dynamics.Inertia(inertia.mass, inertia.com, inertia.Ic))
        bodies.append(body)
    for g in range(m.ng):
        b = int(m.geom_body[g])
        if b < 0:
            continue
        T = _iso(np.asarray(m.geom_E[g]).T, m.geom_r[g])
        _attach(bodies[b], dart.dynamics.SphereShape(float(m.geom_size[g, 0])), scene.mu, 0.0, T)
    q, qd = scene.q0, scene.qd0
    sk.getJoint(0).setPositions(dart.dynamics.FreeJoint.convertToPositions(_iso(quat_to_rot(q[3:7]), q[:3])))
    R = quat_to_rot(q[3:7])
    sk.getJoint(0).setAngularVelocity(R @ qd[:3])
    sk.getJoint(0).setLinearVelocity(R @ qd[3:6])
    for i in range(1, m.nb):
        sk.getJoint(i).setPosition(0, float(q[m.jnt_qadr[i]]))
        sk.getJoint(i).setVelocity(0, float(qd[m.jnt_vadr[i]]))
    return sk


def dart_world(scene: Scene):
    """``(world, skeletons)``: a ``dartpy.simulation.World`` of ``scene`` at its start state, and the skeletons
    of its bodies in the order of ``scene.parts`` (one skeleton for a robot)."""
    import dartpy as dart

    w = dart.simulation.World()
    w.setGravity([0.0, 0.0, -G])
    w.setTimeStep(DT)
    w.setCollisionDetector(dart.collision.OdeCollisionDetector())
    if scene.ground is not None:
        w.addSkeleton(_ground(scene))
    skels = [_robot(scene)] if scene.robot is not None else _parts(scene)
    for sk in skels:
        w.addSkeleton(sk)
    return w, skels
