"""Motion that answers what it touches: the contact-aware *second action* (issue #5).

A :class:`ContactMotion` plays a clip (the *first action*) on a skeleton with **one playback clock per joint**
(seconds into the clip). Every frame each clock advances by ``dt * rate``; at rate 1 everywhere this is the clip
itself. When the *part* (the hand and the tool it holds, a :class:`PartShape` fixed to the wrist) touches
something, the *second action* takes over:

- the wrist (and everything below it) plays slowest, the elbow faster, the shoulder nearly at full speed, the
  root (the hips) drops to about 0.1; every other joint keeps its speed (see :class:`SlowdownProfile` for the
  numbers, which follow the material's hardness and the blade's contact area);
- the hand is put where the *slowed wrist* puts it: the pose the first action gives the arm (shoulder, elbow,
  wrist) at the **wrist's** clock, hung from the shoulder's parent as it is now; the shoulder and elbow are
  then re-solved by two-bone IK from the shoulder (``previous_mid`` = last frame's elbow, pole = the elbow of
  the first action at its own clock), so the arm stays joined and every bone keeps its length;
- when the contact ends the rates come back gradually, wrist first, then elbow, shoulder and the rest of the
  body (one recovery time constant each, growing from the wrist outward); joints that fell behind catch up
  with the leaders, and once every clock is the same again the first action simply resumes.

The same machinery slows joints inside a :class:`Medium` (water, mud): a joint inside runs at
``1 / (1 + drag)``.

Rates and "per-frame change"
----------------------------
A joint's *rate* in a frame is the advance of its clock in that frame divided by ``dt``: how many seconds of
the first action it plays per second. The first action's rate is 1 for every joint, so the rate *is* the
joint's per-frame change relative to the first action (``rates`` after each :meth:`ContactMotion.step`).

Within a frame
--------------
1. targets from last frame's state (contact, media), clocks advanced, the pose sampled, the part placed and
   ``contact_query`` asked;
2. if the answer (contact or not, material, area) or the media the joints are in change the targets, the
   frame is advanced again from last frame's clocks with the new targets (the query's answer stands), so a
   frame that reports contact is played at the contact rates;
3. if the arm's clocks differ, the arm is re-posed (IK) as above.

Everything is deterministic: the same inputs give bit-identical poses and events.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np

from ..errors import ParameterError, check_finite
from ._kernels import contact as _kernel
from ._kernels import fk as _fk
from .clip import Clip
from .skeleton import Pose, Skeleton

__all__ = ["Contact", "PartShape", "SlowdownProfile", "Medium", "ContactStarted", "ContactEnded", "Vibration",
           "ContactMotion", "collision_contact_query", "swing_clip", "forearm_part"]

SNAP = 1e-4  # s: a trailing joint this close to the leaders' clock joins them
RECOVERED = 0.01  # a joint whose rate is this close to 1 has recovered


def _vector(parameter: str, value, unit: str = "m") -> tuple[float, float, float]:
    try:
        array = np.asarray(value, dtype=np.float64)
    except (TypeError, ValueError):
        raise ParameterError(parameter, value, f"3 finite numbers ({unit})") from None
    if array.shape != (3,) or not np.all(np.isfinite(array)):
        raise ParameterError(parameter, value, f"3 finite numbers ({unit})")
    return tuple(float(v) for v in array)


def _unit(parameter: str, value) -> tuple[float, float, float]:
    vector = np.array(_vector(parameter, value, "a direction"))
    norm = float(np.linalg.norm(vector))
    if norm < 1e-12:
        raise ParameterError(parameter, value, "a non-zero direction")
    return tuple(float(v) for v in vector / norm)


# ---------------------------------------------------------------------------------------------------- contacts
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
        drags. None: worked out from the part's blade normal and ``normal`` (see :class:`PartShape`).

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

    def __post_init__(self):
        object.__setattr__(self, "point", _vector("point", self.point))
        object.__setattr__(self, "normal", _unit("normal", self.normal))
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
        then ``|blade_normal . contact normal|``: 1 when the flat meets the surface, 0 when the edge does.
        None (a fist, a club): area 1 unless the query gives one.

    Examples
    --------
    >>> PartShape((0, 0, 0), (0, -0.6, 0), 0.05, blade_normal=(0, 0, 2)).blade_normal
    (0.0, 0.0, 1.0)
    """

    start: tuple[float, float, float]
    end: tuple[float, float, float]
    radius: float
    blade_normal: tuple[float, float, float] | None = None

    def __post_init__(self):
        object.__setattr__(self, "start", _vector("start", self.start))
        object.__setattr__(self, "end", _vector("end", self.end))
        object.__setattr__(self, "radius", check_finite("radius", self.radius, minimum=0.0, unit="m"))
        if self.blade_normal is not None:
            object.__setattr__(self, "blade_normal", _unit("blade_normal", self.blade_normal))

    def placed(self, wrist_world: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray | None]:
        """World start, end (m) and unit blade normal (or None) for the wrist's world matrix ``(4, 4)``."""
        start = wrist_world[:3, :3] @ np.array(self.start) + wrist_world[:3, 3]
        end = wrist_world[:3, :3] @ np.array(self.end) + wrist_world[:3, 3]
        if self.blade_normal is None:
            return start, end, None
        normal = wrist_world[:3, :3] @ np.array(self.blade_normal)
        return start, end, normal / np.linalg.norm(normal)


