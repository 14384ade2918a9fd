"""Kernels of the drop links off ledges (:mod:`voxelworld.navigation.ledges`): the scan of a block of columns
for ledges with ground below, one link kept per block, direction and level."""

from __future__ import annotations

import numba
import numpy as np

KEY_LEVELS = 16  # a link's key counts levels by this (sampling.MAX_LEVELS): keys do not depend on an array's levels


@numba.njit(cache=True, nogil=True, inline="always")
def _passable(raw: np.ndarray, ceiling: np.ndarray, ci: int, ck: int, low: float, y: float, step_limit: float,
              clearance: float) -> bool:
    """Whether an agent dropping from height ``y`` passes over column (ci, ck) down to ``low``: every surface
    sample of the column above ``low`` and up to the agent's head (``y + clearance``) is no more than a step
    above ``y`` and open up to the head (not under a floor)."""
    for t in range(raw.shape[2]):
        h = raw[ci, ck, t]
        if np.isnan(h) or h <= low or h > y + clearance:
            continue
        if h > y + step_limit or ceiling[ci, ck, t] < y + clearance:
            return False
    return True


@numba.njit(cache=True, nogil=True, inline="always")
def _landing(final: np.ndarray, links: np.ndarray, raw: np.ndarray, ceiling: np.ndarray, enclosure: np.ndarray,
             i: int, k: int, s: int, d: int, dx: int, dz: int, reach: int, step_limit: float, clearance: float,
             max_drop: float) -> tuple[int, int]:
    """The landing (n, t) of the drop off sample (i, k, s) towards direction d: level t of the column n steps
    out, the nearest column with walkable ground (a final sample in as many solids) more than ``step_limit``
    and at most ``max_drop`` below, open up to the agent's head over the top, every column on the way
    passable; the highest such level. (-1, -1): none (no missing link there, or no ground within ``reach``)."""
    nx, nz, levels = final.shape
    y = final[i, k, s]
    if np.isnan(y) or links[d, i, k, s] >= 0:
        return -1, -1
    for n in range(1, reach + 1):
        ci, ck = i + n * dx, k + n * dz
        if ci < 0 or ci >= nx or ck < 0 or ck >= nz:
            break
        best, best_h = -1, -np.inf
        for t in range(levels):
            h = final[ci, ck, t]
            if np.isnan(h) or enclosure[ci, ck, t] != enclosure[i, k, s]:
                continue
            if h < y - max_drop or h >= y - step_limit or ceiling[ci, ck, t] < y + clearance:
                continue
            if h > best_h:
                best, best_h = t, h
        if best >= 0 and _passable(raw, ceiling, ci, ck, best_h, y, step_limit, clearance):
            return n, best
        if not _passable(raw, ceiling, ci, ck, y - max_drop, y, step_limit, clearance):
            break
    return -1, -1


@numba.njit(cache=True, nogil=True)
def ledge_links(final: np.ndarray, links: np.ndarray, raw: np.ndarray, ceiling: np.ndarray, enclosure: np.ndarray,
                directions: np.ndarray, step_limit: float, clearance: float, max_drop: float, reach: int, spacing: int,
                b_lo: int, c_lo: int, b_hi: int, c_hi: int, keys: np.ndarray, tops: np.ndarray,
                landings: np.ndarray) -> int:
    """The drop links of the blocks [b_lo, b_hi) x [c_lo, c_hi) (a block: ``spacing`` x ``spacing`` columns from
    column (b * spacing, c * spacing)), block by block in that order: per block, direction and level of the top,
    the ledge sample whose centre lies nearest the block's centre (the first along x, then z, on a tie) of those
    with a landing (see ``_landing``). Writes link r's key (((block's i * blocks along z + its k) * 4 + d) *
    KEY_LEVELS + s), top (i, k, s) and landing (i, k, t) into ``keys[r]``, ``tops[r]``, ``landings[r]`` (room for
    4 * levels links per block) and returns the count."""
    nx, nz, levels = final.shape
    blocks_z = (nz + spacing - 1) // spacing
    count = 0
    best = np.empty((4, levels), dtype=np.int64)
    best_score = np.empty((4, levels), dtype=np.int64)
    best_land = np.empty((4, levels, 2), dtype=np.int64)
    for b in range(b_lo, b_hi):
        for c in range(c_lo, c_hi):
            best[:] = -1
            i_end, k_end = min((b + 1) * spacing, nx), min((c + 1) * spacing, nz)
            for i in range(b * spacing, i_end):
                for k in range(c * spacing, k_end):
                    # twice the distance to the block's centre, in cells, squared
                    score = (2 * i + 1 - 2 * b * spacing - spacing) ** 2 + (2 * k + 1 - 2 * c * spacing - spacing) ** 2
                    for s in range(levels):
                        for d in range(4):
                            if best[d, s] >= 0 and best_score[d, s] <= score:
                                continue
                            n, t = _landing(final, links, raw, ceiling, enclosure, i, k, s, d, directions[d, 0],
                                            directions[d, 1], reach, step_limit, clearance, max_drop)
                            if n < 0:
                                continue
                            best[d, s], best_score[d, s] = i * nz + k, score
                            best_land[d, s, 0], best_land[d, s, 1] = n, t
            for d in range(4):
                for s in range(levels):
                    if best[d, s] < 0:
                        continue
                    i, k = best[d, s] // nz, best[d, s] % nz
                    n = best_land[d, s, 0]
                    keys[count] = ((b * blocks_z + c) * 4 + d) * KEY_LEVELS + s
                    tops[count, 0], tops[count, 1], tops[count, 2] = i, k, s
                    landings[count, 0] = i + n * directions[d, 0]
                    landings[count, 1] = k + n * directions[d, 1]
                    landings[count, 2] = best_land[d, s, 1]
                    count += 1
    return count
