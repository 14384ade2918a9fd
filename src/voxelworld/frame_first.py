"""Frames first: while a world's frame runs, the background threads (display jobs, navmesh tiles baked ahead) wait
at their next step instead of taking turns with it at Python.

CPython runs one thread's Python at a time. The background threads' kernels let go of the GIL, but their Python
between kernels holds it, and a frame wanting it back waits for the holder to hand it over (up to the switch
interval, 5 ms, each time). With the second core free this made a sprinting frame on the 1 km world take 7 ms for
4 ms of its own work. So a frame runs inside :func:`frame_running`; background work calls :func:`step_aside`
between its pieces (a window of voxels, a chunk's mesh; and before each task of a background executor: a job asked
for in a frame starts once it ends), which returns at once between frames and otherwise waits until the frame ends, at
most :data:`MAX_STEP_ASIDE` seconds. A frame that waits for background work itself does so
inside :func:`waiting_for_background` (or :func:`result_of`), which lets the threads go on meanwhile.

Nothing here changes what is computed, only when: the results are the same, bit for bit.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from concurrent.futures import Future
from contextlib import contextmanager
from typing import TypeVar

__all__ = ["frame_running", "step_aside", "waiting_for_background", "result_of", "MAX_STEP_ASIDE",
           "mark_background_thread"]

T = TypeVar("T")

# The longest a background thread waits for a frame at one step (s): a frame that runs longer lets it go on.
MAX_STEP_ASIDE = 0.05

_lock = threading.Lock()
_frames: dict[int, int] = {}  # thread ident -> frames it runs now (nested: a frame inside a frame's handler)
_clear = threading.Event()  # set while no frame runs
_clear.set()
_this_thread = threading.local()  # .background: True on the threads of background work


@contextmanager
def frame_running() -> Iterator[None]:
    """Run a frame: until it ends, background threads wait at :func:`step_aside`."""
    ident = threading.get_ident()
    with _lock:
        _frames[ident] = _frames.get(ident, 0) + 1
        _clear.clear()
    try:
        yield
    finally:
        with _lock:
            _frames[ident] -= 1
            if not _frames[ident]:
                del _frames[ident]
            if not _frames:
                _clear.set()


@contextmanager
def waiting_for_background() -> Iterator[None]:
    """The frame of this thread (if one runs) waits for background work: the threads go on meanwhile."""
    ident = threading.get_ident()
    with _lock:
        paused = _frames.pop(ident, 0)
        if not _frames:
            _clear.set()
    try:
        yield
    finally:
        if paused:
            with _lock:
                _frames[ident] = paused
                _clear.clear()


def result_of(future: Future[T]) -> T:
    """``future.result()``, waited for as :func:`waiting_for_background` does."""
    if future.done():
        return future.result()
    with waiting_for_background():
        return future.result()


def mark_background_thread() -> None:
    """Mark the calling thread as one of background work (an executor's initializer): :func:`step_aside` waits
    only on such threads (a frame's own work spread over the cores goes on)."""
    _this_thread.background = True


def step_aside() -> None:
    """Called by work between its pieces: on a background thread (:func:`mark_background_thread`), wait while a
    frame runs (at most :data:`MAX_STEP_ASIDE` s); at once elsewhere and between frames."""
    if _clear.is_set() or not getattr(_this_thread, "background", False):
        return
    _clear.wait(MAX_STEP_ASIDE)
