"""The player's actions inside a World: punch, pull-out, suck and bullets, stance, throw and the impact rules,
treasure and awards, each through World.step and its frame stages."""

from __future__ import annotations

import numpy as np
import pytest

from voxelworld.game.actions import PunchSettings, ball_object
from voxelworld.game.deformation import AwardSettings, TreasureSettings
from voxelworld.game.events import ActionEnded, ActionOutcome, ActionStarted, ItemPlaced, VoxelsEdited
from voxelworld.game.objects import WorldObject
from voxelworld.game.play import ActionSettings
from voxelworld.game.suck import SuckSettings, SuckState
from voxelworld.game.world import Inputs, World, WorldSettings
from voxelworld.terrain import Box, Tool, VoxelVolume

from .test_actions import density_fall_by_material

FLOOR = 4.0
LOOK = (270.0, 0.0)  # along +x, level
STRIKE_FRAMES = 120  # a punch into iron plays out in under a second


def arena(wall="rock", settings: ActionSettings = ActionSettings(), spawn_x=6.0) -> World:
    """Flat soil at y = 4 m, a wall of ``wall`` from x = 8 m to 10 m; the player at x = ``spawn_x``, z = 4 m."""
    volume = VoxelVolume.from_sdf(lambda x, y, z: y - FLOOR, (64, 40, 32), "soil", voxel_size=0.25, chunk_size=16)
    volume.add(Box((8.0, 0.0, 0.0), (10.0, 9.0, 8.0)), wall)
    return World(volume, None, settings=WorldSettings(actions=settings), spawn=(spawn_x, FLOOR, 4.0),
                 spawn_yaw=270.0)


def press(world: World, frames_after: int = 2, **buttons) -> list:
    """Press the buttons for one frame (looking along LOOK unless given), then release until the punch or
    pull-out it started has played out (game.strike), then for ``frames_after`` frames more."""
    look = buttons.pop("look", LOOK)
    events = world.step(Inputs(look=look, **buttons))
    for _ in range(STRIKE_FRAMES):
        if not world.actions.strike.busy:
            break
        events += world.step(Inputs(look=look))
    for _ in range(frames_after):
        events += world.step(Inputs(look=look))
    return events


def of(events, kind_type, **values):
    return [e for e in events if isinstance(e, kind_type) and all(getattr(e, k) == v for k, v in values.items())]


# ------------------------------------------------------------------------------------------------------ punch
def test_punch_lands_at_its_contact_frame_is_applied_next_frame_and_scatters_fragments_that_fall_and_rest():
    world = arena("soil")
    before = world.volume.solid_volume()
    first = world.step(Inputs(look=LOOK, punch=True))
    assert of(first, ActionStarted, action="punch") and not of(first, VoxelsEdited)
    frames = 0
    while not world.actions.strike.struck:  # the fist on its way: nothing changes until it strikes
        assert world.volume.solid_volume() == before and frames < 30
        assert not of(world.step(Inputs(look=LOOK)), VoxelsEdited)
        frames += 1
    assert frames >= 5  # the wind-up and the thrust take a few frames (0.1 s of the 0.5 s punch at least)
    assert world.volume.solid_volume() == before  # the contact frame queues the edit
    second = world.step(Inputs(look=LOOK))
    edits = of(second, VoxelsEdited, source="punch")
    assert len(edits) == 1 and edits[0].volume_removed > 0.1
    assert world.volume.solid_volume() == pytest.approx(before - edits[0].volume_removed)
    outcome = of(second, ActionOutcome, kind="punch")[0]
    assert outcome.material == "soil" and outcome.amount == edits[0].volume_removed
    assert of(second, ActionEnded, action="punch", outcome="done")
    fragments = [o for o in world.actions.objects if o.kind == "fragment"]
    assert fragments and {f.object.material for f in fragments} == {"soil"}
    assert len({f.name for f in fragments}) == len(fragments)
    kinds = {o.kind for o in world.snapshot().objects}
    assert "fragment" in kinds
    for _ in range(90):
        world.step(Inputs(look=LOOK))
    assert all(o.resting for o in world.actions.objects)  # they fell onto the floor and lie there
    assert all(o.object.position[1] > FLOOR - 1.0 for o in world.actions.objects)
    for _ in range(int(world.settings.actions.fragment_lifetime * 60)):
        world.step(Inputs(look=LOOK))
    assert world.actions.objects == []  # gone after their lifetime


