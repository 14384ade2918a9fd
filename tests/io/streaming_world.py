"""A small generated world that streams around its player, saved to a world file: what the tests of lazy chunks
and of the bake start from."""

from __future__ import annotations

from voxelworld.game.settings import WorldSettings
from voxelworld.game.world import Inputs, World
from voxelworld.io import save_world
from voxelworld.terrain import GeneratorSettings, generate_world

STREAMING = WorldSettings(view_distance=24.0, detail_distances=(8.0, 16.0), stream_chunks_per_frame=16)


def saved_streaming_world(ground: GeneratorSettings, path) -> World:
    """The world of ``ground`` in chunks of 16 voxels, streaming (``STREAMING``), one frame on, saved to ``path``."""
    world = World(generate_world(ground, chunk_size=16), settings=STREAMING)
    world.step(Inputs())
    save_world(world, path)
    return world
