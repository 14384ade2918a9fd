"""The crowd crossing off-mesh links: an agent on a pit's rim with its goal in the pit jumps down (leaves the navmesh
at the link's start, follows a jump's arc, lands, walks on), one in the pit finds no way up, one walking along the
rim never leaves the navmesh, and a ladder is climbed both ways."""

from __future__ import annotations

import numpy as np
import pytest

from voxelworld.navigation import Crowd, NavQuery, Scene, SearchRegion
from voxelworld.navigation.bake import bake
from voxelworld.navigation.crowd_links import CLIMB_SPEED, HOP, arc_point, crossing_time
from voxelworld.navigation.frames import Frame

from .test_ledges import PIT, REGION, SETTINGS, pit_scene

DT = 1 / 30
RIM, FLOOR = (2.0, 0.0, 8.0), (8.5, -2.0, 9.5)


@pytest.fixture(scope="module")
def pit():
    return bake(pit_scene(), REGION, SETTINGS)


def run(crowd: Crowd, agent: int, steps: int) -> tuple[list, list]:
    """The events of ``steps`` steps, and per step the agent's position and link."""
    events, track = [], []
    for _ in range(steps):
        events += crowd.step(DT)
        track.append((crowd.position(agent), crowd.link(agent)))
    return events, track


def test_an_agent_on_the_rim_jumps_down_to_its_goal_in_the_pit(pit) -> None:
    crowd = Crowd(pit)
    agent = crowd.add_agent(RIM, radius=0.4, speed=1.5)
    assert crowd.set_goal(agent, FLOOR)
    path = NavQuery(pit).find_path(RIM, FLOOR)
    assert path is not None and (path.offmesh >= 0).sum() == 1  # one link on its path
    link = int(path.offmesh[path.offmesh >= 0][0])
    assert np.allclose(crowd.path(agent), path.points[1:2])  # the way ahead, up to the link's start
    events, track = run(crowd, agent, 300)
    assert [e.kind for e in events] == ["offmesh", "landed", "arrived"]
    left, landed = events[0], events[1]
    assert left.position[1] == pytest.approx(0.0) and landed.position[1] == pytest.approx(-2.0)
    links = pit.offmesh_links
    # (it lands at the link's end and walks on in the same step)
    assert links is not None and np.linalg.norm(np.subtract(landed.position, links.end[link])) <= 1.5 * DT + 1e-9
    # In the air: on the link, further each step, up to HOP above the rim, then down onto the floor.
    air = [(p, share) for p, (index, share) in track if index >= 0]
    assert air and all(index == link for _, (index, _) in track if index >= 0)
    shares = [share for _, share in air]
    assert shares == sorted(shares) and 0 <= shares[0] < shares[-1] <= 1
    heights = [p[1] for p, _ in air]
    assert 0.8 * HOP < max(heights) <= HOP + 1e-9 and min(heights) > -2.0
    assert crowd.state(agent) == "arrived" and np.hypot(*(crowd.position(agent) - FLOOR)[[0, 2]]) <= 0.4 + 1e-9


def test_an_agent_in_the_pit_finds_no_way_up(pit) -> None:
    crowd = Crowd(pit)
    agent = crowd.add_agent(FLOOR, radius=0.4, speed=1.5)
    assert not crowd.set_goal(agent, RIM) and crowd.state(agent) == "blocked"
    assert NavQuery(pit).find_path(FLOOR, RIM) is None


def test_an_agent_walking_along_the_rim_stays_on_the_navmesh(pit) -> None:
    crowd = Crowd(pit)
    agent = crowd.add_agent((5.0, 0.0, 2.0), radius=0.4, speed=1.5)
    assert crowd.set_goal(agent, (5.0, 0.0, 14.0))  # along the pit's west rim, links beside it all the way
    query = NavQuery(pit)
    events, track = run(crowd, agent, 400)
    assert [e.kind for e in events] == ["arrived"]
    assert all(index == -1 and query.locate(p) >= 0 and p[1] == pytest.approx(0.0) for p, (index, _) in track)


