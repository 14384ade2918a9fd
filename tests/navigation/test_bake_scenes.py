"""Bakes of generated scenes (boxes, platforms, ramps): every polygon is closed, simple, convex (so hole-free),
counter-clockwise and within max_corners, and no two of one level overlap; polygons cover the walkable samples
exactly (outlines kept exact) or within the edge error along the outline (simplified); portals lie on both of
their polygons' boundaries; islands agree with the samples; bakes repeat bit for bit."""

from __future__ import annotations

import numpy as np
import pytest
import shapely
from hypothesis import given, settings
from hypothesis import strategies as st

from voxelworld.navigation import NavQuery, NavSettings, Scene, SearchRegion
from voxelworld.navigation.bake import bake, walkable_grids

from .test_bake import box

REGION = SearchRegion((0, -1, 0), (12, 4, 10))


def ramp(x0, z0, length, width, rise):
    """A ramp along +x rising by `rise`, as an up-facing quad."""
    positions = [[x0, 0, z0], [x0 + length, rise, z0], [x0 + length, rise, z0 + width], [x0, 0, z0 + width]]
    return positions, [[0, 2, 1], [0, 3, 2]]


@st.composite
def scenes(draw):
    scene = Scene().with_object("floor", [[0, 0, 0], [12, 0, 0], [12, 0, 10], [0, 0, 10]], [[0, 2, 1], [0, 3, 2]])
    for n in range(draw(st.integers(0, 5))):
        x, z = draw(st.floats(-1, 11)), draw(st.floats(-1, 9))
        w, d, h = draw(st.floats(0.3, 4)), draw(st.floats(0.3, 4)), draw(st.floats(0.05, 2.5))
        role = draw(st.sampled_from(["obstacle", "floor", "exception"]))
        scene = scene.with_object(f"box_{n}", *box((x, 0, z), (x + w, h, z + d)), role=role)
    if draw(st.booleans()):
        scene = scene.with_object("ramp", *ramp(draw(st.floats(0, 6)), draw(st.floats(0, 6)), 4.0, 2.0,
                                                draw(st.floats(0.2, 2.0))))
    if draw(st.booleans()):  # a platform to stand under and on
        y = draw(st.floats(0.5, 3.0))
        scene = scene.with_object("platform", *box((5, y, 1), (9, y + 0.1, 6)))
    return scene


def polygon_checks(mesh, max_corners):
    for q in range(mesh.polygon_count):
        p = mesh.polygon(q)
        assert 3 <= len(p) <= max_corners
        x, z = p[:, 0], p[:, 2]
        # Counter-clockwise seen from above (+y): looking down, x points right and z towards the viewer, a
        # mirror image of the (x, z) plane, so the shoelace sum in (x, z) is negative and every turn too.
        signed = 0.5 * (np.dot(x, np.roll(z, -1)) - np.dot(z, np.roll(x, -1)))
        assert signed < 0
        turns = [(p[(e + 1) % len(p), 0] - p[e, 0]) * (p[(e + 2) % len(p), 2] - p[(e + 1) % len(p), 2])
                 - (p[(e + 1) % len(p), 2] - p[e, 2]) * (p[(e + 2) % len(p), 0] - p[(e + 1) % len(p), 0])
                 for e in range(len(p))]
        assert all(t <= 1e-9 for t in turns)  # convex: closed, simple and without holes
        assert len({(a, b) for a, b in zip(x.round(9), z.round(9))}) == len(p)  # no repeated corner
    for level in np.unique(mesh.polygon_level):  # no two polygons of one level overlap
        shapes = [shapely.Polygon(mesh.polygon(q)[:, [0, 2]]) for q in np.flatnonzero(mesh.polygon_level == level)]
        assert all(shape.is_valid for shape in shapes)
        assert shapely.union_all(shapes).area == pytest.approx(sum(shape.area for shape in shapes), abs=1e-9)


def outline_length(grids) -> float:
    """Metres of the walkable cells' outline (sides between a walkable cell and any other), over all levels."""
    total = 0
    for grid in grids:
        padded = np.pad(grid.walkable, 1)
        total += int((padded[1:, :] != padded[:-1, :]).sum() + (padded[:, 1:] != padded[:, :-1]).sum())
        cell = grid.cell
    return total * cell if grids else 0.0


def on_boundary(polygon, point):
    n = len(polygon)
    for e in range(n):
        a, b = polygon[e][[0, 2]], polygon[(e + 1) % n][[0, 2]]
        d, v = b - a, point[[0, 2]] - a
        if abs(d[0] * v[1] - d[1] * v[0]) < 1e-9 and -1e-9 <= np.dot(v, d) <= np.dot(d, d) + 1e-9:
            return True
    return False


