"""write_atomically: the new file whole, or the old one untouched and no temporary left."""

from __future__ import annotations

import os

import pytest

from voxelworld.files import write_atomically


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
