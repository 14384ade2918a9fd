"""Actors by region (issue 34): far actors sleep as their state and wake with it, bit for bit, as the player nears;
an NPC saved where the loaded world cannot bake its navmesh loads asleep; a world whose actors all stay within the
active radius plays as without regions; a generated world's population sleeps until the player comes."""

from __future__ import annotations

import dataclasses
import json
import sqlite3

import numpy as np
import pytest

from voxelworld.errors import ParameterError
from voxelworld.game.level import surface_height
from voxelworld.game.nav_streaming import LANDING_EVERY, TILE_LAG
from voxelworld.game.populate import populate
from voxelworld.game.regions import RETRY_FRAMES, RegionSettings
from voxelworld.game.settings import WorldSettings
from voxelworld.game.world import Inputs, World
from voxelworld.io import load_world, save_world
from voxelworld.io.world_file import _sha
from voxelworld.terrain import GeneratorSettings, generate_world

GROUND = GeneratorSettings(size=192.0, height=64.0, ground_level=24.0, hill_height=6.0, cliff_strength=0.0, seed=3)
STREAMING = WorldSettings(view_distance=48.0, navigation_distance=16.0)
SMALL_REGIONS = RegionSettings(size=32.0, active_radius=24.0, sleep_margin=8.0)


@pytest.fixture(scope="module")
def terrain():
    return generate_world(GROUND)


def ground(world: World, x: float, z: float) -> tuple[float, float, float]:
    return (x, surface_height(world.volume, x, z), z)


def same(a, b) -> bool:
    """Whether two states are the same, bit for bit (arrays of the same dtype and bytes, NaN equal to NaN)."""
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        return (isinstance(a, np.ndarray) and isinstance(b, np.ndarray) and a.dtype == b.dtype
                and a.shape == b.shape and a.tobytes() == b.tobytes())
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(same(a[k], b[k]) for k in a)
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        return type(a) is type(b) and len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))
    if isinstance(a, float) and isinstance(b, float) and a != a and b != b:
        return True
    if dataclasses.is_dataclass(a) and not isinstance(a, type):
        return type(a) is type(b) and all(same(getattr(a, f.name), getattr(b, f.name)) for f in dataclasses.fields(a))
    return type(a) is type(b) and a == b


def camp_world(terrain) -> World:
    """A streaming world with a camp of three NPCs walking round its centre, 6 m from the player, and an enemy."""
    world = World(terrain.snapshot(), settings=STREAMING)
    world.agents.regions.settings = SMALL_REGIONS
    x, _, z = world.player.position
    centre = np.array([x + 6.0, 0.0, z])
    places = [centre + 2.5 * np.array([np.cos(a), 0.0, np.sin(a)]) for a in (0.3, 2.4, 4.5)]
    for n, place in enumerate(places):
        goal = places[(n + 1) % 3]
        world.agents.add_npc(f"camper-{n}", ground(world, place[0], place[2]), ground(world, goal[0], goal[2]),
                             patrol=True)
    world.agents.add_enemy("saw", ground(world, x - 5.0, z + 3.0), facing=(0.0, 0.0, 1.0))
    for _ in range(TILE_LAG + LANDING_EVERY + 10):  # (the tiles around them asked for and landed)
        world.step(Inputs())
    return world


def cast_state(world: World) -> dict:
    agents = world.agents
    return {"npcs": {npc.name: npc.state_dict() for npc in agents.npcs},
            "enemies": {e.name: (e.state_dict(), e.motion.state_dict()) for e in agents.enemies},
            "patrols": dict(agents._patrols)}


def teleport(world: World, x: float, z: float) -> None:
    world.player.position = np.array(ground(world, x, z))


def test_an_npc_camp_sleeps_and_wakes_with_its_state(terrain):
    world = camp_world(terrain)
    import copy
    before = copy.deepcopy(cast_state(world))
    here = world.player.position.copy()
    regions = world.agents.regions
    teleport(world, 10.0, 10.0)  # far: beyond the active radius and the margin
    regions.look(world)
    assert not world.agents.npcs and not world.agents.enemies
    assert regions.count("npc") == 3 and regions.count("enemy") == 1
    assert len(world.agents.navigation.crowd) == 0  # nothing of them left in the crowd
    assert world.snapshot() is not None and not [o for o in world.agents.transforms()]
    teleport(world, here[0], here[2])  # back: the camp wakes, as it fell asleep
    regions.look(world)
    assert regions.count() == 0
    assert [npc.name for npc in world.agents.npcs] == ["camper-0", "camper-1", "camper-2"]
    assert same(cast_state(world), before)


