"""The state codec: game values to JSON and back, bit for bit; unknown types refused both ways."""

from __future__ import annotations

import json
import math
from dataclasses import dataclass

import numpy as np
import pytest

from voxelworld.errors import FormatError, ParameterError
from voxelworld.game.deformation import AwardSettings
from voxelworld.game.play import ActionSettings
from voxelworld.game.player import PlayerSettings
from voxelworld.game.throwing import ImpactRules
from voxelworld.game.world import WorldSettings
from voxelworld.io.codec import StateCodec, material_table_data, material_table_from_data
from voxelworld.motion.part_contacts import Contact
from voxelworld.terrain import MaterialTable, Sphere, Tool, Union


@pytest.fixture(scope="module")
def codec():
    return StateCodec(MaterialTable.default())


def round_trip(codec, value):
    text = json.dumps(codec.encode(value, "value"))
    return codec.decode(json.loads(text), "value")


def test_settings_round_trip(codec):
    settings = WorldSettings(
        player=PlayerSettings(walk_speed=3.3, max_slope=40.0),
        actions=ActionSettings(impact=ImpactRules(overrides=(("rock", "iron", "attach"),), explode_tool=Tool(7)),
                               awards=AwardSettings(group_thresholds=(("rock", (2.0, 10.0)),))),
        navmesh_delay=0.1)
    assert round_trip(codec, settings) == settings
    assert round_trip(codec, WorldSettings()) == WorldSettings()


def test_values_round_trip_exactly(codec):
    values = [None, True, 0, -7, 2**70, 0.1, -0.0, 1e-300, math.inf, -math.inf, "grass", (1, (2.5, "x")), [1, [2]],
              {(0, 1, 2): "a", "b": (1.0,)}, frozenset({(1, 2, 3), (0, 0, 0)}), {"soil", "rock"},
              Union((Sphere((1.0, 2.0, 3.0), 0.5), Sphere((0.0, 0.0, 0.0), 1.0)))]
    for value in values:
        back = round_trip(codec, value)
        assert back == value and type(back) is type(value), value
    assert math.copysign(1.0, round_trip(codec, -0.0)) == -1.0
    assert math.isnan(round_trip(codec, math.nan))
    for array in (np.arange(12, dtype=np.uint16).reshape(3, 4), np.array([np.nan, -0.0, 1e308]),
                  np.zeros((0, 3), np.float32), np.array([True, False])):
        back = round_trip(codec, array)
        assert back.dtype == array.dtype and back.shape == array.shape and back.tobytes() == array.tobytes()


def test_numpy_scalars_become_numbers(codec):
    assert codec.encode(np.float64(0.5), "x") == 0.5 and codec.encode(np.int64(3), "x") == 3
    assert codec.encode(np.bool_(True), "x") is True


def test_sets_are_written_in_one_order(codec):
    a = codec.encode({"zeta", "alpha", "mid"}, "x")
    assert a["items"] == ["alpha", "mid", "zeta"]


def test_stored_bits_are_kept_where_a_constructor_moves_them(codec):
    # Contact normalises its normal on construction; normalising a unit vector again may move the last bit.
    contact = Contact((0.0, 0.0, 0.0), (0.1257302210933933, -0.1321048632913019, 0.6404226504432821), "rock", 5.0)
    assert Contact((0.0, 0.0, 0.0), contact.normal, "rock", 5.0).normal != contact.normal  # this one does
    assert round_trip(codec, contact).normal == contact.normal


@dataclass(frozen=True)
class Unknown:
    x: int = 1


def test_unknown_types_are_refused_naming_where(codec):
    with pytest.raises(ParameterError, match=r"settings\['odd'\]"):
        codec.encode({"fine": 1, "odd": object()}, "settings")
    with pytest.raises(ParameterError, match="Unknown"):
        codec.encode((Unknown(),), "value")
    with pytest.raises(ParameterError, match="complex"):
        codec.encode(np.zeros(2, np.complex128), "value")
    with pytest.raises(FormatError, match="unknown type 'os.system'"):
        codec.decode({"$": "os.system", "command": "true"}, "row")
    with pytest.raises(FormatError, match="row: a broken 'ndarray'"):
        codec.decode({"$": "ndarray", "dtype": "float64", "shape": [3], "base64": "%%%"}, "row")
    with pytest.raises(FormatError, match="dtype 'object'"):
        codec.decode({"$": "ndarray", "dtype": "object", "shape": [1], "base64": "AA=="}, "row")
    with pytest.raises(FormatError, match="has no field 'nope'"):
        codec.decode({"$": "terrain.edits.Tool", "nope": 1}, "row")
    with pytest.raises(FormatError, match="not valid"):
        codec.decode({"$": "terrain.edits.Tool", "damage": -5}, "row")
    with pytest.raises(FormatError, match="not an encoded value"):
        codec.decode({"items": []}, "row")


def test_material_tables_round_trip():
    table = MaterialTable.default()
    back = material_table_from_data(json.loads(json.dumps(material_table_data(table))), "materials")
    assert material_table_data(back) == material_table_data(table) and back.names == table.names
    assert np.array_equal(back.hardness_by_id, table.hardness_by_id)
    with pytest.raises(FormatError, match="materials: not a valid material table"):
        material_table_from_data({"materials": [{"id": 0}]}, "materials")


def test_a_class_moved_to_another_module_keeps_the_name_files_hold(codec):
    """The format fixes each type's name (docs/specs/world-format.md): Inputs, Snapshot and WorldSettings moved
    out of game/world.py, and files written before still name them ``game.world.*``."""
    from voxelworld.game.world import Inputs
    from voxelworld.io.codec import TYPES, type_name

    assert WorldSettings.__module__ != "voxelworld.game.world"  # the class really lives elsewhere now
    data = codec.encode(WorldSettings(), "settings")
    assert data["$"] == "game.world.WorldSettings"
    old_file_value = json.loads(json.dumps(codec.encode(Inputs(suck=True), "inputs")))
    assert old_file_value["$"] == "game.world.Inputs" and codec.decode(old_file_value, "inputs") == Inputs(suck=True)
    names = [type_name(cls) for cls in TYPES]
    assert len(set(names)) == len(names) == len(set(TYPES))  # one name per type, one type per name


def test_fields_a_type_has_dropped_are_read_and_dropped(codec):
    """ImpactRules had ``hard_from`` and ``slippery_from`` (attach is now the target's ``attachable``): a file
    written before holds them and still loads; a field no version ever had is still refused."""
    data = json.loads(json.dumps(codec.encode(ImpactRules(), "rules")))
    old = dict(data, hard_from=4.0, slippery_from=0.5)
    assert codec.decode(old, "rules") == ImpactRules()
    with pytest.raises(FormatError, match="no field 'sticky'"):
        codec.decode(dict(data, sticky=1.0), "rules")
