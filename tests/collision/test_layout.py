"""The wide query layout (collapse, refit) against a plain-Python walk: every triangle slot in exactly one leaf,
every node reached once and after its parent, each child's box its triangles' box rounded outwards to float32
(or the union of its node's children), empty slots never entered."""

from __future__ import annotations

import numpy as np
import pytest

from voxelworld.collision import TriangleBVH, _build_kernels

W = _build_kernels.WIDTH


def outwards(low, high):
    """float64 bounds rounded outwards to float32, as the build rounds them."""
    low32, high32 = np.float32(low), np.float32(high)
    low32 = np.where(low32.astype(np.float64) > low, np.nextafter(low32, np.float32(-np.inf)), low32)
    high32 = np.where(high32.astype(np.float64) < high, np.nextafter(high32, np.float32(np.inf)), high32)
    return low32, high32


def expected_box(tree, start, count):
    corners = tree.positions[tree.indices[tree._order[start:start + count]]].reshape(-1, 3)
    return outwards(corners.min(axis=0), corners.max(axis=0))


def walk(tree):
    """Checks the layout from the root; returns the triangle slots reached."""
    box, child, root = tree._box, tree._child, tree._root
    slots, visited = [], []

    def node(n):
        visited.append(n)
        low, high = np.full(3, np.inf, np.float32), np.full(3, -np.inf, np.float32)
        children = 0
        for s in range(W):
            reference, count = int(child[n, s]), int(child[n, W + s])
            lows, highs = box[n, [s, W + s, 2 * W + s]], box[n, [3 * W + s, 4 * W + s, 5 * W + s]]
            if count == -1:
                assert np.all(lows == np.inf) and np.all(highs == -np.inf)
                continue
            children += 1
            if count > 0:
                assert count <= _build_kernels.LEAF_SIZE
                slots.extend(range(reference, reference + count))
                expected = expected_box(tree, reference, count)
            else:
                assert reference > n
                expected = node(reference)
            assert np.array_equal(lows, expected[0]) and np.array_equal(highs, expected[1])
            low, high = np.minimum(low, lows), np.maximum(high, highs)
        assert children >= 2
        return low, high

    if root[1] > 0:
        slots.extend(range(root[0], root[0] + root[1]))
        expected = expected_box(tree, root[0], root[1])
    else:
        assert root[0] == 0
        expected = node(0)
    assert np.array_equal(tree._root_box[:3], expected[0]) and np.array_equal(tree._root_box[3:], expected[1])
    assert sorted(visited) == list(range(len(box)))
    return slots


def random_mesh(rng, triangles):
    positions = rng.normal(0, 3, (triangles + 2, 3))
    return positions, rng.integers(0, len(positions), (triangles, 3))


@pytest.mark.parametrize("triangles", [1, 3, 4, 5, 9, 17, 300, 2000])
def test_every_triangle_is_in_one_leaf_and_every_box_holds_what_is_beneath(triangles):
    rng = np.random.default_rng(triangles)
    tree = TriangleBVH(*random_mesh(rng, triangles))
    assert sorted(walk(tree)) == list(range(triangles))
    assert sorted(tree._order.tolist()) == list(range(triangles))
    assert len(tree._box) <= max(0, triangles - 1)


@pytest.mark.parametrize("triangles", [1, 4, 5, 300])
def test_refit_gives_the_boxes_a_build_gives_the_same_tree(triangles):
    rng = np.random.default_rng(100 + triangles)
    positions, indices = random_mesh(rng, triangles)
    tree = TriangleBVH(positions, indices)
    box, root_box, child = tree._box.copy(), tree._root_box.copy(), tree._child.copy()
    tree.refit(positions)
    assert np.array_equal(tree._box, box) and np.array_equal(tree._root_box, root_box)
    assert np.array_equal(tree._child, child)
    tree.refit(positions + rng.normal(0, 1.0, positions.shape))
    assert sorted(walk(tree)) == list(range(triangles))  # the boxes follow the moved triangles


