"""Cell cases and dual vertices (the first meshing stage)."""

from __future__ import annotations

import math

import numba as nb
import numpy as np

from .common import CROSSING_MARGIN, axis_difference, corner_weight, solve_qef, top_two_materials


# -------------------------------------------------------------------------------------------------- cells
@nb.njit(cache=True, nogil=True, inline="always")
def sign_mask(density: np.ndarray, iso: float, i: int, j: int, k: int) -> int:
    """Bit b set where corner b of cell (i, j, k) is solid."""
    mask = 0
    for corner in range(8):
        if density[i + (corner & 1), j + ((corner >> 1) & 1), k + ((corner >> 2) & 1)] >= iso:
            mask |= 1 << corner
    return mask


@nb.njit(cache=True, nogil=True)
def flipped_faces(density: np.ndarray, iso: float, i: int, j: int, k: int, mask: int,
                  one_patch_faces: np.ndarray) -> int:
    """The faces of cell (i, j, k) to read the other way: those whose two segments lie on one patch both in
    this cell and in the cell across the face."""
    nx, ny, nz = density.shape
    flipped = 0
    for face in range(6):
        if not (one_patch_faces[mask] >> face) & 1:
            continue
        axis, step = face // 2, 1 if face % 2 else -1
        ni, nj, nk = i + step * (axis == 0), j + step * (axis == 1), k + step * (axis == 2)
        if ni < 0 or nj < 0 or nk < 0 or ni > nx - 2 or nj > ny - 2 or nk > nz - 2:
            continue
        if (one_patch_faces[sign_mask(density, iso, ni, nj, nk)] >> (face ^ 1)) & 1:
            flipped |= 1 << face
    return flipped


@nb.njit(cache=True, nogil=True)
def cell_cases(density: np.ndarray, iso: float, lo: np.ndarray, hi: np.ndarray, patch_count: np.ndarray,
               one_patch_faces: np.ndarray, cell_case: np.ndarray, cell_first: np.ndarray, surface_cells: np.ndarray,
               counts: np.ndarray) -> None:
    """Case of every cell ``lo .. hi - 1`` (see ``tables``) and, for each cell with vertices, the index of its
    first one; the local index of every cell with a vertex goes to ``surface_cells`` in order. ``counts``
    receives (vertices, surface cells)."""
    depth = hi[2] - lo[2]
    rows = hi[1] - lo[1]
    quad = np.empty(depth + 1, dtype=np.uint8)
    # Whether a row of cells (along z) may hold a crossed cell: most rows of a chunk are all solid or all empty.
    mixed = np.empty((hi[0] - lo[0]) * rows, dtype=np.bool_)
    # First the sign masks, row by row and without branches (so the compiler can vectorise): the bits of the
    # four samples (i, j), (i+1, j), (i, j+1), (i+1, j+1) at each k; a cell's mask is its low-z quad plus its
    # high-z quad shifted by four.
    for i in range(lo[0], hi[0]):
        for j in range(lo[1], hi[1]):
            s0, s1 = density[i, j, lo[2]:hi[2] + 1], density[i + 1, j, lo[2]:hi[2] + 1]
            s2, s3 = density[i, j + 1, lo[2]:hi[2] + 1], density[i + 1, j + 1, lo[2]:hi[2] + 1]
            for c in range(depth + 1):
                quad[c] = (np.uint8(s0[c] >= iso) | np.uint8(s1[c] >= iso) << 1
                           | np.uint8(s2[c] >= iso) << 2 | np.uint8(s3[c] >= iso) << 3)
            a, b = i - lo[0], j - lo[1]
            row = cell_case[a, b]
            seen_or, seen_and = 0, 255
            for c in range(depth):
                mask = quad[c] | quad[c + 1] << 4
                row[c] = mask
                seen_or |= mask
                seen_and &= mask
            # A row of only 0 or only 255 cells has no crossed cell (one holding both would have one too).
            mixed[a * rows + b] = seen_or != 0 and seen_and != 255
    # Then the cells the surface crosses, in order: their flipped faces and first vertices.
    count = 0
    cells = 0
    for a in range(hi[0] - lo[0]):
        for b in range(rows):
            if not mixed[a * rows + b]:
                continue
            for c in range(depth):
                mask = cell_case[a, b, c]
                if mask == 0 or mask == 255:
                    continue
                if one_patch_faces[mask]:
                    mask |= flipped_faces(density, iso, lo[0] + a, lo[1] + b, lo[2] + c, mask,
                                          one_patch_faces) << 8
                    cell_case[a, b, c] = mask
                cell_first[a, b, c] = count
                count += patch_count[mask]
                surface_cells[cells, 0], surface_cells[cells, 1], surface_cells[cells, 2] = a, b, c
                cells += 1
    counts[0], counts[1] = count, cells


