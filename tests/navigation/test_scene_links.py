"""Links a scene's author places (`Scene.with_link`): snapped onto the navmesh by the bake, their area types named,
left out when an end is off the navmesh, kept by re-bakes; and the links' JSON helpers refusing hostile values."""

from __future__ import annotations

import math

import numpy as np
import pytest

from voxelworld.errors import FormatError, ParameterError
from voxelworld.navigation import NavSettings, Scene, SearchRegion
from voxelworld.navigation.bake import bake
from voxelworld.navigation.frames import Frame
from voxelworld.navigation.links import OffMeshLinks, SceneLink, offmesh_links_document, offmesh_links_from_document
from voxelworld.navigation.offmesh import snap_distance, unplaced_links

from .test_ledges import PIT, REGION, SETTINGS, assert_same_links, pit_scene, quad

LADDER = ((6.2, 0.0, 8.0), (7.0, -2.0, 8.0))  # from the pit's west rim down its wall to the floor


def test_a_link_is_checked_when_placed() -> None:
    scene = Scene()
    with pytest.raises(ParameterError) as caught:
        scene.with_link((0, 0, math.nan), (1, 1, 1))
    assert caught.value.parameter == "start"
    with pytest.raises(ParameterError) as caught:
        scene.with_link((0, 0, 0), (1, 1, 1), area="no such")
    assert caught.value.parameter == "area"
    with pytest.raises(ParameterError) as caught:
        scene.with_link((0, 0, 0), (1, 1, 1), bidirectional="yes")  # type: ignore[arg-type]
    assert caught.value.parameter == "bidirectional"
    with pytest.raises(ParameterError) as caught:
        Scene([], links=["ladder"])  # type: ignore[list-item]
    assert caught.value.parameter == "links[0]"
    assert scene.links == ()  # left as it was


def test_links_survive_the_scenes_other_changes() -> None:
    scene = pit_scene().with_link(*LADDER, area="ladder")
    grown = scene.with_object("crate", *quad(1, 1, 2, 2, 0.5)).without("ground_0")
    assert grown.links == scene.links == (SceneLink(LADDER[0], LADDER[1], True, "ladder"),)


def test_a_ladder_is_snapped_onto_the_navmesh_and_named() -> None:
    scene = pit_scene().with_link(*LADDER, area="ladder").with_link((1, 0, 1), (3, 0, 1), bidirectional=False)
    mesh = bake(scene, REGION, SETTINGS)
    links = mesh.offmesh_links
    assert links is not None and mesh.area_types == ("ground", "ladder")
    drops = int((~links.bidirectional).sum()) - 1  # the drop links come first, then the scene's in its order
    assert links.count == drops + 2 and not links.bidirectional[:drops].any()
    ladder, walk = drops, drops + 1
    assert links.bidirectional[ladder] and not links.bidirectional[walk]
    assert links.area_type[ladder] == 1 and links.area_type[walk] == 0
    # The rim's edge stops agent_radius short of the wall (plus the whole-cells rule): the ends moved onto it.
    top, bottom = links.start[ladder], links.end[ladder]
    assert top[0] < PIT[0] - SETTINGS.agent_radius + 1e-9 and top[1] == pytest.approx(0.0)
    assert bottom[0] > PIT[0] + SETTINGS.agent_radius - 1e-9 and bottom[1] == pytest.approx(-2.0)
    assert np.linalg.norm(top - LADDER[0]) <= snap_distance(SETTINGS)
    assert links.start[walk].tolist() == pytest.approx([1, 0, 1]) and unplaced_links(mesh) == []


def test_a_link_whose_end_is_off_the_navmesh_is_left_out_until_ground_comes_back() -> None:
    floating = ((3.0, 0.0, 3.0), (3.0, 5.0, 3.0))  # its top 5 m up in the air
    far_foot = ((3.0, 0.0, 3.0), (8.5, -2.0, 8.5))  # into the pit, which the flat ground does not have
    scene = pit_scene(None).with_link(*floating, area="jump_pad").with_link(*far_foot)
    mesh = bake(scene, REGION, SETTINGS)
    assert mesh.offmesh_links is not None and mesh.offmesh_links.count == 0
    assert mesh.area_types == ("ground", "jump_pad")  # named all the same: the names do not move
    assert unplaced_links(mesh) == [0, 1]
    dug = pit_scene().with_link(*floating, area="jump_pad").with_link(*far_foot)
    mesh.rebake(((PIT[0], -2.0, PIT[1]), (PIT[2], 0.0, PIT[3])), dug)
    assert unplaced_links(mesh) == [0]
    assert mesh.offmesh_links is not None and mesh.offmesh_links.end[-1].tolist() == pytest.approx([8.5, -2, 8.5])
    assert_same_links(mesh, bake(dug, REGION, SETTINGS))


