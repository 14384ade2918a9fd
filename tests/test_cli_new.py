"""``voxelworld new``: a seeded world of real size into a world file that loads as a SparseVolume."""

from __future__ import annotations

import io

import pytest

from voxelworld.cli import build_parser, run_new
from voxelworld.errors import ParameterError
from voxelworld.io import load_world
from voxelworld.terrain import GeneratorSettings, SparseVolume, generate_world


def new(*argv: str) -> str:
    out = io.StringIO()
    run_new(build_parser().parse_args(["new", *argv]), out=out)
    return out.getvalue()


def test_new_writes_the_generated_world_and_says_what_it_does(tmp_path):
    path = tmp_path / "small.vwd"
    said = new("--size", "64", "--height", "32", "--seed", "5", str(path))
    assert "generating 64 m x 32 m x 64 m" in said and "seed 5" in said and f"Wrote {path}" in said
    assert "100 %" in said and "voxelworld play --world" in said
    world = load_world(path)
    assert isinstance(world.volume, SparseVolume)
    expected = generate_world(GeneratorSettings(size=64.0, height=32.0, seed=5, ground_level=12.0, hill_height=6.0,
                                                sand_level=8.5, lava_level=8.0))
    assert world.volume.content_hash() == expected.content_hash()
    assert world.settings.view_distance is not None  # a large world's settings: it streams when played
    # The same seed, the same world; another, another.
    again = tmp_path / "again.vwd"
    new("--size", "64", "--height", "32", "--seed", "5", str(again))
    assert load_world(again).voxel_hash() == world.voxel_hash()
    other = tmp_path / "other.vwd"
    new("--size", "64", "--height", "32", "--seed", "6", str(other))
    assert load_world(other).voxel_hash() != world.voxel_hash()


def test_new_refuses_to_replace_a_file_unless_forced_and_names_bad_options(tmp_path):
    path = tmp_path / "taken.vwd"
    path.write_bytes(b"mine")
    with pytest.raises(ParameterError, match="does not exist yet"):
        new("--size", "64", "--height", "32", str(path))
    assert path.read_bytes() == b"mine"
    with pytest.raises(ParameterError) as error:
        new("--size", "-5", str(tmp_path / "bad.vwd"))
    assert error.value.parameter == "--size"
    with pytest.raises(ParameterError) as error:
        new("--voxel-size", "0", str(tmp_path / "bad.vwd"))
    assert error.value.parameter == "--voxel-size"
    with pytest.raises(ParameterError, match="existing folder"):
        new("--size", "64", str(tmp_path / "missing" / "w.vwd"))
    new("--size", "64", "--height", "32", "--force", str(path))
    assert isinstance(load_world(path).volume, SparseVolume)
