"""Query filters: QueryFilter's checks, exclusions in every query (paths around excluded polygons, nearest points
and rays that skip them), what a navmesh derives for a filter kept until it is re-baked, and a crowd's agent
that never steps into an excluded polygon."""

from __future__ import annotations

import gc
import weakref
from collections.abc import Callable

import numpy as np
import pytest

from voxelworld.errors import ParameterError
from voxelworld.navigation import Crowd, NavMesh, NavQuery, NavSettings, QueryFilter, Scene, SearchRegion
from voxelworld.navigation.bake import bake
from voxelworld.navigation.filters import filter_view

AREA_TYPES = ("ground", "mud", "hazard", "jump")


def tiles(nx: int, nz: int, area: Callable[[float, float], str] = lambda x, z: "ground", **keywords) -> NavMesh:
    """A navmesh of ``nx`` x ``nz`` squares of 1 m (x from 0 to nx, z from 0 to nz, at height 0), each a polygon
    joined to its neighbours, of the area type ``area(x, z)`` names (x, z: its centre)."""
    vertex = {(i, k): n for n, (i, k) in enumerate((i, k) for i in range(nx + 1) for k in range(nz + 1))}
    vertices = [[float(i), 0.0, float(k)] for i, k in vertex]
    corners, types, portals, segments = [], [], [], []
    for i in range(nx):
        for k in range(nz):
            corners += [vertex[i, k], vertex[i, k + 1], vertex[i + 1, k + 1], vertex[i + 1, k]]
            types.append(AREA_TYPES.index(area(i + 0.5, k + 0.5)))
            q = i * nz + k
            if i + 1 < nx:
                portals.append([q, q + nz])
                segments.append([[i + 1, 0, k], [i + 1, 0, k + 1]])
            if k + 1 < nz:
                portals.append([q, q + 1])
                segments.append([[i, 0, k + 1], [i + 1, 0, k + 1]])
    return NavMesh(vertices, np.arange(0, 4 * nx * nz + 1, 4), corners, np.zeros(nx * nz, dtype=np.int64),
                   np.array(portals, dtype=np.int64).reshape(-1, 2), np.array(segments, dtype=float).reshape(-1, 2, 3),
                   area_types=AREA_TYPES, polygon_area_type=types, **keywords)


def hazard_block(x: float, z: float) -> str:
    """Hazard over x in [3, 5], z in [0, 3] of an 8 x 4 field."""
    return "hazard" if 3 < x < 5 and z < 3 else "ground"


AVOID = QueryFilter(exclude={"hazard"})


def stays_on(mesh: NavMesh, points: np.ndarray, query_filter: QueryFilter, step: float = 0.01) -> bool:
    """Whether a polyline, sampled every ``step`` m, stays on the polygons ``query_filter`` allows (a point on
    the side between an allowed polygon and an excluded one is on the allowed one)."""
    query = NavQuery(mesh)
    for a, b in zip(points[:-1], points[1:]):
        for t in np.linspace(0.0, 1.0, max(2, int(np.linalg.norm(b - a) / step) + 1)):
            if query.locate(a + t * (b - a), query_filter) < 0:
                return False
    return True


# ------------------------------------------------------------------------------------------------ the filter
@pytest.mark.parametrize("costs, exclude, field", [
    ({"mud": 0.0}, (), "costs['mud']"),
    ({"mud": -2.0}, (), "costs['mud']"),
    ({"mud": float("inf")}, (), "costs['mud']"),
    ({"mud": float("nan")}, (), "costs['mud']"),
    ({"mud": 1e7}, (), "costs['mud']"),
    ({"mud": "10"}, (), "costs['mud']"),
    ({"mud": True}, (), "costs['mud']"),
    ({"Mud": 2.0}, (), "costs key 'Mud'"),
    ({3: 2.0}, (), "costs key 3"),
    ([("mud", 2.0)], (), "costs"),
    ({}, "hazard", "exclude"),
    ({}, 5, "exclude"),
    ({}, {"Lava!"}, "exclude entry"),
])
def test_bad_filters_are_refused_naming_the_field(costs: object, exclude: object, field: str) -> None:
    with pytest.raises(ParameterError) as caught:
        QueryFilter(costs, exclude)  # type: ignore[arg-type]
    assert caught.value.parameter == field


