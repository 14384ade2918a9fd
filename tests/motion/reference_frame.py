"""The ContactMotion frame as it was written in NumPy before its kernels (``motion/_kernels/frame.py``): the
reference the kernels must match bit for bit.

:class:`ReferenceContactMotion` is a :class:`~voxelworld.motion.ContactMotion` whose frame (``step``, ``reset``,
``place`` and the methods they call) is the NumPy code the kernels replaced, kept here verbatim: small products
through NumPy's ``@`` and ``np.linalg.norm``, the clip sampled through ``Clip._run``, the two-bone IK through its
public wrapper. A motion (or an enemy's ``motion``, by ``__class__``) switched to it plays the frames the old code
played, so a test can run both side by side and compare every array bit for bit.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np

from voxelworld.errors import ParameterError, check_finite
from voxelworld.motion._kernels import contact as _kernel
from voxelworld.motion._kernels import fk as _fk
from voxelworld.motion._kernels import ik as _ik_kernel
from voxelworld.motion.contact_motion import (
    CATCH_UP_FLOOR,
    IK_PASSES,
    IK_TOLERANCE,
    PART,
    RECOVERED,
    SECOND_BLEND,
    SNAP,
    ContactMotion,
)
from voxelworld.motion.ik import two_bone_ik
from voxelworld.motion.part_contacts import Contact, ContactEnded, ContactStarted, MediumEntered, MediumLeft, Vibration
from voxelworld.motion.skeleton import Pose


class ReferenceContactMotion(ContactMotion):
    """ContactMotion with the NumPy frame it had before its kernels (see the module)."""

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
        start, end, blade = self.part.placed(world[self.wrist])
        # Each joint's medium rate (1: in none) and the tool's drag, from the last pose; the tool at rest.
        self._driven_end = end
        self._inside, self.part_drag = self._medium_rates(world, end, blade, np.zeros(3))
        self._in_media, self._part_in_media = self._media_inside(world, end)
        self.part_segment = np.stack([start, end])
        self._previous_end = end

    def place(self, placement) -> None:
        """Stand the skeleton at ``placement``: a (4, 4) matrix of finite numbers, rotation times a positive
        uniform scale plus a translation (a walking character moves it every frame). Takes effect in the next
        :meth:`step`."""
        legal = "a (4, 4) matrix of finite numbers: rotation times a positive uniform scale, last row 0 0 0 1"
        try:
            matrix = np.array(placement, dtype=np.float64)
        except (TypeError, ValueError):
            raise ParameterError("placement", placement, legal) from None
        if matrix.shape != (4, 4) or not np.isfinite(matrix).all() or not np.array_equal(matrix[3], [0, 0, 0, 1]):
            raise ParameterError("placement", placement, legal)
        scales = np.linalg.norm(matrix[:3, :3], axis=0)
        gram = matrix[:3, :3].T @ matrix[:3, :3]
        if scales.min() <= 1e-9 or not np.allclose(gram, np.eye(3) * scales[0] ** 2, rtol=1e-6, atol=1e-9) \
                or np.linalg.det(matrix[:3, :3]) <= 0:
            raise ParameterError("placement", placement, legal)
        self.placement, self._placed = matrix, not np.array_equal(matrix, np.eye(4))

    def _first_row(self, clock: float) -> tuple[int, int, float]:
        """The table's rows around ``clock`` (s) and the share between them."""
        duration = self.clip.duration
        last = len(self._first_end) - 1
        if duration <= 0.0 or last == 0:
            return 0, 0, 0.0
        clock = clock % duration if self.loop else min(max(clock, 0.0), duration)
        position = clock / self._first_step
        i = min(int(position), last - 1)
        return i, i + 1, position - i

    def _driven_part(self, clock: float) -> tuple[np.ndarray, np.ndarray | None]:
        """The part's end (3,) and blade normal (3,) or None as the first action alone holds them at ``clock``
        (the body's), placed; interpolated in the table."""
        i, j, u = self._first_row(clock)
        turn = self.placement[:3, :3]
        end = turn @ ((1.0 - u) * self._first_end[i] + u * self._first_end[j]) + self.placement[:3, 3]
        if self._first_blade is None:
            return end, None
        blade = turn @ ((1.0 - u) * self._first_blade[i] + u * self._first_blade[j])
        return end, blade / np.linalg.norm(blade)

    def _contact_targets(self, contact: Contact, area: float) -> np.ndarray:
        rates = np.array(self.profile.chain_rates(contact.hardness, area, len(self.chain)))
        return np.where(self._slot >= 0, rates[np.maximum(self._slot, 0)], 1.0)

    def _targets(self, contact_targets: np.ndarray | None, inside: np.ndarray, lag: np.ndarray,
                 since: float) -> np.ndarray:
        targets = inside.copy()
        holding = since < self._delays  # still within its recovery delay: keeps last contact's rate
        targets = np.where(holding, np.minimum(targets, self._held), targets)
        free = targets >= 1.0
        # Catching up starts once every joint has come out of its delay and every free joint has recovered (rate
        # within RECOVERED of 1): recovery first, from the wrist outward, then the clocks close up, then the first
        # action resumes.
        if not holding.any() and np.all(self.rates[free] >= 1.0 - RECOVERED):
            behind = free & (lag > 0.0)
            targets[behind] = np.minimum(self.profile.max_catch_up,
                                         1.0 + np.maximum(lag[behind] / self.profile.catch_up_time, CATCH_UP_FLOOR))
        if contact_targets is not None:
            targets = np.minimum(targets, contact_targets)
        return targets

    def _advance(self, clocks: np.ndarray, targets: np.ndarray, lag: np.ndarray, dt: float):
        new_clocks, rates = np.empty_like(clocks), np.empty_like(self.rates)
        _kernel.advance_clocks(clocks, self.rates, targets, self._taus, lag, dt, self.clip.duration, self.loop,
                               SNAP, new_clocks, rates)
        return new_clocks, rates

    def _pose_at(self, clocks: np.ndarray, second_weight: float, second_clock: float, shake: float = 0.0):
        """Local arrays ``(translation, rotation, scale)`` sampled at per-joint ``clocks`` (blended towards the
        second clip, the torso shaken by ``shake`` radians), their placed world matrices, and where the torso
        shakes the chain's steady places and hand (None otherwise)."""
        # Wing-internal fast path of Clip.sample_frames / Skeleton.world_transforms: the clocks are ours and
        # finite, so the public wrappers' checks and Pose copies are skipped (this runs every frame).
        translation, rotation, scale = self.clip._run(self.skeleton, self.clip._clock(clocks[None], self.loop))
        if second_weight > 0.0:
            self._blend_second(translation, rotation, second_weight, second_clock)
        local = (translation[0], rotation[0], scale[0])
        world = self._world(*local)
        if not np.all(clocks == clocks[self.wrist]):
            # The hand turns as the first action turns it at the hand's own clock, in the world (not only relative
            # to a forearm on another clock): a held tool points where the first action points it then.
            i, j, u = self._first_row(float(clocks[self.wrist]))
            w = self.wrist
            _kernel.hand_rotation(world[self._parents[w]], self.placement, self._first_rotation, i, j, u,
                                  rotation[0, w].copy(), rotation[0, w])
            world = self._world(*local)
        if shake == 0.0:
            return local, world, None
        # The torso shakes; the hand stays on its steady path and the chain absorbs the shake (IK).
        steady = world[self._chain]
        local = (translation[0], self._shaken(rotation[0], shake), scale[0])
        return local, self._world(*local), (steady[:, :3, 3].copy(), steady[-1].copy())

    def _world(self, translation: np.ndarray, rotation: np.ndarray, scale: np.ndarray) -> np.ndarray:
        """Placed world matrices ``(n, 4, 4)`` of one pose's local arrays."""
        world = np.empty((1, len(translation), 4, 4))
        _fk.world_transforms(self._parents, translation[None], rotation[None], scale[None], world)
        if not self._placed:
            return world[0]
        return self.placement @ world[0]

    def _shaken(self, rotation: np.ndarray, angle: float) -> np.ndarray:
        """``rotation (n, 4)`` with each shaking joint turned by ``angle`` (radians) about its axis across the
        bone, alternating sides."""
        out = np.empty_like(rotation)
        _kernel.shake(rotation, self._shaking, self._shake_axes, angle, out)
        return out

    @staticmethod
    def _area_of(contact: Contact, blade: np.ndarray | None, driven_blade: np.ndarray | None,
                 driven: np.ndarray) -> float:
        """The contact's area factor: the query's, else 1 for a blunt part, else how squarely the first action
        drives the blade (``|blade normal . unit velocity|``: 0 edge-first, 1 face-first), or for a blade at rest
        how squarely it faces the surface."""
        if contact.area is not None:
            return contact.area
        if blade is None:
            return 1.0
        speed = math.sqrt(float(driven @ driven))
        if driven_blade is not None and speed > 1e-9:
            return float(min(1.0, abs(float(driven_blade @ driven)) / speed))
        return float(min(1.0, abs(float(np.dot(blade, contact.normal)))))

    def _lag(self) -> tuple[np.ndarray, np.ndarray]:
        """Each joint's lag behind the leaders (s) and its clock re-expressed from it: looping, the lag is
        counted within one clip length (a joint a whole loop behind is in step)."""
        lead = float(self.clocks.max())
        lag = lead - self.clocks
        if not self.loop or self.clip.duration <= 0.0:
            return lag, self.clocks
        lag = np.mod(lag, self.clip.duration)
        return lag, lead - lag

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
            Local joint transforms (the chain re-posed by IK when its clocks differ).
        events : list
            :class:`ContactEnded`, :class:`ContactStarted`, :class:`MediumLeft`, :class:`MediumEntered`,
            :class:`Vibration`, in that order, as they happened.
        """
        dt = check_finite("dt", dt, minimum=0.0, strict_minimum=True, unit="s")
        if not callable(contact_query):
            raise ParameterError("contact_query", contact_query, "a callable (start, end, radius) -> Contact | None")
        lag, clocks0 = self._lag()
        time = self.time + dt
        since = self._since_contact + dt
        # The frame as it would be without contact decides whether there is one (so contact starts and ends
        # where the freely moving part meets or leaves the surface, not where the slowed one does).
        fade = math.exp(-dt / self.profile.body_recovery)
        shake, frequency = self._shake * fade, self._shake_frequency
        cap = self._shake_cap(dt)  # issue 32: the shake capped so that it never reads as speed
        weight = self._second_weight * math.exp(-dt / SECOND_BLEND)
        second_clock = self._second_clock + dt if self.second_clip is not None else 0.0
        targets = self._targets(None, self._inside, lag, since)
        clocks, rates = self._advance(clocks0, targets, lag, dt)
        local, world, arm = self._pose_at(clocks, weight, second_clock, self._angle(min(shake, cap), frequency, time))
        start, end, blade = self.part.placed(world[self.wrist] if arm is None else arm[1])
        contact = contact_query(start, end, self.part.radius)
        if contact is not None and not isinstance(contact, Contact):
            raise ParameterError("contact_query", type(contact).__name__, "a callable returning a Contact or None")
        # How squarely the first action drives the blade through what it meets: the contact's area and the drag
        # of the media on it.
        driven_end, driven_blade = self._driven_end, None
        if self.media or self.part.blade_normal is not None:
            driven_end, driven_blade = self._driven_part(float(clocks[self.root]))
        driven = (driven_end - self._driven_end) / dt
        area = self._area_of(contact, blade, driven_blade, driven) if contact is not None else 0.0
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
        second = self._targets(held if contact is not None else None, inside, lag, since)
        if contact is not None or not np.array_equal(second, targets):
            clocks, rates = self._advance(clocks0, second, lag, dt)
            local, world, arm = self._pose_at(clocks, weight, second_clock, self._angle(min(shake, cap), frequency, time))
            start, end, blade = self.part.placed(world[self.wrist] if arm is None else arm[1])
        elbow = None
        if arm is not None:
            local, world, elbow = self._join_chain(local, world, *arm)
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
            moved = float(np.linalg.norm(end - self._previous_end))
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
        self.part_segment = np.stack([start, end])
        self._previous_end = end
        self._previous_elbow = elbow
        return pose, events

    def _join_chain(self, local, world: np.ndarray, places: np.ndarray, hand: np.ndarray):
        """Re-solve the chain so its joints come near their places and the wrist sits at the hand's, turned as
        ``hand``; returns the new local arrays, world matrices and (for two-bone IK) the middle joint's place."""
        translation, rotation, scale = local
        chain = self._chain
        now = world[chain, :3, 3]
        target = hand[:3, 3]
        elbow = None
        if len(chain) == 3 and self.limits is None:
            mid, tip = two_bone_ik(now[0], now[1], now[2], target, pole=places[1], previous_mid=self._previous_elbow)
            positions = np.stack([now[0], np.asarray(mid, float), np.asarray(tip, float)])
            elbow = positions[1].copy()
        else:
            positions = places.copy()
            positions[0] = now[0]
            lengths = np.linalg.norm(np.diff(now, axis=0), axis=1)
            _ik_kernel.fabrik(positions, lengths, np.ascontiguousarray(target), self._kinds, self._params,
                              IK_TOLERANCE, IK_PASSES, np.empty((len(chain) - 1, 3)))
        parent = world[self._parent] if self._parent >= 0 else self.placement
        rotations = np.empty((len(chain), 4))
        _kernel.repose_chain(np.ascontiguousarray(parent), translation, rotation, chain,
                             np.ascontiguousarray(positions), np.ascontiguousarray(hand), rotations)
        rotation = rotation.copy()
        rotation[chain] = rotations
        return (translation, rotation, scale), self._world(translation, rotation, scale), elbow
