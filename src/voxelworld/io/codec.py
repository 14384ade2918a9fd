"""Game values as JSON and back, exactly: the encoding of a world file's state rows (docs/specs/world-format.md).

:class:`StateCodec` turns the values a world keeps (settings and the other frozen dataclasses, tuples, lists,
dicts, sets, numpy arrays, numbers, strings) into JSON-able data and back, bit for bit:

- ``None``, ``bool``, ``int``, ``str`` and finite ``float`` are themselves (floats round-trip through their
  shortest repr); numpy scalars become the Python number of the same value;
- a tuple is a JSON array; everything else is an object whose ``"$"`` says what it is: ``{"$": "float",
  "value": "inf"}`` (inf, -inf, nan), ``{"$": "list", "items": [...]}``, ``{"$": "set" | "frozenset", "items":
  [...]}`` (items sorted by their JSON text, so that the text does not depend on hashing), ``{"$": "dict",
  "items": [[key, value], ...]}`` (insertion order), ``{"$": "ndarray", "dtype": "<f8", "shape": [...],
  "base64": ...}`` (the little-endian bytes in C order);
- a dataclass of :data:`TYPES` is ``{"$": "<module>.<Class>", "<field>": value, ...}`` (its init fields, the
  module path without ``voxelworld.``); read back through its constructor, which checks every field, then given
  the stored field values where the constructor changed their bits (a direction normalised again);
- a :class:`~voxelworld.terrain.VoxelVolume` (a loose object's own small volume) is ``{"$": "VoxelVolume", ...}``
  with its geometry, chunk versions and dirty chunks, its fields stored as arrays named ``<where>.<field>`` in the
  codec's ``arrays`` (the file's ``arrays`` table); it must use the world's material table.

Anything else is refused: a value of another type raises :class:`~voxelworld.errors.ParameterError` when encoded
(naming where it was found) and an unknown ``"$"`` raises :class:`~voxelworld.errors.FormatError` when decoded.

Examples
--------
>>> from voxelworld.game.suck import SuckState
>>> from voxelworld.terrain import MaterialTable
>>> codec = StateCodec(MaterialTable.default())
>>> data = codec.encode(SuckState(holding=True, bullets=("soil",)), "suck")
>>> data["$"], data["bullets"]
('game.suck.SuckState', ['soil'])
>>> codec.decode(data, "suck") == SuckState(holding=True, bullets=("soil",))
True
>>> codec.encode({(0, 1, 2), (0, 0, 1)}, "chunks")
{'$': 'set', 'items': [[0, 0, 1], [0, 1, 2]]}
"""

from __future__ import annotations

import base64
import dataclasses
import json
import math
from collections.abc import Iterable
from typing import Any

import numpy as np

from ..errors import FormatError, ParameterError
from ..game import events as _events
from ..game.actions import PunchSettings, VoxelObject
from ..game.deformation import AwardSettings, DeformationState, Treasure, TreasureSettings
from ..game.digger import ShovelSettings
from ..game.enemy import Carved, ChainsawSettings
from ..game.enemy_reaction import ReactionSettings
from ..game.npcs import NPCSettings
from ..game.objects import ObjectTransform, WorldObject
from ..game.play import ActionSettings
from ..game.player import PlayerSettings
from ..game.poses import CharacterPose
from ..game.progress import Goal, Progress
from ..game.strike import StrikeSettings
from ..game.suck import SuckSettings, SuckState
from ..game.throwing import Contact as ImpactContact
from ..game.throwing import ImpactRules, ThrowSettings
from ..game.world import Inputs, Snapshot, WorldSettings
from ..meshing import MeshOptions
from ..motion import SlowdownProfile
from ..motion.part_contacts import Contact as MotionContact
from ..motion.skeleton import Pose
from ..navigation import NavSettings, SearchRegion
from ..terrain import FIELDS, Box, Capsule, Cylinder, Material, MaterialTable, Sphere, Tool, Union, VoxelVolume
from ..terrain.volume import check_volume_size as terrain_volume_size

