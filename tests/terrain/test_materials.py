"""Tests of voxelworld.terrain.materials: Material, MaterialTable, TOML loading and the lookup arrays."""

from __future__ import annotations

import dataclasses
import doctest

import numpy as np
import pytest

from voxelworld.errors import FormatError, ParameterError
from voxelworld.terrain import materials as materials_module
from voxelworld.terrain.materials import Material, MaterialTable

DEFAULT_ORDER = ("grass", "soil", "sand", "rock", "rock_interior", "bark", "wood", "lava", "obsidian", "ice",
                 "iron")

SMALL_TOML = """
[groups.rock]
min_fragment_size = 27

[groups.metal]
min_fragment_size = 1

[[material]]
id = 1
name = "stone"
group = "rock"
hardness = 4.5
colour = "#ff8000"
texture = "stone_tex"
interior = "stone_core"
fragment_priority = 3
weight = 2500.0
slipperiness = 0.25
contact_damage = 1.5
temperature = 12.0
attachable = true
stamina_reward = 0.5
currency_reward = 2.0
footstep = "stone"

[[material]]
id = 2
name = "stone_core"
group = "rock"
hardness = 4.5
colour = "#000000"
weight = 2500.0
slipperiness = 0.25
contact_damage = 1.5
temperature = 12.0
attachable = true
stamina_reward = 0.5
currency_reward = 2.0
footstep = "stone"

[[material]]
id = 7
name = "gold"
group = "metal"
hardness = 2.5
colour = "#ffd700"
min_fragment_size = 4

[[material]]
id = 9
name = "moss"
group = "plants"
hardness = 0.2
"""


def small_table(tmp_path) -> MaterialTable:
    path = tmp_path / "small.toml"
    path.write_text(SMALL_TOML, encoding="utf-8")
    return MaterialTable.from_toml(path)


# --- the default table -------------------------------------------------------------------------------------------

def test_default_table_has_the_names_in_id_order():
    table = MaterialTable.default()
    assert table.names[:len(DEFAULT_ORDER)] == DEFAULT_ORDER
    for expected_id, name in enumerate(DEFAULT_ORDER, start=1):
        assert table.id_of(name) == expected_id
        assert table[name].id == expected_id
        assert table[expected_id].name == name
    assert [m.id for m in table] == sorted(m.id for m in table)
    assert len(table) == len(table.names) >= len(DEFAULT_ORDER)


def test_default_table_values_fit_the_default_tool_and_gameplay():
    table = MaterialTable.default()
    assert table["iron"].hardness >= 8.0  # the default tool cannot cut it
    assert 3.0 <= table["rock"].hardness < 8.0  # damaged, not given way
    assert table["sand"].hardness < 3.0
    assert table["grass"].interior == "soil"
    assert table["bark"].interior == "wood"
    assert table["rock"].interior == "rock_interior"
    assert table["soil"].interior == "soil"  # defaults to itself
    lava = table["lava"]
    assert lava.contact_damage > 0 and lava.temperature > 1000
    assert lava.fragment_priority < min(m.fragment_priority for m in table if m.name != "lava")
    assert all(m.footstep for m in table)
    assert table.min_fragment_size_by_id[table.id_of("iron")] == 1
    assert table.min_fragment_size_by_id[table.id_of("rock")] > table.min_fragment_size_by_id[table.id_of("soil")]


def test_default_is_shared_and_read_only():
    table = MaterialTable.default()
    assert MaterialTable.default() is table
    with pytest.raises(ValueError):
        table.hardness_by_id[1] = 99.0
    with pytest.raises(dataclasses.FrozenInstanceError):
        table["rock"].hardness = 0.0  # type: ignore[misc]


# --- same_kind ----------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("a, b, expected", [
    ("rock", "rock_interior", True),
    ("rock_interior", "rock", True),
    ("bark", "wood", True),
    ("rock", "soil", False),
    ("rock", "obsidian", False),  # same group, other hardness
    ("grass", "soil", False),
    ("rock", "rock", True),
    ("lava", 8, True),
    ("none", "none", True),
    ("none", 0, True),
    ("none", "sand", False),
    (0, "rock", False),
])
def test_same_kind_default_table(a, b, expected):
    assert MaterialTable.default().same_kind(a, b) is expected


