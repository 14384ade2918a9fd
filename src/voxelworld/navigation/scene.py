r"""Scenes: the named triangle meshes a navmesh is baked from, each with a role.

A :class:`SceneObject` is one triangle mesh (positions in metres, Y up) with a name and a role:

``"auto"`` (the default: an object nobody designated)
    decided by the bake, by the *vertex-in-region* rule (``NavSettings.auto_obstacles``, on by default): an
    obstacle if it has a vertex inside the search region, stands on other objects (every vertex lies over another
    object's triangle no higher than its top, or over the region's landing face) and rises more than
    ``NavSettings.obstacle_height`` (by default the agent's step limit) above the surface under it; otherwise
    floor. So a crate on the ground is an obstacle
    and the ground itself (nothing under its corners), a terrain or a level mesh, is floor.
    :func:`voxelworld.navigation.rays.bake_roles` says what each object became.
``"floor"``
    ground that rays land on and agents may walk on.
``"obstacle"``
    something that stands in the way; rays hit it too, and the baker gives it a simple proxy volume, an
    *exclusion region* (its convex hull, bounding box or own mesh: ``NavSettings.exclusion_proxy``).
``"exception"``
    transparent: rays pass through it as if it were not there (foliage, triggers, decals).

A :class:`Scene` is an ordered, immutable collection of objects with unique names. Build one from objects
(``Scene([...])``), grow it with :meth:`Scene.with_object` / shrink it with :meth:`Scene.without` (both return a
new scene and leave the old one as it was), or read a Wavefront OBJ file with :meth:`Scene.from_obj`.
Immutability lets a baked navmesh keep the scene it came from without the scene changing under it.

:meth:`Scene.triangles` concatenates the objects' meshes into one triangle soup with a per-triangle object
index, the form a collision BVH is built from.

Examples
--------
>>> import os, tempfile
>>> from voxelworld.navigation import Scene
>>> lines = ["o ground", "v 0 0 0", "v 4 0 0", "v 4 0 4", "v 0 0 4", "f 1 4 3 2",
...          "o crate_1", "v 1 0 1", "v 2 0 1", "v 2 1 1", "f -3 -1 -2"]
>>> with tempfile.TemporaryDirectory() as folder:
...     path = os.path.join(folder, "room.obj")
...     with open(path, "w") as file:
...         _ = file.write("\n".join(lines))
...     scene = Scene.from_obj(path, roles={"crate*": "obstacle"})
>>> scene.names, [obj.role for obj in scene]
(('ground', 'crate_1'), ['auto', 'obstacle'])
>>> soup = scene.triangles()
>>> soup.indices.tolist(), soup.tri_object.tolist()
([[0, 3, 2], [0, 2, 1], [4, 6, 5]], [0, 0, 1])
>>> [v.tolist() for v in scene.bounds()]
[[0.0, 0.0, 0.0], [4.0, 1.0, 4.0]]
"""

from __future__ import annotations

import fnmatch
import os
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import NamedTuple, cast

import numpy as np
from numpy.typing import ArrayLike

from ..errors import FormatError, ParameterError, check_point, check_range, short_value
from .area_types import GROUND, check_area_type
from .links import SceneLink
from .obj_text import parse_obj

__all__ = ["ROLES", "SceneObject", "Scene", "SceneTriangles"]

ROLES = ("auto", "floor", "obstacle", "exception")
_ROLE_LEGAL = "one of 'auto', 'floor', 'obstacle', 'exception'"

# The four face-vertex forms of OBJ: a, a/b, a/b/c, a//c (indices may be negative: relative to the last vertex).


def _role(parameter: str, value: object) -> str:
    check_range(parameter, value, _ROLE_LEGAL, isinstance(value, str) and value in ROLES)
    return value  # type: ignore[return-value]


def _name(parameter: str, value: object) -> str:
    check_range(parameter, value, "a non-empty string", isinstance(value, str) and value != "")
    return value  # type: ignore[return-value]


def _read_only(array: np.ndarray) -> np.ndarray:
    array.flags.writeable = False
    return array


