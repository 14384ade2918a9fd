"""Vertex and triangle materials: the issue's worked examples, plain-Python references of the documented
formulas on volumes of mixed materials, and the rules every display and collision triangle keeps.

Vertex materials (issue #3): for the samples around a vertex at local position v, weight = product over the axes
of |(1 - c) - v|; a material's density in a sample = density / 255 x its share there (mat_b's share mix / 255);
its evaluation value = sum of weight x material density. The vertex keeps the two highest, blend = the second's
share of their sum. A triangle's judgment value of a material = the sum over its corners of the corner's share
of it; display triangles take the two highest, collision triangles the highest. A display corner that carries
neither of its triangle's two materials takes the mean of the other corners' blends.
"""

from __future__ import annotations

import numpy as np
import pytest

from voxelworld.meshing import MeshOptions, collision_mesh_volume, dual_vertices, mesh_volume
from voxelworld.meshing._kernels import corner_weight, judge_triangle, top_two_materials
from voxelworld.terrain import MaterialTable, VoxelVolume

from . import builders as B
from . import topology as T

TABLE = MaterialTable.default()
GRASS, SOIL, SAND = TABLE.id_of("grass"), TABLE.id_of("soil"), TABLE.id_of("sand")
MIXED_IDS = [TABLE.id_of(name) for name in ("grass", "soil", "sand", "rock", "iron", "lava")]


# ------------------------------------------------------------------------------------------ worked examples
# The design's 2-D worked example: a vertex at (0.8, 0.4) in a square of four samples. The design gives the corner
# weights and the evaluation values; the corners' contents here are read back from those figures, each a whole
# sample or a plain two-material mix: grass only in corner 0 (0.096 = 0.12 x 0.8), soil only in corner 3
# (0.1152 = 0.32 x 0.6 x 0.6), sand making up the rest (0.024 + 0.064 + 0.0768), the 0.48 corner air.
# (corner, density / 255, mat_a, mat_b, mat_b's share)
DESIGN_CORNERS = [
    (0, 1.0, GRASS, SAND, 0.2),  # (0, 0): full, grass 0.8 and sand 0.2
    (1, 0.0, 0, 0, 0.0),  # (1, 0): air
    (2, 0.8, SAND, 0, 0.0),  # (0, 1): sand at density 0.8
    (3, 0.6, SAND, SOIL, 0.6),  # (1, 1): density 0.6, sand 0.4 and soil 0.6
]


def test_worked_example_vertex_materials_in_2d():
    """The design's 2-D example: at the vertex the corner weights are 0.12 / 0.48 / 0.08 / 0.32, the evaluation
    values sand 0.1648, soil 0.1152 and grass 0.096, so the vertex is sand and soil, sand's share about 0.59."""
    # A 2-D square is the z = 0 face of the cell (vz = 0): the weights come from the code.
    weights = np.array([corner_weight(corner, 0.8, 0.4, 0.0) for corner in range(4)])
    np.testing.assert_allclose(weights, [0.12, 0.48, 0.08, 0.32], rtol=1e-12)
    density = np.array([255 * d for _, d, _, _, _ in DESIGN_CORNERS], dtype=np.float64)
    mat_a = np.array([a for _, _, a, _, _ in DESIGN_CORNERS], dtype=np.uint8)
    mat_b = np.array([b for _, _, _, b, _ in DESIGN_CORNERS], dtype=np.uint8)
    mix = np.array([255 * share for _, _, _, _, share in DESIGN_CORNERS], dtype=np.float64)
    ids, values = np.zeros(2, dtype=np.int64), np.zeros(2)
    seen, total = np.zeros(8, dtype=np.int64), np.zeros(8)
    top_two_materials(weights, density, mat_a, mat_b, mix, ids, values, seen, total)
    assert ids.tolist() == [SAND, SOIL]
    np.testing.assert_allclose(values, [0.1648, 0.1152], rtol=1e-12)
    # grass (0.096) is the third: it was evaluated and lost.
    evaluated = {m: value for m, value in zip(seen[:3].tolist(), total[:3].tolist())}
    assert evaluated == pytest.approx({SAND: 0.1648, GRASS: 0.096, SOIL: 0.1152}, rel=1e-12)
    share = values[0] / values.sum()
    assert round(share, 2) == 0.59


