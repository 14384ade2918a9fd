"""The chunk rows of a world file: their checksums and blobs, and :class:`WorldFileChunks`, the store behind a
:class:`~voxelworld.terrain.SparseVolume` read from (or saved to) a world file (format: docs/specs/world-format.md).

A large world's chunks are not read when its file is loaded (they are checked, then left in the file): the volume
reads a chunk from its store when something first reads it, and lets go of it again when the world moves away
(:meth:`~voxelworld.terrain.SparseVolume.let_go`). The store knows the SHA-256 of every row it may be asked for, as
this process last read or wrote it, so a row another writer changed since is refused, never read as this world's.
"""

from __future__ import annotations

import hashlib
import math
import sqlite3
import threading
import weakref
from collections import OrderedDict
from collections.abc import Iterable, Sequence
from pathlib import Path
from urllib.parse import quote

import numpy as np
import zstandard

from ..errors import FormatError
from ..terrain.base import FIELD_DTYPES
from .codec import array_from_bytes

__all__ = ["WorldFileChunks", "row_digest", "compressed", "chunk_label", "connect", "decompress", "RECENT_CHUNK_BYTES"]

# The bytes of voxels a WorldFileChunks keeps of the rows it read last. A mesh's window reads its chunk and the
# neighbours the next windows read again: sprinting over the 1 km world read each chunk it read about 18 times
# (45 000 reads of 2 500 chunks in 40 s, 13 s of the background threads' time); 32 MiB of the latest take 86 % of
# them.
RECENT_CHUNK_BYTES = 32 * 2 ** 20


def row_digest(label: str, payload: bytes) -> bytes:
    """The SHA-256 a row keeps of its key (``label``) and raw bytes."""
    return hashlib.sha256(label.encode("utf-8") + b"\n" + payload).digest()


def compressed(compressor: zstandard.ZstdCompressor, raw: bytes) -> bytes:
    """``raw`` compressed by ``compressor``, in a bytes object of its own size: zstandard's ``compress`` returns one
    that keeps the allocation of the worst case (about the raw size), so a list of thousands of them (a save's chunk
    rows, a bake's) would hold the raw bytes' memory, not the compressed ones'."""
    return bytes(memoryview(compressor.compress(raw)))


def chunk_label(chunk: Sequence[int], field: str, version: int) -> str:
    return f"chunk {chunk[0]},{chunk[1]},{chunk[2]} {field} v{version}"


def connect(path: Path, mode: str, threads: bool = False) -> sqlite3.Connection:
    """A connection to the SQLite file ``path`` (``mode`` ro or rw: never creates a file); ``threads``: usable
    from any thread (the caller serialises its use)."""
    uri = "file:" + quote(str(Path(path).absolute()), safe="/") + f"?mode={mode}"
    connection = sqlite3.connect(uri, uri=True, isolation_level=None, check_same_thread=not threads)
    connection.execute("PRAGMA synchronous=FULL")
    return connection


def _stream(decompressor: zstandard.ZstdDecompressor, data: bytes, raw_size: int, where: str) -> bytes:
    """What ``data`` decompresses to, read a MiB at a time, so that memory grows only with what the blob
    really holds; FormatError as soon as it holds more than ``raw_size`` bytes."""
    pieces: list[bytes] = []
    total = 0
    with decompressor.stream_reader(data) as reader:
        while piece := reader.read(min(2 ** 20, raw_size + 1 - total)):
            pieces.append(piece)
            total += len(piece)
            if total > raw_size:
                raise FormatError(f"{where}: the blob decompresses to more than {raw_size} bytes")
    return b"".join(pieces)