# ----------------------------------------------------------------------------------------------------- profile
@dataclass(frozen=True)
class SlowdownProfile:
    """How much each joint slows in contact, and how fast it recovers.

    The wrist's rate in contact with a material of hardness ``h`` at contact area factor ``a`` (0 edge,
    1 flat)::

        resistance = h * (1 + flat_drag * a)
        wrist      = max(min_rate, 1 / (1 + resistance / softness))      (min_rate if h >= uncuttable)
        elbow      = wrist + elbow_share    * (1 - wrist)
        shoulder   = wrist + shoulder_share * (1 - wrist)
        root       = root_rate

    With the defaults an edge cuts sand (0.5) at 0.67, soil (1.5) at 0.40, wood (3) at 0.25, rock (5) at
    0.17 (elbow 0.67, shoulder 0.96); the flat of a blade on rock gives 0.06; iron (10 >= 8, which the default
    terrain tool cannot cut) gives 0.02. The wrist is always the slowest of the chain.

    After contact (and on leaving a medium) a joint's rate relaxes towards its target with a time constant:
    ``wrist_recovery`` for the wrist and the joints below it, ``elbow_recovery``, ``shoulder_recovery``,
    ``body_recovery`` for the root and every other joint: these must grow from the wrist outward. Once every
    joint outside media has recovered (rate >= 0.99), a joint whose clock trails the leaders (the joints with
    the latest clock) targets ``min(max_catch_up, 1 + lag / catch_up_time)`` until it has caught up.

    Parameters
    ----------
    softness : float
        Hardness at which an edge cuts at half speed (> 0, hardness units). Default 1.
    flat_drag : float
        Extra resistance of the flat of a blade over its edge (>= 0). Default 2: the flat drags 3x.
    elbow_share, shoulder_share : float
        Share of the wrist's lost speed the elbow and shoulder keep (0 <= elbow < shoulder <= 1). 0.6, 0.95.
    root_rate : float
        The root's rate in contact (0..1). Default 0.1.
    min_rate : float
        Floor of every contact rate (0 < min_rate <= 1), so a stuck tool still comes free. Default 0.02.
    uncuttable : float
        Hardness from which the wrist runs at ``min_rate`` (> 0, inf to disable). Default 8.
    wrist_recovery, elbow_recovery, shoulder_recovery, body_recovery : float
        Recovery time constants (s, > 0, increasing). 0.05, 0.1, 0.15, 0.2.
    catch_up_time : float
        Time constant (s) of catching up with the leading clock. Default 0.5.
    max_catch_up : float
        Highest rate while catching up (>= 1). Default 2.
    impulse_scale : float
        :class:`Vibration` impulse per (hardness x m/s). Default 1.

    Examples
    --------
    >>> profile = SlowdownProfile()
    >>> [round(rate, 3) for rate in profile.chain_rates(5.0, 0.0)]
    [0.167, 0.667, 0.958, 0.1]
    >>> profile.wrist_rate(1.5, 0.0) > profile.wrist_rate(5.0, 0.0) > profile.wrist_rate(5.0, 1.0)
    True
    """

    softness: float = 1.0
    flat_drag: float = 2.0
    elbow_share: float = 0.6
    shoulder_share: float = 0.95
    root_rate: float = 0.1
    min_rate: float = 0.02
    uncuttable: float = 8.0
    wrist_recovery: float = 0.05
    elbow_recovery: float = 0.1
    shoulder_recovery: float = 0.15
    body_recovery: float = 0.2
    catch_up_time: float = 0.5
    max_catch_up: float = 2.0
    impulse_scale: float = 1.0

    def __post_init__(self):
        def number(name, **limits):
            object.__setattr__(self, name, check_finite(name, getattr(self, name), **limits))

        number("softness", minimum=0.0, strict_minimum=True)
        number("flat_drag", minimum=0.0)
        number("elbow_share", minimum=0.0, maximum=1.0)
        number("shoulder_share", minimum=0.0, maximum=1.0)
        if self.shoulder_share <= self.elbow_share:
            raise ParameterError("shoulder_share", self.shoulder_share,
                                 f"greater than elbow_share ({self.elbow_share}): the shoulder keeps more speed")
        number("root_rate", minimum=0.0, maximum=1.0)
        number("min_rate", minimum=0.0, maximum=1.0, strict_minimum=True)
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
        number("max_catch_up", minimum=1.0)
        number("impulse_scale", minimum=0.0)

    def wrist_rate(self, hardness: float, area: float) -> float:
        """The wrist's contact rate for ``hardness`` (>= 0) and contact area factor ``area`` (0..1)."""
        hardness = check_finite("hardness", hardness, minimum=0.0)
        area = check_finite("area", area, minimum=0.0, maximum=1.0)
        if hardness >= self.uncuttable:
            return self.min_rate
        resistance = hardness * (1.0 + self.flat_drag * area)
        return max(self.min_rate, 1.0 / (1.0 + resistance / self.softness))

    def chain_rates(self, hardness: float, area: float) -> tuple[float, float, float, float]:
        """Contact rates ``(wrist, elbow, shoulder, root)``."""
        wrist = self.wrist_rate(hardness, area)
        return (wrist, wrist + self.elbow_share * (1.0 - wrist), wrist + self.shoulder_share * (1.0 - wrist),
                self.root_rate)


