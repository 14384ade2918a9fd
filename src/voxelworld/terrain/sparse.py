"""`SparseVolume`: a volume of real size, whose chunks are stored only where they hold a surface or an edit.

Per field, a chunk is either *uniform* (every voxel the same value: all air, all rock, no damage), kept as one
value in a grid of the chunks, or *stored*, an array of its own. Uniformity is per field, as in godot_voxel's
per-channel compression: a buried chunk of rock stores nothing, a chunk the surface crosses stores its density
and materials but not its damage until something damages it. Memory follows the surface, not the volume.

Edits gather the chunks around their voxel box into a window, run the same kernels as on a dense
:class:`~voxelworld.terrain.VoxelVolume` on it, and store the changed chunks back (a chunk that became uniform
again is one value again), so every edit, measurement and hash is the same, bit for bit, as on a dense volume of
the same content.

A volume may have a :class:`ChunkStore` behind it (a world file, :mod:`voxelworld.io`): the stored chunks of a
volume read from a file stay in the file until something reads them (:meth:`SparseVolume.keep_in_store`), and a
chunk the store holds as it is now can be let go of again (:meth:`SparseVolume.let_go`): memory follows what is
being used, not the whole surface. Reading such a chunk is reading the store; nothing else changes.

Examples
--------
>>> from voxelworld.terrain import SparseVolume, Sphere
>>> world = SparseVolume((256, 64, 256), voxel_size=0.5)
>>> result = world.add(Sphere((20.0, 10.0, 20.0), 3.0), "soil")
>>> world.stored_chunks("density"), world.stored_chunks("damage")
(1, 0)
>>> world.remove(Sphere((20.0, 10.0, 20.0), 5.0)).voxels_changed == result.voxels_changed
True
>>> world.stored_chunks("density"), world.stored_chunks("mat_a")  # air again: one value (the soil id stays)
(0, 1)
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Iterator, Mapping, Sequence
from itertools import product
from typing import Protocol, cast

import numpy as np
from numpy.typing import ArrayLike

from ..errors import FormatError, ParameterError, check_integer
from ..frame_first import step_aside
from . import _kernels
from .base import FIELD_DTYPES, FIELDS, WINDOW_HALO, Index3, Volume
from .materials import MaterialTable
from .shapes import Box
from .volume import VoxelVolume, extract_volume

__all__ = ["SparseVolume", "ChunkStore", "MAX_WINDOW_VOXELS"]

# The largest box gathered at once (an edit's window, read_window, extract): 6 bytes a voxel, 384 MiB.
MAX_WINDOW_VOXELS = 64 * 2 ** 20
# A bit a field, in the grid of the fields a store keeps for the volume (SparseVolume._away).
_BIT = {name: 1 << i for i, name in enumerate(FIELDS)}
_NOT = {name: 0xFF ^ bit for name, bit in _BIT.items()}  # the other bits (uint8: no negative masks)


class ChunkStore(Protocol):
    """Where the chunks of a :class:`SparseVolume` that are not in memory are kept (a world file). It is called
    from the thread that reads the volume (and a mesher's background thread), so it must be safe to call from
    several."""

    def read_chunk(self, chunk: tuple[int, int, int], names: tuple[str, ...],
                   shape: tuple[int, int, int]) -> dict[str, np.ndarray]:
        """The fields ``names`` of ``chunk`` (arrays of its voxels, of ``shape``; never written by the caller),
        as the store holds them; :class:`~voxelworld.errors.FormatError` when it cannot."""


class SparseVolume(Volume):
    """A box of density voxels like :class:`~voxelworld.terrain.VoxelVolume`, stored per chunk and field only
    where the chunk is not uniform.

    Parameters are those of :class:`~voxelworld.terrain.VoxelVolume`, with their limits; the shape is bounded by
    the number of chunks (``MAX_CHUNKS``) and voxels along an axis (``MAX_AXIS_VOXELS``), not by the number of
    voxels. A new volume is all air (density 0, no materials, no damage).

    Notes
    -----
    Read voxels with :meth:`read_window` (any box), write whole chunks with :meth:`write_chunk` (generators, file
    readers), and edit with the edit methods. :meth:`read_window` and :meth:`chunk_fields` hand out copies; a
    stored chunk is never written in place, so a :meth:`snapshot` shares the arrays until they change.
    """

    def __init__(self, shape: Sequence[int], voxel_size: float = 1.0, origin: ArrayLike = (0.0, 0.0, 0.0),
                 iso: int = 128, chunk_size: int = 32, materials: MaterialTable | None = None) -> None:
        super().__init__(shape, voxel_size, origin, iso, chunk_size, materials, dense=False)
        grid = self.chunk_grid_shape
        self._uniform = {name: np.zeros(grid, dtype=FIELD_DTYPES[name]) for name in FIELDS}
        self._stored: dict[str, dict[tuple[int, int, int], np.ndarray]] = {name: {} for name in FIELDS}
        # The store behind the volume, the fields of each chunk it holds and memory does not (_BIT), and the
        # chunk versions it holds (-1: none; a chunk is let go of only at the version the store holds).
        self._store: ChunkStore | None = None
        self._away = np.zeros(grid, dtype=np.uint8)
        self._memory = np.zeros(grid, dtype=np.uint8)  # the fields of each chunk stored in memory (_BIT)
        self._store_versions = np.full(grid, -1, dtype=np.int64)

    # ------------------------------------------------------------------------------------------ storage
    def stored_chunks(self, name: str | None = None) -> int:
        """How many chunks store an array of field ``name`` (of any field when None), in memory or in the store
        behind the volume: the others are uniform."""
        if name is None:
            return int(np.count_nonzero(self._memory | self._away))
        if name not in FIELDS:
            raise ParameterError("name", name, f"a field name among {', '.join(FIELDS)}, or None")
        return int(np.count_nonzero((self._memory | self._away) & _BIT[name]))

    def resident_chunks(self) -> int:
        """How many chunks hold an array of some field in memory (the others are uniform or in the store)."""
        return int(np.count_nonzero(self._memory))

    def resident_mask(self) -> np.ndarray:
        """Which chunks hold an array of some field in memory (a bool array of the chunk grid's shape)."""
        return self._memory != 0

    @property
    def field_bytes(self) -> int:
        """Bytes the voxels take in memory: the stored chunks' arrays (not those left in the store) and the grids
        of uniform values."""
        return sum(array.nbytes for name in FIELDS for array in self._stored[name].values()) + sum(
            grid.nbytes for grid in self._uniform.values())

    def is_uniform(self, chunk: Index3, name: str) -> bool:
        """Whether field ``name`` of ``chunk`` is one value throughout (stored as that value alone)."""
        chunk, name = self._checked_chunk(chunk), self._checked_name(name)
        return chunk not in self._stored[name] and not self._away[chunk] & _BIT[name]

    def uniform_fields(self, name: str) -> tuple[np.ndarray, np.ndarray]:
        """Where field ``name`` is one value throughout its chunk (a bool array of the chunk grid's shape: no array
        in memory or left in the store) and those values (a copy of the grid of uniform values, meaningful where
        uniform): :meth:`uniform_value` of every chunk at once, for a writer of every chunk (a world file)."""
        name = self._checked_name(name)
        return ((self._memory | self._away) & _BIT[name]) == 0, self._uniform[name].copy()

    def uniform_value(self, chunk: Index3, name: str) -> int | None:
        """The one value of field ``name`` throughout ``chunk`` when it is uniform (stored as that value), else
        None."""
        chunk, name = self._checked_chunk(chunk), self._checked_name(name)
        if chunk in self._stored[name] or self._away[chunk] & _BIT[name]:
            return None
        return int(self._uniform[name][chunk])

    def chunk_fields(self, chunk: Index3, names: Iterable[str] = FIELDS) -> dict[str, np.ndarray]:
        """The fields ``names`` of one chunk's voxels (:meth:`chunk_box`), by name: new arrays."""
        lo, hi = self.chunk_box(chunk)
        return self.read_window(lo, hi, names)

    def _set_chunk(self, chunk: tuple[int, int, int], fields: Mapping[str, np.ndarray]) -> None:
        for name, values in fields.items():
            self._keep(name, chunk, np.array(values, copy=True))

    def _keep(self, name: str, chunk: tuple, block: np.ndarray) -> None:
        """Store ``block`` (the chunk's whole field, owned by the volume from now on and never written in place:
        snapshots share it) or, uniform, its value."""
        first = block.flat[0]
        self._away[chunk] &= _NOT[name]
        if np.all(block == first):
            self._drop(name, chunk)
            self._uniform[name][chunk] = first
        else:
            self._put(name, chunk, block)

    def fill_chunk(self, chunk: Index3, name: str, value: int) -> None:
        """Set field ``name`` of every voxel of ``chunk`` to ``value`` (the chunk is then uniform in it): what
        :meth:`write_chunk` does with an array of one value, without making one. The chunk turns dirty.
        ParameterError for a value out of the field's range."""
        chunk, name = self._checked_chunk(chunk), self._checked_name(name)
        limits = np.iinfo(FIELD_DTYPES[name])
        check_integer("value", value, minimum=int(limits.min), maximum=int(limits.max))
        self._drop(name, chunk)
        self._away[chunk] &= _NOT[name]
        self._uniform[name][chunk] = value
        self._mark_chunks_dirty([chunk])

    def fill_chunks(self, name: str, where: np.ndarray, values: np.ndarray) -> None:
        """:meth:`fill_chunk` of every chunk where ``where`` (bool, the chunk grid's shape), each with its value in
        ``values`` (the field's dtype, the same shape), at once: how a reader of a file fills a large world's
        uniform chunks. ParameterError, before anything changes, for arrays of another shape or dtype."""
        name = self._checked_name(name)
        grid = self.chunk_grid_shape
        for label, array, dtype in (("where", where, np.dtype(bool)), ("values", values, FIELD_DTYPES[name])):
            if not (isinstance(array, np.ndarray) and array.shape == grid and array.dtype == dtype):
                raise ParameterError(label, type(array).__name__ if not isinstance(array, np.ndarray) else
                                     f"{array.dtype}{array.shape}", f"a {dtype} array of the chunk grid's shape {grid}")
        self._drop_where(name, where)
        self._away[where] &= _NOT[name]
        self._uniform[name][where] = values[where]
        self._chunk_versions[where] += 1  # as _mark_chunks_dirty does chunk by chunk
        self._revision += 1
        self._dirty.update((int(i), int(j), int(k)) for i, j, k in np.argwhere(where).tolist())

    def keep_chunks_in_store(self, name: str, where: np.ndarray) -> None:
        """:meth:`keep_in_store` of every chunk where ``where`` (bool, the chunk grid's shape), at once."""
        name = self._checked_name(name)
        grid = self.chunk_grid_shape
        if not (isinstance(where, np.ndarray) and where.shape == grid and where.dtype == bool):
            raise ParameterError("where", type(where).__name__ if not isinstance(where, np.ndarray) else
                                 f"{where.dtype}{where.shape}", f"a bool array of the chunk grid's shape {grid}")
        self._drop_where(name, where)
        self._away[where] |= _BIT[name]

    def _drop_where(self, name: str, where: np.ndarray) -> None:
        for chunk in [c for c in self._stored[name] if where[c]]:
            del self._stored[name][chunk]
        self._memory[where] &= _NOT[name]

    def _put(self, name: str, chunk: tuple, block: np.ndarray) -> None:
        self._stored[name][chunk] = block
        self._memory[chunk] |= _BIT[name]

    def _drop(self, name: str, chunk: tuple) -> np.ndarray | None:
        self._memory[chunk] &= _NOT[name]
        return self._stored[name].pop(chunk, None)

    def snapshot(self, names: Sequence[str] = FIELDS) -> SparseVolume:
        """A sparse volume of the same geometry sharing the stored chunks of the fields ``names`` (the volume
        never writes a stored chunk in place: an edit stores a new array), so a snapshot costs only the uniform
        grids until the volume changes."""
        copy = SparseVolume(self.shape, self.voxel_size, self.origin, self.iso, self.chunk_size, self.materials)
        for name in names:
            copy._uniform[name][...] = self._uniform[name]
            copy._stored[name] = dict(self._stored[name])
        copy._memory[...] = self._memory & sum(_BIT[name] for name in names)
        copy._store = self._store  # what is left in the store is read from it by the copy too (and kept there)
        copy._away[...] = self._away & sum(_BIT[name] for name in names)
        return copy

    def copy_chunk_to(self, target: Volume, chunk: Index3, names: Sequence[str] = FIELDS) -> None:
        """Copy the fields ``names`` of ``chunk`` into ``target``: shared when ``target`` is a snapshot."""
        if not isinstance(target, SparseVolume):
            return super().copy_chunk_to(target, chunk, names)
        chunk = cast("tuple[int, int, int]", tuple(chunk))
        away = int(self._away[chunk])
        if away and target._store is None:
            target._store = self._store  # a volume with nothing in a store takes its source's
        read = self._read_away(chunk, keep=False) if away and target._store is not self._store else {}
        for name in names:
            block = self._stored[name].get(chunk, read.get(name))
            if away & _BIT[name] and not read:  # left in the store they share
                target._drop(name, chunk)
                target._away[chunk] |= _BIT[name]
                continue
            target._away[chunk] &= _NOT[name]
            if block is None:
                target._drop(name, chunk)
                target._uniform[name][chunk] = self._uniform[name][chunk]
            else:
                target._put(name, chunk, block)

    # ----------------------------------------------------------------------------------- the store behind
    @property
    def store(self) -> ChunkStore | None:
        """The ChunkStore behind the volume, or None (read-only)."""
        return self._store

    def attach_store(self, store: ChunkStore) -> None:
        """Put ``store`` behind the volume: it holds every chunk as the volume is now (its chunk versions), so
        chunks the volume lets go of (:meth:`let_go`) are read from it again when needed. What the previous
        store held and memory does not must be in ``store`` too (a save copies it)."""
        self._store = store
        self._store_versions = self.chunk_versions.copy()

    def keep_in_store(self, chunk: Index3, name: str) -> None:
        """Leave field ``name`` of ``chunk`` (not uniform) in the store, to be read from it when something reads
        it: how a reader of a file builds a volume without reading its chunks (it attaches the store after)."""
        chunk, name = self._checked_chunk(chunk), self._checked_name(name)
        self._drop(name, chunk)
        self._away[chunk] |= _BIT[name]

    def left_in_store(self, chunk: Index3, name: str) -> bool:
        """Whether field ``name`` of ``chunk`` is left in the store (not in memory: read from it when needed)."""
        return bool(self._away[self._checked_chunk(chunk)] & _BIT[self._checked_name(name)])

    def let_go(self, where: np.ndarray) -> frozenset[tuple[int, int, int]]:
        """Let go of the arrays of the chunks marked in ``where`` (bool, :attr:`chunk_grid_shape`) that the store
        holds as they are now (unchanged since it was attached or written), to read them from it again when
        needed; a changed chunk stays (nothing unsaved is ever lost). Returns the chunks let go of (those that
        held arrays in memory); none without a store."""
        where = np.asarray(where)
        if where.shape != self.chunk_grid_shape or where.dtype != bool:
            raise ParameterError("where", f"{where.dtype}{where.shape}",
                                 f"a bool array of the chunk grid's shape {self.chunk_grid_shape}")
        if self._store is None:
            return frozenset()
        chunks = cast("frozenset[tuple[int, int, int]]", frozenset(map(tuple, np.argwhere(
            where & (self._memory != 0) & (self.chunk_versions == self._store_versions)).tolist())))
        for chunk in chunks:
            for name in FIELDS:
                if self._drop(name, chunk) is not None:
                    self._away[chunk] |= _BIT[name]
        return chunks

    def _away_chunks(self, bits: int) -> set[tuple[int, int, int]]:
        """The chunks with a field of ``bits`` left in the store."""
        return cast("set[tuple[int, int, int]]", set(map(tuple, np.argwhere(self._away & bits).tolist())))

    def _read_away(self, chunk: tuple, keep: bool) -> dict[str, np.ndarray]:
        """The fields of ``chunk`` left in the store, read from it (and kept in memory when ``keep``)."""
        names = tuple(name for name in FIELDS if self._away[chunk] & _BIT[name])
        store = self._store
        if store is None:
            raise FormatError(f"chunk {chunk}: fields {', '.join(names)} are left in a store, and none is attached")
        lo, hi = self.chunk_box(chunk)
        shape = cast("tuple[int, int, int]", tuple(int(n) for n in hi - lo))
        blocks = store.read_chunk(chunk, names, shape)
        for name in names:
            block = blocks.get(name) if isinstance(blocks, dict) else None
            if not (isinstance(block, np.ndarray) and block.shape == shape and block.dtype == FIELD_DTYPES[name]):
                given = f"{block.dtype}{block.shape}" if isinstance(block, np.ndarray) else type(block).__name__
                raise FormatError(f"chunk {chunk} field {name!r}: the store gave {given}, not a "
                                  f"{FIELD_DTYPES[name]} array of shape {shape}")
        if keep:
            for name in names:
                self._put(name, chunk, blocks[name])
            self._away[chunk] = 0
        return blocks

    def _block(self, name: str, chunk: tuple, keep: bool = True) -> np.ndarray | None:
        """The array of field ``name`` of ``chunk`` (read from the store if it is left there), None where the
        chunk is uniform."""
        block = self._stored[name].get(chunk)
        if block is None and self._away[chunk] & _BIT[name]:
            block = self._read_away(chunk, keep).get(name)
            if block is None:  # another thread (a mesher's workers) read and kept it meanwhile
                block = self._stored[name][chunk]
        return block

    @staticmethod
    def _checked_name(name: str) -> str:
        if name not in FIELDS:
            raise ParameterError("name", name, f"a field name among {', '.join(FIELDS)}")
        return name

    # ------------------------------------------------------------------------------------------ windows
    def _chunks_of(self, lo: np.ndarray, hi: np.ndarray) -> Iterator[tuple[int, ...]]:
        """The chunks that hold a voxel of the box ``lo .. hi - 1``."""
        size = self.chunk_size
        return product(*(range(int(a) // size, (int(b) - 1) // size + 1) for a, b in zip(lo, hi)))

    def _gather(self, lo: np.ndarray, hi: np.ndarray, names: Sequence[str], keep: bool = True) -> dict[str, np.ndarray]:
        step_aside()  # (on a background thread while a frame runs: voxelworld.frame_first)
        voxels = int(np.prod(hi - lo))
        if voxels > MAX_WINDOW_VOXELS:
            raise ParameterError("box", f"{(hi - lo).tolist()} voxels",
                                 f"at most MAX_WINDOW_VOXELS = {MAX_WINDOW_VOXELS} voxels gathered at once from a "
                                 f"SparseVolume (this box holds {voxels}): work on a smaller box")
        out = {name: np.empty(tuple(int(n) for n in hi - lo), dtype=FIELD_DTYPES[name]) for name in names}
        if voxels == 0:
            return out
        # Plain ints and slices made once per chunk, not per field: a window of the navmesh's tiles gathers
        # hundreds of chunks, and every collision or display surface a window of 27.
        size = self.chunk_size
        fields = [(out[name], self._stored[name], self._uniform[name], _BIT[name], name) for name in names]
        away = self._away
        axes = []
        for first, last in zip((int(v) for v in lo), (int(v) for v in hi)):
            axis = []
            for c in range(first // size, (last - 1) // size + 1):
                start = c * size
                a, b = max(start, first), min(start + size, last)  # within the box, so within the volume
                axis.append((c, slice(a - first, b - first), slice(a - start, b - start)))
            axes.append(axis)
        for ci, ti, si in axes[0]:
            for cj, tj, sj in axes[1]:
                for ck, tk, sk in axes[2]:
                    chunk, target, source = (ci, cj, ck), (ti, tj, tk), (si, sj, sk)
                    for window, stored, uniform, bit, name in fields:
                        block = stored.get(chunk)
                        if block is None and away[chunk] & bit:
                            block = self._block(name, chunk, keep)
                        if block is None:
                            window[target] = uniform[chunk]
                        else:
                            window[target] = block[source]
        return out

    def read_window(self, lo: ArrayLike, hi: ArrayLike, names: Iterable[str] = FIELDS) -> dict[str, np.ndarray]:
        """The fields ``names`` of the voxels ``lo .. hi - 1`` (index corners, ``hi`` exclusive, within the
        volume), by name: new arrays of shape ``hi - lo`` gathered from the chunks. ParameterError for a box of
        more than MAX_WINDOW_VOXELS voxels.

        >>> world = SparseVolume((64, 64, 64), chunk_size=16)
        >>> world.read_window((10, 0, 0), (30, 2, 2), ["density"])["density"].shape
        (20, 2, 2)
        """
        lo, hi, names = self._check_window(lo, hi, names)
        return self._gather(lo, hi, names)

    def read_voxel(self, index: ArrayLike) -> dict[str, int]:
        """Every field of the voxel ``index`` (i, j, k), by name: what ``read_window(index, index + 1)`` holds,
        read from its chunk directly (the HUD's aim reads a dozen voxels a frame: a window each cost 90 µs).

        >>> SparseVolume((64, 64, 64), chunk_size=16).read_voxel((1, 2, 3))["density"]
        0
        """
        at = np.asarray(index)
        if at.shape != (3,) or at.dtype.kind not in "iu" or not all(0 <= int(v) < n for v, n in zip(at, self.shape)):
            return super().read_voxel(index)  # (its checks name what is wrong)
        step_aside()
        size = self.chunk_size
        chunk = tuple(int(v) // size for v in at)
        local = tuple(int(v) - c * size for v, c in zip(at, chunk))
        voxel = {}
        for name in FIELDS:
            block = self._block(name, chunk)  # (None: the chunk is uniform in this field)
            voxel[name] = int(self._uniform[name][chunk] if block is None else block[local])
        return voxel

    def _edit_window(self, lo: np.ndarray, hi: np.ndarray) -> tuple[_kernels.VoxelFields, np.ndarray]:
        first = np.maximum(np.asarray(lo, dtype=np.int64) - WINDOW_HALO, 0)
        last = np.minimum(np.asarray(hi, dtype=np.int64) + 1 + WINDOW_HALO, np.array(self.shape, dtype=np.int64))
        window = self._gather(first, last, FIELDS)
        return _kernels.VoxelFields(*(window[name] for name in FIELDS)), first

    def _store_window(self, fields: _kernels.VoxelFields, offset: np.ndarray,
                      chunks: Iterable[tuple[int, int, int]]) -> None:
        end = offset + np.array(fields.density.shape, dtype=np.int64)
        for chunk in chunks:
            c_lo, c_hi = self.chunk_box(chunk)
            a, b = np.maximum(c_lo, offset), np.minimum(c_hi, end)
            source = tuple(slice(int(x - o), int(y - o)) for x, y, o in zip(a, b, offset))
            target = tuple(slice(int(x - o), int(y - o)) for x, y, o in zip(a, b, c_lo))
            whole = bool(np.all(a == c_lo) and np.all(b == c_hi))
            for name, values in zip(FIELDS, fields):
                part = values[source]
                old = self._block(name, chunk)
                if whole:
                    block = part.copy()
                elif old is None:
                    block = np.full(tuple(int(n) for n in c_hi - c_lo), self._uniform[name][chunk],
                                    dtype=FIELD_DTYPES[name])
                    block[target] = part
                else:
                    block = old.copy()  # never in place: a snapshot may share the old array
                    block[target] = part
                self._keep(name, chunk, block)

    # ---------------------------------------------------------------------------------------- measuring
    def _slabs(self, names: Sequence[str] = FIELDS) -> Iterator[dict[str, np.ndarray]]:
        """The volume in slabs along x (a chunk thick, or thinner to stay within MAX_WINDOW_VOXELS), each as fields
        by name: x-major, so the slabs' bytes in order are the whole field's bytes in C order."""
        nx, ny, nz = self.shape
        thickness = max(1, min(self.chunk_size, MAX_WINDOW_VOXELS // (ny * nz)))
        for x in range(0, nx, thickness):
            yield self._gather(np.array([x, 0, 0]), np.array([min(x + thickness, nx), ny, nz]), names, keep=False)

    def solid_volume(self) -> float:
        """Solid volume in m³: ``sum(density / 255) * voxel_volume``, as on a dense volume of the same voxels."""
        per_chunk = self._uniform["density"].astype(np.int64) * np.prod(self._chunk_extents(), axis=-1)
        for chunk in set(self._stored["density"]) | self._away_chunks(_BIT["density"]):
            block = cast(np.ndarray, self._block("density", chunk, keep=False))  # stored: not uniform
            per_chunk[chunk] = int(block.sum(dtype=np.int64))
        return int(per_chunk.sum()) * self.voxel_volume / 255.0

    def _chunk_extents(self) -> np.ndarray:
        """Voxels of each chunk along each axis, shape grid + (3,) (the last chunk on an axis may be partial)."""
        size = self.chunk_size
        axes = [np.minimum(size, n - np.arange(g) * size) for n, g in zip(self.shape, self.chunk_grid_shape)]
        return np.stack(np.meshgrid(*axes, indexing="ij"), axis=-1).astype(np.int64)

    def solid_volume_by_material(self) -> dict[str, float]:
        """Solid volume in m³ per material name, as :meth:`VoxelVolume.solid_volume_by_material`."""
        units = np.zeros(256, dtype=np.int64)
        names = ("density", "mat_a", "mat_b", "mix")
        bits = sum(_BIT[n] for n in names)
        stored = set().union(*(self._stored[n] for n in names), self._away_chunks(bits))
        counts = np.prod(self._chunk_extents(), axis=-1)
        uniform_chunks = np.ones(self.chunk_grid_shape, dtype=bool)
        for chunk in stored:
            uniform_chunks[chunk] = False
            fields = self._gather(*self.chunk_box(chunk), FIELDS, keep=False)
            _kernels.material_units(_kernels.VoxelFields(*(fields[n] for n in FIELDS)), units)
        d = self._uniform["density"][uniform_chunks].astype(np.int64) * counts[uniform_chunks]
        m = self._uniform["mix"][uniform_chunks].astype(np.int64)
        np.add.at(units, self._uniform["mat_a"][uniform_chunks], d * (255 - m))
        np.add.at(units, self._uniform["mat_b"][uniform_chunks], d * m)
        unit = self.voxel_volume / 65025.0
        material_names = self.materials.name_by_id
        return {material_names[i]: int(units[i]) * unit for i in np.flatnonzero(units)}

    def content_hash(self) -> str:
        """SHA-256 (hex) of the geometry, settings and all voxel fields: the same as
        :meth:`VoxelVolume.content_hash` of a dense volume of the same voxels."""
        digest = hashlib.sha256()
        digest.update(repr((self.shape, self.voxel_size, tuple(self.origin), self.iso, self.chunk_size)).encode())
        for name in FIELDS:
            for slab in self._slabs((name,)):
                digest.update(slab[name].tobytes())
        return digest.hexdigest()

    def extract(self, box: Box) -> VoxelVolume:
        """An independent dense :class:`~voxelworld.terrain.VoxelVolume` of the voxels whose samples lie in
        ``box`` (a world-space :class:`Box`), with its own origin at the first of them; same voxel size, iso, chunk
        size and materials."""
        return extract_volume(self, box)

    # -------------------------------------------------------------------------------------- conversions
    def to_dense(self) -> VoxelVolume:
        """The whole volume as a dense :class:`~voxelworld.terrain.VoxelVolume` (same geometry, voxels, chunk
        versions and dirty set). ParameterError when it holds more than MAX_VOXELS voxels."""
        dense = VoxelVolume(self.shape, self.voxel_size, self.origin, self.iso, self.chunk_size, self.materials)
        for chunk in product(*(range(n) for n in self.chunk_grid_shape)):
            window = dense.chunk_slices(chunk)
            for name, values in self._gather(*self.chunk_box(chunk), FIELDS, keep=False).items():
                getattr(dense, name)[window] = values
        dense.load_state_dict(self.state_dict())
        return dense

    @classmethod
    def from_volume(cls, volume: VoxelVolume) -> SparseVolume:
        """A sparse copy of a dense :class:`~voxelworld.terrain.VoxelVolume` (same geometry, voxels, chunk
        versions and dirty set).

        >>> from voxelworld.terrain import VoxelVolume
        >>> ground = VoxelVolume.from_sdf(lambda x, y, z: y - 20.0, (64, 64, 64), "soil", chunk_size=16)
        >>> sparse = SparseVolume.from_volume(ground)
        >>> sparse.content_hash() == ground.content_hash(), sparse.stored_chunks("density")
        (True, 16)
        """
        if not isinstance(volume, VoxelVolume):
            raise ParameterError("volume", volume, "a voxelworld.terrain.VoxelVolume")
        sparse = cls(volume.shape, volume.voxel_size, volume.origin, volume.iso, volume.chunk_size, volume.materials)
        for chunk in product(*(range(n) for n in volume.chunk_grid_shape)):
            window = volume.chunk_slices(chunk)
            for name in FIELDS:
                sparse._keep(name, chunk, getattr(volume, name)[window].copy())
        sparse.load_state_dict(volume.state_dict())
        return sparse

