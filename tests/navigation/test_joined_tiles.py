"""Tiles joined tile by tile (navigation.joined_tiles): after any sequence of bakes and drops, the arrays kept are
those of a join from scratch (polygons.tile_navmesh_arrays), bit for bit, and so is the index made from them."""

from __future__ import annotations

import numpy as np
import pytest

from voxelworld.navigation import NavSettings, Scene, SearchRegion
from voxelworld.navigation._kernels import paths
from voxelworld.navigation._kernels.arrays import BoundaryRings
from voxelworld.navigation.index import filtered_index, navmesh_index
from voxelworld.navigation.joined_tiles import JoinedTiles, tile_portals
from voxelworld.navigation.navmesh import ARRAY_NAMES
from voxelworld.navigation.polygons import tile_navmesh_arrays
from voxelworld.navigation.sampling import MAX_LEVELS
from voxelworld.navigation.tiles import TiledNavMesh, bake_tiles

from .test_tiles import box

SETTINGS = NavSettings(ray_density=4, agent_radius=0.25, min_region_area=2.0, step_limit=0.3, max_edge_error=0.2)
REGION = SearchRegion((0.0, -1.0, 0.0), (150.0, 4.0, 150.0), landing=False)  # 5 x 5 tiles of 32 m


def scene_of(seed: int) -> Scene:
    """Ground over most tiles with steps, a raised deck over it (two levels), mud and platforms across the tiles'
    edges."""
    rng = np.random.default_rng(seed)
    scene = box(Scene(), "ground", (0.0, -0.5, 0.0), (150.0, 0.0, 130.0))
    scene = box(scene, "deck", (20.0, 2.5, 28.0), (110.0, 2.8, 36.0))  # over the ground, across three tiles
    scene = box(scene, "mud", (60.0, -0.4, 60.0), (100.0, 0.1, 70.0), "mud")
    for n in range(24):
        x, z = rng.uniform(2.0, 140.0, 2)
        w, d = rng.uniform(2.0, 12.0, 2)
        top = rng.choice([0.2, 1.5, 3.0])
        scene = box(scene, f"platform{n}", (x, top - 0.3, z), (min(x + w, 149.0), top, min(z + d, 149.0)))
    return scene


@pytest.fixture(scope="module")
def baked():
    """Every tile, baked from two scenes (so a tile can be baked again with other polygons)."""
    area = TiledNavMesh(REGION, SETTINGS).area
    return [bake_tiles(scene_of(seed), area, SETTINGS, (0, 0, 5, 5)) for seed in (1, 2)]


def from_scratch(tiles: dict, area) -> tuple:
    order = sorted(tiles)
    return tile_navmesh_arrays([tiles[t].polygons for t in order], [tiles[t].steps for t in order], area.x0,
                               area.z0, area.cell, area.nx, area.nz, MAX_LEVELS)


def assert_same(arrays, expected) -> None:
    for name, a, b in zip(ARRAY_NAMES, arrays, expected):
        assert a.dtype == b.dtype and a.shape == b.shape and a.tobytes() == b.tobytes(), name


def assert_same_index(joined: JoinedTiles, rings: bool = True, filtered_rings: bool = True) -> None:
    """The index of the joined arrays, from the boxes, planes and rings kept tile by tile, is one from scratch, and
    so are the rings of the index that leaves out the mud (a query filter's)."""
    arrays = joined.arrays
    index = navmesh_index(*arrays[:3], *arrays[4:])
    kept = navmesh_index(*arrays[:3], *arrays[4:], boxes_planes=joined.boxes_planes, ring_source=joined.rings_for)
    assert kept.polygons.boxes.tobytes() == index.polygons.boxes.tobytes()
    assert kept.polygons.boxes.shape == index.polygons.boxes.shape
    assert kept.polygons.surface.planes.tobytes() == index.polygons.surface.planes.tobytes()
    allowed = joined.area_type != 1  # no mud
    pairs = [(kept, index)] if rings else []
    if filtered_rings and not allowed.all():
        pairs.append((filtered_index(kept, allowed), filtered_index(index, allowed)))
    for made, expected in pairs:
        for name, a, b in zip(BoundaryRings._fields, made.rings, expected.rings):
            assert a.dtype == b.dtype and a.shape == b.shape and a.tobytes() == b.tobytes(), name


