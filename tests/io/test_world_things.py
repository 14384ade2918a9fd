"""A populated world's things on the ground in its world file: trees dug under stay fallen, bushes stay gone,
after a save and a load; a world without things writes no row, and a file without the row loads without things."""

import sqlite3

import numpy as np
import pytest

from voxelworld.errors import FormatError
from voxelworld.game.edits import VoxelEdit
from voxelworld.game.events import ThingChanged
from voxelworld.game.ground_things import FALLEN, REMOVED, STANDING
from voxelworld.game.populate import generated_world
from voxelworld.game.world import World
from voxelworld.io import load_world, save_world
from voxelworld.terrain import Box, GeneratorSettings
from voxelworld.terrain.scatter import KIND_NAMES, ScatterSettings

from . import forge

GENERATOR = GeneratorSettings(size=64.0, height=48.0, seed=7, ground_level=24.0, sand_level=10.0, hill_height=6.0,
                              cave_density=0.0)
THICK = ScatterSettings(tree_density=300.0, pine_density=100.0, bush_density=300.0, rock_density=300.0,
                        crate_density=20.0)


def _dig_under(world, kind):
    for column in sorted(world.ground_things.columns):
        kept = world.ground_things.columns[column]
        for n in range(len(kept.things)):
            if KIND_NAMES[kept.things.kind[n]] == kind and kept.state[n] == STANDING:
                x, y, z = kept.things.position[n]
                world.queue_edit(VoxelEdit("remove", Box((x - 0.9, y - 2.0, z - 0.9), (x + 0.9, y + 1.0, z + 0.9)),
                                           source="test"))
                return column, n
    raise AssertionError(kind)


def _rows(path):
    with sqlite3.connect(path) as connection:
        return {name for (name,) in connection.execute("SELECT name FROM state")}


def test_trees_dug_under_stay_fallen_and_bushes_gone_after_a_save_and_a_load(tmp_path):
    world = generated_world(GENERATOR, scatter=THICK)
    world.agents.navigate()  # a navmesh with the things as obstacles: the loaded one must be the same
    tree = _dig_under(world, "tree")
    bush = _dig_under(world, "bush")
    events = [e for _ in range(3) for e in world.step() if isinstance(e, ThingChanged)]
    assert {(e.kind, e.state) for e in events} >= {("tree", "fallen"), ("bush", "removed")}
    before = {c: (k.state.copy(), k.version) for c, k in world.ground_things.columns.items()}
    save_world(world, tmp_path / "things.vxw")
    assert "ground_things" in _rows(tmp_path / "things.vxw")
    loaded = load_world(tmp_path / "things.vxw")
    assert loaded.generator == GENERATOR and loaded.ground_things.settings == THICK
    assert loaded.ground_things.columns[tree[0]].state[tree[1]] == FALLEN
    assert loaded.ground_things.columns[bush[0]].state[bush[1]] == REMOVED
    after = {c: (k.state, k.version) for c, k in loaded.ground_things.columns.items()}
    assert sorted(after) == sorted(before)
    assert all(np.array_equal(after[c][0], before[c][0]) and after[c][1] == before[c][1] for c in before)
    for column in sorted(before):
        assert loaded.ground_things.rows(column) == world.ground_things.rows(column)
    # both step on alike (the loaded navmesh is the saved one: load checks it, bit for bit)
    for _ in range(5):
        world.step()
        loaded.step()
    assert world.voxel_hash() == loaded.voxel_hash()
    assert np.array_equal(world.agents.navigation.mesh.vertices, loaded.agents.navigation.mesh.vertices)
    save_world(loaded, tmp_path / "again.vxw")
    again = load_world(tmp_path / "again.vxw")
    assert again.ground_things.columns[tree[0]].state[tree[1]] == FALLEN


def test_a_world_without_things_writes_no_row_and_loads_without(tmp_path):
    demo = World.demo(seed=0, npcs=0)
    save_world(demo, tmp_path / "demo.vxw")
    assert "ground_things" not in _rows(tmp_path / "demo.vxw")
    loaded = load_world(tmp_path / "demo.vxw")
    assert loaded.generator is None and loaded.ground_things is None


@pytest.mark.parametrize("keys, value, says", [
    (["generator", "seed"], -1, "generator.*seed"),
    (["scatter", "tree_slope"], 95.0, "tree_slope"),
    (["scatter", "nonsense"], 1, "nonsense"),
    (["columns"], [[99, 0, 1, []]], "columns"),
    (["columns"], [[0, 0, 1, [[999, 1]]]], "columns"),
    (["columns"], [[0, 0, 1, [[0, 0]]]], "columns"),
    (["columns"], "all", "columns"),
])
def test_a_bad_ground_things_row_is_a_format_error_naming_it(tmp_path, keys, value, says):
    world = generated_world(GENERATOR, scatter=THICK)
    save_world(world, tmp_path / "things.vxw")
    path = forge.copy_of(tmp_path / "things.vxw", tmp_path / "bad.vxw")
    forge.set_in_state(path, "ground_things", keys, value)
    with pytest.raises(FormatError, match=f"ground_things.*{says}"):
        load_world(path)
