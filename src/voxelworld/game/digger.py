"""A character digging the voxel ground with a shovel: CesiumMan playing a looping dig
(:func:`voxelworld.motion.dig_clip`) with :class:`~voxelworld.motion.ContactMotion`, the shovel held along its
right forearm.

When the blade meets the ground (:class:`~voxelworld.game.terrain_contacts.TerrainContacts`: the collision mesh
near the digger and the voxel behind the contact), the second action slows the arm by the ground's hardness and by
how the blade meets it: ``blade_roll`` turns the blade about the shaft, 0 degrees edge-on (the blade's plane
along the dig: it slices in fast), 90 degrees flat (its face against the ground: it drags, 3x the resistance
with the default profile). Every contact frame the dig removes a capsule along the blade, through the terrain's
edits and the tool's hardness gate (:class:`~voxelworld.terrain.Tool`): soil gives way at once, rock after a few
strokes, iron never.

Examples
--------
>>> from voxelworld.terrain import Box, VoxelVolume
>>> from voxelworld.meshing import ChunkMesher
>>> volume = VoxelVolume((40, 24, 40), voxel_size=0.1, chunk_size=16)
>>> _ = volume.add(Box((0.0, 0.0, 0.0), (4.0, 1.0, 4.0)), "soil")
>>> mesher = ChunkMesher(volume)
>>> digger = ShovelDigger("digger", volume, mesher, (1.2, 1.0, 2.0), facing=(1, 0, 0))
>>> for _ in range(120):
...     _ = mesher.update()
...     events = digger.step(1 / 60)
>>> digger.dug_voxels > 0, digger.slowest_wrist_rate < 0.1
(True, True)
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial

import numpy as np
from numpy.typing import ArrayLike

from ..errors import ParameterError, check_finite, check_point
from ..meshing import ChunkMesher
from ..motion import Clip, ContactMotion, Skeleton, SlowdownProfile, dig_clip, forearm_part
from ..terrain import Capsule, EditResult, Tool, Volume
from .checks import check_horizontal_direction, check_tool_and_profile, point_tuple
from .edits import VoxelEdit
from .enemy import CHEST, FORWARD, HIPS, UP
from .poses import RIGHT_ARM, _yaw_of, character_rig, model_height, model_to_world
from .terrain_contacts import TerrainContacts

__all__ = ["ShovelDigger", "ShovelSettings", "Dug", "shovel_motion"]

DRIVE = 0.35  # share of the dig cycle at which the blade is driven deepest (dig_clip's drive waypoint)


@dataclass(frozen=True)
class ShovelSettings:
    """How the digger holds its shovel and digs.

    Parameters
    ----------
    blade_start, blade_end : float
        m (0 <= start < end): the blade runs along the forearm from ``blade_start`` to ``blade_end`` beyond the
        wrist (the shaft and the blade as one capsule).
    blade_radius : float
        m (> 0): the capsule radius for contacts (about half the blade's width).
    blade_roll : float
        degrees (0..90): the blade turned about the shaft, 0 edge-on, 90 flat against the ground.
    cut_radius : float
        m (> 0): the radius of the capsule removed along the blade while in contact. Below ``blade_radius`` the
        blade stays in touch with the ground it has opened, so it digs on, slowed, as it goes in; above it each
        dig frees the blade for a few frames.
    swing_seconds : float
        s (> 0): one dig's duration (it loops).
    height : float
        m (> 0): the figure's height (CesiumMan scaled to it).
    reach : float
        m (> 0): the collision mesh within this distance of the shoulder is what the blade can touch.
    tool : Tool
        The hardness/damage gate of the dig.
    profile : SlowdownProfile
        How the body and arm slow in contact.
    """

    blade_start: float = 0.05
    blade_end: float = 0.95
    blade_radius: float = 0.12
    blade_roll: float = 0.0
    cut_radius: float = 0.1
    swing_seconds: float = 1.6
    height: float = 1.8
    reach: float = 2.5
    tool: Tool = Tool()
    profile: SlowdownProfile = SlowdownProfile()

    def __post_init__(self) -> None:
        object.__setattr__(self, "blade_start", check_finite("blade_start", self.blade_start, minimum=0.0, unit="m"))
        object.__setattr__(self, "blade_end", check_finite("blade_end", self.blade_end, minimum=self.blade_start,
                                                           strict_minimum=True, unit="m"))
        for name in ("blade_radius", "cut_radius", "swing_seconds", "height", "reach"):
            object.__setattr__(self, name, check_finite(name, getattr(self, name), minimum=0.0, strict_minimum=True,
                                                        unit="s" if name == "swing_seconds" else "m"))
        object.__setattr__(self, "blade_roll", check_finite("blade_roll", self.blade_roll, minimum=0.0,
                                                            maximum=90.0, unit="degrees"))
        check_tool_and_profile(self)


@dataclass(frozen=True)
class Dug:
    """A dig of the blade: ``time`` (s since the digger started), the material it met, what the edit did (m³
    removed, voxels removed, voxels only damaged) and the capsule it removed (``start``, ``end``, ``radius``, m)."""

    digger: str
    time: float
    material: str
    volume_removed: float
    voxels_changed: int
    voxels_damaged: int
    start: tuple[float, float, float]
    end: tuple[float, float, float]
    radius: float


def shovel_motion(settings: ShovelSettings, scale: float, loop: bool) -> ContactMotion:
    """The dig (:func:`~voxelworld.motion.dig_clip`, ``settings.swing_seconds`` long) on CesiumMan's skeleton, the
    shovel along its right forearm as ``settings`` hold it, for a figure ``scale`` times CesiumMan's size (the
    blade's lengths in metres divided by it); ``loop``: dig on and on (the digger) or once (the player's shovel).
    Unplaced, at the start of the dig."""
    skeleton = character_rig().skeleton
    clip = dig_clip(skeleton, list(RIGHT_ARM), HIPS, CHEST, FORWARD, UP, duration=settings.swing_seconds)
    part = forearm_part(skeleton, list(RIGHT_ARM), settings.blade_start / scale, settings.blade_end / scale,
                        settings.blade_radius, blade_side=_blade_side(settings, skeleton, clip))
    return ContactMotion(skeleton, clip, list(RIGHT_ARM), HIPS, part, profile=settings.profile, loop=loop)


def _blade_side(settings: ShovelSettings, skeleton: Skeleton, clip: Clip) -> np.ndarray:
    """The blade's normal at rest (a world direction in the skeleton's frame, as ``forearm_part`` takes it):
    at the drive's pose, the side direction (edge-on) turned ``blade_roll`` degrees about the forearm towards
    the ground's normal (flat)."""
    w, e = skeleton.index(RIGHT_ARM[2]), skeleton.index(RIGHT_ARM[1])
    drive = skeleton.world_transforms(clip.sample(skeleton, DRIVE * clip.duration))
    rest = skeleton.world_transforms()
    shaft = drive[w, :3, 3] - drive[e, :3, 3]
    shaft /= np.linalg.norm(shaft)
    side = np.cross(FORWARD, UP)
    side = side - shaft * float(side @ shaft)
    side /= np.linalg.norm(side)
    roll = math.radians(settings.blade_roll)
    normal = math.cos(roll) * side + math.sin(roll) * np.cross(shaft, side)
    turn = lambda m: m[:3, :3] / np.linalg.norm(m[:3, :3], axis=0)  # noqa: E731
    return turn(rest[w]) @ turn(drive[w]).T @ normal


