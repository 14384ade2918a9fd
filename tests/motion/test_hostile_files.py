"""Hostile motion files (issue 13): every damaged glTF, BVH or clip is refused with a FormatError naming the file,
the field, the value and what is legal; nothing hangs, crashes or allocates what the file merely claims.

The glTF cases are read in a child process with a time limit per file, so that a reader that loops or exhausts
memory fails these tests instead of stopping the suite; the fuzz tests run tests/motion/fuzz_readers.py the
same way.
"""

from __future__ import annotations

import base64
import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

from voxelworld.errors import FormatError
from voxelworld.motion.biovision import load_bvh
from voxelworld.motion.clip import Clip
from voxelworld.motion.gltf import MAX_UNBACKED_VALUES

from ..assets import SIMPLE_SKIN
from ..child import child_environment

FUZZER = Path(__file__).resolve().parent / "fuzz_readers.py"
SECONDS_PER_FILE = 5


def simple_skin() -> dict:
    return json.loads(SIMPLE_SKIN.read_text())


def nan_inverse_binds(document, folder):
    # Buffer 2 holds the two inverse bind matrices (bufferView 3, 128 bytes).
    nan = np.full(32, np.nan, "<f4").tobytes()
    document["buffers"][2]["uri"] = "data:application/octet-stream;base64," + base64.b64encode(nan).decode()


def external_buffer(document, folder, name):
    """Buffer 0 moved out of its data URI into the file ``folder / name``; returns that file's path."""
    entry = document["buffers"][0]
    entry["uri"] = name
    return folder / name, base64.b64decode(simple_skin()["buffers"][0]["uri"].split(",", 1)[1])


def pipe_buffer(document, folder):
    path, _ = external_buffer(document, folder, "pipe.bin")
    os.mkfifo(path)  # opening it blocks until a writer comes, reading it never ends


def absolute_buffer(document, folder):
    path, data = external_buffer(document, folder, "data.bin")
    path.write_bytes(data)
    document["buffers"][0]["uri"] = str(path.resolve())


# name -> (edit of SimpleSkin's document, words the FormatError must contain)
BROKEN = {
    "joint made a child of its own descendant": (
        lambda d, f: d["nodes"][2].update(children=[1]), ["node 1 is its own ancestor", "1 -> 2 -> 1"]),
    "node that is its own child": (
        lambda d, f: d["nodes"][2].update(children=[2]), ["node 2 is its own child"]),
    "cycle among the root joint's parents": (
        lambda d, f: d["nodes"].extend([{"children": [1, 4]}, {"children": [3]}]),
        ["node 3 is its own ancestor", "3 -> 4 -> 3"]),
    "node with two parents": (
        lambda d, f: d["nodes"][0].update(children=[2]), ["node 2 is a child of both node 0 and node 1"]),
    "child that does not exist": (
        lambda d, f: d["nodes"][1].update(children=[2, 99]), ["node 1 children = 99", "one of the file's 3 nodes"]),
    "accessor of 10^9 elements without a buffer view": (
        lambda d, f: (d["accessors"][4].pop("bufferView"), d["accessors"][4].update(count=10 ** 9)),
        ["accessor 4 count = 1000000000", f"at most {MAX_UNBACKED_VALUES // 16} MAT4 elements"]),
    "accessor of 10^9 elements in a small buffer view": (
        lambda d, f: d["accessors"][1].update(count=10 ** 9), ["1000000000 elements of 12 bytes", "do not fit"]),
    "negative count": (
        lambda d, f: d["accessors"][5].update(count=-1), ["accessor 5 count = -1", "a whole number >= 1"]),
    "negative byte offset": (
        lambda d, f: d["accessors"][1].update(byteOffset=-4), ["accessor 1 byteOffset = -4", "a whole number >= 0"]),
    "negative buffer view offset": (
        lambda d, f: d["bufferViews"][1].update(byteOffset=-48), ["bufferView 1 byteOffset = -48", ">= 0"]),
    "byte stride narrower than an element": (
        lambda d, f: d["bufferViews"][2].update(byteStride=2), ["bufferView 2 byteStride = 2", "in [8, 252]"]),
    "node matrix of 5 numbers": (
        lambda d, f: d["nodes"][1].update(matrix=[1, 0, 0, 0, 1]), ["node 1 matrix = [1", "16 finite numbers"]),
    "NaN quaternion": (
        lambda d, f: d["nodes"][2].update(rotation=[float("nan")] * 4),
        ["node 2 rotation = [nan, nan, nan, nan]", "4 finite numbers"]),
    "zero quaternion": (
        lambda d, f: d["nodes"][2].update(rotation=[0, 0, 0, 0]),
        ["node 2 rotation = [0.0, 0.0, 0.0, 0.0]", "non-zero length"]),
    "quaternion too long to square": (  # once a ParameterError naming "q", not the file
        lambda d, f: d["nodes"][2].update(rotation=[1e308, 1e308, 0, 1]),
        ["node 2 rotation = [1e+308, 1e+308, 0.0, 1.0]", "non-zero length, more than 1e-06 and at most 1e+06"]),
    "infinite translation": (
        lambda d, f: d["nodes"][1].update(translation=[0, float("inf"), 0]), ["node 1 translation", "finite"]),
    "all-NaN inverse bind matrices": (
        nan_inverse_binds, ["skin 0 inverseBindMatrices[0] = [nan", "16 finite numbers"]),
    "primitive attributes that are not an object": (
        lambda d, f: d["meshes"][0]["primitives"][0].update(attributes=0),
        ["mesh 0 primitive 0 attributes = 0", "an object"]),
    "buffer that is a named pipe": (pipe_buffer, ["buffer 0 uri = 'pipe.bin'", "a regular file"]),
    "buffer named by an absolute path": (absolute_buffer, ["buffer 0 uri", "a path relative to the glTF file"]),
}

