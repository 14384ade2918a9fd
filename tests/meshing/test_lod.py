"""Levels of detail (``ChunkMesher.set_detail_levels`` with ``detail_levels``): far chunks simplified at least L
octree levels deep whatever the shape error, and from ``FEATURE_FLOOR_LEVEL`` on whatever the topology and the
kinds. The union of the chunk meshes stays closed (exact float32 weld) for the level maps of many camera positions
and edits on the borders between levels: no boundary edge, and every edge used as often each way (where features
were dropped the surface may pinch: edges of four triangles; nearer, none); the incremental mesher equals a fresh
one bit for bit; at most two materials per triangle (and two kinds per merged vertex below the feature floor); the
triangle count falls with the level, on rough generated ground too; the 2:1 rule holds; few triangles face against
the density gradient.

``VOXELWORLD_LOD_CAMERAS=1000`` runs the camera walk over 1 000 positions (the issue's count; some minutes)."""

from __future__ import annotations

import os
from itertools import product

import numpy as np
import pytest
from scipy import ndimage

from voxelworld.errors import ParameterError
from voxelworld.meshing import ChunkMesher, MeshOptions, _kernels, detail_levels, relax_to_two_to_one
from voxelworld.meshing.detail import FEATURE_FLOOR_LEVEL, MAX_DETAIL_LEVEL
from voxelworld.meshing.surface import chunk_surface, simplify_surface
from voxelworld.terrain import GeneratorSettings, Sphere, VoxelVolume, generate_volume

from . import builders as B
from .test_display_levels import boundary_edges_inside
from .topology import display_material_defects, face_normals, topology, weld

CHUNK = 16
SHAPE = (96, 48, 96)
ORIGIN = (-20.0, -4.0, 10.0)  # world metres: the levels are picked in world units, not sample indices
BANDS = (10.0, 20.0, 32.0, 46.0, 60.0)  # metres: every level occurs over a 96 m world
CAMERAS = int(os.environ.get("VOXELWORLD_LOD_CAMERAS", "300"))
MESHED = ("positions", "normals", "indices", "mat_a", "mat_b", "blend", "occlusion")


def heights(seed: int = 0):
    """A rolling height field (samples): a sum of waves, 11..37 samples high."""
    rng = np.random.default_rng(seed)
    waves = [(rng.uniform(0.05, 0.45), rng.uniform(0.05, 0.45), rng.uniform(0.0, 6.3), 6.0 / (1 + i))
             for i in range(6)]
    return lambda x, z: 24.0 + sum(a * np.sin(fx * x + p) * np.cos(fz * z - p) for fx, fz, p, a in waves)


def rolling_terrain(seed: int = 0, layers: bool = True) -> VoxelVolume:
    """Noisy ground of grass over soil over rock, with sand patches (rock alone without ``layers``): chunks of 16
    samples, 6 x 3 x 6 of them."""
    height = heights(seed)
    ox, oy, oz = ORIGIN  # the sdf takes world metres (1 m voxels)
    volume = VoxelVolume.from_sdf(lambda x, y, z: y - oy - height(x - ox, z - oz), SHAPE, material="rock",
                                  chunk_size=CHUNK, origin=ORIGIN)
    if not layers:
        return volume
    i, j, k = np.indices(SHAPE)
    depth = height(i.astype(float), k.astype(float)) - j
    ids = {name: volume.materials.id_of(name) for name in ("grass", "soil", "sand", "rock")}
    mat = np.where(depth < 1.5, ids["grass"], np.where(depth < 5.0, ids["soil"], ids["rock"]))
    sand = (np.sin(i / 7.0) * np.cos(k / 9.0) > 0.6) & (depth < 5.0)
    volume.mat_a[...] = np.where(sand, ids["sand"], mat).astype(np.uint8)
    volume.mark_dirty((0, 0, 0), np.array(SHAPE) - 1)
    return volume


def levels_for(volume: VoxelVolume, viewers, bands=BANDS) -> np.ndarray:
    return detail_levels(volume.chunk_grid_shape, volume.chunk_size, volume.voxel_size, volume.origin, viewers,
                         bands)


def random_camera(rng, volume: VoxelVolume) -> np.ndarray:
    """A camera over the terrain (metres), a few metres above the ground to far above it."""
    local = np.array([rng.uniform(0, SHAPE[0]), rng.uniform(20.0, 60.0), rng.uniform(0, SHAPE[2])])
    return volume.origin + local * volume.voxel_size


