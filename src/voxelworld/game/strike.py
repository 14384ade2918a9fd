"""The player's punch and pull-out as motion that answers what it touches.

A press of punch (or pull-out) plays :func:`~voxelworld.motion.punch_clip` on the player's CesiumMan with a
:class:`~voxelworld.motion.ContactMotion` (the right arm, the fist a small sphere at the wrist), stood where the
player stands and turned as it turns, aimed at the pitch the player looks at (in steps of ``AIM_STEP`` degrees).
The game's punch reaches further than an arm (``PunchSettings.reach``, 4 m from the eye by default): the surface
the aim meets is brought within the arm's reach as a plane across the aim, at the aimed point when that lies
within ``STRIKE_REACH`` of the arm's length from the shoulder, else at that distance, and the fist *strikes* when
it crosses the plane. That frame is the punch's **contact frame**: the punch's edit is made there (from the eye
and aim of the press, queued for the next update stages as every action's edit) and the motion's second action
takes over:

- a material the punch's tool breaks at once (hardness below ``Tool.gives_way_below``: sand, soil) gives way:
  the fist touches it for that one frame only, so the punch barely slows;
- a harder one (rock, iron) holds the fist for ``hold_per_hardness`` seconds per hardness unit: the body drops to
  the profile's ``root_rate`` (0.1), the fist, a blunt part (contact area 1), slower still by the hardness, the
  torso shakes, and the fist is held back where it struck (``hold_part``, the design's Fig. 6) while the arm
  bends to it; then the rates recover from the wrist outward;
- a punch into the air (the aim meets nothing within reach) never strikes and plays at full speed.

So a punch into rock lasts longer than one into soil, which lasts about as long as one into the air. A press while a
punch plays is kept (one) and starts when it ends.

Everything is deterministic and kept in :meth:`Strike.state_dict` (the motion's clocks included), so a saved
world strikes where the unsaved one would have.
"""

from __future__ import annotations

import copy
import math
from collections.abc import Mapping
from dataclasses import dataclass
from functools import cache
from typing import Any

import numpy as np

from ..attribute_state import array, flag, number, optional, restore_attributes, seconds, text, whole
from ..errors import ParameterError, check_finite, check_range
from ..motion import Contact, ContactMotion, PartShape, SlowdownProfile, punch_clip
from .enemy import CHEST, FORWARD, HIPS, UP
from .poses import RIGHT_ARM, character_rig, model_to_world

__all__ = ["StrikeSettings", "Strike", "AIM_STEP", "STRIKE_REACH", "placement", "upper_body", "motion_layer", "warm"]

AIM_STEP = 15.0  # degrees: the punch's clip is made for the aim's pitch rounded to this
AIM_STEPS = 5  # the steepest punch is aimed AIM_STEPS * AIM_STEP degrees up or down (within punch_clip's 80)
STRIKE_REACH = 0.85  # share of the arm's length from the shoulder at which a far surface is struck
FIST_AREA = 1.0  # a fist is blunt: the flat of a part (SlowdownProfile's contact area factor)
ACTIONS = ("", "punch", "pull_out")
EASE_IN, EASE_OUT = 0.07, 0.1  # s: the strike's layer eases in and out over the walk or idle pose


@dataclass(frozen=True)
class StrikeSettings:
    """How the player's punch and pull-out move.

    Parameters
    ----------
    duration : float
        s (> 0): the punch's clip at full speed (0.5: the fist is furthest out at 0.25 s).
    fist_radius : float
        m (> 0): the fist's sphere.
    hold_per_hardness : float
        s per hardness unit (0..10): how long a material the tool does not break at once holds the fist (rock,
        hardness 5: 0.15 s by default).
    profile : SlowdownProfile
        How the body and arm slow while the fist is held; by default quicker to recover than a tool's (a fist
        comes back within a tenth of a second). With the defaults a punch plays 0.5 s into the air, about 0.57 s
        into soil, 0.7 s into rock and 0.85 s into iron (tests/game/test_strike.py).

    Examples
    --------
    >>> StrikeSettings().hold_per_hardness
    0.03
    """

    duration: float = 0.5
    fist_radius: float = 0.05
    hold_per_hardness: float = 0.03
    profile: SlowdownProfile = SlowdownProfile(wrist_recovery=0.02, elbow_recovery=0.03, shoulder_recovery=0.04,
                                               body_recovery=0.05, recovery_delay=0.01)

    def __post_init__(self) -> None:
        for name in ("duration", "fist_radius"):
            unit = "s" if name == "duration" else "m"
            object.__setattr__(self, name, check_finite(name, getattr(self, name), minimum=0.0, strict_minimum=True,
                                                        unit=unit))
        object.__setattr__(self, "hold_per_hardness", check_finite("hold_per_hardness", self.hold_per_hardness,
                                                                   minimum=0.0, maximum=10.0, unit="s"))
        check_range("profile", self.profile, "a SlowdownProfile", isinstance(self.profile, SlowdownProfile))


