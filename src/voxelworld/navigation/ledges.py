"""Drop links off ledges: where walkable ground ends at a ledge and walkable ground lies below, a one-way off-mesh
link from the top down (``NavSettings.max_drop``; Detour's off-mesh connections, made by the bake).

A *ledge* is a walkable sample of the final layers (after erosion and islands) with a missing link towards a
direction (+x, -x, +z or -z). Its *landing* is looked for straight out that way, column by column, up to
``reach`` columns (:func:`ledge_reach`: the agent's radius at both ends, which erosion keeps clear of the ledge
and of the wall below, plus ``max_jump_gap``, plus two cells for the whole-cells rule): the nearest column
holding walkable ground (a final sample, in as many closed solids as the top) more than ``step_limit`` and at
most ``max_drop`` below the top, whose free space reaches up to the agent's head over the top (``clearance``
above it: not under the floor the agent stands on), the highest such sample of it. Every column on the way must
be passable: its surface samples between the landing and the agent's head rise no more than a step over the
top and are open up to the head (the drop goes over a slope or the eroded rim, not through a floor or over a
wall). Only walkable surfaces are seen (rays never meet vertical walls): a wall whose top is not a walkable
surface, standing between a ledge and the ground below within ``reach``, is not seen.

Links are thinned: the grid of the area is cut into square blocks of :func:`ledge_spacing` columns (about the
agent's diameter, at least 3), and per block, direction and level of the top only the ledge whose cell centre
lies nearest the block's centre keeps its link. A link runs from the top sample's cell centre, at its height,
to the landing sample's cell centre, at its height (both on the walkable area the polygons cover, within
``max_edge_error``), in the area's grid frame (the navmesh's own frame).

Each block's links depend only on columns within ``reach`` of it, so a re-bake scans again only the blocks within
``reach`` of a column whose samples or links changed (:func:`rescan_ledges`) and keeps the others: the links
equal a full bake's, bit for bit. The scan is :func:`~._kernels.ledges.ledge_links`
(``tests/navigation/test_ledges.py`` checks it against a plain-Python reading of the rules above).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ._kernels.ledges import KEY_LEVELS, ledge_links
from ._kernels.samples import DIRECTIONS
from .polygons import WalkableLayers
from .sampling import Samples
from .settings import NavSettings

__all__ = ["AreaLedges", "ledge_reach", "ledge_spacing", "area_ledges", "rescan_ledges"]


@dataclass(frozen=True)
class AreaLedges:
    """The drop links of one bake area, ordered by ``key`` (block, direction, level of the top: see
    ``_kernels.ledges.ledge_links``): from ``start`` (n, 3) to ``end`` (n, 3), metres in the area's frame."""

    key: np.ndarray  # (n,) int64, increasing
    start: np.ndarray  # (n, 3) float64
    end: np.ndarray  # (n, 3) float64

    @classmethod
    def none(cls) -> AreaLedges:
        return cls(np.zeros(0, dtype=np.int64), np.zeros((0, 3)), np.zeros((0, 3)))

    @property
    def count(self) -> int:
        return len(self.key)


def ledge_reach(settings: NavSettings) -> int:
    """How many columns out from a ledge its landing is looked for: ``2 * agent_radius + max_jump_gap`` over the
    cell size (rounded down), plus two."""
    return int(math.floor((2 * settings.agent_radius + settings.max_jump_gap) / settings.cell_size + 1e-9)) + 2


def ledge_spacing(settings: NavSettings) -> int:
    """The side (columns) of the blocks that keep one drop link each per direction and level: the agent's
    diameter in cells (rounded up), at least 3."""
    return max(int(math.ceil(2 * settings.agent_radius / settings.cell_size - 1e-9)), 3)


