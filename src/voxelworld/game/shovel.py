"""The player's shovel: the shovel digger's dig (:mod:`voxelworld.game.digger`) as the player's own tool.

While the player holds dig (X on the page) and neither a punch nor a pull-out plays, the player digs: one dig
(:func:`~voxelworld.motion.dig_clip`, 1.6 s at full speed) after another, played by a
:class:`~voxelworld.motion.ContactMotion` on the player's CesiumMan where it stands and turned as it turns, the
shovel along its right forearm. Its blade meets the ground in front of the player's feet
(:class:`~voxelworld.game.terrain_contacts.TerrainContacts`: the collision mesh and the voxel behind it), and every
contact frame removes a capsule along the blade through the shovel's tool (``ShovelSettings.tool``), queued for
the next update stages: soil gives way at once, rock wears down, iron never does. What the blade meets slows the
dig as it slows the digger: the body to a tenth, the arm by the material's hardness and the blade's roll; the
ground holds the blade for ``HOLD_PER_HARDNESS`` seconds per hardness unit of the hardest material it met in the
dig (soil 0.3 s, rock 1 s), then the blade is through and the dig plays out at full speed (a dig into soil takes
about 2 s, into rock about 4 s: tests/game/test_shovel.py).

Each contact's removal is booked as the punch's is (``ActionOutcome`` of kind ``dig``, the treasure and award
counters); a dig ends with ``ActionEnded`` (``done`` when its blade met the ground, else a refusal: no ground in
front of the feet).
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Mapping
from functools import cache
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from ..attribute_state import count, flag, number, restore_attributes, seconds
from ..errors import ParameterError, check_point, check_range
from ..motion import Contact, ContactMotion
from ..terrain import Capsule, EditResult
from .actions import ActionEvent, ActionResult, removal_totals
from .checks import check_finish, point_tuple
from .digger import ShovelSettings, shovel_motion
from .edits import EditRecipe, VoxelEdit
from .strike import motion_layer, placement

__all__ = ["PlayerShovel", "shovel_edit", "HOLD_PER_HARDNESS"]

HOLD_PER_HARDNESS = 0.2  # s per hardness unit: how long the ground holds the blade in one dig before it is through


@cache
def _template(settings: ShovelSettings) -> ContactMotion:
    """The dig on the player's CesiumMan (its own size), played once; never played itself: each shovel plays its
    own copy."""
    return shovel_motion(settings, 1.0, loop=False)


def shovel_edit(eye: ArrayLike, start: ArrayLike, end: ArrayLike, material: str, settings: ShovelSettings,
                finish: Callable[[ActionResult], object]) -> VoxelEdit:
    """The ``remove`` edit of a contact frame of the player's shovel: a capsule of ``settings.cut_radius`` from
    ``start`` to ``end`` (the blade, m) through the shovel's tool, the blade touching ``material``, the player
    looking from ``eye`` (m). Once applied, ``finish`` gets its :class:`~voxelworld.game.actions.ActionResult`
    (an ``ActionEvent`` of kind ``dig`` at the blade's end when it removed something). Its recipe is ``shovel``
    with the eye, the blade and the material (a loaded world's queued edit is made again with it)."""
    eye, start, end = (check_point(name, value) for name, value in (("eye", eye), ("start", start), ("end", end)))
    check_range("material", material, "a material name", isinstance(material, str) and bool(material))
    check_range("settings", settings, "a ShovelSettings", isinstance(settings, ShovelSettings))
    check_finish(finish)
    towards = np.asarray(end) - np.asarray(eye)
    length = float(np.linalg.norm(towards))
    aim = point_tuple(towards / length) if length > 1e-9 else (0.0, -1.0, 0.0)

    def finished(edit: EditResult) -> None:
        total, by_material, by_group = removal_totals([edit])
        events = (ActionEvent("dig", end, material, total),) if total > 0 else ()
        finish(ActionResult(True, end, None, aim, (edit,), total, by_material, by_group, edit.most_removed_material,
                            (), None, events, material))

    return VoxelEdit("remove", Capsule(start, end, settings.cut_radius), tool=settings.tool, source="shovel",
                     on_applied=finished, recipe=EditRecipe("shovel", (("eye", eye), ("start", start), ("end", end),
                                                                      ("material", material))))


class PlayerShovel:
    """The player's dig in play (see the module).

    Attributes
    ----------
    digging : bool
        A dig plays.
    contacts : int
        Contact frames of the dig playing (its edits).
    motion : ContactMotion or None
        The dig playing (its ``pose``, ``rates``, ``contact``, ``part_segment``).
    """

    STATE_ATTRIBUTES = ("digging", "contacts", "held", "hardness")
    STATE_CHECKS = {"digging": flag, "contacts": count(), "held": seconds(), "hardness": number(minimum=0.0)}

    def __init__(self, settings: ShovelSettings = ShovelSettings()) -> None:
        if not isinstance(settings, ShovelSettings):
            raise ParameterError("settings", type(settings).__name__, "a ShovelSettings")
        self.settings = settings
        self.digging, self.contacts = False, 0
        self.held, self.hardness = 0.0, 0.0  # s the blade has been held in this dig; the hardest it met
        self._motion: ContactMotion | None = None

    @property
    def busy(self) -> bool:
        return self.digging

    @property
    def motion(self) -> ContactMotion | None:
        """The dig playing (None between digs)."""
        return self._own() if self.digging else None

    def _own(self) -> ContactMotion:
        if self._motion is None:
            self._motion = copy.copy(_template(self.settings))
            self._motion.reset()  # every state array its own (the template's are never changed)
        return self._motion

    def state_dict(self) -> dict:
        """The shovel's state: ``digging``, ``contacts`` and, while a dig plays, ``"motion"``: the motion's."""
        state: dict[str, Any] = {key: getattr(self, key) for key in self.STATE_ATTRIBUTES}
        state["motion"] = self._own().state_dict() if self.digging else None
        return state

    def load_state_dict(self, state: Mapping[str, Any], name: str = "state") -> None:
        """Take back a :meth:`state_dict`; ParameterError naming the key, before anything changes."""
        if not isinstance(state, Mapping) or "motion" not in state:
            raise ParameterError(name, type(state).__name__, "a shovel's state: a mapping with a motion")
        fresh = PlayerShovel(self.settings)
        restore_attributes(fresh, {k: v for k, v in state.items() if k != "motion"}, self.STATE_ATTRIBUTES,
                           checks=self.STATE_CHECKS)
        if fresh.digging != (state["motion"] is not None):
            raise ParameterError(f"{name}['motion']", "None" if state["motion"] is None else "a motion",
                                 "a motion's state while a dig plays, None between digs")
        if fresh.digging:
            fresh._own().load_state_dict(state["motion"])
        for key in self.STATE_ATTRIBUTES:
            setattr(self, key, getattr(fresh, key))
        self._motion = fresh._motion

    def start(self, position: np.ndarray, yaw: float) -> None:
        """Start a dig where the player stands (``position``, turned to ``yaw``)."""
        motion = self._own()
        motion.place(placement(position, yaw))
        motion.reset()
        self.digging, self.contacts, self.held, self.hardness = True, 0, 0.0, 0.0

    def step(self, dt: float, position: np.ndarray, yaw: float, query: Callable) -> bool:
        """Play one frame where the player stands now, the blade's contacts answered by ``query`` (a
        :class:`~voxelworld.game.terrain_contacts.TerrainContacts`, refreshed by the caller); True when the blade
        touches the ground this frame. The dig ends (``digging`` False) once every clock has reached its end."""
        motion = self.motion
        if motion is None:
            return False
        motion.place(placement(position, yaw))
        cut_through = self.held >= HOLD_PER_HARDNESS * self.hardness and self.contacts > 0

        def blade(start: np.ndarray, end: np.ndarray, radius: float) -> Contact | None:
            return None if cut_through else query(start, end, radius)

        motion.step(dt, blade)
        contact = motion.contact
        touching = contact is not None
        if contact is not None:
            self.held += dt if self.contacts else 0.0
            self.hardness = max(self.hardness, contact.hardness)
        self.contacts += int(touching)
        if float(np.min(motion.clocks)) >= motion.clip.duration:
            self.digging = False
        return touching

    def shoulder(self) -> np.ndarray:
        """Where the shovel's shoulder is (m): the centre of the ground its blade can reach."""
        motion = self._own()
        return motion.world[motion.shoulder, :3, 3]

    def blade(self) -> tuple[tuple[tuple[float, float, float], tuple[float, float, float]] | None, str | None]:
        """The shovel's blade (its axis: two points, m) and the material it touches, for the player's pose
        (``CharacterPose.blade`` and ``contact``); ``(None, None)`` between digs."""
        motion = self.motion
        if motion is None:
            return None, None
        start, end = (point_tuple(point) for point in motion.part_segment)
        return (start, end), (None if motion.contact is None else motion.contact.material)

    def layer(self) -> tuple[np.ndarray, np.ndarray, float] | None:
        """What the dig puts over the player's walk or idle pose (as :meth:`Strike.layer`), None between digs."""
        return motion_layer(self.motion)
