"""Lookup tables of the meshing kernels: cube corners and edges, and the surface patches of each sign case.

A cell's corner ``b`` (0..7) sits at offset ``(b & 1, (b >> 1) & 1, (b >> 2) & 1)`` samples from the cell's
first sample; its sign mask has bit ``b`` set when that sample is solid (``density >= iso``).

Patches. The surface inside a cell may be several pieces. Its crossing edges (edges whose two corners differ)
are joined into patches by the segments the surface draws on each face: a face with two crossing edges joins
them; a face with four (two solid corners diagonally opposite) joins the two edges around each solid corner,
so solids touching only along a face diagonal stay apart, unless the face is *flipped* (see ``PATCH_COUNT``):
then the segments cut off its empty corners. Both cells sharing a face read it the same way, which keeps the
dual mesh manifold. One vertex per patch.
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


_FACES = _faces()
_FACE_EDGES = [[_edge_between(cycle[n], cycle[(n + 1) % 4]) for n in range(4)] for cycle in _FACES]


def _patches(mask: int, flipped: int) -> tuple[int, list[int], int]:
    """Patches of sign case ``mask`` with the faces in bitmask ``flipped`` read the other way: the number of
    patches, each edge's patch (-1: the edge does not cross), and the bitmask of the ambiguous faces whose two
    segments lie on one patch."""
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

    ambiguous = []
    for face, (cycle, edges) in enumerate(zip(_FACES, _FACE_EDGES)):
        crossing_edges = [e for e in edges if crossing[e]]
        if len(crossing_edges) == 2:
            join(*crossing_edges)
        elif len(crossing_edges) == 4:
            cut_off = 0 if (flipped >> face) & 1 else 1  # the corners each segment cuts off: solid or empty
            segments = [(edges[(n - 1) % 4], edges[n]) for n in range(4) if solid[cycle[n]] == cut_off]
            for a, b in segments:
                join(a, b)
            ambiguous.append((face, segments[0][0]))
            ambiguous.append((face, segments[1][0]))
    roots: dict[int, int] = {}
    patch_of_edge = []
    for e in range(12):
        if crossing[e]:
            patch_of_edge.append(roots.setdefault(find(e), len(roots)))
        else:
            patch_of_edge.append(-1)
    one_patch = 0
    for n in range(0, len(ambiguous), 2):
        (face, a), (_, b) = ambiguous[n], ambiguous[n + 1]
        if find(a) == find(b):
            one_patch |= 1 << face
    return len(roots), patch_of_edge, one_patch


def _cases() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """PATCH_COUNT and EDGE_PATCH over all cases (mask | flipped << 8), and ONE_PATCH_FACES per mask."""
    # int8: the kernels look these up for every crossing, so they had better stay in the cache.
    count = np.zeros(256 * 64, dtype=np.int8)
    edge_patch = np.full((256 * 64, 12), -1, dtype=np.int8)
    one_patch = np.zeros(256, dtype=np.int8)
    flips = np.arange(64)
    for mask in range(256):
        ambiguous = _ambiguous_faces(mask)
        one_patch[mask] = _patches(mask, 0)[2]
        # Only the flips of ambiguous faces matter: work out each of those and copy it to every case it covers.
        for flipped in range(64):
            if flipped & ~ambiguous:
                continue
            patches, edges, _ = _patches(mask, flipped)
            cases = mask | flips[(flips & ambiguous) == flipped] << 8
            count[cases] = patches
            edge_patch[cases] = edges
    return count, edge_patch, one_patch


def _ambiguous_faces(mask: int) -> int:
    """Bitmask of the faces of sign case ``mask`` whose solid corners sit on a diagonal."""
    faces = 0
    for face, cycle in enumerate(_FACES):
        signs = [(mask >> corner) & 1 for corner in cycle]
        if signs in ([1, 0, 1, 0], [0, 1, 0, 1]):
            faces |= 1 << face
    return faces


# A cell's *case* is its sign mask plus, in bits 8-13, the ambiguous faces read the other way: a face is
# flipped when, read the usual way (separating its two solid corners), its two segments would lie on one patch
# in both cells that share it, which would give their two vertices four quads in common (a non-manifold edge).
# Read the other way they part, in both cells at once, since both look at the same face.
PATCH_COUNT, EDGE_PATCH, ONE_PATCH_FACES = _cases()
CASES = 256 * 64


def _edge_from_corner_axis() -> np.ndarray:
    """``[corner, axis]``: the cell edge that leaves ``corner`` along ``axis`` towards +axis (-1: none)."""
    table = np.full((8, 3), -1, dtype=np.int64)
    for e, (p, _q) in enumerate(EDGE_CORNERS):
        table[p, EDGE_AXIS[e]] = e
    return table


EDGE_FROM_CORNER_AXIS = _edge_from_corner_axis()


def _lattice_corners() -> np.ndarray:
    """``[a + 3 b + 9 c]``: for the point (a, b, c) / 2 of a coarse cell's 3x3x3 lattice of half steps, the
    bitmask of the corners of the smallest coarse feature (edge, face, cube) holding it; 0 for a corner."""
    table = np.zeros(27, dtype=np.int64)
    for a in range(3):
        for b in range(3):
            for c in range(3):
                if a != 1 and b != 1 and c != 1:
                    continue
                for corner in range(8):
                    x, y, z = (corner & 1) * 2, ((corner >> 1) & 1) * 2, ((corner >> 2) & 1) * 2
                    if (a == 1 or x == a) and (b == 1 or y == b) and (c == 1 or z == c):
                        table[a + 3 * b + 9 * c] |= 1 << corner
    return table


LATTICE_CORNERS = _lattice_corners()
