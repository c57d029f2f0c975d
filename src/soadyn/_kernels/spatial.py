"""Scalar spatial algebra for kernels (Featherstone, RBDA ch. 2), angular-first.

A motion transform ``X`` from frame A to frame B is ``(E, r)``: ``X = [[E, 0], [-E r~, E]]`` with ``E``
mapping A-coordinates to B-coordinates and ``r`` the origin of B in A. No 6x6 transform is ever formed.
All helpers write into caller-provided arrays; outputs never alias inputs unless stated.
"""

import math

from .._jit import inline_jit, jit


@inline_jit
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
def rotate(R, x, y, z):
    """``R (x, y, z)`` for a 3x3 ``R``, as a 3-tuple (in registers)."""
    return (R[0, 0] * x + R[0, 1] * y + R[0, 2] * z, R[1, 0] * x + R[1, 1] * y + R[1, 2] * z,
            R[2, 0] * x + R[2, 1] * y + R[2, 2] * z)


@jit
def rotate_T(R, x, y, z):
    """``R^T (x, y, z)`` for a 3x3 ``R``, as a 3-tuple (in registers)."""
    return (R[0, 0] * x + R[1, 0] * y + R[2, 0] * z, R[0, 1] * x + R[1, 1] * y + R[2, 1] * z,
            R[0, 2] * x + R[1, 2] * y + R[2, 2] * z)


@inline_jit
def xmotion(E, r, m, out):
    """out = X m: ``w' = E w``, ``v' = E (v - r x w)``."""
    w0, w1, w2 = m[0], m[1], m[2]
    u0 = m[3] - (r[1] * w2 - r[2] * w1)
    u1 = m[4] - (r[2] * w0 - r[0] * w2)
    u2 = m[5] - (r[0] * w1 - r[1] * w0)
    for k in range(3):
        out[k] = E[k, 0] * w0 + E[k, 1] * w1 + E[k, 2] * w2
        out[3 + k] = E[k, 0] * u0 + E[k, 1] * u1 + E[k, 2] * u2


@inline_jit
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


@inline_jit
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
def cross_force(w0, w1, w2, v0, v1, v2, f0, f1, f2, f3, f4, f5):
    """``V x* F`` for ``V = (w, v)``, ``F = (n, f)`` held in registers, as a 6-tuple
    ``(w x n + v x f, w x f)``."""
    return (w1 * f2 - w2 * f1 + v1 * f5 - v2 * f4, w2 * f0 - w0 * f2 + v2 * f3 - v0 * f5,
            w0 * f1 - w1 * f0 + v0 * f4 - v1 * f3, w1 * f5 - w2 * f4, w2 * f3 - w0 * f5, w0 * f4 - w1 * f3)


@inline_jit
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
def transpose6(M):
    """M <- M^T in place (6x6)."""
    for a in range(6):
        for b in range(a + 1, 6):
            tmp = M[a, b]
            M[a, b] = M[b, a]
            M[b, a] = tmp


@jit
def classical_acceleration(v, h):
    """h <- the classical acceleration of a frame from its spatial acceleration ``h`` and velocity ``v``
    (frame axes): ``[h_w; h_v + w x v]`` (RBDA Sec. 2.11)."""
    h[3] += v[1] * v[5] - v[2] * v[4]
    h[4] += v[2] * v[3] - v[0] * v[5]
    h[5] += v[0] * v[4] - v[1] * v[3]


@inline_jit
def inertia_mul(I, x, out):
    """out = I x for a rigid-body inertia ``I = [[Ibar, h~], [h~^T, m 1]]`` (RBDA Eq. 2.63, ``h = m c``):
    ``[Ibar w + h x v; m v - h x w]``, reading only its 10 distinct parameters."""
    w0, w1, w2, v0, v1, v2 = x[0], x[1], x[2], x[3], x[4], x[5]
    h0, h1, h2 = I[2, 4], I[0, 5], I[1, 3]
    m = I[3, 3]
    out[0] = I[0, 0] * w0 + I[0, 1] * w1 + I[0, 2] * w2 + h1 * v2 - h2 * v1
    out[1] = I[0, 1] * w0 + I[1, 1] * w1 + I[1, 2] * w2 + h2 * v0 - h0 * v2
    out[2] = I[0, 2] * w0 + I[1, 2] * w1 + I[2, 2] * w2 + h0 * v1 - h1 * v0
    out[3] = m * v0 - (h1 * w2 - h2 * w1)
    out[4] = m * v1 - (h2 * w0 - h0 * w2)
    out[5] = m * v2 - (h0 * w1 - h1 * w0)


