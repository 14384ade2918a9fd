"""A streaming world's navmesh tiles stream around its actors (WorldSettings.navigation_distance): every tile baked is
the same tile of a full bake of the whole world, bit for bit; a tile waits for its chunks' collision meshes; NPCs
walk beyond their first baked radius as tiles appear ahead and are dropped behind; digs re-bake as before."""

from __future__ import annotations

import gc
import threading
import weakref
from itertools import product

import numpy as np
import pytest

from voxelworld.errors import ParameterError
from voxelworld.game.level import surface_height
from voxelworld.game.nav_chunks import same_mesh
from voxelworld.game.nav_streaming import ASK_EVERY, LANDING_EVERY, TILE_LAG
from voxelworld.game.navigation import WorldNavigation
from voxelworld.game.settings import WorldSettings
from voxelworld.game.streaming import STREAM_LAG
from voxelworld.game.world import Inputs, World
from voxelworld.meshing import ChunkMesher, mesher_collision
from voxelworld.navigation import NavQuery
from voxelworld.navigation.tiles import same_polygons
from voxelworld.terrain import Box, GeneratorSettings, Sphere, Tool, generate_world

GROUND = GeneratorSettings(size=128.0, height=64.0, ground_level=24.0, hill_height=6.0, cliff_strength=0.0, seed=3)
STREAMING = WorldSettings(view_distance=48.0, navigation_distance=16.0)
DIG = Tool(gives_way_below=20.0, unbreakable_from=20.0)


@pytest.fixture(scope="module")
def terrain():
    return generate_world(GROUND)


@pytest.fixture(scope="module")
def full(terrain):
    """The navmesh of the whole world, baked whole: what every streamed tile must equal."""
    volume = terrain.snapshot()
    return WorldNavigation(volume, ChunkMesher(volume, volume.materials, STREAMING.mesh_options))


def full_tile(full: WorldNavigation, tile):
    ntz = full.mesh.bake_state.areas[0].layers.tiles[1]
    return full.mesh.bake_state.areas[0].tiles[tile[0] * ntz + tile[1]]


def assert_tiles_are_the_full_bakes(nav: WorldNavigation, full: WorldNavigation, tiles=None) -> None:
    for tile in sorted(nav.tiled.tiles if tiles is None else tiles):
        assert same_polygons(nav.tiled.tile(tile), full_tile(full, tile)), tile


def ground(world: World, x: float, z: float) -> tuple[float, float, float]:
    return (x, surface_height(world.volume, x, z), z)


def test_navigation_distance_is_checked():
    with pytest.raises(ParameterError, match=r"navigation_distance = 60.*< view_distance = 48.0"):
        WorldSettings(view_distance=48.0, navigation_distance=60.0)
    with pytest.raises(ParameterError, match="navigation_distance = 0"):
        WorldSettings(view_distance=48.0, navigation_distance=0.0)
    with pytest.raises(ParameterError, match="navigation_tiles_per_frame = 0"):
        WorldSettings(navigation_tiles_per_frame=0)
    assert WorldSettings(view_distance=48.0).navigation_radius == 24.0
    assert WorldSettings(view_distance=500.0).navigation_radius == 64.0
    assert WorldSettings().navigation_radius is None  # meshed whole: baked whole


