"""Per-vertex ambient occlusion of the display mesh (``DisplayMesh.occlusion``): the kernel against a plain-Python
reference, its meaning (open ground 1, a pit's floor darker than its rim), and that the chunk mesher keeps it
current when an edit in a neighbouring chunk changes the voxels a vertex's rays read, equal to a fresh mesh."""

from __future__ import annotations

import math

import numpy as np

from voxelworld.meshing import ChunkMesher, MeshOptions, _kernels, mesh_volume, vertex_occlusion
from voxelworld.meshing import mesh as meshing_mesh
from voxelworld.terrain import Box, Cylinder, VoxelVolume

from . import builders as B

TILT = math.radians(55.0)
RAYS = [(0.0, 0.0, 1.0)] + [(math.sin(TILT) * math.cos(math.radians(a)), math.sin(TILT) * math.sin(math.radians(a)),
                             math.cos(TILT)) for a in range(0, 360, 60)]
STEPS = (1.0, 2.0, 3.0, 4.5)


def trilinear(density, x, y, z) -> float:
    """The density at (x, y, z) samples, interpolated; outside the volume, at its nearest point."""
    n = density.shape
    p = [min(max(c, 0.0), s - 1.0) for c, s in zip((x, y, z), n)]
    base = [min(int(math.floor(c)), s - 2) for c, s in zip(p, n)]
    value = 0.0
    for di in (0, 1):
        for dj in (0, 1):
            for dk in (0, 1):
                weight = 1.0
                for d, c, b in zip((di, dj, dk), p, base):
                    weight *= (c - b) if d else 1.0 - (c - b)
                value += weight * float(density[base[0] + di, base[1] + dj, base[2] + dk])
    return value


def reference_occlusion(density, iso, position, normal, origin, voxel_size) -> float:
    """The share of open points, 1, 2, 3 and 4.5 samples along the seven rays of the normal's hemisphere."""
    n = np.asarray(normal, dtype=np.float64)
    if not n.any():
        return 1.0
    n = n / np.linalg.norm(n)
    axis = np.eye(3)[int(np.argmin(np.abs(n)))]  # the world axis the normal leans least along (first on a tie)
    tangent = np.cross(n, axis)
    tangent /= np.linalg.norm(tangent)
    bitangent = np.cross(n, tangent)
    start = (np.asarray(position, dtype=np.float64) - origin) / voxel_size
    open_points = 0
    for a, b, c in RAYS:
        direction = a * tangent + b * bitangent + c * n
        for step in STEPS:
            open_points += trilinear(density, *(start + step * direction)) < iso
    return open_points / (len(RAYS) * len(STEPS))


def test_the_kernel_matches_the_plain_python_reference():
    rng = np.random.default_rng(3)
    density = rng.integers(0, 256, size=(7, 6, 8)).astype(np.uint8)
    origin, voxel_size = np.array([-1.0, 0.5, 2.0]), 0.5
    positions = (origin + rng.uniform(-1.0, 8.0, size=(60, 3)) * voxel_size).astype(np.float32)
    normals = rng.normal(size=(60, 3)).astype(np.float32)
    normals[:6] = np.eye(3, dtype=np.float32)[[0, 1, 2, 0, 1, 2]] * [[1], [1], [1], [-1], [-1], [-1]]
    normals[6] = 0.0
    got = vertex_occlusion(density, 128, positions, normals, origin, voxel_size)
    expected = [reference_occlusion(density, 128, p, nrm, origin, voxel_size) for p, nrm in zip(positions, normals)]
    assert got.dtype == np.float32 and got.shape == (60,)
    np.testing.assert_allclose(got, expected, atol=1e-6)
    assert len(set(np.round(got, 4).tolist())) > 5  # the inputs exercise many values, not a few flat answers


