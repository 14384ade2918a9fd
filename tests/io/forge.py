"""Forged world files for the tests: rows rewritten with checksums that pass (the checksums of
docs/specs/world-format.md), so that only the reader's checks of what the rows hold stand between them and a world."""

from __future__ import annotations

import hashlib
import json
import shutil
import sqlite3

import zstandard


def checksum(label: str, payload: bytes) -> bytes:
    """The SHA-256 of a row: its label, a newline, its payload."""
    return hashlib.sha256(label.encode("utf-8") + b"\n" + payload).digest()


def copy_of(path, to):
    shutil.copyfile(path, to)
    return to


def state_row(path, name: str):
    connection = sqlite3.connect(path)
    try:
        return json.loads(connection.execute("SELECT json FROM state WHERE name = ?", (name,)).fetchone()[0])
    finally:
        connection.close()


def write_state_text(path, name: str, text: str) -> None:
    """Put ``text`` in state row ``name``, with its checksum."""
    connection = sqlite3.connect(path)
    connection.execute("UPDATE state SET json = ?, sha256 = ? WHERE name = ?",
                       (text, checksum(f"state {name}", text.encode("utf-8")), name))
    connection.commit()
    connection.close()


def set_in_state(path, name: str, keys: list, value) -> None:
    """Set the value at ``keys`` (keys and indices into the row's JSON) of state row ``name`` to ``value``."""
    data = state_row(path, name)
    inner = data
    for key in keys[:-1]:
        inner = inner[key]
    inner[keys[-1]] = value
    write_state_text(path, name, json.dumps(data, separators=(",", ":")))


def write_chunk(path, chunk, field: str, raw: bytes, raw_size: int | None = None, content_size: bool = True):
    """Put ``raw`` (compressed, with or without its size in the frame) in a chunk row, with its checksum, and
    ``raw_size`` (default: its length)."""
    connection = sqlite3.connect(path)
    (version,) = connection.execute("SELECT version FROM chunks WHERE cx = ? AND cy = ? AND cz = ? AND field = ?",
                                    (*chunk, field)).fetchone()
    label = f"chunk {chunk[0]},{chunk[1]},{chunk[2]} {field} v{version}"
    blob = zstandard.ZstdCompressor(write_content_size=content_size).compress(raw)
    connection.execute("UPDATE chunks SET data = ?, raw_size = ?, sha256 = ? WHERE cx = ? AND cy = ? AND cz = ? "
                       "AND field = ?", (blob, len(raw) if raw_size is None else raw_size, checksum(label, raw),
                                         *chunk, field))
    connection.commit()
    connection.close()


def rewrite_array(path, name: str, dtype: str | None = None, shape: str | None = None, raw_size: int | None = None,
                  blob: bytes | None = None) -> None:
    """Change an array row's dtype, shape (JSON text), raw_size or blob, keeping a checksum over its label and the
    bytes its blob held."""
    connection = sqlite3.connect(path)
    old_dtype, old_shape, old_size, data = connection.execute(
        "SELECT dtype, shape, raw_size, data FROM arrays WHERE name = ?", (name,)).fetchone()
    raw = zstandard.ZstdDecompressor().decompress(data, max_output_size=old_size)
    dtype, shape = dtype or old_dtype, shape or old_shape
    connection.execute("UPDATE arrays SET dtype = ?, shape = ?, raw_size = ?, sha256 = ?, data = ? WHERE name = ?",
                       (dtype, shape, old_size if raw_size is None else raw_size,
                        checksum(f"array {name} {dtype} {shape}", raw), data if blob is None else blob, name))
    connection.commit()
    connection.close()
