"""Exclusion proxies against exact areas (issue #16, the design's proxies): with ``levels=True`` an obstacle's top
is a level of its own, and the proxy that stands in for the obstacle must keep that top whole. The hull's facets
come from Qhull in either winding; wound wrongly, a top face points down and is no floor to a ray from above
(a 4 x 4 m crate's top baked to 7.6 m², a table top to 5.44 m² of 12.96)."""

from __future__ import annotations

import numpy as np
import pytest

from voxelworld.navigation import NavSettings, Scene, SearchRegion
from voxelworld.navigation.bake import bake
from voxelworld.navigation.proxies import _outward, _proxy_triangles

from .test_bake import box

REGION = SearchRegion((0, -1, 0), (12, 4, 10))
FLOOR = ([[0, 0, 0], [12, 0, 0], [12, 0, 10], [0, 0, 10]], [[0, 2, 1], [0, 3, 2]])
EXACT = NavSettings(levels=True, agent_radius=0.0, ray_density=100.0, min_region_area=0.0, max_edge_error=0.0)


def table(lo, hi, top=0.1, leg=0.15):
    """A table: a top slab from ``lo`` to ``hi`` (its upper face at hi's y) on four legs down to y = 0."""
    parts = [box((lo[0], hi[1] - top, lo[2]), hi)]
    for x in (lo[0], hi[0] - leg):
        for z in (lo[2], hi[2] - leg):
            parts.append(box((x, 0.0, z), (x + leg, hi[1] - top, z + leg)))
    positions, faces, offset = [], [], 0
    for corners, triangles in parts:
        positions.append(corners)
        faces.append(triangles + offset)
        offset += len(corners)
    return np.concatenate(positions), np.concatenate(faces)


def top_area(obstacle, proxy: str, height: float) -> float:
    scene = Scene().with_object("floor", *FLOOR).with_object("thing", *obstacle, role="obstacle")
    mesh = bake(scene, REGION, NavSettings(**{**EXACT.__dict__, "exclusion_proxy": proxy}))
    tops = [q for q in range(mesh.polygon_count) if abs(mesh.polygon(q)[:, 1].mean() - height) < 0.05]
    return float(mesh.polygon_areas()[tops].sum())


@pytest.mark.parametrize("proxy", ["mesh", "hull"])
@pytest.mark.parametrize("thing, height, exact", [(box((4, 0, 3), (8, 1, 7)), 1.0, 16.0),
                                                  (table((4, 0, 3), (7.6, 0.8, 6.6)), 0.8, 12.96)])
def test_a_top_is_kept_whole_by_the_proxy(proxy, thing, height, exact):
    assert top_area(thing, proxy, height) == pytest.approx(exact, rel=0.02)


def test_hull_faces_are_wound_outward():
    rng = np.random.default_rng(4)
    for _ in range(10):
        points = rng.normal(size=(40, 3))
        corners, faces = _proxy_triangles(points, np.zeros((0, 3), dtype=np.int64), "hull")
        a, b, c = (corners[faces[:, i]] for i in range(3))
        normals = np.cross(b - a, c - a)
        centre = corners[np.unique(faces)].mean(axis=0)
        assert np.all(np.einsum("ij,ij->i", normals, a - centre) > 0.0)  # every face looks away from the middle
    flipped = _outward(np.eye(3), np.array([[0, 2, 1]]), np.array([[1.0, 1.0, 1.0]]))
    assert flipped.tolist() == [[0, 1, 2]]


def l_shape():
    """An L-shaped obstacle 1 m high of 7 m²: a 4 m x 1 m arm along x and a 1 m x 3 m arm along z, one mesh."""
    a, fa = box((4, 0, 3), (8, 1, 4))
    b, fb = box((4, 0, 4), (5, 1, 7))
    return np.concatenate([a, b]), np.concatenate([fa, fb + len(a)])


def cut_area(obstacle, proxy: str, depth: int = 3) -> float:
    scene = Scene().with_object("floor", *FLOOR).with_object("thing", *obstacle, role="obstacle")
    budget = {"proxy_triangles": depth} if proxy == "reduced" else {"aabb_depth": depth}
    settings = NavSettings(**{**EXACT.__dict__, "levels": False, "exclusion_proxy": proxy, **budget})
    return 120.0 - bake(scene, REGION, settings).area()


@pytest.mark.parametrize("proxy, depth, exact", [("mesh", 3, 7.0), ("aabb-tree", 0, 16.0), ("aabb-tree", 1, 10.0),
                                                 ("aabb-tree", 2, 8.0), ("aabb-tree", 3, 7.0), ("aabb-tree", 5, 7.0),
                                                 ("hull", 3, 7.0 + 4.5)])
