"""Per-vertex ambient occlusion of the display mesh (``DisplayMesh.occlusion``): the kernel against a plain-Python
reference, its meaning (open ground 1, a pit's floor darker than its rim), and that the chunk mesher keeps it
current when an edit in a neighbouring chunk changes the voxels a vertex's rays read, equal to a fresh mesh."""

from __future__ import annotations

import math

import numpy as np
from voxelworld.meshing import ChunkMesher, MeshOptions, mesh_volume, vertex_occlusion
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
