"""The chainsaw enemy: CesiumMan swinging a chainsaw along a wall, slowed by the hardness of what it cuts.

A :class:`ChainsawEnemy` is the packaged character (:data:`~voxelworld.motion.CESIUM_MAN`, its own skeleton)
playing a full-body looping chainsaw swing (hips, chest and right arm move) with
:class:`~voxelworld.motion.ContactMotion`, stood in the world by ``motion.place`` (its feet at ``position``, turned
to ``facing``, scaled to ``settings.height``). Its contact query
(:class:`~voxelworld.game.terrain_contacts.TerrainContacts`) tests the blade's capsule against the terrain's
collision mesh near the enemy and reads the hardness of the *voxel* behind the contact point, so the arm slows
more in rock than in soil while the hips and chest drop to the body's rate.

While the blade is in contact it carves, 15 times a second by default (``carve_interval``; 0: every contact frame): a
``remove`` with a capsule along the blade goes through the terrain's hardness/damage gate (``Tool``): soil gives
way at once, rock after a few hits, iron never. Once the blade has cut through, nothing touches it, and
ContactMotion brings its speed back, wrist first.

It keeps cutting: it works along the wall (``wall``: a horizontal direction, by default across ``facing``),
always facing the wall. After ``swings_per_spot`` swings that meet the wall at one spot, or after a swing that
does not (it has cut in out of reach), it steps ``stride`` metres along the wall at ``walk_speed``, its feet on the
terrain. A swing meets the wall when the blade touches something more than ``wall_height`` above its feet: the
ground its swing brushes in front of it is no wall (past the wall's end it saws grass and air). When
``wall_end_swings`` swings in a row miss the wall (the wall has ended) it turns back and walks past the stretch it
has already cut before it cuts again.

A player can make it turn from its wall (:mod:`voxelworld.game.enemy_reaction` sets :attr:`~ChainsawEnemy.threat`):
it stands, turns towards the threat at ``turn_speed`` and swings at it; once the threat is gone it turns back to
its wall and works on. :meth:`~ChainsawEnemy.stop` stops it for good (it no longer swings, cuts or walks).

The collision mesh is read as of the mesher's last ``update()``: call it between frames (the world's frame loop
does), so a carve shows in the next frame's contacts.

Examples
--------
A soil block meshed as the game meshes (a collision mesh within 0.3 voxel edges of the voxels): the blade cuts
it, its wrist slowed to 0.021 (the edge alone would cut soil at 0.029; the swing flexes the wrist, so the blade is
driven partly face-first; see :class:`~voxelworld.motion.SlowdownProfile`).

>>> from voxelworld.terrain import Box, VoxelVolume
>>> from voxelworld.meshing import ChunkMesher
>>> from voxelworld.game.settings import GAME_MESH_OPTIONS
>>> volume = VoxelVolume((48, 24, 48), voxel_size=0.1, chunk_size=16)
>>> _ = volume.add(Box((3.2, 0.0, 1.4), (4.2, 2.0, 3.4)), "soil")
>>> mesher = ChunkMesher(volume, options=GAME_MESH_OPTIONS)
>>> enemy = ChainsawEnemy("saw", volume, mesher, (2.4, 0.0, 2.4), facing=(1, 0, 0))
>>> for _ in range(90):
...     _ = mesher.update()
...     events = enemy.step(1 / 60)
>>> enemy.carved_voxels > 0, round(enemy.slowest_wrist_rate, 3)
(True, 0.021)
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from functools import cache, partial
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from ..attribute_state import (
    array,
    attribute_state,
    flag,
    instance,
    number,
    optional,
    pair,
    restore_attributes,
    sequence,
    text,
)
from ..errors import ParameterError, check_finite, check_integer, check_point, check_range
from ..meshing import ChunkMesher
from ..motion import Clip, ContactMotion, chainsaw_swing_clip, forearm_part
from ..terrain import Capsule, EditResult, Shape, Volume
from .chainsaw_settings import ChainsawSettings
from .checks import check_horizontal_direction
from .collider import Collider
from .edits import EditRecipe, VoxelEdit
from .ground import ground_height
from .poses import RIGHT_ARM, _yaw_of, character_rig, model_height, model_to_world
from .state_checks import (
    POSITION_MARGIN,
    check_direction_state,
    check_inside,
    count,
    seconds,
    speed,
    world_box,
)
from .terrain_contacts import TerrainContacts

__all__ = ["ChainsawEnemy", "ChainsawSettings", "Carved", "HIPS", "CHEST", "FAR_CARVES_TOGETHER", "prepare_bodies"]

HIPS, CHEST = "Skeleton_torso_joint_1", "torso_joint_3"  # CesiumMan's root and chest
FORWARD, UP = (1.0, 0.0, 0.0), (0.0, 0.0, 1.0)  # CesiumMan's skeleton faces +x, Z up
# Carves an enemy far from the player holds and hands over together (ChainsawEnemy.step's ``far``): 0.2 s of carving
# at the default carve interval, whose meshes the world makes in one frame instead of three.
FAR_CARVES_TOGETHER = 3


@dataclass(frozen=True)
class Carved:
    """A carve of the blade: ``time`` (s since the enemy started), the material it met, what the edit did
    (m³ removed, voxels removed, voxels only damaged) and the chunks it changed."""

    enemy: str
    time: float
    material: str
    volume_removed: float
    voxels_changed: int
    voxels_damaged: int
    dirty_chunks: frozenset


def _canonical(direction: np.ndarray) -> np.ndarray:
    """``direction`` or its opposite, whichever points towards +x (or +z when across x): the wall's axis."""
    if direction[0] > 1e-12 or (abs(direction[0]) <= 1e-12 and direction[2] > 0.0):
        return direction
    return -direction