def test_filters_are_values() -> None:
    a = QueryFilter({"mud": 10, "slippery": 2.5}, {"hazard"})
    b = QueryFilter({"slippery": 2.5, "mud": 10.0}, ["hazard"])
    assert a == b and hash(a) == hash(b) and len({a, b}) == 1
    assert a != QueryFilter({"mud": 10}) and a.cost("mud") == 10.0 and a.cost("ground") == 1.0
    assert a.exclude == frozenset({"hazard"})
    with pytest.raises(TypeError):
        a.costs["mud"] = 1.0  # type: ignore[index]


def test_a_query_refuses_what_is_not_a_filter() -> None:
    query = NavQuery(tiles(2, 2))
    with pytest.raises(ParameterError) as caught:
        query.find_path([0.5, 0, 0.5], [1.5, 0, 1.5], filter={"mud": 2.0})  # type: ignore[arg-type]
    assert caught.value.parameter == "filter"


def test_names_the_navmesh_lacks_match_nothing() -> None:
    mesh = tiles(8, 4, hazard_block)
    query = NavQuery(mesh)
    plain = query.find_path([0.5, 0, 1.5], [7.5, 0, 1.5])
    other = query.find_path([0.5, 0, 1.5], [7.5, 0, 1.5], QueryFilter({"swamp": 5.0}, {"lava"}))
    assert plain is not None and other is not None
    assert np.array_equal(plain.points, other.points) and plain.cost == plain.length == other.cost


# ------------------------------------------------------------------------------------------------ exclusions
def test_paths_go_around_excluded_polygons() -> None:
    mesh = tiles(8, 4, hazard_block)
    query = NavQuery(mesh)
    plain = query.find_path([0.5, 0, 1.5], [7.5, 0, 1.5])
    assert plain is not None and not stays_on(mesh, plain.points, AVOID)
    around = query.find_path([0.5, 0, 1.5], [7.5, 0, 1.5], AVOID)
    assert around is not None and stays_on(mesh, around.points, AVOID)
    # Around the block's corners (3, 3) and (5, 3): exact (Polyanya over the allowed polygons).
    assert around.points[:, [0, 2]].tolist() == [[0.5, 1.5], [3.0, 3.0], [5.0, 3.0], [7.5, 1.5]]
    assert around.length == pytest.approx(2 * np.hypot(2.5, 1.5) + 2.0)
    assert around.offmesh.tolist() == [-1, -1, -1] and around.cost == around.length


def test_no_path_when_excluded_polygons_cut_the_way() -> None:
    mesh = tiles(8, 4, lambda x, z: "hazard" if 3 < x < 5 else "ground")
    query = NavQuery(mesh)
    assert query.find_path([0.5, 0, 1.5], [7.5, 0, 1.5]) is not None
    assert query.find_path([0.5, 0, 1.5], [7.5, 0, 1.5], AVOID) is None
    assert query.find_path([0.5, 0, 1.5], [2.5, 0, 3.5], AVOID) is not None


def test_nearest_points_and_locate_skip_excluded_polygons() -> None:
    mesh = tiles(8, 4, hazard_block)
    query = NavQuery(mesh)
    assert mesh.area_types[mesh.polygon_area_type[query.locate([4.2, 0, 1.0])]] == "hazard"
    assert query.locate([4.2, 0, 1.0], AVOID) == -1
    point, q = query.nearest_point([4.2, 0, 1.0], AVOID)
    assert q >= 0 and mesh.polygon_area_type[q] == 0
    assert point.tolist() == pytest.approx([5.0, 0.0, 1.0])  # the nearest allowed point: the block's side
    everything = QueryFilter(exclude=set(AREA_TYPES))
    assert query.nearest_point([4.2, 0, 1.0], everything)[1] == -1
    assert query.find_path([0.5, 0, 0.5], [1.5, 0, 0.5], everything) is None


