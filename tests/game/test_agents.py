"""NPCs and the chainsaw enemy inside a World: the navmesh re-baked from the frame's remeshing, NPCs re-planning
around a hole the player digs, patrols, the enemy's carves queued as edits and slowing more in rock; and the
whole demo world deterministic with every action in play."""

from __future__ import annotations

import numpy as np
import pytest

from voxelworld.errors import ParameterError
from voxelworld.game.agents import ENEMY_RADIUS, REBAKE_INTERVAL
from voxelworld.game.enemy import ChainsawSettings
from voxelworld.game.events import EnemyChanged, NPCChanged, VoxelsEdited
from voxelworld.game.npcs import NPCSettings
from voxelworld.game.world import Inputs, VoxelEdit, World, WorldSettings
from voxelworld.terrain import Box, Cylinder, VoxelVolume

FLOOR = 4.0


def field_world() -> World:
    """Flat soil at y = 4 m on 24 m x 24 m; the player in a corner, out of the way."""
    volume = VoxelVolume.from_sdf(lambda x, y, z: y - FLOOR, (48, 16, 48), "soil", voxel_size=0.5, chunk_size=16)
    return World(volume, spawn=(2.0, FLOOR, 22.0))


def test_npc_replans_around_a_hole_the_world_digs_across_its_path_and_never_walks_into_it():
    world = field_world()
    npc = world.agents.add_npc("walker", (3.0, FLOOR, 12.0), goal=(21.0, FLOOR, 12.0), settings=NPCSettings(speed=2.0))
    assert npc.state == "walking" and len(npc.path) == 1  # straight across open ground
    hole = (13.0, 12.0, 2.5)
    positions, log = [], []
    for n in range(900):
        if n == 60:
            world.queue_edit(VoxelEdit("remove", Cylinder((hole[0], 0.5, hole[1]), (hole[0], 8.0, hole[1]), hole[2]),
                                       tool=None, source="dig"))
        log += world.step(Inputs())
        positions.append(npc.position.copy())
        if npc.state == "arrived":
            break
    npc_events = [e for e in log if isinstance(e, NPCChanged)]
    # Within the navmesh delay of the dig (applied in frame 60): 10 m ahead, it is not reached sooner.
    assert npc_events[0].kind == "replanned" and 60 <= npc_events[0].frame <= 60 + 16
    assert npc_events[-1].kind == "arrived" and npc.replans >= 1
    positions = np.array(positions)
    assert np.hypot(positions[:, 0] - hole[0], positions[:, 2] - hole[1]).min() > hole[2]
    assert world.agents.navigation.revision >= 1
    # The navmesh the world keeps equals a fresh bake of the dug terrain.
    fresh = world.agents.navigation.full_bake()
    assert np.array_equal(fresh.vertices, world.agents.navigation.mesh.vertices)


@pytest.mark.parametrize("hole_x, at_once", [(13.0, False), (5.2, True), (6.1, True), (6.4, False)])
def test_a_change_an_npc_reaches_before_the_delay_is_re_baked_at_once(hole_x, at_once):
    """A change on a walking NPC's path within the distance it walks before the navmesh delay (2 m/s for 0.25 s
    and three frames, plus the agent's radius and a cell) is re-baked in the frame it was applied; one farther along
    waits for the delay, and the NPC never walks into it either way. Holes at 6.1 and 6.4 m lie either side of that
    reach's end (0.6 m; the changes' area, rounded to the 0.5 m voxels, begins 0.3 and 0.8 m ahead of the NPC): a
    reach under half as long, or a third longer, fails one of them."""
    world = field_world()
    npc = world.agents.add_npc("walker", (3.0, FLOOR, 12.0), goal=(21.0, FLOOR, 12.0), settings=NPCSettings(speed=2.0))
    world.queue_edit(VoxelEdit("remove", Cylinder((hole_x, 0.5, 12.0), (hole_x, 8.0, 12.0), 1.2), source="dig"))
    revisions, positions = [], []
    for _ in range(200):
        world.step(Inputs())
        revisions.append(world.agents.navigation.revision)
        positions.append(npc.position.copy())
    first = revisions.index(1)
    assert first == 0 if at_once else 15 <= first <= 16
    positions = np.array(positions)
    assert np.hypot(positions[:, 0] - hole_x, positions[:, 2] - 12.0).min() > 1.2


