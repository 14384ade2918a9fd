"""Numba kernels of the meshing wing: dual vertices, vertex materials, octree simplification, quads.

Coordinates here are *sample coordinates*: the float position ``(i, j, k)`` is voxel sample ``(i, j, k)``; the
public wrappers turn them into world metres. A cell ``(i, j, k)`` spans samples ``i..i+1, j..j+1, k..k+1``.

Per vertex the kernels keep, beside position, normal and materials, the quadric of its surface (the planes
through its edge crossings, normal from the density gradient): ``qef[v] = (Axx, Axy, Axz, Ayy, Ayz, Azz, bx, by,
bz, c, mx, my, mz, count)`` with ``A = sum n n^T``, ``b = sum n (n . p)``, ``c = sum (n . p)^2``, the sum ``m`` of the
crossing points and their ``count``. Quadrics add up, so a merged vertex's quadric is its children's sum.
"""

from __future__ import annotations

import math

import numba as nb
import numpy as np

QEF_COLUMNS = 14
CROSSING_MARGIN = 1.0 / 1024.0  # edge crossings stay this far (samples) from the edge's ends
REGULARISATION = 0.05  # per plane: directions weaker than this stay at the mass point (flat areas, soft edges)


# --------------------------------------------------------------------------------------------- sampling
@nb.njit(cache=True, inline="always")
def axis_difference(low, middle, high, at_start, at_end):
    """Central difference of three samples along an axis, one-sided at the volume's border."""
    if at_start:
        return 0.0 if at_end else high - middle
    if at_end:
        return middle - low
    return 0.5 * (high - low)


@nb.njit(cache=True, inline="always")
def corner_weight(corner, vx, vy, vz):
    """Trilinear weight of cell corner ``corner`` at local position v: product over the axes of |(1 - c) - v|."""
    wx = vx if corner & 1 else 1.0 - vx
    wy = vy if corner & 2 else 1.0 - vy
    wz = vz if corner & 4 else 1.0 - vz
    return wx * wy * wz


@nb.njit(cache=True, inline="always")
def accumulate(seen, total, count, m, value):
    """Add ``value`` to material ``m``'s running total among the ``count`` materials seen so far; returns the
    new count."""
    for q in range(count):
        if seen[q] == m:
            total[q] += value
            return count
    seen[count] = m
    total[count] = value
    return count + 1


@nb.njit(cache=True)
def top_two_materials(weights, density, mat_a, mat_b, mix, ids, values, seen, total):
    """The evaluation of materials at a point from ``n`` surrounding samples (any dimension).

    A sample's material density is ``density / 255 x`` the material's share in it (``mat_b``'s share is
    ``mix / 255``); a material's evaluation value is the sum over the samples of weight x material density.
    Writes the two materials with the highest values to ``ids[0:2]`` / ``values[0:2]`` (highest first, the lower
    id on a tie; id 0 and value 0 where there is none). Material 0 (none) is never evaluated.
    ``seen`` (int64) and ``total`` (float64), at least 2n long, are scratch.
    """
    n = weights.shape[0]
    count = 0
    for s in range(n):
        for slot in range(2):
            m = np.int64(mat_a[s]) if slot == 0 else np.int64(mat_b[s])
            share = (255.0 - mix[s]) / 255.0 if slot == 0 else mix[s] / 255.0
            value = weights[s] * density[s] / 255.0 * share
            if m == 0 or value <= 0.0:
                continue
            count = accumulate(seen, total, count, m, value)
    ids[0] = ids[1] = 0
    values[0] = values[1] = 0.0
    for q in range(count):
        m, value = seen[q], total[q]
        if value > values[0] or (value == values[0] and ids[0] != 0 and m < ids[0]) or ids[0] == 0:
            ids[1], values[1] = ids[0], values[0]
            ids[0], values[0] = m, value
        elif value > values[1] or (value == values[1] and m < ids[1]) or ids[1] == 0:
            ids[1], values[1] = m, value