# ------------------------------------------------------------------------------------------------------- media
@dataclass(frozen=True)
class Medium:
    """A volume that slows the joints inside it (water, mud): a joint inside runs at ``1 / (1 + drag)``.

    Give exactly one region: ``box=(lo, hi)`` (corners, m) or ``sphere=(centre, radius)`` (m).

    Examples
    --------
    >>> pond = Medium("water", 1.0, box=((0, -1, 0), (4, 0.5, 4)))
    >>> pond.rate, pond.contains([[1.0, 0.0, 1.0], [1.0, 1.0, 1.0]]).tolist()
    (0.5, [True, False])
    """

    name: str
    drag: float
    box: tuple | None = None
    sphere: tuple | None = None
    rate: float = field(init=False)

    def __post_init__(self):
        if not isinstance(self.name, str) or not self.name:
            raise ParameterError("name", self.name, "a non-empty string")
        object.__setattr__(self, "drag", check_finite("drag", self.drag, minimum=0.0))
        object.__setattr__(self, "rate", 1.0 / (1.0 + self.drag))
        if (self.box is None) == (self.sphere is None):
            raise ParameterError("box/sphere", (self.box, self.sphere), "exactly one region: a box or a sphere")
        if self.box is not None:
            if not isinstance(self.box, (tuple, list)) or len(self.box) != 2:
                raise ParameterError("box", self.box, "(lo, hi): two corners of 3 numbers (m)")
            lo, hi = _vector("box lo", self.box[0]), _vector("box hi", self.box[1])
            if any(a > b for a, b in zip(lo, hi)):
                raise ParameterError("box", self.box, "lo <= hi on every axis")
            object.__setattr__(self, "box", (lo, hi))
        else:
            if not isinstance(self.sphere, (tuple, list)) or len(self.sphere) != 2:
                raise ParameterError("sphere", self.sphere, "(centre, radius): 3 numbers and a radius (m)")
            centre = _vector("sphere centre", self.sphere[0])
            radius = check_finite("sphere radius", self.sphere[1], minimum=0.0, unit="m")
            object.__setattr__(self, "sphere", (centre, radius))

    def contains(self, points) -> np.ndarray:
        """(k,) bool: which of the points ``(k, 3)`` (m) lie inside (boundary included)."""
        points = np.asarray(points, dtype=np.float64).reshape(-1, 3)
        if self.box is not None:
            lo, hi = np.array(self.box[0]), np.array(self.box[1])
            return np.all((points >= lo) & (points <= hi), axis=1)
        centre, radius = np.array(self.sphere[0]), self.sphere[1]
        return np.sum((points - centre) ** 2, axis=1) <= radius * radius


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
class Vibration:
    """Sent every contact frame, for effects: ``impulse = impulse_scale x hardness x speed``, the speed being
    the first-action speed (m/s) the tool's end is driven at (its speed this frame over the wrist's rate)."""

    time: float
    impulse: float
    material: str