def _scan(samples: Samples, layers: WalkableLayers, settings: NavSettings,
          blocks: tuple[int, int, int, int]) -> AreaLedges:
    """The links of the blocks (b0, c0, b1, c1) (block rows [b0, b1), block columns [c0, c1))."""
    b0, c0, b1, c1 = blocks
    final = layers.height
    levels = final.shape[2]
    raw, ceiling, enclosure = samples.height, samples.ceiling, samples.enclosure
    if raw.shape[2] < levels:  # a re-bake's final layers may hold more (empty) levels than the samples
        extra = levels - raw.shape[2]
        raw = np.concatenate([raw, np.full(raw.shape[:2] + (extra,), np.nan)], axis=2)
        ceiling = np.concatenate([ceiling, np.full(raw.shape[:2] + (extra,), np.nan)], axis=2)
        enclosure = np.concatenate([enclosure, np.full(raw.shape[:2] + (extra,), -1, np.int64)], axis=2)
    room = max((b1 - b0) * (c1 - c0), 0) * 4 * levels
    keys = np.empty(room, dtype=np.int64)
    tops = np.empty((room, 3), dtype=np.int64)
    landings = np.empty((room, 3), dtype=np.int64)
    count = ledge_links(final, layers.links, raw, ceiling, enclosure, DIRECTIONS, settings.step_limit,
                        settings.clearance, settings.max_drop, ledge_reach(settings), ledge_spacing(settings), b0, c0,
                        b1, c1, keys, tops, landings)
    return AreaLedges(keys[:count], _points(layers, tops[:count]), _points(layers, landings[:count]))


def _points(layers: WalkableLayers, cells: np.ndarray) -> np.ndarray:
    """The centres of the samples ``cells`` (n, 3) = (i, k, s), at their heights (m)."""
    i, k, s = cells[:, 0], cells[:, 1], cells[:, 2]
    return np.column_stack([layers.x0 + (i + 0.5) * layers.cell, layers.height[i, k, s],
                            layers.z0 + (k + 0.5) * layers.cell])


def _blocks_of(layers: WalkableLayers, spacing: int) -> tuple[int, int]:
    nx, nz = layers.height.shape[:2]
    return -(-nx // spacing), -(-nz // spacing)


def area_ledges(samples: Samples, layers: WalkableLayers, settings: NavSettings) -> AreaLedges:
    """The drop links of a whole area (none when ``settings.max_drop`` is 0): ``samples`` are its walkable
    samples of step 2 (surfaces, ceilings, enclosures), ``layers`` its final layers with their links."""
    if settings.max_drop <= 0:
        return AreaLedges.none()
    return _scan(samples, layers, settings, (0, 0, *_blocks_of(layers, ledge_spacing(settings))))


def rescan_ledges(old: AreaLedges, samples: Samples, layers: WalkableLayers, settings: NavSettings,
                  columns: tuple[int, int, int, int] | None) -> AreaLedges:
    """``old`` with the blocks within reach of ``columns`` (i0, k0, i1, k1), the columns whose samples or
    links changed (None: none), scanned again over the re-baked ``samples`` and ``layers``."""
    if settings.max_drop <= 0 or columns is None:
        return old
    spacing, reach = ledge_spacing(settings), ledge_reach(settings)
    nbx, nbz = _blocks_of(layers, spacing)
    i0, k0, i1, k1 = columns
    b0, c0 = max(i0 - reach, 0) // spacing, max(k0 - reach, 0) // spacing
    b1, c1 = min(-(-(i1 + reach) // spacing), nbx), min(-(-(k1 + reach) // spacing), nbz)
    if b0 >= b1 or c0 >= c1:
        return old
    fresh = _scan(samples, layers, settings, (b0, c0, b1, c1))
    block = old.key // (4 * KEY_LEVELS)
    b, c = block // nbz, block % nbz
    keep = ~((b >= b0) & (b < b1) & (c >= c0) & (c < c1))
    key = np.concatenate([old.key[keep], fresh.key])
    order = np.argsort(key, kind="stable")
    return AreaLedges(key[order], np.concatenate([old.start[keep], fresh.start])[order],
                      np.concatenate([old.end[keep], fresh.end])[order])