def border_edit(rng, volume: VoxelVolume, levels: np.ndarray) -> None:
    """Remove or add a sphere on the surface where chunks of different levels meet (a face, edge or corner)."""
    grid = np.array(levels.shape)
    pairs = [(a, b) for a in map(tuple, np.argwhere(np.ones(levels.shape, bool)))
             for b in [tuple(np.array(a) + o) for o in ((1, 0, 0), (0, 0, 1), (1, 0, 1), (1, 1, 1))]
             if np.all(np.array(b) < grid) and levels[a] != levels[b]]
    a, b = pairs[rng.integers(len(pairs))] if pairs else ((0, 0, 0), (1, 0, 1))
    corner = np.maximum(np.array(a), np.array(b)) * CHUNK  # a point on the border between the two chunks
    x, z = (corner[[0, 2]] + rng.uniform(-2.0, 2.0, 2)).tolist()
    y = float(heights()(x, z)) + rng.uniform(-2.0, 1.0)
    centre = volume.origin + np.array([x, y, z]) * volume.voxel_size
    sphere = Sphere(tuple(centre), float(rng.uniform(1.5, 4.5)))
    if rng.random() < 0.6:
        volume.remove(sphere)
    else:
        volume.add(sphere, "soil")


def assert_closed(mesh, volume: VoxelVolume, where) -> None:
    assert boundary_edges_inside(mesh, volume) == 0, where
    shape = topology(mesh.positions, mesh.indices)
    assert shape.non_manifold_edges == 0 and shape.inconsistent_edges == 0, (where, shape)


