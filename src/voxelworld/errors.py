"""The exception types every voxelworld wing raises.

Every message names what was wrong, the value given and what would have been legal, so a caller can fix the
call without reading our source::

    ParameterError: radius = -1.0 is out of range: must be a finite number >= 0 (m)
"""

from __future__ import annotations

import math

__all__ = ["VoxelworldError", "ParameterError", "FormatError", "check_finite", "check_range", "check_integer",
           "check_point", "check_direction", "short_value"]


class VoxelworldError(Exception):
    """Base class of every error voxelworld raises on purpose."""


class ParameterError(VoxelworldError, ValueError):
    """A function or constructor was given a value outside its legal range.

    Attributes
    ----------
    parameter : str
        The name of the parameter, as the caller wrote it.
    value : object
        The value that was given.
    legal : str
        A short description of the legal range.
    """

    def __init__(self, parameter: str, value: object, legal: str):
        self.parameter = parameter
        self.value = value
        self.legal = legal
        super().__init__(f"{parameter} = {value!r} is out of range: must be {legal}")


class FormatError(VoxelworldError, ValueError):
    """A file or document could not be read: names the file and what in it is wrong."""


def check_finite(parameter: str, value: object, *, minimum: float | None = None, maximum: float | None = None,
                 unit: str = "", strict_minimum: bool = False) -> float:
    """Return ``value`` as a float, or raise :class:`ParameterError` if it is not a finite number in range."""
    try:
        number = float(value)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        number = float("nan")
    if (number != number or number in (float("inf"), float("-inf"))
            or (minimum is not None and (number < minimum or (strict_minimum and number == minimum)))
            or (maximum is not None and number > maximum)):
        # The description is built only when it is needed: checks sit on hot paths.
        raise ParameterError(parameter, value, _describe_range("a finite number", minimum, maximum, unit,
                                                               strict_minimum))
    return number


def check_integer(parameter: str, value: object, *, minimum: int | None = None, maximum: int | None = None,
                  unit: str = "") -> int:
    """Return ``value`` as an int, or raise :class:`ParameterError` if it is not a whole number in range."""
    try:
        number = int(value)  # type: ignore[call-overload]
        ok = not isinstance(value, bool) and number == value and not (
            (minimum is not None and number < minimum) or (maximum is not None and number > maximum))
    except (TypeError, ValueError, OverflowError):
        ok = False
    if not ok:  # the description is built only when it is needed (as check_finite's)
        raise ParameterError(parameter, value, _describe_range("a whole number", minimum, maximum, unit, False))
    return number


def check_point(parameter: str, value: object, unit: str = "m") -> tuple[float, float, float]:
    """Return ``value`` as three floats, or raise :class:`ParameterError` unless it is three finite numbers."""
    legal = f"a point (x, y, z) of three finite numbers ({unit})"
    if isinstance(value, (str, bytes)):
        raise ParameterError(parameter, value, legal)
    try:
        x, y, z = (float(c) for c in value)  # type: ignore[attr-defined]  # not iterable: refused below
    except (TypeError, ValueError):
        raise ParameterError(parameter, value, legal) from None
    if not (math.isfinite(x) and math.isfinite(y) and math.isfinite(z)):
        raise ParameterError(parameter, value, legal)
    return x, y, z


def check_direction(parameter: str, value: object) -> tuple[float, float, float]:
    """Return ``value`` scaled to unit length, or raise :class:`ParameterError` unless it is three finite
    numbers, not all (nearly) zero."""
    legal = "a direction (x, y, z): three finite numbers, not all zero"
    try:
        x, y, z = check_point(parameter, value)
    except ParameterError:
        raise ParameterError(parameter, value, legal) from None
    length = math.sqrt(x * x + y * y + z * z)
    if not length > 1e-12:
        raise ParameterError(parameter, value, legal)
    return x / length, y / length, z / length


def check_range(parameter: str, value: object, legal: str, ok: bool) -> None:
    """Raise :class:`ParameterError` naming ``parameter``, ``value`` and ``legal`` unless ``ok``."""
    if not ok:
        raise ParameterError(parameter, value, legal)


def _describe_range(kind: str, minimum: float | None, maximum: float | None, unit: str, strict_minimum: bool) -> str:
    parts = [kind]
    if minimum is not None:
        parts.append(f"{'>' if strict_minimum else '>='} {minimum}")
    if maximum is not None:
        parts.append(f"<= {maximum}")
    text = " ".join(parts[:2]) if maximum is None else (
        f"{kind} in [{minimum}, {maximum}]" if minimum is not None and not strict_minimum else " ".join(parts))
    return f"{text} ({unit})" if unit else text


def short_value(value: object) -> object:
    """``value`` as an error message should show it: itself, or its repr cut to 80 characters when longer (a
    whole array read from a file would bury the message)."""
    text = repr(value)
    return value if len(text) <= 80 else text[:77] + "..."