def test_a_ray_stops_at_excluded_polygons_as_at_walls() -> None:
    mesh = tiles(8, 4, hazard_block)
    query = NavQuery(mesh)
    walked, reached = query.raycast([0.5, 0, 1.5], [7.5, 0, 1.5])
    assert walked == pytest.approx(7.0)
    walked, reached = query.raycast([0.5, 0, 1.5], [7.5, 0, 1.5], AVOID)
    assert walked == pytest.approx(2.5) and reached[[0, 2]].tolist() == pytest.approx([3.0, 1.5])
    walked, _ = query.raycast([0.5, 0, 3.5], [7.5, 0, 3.5], AVOID)  # beside the block: clear
    assert walked == pytest.approx(7.0)


def test_what_a_filter_derives_is_kept_until_the_navmesh_is_re_baked() -> None:
    scene = Scene().with_object("floor", [[0, 0, 0], [8, 0, 0], [8, 0, 8], [0, 0, 8]], [[0, 2, 1], [0, 3, 2]])
    mesh = bake(scene, SearchRegion((0, -1, 0), (8, 3, 8)), NavSettings(ray_density=4, agent_radius=0,
                                                                         min_region_area=0))
    query = NavQuery(mesh)
    assert query.find_path([1, 0, 1], [7, 0, 7], AVOID) is not None
    view = filter_view(mesh, AVOID)
    assert filter_view(mesh, QueryFilter(exclude=["hazard"])) is view
    crate = [[x, y, z] for x in (2, 4) for y in (0, 1) for z in (2, 4)]
    mesh.rebake([[2, 0, 2], [4, 1, 4]], scene.with_object("crate", crate, [[0, 1, 3], [0, 3, 2]], role="obstacle"))
    again = filter_view(mesh, AVOID)
    assert again is not view and again.index is mesh.index
    path = query.find_path([1, 0, 3], [7, 0, 3], AVOID)
    assert path is not None and path.length > 6.0  # around the new crate


def test_one_query_alternating_filters_finds_what_separate_queries_find() -> None:
    mesh = tiles(8, 4, hazard_block)
    both, plain, avoiding = NavQuery(mesh), NavQuery(mesh), NavQuery(mesh)
    rng = np.random.default_rng(2)
    for _ in range(40):
        a, b = rng.random(3) * [8, 0, 4], rng.random(3) * [8, 0, 4]
        for query_filter, alone in ((None, plain), (AVOID, avoiding), (QueryFilter(exclude={"lava"}), plain)):
            mixed, expected = both.find_path(a, b, query_filter), alone.find_path(a, b, query_filter)
            assert (mixed is None) == (expected is None)
            if mixed is not None and expected is not None:
                assert np.array_equal(mixed.points, expected.points)


def test_what_a_filter_derives_does_not_keep_a_navmesh_alive() -> None:
    mesh = tiles(8, 4, hazard_block)
    weighted = QueryFilter({"mud": 2.0}, {"hazard"})
    assert NavQuery(mesh).find_path([0.5, 0, 1.5], [7.5, 0, 1.5], weighted) is not None
    assert filter_view(mesh, weighted).graph is not None
    index, view = weakref.ref(mesh.index), weakref.ref(filter_view(mesh, weighted))
    gc.disable()  # freed when the last reference goes, not when the cycle collector comes (no cycle)
    try:
        del mesh
        assert index() is None and view() is None
    finally:
        gc.enable()



def test_a_query_keeps_no_index_of_a_navmesh_re_baked_since() -> None:
    # A query alternating between a filter and none keeps the other binding as a spare; after a re-bake the old
    # navmesh's index is never searched again, so no binding keeps it alive (its arrays would be held for nothing).
    scene = Scene().with_object("floor", [[0, 0, 0], [8, 0, 0], [8, 0, 8], [0, 0, 8]], [[0, 2, 1], [0, 3, 2]])
    mesh = bake(scene, SearchRegion((0, -1, 0), (8, 3, 8)), NavSettings(ray_density=4, agent_radius=0,
                                                                         min_region_area=0))
    query = NavQuery(mesh)
    assert query.find_path([1, 0, 1], [7, 0, 7], AVOID) is not None
    assert query.find_path([1, 0, 1], [7, 0, 7]) is not None  # (the filter's binding now the spare)
    old_index = weakref.ref(mesh.index)
    crate = [[x, y, z] for x in (2, 4) for y in (0, 1) for z in (2, 4)]
    mesh.rebake([[2, 0, 2], [4, 1, 4]], scene.with_object("crate", crate, [[0, 1, 3], [0, 3, 2]], role="obstacle"))
    path = query.find_path([1, 0, 3], [7, 0, 3])
    fresh = NavQuery(mesh).find_path([1, 0, 3], [7, 0, 3])
    assert path is not None and fresh is not None and np.array_equal(path.points, fresh.points)
    assert old_index() is None  # (without the cycle collector: nothing made a cycle through it)
    assert query.find_path([1, 0, 3], [7, 0, 3], AVOID) is not None  # and both bindings work on

