"""ChunkMesher.prepare_changes / apply_changes: changes of active chunks and levels of detail worked out on a
background thread give the meshes the synchronous set_active / set_detail_levels give, bit for bit, whatever
happened between (edits) and however slow the thread was."""

from __future__ import annotations

import time
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pytest

from voxelworld.errors import ParameterError
from voxelworld.frame_first import frame_running
from voxelworld.meshing import ChunkMesher, PreparedChanges, detail_levels, mesher_levels
from voxelworld.meshing.prepared import background_executor, background_map, spread
from voxelworld.terrain import GeneratorSettings, Sphere, generate_world

BANDS = (8.0, 16.0, 32.0, 48.0, 64.0)


@pytest.fixture(scope="module")
def world():
    return generate_world(GeneratorSettings(size=128, height=64, seed=3))


def _meshes(mesher):
    return {chunk: (mesh.positions.tobytes(), mesh.indices.tobytes(), mesh.occlusion.tobytes(),
                    mesh.mat_a.tobytes(), mesh.mat_b.tobytes(), mesh.blend.tobytes(), mesh.normals.tobytes()) for chunk, mesh in mesher.meshes.items()}


def _twins(world):
    twins = []
    for _ in range(2):
        mesher = ChunkMesher(world.snapshot())
        active = np.zeros(world.chunk_grid_shape, dtype=bool)
        active[:2] = True
        mesher.set_active(active)
        mesher.set_detail_levels(np.ones(world.chunk_grid_shape, dtype=np.int64))
        mesher.update()
        twins.append(mesher)
    return twins


def test_prepared_changes_equal_synchronous_ones_with_edits_between(world):
    prepared_mesher, plain = _twins(world)
    rng = np.random.default_rng(1)
    grid = world.chunk_grid_shape
    installed = fallen_back = 0
    for step in range(10):
        active = rng.random(grid) < 0.6
        levels = detail_levels(grid, world.chunk_size, world.voxel_size, world.origin,
                               [rng.uniform(0, 128, 3)], BANDS)
        prepared = prepared_mesher.prepare_changes(active, levels)
        if step % 2 == 0:  # an edit lands while the thread works: what it touched is done the ordinary way
            dig = Sphere(tuple(rng.uniform(16, 112, 3) * [1, 0.4, 1]), 5.0)
            for mesher in (prepared_mesher, plain):
                mesher.volume.remove(dig)
                mesher.update()
        turned = prepared_mesher.apply_changes(prepared)
        installed += len(prepared_mesher._installed)
        fallen_back += len(prepared_mesher._remesh | prepared_mesher._relevelled | prepared_mesher._activated)
        got = prepared_mesher.update()
        expected_turned = plain.set_detail_levels(levels) | plain.set_active(active)
        expected = plain.update()
        assert turned == expected_turned
        assert sorted(got.remeshed) == sorted(expected.remeshed)
        assert got.surfaces_rebuilt == expected.surfaces_rebuilt
        assert _meshes(prepared_mesher) == _meshes(plain)
    assert installed > 0 and fallen_back > 0  # both paths ran


def test_a_slow_thread_changes_nothing(world, monkeypatch):
    fast, slow_mesher = _twins(world)
    grid = world.chunk_grid_shape
    active = np.ones(grid, dtype=bool)
    levels = detail_levels(grid, world.chunk_size, world.voxel_size, world.origin, [(20.0, 30.0, 20.0)], BANDS)
    fast.apply_changes(fast.prepare_changes(active, levels))
    fast.update()
    work = mesher_levels._prepare

    def slow(*args):
        time.sleep(0.3)
        return work(*args)

    monkeypatch.setattr(mesher_levels, "_prepare", slow)
    prepared = slow_mesher.prepare_changes(active, levels)
    assert not prepared.done()
    slow_mesher.apply_changes(prepared)  # waits
    slow_mesher.update()
    assert _meshes(fast) == _meshes(slow_mesher) and len(_meshes(fast)) > 20


def test_bad_arguments_are_refused_before_anything_starts(world):
    mesher, _ = _twins(world)
    grid = world.chunk_grid_shape
    with pytest.raises(ParameterError, match="active"):
        mesher.prepare_changes(np.ones((1, 1, 1), dtype=bool), mesher.detail_levels)
    with pytest.raises(ParameterError, match="levels"):
        mesher.prepare_changes(np.ones(grid, dtype=bool), np.full(grid, 9))
    with pytest.raises(ParameterError, match="prepared"):
        mesher.apply_changes("soon")
    assert isinstance(mesher.prepare_changes(mesher.active, mesher.detail_levels), PreparedChanges)


def test_spread_marks_every_chunk_whose_box_holds_a_change():
    rng = np.random.default_rng(4)
    changed = rng.random((5, 4, 6)) < 0.08
    for below, above in ((1, 1), (2, 1), (1, 0)):
        got = spread(changed, below, above)
        for c in np.ndindex(changed.shape):
            box = tuple(slice(max(x - below, 0), x + above + 1) for x in c)
            assert got[c] == changed[box].any(), (below, above, c)


def test_packed_display_surfaces_hand_back_what_the_meshes_read(world):
    from voxelworld.meshing.surface import PackedSurfaces

    mesher = ChunkMesher(world.snapshot())
    mesher.update()
    kept = PackedSurfaces()
    surfaces = {c: s for c, s in mesher._raw.items() if s.vertex_count}  # cell arrays as made
    assert len(surfaces) > 10
    for chunk, surface in surfaces.items():
        kept[chunk] = surface
    for chunk, surface in surfaces.items():
        back = kept[chunk]
        assert np.array_equal(back.cell_case, surface.cell_case)  # 0 / 255 off the surface, exact on it
        cells = tuple(surface.surface_cells.T.astype(np.intp))
        assert np.array_equal(back.cell_first[cells], surface.cell_first[cells])
        for name in ("surface_cells", "positions", "normals", "materials", "evaluations", "rep", "cell_lo"):
            assert np.array_equal(getattr(back, name), getattr(surface, name)), name
    assert set(kept.copy()) == set(surfaces) and len(kept) == len(surfaces)


def test_background_tasks_asked_for_in_a_frame_start_after_it():
    """A job or a worker's piece asked for while a frame runs does not start (take the GIL from the frame) until
    the frame ends; asked for between frames, it starts at once."""
    started: list[str] = []
    with frame_running():
        job = background_executor("test").submit(started.append, "job")
        time.sleep(0.02)  # (well below frame_first.MAX_STEP_ASIDE)
        assert started == []
    job.result(5)
    assert started == ["job"]
    with frame_running(), ThreadPoolExecutor(1) as asker:  # (asked by a thread that does not step aside itself)
        pieces = asker.submit(background_map, lambda x: started.append(x) or x, [1, 2, 3])
        time.sleep(0.02)
        assert started == ["job"]
    assert pieces.result(5) == [1, 2, 3] and sorted(started[1:]) == [1, 2, 3]
    assert background_executor("test").submit(lambda: 7).result(5) == 7  # between frames: at once
