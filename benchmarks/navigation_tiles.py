"""Navmesh tiles baked apart (issue 17 §3): the cost of one tile, and of the frames of a streaming world whose NPC
walks beyond its first tiles. Run on demand: ``python benchmarks/navigation_tiles.py``; results in
docs/benchmarks.md."""

from __future__ import annotations

import time

import numpy as np

from voxelworld.game.level import surface_height
from voxelworld.game.navigation import WorldNavigation
from voxelworld.game.settings import GAME_MESH_OPTIONS, WorldSettings
from voxelworld.game.world import Inputs, World
from voxelworld.meshing import ChunkMesher
from voxelworld.navigation.tiles import TiledNavMesh
from voxelworld.terrain import GeneratorSettings, generate_world

GROUND = GeneratorSettings(size=128.0, height=64.0, ground_level=24.0, hill_height=6.0, cliff_strength=0.0, seed=3)


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


if __name__ == "__main__":
    main()
