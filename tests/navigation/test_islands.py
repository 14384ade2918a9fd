"""The navmesh's islands are the islands of its walkable cells, one for one, and none is under
``min_region_area`` (issue 33 §1).

An island of polygons is a group joined through portals; an island of cells, a group of final samples joined
through their links (what the bake's small-islands rule judges). Each island of polygons is matched with the
island of cells its polygons cover most (their overlap with the cells, on their level, by shapely); the match
must be one for one, every island of cells with polygons. A simplified outline may shave an island a little
(its sides lie within ``max_edge_error`` of the cells), so the area rule is checked on the cells.

The cause found: a stretch of outline two regions of a tile share is simplified the same way from both sides,
so that their polygons meet and share a portal; but a tiny region whose outline simplified to two points got a
third one inside the shared stretch, which the region across did not keep. Their sides parted, the portal was
lost, and the tiny region's polygon became an island of its own (0.05-0.5 m² on generated levels; on nav_test
with Recast's simplification error, 1.3 m, an 18th island of 0.36 m²). A second one (seed 1705, 3 corners, 1-cell
error): a stretch seen as a cliff from one region only (the region across steps past it to another level) was
simplified as if shared from that side alone, across the other's cells: polygons of one level overlapped, and a
small region's polygon lay more over its neighbour's island than over its own. The random levels now check
overlaps too.
"""

from __future__ import annotations

import numpy as np
import pytest
import shapely
from hypothesis import example, given, settings
from hypothesis import strategies as st

from voxelworld.navigation import NavMesh, NavSettings, Scene, SearchRegion
from voxelworld.navigation._kernels.samples import island_labels
from voxelworld.navigation.bake import bake
from voxelworld.navigation.polygons import WalkableGrid, WalkableLayers, navmesh_from_grids, navmesh_from_layers
from voxelworld.navigation.sampling import level_links

from ..assets import NAV_TEST
from .test_bake import box


def cell_islands(layers: WalkableLayers) -> tuple[np.ndarray, int]:
    labels = np.empty(layers.height.shape, np.int64)
    return labels, island_labels(np.ascontiguousarray(layers.height), layers.links, labels)


def matched_islands(mesh: NavMesh, parts: list[tuple[WalkableLayers, int]]) -> list[tuple[float, float]]:
    """Checks that the polygon islands of ``mesh`` are the cell islands of ``parts`` (each area's layers and its
    polygon count, polygons numbered area by area) one for one; returns each island's (cell area, polygon area)
    in m²."""
    owner, cell_area, first, first_island = [], [], 0, 0
    for layers, count in parts:
        labels, n = cell_islands(layers)
        cell = layers.cell
        cell_area.append(np.bincount(labels[labels >= 0], minlength=n) * cell ** 2)
        for q in range(first, first + count):
            p = mesh.polygon(q)
            u, v, s = (p[:, 0] - layers.x0) / cell, (p[:, 2] - layers.z0) / cell, mesh.polygon_level[q]
            i, k = np.meshgrid(np.arange(max(int(u.min()), 0), min(int(np.ceil(u.max())), labels.shape[0])),
                               np.arange(max(int(v.min()), 0), min(int(np.ceil(v.max())), labels.shape[1])),
                               indexing="ij")
            i, k = i.ravel(), k.ravel()
            island = labels[i, k, s]
            on = island >= 0
            overlap = shapely.area(shapely.intersection(shapely.Polygon(np.column_stack([u, v])),
                                                        shapely.box(i[on], k[on], i[on] + 1, k[on] + 1)))
            row = np.zeros(n)
            np.add.at(row, island[on], overlap * cell ** 2)
            owner.append(np.pad(row, (first_island, 0)))
        first += count
        first_island += n
    assert first == mesh.polygon_count
    cells = np.concatenate(cell_area) if cell_area else np.empty(0)
    if not len(cells):
        assert mesh.polygon_count == 0
        return []
    overlap = np.array([np.pad(row, (0, len(cells) - len(row))) for row in owner]).reshape(-1, len(cells))
    areas = mesh.polygon_areas()
    islands = mesh.islands()
    matched = [int(overlap[group].sum(axis=0).argmax()) for group in islands]
    assert all(overlap[group].sum() > 0 for group in islands)  # every island lies over cells
    assert sorted(matched) == list(range(len(cells))), (  # one for one
        f"{len(islands)} polygon islands of {[round(float(areas[g].sum()), 3) for g in islands]} m² over "
        f"{len(cells)} cell islands")
    return [(float(cells[m]), float(areas[g].sum())) for m, g in zip(matched, islands)]


