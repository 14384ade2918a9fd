"""Chunk meshes on the wire (play protocol 3): quantised whole meshes (kind 1) and patches (kind 4).

A chunk's display mesh is sent quantised (:class:`WireMesh`): positions as int16 steps from the chunk's corner,
normals octahedron-encoded as two int16, blend and occlusion as bytes, indices as uint16 where the chunk has at
most 65 536 vertices. A chunk that changed again is sent as a **patch** against the mesh the page has: the runs of
its vertices and triangles the page copies from its own copy (from anywhere in it: a remesh inserts and drops
vertices in several places), and the new ones. ``docs/specs/play-protocol.md`` gives the layouts.

Examples
--------
>>> import numpy as np
>>> from voxelworld.meshing import DisplayMesh
>>> mesh = DisplayMesh(np.float32([[0, 0, 0], [1, 0, 0], [0, 0, 1]]), np.float32([[0, 1, 0]] * 3),
...                    np.uint32([[0, 2, 1]]), np.uint8([4, 4, 4]), np.uint8([0, 0, 0]), np.float32([0, 0, 0]))
>>> old = wire_mesh(mesh, origin=(0.0, 0.0, 0.0), step=2.0 ** -11)
>>> data = encode_chunk_mesh((1, 0, 2), old, revision=1)
>>> len(data), data[0] == KIND_CHUNK
(96, True)
>>> chunk, revision, back = decode_chunk_mesh(data)
>>> chunk, revision, back == old
((1, 0, 2), 1, True)
>>> moved = DisplayMesh(np.float32([[0, 0, 0], [1, 0.25, 0], [0, 0, 1]]), mesh.normals, mesh.indices, mesh.mat_a,
...                     mesh.mat_b, mesh.blend)
>>> new = wire_mesh(moved, origin=(0.0, 0.0, 0.0), step=2.0 ** -11)
>>> patch = encode_chunk_patch((1, 0, 2), old, new, base=1, revision=2)
>>> decode_chunk_patch(patch, old)[2] == new  # (for a mesh this small the whole one is shorter: the server sends it)
True
"""

from __future__ import annotations

import math
import struct
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from ..meshing import DisplayMesh

__all__ = ["KIND_CHUNK", "KIND_CHUNK_PATCH", "MESH_VERSION", "CHUNK_HEADER", "PATCH_HEADER", "WireMesh",
           "wire_mesh", "chunk_step", "encode_chunk_mesh", "decode_chunk_mesh", "encode_chunk_patch",
           "decode_chunk_patch", "oct_encode", "oct_decode", "occlusion_bytes", "WireError"]

KIND_CHUNK, KIND_CHUNK_PATCH = 1, 4  # the first byte of a binary message
MESH_VERSION = 3  # the second byte of every binary message (3: quantised chunk meshes, patches, poses)
# kind, version, flags, chunk i, j, k, revision, vertices n, triangles m, origin x, y, z (m), step (m): 44 bytes
CHUNK_HEADER = struct.Struct("<BBHiiiIIIffff")
# kind, version, flags, chunk i, j, k, base revision, revision, old n, old m, n, m, vertex copies, triangle copies:
# 48 bytes
PATCH_HEADER = struct.Struct("<BBHiiiIIIIIIII")
WIDE_INDICES = 1  # flags bit: indices are u32 (the chunk has more than 65 536 vertices), else u16
QUANTA = 32767  # int16 steps either side of a chunk's corner
OCT_SCALE = 32767.0  # an octahedral normal's coordinates in [-1, 1] as int16


class WireError(ValueError):
    """Bytes that are not a chunk message of this version (too short, wrong kind or version, counts that do not
    fit, a patch for another base); :class:`~voxelworld.viewer.protocol.ProtocolError` derives the message."""