def test_punch_into_rock_only_damages_it_first_and_a_miss_says_so():
    world = arena("rock")
    events = press(world, punch=True)
    edit = of(events, VoxelsEdited, source="punch")[0]
    assert edit.volume_removed == 0 and edit.voxels_damaged > 0
    assert of(events, ActionEnded, action="punch", outcome="blocked")
    assert world.actions.objects == []
    events = press(world, punch=True, look=(90.0, 0.0))  # facing away: nothing within reach
    assert of(events, ActionEnded, action="punch", outcome="missed") and not of(events, VoxelsEdited)


# --------------------------------------------------------------------------------------------------- pull-out
def test_pull_out_holds_the_highest_priority_material_so_never_lava_over_rock():
    world = arena("rock", ActionSettings(pull_out=PunchSettings(radius=0.75, tool=_breaking_tool())))
    world.volume.paint(Box((8.0, 5.5, 0.0), (10.0, 9.0, 8.0)), "lava")  # lava above y = 5.5 m, rock below
    world.step(Inputs(look=(270.0, -2.0)))
    assert world.aim_info().material == "lava"
    events = press(world, pull_out=True, look=(270.0, -2.0))  # at the lava, 0.5 m above the rock
    edit = of(events, VoxelsEdited, source="pull_out")[0]
    assert edit.volume_removed > 0 and edit.material == "lava"  # lava fell most, yet the piece is rock
    held = world.actions.held
    assert held is not None and held.kind == "held"
    assert world.materials["lava"].fragment_priority < world.materials["rock"].fragment_priority
    assert held.object.material == "rock"
    assert of(events, ActionOutcome, kind="pull_out")[0].material == "rock"
    again = press(world, pull_out=True)
    assert of(again, ActionEnded, action="pull_out", outcome="hands_full")


def _breaking_tool():
    return Tool(damage=255)


