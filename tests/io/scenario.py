"""A scripted session on the demo world for the world-file tests: walking, a punch, a pull-out, the held piece
thrown, suck held until bullets come, a bullet readied and thrown; the NPCs patrol and the chainsaw enemy cuts.

``MOMENTS`` names frames after which the world holds the state a test wants to save (the frame's number is the
world's ``frame`` after that step)."""

from __future__ import annotations

import sqlite3

from voxelworld.game.enemy import ChainsawSettings
from voxelworld.game.world import Inputs, World, WorldSettings
from voxelworld.io.state import capture

# The punch and the pull-out play their own motion (game.strike): each edit is queued as the fist strikes, some 11
# frames after the press, and each strike plays out (some 34 frames) before the next button.
PUNCH, PULL_OUT, THROW_PIECE, SUCK_FROM, SUCK_TO, STANCE, THROW_BULLET = 40, 80, 118, 120, 180, 184, 190
FRAMES = 206
# What the world holds after the frame: (frame, the sources of the queued edits, what the player holds, the kinds
# of the loose objects other than fragments). tests/io checks that these moments still happen as named.
# The enemy cuts the rock wall with the default chainsaw carving every contact frame (scenario_world: a 0.15 m cut
# wears rock down over many frames, the blade staying in contact), so from frame 40 on its carve is queued in almost
# every frame.
MOMENTS = {
    "punch on its way": (46, {"chainsaw"}, None, set()),
    "punch queued": (51, {"punch", "chainsaw"}, None, set()),
    "pull-out queued": (92, {"pull_out", "chainsaw"}, None, set()),
    "piece held, carve queued": (95, {"chainsaw"}, "held", set()),
    "piece flying": (120, {"chainsaw"}, None, {"projectile"}),
    "suck and carve queued": (127, {"suck", "chainsaw"}, None, {"projectile"}),
    "bullet held": (186, {"chainsaw"}, "bullet", {"projectile"}),
    "impact queued": (187, {"impact:attach", "chainsaw"}, "bullet", set()),
    "bullet flying": (193, {"chainsaw"}, None, {"projectile"}),
}


def scenario_world() -> World:
    """The demo world of the session, its chainsaw carving every contact frame (the game's carves 15 times a
    second), so that a carve is queued at every moment."""
    return World.demo(seed=0, settings=WorldSettings(chainsaw=ChainsawSettings(carve_interval=0.0)))


def inputs(frame: int) -> Inputs:
    """The session's inputs for ``frame``: a button is pressed for one frame, suck is held."""
    if frame < PUNCH - 4:
        return Inputs(move=(0.0, 1.0), look=(270.0, -20.0))
    if frame < PULL_OUT - 2:
        return Inputs(look=(270.0, -60.0), punch=frame == PUNCH)
    if frame < THROW_PIECE - 2:
        return Inputs(look=(240.0, -80.0), pull_out=frame == PULL_OUT)
    if frame < SUCK_FROM:
        return Inputs(look=(270.0, 20.0), throw=frame == THROW_PIECE)
    if frame < SUCK_TO:
        return Inputs(look=(240.0 + 0.5 * (frame - SUCK_FROM), -30.0), suck=True)
    return Inputs(look=(270.0, -25.0), stance=frame == STANCE, throw=frame == THROW_BULLET)


def play(world: World, until: int) -> World:
    """Step ``world`` with the session's inputs until its frame is ``until``."""
    while world.frame < until:
        world.step(inputs(world.frame))
    return world


def state(world: World) -> dict:
    """Everything a world file holds of ``world``, for comparisons: the state rows, the arrays and the voxels."""
    captured = capture(world)
    arrays = {name: (array.dtype.name, array.shape, array.tobytes()) for name, array in captured.arrays.items()}
    return {"rows": captured.rows, "arrays": arrays, "voxels": world.voxel_hash(),
            "events": world.event_log_hash()}


def content(path) -> dict:
    """The logical content of a world file: every row of every table, sorted."""
    connection = sqlite3.connect(path)
    try:
        tables = [row[0] for row in connection.execute("SELECT name FROM sqlite_master WHERE type = 'table'")]
        return {table: sorted(connection.execute(f"SELECT * FROM {table}")) for table in sorted(tables)}
    finally:
        connection.close()
