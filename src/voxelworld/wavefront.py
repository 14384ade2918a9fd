"""Writing Wavefront OBJ and MTL text, for every OBJ file voxelworld writes (a navmesh, an exported world).

:class:`ObjWriter` collects the lines of one OBJ file: blocks of vertices (optionally with normals), numbered
across the whole file as OBJ wants; objects (``o``), material switches (``usemtl``) and faces that name vertices
of a block. :func:`mtl_text` gives the companion material library. Coordinates are written with six decimals
(micrometres), so the same arrays always give the same bytes. Readers: ``Scene.from_obj`` in
:mod:`voxelworld.navigation.scene`.

Examples
--------
>>> obj = ObjWriter()
>>> floor = obj.vertices([[0, 0, 0], [1, 0, 0], [0, 0, 1]])
>>> obj.object("floor")
>>> obj.triangles(floor, [[0, 2, 1]])
>>> print(obj.text().decode(), end="")
v 0.000000 0.000000 0.000000
v 1.000000 0.000000 0.000000
v 0.000000 0.000000 1.000000
o floor
f 1 3 2
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike

__all__ = ["ObjWriter", "VertexBlock", "mtl_text"]


@dataclass(frozen=True)
class VertexBlock:
    """Vertices written together: the OBJ number (from 1) of the first, and of its normal (None without normals).
    Faces name the block's vertices by their index in it (from 0)."""

    first: int
    first_normal: int | None


class ObjWriter:
    """The lines of one OBJ file, in the order the methods are called; :meth:`text` gives them as UTF-8 bytes."""

    def __init__(self) -> None:
        self._parts: list[str] = []
        self._vertex_count = 0
        self._normal_count = 0

    def line(self, statement: str, value: str) -> None:
        """Append one ``statement value`` line (``mtllib``, ``o``, ``usemtl``, ``#``, ...)."""
        self._parts.append(f"{statement} {value}\n")

    def object(self, name: str) -> None:
        """Start the object ``name`` (``o name``)."""
        self.line("o", name)

    def material(self, name: str) -> None:
        """Draw the faces that follow with material ``name`` of the library (``usemtl name``)."""
        self.line("usemtl", name)

    def vertices(self, positions: ArrayLike, normals: ArrayLike | None = None) -> VertexBlock:
        """Append vertices (m) and, when given, one normal per vertex (``vn``); return their block."""
        positions = np.asarray(positions, dtype=np.float64).reshape(-1, 3)
        block = VertexBlock(self._vertex_count + 1, None if normals is None else self._normal_count + 1)
        self._parts.append(("v %.6f %.6f %.6f\n" * len(positions)) % tuple(positions.ravel().tolist()))
        self._vertex_count += len(positions)
        if normals is not None:
            normals = np.asarray(normals, dtype=np.float64).reshape(-1, 3)
            if len(normals) != len(positions):
                raise ValueError(f"{len(normals)} normals for {len(positions)} vertices")
            self._parts.append(("vn %.6f %.6f %.6f\n" * len(normals)) % tuple(normals.ravel().tolist()))
            self._normal_count += len(normals)
        return block

    def triangles(self, block: VertexBlock, indices: ArrayLike) -> None:
        """Append one face per row of ``indices`` (m, 3): indices of ``block``'s vertices."""
        indices = np.asarray(indices, dtype=np.int64).reshape(-1, 3)
        if block.first_normal is None:
            numbers = indices + block.first
            template = "f %d %d %d\n"
        else:  # f v//vn: the vertex and its own normal
            numbers = np.stack([indices + block.first, indices + block.first_normal], axis=2)
            template = "f %d//%d %d//%d %d//%d\n"
        self._parts.append((template * len(indices)) % tuple(numbers.ravel().tolist()))

    def polygons(self, block: VertexBlock, start: ArrayLike, corners: ArrayLike,
                 which: Iterable[int] | None = None) -> None:
        """Append polygon faces (vertex numbers only): polygon ``q`` is ``corners[start[q]:start[q + 1]]``
        (indices of ``block``'s vertices, in winding order); ``which`` picks the polygons to write, in order
        (default: all)."""
        start = np.asarray(start, dtype=np.int64)
        numbers = (np.asarray(corners, dtype=np.int64) + block.first).tolist()
        for q in range(len(start) - 1) if which is None else which:
            self._parts.append("f " + " ".join(map(str, numbers[start[q]:start[q + 1]])) + "\n")

    def text(self) -> bytes:
        """The file's content."""
        return "".join(self._parts).encode("utf-8")


def mtl_text(materials: Iterable[tuple[str, tuple[float, float, float]]]) -> bytes:
    """A material library: one ``newmtl`` per ``(name, (red, green, blue))`` of ``materials``, its diffuse colour
    ``Kd`` (each in [0, 1], written as given) and no specular highlight.

    >>> print(mtl_text([("grass", (0.25, 0.5, 0.125))]).decode(), end="")
    newmtl grass
    Kd 0.250000 0.500000 0.125000
    Ks 0.000000 0.000000 0.000000
    illum 1
    <BLANKLINE>
    """
    blocks = []
    for name, (red, green, blue) in materials:
        blocks.append(f"newmtl {name}\nKd {red:.6f} {green:.6f} {blue:.6f}\nKs 0.000000 0.000000 0.000000\n"
                      "illum 1\n\n")
    return "".join(blocks).encode("utf-8")
