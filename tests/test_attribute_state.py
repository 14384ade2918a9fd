"""An object's state as a dict of its attributes and back (voxelworld.attribute_state)."""

from __future__ import annotations

import pytest

from voxelworld.attribute_state import attribute_state, restore_attributes, state_key
from voxelworld.errors import ParameterError


class Walker:
    STATE_ATTRIBUTES = ("position", "_stride_left", "_log")

    def __init__(self):
        self.position, self._stride_left, self._log = (0.0, 0.0), 0.75, []


def test_a_private_attribute_is_keyed_without_its_underscore():
    walker = Walker()
    walker.position, walker._stride_left = (1.0, 2.0), 0.25
    state = attribute_state(walker, Walker.STATE_ATTRIBUTES)
    assert list(state) == ["position", "stride_left", "log"] == [state_key(n) for n in Walker.STATE_ATTRIBUTES]
    assert state["position"] == (1.0, 2.0) and state["stride_left"] == 0.25 and state["log"] is walker._log


def test_a_state_is_taken_back_whole_or_not_at_all():
    fresh = Walker()
    restore_attributes(fresh, {"position": (3.0, 4.0), "stride_left": 0.5, "log": ["step"], "other": 1},
                       Walker.STATE_ATTRIBUTES)
    assert (fresh.position, fresh._stride_left, fresh._log) == ((3.0, 4.0), 0.5, ["step"])
    with pytest.raises(ParameterError, match="without log"):
        restore_attributes(fresh, {"position": (9.0, 9.0), "stride_left": 9.0}, Walker.STATE_ATTRIBUTES)
    assert (fresh.position, fresh._stride_left) == ((3.0, 4.0), 0.5)  # nothing changed
    with pytest.raises(ParameterError, match="mapping"):
        restore_attributes(fresh, [("position", (1.0, 1.0))], Walker.STATE_ATTRIBUTES)
