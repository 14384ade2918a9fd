"""Things on the ground of a generated world (game/ground_things.py): made per chunk column as it streams in, the
same whichever order, falling or removed when dug under, obstacles to the navmesh and to the player; and a world
without a generator has none."""

import math

import numpy as np
import pytest

from voxelworld.game.edits import VoxelEdit
from voxelworld.game.events import ThingChanged
from voxelworld.game.ground_things import FALLEN, REMOVED, STANDING, ColumnThings, GroundThings
from voxelworld.game.inputs import Inputs
from voxelworld.game.populate import generated_world
from voxelworld.game.world import World, WorldSettings
from voxelworld.navigation import NavQuery
from voxelworld.terrain import Box, GeneratorSettings
from voxelworld.terrain.scatter import KIND_NAMES, ScatterSettings, Things, scatter_chunk_column

GENERATOR = GeneratorSettings(size=64.0, height=48.0, seed=7, ground_level=24.0, sand_level=10.0, hill_height=6.0,
                              cave_density=0.0)
THICK = ScatterSettings(tree_density=300.0, pine_density=100.0, bush_density=300.0, rock_density=300.0,
                        crate_density=20.0)


@pytest.fixture(scope="module")
def world():
    return generated_world(GENERATOR, scatter=THICK)


def _dig_under(world, column, n):
    x, y, z = world.ground_things.columns[column].things.position[n]
    world.queue_edit(VoxelEdit("remove", Box((x - 0.9, y - 2.0, z - 0.9), (x + 0.9, y + 1.0, z + 0.9)), source="test"))
    return [e for e in world.step() if isinstance(e, ThingChanged)]


def _first(world, kind, state=STANDING):
    for column in sorted(world.ground_things.columns):
        kept = world.ground_things.columns[column]
        for n in range(len(kept.things)):
            if KIND_NAMES[kept.things.kind[n]] == kind and kept.state[n] == state:
                return column, n
    raise AssertionError(f"no {kind}")


def test_a_generated_world_has_the_generators_things_and_the_demo_world_none(world):
    things = world.ground_things
    assert world.generator is GENERATOR and sorted(things.columns) == [(i, k) for i in range(4) for k in range(4)]
    for column, kept in things.columns.items():
        assert kept.things == scatter_chunk_column(GENERATOR, THICK, column)
    assert sum(len(k.things) for k in things.columns.values()) > 30
    demo = World.demo(seed=0, npcs=0)
    assert demo.generator is None and demo.ground_things is None


def test_columns_are_the_same_whatever_order_they_stream_in(world):
    forward, backward = GroundThings(world.volume, GENERATOR, THICK), GroundThings(world.volume, GENERATOR, THICK)
    masks = []
    for ci in range(4):  # a view sweeping along x, then back
        wanted = np.zeros(world.volume.chunk_grid_shape, dtype=bool)
        wanted[ci, :, :2] = True
        masks.append(wanted)
    seen = {}
    for a, b in zip(masks + masks[-2::-1], masks[::-1] + masks[1:]):  # there and back, in opposite orders
        forward.follow(a)
        backward.follow(b)
        for things in (forward, backward):
            for column, kept in things.columns.items():
                assert seen.setdefault(column, kept.things) == kept.things
    assert forward.made == backward.made == 14  # made again after leaving: nothing changed there
    assert sorted(forward.columns) == [(0, 0), (0, 1)] and sorted(backward.columns) == [(3, 0), (3, 1)]
    assert len(seen) == 8


def test_dug_under_a_tree_falls_and_stays_fallen_a_bush_goes():
    world = generated_world(GENERATOR, scatter=THICK)
    column, n = _first(world, "tree")
    events = _dug = _dig_under(world, column, n)
    assert [(e.kind, e.column, e.index, e.state) for e in events] == [("tree", column, n, "fallen")]
    kept = world.ground_things.columns[column]
    assert kept.state[n] == FALLEN and kept.version == 1
    assert [row[6] for row in world.ground_things.rows(column)].count(FALLEN) == 1
    assert _dig_under(world, column, n) == [] and kept.state[n] == FALLEN  # a fallen tree stays lying
    column, n = _first(world, "bush")
    events = _dig_under(world, column, n)
    assert any(e.kind == "bush" and e.state == "removed" and e.index == n for e in events)
    assert world.ground_things.columns[column].state[n] == REMOVED
    assert len(world.ground_things.rows(column)) == len(world.ground_things.columns[column].things) - sum(
        world.ground_things.columns[column].state == REMOVED)
    assert world.ground_things.state_dict()["columns"]  # the changed columns are what a file keeps
    assert _dug


def _put(world, column, kind, position, yaw=0.0, scale=1.0):
    """Replace a column's things with one thing (a test's own rock or tree, at a known place)."""
    things = world.ground_things
    things.columns[column] = ColumnThings(Things(np.array([KIND_NAMES.index(kind)], np.uint8),
                                                 np.array([position], float), np.array([yaw], np.float32),
                                                 np.array([scale], np.float32)))
    things.revision += 1
    return things


def _flat_world():
    flat = GeneratorSettings(size=64.0, height=32.0, seed=3, ground_level=12.0, sand_level=0.0, hill_height=0.0,
                             cliff_strength=0.0, cave_density=0.0)
    world = generated_world(flat, scatter=ScatterSettings(tree_density=0, pine_density=0, bush_density=0,
                                                          rock_density=0, crate_density=0))
    return world, 12.0