def baked_parts(mesh: NavMesh) -> list[tuple[WalkableLayers, int]]:
    return [(area.layers, sum(tile.polygon_count for tile in area.tiles)) for area in mesh.bake_state.areas]


def check_bake(mesh: NavMesh, settings_: NavSettings) -> list[tuple[float, float]]:
    no_overlaps(mesh)
    islands = matched_islands(mesh, baked_parts(mesh))
    assert all(cells >= settings_.min_region_area - 1e-9 for cells, _ in islands)
    assert all(polygons > 0 for _, polygons in islands)
    return islands


# ------------------------------------------------------------------------------------- the mechanism
def test_a_one_cell_region_keeps_its_portal_to_the_region_it_steps_to():
    """A cell one step below the corner of an L of higher cells: its outline simplifies to two points (the
    chord across its cell), and the third point it needs lies on the stretch it shares with the L, whose own
    outline cuts the corner along that chord. Both keep that point now, and the portal between them stands."""
    higher = np.zeros((6, 6), bool)
    higher[:4, :4] = True
    higher[3, 3] = False
    lower = np.zeros((6, 6), bool)
    lower[3, 3] = True
    grids = [WalkableGrid(lower, np.full((6, 6), 0.6), 0.0, 0.0, 1.0),
             WalkableGrid(higher, np.full((6, 6), 1.0), 0.0, 0.0, 1.0)]
    height = np.stack([np.where(g.walkable, g.height, np.nan) for g in grids], -1)
    layers = WalkableLayers(height, level_links(height, 0.5), 0.0, 0.0, 1.0)
    for error in (0.0, 1.0, 2.0):
        mesh = navmesh_from_grids(grids, max_corners=6, step_limit=0.5, max_edge_error=error)
        assert len(mesh.islands()) == 1, error
        (cells, polygons), = matched_islands(mesh, [(layers, mesh.polygon_count)])
        assert cells == 16.0 and polygons >= 14.0


def no_overlaps(mesh: NavMesh) -> None:
    """No two polygons of one level overlap (their union's area is the sum of theirs)."""
    for level in np.unique(mesh.polygon_level):
        shapes = [shapely.Polygon(mesh.polygon(q)[:, [0, 2]]) for q in np.flatnonzero(mesh.polygon_level == level)]
        assert shapely.union_all(shapes).area == pytest.approx(sum(shape.area for shape in shapes), abs=1e-6)


@pytest.mark.parametrize("max_corners", [3, 4, 6])
@pytest.mark.parametrize("error", [0.0, 0.5, 1.0, 1.5, 2.0])
def test_a_region_does_not_cut_across_a_cell_that_steps_down_past_it(max_corners, error):
    """An L of three high cells (1.3 m) around a lower cell (0.8 m) of the same level, which steps down (0.5 m)
    to a third level's cells beside it, under the L. The L and the lower cell step to neither: a cliff seen from
    the L, but the lower cell sees the cells it steps to there. The L's outline used to simplify that stretch as
    if shared (cutting across the lower cell: polygons of one level overlapped), while the lower cell kept its
    side to the cells it steps to; the L's polygon then lay more over the lower cell's island than over its own
    (found by the random levels below: seed 1705, 3 corners, 1 cell). Now the side is a wall from the L."""
    height = np.full((2, 2, 2), np.nan)
    height[0, 0, 0] = height[1, 1, 0] = 0.5  # under the L
    height[0, 0, 1] = height[0, 1, 1] = height[1, 1, 1] = 1.3  # the L
    height[1, 0, 1] = 0.8  # the lower cell
    layers = WalkableLayers(height, level_links(height, 0.35), 0.0, 0.0, 1.0)
    mesh = navmesh_from_layers([layers], max_corners, error)
    no_overlaps(mesh)
    islands = matched_islands(mesh, [(layers, mesh.polygon_count)])
    assert sorted(cells for cells, _ in islands) == [3.0, 3.0]  # the L; the lower cell and those it steps to
    assert all(polygons >= 0.5 * cells for cells, polygons in islands)  # each mostly over its own cells


