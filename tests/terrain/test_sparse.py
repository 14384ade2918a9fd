"""SparseVolume: the same voxels, edits, measurements and hashes as a dense VoxelVolume of the same content, bit for
bit, with chunks stored only where they are not uniform."""

from __future__ import annotations

from itertools import product

import numpy as np
import pytest

from voxelworld.errors import ParameterError
from voxelworld.terrain import (
    FIELDS,
    Box,
    Capsule,
    Cylinder,
    SparseVolume,
    Sphere,
    Tool,
    Union,
    VoxelVolume,
    demo_terrain,
)
from voxelworld.terrain import sparse as sparse_module

SOFT = Tool(damage=40, breaks_at=100)


def twins(chunk_size: int = 16) -> tuple[VoxelVolume, SparseVolume]:
    dense = demo_terrain(seed=3)
    if chunk_size != dense.chunk_size:
        regrouped = VoxelVolume(dense.shape, dense.voxel_size, dense.origin, dense.iso, chunk_size, dense.materials)
        for name in FIELDS:
            getattr(regrouped, name)[...] = getattr(dense, name)
        dense = regrouped
    return dense, SparseVolume.from_volume(dense)


def assert_same(dense: VoxelVolume, sparse: SparseVolume) -> None:
    assert sparse.content_hash() == dense.content_hash()
    assert np.array_equal(sparse.chunk_versions, dense.chunk_versions)
    assert sparse.dirty_chunks == dense.dirty_chunks


def session(volume, rng: np.random.Generator) -> list:
    """A scripted session of every edit kind, at chunk borders and corners (16-voxel chunks), at the volume's
    sides and across them; returns the EditResults."""
    corner = (16.0, 20.0, 32.0)  # a corner of eight 16-voxel chunks, below the demo ground (~19 m)
    results = [
        volume.remove(Sphere(corner, 3.5)),
        volume.add(Sphere((47.9, 22.0, 48.1), 2.7), "soil"),
        volume.paint(Box((30.0, 14.0, 30.0), (34.5, 18.5, 33.0)), "iron"),
        volume.expose_interior(Sphere(corner, 5.0)),
        volume.convert(Cylinder((40.0, 10.0, 60.0), (40.0, 24.0, 60.0), 4.0), "soil", "sand"),
        volume.remove(Capsule((0.0, 19.0, 10.0), (6.0, 19.0, 30.0), 2.0)),  # across the volume's side
        volume.remove(Sphere((95.0, 19.0, 95.0), 4.0)),  # at a far corner of the volume
        volume.remove(Sphere((76.8, 24.0, 40.0), 3.0), tool=SOFT),  # the rock wall: damage, then breaks
        volume.remove(Sphere((76.8, 24.0, 40.0), 3.0), tool=SOFT),
        volume.remove(Sphere((76.8, 24.0, 40.0), 3.0), tool=SOFT),
        volume.add(Union([Sphere((31.5, 30.0, 31.5), 1.0), Box((47.0, 31.0, 47.0), (49.0, 33.0, 49.0))]), "rock"),
    ]
    for _ in range(4):
        results.append(volume.scrape(Sphere((32.0, 19.0, 16.0), 4.0), 60, SOFT))
    # Floating pieces across chunk borders, then the fragment pass over a region around them and over it all.
    results.append(volume.add(Sphere((32.0, 40.0, 32.0), 0.9), "soil"))
    results.append(volume.add(Box((15.0, 38.0, 15.0), (17.0, 40.0, 17.0)), "soil"))
    results.append(volume.remove_fragments(Box((10.0, 30.0, 10.0), (40.0, 46.0, 40.0))))
    results.append(volume.add(Sphere((63.5, 42.0, 48.0), 1.2), "sand"))
    results.append(volume.remove_fragments())
    for _ in range(12):
        centre = rng.integers(0, 6, size=3) * 16 + rng.uniform(-1.5, 1.5, size=3)
        centre[1] = rng.uniform(12.0, 26.0)
        kind = rng.integers(0, 4)
        shape = Sphere(tuple(centre), float(rng.uniform(1.0, 4.0)))
        if kind == 0:
            results.append(volume.remove(shape, tool=SOFT))
        elif kind == 1:
            results.append(volume.add(shape, "rock"))
        elif kind == 2:
            results.append(volume.paint(shape, "lava"))
        else:
            results.append(volume.scrape(shape, 90, SOFT))
    return results


