"""Connected solid components and the small floating ones an edit leaves: the kernels behind
:mod:`voxelworld.terrain.fragments`.

Connected solid components (6-connected, density >= iso) are found over runs: maximal stretches of solid
voxels along z in one (x, y) row. Runs of neighbouring rows that overlap in z are joined with union-find.
Terrain is mostly long runs, so this touches each voxel once and does little work per run."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numba as nb
import numpy as np

from .arguments import STAT_CHANGED, STAT_DENSITY_REMOVED
from .density import account, dominant_material

if TYPE_CHECKING:
    from .arguments import EditTally, FragmentScratch, Grid, MaterialArrays, VoxelFields
    from .density import Whole

__all__ = ["find_root", "join", "find_runs", "join_rows", "erase_small_components", "touches_solid", "erase_voxel"]


@nb.njit(cache=True, inline="always")
def find_root(parent: np.ndarray, r: int) -> int:
    while parent[r] != r:
        parent[r] = parent[parent[r]]  # path halving
        r = parent[r]
    return r


@nb.njit(cache=True, inline="always")
def join(parent: np.ndarray, a: int, b: int) -> None:
    ra, rb = find_root(parent, a), find_root(parent, b)
    if ra < rb:
        parent[rb] = ra
    elif rb < ra:
        parent[ra] = rb


@nb.njit(cache=True)
def find_runs(density: np.ndarray, offset: np.ndarray, lo: np.ndarray, hi: np.ndarray, iso: int,
              row_first: np.ndarray, run_start: np.ndarray, run_end: np.ndarray) -> int:
    """Fill the runs of the box ``lo..hi`` (``density`` holds the voxels from index ``offset`` on); the runs of
    row ``(i - lo0) * rows_y + (j - lo1)`` are ``row_first[row] .. row_first[row + 1] - 1``. Returns the number
    of runs."""
    count = 0
    row = 0
    for i in range(lo[0], hi[0] + 1):
        for j in range(lo[1], hi[1] + 1):
            row_first[row] = count
            column = density[i - offset[0], j - offset[1]]
            k = lo[2]
            while k <= hi[2]:
                if column[k - offset[2]] >= iso:
                    start = k
                    while k <= hi[2] and column[k - offset[2]] >= iso:
                        k += 1
                    run_start[count] = start
                    run_end[count] = k - 1
                    count += 1
                else:
                    k += 1
            row += 1
    row_first[row] = count
    return count


@nb.njit(cache=True)
def join_rows(row_first: np.ndarray, run_start: np.ndarray, run_end: np.ndarray, parent: np.ndarray, row_a: int,
              row_b: int) -> None:
    """Join every run of ``row_a`` with the runs of ``row_b`` that overlap it in z."""
    a, a_end = row_first[row_a], row_first[row_a + 1]
    b, b_end = row_first[row_b], row_first[row_b + 1]
    while a < a_end and b < b_end:
        if run_start[a] <= run_end[b] and run_start[b] <= run_end[a]:
            join(parent, a, b)
        if run_end[a] < run_end[b]:
            a += 1
        else:
            b += 1


@nb.njit(cache=True)
def erase_small_components(fields: VoxelFields, lo: np.ndarray, hi: np.ndarray, grid: Grid, materials: MaterialArrays,
                           scratch: FragmentScratch, tally: EditTally) -> int:
    """Erase (density 0) the components wholly inside the box ``lo..hi`` (none of their voxels on its border)
    with fewer voxels than the minimum fragment size of their material: the dominant material of highest
    fragment priority among their voxels (lowest id on a tie). Below-iso voxels next to an erased voxel that
    no remaining solid voxel touches (26-neighbourhood) are erased too. Returns the number of components erased.

    The :class:`FragmentScratch` arrays are the caller's."""
    density, mat_a, mat_b, mix = fields.density, fields.mat_a, fields.mat_b, fields.mix
    iso, chunk_size, offset = grid.iso, grid.chunk_size, grid.offset
    o0, o1, o2 = offset[0], offset[1], offset[2]
    priority_by_id, min_size_by_id = materials.fragment_priority, materials.min_fragment_size
    row_first, run_start, run_end, parent, size, best = scratch
    rows_y = hi[1] - lo[1] + 1
    rows = (hi[0] - lo[0] + 1) * rows_y
    runs = find_runs(density, offset, lo, hi, iso, row_first, run_start, run_end)
    for r in range(runs):
        parent[r] = r
    for row in range(rows):
        if row >= rows_y:
            join_rows(row_first, run_start, run_end, parent, row, row - rows_y)
        if row % rows_y != 0:
            join_rows(row_first, run_start, run_end, parent, row, row - 1)
    # Sizes per root; size -1 marks a component on the border (kept whatever its size).
    for r in range(runs):
        size[r] = 0
    for row in range(rows):
        i, j = lo[0] + row // rows_y, lo[1] + row % rows_y
        on_side = i == lo[0] or i == hi[0] or j == lo[1] or j == hi[1]
        for r in range(row_first[row], row_first[row + 1]):
            root = find_root(parent, r)
            if on_side or run_start[r] == lo[2] or run_end[r] == hi[2]:
                size[root] = -1
            elif size[root] >= 0:
                size[root] += run_end[r] - run_start[r] + 1
    # The material of each inner component: highest fragment priority among its voxels' dominant materials.
    for r in range(runs):
        best[r] = -1
    for row in range(rows):
        i, j = lo[0] + row // rows_y, lo[1] + row % rows_y
        for r in range(row_first[row], row_first[row + 1]):
            root = find_root(parent, r)
            if size[root] <= 0:
                continue
            for k in range(run_start[r], run_end[r] + 1):
                m = dominant_material(mat_a[i - o0, j - o1, k - o2], mat_b[i - o0, j - o1, k - o2],
                                      mix[i - o0, j - o1, k - o2])
                b = best[root]
                if b < 0 or priority_by_id[m] > priority_by_id[b] or (
                        priority_by_id[m] == priority_by_id[b] and m < b):
                    best[root] = m
    erased = 0
    for r in range(runs):
        if parent[r] == r and size[r] > 0 and size[r] < min_size_by_id[best[r]]:
            erased += 1
        elif parent[r] == r:
            best[r] = -1  # kept
    for row in range(rows):
        i, j = lo[0] + row // rows_y, lo[1] + row % rows_y
        for r in range(row_first[row], row_first[row + 1]):
            root = find_root(parent, r)
            if size[root] <= 0 or best[root] < 0:
                continue
            for k in range(run_start[r], run_end[r] + 1):
                erase_voxel(fields, offset, i, j, k, chunk_size, tally)
    # The thin below-iso fringe a fragment leaves goes too, where no remaining solid voxel is next to it (a
    # window must reach one voxel past the box wherever the volume does).
    nx, ny, nz = o0 + density.shape[0], o1 + density.shape[1], o2 + density.shape[2]
    for row in range(rows):
        i, j = lo[0] + row // rows_y, lo[1] + row % rows_y
        for r in range(row_first[row], row_first[row + 1]):
            root = find_root(parent, r)
            if size[root] <= 0 or best[root] < 0:
                continue
            for k in range(run_start[r], run_end[r] + 1):
                for a in range(max(i - 1, o0), min(i + 2, nx)):
                    for b in range(max(j - 1, o1), min(j + 2, ny)):
                        for c in range(max(k - 1, o2), min(k + 2, nz)):
                            if density[a - o0, b - o1, c - o2] > 0 and not touches_solid(density, a - o0, b - o1,
                                                                                         c - o2, iso):
                                erase_voxel(fields, offset, a, b, c, chunk_size, tally)
    return erased


