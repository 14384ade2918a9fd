"""The play protocol without a server: page messages checked field by field, the rate limiter, the binary mesh
messages read back, and the JSON messages a world gives (docs/specs/play-protocol.md)."""

from __future__ import annotations

import json
from dataclasses import replace

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from voxelworld.game.deformation import Treasure
from voxelworld.game.poses import character_rig
from voxelworld.game.world import Inputs, World
from voxelworld.meshing import DisplayMesh
from voxelworld.viewer import player_messages, protocol
from voxelworld.viewer.frame_messages import unpack_rotations
from voxelworld.viewer.protocol import (
    BUTTONS,
    KIND_CHUNK,
    KIND_COLLISION,
    KIND_NAVMESH,
    MAX_MESSAGE_BYTES,
    ControlMessage,
    InputMessage,
    OverlaysMessage,
    PingMessage,
    ProtocolError,
    RateLimiter,
    SaveMessage,
    decode_chunk_mesh,
    decode_collision_mesh,
    decode_navmesh,
    encode_chunk_mesh,
    encode_collision_mesh,
    encode_navmesh,
    navmesh_triangles,
    parse_client_message,
    wire_mesh,
)


# ------------------------------------------------------------------------------------- page messages
def test_good_messages():
    message = parse_client_message('{"type": "input", "move": [-0.5, 1], "look": [-720.5, 89], '
                                   '"held": ["suck", "punch"]}')
    assert message == InputMessage((-0.5, 1.0), (-720.5, 89.0), frozenset({"suck", "punch"}))
    assert parse_client_message('{"type": "input"}') == InputMessage((0.0, 0.0), None, frozenset())
    assert parse_client_message('{"type": "input", "look": null, "held": []}').look is None
    assert parse_client_message('{"type": "control"}') == ControlMessage(True)
    assert parse_client_message('{"type": "release"}') == ControlMessage(False)
    assert parse_client_message('{"type": "save"}') == SaveMessage()
    assert parse_client_message('{"type": "overlays", "navmesh": true}') == OverlaysMessage(True, None)
    assert parse_client_message('{"type": "overlays", "collision": false, "navmesh": false}') == \
        OverlaysMessage(False, False)
    assert parse_client_message('{"type": "ping", "id": 7}') == PingMessage(7)
    assert parse_client_message('{"type": "ping"}') == PingMessage(0)
    every = parse_client_message(json.dumps({"type": "input", "held": list(BUTTONS)}))
    assert every.held == frozenset(BUTTONS)
    # What the page may hold are exactly Inputs' buttons less save (saving is a message of its own); buy is no
    # button but the input message's field of its own.
    assert set(BUTTONS) | {"save"} == {name for name in Inputs.__dataclass_fields__
                                       if name not in ("move", "look", "buy")}


def test_a_message_of_exactly_the_limit_is_read():
    head = '{"type": "ping"'
    text = head + " " * (MAX_MESSAGE_BYTES - len(head) - 1) + "}"
    assert len(text.encode()) == MAX_MESSAGE_BYTES
    assert parse_client_message(text) == PingMessage(0)


