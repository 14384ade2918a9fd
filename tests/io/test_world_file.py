"""World files: save, load, save again gives the same file; a loaded world steps on like the original; re-saves
write only what changed."""

from __future__ import annotations

import gc
import weakref

import numpy as np
import pytest

from voxelworld.errors import FormatError
from voxelworld.game.world import Inputs, World
from voxelworld.io import load_world, save_world
from voxelworld.io.state import capture, restore
from voxelworld.terrain import Sphere, VoxelVolume

from .scenario import FRAMES, MOMENTS, content, inputs, scenario_world, state

STEPS_AFTER = 8  # frames a loaded world is stepped beside the original


@pytest.fixture(scope="module")
def session(tmp_path_factory):
    """The scenario played once on the demo world, saved at every moment; each saved file is loaded and the loaded
    world stepped beside the original for STEPS_AFTER frames. Returns what each test checks."""
    folder = tmp_path_factory.mktemp("moments")
    world = scenario_world()
    twins, found = [], {}
    at = {frame: name for name, (frame, *_) in MOMENTS.items()}
    while world.frame < FRAMES:
        frame_inputs = inputs(world.frame)
        events = world.step(frame_inputs)
        for twin in twins:
            if twin["steps"] < STEPS_AFTER:
                twin["same_events"] &= twin["world"].step(frame_inputs) == events
                twin["steps"] += 1
                if twin["steps"] == STEPS_AFTER:
                    twin["same_state_after"] = state(twin["world"]) == state(world)
        name = at.get(world.frame)
        if name is not None:
            a = world.actions
            found[name] = (world.frame, {e.source for e in world.queued_edits}, a.held and a.held.kind,
                           {o.kind for o in a.objects if o.kind != "fragment"})
            path = folder / f"{world.frame}.vxw"
            save_world(world, path)
            loaded = load_world(path)
            again = folder / f"{world.frame}-again.vxw"
            save_world(loaded, again)
            twins.append({"name": name, "world": loaded, "steps": 0, "same_events": True,
                          "bullets": len(world.actions.suck.bullets), "same_state": state(loaded) == state(world),
                          "same_file": content(path) == content(again), "path": path})
    return {"world": world, "twins": twins, "found": found}


def test_the_moments_happen(session):
    # The scenario saves with every kind of queued edit, a held piece and bullet, and objects in flight.
    assert session["found"] == MOMENTS


def test_save_load_save_gives_the_same_file(session):
    assert [t["name"] for t in session["twins"] if not t["same_file"]] == []


def test_a_loaded_world_holds_the_saved_state(session):
    assert [t["name"] for t in session["twins"] if not t["same_state"]] == []


def test_a_loaded_world_steps_on_like_the_original(session):
    twins = session["twins"]
    assert all(t["steps"] == STEPS_AFTER for t in twins)
    assert [t["name"] for t in twins if not t["same_events"]] == []
    assert [t["name"] for t in twins if not t["same_state_after"]] == []


def test_the_loaded_world_is_whole(session):
    twin = next(t for t in session["twins"] if t["name"] == "bullet held")
    world = load_world(twin["path"])
    # Suck held 60 frames made its bullets (how many follows from where the suck met the collision mesh).
    assert world.actions.held.kind == "bullet" and len(world.actions.suck.bullets) == twin["bullets"] >= 5
    assert world.achievements() and world.actions.deformation.treasures
    assert len(world.agents.npcs) == 3 and all(npc.state == "walking" for npc in world.agents.npcs)
    assert world.agents.enemies[0].carved_voxels > 0
    assert world.agents.navigation.revision > 0  # re-baked as the ground was dug
    assert world.aim_info() is not None and world.snapshot().frame == world.frame - 1


def test_every_attribute_is_saved_or_rebuilt(session):
    # An attribute added to one of these objects later must be named by its class: in STATE_ATTRIBUTES (its
    # state_dict hands it over) or OTHER_ATTRIBUTES (rebuilt, given to the constructor, or saved otherwise).
    world = session["world"]
    objects = [world, world.player, world.actions, world.agents, world.agents.npcs[0], world.agents.enemies[0],
               world.agents.enemies[0].motion, world.agents.navigation, world.cut_marks]
    for obj in objects:
        named = type(obj).STATE_ATTRIBUTES + type(obj).OTHER_ATTRIBUTES
        assert sorted(set(vars(obj)) - set(named)) == [], type(obj).__name__
        assert sorted(set(named) - set(vars(obj))) == [], type(obj).__name__  # no name of an attribute gone
        assert not set(type(obj).STATE_ATTRIBUTES) & set(type(obj).OTHER_ATTRIBUTES), type(obj).__name__


