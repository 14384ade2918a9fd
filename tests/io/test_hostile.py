"""Hostile world files (issue 13): rows whose checksums pass but whose values are wrong, sizes the file does not
back, JSON nested without end; and saves over damaged files or onto a full disk. Every one is refused with a
voxelworld error naming the file and what is wrong, before anything is allocated or changed."""

from __future__ import annotations

import base64
import errno
import os
import sqlite3

import numpy as np
import pytest

import voxelworld.io.world_file as world_file
from voxelworld.errors import FormatError
from voxelworld.game.level import Prop
from voxelworld.game.world import Inputs, World
from voxelworld.io import load_world, save_world
from voxelworld.terrain import VoxelVolume

from .forge import copy_of, rewrite_array, set_in_state, state_row, write_chunk, write_state_text
from .scenario import state

NAN = {"$": "float", "value": "nan"}


def small_world() -> World:
    """Ground with a crate, an NPC walking and a chainsaw enemy, five frames on."""
    ground = VoxelVolume.from_sdf(lambda x, y, z: y - 4.0, (32, 16, 32), "soil", voxel_size=0.5, chunk_size=8)
    world = World(ground, props=[Prop.boxes("crate", [((10.0, 3.9, 10.0), (11.0, 4.9, 11.0))], "wood")])
    world.agents.add_npc("walker", (2.0, 4.0, 2.0), (14.0, 4.0, 4.0))
    world.agents.add_enemy("saw", (8.0, 4.0, 12.0), (1.0, 0.0, 0.0), world.settings.chainsaw)
    for _ in range(5):
        world.step(Inputs(move=(0.0, 1.0)))
    return world


@pytest.fixture(scope="module")
def saved(tmp_path_factory):
    path = tmp_path_factory.mktemp("hostile") / "small.vxw"
    save_world(small_world(), path)
    return path


def refused(path, *words) -> str:
    with pytest.raises(FormatError) as error:
        load_world(path)
    message = str(error.value)
    assert str(path) in message and all(word in message for word in words), message
    return message