CHILD = textwrap.dedent(f"""
    import json, signal, sys
    from voxelworld.errors import FormatError
    from voxelworld.motion.gltf import load_gltf

    def too_long(signum, frame):
        raise TimeoutError("still reading after {SECONDS_PER_FILE} s")

    signal.signal(signal.SIGALRM, too_long)
    for name, path in json.loads(sys.stdin.read()):
        signal.alarm({SECONDS_PER_FILE})
        try:
            load_gltf(path)
            outcome = "read"
        except FormatError as error:
            outcome = "FormatError: " + str(error)
        except BaseException as error:
            outcome = type(error).__name__ + ": " + str(error)
        signal.alarm(0)
        print(json.dumps([name, outcome]), flush=True)
""")


@pytest.fixture(scope="module")
def outcomes(tmp_path_factory) -> dict:
    """Each broken file read by load_gltf in a child process: what came of it (missing: the child died first)."""
    files = []
    for k, name in enumerate(["good", "nested 100 000 deep", *BROKEN]):
        folder = tmp_path_factory.mktemp(f"case{k}")
        document = simple_skin()
        if name in BROKEN:
            BROKEN[name][0](document, folder)
        text = json.dumps(document)
        if name == "nested 100 000 deep":
            text = text[:-1] + ', "extras": ' + "[" * 100_000 + "]" * 100_000 + "}"
        (folder / "case.gltf").write_text(text)
        files.append([name, str(folder / "case.gltf")])
    try:
        child = subprocess.run([sys.executable, "-c", CHILD], input=json.dumps(files), capture_output=True,
                               check=False, text=True, timeout=60 + SECONDS_PER_FILE * len(files),
                               env=child_environment())
        output = child.stdout
    except subprocess.TimeoutExpired as expired:
        output = expired.stdout or ""
        output = output.decode() if isinstance(output, bytes) else output
    return {name: (outcome, path) for name, outcome in map(json.loads, output.splitlines())
            for n, path in files if n == name}


def test_the_unbroken_file_is_read(outcomes):
    assert outcomes["good"][0] == "read"


def test_json_nested_100000_deep_is_a_format_error(outcomes):
    outcome, path = outcomes["nested 100 000 deep"]
    assert outcome.startswith(f"FormatError: {path}: not a readable glTF file"), outcome


