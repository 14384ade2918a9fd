"""Display meshes made on a thread of their own while a frame goes on.

A frame of a game needs its chunks' new vertices and collision meshes at once (the actors collide with them), but
their display meshes only when the frame is handed to a renderer. :meth:`ChunkMesher.start_display_meshes
<voxelworld.meshing.ChunkMesher.start_display_meshes>` hands their making (the display surfaces simplified, the
quads assembled, their occlusion) to the display thread, and :meth:`~voxelworld.meshing.ChunkMesher.finish_display_meshes` takes the meshes back, waiting for them
if they are late: the frame's other work runs meanwhile, and the kernels, which release the GIL, run on the second
core. The work is a pure function of what it was handed (surfaces are never changed in place; the mesher's copy of
the voxels changes only in its next update), so the meshes are those :meth:`ChunkMesher.build_display_meshes
<voxelworld.meshing.ChunkMesher.build_display_meshes>` makes on the caller's thread, bit for bit.
"""

from __future__ import annotations

from collections import ChainMap
from collections.abc import Callable, Mapping
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from functools import cache
from itertools import product

import numpy as np

from ..terrain import Volume
from .chunk_surfaces import map_on_cores, unchanged_surface
from .mesh import assemble_chunk, with_occlusion
from .surface import ChunkSurface

__all__ = ["DisplayWork", "DisplayDone", "DisplayJob", "assemble_displays", "display_work", "display_executor",
           "finished", "lower_block", "remeshed_by"]


def assemble_displays(volume: Volume, fields: Volume, order: list, kept: Mapping, active: np.ndarray,
                      vertex_free: np.ndarray, make_display, map_=map_on_cores) -> tuple[dict, dict]:
    """The display meshes of the chunks ``order`` (made from ``fields``), joining the display surfaces ``kept``
    (chunk -> surface) of them and their lower neighbours; an active neighbour with vertices whose surface is not
    kept (a cold one the mesher let go) gets one from ``make_display(chunk)``. Each surface is read once for all the
    meshes joining it. Returns the meshes and the surfaces made, by chunk."""
    cold = sorted({lower for chunk in order for lower in lower_block(chunk)
                   if active[lower] and not vertex_free[lower] and lower not in kept})
    warm = dict(zip(cold, map_(make_display, cold)))
    read = {}

    def surface_of(chunk):
        if not active[chunk]:
            return None
        found = read.get(chunk)
        if found is None:
            found = read[chunk] = warm.get(chunk) or kept.get(chunk)
        return found

    meshes = map_(lambda c: assemble_chunk(volume, c, surface_of, collision=False, fields=fields), order)
    return dict(zip(order, meshes)), warm


def lower_block(chunk) -> product:
    """``chunk`` and its lower neighbours (-1 on some axes, within the grid): the surfaces its quads join."""
    return product(*(range(max(c - 1, 0), c + 1) for c in chunk))


def remeshed_by(chunk, old: ChunkSurface | None, new: ChunkSurface, neighbours_seeing_changes) -> set[tuple]:
    """The chunks whose display mesh ``chunk``'s display surface going from ``old`` to ``new`` changes: none when
    it changes no mesh (:func:`~.chunk_surfaces.unchanged_surface`), else the chunk and the upper neighbours
    joining a changed border cell (``neighbours_seeing_changes(chunk, old, new)``)."""
    if unchanged_surface(old, new):
        return set()
    return {chunk} | neighbours_seeing_changes(chunk, old, new)


@dataclass(frozen=True)
class DisplayWork:
    """What the display thread is handed (nothing here changes until the work is taken back)."""

    volume: Volume
    fields: Volume  # the mesher's copy of the voxels
    simplify: list  # chunks whose display surface is made again (their vertices refreshed, or a new level)
    remesh: frozenset  # chunks whose display mesh is assembled again whatever the simplification gives
    kept: Mapping  # chunk -> display surface, as before the simplification
    active: np.ndarray
    vertex_free: np.ndarray
    make_display: Callable  # chunk -> its display surface made again
    neighbours_seeing_changes: Callable  # (chunk, old, new) -> upper neighbours joining a changed border cell
    shade: list  # chunks whose kept mesh is shaded again where the samples changed, unless remeshed anyway
    shade_meshes: list  # their meshes
    shade_boxes: list  # inclusive sample boxes (lo, hi) where the samples changed


@dataclass(frozen=True)
class DisplayDone:
    """What the display thread hands back (:func:`display_work`), by chunk."""

    surfaces: dict  # the display surfaces of DisplayWork.simplify
    meshes: dict  # the display meshes assembled
    warm: dict  # display surfaces made again for cold neighbours the meshes join
    shaded: dict  # the shade chunks' meshes shaded again (those not remeshed)


def display_work(work: DisplayWork) -> DisplayDone:
    """Simplify ``work.simplify`` and assemble the meshes the changes name (:func:`assemble_displays`), and shade
    again the kept meshes that are not assembled (:func:`~.mesh.with_occlusion`): what the mesher's steps 2 and 3
    do, as pure functions of ``work``."""
    made = map_on_cores(work.make_display, work.simplify)
    surfaces, remesh = dict(zip(work.simplify, made)), set(work.remesh)
    for chunk, new in surfaces.items():
        remesh |= remeshed_by(chunk, work.kept.get(chunk), new, work.neighbours_seeing_changes)
    order = sorted(c for c in remesh if work.active[c])
    meshes, warm = assemble_displays(work.volume, work.fields, order, ChainMap(surfaces, work.kept), work.active,
                                     work.vertex_free, work.make_display)
    shade = [(c, m) for c, m in zip(work.shade, work.shade_meshes) if c not in remesh]
    shaded = map_on_cores(lambda mesh: with_occlusion(mesh, work.fields, work.volume, work.shade_boxes),
                          [m for _, m in shade])
    return DisplayDone(surfaces, meshes, warm, dict(zip([c for c, _ in shade], shaded)))


@dataclass(frozen=True)
class DisplayJob:
    """Display surfaces and meshes being made (:meth:`ChunkMesher.start_display_meshes
    <voxelworld.meshing.ChunkMesher.start_display_meshes>`); hand it to ``finish_display_meshes``."""

    future: Future  # -> DisplayDone
    work: DisplayWork
    dropped: frozenset  # chunks whose display mesh the report empties
    installed: dict  # chunk -> mesh installed by apply_changes, for the report
    simplified: frozenset  # chunks whose vertices were refreshed since the last report
    unsimplified: tuple  # (refreshed, relevelled): what step 2 had waiting, handed back if the job fails

    def done(self) -> bool:
        """Whether the display thread has finished (finishing will not wait)."""
        return self.future.done()


@cache
def display_executor() -> ThreadPoolExecutor:
    """The display thread: one, at the frame's priority (the frame waits for it)."""
    return ThreadPoolExecutor(max_workers=1, thread_name_prefix="voxelworld-display")


def finished(function, *args) -> Future:
    """A future already holding ``function(*args)`` (or its error): the work done on the caller's thread."""
    future: Future = Future()
    try:
        future.set_result(function(*args))
    except Exception as error:  # handed over to whoever takes the result, as the thread's would be
        future.set_exception(error)
    return future

