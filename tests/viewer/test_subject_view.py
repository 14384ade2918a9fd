"""Cameras chosen to show their subject (voxelworld.viewer.subject_view) and cameras fitted to what they frame
(Camera.fitting), on shapes made here: a wall, a pit, boxes in the way."""

from __future__ import annotations

import math

import numpy as np
import pytest

from voxelworld.collision import TriangleBVH
from voxelworld.errors import ParameterError
from voxelworld.viewer import Camera
from voxelworld.viewer.subject_view import CLEARANCE, SUBJECT_SHARE, subject_camera, visible_share

_BOX = np.array([[0, 1, 5], [0, 5, 4], [2, 6, 7], [2, 7, 3], [0, 4, 6], [0, 6, 2], [1, 3, 7], [1, 7, 5],
                 [0, 2, 3], [0, 3, 1], [4, 5, 7], [4, 7, 6]])
_CORNERS = np.array([[(c >> a) & 1 for a in range(3)] for c in range(8)], dtype=np.float64)


def boxes(*corners) -> TriangleBVH:
    """Closed boxes between each (lo, hi) pair, numbered 0, 1, ... as objects."""
    positions, indices, objects = [], [], []
    for n, (lo, hi) in enumerate(corners):
        positions.append(np.asarray(lo) + _CORNERS * (np.asarray(hi) - np.asarray(lo)))
        indices.append(_BOX + 8 * n)
        objects.append(np.full(12, n))
    return TriangleBVH(np.vstack(positions), np.vstack(indices), tri_object=np.concatenate(objects))


def yaw_of(vector) -> float:
    return math.degrees(math.atan2(vector[2], vector[0])) % 360


def test_the_preferred_side_is_taken_when_nothing_is_in_the_way():
    ground = boxes(((-30, -1, -30), (30, 0, 30)))
    subject = [[0.0, 0.2, 0.0]]
    camera = subject_camera(ground, subject, prefer=(1.0, 0.0, 1.0))
    assert abs(yaw_of(np.subtract(camera.eye, camera.target)) - 45.0) < 1e-6
    assert camera.eye[1] > 0.2 and visible_share(ground, camera.eye, subject) == 1.0


def test_a_wall_on_the_preferred_side_sends_the_eye_round_to_the_open_side():
    wall = boxes(((-30, -1, -30), (30, 0, 30)), ((2, 0, -30), (4, 12, 30)))
    subject = [[1.5, 0.5, z] for z in (-1.0, 0.0, 1.0)]  # just before the wall's face at x = 2
    camera = subject_camera(wall, subject, prefer=(1.0, 0.0, 0.0))  # the player behind the wall
    assert camera.eye[0] <= 1.5 + 1e-6 and visible_share(wall, camera.eye, subject) == 1.0
    behind = Camera((10.0, 5.0, 0.0), (1.5, 0.5, 0.0))
    assert visible_share(wall, behind.eye, subject) == 0.0  # the naive view the player's side would give


def test_a_box_in_front_of_the_subject_is_looked_past():
    scene = boxes(((-30, -1, -30), (30, 0, 30)), ((2.0, 0, -0.5), (3.0, 6.0, 0.5)))  # a tall box on the way
    subject = [[0.0, 0.1, 0.0], [0.0, 0.1, 0.5], [0.0, 0.1, -0.5]]
    camera = subject_camera(scene, subject, prefer=(1.0, 0.0, 0.0))
    assert visible_share(scene, camera.eye, subject) == 1.0
    distance = float(np.linalg.norm(np.subtract(camera.eye, camera.target)))
    straight = np.array(camera.target) + distance * np.array([math.cos(math.radians(40)), math.sin(math.radians(40)),
                                                              0.0])
    assert visible_share(scene, straight, subject) < 1.0  # the first choice (40 degrees, that side) is blocked


def test_the_subject_s_own_box_does_not_hide_it():
    scene = boxes(((-30, -1, -30), (30, 0, 30)), ((-0.4, 0.0, -0.4), (0.4, 1.8, 0.4)))
    middle = [[0.0, 0.9, 0.0]]  # inside the box: hidden by it unless it is the subject's own
    assert visible_share(scene, (5.0, 4.0, 0.0), middle) == 0.0
    assert visible_share(scene, (5.0, 4.0, 0.0), middle, own_object=1) == 1.0
    camera = subject_camera(scene, middle, prefer=(1.0, 0.0, 0.0), own_object=1)
    assert visible_share(scene, camera.eye, middle, own_object=1) == 1.0


