"""Crowds on turned navmeshes (issue 33 §4): a navmesh baked in a turned region (a wall, a ceiling, a tilted deck)
is walked in its own frame, and everything the crowd takes and gives is in world coordinates. The same scene is
baked flat and, turned by the test itself, in a turned region: the turned crowd's agents go where the flat crowd's
go, turned (the two runs' arithmetic differs only in rounding: the turned navmesh's arrays are the flat ones moved
by the turn of the region's centre)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from voxelworld.errors import ParameterError
from voxelworld.navigation import Crowd, NavQuery
from voxelworld.navigation.bake import bake
from voxelworld.navigation.frames import rotation_matrix

from .test_rotated_regions import (
    FLOOR_REGION,
    PIVOT,
    ROTATION,
    SETTINGS,
    axis_angle,
    floor_and_crate,
    turn,
    turned_region,
    turned_scene,
)

RADIUS = SETTINGS.agent_radius
DT = 1 / 30
TOLERANCE = 1e-9  # m: how far the turned crowd may be from the flat one turned (rounding: 2e-14 m seen in 300 steps)
# (start, goal): a head-on pair that meets and passes between the floor's edge and the crate (4..6, 3..5), and one
# going round the crate and round an agent standing still (an obstacle) in its way.
WALKERS = [((1.0, 0.0, 1.5), (9.0, 0.0, 1.5)), ((9.0, 0.0, 1.6), (1.0, 0.0, 1.4)), ((1.0, 0.0, 4.0), (9.0, 0.0, 4.2))]
STANDING = (2.2, 0.0, 4.0)
TURNS = {  # rotation, pivot
    "any": (ROTATION, PIVOT),
    "wall": (axis_angle((0, 0, 1), 90), np.array([-3.0, 2.0, 1.0])),  # the floor stands up: rays along +x
    "ceiling": (axis_angle((1, 0, 0), 180), np.array([5.0, 6.0, 4.0])),  # upside down: rays going up
}


def meshes(rotation, pivot):
    flat = bake(floor_and_crate(), FLOOR_REGION, SETTINGS)
    turned = bake(turned_scene(floor_and_crate(), rotation, pivot), turned_region(FLOOR_REGION, rotation, pivot),
                  SETTINGS)
    assert flat.frame is None and turned.frame is not None
    return flat, turned


def populate(mesh, place=lambda p: np.asarray(p, dtype=float)) -> Crowd:
    """The walkers and the standing agent, their points placed by ``place`` (the test's turn, or none)."""
    crowd = Crowd(mesh)
    for start, goal in WALKERS:
        agent = crowd.add_agent(place(start), RADIUS, 1.5)
        assert crowd.set_goal(agent, place(goal))
    crowd.add_agent(place(STANDING), RADIUS, 0.0)
    return crowd


def steps(crowd: Crowd, count: int) -> list:
    return [event for _ in range(count) for event in crowd.step(DT)]


@pytest.mark.parametrize("name", TURNS)
def test_a_crowd_on_a_turned_navmesh_walks_as_the_flat_one_turned(name):
    rotation, pivot = TURNS[name]
    place = lambda p: turn(p, rotation, pivot)  # noqa: E731
    flat_mesh, turned_mesh = meshes(rotation, pivot)
    flat, turned = populate(flat_mesh), populate(turned_mesh, place)
    assert len(flat.path(2)) > 2  # round the crate
    for agent in flat.ids[:3]:
        np.testing.assert_allclose(turned.path(agent), place(flat.path(agent)), rtol=0, atol=1e-9)
        np.testing.assert_allclose(turned.goal(agent), place(flat.goal(agent)), rtol=0, atol=1e-9)
    query = NavQuery(turned_mesh)
    closest, events_flat, events_turned = np.inf, [], []
    for step in range(1, 301):  # 10 s
        events_flat += flat.step(DT)
        events_turned += turned.step(DT)
        closest = min(closest, float(np.linalg.norm(turned.position(0) - turned.position(1))))
        if step % 30:
            continue  # each second compared:
        np.testing.assert_allclose(turned.positions, place(flat.positions), rtol=0, atol=TOLERANCE)
        assert all(query.locate(p) >= 0 for p in turned.positions)  # on the turned navmesh, in the world
    assert [(e.agent, e.kind, e.time) for e in events_turned] == [(e.agent, e.kind, e.time) for e in events_flat]
    assert sorted(e.agent for e in events_turned if e.kind == "arrived") == [0, 1, 2]
    for a, b in zip(events_turned, events_flat):
        np.testing.assert_allclose(a.position, place(b.position), rtol=0, atol=TOLERANCE)
    # The head-on pair (straight on, 10 cm apart) met and kept apart, in the 2.4 m between the crate and the
    # floor's edge (their discs lie in the navmesh's plane: the world distance, as turns keep distances).
    assert 2 * RADIUS * 0.95 <= closest < 2.0
    assert turned.states == flat.states == ("arrived",) * 3 + ("idle",)
    for agent in turned.ids[:3]:
        assert np.linalg.norm(turned.position(agent) - place(WALKERS[agent][1])) <= RADIUS + 1e-9
    np.testing.assert_allclose(turned.positions[3], place(STANDING), atol=1e-9)  # nobody pushed the obstacle


@pytest.mark.parametrize("name", ["any", "wall"])
def test_velocities_are_the_flat_ones_turned_into_the_world(name):
    rotation, pivot = TURNS[name]
    flat_mesh, turned_mesh = meshes(rotation, pivot)
    flat, turned = populate(flat_mesh), populate(turned_mesh, lambda p: turn(p, rotation, pivot))
    steps(flat, 20), steps(turned, 20)
    moving = flat.velocities
    assert np.all(np.linalg.norm(moving[:3], axis=1) > 0.5) and np.all(moving[:, 1] == 0.0)
    expected = moving @ rotation_matrix(rotation).T  # directions: turned, not moved
    np.testing.assert_allclose(turned.velocities, expected, rtol=0, atol=TOLERANCE)
    # The agent's state keeps the two numbers on the navmesh's plane, as the flat crowd's.
    np.testing.assert_allclose(turned.agent_state(0)["velocity"], flat.agent_state(0)["velocity"], atol=TOLERANCE)


def test_agent_state_round_trips_in_world_coordinates():
    rotation, pivot = TURNS["any"]
    place = lambda p: turn(p, rotation, pivot)  # noqa: E731
    flat_mesh, turned_mesh = meshes(rotation, pivot)
    flat, turned = populate(flat_mesh), populate(turned_mesh, place)
    steps(flat, 45), steps(turned, 45)
    for agent in turned.ids:
        state, flat_state = turned.agent_state(agent), flat.agent_state(agent)
        np.testing.assert_array_equal(state["position"], turned.position(agent))
        np.testing.assert_allclose(state["position"], place(flat_state["position"]), atol=TOLERANCE)
        np.testing.assert_allclose(state["path"], place(flat_state["path"]).reshape(-1, 3), atol=TOLERANCE)
        if flat_state["goal"] is not None:
            np.testing.assert_allclose(state["goal"], place(flat_state["goal"]), atol=1e-9)
    # Restored into a fresh crowd on the turned navmesh (its agents elsewhere), it stands where the first stands
    # (within rounding: the crowd keeps the navmesh's own frame, the state the world's) and walks on alike.
    other = populate(turned_mesh, place)
    for agent in turned.ids:
        other.restore_agent(agent, turned.agent_state(agent))
    other.load_state_dict(turned.state_dict())
    for agent in turned.ids:
        state, restored = turned.agent_state(agent), other.agent_state(agent)
        assert restored.keys() == state.keys()
        assert (restored["goal"] is None) == (state["goal"] is None) == (agent == 3)
        if agent != 3:
            np.testing.assert_allclose(restored["goal"], state["goal"], rtol=0, atol=1e-12)
        for key in ("position", "velocity", "path"):
            np.testing.assert_allclose(restored[key], state[key], rtol=0, atol=1e-12)
        assert all(restored[key] == state[key] for key in ("polygon", "state", "planned_at", "replan_turn"))
    for _ in range(60):
        assert [(e.agent, e.kind) for e in other.step(DT)] == [(e.agent, e.kind) for e in turned.step(DT)]
    np.testing.assert_allclose(other.positions, turned.positions, rtol=0, atol=TOLERANCE)


def test_points_given_are_world_points():
    rotation, pivot = TURNS["any"]
    _, turned_mesh = meshes(rotation, pivot)
    crowd = Crowd(turned_mesh)
    start = turn((1.0, 0.0, 1.0), rotation, pivot)
    agent = crowd.add_agent(start, RADIUS, 1.0)
    np.testing.assert_allclose(crowd.position(agent), start, atol=1e-9)
    with pytest.raises(ParameterError) as caught:  # the flat point lies far from the turned navmesh
        crowd.add_agent((8.0, 0.0, 1.0), RADIUS, 1.0)
    assert caught.value.parameter == "position" and "(8.0, 0.0, 1.0)" in str(caught.value)
    there = turn((8.0, 0.0, 6.5), rotation, pivot)
    crowd.move_agent(agent, there + 0.2 * rotation_matrix(rotation)[:, 1])  # 20 cm above it: put on it
    np.testing.assert_allclose(crowd.position(agent), there, atol=1e-9)
    assert crowd.set_goal(agent, turn((1.0, 0.0, 6.5), rotation, pivot))
    np.testing.assert_allclose(crowd.path(agent)[-1], turn((1.0, 0.0, 6.5), rotation, pivot), atol=1e-9)
    events = steps(crowd, 240)
    assert [e.kind for e in events] == ["arrived"]
    np.testing.assert_allclose(events[0].position, crowd.position(agent), atol=0)
    assert np.linalg.norm(crowd.position(agent) - turn((1.0, 0.0, 6.5), rotation, pivot)) <= RADIUS + 1e-9


def test_a_crowd_follows_its_turned_navmesh_through_a_rebake():
    """The crate moved into the walker's way and the turned navmesh re-baked in place: the crowd plans again on
    it (in its frame) and its agent walks round the crate's new place, as the flat crowd does."""
    rotation, pivot = TURNS["any"]
    place = lambda p: turn(p, rotation, pivot)  # noqa: E731
    flat_mesh, turned_mesh = meshes(rotation, pivot)
    crowds = []
    for mesh, where in ((flat_mesh, lambda p: np.asarray(p, dtype=float)), (turned_mesh, place)):
        crowd = Crowd(mesh)
        agent = crowd.add_agent(where((1.0, 0.0, 1.5)), RADIUS, 1.5)
        assert crowd.set_goal(agent, where((9.0, 0.0, 1.5)))
        assert len(crowd.path(agent)) == 1  # straight: the crate is out of its way
        steps(crowd, 15)
        corners = where([[4.0, -1.0, 1.0], [8.5, 3.0, 5.0], [4, 3, 1], [8.5, -1, 1], [4, -1, 5], [8.5, 3, 5],
                         [4, 3, 5], [8.5, -1, 5]])
        scene = floor_and_crate(crate_at=(6.5, 0.5))
        assert mesh.rebake((corners.min(axis=0), corners.max(axis=0)),
                           scene if mesh is flat_mesh else turned_scene(scene, rotation, pivot))
        crowds.append((crowd, steps(crowd, 300)))
    (flat, flat_events), (turned, turned_events) = crowds
    assert [e.kind for e in turned_events] == [e.kind for e in flat_events] == ["replanned", "arrived"]
    np.testing.assert_allclose(turned.positions, place(flat.positions), atol=TOLERANCE)
    assert math.isclose(turned.time, flat.time)
