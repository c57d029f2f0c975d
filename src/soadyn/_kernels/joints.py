"""Joint kinematics for kernels: joint transforms, state-dependent motion subspaces, configuration
derivatives, integration on the joint manifolds, and input checks. Joint type codes match
``soadyn.joints``; the one ``if/elif`` switch on the type lives here.
"""

import math

from numba import uint64

from .._jit import inline_jit, jit
from .spatial import quat_to_rot

REVOLUTE, PRISMATIC, HELICAL, UNIVERSAL, CYLINDRICAL, PLANAR, SPHERICAL, FREE = 1, 2, 3, 4, 5, 6, 7, 8

OK, BAD_Q, BAD_QD, BAD_IN, BAD_FEXT, BAD_QUAT, SINGULAR, SINGULAR_TASK, NOT_FINITE = 0, 1, 2, 3, 4, 5, 6, 7, 8
"""Kernel status codes, translated into ``ValueError`` by the wrappers (``soadyn.dynamics.check_status``;
``SINGULAR_TASK``, a task compliance that is not positive definite, by ``soadyn.control``). ``NOT_FINITE``:
finite inputs whose result overflows float64."""

QUAT_NORM_TOL = 1e-3
"""Quaternions are normalized on use; a norm further than this from 1 is rejected as not a rotation."""


@jit
def rot_axis_T(a, th):
    """rot(a, th) for the unit axis ``a`` (Rodrigues) as a row-major 9-tuple."""
    s = math.sin(th)
    c = math.cos(th)
    t = 1.0 - c
    x, y, z = a[0], a[1], a[2]
    return (c + t * x * x, t * x * y - s * z, t * x * z + s * y,
            t * x * y + s * z, c + t * y * y, t * y * z - s * x,
            t * x * z - s * y, t * y * z + s * x, c + t * z * z)


@jit
def joint_transform(t, a, u, pitch, q, k):
    """X_J(q) = (E, r) for joint type ``t`` with configuration ``q[k:]`` (Featherstone RBDA Table 4.1, in
    the parametrizations of ``soadyn.joints``), returned as a row-major 9-tuple ``E`` and a 3-tuple ``r``:
    ``E = R^T`` where ``R`` is the successor orientation in the predecessor frame, ``r`` the successor
    origin. Tuples stay in registers; the screw joints are handled here, the others in their helpers."""
    if t == REVOLUTE or t == HELICAL or t == CYLINDRICAL or t == PRISMATIC:
        th = 0.0 if t == PRISMATIC else q[k]
        d = q[k] if t == PRISMATIC else (pitch * q[k] if t == HELICAL else (q[k + 1] if t == CYLINDRICAL else 0.0))
        return rot_axis_T(a, -th), (d * a[0], d * a[1], d * a[2])
    if t == UNIVERSAL:
        return universal_transform(a, u, q, k), (0.0, 0.0, 0.0)
    if t == PLANAR:
        return planar_transform(a, u, q, k)
    return quaternion_transform(t, q, k)


@jit
def principal_axis(t, a0, a1, a2):
    """The fast-path code of a joint of type ``t`` and axis ``(a0, a1, a2)`` (docs/architecture.md, Kernels):
    ``m`` in 0-2 for a REVOLUTE joint about the coordinate axis ``e_m``, ``3 + m`` for a PRISMATIC joint along
    it, -1 for any other joint. Such a joint's motion subspace is the unit vector ``S = e_code``: ``S^T f``
    is one component of ``f``, ``P S`` one column of ``P``, and ``X_J`` a rotation about (or a translation
    along) a coordinate axis. The axis must be exactly ``e_m``, so a fast path never changes a result.
    (Scalar arguments: a helper called per body that takes an array costs more than this test.)"""
    if t != REVOLUTE and t != PRISMATIC:
        return -1
    o = 0 if t == REVOLUTE else 3
    if a0 == 1.0 and a1 == 0.0 and a2 == 0.0:
        return o
    if a0 == 0.0 and a1 == 1.0 and a2 == 0.0:
        return o + 1
    if a0 == 0.0 and a1 == 0.0 and a2 == 1.0:
        return o + 2
    return -1


