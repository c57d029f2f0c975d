"""Uneven terrain for legged-robot scenes: a height map of world boxes (Drumwright 2015 Sec. VII-B walks a
quadruped on a terrain map).

:func:`box_terrain` draws a grid of square cells of random heights; :meth:`BoxTerrain.geoms` turns it into
:meth:`~soadyn.ModelBuilder.add_geom` arguments (one world box per cell, top face at the cell's height),
to be added to a finished robot with :func:`soadyn.contact.geometry.with_geoms`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

__all__ = ["BoxTerrain", "box_terrain", "TERRAIN_GROUP"]

TERRAIN_GROUP = 2
"""Collision group bit of the terrain boxes (their mask is every other bit: boxes never test each other)."""


@dataclass(frozen=True)
class BoxTerrain:
    """A height map of ``nx x ny`` square cells of side ``cell`` (m) with lower-left corner ``origin``
    (x, y); cell ``(i, j)`` covers ``x in origin_x + [i, i + 1] cell``, ``y in origin_y + [j, j + 1] cell``,
    its top face at ``heights[i, j]`` and its bottom ``depth`` below ``z = 0``."""

    heights: np.ndarray  # (nx, ny) top heights (m)
    cell: float
    origin: tuple
    depth: float = 0.1
    mu: float = 1.0

    @property
    def shape(self) -> tuple:
        return self.heights.shape

    @property
    def extent(self) -> tuple:
        """``(x_min, x_max, y_min, y_max)`` of the terrain."""
        nx, ny = self.heights.shape
        return (self.origin[0], self.origin[0] + nx * self.cell, self.origin[1], self.origin[1] + ny * self.cell)

    def height(self, x: float, y: float) -> float:
        """Top height under the point ``(x, y)``; NaN outside the terrain."""
        i = math.floor((x - self.origin[0]) / self.cell)
        j = math.floor((y - self.origin[1]) / self.cell)
        nx, ny = self.heights.shape
        if not (0 <= i < nx and 0 <= j < ny):
            return math.nan
        return float(self.heights[i, j])

    def geoms(self, prefix: str = "terrain") -> list:
        """:meth:`~soadyn.ModelBuilder.add_geom` arguments of one world box per cell (names
        ``{prefix}_{i}_{j}``, collision group :data:`TERRAIN_GROUP`)."""
        out = []
        half = 0.5 * self.cell
        for (i, j), h in np.ndenumerate(self.heights):
            hz = 0.5 * (h + self.depth)
            centre = [self.origin[0] + (i + 0.5) * self.cell, self.origin[1] + (j + 0.5) * self.cell, h - hz]
            out.append(dict(name=f"{prefix}_{i}_{j}", body="world", kind="box", size=(half, half, hz),
                            placement=(np.eye(3), centre), mu=self.mu, group=TERRAIN_GROUP, mask=~TERRAIN_GROUP))
        return out


def _positive(x, name: str) -> float:
    if isinstance(x, bool) or not isinstance(x, (int, float, np.integer, np.floating)) or not math.isfinite(x) \
            or x <= 0.0:
        raise ValueError(f"{name}: expected a finite number > 0, got {x!r}")
    return float(x)


def box_terrain(length: float = 5.0, width: float = 2.0, cell: float = 0.2, max_height: float = 0.01,
                origin=(-0.6, -1.0), seed: int = 0, depth: float = 0.1, mu: float = 1.0) -> BoxTerrain:
    """A ``length x width`` (m) grid of cells of side ``cell`` with heights drawn uniformly from
    ``[0, max_height]`` (seeded), starting at ``origin`` (x, y). ``max_height = 0`` gives a flat floor of
    boxes. ``ValueError`` naming a bad argument (sizes must be positive, ``max_height`` in
    ``[0, depth)``)."""
    length, width, cell, depth = (_positive(length, "length"), _positive(width, "width"), _positive(cell, "cell"),
                                  _positive(depth, "depth"))
    if isinstance(max_height, bool) or not isinstance(max_height, (int, float, np.integer, np.floating)) \
            or not 0.0 <= max_height < depth:
        raise ValueError(f"max_height: expected a number in [0, depth = {depth}), got {max_height!r}")
    if isinstance(mu, bool) or not isinstance(mu, (int, float, np.integer, np.floating)) or not 0.0 <= mu < math.inf:
        raise ValueError(f"mu: expected a finite number >= 0, got {mu!r}")
    try:
        ox, oy = (float(v) for v in origin)
    except (TypeError, ValueError):
        raise ValueError(f"origin: expected (x, y), got {origin!r}") from None
    if not (math.isfinite(ox) and math.isfinite(oy)):
        raise ValueError(f"origin: expected finite (x, y), got {origin!r}")
    nx, ny = max(1, round(length / cell)), max(1, round(width / cell))
    heights = np.random.default_rng(seed).uniform(0.0, float(max_height), size=(nx, ny))
    heights.setflags(write=False)
    return BoxTerrain(heights, cell, (ox, oy), depth, float(mu))