def test_a_change_on_the_path_whose_chunk_waited_to_be_remeshed_is_re_baked_once_it_is():
    """The hole on the path is dug while its chunk waits to be remeshed (dug off the path the frame before:
    ``remesh_interval`` 3) and the chunk is dug off the path again in the frame it is remeshed: the waiting
    change's area is the navmesh's to re-bake at once then, not after the delay."""
    world = field_world()
    assert world.settings.remesh_interval == 3
    npc = world.agents.add_npc("walker", (3.0, FLOOR, 12.0), goal=(21.0, FLOOR, 12.0), settings=NPCSettings(speed=2.0))
    # Frame -> the hole's (x, z) and radius, all in chunk (0, 0, 1); those off the path lie behind the NPC, beside it.
    digs = {0: ((1.0, 15.5), 0.4), 1: ((6.1, 12.0), 1.2), 3: ((1.0, 15.0), 0.4)}
    revisions, rebuilt = [], []
    for frame in range(24):
        if frame in digs:
            (x, z), radius = digs[frame]
            world.queue_edit(VoxelEdit("remove", Cylinder((x, 0.5, z), (x, 8.0, z), radius), source="dig"))
        world.step(Inputs())
        revisions.append(world.agents.navigation.revision)
        rebuilt.append(bool(world.rebuilt_chunks))
    assert rebuilt[:4] == [True, False, False, True]  # the hole on the path waited two frames
    assert revisions.index(1) == 3
    assert np.hypot(npc.position[0] - 6.1, npc.position[2] - 12.0) > 1.2


def test_a_patrolling_npc_turns_back_at_its_goal():
    world = field_world()
    npc = world.agents.add_npc("guard", (4.0, FLOOR, 4.0), goal=(8.0, FLOOR, 4.0), patrol=True,
                               settings=NPCSettings(speed=4.0))
    log = []
    for _ in range(150):
        log += world.step(Inputs())
    arrivals = [e for e in log if isinstance(e, NPCChanged) and e.kind == "arrived"]
    assert len(arrivals) >= 2
    assert arrivals[0].position[0] == pytest.approx(8.0, abs=0.31) and arrivals[1].position[0] == pytest.approx(
        4.0, abs=0.31)
    assert npc.state == "walking"
    assert [o.kind for o in world.snapshot().objects if o.name == "guard"] == ["npc"]


def enemy_world(material: str) -> World:
    """A block of ``material`` in front of a chainsaw enemy on a floor of iron (which it never cuts). The player
    stands by, 2.7 m from the enemy: the enemy's reaction to the player is off, so it cuts its block."""
    volume = VoxelVolume((48, 24, 48), voxel_size=0.1, chunk_size=16)
    volume.add(Box((0.0, 0.0, 0.0), (4.8, 0.05, 4.8)), "iron")
    volume.add(Box((3.2, 0.6, 2.0), (4.2, 1.2, 2.8)), material)
    return World(volume, spawn=(0.5, 0.05, 0.5), settings=WorldSettings(enemy_reacts=False))


def test_the_enemy_slows_more_in_rock_than_in_soil_and_its_carves_are_world_edits():
    rates = {}
    for material in ("soil", "rock"):
        world = enemy_world(material)
        enemy = world.agents.add_enemy("saw", (2.4, 0.0, 2.4), (1.0, 0.0, 0.0), ChainsawSettings())
        solid = world.volume.solid_volume_by_material()[material]
        log = []
        for _ in range(90):
            log += world.step(Inputs())
        carved = [e for e in log if isinstance(e, EnemyChanged) and e.kind == "carved"]
        edits = [e for e in log if isinstance(e, VoxelsEdited) and e.source == "saw"]
        assert carved and len(edits) == len(carved)
        assert [e.frame for e in carved] == [e.frame for e in edits]  # reported when applied
        assert sum(e.amount for e in carved) == pytest.approx(enemy.carved_volume)
        assert world.volume.solid_volume_by_material()[material] < solid
        assert [e.material for e in log if isinstance(e, EnemyChanged) and e.kind == "contact_started"][0] == material
        rates[material] = enemy.slowest_wrist_rate
    assert rates["rock"] < rates["soil"] < 1.0