@dataclass(frozen=True, eq=False)
class WireMesh:
    """A chunk's display mesh as the wire carries it. ``positions`` (n, 3) int16: the vertex is at
    ``origin + positions * step`` (m); ``normals`` (n, 2) int16: octahedral (:func:`oct_decode`); ``indices``
    (m, 3) uint32; ``mat_a``, ``mat_b`` (n,) uint8; ``blend`` (n,) uint8: round(share of mat_b x 255);
    ``occlusion`` (n,) uint8: round(openness x 255). Two are equal (``==``) when every array and the frame are."""

    origin: tuple[float, float, float]  # m, float32 values
    step: float  # m, a power of two
    positions: np.ndarray
    normals: np.ndarray
    indices: np.ndarray
    mat_a: np.ndarray
    mat_b: np.ndarray
    blend: np.ndarray
    occlusion: np.ndarray

    @property
    def vertex_count(self) -> int:
        return len(self.positions)

    @property
    def triangle_count(self) -> int:
        return len(self.indices)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, WireMesh):
            return NotImplemented
        return (self.origin == other.origin and self.step == other.step
                and all(np.array_equal(getattr(self, name), getattr(other, name)) for name in _ARRAYS))

    # Unhashable, as __eq__ compares arrays (typeshed's object.__hash__ cannot be None: mypy issue #4266).
    __hash__ = None  # type: ignore[assignment]

    def records(self) -> np.ndarray:
        """Each vertex's 14 bytes (position, normal, mat_a, mat_b, blend, occlusion) as one row: what a patch
        compares."""
        n = self.vertex_count
        return np.concatenate([self.positions.view(np.uint8).reshape(n, 6), self.normals.view(np.uint8).reshape(n, 4),
                               self.mat_a[:, None], self.mat_b[:, None], self.blend[:, None], self.occlusion[:, None]],
                              axis=1)

    def display_mesh(self) -> DisplayMesh:
        """The mesh as the page draws it: positions ``origin + q * step`` rounded to float32, unit normals."""
        origin = np.array(self.origin, dtype=np.float64)
        positions = (origin + self.positions.astype(np.float64) * self.step).astype(np.float32)
        return DisplayMesh(positions.reshape(-1, 3), oct_decode(self.normals), self.indices.astype(np.uint32),
                           self.mat_a.copy(), self.mat_b.copy(), self.blend.astype(np.float32) / np.float32(255.0),
                           self.occlusion.astype(np.float32) / np.float32(255.0))


_ARRAYS = ("positions", "normals", "indices", "mat_a", "mat_b", "blend", "occlusion")


def chunk_step(extent: float) -> float:
    """The quantum (m) of a chunk ``extent`` m wide: the smallest power of two with which int16 steps reach 1.5
    extents either side of the chunk's corner (a chunk's vertices lie within it, or a cell beyond). Chunk corners
    are then whole numbers of steps apart (for power-of-two extents), so a vertex two chunks share is decoded
    alike in both.

    >>> chunk_step(8.0) == 2.0 ** -11  # 0.49 mm for the demo world's 16-voxel chunks of 0.5 m
    True
    """
    return 2.0 ** math.ceil(math.log2(max(1.5 * float(extent), 1e-30) / QUANTA))


def oct_encode(normals: np.ndarray) -> np.ndarray:
    """Unit vectors (n, 3) as octahedral coordinates (n, 2) int16 (each in [-32767, 32767]); a zero vector
    becomes (0, 0), which decodes to +z."""
    v = np.asarray(normals, dtype=np.float64).reshape(-1, 3)
    length = np.abs(v).sum(axis=1, keepdims=True)
    v = np.divide(v, length, out=np.zeros_like(v), where=length > 0)
    x, y, z = v[:, 0], v[:, 1], v[:, 2]
    sx, sy = np.where(x >= 0, 1.0, -1.0), np.where(y >= 0, 1.0, -1.0)
    folded = z < 0
    x, y = np.where(folded, (1 - np.abs(y)) * sx, x), np.where(folded, (1 - np.abs(x)) * sy, y)
    return np.round(np.clip(np.stack([x, y], axis=1), -1, 1) * OCT_SCALE).astype(np.int16)


def oct_decode(encoded: np.ndarray) -> np.ndarray:
    """Octahedral int16 coordinates (n, 2) back to unit float32 vectors (n, 3), as the page decodes them."""
    q = np.asarray(encoded, dtype=np.int16).reshape(-1, 2).astype(np.float32) / np.float32(OCT_SCALE)
    x, y = q[:, 0], q[:, 1]
    z = np.float32(1) - np.abs(x) - np.abs(y)
    t = np.maximum(-z, np.float32(0))
    x = x + np.where(x >= 0, -t, t)
    y = y + np.where(y >= 0, -t, t)
    v = np.stack([x, y, z], axis=1)
    return (v / np.linalg.norm(v, axis=1, keepdims=True)).astype(np.float32)


