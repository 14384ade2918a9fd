"""What the moving part touches, and what it is told: contacts, the part's shape, the slowdown profile, media,
events, and a contact query answered by a collision BVH (see :mod:`voxelworld.motion.contact_motion` for the motion).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, ClassVar, TypeAlias

import numpy as np
from numpy.typing import ArrayLike

from ..errors import ParameterError, check_direction, check_finite, check_integer, check_point

if TYPE_CHECKING:
    from ..collision import TriangleBVH
    from ..terrain import Material
    from .skeleton import Skeleton

__all__ = ["Contact", "PartShape", "SlowdownProfile", "Medium", "ContactStarted", "ContactEnded", "MediumEntered",
           "MediumLeft", "Vibration",
           "collision_contact_query", "joint_index"]


@dataclass(frozen=True)
class Contact:
    """What the part touches, as a ``contact_query`` reports it.

    Parameters
    ----------
    point : 3 floats
        Contact point in world space (m).
    normal : 3 floats
        Unit surface normal at the point, facing the part (the push-out direction).
    material : str
        The material's name.
    hardness : float
        The material's hardness (>= 0), on the scale of ``voxelworld.terrain``'s material table (soil 1.5,
        wood 3, rock 5, iron 10).
    area : float or None
        Contact area factor in [0, 1]: 0 = the blade's edge cuts, 1 = the flat of the blade (or a blunt part)
        drags. None: worked out from the part's blade normal and its motion (see :class:`PartShape`).

    Examples
    --------
    >>> Contact((0, 1, 0), (0, 0, 1), "rock", 5.0).hardness
    5.0
    """

    point: tuple[float, float, float]
    normal: tuple[float, float, float]
    material: str
    hardness: float
    area: float | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "point", check_point("point", self.point))
        object.__setattr__(self, "normal", check_direction("normal", self.normal))
        if not isinstance(self.material, str) or not self.material:
            raise ParameterError("material", self.material, "a material name (non-empty string)")
        object.__setattr__(self, "hardness", check_finite("hardness", self.hardness, minimum=0.0))
        if self.area is not None:
            object.__setattr__(self, "area", check_finite("area", self.area, minimum=0.0, maximum=1.0))


@dataclass(frozen=True)
class PartShape:
    """The hand and the tool it holds: a capsule (or, with radius 0, a segment) fixed to the wrist joint.

    Parameters
    ----------
    start, end : 3 floats
        The capsule's axis in the wrist's local frame (m; scaled with the wrist if the skeleton is scaled).
    radius : float
        Capsule radius (m, >= 0; not scaled).
    blade_normal : 3 floats or None
        For blade tools: the normal of the blade's flat side in the wrist's frame. The contact area factor is
        then how squarely the first action drives the blade through what it touches, ``|blade_normal . v|``
        with ``v`` the unit velocity of the part's end as the first action moves it: 0 when the blade goes in
        edge-first (a saw, a shovel's edge-on stroke), 1 when it is pushed face-first (the flat); a blade at
        rest takes ``|blade_normal . contact normal|``. None (a fist, a club): area 1 unless the query gives
        one.

    Examples
    --------
    >>> PartShape((0, 0, 0), (0, -0.6, 0), 0.05, blade_normal=(0, 0, 2)).blade_normal
    (0.0, 0.0, 1.0)
    """

    start: tuple[float, float, float]
    end: tuple[float, float, float]
    radius: float
    blade_normal: tuple[float, float, float] | None = None
    # The axis (and blade normal) as columns (3, 2 or 3): set per instance by __post_init__; a ClassVar to the type
    # checker so that the dataclass does not take it for a field.
    _local: ClassVar[np.ndarray]

    def __post_init__(self) -> None:
        object.__setattr__(self, "start", check_point("start", self.start))
        object.__setattr__(self, "end", check_point("end", self.end))
        object.__setattr__(self, "radius", check_finite("radius", self.radius, minimum=0.0, unit="m"))
        if self.blade_normal is not None:
            object.__setattr__(self, "blade_normal", check_direction("blade_normal", self.blade_normal))
        # The axis (and blade normal) as columns, placed by one matrix product per frame.
        columns = [self.start, self.end] + ([self.blade_normal] if self.blade_normal is not None else [])
        object.__setattr__(self, "_local", np.array(columns, dtype=np.float64).T.copy())

    def placed(self, wrist_world: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray | None]:
        """World start, end (m) and unit blade normal (or None) for the wrist's world matrix ``(4, 4)``."""
        turned = wrist_world[:3, :3] @ self._local
        start, end = turned[:, 0] + wrist_world[:3, 3], turned[:, 1] + wrist_world[:3, 3]
        if self.blade_normal is None:
            return start, end, None
        normal = turned[:, 2]
        return start, end, normal / np.linalg.norm(normal)


# ----------------------------------------------------------------------------------------------------- profile
@dataclass(frozen=True)
class SlowdownProfile:
    """How much each joint slows in contact, how fast it recovers, and how the body shakes.

    In contact with a material of hardness ``h`` at contact area factor ``a`` (0 edge, 1 flat), for a chain of
    ``k`` joints (shoulder first, wrist last) under a body (the root and the joints from it to the chain's
    parent)::

        resistance = h * (1 + flat_drag * a)
        body       = root_rate
        wrist      = max(min_rate, body * wrist_share / (1 + resistance / softness))   (min_rate if h >= uncuttable)
        joint d    = wrist * (body / wrist) ** share(d)                    (d joints above the wrist)

    ``share`` is ``elbow_share`` one joint above the wrist, ``shoulder_share`` at the chain's first joint, and
    linear in ``d`` between them (a two-joint chain has only the shoulder's). So the part that touches (wrist and
    tool) is always the slowest, the arm lags the body, the hips and torso nearly stop, and everything else in
    the skeleton keeps the first action's speed. With the defaults, an edge cuts sand (0.5) at 0.040, soil (1.5)
    at 0.029, wood (3) at 0.020, rock (5) at 0.014 (elbow 0.026, shoulder 0.046, hips 0.1); the flat of a blade on
    rock gives 0.0059; iron (10 >= 8, which the default terrain tool cannot cut) gives ``min_rate`` 0.003.

    After contact a joint's rate relaxes towards its target with a time constant (``wrist_recovery`` for the
    wrist and the joints below it, ``elbow_recovery`` one joint above, up to ``shoulder_recovery`` at the chain's
    first joint, ``body_recovery`` for the body), each starting ``recovery_delay`` seconds after the joint below
    it: the wrist first, then the elbow, the shoulder, the hips. Once every joint outside media has recovered
    (rate >= 0.99), a joint whose clock trails the leaders targets ``min(max_catch_up, 1 + max(lag / catch_up_time,
    0.2))`` until it has caught up.

    In contact the torso shakes: a rotation of ``vibration_degrees * min(1, h / 10)`` degrees at
    ``vibration_frequency + vibration_frequency_per_hardness * h`` Hz, fading with ``body_recovery`` after; a
    motion caps it where the first action moves slowly, so that no slowed joint, shaken, moves more per frame than
    the first action moves it (``ContactMotion``'s kernel ``frame.shake_cap``).

    Parameters
    ----------
    softness : float
        Hardness at which an edge's wrist rate halves from its hardness-0 value (> 0, hardness units). Default 2.
    wrist_share : float
        The wrist's rate as a share of the body's on a material of hardness 0 (0 < share < 1). Default 0.5.
    flat_drag : float
        Extra resistance of the flat of a blade over its edge (>= 0). Default 2: the flat drags 3x.
    elbow_share, shoulder_share : float
        How far, on a log scale, the elbow's and the shoulder's rates lie from the wrist's towards the body's
        (0 <= elbow < shoulder <= 1). 0.3, 0.6: so the whole arm follows the material's hardness.
    root_rate : float
        The body's rate in contact (0..1): the hips and the torso up to the chain. Default 0.1.
    min_rate : float
        Floor of every contact rate (0 < min_rate <= root_rate), so a stuck tool still comes free. Default 0.003.
    uncuttable : float
        Hardness from which the wrist runs at ``min_rate`` (> 0, inf to disable). Default 8.
    wrist_recovery, elbow_recovery, shoulder_recovery, body_recovery : float
        Recovery time constants (s, > 0, increasing). 0.05, 0.1, 0.15, 0.2.
    recovery_delay : float
        Seconds (>= 0) between one joint's start of recovery and the next one's towards the body. Default 0.05.
    catch_up_time : float
        Time constant (s) of catching up with the leading clock. Default 0.5.
    max_catch_up : float
        Highest rate while catching up (>= 1). Default 2.
    impulse_scale : float
        :class:`Vibration` impulse per (hardness x m/s). Default 1.
    vibration_degrees : float
        Torso shake at hardness 10 (degrees, >= 0). Default 1.5.
    vibration_frequency, vibration_frequency_per_hardness : float
        Shake frequency at hardness 0 (Hz, > 0) and its growth per hardness unit (Hz, >= 0). 8 and 2.

    Examples
    --------
    >>> profile = SlowdownProfile()
    >>> [round(rate, 3) for rate in profile.chain_rates(5.0, 0.0)]
    [0.014, 0.026, 0.046, 0.1]
    >>> profile.wrist_rate(1.5, 0.0) > profile.wrist_rate(5.0, 0.0) > profile.wrist_rate(5.0, 1.0) > profile.min_rate
    True
    """

    softness: float = 2.0
    wrist_share: float = 0.5
    flat_drag: float = 2.0
    elbow_share: float = 0.3
    shoulder_share: float = 0.6
    root_rate: float = 0.1
    min_rate: float = 0.003
    uncuttable: float = 8.0
    wrist_recovery: float = 0.05
    elbow_recovery: float = 0.1
    shoulder_recovery: float = 0.15
    body_recovery: float = 0.2
    recovery_delay: float = 0.05
    catch_up_time: float = 0.5
    max_catch_up: float = 2.0
    impulse_scale: float = 1.0
    vibration_degrees: float = 1.5
    vibration_frequency: float = 8.0
    vibration_frequency_per_hardness: float = 2.0

    def __post_init__(self) -> None:
        def number(name: str, **limits: Any) -> None:
            object.__setattr__(self, name, check_finite(name, getattr(self, name), **limits))

        number("softness", minimum=0.0, strict_minimum=True)
        number("flat_drag", minimum=0.0)
        number("wrist_share", minimum=0.0, maximum=1.0, strict_minimum=True)
        if self.wrist_share >= 1.0:
            raise ParameterError("wrist_share", self.wrist_share, "below 1: the wrist is slower than the body")
        number("elbow_share", minimum=0.0, maximum=1.0)
        number("shoulder_share", minimum=0.0, maximum=1.0)
        if self.shoulder_share <= self.elbow_share:
            raise ParameterError("shoulder_share", self.shoulder_share,
                                 f"greater than elbow_share ({self.elbow_share}): the shoulder keeps more speed")
        number("root_rate", minimum=0.0, maximum=1.0, strict_minimum=True)
        number("min_rate", minimum=0.0, maximum=self.root_rate, strict_minimum=True)
        value = self.uncuttable
        if not (isinstance(value, (int, float)) and value == math.inf):
            number("uncuttable", minimum=0.0, strict_minimum=True)
        times = ("wrist_recovery", "elbow_recovery", "shoulder_recovery", "body_recovery")
        for name in times + ("catch_up_time",):
            number(name, minimum=0.0, strict_minimum=True, unit="s")
        for inner, outer in zip(times, times[1:]):
            if getattr(self, outer) <= getattr(self, inner):
                raise ParameterError(outer, getattr(self, outer),
                                     f"greater than {inner} ({getattr(self, inner)} s): recovery runs from the "
                                     "wrist outward")
        number("recovery_delay", minimum=0.0, maximum=10.0, unit="s")
        number("max_catch_up", minimum=1.0, maximum=100.0)
        number("impulse_scale", minimum=0.0)
        number("vibration_degrees", minimum=0.0, maximum=45.0, unit="degrees")
        number("vibration_frequency", minimum=0.0, strict_minimum=True, maximum=1000.0, unit="Hz")
        number("vibration_frequency_per_hardness", minimum=0.0, maximum=1000.0, unit="Hz")

    def wrist_rate(self, hardness: float, area: float) -> float:
        """The wrist's contact rate for ``hardness`` (>= 0) and contact area factor ``area`` (0..1)."""
        hardness = check_finite("hardness", hardness, minimum=0.0)
        area = check_finite("area", area, minimum=0.0, maximum=1.0)
        return self._wrist_rate(hardness, area)

    def _wrist_rate(self, hardness: float, area: float) -> float:
        """:meth:`wrist_rate` of numbers already checked (a motion's frame: a Contact's hardness, its area)."""
        if hardness >= self.uncuttable:
            return self.min_rate
        resistance = hardness * (1.0 + self.flat_drag * area)
        return max(self.min_rate, self.root_rate * self.wrist_share / (1.0 + resistance / self.softness))

    def chain_rates(self, hardness: float, area: float, joints: int = 3) -> tuple[float, ...]:
        """Contact rates of a chain of ``joints`` (>= 2) from the wrist inward, then the body's:
        ``(wrist, elbow, ..., shoulder, body)``."""
        joints = check_integer("joints", joints, minimum=2, maximum=64)
        return self._chain_rates(check_finite("hardness", hardness, minimum=0.0),
                                 check_finite("area", area, minimum=0.0, maximum=1.0), joints)

    def _chain_rates(self, hardness: float, area: float, joints: int) -> tuple[float, ...]:
        """:meth:`chain_rates` of numbers already checked."""
        return self._graded(self._wrist_rate(hardness, area), self.root_rate, joints) + (self.root_rate,)

    def graded(self, wrist: float, body: float, joints: int = 3) -> tuple[float, ...]:
        """Rates of a chain of ``joints`` (>= 2) from the wrist inward, the wrist at ``wrist`` and the joints
        above it on the log scale towards ``body`` (``wrist * (body / wrist) ** share``; see the class): used for
        contacts and for a tool dragged through a :class:`Medium`."""
        joints = check_integer("joints", joints, minimum=2, maximum=64)
        return self._graded(wrist, body, joints)

    def _graded(self, wrist: float, body: float, joints: int) -> tuple[float, ...]:
        """:meth:`graded` of numbers already checked."""
        rates = [wrist]
        for above in range(1, joints):
            if joints == 2:
                share = self.shoulder_share
            else:
                share = self.elbow_share + (self.shoulder_share - self.elbow_share) * (above - 1) / (joints - 2)
            rates.append(wrist * (body / wrist) ** share)
        return tuple(rates)

    def recovery_times(self, joints: int = 3) -> tuple[float, ...]:
        """Recovery time constants (s) of a chain of ``joints`` from the wrist inward, then the body's."""
        joints = check_integer("joints", joints, minimum=2, maximum=64)
        taus = [self.wrist_recovery]
        for above in range(1, joints):
            if joints == 2:
                taus.append(self.shoulder_recovery)
            else:
                taus.append(self.elbow_recovery + (self.shoulder_recovery - self.elbow_recovery) * (above - 1)
                            / (joints - 2))
        return tuple(taus) + (self.body_recovery,)

    def shake(self, hardness: float) -> tuple[float, float]:
        """The torso's shake in contact with ``hardness``: (amplitude in degrees, frequency in Hz)."""
        hardness = check_finite("hardness", hardness, minimum=0.0)
        return (self.vibration_degrees * min(1.0, hardness / 10.0),
                self.vibration_frequency + self.vibration_frequency_per_hardness * hardness)


# ------------------------------------------------------------------------------------------------------- media
@dataclass(frozen=True)
class Medium:
    """A volume that slows the joints inside it (water, mud), more the deeper they are, and drags on a tool
    moved through it by how squarely the tool's blade meets its motion (an oar).

    A joint ``depth`` metres below the medium's surface runs at ``1 / (1 + drag * min(1, depth / grade))``
    (``grade`` 0: the full drag anywhere inside), so along a chain dipped in water the deepest part is the
    slowest. Give exactly one region: ``box=(lo, hi)`` (corners, m; the surface is the top face along ``up``) or
    ``sphere=(centre, radius)`` (m; depth is measured from the sphere's surface).

    The part (the tool) in the medium feels :meth:`part_drag`: the drag at its end's depth times how squarely
    the blade meets the water it moves through, ``edge_share + (1 - edge_share) * |blade_normal . v|`` with
    ``v`` the unit velocity of the part's end relative to the medium's ``flow``. An oar pulled square against
    the water (the blade's face across its motion) drags fully and the arm moves slowly; feathered (moving
    edge-first) it slips through at ``edge_share`` of the drag. A rower in a boat is stood on the boat by
    ``ContactMotion.place`` (so the blade's world velocity includes the boat's), or stands still with the water
    flowing past at minus the boat's velocity.

    Parameters
    ----------
    name : str
    drag : float
        >= 0: the slowdown at full depth.
    box, sphere : region
    grade : float
        Depth (m, >= 0) at which the full drag is reached. Default 0.
    up : 3 floats
        The surface's up direction (a box's surface is its highest face along it). Default (0, 1, 0).
    flow : 3 floats
        The medium's velocity in the world (m/s). Default (0, 0, 0): still water.
    edge_share : float
        The share of the drag a blade moving edge-first still feels (0..1). Default 0.05.

    Examples
    --------
    >>> pond = Medium("water", 1.0, box=((0, -1, 0), (4, 0.5, 4)))
    >>> pond.rate, pond.contains([[1.0, 0.0, 1.0], [1.0, 1.0, 1.0]]).tolist()
    (0.5, [True, False])
    >>> deep = Medium("water", 3.0, box=((0, -2, 0), (4, 0.0, 4)), grade=1.0)
    >>> deep.rates([[1, -0.25, 1], [1, -1.5, 1], [1, 0.5, 1]]).tolist()
    [0.5714285714285714, 0.25, 1.0]

    An oar's blade half a metre deep, pulled square through the water, then feathered:

    >>> lake = Medium("water", 8.0, box=((-9, -2, -9), (9, 0.0, 9)))
    >>> lake.part_drag((0, -0.5, 0), blade_normal=(1, 0, 0), velocity=(-2, 0, 0))
    8.0
    >>> round(lake.part_drag((0, -0.5, 0), blade_normal=(0, 1, 0), velocity=(-2, 0, 0)), 2)
    0.4
    """

    name: str
    drag: float
    box: tuple | None = None
    sphere: tuple | None = None
    grade: float = 0.0
    up: tuple = (0.0, 1.0, 0.0)
    flow: tuple = (0.0, 0.0, 0.0)
    edge_share: float = 0.05
    rate: float = field(init=False)

    def __post_init__(self) -> None:
        if not isinstance(self.name, str) or not self.name:
            raise ParameterError("name", self.name, "a non-empty string")
        object.__setattr__(self, "drag", check_finite("drag", self.drag, minimum=0.0))
        object.__setattr__(self, "rate", 1.0 / (1.0 + self.drag))
        object.__setattr__(self, "grade", check_finite("grade", self.grade, minimum=0.0, unit="m"))
        object.__setattr__(self, "up", check_direction("up", self.up))
        object.__setattr__(self, "flow", check_point("flow", self.flow))
        object.__setattr__(self, "edge_share", check_finite("edge_share", self.edge_share, minimum=0.0, maximum=1.0))
        if (self.box is None) == (self.sphere is None):
            raise ParameterError("box/sphere", (self.box, self.sphere), "exactly one region: a box or a sphere")
        if self.box is not None:
            if not isinstance(self.box, (tuple, list)) or len(self.box) != 2:
                raise ParameterError("box", self.box, "(lo, hi): two corners of 3 numbers (m)")
            lo, hi = check_point("box lo", self.box[0]), check_point("box hi", self.box[1])
            if any(a > b for a, b in zip(lo, hi)):
                raise ParameterError("box", self.box, "lo <= hi on every axis")
            object.__setattr__(self, "box", (lo, hi))
        else:
            if not isinstance(self.sphere, (tuple, list)) or len(self.sphere) != 2:
                raise ParameterError("sphere", self.sphere, "(centre, radius): 3 numbers and a radius (m)")
            centre = check_point("sphere centre", self.sphere[0])
            radius = check_finite("sphere radius", self.sphere[1], minimum=0.0, unit="m")
            object.__setattr__(self, "sphere", (centre, radius))

    def contains(self, points: ArrayLike) -> np.ndarray:
        """(k,) bool: which of the points ``(k, 3)`` (m) lie inside (boundary included)."""
        points = np.asarray(points, dtype=np.float64).reshape(-1, 3)
        if self.box is not None:
            lo, hi = np.array(self.box[0]), np.array(self.box[1])
            return np.all((points >= lo) & (points <= hi), axis=1)
        assert self.sphere is not None  # __post_init__ keeps exactly one region: a box or a sphere
        centre, radius = np.array(self.sphere[0]), self.sphere[1]
        return np.sum((points - centre) ** 2, axis=1) <= radius * radius

    def depths(self, points: ArrayLike) -> np.ndarray:
        """(k,) float: how far (m) below the surface each point lies (negative outside)."""
        points = np.asarray(points, dtype=np.float64).reshape(-1, 3)
        if self.box is not None:
            lo, hi = np.array(self.box[0]), np.array(self.box[1])
            up = np.array(self.up)
            top = float(np.max(np.where(up >= 0, hi, lo) @ up))
            depth = top - points @ up
            return np.where(self.contains(points), depth, -1.0)
        assert self.sphere is not None  # __post_init__ keeps exactly one region: a box or a sphere
        centre, radius = np.array(self.sphere[0]), self.sphere[1]
        return radius - np.sqrt(np.sum((points - centre) ** 2, axis=1))

    def rates(self, points: ArrayLike) -> np.ndarray:
        """(k,) float: the rate of a joint at each point (1 outside, see the class)."""
        depth = self.depths(points)
        inside = self.contains(points)
        fraction = np.ones_like(depth) if self.grade == 0.0 else np.clip(depth / self.grade, 0.0, 1.0)
        return np.where(inside, 1.0 / (1.0 + self.drag * fraction), 1.0)

    def part_drag(self, end: ArrayLike, blade_normal: ArrayLike | None = None,
                  velocity: ArrayLike = (0.0, 0.0, 0.0)) -> float:
        """The drag (>= 0; 0 outside) on a part whose end is at ``end`` (m), its blade facing ``blade_normal``
        (a unit vector, or None for a blunt part: full drag), moving at ``velocity`` (m/s, world; at rest: full
        drag); see the class."""
        end = np.asarray(end, dtype=np.float64).reshape(1, 3)
        if not self.contains(end)[0]:
            return 0.0
        depth = float(self.depths(end)[0])
        drag = self.drag * (1.0 if self.grade == 0.0 else min(1.0, max(0.0, depth / self.grade)))
        relative = np.asarray(velocity, dtype=np.float64).reshape(3) - np.array(self.flow)
        speed = math.sqrt(float(relative @ relative))
        if blade_normal is None or speed < 1e-9:
            return drag
        square = min(1.0, abs(float(np.asarray(blade_normal, dtype=np.float64) @ relative)) / speed)
        return drag * (self.edge_share + (1.0 - self.edge_share) * square)


# ------------------------------------------------------------------------------------------------------ events
@dataclass(frozen=True)
class ContactStarted:
    """The part began touching ``material`` at ``point`` (m); ``time`` in s since the motion started."""

    time: float
    material: str
    point: tuple[float, float, float]


@dataclass(frozen=True)
class ContactEnded:
    """The part stopped touching ``material`` (or moved on to another material)."""

    time: float
    material: str


@dataclass(frozen=True)
class MediumEntered:
    """Joint ``joint`` (its name, or ``"part"`` for the tool's end) went into ``medium`` (its name) at ``time``
    (s since the motion started)."""

    time: float
    medium: str
    joint: str


@dataclass(frozen=True)
class MediumLeft:
    """Joint ``joint`` (its name, or ``"part"`` for the tool's end) came out of ``medium`` (its name) at ``time``."""

    time: float
    medium: str
    joint: str


@dataclass(frozen=True)
class Vibration:
    """Sent every contact frame, for effects: ``impulse = impulse_scale x hardness x speed``, the speed being
    the first-action speed (m/s) the tool's end is driven at (its speed this frame over the wrist's rate)."""

    time: float
    impulse: float
    material: str


def joint_index(skeleton: Skeleton, parameter: str, name: str | int) -> int:
    """The index of a joint given by name or index, or ParameterError naming ``parameter``."""
    if isinstance(name, (int, np.integer)) and not isinstance(name, bool):
        if 0 <= int(name) < len(skeleton):
            return int(name)
        raise ParameterError(parameter, name, f"a joint index 0..{len(skeleton) - 1} or a joint name")
    if not isinstance(name, str) or name not in skeleton.names:
        raise ParameterError(parameter, name, "a joint name of the skeleton")
    return skeleton.index(name)


# ------------------------------------------------------------------------------------------- contact query
# What ContactMotion.step asks once a frame: (part_start (3,), part_end (3,), radius (m)) -> Contact | None.
ContactQuery: TypeAlias = Callable[[np.ndarray, np.ndarray, float], Contact | None]


def collision_contact_query(bvh: TriangleBVH,
                            materials: Mapping[int, tuple[str, float]] | Iterable[Material]) -> ContactQuery:
    """A ``contact_query`` for :meth:`ContactMotion.step` answered by a :class:`voxelworld.collision.TriangleBVH`.

    The part's capsule is tested with ``bvh.overlap_capsule``; of the triangles it touches, the deepest wins
    (ties: the lowest triangle index), and its material id is looked up in ``materials``.

    Parameters
    ----------
    bvh : TriangleBVH
        The scene, with ``tri_material`` ids.
    materials : mapping ``{id: (name, hardness)}``, or an iterable of objects with ``id``, ``name`` and
        ``hardness`` (e.g. a ``voxelworld.terrain.MaterialTable``)
        Must cover every material id of the BVH's triangles.

    Examples
    --------
    >>> from voxelworld.collision import TriangleBVH
    >>> wall = TriangleBVH([[1, -5, -5], [1, 5, -5], [1, -5, 5], [1, 5, 5]], [[0, 1, 2], [1, 3, 2]],
    ...                    tri_material=[4, 4])
    >>> query = collision_contact_query(wall, {4: ("rock", 5.0)})
    >>> hit = query([0.0, 0.0, 0.0], [0.95, 0.0, 0.0], 0.1)
    >>> hit.material, hit.hardness, hit.normal
    ('rock', 5.0, (-1.0, 0.0, 0.0))
    >>> query([0.0, 0.0, 0.0], [0.5, 0.0, 0.0], 0.1) is None
    True
    """
    from ..collision import TriangleBVH

    if not isinstance(bvh, TriangleBVH):
        raise ParameterError("bvh", type(bvh).__name__, "a voxelworld.collision.TriangleBVH")
    table: dict[int, tuple[str, float]] = {}
    legal = "{id: (name, hardness)} or materials with id, name and hardness"
    items: Iterable[tuple[Any, Any]]
    if isinstance(materials, Mapping):
        items = materials.items()
    else:
        try:
            items = [(m.id, (m.name, m.hardness)) for m in materials]
        except (TypeError, AttributeError):
            raise ParameterError("materials", materials, legal) from None
    for key, entry in items:
        try:
            name, hardness = entry
        except (TypeError, ValueError):
            raise ParameterError("materials", {key: entry}, legal) from None
        if not isinstance(name, str) or not name:
            raise ParameterError("materials", {key: entry}, "a non-empty material name for every id")
        table[int(key)] = (name, check_finite(f"materials[{key}] hardness", hardness, minimum=0.0))
    missing = sorted(set(int(m) for m in np.unique(bvh.tri_material)) - set(table))
    if missing:
        raise ParameterError("materials", sorted(table), f"an entry for every material id of the BVH (missing {missing})")

    def contact_query(start: ArrayLike, end: ArrayLike, radius: float) -> Contact | None:
        found = bvh.overlap_capsule(start, end, radius)
        if found.depth.size == 0:
            return None
        best = int(np.argmax(found.depth))  # sorted by triangle: the first maximum is the lowest triangle
        name, hardness = table[int(found.material[best])]
        return Contact(tuple(found.point[best]), tuple(found.normal[best]), name, hardness)

    return contact_query