@jit
def unit_subspace(S, k):
    """``m`` if the motion subspace row ``S[k]`` is exactly the unit vector ``e_m`` (0-2: a rotation about a
    coordinate axis, 3-5: a translation along one, as :func:`principal_axis` joints have), else -1: where a
    column of a rotation matrix replaces its product with ``S[k]``, with the same result."""
    m = -1
    for n in range(6):
        x = S[k, n]
        if x == 1.0 and m < 0:
            m = n
        elif x != 0.0:
            return -1
    return m


@jit
def universal_transform(a, u, q, k):
    """UNIVERSAL: ``R = rot(a, q1) rot(u, q2)``, so ``E = rot(u, -q2) rot(a, -q1)`` (row-major 9-tuple)."""
    B = rot_axis_T(u, -q[k + 1])
    C = rot_axis_T(a, -q[k])
    return (B[0] * C[0] + B[1] * C[3] + B[2] * C[6], B[0] * C[1] + B[1] * C[4] + B[2] * C[7],
            B[0] * C[2] + B[1] * C[5] + B[2] * C[8],
            B[3] * C[0] + B[4] * C[3] + B[5] * C[6], B[3] * C[1] + B[4] * C[4] + B[5] * C[7],
            B[3] * C[2] + B[4] * C[5] + B[5] * C[8],
            B[6] * C[0] + B[7] * C[3] + B[8] * C[6], B[6] * C[1] + B[7] * C[4] + B[8] * C[7],
            B[6] * C[2] + B[7] * C[5] + B[8] * C[8])


@jit
def planar_transform(a, u, q, k):
    """PLANAR: translate ``(x, y)`` along ``(u, a x u)``, then rotate by ``theta`` about ``a``."""
    w0 = a[1] * u[2] - a[2] * u[1]
    w1 = a[2] * u[0] - a[0] * u[2]
    w2 = a[0] * u[1] - a[1] * u[0]
    r = (q[k] * u[0] + q[k + 1] * w0, q[k] * u[1] + q[k + 1] * w1, q[k] * u[2] + q[k + 1] * w2)
    return rot_axis_T(a, -q[k + 2]), r


@jit
def quaternion_transform(t, q, k):
    """SPHERICAL (q = quaternion) and FREE (q = [position, quaternion]): ``E = R(quat)^T``."""
    o = k + 3 if t == FREE else k
    x, y, z, w = q[o], q[o + 1], q[o + 2], q[o + 3]
    n = 1.0 / math.sqrt(x * x + y * y + z * z + w * w)
    x *= n
    y *= n
    z *= n
    w *= n
    E = (1.0 - 2.0 * (y * y + z * z), 2.0 * (x * y + z * w), 2.0 * (x * z - y * w),
         2.0 * (x * y - z * w), 1.0 - 2.0 * (x * x + z * z), 2.0 * (y * z + x * w),
         2.0 * (x * z + y * w), 2.0 * (y * z - x * w), 1.0 - 2.0 * (x * x + y * y))
    if t == FREE:
        return E, (q[k], q[k + 1], q[k + 2])
    return E, (0.0, 0.0, 0.0)


@jit
def universal_subspace(a, u, q, k, j, S):
    """First motion-subspace row of a UNIVERSAL joint at ``q``: ``rot(u, -q2) a`` (successor frame); its
    ``Sdot qd = -qd1 qd2 (u x S_1)`` is added in ``tree.tree_velocities``. All other joints keep the
    model's constant ``S``."""
    c, s = math.cos(q[k + 1]), math.sin(q[k + 1])
    ud = u[0] * a[0] + u[1] * a[1] + u[2] * a[2]
    x0 = u[1] * a[2] - u[2] * a[1]
    x1 = u[2] * a[0] - u[0] * a[2]
    x2 = u[0] * a[1] - u[1] * a[0]
    # rot(u, -q2) a = c a - s (u x a) + (1 - c)(u.a) u
    S[j, 0] = c * a[0] - s * x0 + (1.0 - c) * ud * u[0]
    S[j, 1] = c * a[1] - s * x1 + (1.0 - c) * ud * u[1]
    S[j, 2] = c * a[2] - s * x2 + (1.0 - c) * ud * u[2]


@jit
def nv_of(t):
    if t == FREE:
        return 6
    if t == SPHERICAL or t == PLANAR:
        return 3
    if t == UNIVERSAL or t == CYLINDRICAL:
        return 2
    return 1


