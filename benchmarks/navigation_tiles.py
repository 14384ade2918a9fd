"""Navmesh tiles baked apart (issue 17 §3): the cost of one tile, and of the frames of a streaming world whose NPC
walks beyond its first tiles; and (issue 34) one tile's bake from the scene a streaming world hands it (the chunks
the tile reads and the things on their ground: :func:`one_tile_bake`), and one tile changed among N kept
(:func:`kept_tiles`: the navmesh rebuilt from the arrays kept tile by tile, and its path rings). Run on demand:
``python benchmarks/navigation_tiles.py``; results in docs/benchmarks.md."""

from __future__ import annotations

import dataclasses
import time

import numpy as np

from voxelworld.game.level import surface_height
from voxelworld.game.navigation import WorldNavigation
from voxelworld.game.populate import generated_world
from voxelworld.game.settings import GAME_MESH_OPTIONS, WorldSettings
from voxelworld.game.world import Inputs, World
from voxelworld.meshing import ChunkMesher
from voxelworld.navigation import Scene
from voxelworld.navigation.joined_tiles import JoinedTiles
from voxelworld.navigation.navmesh import NavMesh
from voxelworld.navigation.polygons import TILE_CELLS, TilePolygons, tile_navmesh_arrays
from voxelworld.navigation.sampling import MAX_LEVELS
from voxelworld.navigation.tiles import BakedTile, TiledNavMesh, bake_tiles
from voxelworld.terrain import GeneratorSettings, generate_world

GROUND = GeneratorSettings(size=128.0, height=64.0, ground_level=24.0, hill_height=6.0, cliff_strength=0.0, seed=3)
# Hills and cliffs: some 170 polygons a tile (the 1 km world keeps about 40 a tile), for kept_tiles.
ROUGH = GeneratorSettings(size=128.0, height=64.0, ground_level=24.0, hill_height=12.0, hill_scale=48.0,
                          cliff_strength=0.8, cliff_step=4.0, seed=3)


def main() -> None:
    volume = generate_world(GROUND)
    mesher = ChunkMesher(volume, volume.materials, GAME_MESH_OPTIONS)
    mesher.update()
    start = time.perf_counter()
    nav = WorldNavigation(volume, mesher)
    print(f"full bake of the 128 m world: {1000 * (time.perf_counter() - start):.0f} ms")
    tiled = TiledNavMesh(nav.region, nav.settings)
    ntx, ntz = tiled.tile_grid
    times = []
    for ti in range(ntx):
        for tk in range(ntz):
            start = time.perf_counter()
            tiled.change(nav.scene, bake=[(ti, tk)])
            times.append(time.perf_counter() - start)
    print(f"one tile ({ntx * ntz} tiles, navmesh joined again each time): median {1000 * np.median(times):.1f} ms, "
          f"max {1000 * max(times):.1f} ms; {tiled.nbytes / ntx / ntz / 1024:.0f} KiB a tile")
    kept_tiles()
    world = World(generate_world(GROUND), settings=WorldSettings(view_distance=48.0, navigation_distance=16.0))
    z = 64.0
    world.player.position = np.array([20.0, surface_height(world.volume, 20.0, z), z])
    for _ in range(3):
        world.step(Inputs())
    npc = world.agents.add_npc("walker", (22.0, surface_height(world.volume, 22.0, z), z),
                               (112.0, surface_height(world.volume, 112.0, z), z))
    navigation = world.agents.navigation
    plain, baking = [], []
    for _ in range(4000):
        before = navigation.revision
        behind = npc.position[0] - 4.0 - world.player.position[0]
        start = time.perf_counter()
        world.step(Inputs(move=(0.0, 1.0), look=(270.0, 0.0)) if behind > 0 else Inputs())
        (baking if navigation.revision != before else plain).append(time.perf_counter() - start)
        if npc.state == "arrived":
            break
    print(f"walking 90 m: {len(plain) + len(baking)} frames, World.step median {1000 * np.median(plain):.1f} ms "
          f"without a tile change, {1000 * np.median(baking):.1f} ms median / {1000 * max(baking):.1f} ms max in "
          f"the {len(baking)} frames that baked or dropped tiles (1 tile a frame); at most "
          f"{len(navigation.tiled.tiles)} tiles kept at the end")


def moved(tile: BakedTile, ti: int, tk: int) -> tuple[TilePolygons, np.ndarray]:
    """A tile's polygons and side steps moved by (ti, tk) tiles (a larger grid's tiles, for timing only)."""
    p, shift = tile.polygons, np.array([ti, tk], np.int64) * TILE_CELLS
    boxes, sides = p.detail_box.copy(), p.sides.copy()
    boxes[:, :2] += shift
    sides[:, 2:] += shift
    return dataclasses.replace(p, corners=p.corners + shift, detail_box=boxes, sides=sides,
                               inner_ends=p.inner_ends + shift), tile.steps