@jit
def mul6(A, x, out):
    """out = A x for a 6x6 matrix ``A``."""
    for r in range(6):
        s = 0.0
        for c in range(6):
            s += A[r, c] * x[c]
        out[r] = s


@jit
def sym3_congruence(E, a00, a01, a02, a11, a12, a22):
    """The 6 distinct entries of ``E^T A E`` for a symmetric 3x3 ``A`` (upper triangle given)."""
    # P = A E, column by column
    p00 = a00 * E[0, 0] + a01 * E[1, 0] + a02 * E[2, 0]
    p10 = a01 * E[0, 0] + a11 * E[1, 0] + a12 * E[2, 0]
    p20 = a02 * E[0, 0] + a12 * E[1, 0] + a22 * E[2, 0]
    p01 = a00 * E[0, 1] + a01 * E[1, 1] + a02 * E[2, 1]
    p11 = a01 * E[0, 1] + a11 * E[1, 1] + a12 * E[2, 1]
    p21 = a02 * E[0, 1] + a12 * E[1, 1] + a22 * E[2, 1]
    p02 = a00 * E[0, 2] + a01 * E[1, 2] + a02 * E[2, 2]
    p12 = a01 * E[0, 2] + a11 * E[1, 2] + a12 * E[2, 2]
    p22 = a02 * E[0, 2] + a12 * E[1, 2] + a22 * E[2, 2]
    c00 = E[0, 0] * p00 + E[1, 0] * p10 + E[2, 0] * p20
    c01 = E[0, 0] * p01 + E[1, 0] * p11 + E[2, 0] * p21
    c02 = E[0, 0] * p02 + E[1, 0] * p12 + E[2, 0] * p22
    c11 = E[0, 1] * p01 + E[1, 1] * p11 + E[2, 1] * p21
    c12 = E[0, 1] * p02 + E[1, 1] * p12 + E[2, 1] * p22
    c22 = E[0, 2] * p02 + E[1, 2] * p12 + E[2, 2] * p22
    return c00, c01, c02, c11, c12, c22


