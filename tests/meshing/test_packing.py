"""The kernel that unpacks a packed chunk surface's cell arrays, against numpy's unpackbits; a chunk's cell box."""

from __future__ import annotations

import numpy as np
from voxelworld.meshing import _kernels


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
