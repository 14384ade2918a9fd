"""TriangleBVH.combine: one tree over several parts' trees answers exactly as a tree built from the
concatenated arrays (the queries' answers do not depend on the tree's shape)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from voxelworld.collision import TriangleBVH, _build_kernels
from voxelworld.errors import ParameterError


def random_part(rng, triangles: int, centre, spread: float = 3.0):
    """A cloud of ``triangles`` random triangles around ``centre``, sharing some vertices."""
    vertices = max(3, triangles)
    positions = np.asarray(centre) + rng.uniform(-spread, spread, (vertices, 3))
    indices = rng.integers(0, vertices, (triangles, 3))
    return positions, indices, rng.integers(0, 256, triangles), rng.integers(-1, 9, triangles)


def concatenated(parts):
    """The reference: one TriangleBVH built from scratch over the parts' arrays, in part order."""
    offsets = np.cumsum([0] + [len(p[0]) for p in parts])
    return TriangleBVH(np.concatenate([p[0] for p in parts]),
                       np.concatenate([p[1] + offsets[n] for n, p in enumerate(parts)]),
                       np.concatenate([p[2] for p in parts]), np.concatenate([p[3] for p in parts]))


def assert_same(found, expected):
    """Two query results (dataclasses of arrays) equal field by field, bit for bit (NaN equal to NaN)."""
    for name in found.__dataclass_fields__:
        np.testing.assert_array_equal(getattr(found, name), getattr(expected, name), err_msg=name)


def assert_answers_alike(combined, reference, rng, low, high):
    origins = rng.uniform(low, high, (300, 3))
    directions = rng.normal(size=(300, 3))
    limit = rng.uniform(0.5, 2 * (high - low), 300)
    assert_same(combined.raycast(origins, directions), reference.raycast(origins, directions))
    assert_same(combined.raycast(origins, directions, limit), reference.raycast(origins, directions, limit))
    assert_same(combined.raycast_all(origins, directions, limit), reference.raycast_all(origins, directions, limit))
    ends = origins + directions * limit[:, None]
    assert_same(combined.segment_hits(origins, ends), reference.segment_hits(origins, ends))
    assert_same(combined.overlap_sphere(origins, 1.2), reference.overlap_sphere(origins, 1.2))
    assert_same(combined.overlap_capsule(origins[:100], ends[:100], 0.7),
                reference.overlap_capsule(origins[:100], ends[:100], 0.7))


def check_combine(parts, seed):
    rng = np.random.default_rng(seed)
    trees = [TriangleBVH(*part) for part in parts]
    kept = [(tree.positions.copy(), tree._box.copy()) for tree in trees]
    combined, reference = TriangleBVH.combine(trees), concatenated(parts)
    for name in ("positions", "indices", "tri_material", "tri_object", "normals"):
        np.testing.assert_array_equal(getattr(combined, name), getattr(reference, name), err_msg=name)
    assert combined.triangle_count == reference.triangle_count
    everything = np.concatenate([p[0] for p in parts])
    low, high = everything.min() - 2, everything.max() + 2
    assert_answers_alike(combined, reference, rng, low, high)
    if len(parts) > 1:  # a hit in the last part, so a top tree that lost a part would fail
        positions, indices = parts[-1][0], parts[-1][1]
        target = positions[indices].mean(axis=1)
        origins = target + rng.normal(size=target.shape) * 4
        assert_same(combined.raycast(origins, target - origins), reference.raycast(origins, target - origins))
    moved = combined.positions + rng.normal(0, 0.4, combined.positions.shape)
    combined.refit(moved)
    reference.refit(moved)
    assert_answers_alike(combined, reference, rng, low, high)
    for tree, (positions, node_lo) in zip(trees, kept):  # the parts are copied, never changed
        assert np.array_equal(tree.positions, positions) and np.array_equal(tree._box, node_lo)


@settings(max_examples=12, deadline=None)
@given(seed=st.integers(0, 100_000), count=st.integers(1, 9), spacing=st.sampled_from([0.0, 2.0, 40.0]))
def test_combine_answers_as_one_tree_over_the_concatenated_arrays(seed, count, spacing):
    """Parts of 1 to 200 triangles, on top of each other (spacing 0), overlapping (2 m) or far apart (40 m)."""
    rng = np.random.default_rng(seed)
    parts = [random_part(rng, int(rng.integers(1, 200)), rng.uniform(-1, 1, 3) * spacing * count)
             for _ in range(count)]
    check_combine(parts, seed + 1)