BAD = [
    (b'{"type": "ping"}', "binary messages are not accepted"),
    (b"\x00\x01\xff", "binary messages are not accepted"),
    ("", "not JSON"),
    ("garbage", "not JSON"),
    ('{"type": "input", "move": [0, 1]', "not JSON"),
    ("{'type': 'ping'}", "not JSON"),
    ("[1, 2]", "must be a JSON object"),
    ('"input"', "must be a JSON object"),
    ("null", "must be a JSON object"),
    ("42", "must be a JSON object"),
    ("{}", "type = null is out of range: must be one of input, control"),
    ('{"type": 5}', "type = 5 is out of range"),
    ('{"type": "teleport"}', 'type = "teleport" is out of range'),
    ('{"type": "INPUT"}', 'type = "INPUT"'),
    ('{"type": "ping", "extra": 1}', "unknown field 'extra' in this ping message"),
    ('{"type": "input", "jump": true}', "unknown field 'jump' in this input message"),
    ('{"type": "input", "move": [0, NaN]}', "NaN is not allowed"),
    ('{"type": "input", "move": [Infinity, 0]}', "Infinity is not allowed"),
    ('{"type": "input", "look": [-Infinity, 0]}', "-Infinity is not allowed"),
    ('{"type": "input", "move": [0, 1e999]}', "move[1] = inf is out of range: must be a number in [-1, 1]"),
    ('{"type": "input", "move": [0, 1.5]}', "move[1] = 1.5 is out of range: must be a number in [-1, 1]"),
    ('{"type": "input", "move": [true, 0]}', "move[0] = true is out of range"),
    ('{"type": "input", "move": ["0", 0]}', 'move[0] = "0" is out of range'),
    ('{"type": "input", "move": [0]}', "move = [0] is out of range: must be a list of two numbers"),
    ('{"type": "input", "move": [0, 0, 0]}', "move = [0, 0, 0] is out of range"),
    ('{"type": "input", "move": {"x": 0}}', "move = {\"x\": 0} is out of range"),
    ('{"type": "input", "move": null}', "move = null is out of range"),
    ('{"type": "input", "look": [0, 90]}', "look[1] = 90 is out of range: must be a number in [-89, 89]"),
    ('{"type": "input", "look": [1e7, 0]}', "look[0] = 10000000.0 is out of range"),
    ('{"type": "input", "look": "ahead"}', 'look = "ahead" is out of range'),
    ('{"type": "input", "held": "suck"}', 'held = "suck" is out of range: must be a list of at most'),
    ('{"type": "input", "held": ["suck", "fly"]}', 'held[1] = "fly" is out of range: must be one of jump'),
    ('{"type": "input", "held": ["save"]}', 'held[0] = "save" is out of range'),
    ('{"type": "input", "held": [1]}', "held[0] = 1 is out of range"),
    ('{"type": "input", "held": ["suck", "suck", "suck", "suck", "suck", "suck", "suck", "suck", "suck", "suck"]}',
     "a list of at most 9 button names"),
    ('{"type": "overlays"}', 'needs "navmesh" or "collision"'),
    ('{"type": "overlays", "navmesh": 1}', "navmesh = 1 is out of range: must be true or false"),
    ('{"type": "ping", "id": -1}', "id = -1 is out of range: must be a whole number in [0, 2147483647]"),
    ('{"type": "ping", "id": 1.0}', "id = 1.0 is out of range"),
    ('{"type": "ping", "id": 2147483648}', "id = 2147483648 is out of range"),
    ('{"type": "ping", "id": "1"}', 'id = "1" is out of range'),
    ("[" * 20000 + "]" * 20000, "nested too deeply"),
    ('{"type": "ping", "id": ' + "9" * 5000 + "}", "not JSON"),
    ('{"type": "input", "move": [' + "9" * 309 + ", 0]}", "move[0] = 99999999999"),  # past every float
    ('{"type": "input", "move": [0, -' + "9" * 4000 + "]}", "move[1] = -9999999999"),
    ('{"type": "input", "look": [' + "1" + "0" * 308 + ", 0]}", "look[0] = 10000000000"),
    ('{"type": "input", "look": [0, ' + "7" * 400 + "]}", "look[1] = 7777777777"),
    ('{"type": "save", "type": "teleport"}', 'duplicate field "type" in a JSON object'),
    ('{"type": "ping", "type": "save"}', 'duplicate field "type"'),
    ('{"type": "ping", "id": 1, "id": 2}', 'duplicate field "id"'),
    ('{"type": "input", "move": [0, 0], "move": [1, 1]}', 'duplicate field "move"'),
    ('{"type": "ping", "id": [{"a": 1, "a": 1}]}', 'duplicate field "a"'),  # nested objects too
]