def test_windows_one_sample_thick_and_blocks_of_vertices_match_the_reference():
    """A window one sample thick on an axis (its cells' corners on that axis are one sample: the kernel steps 0
    there), and more vertices than a block of the kernel with some left over, each vertex the reference's."""
    rng = np.random.default_rng(11)
    origin, voxel_size = np.array([0.0, 0.0, 0.0]), 1.0
    for shape in ((1, 6, 7), (6, 1, 5), (5, 6, 1)):
        density = rng.integers(0, 256, size=shape).astype(np.uint8)
        positions = rng.uniform(-1.0, 7.0, size=(_kernels.OCCLUSION_BLOCK + 9, 3)).astype(np.float32)
        normals = rng.normal(size=positions.shape).astype(np.float32)
        got = vertex_occlusion(density, 128, positions, normals, origin, voxel_size)
        expected = [reference_occlusion(density, 128, p, n, origin, voxel_size) for p, n in zip(positions, normals)]
        np.testing.assert_allclose(got, expected, atol=1e-6)


def reference_kinds(density, iso) -> np.ndarray:
    """Per cell: 0 where its eight corners are all at most iso - 1, 1 where all at least iso + 1, else 2."""
    nx, ny, nz = density.shape
    kinds = np.empty((nx - 1, ny - 1, nz - 1), dtype=np.uint8)
    for i in range(nx - 1):
        for j in range(ny - 1):
            for k in range(nz - 1):
                corners = [float(density[i + a, j + b, k + c]) for a in (0, 1) for b in (0, 1) for c in (0, 1)]
                kinds[i, j, k] = 0 if max(corners) <= iso - 1 else (1 if min(corners) >= iso + 1 else 2)
    return kinds


def test_cell_kinds_match_the_plain_python_reference():
    rng = np.random.default_rng(5)
    seen = set()
    for shape in ((2, 2, 2), (5, 3, 7), (9, 8, 6)):
        # Densities around iso (127, 128, 129 among them), so every kind and every margin case turns up.
        density = rng.choice(np.array([0, 126, 127, 128, 129, 130, 255], dtype=np.uint8), size=shape)
        density[:2, :2, :2] = 129  # one cell solid by the margin, its neighbours mostly mixed
        density[-2:, -2:, -2:] = 127  # and one open by it
        kinds = np.full(shape, 7, dtype=np.uint8)  # a cell's kind at its first sample: the last layers no cell
        _kernels.cell_kinds(density, 128.0, kinds)
        np.testing.assert_array_equal(kinds[:-1, :-1, :-1], reference_kinds(density, 128))
        assert (kinds[-1] == 7).all() and (kinds[:, -1] == 7).all() and (kinds[:, :, -1] == 7).all()
        seen |= set(np.unique(kinds[:-1, :-1, :-1]).tolist())
    assert seen == {0, 1, 2}


def kernel_occlusion(density, positions, normals, origin, voxel_size, kinds) -> np.ndarray:
    out = np.empty(len(positions), dtype=np.float32)
    _kernels.vertex_occlusion(density, np.zeros(3, dtype=np.int64), 128.0, positions, normals, origin, voxel_size,
                              _kernels.OCCLUSION_RAYS, _kernels.OCCLUSION_STEPS, kinds, out)
    return out


def test_classified_cells_change_no_answer():
    """With the window's cells classified (many vertices) or without (few in a large window), each vertex gets the
    reference's value: the open and solid cells decide as interpolating would, also where corners sit at iso or
    one step from it. Where the density is flat at iso every interpolation lands on it within rounding, and the
    two ways still agree bit for bit (the kernel then sums in the reference kernel's order)."""
    rng = np.random.default_rng(8)
    density = rng.choice(np.array([0, 126, 127, 128, 129, 130, 255], dtype=np.uint8), size=(12, 10, 11))
    density[6:10, 5:9, 6:10] = 255
    density[1:5, 6:10, 6:10] = 127  # open by the margin of 1
    origin, voxel_size = np.array([0.5, -1.0, 0.0]), 0.25
    positions = (origin + rng.uniform(0.0, 11.0, size=(300, 3)) * voxel_size).astype(np.float32)
    normals = rng.normal(size=(300, 3)).astype(np.float32)
    expected = np.array([reference_occlusion(density, 128, p, n, origin, voxel_size)
                         for p, n in zip(positions, normals)])
    unclassified = np.zeros((0, 0, 0), dtype=np.uint8)
    kinds = np.empty((12, 10, 11), dtype=np.uint8)
    _kernels.cell_kinds(density, 128.0, kinds)
    assert (kinds == 2).any() and (kinds == 1).any() and (kinds == 0).any()
    classified_answer = kernel_occlusion(density, positions, normals, origin, voxel_size, kinds)
    np.testing.assert_allclose(classified_answer, expected, atol=1e-6)
    plain_answer = kernel_occlusion(density, positions, normals, origin, voxel_size, unclassified)
    assert classified_answer.tobytes() == plain_answer.tobytes()
    # The public function classifies only where it pays: both ways give the same bytes.
    few = vertex_occlusion(density, 128, positions[:2], normals[:2], origin, voxel_size)
    assert few.tobytes() == classified_answer[:2].tobytes()
    assert meshing_mesh._cell_kinds(density, 128.0, 2) is meshing_mesh._UNCLASSIFIED
    assert meshing_mesh._cell_kinds(density, 128.0, 300).shape == (12, 10, 11)

    density[2:6, 2:6, 2:6] = 128  # flat at iso
    _kernels.cell_kinds(density, 128.0, kinds)
    flat = kernel_occlusion(density, positions, normals, origin, voxel_size, kinds)
    assert flat.tobytes() == kernel_occlusion(density, positions, normals, origin, voxel_size, unclassified).tobytes()
    assert flat.tobytes() != classified_answer.tobytes()  # the flat block is seen


