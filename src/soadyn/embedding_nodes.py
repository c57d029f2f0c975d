"""The compound nodes of constraint embedding (:mod:`soadyn.embedding`): the bodies and dofs a loop spans,
the merging of loops that share bodies into one node, the choice of independent coordinates by QR with
column pivoting, and the detection of the planar one-dof loops that have a closed-form solution.
Bodies, dofs, loops and constraint rows are numbered as in the tree :class:`~soadyn.model.Model`."""

from __future__ import annotations

import numpy as np

from . import joints as J
from .loops import PLANAR_PIN, LoopError
from .model import Model

__all__ = ["SCALAR_JOINTS", "branch", "ancestors", "common_ancestor", "loop_bodies", "clusters", "node_dofs",
           "loop_rows", "pivoted_columns", "planar_closed_form"]

SCALAR_JOINTS = (J.REVOLUTE, J.PRISMATIC, J.HELICAL, J.CYLINDRICAL, J.UNIVERSAL)
"""Joints whose dofs can be independent coordinates (``qdot = qd`` entry by entry)."""


def branch(model: Model, b: int, stop: int) -> list[int]:
    out = []
    while b != stop:
        out.append(b)
        b = model.body_parent[b]
    return out


def ancestors(model: Model, b: int) -> list[int]:
    out = [b]
    while b >= 0:
        b = model.body_parent[b]
        out.append(b)
    return out


def common_ancestor(model: Model, a: int, b: int) -> int:
    anc = set(ancestors(model, a))
    for x in ancestors(model, b):
        if x in anc:
            return x
    return -1


def loop_bodies(model: Model, l: int) -> set[int]:
    a = model.frame_body[model.loop_frame_a[l]]
    b = model.frame_body[model.loop_frame_b[l]]
    c = common_ancestor(model, a, b)
    return set(branch(model, a, c)) | set(branch(model, b, c))


def clusters(model: Model, loops: list[int]) -> list[tuple[set, list]]:
    """Merge the loops' body sets into compound nodes: sets sharing a body merge, and a node whose root
    bodies hang from different bodies grows up to their common ancestor."""
    groups = [(loop_bodies(model, l), [l]) for l in loops]
    changed = True
    while changed:
        changed = False
        for g in range(len(groups)):
            bodies, ls = groups[g]
            parents = {model.body_parent[i] for i in bodies if model.body_parent[i] not in bodies}
            if len(parents) > 1:
                c = parents.pop()
                for p in parents:
                    c = common_ancestor(model, c, p)
                for p in {model.body_parent[i] for i in bodies if model.body_parent[i] not in bodies}:
                    bodies |= set(branch(model, p, c))
                changed = True
            for h in range(g + 1, len(groups)):
                if groups[h][0] & bodies:
                    groups[g] = (bodies | groups[h][0], ls + groups[h][1])
                    del groups[h]
                    changed = True
                    break
            if changed:
                break
    return groups


def node_dofs(model: Model, bodies) -> list[int]:
    return [k for i in sorted(bodies) for k in range(model.jnt_vadr[i], model.jnt_vadr[i] + model.jnt_nv[i])]


def loop_rows(model: Model, loops) -> list[int]:
    return [r for l in sorted(loops) for r in range(model.loop_row[l], model.loop_row[l + 1])]


def pivoted_columns(A: np.ndarray, forced: list[int], candidates: list[int], count: int, what: str) -> list[int]:
    """Greedy column selection (QR with column pivoting): ``forced`` columns first, then ``count`` more of
    ``candidates``, each time the one with the largest component outside the span of those chosen."""
    chosen: list[int] = []
    basis = np.zeros((A.shape[0], 0))
    for k in list(forced) + [None] * count:
        pool = [k] if k is not None else [c for c in candidates if c not in chosen]
        res = [np.linalg.norm(A[:, c] - basis @ (basis.T @ A[:, c])) for c in pool]
        best = int(np.argmax(res)) if pool else -1
        if best < 0 or res[best] < 1e-9 * max(1.0, np.abs(A).max()):
            raise LoopError(f"{what}: no well-conditioned choice at the reference configuration")
        c = pool[best]
        chosen.append(c)
        u = A[:, c] - basis @ (basis.T @ A[:, c])
        basis = np.column_stack([basis, u / np.linalg.norm(u)])
    return chosen


def planar_closed_form(t: Model, oR: np.ndarray, bodies, dofs, ind, ls, emb) -> list | None:
    """The row of the closed-form table of :mod:`soadyn._kernels.embed_planar` for a compound node (its
    ``bodies``, ``dofs``, independent dof indices ``ind`` and loops ``ls``; ``emb`` the embedded loops) that is
    a planar one-dof loop of revolute and prismatic joints closed by a planar pin, at the body rotations
    ``oR`` of the reference configuration; None for any other node."""
    if len(ls) != 1 or t.loop_kind[ls[0]] != PLANAR_PIN or len(dofs) != 3 or len(ind) != 1:
        return None
    joints = sorted(bodies)
    if any(t.jnt_type[j] not in (J.REVOLUTE, J.PRISMATIC) for j in joints):
        return None
    w = {j: oR[j] @ t.jnt_axis[j] for j in joints}
    rev = [j for j in joints if t.jnt_type[j] == J.REVOLUTE]
    if not rev:
        return None
    n = w[rev[0]] / np.linalg.norm(w[rev[0]])
    l = ls[0]
    fa, fb = t.loop_frame_a[l], t.loop_frame_b[l]
    a, b = t.frame_body[fa], t.frame_body[fb]
    za = (oR[a] if a >= 0 else np.eye(3)) @ t.frame_E[fa].T[:, 2]
    if (any(np.linalg.norm(np.cross(w[j], n)) > 1e-9 for j in rev)
            or any(abs(w[j] @ n) > 1e-9 for j in joints if j not in rev) or np.linalg.norm(np.cross(za, n)) > 1e-9):
        return None
    dep = [t.dof_body[d] for j_, d in enumerate(dofs) if j_ not in ind]
    c = common_ancestor(t, a, b)
    on_a = [j for j in dep if j in branch(t, a, c)]
    on_b = [j for j in dep if j in branch(t, b, c)]
    if len(on_a) == 1:
        j1, j2, case, side = on_a[0], on_b[0], 1, 0
        if t.jnt_type[j1] != J.REVOLUTE and t.jnt_type[j2] != J.REVOLUTE:
            return None
    else:
        j1, j2 = sorted(on_a or on_b)
        case, side = 2, 0 if on_a else 1
        if t.jnt_type[j2] != J.REVOLUTE:
            return None
    return [case, emb.index(l), j1, j2, t.jnt_vadr[j1], t.jnt_vadr[j2], side, rev[0]]
