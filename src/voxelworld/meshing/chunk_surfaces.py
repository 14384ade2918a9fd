"""Making chunk surfaces and meshes from the voxels, and meshing a whole volume at once: what
:class:`~voxelworld.meshing.chunks.ChunkMesher` keeps current chunk by chunk, and :func:`mesh_volume` and
:func:`collision_mesh_volume` make in one go (the same meshes, bit for bit)."""

from __future__ import annotations

import math
import os
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import replace
from functools import cache
from itertools import product
from typing import Any, TypeVar

import numpy as np

from ..errors import ParameterError
from ..terrain import MaterialTable, SparseVolume, Volume
from . import _kernels
from .detail import FEATURE_FLOOR_LEVEL
from .mesh import (
    CollisionMesh,
    DisplayMesh,
    assemble_block,
    assemble_chunk,
    chunk_cells,
    merge_collision_meshes,
    merge_display_meshes,
)
from .options import MeshOptions
from .surface import ChunkSurface, chunk_surface, empty_surface, simplify_surface

__all__ = ["MESHED_FIELDS", "mesh_volume", "collision_mesh_volume", "map_on_cores", "check_mesher_inputs",
           "halo_voxels", "fields_window", "raw_surface", "raw_surface_and_density", "DensityWindow", "uniform_side",
           "uniform_sides", "simplified_surface", "simplified_chunk", "chunk_surfaces", "build_chunk",
           "volume_blocks", "all_chunks", "materialised", "display_form", "unchanged_surface", "NO_QEF"]

MESHED_FIELDS = ("density", "mat_a", "mat_b", "mix")  # damage does not show

T = TypeVar("T")
R = TypeVar("R")


@cache
def _executor() -> ThreadPoolExecutor:
    return ThreadPoolExecutor(max_workers=os.cpu_count() or 1, thread_name_prefix="voxelworld-mesher")


# Fewer items than this are computed on the calling thread: handing an item to a worker and waking the caller
# again costs about what one chunk's work does (0.1-0.5 ms; on a busy machine several times that), so the few chunks
# an edit remeshes in a frame are quicker at home; whole volumes and streaming batches go to the pool.
MIN_ITEMS_ON_CORES = 6


def map_on_cores(function: Callable[[T], R], items: list[T]) -> list[R]:
    """``[function(x) for x in items]``, on all cores when there are at least ``MIN_ITEMS_ON_CORES`` items: the
    kernels release the GIL. Each item is computed on its own, so the results do not depend on the threads'
    order."""
    if len(items) < MIN_ITEMS_ON_CORES or (os.cpu_count() or 1) < 2:
        return [function(item) for item in items]
    return list(_executor().map(function, items))


def check_mesher_inputs(volume: object, materials: object, options: object) -> tuple[MaterialTable, MeshOptions]:
    if not isinstance(volume, Volume):
        raise ParameterError("volume", volume, "a voxelworld.terrain.VoxelVolume or SparseVolume")
    if materials is None:
        materials = volume.materials
    if not isinstance(materials, MaterialTable):
        raise ParameterError("materials", materials, "a MaterialTable or None (the volume's own)")
    if not isinstance(options, MeshOptions):
        raise ParameterError("options", options, "a voxelworld.meshing.MeshOptions")
    return materials, options


# A chunk's density samples as its surface reads them (its cells and halo_voxels more around), and the window's
# first sample: what fields_window gives of "density".
DensityWindow = tuple[np.ndarray, np.ndarray]


def halo_voxels(options: MeshOptions) -> int:
    """Samples the meshing of a chunk reads around its cells: its vertices one below and two above (corners and
    their gradients), its simplification the surface test's reach (the tolerance, at most the collision one)
    and two more (interpolating)."""
    return 2 + math.ceil(options.collision_tolerance)


def fields_window(fields: Volume, lo: np.ndarray, hi: np.ndarray, halo: int,
                  names: Sequence[str]) -> tuple[dict[str, np.ndarray], np.ndarray]:
    """The fields ``names`` of ``fields`` around the cells ``lo .. hi - 1``: ``halo`` samples more on each side
    (and the cells' last samples) where the volume goes on, to its sides where it ends; and the window's first
    sample. Meshing a window gives the same numbers as meshing the whole volume."""
    first = np.maximum(lo - halo, 0)
    last = np.minimum(hi + 1 + halo, np.array(fields.shape, dtype=np.int64))
    return fields.read_window(first, last, names), first


