"""ChunkMesher.defer_changes / prepare_deferred: a streaming mesher's state (active chunks, levels, collision meshes)
moves at once, its display work is owed and lands from the background thread when done; once nothing is owed the
meshes are those of a fresh mesher of the same voxels at the same chunks and levels, bit for bit, whatever landed
when. Far chunks keep their display surfaces as the meshes need them (representatives only), near ones their raw
surfaces too."""

from __future__ import annotations

import time

import numpy as np
import pytest

from voxelworld.meshing import ChunkMesher, detail_levels, mesher_levels
from voxelworld.meshing.chunks import HOT_DETAIL_LEVEL
from voxelworld.meshing.mesher_deferred import DUE_WAIT_FRAMES, EDITS_OWED
from voxelworld.meshing.surface import PackedSurfaces, packed_cells
from voxelworld.terrain import GeneratorSettings, Sphere, generate_world

BANDS = (8.0, 16.0, 32.0, 48.0, 64.0)


@pytest.fixture(scope="module")
def world():
    return generate_world(GeneratorSettings(size=128, height=64, seed=3))


def _meshes(mesher):
    return {chunk: (mesh.positions.tobytes(), mesh.indices.tobytes(), mesh.occlusion.tobytes(), mesh.mat_a.tobytes(),
                    mesh.mat_b.tobytes(), mesh.blend.tobytes(), mesh.normals.tobytes())
            for chunk, mesh in mesher.meshes.items()}


def _fresh(mesher):
    fresh = ChunkMesher(mesher.volume.snapshot())
    fresh.set_active(mesher.active)
    fresh.set_display_levels(mesher.display_levels)
    fresh.set_detail_levels(mesher.detail_levels)
    fresh.update()
    return fresh


def _land_all(mesher, batch=None):
    """Land owed work a job at a time (``batch`` chunks a job, nearest the grid's start first) until none is owed."""
    jobs = 0
    while mesher.owes_display:
        owed = sorted(map(tuple, np.argwhere(mesher.owed_surfaces | mesher.owed_meshes).tolist()))
        mesher.apply_changes(mesher.prepare_deferred(owed[:batch]))
        mesher.update()
        jobs += 1
        assert jobs < 500
    return jobs


def _start(world):
    mesher = ChunkMesher(world.snapshot())
    active = np.zeros(world.chunk_grid_shape, dtype=bool)
    active[:3] = True
    mesher.set_active(active)
    mesher.update()
    return mesher