# ------------------------------------------------------------------------------------------------ the motion
@dataclass(frozen=True)
class _Targets:
    rates: np.ndarray
    contact: Contact | None
    area: float


class ContactMotion:
    """A clip played with per-joint clocks that slow where the part touches something (see the module).

    Parameters
    ----------
    skeleton : Skeleton
    clip : Clip
        The first action.
    chain : 3 joint names (or indices)
        Shoulder, elbow, wrist: each the parent of the next.
    root : joint name (or index)
        The joint that drops to ``profile.root_rate`` in contact (the hips); not one of the chain.
    part : PartShape
        The hand and its tool, in the wrist's frame.
    profile : SlowdownProfile
    media : sequence of Medium
    loop : bool
        Wrap the clocks around the clip (default: stop at its end).
    start : float
        The clocks' first value (s).

    Attributes
    ----------
    clocks, rates : (n,) float64
        Each joint's clock (s into the clip, unwrapped when looping) and its rate in the last frame.
    time : float
        Seconds played since the start.
    world : (n, 4, 4) float64
        World matrices of the last pose returned.
    part_segment : (2, 3) float64
        The part's axis in world space in the last frame.
    contact : Contact or None
        What the part touched in the last frame.

    Examples
    --------
    >>> from voxelworld.motion.skeleton import Pose, Skeleton
    >>> from voxelworld.motion.clip import Clip
    >>> rest = Pose([[0, 1, 0], [0, 0.3, 0], [0, -0.3, 0], [0, -0.25, 0]], [[0, 0, 0, 1]] * 4, [[1, 1, 1]] * 4)
    >>> body = Skeleton(["hip", "shoulder", "elbow", "wrist"], [-1, 0, 1, 2], rest)
    >>> swing = Clip.from_keys("swing", {"shoulder": {"rotation": ([0, 1], [[0, 0, 0, 1], [0, 0, 0.7071, 0.7071]])}})
    >>> motion = ContactMotion(body, swing, ["shoulder", "elbow", "wrist"], "hip", PartShape((0, 0, 0), (0, -0.2, 0), 0.05))
    >>> rock = Contact((0, 0, 0), (1, 0, 0), "rock", 5.0, area=0.0)
    >>> pose, events = motion.step(0.1, lambda a, b, r: rock)
    >>> type(events[0]).__name__, round(float(motion.rates[3]), 3), round(float(motion.rates[0]), 3)
    ('ContactStarted', 0.167, 0.1)
    """

    def __init__(self, skeleton: Skeleton, clip: Clip, chain: Sequence, root, part: PartShape,
                 profile: SlowdownProfile | None = None, media: Iterable[Medium] = (), loop: bool = False,
                 start: float = 0.0):
        if not isinstance(skeleton, Skeleton):
            raise ParameterError("skeleton", type(skeleton).__name__, "a voxelworld.motion Skeleton")
        if not isinstance(clip, Clip):
            raise ParameterError("clip", type(clip).__name__, "a voxelworld.motion Clip")
        clip.sample(skeleton, 0.0)  # raises if the clip names joints the skeleton lacks
        if isinstance(chain, (str, bytes)) or not isinstance(chain, Sequence) or len(chain) != 3:
            raise ParameterError("chain", chain, "three joints: [shoulder, elbow, wrist]")
        joints = [self._joint(skeleton, "chain", name) for name in chain]
        parents = skeleton.parents
        if parents[joints[1]] != joints[0] or parents[joints[2]] != joints[1]:
            raise ParameterError("chain", list(chain), "[shoulder, elbow, wrist], each the parent of the next")
        root_index = self._joint(skeleton, "root", root)
        if root_index in joints:
            raise ParameterError("root", root, "a joint outside the chain (the hips)")
        if not isinstance(part, PartShape):
            raise ParameterError("part", type(part).__name__, "a PartShape")
        profile = SlowdownProfile() if profile is None else profile
        if not isinstance(profile, SlowdownProfile):
            raise ParameterError("profile", type(profile).__name__, "a SlowdownProfile")
        media = tuple(media)
        for medium in media:
            if not isinstance(medium, Medium):
                raise ParameterError("media", type(medium).__name__, "Medium objects")
        self.skeleton, self.clip, self.part, self.profile, self.media = skeleton, clip, part, profile, media
        self.loop = bool(loop)
        self.start = check_finite("start", start, minimum=0.0, unit="s")
        self.shoulder, self.elbow, self.wrist = joints
        self.root = root_index
        n = len(skeleton)
        hand = np.zeros(n, dtype=bool)  # the wrist and every joint below it
        hand[self.wrist] = True
        for j in range(self.wrist + 1, n):
            hand[j] = parents[j] >= 0 and hand[parents[j]]
        self._hand = hand
        taus = np.full(n, profile.body_recovery)
        taus[hand] = profile.wrist_recovery
        taus[self.elbow] = profile.elbow_recovery
        taus[self.shoulder] = profile.shoulder_recovery
        self._taus = taus
        self._parent = int(parents[self.shoulder])
        self._parents = np.ascontiguousarray(parents, dtype=np.int64)
        self._arm = np.array([self.shoulder, self.elbow, self.wrist], dtype=np.int64)
        self.reset()

    @staticmethod
    def _joint(skeleton: Skeleton, parameter: str, name) -> int:
        if isinstance(name, (int, np.integer)) and not isinstance(name, bool):
            if 0 <= int(name) < len(skeleton):
                return int(name)
            raise ParameterError(parameter, name, f"a joint index 0..{len(skeleton) - 1} or a joint name")
        if not isinstance(name, str) or name not in skeleton.names:
            raise ParameterError(parameter, name, "a joint name of the skeleton")
        return skeleton.index(name)

    def reset(self) -> None:
        """Back to the start: every clock at ``start``, every rate 1, no contact."""
        n = len(self.skeleton)
        self.clocks = np.full(n, self.start)
        self.rates = np.ones(n)
        self.time = 0.0
        self.contact: Contact | None = None
        self._area = 0.0
        self._inside = np.ones(n)  # the medium rate of each joint (1: in none), from the last pose
        self._previous_elbow: np.ndarray | None = None
        local, world, _ = self._pose_at(self.clocks)
        self.pose, self.world = Pose(*local), world
        self._inside = self._medium_rates(world)
        start, end, _ = self.part.placed(world[self.wrist])
        self.part_segment = np.stack([start, end])
        self._previous_end = end

    # ----------------------------------------------------------------------------------------- one frame
    def _targets(self, contact: Contact | None, area: float, inside: np.ndarray, lag: np.ndarray) -> np.ndarray:
        targets = inside.copy()
        free = targets >= 1.0
        # Catching up starts once every free joint has recovered (rate within RECOVERED of 1): recovery first,
        # from the wrist outward, then the clocks close up, then the first action resumes.
        if np.all(self.rates[free] >= 1.0 - RECOVERED):
            targets[free] = np.minimum(self.profile.max_catch_up, 1.0 + lag[free] / self.profile.catch_up_time)
        if contact is not None:
            wrist, elbow, shoulder, root = self.profile.chain_rates(contact.hardness, area)
            targets[self._hand] = np.minimum(targets[self._hand], wrist)
            targets[self.elbow] = min(targets[self.elbow], elbow)
            targets[self.shoulder] = min(targets[self.shoulder], shoulder)
            targets[self.root] = min(targets[self.root], root)
        return targets

    def _advance(self, targets: np.ndarray, lag: np.ndarray, dt: float) -> tuple[np.ndarray, np.ndarray]:
        clocks, rates = np.empty_like(self.clocks), np.empty_like(self.rates)
        _kernel.advance_clocks(self.clocks, self.rates, targets, self._taus, lag, dt,
                               self.clip.duration, self.loop, SNAP, clocks, rates)
        return clocks, rates

    def _pose_at(self, clocks: np.ndarray):
        """Local arrays ``(translation, rotation, scale)`` sampled at per-joint ``clocks``, their world matrices,
        and the hand's world matrix where the slowed wrist puts it (None when the arm's clocks agree and the
        pose is the first action's)."""
        s, e, w = self._arm
        times = np.empty((2, len(clocks)))
        times[0] = clocks
        times[1] = clocks
        times[1, s] = times[1, e] = clocks[w]
        # Wing-internal fast path of Clip.sample_frames / Skeleton.world_transforms: the clocks are ours and
        # finite, so the public wrappers' checks and Pose copies are skipped (this runs every frame).
        translation, rotation, scale = self.clip._run(self.skeleton, self.clip._clock(times, self.loop))
        world = np.empty((1, len(clocks), 4, 4))
        _fk.world_transforms(self._parents, translation[:1], rotation[:1], scale[:1], world)
        world = world[0]
        local = (translation[0], rotation[0], scale[0])
        if clocks[s] == clocks[w] and clocks[e] == clocks[w]:
            return local, world, None
        parent = world[self._parent] if self._parent >= 0 else np.eye(4)
        arm = np.empty((3, 4, 4))
        _kernel.chain_world(np.ascontiguousarray(parent), translation[1], rotation[1], scale[1], self._arm, arm)
        return local, world, arm[2]

    def _medium_rates(self, world: np.ndarray) -> np.ndarray:
        rates = np.ones(len(self.skeleton))
        if self.media:
            positions = world[:, :3, 3]
            for medium in self.media:
                rates[medium.contains(positions)] = np.minimum(rates[medium.contains(positions)], medium.rate)
        return rates

    def _area_of(self, contact: Contact, blade: np.ndarray | None) -> float:
        if contact.area is not None:
            return contact.area
        if blade is None:
            return 1.0
        return float(min(1.0, abs(float(np.dot(blade, contact.normal)))))

    def step(self, dt: float, contact_query: Callable) -> tuple[Pose, list]:
        """Play one frame of ``dt`` seconds; return the pose and the events of the frame.

        Parameters
        ----------
        dt : float
            Frame time (s, > 0).
        contact_query : callable ``(part_start (3,), part_end (3,), radius) -> Contact | None``
            Asked once per frame with the part's capsule in world space (m); see
            :func:`collision_contact_query`.

        Returns
        -------
        pose : Pose
            Local joint transforms (the arm re-posed by IK when its clocks differ).
        events : list
            :class:`ContactEnded`, :class:`ContactStarted`, :class:`Vibration`, in that order, as they happened.
        """
        dt = check_finite("dt", dt, minimum=0.0, strict_minimum=True, unit="s")
        if not callable(contact_query):
            raise ParameterError("contact_query", contact_query, "a callable (start, end, radius) -> Contact | None")
        lead = float(self.clocks.max())
        lag = lead - self.clocks
        # The frame as it would be without contact decides whether there is one (so contact starts and ends
        # where the freely moving part meets or leaves the surface, not where the slowed one does).
        targets = self._targets(None, 0.0, self._inside, lag)
        clocks, rates = self._advance(targets, lag, dt)
        local, world, hand = self._pose_at(clocks)
        start, end, blade = self.part.placed(world[self.wrist] if hand is None else hand)
        contact = contact_query(start, end, self.part.radius)
        if contact is not None and not isinstance(contact, Contact):
            raise ParameterError("contact_query", type(contact).__name__, "a callable returning a Contact or None")
        area = self._area_of(contact, blade) if contact is not None else 0.0
        inside = self._medium_rates(world) if self.media else self._inside
        second = self._targets(contact, area, inside, lag)
        if not np.array_equal(second, targets):
            clocks, rates = self._advance(second, lag, dt)
            local, world, hand = self._pose_at(clocks)
            start, end, blade = self.part.placed(world[self.wrist] if hand is None else hand)
        if hand is not None:
            local, world = self._join_arm(local, world, hand)
        pose = Pose(*local)
        # Events, then the new state (nothing above changed the object, so bad input leaves it as it was).
        time = self.time + dt
        events: list = []
        previous = self.contact
        if previous is not None and (contact is None or contact.material != previous.material):
            events.append(ContactEnded(time, previous.material))
        if contact is not None and (previous is None or contact.material != previous.material):
            events.append(ContactStarted(time, contact.material, contact.point))
        if contact is not None:
            moved = float(np.linalg.norm(end - self._previous_end))
            drive = moved / dt / max(float(rates[self.wrist]), 1e-12)
            events.append(Vibration(time, self.profile.impulse_scale * contact.hardness * drive, contact.material))
        self.clocks, self.rates, self.time = clocks, rates, time
        self.contact, self._area, self._inside = contact, area, inside
        self.pose, self.world = pose, world
        self.part_segment = np.stack([start, end])
        self._previous_end = end
        self._previous_elbow = world[self.elbow, :3, 3].copy() if hand is not None else None
        return pose, events

    def _join_arm(self, local, world: np.ndarray, hand: np.ndarray):
        """Re-solve shoulder and elbow so the wrist sits at the hand's place; the hand turned as ``hand``."""
        from .ik import two_bone_ik  # motion/ik.py (branch motion-ik)

        translation, rotation, scale = local
        s, e, w = self._arm
        mid, tip = two_bone_ik(world[s, :3, 3], world[e, :3, 3], world[w, :3, 3], hand[:3, 3],
                               pole=world[e, :3, 3], previous_mid=self._previous_elbow)
        parent = world[self._parent] if self._parent >= 0 else np.eye(4)
        rotations = np.empty((3, 4))
        _kernel.repose_arm(np.ascontiguousarray(parent), world[s], world[e], world[w], np.asarray(mid, float),
                           np.asarray(tip, float), hand, np.ascontiguousarray(rotation[self._arm]), rotations)
        rotation = rotation.copy()
        rotation[self._arm] = rotations
        joined = np.empty((1,) + world.shape)
        _fk.world_transforms(self._parents, translation[None], rotation[None], scale[None], joined)
        return (translation, rotation, scale), joined[0]


