"""BioVision (BVH) motion capture files: the HIERARCHY as a :class:`Skeleton`, the MOTION as a :class:`Clip`.

What is read:

- ``ROOT`` / ``JOINT`` blocks (any number of roots) with ``OFFSET`` and ``CHANNELS`` in any order and any subset
  of ``Xposition Yposition Zposition Xrotation Yrotation Zrotation``; ``End Site`` blocks become leaf joints
  named ``<parent>_end`` (they have an offset but no channels, and give the last bone its length);
- ``MOTION``: ``Frames:``, ``Frame Time:`` (s) and one line of channel values per frame.

Semantics: a joint's rest pose is its OFFSET with no rotation. Rotation channels are degrees, composed in the
order listed, intrinsically: ``Zrotation Xrotation Yrotation`` means ``R = Rz @ Rx @ Ry``. Position channels
replace the offset on their axis (the usual meaning for a root; unlisted axes keep the offset). Lengths are
kept in the file's units unless ``metres_per_unit`` is given: BVH files are commonly in centimetres
(``metres_per_unit=0.01``), sometimes inches. Keys are LINEAR, one per frame, at ``frame * frame_time``.

Broken input raises :class:`FormatError` naming the file and the line. The hierarchy is read without
recursion, so any nesting depth is read (a chain 3 000 joints deep is a 3 000-joint skeleton).

Examples
--------
>>> import tempfile, pathlib
>>> text = '''HIERARCHY
... ROOT hips
... {
...   OFFSET 0 100 0
...   CHANNELS 6 Xposition Yposition Zposition Zrotation Xrotation Yrotation
...   End Site
...   {
...     OFFSET 0 50 0
...   }
... }
... MOTION
... Frames: 2
... Frame Time: 0.5
... 0 100 0 0 0 0
... 0 100 0 90 0 0
... '''
>>> path = pathlib.Path(tempfile.mkdtemp()) / "tiny.bvh"
>>> _ = path.write_text(text)
>>> skeleton, clip = load_bvh(path, metres_per_unit=0.01)
>>> skeleton.names, clip.duration
(('hips', 'hips_end'), 0.5)
>>> np.round(skeleton.world_positions(clip.sample(skeleton, 0.5)), 6) + 0.0
array([[ 0. ,  1. ,  0. ],
       [-0.5,  1. ,  0. ]])
"""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np

from voxelworld.errors import FormatError, check_finite
from voxelworld.motion import quaternions as quat
from voxelworld.motion.clip import Channel, Clip
from voxelworld.motion.skeleton import Pose, Skeleton

__all__ = ["load_bvh"]

_AXES = {"X": 0, "Y": 1, "Z": 2}
_CHANNELS = {f"{axis}{kind}" for axis in "XYZ" for kind in ("position", "rotation")}


class _Joint:
    def __init__(self, name: str, parent: int, line: int):
        self.name, self.parent, self.line = name, parent, line
        self.offset: np.ndarray | None = None
        self.channels: list[str] = []


