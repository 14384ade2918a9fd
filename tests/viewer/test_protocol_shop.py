"""The shop and goals on the wire (issue 32, section 5): the input message's ``buy``, checked; the HUD message's
``shop`` (each upgrade's level and next price) and ``goals``; the ``bought`` and ``goal`` events of a frame."""

from __future__ import annotations

import json

import pytest

from voxelworld.game.world import Inputs, World
from voxelworld.viewer.player_messages import frame_message, hud_message
from voxelworld.viewer.protocol import InputMessage, ProtocolError, parse_client_message


def test_an_input_message_may_ask_to_buy_an_upgrade_of_the_table():
    message = parse_client_message(json.dumps({"type": "input", "held": [], "buy": "suck_reach"}))
    assert message == InputMessage(held=frozenset(), buy="suck_reach")
    assert parse_client_message('{"type": "input"}').buy is None
    with pytest.raises(ProtocolError, match='buy = "jetpack" is out of range.*punch_damage, suck_reach, breaker'):
        parse_client_message('{"type": "input", "buy": "jetpack"}')
    with pytest.raises(ProtocolError, match="buy = 3"):
        parse_client_message('{"type": "input", "buy": 3}')


def test_the_hud_lists_the_shop_and_the_goals_and_a_frame_tells_what_was_bought_and_reached():
    world = World.demo(seed=0, npcs=0)
    world.player.add_currency(2.5)
    hud = hud_message(world)
    assert [(u["name"], u["level"], u["max_level"], u["cost"], u["affordable"]) for u in hud["shop"]] == [
        ("punch_damage", 0, 3, 2.0, True), ("suck_reach", 0, 3, 2.0, True), ("breaker", 0, 1, 10.0, False)]
    assert hud["goals"] == [{"name": "open_treasures", "text": "open three treasures", "done": False},
                            {"name": "reach_iron", "text": "reach the iron", "done": False},
                            {"name": "cool_lava", "text": "cool the lava", "done": False}]
    world.step(Inputs(buy="punch_damage"))
    assert {"event": "bought", "upgrade": "punch_damage", "level": 1, "cost": 2.0,
            "currency": 0.5, "player": "player"} in frame_message(world)["events"]
    after = hud_message(world)
    assert after["shop"][0]["level"] == 1 and after["shop"][0]["cost"] == 4.0 and not after["shop"][1]["affordable"]
    world.step(Inputs(buy="punch_damage"))
    assert {"event": "blocked", "action": "buy", "reason": "not_enough_currency",
            "text": "not enough currency: punch damage costs 4, you have 0.5", "player": "player"} in \
        frame_message(world)["events"]
    world.player.position[:] = (24.5, world.player.position[1], 26.4)  # 0.9 m before the iron block's face
    said = []
    for _ in range(60):  # walk into it
        world.step(Inputs(move=(0.0, 1.0), look=(270.0, 0.0)))
        said += frame_message(world).get("events", [])
    assert [e for e in said if e["event"] == "goal"] == [
        {"event": "goal", "goal": "reach_iron", "text": "reach the iron", "reached": 1, "goals": 3, "player": "player"}]
    assert hud_message(world)["goals"][1]["done"]
