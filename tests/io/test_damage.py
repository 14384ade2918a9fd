"""Damaged world files: truncated or with flipped bits, a file is refused with FormatError, or (where the damage
fell on bytes nothing reads, such as free space in a page) loads as the very world saved; never a crash, never a
wrong world."""

from __future__ import annotations

import re
import sqlite3

import numpy as np
import pytest

from voxelworld.errors import FormatError
from voxelworld.io import load_world, save_world

from .scenario import MOMENTS, play, scenario_world, state


@pytest.fixture(scope="module")
def saved(tmp_path_factory):
    """The demo world played to the moment a thrown bullet's impact is queued (a held bullet, bullets, fragments,
    treasures, NPCs walking), saved; with its state as loaded back."""
    world = play(scenario_world(), MOMENTS["impact queued"][0])
    path = tmp_path_factory.mktemp("damage") / "world.vxw"
    save_world(world, path)
    return path, path.read_bytes(), state(load_world(path))


def damaged(tmp_path, data: bytes):
    path = tmp_path / "damaged.vxw"
    path.write_bytes(data)
    return path


@pytest.mark.parametrize("share", [0.0, 0.001, 0.02, 0.25, 0.5, 0.9, 0.999])
def test_a_truncated_file_is_refused(saved, tmp_path, share):
    path, data, _ = saved
    keep = max(1, int(len(data) * share))
    with pytest.raises(FormatError, match="damaged|not an SQLite|missing|checksum|decompress"):
        load_world(damaged(tmp_path, data[:keep]))


def test_a_flipped_byte_in_any_chunk_blob_is_refused_naming_the_chunk(saved, tmp_path):
    """Refused, or (a bit zstd's decoder never reads: the voxels decompress as they were saved, their checksum
    holds) loaded as saved: the world then is the one saved, and at least most flips are refused."""
    path, data, expected = saved
    connection = sqlite3.connect(path)
    rows = connection.execute("SELECT cx, cy, cz, field, data FROM chunks ORDER BY cx, cy, cz, field").fetchall()
    connection.close()
    # Blobs found once in the file, in one piece (the blobs of uniform chunks are alike; large ones span pages).
    rows = [row for row in rows if (at := data.find(row[4])) > 0 and data.find(row[4], at + 1) < 0]
    assert len(rows) > 50
    rng = np.random.default_rng(7)
    refused = 0
    for cx, cy, cz, field, blob in [rows[n] for n in rng.choice(len(rows), 12, replace=False)]:
        at = data.find(blob)
        spot = at + len(blob) // 2 + int(rng.integers(-len(blob) // 4, len(blob) // 4 + 1))
        broken = bytearray(data)
        broken[spot] ^= 1 << int(rng.integers(8))
        try:
            world = load_world(damaged(tmp_path, bytes(broken)))
        except FormatError as error:
            assert re.search(rf"chunk \({cx}, {cy}, {cz}\) field '{field}'", str(error)), error
            refused += 1
        else:
            assert state(world) == expected
    assert refused >= 10


def test_flipped_bits_anywhere_are_refused_or_harmless(saved, tmp_path):
    path, data, expected = saved
    rng = np.random.default_rng(11)
    outcomes = {"refused": 0, "same world": 0}
    for spot in rng.choice(len(data), 40, replace=False):
        broken = bytearray(data)
        broken[spot] ^= 1 << int(rng.integers(8))
        try:
            world = load_world(damaged(tmp_path, bytes(broken)))
        except FormatError:
            outcomes["refused"] += 1
            continue
        assert state(world) == expected, f"byte {spot}: a wrong world loaded"
        outcomes["same world"] += 1
    assert outcomes["refused"] > 20, outcomes  # most bytes of the file matter