@pytest.mark.parametrize("chunk_size", [16, 32])
def test_a_session_of_every_edit_gives_the_same_voxels_results_and_bookkeeping(chunk_size):
    dense, sparse = twins(chunk_size)
    assert_same(dense, sparse)
    expected = session(dense, np.random.default_rng(11))
    got = session(sparse, np.random.default_rng(11))
    assert got == expected  # EditResult by EditResult: counts, volumes by material, dirty chunks
    assert sum(result.fragments_erased for result in got) >= 2
    assert any(result.voxels_damaged for result in got) and any(result.voxels_blocked for result in got)
    assert_same(dense, sparse)
    assert sparse.solid_volume() == dense.solid_volume()
    assert sparse.solid_volume_by_material() == dense.solid_volume_by_material()
    for chunk in [(0, 0, 0), (1, 1, 2), tuple(n - 1 for n in dense.chunk_grid_shape)]:
        window = dense.chunk_slices(chunk)
        for name, values in sparse.chunk_fields(chunk).items():
            assert np.array_equal(values, getattr(dense, name)[window])


def test_a_dug_out_chunk_is_one_value_again_and_a_change_nowhere_stores_nothing():
    sparse = SparseVolume((64, 64, 64), chunk_size=16)
    assert sparse.stored_chunks() == 0 and sparse.field_bytes < 64 ** 3 / 100
    sparse.add(Box((16.0, 16.0, 16.0), (31.0, 31.0, 31.0)), "soil")  # within one chunk and its neighbours' rims
    stored = sparse.stored_chunks("density")
    assert stored > 1 and sparse.stored_chunks("damage") == 0
    sparse.remove(Box((0.0, 0.0, 0.0), (63.0, 63.0, 63.0)))
    assert sparse.stored_chunks("density") == 0 and sparse.stored_chunks("damage") == 0
    before = sparse.field_bytes
    versions = sparse.chunk_versions.copy()
    result = sparse.remove(Sphere((40.0, 40.0, 40.0), 6.0))  # air already: nothing changes
    assert result.voxels_changed == 0 and not result.dirty_chunks
    assert sparse.field_bytes == before and np.array_equal(sparse.chunk_versions, versions)


def test_memory_follows_the_surface_not_the_volume():
    ground = SparseVolume((512, 128, 512), voxel_size=0.5, chunk_size=32)
    fields = {name: np.zeros((32, 32, 32), dtype=np.uint16 if name == "damage" else np.uint8) for name in FIELDS}
    rock = dict(fields, density=np.full((32, 32, 32), 255, np.uint8), mat_a=np.full((32, 32, 32), 4, np.uint8))
    ramp = np.clip(128 - (np.arange(32) - 16) * 127.5, 0, 255).astype(np.uint8)[None, :, None]
    surface = dict(rock, density=np.broadcast_to(ramp, (32, 32, 32)).copy())
    for cx, cz in product(range(16), repeat=2):
        ground.write_chunk((cx, 0, cz), rock)
        ground.write_chunk((cx, 1, cz), surface)
    assert ground.stored_chunks("density") == 256 and ground.stored_chunks("mat_a") == 0
    dense_bytes = 6 * 512 * 128 * 512
    grids = 16 * 4 * 16 * (4 + 2)  # a uniform value per chunk: four uint8 fields and the uint16 damage
    assert ground.field_bytes == 256 * 32 ** 3 + grids  # the surface chunks' density alone
    assert ground.field_bytes < dense_bytes / 20
    assert ground.solid_volume() == pytest.approx(ground.to_dense().solid_volume())


def test_read_window_matches_the_dense_fields_on_any_box():
    dense, sparse = twins(16)
    rng = np.random.default_rng(5)
    for _ in range(40):
        lo = rng.integers(0, np.array(dense.shape))
        hi = np.minimum(lo + rng.integers(0, 40, size=3), dense.shape)
        window = tuple(slice(a, b) for a, b in zip(lo, hi))
        got = sparse.read_window(lo, hi)
        views = dense.read_window(lo, hi)
        for name in FIELDS:
            assert np.array_equal(got[name], getattr(dense, name)[window])
            assert np.array_equal(views[name], got[name]) and not views[name].flags.writeable


@pytest.mark.parametrize("lo, hi", [((0, 0, -1), (4, 4, 4)), ((0, 0, 0), (97, 4, 4)), ((5, 0, 0), (4, 4, 4)),
                                    ((0, 0), (4, 4))])
