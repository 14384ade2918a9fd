"""A SparseVolume with a store behind it (a ChunkStore: a world file in voxelworld.io, a plain one here): chunks left
in the store read as if in memory, edits and hashes are those of the volume holding everything, a chunk is let go of
only where the store holds it as it is, and snapshots share the store without reading it."""

from __future__ import annotations

import numpy as np
import pytest

from voxelworld.errors import FormatError, ParameterError
from voxelworld.terrain import FIELDS, GeneratorSettings, SparseVolume, Sphere, Tool, generate_world

DIG = Tool(gives_way_below=20.0, unbreakable_from=20.0)


class CopyStore:
    """A ChunkStore holding the chunks of ``volume`` as they were when made; counts the chunks read."""

    def __init__(self, volume: SparseVolume):
        self.fields = {chunk: volume.chunk_fields(chunk) for chunk in np.ndindex(volume.chunk_grid_shape)}
        self.reads = []

    def read_chunk(self, chunk, names, shape):
        self.reads.append(chunk)
        return {name: self.fields[chunk][name].copy() for name in names}


@pytest.fixture(scope="module")
def ground() -> SparseVolume:
    return generate_world(GeneratorSettings(size=64.0, height=32.0, ground_level=12.0, hill_height=4.0, seed=5),
                          chunk_size=16)


def left_in_store(ground: SparseVolume) -> tuple[SparseVolume, CopyStore]:
    """A copy of ``ground`` whose stored chunks are all left in a store, as a world file's reader leaves them."""
    volume = ground.snapshot()
    store = CopyStore(ground)
    for chunk in np.ndindex(volume.chunk_grid_shape):
        for name in FIELDS:
            if not volume.is_uniform(chunk, name):
                volume.keep_in_store(chunk, name)
    volume.attach_store(store)
    return volume, store


def test_chunks_left_in_the_store_read_edit_and_hash_as_in_memory(ground):
    volume, store = left_in_store(ground)
    assert volume.resident_chunks() == 0 and volume.stored_chunks() == ground.stored_chunks() > 0
    assert volume.field_bytes < ground.field_bytes
    assert volume.content_hash() == ground.content_hash()
    assert volume.solid_volume() == ground.solid_volume()
    assert volume.solid_volume_by_material() == ground.solid_volume_by_material()
    assert volume.resident_chunks() == 0  # measuring and hashing read through, keeping nothing
    reference = ground.snapshot()
    spot = Sphere((20.0, 12.0, 20.0), 3.0)
    for edit in (lambda v: v.remove(spot, tool=DIG), lambda v: v.add(Sphere((30.0, 14.0, 9.0), 2.0), "rock"),
                 lambda v: v.paint(Sphere((9.0, 12.0, 30.0), 3.0), "sand")):
        assert edit(volume) == edit(reference)
    assert volume.content_hash() == reference.content_hash()
    assert np.array_equal(volume.chunk_versions, reference.chunk_versions)
    assert 0 < volume.resident_chunks() < ground.stored_chunks()  # only what the edits read came into memory
    window = ((0, 0, 0), volume.shape)
    for name, values in volume.read_window(*window).items():
        assert np.array_equal(values, reference.read_window(*window)[name]), name


def test_only_chunks_the_store_holds_as_they_are_are_let_go_of(ground):
    volume, store = left_in_store(ground)
    everything = np.ones(volume.chunk_grid_shape, dtype=bool)
    volume.read_window((0, 0, 0), volume.shape)  # every chunk read into memory
    assert volume.resident_chunks() == ground.stored_chunks()
    result = volume.remove(Sphere((20.0, 12.0, 20.0), 3.0), tool=DIG)
    let_go = volume.let_go(everything)
    held = {c for c in result.dirty_chunks if not all(volume.is_uniform(c, name) for name in FIELDS)}
    assert let_go and held and not let_go & result.dirty_chunks  # the dug chunks are not in the store as they are
    assert volume.resident_chunks() == len(held)
    for chunk in let_go:
        assert any(volume.left_in_store(chunk, name) for name in FIELDS)
    for chunk in result.dirty_chunks:
        assert not any(volume.left_in_store(chunk, name) for name in FIELDS)
    before = len(store.reads)
    assert volume.content_hash() != ground.content_hash()  # the dig is still there
    assert len(store.reads) > before  # what was let go of is read again
    saved = CopyStore(volume)  # saved: now a store holds the dig too (making it read every chunk into memory)
    volume.attach_store(saved)
    assert held <= volume.let_go(everything)
    assert volume.resident_chunks() == 0
    assert volume.content_hash() != ground.content_hash()


