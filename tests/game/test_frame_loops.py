"""No state makes a frame loop without end (issue 30, item 1): the player's footsteps and the sub-steps of its move
are bounded per frame, whatever its state holds, even a state that slipped past the checks of
``Player.load_state_dict`` (set on the object directly) or settings that ask for countless sub-steps. A
``stride_left`` of -1e300 made ``Player.control`` emit footsteps for ever (-1e300 + 0.8 == -1e300), feet 1e8 m away
made a frame emit 10^8 of them, a velocity of 1e300 m/s overflowed the count of sub-steps, and a radius of 1 µm
made a frame take 10^5 of them.

Each case runs in a child process with a time limit; the child measures the step itself (not its imports)."""

from __future__ import annotations

import json

import pytest

from ..child import run_child

CHILD = """
import json, sys, time
import numpy as np
from voxelworld.game.events import Footstep
from voxelworld.game.player import PlayerSettings
from voxelworld.game.world import Inputs, World, WorldSettings
from voxelworld.terrain import VoxelVolume

case = sys.argv[1]
settings = WorldSettings(player=PlayerSettings(radius=1e-6, height=1.8)) if case == "tiny radius" else WorldSettings()
ground = VoxelVolume.from_sdf(lambda x, y, z: y - 4.0, (32, 16, 32), "soil", voxel_size=0.5, chunk_size=8)
world = World(ground, settings=settings)
for _ in range(3):
    world.step(Inputs(move=(0.0, 1.0)))
player = world.player
if case == "stride_left -1e300":
    player._stride_left = -1e300
elif case == "feet 1e8 m away":
    player.position[:] = (0.0, 0.0, 1e8)  # on the world's floor (its bottom), far beyond its side
elif case == "velocity 1e300":
    player.velocity[:] = 1e300
start = time.perf_counter()
events = world.step(Inputs(move=(0.0, 1.0), sprint=True))
seconds = time.perf_counter() - start
print(json.dumps({"seconds": seconds, "footsteps": sum(isinstance(e, Footstep) for e in events),
                  "stride_left": player._stride_left, "stride": player.settings.stride,
                  "position": [float(v) for v in player.position]}))
"""
CASES = ("stride_left -1e300", "feet 1e8 m away", "velocity 1e300", "tiny radius")


@pytest.mark.parametrize("case", CASES)
def test_a_frame_of_any_player_state_returns_at_once_with_few_footsteps(case):
    done = run_child(["-c", CHILD, case], 60, what=case)
    assert done.returncode == 0, done.stderr[-4000:]
    result = json.loads(done.stdout.splitlines()[-1])
    assert result["seconds"] < 1.0, result  # a step takes about 2 ms: this is a hang, not a speed check
    from voxelworld.game.player import MAX_FOOTSTEPS  # (here: the case itself is what fails on older code)
    assert result["footsteps"] <= MAX_FOOTSTEPS, result
    assert 0.0 < result["stride_left"] <= result["stride"], result  # what is left of a stride stays a stride's part
