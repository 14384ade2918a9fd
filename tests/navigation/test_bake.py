"""The baker on a room built in the test, with areas known exactly (cell edges on the furniture's edges)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from voxelworld.errors import ParameterError
from voxelworld.navigation import NavQuery, NavSettings, Scene, SearchRegion
from voxelworld.navigation.bake import bake
from voxelworld.navigation.rays import RayScene
from voxelworld.navigation.sampling import CORNER_INSET


def box(lo, hi):
    """A closed box's triangles (outward), corners lo..hi in metres."""
    lo, hi = np.asarray(lo, float), np.asarray(hi, float)
    corners = np.array([[x, y, z] for x in (lo[0], hi[0]) for y in (lo[1], hi[1]) for z in (lo[2], hi[2])])
    faces = [[0, 1, 3], [0, 3, 2], [4, 6, 7], [4, 7, 5], [0, 4, 5], [0, 5, 1], [2, 3, 7], [2, 7, 6],
             [0, 2, 6], [0, 6, 4], [1, 5, 7], [1, 7, 3]]
    return corners, np.array(faces)


def cylinder(centre, radius, height, sides=96):
    angles = np.linspace(0, 2 * np.pi, sides, endpoint=False)
    ring = np.column_stack([centre[0] + radius * np.cos(angles), np.zeros(sides), centre[1] + radius * np.sin(angles)])
    top = ring + [0, height, 0]
    positions = np.vstack([ring, top, [[centre[0], 0, centre[1]], [centre[0], height, centre[1]]]])
    faces = []
    for a in range(sides):
        b = (a + 1) % sides
        faces += [[a, b, sides + b], [a, sides + b, sides + a], [2 * sides, b, a], [2 * sides + 1, sides + a, sides + b]]
    return positions, np.array(faces)


def room() -> Scene:
    scene = Scene().with_object("floor", [[0, 0, 0], [10, 0, 0], [10, 0, 10], [0, 0, 10]], [[0, 2, 1], [0, 3, 2]])
    scene = scene.with_object("table", *box((2, 0, 2), (4, 0.8, 3.5)), role="obstacle")
    scene = scene.with_object("crate", *box((6, 0, 6), (7, 0.2, 7)), role="obstacle")  # under obstacle_min_height
    scene = scene.with_object("curtain", *box((8, 0, 0), (9, 3, 10)), role="exception")
    return scene.with_object("shelf", *box((9.5, 0, 4), (11, 1, 5)), role="obstacle")  # half outside the region


REGION = SearchRegion((0, 0, 0), (10, 2.5, 10))  # its base is the floor: heights count from there
SETTINGS = NavSettings(ray_density=16, agent_radius=0, min_region_area=0, clearance=1.0, step_limit=0.5,
                       obstacle_min_height=0.3, exclusion_proxy="aabb-tree", low_obstacles="floor")


def test_basic_mode_cuts_out_obstacles_and_keeps_low_crates():
    mesh = bake(room(), REGION, SETTINGS)
    # 100 m² of floor, less the table (2 x 1.5) and the inside half of the shelf (0.5 x 1); the crate is lower
    # than obstacle_min_height, so its top is walkable ground; the curtain is transparent.
    assert mesh.area() == pytest.approx(100 - 3.0 - 0.5)
    assert len(mesh.islands()) == 1
    on_crate = NavQuery(mesh).nearest_point([6.5, 1.0, 6.5])[0]
    assert on_crate[1] == pytest.approx(0.2)
    # Levels count the surfaces facing up beneath: the crate's top stands over the floor inside it.
    assert mesh.area(level=1) == pytest.approx(1.0) and mesh.area(level=0) == pytest.approx(95.5)