@inline_jit
def add_XtIX(X_E, X_r, i, I, out, p, T):
    """out[p] += X^T I X for a symmetric 6x6 inertia ``I`` given in B and the transform ``X = (X_E[i], X_r[i])``
    (RBDA Eq. 2.66; whole arrays and indices, as the articulated-body pass calls it once per body); ``T`` (6x6)
    scratch.

    With ``I = [[A, B], [B^T, C]]`` and ``X = blockdiag(E, E) [[1, 0], [-r~, 1]]``: rotate the blocks
    (``A' = E^T A E``, ``B' = E^T B E``, ``C' = E^T C E``), then shift the reference point:
    ``X^T I X = [[A' - Z - Z^T - r~ C' r~, B' + r~ C'], [., C']]`` with ``Z = B' r~``."""
    E, r, out = X_E[i], X_r[i], out[p]
    a00, a01, a02, a11, a12, a22 = sym3_congruence(E, I[0, 0], I[0, 1], I[0, 2], I[1, 1], I[1, 2], I[2, 2])
    c00, c01, c02, c11, c12, c22 = sym3_congruence(E, I[3, 3], I[3, 4], I[3, 5], I[4, 4], I[4, 5], I[5, 5])
    # B' = E^T B E into T's top-right block
    for k in range(3):
        q0 = I[0, 3] * E[0, k] + I[0, 4] * E[1, k] + I[0, 5] * E[2, k]
        q1 = I[1, 3] * E[0, k] + I[1, 4] * E[1, k] + I[1, 5] * E[2, k]
        q2 = I[2, 3] * E[0, k] + I[2, 4] * E[1, k] + I[2, 5] * E[2, k]
        for j in range(3):
            T[j, 3 + k] = E[0, j] * q0 + E[1, j] * q1 + E[2, j] * q2
    b00, b01, b02 = T[0, 3], T[0, 4], T[0, 5]
    b10, b11, b12 = T[1, 3], T[1, 4], T[1, 5]
    b20, b21, b22 = T[2, 3], T[2, 4], T[2, 5]
    x, y, z = r[0], r[1], r[2]
    # Y = r~ C' (columns r x C'[:, k]); top-right block B' + Y
    y00, y10, y20 = y * c02 - z * c01, z * c00 - x * c02, x * c01 - y * c00
    y01, y11, y21 = y * c12 - z * c11, z * c01 - x * c12, x * c11 - y * c01
    y02, y12, y22 = y * c22 - z * c12, z * c02 - x * c22, x * c12 - y * c02
    t00, t01, t02 = b00 + y00, b01 + y01, b02 + y02
    t10, t11, t12 = b10 + y10, b11 + y11, b12 + y12
    t20, t21, t22 = b20 + y20, b21 + y21, b22 + y22
    # Z = B' r~ (rows B'[j, :] x r); W = Y r~ (rows Y[j, :] x r)
    z00, z01, z02 = b01 * z - b02 * y, b02 * x - b00 * z, b00 * y - b01 * x
    z10, z11, z12 = b11 * z - b12 * y, b12 * x - b10 * z, b10 * y - b11 * x
    z20, z21, z22 = b21 * z - b22 * y, b22 * x - b20 * z, b20 * y - b21 * x
    w00, w01, w02 = y01 * z - y02 * y, y02 * x - y00 * z, y00 * y - y01 * x
    w11, w12 = y12 * x - y10 * z, y10 * y - y11 * x
    w22 = y20 * y - y21 * x
    # top-left: A' - Z - Z^T - W  (W = r~ C' r~ is symmetric)
    tl00 = a00 - 2.0 * z00 - w00
    tl01 = a01 - z01 - z10 - w01
    tl02 = a02 - z02 - z20 - w02
    tl11 = a11 - 2.0 * z11 - w11
    tl12 = a12 - z12 - z21 - w12
    tl22 = a22 - 2.0 * z22 - w22
    out[0, 0] += tl00
    out[0, 1] += tl01
    out[0, 2] += tl02
    out[1, 0] += tl01
    out[1, 1] += tl11
    out[1, 2] += tl12
    out[2, 0] += tl02
    out[2, 1] += tl12
    out[2, 2] += tl22
    out[0, 3] += t00
    out[0, 4] += t01
    out[0, 5] += t02
    out[1, 3] += t10
    out[1, 4] += t11
    out[1, 5] += t12
    out[2, 3] += t20
    out[2, 4] += t21
    out[2, 5] += t22
    out[3, 0] += t00
    out[4, 0] += t01
    out[5, 0] += t02
    out[3, 1] += t10
    out[4, 1] += t11
    out[5, 1] += t12
    out[3, 2] += t20
    out[4, 2] += t21
    out[5, 2] += t22
    out[3, 3] += c00
    out[3, 4] += c01
    out[3, 5] += c02
    out[4, 3] += c01
    out[4, 4] += c11
    out[4, 5] += c12
    out[5, 3] += c02
    out[5, 4] += c12
    out[5, 5] += c22