def test_an_l_shaped_obstacle_cuts_what_its_proxy_covers(proxy, depth, exact):
    # The mesh fits the L (7 m²); one bounding box covers 4 x 4; the tree halves it across x (4 x 2 + 2 x 1),
    # then the left half across z (2 x 2 + 1 x 2 + 2 x 1), then fits the corner (7); the hull adds the triangle
    # between the arms' ends (3 x 3 / 2 = 4.5 m²).
    assert cut_area(l_shape(), proxy, depth) == pytest.approx(exact, abs=0.25)


def test_aabb_tree_leaves_cover_the_object_and_fit_it():
    from voxelworld.navigation.proxies import _aabb_leaves
    positions, faces = l_shape()
    assert len(_aabb_leaves(positions, faces, 0)) == 1
    leaves = _aabb_leaves(positions, faces, 3)
    lo = np.array([leaf[0] for leaf in leaves])
    hi = np.array([leaf[1] for leaf in leaves])
    assert lo.min(axis=0).tolist() == [4, 0, 3] and hi.max(axis=0).tolist() == [8, 1, 7]  # they cover the object
    footprint = ((hi - lo)[:, 0] * (hi - lo)[:, 2]).sum()
    assert footprint == pytest.approx(7.0)


def clipped_reference(triangles, lo, hi, cut_axis, cut_value):
    """Plain Python: each triangle clipped to the box plane by plane, pieces flat on the cut dropped."""
    points = []
    for triangle in triangles:
        polygon = [np.array(p, float) for p in triangle]
        for axis in range(3):
            for bound, keep in ((lo[axis], lambda v, b: v >= b), (hi[axis], lambda v, b: v <= b)):
                out = []
                for a, b in zip(polygon, polygon[1:] + polygon[:1]):
                    if keep(a[axis], bound):
                        out.append(a)
                    if keep(a[axis], bound) != keep(b[axis], bound):
                        point = a + (bound - a[axis]) / (b[axis] - a[axis]) * (b - a)
                        point[axis] = bound
                        out.append(point)
                polygon = out
                if not polygon:
                    break
            if not polygon:
                break
        if polygon and not (cut_axis >= 0 and all(p[cut_axis] == cut_value for p in polygon)):
            points += polygon
    return None if not points else (np.min(points, axis=0), np.max(points, axis=0))


def test_clipped_bounds_kernel_matches_plain_python():
    from voxelworld.navigation._kernels.proxies import clipped_bounds
    rng = np.random.default_rng(8)
    for _ in range(200):
        positions = rng.uniform(-2, 2, size=(9, 3))
        indices = np.arange(9, dtype=np.int64).reshape(3, 3)
        lo = rng.uniform(-1.5, 0.0, size=3)
        hi = lo + rng.uniform(0.1, 2.0, size=3)
        axis = int(rng.integers(-1, 3))
        out = np.zeros((2, 3))
        expected = clipped_reference(positions[indices], lo, hi, axis, lo[axis] if axis >= 0 else 0.0)
        assert clipped_bounds(positions, indices, lo, hi, axis, lo[axis] if axis >= 0 else 0.0, out) == (
            expected is not None)
        if expected is not None:
            np.testing.assert_allclose(out, np.array(expected), atol=1e-12)


def test_aabb_depth_is_checked():
    from voxelworld.errors import ParameterError
    with pytest.raises(ParameterError, match="aabb_depth"):
        NavSettings(aabb_depth=17)


@pytest.mark.parametrize("most", [12, 32, 100])
def test_the_reduced_copy_encloses_the_object_within_its_triangle_budget(most):
    from .test_bake import cylinder
    positions, faces = cylinder((6.0, 5.0), 2.0, 1.0)  # 96 sides: a hull of 380 triangles
    corners, proxy = _proxy_triangles(np.asarray(positions, float), np.asarray(faces), "reduced", most)
    assert len(proxy) <= most
    a, b, c = (corners[proxy[:, i]] for i in range(3))
    normals = np.cross(b - a, c - a)
    # Every vertex of the object lies inside every face's plane (the faces wound outward).
    inside = np.einsum("fj,vfj->vf", normals, np.asarray(positions, float)[:, None, :] - a[None])
    assert inside.max() <= 1e-9
    # What it cuts lies between the disc (exact) and the bounding square, closer to the disc with more triangles.
    cut = cut_area((positions, faces), "reduced", most)
    assert np.pi * 4.0 - 0.3 <= cut <= 16.0 + 0.3


def test_more_triangles_fit_closer():
    from .test_bake import cylinder
    cuts = [cut_area(cylinder((6.0, 5.0), 2.0, 1.0), "reduced", most) for most in (12, 32, 100)]
    assert cuts[0] > cuts[1] > cuts[2] >= np.pi * 4.0 - 0.3