def test_an_npc_walks_beyond_its_first_tiles_while_they_stream(terrain, full):
    z = 64.0
    world = World(terrain.snapshot(), settings=STREAMING, spawn=None)
    world.player.position = np.array(ground(world, 20.0, z))
    for _ in range(2 * STREAM_LAG + 1):  # the world meshes around the player's new place (in the background)
        world.step(Inputs())
    goal = ground(world, 112.0, z)
    npc = world.agents.add_npc("walker", ground(world, 22.0, z), goal)
    nav = world.agents.navigation
    first = set(nav.tiled.tiles)
    goal_tile = nav.tiled.tile_of(goal)
    assert goal_tile not in first and npc.state == "walking"
    assert_tiles_are_the_full_bakes(nav, full)
    first_tile = weakref.ref(nav.tiled.baked_tile(sorted(first)[0]))
    query, seen, most = NavQuery(nav.mesh), set(first), 0
    for frame in range(4000):
        behind = npc.position[0] - 4.0 - world.player.position[0]  # the player walks along, a little behind
        world.step(Inputs(move=(0.0, 1.0), look=(270.0, 0.0)) if behind > 0 else Inputs())
        fresh = nav.tiled.tiles - seen
        assert_tiles_are_the_full_bakes(nav, full, fresh)  # each tile as it appears
        seen |= fresh
        most = max(most, len(nav.tiled.tiles))
        assert npc.state in ("walking", "arrived"), (frame, npc.state)
        snapped, polygon = query.nearest_point(npc.position)
        assert polygon >= 0 and np.linalg.norm(snapped - npc.position) < 1e-6, frame  # on the navmesh
        assert nav.tiled.tile_of(npc.position) in nav.tiled.tiles
        if npc.state == "arrived":
            break
    assert npc.state == "arrived" and np.hypot(*(npc.position - goal)[[0, 2]]) <= npc.settings.arrival_radius + 0.5
    assert goal_tile in nav.tiled.tiles and goal_tile not in first  # baked ahead of it
    assert not first & nav.tiled.tiles  # the first tiles are far behind both actors now: dropped
    assert most < 0.5 * np.prod(nav.tiled.tile_grid)  # never the whole world
    # Dropped tiles let go of their memory: nothing holds them, and the chunks held are those the kept tiles read.
    gc.collect()
    assert first_tile() is None
    assert set(nav.chunk_meshes) == set(nav._read_chunks(nav.tiled.tiles))
    kinds = [e.kind for e in world.events if type(e).__name__ == "NPCChanged"]
    assert kinds[-1] == "arrived" and "blocked" not in kinds


def test_a_tile_waits_for_its_chunks_collision_meshes(terrain, full):
    # The navigation distance near the view distance: tiles wanted at its edge read chunks not meshed yet.
    settings = WorldSettings(view_distance=40.0, navigation_distance=36.0, navigation_tiles_per_frame=4)
    world = World(terrain.snapshot(), settings=settings)
    npc = world.agents.add_npc("walker", ground(world, 66.0, 64.0))
    nav = world.agents.navigation
    for _ in range(20):
        world.step(Inputs())
    distances = nav._tile_distances(world.agents._actor_points())
    wanted = {tuple(t) for t in np.argwhere(distances <= nav.navigation_distance).tolist()}
    waiting = wanted - nav.tiled.tiles
    assert waiting, "some wanted tiles must wait for their chunks"
    meshed = world.mesher.meshed
    for tile in waiting:  # each waits for a chunk (or a lower neighbour) not meshed
        ci0, ck0, ci1, ck1 = nav.chunk_columns(tile)
        assert not meshed[max(ci0 - 1, 0):ci1 + 1, :, max(ck0 - 1, 0):ck1 + 1].all(), tile
    assert_tiles_are_the_full_bakes(nav, full)
    assert npc.state == "idle"


def test_a_dig_near_an_npc_rebakes_its_tiles(terrain):
    world = World(terrain.snapshot(), settings=STREAMING)
    npc = world.agents.add_npc("walker", ground(world, 66.0, 64.0))
    nav = world.agents.navigation
    spot = np.array(ground(world, 70.0, 64.0))
    revision, before = nav.revision, {t: nav.tiled.tile(t) for t in nav.tiled.tiles}
    world.volume.remove(Sphere(tuple(spot), 2.0), tool=DIG)
    for _ in range(30):
        world.step(Inputs())
    assert nav.revision > revision
    # The dug tiles are those of a full bake of the dug world, bit for bit.
    volume = world.volume.snapshot()
    dug = WorldNavigation(volume, ChunkMesher(volume, volume.materials, STREAMING.mesh_options))
    assert_tiles_are_the_full_bakes(nav, dug)
    dug_tile = nav.tiled.tile_of(spot)
    assert not same_polygons(nav.tiled.tile(dug_tile), before[dug_tile])  # the hole changed the tile
    assert npc.state == "idle"