def test_low_obstacles_are_transparent_by_default_and_measured_from_the_ground_under_them():
    transparent = NavSettings(**{**SETTINGS.__dict__, "low_obstacles": "transparent", "levels": True})
    mesh = bake(room(), REGION, transparent)
    # The 0.2 m crate is under obstacle_min_height: the rays pass through it to the floor (no level on its top).
    assert mesh.area(level=1) == pytest.approx(3.0 + 0.5) and mesh.area(level=0) == pytest.approx(96.5)
    assert NavQuery(mesh).nearest_point([6.5, 1.0, 6.5])[0][1] == pytest.approx(0.0)
    # A 0.3 m curb on a floor 1 m above the region's base is low (threshold 0.5), measured from the floor under
    # it: transparent; a 0.8 m wall there is an obstacle; a beam hanging 1.5-1.8 m over the floor is one too.
    scene = Scene().with_object("deck", *box((0, 0.9, 0), (10, 1.0, 10)))
    scene = scene.with_object("curb", *box((2, 1.0, 2), (3, 1.3, 8)), role="obstacle")
    scene = scene.with_object("wall", *box((6, 1.0, 2), (7, 1.8, 8)), role="obstacle")
    region = SearchRegion((0, 0, 0), (10, 4, 10))
    settings = NavSettings(**{**SETTINGS.__dict__, "low_obstacles": "transparent", "obstacle_min_height": 0.5})
    mesh = bake(scene, region, settings)
    assert mesh.area() == pytest.approx(100.0 - 6.0)  # only the wall cut out
    as_floor = bake(scene, region, NavSettings(**{**settings.__dict__, "low_obstacles": "floor"}))
    assert as_floor.area() == pytest.approx(100.0 - 6.0)
    assert NavQuery(as_floor).nearest_point([2.5, 2.0, 5.0])[0][1] == pytest.approx(1.3)  # the curb's top
    beam = Scene().with_object("deck", *box((0, 0.9, 0), (10, 1.0, 10))) \
        .with_object("beam", *box((4, 2.5, 0), (5, 2.8, 10)), role="obstacle")
    assert bake(beam, region, settings).area() == pytest.approx(90.0)  # 1.8 m over the deck: an obstacle


def test_levels_mode_adds_the_table_top():
    mesh = bake(room(), REGION, NavSettings(**{**SETTINGS.__dict__, "levels": True}))
    query = NavQuery(mesh)
    # The table's top (3 m²) and the inside half of the shelf's top (0.5 m²) become levels of their own. Under
    # neither is there room: their proxies are closed boxes standing on the floor, and a box's bottom covers
    # the floor it stands on (it comes first at equal height), so the floor under them has no headroom at all.
    # (The clearance itself, met exactly, is checked in test_clearance_met_exactly_is_enough.)
    assert mesh.area() == pytest.approx(96.5 + 3.0 + 0.5)
    top = query.nearest_point([3.0, 2.0, 2.75])[0]
    assert top[1] == pytest.approx(0.8)
    islands = mesh.islands()
    assert sorted(round(float(mesh.polygon_areas()[g].sum()), 6) for g in islands) == [0.5, 3.0, 96.5]
    # The table top is a second level (over the floor it stands on), as are the shelf's top and the crate's.
    assert mesh.area(level=1) == pytest.approx(3.0 + 0.5 + 1.0) and mesh.area(level=0) == pytest.approx(95.5)
    assert mesh.polygon_level[query.locate(top)] == 1


def test_a_round_obstacle_cut_out_approaches_a_circle():
    scene = Scene().with_object("floor", [[0, 0, 0], [6, 0, 0], [6, 0, 6], [0, 0, 6]], [[0, 2, 1], [0, 3, 2]])
    positions, indices = cylinder((3.0, 3.0), 1.3, 2.0)
    scene = scene.with_object("pillar", positions, indices, role="obstacle")
    outline = positions[:96][:, [0, 2]]  # the pillar is a 96-sided prism
    polygon = 0.5 * 96 * 1.3 ** 2 * math.sin(2 * math.pi / 96)
    perimeter = 96 * 2 * 1.3 * math.sin(math.pi / 96)
    errors = []
    for density in (4, 49, 400):
        settings = NavSettings(ray_density=density, agent_radius=0, min_region_area=0, exclusion_proxy="mesh",
                               max_edge_error=0)  # polygons on the cells' outline: the cells are measured
        cut = 36.0 - bake(scene, SearchRegion((0, -1, 0), (6, 3, 6)), settings).area()
        # A cell is walkable only if all of it is floor: the cut-out is every cell whose centre or a corner
        # (probed CORNER_INSET of a cell inside it) is under the pillar, so it covers the pillar and overshoots
        # by less than the ring of cells along its outline, a ring that thins with the cells.
        cell = settings.cell_size
        assert cut == pytest.approx(cells_under(outline, 6.0, cell) * cell ** 2)
        assert 0 < cut - polygon < perimeter * cell
        errors.append(cut - polygon)
    assert errors[0] > errors[1] > errors[2]


def cells_under(outline: np.ndarray, side: float, cell: float) -> int:
    """How many cells of a square region (side m) have their centre or a probed corner inside a convex outline
    (x, z, counter-clockwise)."""
    n = int(np.floor(side / cell + 1e-9))
    centre = (np.arange(n) + 0.5) * cell
    a, b = outline, np.roll(outline, -1, axis=0)
    covered = np.zeros((n, n), dtype=bool)
    for sx, sz in ((0, 0), (-1, -1), (-1, 1), (1, -1), (1, 1)):
        x = centre[:, None, None] + sx * (0.5 - CORNER_INSET) * cell
        z = centre[None, :, None] + sz * (0.5 - CORNER_INSET) * cell
        cross = (b[:, 0] - a[:, 0]) * (z - a[:, 1]) - (b[:, 1] - a[:, 1]) * (x - a[:, 0])
        covered |= np.all(cross > 0, axis=-1)
    return int(covered.sum())