def test_a_new_goal_in_the_air_is_planned_for_on_landing(pit) -> None:
    crowd = Crowd(pit)
    agent = crowd.add_agent(RIM, radius=0.4, speed=1.5)
    crowd.set_goal(agent, FLOOR)
    while crowd.link(agent)[0] < 0:
        crowd.step(DT)
    assert crowd.set_goal(agent, (10.0, -2.0, 7.0))  # taken: planned when it lands
    assert crowd.link(agent)[0] >= 0  # still in the air
    events, _ = run(crowd, agent, 300)
    assert [e.kind for e in events][:2] == ["landed", "replanned"] and events[-1].kind == "arrived"
    assert np.hypot(*(crowd.position(agent) - (10.0, -2.0, 7.0))[[0, 2]]) <= 0.4 + 1e-9


def test_moving_or_removing_an_agent_in_the_air_ends_its_crossing(pit) -> None:
    crowd = Crowd(pit)
    first, second = (crowd.add_agent(RIM, radius=0.4, speed=1.5) for _ in range(2))
    crowd.move_agent(second, (2.0, 0.0, 12.0))
    for agent in (first, second):
        crowd.set_goal(agent, FLOOR)
    while crowd.link(first)[0] < 0 or crowd.link(second)[0] < 0:
        crowd.step(DT)
    crowd.remove_agent(first)
    crowd.move_agent(second, (3.0, 0.0, 3.0))
    assert crowd.link(second) == (-1, 0.0) and NavQuery(pit).locate(crowd.position(second)) >= 0
    events, _ = run(crowd, second, 400)
    assert [e.kind for e in events] == ["replanned", "offmesh", "landed", "arrived"]


def test_a_ladder_is_climbed_up_and_down(pit) -> None:
    ladder = ((5.3, 0.0, 10.0), (6.7, -2.0, 10.0))
    mesh = bake(pit_scene().with_link(*ladder, area="ladder"), REGION, SETTINGS)
    crowd = Crowd(mesh)
    agent = crowd.add_agent(FLOOR, radius=0.4, speed=1.5)
    assert crowd.set_goal(agent, (2.0, 0.0, 13.0))  # up the ladder now
    events, track = run(crowd, agent, 400)
    assert [e.kind for e in events] == ["offmesh", "landed", "arrived"]
    links = mesh.offmesh_links
    assert links is not None
    climbed = [index for _, (index, _) in track if index >= 0]
    assert set(climbed) == {links.count - 1}  # the ladder, the scene's link, last
    assert len(climbed) * DT >= 2.0 / CLIMB_SPEED - DT  # 2 m up at the climbing speed
    assert crowd.set_goal(agent, FLOOR)  # and down: the ladder, or a jump off the rim
    events, _ = run(crowd, agent, 400)
    assert [e.kind for e in events] == ["offmesh", "landed", "arrived"]


def test_a_crossings_time_and_arc() -> None:
    top, bottom = np.array([0.0, 0.0, 0.0]), np.array([1.0, -2.0, 0.0])
    fall = np.sqrt(2 * HOP / 9.81) + np.sqrt(2 * (HOP + 2.0) / 9.81)
    assert crossing_time(top, bottom, 1.5) == pytest.approx(fall)
    assert crossing_time(top, bottom * [20, 1, 1], 1.5) == pytest.approx(20 / 3)  # far across: twice its speed
    assert crossing_time(bottom, top, 1.5) == pytest.approx(2.0 / CLIMB_SPEED)
    assert crossing_time(top, top + [3, 0, 0], 1.5) == pytest.approx(2.0)
    assert arc_point(top, bottom, 0.0).tolist() == top.tolist() and arc_point(top, bottom, 1.0).tolist() == pytest.approx(
        bottom.tolist())
    heights = [arc_point(top, bottom, u)[1] for u in np.linspace(0, 1, 10001)]
    assert max(heights) == pytest.approx(HOP, abs=1e-6) and heights[-1] == pytest.approx(-2.0)
    assert arc_point(bottom, top, 0.5).tolist() == pytest.approx([0.5, -1.0, 0.0])  # a climb: straight