def test_owed_work_lands_as_a_fresh_mesh_with_edits_between(world):
    mesher = _start(world)
    rng = np.random.default_rng(5)
    grid = world.chunk_grid_shape
    for step in range(8):
        active = rng.random(grid) < 0.7
        levels = detail_levels(grid, world.chunk_size, world.voxel_size, world.origin,
                               [rng.uniform(0, 128, 3)], BANDS)
        turned = mesher.defer_changes(active, levels)
        assert turned and np.array_equal(mesher.active, active) and np.array_equal(mesher.detail_levels, levels)
        assert mesher.owes_display
        # The state is the synchronous one at once: collision meshes as a fresh mesher's, nothing landed yet.
        fresh = _fresh(mesher)
        for chunk in list(map(tuple, np.argwhere(active).tolist()))[::7]:
            a, b = mesher.chunk_collision_mesh(chunk), fresh.chunk_collision_mesh(chunk)
            assert np.array_equal(a.positions, b.positions) and np.array_equal(a.indices, b.indices), chunk
        owed = sorted(map(tuple, np.argwhere(mesher.owed_surfaces | mesher.owed_meshes).tolist()))
        surfaces, meshes = mesher.owed_chunks()  # (in chunk order, as argwhere lists a grid)
        assert np.array_equal(surfaces, np.argwhere(mesher.owed_surfaces)) and len(surfaces) > 1
        assert np.array_equal(meshes, np.argwhere(mesher.owed_meshes))
        job = mesher.prepare_deferred(owed[: len(owed) // 2 + 1])
        if step % 2 == 0:  # an edit while the thread works: what it touched stays owed, or is made by the update
            mesher.volume.remove(Sphere(tuple(rng.uniform(16, 112, 3) * [1, 0.4, 1]), 5.0))
            mesher.update()
        mesher.apply_changes(job)
        mesher.update()
    _land_all(mesher, batch=7)
    assert _meshes(mesher) == _meshes(_fresh(mesher)) and len(mesher.meshes) > 20


def test_a_slow_thread_lands_the_same_meshes_later(world, monkeypatch):
    quick, slow = _start(world), _start(world)
    grid = world.chunk_grid_shape
    levels = detail_levels(grid, world.chunk_size, world.voxel_size, world.origin, [(20.0, 30.0, 20.0)], BANDS)
    work = mesher_levels._prepare
    for mesher in (quick, slow):
        mesher.defer_changes(np.ones(grid, dtype=bool), levels)
    _land_all(quick)

    def late(*args):
        time.sleep(0.3)
        return work(*args)

    monkeypatch.setattr(mesher_levels, "_prepare", late)
    owed = sorted(map(tuple, np.argwhere(slow.owed_surfaces | slow.owed_meshes).tolist()))
    job = slow.prepare_deferred(owed)
    assert not job.done()
    before = _meshes(slow)
    slow.update()  # frames go on meanwhile: nothing owed is made by them
    assert _meshes(slow) == before and slow.owes_display
    slow.apply_changes(job)
    slow.update()
    assert not slow.owes_display and _meshes(slow) == _meshes(quick)



def test_a_job_makes_only_its_own_surfaces_and_skips_what_turned_stale(world, monkeypatch):
    """A job makes no surface a later job owes (the meshes joining one wait for it: owed), nor the work of a chunk
    restamped after it was asked for (a new level: never installed); what lands in the end is a fresh mesher's."""
    import threading

    mesher = _start(world)
    grid = world.chunk_grid_shape
    mesher.defer_changes(np.ones(grid, dtype=bool), mesher.detail_levels)
    owed = sorted(map(tuple, np.argwhere(mesher.owed_surfaces).tolist()))
    made, real = [], mesher_levels.raw_surface_and_density

    def counted(volume, chunk, *args, **kwargs):
        made.append(tuple(chunk))
        return real(volume, chunk, *args, **kwargs)

    monkeypatch.setattr(mesher_levels, "raw_surface_and_density", counted)
    first = owed[len(owed) // 2:]  # (their lower neighbours in the other half)
    mesher.apply_changes(mesher.prepare_deferred(first))
    assert made and set(made) <= set(first)
    assert mesher.owed_meshes.any()  # the meshes joining the later half wait for it
    go, work = threading.Event(), mesher_levels._prepare

    def held(*args):
        go.wait(10.0)
        return work(*args)

    monkeypatch.setattr(mesher_levels, "_prepare", held)
    rest = sorted(map(tuple, np.argwhere(mesher.owed_surfaces).tolist()))
    job = mesher.prepare_deferred(rest)
    levels = mesher.detail_levels
    levels[rest[0]] = 1  # restamped before the thread starts: its work is skipped, and it stays owed
    mesher.defer_changes(mesher.active, levels)
    volume = mesher.volume
    centre = volume.origin + (np.array(rest[-1]) + 0.5) * volume.chunk_size * volume.voxel_size
    volume.remove(Sphere(tuple(centre), 3.0))  # edited before the thread starts: skipped too
    made.clear()
    go.set()
    mesher.apply_changes(job)
    assert made and rest[0] not in made and mesher.owed_surfaces[rest[0]]
    assert rest[-1] not in made and mesher.owed_surfaces[rest[-1]]
    mesher.update()
    monkeypatch.setattr(mesher_levels, "_prepare", work)
    _land_all(mesher)
    assert _meshes(mesher) == _meshes(_fresh(mesher))

def test_a_job_starts_its_surfaces_in_the_order_asked_and_none_after_its_deadline(world, monkeypatch):
    """The surfaces a job has not started by its deadline stay owed, with the meshes joining them; those it made
    are the first of the order it was asked in (nearest the actors first, as streaming asks); later jobs make the
    rest and the meshes end as a fresh mesher's, bit for bit."""
    mesher = _start(world)
    grid = world.chunk_grid_shape
    mesher.defer_changes(np.ones(grid, dtype=bool), np.zeros(grid, dtype=np.int64))
    owed = sorted(map(tuple, np.argwhere(mesher.owed_surfaces).tolist()))
    order = owed[::-1]  # another order than the chunks' (which the job keeps its surfaces in)
    form, formed = mesher_levels.display_form, []

    def slow_form(*args, **kwargs):
        time.sleep(0.02)
        formed.append(args[1])
        return form(*args, **kwargs)

    monkeypatch.setattr(mesher_levels, "display_form", slow_form)
    mesher.apply_changes(mesher.prepare_deferred(order, deadline=time.perf_counter() + 0.05))
    still = set(map(tuple, np.argwhere(mesher.owed_surfaces).tolist()))
    made = [chunk for chunk in order if chunk not in still]
    assert len(owed) > 20 and 1 <= len(made) < len(owed) // 2
    assert made == order[:len(made)]  # started in the order asked, none after the deadline
    assert len(formed) == len(made)  # the meshes joining those left wait: none of theirs made for them
    mesher.apply_changes(mesher.prepare_deferred(order, deadline=time.perf_counter() - 1.0))
    assert set(map(tuple, np.argwhere(mesher.owed_surfaces).tolist())) == still - {order[len(made)]}  # (progress)
    still.discard(order[len(made)])
    monkeypatch.setattr(mesher_levels, "display_form", form)
    job = mesher.prepare_deferred(sorted(still), deadline=None)  # no deadline: every surface made
    mesher.apply_changes(job)
    assert not mesher.owed_surfaces.any()
    _land_all(mesher)
    assert _meshes(mesher) == _meshes(_fresh(mesher))


def test_settled_work_is_made_by_the_next_update(world):
    mesher = _start(world)
    grid = world.chunk_grid_shape
    levels = detail_levels(grid, world.chunk_size, world.voxel_size, world.origin, [(100.0, 30.0, 90.0)], BANDS)
    mesher.defer_changes(np.ones(grid, dtype=bool), levels)
    mesher.settle_deferred()
    assert not mesher.owes_display
    mesher.update()
    assert _meshes(mesher) == _meshes(_fresh(mesher))


def test_far_chunks_keep_no_full_surface_near_ones_do(world):
    mesher = _start(world)
    grid = world.chunk_grid_shape
    levels = detail_levels(grid, world.chunk_size, world.voxel_size, world.origin, [(8.0, 30.0, 8.0)], BANDS)
    assert levels.max() > HOT_DETAIL_LEVEL >= levels.min()
    mesher.defer_changes(np.ones(grid, dtype=bool), levels)
    _land_all(mesher)
    kept = mesher._display_surfaces
    surfaced = [c for c in kept if kept[c].vertex_count]
    hot = {c for c in surfaced if levels[c] <= HOT_DETAIL_LEVEL}
    cold = set(surfaced) - hot
    assert len(hot) >= 3 and len(cold) >= 10
    assert hot <= set(mesher._raw)  # near: the raw surface (every vertex, with quadrics) for edits and collisions
    assert not cold & set(mesher._raw)  # far: none
    full = sum(kept[c].vertex_count for c in cold)
    rows = sum(len(kept._packed[c].positions) for c in cold)  # what the far chunks keep of their vertices
    assert rows * 8 < full


def test_packed_surfaces_keep_representatives_and_mesh_the_same(world):
    mesher = ChunkMesher(world.snapshot())
    mesher.set_detail_levels(np.full(world.chunk_grid_shape, 4, dtype=np.int64))
    mesher.update()
    surfaces = {c: mesher._simplified_display(c) for c in mesher._display_surfaces
                if mesher._display_surfaces[c].vertex_count}
    kept = PackedSurfaces()
    for chunk, surface in surfaces.items():
        kept[chunk] = surface
    for chunk, surface in surfaces.items():
        back, packed = kept[chunk], kept._packed[chunk]
        reps = len(np.unique(surface.rep))
        assert len(packed.positions) == (reps if 2 * reps <= surface.vertex_count else surface.vertex_count)
        assert np.array_equal(back.rep, surface.rep) and np.array_equal(back.surface_cells, surface.surface_cells)
        for name in ("positions", "normals", "materials", "evaluations"):  # the representatives' data, exactly
            assert np.array_equal(getattr(back, name)[surface.rep], getattr(surface, name)[surface.rep]), name
        assert np.array_equal(back.cell_case, surface.cell_case)
        assert packed_cells(kept[chunk]) is packed
    assert sum(kept._packed[c].standing is not None for c in surfaces) * 2 > len(surfaces)  # mostly compacted
    # Meshes of the packed surfaces are those of the surfaces as made, bit for bit.
    from voxelworld.meshing.mesh import assemble_chunk

    volume = mesher.volume
    for chunk in list(surfaces)[::3]:
        a = assemble_chunk(volume, chunk, lambda c: surfaces.get(c), collision=False, fields=volume)
        b = assemble_chunk(volume, chunk, lambda c: kept[c] if c in kept else None, collision=False, fields=volume)
        assert np.array_equal(a.positions, b.positions) and np.array_equal(a.indices, b.indices), chunk
        assert np.array_equal(a.blend, b.blend) and np.array_equal(a.occlusion, b.occlusion), chunk


def test_an_edit_deferred_shows_once_its_job_lands_and_an_owed_chunk_edited_again_and_again_soon(world):
    """defer_refreshed: the chunks an edit refreshed keep their meshes (their display work owed) until a job lands,
    then show what a fresh mesher makes of the edited voxels; a chunk edited EDITS_OWED times more while still owed
    is made by the update steps of the next frame whose refresh remakes no chunk (the edits show every few however
    late the jobs are, and not in the frame of an edit, which pays for it)."""
    mesher = _start(world)
    mesher.update()
    before = _meshes(mesher)
    mesher.volume.add(Sphere((40.0, 41.8, 40.0), 1.2), "rock")  # a boulder just above the ground: it shades it
    refreshed = mesher.refresh_vertices()
    assert refreshed
    owed = mesher.defer_refreshed(refreshed)
    assert owed and owed <= refreshed and mesher.owes_display
    assert all(mesher.owed_surfaces[c] for c in owed)
    surfaces, meshes = mesher.owed_chunks()  # listed in chunk order, as the grids mark them
    assert surfaces.tolist() == np.argwhere(mesher.owed_surfaces).tolist() == sorted(map(list, owed))
    assert meshes.tolist() == np.argwhere(mesher.owed_meshes).tolist()
    mesher.simplify_vertices()
    update = mesher.build_display_meshes()
    assert refreshed <= update.surfaces_rebuilt  # reported as remade vertices all the same
    assert _meshes(mesher) == before  # nothing shown yet: not even the ground's new shading
    assert mesher.defer_refreshed(refreshed) == frozenset()  # refreshed by no update since
    # Edited again while owed: still owed, up to the EDITS_OWED th edit since, which is made now.
    for edit in range(1, EDITS_OWED + 1):
        mesher.volume.remove(Sphere((40.0, 38.0 - 0.5 * edit, 40.0), 3.0 + edit))
        again = mesher.refresh_vertices()
        assert owed <= again
        if edit < EDITS_OWED:
            assert mesher.defer_refreshed(again) == again
            mesher.simplify_vertices()
            mesher.build_display_meshes()
            assert all(_meshes(mesher).get(c) == before.get(c) for c in owed)
    assert mesher.defer_refreshed(again) == again  # still owed in the edit's frame ...
    mesher.simplify_vertices()
    mesher.build_display_meshes()
    assert all(_meshes(mesher).get(c) == before.get(c) for c in owed)
    mesher.volume.remove(Sphere((8.0, 40.5, 40.0), 3.0))  # ... and in a frame with an edit of its own elsewhere
    elsewhere = mesher.refresh_vertices()
    assert elsewhere and not elsewhere & owed
    mesher.simplify_vertices()
    mesher.build_display_meshes()
    assert all(_meshes(mesher).get(c) == before.get(c) for c in owed)
    assert mesher.refresh_vertices() == frozenset()  # a frame that remakes no chunk: made by its update steps
    assert mesher.owes_display
    mesher.simplify_vertices()
    mesher.build_display_meshes()
    shown = _meshes(mesher)
    assert any(shown.get(c) != before.get(c) for c in owed)
    assert not any(mesher.owed_surfaces[c] for c in owed)
    _land_all(mesher)
    assert _meshes(mesher) == _meshes(_fresh(mesher)) != before


def test_a_due_chunk_waits_for_a_quiet_frame_at_most_due_wait_frames(world):
    """A chunk due after its EDITS_OWED th edit while owed, in frames that each edit elsewhere (a player digging
    every frame), is made by the DUE_WAIT_FRAMES th of them: a far cut still shows however busy the frames are."""
    mesher = _start(world)
    before = _meshes(mesher)
    owed = None
    for edit in range(EDITS_OWED + 1):  # owed at the first, due at the EDITS_OWED th edit since
        mesher.volume.remove(Sphere((40.0, 40.0 - 0.5 * edit, 40.0), 2.0 + edit))
        refreshed = mesher.refresh_vertices()
        assert mesher.defer_refreshed(refreshed) == refreshed
        owed = refreshed if owed is None else owed
        mesher.simplify_vertices()
        mesher.build_display_meshes()
    assert all(_meshes(mesher).get(c) == before.get(c) for c in owed)
    for frame in range(1, DUE_WAIT_FRAMES + 1):
        mesher.volume.remove(Sphere((8.0 + 0.1 * frame, 40.5, 40.0), 2.0 + 0.2 * frame))  # elsewhere, every frame
        elsewhere = mesher.refresh_vertices()
        assert elsewhere and not elsewhere & owed
        mesher.simplify_vertices()
        mesher.build_display_meshes()
        shown = any(_meshes(mesher).get(c) != before.get(c) for c in owed)
        assert shown == (frame == DUE_WAIT_FRAMES), frame


def test_a_job_copies_the_unfollowed_chunks_it_reads_again_only_when_they_changed(world):
    """prepare_deferred makes the mesher's copy current at the chunks its work reads that the mesher does not
    follow (two chunks around the owed ones), copying from the volume only those changed since it last took them:
    a job beside the last one reads mostly the same chunks at the view's edge."""
    mesher = _start(world)  # active: x 0..2 (followed to x = 3)
    volume, grid = mesher.volume, world.chunk_grid_shape
    copied = []
    copy = volume.copy_chunk_to
    volume.copy_chunk_to = lambda target, chunk, names: (copied.append(tuple(chunk)), copy(target, chunk, names))[1]
    try:
        active = np.zeros(grid, dtype=bool)
        active[:4] = True
        mesher.defer_changes(active, np.zeros(grid, dtype=np.int64))  # x = 3 owed; x >= 4 not followed yet
        owed = [tuple(c) for c in mesher.owed_chunks()[0].tolist()]
        assert len(owed) >= 12

        def edit(chunk):  # a hole in the middle of the chunk at x = 5 beside ``chunk`` (not followed)
            before = volume.chunk_versions.copy()
            volume.remove(Sphere(volume.index_to_world((np.array([5, *chunk[1:]]) + 0.5) * volume.chunk_size), 5.0))
            changed = set(map(tuple, np.argwhere(volume.chunk_versions != before).tolist()))
            assert changed and all(c[0] == 5 for c in changed)
            return changed

        def job(chunks):
            copied.clear()
            mesher.apply_changes(mesher.prepare_deferred(chunks))
            reads = np.zeros(grid, dtype=bool)
            for chunk in chunks:
                reads[tuple(slice(max(c - 2, 0), c + 3) for c in chunk)] = True
            for chunk in map(tuple, np.argwhere(reads & (np.arange(grid[0]) >= 4)[:, None, None]).tolist()):
                assert np.array_equal(mesher._fields.chunk_fields(chunk, ["density"])["density"],
                                      volume.chunk_fields(chunk, ["density"])["density"]), chunk
            return set(copied)

        edited = edit(owed[0])
        assert job(owed[:4]) == edited  # the rest is as the mesher's copy was made: nothing to copy
        assert job(owed[4:8]) == set()  # its neighbours read the same chunks: none changed since
        edited = edit(owed[8])
        assert job(owed[8:12]) == edited
        _land_all(mesher)
        assert _meshes(mesher) == _meshes(_fresh(mesher))
        # A mesher taking a state back holds the volume's voxels as they are: nothing to copy either.
        twin = ChunkMesher(volume)
        twin.load_state_dict(mesher.state_dict())
        active[4] = True
        twin.defer_changes(active, np.zeros(grid, dtype=np.int64))  # x = 4 owed, reading x = 5 and 6
        copied.clear()
        assert _land_all(twin) and copied == []
        assert _meshes(twin) == _meshes(_fresh(twin))
    finally:
        del volume.copy_chunk_to


def test_chunks_turning_cold_let_go_of_their_raw_surfaces_without_any_made(world):
    """A level change alone (no raw surface made since) lets the chunks it turned cold drop their raw surfaces
    at the next update (ChunkMesher._cool looks again when the levels or the raw surfaces kept changed)."""
    mesher = ChunkMesher(world.snapshot())
    mesher.update()  # every chunk at level 0: hot, its raw surface kept
    assert mesher._raw
    kept = mesher._raw_kept
    mesher.update()  # nothing changed: nothing to look at again
    mesher.set_detail_levels(np.full(world.chunk_grid_shape, HOT_DETAIL_LEVEL + 1, dtype=np.int64))
    mesher.update()
    assert mesher._raw_kept == kept and not mesher._raw
    assert _meshes(mesher) == _meshes(_fresh(mesher))
