"""An object's state as a dict of its attributes, and back: what the objects of every wing use to hand over the
state they keep from frame to frame (``state_dict()``) and to take it back (``load_state_dict(state)``), so
that a serializer (:mod:`voxelworld.io`) only encodes and decodes values and never reads an object's insides.

A class lists the attributes it keeps in ``STATE_ATTRIBUTES``; the key of an attribute is its name without the
leading underscore of a private one (``_stride_left`` -> ``"stride_left"``). Adding an attribute to the state is
adding its name to that tuple. The values are the object's own, not copies: encode or copy them before the
object changes.

Examples
--------
>>> class Counter:
...     STATE_ATTRIBUTES = ("count", "_last")
...     def __init__(self):
...         self.count, self._last = 0, None
>>> counter = Counter()
>>> counter.count, counter._last = 3, "up"
>>> attribute_state(counter, Counter.STATE_ATTRIBUTES)
{'count': 3, 'last': 'up'}
>>> fresh = Counter()
>>> restore_attributes(fresh, {"count": 3, "last": "up"}, Counter.STATE_ATTRIBUTES)
>>> fresh.count, fresh._last
(3, 'up')
>>> restore_attributes(fresh, {"count": 4}, Counter.STATE_ATTRIBUTES)
Traceback (most recent call last):
...
voxelworld.errors.ParameterError: ...state...a mapping without last...
>>> restore_attributes(fresh, {"count": 4}, Counter.STATE_ATTRIBUTES, added=("_last",))  # an older state
>>> fresh.count, fresh._last
(4, 'up')

A class also says how each value it takes back is checked (``STATE_CHECKS``: key -> check), so that a state
read from a file either restores an object that works or is refused, naming the key, before anything is set:

>>> CHECKS = {"count": whole(minimum=0), "last": optional(text(("up", "down")))}
>>> restore_attributes(fresh, {"count": -1, "last": "up"}, Counter.STATE_ATTRIBUTES, checks=CHECKS)
Traceback (most recent call last):
...
voxelworld.errors.ParameterError: state['count'] = -1 is out of range: ... a whole number >= 0
>>> fresh.count
4
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Mapping
from typing import Any

import numpy as np

from .errors import ParameterError, check_finite, check_integer, check_range

__all__ = ["state_key", "attribute_state", "restore_attributes", "Check", "number", "whole", "flag", "text",
           "optional", "array", "instance", "sequence", "set_of", "mapping", "pair", "MAX_SECONDS", "MAX_COUNT",
           "MAX_SPEED", "seconds", "count", "bounded", "speed"]

# A check of a value taken back: called with the value's name and the value, raises ParameterError naming them
# unless the value is one its object can work with.
Check = Callable[[str, object], None]


def state_key(attribute: str) -> str:
    """The key of ``attribute`` in a state dict: its name without the leading underscore of a private one."""
    return attribute.removeprefix("_")


def attribute_state(obj: object, attributes: Iterable[str]) -> dict[str, Any]:
    """``obj``'s ``attributes`` as a state dict (key: :func:`state_key`), in the order given."""
    return {state_key(name): getattr(obj, name) for name in attributes}


def restore_attributes(obj: object, state: Mapping[str, Any], attributes: tuple[str, ...] | list[str],
                       added: tuple[str, ...] = (), checks: Mapping[str, Callable[..., None]] | None = None
                       ) -> None:
    """Set ``obj``'s ``attributes`` to the values of ``state`` (as :func:`attribute_state` gives them; other keys
    are left alone). A state missing a key raises :class:`ParameterError` before anything is set, except the
    keys of the ``added`` attributes (added to the state after files were written without them): an attribute
    whose key is missing keeps the value it has (the constructor's default). ``checks`` (key -> :data:`Check`,
    one for every key) check each value given, before anything is set: the first value refused raises its
    :class:`ParameterError`, naming ``state['key']``; a check under the key ``"*"``, if any, is then called with
    ``obj``, ``"state"`` and the whole state, for what ties values together or to the object."""
    keys = [state_key(name) for name in attributes]
    if not isinstance(state, Mapping):
        raise ParameterError("state", type(state).__name__, f"a mapping with the keys {', '.join(keys)}")
    missing = [key for name, key in zip(attributes, keys) if key not in state and name not in added]
    if missing:
        raise ParameterError("state", f"a mapping without {', '.join(missing)}",
                             f"a mapping with the keys {', '.join(keys)}")
    if checks is not None:
        for key in keys:
            if key in state:
                checks[key](f"state[{key!r}]", state[key])  # a KeyError here: a class that forgot a check
        if "*" in checks:
            checks["*"](obj, "state", state)
    for name, key in zip(attributes, keys):
        if key in state:
            setattr(obj, name, state[key])


# ------------------------------------------------------------------------------------------------ checks
def _is_number(value: object) -> bool:
    return isinstance(value, (int, float, np.integer, np.floating)) and not isinstance(value, (bool, np.bool_))


def number(minimum: float | None = None, maximum: float | None = None, unit: str = "", infinite: bool = False,
           strict_minimum: bool = False) -> Check:
    """A finite number in range, not a bool nor a string (``infinite``: +inf is taken too, whatever ``maximum``
    says, and -inf when there is no ``minimum``)."""
    def check(name: str, value: Any) -> None:
        if infinite and _is_number(value) and math.isinf(value) and (value > 0 or minimum is None):
            return
        check_range(name, value, "a number", _is_number(value))
        check_finite(name, value, minimum=minimum, maximum=maximum, unit=unit, strict_minimum=strict_minimum)
    return check