@settings(max_examples=60, deadline=None, derandomize=True)  # the same examples every run (known cases below)
@given(seed=st.integers(0, 10_000), error=st.sampled_from([0.0, 0.25, 0.5, 0.75, 1.0, 1.25, 1.5, 3.0]),
       max_corners=st.integers(3, 6))
@example(seed=10, error=1.0, max_corners=6)  # lost portals before
@example(seed=1705, error=1.0, max_corners=3)  # a polygon over a cliff neighbour's cell before
@example(seed=0, error=1.0, max_corners=3)  # a short loop's third point's chord across a neighbour's cell before
def test_polygon_islands_are_the_cell_islands_on_random_levels(seed, error, max_corners):
    """Three levels 0.8 m apart over ground of random heights (0, 0.25 or 0.5 m), stepping within 0.35 m to each
    other within and across levels (many tiny regions), with holes; two tiles a side; no two polygons of a level
    overlap. (Two samples of a column are more than twice the step apart, as in a bake, where the clearance
    between them exceeds the step: no sample steps to two of one column.)"""
    random_levels(seed, error, max_corners)


def random_levels(seed: int, error: float, max_corners: int) -> None:
    rng = np.random.default_rng(seed)
    height = rng.choice([0.0, 0.25, 0.5], (80, 70))[..., None] + np.array([0.0, 0.8, 1.6])
    height[rng.random((80, 70, 3)) < np.array([0.2, 0.5, 0.7])] = np.nan
    layers = WalkableLayers(height, level_links(height, 0.35), 0.0, 0.0, 1.0)
    mesh = navmesh_from_layers([layers], max_corners, error)
    matched_islands(mesh, [(layers, mesh.polygon_count)])
    no_overlaps(mesh)


# ------------------------------------------------------------------------------------- generated levels
def height_field(size: float, step: float, surface) -> tuple[np.ndarray, np.ndarray]:
    n = int(size / step) + 1
    xs = np.linspace(0.0, size, n)
    x, z = np.meshgrid(xs, xs, indexing="ij")
    positions = np.column_stack([x.ravel(), surface(x, z).ravel(), z.ravel()])
    a = (np.arange(n - 1)[:, None] * n + np.arange(n - 1)[None, :]).ravel()
    return positions, np.concatenate([np.column_stack([a, a + 1, a + n + 1]), np.column_stack([a, a + n + 1, a + n])])


SIZE = 40.0
GENERATED = SearchRegion((0, -6, 0), (SIZE, 14, SIZE))


def generated_level(seed: int) -> list[tuple[str, tuple[np.ndarray, np.ndarray]]]:
    """Rolling terrain (hills 1-8 m high, some too steep to walk), flights of stairs (steps 0.2-1.2 m high, some
    too high to climb) and overhangs (platforms 0.5-5 m up), as (name, (positions, triangles))."""
    rng = np.random.default_rng(seed)
    amplitude, wave_x, wave_z = rng.uniform(0.5, 4.0), *rng.uniform(4, 14, 2)
    phase = rng.uniform(0, 6, 2)
    objects = [("ground", height_field(SIZE, 0.5, lambda x, z: amplitude * np.sin(x * 2 * np.pi / wave_x + phase[0])
                                       * np.cos(z * 2 * np.pi / wave_z + phase[1])))]
    for flight in range(rng.integers(0, 3)):
        x, z = rng.uniform(0, SIZE - 10, 2)
        rise, tread = rng.uniform(0.2, 1.2), rng.uniform(0.3, 1.5)
        for n in range(rng.integers(3, 10)):
            objects.append((f"stair_{flight}_{n}", box((x + n * tread, -5, z),
                                                        (x + (n + 1) * tread, (n + 1) * rise, z + rng.uniform(1, 4)))))
    for n in range(rng.integers(0, 4)):
        x, z = rng.uniform(0, SIZE - 6, 2)
        y, (w, d) = rng.uniform(0.5, 5), rng.uniform(1, 8, 2)
        objects.append((f"platform_{n}", box((x, y, z), (x + w, y + 0.2, z + d))))
    return objects


