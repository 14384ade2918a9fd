"""Quads around crossing edges, triangles with their material pairs, and gathering a block's cells."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numba as nb
import numpy as np

from .arguments import BlockCells, BlockVertices, QuadOutput, QuadTables
from .common import accumulate

if TYPE_CHECKING:
    Id = int | np.integer  # a material id: a Python int or a numpy integer read from an array


# -------------------------------------------------------------------------------------------------- quads
@nb.njit(cache=True, nogil=True, inline="always")
def judge_one_pair(m0: Id, m1: Id, a0: Id, a1: Id, as0: float, as1: float, b0: Id, b1: Id, bs0: float, bs1: float,
                   c0: Id, c1: Id, cs0: float, cs1: float) -> tuple[bool, int, Id, Id]:
    """:func:`judge_triangle` on scalars for the common case, three vertices naming the materials m0, m1 (in
    either order; vertex materials a0, a1 with shares as0, as1, and so on). Returns (applies, count, id0, id1);
    ``applies`` is False when the vertices name other materials. Scalars only: array arguments cost reference
    counting on every call in the hot loop."""
    first = second = 0.0
    if m0 == 0 or m0 == m1:
        return False, 0, 0, 0
    if a0 == m0 and a1 == m1:
        first, second = first + as0, second + as1
    elif a0 == m1 and a1 == m0:
        first, second = first + as1, second + as0
    else:
        return False, 0, 0, 0
    if b0 == m0 and b1 == m1:
        first, second = first + bs0, second + bs1
    elif b0 == m1 and b1 == m0:
        first, second = first + bs1, second + bs0
    else:
        return False, 0, 0, 0
    if c0 == m0 and c1 == m1:
        first, second = first + cs0, second + cs1
    elif c0 == m1 and c1 == m0:
        first, second = first + cs1, second + cs0
    else:
        return False, 0, 0, 0
    if m1 == 0 or second <= 0.0:
        return True, (1 if first > 0.0 else 0), m0, 0
    if first <= 0.0:
        return True, 1, m1, 0
    if second > first or (second == first and m1 < m0):
        return True, 2, m1, m0
    return True, 2, m0, m1


@nb.njit(cache=True, nogil=True)
def judge_triangle(vmat: np.ndarray, vshares: np.ndarray, a: int, b: int, c: int, ids: np.ndarray, seen: np.ndarray,
                   total: np.ndarray) -> int:
    """The materials of triangle (a, b, c) by judgment value (the sum of the vertices' shares; ``vshares[v]``
    are vertex v's two materials' shares, summing to 1): writes the two highest to ``ids[0:2]`` (highest
    first, lower id on a tie, 0 where none) and returns how many it has. ``seen`` (int64) and ``total``
    (float64), 6 long, are scratch. (:func:`judge_one_pair` does the common case without arrays.)"""
    count = 0
    for corner in range(3):
        v = a if corner == 0 else (b if corner == 1 else c)
        for slot in range(2):
            m = np.int64(vmat[v, slot])
            share = vshares[v, slot]
            if m == 0 or share <= 0.0:
                continue
            count = accumulate(seen, total, count, m, share)
    ids[0] = ids[1] = 0
    best0 = best1 = -1.0
    for q in range(count):
        m, value = seen[q], total[q]
        if value > best0 or (value == best0 and m < ids[0]):
            ids[1], best1 = ids[0], best0
            ids[0], best0 = m, value
        elif value > best1 or (value == best1 and m < ids[1]):
            ids[1], best1 = m, value
    return count


@nb.njit(cache=True, nogil=True, inline="always")
def pair_blend(m0: Id, m1: Id, e0: float, e1: float, first_mat: Id, second_mat: Id) -> tuple[bool, float]:
    """(carries, blend) of a vertex with materials m0, m1 (shares e0, e1) on a triangle of the pair
    (``first_mat``, ``second_mat``; 0 for none): whether it carries either, and the second's share of the pair."""
    m0, m1 = np.int64(m0), np.int64(m1)
    share_first = (e0 if m0 == first_mat else 0.0) + (e1 if m1 == first_mat else 0.0)
    share_second = 0.0
    if second_mat != 0:
        share_second = (e0 if m0 == second_mat else 0.0) + (e1 if m1 == second_mat else 0.0)
    pair_total = share_first + share_second
    if pair_total > 0.0:
        return True, share_second / pair_total
    return False, 0.0