def test_same_kind_ignores_looks_but_not_free_properties():
    base = Material(1, "a", "g", 2.0, colour="#ff0000", texture="t", fragment_priority=5, min_fragment_size=3)
    looks_different = Material(2, "b", "g", 2.0, colour="#00ff00", texture="u", interior="a",
                               fragment_priority=-5, min_fragment_size=9)
    others = [dataclasses.replace(base, id=10 + n, name=f"x{n}", **{field: value})
              for n, (field, value) in enumerate([("group", "h"), ("hardness", 2.5), ("weight", 1.0),
                                                  ("slipperiness", 0.9), ("contact_damage", 1.0),
                                                  ("temperature", -3.0), ("attachable", True),
                                                  ("stamina_reward", 1.0), ("currency_reward", 1.0),
                                                  ("footstep", "clank")])]
    table = MaterialTable([base, looks_different, *others])
    assert table.same_kind("a", "b")
    assert table.kind_by_id[2] == 1
    for other in others:
        assert not table.same_kind("a", other.name), other
        assert table.kind_by_id[other.id] == other.id


# --- TOML ---------------------------------------------------------------------------------------------------------

def test_from_toml_reads_every_field(tmp_path):
    table = small_table(tmp_path)
    assert table.names == ("stone", "stone_core", "gold", "moss")
    stone = table["stone"]
    assert stone == Material(id=1, name="stone", group="rock", hardness=4.5, colour=(1.0, 128 / 255, 0.0),
                             texture="stone_tex", interior="stone_core", fragment_priority=3,
                             min_fragment_size=None, weight=2500.0, slipperiness=0.25, contact_damage=1.5,
                             temperature=12.0, attachable=True, stamina_reward=0.5, currency_reward=2.0,
                             footstep="stone")
    moss = table[9]
    assert (moss.interior, moss.weight, moss.slipperiness, moss.footstep, moss.attachable) == (
        "moss", 1000.0, 0.5, "", False)
    assert table.same_kind("stone", "stone_core")
    assert table.group_min_fragment_size == {"rock": 27, "metal": 1}


def test_from_toml_string_matches_from_toml(tmp_path):
    from_file = small_table(tmp_path)
    from_text = MaterialTable.from_toml_string(SMALL_TOML)
    assert list(from_file) == list(from_text)
    assert np.array_equal(from_file.min_fragment_size_by_id, from_text.min_fragment_size_by_id)


def test_min_fragment_size_falls_back_material_then_group_then_default(tmp_path):
    table = small_table(tmp_path)
    sizes = table.min_fragment_size_by_id
    assert sizes[table.id_of("stone")] == 27  # group rock
    assert sizes[table.id_of("gold")] == 4  # its own, over group metal's 1
    assert sizes[table.id_of("moss")] == 8  # group plants has no entry: the table default
    assert sizes[0] == 0 and sizes[100] == 0
    custom = MaterialTable(list(table), group_min_fragment_size={"plants": 2}, default_min_fragment_size=5)
    assert custom.min_fragment_size_by_id[table.id_of("moss")] == 2
    assert custom.min_fragment_size_by_id[table.id_of("stone")] == 5


