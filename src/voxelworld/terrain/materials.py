"""Materials: what voxels are made of, and the per-id lookup arrays that kernels read.

A :class:`Material` is one row of the table: an id (1-255; 0 means "none"), a name, a group, a hardness, how
it looks, what a fresh cut shows (``interior``), how it competes when a fragment must be given one material,
and free gameplay properties. A :class:`MaterialTable` holds the rows, loads them from TOML (a default table
ships with the package) and exposes read-only numpy arrays indexed by material id for numba kernels.

Examples
--------
>>> from voxelworld.terrain.materials import MaterialTable
>>> table = MaterialTable.default()
>>> table["rock"].hardness, table.id_of("iron"), table.id_of("none")
(5.0, 11, 0)
>>> table.same_kind("rock", "rock_interior"), table.same_kind("rock", "soil")
(True, False)
>>> table.name_by_id[int(table.interior_by_id[table.id_of("grass")])]
'soil'
>>> int(table.min_fragment_size_by_id[table.id_of("iron")])
1
"""

from __future__ import annotations

import functools
import re
import tomllib
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, fields
from importlib import resources
from pathlib import Path
from types import MappingProxyType

import numpy as np

from ..errors import FormatError, ParameterError, check_finite, check_integer, check_range
from ._kernels import MaterialArrays

NONE_COLOUR = (0.5, 0.5, 0.5)  # what renderers draw material id 0 ("none") and unused ids in

__all__ = ["Material", "MaterialTable", "NONE_COLOUR", "MAX_FRAGMENT_SIZE"]

NONE_ID = 0
_NAME = re.compile(r"[a-z0-9_]+")
# An area type's name (as voxelworld.navigation.area_types checks it, a floor above: kept the same by a test).
_AREA_TYPE = re.compile(r"[a-z][a-z0-9_]{0,31}")
_HEX_COLOUR = re.compile(r"#[0-9a-fA-F]{6}")
_LOWEST_PRIORITY = -(2**31)  # the priority of "none" and unused ids: every real material beats it
MAX_FRAGMENT_SIZE = 2**31 - 1  # voxels: the largest min_fragment_size (more than any volume holds)

# Free numeric properties: field -> (minimum, maximum, unit).
_FREE_NUMBERS = {"weight": (0.0, None, "kg/m³"), "slipperiness": (0.0, 1.0, ""),
                 "contact_damage": (0.0, None, "stamina per second"), "temperature": (-273.15, None, "°C"),
                 "stamina_reward": (None, None, "stamina"), "currency_reward": (None, None, "currency")}
# Materials whose fields listed here are all equal are one kind (gameplay cannot tell them apart).
_KIND_FIELDS = ("group", "hardness", "weight", "slipperiness", "contact_damage", "temperature", "attachable",
                "stamina_reward", "currency_reward", "footstep", "area_type")


def _identifier(parameter: str, value: object) -> str:
    check_range(parameter, value, "a non-empty string of a-z, 0-9 and _",
                isinstance(value, str) and _NAME.fullmatch(value) is not None)
    return value  # type: ignore[return-value]  # a str: checked above


def _colour(value: object) -> tuple[float, float, float]:
    legal = "'#rrggbb' or three finite numbers in [0, 1] (red, green, blue)"
    if isinstance(value, str):
        check_range("colour", value, legal, _HEX_COLOUR.fullmatch(value) is not None)
        return tuple(int(value[i:i + 2], 16) / 255 for i in (1, 3, 5))  # type: ignore[return-value]  # three
    try:
        channels = [float(c) for c in value]  # type: ignore[attr-defined]  # not iterable: TypeError, caught
    except (TypeError, ValueError):
        raise ParameterError("colour", value, legal) from None
    check_range("colour", value, legal, len(channels) == 3 and all(0.0 <= c <= 1.0 for c in channels))
    return tuple(channels)  # type: ignore[return-value]  # three: checked above


