"""Tests of voxelworld.terrain.shapes: the signed-distance update ranges and their bounds.

Every ``sdf`` is compared with a reference written here from the geometry of the shape (case analysis on
where the point lies), not from the kernel's formulas; the cylinder reference is itself cross-checked against
a brute-force distance to a densely sampled surface.
"""

from __future__ import annotations

import dataclasses
import math

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from voxelworld.errors import ParameterError
from voxelworld.terrain import Box, Capsule, Cylinder, Shape, Sphere, Union

SETTINGS = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
TOLERANCE = 1e-7

# ------------------------------------------------------------------------------------------ references


def ref_sphere(points, center, radius):
    points = np.asarray(points, dtype=np.float64)
    return np.linalg.norm(points - np.asarray(center), axis=-1) - radius


def ref_box(points, lo, hi):
    """Distance to an axis-aligned box [lo, hi]: Euclidean gap outside, minus the nearest face gap inside."""
    points = np.asarray(points, dtype=np.float64)
    lo, hi = np.asarray(lo, dtype=np.float64), np.asarray(hi, dtype=np.float64)
    below, above = lo - points, points - hi  # positive on the side where the point sticks out
    gap = np.maximum(np.maximum(below, above), 0.0)
    outside = np.linalg.norm(gap, axis=-1)
    inside = np.all((points >= lo) & (points <= hi), axis=-1)
    depth = np.min(np.minimum(points - lo, hi - points), axis=-1)  # distance to the nearest face
    return np.where(inside, -depth, outside)


def _distance_to_segment(p, a, b):
    """Plain-Python distance from p to the segment ab: the endpoint or the foot of the perpendicular."""
    ab = [b[i] - a[i] for i in range(3)]
    ap = [p[i] - a[i] for i in range(3)]
    length2 = sum(c * c for c in ab)
    candidates = [math.dist(p, a), math.dist(p, b)]
    if length2 > 0:
        t = sum(ap[i] * ab[i] for i in range(3)) / length2
        if 0.0 <= t <= 1.0:
            foot = [a[i] + t * ab[i] for i in range(3)]
            candidates.append(math.dist(p, foot))
    return min(candidates)


def ref_capsule(points, a, b, radius):
    points = np.asarray(points, dtype=np.float64).reshape(-1, 3)
    return np.array([_distance_to_segment(tuple(p), a, b) - radius for p in points])


def ref_cylinder(points, a, b, radius):
    """Capped cylinder by cases: t along the axis from a (metres), rho from the axis."""
    points = np.asarray(points, dtype=np.float64).reshape(-1, 3)
    a, b = np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64)
    length = float(np.linalg.norm(b - a))
    unit = (b - a) / length
    out = []
    for p in points:
        rel = p - a
        t = float(rel @ unit)
        rho = float(np.linalg.norm(rel - t * unit))
        within_length = 0.0 <= t <= length
        if within_length and rho <= radius:
            out.append(-min(radius - rho, t, length - t))
            continue
        cap_gap = -t if t < 0 else t - length  # distance past the nearer cap plane (> 0 outside the slab)
        if within_length:
            out.append(rho - radius)
        elif rho <= radius:
            out.append(cap_gap)
        else:
            out.append(math.hypot(rho - radius, cap_gap))
    return np.array(out)


def _perpendicular_basis(unit):
    helper = np.array([1.0, 0.0, 0.0]) if abs(unit[0]) < 0.9 else np.array([0.0, 1.0, 0.0])
    u = np.cross(unit, helper)
    u /= np.linalg.norm(u)
    return u, np.cross(unit, u)


def cylinder_surface_samples(a, b, radius, n_angle=360, n_along=120, n_radial=60):
    a, b = np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64)
    unit = (b - a) / np.linalg.norm(b - a)
    u, v = _perpendicular_basis(unit)
    angles = np.linspace(0, 2 * np.pi, n_angle, endpoint=False)
    ring = np.cos(angles)[:, None] * u + np.sin(angles)[:, None] * v  # (n_angle, 3)
    along = np.linspace(0, 1, n_along)
    side = a + along[:, None, None] * (b - a) + radius * ring[None, :, :]
    radii = np.linspace(0, radius, n_radial)
    disc = radii[:, None, None] * ring[None, :, :]
    return np.concatenate([side.reshape(-1, 3), (a + disc).reshape(-1, 3), (b + disc).reshape(-1, 3)])


