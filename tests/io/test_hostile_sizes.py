"""Hostile sizes from files and commands (issue 30, items 2 and 5): a world file forged to an absurd shape, voxel
size or origin is refused with a FormatError at once (load_world, play --world), and voxelworld new and bake --what
terrain refuse a voxel size that makes too many voxels, naming --voxel-size, before they generate anything. Each
runs in a child process with a time and memory limit (tests/terrain/child.py)."""

from __future__ import annotations

import pytest

from voxelworld.game.settings import LARGE_WORLD_SETTINGS
from voxelworld.game.world import World
from voxelworld.io import save_world
from voxelworld.terrain import GeneratorSettings, generate_world
from voxelworld.terrain.base import MAX_AXIS_VOXELS

from ..child import refusal
from .forge import copy_of, set_in_state, state_row

LOAD = "from voxelworld.io import load_world"
CLI = "from voxelworld.cli import build_parser, run_bake, run_new, run_play"


@pytest.fixture(scope="module")
def sparse_file(tmp_path_factory):
    """A small world file whose volume is stored sparse (the storage whose size check looped)."""
    settings = GeneratorSettings(size=32.0, height=16.0, voxel_size=1.0, ground_level=8.0, hill_height=2.0)
    path = tmp_path_factory.mktemp("sparse") / "small.vwd"
    save_world(World(generate_world(settings, chunk_size=16), settings=LARGE_WORLD_SETTINGS), path)
    assert state_row(path, "volume")["storage"] == "sparse"
    return path


def forged(sparse_file, tmp_path, key, value):
    path = copy_of(sparse_file, tmp_path / "forged.vwd")
    set_in_state(path, "volume", [key], value)
    return str(path)


def test_a_world_file_forged_to_a_million_million_voxels_a_side_is_refused_at_once(sparse_file, tmp_path):
    path = forged(sparse_file, tmp_path, "shape", [10**12] * 3)
    outcome = refusal(f"load_world({path!r})", LOAD)
    assert outcome["raised"] == "FormatError", outcome
    assert path in outcome["message"] and f"MAX_AXIS_VOXELS = {MAX_AXIS_VOXELS}" in outcome["message"]


def test_play_refuses_the_forged_world_file_at_once(sparse_file, tmp_path):
    path = forged(sparse_file, tmp_path, "shape", [10**12] * 3)
    outcome = refusal(f"run_play(build_parser().parse_args(['play', '--world', {path!r}, '--port', '0']))", CLI)
    assert outcome["raised"] == "FormatError", outcome
    assert "MAX_AXIS_VOXELS" in outcome["message"]


def test_a_world_file_forged_to_too_many_chunks_names_the_smallest_chunk_size(sparse_file, tmp_path):
    path = forged(sparse_file, tmp_path, "shape", [2**30, 2**30, 2**30])  # chunks of 16: 2**78 of them
    outcome = refusal(f"load_world({path!r})", LOAD)
    assert outcome["raised"] == "FormatError", outcome
    assert f"chunk_size = 16 is out of range: must be >= {2**23}" in outcome["message"]


@pytest.mark.parametrize(("key", "value", "parameter"), [("voxel_size", 1e308, "voxel_size"),
                                                         ("voxel_size", 1e-300, "voxel_size"),
                                                         ("origin", [1e308, 0.0, 0.0], "origin"),
                                                         ("origin", [0.0, -2e12, 0.0], "origin")])
def test_a_world_file_forged_to_an_overflowing_geometry_is_refused(sparse_file, tmp_path, key, value, parameter):
    path = forged(sparse_file, tmp_path, key, value)
    outcome = refusal(f"load_world({path!r})", LOAD)
    assert outcome["raised"] == "FormatError", outcome
    assert f"{parameter} = " in outcome["message"]


@pytest.mark.parametrize("voxel_size", ["1e-9", "1e-5"])
def test_new_refuses_voxels_too_small_for_the_world_naming_the_option(tmp_path, voxel_size):
    path = str(tmp_path / "new.vwd")
    outcome = refusal(f"run_new(build_parser().parse_args(['new', {path!r}, '--size', '64', '--voxel-size', "
                      f"{voxel_size!r}]))", CLI)
    assert outcome["raised"] == "ParameterError" and outcome["parameter"] == "--voxel-size", outcome
    assert not (tmp_path / "new.vwd").exists()


@pytest.mark.parametrize("voxel_size", ["1e-9", "1e-5"])
def test_bake_terrain_refuses_voxels_too_small_for_the_world_naming_the_option(tmp_path, voxel_size):
    path = str(tmp_path / "baked.vwd")
    outcome = refusal(f"run_bake(build_parser().parse_args(['bake', {path!r}, '--what', 'terrain', '--workers', '0', "
                      f"'--voxel-size', {voxel_size!r}]))", CLI)
    assert outcome["raised"] == "ParameterError" and outcome["parameter"] == "--voxel-size", outcome
    assert list(tmp_path.iterdir()) == []