def edge_uses(mesh, volume: VoxelVolume, exact=None) -> dict[str, int]:
    """Over the welded mesh: ``unbalanced``, undirected edges with an end off the world's sides used more often one
    way than the other (a hole or a crack; a closed surface has none, even where it pinches); and, among the edges
    every one of whose triangles is ``exact`` (a bool per triangle), ``non-manifold`` ones (3+ triangles) and
    ``inconsistent`` ones (a directed edge used twice)."""
    vertices, triangles = weld(mesh.positions, mesh.indices)
    exact = np.ones(len(triangles), bool) if exact is None else exact
    n = max(len(vertices), 1)
    starts, ends = triangles.reshape(-1), np.roll(triangles, -1, axis=1).reshape(-1)
    keys = np.minimum(starts, ends) * n + np.maximum(starts, ends)
    unique, index, uses = np.unique(keys, return_inverse=True, return_counts=True)
    forward = np.bincount(index, weights=starts < ends, minlength=len(unique))
    inexact = np.bincount(index, weights=~np.repeat(exact, 3), minlength=len(unique)) > 0
    local = (vertices - volume.origin) / volume.voxel_size
    on_side = np.any((local < 1.0) | (local > np.array(volume.shape) - 2.0), axis=1)
    inside = ~(on_side[unique // n] & on_side[unique % n])
    directed_keys, directed_counts = np.unique(starts * n + ends, return_counts=True)
    doubled = directed_keys[directed_counts > 1]
    doubled = np.minimum(doubled // n, doubled % n) * n + np.maximum(doubled // n, doubled % n)
    doubled_exact = ~inexact[np.searchsorted(unique, doubled)] if len(doubled) else np.zeros(0, bool)
    return {"unbalanced": int(np.sum(inside & (2 * forward != uses))),
            "non-manifold": int(np.sum(~inexact & (uses > 2))),
            "inconsistent": int(np.sum(doubled_exact))}


def assert_closed_at_levels(mesher: ChunkMesher, volume: VoxelVolume, where) -> None:
    """The union of the mesher's chunk meshes has no boundary edge and no unbalanced edge off the world's sides;
    and no pinch (non-manifold or inconsistent edge) among the edges whose triangles all belong to chunks that,
    with the lower neighbours whose vertices their quads join, are below the feature floor."""
    levels = mesher.detail_levels
    chunks = sorted(mesher.meshes)
    exact = []
    for chunk in chunks:
        first = np.maximum(np.array(chunk) - 1, 0)
        read = levels[first[0]:chunk[0] + 1, first[1]:chunk[1] + 1, first[2]:chunk[2] + 1]
        exact.append(np.full(mesher.meshes[chunk].triangle_count, int(read.max()) < FEATURE_FLOOR_LEVEL))
    mesh = mesher.display_mesh()
    assert boundary_edges_inside(mesh, volume) == 0, where
    uses = edge_uses(mesh, volume, np.concatenate(exact) if exact else np.zeros(0, bool))
    assert uses == dict.fromkeys(uses, 0), (where, uses)


def assert_same_meshes(mesher: ChunkMesher, volume: VoxelVolume, where) -> None:
    """The mesher's meshes equal, bit for bit, those of a fresh mesher at its levels of detail."""
    fresh = ChunkMesher(volume, options=mesher.options)
    fresh.set_detail_levels(mesher.detail_levels)
    fresh.update()
    assert fresh.meshes.keys() == mesher.meshes.keys(), where
    for chunk, mesh in fresh.meshes.items():
        for name in MESHED:
            assert getattr(mesh, name).tobytes() == getattr(mesher.meshes[chunk], name).tobytes(), (where, chunk,
                                                                                                     name)


# ------------------------------------------------------------------------------------------------ cracks
def test_the_union_stays_closed_as_the_camera_moves_and_the_terrain_is_edited_at_level_borders():
    volume = rolling_terrain()
    mesher = ChunkMesher(volume)
    rng = np.random.default_rng(2024)
    seen_levels = set()
    for step in range(CAMERAS):
        levels = levels_for(volume, random_camera(rng, volume))
        seen_levels |= set(np.unique(levels).tolist())
        mesher.set_detail_levels(levels)
        if step % 3 == 2:
            border_edit(rng, volume, levels)
        mesher.update()
        assert_closed_at_levels(mesher, volume, step)
        if step % 50 == 49:
            assert_same_meshes(mesher, volume, step)
    assert seen_levels == set(range(MAX_DETAIL_LEVEL + 1))


@pytest.mark.parametrize("name", ["all 5", "checkerboard 0/5", "random 0..5", "two viewers"])
def test_closed_under_level_maps_that_break_the_two_to_one_rule_too(name):
    """The seams close for any levels (the 2:1 rule only keeps triangles from folding): a closed blob at a
    chunk corner stays a closed, consistently wound surface."""
    blob = B.blob_volume(seed=4, count=5)
    grid = blob.chunk_grid_shape
    index = np.indices(grid).sum(axis=0)
    levels = {"all 5": np.full(grid, 5, np.int64), "checkerboard 0/5": np.where(index % 2, 5, 0).astype(np.int64),
              "random 0..5": np.random.default_rng(3).integers(0, 6, size=grid).astype(np.int64),
              "two viewers": levels_for(blob, [(2.0, 2.0, 2.0), (38.0, 30.0, 38.0)], (6.0, 12.0, 18.0, 24.0))}[name]
    mesher = ChunkMesher(blob)
    mesher.set_detail_levels(levels)
    mesher.update()
    mesh = mesher.display_mesh()
    assert topology(mesh.positions, mesh.indices).closed_manifold_oriented
    assert_same_meshes(mesher, blob, name)


# ----------------------------------------------------------------------------------- incremental = full
def test_moving_camera_and_edits_at_chunk_corners_match_a_fresh_mesher():
    volume = rolling_terrain(seed=1)
    mesher = ChunkMesher(volume)
    mesher.update()
    rng = np.random.default_rng(5)
    path = np.linspace([0.0, 30.0, 0.0], [96.0, 30.0, 96.0], 8)
    for step, local in enumerate(path):
        before = mesher.detail_levels
        levels = levels_for(volume, volume.origin + local)
        assert mesher.set_detail_levels(levels) == frozenset(map(tuple, np.argwhere(levels != before).tolist()))
        # An edit at an 8-chunk corner (samples multiple of the chunk size on every axis).
        corner = np.array([rng.integers(1, 6), 1, rng.integers(1, 6)]) * CHUNK
        corner[1] = int(round(float(heights(1)(corner[0], corner[2]))))
        shape = Sphere(tuple(volume.origin + corner), float(rng.uniform(2.0, 5.0)))
        volume.remove(shape) if step % 2 == 0 else volume.add(shape, "sand")
        update = mesher.update()
        assert update.remeshed
        assert_same_meshes(mesher, volume, step)
        assert_closed(mesher.display_mesh(), volume, step)
    # Back to no levels of detail: the mesher as if there had never been any.
    mesher.set_detail_levels(np.zeros(volume.chunk_grid_shape, np.int64))
    mesher.update()
    plain = ChunkMesher(volume)
    plain.update()
    for chunk, mesh in plain.meshes.items():
        assert mesh.positions.tobytes() == mesher.meshes[chunk].positions.tobytes()


def test_levels_of_detail_travel_with_the_mesher_state_and_bad_ones_change_nothing():
    volume = rolling_terrain()
    mesher = ChunkMesher(volume)
    mesher.set_detail_levels(levels_for(volume, volume.origin + 48.0))
    mesher.update()
    twin = ChunkMesher(volume)
    twin.update()
    twin.load_state_dict(mesher.state_dict())
    np.testing.assert_array_equal(twin.detail_levels, mesher.detail_levels)
    assert twin.display_mesh().positions.tobytes() == mesher.display_mesh().positions.tobytes()
    before = mesher.detail_levels
    for bad, match in [(np.full(volume.chunk_grid_shape, 6, np.int64), "0..5"),
                       (np.zeros((6, 3, 5), np.int64), "shape"), (np.zeros(volume.chunk_grid_shape), "integer")]:
        with pytest.raises(ParameterError, match=match):
            mesher.set_detail_levels(bad)
        state = mesher.state_dict()
        state["detail"] = bad
        with pytest.raises(ParameterError, match=match):
            twin.load_state_dict(state)
    np.testing.assert_array_equal(mesher.detail_levels, before)
    assert mesher.update().remeshed == frozenset()


def test_unsimplified_options_still_merge_at_a_level_of_detail():
    """With levels 0 (the raw vertices carry no tangent planes) a level of detail makes them again with planes,
    as a fresh mesher would."""
    volume = rolling_terrain()
    options = B.unsimplified()
    mesher = ChunkMesher(volume, options=options)
    fine = mesher.update()
    levels = np.full(volume.chunk_grid_shape, 2, np.int64)
    mesher.set_detail_levels(levels)
    update = mesher.update()
    assert update.surfaces_rebuilt == frozenset(product(*(range(n) for n in volume.chunk_grid_shape)))
    assert mesher.display_mesh().triangle_count * 4 < sum(m.triangle_count for m in fine.meshes.values())
    assert_same_meshes(mesher, volume, "levels 0")


# ------------------------------------------------------------------------------------------- materials
def quartered_terrain() -> VoxelVolume:
    """The rolling terrain with four materials of four kinds in quarters meeting at the chunk corner column
    x = z = 48, and a blend of iron into the grass quarter: 3+ materials at chunk corners."""
    volume = rolling_terrain()
    i, _, k = np.indices(SHAPE)
    ids = np.array([volume.materials.id_of(name) for name in ("grass", "sand", "rock", "ice")], dtype=np.uint8)
    volume.mat_a[...] = ids[(i >= 48) * 2 + (k >= 48)]
    volume.mat_b[...] = np.where((i < 48) & (k < 48) & (i + k > 70), volume.materials.id_of("iron"), 0)
    volume.mix[...] = np.where(volume.mat_b > 0, 100, 0).astype(np.uint8)
    volume.mark_dirty((0, 0, 0), np.array(SHAPE) - 1)
    return volume


@pytest.mark.parametrize("level_map", ["around the corner 0..5", "camera at the corner"])
def test_at_most_two_materials_per_triangle_and_two_kinds_per_merged_vertex(level_map):
    volume = quartered_terrain()
    grid = volume.chunk_grid_shape
    if level_map == "camera at the corner":
        levels = levels_for(volume, volume.origin + np.array([48.0, 25.0, 48.0]), (4.0, 8.0, 14.0, 20.0, 28.0))
    else:
        # The chunks around the corner column at levels 0..5 in turn (2:1 not required for materials).
        levels = np.zeros(grid, np.int64)
        for n, (a, b) in enumerate(product((2, 3), repeat=2)):
            levels[a, :, b] = [n, n + 1, 5][:grid[1]]
    mesher = ChunkMesher(volume)
    mesher.set_detail_levels(levels)
    mesher.update()
    mesh = mesher.display_mesh()
    assert display_material_defects(mesh) == dict.fromkeys(display_material_defects(mesh), 0)
    pairs = np.stack([mesh.mat_a[mesh.indices[:, 0]], mesh.mat_b[mesh.indices[:, 0]]], axis=1)
    near = np.all(np.abs((mesh.positions[mesh.indices].mean(axis=1) - volume.origin)[:, [0, 2]] - 48.0) < 3.0,
                  axis=1)
    assert len(set(pairs[near].ravel().tolist()) - {0}) >= 3  # the corner does meet 3+ materials
    assert_closed(mesh, volume, level_map)
    # Every merged vertex of every chunk's display surface stands for vertices of at most two kinds.
    kind = volume.materials.kind_by_id
    for chunk in product(*(range(n) for n in grid)):
        lo, hi = np.array(chunk) * CHUNK, np.minimum((np.array(chunk) + 1) * CHUNK, np.array(SHAPE) - 1)
        raw = chunk_surface(volume.density, volume.mat_a, volume.mat_b, volume.mix, volume.iso, lo, hi, False)
        merged = simplify_surface(raw, volume.density, volume.iso, 3, 0.25, kind, floor=int(levels[chunk]))
        n = raw.vertex_count
        groups: dict[int, set] = {}
        for v in range(n):
            shown = {int(kind[m]) for m, e in zip(raw.materials[v], raw.evaluations[v]) if m and e > 0}
            groups.setdefault(int(merged.rep[v]), set()).update(shown)
        assert max((len(g) for g in groups.values()), default=0) <= 2, chunk


# ------------------------------------------------------------------------------------ dropping features
# A small generated world of the game's generator, rough as the 1 km one: terraces 2.5 m high, caves 1 m under the
# surface and opening to the sky, grass, soil, sand, rock and iron; 0.5 m voxels, 4 x 2 x 4 chunks of 32.
ROUGH = GeneratorSettings(size=64.0, height=32.0, seed=7, ground_level=14.0, hill_height=5.0, hill_scale=40.0,
                          cliff_step=2.5, cave_depth=1.0, sand_level=10.0, lava_level=6.0)
ROUGH_STEPS = int(os.environ.get("VOXELWORLD_LOD_ROUGH_STEPS", "16"))


def random_level_map(rng, grid) -> np.ndarray:
    """Levels 0..5 at random, relaxed to the 2:1 rule every other time (the seams close for any map)."""
    raw = rng.integers(0, MAX_DETAIL_LEVEL + 1, size=grid).astype(np.int64)
    return relax_to_two_to_one(raw) if rng.random() < 0.5 else raw


def rough_edit(rng, volume, levels: np.ndarray) -> None:
    """Dig or fill a sphere on the ground where two chunks of different levels meet (or at a random chunk corner)."""
    grid = np.array(levels.shape)
    pairs = [(a, b) for a in map(tuple, np.argwhere(np.ones(levels.shape, bool)))
             for b in [tuple(np.array(a) + o) for o in ((1, 0, 0), (0, 0, 1), (1, 0, 1), (1, 1, 1))]
             if np.all(np.array(b) < grid) and levels[a] != levels[b]]
    a, b = pairs[rng.integers(len(pairs))] if pairs else ((0, 0, 0), (1, 0, 1))
    x, z = (np.maximum(np.array(a), np.array(b))[[0, 2]] * volume.chunk_size + rng.integers(-3, 4, 2)).tolist()
    column = np.flatnonzero(volume.density[x, :, z] >= volume.iso)
    y = (column.max() if len(column) else volume.shape[1] // 2) + rng.uniform(-3.0, 1.0)
    sphere = Sphere(tuple(volume.origin + np.array([x, y, z]) * volume.voxel_size), float(rng.uniform(1.0, 3.0)))
    if rng.random() < 0.6:
        volume.remove(sphere)
    else:
        volume.add(sphere, "soil")


def test_rough_ground_with_features_dropped_stays_closed_under_random_level_maps_and_edits():
    volume = generate_volume(ROUGH)
    mesher = ChunkMesher(volume)
    rng = np.random.default_rng(17)
    pinched = 0
    for step in range(ROUGH_STEPS):
        levels = random_level_map(rng, volume.chunk_grid_shape)
        mesher.set_detail_levels(levels)
        if step % 2 == 1:
            rough_edit(rng, volume, levels)
        mesher.update()
        assert_closed_at_levels(mesher, volume, step)
        mesh = mesher.display_mesh()
        assert display_material_defects(mesh) == dict.fromkeys(display_material_defects(mesh), 0), step
        pinched += topology(mesh.positions, mesh.indices).non_manifold_edges
        if step % 4 == 3:
            assert_same_meshes(mesher, volume, step)
    assert pinched > 0  # the feature floor did pinch the surface somewhere: the checks above saw it stay closed


def rough_chunk_surfaces(volume, floor: int, drop_features: bool):
    """(raw, simplified) surface of every chunk of ``volume`` holding a surface, at ``floor``."""
    for chunk in product(*(range(n) for n in volume.chunk_grid_shape)):
        lo = np.array(chunk) * volume.chunk_size
        hi = np.minimum(lo + volume.chunk_size, np.array(volume.shape) - 1)
        raw = chunk_surface(volume.density, volume.mat_a, volume.mat_b, volume.mix, volume.iso, lo, hi, False)
        if raw.vertex_count:
            yield raw, simplify_surface(raw, volume.density, volume.iso, 3, 0.25, volume.materials.kind_by_id,
                                        floor=floor, drop_features=drop_features)


@pytest.mark.parametrize("chunk_size", [32, 24])
def test_the_feature_floor_merges_within_the_chunk_and_coarsens_rough_ground(chunk_size):
    """On rough ground the topology test, the kinds and cells of several patches stop the plain floor; waived, the
    far levels keep a fraction of the vertices, each merged vertex still inside its own chunk's cells (merges never
    cross a chunk border: what keeps a chunk's mesh its own; with chunks of 24 samples, nodes of 16 and 32 would)."""
    volume = generate_volume(ROUGH, chunk_size=chunk_size)
    kind = volume.materials.kind_by_id
    for floor in (FEATURE_FLOOR_LEVEL, MAX_DETAIL_LEVEL):
        plain = sum(len(np.unique(kept.rep)) for _, kept in rough_chunk_surfaces(volume, floor, False))
        dropped, many_kinds, patches_merged = 0, 0, 0
        for raw, kept in rough_chunk_surfaces(volume, floor, True):
            assert kept.drops_features
            reps = np.unique(kept.rep)
            dropped += len(reps)
            lo, hi = raw.cell_lo, raw.cell_lo + np.array(raw.cell_case.shape)
            assert np.all((kept.positions[reps] >= lo) & (kept.positions[reps] <= hi)), (floor, lo)
            groups: dict[int, set] = {}
            for v in range(raw.vertex_count):
                groups.setdefault(int(kept.rep[v]), set()).update(
                    int(kind[m]) for m, e in zip(raw.materials[v], raw.evaluations[v]) if m and e > 0)
            many_kinds += sum(len(g) > 2 for g in groups.values())
            first = raw.cell_first[tuple(raw.surface_cells.T)]
            several = np.flatnonzero(np.diff(np.append(first, raw.vertex_count)) > 1)
            patches_merged += sum(kept.rep[first[c]] == kept.rep[first[c] + 1] for c in several)
        print(f"chunks of {chunk_size}, floor {floor}: {plain} vertices with the plain floor, {dropped} dropping "
              f"features")
        assert dropped < plain / 4
        assert many_kinds > 0 and patches_merged > 0  # the kinds and the one vertex per cell were waived


def test_levels_below_the_feature_floor_mesh_as_without_it_and_collision_meshes_ignore_levels(monkeypatch):
    volume = generate_volume(ROUGH)
    grid = volume.chunk_grid_shape
    near = np.random.default_rng(4).integers(0, FEATURE_FLOOR_LEVEL, size=grid).astype(np.int64)
    mesher = ChunkMesher(volume)
    mesher.set_detail_levels(near)
    mesher.update()
    import voxelworld.meshing.chunk_surfaces as chunk_surfaces
    monkeypatch.setattr(chunk_surfaces, "FEATURE_FLOOR_LEVEL", MAX_DETAIL_LEVEL + 1)  # never drop features
    without = ChunkMesher(volume)
    without.set_detail_levels(near)
    without.update()
    assert without.meshes.keys() == mesher.meshes.keys()
    for chunk, mesh in without.meshes.items():
        for name in MESHED:
            assert getattr(mesh, name).tobytes() == getattr(mesher.meshes[chunk], name).tobytes(), (chunk, name)
    monkeypatch.undo()
    far = ChunkMesher(volume)
    far.set_detail_levels(np.full(grid, MAX_DETAIL_LEVEL, np.int64))
    far.update()
    plain = ChunkMesher(volume)
    plain.update()
    assert far.display_mesh().triangle_count * 20 < plain.display_mesh().triangle_count
    a, b = far.collision_mesh(), plain.collision_mesh()
    assert a.positions.tobytes() == b.positions.tobytes() and a.indices.tobytes() == b.indices.tobytes()
    assert a.tri_material.tobytes() == b.tri_material.tobytes()


def reference_drop_mirrored_twins(corners: np.ndarray) -> list[int]:
    """Plain Python: the triangles kept when, for every vertex set, the first min(#one way, #other way) triangles
    of each winding are dropped."""
    winding = {}
    for t, (a, b, c) in enumerate(corners.tolist()):
        rotations = {(a, b, c), (b, c, a), (c, a, b)}
        key = tuple(sorted((a, b, c)))
        winding.setdefault(key, ([], []))[0 if key in rotations else 1].append(t)
    dropped = set()
    for ahead, behind in winding.values():
        pairs = min(len(ahead), len(behind))
        dropped |= set(ahead[:pairs]) | set(behind[:pairs])
    return [t for t in range(len(corners)) if t not in dropped]


def test_drop_mirrored_twins_matches_a_plain_reference():
    rng = np.random.default_rng(23)
    for trial in range(300):
        count = int(rng.integers(0, 40))
        vertices = int(rng.integers(3, 7))  # few vertices: many repeated sets, both windings
        corners = np.array([rng.choice(vertices, 3, replace=False) for _ in range(count)],
                           dtype=np.int64).reshape(count, 3) * int(rng.choice([1, 1000003]))
        triangles = np.arange(3 * count, dtype=np.uint32).reshape(count, 3)
        expected = reference_drop_mirrored_twins(corners)
        before = corners.copy()
        kept = _kernels.drop_mirrored_twins(corners, triangles, count)
        assert kept == len(expected), trial
        assert triangles[:kept].tolist() == [[3 * t, 3 * t + 1, 3 * t + 2] for t in expected], trial
        assert corners[:kept].tolist() == before[expected].tolist(), trial


# -------------------------------------------------------------------------------------- how much it saves
def triangles_per_level(volume: VoxelVolume) -> list[int]:
    counts = []
    for level in range(MAX_DETAIL_LEVEL + 1):
        mesher = ChunkMesher(volume)
        mesher.set_detail_levels(np.full(volume.chunk_grid_shape, level, np.int64))
        mesher.update()
        counts.append(mesher.display_mesh().triangle_count)
    return counts


def test_the_floor_simplifies_more_at_every_level():
    rock, layered = rolling_terrain(layers=False), rolling_terrain()
    counts, layered_counts = triangles_per_level(rock), triangles_per_level(layered)
    deep = ChunkMesher(rock, options=MeshOptions(levels=5))  # the tolerance alone, as deep as it goes
    deep.update()
    print(f"triangles per level of detail 0..5 (96x48x96 samples, 16-sample chunks): rock {counts}, grass over "
          f"soil over rock {layered_counts}; rock at levels=5 by the tolerance alone {deep.display_mesh().triangle_count}")
    for found in (counts, layered_counts):
        assert all(a >= b for a, b in zip(found, found[1:]))
        # Merging within the chunk's own 16 cells: level 4 is the whole chunk, and level 5 adds nothing.
        assert found[5] == found[4]
    # Tolerance 0.25 already merges flat parts at level 0; the floor goes on where the terrain is rough.
    assert counts[1] < 0.9 * counts[0] and counts[2] < 0.55 * counts[0] and counts[3] < 0.45 * counts[0]
    assert counts[3] < 0.5 * deep.display_mesh().triangle_count
    # Three kinds within a few samples of the surface (grass, soil, rock) stop merges on slopes: less to gain.
    assert layered_counts[3] < 0.6 * layered_counts[0]


# ----------------------------------------------------------------------------------- choosing the levels
def reference_levels(grid, chunk_size, voxel_size, origin, viewers, bands) -> np.ndarray:
    """Plain Python: the band of each chunk's nearest box point over all viewers, then for every chunk the least
    level over all chunks plus their Chebyshev distance."""
    edge = chunk_size * voxel_size
    raw = np.zeros(grid, np.int64)
    for chunk in product(*(range(n) for n in grid)):
        lo = np.asarray(origin) + np.array(chunk) * edge
        best = min(float(np.linalg.norm(np.clip(p, lo, lo + edge) - p)) for p in np.atleast_2d(viewers))
        raw[chunk] = sum(best >= d for d in bands)
    out = np.zeros(grid, np.int64)
    for chunk in product(*(range(n) for n in grid)):
        out[chunk] = min(raw[other] + max(abs(a - b) for a, b in zip(chunk, other))
                         for other in product(*(range(n) for n in grid)))
    return out


def neighbour_steps(levels: np.ndarray) -> int:
    """The largest level difference between chunks sharing a face, an edge or a corner."""
    padded = np.pad(levels, 1, mode="edge")
    n = levels.shape
    return max(int(np.abs(padded[1 + dx:1 + dx + n[0], 1 + dy:1 + dy + n[1], 1 + dz:1 + dz + n[2]] - levels).max())
               for dx, dy, dz in product((-1, 0, 1), repeat=3))


def test_detail_levels_match_a_plain_reference_and_keep_the_two_to_one_rule():
    rng = np.random.default_rng(11)
    for trial in range(30):
        grid = tuple(int(n) for n in rng.integers(1, 7, 3))
        voxel = float(rng.choice([0.5, 1.0, 2.0]))
        viewers = rng.uniform(-20.0, 120.0, (int(rng.integers(1, 4)), 3))
        # Narrow bands (some under a chunk's width) so that the raw levels break the 2:1 rule.
        bands = np.cumsum(rng.uniform(1.0, 30.0, int(rng.integers(1, 6))))
        got = detail_levels(grid, 16, voxel, (-5.0, 0.0, 3.0), viewers, bands)
        np.testing.assert_array_equal(got, reference_levels(grid, 16, voxel, (-5.0, 0.0, 3.0), viewers, bands),
                                      err_msg=str(trial))
        assert got.dtype == np.int64 and got.shape == grid
        assert neighbour_steps(got) <= 1 and got.max() <= len(bands)
    jumps = np.zeros((5, 1, 5), np.int64)
    jumps[1:, :, 1:] = 5
    relaxed = relax_to_two_to_one(jumps)
    assert relaxed[4, 0, 4] == 4 and relaxed[1, 0, 1] == 1 and neighbour_steps(relaxed) == 1  # corner neighbours too
    assert np.all(relaxed <= jumps)


@pytest.mark.parametrize("call, match", [
    (lambda: detail_levels((4, 2), 16, 1.0, (0, 0, 0), (0, 0, 0)), "chunk_grid_shape"),
    (lambda: detail_levels((4, 2, 0), 16, 1.0, (0, 0, 0), (0, 0, 0)), "chunk_grid_shape"),
    (lambda: detail_levels((4, 2, 4), 0, 1.0, (0, 0, 0), (0, 0, 0)), "chunk_size"),
    (lambda: detail_levels((4, 2, 4), 16, 0.0, (0, 0, 0), (0, 0, 0)), "voxel_size.*> 0"),
    (lambda: detail_levels((4, 2, 4), 16, 1.0, (0, np.nan, 0), (0, 0, 0)), "origin"),
    (lambda: detail_levels((4, 2, 4), 16, 1.0, (0, 0, 0), np.zeros((0, 3))), "viewers"),
    (lambda: detail_levels((4, 2, 4), 16, 1.0, (0, 0, 0), (0, np.inf, 0)), "viewers"),
    (lambda: detail_levels((4, 2, 4), 16, 1.0, (0, 0, 0), (0, 0, 0), (10.0, 5.0)), "distances.*increasing"),
    (lambda: detail_levels((4, 2, 4), 16, 1.0, (0, 0, 0), (0, 0, 0), tuple(range(1, 8))), "distances.*1..5"),
    (lambda: detail_levels((4, 2, 4), 16, 1.0, (0, 0, 0), (0, 0, 0), (0.0, 5.0)), "distances"),
    (lambda: relax_to_two_to_one(np.full((2, 2, 2), -1)), "levels >= 0"),
    (lambda: relax_to_two_to_one(np.zeros((2, 2))), "three dimensions"),
])
def test_bad_detail_arguments_are_named(call, match):
    with pytest.raises(ParameterError, match=match):
        call()


# ------------------------------------------------------------------------------------------ orientation
def against_gradient(mesh, volume: VoxelVolume) -> int:
    """Display triangles whose face normal points into the solid: against the outward direction, minus the
    trilinear density gradient at the triangle's centre (skipped where the gradient vanishes)."""
    gradient = np.stack(np.gradient(volume.density.astype(np.float64)), axis=0)
    centres = ((mesh.positions[mesh.indices].astype(np.float64).mean(axis=1) - volume.origin) / volume.voxel_size)
    outward = -np.stack([ndimage.map_coordinates(g, centres.T, order=1, mode="nearest") for g in gradient], axis=1)
    normals = face_normals(mesh.positions, mesh.indices)
    strong = np.linalg.norm(outward, axis=1) > 1e-6
    return int(np.sum(np.einsum("ij,ij->i", normals, outward)[strong] < 0.0))


def test_triangles_facing_against_the_gradient_stay_rare_under_the_two_to_one_rule():
    volume = rolling_terrain()
    rng = np.random.default_rng(8)
    grid = volume.chunk_grid_shape
    counts, triangles = [], []
    for _ in range(6):
        mesher = ChunkMesher(volume)
        mesher.set_detail_levels(levels_for(volume, random_camera(rng, volume)))
        mesher.update()
        mesh = mesher.display_mesh()
        counts.append(against_gradient(mesh, volume))
        triangles.append(mesh.triangle_count)
    jumpy = ChunkMesher(volume)
    jumpy.set_detail_levels(np.where(np.indices(grid).sum(axis=0) % 2, 5, 0).astype(np.int64))
    jumpy.update()
    jumps = against_gradient(jumpy.display_mesh(), volume)
    print(f"triangles against the gradient, 2:1 maps: {counts} of {triangles}; checkerboard 0/5: {jumps} of "
          f"{jumpy.display_mesh().triangle_count}")
    # Measured: 12..21 of 6 000-7 700 (at most 0.32 %; the default mesher shows 8 on this terrain, uniform level 3
    # shows 23): seams at 2:1 add few beyond what the coarse levels themselves make.
    assert all(c <= 0.005 * t for c, t in zip(counts, triangles))
