"""Display detail near the actors: each chunk's display-mesh simplification level from its distance to the nearest
actor (voxel-scale shape near them, the game's coarser mesh far away), and the few changes a frame makes.

The collision mesh is not touched: only what is drawn changes.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike

from ..terrain import Volume
from ._kernels import chunk_box_distances, chunks_near_points, listed_chunk_distances

__all__ = ["wanted_levels", "WantedLevels", "wanted_levels_since", "next_levels", "budgeted_levels",
           "chunk_distances"]


def chunk_distances(volume: Volume, points: ArrayLike, chunks: np.ndarray | None = None) -> np.ndarray:
    """The distance (m) from each chunk's box of samples to the nearest of ``points`` (k, 3), 0 inside it (+inf for
    no point): of every chunk (an array of the chunk grid's shape), or of the ``chunks`` listed ((n, 3) integers,
    within the grid; (n,) distances, the same bit for bit)."""
    local = np.ascontiguousarray((np.asarray(points, dtype=np.float64).reshape(-1, 3) - volume.origin)
                                 / volume.voxel_size)
    shape = np.array(volume.shape, np.int64)
    if chunks is not None:
        listed = np.ascontiguousarray(chunks, dtype=np.int64).reshape(-1, 3)
        out = np.empty(len(listed))
        listed_chunk_distances(local, int(volume.chunk_size), shape, listed, float(volume.voxel_size), out)
        return out
    out = np.empty(volume.chunk_grid_shape)
    chunk_box_distances(local, int(volume.chunk_size), shape, np.array(volume.chunk_grid_shape, np.int64),
                        float(volume.voxel_size), out)
    return out


def wanted_levels(volume: Volume, points: ArrayLike, near_radius: float, far_level: int) -> np.ndarray:
    """The display level each chunk of ``volume`` wants (int64, the chunk grid's shape): 0 (every cell's vertex)
    for the chunks within ``near_radius`` metres of one of ``points`` (the actors that dig), ``far_level``
    elsewhere. Chunks of any two levels meet without cracks (docs/meshing.md), so no ring of middle levels is
    drawn between: every triangle it would add is one more for the page to draw.

    Examples
    --------
    >>> from voxelworld.terrain import VoxelVolume
    >>> volume = VoxelVolume((64, 16, 64), chunk_size=16)  # 4 x 1 x 4 chunks of 16 m
    >>> wanted_levels(volume, [(8.0, 8.0, 8.0)], 4.0, 2)[:, 0, :].tolist()
    [[0, 2, 2, 2], [2, 2, 2, 2], [2, 2, 2, 2], [2, 2, 2, 2]]
    """
    near = chunk_distances(volume, np.asarray(points, dtype=np.float64)) <= near_radius
    return np.where(near, 0, far_level).astype(np.int64)


@dataclass(frozen=True)
class WantedLevels:
    """:func:`wanted_levels` for the actors at ``points``, with ``margin``: m, how far every actor may move before a
    chunk can cross the near radius (the nearest gap between a chunk's distance and the radius); ``near``: the flat
    indices of the chunks within the radius, sorted (the chunks at level 0)."""

    points: np.ndarray  # (k, 3) m
    margin: float  # m
    levels: np.ndarray  # int64, the chunk grid's shape
    near: np.ndarray  # int64, flat chunk indices


def wanted_levels_since(previous: WantedLevels | None, volume: Volume, points: ArrayLike, near_radius: float,
                        far_level: int) -> WantedLevels:
    """:func:`wanted_levels` for ``points``, worked out again only when an actor moved ``previous.margin`` or more
    since ``previous`` (None: the first time): a chunk's distance to the nearest actor changes no faster than
    the actors move, so within the margin no chunk crosses the radius and the levels are the same, exactly. A
    frame's detail then costs nothing while the actors stay within it (a frame never visits every chunk), and
    working it out again looks at the chunks within a chunk's edge of the radius around each actor alone (the
    same distances bit for bit: :func:`chunk_distances`); the others lie farther than that edge past the radius.
    Levels worked out again but equal to ``previous.levels`` are that array itself (never changed in place)."""
    points = np.asarray(points, dtype=np.float64).reshape(-1, 3)
    if previous is not None and previous.points.shape == points.shape and \
            float(np.sqrt(((points - previous.points) ** 2).sum(axis=1)).max()) < previous.margin:
        return previous
    grid = volume.chunk_grid_shape
    edge = volume.chunk_size * volume.voxel_size
    listed = _chunks_within(volume, points, near_radius + edge)
    distance = chunk_distances(volume, points, np.column_stack(np.unravel_index(listed, grid)))
    # A hair less than the nearest gap, for the rounding of the distances; at most the edge (the chunks not listed).
    gaps = np.abs(distance - near_radius)
    margin = min(float(gaps.min()) if len(gaps) else edge, edge) * (1.0 - 1e-9)
    near = listed[distance <= near_radius]
    if previous is not None and previous.levels.shape == grid and np.array_equal(near, previous.near):
        levels = previous.levels  # the same array when nothing changed: a caller may tell by identity
    else:
        levels = np.full(grid, far_level, dtype=np.int64)
        levels.ravel()[near] = 0
    return WantedLevels(points.copy(), margin, levels, near)


def _chunks_within(volume: Volume, points: np.ndarray, reach: float) -> np.ndarray:
    """The flat indices (sorted) of the chunks whose boxes of samples may lie within ``reach`` m of one of ``points``
    along every axis (:func:`~._kernels.chunks_near_points`; those left out lie farther than ``reach``)."""
    local = np.ascontiguousarray((points - volume.origin) / volume.voxel_size)
    return chunks_near_points(local, int(volume.chunk_size), np.array(volume.chunk_grid_shape, dtype=np.int64),
                              float(reach / volume.voxel_size))


def next_levels(current: np.ndarray, wanted: np.ndarray, volume: Volume, points: ArrayLike, budget: int) -> np.ndarray:
    """``current`` with at most ``budget`` chunks moved to their ``wanted`` level: those nearest an actor first
    (ties by chunk index), so a frame rebuilds a bounded number of chunks and the detail reaches the actors first."""
    changed = np.argwhere(current != wanted)
    if len(changed) == 0:
        return current
    if len(changed) > budget:
        distance = chunk_distances(volume, np.asarray(points, dtype=np.float64))[tuple(changed.T)]
        order = np.lexsort((changed[:, 2], changed[:, 1], changed[:, 0], distance))
        changed = changed[order[:budget]]
    out = current.copy()
    out[tuple(changed.T)] = wanted[tuple(changed.T)]
    return out


def budgeted_levels(current: np.ndarray, wanted: np.ndarray, volume: Volume, points: ArrayLike, budget: int,
                    cost: np.ndarray, distance: np.ndarray | None = None) -> np.ndarray:
    """``current`` with the chunks moved to their ``wanted`` value nearest an actor first (ties by chunk index)
    while the summed ``cost`` of the moved chunks (per chunk, the work a change makes) stays within ``budget``;
    at least the nearest one moves, so the world always gets closer to what it wants. ``distance``: the chunks'
    distances to the points (:func:`chunk_distances`), when the caller has them already.

    >>> from voxelworld.terrain import VoxelVolume
    >>> volume = VoxelVolume((64, 16, 16), chunk_size=16)  # 4 chunks along x
    >>> current, wanted = np.zeros((4, 1, 1), np.int64), np.ones((4, 1, 1), np.int64)
    >>> cost = np.array([1, 8, 1, 1]).reshape(4, 1, 1)
    >>> budgeted_levels(current, wanted, volume, [(1.0, 8.0, 8.0)], 9, cost).ravel().tolist()
    [1, 1, 0, 0]
    """
    changed = np.argwhere(current != wanted)
    if len(changed) == 0:
        return current
    if distance is None:
        distance = chunk_distances(volume, np.asarray(points, dtype=np.float64))
    near = distance[tuple(changed.T)]
    # argwhere lists the chunks in index order: a stable sort by distance breaks ties by chunk index.
    order = changed[np.argsort(near, kind="stable")]
    spent = np.cumsum(cost[tuple(order.T)])
    taken = order[:max(int(np.searchsorted(spent, budget, side="right")), 1)]
    out = current.copy()
    out[tuple(taken.T)] = wanted[tuple(taken.T)]
    return out
