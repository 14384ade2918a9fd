"""Crowds on a navmesh: 200 agents swapping rooms through a doorway without overlapping or leaving the mesh, a
head-on pair passing, agents pushed against walls, re-bakes, determinism and bad input."""

from __future__ import annotations

import numpy as np
import pytest

from voxelworld.errors import ParameterError
from voxelworld.navigation import (
    Crowd,
    CrowdSettings,
    NavQuery,
    NavSettings,
    Scene,
    SearchRegion,
    WalkableGrid,
    navmesh_from_grids,
)
from voxelworld.navigation.bake import bake
from voxelworld.navigation.scenes import doorway_navmesh

from .test_bake import box

CELL = 0.25  # m
RADIUS = 0.3  # m


def worst_overlap(crowd: Crowd) -> float:
    """The deepest overlap of two agents' discs (m; <= 0 when none touch)."""
    p = crowd.positions
    d = np.hypot(p[:, None, 0] - p[None, :, 0], p[:, None, 2] - p[None, :, 2])
    reach = crowd.radii[:, None] + crowd.radii[None, :]
    np.fill_diagonal(d, np.inf)
    return float((reach - d).max()) if len(p) > 1 else -np.inf


def off_mesh(crowd: Crowd, query: NavQuery) -> list[int]:
    return [agent for agent, p in zip(crowd.ids, crowd.positions) if query.locate(p) < 0]


def swapping_rooms(mesh, per_room: int = 100, settings: CrowdSettings = CrowdSettings()) -> Crowd:
    """``per_room`` agents in a 10 x 10 block in each room, each walking to its mirror spot in the other room."""
    crowd = Crowd(mesh, settings)
    spots = [(1.5 + i * 0.95, 1.5 + k * 1.0) for i in range(10) for k in range(10)][:per_room]
    width = mesh.vertices[:, 0].max()
    for mirrored in (False, True):
        for x, z in spots:
            start = (width - x if mirrored else x, 0.0, z)
            agent = crowd.add_agent(start, RADIUS, 1.4)
            assert crowd.set_goal(agent, (width - start[0], 0.0, z))
    return crowd


def run(crowd: Crowd, seconds: float, dt: float, query: NavQuery | None = None):
    """Step ``crowd`` until every agent arrived or ``seconds`` passed; the events, the deepest overlap of any
    step (m) and the agents found off the mesh after any step (with ``query``)."""
    events, worst, off = [], -np.inf, set()
    for _ in range(round(seconds / dt)):
        events += crowd.step(dt)
        worst = max(worst, worst_overlap(crowd))
        if query is not None:
            off.update(off_mesh(crowd, query))
        if all(state == "arrived" for state in crowd.states):
            break
    return events, worst, off


# ------------------------------------------------------------------------------------------- the doorway
def test_two_hundred_agents_swap_rooms_through_a_doorway():
    """The issue's test: no pair ever overlaps by more than 5% of a radius, every agent stays on the navmesh
    after every step, and all arrive within four minutes (90% take about two and a half, the last about
    three: the last few cross the doorway alone)."""
    mesh = doorway_navmesh()
    query = NavQuery(mesh)
    crowd = swapping_rooms(mesh)
    events, worst, off = run(crowd, 240.0, 1 / 30, query)
    assert worst <= 0.05 * RADIUS
    assert not off
    assert {e.agent for e in events if e.kind == "arrived"} == set(crowd.ids)
    assert crowd.states.count("arrived") == 200
    # Each stands at its goal: within its arrival distance (its radius) of it.
    goals = np.array([crowd.goal(agent) for agent in crowd.ids])
    assert np.hypot(*(crowd.positions - goals)[:, [0, 2]].T).max() <= RADIUS + 0.05


def test_without_right_of_way_and_lanes_the_doorway_jams():
    """What the right of way, giving way and keeping right are for: without them most agents are still stuck
    after a minute, with them most are through."""
    mesh = doorway_navmesh()
    plain = CrowdSettings(keep_right=0.0, give_way_distance=0.0, yield_share=0.0)
    results = []
    for settings in (plain, CrowdSettings()):
        crowd = swapping_rooms(mesh, 50, settings)
        run(crowd, 60.0, 1 / 30)
        results.append(crowd.states.count("arrived"))
    assert results[0] < 50 < results[1]


# ----------------------------------------------------------------------------------------------- pairs
def corridor(length: float = 10.0, width: float = 2.0):
    nx, nz = round(length / CELL), round(width / CELL)
    return navmesh_from_grids([WalkableGrid(np.ones((nx, nz), dtype=bool), np.zeros((nx, nz)), 0.0, 0.0, CELL)])


ORCA_ALONE = CrowdSettings(separation_iterations=0, keep_right=0.0, give_way_distance=0.0, yield_share=0.0)


