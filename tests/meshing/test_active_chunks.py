"""ChunkMesher.set_active: a large world's mesher meshes only the chunks in view; what it builds for them is what a
mesher of the whole volume builds, and edits elsewhere cost nothing until a chunk turns active."""

from __future__ import annotations

from itertools import product

import numpy as np
import pytest

from voxelworld.errors import ParameterError
from voxelworld.meshing import ChunkMesher
from voxelworld.terrain import Box, SparseVolume, Sphere, Tool, VoxelVolume, demo_terrain

SOFT = Tool(gives_way_below=10.0, unbreakable_from=10.0)


def world() -> SparseVolume:
    dense = demo_terrain(seed=7)
    regrouped = VoxelVolume(dense.shape, dense.voxel_size, dense.origin, dense.iso, 16, dense.materials)
    for name in ("density", "mat_a", "mat_b", "mix", "damage"):
        getattr(regrouped, name)[...] = getattr(dense, name)
    return SparseVolume.from_volume(regrouped)


def same(a, b) -> bool:
    return all(np.array_equal(getattr(a, f), getattr(b, f)) for f in ("positions", "normals", "indices", "mat_a",
                                                                          "mat_b", "blend", "occlusion"))


def columns(grid, x0, x1, z0, z1) -> np.ndarray:
    active = np.zeros(grid, dtype=bool)
    active[x0:x1, :, z0:z1] = True
    return active


def inner(active: np.ndarray) -> list[tuple]:
    """Active chunks whose lower neighbours are all active: their meshes lose nothing at the region's border."""
    return [c for c in map(tuple, np.argwhere(active).tolist())
            if all(active[tuple(max(a - o, 0) for a, o in zip(c, offset))] for offset in product((0, 1), repeat=3))]


def test_active_chunks_mesh_as_in_a_whole_mesher_and_nothing_else_is_meshed():
    volume = world()
    whole = ChunkMesher(volume)
    whole.update()
    active = columns(volume.chunk_grid_shape, 1, 4, 2, 5)
    part = ChunkMesher(volume)
    assert part.set_active(active) == frozenset(map(tuple, np.argwhere(~active).tolist()))
    update = part.update()
    assert set(update.meshes) <= set(map(tuple, np.argwhere(active).tolist()))
    assert set(part.meshes) <= set(update.meshes)
    for chunk in inner(active):
        if chunk in whole.meshes:
            assert same(part.meshes[chunk], whole.meshes[chunk]), chunk
    outside = tuple(np.argwhere(~active)[0])
    with pytest.raises(ParameterError, match="active chunk"):
        part.chunk_collision_mesh(outside)
    assert part.collision_mesh(Box((0.0, 0.0, 0.0), (95.0, 47.0, 95.0))).triangle_count == sum(
        part.chunk_collision_mesh(c).triangle_count for c in map(tuple, np.argwhere(active).tolist()))


def test_edits_away_from_the_active_chunks_wait_until_they_turn_active():
    volume = world()
    active = columns(volume.chunk_grid_shape, 0, 2, 0, 2)
    mesher = ChunkMesher(volume)
    mesher.set_active(active)
    mesher.update()
    shown = set(mesher.meshes)
    assert shown
    far = (72.0, 18.0, 72.0)  # chunk (4, 1, 4): not followed
    volume.remove(Sphere(far, 5.0), tool=SOFT)
    assert mesher.refresh_vertices() == frozenset()
    assert mesher.update().meshes == {}
    # Walk over: the far chunks turn active, the near ones inactive.
    moved = columns(volume.chunk_grid_shape, 3, 6, 3, 6)
    changed = mesher.set_active(moved)
    assert changed == frozenset(map(tuple, np.argwhere(moved != active).tolist()))
    update = mesher.update()
    assert all(update.meshes[c].triangle_count == 0 for c in shown)  # reported empty: a renderer drops them
    assert not set(mesher.meshes) & set(map(tuple, np.argwhere(active).tolist()))
    fresh = ChunkMesher(volume)
    fresh.update()
    for chunk in inner(moved):
        if chunk in fresh.meshes:
            assert same(mesher.meshes[chunk], fresh.meshes[chunk]), chunk
    assert (4, 1, 4) in mesher.meshes


def test_an_edit_inside_the_active_chunks_remeshes_as_in_a_whole_mesher():
    volume = world()
    active = columns(volume.chunk_grid_shape, 1, 5, 1, 5)
    part, whole = ChunkMesher(volume), ChunkMesher(volume)
    part.set_active(active)
    part.update(), whole.update()
    volume.remove(Sphere((48.0, 18.0, 48.0), 4.0), tool=SOFT)  # a corner of eight chunks, well inside
    volume.add(Box((2.0, 20.0, 2.0), (6.0, 26.0, 6.0)), "rock")  # outside: the whole mesher alone remeshes it
    remeshed = part.update().remeshed
    assert remeshed and remeshed <= set(map(tuple, np.argwhere(active).tolist()))
    whole.update()
    for chunk in inner(active):
        if chunk in whole.meshes:
            assert same(part.meshes[chunk], whole.meshes[chunk]), chunk


def test_the_active_chunks_travel_with_the_mesher_state():
    volume = world()
    active = columns(volume.chunk_grid_shape, 0, 3, 0, 3)
    mesher = ChunkMesher(volume)
    mesher.set_active(active)
    mesher.update()
    volume.remove(Sphere((20.0, 18.0, 20.0), 3.0), tool=SOFT)  # not meshed yet
    volume.remove(Sphere((80.0, 18.0, 80.0), 3.0), tool=SOFT)  # not followed: not behind
    state = mesher.state_dict()
    assert np.array_equal(state["active"], active)
    assert (5, 1, 5) not in state["behind"] and (1, 1, 1) in state["behind"]
    twin = ChunkMesher(volume)
    twin.load_state_dict(state)
    assert np.array_equal(twin.active, active)
    assert set(twin.meshes) == set(mesher.meshes)
    assert all(same(twin.meshes[c], mesher.meshes[c]) for c in mesher.meshes)
    with pytest.raises(ParameterError, match="active"):
        twin.set_active(np.ones((2, 2, 2), dtype=bool))