@jit
def add_XAXt(E, r, A, out):
    """out += X A X^T for a symmetric 6x6 motion-space matrix ``A`` (a compliance, e.g. Jain's Upsilon)
    given in A-coordinates, the dual of :func:`add_XtIX`. With ``X = blockdiag(E, E) P``,
    ``P = [[1, 0], [-r~, 1]]`` and ``A = [[a, b], [b^T, c]]``: first the shift
    ``P A P^T = [[a, b + a r~], [., c + Z + Z^T - r~ a r~]]`` with ``Z = b^T r~``, then the rotation of each
    block ``E (.) E^T``."""
    a00, a01, a02, a11, a12, a22 = A[0, 0], A[0, 1], A[0, 2], A[1, 1], A[1, 2], A[2, 2]
    b00, b01, b02 = A[0, 3], A[0, 4], A[0, 5]
    b10, b11, b12 = A[1, 3], A[1, 4], A[1, 5]
    b20, b21, b22 = A[2, 3], A[2, 4], A[2, 5]
    x, y, z = r[0], r[1], r[2]
    # V = a r~ (rows a[j, :] x r); top-right T = b + V
    v00, v01, v02 = a01 * z - a02 * y, a02 * x - a00 * z, a00 * y - a01 * x
    v10, v11, v12 = a11 * z - a12 * y, a12 * x - a01 * z, a01 * y - a11 * x
    v20, v21, v22 = a12 * z - a22 * y, a22 * x - a02 * z, a02 * y - a12 * x
    # Z = b^T r~ (rows b[:, j] x r)
    z00, z01, z02 = b10 * z - b20 * y, b20 * x - b00 * z, b00 * y - b10 * x
    z10, z11, z12 = b11 * z - b21 * y, b21 * x - b01 * z, b01 * y - b11 * x
    z20, z21, z22 = b12 * z - b22 * y, b22 * x - b02 * z, b02 * y - b12 * x
    # W = r~ V (columns r x V[:, k]), symmetric
    w00 = y * v20 - z * v10
    w01 = y * v21 - z * v11
    w02 = y * v22 - z * v12
    w11 = z * v01 - x * v21
    w12 = z * v02 - x * v22
    w22 = x * v12 - y * v02
    c00, c01, c02 = A[3, 3] + 2.0 * z00 - w00, A[3, 4] + z01 + z10 - w01, A[3, 5] + z02 + z20 - w02
    c11, c12, c22 = A[4, 4] + 2.0 * z11 - w11, A[4, 5] + z12 + z21 - w12, A[5, 5] + 2.0 * z22 - w22
    t00, t01, t02 = b00 + v00, b01 + v01, b02 + v02
    t10, t11, t12 = b10 + v10, b11 + v11, b12 + v12
    t20, t21, t22 = b20 + v20, b21 + v21, b22 + v22
    # rotate: E M E^T per block
    Et = E.T
    p00, p01, p02, p11, p12, p22 = sym3_congruence(Et, a00, a01, a02, a11, a12, a22)
    q00, q01, q02, q11, q12, q22 = sym3_congruence(Et, c00, c01, c02, c11, c12, c22)
    out[0, 0] += p00
    out[0, 1] += p01
    out[0, 2] += p02
    out[1, 0] += p01
    out[1, 1] += p11
    out[1, 2] += p12
    out[2, 0] += p02
    out[2, 1] += p12
    out[2, 2] += p22
    out[3, 3] += q00
    out[3, 4] += q01
    out[3, 5] += q02
    out[4, 3] += q01
    out[4, 4] += q11
    out[4, 5] += q12
    out[5, 3] += q02
    out[5, 4] += q12
    out[5, 5] += q22
    for k in range(3):  # top-right E T E^T: column k = E (T E^T[:, k]) = E (T E[k, :])
        e0, e1, e2 = E[k, 0], E[k, 1], E[k, 2]
        u0 = t00 * e0 + t01 * e1 + t02 * e2
        u1 = t10 * e0 + t11 * e1 + t12 * e2
        u2 = t20 * e0 + t21 * e1 + t22 * e2
        for j in range(3):
            s = E[j, 0] * u0 + E[j, 1] * u1 + E[j, 2] * u2
            out[j, 3 + k] += s
            out[3 + k, j] += s


@jit
def positive_pivot(d, scale):
    """Whether the pivot ``d`` counts as positive against a block of magnitude ``scale``: ``d > 1e-14 scale``
    (the test of :func:`spd_inverse`)."""
    return d > 1e-14 * max(scale, 1e-300)


