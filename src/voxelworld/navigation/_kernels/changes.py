"""Kernels that find what changed between two sets of triangles: the rows of one set that the other lacks.

A triangle is a row of words (its corners' and tag's bits); two triangles are the same when every word is. Rows
are hashed (FNV-1a over the words), the other set's hashes sorted, and each row looked up by binary search and
compared word for word with the rows of the same hash, so the answer is exact whatever the hashes collide.
"""

from __future__ import annotations

import numba
import numpy as np

_FNV_OFFSET = np.uint64(14695981039346656037)
_FNV_PRIME = np.uint64(1099511628211)


@numba.njit(cache=True, nogil=True)
def row_hashes(rows: np.ndarray, out: np.ndarray) -> None:
    """FNV-1a hash of each row of ``rows`` (n, w) uint32 into ``out`` (n,) uint64."""
    for r in range(rows.shape[0]):
        h = _FNV_OFFSET
        for c in range(rows.shape[1]):
            h = (h ^ np.uint64(rows[r, c])) * _FNV_PRIME
        out[r] = h


@numba.njit(cache=True, nogil=True)
def rows_missing(rows: np.ndarray, other: np.ndarray, out: np.ndarray) -> None:
    """``out[r]``: whether row ``r`` of ``rows`` (n, w) uint32 equals no row of ``other`` (m, w) uint32."""
    mine = np.empty(rows.shape[0], np.uint64)
    theirs = np.empty(other.shape[0], np.uint64)
    row_hashes(rows, mine)
    row_hashes(other, theirs)
    order = np.argsort(theirs)
    ordered = theirs[order]
    m, w = other.shape[0], rows.shape[1]
    for r in range(rows.shape[0]):
        found = False
        j = np.searchsorted(ordered, mine[r])
        while j < m and ordered[j] == mine[r] and not found:
            o = order[j]
            found = True
            for c in range(w):
                if rows[r, c] != other[o, c]:
                    found = False
                    break
            j += 1
        out[r] = not found


@numba.njit(cache=True, nogil=True)
def _rows_of(positions: np.ndarray, indices: np.ndarray, tags: np.ndarray) -> np.ndarray:
    """:func:`~voxelworld.navigation.rebake.triangle_rows` of float32 ``positions`` and ``tags``."""
    rows = np.empty((indices.shape[0], 10), np.float32)
    for t in range(indices.shape[0]):
        for c in range(3):
            for a in range(3):
                rows[t, 3 * c + a] = positions[indices[t, c], a]
        rows[t, 9] = tags[t]
    return rows.view(np.uint32)


@numba.njit(cache=True, nogil=True)
def changed_triangles_box(positions_a: np.ndarray, positions32_a: np.ndarray, indices_a: np.ndarray, tags_a: np.ndarray,
                          positions_b: np.ndarray, positions32_b: np.ndarray, indices_b: np.ndarray, tags_b: np.ndarray,
                          lo: np.ndarray, hi: np.ndarray) -> int:
    """Widen ``lo``, ``hi`` (3,) float64 to the corners (``positions_*`` float64) of the triangles of each set that
    the other lacks, triangles compared as rows of float32 words (``positions32_*``, ``tags_*`` float32) as
    ``rows_missing`` compares them; returns how many triangles that is."""
    rows_a = _rows_of(positions32_a, indices_a, tags_a)
    rows_b = _rows_of(positions32_b, indices_b, tags_b)
    count = 0
    for rows, other, positions, indices in ((rows_a, rows_b, positions_a, indices_a),
                                            (rows_b, rows_a, positions_b, indices_b)):
        missing = np.empty(rows.shape[0], np.bool_)
        rows_missing(rows, other, missing)
        for t in range(rows.shape[0]):
            if missing[t]:
                count += 1
                for c in range(3):
                    for a in range(3):
                        value = positions[indices[t, c], a]
                        lo[a] = min(lo[a], value)
                        hi[a] = max(hi[a], value)
    return count