def test_an_enemy_far_from_the_player_has_its_carves_applied_three_in_a_frame(monkeypatch):
    """Beyond FAR_ACTOR_DISTANCE from the player (lowered here below the player's 2.7 m) an enemy's carves are
    applied FAR_CARVES_TOGETHER in a frame, each its own edit and its own carved event; near, one a frame."""
    from voxelworld.game import agents
    from voxelworld.game.enemy import FAR_CARVES_TOGETHER

    def carve_frames(far_distance):
        monkeypatch.setattr(agents, "FAR_ACTOR_DISTANCE", far_distance)
        world = enemy_world("soil")
        enemy = world.agents.add_enemy("saw", (2.4, 0.0, 2.4), (1.0, 0.0, 0.0), ChainsawSettings())
        log = []
        for _ in range(120):
            log += world.step(Inputs())
        edits = [e.frame for e in log if isinstance(e, VoxelsEdited) and e.source == "saw"]
        carved = [e for e in log if isinstance(e, EnemyChanged) and e.kind == "carved"]
        assert [e.frame for e in carved] == edits and sum(e.amount for e in carved) == pytest.approx(
            enemy.carved_volume)
        return np.unique(edits, return_counts=True)[1]

    assert set(carve_frames(agents.FAR_ACTOR_DISTANCE).tolist()) == {1}
    per_frame = carve_frames(1.0)
    assert len(per_frame) >= 3 and set(per_frame.tolist()) == {FAR_CARVES_TOGETHER}


def test_agent_names_are_unique_and_bad_agents_are_refused():
    world = field_world()
    world.agents.add_npc("a", (3.0, FLOOR, 3.0))
    with pytest.raises(ParameterError, match="name"):
        world.agents.add_npc("a", (5.0, FLOOR, 5.0))
    with pytest.raises(ParameterError, match="name"):
        world.agents.add_enemy("a", (5.0, FLOOR, 5.0))
    with pytest.raises(ParameterError, match="patrol"):
        world.agents.add_npc("b", (5.0, FLOOR, 5.0), goal=(8.0, FLOOR, 5.0), patrol="yes")
    with pytest.raises(ParameterError, match="position"):
        world.agents.add_npc("c", (5.0, FLOOR))
    assert [n.name for n in world.agents.npcs] == ["a"]
    with pytest.raises(ParameterError, match="name"):
        world.agents.npc("zed")


def test_the_demo_enemy_carves_the_rock_wall_with_the_default_chainsaw():
    """The demo level's enemy cuts with the default ChainsawSettings (no wider demo cut): the game's collision
    mesh stays near enough to the voxel surface that a blade resting on it reaches the wall's voxels."""
    world = World.demo(npcs=0)
    assert world.settings.chainsaw == ChainsawSettings()
    enemy = world.agents.enemies[0]
    assert enemy.settings.cut_radius == ChainsawSettings().cut_radius
    before = world.volume.density.copy()
    log = [event for _ in range(120) for event in world.step(Inputs())]
    carved = [e for e in log if isinstance(e, EnemyChanged) and e.kind == "carved" and e.material == "rock"]
    assert sum(e.amount for e in carved) > 0.0 and enemy.carved_voxels > 0
    # What it lost is in front of the enemy, where the wall stands.
    lost = np.argwhere(world.volume.density < before) * world.volume.voxel_size + world.volume.origin
    assert len(lost) > 0
    assert np.all(np.linalg.norm(lost[:, [0, 2]] - enemy.position[[0, 2]], axis=1) < enemy.settings.reach + 0.5)
    assert np.all(lost[:, 0] > enemy.position[0])  # ahead of it, towards the wall (it faces +x)


