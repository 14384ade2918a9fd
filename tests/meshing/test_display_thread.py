"""The display meshes assembled on the display thread (``ChunkMesher.start_display_meshes`` and
``finish_display_meshes``): the same meshes, bit for bit, as the caller's thread makes; the frame's other work may
run meanwhile (collision meshes asked for, the volume edited); a mesher is never updated with a job open; a
failed job is asked for again, as if never started."""

from __future__ import annotations

import numpy as np
import pytest

import voxelworld.meshing.display_thread as display_thread
from voxelworld.errors import ParameterError
from voxelworld.meshing import ChunkMesher
from voxelworld.terrain import Box, Sphere, VoxelVolume

FIELDS = ("positions", "normals", "indices", "mat_a", "mat_b", "blend", "occlusion")


def hill() -> VoxelVolume:
    volume = VoxelVolume.from_sdf(lambda x, y, z: y - 3.0 - 0.08 * x, (48, 32, 48), "soil", chunk_size=16)
    volume.paint(Box((0.0, 2.0, 0.0), (48.0, 32.0, 48.0)), "grass")
    return volume


EDITS = [Sphere((10.0, 4.0, 10.0), 3.0), Sphere((16.0, 4.5, 16.0), 2.5), Sphere((31.5, 5.5, 15.8), 4.0),
         Sphere((33.0, 6.0, 33.0), 1.5)]


def assert_same_meshes(a: dict, b: dict) -> None:
    assert sorted(a) == sorted(b)
    for chunk in a:
        for name in FIELDS:
            np.testing.assert_array_equal(getattr(a[chunk], name), getattr(b[chunk], name), err_msg=f"{chunk} {name}")


def step(mesher: ChunkMesher, background: bool, between=None):
    mesher.refresh_vertices()
    mesher.simplify_vertices()
    job = mesher.start_display_meshes(background=background)
    if between is not None:
        between()
    return mesher.finish_display_meshes(job)


def test_the_display_thread_makes_the_meshes_the_callers_thread_makes():
    volumes = [hill(), hill()]
    meshers = [ChunkMesher(v) for v in volumes]
    for mesher in meshers:
        mesher.update()
    for shape in EDITS:
        updates = []
        for volume, mesher, background in zip(volumes, meshers, (True, False)):
            volume.remove(shape)
            # While the thread works, the frame goes on: collision meshes asked for, the next edit applied.
            updates.append(step(mesher, background, lambda m=mesher: m.collision_mesh()))
        assert updates[0].remeshed and updates[0].remeshed == updates[1].remeshed
        assert updates[0].surfaces_rebuilt == updates[1].surfaces_rebuilt
        assert_same_meshes(updates[0].meshes, updates[1].meshes)
        assert_same_meshes(meshers[0].meshes, meshers[1].meshes)


def test_an_edit_while_the_thread_works_waits_for_the_next_update():
    volume = hill()
    mesher = ChunkMesher(volume)
    mesher.update()
    volume.remove(EDITS[0])
    update = step(mesher, True, lambda: volume.remove(EDITS[1]))  # the thread reads the mesher's own copy
    reference_volume = hill()
    reference_volume.remove(EDITS[0])
    reference = ChunkMesher(reference_volume)
    reference.update()
    assert_same_meshes({c: mesher.meshes[c] for c in update.remeshed if c in mesher.meshes},
                       {c: reference.meshes[c] for c in update.remeshed if c in reference.meshes})
    mesher.update()  # now the second edit
    reference_volume.remove(EDITS[1])
    reference.update()
    assert_same_meshes(mesher.meshes, reference.meshes)


def test_a_mesher_with_a_job_open_refuses_another_and_an_update():
    volume = hill()
    mesher = ChunkMesher(volume)
    mesher.update()
    volume.remove(EDITS[0])
    mesher.refresh_vertices()
    mesher.simplify_vertices()
    job = mesher.start_display_meshes()
    with pytest.raises(ParameterError, match="start_display_meshes"):
        mesher.start_display_meshes()
    with pytest.raises(ParameterError, match="refresh_vertices"):
        mesher.update()
    assert mesher.finish_display_meshes(job).remeshed
    with pytest.raises(ParameterError, match="job"):
        mesher.finish_display_meshes(job)  # taken already
    mesher.update()  # open again


def test_a_failed_job_is_asked_for_again(monkeypatch):
    volume = hill()
    mesher = ChunkMesher(volume)
    mesher.update()
    volume.remove(EDITS[0])
    mesher.refresh_vertices()
    mesher.simplify_vertices()
    real = display_thread.display_work

    def failing(work):
        raise MemoryError("no room")
    monkeypatch.setattr(display_thread, "display_work", failing)
    import voxelworld.meshing.chunks as chunks
    monkeypatch.setattr(chunks, "display_work", failing)
    job = mesher.start_display_meshes()
    with pytest.raises(MemoryError):
        mesher.finish_display_meshes(job)
    monkeypatch.setattr(chunks, "display_work", real)
    update = mesher.update()  # the failed job's chunks remeshed now, with those of no new change
    reference_volume = hill()
    reference_volume.remove(EDITS[0])
    reference = ChunkMesher(reference_volume)
    reference.update()
    assert update.remeshed
    assert_same_meshes(mesher.meshes, reference.meshes)