@jit
def spd_inverse(A, n, out):
    """out[:n, :n] = A[:n, :n]^-1 for a symmetric positive-definite block, by Cholesky factorization
    and triangular inversion (``out`` is used as the workspace). Returns False if ``A`` is not
    numerically positive definite (a pivot <= 1e-14 times the largest diagonal entry)."""
    if n == 1:  # the one-dof joints: a reciprocal, under the same test
        d = A[0, 0]
        if not positive_pivot(d, abs(d)):
            return False
        out[0, 0] = 1.0 / d
        return True
    scale = 0.0
    for k in range(n):
        scale = max(scale, abs(A[k, k]))
    # Cholesky A = L L^T, L stored in the lower triangle of out
    for j in range(n):
        s = A[j, j]
        for k in range(j):
            s -= out[j, k] * out[j, k]
        if not positive_pivot(s, scale):
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


@jit
def rotation_log(R, out):
    """out = the rotation vector of ``R`` (angle in [0, pi]): ``theta / sin(theta) vee(R - R^T) / 2``, and
    near ``pi`` the axis from the symmetric part ``(R + R^T)/2 = cos 1 + (1 - cos) a a^T``."""
    c = 0.5 * (R[0, 0] + R[1, 1] + R[2, 2] - 1.0)
    c = min(1.0, max(-1.0, c))
    v0 = 0.5 * (R[2, 1] - R[1, 2])
    v1 = 0.5 * (R[0, 2] - R[2, 0])
    v2 = 0.5 * (R[1, 0] - R[0, 1])
    s = math.sqrt(v0 * v0 + v1 * v1 + v2 * v2)
    th = math.atan2(s, c)
    if c > -0.9:
        k = th / s if s > 1e-12 else 1.0 + s * s / 6.0
        out[0] = k * v0
        out[1] = k * v1
        out[2] = k * v2
        return
    # near pi: the largest diagonal entry gives the best-conditioned axis component
    i = 0
    if R[1, 1] > R[i, i]:
        i = 1
    if R[2, 2] > R[i, i]:
        i = 2
    ai = math.sqrt(max(0.0, (R[i, i] - c) / (1.0 - c)))
    for j in range(3):
        out[j] = ai if j == i else 0.5 * (R[i, j] + R[j, i]) / ((1.0 - c) * ai)
    if out[0] * v0 + out[1] * v1 + out[2] * v2 < 0.0:  # sin(theta) a = v
        for j in range(3):
            out[j] = -out[j]
    for j in range(3):
        out[j] *= th


@jit
def rotation_to_quat(R):
    """Scalar-last unit quaternion ``(x, y, z, w)`` of a rotation matrix (Shepperd's method), ``w >= 0``."""
    t = R[0, 0] + R[1, 1] + R[2, 2]
    if t > 0.0:
        s = 2.0 * math.sqrt(1.0 + t)
        x, y, z, w = (R[2, 1] - R[1, 2]) / s, (R[0, 2] - R[2, 0]) / s, (R[1, 0] - R[0, 1]) / s, 0.25 * s
    elif R[0, 0] >= R[1, 1] and R[0, 0] >= R[2, 2]:
        s = 2.0 * math.sqrt(max(1e-300, 1.0 + R[0, 0] - R[1, 1] - R[2, 2]))
        x, y, z, w = 0.25 * s, (R[0, 1] + R[1, 0]) / s, (R[0, 2] + R[2, 0]) / s, (R[2, 1] - R[1, 2]) / s
    elif R[1, 1] >= R[2, 2]:
        s = 2.0 * math.sqrt(max(1e-300, 1.0 + R[1, 1] - R[0, 0] - R[2, 2]))
        x, y, z, w = (R[0, 1] + R[1, 0]) / s, 0.25 * s, (R[1, 2] + R[2, 1]) / s, (R[0, 2] - R[2, 0]) / s
    else:
        s = 2.0 * math.sqrt(max(1e-300, 1.0 + R[2, 2] - R[0, 0] - R[1, 1]))
        x, y, z, w = (R[0, 2] + R[2, 0]) / s, (R[1, 2] + R[2, 1]) / s, 0.25 * s, (R[1, 0] - R[0, 1]) / s
    if w < 0.0:
        x, y, z, w = -x, -y, -z, -w
    n = 1.0 / math.sqrt(x * x + y * y + z * z + w * w)
    return x * n, y * n, z * n, w * n