@pytest.mark.parametrize("data, says", BAD, ids=[f"bad{n}" for n in range(len(BAD))])
def test_bad_messages_name_what_is_wrong(data, says):
    with pytest.raises(ProtocolError) as caught:
        parse_client_message(data)
    assert says in str(caught.value)
    assert len(str(caught.value)) < 400  # a huge value is shortened, not echoed


def test_too_long_messages_are_refused_before_they_are_read():
    text = '{"type": "ping", "pad": "' + "x" * MAX_MESSAGE_BYTES + '"}'
    with pytest.raises(ProtocolError, match="message too long: more than 65536 bytes"):
        parse_client_message(text)
    # Bytes count, not characters: 40 000 two-byte characters are 80 000 bytes.
    with pytest.raises(ProtocolError, match="message too long"):
        parse_client_message('{"type": "ping", "x": "' + "é" * 40000 + '"}')


@settings(max_examples=300, deadline=None)
@given(st.one_of(st.text(max_size=200), st.binary(max_size=200)))
def test_any_text_or_bytes_is_read_or_refused_with_a_protocol_error(data):
    try:
        parse_client_message(data)
    except ProtocolError:
        pass


_huge = st.integers(10**308, 10**4299) | st.integers(-(10**4299), -(10**308))  # past every float, still JSON
_json = st.recursive(st.none() | st.booleans() | st.integers() | _huge | st.floats() | st.text(max_size=8),
                     lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner,
                                                                                    max_size=4), max_leaves=20)


@settings(max_examples=300, deadline=None)
@given(st.sampled_from(protocol.CLIENT_TYPES),
       st.dictionaries(st.sampled_from(["move", "look", "held", "navmesh", "collision", "id", "other"]), _json,
                       max_size=4))
def test_any_fields_are_read_or_refused_with_a_protocol_error(kind, fields):
    text = json.dumps({"type": kind, **fields})  # NaN and infinities included, as json writes them
    try:
        message = parse_client_message(text)
    except ProtocolError:
        return
    if isinstance(message, InputMessage):  # what is read makes valid Inputs
        Inputs(move=message.move, look=message.look, **{b: b in message.held for b in BUTTONS})


@settings(max_examples=300, deadline=None)
@given(st.sampled_from(["move", "look"]),
       st.lists(st.integers() | _huge | st.floats(allow_nan=False, allow_infinity=False), min_size=2, max_size=2))
def test_numbers_of_any_size_in_move_and_look_are_read_or_refused_with_a_protocol_error(field, pair):
    """A JSON integer of 309 digits or more once raised OverflowError, and the server dropped the session."""
    try:
        message = parse_client_message(json.dumps({"type": "input", field: pair}))
    except ProtocolError as error:
        assert f"{field}[" in str(error) and len(str(error)) < 400
        return
    assert all(abs(v) <= 10**6 for v in (message.move if field == "move" else message.look))


def test_rate_limiter():
    now = [0.0]
    limiter = RateLimiter(120, clock=lambda: now[0])
    assert sum(limiter.allow() for _ in range(200)) == 120  # a burst of one second's worth
    now[0] = 0.5
    assert sum(limiter.allow() for _ in range(200)) == 60  # then 120 a second
    now[0] = 10.0
    assert sum(limiter.allow() for _ in range(200)) == 120  # the bucket holds no more than a second's worth


# ------------------------------------------------------------------------------------ binary meshes
def random_mesh(rng, n: int, m: int) -> DisplayMesh:
    return DisplayMesh(rng.normal(size=(n, 3)).astype(np.float32), rng.normal(size=(n, 3)).astype(np.float32),
                       rng.integers(0, n, size=(m, 3)).astype(np.uint32), rng.integers(0, 12, n).astype(np.uint8),
                       rng.integers(0, 12, n).astype(np.uint8), rng.random(n).astype(np.float32),
                       rng.random(n).astype(np.float32))