def test_random_bakes_and_drops_keep_the_arrays_of_a_join_from_scratch(baked):
    area = TiledNavMesh(REGION, SETTINGS).area
    joined = JoinedTiles(area.x0, area.z0, area.cell, area.nx, area.nz, MAX_LEVELS)
    assert_same(joined.arrays, from_scratch({}, area))
    every = sorted(baked[0])
    rng = np.random.default_rng(3)
    kept: dict = {}
    portals_seen = 0
    for _ in range(60):
        changed: dict = {}
        for _ in range(int(rng.integers(1, 4))):
            tile = every[int(rng.integers(len(every)))]
            if tile in kept and rng.random() < 0.4:
                del kept[tile]
                changed[tile] = None
            else:
                kept[tile] = baked[int(rng.integers(2))][tile]
                changed[tile] = (kept[tile].polygons, kept[tile].steps)
        joined.change(changed)
        expected = from_scratch(kept, area)
        assert_same(joined.arrays, expected)
        order = sorted(kept)
        area_type = np.concatenate([kept[t].polygons.area_type for t in order]) if order else np.empty(0, np.int64)
        assert np.array_equal(joined.area_type, area_type) and joined.area_type.dtype == np.int64
        # Rings made after some changes, not all; the rings of the index without mud likewise.
        assert_same_index(joined, rings=bool(rng.random() < 0.7), filtered_rings=bool(rng.random() < 0.7))
        portals_seen = max(portals_seen, len(expected[4]))
    assert portals_seen > 100  # the tiles meet through many portals, some across their edges
    for tile in list(kept):  # dropped to the last
        del kept[tile]
        joined.change({tile: None})
    assert_same(joined.arrays, from_scratch({}, area))


def test_the_detail_heights_reuse_memory_no_array_reads_any_more(baked):
    """A join writes its detail heights into the memory of an earlier one's only when nothing holds a view of it:
    the arrays held stay as they were, and once let go, changes alternate between two pieces of memory."""
    area = TiledNavMesh(REGION, SETTINGS).area
    joined = JoinedTiles(area.x0, area.z0, area.cell, area.nx, area.nz, MAX_LEVELS)
    every = sorted(baked[0])
    kept = {t: baked[0][t] for t in every[:12]}
    joined.change({t: (b.polygons, b.steps) for t, b in kept.items()})
    held = joined.arrays  # what a navmesh (or an index, a query) still reads
    copies = [a.copy() for a in held]
    memory = set()
    for n in range(6):  # a tile dropped and baked again (with the other scene's polygons) over and over
        tile = every[n % 3]
        joined.change({tile: None})
        kept[tile] = baked[(n + 1) % 2][tile]
        joined.change({tile: (kept[tile].polygons, kept[tile].steps)})
        assert_same(joined.arrays, from_scratch(kept, area))
        assert joined.arrays[8].base is not held[8].base
        memory.add(id(joined.arrays[8].base))
    assert all(a.tobytes() == b.tobytes() for a, b in zip(held, copies))  # untouched while held
    del held, copies
    memory.clear()
    for n in range(6):
        tile = every[n % 3]
        joined.change({tile: None})
        memory.add(id(joined.arrays[8].base))
        kept[tile] = baked[n % 2][tile]
        joined.change({tile: (kept[tile].polygons, kept[tile].steps)})
        assert_same(joined.arrays, from_scratch(kept, area))
        memory.add(id(joined.arrays[8].base))
    assert len(memory) == 2


