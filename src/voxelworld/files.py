"""Writing files so that nothing is ever left half-written.

:func:`write_atomically` hands the caller a temporary file beside the target (:func:`build_atomically` a
temporary path, for files made by other means), flushes it to disk and then moves it over the target in one step: a reader sees the old file or the new one, never a part, and a failure
(an exception, a full disk) leaves any old file as it was and no temporary behind. Every wing that writes a
file uses it.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import BinaryIO

__all__ = ["write_atomically", "build_atomically"]


def write_atomically(path, write: Callable[[BinaryIO], None]) -> Path:
    """Call ``write(file)`` with a binary file open beside ``path``, then put it in ``path``'s place.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> folder = pathlib.Path(tempfile.mkdtemp())
    >>> write_atomically(folder / "hello.txt", lambda file: file.write(b"hello")).read_text()
    'hello'
    """

    def fill(temporary: Path) -> None:
        with open(temporary, "wb") as file:
            write(file)

    return build_atomically(path, fill)


def build_atomically(path, build: Callable[[Path], None], companions: tuple[str, ...] = ()) -> Path:
    """Call ``build(temporary)`` to make a file at a temporary path beside ``path`` by any means (a database,
    say), then flush it to disk and put it in ``path``'s place. On failure the temporary and its ``companions``
    (suffixes of files its maker may leave beside it, like SQLite's ``"-journal"``) are removed."""
    target = Path(path)
    handle, name = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
    os.close(handle)
    try:
        build(Path(name))
        with open(name, "rb+") as file:
            os.fsync(file.fileno())
        # mkstemp makes the file private (0600); give it the permissions a plain open() would have.
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(name, 0o666 & ~umask)
        os.replace(name, target)
    except BaseException:
        for leftover in (name, *(name + suffix for suffix in companions)):
            try:
                os.unlink(leftover)
            except FileNotFoundError:
                pass
        raise
    return target
