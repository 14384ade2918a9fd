"""Off-mesh links: ways between two points of a navmesh that are not walked over polygons (Detour's off-mesh
connections): a drop off a ledge, a ladder, a jump pad.

:class:`OffMeshLinks` holds them as arrays (one row per link), in the navmesh's own frame as its vertices are.
A link goes from ``start`` to ``end``; a bidirectional one goes back too. Each has an area type (an index into
the navmesh's :attr:`~voxelworld.navigation.NavMesh.area_types`), which a query's filter weighs or excludes as it
does polygons'.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike

from ..errors import ParameterError

__all__ = ["OffMeshLinks", "check_offmesh_links", "MAX_LINKS"]

MAX_LINKS = 1 << 20  # links one navmesh may hold


@dataclass(frozen=True, eq=False)
class OffMeshLinks:
    """A navmesh's off-mesh links, one row each.

    Attributes
    ----------
    start, end : ndarray (n, 3) float64
        Where each link leaves the navmesh and where it lands (m, finite, in the navmesh's own frame).
    bidirectional : ndarray (n,) bool
        Whether it may be taken from ``end`` to ``start`` too.
    area_type : ndarray (n,) int64
        Its area type, an index into the navmesh's ``area_types``.
    """

    start: np.ndarray
    end: np.ndarray
    bidirectional: np.ndarray
    area_type: np.ndarray

    @property
    def count(self) -> int:
        return len(self.start)

    @classmethod
    def none(cls) -> OffMeshLinks:
        """No links."""
        return cls(np.zeros((0, 3)), np.zeros((0, 3)), np.zeros(0, dtype=bool), np.zeros(0, dtype=np.int64))


def check_offmesh_links(value: object, area_type_count: int) -> OffMeshLinks:
    """``value`` (an :class:`OffMeshLinks` or None: no links) checked: shapes, finite points, area types in
    ``[0, area_type_count)``; its arrays as float64 / bool / int64. ParameterError names the first wrong entry."""
    if value is None:
        return OffMeshLinks.none()
    if not isinstance(value, OffMeshLinks):
        raise ParameterError("offmesh_links", type(value).__name__, "a voxelworld.navigation.links.OffMeshLinks or None")
    start = _rows("offmesh_links.start", value.start, (-1, 3))
    n = len(start)
    if n > MAX_LINKS:
        raise ParameterError("len(offmesh_links.start)", n, f"at most {MAX_LINKS} links")
    end = _rows("offmesh_links.end", value.end, (n, 3))
    for name, points in (("start", start), ("end", end)):
        bad = np.flatnonzero(~np.isfinite(points).all(axis=1))
        if len(bad):
            raise ParameterError(f"offmesh_links.{name}[{int(bad[0])}]", points[bad[0]].tolist(), "finite numbers (m)")
    bidirectional = np.asarray(value.bidirectional)
    if bidirectional.shape != (n,) or (n and bidirectional.dtype != bool):
        raise ParameterError("offmesh_links.bidirectional", f"{bidirectional.dtype} {bidirectional.shape}",
                             f"{n} booleans (one per link)")
    area_type = _rows("offmesh_links.area_type", value.area_type, (n,))
    if n and area_type.dtype.kind not in "iu":
        raise ParameterError("offmesh_links.area_type.dtype", str(area_type.dtype), "whole numbers")
    bad = np.flatnonzero((area_type < 0) | (area_type >= area_type_count))
    if len(bad):
        raise ParameterError(f"offmesh_links.area_type[{int(bad[0])}]", int(area_type[bad[0]]),
                             f"an index into area_types, in [0, {area_type_count - 1}]")
    return OffMeshLinks(start.astype(np.float64), end.astype(np.float64), bidirectional.astype(bool),
                        area_type.astype(np.int64))


def _rows(name: str, value: ArrayLike, shape: tuple[int, ...]) -> np.ndarray:
    try:
        array = np.asarray(value)
    except (TypeError, ValueError, OverflowError):
        raise ParameterError(name, type(value).__name__, f"an array of shape {shape}") from None
    if array.size == 0:
        array = array.reshape((0,) + shape[1:])
    if array.ndim != len(shape) or any(s >= 0 and s != m for s, m in zip(shape, array.shape)):
        raise ParameterError(f"{name}.shape", array.shape, f"({', '.join('n' if s < 0 else str(s) for s in shape)})")
    if array.size and array.dtype.kind not in "iuf":
        raise ParameterError(f"{name}.dtype", str(array.dtype), "numbers")
    return array
