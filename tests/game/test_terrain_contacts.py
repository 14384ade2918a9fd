"""TerrainContacts.voxel_material against a plain reference: the dominant material of the first solid voxel
behind a contact point (half a voxel to two voxels against the normal, then half and one voxel along it)."""

from __future__ import annotations

import numpy as np

from voxelworld.game.terrain_contacts import TerrainContacts
from voxelworld.meshing import ChunkMesher
from voxelworld.terrain import VoxelVolume


def reference_material(volume, point, normal) -> int:
    for k in (0.5, 1.0, 1.5, 2.0, -0.5, -1.0):
        index = np.rint((np.asarray(point) - np.asarray(normal) * k * volume.voxel_size - volume.origin)
                        / volume.voxel_size).astype(int)
        if np.any(index < 0) or np.any(index >= np.array(volume.shape)):
            continue
        voxel = volume.read_voxel(index)
        if voxel["density"] >= volume.iso:
            return voxel["mat_b"] if voxel["mix"] > 127 else voxel["mat_a"]
    return 0


def test_voxel_material_is_the_first_solid_voxel_behind_the_point_by_its_dominant_material():
    rng = np.random.default_rng(11)
    volume = VoxelVolume((12, 10, 12), voxel_size=0.25, origin=(-1.0, 0.5, 2.0), chunk_size=8)
    volume.density[...] = rng.choice([0, 60, 128, 200, 255], volume.shape)
    volume.mat_a[...] = rng.integers(1, 6, volume.shape)
    volume.mat_b[...] = rng.integers(1, 6, volume.shape)
    volume.mix[...] = rng.integers(0, 256, volume.shape)
    contacts = TerrainContacts(volume, ChunkMesher(volume), reach=1.0)
    found = set()
    for _ in range(2000):
        point = np.array(volume.origin) + rng.uniform(-0.6, 3.6, 3)  # some outside the volume
        normal = rng.normal(size=3)
        normal /= np.linalg.norm(normal)
        expected = reference_material(volume, point, normal)
        assert contacts.voxel_material(point, normal) == expected
        found.add(expected)
    assert 0 in found and len(found) >= 5