def unit(rng, n: int) -> np.ndarray:
    v = rng.normal(size=(n, 3))
    return (v / np.linalg.norm(v, axis=1, keepdims=True)).astype(np.float32)


@pytest.mark.parametrize("n, m", [(3, 1), (4, 2), (5, 3), (6, 4), (101, 77)])
def test_chunk_mesh_round_trip_and_layout(n, m):
    mesh = random_mesh(np.random.default_rng(n), n, m)
    mesh = DisplayMesh(mesh.positions, unit(np.random.default_rng(n), n), *(getattr(mesh, k) for k in
                       ("indices", "mat_a", "mat_b", "blend", "occlusion")))
    wire = wire_mesh(mesh, origin=(1.0, -2.0, 0.5), step=2.0 ** -11)
    data = encode_chunk_mesh((3, -1, 7), wire, revision=12)
    assert data[0] == KIND_CHUNK and data[1] == 3 == protocol.MESH_VERSION
    assert len(data) == (44 + 6 * n + (-6 * n % 4) + 4 * n + 4 * n + (-4 * n % 4) + 6 * m + (-6 * m % 4))
    np.testing.assert_array_equal(np.frombuffer(data, "<i2", 3 * n, 44).reshape(-1, 3), wire.positions)
    chunk, revision, back = decode_chunk_mesh(data)
    assert (chunk, revision) == ((3, -1, 7), 12) and back == wire
    drawn = back.display_mesh()
    # What the page draws: positions within half a step, normals within 2e-4 (about a hundredth of a degree),
    # the blend and occlusion within half a byte step, materials and indices exact.
    np.testing.assert_allclose(drawn.positions, mesh.positions, atol=2.0 ** -12 + 1e-6)
    np.testing.assert_allclose(drawn.normals, mesh.normals, atol=2e-4)
    np.testing.assert_allclose(drawn.blend, mesh.blend, atol=0.5 / 255 + 1e-6)
    np.testing.assert_allclose(drawn.occlusion, mesh.occlusion, atol=0.5 / 255 + 1e-6)
    for name in ("indices", "mat_a", "mat_b"):
        np.testing.assert_array_equal(getattr(drawn, name), getattr(mesh, name))


def test_a_chunk_of_more_than_65536_vertices_sends_u32_indices():
    rng = np.random.default_rng(3)
    n = 70_000
    mesh = DisplayMesh(rng.random((n, 3)).astype(np.float32), unit(rng, n), np.uint32([[0, 69_999, 65_536]]),
                       np.ones(n, np.uint8), np.zeros(n, np.uint8), np.zeros(n, np.float32))
    data = encode_chunk_mesh((0, 0, 0), wire_mesh(mesh))
    assert data[2] & 1  # the flag
    np.testing.assert_array_equal(decode_chunk_mesh(data)[2].indices, mesh.indices)


def test_a_chunks_corner_and_step_make_shared_vertices_decode_alike():
    """Two chunks count their positions from their own corners, in steps that divide the chunk's extent: a vertex
    on their common face decodes to the same float32 in both (no crack between chunks)."""
    from voxelworld.terrain import VoxelVolume

    volume = VoxelVolume((64, 32, 64), voxel_size=0.5, chunk_size=16)
    rng = np.random.default_rng(4)
    face = np.column_stack([np.full(50, 8.0), rng.random(50) * 8, rng.random(50) * 8]).astype(np.float32)
    mesh = DisplayMesh(face, unit(rng, 50), np.uint32([[0, 1, 2]]), np.ones(50, np.uint8), np.zeros(50, np.uint8),
                       np.zeros(50, np.float32))
    left = protocol.chunk_wire_mesh(volume, (0, 0, 0), mesh).display_mesh()
    right = protocol.chunk_wire_mesh(volume, (1, 0, 0), mesh).display_mesh()
    np.testing.assert_array_equal(left.positions, right.positions)
    assert protocol.chunk_origin(volume, (1, 0, 0)) == (8.0, 0.0, 0.0)