def depth(child, n=0):
    return 1 + max([depth(child, child[n, s]) for s in range(W) if child[n, W + s] == 0] + [0])


def test_a_regular_grid_makes_a_balanced_shallow_tree():
    """A flat grid of 2048 triangles makes a balanced binary tree of 512 leaves (9 levels of inner nodes): the
    8-wide one takes three of its levels per node, 3 levels in all (collapse splits the largest child, not
    merely the first)."""
    side = 33
    x, z = np.meshgrid(np.arange(side, dtype=float), np.arange(side, dtype=float), indexing="ij")
    positions = np.stack([x, np.zeros_like(x), z], axis=-1).reshape(-1, 3)
    i, j = np.meshgrid(np.arange(side - 1), np.arange(side - 1), indexing="ij")
    v = (i * side + j).ravel()
    indices = np.concatenate([np.stack([v, v + 1, v + side], 1), np.stack([v + 1, v + side + 1, v + side], 1)])
    tree = TriangleBVH(positions, indices)
    assert sorted(walk(tree)) == list(range(len(indices)))
    assert W == 8 and depth(tree._child) == 3


def reference_entry(lo, hi, origin, direction, t_max):
    """A ray's entry into a box in plain Python: per axis, the face it meets first by the sign of its direction,
    and a ray not moving along the axis inside the slab when its origin is (faces included); the exit widened
    by a few units in the last place, as the kernels do."""
    near, far = 0.0, np.inf
    for axis in range(3):
        if direction[axis] == 0.0:
            if not lo[axis] <= origin[axis] <= hi[axis]:
                return np.inf
            continue
        inverse = 1.0 / direction[axis]
        enter, leave = (lo[axis], hi[axis]) if inverse > 0 else (hi[axis], lo[axis])  # an empty box: lo > hi
        near = max(near, (float(enter) - origin[axis]) * inverse)
        far = min(far, (float(leave) - origin[axis]) * inverse)
    return near if near <= min(far * (1.0 + 6.0 * 2.0 ** -53), t_max) else np.inf


def test_all_children_at_once_enter_as_one_at_a_time_and_as_plain_python():
    """slab_children (the node's children traced together) against slab_child and a plain-Python slab test:
    boxes whose faces hold the origin, rays along axes (0 x inf), empty slots, a limit."""
    from voxelworld.collision import _kernels

    rng = np.random.default_rng(4)
    nodes = 40
    lo = rng.integers(-3, 3, (nodes, 3, W)).astype(np.float32)
    hi = lo + rng.integers(0, 7, (nodes, 3, W)).astype(np.float32)
    lo[:, :, W - 2:], hi[:, :, W - 2:] = np.inf, -np.inf  # empty slots
    box = np.concatenate([lo.reshape(nodes, 3 * W), hi.reshape(nodes, 3 * W)], axis=1)
    entries, entered = np.empty(W), []
    for _ in range(300):
        origin = rng.integers(-3, 4, 3).astype(float)
        direction = rng.normal(size=3) * (rng.random(3) < 0.6)
        if not direction.any():
            direction[1] = -1.0
        inverse = [1.0 / d if d != 0.0 else np.inf for d in direction]
        faces = _kernels.near_faces(*inverse)
        t_max = float(rng.choice([np.inf, 2.5]))
        n = int(rng.integers(nodes))
        _kernels.slab_children(box.reshape(-1), n, W, *faces, *origin, *inverse, t_max, entries)
        for s in range(W):
            one = _kernels.slab_child(box, n, s, *faces, *origin, *inverse, t_max)
            assert entries[s] == one
            entered.append(one < np.inf)
            assert one == reference_entry(lo[n, :, s], hi[n, :, s], origin, direction, t_max)
    assert 0.05 < np.mean(entered) < 0.95  # both answers met (about 200 entries of 2 400)