@dataclass(frozen=True)
class Material:
    """One material of a :class:`MaterialTable`; every field is checked on construction.

    ``id``, ``name``, ``group`` and ``hardness`` are required; the comment beside each field gives its unit and
    legal range and what reads it. Names (material, group, interior) are non-empty strings of ``a-z``, ``0-9``
    and ``_``. The terrain reads ``group``, ``hardness``, ``interior``, ``fragment_priority`` and
    ``min_fragment_size``; ``colour`` and ``texture`` are the renderers'; the free properties after them are the
    game's (:mod:`voxelworld.game`), each with the effect named beside it.

    Examples
    --------
    >>> Material(id=3, name="sand", group="soil", hardness=0.5, colour="#ff0000").colour
    (1.0, 0.0, 0.0)
    """

    id: int  # 1..255; 0 is reserved for "none" (no material)
    name: str  # unique in the table; "none" is reserved
    group: str  # materials of a group share a default min_fragment_size and may be one kind
    hardness: float  # >= 0, dimensionless (default table: 0.5 sand .. 10 iron); tools compare it with thresholds
    colour: tuple[float, float, float] = (0.5, 0.5, 0.5)  # red, green, blue in [0, 1]; "#rrggbb" is converted;
    # what the renderers (browser page, offscreen snapshots) draw the material in
    texture: str = ""  # name of the texture the renderers draw the material with: a procedural picture
    # (:func:`voxelworld.terrain.texture_set`) whose average is the ``colour`` of the first material (lowest id)
    # naming it, the colour drawn where no picture can be (:meth:`MaterialTable.palette`); "" for none: a plain
    # picture in the material's own colour
    interior: str = ""  # name of the material a fresh cut shows; "" means this material itself
    fragment_priority: int = 0  # higher wins when a fragment or pulled-out piece must be given one material
    min_fragment_size: int | None = None  # voxels (1..MAX_FRAGMENT_SIZE); smaller fragments are cleaned away; None: the group's
    weight: float = 1000.0  # kg/m³, >= 0: a thrown object of it leaves slower the heavier it is (ThrowSettings)
    slipperiness: float = 0.5  # 0 (grippy) .. 1 (frictionless): the ground's grip on the player (traction)
    contact_damage: float = 0.0  # stamina lost per second the player touches it, >= 0
    temperature: float = 20.0  # °C, >= -273.15: molten at ImpactRules.molten_from (thrown: explodes; hit: cools)
    attachable: bool = False  # whether a thrown object sticks to it (the "attach" impact rule)
    stamina_reward: float = 0.0  # stamina a treasure lying in it pays when opened
    currency_reward: float = 0.0  # currency a treasure lying in it pays when opened
    footstep: str = ""  # footstep sound name (Footstep events carry it), "" for silence
    area_type: str = ""  # the navmesh's area type of ground of it ("mud": 1-32 of a-z, 0-9, _, a letter first);
    # "" (default): derived, "slippery" above the game's slipperiness threshold, else "ground"
    # (voxelworld.game.nav_areas); ground within 1 m of a material with contact_damage is "hazard" whatever this says

    def __post_init__(self) -> None:
        def set_(field: str, value: object) -> None:
            object.__setattr__(self, field, value)

        set_("id", check_integer("id", self.id, minimum=1, maximum=255))
        check_range("name", self.name, "a name other than 'none' (reserved for id 0)", self.name != "none")
        set_("name", _identifier("name", self.name))
        set_("group", _identifier("group", self.group))
        set_("hardness", check_finite("hardness", self.hardness, minimum=0.0))
        set_("colour", _colour(self.colour))
        for field in ("texture", "footstep"):
            check_range(field, getattr(self, field), "a string", isinstance(getattr(self, field), str))
        set_("interior", _identifier("interior", self.interior or self.name))
        set_("fragment_priority", check_integer("fragment_priority", self.fragment_priority,
                                                minimum=_LOWEST_PRIORITY + 1, maximum=2**31 - 1))
        if self.min_fragment_size is not None:
            set_("min_fragment_size", check_integer("min_fragment_size", self.min_fragment_size,
                                                    minimum=1, maximum=MAX_FRAGMENT_SIZE, unit="voxels"))
        for field, (lo, hi, unit) in _FREE_NUMBERS.items():
            set_(field, check_finite(field, getattr(self, field), minimum=lo, maximum=hi, unit=unit))
        check_range("attachable", self.attachable, "True or False", isinstance(self.attachable, bool))
        check_range("area_type", self.area_type, "'' (derived) or an area type name: 1 to 32 lowercase letters, "
                    "digits or '_', starting with a letter", isinstance(self.area_type, str)
                    and (self.area_type == "" or _AREA_TYPE.fullmatch(self.area_type) is not None))


