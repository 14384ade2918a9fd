"""`Volume`: what every voxel volume shares, dense (:class:`~.volume.VoxelVolume`) or sparse
(:class:`~.sparse.SparseVolume`): its geometry, its chunks and their bookkeeping (versions, dirty set), and the edits.

A subclass stores the fields and hands the edit kernels a window of them: :meth:`Volume._edit_window` gives field
arrays that cover a voxel box with the halo the kernels read around it, and the voxel index of their first element;
:meth:`Volume._store_window` takes the changed chunks back. The kernels compute positions and chunks from voxel
indices of the whole volume, so an edit gives the same result, bit for bit, whichever way the fields are stored.
"""

from __future__ import annotations

import hashlib
import math
from collections.abc import Iterable, Mapping, Sequence
from typing import cast

import numpy as np
from numpy.typing import ArrayLike

from ..errors import ParameterError, check_finite, check_integer
from . import _kernels, edits, fragments
from .edits import EditResult, Tool
from .materials import MaterialTable
from .shapes import Box, Shape

__all__ = ["Volume", "FIELDS", "FIELD_DTYPES", "MAX_VOXELS", "MAX_CHUNKS", "MAX_AXIS_VOXELS", "BYTES_PER_VOXEL",
           "WINDOW_HALO", "MIN_VOXEL_SIZE", "MAX_VOXEL_SIZE", "MAX_COORDINATE", "check_volume_size",
           "check_geometry", "check_field_array"]

FIELDS = _kernels.VoxelFields._fields  # ("density", "mat_a", "mat_b", "mix", "damage")
FIELD_DTYPES: dict[str, np.dtype] = {"density": np.dtype(np.uint8), "mat_a": np.dtype(np.uint8),
                                     "mat_b": np.dtype(np.uint8), "mix": np.dtype(np.uint8),
                                     "damage": np.dtype(np.uint16)}
# Size limits of a volume (and of a world file's volume): the five fields take BYTES_PER_VOXEL bytes a voxel, so
# MAX_VOXELS (1024³) is 6 GiB of fields, a quarter of the 24 GiB machine the project is built on, before meshes.
# MAX_CHUNKS (128³) bounds the per-chunk bookkeeping (versions, dirty sets) a small chunk_size multiplies. A sparse
# volume stores only the chunks that are not uniform, so only MAX_CHUNKS bounds it, and MAX_AXIS_VOXELS: no axis
# (and no chunk edge) longer than a dense volume's could be, so that voxel indices, and the product of two of them,
# stay exact in int64 and float64.
BYTES_PER_VOXEL = sum(dtype.itemsize for dtype in FIELD_DTYPES.values())  # 6
MAX_VOXELS = 1024 ** 3
MAX_CHUNKS = 128 ** 3
MAX_AXIS_VOXELS = MAX_VOXELS
# Geometry limits: a voxel from a micrometre to a thousand kilometres, and every sample of a volume (from origin to
# origin + shape * voxel_size) within a million million metres of the world's origin, so that every coordinate,
# area and volume a volume makes (a voxel's volume, a sum of voxel volumes, squared distances) is a finite float64,
# and a finite float32 in meshes.
MIN_VOXEL_SIZE = 1e-6  # m
MAX_VOXEL_SIZE = 1e6  # m
MAX_COORDINATE = 1e12  # m
# Share of MAX_COORDINATE by which a computed corner may pass it: a part of a volume at the limit (extract), its
# origin and far corner computed again in floating point, is accepted as the volume was.
_ROUNDING = 1e-9
# Voxels an edit kernel reads around the box it changes: scrape's exposure one, the fragment fringe one (an erased
# fragment has no voxel on the region's outer layer, so its fringe and the fringe's neighbours stay within one).
WINDOW_HALO = 1
DEFAULT_TOOL = Tool()
# Voxel or chunk indices (i, j, k) a method checks itself: a tuple or list of three whole numbers, or an array of 3.
Index3 = Sequence[int] | np.ndarray