class ChainsawEnemy:
    """A chainsaw enemy that swings, slows by hardness, carves the terrain and works along a wall (see the
    module).

    Parameters
    ----------
    name : str
    volume : VoxelVolume
        The terrain it cuts.
    mesher : ChunkMesher
        The mesher of ``volume``: its collision meshes are what the blade touches.
    position : 3 floats
        Where its feet are (m).
    facing : 3 floats
        The horizontal direction it swings towards (the wall).
    settings : ChainsawSettings
    edits : callable, optional
        Where its carves go: called with each carve's :class:`~voxelworld.game.edits.VoxelEdit` (a world's
        ``queue_edit``, which applies it in the next update stage); None applies them at once. The
        :class:`Carved` event comes from the step after the edit is applied.
    wall : 3 floats, optional
        The horizontal direction along the wall it first walks; None: across ``facing`` (``facing x up``).

    Attributes
    ----------
    motion : ContactMotion
        The swing on CesiumMan's skeleton; ``motion.rates``, ``motion.contact``, ``motion.part_segment`` tell how
        it goes, ``motion.placement`` where it stands.
    position : (3,) float64
        Where its feet are now (m).
    wall : (3,) float64
        The direction it works along the wall (flips when the wall ends).
    scale : float
        CesiumMan's size in the world (``settings.height`` over the model's height).
    carved_volume : float
        m³ removed so far; ``carved_voxels``: voxels removed so far.
    slowest_wrist_rate : float
        The lowest wrist rate seen so far (1 until the first contact).
    walked : float
        m it has stepped along the wall so far.
    walk_velocity : (2,) float64
        Its velocity (m/s, x and z) over the last step (0 while it cuts where it stands).
    guide : callable or None
        ``guide(enemy)``: the point (m) to walk towards this frame on its way to its :attr:`goal`, or None for
        straight at it (the default, and when ``guide`` is None). A world's cast sets it to the enemy's agent in
        the NPCs' crowd, so it walks round the NPCs as they walk round it. It still moves at most ``walk_speed``
        and stops at its goal.
    """

    # What an enemy keeps from frame to frame (:meth:`state_dict`; its ``motion`` hands over its own); the other
    # attributes are what its constructor is given and builds from that.
    STATE_ATTRIBUTES = ("facing", "time", "_since_carve", "carved_volume", "carved_voxels", "slowest_wrist_rate",
                        "_carved", "wall", "_goal", "_swing_clock", "_swing_contact", "_swings_here",
                        "_empty_swings", "_cut_span", "walked", "walk_velocity", "work_facing", "threat", "stopped",
                        "hits_taken", "since_strike", "_held_carves", "_time_owed")
    # Saved before enemies reacted to players: a state without these keys takes them as at the start.
    REACTION_STATE = {"threat": None, "stopped": None, "hits_taken": 0, "since_strike": np.inf}
    # Ranges (voxelworld.game.state_checks): facing, wall and work_facing horizontal unit directions; times and
    # clocks in [0, MAX_SECONDS] (since_carve, since_strike: or inf, before the first); counters in [0, MAX_COUNT],
    # swings_here up to swings_per_spot and empty_swings up to wall_end_swings; goal and threat within the world's
    # box grown by POSITION_MARGIN and cut_span (its ends in order) along the wall within it; walk_velocity within
    # ±MAX_SPEED; stopped a text or None.
    STATE_CHECKS: dict[str, Callable[..., None]] = {
        "facing": check_direction_state, "time": seconds(), "since_carve": seconds(infinite=True),
        "carved_volume": number(minimum=0.0, unit="m³"), "carved_voxels": count(),
        "slowest_wrist_rate": number(0.0, 1.0), "carved": sequence(instance(Carved), list),
        "wall": check_direction_state, "goal": optional(array((3,))), "swing_clock": seconds(),
        "swing_contact": flag, "swings_here": count(), "empty_swings": count(),
        "cut_span": optional(array((2,))), "walked": number(minimum=0.0, unit="m"),
        "walk_velocity": speed((2,)), "work_facing": check_direction_state, "threat": optional(array((3,))),
        "stopped": optional(text()), "hits_taken": count(), "since_strike": seconds(infinite=True),
        "held_carves": sequence(pair(instance(Capsule), text()), list), "time_owed": seconds(),
        "*": lambda enemy, name, state: enemy._check_state(name, state)}
    OTHER_ATTRIBUTES = ("name", "volume", "mesher", "settings", "position", "motion", "scale", "_edits",
                        "_centre", "_contacts", "guide")

    def __init__(self, name: str, volume: Volume, mesher: ChunkMesher, position: ArrayLike,
                 facing: ArrayLike = (1.0, 0.0, 0.0), settings: ChainsawSettings = ChainsawSettings(),
                 edits: Callable[[VoxelEdit], object] | None = None, wall: ArrayLike | None = None) -> None:
        if not isinstance(name, str) or not name:
            raise ParameterError("name", name, "a non-empty string")
        if not isinstance(volume, Volume):
            raise ParameterError("volume", type(volume).__name__, "a voxelworld.terrain.VoxelVolume or SparseVolume")
        if not isinstance(mesher, ChunkMesher) or mesher.volume is not volume:
            raise ParameterError("mesher", type(mesher).__name__, "a ChunkMesher of this volume")
        if not isinstance(settings, ChainsawSettings):
            raise ParameterError("settings", type(settings).__name__, "a ChainsawSettings")
        feet = np.array(check_point("position", position))
        if edits is not None and not callable(edits):
            raise ParameterError("edits", edits, "a callable taking a VoxelEdit, or None")
        self.facing = check_horizontal_direction("facing", facing)
        along = np.cross(self.facing, (0.0, 1.0, 0.0)) if wall is None else check_horizontal_direction("wall", wall)
        if abs(float(np.dot(along, self.facing))) > 0.999:
            raise ParameterError("wall", wall, "a horizontal direction not along facing")
        self.wall = along / np.linalg.norm(along)
        self._edits = edits
        self._carved: list[Carved] = []
        self.name, self.volume, self.mesher, self.settings = name, volume, mesher, settings
        self.position = feet
        self.scale = settings.height / model_height()
        self._build_body()
        self._contacts = TerrainContacts(volume, mesher, settings.reach)
        self._since_carve = np.inf
        self.time = 0.0
        self.carved_volume, self.carved_voxels = 0.0, 0
        self.slowest_wrist_rate = 1.0
        self._goal: np.ndarray | None = None  # where it is stepping to (None: cutting where it stands)
        self._swing_clock = float(self.motion.clocks[self.motion.root])  # the body's clock at the last frame
        self._swing_contact = False  # the blade touched something in this swing
        self._swings_here, self._empty_swings = 0, 0
        self._cut_span: np.ndarray | None = None  # the stretch of the wall's axis it has cut at (m)
        self.walked = 0.0
        self.walk_velocity = np.zeros(2)
        self.guide: Callable | None = None
        self.work_facing = self.facing.copy()  # the way to its wall (facing turns to a threat and back)
        self.threat: np.ndarray | None = None  # where the player it turned to stands (m), or None
        self.stopped: str | None = None  # why it stopped for good ("shot", "buried", "fell"), or None
        self.hits_taken, self.since_strike = 0, np.inf  # bullets that hit it; s since its blade last hurt
        # Carves held while far from the player (step's ``far``): the blade's capsule and the material it met, handed
        # over FAR_CARVES_TOGETHER at a time.
        self._held_carves: list[tuple[Capsule, str]] = []
        self._time_owed = 0.0  # s: the last call's time, when far, which the next call moves through

    def _build_body(self) -> None:
        """CesiumMan at the start of its swing, standing at ``position`` and facing ``facing``."""
        skeleton = character_rig().skeleton
        clip = _swing_clip(self.settings.swing_seconds)
        # The blade's flat faces sideways in the swing (so its edge meets what it cuts): the side direction at the
        # swing's first pose, taken back to the rest pose (where the arm is held out sideways). The part is in
        # skeleton units, which the placement scales.
        w = skeleton.index(RIGHT_ARM[2])
        rest, first = (transforms[w, :3, :3] / np.linalg.norm(transforms[w, :3, :3], axis=0) for transforms in
                       (skeleton.world_transforms(), skeleton.world_transforms(clip.sample(skeleton, 0.0))))
        side = rest @ first.T @ np.cross(FORWARD, UP)
        part = forearm_part(skeleton, list(RIGHT_ARM), 0.05 / self.scale, self.settings.blade_length / self.scale,
                            self.settings.blade_radius, blade_side=side)
        self.motion = ContactMotion(skeleton, clip, list(RIGHT_ARM), HIPS, part, profile=self.settings.profile,
                                    loop=True)
        self.motion.place(self.placement())
        self.motion.reset()  # the first pose, placed
        self._centre = self.motion.world[self.motion.shoulder, :3, 3].copy()

    def placement(self) -> np.ndarray:
        """The (4, 4) matrix standing CesiumMan's skeleton at ``position``, facing ``facing``, ``scale`` large."""
        return model_to_world(self.position, _yaw_of(self.facing), self.scale) @ character_rig().root_transform

    # ------------------------------------------------------------------------------------------- state
    def state_dict(self) -> dict:
        """What the enemy keeps from frame to frame (``STATE_ATTRIBUTES``; a private attribute's key has no leading
        underscore), the values themselves (:mod:`voxelworld.attribute_state`); ``motion.state_dict()`` is
        the swing's (with its ``placement``)."""
        return attribute_state(self, self.STATE_ATTRIBUTES)

    def load_state_dict(self, state: Mapping[str, Any]) -> None:
        """Take back a :meth:`state_dict`; ParameterError, before anything changes, for a missing key or a value
        out of its range (``STATE_CHECKS``; the ranges: docs/specs/world-format.md).

        The facing is taken as it is, bit for bit (the constructor normalises the facing it is given, which may
        move the last bit of a unit vector); another facing than the constructor's builds the body again at the
        start of its swing, so take back ``motion.state_dict()`` after this."""
        facing = self.facing
        if isinstance(state, dict) and "walk_velocity" not in state:  # saved before enemies walked in the crowd
            state = state | {"walk_velocity": np.zeros(2)}
        if isinstance(state, dict) and "work_facing" not in state:  # saved before enemies reacted to players
            state = state | self.REACTION_STATE | {"work_facing": state.get("facing", self.facing)}
        if isinstance(state, dict) and "held_carves" not in state:  # saved before far enemies held their carves
            state = {"held_carves": [], "time_owed": 0.0} | state
        restore_attributes(self, state, self.STATE_ATTRIBUTES, checks=self.STATE_CHECKS)
        if not np.array_equal(self.facing, facing):
            self._build_body()

    def _check_state(self, name: str, state: Mapping[str, Any]) -> None:
        """What ties a state to the enemy: its counts within its settings, its goal and cut within the world."""
        box = world_box(self.volume)
        check_integer(f"{name}['swings_here']", state["swings_here"], maximum=self.settings.swings_per_spot)
        check_integer(f"{name}['empty_swings']", state["empty_swings"], maximum=self.settings.wall_end_swings)
        check_integer(f"{name}['held_carves'] (its length)", len(state["held_carves"]), maximum=FAR_CARVES_TOGETHER - 1)
        for n, (_, material) in enumerate(state["held_carves"]):
            check_range(f"{name}['held_carves'][{n}][1]", material, "a material of the world's table",
                        material in self.volume.materials)
        for key in ("goal", "threat"):
            if state[key] is not None:
                check_inside(f"{name}[{key!r}]", state[key], box)
        if state["cut_span"] is not None:
            reach = (float(np.abs(np.concatenate(box)).max()) + POSITION_MARGIN) * np.sqrt(2.0)  # hypot(x, z) at most
            span = state["cut_span"]
            check_range(f"{name}['cut_span']", tuple(span.tolist()), f"two places along the wall, in order, within "
                        f"±{reach:.6g} m", bool(-reach <= span[0] <= span[1] <= reach))

    # ------------------------------------------------------------------------------------------- contacts
    def voxel_material(self, point: ArrayLike, normal: ArrayLike) -> int:
        """The material id of the voxel behind ``point`` (see :meth:`TerrainContacts.voxel_material`)."""
        return self._contacts.voxel_material(point, normal)

    # ---------------------------------------------------------------------------------------------- a frame
    def step(self, dt: float, collider: Collider | None = None, far: bool = False) -> list:
        """Swing for ``dt`` seconds (> 0), carve where the blade is in contact, and step along the wall when
        this spot is done. Returns the motion's events (ContactStarted, ContactEnded, Vibration) and a
        :class:`Carved` per carve. ``collider``: the world's, which the blade's contacts read where it covers
        their reach (:meth:`TerrainContacts.refresh`). ``far`` (beyond :data:`~voxelworld.game.agents.FAR_ACTOR_DISTANCE`
        of the player), the enemy moves every other call, through both calls' time (its motion as if stepped at
        twice ``dt``; the call between only reports its applied carves), and holds its carves, handing them over
        :data:`FAR_CARVES_TOGETHER` at a time in the order made (one frame's edits, whose meshes a world makes
        once); near again or stopped, it moves through the time it owes and hands over what it holds at once."""
        dt = check_finite("dt", dt, minimum=0.0, strict_minimum=True, unit="s")
        if far and self._time_owed == 0.0 and self.stopped is None:
            self._time_owed = dt  # (moved through in the next call)
            events, self._carved = self._carved, []
            return events
        dt, self._time_owed = dt + self._time_owed, 0.0
        if self._held_carves and (not far or self.stopped is not None):
            self._hand_over_carves()
        if self.stopped is not None:
            self.time += dt
            return []
        self.since_strike += dt
        turning = self._turn(dt)
        if not turning:
            self._walk(dt)
        self._contacts.refresh(self._centre, collider)
        _, events = self.motion.step(dt, self._contacts)
        self.time += dt
        self._since_carve += dt
        self.slowest_wrist_rate = min(self.slowest_wrist_rate, float(self.motion.rates[self.motion.wrist]))
        contact = self.motion.contact
        if contact is not None and self._since_carve >= self.settings.carve_interval:
            self._since_carve = 0.0
            start, end = self.motion.part_segment
            carve = (Capsule(tuple(start.tolist()), tuple(end.tolist()), self.settings.cut_radius), contact.material)
            self._held_carves = [*self._held_carves, carve]  # (a new list: a state handed out keeps its own)
            if not far or len(self._held_carves) >= FAR_CARVES_TOGETHER:
                self._hand_over_carves()
        self._count_swing(contact is not None and
                          float(contact.point[1]) - float(self.position[1]) >= self.settings.wall_height, turning)
        events.extend(self._carved)
        self._carved = []
        return events

    def _hand_over_carves(self) -> None:
        """The carves held (:meth:`step`'s ``far``) as edits, in the order made: to ``edits``, or applied at once."""
        held, self._held_carves = self._held_carves, []
        for shape, material in held:
            edit = self.carve_edit(shape, material)
            if self._edits is None:
                edit.apply(self.volume)
            else:
                self._edits(edit)

    # ----------------------------------------------------------------------------------------- along the wall
    def _along(self, point: ArrayLike) -> float:
        """``point``'s place (m) on the wall's axis."""
        return float(np.dot(point, _canonical(self.wall)))

    def _count_swing(self, touching: bool, turning: bool = False) -> None:
        """Note whether the blade touches the wall this frame; at the end of each swing (the body's clock wrapping round) decide whether
        to cut on here, step along the wall, or turn back."""
        settings = self.settings
        self._swing_contact = self._swing_contact or touching
        if touching and self._goal is None:
            here = self._along(self.position)
            span = self._cut_span
            self._cut_span = np.array([here, here]) if span is None else \
                np.array([min(span[0], here), max(span[1], here)])
        duration = self.motion.clip.duration
        clock = float(self.motion.clocks[self.motion.root])
        # A new swing: the clock passed a whole clip length, or was wrapped back into the clip.
        wrapped = clock < self._swing_clock or math.floor(clock / duration) > math.floor(self._swing_clock / duration)
        self._swing_clock = clock
        if turning:  # swinging at a threat, or turning back: nothing said about the wall
            self._swing_contact = False
            return
        if not wrapped:
            return
        contact, self._swing_contact = self._swing_contact, False
        if self._goal is not None:  # still stepping: this swing says nothing about the spot it is going to
            return
        if contact:
            self._swings_here, self._empty_swings = self._swings_here + 1, 0
            if self._swings_here >= settings.swings_per_spot:
                self._step_to(settings.stride)
            return
        self._empty_swings += 1
        if self._empty_swings < settings.wall_end_swings:
            self._step_to(settings.stride)  # cut in out of reach (or a gap): on along the wall
            return
        # The wall has ended: turn back and walk past the stretch already cut.
        self.wall = -self.wall
        self._empty_swings = 0
        here = self._along(self.position)
        sign = float(np.dot(self.wall, _canonical(self.wall)))
        span = self._cut_span if self._cut_span is not None else np.array([here, here])
        far = span[1] if sign > 0 else span[0]
        self._step_to(max(settings.stride, sign * (far - here) + settings.stride))

    def _turn(self, dt: float) -> bool:
        """Turn towards :attr:`threat` (or back to the wall without one) at ``turn_speed``; whether it faces
        away from its wall work this frame (a threat, or turning back), when it neither walks nor counts swings."""
        if self.threat is None and np.array_equal(self.facing, self.work_facing):
            return False
        if self.threat is not None:
            offset = self.threat - self.position
            want = self.facing if math.hypot(offset[0], offset[2]) < 1e-6 else check_horizontal_direction("threat", offset)
        else:
            want = self.work_facing
        turn = math.atan2(float(np.cross(self.facing, want)[1]), float(np.dot(self.facing, want)))
        most = math.radians(self.settings.turn_speed) * dt
        if abs(turn) <= most:
            facing = want.copy()
        else:  # a rotation about +y by the most it turns in dt
            a = math.copysign(most, turn)
            c, s = math.cos(a), math.sin(a)
            facing = np.array([c * self.facing[0] + s * self.facing[2], 0.0, -s * self.facing[0] + c * self.facing[2]])
            facing /= math.hypot(facing[0], facing[2])
        if not np.array_equal(facing, self.facing):
            self.facing = facing
            self.motion.place(self.placement())
            self._centre = self.motion.world[self.motion.shoulder, :3, 3].copy()
        self.walk_velocity = np.zeros(2)
        return True

    def stop(self, reason: str) -> None:
        """Stop for good: it no longer swings, cuts or walks (:attr:`stopped` says why: ``reason``)."""
        check_range("reason", reason, "a non-empty string", isinstance(reason, str) and bool(reason))
        self.stopped = reason
        self.threat, self._goal, self.walk_velocity = None, None, np.zeros(2)

    def _step_to(self, distance: float) -> None:
        self._goal = self.position + self.wall * distance
        self._swings_here = 0

    @property
    def goal(self) -> np.ndarray | None:
        """Where it is stepping to (m; a copy), or None while it cuts where it stands."""
        return None if self._goal is None else self._goal.copy()

    def _walk(self, dt: float) -> None:
        """Move ``walk_speed * dt`` towards the goal, or the point its :attr:`guide` gives on the way there (feet
        on the terrain), and stand the body there."""
        if self._goal is None:
            self.walk_velocity = np.zeros(2)
            return
        move = self.settings.walk_speed * dt
        to_goal = self._goal - self.position
        at_goal = float(np.hypot(to_goal[0], to_goal[2])) <= move
        aim = None if self.guide is None or at_goal else self.guide(self)
        aim = self._goal if aim is None else np.array(check_point("guide", aim))
        offset = aim - self.position
        offset[1] = 0.0
        distance = float(np.hypot(offset[0], offset[2]))
        if at_goal:
            position = self._goal.copy()
        elif distance <= move:
            position = np.array([aim[0], self.position[1], aim[2]])  # where its guide is: it waits there
        else:
            position = self.position + offset * (move / distance)
        ground = self.ground_height(position[0], position[2])
        if ground is not None:  # eased in (at most as fast as it walks), so a ledge is no jump
            position[1] = self.position[1] + float(np.clip(ground - self.position[1], -move, move))
        self.walk_velocity = (position - self.position)[[0, 2]] / dt
        self.walked += min(distance, move) if aim is self._goal else float(np.hypot(*self.walk_velocity)) * dt
        self.position = position
        if at_goal:
            self._goal = None
        self.motion.place(self.placement())
        self._centre = self.motion.world[self.motion.shoulder, :3, 3] + (position - self.motion.placement[:3, 3])

    def ground_height(self, x: float, z: float) -> float | None:
        """The terrain's height (m) at ``(x, z)`` (:func:`~voxelworld.game.ground.ground_height`: the four voxel
        columns around it, blended bilinearly); None off the terrain."""
        return ground_height(self.volume, x, z)

    def carve_edit(self, shape: Shape, material: str) -> VoxelEdit:
        """The ``remove`` edit of a carve over ``shape`` (the blade's capsule) through the enemy's tool, the blade
        touching ``material``; once applied it counts the carve and the next :meth:`step` reports its
        :class:`Carved`. Its ``recipe`` is ``carve`` with the enemy's name and ``material``."""
        check_range("shape", shape, "a voxelworld.terrain Shape", isinstance(shape, Shape))
        check_range("material", material, "a material name", isinstance(material, str))
        return VoxelEdit("remove", shape, tool=self.settings.tool, source=self.name,
                         on_applied=partial(self._record_carve, material),
                         recipe=EditRecipe("carve", (("enemy", self.name), ("material", material))))

    def _record_carve(self, material: str, result: EditResult) -> None:
        self.carved_volume += result.volume_removed
        self.carved_voxels += result.voxels_changed
        self._carved.append(Carved(self.name, self.time, material, result.volume_removed, result.voxels_changed,
                                   result.voxels_damaged, frozenset(result.dirty_chunks)))


def prepare_bodies(settings: ChainsawSettings) -> None:
    """Make what every enemy's body of ``settings`` shares (about 0.3 s the first time: the glTF read), as one is put
    to sleep or loaded (:mod:`voxelworld.game.regions`), not in the frame one first wakes in."""
    character_rig()
    model_height()
    _swing_clip(settings.swing_seconds)


@cache
def _swing_clip(duration: float) -> Clip:
    """The chainsaw swing of ``duration`` s on CesiumMan's skeleton, authored once (about 0.3 s) and shared by every
    enemy of that swing (a clip is read, never changed): an enemy waking (voxelworld.game.regions) builds its body
    without authoring it again."""
    return chainsaw_swing_clip(character_rig().skeleton, list(RIGHT_ARM), HIPS, CHEST, FORWARD, UP, duration=duration)
