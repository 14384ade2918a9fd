"""The kernel that finds where a chunk's meshed fields changed (``_kernels.changes.changed_box``) against numpy
on small random fields: same answer, for contiguous arrays and for read-only views into larger ones."""

from __future__ import annotations

import numpy as np
import pytest

from voxelworld.meshing._kernels.changes import changed_box


def reference(current, seen):
    differs = np.zeros(current[0].shape, dtype=bool)
    for a, b in zip(current, seen):
        differs |= a != b
    if not differs.any():
        return None
    where = np.argwhere(differs)
    return where.min(axis=0), where.max(axis=0)


@pytest.mark.parametrize("views", [False, True])
def test_changed_box_is_the_box_of_the_differing_voxels_of_any_field(views):
    rng = np.random.default_rng(5)
    for trial in range(60):
        shape = tuple(rng.integers(1, 9, 3))
        big = [rng.integers(0, 256, (12, 12, 12), dtype=np.uint8) for _ in range(4)]
        seen_big = [a.copy() for a in big]
        for _ in range(trial % 4):  # 0 to 3 changed voxels, each in one field
            field, at = rng.integers(0, 4), tuple(rng.integers(0, n) for n in shape)
            seen_big[field][tuple(a + 2 for a in at)] ^= np.uint8(rng.integers(1, 256))
        window = tuple(slice(2, 2 + n) for n in shape)
        current = [a[window] for a in big]
        seen = [a[window] for a in seen_big]
        if views:
            for a in current + seen:
                a.flags.writeable = False
        else:
            current, seen = [np.ascontiguousarray(a) for a in current], [np.ascontiguousarray(a) for a in seen]
        box = np.empty((2, 3), dtype=np.int64)
        expected = reference(current, seen)
        assert changed_box(*current, *seen, box) == (expected is not None)
        if expected is not None:
            assert box[0].tolist() == expected[0].tolist() and box[1].tolist() == expected[1].tolist()