# ------------------------------------------------------------------------------------------ strategies

coordinate = st.floats(-10, 10, allow_nan=False, allow_infinity=False)
point3 = st.tuples(coordinate, coordinate, coordinate)
radius_st = st.floats(0.0, 5.0, allow_nan=False, allow_infinity=False)
points_st = st.lists(st.tuples(st.floats(-20, 20), st.floats(-20, 20), st.floats(-20, 20)), min_size=1, max_size=30)


@st.composite
def boxes(draw):
    lo = draw(point3)
    size = draw(st.tuples(*[st.floats(0.0, 8.0)] * 3))
    return lo, tuple(low + s for low, s in zip(lo, size))


@st.composite
def segments(draw, min_length=0.0):
    a = draw(point3)
    b = draw(point3)
    if min_length and math.dist(a, b) < min_length:
        b = (a[0] + min_length, a[1], a[2])
    return a, b


def near_surface_points(rng, surface_points, scale):
    """Points scattered a little (up to ``scale``) around surface points, both sides of the surface."""
    jitter = rng.normal(size=surface_points.shape) * scale
    return np.concatenate([surface_points, surface_points + jitter, surface_points - jitter])


# ------------------------------------------------------------------------------------------ sdf vs references


@SETTINGS
@given(center=point3, radius=radius_st, points=points_st)
def test_sphere_sdf_matches_distance_to_centre_minus_radius(center, radius, points):
    got = Sphere(center, radius).sdf(points)
    np.testing.assert_allclose(got, ref_sphere(points, center, radius), atol=TOLERANCE)


@SETTINGS
@given(box=boxes(), points=points_st)
def test_box_sdf_matches_reference(box, points):
    lo, hi = box
    got = Box(lo, hi).sdf(points)
    np.testing.assert_allclose(got, ref_box(points, lo, hi), atol=TOLERANCE)


@SETTINGS
@given(segment=segments(), radius=radius_st, points=points_st)
def test_capsule_sdf_matches_reference(segment, radius, points):
    a, b = segment
    got = Capsule(a, b, radius).sdf(points)
    np.testing.assert_allclose(got, ref_capsule(points, a, b, radius), atol=TOLERANCE)


@SETTINGS
@given(segment=segments(min_length=0.1), radius=radius_st, points=points_st)
def test_cylinder_sdf_matches_reference(segment, radius, points):
    a, b = segment
    got = Cylinder(a, b, radius).sdf(points)
    np.testing.assert_allclose(got, ref_cylinder(points, a, b, radius), atol=1e-6)


def test_box_sdf_near_faces_edges_and_corners():
    rng = np.random.default_rng(7)
    lo, hi = np.array([-1.0, 0.5, 2.0]), np.array([3.0, 1.5, 2.25])
    # Surface points on faces, edges and corners: each coordinate is lo, hi or anything between.
    choice = rng.integers(0, 3, size=(400, 3))
    choice[np.arange(400), rng.integers(0, 3, size=400)] = rng.integers(0, 2, size=400)  # one axis on a face
    between = lo + rng.uniform(size=(400, 3)) * (hi - lo)
    surface = np.where(choice == 0, lo, np.where(choice == 1, hi, between))
    points = near_surface_points(rng, surface, 0.05)
    got = Box(tuple(lo), tuple(hi)).sdf(points)
    np.testing.assert_allclose(got, ref_box(points, lo, hi), atol=TOLERANCE)
    np.testing.assert_allclose(Box(tuple(lo), tuple(hi)).sdf(surface), 0.0, atol=TOLERANCE)


def test_capsule_sdf_near_the_round_ends_and_side():
    rng = np.random.default_rng(11)
    a, b, radius = (0.0, 1.0, -2.0), (4.0, 3.0, 1.0), 1.25
    # Surface points: on the sphere around either end, and on the side of the segment.
    directions = rng.normal(size=(300, 3))
    directions /= np.linalg.norm(directions, axis=1, keepdims=True)
    ends = np.where(rng.integers(0, 2, size=(300, 1)) == 0, np.array(a), np.array(b)) + radius * directions
    points = near_surface_points(rng, ends, 0.05)
    capsule = Capsule(a, b, radius)
    np.testing.assert_allclose(capsule.sdf(points), ref_capsule(points, a, b, radius), atol=TOLERANCE)
    assert np.all(capsule.sdf(ends) <= TOLERANCE)  # the end spheres are inside or on the capsule


