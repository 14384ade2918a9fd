"""Edits on a :class:`~voxelworld.terrain.VoxelVolume`: remove, add, paint, expose_interior, convert, scrape.

Each edit validates everything first (so bad input leaves the volume unchanged), runs one kernel over the
voxel box of its update range, marks the chunks it changed dirty and returns an :class:`EditResult`.
Users call them as methods (``volume.remove(shape)``); this module holds the shared machinery.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, cast

import numpy as np

from ..errors import ParameterError, check_finite, check_integer
from . import _kernels
from .shapes import Shape

if TYPE_CHECKING:
    from .base import Volume

__all__ = ["Tool", "EditResult", "remove", "add", "paint", "expose_interior", "convert", "scrape"]


@dataclass(frozen=True)
class Tool:
    """What a digging tool does to hard voxels: the hardness gate of ``remove`` and ``scrape``.

    A voxel's hardness is that of its dominant material (``mat_b`` when ``mix > 127``, else ``mat_a``).

    Parameters
    ----------
    damage : int
        Damage each call adds to a voxel of middling hardness (0..65535, damage units).
    gives_way_below : float
        Voxels softer than this give way at once (hardness scale of the material table, >= 0).
    unbreakable_from : float
        Voxels this hard or harder never give way (>= ``gives_way_below``).
    breaks_at : int
        A voxel of middling hardness gives way once its accumulated damage reaches this (1..65535).

    Examples
    --------
    >>> Tool(damage=50, breaks_at=100).breaks_at
    100
    """

    damage: int = 25
    gives_way_below: float = 3.0
    unbreakable_from: float = 8.0
    breaks_at: int = 100

    def __post_init__(self) -> None:
        object.__setattr__(self, "damage", check_integer("damage", self.damage, minimum=0, maximum=65535))
        low = check_finite("gives_way_below", self.gives_way_below, minimum=0.0)
        high = check_finite("unbreakable_from", self.unbreakable_from, minimum=low)
        object.__setattr__(self, "gives_way_below", low)
        object.__setattr__(self, "unbreakable_from", high)
        object.__setattr__(self, "breaks_at", check_integer("breaks_at", self.breaks_at, minimum=1, maximum=65535))

    def break_threshold(self, hardness: float) -> int | None:
        """The accumulated damage (damage units) at which a voxel of ``hardness`` gives way to this tool: 0 when
        it gives way at once (softer than ``gives_way_below``), None when it never does (``unbreakable_from`` or
        harder), else ``breaks_at``; each call adds ``damage`` to it first. What a HUD shows against a voxel's
        damage ("75 / 100").

        >>> tool = Tool()
        >>> tool.break_threshold(1.0), tool.break_threshold(5.0), tool.break_threshold(10.0)
        (0, 100, None)
        """
        hardness = check_finite("hardness", hardness, minimum=0.0)
        if hardness < self.gives_way_below:
            return 0
        if hardness >= self.unbreakable_from:
            return None
        return self.breaks_at


@dataclass(frozen=True)
class EditResult:
    """What one edit did. Volumes are in m³; materials and groups are keyed by name.

    ``volume_removed`` / ``volume_added`` count density lost and gained. ``removed_by_material`` /
    ``added_by_material`` count what each material lost and gained, which includes material changes
    (``paint`` moves volume from one material to another without changing density), so for any edit
    ``added_by_material[m] - removed_by_material[m]`` is the change of ``solid_volume_by_material()[m]``.
    """

    voxels_changed: int  # voxels whose density or materials changed
    voxels_damaged: int  # voxels whose damage rose but that held this time (hidden voxels a scrape hit too)
    voxels_blocked: int  # voxels the edit would have lowered but that held (damaged or unbreakable)
    dirty_chunks: frozenset[tuple[int, int, int]]  # chunks in which any field changed, damage included
    volume_removed: float
    volume_added: float
    removed_by_material: dict[str, float] = field(default_factory=dict)
    added_by_material: dict[str, float] = field(default_factory=dict)
    removed_by_group: dict[str, float] = field(default_factory=dict)
    added_by_group: dict[str, float] = field(default_factory=dict)
    most_removed_material: str | None = None  # the material that lost the most volume (lowest id on a tie)
    fragments_erased: int = 0  # connected components erased by remove_fragments

    @staticmethod
    def empty() -> EditResult:
        return EditResult(0, 0, 0, frozenset(), 0.0, 0.0)


def new_tally(volume: Volume) -> _kernels.EditTally:
    """Zeroed arrays for an edit kernel to report into."""
    return _kernels.EditTally(np.zeros(volume.chunk_grid_shape, dtype=np.uint8), np.zeros(256, dtype=np.int64),
                              np.zeros(256, dtype=np.int64), np.zeros(_kernels.STATS_LENGTH, dtype=np.int64))


def edit_result(volume: Volume, tally: _kernels.EditTally, window: tuple[_kernels.VoxelFields, np.ndarray],
                fragments_erased: int = 0) -> EditResult:
    """Store the chunks ``tally`` flags back from ``window`` (the fields and offset the kernel wrote), mark them
    dirty and turn the tally into an :class:`EditResult`."""
    flags = tally.chunk_flags
    dirty = cast("frozenset[tuple[int, int, int]]",
                 frozenset(map(tuple, np.argwhere(flags).tolist())) if flags.any() else frozenset())
    volume._store_window(*window, sorted(dirty))
    volume._mark_chunks_dirty(dirty)
    names, groups = volume.materials.name_by_id, volume.materials.group_by_id
    unit = volume.voxel_volume / 65025.0
    removed, added = _nonzero(tally.removed_units), _nonzero(tally.added_units)
    # max() keeps the first of equals: the lowest id on a tie.
    most = names[max(removed, key=lambda item: item[1])[0]] if removed else None
    stats = tally.stats.tolist()
    voxel_volume = volume.voxel_volume
    return EditResult(
        voxels_changed=stats[_kernels.STAT_CHANGED],
        voxels_damaged=stats[_kernels.STAT_DAMAGED],
        voxels_blocked=stats[_kernels.STAT_BLOCKED],
        dirty_chunks=dirty,
        volume_removed=stats[_kernels.STAT_DENSITY_REMOVED] * voxel_volume / 255.0,
        volume_added=stats[_kernels.STAT_DENSITY_ADDED] * voxel_volume / 255.0,
        removed_by_material={names[m]: units * unit for m, units in removed},
        added_by_material={names[m]: units * unit for m, units in added},
        removed_by_group=_by_group(removed, groups, unit),
        added_by_group=_by_group(added, groups, unit),
        most_removed_material=most,
        fragments_erased=fragments_erased,
    )


def _nonzero(units: np.ndarray) -> list[tuple[int, int]]:
    ids = np.flatnonzero(units)
    return list(zip(ids.tolist(), units[ids].tolist()))


def _by_group(amounts: list[tuple[int, int]], groups: tuple[str, ...], unit: float) -> dict[str, float]:
    totals: dict[str, int] = {}
    for m, units in amounts:
        totals[groups[m]] = totals.get(groups[m], 0) + units
    return {group: total * unit for group, total in totals.items()}


def check_shape(shape: object) -> Shape:
    if not isinstance(shape, Shape):
        raise ParameterError("shape", shape, "a Shape (Sphere, Box, Capsule, Cylinder or a union of them)")
    return shape


def _check_tool(tool: object) -> Tool:
    if not isinstance(tool, Tool):
        raise ParameterError("tool", tool, "a voxelworld.terrain.Tool")
    return tool


def solid_material_id(volume: Volume, material: str | int, parameter: str = "material") -> int:
    """The id of ``material`` (name or id) in the volume's table; "none" is refused. Errors name ``parameter``."""
    try:
        material_id = volume.materials.id_of(material)
    except ParameterError as error:
        raise ParameterError(parameter, material, error.legal) from None
    if material_id == 0:
        raise ParameterError(parameter, material, f"one of {', '.join(volume.materials.names)}, not 'none'")
    return material_id