# --- lookup arrays ------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("table_source", ["default", "small"])
def test_lookup_arrays_match_the_materials(tmp_path, table_source):
    table = MaterialTable.default() if table_source == "default" else small_table(tmp_path)
    arrays = {"hardness_by_id": np.float64, "interior_by_id": np.uint8, "fragment_priority_by_id": np.int32,
              "min_fragment_size_by_id": np.int64, "kind_by_id": np.uint8}
    for name, dtype in arrays.items():
        array = getattr(table, name)
        assert array.shape == (256,) and array.dtype == dtype and not array.flags.writeable, name
    assert len(table.name_by_id) == len(table.group_by_id) == 256
    used = {m.id for m in table}
    for m in table:
        assert table.hardness_by_id[m.id] == m.hardness
        assert table.name_by_id[table.interior_by_id[m.id]] == m.interior
        assert table.fragment_priority_by_id[m.id] == m.fragment_priority
        assert table.name_by_id[m.id] == m.name and table.group_by_id[m.id] == m.group
        kind = int(table.kind_by_id[m.id])
        assert kind == min(o.id for o in table if table.same_kind(o.id, m.id))
    for unused in [0, *(i for i in range(1, 256) if i not in used)]:
        assert table.hardness_by_id[unused] == 0.0
        assert table.interior_by_id[unused] == unused
        assert table.fragment_priority_by_id[unused] == -2**31
        assert table.min_fragment_size_by_id[unused] == 0
        assert table.kind_by_id[unused] == 0
        assert table.name_by_id[unused] == ("none" if unused == 0 else "")
        assert table.group_by_id[unused] == ("none" if unused == 0 else "")


# --- lookups --------------------------------------------------------------------------------------------------------

def test_id_of_accepts_names_ids_and_numpy_integers():
    table = MaterialTable.default()
    assert table.id_of("none") == 0 and table.id_of(0) == 0
    assert table.id_of(np.uint8(4)) == 4 and table.id_of(np.int64(0)) == 0
    assert isinstance(table.id_of(np.uint8(4)), int)
    assert table[np.int32(11)].name == "iron"
    assert "rock" in table and 4 in table and "none" not in table and "granite" not in table


@pytest.mark.parametrize("bad", ["granite", "Rock", "", 200, 256, -1, True, 4.0, None])
def test_unknown_material_raises_parameter_error(bad):
    table = MaterialTable.default()
    with pytest.raises(ParameterError) as info:
        table.id_of(bad)
    assert info.value.parameter == "material" and info.value.value is bad
    assert "rock_interior" in info.value.legal
    with pytest.raises(ParameterError):
        table[bad]
    with pytest.raises(ParameterError):
        table.same_kind("rock", bad)


def test_getitem_of_none_raises():
    with pytest.raises(ParameterError, match="material"):
        MaterialTable.default()["none"]


# --- bad input ----------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("field, value", [
    ("id", 0), ("id", 256), ("id", 1.5), ("name", ""), ("name", "Rock"), ("name", "none"), ("group", "a b"),
    ("hardness", -1.0), ("hardness", float("nan")), ("colour", "#12345"), ("colour", "red"),
    ("colour", (0.1, 0.2)), ("colour", (0.1, 0.2, 1.5)), ("texture", None), ("interior", "Bad-name"),
    ("fragment_priority", 2.5), ("min_fragment_size", 0), ("min_fragment_size", 2**70), ("weight", -1.0), ("slipperiness", 1.5),
    ("contact_damage", -0.1), ("temperature", -300.0), ("temperature", float("inf")), ("attachable", 1),
    ("stamina_reward", "a lot"), ("footstep", 3),
])
def test_bad_material_field_raises_parameter_error_naming_it(field, value):
    good = {"id": 1, "name": "rock", "group": "rock", "hardness": 5.0}
    with pytest.raises(ParameterError) as info:
        Material(**{**good, field: value})
    assert info.value.parameter == field


def test_table_rejects_duplicate_id_naming_the_material():
    with pytest.raises(ParameterError, match="sand") as info:
        MaterialTable([Material(3, "soil", "soil", 1.0), Material(3, "sand", "soil", 0.5)])
    assert "id" in info.value.parameter and info.value.value == 3 and "soil" in info.value.legal


def test_table_rejects_duplicate_name():
    with pytest.raises(ParameterError) as info:
        MaterialTable([Material(1, "soil", "soil", 1.0), Material(2, "soil", "soil", 0.5)])
    assert info.value.parameter.endswith("name") and info.value.value == "soil"


def test_table_rejects_unknown_interior_naming_the_material():
    with pytest.raises(ParameterError) as info:
        MaterialTable([Material(1, "grass", "soil", 1.0, interior="dirt")])
    assert "grass" in info.value.parameter and "interior" in info.value.parameter
    assert info.value.value == "dirt"


