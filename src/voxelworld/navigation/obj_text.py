"""Wavefront OBJ text as :meth:`voxelworld.navigation.Scene.from_obj` reads it: vertices and, per object, its
fan-split triangles; a bad line is a :class:`~voxelworld.errors.FormatError` naming the file, the line and what
is wrong."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import numpy as np

from ..errors import FormatError

__all__ = ["parse_obj"]

_FACE_VERTEX = re.compile(r"([+-]?[0-9]+)(?:/[+-]?[0-9]+|/(?:[+-]?[0-9]+)?/[+-]?[0-9]+)?")


def _logical_lines(text: str) -> Iterator[tuple[int, str]]:
    """``(line number, text)`` of each statement: comments stripped, ``\\`` continuations joined."""
    pending: list[str] = []
    start = 0
    for number, line in enumerate(text.splitlines(), start=1):
        if not pending:
            start = number
        line = line.split("#", 1)[0]
        if line.rstrip().endswith("\\"):
            pending.append(line.rstrip()[:-1])
            continue
        pending.append(line)
        yield start, " ".join(pending)
        pending = []
    if pending:
        yield start, " ".join(pending)


def parse_obj(text: str, path: Path) -> tuple[np.ndarray, dict[str, list[int]]]:
    """The vertices (float64 (n, 3)) and, per object name in order of first use, its fan-split triangles
    as a flat list of 0-based indices into those vertices."""
    vertices: list[tuple[float, float, float]] = []
    faces: dict[str, list[int]] = {}
    current = path.stem or "default"
    for number, line in _logical_lines(text):
        words = line.split()
        if not words:
            continue
        keyword = words[0]
        if keyword == "v":
            vertices.append(_obj_vertex(words, path, number))
        elif keyword == "f":
            corners = [_obj_face_vertex(word, len(vertices), path, number) for word in words[1:]]
            if len(corners) < 3:
                raise FormatError(f"{path}, line {number}: a face needs at least 3 vertices, this one has "
                                  f"{len(corners)}: {line.strip()!r}")
            triangles = faces.setdefault(current, [])
            for i in range(1, len(corners) - 1):
                triangles += (corners[0], corners[i], corners[i + 1])
        elif keyword in ("o", "g"):
            current = " ".join(words[1:]) or "default"
    return np.array(vertices, dtype=np.float64).reshape(-1, 3), faces


def _obj_vertex(words: list[str], path: Path, number: int) -> tuple[float, float, float]:
    try:
        if len(words) < 4:
            raise ValueError
        x, y, z = float(words[1]), float(words[2]), float(words[3])
    except ValueError:
        raise FormatError(f"{path}, line {number}: a vertex needs three numbers x y z, got "
                          f"{' '.join(words)!r}") from None
    if not all(np.isfinite((x, y, z))):
        raise FormatError(f"{path}, line {number}: vertex coordinates must be finite, got {' '.join(words)!r}")
    return x, y, z


def _obj_face_vertex(word: str, vertex_count: int, path: Path, number: int) -> int:
    match = _FACE_VERTEX.fullmatch(word)
    if match is None:
        raise FormatError(f"{path}, line {number}: face vertex {word!r} is not one of the forms a, a/b, a/b/c, "
                          "a//c (a, b, c integers)")
    index = int(match.group(1))
    if 1 <= index <= vertex_count:
        return index - 1
    if -vertex_count <= index <= -1:
        return vertex_count + index
    if index == 0:
        problem = "vertex index 0 is not allowed (indices count from 1, or back from -1)"
    elif vertex_count == 0:
        problem = f"vertex index {index} is out of range: no vertex is defined above this face"
    else:
        problem = (f"vertex index {index} is out of range: {vertex_count} vertices are defined above this face "
                   f"(legal: 1..{vertex_count} or -{vertex_count}..-1)")
    raise FormatError(f"{path}, line {number}: {problem}")