def test_cylinder_sdf_near_caps_rims_and_side():
    rng = np.random.default_rng(3)
    a, b, radius = np.array([1.0, -1.0, 0.5]), np.array([2.0, 3.0, -0.5]), 0.8
    surface = cylinder_surface_samples(a, b, radius, n_angle=24, n_along=8, n_radial=5)
    points = near_surface_points(rng, surface, 0.03)
    cylinder = Cylinder(tuple(a), tuple(b), radius)
    np.testing.assert_allclose(cylinder.sdf(points), ref_cylinder(points, a, b, radius), atol=1e-6)
    np.testing.assert_allclose(cylinder.sdf(surface), 0.0, atol=1e-9)


def test_cylinder_reference_agrees_with_brute_force_surface_distance():
    """Guard for the reference itself: |sdf| is the distance to the nearest point of the sampled surface."""
    rng = np.random.default_rng(5)
    a, b, radius = np.array([0.0, 0.0, 0.0]), np.array([0.0, 2.0, 1.0]), 1.0
    surface = cylinder_surface_samples(a, b, radius)
    points = rng.uniform(-2.5, 3.5, size=(40, 3))
    brute = np.array([np.min(np.linalg.norm(surface - p, axis=1)) for p in points])
    got = Cylinder(tuple(a), tuple(b), radius).sdf(points)
    np.testing.assert_allclose(np.abs(got), brute, atol=0.03)
    np.testing.assert_allclose(got, ref_cylinder(points, a, b, radius), atol=1e-6)


def test_cylinder_has_flat_caps_unlike_a_capsule():
    # Axis along y from 0 to 2, radius 1: a point 0.5 above the top cap, on the axis.
    cylinder, capsule = Cylinder((0, 0, 0), (0, 2, 0), 1.0), Capsule((0, 0, 0), (0, 2, 0), 1.0)
    assert float(cylinder.sdf([0.0, 2.5, 0.0])) == pytest.approx(0.5)
    assert float(capsule.sdf([0.0, 2.5, 0.0])) == pytest.approx(-0.5)
    # Diagonally beyond the rim: distance to the rim circle.
    assert float(cylinder.sdf([1.3, 2.4, 0.0])) == pytest.approx(math.hypot(0.3, 0.4))
    # Inside, nearer the cap than the side.
    assert float(cylinder.sdf([0.0, 1.9, 0.0])) == pytest.approx(-0.1)


def test_sign_convention_negative_inside_zero_on_surface_positive_outside():
    shapes = [Sphere((1, 2, 3), 2.0), Box((0, 1, 2), (2, 3, 4)), Capsule((1, 1, 3), (1, 3, 3), 1.0),
              Cylinder((1, 1, 3), (1, 3, 3), 1.0)]
    for shape in shapes:
        assert float(shape.sdf([1.0, 2.0, 3.0])) < 0, shape  # the middle of every shape
        assert float(shape.sdf([30.0, 2.0, 3.0])) > 0, shape
    assert float(Sphere((1, 2, 3), 2.0).sdf([3.0, 2.0, 3.0])) == pytest.approx(0.0, abs=1e-12)
    assert float(Box((0, 1, 2), (2, 3, 4)).sdf([2.0, 2.0, 3.0])) == pytest.approx(0.0, abs=1e-12)


def test_sdf_keeps_the_leading_shape_of_points():
    sphere = Sphere((0, 0, 0), 1.0)
    grid = np.zeros((4, 5, 2, 3))
    grid[..., 0] = np.arange(4)[:, None, None]
    assert sphere.sdf(grid).shape == (4, 5, 2)
    np.testing.assert_allclose(sphere.sdf(grid)[:, 0, 0], np.arange(4) - 1.0)
    single = sphere.sdf([0.0, 3.0, 4.0])
    assert np.shape(single) == () and float(single) == pytest.approx(4.0)
    assert sphere.sdf(np.zeros((0, 3))).shape == (0,)