def raw_surface(volume: Volume, chunk: Sequence[int], options: MeshOptions, levels: int, size: int | None = None,
             fields: Volume | None = None, quadrics: bool = True, scratch: bool = False) -> ChunkSurface:
    """The dual vertices of ``chunk`` (of ``size`` cells, the volume's chunk size by default), with the
    tangent planes that simplification needs when ``levels`` > 0; made from ``fields`` (a volume of the same
    geometry: a mesher's copy of what it saw), the volume itself by default. Without ``quadrics`` the surface
    keeps none; with ``scratch`` its vertices are this thread's scratch, for simplifying at once (see
    :func:`chunk_surface`)."""
    return raw_surface_and_density(volume, chunk, options, levels, size, fields, quadrics, scratch)[0]


def raw_surface_and_density(volume: Volume, chunk: Sequence[int], options: MeshOptions, levels: int,
                            size: int | None = None, fields: Volume | None = None, quadrics: bool = True,
                            scratch: bool = False) -> tuple[ChunkSurface, DensityWindow | None]:
    """:func:`raw_surface`, and the density window it read (None: it read none, the chunk uniform): what a
    simplification of that surface reads (:func:`simplified_surface`'s ``density``), so the chunk's display and
    collision surfaces made from the same fields need not gather it again."""
    size = volume.chunk_size if size is None else size
    lo, hi = chunk_cells(volume.shape, size, chunk)
    fields = volume if fields is None else fields
    side = uniform_side(fields, chunk) if size == volume.chunk_size else None
    if side is not None:
        return empty_surface(lo, hi, side), None
    f, offset = fields_window(fields, lo, hi, halo_voxels(options), MESHED_FIELDS)
    surface = chunk_surface(f["density"], f["mat_a"], f["mat_b"], f["mix"], volume.iso, lo, hi, options.sharp,
                            planes=levels > 0, offset=offset, quadrics=quadrics, scratch=scratch)
    return surface, (f["density"], offset)


def uniform_side(fields: Volume, chunk: Sequence[int]) -> bool | None:
    """True (all solid) or False (all empty) when every sample the cells of ``chunk`` read for their cases (its
    own and its upper neighbours') lies in chunks of uniform density on that side of iso, as ``fields`` knows
    without reading voxels; None otherwise (the cells must be looked at)."""
    grid = fields.chunk_grid_shape
    sides = set()
    for offset in product((0, 1), repeat=3):
        other = tuple(c + o for c, o in zip(chunk, offset))
        if any(o >= n for o, n in zip(other, grid)):
            continue
        value = fields.uniform_value(other, "density")
        if value is None:
            return None
        sides.add(value >= fields.iso)
        if len(sides) > 1:
            return None
    return sides.pop()


def uniform_sides(fields: Volume, chunks: np.ndarray | None = None) -> np.ndarray:
    """:func:`uniform_side` of every chunk at once, as an int8 grid of the chunk grid's shape: 1 (all solid), 0 (all
    empty) or -1 (the cells must be looked at); the volume's grid of uniform chunks read once (a sparse volume's;
    a dense volume knows no chunk uniform). With ``chunks`` ((n, 3) chunk indices), those chunks' alone, as an
    (n,) int8 array (a streaming step's few activated chunks, not the whole grid)."""
    grid = fields.chunk_grid_shape
    shape = grid if chunks is None else (len(chunks),)
    if not isinstance(fields, SparseVolume):
        return np.full(shape, -1, np.int8)
    uniform, values = fields.uniform_fields("density")
    side = np.where(uniform, (values >= fields.iso).astype(np.int8), np.int8(-1))
    if chunks is None:
        # The chunk and its upper neighbours within the grid (past its end, the chunk at the end again: no new
        # value).
        padded = np.pad(side, [(0, 1)] * 3, mode="edge")
        neighbours = [padded[o[0]:o[0] + grid[0], o[1]:o[1] + grid[1], o[2]:o[2] + grid[2]]
                      for o in product((0, 1), repeat=3)]
    else:
        last = np.array(grid, dtype=np.int64) - 1
        neighbours = [side[tuple(np.minimum(chunks + np.array(o), last).T)] for o in product((0, 1), repeat=3)]
    low, high = neighbours[0].copy(), neighbours[0].copy()
    for other in neighbours[1:]:
        np.minimum(low, other, out=low)
        np.maximum(high, other, out=high)
    return np.where((low == high) & (low >= 0), low, np.int8(-1)).astype(np.int8)