class ShovelDigger:
    """A character digging the ground in front of it with a shovel (see the module).

    Parameters
    ----------
    name : str
    volume : VoxelVolume
        The ground it digs.
    mesher : ChunkMesher
        The mesher of ``volume``: its collision meshes are what the blade touches (call ``update()`` between
        frames so a dig shows in the next frame's contacts).
    position : 3 floats
        Where its feet are (m).
    facing : 3 floats
        The horizontal direction it digs towards.
    settings : ShovelSettings
    edits : callable, optional
        Where its digs go (a world's ``queue_edit``); None applies them at once.

    Attributes
    ----------
    motion : ContactMotion
        The dig on CesiumMan's skeleton (``motion.rates``, ``motion.contact``, ``motion.part_segment``).
    dug_volume, dug_voxels : float, int
        m³ and voxels removed so far.
    slowest_wrist_rate : float
        The lowest wrist rate so far (1 until the first contact).
    """

    def __init__(self, name: str, volume: Volume, mesher: ChunkMesher, position: ArrayLike,
                 facing: ArrayLike = (1.0, 0.0, 0.0), settings: ShovelSettings = ShovelSettings(),
                 edits: Callable[[VoxelEdit], object] | None = None) -> None:
        if not isinstance(name, str) or not name:
            raise ParameterError("name", name, "a non-empty string")
        if not isinstance(settings, ShovelSettings):
            raise ParameterError("settings", type(settings).__name__, "a ShovelSettings")
        if edits is not None and not callable(edits):
            raise ParameterError("edits", edits, "a callable taking a VoxelEdit, or None")
        self._contacts = TerrainContacts(volume, mesher, settings.reach)
        self.position = np.array(check_point("position", position))
        self.facing = check_horizontal_direction("facing", facing)
        self.name, self.volume, self.mesher, self.settings, self._edits = name, volume, mesher, settings, edits
        self.scale = settings.height / model_height()
        self.motion = shovel_motion(settings, self.scale, loop=True)
        self.motion.place(model_to_world(self.position, _yaw_of(self.facing), self.scale)
                          @ character_rig().root_transform)
        self.motion.reset()
        self._centre = self.motion.world[self.motion.shoulder, :3, 3].copy()
        self.time = 0.0
        self.dug_volume, self.dug_voxels = 0.0, 0
        self.slowest_wrist_rate = 1.0
        self._dug: list[Dug] = []

    def step(self, dt: float) -> list:
        """Dig for ``dt`` seconds (> 0): the motion's events (ContactStarted, ContactEnded, Vibration) and a
        :class:`Dug` per dig applied."""
        dt = check_finite("dt", dt, minimum=0.0, strict_minimum=True, unit="s")
        self._contacts.refresh(self._centre)
        _, events = self.motion.step(dt, self._contacts)
        self.time += dt
        self.slowest_wrist_rate = min(self.slowest_wrist_rate, float(self.motion.rates[self.motion.wrist]))
        contact = self.motion.contact
        if contact is not None:
            start, end = (point_tuple(point) for point in self.motion.part_segment)
            edit = VoxelEdit("remove", Capsule(start, end, self.settings.cut_radius), tool=self.settings.tool,
                             source=self.name, on_applied=partial(self._record, contact.material, start, end))
            if self._edits is None:
                edit.apply(self.volume)
            else:
                self._edits(edit)
        events.extend(self._dug)
        self._dug = []
        return events

    def _record(self, material: str, start: tuple[float, float, float], end: tuple[float, float, float],
                result: EditResult) -> None:
        self.dug_volume += result.volume_removed
        self.dug_voxels += result.voxels_changed
        self._dug.append(Dug(self.name, self.time, material, result.volume_removed, result.voxels_changed,
                             result.voxels_damaged, start, end, self.settings.cut_radius))