__all__ = ["StateCodec", "TYPES", "type_name", "material_table_data", "material_table_from_data", "check_volume_size"]

_EVENT_TYPES = tuple(t for t in (getattr(_events, n) for n in _events.__all__)
                     if isinstance(t, type) and issubclass(t, _events.Event))

# The name each type goes by in a file is fixed by the format (docs/specs/world-format.md): the module path it had
# when the format was written, so that moving a class to another module never changes what files hold.
_NAMED_TYPES: dict[str, type] = {
    # settings
    "game.world.WorldSettings": WorldSettings, "game.player.PlayerSettings": PlayerSettings,
    "game.play.ActionSettings": ActionSettings, "game.actions.PunchSettings": PunchSettings,
    "game.suck.SuckSettings": SuckSettings, "game.throwing.ThrowSettings": ThrowSettings,
    "game.throwing.ImpactRules": ImpactRules, "game.deformation.TreasureSettings": TreasureSettings,
    "game.deformation.AwardSettings": AwardSettings, "game.enemy.ChainsawSettings": ChainsawSettings,
    "game.npcs.NPCSettings": NPCSettings, "terrain.edits.Tool": Tool, "game.progress.Goal": Goal,
    "motion.contacts.SlowdownProfile": SlowdownProfile, "meshing.options.MeshOptions": MeshOptions,
    "navigation.settings.NavSettings": NavSettings, "navigation.settings.SearchRegion": SearchRegion,
    "terrain.materials.Material": Material, "game.enemy_reaction.ReactionSettings": ReactionSettings,
    "game.strike.StrikeSettings": StrikeSettings, "game.digger.ShovelSettings": ShovelSettings,
    # game state
    "game.world.Inputs": Inputs, "game.world.Snapshot": Snapshot, "game.objects.ObjectTransform": ObjectTransform,
    "game.suck.SuckState": SuckState, "game.deformation.DeformationState": DeformationState,
    "game.deformation.Treasure": Treasure, "game.objects.WorldObject": WorldObject,
    "game.actions.VoxelObject": VoxelObject, "game.throwing.Contact": ImpactContact,
    "motion.contacts.Contact": MotionContact, "motion.skeleton.Pose": Pose, "game.enemy.Carved": Carved,
    "game.poses.CharacterPose": CharacterPose, "game.progress.Progress": Progress,
    # update ranges of queued edits
    "terrain.shapes.Sphere": Sphere, "terrain.shapes.Box": Box, "terrain.shapes.Capsule": Capsule,
    "terrain.shapes.Cylinder": Cylinder, "terrain.shapes.Union": Union,
} | {f"game.events.{cls.__qualname__}": cls for cls in _EVENT_TYPES}
TYPES: tuple[type, ...] = tuple(_NAMED_TYPES.values())
_NAME_OF = {cls: name for name, cls in _NAMED_TYPES.items()}
# Fields a type had in files of this format and has no more: a reader drops them (what they set is gone).
_RETIRED_FIELDS: dict[type, frozenset[str]] = {ImpactRules: frozenset({"hard_from", "slippery_from"})}


def type_name(cls: type) -> str:
    """The name a dataclass of :data:`TYPES` goes by in a file (fixed by the format, whatever module holds it)."""
    return _NAME_OF[cls]


_BY_NAME = _NAMED_TYPES
_FLOAT_WORDS = {"inf": math.inf, "-inf": -math.inf, "nan": math.nan}
_DTYPES = ("bool", "uint8", "uint16", "uint32", "int32", "int64", "float32", "float64")


def _text(data: object) -> str:
    return json.dumps(data, separators=(",", ":"))


def array_bytes(array: np.ndarray) -> bytes:
    """The little-endian bytes of ``array`` in C order."""
    array = np.asarray(array)
    return np.ascontiguousarray(array, dtype=array.dtype.newbyteorder("<")).tobytes()


