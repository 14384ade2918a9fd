"""The kernel that unpacks a packed chunk surface's cell arrays, against numpy's unpackbits; a chunk's cell box;
cell cases against plain Python; gathering a packed surface's cells as they are kept."""

from __future__ import annotations

import numpy as np
import pytest

from voxelworld.meshing import _kernels


@pytest.fixture(scope="module")
def world():
    from voxelworld.terrain import demo_terrain

    return demo_terrain(seed=2, size=64, height=48)


def test_unpack_cells_matches_numpy():
    rng = np.random.default_rng(6)
    for shape in ((3, 5, 7), (4, 4, 4), (1, 2, 9)):
        case = np.where(rng.random(shape) < 0.4, 255, 0).astype(np.uint16)
        surface_cells = np.argwhere(rng.random(shape) < 0.3).astype(np.int64)
        case_at = rng.integers(1, 255, size=len(surface_cells)).astype(np.uint16)
        first_at = rng.integers(0, 1000, size=len(surface_cells)).astype(np.int32)
        bits = np.packbits(case == 255)
        expected_case = np.unpackbits(bits, count=case.size).reshape(shape).astype(np.uint16) * np.uint16(255)
        expected_first = np.zeros(shape, dtype=np.int32)
        cells = tuple(surface_cells.T)
        expected_case[cells], expected_first[cells] = case_at, first_at
        got_case = np.full(shape, 9, dtype=np.uint16)
        got_first = np.full(shape, 9, dtype=np.int32)
        _kernels.unpack_cells(bits, surface_cells, case_at, first_at, got_case, got_first)
        np.testing.assert_array_equal(got_case, expected_case)
        np.testing.assert_array_equal(got_first, expected_first)


def test_chunk_cells_against_numpy_box_arithmetic():
    """The cells of a chunk (computed in Python integers) are those of the box arithmetic in numpy: clipped at the
    volume's last cell, empty (hi == lo) past it, and the same whether the chunk is a tuple or an array."""
    from voxelworld.meshing.mesh import chunk_cells

    for shape, size in (((100, 40, 70), 32), ((5, 5, 5), 8), ((64, 33, 1), 16)):
        for chunk in ((0, 0, 0), (3, 1, 2), (1, 2, 0)):
            c = np.asarray(chunk, dtype=np.int64)
            lo = c * size
            hi = np.maximum(np.minimum((c + 1) * size, np.asarray(shape) - 1), lo)
            for given in (chunk, np.asarray(chunk)):
                got_lo, got_hi = chunk_cells(shape, size, given)
                assert got_lo.dtype == got_hi.dtype == np.int64
                np.testing.assert_array_equal(got_lo, lo)
                np.testing.assert_array_equal(got_hi, hi)


def _cell_cases_reference(density, iso, lo, hi):
    """cell_cases in plain Python: every cell's sign mask (with its flipped faces), first vertex, surface cells."""
    from voxelworld.meshing import tables

    dims = tuple(int(n) for n in hi - lo)
    case = np.zeros(dims, dtype=np.uint16)
    first = np.zeros(dims, dtype=np.int32)
    cells, count = [], 0
    for a, b, c in np.ndindex(dims):
        i, j, k = int(lo[0]) + a, int(lo[1]) + b, int(lo[2]) + c
        mask = sum(1 << corner for corner in range(8)
                   if density[i + (corner & 1), j + ((corner >> 1) & 1), k + ((corner >> 2) & 1)] >= iso)
        if mask not in (0, 255) and tables.ONE_PATCH_FACES[mask]:
            mask |= int(_kernels.flipped_faces(density, iso, i, j, k, mask, tables.ONE_PATCH_FACES)) << 8
        case[a, b, c] = mask
        if mask not in (0, 255):
            first[a, b, c] = count
            count += int(tables.PATCH_COUNT[mask])
            cells.append((a, b, c))
    return case, first, np.array(cells, dtype=np.int64).reshape(-1, 3), count