@nb.njit(cache=True, nogil=True)
def cell_vertices(density: np.ndarray, mat_a: np.ndarray, mat_b: np.ndarray, mix: np.ndarray, iso: float,
                  lo: np.ndarray, hi: np.ndarray, offset: np.ndarray, sharp: bool, planes: bool,
                  patch_count: np.ndarray, edge_patch: np.ndarray, edge_corners: np.ndarray, edge_axis: np.ndarray,
                  cell_case: np.ndarray, cell_first: np.ndarray, surface_cells: np.ndarray, positions: np.ndarray,
                  normals: np.ndarray, vmat: np.ndarray, vevals: np.ndarray, qef: np.ndarray) -> None:
    """Vertex data of every patch of the ``surface_cells`` of ``lo .. hi - 1`` (from :func:`cell_cases`; array
    indices, the arrays' element [0, 0, 0] being sample ``offset`` of the volume: positions and quadrics are in the
    volume's sample coordinates).

    Position: the mean of the patch's edge crossings (surface nets), or with ``sharp`` the minimum of their
    quadric clamped to the cell, a margin inside it (dual contouring; :func:`solve_qef`). Normal: minus the density gradient at the vertex, unit length.
    Materials: the two highest evaluation values at the vertex (:func:`top_two_materials`). The quadric's
    planes (columns 0-9) are summed only with ``planes`` or ``sharp``; the mass point (10-13) always.
    """
    planes = planes or sharp
    nx, ny, nz = density.shape
    d = np.empty(8)
    grads = np.empty(24)
    weights = np.empty(8)
    dens = np.empty(8)
    ma = np.empty(8, dtype=np.uint8)
    mb = np.empty(8, dtype=np.uint8)
    mx = np.empty(8, dtype=np.uint8)
    ids = np.empty(2, dtype=np.int64)
    values = np.empty(2)
    solved = np.empty(4)
    seen = np.empty(16, dtype=np.int64)
    total = np.empty(16)
    prev_a = prev_b = prev_c = -2
    for cell in range(surface_cells.shape[0]):
        a, b, c = surface_cells[cell, 0], surface_cells[cell, 1], surface_cells[cell, 2]
        i, j, k = lo[0] + a, lo[1] + b, lo[2] + c
        gi, gj, gk = i + offset[0], j + offset[1], k + offset[2]  # the cell in the volume
        first = cell_first[a, b, c]
        mask = cell_case[a, b, c]
        start = 0
        if a == prev_a and b == prev_b and c == prev_c + 1:
            # The cell after the last one along z: its lower four corners are the last one's upper four.
            for corner in range(4):
                above = corner + 4
                d[corner], dens[corner] = d[above], dens[above]
                grads[3 * corner], grads[3 * corner + 1], grads[3 * corner + 2] = \
                    grads[3 * above], grads[3 * above + 1], grads[3 * above + 2]
                ma[corner], mb[corner], mx[corner] = ma[above], mb[above], mx[above]
            start = 4
        prev_a, prev_b, prev_c = a, b, c
        for corner in range(start, 8):
            ci, cj, ck = i + (corner & 1), j + ((corner >> 1) & 1), k + ((corner >> 2) & 1)
            d[corner] = density[ci, cj, ck]
            # The sample's gradient, written out here: a call with array arguments costs reference counting.
            middle = np.float64(density[ci, cj, ck])
            grads[3 * corner] = axis_difference(np.float64(density[max(ci - 1, 0), cj, ck]), middle,
                                                np.float64(density[min(ci + 1, nx - 1), cj, ck]), ci == 0,
                                                ci == nx - 1)
            grads[3 * corner + 1] = axis_difference(np.float64(density[ci, max(cj - 1, 0), ck]), middle,
                                                    np.float64(density[ci, min(cj + 1, ny - 1), ck]), cj == 0,
                                                    cj == ny - 1)
            grads[3 * corner + 2] = axis_difference(np.float64(density[ci, cj, max(ck - 1, 0)]), middle,
                                                    np.float64(density[ci, cj, min(ck + 1, nz - 1)]), ck == 0,
                                                    ck == nz - 1)
            dens[corner] = density[ci, cj, ck]
            ma[corner], mb[corner], mx[corner] = mat_a[ci, cj, ck], mat_b[ci, cj, ck], mix[ci, cj, ck]
        uniform = True  # all eight samples name the same two materials (the mixes may differ)
        for corner in range(1, 8):
            if ma[corner] != ma[0] or mb[corner] != mb[0]:
                uniform = False
        for patch in range(patch_count[mask]):
            v = first + patch
            # The quadric, summed in locals and stored once (see QEF_COLUMNS for the layout).
            axx = axy = axz = ayy = ayz = azz = bx = by = bz = cc = 0.0
            sx = sy = sz = count = 0.0
            for e in range(12):
                if edge_patch[mask, e] != patch:
                    continue
                p, q = edge_corners[e, 0], edge_corners[e, 1]
                # Kept off the corners: a sample exactly at iso would put the vertices of all its
                # cells on one point (zero-area triangles).
                t = min(max((iso - d[p]) / (d[q] - d[p]), CROSSING_MARGIN), 1.0 - CROSSING_MARGIN)
                px = gi + (p & 1) + (t if edge_axis[e] == 0 else 0.0)
                py = gj + ((p >> 1) & 1) + (t if edge_axis[e] == 1 else 0.0)
                pz = gk + ((p >> 2) & 1) + (t if edge_axis[e] == 2 else 0.0)
                sx, sy, sz, count = sx + px, sy + py, sz + pz, count + 1.0
                if not planes:
                    continue
                gx = grads[3 * p] + t * (grads[3 * q] - grads[3 * p])
                gy = grads[3 * p + 1] + t * (grads[3 * q + 1] - grads[3 * p + 1])
                gz = grads[3 * p + 2] + t * (grads[3 * q + 2] - grads[3 * p + 2])
                length = math.sqrt(gx * gx + gy * gy + gz * gz)
                if length > 0.0:
                    gx, gy, gz = gx / length, gy / length, gz / length
                else:  # flat density: the edge direction is the best guess of the normal
                    gx = 1.0 if edge_axis[e] == 0 else 0.0
                    gy = 1.0 if edge_axis[e] == 1 else 0.0
                    gz = 1.0 if edge_axis[e] == 2 else 0.0
                dist = gx * px + gy * py + gz * pz
                axx, axy, axz = axx + gx * gx, axy + gx * gy, axz + gx * gz
                ayy, ayz, azz = ayy + gy * gy, ayz + gy * gz, azz + gz * gz
                bx, by, bz, cc = bx + gx * dist, by + gy * dist, bz + gz * dist, cc + dist * dist
            qef[v, 0], qef[v, 1], qef[v, 2], qef[v, 3], qef[v, 4], qef[v, 5] = axx, axy, axz, ayy, ayz, azz
            qef[v, 6], qef[v, 7], qef[v, 8], qef[v, 9] = bx, by, bz, cc
            qef[v, 10], qef[v, 11], qef[v, 12], qef[v, 13] = sx, sy, sz, count
            count = qef[v, 13]
            if sharp:
                solve_qef(qef[v], float(gi), float(gj), float(gk), gi + 1.0, gj + 1.0, gk + 1.0, solved)
                vx, vy, vz = solved[0] - gi, solved[1] - gj, solved[2] - gk
            else:
                vx, vy, vz = qef[v, 10] / count - gi, qef[v, 11] / count - gj, qef[v, 12] / count - gk
            positions[v, 0], positions[v, 1], positions[v, 2] = gi + vx, gj + vy, gk + vz
            gx = gy = gz = 0.0
            for corner in range(8):
                w = corner_weight(corner, vx, vy, vz)
                weights[corner] = w
                gx += w * grads[3 * corner]
                gy += w * grads[3 * corner + 1]
                gz += w * grads[3 * corner + 2]
            length = math.sqrt(gx * gx + gy * gy + gz * gz)
            if length > 0.0:
                normals[v, 0], normals[v, 1], normals[v, 2] = -gx / length, -gy / length, -gz / length
            else:
                normals[v, 0], normals[v, 1], normals[v, 2] = 0.0, 1.0, 0.0
            if uniform and ma[0] != 0 and mb[0] != ma[0]:
                # The common case: one pair of materials around the vertex, only their shares vary.
                value_a = value_b = 0.0
                for corner in range(8):
                    value_a += weights[corner] * dens[corner] * (255.0 - mx[corner])
                    value_b += weights[corner] * dens[corner] * mx[corner]
                value_a /= 65025.0
                value_b /= 65025.0
                if mb[0] == 0 or value_b <= 0.0:
                    vmat[v, 0], vmat[v, 1] = ma[0], 0
                    vevals[v, 0], vevals[v, 1] = value_a, 0.0
                elif value_a <= 0.0:
                    vmat[v, 0], vmat[v, 1] = mb[0], 0
                    vevals[v, 0], vevals[v, 1] = value_b, 0.0
                elif value_b > value_a or (value_b == value_a and mb[0] < ma[0]):
                    vmat[v, 0], vmat[v, 1] = mb[0], ma[0]
                    vevals[v, 0], vevals[v, 1] = value_b, value_a
                else:
                    vmat[v, 0], vmat[v, 1] = ma[0], mb[0]
                    vevals[v, 0], vevals[v, 1] = value_a, value_b
            else:
                top_two_materials(weights, dens, ma, mb, mx, ids, values, seen, total)
                vmat[v, 0], vmat[v, 1] = ids[0], ids[1]
                vevals[v, 0], vevals[v, 1] = values[0], values[1]