def scripted(frame: int) -> Inputs:
    """Walk to the wall, punch, pull out, suck the ground, stance, throw: every action in 240 frames."""
    if frame < 60:
        return Inputs(move=(0.0, 1.0), look=(270.0, 0.0), sprint=True)
    pitch = -50.0  # the ground within punching reach
    buttons = {70: "punch", 110: "pull_out", 150: "throw", 210: "stance", 220: "throw"}  # each strike plays 0.6 s
    if 160 <= frame < 205:
        return Inputs(look=(270.0, pitch), suck=True)
    name = buttons.get(frame)
    yaw = 320.0 if 105 <= frame < 155 else 270.0 + frame % 7  # pull out beside the punched hole
    return Inputs(look=(yaw, pitch), **({name: True} if name else {}))


def test_the_demo_world_is_deterministic_with_every_action_npcs_and_the_enemy():
    runs = []
    for _ in range(2):
        world = World.demo(seed=3)
        for frame in range(240):
            world.step(scripted(frame))
        runs.append((world.event_log_hash(), world.voxel_hash(), world.snapshot(),
                     [n.position.tolist() for n in world.agents.npcs], world.actions.suck.bullets))
        kinds = {getattr(e, "kind", None) for e in world.events}
        assert {"punch", "pull_out", "suck", "bullet", "stance", "throw", "carved"} <= kinds
    assert runs[0] == runs[1]


def test_a_change_away_from_every_path_is_re_baked_after_the_navmesh_delay():
    world = field_world()
    world.agents.add_npc("walker", (3.0, FLOOR, 3.0), goal=(8.0, FLOOR, 3.0), settings=NPCSettings(speed=0.5))
    navigation = world.agents.navigation
    world.queue_edit(VoxelEdit("remove", Cylinder((22.5, 0.5, 22.5), (22.5, 8.0, 22.5), 0.75), source="dig"))
    revisions = []
    for _ in range(30):
        world.step(Inputs())
        revisions.append(navigation.revision)
    first = revisions.index(1)
    assert 15 <= first <= 16  # 0.25 s after the dig was applied in frame 0, not at once
    assert world.agents.npcs[0].replans == 0  # its path never crossed the hole
    assert np.array_equal(navigation.full_bake().vertices, navigation.mesh.vertices)


def test_digs_on_both_sides_of_a_path_wait_for_the_navmesh_delay_and_one_on_it_does_not():
    """The waiting changes are areas (each group of touching chunk columns), not their joint box: two digs 10 m to
    either side of a walking NPC's path leave it be until the delay (their joint box covered the path, and every
    walking NPC between far-apart digs re-baked the navmesh at once); a third on the path re-bakes at once."""
    firsts = []
    for on_path in (False, True):
        world = field_world()
        world.agents.add_npc("walker", (11.0, FLOOR, 12.0), goal=(21.0, FLOOR, 12.0), settings=NPCSettings(speed=2.0))
        navigation = world.agents.navigation
        for z in (2.0, 22.0) + ((12.0,) if on_path else ()):
            x = 17.0 if z == 12.0 else 12.0  # (the third ahead of the NPC, on its way)
            world.queue_edit(VoxelEdit("remove", Cylinder((x, 0.5, z), (x, 8.0, z), 0.75), source="dig"))
        revisions = []
        for _ in range(20):
            world.step(Inputs())
            revisions.append(navigation.revision)
        firsts.append(revisions.index(1))
    assert 15 <= firsts[0] <= 16  # 0.25 s after the digs were applied in frame 0
    assert firsts[1] <= 1  # at once