@nb.njit(cache=True, nogil=True, inline="always")
def borrowed_blend(carries: bool, blend: float, carries1: bool, blend1: float, carries2: bool, blend2: float) -> float:
    """A corner's blend: its own when it carries a material of the triangle's pair, else the mean of the blends of
    the other two corners that do (the pair's first material is the triangle's leading one, so one does)."""
    if carries:
        return blend
    if carries1 and carries2:
        return 0.5 * (blend1 + blend2)
    if carries1:
        return blend1
    if carries2:
        return blend2
    return 0.0


@nb.njit(cache=True, nogil=True, inline="always")
def same_point(world: np.ndarray, a: int, b: int) -> bool:
    """Whether vertices a and b are one point in the output: the same vertex, or bit-identical float32 world
    positions (``world``; two merged vertices clamped onto the face their octree nodes share; a mesh welded by
    position makes them one vertex)."""
    if a == b:
        return True
    return world[a, 0] == world[b, 0] and world[a, 1] == world[b, 1] and world[a, 2] == world[b, 2]


@nb.njit(cache=True, nogil=True)
def emit_quads(cells: BlockCells, vertices: BlockVertices, origin: np.ndarray, voxel_size: float, collision: bool,
               out: QuadOutput, tables: QuadTables) -> None:
    """A quad through the (representative) vertices of the four cells around every sign-changing sample edge
    that leaves the first corner of one of the block's own surface cells (``cells``, a :class:`BlockCells`; at
    extended index + 1), split into two triangles wound counter-clockwise seen from outside.

    The diagonal is the one that leaves each triangle at most two materials when one does, else the shorter;
    degenerate triangles (two corners at one point, :func:`same_point`) are dropped, and so is a quad whose
    opposite corners are one point: its boundary then runs along each of its edges once each way, so dropping
    it opens no hole (either split would be two zero-area triangles, or a triangle and its mirror image).
    ``vertices`` (:class:`BlockVertices`) carry each vertex's two materials' shares. Display (``collision`` False): each triangle takes the two materials of
    highest judgment value, and its vertices are emitted once per material pair (``out.materials`` in id order,
    ``out.blend`` the share of the second; a corner carrying neither takes the mean of the other corners'
    blends, with an output vertex of its own per blend). Collision: one material per triangle
    (``out.tri_material``), one output vertex per mesh vertex. ``out`` (:class:`QuadOutput`) receives everything,
    ``out.counts`` (vertices, triangles), and the gathered vertices of each triangle's corners (``out.corners``);
    ``tables`` is a :class:`QuadTables`.
    """
    surface_cells, ext_first, ext_case = cells
    rep, positions, normals, vmat, vshares, world = vertices
    # Each gathered vertex's output position once (float32 metres): the degenerate-triangle tests compare them.
    for g in range(rep.shape[0]):
        for axis in range(3):
            world[g, axis] = origin[axis] + positions[g, axis] * voxel_size
    edge_patch, edge_from_corner_axis = tables
    out_positions, out_normals, out_mat, out_blend, out_triangles, out_tri_material = \
        out.positions, out.normals, out.materials, out.blend, out.triangles, out.tri_material
    head, chain_next, chain_code, counts, out_corners = out.head, out.chain_next, out.chain_code, out.counts, \
        out.corners
    ring = np.empty(4, dtype=np.int64)
    ids = np.empty(2, dtype=np.int64)
    tri = np.empty(6, dtype=np.int64)
    seen = np.empty(6, dtype=np.int64)
    total = np.empty(6)
    cell = np.empty(3, dtype=np.int64)
    n_out = 0
    n_tri = 0
    for cell_index in range(surface_cells.shape[0]):
        i = surface_cells[cell_index, 0] + 1
        j = surface_cells[cell_index, 1] + 1
        k = surface_cells[cell_index, 2] + 1
        mask = ext_case[i, j, k]
        solid = mask & 1 == 1  # the cell's first corner is the edge's first sample
        for axis in range(3):
            if ((mask >> (1 << axis)) & 1 == 1) == solid:
                continue
            u, v = (1, 2) if axis == 0 else ((2, 0) if axis == 1 else (0, 1))
            complete = True
            for corner_of_ring in range(4):
                du = 1 if corner_of_ring == 1 or corner_of_ring == 2 else 0
                dv = 1 if corner_of_ring >= 2 else 0
                cell[0], cell[1], cell[2] = i, j, k
                cell[u] -= 1 - du
                cell[v] -= 1 - dv
                first = ext_first[cell[0], cell[1], cell[2]]
                if first < 0:
                    complete = False  # the volume's border: no closing surface there
                    break
                corner = ((1 - du) << u) | ((1 - dv) << v)
                ring[corner_of_ring] = rep[first + edge_patch[ext_case[cell[0], cell[1], cell[2]],
                                                               edge_from_corner_axis[corner, axis]]]
            if not complete:
                continue
            if not solid:  # outward is -axis: reverse the ring
                ring[1], ring[3] = ring[3], ring[1]
            # Diagonal 0-2 gives (0,1,2), (0,2,3); diagonal 1-3 gives (0,1,3), (1,2,3).
            if same_point(world, ring[0], ring[2]) or same_point(world, ring[1], ring[3]):
                continue  # the quad folded onto a diagonal: both splits degenerate or mirrored
            ok0 = ok1 = True
            r0, r1 = vmat[ring[0], 0], vmat[ring[0], 1]
            same = True  # all four vertices name the same two materials: no triangle can have more
            for q in range(1, 4):
                q0, q1 = vmat[ring[q], 0], vmat[ring[q], 1]
                if not ((q0 == r0 and q1 == r1) or (q0 == r1 and q1 == r0)):
                    same = False
            if not same:
                ok0 = (judge_triangle(vmat, vshares, ring[0], ring[1], ring[2], ids, seen, total) <= 2
                       and judge_triangle(vmat, vshares, ring[0], ring[2], ring[3], ids, seen, total) <= 2)
                ok1 = (judge_triangle(vmat, vshares, ring[0], ring[1], ring[3], ids, seen, total) <= 2
                       and judge_triangle(vmat, vshares, ring[1], ring[2], ring[3], ids, seen, total) <= 2)
            use_first = ok0
            if ok0 == ok1:
                d02 = d13 = 0.0
                for axis2 in range(3):
                    d02 += (positions[ring[0], axis2] - positions[ring[2], axis2]) ** 2
                    d13 += (positions[ring[1], axis2] - positions[ring[3], axis2]) ** 2
                use_first = d02 <= d13
            if use_first:
                tri[0], tri[1], tri[2], tri[3], tri[4], tri[5] = ring[0], ring[1], ring[2], ring[0], \
                    ring[2], ring[3]
            else:
                tri[0], tri[1], tri[2], tri[3], tri[4], tri[5] = ring[0], ring[1], ring[3], ring[1], \
                    ring[2], ring[3]
            for t in range(2):
                a, b, c = tri[3 * t], tri[3 * t + 1], tri[3 * t + 2]
                if same_point(world, a, b) or same_point(world, b, c) or same_point(world, a, c):
                    continue
                applies, _, id0, id1 = judge_one_pair(
                    np.int64(vmat[a, 0]), np.int64(vmat[a, 1]), np.int64(vmat[a, 0]), np.int64(vmat[a, 1]),
                    vshares[a, 0], vshares[a, 1], np.int64(vmat[b, 0]), np.int64(vmat[b, 1]), vshares[b, 0],
                    vshares[b, 1], np.int64(vmat[c, 0]), np.int64(vmat[c, 1]), vshares[c, 0], vshares[c, 1])
                if not applies:
                    judge_triangle(vmat, vshares, a, b, c, ids, seen, total)
                    id0, id1 = ids[0], ids[1]
                second_mat: Id  # an annotation only (no code): numba sees nothing of it
                if collision:
                    first_mat, second_mat, code = id0, 0, 0
                    out_tri_material[n_tri] = id0
                else:
                    first_mat, second_mat = id0, id1
                    if second_mat != 0 and second_mat < first_mat:
                        first_mat, second_mat = second_mat, first_mat
                    code = first_mat * 256 + second_mat
                # Each corner's blend: the second material's share of the pair; a corner that carries neither
                # material takes the mean of the others' blends (0.5 where one is all first, one all second).
                carries_a = carries_b = carries_c = True
                blend_a = blend_b = blend_c = 0.0
                if not collision:
                    carries_a, blend_a = pair_blend(vmat[a, 0], vmat[a, 1], vshares[a, 0], vshares[a, 1],
                                                    first_mat, second_mat)
                    carries_b, blend_b = pair_blend(vmat[b, 0], vmat[b, 1], vshares[b, 0], vshares[b, 1],
                                                    first_mat, second_mat)
                    carries_c, blend_c = pair_blend(vmat[c, 0], vmat[c, 1], vshares[c, 0], vshares[c, 1],
                                                    first_mat, second_mat)
                for corner in range(3):
                    if corner == 0:
                        g, blend = a, borrowed_blend(carries_a, blend_a, carries_b, blend_b, carries_c, blend_c)
                    elif corner == 1:
                        g, blend = b, borrowed_blend(carries_b, blend_b, carries_a, blend_a, carries_c, blend_c)
                    else:
                        g, blend = c, borrowed_blend(carries_c, blend_c, carries_a, blend_a, carries_b, blend_b)
                    stored = np.float32(blend)
                    # The output vertex of g with this material pair and blend: found on g's chain, or added.
                    o = head[g]
                    while o >= 0 and (chain_code[o] != code or out_blend[o] != stored):
                        o = chain_next[o]
                    if o < 0:
                        o = n_out
                        n_out += 1
                        chain_code[o] = code
                        chain_next[o] = head[g]
                        head[g] = o
                        for axis2 in range(3):
                            out_positions[o, axis2] = world[g, axis2]
                            out_normals[o, axis2] = normals[g, axis2]
                        out_mat[o, 0], out_mat[o, 1] = first_mat, second_mat
                        out_blend[o] = stored
                    out_triangles[n_tri, corner] = o
                    out_corners[n_tri, corner] = g
                n_tri += 1
    counts[0], counts[1] = n_out, n_tri