def test_a_camp_woken_plays_on_as_one_never_asleep(terrain):
    slept, awake = camp_world(terrain), camp_world(terrain)
    here = slept.player.position.copy()
    teleport(slept, 10.0, 10.0)
    slept.agents.regions.look(slept)
    teleport(slept, here[0], here[2])
    slept.agents.regions.look(slept)
    for _ in range(90):
        slept.step(Inputs())
        awake.step(Inputs())
    for a, b in zip(slept.agents.npcs, awake.agents.npcs):
        assert np.array_equal(a.position, b.position) and a.state == b.state
    assert slept.voxel_hash() == awake.voxel_hash()


def test_far_actors_sleep_only_as_the_player_crosses_into_another_region(terrain):
    world = camp_world(terrain)
    regions = world.agents.regions
    calls = []
    regions.sleep_far = lambda player: calls.append(1) or 0  # (counted)
    for _ in range(20):  # standing: no look around
        world.step(Inputs())
    assert calls == []
    teleport(world, world.player.position[0] + SMALL_REGIONS.size, world.player.position[2])
    world.step(Inputs())
    assert calls == [1]


def test_a_sleeping_camp_is_saved_and_wakes_in_the_loaded_world(terrain, tmp_path):
    world = camp_world(terrain)
    import copy
    before = copy.deepcopy(cast_state(world))
    here = world.player.position.copy()
    teleport(world, 10.0, 10.0)
    for _ in range(60):  # far away: the camp sleeps, its chunks are no longer meshed
        world.step(Inputs())
    assert world.agents.regions.count("npc") == 3
    save_world(world, tmp_path / "asleep.vxw")
    loaded = load_world(tmp_path / "asleep.vxw")
    assert not loaded.agents.npcs and loaded.agents.regions.count("npc") == 3
    assert same(loaded.agents.regions.sleeping, world.agents.regions.sleeping)
    teleport(loaded, here[0], here[2])  # back: its chunks stream in, then the camp wakes
    for _ in range(6 * RETRY_FRAMES + TILE_LAG + LANDING_EVERY):  # (its tiles baked TILE_LAG frames after asked for)
        loaded.step(Inputs())
        if len(loaded.agents.npcs) == 3:
            break
    assert [npc.name for npc in loaded.agents.npcs] == ["camper-0", "camper-1", "camper-2"]
    for npc in loaded.agents.npcs:
        state, saved = npc.state_dict(), before["npcs"][npc.name]
        assert state["replans"] == saved["replans"]


def _drop_the_meshed_chunks(path) -> None:
    """The file as a world saved before the mesher's active chunks were kept: the loaded world meshes around its
    player only."""
    with sqlite3.connect(path) as connection:
        text, = connection.execute("SELECT json FROM state WHERE name = 'volume'").fetchone()
        row = json.loads(text)
        row["mesher_active"] = None
        text = json.dumps(row)
        connection.execute("UPDATE state SET json = ?, sha256 = ? WHERE name = 'volume'",
                           (text, _sha("state volume", text.encode("utf-8"))))


