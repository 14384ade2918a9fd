"""The rules a :class:`~voxelworld.motion.ContactMotion` frame follows on both of its paths (the general
``ContactMotion._step`` and :mod:`voxelworld.motion.contact_frame`'s two kernel calls): the frame's constants, the
joints' target rates in a contact, the contact's area, the torso's shake angle and what the media do to the joints
and the part.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from ._kernels import frame as _frame
from .part_contacts import Contact, Medium, SlowdownProfile

__all__ = ["SNAP", "RECOVERED", "CATCH_UP_FLOOR", "SECOND_BLEND", "IK_TOLERANCE", "IK_PASSES", "FIRST_ACTION_STEP",
           "PART", "SHAKE_SHARE", "contact_targets", "area_of", "shake_angle", "media_inside", "medium_rates"]

SNAP = 1e-4  # s: a trailing joint this close to the leaders' clock joins them
RECOVERED = 0.01  # a joint whose rate is this close to 1 has recovered
CATCH_UP_FLOOR = 0.2  # a trailing joint catches up at least this much faster than the first action (closes in time)
SECOND_BLEND = 0.1  # s: time constant of blending towards the second-action clip and back
IK_TOLERANCE, IK_PASSES = 1e-6, 32  # FABRIK's: m, passes
FIRST_ACTION_STEP = 1.0 / 240.0  # s: the first action's hand and tool are tabulated at least this finely
SHAKE_SHARE = 0.8  # the share of a slowed joint's spare motion (the first action's less its own) a shake may take
PART = "part"  # the ``joint`` of a MediumEntered / MediumLeft event about the part (the tool), not a joint


def contact_targets(profile: SlowdownProfile, contact: Contact, area: float, chain_length: int, slotted: np.ndarray,
                    slot_row: np.ndarray) -> np.ndarray:
    """Every joint's target rate in ``contact`` (area factor ``area``): the profile's rate of its slot (``slot_row``,
    for the ``slotted`` joints: hand, chain, body), 1 for the others."""
    rates = np.array(profile._chain_rates(contact.hardness, area, chain_length))
    return np.where(slotted, rates[slot_row], 1.0)


def area_of(contact: Contact, blade: np.ndarray | None, has_driven_blade: bool, speed_sq: float,
            along: float) -> float:
    """The contact's area factor: the query's, else 1 for a blunt part, else how squarely the first action
    drives the blade (``|blade normal . unit velocity|``: 0 edge-first, 1 face-first; ``speed_sq`` the driven
    velocity's squared length, ``along`` its component along the driven blade normal), or for a blade at rest
    how squarely it faces the surface."""
    if contact.area is not None:
        return contact.area
    if blade is None:
        return 1.0
    speed = math.sqrt(speed_sq)
    if has_driven_blade and speed > 1e-9:
        return float(min(1.0, abs(along) / speed))
    return float(min(1.0, abs(_frame.dot3(blade, np.array(contact.normal, dtype=np.float64)))))


def shake_angle(shake_degrees: float, frequency: float, time: float) -> float:
    """The torso's shake angle (radians) at ``time``."""
    if shake_degrees == 0.0:
        return 0.0
    return math.radians(shake_degrees) * math.sin(2.0 * math.pi * frequency * time)


def media_inside(media: Sequence[Medium], world: np.ndarray, end: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Which joints ``(media, n)`` (their world matrices ``world``) and whether the part's end ``(media,)`` lie
    inside each medium."""
    positions = world[:, :3, 3]
    joints = np.array([medium.contains(positions) for medium in media], dtype=bool).reshape(
        len(media), len(positions))
    part = np.array([bool(medium.contains(end)[0]) for medium in media], dtype=bool)
    return joints, part


def medium_rates(media: Sequence[Medium], profile: SlowdownProfile, slot: np.ndarray, chain_length: int,
                 world: np.ndarray, end: np.ndarray, blade: np.ndarray | None,
                 velocity: np.ndarray) -> tuple[np.ndarray, float]:
    """Each joint's rate in the media (the deepest slowest) with the drag on the part (its end at ``end``, its
    blade facing ``blade`` and driven at ``velocity``) taken by the hand and graded up the chain and on to the
    body (slowed least; ``slot``: each joint's place from the hand, -1 for the others); and the part's largest
    drag."""
    rates = np.ones(len(world))
    if not media:
        return rates, 0.0
    positions = world[:, :3, 3]
    drag = 0.0
    for medium in media:
        rates = np.minimum(rates, medium.rates(positions))
        drag = max(drag, medium.part_drag(end, blade, velocity))
    if drag > 0.0:  # the hand slowest, then the chain, then the body, graded towards the first action
        graded = np.array(profile.graded(1.0 / (1.0 + drag), 1.0, chain_length + 1))
        dragged = slot >= 0
        rates[dragged] = np.minimum(rates[dragged], graded[slot[dragged]])
    return rates, drag
