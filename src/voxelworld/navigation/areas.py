"""Bake areas: the ray grid that one search region, or several that meet, are baked on.

Search regions baked together whose boxes meet (their x-z boxes overlap or touch, and their heights overlap) are
one *area*: one square grid of ray columns (spacing ``settings.cell_size``) from the lowest x and z of its
regions, so that the walkable samples run on across the borders the regions share, and erosion, islands and
polygons treat the area as a whole (an agent walks from one region into the next; no seam of erosion is left
along a shared border). A column of the area is baked when its cell lies inside the union of the regions' x-z
boxes (each of its corners inside one); its rays are the rays of its *owner*, the first region (in the order
given) whose x-z box holds the cell's centre: they fall from that region's top to its bottom, meet the objects
as that region's roles make them, and land on its bottom face when its landing is on. A region alone is an area
whose grid starts at its own corner: exactly the grid it has always had.

Regions that do not meet are separate areas, baked each on its own grid, as before; regions stacked over one
another (their heights only touch) do not meet. Where regions overlap, the first one given owns the columns.

Examples
--------
>>> from voxelworld.navigation import NavSettings, SearchRegion
>>> settings = NavSettings(ray_density=4)
>>> l_shape = [SearchRegion((0, 0, 0), (10, 3, 4)), SearchRegion((0, 0, 4), (4, 3, 10)),
...            SearchRegion((30, 0, 0), (34, 3, 4))]
>>> [(len(a.regions), a.nx, a.nz) for a in bake_areas(l_shape, settings)]
[(2, 20, 20), (1, 8, 8)]
>>> area = bake_areas(l_shape, settings)[0]
>>> int((area.owner == 0).sum()), int((area.owner == 1).sum()), int((area.owner < 0).sum())
(160, 96, 144)
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import numpy as np

from ..errors import ParameterError
from .settings import BAKE_BYTES_PER_COLUMN, MAX_BAKE_COLUMNS, NavSettings, SearchRegion

__all__ = ["BakeArea", "bake_areas", "area_of", "grid_shape", "check_bake_size", "JOIN_SLACK"]

# Cells: how far apart two regions' faces may lie and still count as touching, and how far a cell's corner may
# lie outside a region and still count as inside (floating-point slack of a border placed on the grid).
JOIN_SLACK = 1e-9


@dataclass(frozen=True, eq=False)
class BakeArea:
    """The ray grid of one or more search regions baked as one (see the module's docstring).

    Attributes
    ----------
    regions : tuple of SearchRegion
        The regions, in the order given to the bake.
    x0, z0 : float
        The grid's corner (m): column ``(i, k)``'s cell spans ``x0 + [i, i + 1] * cell``, ``z0 + [k, k + 1] * cell``.
    cell : float
        The grid's spacing (m), ``settings.cell_size``.
    nx, nz : int
        Columns along x and z (>= 1).
    owner : ndarray (nx, nz) int64
        The region (index into ``regions``) whose rays each column casts; -1 for a column outside the regions.
    """

    regions: tuple[SearchRegion, ...]
    x0: float
    z0: float
    cell: float
    nx: int
    nz: int
    owner: np.ndarray

    @property
    def bounds(self) -> tuple[np.ndarray, np.ndarray]:
        """The box ``(lo, hi)`` (m) holding every region of the area."""
        return (np.min([r.min for r in self.regions], axis=0), np.max([r.max for r in self.regions], axis=0))


def _whole_cells(extent: float, cell: float) -> float:
    """How many whole cells fit in ``extent`` (m), as a float: inf for an area too wide to count."""
    count = extent / cell + JOIN_SLACK
    return float(math.floor(count)) if count < math.inf else count


def _meet(a: SearchRegion, b: SearchRegion, slack: float) -> bool:
    """Whether two regions' x-z boxes overlap or touch (within ``slack`` m) and their heights overlap."""
    return all(a.min[axis] <= b.max[axis] + slack and b.min[axis] <= a.max[axis] + slack for axis in (0, 2)) \
        and a.min[1] < b.max[1] and b.min[1] < a.max[1]


def _groups(regions: list[SearchRegion], slack: float) -> list[list[int]]:
    """The regions (indices) that meet, directly or through others: groups in the order of their first region."""
    root = list(range(len(regions)))

    def find(n: int) -> int:
        while root[n] != n:
            root[n] = root[root[n]]
            n = root[n]
        return n

    for a in range(len(regions)):
        for b in range(a):
            if _meet(regions[a], regions[b], slack):
                root[max(find(a), find(b))] = min(find(a), find(b))
    groups: dict[int, list[int]] = {}
    for n in range(len(regions)):
        groups.setdefault(find(n), []).append(n)
    return list(groups.values())


def _corner_and_shape(regions: list[SearchRegion], cell: float) -> tuple[float, float, float, float]:
    """The grid corner (x0, z0) of regions baked as one, and how many columns (floats, maybe inf) fit along x, z."""
    x0, z0 = min(r.min[0] for r in regions), min(r.min[2] for r in regions)
    nx = _whole_cells(max(r.max[0] for r in regions) - x0, cell)
    nz = _whole_cells(max(r.max[2] for r in regions) - z0, cell)
    return x0, z0, nx, nz


def _columns_of(regions: list[SearchRegion], settings: NavSettings) -> float:
    """How many ray columns (a float, maybe inf) the grid of regions baked as one has."""
    _, _, nx, nz = _corner_and_shape(regions, settings.cell_size)
    return nx * nz


def check_bake_size(regions: Iterable[SearchRegion], settings: NavSettings,
                    columns: Sequence[float] | None = None) -> None:
    """ParameterError naming ``ray_density`` unless the ray columns of ``regions`` (``columns``: each area's
    count, computed when None) are at most MAX_BAKE_COLUMNS in all; the message gives the memory the bake would
    need and the largest ray density that fits."""
    regions = list(regions)
    if columns is None:
        columns = [_columns_of([regions[n] for n in group], settings)
                   for group in _groups(regions, JOIN_SLACK * settings.cell_size)]
    total = sum(columns)
    if total <= MAX_BAKE_COLUMNS:
        return
    area = sum((r.max[0] - r.min[0]) * (r.max[2] - r.min[2]) for r in regions)  # m², maybe inf
    sizes = " + ".join(f"{r.max[0] - r.min[0]:g} x {r.max[2] - r.min[2]:g} m" for r in regions)
    raise ParameterError("ray_density", settings.ray_density,
                         f"<= {MAX_BAKE_COLUMNS / area:.3g} rays per m² over {sizes}: a bake casts at most "
                         f"MAX_BAKE_COLUMNS = {MAX_BAKE_COLUMNS} ray columns (about {BAKE_BYTES_PER_COLUMN} bytes "
                         f"each); this one would cast {total:.4g} and need about "
                         f"{total * BAKE_BYTES_PER_COLUMN / 2**30:.3g} GiB. Lower ray_density or bake a smaller "
                         f"region")


def _columns(lo: float, hi: float, origin: float, cell: float, n: int) -> tuple[slice, slice]:
    """Of ``n`` columns from ``origin``: those whose cell's both sides lie in [lo, hi] (as a slice of the
    ``n + 1`` corners: corners inside), and those whose centre does (a slice of the columns)."""
    u_lo, u_hi = (lo - origin) / cell, (hi - origin) / cell
    corners = slice(max(math.ceil(u_lo - JOIN_SLACK), 0), max(min(math.floor(u_hi + JOIN_SLACK), n) + 1, 0))
    centres = slice(max(math.ceil(u_lo - 0.5 - JOIN_SLACK), 0), max(min(math.floor(u_hi - 0.5 + JOIN_SLACK) + 1, n), 0))
    return corners, centres


def _area(regions: list[SearchRegion], settings: NavSettings) -> BakeArea:
    cell = settings.cell_size
    x0, z0, nx, nz = _corner_and_shape(regions, cell)
    if nx < 1 or nz < 1:
        raise ParameterError("region", regions[0] if len(regions) == 1 else regions,
                             f"a box at least one cell ({cell:.3f} m) wide in x and z")
    check_bake_size(regions, settings, [nx * nz])  # before anything is allocated
    nx, nz = int(nx), int(nz)
    owner = np.full((nx, nz), -1, dtype=np.int64)
    if len(regions) == 1:
        owner[:] = 0
        return BakeArea(tuple(regions), float(x0), float(z0), cell, nx, nz, owner)
    covered = np.zeros((nx + 1, nz + 1), dtype=bool)  # grid corners inside a region's x-z box
    for n in range(len(regions) - 1, -1, -1):  # the first region given ends up owning what several hold
        region = regions[n]
        (ci, si), (ck, sk) = (_columns(region.min[a], region.max[a], origin, cell, count)
                              for a, origin, count in ((0, x0, nx), (2, z0, nz)))
        covered[ci, ck] = True
        owner[si, sk] = n
    inside = covered[:-1, :-1] & covered[1:, :-1] & covered[:-1, 1:] & covered[1:, 1:]
    owner[~inside] = -1
    return BakeArea(tuple(regions), float(x0), float(z0), cell, nx, nz, owner)


def bake_areas(regions: Iterable[SearchRegion], settings: NavSettings) -> list[BakeArea]:
    """The areas a bake of ``regions`` (a list of SearchRegion) casts its rays over: the regions that meet, as
    one area each (see the module's docstring), in the order of their first region. ParameterError naming
    ``region`` for an area less than a cell wide, ``ray_density`` for a bake of too many columns."""
    regions = list(regions)
    groups = [[regions[n] for n in group] for group in _groups(regions, JOIN_SLACK * settings.cell_size)]
    check_bake_size(regions, settings, [_columns_of(group, settings) for group in groups])
    return [_area(group, settings) for group in groups]


def area_of(region: SearchRegion | BakeArea, settings: NavSettings) -> BakeArea:
    """``region`` itself if it is an area, else the area of that region alone."""
    return region if isinstance(region, BakeArea) else _area([region], settings)


def grid_shape(region: SearchRegion | BakeArea, settings: NavSettings) -> tuple[int, int]:
    """How many columns of rays a region (alone) or an area has along x and z; ParameterError for a region less
    than a cell wide or one of more than MAX_BAKE_COLUMNS columns (see :func:`check_bake_size`)."""
    if isinstance(region, BakeArea):
        return region.nx, region.nz
    x0, z0, nx, nz = _corner_and_shape([region], settings.cell_size)
    if nx < 1 or nz < 1:
        raise ParameterError("region", region, f"a box at least one cell ({settings.cell_size:.3f} m) wide in x and z")
    check_bake_size([region], settings, [nx * nz])
    return int(nx), int(nz)