def array_from_bytes(raw: bytes, dtype: str, shape: tuple, where: str) -> np.ndarray:
    """The array of :func:`array_bytes`; FormatError naming ``where`` for a foreign dtype or a wrong size."""
    if dtype not in _DTYPES:
        raise FormatError(f"{where}: dtype {dtype!r} is not one of {', '.join(_DTYPES)}")
    kind = np.dtype(dtype).newbyteorder("<")
    if not (isinstance(shape, tuple) and all(isinstance(n, int) and n >= 0 for n in shape)):
        raise FormatError(f"{where}: shape {shape!r} is not a tuple of whole numbers >= 0")
    if len(raw) != kind.itemsize * math.prod(shape):
        raise FormatError(f"{where}: {len(raw)} bytes do not make a {dtype} array of shape {shape}")
    return np.frombuffer(raw, dtype=kind).astype(dtype).reshape(shape)


def check_volume_size(shape: Any, chunk_size: Any, where: str, dense: bool = True) -> tuple[int, int, int]:
    """The ``shape`` of a stored volume, as three ints, if it and its ``chunk_size`` (JSON whole numbers) make a
    volume within the world-size limits (:func:`voxelworld.terrain.base.check_volume_size`: at most
    :data:`~voxelworld.terrain.base.MAX_AXIS_VOXELS` voxels along an axis, :data:`~voxelworld.terrain.base.MAX_VOXELS`
    voxels when ``dense``, :data:`~voxelworld.terrain.base.MAX_CHUNKS` chunks); else FormatError naming ``where``,
    before anything is allocated, in constant time.

    >>> check_volume_size([2048, 2048, 2048], 32, "state 'volume'")
    Traceback (most recent call last):
    ...
    voxelworld.errors.FormatError: state 'volume': a volume larger than voxelworld reads: shape = ... holds 8589934592 voxels...
    """
    def whole(value: object) -> bool:
        return isinstance(value, int) and not isinstance(value, bool) and value >= 1
    if not (isinstance(shape, (list, tuple)) and len(shape) == 3 and all(whole(n) for n in shape)):
        raise FormatError(f"{where}: shape {shape!r} is not three whole numbers >= 1")
    if not whole(chunk_size):
        raise FormatError(f"{where}: chunk_size {chunk_size!r} is not a whole number >= 1")
    try:
        terrain_volume_size(tuple(shape), chunk_size, dense)
    except ParameterError as error:
        raise FormatError(f"{where}: a volume larger than voxelworld reads: {error}") from None
    return tuple(shape)


