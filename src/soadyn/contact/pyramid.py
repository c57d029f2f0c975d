"""Friction pyramids: the polyhedral friction cone of Jain 2014, Sec. 2 (Eqs. 6-15).

Per contact ``i`` with unit normal ``n`` (from body B to body A) the tangent plane is spanned by a
deterministic orthonormal pair ``(t1, t2)``: with ``k`` the first world axis along which ``|n_k|`` is
smallest, ``t1 = normalize(e_k - (e_k . n) n)`` and ``t2 = n x t1`` (so ``(t1, t2, n)`` is right-handed; a
floor normal ``+z`` gets ``t1 = +x, t2 = +y``; a wall normal ``-x`` gets ``t1 = +y, t2 = -z``). Every
formulation and the simulator's kernel use this rule, so their friction directions coincide.

The ``n_f`` (even) friction directions are ``d_j = cos(2 pi j / n_f) t1 + sin(2 pi j / n_f) t2`` for
``j = 0 .. n_f - 1``: ``d_0 = t1`` and ``d_{j + n_f/2} = -d_j`` (Jain 2014: "for each direction vector,
its opposite direction vector is also in the set").
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

__all__ = ["tangent_basis", "directions", "D_underline", "E", "E_hat", "E_bar", "Pyramid", "pyramid",
           "check_n_f", "UNIT_TOL"]

UNIT_TOL = 1e-9
"""Largest accepted ``| |n| - 1 |`` of a contact normal."""


def check_n_f(n_f) -> int:
    """``n_f`` as an int; ``ValueError`` unless it is an even integer >= 2."""
    if isinstance(n_f, bool) or not isinstance(n_f, (int, np.integer)) or n_f < 2 or n_f % 2:
        raise ValueError(f"n_f: expected an even integer >= 2 (opposite directions in the set), got {n_f!r}")
    return int(n_f)


def _unit_normals(normals, name: str = "normals") -> np.ndarray:
    n = np.asarray(normals, dtype=float)
    if n.ndim == 1:
        n = n.reshape(1, -1)
    if n.ndim != 2 or n.shape[1] != 3:
        raise ValueError(f"{name}: expected shape (3,) or (k, 3), got {np.shape(normals)}")
    if not np.all(np.isfinite(n)):
        raise ValueError(f"{name}: contains NaN or inf")
    bad = np.abs(np.linalg.norm(n, axis=1) - 1.0) > UNIT_TOL
    if np.any(bad):
        raise ValueError(f"{name}: row {int(np.argmax(bad))} is not a unit vector (|n| = "
                         f"{np.linalg.norm(n[int(np.argmax(bad))]):.12g})")
    return n


def tangent_basis(normal) -> tuple[np.ndarray, np.ndarray]:
    """The tangent pair ``(t1, t2)`` of a unit ``normal`` (3,) by the rule of the module docstring."""
    n = _unit_normals(normal, "normal")[0]
    k = int(np.argmin(np.abs(n)))
    t1 = -n[k] * n
    t1[k] += 1.0
    t1 /= np.linalg.norm(t1)
    return t1, np.cross(n, t1)


def directions(normal, n_f: int = 4) -> np.ndarray:
    """``D(i) = [d_1 .. d_nf]`` (3, n_f), the unit friction directions of Jain 2014 Eq. 6."""
    n_f = check_n_f(n_f)
    t1, t2 = tangent_basis(normal)
    ang = 2.0 * np.pi * np.arange(n_f) / n_f
    D = np.outer(t1, np.cos(ang)) + np.outer(t2, np.sin(ang))
    h = n_f // 2  # exact opposites (no round-off asymmetry)
    D[:, h:] = -D[:, :h]
    return D


def D_underline(normal, n_f: int = 4) -> np.ndarray:
    """``D_(i) = [n, D(i)]`` (3, n_f + 1) of Jain 2014 Eq. 7: ``F_u(i) = D_(i) [F_n; beta]``."""
    n = _unit_normals(normal, "normal")[0]
    return np.column_stack([n, directions(n, n_f)])


def E(n_f: int = 4) -> np.ndarray:
    """``E(i) = col{1}`` (n_f,), Jain 2014 Eq. 11."""
    return np.ones(check_n_f(n_f))


def E_hat(n_f: int = 4) -> np.ndarray:
    """``E^(i) = [0; E(i)]`` (n_f + 1,), Jain 2014 Eq. 13."""
    return np.concatenate([[0.0], E(n_f)])


def E_bar(mu: float, n_f: int = 4) -> np.ndarray:
    """``E-(i) = [mu(i), -E*(i)]`` (1, n_f + 1), Jain 2014 Eq. 13."""
    mu = float(mu)
    if not (np.isfinite(mu) and mu >= 0):
        raise ValueError(f"mu: expected a finite friction coefficient >= 0, got {mu!r}")
    return np.concatenate([[mu], -E(n_f)]).reshape(1, -1)


@dataclass(frozen=True, eq=False)
class Pyramid:
    """System-level friction pyramid matrices (Jain 2014 Eq. 15) of ``n_u`` contacts."""

    n_f: int
    normals: np.ndarray  # (n_u, 3)
    mu: np.ndarray  # (n_u,)
    D: np.ndarray  # (3 n_u, n_u (n_f + 1)): diag{D_(i)}
    E_hat: np.ndarray  # (n_u (n_f + 1), n_u): diag{E^(i)}
    E_bar: np.ndarray  # (n_u, n_u (n_f + 1)): diag{E-(i)}

    @property
    def n_u(self) -> int:
        return self.normals.shape[0]


def pyramid(normals, mu, n_f: int = 4) -> Pyramid:
    """The block-diagonal ``D_``, ``E^`` and ``E-`` (Jain 2014 Eq. 15) of contacts with unit ``normals``
    (n_u, 3) and friction coefficients ``mu`` (scalar or (n_u,), finite, >= 0)."""
    n_f = check_n_f(n_f)
    nrm = _unit_normals(normals) if np.size(normals) else np.zeros((0, 3))
    nu = nrm.shape[0]
    m = np.broadcast_to(np.asarray(mu, dtype=float), (nu,)) if np.ndim(mu) == 0 else np.asarray(mu, dtype=float)
    if m.shape != (nu,):
        raise ValueError(f"mu: expected a scalar or shape ({nu},), got {np.shape(mu)}")
    if not np.all(np.isfinite(m)) or np.any(m < 0):
        raise ValueError("mu: friction coefficients must be finite and >= 0")
    w = n_f + 1
    D = np.zeros((3 * nu, nu * w))
    Eh = np.zeros((nu * w, nu))
    Eb = np.zeros((nu, nu * w))
    for i in range(nu):
        D[3 * i:3 * i + 3, w * i:w * i + w] = D_underline(nrm[i], n_f)
        Eh[w * i:w * i + w, i] = E_hat(n_f)
        Eb[i, w * i:w * i + w] = E_bar(m[i], n_f)
    return Pyramid(n_f=n_f, normals=nrm.copy(), mu=np.array(m), D=D, E_hat=Eh, E_bar=Eb)