def test_a_mesh_reaching_far_from_its_corner_gets_a_coarser_step():
    mesh = DisplayMesh(np.float32([[0, 0, 0], [100, 0, 0], [0, 0, 1]]), unit(np.random.default_rng(0), 3),
                       np.uint32([[0, 1, 2]]), np.ones(3, np.uint8), np.zeros(3, np.uint8), np.zeros(3, np.float32))
    wire = wire_mesh(mesh, step=2.0 ** -11)
    assert wire.step > 2.0 ** -11 and wire.positions.max() <= 32767
    np.testing.assert_allclose(wire.display_mesh().positions, mesh.positions, atol=wire.step)


def test_an_empty_chunk_mesh_removes_the_chunk():
    for empty in (None, DisplayMesh.empty()):
        data = encode_chunk_mesh((1, 2, 3), wire_mesh(empty), revision=4)
        assert len(data) == protocol.CHUNK_HEADER.size == 44
        chunk, revision, mesh = decode_chunk_mesh(data)
        assert chunk == (1, 2, 3) and revision == 4 and mesh.triangle_count == 0


def test_broken_binary_messages_are_refused():
    data = encode_chunk_mesh((0, 0, 0), wire_mesh(random_mesh(np.random.default_rng(0), 5, 3)))
    with pytest.raises(ProtocolError, match="too short"):
        decode_chunk_mesh(data[:-1])
    with pytest.raises(ProtocolError, match="bytes after its arrays"):
        decode_chunk_mesh(data + b"\0\0\0\0")
    with pytest.raises(ProtocolError, match="header"):
        decode_chunk_mesh(data[:10])
    with pytest.raises(ProtocolError, match="expected kind 2"):
        decode_navmesh(data)
    with pytest.raises(ProtocolError, match="expected kind 1 version 3"):
        decode_chunk_mesh(bytes([1, 2]) + data[2:])  # a version 2 message


def test_navmesh_triangles_cover_the_polygons():
    from voxelworld.navigation import WalkableGrid, navmesh_from_grids

    walkable = np.ones((6, 5), bool)
    walkable[2:4, 1:3] = False  # a hole: the polygons are not one rectangle
    lower = WalkableGrid(walkable, np.zeros((6, 5)), 0.0, 0.0, 1.0)
    upper = WalkableGrid(np.ones((2, 2), bool), np.full((2, 2), 3.0), 10.0, 0.0, 1.0)
    navmesh = navmesh_from_grids([lower, upper])
    vertices, indices, level = navmesh_triangles(navmesh)
    corners = vertices[indices].astype(np.float64)
    cross = np.cross(corners[:, 1] - corners[:, 0], corners[:, 2] - corners[:, 0])
    areas = 0.5 * np.abs(cross[:, 1])
    assert np.isclose(areas.sum(), navmesh.area())
    for lvl in set(navmesh.polygon_level.tolist()):
        assert np.isclose(areas[level == lvl].sum(), navmesh.area(lvl))
    revision, positions, back, back_level = decode_navmesh(encode_navmesh(5, navmesh))
    assert revision == 5
    np.testing.assert_array_equal(positions, vertices)
    np.testing.assert_array_equal(back, indices)
    np.testing.assert_array_equal(back_level, level)
    data = encode_navmesh(0, None)
    assert data[0] == KIND_NAVMESH and decode_navmesh(data)[2].shape == (0, 3)


def test_collision_mesh_round_trip():
    rng = np.random.default_rng(1)
    positions, indices, material = rng.normal(size=(7, 3)), rng.integers(0, 7, (5, 3)), rng.integers(1, 9, 5)
    data = encode_collision_mesh(9, positions, indices, material)
    assert data[0] == KIND_COLLISION and len(data) % 4 == 0
    serial, p, i, t = decode_collision_mesh(data)
    assert serial == 9
    np.testing.assert_allclose(p, positions, rtol=1e-6)
    np.testing.assert_array_equal(i, indices)
    np.testing.assert_array_equal(t, material)