def test_the_demo_worlds_occlusion_is_the_plain_python_references():
    """The look stays: every display vertex of the demo level's game meshes (``World.demo``'s terrain and mesh
    options) has the occlusion the plain-Python reference of the rays gives (within 0.05 at most, as the issue
    asks; in fact equal, since only the cells all open or all solid skip the interpolation)."""
    from voxelworld.game.level import demo_level
    from voxelworld.game.settings import GAME_MESH_OPTIONS

    volume = demo_level(0).volume
    mesh = mesh_volume(volume, GAME_MESH_OPTIONS)
    assert len(mesh.positions) > 1000 and (mesh.occlusion < 0.9).sum() > 50  # pits, the wall's foot, the trees
    expected = np.array([reference_occlusion(volume.density, volume.iso, p, n, volume.origin, volume.voxel_size)
                         for p, n in zip(mesh.positions, mesh.normals)])
    assert np.abs(mesh.occlusion - expected).max() <= 0.05
    np.testing.assert_allclose(mesh.occlusion, expected, atol=1e-6)


def test_vertex_box_is_the_least_and_greatest_sample_coordinates():
    rng = np.random.default_rng(2)
    positions = rng.uniform(-5.0, 9.0, size=(40, 3)).astype(np.float32)
    origin, voxel_size = np.array([1.0, -2.0, 0.5]), 0.5
    box = np.empty(6)
    _kernels.vertex_box(positions, origin, voxel_size, box)
    samples = (positions.astype(np.float64) - origin) / voxel_size
    np.testing.assert_array_equal(box, np.concatenate([samples.min(axis=0), samples.max(axis=0)]))


def ground_with_pit() -> VoxelVolume:
    """Flat soil at y = 16.3 over a 48 x 32 x 48 volume of 16-voxel chunks, with a pit 5 voxels wide and 6 deep
    dug at a chunk corner (x = z = 16)."""
    volume = VoxelVolume.from_sdf(lambda x, y, z: y - 16.3, (48, 32, 48), material="soil", chunk_size=16)
    volume.remove(Cylinder((16.2, 10.3, 16.1), (16.2, 20.0, 16.1), 2.5))
    return volume


def test_a_pits_floor_is_darker_than_its_rim_and_open_ground_is_open():
    volume = ground_with_pit()
    mesh = mesh_volume(volume, MeshOptions(levels=0))
    x, y, z = ((mesh.positions - volume.origin) / volume.voxel_size).T
    across = np.hypot(x - 16.2, z - 16.1)
    floor = (across < 1.0) & (y < 11.5)
    rim = (across > 2.5) & (across < 4.0) & (y > 16.0)
    far = (across > 10.0) & (y > 16.0) & (x > 6) & (x < 41) & (z > 6) & (z < 41)
    assert floor.sum() and rim.sum() and far.sum()
    assert mesh.occlusion[floor].max() < mesh.occlusion[rim].min()
    assert mesh.occlusion[floor].max() < 0.75  # deep in the pit, a third of the rays end in the walls
    np.testing.assert_array_equal(mesh.occlusion[far], 1.0)  # flat open ground: every ray in the open
    assert mesh.occlusion.dtype == np.float32 and 0.0 <= mesh.occlusion.min() <= mesh.occlusion.max() <= 1.0