def scene_of(objects) -> Scene:
    scene = Scene()
    for name, (positions, triangles) in objects:
        scene = scene.with_object(name, positions, triangles, role="floor")
    return scene


AGENTS = {"recast": (0.9, 2.0), "low": (0.5, 0.8)}  # (step_limit, clearance)


def generated_settings(radius: float, error: float, agent: str) -> NavSettings:
    step, clearance = AGENTS[agent]
    return NavSettings(ray_density=11.11, agent_radius=radius, max_edge_error=error, step_limit=step,
                       clearance=clearance)


@settings(max_examples=25, deadline=None, derandomize=True)  # the same examples every run
@given(seed=st.integers(0, 10_000), radius=st.sampled_from([0.0, 0.6]), error=st.sampled_from([0.0, 0.3, 1.3]),
       agent=st.sampled_from(sorted(AGENTS)))
@example(seed=1, radius=0.0, error=0.3, agent="recast")  # lost portals before
@example(seed=29, radius=0.6, error=0.3, agent="low")
def test_generated_levels_islands_are_the_cells_islands(seed, radius, error, agent):
    settings_ = generated_settings(radius, error, agent)
    check_bake(bake(scene_of(generated_level(seed)), GENERATED, settings_), settings_)


@pytest.mark.parametrize("seed, radius, error, agent", [(1, 0.0, 0.3, "recast"), (29, 0.6, 1.3, "low"),
                                                        (3, 0.6, 0.3, "recast")])
def test_a_rebake_keeps_the_islands_of_the_cells(seed, radius, error, agent):
    """Every object of a generated level added in turn by a re-bake over its box: the re-baked navmesh's
    islands are its cells' islands after each edit, none under min_region_area, and it is the full bake's."""
    settings_ = generated_settings(radius, error, agent)
    objects = generated_level(seed)
    mesh = bake(scene_of(objects[:1]), GENERATED, settings_)
    for n in range(1, len(objects)):
        positions = objects[n][1][0]
        mesh.rebake((positions.min(axis=0), positions.max(axis=0)), scene_of(objects[:n + 1]))
        check_bake(mesh, settings_)
    assert mesh.to_json() == bake(scene_of(objects), GENERATED, settings_).to_json()


# ------------------------------------------------------------------------------------------- nav_test
RECAST = NavSettings.from_recast(cell_size=0.3, agent_height=2.0, agent_radius=0.6, agent_max_climb=0.9,
                                 agent_max_slope=45, region_min_size=8)


@pytest.fixture(scope="module")
def nav_test():
    scene = Scene.from_obj(NAV_TEST)
    lo, hi = scene.bounds()
    return scene, SearchRegion(tuple(lo - 1.0), tuple(hi + 1.0))


@pytest.mark.parametrize("error", [0.3, 1.3])  # the default; Recast's demo simplification error
def test_nav_test_islands_are_its_cells_islands(nav_test, error):
    """Recast's demo level, 17 islands as Recast finds, each over at least min_region_area of cells; with
    Recast's own simplification error (1.3 m) an 18th island of 0.36 m² stood apart before."""
    scene, region = nav_test
    settings_ = NavSettings(**{**RECAST.__dict__, "max_edge_error": error})
    islands = check_bake(bake(scene, region, settings_), settings_)
    assert len(islands) == 17
    assert min(cells for cells, _ in islands) == pytest.approx(5.94)
    if error == 0.3:  # the outline within 0.3 m of the cells shaves each island a little (1.3 m: up to 30%)
        assert all(polygons >= 0.9 * cells for cells, polygons in islands)
