"""The seeded world generator: hills, cliffs of rock, strata, iron veins, lava pockets and caves, block by block.

:class:`GeneratorSettings` holds every parameter in world units, checked on construction. :func:`generate_block`
fills the fields of any box of voxels; each voxel's value is a pure function of the settings and its global voxel
index, so a world generated chunk by chunk, in any order and on any number of threads, is the same world, bit for
bit. :func:`generate_blocks` maps boxes over a thread pool (the kernel releases the GIL), :func:`chunk_boxes`
lists a world's chunks and :func:`generate_volume` builds a whole small world as a :class:`VoxelVolume`.

What the generator makes (depths in metres below the surface, measured vertically):

- A surface of fractal gradient-noise hills around ``ground_level``, terraced where a large-scale mask is on:
  flat steps with steep risers (``cliff_strength``, ``cliff_step``).
- Strata: grass (``grass_depth``) over soil (``soil_depth``, varying by +-40 %) over rock. Surfaces below
  ``sand_level`` are sand; slopes steeper than ``grass_slope`` show soil and steeper than ``rock_slope`` bare rock,
  so terrace risers are rock faces.
- In the rock: iron veins (thin sheets of 3-D noise, in regions of a low-frequency mask), and below
  ``lava_level`` rare lava pockets in a rim of obsidian.
- Caves: tunnels (where two 3-D noises are both near zero) and caverns, in regions of a cave mask, kept
  ``cave_depth`` below the surface except at a few entrances where they open to the sky, and 3 m above the
  world's bottom.
- No water. Air is density 0 and material 0, deep rock density 255: chunks above the surface and most deep chunks
  are uniform, which a sparse chunk store keeps as one value.

Density is the project's ramp of a signed distance (the distance to the surface, ``(y - h) / sqrt(1 + |grad h|²)``,
carved by the caves' distance), so meshes are smooth.

Examples
--------
>>> from voxelworld.terrain.worldgen import GeneratorSettings, generate_block, generate_volume
>>> settings = GeneratorSettings(size=32.0, height=32.0, seed=7, ground_level=16.0, hill_height=4.0)
>>> settings.shape
(64, 64, 64)
>>> block = generate_block(settings, (0, 0, 0), (16, 64, 16))
>>> int(block["density"][0, 0, 0]), int(block["density"][0, 63, 0])  # rock at the bottom, air at the top
(255, 0)
>>> volume = generate_volume(settings, chunk_size=32)
>>> bool((volume.density[:16, :, :16] == block["density"]).all())
True
"""

from __future__ import annotations

import math
import os
from collections import deque
from collections.abc import Callable, Iterable, Iterator, Mapping
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any, cast

import numpy as np

from ..errors import ParameterError, check_finite, check_integer
from . import _worldgen_kernels as _k
from .base import (
    FIELD_DTYPES,
    MAX_CHUNKS,
    MAX_COORDINATE,
    MIN_VOXEL_SIZE,
    Index3,
    check_field_array,
    check_volume_size,
)
from .materials import MaterialTable
from .sparse import SparseVolume
from .volume import FIELDS, VoxelVolume

__all__ = ["GeneratorSettings", "generate_block", "generate_blocks", "generate_chunks", "chunk_boxes", "generate_volume",
           "WORLD_MATERIALS"]

WORLD_MATERIALS = ("grass", "soil", "sand", "rock", "iron", "lava", "obsidian")  # what the generator writes
CHUNK_SIZE = 32  # voxels: the chunks of the worlds voxelworld new and bake generate and store
LARGEST_VOXEL_SIZE = 4.0  # m: the largest voxel the generator's features (2 m lattice, 0.5 m grass) are made for
LATTICE_SPACING = 2.0  # m: the 3-D features are sampled this far apart (in whole voxels) and interpolated


def _whole_voxels(name: str, metres: float, voxel_size: float) -> int:
    count = round(metres / voxel_size)
    if count < 1 or abs(count * voxel_size - metres) > 1e-9 * max(1.0, metres):
        raise ParameterError(name, metres, f"a whole number >= 1 of voxels of voxel_size = {voxel_size} m (m)")
    return count


