"""Volume generators: from a signed-distance function, from a heightmap with material layers, and the demo
terrain every example and the ``voxelworld edits`` command start from."""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from ..errors import ParameterError, check_finite, check_integer
from ._kernels import RAMP
from .edits import Tool, solid_material_id
from .shapes import Box, Cylinder, Shape, Sphere

if TYPE_CHECKING:
    from .volume import VoxelVolume

__all__ = ["Layer", "fill_from_sdf", "fill_from_heightmap", "demo_terrain"]


@dataclass(frozen=True)
class Layer:
    """One band of a heightmap terrain: ``material`` (name or id) down to ``thickness`` metres (> 0) below the
    band above it. The last layer of a list extends to the bottom of the volume whatever its thickness."""

    material: str | int
    thickness: float = math.inf

    def __post_init__(self):
        check_finite("thickness", self.thickness if self.thickness != math.inf else 1.0, minimum=0.0,
                     strict_minimum=True, unit="m")


def _sample_axes(volume: VoxelVolume) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """World coordinates of the samples along each axis, shaped to broadcast over ``[x, y, z]``."""
    nx, ny, nz = volume.shape
    o, s = volume.origin, volume.voxel_size
    return (o[0] + np.arange(nx) * s)[:, None, None], (o[1] + np.arange(ny) * s)[None, :, None], \
        (o[2] + np.arange(nz) * s)[None, None, :]


def _ramp(volume: VoxelVolume, signed_distance: np.ndarray) -> np.ndarray:
    """Density from signed distance (m, negative inside), the same ramp the edit kernels use."""
    return np.clip(np.floor(volume.iso - signed_distance / volume.voxel_size * RAMP + 0.5), 0, 255).astype(np.uint8)


def fill_from_sdf(volume: VoxelVolume, fn: Callable, material) -> None:
    """Fill a fresh ``volume`` from ``fn(x, y, z)``: signed distance (m, negative inside) at world coordinates.

    ``fn`` is called once with three arrays that broadcast to the volume's shape and must return finite values.
    Every voxel gets ``material`` (name or id) in ``mat_a``.
    """
    material_id = solid_material_id(volume, material)
    x, y, z = _sample_axes(volume)
    values = fn(x, y, z)
    try:
        distance = np.broadcast_to(np.asarray(values, dtype=np.float64), volume.shape)
    except (TypeError, ValueError):
        raise ParameterError("fn", fn, f"a function whose result broadcasts to the volume shape {volume.shape}") \
            from None
    if not np.all(np.isfinite(distance)):
        raise ParameterError("fn", fn, "a function returning finite signed distances (m) everywhere")
    volume.density[...] = _ramp(volume, distance)
    volume.mat_a[...] = material_id
    volume.mark_dirty((0, 0, 0), np.array(volume.shape) - 1)


def fill_from_heightmap(volume: VoxelVolume, heights: np.ndarray, layers: Sequence[Layer],
                        pockets: Sequence[tuple[Shape, str | int]] = ()) -> None:
    """Fill a fresh ``volume`` with terrain whose surface at column (i, k) lies at world height ``heights[i, k]``.

    Parameters
    ----------
    heights : ndarray, shape (nx, nz)
        Surface height (m, world y) of each column.
    layers : sequence of Layer
        Materials from the surface down (grass over soil over rock); samples above the surface take the first.
    pockets : sequence of (Shape, material)
        Regions painted with a material afterwards, in order (lava pockets, ore veins).
    """
    if heights.shape != (volume.shape[0], volume.shape[2]) or not np.all(np.isfinite(heights)):
        raise ParameterError("heights", f"array of shape {heights.shape}",
                             f"finite heights (m) of shape {(volume.shape[0], volume.shape[2])}")
    if not layers or not all(isinstance(layer, Layer) for layer in layers):
        raise ParameterError("layers", layers, "a non-empty sequence of Layer")
    layer_ids = np.array([solid_material_id(volume, layer.material) for layer in layers], dtype=np.uint8)
    for n, item in enumerate(pockets):
        if not (isinstance(item, tuple) and len(item) == 2 and isinstance(item[0], Shape)):
            raise ParameterError(f"pockets[{n}]", item, "a (Shape, material) pair")
        solid_material_id(volume, item[1])
    _, y, _ = _sample_axes(volume)
    depth = heights[:, None, :] - y  # metres below the surface, negative above it
    volume.density[...] = _ramp(volume, -depth)
    bottoms = np.cumsum([layer.thickness for layer in layers[:-1]])
    volume.mat_a[...] = layer_ids[np.searchsorted(bottoms, depth, side="right")]
    volume.mark_dirty((0, 0, 0), np.array(volume.shape) - 1)
    for shape, material in pockets:
        volume.paint(shape, material)


