"""Cameras that show their subject: where to stand so that a picture's subject (a hole, a cooled crust, a cut)
is in view and nothing stands between it and the eye.

:func:`subject_camera` tries eyes all around the subject, at a few heights, at a distance that frames it, and
keeps the one that sees most of the subject's points through the occluders (the terrain's surface and whatever
else is drawn, as a :class:`~voxelworld.collision.TriangleBVH`); among equally good ones it takes the eye nearest
the preferred side (where the player stood) at a comfortable 40 degrees above the subject.

>>> import numpy as np
>>> from voxelworld.collision import TriangleBVH
>>> wall = TriangleBVH([[3, 0, -20], [3, 0, 20], [3, 9, -20], [3, 9, 20]], [[0, 1, 2], [1, 3, 2]])
>>> camera = subject_camera(wall, [[2.5, 1.0, 0.0]], prefer=(1.0, 0.0, 0.0))  # not from behind the wall
>>> round(camera.eye[0], 6) <= 2.5, camera.target   # beside the wall at best, never behind it
(True, (2.5, 1.0, 0.0))
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
from numpy.typing import ArrayLike

from ..collision import TriangleBVH
from ..errors import ParameterError, check_finite, check_point
from .camera import Camera

__all__ = ["subject_camera", "visible_share", "PITCHES", "YAW_STEP"]

PITCHES = (40.0, 25.0, 55.0, 70.0, 12.0)  # degrees above the subject the eyes are tried at, the preferred first
YAW_STEP = 15.0  # degrees between the directions tried around the subject
SUBJECT_SHARE = 0.35  # of the picture's height the subject's diameter takes
MIN_DISTANCE, MAX_DISTANCE = 3.0, 14.0  # m from the subject's centre to the eye
CLEARANCE = 0.4  # m: no surface nearer the eye than this (the near plane would cut it)
SAMPLES = 24  # subject points tested at most


def _rays_clear(occluders: TriangleBVH, eyes: np.ndarray, points: np.ndarray, own_object: int) -> np.ndarray:
    """(E, P) bool: whether the segment from each eye to each point meets nothing but ``own_object`` (the
    subject's own triangles' object number; -2 for none) before the last 0.15 m."""
    origins = np.repeat(eyes, len(points), axis=0)
    ends = np.tile(points, (len(eyes), 1))
    gap = ends - origins
    length = np.linalg.norm(gap, axis=1)
    hits = occluders.raycast(origins, gap / length[:, None], np.maximum(length - 0.15, 1e-3))
    return (~hits.hit | (hits.object == own_object)).reshape(len(eyes), len(points))


def visible_share(occluders: TriangleBVH, eye: ArrayLike, points: ArrayLike, own_object: int = -2) -> float:
    """The share (0..1) of ``points`` (m) seen from ``eye`` (m) through ``occluders``.

    >>> from voxelworld.collision import TriangleBVH
    >>> wall = TriangleBVH([[0, -5, -5], [0, -5, 5], [0, 5, -5], [0, 5, 5]], [[0, 1, 2], [1, 3, 2]])
    >>> visible_share(wall, (-3, 0, 0), [[-1, 0, 0], [1, 0, 0]])   # the point behind the wall is hidden
    0.5
    """
    eye = np.asarray(check_point("eye", eye))[None]
    points = np.asarray(points, dtype=np.float64).reshape(-1, 3)
    return float(_rays_clear(occluders, eye, points, own_object).mean())


def subject_camera(occluders: TriangleBVH, points: ArrayLike, *, prefer: Sequence[float] = (0.0, 0.0, 1.0),
                   aspect: float = 16 / 9, fov: float = 60.0, own_object: int = -2) -> Camera:
    """A camera looking at the middle of ``points`` (m, the subject) from where most of them are seen.

    Parameters
    ----------
    occluders : TriangleBVH
        Everything drawn that can hide the subject (terrain surface, actors).
    points : array (n, 3)
        The subject: points on it (m), at least one; up to 24 of them, evenly picked, are tested.
    prefer : three floats
        From the subject towards the side to look from, all else equal (any length but 0).
    aspect, fov : float
        The picture's width / height and vertical field of view (degrees).
    own_object : int
        The object number (``tri_object``) of the subject's own triangles in ``occluders``: hitting them is
        seeing the subject (-2: none).

    The distance frames the subject's diameter at 0.35 of the picture's height (3 to 14 m away).
    """
    subject = np.asarray(points, dtype=np.float64).reshape(-1, 3) if np.size(points) else np.zeros((0, 3))
    if len(subject) == 0 or not np.all(np.isfinite(subject)):
        raise ParameterError("points", f"{len(subject)} points", "at least one finite point (m)")
    side = np.asarray(check_point("prefer", prefer, unit="any unit (a direction)"))
    if not np.linalg.norm(side[[0, 2]]) > 0:
        side = np.array([0.0, 0.0, 1.0])
    fov = check_finite("fov", fov, minimum=1.0, maximum=170.0, unit="degrees")
    centre = subject.mean(axis=0)
    radius = max(float(np.linalg.norm(subject - centre, axis=1).max()), 0.75)
    distance = float(np.clip(radius / (SUBJECT_SHARE * math.tan(math.radians(fov) / 2)), MIN_DISTANCE,
                             MAX_DISTANCE))
    tested = subject[np.linspace(0, len(subject) - 1, min(SAMPLES, len(subject))).round().astype(int)]
    tested = np.vstack([tested, centre])
    preferred_yaw = math.atan2(side[2], side[0])
    yaws = preferred_yaw + np.radians(np.arange(0.0, 360.0, YAW_STEP))
    directions = np.array([(math.cos(math.radians(p)) * math.cos(y), math.sin(math.radians(p)),
                            math.cos(math.radians(p)) * math.sin(y)) for p in PITCHES for y in yaws])
    eyes = centre + distance * directions
    seen = _rays_clear(occluders, eyes, tested, own_object).mean(axis=1)
    crowded = occluders.overlap_sphere(eyes, CLEARANCE)
    seen[np.unique(crowded.query)] = -1.0  # an eye against a surface (or inside one) sees nothing well
    facing = np.tile(np.cos(yaws - preferred_yaw), len(PITCHES))  # 1 on the preferred side, -1 opposite
    # Most of the subject seen first (in steps of a tenth), then the preferred side, then the preferred height
    # (the directions are listed by height, preferred first: argmax keeps the first of equals).
    score = np.floor(seen * 10 + 1e-9) * 10.0 + facing
    best = int(np.argmax(score))
    return Camera(tuple(eyes[best].tolist()), tuple(centre.tolist()), fov=fov, near=0.1, far=300.0)
