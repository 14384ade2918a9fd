"""Display meshes baked ahead of time (``voxelworld bake``: every chunk at every level of detail), taken by a
:class:`~voxelworld.meshing.ChunkMesher` in place of meshing a chunk where the baked mesh is, bit for bit, the one it
would make.

A chunk's display mesh at level of detail L is a function of the voxels two chunks around it (its surface reads one
chunk around; its quads join the surfaces of its lower neighbours, whose own surfaces read one chunk around them;
the occlusion reads a few voxels further) and of the levels and activity of the chunk and its lower neighbours. A
bake meshes every chunk with every chunk active at one level of detail and the options' display level, so its mesh
of a chunk is the mesher's when

- the chunk and its lower neighbours are active, at that level of detail and at the options' display level, and
- no chunk two chunks around changed since the bake (each baked row keeps the chunk version it was made from).

:func:`adopt_baked` takes those meshes (the mesher's hook, in :meth:`ChunkMesher._refresh`); a chunk taken keeps no
surface: when it is edited, changes level, or a neighbour's mesh joins it, the mesher makes its surfaces from the
voxels as for any chunk it let go of (a cold chunk), so what follows is what it would have been.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

import numpy as np

from .chunk_joins import lower_block, upper_neighbours
from .mesh import DisplayMesh
from .prepared import spread

if TYPE_CHECKING:
    from .chunks import ChunkMesher

__all__ = ["BakedMeshes", "adoptable_chunks", "adopt_baked"]

# Chunks around a chunk (on every axis, both ways) whose voxels its display mesh reads (see the module's notes).
READ_REACH = 2


class BakedMeshes:
    """A source of baked display meshes for a :class:`~voxelworld.meshing.ChunkMesher` (``mesher.baked``).

    :meth:`versions` tells the chunk version each chunk's baked meshes were made from, :meth:`display_mesh` gives
    the baked mesh of a chunk at a level of detail (a reader of a world file reads and checks the row then, once).
    This base class holds the versions (int64, the chunk grid's shape, -1 where nothing was baked) and meshes given
    in a mapping ``(chunk, level) -> DisplayMesh`` (tests, tools).
    """

    def __init__(self, versions: np.ndarray | None = None,
                 meshes: dict[tuple[tuple[int, int, int], int], DisplayMesh] | None = None) -> None:
        self._versions = None if versions is None else np.asarray(versions, dtype=np.int64)
        self._meshes = {} if meshes is None else dict(meshes)

    def versions(self, wanted: np.ndarray) -> np.ndarray:
        """Per chunk (int64, the shape of the bool chunk grid ``wanted``) the chunk version its baked meshes were
        made from where ``wanted``, -1 elsewhere and where nothing was baked."""
        if self._versions is None or self._versions.shape != wanted.shape:
            return np.full(wanted.shape, -1, dtype=np.int64)
        return np.where(wanted, self._versions, -1)

    def display_mesh(self, chunk: tuple[int, int, int], level: int) -> DisplayMesh | None:
        """The baked display mesh of ``chunk`` at level of detail ``level``, made from the chunk at the version
        :meth:`versions` tells, or None where none was baked."""
        return self._meshes.get((chunk, level))


def adoptable_chunks(mesher: ChunkMesher, chunks: Iterable[tuple]) -> list[tuple[int, int, int]]:
    """Those of ``chunks`` whose baked display mesh (``mesher.baked``) is the one the mesher would make now (see
    the module's notes), in chunk order; none without ``mesher.baked``."""
    baked = mesher.baked
    if baked is None:
        return []
    volume = mesher.volume
    active, detail, levels, top = mesher._active, mesher._detail, mesher._levels, mesher.options.levels
    candidates: list[tuple[int, int, int]] = []
    for chunk in sorted(chunks):
        level = detail[chunk]
        if active[chunk] and all(active[c] and detail[c] == level and levels[c] == top for c in lower_block(chunk)):
            candidates.append((int(chunk[0]), int(chunk[1]), int(chunk[2])))
    if not candidates:
        return []
    wanted = np.zeros(volume.chunk_grid_shape, dtype=bool)
    wanted[tuple(np.array(candidates).T)] = True
    wanted = spread(wanted, READ_REACH, READ_REACH)
    # The versions of the voxels the mesher meshes from: those it saw where it follows a chunk.
    seen = np.where(mesher._seen >= 0, mesher._seen, volume.chunk_versions)
    versions = baked.versions(wanted)
    stale = spread(wanted & ((versions < 0) | (versions != seen)), READ_REACH, READ_REACH)
    return [chunk for chunk in candidates if not stale[chunk]]


def adopt_baked(mesher: ChunkMesher, chunks: Iterable[tuple]) -> set[tuple]:
    """Take the baked display meshes of those of ``chunks`` that :func:`adoptable_chunks` allows (and the bake
    holds) as the mesher's: the next :meth:`~ChunkMesher.build_display_meshes` reports them as if made. Returns the
    chunks taken (the mesher makes the others); counted in ``mesher.chunks_adopted``."""
    taken = set()
    for chunk in adoptable_chunks(mesher, chunks):
        mesh = mesher.baked.display_mesh(chunk, int(mesher._detail[chunk])) if mesher.baked is not None else None
        if mesh is None:
            continue
        mesher._raw.pop(chunk, None)
        mesher._display_surfaces.pop(chunk, None)
        mesher._vertex_free[chunk] = False  # unknown: its surface is made when a neighbour's mesh joins it
        mesher._refresh_collision(chunk)
        mesher._stamps[chunk] += 1
        mesher._remesh.discard(chunk)
        mesher._relevelled.discard(chunk)  # the baked mesh is at its level already
        mesher._installed[chunk] = mesh
        if mesh.triangle_count:
            mesher._display[chunk] = mesh
        else:
            mesher._display.pop(chunk, None)
        taken.add(chunk)
    # The meshes joining them that are made are made again: they read the surfaces as they are now.
    grid, active = mesher.volume.chunk_grid_shape, mesher._active
    mesher._remesh |= {u for chunk in taken for u in upper_neighbours(chunk, grid) if active[u] and u not in taken}
    mesher.chunks_adopted += len(taken)
    return taken