def test_erosion_and_small_islands():
    scene = Scene().with_object("floor", [[0, 0, 0], [8, 0, 0], [8, 0, 8], [0, 0, 8]], [[0, 2, 1], [0, 3, 2]])
    scene = scene.with_object("step", *box((20, 0, 0), (21, 0.1, 1)))  # a 1 m² floor island, far away
    region = SearchRegion((0, -1, 0), (22, 3, 8))
    eroded = bake(scene, region, NavSettings(ray_density=4, agent_radius=1.0, min_region_area=0))
    assert eroded.area() == pytest.approx(36.0)  # 1 m off every edge of the 8 x 8 floor; the 1 m² step is gone
    kept = bake(scene, region, NavSettings(ray_density=4, agent_radius=0, min_region_area=0))
    assert kept.area() == pytest.approx(65.0) and len(kept.islands()) == 2
    dropped = bake(scene, region, NavSettings(ray_density=4, agent_radius=0, min_region_area=2.0))
    assert dropped.area() == pytest.approx(64.0) and len(dropped.islands()) == 1


def slab(lo, hi):
    """A closed box as a floor: ground with a thickness, as levels are usually built (one standing on another
    object is an obstacle unless it is given the role floor: the vertex-in-region rule)."""
    return box(lo, hi)


def island_areas(mesh) -> list[float]:
    areas = mesh.polygon_areas()
    return sorted((round(float(areas[g].sum()), 6) for g in mesh.islands()), reverse=True)


def test_clearance_met_exactly_is_enough():
    scene = Scene().with_object("ground", *slab((0, -0.2, 0), (4, 0, 4)))
    scene = scene.with_object("roof", *slab((0, 1.0, 0), (2, 1.3, 4)), role="floor")  # underside 1.0 m up
    region = SearchRegion((0, -1, 0), (4, 2, 4))
    open_everywhere = bake(scene, region, NavSettings(**{**SETTINGS.__dict__, "clearance": 1.0}))
    assert open_everywhere.area() == pytest.approx(16.0 + 8.0)  # the ground, and the roof's top
    too_low = bake(scene, region, NavSettings(**{**SETTINGS.__dict__, "clearance": 1.01}))
    assert too_low.area() == pytest.approx(8.0 + 8.0)  # the ground beside the roof, and the roof's top


def test_cells_a_drop_or_a_wall_only_partly_covers_are_dropped():
    # The ground ends at x = 5.2, inside the cell [5.0, 5.25] whose centre (5.125) is still on it; a wall from
    # x = 2.95 to 3.35 reaches into the cells [2.75, 3.0] and [3.25, 3.5] without covering their centres. A
    # cell is walkable only if all of it is floor, so those three go; the cell on the wall's top stays.
    scene = Scene().with_object("ground", [[0, 0, 0], [5.2, 0, 0], [5.2, 0, 4], [0, 0, 4]], [[0, 2, 1], [0, 3, 2]])
    scene = scene.with_object("wall", *box((2.95, 0, 0), (3.35, 3, 4)), role="floor")  # its top walkable
    settings = NavSettings(ray_density=16, agent_radius=0, min_region_area=0, max_edge_error=0)
    mesh = bake(scene, SearchRegion((0, -1, 0), (8, 4, 4)), settings)
    assert island_areas(mesh) == [2.75 * 4, 1.5 * 4, 0.25 * 4]  # x 0 .. 2.75 and 3.5 .. 5.0; the wall's top


def test_a_floor_through_a_closed_box_is_an_island_of_its_own():
    # A box sunk through the ground: the ground inside it has headroom (3 m) but lies inside a closed solid
    # (its ray enters through the box's top and leaves through its bottom), so it does not link to the ground
    # outside, as if the box's walls, which vertical rays never hit, stood in the way.
    scene = Scene().with_object("ground", *slab((0, -0.2, 0), (10, 0, 10)))
    scene = scene.with_object("box", *box((3, -0.5, 3), (7, 3, 7)), role="floor")
    settings = NavSettings(ray_density=16, agent_radius=0.25, min_region_area=0, max_edge_error=0)
    mesh = bake(scene, SearchRegion((0, -1, 0), (10, 4, 10)), settings)
    # One cell eroded along every edge (the region's, the walls', the box top's drop); diagonal corners stay.
    outside = 9.5 ** 2 - (4.5 ** 2 - 4 * 0.25 ** 2)
    assert island_areas(mesh) == [outside, 3.5 ** 2, 3.5 ** 2]  # the ground, the box's top, inside the box
    inside = NavQuery(mesh).nearest_point([5.0, 0.5, 5.0])[0]
    assert inside[1] == pytest.approx(0.0)


