"""Kernels over the hits of vertical rays (sorted by ray, then from the top down): the surfaces each ray met
and how many closed solids each surface lies in."""

from __future__ import annotations

import numba
import numpy as np

SAME_HEIGHT = 1e-6  # m: surfaces closer than this in height are taken to touch (a box standing on a floor)


@numba.njit(cache=True, nogil=True)
def surfaces(ray: np.ndarray, height: np.ndarray, up: np.ndarray, excluded: np.ndarray, index: np.ndarray,
             on_proxy: np.ndarray) -> int:
    """The surfaces among the hits: at (about) the same height on one ray, one surface per facing (down, edge-on,
    up, in that order, so a box's bottom covers the floor it stands on), on a proxy if any of its hits was.
    Fills the first n entries of ``index`` (the hit standing for each surface) and ``on_proxy``; returns n."""
    n, start = 0, 0
    while start < len(ray):
        end = start + 1
        while end < len(ray) and ray[end] == ray[start] and height[start] - height[end] <= SAME_HEIGHT:
            end += 1
        for facing in (-1.0, 0.0, 1.0):
            first = -1
            for h in range(start, end):
                if np.sign(up[h]) == facing:
                    if first < 0:
                        first = n
                        index[n], on_proxy[n] = h, excluded[h]
                        n += 1
                    else:
                        on_proxy[first] = on_proxy[first] or excluded[h]
        start = end
    return n


@numba.njit(cache=True, nogil=True)
def enclosures(ray: np.ndarray, height: np.ndarray, up: np.ndarray, enclosure: np.ndarray) -> None:
    """``enclosure[h]``: how many closed solids surface h lies in: pairs of a surface above it facing up (the ray
    enters a solid) and the next unpaired surface below it facing down (the ray leaves), like brackets."""
    n = len(ray)
    stack = np.empty(n, dtype=np.int64)
    exit_of = np.full(n, -1, dtype=np.int64)  # per entry: the surface where the ray leaves that solid again
    start = 0
    while start < n:
        end = start
        while end < n and ray[end] == ray[start]:
            end += 1
        top = 0
        for h in range(start, end):
            if up[h] > 0:
                stack[top] = h
                top += 1
            elif up[h] < 0 and top > 0:
                top -= 1
                exit_of[stack[top]] = h
        for h in range(start, end):
            count = 0
            for e in range(start, h):
                x = exit_of[e]
                if x >= 0 and height[e] > height[h] + SAME_HEIGHT and height[x] < height[h] - SAME_HEIGHT:
                    count += 1
            enclosure[h] = count
        start = end


