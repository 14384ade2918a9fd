"""The use button inside a World: picking up a punched fragment (then thrown like a pulled-out piece) and opening
an exposed treasure, which pays its material's rewards into the player's stamina and currency."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from voxelworld.errors import ParameterError
from voxelworld.game.deformation import Treasure
from voxelworld.game.events import ActionEnded, ActionOutcome, PickedUp, TreasureOpened
from voxelworld.game.play import ActionSettings
from voxelworld.game.player import PlayerSettings, view_direction
from voxelworld.game.use import exposed, in_reach, treasure_reward
from voxelworld.game.world import Inputs, World, WorldSettings
from voxelworld.terrain import Box, MaterialTable, Sphere, Tool, VoxelVolume

from .test_play import FLOOR, LOOK, arena, of, press

BURIED = (8.75, 5.5, 4.0)  # a voxel sample 0.75 m inside the wall of the arena (face at x = 8 m)


def look_at(world: World, target) -> tuple[float, float]:
    """The (yaw, pitch) in degrees that aims from the player's eye at ``target``."""
    d = np.asarray(target, dtype=float) - world.player.eye
    yaw = np.degrees(np.arctan2(-d[0], -d[2])) % 360.0
    pitch = np.degrees(np.arctan2(d[1], np.hypot(d[0], d[2])))
    assert np.allclose(view_direction(yaw, pitch), d / np.linalg.norm(d))
    return (float(yaw), float(pitch))


def resting_fragments(wall="soil"):
    """An arena whose player punched its wall and waited until the fragments rest."""
    world = arena(wall, spawn_x=6.5)
    press(world, punch=True, frames_after=90)
    fragments = [o for o in world.actions.objects if o.kind == "fragment"]
    assert fragments and all(o.resting for o in fragments)
    return world, fragments


# ------------------------------------------------------------------------------------------------- pick up
def test_use_picks_up_the_fragment_looked_at_and_it_is_held_and_thrown_like_a_pulled_out_piece():
    world, fragments = resting_fragments("soil")
    near = min(fragments, key=lambda o: np.linalg.norm(np.asarray(o.object.position) - world.player.eye))
    look = look_at(world, near.object.position)
    events = press(world, use=True, look=look, frames_after=0)
    assert of(events, PickedUp, name=near.name, material="soil", position=near.object.position)
    assert of(events, ActionEnded, action="use", outcome="picked_up")
    held = world.actions.held
    assert held.name == near.name and held.kind == "held" and held.object.material == "soil"
    assert near.name not in [o.name for o in world.actions.objects]
    # It follows the view like a pulled-out piece and outlives the fragments' lifetime.
    for _ in range(int(world.settings.actions.fragment_lifetime * 60) + 10):
        world.step(Inputs(look=LOOK))
    assert world.actions.held.name == near.name
    assert np.allclose(held.object.volume.density, world.actions.held.object.volume.density)
    eye, aim = world.player.eye, world.player.aim
    assert np.allclose(world.actions.held.object.position, eye + aim * world.settings.actions.throw.hold_distance)
    thrown = press(world, throw=True, frames_after=40)
    assert of(thrown, ActionOutcome, kind="throw", material="soil") and world.actions.held is None
    # Soil on the arena's soil wall: soil is not attachable, so the piece does nothing there.
    assert of(thrown, ActionOutcome, kind="nothing", material="soil", item="soil")


def test_use_with_full_hands_or_nothing_in_reach_picks_up_nothing():
    world, fragments = resting_fragments("soil")
    target = fragments[0]
    look = look_at(world, target.object.position)
    away = press(world, use=True, look=(90.0, 0.0))  # looking back, away from every fragment
    assert of(away, ActionEnded, action="use", outcome="nothing_in_reach") and world.actions.held is None
    world.actions.held = replace(target, name="other", kind="held")
    full = press(world, use=True, look=look)
    assert of(full, ActionEnded, action="use", outcome="hands_full") and not of(full, PickedUp)
    assert target.name in [o.name for o in world.actions.objects]


def test_fragments_out_of_reach_are_not_picked_up():
    world, fragments = resting_fragments("soil")
    target = fragments[0]
    look = look_at(world, target.object.position)
    distance = float(np.linalg.norm(np.asarray(target.object.position) - world.player.eye))
    world.actions.settings = replace(world.actions.settings, use_reach=distance - 0.01)
    world.actions.objects = [target]
    events = press(world, use=True, look=look)
    assert of(events, ActionEnded, action="use", outcome="nothing_in_reach") and world.actions.held is None


# ------------------------------------------------------------------------------------------------ treasure
def treasure_world(wall: str) -> World:
    """The arena with a ``wall`` of that material, the player 1.5 m from it, no stamina regeneration, half its
    stamina, and one treasure buried at BURIED."""
    volume = VoxelVolume.from_sdf(lambda x, y, z: y - FLOOR, (64, 40, 32), "soil", voxel_size=0.25, chunk_size=16)
    volume.add(Box((8.0, 0.0, 0.0), (10.0, 9.0, 8.0)), wall)
    world = World(volume, settings=WorldSettings(player=PlayerSettings(regeneration=0.0)), spawn=(6.5, FLOOR, 4.0),
                  spawn_yaw=270.0)
    world.player.stamina = 50.0
    world.actions.deformation = replace(world.actions.deformation, treasures=(Treasure("treasure", BURIED, 0.9),))
    world.step(Inputs(look=LOOK))
    return world