class StateCodec:
    """Encode values to JSON-able data and decode them back (see the module).

    Parameters
    ----------
    materials : MaterialTable
        The world's table: the one the volumes of loose objects use.
    arrays : dict of str to ndarray, optional
        Where volumes' fields go when encoding, and are read from when decoding.
    """

    def __init__(self, materials: MaterialTable, arrays: dict[str, np.ndarray] | None = None) -> None:
        self.materials = materials
        self.arrays: dict[str, np.ndarray] = {} if arrays is None else arrays
        self._table_text = _text(material_table_data(materials))

    # --------------------------------------------------------------------------------------------- encode
    def encode(self, value: Any, where: str) -> Any:
        """JSON-able data for ``value``; ParameterError naming ``where`` for a value of an unknown type."""
        if value is None or isinstance(value, (bool, str)):
            return value
        if isinstance(value, (int, np.integer)) and not isinstance(value, np.bool_):
            return int(value)
        if isinstance(value, np.bool_):
            return bool(value)
        if isinstance(value, (float, np.floating)):
            number = float(value)
            if math.isfinite(number):
                return number
            return {"$": "float", "value": "nan" if number != number else ("inf" if number > 0 else "-inf")}
        if isinstance(value, tuple):
            return [self.encode(v, f"{where}[{n}]") for n, v in enumerate(value)]
        if isinstance(value, list):
            return {"$": "list", "items": [self.encode(v, f"{where}[{n}]") for n, v in enumerate(value)]}
        if isinstance(value, (set, frozenset)):
            items = [self.encode(v, f"{where}{{}}") for v in value]
            return {"$": "frozenset" if isinstance(value, frozenset) else "set", "items": sorted(items, key=_text)}
        if isinstance(value, dict):
            return {"$": "dict", "items": [[self.encode(k, f"{where} key"), self.encode(v, f"{where}[{k!r}]")]
                                           for k, v in value.items()]}
        if isinstance(value, np.ndarray):
            if value.dtype.name not in _DTYPES:
                raise ParameterError(where, f"an array of {value.dtype}", f"an array of {', '.join(_DTYPES)}")
            return {"$": "ndarray", "dtype": value.dtype.name, "shape": list(value.shape),
                    "base64": base64.b64encode(array_bytes(value)).decode("ascii")}
        if isinstance(value, VoxelVolume):
            return self._encode_volume(value, where)
        if type(value) in _NAME_OF:
            data: dict[str, Any] = {"$": type_name(type(value))}
            for f in dataclasses.fields(value):
                if f.init:
                    data[f.name] = self.encode(getattr(value, f.name), f"{where}.{f.name}")
            return data
        raise ParameterError(where, f"a value of type {type(value).__module__}.{type(value).__qualname__}",
                             "a value voxelworld.io can store (numbers, strings, tuples, lists, dicts, sets, numpy "
                             "arrays, and the dataclasses listed in voxelworld.io.codec.TYPES)")

    def _encode_volume(self, volume: VoxelVolume, where: str) -> dict:
        if volume.materials is not self.materials and _text(material_table_data(volume.materials)) != \
                self._table_text:
            raise ParameterError(f"{where}.materials", volume.materials, "the world's material table")
        for name in FIELDS:
            self.arrays[f"{where}.{name}"] = getattr(volume, name)
        return {"$": "VoxelVolume", "shape": list(volume.shape), "voxel_size": volume.voxel_size,
                "origin": [float(v) for v in volume.origin], "iso": volume.iso, "chunk_size": volume.chunk_size,
                **{key: self.encode(value, f"{where}.{key}") for key, value in volume.state_dict().items()},
                "fields": where}

    # --------------------------------------------------------------------------------------------- decode
    def decode(self, data: Any, where: str) -> Any:
        """The value ``data`` encodes; FormatError naming ``where`` for data no encoder writes."""
        if data is None or isinstance(data, (bool, int, float, str)):
            return data
        if isinstance(data, list):
            return tuple(self.decode(v, f"{where}[{n}]") for n, v in enumerate(data))
        if not isinstance(data, dict) or not isinstance(data.get("$"), str):
            raise FormatError(f"{where}: {type(data).__name__} is not an encoded value")
        kind = data["$"]
        try:
            if kind == "float":
                return _FLOAT_WORDS[data["value"]]
            if kind == "list":
                return [self.decode(v, f"{where}[{n}]") for n, v in enumerate(data["items"])]
            if kind in ("set", "frozenset"):
                items = (self.decode(v, f"{where}{{}}") for v in data["items"])
                return frozenset(items) if kind == "frozenset" else set(items)
            if kind == "dict":
                return {self.decode(k, f"{where} key"): self.decode(v, f"{where}[{k!r}]") for k, v in data["items"]}
            if kind == "ndarray":
                raw = base64.b64decode(data["base64"].encode("ascii"), validate=True)
                return array_from_bytes(raw, data["dtype"], tuple(data["shape"]), where)
            if kind == "VoxelVolume":
                return self._decode_volume(data, where)
        except (KeyError, TypeError, ValueError, AttributeError) as error:
            raise FormatError(f"{where}: a broken {kind!r} value ({type(error).__name__}: {error})") from error
        cls = _BY_NAME.get(kind)
        if cls is None:
            raise FormatError(f"{where}: unknown type {kind!r} (not one voxelworld.io reads)")
        return self._decode_dataclass(cls, data, where)

    def _decode_dataclass(self, cls: type, data: dict, where: str) -> Any:
        init = [f.name for f in dataclasses.fields(cls) if f.init]
        unknown = sorted(set(data) - set(init) - {"$"} - _RETIRED_FIELDS.get(cls, frozenset()))
        if unknown:
            raise FormatError(f"{where}: {data['$']} has no field {unknown[0]!r}")
        values = {name: self.decode(data[name], f"{where}.{name}") for name in init if name in data}
        try:
            value = cls(**values)
        except (ParameterError, TypeError, ValueError) as error:
            raise FormatError(f"{where}: the stored {data['$']} is not valid: {error}") from error
        for name, stored in values.items():  # keep the stored bits where the constructor moved them (a direction
            kept = getattr(value, name)      # normalised again)
            if kept is not stored and self.encode(kept, where) != data[name]:
                object.__setattr__(value, name, stored)
        return value

    def _decode_volume(self, data: dict, where: str) -> VoxelVolume:
        shape = check_volume_size(data["shape"], data["chunk_size"], where)
        try:
            volume = VoxelVolume(shape, data["voxel_size"], tuple(data["origin"]), data["iso"],
                                 data["chunk_size"], self.materials)
        except ParameterError as error:
            raise FormatError(f"{where}: the stored volume is not valid: {error}") from error
        for name in FIELDS:
            key = f"{data['fields']}.{name}"
            array = self.arrays.get(key)
            field = getattr(volume, name)
            if array is None or array.shape != field.shape or array.dtype != field.dtype:
                raise FormatError(f"{where}: array {key!r} is missing or not a {field.dtype} array of shape "
                                  f"{field.shape}")
            field[...] = array
        versions = self.decode(data["chunk_versions"], f"{where}.chunk_versions")
        if not isinstance(versions, np.ndarray) or versions.shape != volume.chunk_grid_shape:
            raise FormatError(f"{where}.chunk_versions: not an array of shape {volume.chunk_grid_shape}")
        try:
            volume.load_state_dict({"chunk_versions": versions, "dirty": self.decode(data["dirty"], f"{where}.dirty")})
        except ParameterError as error:
            raise FormatError(f"{where}: {error}") from error
        return volume


