"""The player capsule on the collision mesh: slopes, steps, falling into a dug hole, lava stamina, footsteps."""

from __future__ import annotations

import math

import numpy as np
import pytest

from voxelworld.errors import ParameterError
from voxelworld.game.events import ContactEnded, ContactStarted, Footstep, Landed, StaminaChanged
from voxelworld.game.level import Prop
from voxelworld.game.player import PlayerSettings
from voxelworld.game.world import Inputs, VoxelEdit, World
from voxelworld.terrain import Box, Cylinder, VoxelVolume

FLOOR = 4.0  # m: the test worlds' ground height (they are 10 m high)
FORWARD = Inputs(move=(0.0, 1.0))  # the player starts looking along +x (yaw 270)


def flat_world(material: str = "soil", props=()) -> World:
    volume = VoxelVolume.from_sdf(lambda x, y, z: y - FLOOR, (64, 40, 32), material, voxel_size=0.25,
                                  chunk_size=16)
    return World(volume, None, props, spawn=(3.0, FLOOR, 4.0), spawn_yaw=270.0)


def slope_world(degrees: float) -> World:
    """Flat ground, then from x = 6 m a plane rising along +x at ``degrees``."""
    rise, cos = math.tan(math.radians(degrees)), math.cos(math.radians(degrees))
    volume = VoxelVolume.from_sdf(lambda x, y, z: np.minimum(y - FLOOR, (y - FLOOR - (x - 6.0) * rise) * cos),
                                  (64, 40, 32), "soil", voxel_size=0.25, chunk_size=16)
    return World(volume, None, spawn=(3.0, FLOOR, 4.0), spawn_yaw=270.0)


def step_world(height: float) -> World:
    """Flat ground with a ledge ``height`` metres high from x = 6 m on."""
    def ledge(x, y, z):
        return np.minimum(y - FLOOR, np.maximum(np.maximum(6.0 - x, y - (FLOOR + height)), np.abs(z - 4.0) - 3.0))
    volume = VoxelVolume.from_sdf(ledge, (64, 40, 32), "rock", voxel_size=0.25, chunk_size=16)
    return World(volume, None, spawn=(3.0, FLOOR, 4.0), spawn_yaw=270.0)


def walk(world: World, frames: int, inputs: Inputs = FORWARD) -> list:
    return [event for _ in range(frames) for event in world.step(inputs)]


def test_settings_are_checked():
    with pytest.raises(ParameterError) as error:
        PlayerSettings(radius=-1.0)
    assert error.value.parameter == "radius"
    with pytest.raises(ParameterError):
        PlayerSettings(height=1.0)  # shorter than two radii plus a step
    with pytest.raises(ParameterError):
        PlayerSettings(max_slope=95.0)


def test_stands_still_on_flat_ground():
    world = flat_world()
    walk(world, 30, Inputs())
    assert world.player.grounded
    assert world.player.position[1] == pytest.approx(FLOOR, abs=0.1)
    assert world.player.position[[0, 2]].tolist() == pytest.approx([3.0, 4.0])


@pytest.mark.parametrize("degrees", [30.0, 40.0])
def test_walks_up_a_walkable_slope(degrees):
    world = slope_world(degrees)
    walk(world, 120)  # 2 s at 4 m/s: 8 m, of which 5 on the slope
    x, y, _ = world.player.position
    assert x > 10.0
    assert y == pytest.approx(FLOOR + (x - 6.0) * math.tan(math.radians(degrees)), abs=0.3)
    assert world.player.grounded


@pytest.mark.parametrize("degrees", [55.0, 65.0])
def test_refuses_a_slope_too_steep(degrees):
    world = slope_world(degrees)
    walk(world, 120)
    x, y, _ = world.player.position
    assert x < 6.6 and y < FLOOR + world.settings.player.step_height


def test_steps_up_a_ledge_lower_than_the_step_height():
    world = step_world(0.3)
    walk(world, 90)
    assert world.player.position[0] > 7.0
    assert world.player.position[1] == pytest.approx(FLOOR + 0.3, abs=0.08)
    assert world.player.grounded


def test_stops_at_a_ledge_higher_than_the_step_height():
    world = step_world(0.8)
    walk(world, 60)
    assert world.player.position[0] < 6.0
    assert world.player.position[1] == pytest.approx(FLOOR, abs=0.1)


def test_a_tall_prop_blocks_and_reports_its_material():
    crate = Prop.boxes("crate", [((6.0, FLOOR - 0.1, 3.0), (7.0, FLOOR + 1.0, 5.0))], "wood")
    world = flat_world(props=[crate])
    events = walk(world, 90)
    assert world.player.position[0] == pytest.approx(6.0 - world.settings.player.radius, abs=0.05)
    assert ContactStarted in {type(e) for e in events}
    assert "wood" in world.player.touching