@nb.njit(cache=True, inline="always")
def touches_solid(density: np.ndarray, i: Whole, j: Whole, k: Whole, iso: int) -> bool:
    """Whether voxel (i, j, k) or one of its 26 neighbours (within the volume) is solid."""
    nx, ny, nz = density.shape
    for a in range(max(i - 1, 0), min(i + 2, nx)):
        for b in range(max(j - 1, 0), min(j + 2, ny)):
            for c in range(max(k - 1, 0), min(k + 2, nz)):
                if density[a, b, c] >= iso:
                    return True
    return False


@nb.njit(cache=True, inline="always")
def erase_voxel(fields: VoxelFields, offset: np.ndarray, i: Whole, j: Whole, k: Whole, chunk_size: int,
                tally: EditTally) -> None:
    """Set voxel (i, j, k)'s density to 0 (the fields hold the voxels from index ``offset`` on) and account for it."""
    li, lj, lk = i - offset[0], j - offset[1], k - offset[2]
    old = np.int64(fields.density[li, lj, lk])
    a, b, m = np.int64(fields.mat_a[li, lj, lk]), np.int64(fields.mat_b[li, lj, lk]), np.int64(fields.mix[li, lj, lk])
    fields.density[li, lj, lk] = 0
    tally.chunk_flags[i // chunk_size, j // chunk_size, k // chunk_size] = 1
    tally.stats[STAT_CHANGED] += 1
    tally.stats[STAT_DENSITY_REMOVED] += old
    account(old, a, b, m, 0, a, b, m, tally.removed_units, tally.added_units)