def test_each_tiles_share_of_the_portals_is_its_run_of_the_joined_portals(baked):
    area = TiledNavMesh(REGION, SETTINGS).area
    tiles = baked[0]
    parts = {t: (b.polygons.arrays(area.x0, area.z0, area.cell), b.steps) for t, b in tiles.items()}
    expected = from_scratch(tiles, area)
    first = dict(zip(sorted(tiles), np.cumsum([0] + [b.polygons.polygon_count for _, b in sorted(tiles.items())])))
    pairs, segments = [], []
    crossing = 0
    for ti, tk in sorted(tiles):
        share, share_segments, which = tile_portals((ti, tk), parts, area.nx, area.nz, MAX_LEVELS, area.x0, area.z0,
                                                    area.cell)
        near = [(ti, tk), (ti, tk + 1), (ti + 1, tk)]
        pairs.append(np.column_stack([share[:, 0] + first[(ti, tk)],
                                      share[:, 1] + np.array([first.get(t, -1) for t in near])[which]]))
        segments.append(share_segments)
        crossing += int((which > 0).sum())
    assert crossing > 10
    assert np.concatenate(pairs).tobytes() == expected[4].tobytes()
    assert np.concatenate(segments).tobytes() == expected[5].tobytes()


def test_a_tiled_navmesh_after_changes_is_its_tiles_joined_from_scratch():
    tiled = TiledNavMesh(REGION, SETTINGS)
    every = [(ti, tk) for ti in range(5) for tk in range(5)]
    tiled.change(scene_of(1), bake=every[:12])
    tiled.change(scene_of(2), bake=every[8:20], drop=[(0, 0), (1, 3)])
    for scene in (scene_of(2).without("mud"), scene_of(1)):
        tiled.change(scene, bake=[(2, 2), (1, 2), (3, 4)], drop=[(2, 1)])
        expected = tiled._arrays()
        assert_same([getattr(tiled.mesh, name) for name in ARRAY_NAMES], expected)
        index = navmesh_index(*expected[:3], *expected[4:])
        assert index.polygons.boxes.tobytes() == tiled.mesh.index.polygons.boxes.tobytes()
        assert index.buckets.bucket_polygons.tobytes() == tiled.mesh.index.buckets.bucket_polygons.tobytes()
        names = tiled.mesh.area_types
        kinds = np.concatenate([tiled.baked_tile(t).type_names() for t in sorted(tiled.tiles)])
        assert [names[k] for k in tiled.mesh.polygon_area_type] == kinds.tolist() and "mud" in kinds


def test_ring_pieces_of_polygon_ranges_are_those_of_all_the_polygons(baked):
    area = TiledNavMesh(REGION, SETTINGS).area
    arrays = from_scratch(baked[0], area)
    index = navmesh_index(*arrays[:3], *arrays[4:])
    vertices, start, corners, _, surface = index.polygons
    args = (vertices, start, corners, surface, index.portals, index.portal_segments, index.links.link_start,
            index.links.link_portal)
    p = index.polygon_count
    whole = paths.ring_pieces(*args, 0, p, 10 * len(corners))
    cuts = [0, 1, p // 3, p // 3, p // 2 + 5, p]
    parts = [paths.ring_pieces(*args, q0, q1, 10 * len(corners)) for q0, q1 in zip(cuts[:-1], cuts[1:])]
    ends = np.concatenate([part[0] + sum(len(other[2]) for other in parts[:n]) for n, part in enumerate(parts)])
    assert np.array_equal(ends, whole[0])
    for c in range(1, 5):
        assert np.concatenate([part[c] for part in parts]).tobytes() == whole[c].tobytes()
    short = paths.ring_pieces(*args, 0, p, 10)  # too little room: told, nothing made
    assert short[0][-1] == -1 and len(short[1]) == 0
    rings = index.rings
    across = whole[3].copy()
    ring_start = np.concatenate([[0], whole[0]]).astype(np.int64)
    twin, vertex, corner = paths.ring_joins(ring_start, rings.ring_polygon, across, whole[4], index.portals)
    assert np.array_equal(across, rings.ring_across) and np.array_equal(twin, rings.ring_twin)
    assert np.array_equal(vertex, rings.ring_vertex) and np.array_equal(corner, rings.corner)
