"""`VoxelVolume`: the dense density-voxel field that terrain edits change and meshing reads."""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterable, Mapping, Sequence

import numpy as np
from numpy.typing import ArrayLike

from ..errors import ParameterError, check_integer
from . import _kernels, generators
from .base import (
    BYTES_PER_VOXEL,
    FIELD_DTYPES,
    FIELDS,
    MAX_CHUNKS,
    MAX_VOXELS,
    Volume,
    check_field_array,
    check_volume_size,
    is_numeric,
)
from .materials import MaterialTable
from .shapes import Box, Shape

__all__ = ["VoxelVolume", "extract_volume", "FIELDS", "MAX_VOXELS", "MAX_CHUNKS", "BYTES_PER_VOXEL", "check_volume_size"]


def _field(name: str, doc: str) -> property:
    def get(self: VoxelVolume) -> np.ndarray:
        return self._arrays[name]

    def set_(self: VoxelVolume, array: object) -> None:
        self._arrays[name] = check_field_array(name, name, array, self.shape)

    return property(get, set_, doc=doc)


class VoxelVolume(Volume):
    """A box of density voxels with up to two materials each, edited by signed-distance update ranges.

    Parameters
    ----------
    shape : tuple of 3 int
        Number of voxels along x, y, z (each >= 1), at most MAX_VOXELS = 1024³ in all. Y is up.
    voxel_size : float
        Edge of one voxel in metres, in [MIN_VOXEL_SIZE, MAX_VOXEL_SIZE] = [1e-6, 1e6] m.
    origin : tuple of 3 float
        World position (m) of the sample of voxel (0, 0, 0); voxel (i, j, k) samples
        ``origin + (i, j, k) * voxel_size``. Every sample lies within MAX_COORDINATE = 1e12 m of the world's origin
        along each axis: ``origin`` and ``origin + shape * voxel_size`` in [-1e12, 1e12] m (so that every
        coordinate, area and volume the volume computes is finite).
    iso : int
        Density at and above which a voxel is solid (1..255).
    chunk_size : int
        Edge of a chunk in voxels (>= 1): the unit of dirtiness, meshing and storage; at most MAX_CHUNKS = 128³
        chunks.
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
    writeable, C-contiguous array of the volume's shape and the field's dtype, which the volume then uses (and
    writes) itself; anything else, a transposed or zero-stride view included, raises :class:`ParameterError`
    naming the field (pass ``numpy.ascontiguousarray(view)`` to use a copy); the geometry (shape, voxel size,
    origin, iso, chunk size, materials) is read-only.

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

    def __init__(self, shape: Sequence[int], voxel_size: float = 1.0, origin: ArrayLike = (0.0, 0.0, 0.0),
                 iso: int = 128, chunk_size: int = 32, materials: MaterialTable | None = None) -> None:
        super().__init__(shape, voxel_size, origin, iso, chunk_size, materials)
        self._arrays = {name: np.zeros(self.shape, dtype=FIELD_DTYPES[name]) for name in FIELDS}

    density = _field("density", "uint8 density, 0 (empty) .. 255 (full); assigning checks shape and dtype.")
    mat_a = _field("mat_a", "uint8 id of the first material (0 = none).")
    mat_b = _field("mat_b", "uint8 id of the second material (0 = none).")
    mix = _field("mix", "uint8 share of ``mat_b``, 0..255 = 0..1.")
    damage = _field("damage", "uint16 damage accumulated by hits that did not break the voxel yet.")

    def _fields(self) -> _kernels.VoxelFields:
        """The field arrays for a kernel, checked again: an array can be resized in place after assignment."""
        return _kernels.VoxelFields(*(check_field_array(name, name, self._arrays[name], self.shape)
                                      for name in FIELDS))

    def _edit_window(self, lo: np.ndarray, hi: np.ndarray) -> tuple[_kernels.VoxelFields, np.ndarray]:
        """The whole fields: a dense volume's edits write in place."""
        return self._fields(), np.zeros(3, dtype=np.int64)

    def _store_window(self, fields: _kernels.VoxelFields, offset: np.ndarray,
                      chunks: Iterable[tuple[int, int, int]]) -> None:
        """Nothing to do: the window was the fields themselves."""

    def _set_chunk(self, chunk: tuple[int, int, int], fields: Mapping[str, np.ndarray]) -> None:
        window = self.chunk_slices(chunk)
        for name, values in fields.items():
            self._arrays[name][window] = values

    def snapshot(self, names: Sequence[str] = FIELDS) -> VoxelVolume:
        """A dense volume of the same geometry holding a copy of the fields ``names`` (the others zero)."""
        copy = VoxelVolume(self.shape, self.voxel_size, self.origin, self.iso, self.chunk_size, self.materials)
        for name in names:
            copy._arrays[name][...] = self._arrays[name]
        return copy

    def read_window(self, lo: ArrayLike, hi: ArrayLike, names: Iterable[str] = FIELDS) -> dict[str, np.ndarray]:
        """The fields ``names`` of the voxels ``lo .. hi - 1`` (index corners, ``hi`` exclusive): read-only views
        of the field arrays, by name.

        >>> volume = VoxelVolume((8, 8, 8))
        >>> volume.read_window((0, 0, 0), (2, 3, 4), ["density"])["density"].shape
        (2, 3, 4)
        """
        lo, hi, names = self._check_window(lo, hi, names)
        window = tuple(slice(int(a), int(b)) for a, b in zip(lo, hi))
        views = {}
        for name in names:
            view = self._arrays[name][window].view()
            view.flags.writeable = False
            views[name] = view
        return views

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
        """An independent dense volume of the voxels whose samples lie in ``box`` (a world-space :class:`Box`),
        with its own origin at the first of them; same voxel size, iso, chunk size and materials."""
        return extract_volume(self, box)

    # ------------------------------------------------------------------------------------- generators
    @classmethod
    def from_sdf(cls, fn: Callable[..., ArrayLike], shape: Sequence[int], material: str | int,
                 voxel_size: float = 1.0, origin: ArrayLike = (0.0, 0.0, 0.0),
                 iso: int = 128, chunk_size: int = 32, materials: MaterialTable | None = None) -> VoxelVolume:
        """A volume of one ``material`` whose solid is where ``fn(x, y, z) <= 0``. See
        :func:`voxelworld.terrain.generators.from_sdf`."""
        volume = cls(shape, voxel_size, origin, iso, chunk_size, materials)
        generators.fill_from_sdf(volume, fn, material)
        return volume

    @classmethod
    def from_heightmap(cls, heights: ArrayLike, layers: Sequence[generators.Layer], height: int,
                       voxel_size: float = 1.0, origin: ArrayLike = (0.0, 0.0, 0.0), iso: int = 128,
                       chunk_size: int = 32, materials: MaterialTable | None = None,
                       pockets: Sequence[tuple[Shape, str | int]] = ()) -> VoxelVolume:
        """Terrain from a heightmap with material layers and pockets. See
        :func:`voxelworld.terrain.generators.fill_from_heightmap`."""
        grid = np.asarray(heights, dtype=np.float64) if is_numeric(heights) else None
        if grid is None or grid.ndim != 2:
            raise ParameterError("heights", "given value", "a 2-D array of heights (m), indexed [x, z]")
        height = check_integer("height", height, minimum=1, unit="voxels")
        volume = cls((grid.shape[0], height, grid.shape[1]), voxel_size, origin, iso, chunk_size, materials)
        generators.fill_from_heightmap(volume, grid, layers, pockets)
        return volume


def extract_volume(volume: Volume, box: Box) -> VoxelVolume:
    """An independent dense :class:`VoxelVolume` of the voxels of ``volume`` (dense or sparse) whose samples lie
    in ``box``: see :meth:`Volume.extract`."""
    if not isinstance(box, Box):
        raise ParameterError("box", box, "a voxelworld.terrain.Box in world coordinates (m)")
    corners = volume.voxel_box(box)
    if corners is None:
        raise ParameterError("box", box, f"a box that contains at least one voxel sample of this volume "
                                         f"(samples span {volume.origin.tolist()} .. "
                                         f"{volume.index_to_world(np.array(volume.shape) - 1).tolist()} m)")
    lo, hi = corners
    part = VoxelVolume(tuple(int(n) for n in hi - lo + 1), volume.voxel_size, volume.index_to_world(lo),
                       volume.iso, volume.chunk_size, volume.materials)
    for name, values in volume.read_window(lo, hi + 1).items():
        getattr(part, name)[...] = values
    return part

# ------------------------------------------------------------------------------------------ edits
