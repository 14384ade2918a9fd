"""A navmesh tile read from a file (a world file's bake: ``voxelworld bake``), checked before anything reads it: the
arrays :class:`~voxelworld.navigation.tiles.BakedTile` holds, of the dtypes and shapes a bake makes, every index in
range and every grid point inside the tile, so that joining it into a navmesh (numba kernels, no bounds checks)
reads nothing outside its arrays or its tile, whatever the file holds.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from ..errors import FormatError, ParameterError
from .area_types import check_area_types
from .areas import BakeArea
from .polygons import TILE_CELLS, TilePolygons
from .sampling import MAX_LEVELS
from .settings import MAX_POLYGON_CORNERS
from .tiles import BakedTile

__all__ = ["tile_arrays", "tile_from_arrays"]

# Each array's dtype and its shape's trailing dimensions (the first is the array's own count).
_LAYOUT = {"corners": ("int64", (2,)), "heights": ("float64", ()), "start": ("int64", ()), "level": ("int64", ()),
           "detail_box": ("int64", (4,)), "detail_heights": ("float64", ()), "sides": ("int64", (4,)),
           "inner": ("int64", (2,)), "inner_ends": ("int64", (2, 2)), "area_type": ("int64", ()),
           "steps": ("int64", ()), "area_types": ("uint8", ())}


def tile_arrays(baked: BakedTile) -> dict[str, np.ndarray]:
    """The named arrays of a tile as a file keeps them: its polygons' arrays, its side steps and its area type
    names (joined by newlines, as UTF-8 bytes); :func:`tile_from_arrays` takes them back."""
    names = np.frombuffer("\n".join(baked.area_types).encode("utf-8"), dtype=np.uint8)
    return {name: getattr(baked.polygons, name) for name in TilePolygons.__dataclass_fields__} | {
        "steps": baked.steps, "area_types": names}


def tile_from_arrays(arrays: Mapping[str, np.ndarray], tile: tuple[int, int], area: BakeArea,
                     where: str) -> BakedTile:
    """The tile ``tile`` (ti, tk) of the grid ``area`` from its :func:`tile_arrays`; FormatError naming ``where``
    and what is wrong when they are not a tile's: other arrays, dtypes or shapes, counts that disagree, an index
    out of range, a grid point outside the tile, a height that is not finite."""
    def bad(what: str) -> FormatError:
        return FormatError(f"{where}: {what}")

    if sorted(arrays) != sorted(_LAYOUT):
        raise bad(f"holds the arrays {', '.join(sorted(arrays))}, not {', '.join(sorted(_LAYOUT))}")
    for name, (dtype, trailing) in _LAYOUT.items():
        array = arrays[name]
        if array.dtype != np.dtype(dtype) or array.ndim != 1 + len(trailing) or array.shape[1:] != trailing:
            raise bad(f"array {name!r} is {array.dtype}{list(array.shape)}, not {dtype}[n{''.join(f', {t}' for t in trailing)}]")
    try:
        names = check_area_types("area_types", bytes(arrays["area_types"]).decode("utf-8").split("\n"))
    except (UnicodeDecodeError, ParameterError) as error:
        raise bad(f"its area type names are not a navmesh's ({error})") from None
    start, corners, level = arrays["start"], arrays["corners"], arrays["level"]
    polygons, corner_count = len(level), len(corners)
    for name in ("detail_box", "area_type"):
        if len(arrays[name]) != polygons:
            raise bad(f"array {name!r} has {len(arrays[name])} rows for {polygons} polygons")
    if len(start) != polygons + 1 or start[0] != 0 or start[-1] != corner_count:
        raise bad(f"array 'start' is not 0, ..., {corner_count} over {polygons} polygons")
    sizes = np.diff(start)
    if len(sizes) and not (sizes.min() >= 3 and sizes.max() <= MAX_POLYGON_CORNERS):
        raise bad(f"a polygon has {int(sizes.min() if sizes.min() < 3 else sizes.max())} corners, not 3 to "
                  f"{MAX_POLYGON_CORNERS}")
    if len(arrays["heights"]) != corner_count or len(arrays["steps"]) != len(arrays["sides"]) \
            or len(arrays["inner_ends"]) != len(arrays["inner"]):
        raise bad("the counts of 'heights' and 'corners', 'steps' and 'sides', or 'inner_ends' and 'inner' differ")
    ti, tk = tile
    i0, k0 = ti * TILE_CELLS, tk * TILE_CELLS
    i1, k1 = min(i0 + TILE_CELLS, area.nx), min(k0 + TILE_CELLS, area.nz)  # cells [i0, i1) x [k0, k1)

    def within(name: str, values: np.ndarray, lo: int, hi: int) -> None:
        if values.size and not (values.min() >= lo and values.max() <= hi):
            raise bad(f"array {name!r} holds {int(values.min() if values.min() < lo else values.max())}, "
                      f"outside {lo} .. {hi}")

    within("corners", corners[:, 0], i0, i1)  # (grid points: the tile's cells and their far edge)
    within("corners", corners[:, 1], k0, k1)
    within("inner_ends", arrays["inner_ends"][:, :, 0], i0, i1)
    within("inner_ends", arrays["inner_ends"][:, :, 1], k0, k1)
    within("level", level, 0, MAX_LEVELS - 1)
    within("area_type", arrays["area_type"], 0, len(names) - 1)
    within("steps", arrays["steps"], -1, MAX_LEVELS - 1)
    within("inner", arrays["inner"], 0, polygons - 1)
    sides = arrays["sides"]
    within("sides", sides[:, 0], 0, polygons - 1)
    within("sides", sides[:, 1], 0, 3)
    within("sides", sides[:, 2], i0, i1 - 1)
    within("sides", sides[:, 3], k0, k1 - 1)
    box = arrays["detail_box"]
    within("detail_box", box[:, 0], i0, i1 - 1)
    within("detail_box", box[:, 1], k0, k1 - 1)
    within("detail_box", box[:, 2], 1, TILE_CELLS)
    within("detail_box", box[:, 3], 1, TILE_CELLS)
    within("detail_box", box[:, 0] + box[:, 2], i0 + 1, i1)
    within("detail_box", box[:, 1] + box[:, 3], k0 + 1, k1)
    if int((box[:, 2] * box[:, 3]).sum()) != len(arrays["detail_heights"]):
        raise bad(f"array 'detail_heights' has {len(arrays['detail_heights'])} heights, not the "
                  f"{int((box[:, 2] * box[:, 3]).sum())} its polygons' detail boxes cover")
    for name in ("heights", "detail_heights"):
        if not np.isfinite(arrays[name]).all():
            raise bad(f"array {name!r} holds a height that is not finite")
    polygons_arrays = TilePolygons(**{name: arrays[name] for name in TilePolygons.__dataclass_fields__})
    return BakedTile(polygons_arrays, arrays["steps"], names)