# --------------------------------------------------------------------------------------- JSON messages
@pytest.fixture(scope="module")
def world():
    world = World.demo(seed=0)
    for _ in range(30):
        world.step(Inputs(move=(0.0, 1.0), look=(270.0, -20.0)))
    return world


def test_hello_frame_and_hud_messages(world):
    hello = protocol.hello_message(world, 3, fps=60, save_path="w.vwd")
    frame = player_messages.frame_message(world, step_ms=1.25)
    hud = player_messages.hud_message(world)
    for message in (hello, frame, hud):
        json.dumps(message, allow_nan=False)  # plain JSON
    assert hello["type"] == "hello" and hello["client"] == 3 and "control" not in hello  # (the server says who plays)
    assert {m["name"] for m in hello["materials"]} == {m.name for m in world.materials}
    rock = next(m for m in hello["materials"] if m["name"] == "rock")
    assert rock["id"] == world.materials.id_of("rock") and rock["hardness"] == world.materials["rock"].hardness
    assert len(rock["colour"]) == 3 and all(0 <= c <= 1 for c in rock["colour"])
    assert [p["name"] for p in hello["props"]] == [p.name for p in world.props]
    assert hello["world"]["view_distance"] is None  # the demo world is meshed whole (a large world: its metres)
    assert hello["enemies"][0]["joints"] == list(character_rig().skeleton.names)  # CesiumMan's own skeleton
    assert hello["enemies"][0]["parents"] == character_rig().skeleton.parents.tolist()
    assert frame["frame"] == world.frame and frame["step_ms"] == 1.25 and frame["base"] is None
    assert frame["player"]["position"] == pytest.approx(world.player.position.tolist(), abs=1e-4)
    assert not {"npcs", "enemies", "characters"} & set(frame)  # version 3: every actor is in the poses message
    assert set(hud) >= {"aim", "stamina", "currency", "gauge", "bullets", "achievements", "thresholds", "held",
                        "items"}
    assert set(hud["achievements"]) >= {m.group for m in world.materials}
    assert hud["aim"] is None or {"material", "hardness", "damage"} <= set(hud["aim"])


def test_characters_in_hello_and_poses(world):
    hello = protocol.hello_message(world, 3, fps=60, save_path=None)
    rig = character_rig()
    assert hello["character"] == {"url": "/character.glb", "joints": list(rig.skeleton.names)}
    poses = world.snapshot().characters
    frame, base, entries = protocol.decode_poses(protocol.encode_poses(world.frame, protocol.actor_poses(world)))
    assert frame == world.frame and base == 0xFFFFFFFF
    assert [(c.name, c.kind) for c in entries] == [(p.name, p.kind) for p in poses]
    assert [c.kind for c in entries].count("npc") == len(world.agents.npcs)
    for entry, pose in zip(entries, poses):
        rotations = unpack_rotations(entry.rotations)
        assert rotations.shape == (len(rig.skeleton), 4)
        same = np.abs((rotations * pose.local_rotations()).sum(axis=1))  # q and -q are one rotation
        assert np.degrees(2 * np.arccos(np.minimum(same, 1))).max() < 0.3
        np.testing.assert_allclose(entry.position, pose.position, atol=1e-5)
        np.testing.assert_allclose(entry.root, pose.root, atol=1e-5)
        assert entry.yaw == pytest.approx(pose.yaw, abs=1e-4) and entry.scale == pytest.approx(pose.scale)
    enemy = next(c for c in entries if c.kind == "enemy")
    saw = world.agents.enemies[0]
    np.testing.assert_allclose(enemy.blade, saw.motion.part_segment, atol=1e-5)
    contact = saw.motion.contact
    assert enemy.contact == (0 if contact is None else world.materials.id_of(contact.material))
    assert entries[0].blade is None


