"""Display detail near the actors: each chunk's display-mesh simplification level from its distance to the nearest
actor (voxel-scale shape near them, the game's coarser mesh far away), and the few changes a frame makes.

The collision mesh is not touched: only what is drawn changes.
"""

from __future__ import annotations

import numpy as np
from scipy import ndimage

__all__ = ["wanted_levels", "next_levels"]


def _chunk_distances(volume, points: np.ndarray) -> np.ndarray:
    """The distance (m) from each chunk's box of samples to the nearest of ``points`` (k, 3), 0 inside it."""
    size, grid = volume.chunk_size, volume.chunk_grid_shape
    nearest = np.full(grid, np.inf)
    axes = [np.arange(n) for n in grid]
    for point in np.asarray(points, dtype=np.float64).reshape(-1, 3):
        local = (point - volume.origin) / volume.voxel_size
        gaps = []
        for axis, index in enumerate(axes):
            lo = index * size
            hi = np.minimum((index + 1) * size, volume.shape[axis] - 1)
            gaps.append(np.maximum(np.maximum(lo - local[axis], local[axis] - hi), 0.0) * volume.voxel_size)
        distance = np.sqrt(gaps[0][:, None, None] ** 2 + gaps[1][None, :, None] ** 2 + gaps[2][None, None, :] ** 2)
        np.minimum(nearest, distance, out=nearest)
    return nearest


def wanted_levels(volume, points, near_radius: float, far_level: int) -> np.ndarray:
    """The display level each chunk of ``volume`` wants (int64, the chunk grid's shape): 0 (every cell's vertex)
    for the chunks within ``near_radius`` metres of one of ``points`` (the actors), ``far_level`` elsewhere, then
    raised at most one level per chunk step (face, edge and corner neighbours differ by at most 1, so a coarse
    chunk never meets a fine one: no slivers at the seams).

    Examples
    --------
    >>> from voxelworld.terrain import VoxelVolume
    >>> volume = VoxelVolume((64, 16, 64), chunk_size=16)  # 4 x 1 x 4 chunks of 16 m
    >>> wanted_levels(volume, [(8.0, 8.0, 8.0)], 4.0, 2)[:, 0, :].tolist()
    [[0, 1, 2, 2], [1, 1, 2, 2], [2, 2, 2, 2], [2, 2, 2, 2]]
    """
    levels = np.where(_chunk_distances(volume, np.asarray(points, dtype=np.float64)) <= near_radius, 0, far_level)
    levels = levels.astype(np.int64)
    for _ in range(far_level):
        levels = np.minimum(levels, ndimage.minimum_filter(levels, size=3, mode="nearest") + 1)
    return levels


def next_levels(current: np.ndarray, wanted: np.ndarray, volume, points, budget: int) -> np.ndarray:
    """``current`` with at most ``budget`` chunks moved to their ``wanted`` level: those nearest an actor first
    (ties by chunk index), so a frame rebuilds a bounded number of chunks and the detail reaches the actors first."""
    changed = np.argwhere(current != wanted)
    if len(changed) == 0:
        return current
    if len(changed) > budget:
        distance = _chunk_distances(volume, np.asarray(points, dtype=np.float64))[tuple(changed.T)]
        order = np.lexsort((changed[:, 2], changed[:, 1], changed[:, 0], distance))
        changed = changed[order[:budget]]
    out = current.copy()
    out[tuple(changed.T)] = wanted[tuple(changed.T)]
    return out