def test_a_notch_cut_high_in_a_thin_wall_bakes_no_tile_again(terrain):
    """The cut changes the collision meshes the tiles around it read, but no floor an agent could stand on (the
    wall's top is too thin to keep, the notch's floor has no room over it, the ground is more than an agent's
    room below it): the tiles stay as baked (navigation.tiles.change_reaches_tiles), and are what a full bake of
    the cut world gives."""
    volume = terrain.snapshot()
    base = surface_height(volume, 70.0, 64.0)
    volume.add(Box((69.6, base - 2.0, 58.0), (70.4, base + 6.0, 70.0)), "rock")
    world = World(volume, settings=STREAMING)
    world.agents.add_npc("walker", ground(world, 66.0, 64.0))
    for _ in range(4):
        world.step(Inputs())
    nav = world.agents.navigation
    cut = (70.4, base + 3.5, 64.0)
    reading = [t for t in nav.tiled.tiles if _meets(nav.tiled.reach(t), (cut[0], cut[2], cut[0], cut[2]))]
    tiles, meshes = {t: nav.tiled.baked_tile(t) for t in reading}, dict(nav.chunk_meshes)
    world.volume.remove(Sphere(cut, 0.7), tool=DIG)
    for _ in range(30):
        world.step(Inputs())
    assert any(not same_mesh(mesh, nav.chunk_meshes.get(chunk)) for chunk, mesh in meshes.items())
    assert reading and all(nav.tiled.baked_tile(t) is tiles[t] for t in reading)
    volume = world.volume.snapshot()
    assert_tiles_are_the_full_bakes(nav, WorldNavigation(volume, ChunkMesher(volume, volume.materials,
                                                                             STREAMING.mesh_options)))


def test_digs_far_apart_re_bake_the_tiles_near_each_not_those_between(terrain):
    settings = WorldSettings(view_distance=96.0, navigation_distance=16.0)  # the whole world meshed
    world = World(terrain.snapshot(), settings=settings)
    world.stream(None)  # (it streams in over frames)
    world.mesher.update()
    for n, x in enumerate((30.0, 64.0, 98.0)):  # three NPCs keep tiles along x, the middle ones between the digs
        world.agents.add_npc(f"walker{n}", ground(world, x, 64.0))
    nav = world.agents.navigation
    between = [t for t in nav.tiled.tiles if 50.0 <= nav.tiled.tile_box(t)[0] and nav.tiled.tile_box(t)[2] <= 80.0]
    assert between  # (tiles from 57.6 to 76.8 m along x: their bakes read neither dig)
    baked = {t: nav.tiled.baked_tile(t) for t in nav.tiled.tiles}
    revision = nav.revision
    for x in (28.0, 100.0):
        world.volume.remove(Sphere(ground(world, x, 64.0), 2.0), tool=DIG)
    for _ in range(30):
        world.step(Inputs())
    assert nav.revision > revision  # the digs changed their tiles
    assert all(nav.tiled.baked_tile(t) is baked[t] for t in between if t in nav.tiled.tiles)
    volume = world.volume.snapshot()
    assert_tiles_are_the_full_bakes(nav, WorldNavigation(volume, ChunkMesher(volume, volume.materials,
                                                                             settings.mesh_options)))


