"""Drop links off ledges (`NavSettings.max_drop`): the scan against a plain-Python reading of its rules, a dug pit's
rim linked one way down to its floor, thinned, kept current by re-bakes bit for bit, and in a turned bake's frame."""

from __future__ import annotations

import math

import numpy as np
import pytest

from voxelworld.errors import ParameterError
from voxelworld.navigation import NavMesh, NavSettings, Scene, SearchRegion
from voxelworld.navigation._kernels.ledges import KEY_LEVELS, ledge_links
from voxelworld.navigation._kernels.samples import DIRECTIONS
from voxelworld.navigation.bake import bake
from voxelworld.navigation.frames import Frame
from voxelworld.navigation.ledges import ledge_reach, ledge_spacing
from voxelworld.navigation.sampling import level_links

SIZE = 16.0
PIT = (6.0, 6.0, 11.0, 11.0)  # x0, z0, x1, z1 (m)
SETTINGS = NavSettings(ray_density=4, agent_radius=0.4, step_limit=0.5, clearance=1.8, max_drop=3.0,
                       min_region_area=1.0)
REGION = SearchRegion((0, -4, 0), (SIZE, 3, SIZE))
FIELDS = ("vertices", "polygon_start", "polygon_vertices", "polygon_level", "portals", "portal_segments")


def quad(x0: float, z0: float, x1: float, z1: float, y: float) -> tuple[list, list]:
    return [[x0, y, z0], [x1, y, z0], [x1, y, z1], [x0, y, z1]], [[0, 2, 1], [0, 3, 2]]


def pit_scene(pit: tuple[float, float, float, float] | None = PIT, depth: float = 2.0) -> Scene:
    """Flat ground SIZE m square at y = 0 with a pit (walls straight down) ``depth`` m deep over ``pit``."""
    if pit is None:
        return Scene().with_object("ground", *quad(0, 0, SIZE, SIZE, 0.0))
    a, b, c, d = pit
    scene = Scene()
    for n, (x0, z0, x1, z1) in enumerate([(0, 0, a, SIZE), (c, 0, SIZE, SIZE), (a, 0, c, b), (a, d, c, SIZE)]):
        scene = scene.with_object(f"ground_{n}", *quad(x0, z0, x1, z1, 0.0))
    return scene.with_object("pit", *quad(a, b, c, d, -depth))


def links_of(mesh: NavMesh) -> tuple[np.ndarray, np.ndarray]:
    assert mesh.offmesh_links is not None
    return mesh.offmesh_links.start, mesh.offmesh_links.end