def _area_types(value: object, triangles: int) -> tuple[tuple[str, ...], np.ndarray]:
    """An object's area types: its names (different, in order of first use) and each triangle's, an index into
    them (read-only int64), from one name, a name per triangle, or a pair (names, index per triangle)."""
    if isinstance(value, str):
        return (check_area_type("area_type", value),), _read_only(np.zeros(triangles, dtype=np.int64))
    legal = (f"a name, a sequence of {triangles} names (one per triangle) or a pair (names, index per triangle)")
    if isinstance(value, tuple) and len(value) == 2 and not isinstance(value[0], str):
        names, index = value
        if isinstance(names, str):
            raise ParameterError("area_type[0]", short_value(names), "a sequence of names")
        try:
            names = tuple(names)
            raw = np.asarray(index)
        except (TypeError, ValueError):
            raise ParameterError("area_type", short_value(value), legal) from None
        names = tuple(check_area_type(f"area_type[0][{i}]", name) for i, name in enumerate(names))
        if len(set(names)) != len(names):
            raise ParameterError("area_type[0]", names, "different names")
        if raw.shape != (triangles,) or (raw.size and raw.dtype.kind not in "iu"):
            raise ParameterError("area_type[1]", f"array of shape {raw.shape} and dtype {raw.dtype}",
                                 f"{triangles} whole numbers (one per triangle) indexing area_type[0]")
        if raw.size and (raw.min() < 0 or raw.max() >= len(names)):  # (the first bad one found only then)
            bad = np.flatnonzero((raw < 0) | (raw >= len(names)))
            raise ParameterError(f"area_type[1][{bad[0]}]", int(raw[bad[0]]), f"an index in [0, {len(names) - 1}]"
                                 if names else "none: area_type[0] holds no names")
        return names, _read_only(np.array(raw, dtype=np.int64, copy=True))
    try:
        given = list(value)  # type: ignore[call-overload]  # not iterable: TypeError
    except TypeError:
        raise ParameterError("area_type", short_value(value), legal) from None
    if len(given) != triangles:
        raise ParameterError("len(area_type)", len(given), legal)
    seen: dict[str, int] = {}
    index = np.empty(triangles, dtype=np.int64)
    for t, name in enumerate(given):
        if not isinstance(name, str) or name not in seen:
            seen[check_area_type(f"area_type[{t}]", name)] = len(seen)
        index[t] = seen[name]
    return tuple(seen) or (GROUND,), _read_only(index)


def _positions(value: object) -> np.ndarray:
    legal = "an array of shape (n, 3) of finite coordinates (m)"
    try:
        raw = np.asarray(value)
    except (TypeError, ValueError):
        raise ParameterError("positions", value, legal) from None
    if raw.shape == (0,):
        raw = raw.reshape(0, 3)
    if raw.dtype.kind not in "iuf" or raw.ndim != 2 or raw.shape[1] != 3:
        raise ParameterError("positions", f"array of shape {raw.shape} and dtype {raw.dtype}", legal)
    positions = np.array(raw, dtype=np.float64, order="C", copy=True)
    if not np.isfinite(positions).all():  # (the first bad one found only then)
        bad = np.flatnonzero(~np.isfinite(positions).all(axis=1))
        raise ParameterError(f"positions[{bad[0]}]", positions[bad[0]].tolist(), "three finite coordinates (m)")
    return _read_only(positions)


