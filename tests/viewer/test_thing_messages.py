"""The things on the ground's page messages (viewer/thing_messages.py): ``thing_kinds`` once after hello,
``things`` per chunk column with its chunks and again when they change; none for a world without things."""

from __future__ import annotations

import json

import numpy as np
import pytest

from voxelworld.game import ground_things
from voxelworld.game.edits import VoxelEdit
from voxelworld.game.ground_things import STANDING
from voxelworld.game.populate import generated_world
from voxelworld.game.world import World
from voxelworld.terrain import Box, GeneratorSettings
from voxelworld.terrain.scatter import THING_KINDS, ScatterSettings
from voxelworld.viewer.server import ServerThread
from voxelworld.viewer.thing_messages import ThingTexts, due, publish

from .test_server import Page

GENERATOR = GeneratorSettings(size=64.0, height=48.0, seed=7, ground_level=24.0, sand_level=10.0, hill_height=6.0,
                              cave_density=0.0)
THICK = ScatterSettings(tree_density=300.0, bush_density=300.0)


class FakePage:
    def __init__(self):
        self.things_sent, self.things_due = {}, set()


@pytest.fixture(scope="module")
def world():
    return generated_world(GENERATOR, scatter=THICK)


def test_a_page_gets_the_kinds_after_hello_and_each_columns_things_with_its_chunks(world):
    with ServerThread(world) as server:
        page = Page(server)
        try:
            assert page.recv()["type"] == "hello"
            kinds = page.json("thing_kinds")
            assert [k["name"] for k in kinds["kinds"]] == [k.name for k in THING_KINDS]
            assert kinds["kinds"][0] == {"name": "tree", "radius": 0.3, "height": 8.0}
            got = {}
            while len(got) < 16:
                message = page.json("things")
                got[tuple(message["chunk"])] = message["things"]
        finally:
            page.close()
    for (ci, j, ck), rows in got.items():
        assert j == 0 and rows == world.ground_things.rows((ci, ck))
        for kind, x, y, z, yaw, scale, state in rows:
            assert 0 <= kind < len(THING_KINDS) and state == STANDING and 0 <= yaw <= 360 and 0.75 <= scale <= 1.25
            assert 16 * ci <= x <= 16 * (ci + 1) and 16 * ck <= z <= 16 * (ck + 1) and round(y, 2) == y
    assert sum(len(rows) for rows in got.values()) > 20


def test_a_change_is_sent_again_to_the_pages_that_have_the_column_and_only_then():
    world = generated_world(GENERATOR, scatter=THICK)
    texts, server_texts = ThingTexts(world), {}
    publish(server_texts, texts.all(), [])
    assert texts.changes() is None  # nothing happened: nothing to encode
    has, lacks = FakePage(), FakePage()
    assert len(due(server_texts, has, [(1, 0, 1), (1, 1, 1)])) == 1 and has.things_sent == {(1, 1): 0}
    assert due(server_texts, has, [(1, 2, 1)]) == []  # sent once
    kept = world.ground_things.columns[(1, 1)]
    x, y, z = kept.things.position[0]
    world.queue_edit(VoxelEdit("remove", Box((x - 0.9, y - 2.0, z - 0.9), (x + 0.9, y + 1.0, z + 0.9)), source="test"))
    world.step()
    changes = texts.changes()
    assert changes is not None and set(changes) >= {(1, 1)}
    publish(server_texts, changes, [has, lacks])
    assert has.things_due >= {(1, 1)} and not lacks.things_due
    (text,) = [t for t in due(server_texts, has, []) if json.loads(t)["chunk"] == [1, 0, 1]]
    assert json.loads(text)["things"] == world.ground_things.rows((1, 1)) and has.things_sent[(1, 1)] == 1
    assert texts.changes() is None


def test_the_log_keeps_its_last_entries_and_a_reader_left_behind_reads_every_column_again(monkeypatch):
    """GroundThings.log keeps LOG_KEPT to twice as many entries however long the world streams; a reader whose
    place was let go gets every column again and the ones forgotten meanwhile as None: what it publishes is what a
    reader that kept up publishes."""
    monkeypatch.setattr(ground_things, "LOG_KEPT", 4)
    world = generated_world(GENERATOR, scatter=THICK)
    things = world.ground_things
    kept_up, left_behind = ThingTexts(world), ThingTexts(world)
    kept_up_texts, left_behind_texts = {}, {}
    publish(kept_up_texts, kept_up.all(), [])
    publish(left_behind_texts, left_behind.all(), [])
    everything = np.ones(world.volume.chunk_grid_shape, dtype=bool)
    corner = np.zeros_like(everything)
    corner[:2, :, :2] = True
    for wanted in (corner, everything, corner):  # columns forgotten, made again, forgotten: 16 entries each time
        things.follow(wanted)
        publish(kept_up_texts, kept_up.changes(), [])
        assert len(things.log) <= 8 and things.log_start > 0
    assert things.logged_since(0) is None
    changes = left_behind.changes()
    assert any(entry is None for entry in changes.values())  # the forgotten columns, said
    publish(left_behind_texts, changes, [])
    assert left_behind_texts == kept_up_texts and len(kept_up_texts) < 16
    assert left_behind.changes() is None and kept_up.changes() is None


def test_a_world_without_things_sends_none():
    texts = ThingTexts(World.demo(seed=0, npcs=0))
    assert texts.kinds is None and texts.all() == {} and texts.changes() is None
