"""Frame and HUD deltas (play protocol 6, issue #35 §2): a flying object's new place is sent as ``moved`` (its
name and position), the frame's ``player`` and the HUD's ``aim`` as their own fields that changed, and a page that
lays every delta over what it has (``frame_messages.merged``, and ``web/deltas.js``, its mirror, run in node) holds
the frame and HUD it would have been sent whole."""

from __future__ import annotations

import json
import shutil
import subprocess

import pytest

from voxelworld.game.world import Inputs, World
from voxelworld.viewer.frame_messages import delta, merged, objects_delta
from voxelworld.viewer.server import PlayServer

from .test_input_seq import WEB_DIR

FRAGMENT = {"name": "fragment-1", "kind": "fragment", "position": [1.0, 2.0, 3.0], "material": "soil",
            "resting": False}


def test_an_object_that_only_moved_is_sent_as_its_name_and_place():
    flying, landed = FRAGMENT | {"position": [1.0, 1.5, 3.0]}, FRAGMENT | {"position": [1.0, 1.0, 3.0], "resting": True}
    other = FRAGMENT | {"name": "fragment-2"}
    assert objects_delta([FRAGMENT, other], [flying, other]) == {
        "objects": [], "moved": [["fragment-1", 1.0, 1.5, 3.0]], "objects_gone": []}
    # Resting (another field) changed too: sent whole; a new one whole; a gone one named.
    found = objects_delta([flying, other], [landed, FRAGMENT | {"name": "fragment-3"}])
    assert found == {"objects": [landed, FRAGMENT | {"name": "fragment-3"}], "moved": [], "objects_gone": ["fragment-2"]}
    state = {"type": "frame", "base": None, "objects": [flying, other]}
    assert merged(state, {"type": "frame", "base": 1} | found)["objects"] == [landed, FRAGMENT | {"name": "fragment-3"}]


def test_only_the_nested_fields_are_sent_as_deltas_of_their_own():
    before = {"player": {"name": "ann", "position": [0, 1, 2], "grounded": True},
              "aim": {"material": "soil", "point": [1, 1, 1]}, "use": {"kind": "treasure", "name": "t1"}}
    now = {"player": {"name": "ann", "position": [0, 1, 3], "grounded": True},
           "aim": {"material": "soil", "point": [1, 1, 2]}, "use": {"kind": "treasure", "name": "t2"}}
    assert delta(before, now) == {"player": {"position": [0, 1, 3]}, "aim": {"point": [1, 1, 2]},
                                  "use": {"kind": "treasure", "name": "t2"}}  # "use" may change its keys: whole
    assert delta(before, now | {"aim": None}) == delta(before, now) | {"aim": None}
    assert delta(before | {"aim": None}, now)["aim"] == now["aim"]  # the page has no aim: whole
    for old, new in ((before, now), (before, now | {"aim": None}), (before | {"aim": None}, now)):
        assert merged(old | {"base": None}, {"base": 0} | delta(old, new)) == new | {"base": 0}


def punching_session(frames: int = 150) -> list[tuple[dict, dict, dict | None, dict | None]]:
    """The world's own page's messages while its player punches the ground in front of it (fragments fly and
    land): (whole frame, whole HUD, frame delta, HUD delta) each frame (the deltas None when none was made)."""
    world = World.demo(seed=0, npcs=0)
    play = PlayServer(world)
    play.encode_all()
    out = []
    for frame in range(frames):
        look = (90.0 + 15.0 * (frame % 40 < 20), -45.0)
        packet = play.step_frame(Inputs(move=(0.0, 0.1), look=look, punch=frame % 2 == 0))
        view = packet.views["player"]
        out.append((json.loads(view.frame_text), view.hud_text, view.frame_delta, view.hud_delta))
    return out


