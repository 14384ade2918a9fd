"""What each page is sent of a world several play (issue #35, play protocol 5): only the views pages play are
encoded; poses by distance from the page's player (every joint near, the big joints at a lower rate far, nothing
past the view distance; an actor coming near again is sent whole) and the events near it."""

from __future__ import annotations

import json

import numpy as np
import pytest

from voxelworld.game.world import Inputs, World
from voxelworld.viewer import pose_views
from voxelworld.viewer.frame_messages import COARSE, UNSENT, actor_poses, decode_poses, encode_actor, merged
from voxelworld.viewer.pose_views import BANDS, FAR_EVERY, FAR_JOINTS, ViewPoses, view_events
from voxelworld.viewer.server import PlayServer

from .test_page_constants import NODE, run_decoder


@pytest.fixture(scope="module")
def base_world() -> World:
    return World.demo(seed=0, npcs=0)


def two_players(far: bool) -> World:
    """The demo world (no NPCs) with a guest 2 m beside the world's own player (along -x), or (``far``) 27 m off
    (along +x, by the world's edge)."""
    world = World.demo(seed=0, npcs=0)
    x, y, z = (float(c) for c in world.player.position)
    world.join("guest", spawn=(x + 27.0 if far else x - 2.0, y, z))
    return world


def test_only_the_views_pages_play_and_the_world_s_own_are_encoded():
    world = two_players(far=False)
    world.join("idle", spawn=world.player.position)
    play = PlayServer(world)
    play.encode_all()
    packet = play.step_frame({"guest": Inputs()})  # a page plays the guest; "idle" is in its grace, or nobody's
    assert set(packet.views) == {"player", "guest"}
    assert packet.views["guest"].frame_delta is not None
    packet = play.step_frame({"guest": Inputs(), "idle": Inputs()})  # its page came back: its view starts whole
    idle = packet.views["idle"]
    assert idle.frame_delta is None and idle.poses_delta is None and idle.hud_text is not None
    assert idle.hud_delta is None
    assert json.loads(idle.frame_text)["player"]["name"] == "idle"
    assert set(play.step_frame(Inputs()).views) == {"player"}  # no page plays: the watching pages' view alone


def guest_of(poses: list) -> object:
    return next(pose for pose in poses if pose.name == "guest")