# ------------------------------------------------------------------------------------------------------- suck
def test_suck_scrapes_the_surface_exposes_the_interior_and_makes_a_bullet_every_five_updates():
    settings = ActionSettings(suck=SuckSettings(radius=0.6, material_radius=1.0, step=24, time_limit=10.0))
    volume = VoxelVolume.from_sdf(lambda x, y, z: y - FLOOR, (64, 40, 32), "soil", voxel_size=0.25, chunk_size=16)
    volume.add(Box((8.0, 0.0, 0.0), (10.0, 9.0, 8.0)), "sand")
    volume.paint(Box((7.5, 0.0, 0.0), (8.3, 9.0, 8.0)), "grass")  # a grass skin (interior soil) on sand
    world = World(volume, None, settings=WorldSettings(actions=settings), spawn=(6.0, FLOOR, 4.0), spawn_yaw=270.0)
    table = world.materials
    grass = table.id_of("grass")
    interior = table.interior_by_id
    fields = ("density", "mat_a", "mat_b", "mix")
    seen = {"fall": {}, "exposed": 0}

    def keep(w, inputs):  # the voxels before this frame's updates, and after its density updates
        seen[w.stage] = {name: getattr(w.volume, name).copy() for name in fields}

    def density_fell(w, inputs):
        keep(w, inputs)
        seen["fall"][w.frame] = density_fell_by = density_fall_by_material(w.volume, seen["update_ranges"])
        assert not density_fell_by or {e.kind for e, _ in w.applied_edits} == {"scrape"}

    def interiors_exposed(w, inputs):  # what the material range did, read off the voxels
        before = seen["density_updates"]
        grid = w.volume.index_to_world(np.indices(w.volume.shape).transpose(1, 2, 3, 0))
        inside = np.zeros(w.volume.shape, dtype=bool)
        edge = np.zeros(w.volume.shape, dtype=bool)
        for edit in w.update_ranges:
            if edit.kind == "expose_interior":
                distance = edit.shape.sdf(grid)
                inside |= distance < -1e-6
                edge |= np.abs(distance) <= 1e-6
        for slot in ("mat_a", "mat_b"):
            now, then = getattr(w.volume, slot), before[slot]
            assert np.array_equal(now[inside], interior[then[inside]])  # inside the range: the interior
            assert np.array_equal(now[~inside & ~edge], then[~inside & ~edge])  # outside: as it was
        seen["exposed"] += int(np.count_nonzero(inside & (before["mat_a"] == grass)))

    world.add_handler(keep, "update_ranges")
    world.add_handler(density_fell, "density_updates")
    world.add_handler(interiors_exposed, "material_updates")
    world.step(Inputs(look=LOOK))
    log = []
    for _ in range(40):
        log += world.step(Inputs(look=LOOK, suck=True))
    log += world.step(Inputs(look=LOOK))  # the last held frame is applied, and the release ends suck
    # The material ranges turned grass voxels at the rim into soil, which the next scrapes then peel.
    assert seen["exposed"] > 0
    # An update is a frame whose scrape lowered density; every fifth gives a bullet of the material whose
    # density fell most in it (the lowest id on a tie), counted from the voxels.
    update_frames = [frame for frame in sorted(seen["fall"]) if seen["fall"][frame]]
    bullet_frames = update_frames[4::5]
    expected = tuple(table.name_by_id[max(sorted(seen["fall"][f].items()), key=lambda item: item[1])[0]]
                     for f in bullet_frames)
    assert len(update_frames) >= 25 and {"soil", "sand"} <= set(expected)
    assert world.actions.suck.bullets == expected
    bullets = of(log, ActionOutcome, kind="bullet")
    assert [(b.frame, b.material) for b in bullets] == list(zip(bullet_frames, expected))
    assert [u.frame for u in of(log, ActionOutcome, kind="suck")] == update_frames
    # Surface only: the scrape peels exposed voxels.
    scrapes = of(log, VoxelsEdited, kind="scrape")
    assert all(e.source == "suck" for e in scrapes)
    assert of(log, ActionStarted, action="suck")
    assert of(log, ActionEnded, action="suck", outcome="released")
    assert world.actions.suck.updates == 0 and world.actions.suck.bullets  # the count resets, bullets stay


def test_suck_edits_apply_in_the_issue_order_density_then_material_then_fragments():
    world = arena("soil")
    world.step(Inputs(look=LOOK, suck=True))
    world.step(Inputs(look=LOOK, suck=True))
    kinds = [edit.kind for edit, _ in world.applied_edits]
    assert kinds == ["scrape", "expose_interior", "remove_fragments"]


def test_the_suck_gauge_runs_out_after_the_time_limit():
    # A slow scrape, so that the wall in front is not bored through (out of reach, the gauge would wait).
    world = arena("soil", ActionSettings(suck=SuckSettings(time_limit=0.5, radius=0.5, material_radius=0.5, step=4)))
    log = []
    for _ in range(45):
        log += world.step(Inputs(look=LOOK, suck=True))
    assert of(log, ActionEnded, action="suck", outcome="time_limit")
    assert world.actions.suck.exhausted and world.actions.suck.gauge == 0.0
    later = [world.step(Inputs(look=LOOK, suck=True)) for _ in range(5)]
    assert not any(of(events, VoxelsEdited, source="suck") for events in later[1:])


def test_suck_scrapes_for_the_time_limit_exactly_and_every_scrape_is_counted():
    # The buttons are read before the bookkeeping: the frame after the gauge empties must queue nothing, and
    # every frame that scraped must count towards the awards.
    world = arena("soil", ActionSettings(suck=SuckSettings(time_limit=0.5, radius=0.5, material_radius=0.5, step=4)))
    log = []
    for _ in range(45):
        log += world.step(Inputs(look=LOOK, suck=True))
    scrapes = of(log, VoxelsEdited, source="suck", kind="scrape")
    assert len(scrapes) == 30  # 0.5 s of 1/60 s frames
    removed = sum(e.volume_removed for e in of(log, VoxelsEdited, source="suck"))
    assert removed > 0 and sum(world.achievements().values()) == pytest.approx(removed, rel=1e-12)