def occlusion_bytes(occlusion: ArrayLike) -> np.ndarray:
    """Values in [0, 1] (occlusion, blend) as the wire's u8 (round(value x 255)); values outside are clipped."""
    return np.round(np.clip(np.asarray(occlusion, dtype=np.float32), 0.0, 1.0) * np.float32(255.0)).astype(np.uint8)


def wire_mesh(mesh: DisplayMesh | None, origin: Sequence[float] = (0.0, 0.0, 0.0),
              step: float | None = None) -> WireMesh:
    """``mesh`` quantised for the wire, its positions counted in ``step`` m (default: :func:`chunk_step` of the
    mesh's own size) from ``origin`` (m; the chunk's corner). A step too small for the mesh to fit int16 is
    doubled until it fits. None or an empty mesh: no vertices (a chunk without surface)."""
    x, y, z = origin
    corner = (float(np.float32(x)), float(np.float32(y)), float(np.float32(z)))
    if mesh is None or mesh.triangle_count == 0:
        return WireMesh(corner, float(step or 1.0), np.zeros((0, 3), np.int16), np.zeros((0, 2), np.int16),
                        np.zeros((0, 3), np.uint32), *(np.zeros(0, np.uint8) for _ in range(4)))
    assert mesh.occlusion is not None  # DisplayMesh fills it (all open) when built without
    offsets = np.asarray(mesh.positions, dtype=np.float64).reshape(-1, 3) - np.array(corner)
    reach = float(np.abs(offsets).max(initial=0.0))
    step = chunk_step(reach / 1.5) if step is None else float(step)
    while reach / step > QUANTA - 0.5:
        step *= 2.0
    return WireMesh(corner, step, np.round(offsets / step).astype(np.int16), oct_encode(mesh.normals),
                    np.ascontiguousarray(mesh.indices, dtype=np.uint32).reshape(-1, 3),
                    np.ascontiguousarray(mesh.mat_a, dtype=np.uint8), np.ascontiguousarray(mesh.mat_b, dtype=np.uint8),
                    occlusion_bytes(mesh.blend), occlusion_bytes(mesh.occlusion))


# --------------------------------------------------------------------------------------------- encoding
def _pad(length: int) -> bytes:
    return bytes(-length % 4)


def _vertex_bytes(mesh: WireMesh, rows: slice | np.ndarray = slice(None)) -> bytes:
    """The vertex arrays of ``rows``: positions i16 x 3, padding, normals i16 x 2, mat_a, mat_b, blend, occlusion
    (u8 each), padding."""
    positions = np.ascontiguousarray(mesh.positions[rows], dtype="<i2").tobytes()
    count = len(positions) // 6
    return b"".join((positions, _pad(len(positions)), np.ascontiguousarray(mesh.normals[rows], "<i2").tobytes(),
                     mesh.mat_a[rows].tobytes(), mesh.mat_b[rows].tobytes(), mesh.blend[rows].tobytes(),
                     mesh.occlusion[rows].tobytes(), _pad(4 * count)))


def _index_bytes(indices: np.ndarray, wide: bool) -> bytes:
    data = np.ascontiguousarray(indices, dtype="<u4" if wide else "<u2").tobytes()
    return data + _pad(len(data))


def _wide(vertex_count: int) -> bool:
    return vertex_count > 65536


def encode_chunk_mesh(chunk: Sequence[int], mesh: WireMesh, revision: int = 0) -> bytes:
    """A chunk's whole mesh (kind 1): the 44-byte header (u8 kind = 1, u8 version = 3, u16 flags (1: u32
    indices), i32 chunk i, j, k, u32 revision, u32 vertices n, u32 triangles m, f32 origin x, y, z, f32 step),
    then positions i16[3n], zeros up to a multiple of 4, normals i16[2n], mat_a, mat_b, blend, occlusion u8[n]
    each, zeros up to a multiple of 4, indices u16[3m] (u32 with flag 1), zeros up to a multiple of 4. A mesh
    without triangles (n = m = 0) removes the chunk."""
    i, j, k = (int(c) for c in chunk)
    n, m = (mesh.vertex_count, mesh.triangle_count) if mesh.triangle_count else (0, 0)
    wide = _wide(n)
    head = CHUNK_HEADER.pack(KIND_CHUNK, MESH_VERSION, WIDE_INDICES if wide else 0, i, j, k,
                             int(revision) & 0xFFFFFFFF, n, m, *mesh.origin, mesh.step)
    if m == 0:
        return head
    return head + _vertex_bytes(mesh) + _index_bytes(mesh.indices, wide)


