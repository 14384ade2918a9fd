"""Each view's poses and events (play protocol 5, issue #35: interest management of actors and events by distance).

A page is sent the actors (players, NPCs, enemies) and events near its own player (a watching page: the world's
own player's) finely and the far ones coarsely, by their distance across the ground (x, z) from that player's
feet (:data:`BANDS`):

- within 10 m: every joint, every frame (as before); the page's own player always;
- within 25 m: every joint, every other frame (30 times a second at 60; its place, yaw and root every frame);
- farther, within the world's view distance (``WorldSettings.view_distance``; every actor where it is None): the
  big joints alone (:data:`FAR_JOINTS`: the root, the chest, the shoulders, the hips and the knees), every
  :data:`FAR_EVERY` frames (15 times a second); the actor is flagged
  :data:`~voxelworld.viewer.frame_messages.COARSE`: the page keeps its other joints as it has them, or the rest pose;
- beyond the view distance: not sent at all (the page removes it; coming back it is new, and sent whole).

An actor that comes within 25 m again is sent every joint at once. Events: the page's own player's all; of the
others, none of those the page shows for its own player alone (``blocked``, ``opened``, ``bought``, ``goal``, the
outcomes ``suck``, ``treasure`` and ``award``),
footsteps and landings within 25 m (their sound is silent farther), those with a place (an outcome's debris)
within the view distance, those without one all. Objects (fragments, held and thrown pieces, treasures): those
within the view distance (:func:`view_objects`), every one where it is None.

:class:`ViewPoses` keeps, for every view some page is sent, what a page of that view that follows every frame
holds of each actor (the rotations sent; :data:`~voxelworld.viewer.frame_messages.UNSENT` for a joint never sent),
and makes a frame's poses message whole and as a delta against the frame before. A page that skipped frames gets
the whole one: the same rotations for every joint a following page has, but the joints a coarse actor was never
sent, which wait for it to come near.

Examples
--------
>>> from voxelworld.game.world import Inputs, World
>>> from voxelworld.viewer.frame_messages import UNSENT, actor_poses, decode_poses
>>> world = World.demo(seed=0)
>>> _ = world.step(Inputs())
>>> poses, views = actor_poses(world), ViewPoses(world)
>>> x, _, z = (float(c) for c in world.player.position)
>>> whole, against = views.encode("player", (x, z), world.frame, poses)
>>> [pose.kind for pose in decode_poses(whole)[2]], against is None
(['player', 'npc', 'npc', 'npc', 'enemy'], True)
>>> far = decode_poses(views.encode("guest", (x + 60.0, z), world.frame, poses)[0])[2]  # every actor 60 m off
>>> [int((pose.rotations != UNSENT).sum()) for pose in far] == [len(FAR_JOINTS)] * len(poses)
True
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

import numpy as np

from ..game.poses import character_rig
from .frame_messages import UNSENT, ActorPose, encode_actor, poses_header

if TYPE_CHECKING:
    from ..game.world import World

__all__ = ["BANDS", "FAR", "FAR_EVERY", "FAR_JOINTS", "ViewPoses", "view_objects", "view_events"]

# (up to m across the ground from a view's player, every how many frames an actor's joints are sent): every joint
# every frame within 10 m, every other frame (30 a second at 60) within 25 m
BANDS = ((10.0, 1), (25.0, 2))
FAR = len(BANDS)  # the band beyond them: the big joints alone
FAR_EVERY = 4  # frames: a far actor has its big joints sent at most this often (15 times a second at 60)
# the big joints a far actor is sent (CesiumMan's root, chest, shoulders, hips and knees: its stance and swing)
FAR_JOINTS = ("Skeleton_torso_joint_1", "torso_joint_3", "Skeleton_arm_joint_L__4_", "Skeleton_arm_joint_R",
              "leg_joint_L_1", "leg_joint_R_1", "leg_joint_L_2", "leg_joint_R_2")
OWN_ONLY = frozenset({"blocked", "opened", "bought", "goal"})  # events a page shows for its own player alone
# the outcomes a page shows or plays for another player (web/effects.js, sound.js); the others (suck, treasure,
# award) only its own player's HUD reads
OTHERS_OUTCOMES = frozenset({"punch", "dig", "pull_out", "explode", "cool", "attach", "lost", "nothing", "bullet",
                             "throw"})
SMALL = frozenset({"footstep", "landed"})  # events heard and seen only near (their sound is silent at 25 m)


def _far_mask(joints: int) -> np.ndarray:
    names = list(character_rig().skeleton.names)
    mask = np.zeros(joints, bool)
    mask[[names.index(name) for name in FAR_JOINTS if names.index(name) < joints]] = True
    return mask


def _ground_distance(position: Any, place: tuple[float, float]) -> float:
    return math.hypot(float(position[0]) - place[0], float(position[2]) - place[1])


class ViewPoses:
    """The poses of every view a page is sent (see the module), for ``world`` (whose view distance bounds what is
    sent: None sends every actor). Only the world's thread uses it."""

    def __init__(self, world: World) -> None:
        view = world.settings.view_distance
        self.reach = None if view is None else float(view)
        self.near = BANDS[-1][0]  # within it an actor's every joint is sent (its events heard)
        self._far: np.ndarray | None = None  # the FAR_JOINTS as a mask over the poses' joints
        self._every = np.ones(0, bool)  # every joint
        # view -> (frame, {(kind, name): (rotations its pages hold, the band it was in)})
        self._held: dict[str, tuple[int, dict[tuple[str, str], tuple[np.ndarray, int]]]] = {}
        self._parts: dict[tuple, tuple] = {}  # the frame's actor parts that several views share (_part)
        self._parts_frame = -1

    def keep_only(self, views: set[str]) -> None:
        """Forget the views not in ``views`` (no page is sent them: their next message starts whole)."""
        for gone in set(self._held) - views:
            del self._held[gone]

    def band(self, distance: float) -> int | None:
        """The band (an index of :data:`BANDS`, :data:`FAR` beyond them) of an actor ``distance`` m from a view's
        player across the ground, None beyond the view distance (not sent)."""
        if self.reach is not None and distance > self.reach:
            return None
        return next((n for n, (metres, _) in enumerate(BANDS) if distance <= metres), FAR)

    def encode(self, view: str, place: tuple[float, float], frame: int, poses: list[ActorPose]
               ) -> tuple[bytes, bytes | None]:
        """The poses message of ``frame`` for the pages of ``view`` (a player's name), whose player stands at
        ``place`` (x, z, m; that player always in the nearest band): whole, and as a delta against the frame before
        (None when this view was not encoded then)."""
        if frame != self._parts_frame:
            self._parts, self._parts_frame = {}, frame
        joints = len(poses[0].rotations) if poses else 0
        if self._far is None or len(self._far) != joints:
            self._far, self._every = _far_mask(joints), np.ones(joints, bool)
        last_frame, before = self._held.get(view, (-2, {}))
        follows = last_frame == frame - 1
        held: dict[tuple[str, str], tuple[np.ndarray, int]] = {}
        whole, delta = [], []
        for n, pose in enumerate(poses):
            mine = pose.kind == "player" and pose.name == view
            band = 0 if mine else self.band(_ground_distance(pose.position, place))
            if band is None:
                continue  # beyond the view: not sent (the page removes it)
            key = (pose.kind, pose.name)
            old = before.get(key) if follows else None
            coarse = band == FAR
            every = FAR_EVERY if coarse else BANDS[band][1]
            finer = old is not None and old[1] == FAR and not coarse  # the page may lack some of its joints
            if old is None or finer or (frame + n) % every == 0:
                rotations = pose.rotations
                if coarse:
                    rotations = np.full(joints, UNSENT, np.uint32) if old is None else old[0].copy()
                    rotations[self._far] = pose.rotations[self._far]
            else:
                rotations = old[0]
            held[key] = (rotations, band)
            whole.append(self._part(n, pose, rotations, None, coarse))
            delta.append(self._part(n, pose, rotations, None if old is None or finer else old[0], coarse))
        self._held[view] = (frame, held)
        count = len(whole)
        return (poses_header(frame, count, joints) + b"".join(whole),
                poses_header(frame, count, joints, frame - 1) + b"".join(delta) if follows else None)

    def _part(self, n: int, pose: ActorPose, rotations: np.ndarray, held: np.ndarray | None, coarse: bool) -> bytes:
        """Actor ``n``'s part of a message (:func:`~voxelworld.viewer.frame_messages.encode_actor`): ``rotations``
        (every joint, or the big ones when ``coarse``), or those of them that differ from ``held``. Made once a
        frame for all the views that send the same arrays (most do: each near actor's rotations of this frame and
        the last); the arrays are kept with it, so that no other array takes their ids within the frame."""
        key = (n, coarse, id(rotations), None if held is None else id(held))
        kept = self._parts.get(key)
        if kept is None:
            sent = rotations != held if held is not None else self._far if coarse else self._every
            assert sent is not None
            kept = self._parts[key] = (encode_actor(pose, rotations, sent, coarse), rotations, held)
        return kept[0]


