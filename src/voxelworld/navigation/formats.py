"""Navmesh files: JSON (docs/specs/navmesh-json.md) and Wavefront OBJ.

These functions read and write a navmesh's arrays and area types; :class:`~voxelworld.navigation.NavMesh` calls them from
``to_json``, ``from_json``, ``to_obj`` and ``write_obj`` and checks the arrays it is given itself (its
constructor), so a document is refused by the same checks as any other bad input, before any kernel reads it.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from typing import TypeAlias, cast

import numpy as np
from numpy.typing import ArrayLike

from ..errors import FormatError, ParameterError
from ..files import write_atomically
from ..wavefront import ObjWriter

__all__ = ["FORMAT_VERSION", "navmesh_json", "read_navmesh_json", "json_error", "write_navmesh_obj",
           "write_navmesh_obj_file"]

FORMAT_VERSION = 2  # 2: area types (area_types, polygon_area_type); 1 (still read): none, every polygon ground
READ_VERSIONS = (1, 2)
AREA_FIELDS = ("area_types", "polygon_area_type")
FIELDS = ("vertices", "polygon_start", "polygon_vertices", "polygon_level", "portals", "portal_segments")
DETAIL_FIELDS = ("detail_origin", "detail_shape", "detail_heights")  # optional: all three or none
# A document's arrays in the NavMesh constructor's order: the six of FIELDS, then the three details (or None).
DocumentArrays: TypeAlias = tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray,
                                  np.ndarray | None, np.ndarray | None, np.ndarray | None]


def navmesh_json(*arrays: ArrayLike | None, frame: ArrayLike | None = None,
                 area_types: tuple[tuple[str, ...], ArrayLike] | None = None,
                 offmesh_links: dict[str, list[object]] | None = None) -> str:
    """The arrays (the six of FIELDS, then the three of DETAIL_FIELDS) as navmesh JSON text, compact; the
    details are left out when no polygon has one, the ``frame`` ((3, 4) ``[R | t]``) when it is None.
    ``area_types``: ``(names, each polygon's index into them)`` (None: every polygon ground);
    ``offmesh_links``: the links as :func:`~voxelworld.navigation.links.offmesh_links_document` gives them (left
    out when None or without links)."""
    document: dict[str, object] = {"format": "voxelworld-navmesh", "version": FORMAT_VERSION}
    names = FIELDS + (DETAIL_FIELDS if len(arrays) > 6 and np.asarray(arrays[7]).any() else ())
    document.update({name: np.asarray(array).tolist() for name, array in zip(names, arrays)})
    if area_types is None:
        area_types = (("ground",), np.zeros(len(np.asarray(arrays[3])), dtype=np.int64))
    document["area_types"] = list(area_types[0])
    document["polygon_area_type"] = np.asarray(area_types[1]).tolist()
    if offmesh_links is not None and offmesh_links["start"]:
        document["offmesh_links"] = offmesh_links
    if frame is not None:
        document["frame"] = np.asarray(frame).tolist()
    return json.dumps(document, separators=(",", ":"))


def read_navmesh_json(text: str) -> tuple[DocumentArrays, np.ndarray | None, tuple[tuple, np.ndarray] | None, object]:
    """The fields of a navmesh JSON document as numpy arrays (the six, then the three details or None), its
    frame (an array, or None when the document has none), its area types ``(names, polygon_area_type)`` (None
    in a version 1 document: every polygon ground) and its ``offmesh_links`` field as parsed (None when it has
    none; :func:`~voxelworld.navigation.links.offmesh_links_from_document` checks it), unchecked beyond being arrays of numbers and a list of
    strings (the NavMesh constructor checks them); FormatError for text that is not such a document."""
    try:
        document = json.loads(text)
    except (TypeError, ValueError) as error:
        raise FormatError(f"navmesh JSON: not valid JSON: {error}") from error
    except RecursionError:  # arrays or objects nested thousands deep: no navmesh field nests more than 3
        raise FormatError("navmesh JSON: nested too deeply (a navmesh's fields nest at most 3 arrays deep)") from None
    if not isinstance(document, dict) or document.get("format") != "voxelworld-navmesh":
        raise FormatError("navmesh JSON: 'format' is not 'voxelworld-navmesh'")
    version = document.get("version")
    if type(version) is not int or version not in READ_VERSIONS:  # true == 1 and 1.0 == 1: not a version
        raise FormatError(f"navmesh JSON: version {version!r} is not one of {', '.join(map(str, READ_VERSIONS))}")
    arrays: list[np.ndarray | None] = []
    booleans = "true" in text or "false" in text  # only then is a field worth walking for them
    detail = any(name in document for name in DETAIL_FIELDS)
    for name in FIELDS + DETAIL_FIELDS:
        if name not in document:
            if name in DETAIL_FIELDS and not detail:
                arrays.append(None)
                continue
            raise FormatError(f"navmesh JSON: missing field '{name}'")
        try:
            array = np.array(document[name])
        except (TypeError, ValueError, OverflowError) as error:
            raise FormatError(f"navmesh JSON: '{name}' is not an array of numbers of one shape: {error}") from None
        if array.dtype.kind not in "iuf" and array.size:
            raise FormatError(f"navmesh JSON: '{name}' holds {array.dtype} values, not numbers")
        if array.size and booleans:  # numpy reads true as 1
            _refuse_booleans(name, document[name])
        arrays.append(array)
    frame = None
    if "frame" in document:
        frame = _numbers("frame", document["frame"], booleans)
    if "offmesh_links" in document and version < 2:
        raise FormatError(f"navmesh JSON: 'offmesh_links' in a version {version} document (links came in version 2)")
    return (cast(DocumentArrays, tuple(arrays)), frame, _area_fields(document, version, booleans),
            document.get("offmesh_links"))


def _area_fields(document: dict, version: int, booleans: bool) -> tuple[tuple, np.ndarray] | None:
    """A document's area types (names, polygon_area_type): None in version 1, which has none."""
    if version < 2:
        return None
    for name in AREA_FIELDS:
        if name not in document:
            raise FormatError(f"navmesh JSON: missing field '{name}' (version {version})")
    names = document["area_types"]
    if not isinstance(names, list) or not all(isinstance(n, str) for n in names):
        raise FormatError("navmesh JSON: 'area_types' is not an array of strings (area type names)")
    kinds = document["polygon_area_type"]
    if kinds == []:
        return tuple(names), np.empty(0, dtype=np.int64)
    return tuple(names), _numbers("polygon_area_type", kinds, booleans)


def _numbers(name: str, value: object, booleans: bool) -> np.ndarray:
    """The field ``value`` as an array of numbers, or FormatError naming ``name``."""
    try:
        array = np.array(value)
    except (TypeError, ValueError, OverflowError) as error:
        raise FormatError(f"navmesh JSON: '{name}' is not an array of numbers of one shape: {error}") from None
    if array.dtype.kind not in "iuf" or not array.size:
        raise FormatError(f"navmesh JSON: '{name}' is not a non-empty array of numbers (it holds {array.dtype} "
                          "values)")
    if booleans:
        _refuse_booleans(name, value)
    return array


def _refuse_booleans(name: str, value: object) -> None:
    """FormatError if the (already parsed, at most 3 deep) field ``value`` holds a JSON true or false."""
    rows = [value]
    for _ in range(4):
        flat: list[object] = []
        for row in rows:
            if isinstance(row, bool):
                raise FormatError(f"navmesh JSON: '{name}' holds {str(row).lower()}, not a number")
            if isinstance(row, list):
                flat.extend(row)
        rows = flat


def json_error(error: ParameterError) -> FormatError:
    """The FormatError of a document whose arrays the NavMesh constructor refused (same field, value, range)."""
    return FormatError(f"navmesh JSON: '{error.parameter}' = {error.value!r} is out of range: must be {error.legal}")


def write_navmesh_obj(obj: ObjWriter, vertices: np.ndarray, polygon_start: np.ndarray, polygon_vertices: np.ndarray,
                      polygon_level: np.ndarray, name: str = "level", material: str | None = None) -> None:
    """Append the vertices and, per level, the object ``{name}_{level}`` with its polygons to ``obj``, drawn
    with ``material`` of the library when given."""
    block = obj.vertices(vertices)
    for level in sorted(set(np.asarray(polygon_level).tolist())):
        obj.object(f"{name}_{level}")
        if material is not None:
            obj.material(material)
        obj.polygons(block, polygon_start, polygon_vertices, np.flatnonzero(polygon_level == level))


def write_navmesh_obj_file(path: str | os.PathLike[str], write_obj: Callable[[ObjWriter], object]) -> None:
    """Write an OBJ file atomically: ``write_obj(obj)`` fills a fresh :class:`~voxelworld.wavefront.ObjWriter`."""
    obj = ObjWriter()
    write_obj(obj)
    text = obj.text()
    write_atomically(path, lambda file: file.write(text))