def dig_to_the_treasure(world: World) -> None:
    """Open the voxels in front of the treasure (a tool that cuts everything), as digging would."""
    world.volume.remove(Sphere((8.25, BURIED[1], BURIED[2]), 0.5), Tool(gives_way_below=100.0, unbreakable_from=100.0))
    world.step(Inputs(look=LOOK))


@pytest.mark.parametrize("wall", ["iron", "soil", "rock_interior"])
def test_an_exposed_treasure_opens_once_and_pays_its_materials_rewards(wall):
    world = treasure_world(wall)
    material = MaterialTable.default()[wall]
    look = look_at(world, BURIED)
    assert world.snapshot().objects[-1].name == "treasure-0"
    buried = press(world, use=True, look=look)
    assert of(buried, ActionEnded, action="use", outcome="buried")  # still buried: it cannot open
    assert world.player.currency == 0.0 and world.player.stamina == 50.0
    dig_to_the_treasure(world)
    events = press(world, use=True, look=look)
    opened = of(events, TreasureOpened, name="treasure-0", position=BURIED)
    assert len(opened) == 1 and opened[0].material == wall
    assert (opened[0].stamina, opened[0].currency) == (material.stamina_reward, material.currency_reward)
    assert of(events, ActionEnded, action="use", outcome="opened")
    assert world.player.currency == material.currency_reward
    assert world.player.stamina == 50.0 + material.stamina_reward
    snapshot = world.snapshot()  # what a renderer's HUD reads
    assert (snapshot.player_currency, snapshot.player_stamina) == (world.player.currency, world.player.stamina)
    assert world.actions.opened_treasures == (0,)
    assert "treasure-0" not in [o.name for o in world.snapshot().objects]
    again = press(world, use=True, look=look)
    assert not of(again, TreasureOpened) and world.player.currency == material.currency_reward


def test_the_default_table_pays_something_for_treasure_in_the_ground_and_the_rock():
    table = MaterialTable.default()
    assert table["soil"].stamina_reward > 0 and table["rock"].currency_reward > 0
    assert table["iron"].currency_reward > table["rock"].currency_reward


def test_the_treasure_pays_the_material_of_its_voxel_even_once_dug_away():
    volume = VoxelVolume.from_sdf(lambda x, y, z: y - 2.0, (12, 12, 12), "soil", voxel_size=0.5)
    volume.paint(Sphere((3.0, 1.0, 3.0), 0.3), "iron")
    assert not exposed(volume, (3.0, 1.0, 3.0))
    assert treasure_reward(volume, (3.0, 1.0, 3.0)).material == "iron"
    volume.remove(Sphere((3.0, 1.0, 3.0), 0.3), Tool(gives_way_below=100.0, unbreakable_from=100.0))
    assert exposed(volume, (3.0, 1.0, 3.0))
    reward = treasure_reward(volume, (3.0, 1.0, 3.0))
    assert (reward.material, reward.currency) == ("iron", 10.0)
    assert treasure_reward(volume, (30.0, 1.0, 3.0)).material == "none"  # outside the volume


def test_in_reach_is_a_cone_around_the_aim_within_the_reach():
    eye, aim = (0.0, 0.0, 0.0), (1.0, 0.0, 0.0)
    assert in_reach(eye, aim, (2.0, 0.0, 0.0), 2.5, 30.0)
    assert not in_reach(eye, aim, (2.6, 0.0, 0.0), 2.5, 30.0)
    assert in_reach(eye, aim, (2.0, 1.1, 0.0), 2.5, 30.0)  # 28.8 degrees off
    assert not in_reach(eye, aim, (2.0, 1.2, 0.0), 2.5, 30.0)  # 31.0 degrees off
    assert not in_reach(eye, aim, (-1.0, 0.0, 0.0), 2.5, 30.0)


@pytest.mark.parametrize("make", [lambda: ActionSettings(use_reach=0.0), lambda: ActionSettings(use_angle=91.0),
                                  lambda: Inputs(use=1), lambda: in_reach((0, 0, 0), (0, 0, 0), (1, 0, 0), 1, 30),
                                  lambda: in_reach((0, 0, 0), (1, 0, 0), (1, 0, 0), -1, 30),
                                  lambda: in_reach((0, 0, 0), (1, 0, 0), (1, 0, 0), 1, float("nan"))])
def test_bad_use_settings_and_inputs_are_refused(make):
    with pytest.raises(ParameterError):
        make()


def test_use_is_deterministic():
    def run():
        world = treasure_world("iron")
        look = look_at(world, BURIED)
        dig_to_the_treasure(world)
        press(world, use=True, look=look)
        press(world, punch=True, look=(270.0, -50.0), frames_after=60)  # the soil floor
        world.actions.settings = replace(world.actions.settings, use_reach=3.5)  # the fragments lie in the hole
        fragment = min(world.actions.objects, key=lambda o: np.linalg.norm(o.object.position - world.player.eye))
        press(world, use=True, look=look_at(world, fragment.object.position))
        return world.event_log_hash(), world.player.currency, world.actions.held.name

    first = run()
    assert first == run() and first[1] == 10.0
