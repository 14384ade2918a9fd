"""A navmesh tile read from a file (navigation.tile_checks): every tile a bake makes comes back as it was, and arrays
that are not a tile's (a forged or damaged world file) are refused with a FormatError naming what is wrong, before
any kernel reads them."""

from __future__ import annotations

import numpy as np
import pytest

from voxelworld.errors import FormatError
from voxelworld.navigation.tile_checks import tile_arrays, tile_from_arrays
from voxelworld.navigation.tiles import TiledNavMesh

from .test_tiles import REGION, SETTINGS, box
from .test_tiles import scene as scene  # (the fixture)


@pytest.fixture(scope="module")
def tiled(scene):
    tiled = TiledNavMesh(REGION, SETTINGS)
    ntx, ntz = tiled.tile_grid
    tiled.change(scene, bake=[(ti, tk) for ti in range(ntx) for tk in range(ntz)])
    return tiled


def test_every_tile_comes_back_as_it_was(tiled):
    for tile in sorted(tiled.tiles):
        baked = tiled.baked_tile(tile)
        back = tile_from_arrays(tile_arrays(baked), tile, tiled.area, "row")
        assert back.same_as(baked) and back.area_types == baked.area_types


def test_a_tile_of_another_type_table_comes_back_with_it():
    from voxelworld.navigation import Scene
    scene = box(Scene(), "mud", (0.0, -0.5, 0.0), (20.0, 0.0, 20.0), area_type="mud")
    tiled = TiledNavMesh(REGION, SETTINGS)
    tiled.change(scene, bake=[(0, 0)])
    baked = tiled.baked_tile((0, 0))
    assert "mud" in baked.area_types
    assert tile_from_arrays(tile_arrays(baked), (0, 0), tiled.area, "row").type_names() == baked.type_names()


def _richest(tiled):
    return max(sorted(tiled.tiles), key=lambda t: (len(tiled.baked_tile(t).polygons.inner), t))


def _forged(arrays, name, change):
    out = {key: value.copy() for key, value in arrays.items()}
    out[name] = change(out[name])
    return out


def _set(index, value):
    def change(array):
        array[index] = value
        return array
    return change


FORGERIES = {
    "a polygon index past the polygons": ("sides", _set((0, 0), 10 ** 6), "'sides'"),
    "a negative polygon index": ("inner", _set((0, 1), -1), "'inner'"),
    "a side that is no side": ("sides", _set((0, 1), 4), "'sides'"),
    "a side's sample in another tile": ("sides", _set((0, 2), -64), "'sides'"),
    "a corner outside the tile": ("corners", _set((0, 0), 10 ** 9), "'corners'"),
    "an inner end outside the tile": ("inner_ends", _set((0, 0, 1), -5), "'inner_ends'"),
    "a level past the levels kept": ("level", _set(0, 99), "'level'"),
    "an area type past the table": ("area_type", _set(0, 7), "'area_type'"),
    "a step to no level": ("steps", _set(0, -2), "'steps'"),
    "a height that is not finite": ("heights", _set(0, np.nan), "'heights'"),
    "a detail height that is not finite": ("detail_heights", _set(0, np.inf), "'detail_heights'"),
    "a detail box leaving the tile": ("detail_box", _set((0, 2), 10 ** 4), "'detail_box'"),
    "a detail box of no cells": ("detail_box", _set((0, 3), 0), "'detail_box'"),
    "starts past the corners": ("start", _set(-1, 10 ** 6), "'start'"),
    "starts going back": ("start", lambda a: np.concatenate([a[:1], a[2:3], a[1:2], a[3:]]), "corners|'start'"),
    "fewer detail heights than boxes": ("detail_heights", lambda a: a[:-1], "'detail_heights'"),
    "fewer steps than sides": ("steps", lambda a: a[:-1], "'steps'"),
    "another dtype": ("corners", lambda a: a.astype(np.int32), "'corners'"),
    "another shape": ("sides", lambda a: a.reshape(-1, 2), "'sides'"),
    "a table not starting with ground": ("area_types", lambda a: np.frombuffer(b"mud\nground", np.uint8),
                                         "area type"),
    "a name that is no area type": ("area_types", lambda a: np.frombuffer(b"ground\nMUD!", np.uint8), "area type"),
    "names that are not text": ("area_types", lambda a: np.frombuffer(b"ground\n\xff\xfe", np.uint8), "area type"),
}


@pytest.mark.parametrize("forgery", sorted(FORGERIES))
def test_arrays_that_are_not_a_tiles_are_refused_naming_what_is_wrong(tiled, forgery):
    tile = _richest(tiled)
    name, change, said = FORGERIES[forgery]
    arrays = _forged(tile_arrays(tiled.baked_tile(tile)), name, change)
    with pytest.raises(FormatError, match=f"bake_tiles row 3.*({said})"):
        tile_from_arrays(arrays, tile, tiled.area, "bake_tiles row 3")


def test_a_tiles_arrays_read_as_another_tiles_are_refused(tiled):
    tile = _richest(tiled)
    arrays = tile_arrays(tiled.baked_tile(tile))
    other = ((tile[0] + 1) % tiled.tile_grid[0], tile[1])
    with pytest.raises(FormatError, match="outside"):
        tile_from_arrays(arrays, other, tiled.area, "row")


def test_missing_or_extra_arrays_are_refused(tiled):
    arrays = tile_arrays(tiled.baked_tile(_richest(tiled)))
    with pytest.raises(FormatError, match="holds the arrays"):
        tile_from_arrays({k: v for k, v in arrays.items() if k != "steps"}, (0, 0), tiled.area, "row")
    with pytest.raises(FormatError, match="holds the arrays"):
        tile_from_arrays(arrays | {"more": np.zeros(1)}, (0, 0), tiled.area, "row")
