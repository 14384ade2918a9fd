"""Octree simplification of a chunk's vertices."""

from __future__ import annotations

import math

import numba as nb
import numpy as np

from .arguments import ChunkCells, MergeRule, SimplifyTables, VertexArrays
from .common import QEF_COLUMNS, corner_weight, qef_error, solve_qef

# The most vertices (surface patches) one cell holds (tables.PATCH_COUNT's largest value).
MAX_PATCHES = 4


# --------------------------------------------------------------------------------------------- simplifying
@nb.njit(cache=True, nogil=True, inline="always")
def solid_at(density: np.ndarray, offset: np.ndarray, iso: float, i: int, j: int, k: int) -> bool:
    """Whether sample (i, j, k) of the volume, clamped into ``density`` (whose element [0, 0, 0] is sample
    ``offset``), is solid: an octree node at the volume's far end reaches past its last sample and is clipped
    there."""
    nx, ny, nz = density.shape
    return density[min(i - offset[0], nx - 1), min(j - offset[1], ny - 1), min(k - offset[2], nz - 1)] >= iso


@nb.njit(cache=True, nogil=True)
def topology_safe(density: np.ndarray, offset: np.ndarray, iso: float, bi: int, bj: int, bk: int, size: int,
                  tables: SimplifyTables) -> bool:
    """Whether the coarse cell of ``size`` samples at sample (bi, bj, bk) may carry one vertex for all its
    children (dual contouring's topology test): its sign case has one patch that crosses no face twice, and
    the sign at the middle of every coarse edge, the centre of every coarse face and the centre of the cube
    agrees with a corner's (``tables``: a :class:`SimplifyTables`)."""
    patch_count, one_patch_faces, lattice_corners = tables
    half = size // 2
    mask = 0
    for corner in range(8):
        if solid_at(density, offset, iso, bi + (corner & 1) * size, bj + ((corner >> 1) & 1) * size,
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
        if solid_at(density, offset, iso, bi + a * half, bj + b * half, bk + c * half):
            if mask & corners == 0:
                return False
        elif ~mask & corners == 0:
            return False
    return True


@nb.njit(cache=True, nogil=True)
def trilinear_density(density: np.ndarray, offset: np.ndarray, x: float, y: float, z: float) -> float:
    """The density at (x, y, z) (samples of the volume; ``density``'s element [0, 0, 0] is sample ``offset``),
    interpolated trilinearly; points outside ``density`` take the value of its nearest point (the field is
    continuous, so a sign change between two points means a crossing between). Subtracting the whole offset is
    exact, so a window of the volume that holds the points gives the value the whole volume gives."""
    nx, ny, nz = density.shape
    x, y, z = x - offset[0], y - offset[1], z - offset[2]
    x = min(max(x, 0.0), nx - 1.0)
    y = min(max(y, 0.0), ny - 1.0)
    z = min(max(z, 0.0), nz - 1.0)
    i = min(int(math.floor(x)), max(nx - 2, 0))
    j = min(int(math.floor(y)), max(ny - 2, 0))
    k = min(int(math.floor(z)), max(nz - 2, 0))
    vx, vy, vz = x - i, y - j, z - k
    value = 0.0
    for corner in range(8):
        ci, cj, ck = min(i + (corner & 1), nx - 1), min(j + ((corner >> 1) & 1), ny - 1), \
            min(k + ((corner >> 2) & 1), nz - 1)
        value += corner_weight(corner, vx, vy, vz) * np.float64(density[ci, cj, ck])
    return value


@nb.njit(cache=True, nogil=True)
def surface_within(density: np.ndarray, offset: np.ndarray, iso: float, x: float, y: float, z: float, nx: float,
                   ny: float, nz: float, reach: float) -> bool:
    """Whether the iso surface of the trilinear density passes within ``reach`` samples of (x, y, z): the two
    points ``reach`` away along the unit direction (nx, ny, nz) lie on different sides of it, so the segment
    between them crosses it. A proof, not an estimate: False may miss a surface that lies to the side."""
    ahead = trilinear_density(density, offset, x + reach * nx, y + reach * ny, z + reach * nz) >= iso
    behind = trilinear_density(density, offset, x - reach * nx, y - reach * ny, z - reach * nz) >= iso
    return ahead != behind


@nb.njit(cache=True, nogil=True)
def simplify(density: np.ndarray, offset: np.ndarray, iso: float, cells: ChunkCells, vertices: VertexArrays,
             vertex_count: int, parent: np.ndarray, rule: MergeRule, tables: SimplifyTables) -> int:
    """Octree simplification of one chunk's ``cells`` (a :class:`ChunkCells`), level by level, by ``rule`` (a
    :class:`MergeRule`), with the topology ``tables`` (:class:`SimplifyTables`). ``density`` holds the volume's
    samples from ``offset`` on: the whole volume, or a window that reaches past the chunk's cells by the reach of
    the surface test (the tolerance) and two samples, and to the volume's sides where it ends.

    The vertices of 2x2x2 nodes merge into one when every child is a leaf with at most one vertex, the coarse
    cell passes :func:`topology_safe`, the quadric's RMS error is within ``rule.tolerance`` (samples) and the
    surface provably passes within it of the merged vertex (:func:`surface_within`) -- both waived at levels up
    to ``rule.floor`` --, and the children's materials
    are of at most two kinds (counting each vertex's first ``rule.slots`` materials: 2 for display meshes; 1 for
    collision meshes, whose triangles show only the leading material). At levels up to ``rule.feature_floor``
    (a far level of detail) the topology test and the two-kinds rule are waived too, and a cell with several
    vertices (patches) merges them all: small features (thin walls, tunnels, strata) may vanish, but merges still
    stay within the chunk, so the chunks' meshes still meet without cracks. Only the nodes above the surface
    cells are visited. Merged vertices are appended to ``vertices`` (:class:`VertexArrays`) after ``vertex_count``;
    ``parent[v]`` is the vertex that replaced v (v itself if none). Returns the new vertex count.
    """
    lo, dims, cell_case, cell_first, surface_cells = cells
    positions, normals, vmat, vevals, qef = vertices
    levels, tolerance, slots, kind_by_id, floor, feature_floor = rule
    patch_count = tables.patch_count
    n = vertex_count
    for v in range(n):
        parent[v] = v
    # Whether the chunk's cells run to the volume's last cell on each axis (nodes may be clipped there).
    end_x, end_y, end_z = offset[0] + density.shape[0], offset[1] + density.shape[1], offset[2] + density.shape[2]
    last_x = lo[0] + dims[0] == end_x - 1
    last_y = lo[1] + dims[1] == end_y - 1
    last_z = lo[2] + dims[2] == end_z - 1
    solved = np.empty(4)
    # Up to 8 children; up to 8 cells of up to MAX_PATCHES vertices each where the features floor merges a cell's
    # patches.
    children = np.empty(8 * MAX_PATCHES, dtype=np.int64)
    kinds = np.empty(2 * 8 * MAX_PATCHES, dtype=np.int64)
    weights = np.empty(8 * MAX_PATCHES)
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
        drop_features = level <= feature_floor
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
                    if patches > 1 and drop_features:
                        for p in range(patches):  # the cell's patches merge with the node's other vertices
                            children[count] = cell_first[ca, cb, cc] + p
                            count += 1
                        continue
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
            if not drop_features and not topology_safe(density, offset, iso, bi, bj, bk, size, tables):
                upper[a, b, c] = -2
                continue
            if not drop_features and not kinds_fit(children, count, vmat, vevals, slots, kind_by_id, kinds):
                upper[a, b, c] = -2
                continue
            for col in range(QEF_COLUMNS):
                total = 0.0
                for q in range(count):
                    total += qef[children[q], col]
                qef[n, col] = total
            # Clamped a margin inside the node (solve_qef), so no two nodes' vertices meet on the face they share.
            solve_qef(qef[n], float(bi), float(bj), float(bk), float(min(bi + size, end_x - 1)),
                      float(min(bj + size, end_y - 1)), float(min(bk + size, end_z - 1)), solved)
            if pin_to_volume_sides(end_x, end_y, end_z, bi, bj, bk, size, children, count, positions, solved):
                solved[3] = qef_error(qef[n], solved[0], solved[1], solved[2])
            # Up to the floor (a chunk's level of detail) the shape error does not stop a merge.
            if level > floor and (solved[3] > tolerance or not near_surface(density, offset, iso, children, count,
                                                                            normals, solved, tolerance)):
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


@nb.njit(cache=True, nogil=True, inline="always")
def kinds_fit(children: np.ndarray, count: int, vmat: np.ndarray, vevals: np.ndarray, slots: int,
              kind_by_id: np.ndarray, kinds: np.ndarray) -> bool:
    """Whether the first ``slots`` materials (those with a share) of the ``count`` ``children`` are of at most
    two kinds; ``kinds`` (int64, at least twice ``count`` long) is scratch."""
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
    return nkinds <= 2


@nb.njit(cache=True, nogil=True, inline="always")
def pin_to_volume_sides(end_x: int, end_y: int, end_z: int, bi: int, bj: int, bk: int, size: int,
                        children: np.ndarray, count: int, positions: np.ndarray, solved: np.ndarray) -> bool:
    """Where the node at sample (bi, bj, bk) of ``size`` samples touches the volume's side (sample 0, or the last
    sample before ``end`` on each axis), keep the merged vertex ``solved`` to the outermost of its children on that
    axis, so the mesh still reaches the world's edge. Returns whether it moved."""
    pinned = False
    for axis in range(3):
        base = bi if axis == 0 else (bj if axis == 1 else bk)
        end = end_x if axis == 0 else (end_y if axis == 1 else end_z)
        if base == 0 or base + size >= end - 1:
            edge = positions[children[0], axis]
            for q in range(1, count):
                value = positions[children[q], axis]
                edge = min(edge, value) if base == 0 else max(edge, value)
            solved[axis] = edge
            pinned = True
    return pinned


@nb.njit(cache=True, nogil=True, inline="always")
def near_surface(density: np.ndarray, offset: np.ndarray, iso: float, children: np.ndarray, count: int,
                 normals: np.ndarray, solved: np.ndarray, tolerance: float) -> bool:
    """Whether the surface provably passes within ``tolerance`` (samples) of the merged vertex ``solved``,
    tested along its children's summed normal (:func:`surface_within`). An estimate from the density's slope
    used to stand here and let vertices drift past the tolerance."""
    gx = gy = gz = 0.0
    for q in range(count):
        gx += normals[children[q], 0]
        gy += normals[children[q], 1]
        gz += normals[children[q], 2]
    length = math.sqrt(gx * gx + gy * gy + gz * gz)
    if length == 0.0:
        return False
    return surface_within(density, offset, iso, solved[0], solved[1], solved[2], gx / length, gy / length,
                          gz / length, tolerance)


@nb.njit(cache=True, nogil=True)
def merge_vertices(n: int, children: np.ndarray, count: int, solved: np.ndarray, positions: np.ndarray,
                   normals: np.ndarray, vmat: np.ndarray, vevals: np.ndarray, weights: np.ndarray, best_ids: np.ndarray,
                   best: np.ndarray) -> None:
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
        # A material met before was weighed then: weighing it again gives the same value, which changes nothing
        # (the best two only grow), so each material is weighed once.
        repeated = False
        for earlier in range(slot_q):
            if vmat[children[earlier // 2], earlier % 2] == m:
                repeated = True
                break
        if repeated:
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
