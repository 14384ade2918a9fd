"""Per-thread work buffers for the meshing kernels.

Arrays allocated afresh for every chunk cost a page fault for every page first touched; these are kept per
thread, grown to the largest size asked for and reused (so a thread holds on to its largest buffers).
"""

from __future__ import annotations

import threading

import numpy as np
from numpy.typing import DTypeLike

__all__ = ["buffer"]

_local = threading.local()


def buffer(name: str, rows: int, columns: int, dtype: DTypeLike, fill: float | None = None) -> np.ndarray:
    """This thread's buffer ``name``: its first ``rows`` rows (``columns`` wide; 0 for a 1-D buffer).
    ``fill`` is written into a newly allocated buffer only: a caller that relies on it must leave the buffer as
    it found it."""
    array = getattr(_local, name, None)
    if array is None or len(array) < rows:
        shape = (max(rows, 1024), columns) if columns else (max(rows, 1024),)
        array = np.empty(shape, dtype=dtype) if fill is None else np.full(shape, fill, dtype=dtype)
        setattr(_local, name, array)
    return array[:rows]
