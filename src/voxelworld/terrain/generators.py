"""Volume generators: from a signed-distance function and from a heightmap with material layers (the demo
terrain built from them: :mod:`voxelworld.terrain.demo`)."""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
from numpy.typing import ArrayLike

from ..errors import ParameterError, check_finite
from ._kernels import RAMP
from .edits import solid_material_id
from .shapes import Shape

if TYPE_CHECKING:
    from .volume import VoxelVolume

__all__ = ["Layer", "fill_from_sdf", "fill_from_heightmap"]


@dataclass(frozen=True)
class Layer:
    """One band of a heightmap terrain: ``material`` (name or id) down to ``thickness`` metres (> 0) below the
    band above it. The last layer of a list extends to the bottom of the volume whatever its thickness."""

    material: str | int
    thickness: float = math.inf

    def __post_init__(self) -> None:
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


def fill_from_sdf(volume: VoxelVolume, fn: Callable[..., ArrayLike], material: str | int) -> None:
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