def test_a_lone_plane_overhead_encloses_nothing():
    # A one-sided balcony floor (no underside) over the ground: it pairs with no surface facing down, so the
    # ground under it is not inside a solid and stays joined to the ground around it.
    scene = Scene().with_object("ground", *slab((0, -0.2, 0), (10, 0, 10)))
    scene = scene.with_object("balcony", [[3, 3, 3], [7, 3, 3], [7, 3, 7], [3, 3, 7]], [[0, 2, 1], [0, 3, 2]],
                              role="floor")
    settings = NavSettings(ray_density=16, agent_radius=0.25, min_region_area=0)
    mesh = bake(scene, SearchRegion((0, -1, 0), (10, 4, 10)), settings)
    assert island_areas(mesh) == [9.5 ** 2, 3.5 ** 2]


def test_a_box_standing_on_the_floor_covers_it():
    # A crate taller than the clearance, standing on the ground (its bottom at the ground's height): the ground
    # under it has no room, so the walkable ground goes round it, not under it.
    scene = Scene().with_object("ground", [[0, 0, 0], [6, 0, 0], [6, 0, 6], [0, 0, 6]], [[0, 2, 1], [0, 3, 2]])
    scene = scene.with_object("crate", *box((2, 0, 2), (4, 2.5, 4)), role="floor")  # undesignated: an obstacle
    settings = NavSettings(ray_density=16, agent_radius=0, min_region_area=0)
    mesh = bake(scene, SearchRegion((0, -1, 0), (6, 3, 6)), settings)
    assert island_areas(mesh) == [36.0 - 4.0, 4.0]  # the ground round the crate, and the crate's top


def test_no_link_through_an_opening_lower_than_the_clearance():
    # Ground under a roof (underside at 2.2 m) beside a platform 0.4 m high: the step is within step_limit, but
    # an agent stepping up onto the platform under the roof's edge has 1.8 m of room, less than its 2 m.
    scene = Scene().with_object("ground", *slab((0, -0.2, 0), (10, 0, 10)))
    scene = scene.with_object("roof", *slab((0, 2.2, 0), (5, 2.5, 10)), role="floor")
    scene = scene.with_object("platform", *slab((5, 0, 0), (10, 0.4, 10)), role="floor")
    settings = NavSettings(ray_density=16, agent_radius=0.25, min_region_area=0)
    mesh = bake(scene, SearchRegion((0, -1, 0), (10, 4, 10)), settings)
    assert island_areas(mesh) == [4.5 * 9.5] * 3  # under the roof, on the platform, on the roof


def test_bake_is_deterministic_and_checks_its_input():
    a, b = bake(room(), REGION, SETTINGS), bake(room(), REGION, SETTINGS)
    assert a.to_json() == b.to_json()
    with pytest.raises(ParameterError) as caught:  # rays are cast in a region's own frame only
        RayScene(room(), SearchRegion((0, 0, 0), (10, 2.5, 10), ray_direction=(1, 0, 0)), SETTINGS)
    assert caught.value.parameter == "rotation"
    with pytest.raises(ParameterError):
        bake(room(), [], SETTINGS)


def test_progress_is_reported_step_by_step():
    calls = []
    regions = [REGION, SearchRegion((20, 0, 0), (25, 2.5, 5))]  # apart: two areas of six steps
    bake(room(), regions, SETTINGS, progress=lambda done, total: calls.append((done, total)))
    assert calls == [(n, 12) for n in range(1, 13)]
    calls.clear()
    regions = [REGION, SearchRegion((10, 0, 0), (15, 2.5, 5))]  # touching: baked as one area
    bake(room(), regions, SETTINGS, progress=lambda done, total: calls.append((done, total)))
    assert calls == [(n, 6) for n in range(1, 7)]


def test_a_region_with_nothing_in_it_bakes_to_an_empty_navmesh():
    for scene in (room(), Scene()):
        # Without its bottom face as the landing surface (which is on by default for a region no floor reaches)
        mesh = bake(scene, SearchRegion((50, -1, 50), (60, 2, 60), landing=False), SETTINGS)
        assert mesh.polygon_count == 0 and mesh.area() == 0.0 and mesh.islands() == []
        assert NavQuery(mesh).find_path((51, 0, 51), (55, 0, 55)) is None
        assert mesh.rebake(((49, -1, 49), (52, 1, 52)), scene) == []