# --------------------------------------------------------------------------------------------- stance, throw
def test_stance_needs_a_bullet_and_consumes_it_then_throw_launches_it():
    world = arena("rock")
    refused = press(world, stance=True)
    assert of(refused, ActionEnded, action="stance", outcome="no_bullet") and world.actions.held is None
    world.actions.suck = SuckState(bullets=("soil", "sand"))
    events = press(world, stance=True)
    assert of(events, ActionEnded, action="stance", outcome="done")
    assert world.actions.suck.bullets == ("sand",)
    held = world.actions.held
    assert held.kind == "bullet" and held.object.material == "soil"
    eye, aim = world.player.eye, world.player.aim
    assert np.allclose(held.object.position, eye + aim * world.settings.actions.throw.hold_distance)
    thrown = press(world, throw=True, frames_after=1)
    assert of(thrown, ActionOutcome, kind="throw") and world.actions.held is None
    assert [o.kind for o in world.actions.objects] == ["projectile"]
    nothing = press(world, throw=True)
    assert of(nothing, ActionEnded, action="throw", outcome="nothing_held")


@pytest.mark.parametrize("thrown, terrain, rule", [("soil", "rock", "attach"), ("lava", "rock", "explode"),
                                                   ("rock", "lava", "cool"), ("rock", "iron", "attach"),
                                                   ("rock", "grass", "nothing")])
def test_a_thrown_object_meets_the_wall_by_its_pair_of_materials(thrown, terrain, rule):
    world = arena(terrain, spawn_x=4.0)
    before = world.volume.content_hash()
    solid = world.volume.solid_volume_by_material()
    world.actions.held = WorldObject("ball", "bullet", ball_object(world.volume, thrown, 0.3, (0.0, 0.0, 0.0)))
    log = press(world, throw=True, frames_after=40)
    outcome = [e for e in of(log, ActionOutcome) if e.kind in ("attach", "explode", "cool", "nothing")]
    assert [e.kind for e in outcome] == [rule]
    assert outcome[0].material == thrown and outcome[0].item == terrain
    assert outcome[0].position[0] == pytest.approx(8.0, abs=0.3)  # at the wall's face
    assert world.actions.objects == []  # the object is removed
    after = world.volume.solid_volume_by_material()
    if rule == "attach":
        assert after[thrown] > solid.get(thrown, 0.0)
    elif rule == "explode":
        assert after[terrain] < solid[terrain]
    elif rule == "cool":
        assert after.get("obsidian", 0.0) > 0 and after["lava"] < solid["lava"]
    else:
        assert world.volume.content_hash() == before


# ------------------------------------------------------------------------------------------ treasure, awards
@pytest.mark.parametrize("counts", [True, False])
def test_a_thrown_lava_bullets_explosion_counts_toward_awards_and_treasure_unless_switched_off(counts):
    settings = WorldSettings(thrown_deformation_counts=counts)
    volume = VoxelVolume.from_sdf(lambda x, y, z: y - FLOOR, (64, 40, 32), "soil", voxel_size=0.25, chunk_size=16)
    volume.add(Box((8.0, 0.0, 0.0), (10.0, 9.0, 8.0)), "rock")
    world = World(volume, None, settings=settings, spawn=(4.0, FLOOR, 4.0), spawn_yaw=270.0)
    groups = world.materials.group_by_id

    def solid_by_group() -> dict[str, float]:
        totals: dict[str, float] = {}
        for name, amount in world.volume.solid_volume_by_material().items():
            group = str(groups[world.materials.id_of(name)])
            totals[group] = totals.get(group, 0.0) + amount
        return totals

    world.actions.suck = SuckState(bullets=("lava",))
    press(world, stance=True)
    before, since, awarded = solid_by_group(), world.actions.deformation.since_treasure, world.achievements()
    log = press(world, throw=True, frames_after=40)
    assert [e.kind for e in of(log, ActionOutcome) if e.kind in ("attach", "explode", "cool", "nothing")] == [
        "explode"]
    after = solid_by_group()
    lost = {group: before[group] - after.get(group, 0.0) for group in before if before[group] > after.get(group, 0.0)}
    assert "rock" in lost and sum(lost.values()) > 1.0  # the blast took rock out of the wall (and soil below it)
    if counts:  # the award total of each group grows by what the blast removed from it, as do the counters
        for group, amount in lost.items():
            assert world.achievements()[group] == pytest.approx(awarded.get(group, 0.0) + amount)
        assert world.actions.deformation.since_treasure == pytest.approx(since + sum(lost.values()))
    else:
        assert world.achievements() == awarded and world.actions.deformation.since_treasure == since


