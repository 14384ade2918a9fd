"""Tiled re-bakes: after an obstacle moves, `NavMesh.rebake(box, scene)` equals a full bake of the new scene,
bit for bit, and redoes only the tiles near the box."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from voxelworld.errors import ParameterError
from voxelworld.navigation import NavMesh, NavQuery, NavSettings, Scene, SearchRegion
from voxelworld.navigation.bake import bake
from voxelworld.navigation.polygons import TILE_CELLS

from .test_bake import box

FIELDS = ("vertices", "polygon_start", "polygon_vertices", "polygon_level", "portals", "portal_segments")


def hills(nx=41, nz=31, spacing=1.0) -> tuple[np.ndarray, np.ndarray]:
    """Rolling ground (a triangulated height field) 40 m x 30 m, gentle enough to walk everywhere."""
    x, z = np.meshgrid(np.arange(nx) * spacing, np.arange(nz) * spacing, indexing="ij")
    y = 0.6 * np.sin(x / 6.0) * np.cos(z / 5.0) + 0.02 * x
    positions = np.column_stack([x.ravel(), y.ravel(), z.ravel()])
    faces = []
    for i in range(nx - 1):
        for k in range(nz - 1):
            a, b, c, d = i * nz + k, (i + 1) * nz + k, (i + 1) * nz + k + 1, i * nz + k + 1
            faces += [[a, d, c], [a, c, b]]  # up-facing
    return positions, np.array(faces)


def level(crate_at=(10.0, 10.0), table_at=(25.0, 12.0)) -> Scene:
    scene = Scene().with_object("ground", *hills())
    cx, cz = crate_at
    scene = scene.with_object("crate", *box((cx, -1, cz), (cx + 1.5, 1.5, cz + 1.5)), role="obstacle")
    tx, tz = table_at
    scene = scene.with_object("table", *box((tx, 0.9, tz), (tx + 3, 1.1, tz + 2)), role="obstacle")
    # A walled pen (walls thicker than a cell, so rays cannot miss them): its floor is an island just above
    # min_region_area; a crate inside splits it into pieces under it.
    for name, lo, hi in (("pen_w", (30, -1, 20), (30.6, 3, 26.4)), ("pen_e", (35.8, -1, 20), (36.4, 3, 26.4)),
                         ("pen_n", (30, -1, 25.8), (36.4, 3, 26.4)), ("pen_s", (30, -1, 20), (36.4, 3, 20.6))):
        scene = scene.with_object(name, *box(lo, hi), role="obstacle")
    return scene


REGION = SearchRegion((0.2, -2, 0.2), (39.8, 4, 29.8))
BASE = NavSettings(ray_density=4, clearance=1.8, step_limit=0.4, agent_radius=0.5, max_slope=40,
                   min_region_area=12.0, exclusion_proxy="aabb-tree")


def assert_same(mesh: NavMesh, other: NavMesh) -> None:
    for name in FIELDS + ("polygon_area_type",):
        a, b = getattr(mesh, name), getattr(other, name)
        assert a.shape == b.shape and a.dtype == b.dtype, name
        assert np.array_equal(a, b), name
    assert mesh.area_types == other.area_types


def moved(before, after, size=1.5):
    """The box an obstacle of footprint `size` swept when moving from `before` to `after` (x, z corners)."""
    lo = (min(before[0], after[0]), -1.0, min(before[1], after[1]))
    hi = (max(before[0], after[0]) + size, 1.5, max(before[1], after[1]) + size)
    return lo, hi


@pytest.mark.parametrize("options", [{}, {"levels": True}, {"max_corners": 3}, {"agent_radius": 0.0}])
def test_rebake_after_moving_an_obstacle_equals_a_full_bake(options):
    settings_ = NavSettings(**{**BASE.__dict__, **options})
    before, after = (10.0, 10.0), (16.5, 14.0)  # across a tile edge (16 m at 0.5 m cells)
    mesh = bake(level(before), REGION, settings_)
    assert mesh.area() > 900
    tiles = mesh.rebake(moved(before, after), level(after))
    assert_same(mesh, bake(level(after), REGION, settings_))
    assert tiles  # the crate's old and new places changed
    # Only tiles near the box: the box spans x 10..18 m, z 10..15.5 m; tiles are 16 m wide.
    assert {(ti, tk) for _, ti, tk in tiles} <= {(0, 0), (0, 1), (1, 0), (1, 1)}
    assert mesh.bake_state.scene is not None and NavQuery(mesh).find_path((2, 0, 2), (38, 0, 28)) is not None


def test_rebake_reaches_islands_far_away_and_back():
    # The crate moved into the pen splits its floor into islands under min_region_area: they disappear, and
    # come back when the crate leaves again.
    inside, outside = (32.45, 22.45), (5.0, 20.0)
    keep_all = NavSettings(**{**BASE.__dict__, "min_region_area": 0.0})
    mesh = bake(level(outside), REGION, BASE)
    assert mesh.area() == bake(level(outside), REGION, keep_all).area()  # the pen's floor is kept
    mesh.rebake(moved(outside, inside), level(inside))
    assert_same(mesh, bake(level(inside), REGION, BASE))
    assert mesh.area() < bake(level(inside), REGION, keep_all).area() - 5  # its pieces are dropped
    mesh.rebake(moved(outside, inside), level(outside))
    assert_same(mesh, bake(level(outside), REGION, BASE))


@settings(max_examples=12, deadline=None)
@given(x0=st.floats(1, 36), z0=st.floats(1, 26), x1=st.floats(1, 36), z1=st.floats(1, 26),
       levels=st.booleans())
def test_any_move_rebakes_to_the_full_bake(x0, z0, x1, z1, levels):
    settings_ = NavSettings(**{**BASE.__dict__, "levels": levels})
    mesh = bake(level((x0, z0)), REGION, settings_)
    mesh.rebake(moved((x0, z0), (x1, z1)), level((x1, z1)))
    assert_same(mesh, bake(level((x1, z1)), REGION, settings_))


@pytest.mark.parametrize("gap, areas", [(0.5, {0, 1}), (0.0, {0})])  # apart: two areas; touching: one
def test_several_regions_and_a_box_outside_them(gap, areas):
    regions = [SearchRegion((0.2, -2, 0.2), (20 - gap, 4, 29.8)), SearchRegion((20, -2, 0.2), (39.8, 4, 29.8))]
    mesh = bake(level(), regions, BASE)
    assert mesh.rebake(((100, 0, 100), (101, 1, 101))) == []  # nothing there: nothing redone
    assert_same(mesh, bake(level(), regions, BASE))
    tiles = mesh.rebake(moved((10, 10), (26, 5)), level((26, 5)))
    assert {area for area, _, _ in tiles} == areas
    assert_same(mesh, bake(level((26, 5)), regions, BASE))


def test_rebake_refuses_bad_input_and_changes_nothing():
    mesh = bake(level(), REGION, BASE)
    before = {name: getattr(mesh, name).copy() for name in FIELDS}
    for bad in [None, "box", [(0, 0, 0)], [(5, 0, 5), (4, 1, 6)], [(0, 0, np.nan), (1, 1, 1)]]:
        with pytest.raises(ParameterError, match="box"):
            mesh.rebake(bad)
    with pytest.raises(ParameterError, match="scene"):
        mesh.rebake(((0, 0, 0), (1, 1, 1)), scene="level.obj")
    for name in FIELDS:
        assert np.array_equal(getattr(mesh, name), before[name])
    with pytest.raises(ParameterError, match="bake"):
        NavMesh.from_json(mesh.to_json()).rebake(((0, 0, 0), (1, 1, 1)), level())


def test_tiles_are_the_documented_size():
    mesh = bake(level(), REGION, BASE)
    cell = BASE.cell_size
    for q in range(mesh.polygon_count):
        p = mesh.polygon(q)
        # No polygon crosses a tile edge.
        for axis, origin in ((0, REGION.min[0]), (2, REGION.min[2])):
            first = np.floor((p[:, axis].min() - origin) / (TILE_CELLS * cell) + 1e-9)
            last = np.floor((p[:, axis].max() - origin) / (TILE_CELLS * cell) - 1e-9)
            assert first == last


def ramp_under_a_slab(slab_height: float) -> Scene:
    """Ground rising 2 cm per metre along x, and a slab's underside (facing down) over x 2..4 m, z 2..6 m."""
    ground = ([[0, 0, 0], [8, 0.16, 0], [8, 0.16, 8], [0, 0, 8]], [[0, 2, 1], [0, 3, 2]])
    h = slab_height
    slab = ([[2, h, 2], [4, h, 2], [4, h, 6], [2, h, 6]], [[0, 1, 2], [0, 2, 3]])
    return Scene().with_object("ground", *ground).with_object("slab", *slab, role="floor")  # not an obstacle