def demo_terrain(seed: int = 0, size: int = 96, height: int = 48, voxel_size: float = 1.0) -> VoxelVolume:
    """The default world's terrain, deterministic for a given ``seed``.

    Hills of grass over soil over rock with a lava pocket underground, a rock wall, a lava pool, two trees of
    bark around wood and an iron block on ``size`` x ``height`` x ``size`` voxels (size >= 48, height >= 32) of
    ``voxel_size`` metres.
    """
    from .volume import VoxelVolume

    seed = check_integer("seed", seed, minimum=0)
    size = check_integer("size", size, minimum=48, unit="voxels")
    height = check_integer("height", height, minimum=32, unit="voxels")
    rng = np.random.default_rng(seed)
    s = check_finite("voxel_size", voxel_size, minimum=0.0, strict_minimum=True, unit="m")
    u = np.arange(size)[:, None] / size
    v = np.arange(size)[None, :] / size
    waves = sum(rng.uniform(0.5, 1.0) * np.sin(2 * np.pi * (f * u + rng.uniform()))
                * np.cos(2 * np.pi * (g * v + rng.uniform())) for f, g in ((1, 1), (2, 1), (1, 2)))
    base = height * 0.4 * s
    heights = base + 1.5 * s * waves

    def ground(x: float, z: float) -> float:
        return float(heights[min(int(x / s), size - 1), min(int(z / s), size - 1)])

    mid = size * s / 2
    volume = VoxelVolume.from_heightmap(
        heights, [Layer("grass", 1.0 * s), Layer("soil", 4.0 * s), Layer("rock")], height, voxel_size=s,
        pockets=[(Sphere((mid * 0.6, base - 10 * s, mid * 1.3), 4 * s), "lava")])
    wall_x = mid * 1.6
    volume.add(Box((wall_x, 0.0, mid * 0.4), (wall_x + 4 * s, base + 12 * s, mid * 1.6)), "rock")
    px, pz, radius = mid * 0.5, mid * 0.5, 7 * s
    rim = ground(px, pz)
    volume.remove(Cylinder((px, rim - 3 * s, pz), (px, rim + 6 * s, pz), radius), tool=_CLEARING)
    volume.add(Cylinder((px, rim - 3 * s, pz), (px, rim - 1 * s, pz), radius), "lava")
    for tx, tz in ((mid * 1.2, mid * 0.6), (mid * 0.8, mid * 1.5)):
        foot, top = ground(tx, tz) - 3 * s, ground(tx, tz) + 14 * s
        volume.add(Cylinder((tx, foot, tz), (tx, top, tz), 1.6 * s), "bark")
        volume.paint(Cylinder((tx, foot, tz), (tx, top, tz), 0.9 * s), "wood")
    bx, bz = mid * 1.1, mid * 1.1
    volume.add(Box((bx - 2 * s, ground(bx, bz) - 1 * s, bz - 2 * s), (bx + 2 * s, ground(bx, bz) + 3 * s, bz + 2 * s)),
               "iron")
    return volume


# Shaping the demo level is not digging: nothing holds against it.
_CLEARING = Tool(gives_way_below=1e9, unbreakable_from=1e9)