def test_removal_places_a_buried_treasure_behind_the_spot_and_grants_group_awards():
    # Punches of 2.5 m reach: the later ones miss instead of digging the treasure out again.
    settings = ActionSettings(punch=PunchSettings(reach=2.5),
                              treasure=TreasureSettings(threshold=0.5, distance=2.0, min_depth=0.5),
                              awards=AwardSettings(thresholds=(0.2, 0.6)))
    world = arena("soil", settings)
    log = []
    for _ in range(4):
        log += press(world, punch=True, look=(270.0, -10.0))
    placed = of(log, ItemPlaced, item="treasure")
    assert len(placed) >= 1
    volume = world.volume
    spot = np.array(placed[0].position)
    i, j, k = np.round(volume.world_to_index(spot)).astype(int)
    assert volume.density[i - 1:i + 2, j - 1:j + 2, k - 1:k + 2].min() >= volume.iso  # buried in solid voxels
    assert spot[0] > 8.0  # behind the deformed face, away from the player
    assert placed[0].material == "soil"
    awards = [e.item for e in of(log, ActionOutcome, kind="award")]
    assert awards[:2] == ["soil award 1", "soil award 2"] and world.actions.items[:2] == tuple(awards[:2])
    assert world.achievements()["soil"] == pytest.approx(
        sum(e.volume_removed for e in of(log, VoxelsEdited, source="punch")))
    assert "treasure" in {o.kind for o in world.snapshot().objects}


def test_no_treasure_when_the_action_points_straight_down():
    world = arena("soil", ActionSettings(treasure=TreasureSettings(threshold=0.05)))
    log = press(world, punch=True, look=(270.0, -89.0))
    assert of(log, VoxelsEdited, source="punch")[0].volume_removed > 0.05
    assert not of(log, ItemPlaced)


# ------------------------------------------------------------------------------------------------ bad input
def test_bad_action_settings_are_refused_with_the_parameter_named():
    from voxelworld.errors import ParameterError
    with pytest.raises(ParameterError, match="fragment_lifetime"):
        ActionSettings(fragment_lifetime=0.0)
    with pytest.raises(ParameterError, match="suck"):
        ActionSettings(suck="fast")
    with pytest.raises(ParameterError, match="actions"):
        WorldSettings(actions=None)
    with pytest.raises(ParameterError, match="thrown_deformation_counts"):
        WorldSettings(thrown_deformation_counts=1)


def test_fragments_are_voxel_objects_meshed_by_the_terrain_mesher_where_they_are():
    world = arena("soil")
    press(world, punch=True, frames_after=1)
    fragment = [o for o in world.actions.objects if o.kind == "fragment"][0]
    mesh = fragment.mesh()
    assert mesh.triangle_count > 0
    assert set(np.unique(mesh.mat_a).tolist()) == {world.materials.id_of("soil")}
    centre = mesh.positions.mean(axis=0)
    assert np.linalg.norm(centre - np.array(fragment.object.position)) < 2 * world.volume.voxel_size
    assert fragment.object.volume.voxel_size == world.volume.voxel_size