def view_objects(objects: list[dict[str, Any]], place: tuple[float, float], reach: float | None
                 ) -> list[dict[str, Any]]:
    """The frame's ``objects`` (the pages' form, each with its ``position``) a page whose player stands at
    ``place`` (x, z, m) is sent: those within ``reach`` m of it across the ground (the view distance), every one
    (the list itself) where ``reach`` is None. One that goes out of reach is gone for the page, and new to it when
    it comes back.

    >>> near, far = {"name": "a", "position": [3.0, 1.0, 4.0]}, {"name": "b", "position": [40.0, 0.0, 0.0]}
    >>> [o["name"] for o in view_objects([near, far], (0.0, 0.0), 20.0)]
    ['a']
    >>> len(view_objects([near, far], (0.0, 0.0), None))
    2
    """
    if reach is None:
        return objects
    return [o for o in objects if _ground_distance(o["position"], place) <= reach]


def view_events(events: list[dict[str, Any]], view: str, place: tuple[float, float] | None, near: float,
                reach: float | None) -> list[dict[str, Any]]:
    """The frame's ``events`` (the pages' form, each with ``player``) a page of the player ``view`` standing at
    ``place`` (x, z, m; None: every event) is sent (see the module): its own player's all, the others' by kind and
    distance.

    >>> step = {"event": "footstep", "position": [30.0, 0.0, 0.0], "player": "guest"}
    >>> view_events([step], "player", (0.0, 0.0), 25.0, None), len(view_events([step], "guest", (0.0, 0.0), 25.0, None))
    ([], 1)
    """
    if place is None:
        return events
    kept = []
    for event in events:
        kind, whose, position = event["event"], event.get("player", ""), event.get("position")
        if whose and whose != view and (kind in OWN_ONLY or kind == "outcome" and event["kind"] not in OTHERS_OUTCOMES):
            continue
        if whose != view and position is not None:
            distance = _ground_distance(position, place)
            if distance > (near if kind in SMALL else math.inf if reach is None else reach):
                continue
        kept.append(event)
    return kept
