"""Area types: what kind of walkable ground a polygon is ("ground", "mud", "hazard", ...), as Detour's area ids.

An *area type* is named so apart from the bake's areas (:class:`~voxelworld.navigation.areas.BakeArea`) and from
square metres. A navmesh names its area types in :attr:`NavMesh.area_types` (the first is always
:data:`GROUND`, the type of every polygon of a navmesh that says nothing else, as old files do) and gives each
polygon one of them by index (:attr:`NavMesh.polygon_area_type`); each off-mesh link has one too. A query's
filter (Detour's ``dtQueryFilter``) weighs or excludes polygons by their type's name.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from ..errors import ParameterError, short_value

__all__ = ["GROUND", "HAZARD", "SLIPPERY", "MAX_AREA_TYPES", "check_area_type", "check_area_types"]

GROUND = "ground"  # what walkable ground is unless something says otherwise
HAZARD = "hazard"  # ground within 1 m of a material that hurts on contact
SLIPPERY = "slippery"  # ground of a slippery material
MAX_AREA_TYPES = 64  # names one navmesh may hold
_NAME = re.compile(r"[a-z][a-z0-9_]{0,31}")
_LEGAL = "a name of 1 to 32 lowercase letters, digits or '_', starting with a letter (e.g. 'mud')"


def check_area_type(parameter: str, value: object) -> str:
    """``value`` if it is a legal area type name, else ParameterError naming ``parameter``."""
    if not isinstance(value, str) or not _NAME.fullmatch(value):
        raise ParameterError(parameter, short_value(value), _LEGAL)
    return value


def check_area_types(parameter: str, names: Iterable[object]) -> tuple[str, ...]:
    """A navmesh's area type names: legal, different, at most :data:`MAX_AREA_TYPES`, the first
    :data:`GROUND`."""
    if isinstance(names, str):
        raise ParameterError(parameter, short_value(names), f"a sequence of names, the first '{GROUND}'")
    checked: list[str] = []
    for i, name in enumerate(names):
        if i >= MAX_AREA_TYPES:
            raise ParameterError(f"len({parameter})", f"> {MAX_AREA_TYPES}", f"at most {MAX_AREA_TYPES} names")
        name = check_area_type(f"{parameter}[{i}]", name)
        if name in checked:
            raise ParameterError(f"{parameter}[{i}]", name, f"a name not already given (it is {parameter}"
                                 f"[{checked.index(name)}])")
        checked.append(name)
    if not checked or checked[0] != GROUND:
        raise ParameterError(f"{parameter}[0]", checked[0] if checked else None, f"'{GROUND}' (the first name)")
    return tuple(checked)
