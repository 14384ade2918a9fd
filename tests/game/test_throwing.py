"""Stance, throw, flight and the thrown-material rules (issue #6, section 2)."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from voxelworld.errors import ParameterError
from voxelworld.game.actions import PunchSettings, ball_object, pull_out
from voxelworld.game.suck import SuckState
from voxelworld.game.throwing import (
    Contact,
    ImpactRules,
    Projectile,
    ThrowSettings,
    impact,
    stance,
    step_projectile,
    throw,
)
from voxelworld.terrain import Box, MaterialTable, VoxelVolume

from .test_actions import bvh_of, wall

EYE = (1.0, 3.0, 3.0)
AIM = (1.0, 0.0, 0.0)
DT = 1 / 60


def fly(projectile, volume, bvh, settings=ThrowSettings(), rules=ImpactRules(), frames=240):
    """Step until the projectile is gone; the last step."""
    for _ in range(frames):
        step = step_projectile(projectile, volume, bvh, DT, settings, rules)
        if step.projectile is None:
            return step
        projectile = step.projectile
    raise AssertionError("still flying")


def lava_pool() -> VoxelVolume:
    """A soil floor below y = 2 m with a lava pool in x, z from 2 to 6 m."""
    volume = VoxelVolume.from_sdf(lambda x, y, z: y - 2.0, (16, 10, 16), "soil", voxel_size=0.5, chunk_size=8)
    volume.paint(Box((2.0, 0.0, 2.0), (6.0, 2.5, 6.0)), "lava")
    return volume


# -------------------------------------------------------------------------------------------- stance, throw
def test_stance_needs_a_bullet_and_consumes_it():
    volume = wall("rock")
    empty = stance(SuckState(), volume, EYE, AIM)
    assert empty.bullet is None and empty.state == SuckState()
    assert [e.kind for e in empty.events] == ["stance_refused"]
    state = SuckState(bullets=("sand", "soil"))
    ready = stance(state, volume, EYE, AIM, ThrowSettings(hold_distance=0.5, bullet_radius=0.4))
    assert ready.state.bullets == ("soil",)
    assert ready.bullet.material == "sand" and ready.bullet.position == (1.5, 3.0, 3.0)
    assert ready.bullet.solid_volume() > 0 and set(np.unique(ready.bullet.volume.mat_a).tolist()) == {3}
    assert [e.kind for e in ready.events] == ["stance"]
    again = stance(ready.state, volume, EYE, AIM)
    assert again.bullet.material == "soil" and again.state.bullet_count == 0


def test_throw_launches_along_the_aim_and_gravity_bends_the_path():
    bullet = ball_object(wall("rock"), "soil", 0.3, (0, 0, 0))  # soil weighs the reference 1500 kg/m³
    thrown = throw(bullet, EYE, (0.0, 0.0, 2.0), ThrowSettings(speed=10.0, hold_distance=0.5))
    projectile = thrown.projectile
    assert projectile.object.position == (1.0, 3.0, 3.5) and projectile.object.velocity == (0.0, 0.0, 10.0)
    assert [e.kind for e in thrown.events] == ["throw"]
    for _ in range(30):  # half a second in open air
        projectile = step_projectile(projectile, wall("rock"), None, DT).projectile
    assert projectile.flight_time == pytest.approx(0.5)
    position, velocity = np.array(projectile.object.position), np.array(projectile.object.velocity)
    assert velocity[1] == pytest.approx(-9.81 * 0.5)
    assert position[2] == pytest.approx(3.5 + 5.0)
    assert position[1] == pytest.approx(3.0 - 0.5 * 9.81 * 0.25, abs=0.05)


def test_an_object_flying_too_long_is_dropped():
    bullet = ball_object(wall("rock"), "rock", 0.3, (0, 0, 0))
    projectile = throw(bullet, EYE, AIM).projectile
    step = fly(projectile, wall("rock"), None, ThrowSettings(max_flight_time=0.1))
    assert step.impact is None and [e.kind for e in step.events] == ["lost"]


# -------------------------------------------------------------------------------------------------- rules
def test_rules_follow_the_material_properties_and_overrides():
    table = MaterialTable.default()
    rules = ImpactRules()
    assert rules.rule_for("soil", "rock", table) == "attach"
    assert rules.rule_for("rock", "wood", table) == "attach"
    assert rules.rule_for("lava", "soil", table) == "explode"
    assert rules.rule_for("ice", "lava", table) == "cool"
    assert rules.rule_for("lava", "lava", table) == "nothing"
    pinned = ImpactRules(overrides=(("rock", "iron", "explode"),))
    assert pinned.rule_for("rock", "iron", table) == "explode"
    assert ImpactRules(cools_into=()).rule_for("rock", "lava", table) == "nothing"


@pytest.mark.parametrize("terrain", [m.name for m in MaterialTable.default() if m.temperature < 600.0])
def test_the_terrains_attachable_decides_whether_a_cold_object_sticks(terrain):
    table = MaterialTable.default()
    rule = ImpactRules().rule_for("rock", terrain, table)
    assert rule == ("attach" if table[terrain].attachable else "nothing")
    # The property alone decides: the same material with attachable flipped gets the other rule.
    flipped = MaterialTable([replace(m, attachable=not m.attachable) if m.name == terrain else m for m in table])
    assert ImpactRules().rule_for("rock", terrain, flipped) == ("nothing" if rule == "attach" else "attach")


def test_rock_sticks_to_iron_and_not_to_grass():
    table = MaterialTable.default()
    assert not table["grass"].attachable and table["iron"].attachable
    assert ImpactRules().rule_for("rock", "grass", table) == "nothing"
    assert ImpactRules().rule_for("rock", "iron", table) == "attach"


def test_a_heavier_material_leaves_slower_for_the_same_throw_and_lands_shorter():
    table = MaterialTable.default()
    settings = ThrowSettings(speed=12.0, reference_weight=1500.0)
    floor = VoxelVolume.from_sdf(lambda x, y, z: y - 1.0, (64, 12, 12), "rock", voxel_size=0.5, chunk_size=8)
    bvh = bvh_of(floor)
    landed = {}
    for material in ("wood", "soil", "iron"):
        bullet = ball_object(floor, material, 0.3, (0, 0, 0))
        projectile = throw(bullet, (1.0, 3.0, 3.0), (1.0, 0.5, 0.0), settings).projectile
        speed = float(np.linalg.norm(projectile.object.velocity))
        # Same kinetic energy per m³: ½ · weight · v² is the reference's ½ · 1500 · 12².
        assert 0.5 * table[material].weight * speed ** 2 == pytest.approx(0.5 * 1500.0 * 12.0 ** 2)
        step = fly(projectile, floor, bvh, settings, ImpactRules(overrides=((material, "rock", "nothing"),)))
        landed[material] = step.impact.contact.point[0]
    assert landed["wood"] > landed["soil"] > landed["iron"] + 3.0
    assert ThrowSettings().launch_speed(0.0) == 2 * ThrowSettings().speed  # weightless: at most twice as fast


def test_attach_adds_a_mound_of_the_objects_material_sticking_to_the_wall():
    volume = wall("rock")
    bvh = bvh_of(volume)
    bullet = stance(SuckState(bullets=("soil",)), volume, EYE, AIM).bullet
    step = fly(throw(bullet, EYE, AIM).projectile, volume, bvh)
    assert step.projectile is None and step.impact.rule == "attach"
    contact = np.array(step.impact.contact.point)
    assert contact[0] == pytest.approx(4.0, abs=0.05) and contact[1] < 3.0  # it fell a little on the way
    assert step.impact.contact.material == "rock"
    assert step.impact.edit.added_by_material["soil"] > 0 and step.impact.edit.volume_removed == 0
    # The mound stands out of the wall (x < 4 m) at the contact, made of soil.
    i, j, k = np.round(volume.world_to_index(contact - (0.4, 0, 0))).astype(int)
    assert volume.density[i, j, k] >= volume.iso and volume.mat_a[i, j, k] == 2
    assert [e.kind for e in step.events] == ["attach"] and step.events[0].material == "soil"


def test_a_held_piece_can_be_thrown_too():
    volume = wall("soil")
    bvh = bvh_of(volume)
    held = pull_out(volume, bvh, (2.5, 3.0, 3.0), AIM, PunchSettings()).held
    target = wall("rock")
    step = fly(throw(held, EYE, AIM).projectile, target, bvh_of(target))
    assert step.impact.rule == "attach" and step.impact.edit.added_by_material["soil"] > 0


def test_explode_removes_a_range():
    volume = wall("rock")
    bvh = bvh_of(volume)
    before = volume.solid_volume()
    bullet = ball_object(volume, "lava", 0.3, (0, 0, 0))
    step = fly(throw(bullet, EYE, AIM).projectile, volume, bvh)
    assert step.impact.rule == "explode"
    assert step.impact.edit.volume_removed > 1.0
    assert volume.solid_volume() == pytest.approx(before - step.impact.edit.volume_removed)
    assert step.events[0].kind == "explode" and step.events[0].amount == step.impact.edit.volume_removed


def test_cool_turns_lava_into_obsidian_in_a_range_only():
    volume = lava_pool()
    bvh = bvh_of(volume)
    density = volume.density.copy()
    soil_before = volume.mat_a == 2
    bullet = ball_object(volume, "rock", 0.3, (0, 0, 0))
    step = fly(throw(bullet, (4.0, 6.0, 4.0), (0.0, -1.0, 0.0)).projectile, volume, bvh)
    assert step.impact.rule == "cool" and step.impact.contact.material == "lava"
    assert np.array_equal(volume.density, density)  # density is kept
    centre = np.array(step.impact.contact.point)
    samples = volume.index_to_world(np.indices(volume.shape).transpose(1, 2, 3, 0))
    near = np.linalg.norm(samples - centre, axis=-1) <= 1.5
    assert np.all(volume.mat_a[near & ~soil_before] == 9)  # lava in range: obsidian
    assert np.all(volume.mat_a[~near & ~soil_before] == 8)  # lava outside: still lava
    assert np.array_equal(volume.mat_a == 2, soil_before)  # soil untouched
    edit = step.impact.edit
    assert edit.added_by_material["obsidian"] == pytest.approx(edit.removed_by_material["lava"])
    assert edit.removed_by_material["lava"] > 0
    assert edit.dirty_chunks and step.events[0].kind == "cool"


def test_nothing_leaves_the_terrain_as_it_was_and_the_object_is_gone():
    volume = wall("grass")
    bvh = bvh_of(volume)
    start = volume.content_hash()
    bullet = ball_object(volume, "rock", 0.3, (0, 0, 0))
    step = fly(throw(bullet, EYE, AIM).projectile, volume, bvh)
    assert step.impact.rule == "nothing" and step.projectile is None
    assert volume.content_hash() == start
    assert step.events[0].kind == "nothing"


# --------------------------------------------------------------------------------------- bad input, determinism
@pytest.mark.parametrize("call", [
    lambda v, b, p: stance(SuckState(bullets=("soil",)), v, EYE, (0, 0, 0)),
    lambda v, b, p: stance("state", v, EYE, AIM),
    lambda v, b, p: throw("bullet", EYE, AIM),
    lambda v, b, p: throw(p.object, (1, 2), AIM),
    lambda v, b, p: step_projectile(p, v, b, -DT),
    lambda v, b, p: step_projectile(p, v, "bvh", DT),
    lambda v, b, p: step_projectile(p, v, b, DT, rules="rules"),
    lambda v, b, p: impact(v, p.object, "contact"),
    lambda v, b, p: impact(v, p.object, Contact((np.nan, 0, 0), (1, 0, 0), "rock")),
])
def test_bad_input_raises_parameter_error_and_changes_nothing(call):
    volume = wall("rock")
    bvh = bvh_of(volume)
    projectile = Projectile(ball_object(volume, "soil", 0.3, (3.9, 3.0, 3.0), (5.0, 0.0, 0.0)))
    start = volume.content_hash()
    with pytest.raises(ParameterError):
        call(volume, bvh, projectile)
    assert volume.content_hash() == start


@pytest.mark.parametrize("make", [
    lambda: ImpactRules(overrides=(("rock", "iron", "melt"),)), lambda: ImpactRules(overrides=("rock",)),
    lambda: ImpactRules(explode_radius=0), lambda: ImpactRules(explode_tool=None),
    lambda: ThrowSettings(speed=-1), lambda: ThrowSettings(max_flight_time=0),
    lambda: ThrowSettings(reference_weight=0), lambda: ThrowSettings().launch_speed(-1.0),
])
def test_settings_are_validated(make):
    with pytest.raises(ParameterError):
        make()


def test_flight_and_impacts_are_deterministic():
    def run():
        volume = wall("rock")
        volume.paint(Box((4.0, 0.0, 0.0), (8.0, 2.0, 6.0)), "lava")
        bvh = bvh_of(volume)
        log = []
        for material, aim in (("soil", (1.0, 0.1, 0.0)), ("lava", (1.0, 0.0, 0.3)), ("rock", (1.0, -0.4, 0.0))):
            bullet = ball_object(volume, material, 0.3, (0, 0, 0))
            log.append(fly(throw(bullet, EYE, aim).projectile, volume, bvh).events)
        return volume.content_hash(), log

    first, second = run(), run()
    assert first == second
    assert [events[0].kind for events in first[1]] == ["attach", "explode", "cool"]
