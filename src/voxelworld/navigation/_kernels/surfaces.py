"""Kernels over the hits of vertical rays (sorted by ray, then from the top down): the surfaces each ray met
and how many closed solids each surface lies in."""

from __future__ import annotations

import numba
import numpy as np

SAME_HEIGHT = 1e-6  # m: surfaces closer than this in height are taken to touch (a box standing on a floor)


@numba.njit(cache=True)
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


@numba.njit(cache=True)
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
