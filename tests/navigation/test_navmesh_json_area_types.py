"""Navmesh JSON version 2 carries the area types; version 1 documents (written before them) still read, every
polygon ground; hostile area type fields are refused with a FormatError naming the field."""

from __future__ import annotations

import json

import numpy as np
import pytest

from voxelworld.errors import FormatError
from voxelworld.navigation import NavMesh, NavSettings, Scene, SearchRegion
from voxelworld.navigation.bake import bake
from voxelworld.navigation.formats import FORMAT_VERSION

from .test_navmesh_checks import GOOD

V2 = {**GOOD, "version": 2, "area_types": ["ground", "mud"], "polygon_area_type": [0, 1]}


def test_a_baked_navmesh_keeps_its_area_types_through_json():
    floor = [[0, 0, 0], [8, 0, 0], [8, 0, 8], [0, 0, 8]]
    mud = [[3, 0.01, 0], [5, 0.01, 0], [5, 0.01, 8], [3, 0.01, 8]]
    scene = Scene().with_object("floor", floor, [[0, 2, 1], [0, 3, 2]]).with_object(
        "mud", mud, [[0, 2, 1], [0, 3, 2]], role="floor", area_type="mud")
    mesh = bake(scene, SearchRegion((0, -1, 0), (8, 3, 8)), NavSettings(ray_density=4, agent_radius=0,
                                                                         min_region_area=0))
    text = mesh.to_json()
    assert json.loads(text)["version"] == FORMAT_VERSION == 2
    back = NavMesh.from_json(text)
    assert back.area_types == ("ground", "mud")
    assert np.array_equal(back.polygon_area_type, mesh.polygon_area_type) and (back.polygon_area_type == 1).any()


def test_a_version_1_document_reads_as_all_ground():
    mesh = NavMesh.from_json(json.dumps(GOOD))  # as version 1 wrote it: no area fields
    assert mesh.area_types == ("ground",) and mesh.polygon_area_type.tolist() == [0, 0]
    assert json.loads(mesh.to_json())["area_types"] == ["ground"]


def test_a_version_2_document_reads():
    mesh = NavMesh.from_json(json.dumps(V2))
    assert mesh.area_types == ("ground", "mud") and mesh.polygon_area_type.tolist() == [0, 1]


@pytest.mark.parametrize("change, words", [
    ({"polygon_area_type": [0, 2]}, ["'polygon_area_type[1]'", "2", "[0, 1]"]),
    ({"polygon_area_type": [0, -1]}, ["'polygon_area_type[1]'", "-1"]),
    ({"polygon_area_type": [0]}, ["'polygon_area_type.shape'"]),
    ({"polygon_area_type": [0, 0.5]}, ["'polygon_area_type.dtype'"]),
    ({"polygon_area_type": [0, True]}, ["'polygon_area_type' holds true"]),
    ({"polygon_area_type": "ground"}, ["'polygon_area_type'"]),
    ({"area_types": ["mud", "ground"]}, ["'area_types[0]'", "'ground'"]),
    ({"area_types": ["ground", "Mud"]}, ["'area_types[1]'", "Mud"]),
    ({"area_types": ["ground", "mud", "mud"]}, ["'area_types[2]'"]),
    ({"area_types": ["ground", "x" * 40]}, ["'area_types[1]'"]),
    ({"area_types": ["ground", 3]}, ["'area_types'", "strings"]),
    ({"area_types": "ground"}, ["'area_types'", "strings"]),
    ({"area_types": [f"t{n}" for n in range(70)]}, ["area_types"]),
])
def test_hostile_area_type_fields_are_refused_naming_the_field(change, words):
    with pytest.raises(FormatError) as caught:
        NavMesh.from_json(json.dumps({**V2, **change}))
    for word in words:
        assert word in str(caught.value)


@pytest.mark.parametrize("missing", ["area_types", "polygon_area_type"])
def test_a_version_2_document_without_its_area_fields_is_refused(missing):
    document = dict(V2)
    del document[missing]
    with pytest.raises(FormatError, match=f"missing field '{missing}'"):
        NavMesh.from_json(json.dumps(document))


def test_a_later_version_is_refused():
    with pytest.raises(FormatError, match="version 3 is not one of 1, 2"):
        NavMesh.from_json(json.dumps({**V2, "version": 3}))


# ------------------------------------------------------------------------------------------------ off-mesh links
LINKS = {"start": [[0.5, 0.0, 0.5]], "end": [[1.5, 0.0, 0.5]], "bidirectional": [False], "area_type": [1]}


def test_off_mesh_links_go_through_json():
    mesh = NavMesh.from_json(json.dumps({**V2, "offmesh_links": LINKS}))
    assert mesh.offmesh_links is not None and mesh.offmesh_links.count == 1
    back = NavMesh.from_json(mesh.to_json())
    assert back.offmesh_links is not None
    assert back.offmesh_links.start.tolist() == LINKS["start"] and back.offmesh_links.end.tolist() == LINKS["end"]
    assert back.offmesh_links.bidirectional.tolist() == [False] and back.offmesh_links.area_type.tolist() == [1]
    assert "offmesh_links" not in json.loads(NavMesh.from_json(json.dumps(V2)).to_json())  # none: left out


@pytest.mark.parametrize("links, words", [
    ({**LINKS, "area_type": [2]}, "offmesh_links.area_type[0]"),
    ({**LINKS, "start": [[0.5, 0.0]]}, "offmesh_links.start"),
    ({**LINKS, "bidirectional": [1]}, "bidirectional"),
    ({**LINKS, "ladder": []}, "ladder"),
    ("links", "off-mesh links: .str. is not an object"),
])
def test_hostile_off_mesh_links_are_refused_naming_the_field(links, words):
    with pytest.raises(FormatError, match=words.replace("[", r"\[").replace("]", r"\]")):
        NavMesh.from_json(json.dumps({**V2, "offmesh_links": links}))


def test_off_mesh_links_in_a_version_1_document_are_refused():
    with pytest.raises(FormatError, match="version 1"):
        NavMesh.from_json(json.dumps({**GOOD, "offmesh_links": LINKS}))
