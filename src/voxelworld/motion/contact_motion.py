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

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

import numpy as np

from ..attribute_state import array, attribute_state, instance, number, optional, restore_attributes
from ..errors import ParameterError, check_finite
from ._kernels import contact as _kernel
from ._kernels import fk as _fk
from .clip import Clip
from .ik import two_bone_ik
from .part_contacts import (Contact, ContactEnded, ContactStarted, Medium, PartShape, SlowdownProfile, Vibration,
                       joint_index)
from .skeleton import Pose, Skeleton

__all__ = ["ContactMotion"]

SNAP = 1e-4  # s: a trailing joint this close to the leaders' clock joins them
RECOVERED = 0.01  # a joint whose rate is this close to 1 has recovered


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

    # What the motion keeps from frame to frame (:meth:`state_dict`); the other attributes are what its
    # constructor is given and derives from that.
    STATE_ATTRIBUTES = ("clocks", "rates", "time", "contact", "_area", "_inside", "_previous_elbow", "pose",
                        "world", "part_segment", "_previous_end")
    STATE_CHECKS = {"clocks": array((None,)), "rates": array((None,)), "time": number(minimum=0.0, unit="s"),
                    "contact": optional(instance(Contact)), "area": number(minimum=0.0, unit="m²"),
                    "inside": array((None,)), "previous_elbow": optional(array((3,))), "pose": instance(Pose),
                    "world": array((None, 4, 4)), "part_segment": array((2, 3)), "previous_end": array((3,))}
    OTHER_ATTRIBUTES = ("skeleton", "clip", "part", "profile", "media", "loop", "start", "shoulder", "elbow",
                        "wrist", "root", "_hand", "_taus", "_parent", "_parents", "_arm")

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
        joints = [joint_index(skeleton, "chain", name) for name in chain]
        parents = skeleton.parents
        if parents[joints[1]] != joints[0] or parents[joints[2]] != joints[1]:
            raise ParameterError("chain", list(chain), "[shoulder, elbow, wrist], each the parent of the next")
        root_index = joint_index(skeleton, "root", root)
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
        self.pose, self.world = Pose._trusted(*(part.copy() for part in local)), world
        self._inside = self._medium_rates(world)
        start, end, _ = self.part.placed(world[self.wrist])
        self.part_segment = np.stack([start, end])
        self._previous_end = end

    def state_dict(self) -> dict:
        """What the motion keeps from frame to frame (``STATE_ATTRIBUTES``; a private attribute's key has no leading
        underscore), the values themselves (:mod:`voxelworld.attribute_state`)."""
        return attribute_state(self, self.STATE_ATTRIBUTES)

    def load_state_dict(self, state) -> None:
        """Take back a :meth:`state_dict`; ParameterError, before anything changes, for a missing key."""
        restore_attributes(self, state, self.STATE_ATTRIBUTES, checks=self.STATE_CHECKS)

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
        pose = Pose._trusted(*(part.copy() for part in local))  # made here: already checked and unit
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