def test_worked_example_polygon_materials():
    """The issue's polygon: corners grass 0.8 / earth 0.2, grass 0.5 / sand 0.5, sand 0.7 / earth 0.3 give
    judgment values grass 1.3, sand 1.2, earth 0.5: the display pair is grass and sand, the collision material
    grass."""
    earth = SOIL
    vmat = np.array([[GRASS, earth], [GRASS, SAND], [SAND, earth]], dtype=np.uint8)
    vevals = np.array([[0.8, 0.2], [0.5, 0.5], [0.7, 0.3]])  # each vertex's shares
    ids, seen, total = np.zeros(2, dtype=np.int64), np.zeros(6, dtype=np.int64), np.zeros(6)
    count = judge_triangle(vmat, vevals, 0, 1, 2, ids, seen, total)
    assert count == 3
    judged = dict(zip(seen[:count].tolist(), total[:count].tolist()))
    assert judged == pytest.approx({GRASS: 1.3, SAND: 1.2, earth: 0.5}, rel=1e-12)
    assert ids.tolist() == [GRASS, SAND]  # display pair; the collision material is the first
    # Reordering the corners changes nothing.
    assert judge_triangle(vmat, vevals, 2, 0, 1, ids, seen, total) == 3
    assert ids.tolist() == [GRASS, SAND]


def test_judge_triangle_counts_materials_and_breaks_ties_by_lower_id():
    vmat = np.array([[SAND, 0], [SOIL, 0], [SAND, SOIL]], dtype=np.uint8)
    vevals = np.array([[0.3, 0.0], [0.9, 0.0], [0.2, 0.2]])
    ids, seen, total = np.zeros(2, dtype=np.int64), np.zeros(6, dtype=np.int64), np.zeros(6)
    # sand 1 + 0.5 = 1.5, soil 1 + 0.5 = 1.5: a tie, the lower id (soil) first.
    assert judge_triangle(vmat, vevals, 0, 1, 2, ids, seen, total) == 2
    assert ids.tolist() == [SOIL, SAND]
    # A single material, with a second slot of zero value that must not count.
    vmat = np.array([[GRASS, SAND]] * 3, dtype=np.uint8)
    vevals = np.array([[0.5, 0.0]] * 3)
    assert judge_triangle(vmat, vevals, 0, 1, 2, ids, seen, total) == 1
    assert ids.tolist() == [GRASS, 0]


# ------------------------------------------------------------------------------- plain-Python references
def mixed_volume(seed: int, chunk_size: int = B.CHUNK) -> VoxelVolume:
    """A blob whose every voxel has random materials in both slots and a random mix."""
    rng = np.random.default_rng(seed)
    volume = B.blob_volume(seed, chunk_size=chunk_size)
    shape = volume.shape
    volume.mat_a[...] = rng.choice(MIXED_IDS, size=shape)
    volume.mat_b[...] = rng.choice([0] + MIXED_IDS, size=shape)
    volume.mix[...] = np.where(volume.mat_b == 0, 0, rng.integers(0, 256, size=shape))
    return volume


def zoned_volume() -> VoxelVolume:
    """A sphere of smooth material zones: rock, sand, soil and grass layers from the bottom up, each blending
    into the next, and an iron lump, so neighbouring vertices meet with different pairs (and triangles see
    three materials)."""
    volume = B.sphere_volume()
    points = B.sample_points(volume.shape)
    y = points[..., 1] - B.CORNER[1]
    layer = np.clip((y + 9.0) / 4.0, 0.0, 4.0)
    lower = np.floor(np.minimum(layer, 3.999)).astype(int)
    zones = np.array([TABLE.id_of(n) for n in ("rock", "sand", "soil", "grass", "grass")])
    volume.mat_a[...] = zones[lower]
    volume.mat_b[...] = zones[lower + 1]
    volume.mix[...] = np.round((layer - lower) * 255).astype(np.uint8)
    lump = np.linalg.norm(points - (B.CORNER + [6.0, 2.0, 0.0]), axis=-1) < 4.5
    volume.mat_a[lump], volume.mat_b[lump], volume.mix[lump] = TABLE.id_of("iron"), 0, 0
    return volume


