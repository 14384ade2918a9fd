"""How the meshes of neighbouring chunks join, for :class:`~voxelworld.meshing.ChunkMesher`: a chunk's quads join
the surfaces of the chunk and its lower neighbours (-1 on some axes), so a change of a chunk's surface reaches the
meshes of its upper neighbours only through the cells of its top layers.

- :func:`lower_block`, :func:`upper_neighbours`: the chunks a chunk's mesh reads, and those whose meshes read it.
- :func:`neighbours_seeing_changes`: the upper neighbours whose meshes a change of a surface's top layers reaches.
- :func:`assemble_displays`: the display meshes of some chunks from the surfaces kept (the mesher's update and its
  background work alike).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from itertools import product
from typing import Any

import numpy as np

from ..terrain import Volume
from . import _kernels, tables
from .chunk_surfaces import map_on_cores, materialised
from .mesh import DisplayMesh, assemble_chunk
from .surface import ChunkSurface

__all__ = ["assemble_displays", "lower_block", "upper_neighbours", "neighbours_seeing_changes"]


def assemble_displays(volume: Volume, fields: Volume | None, order: list[tuple],
                      kept: Mapping[tuple, ChunkSurface], active: np.ndarray, vertex_free: np.ndarray,
                      make_display: Callable[[tuple], ChunkSurface],
                      map_: Callable[[Callable[[tuple], Any], list[tuple]], list[Any]] = map_on_cores,
                      ) -> tuple[dict[tuple, DisplayMesh], dict[tuple, ChunkSurface]]:
    """The display meshes of the chunks ``order`` (made from ``fields``), joining the display surfaces ``kept``
    (chunk -> surface) of them and their lower neighbours; an active neighbour with vertices whose surface is not
    kept (a cold one the mesher let go) gets one from ``make_display(chunk)``. Each surface is read once for all the
    meshes joining it. Returns the meshes and the surfaces made, by chunk."""
    cold = sorted({lower for chunk in order for lower in lower_block(chunk)
                   if active[lower] and not vertex_free[lower] and lower not in kept})
    warm = dict(zip(cold, map_(make_display, cold)))
    read: dict[tuple, ChunkSurface | None] = {}

    def surface_of(chunk: tuple) -> ChunkSurface | None:
        if not active[chunk]:
            return None
        found = read.get(chunk)
        if found is None:
            found = read[chunk] = warm.get(chunk) or kept.get(chunk)
        return found

    meshes = map_(lambda c: assemble_chunk(volume, c, surface_of, collision=False, fields=fields), order)
    return dict(zip(order, meshes)), warm


def lower_block(chunk: Sequence[int]) -> product[tuple[int, ...]]:
    """``chunk`` and its lower neighbours (-1 on some axes, within the grid): the surfaces its quads join."""
    return product(*(range(max(c - 1, 0), c + 1) for c in chunk))


_UPPER_OFFSETS = tuple(offset for offset in product((0, 1), repeat=3) if any(offset))


def upper_neighbours(chunk: Sequence[int], grid: Sequence[int]) -> list[tuple]:
    """The upper neighbours of ``chunk`` (+1 on some axes) within ``grid``: the chunks whose quads join it."""
    # Plain arithmetic on three numbers (a streaming step asks for thousands of chunks' neighbours).
    i, j, k = chunk
    ni, nj, nk = grid
    return [(i + a, j + b, k + c) for a, b, c in _UPPER_OFFSETS if i + a < ni and j + b < nj and k + c < nk]


def neighbours_seeing_changes(grid: Sequence[int], chunk: Sequence[int], old: ChunkSurface | None,
                              new: ChunkSurface) -> set[tuple]:
    """The upper neighbours (+1 on some axes, 0 on the others) whose quads join a cell of ``chunk``'s top
    layers that differs between ``old`` and ``new``: neighbour +o joins the cells on the top layer of every
    axis where o is 1 (within ``grid``, the chunk grid's shape)."""
    dims = new.cell_case.shape
    if min(dims) == 0:
        return set()
    changes = []
    for axis in range(3):
        others = [n for a, n in enumerate(dims) if a != axis]
        if old is None:
            changes.append(np.ones(others, dtype=bool))
            continue
        changed = np.empty(others, dtype=np.bool_)
        old, new = materialised(old), materialised(new)
        _kernels.top_layer_changes(axis, tables.PATCH_COUNT, old.cell_case, old.cell_first, old.rep,
                                   old.positions, old.normals, old.materials, old.evaluations, new.cell_case,
                                   new.cell_first, new.rep, new.positions, new.normals, new.materials,
                                   new.evaluations, changed)
        changes.append(changed)
    found = set()
    for offset in product((0, 1), repeat=3):
        axes = [a for a in range(3) if offset[a]]
        other = tuple(c + o for c, o in zip(chunk, offset))
        if not axes or any(o >= n for o, n in zip(other, grid)):
            continue
        # The cells on the top layer of every axis in ``axes``: within the first axis's layer, the last
        # row or column along each further axis.
        first = axes[0]
        layer = changes[first]
        index: list[slice | int] = [slice(None), slice(None)]
        for a in axes[1:]:
            position = [b for b in range(3) if b != first].index(a)
            index[position] = -1
        if np.any(layer[tuple(index)]):
            found.add(other)
    return found
