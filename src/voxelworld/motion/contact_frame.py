"""One :class:`~voxelworld.motion.ContactMotion` frame in two kernel calls, for the common motion: a three-joint
chain without IK limits, no media, no second clip (a chainsaw enemy, a digger).

:func:`play` is what :meth:`ContactMotion.step` runs for such a motion, after checking its arguments: the frame up
to the contact query in one call (``frame.before_query``), the contact's answer worked out in Python (the contact
area, the slowed rates, the shake), the rest of the frame in a second call (``frame.after_query``), then the
events and the new state. It plays the same frame as the general path of ``step``, bit for bit (the tests run
both), with a few Python steps instead of a few dozen.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

from ..errors import ParameterError
from . import contact_rates as _rates
from ._kernels import frame as _frame
from ._kernels import ik as _ik
from .part_contacts import Contact, ContactEnded, ContactQuery, ContactStarted, Vibration
from .skeleton import Pose

if TYPE_CHECKING:
    from .contact_motion import ContactMotion

__all__ = ["play", "applies"]


def play(motion: ContactMotion, dt: float, contact_query: ContactQuery) -> tuple[Pose, list]:
    """Play one frame of ``dt`` seconds (checked, > 0) of ``motion`` (see the module); the pose and the events."""
    profile, tables, has_blade = motion.profile, motion._tables, motion.part.blade_normal is not None
    duration = motion.clip.duration
    time = motion.time + dt
    since = motion._since_contact + dt
    fade = math.exp(-dt / profile.body_recovery)
    shake, frequency = motion._shake * fade, motion._shake_frequency
    cap = motion._shake_cap(dt)  # the most the torso may shake this frame (degrees)
    catch_up = (profile.max_catch_up, profile.catch_up_time, _rates.CATCH_UP_FLOOR, 1.0 - _rates.RECOVERED)
    (lag, clocks0, targets, clocks, rates, translation, rotation, scale, shaken, world, places, hand, segment, driven,
     was_shaken, speed_sq, along) = _frame.before_query(
        tables, motion.clocks, motion.rates, motion._inside, motion._held, motion._delays, motion._taus, since,
        *catch_up, dt, duration, motion.loop, _rates.SNAP, motion._first_step, motion.wrist, motion.root,
        motion.placement, motion._placed, motion._angle(min(shake, cap), frequency, time), has_blade, motion._driven_end)
    contact = contact_query(segment[0], segment[1], motion.part.radius)
    if contact is not None and not isinstance(contact, Contact):
        raise ParameterError("contact_query", type(contact).__name__, "a callable returning a Contact or None")
    driven_end = driven[0] if has_blade else motion._driven_end
    area = 0.0
    held, since_contact = motion._held, since
    if contact is not None:
        area = motion._area_of(contact, segment[2] if has_blade else None, has_blade, speed_sq, along)
        held, since_contact = motion._contact_targets(contact, area), 0.0
        shake, frequency = profile.shake(contact.hardness)
        shake = max(shake, motion._shake * fade)
    previous_elbow = motion._previous_elbow
    clocks, rates, translation, rotation, scale, world, segment, elbow, joined, code, moved = _frame.after_query(
        tables, clocks0, motion.rates, motion._inside, motion._held, motion._delays, motion._taus, since, lag,
        *catch_up, held, contact is not None, targets, dt, duration, motion.loop, _rates.SNAP, motion._first_step,
        motion.wrist, motion.placement, motion._placed, motion._angle(min(shake, cap), frequency, time), motion._parent,
        segment[0] if previous_elbow is None else previous_elbow, previous_elbow is not None, motion._previous_end,
        clocks, rates, translation, rotation, scale, shaken, world, places, hand, segment, was_shaken)
    if code != _ik.OK:  # a pose gone non-finite: the general path's IK wrapper names what is wrong
        return motion._step(dt, contact_query)
    pose = Pose._trusted(translation.copy(), rotation.copy(), scale.copy())
    # Events, then the new state (nothing above changed the object, so bad input leaves it as it was).
    events: list = []
    previous = motion.contact
    if previous is not None and (contact is None or contact.material != previous.material):
        events.append(ContactEnded(time, previous.material))
    if contact is not None and (previous is None or contact.material != previous.material):
        events.append(ContactStarted(time, contact.material, contact.point))
    if contact is not None:
        drive = moved / dt / max(float(rates[motion.wrist]), 1e-12)
        events.append(Vibration(time, profile.impulse_scale * contact.hardness * drive, contact.material))
    motion.clocks, motion.rates, motion.time = clocks, rates, time
    motion.contact, motion._area, motion.part_drag, motion._driven_end = contact, area, 0.0, driven_end
    motion._held, motion._since_contact = held, since_contact
    motion._shake, motion._shake_frequency = (shake, frequency) if shake > 1e-6 else (0.0, 0.0)
    motion._second_weight = motion._second_clock = 0.0
    motion.pose, motion.world = pose, world
    motion.part_segment = segment[:2].copy()
    motion._previous_end = motion.part_segment[1]
    motion._previous_elbow = elbow if joined else None
    return pose, events


def applies(motion: ContactMotion) -> bool:
    """Whether :func:`play` plays ``motion``'s frames: a three-joint chain without limits, no media, no second
    clip."""
    return len(motion.chain) == 3 and motion.limits is None and not motion.media and motion.second_clip is None

