"""Volumes and mesh comparisons shared by the meshing tests.

Shapes are placed around the chunk corner (16, 16, 16) of a 40^3 volume with 16-voxel chunks (27 chunks), so
their surfaces cross chunk borders on every axis; every border sample of these volumes is empty, so the surface
is closed inside the volume.
"""

from __future__ import annotations

import dataclasses

import numpy as np
from scipy import ndimage

from voxelworld.meshing import MeshOptions
from voxelworld.terrain import VoxelVolume

SIZE = 40
CHUNK = 16
CORNER = np.array([16.4, 15.7, 16.2])  # near the chunk corner (16, 16, 16), off the sample grid

SPHERE_RADIUS = 9.3
TORUS_MAJOR, TORUS_MINOR = 10.0, 3.6
BOX_HALF = np.array([7.2, 6.1, 8.3])


def sample_points(shape) -> np.ndarray:
    """Sample coordinates ``(i, j, k)`` of every voxel, shape ``shape + (3,)``."""
    return np.stack(np.meshgrid(*(np.arange(n, dtype=np.float64) for n in shape), indexing="ij"), axis=-1)


def sphere_sdf(centre, radius):
    return lambda x, y, z: np.sqrt((x - centre[0]) ** 2 + (y - centre[1]) ** 2 + (z - centre[2]) ** 2) - radius


def torus_sdf(centre, major, minor):
    """A ring in the x-z plane (Y is up)."""
    def fn(x, y, z):
        ring = np.sqrt((x - centre[0]) ** 2 + (z - centre[2]) ** 2) - major
        return np.sqrt(ring ** 2 + (y - centre[1]) ** 2) - minor
    return fn


def box_sdf(centre, half):
    """Exact Euclidean distance to an axis-aligned box."""
    def fn(x, y, z):
        q = [np.abs(x - centre[0]) - half[0], np.abs(y - centre[1]) - half[1], np.abs(z - centre[2]) - half[2]]
        outside = np.sqrt(sum(np.maximum(c, 0.0) ** 2 for c in q))
        return outside + np.minimum(np.maximum(q[0], np.maximum(q[1], q[2])), 0.0)
    return fn


def sphere_volume() -> VoxelVolume:
    return VoxelVolume.from_sdf(sphere_sdf(CORNER, SPHERE_RADIUS), (SIZE,) * 3, material="rock", chunk_size=CHUNK)


def torus_volume() -> VoxelVolume:
    """The torus in world metres: voxels of 0.5 m from origin (-3, 1, 2), so world units are exercised."""
    size, origin = 0.5, np.array([-3.0, 1.0, 2.0])
    centre = origin + CORNER * size
    return VoxelVolume.from_sdf(torus_sdf(centre, TORUS_MAJOR * size, TORUS_MINOR * size), (SIZE,) * 3,
                                material="soil", voxel_size=size, origin=tuple(origin), chunk_size=CHUNK)


def box_volume() -> VoxelVolume:
    return VoxelVolume.from_sdf(box_sdf(CORNER, BOX_HALF), (SIZE,) * 3, material="iron", chunk_size=CHUNK)


def blob_density(shape, centre, seed: int, count: int) -> np.ndarray:
    """uint8 density of a sum of gaussians from a seeded rng: solid where the sum exceeds 1/2."""
    rng = np.random.default_rng(seed)
    points = sample_points(shape)
    field = np.zeros(shape)
    for _ in range(count):
        c = np.asarray(centre) + rng.normal(0.0, 0.12 * min(shape), 3)
        sigma = rng.uniform(0.07, 0.11) * min(shape)
        field += rng.uniform(0.7, 1.2) * np.exp(-np.sum((points - c) ** 2, axis=-1) / (2.0 * sigma ** 2))
    return np.clip(np.round(128.0 + 400.0 * (field - 0.5)), 0, 255).astype(np.uint8)


def blob_volume(seed: int, shape=(SIZE,) * 3, chunk_size: int = CHUNK, centre=None, count: int = 4) -> VoxelVolume:
    volume = VoxelVolume(shape, chunk_size=chunk_size)
    volume.density[...] = blob_density(shape, CORNER if centre is None else centre, seed, count)
    volume.mat_a[...] = volume.materials.id_of("soil")
    volume.mark_dirty((0, 0, 0), np.array(shape) - 1)
    return volume


def border_is_empty(volume: VoxelVolume) -> bool:
    solid = volume.density >= volume.iso
    return not (solid[0].any() or solid[-1].any() or solid[:, 0].any() or solid[:, -1].any()
                or solid[:, :, 0].any() or solid[:, :, -1].any())


def probe_points(volume: VoxelVolume, margin: float, count: int = 80, seed: int = 0):
    """World positions of samples at least ``margin`` samples (Euclidean, on the sample grid) from any sample of
    the other phase: ``(solid points, empty points)``, at most ``count`` of each."""
    solid = volume.density >= volume.iso
    inside = ndimage.distance_transform_edt(solid) >= margin
    outside = ndimage.distance_transform_edt(~solid) >= margin
    rng = np.random.default_rng(seed)
    picked = []
    for mask in (inside, outside):
        where = np.argwhere(mask)
        if len(where) > count:
            where = where[rng.choice(len(where), count, replace=False)]
        picked.append(volume.index_to_world(where))
    return picked[0], picked[1]


def canonical_display(mesh) -> np.ndarray:
    """Triangle rows (per corner: position, normal, blend, occlusion; then the pair), each triangle rotated to start
    at its lexicographically smallest corner (winding kept), rows sorted: equal for meshes that draw the same."""
    if mesh.triangle_count == 0:
        return np.zeros((0, 26))
    idx = mesh.indices.astype(np.int64)
    corner = np.concatenate([mesh.positions, mesh.normals, mesh.blend[:, None], mesh.occlusion[:, None]],
                            axis=1).astype(np.float64)
    rows = corner[idx]  # (m, 3, 8)
    _, rank = np.unique(mesh.positions, axis=0, return_inverse=True)
    first = np.argmin(rank.reshape(-1)[idx], axis=1)
    order = (first[:, None] + np.arange(3)[None, :]) % 3
    rows = np.take_along_axis(rows, order[:, :, None], axis=1).reshape(len(idx), 24)
    pair = np.stack([mesh.mat_a[idx[:, 0]], mesh.mat_b[idx[:, 0]]], axis=1).astype(np.float64)
    rows = np.concatenate([rows, pair], axis=1)
    return rows[np.lexsort(rows.T[::-1])]


def canonical_collision(mesh) -> np.ndarray:
    """Like :func:`canonical_display` for a collision mesh: positions of the corners and the material."""
    if mesh.triangle_count == 0:
        return np.zeros((0, 10))
    idx = mesh.indices.astype(np.int64)
    rows = mesh.positions.astype(np.float64)[idx]
    _, rank = np.unique(mesh.positions, axis=0, return_inverse=True)
    first = np.argmin(rank.reshape(-1)[idx], axis=1)
    order = (first[:, None] + np.arange(3)[None, :]) % 3
    rows = np.take_along_axis(rows, order[:, :, None], axis=1).reshape(len(idx), 9)
    rows = np.concatenate([rows, mesh.tri_material[:, None].astype(np.float64)], axis=1)
    return rows[np.lexsort(rows.T[::-1])]


def unsimplified(**settings) -> MeshOptions:
    """MeshOptions with every octree level count (display, and collision where it has its own) at 0."""
    levels = {f.name: 0 for f in dataclasses.fields(MeshOptions) if f.name.endswith("levels")}
    return MeshOptions(**{**levels, **settings})