# ------------------------------------------------------------------------------------------------ the crowd
def test_an_agent_with_a_filter_never_steps_into_an_excluded_polygon() -> None:
    mesh = tiles(8, 4, hazard_block)
    crowd = Crowd(mesh)
    careful = crowd.add_agent([0.5, 0, 1.5], 0.3, 1.5, filter=AVOID)
    careless = crowd.add_agent([7.5, 0, 1.5], 0.3, 1.5)  # walks straight through, into the careful one's way
    assert crowd.set_goal(careful, [7.5, 0, 1.5]) and crowd.set_goal(careless, [0.5, 0, 1.5])
    query = NavQuery(mesh)
    allowed: dict[int, list[bool]] = {careful: [], careless: []}
    for _ in range(400):
        crowd.step(0.05)
        for agent in (careful, careless):
            allowed[agent].append(query.locate(crowd.position(agent), AVOID) >= 0)
    assert all(allowed[careful]) and not all(allowed[careless])
    assert crowd.state(careful) == "arrived"
    assert np.linalg.norm(crowd.position(careful) - [7.5, 0, 1.5]) < 0.5


def test_agents_added_and_removed_while_the_crowd_walks_keep_their_own_filters() -> None:
    """What the crowd derives from its agents' filters is made again as agents come and go: one with a filter
    added beside the hazard after two others set off towards it is never pushed in by them, nor after one of
    them, before it in the crowd's order, leaves."""
    mesh = tiles(8, 4, hazard_block)
    crowd = Crowd(mesh)
    walkers = [crowd.add_agent([0.5, 0, 1.5 + dz], 0.3, 1.5) for dz in (-0.3, 0.3)]
    for walker in walkers:
        assert crowd.set_goal(walker, [7.5, 0, 1.5])
    crowd.step(0.05)
    careful = crowd.add_agent([2.8, 0, 1.5], 0.4, 1.5, filter=AVOID)  # standing beside the hazard
    query, allowed = NavQuery(mesh), []
    for n in range(200):
        if n == 40:
            crowd.remove_agent(walkers[0])
        crowd.step(0.05)
        allowed.append(query.locate(crowd.position(careful), AVOID) >= 0)
    assert all(allowed) and crowd.position(careful)[0] == pytest.approx(3.0)  # pushed up to the hazard's side


def test_an_agent_with_a_filter_is_never_pushed_into_an_excluded_polygon() -> None:
    mesh = tiles(8, 4, hazard_block)
    crowd = Crowd(mesh)
    careful = crowd.add_agent([2.8, 0, 1.5], 0.4, 1.5, filter=AVOID)  # standing beside the hazard
    for dz in (-0.3, 0.3):  # two walking into it from behind
        assert crowd.set_goal(crowd.add_agent([0.5, 0, 1.5 + dz], 0.3, 1.5), [7.5, 0, 1.5])
    query = NavQuery(mesh)
    for _ in range(200):
        crowd.step(0.05)
        assert query.locate(crowd.position(careful), AVOID) >= 0
    assert crowd.position(careful)[0] == pytest.approx(3.0)  # pushed up to the hazard's side


def test_an_agent_is_placed_on_the_polygons_its_filter_allows() -> None:
    crowd = Crowd(tiles(8, 4, hazard_block))
    agent = crowd.add_agent([4.5, 0, 1.5], 0.3, 1.5, filter=AVOID)  # in the hazard: put beside it
    assert crowd.position(agent).tolist() == pytest.approx([5.0, 0.0, 1.5])
    with pytest.raises(ParameterError) as caught:
        crowd.add_agent([1, 0, 1], 0.3, 1.5, filter="hazard")  # type: ignore[arg-type]
    assert caught.value.parameter == "filter"
