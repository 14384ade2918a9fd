"""write_atomically: the new file whole, or the old one untouched and no temporary left; what it replaces is a
regular file (a symlink's target) or nothing, never a FIFO or a device."""

from __future__ import annotations

import os
import stat

import pytest

from voxelworld.errors import ParameterError
from voxelworld.files import write_atomically, write_target

from .child import printed_json


def test_writes_the_whole_file_with_ordinary_permissions(tmp_path):
    target = write_atomically(tmp_path / "out.bin", lambda file: file.write(b"\x00new contents"))
    assert target.read_bytes() == b"\x00new contents"
    umask = os.umask(0)
    os.umask(umask)
    assert target.stat().st_mode & 0o777 == 0o666 & ~umask
    assert [p.name for p in tmp_path.iterdir()] == ["out.bin"]


def test_a_failing_writer_leaves_the_old_file_and_no_temporary(tmp_path):
    target = tmp_path / "out.txt"
    target.write_text("old")

    def half_then_fail(file):
        file.write(b"half")
        raise OSError("disk full")

    with pytest.raises(OSError, match="disk full"):
        write_atomically(target, half_then_fail)
    assert target.read_text() == "old"
    assert [p.name for p in tmp_path.iterdir()] == ["out.txt"]


def test_build_atomically_removes_the_temporary_and_its_companions_on_failure(tmp_path):
    from voxelworld.files import build_atomically

    target = tmp_path / "world.db"
    target.write_text("old")

    def build_then_fail(temporary):
        temporary.write_text("half a database")
        (temporary.parent / (temporary.name + "-journal")).write_text("journal")
        raise OSError("disk full")

    with pytest.raises(OSError, match="disk full"):
        build_atomically(target, build_then_fail, companions=("-journal",))
    assert target.read_text() == "old" and [p.name for p in tmp_path.iterdir()] == ["world.db"]
    built = build_atomically(target, lambda temporary: temporary.write_text("new"))
    assert built.read_text() == "new" and [p.name for p in tmp_path.iterdir()] == ["world.db"]


# ------------------------------------------------------------- special files (issue 30): followed or refused
# Each case runs in a child process with a time limit (opening a FIFO would block for ever), guarded: code that
# went on to make a temporary or replace a file stops there (so /dev/null is never replaced, even run as root).
WRITE = """
import json, os, stat, sys
from voxelworld.errors import ParameterError
from voxelworld.files import write_atomically
try:
    write_atomically({path!r}, lambda file: file.write(b"new"))
    print(json.dumps(["written"]))
except ParameterError as error:
    print(json.dumps(["refused", str(error)]))
"""


def write_in_child(path, guarded: bool = True) -> list:
    return printed_json(WRITE.format(path=str(path)), guarded)


def test_a_fifo_is_refused_and_stays_a_fifo(tmp_path):
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    outcome = write_in_child(fifo)
    assert outcome[0] == "refused" and "not a FIFO" in outcome[1] and str(fifo) in outcome[1], outcome
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode) and sorted(os.listdir(tmp_path)) == ["pipe"]


def test_a_character_device_is_refused_before_anything_is_written():
    # /dev/null itself: the child's guard stops any code that would make a temporary beside it or replace it.
    before = os.stat("/dev/null")
    outcome = write_in_child("/dev/null")
    assert outcome == ["refused", "path = '/dev/null' is out of range: must be a regular file or a new one, not a "
                                  "character device"], outcome
    after = os.stat("/dev/null")
    assert stat.S_ISCHR(after.st_mode) and (after.st_ino, after.st_rdev) == (before.st_ino, before.st_rdev)


def test_a_symlink_is_followed_and_stays_a_link(tmp_path):
    empty = tmp_path / "empty.bin"
    empty.touch()
    link = tmp_path / "link.bin"
    link.symlink_to(empty)
    assert write_in_child(link, guarded=False) == ["written"]  # everything here is in tmp_path
    assert link.is_symlink() and os.readlink(link) == str(empty) and empty.read_bytes() == b"new"
    # A link to a missing file: the file is made where it names, the link left a link.
    dangling = tmp_path / "dangling.bin"
    dangling.symlink_to(tmp_path / "made.bin")
    assert write_in_child(dangling, guarded=False) == ["written"]
    assert dangling.is_symlink() and (tmp_path / "made.bin").read_bytes() == b"new"
    assert sorted(os.listdir(tmp_path)) == ["dangling.bin", "empty.bin", "link.bin", "made.bin"]


def test_a_symlink_to_a_fifo_or_in_a_loop_is_refused(tmp_path):
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    link = tmp_path / "link"
    link.symlink_to(fifo)
    outcome = write_in_child(link)
    assert outcome[0] == "refused" and f"not a FIFO (named pipe) (the symlink names {fifo})" in outcome[1], outcome
    assert link.is_symlink() and stat.S_ISFIFO(os.lstat(fifo).st_mode)
    (tmp_path / "a").symlink_to(tmp_path / "b")
    (tmp_path / "b").symlink_to(tmp_path / "a")
    outcome = write_in_child(tmp_path / "a")
    assert outcome[0] == "refused" and "symbolic links" in outcome[1], outcome
    assert sorted(os.listdir(tmp_path)) == ["a", "b", "link", "pipe"]


def test_write_target_names_the_parameter_and_never_opens(tmp_path):
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)  # opening it would block this test for ever
    with pytest.raises(ParameterError, match=r"^--save = .* not a FIFO"):
        write_target(fifo, "--save")
    assert write_target(tmp_path / "new.bin") == tmp_path / "new.bin"
