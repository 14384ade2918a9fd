"""The crowd far from the player steps every other frame, through both frames' time (Agents._step_crowd), as a far
enemy moves: FAR_ACTOR_DISTANCE is lowered here below the few metres between the player and the NPCs."""

from __future__ import annotations

import numpy as np
import pytest

from voxelworld.game import agents
from voxelworld.game.events import NPCChanged
from voxelworld.game.npcs import NPCSettings
from voxelworld.game.world import Inputs

from .test_agents import FLOOR, field_world, walker_world


def walking_world():
    """An NPC walking 9 m along +x, 10 m or more from the player (in a corner at (2, 22))."""
    world = field_world()
    world.agents.add_npc("walker", (12.0, FLOOR, 12.0), goal=(21.0, FLOOR, 12.0), settings=NPCSettings(speed=2.0))
    return world


def walk(world, frames):
    """Each frame's crowd clock and NPC places, and the NPCs' events."""
    clocks, places, log = [], [], []
    for _ in range(frames):
        log += world.step(Inputs())
        clocks.append(world.agents.navigation.crowd.time)
        places.append([npc.position.copy() for npc in world.agents.npcs])
    return np.array(clocks), np.array(places), [e for e in log if isinstance(e, NPCChanged)]


def test_npcs_far_from_the_player_walk_every_other_frame_through_both_frames_time(monkeypatch):
    near_clocks, near_places, near_events = walk(walking_world(), 300)
    monkeypatch.setattr(agents, "FAR_ACTOR_DISTANCE", 5.0)
    world = walking_world()
    clocks, places, events = walk(world, 300)
    dt = world.dt
    # Near, every frame steps dt; far, the first frame owes its time and the next steps through both.
    assert np.allclose(np.diff(near_clocks), dt)
    assert clocks[0] == 0.0 and np.allclose(clocks[1::2], near_clocks[1::2]) and np.array_equal(clocks[2::2],
                                                                                                clocks[1:-1:2])
    walked = np.hypot(*(places[1:, 0] - places[:-1, 0])[:, [0, 2]].T)
    assert (walked[1::2] == 0.0).all() and (walked[:100:2] > 0.0).all()  # (it walks for about 270 frames)
    # It walks as fast and arrives where it did near, within a frame of the time.
    assert [e.kind for e in events] == [e.kind for e in near_events] == ["arrived"]
    assert abs(events[0].frame - near_events[0].frame) <= 1
    assert np.hypot(*(places[-1, 0] - near_places[-1, 0])[[0, 2]]) < 0.05
    assert np.abs(places[100:102, 0] - near_places[100:102, 0]).max() < 2.1 * 2.0 * dt


def test_the_crowd_steps_every_frame_while_one_agent_is_near(monkeypatch):
    monkeypatch.setattr(agents, "FAR_ACTOR_DISTANCE", 5.0)
    world = walking_world()
    world.agents.add_npc("neighbour", (5.0, FLOOR, 20.0))  # 3.6 m from the player, standing
    clocks, places, _ = walk(world, 40)
    assert np.allclose(np.diff(clocks), world.dt) and (np.hypot(*np.diff(places[:, 0], axis=0)[:, [0, 2]].T) > 0).all()


def walk_enemy(world):
    """Whether the crowd stepped in each frame the enemy cut and in each it walked, and the frame it was back at
    work after its stride."""
    enemy, crowd = world.agents.enemies[0], world.agents.navigation.crowd
    stepped: dict[str, list[bool]] = {"cutting": [], "walking": []}
    for frame in range(900):
        before, walking = crowd.time, enemy.goal is not None
        world.step(Inputs())
        stepped["walking" if walking else "cutting"].append(crowd.time > before)
        if enemy.walked > 0.0 and enemy.goal is None:
            return stepped, frame
    raise AssertionError("the enemy did not end its stride")


def test_an_enemy_walking_far_from_the_player_walks_every_frame_with_its_crowd(monkeypatch):
    """The walking enemy follows its agent: it and its crowd step every frame, however far from the player, and it
    strides as fast as near (before, it moved every other frame towards where its agent went in one, at half its
    speed); while it cuts (an obstacle in the crowd), both every other frame."""
    _, near_end = walk_enemy(walker_world())
    monkeypatch.setattr(agents, "FAR_ACTOR_DISTANCE", 5.0)
    world = walker_world()
    stepped, end = walk_enemy(world)
    assert len(stepped["walking"]) > 100 and all(stepped["walking"])
    assert 0.4 < np.mean(stepped["cutting"]) < 0.6
    assert world.agents.enemies[0].position[[0, 2]].tolist() == [12.0, 14.0]
    assert abs(end - near_end) < 20  # (its cutting before the stride, every other frame, ends a little apart)


def test_a_world_saved_while_its_crowd_owes_a_frame_walks_on_alike(monkeypatch, tmp_path):
    from voxelworld.io import load_world, save_world

    monkeypatch.setattr(agents, "FAR_ACTOR_DISTANCE", 5.0)
    world = walking_world()
    for _ in range(41):
        world.step(Inputs())
    assert world.agents._crowd_owed == world.dt  # (the frame left its time owed)
    save_world(world, tmp_path / "far.vxw")
    loaded = load_world(tmp_path / "far.vxw")
    for _ in range(60):
        world.step(Inputs())
        loaded.step(Inputs())
        assert np.array_equal(world.agents.npcs[0].position, loaded.agents.npcs[0].position)


def test_a_state_saved_before_the_crowd_owed_time_loads_owing_none(monkeypatch):
    monkeypatch.setattr(agents, "FAR_ACTOR_DISTANCE", 5.0)
    world = walking_world()
    world.step(Inputs())
    state = world.agents.state_dict()
    assert state["crowd_owed"] == world.dt
    del state["crowd_owed"]
    fresh = walking_world()
    fresh.agents._crowd_owed = 0.5
    fresh.agents.load_state_dict(state)
    assert fresh.agents._crowd_owed == 0.5  # (kept: the constructor's 0.0 when loading a world)
    state["crowd_owed"] = -1.0
    with pytest.raises(ValueError, match="crowd_owed"):
        fresh.agents.load_state_dict(state)
