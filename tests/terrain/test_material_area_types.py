"""A material's optional ``area_type`` column (issue 33 §2): "" by default (derived by the game), a legal area type
name, or refused naming the field, in code, in TOML and in a world file's table."""

from __future__ import annotations

import re

import pytest

from voxelworld.errors import FormatError, ParameterError
from voxelworld.io.codec import material_table_data, material_table_from_data
from voxelworld.navigation import area_types
from voxelworld.terrain import materials as materials_module
from voxelworld.terrain.materials import Material, MaterialTable

ROW = '[[material]]\nid = 1\nname = "mud"\ngroup = "soil"\nhardness = 0.5\n'


def test_the_column_is_empty_by_default_and_takes_a_name():
    assert all(m.area_type == "" for m in MaterialTable.default())
    assert Material(id=1, name="mud", group="soil", hardness=0.5, area_type="mud").area_type == "mud"
    assert MaterialTable.from_toml_string(ROW + 'area_type = "mud_deep"\n')["mud"].area_type == "mud_deep"


@pytest.mark.parametrize("value", ["Mud", "1mud", "mud-deep", "m" * 33, 3, None, " mud"])
def test_a_bad_area_type_is_refused_naming_the_field(value):
    with pytest.raises(ParameterError) as caught:
        Material(id=1, name="mud", group="soil", hardness=0.5, area_type=value)
    assert caught.value.parameter == "area_type"
    text = ROW + f"area_type = {value!r}\n".replace("'", '"') if isinstance(value, str) else ROW + "area_type = 3\n"
    with pytest.raises(FormatError, match="area_type"):
        MaterialTable.from_toml_string(text)


def test_a_world_files_table_keeps_it_and_an_older_one_reads_without_it():
    table = MaterialTable([Material(id=1, name="mud", group="soil", hardness=0.5, area_type="mud")])
    data = material_table_data(table)
    assert material_table_from_data(data, "t")["mud"].area_type == "mud"
    del data["materials"][0]["area_type"]  # as a table saved before the column
    assert material_table_from_data(data, "t")["mud"].area_type == ""
    data["materials"][0]["area_type"] = "Mud"
    with pytest.raises(FormatError, match="area_type"):
        material_table_from_data(data, "t")


def test_the_terrain_checks_names_as_the_navigation_does():
    # terrain/ sits below navigation/ and keeps its own copy of the rule: they must agree.
    assert materials_module._AREA_TYPE.pattern == area_types._NAME.pattern
    assert re.fullmatch(materials_module._AREA_TYPE, "ground")