@cache
def _template(settings: StrikeSettings, step: int) -> ContactMotion:
    """The punch aimed ``step * AIM_STEP`` degrees up on the player's CesiumMan, never played: each strike plays
    its own copy (:meth:`Strike.motion`)."""
    skeleton = character_rig().skeleton
    clip = punch_clip(skeleton, list(RIGHT_ARM), HIPS, CHEST, FORWARD, UP, duration=settings.duration,
                      aim_degrees=step * AIM_STEP, keys=13)
    fist = PartShape((0.0, 0.0, 0.0), (0.0, 0.0, 0.0), settings.fist_radius)
    return ContactMotion(skeleton, clip, list(RIGHT_ARM), HIPS, fist, profile=settings.profile, hold_part=True)


def upper_body(motion: ContactMotion) -> np.ndarray:
    """The joints a player's tool motion poses over its walk: the body's above the hips, the arm's chain and the
    hand (the wrist and the joints below it)."""
    parents = motion.skeleton.parents
    hand = [motion.wrist]
    for joint in range(motion.wrist + 1, len(parents)):
        if parents[joint] in hand:
            hand.append(joint)
    return np.array(sorted(set(motion.body[1:] + motion.chain + tuple(hand))), dtype=np.int64)


def warm(settings: StrikeSettings) -> None:
    """Make the punch of every aim for ``settings`` now (some 30 ms each), so that no frame waits for one."""
    for step in range(-AIM_STEPS, AIM_STEPS + 1):
        _template(settings, step)


def placement(position: np.ndarray, yaw: float) -> np.ndarray:
    """The (4, 4) matrix standing the player's CesiumMan skeleton at ``position`` turned to ``yaw`` (its pose's)."""
    return model_to_world(position, yaw) @ character_rig().root_transform


def _aim_step(aim: np.ndarray) -> int:
    pitch = math.degrees(math.asin(max(-1.0, min(1.0, float(aim[1])))))
    return max(-AIM_STEPS, min(AIM_STEPS, int(round(pitch / AIM_STEP))))