def test_an_npc_saved_beyond_the_view_loads_asleep_and_wakes_as_the_player_nears(terrain, tmp_path):
    world = World(terrain.snapshot(), settings=STREAMING)
    world.agents.regions.settings = RegionSettings(active_radius=1e6)  # (as before regions: it never sleeps)
    x, _, z = world.player.position
    world.agents.add_npc("walker", ground(world, x + 3.0, z), ground(world, x + 11.0, z), patrol=True)
    for _ in range(10):
        world.step(Inputs())
    teleport(world, 10.0, 10.0)
    for _ in range(30):
        world.step(Inputs())
    assert [npc.name for npc in world.agents.npcs] == ["walker"]  # awake, beyond the player's view
    saved = world.agents.npcs[0].state_dict()
    path = tmp_path / "far.vxw"
    save_world(world, path)
    _drop_the_meshed_chunks(path)  # (before issue 34: a FormatError, the navmesh around the NPC cannot be baked)
    loaded = load_world(path)
    regions = loaded.agents.regions
    assert not loaded.agents.npcs and regions.count("npc") == 1
    record = next(r for records in regions.sleeping.values() for r in records)
    assert same(record["state"]["walk"], saved["walk"]) and record["ends"] is not None
    loaded.agents.regions.settings = SMALL_REGIONS
    teleport(loaded, x, z)  # the player comes back: the NPC wakes where it was, walking its patrol
    for _ in range(8 * RETRY_FRAMES):
        loaded.step(Inputs())
        if loaded.agents.npcs:
            break
    npc = loaded.agents.npcs[0]
    assert npc.name == "walker" and "walker" in loaded.agents._patrols
    assert np.linalg.norm((npc.position - saved["walk"]["position"])[[0, 2]]) < 2.0