def striped_volume() -> VoxelVolume:
    """A sphere in diagonal stripes of sand, soil and grass, 3 voxels wide across x + z: where a stripe is
    narrow across a quad, only the diagonal along the stripe leaves each triangle two materials."""
    volume = B.sphere_volume()
    points = B.sample_points(volume.shape)
    stripe = np.floor((points[..., 0] + points[..., 2]) / 3.0).astype(int) % 3
    volume.mat_a[...] = np.array([SAND, SOIL, GRASS])[stripe]
    return volume


def reference_vertex_materials(volume: VoxelVolume, cell, local) -> list[tuple[float, int]]:
    """Every material's evaluation value at ``local`` in ``cell``, highest first (lower id on a tie)."""
    values: dict[int, float] = {}
    for corner in range(8):
        offset = (corner & 1, (corner >> 1) & 1, (corner >> 2) & 1)
        weight = 1.0
        for axis in range(3):
            weight *= abs((1 - offset[axis]) - local[axis])
        sample = tuple(int(c) + o for c, o in zip(cell, offset))
        density = float(volume.density[sample]) / 255.0
        mix = float(volume.mix[sample]) / 255.0
        for material, share in ((int(volume.mat_a[sample]), 1.0 - mix), (int(volume.mat_b[sample]), mix)):
            if material != 0 and weight * density * share > 0.0:
                values[material] = values.get(material, 0.0) + weight * density * share
    return sorted(((value, material) for material, value in values.items()), key=lambda vm: (-vm[0], vm[1]))


@pytest.mark.parametrize("volume_name", ["mixed-2", "mixed-9", "zoned"])
def test_dual_vertex_materials_follow_the_documented_formula(volume_name):
    volume = VOLUMES[volume_name]()
    vertices = dual_vertices(volume)
    assert len(vertices.positions) > 500
    local = volume.world_to_index(vertices.positions) - vertices.cells
    assert np.all((local >= 0.0) & (local <= 1.0))
    checked = 0
    for v in range(len(local)):
        ranked = reference_vertex_materials(volume, vertices.cells[v], local[v])
        values = [value for value, _ in ranked] + [0.0, 0.0]
        if abs(values[0] - values[1]) < 1e-9 or (abs(values[1] - values[2]) < 1e-9 and values[1] > 0.0):
            continue  # a (near) tie: either order is right
        checked += 1
        expected_b = ranked[1][1] if len(ranked) > 1 else 0
        assert (int(vertices.mat_a[v]), int(vertices.mat_b[v])) == (ranked[0][1], expected_b), v
        assert vertices.blend[v] == pytest.approx(values[1] / (values[0] + values[1]), abs=1e-9)
    assert checked >= 0.9 * len(local)


def dual_index_by_position(vertices) -> dict[bytes, int]:
    """Dual vertex of each (float32) mesh position: the unsimplified meshes use the dual vertices as they are."""
    as_float32 = vertices.positions.astype(np.float32)
    table = {row.tobytes(): v for v, row in enumerate(as_float32)}
    assert len(table) == len(as_float32)
    return table


def vertex_shares(vertices, v) -> dict[int, float]:
    """A dual vertex's share of each of its materials (from its pair and blend)."""
    shares = {}
    if vertices.mat_a[v] and 1.0 - vertices.blend[v] > 0.0:
        shares[int(vertices.mat_a[v])] = 1.0 - float(vertices.blend[v])
    if vertices.mat_b[v] and vertices.blend[v] > 0.0:
        shares[int(vertices.mat_b[v])] = shares.get(int(vertices.mat_b[v]), 0.0) + float(vertices.blend[v])
    return shares


def judged(vertices, corners) -> list[tuple[float, int]] | None:
    """The triangle's judgment values, highest first (lower id on a tie); None on a near tie."""
    totals: dict[int, float] = {}
    for v in corners:
        for material, share in vertex_shares(vertices, v).items():
            totals[material] = totals.get(material, 0.0) + share
    ranked = sorted(((value, m) for m, value in totals.items()), key=lambda vm: (-vm[0], vm[1]))
    values = [value for value, _ in ranked] + [0.0, 0.0]
    for a, b in ((values[0], values[1]), (values[1], values[2])):
        if 0.0 < abs(a - b) < 1e-9:
            return None
    return ranked