def simplified_surface(fields: Volume, surface: ChunkSurface, options: MeshOptions, materials: MaterialTable,
                collision: bool, levels: int | None = None, floor: int = 0,
                density: DensityWindow | None = None) -> ChunkSurface:
    """``surface`` (made from ``fields``) simplified for the display mesh (``levels`` deep, the options' by
    default; at least ``floor`` deep whatever the shape error: the chunk's level of detail, dropping small
    features from FEATURE_FLOOR_LEVEL on), or with the coarser collision settings. ``density``: the window of
    ``fields`` the surface was made from (:func:`raw_surface_and_density`), read from ``fields`` when None."""
    levels = options.collision_levels if collision else (options.levels if levels is None else levels)
    # Nothing to merge: simplify_surface hands the surface back unread.
    window: np.ndarray | None = None
    offset: tuple[int, int, int] | np.ndarray = (0, 0, 0)
    if (levels > 0 or (floor > 0 and not collision)) and surface.vertex_count:
        if density is None:
            hi = surface.cell_lo + np.array(surface.cell_case.shape, dtype=np.int64)
            read, offset = fields_window(fields, surface.cell_lo, hi, halo_voxels(options), ("density",))
            window = read["density"]
        else:
            window, offset = density
    if collision:
        return simplify_surface(surface, window, fields.iso, levels, options.collision_tolerance,
                                materials.kind_by_id, collision=True, offset=offset)
    return simplify_surface(surface, window, fields.iso, levels, options.tolerance, materials.kind_by_id,
                            floor=floor, offset=offset, drop_features=floor >= FEATURE_FLOOR_LEVEL)


def chunk_surfaces(volume: Volume, chunk: Sequence[int], options: MeshOptions,
                    materials: MaterialTable) -> tuple[ChunkSurface, ChunkSurface]:
    """A chunk's raw surface (kept for its collision mesh, so with the planes either simplification needs)
    and its display surface: what ChunkMesher rebuilds for a changed chunk."""
    raw, density = raw_surface_and_density(volume, chunk, options, max(options.levels, options.collision_levels))
    return raw, simplified_surface(volume, raw, options, materials, False, density=density)


def build_chunk(volume: Volume, chunk: tuple, options: MeshOptions, surfaces: dict[tuple, ChunkSurface]) -> DisplayMesh:
    """Rebuild one chunk's surfaces into ``surfaces`` and assemble its display mesh: what a remesh costs."""
    surfaces[chunk] = chunk_surfaces(volume, chunk, options, volume.materials)[1]
    return assemble_chunk(volume, chunk, surfaces.get, collision=False)


def volume_blocks(volume: Volume, edge: int = 2) -> list[tuple[tuple, tuple]]:
    """The volume's chunks in boxes of up to ``edge``³ chunks, as (first, last) corners: meshing a whole
    volume block by block gives the same triangles with less work per call than chunk by chunk."""
    grid = volume.chunk_grid_shape
    return [(start, tuple(min(s + edge, n) - 1 for s, n in zip(start, grid)))
            for start in product(*(range(0, n, edge) for n in grid))]


def simplified_chunk(volume: Volume, chunk: Sequence[int], options: MeshOptions, materials: MaterialTable,
                     levels: int, collision: bool, fields: Volume | None = None, scratch: bool = False) -> ChunkSurface:
    """``chunk``'s raw surface (with the planes of ``levels``; made from ``fields``, the volume by default)
    simplified at once, for the display or with ``collision``, and let go: one density window read for both. With
    ``scratch`` the raw vertices are this thread's scratch (only where the simplification copies them: it merges)."""
    raw, density = raw_surface_and_density(volume, chunk, options, levels, fields=fields, scratch=scratch)
    return simplified_surface(volume if fields is None else fields, raw, options, materials, collision,
                              density=density)