def _indices(value: object, vertex_count: int) -> np.ndarray:
    legal = "an integer array of shape (m, 3): three vertex indices per triangle"
    try:
        raw = np.asarray(value)
    except (TypeError, ValueError):
        raise ParameterError("indices", value, legal) from None
    if raw.size == 0 and raw.shape in ((0,), (0, 3)):
        return _read_only(np.empty((0, 3), dtype=np.int64))
    if raw.dtype.kind not in "iu" or raw.ndim != 2 or raw.shape[1] != 3:
        raise ParameterError("indices", f"array of shape {raw.shape} and dtype {raw.dtype}", legal)
    if raw.min() < 0 or raw.max() >= vertex_count:  # (the first bad one found only then)
        bad = np.flatnonzero(((raw < 0) | (raw >= vertex_count)).any(axis=1))
        raise ParameterError(f"indices[{bad[0]}]", raw[bad[0]].tolist(),
                             f"three vertex indices in [0, {vertex_count - 1}] (the object has "
                             f"{vertex_count} vertices)" if vertex_count else
                             "nothing: the object has no vertices, so it can have no triangles")
    return _read_only(np.array(raw, dtype=np.int64, order="C", copy=True))


@dataclass(frozen=True, eq=False, init=False)
class SceneObject:
    """One named triangle mesh of a :class:`Scene`, with its role; checked and copied on construction.

    Parameters
    ----------
    name : str
        Non-empty; unique within a scene.
    positions : array_like, shape (n, 3)
        Vertex coordinates in metres (Y up), finite. Stored as a read-only float64 copy.
    indices : array_like of int, shape (m, 3)
        Three vertex indices (into ``positions``, from 0) per triangle. Stored as a read-only int64 copy.
        An integer dtype is required: float arrays are refused rather than rounded.
    role : {"auto", "floor", "obstacle", "exception"}
        What the baker does with it: rays land on floors and obstacles and pass through exceptions; an
        ``"auto"`` object (the default) is an obstacle or floor by the vertex-in-region rule (see the module's
        docstring). A role given here always wins over that rule.
    area_type : str, sequence of str, or (names, index)
        The *area type* of the ground it makes (:mod:`~voxelworld.navigation.area_types`: "ground", "mud", ...;
        names of 1 to 32 lowercase letters, digits or '_'): one name for every triangle (default ``"ground"``),
        one name per triangle, or a pair ``(names, index)`` of names and an integer array giving each triangle's
        index into them (the fast form for a large mesh). A walkable cell takes the type of the triangle it
        stands on. Stored as :attr:`area_types` (the names, in order of first use) and
        :attr:`triangle_area_type` (each triangle's index into them, read-only int64).

    Objects compare by identity (``==`` is ``is``): their arrays make value equality ambiguous.

    Examples
    --------
    >>> ramp = SceneObject("ramp", [[0, 0, 0], [2, 1, 0], [0, 0, 2]], [[0, 2, 1]])
    >>> ramp.positions.dtype, ramp.indices.dtype, ramp.role, ramp.triangle_count
    (dtype('float64'), dtype('int64'), 'auto', 1)
    >>> ramp
    SceneObject('ramp', role='auto', 3 vertices, 1 triangles)
    >>> SceneObject("path", [[0, 0, 0], [1, 0, 0], [1, 0, 1], [0, 0, 1]], [[0, 2, 1], [0, 3, 2]],
    ...             area_type=["mud", "ground"]).area_types
    ('mud', 'ground')
    """

    name: str
    positions: np.ndarray
    indices: np.ndarray
    role: str = "auto"
    area_types: tuple[str, ...] = (GROUND,)
    triangle_area_type: np.ndarray = field(default_factory=lambda: np.empty(0, np.int64))

    def __init__(self, name: str, positions: ArrayLike, indices: ArrayLike, role: str = "auto",
                 area_type: str | Sequence[str] | tuple[Sequence[str], ArrayLike] = GROUND) -> None:
        # The arguments are array_like; the fields hold the checked, read-only copies.
        checked_name = _name("name", name)
        checked_positions = _positions(positions)
        checked_indices = _indices(indices, len(checked_positions))
        checked_role = _role("role", role)
        names, triangle_area_type = _area_types(area_type, len(checked_indices))
        object.__setattr__(self, "name", checked_name)
        object.__setattr__(self, "positions", checked_positions)
        object.__setattr__(self, "indices", checked_indices)
        object.__setattr__(self, "role", checked_role)
        object.__setattr__(self, "area_types", names)
        object.__setattr__(self, "triangle_area_type", triangle_area_type)

    @property
    def area_type(self) -> tuple[Sequence[str], np.ndarray]:
        """``(area_types, triangle_area_type)``: what the constructor takes as ``area_type`` to give the same."""
        return self.area_types, self.triangle_area_type

    @property
    def triangle_count(self) -> int:
        """The number of triangles."""
        return len(self.indices)

    def __repr__(self) -> str:
        return (f"SceneObject({self.name!r}, role={self.role!r}, {len(self.positions)} vertices, "
                f"{len(self.indices)} triangles)")


