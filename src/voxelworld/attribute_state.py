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
"""

from __future__ import annotations

from collections.abc import Mapping

from .errors import ParameterError

__all__ = ["state_key", "attribute_state", "restore_attributes"]


def state_key(attribute: str) -> str:
    """The key of ``attribute`` in a state dict: its name without the leading underscore of a private one."""
    return attribute.removeprefix("_")


def attribute_state(obj, attributes) -> dict:
    """``obj``'s ``attributes`` as a state dict (key: :func:`state_key`), in the order given."""
    return {state_key(name): getattr(obj, name) for name in attributes}


def restore_attributes(obj, state: Mapping, attributes, added=()) -> None:
    """Set ``obj``'s ``attributes`` to the values of ``state`` (as :func:`attribute_state` gives them; other keys
    are left alone). A state missing a key raises :class:`ParameterError` before anything is set, except the
    keys of the ``added`` attributes (added to the state after files were written without them): an attribute
    whose key is missing keeps the value it has (the constructor's default)."""
    keys = [state_key(name) for name in attributes]
    if not isinstance(state, Mapping):
        raise ParameterError("state", type(state).__name__, f"a mapping with the keys {', '.join(keys)}")
    missing = [key for name, key in zip(attributes, keys) if key not in state and name not in added]
    if missing:
        raise ParameterError("state", f"a mapping without {', '.join(missing)}",
                             f"a mapping with the keys {', '.join(keys)}")
    for name, key in zip(attributes, keys):
        if key in state:
            setattr(obj, name, state[key])