def test_rebake_redoes_a_tile_whose_links_changed_and_whose_samples_did_not():
    # Under the slab's +x edge (x = 4 m, between columns at 3.75 m and 4.25 m) the ground is 1 cm higher
    # outside: at a slab 1.882 m high the two samples' free spaces overlap by less than the 1.8 m clearance
    # (no link, yet both cells are whole); at 1.9 m they overlap enough. Only the link changes.
    settings_ = NavSettings(ray_density=4, clearance=1.8, step_limit=0.3, agent_radius=0.0, min_region_area=0.0)
    region = SearchRegion((0, -1, 0), (8, 3, 8))
    low, high = (bake(ramp_under_a_slab(h), region, settings_) for h in (1.882, 1.9))
    assert low.area() == high.area() == 64.0 and low.polygon_count > high.polygon_count
    for before, after in ((1.882, 1.9), (1.9, 1.882)):
        mesh = bake(ramp_under_a_slab(before), region, settings_)
        assert mesh.rebake(((2, 1.8, 2), (4, 1.95, 6)), ramp_under_a_slab(after)) == [(0, 0, 0)]
        assert_same(mesh, bake(ramp_under_a_slab(after), region, settings_))


def test_queries_after_rebakes_answer_as_on_a_fresh_bake():
    # One query through every re-bake: it follows its navmesh and keeps its path search's scratch (stamps
    # included).
    rng = np.random.default_rng(5)
    spots = [(10.0, 10.0), (16.5, 14.0), (32.45, 22.45), (5.0, 20.0), (20.0, 3.0)]
    mesh = bake(level(spots[0]), REGION, BASE)
    query = NavQuery(mesh)
    for before, after in zip(spots, spots[1:]):
        ends = [(query.random_point(rng), query.random_point(rng)) for _ in range(5)]
        for a, b in ends:
            query.find_path(a, b)
        mesh.rebake(moved(before, after), level(after))
        fresh = NavQuery(bake(level(after), REGION, BASE))
        for a, b in ends:
            got, expected = query.find_path(a, b), fresh.find_path(a, b)
            assert (got is None) == (expected is None)
            if got is not None:
                assert np.array_equal(got.points, expected.points) and got.length == expected.length
            assert query.locate(a) == fresh.locate(a)


def test_what_rays_keep_of_an_object_goes_with_it():
    """The rays' per-object cache (bounds, proxies, roles' look-ups) is let go when its object dies, so an object
    made later at the same address starts with nothing kept (its bounds are its own)."""
    import gc

    from voxelworld.navigation import SceneObject, proxies, roles

    first = SceneObject("a", [[0, 0, 0], [1, 0, 0], [0, 0, 1]], [[0, 1, 2]])
    assert roles._bounds(first)[1].tolist() == [1.0, 0.0, 1.0]
    address = id(first)
    assert address in proxies._OBJECT_CACHE
    del first
    gc.collect()
    assert address not in proxies._OBJECT_CACHE
    for _ in range(50):  # whichever reuses the address: its own bounds
        later = SceneObject("b", [[0, 0, 0], [5, 0, 0], [0, 0, 5]], [[0, 1, 2]])
        assert roles._bounds(later)[1].tolist() == [5.0, 0.0, 5.0]
        del later
