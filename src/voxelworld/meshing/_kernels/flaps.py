"""Dropping back-to-back triangle pairs (flaps) from a chunk's triangles.

Merges that waive the topology test (a far level of detail that drops features) can fold the surface onto itself:
two quads then give a triangle and its mirror image, the same three vertices wound both ways, enclosing nothing.
Every edge of such a pair is used once each way by the pair, so dropping both leaves every other triangle's edges
paired as before: a closed surface stays closed.
"""

from __future__ import annotations

import numba as nb
import numpy as np


@nb.njit(cache=True, nogil=True)
def drop_mirrored_twins(corners: np.ndarray, triangles: np.ndarray, count: int) -> int:
    """Drop mirrored twins from the first ``count`` triangles: for every set of three vertices, of the triangles
    using it (``corners[t]``: the three vertices of triangle t, any ids >= 0) wound one way and those wound the
    other, the first ``min(both counts)`` of each (in triangle order). ``triangles`` and ``corners`` are compacted
    in place, the kept triangles in their order; returns how many are kept."""
    if count < 2:
        return count
    low = np.empty(count, dtype=np.int64)
    middle = np.empty(count, dtype=np.int64)
    high = np.empty(count, dtype=np.int64)
    forward = np.empty(count, dtype=np.bool_)  # wound low -> middle -> high (or a rotation of it)
    span = 1
    for t in range(count):
        a, b, c = corners[t, 0], corners[t, 1], corners[t, 2]
        lo, hi = min(a, min(b, c)), max(a, max(b, c))
        low[t], high[t], middle[t] = lo, hi, a + b + c - lo - hi
        # Rotate the smallest id first: the winding is forward when the next corner is the middle one.
        following = b if a == lo else (c if b == lo else a)
        forward[t] = following == middle[t]
        span = max(span, hi + 1)
    # Triangles ordered by their vertex set: by (low, middle) first, a stable sort (the key stays below 2**63 for
    # any vertex count a chunk has), then by high within each run by insertion, which keeps the order stable.
    order = np.argsort(low * span + middle, kind="mergesort")
    start = 0
    while start < count:
        end = start + 1
        while end < count and low[order[end]] == low[order[start]] and middle[order[end]] == middle[order[start]]:
            end += 1
        for q in range(start + 1, end):
            t = order[q]
            r = q - 1
            while r >= start and high[order[r]] > high[t]:
                order[r + 1] = order[r]
                r -= 1
            order[r + 1] = t
        start = end
    dropped = np.zeros(count, dtype=np.bool_)
    start = 0
    while start < count:
        end = start + 1
        first = order[start]
        while end < count and low[order[end]] == low[first] and middle[order[end]] == middle[first] \
                and high[order[end]] == high[first]:
            end += 1
        if end - start > 1:
            # Within a run the triangles are in their own order: pair the k-th of one winding with the k-th of the
            # other.
            ahead = behind = 0
            for q in range(start, end):
                if forward[order[q]]:
                    ahead += 1
                else:
                    behind += 1
            pairs = min(ahead, behind)
            ahead = behind = 0
            for q in range(start, end):
                t = order[q]
                if forward[t] and ahead < pairs:
                    dropped[t] = True
                    ahead += 1
                elif not forward[t] and behind < pairs:
                    dropped[t] = True
                    behind += 1
        start = end
    kept = 0
    for t in range(count):
        if dropped[t]:
            continue
        for corner in range(3):
            triangles[kept, corner] = triangles[t, corner]
            corners[kept, corner] = corners[t, corner]
        kept += 1
    return kept