def test_sdf_accepts_integer_points_and_does_not_modify_them():
    points = np.array([[0, 0, 0], [3, 0, 0]], dtype=np.int64)
    before = points.copy()
    np.testing.assert_allclose(Sphere((0, 0, 0), 1.0).sdf(points), [-1.0, 2.0])
    np.testing.assert_array_equal(points, before)


# ------------------------------------------------------------------------------------------ union


@st.composite
def any_shape(draw):
    kind = draw(st.sampled_from(["sphere", "box", "capsule", "cylinder"]))
    if kind == "sphere":
        return Sphere(draw(point3), draw(radius_st))
    if kind == "box":
        return Box(*draw(boxes()))
    if kind == "capsule":
        return Capsule(*draw(segments()), draw(radius_st))
    return Cylinder(*draw(segments(min_length=0.1)), draw(radius_st))


@SETTINGS
@given(shapes=st.lists(any_shape(), min_size=1, max_size=5), points=points_st)
def test_union_sdf_is_the_minimum_of_its_members(shapes, points):
    union = Union(tuple(shapes))
    expected = np.min([s.sdf(points) for s in shapes], axis=0)
    np.testing.assert_allclose(union.sdf(points), expected, atol=1e-12)


@SETTINGS
@given(shapes=st.lists(any_shape(), min_size=2, max_size=5), points=points_st)
def test_or_operator_builds_the_same_union(shapes, points):
    chained = shapes[0]
    for shape in shapes[1:]:
        chained = chained | shape
    assert isinstance(chained, Union)
    np.testing.assert_allclose(chained.sdf(points), Union(tuple(shapes)).sdf(points), atol=1e-12)


def test_nested_unions_behave_like_one_union():
    a, b, c, d = Sphere((0, 0, 0), 1), Sphere((5, 0, 0), 1), Box((0, 4, 0), (1, 5, 1)), Sphere((0, 0, 9), 2)
    nested = Union((Union((a, b)), Union((c, d))))
    points = np.random.default_rng(0).uniform(-3, 10, size=(200, 3))
    expected = np.min([s.sdf(points) for s in (a, b, c, d)], axis=0)
    np.testing.assert_allclose(nested.sdf(points), expected, atol=1e-12)
    lo, hi = nested.bounds()
    np.testing.assert_allclose(lo, [-2, -2, -1])
    np.testing.assert_allclose(hi, [6, 5, 11])


def test_union_accepts_a_list_of_shapes():
    a, b = Sphere((0, 0, 0), 1), Sphere((3, 0, 0), 1)
    assert float(Union([a, b]).sdf([3.0, 0.0, 0.0])) == pytest.approx(-1.0)


# ------------------------------------------------------------------------------------------ expanded / translated


@SETTINGS
@given(shape=any_shape(), margin=st.floats(0.0, 4.0), points=points_st)
def test_expanded_lowers_sdf_by_margin(shape, margin, points):
    grown = shape.expanded(margin)
    np.testing.assert_allclose(grown.sdf(points), shape.sdf(points) - margin, atol=1e-9)


@SETTINGS
@given(shapes=st.lists(any_shape(), min_size=1, max_size=4), margin=st.floats(0.0, 4.0), points=points_st)
def test_expanded_union_lowers_sdf_by_margin(shapes, margin, points):
    union = Union(tuple(shapes))
    np.testing.assert_allclose(union.expanded(margin).sdf(points), union.sdf(points) - margin, atol=1e-9)


def test_expanded_margins_accumulate_and_leave_the_original_alone():
    sphere = Sphere((1, 1, 1), 2.0)
    twice = sphere.expanded(0.5).expanded(0.25)
    assert float(twice.sdf([1.0, 1.0, 1.0])) == pytest.approx(-2.75)
    assert float(sphere.sdf([1.0, 1.0, 1.0])) == pytest.approx(-2.0)
    assert float(sphere.expanded(0).sdf([4.0, 1.0, 1.0])) == pytest.approx(1.0)