@pytest.mark.parametrize("kind", ["rock", "tree"])
def test_the_navmesh_goes_around_a_rock_or_a_trunk(kind):
    world, ground = _flat_world()
    centre = np.array([24.0, ground, 24.0])
    _put(world, (1, 1), kind, centre, scale=1.2)
    half = {"rock": 0.9, "tree": 0.3}[kind] * 1.2
    nav = world.agents.navigate()
    assert nav.things is world.ground_things
    query = NavQuery(nav.mesh)
    start, goal = centre + (-4.0, 0.0, 0.0), centre + (4.0, 0.0, 0.0)
    path = query.find_path(start, goal)
    points = np.asarray(path.points if hasattr(path, "points") else path)
    assert len(points) >= 3
    length = float(np.linalg.norm(np.diff(points, axis=0), axis=1).sum())
    assert length > 8.1  # not straight through
    # every segment of the path keeps clear of the thing's box (its radius a side)
    for a, b in zip(points[:-1], points[1:]):
        t = np.clip(np.dot(centre - a, b - a) / max(np.dot(b - a, b - a), 1e-12), 0.0, 1.0)
        closest = a + t * (b - a)
        assert max(abs(closest[0] - centre[0]), abs(closest[2] - centre[2])) >= half - 1e-6
    # the thing fallen or gone (dug under): the navmesh is baked again there
    world.queue_edit(VoxelEdit("remove", Box(tuple(centre - (1.2, 2.0, 1.2)), tuple(centre + (1.2, 1.0, 1.2))),
                               source="test"))
    events = [e for _ in range(3) for e in world.step() if isinstance(e, ThingChanged)]
    assert [e.state for e in events] == ["removed" if kind == "rock" else "fallen"]
    if kind == "rock":  # the way is straight again
        assert len(NavQuery(nav.mesh).find_path(start, goal).points) == 2


def test_the_player_stops_at_a_trunk():
    world, ground = _flat_world()
    start = world.player.position.copy()
    yaw = math.radians(world.player.yaw)
    forward = np.array([-math.sin(yaw), 0.0, -math.cos(yaw)])
    trunk = start + 2.5 * forward
    column = (int(trunk[0] // 16), int(trunk[2] // 16))
    _put(world, column, "tree", (trunk[0], ground, trunk[2]))
    for _ in range(120):
        world.step(Inputs(move=(0.0, 1.0)))
    past = float(np.dot(world.player.position - start, forward))
    assert past < 2.5 - 0.3 - world.settings.player.radius + 0.05
    assert past > 1.0  # it walked up to it
    # without the tree it walks on through
    _put(world, column, "bush", (trunk[0] + 30.0, ground, trunk[2]))
    for _ in range(60):
        world.step(Inputs(move=(0.0, 1.0)))
    assert float(np.dot(world.player.position - start, forward)) > 3.0


def test_a_frame_without_edits_checks_nothing(world, monkeypatch):
    calls = []
    monkeypatch.setattr(GroundThings, "_check", lambda *a: calls.append(a))
    world.step(Inputs(move=(0.0, 0.5)))
    assert calls == []


def test_bad_arguments_are_refused(world):
    from voxelworld.errors import ParameterError
    with pytest.raises(ParameterError, match="generator"):
        GroundThings(world.volume, None, THICK)  # type: ignore[arg-type]
    other = GeneratorSettings(size=32.0, height=48.0, ground_level=24.0)
    with pytest.raises(ParameterError, match="volume"):
        GroundThings(world.volume, other, THICK)
    with pytest.raises(ParameterError, match="columns"):
        GroundThings(world.volume, GENERATOR, THICK).load_state_dict({"columns": [[9, 0, 1, []]]})
    assert WorldSettings().view_distance is None


@pytest.mark.parametrize("chunk_size", [8, 16, 32, 64])
def test_the_columns_under_chunks_of_any_size(chunk_size):
    from voxelworld.terrain import SparseVolume
    volume = SparseVolume(GENERATOR.shape, voxel_size=GENERATOR.voxel_size, chunk_size=chunk_size)
    things = GroundThings(volume, GENERATOR, THICK)
    rng = np.random.default_rng(chunk_size)
    for _ in range(5):
        chunks = rng.random((volume.chunk_grid_shape[0], volume.chunk_grid_shape[2])) < 0.3
        want = np.zeros((4, 4), dtype=bool)
        for a, b in things.chunk_columns((ci, 0, ck) for ci, ck in np.argwhere(chunks).tolist()):
            want[a, b] = True
        assert np.array_equal(things._columns_of(chunks), want)


def test_a_thing_falling_in_the_colliders_columns_combines_it_again_one_far_away_does_not():
    world = generated_world(GENERATOR, scatter=THICK)
    world.step()
    things = world.ground_things
    trees = [(column, n) for column in sorted(things.columns) for n in range(len(things.columns[column].things))
             if KIND_NAMES[things.columns[column].things.kind[n]] == "tree"]
    inside = [t for t in trees if world.collider.covers(things.columns[t[0]].things.position[t[1]], 0.0)]
    outside = [t for t in trees if not world.collider.covers(things.columns[t[0]].things.position[t[1]], 20.0)]
    assert inside and outside
    revision = things.revision
    assert _dig_under(world, *outside[0]) and things.revision == revision  # fell far from the collider
    assert _dig_under(world, *inside[0]) and things.revision == revision + 1
    assert not things.collider_stale()  # (combined again in that frame, the tree lying in it)