class SceneTriangles(NamedTuple):
    """The triangles of several scene objects as one mesh (what :meth:`Scene.triangles` returns).

    Attributes
    ----------
    positions : ndarray of float64, shape (n, 3)
        The objects' vertices one after another, in metres.
    indices : ndarray of int64, shape (m, 3)
        Their triangles, indexing ``positions``.
    tri_object : ndarray of int64, shape (m,)
        For each triangle, the index in :attr:`Scene.objects` of the object it came from.
    """

    positions: np.ndarray
    indices: np.ndarray
    tri_object: np.ndarray


class Scene:
    """An ordered, immutable collection of :class:`SceneObject` values with unique names.

    Parameters
    ----------
    objects : iterable of SceneObject
        The objects in order; the order is kept everywhere (iteration, :meth:`triangles`).

    Notes
    -----
    A scene never changes: :meth:`with_object` and :meth:`without` return new scenes, and an object is
    replaced in place by rebuilding, ``Scene(new if obj.name == "crate" else obj for obj in scene)``.
    Indexing by name (``scene["crate"]``) and ``"crate" in scene`` look objects up; ``len`` and iteration
    work as for a sequence of objects.

    Examples
    --------
    >>> floor = SceneObject("floor", [[0, 0, 0], [10, 0, 0], [0, 0, 10]], [[0, 2, 1]], role="floor")
    >>> box = [[4, 0, 4], [5, 0, 4], [5, 1, 4]]
    >>> scene = Scene([floor]).with_object("box", box, [[0, 1, 2]], role="obstacle")
    >>> scene
    Scene(['floor' (floor, 1 triangles), 'box' (obstacle, 1 triangles)])
    >>> scene.triangles(roles="obstacle").tri_object.tolist(), scene.index("box")
    ([1], 1)
    >>> len(scene.without("floor")), len(scene)
    (1, 2)
    """

    def __init__(self, objects: Iterable[SceneObject] = (), links: Iterable[SceneLink] = ()):
        self._links = _scene_links(links)
        try:
            objects = tuple(objects)
        except TypeError:
            raise ParameterError("objects", objects, "an iterable of SceneObject") from None
        by_name: dict[str, int] = {}
        for index, obj in enumerate(objects):
            check_range(f"objects[{index}]", obj, "a SceneObject", isinstance(obj, SceneObject))
            if obj.name in by_name:
                raise ParameterError(f"objects[{index}].name", obj.name,
                                     f"a name no other object has (objects[{by_name[obj.name]}] has it)")
            by_name[obj.name] = index
        self._objects: tuple[SceneObject, ...] = objects
        self._by_name = by_name
        self._area_types: tuple[str, ...] | None = None

    # --- reading ----------------------------------------------------------------------------------------------

    @property
    def objects(self) -> tuple[SceneObject, ...]:
        """The objects, in order."""
        return self._objects

    @property
    def names(self) -> tuple[str, ...]:
        """The objects' names, in order."""
        return tuple(obj.name for obj in self._objects)

    @property
    def area_types(self) -> tuple[str, ...]:
        """The area types its objects name: ``"ground"``, then the others sorted (what a navmesh baked from it
        names in :attr:`NavMesh.area_types <voxelworld.navigation.NavMesh.area_types>`)."""
        if self._area_types is None:
            others = {name for obj in self._objects for name in obj.area_types} - {GROUND}
            self._area_types = (GROUND, *sorted(others))
        return self._area_types

    def index(self, name: str) -> int:
        """The position of the object called ``name`` in :attr:`objects` (what ``tri_object`` holds)."""
        if not isinstance(name, str) or name not in self._by_name:
            shown = ", ".join(repr(n) for n in self.names[:10]) + (", ..." if len(self) > 10 else "")
            raise ParameterError("name", name, f"the name of an object of the scene: {shown or 'it has none'}")
        return self._by_name[name]

    def __getitem__(self, name: str) -> SceneObject:
        return self._objects[self.index(name)]

    def __contains__(self, name: object) -> bool:
        return isinstance(name, str) and name in self._by_name

    def __len__(self) -> int:
        return len(self._objects)

    def __iter__(self) -> Iterator[SceneObject]:
        return iter(self._objects)

    def __repr__(self) -> str:
        parts = [f"{obj.name!r} ({obj.role}, {obj.triangle_count} triangles)" for obj in self._objects[:10]]
        if len(self) > 10:
            parts.append(f"... {len(self) - 10} more")
        return f"Scene([{', '.join(parts)}])"

    # --- new scenes from this one -----------------------------------------------------------------------------

    def with_object(self, name: str, positions: ArrayLike, indices: ArrayLike, role: str = "auto",
                    area_type: str | Sequence[str] | tuple[Sequence[str], ArrayLike] = GROUND) -> Scene:
        """A new scene: this one plus a :class:`SceneObject` built from the arguments (``area_type``: one name,
        one per triangle, or (names, index per triangle); see :class:`SceneObject`), appended last.

        Raises :class:`ParameterError` (parameter ``"name"``) if the scene already has an object ``name``,
        and whatever :class:`SceneObject` raises for bad arrays or roles. This scene is left as it was.
        """
        if name in self:
            raise ParameterError("name", name, f"a name no object of the scene has (objects[{self.index(name)}] "
                                 "has it)")
        return Scene(self._objects + (SceneObject(name, positions, indices, role, area_type),), self._links)

    def without(self, name: str) -> Scene:
        """A new scene: this one without the object called ``name`` (which must exist)."""
        drop = self.index(name)
        return Scene((obj for index, obj in enumerate(self._objects) if index != drop), self._links)

    # --- off-mesh links ---------------------------------------------------------------------------------------

    @property
    def links(self) -> tuple[SceneLink, ...]:
        """The links placed in the scene (:meth:`with_link`), in order."""
        return self._links

    def with_link(self, start: ArrayLike, end: ArrayLike, bidirectional: bool = True, area: str = GROUND) -> Scene:
        """A new scene: this one plus an off-mesh link from ``start`` to ``end`` (m, world coordinates; a
        ladder, a jump pad), both ways unless ``bidirectional`` is False, of area type ``area`` (a name:
        :class:`~voxelworld.navigation.links.SceneLink`). The bake snaps each end onto the navmesh, within
        ``agent_radius + 2 * cell_size`` (m); a link with an end farther from it is left out of the navmesh
        (:func:`voxelworld.navigation.offmesh.unplaced_links` lists those) until a re-bake finds ground there.

        >>> scene = Scene().with_link((0, 0, 0), (0, 3, 1), area="ladder")
        >>> scene.links[0].end, scene.links[0].area
        ((0.0, 3.0, 1.0), 'ladder')
        """
        link = SceneLink(check_point("start", start), check_point("end", end), bidirectional, area)
        return Scene(self._objects, self._links + (link,))

    # --- geometry ---------------------------------------------------------------------------------------------

    def triangles(self, roles: str | Iterable[str] | None = None) -> SceneTriangles:
        """All triangles of the objects whose role is in ``roles``, as one mesh.

        Parameters
        ----------
        roles : str or iterable of str, optional
            Roles to include (``"auto"``, ``"floor"``, ``"obstacle"``, ``"exception"``: the objects' own roles,
            not what the bake made of ``"auto"`` ones); None (default) includes all.

        Returns
        -------
        SceneTriangles
            ``positions`` (float64, (n, 3), m), ``indices`` (int64, (m, 3)) and ``tri_object`` (int64, (m,)):
            each object's vertices and triangles follow the previous object's, in scene order, and
            ``tri_object`` gives each triangle's index in :attr:`objects` (not among the selected objects).
            With nothing selected the arrays are empty.
        """
        chosen = _roles_filter(roles)
        selected = [(index, obj) for index, obj in enumerate(self._objects) if obj.role in chosen]
        positions = [np.empty((0, 3), dtype=np.float64)]
        indices = [np.empty((0, 3), dtype=np.int64)]
        tri_object = [np.empty(0, dtype=np.int64)]
        offset = 0
        for index, obj in selected:
            positions.append(obj.positions)
            indices.append(obj.indices + offset)
            tri_object.append(np.full(obj.triangle_count, index, dtype=np.int64))
            offset += len(obj.positions)
        return SceneTriangles(np.concatenate(positions), np.concatenate(indices), np.concatenate(tri_object))

    def bounds(self, roles: str | Iterable[str] | None = None) -> tuple[np.ndarray, np.ndarray]:
        """The axis-aligned box ``(lo, hi)`` (float64 (3,) each, metres) around the vertices of the objects
        whose role is in ``roles`` (None: all objects).

        Raises :class:`ParameterError` (parameter ``"roles"``) when those objects have no vertex at all,
        since an empty scene has no box.
        """
        chosen = _roles_filter(roles)
        arrays = [obj.positions for obj in self._objects if obj.role in chosen and len(obj.positions)]
        if not arrays:
            present = sorted({obj.role for obj in self._objects if len(obj.positions)})
            raise ParameterError("roles", roles, "roles of at least one object with vertices (this scene has "
                                 f"{', '.join(present) if present else 'none'})")
        lo = np.min([a.min(axis=0) for a in arrays], axis=0)
        hi = np.max([a.max(axis=0) for a in arrays], axis=0)
        return lo, hi

    # --- files ------------------------------------------------------------------------------------------------

    @classmethod
    def from_obj(cls, path: str | os.PathLike, roles: Mapping[str, str] | None = None,
                 default_role: str = "auto", area_types: Mapping[str, str] | None = None) -> Scene:
        """Read a Wavefront OBJ file into a scene, one object per ``o`` / ``g`` name.

        Parameters
        ----------
        path : str or os.PathLike
            The file; read as UTF-8 (undecodable bytes become U+FFFD, which can only affect names).
        roles : mapping of str to str, optional
            Name patterns (:func:`fnmatch.fnmatchcase` globs: ``*``, ``?``, ``[seq]``; case-sensitive) to
            roles. For each object the patterns are tried in the mapping's order and the first match gives its
            role; an object no pattern matches gets ``default_role``.
        default_role : {"auto", "floor", "obstacle", "exception"}
            The role of objects no pattern matches: by default ``"auto"``, decided by the bake (a crate standing on
            the level is an obstacle, the level's ground floor; see the module's docstring). ``"floor"`` gives
            the rule before the vertex-in-region rule: every undesignated object is floor.
        area_types : mapping of str to str, optional
            Name patterns to area types, as ``roles`` (the first match wins); an object no pattern matches is
            ``"ground"``.

        Returns
        -------
        Scene
            One object per distinct name that has faces, in the order of their first faces. Each object holds only the
            vertices its faces use, in file order, with its indices renumbered to match, so every object is
            a mesh of its own.

        Notes
        -----
        What is read:

        - ``v x y z``: a vertex in metres. Anything after ``z`` (``w``, or a colour) is ignored.
        - ``f`` with three or more vertices, each of the forms ``a``, ``a/b``, ``a/b/c`` or ``a//c``; only the
          vertex index ``a`` is used (texture and normal indices are checked to be integers, then ignored).
          Positive indices count from 1 at the first vertex of the file; negative ones count back from the
          last vertex read (-1 is the latest). Either way the vertex must be defined above the face.
          Polygons with more than three vertices are split into a fan around their first vertex,
          ``(0, i, i + 1)``, keeping the winding.
        - ``o NAME`` and ``g NAME`` both start the object ``NAME`` (the rest of the line, so ``g a b`` names an
          object ``"a b"``; a bare ``o`` or ``g`` names it ``"default"``). Faces before any ``o`` / ``g`` belong
          to an object named after the file's stem (``"default"`` if the stem is empty).
        - A name used again continues its object: the later faces are appended after the earlier ones and the
          object keeps its place in the scene (that of its first face). Names without faces are dropped.
        - ``#`` starts a comment up to the end of the line; a line ending in ``\\`` continues on the next one.
          Every other statement (``vn``, ``vt``, ``s``, ``usemtl``, ``mtllib``, ``l``, ...) is ignored.

        Raises
        ------
        FormatError
            The file is missing or unreadable, or a line is wrong (a vertex without three finite numbers, a
            face with fewer than three vertices or a malformed vertex, an index of 0 or out of range). The
            message names the file, the line number and the problem.
        ParameterError
            ``path``, ``roles`` or ``default_role`` is not of the documented form.
        """
        if not isinstance(path, (str, os.PathLike)):
            raise ParameterError("path", path, "a file path (str or os.PathLike)")
        rules = _role_rules(roles)
        type_rules = _role_rules(area_types, "area_types", check_area_type)
        default_role = _role("default_role", default_role)
        path = Path(path)
        try:
            text = path.read_bytes().decode("utf-8", errors="replace")
        except OSError as error:
            raise FormatError(f"{path}: cannot read the file: {error.strerror or error}") from None
        vertices, faces = parse_obj(text, path)
        objects = []
        for name, corners in faces.items():
            triangles = np.array(corners, dtype=np.int64).reshape(-1, 3)
            used, local = np.unique(triangles, return_inverse=True)
            role = next((role for pattern, role in rules if fnmatch.fnmatchcase(name, pattern)), default_role)
            area_type = next((kind for pattern, kind in type_rules if fnmatch.fnmatchcase(name, pattern)), GROUND)
            objects.append(SceneObject(name, vertices[used], local.reshape(-1, 3), role, area_type))
        return cls(objects)