def test_expanded_box_is_a_rounded_box():
    box = Box((0, 0, 0), (1, 1, 1)).expanded(0.5)
    # Beyond a corner the grown box is round: distance to the corner minus the margin.
    corner_point = np.array([2.0, 2.0, 2.0])
    assert float(box.sdf(corner_point)) == pytest.approx(math.sqrt(3) - 0.5)
    # Straight out from a face it is flat.
    assert float(box.sdf([0.5, 1.25, 0.5])) == pytest.approx(-0.25)


@SETTINGS
@given(shape=any_shape(), offset=point3, points=points_st)
def test_translated_moves_the_shape(shape, offset, points):
    moved = shape.translated(offset)
    points = np.asarray(points, dtype=np.float64)
    np.testing.assert_allclose(moved.sdf(points + np.asarray(offset)), shape.sdf(points), atol=1e-7)


@SETTINGS
@given(shape=any_shape(), offset=point3)
def test_translated_moves_the_bounds(shape, offset):
    lo, hi = shape.bounds()
    moved_lo, moved_hi = shape.translated(offset).bounds()
    np.testing.assert_allclose(moved_lo, lo + np.asarray(offset), atol=1e-9)
    np.testing.assert_allclose(moved_hi, hi + np.asarray(offset), atol=1e-9)


def test_translated_union_and_expanded_shape_keep_their_properties():
    union = Sphere((0, 0, 0), 1) | Box((2, 2, 2), (3, 3, 3))
    moved = union.expanded(0.5).translated((10, 0, 0))
    assert float(moved.sdf([10.0, 0.0, 0.0])) == pytest.approx(-1.5)
    assert float(moved.sdf([12.5, 2.5, 2.5])) == pytest.approx(-1.0)
    assert float(union.sdf([-10.0, 0.0, 0.0])) == pytest.approx(9.0)  # the original did not move
    assert float(union.sdf([10.0, 0.0, 0.0])) > 0


def test_translated_sphere_centre_and_box_corners():
    assert Sphere((1, 2, 3), 1).translated((1, -1, 0.5)).center == (2.0, 1.0, 3.5)
    moved = Box((0, 0, 0), (1, 2, 3)).translated((-1, 1, 1))
    assert moved.min == (-1.0, 1.0, 1.0) and moved.max == (0.0, 3.0, 4.0)


def test_shapes_are_frozen():
    sphere = Sphere((0, 0, 0), 1.0)
    with pytest.raises(dataclasses.FrozenInstanceError):
        sphere.radius = 2.0  # type: ignore[misc]


# ------------------------------------------------------------------------------------------ bounds


def test_sphere_and_box_bounds_are_exact():
    lo, hi = Sphere((1, -2, 3), 1.5).bounds()
    np.testing.assert_allclose(lo, [-0.5, -3.5, 1.5])
    np.testing.assert_allclose(hi, [2.5, -0.5, 4.5])
    lo, hi = Box((-1, 0, 2), (3, 0.5, 2.25)).bounds()
    np.testing.assert_allclose(lo, [-1, 0, 2])
    np.testing.assert_allclose(hi, [3, 0.5, 2.25])
    lo, hi = Box((-1, 0, 2), (3, 0.5, 2.25)).expanded(0.25).bounds()
    np.testing.assert_allclose(lo, [-1.25, -0.25, 1.75])
    np.testing.assert_allclose(hi, [3.25, 0.75, 2.5])


def test_sphere_bounds_are_tight():
    sphere = Sphere((1, -2, 3), 1.5)
    lo, hi = sphere.bounds()
    for axis in range(3):
        for corner, sign in ((lo, -1), (hi, 1)):
            extreme = np.array(sphere.center)
            extreme[axis] += sign * sphere.radius
            assert extreme[axis] == pytest.approx(corner[axis])
            assert float(sphere.sdf(extreme)) == pytest.approx(0.0, abs=1e-12)


def _defining_points(shape):
    """Points every shape contains whatever its size: centres, segment ends, box corners."""
    if isinstance(shape, Union):
        return [p for s in shape.shapes for p in _defining_points(s)]
    if isinstance(shape, Sphere):
        return [shape.center]
    if isinstance(shape, Box):
        return [shape.min, shape.max]
    return [shape.a, shape.b]