_FIELD_NAMES = tuple(f.name for f in fields(Material))
_REQUIRED = ("id", "name", "group", "hardness")


class MaterialTable:
    """The materials of a world, looked up by name or id, with per-id arrays for kernels.

    Parameters
    ----------
    materials : iterable of Material
        Distinct ids and names; every ``interior`` names a material of the table.
    group_min_fragment_size : mapping of str to int, optional
        Minimum fragment size (voxels, >= 1) of each group, used where a material gives none.
    default_min_fragment_size : int
        Minimum fragment size (voxels, >= 1) where neither material nor group gives one.

    Attributes
    ----------
    group_min_fragment_size : mapping of str to int
        Read-only copy of the argument; ``default_min_fragment_size`` is kept as given too.
    names : tuple of str
        Material names in id order ("none" not included).
    hardness_by_id, interior_by_id, fragment_priority_by_id, min_fragment_size_by_id, kind_by_id : ndarray
        Read-only, length 256, indexed by material id (float64, uint8, int32, int64, uint8). Id 0 and unused
        ids hold neutral values: hardness 0, interior itself, priority -2**31, fragment size 0, kind 0.
        ``kind_by_id`` holds the lowest id of the materials of the same kind.
    by_id : MaterialArrays
        The same five arrays as one named tuple (``hardness``, ``interior``, ``fragment_priority``,
        ``min_fragment_size``, ``kind``), as the terrain kernels take them.
    name_by_id, group_by_id : tuple of 256 str
        "none" at id 0, "" at unused ids.

    Examples
    --------
    >>> table = MaterialTable([Material(1, "rock", "rock", 5.0), Material(2, "ore", "rock", 5.0)],
    ...                       group_min_fragment_size={"rock": 27})
    >>> table.same_kind("rock", 2), [int(k) for k in table.kind_by_id[:3]]
    (True, [0, 1, 1])
    """

    def __init__(self, materials: Iterable[Material], group_min_fragment_size: Mapping[str, int] | None = None,
                 default_min_fragment_size: int = 8):
        materials = list(materials)
        for index, material in enumerate(materials):
            check_range(f"materials[{index}]", material, "a Material", isinstance(material, Material))
        by_id: dict[int, Material] = {}
        by_name: dict[str, Material] = {}
        for material in sorted(materials, key=lambda m: m.id):
            label = f"materials[{material.name!r}]"
            if material.id in by_id:
                raise ParameterError(f"{label}.id", material.id,
                                     f"an id no other material has ({by_id[material.id].name!r} has it)")
            if material.name in by_name:
                raise ParameterError(f"materials[id {material.id}].name", material.name,
                                     f"a name no other material has (id {by_name[material.name].id} has it)")
            by_id[material.id] = by_name[material.name] = material
        for material in by_id.values():
            check_range(f"materials[{material.name!r}].interior", material.interior,
                        f"the name of a material in the table: {', '.join(by_name)}", material.interior in by_name)
        groups = {}
        for group, size in dict(group_min_fragment_size or {}).items():
            groups[group] = check_integer(f"group_min_fragment_size[{group!r}]", size, minimum=1,
                                          maximum=MAX_FRAGMENT_SIZE, unit="voxels")
        default_size = check_integer("default_min_fragment_size", default_min_fragment_size, minimum=1,
                                     maximum=MAX_FRAGMENT_SIZE, unit="voxels")

        self._by_id, self._by_name = by_id, by_name
        self.group_min_fragment_size: Mapping[str, int] = MappingProxyType(groups)
        self.default_min_fragment_size: int = default_size
        self.names: tuple[str, ...] = tuple(by_name)
        self._build_lookups()

    def _build_lookups(self) -> None:
        hardness = np.zeros(256, dtype=np.float64)
        interior = np.arange(256, dtype=np.uint8)
        priority = np.full(256, _LOWEST_PRIORITY, dtype=np.int32)
        min_size = np.zeros(256, dtype=np.int64)
        kind = np.zeros(256, dtype=np.uint8)
        names = ["none"] + [""] * 255
        groups = ["none"] + [""] * 255
        first_of_kind: dict[tuple, int] = {}
        for m in self._by_id.values():  # id order, so the first of a kind has the lowest id
            hardness[m.id] = m.hardness
            interior[m.id] = self._by_name[m.interior].id
            priority[m.id] = m.fragment_priority
            min_size[m.id] = (m.min_fragment_size if m.min_fragment_size is not None else
                              self.group_min_fragment_size.get(m.group, self.default_min_fragment_size))
            kind_key = tuple(getattr(m, field) for field in _KIND_FIELDS)
            kind[m.id] = first_of_kind.setdefault(kind_key, m.id)
            names[m.id] = m.name
            groups[m.id] = m.group
        for array in (hardness, interior, priority, min_size, kind):
            array.flags.writeable = False  # shared with kernels and callers: nobody may change the table
        self.hardness_by_id, self.interior_by_id, self.fragment_priority_by_id = hardness, interior, priority
        self.min_fragment_size_by_id, self.kind_by_id = min_size, kind
        self.by_id = MaterialArrays(hardness, interior, priority, min_size, kind)
        self.name_by_id: tuple[str, ...] = tuple(names)
        self.group_by_id: tuple[str, ...] = tuple(groups)

    # --- lookup -----------------------------------------------------------------------------------------------

    def id_of(self, material: str | int) -> int:
        """The id of ``material`` (a name or an id); ``"none"`` and 0 give 0.

        Raises :class:`ParameterError` (parameter ``"material"``) for unknown names and ids.
        """
        if isinstance(material, str):
            if material == "none":
                return NONE_ID
            if material in self._by_name:
                return self._by_name[material].id
        elif isinstance(material, (int, np.integer)) and not isinstance(material, bool):
            if material == NONE_ID or int(material) in self._by_id:
                return int(material)
        raise ParameterError("material", material, self._legal())

    def __getitem__(self, material: str | int) -> Material:
        """The :class:`Material` named or numbered ``material`` ("none" / 0 is no material and raises)."""
        found = self._by_id.get(self.id_of(material))
        if found is None:
            raise ParameterError("material", material, self._legal(with_none=False))
        return found

    def __contains__(self, material: object) -> bool:
        try:
            return self.id_of(material) != NONE_ID  # type: ignore[arg-type]  # anything else: ParameterError
        except ParameterError:
            return False

    def same_kind(self, a: str | int, b: str | int) -> bool:
        """Whether ``a`` and ``b`` (names or ids) are one kind: same group, hardness and free properties.

        Name, id, colour, texture, interior, fragment priority and minimum fragment size do not count.
        "none" is only the same kind as itself.
        """
        id_a, id_b = self.id_of(a), self.id_of(b)
        return id_a == id_b or int(self.kind_by_id[id_a]) == int(self.kind_by_id[id_b]) != NONE_ID

    def palette(self) -> np.ndarray:
        """The colour (256 x 3 float64, red, green, blue in [0, 1]) every material id is drawn in, the one palette
        of every renderer (browser page, snapshots, glTF and OBJ export).

        A material is drawn with its ``texture``, a procedural picture (:func:`voxelworld.terrain.texture_set`)
        whose average is the colour of the first material (lowest id) that names it, so materials sharing a
        texture look alike. This palette is that average: the colour renderers use where a picture cannot be
        drawn (OBJ export, vertex colours, charts). A material without a texture is drawn in its own ``colour``;
        id 0 ("none") and unused ids in :data:`NONE_COLOUR`.

        >>> table = MaterialTable([Material(1, "rock", "rock", 5.0, "#808080", texture="rock"),
        ...                        Material(2, "rock_interior", "rock", 5.0, "#ffffff", texture="rock")])
        >>> table.palette()[2].tolist() == table.palette()[1].tolist() == list(table["rock"].colour)
        True
        """
        palette = np.tile(np.array(NONE_COLOUR), (256, 1))
        texture_colours: dict[str, tuple[float, float, float]] = {}
        for material in sorted(self, key=lambda m: m.id):
            colour = material.colour
            if material.texture:
                colour = texture_colours.setdefault(material.texture, material.colour)
            palette[material.id] = colour
        return palette

    def __len__(self) -> int:
        return len(self._by_id)

    def __iter__(self) -> Iterator[Material]:
        return iter(self._by_id.values())

    def __repr__(self) -> str:
        return f"MaterialTable({len(self)} materials: {', '.join(self.names)})"

    def _legal(self, with_none: bool = True) -> str:
        known = (["none (0)"] if with_none else []) + [f"{m.name} ({m.id})" for m in self]
        return "a material name or id of the table: " + ", ".join(known)

    # --- loading ----------------------------------------------------------------------------------------------

    @classmethod
    def default(cls) -> MaterialTable:
        """The built-in table (``default_materials.toml``, shipped with the package). Shared; never mutate it."""
        return _default_table()

    @classmethod
    def from_toml(cls, path: str | Path) -> MaterialTable:
        """Read a table from the TOML file at ``path``; raises :class:`FormatError` naming the file and problem."""
        path = Path(path)
        try:
            text = path.read_text(encoding="utf-8")
        except OSError as error:
            raise FormatError(f"{path}: cannot read the material table: {error.strerror or error}") from error
        except UnicodeDecodeError as error:
            raise FormatError(f"{path}: the material table is not UTF-8 text: {error}") from error
        return cls.from_toml_string(text, source=str(path))

    @classmethod
    def from_toml_string(cls, text: str, source: str = "<string>") -> MaterialTable:
        """Read a table from TOML ``text``: ``[groups.<group>]`` tables with an optional ``min_fragment_size``
        and ``[[material]]`` entries with the :class:`Material` fields (colour as ``"#rrggbb"``).

        ``source`` names the text in :class:`FormatError` messages.
        """
        try:
            document = tomllib.loads(text)
        except tomllib.TOMLDecodeError as error:
            raise FormatError(f"{source}: not valid TOML: {error}") from error
        _check_keys(document, ("groups", "material"), source)
        groups = document.get("groups", {})
        if not isinstance(groups, dict):
            raise FormatError(f"{source}: 'groups' must be a table of [groups.<group>] tables")
        sizes = {}
        for group, entry in groups.items():
            if "min_fragment_size" in _check_keys(entry, ("min_fragment_size",), f"{source}: [groups.{group}]"):
                try:
                    sizes[group] = check_integer(f"groups.{group}.min_fragment_size", entry["min_fragment_size"],
                                                 minimum=1, unit="voxels")
                except ParameterError as error:
                    raise FormatError(f"{source}: {error}") from error
        entries = document.get("material", [])
        if not isinstance(entries, list):
            raise FormatError(f"{source}: 'material' must be an array of [[material]] tables")
        materials = [_material_from_entry(entry, number, source) for number, entry in enumerate(entries, 1)]
        try:
            return cls(materials, group_min_fragment_size=sizes)
        except ParameterError as error:
            raise FormatError(f"{source}: {error}") from error


def _check_keys(entry: object, known: tuple[str, ...], where: str) -> dict:
    """``entry`` if it is a TOML table whose keys are all ``known``; else raise FormatError (catches typos)."""
    if not isinstance(entry, dict):
        raise FormatError(f"{where} must be a table")
    for key in entry:
        if key not in known:
            raise FormatError(f"{where}: unknown key {key!r} (known: {', '.join(known)})")
    return entry


def _material_from_entry(entry: object, number: int, source: str) -> Material:
    where = f"{source}: [[material]] #{number}"
    if isinstance(entry, dict) and "name" in entry:
        where += f" ({entry['name']!r})"
    entry = _check_keys(entry, _FIELD_NAMES, where)
    for key in _REQUIRED:
        if key not in entry:
            raise FormatError(f"{where}: missing key {key!r}")
    try:
        return Material(**entry)
    except ParameterError as error:
        raise FormatError(f"{where}: {error}") from error


@functools.cache
def _default_table() -> MaterialTable:
    text = resources.files(__package__).joinpath("default_materials.toml").read_text(encoding="utf-8")
    return MaterialTable.from_toml_string(text, source="voxelworld/terrain/default_materials.toml")