def test_a_rebake_without_the_scenes_link_drops_its_area_name_as_a_full_bake_does() -> None:
    mesh = bake(pit_scene().with_link(*LADDER, area="ladder"), REGION, SETTINGS)
    assert mesh.area_types == ("ground", "ladder")
    mesh.rebake(((0, 0, 0), (1, 0, 1)), pit_scene().with_link(*LADDER, area="rope"))
    assert mesh.area_types == ("ground", "rope") and mesh.offmesh_links is not None
    assert mesh.offmesh_links.area_type[-1] == 1
    assert_same_links(mesh, bake(pit_scene().with_link(*LADDER, area="rope"), REGION, SETTINGS))


def test_a_turned_bake_places_world_links_in_its_frame() -> None:
    s, c = math.sin(math.radians(15)), math.cos(math.radians(15))
    turned = SearchRegion(REGION.min, REGION.max, rotation=(0.0, s, 0.0, c))
    frame = Frame.about(turned.rotation, np.array(turned.centre))
    scene = Scene([type(obj)(obj.name, frame.to_world(obj.positions), obj.indices, obj.role) for obj in pit_scene()])
    world_ladder = frame.to_world(np.array(LADDER))
    mesh = bake(scene.with_link(*world_ladder), turned, SETTINGS)
    plain = bake(pit_scene().with_link(*LADDER), REGION, SETTINGS)
    assert mesh.frame is not None and mesh.offmesh_links is not None and plain.offmesh_links is not None
    assert np.allclose(mesh.offmesh_links.start[-1], plain.offmesh_links.start[-1], atol=1e-6)
    assert np.allclose(Frame(mesh.frame).to_world(mesh.offmesh_links.end[-1:])[0], frame.to_world(
        plain.offmesh_links.end[-1:])[0], atol=1e-6)


def test_links_without_max_drop_are_the_scenes_only() -> None:
    settings = NavSettings(**{**SETTINGS.__dict__, "max_drop": 0.0})
    mesh = bake(pit_scene().with_link(*LADDER), REGION, settings)
    assert mesh.offmesh_links is not None and mesh.offmesh_links.count == 1


# ------------------------------------------------------------------------------------------- documents
LINKS = OffMeshLinks(np.array([[0.0, 1, 2], [3, 4, 5]]), np.array([[1.0, 1, 1], [2, 2, 2]]), np.array([False, True]),
                     np.array([0, 1]))


def test_a_links_document_reads_back() -> None:
    back = offmesh_links_from_document(offmesh_links_document(LINKS), 2)
    for name in ("start", "end", "bidirectional", "area_type"):
        assert np.array_equal(getattr(back, name), getattr(LINKS, name))
        assert getattr(back, name).dtype == getattr(LINKS, name).dtype
    empty = offmesh_links_from_document(offmesh_links_document(OffMeshLinks.none()), 1)
    assert empty.count == 0 and empty.start.shape == (0, 3)


@pytest.mark.parametrize("change, named", [
    ({"start": [[0, 1, 2]]}, "offmesh_links.end.shape"),
    ({"start": [[0, 1, "x"], [1, 2, 3]]}, "start"),
    ({"start": [[0, 1], [1, 2, 3]]}, "start"),
    ({"start": [[0, 1, 1e400], [1, 2, 3]]}, "offmesh_links.start[0]"),
    ({"end": "[[0, 1, 2]]"}, "end"),
    ({"bidirectional": [0, 1]}, "bidirectional"),
    ({"area_type": [0, 2]}, "offmesh_links.area_type[1]"),
    ({"area_type": [0, -1]}, "offmesh_links.area_type[1]"),
    ({"area_type": [0, 0.5]}, "offmesh_links.area_type.dtype"),
    ({"area_type": [0, 2 ** 70]}, "area_type"),
    ({"area_type": [True, False]}, "area_type"),
    ({"extra": 1}, "extra"),
])
def test_a_hostile_links_document_is_refused_naming_the_field(change: dict, named: str) -> None:
    document = {**offmesh_links_document(LINKS), **change}
    with pytest.raises(FormatError) as caught:
        offmesh_links_from_document(document, 2)
    assert named in str(caught.value)


def test_a_document_that_is_not_an_object_is_refused() -> None:
    for document in (None, [], "links", {"start": []}, {**offmesh_links_document(LINKS), 1: 2}):
        with pytest.raises(FormatError):
            offmesh_links_from_document(document, 1)