class _Parser:
    def __init__(self, path: Path, text: str):
        self.path = path
        self.lines = text.splitlines()
        self.tokens: list[tuple[str, int]] = []
        self.position = 0
        self.joints: list[_Joint] = []
        self.names: set[str] = set()

    def fail(self, line: int, what: str) -> FormatError:
        return FormatError(f"{self.path}, line {line}: {what}")

    def tokenize(self, first: int, last: int) -> None:
        for number in range(first, last):
            spaced = re.sub(r"([{}])", r" \1 ", self.lines[number])
            self.tokens.extend((token, number + 1) for token in spaced.split())

    def next(self, what: str) -> tuple[str, int]:
        if self.position >= len(self.tokens):
            last = self.tokens[-1][1] if self.tokens else 1
            raise self.fail(last, f"the file ends where {what} was expected")
        token = self.tokens[self.position]
        self.position += 1
        return token

    def expect(self, word: str) -> int:
        token, line = self.next(repr(word))
        if token != word:
            raise self.fail(line, f"expected {word!r}, found {token!r}")
        return line

    def rest_of_line(self, line: int) -> str:
        words = []
        while self.position < len(self.tokens) and self.tokens[self.position][1] == line \
                and self.tokens[self.position][0] != "{":
            words.append(self.tokens[self.position][0])
            self.position += 1
        return " ".join(words)

    def hierarchy(self) -> None:
        token, line = self.next("a ROOT")
        while True:
            if token != "ROOT":
                raise self.fail(line, f"expected 'ROOT', found {token!r}")
            self.blocks(self.new_joint(self.rest_of_line(line), -1, line))
            if self.position >= len(self.tokens):
                break
            token, line = self.next("ROOT")
        if not self.joints:
            raise self.fail(1, "no joints")

    def new_joint(self, name: str, parent: int, line: int) -> int:
        if not name:
            raise self.fail(line, "a joint without a name")
        if name in self.names:
            raise self.fail(line, f"joint name {name!r} is used twice")
        self.names.add(name)
        self.joints.append(_Joint(name, parent, line))
        return len(self.joints) - 1

    def blocks(self, root: int) -> None:
        """The block of joint ``root`` and every block nested in it. An explicit stack of the open blocks
        (no recursion), so a hierarchy of any depth is read."""
        self.expect("{")
        open_blocks = [(root, False)]  # (joint, is an End Site)
        while open_blocks:
            index, end_site = open_blocks[-1]
            joint = self.joints[index]
            token, line = self.next("'}'")
            if token == "}":
                if joint.offset is None:
                    raise self.fail(joint.line, f"{joint.name!r} has no OFFSET")
                open_blocks.pop()
            elif token == "OFFSET":
                joint.offset = np.array([self.number("an OFFSET value") for _ in range(3)])
            elif token == "CHANNELS" and not end_site:
                self.channels(joint)
            elif token == "JOINT" and not end_site:
                child = self.new_joint(self.rest_of_line(line), index, line)
                self.expect("{")
                open_blocks.append((child, False))
            elif token == "End" and not end_site:
                self.expect("Site")
                name = f"{joint.name}_end"
                while name in self.names:
                    name += "_"
                child = self.new_joint(name, index, line)
                self.expect("{")
                open_blocks.append((child, True))
            else:
                raise self.fail(line, f"unexpected {token!r} in the block of {joint.name!r}")

    def channels(self, joint: _Joint) -> None:
        count_token, count_line = self.next("the channel count")
        if not (count_token.isascii() and count_token.isdigit()) or int(count_token) > len(_CHANNELS):
            raise self.fail(count_line, f"channel count {count_token!r} is not a whole number in [0, "
                            f"{len(_CHANNELS)}]")
        for _ in range(int(count_token)):
            channel, channel_line = self.next("a channel name")
            if channel not in _CHANNELS or channel in joint.channels:
                raise self.fail(channel_line, f"channel {channel!r} is unknown or repeated "
                                f"(one of {', '.join(sorted(_CHANNELS))}, each at most once)")
            joint.channels.append(channel)

    def number(self, what: str) -> float:
        token, line = self.next(what)
        try:
            value = float(token)
        except ValueError:
            raise self.fail(line, f"{what} {token!r} is not a number") from None
        if not np.isfinite(value):
            raise self.fail(line, f"{what} {token!r} is not finite")
        return value


def load_bvh(path: str | Path, metres_per_unit: float = 1.0) -> tuple[Skeleton, Clip]:
    """Read a BVH file: its skeleton (rest pose = offsets) and its motion as a clip named after the file.

    Parameters
    ----------
    path : str or Path
    metres_per_unit : float
        Multiplies offsets and positions (1 keeps the file's units; 0.01 turns centimetres into metres).
    """
    metres_per_unit = check_finite("metres_per_unit", metres_per_unit, minimum=0.0, strict_minimum=True)
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8", errors="replace")
    except OSError as error:
        raise FormatError(f"{path}: cannot be read ({error.strerror})") from None
    parser = _Parser(path, text)
    lines = parser.lines
    starts = [i for i, line in enumerate(lines) if line.strip()]
    if not starts or lines[starts[0]].strip() != "HIERARCHY":
        raise parser.fail(starts[0] + 1 if starts else 1, "a BVH file starts with HIERARCHY")
    motion = next((i for i, line in enumerate(lines) if line.strip() == "MOTION"), None)
    if motion is None:
        raise parser.fail(len(lines), "no MOTION section")
    parser.tokenize(starts[0] + 1, motion)
    parser.hierarchy()
    times, frames = _motion(parser, motion)
    return _build(parser.joints, times, frames, metres_per_unit, path.stem)


