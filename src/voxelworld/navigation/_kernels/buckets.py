"""Bucket lists in CSR form: which items (triangles, polygons) overlap each cell of a grid on the x-z plane.

An item ``q`` covers the cells ``spans[q] = (i_first, i_last, k_first, k_last)`` (inclusive; an empty range
when first > last); cell ``(i, k)`` is number ``i * nz + k`` and lists ``members[start[c]:start[c + 1]]``, its
items in ascending order. The callers decide how an x-z box becomes a span (their own slack and clamping).
"""

from __future__ import annotations

import numba
import numpy as np


@numba.njit(cache=True, nogil=True)
def csr_buckets(spans: np.ndarray, nx: int, nz: int) -> tuple[np.ndarray, np.ndarray]:
    """``(start, members)`` of the items whose cell spans are ``spans`` ((n, 4) int64) over ``nx`` x ``nz``
    cells."""
    start = np.zeros(nx * nz + 1, np.int64)
    for q in range(spans.shape[0]):
        for i in range(spans[q, 0], spans[q, 1] + 1):
            for k in range(spans[q, 2], spans[q, 3] + 1):
                start[i * nz + k + 1] += 1
    for c in range(nx * nz):
        start[c + 1] += start[c]
    fill = start[:-1].copy()
    members = np.empty(start[-1], np.int64)
    for q in range(spans.shape[0]):
        for i in range(spans[q, 0], spans[q, 1] + 1):
            for k in range(spans[q, 2], spans[q, 3] + 1):
                members[fill[i * nz + k]] = q
                fill[i * nz + k] += 1
    return start, members