# ----------------------------------------------------------------------------------------- the scan's rules
def reference_ledges(final, links, raw, ceiling, enclosure, step, clearance, drop, reach, spacing):
    """The module's rules read plainly: every ledge with its landing, the one nearest its block's centre kept."""
    nx, nz, levels = final.shape

    def passable(ci, ck, low, y):
        for h, room in zip(raw[ci, ck], ceiling[ci, ck]):
            if math.isnan(h) or h <= low or h > y + clearance:
                continue
            if h > y + step or room < y + clearance:
                return False
        return True

    def landing(i, k, s, d):
        y = final[i, k, s]
        dx, dz = DIRECTIONS[d]
        for n in range(1, reach + 1):
            ci, ck = i + n * dx, k + n * dz
            if not (0 <= ci < nx and 0 <= ck < nz):
                return None
            ground = [t for t in range(levels) if not math.isnan(final[ci, ck, t])
                      and enclosure[ci, ck, t] == enclosure[i, k, s] and y - drop <= final[ci, ck, t] < y - step
                      and ceiling[ci, ck, t] >= y + clearance]
            if ground:
                t = max(ground, key=lambda t: (final[ci, ck, t], -t))
                if passable(ci, ck, final[ci, ck, t], y):
                    return ci, ck, t
            if not passable(ci, ck, y - drop, y):
                return None
        return None

    kept = {}
    for i in range(nx):
        for k in range(nz):
            for s in range(levels):
                for d in range(4):
                    if math.isnan(final[i, k, s]) or links[d, i, k, s] >= 0:
                        continue
                    end = landing(i, k, s, d)
                    if end is None:
                        continue
                    b, c = i // spacing, k // spacing
                    score = (2 * i + 1 - 2 * b * spacing - spacing) ** 2 + (2 * k + 1 - 2 * c * spacing - spacing) ** 2
                    key = ((b * (-(-nz // spacing)) + c) * 4 + d) * KEY_LEVELS + s
                    if key not in kept or score < kept[key][0]:
                        kept[key] = (score, (i, k, s), end)
    return [(key, top, end) for key, (_, top, end) in sorted(kept.items())]


@pytest.mark.parametrize("seed", range(12))
def test_the_scan_follows_its_rules(seed: int) -> None:
    rng = np.random.default_rng(seed)
    nx, nz, levels = rng.integers(5, 13), rng.integers(5, 13), rng.integers(1, 3)
    raw = rng.choice([np.nan, 0.0, 0.2, -0.8, -1.5, -2.5, -4.0, 0.9, 2.6], size=(nx, nz, levels))
    raw[:, :, 1:] = np.where(rng.random((nx, nz, levels - 1)) < 0.6, np.nan, raw[:, :, 1:] + 3.0)
    ceiling = np.where(rng.random(raw.shape) < 0.8, np.inf, raw + rng.choice([0.5, 2.0, 3.5], size=raw.shape))
    ceiling[np.isnan(raw)] = np.nan
    enclosure = np.where(np.isnan(raw), -1, (rng.random(raw.shape) < 0.1).astype(np.int64))
    final = np.where(rng.random(raw.shape) < 0.8, raw, np.nan)
    step, clearance, drop = 0.5, 1.8, float(rng.choice([1.0, 2.2, 5.0]))
    links = level_links(final, step, ceiling, clearance, enclosure)
    reach, spacing = int(rng.integers(1, 5)), int(rng.integers(1, 4))
    nbx, nbz = -(-nx // spacing), -(-nz // spacing)
    room = nbx * nbz * 4 * levels
    keys, tops, ends = np.empty(room, np.int64), np.empty((room, 3), np.int64), np.empty((room, 3), np.int64)
    count = ledge_links(final, links, raw, ceiling, enclosure, DIRECTIONS, step, clearance, drop, reach, spacing,
                        0, 0, nbx, nbz, keys, tops, ends)
    got = [(int(key), tuple(top), tuple(end)) for key, top, end in zip(keys[:count], tops[:count].tolist(),
                                                                       ends[:count].tolist())]
    assert got == reference_ledges(final, links, raw, ceiling, enclosure, step, clearance, drop, reach, spacing)
    assert seed != 0 or count  # the cases are not all empty


# ------------------------------------------------------------------------------------------------ settings
@pytest.mark.parametrize("field, value", [("max_drop", -1.0), ("max_drop", math.nan), ("max_jump_gap", -0.1),
                                          ("max_jump_gap", math.inf), ("max_drop", None),
                                          ("max_jump_gap", 1e308)])
def test_bad_drop_settings_are_refused_naming_the_field(field: str, value: object) -> None:
    with pytest.raises(ParameterError) as caught:
        NavSettings(**{field: value})
    assert caught.value.parameter == field


def test_drop_settings_default_to_off_and_a_step_across() -> None:
    assert (NavSettings().max_drop, NavSettings().max_jump_gap) == (0.0, 0.5)
    assert ledge_reach(SETTINGS) == 4 and ledge_spacing(SETTINGS) == 3  # 1.3 m / 0.5 m, down, + 2; 0.8 m: 3 cells


# ---------------------------------------------------------------------------------------------- the pit
def test_a_pits_rim_is_linked_one_way_down_to_its_floor() -> None:
    mesh = bake(pit_scene(), REGION, SETTINGS)
    start, end = links_of(mesh)
    links = mesh.offmesh_links
    assert links is not None and links.count >= 12  # four sides of 4 m of floor, a link per 1.5 m block
    assert not links.bidirectional.any() and (links.area_type == 0).all() and mesh.area_types == ("ground",)
    assert np.allclose(start[:, 1], 0.0) and np.allclose(end[:, 1], -2.0)
    a, b, c, d = PIT
    inside = lambda p: (p[:, 0] > a) & (p[:, 0] < c) & (p[:, 2] > b) & (p[:, 2] < d)  # noqa: E731
    assert not inside(start).any() and inside(end).all()
    # Each link crosses the rim straight, no farther than the radius at both ends, the gap and two cells.
    across = np.linalg.norm((end - start)[:, [0, 2]], axis=1)
    assert (across <= 2 * 0.4 + 0.5 + 2 * 0.5 + 1e-9).all()
    assert np.all(np.isclose(start[:, 0], end[:, 0]) | np.isclose(start[:, 2], end[:, 2]))
    # Thinned: no two links of a side closer than a cell.
    for p in range(len(start)):
        same_side = np.linalg.norm((end - end[p])[:, [0, 2]], axis=1) < SETTINGS.cell_size * 0.99
        assert same_side.sum() == 1 or np.isclose(start[same_side], start[p]).all(axis=1).sum() == 1
    assert len(np.unique(np.round(start, 6), axis=0)) >= links.count - 4  # corners may share a top


@pytest.mark.parametrize("change", [{"max_drop": 0.0}, {"max_drop": 1.5}, {"max_jump_gap": 0.0, "agent_radius": 0.0,
                                                                            "ray_density": 1.0}])
def test_no_links_where_the_drop_is_off_or_too_deep(change: dict) -> None:
    settings = NavSettings(**{**SETTINGS.__dict__, **change})
    links = bake(pit_scene(), REGION, settings).offmesh_links
    if "max_jump_gap" in change:  # a 1 m grid still reaches across a straight wall: two cells out
        assert links is not None and links.count > 0
    else:
        assert links is not None and links.count == 0


def test_a_ledge_under_a_roof_or_over_a_wall_gets_no_link() -> None:
    # A slab over the pit's floor at 1 m: the floor beneath is roofed lower than an agent's head over the rim.
    roofed = pit_scene().with_object("slab", *quad(*PIT, -0.9), role="floor")
    mesh = bake(roofed, REGION, SETTINGS)
    start, end = links_of(mesh)
    assert not (end[:, 1] < -1.5).any()


# ---------------------------------------------------------------------------------------------- re-bakes
def assert_same_links(mesh: NavMesh, other: NavMesh) -> None:
    for name in FIELDS:
        assert np.array_equal(getattr(mesh, name), getattr(other, name)), name
    a, b = mesh.offmesh_links, other.offmesh_links
    assert a is not None and b is not None
    for name in ("start", "end", "bidirectional", "area_type"):
        assert getattr(a, name).dtype == getattr(b, name).dtype
        assert np.array_equal(getattr(a, name), getattr(b, name)), name
    assert mesh.area_types == other.area_types


def test_digging_a_pit_makes_links_and_filling_it_removes_them_as_a_full_bake_does() -> None:
    flat, dug = pit_scene(None), pit_scene()
    mesh = bake(flat, REGION, SETTINGS)
    assert mesh.offmesh_links is not None and mesh.offmesh_links.count == 0
    box = ((PIT[0], -2.0, PIT[1]), (PIT[2], 0.0, PIT[3]))
    mesh.rebake(box, dug)
    assert mesh.offmesh_links is not None and mesh.offmesh_links.count > 0
    assert_same_links(mesh, bake(dug, REGION, SETTINGS))
    mesh.rebake(box, flat)
    assert mesh.offmesh_links is not None and mesh.offmesh_links.count == 0
    assert_same_links(mesh, bake(flat, REGION, SETTINGS))


def test_deepening_a_pits_floor_moves_the_links_landings_though_the_rim_is_unchanged() -> None:
    # Only the floor's columns change: the rim's ledges are scanned again because their landings lie within reach.
    mesh = bake(pit_scene(), REGION, SETTINGS)
    deeper = pit_scene(depth=2.5)
    mesh.rebake(((PIT[0], -2.5, PIT[1]), (PIT[2], -2.0, PIT[3])), deeper)
    assert_same_links(mesh, bake(deeper, REGION, SETTINGS))
    assert mesh.offmesh_links is not None and np.allclose(mesh.offmesh_links.end[:, 1], -2.5)


def test_a_second_pit_keeps_the_first_ones_links_and_equals_a_full_bake() -> None:
    wide = SearchRegion((0, -4, 0), (2 * SIZE, 3, SIZE))
    first = pit_scene().with_object("east", *quad(SIZE, 0, 2 * SIZE, SIZE, 0.0))
    mesh = bake(first, wide, SETTINGS)
    before = mesh.offmesh_links
    # A second pit dug in the east half, 2.5 m deep.
    a, b, c, d = 22.0, 5.0, 27.0, 10.0
    second = pit_scene()
    for n, (x0, z0, x1, z1) in enumerate([(SIZE, 0, a, SIZE), (c, 0, 2 * SIZE, SIZE), (a, 0, c, b), (a, d, c, SIZE)]):
        second = second.with_object(f"east_{n}", *quad(x0, z0, x1, z1, 0.0))
    second = second.with_object("east_pit", *quad(a, b, c, d, -2.5))
    mesh.rebake(((a, -2.5, b), (c, 0.0, d)), second)
    assert_same_links(mesh, bake(second, wide, SETTINGS))
    after = mesh.offmesh_links
    assert before is not None and after is not None and after.count > before.count
    assert np.array_equal(after.start[:before.count], before.start)  # the first pit's links, kept in order


def test_a_turned_bake_keeps_its_links_in_its_frame() -> None:
    s, c = math.sin(math.radians(10)), math.cos(math.radians(10))
    turned = SearchRegion(REGION.min, REGION.max, rotation=(0.0, s, 0.0, c))  # 20 degrees about y
    frame = Frame.about(turned.rotation, np.array(turned.centre))
    scene = Scene([type(obj)(obj.name, frame.to_world(obj.positions), obj.indices, obj.role) for obj in pit_scene()])
    mesh = bake(scene, turned, SETTINGS)
    plain = bake(pit_scene(), REGION, SETTINGS)
    assert mesh.frame is not None and mesh.offmesh_links is not None and plain.offmesh_links is not None
    # In its own frame the turned bake sees the plain pit: its links are the plain bake's, within rounding.
    assert mesh.offmesh_links.count == plain.offmesh_links.count
    assert np.allclose(mesh.offmesh_links.start, plain.offmesh_links.start, atol=1e-6)
    world = Frame(mesh.frame).to_world(mesh.offmesh_links.end)
    assert np.allclose(world[:, 1], -2.0)
