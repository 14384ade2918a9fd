"""Fuzz one motion file reader with hypothesis, in its own process: ``python fuzz_readers.py READER SEED EXAMPLES
SECONDS`` (READER: gltf, glb, bvh or clip).

Each example takes a valid input (SimpleSkin.gltf, the packaged CesiumMan.glb, the BVH that test_biovision
writes, a clip with LINEAR / STEP / CUBICSPLINE channels), applies one to three mutations (a JSON value replaced
by a hostile one, a key or list item deleted or repeated, bytes of a buffer overwritten, tokens and lines of a
BVH replaced, dropped or repeated, the file cut short) and reads it. The reader must return or raise
FormatError / ParameterError; anything else is written down with the mutation that caused it.

The last line printed is a JSON report ``{"examples": n, "outcomes": {kind: count}, "unexpected": [...]}``; the
exit status is 0 only when nothing unexpected happened. Examples stop being run after SECONDS (wall clock); the
test that starts this process kills it if it hangs.
"""

from __future__ import annotations

import base64
import functools
import json
import math
import struct
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
from hypothesis import HealthCheck, Phase, given, seed, settings
from hypothesis import strategies as st

from voxelworld.errors import FormatError, ParameterError
from voxelworld.motion import CESIUM_MAN
from voxelworld.motion.biovision import load_bvh
from voxelworld.motion.clip import Clip
from voxelworld.motion.gltf import load_gltf, skin

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))  # so that the tests package (test_biovision's writer) can be imported

SIMPLE_SKIN = ROOT / "tests" / "data" / "motion" / "SimpleSkin.gltf"
DEEP = 100_000  # nesting levels of the "NESTED" value, spliced into the JSON text by dumps()
HOSTILE = [-1, 0, 1, 2, 3, 4, 5, 6, 99, 252, 5126, 10 ** 9, 2 ** 31, 2 ** 63, -2 ** 63, 10 ** 400, 0.5, -0.0,
           math.nan, math.inf, -math.inf, 1e308, "x", "", "SCALAR", "MAT4", "CUBICSPLINE", "rotation", None, True,
           [], {}, [0] * 5, [math.nan] * 4, [0, 0, 0, 0], [1, 2], [[0]], {"x": 1}, "NESTED"]
BVH_TOKENS = ["-1", "0", "1e999", "nan", "inf", "{", "}", "JOINT", "ROOT", "End", "Site", "CHANNELS", "OFFSET",
              "MOTION", "HIERARCHY", "Frames:", "99999999999", "7", "Xrotation", "\u00b2", "", "0.0 0.0"]


def hostile_values():
    return st.sampled_from(HOSTILE) | st.integers() | st.floats() | st.text(max_size=4)


def dumps(document) -> str:
    """``document`` as JSON text, each "NESTED" string replaced by lists nested DEEP levels."""
    return json.dumps(document).replace('"NESTED"', "[" * DEEP + "]" * DEEP)


def places(document, where=()):
    """Every (container, key) in a JSON document, depth first."""
    found = []
    items = document.items() if isinstance(document, dict) else enumerate(document)
    for key, value in items:
        found.append((document, key, where + (key,)))
        if isinstance(value, (dict, list)):
            found.extend(places(value, where + (key,)))
    return found


def mutate_json(data, document) -> list[str]:
    """One to three edits of ``document`` in place; returns what was done."""
    done = []
    for _ in range(data.draw(st.integers(1, 3))):
        spots = places(document)
        if not spots:
            break
        container, key, where = spots[data.draw(st.integers(0, len(spots) - 1))]
        action = data.draw(st.sampled_from(["replace", "replace", "replace", "delete", "repeat"]))
        if action == "replace":
            value = data.draw(hostile_values())
            container[key] = value
            done.append(f"{list(where)} = {value!r}"[:200])
        elif action == "delete":
            del container[key]
            done.append(f"del {list(where)}")
        elif isinstance(container, list):
            container.insert(key, container[key])
            done.append(f"repeat {list(where)}")
    return done


def mutate_bytes(data, blob: bytes) -> tuple[bytes, str]:
    blob = bytearray(blob)
    at = data.draw(st.integers(0, len(blob) - 1))
    new = data.draw(st.sampled_from([b"\xff\xff\xff\xff", b"\x00\x00\xc0\x7f", b"\x00\x00\x80\x7f", b"\x00" * 4,
                                     b"\x7f\xff", b"\x80"]) | st.binary(min_size=1, max_size=8))
    blob[at:at + len(new)] = new
    return bytes(blob[:len(blob)]), f"bytes at {at} = {new!r}"


# -- the readers and their valid inputs ---------------------------------------------------------------------
def read_gltf(path: Path) -> str:
    character = load_gltf(path)
    character.skeleton.world_transforms()
    if character.mesh is not None:
        skin(character)
    for clip in character.clips.values():
        clip.sample(character.skeleton, clip.duration / 2)
    return "read"


def gltf_case(data, folder: Path) -> tuple[Path, list[str]]:
    document = json.loads(SIMPLE_SKIN.read_text())
    done = []
    if data.draw(st.booleans()):
        b = data.draw(st.integers(0, len(document["buffers"]) - 1))
        uri = document["buffers"][b]["uri"]
        head, body = uri.split(",", 1)
        blob, what = mutate_bytes(data, base64.b64decode(body))
        document["buffers"][b]["uri"] = head + "," + base64.b64encode(blob).decode()
        done.append(f"buffer {b} {what}")
    done += mutate_json(data, document)
    path = folder / "fuzzed.gltf"
    path.write_text(dumps(document))
    return path, done