def _scene_links(links: Iterable[SceneLink]) -> tuple[SceneLink, ...]:
    """``links``: an iterable of SceneLink, as a tuple."""
    try:
        checked = tuple(links)
    except TypeError:
        raise ParameterError("links", links, "an iterable of voxelworld.navigation.links.SceneLink") from None
    for index, link in enumerate(checked):
        check_range(f"links[{index}]", link, "a voxelworld.navigation.links.SceneLink", isinstance(link, SceneLink))
    return checked


def _roles_filter(roles: object) -> frozenset[str]:
    if roles is None:
        return frozenset(ROLES)
    legal = f"None, a role or an iterable of roles, each {_ROLE_LEGAL}"
    chosen = (roles,) if isinstance(roles, str) else roles
    try:
        chosen = tuple(cast(Iterable[str], chosen))  # not iterable: TypeError; not roles: refused below
    except TypeError:
        raise ParameterError("roles", roles, legal) from None
    check_range("roles", roles, legal, all(isinstance(role, str) and role in ROLES for role in chosen))
    return frozenset(chosen)


def _role_rules(roles: object, parameter: str = "roles",
                check: Callable[[str, object], str] = _role) -> tuple[tuple[str, str], ...]:
    """Name patterns to roles (or, with ``check``, to what it accepts), checked, in order."""
    if roles is None:
        return ()
    what = parameter.replace("_", " ")
    check_range(parameter, roles, f"None or a mapping of name patterns (str) to {what}", isinstance(roles, Mapping))
    rules: list[tuple[str, str]] = []
    for pattern, role in roles.items():  # type: ignore[attr-defined]  # a Mapping: check_range refused the rest
        check_range(parameter, roles, "a mapping whose keys are name patterns (str)", isinstance(pattern, str))
        rules.append((pattern, check(f"{parameter}[{pattern!r}]", role)))
    return tuple(rules)