# ------------------------------------------------------------------------------------------- contact query
def collision_contact_query(bvh, materials) -> Callable:
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

    def contact_query(start, end, radius) -> Contact | None:
        found = bvh.overlap_capsule(start, end, radius)
        if found.depth.size == 0:
            return None
        best = int(np.argmax(found.depth))  # sorted by triangle: the first maximum is the lowest triangle
        name, hardness = table[int(found.material[best])]
        return Contact(tuple(found.point[best]), tuple(found.normal[best]), name, hardness)

    return contact_query


# ------------------------------------------------------------------------------------------ authored swings
def swing_clip(skeleton: Skeleton, chain: Sequence[str], forward, up, from_degrees: float = 60.0,
               to_degrees: float = -70.0, bend_degrees: float = 25.0, duration: float = 1.0, keys: int = 9,
               name: str = "swing") -> Clip:
    """A one-arm swing authored in code (a chainsaw swung down): only the chain's rotations are keyed.

    The upper arm's world direction goes from ``from_degrees`` to ``to_degrees`` of elevation (positive: above
    ``forward`` towards ``up``) in ``keys`` evenly spaced keys over ``duration`` seconds, the forearm
    ``bend_degrees`` further down; the wrist keeps its rest rotation relative to the forearm. Directions are in
    the skeleton's world frame; each bone is turned from its rest direction by the shortest rotation.

    Examples
    --------
    >>> from voxelworld.motion.skeleton import Pose, Skeleton
    >>> rest = Pose([[0, 1, 0], [0, 0.3, 0], [0, -0.3, 0], [0, -0.25, 0]], [[0, 0, 0, 1]] * 4, [[1, 1, 1]] * 4)
    >>> body = Skeleton(["hip", "shoulder", "elbow", "wrist"], [-1, 0, 1, 2], rest)
    >>> swing_clip(body, ["shoulder", "elbow", "wrist"], (1, 0, 0), (0, 1, 0)).duration
    1.0
    """
    from . import quaternions as quat

    forward, up = np.array(_unit("forward", forward)), np.array(_unit("up", up))
    up = up - forward * float(np.dot(up, forward))
    if np.linalg.norm(up) < 1e-9:
        raise ParameterError("up", tuple(up), "a direction not along forward")
    up /= np.linalg.norm(up)
    for parameter in ("from_degrees", "to_degrees", "bend_degrees"):
        check_finite(parameter, locals()[parameter], unit="degrees")
    duration = check_finite("duration", duration, minimum=0.0, strict_minimum=True, unit="s")
    from ..errors import check_integer
    keys = check_integer("keys", keys, minimum=2)
    s, e, w = (ContactMotion._joint(skeleton, "chain", j) for j in chain)
    rest = skeleton.rest
    world = skeleton.world_transforms()
    parent = skeleton.parents[s]
    parent_rotation = quat.from_matrix(_normalised(world[parent])) if parent >= 0 else quat.IDENTITY
    shoulder_rest = quat.multiply(parent_rotation, rest.rotation[s])
    upper = world[e, :3, 3] - world[s, :3, 3]
    lower = world[w, :3, 3] - world[e, :3, 3]
    times = np.linspace(0.0, duration, keys)
    rotations = {s: [], e: []}
    for angle in np.linspace(from_degrees, to_degrees, keys):
        direction = lambda a: np.cos(np.radians(a)) * forward + np.sin(np.radians(a)) * up  # noqa: E731
        turn = quat.between(upper, direction(angle))
        shoulder = quat.multiply(turn, shoulder_rest)
        rotations[s].append(quat.multiply(quat.conjugate(parent_rotation), shoulder))
        elbow_world = quat.multiply(shoulder, rest.rotation[e])
        bend = quat.between(quat.rotate(turn, lower), direction(angle - bend_degrees))
        rotations[e].append(quat.multiply(quat.conjugate(shoulder), quat.multiply(bend, elbow_world)))
    names = skeleton.names
    return Clip.from_keys(name, {names[j]: {"rotation": (times, np.array(rotations[j]))} for j in (s, e)}
                          | {names[w]: {"rotation": (times[[0, -1]], np.array([rest.rotation[w]] * 2))}})


def forearm_part(skeleton: Skeleton, chain: Sequence[str], start: float, end: float, radius: float,
                 blade_side=None) -> PartShape:
    """A tool held along the forearm: its axis runs from ``start`` to ``end`` metres beyond the wrist in the
    rest pose's elbow-to-wrist direction, expressed in the wrist's frame. ``blade_side``: a world direction (at
    rest) the blade's flat faces, or None for a blunt part."""
    e, w = (ContactMotion._joint(skeleton, "chain", j) for j in chain[1:])
    world = skeleton.world_transforms()
    rotation = _normalised(world[w])
    along = rotation.T @ (world[w, :3, 3] - world[e, :3, 3])
    along /= np.linalg.norm(along)
    scale = np.linalg.norm(world[w, :3, 0])
    blade = None if blade_side is None else rotation.T @ np.array(_unit("blade_side", blade_side))
    return PartShape(along * start / scale, along * end / scale, radius, blade_normal=blade)


def _normalised(matrix: np.ndarray) -> np.ndarray:
    """The rotation part of a 4x4 matrix, columns normalised."""
    linear = matrix[:3, :3]
    return linear / np.linalg.norm(linear, axis=0)