def _motion(parser: _Parser, motion: int) -> tuple[np.ndarray, np.ndarray]:
    """Key times (s) and the frame table ``(frames, channels)`` after the MOTION line."""
    lines = parser.lines
    rest = [(i + 1, line.strip()) for i, line in enumerate(lines[motion + 1:], start=motion + 1) if line.strip()]
    if len(rest) < 2:
        raise parser.fail(len(lines), "MOTION needs 'Frames:' and 'Frame Time:' lines")
    (frames_line, frames_text), (time_line, time_text) = rest[0], rest[1]
    found = re.fullmatch(r"Frames\s*:\s*(\d+)", frames_text)
    if not found:
        raise parser.fail(frames_line, f"expected 'Frames: <count>', found {frames_text!r}")
    frame_count = int(found.group(1))
    found = re.fullmatch(r"Frame\s+Time\s*:\s*(\S+)", time_text)
    try:
        frame_time = float(found.group(1)) if found else float("nan")
    except ValueError:
        frame_time = float("nan")
    if not np.isfinite(frame_time) or frame_time <= 0.0:
        raise parser.fail(time_line, f"expected 'Frame Time: <seconds > 0>', found {time_text!r}")
    width = sum(len(joint.channels) for joint in parser.joints)
    rows = rest[2:]
    if len(rows) != frame_count:
        where = rows[frame_count][0] if len(rows) > frame_count else len(lines)
        raise parser.fail(where, f"Frames: {frame_count} but {len(rows)} frame lines")
    table = np.empty((frame_count, width))
    for f, (number, text) in enumerate(rows):
        words = text.split()
        if len(words) != width:
            raise parser.fail(number, f"{len(words)} values, the hierarchy has {width} channels")
        try:
            table[f] = [float(word) for word in words]
        except ValueError:
            raise parser.fail(number, "a value that is not a number") from None
        if not np.isfinite(table[f]).all():
            raise parser.fail(number, "a value that is not finite")
    return np.arange(frame_count) * frame_time, table


def _build(joints: list[_Joint], times: np.ndarray, table: np.ndarray, unit: float, name: str) -> tuple[Skeleton, Clip]:
    count = len(joints)
    offsets = np.array([joint.offset for joint in joints]) * unit
    rotation = np.tile(quat.IDENTITY, (count, 1))
    rest = Pose(offsets, rotation, np.ones((count, 3)))
    skeleton = Skeleton([joint.name for joint in joints], [joint.parent for joint in joints], rest)
    channels: dict[str, dict[str, Channel]] = {}
    column = 0
    for j, joint in enumerate(joints):
        if not joint.channels or times.size == 0:
            column += len(joint.channels)
            continue
        translation = np.tile(offsets[j], (times.size, 1))
        turn = np.tile(quat.IDENTITY, (times.size, 1))
        moved = turned = False
        for channel in joint.channels:
            axis, values = _AXES[channel[0]], table[:, column]
            column += 1
            if channel.endswith("position"):
                translation[:, axis] = values * unit
                moved = True
            else:
                unit_axis = np.zeros(3)
                unit_axis[axis] = 1.0
                turn = quat.multiply(turn, quat.from_axis_angle(unit_axis, values))  # intrinsic: listed order
                turned = True
        channels[joint.name] = {}
        if moved:
            channels[joint.name]["translation"] = Channel(times, translation)
        if turned:
            channels[joint.name]["rotation"] = Channel(times, turn)
    return skeleton, Clip(name, channels)
