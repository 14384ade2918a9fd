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

from ..errors import FormatError, ParameterError, check_point, short_value
from .area_types import GROUND, check_area_type

__all__ = ["OffMeshLinks", "SceneLink", "check_offmesh_links", "offmesh_links_document", "offmesh_links_from_document",
           "MAX_LINKS"]

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


@dataclass(frozen=True)
class SceneLink:
    """A link a scene's author places (``Scene.with_link``): a ladder, a jump pad, a door the navmesh cannot see.

    Parameters
    ----------
    start, end : sequence of 3 float
        Its two ends (m, finite; world coordinates in a scene), stored as tuples. The bake snaps each onto the
        navmesh (see :mod:`voxelworld.navigation.offmesh`).
    bidirectional : bool
        Whether agents take it from ``end`` to ``start`` too (default True).
    area : str
        Its area type's name (default ``"ground"``); the navmesh's ``area_types`` gains it if new.

    Examples
    --------
    >>> SceneLink((0, 0, 0), (0, 3, 1), area="ladder")
    SceneLink(start=(0.0, 0.0, 0.0), end=(0.0, 3.0, 1.0), bidirectional=True, area='ladder')
    >>> SceneLink((0, 0, 0), (0, 3, 1), area="Ladder")
    Traceback (most recent call last):
    ...
    voxelworld.errors.ParameterError: area = 'Ladder' is out of range: must be a name of 1 to 32 lowercase ...
    """

    start: tuple[float, float, float]
    end: tuple[float, float, float]
    bidirectional: bool = True
    area: str = GROUND

    def __post_init__(self) -> None:
        object.__setattr__(self, "start", check_point("start", self.start))
        object.__setattr__(self, "end", check_point("end", self.end))
        if not isinstance(self.bidirectional, (bool, np.bool_)):
            raise ParameterError("bidirectional", short_value(self.bidirectional), "True or False")
        object.__setattr__(self, "bidirectional", bool(self.bidirectional))
        check_area_type("area", self.area)


def offmesh_links_document(links: OffMeshLinks) -> dict[str, list[object]]:
    """``links`` as a JSON-ready dict of four lists (``start``, ``end``: [x, y, z] rows; ``bidirectional``:
    booleans; ``area_type``: indices), what :func:`offmesh_links_from_document` reads back."""
    return {"start": links.start.tolist(), "end": links.end.tolist(), "bidirectional": links.bidirectional.tolist(),
            "area_type": links.area_type.tolist()}


def offmesh_links_from_document(document: object, area_type_count: int) -> OffMeshLinks:
    """The links of a document :func:`offmesh_links_document` wrote (``area_type_count``: how many area types
    the navmesh names), checked as :func:`check_offmesh_links` checks; FormatError naming the field for
    anything else (a missing or extra key, a wrong shape or type, a non-finite point, an area type out of
    range).

    Examples
    --------
    >>> links = OffMeshLinks(np.zeros((1, 3)), np.ones((1, 3)), np.array([False]), np.array([0]))
    >>> offmesh_links_from_document(offmesh_links_document(links), 1).end.tolist()
    [[1.0, 1.0, 1.0]]
    >>> offmesh_links_from_document({**offmesh_links_document(links), "area_type": [3]}, 1)
    Traceback (most recent call last):
    ...
    voxelworld.errors.FormatError: off-mesh links: 'offmesh_links.area_type[0]' = 3 is out of range: must be ...
    """
    keys = ("start", "end", "bidirectional", "area_type")
    if not isinstance(document, dict) or set(document) != set(keys):
        shown = sorted(map(str, document)) if isinstance(document, dict) else type(document).__name__
        raise FormatError(f"off-mesh links: {short_value(shown)!r} is not an object of the keys {', '.join(keys)}")
    arrays = {}
    for key in keys:
        value = document[key]
        if not isinstance(value, list) or len(value) > MAX_LINKS:
            raise FormatError(f"off-mesh links: '{key}' is not a list of at most {MAX_LINKS} entries")
        try:
            array = np.array(value)
        except (TypeError, ValueError, OverflowError, RecursionError):
            raise FormatError(f"off-mesh links: '{key}' is not a regular array") from None
        if array.size == 0:
            array = array.reshape((0, 3) if key in ("start", "end") else (0,))
        booleans = key == "bidirectional"
        if array.size and (array.dtype.kind == "b") != booleans:
            raise FormatError(f"off-mesh links: '{key}' holds {array.dtype} values, not "
                              f"{'booleans' if booleans else 'numbers'}")
        arrays[key] = array.astype(bool) if booleans else array
    try:
        return check_offmesh_links(OffMeshLinks(arrays["start"], arrays["end"], arrays["bidirectional"],
                                                arrays["area_type"]), area_type_count)
    except ParameterError as error:
        raise FormatError(f"off-mesh links: '{error.parameter}' = {short_value(error.value)!r} is out of range: "
                          f"must be {error.legal}") from None


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