@pytest.mark.parametrize("settings, offset", [(CrowdSettings(), 0.0), (ORCA_ALONE, 0.05)])
def test_a_head_on_pair_passes_without_touching(settings, offset):
    """Two agents walking at each other along the middle of a corridor step aside in time and pass: they never
    touch and both arrive. ORCA alone (no hard separation, keeping right, giving way or right of way) keeps them
    apart too, once they are not exactly in line (exactly in line, ORCA has no side to choose: the keep-right
    rule gives it one)."""
    crowd = Crowd(corridor(), settings)
    west, east = crowd.add_agent((1.0, 0, 1.0), RADIUS, 1.5), crowd.add_agent((9.0, 0, 1.0 + offset), RADIUS, 1.5)
    crowd.set_goal(west, (9.0, 0, 1.0))
    crowd.set_goal(east, (1.0, 0, 1.0 + offset))
    closest, passed = np.inf, False
    for _ in range(400):
        crowd.step(1 / 30)
        a, b = crowd.position(west), crowd.position(east)
        closest = min(closest, float(np.hypot(*(a - b)[[0, 2]])))
        passed = passed or a[0] > b[0]
    assert closest >= 2 * RADIUS
    assert passed and crowd.states == ("arrived", "arrived")


def test_a_faster_agent_overtakes_a_slower_one():
    crowd = Crowd(corridor(20.0))
    slow, fast = crowd.add_agent((3.0, 0, 1.0), RADIUS, 0.5), crowd.add_agent((1.0, 0, 1.0), RADIUS, 1.5)
    crowd.set_goal(slow, (19.0, 0, 1.0))
    crowd.set_goal(fast, (19.0, 0, 1.0 - 0.4))
    _, worst, _ = run(crowd, 12.0, 1 / 30)
    assert crowd.position(fast)[0] > crowd.position(slow)[0] + 2 * RADIUS
    assert worst <= 0.05 * RADIUS


def test_an_agent_that_cannot_move_is_walked_round_and_never_pushed():
    crowd = Crowd(corridor(10.0, 3.0))
    post = crowd.add_agent((5.0, 0, 1.5), 0.5, 0.0)
    where = crowd.position(post)
    walkers = [crowd.add_agent((1.0, 0, 0.9 + 0.6 * n), RADIUS, 1.5) for n in range(3)]
    for n, walker in enumerate(walkers):
        crowd.set_goal(walker, (9.0, 0, 0.9 + 0.6 * n))
    closest = np.inf
    for _ in range(300):
        crowd.step(1 / 30)
        for walker in walkers:
            closest = min(closest, float(np.hypot(*(crowd.position(walker) - where)[[0, 2]])))
    assert np.array_equal(crowd.position(post), where)
    assert closest >= (0.5 + RADIUS) - 0.05 * RADIUS
    assert [crowd.state(w) for w in walkers] == ["arrived"] * 3