@settings(max_examples=25, deadline=None)
@given(scene=scenes(), max_corners=st.sampled_from([3, 4, 6]), levels=st.booleans(),
       radius=st.sampled_from([0.0, 0.3]), proxy=st.sampled_from(["aabb-tree", "hull", "mesh", "reduced"]),
       error=st.sampled_from([0.0, 0.35, 1.0]))
def test_generated_scenes_bake_to_valid_polygons(scene, max_corners, levels, radius, proxy, error):
    settings_ = NavSettings(ray_density=9, clearance=1.0, step_limit=0.3, agent_radius=radius, max_slope=40,
                            levels=levels, max_corners=max_corners, exclusion_proxy=proxy, min_region_area=0.5,
                            max_edge_error=error)
    mesh = bake(scene, REGION, settings_)
    polygon_checks(mesh, max_corners)
    grids = walkable_grids(scene, REGION, settings_)
    cells = sum(int(g.walkable.sum()) for g in grids)
    if error == 0:
        assert mesh.area() == pytest.approx(cells * settings_.cell_size ** 2)
    else:  # every side lies within the error of the outline
        assert abs(mesh.area() - cells * settings_.cell_size ** 2) <= error * outline_length(grids) + 1e-9
    for (a, b), segment in zip(mesh.portals, mesh.portal_segments):
        assert a < b
        for end in segment:
            assert on_boundary(mesh.polygon(a), end) and on_boundary(mesh.polygon(b), end)
    # Every island is at least min_region_area, as the samples' islands are (simplified: within the error).
    areas = mesh.polygon_areas()
    if error == 0:
        assert all(areas[g].sum() >= settings_.min_region_area - 1e-9 for g in mesh.islands())
    assert bake(scene, REGION, settings_).to_json() == mesh.to_json()


def rolling_ground(size: float = 30.0, step: float = 0.5):
    """Hills 1 m high, 12 m apart, as a triangle grid; and the height of its surface at (x, z)."""
    def surface(x, z):
        return 0.5 * np.sin(x * 2 * np.pi / 12.0) * np.cos(z * 2 * np.pi / 12.0)

    n = int(size / step) + 1
    xs = np.linspace(0.0, size, n)
    x, z = np.meshgrid(xs, xs, indexing="ij")
    positions = np.column_stack([x.ravel(), surface(x, z).ravel(), z.ravel()])
    a = (np.arange(n - 1)[:, None] * n + np.arange(n - 1)[None, :]).ravel()
    triangles = np.concatenate([np.column_stack([a, a + 1, a + n + 1]), np.column_stack([a, a + n + 1, a + n])])

    def on_mesh(px, pz):  # the triangle grid's own height (linear on each triangle)
        i, k = min(int(px / step), n - 2), min(int(pz / step), n - 2)
        u, v = px / step - i, pz / step - k
        h00, h01, h10, h11 = (surface(xs[i + di], xs[k + dk]) for di, dk in ((0, 0), (0, 1), (1, 0), (1, 1)))
        return h00 + v * (h01 - h00) + u * (h11 - h01) if v >= u else h00 + u * (h10 - h00) + v * (h11 - h10)

    return Scene().with_object("ground", positions, triangles, role="floor"), on_mesh


def test_rolling_ground_bakes_to_few_polygons_whose_heights_follow_it():
    """Sloped ground is no reason for more polygons: the outline decides them, the detail gives the heights
    (within 5 cm of the surface anywhere, though the hills rise a metre)."""
    scene, on_mesh = rolling_ground()
    region = SearchRegion((0, -2, 0), (30, 2, 30))
    mesh = bake(scene, region, NavSettings(agent_radius=0.3, max_slope=45))
    assert mesh.polygon_count <= 4 * np.prod(mesh.bake_state.areas[0].layers.tiles)  # a few per tile
    assert len(mesh.islands()) == 1
    query = NavQuery(mesh)
    rng = np.random.default_rng(3)
    worst = 0.0
    for x, z in rng.uniform(1.0, 29.0, (400, 2)):
        point, q = query.nearest_point([x, on_mesh(x, z), z])
        assert q >= 0 and point[[0, 2]] == pytest.approx([x, z])
        worst = max(worst, abs(point[1] - on_mesh(x, z)))
    assert worst <= 0.05
    # A path over the hills lies on them too.
    path = query.find_path([1.0, 0.0, 1.0], [29.0, 0.0, 29.0])
    assert all(abs(y - on_mesh(x, z)) <= 0.05 for x, y, z in path.points)
