"""`VoxelVolume`: the dense density-voxel field that terrain edits change and meshing reads."""

from __future__ import annotations

import hashlib
import math
from collections.abc import Callable, Mapping

import numpy as np

from ..errors import ParameterError, check_finite, check_integer
from . import _kernels, edits, fragments, generators
from .edits import EditResult, Tool
from .materials import MaterialTable
from .shapes import Box, Shape

__all__ = ["VoxelVolume", "FIELDS", "MAX_VOXELS", "MAX_CHUNKS", "BYTES_PER_VOXEL", "check_volume_size"]

FIELDS = _kernels.VoxelFields._fields  # ("density", "mat_a", "mat_b", "mix", "damage")
_DTYPES = {"density": np.uint8, "mat_a": np.uint8, "mat_b": np.uint8, "mix": np.uint8, "damage": np.uint16}
# Size limits of a volume (and of a world file's volume): the five fields take BYTES_PER_VOXEL bytes a voxel, so
# MAX_VOXELS (1024³) is 6 GiB of fields, a quarter of the 24 GiB machine the project is built on, before meshes.
# MAX_CHUNKS (128³) bounds the per-chunk bookkeeping (versions, dirty sets) a small chunk_size multiplies.
BYTES_PER_VOXEL = sum(np.dtype(dtype).itemsize for dtype in _DTYPES.values())  # 6
MAX_VOXELS = 1024 ** 3
MAX_CHUNKS = 128 ** 3
DEFAULT_TOOL = Tool()


def _check_field(name: str, array: object, shape: tuple[int, int, int]) -> np.ndarray:
    """``array`` if it can be the volume's field ``name``; kernels index it without bounds checks."""
    dtype = np.dtype(_DTYPES[name])
    if not (isinstance(array, np.ndarray) and array.shape == shape and array.dtype == dtype
            and array.flags.writeable):
        given = (f"array of shape {array.shape}, dtype {array.dtype}" + ("" if array.flags.writeable else
                                                                          ", read-only")
                 if isinstance(array, np.ndarray) else array)
        raise ParameterError(name, given, f"a writeable numpy array of shape {shape} and dtype {dtype}")
    return array