@pytest.mark.parametrize("case", ["single", "far apart", "overlapping", "a grid of chunks"])
def test_combine_cases(case):
    rng = np.random.default_rng(11)
    if case == "single":
        parts = [random_part(rng, 150, (0, 0, 0))]
    elif case == "far apart":
        parts = [random_part(rng, 60, (1000.0 * n, 0, -500.0 * n)) for n in range(4)]
    elif case == "overlapping":
        parts = [random_part(rng, 80, (0.5 * n, 0, 0)) for n in range(6)]
    else:
        parts = [random_part(rng, 40, (8.0 * i, 0, 8.0 * j), spread=4.0) for i in range(5) for j in range(6)]
    check_combine(parts, 12)
    if case == "single":  # one part: its own tree, copied
        tree = TriangleBVH(*parts[0])
        combined = TriangleBVH.combine([tree])
        assert np.array_equal(combined._child, tree._child) and np.array_equal(combined._box, tree._box)


def test_combined_trees_combine_again():
    rng = np.random.default_rng(21)
    parts = [random_part(rng, 50, (5.0 * n, 0, 0)) for n in range(6)]
    trees = [TriangleBVH(*part) for part in parts]
    nested = TriangleBVH.combine([TriangleBVH.combine(trees[:2]), trees[2], TriangleBVH.combine(trees[3:])])
    assert_answers_alike(nested, concatenated(parts), rng, -5, 35)


def test_top_tree_reaches_every_part_once_and_boxes_hold_their_parts():
    """The top tree kernel against a plain-Python walk: every part's root once (a PART slot), every node once,
    children after their parent, each slot's box the union of the parts beneath it, empty slots never entered,
    and the root box that of all; link_parts then points the PART slots at the parts' roots."""
    rng = np.random.default_rng(5)
    part_slot, w = _build_kernels.PART, _build_kernels.WIDTH
    for parts in (1, 2, 3, 4, 5, 7, 30):
        lo = rng.uniform(-50, 50, (parts, 3)).astype(np.float32)
        root_box = np.hstack([lo, lo + rng.uniform(0, 10, (parts, 3)).astype(np.float32)])
        box = np.empty((max(1, parts - 1), 6 * w), np.float32)
        child = np.empty((max(1, parts - 1), 2 * w), np.int32)
        top_box, top = np.full(6, np.nan, np.float32), np.full(2, -7, np.int64)  # written or failing
        tops = _build_kernels.top_tree(root_box, box, child, top_box, top)
        assert 0 <= tops <= parts - 1
        visited = []

        def beneath(node):
            visited.append(node)
            found = []
            for s in range(w):
                reference, count = child[node, s], child[node, w + s]
                lows, highs = box[node, [s, w + s, 2 * w + s]], box[node, [3 * w + s, 4 * w + s, 5 * w + s]]
                if count == -1:
                    assert np.all(lows == np.inf) and np.all(highs == -np.inf)
                    continue
                if count == part_slot:
                    below = [int(reference)]
                else:
                    assert count == 0 and node < reference < tops
                    below = beneath(reference)
                assert np.array_equal(lows, root_box[below, :3].min(axis=0))
                assert np.array_equal(highs, root_box[below, 3:].max(axis=0))
                found += below
            assert len(found) >= 2
            return found

        if parts == 1:
            assert tops == 0 and top.tolist() == [0, part_slot]
            below = [0]
        else:
            assert top.tolist() == [0, 0]
            below = beneath(0)
        assert sorted(below) == list(range(parts)) and sorted(visited) == list(range(tops))
        assert np.array_equal(top_box[:3], root_box[:, :3].min(axis=0))
        assert np.array_equal(top_box[3:], root_box[:, 3:].max(axis=0))
        # Where the parts' roots sit in a combined tree: nodes after the top's, or leaves (count > 0).
        roots = np.column_stack([tops + 3 * np.arange(parts), np.where(np.arange(parts) % 3 == 1, 4, 0)])
        linked = child[:tops].copy()
        _build_kernels.link_parts(linked, roots)
        for node in range(tops):
            for s in range(w):
                if child[node, w + s] == part_slot:
                    assert linked[node, s] == roots[child[node, s], 0]
                    assert linked[node, w + s] == roots[child[node, s], 1]
                else:
                    assert linked[node, s] == child[node, s] and linked[node, w + s] == child[node, w + s]


@pytest.mark.parametrize("parts", [[], (), "abc", None, 3, [None], ["not a tree"]])
def test_combine_refuses_what_is_not_a_sequence_of_trees(parts):
    with pytest.raises(ParameterError) as caught:
        TriangleBVH.combine(parts)
    assert caught.value.parameter == "parts"