def test_digs_on_a_path_every_frame_re_bake_at_once_then_at_most_once_every_interval():
    """A change on a walking NPC's way re-bakes at once; more on it in the frames after wait until
    REBAKE_INTERVAL has passed since that re-bake (several diggers re-baked nearly every frame), and a saved world
    keeps when the next may come."""
    world = field_world()
    npc = world.agents.add_npc("walker", (3.0, FLOOR, 12.0), goal=(21.0, FLOOR, 12.0), settings=NPCSettings(speed=2.0))
    navigation = world.agents.navigation
    revisions = []
    for _ in range(24):
        x = npc.position[0] + 1.0  # a fresh dig just ahead of the NPC, on its way, every frame
        world.queue_edit(VoxelEdit("remove", Cylinder((x, 3.0, 13.5), (x, 8.0, 13.5), 0.4), source="dig"))
        world.step(Inputs())
        revisions.append(navigation.revision)
    changed = [n for n in range(1, len(revisions)) if revisions[n] != revisions[n - 1]]
    assert revisions[0] == 1  # the first at once
    gaps, interval = np.diff([0] + changed), round(REBAKE_INTERVAL / world.dt)
    assert len(changed) >= 3 and interval <= gaps.min() and gaps.max() <= interval + 2  # not waiting for the delay
    assert world.time - REBAKE_INTERVAL < world.agents.state_dict()["rebake_after"] <= world.time + REBAKE_INTERVAL


def test_the_waiting_changes_areas_follow_the_chunks_and_the_box_they_are_made_of():
    """The areas (kept while the changes are the same) are those of the chunks pending now, within the box now."""
    world = field_world()
    agents = world.agents
    agents._pending, agents._pending_box = {(0, 0, 0)}, (np.array([1.0, 0.0, 1.0]), np.array([22.0, 8.0, 22.0]))
    assert [(lo.tolist(), hi.tolist()) for lo, hi in agents._pending_areas(world)] == [([1.0, 1.0], [8.5, 8.5])]
    agents._pending.add((2, 0, 2))  # a chunk apart (the same box): an area of its own
    areas = [(lo.tolist(), hi.tolist()) for lo, hi in agents._pending_areas(world)]
    assert areas == [([1.0, 1.0], [8.5, 8.5]), ([15.5, 15.5], [22.0, 22.0])]
    agents._pending_box = (np.array([1.0, 0.0, 1.0]), np.array([20.0, 8.0, 20.0]))  # the box alone changed
    assert [hi.tolist() for _, hi in agents._pending_areas(world)] == [[8.5, 8.5], [20.0, 20.0]]


def test_a_blocked_npc_walks_on_once_the_way_is_open_again():
    world = field_world()
    npc = world.agents.add_npc("walker", (3.0, FLOOR, 12.0), goal=(21.0, FLOOR, 12.0), settings=NPCSettings(speed=2.0))
    trench = Box((11.0, 0.5, -1.0), (13.0, 8.0, 25.0))
    world.queue_edit(VoxelEdit("remove", trench, source="dig"))
    log = []
    for _ in range(30):
        log += world.step(Inputs())
    assert npc.state == "blocked" and npc.position[0] < 11.0
    world.queue_edit(VoxelEdit("add", Box((10.5, 0.0, -1.0), (13.5, FLOOR, 25.0)), "rock", source="fill"))
    for _ in range(600):
        log += world.step(Inputs())
        if npc.state == "arrived":
            break
    kinds = [e.kind for e in log if isinstance(e, NPCChanged)]
    assert kinds.index("blocked") < kinds.index("replanned", kinds.index("blocked")) < kinds.index("arrived")
    assert npc.state == "arrived"


def test_a_blocked_npc_taken_back_without_a_goal_stands_and_the_frame_goes_on():
    """A state taken back may hold an NPC blocked with no goal (the crowd takes it): the frame's re-plan of blocked
    NPCs has nothing to plan to and leaves it standing, rather than refusing the missing goal in mid-frame."""
    world = field_world()
    npc = world.agents.add_npc("stander", (3.0, FLOOR, 12.0))
    state = npc.state_dict()
    npc.load_state_dict(state | {"walk": state["walk"] | {"state": "blocked", "goal": None, "path": np.zeros((0, 3))}})
    assert npc.state == "blocked" and npc.goal is None
    world.step(Inputs())
    assert world.frame == 1 and npc.state == "blocked"