def nan_array(n: int) -> dict:
    values = np.zeros(n)
    values[n // 2] = np.nan
    return {"$": "ndarray", "dtype": "float64", "shape": [n], "base64": base64.b64encode(values.tobytes()).decode()}


# ---------------------------------------------------------------------------------------- a whole world (section 3)
WRONG_VALUES = {  # id: (row, keys into the row, value, the field the error names)
    "player stamina 'lots'": ("player", ["stamina"], "lots", "state['stamina']"),
    "player position a list": ("player", ["position"], [1.0, 4.0, 1.0], "state['position']"),
    "player velocity NaN": ("player", ["velocity"], nan_array(3), "state['velocity']"),
    "player touching a tuple": ("player", ["touching"], ["soil"], "state['touching']"),
    "player touching no material": ("player", ["touching"], {"$": "frozenset", "items": ["cheese"]},
                                    "state['touching']"),
    "suck gauge above 1": ("actions", ["suck", "gauge"], 5.0, "state['suck'].gauge"),
    "treasures null": ("actions", ["deformation", "treasures"], None, "state['deformation'].treasures"),
    "npc walking without a path": ("agents", ["npcs", 0, "walk", "items", 5, 1], None, "state['path']"),
    "world frame negative": ("world", ["frame"], -3, "state['frame']"),
    "world dt negative": ("world", ["dt"], -0.5, "state['dt']"),
    "world inputs a string": ("world", ["inputs"], "forward", "state['inputs']"),
    "world rng state negative": ("world", ["rng", "items", 1, 1, "items", 1, 1], -1, "state['rng']"),
    "actions made negative": ("actions", ["made"], -1, "state['made']"),
    "treasures taken negative": ("actions", ["treasures_taken"], -2, "state['treasures_taken']"),
    "actions items a list": ("actions", ["items"], {"$": "list", "items": ["gold"]}, "state['items']"),
    "npc replans negative": ("agents", ["npcs", 0, "replans"], -1, "state['replans']"),
    "npc state unknown": ("agents", ["npcs", 0, "walk", "items", 3, 1], "dancing", "state['state']"),
    "npc path a string": ("agents", ["npcs", 0, "walk", "items", 5, 1], "north", "state['path']"),
    "npc polygon past the navmesh": ("agents", ["npcs", 0, "walk", "items", 2, 1], 10 ** 6, "state['polygon']"),
    "enemy carved voxels negative": ("agents", ["enemies", 0, "carved_voxels"], -3, "state['carved_voxels']"),
    "enemy time NaN": ("agents", ["enemies", 0, "time"], NAN, "state['time']"),
    "enemy motion contact a number": ("agents", ["enemies", 0, "motion", "contact"], 5, "state['contact']"),
    "enemy motion time a string": ("agents", ["enemies", 0, "motion", "time"], "soon", "state['time']"),
    "patrol ends not points": ("agents", ["patrols"], {"$": "dict", "items": [["walker", ["a", "b"]]]},
                               "state['patrols']['walker'][0]"),
    "navigation log nested wrong": ("navigation", ["log"], {"$": "list", "items": [[1, 2]]}, "state['log'][0][1]"),
}


# The volume row's mesher_taken (chunks whose next changes wait: ChunkMesher.refresh_interval): id -> (value, the
# words the error says).
WRONG_TAKEN = {
    "not a list": ("soon", ("volume.mesher_taken", "is not a list")),
    "a pair short": ([[[2, 1, 2]]], ("volume.mesher_taken", "is not a list")),
    "a chunk of strings": ([[["a", 1, 2], 1]], ("volume.mesher_taken", "is not a list")),
    "a chunk holding a mapping": ([[[{"$": "dict", "items": []}, 1, 2], 1]], ("volume.mesher_taken",)),
    "a chunk off the grid": ([[[99, 1, 2], 1]], ("mesher_taken", "state['taken']", "(99, 1, 2)")),
    "updates ago negative": ([[[2, 1, 2], -1]], ("mesher_taken", "state['taken'][(2, 1, 2)]", "-1")),
    "updates ago a string": ([[[2, 1, 2], "x"]], ("mesher_taken", "state['taken'][(2, 1, 2)]")),
}


@pytest.mark.parametrize("case", WRONG_TAKEN)
def test_a_volume_row_with_wrong_waits_is_refused(saved, tmp_path, case):
    value, words = WRONG_TAKEN[case]
    path = copy_of(saved, tmp_path / "forged.vxw")
    set_in_state(path, "volume", ["mesher_taken"], value)
    refused(path, *words)


@pytest.mark.parametrize("case", WRONG_VALUES)
def test_a_row_with_a_wrong_value_is_refused_naming_row_and_field(saved, tmp_path, case):
    row, keys, value, field = WRONG_VALUES[case]
    path = copy_of(saved, tmp_path / "forged.vxw")
    set_in_state(path, row, keys, value)
    refused(path, f"state row '{row}'", field)


def test_a_navmesh_agent_wider_than_any_is_refused_instead_of_eroding_for_ever(saved, tmp_path):
    """A forged agent radius of 5.2e16 m made the re-bake at load erode once per cell of it (a hang)."""
    path = copy_of(saved, tmp_path / "forged.vxw")
    set_in_state(path, "navigation", ["settings", "agent_radius"], 5.2e16)
    refused(path, "navigation.settings", "agent_radius = 5.2e+16")


def test_a_valid_file_loads_and_steps_bit_identically(tmp_path):
    world = small_world()
    path = tmp_path / "small.vxw"
    save_world(world, path)
    loaded = load_world(path)
    for _ in range(5):
        world.step(Inputs(move=(1.0, 0.5), suck=True))
        loaded.step(Inputs(move=(1.0, 0.5), suck=True))
    assert state(loaded) == state(world)


# ------------------------------------------------------------------------------------------ sizes (section 1)
def test_a_chunk_blob_without_its_size_and_a_huge_raw_size(saved, tmp_path):
    path = copy_of(saved, tmp_path / "forged.vxw")
    write_chunk(path, (1, 0, 1), "density", bytes(512), raw_size=2 ** 38, content_size=False)
    refused(path, "chunk (1, 0, 1) field 'density'", f"raw_size {2 ** 38} is neither 1", "nor 512")


def test_a_blob_whose_frame_claims_another_size(saved, tmp_path):
    path = copy_of(saved, tmp_path / "forged.vxw")
    write_chunk(path, (0, 1, 0), "mix", bytes(4096), raw_size=512)
    refused(path, "chunk (0, 1, 0) field 'mix'", "does not decompress to 512 bytes", "4096")


@pytest.mark.parametrize("shape, chunk_size, words", [
    ([2048, 2048, 2048], 8, ["8589934592 voxels", "MAX_VOXELS"]),
    ([2048, 2048, 2048], 1024, ["8589934592 voxels", "MAX_VOXELS"]),
    ([600, 600, 600], 1, ["216000000 chunks", "MAX_CHUNKS"]),
    ([200, 200, 200], 1, ["8000000 chunks", "MAX_CHUNKS"]),
    ([64, 16, 32], 8, ["chunk (4, 0, 0) field 'damage' is missing"]),  # within the limits; the rows are not there
])
def test_a_volume_row_larger_than_the_limits_or_the_file(saved, tmp_path, shape, chunk_size, words):
    path = copy_of(saved, tmp_path / "forged.vxw")
    row = state_row(path, "volume")
    row["shape"], row["chunk_size"] = shape, chunk_size
    write_state_text(path, "volume", world_file._json(row))
    refused(path, *words)


def test_an_array_row_of_a_huge_size(saved, tmp_path):
    path = copy_of(saved, tmp_path / "forged.vxw")
    rewrite_array(path, "navmesh.vertices", raw_size=2 ** 38)
    refused(path, "array 'navmesh.vertices'", f"raw_size {2 ** 38} is not")
    path = copy_of(saved, tmp_path / "forged2.vxw")
    rewrite_array(path, "navmesh.vertices", shape="[1000000000, 3]", raw_size=24 * 10 ** 9)
    refused(path, "array 'navmesh.vertices'", "24000000000 bytes", "MAX_ARRAY_BYTES")


@pytest.mark.parametrize("depth", [600, 100_000])  # 600: JSON reads it, the decoder would recurse too deep
def test_json_nested_without_end(saved, tmp_path, depth):
    path = copy_of(saved, tmp_path / "forged.vxw")
    write_state_text(path, "player", "[" * depth + "]" * depth)
    refused(path, "state row 'player'", "nested deeper than 64")


# ---------------------------------------------------------------------------------------------------- saving
def damage(path, share: float) -> bytes:
    """Overwrite a page's worth of bytes at ``share`` of the file with garbage; return the file's bytes."""
    data = bytearray(path.read_bytes())
    at = int(len(data) * share) // 4096 * 4096
    data[at:at + 4096] = np.random.default_rng(3).integers(0, 256, 4096, dtype=np.uint8).tobytes()
    path.write_bytes(bytes(data))
    return bytes(data)


@pytest.mark.parametrize("how", ["truncated", "a page of garbage"])
def test_saving_over_a_damaged_world_file_is_refused_and_leaves_it(saved, tmp_path, how):
    path = copy_of(saved, tmp_path / "damaged.vxw")
    if how == "truncated":
        path.write_bytes(path.read_bytes()[: len(path.read_bytes()) // 2])
        before = path.read_bytes()
    else:
        before = damage(path, 0.5)
    with pytest.raises(FormatError, match="damaged|unreadable") as error:
        save_world(small_world(), path)
    assert str(path) in str(error.value)
    assert path.read_bytes() == before


def full_disk(monkeypatch, pages: int) -> None:
    """SQLite's connections of world_file can grow a database to ``pages`` pages only: a full disk, to SQLite."""
    connect = world_file._connect

    def small(path, mode):
        connection = connect(path, mode)
        connection.execute(f"PRAGMA max_page_count = {pages}")
        return connection
    monkeypatch.setattr(world_file, "_connect", small)


def test_a_full_disk_for_a_new_file_leaves_nothing(tmp_path, monkeypatch):
    full_disk(monkeypatch, 8)
    path = tmp_path / "new.vxw"
    with pytest.raises(OSError) as error:
        save_world(small_world(), path)
    assert error.value.errno == errno.ENOSPC and str(path) in str(error.value), error.value
    assert "could not be written" in str(error.value)
    assert os.listdir(tmp_path) == []


def test_a_full_disk_when_flushing_a_new_file(tmp_path, monkeypatch):
    def no_room(fd):
        raise OSError(errno.ENOSPC, "No space left on device")
    monkeypatch.setattr(os, "fsync", no_room)
    path = tmp_path / "new.vxw"
    with pytest.raises(OSError) as error:
        save_world(small_world(), path)
    assert error.value.errno == errno.ENOSPC and str(path) in str(error.value), error.value
    assert os.listdir(tmp_path) == []


def test_a_full_disk_when_updating_leaves_the_file(saved, tmp_path, monkeypatch):
    path = copy_of(saved, tmp_path / "world.vxw")
    before = path.read_bytes()
    (pages,) = sqlite3.connect(path).execute("PRAGMA page_count").fetchone()
    full_disk(monkeypatch, pages)
    world = small_world()
    world.volume.density[:, :8, :] = 255  # every chunk changed, and not as compressible
    world.volume.damage[:] = np.arange(world.volume.damage.size, dtype=np.uint16).reshape(world.volume.shape)
    with pytest.raises(OSError) as error:
        save_world(world, path)
    assert error.value.errno == errno.ENOSPC and str(path) in str(error.value), error.value
    assert path.read_bytes() == before


def test_a_volume_row_the_chunk_rows_do_not_back_is_refused_before_it_is_allocated(saved, tmp_path):
    import tracemalloc
    path = copy_of(saved, tmp_path / "forged.vxw")
    row = state_row(path, "volume")
    row["shape"], row["chunk_size"] = [512, 256, 1024], 64  # 768 MiB of fields, 512 chunks: within the limits
    write_state_text(path, "volume", world_file._json(row))
    tracemalloc.start()
    try:
        refused(path, "chunk (0, 0, 4) field 'damage' is missing")
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 50 * 2 ** 20, f"{peak / 2 ** 20:.0f} MiB allocated for a file of 32 chunks"