def _check_bounds_contain_inside(shape, region_lo, region_hi, n=36):
    axes = [np.linspace(region_lo[i], region_hi[i], n) for i in range(3)]
    grid = np.stack(np.meshgrid(*axes, indexing="ij"), axis=-1).reshape(-1, 3)
    grid = np.concatenate([grid, np.array(_defining_points(shape), dtype=np.float64)])
    inside = grid[shape.sdf(grid) <= 0]
    assert len(inside) > 0, "the sample grid must hit the shape"
    lo, hi = shape.bounds()
    assert np.all(inside >= lo - 1e-9) and np.all(inside <= hi + 1e-9)


@SETTINGS
@given(shape=any_shape(), margin=st.floats(0.0, 1.0))
def test_bounds_contain_every_point_inside(shape, margin):
    shape = shape.expanded(margin)
    lo, hi = shape.bounds()
    pad = 0.5 + (hi - lo) * 0.25
    _check_bounds_contain_inside(shape, lo - pad, hi + pad, n=24)


def test_bounds_contain_the_extreme_points_of_tilted_capsules_and_cylinders():
    rng = np.random.default_rng(2)
    for _ in range(20):
        a, b = rng.uniform(-5, 5, 3), rng.uniform(-5, 5, 3)
        radius = rng.uniform(0.1, 2)
        unit = (b - a) / np.linalg.norm(b - a)
        for shape in (Capsule(tuple(a), tuple(b), radius), Cylinder(tuple(a), tuple(b), radius)):
            lo, hi = shape.bounds()
            for axis in range(3):
                e = np.zeros(3)
                e[axis] = 1.0
                if isinstance(shape, Capsule):
                    direction = e  # the end spheres reach radius along every axis
                else:
                    across = e - unit[axis] * unit  # the cap rim reaches furthest along this direction
                    norm = np.linalg.norm(across)
                    if norm < 1e-12:
                        continue
                    direction = across / norm
                for end in (a, b):
                    for sign in (-1, 1):
                        extreme = end + sign * radius * direction
                        assert float(shape.sdf(extreme)) <= 1e-9  # on (or, for a capsule, inside) the shape
                        assert lo[axis] - 1e-9 <= extreme[axis] <= hi[axis] + 1e-9


def test_bounds_contain_dense_samples_of_every_kind():
    union = (Sphere((0, 0, 0), 1.0) | Box((2, -1, 0), (3, 0, 4)) | Capsule((-3, 2, 1), (-1, 4, -2), 0.7)
             | Cylinder((1, 3, 3), (3, 5, 1), 0.9))
    lo, hi = union.bounds()
    _check_bounds_contain_inside(union, lo - 1, hi + 1, n=48)


def test_axis_aligned_capsule_bounds_are_tight():
    lo, hi = Capsule((0, 1, 2), (4, 1, 2), 0.5).bounds()
    np.testing.assert_allclose(lo, [-0.5, 0.5, 1.5])
    np.testing.assert_allclose(hi, [4.5, 1.5, 2.5])


def test_bounds_return_arrays_of_three():
    lo, hi = Sphere((0, 0, 0), 1).bounds()
    assert np.shape(lo) == (3,) and np.shape(hi) == (3,)


# ------------------------------------------------------------------------------------------ bad input


def _raises_parameter(call, parameter, value_text):
    with pytest.raises(ParameterError) as excinfo:
        call()
    assert excinfo.value.parameter == parameter
    assert value_text in str(excinfo.value), str(excinfo.value)
    assert parameter in str(excinfo.value)
    return excinfo.value