def check_volume_size(shape: tuple[int, int, int], chunk_size: int, dense: bool = True) -> None:
    """ParameterError unless a volume of ``shape`` (whole numbers >= 1) in chunks of ``chunk_size`` voxels a side
    (a whole number >= 1) is within the world-size limits: at most MAX_AXIS_VOXELS voxels along each axis and
    a chunk edge no longer, at most MAX_VOXELS voxels (when ``dense``: a sparse volume has no such bound) and at most
    MAX_CHUNKS chunks. Checked before anything is allocated, in constant time whatever the numbers."""
    voxels = math.prod(shape)
    if dense and voxels > MAX_VOXELS:
        raise ParameterError("shape", shape, f"at most MAX_VOXELS = {MAX_VOXELS} voxels ({BYTES_PER_VOXEL} bytes "
                             f"each); this shape holds {voxels} voxels and would need about "
                             f"{_gib(voxels * BYTES_PER_VOXEL)}: use a smaller shape (and a larger voxel_size), or "
                             f"a SparseVolume")
    if max(shape) > MAX_AXIS_VOXELS:
        raise ParameterError("shape", shape, f"three whole numbers in [1, MAX_AXIS_VOXELS = {MAX_AXIS_VOXELS}] "
                             "(voxels along x, y, z): use a larger voxel_size")
    if chunk_size > MAX_AXIS_VOXELS:
        raise ParameterError("chunk_size", chunk_size, f"a whole number in [1, MAX_AXIS_VOXELS = {MAX_AXIS_VOXELS}] "
                             "(voxels)")
    chunks = _chunk_count(shape, chunk_size)
    if chunks > MAX_CHUNKS:
        # The count falls as chunk_size grows: the smallest that fits, by bisection (at most 30 steps).
        low, high = chunk_size, max(shape)  # chunk_size is too small, one chunk of max(shape) fits
        while high - low > 1:
            middle = (low + high) // 2
            low, high = (low, middle) if _chunk_count(shape, middle) <= MAX_CHUNKS else (middle, high)
        raise ParameterError("chunk_size", chunk_size, f">= {high} for shape {shape}: at most MAX_CHUNKS = "
                             f"{MAX_CHUNKS} chunks (this chunk_size makes {chunks} chunks)")


