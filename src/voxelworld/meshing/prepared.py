"""Changes of a mesher's active chunks and levels of detail, worked out on a background thread.

A streaming world changes which chunks are meshed and at which level of detail as its actors move: each change
makes a chunk's surface again and remeshes it and the upper neighbours that join it, several milliseconds a chunk.
:meth:`ChunkMesher.prepare_changes <voxelworld.meshing.ChunkMesher.prepare_changes>` hands that work to a
background thread (pure functions of a snapshot of what the mesher saw) and
:meth:`~voxelworld.meshing.ChunkMesher.apply_changes` installs it some frames later, waiting for it if it is late.
What changed in between (an edit near a chunk, another level change) makes that chunk's part *stale*: the mesher
then does it the ordinary way in its next update. Whether a part is stale depends only on what happened to the
mesher and the volume, never on the thread's timing, so the meshes are the same, bit for bit, however fast the
thread ran; and they are those :meth:`set_active` and :meth:`set_detail_levels` give for the same changes.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable, Mapping, MutableMapping
from concurrent.futures import Future, ThreadPoolExecutor, wait
from dataclasses import dataclass
from functools import cache
from typing import TypeVar

import numpy as np

from ..frame_first import mark_background_thread, step_aside, waiting_for_background
from .surface import ChunkSurface

__all__ = ["PreparedChanges", "PreparedJob", "PreparedResult", "BACKGROUND_NICENESS", "BackgroundExecutor",
           "background_executor", "background_map", "spread"]

# How much lower than the world's thread the background thread runs (Linux nice steps): the frame comes first.
BACKGROUND_NICENESS = 10

T = TypeVar("T")
R = TypeVar("R")


@dataclass(frozen=True)
class PreparedJob:
    """What :func:`prepare` needs, captured when the changes were asked for (nothing here changes after)."""

    surfaces: tuple  # chunks whose display surface is made again (turning active, or at a new level)
    remeshed_for_off: tuple  # active upper neighbours of chunks turning inactive: remeshed without them
    raw: dict  # chunk -> its raw surface where the mesher kept one
    old: Mapping  # chunk -> its display surface before the change (left out: none kept)
    # chunk -> the display surface kept for chunks whose level does not change
    current: MutableMapping[tuple, ChunkSurface]
    levels: np.ndarray  # display levels
    detail: np.ndarray  # levels of detail after the change
    active: np.ndarray  # active chunks after the change
    planes: int  # the simplification depth the raw surfaces carry planes for
    vertex_free: np.ndarray  # active chunks known to have no vertex (their surfaces are not made)
    # Chunks whose display surface is owed when asked (ChunkMesher.prepare_deferred): those showing nothing yet and
    # made by a later job are *waiting*: the meshes joining them are left owed rather than made from a surface made
    # here and again by that job (worked out by the thread: a set of hundreds of chunks).
    owed: frozenset = frozenset()
    # The mesher's surface stamps when the work was asked for (prepare_deferred): work on a chunk restamped since
    # (a new level, turned inactive) would be stale, and is skipped. None: everything is made.
    stamps: np.ndarray | None = None
    versions: np.ndarray | None = None  # the chunk versions its voxels are of, likewise (an edit since: stale)
    # Owed display work (prepare_deferred): the order to make its surfaces in (nearest the actors first), and when
    # (time.perf_counter) to stop starting them but the first: those left stay owed for a later job, and the meshes
    # joining them wait with them. None: every surface is made.
    order: tuple = ()
    deadline: float | None = None


@dataclass(frozen=True)
class PreparedResult:
    raw: dict  # chunk -> raw surface made (of the chunks in PreparedJob.surfaces)
    display: dict  # chunk -> display surface after the change
    meshes: dict  # chunk -> display mesh after the change (the chunks it remeshes)
    warm: dict  # chunk -> display surface of a neighbour the mesher had let go, made again for these meshes
    unmade: tuple = ()  # chunks whose display mesh the changes call for but which join a waiting surface


@dataclass(frozen=True)
class PreparedChanges:
    """A change of active chunks and levels of detail being worked out in the background
    (:meth:`ChunkMesher.prepare_changes`); hand it to :meth:`ChunkMesher.apply_changes`."""

    active: np.ndarray  # the active chunks after the change (bool, chunk grid)
    detail: np.ndarray  # the levels of detail after the change (int64, chunk grid)
    versions: np.ndarray  # the volume's chunk versions when asked
    stamps: np.ndarray  # the mesher's surface stamps when asked
    surfaces: tuple  # the chunks whose display surface it makes
    future: Future[PreparedResult | None]  # None: apply_changes makes it all (see prepare_changes)
    # Display work owed (ChunkMesher.prepare_deferred): the activity and levels were set when it was owed.
    deferred: bool = False

    def done(self) -> bool:
        """Whether the background work is finished (apply_changes will not wait)."""
        return self.future.done()

    def wait(self) -> None:
        """Wait until the background work is finished (its errors are raised by apply_changes)."""
        with waiting_for_background():
            wait([self.future])


def _background_thread(niceness: int = BACKGROUND_NICENESS) -> None:
    """A background executor's thread: at a lower priority (``niceness`` steps), and stepping aside while a frame
    runs (:mod:`voxelworld.frame_first`)."""
    mark_background_thread()
    try:
        os.setpriority(os.PRIO_PROCESS, threading.get_native_id(), niceness)
    except (AttributeError, OSError):  # not Linux, or not allowed: run at the world's priority
        pass


class BackgroundExecutor(ThreadPoolExecutor):
    """A ThreadPoolExecutor of background threads (:func:`_background_thread`) whose every task starts by stepping
    aside (:func:`~voxelworld.frame_first.step_aside`): a task asked for in a frame starts once the frame ends. Its
    first Python (a job's lists and sets, before any piece that steps aside) otherwise took the GIL each time the
    frame let go of it in a numpy call, and the frame waited for it: a millisecond or two of a streaming step's
    frame on the 1 km world."""

    def submit(self, fn: Callable[..., R], /, *args: object, **kwargs: object) -> Future[R]:
        return super().submit(_after_the_frame, fn, *args, **kwargs)


def _after_the_frame(fn: Callable[..., R], /, *args: object, **kwargs: object) -> R:
    step_aside()
    return fn(*args, **kwargs)


@cache
def background_executor(purpose: str = "prepare", niceness: int = BACKGROUND_NICENESS) -> BackgroundExecutor:
    """The one thread that works out prepared changes, one after the other, at a lower priority (``niceness``
    steps below the world's; another ``purpose``, e.g. the navigation's tiles baked ahead, gets a thread of its
    own, so neither waits behind the other's queue). Its tasks start after the frame they were asked for in
    (:class:`BackgroundExecutor`)."""
    return BackgroundExecutor(max_workers=1, thread_name_prefix=f"voxelworld-{purpose}",
                              initializer=_background_thread, initargs=(niceness,))


@cache
def _background_workers() -> BackgroundExecutor:
    return BackgroundExecutor(max_workers=os.cpu_count() or 1, thread_name_prefix="voxelworld-prepare-worker",
                              initializer=_background_thread)


def background_map(function: Callable[[T], R], items: list[T]) -> list[R]:
    """``[function(x) for x in items]`` on all cores at the background's priority (the kernels release the
    GIL); each item on its own, so the results do not depend on the threads' order."""
    if len(items) < 2 or (os.cpu_count() or 1) < 2:
        return [function(item) for item in items]
    return list(_background_workers().map(function, items))


def spread(changed: np.ndarray, below: int, above: int) -> np.ndarray:
    """Chunks c for which some chunk c + d, d from -``below`` to ``above`` on every axis, is ``changed``: those
    whose work read a changed chunk (a box dilation of the chunk grid)."""
    out = changed.copy()
    for axis in range(3):
        grown = out.copy()
        n = out.shape[axis]
        for d in range(-below, above + 1):
            if d == 0 or abs(d) >= n:
                continue
            target = [slice(None)] * 3
            source = [slice(None)] * 3
            if d > 0:
                target[axis], source[axis] = slice(None, n - d), slice(d, None)
            else:
                target[axis], source[axis] = slice(-d, None), slice(None, n + d)
            grown[tuple(target)] |= out[tuple(source)]
        out = grown
    return out
