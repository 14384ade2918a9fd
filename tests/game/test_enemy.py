"""The chainsaw enemy slows by the hardness of the voxels it cuts, carves them, and recovers once through."""

import numpy as np
import pytest

from voxelworld.errors import ParameterError
from voxelworld.game.enemy import Carved, ChainsawEnemy, ChainsawSettings
from voxelworld.meshing import ChunkMesher
from voxelworld.motion import ContactStarted
from voxelworld.terrain import Box, VoxelVolume

DT = 1 / 60
FEET = (2.4, 0.0, 2.4)  # the swing comes down in front of it, towards +x, through x 3..4 m


def arena(material, box=((3.2, 0.6, 2.0), (4.2, 1.2, 2.8))):
    volume = VoxelVolume((48, 24, 48), voxel_size=0.1, chunk_size=16)
    volume.add(Box(*box), material)
    mesher = ChunkMesher(volume)
    mesher.update()
    return volume, mesher


def swing(volume, mesher, frames, **settings):
    enemy = ChainsawEnemy("saw", volume, mesher, FEET, facing=(1, 0, 0), settings=ChainsawSettings(**settings))
    log = []
    for _ in range(frames):
        mesher.update()  # the world's frame loop refreshes the meshes before the enemy moves
        events = enemy.step(DT)
        log.append((events, float(enemy.motion.rates[enemy.motion.wrist]), enemy.motion.contact is not None))
    return enemy, log


def test_slows_more_in_rock_than_in_soil_and_carves_both():
    results = {}
    for material in ("soil", "rock"):
        volume, mesher = arena(material)
        solid = volume.solid_volume()
        enemy, log = swing(volume, mesher, 45)
        started = [e for events, _, _ in log for e in events if isinstance(e, ContactStarted)]
        assert started and started[0].material == material  # the voxel's material, read at the contact
        assert enemy.carved_voxels > 0 and volume.solid_volume() < solid - 0.01
        results[material] = (enemy.slowest_wrist_rate, float(enemy.motion.clocks[enemy.motion.wrist]), log)
    assert results["rock"][0] < results["soil"][0] < 1.0  # 0.17 against 0.40 with the default profile
    assert results["rock"][1] < results["soil"][1]  # the wrist got less far through its swing in rock
    # Rock goes through the damage gate: the first carves only damage it (four hits break a voxel), soil gives
    # way at once.
    carves = {m: [e for events, _, _ in results[m][2] for e in events if isinstance(e, Carved)] for m in results}
    assert carves["soil"][0].voxels_changed > 0
    assert carves["rock"][0].voxels_changed == 0 and carves["rock"][0].voxels_damaged > 0
    assert any(c.voxels_changed > 0 for c in carves["rock"])


def test_carves_along_the_blade():
    volume, mesher = arena("soil")
    before = volume.density.copy()
    enemy, _ = swing(volume, mesher, 30)
    removed = np.argwhere((before >= volume.iso) & (volume.density < volume.iso))
    assert len(removed) > 0
    points = volume.index_to_world(removed)
    start, end = enemy.motion.part_segment
    # Everything removed lies within the cut radius (plus the edit's one-voxel ramp) of the blade's sweep, in
    # the swing's plane z = 2.4 m.
    assert np.all(np.abs(points[:, 2] - 2.4) <= enemy.settings.cut_radius + volume.voxel_size)


def test_swing_recovers_after_cutting_through_a_thin_wall():
    volume, mesher = arena("rock", box=((3.0, 1.0, 2.0), (4.2, 1.2, 2.8)))  # a 0.2 m rock slab across the swing
    enemy, log = swing(volume, mesher, 150)
    contact = [c for _, _, c in log]
    rates = np.array([r for _, r, _ in log])
    last = max(i for i, c in enumerate(contact) if c)
    assert rates[:last + 1].min() < 0.2  # slowed in the rock
    assert rates[last + 20] >= 0.99  # ... and back to speed once through
    assert not any(contact[last + 1:])  # the next swing passes through the cut freely
    # The slab is cut through its whole thickness in the swing's plane.
    column = volume.density[:, 10:13, 24] >= volume.iso
    assert np.any(~column[30:42].any(axis=1))


def test_iron_is_never_carved():
    volume, mesher = arena("iron")
    enemy, _ = swing(volume, mesher, 40)
    assert enemy.carved_voxels == 0 and enemy.slowest_wrist_rate <= 0.03


def test_deterministic():
    runs = []
    for _ in range(2):
        volume, mesher = arena("rock")
        enemy, log = swing(volume, mesher, 60)
        runs.append((volume.content_hash(), [events for events, _, _ in log], enemy.motion.clocks.tolist()))
    assert runs[0] == runs[1]


def test_carve_interval_carves_less_often():
    volume, mesher = arena("soil")
    every, log = swing(volume, mesher, 45)
    volume, mesher = arena("soil")
    sparse, sparse_log = swing(volume, mesher, 45, carve_interval=0.1)
    count = lambda log: sum(isinstance(e, Carved) for events, _, _ in log for e in events)  # noqa: E731
    assert 0 < count(sparse_log) < count(log)


def test_bad_input_raises_parameter_error():
    volume, mesher = arena("soil")
    other, _ = arena("soil")
    with pytest.raises(ParameterError, match="mesher"):
        ChainsawEnemy("saw", other, mesher, FEET)
    with pytest.raises(ParameterError, match="facing"):
        ChainsawEnemy("saw", volume, mesher, FEET, facing=(0, 1, 0))
    with pytest.raises(ParameterError, match="position"):
        ChainsawEnemy("saw", volume, mesher, (1, 2))
    with pytest.raises(ParameterError, match="name"):
        ChainsawEnemy("", volume, mesher, FEET)
    for field, value in (("cut_radius", 0), ("carve_interval", -1), ("reach", float("nan")), ("tool", "saw"),
                         ("profile", None), ("swing_seconds", 0)):
        with pytest.raises(ParameterError, match=field):
            ChainsawSettings(**{field: value})
    enemy = ChainsawEnemy("saw", volume, mesher, FEET)
    with pytest.raises(ParameterError, match="dt"):
        enemy.step(-1)
    assert enemy.time == 0.0
