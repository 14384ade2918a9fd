"""Motion that answers what it touches: the contact-aware *second action*.

A :class:`ContactMotion` plays a clip (the *first action*) on a skeleton with **one playback clock per joint**
(seconds into the clip). Every frame each clock advances by ``dt * rate``; at rate 1 everywhere this is the clip
itself. The joints fall in four groups: the **chain** (two or more joints, shoulder to wrist, each the parent
of the next), the **hand** (the wrist and every joint below it), the **body** (the root, the hips, and the
joints from it up to the chain's parent: waist, chest) and every other joint (legs, head, the other arm), which
the second action leaves alone. When the *part* (the hand and the tool it holds, a :class:`PartShape` fixed to
the wrist) touches something, the *second action* takes over:

- the body drops to about 0.1 of the first action's speed; the wrist (and the hand) runs slower still, by the
  material's hardness and the blade's contact area; the joints of the chain lie between, slower towards the
  wrist (the whole arm lags the body); see :class:`SlowdownProfile` for the numbers;
- the pose is the first action's with every joint's local transform at its own clock (forward kinematics), so
  every bone keeps its length, each joint turns at its own rate (a rotation measured relative to its parent runs
  at the joint's clock rate), and the tool, carried by joints that are all slowed, moves slower than the hips;
  the wrist alone takes the first action's *world* rotation at its own clock (tabulated once per clip), so the
  tool points where the first action points it then, not turned by a forearm on another clock;
- the torso (the body's joints above the root, or the root alone) shakes by the material's hardness, no more
  than the first action's speed leaves room for (a slowed joint, shaken, moves less per frame than the first
  action moves it: a shake never reads as speed); the hand stays on its steady path and inverse kinematics
  re-joins the chain to it (two-bone IK for three joints, pole: the middle joint's steady place, last frame's
  bend kept; FABRIK with the given limits otherwise);
- with ``hold_part`` (the design's Fig. 6) the hand's *world* place, not only its turn, follows its own clock:
  held back by what it touches while the arm above it goes on at its own rates, IK bending the arm to it;
- with a ``second_clip`` (the motion of cutting), the chain, hand and body blend towards it while in contact;
- when the contact ends the rates come back from the wrist outward: the wrist first, the next joint
  ``recovery_delay`` later, and so on to the body, each with its own time constant; joints that fell behind
  then catch up with the leaders, and once every clock is the same again the first action simply resumes.
  Looping clips count the lag within one clip length, so it never grows beyond it.

The same machinery slows joints inside a :class:`Medium` (water, mud), more the deeper they are, and a tool
dragged through one (an oar): the drag on the part, by how squarely its blade meets its motion through the
medium, slows the hand most, the chain's joints less and the body least, on the profile's log scale.

Rates and measured motion
-------------------------
A joint's *rate* in a frame is the advance of its clock in that frame divided by ``dt`` (``rates`` after each
:meth:`ContactMotion.step`). What a viewer sees is measured by :mod:`voxelworld.motion.measure`: each joint's
per-frame displacement and rotation against the free run.

Within a frame
--------------
1. targets from last frame's state (contact, media, recovery), clocks advanced, the pose sampled, the part
   placed and ``contact_query`` asked;
2. if the answer (contact or not, material, area) or the media change the targets, the frame is advanced again
   from last frame's clocks with the new targets (the query's answer stands), so a frame that reports contact is
   played at the contact rates;
3. if the torso shakes, the chain is re-joined to the hand's steady place by IK as above.

Everything is deterministic: the same inputs give bit-identical poses and events.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, TypeAlias

import numpy as np
from numpy.typing import ArrayLike

from ..attribute_state import attribute_state, restore_attributes
from ..errors import ParameterError, check_finite
from . import contact_frame as _contact_frame
from . import contact_setup as _setup
from . import quaternions as quat
from ._kernels import contact as _kernel
from ._kernels import frame as _frame
from ._kernels import ik as _ik_kernel
from .clip import Clip
from .contact_rates import (
    CATCH_UP_FLOOR,
    FIRST_ACTION_STEP,
    IK_PASSES,
    IK_TOLERANCE,
    PART,
    RECOVERED,
    SECOND_BLEND,
    SHAKE_SHARE,
    SNAP,
    area_of,
    contact_targets,
    media_inside,
    medium_rates,
    shake_angle,
)
from .ik import ConeLimit, HingeLimit, _limits, two_bone_ik
from .part_contacts import (
    Contact,
    ContactEnded,
    ContactQuery,
    ContactStarted,
    Medium,
    MediumEntered,
    MediumLeft,
    PartShape,
    SlowdownProfile,
    Vibration,
)
from .skeleton import Pose, Skeleton

__all__ = ["ContactMotion"]
_Local: TypeAlias = tuple[np.ndarray, np.ndarray, np.ndarray]  # a pose's local (translation, rotation, scale)
# The frame's constants (voxelworld.motion.contact_rates), importable from here as before.
__all__ += ["SNAP", "RECOVERED", "CATCH_UP_FLOOR", "SECOND_BLEND", "IK_TOLERANCE", "IK_PASSES", "FIRST_ACTION_STEP",
            "PART"]


class ContactMotion:
    """A clip played with per-joint clocks that slow where the part touches something (see the module).

    Parameters
    ----------
    skeleton : Skeleton
    clip : Clip
        The first action.
    chain : sequence of 2 or more joint names (or indices)
        Shoulder to wrist, each the parent of the next.
    root : joint name (or index)
        The hips: the body's first joint; not one of the chain or the hand.
    part : PartShape
        The hand and its tool, in the wrist's frame.
    profile : SlowdownProfile
    media : sequence of Medium
    loop : bool
        Wrap the clocks around the clip (default: stop at its end).
    start : float
        The clocks' first value (s).
    second_clip : Clip, optional
        The second action's own motion (cutting): blended in while in contact, looping.
    limits : sequence of ``len(chain) - 1`` IK limits, optional
        One per bone (None, a :class:`~voxelworld.motion.ik.HingeLimit` or ``ConeLimit``, in the skeleton's world
        frame); given, the chain is joined by FABRIK whatever its length.
    hold_part : bool
        The design's Fig. 6 mode: the part held back. False (default): the wrist rides on its arm, so with the
        arm at speed the hand is carried along whatever its clock. True: the wrist's *world* place (and the part
        with it) follows its own slowed clock, the first action's place at that clock, while the joints above it
        go on at theirs; IK bends the arm to keep the chain joined (out of reach, the arm stretches towards it).

    Attributes
    ----------
    chain : tuple of int
        The chain's joints; ``shoulder`` is the first, ``wrist`` the last, ``elbow`` the one before the wrist (the
        shoulder itself in a two-joint chain).
    body : tuple of int
        The root and the joints from it to the chain's parent.
    clocks, rates : (n,) float64
        Each joint's clock (s into the clip; when looping, within one clip length of the leaders) and its rate in
        the last frame.
    time : float
        Seconds played since the start.
    placement : (4, 4) float64
        Where the skeleton stands in the world (:meth:`place`); identity by default.
    world : (n, 4, 4) float64
        World matrices of the last pose returned (placed).
    part_segment : (2, 3) float64
        The part's axis in world space in the last frame.
    contact : Contact or None
        What the part touched in the last frame.
    part_drag : float
        The drag of the media on the part in the last frame (0 out of them; see :meth:`Medium.part_drag`): how
        hard an oar pulls, for a boat to take as thrust.

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
    >>> type(events[0]).__name__, round(float(motion.rates[3]), 4), round(float(motion.rates[0]), 3)
    ('ContactStarted', 0.0143, 0.1)
    """

    # What the motion keeps from frame to frame (:meth:`state_dict`) and the other attributes (what its constructor
    # is given and derives from that): voxelworld.motion.contact_setup.
    STATE_ATTRIBUTES = _setup.STATE_ATTRIBUTES
    STATE_CHECKS = _setup.STATE_CHECKS
    OTHER_ATTRIBUTES = _setup.OTHER_ATTRIBUTES

    def __init__(self, skeleton: Skeleton, clip: Clip, chain: Sequence[str | int], root: str | int, part: PartShape,
                 profile: SlowdownProfile | None = None, media: Iterable[Medium] = (), loop: bool = False,
                 start: float = 0.0, second_clip: Clip | None = None,
                 limits: Sequence[HingeLimit | ConeLimit | None] | None = None, hold_part: bool = False) -> None:
        joints, root_index, hand, profile, media = _setup.check_arguments(skeleton, clip, chain, root, part, profile,
                                                                          media, second_clip)
        parents, n = skeleton.parents, len(skeleton)
        self._kinds, self._params = _limits(limits, len(joints) - 1)
        self.skeleton, self.clip, self.part, self.profile, self.media = skeleton, clip, part, profile, media
        self.loop, self.second_clip = bool(loop), second_clip
        if not isinstance(hold_part, (bool, np.bool_)):
            raise ParameterError("hold_part", hold_part, "True or False")
        self.hold_part = bool(hold_part)
        self.limits = None if limits is None else tuple(limits)
        self.start = check_finite("start", start, minimum=0.0, unit="s")
        self.chain = tuple(joints)
        self.shoulder, self.elbow, self.wrist = joints[0], joints[-2], joints[-1]
        self.root = root_index
        # The body: the root and the joints from it up to the chain's parent (the root alone when it is not an
        # ancestor of the chain).
        path, j = [], int(parents[joints[0]])
        while j >= 0 and j != root_index:
            path.append(j)
            j = int(parents[j])
        self.body = (root_index,) + (tuple(reversed(path)) if j == root_index else ())
        k = len(joints)
        slot = np.full(n, -1, dtype=np.int64)  # index into the profile's (wrist, ..., shoulder, body) rates
        slot[hand] = 0
        for d, joint in enumerate(reversed(joints)):
            slot[joint] = d
        slot[list(self.body)] = k
        self._slot = slot
        self._slotted, self._slot_row = slot >= 0, np.maximum(slot, 0)
        taus = np.array(profile.recovery_times(k))
        self._taus = np.where(slot >= 0, taus[slot], profile.body_recovery)
        self._delays = np.where(slot >= 0, slot * profile.recovery_delay, 0.0)
        self._shaking = np.array(self.body[1:] if len(self.body) > 1 else self.body, dtype=np.int64)
        self._shake_axes = _setup.axes_across(skeleton, self._shaking)
        mask = np.zeros(n, dtype=bool)
        if second_clip is not None:
            keyed = [skeleton.index(name) for name in second_clip.joint_names]
            mask[keyed] = True
            mask &= (slot >= 0)
        self._second_mask = mask
        self._parent = int(parents[self.shoulder])
        self._parents = np.ascontiguousarray(parents, dtype=np.int64)
        self._chain = np.array(joints, dtype=np.int64)
        self.placement, self._placed = np.eye(4), False  # _placed: the placement is not the identity
        self._tabulate_first_action()
        self._tables = self._frame_tables()
        self._two_calls = _contact_frame.applies(self)
        # Working arrays of a frame's kernels (nothing in them outlives the call that fills them).
        self._scratch = (np.empty((n, 3)), np.empty((n, 4)), np.empty((n, 3)), np.empty((n, 4)),
                         np.empty((n, 4, 4)))
        self.reset()

    def _frame_tables(self) -> _frame.FrameTables:
        """What the frame's kernels read and never change: the skeleton's rest pose, the clip's channels, the first
        action's table, the chain, the shaking joints and the part."""
        rest, clip = self.skeleton.rest, self.clip
        _, paths, modes, starts, times, values = clip._packed
        blade = self._first_blade if self._first_blade is not None else np.zeros_like(self._first_end)
        contiguous = np.ascontiguousarray
        return _frame.FrameTables(self._parents, contiguous(rest.translation), contiguous(rest.rotation),
                                  contiguous(rest.scale), clip._joint_map(self.skeleton), paths, modes, starts, times,
                                  values, contiguous(self._first_rotation), contiguous(self._first_end),
                                  contiguous(blade), self._chain, self._shaking, contiguous(self._shake_axes),
                                  self.part._local, contiguous(self._first_position), self.hold_part)

    def _tabulate_first_action(self) -> None:
        """The first action's wrist rotation, part end and blade normal (skeleton frame, unplaced) over one clip
        length every ``FIRST_ACTION_STEP`` seconds or finer: what the hand and the tool would do at any clock,
        looked up without sampling every joint of the clip."""
        duration = self.clip.duration
        count = max(1, math.ceil(duration / FIRST_ACTION_STEP))
        times = np.linspace(0.0, duration, count + 1)
        poses = self.clip.sample_frames(self.skeleton, times)
        worlds = self.skeleton.world_transforms(poses)
        wrist = worlds[:, self.wrist]
        rotation = quat.from_matrix(wrist[:, :3, :3] / np.linalg.norm(wrist[:, :3, :3], axis=1, keepdims=True))
        flip = np.concatenate([[1.0], np.sign(np.sum(rotation[1:] * rotation[:-1], axis=1))])
        rotation *= np.cumprod(np.where(flip == 0.0, 1.0, flip))[:, None]  # one hemisphere: lerp between neighbours
        placed = [self.part.placed(m) for m in wrist]
        self._first_step = duration / count
        self._first_rotation = rotation
        self._first_end = np.array([end for _, end, _ in placed])
        self._first_position = wrist[:, :3, 3].copy()
        self._shake_joints = np.array(self.body + self.chain[:-1], dtype=np.int64)
        self._shake_room = _setup.shake_room(self.skeleton, poses, worlds, self._shaking, self._shake_axes,
                                             self._shake_joints, self._first_step)
        self._first_blade = None if self.part.blade_normal is None else np.array([b for _, _, b in placed])

    def _driven_part(self, clock: float, dt: float) -> tuple[np.ndarray, np.ndarray | None, np.ndarray, float, float]:
        """The part's end (3,) and unit blade normal (3,) or None as the first action alone holds them at ``clock``
        (the body's), placed (interpolated in the table); the end's velocity (3,) from last frame's driven end
        over ``dt``, its squared speed and the blade normal's component along it."""
        out = np.empty((3, 3))
        has_blade = self._first_blade is not None
        speed_sq, along = _frame.driven_part(self._tables, clock, self.clip.duration, self.loop, self._first_step,
                                             self.placement, has_blade, self._driven_end, dt, out)
        return out[0], (out[1] if has_blade else None), out[2], speed_sq, along

    def reset(self) -> None:
        """Back to the start: every clock at ``start``, every rate 1, no contact (the placement stays)."""
        n = len(self.skeleton)
        self.clocks = np.full(n, self.start)
        self.rates = np.ones(n)
        self.time = 0.0
        self.contact: Contact | None = None
        self._area = 0.0
        self._previous_elbow: np.ndarray | None = None
        self._held = np.ones(n)  # the rates of the last contact frame, kept through each joint's recovery delay
        self._since_contact = math.inf
        self._shake, self._shake_frequency = 0.0, 0.0
        self._second_weight, self._second_clock = 0.0, 0.0
        local, world, _ = self._pose_at(self.clocks, 0.0, 0.0)
        self.pose, self.world = Pose._trusted(*(part.copy() for part in local)), world
        segment, blade = self._placed_part(world[self.wrist])
        start, end = segment[0], segment[1]
        # Each joint's medium rate (1: in none) and the tool's drag, from the last pose; the tool at rest.
        self._driven_end = end
        self._inside, self.part_drag = self._medium_rates(world, end, blade, np.zeros(3))
        self._in_media, self._part_in_media = self._media_inside(world, end)
        self.part_segment = np.stack([start, end])
        self._previous_end = end

    def place(self, placement: ArrayLike) -> None:
        """Stand the skeleton at ``placement``: a (4, 4) matrix of finite numbers, rotation times a positive
        uniform scale plus a translation (a walking character moves it every frame). Takes effect in the next
        :meth:`step`."""
        self.placement, self._placed = _setup.check_placement(placement)

    def state_dict(self) -> dict:
        """What the motion keeps from frame to frame (``STATE_ATTRIBUTES``; a private attribute's key has no leading
        underscore), the values themselves (:mod:`voxelworld.attribute_state`)."""
        return attribute_state(self, self.STATE_ATTRIBUTES)

    def load_state_dict(self, state: Mapping[str, Any]) -> None:
        """Take back a :meth:`state_dict`; ParameterError, before anything changes, for a missing key."""
        restore_attributes(self, state, self.STATE_ATTRIBUTES, checks=self.STATE_CHECKS)
        self._placed = not np.array_equal(self.placement, np.eye(4))

    # ----------------------------------------------------------------------------------------- one frame
    def _contact_targets(self, contact: Contact, area: float) -> np.ndarray:
        return contact_targets(self.profile, contact, area, len(self.chain), self._slotted, self._slot_row)

    _area_of = staticmethod(area_of)
    _angle = staticmethod(shake_angle)

    def _shake_cap(self, dt: float) -> float:
        """The largest shake (degrees) this frame may take (``frame.shake_cap``, from last frame's body clock and
        rates)."""
        return _frame.shake_cap(self._shake_room, self.clocks[self.root], self.rates, self._shake_joints,
                                self.clip.duration, self.loop, self._first_step, dt, SHAKE_SHARE)

    def _media_inside(self, world: np.ndarray, end: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        return media_inside(self.media, world, end)

    def _medium_rates(self, world: np.ndarray, end: np.ndarray, blade: np.ndarray | None,
                      velocity: np.ndarray) -> tuple[np.ndarray, float]:
        return medium_rates(self.media, self.profile, self._slot, len(self.chain), world, end, blade, velocity)

    def _advance(self, clocks: np.ndarray, contact_targets: np.ndarray | None, inside: np.ndarray, lag: np.ndarray,
                 since: float, dt: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Every joint's target rate this frame, and its clock and rate advanced from ``clocks`` (one kernel call,
        ``frame.frame_clocks``): catching up starts once every joint has come out of its delay and every free joint
        has recovered (rate within RECOVERED of 1): recovery first, from the wrist outward, then the clocks close
        up, then the first action resumes."""
        targets, new_clocks, rates = np.empty_like(clocks), np.empty_like(clocks), np.empty_like(clocks)
        profile = self.profile
        _frame.frame_clocks(clocks, self.rates, inside, self._held, self._delays, self._taus, since, lag,
                            profile.max_catch_up, profile.catch_up_time, CATCH_UP_FLOOR, 1.0 - RECOVERED,
                            inside if contact_targets is None else contact_targets, contact_targets is not None, dt,
                            self.clip.duration, self.loop, SNAP, targets, new_clocks, rates)
        return targets, new_clocks, rates

    def _pose_at(self, clocks: np.ndarray, second_weight: float, second_clock: float,
                 shake: float = 0.0) -> tuple[_Local, np.ndarray, tuple[np.ndarray, np.ndarray] | None]:
        """Local arrays ``(translation, rotation, scale)`` sampled at per-joint ``clocks`` (blended towards the
        second clip, the torso shaken by ``shake`` radians), their placed world matrices, and where the torso
        shakes the chain's steady places and hand (None otherwise)."""
        # One kernel call (frame.pose_at): the clocks are ours and finite, so the public wrappers' checks and
        # Pose copies are skipped (this runs twice a frame). The local arrays are working arrays, valid until the
        # next call; the world matrices and the steady arm are new.
        translation, rotation, scale, shaken, scratch = self._scratch
        n = len(clocks)
        world = np.empty((n, 4, 4))
        places, hand = np.empty((len(self.chain), 3)), np.empty((4, 4))
        sampled = second_weight > 0.0
        if sampled:
            _frame.sample_pose(self._tables, clocks, self.clip.duration, self.loop, translation, rotation, scale)
            self._blend_second(translation[None], rotation[None], second_weight, second_clock)
        was_shaken = _frame.pose_at(self._tables, clocks, self.clip.duration, self.loop, self._first_step, self.wrist,
                                    self.placement, self._placed, shake, sampled, translation, rotation, scale,
                                    shaken, scratch, world, places, hand)
        if not was_shaken:
            return (translation, rotation, scale), world, None
        return (translation, shaken, scale), world, (places, hand)

    def _blend_second(self, translation: np.ndarray, rotation: np.ndarray, weight: float, clock: float) -> None:
        """Blend the second clip's pose at ``clock`` (looping) into every row, for the joints it keys."""
        assert self.second_clip is not None  # weight > 0 only with a second clip
        t2, q2, _ = self.second_clip._run(self.skeleton, self.second_clip._clock(np.full((1, len(self.skeleton)),
                                                                                           clock), True))
        mask = self._second_mask
        other = q2[0, mask]
        for row in range(rotation.shape[0]):
            first = rotation[row, mask]
            sign = np.where(np.sum(first * other, axis=1) < 0.0, -1.0, 1.0)[:, None]
            blended = (1.0 - weight) * first + weight * sign * other
            rotation[row, mask] = blended / np.linalg.norm(blended, axis=1)[:, None]
            translation[row, mask] = (1.0 - weight) * translation[row, mask] + weight * t2[0, mask]

    def _world(self, translation: np.ndarray, rotation: np.ndarray, scale: np.ndarray) -> np.ndarray:
        """Placed world matrices ``(n, 4, 4)`` of one pose's local arrays."""
        world = np.empty((len(translation), 4, 4))
        _frame.pose_world(self._tables, translation, rotation, scale, self.placement, self._placed,
                          np.empty_like(world), world)
        return world

    def _placed_part(self, wrist_world: np.ndarray) -> tuple[np.ndarray, np.ndarray | None]:
        """``PartShape.placed`` in one kernel call: a (3, 3) array of the world start and end (m) (and unit blade
        normal), and the blade normal's row or None."""
        out = np.empty((3, 3))
        _frame.place_part(wrist_world, self.part._local, out)
        return out, (out[2] if self.part.blade_normal is not None else None)

    def _lag(self) -> tuple[np.ndarray, np.ndarray]:
        """Each joint's lag behind the leaders (s) and its clock re-expressed from it: looping, the lag is
        counted within one clip length (a joint a whole loop behind is in step)."""
        lag, clocks = np.empty_like(self.clocks), np.empty_like(self.clocks)
        _frame.lag_of(self.clocks, self.clip.duration, self.loop, lag, clocks)
        return lag, clocks

    def step(self, dt: float, contact_query: ContactQuery) -> tuple[Pose, list]:
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
            Local joint transforms (the chain re-posed by IK when its clocks differ).
        events : list
            :class:`ContactEnded`, :class:`ContactStarted`, :class:`MediumLeft`, :class:`MediumEntered`,
            :class:`Vibration`, in that order, as they happened.
        """
        dt = check_finite("dt", dt, minimum=0.0, strict_minimum=True, unit="s")
        if not callable(contact_query):
            raise ParameterError("contact_query", contact_query, "a callable (start, end, radius) -> Contact | None")
        if self._two_calls:  # the common motion: the same frame in two kernel calls (motion/contact_frame.py)
            return _contact_frame.play(self, dt, contact_query)
        return self._step(dt, contact_query)

    def _step(self, dt: float, contact_query: ContactQuery) -> tuple[Pose, list]:
        """:meth:`step` of checked arguments, for any motion (media, a second clip, limits, longer chains)."""
        lag, clocks0 = self._lag()
        time = self.time + dt
        since = self._since_contact + dt
        # The frame as it would be without contact decides whether there is one (so contact starts and ends
        # where the freely moving part meets or leaves the surface, not where the slowed one does).
        fade = math.exp(-dt / self.profile.body_recovery)
        shake, frequency = self._shake * fade, self._shake_frequency
        cap = self._shake_cap(dt)  # the most the torso may shake this frame (degrees)
        weight = self._second_weight * math.exp(-dt / SECOND_BLEND)
        second_clock = self._second_clock + dt if self.second_clip is not None else 0.0
        targets, clocks, rates = self._advance(clocks0, None, self._inside, lag, since, dt)
        local, world, arm = self._pose_at(clocks, weight, second_clock, self._angle(min(shake, cap), frequency, time))
        segment, blade = self._placed_part(world[self.wrist] if arm is None else arm[1])
        start, end = segment[0], segment[1]
        contact = contact_query(start, end, self.part.radius)
        if contact is not None and not isinstance(contact, Contact):
            raise ParameterError("contact_query", type(contact).__name__, "a callable returning a Contact or None")
        # How squarely the first action drives the blade through what it meets: the contact's area and the drag
        # of the media on it.
        driven_end, driven_blade, driven, speed_sq, along = self._driven_end, None, np.zeros(3), 0.0, 0.0
        if self.media or self.part.blade_normal is not None:
            driven_end, driven_blade, driven, speed_sq, along = self._driven_part(float(clocks[self.root]), dt)
        area = self._area_of(contact, blade, driven_blade is not None, speed_sq, along) if contact is not None \
            else 0.0
        if self.media:
            inside, part_drag = self._medium_rates(world, end, driven_blade, driven)
        else:
            inside, part_drag = self._inside, 0.0
        held, since_contact = self._held, since
        if contact is not None:
            held, since_contact = self._contact_targets(contact, area), 0.0
            shake, frequency = self.profile.shake(contact.hardness)
            shake = max(shake, self._shake * fade)
            if self.second_clip is not None:
                weight = 1.0 - (1.0 - self._second_weight) * math.exp(-dt / SECOND_BLEND)
        second, second_clocks, second_rates = self._advance(clocks0, held if contact is not None else None, inside,
                                                            lag, since, dt)
        if contact is not None or not np.array_equal(second, targets):
            clocks, rates = second_clocks, second_rates
            local, world, arm = self._pose_at(clocks, weight, second_clock,
                                              self._angle(min(shake, cap), frequency, time))
            segment, blade = self._placed_part(world[self.wrist] if arm is None else arm[1])
            start, end = segment[0], segment[1]
        elbow = None
        if arm is not None:
            local, world, elbow = self._join_chain(local, world, *arm)
            if self.hold_part:  # the part where the joined wrist is (the arm may not reach the held hand)
                segment, blade = self._placed_part(world[self.wrist])
                start, end = segment[0], segment[1]
        pose = Pose._trusted(*(part.copy() for part in local))  # made here: already checked and unit
        # Events, then the new state (nothing above changed the object, so bad input leaves it as it was).
        events: list = []
        previous = self.contact
        if previous is not None and (contact is None or contact.material != previous.material):
            events.append(ContactEnded(time, previous.material))
        if contact is not None and (previous is None or contact.material != previous.material):
            events.append(ContactStarted(time, contact.material, contact.point))
        in_media, part_in_media = self._media_inside(world, end) if self.media else (self._in_media,
                                                                                      self._part_in_media)
        if self.media:
            names = self.skeleton.names
            for m, medium in enumerate(self.media):
                for j in np.flatnonzero(self._in_media[m] & ~in_media[m]):
                    events.append(MediumLeft(time, medium.name, names[j]))
                if self._part_in_media[m] and not part_in_media[m]:
                    events.append(MediumLeft(time, medium.name, PART))
                for j in np.flatnonzero(in_media[m] & ~self._in_media[m]):
                    events.append(MediumEntered(time, medium.name, names[j]))
                if part_in_media[m] and not self._part_in_media[m]:
                    events.append(MediumEntered(time, medium.name, PART))
        if contact is not None:
            moved = _frame.distance(end, self._previous_end)
            drive = moved / dt / max(float(rates[self.wrist]), 1e-12)
            events.append(Vibration(time, self.profile.impulse_scale * contact.hardness * drive, contact.material))
        self.clocks, self.rates, self.time = clocks, rates, time
        self.contact, self._area, self._inside, self._in_media = contact, area, inside, in_media
        self._part_in_media, self.part_drag, self._driven_end = part_in_media, part_drag, driven_end
        self._held, self._since_contact = held, since_contact
        self._shake, self._shake_frequency = (shake, frequency) if shake > 1e-6 else (0.0, 0.0)
        self._second_weight = weight if weight > 1e-6 else 0.0
        self._second_clock = second_clock if self._second_weight > 0.0 else 0.0
        self.pose, self.world = pose, world
        self.part_segment = segment[:2].copy()
        self._previous_end = self.part_segment[1]
        self._previous_elbow = elbow
        return pose, events

    def _join_chain(self, local: _Local, world: np.ndarray, places: np.ndarray,
                    hand: np.ndarray) -> tuple[_Local, np.ndarray, np.ndarray | None]:
        """Re-solve the chain so its joints come near their places and the wrist sits at the hand's, turned as
        ``hand``; returns the new local arrays, world matrices and (for two-bone IK) the middle joint's place."""
        translation, rotation, scale = local
        chain = self._chain
        parent = world[self._parent] if self._parent >= 0 else self.placement
        if len(chain) == 3 and self.limits is None:
            out_rotation, out_world, elbow = np.empty_like(rotation), np.empty_like(world), np.empty(3)
            previous = self._previous_elbow
            code = _frame.join_chain(self._tables, world, translation, rotation, scale, places, hand,
                                     elbow if previous is None else previous, previous is not None, parent,
                                     self.placement, self._placed, self._scratch[4], out_rotation, out_world, elbow)
            if code != _ik_kernel.OK:  # a non-finite pose: the wrapper names what is wrong
                now = world[chain, :3, 3]
                two_bone_ik(now[0], now[1], now[2], hand[:3, 3], pole=places[1], previous_mid=previous)
            return (translation, out_rotation, scale), out_world, elbow
        now = world[chain, :3, 3]
        positions = places.copy()
        positions[0] = now[0]
        lengths = np.linalg.norm(np.diff(now, axis=0), axis=1)
        _ik_kernel.fabrik(positions, lengths, np.ascontiguousarray(hand[:3, 3]), self._kinds, self._params,
                          IK_TOLERANCE, IK_PASSES, np.empty((len(chain) - 1, 3)))
        rotations = np.empty((len(chain), 4))
        _kernel.repose_chain(np.ascontiguousarray(parent), translation, rotation, chain,
                             np.ascontiguousarray(positions), np.ascontiguousarray(hand), rotations)
        rotation = rotation.copy()
        rotation[chain] = rotations
        return (translation, rotation, scale), self._world(translation, rotation, scale), None
