"""Closed-form loop kinematics of planar one-dof loops of revolute and prismatic joints closed by a planar pin
(the planar four bar, the crank slider, the wishbone suspension): given the independent coordinate, the two
dependent joints follow from a circle-circle or circle-line intersection in the mechanism's plane.

Row ``k`` of ``an`` (int64) describes node ``k``: ``(case, l, j1, j2, d1, d2, side, jr)`` with ``case`` 0 (no
closed form), 1 (one dependent joint on each branch: ``j1, d1`` on frame A's branch, ``j2, d2`` on B's; the
pin point is where the circle or line traced by A's point under ``j1`` meets the one traced by B's point
under ``j2``) or 2 (both dependent joints on one branch, ``j1`` above the revolute ``j2``; ``side`` 0 when
it is A's branch: ``j2``'s pivot is where its path under ``j1`` meets the circle about the fixed pin point
with radius ``|pin - pivot_2|``). ``j`` are joint (body) indices, ``d`` their dofs, ``l`` the loop index
among the embedded loops, ``jr`` a revolute joint of the node (its axis is the plane's normal). Of the two
intersections, the one nearer the current point is taken (the branch of the warm start).
"""

import math

import numpy as np

from .._jit import jit
from .frames import frame_world_pose
from .joints import REVOLUTE

CASE, LOOP, J1, J2, DOF1, DOF2, SIDE, REF = range(8)
"""Columns of ``an``."""


@jit
def intersect(c0, r0, u0, line0, c1, r1, u1, line1, ref, out):
    """The intersection nearest ``ref`` of two plane curves, each a circle (centre ``c``, radius ``r``) or,
    with ``line`` True, the line through ``c`` along the unit direction ``u`` (2-tuples). Returns False when
    they do not meet (the loop cannot close: out of range or past a dead point)."""
    if line0 and line1:
        return False
    if line0:
        c0, r0, u0, c1, r1, u1 = c1, r1, u1, c0, r0, u0
        line1 = True
    if line1:
        ux, uy = u1
        # |c1 + s u - c0| = r0
        dx, dy = c1[0] - c0[0], c1[1] - c0[1]
        b = dx * ux + dy * uy
        disc = b * b - (dx * dx + dy * dy - r0 * r0)
        if disc < -1e-12 * max(r0 * r0, 1e-300):
            return False
        h = math.sqrt(max(disc, 0.0))
        best = math.inf
        for s in (-b + h, -b - h):
            x, y = c1[0] + s * ux, c1[1] + s * uy
            dist = (x - ref[0]) ** 2 + (y - ref[1]) ** 2
            if dist < best:
                best = dist
                out[0], out[1] = x, y
        return True
    dx, dy = c1[0] - c0[0], c1[1] - c0[1]
    L = math.sqrt(dx * dx + dy * dy)
    if L == 0.0:
        return False
    a = (r0 * r0 - r1 * r1 + L * L) / (2.0 * L)
    h2 = r0 * r0 - a * a
    if h2 < -1e-12 * max(r0 * r0, 1e-300):
        return False
    h = math.sqrt(max(h2, 0.0))
    ex, ey = dx / L, dy / L
    best = math.inf
    for sg in (1.0, -1.0):
        x, y = c0[0] + a * ex - sg * h * ey, c0[1] + a * ey + sg * h * ex
        dist = (x - ref[0]) ** 2 + (y - ref[1]) ** 2
        if dist < best:
            best = dist
            out[0], out[1] = x, y
    return True


@jit
def planar(p, e1, e2):
    """The in-plane coordinates of the world point or direction ``p``."""
    return (p[0] * e1[0] + p[1] * e1[1] + p[2] * e1[2], p[0] * e2[0] + p[1] * e2[1] + p[2] * e2[2])


@jit
def joint_world_axis(j, axis, oR, e1, e2, n):
    """``(in-plane direction, sign of the axis along n)`` of joint ``j``: for a prismatic joint its unit
    in-plane direction, for a revolute one the sign of ``oR_j a . n``."""
    w0 = oR[j, 0, 0] * axis[j, 0] + oR[j, 0, 1] * axis[j, 1] + oR[j, 0, 2] * axis[j, 2]
    w1 = oR[j, 1, 0] * axis[j, 0] + oR[j, 1, 1] * axis[j, 1] + oR[j, 1, 2] * axis[j, 2]
    w2 = oR[j, 2, 0] * axis[j, 0] + oR[j, 2, 1] * axis[j, 1] + oR[j, 2, 2] * axis[j, 2]
    u = (w0 * e1[0] + w1 * e1[1] + w2 * e1[2], w0 * e2[0] + w1 * e2[1] + w2 * e2[2])
    sgn = 1.0 if w0 * n[0] + w1 * n[1] + w2 * n[2] > 0.0 else -1.0
    return u, sgn


@jit
def turn(a, b):
    """The signed angle from the plane vector ``a`` to ``b``."""
    return math.atan2(a[0] * b[1] - a[1] * b[0], a[0] * b[0] + a[1] * b[1])