def _check_world_size(size: float, height: float, voxel_size: float) -> None:
    """ParameterError naming ``voxel_size`` (or ``size``, ``height`` when no voxel size fits) unless a world of
    ``size`` x ``height`` x ``size`` m in voxels of ``voxel_size`` m is a volume of at most MAX_CHUNKS chunks of
    CHUNK_SIZE voxels (:func:`~voxelworld.terrain.base.check_volume_size`), in constant time."""
    shape = (round(size / voxel_size), round(height / voxel_size), round(size / voxel_size))
    try:
        check_volume_size(shape, CHUNK_SIZE, dense=False)
        return
    except ParameterError:
        pass
    fits = f"a world of at most MAX_CHUNKS = {MAX_CHUNKS} chunks of CHUNK_SIZE = {CHUNK_SIZE} voxels"
    # a x b x a chunks fit when a² b <= MAX_CHUNKS, and hold the world when voxel_size >= size / (CHUNK_SIZE a) and
    # >= height / (CHUNK_SIZE b): the smallest voxel size is the least of these over a.
    smallest = min(max(size / (CHUNK_SIZE * a), height / (CHUNK_SIZE * (MAX_CHUNKS // (a * a))))
                   for a in range(1, math.isqrt(MAX_CHUNKS) + 1))
    if smallest <= LARGEST_VOXEL_SIZE:
        raise ParameterError("voxel_size", voxel_size, f"a finite number in [{smallest:.6g}, {LARGEST_VOXEL_SIZE:g}] "
                             f"(m) for size = {size:g} m and height = {height:g} m: {fits} (this one would be "
                             f"{shape[0]} x {shape[1]} x {shape[2]} voxels)")
    column = LARGEST_VOXEL_SIZE * CHUNK_SIZE  # m: a chunk's edge in the largest voxels
    if height > column * MAX_CHUNKS:
        raise ParameterError("height", height, f"a finite number in (0, {column * MAX_CHUNKS:g}] (m): {fits} of at "
                             f"most {LARGEST_VOXEL_SIZE:g} m")
    widest = column * math.isqrt(MAX_CHUNKS // math.ceil(height / column))
    raise ParameterError("size", size, f"a finite number in (0, {widest:g}] (m) for height = {height:g} m: {fits} of "
                         f"at most {LARGEST_VOXEL_SIZE:g} m")


@dataclass(frozen=True)
class GeneratorSettings:
    """Every parameter of a generated world, in metres and degrees; each is checked on construction.

    Parameters
    ----------
    size : float
        Metres (at most ``MAX_COORDINATE`` = 1e12): the world's extent along x and along z (a whole number of voxels).
        Default 256.
    height : float
        Metres (at most 1e12): the world's extent along y, from its bottom (y = 0) up (a whole number of voxels).
        Default 128.
    voxel_size : float
        Metres (1e-6 <= voxel_size <= 4: ``MIN_VOXEL_SIZE`` of :mod:`~voxelworld.terrain.base`,
        ``LARGEST_VOXEL_SIZE``): the edge of a voxel. Default 0.5. It must also be large enough that the world is a
        volume of at most ``MAX_CHUNKS`` = 128³ chunks of ``CHUNK_SIZE`` = 32 voxels (1024 m x 128 m x 1024 m: at
        least 0.125 m); a smaller one is refused naming the smallest that fits.
    seed : int
        0 <= seed < 2**63: the world for a seed is always the same, on every machine.
    ground_level : float
        Metres (0 < ground_level < height): the mean height of the surface.
    hill_height : float
        Metres (>= 0): about how far the highest hills rise above ``ground_level`` (and valleys sink below it).
    hill_scale : float
        Metres (> 0): the width of the largest hills; smaller features follow in octaves of half the width.
    hill_octaves : int
        1..8: how many octaves of ever smaller hills.
    cliff_strength : float
        0..1: how far the terraces replace the smooth hills where the cliff mask is on (0: no cliffs).
    cliff_step : float
        Metres (> 0): the height of one terrace, i.e. of a cliff.
    cliff_width : float
        0 < cliff_width <= 1: the share of a terrace's run taken by its riser (smaller: steeper cliffs).
    grass_depth, soil_depth : float
        Metres (>= 0): the thickness of the grass and the (mean) thickness of the soil under it.
    sand_level : float
        Metres: surfaces lower than about this height are sand (down to the soil's depth plus 1 m).
    grass_slope, rock_slope : float
        Degrees in (0, 90), ``grass_slope <= rock_slope``: surfaces steeper than ``grass_slope`` show soil, steeper
        than ``rock_slope`` bare rock.
    cave_density : float
        0..1: how much of the underground holds caves (0: none).
    cave_depth : float
        Metres (>= 0): caves stay this far below the surface, except at their entrances.
    iron_density : float
        0..1: how much of the rock holds iron veins (0: none).
    lava_density : float
        0..1: how common lava pockets are (0: none).
    lava_level : float
        Metres (> 0): lava pockets lie below this height, and 16 m or more underground.
    iso : int
        1..255: the density at and above which a voxel is solid (the volume's ``iso``).

    Examples
    --------
    >>> GeneratorSettings(size=1024.0, seed=3).shape
    (2048, 256, 2048)
    >>> GeneratorSettings(size=100.0, voxel_size=0.3)
    Traceback (most recent call last):
    ...
    voxelworld.errors.ParameterError: size = 100.0 is out of range: must be a whole number >= 1 of voxels of \
voxel_size = 0.3 m (m)
    """

    size: float = 256.0
    height: float = 128.0
    voxel_size: float = 0.5
    seed: int = 0
    ground_level: float = 48.0
    hill_height: float = 24.0
    hill_scale: float = 192.0
    hill_octaves: int = 6
    cliff_strength: float = 0.8
    cliff_step: float = 8.0
    cliff_width: float = 0.2
    grass_depth: float = 0.5
    soil_depth: float = 2.0
    sand_level: float = 34.0
    grass_slope: float = 40.0
    rock_slope: float = 50.0
    cave_density: float = 0.5
    cave_depth: float = 8.0
    iron_density: float = 0.5
    lava_density: float = 0.5
    lava_level: float = 32.0
    iso: int = 128

    def __post_init__(self) -> None:
        def finite(name: str, **limits: Any) -> None:
            object.__setattr__(self, name, check_finite(name, getattr(self, name), **limits))

        finite("voxel_size", minimum=MIN_VOXEL_SIZE, maximum=LARGEST_VOXEL_SIZE, unit="m")
        for name in ("size", "height"):  # within MAX_COORDINATE: every sample's coordinate is finite
            finite(name, minimum=0.0, strict_minimum=True, unit="m")
            if getattr(self, name) > MAX_COORDINATE:
                raise ParameterError(name, getattr(self, name), f"a finite number in (0, {MAX_COORDINATE:g}] (m)")
        _whole_voxels("size", self.size, self.voxel_size)
        _whole_voxels("height", self.height, self.voxel_size)
        _check_world_size(self.size, self.height, self.voxel_size)
        object.__setattr__(self, "seed", check_integer("seed", self.seed, minimum=0, maximum=2 ** 63 - 1))
        ground = check_finite("ground_level", self.ground_level, unit="m")
        if not 0.0 < ground < self.height:
            raise ParameterError("ground_level", self.ground_level, f"a finite number in (0, {self.height}) (m)")
        object.__setattr__(self, "ground_level", ground)
        finite("hill_height", minimum=0.0, unit="m")
        finite("hill_scale", minimum=0.0, strict_minimum=True, unit="m")
        object.__setattr__(self, "hill_octaves", check_integer("hill_octaves", self.hill_octaves, minimum=1,
                                                               maximum=_k.HILL_OCTAVES_MAX))
        finite("cliff_strength", minimum=0.0, maximum=1.0)
        finite("cliff_step", minimum=0.0, strict_minimum=True, unit="m")
        finite("cliff_width", minimum=0.0, strict_minimum=True, maximum=1.0)
        finite("grass_depth", minimum=0.0, unit="m")
        finite("soil_depth", minimum=0.0, unit="m")
        finite("sand_level", unit="m")
        for name, lowest in (("grass_slope", 0.0), ("rock_slope", self.grass_slope)):
            value = check_finite(name, getattr(self, name), minimum=lowest, maximum=90.0, unit="degrees")
            if value <= 0.0 or value >= 90.0:
                raise ParameterError(name, value, "a finite number in (0, 90) (degrees), grass_slope <= rock_slope")
            object.__setattr__(self, name, value)
        finite("cave_density", minimum=0.0, maximum=1.0)
        finite("cave_depth", minimum=0.0, unit="m")
        finite("iron_density", minimum=0.0, maximum=1.0)
        finite("lava_density", minimum=0.0, maximum=1.0)
        finite("lava_level", minimum=0.0, strict_minimum=True, unit="m")
        object.__setattr__(self, "iso", check_integer("iso", self.iso, minimum=1, maximum=255))

    @property
    def shape(self) -> tuple[int, int, int]:
        """Voxels along x, y, z of the whole world."""
        across = round(self.size / self.voxel_size)
        return across, round(self.height / self.voxel_size), across

    @property
    def origin(self) -> tuple[float, float, float]:
        """World position (m) of the sample of voxel (0, 0, 0): the world's corner, always (0, 0, 0)."""
        return 0.0, 0.0, 0.0

    # ---------------------------------------------------------------------------- for the kernel
    def _params(self) -> _k.WorldParams:
        def threshold(density: float, full: float, none: float) -> float:
            # Mask noise above the threshold switches a feature on: density 0 is "never", 1 the most we offer.
            return 10.0 if density == 0.0 else none + (full - none) * density

        return _k.WorldParams(
            voxel_size=self.voxel_size, iso=self.iso, height=self.height, ground_level=self.ground_level,
            hill_height=self.hill_height, hill_scale=self.hill_scale, hill_octaves=self.hill_octaves,
            cliff_strength=self.cliff_strength, cliff_step=self.cliff_step, cliff_width=self.cliff_width,
            grass_depth=self.grass_depth, soil_depth=self.soil_depth, sand_level=self.sand_level,
            grass_slope=math.tan(math.radians(self.grass_slope)), rock_slope=math.tan(math.radians(self.rock_slope)),
            cave_threshold=threshold(self.cave_density, -0.2, 0.7), cave_depth=self.cave_depth, worm_radius=0.12,
            cavern_threshold=0.45, floor_height=3.0,
            iron_threshold=threshold(self.iron_density, -0.2, 0.7), vein_width=0.06,
            lava_threshold=threshold(self.lava_density, -0.2, 0.7), lava_pocket=0.4, lava_level=self.lava_level,
            lava_depth=16.0,
            obsidian_rim=0.05, lattice=max(1, round(LATTICE_SPACING / self.voxel_size)))

    def _keys(self) -> np.ndarray:
        return np.array([_k.noise_key(self.seed, field) for field in range(_k.KEY_COUNT)], dtype=np.uint64)


def _material_ids(materials: MaterialTable | None) -> _k.MaterialIds:
    if materials is None:
        materials = MaterialTable.default()
    elif not isinstance(materials, MaterialTable):
        raise ParameterError("materials", materials, "a MaterialTable or None")
    return _k.MaterialIds(*(materials.id_of(name) for name in WORLD_MATERIALS))


def _check_settings(settings: object) -> GeneratorSettings:
    if not isinstance(settings, GeneratorSettings):
        raise ParameterError("settings", settings, "a GeneratorSettings")
    return settings


def _check_box(lo: Index3, shape: Index3) -> tuple[np.ndarray, tuple[int, int, int]]:
    if isinstance(lo, (str, bytes)) or not hasattr(lo, "__len__") or len(lo) != 3:
        raise ParameterError("lo", lo, "three whole numbers (the box's first global voxel index along x, y, z)")
    if isinstance(shape, (str, bytes)) or not hasattr(shape, "__len__") or len(shape) != 3:
        raise ParameterError("shape", shape, "three whole numbers >= 1 (voxels along x, y, z)")
    corner = np.array([check_integer("lo", v, minimum=-2 ** 40, maximum=2 ** 40) for v in lo], dtype=np.int64)
    return corner, cast("tuple[int, int, int]", tuple(check_integer("shape", n, minimum=1, unit="voxels")
                                                     for n in shape))


def _check_out(out: Mapping, shape: tuple[int, int, int]) -> dict[str, np.ndarray]:
    if not isinstance(out, Mapping):
        raise ParameterError("out", type(out).__name__, f"a mapping of the fields {FIELDS} to arrays")
    checked = {}
    for name in FIELDS:
        checked[name] = check_field_array(f"out[{name!r}]", name, out.get(name), shape)
    return checked


def generate_block(settings: GeneratorSettings, lo: Index3, shape: Index3, out: Mapping[str, np.ndarray] | None = None,
                   materials: MaterialTable | None = None) -> dict[str, np.ndarray]:
    """Fill the voxel fields of the box of ``shape`` voxels whose first voxel has the global index ``lo``.

    Parameters
    ----------
    settings : GeneratorSettings
        The world.
    lo : tuple of 3 int
        Global voxel index (i, j, k) of the box's first voxel; its sample sits at ``lo * voxel_size`` m. The
        generator is defined everywhere: boxes may reach past the world (a mesher's padding), and the world is
        ``0 <= index < settings.shape``.
    shape : tuple of 3 int
        Voxels along x, y, z (each >= 1).
    out : mapping of field name to numpy.ndarray, optional
        Arrays to fill (every field of :data:`FIELDS`, C-contiguous, of ``shape`` and the field's dtype), reused
        between calls; fresh arrays when omitted.
    materials : MaterialTable, optional
        The table whose ids of :data:`WORLD_MATERIALS` the voxels get; the default table when omitted.

    Returns
    -------
    dict of str to numpy.ndarray
        ``out`` (or the fresh arrays): ``density`` and ``mat_a`` generated, ``mat_b``, ``mix`` and ``damage``
        zero. Each voxel depends only on ``settings`` and its global index.

    Examples
    --------
    >>> settings = GeneratorSettings(size=64.0, seed=1)
    >>> whole = generate_block(settings, (0, 60, 0), (8, 80, 8))
    >>> part = generate_block(settings, (3, 97, 5), (5, 43, 3))
    >>> bool((whole["density"][3:, 37:, 5:] == part["density"]).all())
    True
    """
    settings = _check_settings(settings)
    corner, shape = _check_box(lo, shape)
    ids = _material_ids(materials)
    arrays = {name: np.empty(shape, dtype=FIELD_DTYPES[name]) for name in FIELDS} if out is None else \
        _check_out(out, shape)
    _k.fill_block(settings._params(), settings._keys(), ids, corner, *(arrays[name] for name in FIELDS))
    return arrays


def generate_blocks(settings: GeneratorSettings, boxes: Iterable, workers: int | None = None,
                    materials: MaterialTable | None = None) -> Iterator[tuple[tuple, dict[str, np.ndarray]]]:
    """Generate many boxes on a pool of threads; yields ``((lo, shape), fields)`` in the order of ``boxes``.

    Parameters
    ----------
    boxes : iterable of (lo, shape)
        The boxes, as :func:`generate_block` takes them (:func:`chunk_boxes` lists a world's chunks).
    workers : int, optional
        Threads (>= 1); ``os.cpu_count()`` when omitted. The kernel releases the GIL, so threads use all cores.
        The results do not depend on it: each box is a pure function of the settings and its place.

    Notes
    -----
    At most ``2 * workers`` boxes are in flight: a whole world can be streamed to a store without holding it.

    Examples
    --------
    >>> settings = GeneratorSettings(size=64.0, seed=1)
    >>> boxes = chunk_boxes(settings, 32)
    >>> [box for box, _ in generate_blocks(settings, boxes[:3], workers=2)] == boxes[:3]
    True
    """
    settings = _check_settings(settings)
    workers = (os.cpu_count() or 1) if workers is None else check_integer("workers", workers, minimum=1)
    ids = _material_ids(materials)
    params, keys = settings._params(), settings._keys()

    def one(box: tuple[np.ndarray, tuple[int, int, int]]) -> dict[str, np.ndarray]:
        corner, shape = box
        arrays = {name: np.empty(shape, dtype=FIELD_DTYPES[name]) for name in FIELDS}
        _k.fill_block(params, keys, ids, corner, *(arrays[name] for name in FIELDS))
        return arrays

    checked = []
    for n, box in enumerate(boxes):
        if not (isinstance(box, (tuple, list)) and len(box) == 2):
            raise ParameterError(f"boxes[{n}]", box, "a (lo, shape) pair")
        checked.append((box, _check_box(*box)))
    with ThreadPoolExecutor(max_workers=workers) as pool:
        pending: deque = deque()
        for box, parsed in checked:
            pending.append((box, pool.submit(one, parsed)))
            if len(pending) >= 2 * workers:
                done_box, future = pending.popleft()
                yield done_box, future.result()
        while pending:
            done_box, future = pending.popleft()
            yield done_box, future.result()


def chunk_boxes(settings: GeneratorSettings, chunk_size: int = CHUNK_SIZE) -> list[tuple[tuple[int, int, int],
                                                                               tuple[int, int, int]]]:
    """The world's chunks of ``chunk_size`` voxels a side as ``(lo, shape)`` boxes, x slowest, z fastest; the
    last chunk on an axis may be partial.

    >>> chunk_boxes(GeneratorSettings(size=40.0, height=16.0, voxel_size=1.0, ground_level=8.0), 32)[:2]
    [((0, 0, 0), (32, 16, 32)), ((0, 0, 32), (32, 16, 8))]
    """
    settings = _check_settings(settings)
    chunk_size = check_integer("chunk_size", chunk_size, minimum=1, unit="voxels")
    check_volume_size(settings.shape, chunk_size, dense=False)  # at most MAX_CHUNKS boxes
    axes = [[(start, min(chunk_size, n - start)) for start in range(0, n, chunk_size)] for n in settings.shape]
    return [((i, j, k), (a, b, c)) for i, a in axes[0] for j, b in axes[1] for k, c in axes[2]]


def generate_chunks(settings: GeneratorSettings, chunk_size: int = CHUNK_SIZE, workers: int | None = None,
                    materials: MaterialTable | None = None, columns: tuple[int, int, int, int] | None = None
                    ) -> Iterator[tuple[tuple[int, int, int], dict[str, np.ndarray]]]:
    """Every chunk of the world as ``(chunk index (ci, cj, ck), fields)``, column by column (x slowest, then z,
    then y), each field a C-contiguous array of the chunk's shape (the last chunk on an axis may be partial).

    Generates a whole column of chunks per task (``chunk_size`` x height x ``chunk_size`` voxels), so the
    surface of a column is computed once for all its chunks, on ``workers`` threads (``os.cpu_count()`` when
    omitted). Equal to :func:`generate_block` of each chunk's box, bit for bit. ``columns`` ``(ci0, ck0, ci1, ck1)``:
    only the columns of chunks ``ci0 <= ci < ci1``, ``ck0 <= ck < ck1`` (a part of the world, as a bake's task
    generates), in the same order.

    >>> settings = GeneratorSettings(size=32.0, height=32.0, ground_level=16.0, hill_height=4.0)
    >>> chunk, fields = next(generate_chunks(settings, 32))
    >>> chunk, fields["density"].shape
    ((0, 0, 0), (32, 32, 32))
    """
    settings = _check_settings(settings)
    chunk_size = check_integer("chunk_size", chunk_size, minimum=1, unit="voxels")
    check_volume_size(settings.shape, chunk_size, dense=False)  # at most MAX_CHUNKS chunks
    nx, ny, nz = settings.shape
    if columns is None:
        ci0, ck0, ci1, ck1 = 0, 0, -(-nx // chunk_size), -(-nz // chunk_size)
    elif isinstance(columns, (tuple, list)) and len(columns) == 4:
        ci0, ck0, ci1, ck1 = (check_integer(f"columns[{n}]", c, minimum=0) for n, c in enumerate(columns))
    else:
        raise ParameterError("columns", columns, "(ci0, ck0, ci1, ck1) chunk column indices, or None")
    boxes = [((i, 0, k), (min(chunk_size, nx - i), ny, min(chunk_size, nz - k)))
             for i in range(ci0 * chunk_size, min(ci1 * chunk_size, nx), chunk_size)
             for k in range(ck0 * chunk_size, min(ck1 * chunk_size, nz), chunk_size)]
    for (lo, _), fields in generate_blocks(settings, boxes, workers=workers, materials=materials):
        for j in range(0, ny, chunk_size):
            window = slice(j, min(j + chunk_size, ny))
            yield ((lo[0] // chunk_size, j // chunk_size, lo[2] // chunk_size),
                   {name: np.ascontiguousarray(array[:, window, :]) for name, array in fields.items()})


def generate_volume(settings: GeneratorSettings, chunk_size: int = CHUNK_SIZE, materials: MaterialTable | None = None,
                    workers: int | None = None) -> VoxelVolume:
    """The whole world of ``settings`` as a :class:`VoxelVolume` (for small worlds: a volume holds at most
    ``MAX_VOXELS``), generated in slabs of ``chunk_size`` voxels along x on ``workers`` threads. Every chunk
    starts dirty, as with the other generators."""
    settings = _check_settings(settings)
    volume = VoxelVolume(settings.shape, voxel_size=settings.voxel_size, origin=settings.origin, iso=settings.iso,
                         chunk_size=chunk_size, materials=materials)
    ids = _material_ids(volume.materials)
    params, keys = settings._params(), settings._keys()
    nx = settings.shape[0]
    arrays = [getattr(volume, name) for name in FIELDS]

    def slab(start: int) -> None:
        stop = min(start + chunk_size, nx)  # slices of the first axis stay C-contiguous
        _k.fill_block(params, keys, ids, np.array([start, 0, 0], dtype=np.int64),
                      *(array[start:stop] for array in arrays))

    workers = (os.cpu_count() or 1) if workers is None else check_integer("workers", workers, minimum=1)
    with ThreadPoolExecutor(max_workers=workers) as pool:
        list(pool.map(slab, range(0, nx, chunk_size)))
    volume.mark_dirty((0, 0, 0), np.array(volume.shape) - 1)
    return volume



def generate_world(settings: GeneratorSettings, chunk_size: int = CHUNK_SIZE, materials: MaterialTable | None = None,
                   workers: int | None = None, progress: Callable[[int, int], None] | None = None) -> SparseVolume:
    """The whole world of ``settings`` as a :class:`~voxelworld.terrain.SparseVolume`: worlds of real size, stored
    only where a chunk is not uniform (the air above the ground and the plain rock below it are one value a
    chunk). Generated column by column on ``workers`` threads (:func:`generate_chunks`); ``progress(done, total)``
    is called after each column of chunks. Every chunk starts dirty, as with the other generators. The same
    voxels as :func:`generate_volume`, bit for bit.

    >>> settings = GeneratorSettings(size=64.0, height=32.0, ground_level=16.0, hill_height=4.0)
    >>> world = generate_world(settings, chunk_size=16)
    >>> world.content_hash() == generate_volume(settings, chunk_size=16).content_hash()
    True
    >>> world.stored_chunks("density"), world.stored_chunks("damage"), world.chunk_grid_shape  # of 256 chunks
    (72, 0, (8, 4, 8))
    """
    settings = _check_settings(settings)
    chunk_size = check_integer("chunk_size", chunk_size, minimum=1, unit="voxels")
    world = SparseVolume(settings.shape, voxel_size=settings.voxel_size, origin=settings.origin, iso=settings.iso,
                         chunk_size=chunk_size, materials=materials)
    if progress is not None and not callable(progress):
        raise ParameterError("progress", progress, "a function progress(done, total), or None")
    total = int(np.prod(world.chunk_grid_shape))
    per_column = world.chunk_grid_shape[1]
    for done, (chunk, fields) in enumerate(generate_chunks(settings, chunk_size, workers, world.materials), 1):
        world.write_chunk(chunk, fields)
        if progress is not None and done % per_column == 0:
            progress(done, total)
    return world