def reference_corner_blends(vertices, corners, pair) -> list[float]:
    """Each corner's blend on a triangle of ``pair``: the second material's share of the pair; a corner that
    carries neither material takes the mean of the blends of the other corners that carry one."""
    own = []
    for v in corners:
        shares = vertex_shares(vertices, v)
        a_share, b_share = shares.get(pair[0], 0.0), shares.get(pair[1], 0.0) if pair[1] else 0.0
        own.append(b_share / (a_share + b_share) if a_share + b_share > 0.0 else None)
    blends = []
    for corner, blend in enumerate(own):
        if blend is None:
            others = [b for other, b in enumerate(own) if other != corner and b is not None]
            blend = sum(others) / len(others)
        blends.append(blend)
    return blends


def quartered_ground() -> VoxelVolume:
    """Ground rising gently along x, its columns in four quarters: sand (x < 3, z < 3), grass (x < 3, z >= 3),
    soil (x >= 3, z < 3) and rock. Where the quarters meet, no diagonal of a quad keeps its triangles to two
    materials: one triangle of grass and sand has a corner of soil and rock."""
    volume = VoxelVolume.from_sdf(lambda x, y, z: y - 3.3 - 0.13 * x, (6, 8, 6), material="sand", chunk_size=8)
    i, _, k = np.indices(volume.shape)
    quarters = np.array([TABLE.id_of(name) for name in ("sand", "grass", "soil", "rock")], dtype=np.uint8)
    volume.mat_a[...] = quarters[(i >= 3) * 2 + (k >= 3)]
    return volume


def test_a_corner_carrying_neither_material_of_its_triangle_takes_the_other_corners_blend():
    """The grass-and-sand triangle's soil-and-rock corner is drawn at the mean of the other corners' blends
    (all sand: 1, half sand: 0.5, so 0.75), not as the pair's first material (blend 0)."""
    volume = quartered_ground()
    vertices = dual_vertices(volume)
    lookup = dual_index_by_position(vertices)
    mesh = mesh_volume(volume, B.unsimplified())
    borrowed = []
    for tri in mesh.indices:
        corners = [lookup[mesh.positions[o].tobytes()] for o in tri]
        pair = (int(mesh.mat_a[tri[0]]), int(mesh.mat_b[tri[0]]))
        expected = reference_corner_blends(vertices, corners, pair)
        for o, v, blend in zip(tri, corners, expected):
            assert float(mesh.blend[o]) == pytest.approx(blend, abs=1e-6)
            if not set(vertex_shares(vertices, v)) & (set(pair) - {0}):
                borrowed.append((pair, float(mesh.blend[o])))
    assert borrowed == [((GRASS, SAND), pytest.approx(0.75, abs=1e-6))]
    assert not any(T.display_material_defects(mesh).values())


@pytest.mark.parametrize("volume_name", ["mixed-2", "zoned", "striped"])
def test_unsimplified_triangle_materials_follow_the_judgment(volume_name):
    """levels=0: every display triangle's pair is the top two judged materials of its three dual vertices, each
    corner's blend is the second material's share within that pair; every collision triangle's material is the
    top judged one."""
    volume = VOLUMES[volume_name]()
    vertices = dual_vertices(volume)
    lookup = dual_index_by_position(vertices)
    mesh = mesh_volume(volume, B.unsimplified())
    checked = three_or_more = 0
    for tri in mesh.indices:
        corners = [lookup[mesh.positions[o].tobytes()] for o in tri]
        ranked = judged(vertices, corners)
        if ranked is None:
            continue
        checked += 1
        three_or_more += len(ranked) > 2
        first, second = ranked[0][1], (ranked[1][1] if len(ranked) > 1 else 0)
        pair = (min(first, second), max(first, second)) if second else (first, 0)
        expected = reference_corner_blends(vertices, corners, pair)
        for o, blend in zip(tri, expected):
            assert (int(mesh.mat_a[o]), int(mesh.mat_b[o])) == pair
            assert float(mesh.blend[o]) == pytest.approx(blend, abs=1e-6)
    assert checked >= 0.95 * mesh.triangle_count
    if volume_name != "striped":  # (there every quad has a two-material split)
        assert three_or_more > 0  # the volume does exercise the choice of two among more

    collision = collision_mesh_volume(volume, B.unsimplified())
    assert collision.triangle_count == mesh.triangle_count
    for tri, material in zip(collision.indices, collision.tri_material):
        ranked = judged(vertices, [lookup[collision.positions[o].tobytes()] for o in tri])
        if ranked is not None:
            assert int(material) == ranked[0][1]