@functools.lru_cache(maxsize=1)
def glb_chunks() -> tuple[str, bytes]:
    """CesiumMan.glb's JSON chunk (text) and binary chunk."""
    blob = CESIUM_MAN.read_bytes()
    json_length = struct.unpack_from("<I", blob, 12)[0]
    return blob[20:20 + json_length].decode(), blob[20 + json_length + 8:]


def glb_case(data, folder: Path) -> tuple[Path, list[str]]:
    text, binary = glb_chunks()
    document = json.loads(text)
    done = mutate_json(data, document) if data.draw(st.booleans()) else []
    if data.draw(st.booleans()):
        binary, what = mutate_bytes(data, binary)
        done.append(f"BIN {what}")
    text = dumps(document).encode()
    text += b" " * (-len(text) % 4)
    binary += b"\0" * (-len(binary) % 4)
    body = struct.pack("<II", len(text), 0x4E4F534A) + text + struct.pack("<II", len(binary), 0x004E4942) + binary
    blob = struct.pack("<III", 0x46546C67, 2, 12 + len(body)) + body
    if data.draw(st.integers(0, 7)) == 0:
        blob, what = mutate_bytes(data, blob[:data.draw(st.integers(0, len(blob)))] or b"\0")
        done.append(f"file cut, {what}")
    path = folder / "fuzzed.glb"
    path.write_bytes(blob)
    return path, done


def read_bvh(path: Path) -> str:
    skeleton, clip = load_bvh(path, metres_per_unit=0.01)
    skeleton.world_positions(clip.sample(skeleton, clip.duration / 2))
    return "read"


def bvh_case(data, folder: Path) -> tuple[Path, list[str]]:
    from tests.motion.test_biovision import JOINTS, write_bvh

    width = sum(len(joint[3]) for joint in JOINTS)
    path = folder / "fuzzed.bvh"
    write_bvh(path, np.arange(3 * width, dtype=float).reshape(3, width))
    lines = path.read_text().splitlines()
    done = []
    for _ in range(data.draw(st.integers(1, 3))):
        n = data.draw(st.integers(0, len(lines) - 1))
        action = data.draw(st.sampled_from(["token", "token", "drop", "repeat", "cut"]))
        if action == "token":
            words = lines[n].split() or [""]
            k = data.draw(st.integers(0, len(words) - 1))
            words[k] = data.draw(st.sampled_from(BVH_TOKENS) | st.text(max_size=3))
            lines[n] = " ".join(words)
        elif action == "drop":
            del lines[n]
        elif action == "repeat":
            lines.insert(n, lines[n])
        else:
            lines = lines[:n]
        done.append(f"{action} line {n + 1}")
        if not lines:
            break
    path.write_text("\n".join(lines) + "\n")
    return path, done


def clip_document() -> dict:
    cubic = np.stack([np.zeros((3, 3)), np.eye(3), np.ones((3, 3))], axis=1)  # (key, in/value/out, xyz)
    clip = Clip.from_keys("walk", {"hips": {"translation": ([0.0, 0.5, 1.0], cubic)}}, "CUBICSPLINE")
    step = Clip.from_keys("step", {"hand": {"rotation": ([0.0, 1.0], [[0, 0, 0, 1], [0, 0, 1, 0]]),
                                            "scale": ([0.0, 2.0], [[1, 1, 1], [2, 2, 2]])}}, "STEP")
    document = json.loads(clip.to_json())
    document["joints"].update(json.loads(step.to_json())["joints"])
    return document


def read_clip(path: Path) -> str:
    clip = Clip.from_json(path.read_text())
    clip.duration  # noqa: B018
    return "read"


def clip_case(data, folder: Path) -> tuple[Path, list[str]]:
    document = clip_document()
    done = mutate_json(data, document)
    path = folder / "fuzzed.json"
    path.write_text(dumps(document))
    return path, done


READERS = {"gltf": (gltf_case, read_gltf), "glb": (glb_case, read_gltf), "bvh": (bvh_case, read_bvh),
           "clip": (clip_case, read_clip)}


def main(reader: str, chosen_seed: int, examples: int, seconds: float) -> int:
    make_case, read = READERS[reader]
    folder = Path(tempfile.mkdtemp())
    stop = time.monotonic() + seconds
    outcomes: dict[str, int] = {}
    unexpected: list[list[str]] = []

    @seed(chosen_seed)
    @settings(max_examples=examples, deadline=None, database=None, phases=[Phase.generate],
              suppress_health_check=list(HealthCheck))
    @given(st.data())
    def run(data):
        try:
            path, done = make_case(data, folder)
        except Exception as error:  # noqa: BLE001 - a fault of this fuzzer is reported, not replayed
            unexpected.append([f"fuzzer: {type(error).__name__}", str(error)[:300], ""])
            return
        if time.monotonic() > stop:  # the same draws every run, or hypothesis calls the test flaky
            return
        try:
            outcome = read(path)
        except (FormatError, ParameterError) as error:
            outcome = type(error).__name__
        except BaseException as error:  # noqa: BLE001 - everything else is what this fuzzer looks for
            outcome = type(error).__name__
            unexpected.append([outcome, str(error)[:300], "; ".join(done)])
        outcomes[outcome] = outcomes.get(outcome, 0) + 1

    run()
    print(json.dumps({"examples": sum(outcomes.values()), "outcomes": outcomes, "unexpected": unexpected}))
    return 1 if unexpected else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), float(sys.argv[4])))
