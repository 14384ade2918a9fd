"""The boxes of the AABB-tree obstacle proxy: the bounding box of an object's surface clipped to a box.

A node of the tree is a box of space; its children are its halves across its longest side. The box that stands
in for the object inside a half is the bounding box of the pieces of the object's triangles that lie in that half
(each triangle clipped to the half, Sutherland-Hodgman against its six faces; a piece lying flat on the cut,
such as an object's face on it, is left out). For a closed object the part of its volume in the half
lies within that box: the volume's boundary there is made of those pieces and of the cut, whose outline the
pieces reach.
"""

from __future__ import annotations

import numba
import numpy as np


@numba.njit(cache=True, nogil=True)
def _on_the_cut(polygon: np.ndarray, n: int, axis: int, value: float) -> bool:
    """Whether the clipped piece ``polygon[:n]`` lies flat on the cut ``axis = value`` (an object's face on the
    cut between two halves belongs to neither; the faces around it bound the volume on each side)."""
    if axis < 0:
        return False
    for i in range(n):
        if polygon[i, axis] != value:
            return False
    return True


@numba.njit(cache=True, nogil=True)
def clipped_bounds(positions: np.ndarray, indices: np.ndarray, lo: np.ndarray, hi: np.ndarray, cut_axis: int,
                   cut_value: float, out: np.ndarray) -> bool:
    """``out (2, 3)``: the bounding box (lo row, hi row) of the triangles ``indices (k, 3)`` of ``positions``
    clipped to the box ``lo``..``hi`` (3,), pieces lying flat on the cut ``cut_axis = cut_value`` left out
    (``cut_axis`` -1: no cut); returns False (``out`` untouched) when nothing lies in it."""
    found = False
    box_lo = np.full(3, np.inf)
    box_hi = np.full(3, -np.inf)
    polygon = np.empty((12, 3))
    clipped = np.empty((12, 3))
    for t in range(indices.shape[0]):
        n = 3
        for c in range(3):
            polygon[c] = positions[indices[t, c]]
        for plane in range(6):
            axis = plane // 2
            upper = plane % 2 == 1
            bound = hi[axis] if upper else lo[axis]
            m = 0
            for i in range(n):
                a, b = polygon[i], polygon[(i + 1) % n]
                da = (bound - a[axis]) if upper else (a[axis] - bound)  # >= 0: inside
                db = (bound - b[axis]) if upper else (b[axis] - bound)
                if da >= 0.0:
                    clipped[m] = a
                    m += 1
                if (da >= 0.0) != (db >= 0.0):
                    s = da / (da - db)
                    clipped[m] = a + s * (b - a)
                    clipped[m, axis] = bound
                    m += 1
            n = m
            if n == 0:
                break
            polygon[:n] = clipped[:n]
        if n == 0 or _on_the_cut(polygon, n, cut_axis, cut_value):
            continue
        for i in range(n):
            found = True
            for axis in range(3):
                box_lo[axis] = min(box_lo[axis], polygon[i, axis])
                box_hi[axis] = max(box_hi[axis], polygon[i, axis])
    if found:
        out[0] = box_lo
        out[1] = box_hi
    return found