def test_table_rejects_bad_sizes_and_non_materials():
    with pytest.raises(ParameterError, match="default_min_fragment_size"):
        MaterialTable([], default_min_fragment_size=0)
    with pytest.raises(ParameterError, match="group_min_fragment_size"):
        MaterialTable([], group_min_fragment_size={"rock": -4})
    for huge in (2**31, 2**70):  # refused (no int64 overflow while the lookups are built, found by fuzzing)
        with pytest.raises(ParameterError, match="group_min_fragment_size"):
            MaterialTable([Material(1, "rock", "rock", 5.0)], group_min_fragment_size={"rock": huge})
        with pytest.raises(ParameterError, match="default_min_fragment_size"):
            MaterialTable([Material(1, "rock", "rock", 5.0)], default_min_fragment_size=huge)
    with pytest.raises(ParameterError, match=r"materials\[0\]"):
        MaterialTable(["rock"])  # type: ignore[list-item]


def _entry(**fields) -> str:
    base = {"id": 1, "name": "rock", "group": "rock", "hardness": 5.0, **fields}
    lines = [f"{k} = {v!r}" if not isinstance(v, bool) else f"{k} = {str(v).lower()}" for k, v in base.items()]
    return "[[material]]\n" + "\n".join(lines).replace("'", '"') + "\n"


@pytest.mark.parametrize("text, must_mention", [
    (_entry(hardnes=5.0), "hardnes"),  # the typo is named
    (_entry(colour="#12345"), "colour"),
    (_entry(colour="#gg0000"), "colour"),
    (_entry(interior="core"), "interior"),
    (_entry() + _entry(name="granite"), "id"),  # duplicate id
    (_entry() + _entry(id=2), "name"),  # duplicate name
    ("[[material]]\nid = 1\nname = \"rock\"\ngroup = \"rock\"\n", "hardness"),  # missing key
    ("[groups.rock]\nmin_fragment_sise = 3\n", "min_fragment_sise"),
    ("[groups.rock]\nmin_fragment_size = 0\n", "groups.rock.min_fragment_size"),
    ("groups = 3\n", "groups"),
    ("material = 3\n", "material"),
    ("materials = []\n", "materials"),
    ("material = [3]\n", "#1"),
])
def test_bad_toml_structure_raises_format_error_naming_source_and_key(text, must_mention):
    with pytest.raises(FormatError) as info:
        MaterialTable.from_toml_string(text, source="level.toml")
    assert "level.toml" in str(info.value) and must_mention in str(info.value)


def test_unknown_key_in_file_names_the_file_the_material_and_the_key(tmp_path):
    path = tmp_path / "typo.toml"
    path.write_text(SMALL_TOML.replace("slipperiness = 0.25\ncontact", "slipperyness = 0.25\ncontact", 1))
    with pytest.raises(FormatError) as info:
        MaterialTable.from_toml(path)
    message = str(info.value)
    assert str(path) in message and "slipperyness" in message and "stone" in message


def test_missing_file_raises_format_error_naming_it(tmp_path):
    path = tmp_path / "nowhere.toml"
    with pytest.raises(FormatError, match="nowhere.toml"):
        MaterialTable.from_toml(path)


def test_invalid_toml_raises_format_error_naming_the_file(tmp_path):
    path = tmp_path / "broken.toml"
    path.write_text("[[material]\nid = 1\n", encoding="utf-8")
    with pytest.raises(FormatError, match="broken.toml.*not valid TOML"):
        MaterialTable.from_toml(path)


def test_non_utf8_file_raises_format_error(tmp_path):
    path = tmp_path / "latin1.toml"
    path.write_bytes('name = "caf\xe9"\n'.encode("latin-1"))
    with pytest.raises(FormatError, match="latin1.toml"):
        MaterialTable.from_toml(path)


def test_module_examples_run():
    results = doctest.testmod(materials_module)
    assert results.attempted > 0 and results.failed == 0