# ------------------------------------------------------------------------------------------ chunk borders
@nb.njit(cache=True, nogil=True)
def gather_cells(surface_cells: np.ndarray, cells_lo: np.ndarray, ext_lo: np.ndarray, ext_hi: np.ndarray,
                 cell_first: np.ndarray, cell_case: np.ndarray, by_cell: bool, rep: np.ndarray, positions: np.ndarray,
                 normals: np.ndarray, vmat: np.ndarray, vevals: np.ndarray, patch_count: np.ndarray,
                 index_of: np.ndarray, ext_first: np.ndarray, ext_case: np.ndarray, f_positions: np.ndarray,
                 f_normals: np.ndarray, f_mat: np.ndarray, f_shares: np.ndarray, f_rep: np.ndarray,
                 f_source: np.ndarray, n_gathered: int) -> int:
    """Copy the chunk's ``surface_cells`` (local indices from cell ``cells_lo``) that lie in the block's extended
    cells ``ext_lo .. ext_hi - 1`` into its extended cell arrays, with the vertices they use and their
    representatives appended to the block's vertex arrays from ``n_gathered`` on (``f_shares``: each vertex's
    evaluation values as shares of their sum). ``cell_first`` and ``cell_case`` are the chunk's per-cell arrays,
    or with ``by_cell`` the values at its surface cells, in their order (a packed surface's; shape (m, 1, 1)).
    ``index_of`` (one slot per vertex of the chunk, all -1) is scratch and is left all -1 again. Returns the new
    vertex count of the block."""
    start = n_gathered
    for cell in range(surface_cells.shape[0]):
        a, b, c = surface_cells[cell, 0], surface_cells[cell, 1], surface_cells[cell, 2]
        ea, eb, ec = cells_lo[0] + a - ext_lo[0], cells_lo[1] + b - ext_lo[1], cells_lo[2] + c - ext_lo[2]
        if ea < 0 or eb < 0 or ec < 0 or ea >= ext_hi[0] - ext_lo[0] or eb >= ext_hi[1] - ext_lo[1] \
                or ec >= ext_hi[2] - ext_lo[2]:
            continue
        if by_cell:
            mask, first = cell_case[cell, 0, 0], cell_first[cell, 0, 0]
        else:
            mask, first = cell_case[a, b, c], cell_first[a, b, c]
        ext_case[ea, eb, ec] = mask
        ext_first[ea, eb, ec] = n_gathered
        for p in range(patch_count[mask]):
            v = first + p
            index_of[v] = n_gathered
            f_source[n_gathered] = v
            n_gathered += 1
    end = n_gathered
    for f in range(start, end):
        r = rep[f_source[f]]
        if index_of[r] < 0:
            index_of[r] = n_gathered
            f_source[n_gathered] = r
            n_gathered += 1
        f_rep[f] = index_of[r]
    for f in range(end, n_gathered):
        f_rep[f] = f  # a representative stands for itself
    for f in range(start, n_gathered):
        v = f_source[f]
        for axis in range(3):
            f_positions[f, axis] = positions[v, axis]
            f_normals[f, axis] = normals[v, axis]
        f_mat[f, 0], f_mat[f, 1] = vmat[v, 0], vmat[v, 1]
        total = vevals[v, 0] + vevals[v, 1]
        if total > 0.0:
            f_shares[f, 0], f_shares[f, 1] = vevals[v, 0] / total, vevals[v, 1] / total
        else:
            f_shares[f, 0], f_shares[f, 1] = 0.0, 0.0
        index_of[v] = -1
    return n_gathered