def test_the_bottom_of_a_pit_is_seen_from_above_and_never_from_inside_the_ground():
    # Ground from y = -6 to 0 with a 4 m x 4 m pit 3 m deep: four blocks round the hole, a floor below.
    scene = boxes(((-30, -6, -30), (30, -3, 30)), ((-30, -3, -30), (-2, 0, 30)), ((2, -3, -30), (30, 0, 30)),
                  ((-2, -3, -30), (2, 0, -2)), ((-2, -3, 2), (2, 0, 30)))
    floor = [[x, -2.95, z] for x in (-1.5, 0.0, 1.5) for z in (-1.5, 0.0, 1.5)]
    camera = subject_camera(scene, floor, prefer=(1.0, 0.0, 0.0))
    assert visible_share(scene, camera.eye, floor) >= 0.8
    assert camera.eye[1] > 0.0  # above ground
    assert len(scene.overlap_sphere(np.array([camera.eye]), CLEARANCE).query) == 0  # not against a surface


def test_the_distance_frames_the_subject():
    ground = boxes(((-30, -1, -30), (30, 0, 30)))
    small = subject_camera(ground, [[0, 0.1, 0], [0.5, 0.1, 0]])
    large = subject_camera(ground, [[-2, 0.1, 0], [2, 0.1, 0]])
    far = [float(np.linalg.norm(np.subtract(c.eye, c.target))) for c in (small, large)]
    # the diameter takes SUBJECT_SHARE of the picture's height (60 degrees); a radius under 0.75 m counts as 0.75
    assert far == pytest.approx([0.75 / (SUBJECT_SHARE * math.tan(math.radians(30))),
                                 2.0 / (SUBJECT_SHARE * math.tan(math.radians(30)))])


def test_no_subject_is_refused():
    with pytest.raises(ParameterError) as excinfo:
        subject_camera(boxes(((0, 0, 0), (1, 1, 1))), [])
    assert excinfo.value.parameter == "points"


# --- Camera.fitting ---------------------------------------------------------------------------------------------


def ndc(camera: Camera, points, aspect: float) -> np.ndarray:
    homogeneous = np.c_[np.asarray(points, dtype=np.float64), np.ones(len(points))]
    clip = homogeneous @ (camera.projection_matrix(aspect) @ camera.view_matrix()).T
    return clip[:, :3] / clip[:, 3:]


@pytest.mark.parametrize("aspect", [16 / 9, 0.6, 1.0])
def test_fitting_fills_the_picture_along_the_binding_axis_and_centres_the_other(aspect):
    rng = np.random.default_rng(4)
    points = rng.uniform((0, 10, 0), (60, 14, 40), size=(400, 3))  # a wide, flat world surface
    camera = Camera.fitting(points, aspect=aspect)
    projected = ndc(camera, points, aspect)
    assert np.all(np.abs(projected[:, :2]) <= 1.0) and np.all(np.abs(projected[:, 2]) <= 1.0)  # all in view
    extents = np.abs(projected[:, :2]).max(axis=0)
    assert extents.max() == pytest.approx(1 / 1.08, abs=1e-6)  # the margin, no more, along one axis
    for axis in (0, 1):  # centred: as much room left as right, above as below
        assert projected[:, axis].max() == pytest.approx(-projected[:, axis].min(), abs=1e-6)


def test_fitting_fills_more_of_the_picture_than_framing_the_box():
    rng = np.random.default_rng(5)
    points = rng.uniform((0, 16, 0), (96, 34, 96), size=(600, 3))
    box = Camera.looking_at_bounds((0, 0, 0), (96, 48, 96))  # the world's box: the air above, the ground below
    fitted = Camera.fitting(points)
    area = [float(np.prod(np.ptp(ndc(c, points, 16 / 9)[:, :2], axis=0))) for c in (box, fitted)]
    assert area[1] > 2.0 * area[0]


def test_fitting_with_normals_leaves_out_the_surface_facing_away():
    top = np.array([[x, 0.0, z] for x in (0.0, 10.0) for z in (0.0, 10.0)])
    below = top - (0.0, 40.0, 0.0)  # an underside far below, facing down: not seen from above
    points = np.vstack([top, below])
    normals = np.vstack([np.tile((0.0, 1.0, 0.0), (4, 1)), np.tile((0.0, -1.0, 0.0), (4, 1))])
    with_normals = Camera.fitting(points, normals=normals, direction=(1.0, 1.0, 1.0))
    assert with_normals == Camera.fitting(top, direction=(1.0, 1.0, 1.0))
    assert with_normals != Camera.fitting(points, direction=(1.0, 1.0, 1.0))


def test_fitting_refuses_bad_points():
    for bad in ([], [[0.0, 1.0]], [[0.0, np.nan, 1.0]]):
        with pytest.raises(ParameterError) as excinfo:
            Camera.fitting(bad)
        assert excinfo.value.parameter == "points"