def _lower(volume: Volume, shape: Shape, tool: Tool, step: int, reach: float) -> EditResult:
    box = volume.voxel_box(shape, reach)
    if box is None:
        return EditResult.empty()
    lo, hi = box
    fields, offset = window = volume._edit_window(lo, hi)
    if step:
        extent = hi - lo + 1
        exposed = np.empty(tuple(extent), dtype=np.uint8)
        below = np.empty(tuple(extent + 2), dtype=np.uint8)
        spread_z = np.empty((extent[0] + 2, extent[1] + 2, extent[2]), dtype=np.uint8)
        spread_y = np.empty((extent[0] + 2, extent[1], extent[2]), dtype=np.uint8)
        _kernels.exposure(fields.density, offset, lo, hi, volume.iso, below, spread_z, spread_y, exposed)
    else:
        exposed = np.empty((1, 1, 1), dtype=np.uint8)
    tally = new_tally(volume)
    gate = _kernels.ToolGate(tool.damage, tool.gives_way_below, tool.unbreakable_from, tool.breaks_at)
    _kernels.lower_density(fields, lo, hi, volume._grid(offset), shape.primitives(), reach, step, exposed, gate,
                           volume.materials.by_id, tally)
    return edit_result(volume, tally, window)


def remove(volume: Volume, shape: Shape, tool: Tool) -> EditResult:
    """Smooth carve: ``density = min(old, ramp(sdf))`` through the hardness gate. See ``VoxelVolume.remove``."""
    check_shape(shape)
    _check_tool(tool)
    # The ramp reaches 255 at (255 - iso) / RAMP voxels outside the shape; beyond that nothing changes.
    return _lower(volume, shape, tool, 0, (255 - volume.iso) / _kernels.RAMP * volume.voxel_size)


