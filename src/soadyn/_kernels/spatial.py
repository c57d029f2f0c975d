"""Scalar spatial algebra for kernels (Featherstone, RBDA ch. 2), angular-first.

A motion transform ``X`` from frame A to frame B is ``(E, r)``: ``X = [[E, 0], [-E r~, E]]`` with ``E``
mapping A-coordinates to B-coordinates and ``r`` the origin of B in A. No 6x6 transform is ever formed.
All helpers write into caller-provided arrays; outputs never alias inputs unless stated.
"""

import math

from .._jit import jit


@jit
def rot_axis(a, th, R):
    """R (3,3) = rotation by ``th`` about the unit axis ``a`` (Rodrigues)."""
    s = math.sin(th)
    c = math.cos(th)
    t = 1.0 - c
    x, y, z = a[0], a[1], a[2]
    R[0, 0] = c + t * x * x
    R[0, 1] = t * x * y - s * z
    R[0, 2] = t * x * z + s * y
    R[1, 0] = t * x * y + s * z
    R[1, 1] = c + t * y * y
    R[1, 2] = t * y * z - s * x
    R[2, 0] = t * x * z - s * y
    R[2, 1] = t * y * z + s * x
    R[2, 2] = c + t * z * z


@jit
def quat_to_rot(q, k, R):
    """R (3,3) = rotation of the scalar-last quaternion ``q[k:k+4]`` (normalized on use)."""
    x, y, z, w = q[k], q[k + 1], q[k + 2], q[k + 3]
    n = 1.0 / math.sqrt(x * x + y * y + z * z + w * w)
    x *= n
    y *= n
    z *= n
    w *= n
    R[0, 0] = 1.0 - 2.0 * (y * y + z * z)
    R[0, 1] = 2.0 * (x * y - z * w)
    R[0, 2] = 2.0 * (x * z + y * w)
    R[1, 0] = 2.0 * (x * y + z * w)
    R[1, 1] = 1.0 - 2.0 * (x * x + z * z)
    R[1, 2] = 2.0 * (y * z - x * w)
    R[2, 0] = 2.0 * (x * z - y * w)
    R[2, 1] = 2.0 * (y * z + x * w)
    R[2, 2] = 1.0 - 2.0 * (x * x + y * y)


@jit
def mat3_mul(A, B, out):
    """out = A B (3x3)."""
    for r in range(3):
        for c in range(3):
            out[r, c] = A[r, 0] * B[0, c] + A[r, 1] * B[1, c] + A[r, 2] * B[2, c]


@jit
def compose(E1, r1, E2, r2, E, r):
    """(E, r) = X1 X2, i.e. first X2 (A->B) then X1 (B->C): ``E = E1 E2``, ``r = r2 + E2^T r1``."""
    mat3_mul(E1, E2, E)
    for k in range(3):
        r[k] = r2[k] + E2[0, k] * r1[0] + E2[1, k] * r1[1] + E2[2, k] * r1[2]


@jit
def xmotion(E, r, m, out):
    """out = X m: ``w' = E w``, ``v' = E (v - r x w)``."""
    w0, w1, w2 = m[0], m[1], m[2]
    u0 = m[3] - (r[1] * w2 - r[2] * w1)
    u1 = m[4] - (r[2] * w0 - r[0] * w2)
    u2 = m[5] - (r[0] * w1 - r[1] * w0)
    for k in range(3):
        out[k] = E[k, 0] * w0 + E[k, 1] * w1 + E[k, 2] * w2
        out[3 + k] = E[k, 0] * u0 + E[k, 1] * u1 + E[k, 2] * u2


@jit
def xmotion_inv(E, r, m, out):
    """out = X^-1 m: ``w = E^T w'``, ``v = E^T v' + r x w``."""
    for k in range(3):
        out[k] = E[0, k] * m[0] + E[1, k] * m[1] + E[2, k] * m[2]
        out[3 + k] = E[0, k] * m[3] + E[1, k] * m[4] + E[2, k] * m[5]
    out[3] += r[1] * out[2] - r[2] * out[1]
    out[4] += r[2] * out[0] - r[0] * out[2]
    out[5] += r[0] * out[1] - r[1] * out[0]


@jit
def xforce_T_add(E, r, f, out):
    """out += X^T f: ``n_A = E^T n + r x (E^T f)``, ``f_A = E^T f`` (a B-force expressed in A)."""
    n0 = E[0, 0] * f[0] + E[1, 0] * f[1] + E[2, 0] * f[2]
    n1 = E[0, 1] * f[0] + E[1, 1] * f[1] + E[2, 1] * f[2]
    n2 = E[0, 2] * f[0] + E[1, 2] * f[1] + E[2, 2] * f[2]
    g0 = E[0, 0] * f[3] + E[1, 0] * f[4] + E[2, 0] * f[5]
    g1 = E[0, 1] * f[3] + E[1, 1] * f[4] + E[2, 1] * f[5]
    g2 = E[0, 2] * f[3] + E[1, 2] * f[4] + E[2, 2] * f[5]
    out[0] += n0 + r[1] * g2 - r[2] * g1
    out[1] += n1 + r[2] * g0 - r[0] * g2
    out[2] += n2 + r[0] * g1 - r[1] * g0
    out[3] += g0
    out[4] += g1
    out[5] += g2