# ------------------------------------------------------------------------------------------------ quadrics
@nb.njit(cache=True)
def solve_qef(q, lo_x, lo_y, lo_z, hi_x, hi_y, hi_z, out):
    """Minimise the quadric ``q`` (one row) inside the box ``lo .. hi``: ``out[0:3]`` the point, ``out[3]``
    the RMS distance to the planes. Regularised towards the mass point, so flat areas do not drift."""
    count = q[13]
    mx, my, mz = q[10] / count, q[11] / count, q[12] / count
    lam = REGULARISATION * count
    a00, a01, a02, a11, a12, a22 = q[0] + lam, q[1], q[2], q[3] + lam, q[4], q[5] + lam
    # Right-hand side b - A m, so the solution is an offset from the mass point.
    r0 = q[6] - (q[0] * mx + q[1] * my + q[2] * mz)
    r1 = q[7] - (q[1] * mx + q[3] * my + q[4] * mz)
    r2 = q[8] - (q[2] * mx + q[4] * my + q[5] * mz)
    c00 = a11 * a22 - a12 * a12
    c01 = a02 * a12 - a01 * a22
    c02 = a01 * a12 - a02 * a11
    det = a00 * c00 + a01 * c01 + a02 * c02
    dx = dy = dz = 0.0
    if det != 0.0:
        c11 = a00 * a22 - a02 * a02
        c12 = a01 * a02 - a00 * a12
        c22 = a00 * a11 - a01 * a01
        dx = (c00 * r0 + c01 * r1 + c02 * r2) / det
        dy = (c01 * r0 + c11 * r1 + c12 * r2) / det
        dz = (c02 * r0 + c12 * r1 + c22 * r2) / det
    x = min(max(mx + dx, lo_x), hi_x)
    y = min(max(my + dy, lo_y), hi_y)
    z = min(max(mz + dz, lo_z), hi_z)
    out[0], out[1], out[2] = x, y, z
    out[3] = qef_error(q, x, y, z)


@nb.njit(cache=True, inline="always")
def qef_error(q, x, y, z):
    """RMS distance (samples) of the point (x, y, z) to the planes of quadric ``q``."""
    error = (x * (q[0] * x + q[1] * y + q[2] * z) + y * (q[1] * x + q[3] * y + q[4] * z)
             + z * (q[2] * x + q[4] * y + q[5] * z) - 2.0 * (x * q[6] + y * q[7] + z * q[8]) + q[9])
    return math.sqrt(max(error, 0.0) / q[13])


# -------------------------------------------------------------------------------------------------- cells
@nb.njit(cache=True, inline="always")
def sign_mask(density, iso, i, j, k):
    """Bit b set where corner b of cell (i, j, k) is solid."""
    mask = 0
    for corner in range(8):
        if density[i + (corner & 1), j + ((corner >> 1) & 1), k + ((corner >> 2) & 1)] >= iso:
            mask |= 1 << corner
    return mask