def test_npcs_walk_round_an_enemy_in_their_way():
    """An enemy stands in the crowd as an obstacle: an NPC whose straight way runs through it keeps out of its
    disc (ENEMY_RADIUS plus its own radius, within 5% of that) and arrives."""
    world = field_world()
    world.agents.add_enemy("saw", (12.0, FLOOR, 12.0), (0.0, 0.0, 1.0))
    npc = world.agents.add_npc("walker", (4.0, FLOOR, 12.0), goal=(20.0, FLOOR, 12.0), settings=NPCSettings(speed=2.0))
    enemy = world.agents.enemies[0]
    closest = np.inf
    for _ in range(600):
        world.step(Inputs())
        closest = min(closest, float(np.hypot(*(npc.position - enemy.position)[[0, 2]])))
        if npc.state == "arrived":
            break
    assert npc.state == "arrived"
    assert closest >= 0.95 * (ENEMY_RADIUS + npc.settings.radius)


def walker_world() -> World:
    """An enemy on open ground that steps 6 m along +z after its first swing (it meets no wall), and an NPC
    standing a little off that line."""
    world = field_world()
    world.agents.add_npc("stander", (12.2, FLOOR, 11.0))
    world.agents.add_enemy("saw", (12.0, FLOOR, 8.0), (1.0, 0.0, 0.0), ChainsawSettings(stride=6.0, walk_speed=1.0))
    return world


def test_a_walking_enemy_walks_in_the_crowd_round_an_npc_in_its_way():
    """While it steps along its wall, the enemy is an agent of its walking speed in the NPCs' crowd and follows it:
    it steps aside round the NPC standing in its way (neither overlaps the other by more than 5%) and still ends
    at its goal; while it cuts it is an obstacle (speed 0)."""
    world = walker_world()
    npc, enemy = world.agents.npcs[0], world.agents.enemies[0]
    crowd = world.agents.navigation.crowd
    closest, widest, speeds = np.inf, 0.0, set()
    for _ in range(900):
        world.step(Inputs())
        agent = world.agents._enemy_agents["saw"]
        speeds.add(float(crowd._speed[crowd._slot[agent]]))
        if enemy.goal is not None:
            closest = min(closest, float(np.hypot(*(npc.position - enemy.position)[[0, 2]])))
            widest = max(widest, abs(float(enemy.position[0]) - 12.0))
        elif enemy.walked > 0.0:
            break
    assert speeds == {0.0, 1.0}  # an obstacle while it cut, a walker while it stepped
    assert enemy.goal is None and enemy.position[[0, 2]].tolist() == [12.0, 14.0]
    assert closest >= 0.95 * (ENEMY_RADIUS + npc.settings.radius)
    assert widest > 0.2  # it stepped round the NPC (straight at its goal it would keep x = 12)


def test_a_walking_enemy_saved_and_loaded_walks_on_alike(tmp_path):
    from voxelworld.io import load_world, save_world

    world = walker_world()
    enemy = world.agents.enemies[0]
    while enemy.goal is None or enemy.position[2] < 10.0:  # on its way, near the NPC
        world.step(Inputs())
    save_world(world, tmp_path / "walk.vxw")
    loaded = load_world(tmp_path / "walk.vxw")
    for _ in range(120):
        world.step(Inputs())
        loaded.step(Inputs())
    for a, b in ((world.agents.enemies[0], loaded.agents.enemies[0]), (world.agents.npcs[0], loaded.agents.npcs[0])):
        assert np.array_equal(a.position, b.position)
    assert np.array_equal(world.agents.enemies[0].walk_velocity, loaded.agents.enemies[0].walk_velocity)