_KEY_WORDS = 3  # a row of up to 24 bytes as three 64-bit words
_MIX = np.array([0x9E3779B97F4A7C15, 0xC2B2AE3D27D4EB4F, 0x165667B19E3779F9], dtype=np.uint64)


def _row_words(rows: np.ndarray) -> np.ndarray:
    """Each row of ``rows`` (r, w) (its bytes, at most 24) as three 64-bit words (r, 3): equal rows, equal words."""
    data = np.ascontiguousarray(rows).view(np.uint8).reshape(len(rows), -1)
    padded = np.zeros((len(rows), 8 * _KEY_WORDS), dtype=np.uint8)
    padded[:, :data.shape[1]] = data
    return padded.view(np.uint64)


def _sources(old: np.ndarray, new: np.ndarray) -> np.ndarray:
    """For each row of ``new`` a row of ``old`` equal to it, -1 for none (rows as :func:`_row_words`): the k-th of
    equal rows in ``new`` is the k-th of them in ``old`` (equal triangles or vertices stay in one run). Rows are
    sorted by a hash of their words and every match is checked word by word (a hash shared by unequal rows costs a
    copy, never a wrong row)."""
    if len(old) == 0 or len(new) == 0:
        return np.full(len(new), -1, dtype=np.int64)
    old_words, new_words = _row_words(old), _row_words(new)
    old_hash, new_hash = (np.bitwise_xor.reduce(words * _MIX, axis=1) for words in (old_words, new_words))
    order = np.argsort(old_hash, kind="stable")
    ordered = old_hash[order]
    new_order = np.argsort(new_hash, kind="stable")
    grouped = new_hash[new_order]
    rank = np.empty(len(new_hash), dtype=np.int64)
    rank[new_order] = np.arange(len(grouped)) - np.searchsorted(grouped, grouped)  # (the k-th of its equals)
    at = np.searchsorted(ordered, new_hash) + rank
    source = order[np.minimum(at, len(ordered) - 1)]
    same = (at < len(ordered)) & (old_words[source] == new_words).all(axis=1)
    return np.where(same, source, -1)


def _copies(sources: np.ndarray) -> np.ndarray:
    """The copies of :func:`_sources`' answer: (new start, old start, count) of each run of new rows that are
    consecutive old rows, as an (r, 3) int64 array in the new rows' order."""
    copied = sources >= 0
    follows = np.zeros(len(sources), dtype=bool)
    follows[1:] = copied[1:] & copied[:-1] & (sources[1:] == sources[:-1] + 1)
    starts = np.flatnonzero(copied & ~follows)
    breaks = np.append(np.flatnonzero(~follows), len(sources))
    ends = breaks[np.searchsorted(breaks, starts, side="right")]
    return np.stack([starts, sources[starts], ends - starts], axis=1).astype(np.int64)


def _new_of_old(copies: np.ndarray, old_count: int, count: int) -> np.ndarray:
    """Where each of the ``old_count`` old vertices is among the ``count`` new ones (-1: gone), which is how the old
    triangles read in the new mesh: its first copy (``copies``: (new start, old start, count) rows); and where the new
    rows between two copies (or before the first, or after the last) replace as many old rows between them, none of
    them copied elsewhere, each takes the place of its old row (vertices moved in place)."""
    new_of_old = np.full(old_count, -1, dtype=np.int64)
    for new_start, old_start, length in copies[::-1].tolist():  # (written last: the first copy wins)
        new_of_old[old_start:old_start + length] = np.arange(new_start, new_start + length)
    ends = [(0, 0)] + [(new_start + length, old_start + length) for new_start, old_start, length in copies.tolist()]
    starts = [(new_start, old_start) for new_start, old_start, _ in copies.tolist()] + [(count, old_count)]
    for (new_end, old_end), (new_start, old_start) in zip(ends, starts):
        gap = new_start - new_end
        if gap > 0 and gap == old_start - old_end and (new_of_old[old_end:old_start] < 0).all():
            new_of_old[old_end:old_start] = np.arange(new_end, new_start)
    return new_of_old