def _chunk_count(shape: tuple[int, ...], chunk_size: int) -> int:
    return math.prod(-(-n // chunk_size) for n in shape)


def check_geometry(shape: tuple[int, int, int], voxel_size: float, origin: ArrayLike) -> tuple[float, np.ndarray]:
    """``voxel_size`` as a float and ``origin`` as a read-only float64 array of 3, if every sample of a volume of
    ``shape`` (checked) lies within MAX_COORDINATE m of the world's origin along each axis: ``origin`` in
    [-MAX_COORDINATE, MAX_COORDINATE] m, ``voxel_size`` in [MIN_VOXEL_SIZE, MAX_VOXEL_SIZE] m and small enough that
    ``origin + shape * voxel_size`` is in that range too; else ParameterError naming ``voxel_size`` or ``origin``."""
    voxel_size = check_finite("voxel_size", voxel_size, minimum=MIN_VOXEL_SIZE, maximum=MAX_VOXEL_SIZE, unit="m")
    origin_array = np.array(origin, dtype=np.float64) if is_numeric(origin) else None  # a copy: we freeze it
    limit = MAX_COORDINATE * (1.0 + _ROUNDING)
    if origin_array is None or origin_array.shape != (3,) or not np.all(np.abs(origin_array) <= limit):
        raise ParameterError("origin", origin, f"a point (x, y, z) of three numbers in [-MAX_COORDINATE, "
                             f"MAX_COORDINATE] = [{-MAX_COORDINATE:g}, {MAX_COORDINATE:g}] (m)")  # nan fails too
    far = origin_array + np.array(shape, dtype=np.float64) * voxel_size
    if not np.all(far <= limit):
        largest = min((MAX_COORDINATE - o) / n for o, n in zip(origin_array.tolist(), shape))
        raise ParameterError("voxel_size", voxel_size, f"a finite number in [{MIN_VOXEL_SIZE:g}, {largest:.6g}] (m) "
                             f"for shape {shape} and origin {tuple(origin_array.tolist())}: every sample, up to "
                             f"origin + shape * voxel_size, within MAX_COORDINATE = {MAX_COORDINATE:g} m")
    origin_array.flags.writeable = False
    return voxel_size, origin_array


def check_field_array(label: str, name: str, array: object, shape: tuple[int, int, int]) -> np.ndarray:
    """``array`` if it can hold the voxels of field ``name`` (of :data:`FIELDS`) for a kernel that writes them in
    place: a writeable, C-contiguous numpy array of ``shape`` and the field's dtype; else ParameterError naming
    ``label``. A transposed or strided view is refused, not copied: a copy would not be the array the caller holds,
    and a zero-stride view (``numpy.broadcast_to``, ``as_strided``) would have one element stand for many voxels."""
    dtype = FIELD_DTYPES[name]
    if not (isinstance(array, np.ndarray) and array.shape == shape and array.dtype == dtype
            and array.flags.writeable and array.flags.c_contiguous):
        given = array
        if isinstance(array, np.ndarray):
            given = f"array of shape {array.shape}, dtype {array.dtype}, strides {array.strides}" + (
                "" if array.flags.writeable else ", read-only")
        raise ParameterError(label, given, f"a writeable C-contiguous numpy array of shape {shape} and dtype {dtype} "
                                           "(numpy.ascontiguousarray(array) makes one)")
    return array


def _gib(size: int) -> str:
    return f"{size / 2**30:.3g} GiB" if size >= 2**30 else f"{size / 2**20:.3g} MiB"


def is_numeric(value: object) -> bool:
    try:
        np.asarray(value, dtype=np.float64)
    except (TypeError, ValueError):
        return False
    return True


class Volume:
    """A box of density voxels in chunks, edited by signed-distance update ranges: the geometry, the chunk
    bookkeeping and the edits every volume shares. Make a :class:`~voxelworld.terrain.VoxelVolume` (dense fields)
    or a :class:`~voxelworld.terrain.SparseVolume` (chunks stored only where they are not uniform); the parameters
    are theirs.
    """

    def __init__(self, shape: Sequence[int], voxel_size: float = 1.0, origin: ArrayLike = (0.0, 0.0, 0.0),
                 iso: int = 128, chunk_size: int = 32, materials: MaterialTable | None = None,
                 dense: bool = True) -> None:
        if not isinstance(shape, (tuple, list)) or len(shape) != 3:
            raise ParameterError("shape", shape, "three whole numbers >= 1 (voxels along x, y, z)")
        # The geometry is read-only (properties below): kernels take it unchecked.
        self._shape = cast("tuple[int, int, int]", tuple(  # three: checked above
            check_integer("shape", n, minimum=1, unit="voxels") for n in shape))
        self._iso = check_integer("iso", iso, minimum=1, maximum=255)
        self._chunk_size = check_integer("chunk_size", chunk_size, minimum=1, unit="voxels")
        check_volume_size(self._shape, self._chunk_size, dense)
        self._voxel_size, self._origin = check_geometry(self._shape, voxel_size, origin)
        self._shape_array = np.array(self._shape, dtype=np.int64)
        if materials is not None and not isinstance(materials, MaterialTable):
            raise ParameterError("materials", materials, "a MaterialTable or None")
        self._materials = materials if materials is not None else MaterialTable.default()
        self._dirty: set[tuple[int, int, int]] = set()
        self._chunk_versions = np.zeros(self.chunk_grid_shape, dtype=np.int64)
        self._revision = 0  # rises with any chunk version (revision)

    @property
    def shape(self) -> tuple[int, int, int]:
        """Voxels along x, y, z (read-only)."""
        return self._shape

    @property
    def voxel_size(self) -> float:
        """Edge of a voxel, m (read-only)."""
        return self._voxel_size

    @property
    def origin(self) -> np.ndarray:
        """World position of voxel (0, 0, 0)'s sample, m (read-only)."""
        return self._origin

    @property
    def iso(self) -> int:
        """Density at and above which a voxel is solid (read-only)."""
        return self._iso

    @property
    def chunk_size(self) -> int:
        """Edge of a chunk in voxels (read-only)."""
        return self._chunk_size

    @property
    def materials(self) -> MaterialTable:
        """The MaterialTable the ids refer to (read-only)."""
        return self._materials

    def _grid(self, offset: ArrayLike) -> _kernels.Grid:
        """Where the voxels sit, for a kernel reading field arrays whose element [0, 0, 0] is voxel ``offset``."""
        return _kernels.Grid(self.origin, self.voxel_size, self.iso, self.chunk_size, np.asarray(offset, np.int64))

    def _edit_window(self, lo: np.ndarray, hi: np.ndarray) -> tuple[_kernels.VoxelFields, np.ndarray]:
        """Field arrays an edit kernel may read and write for the inclusive voxel box ``lo..hi`` (within the
        volume), covering it and WINDOW_HALO voxels around it where the volume goes on, and the voxel index of
        their element [0, 0, 0]."""
        raise NotImplementedError

    def _store_window(self, fields: _kernels.VoxelFields, offset: np.ndarray,
                      chunks: Iterable[tuple[int, int, int]]) -> None:
        """Take back the voxels of ``chunks`` (those an edit changed) from a window of :meth:`_edit_window`."""
        raise NotImplementedError

    def read_window(self, lo: ArrayLike, hi: ArrayLike, names: Iterable[str] = FIELDS) -> dict[str, np.ndarray]:
        """The fields ``names`` of the voxels ``lo .. hi - 1`` (index corners, ``hi`` exclusive, within the
        volume), by name: read-only arrays of shape ``hi - lo``. Use it to read a box of any volume, dense or
        sparse."""
        raise NotImplementedError

    def write_chunk(self, chunk: Index3, fields: Mapping[str, np.ndarray]) -> None:
        """Set fields of one chunk's voxels: ``fields`` maps field names (some or all of :data:`FIELDS`) to arrays
        of the chunk's shape (its :meth:`chunk_box`) and the field's dtype, copied. The chunk turns dirty.
        ParameterError, before anything changes, for an unknown field or an array of the wrong shape or dtype."""
        chunk = self._checked_chunk(chunk)
        lo, hi = self.chunk_box(chunk)
        shape = tuple(int(n) for n in hi - lo)
        if not (isinstance(fields, Mapping) and fields and set(fields) <= set(FIELDS)):
            raise ParameterError("fields", sorted(map(str, fields)) if isinstance(fields, Mapping) else fields,
                                 f"a mapping from some of the field names {', '.join(FIELDS)} to arrays")
        for name, array in fields.items():
            if not (isinstance(array, np.ndarray) and array.shape == shape and array.dtype == FIELD_DTYPES[name]):
                given = f"{array.dtype}{array.shape}" if isinstance(array, np.ndarray) else type(array).__name__
                raise ParameterError(f"fields[{name!r}]", given, f"a {FIELD_DTYPES[name]} array of shape {shape}")
        self._set_chunk(chunk, fields)
        self._mark_chunks_dirty([chunk])

    def _set_chunk(self, chunk: tuple[int, int, int], fields: Mapping[str, np.ndarray]) -> None:
        """Copy the checked ``fields`` into ``chunk``."""
        raise NotImplementedError

    def snapshot(self, names: Sequence[str] = FIELDS) -> Volume:
        """A volume of the same kind and geometry holding a copy of the fields ``names`` (the others empty), to
        remember what was seen (a mesher's copy): keep it current chunk by chunk with :meth:`copy_chunk_to`."""
        raise NotImplementedError

    def copy_chunk_to(self, target: Volume, chunk: Index3, names: Sequence[str] = FIELDS) -> None:
        """Copy the fields ``names`` of ``chunk`` into ``target`` (a :meth:`snapshot` of this volume), without
        marking anything dirty."""
        lo, hi = self.chunk_box(chunk)
        target._set_chunk(tuple(chunk), self.read_window(lo, hi, names))

    def let_go(self, where: np.ndarray) -> frozenset[tuple[int, int, int]]:
        """Let go of the voxels of the chunks marked in ``where`` where a store behind the volume holds them as
        they are (a :class:`~.sparse.SparseVolume`'s): the chunks let go of. A dense volume keeps every voxel:
        none."""
        return frozenset()

    def _checked_chunk(self, chunk: Index3) -> tuple[int, int, int]:
        grid = self.chunk_grid_shape
        if isinstance(chunk, (str, bytes)) or not hasattr(chunk, "__len__") or len(chunk) != 3:
            raise ParameterError("chunk", chunk, f"chunk indices (i, j, k) within the grid {grid}")
        return cast("tuple[int, int, int]", tuple(check_integer("chunk", c, minimum=0, maximum=n - 1)
                                                  for c, n in zip(chunk, grid)))

    def uniform_value(self, chunk: Index3, name: str) -> int | None:
        """The one value of field ``name`` throughout ``chunk`` when the volume knows it without reading the
        voxels (a sparse volume's uniform chunks), else None (a dense volume always says None)."""
        return None

    def read_voxel(self, index: ArrayLike) -> dict[str, int]:
        """Every field of the voxel ``index`` (i, j, k), by name.

        >>> from voxelworld.terrain import VoxelVolume
        >>> VoxelVolume((4, 4, 4)).read_voxel((1, 2, 3))["density"]
        0
        """
        lo = np.asarray(index, dtype=np.int64)
        return {name: int(values[0, 0, 0]) for name, values in self.read_window(lo, lo + 1).items()}

    def dominant_material(self, index: ArrayLike) -> int:
        """The material id with the larger share of voxel ``index`` (i, j, k): ``mat_b`` when ``mix > 127``, else
        ``mat_a`` (what the tools' hardness gate and the contacts read)."""
        voxel = self.read_voxel(index)
        return voxel["mat_b"] if voxel["mix"] > 127 else voxel["mat_a"]

    def _check_window(self, lo: ArrayLike, hi: ArrayLike,
                      names: Iterable[str]) -> tuple[np.ndarray, np.ndarray, tuple[str, ...]]:
        lo = np.asarray(lo, dtype=np.int64)
        hi = np.asarray(hi, dtype=np.int64)
        shape = np.array(self.shape, dtype=np.int64)
        if lo.shape != (3,) or hi.shape != (3,) or np.any(lo < 0) or np.any(hi > shape) or np.any(hi < lo):
            raise ParameterError("lo, hi", (lo.tolist(), hi.tolist()),
                                 f"index corners with 0 <= lo <= hi <= {list(self.shape)}")
        names = tuple(names)
        for name in names:
            if name not in FIELDS:
                raise ParameterError("names", name, f"field names among {', '.join(FIELDS)}")
        return lo, hi, names

    # ----------------------------------------------------------------------------------------- geometry
    @property
    def voxel_volume(self) -> float:
        """Volume of one voxel in m³."""
        return self.voxel_size ** 3

    @property
    def chunk_grid_shape(self) -> tuple[int, int, int]:
        """Number of chunks along x, y, z (the last chunk on an axis may be partial)."""
        return tuple(-(-n // self.chunk_size) for n in self.shape)  # type: ignore[return-value]  # three axes

    def chunk_box(self, chunk: Index3) -> tuple[np.ndarray, np.ndarray]:
        """The voxel index box of ``chunk`` (i, j, k): ``lo`` (inclusive) and ``hi`` (exclusive), int64, clipped
        to the volume (the last chunk on an axis may be partial). The one place chunk indices become voxel
        indices.

        Examples
        --------
        >>> from voxelworld.terrain import VoxelVolume
        >>> volume = VoxelVolume((40, 16, 32), chunk_size=16)
        >>> [box.tolist() for box in volume.chunk_box((2, 0, 1))]
        [[32, 0, 16], [40, 16, 32]]
        """
        lo = np.array(self._checked_chunk(chunk), dtype=np.int64) * self.chunk_size
        return lo, np.minimum(lo + self.chunk_size, np.array(self.shape, dtype=np.int64))

    def chunk_slices(self, chunk: Index3) -> tuple[slice, slice, slice]:
        """:meth:`chunk_box` as index slices: ``volume.density[volume.chunk_slices(chunk)]`` is the chunk's voxels.

        >>> from voxelworld.terrain import VoxelVolume
        >>> VoxelVolume((40, 16, 32), chunk_size=16).chunk_slices((2, 0, 1))
        (slice(32, 40, None), slice(0, 16, None), slice(16, 32, None))
        """
        lo, hi = self.chunk_box(chunk)
        return tuple(slice(int(a), int(b)) for a, b in zip(lo, hi))  # type: ignore[return-value]  # three axes

    def world_to_index(self, points: ArrayLike) -> np.ndarray:
        """Continuous voxel coordinates ``(points - origin) / voxel_size`` of world points (m), shape (..., 3)."""
        return (np.asarray(points, dtype=np.float64) - self.origin) / self.voxel_size

    def index_to_world(self, indices: ArrayLike) -> np.ndarray:
        """World position (m) of the samples at voxel coordinates ``indices``, shape (..., 3)."""
        return self.origin + np.asarray(indices, dtype=np.float64) * self.voxel_size

    def voxel_box(self, shape: Shape, reach: float = 0.0) -> tuple[np.ndarray, np.ndarray] | None:
        """Inclusive index corners ``(lo, hi)`` of the voxels whose samples lie in ``shape``'s bounding box
        grown by ``reach`` metres, clipped to the volume; None when no voxel does."""
        edits.check_shape(shape)
        reach = check_finite("reach", reach, minimum=0.0, unit="m")
        box = np.empty((2, 3), dtype=np.int64)
        if not _kernels.voxel_box(shape.primitives(), reach, self.origin, self.voxel_size, self._shape_array,
                                  box):
            return None
        return box[0], box[1]

    # ------------------------------------------------------------------------------------------- dirt
    def take_dirty_chunks(self) -> set[tuple[int, int, int]]:
        """The chunks (cx, cy, cz) changed since the last call, and forget them."""
        dirty, self._dirty = self._dirty, set()
        return dirty

    @property
    def dirty_chunks(self) -> frozenset[tuple[int, int, int]]:
        """The chunks changed since the last :meth:`take_dirty_chunks`, without forgetting them."""
        return frozenset(self._dirty)

    @property
    def chunk_versions(self) -> np.ndarray:
        """A read-only view of each chunk's change counter ``[cx, cy, cz]``: it rises whenever a field of the
        chunk changes. Consumers that must not steal each other's dirty sets (a mesher, a store) remember the
        versions they have seen instead of calling :meth:`take_dirty_chunks`."""
        view = self._chunk_versions.view()
        view.flags.writeable = False
        return view

    @property
    def revision(self) -> int:
        """A counter that rises whenever a chunk's version does (:attr:`chunk_versions`): equal between two reads
        only when no chunk changed between them (what a consumer checks before looking at every chunk's version)."""
        return self._revision

    def state_dict(self) -> dict:
        """The volume's bookkeeping besides its fields (the voxels are the public field arrays): ``chunk_versions``
        (a copy of :attr:`chunk_versions`) and ``dirty`` (:attr:`dirty_chunks`)."""
        return {"chunk_versions": self._chunk_versions.copy(), "dirty": self.dirty_chunks}

    def load_state_dict(self, state: object) -> None:
        """Take back a :meth:`state_dict` (a volume read from a file: its fields written directly, its counters
        and dirty set as they were). ParameterError, before anything changes, for a missing key, versions that
        are not whole numbers >= 0 of shape :attr:`chunk_grid_shape`, or a dirty chunk outside the grid.

        >>> from voxelworld.terrain import VoxelVolume
        >>> volume = VoxelVolume((8, 8, 8), chunk_size=4)
        >>> volume.mark_dirty((0, 0, 0), (4, 0, 0))
        >>> copy = VoxelVolume((8, 8, 8), chunk_size=4)
        >>> copy.load_state_dict(volume.state_dict())
        >>> sorted(copy.dirty_chunks), int(copy.chunk_versions.sum())
        ([(0, 0, 0), (1, 0, 0)], 2)
        """
        if not (isinstance(state, Mapping) and "chunk_versions" in state and "dirty" in state):
            raise ParameterError("state", sorted(state) if isinstance(state, Mapping) else type(state).__name__,
                                 "a mapping with the keys chunk_versions, dirty")
        versions = np.asarray(state["chunk_versions"])
        grid = self.chunk_grid_shape
        if versions.shape != grid or versions.dtype.kind not in "iu" or (versions.size and versions.min() < 0):
            raise ParameterError("state['chunk_versions']", f"an array of {versions.dtype} and shape {versions.shape}",
                                 f"whole numbers >= 0 of shape {grid}")
        dirty: set[tuple[int, int, int]] = set()
        for chunk in state["dirty"]:
            if not (isinstance(chunk, tuple) and len(chunk) == 3 and all(
                    isinstance(c, (int, np.integer)) and 0 <= c < n for c, n in zip(chunk, grid))):
                raise ParameterError("state['dirty']", chunk, f"chunks (i, j, k) of the grid {grid}")
            dirty.add((int(chunk[0]), int(chunk[1]), int(chunk[2])))
        self._chunk_versions[...] = versions  # in place: views of the counters stay valid
        self._revision += 1
        self._dirty = dirty

    def mark_dirty(self, lo: Index3, hi: Index3) -> None:
        """Mark the chunks of the inclusive voxel index box ``lo..hi`` dirty (after writing fields directly)."""
        for name, corner in (("lo", lo), ("hi", hi)):
            if isinstance(corner, (str, bytes)) or len(corner) != 3:
                raise ParameterError(name, corner, "three voxel indices (i, j, k)")
        lo = [check_integer("lo", v, minimum=0, maximum=n - 1) for v, n in zip(lo, self.shape)]
        hi = [check_integer("hi", v, minimum=a, maximum=n - 1) for v, a, n in zip(hi, lo, self.shape)]
        c = self.chunk_size
        self._mark_chunks_dirty(
            (x, y, z) for x in range(lo[0] // c, hi[0] // c + 1) for y in range(lo[1] // c, hi[1] // c + 1)
            for z in range(lo[2] // c, hi[2] // c + 1))

    def _mark_chunks_dirty(self, chunks: Iterable[tuple[int, int, int]]) -> None:
        for chunk in chunks:
            self._dirty.add(chunk)
            self._chunk_versions[chunk] += 1
            self._revision += 1

    def chunk_hash(self, chunk: Index3) -> str:
        """SHA-256 (hex) of one chunk's fields (its voxels in C order, field by field): equal for equal chunks of
        any two volumes, dense or sparse, of the same chunk size."""
        digest = hashlib.sha256()
        for values in self.read_window(*self.chunk_box(chunk)).values():
            digest.update(np.ascontiguousarray(values).tobytes())
        return digest.hexdigest()

    def extract(self, box: Box) -> Volume:
        """An independent dense :class:`~voxelworld.terrain.VoxelVolume` of the voxels whose samples lie in
        ``box`` (a world-space :class:`Box`), with its own origin at the first of them; same voxel size, iso, chunk
        size and materials. Each kind of volume gives it through :func:`voxelworld.terrain.volume.extract_volume`
        (the dense volume is a kind of this one: it lives above it)."""
        raise NotImplementedError

    # ------------------------------------------------------------------------------------------ edits
    def remove(self, shape: Shape, tool: Tool = DEFAULT_TOOL) -> EditResult:
        """Carve ``shape`` out smoothly: ``density = min(old, ramp(sdf))``, through ``tool``'s hardness gate.

        The ramp rises 127.5 density steps per voxel of signed distance, crossing ``iso`` on the shape's
        surface, so the new surface follows the shape to sub-voxel accuracy. Materials are kept.
        """
        return edits.remove(self, shape, tool)

    def add(self, shape: Shape, material: str | int) -> EditResult:
        """Build ``shape`` up: ``density = max(old, ramp(-sdf))``; every voxel that gains density becomes wholly
        ``material`` (name or id) with no damage."""
        return edits.add(self, shape, material)

    def paint(self, shape: Shape, material: str | int) -> EditResult:
        """Give every voxel whose sample lies inside ``shape`` the one ``material`` (both slots); density is kept."""
        return edits.paint(self, shape, material)

    def expose_interior(self, shape: Shape) -> EditResult:
        """Inside ``shape``, replace ``mat_a`` and ``mat_b`` each by its material's interior (grass -> soil,
        bark -> wood, rock -> rock_interior). Use a range a little larger than a carve so its rim shows inside."""
        return edits.expose_interior(self, shape)

    def convert(self, shape: Shape, source: str | int, target: str | int) -> EditResult:
        """Inside ``shape``, turn material ``source`` into ``target`` (names or ids of the table, neither "none",
        not the same) in both slots of every voxel whose sample lies in it; density, mix, damage and other
        materials are kept. The converted volume is reported as removed from ``source`` and added to ``target``
        (``volume_removed`` and ``volume_added`` stay 0); only the chunks whose voxels changed turn dirty.

        Examples
        --------
        >>> from voxelworld.terrain import VoxelVolume, Sphere
        >>> pool = VoxelVolume.from_sdf(lambda x, y, z: y - 4.0, (12, 12, 12), "lava", chunk_size=4)
        >>> result = pool.convert(Sphere((6.0, 4.0, 6.0), 2.0), "lava", "obsidian")
        >>> sorted(result.added_by_material), result.volume_removed
        (['obsidian'], 0.0)
        >>> sorted(result.dirty_chunks)  # of the 8 chunks its bounding box spans, the ball reaches 4
        [(1, 0, 1), (1, 1, 1), (1, 1, 2), (2, 1, 1)]
        """
        return edits.convert(self, shape, source, target)

    def scrape(self, shape: Shape, step: int, tool: Tool = DEFAULT_TOOL) -> EditResult:
        """Peel the surface inside ``shape``: a voxel loses ``step`` density (1..255) only if some voxel of its
        3x3x3 neighbourhood (itself included, within the volume) was below iso before this call, so repeated
        calls remove the surface layer by layer and never hollow the inside. Hardness-gated like ``remove``, but
        the gate hits every voxel with density inside ``shape``, exposed or not: hidden rock gathers damage and
        gives way as soon as it is exposed."""
        return edits.scrape(self, shape, step, tool)

    def remove_fragments(self, region: Box | None = None) -> EditResult:
        """Erase small floating pieces inside ``region`` (a world :class:`Box`; the whole volume when None).

        See :func:`voxelworld.terrain.fragments.remove_fragments` for the rule."""
        return fragments.remove_fragments(self, region)

    def __repr__(self) -> str:
        return (f"{type(self).__name__}(shape={self.shape}, voxel_size={self.voxel_size}, "
                f"origin={tuple(self.origin)}, iso={self.iso}, chunk_size={self.chunk_size})")