@inline_jit
def quat_mul_into(ax, ay, az, aw, bx, by, bz, bw, q, k):
    """q[k:k+4] = a b (Hamilton product, scalar-last)."""
    q[k] = aw * bx + ax * bw + ay * bz - az * by
    q[k + 1] = aw * by - ax * bz + ay * bw + az * bx
    q[k + 2] = aw * bz + ax * by - ay * bx + az * bw
    q[k + 3] = aw * bw - ax * bx - ay * by - az * bz


@inline_jit
def normalize_quat(q, k):
    n = 1.0 / math.sqrt(q[k] ** 2 + q[k + 1] ** 2 + q[k + 2] ** 2 + q[k + 3] ** 2)
    for m in range(4):
        q[k + m] *= n


@jit
def integrate_joint(t, q, k, v, j, dt, out, R):
    """out[k:k+nq] = q (+) v dt on the joint's manifold: the group exponential of the constant
    successor-frame velocity ``v[j:j+nv]`` held for ``dt`` (SO(3) for SPHERICAL, SE(3) for FREE, SE(2)
    for PLANAR, plain addition otherwise). ``R`` is a 3x3 scratch array."""
    if t == SPHERICAL or t == FREE:
        o = k + 3 if t == FREE else k
        w0, w1, w2 = v[j] * dt, v[j + 1] * dt, v[j + 2] * dt
        th = math.sqrt(w0 * w0 + w1 * w1 + w2 * w2)
        if t == FREE:
            # position: p' = p + R_0 V(phi) v dt, V = I + (1-cos)/th^2 phi~ + (th - sin)/th^3 phi~^2
            if th < 1e-6:
                c1 = 0.5 - th * th / 24.0
                c2 = 1.0 / 6.0 - th * th / 120.0
            else:
                c1 = (1.0 - math.cos(th)) / (th * th)
                c2 = (th - math.sin(th)) / (th * th * th)
            x0, x1, x2 = v[j + 3] * dt, v[j + 4] * dt, v[j + 5] * dt
            p0 = w1 * x2 - w2 * x1
            p1 = w2 * x0 - w0 * x2
            p2 = w0 * x1 - w1 * x0
            pp0 = w1 * p2 - w2 * p1
            pp1 = w2 * p0 - w0 * p2
            pp2 = w0 * p1 - w1 * p0
            d0 = x0 + c1 * p0 + c2 * pp0
            d1 = x1 + c1 * p1 + c2 * pp1
            d2 = x2 + c1 * p2 + c2 * pp2
            quat_to_rot(q, o, R)
            for m in range(3):
                out[k + m] = q[k + m] + R[m, 0] * d0 + R[m, 1] * d1 + R[m, 2] * d2
        if th < 1e-8:
            s = 0.5 - th * th / 48.0
        else:
            s = math.sin(0.5 * th) / th
        quat_mul_into(q[o], q[o + 1], q[o + 2], q[o + 3], s * w0, s * w1, s * w2, math.cos(0.5 * th), out, o)
        normalize_quat(out, o)
    elif t == PLANAR:
        th0 = q[k + 2]
        phi = v[j] * dt
        vx, vy = v[j + 1] * dt, v[j + 2] * dt
        if abs(phi) < 1e-6:
            sa = 1.0 - phi * phi / 6.0
            ca = 0.5 * phi
        else:
            sa = math.sin(phi) / phi
            ca = (1.0 - math.cos(phi)) / phi
        dx = sa * vx - ca * vy
        dy = ca * vx + sa * vy
        c, s = math.cos(th0), math.sin(th0)
        out[k] = q[k] + c * dx - s * dy
        out[k + 1] = q[k + 1] + s * dx + c * dy
        out[k + 2] = th0 + phi
    else:
        n = nv_of(t)
        for m in range(n):
            out[k + m] = q[k + m] + v[j + m] * dt


@inline_jit
def body_com(I, i):
    """Centre of mass ``c`` (body frame) of the spatial inertia ``I[i]`` (6, 6): ``m c`` read off its
    ``m c~`` block (RBDA Eq. 2.63); ``(0, 0, 0)`` for a massless entry."""
    m = I[i, 3, 3]
    if m <= 0.0:
        return 0.0, 0.0, 0.0
    return I[i, 2, 4] / m, I[i, 0, 5] / m, I[i, 1, 3] / m


