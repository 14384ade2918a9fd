"""The chainsaw enemy: a swing that slows by the hardness of the voxels it meets, and carves them.

A :class:`ChainsawEnemy` plays a downward chainsaw swing with :class:`~voxelworld.motion.ContactMotion`. Its
contact query tests the blade's capsule against the terrain's collision mesh near the enemy (a
:class:`~voxelworld.collision.TriangleBVH`, rebuilt only when those triangles change) and reads the hardness of
the *voxel* behind the contact point (the dominant material of the first solid voxel found just behind the
surface, the collision triangle's material if none is), so the arm slows more in rock than in soil.

While the blade is in contact it carves: every contact frame (or every ``carve_interval`` seconds) a
``remove`` with a capsule along the blade goes through the terrain's hardness/damage gate (``Tool``): soil gives
way at once, rock after a few hits, iron never. Once the blade has cut through, nothing touches it, and
ContactMotion brings its speed back, wrist first.

The collision mesh is read as of the mesher's last ``update()``: call it between frames (the world's frame loop
does), so a carve shows in the next frame's contacts.

Examples
--------
A soil block meshed as the game meshes (a collision mesh within 0.3 voxel edges of the voxels): the blade's
edge cuts soil at the wrist rate 0.40 (see :class:`~voxelworld.motion.SlowdownProfile`).

>>> from voxelworld.terrain import Box, VoxelVolume
>>> from voxelworld.meshing import ChunkMesher
>>> from voxelworld.game.settings import GAME_MESH_OPTIONS
>>> volume = VoxelVolume((48, 24, 48), voxel_size=0.1, chunk_size=16)
>>> _ = volume.add(Box((3.2, 0.6, 2.0), (4.2, 1.2, 2.8)), "soil")
>>> mesher = ChunkMesher(volume, options=GAME_MESH_OPTIONS)
>>> enemy = ChainsawEnemy("saw", volume, mesher, (2.4, 0.0, 2.4), facing=(1, 0, 0))
>>> for _ in range(45):
...     _ = mesher.update()
...     events = enemy.step(1 / 60)
>>> enemy.carved_voxels > 0, round(enemy.slowest_wrist_rate, 2)
(True, 0.4)
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import partial

import numpy as np

from ..attribute_state import array, attribute_state, instance, number, restore_attributes, sequence, whole
from ..collision import TriangleBVH
from ..errors import ParameterError, check_finite, check_point, check_range
from ..meshing import ChunkMesher
from ..motion import Contact, ContactMotion, Pose, Skeleton, SlowdownProfile, forearm_part, swing_clip
from ..terrain import Capsule, EditResult, Shape, Tool, VoxelVolume
from .edits import EditRecipe, VoxelEdit

__all__ = ["ChainsawEnemy", "ChainsawSettings", "Carved", "chainsaw_body"]

CHAIN = ("shoulder", "elbow", "wrist")


@dataclass(frozen=True)
class ChainsawSettings:
    """How the chainsaw enemy swings and cuts.

    Parameters
    ----------
    blade_length : float
        m (> 0): the blade runs from 0.05 m beyond the wrist to this far beyond it.
    blade_radius : float
        m (> 0): the blade's capsule radius for contacts.
    cut_radius : float
        m (> 0): the radius of the capsule removed along the blade while in contact (a voxel or more, so a carve
        reaches the samples).
    carve_interval : float
        s (>= 0): the least time between two carves while in contact; 0 carves every contact frame.
    reach : float
        m (> 0): the collision mesh within this distance of the shoulder is what the blade can touch.
    swing_seconds : float
        s (> 0): the swing's duration (it loops).
    tool : Tool
        The hardness/damage gate of the carve.
    profile : SlowdownProfile
        How the arm slows in contact.
    """

    blade_length: float = 0.9
    blade_radius: float = 0.05
    cut_radius: float = 0.15
    carve_interval: float = 0.0
    reach: float = 2.5
    swing_seconds: float = 1.0
    tool: Tool = Tool()
    profile: SlowdownProfile = SlowdownProfile()

    def __post_init__(self):
        for name in ("blade_length", "blade_radius", "cut_radius", "reach"):
            object.__setattr__(self, name, check_finite(name, getattr(self, name), minimum=0.0,
                                                        strict_minimum=True, unit="m"))
        object.__setattr__(self, "carve_interval", check_finite("carve_interval", self.carve_interval,
                                                                minimum=0.0, unit="s"))
        object.__setattr__(self, "swing_seconds", check_finite("swing_seconds", self.swing_seconds, minimum=0.0,
                                                               strict_minimum=True, unit="s"))
        if not isinstance(self.tool, Tool):
            raise ParameterError("tool", type(self.tool).__name__, "a voxelworld.terrain.Tool")
        if not isinstance(self.profile, SlowdownProfile):
            raise ParameterError("profile", type(self.profile).__name__, "a voxelworld.motion.SlowdownProfile")


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


def _direction(parameter: str, value) -> np.ndarray:
    try:
        vector = np.array(value, dtype=np.float64).reshape(3)
    except (TypeError, ValueError):
        raise ParameterError(parameter, value, "a horizontal direction (x, 0, z), not zero") from None
    vector[1] = 0.0
    norm = float(np.hypot(vector[0], vector[2]))
    if not np.isfinite(norm) or norm < 1e-9:
        raise ParameterError(parameter, value, "a horizontal direction (x, 0, z), not zero")
    return vector / norm


def chainsaw_body(position, facing, settings: ChainsawSettings = ChainsawSettings()):
    """A small code-built body standing at ``position`` (its feet, m) facing ``facing``: hips 1 m up, spine,
    shoulder 1.5 m up, a 0.35 m upper arm and 0.3 m forearm. Returns ``(skeleton, clip, part)``: the skeleton,
    a downward swing of the arm towards ``facing`` and the blade along the forearm, its flat facing sideways
    (so its edge meets the ground)."""
    feet = np.array(position, dtype=np.float64).reshape(3)
    names = ["hips", "spine", *CHAIN]
    rest = Pose([feet + (0.0, 1.0, 0.0), (0.0, 0.4, 0.0), (0.0, 0.1, 0.0), (0.0, -0.35, 0.0), (0.0, -0.3, 0.0)],
                [[0.0, 0.0, 0.0, 1.0]] * 5, [[1.0, 1.0, 1.0]] * 5)
    skeleton = Skeleton(names, [-1, 0, 1, 2, 3], rest)
    clip = swing_clip(skeleton, list(CHAIN), forward=facing, up=(0, 1, 0), duration=settings.swing_seconds,
                      name="chainsaw swing")
    side = np.cross(facing, (0.0, 1.0, 0.0))
    part = forearm_part(skeleton, list(CHAIN), 0.05, settings.blade_length, settings.blade_radius, blade_side=side)
    return skeleton, clip, part


class ChainsawEnemy:
    """A chainsaw enemy that swings, slows by hardness and carves the terrain (see the module).

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
        The horizontal direction it swings towards.
    settings : ChainsawSettings
    edits : callable, optional
        Where its carves go: called with each carve's :class:`~voxelworld.game.edits.VoxelEdit` (a world's
        ``queue_edit``, which applies it in the next update stage); None applies them at once. The
        :class:`Carved` event comes from the step after the edit is applied.

    Attributes
    ----------
    motion : ContactMotion
        The swing; ``motion.rates``, ``motion.contact``, ``motion.part_segment`` tell how it goes.
    carved_volume : float
        m³ removed so far; ``carved_voxels``: voxels removed so far.
    slowest_wrist_rate : float
        The lowest wrist rate seen so far (1 until the first contact).
    """

    # What an enemy keeps from frame to frame (:meth:`state_dict`; its ``motion`` hands over its own); the other
    # attributes are what its constructor is given and builds from that.
    STATE_ATTRIBUTES = ("facing", "time", "_since_carve", "carved_volume", "carved_voxels", "slowest_wrist_rate",
                        "_carved")
    STATE_CHECKS = {"facing": array((3,)), "time": number(minimum=0.0, unit="s"),
                    "since_carve": number(minimum=0.0, unit="s", infinite=True),
                    "carved_volume": number(minimum=0.0, unit="m³"), "carved_voxels": whole(0),
                    "slowest_wrist_rate": number(0.0, 1.0), "carved": sequence(instance(Carved), list)}
    OTHER_ATTRIBUTES = ("name", "volume", "mesher", "settings", "position", "motion", "_edits", "_centre",
                        "_mesh_key", "_bvh")

    def __init__(self, name: str, volume: VoxelVolume, mesher: ChunkMesher, position, facing=(1.0, 0.0, 0.0),
                 settings: ChainsawSettings = ChainsawSettings(), edits: Callable | None = None):
        if not isinstance(name, str) or not name:
            raise ParameterError("name", name, "a non-empty string")
        if not isinstance(volume, VoxelVolume):
            raise ParameterError("volume", type(volume).__name__, "a voxelworld.terrain.VoxelVolume")
        if not isinstance(mesher, ChunkMesher) or mesher.volume is not volume:
            raise ParameterError("mesher", type(mesher).__name__, "a ChunkMesher of this volume")
        if not isinstance(settings, ChainsawSettings):
            raise ParameterError("settings", type(settings).__name__, "a ChainsawSettings")
        feet = np.array(check_point("position", position))
        if edits is not None and not callable(edits):
            raise ParameterError("edits", edits, "a callable taking a VoxelEdit, or None")
        self.facing = _direction("facing", facing)
        self._edits = edits
        self._carved: list[Carved] = []
        self.name, self.volume, self.mesher, self.settings = name, volume, mesher, settings
        self.position = feet
        self._build_body()
        self._mesh_key: tuple | None = None
        self._bvh: TriangleBVH | None = None
        self._since_carve = np.inf
        self.time = 0.0
        self.carved_volume, self.carved_voxels = 0.0, 0
        self.slowest_wrist_rate = 1.0

    def _build_body(self) -> None:
        """The body at the start of its swing, standing at ``position`` and facing ``facing``."""
        skeleton, clip, part = chainsaw_body(self.position, self.facing, self.settings)
        self.motion = ContactMotion(skeleton, clip, list(CHAIN), "hips", part, profile=self.settings.profile,
                                    loop=True)
        self._centre = skeleton.world_positions()[skeleton.index("shoulder")]

    # ------------------------------------------------------------------------------------------- state
    def state_dict(self) -> dict:
        """What the enemy keeps from frame to frame (``STATE_ATTRIBUTES``; a private attribute's key has no leading
        underscore), the values themselves (:mod:`voxelworld.attribute_state`); ``motion.state_dict()`` is
        the swing's."""
        return attribute_state(self, self.STATE_ATTRIBUTES)

    def load_state_dict(self, state) -> None:
        """Take back a :meth:`state_dict`; ParameterError, before anything changes, for a missing key.

        The facing is taken as it is, bit for bit (the constructor normalises the facing it is given, which may
        move the last bit of a unit vector); another facing than the constructor's builds the body again at the
        start of its swing, so take back ``motion.state_dict()`` after this."""
        facing = self.facing
        restore_attributes(self, state, self.STATE_ATTRIBUTES, checks=self.STATE_CHECKS)
        if not np.array_equal(self.facing, facing):
            self._build_body()

    # ------------------------------------------------------------------------------------------- contacts
    def _refresh_bvh(self) -> None:
        """The BVH of the collision mesh within reach, rebuilt only when those triangles changed."""
        key = self.mesher.collision_key(near=self._centre, radius=self.settings.reach)
        if key != self._mesh_key:
            self._mesh_key = key
            mesh = self.mesher.collision_mesh(near=self._centre, radius=self.settings.reach)
            self._bvh = TriangleBVH(mesh.positions, mesh.indices, tri_material=mesh.tri_material) \
                if mesh.triangle_count else None

    def voxel_material(self, point, normal) -> int:
        """The material id of the first solid voxel just behind ``point`` (against ``normal``, then along it,
        up to two voxels), by its dominant material; 0 if none is solid."""
        volume = self.volume
        point, normal = np.asarray(point, dtype=float), np.asarray(normal, dtype=float)
        shape = np.array(volume.shape)
        for k in (0.5, 1.0, 1.5, 2.0, -0.5, -1.0):
            index = np.rint((point - normal * k * volume.voxel_size - volume.origin) / volume.voxel_size).astype(int)
            if np.any(index < 0) or np.any(index >= shape):
                continue
            i, j, l = index
            if volume.density[i, j, l] >= volume.iso:
                return int(volume.mat_b[i, j, l] if volume.mix[i, j, l] > 127 else volume.mat_a[i, j, l])
        return 0

    def _contact(self, start, end, radius) -> Contact | None:
        if self._bvh is None:
            return None
        found = self._bvh.overlap_capsule(start, end, radius)
        if found.depth.size == 0:
            return None
        best = int(np.argmax(found.depth))  # the deepest; ties: the lowest triangle
        point, normal = found.point[best], found.normal[best]
        material = self.voxel_material(point, normal) or int(found.material[best])
        materials = self.volume.materials
        if material not in materials:
            return None
        return Contact(tuple(point), tuple(normal), materials[material].name, materials[material].hardness)

    # ---------------------------------------------------------------------------------------------- a frame
    def step(self, dt: float) -> list:
        """Swing for ``dt`` seconds (> 0) and carve where the blade is in contact. Returns the motion's events
        (ContactStarted, ContactEnded, Vibration) and a :class:`Carved` per carve."""
        dt = check_finite("dt", dt, minimum=0.0, strict_minimum=True, unit="s")
        self._refresh_bvh()
        _, events = self.motion.step(dt, self._contact)
        self.time += dt
        self._since_carve += dt
        self.slowest_wrist_rate = min(self.slowest_wrist_rate, float(self.motion.rates[self.motion.wrist]))
        contact = self.motion.contact
        if contact is not None and self._since_carve >= self.settings.carve_interval:
            self._since_carve = 0.0
            start, end = self.motion.part_segment
            edit = self.carve_edit(Capsule(tuple(start), tuple(end), self.settings.cut_radius), contact.material)
            if self._edits is None:
                edit.apply(self.volume)
            else:
                self._edits(edit)
        events.extend(self._carved)
        self._carved = []
        return events

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
