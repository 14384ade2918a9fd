"""NPCs walk navmesh paths as one crowd, re-plan when a hole is dug across their path, and never walk into it."""

import math

import numpy as np
import pytest

from voxelworld.errors import ParameterError
from voxelworld.game.navigation import WorldNavigation
from voxelworld.game.npcs import NPC, NPCSettings
from voxelworld.meshing import ChunkMesher
from voxelworld.terrain import Box, Cylinder, VoxelVolume

DT = 1 / 60


def world():
    volume = VoxelVolume.from_sdf(lambda x, y, z: y - 4.0, (48, 16, 48), material="soil", voxel_size=0.5,
                                  chunk_size=8)
    mesher = ChunkMesher(volume)
    return volume, mesher, WorldNavigation(volume, mesher)


def frame(volume, mesher, nav, npcs, edit=None):
    """One frame in the world's order: voxel edit, meshes, navmesh, then the NPCs move (one crowd step)."""
    events = []
    if edit is not None:
        mesher.update()
        nav.update(edit.dirty_chunks)
    nav.step_crowd(DT)
    for npc in npcs:
        events += npc.take_events(DT)
    return events


def test_npc_replans_around_a_hole_dug_across_its_path():
    volume, mesher, nav = world()
    npc = NPC("walker", nav, (3.0, 4.0, 12.0), NPCSettings(speed=2.0))
    assert npc.walk_to((21.0, 4.0, 12.0))
    assert len(npc.path) == 1  # a straight line across open ground
    positions, events = [], []
    hole = (13.0, 12.0, 2.5)  # centre x, z and radius (m): right across the straight line
    for n in range(900):
        edit = volume.remove(Cylinder((hole[0], 0.5, hole[1]), (hole[0], 8.0, hole[1]), hole[2])) if n == 60 else None
        events += frame(volume, mesher, nav, [npc], edit)
        positions.append(npc.position.copy())
        if npc.state != "walking":
            break
    kinds = [e.kind for e in events]
    assert kinds[0] == "replanned" and kinds[-1] == "arrived" and npc.state == "arrived"
    assert npc.replans >= 1
    positions = np.array(positions)
    gaps = np.hypot(positions[:, 0] - hole[0], positions[:, 2] - hole[1])
    assert gaps.min() > hole[2]  # never over the hole
    assert np.all(np.abs(positions[:, 1] - 4.0) < 0.05)  # on the ground all the way
    assert math.hypot(*(npc.position - (21.0, 4.0, 12.0))[[0, 2]]) <= npc.settings.arrival_radius + 1e-9


def test_npc_stops_when_a_trench_cuts_it_off():
    volume, mesher, nav = world()
    npc = NPC("walker", nav, (3.0, 4.0, 12.0), NPCSettings(speed=2.0))
    assert npc.walk_to((21.0, 4.0, 12.0))
    events, xs = [], []
    for n in range(300):
        edit = volume.remove(Box((11.0, 0.5, -1.0), (13.0, 8.0, 25.0))) if n == 60 else None
        events += frame(volume, mesher, nav, [npc], edit)
        xs.append(npc.position[0])
    assert [e.kind for e in events] == ["blocked"] and npc.state == "blocked"
    assert max(xs) < 11.0  # it never stepped into the trench
    assert not npc.walk_to((21.0, 4.0, 12.0))  # and no path exists


def test_npc_ignores_changes_away_from_its_path():
    # A field of 48 m: the dig re-bakes navmesh tiles (19.2 m a side) far from the NPC's.
    volume = VoxelVolume.from_sdf(lambda x, y, z: y - 4.0, (96, 16, 96), material="soil", voxel_size=0.5,
                                  chunk_size=8)
    mesher = ChunkMesher(volume)
    nav = WorldNavigation(volume, mesher)
    npc = NPC("walker", nav, (3.0, 4.0, 3.0), NPCSettings(speed=1.0))
    npc.walk_to((8.0, 4.0, 3.0))
    frame(volume, mesher, nav, [npc], volume.remove(Cylinder((40.0, 0.5, 40.0), (40.0, 8.0, 40.0), 1.5)))
    assert nav.revision == 1 and npc.replans == 0 and npc.state == "walking"


def test_npcs_deterministic():
    logs = []
    for _ in range(2):
        volume, mesher, nav = world()
        npcs = [NPC(f"npc{i}", nav, (2.0 + i, 4.0, 3.0 + 2 * i)) for i in range(4)]
        for i, npc in enumerate(npcs):
            npc.walk_to((21.0 - i, 4.0, 20.0 - 2 * i))
        log = []
        for n in range(240):
            edit = volume.remove(Cylinder((12.0, 0.5, 12.0), (12.0, 8.0, 12.0), 2.0)) if n == 30 else None
            log += frame(volume, mesher, nav, npcs, edit)
            log.append(tuple(tuple(npc.position.tolist()) for npc in npcs))
        logs.append(log)
    assert logs[0] == logs[1]


def test_bad_input_raises_parameter_error():
    _, _, nav = world()
    with pytest.raises(ParameterError, match="speed"):
        NPCSettings(speed=0)
    with pytest.raises(ParameterError, match="arrival_radius"):
        NPCSettings(arrival_radius=-1)
    with pytest.raises(ParameterError, match="navigation"):
        NPC("a", nav.mesh, (1, 4, 1))
    with pytest.raises(ParameterError, match="position"):
        NPC("a", nav, (1, 4))
    with pytest.raises(ParameterError, match="name"):
        NPC("", nav, (1, 4, 1))
    npc = NPC("a", nav, (1.0, 4.0, 1.0))
    with pytest.raises(ParameterError, match="goal"):
        npc.walk_to((1.0, float("nan"), 1.0))
    with pytest.raises(ParameterError, match="dt"):
        npc.step(0)
    assert npc.state == "idle" and npc.step(DT) == []
