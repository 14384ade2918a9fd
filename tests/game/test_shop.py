"""Currency buys something (issue 32, section 5): tool upgrades bought through the inputs change the player's
punch and suck as the table says, refused without the currency; the world's goals tick off as they happen; the
player's progress is saved and loaded with the world, and a file from before it loads with none."""

from __future__ import annotations

import json
from dataclasses import replace

import numpy as np
import pytest

from voxelworld.errors import FormatError, ParameterError
from voxelworld.game.actions import ball_object
from voxelworld.game.deformation import Treasure
from voxelworld.game.events import ActionBlocked, GoalReached, TreasureOpened, UpgradeBought, VoxelsEdited
from voxelworld.game.objects import WorldObject
from voxelworld.game.play import ActionSettings
from voxelworld.game.progress import DEMO_GOALS, UPGRADES, Progress, upgraded_settings
from voxelworld.game.world import Inputs, World
from voxelworld.io import load_world, save_world
from voxelworld.terrain import Sphere, Tool

from ..io.forge import set_in_state, state_row, write_state_text
from .test_play import LOOK, arena, of, press
from .test_use import BURIED, look_at, treasure_world

CUTS_ALL = Tool(gives_way_below=100.0, unbreakable_from=100.0)


def bought(world: World, name: str, currency: float) -> list:
    """Give the player ``currency`` and buy ``name`` in one frame; that frame's events."""
    world.player.add_currency(currency)
    return world.step(Inputs(look=LOOK, buy=name))


def damage_after_a_punch(world: World) -> int:
    press(world, punch=True)
    return int(world.volume.damage.max())


# ----------------------------------------------------------------------------------------------- upgrades
def test_buying_punch_damage_takes_its_price_and_the_punch_damages_rock_half_as_much_again():
    plain, upgraded = arena("rock"), arena("rock")
    events = bought(upgraded, "punch_damage", 5.0)
    assert of(events, UpgradeBought, upgrade="punch_damage", level=1, cost=2.0, currency=3.0)
    assert upgraded.player.currency == 3.0 and upgraded.player.progress.level("punch_damage") == 1
    tool, base = upgraded.actions.settings.punch.tool, plain.actions.settings.punch.tool
    assert (base.damage, tool.damage) == (25, 38)  # +50% a level, as UPGRADES says
    assert upgraded.actions.settings.pull_out.tool.damage == 38 and upgraded.actions.base_settings == ActionSettings()
    before, after = damage_after_a_punch(plain), damage_after_a_punch(upgraded)
    assert before > 0 and after > before  # rock takes damage before it gives way: more of it a punch
    assert after / before == pytest.approx(38 / 25, rel=0.1)


def test_buying_suck_reach_lets_suck_reach_a_wall_it_could_not_and_lengthens_the_gauge():
    def suck_at_the_wall(world: World) -> list:
        return [e for _ in range(6) for e in world.step(Inputs(look=LOOK, suck=True))]
    plain, upgraded = arena("soil", spawn_x=1.5), arena("soil", spawn_x=1.5)  # the wall 6.5 m from the eye
    bought(upgraded, "suck_reach", 2.0)
    assert upgraded.actions.settings.suck.reach == plain.actions.settings.suck.reach + 1.0 == 7.0
    assert upgraded.actions.settings.suck.time_limit == plain.actions.settings.suck.time_limit + 1.0
    assert of(suck_at_the_wall(plain), ActionBlocked, action="suck", reason="out_of_reach")
    sucked = suck_at_the_wall(upgraded)
    assert of(sucked, VoxelsEdited, source="suck") and not of(sucked, ActionBlocked, reason="out_of_reach")


def test_the_breaker_lets_punches_break_iron_that_never_gave_way():
    def punch_iron(world: World) -> list:
        return [e for _ in range(8) for e in press(world, punch=True, frames_after=1)]
    plain, upgraded = arena("iron"), arena("iron")
    iron = plain.volume.solid_volume_by_material()["iron"]
    bought(upgraded, "breaker", 10.0)
    assert upgraded.player.currency == 0.0
    assert of(punch_iron(plain), ActionBlocked, reason="too_hard")
    assert plain.volume.solid_volume_by_material()["iron"] == iron
    punch_iron(upgraded)
    assert upgraded.volume.solid_volume_by_material()["iron"] < iron


def test_a_purchase_without_the_currency_or_past_the_last_level_is_refused_and_changes_nothing():
    world = arena("rock")
    events = bought(world, "punch_damage", 1.0)
    assert of(events, ActionBlocked, action="buy", reason="not_enough_currency") and not of(events, UpgradeBought)
    assert "costs 2" in of(events, ActionBlocked, action="buy")[0].text
    assert world.player.currency == 1.0 and world.player.progress == Progress()
    assert world.actions.settings == world.actions.base_settings
    bought(world, "breaker", 19.0)  # 20: the breaker (10), then it is at its only level
    again = bought(world, "breaker", 0.0)
    assert of(again, ActionBlocked, action="buy", reason="maxed") and world.player.currency == 10.0
    # Each level costs more: the levels of punch_damage take 2, 4 and 8.
    world.player.add_currency(4.0)  # 14
    for _ in range(4):
        world.step(Inputs(look=LOOK, buy="punch_damage"))
    assert world.player.progress.level("punch_damage") == 3 and world.player.currency == 0.0


