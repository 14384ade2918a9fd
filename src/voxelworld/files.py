"""Writing files so that nothing is ever left half-written.

:func:`write_atomically` hands the caller a temporary file beside the target, flushes it to disk and then moves
it over the target in one step: a reader sees the old file or the new one, never a part, and a failure
(an exception, a full disk) leaves any old file as it was and no temporary behind. Every wing that writes a
file uses it.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import BinaryIO

__all__ = ["write_atomically"]


def write_atomically(path, write: Callable[[BinaryIO], None]) -> Path:
    """Call ``write(file)`` with a binary file open beside ``path``, then put it in ``path``'s place.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> folder = pathlib.Path(tempfile.mkdtemp())
    >>> write_atomically(folder / "hello.txt", lambda file: file.write(b"hello")).read_text()
    'hello'
    """
    target = Path(path)
    handle, temporary = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
    try:
        with os.fdopen(handle, "wb") as file:
            write(file)
            file.flush()
            os.fsync(file.fileno())
        # mkstemp makes the file private (0600); give it the permissions a plain open() would have.
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(temporary, 0o666 & ~umask)
        os.replace(temporary, target)
    except BaseException:
        try:
            os.unlink(temporary)
        except FileNotFoundError:
            pass
        raise
    return target
