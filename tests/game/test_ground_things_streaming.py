"""Things on the ground of a world that streams (WorldSettings.view_distance): made as their chunk column enters
the streamed area, forgotten when it leaves unless changed, the same when made again."""

from __future__ import annotations

import numpy as np

from voxelworld.game.edits import VoxelEdit
from voxelworld.game.events import ThingChanged
from voxelworld.game.ground_things import FALLEN, STANDING
from voxelworld.game.populate import populate
from voxelworld.game.settings import WorldSettings
from voxelworld.game.world import Inputs, World
from voxelworld.terrain import Box, GeneratorSettings, generate_world
from voxelworld.terrain.scatter import KIND_NAMES, ScatterSettings, scatter_chunk_column

STREAMING = WorldSettings(view_distance=48.0, detail_distances=(16.0, 32.0), stream_chunks_per_frame=16)
GROUND = GeneratorSettings(size=192.0, height=64.0, ground_level=24.0, hill_height=6.0, cliff_strength=0.0, seed=3,
                           sand_level=8.0, cave_density=0.0)
THICK = ScatterSettings(tree_density=300.0, bush_density=200.0)


def test_things_come_and_go_with_their_columns_and_a_changed_column_stays():
    world = World(generate_world(GROUND), settings=STREAMING)
    populate(world, GROUND, THICK)
    things = world.ground_things
    # The area the streaming keeps, made before the first frame (which then makes none: no stall as play starts),
    # wider than the first view the mesher has.
    first = set(things.columns)
    assert first > {tuple(c) for c in np.argwhere(world.mesher.active.any(axis=1)).tolist()}
    made_before = things.made
    world.step()
    made = set(things.columns)
    assert made == first == {tuple(c) for c in np.argwhere(world._stream_wanted[0][1].any(axis=1)).tolist()}
    assert things.made == made_before
    assert len(made) < 144  # not the whole world's 12 x 12 columns
    # dig under the tree nearest the player
    best = None
    for column in sorted(things.columns):
        kept = things.columns[column]
        for n in range(len(kept.things)):
            if KIND_NAMES[kept.things.kind[n]] == "tree":
                d = np.linalg.norm((kept.things.position[n] - world.player.position)[[0, 2]])
                if best is None or d < best[0]:
                    best = (d, column, n)
    assert best is not None
    _, dug, n = best
    x, y, z = things.columns[dug].things.position[n]
    world.queue_edit(VoxelEdit("remove", Box((x - 0.9, y - 2.0, z - 0.9), (x + 0.9, y + 1.0, z + 0.9)), source="test"))
    events = [e for _ in range(2) for e in world.step() if isinstance(e, ThingChanged)]
    assert (events[0].column, events[0].index, events[0].state) == (dug, n, "fallen")
    start = set(things.columns)
    for _ in range(900):  # sprint away along +x
        world.step(Inputs(move=(0.0, 1.0), look=(270.0, 0.0), sprint=True))
        if world.player.position[0] > 150.0:
            break
    assert world.player.position[0] > 120.0
    gone = start - set(things.columns)
    assert gone and dug not in gone and things.columns[dug].state[n] == FALLEN  # kept: changed
    new = set(things.columns) - start
    assert new
    for column in new:
        assert things.columns[column].things == scatter_chunk_column(GROUND, THICK, column)
        assert (things.columns[column].state == STANDING).all()


def test_streamed_tiles_with_things_are_the_full_bakes_tiles():
    from voxelworld.game.ground_things import GroundThings
    from voxelworld.game.navigation import WorldNavigation
    from voxelworld.meshing import ChunkMesher
    from voxelworld.navigation.tiles import same_polygons

    ground = GeneratorSettings(size=128.0, height=64.0, ground_level=24.0, hill_height=6.0, cliff_strength=0.0,
                               seed=3, sand_level=8.0, cave_density=0.0)
    settings = WorldSettings(view_distance=48.0, navigation_distance=16.0)
    terrain = generate_world(ground)
    world = World(terrain.snapshot(), settings=settings)
    populate(world, ground, THICK)
    nav = world.agents.navigate()
    nav.bake_around(world.player.position[None])  # (no NPC: the navmesh streams around none)
    assert nav.things is world.ground_things and nav.tiled.tiles
    every = GroundThings(world.volume, ground, THICK)
    every.follow(None)  # every column's things
    volume = terrain.snapshot()
    full = WorldNavigation(volume, ChunkMesher(volume, volume.materials, settings.mesh_options), things=every)
    assert any(name.startswith("thing/") for name in full.scene.names)
    bare = WorldNavigation(volume, ChunkMesher(volume, volume.materials, settings.mesh_options))
    ntz = full.mesh.bake_state.areas[0].layers.tiles[1]
    differ = 0
    for tile in sorted(nav.tiled.tiles):
        index = tile[0] * ntz + tile[1]
        assert same_polygons(nav.tiled.tile(tile), full.mesh.bake_state.areas[0].tiles[index]), tile
        differ += not same_polygons(nav.tiled.tile(tile), bare.mesh.bake_state.areas[0].tiles[index])
    assert differ  # the things changed some tiles: the obstacles are there