@numba.njit(cache=True, nogil=True)
def _surface_rows(ray: np.ndarray, height: np.ndarray, up: np.ndarray, excluded: np.ndarray
                  ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The surfaces among the hits as ``column_surfaces`` (navigation.rays) gives them: the hit standing for
    each, its ray, height, up component, whether it is on a proxy, its ceiling and its enclosure."""
    index = np.empty(len(ray), dtype=np.int64)
    on_proxy = np.empty(len(ray), dtype=np.bool_)
    n = surfaces(ray, height, up, excluded, index, on_proxy)
    index, on_proxy = index[:n], on_proxy[:n]
    s_ray, s_height, s_up = np.empty(n, np.int64), np.empty(n), np.empty(n)
    ceiling = np.empty(n)
    for j in range(n):
        s_ray[j], s_height[j], s_up[j] = ray[index[j]], height[index[j]], up[index[j]]
        ceiling[j] = s_height[j - 1] if j > 0 and s_ray[j - 1] == s_ray[j] else np.inf
    enclosure = np.zeros(n, dtype=np.int64)
    enclosures(s_ray, s_height, s_up, enclosure)
    return index, s_ray, s_height, s_up, on_proxy, ceiling, enclosure


@numba.njit(cache=True, nogil=True)
def column_samples(ray: np.ndarray, height: np.ndarray, up: np.ndarray, excluded: np.ndarray, area: np.ndarray,
                   columns: int, slope: float, clearance: float, cut_obstacles: bool, max_levels: int
                   ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Step 2 (navigation.sampling.walkable_samples) from the hits of ``columns`` rays (sorted by ray, then from
    the top down): per column and level, the height, ceiling, enclosure and area type of the sample there (NaN,
    NaN, -1, 0 where none), as ``(columns, levels)`` arrays with as many levels as a column needs (at least 1, at
    most ``max_levels``). A surface is a sample when it faces up at least ``slope`` (its up component), has
    ``clearance`` below its ceiling and, with ``cut_obstacles``, its ray met no proxy; its level is how many
    surfaces facing up lie below it on its ray."""
    index, s_ray, s_height, s_up, _, ceiling, enclosure = _surface_rows(ray, height, up, excluded)
    n = len(s_ray)
    cut = np.zeros(columns, dtype=np.bool_)
    if cut_obstacles:
        for h in range(len(ray)):
            if excluded[h]:
                cut[ray[h]] = True
    rank = np.full(n, -1, dtype=np.int64)  # the level of each surface that is a sample, else -1
    used = 1
    end = n
    while end > 0:  # each ray's surfaces, from the bottom up, counting the surfaces facing up below
        start = end - 1
        while start > 0 and s_ray[start - 1] == s_ray[end - 1]:
            start -= 1
        below = 0
        for j in range(end - 1, start - 1, -1):
            if (s_up[j] >= slope and ceiling[j] - s_height[j] >= clearance and not cut[s_ray[j]]
                    and below < max_levels):
                rank[j] = below
                used = max(used, below + 1)
            if s_up[j] > 0:
                below += 1
        end = start
    out = np.full((columns, used), np.nan)
    room = np.full((columns, used), np.nan)
    inside = np.full((columns, used), -1, dtype=np.int64)
    kind = np.zeros((columns, used), dtype=np.int64)
    for j in range(n):
        if rank[j] >= 0:
            r, s = s_ray[j], rank[j]
            out[r, s], room[r, s], inside[r, s], kind[r, s] = s_height[j], ceiling[j], enclosure[j], area[index[j]]
    return out, room, inside, kind


@numba.njit(cache=True, nogil=True)
def corners_failing(ray: np.ndarray, height: np.ndarray, up: np.ndarray, excluded: np.ndarray, y: np.ndarray,
                    top: np.ndarray, inside: np.ndarray, step_limit: float, clearance: float, cut_obstacles: bool
                    ) -> np.ndarray:
    """Per probe ray ``p`` of a sample's cell corner (the sample at height ``y[p]``, with ceiling ``top[p]``, in
    ``inside[p]`` closed solids): whether the corner fails to hold the floor (navigation.sampling.whole_cells),
    from the probes' hits (sorted by ray, then from the top down): no surface there faces up within
    ``step_limit`` of the sample, with ``clearance`` of room shared with it, in as many solids; or, with
    ``cut_obstacles``, a surface there is on a proxy."""
    _, s_ray, s_height, s_up, on_proxy, ceiling, enclosure = _surface_rows(ray, height, up, excluded)
    held = np.zeros(len(y), dtype=np.bool_)
    proxy = np.zeros(len(y), dtype=np.bool_)
    for j in range(len(s_ray)):
        p = s_ray[j]
        if (s_up[j] > 0 and abs(s_height[j] - y[p]) <= step_limit
                and min(top[p], ceiling[j]) - max(y[p], s_height[j]) >= clearance and enclosure[j] == inside[p]):
            held[p] = True
        if on_proxy[j]:
            proxy[p] = True
    fails = np.empty(len(y), dtype=np.bool_)
    for p in range(len(y)):
        fails[p] = not held[p] or (cut_obstacles and proxy[p])
    return fails
