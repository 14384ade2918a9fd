"""NavQuery.find_path calls the path kernel's compiled entry point when numba offers it, the dispatcher otherwise
(issue #33 §5): the same paths either way, bit for bit; and the snaps' allocation-free closest point."""

from __future__ import annotations

import numpy as np
import pytest
from shapely.geometry import Point, Polygon

from voxelworld.navigation import NavQuery, navmesh_from_grids
from voxelworld.navigation import query as query_module
from voxelworld.navigation._kernels import locate as kernels
from voxelworld.navigation._kernels import paths

from .test_navmesh import floor_with_holes


def _mesh():
    return navmesh_from_grids([floor_with_holes(20, 16, [(4, 2, 8, 12), (12, 0, 14, 10)])], max_corners=6)


def _pairs(mesh, count: int, seed: int) -> list[tuple[np.ndarray, np.ndarray]]:
    rng = np.random.default_rng(seed)
    query = NavQuery(mesh)
    return [(query.random_point(rng), query.random_point(rng)) for _ in range(count)]


def _same_paths(first: NavQuery, second: NavQuery, pairs) -> None:
    for a, b in pairs:
        one, other = first.find_path(a, b), second.find_path(a, b)
        assert (one is None) == (other is None)
        if one is not None:
            np.testing.assert_array_equal(one.points, other.points)
            assert one.length == other.length


def test_find_path_calls_the_compiled_entry_point_after_its_first_search():
    """Numba (as pinned) offers the entry point: the query takes it after its first search and gives the paths the
    dispatcher gives."""
    mesh = _mesh()
    pairs = _pairs(mesh, 40, 3)
    fast = NavQuery(mesh)
    assert fast._call is None
    fast.find_path(*pairs[0])
    assert fast._call is not None and fast._call is not paths.find_path  # the entry point, not the dispatcher
    assert fast._call is query_module.compiled_entry(paths.find_path, fast._query)
    dispatched = NavQuery(mesh)
    dispatched.find_path(*pairs[0])
    dispatched._call = paths.find_path
    _same_paths(fast, dispatched, pairs)


def test_find_path_falls_back_to_the_dispatcher_without_numba_internals(monkeypatch):
    """Where numba offers no entry point (an attribute missing, an overload not compiled), compiled_entry gives
    the dispatcher back, and find_path answers the same through it; scratch growth (a search asked again) too."""

    class NoOverloads:  # a kernel without numba's internals
        def __call__(self, *args: object) -> tuple[int, float]:
            return paths.find_path(*args)

    mesh = _mesh()
    reference = NavQuery(mesh)
    reference.find_path([0.3, 0, 0.3], [9.6, 0, 7.6])
    bare = NoOverloads()
    assert query_module.compiled_entry(bare, reference._query) is bare
    uncompiled = paths.find_path.__class__(paths.find_path.py_func)  # a dispatcher with no overload yet
    assert query_module.compiled_entry(uncompiled, reference._query) is uncompiled

    monkeypatch.setattr(query_module, "compiled_entry", lambda kernel, query: kernel)
    fallback = NavQuery(mesh)
    _same_paths(fallback, reference, _pairs(mesh, 40, 4))
    assert fallback._call is paths.find_path
    small = NavQuery(mesh)
    small._fit_scratch(mesh.index, 2)  # room for 2 nodes only: the search runs out, grows and asks again
    grown = small.find_path([0.3, 0, 0.3], [9.6, 0, 7.6])
    np.testing.assert_array_equal(grown.points, reference.find_path([0.3, 0, 0.3], [9.6, 0, 7.6]).points)
    assert small._call is paths.find_path and len(small._scratch.node_f) > 2


def test_the_entry_point_is_looked_up_again_for_each_binding():
    """A grown scratch, or a filter's index, is a new binding: its call is looked up afresh (an entry point is
    compiled for one type of query), and a query alternating between two keeps each one's call."""
    from voxelworld.navigation import QueryFilter

    mesh = _mesh()
    query = NavQuery(mesh)
    query._fit_scratch(mesh.index, 2)
    assert query._call is None
    path = query.find_path([0.3, 0, 0.3], [9.6, 0, 7.6])
    assert path is not None and query._call is not None
    plain_call = query._call
    no_filter = QueryFilter()
    filtered = query.find_path([0.3, 0, 0.3], [9.6, 0, 7.6], filter=no_filter)
    np.testing.assert_array_equal(filtered.points, path.points)
    again = query.find_path([0.3, 0, 0.3], [9.6, 0, 7.6])
    np.testing.assert_array_equal(again.points, path.points)
    assert query._fitted is mesh.index and query._call is plain_call


@pytest.mark.parametrize("seed", [0, 1])
def test_the_snaps_closest_point_is_the_polygons_nearest_point(seed):
    """_closest (what the snaps compute, without an array of their own) against shapely: over a polygon the
    point straight above or below on its surface, beside it the nearest point of its outline on the x-z plane."""
    mesh = _mesh()
    vertices, polygon_start, polygon_vertices, _, surface = mesh.index.polygons
    rng = np.random.default_rng(seed)
    for x, y, z in rng.uniform([-2, -1, -2], [22, 1, 18], (100, 3)):
        for q in range(0, mesh.polygon_count, 3):
            d2, px, py, pz, found = kernels._closest(vertices, polygon_start, polygon_vertices, surface, q, x, y, z)
            outline = Polygon(mesh.polygon(q)[:, [0, 2]])
            assert found and d2 == pytest.approx((px - x) ** 2 + (py - y) ** 2 + (pz - z) ** 2)
            assert py == kernels.height(surface, q, px, pz)
            if outline.covers(Point(x, z)):
                assert (px, pz) == (x, z)
            else:
                near = outline.exterior.interpolate(outline.exterior.project(Point(x, z)))
                assert (px, pz) == pytest.approx((near.x, near.y), abs=1e-9)