def all_chunks(volume: Volume, size: int | None = None) -> list[tuple[int, ...]]:
    """Every chunk of the volume, in chunks of ``size`` cells (the volume's chunk size by default)."""
    size = volume.chunk_size if size is None else size
    return list(product(*(range(-(-n // size)) for n in volume.shape)))


def mesh_volume(volume: Volume, options: MeshOptions = MeshOptions(),
                materials: MaterialTable | None = None) -> DisplayMesh:
    """The display mesh of the whole volume, chunk by chunk, as one mesh.

    Examples
    --------
    >>> from voxelworld.terrain import VoxelVolume
    >>> ball = VoxelVolume.from_sdf(lambda x, y, z: np.sqrt((x - 8) ** 2 + (y - 8) ** 2 + (z - 8) ** 2) - 5,
    ...                             (17, 17, 17), material="rock", chunk_size=8)
    >>> mesh = mesh_volume(ball, MeshOptions(levels=0))
    >>> mesh.triangle_count > 0, set(mesh.mat_a.tolist())
    (True, {4})
    """
    materials, options = check_mesher_inputs(volume, materials, options)
    return merge_display_meshes(_whole_volume(volume, options, materials, collision=False))


def collision_mesh_volume(volume: Volume, options: MeshOptions = MeshOptions(),
                          materials: MaterialTable | None = None) -> CollisionMesh:
    """The collision mesh of the whole volume (simplified with ``options.collision_levels`` and
    ``options.collision_tolerance``), as one mesh."""
    materials, options = check_mesher_inputs(volume, materials, options)
    return merge_collision_meshes(_whole_volume(volume, options, materials, collision=True))


def _whole_volume(volume: Volume, options: MeshOptions, materials: MaterialTable, collision: bool) -> list[Any]:
    """The meshes of every part of the volume, on all cores (collision meshes with ``collision``, else display
    meshes)."""
    levels = options.collision_levels if collision else options.levels
    if levels == 0:
        # Nothing merges, so chunk borders change nothing: mesh in chunks of twice the edge, with less work
        # between the kernels.
        size = 2 * volume.chunk_size
        chunks = all_chunks(volume, size)
        surfaces = dict(zip(chunks, map_on_cores(lambda c: raw_surface(volume, c, options, 0, size, quadrics=False),
                                                 chunks)))
        return map_on_cores(lambda c: assemble_block(volume, c, c, surfaces.get, collision, size), chunks)
    chunks = all_chunks(volume)
    surfaces = dict(zip(chunks, map_on_cores(
        # (levels > 0 here: the simplification copies the vertices, so the raw ones may be scratch)
        lambda c: simplified_chunk(volume, c, options, materials, levels, collision, scratch=True), chunks)))
    return map_on_cores(lambda b: assemble_block(volume, *b, surfaces.get, collision), volume_blocks(volume))


def materialised(surface: ChunkSurface) -> ChunkSurface:
    """``surface`` with writeable per-cell arrays (an :func:`empty_surface`'s are broadcasts): what the kernels
    that read cells take."""
    if surface.cell_case.flags.writeable:
        return surface
    return replace(surface, cell_case=np.ascontiguousarray(surface.cell_case),
                   cell_first=np.ascontiguousarray(surface.cell_first))


NO_QEF = np.empty((0, _kernels.QEF_COLUMNS))  # a surface's quadrics where none are kept


def display_form(fields: Volume, raw: ChunkSurface, options: MeshOptions, materials: MaterialTable, levels: int,
                  detail: int, density: DensityWindow | None = None) -> ChunkSurface:
    """The display surface of ``raw`` (made from ``fields``; ``density`` as for :func:`simplified_surface`) at
    display ``levels`` and level of ``detail``, as the mesher keeps it: without the quadrics (no merge reads a
    display surface; a new level simplifies the raw one)."""
    return replace(simplified_surface(fields, raw, options, materials, False, levels, detail, density), qef=NO_QEF)


def unchanged_surface(old: ChunkSurface | None, new: ChunkSurface) -> bool:
    """Whether a chunk's display surface going from ``old`` (None: not kept, or not meshed before) to ``new``
    changes no mesh: the same surface, or none either way (a chunk without vertices gives no quad, whatever
    its level, and its neighbours' quads never reach into it)."""
    if new.vertex_count == 0:
        return old is None or old.vertex_count == 0
    return old is not None and _same_surface(old, new)


def _same_surface(a: ChunkSurface, b: ChunkSurface) -> bool:
    # cell_first follows from the surface cells and their cases (and means nothing elsewhere); a mesh reads the
    # data of the vertices standing for the patches (rep) alone (a kept surface keeps no other: PackedSurfaces).
    if not (np.array_equal(a.cell_case, b.cell_case) and np.array_equal(a.surface_cells, b.surface_cells)
            and np.array_equal(a.rep, b.rep)):
        return False
    reps = np.unique(a.rep)
    return (np.array_equal(a.positions[reps], b.positions[reps]) and np.array_equal(a.normals[reps], b.normals[reps])
            and np.array_equal(a.materials[reps], b.materials[reps])
            and np.array_equal(a.evaluations[reps], b.evaluations[reps]))
