"""save_world onto a path that is not a regular file (issue 30): a FIFO, a character device and a symlink to a
FIFO are refused with ParameterError before anything is opened, and stay what they were; a symlink to an empty or
a world file is followed (its target written, the link kept). Each save runs in a child process with a time limit
(opening a FIFO blocks), the device's behind a guard that stops code going on to replace it."""

from __future__ import annotations

import os
import stat

from ..child import printed_json

SAVE = """
import json
from voxelworld.errors import ParameterError
from voxelworld.game.world import World
from voxelworld.io import load_world, save_world
from voxelworld.terrain import VoxelVolume

ground = VoxelVolume.from_sdf(lambda x, y, z: y - 4.0, (16, 16, 16), "soil", voxel_size=0.5, chunk_size=8)
world = World(ground)
try:
    reports = [save_world(world, {path!r}) for _ in range(2)]
    loaded = load_world({path!r})
    print(json.dumps(["saved", [r.full for r in reports], loaded.voxel_hash() == world.voxel_hash()]))
except ParameterError as error:
    print(json.dumps(["refused", str(error)]))
"""


def save_in_child(path, guarded: bool = True) -> list:
    return printed_json(SAVE.format(path=str(path)), guarded)


def test_saving_to_a_fifo_is_refused_and_leaves_it_a_fifo(tmp_path):
    fifo = tmp_path / "world.vxw"
    os.mkfifo(fifo)
    outcome = save_in_child(fifo)
    assert outcome[0] == "refused" and "not a FIFO" in outcome[1] and str(fifo) in outcome[1], outcome
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode) and os.listdir(tmp_path) == ["world.vxw"]


def test_saving_to_a_character_device_is_refused_before_anything_is_written():
    # /dev/null itself (what a save as root once replaced): the guard stops code that would go on to write.
    before = os.stat("/dev/null")
    outcome = save_in_child("/dev/null")
    assert outcome == ["refused", "path = '/dev/null' is out of range: must be a regular file or a new one, not a "
                                  "character device"], outcome
    after = os.stat("/dev/null")
    assert stat.S_ISCHR(after.st_mode) and (after.st_ino, after.st_rdev) == (before.st_ino, before.st_rdev)


def test_saving_through_a_symlink_writes_its_target_and_keeps_the_link(tmp_path):
    empty = tmp_path / "empty.vxw"
    empty.touch()
    link = tmp_path / "link.vxw"
    link.symlink_to(empty)
    outcome = save_in_child(link, guarded=False)  # everything written here is in tmp_path
    # The first save writes the file whole, the second (the same world, the same file) nothing new; it loads.
    assert outcome == ["saved", [True, False], True], outcome
    assert link.is_symlink() and os.readlink(link) == str(empty) and empty.stat().st_size > 0
    assert sorted(os.listdir(tmp_path)) == ["empty.vxw", "link.vxw"]


def test_saving_through_a_symlink_to_a_fifo_is_refused(tmp_path):
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    link = tmp_path / "world.vxw"
    link.symlink_to(fifo)
    outcome = save_in_child(link)
    assert outcome[0] == "refused" and f"not a FIFO (named pipe) (the symlink names {fifo})" in outcome[1], outcome
    assert link.is_symlink() and stat.S_ISFIFO(os.lstat(fifo).st_mode)