def test_occlusion_is_deterministic_and_survives_merging():
    first, second = (mesh_volume(ground_with_pit(), MeshOptions()) for _ in range(2))
    assert first.occlusion.tobytes() == second.occlusion.tobytes()
    assert len(first.occlusion) == len(first.positions)


def test_an_edit_in_a_neighbouring_chunk_shades_a_chunk_again():
    """A slab added over the ground in chunk x = 0, up to 2 samples below chunk x = 1, leaves chunk 1's surfaces
    as they were (its cells read samples from x = 15 on), but its vertices near the border see the slab along
    their rays: the mesher reports that chunk with its new occlusion, equal to a fresh mesher's. (Unsimplified,
    so the lower neighbour's border vertices stay too; simplified meshes are checked against fresh ones after
    every edit in test_incremental.)"""
    options = MeshOptions(levels=0)
    volume = VoxelVolume.from_sdf(lambda x, y, z: y - 16.3, (48, 32, 48), material="soil", chunk_size=16)
    mesher = ChunkMesher(volume, options=options)
    mesher.update()
    home = (1, 1, 1)
    before = mesher.meshes[home]
    volume.add(Box((6.0, 18.6, 18.0), (13.4, 20.0, 30.0)), "rock")
    update = mesher.update()
    assert home not in update.surfaces_rebuilt
    assert home in update.remeshed
    shaded = update.meshes[home]
    np.testing.assert_array_equal(shaded.positions, before.positions)  # the same triangles...
    assert shaded.occlusion.min() < before.occlusion.min()  # ...darker under the slab's edge
    fresh = ChunkMesher(volume, options=options)
    fresh.update()
    for chunk, mesh in fresh.meshes.items():
        np.testing.assert_array_equal(B.canonical_display(mesher.meshes[chunk]), B.canonical_display(mesh))


def _chunks_shading_reference(mesher: ChunkMesher, lo: np.ndarray, hi: np.ndarray) -> set[tuple]:
    """ChunkMesher._chunks_shading as a plain loop over the candidate chunks (what it was before it went numpy)."""
    from itertools import product

    size = mesher.volume.chunk_size
    grid = np.array(mesher.volume.chunk_grid_shape)
    reach = int(np.ceil(_kernels.OCCLUSION_STEPS.max())) + 2
    detail, levels = mesher._detail, mesher.options.levels
    below, above = 2 ** max(levels, int(detail.max(initial=0))) + reach, reach
    first = np.maximum(-((size + above - lo) // size), 0)
    last = np.minimum((hi + below) // size, grid - 1)
    shading = set()
    for chunk in product(*(range(a, b + 1) for a, b in zip(first, last))):
        deepest = int(detail[tuple(slice(max(c - 1, 0), c + 1) for c in chunk)].max())
        if (np.array(chunk) * size - 2 ** max(levels, deepest) - reach <= hi).all():
            shading.add(chunk)
    return shading


def test_the_chunks_an_edit_shades_again_are_the_plain_loops():
    """The chunks whose occlusion reads an edited box, worked out over the candidates at once, against the loop
    over them: random levels of detail (each chunk's own and its lower neighbours' decide how far below it its
    vertices reach) and random boxes, at the grid's edges too."""
    rng = np.random.default_rng(5)
    volume = VoxelVolume((128, 64, 128), chunk_size=8)
    for levels in (0, 2):
        mesher = ChunkMesher(volume, options=MeshOptions(levels=levels))
        grid = volume.chunk_grid_shape
        for _ in range(60):
            mesher._detail = rng.integers(0, 5, grid) * (rng.random(grid) < 0.3)
            lo = rng.integers(0, np.array(volume.shape), 3)
            hi = np.minimum(lo + rng.integers(0, 12, 3), np.array(volume.shape) - 1)
            assert mesher._chunks_shading(lo, hi) == _chunks_shading_reference(mesher, lo, hi)