@jit
def add_frame_rates(jtype, vadr, I, qd, dt, out):
    """``out += dt rho(qd)``: for each FREE joint with velocity ``(w, v)`` (successor axes) and body centre
    of mass ``c``, ``rho = (0, w x v_c)``, ``v_c = v + w x c``, the rate at which the turning body axes
    change the body-axes coordinates of the centre-of-mass velocity. ``qdd + rho`` holds the classical
    acceleration of the centre of mass (``a_c = v' + w' x c + w x v_c``), which :func:`step_joints` then
    carries into the new body axes exactly. ``I`` (nj, 6, 6): the inertia of each joint's successor body."""
    for i in range(jtype.shape[0]):
        if jtype[i] != FREE:
            continue
        j = vadr[i]
        c0, c1, c2 = body_com(I, i)
        w0, w1, w2 = qd[j], qd[j + 1], qd[j + 2]
        u0 = qd[j + 3] + w1 * c2 - w2 * c1
        u1 = qd[j + 4] + w2 * c0 - w0 * c2
        u2 = qd[j + 5] + w0 * c1 - w1 * c0
        out[j + 3] += dt * (w1 * u2 - w2 * u1)
        out[j + 4] += dt * (w2 * u0 - w0 * u2)
        out[j + 5] += dt * (w0 * u1 - w1 * u0)


@jit
def rotate_by(p0, p1, p2, x0, x1, x2):
    """``exp(phi~) x`` (Rodrigues) for the rotation vector ``phi``, as a 3-tuple."""
    th2 = p0 * p0 + p1 * p1 + p2 * p2
    if th2 < 1e-12:
        s = 1.0 - th2 / 6.0
        h = 0.5 - th2 / 24.0
    else:
        th = math.sqrt(th2)
        s = math.sin(th) / th
        h = (1.0 - math.cos(th)) / th2
    y0 = p1 * x2 - p2 * x1
    y1 = p2 * x0 - p0 * x2
    y2 = p0 * x1 - p1 * x0
    return (x0 + s * y0 + h * (p1 * y2 - p2 * y1), x1 + s * y1 + h * (p2 * y0 - p0 * y2),
            x2 + s * y2 + h * (p0 * y1 - p1 * y0))


@jit
def step_free_joint(c, q, k, qd, j, dt, out, R):
    """One step of a FREE joint (body axes ``R``, origin ``p``) with the step velocity ``(w, v) =
    qd[j:j+6]`` held in the step's body axes: the centre of mass moves on a straight line,
    ``p_c' = p_c + dt R v_c``, the body turns about it, ``R' = R exp(dt w~)``, and ``qd[j:j+6]`` is
    rewritten in the new body axes: ``v' = exp(-dt w~) v_c - w x c`` (``w`` is its own rotation axis, so it
    keeps its coordinates). The world velocities of the body are unchanged: only their coordinates turn."""
    o = k + 3
    w0, w1, w2 = qd[j], qd[j + 1], qd[j + 2]
    c0, c1, c2 = c
    u0 = qd[j + 3] + w1 * c2 - w2 * c1
    u1 = qd[j + 4] + w2 * c0 - w0 * c2
    u2 = qd[j + 5] + w0 * c1 - w1 * c0
    quat_to_rot(q, o, R)
    for m in range(3):
        out[k + m] = q[k + m] + R[m, 0] * (c0 + dt * u0) + R[m, 1] * (c1 + dt * u1) + R[m, 2] * (c2 + dt * u2)
    integrate_joint(SPHERICAL, q, o, qd, j, dt, out, R)
    quat_to_rot(out, o, R)
    for m in range(3):
        out[k + m] -= R[m, 0] * c0 + R[m, 1] * c1 + R[m, 2] * c2
    n0, n1, n2 = rotate_by(-dt * w0, -dt * w1, -dt * w2, u0, u1, u2)
    qd[j + 3] = n0 - (w1 * c2 - w2 * c1)
    qd[j + 4] = n1 - (w2 * c0 - w0 * c2)
    qd[j + 5] = n2 - (w0 * c1 - w1 * c0)