def test_falls_into_a_hole_dug_under_it_and_lands_at_the_bottom():
    world = flat_world()
    walk(world, 10, Inputs())
    x, _, z = world.player.position
    world.queue_edit(VoxelEdit("remove", Cylinder((x, FLOOR - 2.5, z), (x, FLOOR + 1.0, z), 1.5), source="test"))
    heights, events = [], []
    for frame in range(90):
        events += world.step(Inputs())
        heights.append(float(world.player.position[1]))
        if frame == 0:  # the edit is applied and the meshes refreshed before the player moves
            assert not world.player.grounded
    assert world.player.grounded
    bottom = FLOOR - 2.5
    assert heights[-1] == pytest.approx(bottom, abs=0.15)
    assert min(heights) > bottom - 0.15  # never through the floor of the hole
    assert all(b <= a + 1e-9 for a, b in zip(heights, heights[1:]))  # only down, no bounce
    landed = [e for e in events if isinstance(e, Landed)]
    assert len(landed) == 1 and landed[0].speed > 5.0 and landed[0].material == "soil"


def test_a_fast_fall_does_not_tunnel_through_a_thin_floor():
    volume = VoxelVolume((32, 160, 32), voxel_size=0.25, chunk_size=16)
    volume.add(Box((0.0, 1.0, 0.0), (7.75, 1.5, 7.75)), "rock")  # a slab 0.5 m thick
    world = World(volume, None, spawn=(4.0, 38.0, 4.0))
    walk(world, 240, Inputs())  # 37 m down: about 27 m/s at the end, 0.45 m a frame
    assert world.player.grounded
    assert world.player.position[1] == pytest.approx(1.5, abs=0.15)


def test_touching_lava_costs_stamina_and_soil_does_not():
    world = flat_world()
    world.volume.paint(Box((6.0, 0.0, 0.0), (16.0, 10.0, 8.0)), "lava")
    world.mesher.update()
    world = World(world.volume, None, spawn=(3.0, FLOOR, 4.0), spawn_yaw=270.0)
    walk(world, 30)  # 2 m on soil
    assert world.player.stamina == world.settings.player.stamina_max  # soil costs nothing
    walk(world, 30)  # onto the lava
    assert "lava" in world.player.touching
    before = world.player.stamina
    assert before < world.settings.player.stamina_max
    events = walk(world, 60, Inputs())  # standing in lava for a second
    assert world.player.stamina == pytest.approx(before - world.materials["lava"].contact_damage * 1.0)
    drops = [e for e in events if isinstance(e, StaminaChanged)]
    assert drops and all(e.cause == "contact:lava" and e.change < 0 for e in drops)
    events = walk(world, 60, Inputs(move=(0.0, -1.0)))  # back off the lava: the cost stops, stamina comes back
    assert any(isinstance(e, ContactEnded) and e.material == "lava" for e in events)
    low = world.player.stamina
    walk(world, 60, Inputs())
    assert world.player.stamina > low


def test_sprinting_drains_stamina_and_walking_does_not():
    world = flat_world()
    walk(world, 60)
    assert world.player.stamina == world.settings.player.stamina_max
    start = world.player.position[0]
    walk(world, 60, Inputs(move=(0.0, 1.0), sprint=True))
    assert world.player.position[0] - start == pytest.approx(world.settings.player.sprint_speed, abs=0.2)
    assert world.player.stamina == pytest.approx(world.settings.player.stamina_max
                                                 - world.settings.player.sprint_drain, abs=0.5)


def test_footsteps_report_the_material_underfoot_every_stride():
    world = flat_world("grass")
    world.volume.paint(Box((7.0, 0.0, 0.0), (16.0, 10.0, 8.0)), "rock")
    world = World(world.volume, None, spawn=(3.0, FLOOR, 4.0), spawn_yaw=270.0)
    events = walk(world, 120)  # 8 m: 4 on grass, 4 on rock
    steps = [e for e in events if isinstance(e, Footstep)]
    assert len(steps) == pytest.approx(8.0 / world.settings.player.stride, abs=1)
    materials = [e.material for e in steps]
    assert materials[0] == "grass" and materials[-1] == "rock"
    # Each step sounds as its material's footstep names it (rock: "stone").
    assert {(e.material, e.sound) for e in steps} == {("grass", "grass"), ("rock", "stone")}
    assert materials == sorted(materials, key=lambda m: m != "grass")  # grass first, then only rock
    for e in steps:
        assert e.material == ("grass" if e.position[0] < 6.9 else "rock") or abs(e.position[0] - 7.0) < 0.5
    assert not [e for e in walk(world, 30, Inputs()) if isinstance(e, Footstep)]  # standing: silence


