"""What rays meet of each scene object is kept with the object (navigation.rays._ray_rows), keyed by its identity:
a tile's bake gathers it again for the next tile. A changed object (a new one, as objects never change) is never
served what another held, even at the same name or the same id, nor in a scene naming other area types."""

from __future__ import annotations

import gc

import numpy as np

from voxelworld.navigation import NavSettings, Scene, SceneObject, SearchRegion
from voxelworld.navigation.proxies import _OBJECT_CACHE
from voxelworld.navigation.rays import RayScene
from voxelworld.navigation.tiles import bake_tiles, same_polygons, streaming_area

SETTINGS = NavSettings(ray_density=4, agent_radius=0.0, min_region_area=0.0)
REGION = SearchRegion((0.0, -1.0, 0.0), (8.0, 3.0, 8.0), landing=False)


def floor(y: float, name: str = "floor", area_type: str = "ground") -> SceneObject:
    return SceneObject(name, [[0, y, 0], [8, y, 0], [8, y, 8], [0, y, 8]], [[0, 2, 1], [0, 3, 2]],
                       area_type=area_type)


def test_an_object_at_a_freed_id_or_under_the_same_name_gets_its_own_rows():
    seen = set()
    for y in (0.0, 0.5, 1.0, 1.5, 0.25):  # each floor dies before the next is made: ids are often reused
        obj = floor(y)
        seen.add(id(obj))
        hits = RayScene(Scene([obj]), REGION, SETTINGS).cast_columns()
        assert len(set(hits.ray.tolist())) == 16 * 16 and (hits.height == y).all(), y  # every ray meets it
        assert any(key[0] == "rays" for key in _OBJECT_CACHE[id(obj)] if isinstance(key, tuple))  # kept
        del obj, hits
        gc.collect()
    # A scene whose object changed (dug: a new object under the old name) bakes as a fresh scene would.
    ground = floor(0.0)
    area = streaming_area(REGION, SETTINGS)
    before = bake_tiles(Scene([ground]), area, SETTINGS, (0, 0, 1, 1))[(0, 0)]
    dug = Scene([floor(0.75)])
    again = bake_tiles(dug, area, SETTINGS, (0, 0, 1, 1))[(0, 0)]
    assert not same_polygons(before.polygons, again.polygons)
    assert np.allclose(again.polygons.heights, 0.75) and np.allclose(before.polygons.heights, 0.0)
    _OBJECT_CACHE.clear()  # nothing kept: the same answer
    assert same_polygons(bake_tiles(dug, area, SETTINGS, (0, 0, 1, 1))[(0, 0)].polygons, again.polygons)


def test_the_same_object_in_scenes_naming_other_area_types_gets_their_indices():
    mud = floor(0.0, "mud", "mud")
    alone = RayScene(Scene([mud]), REGION, SETTINGS).cast_columns()
    assert Scene([mud]).area_types == ("ground", "mud") and (alone.area == 1).all()
    other = Scene([mud, floor(-0.5, "ice", "ice")])
    assert other.area_types == ("ground", "ice", "mud")
    hits = RayScene(other, REGION, SETTINGS).cast_columns()
    assert set(hits.area[hits.height == 0.0].tolist()) == {2} and set(hits.area[hits.height == -0.5].tolist()) == {1}
    assert (RayScene(Scene([mud]), REGION, SETTINGS).cast_columns().area == 1).all()  # and back
    kept = [key for key in _OBJECT_CACHE[id(mud)] if isinstance(key, tuple) and key[0] == "rays"]
    assert len(kept) == 1  # one set of area types kept at a time: the memory follows the objects, not the scenes