def test_the_missing_tiles_are_the_nearest_not_kept_nor_asked_for_and_bakeable(terrain):
    world = World(terrain.snapshot(), settings=STREAMING)
    world.agents.add_npc("walker", ground(world, 66.0, 64.0))
    nav = world.agents.navigation
    rng = np.random.default_rng(5)
    grid = nav.tiled.tile_grid
    kept = nav.tiled.tiles
    assert kept
    for _ in range(20):
        distance = np.where(rng.random(grid) < 0.2, np.inf, rng.choice([5.0, 10.0, 15.0, 30.0], grid))
        skip = {tuple(t) for t in rng.integers(0, grid[0], (3, 2)).tolist()}
        budget = int(rng.choice([-1, 0, 1, 3]))
        ok = nav._meshed_columns() | (rng.random(nav._meshed_columns().shape) < 0.7)  # columns said meshed
        near = sorted((t for t in product(range(grid[0]), range(grid[1]))
                       if distance[t] <= nav.navigation_distance and t not in kept and t not in skip),
                      key=lambda t: (distance[t], t))
        expected = [t for t in near if nav._bakeable(t, ok)]
        for _ in range(2):  # (the second time from what the first found bakeable or not)
            assert nav._missing(distance, ok, budget, skip) == (expected if budget < 0 else expected[:budget])


def _meets(a, b) -> bool:
    return a[0] <= b[2] and b[0] <= a[2] and a[1] <= b[3] and b[1] <= a[3]


def test_an_npc_whose_goal_is_not_baked_waits_at_the_edge(terrain):
    world = World(terrain.snapshot(), settings=WorldSettings(view_distance=48.0, navigation_distance=12.0))
    npc = world.agents.add_npc("walker", ground(world, 66.0, 64.0), ground(world, 108.0, 64.0))
    nav = world.agents.navigation
    nav.tiles_per_frame = 1
    kinds = []
    for _ in range(900):
        nav.stream(np.array([ground(world, 66.0, 64.0)]))  # tiles only around where it started
        nav.step_crowd(1 / 30)
        kinds += [event.kind for event in nav.take_events(npc.agent)]
    assert npc.state == "waiting" and kinds == ["waiting"]
    assert nav.tiled.tile_of(npc.position) in nav.tiled.tiles
    # The world streaming again, around the NPC too (its chunks, then its tiles): it walks on and arrives.
    for _ in range(1800):
        world.step(Inputs())
        if npc.state == "arrived":
            break
    kinds += [e.kind for e in world.events if type(e).__name__ == "NPCChanged"]
    assert npc.state == "arrived" and kinds[-1] == "arrived" and "blocked" not in kinds


def test_a_loaded_streaming_world_bakes_the_same_tiles(terrain, tmp_path):
    from voxelworld.io import load_world, save_world

    world = World(terrain.snapshot(), settings=STREAMING)
    npc = world.agents.add_npc("walker", ground(world, 66.0, 64.0), ground(world, 80.0, 70.0))
    for _ in range(20):
        world.step(Inputs(move=(0.0, 1.0), look=(270.0, 0.0)))
    nav = world.agents.navigation
    save_world(world, tmp_path / "streaming.vxw")
    loaded = load_world(tmp_path / "streaming.vxw")
    again = loaded.agents.navigation
    assert again.tiled is not None and again.tiled.tiles == nav.tiled.tiles
    for tile in nav.tiled.tiles:
        assert same_polygons(again.tiled.tile(tile), nav.tiled.tile(tile)), tile
    assert loaded.settings.navigation_radius == STREAMING.navigation_radius
    for _ in range(30):  # and both walk on alike
        world.step(Inputs())
        loaded.step(Inputs())
    assert np.array_equal(loaded.agents.npcs[0].position, npc.position)
    assert again.tiled.tiles == nav.tiled.tiles