# ----------------------------------------------------------------------------------------------- walls
def test_agents_pressed_against_walls_stay_on_the_mesh():
    """Forty agents squeezing round a pillar to a spot in a corner, pushed against the walls by each other:
    every one stays on the navmesh after every step and none overlaps another by more than 5% of a radius."""
    nx, nz = round(8 / CELL), round(8 / CELL)
    walkable = np.ones((nx, nz), dtype=bool)
    walkable[round(3 / CELL):round(5 / CELL), round(2 / CELL):round(6 / CELL)] = False
    mesh = navmesh_from_grids([WalkableGrid(walkable, np.zeros((nx, nz)), 0.0, 0.0, CELL)])
    query = NavQuery(mesh)
    crowd = Crowd(mesh)
    for n in range(40):
        agent = crowd.add_agent((0.5 + (n % 5) * 0.65, 0, 0.5 + (n // 5) * 0.9), RADIUS, 1.5)
        crowd.set_goal(agent, (7.8, 0, 7.8))  # all to one corner: they pile up against its walls
    _, worst, off = run(crowd, 20.0, 1 / 30, query)
    assert not off
    assert worst <= 0.05 * RADIUS
    assert crowd.positions[:, 0].max() > 5.0  # they did go round


def test_agents_follow_a_rebaked_navmesh():
    """A crate dropped across an agent's way: after the re-bake it plans again ("replanned") and walks round
    it, on the new navmesh; a wall across the whole floor leaves it "blocked"."""
    floor = [[0, 0, 0], [12, 0, 0], [12, 0, 6], [0, 0, 6]]
    scene = Scene().with_object("floor", floor, [[0, 2, 1], [0, 3, 2]])
    settings = NavSettings(ray_density=16, agent_radius=RADIUS, min_region_area=0.5)
    region = SearchRegion((0, -1, 0), (12, 3, 6))
    mesh = bake(scene, region, settings)
    query = NavQuery(mesh)
    crowd = Crowd(mesh)
    agent = crowd.add_agent((1.0, 0, 3.0), RADIUS, 1.5)
    crowd.set_goal(agent, (11.0, 0, 3.0))
    for _ in range(30):
        crowd.step(1 / 30)
    crate = scene.with_object("crate", *box((5, 0, 1.5), (6, 1, 4.5)), role="obstacle")
    mesh.rebake(((4.5, -1, 1), (6.5, 2, 5)), crate)
    events, _, off = run(crowd, 15.0, 1 / 30, query)
    assert [e.kind for e in events] == ["replanned", "arrived"]
    assert not off and crowd.state(agent) == "arrived"
    # The path went round the crate: its corners lie outside the crate's x-z box.
    crowd.set_goal(agent, (1.0, 0, 3.0))
    assert all(not (5 - 1e-9 < x < 6 + 1e-9 and 1.5 - 1e-9 < z < 4.5 + 1e-9) for x, _, z in crowd.path(agent))
    wall = crate.with_object("wall", *box((7, 0, -1), (7.5, 2, 7)), role="obstacle")
    mesh.rebake(((6.5, -1, -1), (8, 3, 7)), wall)
    assert not crowd.set_goal(agent, (1.0, 0, 3.0))  # the wall cuts it off from where it started
    assert crowd.state(agent) == "blocked" and not len(crowd.path(agent))


def test_a_rebake_that_opens_a_shorter_way_is_taken():
    """A wall with a gap at its far end sends the agent on a detour; the wall taken away (re-baked), it plans
    again at once, though its next corner is still in sight, and walks straight to its goal."""
    floor = [[0, 0, 0], [12, 0, 0], [12, 0, 8], [0, 0, 8]]
    scene = Scene().with_object("floor", floor, [[0, 2, 1], [0, 3, 2]])
    walled = scene.with_object("wall", *box((5.5, 0, -1), (6.5, 2, 6)), role="obstacle")
    mesh = bake(walled, SearchRegion((0, -1, 0), (12, 3, 8)), NavSettings(ray_density=16, agent_radius=RADIUS,
                                                                          min_region_area=0.5))
    crowd = Crowd(mesh)
    agent = crowd.add_agent((1.0, 0, 1.0), RADIUS, 1.5)
    crowd.set_goal(agent, (11.0, 0, 1.0))
    detour = crowd.path(agent)
    assert len(detour) > 1 and np.all(detour[:-1, 2] >= 6.0 - 1e-9)  # round the wall's end, at z = 6 m
    for _ in range(10):
        crowd.step(1 / 30)
    mesh.rebake(((5, -1, -1.5), (7, 3, 6.5)), scene)
    events = crowd.step(1 / 30)
    assert [e.kind for e in events] == ["replanned"]
    assert len(crowd.path(agent)) == 1  # straight to the goal
    run(crowd, 10.0, 1 / 30)
    assert crowd.state(agent) == "arrived"


def test_an_agent_restored_from_its_state_walks_on_alike():
    mesh = doorway_navmesh()
    crowds = [swapping_rooms(mesh, 20) for _ in range(2)]
    for _ in range(90):
        crowds[0].step(1 / 30)
    # The other crowd's agents first walk to where they stand (paths of one corner), so that the corners it steers
    # by are other than those it is given back.
    for agent, at in zip(crowds[1].ids, crowds[1].positions):
        crowds[1].set_goal(agent, at)
    crowds[1].step(1 / 30)
    for agent in crowds[0].ids:
        crowds[1].restore_agent(agent, crowds[0].agent_state(agent))
    crowds[1].load_state_dict(crowds[0].state_dict())
    for _ in range(90):
        assert crowds[0].step(1 / 30) == crowds[1].step(1 / 30)
    assert np.array_equal(crowds[0].positions, crowds[1].positions)
    with pytest.raises(ParameterError, match="polygon"):
        crowds[1].restore_agent(0, crowds[0].agent_state(0) | {"polygon": mesh.polygon_count})
    assert np.array_equal(crowds[0].positions, crowds[1].positions)  # nothing changed


# --------------------------------------------------------------------------------------------- determinism
def test_the_same_calls_give_the_same_crowd_bit_for_bit():
    mesh = doorway_navmesh()
    runs = []
    for _ in range(2):
        crowd = swapping_rooms(mesh, 30)
        events = [e for _ in range(200) for e in crowd.step(1 / 30)]
        runs.append((crowd.positions, crowd.velocities, events))
    assert np.array_equal(runs[0][0], runs[1][0]) and np.array_equal(runs[0][1], runs[1][1])
    assert runs[0][2] == runs[1][2]
    assert not np.array_equal(runs[0][0], swapping_rooms(mesh, 30).positions)  # and they did move


def test_removing_an_agent_keeps_the_others_order():
    crowd = Crowd(corridor())
    ids = [crowd.add_agent((1.0 + n, 0, 1.0), RADIUS, 1.0) for n in range(4)]
    before = crowd.positions
    crowd.remove_agent(ids[1])
    assert crowd.ids == (ids[0], ids[2], ids[3])
    assert np.array_equal(crowd.positions, before[[0, 2, 3]])
    assert crowd.add_agent((5.0, 0, 1.0), RADIUS, 1.0) == ids[3] + 1  # ids are never used again
    crowd.remove_agent(ids[3] + 1)  # the last one (its rows sliced off, not deleted)
    crowd.remove_agent(ids[3])
    assert crowd.ids == (ids[0], ids[2]) and np.array_equal(crowd.positions, before[[0, 2]])
    assert len(crowd.radii) == 2 and crowd.states == ("idle", "idle")
    crowd.step(1 / 30)  # the arrays left are whole: the step runs on them


# ------------------------------------------------------------------------------------------------- errors
@pytest.mark.parametrize("field, value", [
    ("neighbour_distance", 0.0), ("neighbour_distance", float("nan")), ("max_neighbours", 0),
    ("max_neighbours", 2.5), ("time_horizon", -1.0), ("keep_right", 1.5), ("give_way_distance", -0.1),
    ("yield_share", 0.6), ("separation_iterations", 65), ("separation_slack", -0.01),
    ("slowdown_distance", float("inf")), ("replans_per_step", 0), ("max_snap", -1.0)])
def test_settings_name_the_bad_field(field, value):
    with pytest.raises(ParameterError) as error:
        CrowdSettings(**{field: value})
    assert error.value.parameter == field and "must be" in str(error.value)


def test_bad_input_raises_and_changes_nothing():
    crowd = Crowd(corridor())
    agent = crowd.add_agent((1.0, 0, 1.0), RADIUS, 1.0)
    crowd.set_goal(agent, (9.0, 0, 1.0))
    crowd.step(0.1)
    before = (crowd.positions, crowd.states, crowd.path(agent), crowd.goal(agent), crowd.time)
    bad_calls = [
        (lambda: crowd.add_agent((np.nan, 0, 1), RADIUS, 1.0), "position"),
        (lambda: crowd.add_agent((50.0, 0, 1), RADIUS, 1.0), "position"),  # off the mesh
        (lambda: crowd.add_agent((2.0, 0, 1), -0.3, 1.0), "radius"),
        (lambda: crowd.add_agent((2.0, 0, 1), RADIUS, -1.0), "speed"),
        (lambda: crowd.add_agent((2.0, 0, 1), RADIUS, 1.0, height=0.0), "height"),
        (lambda: crowd.set_goal(agent, (1.0, np.inf, 1.0)), "goal"),
        (lambda: crowd.set_goal(agent + 7, (1.0, 0, 1.0)), "agent"),
        (lambda: crowd.remove_agent("walker"), "agent"),
        (lambda: crowd.move_agent(agent, (1.0, 0, 40.0)), "position"),
        (lambda: crowd.step(0.0), "dt"), (lambda: crowd.step(-0.1), "dt"), (lambda: crowd.step(5.0), "dt"),
        (lambda: crowd.step(np.nan), "dt"),
    ]
    for call, parameter in bad_calls:
        with pytest.raises(ParameterError) as error:
            call()
        assert error.value.parameter == parameter
    after = (crowd.positions, crowd.states, crowd.path(agent), crowd.goal(agent), crowd.time)
    assert len(crowd) == 1 and np.array_equal(before[0], after[0]) and before[1] == after[1]
    assert np.array_equal(before[2], after[2]) and np.array_equal(before[3], after[3]) and before[4] == after[4]
    with pytest.raises(ParameterError):
        Crowd("a navmesh")


def test_a_goal_on_another_island_blocks():
    nx, nz = round(8 / CELL), round(2 / CELL)
    walkable = np.ones((nx, nz), dtype=bool)
    walkable[round(4 / CELL):round(5 / CELL), :] = False  # a wall across: two islands
    crowd = Crowd(navmesh_from_grids([WalkableGrid(walkable, np.zeros((nx, nz)), 0.0, 0.0, CELL)]))
    agent = crowd.add_agent((1.0, 0, 1.0), RADIUS, 1.0)
    assert not crowd.set_goal(agent, (7.0, 0, 1.0))
    assert crowd.state(agent) == "blocked"
    crowd.step(0.5)
    assert np.array_equal(crowd.position(agent), [1.0, 0.0, 1.0])  # it stands
