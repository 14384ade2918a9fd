"""The child of tests/io/test_crash.py: edits a world and saves it to one file, again and again, for ever.

Prints ``writing <mark>`` before each save and ``saved <mark>`` once it returned, ``<mark>`` being the world's
frame and voxel hash, so that the parent, having killed it, knows which saves completed. With ``--pause``, each
save prints ``written`` once every row is written and waits 50 ms before it commits: a kill then lands inside
the transaction."""

from __future__ import annotations

import sys
import time

from voxelworld.game.world import Inputs, World
from voxelworld.io import save_world, world_file
from voxelworld.terrain import Sphere


def pause_before_commit() -> None:
    write = world_file._write

    def write_then_wait(*arguments):
        counts = write(*arguments)
        print("written", flush=True)
        time.sleep(0.05)
        return counts

    world_file._write = write_then_wait


def main(path: str) -> None:
    world = World.demo(seed=0, npcs=1)
    n = 0
    while True:
        n += 1
        world.step(Inputs(look=(270.0 + n % 40, -30.0), suck=True))
        for k in range(8):  # digs here and there: a save writes a dozen chunks or so
            world.volume.remove(Sphere((4.0 + (n * 7 + k * 13) % 40, 9.0, 4.0 + (n * 11 + k * 5) % 40), 1.0))
        mark = f"{world.frame} {world.voxel_hash()}"
        print("writing", mark, flush=True)
        save_world(world, path)
        print("saved", mark, flush=True)


if __name__ == "__main__":
    if "--pause" in sys.argv:
        pause_before_commit()
    main(sys.argv[1])
