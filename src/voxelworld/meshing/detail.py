"""Levels of detail per chunk: how coarsely each chunk's display mesh is simplified, chosen by distance.

A chunk at level L is simplified at least L octree levels deep whatever the shape error (a *floor*: at levels
1..L its vertices merge wherever the topology and the two-kinds rule allow; see
:meth:`ChunkMesher.set_detail_levels`), so a far chunk keeps about 4^-L of its triangles. From
:data:`FEATURE_FLOOR_LEVEL` on the floor also waives the topology test, the two kinds and cells of several
patches: rough ground (cliffs, strata, caves) coarsens there too, at the price of small features. :func:`detail_levels`
picks the level of every chunk from its distance to the nearest viewer and relaxes the map to the *2:1 rule*:
the levels of two chunks that share a face, an edge or a corner differ by at most 1. Chunks at any levels meet
without cracks (each quad joins the vertices the chunks around it chose); the 2:1 rule keeps the triangles along
a seam from folding over (a level-0 chunk beside a level-5 one makes slivers that face the wrong way).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from numpy.typing import ArrayLike

from ..errors import ParameterError, check_finite, check_integer, check_point, check_range

__all__ = ["MAX_DETAIL_LEVEL", "FEATURE_FLOOR_LEVEL", "DETAIL_DISTANCES", "detail_levels", "relax_to_two_to_one"]

# The coarsest level of detail: merges never cross chunk borders, so with 32-sample chunks level 5 leaves (about)
# one vertex per chunk and surface patch; levels above log2(chunk_size) add nothing.
MAX_DETAIL_LEVEL = 5

# From this level of detail on, the floor may drop small features: at octree levels 1..L the chunk's vertices merge
# whatever the topology test, the two-kinds rule and cells of several patches say; only the chunk's border stops a
# merge, so chunks still meet without cracks (each quad joins the vertices the chunks around it chose), but thin
# walls, tunnels and strata at that scale vanish and the surface may pinch (edges of four triangles) where they did.
# Measured on the generated world (256 m, seed 7): the topology test refused 13 % of the level-2..4 nodes of
# chunks at level 4 and the two kinds 8 % of level 1's (three strata within a few samples); waiving both left a
# sixth of the triangles at level 4, and the patches a third of those at level 5 (docs/meshing.md). Levels below
# stay as they were, bit for bit.
FEATURE_FLOOR_LEVEL = 4

# The default distance bands (metres): level 0 within 32 m of a viewer, 1 within 64 m, 2 within 128 m, 3 within
# 256 m, 4 within 384 m and 5 beyond. Chosen with benchmarks/lod.py so that a 1 km world at 0.5 m voxels seen to
# 500 m stays within 400k display triangles (see docs/meshing.md).
DETAIL_DISTANCES = (32.0, 64.0, 128.0, 256.0, 384.0)


def detail_levels(chunk_grid_shape: Sequence[int], chunk_size: int, voxel_size: float, origin: ArrayLike,
                  viewers: ArrayLike, distances: Sequence[float] = DETAIL_DISTANCES) -> np.ndarray:
    """The level of detail of every chunk (int64 of ``chunk_grid_shape``): ``i`` where the chunk's box lies
    nearer than ``distances[i]`` (metres) to the nearest viewer and at least ``distances[i - 1]`` away, the
    number of bands beyond the last; then lowered where needed to the 2:1 rule (:func:`relax_to_two_to_one`).

    Parameters
    ----------
    chunk_grid_shape : (3,) ints >= 1
        Chunks along x, y, z (``VoxelVolume.chunk_grid_shape``).
    chunk_size : int >= 1
        Samples along a chunk's edge (``VoxelVolume.chunk_size``).
    voxel_size : float > 0
        Metres between samples.
    origin : (3,) floats
        World position of sample (0, 0, 0), metres.
    viewers : (n, 3) or (3,) floats, n >= 1
        Camera (or player) positions, metres: a chunk's distance is to its nearest viewer.
    distances : increasing floats > 0, 1..MAX_DETAIL_LEVEL of them
        The outer edge of each level's band, metres (:data:`DETAIL_DISTANCES` by default).

    Examples
    --------
    >>> levels = detail_levels((8, 2, 8), 32, 1.0, (0.0, 0.0, 0.0), (16.0, 40.0, 16.0), (40.0, 80.0, 160.0))
    >>> levels[:, 1, 0].tolist()  # along x from the viewer's chunk
    [0, 0, 1, 2, 2, 2, 3, 3]
    >>> int(np.abs(np.diff(levels, axis=0)).max())
    1
    """
    grid, size, voxel, base, points, bands = _checked(chunk_grid_shape, chunk_size, voxel_size, origin, viewers,
                                                      distances)
    edge = size * voxel
    lows = [base[axis] + np.arange(grid[axis]) * edge for axis in range(3)]
    nearest = np.full(grid, np.inf)
    for point in points:
        # Distance from the point to each chunk's box, per axis then combined (the grid is separable).
        gaps = [np.maximum(np.maximum(low - point[axis], point[axis] - (low + edge)), 0.0)
                for axis, low in enumerate(lows)]
        squared = gaps[0][:, None, None] ** 2 + gaps[1][None, :, None] ** 2 + gaps[2][None, None, :] ** 2
        np.minimum(nearest, np.sqrt(squared), out=nearest)
    levels = np.searchsorted(np.asarray(bands), nearest, side="right").astype(np.int64)
    return relax_to_two_to_one(levels)


def relax_to_two_to_one(levels: np.ndarray) -> np.ndarray:
    """``levels`` (an integer array over a chunk grid, >= 0) lowered as little as possible so that chunks that
    share a face, an edge or a corner differ by at most 1: every level becomes the least over all chunks of
    their level plus their distance in chunks (the largest of the three axis steps). Only lowers; the result
    does not depend on any order. A new array of int64.

    Examples
    --------
    >>> relax_to_two_to_one(np.array([[[0, 5, 5, 5]]])).tolist()
    [[[0, 1, 2, 3]]]
    """
    check_range("levels", _described(levels), "an integer array of three dimensions (a chunk grid)",
                isinstance(levels, np.ndarray) and levels.dtype.kind in "iu" and levels.ndim == 3)
    out = levels.astype(np.int64)
    if out.size == 0:
        return out
    check_range("levels", int(out.min()), "levels >= 0", bool(out.min() >= 0))
    # A min filter over the 3x3x3 neighbourhood, plus one, until nothing changes: each pass carries a low level
    # one chunk further, so it ends after at most (highest - lowest) passes.
    while True:
        padded = np.pad(out, 1, mode="edge")
        low = out.copy()
        nx, ny, nz = out.shape
        for dx in range(3):
            for dy in range(3):
                for dz in range(3):
                    np.minimum(low, padded[dx:dx + nx, dy:dy + ny, dz:dz + nz] + 1, out=low)
        if np.array_equal(low, out):
            return out
        out = low


def _checked(chunk_grid_shape: Sequence[int], chunk_size: int, voxel_size: float, origin: ArrayLike,
             viewers: ArrayLike, distances: Sequence[float],
             ) -> tuple[tuple[int, ...], int, float, np.ndarray, np.ndarray, list[float]]:
    try:
        grid = tuple(check_integer("chunk_grid_shape", n, minimum=1) for n in chunk_grid_shape)
    except (TypeError, ParameterError):
        raise ParameterError("chunk_grid_shape", chunk_grid_shape, "three whole numbers >= 1") from None
    check_range("chunk_grid_shape", chunk_grid_shape, "three whole numbers >= 1", len(grid) == 3)
    size = check_integer("chunk_size", chunk_size, minimum=1, unit="samples")
    voxel = check_finite("voxel_size", voxel_size, minimum=0.0, strict_minimum=True, unit="m")
    base = np.array(check_point("origin", origin))
    legal = "a point (x, y, z) or an (n, 3) array of them, n >= 1, finite (m)"
    try:
        points = np.asarray(viewers, dtype=np.float64)
    except (TypeError, ValueError):
        raise ParameterError("viewers", viewers, legal) from None
    points = points.reshape(1, 3) if points.shape == (3,) else points
    check_range("viewers", _described(points), legal,
                points.ndim == 2 and points.shape[1] == 3 and len(points) >= 1 and bool(np.all(np.isfinite(points))))
    legal = f"1..{MAX_DETAIL_LEVEL} increasing finite distances > 0 (m), one per level's outer edge"
    try:
        bands = [float(d) for d in distances]
    except (TypeError, ValueError):
        raise ParameterError("distances", distances, legal) from None
    check_range("distances", distances, legal,
                1 <= len(bands) <= MAX_DETAIL_LEVEL and all(np.isfinite(d) and d > 0.0 for d in bands)
                and all(a < b for a, b in zip(bands, bands[1:])))
    return grid, size, voxel, base, points, bands


def _described(value: object) -> str:
    return f"{value.dtype}{value.shape}" if isinstance(value, np.ndarray) else type(value).__name__