def decompress(decompressor: zstandard.ZstdDecompressor, data: object, raw_size: object, expected: int,
               where: str) -> bytes:
    """The ``raw_size`` bytes ``data`` decompresses to, where ``expected`` bytes are what the row must hold:
    FormatError, before anything is allocated, for another size (in the row or the blob's frame header)."""
    if not isinstance(data, bytes) or not isinstance(raw_size, int) or raw_size < 0:
        raise FormatError(f"{where}: the blob or its size is not stored as such")
    if raw_size != expected:
        raise FormatError(f"{where}: raw_size {raw_size} is not {expected}, the bytes it must hold")
    try:
        declared = zstandard.frame_content_size(data)  # -1: not in the frame header
        if declared not in (-1, raw_size):
            raise FormatError(f"{where}: the blob does not decompress to {raw_size} bytes (its frame says {declared})")
        raw = _stream(decompressor, data, raw_size, where)
    except zstandard.ZstdError as error:
        raise FormatError(f"{where}: the blob does not decompress (zstd: {error})") from error
    if len(raw) != raw_size:
        raise FormatError(f"{where}: decompressed to {len(raw)} bytes, not {raw_size}")
    return raw


class WorldFileChunks:
    """The chunk rows of the world file ``path`` a volume may read again: ``digests`` maps (chunk, field) to the
    SHA-256 of each row holding a chunk's voxels (not one value) as this process read or wrote it.

    A :class:`~voxelworld.terrain.ChunkStore`: :meth:`read_chunk` is safe from any thread (one connection, a lock).
    The arrays of the rows read last (:data:`RECENT_CHUNK_BYTES` of them) are kept, read-only, and handed out again
    while their row's checksum is the one the store knows.
    """

    def __init__(self, path: str | Path, digests: dict[tuple[tuple[int, ...], str], bytes]) -> None:
        self.path = Path(path).resolve()
        self.digests = digests
        self._connection = connect(self.path, "ro", threads=True)
        self._lock = threading.Lock()
        self._recent: OrderedDict[tuple, np.ndarray] = OrderedDict()  # (chunk, field, sha256) -> its voxels
        self._recent_bytes = 0
        weakref.finalize(self, self._connection.close)

    def row(self, chunk: tuple[int, ...], field: str) -> tuple:
        """The row of ``chunk``'s ``field`` as the file holds it (cx, cy, cz, field, version, raw_size, sha256,
        data): FormatError unless it is the row this store knows."""
        where = f"{self.path}: chunk {tuple(chunk)} field {field!r}"
        expected = self.digests.get((tuple(chunk), field))
        if expected is None:
            raise FormatError(f"{where}: not a row of voxels this world read or wrote")
        try:
            with self._lock:
                row = self._connection.execute("SELECT * FROM chunks WHERE cx = ? AND cy = ? AND cz = ? AND field = ?",
                                               (*map(int, chunk), field)).fetchone()
        except sqlite3.Error as error:
            raise FormatError(f"{where}: the world file cannot be read ({error})") from error
        if row is None or row[6] != expected:
            raise FormatError(f"{where}: the world file changed since this world read or wrote it (another writer?): "
                              "the chunk is no longer there")
        return row

    def read_chunk(self, chunk: tuple[int, int, int], names: Iterable[str],
                   shape: tuple[int, int, int]) -> dict[str, np.ndarray]:
        """The fields ``names`` of ``chunk`` (read-only arrays of its voxels, of ``shape``), checked against their
        checksums (those read lately are not read again)."""
        decompressor = zstandard.ZstdDecompressor()
        out: dict[str, np.ndarray] = {}
        for field in names:
            key = (tuple(chunk), field, self.digests.get((tuple(chunk), field)))
            with self._lock:
                recent = self._recent.get(key)
                if recent is not None and recent.shape == shape:
                    self._recent.move_to_end(key)
                    out[field] = recent
                    continue
            _, _, _, _, version, raw_size, digest, data = self.row(chunk, field)
            where = f"{self.path}: chunk {tuple(chunk)} field {field!r}"
            dtype = FIELD_DTYPES[field]
            raw = decompress(decompressor, data, raw_size, dtype.itemsize * math.prod(shape), where)
            if row_digest(chunk_label(chunk, field, version), raw) != digest:
                raise FormatError(f"{where}: checksum mismatch")
            out[field] = array = array_from_bytes(raw, dtype.name, tuple(shape), where)
            array.flags.writeable = False  # (shared by every reader: a volume stores a new array for an edit)
            with self._lock:
                if key not in self._recent:
                    self._recent[key] = array
                    self._recent_bytes += array.nbytes
                while self._recent_bytes > RECENT_CHUNK_BYTES:
                    self._recent_bytes -= self._recent.popitem(last=False)[1].nbytes
        return out