class Strike:
    """One player's punch or pull-out in play (see the module).

    Attributes
    ----------
    action : str
        ``"punch"``, ``"pull_out"``, or ``""`` between strikes.
    eye, aim : (3,) float64 or None
        Where the player looked from and along at the press (the edit is made from them).
    material : str
        What the aim met ("" for the air); ``hardness`` its hardness, ``gives_way`` whether the tool breaks it at
        once.
    struck : bool
        The fist has crossed the aimed surface (the edit is made); ``held``: s the fist has been held since.
    queued : str
        A press made while this strike plays (``"punch"``, ``"pull_out"`` or ``""``).
    motion : ContactMotion or None
        The motion playing (its ``pose``, ``rates``, ``contact``).
    """

    STATE_ATTRIBUTES = ("action", "eye", "aim", "target", "across", "material", "hardness", "gives_way", "struck",
                        "held", "queued", "aim_step")
    STATE_CHECKS = {"action": text(ACTIONS), "eye": optional(array((3,))), "aim": optional(array((3,))),
                    "target": optional(array((3,))), "across": optional(array((3,))), "material": text(), "hardness": number(minimum=0.0),
                    "gives_way": flag, "struck": flag, "held": seconds(), "queued": text(ACTIONS),
                    "aim_step": whole(-AIM_STEPS, AIM_STEPS)}

    def __init__(self, settings: StrikeSettings = StrikeSettings()) -> None:
        check_range("settings", settings, "a StrikeSettings", isinstance(settings, StrikeSettings))
        self.settings = settings
        self.action, self.material, self.queued = "", "", ""
        self.eye: np.ndarray | None = None
        self.aim: np.ndarray | None = None
        # The struck plane: its point and the direction across it, in the skeleton's frame as the player stands.
        self.target: np.ndarray | None = None
        self.across: np.ndarray | None = None
        self.hardness, self.held = 0.0, 0.0
        self.gives_way = self.struck = False
        self.aim_step = 0
        self._motions: dict[int, ContactMotion] = {}  # this strike's own motion per aim step, made as needed

    @property
    def motion(self) -> ContactMotion | None:
        """The motion playing (None between strikes)."""
        return self._aimed(self.aim_step) if self.action else None

    def _aimed(self, step: int) -> ContactMotion:
        """This strike's motion aimed ``step`` steps up: a copy of the shared template with state of its own."""
        if step not in self._motions:
            motion = copy.copy(_template(self.settings, step))
            motion.reset()  # every state array its own (the template's are never changed)
            self._motions[step] = motion
        return self._motions[step]

    @property
    def busy(self) -> bool:
        return bool(self.action)

    # ------------------------------------------------------------------------------------------- state
    def state_dict(self) -> dict:
        """The strike's state: its ``STATE_ATTRIBUTES`` and, while one plays, ``"motion"``: the motion's."""
        state: dict[str, Any] = {name: getattr(self, name) for name in self.STATE_ATTRIBUTES}
        motion = self.motion
        state["motion"] = None if motion is None else motion.state_dict()
        return state

    def load_state_dict(self, state: Mapping[str, Any], name: str = "state") -> None:
        """Take back a :meth:`state_dict`; ParameterError naming the key, before anything changes, for a missing
        key or a value out of range."""
        if not isinstance(state, Mapping) or "motion" not in state:
            raise ParameterError(name, type(state).__name__, "a strike's state: a mapping with a motion")
        fresh = Strike(self.settings)
        restore_attributes(fresh, {k: v for k, v in state.items() if k != "motion"}, self.STATE_ATTRIBUTES,
                           checks=self.STATE_CHECKS)
        playing, motion_state = bool(fresh.action), state["motion"]
        if playing != (motion_state is not None):
            raise ParameterError(f"{name}['motion']", "None" if motion_state is None else "a motion",
                                 "a motion's state while a strike plays, None between strikes")
        if playing and (fresh.eye is None or fresh.aim is None):
            raise ParameterError(f"{name}['eye']", None, "the eye and aim of the press while a strike plays")
        if playing:
            fresh._aimed(fresh.aim_step).load_state_dict(motion_state)  # checked first: a refusal changes nothing
        for key in self.STATE_ATTRIBUTES:
            setattr(self, key, getattr(fresh, key))
        self._motions = fresh._motions

    # ------------------------------------------------------------------------------------------- playing
    def start(self, action: str, eye: np.ndarray, aim: np.ndarray, hit: np.ndarray | None, material: str,
              hardness: float, gives_way: bool, position: np.ndarray, yaw: float) -> None:
        """Start ``action`` aimed from ``eye`` along the unit ``aim`` at ``hit`` (the point the aim meets, or None:
        the air) of ``material``; the player stands at ``position`` turned to ``yaw``."""
        self.action, self.eye, self.aim = action, np.array(eye, dtype=np.float64), np.array(aim, dtype=np.float64)
        self.material, self.hardness, self.gives_way = material, float(hardness), bool(gives_way)
        self.struck, self.held, self.aim_step = False, 0.0, _aim_step(self.aim)
        motion = self._aimed(self.aim_step)
        place = placement(position, yaw)
        motion.place(place)
        motion.reset()
        self.target = self.across = None
        if hit is not None:
            world = motion.world
            shoulder, elbow, wrist = (world[j, :3, 3] for j in (motion.shoulder, motion.elbow, motion.wrist))
            arm = float(np.linalg.norm(wrist - elbow) + np.linalg.norm(elbow - shoulder))
            near = float(np.linalg.norm(np.asarray(hit, dtype=np.float64) - shoulder))
            point = shoulder + self.aim * min(near, STRIKE_REACH * arm)
            self.target = (np.linalg.inv(place) @ np.append(point, 1.0))[:3]
            self.across = _turn(place).T @ self.aim

    def step(self, dt: float, position: np.ndarray, yaw: float) -> bool:
        """Play one frame where the player stands now; True on the frame the fist strikes (the contact frame).
        The strike ends (``action`` "") once every clock has reached the clip's end."""
        motion = self.motion
        if motion is None:
            return False
        place = placement(position, yaw)
        motion.place(place)
        struck_before, held = self.struck, self.held
        let_go = self.gives_way or held >= self.settings.hold_per_hardness * self.hardness
        contact: Contact | None = None
        if self.target is not None and self.across is not None:
            plane = (place @ np.append(self.target, 1.0))[:3]
            direction = _turn(place) @ self.across
            contact = Contact(tuple(plane.tolist()), tuple((-direction).tolist()), self.material, self.hardness,
                              area=FIST_AREA)

        def query(start: np.ndarray, end: np.ndarray, radius: float) -> Contact | None:
            if contact is None or (struck_before and let_go):
                return None
            if struck_before or float(np.dot(end - plane, direction)) + radius >= 0.0:
                return contact
            return None

        motion.step(dt, query)
        if motion.contact is not None:
            self.held = held + dt if struck_before else 0.0
            self.struck = True
        if float(np.min(motion.clocks)) >= motion.clip.duration:
            self.action, self.target, self.across, self.eye, self.aim = "", None, None, None, None
        return self.struck and not struck_before

    def layer(self) -> tuple[np.ndarray, np.ndarray, float] | None:
        """What the strike puts over the player's walk or idle pose: ``(joints, rotations, weight)``, the joints it
        moves above the hips (waist, chest, the arm and the hand), their local rotations (x, y, z, w) and the
        weight to blend them in with (easing in over ``EASE_IN`` s of the body's clock and out over the last
        ``EASE_OUT`` s); None between strikes."""
        return motion_layer(self.motion)


def motion_layer(motion: ContactMotion | None) -> tuple[np.ndarray, np.ndarray, float] | None:
    """A player's tool motion as a layer over its walk or idle pose (:meth:`Strike.layer`), None for no motion."""
    if motion is None:
        return None
    joints = upper_body(motion)
    clock, duration = float(motion.clocks[motion.root]), motion.clip.duration
    weight = max(0.0, min(1.0, clock / EASE_IN, (duration - clock) / EASE_OUT))
    return joints, motion.pose.rotation[joints], weight


def _turn(place: np.ndarray) -> np.ndarray:
    """The rotation of a placement (its columns normalised)."""
    linear = place[:3, :3]
    return linear / np.linalg.norm(linear, axis=0)
