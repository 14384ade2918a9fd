"""Update ranges: signed-distance shapes that say where an edit acts.

Every shape answers ``sdf(points)``, the signed distance in metres from each point to its surface, negative
inside. Edits evaluate a shape only over the voxels of its bounding box (:meth:`Shape.bounds`), so a small
range in a large world costs only what it covers.

Shapes are frozen values: ``expanded``, ``translated`` and ``|`` (union) return new shapes.

Examples
--------
>>> from voxelworld.terrain import Sphere, Box
>>> hole = Sphere((4.0, 4.0, 4.0), 2.0) | Box((0, 0, 0), (1, 1, 1))
>>> float(hole.sdf([4.0, 4.0, 4.0]))
-2.0
>>> [float(v) for v in hole.expanded(0.5).bounds()[1]]
[6.5, 6.5, 6.5]
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace

import numpy as np
from numpy.typing import ArrayLike

from ..errors import ParameterError, check_finite, check_point
from . import _kernels

__all__ = ["Shape", "Sphere", "Box", "Capsule", "Cylinder", "Union"]


class Shape:
    """Base of the update-range shapes. Subclasses are frozen dataclasses."""

    def primitives(self) -> np.ndarray:
        """The shape as rows of ``_kernels.PRIMITIVE_COLUMNS`` float64 parameters, one row per primitive."""
        raise NotImplementedError

    def bounds(self) -> tuple[np.ndarray, np.ndarray]:
        """World-space bounding box ``(lo, hi)`` in metres of every point where ``sdf <= 0``."""
        out = np.empty((2, 3))
        _kernels.shape_bounds(self.primitives(), out)
        return out[0], out[1]

    def sdf(self, points: ArrayLike) -> np.ndarray:
        """Signed distance in metres (negative inside) from each point of ``points`` (shape ``(..., 3)``)."""
        try:
            array = np.asarray(points, dtype=np.float64)
        except (TypeError, ValueError):
            raise ParameterError("points", points, "an array of shape (..., 3) of coordinates (m)") from None
        if array.shape[-1:] != (3,):
            raise ParameterError("points", f"array of shape {array.shape}", "an array of shape (..., 3)")
        flat = np.ascontiguousarray(array.reshape(-1, 3))
        out = np.empty(len(flat))
        _kernels.sdf_points(self.primitives(), flat, out)
        return out.reshape(array.shape[:-1])

    def expanded(self, margin: float) -> Shape:
        """This shape grown by ``margin`` metres (>= 0) in every direction (its sdf lowered by ``margin``)."""
        margin = check_finite("margin", margin, minimum=0.0, unit="m")
        # Every subclass but Union (which overrides this) is a frozen dataclass with a margin field.
        return replace(self, margin=self.margin + margin)  # type: ignore[attr-defined, type-var]

    def translated(self, offset: Sequence[float] | np.ndarray) -> Shape:
        """This shape moved by ``offset`` (dx, dy, dz) metres."""
        raise NotImplementedError

    def __or__(self, other: Shape) -> Union:
        if not isinstance(other, Shape):
            return NotImplemented
        return Union((self, other))


def _row(kind: int, a: Sequence[float], b: Sequence[float], radius: float, margin: float) -> np.ndarray:
    row = np.zeros(_kernels.PRIMITIVE_COLUMNS)
    row[0] = kind
    row[1:4] = a
    row[4:7] = b
    row[7] = radius
    row[8] = margin
    return row[None, :]


def _shift(point: Sequence[float], offset: Sequence[float] | np.ndarray) -> tuple[float, float, float]:
    offset = check_point("offset", offset)
    return (point[0] + offset[0], point[1] + offset[1], point[2] + offset[2])


@dataclass(frozen=True)
class Sphere(Shape):
    """A ball: ``center`` (m) and ``radius`` (m, >= 0)."""

    center: tuple[float, float, float]
    radius: float
    margin: float = 0.0

    def __post_init__(self) -> None:
        object.__setattr__(self, "center", check_point("center", self.center))
        object.__setattr__(self, "radius", check_finite("radius", self.radius, minimum=0.0, unit="m"))
        object.__setattr__(self, "margin", check_finite("margin", self.margin, minimum=0.0, unit="m"))

    def primitives(self) -> np.ndarray:
        return _row(_kernels.SPHERE, self.center, (0, 0, 0), self.radius, self.margin)

    def translated(self, offset: Sequence[float] | np.ndarray) -> Sphere:
        return replace(self, center=_shift(self.center, offset))


@dataclass(frozen=True)
class Box(Shape):
    """An axis-aligned box from corner ``min`` to corner ``max`` (m, ``max >= min`` on every axis)."""

    min: tuple[float, float, float]
    max: tuple[float, float, float]
    margin: float = 0.0

    def __post_init__(self) -> None:
        lo = check_point("min", self.min)
        hi = check_point("max", self.max)
        if any(h < low for low, h in zip(lo, hi)):
            raise ParameterError("max", self.max, f"a point >= min = {lo} on every axis (m)")
        object.__setattr__(self, "min", lo)
        object.__setattr__(self, "max", hi)
        object.__setattr__(self, "margin", check_finite("margin", self.margin, minimum=0.0, unit="m"))

    def primitives(self) -> np.ndarray:
        return _row(_kernels.BOX, self.min, self.max, 0.0, self.margin)

    def translated(self, offset: Sequence[float] | np.ndarray) -> Box:
        return replace(self, min=_shift(self.min, offset), max=_shift(self.max, offset))


@dataclass(frozen=True)
class Capsule(Shape):
    """All points within ``radius`` (m, >= 0) of the segment from ``a`` to ``b`` (m)."""

    a: tuple[float, float, float]
    b: tuple[float, float, float]
    radius: float
    margin: float = 0.0

    def __post_init__(self) -> None:
        object.__setattr__(self, "a", check_point("a", self.a))
        object.__setattr__(self, "b", check_point("b", self.b))
        object.__setattr__(self, "radius", check_finite("radius", self.radius, minimum=0.0, unit="m"))
        object.__setattr__(self, "margin", check_finite("margin", self.margin, minimum=0.0, unit="m"))

    def primitives(self) -> np.ndarray:
        return _row(_kernels.CAPSULE, self.a, self.b, self.radius, self.margin)

    def translated(self, offset: Sequence[float] | np.ndarray) -> Capsule:
        return replace(self, a=_shift(self.a, offset), b=_shift(self.b, offset))


@dataclass(frozen=True)
class Cylinder(Shape):
    """A solid cylinder of ``radius`` (m, >= 0) whose axis runs from ``a`` to ``b`` (m, ``a != b``), flat caps."""

    a: tuple[float, float, float]
    b: tuple[float, float, float]
    radius: float
    margin: float = 0.0

    def __post_init__(self) -> None:
        a, b = check_point("a", self.a), check_point("b", self.b)
        if a == b:
            raise ParameterError("b", self.b, f"a point different from a = {a} (the cylinder needs a length)")
        object.__setattr__(self, "a", a)
        object.__setattr__(self, "b", b)
        object.__setattr__(self, "radius", check_finite("radius", self.radius, minimum=0.0, unit="m"))
        object.__setattr__(self, "margin", check_finite("margin", self.margin, minimum=0.0, unit="m"))

    def primitives(self) -> np.ndarray:
        return _row(_kernels.CYLINDER, self.a, self.b, self.radius, self.margin)

    def translated(self, offset: Sequence[float] | np.ndarray) -> Cylinder:
        return replace(self, a=_shift(self.a, offset), b=_shift(self.b, offset))


@dataclass(frozen=True)
class Union(Shape):
    """Every point inside any of ``shapes``: its sdf is their minimum."""

    shapes: tuple[Shape, ...]

    def __post_init__(self) -> None:
        shapes = tuple(self.shapes)
        if not shapes or not all(isinstance(s, Shape) for s in shapes):
            raise ParameterError("shapes", self.shapes, "one or more Shape objects")
        # Flatten nested unions so the kernel sees one list of primitives.
        flat: list[Shape] = []
        for shape in shapes:
            flat.extend(shape.shapes if isinstance(shape, Union) else (shape,))
        object.__setattr__(self, "shapes", tuple(flat))

    def primitives(self) -> np.ndarray:
        return np.concatenate([s.primitives() for s in self.shapes])

    def expanded(self, margin: float) -> Union:
        return Union(tuple(s.expanded(margin) for s in self.shapes))

    def translated(self, offset: Sequence[float] | np.ndarray) -> Union:
        return Union(tuple(s.translated(offset) for s in self.shapes))


def merged_boxes(boxes: Sequence[tuple[np.ndarray, np.ndarray]], gap: float = 0.0,
                 axes: Sequence[int] = (0, 1, 2)) -> list[tuple[np.ndarray, np.ndarray]]:
    """``boxes`` (``(lo, hi)`` corner arrays, m) with any two that come within ``gap`` m of each other along every
    one of ``axes`` joined into the box holding both, until no two do; the joined box keeps the first one's place,
    the others keep their order.

    >>> [(lo.tolist(), hi.tolist()) for lo, hi in merged_boxes([(np.zeros(3), np.ones(3)),
    ...                                                        (np.full(3, 5.0), np.full(3, 6.0)),
    ...                                                        (np.full(3, 0.5), np.full(3, 2.0))])]
    [([0.0, 0.0, 0.0], [2.0, 2.0, 2.0]), ([5.0, 5.0, 5.0], [6.0, 6.0, 6.0])]
    """
    merged = list(boxes)
    along = list(axes)
    joined = True
    while joined:
        joined = False
        for i in range(len(merged)):
            for j in range(i + 1, len(merged)):
                (a0, a1), (b0, b1) = merged[i], merged[j]
                if np.all((a0[along] - gap <= b1[along]) & (b0[along] - gap <= a1[along])):
                    merged[i] = (np.minimum(a0, b0), np.maximum(a1, b1))
                    del merged[j]
                    joined = True
                    break
            if joined:
                break
    return merged