def encode_chunk_patch(chunk: Sequence[int], old: WireMesh, new: WireMesh, base: int, revision: int) -> bytes | None:
    """The patch (kind 4) that turns ``old`` (the page's mesh of revision ``base``) into ``new`` (``revision``),
    or None when it cannot (another origin or step, or ``new`` has no triangles: send the whole mesh).

    Layout: the 48-byte header (u8 kind = 4, u8 version = 3, u16 flags (1: u32 indices), i32 chunk i, j, k, u32
    base, u32 revision, u32 old n, u32 old m, u32 n, u32 m, u32 vertex copies R, u32 triangle copies Q), the
    copies u32[3R] and u32[3Q] (new start, old start, count: rows ``new start ..`` are the page's rows ``old start
    ..``), then the new vertices not copied, in order (as in kind 1: positions, padding, normals, mat_a, mat_b,
    blend, occlusion, padding) and the new triangles not copied (u16 or u32 indices, padding). A copied triangle's
    indices are the old ones, each moved to where its vertex went (:func:`_new_of_old`: its first copy, or the new
    vertex in its place between two copies)."""
    if old.origin != new.origin or old.step != new.step or new.triangle_count == 0 or old.triangle_count == 0:
        return None
    i, j, k = (int(c) for c in chunk)
    vertex_sources = _sources(old.records(), new.records())
    vertex_copies = _copies(vertex_sources)
    moved = _new_of_old(vertex_copies, old.vertex_count, new.vertex_count)[old.indices.astype(np.int64)]
    triangle_sources = _sources(moved, new.indices.astype(np.int64))
    triangle_copies = _copies(triangle_sources)
    wide = _wide(new.vertex_count)
    head = PATCH_HEADER.pack(KIND_CHUNK_PATCH, MESH_VERSION, WIDE_INDICES if wide else 0, i, j, k,
                             int(base) & 0xFFFFFFFF, int(revision) & 0xFFFFFFFF, old.vertex_count,
                             old.triangle_count, new.vertex_count, new.triangle_count, len(vertex_copies),
                             len(triangle_copies))
    return b"".join((head, vertex_copies.astype("<u4").tobytes(), triangle_copies.astype("<u4").tobytes(),
                     _vertex_bytes(new, vertex_sources < 0), _index_bytes(new.indices[triangle_sources < 0], wide)))


# --------------------------------------------------------------------------------------------- decoding
def _take(data: bytes | bytearray | memoryview, offset: int, dtype: str, count: int,
          what: str) -> tuple[np.ndarray, int]:
    size = np.dtype(dtype).itemsize * count
    if offset + size > len(data):
        raise WireError(f"binary message too short: {what} needs bytes up to {offset + size}, has {len(data)}")
    return np.frombuffer(data, dtype=dtype, count=count, offset=offset).copy(), offset + size


def _header(data: bytes | bytearray | memoryview, header: struct.Struct, kind: int) -> tuple[Any, ...]:
    if not isinstance(data, (bytes, bytearray, memoryview)) or len(data) < header.size:
        raise WireError(f"binary message too short for its {header.size}-byte header")
    fields = header.unpack_from(data)
    if fields[0] != kind or fields[1] != MESH_VERSION:
        raise WireError(f"binary message of kind {fields[0]} version {fields[1]}, expected kind {kind} "
                        f"version {MESH_VERSION}")
    return fields


def _read_vertices(data: bytes | bytearray | memoryview, offset: int, count: int) -> tuple[dict[str, np.ndarray], int]:
    arrays = {}
    arrays["positions"], offset = _take(data, offset, "<i2", 3 * count, "positions")
    offset += -6 * count % 4
    arrays["normals"], offset = _take(data, offset, "<i2", 2 * count, "normals")
    for name in ("mat_a", "mat_b", "blend", "occlusion"):
        arrays[name], offset = _take(data, offset, "u1", count, name)
    arrays["positions"] = arrays["positions"].reshape(-1, 3)
    arrays["normals"] = arrays["normals"].reshape(-1, 2)
    return arrays, offset + (-4 * count % 4)


def _read_indices(data: bytes | bytearray | memoryview, offset: int, count: int, wide: bool) -> tuple[np.ndarray, int]:
    indices, offset = _take(data, offset, "<u4" if wide else "<u2", 3 * count, "indices")
    return indices.astype(np.uint32).reshape(-1, 3), offset + (-offset % 4)


def _end(data: bytes | bytearray | memoryview, offset: int) -> None:
    if offset > len(data):
        raise WireError(f"binary message too short: its padding needs bytes up to {offset}, has {len(data)}")
    if offset != len(data):
        raise WireError(f"binary message has {len(data) - offset} bytes after its arrays")


