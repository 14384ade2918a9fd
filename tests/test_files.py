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