@jit
def step_joints(jtype, qadr, vadr, I, q, qd, dt, out, R):
    """The position update of a semi-implicit step: ``out = q (+) qd dt`` joint by joint
    (:func:`integrate_joint`), except FREE joints, which :func:`step_free_joint` moves (centre of mass on a
    line, rotation about it) and whose velocities it rewrites in place in the new body axes. With
    :func:`add_frame_rates` in the velocity update this integrates the free body's velocity-product term
    exactly: a body in free flight with a constant angular velocity keeps its world velocities, kinetic
    energy and momentum to round-off. ``I`` (nj, 6, 6) as :func:`add_frame_rates`; ``out`` may not alias
    ``q``."""
    for i in range(jtype.shape[0]):
        if jtype[i] == FREE:
            step_free_joint(body_com(I, i), q, qadr[i], qd, vadr[i], dt, out, R)
        else:
            integrate_joint(jtype[i], q, qadr[i], qd, vadr[i], dt, out, R)


@jit
def joint_qdot(t, q, k, v, j, out, R):
    """out[k:k+nq] = dq/dt for the joint velocity ``v[j:j+nv]`` (the map qd -> qdot), ``R`` 3x3 scratch."""
    if t == SPHERICAL or t == FREE:
        o = k + 3 if t == FREE else k
        if t == FREE:
            quat_to_rot(q, o, R)
            for m in range(3):
                out[k + m] = R[m, 0] * v[j + 3] + R[m, 1] * v[j + 4] + R[m, 2] * v[j + 5]
        quat_mul_into(q[o], q[o + 1], q[o + 2], q[o + 3], 0.5 * v[j], 0.5 * v[j + 1], 0.5 * v[j + 2], 0.0, out, o)
    elif t == PLANAR:
        c, s = math.cos(q[k + 2]), math.sin(q[k + 2])
        out[k] = c * v[j + 1] - s * v[j + 2]
        out[k + 1] = s * v[j + 1] + c * v[j + 2]
        out[k + 2] = v[j]
    else:
        for m in range(nv_of(t)):
            out[k + m] = v[j + m]


@jit
def all_finite(x):
    """Whether every entry of ``x`` is finite: one sweep without an early exit, whose test LLVM vectorizes
    (unsigned index, as in ``tree.minv``; 39 entries 23 -> 5 ns, 198 entries 86 -> 15 ns); a non-finite input
    is the rare case."""
    bad = False
    for k in range(uint64(x.size)):
        bad |= not math.isfinite(x.flat[k])
    return not bad


@jit
def check_q(jtype, qadr, q):
    """Status of a configuration: OK, BAD_Q (non-finite) or BAD_QUAT (a quaternion norm off by more than
    QUAT_NORM_TOL)."""
    if not all_finite(q):
        return BAD_Q
    for i in range(jtype.shape[0]):
        t = jtype[i]
        if t == SPHERICAL or t == FREE:
            o = qadr[i] + 3 if t == FREE else qadr[i]
            n = math.sqrt(q[o] ** 2 + q[o + 1] ** 2 + q[o + 2] ** 2 + q[o + 3] ** 2)
            if abs(n - 1.0) > QUAT_NORM_TOL:
                return BAD_QUAT
    return OK


@jit
def integrate_config(jtype, qadr, vadr, q, v, dt, out, R):
    """out = q (+) v dt, joint by joint (:func:`joints.integrate_joint`): the group exponential of the
    constant joint velocity on each joint's manifold (SE(3), SO(3), SE(2), or addition). ``out`` (nq,),
    ``R`` (3, 3) scratch; ``out`` may not alias ``q``."""
    for i in range(jtype.shape[0]):
        integrate_joint(jtype[i], q, qadr[i], v, vadr[i], dt, out, R)


@jit
def config_rate(jtype, qadr, vadr, q, v, out, R):
    """out = dq/dt for the joint velocities ``v`` (joint by joint, :func:`joints.joint_qdot`):
    ``qdot = 1/2 q [w; 0]`` for quaternions (body-frame ``w``), ``pdot = R(q) v`` for free-joint
    positions, ``qdot = v`` otherwise. ``out`` (nq,), ``R`` (3, 3) scratch."""
    for i in range(jtype.shape[0]):
        joint_qdot(jtype[i], q, qadr[i], v, vadr[i], out, R)


@jit
def normalize_config(jtype, qadr, q):
    """Normalize the quaternions of SPHERICAL and FREE joints in ``q`` in place."""
    for i in range(jtype.shape[0]):
        if jtype[i] == SPHERICAL:
            normalize_quat(q, qadr[i])
        elif jtype[i] == FREE:
            normalize_quat(q, qadr[i] + 3)