def decode_chunk_mesh(data: bytes | bytearray | memoryview) -> tuple[tuple[int, int, int], int, WireMesh]:
    """The chunk, its revision and its mesh from :func:`encode_chunk_mesh`'s bytes (no vertices: removed)."""
    _, _, flags, i, j, k, revision, n, m, x, y, z, step = _header(data, CHUNK_HEADER, KIND_CHUNK)
    arrays, offset = _read_vertices(data, CHUNK_HEADER.size, n)
    indices, offset = _read_indices(data, offset, m, bool(flags & WIDE_INDICES))
    _end(data, offset)
    if m and int(indices.max()) >= n:
        raise WireError(f"binary message's index {int(indices.max())} is out of range: the chunk has {n} vertices")
    return (i, j, k), revision, WireMesh((x, y, z), step, indices=indices, **arrays)


def decode_chunk_patch(data: bytes | bytearray | memoryview,
                       old: WireMesh) -> tuple[tuple[int, int, int], tuple[int, int], WireMesh]:
    """The chunk, (base, revision) and the new mesh from :func:`encode_chunk_patch`'s bytes applied to ``old``
    (the mesh of revision base), as a page applies it."""
    (_, _, flags, i, j, k, base, revision, old_n, old_m, n, m, vertex_copy_count,
     triangle_copy_count) = _header(data, PATCH_HEADER, KIND_CHUNK_PATCH)
    if (old_n, old_m) != (old.vertex_count, old.triangle_count):
        raise WireError(f"a patch for a mesh of {old_n} vertices and {old_m} triangles, not of "
                        f"{old.vertex_count} and {old.triangle_count}")
    offset = PATCH_HEADER.size
    vertex_copies, offset = _take(data, offset, "<u4", 3 * vertex_copy_count, "vertex copies")
    triangle_copies, offset = _take(data, offset, "<u4", 3 * triangle_copy_count, "triangle copies")
    vertex_copies = _checked_copies(vertex_copies, n, old_n, "vertex")
    triangle_copies = _checked_copies(triangle_copies, m, old_m, "triangle")
    literal, offset = _read_vertices(data, offset, n - int(vertex_copies[:, 2].sum()))
    indices, offset = _read_indices(data, offset, m - int(triangle_copies[:, 2].sum()), bool(flags & WIDE_INDICES))
    _end(data, offset)
    arrays = {name: _copied(getattr(old, name), n, vertex_copies, literal[name])
              for name in ("positions", "normals", "mat_a", "mat_b", "blend", "occlusion")}
    moved = _new_of_old(vertex_copies, old_n, n)[old.indices.astype(np.int64)]
    triangles = _copied(moved, m, triangle_copies, indices.astype(np.int64))
    if m and int(triangles.min()) < 0:
        raise WireError("a patch copies a triangle of a vertex the new mesh does not have")
    if m and int(triangles.max()) >= n:
        raise WireError(f"patched index {int(triangles.max())} is out of range: the chunk has {n} vertices")
    return (i, j, k), (base, revision), WireMesh(old.origin, old.step, indices=triangles.astype(np.uint32), **arrays)


def _checked_copies(copies: np.ndarray, count: int, old_count: int, what: str) -> np.ndarray:
    """A patch's copies (new start, old start, count) as an (r, 3) int64 array, each within the ``count`` new and
    ``old_count`` old rows and, in the new rows, after the one before."""
    copies = copies.astype(np.int64).reshape(-1, 3)
    ends = copies[:, 0] + copies[:, 2]
    if len(copies) and ((ends > count).any() or (copies[:, 1] + copies[:, 2] > old_count).any()
                        or (copies[1:, 0] < ends[:-1]).any()):
        rows = {"vertex": "vertices", "triangle": "triangles"}[what]
        raise WireError(f"a {what} copy past the {count} {rows} of the patch or the {old_count} of the page's mesh, "
                        f"or over the one before")
    return copies


def _copied(old: np.ndarray, count: int, copies: np.ndarray, literal: np.ndarray) -> np.ndarray:
    """``count`` rows: the copies of ``old``'s rows, and the ``literal`` ones in the rows between them in order."""
    new = np.empty((count,) + old.shape[1:], dtype=old.dtype)
    copied = np.zeros(count, dtype=bool)
    for new_start, old_start, length in copies.tolist():
        new[new_start:new_start + length] = old[old_start:old_start + length]
        copied[new_start:new_start + length] = True
    new[~copied] = literal  # (as many as the rows not copied: read so, the copies apart)
    return new
