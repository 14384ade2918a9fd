"""A navmesh's area types and off-mesh links, as data: defaults, and bad values refused naming the field."""

import numpy as np
import pytest

from voxelworld.errors import ParameterError
from voxelworld.navigation import NavMesh
from voxelworld.navigation.links import OffMeshLinks

SQUARE = ([[0, 0, 0], [0, 0, 2], [2, 0, 2], [2, 0, 0]], [0, 4], [0, 1, 2, 3], [0],
          np.empty((0, 2), dtype=np.int64), np.empty((0, 2, 3)))


def links(n: int = 1, area: int = 0, bidirectional: object = None) -> OffMeshLinks:
    both = np.ones(n, dtype=bool) if bidirectional is None else bidirectional
    return OffMeshLinks(np.zeros((n, 3)), np.ones((n, 3)), both, np.full(n, area))


def test_a_navmesh_that_says_nothing_is_all_ground_without_links() -> None:
    mesh = NavMesh(*SQUARE)
    assert mesh.area_types == ("ground",)
    assert mesh.polygon_area_type.tolist() == [0]
    assert mesh.offmesh_links is not None and mesh.offmesh_links.count == 0


def test_area_types_and_links_are_kept() -> None:
    mesh = NavMesh(*SQUARE, area_types=("ground", "mud"), polygon_area_type=[1], offmesh_links=links(2, 1))
    assert mesh.polygon_area_type.tolist() == [1]
    assert mesh.offmesh_links is not None and mesh.offmesh_links.area_type.tolist() == [1, 1]


@pytest.mark.parametrize("keywords, field", [
    ({"area_types": ("mud",)}, "area_types[0]"),
    ({"area_types": ("ground", "Mud")}, "area_types[1]"),
    ({"area_types": ("ground", "mud", "mud")}, "area_types[2]"),
    ({"area_types": "ground"}, "area_types"),
    ({"polygon_area_type": [1]}, "polygon_area_type[0]"),
    ({"polygon_area_type": [0, 0]}, "polygon_area_type.shape"),
    ({"polygon_area_type": [0.5]}, "polygon_area_type.dtype"),
    ({"offmesh_links": links(1, 1)}, "offmesh_links.area_type[0]"),
    ({"offmesh_links": links(2, 0, np.ones(1, dtype=bool))}, "offmesh_links.bidirectional"),
    ({"offmesh_links": OffMeshLinks(np.full((1, 3), np.nan), np.ones((1, 3)), np.ones(1, dtype=bool),
                                    np.zeros(1, dtype=np.int64))}, "offmesh_links.start[0]"),
    ({"offmesh_links": OffMeshLinks(np.zeros((1, 3)), np.ones((2, 3)), np.ones(1, dtype=bool),
                                    np.zeros(1, dtype=np.int64))}, "offmesh_links.end.shape"),
    ({"offmesh_links": "ladder"}, "offmesh_links"),
])
def test_bad_area_types_and_links_are_refused_naming_the_field(keywords: dict, field: str) -> None:
    with pytest.raises(ParameterError) as caught:
        NavMesh(*SQUARE, **keywords)
    assert caught.value.parameter == field