def kept_tiles() -> None:
    """One change (a tile dropped, or baked) of a navmesh keeping N tiles: the navmesh rebuilt from the arrays
    kept tile by tile (JoinedTiles), and from a join of every tile (as before it), and the rings the first path
    after it waits for. The tiles are those of a rough 128 m world, repeated over a larger grid."""
    volume = generate_world(ROUGH)
    mesher = ChunkMesher(volume, volume.materials, GAME_MESH_OPTIONS)
    mesher.update()
    nav = WorldNavigation(volume, mesher)
    tiled = TiledNavMesh(nav.region, nav.settings)
    tiled.change(nav.scene, bake=[(ti, tk) for ti in range(tiled.tile_grid[0]) for tk in range(tiled.tile_grid[1])])
    source = [tiled.baked_tile(t) for t in sorted(tiled.tiles)]
    area, (ntx, ntz) = tiled.area, tiled.tile_grid
    for count in (64, 256, 1024, 2048):
        side = int(np.ceil(np.sqrt(count)))
        tiles = {(ti, tk): moved(source[(ti % ntx) * ntz + tk % ntz], ti - ti % ntx, tk - tk % ntz)
                 for ti in range(side) for tk in range(side) if ti * side + tk < count}
        nx = nz = side * TILE_CELLS
        joined = JoinedTiles(area.x0, area.z0, area.cell, nx, nz, MAX_LEVELS)
        joined.change(tiles)
        mesh = NavMesh(*joined.arrays)
        rng = np.random.default_rng(1)
        order = sorted(tiles)
        _ = mesh.index.rings
        kept_by_tile, from_scratch = [], []  # (navmesh rebuilt, its rings made) per change, s
        for n, j in enumerate(rng.choice(len(order), 16, replace=False).tolist()):
            tile = order[j]
            for change in ({tile: None}, {tile: tiles[tile]}):
                start = time.perf_counter()
                joined.change(change)
                mesh._set_arrays(*joined.arrays, baked=True, boxes_planes=joined.boxes_planes,
                                 ring_source=joined.rings_for)
                built = time.perf_counter()
                _ = mesh.index.rings  # what the first path asked of the navmesh after a change waits for
                kept_by_tile.append((built - start, time.perf_counter() - built))
            if n >= 4:
                continue  # a join of every tile: a few times
            start = time.perf_counter()
            arrays = tile_navmesh_arrays([tiles[t][0] for t in order], [tiles[t][1] for t in order], area.x0,
                                         area.z0, area.cell, nx, nz, MAX_LEVELS)
            mesh._set_arrays(*arrays, baked=True)
            built = time.perf_counter()
            _ = mesh.index.rings
            from_scratch.append((built - start, time.perf_counter() - built))
        kept, scratch = 1000 * np.median(kept_by_tile, axis=0), 1000 * np.median(from_scratch, axis=0)
        print(f"one tile changed among {count} kept ({mesh.polygon_count} polygons, "
              f"{mesh.detail_heights.nbytes / 2**20:.0f} MiB of detail heights): navmesh rebuilt in median "
              f"{kept[0]:.1f} ms (its path rings {kept[1]:.1f} ms) from the arrays kept tile by tile, "
              f"{scratch[0]:.1f} ms (rings {scratch[1]:.1f} ms) joining every tile")


POPULATED = GeneratorSettings(size=128.0, height=64.0, seed=7, ground_level=28.0, sand_level=12.0, hill_height=8.0,
                              cave_density=0.0)


def one_tile_bake(rounds: int = 5) -> tuple[float, float]:
    """One tile's bake (:func:`~voxelworld.navigation.tiles.bake_tiles`) as a streaming world runs it: the player
    tours a populated 128 m world (its trees and rocks are obstacles), its tiles streaming in around them; each
    tile kept is baked again, ``rounds`` times, from the scene the world handed its bake (the chunks it reads and
    their things, as ``WorldNavigation`` makes it, taken while the tile was kept: the same objects from tile to
    tile, in a new scene each time). Prints and returns the median wall and CPU time (ms) of one tile."""
    world = generated_world(POPULATED, WorldSettings(view_distance=48.0, navigation_distance=24.0))
    scenes = {}
    for x in (28.0, 64.0, 100.0):
        for z in (28.0, 64.0, 100.0):
            world.player.position = np.array([x, surface_height(world.volume, x, z) + 0.5, z])
            for _ in range(40):
                world.step(Inputs())
            navigation = world.agents.navigation
            assert navigation is not None and navigation.tiled is not None
            for tile in sorted(navigation.tiled.tiles - set(scenes)):
                scenes[tile] = navigation._scene(navigation._read_chunks([tile]))
    tiled = navigation.tiled
    wall, cpu = [], []
    for _ in range(rounds):
        for (ti, tk), scene in scenes.items():
            fresh = Scene(list(scene))  # the same objects in a new scene, as each bake of the world is handed
            start, start_cpu = time.perf_counter(), time.thread_time()
            bake_tiles(fresh, tiled.area, tiled.settings, (ti, tk, ti + 1, tk + 1))
            wall.append(time.perf_counter() - start)
            cpu.append(time.thread_time() - start_cpu)
    objects = np.median([len(scene) for scene in scenes.values()])
    print(f"one tile's bake from its streaming scene ({len(scenes)} tiles, {objects:.0f} objects a scene, {rounds} "
          f"rounds): median {1000 * np.median(wall):.2f} ms, CPU median {1000 * np.median(cpu):.2f} ms, p95 "
          f"{1000 * np.percentile(wall, 95):.2f} ms")
    return float(1000 * np.median(wall)), float(1000 * np.median(cpu))


if __name__ == "__main__":
    main()
    one_tile_bake()
