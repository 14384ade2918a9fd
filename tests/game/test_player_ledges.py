"""The player's ledges and slopes on terrain of the demo's voxels (0.5 m) and on the demo's crates: a ledge up to
0.5 m is stepped onto without jumping, a 1 m ledge is climbed with forward + jump and not without, and sprinting is
faster than walking up and down a slope, along the grid and across it."""

from __future__ import annotations

import math

import numpy as np
import pytest

from voxelworld.game.level import Prop
from voxelworld.game.world import Inputs, World
from voxelworld.terrain import VoxelVolume

FLOOR = 4.0  # m: the test worlds' ground height
VOXEL = 0.5  # m: the demo world's voxels


def ledge_world(height: float, props: tuple[Prop, ...] = ()) -> World:
    """Flat rock of 0.5 m voxels with a ledge ``height`` m high from x = 6.1 m on (between voxel samples), the
    player at x = 3 m looking along +x."""
    def ledge(x, y, z):
        return np.minimum(y - FLOOR, np.maximum(np.maximum(6.1 - x, y - (FLOOR + height)), np.abs(z - 4.0) - 3.0))
    volume = VoxelVolume.from_sdf(ledge, (32, 20, 16), "rock", voxel_size=VOXEL, chunk_size=16)
    return World(volume, None, props, spawn=(3.0, FLOOR, 4.0), spawn_yaw=270.0)


def climb(world: World, jump: bool) -> float:
    """Walk along +x for 2.5 s (pressing jump once, after a second against the ledge, when ``jump``); the highest
    the feet stood (m above where they started)."""
    for _ in range(20):
        world.step(Inputs())
    start, highest = float(world.player.position[1]), -math.inf
    for frame in range(150):
        world.step(Inputs(move=(0.0, 1.0), jump=jump and frame == 60))
        if world.player.grounded:
            highest = max(highest, float(world.player.position[1]) - start)
    return highest


@pytest.mark.parametrize("height", [0.4, 0.45, 0.5])
def test_a_ledge_up_to_half_a_metre_is_stepped_onto_without_jumping(height):
    world = ledge_world(height)
    assert climb(world, jump=False) == pytest.approx(height, abs=0.05)
    assert world.player.position[0] > 9.0 and world.player.grounded


@pytest.mark.parametrize("height", [0.45, 0.5])
def test_a_box_up_to_half_a_metre_is_stepped_onto_without_jumping(height):
    box = Prop.boxes("crate", [((6.0, FLOOR - 0.1, 3.0), (9.0, FLOOR + height, 5.0))], "wood")
    world = ledge_world(0.0, (box,))
    assert climb(world, jump=False) == pytest.approx(height, abs=0.02)


def test_a_one_metre_ledge_takes_forward_and_jump():
    assert climb(ledge_world(1.0), jump=False) < 0.5  # walked into, it stops the player
    world = ledge_world(1.0)
    assert climb(world, jump=True) == pytest.approx(1.0, abs=0.05)  # forward + jump: on top
    assert world.player.position[0] > 7.0


def test_the_demo_crate_takes_forward_and_jump():
    """Against the demo's first crate (1 m high, 0.9 m wide), forward and a jump land the player on its lid;
    forward alone never does."""
    for jump in (False, True):
        world = World.demo(npcs=0)
        crate = next(p for p in world.props if p.name == "crate_1")
        low, high = crate.positions.min(axis=0), crate.positions.max(axis=0)
        world.player.position[:] = (low[0] - 2.0, high[1] + 0.5, (low[2] + high[2]) / 2)  # 2 m before it (-x)
        stood = []
        for frame in range(150):
            world.step(Inputs(move=(0.0, 1.0) if frame >= 30 else (0.0, 0.0), look=(270.0, 0.0),
                              jump=jump and frame == 90))
            if world.player.grounded:
                stood.append(float(world.player.position[1]))
        if jump:
            assert max(stood) == pytest.approx(high[1], abs=0.02)  # on the crate's lid
        else:
            assert max(stood) < high[1] - 0.5  # on the ground before it, all along


def slope(degrees: float, across: float) -> VoxelVolume:
    """0.5 m voxels of grass: flat, then from 16 m along the direction ``across`` degrees from +x a plane rising
    at ``degrees``."""
    rise, cos = math.tan(math.radians(degrees)), math.cos(math.radians(degrees))
    c, s = math.cos(math.radians(across)), math.sin(math.radians(across))

    def field(x, y, z):
        return (y - FLOOR - np.clip((x - 16.0) * c + (z - 16.0) * s, 0.0, None) * rise) * cos
    return VoxelVolume.from_sdf(field, (80, 48, 80), "grass", voxel_size=VOXEL, chunk_size=16)


@pytest.mark.parametrize("degrees, across", [(25.0, 0.0), (35.0, 30.0)])
def test_sprinting_is_faster_than_walking_up_and_down_a_slope(degrees, across):
    volume = slope(degrees, across)
    c, s = math.cos(math.radians(across)), math.sin(math.radians(across))
    uphill = math.degrees(math.atan2(-c, -s)) % 360.0  # the yaw looking along (c, 0, s)
    speeds = {}
    for way, start, yaw in (("up", 1.0, uphill), ("down", 9.0, (uphill + 180.0) % 360.0)):
        for sprint in (False, True):
            height = FLOOR + start * math.tan(math.radians(degrees)) + 0.3
            world = World(volume.snapshot(), None, spawn=(16.0 + start * c, height, 16.0 + start * s),
                          spawn_yaw=yaw)
            for _ in range(20):
                world.step(Inputs(look=(yaw, 0.0)))
            before = world.player.position.copy()
            for _ in range(60):  # 1 s
                world.step(Inputs(move=(0.0, 1.0), look=(yaw, 0.0), sprint=sprint))
                assert world.player.grounded  # on the slope all along
            speeds[way, sprint] = float(np.hypot(*(world.player.position - before)[[0, 2]]))  # m/s
    for way in ("up", "down"):
        assert speeds[way, False] == pytest.approx(4.0, rel=0.05), speeds
        assert speeds[way, True] == pytest.approx(7.0, rel=0.05), speeds
        assert speeds[way, True] > 1.5 * speeds[way, False]
