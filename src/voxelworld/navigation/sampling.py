"""Steps 2-5 of a bake: from the surfaces rays met to the walkable samples of a region.

2. :func:`walkable_samples` — per column, the surfaces an agent could stand on: facing up, no steeper than
   ``max_slope``, with ``clearance`` of free space above (up to the next surface, the sample's *ceiling*);
   each takes the area type of the triangle it stands on (``SceneObject.area_type``).
   Without ``levels``, a column whose ray meets an obstacle's proxy is cut out (hits on exclusion regions
   removed, ground under obstacles cut out); with ``levels``, an obstacle's top is a sample of its own (a
   table top becomes walkable). A sample's *level* is the number of surfaces facing up beneath it on its ray,
   covered or not: the floor is level 0; a table top, a crate's top, a bridge or an upper storey stands over
   the floor beneath it and is level 1 or more. A column stores its sample of level ``s`` at index ``s``.
   Each sample also knows how many closed solids it lies in (its *enclosure*, see
   :func:`~voxelworld.navigation.rays.column_surfaces`): a floor running through a closed box lies in one.
3. :func:`sample_links` — neighbouring samples along x or z are *linked* (an agent steps between them) when
   their heights differ by at most ``step_limit``, their free spaces overlap by at least ``clearance`` (the
   agent fits through the opening between them), and they lie in as many closed solids (otherwise a solid's
   side wall, which vertical rays never meet, stands between them).
   :func:`whole_cells` — a cell is walkable only if all of it is floor, since its polygon covers all of it:
   under each corner (probed by a ray ``CORNER_INSET`` of a cell inside it, so that geometry lying exactly on
   the grid, such as voxels, does not count as crossing the cell) there must be a surface facing up within
   ``step_limit`` of the sample, with ``clearance`` of room, in as many solids, and without ``levels`` no
   obstacle's proxy. A cell a wall, a drop or an obstacle partly covers is dropped. Corners are probed only
   next to a missing link, so a wall thinner than a cell standing between two rays goes unseen.
4. :func:`erode` — samples closer than ``agent_radius`` to the walkable area's edge are dropped: the distance
   over the links, half a cell at a sample missing a link, then 1 cell per step along x or z and sqrt(2) per
   diagonal step.
5. :func:`drop_small_islands` — islands (samples connected by links) under ``min_region_area`` are dropped.

Against Recast: Recast rasterises every triangle touching a cell (so walls and floor edges reach into the cells
they partly cover), then drops spans at ledges and erodes; the whole-cells rule has the same effect on average
(the edge sits half a cell further in than the centre rays put it), and Recast sees closed boxes by their walls
where the enclosure count sees them by their faces. On Recast's demo level with its demo settings
(``tests/navigation/test_nav_test_level.py``) this gives 3976 m² in 17 islands; Recast, 4002 m² in 17. Not
adopted: Recast's quantised heights (its climb is 0.8 m for 0.9), and its rule that a span whose reachable
neighbours differ by more than the climb is a ledge, which cut a ramp off the landing it runs into.

Every step works on a window of columns and depends only on columns near each sample (within one column for
links and whole cells, :func:`erosion_reach` for erosion), which is how a re-bake redoes only some tiles and
still gives what a full bake gives; islands are found over the whole region here, and walked only from where
something changed by a re-bake (:mod:`voxelworld.navigation.rebake`).
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

from ._kernels.samples import (
    CORNER_X,
    CORNER_Z,
    DIRECTIONS,
    corner_probes,
    eroded_heights,
    island_heights,
    window_links,
)
from ._kernels.samples import level_links as _level_links
from ._kernels.surfaces import column_samples, corners_failing
from .rays import Block, RayHitsGrid, RayScene
from .settings import NavSettings

__all__ = ["MAX_LEVELS", "CORNER_INSET", "Samples", "walkable_samples", "sample_links", "window_sample_links",
           "whole_cells", "erode",
           "erosion_reach", "drop_small_islands"]

MAX_LEVELS = 16  # levels kept: a surface with this many surfaces facing up beneath it is not sampled
# Where a cell's corners are probed: this fraction of a cell inside each corner, so that an edge lying exactly
# on a cell's side does not count as crossing the cell. Any small value will do; it is no tolerance in metres.
CORNER_INSET = 1e-3


@dataclass(frozen=True)
class Samples:
    """Walkable samples of a block of columns: ``height[i, k, s]`` (m, NaN where none) is the sample on level s of
    column ``(i0 + i, k0 + k)``, with the ``ceiling`` (m) above it (inf: open sky), the number of closed
    solids it lies in (``enclosure``, -1 where there is no sample) and its ``area`` type (the type of the
    triangle it stands on: an index into the scene's ``area_types``; 0 where there is no sample; None: all 0)."""

    x0: float
    z0: float
    cell: float
    height: np.ndarray  # (nx, nz, levels) float64
    ceiling: np.ndarray  # (nx, nz, levels) float64
    enclosure: np.ndarray  # (nx, nz, levels) int64
    i0: int = 0
    k0: int = 0
    area: np.ndarray | None = None  # (nx, nz, levels) int64

    def window(self, i0: int, k0: int, i1: int, k1: int) -> Samples:
        """The samples of columns [i0, i1) x [k0, k1) of the region's grid (views, not copies)."""
        a, b = slice(i0 - self.i0, i1 - self.i0), slice(k0 - self.k0, k1 - self.k0)
        return replace(self, height=self.height[a, b], ceiling=self.ceiling[a, b], enclosure=self.enclosure[a, b],
                       i0=i0, k0=k0, area=None if self.area is None else self.area[a, b])

    def with_height(self, height: np.ndarray) -> Samples:
        return replace(self, height=height)


def walkable_samples(hits: RayHitsGrid, settings: NavSettings) -> Samples:
    """Step 2: the surfaces an agent can stand on, per column (see the module's docstring)."""
    slope = np.cos(np.radians(settings.max_slope)) - 1e-12
    area = np.zeros(len(hits.ray), dtype=np.int64) if hits.area is None else hits.area
    out, room, inside, area = column_samples(
        np.ascontiguousarray(hits.ray, np.int64), np.ascontiguousarray(hits.height, np.float64),
        np.ascontiguousarray(hits.up, np.float64), np.ascontiguousarray(hits.exclusion, np.bool_),
        np.ascontiguousarray(area, np.int64), hits.nx * hits.nz, float(slope), float(settings.clearance),
        not settings.levels, MAX_LEVELS)
    shape = (hits.nx, hits.nz, out.shape[1])
    return Samples(hits.x0, hits.z0, hits.cell, out.reshape(shape), room.reshape(shape), inside.reshape(shape),
                   hits.i0, hits.k0, area.reshape(shape))


def level_links(height: np.ndarray, step_limit: float, ceiling: np.ndarray | None = None, clearance: float = 0.0,
                enclosure: np.ndarray | None = None) -> np.ndarray:
    """``links[d, i, k, s]``: the level of the neighbour in direction d (+x, -x, +z, -z) that sample (i, k, s)
    (``height[i, k, s]``, NaN where none) steps to, or -1: the nearest in height within ``step_limit`` m (the
    lowest level on a tie), among those whose free space (up to ``ceiling``) overlaps the sample's by
    ``clearance`` and that lie in as many closed solids (``enclosure``); without them, every sample qualifies."""
    height = np.ascontiguousarray(height, dtype=np.float64)
    ceiling = np.full(height.shape, np.inf) if ceiling is None else np.ascontiguousarray(ceiling, np.float64)
    enclosure = (np.zeros(height.shape, np.int64) if enclosure is None
                 else np.ascontiguousarray(enclosure, np.int64))
    links = np.empty((4,) + height.shape, dtype=np.int64)
    _level_links(height, ceiling, enclosure, float(step_limit), float(clearance), DIRECTIONS, 0, 0, height.shape[0],
                 height.shape[1], links)
    return links


def sample_links(samples: Samples, settings: NavSettings) -> np.ndarray:
    """Step 3: the links between the samples (see the module's docstring)."""
    return level_links(samples.height, settings.step_limit, samples.ceiling, settings.clearance, samples.enclosure)


def window_sample_links(samples: Samples, before: Samples, before_links: np.ndarray, settings: NavSettings
                        ) -> np.ndarray:
    """:func:`sample_links` of ``samples``, a window of ``before`` (same ceilings and enclosures) with some samples
    dropped since, whose links were ``before_links``: only the links next to a column that changed are found
    again."""
    links = np.empty((4,) + samples.height.shape, dtype=np.int64)
    window_links(np.asarray(samples.height, np.float64), np.asarray(samples.ceiling, np.float64),
                 np.asarray(samples.enclosure, np.int64), float(settings.step_limit), float(settings.clearance),
                 DIRECTIONS, np.asarray(before.height, np.float64), before_links, samples.i0 - before.i0,
                 samples.k0 - before.k0, links)  # (the windows read in place: no copies)
    return links


def whole_cells(rays: RayScene, samples: Samples, settings: NavSettings, block: Block | None = None,
                links: np.ndarray | None = None) -> np.ndarray:
    """Step 3: ``samples.height`` without the samples whose cell is not all floor (see the module's docstring),
    judged for the columns of ``block = (i0, k0, i1, k1)`` (grid columns; default: every column of
    ``samples``), which must lie inside ``rays``' block and, to judge its edge like a full grid does, one
    column inside ``samples``' window. Other samples are kept as they are. ``links``: the samples'
    :func:`sample_links`, when known."""
    height = samples.height
    nx, nz, levels = height.shape
    i0, k0, i1, k1 = (samples.i0, samples.k0, samples.i0 + nx, samples.k0 + nz) if block is None else block
    links = sample_links(samples, settings) if links is None else links
    probes = np.empty(((i1 - i0) * (k1 - k0) * levels * 4, 4), dtype=np.int64)
    count = corner_probes(height, links, DIRECTIONS, i0 - samples.i0, k0 - samples.k0, i1 - samples.i0,
                          k1 - samples.k0, probes)
    if not count:
        return height
    i, k, s, c = probes[:count].T
    half = 0.5 - CORNER_INSET
    sign_x, sign_z = DIRECTIONS[CORNER_X, 0].astype(np.float64), DIRECTIONS[CORNER_Z, 1].astype(np.float64)
    x = samples.x0 + (samples.i0 + i + 0.5 + half * sign_x[c]) * samples.cell
    z = samples.z0 + (samples.k0 + k + 0.5 + half * sign_z[c]) * samples.cell
    ray, hit_height, up, excluded = rays.cast(x, z)
    fails = corners_failing(np.ascontiguousarray(ray, np.int64), np.ascontiguousarray(hit_height, np.float64),
                            np.ascontiguousarray(up, np.float64), np.ascontiguousarray(excluded, np.bool_),
                            height[i, k, s], samples.ceiling[i, k, s], samples.enclosure[i, k, s],
                            float(settings.step_limit), float(settings.clearance), not settings.levels)
    out = height.copy()
    out[i[fails], k[fails], s[fails]] = np.nan
    return out


def _erosion_rounds(settings: NavSettings) -> int:
    return int(np.ceil(settings.agent_radius / settings.cell_size)) + 2


def erosion_reach(settings: NavSettings) -> int:
    """How many columns around a sample :func:`erode` needs to judge it as it would over the whole region.

    A sample is kept when its distance to the edge is at least ``agent_radius``, and every distance the
    relaxation finds is that of a way over links: 0.5 at its far end (a sample missing a link), at least 1 per
    column it moves along x or z. So only ways shorter than the radius matter, and they stay within the radius
    (in columns) of the sample; the columns one further tell whether their samples miss a link. A window that
    reaches further still cuts links at its edge, but the ways to those are at least as long as the radius."""
    return int(np.ceil(settings.agent_radius / settings.cell_size)) + 2 if settings.agent_radius > 0 else 0


def erode(samples: Samples, settings: NavSettings, links: np.ndarray | None = None) -> np.ndarray:
    """Step 4: ``samples.height`` without the samples closer than ``agent_radius`` to the walkable area's edge
    (see the module's docstring). A sample's result depends only on samples within :func:`erosion_reach`
    columns. ``links``: the samples' :func:`sample_links`, when known."""
    radius = settings.agent_radius / settings.cell_size
    height = samples.height
    if radius <= 0:
        return height
    out = np.empty(height.shape)
    eroded_heights(np.ascontiguousarray(height, dtype=np.float64),
                   sample_links(samples, settings) if links is None else links, DIRECTIONS, _erosion_rounds(settings),
                   radius, out)
    return out


def drop_small_islands(samples: Samples, settings: NavSettings, links: np.ndarray | None = None) -> np.ndarray:
    """Step 5: ``samples.height`` without the islands (samples connected by links) whose area is under
    ``min_region_area``. ``links``: the samples' :func:`sample_links`, when known."""
    height = np.ascontiguousarray(samples.height, dtype=np.float64)
    out = np.empty(height.shape)
    island_heights(height, sample_links(samples, settings) if links is None else links, settings.cell_size ** 2,
                   float(settings.min_region_area), out)
    return out