def test_the_tiles_stream_around_the_npcs_not_the_player(terrain, full):
    # The player stands far from the only NPC: no tile is baked around the player (who never walks the navmesh),
    # every tile kept is within the navigation distance (plus the tile of hysteresis) of the NPC.
    world = World(terrain.snapshot(), settings=STREAMING, spawn=None)
    world.player.position = np.array(ground(world, 100.0, 64.0))
    for _ in range(2 * STREAM_LAG + 1):
        world.step(Inputs())
    npc = world.agents.add_npc("idler", ground(world, 60.0, 64.0))
    nav = world.agents.navigation
    for _ in range(30):
        world.step(Inputs())
    player_tile = nav.tiled.tile_of(world.player.position)
    assert nav._bakeable(player_tile, nav._meshed_columns())  # it could be baked: its chunks are meshed
    assert player_tile not in nav.tiled.tiles
    near = nav._tile_distances(npc.position[None]) <= nav.navigation_distance + nav.tile_size
    assert nav.tiled.tiles and all(near[t] for t in nav.tiled.tiles)
    assert_tiles_are_the_full_bakes(nav, full)
    assert len(world.agents._actor_points()) == 1


def test_a_large_world_navigates_within_32_m():
    from voxelworld.game.settings import LARGE_WORLD_SETTINGS

    assert LARGE_WORLD_SETTINGS.navigation_radius == 32.0


def test_a_streamed_world_with_npcs_plays_the_same_twice(terrain):
    # The player runs away from two walking NPCs (their tiles stream around them, not the player): two runs give the
    # same events and the same tiles, bit for bit.
    def play() -> World:
        world = World(terrain.snapshot(), settings=STREAMING, spawn=None)
        world.player.position = np.array(ground(world, 30.0, 64.0))
        for _ in range(2 * STREAM_LAG + 1):  # the world meshes around the player's new place
            world.step(Inputs())
        world.agents.add_npc("a", ground(world, 32.0, 64.0), ground(world, 90.0, 64.0))
        world.agents.add_npc("b", ground(world, 30.0, 60.0), ground(world, 30.0, 20.0))
        for frame in range(900):
            world.step(Inputs(move=(0.0, 1.0), look=(0.0, 0.0), sprint=frame < 120) if frame < 240 else Inputs())
        return world

    first, second = play(), play()
    assert first.agents.navigation.revision > 4, first.agents.navigation.revision  # tiles came, went
    assert first.event_log_hash() == second.event_log_hash()
    assert first.agents.navigation.tiled.tiles == second.agents.navigation.tiled.tiles
    for a, b in zip(first.agents.npcs, second.agents.npcs):
        assert np.array_equal(a.position, b.position)


def streamed_world(terrain):
    """A world whose one NPC's tiles stream in (none baked at once): each asked for, baked ahead on the
    navigation's thread, and baked TILE_LAG frames later."""
    world = World(terrain.snapshot(), settings=STREAMING, spawn=None)
    world.player.position = np.array(ground(world, 64.0, 64.0))
    for _ in range(2 * STREAM_LAG + 1):
        world.step(Inputs())
    nav = world.agents.navigate(bake=False)
    return world, nav


def step_until_asked(world, nav):
    """Step ``world`` until its navigation asked for tiles: every ASK_EVERY calls, several at once."""
    for _ in range(ASK_EVERY):
        world.step(Inputs())
        assert not nav._asked or nav._streams % ASK_EVERY == ASK_EVERY - 1
        if nav._asked:
            return
    raise AssertionError(f"no tile asked for in {ASK_EVERY} frames")


def test_tiles_asked_for_are_baked_ahead_then_taken_as_the_full_bakes(terrain, full):
    world, nav = streamed_world(terrain)
    world.agents.regions.waking_points = lambda: [np.array(ground(world, 64.0, 64.0))]  # (what the tiles follow)
    step_until_asked(world, nav)
    asked = set(nav._asked)
    assert asked and not nav.tiled.tiles  # asked for, not baked yet
    assert 1 < len(asked) <= ASK_EVERY * nav.tiles_per_frame
    due = nav._asked[next(iter(asked))][0]
    assert due % LANDING_EVERY == 0 and TILE_LAG <= due - nav._streams < TILE_LAG + LANDING_EVERY
    while nav._streams < due - 1:
        world.step(Inputs())
    assert not asked & nav.tiled.tiles  # not before their frame
    for tile in asked:  # (done in time however busy the machine: a frame never waits for the thread to start one)
        nav._asked[tile][1].future.result()
    world.step(Inputs())
    assert asked <= nav.tiled.tiles  # in their frame
    assert nav.tiles_taken_ahead >= len(asked)  # (from the thread: a failing bake there would leave this at 0)
    for _ in range(3 * TILE_LAG):
        world.step(Inputs())
    assert_tiles_are_the_full_bakes(nav, full)