def test_an_enemy_facing_off_the_axes_steps_on_alike(tmp_path):
    # Its facing, normalised once by the constructor, would move a bit if normalised again on load.
    wall = VoxelVolume.from_sdf(lambda x, y, z: np.minimum(y - 2.0, 9.0 - x), (32, 16, 32), "soil", voxel_size=0.5,
                                chunk_size=8)
    world = World(wall, spawn=(3.0, 2.0, 3.0))
    world.agents.add_enemy("saw", (8.0, 2.0, 8.0), facing=(1.0, 0.0, 0.1))
    for _ in range(20):
        world.step()
    save_world(world, tmp_path / "saw.vxw")
    loaded = load_world(tmp_path / "saw.vxw")
    assert np.array_equal(loaded.agents.enemies[0].facing, world.agents.enemies[0].facing)
    assert [loaded.step() for _ in range(40)] == [world.step() for _ in range(40)]
    assert world.agents.enemies[0].carved_voxels > 0 and state(loaded) == state(world)


# ------------------------------------------------------------------------------------------------- re-saves
@pytest.fixture(scope="module")
def walked():
    world = World.demo(seed=0)
    for _ in range(10):
        world.step(Inputs(move=(0.0, 1.0)))
    return world


def test_a_resave_writes_only_the_chunks_changed_since(walked, tmp_path):
    world = walked
    path = tmp_path / "world.vxw"
    first = save_world(world, path)
    assert first.full and first.chunks_written == first.chunk_count == 108
    before = world.volume.chunk_versions.copy()
    world.volume.remove(Sphere((20.0, 9.0, 24.0), 1.0))  # a small dig
    world.step(Inputs())
    changed = int(np.count_nonzero(world.volume.chunk_versions != before))
    second = save_world(world, path)
    assert not second.full and second.chunks_written == changed and 0 < changed <= 8
    assert second.events_written == len(world.events) - first.events_written
    # The file updated in place holds what a full save of the world writes.
    assert content(path) == content(save_world(world, tmp_path / "full.vxw").path)
    assert save_world(world, path).chunks_written == 0  # nothing changed since


def test_a_loaded_world_resaves_only_what_changed(walked, tmp_path):
    path = tmp_path / "world.vxw"
    save_world(walked, path)
    loaded = load_world(path)
    assert save_world(loaded, path).chunks_written == 0
    loaded.volume.remove(Sphere((30.0, 9.0, 30.0), 1.0))
    assert 0 < save_world(loaded, path).chunks_written <= 8
    assert load_world(path).voxel_hash() == loaded.voxel_hash()


def test_a_file_saved_by_another_world_is_written_whole(walked, tmp_path):
    path = tmp_path / "world.vxw"
    save_world(walked, path)
    other = World.demo(seed=1, npcs=0)
    assert save_world(other, path).full
    assert save_world(walked, path).full  # the file changed since this world saved it
    assert load_world(path).voxel_hash() == walked.voxel_hash()


def test_remembering_what_a_world_saved_does_not_keep_the_world(tmp_path):
    # voxelworld.io keeps its per-world record beside the world (weakly), not in it: a world saved and dropped goes.
    ground = VoxelVolume.from_sdf(lambda x, y, z: y - 2.0, (16, 8, 16), "soil", voxel_size=0.5, chunk_size=8)
    world = World(ground)
    save_world(world, tmp_path / "ground.vxw")
    assert save_world(world, tmp_path / "ground.vxw").chunks_written == 0  # it remembers what it saved there
    alive = weakref.ref(world)
    del world
    gc.collect()
    assert alive() is None


# ------------------------------------------------------------------------------------ a volume edited directly
def meshes(world: World) -> dict:
    """The world's display meshes per chunk and its collision mesh, as bytes (bit-for-bit comparisons)."""
    out = {chunk: tuple(getattr(mesh, a).tobytes() for a in ("positions", "normals", "indices", "mat_a", "mat_b",
                                                              "blend", "occlusion"))
           for chunk, mesh in world.mesher.meshes.items()}
    collision = world.mesher.collision_mesh()
    return out | {"collision": tuple(getattr(collision, a).tobytes() for a in ("positions", "indices", "tri_material"))}