# ------------------------------------------------------------------------------------------- material tables
def material_table_data(table: MaterialTable) -> dict:
    """A material table as JSON-able data: its materials (id order) and fragment sizes."""
    codec_free = [{f.name: (list(getattr(m, f.name)) if f.name == "colour" else getattr(m, f.name))
                   for f in dataclasses.fields(Material)} for m in table]
    return {"materials": codec_free, "group_min_fragment_size": dict(sorted(table.group_min_fragment_size.items())),
            "default_min_fragment_size": table.default_min_fragment_size}


def material_table_from_data(data: Any, where: str) -> MaterialTable:
    """The table of :func:`material_table_data`; FormatError naming ``where`` when it is not one."""
    try:
        materials = [Material(**entry) for entry in data["materials"]]
        return MaterialTable(materials, data["group_min_fragment_size"], data["default_min_fragment_size"])
    except (ParameterError, KeyError, TypeError, ValueError) as error:
        raise FormatError(f"{where}: not a valid material table: {error}") from error


def check_mapping(data: object, where: str, keys: Iterable[str]) -> dict[str, Any]:
    """``data`` if it is a JSON object holding every one of ``keys``; else FormatError naming the first missing."""
    if not isinstance(data, dict):
        raise FormatError(f"{where}: not a JSON object")
    for key in keys:
        if key not in data:
            raise FormatError(f"{where}: missing {key!r}")
    return data