@jit
def swing_twist_log(R, a, out):
    """Rotation coordinates of ``R`` relative to the unit axis ``a``: ``R = R_swing R_twist`` with
    ``R_twist = rot(a, gamma)`` and ``R_swing`` turning about an axis perpendicular to ``a``;
    ``out = log(R_swing) + gamma a``. Near ``R = 1`` this is ``log(R)`` to first order, and on the set
    ``{rot(a, gamma)}`` its perpendicular part vanishes exactly, so its derivative there is the relative
    angular velocity (used for the position error of loops that turn about ``a``)."""
    x, y, z, w = rotation_to_quat(R)
    d = x * a[0] + y * a[1] + z * a[2]
    nt = math.sqrt(d * d + w * w)
    if nt < 1e-12:  # a half turn about a perpendicular axis: no twist
        tx, ty, tz, tw = 0.0, 0.0, 0.0, 1.0
        gamma = 0.0
    else:
        tx, ty, tz, tw = d * a[0] / nt, d * a[1] / nt, d * a[2] / nt, w / nt
        gamma = 2.0 * math.atan2(d, w)
    # swing = q * conj(twist)
    sx = tw * x - w * tx - (y * tz - z * ty)
    sy = tw * y - w * ty - (z * tx - x * tz)
    sz = tw * z - w * tz - (x * ty - y * tx)
    sw = w * tw + x * tx + y * ty + z * tz
    if sw < 0.0:
        sx, sy, sz, sw = -sx, -sy, -sz, -sw
    sn = math.sqrt(sx * sx + sy * sy + sz * sz)
    k = 2.0 * math.atan2(sn, sw) / sn if sn > 1e-12 else 2.0
    out[0] = k * sx + gamma * a[0]
    out[1] = k * sy + gamma * a[1]
    out[2] = k * sz + gamma * a[2]


# -------------------------------------------------------------------------------- world-frame transforms
@jit
def to_world_motion(R, p, m, out):
    """``out = ^0X_i m``: a body-frame motion vector in world coordinates about the world origin."""
    for a in range(3):
        out[a] = R[a, 0] * m[0] + R[a, 1] * m[1] + R[a, 2] * m[2]
    for a in range(3):
        out[3 + a] = R[a, 0] * m[3] + R[a, 1] * m[4] + R[a, 2] * m[5]
    out[3] += p[1] * out[2] - p[2] * out[1]
    out[4] += p[2] * out[0] - p[0] * out[2]
    out[5] += p[0] * out[1] - p[1] * out[0]


@jit
def from_world_motion(R, p, m, out):
    """``out = ^iX_0 m``: a world motion vector in the coordinates of the body at ``(R, p)``."""
    u0 = m[3] - (p[1] * m[2] - p[2] * m[1])
    u1 = m[4] - (p[2] * m[0] - p[0] * m[2])
    u2 = m[5] - (p[0] * m[1] - p[1] * m[0])
    for a in range(3):
        out[a] = R[0, a] * m[0] + R[1, a] * m[1] + R[2, a] * m[2]
        out[3 + a] = R[0, a] * u0 + R[1, a] * u1 + R[2, a] * u2


@jit
def force_to_world_add(R, p, f, out):
    """``out += ^iX_0^T f``: a body-frame force about the body origin, in world coordinates about the origin."""
    f0 = R[0, 0] * f[3] + R[0, 1] * f[4] + R[0, 2] * f[5]
    f1 = R[1, 0] * f[3] + R[1, 1] * f[4] + R[1, 2] * f[5]
    f2 = R[2, 0] * f[3] + R[2, 1] * f[4] + R[2, 2] * f[5]
    for a in range(3):
        out[a] += R[a, 0] * f[0] + R[a, 1] * f[1] + R[a, 2] * f[2]
    out[0] += p[1] * f2 - p[2] * f1
    out[1] += p[2] * f0 - p[0] * f2
    out[2] += p[0] * f1 - p[1] * f0
    out[3] += f0
    out[4] += f1
    out[5] += f2