def test_a_world_whose_actors_stay_within_the_active_radius_plays_as_without_regions(terrain):
    def play(settings: RegionSettings) -> World:
        world = World(terrain.snapshot(), settings=STREAMING)
        world.agents.regions.settings = settings
        x, _, z = world.player.position
        world.agents.add_npc("a", ground(world, x + 3.0, z), ground(world, x + 12.0, z + 4.0), patrol=True)
        world.agents.add_npc("b", ground(world, x - 3.0, z + 2.0), ground(world, x - 9.0, z - 6.0), patrol=True)
        world.agents.add_enemy("saw", ground(world, x + 2.0, z - 5.0), facing=(0.0, 0.0, -1.0))
        for frame in range(240):  # round a square of 16 m: the player crosses region boundaries
            world.step(Inputs(move=(0.0, 1.0), look=(90.0 * (frame // 60), 0.0)))
        return world

    with_regions = play(RegionSettings(size=8.0, active_radius=64.0, sleep_margin=8.0))
    without = play(RegionSettings(active_radius=1e9))
    assert with_regions.agents.regions.anchor != without.agents.regions.anchor or True
    assert with_regions.event_log_hash() == without.event_log_hash()
    assert with_regions.voxel_hash() == without.voxel_hash()
    for a, b in zip(with_regions.agents.npcs, without.agents.npcs):
        assert np.array_equal(a.position, b.position)


def test_the_demo_world_has_no_regions_row_and_never_sleeps(tmp_path):
    world = World.demo(seed=0)
    assert not world.agents.regions.enabled
    save_world(world, tmp_path / "demo.vxw")
    with sqlite3.connect(tmp_path / "demo.vxw") as connection:
        assert connection.execute("SELECT COUNT(*) FROM state WHERE name = 'regions'").fetchone()[0] == 0


def test_a_generated_worlds_population_sleeps_until_the_player_nears(tmp_path):
    generator = GeneratorSettings(size=256.0, height=64.0, ground_level=24.0, hill_height=8.0, sand_level=10.0, seed=7)
    world = World(generate_world(generator), settings=WorldSettings(view_distance=96.0))
    counts = populate(world, generator)
    assert counts["npc"] > 0 and counts["treasure"] > 0
    assert not world.agents.npcs and world.agents.navigation is None  # data only: nothing baked
    with pytest.raises(ParameterError, match="names"):
        populate(world, generator)  # (twice: the names are taken)
    # The same seed, the same population.
    again = World(generate_world(generator), settings=WorldSettings(view_distance=96.0))
    populate(again, generator)
    assert same(again.agents.regions.sleeping, world.agents.regions.sleeping)
    # The first frame wakes the regions near the player: their people stand on the navmesh, their treasure lies.
    near = [region for region in world.agents.regions.sleeping
            if world.agents.regions.distance(region, world.player.position) <= RegionSettings().active_radius]
    expected = sum(r["kind"] == "treasure" for region in near for r in world.agents.regions.sleeping[region])
    world.step(Inputs())
    assert len(world.actions.deformation.treasures) == expected > 0
    assert not world.agents.npcs  # their navmesh first: it streams in, a tile a frame, then they wake
    assert world.agents.regions.waiting and world.agents.navigation is not None
    for _ in range(30 * RETRY_FRAMES):
        world.step(Inputs())
        if len(world.agents.npcs) >= 3:
            break
    woken = len(world.agents.npcs) + len(world.agents.enemies)
    assert woken >= 3 and woken == world.agents.regions.woken - expected
    for npc in world.agents.npcs:  # on their ground
        x, y, z = npc.position
        assert abs(y - surface_height(world.volume, x, z)) < 1.0
    assert world.agents.regions.count() == counts["npc"] + counts["enemy"] + counts["treasure"] - woken - expected
    save_world(world, tmp_path / "populated.vxw")
    loaded = load_world(tmp_path / "populated.vxw")
    assert same(loaded.agents.regions.sleeping, world.agents.regions.sleeping)
    assert [n.name for n in loaded.agents.npcs] == [n.name for n in world.agents.npcs]


def test_an_enemy_wakes_without_reading_the_character_model_in_its_frame(tmp_path):
    """What every enemy's body shares (the rig, the model's height, the swing clip: the glTF read, about 0.3 s) is made
    as a sleeping enemy is put to sleep or loaded, not in the frame it first wakes in."""
    from voxelworld.game import enemy, poses

    generator = GeneratorSettings(size=256.0, height=64.0, ground_level=24.0, hill_height=8.0, sand_level=10.0, seed=1)
    world = World(generate_world(generator), settings=WorldSettings(view_distance=96.0))
    shared = (poses.character_rig, poses.model_height, enemy._swing_clip)
    for made in shared:
        made.cache_clear()
    assert populate(world, generator)["enemy"] > 0
    assert all(made.cache_info().currsize == 1 for made in shared)
    save_world(world, tmp_path / "asleep.vxw")
    for made in shared:
        made.cache_clear()
    load_world(tmp_path / "asleep.vxw")
    assert all(made.cache_info().currsize == 1 for made in shared)


def test_bad_region_rows_are_refused(terrain):
    world = World(terrain.snapshot(), settings=STREAMING)
    regions = world.agents.regions
    record = regions.npc_record("x", world.settings.chainsaw, (1.0, 2.0, 3.0))  # an enemy's settings: refused
    with pytest.raises(ParameterError, match="settings"):
        regions.load_state_dict(regions.state_dict() | {"sleeping": {(0, 0): [record]}})
    far = regions.treasure_record("t", (1e6, 0.0, 0.0), 1.5)
    with pytest.raises(ParameterError, match="position"):
        regions.load_state_dict(regions.state_dict() | {"sleeping": {(0, 0): [far]}})
    with pytest.raises(ParameterError, match="active_radius"):
        RegionSettings(active_radius=-1.0)
    assert regions.sleeping == {}


class Watched(dict):
    """A dict that counts every read of its keys or values (the frame must make none of the sleepers')."""

    reads = 0

    def _read(self):
        type(self).reads += 1

    def __getitem__(self, key):
        self._read()
        return super().__getitem__(key)

    def get(self, key, default=None):
        self._read()
        return super().get(key, default)

    def __contains__(self, key):
        self._read()
        return super().__contains__(key)

    def __iter__(self):
        self._read()
        return super().__iter__()

    def values(self):
        self._read()
        return super().values()

    def items(self):
        self._read()
        return super().items()


def test_a_frame_pays_nothing_for_the_actors_asleep(terrain):
    world = camp_world(terrain)
    regions = world.agents.regions
    here = world.player.position.copy()
    teleport(world, 10.0, 10.0)
    world.step(Inputs())
    assert regions.count("npc") == 3 and not regions.waiting
    regions.sleeping = Watched(regions.sleeping)
    Watched.reads = 0
    for _ in range(3 * RETRY_FRAMES):  # within the player's region: the sleepers are never looked at
        world.step(Inputs())
    assert Watched.reads == 0
    teleport(world, here[0], here[2])  # into another region: one look around; the camp wakes as its navmesh is back
    world.step(Inputs())
    assert Watched.reads > 0
    for _ in range(30 * RETRY_FRAMES):
        world.step(Inputs())
        if not regions.count("npc"):
            break
    assert len(world.agents.npcs) == 3


def test_a_file_without_the_regions_row_loads_with_nothing_asleep(terrain, tmp_path):
    world = camp_world(terrain)
    path = tmp_path / "old.vxw"
    save_world(world, path)
    with sqlite3.connect(path) as connection:  # as a file of version 3 saved before regions
        connection.execute("DELETE FROM state WHERE name = 'regions'")
    loaded = load_world(path)
    assert loaded.agents.regions.count() == 0 and loaded.agents.regions.anchor is None
    assert [npc.name for npc in loaded.agents.npcs] == [npc.name for npc in world.agents.npcs]
    for _ in range(3):  # its first frame looks around (nothing to sleep: all near) and plays on as the saved one
        world.step(Inputs())
        loaded.step(Inputs())
    assert [tuple(n.position) for n in loaded.agents.npcs] == [tuple(n.position) for n in world.agents.npcs]


def test_an_npc_whose_ground_was_dug_away_while_it_slept_wakes_on_the_ground_below(terrain):
    from voxelworld.terrain import Sphere, Tool

    world = camp_world(terrain)
    here = world.player.position.copy()
    regions = world.agents.regions
    teleport(world, 10.0, 10.0)
    for _ in range(60):  # far away: the camp sleeps, its navmesh tiles go
        world.step(Inputs())
    record = next(r for records in regions.sleeping.values() for r in records if r["name"] == "camper-0")
    where = record["state"]["walk"]["position"]
    world.volume.remove(Sphere(tuple(where), 3.0), tool=Tool(gives_way_below=20.0, unbreakable_from=20.0))
    teleport(world, here[0], here[2])
    for _ in range(30 * RETRY_FRAMES):
        world.step(Inputs())
        if "camper-0" in {npc.name for npc in world.agents.npcs}:
            break
    npc = world.agents.npc("camper-0")
    x, y, z = npc.position
    assert y < where[1] - 1.0 and abs(y - surface_height(world.volume, x, z)) < 1.0


def test_a_small_world_meshed_whole_wakes_its_whole_population_at_once():
    generator = GeneratorSettings(size=128.0, height=64.0, ground_level=24.0, hill_height=8.0, sand_level=10.0, seed=7)
    world = World(generate_world(generator).to_dense())  # no view distance: no regions
    counts = populate(world, generator)
    world.step(Inputs())
    assert len(world.agents.npcs) == counts["npc"] > 0 and world.agents.regions.count() == 0
    assert len(world.actions.deformation.treasures) == counts["treasure"]


def test_a_guest_near_the_camp_keeps_it_awake_and_wakes_it_when_it_comes(terrain, tmp_path):
    """Issue #35: actors sleep only when far from every player, and wake near any: the world's own player leaves,
    a guest who joined stays by the camp (it stays awake); the guest leaves too (it sleeps), then comes back alone
    (it wakes). A save keeps the guest's region, and the loaded world looks around as the first does."""
    world = camp_world(terrain)
    here = world.player.position.copy()
    regions = world.agents.regions
    world.join("guest", spawn=here)
    teleport(world, 10.0, 10.0)
    regions.look(world)
    assert regions.count() == 0 and len(world.agents.npcs) == 3  # the guest is still by it
    world.joined[0].player.position = np.array(ground(world, 10.0, 12.0))
    regions.look(world)
    assert regions.count("npc") == 3 and not world.agents.npcs  # both away: asleep
    world.joined[0].player.position = here.copy()
    regions.look(world)
    assert regions.count() == 0 and [npc.name for npc in world.agents.npcs] == ["camper-0", "camper-1", "camper-2"]
    save_world(world, tmp_path / "w.vwd")
    loaded = load_world(tmp_path / "w.vwd")
    assert loaded.agents.regions.state_dict()["seat_anchors"] == regions.state_dict()["seat_anchors"]
    for _ in range(30):
        for w in (world, loaded):
            w.step([Inputs(), Inputs()])
    assert [npc.name for npc in loaded.agents.npcs] == [npc.name for npc in world.agents.npcs]
    for a, b in zip(world.agents.npcs, loaded.agents.npcs):
        assert np.array_equal(a.position, b.position)