def test_tiles_asked_for_make_each_chunks_collision_mesh_once(terrain):
    world, nav = streamed_world(terrain)
    world.agents.regions.waking_points = lambda: [np.array(ground(world, 84.0, 84.0))]
    step_until_asked(world, nav)
    tile, (_, first) = next((t, asked) for t, asked in nav._asked.items() if asked[1].collision)
    # Asked for again (as a neighbour reading the same chunks is) before the first bake landed: the chunks being
    # made for it are waited for, not made again; both bakes see the same meshes.
    again = nav._start_ahead(tile)
    assert again.collision == first.collision and set(first.collision) < set(first.chunks)
    made_first, _, baked_first, _ = first.future.result()
    made_again, _, baked_again, _ = again.future.result()
    assert all(same_mesh(made_first[c], made_again[c]) for c in first.chunks)
    assert same_polygons(baked_first.polygons, baked_again.polygons)
    volume = world.volume
    for chunk in sorted(first.collision):  # a dig where one of them meets the ground: its mesh dropped since ...
        lo, hi = (volume.index_to_world(corner) for corner in volume.chunk_box(chunk))
        spot = ground(world, (lo[0] + hi[0]) / 2, (lo[2] + hi[2]) / 2)
        if lo[1] + 1.0 < spot[1] < hi[1] - 1.0:
            break
    volume.remove(Sphere(tuple(spot), 2.0), tool=DIG)
    world.step(Inputs())
    dug = {c for c in first.collision if not world.mesher.prepared_still_current(
        first.collision[c], c, first.collision[c].revisions[first.collision[c].chunks.index(c)])}
    assert dug  # ... is made again for the next asker
    assert not dug & {c for c, p in nav._start_ahead(tile).collision.items() if p is first.collision[c]}


def test_a_tile_baked_in_its_frame_takes_the_meshes_the_thread_made_for_an_ask(terrain, full, monkeypatch):
    """A tile baked in its frame without its bake ahead (a new agent's, a neighbour of tiles asked for) whose
    chunks' collision meshes the navigation's thread made for a tile asked for takes them: the frame makes none of
    them again."""
    world, nav = streamed_world(terrain)
    world.agents.regions.waking_points = lambda: [np.array(ground(world, 84.0, 84.0))]
    step_until_asked(world, nav)
    tile, (_, job) = next((t, asked) for t, asked in sorted(nav._asked.items()) if asked[1].collision)
    del nav._asked[tile]  # (baked now without its bake ahead; the meshes made for it are still being made)
    for preparation in job.collision.values():
        preparation.future.result()
    in_frame = []
    assemble = mesher_collision.assemble_chunk

    def counted(volume, chunk, *args, **kwargs):
        if threading.current_thread() is threading.main_thread():
            in_frame.append(chunk)
        return assemble(volume, chunk, *args, **kwargs)

    monkeypatch.setattr(mesher_collision, "assemble_chunk", counted)
    nav._bake_given([tile])
    assert tile in nav.tiled.tiles
    assert not set(job.collision) & set(in_frame)  # (each made once: on the thread)
    assert_tiles_are_the_full_bakes(nav, full, [tile])