@jit
def cross_motion(v, m, out):
    """out = v x m (RBDA Eq. 2.31): ``[w x mw; w x mv + v x mw]``."""
    w0, w1, w2, v0, v1, v2 = v[0], v[1], v[2], v[3], v[4], v[5]
    out[0] = w1 * m[2] - w2 * m[1]
    out[1] = w2 * m[0] - w0 * m[2]
    out[2] = w0 * m[1] - w1 * m[0]
    out[3] = w1 * m[5] - w2 * m[4] + v1 * m[2] - v2 * m[1]
    out[4] = w2 * m[3] - w0 * m[5] + v2 * m[0] - v0 * m[2]
    out[5] = w0 * m[4] - w1 * m[3] + v0 * m[1] - v1 * m[0]


@jit
def cross_force_add(v, f, out):
    """out += v x* f (RBDA Eq. 2.32): ``[w x n + v x f; w x f]``."""
    w0, w1, w2, v0, v1, v2 = v[0], v[1], v[2], v[3], v[4], v[5]
    out[0] += w1 * f[2] - w2 * f[1] + v1 * f[5] - v2 * f[4]
    out[1] += w2 * f[0] - w0 * f[2] + v2 * f[3] - v0 * f[5]
    out[2] += w0 * f[1] - w1 * f[0] + v0 * f[4] - v1 * f[3]
    out[3] += w1 * f[5] - w2 * f[4]
    out[4] += w2 * f[3] - w0 * f[5]
    out[5] += w0 * f[4] - w1 * f[3]


@jit
def mul6(A, x, out):
    """out = A x for a 6x6 matrix ``A``."""
    for r in range(6):
        s = 0.0
        for c in range(6):
            s += A[r, c] * x[c]
        out[r] = s


@jit
def add_XtIX(E, r, I, out, T):
    """out += X^T I X for a 6x6 inertia ``I`` given in B (RBDA Eq. 2.66), using scratch ``T`` (6x6).

    With ``X = R P``, ``R = blockdiag(E, E)`` and ``P = [[1, 0], [-r~, 1]]``:
    pass 1 rotates the blocks, ``T = R^T I R``; pass 2 forms ``T P`` (left block columns minus right
    block columns times ``r~``); pass 3 forms ``P^T (T P)`` (top block rows plus ``r~`` times bottom rows).
    """
    # pass 1: T = blockdiag(E)^T I blockdiag(E)
    for bi in range(2):
        for bj in range(2):
            for a in range(3):
                for b in range(3):
                    s = 0.0
                    for k in range(3):
                        s += E[k, a] * (I[3 * bi + k, 3 * bj] * E[0, b] + I[3 * bi + k, 3 * bj + 1] * E[1, b]
                                        + I[3 * bi + k, 3 * bj + 2] * E[2, b])
                    T[3 * bi + a, 3 * bj + b] = s
    r0, r1, r2 = r[0], r[1], r[2]
    # pass 2: T[:, 0:3] -= T[:, 3:6] r~   (row-wise: y^T r~ = (y x r)^T)
    for row in range(6):
        y0, y1, y2 = T[row, 3], T[row, 4], T[row, 5]
        T[row, 0] -= y1 * r2 - y2 * r1
        T[row, 1] -= y2 * r0 - y0 * r2
        T[row, 2] -= y0 * r1 - y1 * r0
    # pass 3: T[0:3, :] += r~ T[3:6, :]   (column-wise: r x y)
    for col in range(6):
        y0, y1, y2 = T[3, col], T[4, col], T[5, col]
        T[0, col] += r1 * y2 - r2 * y1
        T[1, col] += r2 * y0 - r0 * y2
        T[2, col] += r0 * y1 - r1 * y0
    for a in range(6):
        for b in range(6):
            out[a, b] += T[a, b]


@jit
def spd_inverse(A, n, out):
    """out[:n, :n] = A[:n, :n]^-1 for a symmetric positive-definite block, by Cholesky factorization
    and triangular inversion (``out`` is used as the workspace). Returns False if ``A`` is not
    numerically positive definite (a pivot <= 1e-14 times the largest diagonal entry)."""
    scale = 0.0
    for k in range(n):
        scale = max(scale, abs(A[k, k]))
    tol = 1e-14 * max(scale, 1e-300)
    # Cholesky A = L L^T, L stored in the lower triangle of out
    for j in range(n):
        s = A[j, j]
        for k in range(j):
            s -= out[j, k] * out[j, k]
        if not s > tol:
            return False
        d = math.sqrt(s)
        out[j, j] = d
        for i in range(j + 1, n):
            s = A[i, j]
            for k in range(j):
                s -= out[i, k] * out[j, k]
            out[i, j] = s / d
    # invert L in place (lower triangle)
    for j in range(n):
        out[j, j] = 1.0 / out[j, j]
        for i in range(j + 1, n):
            s = 0.0
            for k in range(j, i):
                s -= out[i, k] * out[k, j]
            out[i, j] = s / out[i, i]
    # A^-1 = L^-T L^-1, filled symmetric
    for i in range(n):
        for j in range(i + 1):
            s = 0.0
            for k in range(i, n):
                s += out[k, i] * out[k, j]
            out[j, i] = s
    for i in range(n):
        for j in range(i):
            out[i, j] = out[j, i]
    return True