def whole(minimum: int | None = None, maximum: int | None = None) -> Check:
    """A whole number (int, not bool) in range."""
    def check(name: str, value: Any) -> None:
        check_range(name, value, "a whole number", isinstance(value, (int, np.integer)) and not isinstance(
            value, (bool, np.bool_)))
        check_integer(name, value, minimum=minimum, maximum=maximum)
    return check


def flag(name: str, value: object) -> None:
    """True or False."""
    check_range(name, value, "True or False", isinstance(value, (bool, np.bool_)))


def text(choices: Iterable[str] | None = None) -> Check:
    """A string (one of ``choices`` if given)."""
    def check(name: str, value: Any) -> None:
        legal = "a string" if choices is None else f"one of {', '.join(map(repr, choices))}"
        check_range(name, value, legal, isinstance(value, str) and (choices is None or value in choices))
    return check


def optional(check: Check) -> Check:
    """None, or a value ``check`` takes."""
    def check_optional(name: str, value: Any) -> None:
        if value is not None:
            check(name, value)
    return check_optional


def array(shape: tuple[int | None, ...], dtype: str = "float64", finite: bool = True) -> Check:
    """A numpy array of ``dtype`` and ``shape`` (None: any length on that axis), every value finite."""
    def check(name: str, value: Any) -> None:
        legal = f"a {dtype} array of shape {shape}" + (", every value finite" if finite else "")
        ok = (isinstance(value, np.ndarray) and value.dtype == np.dtype(dtype) and value.ndim == len(shape)
              and all(n is None or n == m for n, m in zip(shape, value.shape)))
        check_range(name, f"an array of {value.dtype} {value.shape}" if isinstance(value, np.ndarray) else value,
                    legal, ok)
        check_range(name, "an array with NaN or infinite values", legal,
                    not finite or value.dtype.kind != "f" or bool(np.all(np.isfinite(value))))
    return check


def instance(cls: type, **fields: Check) -> Check:
    """An instance of ``cls`` whose ``fields`` (name -> check) the checks given take (the others: as its
    constructor checks them)."""
    def check(name: str, value: Any) -> None:
        check_range(name, type(value).__name__, f"a {cls.__name__}", isinstance(value, cls))
        for field, field_check in fields.items():
            field_check(f"{name}.{field}", getattr(value, field))
    return check


def sequence(item: Check, kind: type[tuple[Any, ...]] | type[list[Any]] = tuple, length: int | None = None) -> Check:
    """A ``kind`` (tuple or list) of ``length`` items (any if None), each taken by ``item``."""
    def check(name: str, value: Any) -> None:
        check_range(name, type(value).__name__, f"a {kind.__name__}" + ("" if length is None else
                                                                          f" of {length} items"),
                    isinstance(value, kind) and (length is None or len(value) == length))
        for n, entry in enumerate(value):
            item(f"{name}[{n}]", entry)
    return check


def pair(first: Check, second: Check) -> Check:
    """A tuple of two values, taken by ``first`` and ``second``."""
    def check(name: str, value: Any) -> None:
        check_range(name, type(value).__name__, "a tuple of two", isinstance(value, tuple) and len(value) == 2)
        first(f"{name}[0]", value[0])
        second(f"{name}[1]", value[1])
    return check


def set_of(item: Check, kind: type = frozenset) -> Check:
    """A ``kind`` (frozenset or set) of items, each taken by ``item``."""
    def check(name: str, value: Any) -> None:
        check_range(name, type(value).__name__, f"a {kind.__name__}", type(value) is kind)
        for entry in value:
            item(f"{name}{{}}", entry)
    return check


def mapping(key: Check, value: Check) -> Check:
    """A dict whose keys ``key`` and values ``value`` take."""
    def check(name: str, data: Any) -> None:
        check_range(name, type(data).__name__, "a dict", isinstance(data, dict))
        for k, v in data.items():
            key(f"{name} key", k)
            value(f"{name}[{k!r}]", v)
    return check


# ------------------------------------------------------------------------------------------ ranges of a state
MAX_SECONDS = 1e9  # s (about 32 years of play): any time, clock or timer of a state
MAX_COUNT = 2 ** 53  # any counter of a state (frames, replans, voxels carved, ...): whole numbers exact as floats
MAX_SPEED = 1e3  # m/s on each axis: any velocity of a state (falls, sprints and slides stay far below)


def seconds(infinite: bool = False) -> Check:
    """A time of a state: s in [0, MAX_SECONDS] (``infinite``: +inf too, for "never yet")."""
    return number(0.0, MAX_SECONDS, "s", infinite=infinite)


def count() -> Check:
    """A counter of a state: a whole number in [0, MAX_COUNT]."""
    return whole(0, MAX_COUNT)


def bounded(shape: tuple[int | None, ...], limit: float, unit: str, minimum: float | None = None) -> Check:
    """A float64 array of ``shape`` whose every value lies within ±``limit`` (``unit``), or in [``minimum``,
    ``limit``] when ``minimum`` is given."""
    low = -limit if minimum is None else minimum
    def check(name: str, value: Any) -> None:
        array(shape)(name, value)
        legal = f"a float64 array of shape {shape}, every value " + (
            f"within ±{limit} {unit}" if minimum is None else f"in [{minimum}, {limit}] {unit}")
        check_range(name, tuple(value.ravel().tolist()) if value.size <= 8 else "an array", legal.rstrip(),
                    bool(np.all((value >= low) & (value <= limit))))
    return check


def speed(shape: tuple[int | None, ...] = (3,)) -> Check:
    """A velocity of a state: m/s, each component within ±MAX_SPEED."""
    return bounded(shape, MAX_SPEED, "m/s")