@pytest.mark.parametrize("call, parameter, value_text", [
    (lambda: Sphere((0, 0, 0), -1.0), "radius", "-1.0"),
    (lambda: Sphere((0, 0, 0), float("nan")), "radius", "nan"),
    (lambda: Sphere((0, 0, 0), float("inf")), "radius", "inf"),
    (lambda: Sphere((0, 0, 0), "big"), "radius", "big"),
    (lambda: Sphere((float("nan"), 0, 0), 1.0), "center", "nan"),
    (lambda: Sphere((0, 0), 1.0), "center", "(0, 0)"),
    (lambda: Sphere((0, 0, 0, 0), 1.0), "center", "(0, 0, 0, 0)"),
    (lambda: Sphere("abc", 1.0), "center", "abc"),
    (lambda: Sphere((0, 0, 0), 1.0, margin=-0.5), "margin", "-0.5"),
    (lambda: Box((0, 0, 0), (1, -1, 1)), "max", "(1, -1, 1)"),
    (lambda: Box((0, float("nan"), 0), (1, 1, 1)), "min", "nan"),
    (lambda: Box((0, 0, 0), (1, 1, float("inf"))), "max", "inf"),
    (lambda: Capsule((0, 0, 0), (1, 1, 1), -0.25), "radius", "-0.25"),
    (lambda: Capsule((0, 0, float("nan")), (1, 1, 1), 1.0), "a", "nan"),
    (lambda: Capsule((0, 0, 0), (1, 1), 1.0), "b", "(1, 1)"),
    (lambda: Cylinder((1, 2, 3), (1, 2, 3), 1.0), "b", "(1, 2, 3)"),
    (lambda: Cylinder((0, 0, 0), (0, 1, 0), float("nan")), "radius", "nan"),
    (lambda: Cylinder((0, 0, 0), (0, 1, 0), -2.0), "radius", "-2.0"),
    (lambda: Sphere((0, 0, 0), 1.0).expanded(-1.0), "margin", "-1.0"),
    (lambda: Sphere((0, 0, 0), 1.0).expanded(float("nan")), "margin", "nan"),
    (lambda: Box((0, 0, 0), (1, 1, 1)).expanded(-0.125), "margin", "-0.125"),
    (lambda: (Sphere((0, 0, 0), 1.0) | Sphere((2, 0, 0), 1.0)).expanded(-3.0), "margin", "-3.0"),
    (lambda: Sphere((0, 0, 0), 1.0).translated((float("nan"), 0, 0)), "offset", "nan"),
    (lambda: Box((0, 0, 0), (1, 1, 1)).translated((1, 1)), "offset", "(1, 1)"),
    (lambda: Union(()), "shapes", "()"),
    (lambda: Union((Sphere((0, 0, 0), 1.0), 3)), "shapes", "3"),
    (lambda: Union((Sphere((0, 0, 0), 1.0), "sphere")), "shapes", "sphere"),
])
def test_bad_parameters_raise_parameter_error_naming_parameter_and_value(call, parameter, value_text):
    _raises_parameter(call, parameter, value_text)


@pytest.mark.parametrize("points", [np.zeros((4, 2)), np.zeros(4), np.zeros((2, 3, 4)), np.zeros(())])
def test_points_of_wrong_length_raise_parameter_error(points):
    error = _raises_parameter(lambda: Sphere((0, 0, 0), 1.0).sdf(points), "points", str(points.shape))
    assert "(..., 3)" in str(error)


@pytest.mark.parametrize("point", ["123", b"abc"])
def test_a_string_is_not_a_point(point):
    _raises_parameter(lambda: Sphere(point, 1.0), "center", repr(point))


def test_or_with_a_non_shape_is_a_type_error():
    with pytest.raises(TypeError):
        Sphere((0, 0, 0), 1.0) | 3  # noqa: B018


def test_zero_radius_and_zero_size_shapes_are_allowed():
    assert float(Sphere((0, 0, 0), 0.0).sdf([0.0, 2.0, 0.0])) == pytest.approx(2.0)
    assert float(Box((1, 1, 1), (1, 1, 1)).sdf([1.0, 1.0, 4.0])) == pytest.approx(3.0)
    assert float(Capsule((0, 0, 0), (0, 0, 0), 1.0).sdf([0.0, 3.0, 0.0])) == pytest.approx(2.0)


def test_every_public_shape_is_a_shape():
    for shape in (Sphere((0, 0, 0), 1), Box((0, 0, 0), (1, 1, 1)), Capsule((0, 0, 0), (1, 0, 0), 1),
                  Cylinder((0, 0, 0), (1, 0, 0), 1), Sphere((0, 0, 0), 1) | Sphere((1, 0, 0), 1)):
        assert isinstance(shape, Shape)


def test_sdf_refuses_points_that_are_not_numbers():
    with pytest.raises(ParameterError) as caught:
        Sphere((0, 0, 0), 1.0).sdf("abc")
    assert caught.value.parameter == "points"