def test_a_re_bake_falling_due_in_a_frame_that_digs_waits_one_or_two_frames_not_for_the_digging_to_stop():
    """A re-bake due in a frame that changed the terrain itself leaves it to the next frame that did not, at most
    two frames later: a frame does not pay for an edit's meshes and a re-bake together."""
    def run(digs) -> list[tuple[int, bool]]:
        world = field_world()
        world.agents.add_npc("walker", (3.0, FLOOR, 3.0), goal=(8.0, FLOOR, 3.0), settings=NPCSettings(speed=0.5))
        navigation, bakes = world.agents.navigation, []
        for frame in range(40):
            if frame == 0 or digs(frame):  # a new hole each time, far from the walker's path
                x = 22.5 - 0.75 * frame / 2
                world.queue_edit(VoxelEdit("remove", Cylinder((x, 0.5, 22.5), (x, 8.0, 22.5), 0.5), source="dig"))
            revision = navigation.revision
            world.step(Inputs())
            if navigation.revision != revision:
                bakes.append((frame, bool(world.rebuilt_chunks)))
        return bakes

    quiet = run(lambda frame: False)
    due = quiet[0][0]
    assert due in (15, 16) and not quiet[0][1]
    every = run(lambda frame: frame >= 10)  # digging every frame: forced, a frame or two late
    assert due < every[0][0] <= due + 2 and every[0][1]
    assert len(every) >= 2  # and it goes on re-baking while the digging goes on
    odd = run(lambda frame: frame >= 10 and frame % 2 == due % 2)  # digging in the due frame, not the next
    assert odd[0] == (due + 1, False)


def test_an_enemy_cutting_in_place_is_given_back_its_agent_as_placing_it_again_would(monkeypatch):
    """While an enemy cuts where it stood the frame before, on the same navmesh, its agent is given back the state
    it was made with instead of being made again (_place_enemies): the crowd walks bit for bit as in a world that
    makes it again every frame, on ground sloping under the NPCs' feet, and an NPC added meanwhile comes before
    it in the crowd's order, as ever."""
    from voxelworld.game.navigation import WorldNavigation

    def sloped() -> World:
        volume = VoxelVolume.from_sdf(lambda x, y, z: y - FLOOR - 0.07 * x - 0.03 * z, (48, 24, 48), "soil",
                                      voxel_size=0.5, chunk_size=16)
        world = World(volume, spawn=(2.0, FLOOR + 0.2, 22.0))
        world.agents.add_enemy("saw", (12.0, FLOOR + 0.07 * 12.0 + 0.03 * 12.0, 12.0), (0.0, 0.0, 1.0))
        for n, z in enumerate((11.4, 12.6)):
            world.agents.add_npc(f"walker{n}", (4.0, FLOOR + 0.28 + 0.03 * z, z),
                                 goal=(20.0, FLOOR + 1.4 + 0.03 * z, z), settings=NPCSettings(speed=2.0))
        return world

    made_again, given_back = sloped(), sloped()
    made_again.add_handler(lambda world, inputs: setattr(world.agents, "_enemies_made", None), "deformation")
    placed: list[WorldNavigation] = []
    add_agent = WorldNavigation.add_agent
    monkeypatch.setattr(WorldNavigation, "add_agent",
                        lambda self, *args, **kwargs: placed.append(self) or add_agent(self, *args, **kwargs))
    given_back_frames, cutting_frames = 0, 0
    for frame in range(240):
        if frame == 100:  # one more NPC mid-cut: the enemy's agent goes after it, as ever
            for world in (made_again, given_back):
                world.agents.add_npc("late", (16.0, FLOOR + 1.5, 14.0), goal=(6.0, FLOOR + 1.0, 10.0))
        placed.clear()
        made_again.step(Inputs())
        assert len(placed) == 1  # (made again every frame)
        placed.clear()
        given_back.step(Inputs())
        given_back_frames += len(placed) == 0
        cutting_frames += given_back.agents.enemies[0].goal is None
        crowds = made_again.agents.navigation.crowd, given_back.agents.navigation.crowd
        assert np.array_equal(crowds[0].positions, crowds[1].positions)
        assert np.array_equal(crowds[0].velocities, crowds[1].velocities)
        assert crowds[0].states == crowds[1].states
    assert given_back_frames >= 0.9 * cutting_frames > 100  # (it cuts, steps on and cuts again)