def test_snapshots_share_the_store_without_reading_it(ground):
    volume, store = left_in_store(ground)
    copy = volume.snapshot(("density", "mat_a"))
    chunk = next(c for c in np.ndindex(volume.chunk_grid_shape) if volume.left_in_store(c, "density"))
    volume.copy_chunk_to(copy, chunk, ("density",))
    assert store.reads == [] and copy.left_in_store(chunk, "density")
    assert np.array_equal(copy.chunk_fields(chunk, ("density",))["density"], ground.chunk_fields(chunk)["density"])
    assert store.reads == [chunk] and volume.left_in_store(chunk, "density")  # the copy read it for itself
    empty = SparseVolume(volume.shape, volume.voxel_size, volume.origin, volume.iso, volume.chunk_size)
    volume.copy_chunk_to(empty, chunk)  # no store behind it: it takes the source's, reading nothing
    assert empty.store is store and empty.left_in_store(chunk, "density") and len(store.reads) == 1
    other = SparseVolume(volume.shape, volume.voxel_size, volume.origin, volume.iso, volume.chunk_size)
    other.attach_store(CopyStore(other))
    volume.copy_chunk_to(other, chunk)  # another store behind it: the chunk is read and handed over
    assert not other.left_in_store(chunk, "density") and len(store.reads) == 2
    assert np.array_equal(other.chunk_fields(chunk)["density"], ground.chunk_fields(chunk)["density"])


def test_a_store_that_gives_the_wrong_voxels_is_a_format_error_and_changes_nothing(ground):
    volume, store = left_in_store(ground)
    chunk = next(c for c in np.ndindex(volume.chunk_grid_shape) if volume.left_in_store(c, "density"))
    store.fields[chunk]["density"] = np.zeros((16, 16, 8), dtype=np.uint8)
    with pytest.raises(FormatError, match=r"chunk .* field 'density'.*uint8\(16, 16, 8\)"):
        volume.read_window(*volume.chunk_box(chunk))
    assert volume.left_in_store(chunk, "density") and volume.resident_chunks() == 0
    with pytest.raises(ParameterError, match="where"):
        volume.let_go(np.ones((2, 2), dtype=bool))
    lonely = ground.snapshot()
    lonely.keep_in_store(chunk, "density")
    with pytest.raises(FormatError, match="none is attached"):
        lonely.read_window(*lonely.chunk_box(chunk))


def test_filling_a_chunk_is_writing_an_array_of_one_value(ground):
    filled, written = ground.snapshot(), ground.snapshot()
    chunk = next(c for c in np.ndindex(ground.chunk_grid_shape) if not ground.is_uniform(c, "density"))
    filled.fill_chunk(chunk, "damage", 700)
    filled.fill_chunk(chunk, "density", 255)
    shape = tuple(int(n) for n in np.subtract(*reversed(ground.chunk_box(chunk))))
    written.write_chunk(chunk, {"damage": np.full(shape, 700, np.uint16)})
    written.write_chunk(chunk, {"density": np.full(shape, 255, np.uint8)})
    assert filled.content_hash() == written.content_hash() != ground.content_hash()
    assert np.array_equal(filled.chunk_versions, written.chunk_versions) and filled.dirty_chunks == written.dirty_chunks
    assert filled.uniform_value(chunk, "damage") == 700 and filled.stored_chunks("density") == written.stored_chunks(
        "density")
    with pytest.raises(ParameterError, match="value"):
        filled.fill_chunk(chunk, "density", 256)


def test_read_voxel_is_the_one_voxel_window_in_memory_in_the_store_and_uniform(ground):
    """SparseVolume.read_voxel reads the voxel's chunk directly: the same values as a window of that one voxel,
    whether the chunk's fields are arrays in memory, left in the store (read from it by read_voxel itself) or
    uniform, and the same errors."""
    in_memory = ground.snapshot()
    in_memory.remove(Sphere((20.0, 12.0, 20.0), 3.0), tool=Tool(damage=30, breaks_at=1000))  # damage, mixes
    away, store = left_in_store(in_memory)
    rng = np.random.default_rng(4)
    picks = [tuple(int(v) for v in rng.integers(0, ground.shape)) for _ in range(300)]
    picks += [(40, 24, 40), (0, 0, 0), tuple(n - 1 for n in ground.shape)]  # round the dig, the corners
    kinds = set()
    for index in picks:
        window = in_memory.read_window(index, np.add(index, 1))
        expected = {name: int(values[0, 0, 0]) for name, values in window.items()}
        kinds.add(in_memory.is_uniform(tuple(i // ground.chunk_size for i in index), "density"))
        assert away.read_voxel(index) == expected  # (the first reads of a chunk left in the store come from it)
        assert in_memory.read_voxel(np.array(index, dtype=np.int32)) == expected
    assert kinds == {True, False}
    assert store.reads  # the voxels left in the store were read from it
    for bad in [(-1, 0, 0), (0, ground.shape[1], 0), (0, 0)]:
        with pytest.raises(ParameterError):
            away.read_voxel(bad)