@nb.njit(cache=True)
def flipped_faces(density, iso, i, j, k, mask, one_patch_faces):
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
def cell_cases(density, iso, lo, hi, patch_count, one_patch_faces, cell_case, cell_first, surface_cells, counts):
    """Case of every cell ``lo .. hi - 1`` (see ``tables``) and, for each cell with vertices, the index of its
    first one; the local index of every cell with a vertex goes to ``surface_cells`` in order. ``counts``
    receives (vertices, surface cells)."""
    depth = hi[2] - lo[2]
    quad = np.empty(depth + 1, dtype=np.uint16)
    # First the sign masks, row by row and without branches (so the compiler can vectorise): the bits of the
    # four samples (i, j), (i+1, j), (i, j+1), (i+1, j+1) at each k; a cell's mask is its low-z quad plus its
    # high-z quad shifted by four.
    for i in range(lo[0], hi[0]):
        for j in range(lo[1], hi[1]):
            for c in range(depth + 1):
                k = lo[2] + c
                quad[c] = ((density[i, j, k] >= iso) | (density[i + 1, j, k] >= iso) << 1
                           | (density[i, j + 1, k] >= iso) << 2 | (density[i + 1, j + 1, k] >= iso) << 3)
            a, b = i - lo[0], j - lo[1]
            for c in range(depth):
                cell_case[a, b, c] = quad[c] | quad[c + 1] << 4
    # Then the cells the surface crosses, in order: their flipped faces and first vertices.
    count = 0
    cells = 0
    for a in range(hi[0] - lo[0]):
        for b in range(hi[1] - lo[1]):
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
def cell_vertices(density, mat_a, mat_b, mix, iso, lo, hi, sharp, planes, patch_count, edge_patch, edge_corners,
                  edge_axis, cell_case, cell_first, surface_cells, positions, normals, vmat, vevals, qef):
    """Vertex data of every patch of the ``surface_cells`` of ``lo .. hi - 1`` (from :func:`cell_cases`).

    Position: the mean of the patch's edge crossings (surface nets), or with ``sharp`` the minimum of their
    quadric clamped to the cell (dual contouring). Normal: minus the density gradient at the vertex, unit length.
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
    for cell in range(surface_cells.shape[0]):
        a, b, c = surface_cells[cell, 0], surface_cells[cell, 1], surface_cells[cell, 2]
        i, j, k = lo[0] + a, lo[1] + b, lo[2] + c
        first = cell_first[a, b, c]
        mask = cell_case[a, b, c]
        uniform = True  # all eight samples name the same two materials (the mixes may differ)
        for corner in range(8):
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
                px = i + (p & 1) + (t if edge_axis[e] == 0 else 0.0)
                py = j + ((p >> 1) & 1) + (t if edge_axis[e] == 1 else 0.0)
                pz = k + ((p >> 2) & 1) + (t if edge_axis[e] == 2 else 0.0)
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
                solve_qef(qef[v], float(i), float(j), float(k), i + 1.0, j + 1.0, k + 1.0, solved)
                vx, vy, vz = solved[0] - i, solved[1] - j, solved[2] - k
            else:
                vx, vy, vz = qef[v, 10] / count - i, qef[v, 11] / count - j, qef[v, 12] / count - k
            positions[v, 0], positions[v, 1], positions[v, 2] = i + vx, j + vy, k + vz
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


# --------------------------------------------------------------------------------------------- simplifying
@nb.njit(cache=True, inline="always")
def solid_at(density, iso, i, j, k):
    """Whether sample (i, j, k), clamped into the volume, is solid: an octree node at the volume's far end
    reaches past its last sample and is clipped there."""
    nx, ny, nz = density.shape
    return density[min(i, nx - 1), min(j, ny - 1), min(k, nz - 1)] >= iso


@nb.njit(cache=True)
def topology_safe(density, iso, bi, bj, bk, size, patch_count, one_patch_faces, lattice_corners):
    """Whether the coarse cell of ``size`` samples at sample (bi, bj, bk) may carry one vertex for all its
    children (dual contouring's topology test): its sign case has one patch that crosses no face twice, and
    the sign at the middle of every coarse edge, the centre of every coarse face and the centre of the cube
    agrees with a corner's."""
    half = size // 2
    mask = 0
    for corner in range(8):
        if solid_at(density, iso, bi + (corner & 1) * size, bj + ((corner >> 1) & 1) * size,
                    bk + ((corner >> 2) & 1) * size):
            mask |= 1 << corner
    if patch_count[mask] != 1 or one_patch_faces[mask]:
        # Not one patch; or one patch that crosses a face twice, which a single vertex would pinch where it
        # meets the next node (a tunnel through the face: see tables).
        return False
    # Every point of the 3x3x3 lattice at half steps that is not a corner (edge middles, face and cube
    # centres) must agree with a corner of the smallest coarse feature holding it (tables.LATTICE_CORNERS).
    for point in range(27):
        corners = lattice_corners[point]
        if corners == 0:
            continue  # a corner itself
        a, b, c = point % 3, (point // 3) % 3, point // 9
        if solid_at(density, iso, bi + a * half, bj + b * half, bk + c * half):
            if mask & corners == 0:
                return False
        elif ~mask & corners == 0:
            return False
    return True


@nb.njit(cache=True)
def surface_distance(density, iso, x, y, z):
    """Distance (samples) from (x, y, z) to the iso surface, estimated from the trilinear density and gradient."""
    nx, ny, nz = density.shape
    i = min(max(int(math.floor(x)), 0), nx - 2)
    j = min(max(int(math.floor(y)), 0), ny - 2)
    k = min(max(int(math.floor(z)), 0), nz - 2)
    vx, vy, vz = x - i, y - j, z - k
    value = gx = gy = gz = 0.0
    for corner in range(8):
        s = np.float64(density[i + (corner & 1), j + ((corner >> 1) & 1), k + ((corner >> 2) & 1)])
        value += corner_weight(corner, vx, vy, vz) * s
        sx = 1.0 if corner & 1 else -1.0
        sy = 1.0 if corner & 2 else -1.0
        sz = 1.0 if corner & 4 else -1.0
        gx += sx * s * (vy if corner & 2 else 1 - vy) * (vz if corner & 4 else 1 - vz)
        gy += sy * s * (vx if corner & 1 else 1 - vx) * (vz if corner & 4 else 1 - vz)
        gz += sz * s * (vx if corner & 1 else 1 - vx) * (vy if corner & 2 else 1 - vy)
    slope = math.sqrt(gx * gx + gy * gy + gz * gz)
    if slope == 0.0:
        return np.inf
    return abs(value - iso) / slope


@nb.njit(cache=True, nogil=True)
def simplify(density, iso, lo, dims, levels, tolerance, slots, patch_count, one_patch_faces, lattice_corners,
             kind_by_id, cell_case, cell_first, surface_cells, positions, normals, vmat, vevals, qef, vertex_count,
             parent):
    """Octree simplification of one chunk's cells (``dims`` cells from cell ``lo``), level by level.

    The vertices of 2x2x2 nodes merge into one when every child is a leaf with at most one vertex, the coarse
    cell passes :func:`topology_safe`, the quadric's RMS error and the merged vertex's distance to the surface
    are within ``tolerance`` (samples), and the children's materials are of at most two kinds (counting each
    vertex's first ``slots`` materials: 2 for display meshes; 1 for collision meshes, whose triangles show
    only the leading material). Only the nodes above ``surface_cells`` are visited. Merged vertices are
    appended after ``vertex_count``; ``parent[v]`` is the vertex that replaced v (v itself if none). Returns the
    new vertex count.
    """
    n = vertex_count
    for v in range(n):
        parent[v] = v
    # Whether the chunk's cells run to the volume's last cell on each axis (nodes may be clipped there).
    last_x = lo[0] + dims[0] == density.shape[0] - 1
    last_y = lo[1] + dims[1] == density.shape[1] - 1
    last_z = lo[2] + dims[2] == density.shape[2] - 1
    solved = np.empty(4)
    children = np.empty(8, dtype=np.int64)
    kinds = np.empty(16, dtype=np.int64)
    weights = np.empty(8)
    best_ids = np.empty(2, dtype=np.int64)
    best = np.empty(2)
    # The nodes of the level below that hold a vertex or block their parent: at level 0, the surface cells.
    below = surface_cells.copy()
    n_below = below.shape[0]
    state = np.empty((1, 1, 1), dtype=np.int64)  # the level below's nodes: -1 empty, -2 blocked, else vertex
    size = 1
    for level in range(1, levels + 1):
        size *= 2
        sx, sy, sz = (dims[0] + size - 1) // size, (dims[1] + size - 1) // size, (dims[2] + size - 1) // size
        upper = np.full((sx, sy, sz), -1, dtype=np.int64)
        listed = np.zeros((sx, sy, sz), dtype=np.uint8)
        nodes = np.empty((n_below, 3), dtype=np.int64)
        n_nodes = 0
        for q in range(n_below):
            a, b, c = below[q, 0] // 2, below[q, 1] // 2, below[q, 2] // 2
            if listed[a, b, c] == 0:
                listed[a, b, c] = 1
                nodes[n_nodes, 0], nodes[n_nodes, 1], nodes[n_nodes, 2] = a, b, c
                n_nodes += 1
        half = size // 2
        for node in range(n_nodes):
            a, b, c = nodes[node, 0], nodes[node, 1], nodes[node, 2]
            # Past the chunk's cells: into the next chunk (merges never cross chunk borders), or past the
            # volume's last cell, where the node is clipped.
            blocked = (((a + 1) * size > dims[0] and not last_x) or ((b + 1) * size > dims[1] and not last_y)
                       or ((c + 1) * size > dims[2] and not last_z))
            count = 0
            for child in range(8):
                ca, cb, cc = 2 * a + (child & 1), 2 * b + ((child >> 1) & 1), 2 * c + ((child >> 2) & 1)
                if ca * half >= dims[0] or cb * half >= dims[1] or cc * half >= dims[2]:
                    continue  # no such child
                if level == 1:
                    patches = patch_count[cell_case[ca, cb, cc]]
                    s = -1 if patches == 0 else (cell_first[ca, cb, cc] if patches == 1 else -2)
                else:
                    s = state[ca, cb, cc]
                if s == -2:
                    blocked = True
                elif s >= 0:
                    children[count] = s
                    count += 1
            if count == 0:
                upper[a, b, c] = -2 if blocked else -1
                continue
            if blocked:
                upper[a, b, c] = -2
                continue
            bi, bj, bk = lo[0] + a * size, lo[1] + b * size, lo[2] + c * size
            if not topology_safe(density, iso, bi, bj, bk, size, patch_count, one_patch_faces,
                                 lattice_corners):
                upper[a, b, c] = -2
                continue
            # Material kinds of the children (each slot with a share).
            nkinds = 0
            for q in range(count):
                for slot in range(slots):
                    m = vmat[children[q], slot]
                    if m == 0 or vevals[children[q], slot] <= 0.0:
                        continue
                    kind = kind_by_id[m]
                    known = False
                    for r in range(nkinds):
                        if kinds[r] == kind:
                            known = True
                    if not known:
                        kinds[nkinds] = kind
                        nkinds += 1
            if nkinds > 2:
                upper[a, b, c] = -2
                continue
            for col in range(QEF_COLUMNS):
                total = 0.0
                for q in range(count):
                    total += qef[children[q], col]
                qef[n, col] = total
            nx, ny, nz = density.shape
            solve_qef(qef[n], float(bi), float(bj), float(bk), float(min(bi + size, nx - 1)),
                      float(min(bj + size, ny - 1)), float(min(bk + size, nz - 1)), solved)
            # Where the surface runs into the volume's side, the merged vertex keeps to the outermost
            # of its children there, so the mesh still reaches the world's edge.
            pinned = False
            for axis in range(3):
                base = bi if axis == 0 else (bj if axis == 1 else bk)
                if base == 0 or base + size >= density.shape[axis] - 1:
                    edge = positions[children[0], axis]
                    for q in range(1, count):
                        value = positions[children[q], axis]
                        edge = min(edge, value) if base == 0 else max(edge, value)
                    solved[axis] = edge
                    pinned = True
            if pinned:
                solved[3] = qef_error(qef[n], solved[0], solved[1], solved[2])
            if solved[3] > tolerance or surface_distance(density, iso, solved[0], solved[1],
                                                         solved[2]) > tolerance:
                upper[a, b, c] = -2
                continue
            merge_vertices(n, children, count, solved, positions, normals, vmat, vevals, weights, best_ids,
                           best)
            for q in range(count):
                parent[children[q]] = n
            parent[n] = n
            upper[a, b, c] = n
            n += 1
        n_below = 0
        for node in range(n_nodes):
            if upper[nodes[node, 0], nodes[node, 1], nodes[node, 2]] != -1:
                nodes[n_below] = nodes[node]
                n_below += 1
        below = nodes
        state = upper
    for v in range(n):  # point every vertex at its final representative
        r = v
        while parent[r] != r:
            r = parent[r]
        parent[v] = r
    return n


@nb.njit(cache=True)
def merge_vertices(n, children, count, solved, positions, normals, vmat, vevals, weights, best_ids, best):
    """Vertex ``n`` at ``solved[0:3]`` replaces ``children[:count]``: normal the normalised sum of theirs,
    materials the two highest distance-weighted evaluation values (weight 1 / (0.5 + distance in samples))."""
    positions[n, 0], positions[n, 1], positions[n, 2] = solved[0], solved[1], solved[2]
    nx = ny = nz = 0.0
    total_weight = 0.0
    for q in range(count):
        v = children[q]
        nx += normals[v, 0]
        ny += normals[v, 1]
        nz += normals[v, 2]
        dx, dy, dz = positions[v, 0] - solved[0], positions[v, 1] - solved[1], positions[v, 2] - solved[2]
        weights[q] = 1.0 / (0.5 + math.sqrt(dx * dx + dy * dy + dz * dz))
        total_weight += weights[q]
    length = math.sqrt(nx * nx + ny * ny + nz * nz)
    if length > 0.0:
        normals[n, 0], normals[n, 1], normals[n, 2] = nx / length, ny / length, nz / length
    else:
        normals[n, 0], normals[n, 1], normals[n, 2] = normals[children[0], 0], normals[children[0], 1], \
            normals[children[0], 2]
    best_ids[0] = best_ids[1] = 0
    best[0] = best[1] = 0.0
    for slot_q in range(2 * count):
        m = vmat[children[slot_q // 2], slot_q % 2]
        if m == 0:
            continue
        value = 0.0
        for q in range(count):
            for slot in range(2):
                if vmat[children[q], slot] == m:
                    value += weights[q] * vevals[children[q], slot]
        value /= total_weight
        if m == best_ids[0] or m == best_ids[1]:
            continue
        if best_ids[0] == 0 or value > best[0] or (value == best[0] and m < best_ids[0]):
            best_ids[1], best[1] = best_ids[0], best[0]
            best_ids[0], best[0] = m, value
        elif best_ids[1] == 0 or value > best[1] or (value == best[1] and m < best_ids[1]):
            best_ids[1], best[1] = m, value
    vmat[n, 0], vmat[n, 1] = best_ids[0], best_ids[1]
    vevals[n, 0], vevals[n, 1] = best[0], best[1]


# -------------------------------------------------------------------------------------------------- quads
@nb.njit(cache=True, inline="always")
def judge_one_pair(m0, m1, a0, a1, as0, as1, b0, b1, bs0, bs1, c0, c1, cs0, cs1):
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


@nb.njit(cache=True)
def judge_triangle(vmat, vshares, a, b, c, ids, seen, total):
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


@nb.njit(cache=True, nogil=True)
def emit_quads(surface_cells, ext_first, ext_case, edge_patch, edge_from_corner_axis, rep, positions, normals, vmat,
               vshares, origin, voxel_size, collision, head, chain_next, chain_code, out_positions, out_normals,
               out_mat, out_blend, out_triangles, out_tri_material, counts):
    """A quad through the (representative) vertices of the four cells around every sign-changing sample edge
    that leaves the first corner of one of the chunk's own ``surface_cells`` (at extended index + 1), split
    into two triangles wound counter-clockwise seen from outside.

    The diagonal is the one that leaves each triangle at most two materials when one does, else the shorter;
    degenerate triangles (a repeated vertex) are dropped. ``vshares``: each vertex's two materials' shares. Display (``collision`` False): each triangle takes the
    two materials of highest judgment value, and its vertices are emitted once per material pair (``out_mat``
    in id order, ``out_blend`` the share of the second). Collision: one material per triangle
    (``out_tri_material``), one output vertex per mesh vertex. ``counts`` receives (vertices, triangles).
    """
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
            if ring[0] == ring[2] or ring[1] == ring[3]:
                continue  # the quad folded onto a diagonal: both triangles degenerate
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
                if a == b or b == c or a == c:
                    continue
                applies, _, id0, id1 = judge_one_pair(
                    np.int64(vmat[a, 0]), np.int64(vmat[a, 1]), np.int64(vmat[a, 0]), np.int64(vmat[a, 1]),
                    vshares[a, 0], vshares[a, 1], np.int64(vmat[b, 0]), np.int64(vmat[b, 1]), vshares[b, 0],
                    vshares[b, 1], np.int64(vmat[c, 0]), np.int64(vmat[c, 1]), vshares[c, 0], vshares[c, 1])
                if not applies:
                    judge_triangle(vmat, vshares, a, b, c, ids, seen, total)
                    id0, id1 = ids[0], ids[1]
                if collision:
                    first_mat, second_mat, code = id0, 0, 0
                    out_tri_material[n_tri] = id0
                else:
                    first_mat, second_mat = id0, id1
                    if second_mat != 0 and second_mat < first_mat:
                        first_mat, second_mat = second_mat, first_mat
                    code = first_mat * 256 + second_mat
                for corner in range(3):
                    g = a if corner == 0 else (b if corner == 1 else c)
                    # The output vertex of g with this material pair: found on g's chain, or added.
                    o = head[g]
                    while o >= 0 and chain_code[o] != code:
                        o = chain_next[o]
                    if o < 0:
                        o = n_out
                        n_out += 1
                        chain_code[o] = code
                        chain_next[o] = head[g]
                        head[g] = o
                        for axis2 in range(3):
                            out_positions[o, axis2] = origin[axis2] + positions[g, axis2] * voxel_size
                            out_normals[o, axis2] = normals[g, axis2]
                        out_mat[o, 0], out_mat[o, 1] = first_mat, second_mat
                        # The blend is the second material's share of the pair.
                        m0, m1 = np.int64(vmat[g, 0]), np.int64(vmat[g, 1])
                        e0, e1 = vshares[g, 0], vshares[g, 1]
                        share_first = (e0 if m0 == first_mat else 0.0) + (e1 if m1 == first_mat else 0.0)
                        share_second = 0.0
                        if second_mat != 0:
                            share_second = (e0 if m0 == second_mat else 0.0) + (e1 if m1 == second_mat else 0.0)
                        pair_total = share_first + share_second
                        out_blend[o] = share_second / pair_total if pair_total > 0.0 else 0.0
                    out_triangles[n_tri, corner] = o
                n_tri += 1
    counts[0], counts[1] = n_out, n_tri


# ------------------------------------------------------------------------------------------ chunk borders
@nb.njit(cache=True, nogil=True)
def gather_cells(surface_cells, cells_lo, ext_lo, ext_hi, cell_first, cell_case, rep, positions, normals, vmat, vevals,
                 patch_count, index_of, ext_first, ext_case, f_positions, f_normals, f_mat, f_shares, f_rep, f_source,
                 n_gathered):
    """Copy the chunk's ``surface_cells`` (local indices from cell ``cells_lo``) that lie in the block's extended
    cells ``ext_lo .. ext_hi - 1`` into its extended cell arrays, with the vertices they use and their
    representatives appended to the block's
    vertex arrays from ``n_gathered`` on (``f_shares``: each vertex's evaluation values as shares of their sum). ``index_of`` (one slot per vertex of the chunk, all -1) is scratch and
    is left all -1 again. Returns the new vertex count of the block."""
    start = n_gathered
    for cell in range(surface_cells.shape[0]):
        a, b, c = surface_cells[cell, 0], surface_cells[cell, 1], surface_cells[cell, 2]
        ea, eb, ec = cells_lo[0] + a - ext_lo[0], cells_lo[1] + b - ext_lo[1], cells_lo[2] + c - ext_lo[2]
        if ea < 0 or eb < 0 or ec < 0 or ea >= ext_hi[0] - ext_lo[0] or eb >= ext_hi[1] - ext_lo[1] \
                or ec >= ext_hi[2] - ext_lo[2]:
            continue
        mask = cell_case[a, b, c]
        ext_case[ea, eb, ec] = mask
        first = cell_first[a, b, c]
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


# ---------------------------------------------------------------------------------------- incremental work
@nb.njit(cache=True, nogil=True)
def take_changes(current, seen, lo, hi, box):
    """Copy ``current`` into ``seen`` over the sample box ``lo .. hi - 1`` and widen ``box`` (inclusive corners,
    ``box[0] > box[1]`` when empty) to every sample where they differed. Returns whether any did."""
    changed = False
    for i in range(lo[0], hi[0]):
        for j in range(lo[1], hi[1]):
            for k in range(lo[2], hi[2]):
                if current[i, j, k] != seen[i, j, k]:
                    seen[i, j, k] = current[i, j, k]
                    changed = True
                    box[0, 0], box[1, 0] = min(box[0, 0], i), max(box[1, 0], i)
                    box[0, 1], box[1, 1] = min(box[0, 1], j), max(box[1, 1], j)
                    box[0, 2], box[1, 2] = min(box[0, 2], k), max(box[1, 2], k)
    return changed


@nb.njit(cache=True, inline="always")
def same_vertex(a_positions, a_normals, a_mat, a_evals, va, b_positions, b_normals, b_mat, b_evals, vb):
    for axis in range(3):
        if a_positions[va, axis] != b_positions[vb, axis] or a_normals[va, axis] != b_normals[vb, axis]:
            return False
    return (a_mat[va, 0] == b_mat[vb, 0] and a_mat[va, 1] == b_mat[vb, 1]
            and a_evals[va, 0] == b_evals[vb, 0] and a_evals[va, 1] == b_evals[vb, 1])


@nb.njit(cache=True, nogil=True)
def top_layer_changes(axis, patch_count, a_case, a_first, a_rep, a_positions, a_normals, a_mat, a_evals,
                      b_case, b_first, b_rep, b_positions, b_normals, b_mat, b_evals, changed):
    """``changed[p, q]`` = whether the cell at (p, q) of the top cell layer along ``axis`` (the other two axes
    in order) looks different to a neighbour in surface b than in surface a: its case, or the data of the
    vertex standing for any of its patches."""
    dims = a_case.shape
    top = dims[axis] - 1
    for p in range(changed.shape[0]):
        for q in range(changed.shape[1]):
            if axis == 0:
                i, j, k = top, p, q
            elif axis == 1:
                i, j, k = p, top, q
            else:
                i, j, k = p, q, top
            mask = a_case[i, j, k]
            differs = mask != b_case[i, j, k]
            if not differs:
                for patch in range(patch_count[mask]):
                    va = a_rep[a_first[i, j, k] + patch]
                    vb = b_rep[b_first[i, j, k] + patch]
                    if not same_vertex(a_positions, a_normals, a_mat, a_evals, va, b_positions, b_normals, b_mat,
                                       b_evals, vb):
                        differs = True
                        break
            changed[p, q] = differs