def test_a_world_saved_with_its_volume_edited_between_frames_meshes_and_steps_on_alike(tmp_path):
    # The volume dug directly, not through the world's queue: the mesher has not seen it. The loaded world's
    # mesher must show what the saved one's shows (the voxels it saw), and its next frame remesh the same.
    world = World.demo(seed=0, npcs=1)
    for _ in range(3):
        world.step(Inputs(move=(0.0, 1.0)))
    world.volume.remove(Sphere((24.0, 9.0, 24.0), 2.5))
    behind = world.mesher.state_dict()["behind"]
    assert len(behind) >= 2
    path = tmp_path / "world.vxw"
    save_world(world, path)
    loaded = load_world(path)
    assert loaded.voxel_hash() == world.voxel_hash()
    assert np.array_equal(loaded.volume.chunk_versions, world.volume.chunk_versions)
    assert meshes(loaded) == meshes(world)
    assert state(loaded) == state(world)  # including the behind chunks and the voxels the mesher saw there
    assert loaded.step() == world.step()
    assert loaded.changed_chunks == world.changed_chunks and loaded.changed_chunks >= set(behind)
    assert loaded.mesher.state_dict()["behind"] == {}
    assert [loaded.step() for _ in range(2)] == [world.step() for _ in range(2)]
    assert meshes(loaded) == meshes(world) and state(loaded) == state(world)


def test_voxels_the_mesher_saw_that_do_not_fit_are_a_format_error():
    world = World(VoxelVolume.from_sdf(lambda x, y, z: y - 4.0, (16, 12, 16), "soil", chunk_size=8))
    world.volume.remove(Sphere((8.0, 4.0, 8.0), 2.0))  # between frames: the mesher is behind
    captured = capture(world)
    assert captured.rows["volume"]["mesher_behind"] and "mesher.behind.0.mix" in captured.arrays

    def load(arrays):
        volume = VoxelVolume(world.volume.shape, chunk_size=8)
        for name in ("density", "mat_a", "mat_b", "mix", "damage"):
            getattr(volume, name)[...] = getattr(world.volume, name)
        volume.load_state_dict(world.volume.state_dict())
        return restore(volume, captured.rows, arrays, [])

    assert np.array_equal(load(captured.arrays).mesher.meshes[(0, 0, 0)].positions,
                          world.mesher.meshes[(0, 0, 0)].positions)
    short = captured.arrays | {"mesher.behind.0.mix": captured.arrays["mesher.behind.0.mix"][:-1]}
    with pytest.raises(FormatError, match=r"mesher_behind.*\['mix'\].*shape"):
        load(short)
    with pytest.raises(FormatError, match="'mesher.behind.0.density' is missing"):
        load({k: v for k, v in captured.arrays.items() if k != "mesher.behind.0.density"})


def test_the_display_levels_are_saved_and_a_file_without_them_chooses_its_own(tmp_path):
    """A world whose display levels are half-way to what its actors want (a few chunks change per frame) loads
    with the same levels and meshes, and steps on alike; a file saved before the levels were kept (no
    ``mesher_levels``) loads with the levels the new world chooses from its actors' places."""
    volume = VoxelVolume.from_sdf(lambda x, y, z: y - 6.3, (48, 16, 48), "soil", chunk_size=8)
    world = World(volume, spawn=(4.0, 6.3, 4.0))
    wanted_from_start = world.mesher.display_levels
    world.player.position[:] = (40.0, 6.3, 40.0)  # across the world: many chunks want another level
    world.step()
    levels = world.mesher.display_levels
    assert 0 < np.sum(levels != wanted_from_start) <= 2 * world.settings.detail_changes_per_frame
    captured = capture(world)
    path = tmp_path / "world.vxw"
    save_world(world, path)
    loaded = load_world(path)
    np.testing.assert_array_equal(loaded.mesher.display_levels, levels)
    assert meshes(loaded) == meshes(world)
    for _ in range(3):
        assert loaded.step() == world.step()
        np.testing.assert_array_equal(loaded.mesher.display_levels, world.mesher.display_levels)
    assert meshes(loaded) == meshes(world)
    rows = {name: dict(row) if isinstance(row, dict) else row for name, row in captured.rows.items()}
    del rows["volume"]["mesher_levels"]
    old = restore(_copy_volume(world, captured), rows, captured.arrays, [])
    fresh = World(_copy_volume(world, captured), spawn=tuple(old.player.position))
    np.testing.assert_array_equal(old.mesher.display_levels, fresh.mesher.display_levels)


def _copy_volume(world: World, captured) -> VoxelVolume:
    """A volume holding ``world``'s voxels as they were when ``captured`` was taken (nothing edited them since)."""
    volume = VoxelVolume(world.volume.shape, chunk_size=world.volume.chunk_size)
    for name in ("density", "mat_a", "mat_b", "mix", "damage"):
        getattr(volume, name)[...] = getattr(world.volume, name)
    volume.load_state_dict(world.volume.state_dict())
    return volume