def test_a_far_actor_gets_its_big_joints_at_a_lower_rate_and_every_joint_when_it_comes_near():
    world = two_players(far=True)
    views = ViewPoses(world)
    big = np.isin(np.array(list(pose_views.character_rig().skeleton.names)), FAR_JOINTS)
    place = lambda: (float(world.player.position[0]), float(world.player.position[2]))  # noqa: E731
    held, carried = [], []
    for _ in range(2 * FAR_EVERY + 1):
        world.step([Inputs(), Inputs(punch=True, look=(270.0, -30.0))])  # the guest punches the ground
        poses = actor_poses(world)
        whole, against = views.encode("player", place(), world.frame, poses)
        held = decode_poses(against if against is not None else whole, held)[2]
        if against is not None:
            mask = decode_mask(against, "guest")
            carried.append(int(mask.sum()))
            assert not mask[~big].any()  # the small joints never
        guest = guest_of(held)
        assert np.array_equal(guest.rotations[~big], np.full((~big).sum(), UNSENT))  # (the page: rest pose)
        if against is None or carried[-1]:  # the whole message, or a delta that carried the guest's big joints
            assert np.array_equal(guest.rotations[big], guest_of(poses).rotations[big])
    assert sum(1 for count in carried if count) <= -(-len(carried) // FAR_EVERY) + 1  # every FAR_EVERY frames
    seat = world.joined[0]
    seat.player.position = world.player.position + (1.5, 0.0, 0.0)  # the guest comes near
    world.step([Inputs(), Inputs()])
    poses = actor_poses(world)
    whole, against = views.encode("player", place(), world.frame, poses)
    assert decode_mask(against, "guest").all()  # every joint at once
    held = decode_poses(against, held)[2]
    assert np.array_equal(guest_of(held).rotations, guest_of(poses).rotations)


def decode_mask(message: bytes, name: str) -> np.ndarray:
    """The joint mask of actor ``name`` in a poses message (and a check of its coarse flag's agreement)."""
    joints = int.from_bytes(message[12:14], "little")
    offset = 16
    for _ in range(int.from_bytes(message[2:4], "little")):
        length = message[offset + 1]
        actor = message[offset + 2:offset + 2 + length].decode()
        offset += 2 + length
        flags = message[offset + 1]
        offset += 34
        mask = np.unpackbits(np.frombuffer(message, np.uint8, (joints + 7) // 8, offset), bitorder="little")[:joints]
        offset += (joints + 7) // 8 + 4 * int(mask.sum()) + (24 if flags & 1 else 0)
        if actor == name:
            return mask.astype(bool)
    raise AssertionError(f"{name} not in the message")


def test_a_page_that_follows_and_one_sent_the_whole_message_draw_the_same_and_past_the_view_nothing():
    world = two_players(far=False)
    views = ViewPoses(world)
    follower, late = [], []
    seat = world.joined[0]
    # the guest is carried off along +x (within 10 m, 25 m, then 28 m: coarse), stays there, then comes back
    distances = [2.0 + frame for frame in range(27)] + [28.0] * 4 + [2.0] * 4
    for frame, away in enumerate(distances):
        seat.player.position = world.player.position + (away, 0.0, 0.0)
        world.step([Inputs(), Inputs()])
        poses = actor_poses(world)
        place = (float(world.player.position[0]), float(world.player.position[2]))
        whole, against = views.encode("player", place, world.frame, poses)
        follower = decode_poses(against if against is not None else whole, follower)[2]
        late = decode_poses(whole, late if frame % 7 else [])[2]  # a page that skips frames: every 7th anew
        for a, b, now in zip(follower, late, poses):
            assert a.name == b.name == now.name and a.position == b.position
            known = (a.rotations != UNSENT) & (b.rotations != UNSENT)
            assert np.array_equal(a.rotations[known], b.rotations[known])
            if now.name == "player" or now.name == "guest" and away <= BANDS[0][0]:
                assert np.array_equal(a.rotations, now.rotations)  # near: exact, every frame, on both pages
                assert np.array_equal(b.rotations, now.rotations)
        if away > BANDS[-1][0]:
            assert decode_mask(whole, "guest").sum() == len(FAR_JOINTS)  # coarse
    views.reach = 20.0  # a world that streams, 20 m of view: the guest (28 m off) is not sent at all
    seat.player.position = world.player.position + (28.0, 0.0, 0.0)
    world.step([Inputs(), Inputs()])
    whole, _ = views.encode("player", place, world.frame, actor_poses(world))
    assert [pose.name for pose in decode_poses(whole)[2]] == ["player", "chainsaw"]


def test_the_events_of_others_the_page_never_shows_and_their_far_footsteps_are_left_out():
    step = {"event": "footstep", "position": [26.0, 0.0, 0.0], "material": "grass", "sound": "grass"}
    suck = {"event": "outcome", "kind": "suck", "position": [1.0, 0.0, 0.0], "material": "soil", "amount": 0.1}
    punch = {"event": "outcome", "kind": "punch", "position": [40.0, 0.0, 0.0], "material": "soil", "amount": 0.5}
    blocked = {"event": "blocked", "action": "punch", "reason": "out_of_reach", "text": "out of reach"}
    events = [e | {"player": who} for e in (step, suck, punch, blocked) for who in ("me", "you")]
    kept = view_events(events, "me", (0.0, 0.0), 25.0, None)
    assert [(e["event"], e["player"]) for e in kept] == [("footstep", "me"), ("outcome", "me"), ("outcome", "me"),
                                                         ("outcome", "you"), ("blocked", "me")]
    assert view_events(events, "me", (0.0, 0.0), 25.0, 30.0)[3:] == [blocked | {"player": "me"}]  # past the view
    assert len(view_events([step | {"player": "you"}], "me", (2.0, 0.0), 25.0, None)) == 1  # 24 m: heard
    assert view_events(events, "me", None, 25.0, None) == events


def test_a_view_s_frame_and_its_skipped_frame_events_carry_only_its_events():
    world = two_players(far=False)
    play = PlayServer(world)
    play.encode_all()
    seen = {"player": [], "guest": []}
    for _ in range(30):
        packet = play.step_frame({"guest": Inputs(punch=True, look=(0.0, -60.0))})
        for name in seen:
            text = packet.views[name].events_text
            seen[name] += [] if text is None else json.loads(text)["events"]
    assert any(e["event"] == "blocked" or e["event"] == "outcome" for e in seen["guest"])
    assert not [e for e in seen["player"] if e["player"] == "guest" and e["event"] in ("blocked", "opened")]


@NODE
def test_the_page_leaves_a_coarse_actor_s_unsent_joints_as_they_are(base_world):
    pose = actor_poses(base_world)[0]
    sent = np.zeros(len(pose.rotations), bool)
    sent[:3] = True
    part = encode_actor(pose, pose.rotations, sent, coarse=True)
    header = (5).to_bytes(1, "little") + (3).to_bytes(1, "little") + (1).to_bytes(2, "little") + \
        (7).to_bytes(4, "little") + (6).to_bytes(4, "little") + len(pose.rotations).to_bytes(2, "little") + bytes(2)
    message = header + part
    assert message[16 + 2 + len(pose.name) + 1] & COARSE
    out = run_decoder(f"""const data = Uint8Array.from({json.dumps(list(message))}).buffer;
const got = d.decodePoses(data, new Map());
console.log(JSON.stringify({{error: got.error ?? null, rotations: Array.from(got.characters[0].rotations, (v) =>
  Number.isNaN(v) ? null : v)}}));""")
    assert out["error"] is None
    rotations = np.array(out["rotations"], dtype=object).reshape(-1, 4)
    assert all(v is not None for v in rotations[:3].ravel()) and all(v is None for v in rotations[3:].ravel())
    python = decode_poses(message)[2][0].rotations  # the server's own decoder agrees
    assert np.array_equal(python[:3], pose.rotations[:3]) and (python[3:] == UNSENT).all()


def test_a_page_is_sent_the_objects_within_the_view_distance():
    """On a world that streams (its view distance 20 m here) a page is sent the objects within it of its player:
    the far guest's fragments reach the guest's page, not the world's own player's, until that player comes near; a
    page that follows the deltas holds what the whole frame says. Meshed whole, every page is sent every object."""
    world = two_players(far=True)
    play = PlayServer(world)
    play.encode_all()
    play.encoder.poses.reach = 20.0  # (as a world that streams with a view of 20 m: the guest is 27 m off)
    down = (90.0, -45.0)
    following: dict | None = None
    near_at = 90
    for frame in range(120):
        if frame == near_at:  # the world's own player goes to within 3 m of the guest and its fragments
            world.player.position = world.joined[0].player.position - (3.0, 0.0, 0.0)
        guest = Inputs(look=down, punch=frame % 2 == 0 and frame < 60)
        packet = play.step_frame({"player": Inputs(look=down), "guest": guest})
        mine = packet.views["player"]
        following = merged(following, json.loads(mine.frame_text if following is None else
                                                 mine.frame_delta or mine.frame_text))
        names = {o["name"] for o in json.loads(mine.frame_text)["objects"]}
        assert {o["name"] for o in following["objects"]} == names
        theirs = {o["name"] for o in json.loads(packet.views["guest"].frame_text)["objects"]}
        if frame == 70:
            assert any(name.startswith("guest/") for name in theirs)  # its punches' fragments
            assert not any(name.startswith("guest/") for name in names)
            before_near = theirs
    assert before_near <= names  # near them: the guest's fragments sent to the world's own page too
    play.encoder.poses.reach = None  # a world meshed whole
    packet = play.step_frame({"player": Inputs(), "guest": Inputs()})
    assert json.loads(packet.views["player"].frame_text)["objects"] == \
        json.loads(packet.views["guest"].frame_text)["objects"]