def check_volume_size(shape: tuple[int, int, int], chunk_size: int) -> None:
    """ParameterError unless a volume of ``shape`` (whole numbers >= 1) holds at most MAX_VOXELS voxels in at most
    MAX_CHUNKS chunks of ``chunk_size`` voxels a side: the world-size limits, before anything is allocated."""
    voxels = math.prod(shape)
    if voxels > MAX_VOXELS:
        raise ParameterError("shape", shape, f"at most MAX_VOXELS = {MAX_VOXELS} voxels ({BYTES_PER_VOXEL} bytes "
                             f"each); this shape holds {voxels} voxels and would need about "
                             f"{_gib(voxels * BYTES_PER_VOXEL)}: use a smaller shape (and a larger voxel_size)")
    chunks = math.prod(-(-n // chunk_size) for n in shape)
    if chunks > MAX_CHUNKS:
        smallest = next(c for c in range(chunk_size, max(shape) + 1)
                        if math.prod(-(-n // c) for n in shape) <= MAX_CHUNKS)
        raise ParameterError("chunk_size", chunk_size, f">= {smallest} for shape {shape}: at most MAX_CHUNKS = "
                             f"{MAX_CHUNKS} chunks (this chunk_size makes {chunks} chunks)")


def _gib(size: int) -> str:
    return f"{size / 2**30:.3g} GiB" if size >= 2**30 else f"{size / 2**20:.3g} MiB"


def _field(name: str, doc: str) -> property:
    def get(self) -> np.ndarray:
        return self._arrays[name]

    def set_(self, array) -> None:
        self._arrays[name] = _check_field(name, array, self.shape)

    return property(get, set_, doc=doc)


class VoxelVolume:
    """A box of density voxels with up to two materials each, edited by signed-distance update ranges.

    Parameters
    ----------
    shape : tuple of 3 int
        Number of voxels along x, y, z (each >= 1). Y is up.
    voxel_size : float
        Edge of one voxel in metres (> 0).
    origin : tuple of 3 float
        World position (m) of the sample of voxel (0, 0, 0); voxel (i, j, k) samples
        ``origin + (i, j, k) * voxel_size``.
    iso : int
        Density at and above which a voxel is solid (1..255).
    chunk_size : int
        Edge of a chunk in voxels (>= 1): the unit of dirtiness, meshing and storage.
    materials : MaterialTable, optional
        The material table the ids refer to; :meth:`MaterialTable.default` when omitted.

    Attributes
    ----------
    density, mat_a, mat_b, mix : numpy.ndarray of uint8, shape ``shape``
        Density 0 (empty) .. 255 (full); two material ids (0 = none); share of ``mat_b`` (0..255 = 0..1).
    damage : numpy.ndarray of uint16, shape ``shape``
        Damage accumulated by hits that did not break the voxel yet.

    Notes
    -----
    Edit through the methods: they validate, keep the dirty set and report what changed. Code that writes the
    field arrays directly must call :meth:`mark_dirty` for the box it wrote. A field may be replaced by a
    writeable array of the volume's shape and the field's dtype (anything else raises :class:`ParameterError`
    naming the field); the geometry (shape, voxel size, origin, iso, chunk size, materials) is read-only.

    Examples
    --------
    >>> from voxelworld.terrain import VoxelVolume, Sphere
    >>> volume = VoxelVolume.from_sdf(lambda x, y, z: y - 8.0, (32, 32, 32), material="soil")
    >>> result = volume.remove(Sphere((16.0, 8.0, 16.0), 4.0))
    >>> result.most_removed_material
    'soil'
    >>> round(result.volume_removed)  # half a ball of radius 4 m: 134 m³, plus the smooth rim
    136
    """

    def __init__(self, shape, voxel_size: float = 1.0, origin=(0.0, 0.0, 0.0), iso: int = 128,
                 chunk_size: int = 32, materials: MaterialTable | None = None):
        if not isinstance(shape, (tuple, list)) or len(shape) != 3:
            raise ParameterError("shape", shape, "three whole numbers >= 1 (voxels along x, y, z)")
        # The geometry is read-only (properties below): kernels take it unchecked.
        self._shape = tuple(check_integer("shape", n, minimum=1, unit="voxels") for n in shape)
        self._voxel_size = check_finite("voxel_size", voxel_size, minimum=0.0, strict_minimum=True, unit="m")
        origin_array = np.array(origin, dtype=np.float64) if _is_numeric(origin) else None  # a copy: we freeze it
        if origin_array is None or origin_array.shape != (3,) or not np.all(np.isfinite(origin_array)):
            raise ParameterError("origin", origin, "a point (x, y, z) of three finite numbers (m)")
        origin_array.flags.writeable = False
        self._origin = origin_array
        self._iso = check_integer("iso", iso, minimum=1, maximum=255)
        self._chunk_size = check_integer("chunk_size", chunk_size, minimum=1, unit="voxels")
        check_volume_size(self._shape, self._chunk_size)
        self._shape_array = np.array(self._shape, dtype=np.int64)
        if materials is not None and not isinstance(materials, MaterialTable):
            raise ParameterError("materials", materials, "a MaterialTable or None")
        self._materials = materials if materials is not None else MaterialTable.default()
        self._arrays = {name: np.zeros(self.shape, dtype=_DTYPES[name]) for name in FIELDS}
        self._dirty: set[tuple[int, int, int]] = set()
        self._chunk_versions = np.zeros(self.chunk_grid_shape, dtype=np.int64)

    shape = property(lambda self: self._shape, doc="Voxels along x, y, z (read-only).")
    voxel_size = property(lambda self: self._voxel_size, doc="Edge of a voxel, m (read-only).")
    origin = property(lambda self: self._origin, doc="World position of voxel (0, 0, 0)'s sample, m (read-only).")
    iso = property(lambda self: self._iso, doc="Density at and above which a voxel is solid (read-only).")
    chunk_size = property(lambda self: self._chunk_size, doc="Edge of a chunk in voxels (read-only).")
    materials = property(lambda self: self._materials, doc="The MaterialTable the ids refer to (read-only).")
    density = _field("density", "uint8 density, 0 (empty) .. 255 (full); assigning checks shape and dtype.")
    mat_a = _field("mat_a", "uint8 id of the first material (0 = none).")
    mat_b = _field("mat_b", "uint8 id of the second material (0 = none).")
    mix = _field("mix", "uint8 share of ``mat_b``, 0..255 = 0..1.")
    damage = _field("damage", "uint16 damage accumulated by hits that did not break the voxel yet.")

    def _fields(self) -> _kernels.VoxelFields:
        """The field arrays for a kernel, checked again: an array can be resized in place after assignment."""
        return _kernels.VoxelFields(*(_check_field(name, self._arrays[name], self.shape) for name in FIELDS))

    def _grid(self) -> _kernels.Grid:
        return _kernels.Grid(self.origin, self.voxel_size, self.iso, self.chunk_size)

    # ----------------------------------------------------------------------------------------- geometry
    @property
    def voxel_volume(self) -> float:
        """Volume of one voxel in m³."""
        return self.voxel_size ** 3

    @property
    def chunk_grid_shape(self) -> tuple[int, int, int]:
        """Number of chunks along x, y, z (the last chunk on an axis may be partial)."""
        return tuple(-(-n // self.chunk_size) for n in self.shape)  # type: ignore[return-value]

    def chunk_box(self, chunk) -> tuple[np.ndarray, np.ndarray]:
        """The voxel index box of ``chunk`` (i, j, k): ``lo`` (inclusive) and ``hi`` (exclusive), int64, clipped
        to the volume (the last chunk on an axis may be partial). The one place chunk indices become voxel
        indices.

        Examples
        --------
        >>> volume = VoxelVolume((40, 16, 32), chunk_size=16)
        >>> [box.tolist() for box in volume.chunk_box((2, 0, 1))]
        [[32, 0, 16], [40, 16, 32]]
        """
        grid = self.chunk_grid_shape
        if isinstance(chunk, (str, bytes)) or len(chunk) != 3:
            raise ParameterError("chunk", chunk, f"chunk indices (i, j, k) within the grid {grid}")
        c = np.array([check_integer("chunk", v, minimum=0, maximum=n - 1) for v, n in zip(chunk, grid)],
                     dtype=np.int64)
        lo = c * self.chunk_size
        return lo, np.minimum(lo + self.chunk_size, np.array(self.shape, dtype=np.int64))

    def chunk_slices(self, chunk) -> tuple[slice, slice, slice]:
        """:meth:`chunk_box` as index slices: ``volume.density[volume.chunk_slices(chunk)]`` is the chunk's voxels.

        >>> VoxelVolume((40, 16, 32), chunk_size=16).chunk_slices((2, 0, 1))
        (slice(32, 40, None), slice(0, 16, None), slice(16, 32, None))
        """
        lo, hi = self.chunk_box(chunk)
        return tuple(slice(int(a), int(b)) for a, b in zip(lo, hi))  # type: ignore[return-value]

    def world_to_index(self, points) -> np.ndarray:
        """Continuous voxel coordinates ``(points - origin) / voxel_size`` of world points (m), shape (..., 3)."""
        return (np.asarray(points, dtype=np.float64) - self.origin) / self.voxel_size

    def index_to_world(self, indices) -> np.ndarray:
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

    def state_dict(self) -> dict:
        """The volume's bookkeeping besides its fields (the voxels are the public field arrays): ``chunk_versions``
        (a copy of :attr:`chunk_versions`) and ``dirty`` (:attr:`dirty_chunks`)."""
        return {"chunk_versions": self._chunk_versions.copy(), "dirty": self.dirty_chunks}

    def load_state_dict(self, state) -> None:
        """Take back a :meth:`state_dict` (a volume read from a file: its fields written directly, its counters
        and dirty set as they were). ParameterError, before anything changes, for a missing key, versions that
        are not whole numbers >= 0 of shape :attr:`chunk_grid_shape`, or a dirty chunk outside the grid.

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
        dirty = set()
        for chunk in state["dirty"]:
            if not (isinstance(chunk, tuple) and len(chunk) == 3 and all(
                    isinstance(c, (int, np.integer)) and 0 <= c < n for c, n in zip(chunk, grid))):
                raise ParameterError("state['dirty']", chunk, f"chunks (i, j, k) of the grid {grid}")
            dirty.add(tuple(int(c) for c in chunk))
        self._chunk_versions[...] = versions  # in place: views of the counters stay valid
        self._dirty = dirty

    def mark_dirty(self, lo, hi) -> None:
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

    def _mark_chunks_dirty(self, chunks) -> None:
        for chunk in chunks:
            self._dirty.add(chunk)
            self._chunk_versions[chunk] += 1

    # ------------------------------------------------------------------------------------- measuring
    def solid_volume(self) -> float:
        """Solid volume in m³: ``sum(density / 255) * voxel_volume``."""
        return int(self.density.sum(dtype=np.int64)) * self.voxel_volume / 255.0

    def solid_volume_by_material(self) -> dict[str, float]:
        """Solid volume in m³ per material name; each voxel's volume is split between ``mat_a`` and ``mat_b``
        by its mix ratio. Materials with no volume are left out."""
        units = np.zeros(256, dtype=np.int64)
        _kernels.material_units(self._fields(), units)
        unit = self.voxel_volume / 65025.0
        names = self.materials.name_by_id
        return {names[m]: int(units[m]) * unit for m in np.flatnonzero(units)}

    def content_hash(self) -> str:
        """SHA-256 (hex) of the geometry, settings and all voxel fields: equal hashes, identical volumes."""
        digest = hashlib.sha256()
        digest.update(repr((self.shape, self.voxel_size, tuple(self.origin), self.iso, self.chunk_size)).encode())
        for name in FIELDS:
            digest.update(np.ascontiguousarray(getattr(self, name)).tobytes())
        return digest.hexdigest()

    def extract(self, box: Box) -> VoxelVolume:
        """An independent copy of the voxels whose samples lie in ``box`` (a world-space :class:`Box`), with its
        own origin at the first of them; same voxel size, iso, chunk size and materials."""
        if not isinstance(box, Box):
            raise ParameterError("box", box, "a voxelworld.terrain.Box in world coordinates (m)")
        corners = self.voxel_box(box)
        if corners is None:
            raise ParameterError("box", box, f"a box that contains at least one voxel sample of this volume "
                                             f"(samples span {self.origin.tolist()} .. "
                                             f"{self.index_to_world(np.array(self.shape) - 1).tolist()} m)")
        lo, hi = corners
        part = VoxelVolume(tuple(int(n) for n in hi - lo + 1), self.voxel_size, self.index_to_world(lo),
                           self.iso, self.chunk_size, self.materials)
        window = tuple(slice(a, b + 1) for a, b in zip(lo, hi))
        for name in FIELDS:
            getattr(part, name)[...] = getattr(self, name)[window]
        return part

    # ------------------------------------------------------------------------------------------ edits
    def remove(self, shape: Shape, tool: Tool = DEFAULT_TOOL) -> EditResult:
        """Carve ``shape`` out smoothly: ``density = min(old, ramp(sdf))``, through ``tool``'s hardness gate.

        The ramp rises 127.5 density steps per voxel of signed distance, crossing ``iso`` on the shape's
        surface, so the new surface follows the shape to sub-voxel accuracy. Materials are kept.
        """
        return edits.remove(self, shape, tool)

    def add(self, shape: Shape, material) -> EditResult:
        """Build ``shape`` up: ``density = max(old, ramp(-sdf))``; every voxel that gains density becomes wholly
        ``material`` (name or id) with no damage."""
        return edits.add(self, shape, material)

    def paint(self, shape: Shape, material) -> EditResult:
        """Give every voxel whose sample lies inside ``shape`` the one ``material`` (both slots); density is kept."""
        return edits.paint(self, shape, material)

    def expose_interior(self, shape: Shape) -> EditResult:
        """Inside ``shape``, replace ``mat_a`` and ``mat_b`` each by its material's interior (grass -> soil,
        bark -> wood, rock -> rock_interior). Use a range a little larger than a carve so its rim shows inside."""
        return edits.expose_interior(self, shape)

    def convert(self, shape: Shape, source, target) -> EditResult:
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

    # ------------------------------------------------------------------------------------- generators
    @classmethod
    def from_sdf(cls, fn: Callable, shape, material, voxel_size: float = 1.0, origin=(0.0, 0.0, 0.0),
                 iso: int = 128, chunk_size: int = 32, materials: MaterialTable | None = None) -> VoxelVolume:
        """A volume of one ``material`` whose solid is where ``fn(x, y, z) <= 0``. See
        :func:`voxelworld.terrain.generators.from_sdf`."""
        volume = cls(shape, voxel_size, origin, iso, chunk_size, materials)
        generators.fill_from_sdf(volume, fn, material)
        return volume

    @classmethod
    def from_heightmap(cls, heights, layers, height: int, voxel_size: float = 1.0, origin=(0.0, 0.0, 0.0),
                       iso: int = 128, chunk_size: int = 32, materials: MaterialTable | None = None,
                       pockets=()) -> VoxelVolume:
        """Terrain from a heightmap with material layers and pockets. See
        :func:`voxelworld.terrain.generators.fill_from_heightmap`."""
        heights = np.asarray(heights, dtype=np.float64) if _is_numeric(heights) else None
        if heights is None or heights.ndim != 2:
            raise ParameterError("heights", "given value", "a 2-D array of heights (m), indexed [x, z]")
        height = check_integer("height", height, minimum=1, unit="voxels")
        volume = cls((heights.shape[0], height, heights.shape[1]), voxel_size, origin, iso, chunk_size, materials)
        generators.fill_from_heightmap(volume, heights, layers, pockets)
        return volume

    def __repr__(self) -> str:
        return (f"VoxelVolume(shape={self.shape}, voxel_size={self.voxel_size}, origin={tuple(self.origin)}, "
                f"iso={self.iso}, chunk_size={self.chunk_size})")


def _is_numeric(value) -> bool:
    try:
        np.asarray(value, dtype=np.float64)
    except (TypeError, ValueError):
        return False
    return True