def test_a_poses_delta_carries_only_the_joints_that_moved():
    world = World.demo(seed=0)
    world.step(Inputs())
    before = protocol.actor_poses(world)
    world.step(Inputs())
    now = protocol.actor_poses(world)
    whole = protocol.encode_poses(world.frame, now)
    delta = protocol.encode_poses(world.frame, now, before, world.frame - 1)
    player = next(p for p in now if p.kind == "player")
    assert np.array_equal(player.rotations, next(p for p in before if p.kind == "player").rotations)  # idle
    assert len(delta) < len(whole)
    frame, base, decoded = protocol.decode_poses(delta, before)
    assert (frame, base) == (world.frame, world.frame - 1)
    for a, b in zip(decoded, now):
        np.testing.assert_array_equal(a.rotations, b.rotations)
    with pytest.raises(ProtocolError, match="base frame does not have"):
        protocol.decode_poses(delta, [p for p in before if p.kind != "npc"])
    with pytest.raises(ProtocolError, match="cut short|bytes after"):
        protocol.decode_poses(whole[:-3])


def test_hud_after_sucking_lists_each_bullets_material(world):
    for _ in range(40):
        world.step(Inputs(look=(270.0, -30.0), suck=True))
    hud = player_messages.hud_message(world)
    assert hud["bullets"] == list(world.actions.suck.bullets) and hud["bullets"]
    assert hud["achievements"] == {g: pytest.approx(world.achievements().get(g, 0.0), abs=1e-3)
                                   for g in hud["achievements"]}
    assert hud["gauge"] < 1.0 and hud["sucking"]


def test_the_use_button_currency_and_opened_treasures_reach_the_page(world):
    assert parse_client_message('{"type": "input", "held": ["use"]}').held == frozenset({"use"})
    # (the module's world is shared: this test, the last, puts back what it changes)
    deformation, currency = world.actions.deformation, world.player.currency
    world.player.add_currency(12.5)
    assert player_messages.hud_message(world)["currency"] == 12.5
    where = tuple(float(v) for v in world.player.position)
    world.actions.deformation = replace(world.actions.deformation, treasures=(Treasure("treasure", where, 1.0),))
    names = [o["name"] for o in player_messages.frame_message(world)["objects"]]
    assert "treasure-0" in names
    world.actions.opened_treasures = (0,)  # an opened treasure is no longer shown
    assert "treasure-0" not in [o["name"] for o in player_messages.frame_message(world)["objects"]]
    world.actions.deformation, world.actions.opened_treasures, world.player.currency = deformation, (), currency


# ------------------------------------------------------------------------------- feedback on the wire
def _wall_world(wall: str = "rock", spawn_x: float = 5.0) -> World:
    """Flat soil at y = 4 m and a wall of ``wall`` from x = 8 m, the player at ``spawn_x`` looking at it (+x)."""
    from voxelworld.terrain import Box, VoxelVolume
    volume = VoxelVolume.from_sdf(lambda x, y, z: y - 4.0, (64, 40, 32), "soil", voxel_size=0.25, chunk_size=16)
    volume.add(Box((8.0, 0.0, 0.0), (10.0, 9.0, 8.0)), wall)
    return World(volume, None, spawn=(spawn_x, 4.0, 4.0), spawn_yaw=270.0)


def test_hud_aim_tells_each_actions_reach_and_the_break_threshold():
    for spawn_x, punch, suck in ((5.0, True, True), (3.0, False, True), (1.0, False, False)):
        world = _wall_world("rock", spawn_x)
        aim = player_messages.hud_message(world)["aim"]
        json.dumps(aim, allow_nan=False)
        assert aim["distance"] == pytest.approx(8.0 - spawn_x, abs=0.15)  # far surfaces are still reported
        assert aim["reaches"] == world.settings.actions.reaches()
        assert aim["reach"] == {"punch": punch, "pull_out": punch, "suck": suck}
        assert aim["break_at"] == world.settings.actions.punch.tool.breaks_at
    assert player_messages.hud_message(_wall_world("iron"))["aim"]["break_at"] is None


