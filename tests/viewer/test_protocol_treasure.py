"""The frame's side of treasure (issue 32): a treasure's depth in ``objects``, what use would take (``use``) and the
``opened`` event the page shows the reward by."""

from __future__ import annotations

from voxelworld.viewer.player_messages import FRAME_STATE, frame_message

from ..game.test_play import press
from ..game.test_treasure_play import fragment_between
from ..game.test_use import BURIED, dig_to_the_treasure, look_at, treasure_world


def treasure_entry(message: dict) -> dict:
    return next(o for o in message["objects"] if o["name"] == "treasure-0")


def test_the_frame_says_how_deep_the_treasure_lies_and_what_use_would_take():
    world = treasure_world("iron")
    look = look_at(world, BURIED)
    press(world, look=look, frames_after=0)
    buried = frame_message(world)
    assert treasure_entry(buried)["depth"] == 0.8
    assert buried["use"] == {"name": "treasure-0", "kind": "buried", "depth": 0.8} and "use" in FRAME_STATE
    piece = fragment_between(world)
    press(world, look=look, frames_after=0)
    assert frame_message(world)["use"]["name"] == piece.name  # a fragment before a buried treasure
    dig_to_the_treasure(world)
    press(world, look=look, frames_after=0)
    exposed = frame_message(world)
    assert treasure_entry(exposed)["depth"] == 0.0
    assert exposed["use"] == {"name": "treasure-0", "kind": "treasure", "depth": 0.0}  # before the nearer fragment
    world.step(type(world.inputs)(look=look, use=True))
    opened = frame_message(world)
    assert {"event": "opened", "name": "treasure-0", "position": list(BURIED), "material": "iron", "stamina": 0.0,
            "currency": 10.0, "player": "player"} in opened["events"]
    assert opened["use"] == {"name": piece.name, "kind": "fragment", "depth": 0.0}
    assert all(o["name"] != "treasure-0" for o in opened["objects"])
    press(world, look=(90.0, 0.0), frames_after=0)
    assert frame_message(world)["use"] is None
