"""Lookup tables of the meshing kernels: cube corners and edges, and the surface patches of each sign case.

A cell's corner ``b`` (0..7) sits at offset ``(b & 1, (b >> 1) & 1, (b >> 2) & 1)`` samples from the cell's
first sample; its sign mask has bit ``b`` set when that sample is solid (``density >= iso``).

Patches. The surface inside a cell may be several pieces. Its crossing edges (edges whose two corners differ)
are joined into patches by the segments the surface draws on each face: a face with two crossing edges joins
them; a face with four (two solid corners diagonally opposite) joins the two edges around each solid corner,
so solids touching only along a face diagonal stay apart. The rule looks only at the face's own corners, so
the two cells sharing a face always agree, which keeps the dual mesh manifold. One vertex per patch.
"""

from __future__ import annotations

import numpy as np

CORNER_OFFSETS = np.array([[b & 1, (b >> 1) & 1, (b >> 2) & 1] for b in range(8)], dtype=np.int64)

# Edges 0-3 run along x, 4-7 along y, 8-11 along z; each joins corner EDGE_CORNERS[e, 0] to EDGE_CORNERS[e, 1].
EDGE_CORNERS = np.array([
    [0, 1], [2, 3], [4, 5], [6, 7],
    [0, 2], [1, 3], [4, 6], [5, 7],
    [0, 4], [1, 5], [2, 6], [3, 7],
], dtype=np.int64)
EDGE_AXIS = np.array([0] * 4 + [1] * 4 + [2] * 4, dtype=np.int64)


def _edge_between(a: int, b: int) -> int:
    for e, (p, q) in enumerate(EDGE_CORNERS):
        if {int(p), int(q)} == {a, b}:
            return e
    raise ValueError((a, b))


def _faces() -> list[list[int]]:
    """The six faces, each as its four corners in cyclic order."""
    faces = []
    for axis in range(3):
        u, v = [a for a in range(3) if a != axis]
        for side in (0, 1):
            cycle = []
            for du, dv in ((0, 0), (1, 0), (1, 1), (0, 1)):
                offset = [0, 0, 0]
                offset[axis], offset[u], offset[v] = side, du, dv
                cycle.append(offset[0] | offset[1] << 1 | offset[2] << 2)
            faces.append(cycle)
    return faces


def _patches(mask: int) -> tuple[int, list[int]]:
    """Number of patches of sign case ``mask`` and each edge's patch (-1: the edge does not cross)."""
    solid = [(mask >> b) & 1 for b in range(8)]
    crossing = [solid[p] != solid[q] for p, q in EDGE_CORNERS]
    parent = list(range(12))

    def find(e: int) -> int:
        while parent[e] != e:
            e = parent[e]
        return e

    def join(a: int, b: int) -> None:
        ra, rb = find(a), find(b)
        if ra != rb:
            parent[max(ra, rb)] = min(ra, rb)

    for cycle in _faces():
        edges = [_edge_between(cycle[n], cycle[(n + 1) % 4]) for n in range(4)]
        crossing_edges = [e for e in edges if crossing[e]]
        if len(crossing_edges) == 2:
            join(*crossing_edges)
        elif len(crossing_edges) == 4:
            for n in range(4):
                if solid[cycle[n]]:  # the segment that cuts this solid corner off
                    join(edges[(n - 1) % 4], edges[n])
    roots: dict[int, int] = {}
    patch_of_edge = []
    for e in range(12):
        if crossing[e]:
            patch_of_edge.append(roots.setdefault(find(e), len(roots)))
        else:
            patch_of_edge.append(-1)
    return len(roots), patch_of_edge


_CASES = [_patches(mask) for mask in range(256)]
PATCH_COUNT = np.array([count for count, _ in _CASES], dtype=np.int64)
EDGE_PATCH = np.array([edges for _, edges in _CASES], dtype=np.int64)


def _edge_from_corner_axis() -> np.ndarray:
    """``[corner, axis]``: the cell edge that leaves ``corner`` along ``axis`` towards +axis (-1: none)."""
    table = np.full((8, 3), -1, dtype=np.int64)
    for e, (p, q) in enumerate(EDGE_CORNERS):
        table[p, EDGE_AXIS[e]] = e
    return table


EDGE_FROM_CORNER_AXIS = _edge_from_corner_axis()