def _punch_applied(world: World) -> None:
    """Punch along +x and step until the punch's edit is applied (the frame after its fist strikes)."""
    world.step(Inputs(look=(270.0, 0.0), punch=True))
    while not world.actions.strike.struck:
        world.step(Inputs(look=(270.0, 0.0)))
    world.step(Inputs(look=(270.0, 0.0)))


def test_frame_events_say_why_an_action_was_blocked_and_what_it_did():
    world = _wall_world("iron")
    _punch_applied(world)  # iron holds
    events = player_messages.frame_message(world)["events"]
    blocked = [e for e in events if e["event"] == "blocked"]
    said = [e for e in world.frame_events if type(e).__name__ == "ActionBlocked"]
    assert blocked == [{"event": "blocked", "action": "punch", "reason": "too_hard", "text": said[0].text,
                        "player": "player"}]  # whose: the world's own player's
    world = _wall_world("soil")
    _punch_applied(world)
    message = player_messages.frame_message(world)
    (punched,) = [e for e in message["events"] if e["event"] == "outcome" and e["kind"] == "punch"]
    assert punched["material"] == "soil" and punched["amount"] > 0 and len(punched["position"]) == 3
    assert "events_dropped" not in message  # left out when none were dropped
    steps = []
    for _ in range(60):
        world.step(Inputs(move=(0.0, -1.0), look=(270.0, 0.0)))  # walk back: footsteps on soil
        steps += [e for e in player_messages.frame_message(world).get("events", []) if e["event"] == "footstep"]
    assert steps and {s["material"] for s in steps} == {"soil"} and all(len(s["position"]) == 3 for s in steps)
    json.dumps(message, allow_nan=False)


def test_frame_events_are_capped_and_the_rest_counted():
    world = _wall_world()
    world.step(Inputs())
    from voxelworld.game.events import Footstep
    for n in range(protocol.MAX_FRAME_EVENTS + 6):  # a frame of many events (emitted after it, as a stage would)
        world.emit(Footstep, material="soil", position=(float(n), 4.0, 4.0), sound="soil")
    message = player_messages.frame_message(world)
    kept = [e["position"][0] for e in message["events"] if e["event"] == "footstep"]
    assert len(message["events"]) == protocol.MAX_FRAME_EVENTS
    assert kept == [float(n) for n in range(len(kept))]  # the first ones, in order
    assert message["events_dropped"] == protocol.MAX_FRAME_EVENTS + 6 - len(kept)


def test_an_award_reaches_the_page_as_it_comes_with_its_name():
    from voxelworld.game.deformation import AwardSettings
    from voxelworld.game.play import ActionSettings
    from voxelworld.game.world import WorldSettings
    from voxelworld.terrain import Box, VoxelVolume

    volume = VoxelVolume.from_sdf(lambda x, y, z: y - 4.0, (64, 40, 32), "soil", voxel_size=0.25, chunk_size=16)
    volume.add(Box((8.0, 0.0, 0.0), (10.0, 9.0, 8.0)), "soil")
    settings = WorldSettings(actions=ActionSettings(awards=AwardSettings(thresholds=(0.05, 100.0))))
    world = World(volume, None, settings=settings, spawn=(6.0, 4.0, 4.0), spawn_yaw=270.0)
    awards = []
    for frame in range(30):
        world.step(Inputs(look=(270.0, 0.0), punch=frame % 6 == 0))
        awards += [e for e in player_messages.frame_message(world).get("events", [])
                   if e["event"] == "outcome" and e["kind"] == "award"]
    assert [(a["item"], a["amount"]) for a in awards] == [("soil award 1", 0.05)]