@pytest.mark.parametrize("ground", ["soil", "ice"])
def test_slippery_ground_lets_the_player_slide_on_when_the_stick_is_let_go(ground):
    world = flat_world(ground)
    walk(world, 60)
    speed = world.settings.player.walk_speed
    assert np.hypot(world.player.velocity[0], world.player.velocity[2]) == pytest.approx(speed, rel=1e-3)
    start = world.player.position.copy()
    walk(world, 30, Inputs())
    slid = float(np.linalg.norm((world.player.position - start)[[0, 2]]))
    slipperiness = world.materials[ground].slipperiness
    rate = world.settings.player.traction * (1.0 - slipperiness)  # 1/s: ice 10, soil 110
    if rate / 60 >= 1.0:
        assert slid == 0.0  # soil grips: the player stops at once
    else:
        # Ice: the velocity decays by (1 - rate/60) a frame; the distance is the sum of those frames' moves.
        keep = 1.0 - rate / 60
        assert slid == pytest.approx(speed / 60 * sum(keep ** n for n in range(1, 31)), rel=0.02)
        assert slid > 0.3


def test_jump_leaves_the_ground_and_lands_again():
    world = flat_world()
    walk(world, 5, Inputs())
    world.step(Inputs(jump=True))
    assert not world.player.grounded
    peak = 0.0
    for _ in range(90):
        world.step(Inputs())
        peak = max(peak, float(world.player.position[1]))
    s = world.settings.player
    assert peak - FLOOR == pytest.approx(s.jump_speed ** 2 / (2 * s.gravity), abs=0.1)
    assert world.player.grounded


def test_the_worlds_sides_and_bottom_hold_the_player_in():
    world = flat_world()
    walk(world, 240)  # towards +x, past the end of the volume (16 m)
    far = world.volume.index_to_world(np.array(world.volume.shape) - 1)
    assert world.player.position[0] == pytest.approx(far[0] - world.settings.player.radius)
    x, _, z = world.player.position
    world.queue_edit(VoxelEdit("remove", Box((x - 2, -1.0, z - 2), (x + 1, 11.0, z + 2)), source="test"))
    events = walk(world, 90, Inputs())
    assert world.player.position[1] == world.volume.origin[1] and world.player.grounded
    assert [e.material for e in events if isinstance(e, Landed)] == ["none"]


# ------------------------------------------------------------------------------------------- sliding
def _walk_track(world: World, yaw: float, frames: int) -> np.ndarray:
    """The player's feet after each of ``frames`` frames walking forward looking at ``yaw`` (degrees)."""
    track = []
    for _ in range(frames):
        world.step(Inputs(move=(0.0, 1.0), look=(yaw, 0.0)))
        track.append(world.player.position.copy())
    return np.array(track)


@pytest.mark.parametrize("world_of", [lambda: slope_world(70.0), lambda: step_world(2.0)],
                         ids=["steep slope", "vertical ledge"])
def test_walking_diagonally_into_a_wall_slides_along_it(world_of):
    world = world_of()  # the face rises at x = 6 m (the ledge's from z = 1 m to 7 m)
    world.player.position[2] = 1.5
    track = _walk_track(world, 270.0 - 30.0, 120)  # walking 30 degrees off +x, towards +z
    assert track[:, 0].max() < 6.0  # held at the face ...
    pressed = track[-30:]  # ... yet still moving along it in the last half second, at most at the stick's part
    along = (pressed[-1, 2] - pressed[0, 2]) / 0.5  # along the face (m/s)
    assert 0.5 * world.settings.player.walk_speed * math.sin(math.radians(30.0)) < along <= \
        world.settings.player.walk_speed * math.sin(math.radians(30.0)) + 1e-6
    assert np.ptp(pressed[:, 0]) < 0.1


def test_walking_into_the_demo_iron_block_does_not_stop_dead():
    world = World.demo(seed=0, npcs=0)
    x, _, z = world.player.position
    bx = bz = 0.55 * world.volume.shape[0] * world.volume.voxel_size  # the iron block's centre (demo_terrain)
    yaw = math.degrees(math.atan2(-(bx - x), -(bz - z))) % 360.0
    track = _walk_track(world, yaw, 240)
    moved = np.linalg.norm(np.diff(track[[-120, -1]][:, [0, 2]], axis=0))
    assert moved > 1.0  # in the last two seconds, though the block stood in the way
    assert track[-1, 2] > bz + 1.0 + world.settings.player.radius  # it slid past the block's side