def test_steps_of_any_length_in_the_air_stay_finite(pit) -> None:
    crowd = Crowd(pit)
    agent = crowd.add_agent(RIM, radius=0.4, speed=1.5)
    crowd.set_goal(agent, FLOOR)
    while crowd.link(agent)[0] < 0:
        crowd.step(DT)
    kinds = []
    for dt in (5e-324, 1e-300, 1e-9, 1.0, 5e-324):
        kinds += [e.kind for e in crowd.step(dt)]
        assert np.all(np.isfinite(crowd.positions)) and np.all(np.isfinite(crowd.velocities))
    assert kinds == ["landed"]  # the whole crossing within one long step


def test_ground_dug_away_under_a_jump_leaves_the_agent_blocked() -> None:
    mesh = bake(pit_scene(), REGION, SETTINGS)
    crowd = Crowd(mesh)
    agent = crowd.add_agent(RIM, radius=0.4, speed=1.5)
    crowd.set_goal(agent, FLOOR)
    while crowd.link(agent)[0] < 0:
        crowd.step(DT)
    a, b, c, d = PIT
    mesh.rebake(((a, -4.0, b), (c, 0.0, d)), pit_scene(depth=10.0))  # the floor beyond the region: no ground
    events, _ = run(crowd, agent, 120)
    assert [e.kind for e in events] == ["blocked"] and crowd.state(agent) == "blocked"
    assert crowd.link(agent) == (-1, 0.0)


def test_an_agent_saved_in_the_air_is_restored_landed(pit) -> None:
    crowd = Crowd(pit)
    agent = crowd.add_agent(RIM, radius=0.4, speed=1.5)
    crowd.set_goal(agent, FLOOR)
    while crowd.link(agent)[0] < 0 or crowd.link(agent)[1] < 0.3:
        crowd.step(DT)
    state = crowd.agent_state(agent)
    links = pit.offmesh_links
    assert links is not None and np.allclose(state["position"], links.end[crowd.link(agent)[0]])
    other = Crowd(pit)
    restored = other.add_agent(RIM, radius=0.4, speed=1.5)
    other.restore_agent(restored, state)  # (a path to walk on: refused before, "moving" with no corners)
    events, _ = run(other, restored, 200)
    assert [e.kind for e in events] == ["arrived"] and other.position(restored)[1] == pytest.approx(-2.0)


def test_a_crowd_on_a_turned_navmesh_jumps_down_in_the_world() -> None:
    s, c = np.sin(np.radians(10)), np.cos(np.radians(10))
    turned = SearchRegion(REGION.min, REGION.max, rotation=(0.0, s, 0.0, c))  # 20 degrees about y
    frame = Frame.about(turned.rotation, np.array(turned.centre))
    scene = Scene([type(obj)(obj.name, frame.to_world(obj.positions), obj.indices, obj.role) for obj in pit_scene()])
    mesh = bake(scene, turned, SETTINGS)
    crowd = Crowd(mesh)
    rim, floor = frame.to_world(np.array([RIM, FLOOR]))
    agent = crowd.add_agent(rim, radius=0.4, speed=1.5)
    assert crowd.set_goal(agent, floor)
    events, _ = run(crowd, agent, 300)
    assert [e.kind for e in events] == ["offmesh", "landed", "arrived"]
    assert np.hypot(*(crowd.position(agent) - floor)[[0, 2]]) <= 0.4 + 1e-9
    assert crowd.agent_state(agent)["position"][1] == pytest.approx(-2.0)  # world points out
