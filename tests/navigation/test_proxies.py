"""Exclusion proxies against exact areas (issue #16, the design's proxies): with ``levels=True`` an obstacle's top
is a level of its own, and the proxy that stands in for the obstacle must keep that top whole. The hull's facets
come from Qhull in either winding; wound wrongly, a top face points down and is no floor to a ray from above
(a 4 x 4 m crate's top baked to 7.6 m², a table top to 5.44 m² of 12.96)."""

from __future__ import annotations

import numpy as np
import pytest

from voxelworld.navigation import NavSettings, Scene, SearchRegion
from voxelworld.navigation.bake import bake
from voxelworld.navigation.rays import _outward, _proxy_triangles

from .test_bake import box

REGION = SearchRegion((0, -1, 0), (12, 4, 10))
FLOOR = ([[0, 0, 0], [12, 0, 0], [12, 0, 10], [0, 0, 10]], [[0, 2, 1], [0, 3, 2]])
EXACT = NavSettings(levels=True, agent_radius=0.0, ray_density=100.0, min_region_area=0.0)


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