@jit
def planar_step(k, an, jtype, axis, frame_body, frame_E, frame_r, fa, fb, oR, op, dq):
    """The dependent-coordinate increments ``dq[d1], dq[d2]`` that close planar node ``k`` exactly (module
    docstring), from the positions at the current configuration; the plane's normal is the current world
    axis of the node's revolute joint ``an[k, 7]``.
    Returns False when the loop cannot close at this independent coordinate."""
    R = np.empty((3, 3))
    pA = np.empty(3)
    pB = np.empty(3)
    jr = an[k, REF]
    n = np.empty(3)
    for m in range(3):
        n[m] = oR[jr, m, 0] * axis[jr, 0] + oR[jr, m, 1] * axis[jr, 1] + oR[jr, m, 2] * axis[jr, 2]
    n /= math.sqrt(n[0] ** 2 + n[1] ** 2 + n[2] ** 2)
    # in-plane basis (e1, e2) with e1 x e2 = n
    t = (1.0, 0.0, 0.0) if abs(n[0]) < 0.9 else (0.0, 1.0, 0.0)
    d = t[0] * n[0] + t[1] * n[1] + t[2] * n[2]
    e1 = np.array([t[0] - d * n[0], t[1] - d * n[1], t[2] - d * n[2]])
    e1 /= math.sqrt(e1[0] ** 2 + e1[1] ** 2 + e1[2] ** 2)
    e2 = np.array([n[1] * e1[2] - n[2] * e1[1], n[2] * e1[0] - n[0] * e1[2], n[0] * e1[1] - n[1] * e1[0]])
    l = an[k, LOOP]
    frame_world_pose(frame_body[fa[l]], frame_E[fa[l]], frame_r[fa[l]], oR, op, R, pA)
    frame_world_pose(frame_body[fb[l]], frame_E[fb[l]], frame_r[fb[l]], oR, op, R, pB)
    A = planar(pA, e1, e2)
    B = planar(pB, e1, e2)
    j1, j2 = an[k, J1], an[k, J2]
    u1, s1 = joint_world_axis(j1, axis, oR, e1, e2, n)
    u2, s2 = joint_world_axis(j2, axis, oR, e1, e2, n)
    c1 = planar(op[j1], e1, e2)
    c2 = planar(op[j2], e1, e2)
    rev1 = jtype[j1] == REVOLUTE
    rev2 = jtype[j2] == REVOLUTE
    X = np.empty(2)
    if an[k, CASE] == 1:
        # A's point under j1 meets B's point under j2
        r1 = math.hypot(A[0] - c1[0], A[1] - c1[1])
        r2 = math.hypot(B[0] - c2[0], B[1] - c2[1])
        ref = (0.5 * (A[0] + B[0]), 0.5 * (A[1] + B[1]))
        if not intersect(c1 if rev1 else A, r1, u1, not rev1, c2 if rev2 else B, r2, u2, not rev2, ref, X):
            return False
        x = (X[0], X[1])
        if rev1:
            dq[an[k, DOF1]] = s1 * turn((A[0] - c1[0], A[1] - c1[1]), (x[0] - c1[0], x[1] - c1[1]))
        else:
            dq[an[k, DOF1]] = (x[0] - A[0]) * u1[0] + (x[1] - A[1]) * u1[1]
        if rev2:
            dq[an[k, DOF2]] = s2 * turn((B[0] - c2[0], B[1] - c2[1]), (x[0] - c2[0], x[1] - c2[1]))
        else:
            dq[an[k, DOF2]] = (x[0] - B[0]) * u2[0] + (x[1] - B[1]) * u2[1]
        return True
    # case 2: both on the moving point's branch; T the fixed pin point
    P = A if an[k, SIDE] == 0 else B
    T = B if an[k, SIDE] == 0 else A
    r2 = math.hypot(P[0] - c2[0], P[1] - c2[1])
    r1 = math.hypot(c2[0] - c1[0], c2[1] - c1[1])
    if not intersect(c1 if rev1 else c2, r1, u1, not rev1, T, r2, u2, False, c2, X):
        return False
    if rev1:
        ang = turn((c2[0] - c1[0], c2[1] - c1[1]), (X[0] - c1[0], X[1] - c1[1]))
        dq[an[k, DOF1]] = s1 * ang
        ca, sa = math.cos(ang), math.sin(ang)
        px, py = P[0] - c1[0], P[1] - c1[1]
        P2 = (c1[0] + ca * px - sa * py, c1[1] + sa * px + ca * py)
    else:
        s = (X[0] - c2[0]) * u1[0] + (X[1] - c2[1]) * u1[1]
        dq[an[k, DOF1]] = s
        P2 = (P[0] + s * u1[0], P[1] + s * u1[1])
    dq[an[k, DOF2]] = s2 * turn((P2[0] - X[0], P2[1] - X[1]), (T[0] - X[0], T[1] - X[1]))
    return True