def test_buy_names_an_upgrade_of_the_table():
    with pytest.raises(ParameterError, match="buy.*punch_damage, suck_reach, breaker"):
        Inputs(buy="rocket")
    assert [u.name for u in UPGRADES] == ["punch_damage", "suck_reach", "breaker"]
    with pytest.raises(ParameterError, match="upgrades\\[0\\]\\[1\\]"):
        Progress(upgrades=(("breaker", 2),))
    with pytest.raises(ParameterError, match="upgrades"):
        upgraded_settings(ActionSettings(), {"rocket": 1})


# -------------------------------------------------------------------------------------------------- goals
def three_treasures() -> World:
    """The treasure arena with three treasures side by side in the wall, dug to."""
    world = treasure_world("rock")
    spots = tuple((BURIED[0], BURIED[1], BURIED[2] + dz) for dz in (-0.25, 0.0, 0.25))
    world.actions.deformation = replace(world.actions.deformation,
                                        treasures=tuple(Treasure("treasure", p, 0.9) for p in spots))
    world.volume.remove(Sphere((8.25, BURIED[1], BURIED[2]), 0.75), CUTS_ALL)
    world.step(Inputs(look=LOOK))
    return world


def test_opening_the_third_treasure_reaches_the_treasure_goal():
    world = three_treasures()
    look = look_at(world, BURIED)
    log = []
    for n in range(3):
        events = press(world, use=True, look=look)
        assert len(of(events, TreasureOpened)) == 1
        assert bool(of(events, GoalReached, goal="open_treasures")) == (n == 2)
        log += events
    goal = of(log, GoalReached)
    assert [(g.goal, g.text, g.reached, g.goals) for g in goal] == [("open_treasures", "open three treasures", 1, 3)]
    assert world.player.progress.goals == ("open_treasures",)
    assert not of(press(world, frames_after=5), GoalReached)  # once


def test_touching_the_iron_reaches_the_iron_goal():
    world = arena("iron", spawn_x=7.0)
    assert not of(press(world, frames_after=5), GoalReached)
    log = [e for _ in range(60) for e in world.step(Inputs(look=LOOK, move=(0.0, 1.0)))]  # walk into the iron
    assert "iron" in world.player.touching
    assert [g.goal for g in of(log, GoalReached)] == ["reach_iron"]
    assert world.player.progress.goals == ("reach_iron",)


def test_a_thrown_rock_cooling_the_lava_reaches_the_lava_goal():
    world = arena("lava", spawn_x=4.0)
    world.actions.held = WorldObject("ball", "bullet", ball_object(world.volume, "rock", 0.3, (0.0, 0.0, 0.0)))
    log = press(world, throw=True, frames_after=40)
    assert [g.goal for g in of(log, GoalReached)] == ["cool_lava"]
    assert world.player.progress.goals == ("cool_lava",) and world.settings.goals == DEMO_GOALS


# ------------------------------------------------------------------------------------------ save and load
def test_the_players_progress_survives_saving_and_loading(tmp_path):
    world = World.demo(seed=0, npcs=0)
    world.player.add_currency(12.0)
    world.step(Inputs(buy="suck_reach"))
    world.step(Inputs(buy="breaker"))
    world.player.progress = replace(world.player.progress, goals=("reach_iron",))
    path = tmp_path / "world.vxw"
    save_world(world, path)
    loaded = load_world(path)
    assert loaded.player.progress == Progress(upgrades=(("suck_reach", 1), ("breaker", 1)), goals=("reach_iron",))
    assert loaded.player.currency == 0.0
    assert loaded.actions.settings == world.actions.settings != loaded.actions.base_settings
    assert loaded.actions.settings.suck.reach == 7.0


def test_a_world_file_from_before_progress_loads_with_none_and_a_bad_level_is_refused(tmp_path):
    world = World.demo(seed=0, npcs=0)
    world.player.add_currency(3.0)
    world.step(Inputs(buy="punch_damage"))
    path = tmp_path / "world.vxw"
    save_world(world, path)
    row = state_row(path, "player")
    set_in_state(path, "player", ["progress", "upgrades", 0, 1], 7)  # punch_damage has 3 levels
    with pytest.raises(FormatError, match=r"player.progress.*upgrades\[0\]\[1\] = 7 .*\[1, 3\]"):
        load_world(path)
    del row["progress"]
    settings = state_row(path, "settings")
    write_state_text(path, "player", json.dumps(row, separators=(",", ":")))
    older = load_world(path)
    assert older.player.progress == Progress() and older.player.currency == 1.0
    assert older.actions.settings == older.actions.base_settings
    assert np.isclose(older.player.stamina, world.player.stamina)
    assert "goals" in json.dumps(settings)  # a file of today keeps the goals with the settings