def test_a_box_outside_the_volume_is_refused(lo, hi):
    dense, sparse = twins(16)
    for volume in (dense, sparse):
        with pytest.raises(ParameterError, match="index corners"):
            volume.read_window(lo, hi)


def test_a_gather_too_large_is_refused_before_it_allocates(monkeypatch):
    dense, sparse = twins(16)
    monkeypatch.setattr(sparse_module, "MAX_WINDOW_VOXELS", 10_000)
    with pytest.raises(ParameterError, match="MAX_WINDOW_VOXELS = 10000"):
        sparse.read_window((0, 0, 0), (40, 40, 40))
    before = sparse.content_hash()
    with pytest.raises(ParameterError, match="MAX_WINDOW_VOXELS"):
        sparse.remove_fragments()  # the whole volume at once
    assert sparse.content_hash() == before and not sparse.dirty_chunks


def test_write_chunk_checks_every_field_before_it_changes_anything():
    sparse = SparseVolume((40, 20, 20), chunk_size=16)
    edge = sparse.chunk_box((2, 1, 1))
    shape = tuple(int(n) for n in edge[1] - edge[0])
    assert shape == (8, 4, 4)
    good = {name: np.full(shape, 7, dtype=np.uint16 if name == "damage" else np.uint8) for name in FIELDS}
    good["density"][0, 0, 0] = 200
    for bad, match in [(dict(good, damage=good["damage"].astype(np.uint8)), "fields\\['damage'\\]"),
                       (dict(good, mix=np.zeros((16, 16, 16), np.uint8)), "fields\\['mix'\\]"),
                       (dict(good, colour=good["mix"]), "fields"), ({}, "fields")]:
        with pytest.raises(ParameterError, match=match):
            sparse.write_chunk((2, 1, 1), bad)
    assert sparse.stored_chunks() == 0 and not sparse.dirty_chunks
    with pytest.raises(ParameterError, match="chunk"):
        sparse.write_chunk((3, 0, 0), good)
    sparse.write_chunk((2, 1, 1), good)
    assert sparse.stored_chunks("density") == 1 and sparse.stored_chunks("mat_a") == 0
    sparse.write_chunk((0, 0, 0), {"damage": np.arange(16 ** 3, dtype=np.uint16).reshape(16, 16, 16)})  # one field
    assert sparse.stored_chunks("damage") == 1 and sparse.is_uniform((0, 0, 0), "density")
    assert not sparse.is_uniform((2, 1, 1), "density") and sparse.is_uniform((2, 1, 1), "damage")
    assert sparse.dirty_chunks == {(2, 1, 1), (0, 0, 0)}
    assert np.array_equal(sparse.chunk_fields((2, 1, 1))["density"], good["density"])


def test_conversions_keep_voxels_and_bookkeeping():
    dense, sparse = twins(32)
    dense.remove(Sphere((40.0, 19.0, 40.0), 5.0))
    sparse = SparseVolume.from_volume(dense)
    assert sparse.dirty_chunks == dense.dirty_chunks
    back = sparse.to_dense()
    assert back.content_hash() == dense.content_hash()
    assert np.array_equal(back.chunk_versions, dense.chunk_versions)
    box = Box((10.3, 5.0, 60.0), (50.0, 30.2, 95.5))
    assert sparse.extract(box).content_hash() == dense.extract(box).content_hash()
    assert sparse.chunk_hash((1, 0, 1)) != sparse.chunk_hash((0, 0, 0))
    assert [sparse.chunk_hash(c) for c in [(0, 0, 0), (1, 0, 1), (2, 1, 2)]] == [
        dense.chunk_hash(c) for c in [(0, 0, 0), (1, 0, 1), (2, 1, 2)]]
    with pytest.raises(ParameterError, match="VoxelVolume"):
        SparseVolume.from_volume(sparse)


def test_a_sparse_volume_may_exceed_the_dense_voxel_limit():
    big = SparseVolume((4096, 256, 4096), voxel_size=0.5)  # 4.3 G voxels: 24 GiB dense
    assert big.field_bytes < 2 ** 20
    with pytest.raises(ParameterError, match="MAX_VOXELS"):
        VoxelVolume((4096, 256, 4096))
    result = big.add(Sphere((1000.0, 60.0, 1000.0), 4.0), "rock")
    assert result.voxels_changed > 0 and big.stored_chunks("density") >= 1