@pytest.mark.parametrize("volume_name", ["mixed-4", "striped"])
def test_quads_split_along_a_diagonal_that_keeps_two_materials_when_one_exists(volume_name):
    """levels=0: when a triangle of a quad has more than two materials, the other diagonal would also have left
    a triangle with more than two (the quad is rebuilt from the cells around its sample edge)."""
    volume = striped_volume() if volume_name == "striped" else mixed_volume(4)
    vertices = dual_vertices(volume)
    lookup = dual_index_by_position(vertices)
    by_cell: dict[tuple, list[int]] = {}
    for v, cell in enumerate(map(tuple, vertices.cells.tolist())):
        by_cell.setdefault(cell, []).append(v)

    def materials(corners) -> int:
        return len(set().union(*(vertex_shares(vertices, v).keys() for v in corners)))

    mesh = mesh_volume(volume, B.unsimplified())
    checked = needed_a_choice = 0
    for tri in mesh.indices:
        corners = [lookup[mesh.positions[o].tobytes()] for o in tri]
        cells = vertices.cells[corners]
        axis = [a for a in range(3) if len(set(cells[:, a])) == 1]
        assert len(axis) == 1  # three of the four cells around one sample edge
        u, w = [a for a in range(3) if a != axis[0]]
        low = cells.min(axis=0)
        ring_cells = []
        for du, dw in ((0, 0), (1, 0), (1, 1), (0, 1)):
            cell = low.copy()
            cell[u] += du
            cell[w] += dw
            ring_cells.append(tuple(cell.tolist()))
        missing = [c for c in ring_cells if c not in set(map(tuple, cells.tolist()))]
        assert len(missing) == 1
        if len(by_cell[missing[0]]) != 1:
            continue  # several patches in that cell: which one joins this quad is not looked up here
        ring = [None] * 4
        for v, cell in zip(corners, map(tuple, cells.tolist())):
            ring[ring_cells.index(cell)] = v
        ring[ring_cells.index(missing[0])] = by_cell[missing[0]][0]
        # This triangle lacks one ring corner: its diagonal joins the two corners next to the missing one.
        gone = ring_cells.index(missing[0])
        diagonal = ((gone + 1) % 4, (gone + 3) % 4)
        other = ((gone + 0) % 4, (gone + 2) % 4)
        chosen = [[ring[diagonal[0]], ring[diagonal[1]], ring[k]] for k in other]
        alternative = [[ring[other[0]], ring[other[1]], ring[k]] for k in diagonal]
        checked += 1
        if max(materials(t) for t in chosen) > 2:
            assert max(materials(t) for t in alternative) > 2, tri
        elif max(materials(t) for t in alternative) > 2:
            needed_a_choice += 1
    assert checked > 0.9 * mesh.triangle_count
    if volume_name == "striped":
        assert needed_a_choice > 0  # some quads could only be split one way


# ------------------------------------------------------------------------------ rules of every triangle
VOLUMES = {"mixed-2": lambda: mixed_volume(2), "mixed-9": lambda: mixed_volume(9), "zoned": zoned_volume,
           "striped": striped_volume}


@pytest.mark.parametrize("levels", [0, 3])
@pytest.mark.parametrize("volume_name", sorted(VOLUMES))
def test_every_triangle_keeps_the_material_rules(volume_name, levels):
    volume = VOLUMES[volume_name]()
    options = MeshOptions(levels=levels)
    mesh = mesh_volume(volume, options)
    assert mesh.triangle_count > 0
    assert T.display_material_defects(mesh) == dict.fromkeys(T.display_material_defects(mesh), 0)
    two = mesh.mat_b[mesh.indices[:, 0]] != 0
    assert two.any()  # blended triangles are there to check
    present = set(np.unique(volume.mat_a[volume.density > 0])) | set(np.unique(volume.mat_b[volume.density > 0]))
    assert set(np.unique(mesh.mat_a)) | set(np.unique(mesh.mat_b)) <= present | {0}
    collision = collision_mesh_volume(volume, options)
    assert collision.triangle_count > 0
    assert collision.tri_material.shape == (collision.triangle_count,)
    assert np.all(collision.tri_material != 0)
    assert set(np.unique(collision.tri_material)) <= present
