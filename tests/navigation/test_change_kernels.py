"""What changed between two triangle sets (the box a world's re-bake takes), against plain-Python set look-ups
of the triangles' bytes: the rows one set lacks, and the box around them."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from voxelworld.navigation._kernels.changes import row_hashes, rows_missing
from voxelworld.navigation.rebake import changed_box, triangle_rows


def reference_missing(rows: np.ndarray, other: np.ndarray) -> np.ndarray:
    theirs = {bytes(row) for row in other}
    return np.array([bytes(row) not in theirs for row in rows], dtype=bool)


def reference_box(old, new):
    """The box of the triangles in one set and not in the other, by sets of each triangle's bytes."""
    def rows(mesh):
        corners = np.asarray(mesh[0])[np.asarray(mesh[1])].reshape(-1, 9).astype(np.float32)
        return [bytes(np.hstack([c, np.float32(t)]).astype(np.float32)) for c, t in zip(corners, mesh[2])]

    a, b = (rows(m) if m is not None else [] for m in (old, new))
    corners = [np.asarray(m[0])[np.asarray(m[1])[[r not in set(theirs) for r in mine]]].reshape(-1, 3)
               for m, mine, theirs in ((old, a, b), (new, b, a)) if m is not None and len(mine)]
    corners = [c for c in corners if len(c)]
    if not corners:
        return None
    corners = np.concatenate(corners)
    return corners.min(axis=0), corners.max(axis=0)


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 2 ** 32 - 1), st.integers(0, 40), st.integers(0, 40), st.integers(1, 4))
def test_rows_missing_matches_set_lookups(seed, n, m, values):
    rng = np.random.default_rng(seed)
    rows = rng.integers(0, values, size=(n, 10)).astype(np.uint32)  # few values: many rows repeat
    other = np.concatenate([rng.integers(0, values, size=(m, 10)).astype(np.uint32), rows[: n // 2]])
    other = other[rng.permutation(len(other))]
    out = np.empty(n, dtype=bool)
    rows_missing(rows, other, out)
    assert out.tolist() == reference_missing(rows, other).tolist()


def test_rows_missing_compares_rows_whose_hashes_collide():
    """Rows of one hash are compared word for word: a row whose hash another set holds is missing all the same
    when the words differ (hashes forced to collide by comparing against rows of equal hash only)."""
    rows = np.array([[1, 2, 3], [3, 2, 1]], dtype=np.uint32)
    other = np.array([[1, 2, 4], [1, 2, 3]], dtype=np.uint32)
    out = np.empty(2, dtype=bool)
    rows_missing(rows, other, out)
    assert out.tolist() == [False, True]
    hashes = np.empty(2, dtype=np.uint64)
    row_hashes(rows, hashes)
    assert hashes[0] != hashes[1]  # the order of the words counts


def random_mesh(rng, vertices, triangles):
    positions = rng.integers(0, 4, size=(vertices, 3)).astype(np.float32) * np.float32(0.5)
    return positions, rng.integers(0, vertices, size=(triangles, 3)).astype(np.uint32), \
        rng.integers(0, 3, size=triangles).astype(np.uint8)


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 2 ** 32 - 1), st.booleans(), st.booleans())
def test_changed_box_matches_the_set_reference(seed, old_empty, new_empty):
    rng = np.random.default_rng(seed)
    old = None if old_empty else random_mesh(rng, 8, int(rng.integers(1, 30)))
    if new_empty:
        new = None
    elif old is not None and rng.random() < 0.5:  # the same triangles, shuffled, some replaced
        positions, indices, tags = old
        order = rng.permutation(len(indices))
        indices, tags = indices[order].copy(), tags[order].copy()
        indices[: int(rng.integers(0, 3))] = rng.integers(0, len(positions), size=3)
        new = (positions, indices, tags)
    else:
        new = random_mesh(rng, 8, int(rng.integers(1, 30)))
    got, want = changed_box(old, new), reference_box(old, new)
    assert (got is None) == (want is None)
    if got is not None:
        assert got[0].tolist() == want[0].tolist() and got[1].tolist() == want[1].tolist()


def test_changed_box_sees_a_new_material_and_negative_zero():
    positions = np.array([[0, 0, 0], [1, 0, 0], [1, 0, 1]], dtype=np.float32)
    triangle = np.array([[0, 2, 1]])
    assert changed_box((positions, triangle, [1]), (positions, triangle, [1])) is None
    assert changed_box((positions, triangle, [1]), (positions, triangle, [2])) is not None
    flipped = positions.copy()
    flipped[0, 0] = -0.0  # the same number, other bytes: compared as bytes, as the triangles' rows always were
    assert changed_box((positions, triangle, [1]), (flipped, triangle, [1])) is not None
    assert triangle_rows(positions, triangle, [1]).shape == (1, 10)
