"""Writing files so that nothing is ever left half-written.

:func:`write_atomically` hands the caller a temporary file beside the target (:func:`build_atomically` a
temporary path, for files made by other means), flushes it to disk and then moves it over the target in one step:
a reader sees the old file or the new one, never a part, and a failure (an exception, a full disk) leaves any old
file as it was and no temporary behind. Every wing that writes a file uses it.

What they replace is a regular file or nothing (:func:`write_target`): a symlink is followed and its target written
(the link stays a link), and a path that is anything else (a FIFO, a character or block device such as
``/dev/null``, a socket, a folder) is refused with :class:`~voxelworld.errors.ParameterError` before anything is
written: replacing it would lose what it is (run as root, a save to ``/dev/null`` would replace the device).
"""

from __future__ import annotations

import os
import stat
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import BinaryIO

from .errors import ParameterError

__all__ = ["write_atomically", "build_atomically", "write_target"]

_KINDS = ((stat.S_ISDIR, "a folder"), (stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device"),
          (stat.S_ISFIFO, "a FIFO (named pipe)"), (stat.S_ISSOCK, "a socket"))


def write_target(path: str | os.PathLike[str], parameter: str = "path") -> Path:
    """The file a write of ``path`` puts in place: ``path``, or what a symlink there names (followed to its end:
    the link itself is never replaced). :class:`~voxelworld.errors.ParameterError` naming ``parameter`` unless
    that is a regular file or does not exist yet; nothing is opened.

    Examples
    --------
    >>> write_target("/dev/null")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    voxelworld.errors.ParameterError: path = '/dev/null' is out of range: must be a regular file or a new one, not a ...
    """
    target = Path(os.path.realpath(path))
    try:
        mode = os.stat(target).st_mode
    except FileNotFoundError:
        return target
    except OSError as error:  # a symlink loop: nothing to write to
        raise ParameterError(parameter, str(path), f"a regular file or a new one ({error.strerror})") from None
    if not stat.S_ISREG(mode):
        kind = next((name for test, name in _KINDS if test(mode)), "a special file")
        named = f" (the symlink names {target})" if Path(path).is_symlink() else ""
        raise ParameterError(parameter, str(path), f"a regular file or a new one, not {kind}{named}")
    return target


def write_atomically(path: str | os.PathLike[str], write: Callable[[BinaryIO], object]) -> Path:
    """Call ``write(file)`` with a binary file open beside ``path``, then put it in ``path``'s place (a regular
    file or a new one: see :func:`write_target`).

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


def build_atomically(path: str | os.PathLike[str], build: Callable[[Path], object], companions: tuple[str, ...] = ()) -> Path:
    """Call ``build(temporary)`` to make a file at a temporary path beside ``path`` by any means (a database,
    say), then flush it to disk and put it in ``path``'s place. On failure the temporary and its ``companions``
    (suffixes of files its maker may leave beside it, like SQLite's ``"-journal"``) are removed. ``path`` is
    checked by :func:`write_target` first (a symlink's target is written beside and replaced) and again just
    before the replace. Returns ``path``."""
    target = write_target(path)
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
        write_target(path)  # again: what was made a FIFO (say) meanwhile is refused, not replaced
        os.replace(name, target)
    except BaseException:
        for leftover in (name, *(name + suffix for suffix in companions)):
            try:
                os.unlink(leftover)
            except FileNotFoundError:
                pass
        raise
    return Path(path)
