"""The shovel digger (issue #15, the other media of the design): CesiumMan digging the voxel ground, slowed by the
ground's hardness and by how the blade meets it, and removing voxels where the blade went in through the
terrain's edits. Measured against the same dig with no ground under the blade."""

from __future__ import annotations

import numpy as np
import pytest

from voxelworld.errors import ParameterError
from voxelworld.game.digger import Dug, ShovelDigger, ShovelSettings
from voxelworld.game.edits import VoxelEdit
from voxelworld.meshing import ChunkMesher
from voxelworld.motion import ContactStarted, SlowdownProfile
from voxelworld.motion.measure import joint_motion, motion_ratios
from voxelworld.terrain import Box, VoxelVolume

DT = 1 / 60
FEET = (1.2, 1.0, 2.0)  # on the ground's top (y = 1 m), facing +x


def ground(material: str | None) -> VoxelVolume:
    volume = VoxelVolume((40, 24, 40), voxel_size=0.1, chunk_size=16)
    if material is not None:
        volume.add(Box((0.0, 0.0, 0.0), (4.0, 1.0, 4.0)), material)
    return volume


def dig(material: str | None, frames: int = 150, edits=None, **settings) -> dict:
    volume = ground(material)
    mesher = ChunkMesher(volume)
    digger = ShovelDigger("digger", volume, mesher, FEET, facing=(1, 0, 0), settings=ShovelSettings(**settings),
                          edits=edits)
    worlds, contact, rates, areas, events = [digger.motion.world.copy()], [], [], [], []
    for _ in range(frames):
        mesher.update()
        events += digger.step(DT)
        worlds.append(digger.motion.world.copy())
        contact.append(digger.motion.contact is not None)
        rates.append(digger.motion.rates.copy())
        areas.append(digger.motion._area if contact[-1] else np.nan)
    return dict(digger=digger, volume=volume, worlds=np.array(worlds), contact=np.array(contact),
                rates=np.array(rates), areas=np.array(areas), events=events)


@pytest.fixture(scope="module")
def free():
    return dig(None)


def test_harder_ground_slows_the_arm_more_and_the_body_to_a_tenth(free):
    still = SlowdownProfile(vibration_degrees=0.0)  # no shake: measured motion is the rates alone
    soil, rock = dig("soil", profile=still), dig("rock", profile=still)
    digger = soil["digger"]
    motion = digger.motion
    parents = motion.skeleton.parents
    assert not free["contact"].any()
    both = soil["contact"] & rock["contact"]
    assert both.sum() > 60  # the blade goes in and stays in the ground while it digs
    measured = {label: motion_ratios(joint_motion(run["worlds"], parents), joint_motion(free["worlds"], parents),
                                     both) for label, run in (("soil", soil), ("rock", rock))}
    for label, run in (("soil", soil), ("rock", rock)):
        # The hips' clock runs at a tenth; measured, they turn a tenth to a fifth of the free run over the same
        # frames (the dig eases: the free run is in slower and faster phases than the slowed one).
        assert run["rates"][both, motion.root] == pytest.approx(0.1, abs=1e-3)
        assert 0.05 < measured[label].rotation[motion.root] < 0.2
        # the arm below the body, the elbow below the shoulder, measured relative to the parent
        assert measured[label].local_rotation[motion.elbow] < measured[label].local_rotation[motion.shoulder] < 0.1
    # Rock is harder: every joint of the arm bends more slowly than in soil over the same frames.
    for joint in (motion.shoulder, motion.elbow):
        assert measured["rock"].local_rotation[joint] < 0.8 * measured["soil"].local_rotation[joint]
    assert rock["rates"][both, motion.wrist].mean() < 0.6 * soil["rates"][both, motion.wrist].mean()
    started = [e for e in soil["events"] if isinstance(e, ContactStarted)]
    assert started and started[0].material == "soil"