def test_cell_cases_match_plain_python():
    """Random fields (some nearly all solid, so whole rows of cells are uniform and skipped, some with flat layers
    whose rows are all one crossed case), windows and views: the cases, first vertices and surface cells."""
    from voxelworld.meshing import tables

    rng = np.random.default_rng(11)
    for trial in range(24):
        shape = tuple(int(n) for n in rng.integers(3, 11, 3))
        density = (rng.random(shape) * 255).astype(np.uint8)
        if trial % 3 == 0:
            density[rng.random(shape) < 0.9] = 255
        if trial % 3 == 1:
            density[:] = np.where(np.arange(shape[2]) < shape[2] // 2, 200, 40)  # a flat layer along z
        if trial % 2:
            density = np.pad(density, 1)[1:-1, 1:-1, 1:-1]  # a view, not contiguous
        lo = rng.integers(0, 2, 3).astype(np.int64)
        hi = np.array(shape, dtype=np.int64) - 1 - rng.integers(0, 2, 3)
        case, first, cells, count = _cell_cases_reference(density, 128, lo, hi)
        got_case = np.full(case.shape, 7, dtype=np.uint16)
        got_first = np.full(case.shape, 7, dtype=np.int32)
        got_cells = np.full((case.size, 3), -1, dtype=np.int16)
        counts = np.zeros(2, dtype=np.int64)
        _kernels.cell_cases(density, 128, lo, hi, tables.PATCH_COUNT, tables.ONE_PATCH_FACES, got_case, got_first,
                            got_cells, counts)
        np.testing.assert_array_equal(got_case, case)
        assert counts.tolist() == [count, len(cells)]
        np.testing.assert_array_equal(got_cells[:len(cells)], cells)
        at = tuple(cells.T)
        np.testing.assert_array_equal(got_first[at], first[at])


def test_gather_cells_reads_a_packed_surface_as_its_cell_arrays(world):
    """gather_cells on a surface's cases and first vertices at its surface cells (``by_cell``, as PackedSurfaces
    keeps them) gathers what it gathers from the whole cell arrays, for a block that holds part of the chunk."""
    from voxelworld.meshing import MeshOptions, tables
    from voxelworld.meshing.chunk_surfaces import raw_surface

    surface = next(s for s in (raw_surface(world, c, MeshOptions(), 3) for c in np.ndindex(world.chunk_grid_shape))
                   if s.vertex_count > 50)
    n = surface.vertex_count
    cells = tuple(surface.surface_cells.T.astype(np.intp))
    by_cell = (surface.cell_first[cells].reshape(-1, 1, 1), surface.cell_case[cells].reshape(-1, 1, 1), True)
    results = []
    for first_of, case_of, flag in ((surface.cell_first, surface.cell_case, False), by_cell):
        ext_lo = surface.cell_lo + 5  # part of the chunk only
        ext_hi = surface.cell_lo + np.array(surface.cell_case.shape) + 1
        dims = tuple(int(x) for x in ext_hi - ext_lo)
        ext_first, ext_case = np.full(dims, -9, dtype=np.int64), np.full(dims, 9, dtype=np.uint16)
        f = [np.zeros((n, 3)), np.zeros((n, 3)), np.zeros((n, 2), np.uint8), np.zeros((n, 2)),
             np.zeros(n, np.int64), np.zeros(n, np.int64)]
        index_of = np.full(n, -1, dtype=np.int64)
        count = _kernels.gather_cells(surface.surface_cells, surface.cell_lo, ext_lo, ext_hi, first_of, case_of,
                                      flag, surface.rep, surface.positions, surface.normals, surface.materials,
                                      surface.evaluations, tables.PATCH_COUNT, index_of, ext_first, ext_case, *f, 0)
        assert 0 < count < n and np.all(index_of == -1)
        results.append((count, ext_first, ext_case, *f))
    for got, expected in zip(results[1], results[0]):
        np.testing.assert_array_equal(got, expected)


def test_a_kept_surface_unpacks_on_first_read_of_its_cells(world):
    """A surface read from PackedSurfaces gives its packed cells until its cell arrays are read, then the arrays
    (0 / 255 off the surface, exact on it), and packs again as it was kept."""
    from voxelworld.meshing import MeshOptions
    from voxelworld.meshing.chunk_surfaces import raw_surface
    from voxelworld.meshing.surface import PackedSurfaces, packed_cells

    surface = next(s for s in (raw_surface(world, c, MeshOptions(), 3) for c in np.ndindex(world.chunk_grid_shape))
                   if s.vertex_count > 50)
    kept = PackedSurfaces()
    kept["a"] = surface
    assert packed_cells(surface) is None
    read = kept["a"]
    packed = packed_cells(read)
    assert packed is not None and read.vertex_count == surface.vertex_count
    kept["b"] = read  # kept again without unpacking
    assert kept._packed["b"] is packed
    cells = tuple(surface.surface_cells.T.astype(np.intp))
    np.testing.assert_array_equal(read.cell_first[cells], surface.cell_first[cells])
    assert packed_cells(read) is None
    np.testing.assert_array_equal(read.cell_case, surface.cell_case)
    np.testing.assert_array_equal(kept["b"].cell_case, surface.cell_case)


def test_pack_cells_matches_numpy():
    """pack_cells gives numpy's packbits of the all-solid cells (spare bits of the last byte 0) and the cases and
    first vertices at the surface cells; unpack_cells turns them back."""
    rng = np.random.default_rng(8)
    for shape in ((3, 5, 7), (4, 4, 4), (1, 2, 9), (2, 3, 1)):
        case = np.where(rng.random(shape) < 0.5, 255, 0).astype(np.uint16)
        surface_cells = np.argwhere(rng.random(shape) < 0.3).astype(np.int64)
        cells = tuple(surface_cells.T)
        case[cells] = rng.integers(1, 255, size=len(surface_cells))
        first = rng.integers(0, 1000, size=shape).astype(np.int32)
        solid = np.full((case.size + 7) // 8, 77, dtype=np.uint8)
        case_at, first_at = np.zeros(len(surface_cells), np.uint16), np.zeros(len(surface_cells), np.int32)
        _kernels.pack_cells(case, first, surface_cells, solid, case_at, first_at)
        np.testing.assert_array_equal(solid, np.packbits(case == 255))
        np.testing.assert_array_equal(case_at, case[cells])
        np.testing.assert_array_equal(first_at, first[cells])
        back_case, back_first = np.empty(shape, np.uint16), np.empty(shape, np.int32)
        _kernels.unpack_cells(solid, surface_cells, case_at, first_at, back_case, back_first)
        np.testing.assert_array_equal(back_case, case)


def test_a_prepacked_surface_is_kept_as_packed_and_reads_as_the_surface(world):
    """prepacked (a background thread's surfaces) packs a surface as PackedSurfaces would: stored there it is kept
    as it is (no packing again), and it reads as the surface it was made of."""
    from voxelworld.meshing import MeshOptions
    from voxelworld.meshing.chunk_surfaces import raw_surface
    from voxelworld.meshing.surface import PackedSurfaces, packed_cells, prepacked

    surface = next(s for s in (raw_surface(world, c, MeshOptions(), 3) for c in np.ndindex(world.chunk_grid_shape))
                   if s.vertex_count > 50)
    ready = prepacked(surface)
    packed = packed_cells(ready)
    assert packed is not None
    kept = PackedSurfaces()
    kept["a"] = ready
    assert kept._packed["a"] is packed
    plain = PackedSurfaces()
    plain["a"] = surface
    for name in ("cell_case", "cell_first", "surface_cells", "rep", "positions", "normals", "materials"):
        np.testing.assert_array_equal(getattr(kept["a"], name), getattr(plain["a"], name))


def test_a_copy_of_some_surfaces_shares_them_packed(world, monkeypatch):
    """PackedSurfaces.copy(chunks): the surfaces of those chunks only, shared packed (the frame that hands a job the
    surfaces it replaces unpacks none of them; the job does, on its thread)."""
    from voxelworld.meshing import MeshOptions
    from voxelworld.meshing import surface as surface_module
    from voxelworld.meshing.chunk_surfaces import raw_surface
    from voxelworld.meshing.surface import PackedSurfaces

    kept = PackedSurfaces()
    chunks = [c for c in np.ndindex(world.chunk_grid_shape)][:6]
    for chunk in chunks:
        kept[chunk] = raw_surface(world, chunk, MeshOptions(), 3)
    unpacked = []
    real_unpack = surface_module._unpack
    monkeypatch.setattr(surface_module, "_unpack", lambda packed: unpacked.append(packed) or real_unpack(packed))
    some = kept.copy([chunks[1], chunks[4], (99, 99, 99)])
    assert not unpacked and sorted(some) == sorted([chunks[1], chunks[4]])
    assert some._packed[chunks[1]] is kept._packed[chunks[1]]
    np.testing.assert_array_equal(some[chunks[4]].positions, kept[chunks[4]].positions)
    assert len(kept.copy()) == len(chunks)