@pytest.mark.parametrize("name", BROKEN)
def test_a_hostile_gltf_raises_format_error_naming_file_field_value_and_legal_range(outcomes, name):
    assert name in outcomes, f"the child process died or hung reading {name!r}"
    outcome, path = outcomes[name]
    assert outcome.startswith(f"FormatError: {path}: "), outcome
    for words in BROKEN[name][1]:
        assert words in outcome, (words, outcome)


def deep_bvh(depth: int) -> str:
    lines = ["HIERARCHY"]
    for j in range(depth):
        lines += [f"{'ROOT' if j == 0 else 'JOINT'} j{j}", "{", "OFFSET 0 1 0", "CHANNELS 1 Zrotation"]
    lines += ["End Site", "{", "OFFSET 0 1 0", "}"] + ["}"] * depth
    return "\n".join(lines + ["MOTION", "Frames: 1", "Frame Time: 0.1", " ".join(["90"] * depth)]) + "\n"


def test_a_bvh_hierarchy_3000_deep_is_read_without_recursion(tmp_path):
    path = tmp_path / "deep.bvh"
    path.write_text(deep_bvh(3000))
    skeleton, clip = load_bvh(path)
    assert len(skeleton) == 3001 and list(skeleton.parents) == list(range(-1, 3000))
    assert np.allclose(skeleton.world_positions()[-1], [0, 3001, 0])
    # Every joint turns 90 degrees about z: the chain winds in a square of side 1 (four joints per turn).
    tips = skeleton.world_positions(clip.sample(skeleton, 0.0))
    assert np.allclose(tips[4], tips[0], atol=1e-9) and np.allclose(tips[-1], tips[3000 % 4], atol=1e-6)


def test_a_bvh_with_an_unclosed_deep_block_names_the_end_of_the_file(tmp_path):
    path = tmp_path / "open.bvh"
    path.write_text(deep_bvh(3000).replace("}\n}\nMOTION", "MOTION"))
    with pytest.raises(FormatError, match=r"open\.bvh, line \d+: the file ends where '}' was expected"):
        load_bvh(path)


def test_a_clip_nested_100000_deep_is_a_format_error():
    with pytest.raises(FormatError, match="nested too deeply"):
        Clip.from_json("[" * 100_000 + "]" * 100_000)
    document = json.loads(Clip.from_keys("a", {"x": {"scale": ([0.0], [[1, 1, 1]])}}).to_json())
    document["joints"]["x"]["scale"]["values"] = "NESTED"
    with pytest.raises(FormatError, match="nested too deeply"):
        Clip.from_json(json.dumps(document).replace('"NESTED"', "[" * 100_000 + "]" * 100_000))


def test_a_clip_value_beyond_the_float_range_is_a_format_error():
    text = Clip.from_keys("a", {"x": {"scale": ([0.0], [[1, 1, 1]])}}).to_json()
    text = text.replace("[[1.0,", "[[1" + "0" * 400 + ",")  # 10^400: no float holds it
    with pytest.raises(FormatError, match=r"joints\['x'\]\['scale'\]: values = '\[\[1000"):
        Clip.from_json(text)


@pytest.mark.parametrize("reader, examples", [("gltf", 150), ("glb", 50), ("bvh", 300), ("clip", 300)])
def test_fuzzed_files_give_only_voxelworld_errors(reader, examples):
    """fuzz_readers.py mutates valid inputs (seed 0, at most 12 s of examples) in a child process: a crash, a
    hang or an exception other than FormatError / ParameterError fails this test."""
    try:
        child = subprocess.run([sys.executable, str(FUZZER), reader, "0", str(examples), "12"], capture_output=True,
                               check=False, text=True, timeout=120, env=child_environment())
    except subprocess.TimeoutExpired:
        pytest.fail(f"the {reader} fuzzer hung")
    assert child.returncode == 0, (child.returncode, child.stdout[-3000:], child.stderr[-3000:])
    report = json.loads(child.stdout.splitlines()[-1])
    assert report["unexpected"] == []
    assert set(report["outcomes"]) <= {"read", "FormatError", "ParameterError"}
    assert report["examples"] >= 20 and report["outcomes"].get("FormatError", 0) > 0