def test_a_tile_baked_ahead_from_a_scene_dug_since_is_baked_again(terrain):
    world, nav = streamed_world(terrain)
    spot = np.array(ground(world, 64.0, 64.0))
    world.agents.regions.waking_points = lambda: [spot]
    step_until_asked(world, nav)
    tile = nav.tiled.tile_of(spot)
    assert tile in nav._asked
    ahead = nav._asked[tile][1].future.result()[2]  # baked ahead from the undug scene
    world.volume.remove(Sphere(tuple(spot), 2.0), tool=DIG)  # then dug under
    for _ in range(TILE_LAG + LANDING_EVERY):
        world.step(Inputs())
    assert tile in nav.tiled.tiles
    volume = world.volume.snapshot()
    dug = WorldNavigation(volume, ChunkMesher(volume, volume.materials, STREAMING.mesh_options))
    assert same_polygons(nav.tiled.tile(tile), full_tile(dug, tile))  # the dug tile, not the one baked ahead
    assert not same_polygons(ahead.polygons, full_tile(dug, tile))


def test_tiles_asked_for_are_saved_and_baked_in_their_frame_after_a_load(terrain, tmp_path):
    from voxelworld.io import load_world, save_world

    world = World(terrain.snapshot(), settings=STREAMING)
    world.agents.add_npc("walker", ground(world, 66.0, 64.0), ground(world, 100.0, 70.0))
    nav = world.agents.navigation
    for _ in range(900):  # the NPC walks towards tiles not baked yet: asked for
        world.step(Inputs())
        if nav._asked:
            break
    assert nav.state_dict()["asked"]
    save_world(world, tmp_path / "asked.vxw")
    loaded = load_world(tmp_path / "asked.vxw")
    again = loaded.agents.navigation
    assert again.state_dict()["asked"] == nav.state_dict()["asked"]
    for _ in range(TILE_LAG + 2 * LANDING_EVERY):
        world.step(Inputs())
        loaded.step(Inputs())
        assert again.tiled.tiles == nav.tiled.tiles
    assert np.array_equal(loaded.agents.npcs[0].position, world.agents.npcs[0].position)


@pytest.mark.parametrize("asked", [[[0, 0]], [[0, 0, 0]], [[0, 0, TILE_LAG + LANDING_EVERY]], [[999, 0, 1]], [[0, 0, 1], [0, 0, 2]],
                                   [[0, 0, True]], "x"])
def test_a_bad_asked_state_is_refused_before_anything_changes(terrain, asked):
    world = World(terrain.snapshot(), settings=STREAMING)
    world.agents.add_npc("walker", ground(world, 66.0, 64.0))
    nav = world.agents.navigation
    state = nav.state_dict()
    revision = nav.revision
    with pytest.raises(ParameterError, match=r"state\['asked'\]"):
        nav.load_state_dict(dict(state, asked=asked, revision=revision + 5))
    assert nav.revision == revision


def test_a_world_saved_just_after_a_dig_near_an_npc_loads_with_the_same_navmesh(terrain, tmp_path):
    # The collision meshes a world file keeps are those its navmesh was baked from (checked at load): a dig's
    # re-bake is not put off to a later frame, so a save in between loads.
    from voxelworld.io import load_world, save_world

    world = World(terrain.snapshot(), settings=STREAMING)
    world.agents.add_npc("idler", ground(world, 66.0, 64.0))
    nav = world.agents.navigation
    spot = np.array(ground(world, 70.0, 64.0))
    revision = nav.revision
    world.volume.remove(Sphere(tuple(spot), 2.0), tool=DIG)
    for _ in range(30):  # navmesh_delay: re-baked
        world.step(Inputs())
    assert nav.revision > revision
    save_world(world, tmp_path / "dug.vxw")
    again = load_world(tmp_path / "dug.vxw").agents.navigation
    assert again.tiled.tiles == nav.tiled.tiles
    for tile in nav.tiled.tiles:
        assert same_polygons(again.tiled.tile(tile), nav.tiled.tile(tile)), tile
