"""The pinhole camera of the offscreen snapshots: where it stands, what it looks at, and its matrices.

Y is up, right-handed, metres; angles are degrees. The matrices follow OpenGL's conventions (the camera looks
down its own -Z, clip-space depth from -1 at ``near`` to +1 at ``far``) and are returned row-major, so that
``projection @ view @ (x, y, z, 1)`` is the clip-space position of a world point.

Examples
--------
>>> from voxelworld.viewer import Camera
>>> camera = Camera(eye=(0.0, 2.0, 10.0), target=(0.0, 2.0, 0.0))
>>> camera.fov, camera.near, camera.far
(60.0, 0.1, 1000.0)
>>> camera.view_matrix() @ (0.0, 2.0, 0.0, 1.0)   # the target sits 10 m straight ahead, on -Z
array([  0.,   0., -10.,   1.])
>>> framing = Camera.looking_at_bounds((0, 0, 0), (10, 4, 10))
>>> [round(float(c), 1) for c in framing.target], framing.near < framing.far
([5.0, 2.0, 5.0], True)
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike

from ..errors import ParameterError, check_finite, check_point

__all__ = ["Camera", "DEFAULT_VIEW_DIRECTION"]

# From the target towards the eye of a default camera: from above, to the right and in front (+X, +Y, +Z),
# a three-quarter view that shows the top of terrain and the side facing +Z.
DEFAULT_VIEW_DIRECTION = (0.75, 0.8, 1.0)
_MARGIN = 1.08  # a default camera frames the box this much wider, so that nothing touches the edge


def _unit(vector: np.ndarray) -> np.ndarray:
    return vector / np.linalg.norm(vector)


def _picture_axes(forward: np.ndarray, up: Sequence[float] | None = None) -> tuple[np.ndarray, np.ndarray]:
    """The world directions of the picture's right and up for a camera looking along ``forward``, with ``up``
    (default +Y, or -Z when looking straight down or up) pointing up in the picture."""
    if up is None:
        up = (0.0, 0.0, -1.0) if abs(_unit(forward)[1]) > 0.999 else (0.0, 1.0, 0.0)
    side = _unit(np.cross(forward, up))
    return side, np.cross(side, _unit(forward))


def _centred(along: np.ndarray, depths: np.ndarray) -> float:
    """The offset ``c`` along one picture axis that centres points at ``along`` (m) and ``depths`` (m, > 0): the
    largest ``(along - c) / depth`` equals the largest ``(c - along) / depth``."""
    depths = np.maximum(depths, 1e-9)
    low, high = float(along.min()), float(along.max())
    for _ in range(60):  # bisection: the difference of the two sides falls as c grows
        middle = (low + high) / 2
        if np.max((along - middle) / depths) > np.max((middle - along) / depths):
            low = middle
        else:
            high = middle
    return (low + high) / 2


@dataclass(frozen=True)
class Camera:
    """A perspective camera at ``eye`` looking at ``target``; every field is checked on construction.

    Parameters
    ----------
    eye : three floats
        Where the camera stands (m).
    target : three floats
        The point in the middle of the picture (m); not ``eye`` itself.
    up : three floats
        Which way is up in the picture (a direction, any length but 0, not along the line of sight).
    fov : float
        Vertical field of view in degrees, more than 0 and less than 180.
    near, far : float
        Distances (m) from ``eye`` of the nearest and farthest surfaces drawn, 0 < near < far.

    Examples
    --------
    >>> Camera((0, 0, 5), (0, 0, 0), fov=45).eye
    (0.0, 0.0, 5.0)
    >>> Camera((0, 0, 5), (0, 0, 5))
    Traceback (most recent call last):
    ...
    voxelworld.errors.ParameterError: target = (0.0, 0.0, 5.0) is out of range: must be a point other than eye ...
    """

    eye: tuple[float, float, float]
    target: tuple[float, float, float]
    up: tuple[float, float, float] = (0.0, 1.0, 0.0)
    fov: float = 60.0  # degrees, vertical
    near: float = 0.1  # m
    far: float = 1000.0  # m

    def __post_init__(self) -> None:
        def set_(field: str, value: object) -> None:
            object.__setattr__(self, field, value)

        set_("eye", check_point("eye", self.eye))
        set_("target", check_point("target", self.target))
        set_("up", check_point("up", self.up, unit="any unit (a direction)"))
        set_("fov", check_finite("fov", self.fov, minimum=0.0, maximum=180.0, strict_minimum=True, unit="degrees"))
        if self.fov == 180.0:
            raise ParameterError("fov", self.fov, "a finite number > 0 and < 180 (degrees)")
        set_("near", check_finite("near", self.near, minimum=0.0, strict_minimum=True, unit="m"))
        set_("far", check_finite("far", self.far, minimum=self.near, strict_minimum=True, unit="m"))
        sight = np.subtract(self.target, self.eye)
        if not np.linalg.norm(sight) > 0:
            raise ParameterError("target", self.target, f"a point other than eye {self.eye}")
        up = np.asarray(self.up)
        if not np.linalg.norm(up) > 0 or np.linalg.norm(np.cross(_unit(sight), _unit(up))) < 1e-6:
            raise ParameterError("up", self.up, "a direction of non-zero length, not along the line of sight "
                                                "from eye to target")

    # --- framing ------------------------------------------------------------------------------------------

    @classmethod
    def looking_at_bounds(cls, lo: ArrayLike, hi: ArrayLike, *, aspect: float = 16 / 9, fov: float = 60.0,
                          eye: Sequence[float] | None = None, target: Sequence[float] | None = None,
                          direction: Sequence[float] = DEFAULT_VIEW_DIRECTION) -> Camera:
        """A camera that sees the whole box ``lo``..``hi`` (m), with near and far planes around it.

        Parameters
        ----------
        lo, hi : three floats
            Opposite corners of the box to show (m), ``lo <= hi`` on every axis.
        aspect : float
            Width / height of the picture it is for; the box fits both ways.
        fov : float
            Vertical field of view (degrees).
        eye : three floats, optional
            Where to stand (m). Default: along ``direction`` from ``target``, just far enough for the box to fit.
        target : three floats, optional
            What to look at (m), in the middle of the picture. Default: the centre of the box.
        direction : three floats
            From ``target`` towards the default ``eye`` (any length but 0); default from above, front right.

        Examples
        --------
        >>> camera = Camera.looking_at_bounds((-1, -1, -1), (1, 1, 1), direction=(0, 0, 1))
        >>> [round(c, 2) for c in camera.eye]   # the cube's front corners fit a 60° view, with a margin
        [0.0, 0.0, 2.87]
        >>> round(camera.near, 2), round(camera.far, 2)   # and the cube lies between the near and far planes
        (1.73, 4.18)
        """
        lo_ = np.array(check_point("lo", lo))
        hi_ = np.array(check_point("hi", hi))
        if np.any(lo_ > hi_):
            raise ParameterError("hi", hi, f"a point >= lo {tuple(lo_.tolist())} on every axis")
        aspect = check_finite("aspect", aspect, minimum=0.0, strict_minimum=True)
        fov = check_finite("fov", fov, minimum=0.0, maximum=180.0, strict_minimum=True, unit="degrees")
        if fov == 180.0:
            raise ParameterError("fov", fov, "a finite number > 0 and < 180 (degrees)")
        if not np.any(hi_ > lo_):
            lo_, hi_ = lo_ - 0.5, hi_ + 0.5  # a point still needs a size to stand back from
        corners = np.array(np.meshgrid(*zip(lo_, hi_, strict=True), indexing="ij")).reshape(3, -1).T
        aim = np.array(check_point("target", target)) if target is not None else (lo_ + hi_) / 2
        if eye is not None:
            stand = np.array(check_point("eye", eye))
        else:
            toward_eye = np.array(check_point("direction", direction, unit="any unit (a direction)"))
            if not np.linalg.norm(toward_eye) > 0:
                raise ParameterError("direction", direction, "a direction of non-zero length")
            # Stand back along the direction until every corner of the box is inside the picture, with a margin.
            back = _unit(toward_eye)
            side, above = _picture_axes(-back)
            relative = corners - aim
            x, y, z = relative @ side, relative @ above, relative @ back
            tan_vertical = math.tan(math.radians(fov) / 2) / _MARGIN
            tan_horizontal = tan_vertical * aspect
            distance = float(np.max(np.maximum(z + np.abs(x) / tan_horizontal, z + np.abs(y) / tan_vertical)))
            size = float(np.linalg.norm(hi_ - lo_))
            stand = aim + back * max(distance, 1e-3 * size)
        sight = aim - stand
        up = (0.0, 1.0, 0.0)
        if np.linalg.norm(sight) > 0 and abs(_unit(sight)[1]) > 0.999:
            up = (0.0, 0.0, -1.0)  # looking straight down (or up): the picture's up is -Z
        # Near and far enclose the box (depth along the line of sight); near never closer than far / 10^4 so that
        # depth keeps its precision, even when the eye stands inside the box.
        depths = (corners - stand) @ (_unit(sight) if np.linalg.norm(sight) > 0 else np.array([0.0, 0.0, -1.0]))
        far = max(float(depths.max()) * _MARGIN, 1e-3 * float(np.linalg.norm(hi_ - lo_)))
        near = max(float(depths.min()) / _MARGIN, far * 1e-4)
        return cls(tuple(stand.tolist()), tuple(aim.tolist()), up=up, fov=fov, near=near, far=far)

    @classmethod
    def fitting(cls, points: ArrayLike, *, normals: ArrayLike | None = None, aspect: float = 16 / 9, fov: float = 60.0,
                direction: Sequence[float] = DEFAULT_VIEW_DIRECTION) -> Camera:
        """A camera looking along ``-direction`` that stands as close as it can while every one of ``points`` is
        in the picture (with the default margin): the points fill the picture's width or its height, whichever
        binds, and sit in its middle. For a world, pass its surface's vertices: the air above the ground and
        the empty corners of the world's box take no room in the picture (``looking_at_bounds`` frames those).

        Parameters
        ----------
        points : array (n, 3)
            What must be seen (m), at least one point.
        normals : array (n, 3), optional
            The surface's normal at each point: then only the points whose surface faces the eye count (the
            underside and the far sides of a world are not seen, and take no room); all of them if none does.
        aspect : float
            Width / height of the picture it is for.
        fov : float
            Vertical field of view (degrees).
        direction : three floats
            From what is seen towards the eye (any length but 0); default from above, front right.

        Examples
        --------
        >>> camera = Camera.fitting([[-4, 0, 0], [4, 0, 0], [0, 1, 0]], aspect=2.0, fov=90.0, direction=(0, 0, 1))
        >>> [round(c, 2) + 0.0 for c in camera.eye]   # 8 m wide at 90 x 127 degrees: 4 m back, with a margin
        [0.0, 0.5, 2.16]
        """
        try:
            cloud = np.asarray(points, dtype=np.float64)
        except (TypeError, ValueError):
            raise ParameterError("points", points, "an (n, 3) array of finite points (m)") from None
        if cloud.ndim != 2 or cloud.shape[1] != 3 or len(cloud) == 0 or not np.all(np.isfinite(cloud)):
            raise ParameterError("points", f"an array of shape {cloud.shape}", "an (n, 3) array of finite points "
                                                                              "(m), n >= 1")
        aspect = check_finite("aspect", aspect, minimum=0.0, strict_minimum=True)
        fov = check_finite("fov", fov, minimum=0.0, maximum=180.0, strict_minimum=True, unit="degrees")
        if fov == 180.0:
            raise ParameterError("fov", fov, "a finite number > 0 and < 180 (degrees)")
        toward_eye = np.array(check_point("direction", direction, unit="any unit (a direction)"))
        if not np.linalg.norm(toward_eye) > 0:
            raise ParameterError("direction", direction, "a direction of non-zero length")
        back = _unit(toward_eye)
        if normals is not None:
            facing = np.asarray(normals, dtype=np.float64).reshape(len(cloud), 3) @ back > 0
            cloud = cloud[facing] if facing.any() else cloud
        side, up = _picture_axes(-back)
        s, u, b = cloud @ side, cloud @ up, cloud @ back
        tan_up = math.tan(math.radians(fov) / 2) / _MARGIN
        tan_side = tan_up * aspect
        # The eye at (e_s, e_u, e_b) in (side, up, back) sees a point when |s - e_s| <= tan_side * (e_b - b) and
        # |u - e_u| <= tan_up * (e_b - b): each side of the picture touches the point farthest out on its side.
        right, left = float(np.max(s + tan_side * b)), float(np.max(tan_side * b - s))
        top, bottom = float(np.max(u + tan_up * b)), float(np.max(tan_up * b - u))
        e_b = max((right + left) / (2 * tan_side), (top + bottom) / (2 * tan_up))
        size = max(float(np.ptp(cloud, axis=0).max()), 1.0)
        e_b = max(e_b, float(b.max()) + 1e-3 * size)  # a single point (or a flat one, edge on) still needs room
        depths = e_b - b
        # Across the axis that does not bind, the points' angular extent is centred (halving the offset between
        # the two planes of that axis, as for the binding one, would centre it only at that axis's own distance).
        eye = _centred(s, depths) * side + _centred(u, depths) * up + e_b * back
        target = eye - back * float(np.mean(depths))
        far = float(depths.max()) * _MARGIN
        near = max(float(depths.min()) / _MARGIN, far * 1e-4)
        return cls(tuple(eye.tolist()), tuple(target.tolist()), up=(0.0, 0.0, -1.0) if abs(back[1]) > 0.999
                   else (0.0, 1.0, 0.0), fov=fov, near=near, far=far)

    # --- matrices -----------------------------------------------------------------------------------------

    def view_matrix(self) -> np.ndarray:
        """World to camera space (4x4 float64, row-major): the camera at the origin looking down -Z, Y up."""
        eye = np.asarray(self.eye)
        forward = _unit(np.subtract(self.target, eye))
        side, up = _picture_axes(forward, self.up)
        view = np.identity(4)
        view[0, :3], view[1, :3], view[2, :3] = side, up, -forward
        view[:3, 3] = -view[:3, :3] @ eye
        return view

    def projection_matrix(self, aspect: float) -> np.ndarray:
        """Camera to clip space (4x4 float64, row-major) for a picture ``aspect`` = width / height wide."""
        aspect = check_finite("aspect", aspect, minimum=0.0, strict_minimum=True)
        f = 1.0 / math.tan(math.radians(self.fov) / 2)
        near, far = self.near, self.far
        return np.array([[f / aspect, 0.0, 0.0, 0.0],
                         [0.0, f, 0.0, 0.0],
                         [0.0, 0.0, (far + near) / (near - far), 2 * far * near / (near - far)],
                         [0.0, 0.0, -1.0, 0.0]])
