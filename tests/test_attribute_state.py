"""An object's state as a dict of its attributes and back (voxelworld.attribute_state)."""

from __future__ import annotations

import pytest

from voxelworld.attribute_state import attribute_state, restore_attributes, state_key
from voxelworld.errors import ParameterError, check_range


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


# ------------------------------------------------------------------------------------------------ checks
def test_checks_refuse_a_value_before_anything_is_set():
    from voxelworld.attribute_state import number, sequence
    checks = {"position": sequence(number(), tuple, 2), "stride_left": number(minimum=0.0),
              "log": sequence(number(), list)}
    fresh = Walker()
    with pytest.raises(ParameterError, match=r"state\['stride_left'\] = 'far'"):
        restore_attributes(fresh, {"position": (3.0, 4.0), "stride_left": "far", "log": []},
                           Walker.STATE_ATTRIBUTES, checks=checks)
    with pytest.raises(ParameterError, match=r"state\['log'\]\[1\] = nan"):
        restore_attributes(fresh, {"position": (3.0, 4.0), "stride_left": 1.0, "log": [1.0, float("nan")]},
                           Walker.STATE_ATTRIBUTES, checks=checks)
    assert (fresh.position, fresh._stride_left, fresh._log) == ((0.0, 0.0), 0.75, [])
    restore_attributes(fresh, {"position": (3.0, 4.0), "stride_left": 1.0, "log": [2.0]}, Walker.STATE_ATTRIBUTES,
                       checks=checks)
    assert (fresh.position, fresh._stride_left, fresh._log) == ((3.0, 4.0), 1.0, [2.0])
    both = checks | {"*": lambda walker, name, state: check_range(name, state, "a stride within the log",
                                                                  state["stride_left"] <= len(state["log"]))}
    with pytest.raises(ParameterError, match="a stride within the log"):
        restore_attributes(fresh, {"position": (3.0, 4.0), "stride_left": 5.0, "log": [2.0]},
                           Walker.STATE_ATTRIBUTES, checks=both)


def test_each_check_takes_what_its_object_works_with_and_nothing_else():
    import numpy as np

    from voxelworld.attribute_state import array, flag, instance, mapping, number, optional, pair, set_of, text, whole
    cases = [  # check, values taken, values refused
        (number(0.0, 1.0), [0, 0.5, np.float64(1.0)], [True, "0.5", None, 1.5, -0.1, float("nan"), float("inf")]),
        (number(minimum=0.0, infinite=True), [0.0, float("inf")], [float("nan"), -1.0]),
        (whole(0), [0, 7, np.int64(3)], [-1, 1.0, True, "1"]),
        (flag, [True, False, np.bool_(True)], [0, 1, "yes", None]),
        (text(("a", "b")), ["a", "b"], ["c", 1, None]),
        (optional(text()), [None, "x"], [3]),
        (array((None, 3)), [np.zeros((2, 3)), np.zeros((0, 3))],
         [np.zeros((2, 2)), np.zeros((2, 3), dtype=np.float32), [[0.0, 0.0, 0.0]], np.full((1, 3), np.nan)]),
        (instance(complex, imag=number(maximum=0.0)), [1 + 0j, 2 - 1j], [1.0, 1 + 1j]),
        (pair(whole(), text()), [(1, "a")], [[1, "a"], (1, "a", 2), ("a", 1)]),
        (set_of(text()), [frozenset({"a"}), frozenset()], [{"a"}, ("a",), frozenset({1})]),
        (set_of(whole(), set), [{1, 2}], [frozenset({1})]),
        (mapping(text(), whole(0)), [{"a": 1}, {}], [{"a": -1}, {1: 1}, [("a", 1)]]),
    ]
    for check, good, bad in cases:
        for value in good:
            check("value", value)
        for value in bad:
            with pytest.raises(ParameterError, match="value"):
                check("value", value)


def test_every_class_that_hands_over_its_state_checks_every_key():
    from voxelworld.game.agents import Agents
    from voxelworld.game.enemy import ChainsawEnemy
    from voxelworld.game.navigation import WorldNavigation
    from voxelworld.game.npcs import NPC
    from voxelworld.game.play import PlayerActions
    from voxelworld.game.player import Player
    from voxelworld.game.world import World
    from voxelworld.motion import ContactMotion
    for cls in (World, Player, PlayerActions, Agents, NPC, ChainsawEnemy, ContactMotion, WorldNavigation):
        assert set(cls.STATE_CHECKS) - {"*"} == {state_key(name) for name in cls.STATE_ATTRIBUTES}, cls.__name__


def test_the_ranges_of_a_state_refuse_extreme_finite_values_and_minus_infinity():
    """Issue 30: times, counts and speeds of a state have ranges; a check that takes inf ("never yet") takes -inf
    only where it has no minimum."""
    import numpy as np

    from voxelworld.attribute_state import MAX_COUNT, MAX_SECONDS, bounded, count, number, seconds, speed
    for check, good, bad in ((seconds(), (0.0, MAX_SECONDS), (-1.0, 1e300, float("inf"))),
                             (seconds(infinite=True), (0.0, float("inf")), (-1e-300, 1e300, float("-inf"))),
                             (number(minimum=0.0, infinite=True), (float("inf"),), (float("-inf"),)),
                             (number(infinite=True), (float("-inf"), float("inf")), ()),
                             (count(), (0, MAX_COUNT), (-1, MAX_COUNT + 1)),
                             (speed(), (np.array([0.0, -1e3, 1e3]),), (np.array([0.0, 0.0, 1e300]),)),
                             (bounded((None,), 100.0, "", 0.0), (np.array([0.0, 100.0]),), (np.array([-1e-9]),))):
        for value in good:
            check("state['x']", value)
        for value in bad:
            with pytest.raises(ParameterError, match=r"state\['x'\]"):
                check("state['x']", value)