def test_a_page_following_the_deltas_holds_what_it_would_be_sent_whole():
    frame_state = hud_state = None
    hud_whole, moved, nested = None, 0, 0
    messages = []
    for whole, hud_text, frame_delta, hud_delta in punching_session():
        message = whole if frame_delta is None or frame_state is None else json.loads(frame_delta)
        moved += len(message.get("moved", []))
        nested += "player" in message and "name" not in message["player"]
        state = None if frame_state is None else {k: v for k, v in frame_state.items()
                                                  if k not in ("events", "events_dropped")}
        frame_state = merged(state, message)
        skip = ("base", "cuts", "events", "events_dropped", "objects")  # (the objects by name: in any order)
        assert {k: v for k, v in frame_state.items() if k not in skip} == {
            k: v for k, v in whole.items() if k not in skip}
        assert {o["name"]: o for o in frame_state["objects"]} == {o["name"]: o for o in whole["objects"]}
        messages.append(("frame", state, message))
        if hud_text is not None:
            hud_whole = json.loads(hud_text)
            hud_message = hud_whole if hud_delta is None or hud_state is None else json.loads(hud_delta)
            messages.append(("hud", hud_state, hud_message))
            hud_state = merged(hud_state, hud_message)
            assert {k: v for k, v in hud_state.items() if k != "base"} == {
                k: v for k, v in hud_whole.items() if k != "base"}
    assert moved > 20 and nested > 20  # flying fragments and a moving player were sent as deltas of their own
    if shutil.which("node") is not None:  # the page's own merging gives the same (run where node is)
        page_merges_alike(messages)


def page_merges_alike(messages: list[tuple[str, dict | None, dict]]) -> None:
    script = (f"import {{ merged }} from {json.dumps((WEB_DIR / 'deltas.js').as_uri())};\n"
              "import { readFileSync } from 'node:fs';\n"
              "let out = [];\n"
              "for (const [state, message] of JSON.parse(readFileSync(0, 'utf8'))) out.push(merged(state, message));\n"
              "console.log(JSON.stringify(out));")
    cases = [[state, message] for _, state, message in messages]
    done = subprocess.run(["node", "--input-type=module", "-e", script], input=json.dumps(cases), capture_output=True,
                          text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    for (_, state, message), page in zip(messages, json.loads(done.stdout)):
        assert page == merged(state, message)


@pytest.mark.skipif(shutil.which("node") is None, reason="needs node to run the page's deltas.js")
def test_the_page_merges_as_the_reference_does():
    before = {"type": "frame", "base": None, "player": {"name": "ann", "position": [0, 0, 0]},
              "objects": [FRAGMENT, FRAGMENT | {"name": "fragment-2"}]}
    message = {"type": "frame", "base": 4, "player": {"position": [1, 0, 0]}, "moved": [["fragment-1", 5, 5, 5]],
               "objects": [FRAGMENT | {"name": "fragment-9"}], "objects_gone": ["fragment-2"]}
    page_merges_alike([("frame", before, message), ("hud", None, {"type": "hud", "base": None, "aim": None})])


def test_an_object_s_fields_are_made_again_exactly_when_it_changed():
    """``player_messages._objects`` keeps the fields of an object whose VoxelObject is the last frame's (a resting
    fragment): what it gives is what making every object's fields anew gives, frame after frame, as fragments fly,
    land and go; the resting ones' fields are the last frame's own."""
    from voxelworld.game.all_players import every_actions, object_name
    from voxelworld.viewer import player_messages
    from voxelworld.viewer.protocol import _round

    world = World.demo(seed=0, npcs=0)
    reused = 0
    before: list = []
    for frame in range(150):
        world.step(Inputs(move=(0.0, 0.1), look=(90.0 + 15.0 * (frame % 40 < 20), -45.0), punch=frame % 2 == 0))
        kept = player_messages._objects(world)
        reused += sum(1 for o in kept if any(o is b for b in before))
        anew = [{"name": object_name(actions, o.name), "kind": o.kind, "position": _round(o.object.position),
                 "material": o.object.material, "resting": o.resting}
                for actions in every_actions(world) for o in [*([actions.held] if actions.held else []),
                                                              *actions.objects]]
        assert [o for o in kept if o["kind"] != "treasure"] == anew
        before = kept
    assert reused > 100 and any(o["resting"] for o in before)