def test_edge_on_cuts_faster_than_flat():
    edge, flat = dig("soil", blade_roll=0.0), dig("soil", blade_roll=90.0)
    wrist = edge["digger"].motion.wrist
    both = edge["contact"] & flat["contact"]
    assert both.sum() > 60
    assert np.nanmean(edge["areas"][both]) < 0.2 < 0.4 < np.nanmean(flat["areas"][both])
    assert flat["rates"][both, wrist].mean() < 0.8 * edge["rates"][both, wrist].mean()


def test_the_dig_removes_voxels_where_the_blade_went_in():
    run = dig("soil")
    volume, digger = run["volume"], run["digger"]
    dug = [e for e in run["events"] if isinstance(e, Dug)]
    assert len(dug) == run["contact"].sum() > 0  # a dig every contact frame, told when applied
    assert digger.dug_voxels == sum(e.voxels_changed for e in dug) > 20
    assert digger.dug_volume == pytest.approx(ground("soil").solid_volume_by_material()["soil"]
                                              - volume.solid_volume_by_material()["soil"])
    # Every voxel that lost density lies within reach of a capsule the blade cut along.
    changed = np.argwhere(volume.density < ground("soil").density)
    assert len(changed) > 20
    points = volume.origin + changed * volume.voxel_size
    nearest = np.full(len(points), np.inf)
    for e in dug:
        a, b = np.array(e.start), np.array(e.end)
        t = np.clip((points - a) @ (b - a) / ((b - a) @ (b - a)), 0.0, 1.0)
        nearest = np.minimum(nearest, np.linalg.norm(points - (a + t[:, None] * (b - a)), axis=1))
    assert nearest.max() <= ShovelSettings().cut_radius + volume.voxel_size * np.sqrt(3)
    # The blade went in ahead of the feet, not under them.
    assert points[:, 0].min() > FEET[0]


def test_iron_stops_the_blade_and_nothing_gives_way():
    run = dig("iron", 90)
    assert run["contact"].any()
    assert run["digger"].dug_voxels == 0
    assert run["digger"].slowest_wrist_rate == pytest.approx(ShovelSettings().profile.min_rate)


def test_digs_go_to_the_edits_callable_when_given():
    queued: list[VoxelEdit] = []
    run = dig("soil", 60, edits=queued.append)
    assert queued and all(e.kind == "remove" and e.source == "digger" for e in queued)
    assert np.array_equal(run["volume"].density, ground("soil").density)  # nothing applied by the digger itself
    changed = sum(edit.apply(run["volume"]).voxels_changed for edit in queued)
    assert changed > 0 and run["digger"].dug_voxels == changed


def test_same_dig_same_voxels():
    a, b = dig("rock", 80), dig("rock", 80)
    assert np.array_equal(a["volume"].density, b["volume"].density)
    assert np.array_equal(a["worlds"], b["worlds"])


@pytest.mark.parametrize("field, value", [("blade_roll", 95.0), ("blade_end", 0.0), ("cut_radius", 0.0),
                                          ("swing_seconds", float("nan")), ("tool", "spade")])
def test_bad_settings_name_the_field(field, value):
    with pytest.raises(ParameterError, match=field):
        ShovelSettings(**{field: value})


def test_bad_digger_arguments_raise():
    volume = ground("soil")
    mesher = ChunkMesher(volume)
    with pytest.raises(ParameterError, match="mesher"):
        ShovelDigger("d", volume, ChunkMesher(ground("soil")), FEET)
    with pytest.raises(ParameterError, match="facing"):
        ShovelDigger("d", volume, mesher, FEET, facing=(0, 1, 0))
    with pytest.raises(ParameterError, match="position"):
        ShovelDigger("d", volume, mesher, (1.0, 2.0))
    digger = ShovelDigger("d", volume, mesher, FEET)
    with pytest.raises(ParameterError, match="dt"):
        digger.step(0.0)
