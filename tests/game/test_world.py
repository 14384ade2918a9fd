"""The World: frame order, the edit queue, determinism, aim_info, snapshots, events, the demo level, bad input."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from voxelworld.errors import ParameterError
from voxelworld.game.events import Event, Footstep, ItemPlaced, VoxelsEdited, event_text, log_hash
from voxelworld.game.level import Prop, demo_level
from voxelworld.game.world import Inputs, ObjectTransform, VoxelEdit, World, WorldSettings
from voxelworld.terrain import Box, Sphere, Tool, VoxelVolume

FLOOR = 4.0


def wall_world() -> World:
    """Flat soil at y = 4 m and a rock wall from x = 8 m to 10 m; the player at x = 3 looking along +x."""
    volume = VoxelVolume.from_sdf(lambda x, y, z: y - FLOOR, (64, 40, 32), "soil", voxel_size=0.25, chunk_size=16)
    volume.add(Box((8.0, 0.0, 0.0), (10.0, 9.0, 8.0)), "rock")
    return World(volume, None, spawn=(3.0, FLOOR, 4.0), spawn_yaw=270.0)


# ------------------------------------------------------------------------------------------------ frame order
def test_handlers_see_the_stages_in_the_issue_order():
    world = wall_world()
    seen = []
    for stage in reversed(World.STAGES):  # added in reverse: the stage, not the order added, decides
        world.add_handler(lambda w, inputs, stage=stage: seen.append((w.frame, stage)), stage=stage)
    world.step(Inputs())
    world.step(Inputs())
    assert seen == [(f, s) for f in (0, 1) for s in World.STAGES]
    # The design's steps S1..S15, in its order.
    assert World.STAGES == ("inputs", "objects", "update_ranges", "density_updates", "material_updates",
                            "fragment_erasure", "vertices", "simplified_vertices", "display_mesh", "collision_mesh",
                            "collisions", "control", "deformation", "events", "snapshot")
    assert world.stage is None  # between frames


def instrument(monkeypatch, world: World) -> list:
    """Wrap the functions that do each step's work so that every call records ``(frame, stage, work)``, the stage
    being ``world.stage`` when it ran."""
    import voxelworld.game.play as play
    import voxelworld.game.world as world_module
    import voxelworld.meshing.chunk_joins as chunk_joins
    import voxelworld.meshing.chunk_surfaces as chunk_surfaces
    import voxelworld.meshing.mesher_collision as mesher_collision
    from voxelworld.game.edits import VoxelEdit as Edit
    from voxelworld.game.player import Player

    calls = []

    def wrap(owner, name, work):
        original = getattr(owner, name)

        def wrapper(*args, **kwargs):
            calls.append((world.frame, world.stage, work(*args, **kwargs) if callable(work) else work))
            return original(*args, **kwargs)
        monkeypatch.setattr(owner, name, wrapper)

    wrap(Player, "begin_frame", "velocity")
    wrap(Edit, "_apply", lambda edit, volume: f"apply {edit.kind}")
    wrap(chunk_surfaces, "chunk_surface", "vertices")
    wrap(chunk_surfaces, "simplify_surface", lambda *a, collision=False, **_: "collision simplify" if collision else "simplify")
    wrap(chunk_joins, "assemble_chunk", lambda *a, collision, fields=None: "display assemble")
    wrap(mesher_collision, "assemble_chunk", lambda *a, collision, fields=None: "collision assemble")
    wrap(world_module, "Collider", "collider")
    wrap(Player, "collide", "collide")
    # Suck's bookkeeping (a frame of suck also looks ahead with suck_frame as it starts: that changes nothing).
    wrap(play.PlayerActions, "_book_suck", lambda actions, world, eye, update: "suck count" if update.edits
         else "suck no update")
    wrap(play, "record_action", "record")
    wrap(play, "record_impact", "record")
    wrap(Player, "control", "control")
    wrap(play, "suck_edits", "queue suck")
    wrap(play, "fall_all", "fall")
    wrap(World, "_take_snapshot", "snapshot")
    return calls


# Where each piece of work must run.
WORK_STAGES = {"velocity": "objects", "apply scrape": "density_updates", "apply remove": "density_updates",
               "apply expose_interior": "material_updates", "apply remove_fragments": "fragment_erasure",
               "vertices": "vertices", "simplify": "simplified_vertices", "display assemble": "display_mesh",
               "collision simplify": "collision_mesh", "collision assemble": "collision_mesh",
               "collider": "collision_mesh", "collide": "collisions", "suck count": "deformation",
               "record": "deformation", "control": "control", "suck no update": "deformation", "queue suck": "control",
               "fall": "events", "snapshot": "snapshot"}


def test_each_steps_work_runs_in_its_own_stage_in_the_design_order(monkeypatch):
    from voxelworld.game.deformation import TreasureSettings
    from voxelworld.game.play import ActionSettings
    from voxelworld.game.suck import SuckSettings

    volume = VoxelVolume.from_sdf(lambda x, y, z: y - FLOOR, (64, 40, 32), "soil", voxel_size=0.25, chunk_size=16)
    volume.add(Box((8.0, 0.0, 0.0), (15.0, 9.0, 8.0)), "grass")  # a thick wall: room for a treasure
    actions = ActionSettings(suck=SuckSettings(radius=0.6, material_radius=1.0, step=24, time_limit=10.0),
                             treasure=TreasureSettings(threshold=1.0))
    world = World(volume, None, settings=WorldSettings(actions=actions), spawn=(6.0, FLOOR, 4.0), spawn_yaw=270.0)
    counters = []  # (frame, stage, what the deformation bookkeeping counts) at the end of every stage

    def count(w, inputs):
        a = w.actions
        counters.append((w.frame, w.stage, (a.suck.bullets, a.deformation.since_treasure, a.deformation.treasures,
                                            a.achievements(), a.items)))
    for stage in World.STAGES:
        world.add_handler(count, stage)
    calls = instrument(monkeypatch, world)
    look = (270.0, 0.0)
    for frame in range(32):
        world.step(Inputs(look=look, suck=frame < 30, punch=frame in (12, 20)))

    # The work ran: edits of every phase, meshes, collisions, bullets, a treasure and awards.
    assert set(WORK_STAGES) <= {work for _, _, work in calls}
    assert len(world.actions.suck.bullets) >= 3 and world.actions.deformation.treasures
    assert world.actions.items and sum(world.achievements().values()) > 1.0
    # Each piece of work in its stage, and within every frame the stages of the work in the design's order.
    assert sorted({(work, stage) for _, stage, work in calls}) == sorted(
        {(work, WORK_STAGES[work]) for _, _, work in calls})
    order = {stage: n for n, stage in enumerate(World.STAGES)}
    for frame in range(32):
        stages = [order[stage] for f, stage, _ in calls if f == frame]
        assert stages == sorted(stages), frame
    # The bullet count, the treasure counter and the award totals change only in the bookkeeping stage, after
    # the collisions of the frame whose update removed the density.
    changed = [(frame, stage) for (_, _, before), (frame, stage, after) in zip(counters, counters[1:])
               if after != before]
    assert changed and {stage for _, stage in changed} == {"deformation"}


def test_an_edit_queued_by_an_action_is_applied_in_the_next_frames_update_stage_and_remeshed():
    world = wall_world()
    seen = {}
    hole = Sphere((5.0, FLOOR, 4.0), 1.0)

    def action(w, inputs):
        if inputs.punch:
            w.queue_edit(VoxelEdit("remove", hole, source="punch"))

    def after_update(w, inputs):
        seen.setdefault(w.frame, {})["applied"] = [e.source for e, _ in w.applied_edits]

    def after_meshes(w, inputs):
        seen.setdefault(w.frame, {})["remeshed"] = bool(w.changed_chunks)

    world.add_handler(action)
    world.add_handler(after_update, "fragment_erasure")
    world.add_handler(after_meshes, "display_mesh")
    before = world.voxel_hash()
    events0 = world.step(Inputs(punch=True))
    assert world.voxel_hash() == before and len(world.queued_edits) == 1
    assert not [e for e in events0 if isinstance(e, VoxelsEdited)]
    events1 = world.step(Inputs())
    assert world.voxel_hash() != before and not world.queued_edits
    assert seen[0] == {"applied": [], "remeshed": False}
    assert seen[1] == {"applied": ["punch"], "remeshed": True}
    edited = [e for e in events1 if isinstance(e, VoxelsEdited)]
    assert len(edited) == 1 and edited[0].frame == 1 and edited[0].material == "soil"
    assert edited[0].volume_removed > 1.0
    assert world.snapshot().changed_chunks == world.changed_chunks != frozenset()
    # The collision mesh follows: a ray straight down into the hole meets its bottom, not the old ground.
    hit = world.collider.raycast([5.0, FLOOR + 2.0, 4.0], [0.0, -1.0, 0.0])
    assert hit.point[0, 1] < FLOOR - 0.7


def test_the_update_stage_applies_density_then_material_ranges_then_fragment_erasure():
    world = wall_world()
    order = []
    region = Sphere((5.0, FLOOR, 4.0), 1.0)
    for edit in (VoxelEdit("remove_fragments", None, source="c"), VoxelEdit("paint", region, "ice", source="b1"),
                 VoxelEdit("remove", region, source="a1"), VoxelEdit("expose_interior", region, source="b2"),
                 VoxelEdit("add", Sphere((5.0, FLOOR + 3, 4.0), 0.4), "sand", source="a2")):
        world.queue_edit(dataclasses.replace(edit, on_applied=lambda result, s=edit.source: order.append(s)))
    events = world.step(Inputs())
    assert order == ["a1", "a2", "b1", "b2", "c"]
    assert [e.source for e in events if isinstance(e, VoxelsEdited)] == order


# ------------------------------------------------------------------------------------------------ determinism
def scripted(frame: int) -> Inputs:
    """Walk, turn, sprint, jump and dig on a schedule."""
    yaw = 270.0 + 40.0 * np.sin(frame / 50.0)
    return Inputs(move=(0.3 * np.cos(frame / 20.0), 1.0 if frame % 120 < 90 else -0.5), look=(yaw, -20.0),
                  jump=frame % 97 == 0, sprint=frame % 200 > 150, punch=frame % 30 == 0)


def digging(world, inputs):
    """A stand-in action: on punch, remove a sphere of random size where the player aims."""
    if inputs.punch:
        aim = world.aim_info()
        if aim is not None:
            radius = float(world.rng.uniform(0.4, 1.2))
            world.queue_edit(VoxelEdit("remove", Sphere(aim.point, radius), tool=Tool(damage=40), source="punch"))
            world.emit(ItemPlaced, item="fragment", material=aim.material, position=aim.point)


def run(seed: int, frames: int = 300) -> World:
    world = World.demo(seed=seed)
    world.add_handler(digging)
    for frame in range(frames):
        world.step(scripted(frame))
    return world


def test_same_seed_and_inputs_give_the_same_log_and_voxels_after_300_frames():
    a, b = run(0), run(0)
    assert a.event_log_hash() == b.event_log_hash()
    assert a.voxel_hash() == b.voxel_hash()
    assert [event_text(e) for e in a.events] == [event_text(e) for e in b.events]
    kinds = {type(e).__name__ for e in a.events}
    assert {"Footstep", "VoxelsEdited", "ItemPlaced", "Jumped", "Landed"} <= kinds
    assert a.voxel_hash() != World.demo(seed=0).voxel_hash()  # it did dig
    assert a.player.position.tolist() == b.player.position.tolist()


def test_another_seed_gives_another_world():
    assert run(1, frames=40).voxel_hash() != run(0, frames=40).voxel_hash()


# ------------------------------------------------------------------------------------------------ aim
def test_aim_info_on_a_rock_wall_reports_material_hardness_and_damage():
    world = wall_world()
    world.step(Inputs(look=(270.0, 0.0)))
    aim = world.aim_info()
    assert aim is not None and aim.prop is None
    assert aim.material == "rock" and aim.hardness == world.materials["rock"].hardness
    assert aim.point[0] == pytest.approx(8.0, abs=0.2)
    assert aim.distance == pytest.approx(8.0 - 3.0, abs=0.2)
    assert aim.damage == 0 and world.volume.density[aim.voxel] >= world.volume.iso
    # Rock (hardness 5) is between the default tool's thresholds: a hit damages it and holds.
    world.queue_edit(VoxelEdit("remove", Sphere(aim.point, 0.6), tool=Tool(damage=30), source="pick"))
    events = world.step(Inputs())
    edited = [e for e in events if isinstance(e, VoxelsEdited)][0]
    assert edited.voxels_damaged > 0 and edited.volume_removed == 0.0
    again = world.aim_info()
    assert again.material == "rock" and again.damage == 30
    world.queue_edit(VoxelEdit("remove", Sphere(aim.point, 0.6), tool=Tool(damage=30), source="pick"))
    world.step(Inputs())
    assert world.aim_info().damage == 60


def test_aim_info_sees_props_and_nothing_in_the_sky():
    world = wall_world()
    crate = Prop.boxes("crate", [((5.0, FLOOR, 3.0), (6.0, FLOOR + 2.0, 5.0))], "wood")
    world = World(world.volume, None, [crate], spawn=(3.0, FLOOR, 4.0), spawn_yaw=270.0)
    aim = world.aim_info()
    assert (aim.prop, aim.material, aim.damage, aim.voxel) == ("crate", "wood", None, None)
    assert aim.hardness == world.materials["wood"].hardness
    world.step(Inputs(look=(270.0, 80.0)))
    assert world.aim_info() is None


# ------------------------------------------------------------------------------------------------ snapshot
def test_snapshot_has_the_player_camera_and_the_objects_of_sources():
    world = wall_world()
    world.add_object_source(lambda w: [ObjectTransform("npc_1", "npc", (1.0, 2.0, 3.0), 45.0)])
    world.step(Inputs(move=(0.0, 1.0), look=(270.0, 10.0)))
    shot = world.snapshot()
    assert shot.frame == 0 and shot.player_position == tuple(world.player.position.tolist())
    assert shot.player_yaw == 270.0 and shot.player_pitch == 10.0
    assert shot.camera_eye[1] == pytest.approx(shot.player_position[1] + world.settings.player.eye_height)
    assert shot.camera_direction[0] > 0.9 and shot.camera_direction[1] > 0.1
    assert shot.objects == (ObjectTransform("npc_1", "npc", (1.0, 2.0, 3.0), 45.0),)
    assert shot.changed_chunks == frozenset()


def test_ground_dug_every_frame_is_remeshed_every_remesh_interval_frames():
    """A scrape queued every frame into the floor: the chunk is remeshed in the frame of the first and then every
    ``remesh_interval`` frames (2 here), its collision mesh catching up each time."""
    world = World(wall_world().volume, None, spawn=(3.0, FLOOR, 4.0), settings=WorldSettings(remesh_interval=2))
    rebuilt = []
    for n in range(6):
        world.queue_edit(VoxelEdit("remove", Sphere((5.5, FLOOR - 0.3 * n, 2.0), 0.6)))
        world.step(Inputs())
        rebuilt.append(world.rebuilt_chunks)
    assert [bool(r) for r in rebuilt] == [True, False] * 3
    world.step(Inputs())  # the last scrape waited: taken now, though nothing changed after it
    assert (1, 0, 0) in world.rebuilt_chunks
    hit = world.collider.raycast([5.5, FLOOR + 1.0, 2.0], [0.0, -1.0, 0.0], 10.0)
    assert hit.distance[0] > 1.0 + 0.3 * 5 + 0.4  # the collision mesh down the hole, past the last scrape's top


# ------------------------------------------------------------------------------------------------ bad input
def test_bad_inputs_raise_parameter_errors():
    for kwargs, parameter in (({"move": (2.0, 0.0)}, "move[0]"), ({"move": (0.0, float("nan"))}, "move[1]"),
                              ({"move": (1.0,)}, "move"), ({"look": (0.0, 95.0)}, "look[1]"),
                              ({"look": "north"}, "look"), ({"jump": 1}, "jump"), ({"suck": None}, "suck")):
        with pytest.raises(ParameterError) as error:
            Inputs(**kwargs)
        assert error.value.parameter == parameter


def test_a_bad_step_leaves_the_world_unchanged():
    world = wall_world()
    world.step(Inputs(move=(0.0, 1.0)))
    world.queue_edit(VoxelEdit("remove", Sphere((5.0, FLOOR, 4.0), 1.0)))
    state = (world.frame, world.time, world.player.position.tolist(), world.player.velocity.tolist(),
             world.event_log_hash(), world.voxel_hash(), len(world.queued_edits), world.inputs)
    broken = Inputs()
    object.__setattr__(broken, "move", (5.0, 0.0))  # changed after construction: checked again
    for inputs, dt in ((Inputs(), 0.0), (Inputs(), 1.0), (Inputs(), float("nan")), ("forward", 1 / 60),
                       ({"move": (0, 1)}, 1 / 60), (broken, 1 / 60)):
        with pytest.raises(ParameterError):
            world.step(inputs, dt)
        assert (world.frame, world.time, world.player.position.tolist(), world.player.velocity.tolist(),
                world.event_log_hash(), world.voxel_hash(), len(world.queued_edits), world.inputs) == state


def test_bad_edits_and_hooks_are_refused_and_nothing_is_queued():
    world = wall_world()
    with pytest.raises(ParameterError):
        VoxelEdit("melt", Sphere((0, 0, 0), 1.0))
    with pytest.raises(ParameterError):
        VoxelEdit("scrape", Sphere((0, 0, 0), 1.0), step=0)
    with pytest.raises(ParameterError):
        VoxelEdit("add", Sphere((0, 0, 0), 1.0))  # no material
    with pytest.raises(ParameterError):
        world.queue_edit(VoxelEdit("add", Sphere((0, 0, 0), 1.0), material="unobtainium"))
    with pytest.raises(ParameterError):
        world.queue_edit("dig here")
    with pytest.raises(ParameterError):
        world.add_handler(print, stage="lunch")
    assert world.queued_edits == ()
    with pytest.raises(ParameterError):
        WorldSettings(collision_radius=-1.0)
    for interval in (0, 61, 2.5, True):
        with pytest.raises(ParameterError, match="remesh_interval"):
            WorldSettings(remesh_interval=interval)
    with pytest.raises(ParameterError):
        World(world.volume, None, [Prop.boxes("crate", [((0, 0, 0), (1, 1, 1))], "cheese")])


# ------------------------------------------------------------------------------------------------ events
def test_event_text_is_stable_and_covers_subclasses():
    @dataclasses.dataclass(frozen=True)
    class Shouted(Event):
        words: str
        volume: float

    a = Shouted(frame=2, time=1 / 30, words="hey", volume=-0.0)
    assert event_text(a) == "2|0.03333333333333333|Shouted|words=hey|volume=0.0"
    step = Footstep(frame=1, time=0.5, material="rock", position=(np.float32(1.5), 2.0, np.float64(3.25)))
    assert event_text(step) == "1|0.5|Footstep|material=rock|position=(1.5,2.0,3.25)|sound="
    assert log_hash([a, step]) != log_hash([step, a])
    with pytest.raises(dataclasses.FrozenInstanceError):
        step.material = "soil"


# ------------------------------------------------------------------------------------------------ demo level
def test_demo_level_has_the_issue_contents():
    level = demo_level(seed=0)
    volume = level.volume
    assert volume.shape == (96, 48, 96) and volume.voxel_size == 0.5
    present = set(volume.solid_volume_by_material())
    assert {"grass", "soil", "rock", "lava", "bark", "wood", "iron"} <= present
    assert [(p.name, p.role, p.material) for p in level.props] == [
        ("table", "obstacle", "wood"), ("crate_1", "obstacle", "wood"), ("crate_2", "obstacle", "wood"),
        ("crate_3", "obstacle", "wood")]
    assert demo_level(seed=0).volume.content_hash() == volume.content_hash()
    assert demo_level(seed=3).volume.content_hash() != volume.content_hash()


def test_demo_world_starts_on_grass_and_walks():
    world = World.demo(seed=0)
    events = [e for _ in range(60) for e in world.step(Inputs(move=(0.0, 1.0)))]
    assert world.player.grounded and world.player.ground_material == "grass"
    steps = [e.material for e in events if isinstance(e, Footstep)]
    assert steps == ["grass"] * len(steps) and len(steps) in (4, 5)  # 4 m in strides of 0.8 m
    assert world.player.position[0] == pytest.approx(demo_level().spawn[0] + 4.0, abs=0.1)


def test_freeze_startup_objects_moves_what_is_alive_out_of_the_collectors_reach():
    import gc

    from voxelworld.game.world import freeze_startup_objects

    before = gc.get_freeze_count()
    kept = [object() for _ in range(3)] + [[n] for n in range(100)]  # tracked objects alive now
    try:
        freeze_startup_objects()
        assert gc.get_freeze_count() >= before + len(kept) - 3  # the lists (objects are not tracked)
    finally:
        gc.unfreeze()