def scrape(volume: Volume, shape: Shape, step: int, tool: Tool) -> EditResult:
    """Peel the exposed surface inside ``shape`` by ``step``. See ``VoxelVolume.scrape``."""
    check_shape(shape)
    step = check_integer("step", step, minimum=1, maximum=255, unit="density units")
    _check_tool(tool)
    return _lower(volume, shape, tool, step, 0.0)


def add(volume: Volume, shape: Shape, material: str | int) -> EditResult:
    """Build up: ``density = max(old, ramp(-sdf))``. See ``VoxelVolume.add``."""
    check_shape(shape)
    material_id = solid_material_id(volume, material)
    # The ramp falls to 0 at iso / RAMP voxels outside the shape; beyond that nothing changes.
    reach = volume.iso / _kernels.RAMP * volume.voxel_size
    box = volume.voxel_box(shape, reach)
    if box is None:
        return EditResult.empty()
    tally = new_tally(volume)
    fields, offset = window = volume._edit_window(*box)
    _kernels.raise_density(fields, box[0], box[1], volume._grid(offset), shape.primitives(), reach, material_id,
                           tally)
    return edit_result(volume, tally, window)


def _remap(volume: Volume, shape: Shape, new_id: np.ndarray) -> EditResult:
    box = volume.voxel_box(shape, 0.0)
    if box is None:
        return EditResult.empty()
    tally = new_tally(volume)
    fields, offset = window = volume._edit_window(*box)
    _kernels.remap_materials(fields, box[0], box[1], volume._grid(offset), shape.primitives(), new_id, tally)
    return edit_result(volume, tally, window)


def paint(volume: Volume, shape: Shape, material: str | int) -> EditResult:
    """Give every voxel inside ``shape`` the one ``material``. See ``VoxelVolume.paint``."""
    check_shape(shape)
    material_id = solid_material_id(volume, material)
    return _remap(volume, shape, np.full(256, material_id, dtype=np.uint8))


def expose_interior(volume: Volume, shape: Shape) -> EditResult:
    """Replace both material slots inside ``shape`` by their interiors. See ``VoxelVolume.expose_interior``."""
    check_shape(shape)
    return _remap(volume, shape, volume.materials.interior_by_id)


def convert(volume: Volume, shape: Shape, source: str | int, target: str | int) -> EditResult:
    """Turn material ``source`` into ``target`` inside ``shape``. See ``VoxelVolume.convert``."""
    check_shape(shape)
    source_id = solid_material_id(volume, source, "source")
    target_id = solid_material_id(volume, target, "target")
    if target_id == source_id:
        source_name = volume.materials.name_by_id[source_id]
        raise ParameterError("target", target, f"a material other than source ({source_name})")
    new_id = np.arange(256, dtype=np.uint8)
    new_id[source_id] = target_id
    return _remap(volume, shape, new_id)
