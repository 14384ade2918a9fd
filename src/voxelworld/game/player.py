"""The player: a capsule walking on the collision mesh, with gravity, slopes, steps, stamina and footsteps.

The capsule stands on its *feet* point (the bottom of the capsule). Ground is found by rays cast down from
``step_height`` above the feet at five points of the footprint, so a ledge up to ``step_height`` is stepped
onto, ground up to ``snap_distance`` below is followed, and a fall of any speed meets the surface it crosses
(the rays reach as far as the frame's fall). The body above ``step_height`` is a capsule overlap test that
pushes the player out of walls horizontally. Rising in a jump with the feet below a ledge's top ahead, the player
is held back until they clear it, so that it lands on the ledge (forward + jump climbs about 1 m). Surfaces steeper than ``max_slope`` are not ground: walking into
one that rises is refused, and one underfoot is slid down.

The player does its work in three of the world's frame stages: :meth:`Player.begin_frame` (velocity from
the inputs and the effects of last frame's contacts), :meth:`Player.collide` (the swept move) and
:meth:`Player.control` (footsteps, contact and stamina events).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from ..attribute_state import (
    array,
    attribute_state,
    flag,
    instance,
    number,
    optional,
    restore_attributes,
    set_of,
    text,
)
from ..collision import Ground
from ..errors import ParameterError, check_finite, check_point, check_range
from ..terrain import MaterialTable
from .collider import Collider
from .events import ContactEnded, ContactStarted, Footstep, Jumped, Landed, StaminaChanged
from .progress import Progress
from .state_checks import MAX_SPEED, POSITION_MARGIN, check_inside, speed

__all__ = ["PlayerSettings", "Player", "OWN_NAME", "view_direction"]

OWN_NAME = "player"  # the world's own player's name (voxelworld.game.seats: the joined players have their own)

_UP = np.array([0.0, 1.0, 0.0])
_SLIDES = 3  # tries of a horizontal move, each sliding along the slope that refused the last
# The most sub-steps of a frame's move (each at most half the radius while the move is shorter than this many):
# a frame of a fall at max_fall_speed takes a few; a faster move takes longer sub-steps instead of more.
MAX_SUBSTEPS = 64
# The most footsteps of a frame (a frame's move is far shorter than this many strides): the strides beyond are
# not heard, and what is left of a stride is carried on as if they had been.
MAX_FOOTSTEPS = 4


@dataclass(frozen=True)
class PlayerSettings:
    """The player's body and abilities; every field is checked on construction (its unit in the comment; speeds
    at most :data:`~voxelworld.game.state_checks.MAX_SPEED`, 1000 m/s).

    Examples
    --------
    >>> PlayerSettings(max_slope=40.0).max_slope
    40.0
    """

    radius: float = 0.35  # m, > 0
    height: float = 1.8  # m, feet to top, >= 2 * radius + step_height
    eye_height: float = 1.6  # m above the feet, in (0, height]
    walk_speed: float = 4.0  # m/s, >= 0
    traction: float = 200.0  # 1/s, >= 0: on ground of slipperiness s the horizontal velocity follows the stick at
    # traction * (1 - s) per second (at once when that reaches 1 / dt: at 60 frames a second, up to s = 0.7)
    sprint_speed: float = 7.0  # m/s, >= walk_speed
    air_control: float = 2.0  # 1/s, >= 0: how fast the horizontal velocity follows the stick in the air
    jump_speed: float = 5.0  # m/s upwards, >= 0
    gravity: float = 9.81  # m/s², >= 0
    max_fall_speed: float = 50.0  # m/s, > 0
    max_slope: float = 45.0  # degrees in [0, 89]: steeper surfaces are not ground
    step_height: float = 0.45  # m, >= 0: ledges up to this are stepped onto
    snap_distance: float = 0.3  # m, >= 0: ground this far below is followed while walking
    stride: float = 0.8  # m, > 0: horizontal distance between footsteps
    stamina_max: float = 100.0  # stamina units, > 0
    sprint_drain: float = 10.0  # stamina per second while sprinting, >= 0
    regeneration: float = 5.0  # stamina per second while nothing drains it, >= 0
    stamina_event_step: float = 5.0  # stamina units, > 0: a StaminaChanged event each time a multiple is crossed
    contact_skin: float = 0.05  # m, >= 0: how near a triangle counts as touching

    def __post_init__(self) -> None:
        for name, minimum, strict in (("radius", 0.0, True), ("walk_speed", 0.0, False), ("air_control", 0.0, False),
                                      ("jump_speed", 0.0, False), ("gravity", 0.0, False), ("traction", 0.0, False),
                                      ("max_fall_speed", 0.0, True), ("step_height", 0.0, False),
                                      ("snap_distance", 0.0, False), ("stride", 0.0, True),
                                      ("stamina_max", 0.0, True), ("sprint_drain", 0.0, False),
                                      ("regeneration", 0.0, False), ("stamina_event_step", 0.0, True),
                                      ("contact_skin", 0.0, False)):
            unit = "" if name.startswith("stamina") else "m"
            fast = name in ("walk_speed", "jump_speed", "max_fall_speed")  # a state's velocity stays within MAX_SPEED
            object.__setattr__(self, name, check_finite(name, getattr(self, name), minimum=minimum,
                                                        maximum=MAX_SPEED if fast else None, strict_minimum=strict,
                                                        unit="m/s" if fast else unit))
        object.__setattr__(self, "sprint_speed", check_finite("sprint_speed", self.sprint_speed,
                                                              minimum=self.walk_speed, maximum=MAX_SPEED, unit="m/s"))
        object.__setattr__(self, "max_slope", check_finite("max_slope", self.max_slope, minimum=0.0, maximum=89.0,
                                                           unit="degrees"))
        lowest = 2 * self.radius + self.step_height
        object.__setattr__(self, "height", check_finite("height", self.height, minimum=lowest, unit="m"))
        object.__setattr__(self, "eye_height", check_finite("eye_height", self.eye_height, minimum=0.0,
                                                            maximum=self.height, strict_minimum=True, unit="m"))


def view_direction(yaw: float, pitch: float) -> np.ndarray:
    """Unit view direction for ``yaw`` and ``pitch`` in degrees: yaw 0 looks along -z, yaw 90 along -x
    (counter-clockwise seen from above), pitch > 0 looks up.

    >>> (view_direction(0.0, 0.0).round(6) + 0.0).tolist(), (view_direction(270.0, 0.0).round(6) + 0.0).tolist()
    ([0.0, 0.0, -1.0], [1.0, 0.0, 0.0])
    """
    y, p = math.radians(yaw), math.radians(pitch)
    return np.array([-math.sin(y) * math.cos(p), math.sin(p), -math.cos(y) * math.cos(p)])


def _check_state(player: Player, name: str, state: Mapping[str, Any]) -> None:
    """What ties a player's state (its values each checked before) to the player: the materials it names (what it
    touches and stands on) are names of its table; its amounts lie within what its settings allow; its feet lie
    within the world's box and a margin (:mod:`.state_checks`)."""
    for key in ("touching", "new_touching", "ground_material"):
        value = state.get(key)  # each a string, None or a frozenset of strings
        for material in [value] if isinstance(value, str) else value or ():
            check_range(f"{name}[{key!r}]", material, "names of materials of the table", material in player.materials)
    s = player.settings
    for key, maximum, unit in (("stamina", s.stamina_max, ""), ("reported_stamina", s.stamina_max, ""),
                               ("stride_left", s.stride, "m"), ("fall_speed", s.max_fall_speed, "m/s")):
        check_finite(f"{name}[{key!r}]", state[key], maximum=maximum, unit=unit)
    if player.bounds is not None:
        check_inside(f"{name}['position']", state["position"], player.bounds)
        size = float(np.hypot(*(player.bounds[1] - player.bounds[0] + 2 * POSITION_MARGIN)[[0, 2]]))
        check_finite(f"{name}['moved']", state["moved"], maximum=size, unit="m")  # a frame's walk: in that box


class Player:
    """The player's state: feet ``position`` (m), ``velocity`` (m/s), view ``yaw`` / ``pitch`` (degrees),
    ``grounded``, ``ground_material``, ``stamina``, ``currency`` (what opened treasures paid, currency units, from
    0; the shop's upgrades cost it), ``progress`` (the upgrades bought and the goals reached,
    :class:`~voxelworld.game.progress.Progress`) and the materials it ``touching``.

    Parameters
    ----------
    position : (3,) float
        Feet position in metres.
    yaw : float
        View yaw in degrees (see :func:`view_direction`).
    settings : PlayerSettings
    materials : MaterialTable
        Names and contact damage of the materials the collision triangles carry.
    name : str
        The player's name in its world (``"player"``, :data:`OWN_NAME`, for the world's own; a joined player's is
        its seat's): the events of its part of a frame carry it.
    """

    # What the player keeps from frame to frame (:meth:`state_dict`); the other attributes are its settings and
    # what its constructor and its world give it again.
    STATE_ATTRIBUTES = ("position", "velocity", "yaw", "pitch", "grounded", "ground_material", "stamina",
                        "sprinting", "touching", "_stride_left", "_reported_stamina", "_cause", "_moved",
                        "_fall_speed", "_new_touching", "currency", "progress")
    # Saved since currency, then the upgrades and goals (progress) were added: a file from before leaves currency
    # at 0 and the progress empty.
    STATE_ADDED = ("currency", "progress")
    # How each value taken back is checked (voxelworld.attribute_state), as the constructor checks what it is given.
    # Ranges: position within the world's box grown by POSITION_MARGIN; velocity within ±MAX_SPEED on each axis;
    # stamina and reported_stamina in [0, stamina_max]; stride_left in (0, stride]; moved in [0, the grown
    # box's diagonal]; fall_speed in [0, max_fall_speed]; currency >= 0 (voxelworld.game.state_checks); progress a
    # Progress (its constructor checks the upgrades' names and levels, voxelworld.game.progress).
    STATE_CHECKS: dict[str, Callable[..., None]] = {
        "position": array((3,)), "velocity": speed(), "yaw": number(0.0, 360.0, "degrees"),
        "pitch": number(-89.0, 89.0, "degrees"), "grounded": flag, "ground_material": optional(text()),
        "stamina": number(minimum=0.0), "sprinting": flag, "touching": set_of(text()),
        "stride_left": number(minimum=0.0, strict_minimum=True, unit="m"),
        "reported_stamina": number(minimum=0.0), "cause": text(), "moved": number(minimum=0.0, unit="m"),
        "fall_speed": number(minimum=0.0, unit="m/s"), "new_touching": set_of(text()),
        "currency": number(minimum=0.0), "progress": instance(Progress), "*": _check_state}
    OTHER_ATTRIBUTES = ("settings", "materials", "_contact_damage", "bounds", "name")

    def __init__(self, position: ArrayLike, yaw: float, settings: PlayerSettings, materials: MaterialTable,
                 name: str = OWN_NAME) -> None:
        if not isinstance(settings, PlayerSettings):
            raise ParameterError("settings", settings, "a PlayerSettings")
        check_range("name", name, "a string", isinstance(name, str))
        self.name = name
        self.settings = settings
        self.materials = materials
        self.position = np.array(check_point("position", position))
        self.velocity = np.zeros(3)
        self.yaw = check_finite("yaw", yaw, unit="degrees") % 360.0
        self.pitch = 0.0
        self.grounded = False
        self.ground_material: str | None = None
        self.stamina = settings.stamina_max
        self.currency = 0.0
        self.progress = Progress()
        self.sprinting = False
        self.touching: frozenset[str] = frozenset()
        self._contact_damage = np.array([materials[m].contact_damage if m in materials else 0.0
                                         for m in materials.name_by_id], dtype=np.float64)
        self._stride_left = settings.stride
        self._reported_stamina = self.stamina
        self._cause = "rest"
        self._moved = 0.0
        self._fall_speed = 0.0
        self._new_touching: frozenset[str] = frozenset()
        self.bounds: tuple[np.ndarray, np.ndarray] | None = None  # the world's box (m): the player stays inside

    # ------------------------------------------------------------------------------------------ state
    def state_dict(self) -> dict:
        """What the player keeps from frame to frame (``STATE_ATTRIBUTES``; a private attribute's key has no
        leading underscore), the values themselves (:mod:`voxelworld.attribute_state`)."""
        return attribute_state(self, self.STATE_ATTRIBUTES)

    def load_state_dict(self, state: Mapping[str, Any]) -> None:
        """Take back a :meth:`state_dict`; ParameterError, before anything changes, for a missing key or a value
        out of its range (``STATE_CHECKS``; the ranges: docs/specs/world-format.md)."""
        restore_attributes(self, state, self.STATE_ATTRIBUTES, self.STATE_ADDED, self.STATE_CHECKS)

    # ------------------------------------------------------------------------------------------ views
    @property
    def eye(self) -> np.ndarray:
        """The eye point (m): ``eye_height`` above the feet."""
        return self.position + _UP * self.settings.eye_height

    @property
    def aim(self) -> np.ndarray:
        """The unit camera direction."""
        return view_direction(self.yaw, self.pitch)

    def add_currency(self, change: float) -> None:
        """Change the currency by ``change`` (currency units; treasures pay it); it never falls below 0."""
        self.currency = max(self.currency + float(check_finite("change", change, unit="currency")), 0.0)

    def add_stamina(self, change: float, cause: str) -> None:
        """Change stamina by ``change`` (clamped to 0 .. max); actions use it for rewards and costs."""
        self.stamina = min(max(self.stamina + float(change), 0.0), self.settings.stamina_max)
        self._cause = cause

    # ------------------------------------------------------------------------------------ frame stages
    def begin_frame(self, move: Sequence[float], sprint: bool, jump: bool, dt: float, emit: Callable) -> None:
        """Velocity from the stick (``move``: right, forward in [-1, 1]), sprint and jump, gravity, and the
        effects of last frame's contacts (contact damage drains stamina)."""
        s = self.settings
        y = math.radians(self.yaw)
        forward = np.array([-math.sin(y), 0.0, -math.cos(y)])
        right = np.array([math.cos(y), 0.0, -math.sin(y)])
        stick = right * move[0] + forward * move[1]
        length = float(np.hypot(stick[0], stick[2]))
        if length > 1.0:
            stick /= length
        self.sprinting = bool(sprint) and length > 0 and self.stamina > 0 and self.grounded
        desired = stick * (s.sprint_speed if self.sprinting else s.walk_speed)
        if self.grounded:  # the ground's grip: slippery ground (ice) lets the player slide
            ground = self.ground_material
            slipperiness = self.materials[ground].slipperiness if ground is not None and ground in self.materials \
                else 0.0
            blend = min(1.0, s.traction * (1.0 - slipperiness) * dt)
        else:
            blend = min(1.0, s.air_control * dt)
        if blend >= 1.0:
            self.velocity[0], self.velocity[2] = desired[0], desired[2]
        else:
            self.velocity[0] += (desired[0] - self.velocity[0]) * blend
            self.velocity[2] += (desired[2] - self.velocity[2]) * blend
        if jump and self.grounded:
            self.velocity[1] = s.jump_speed
            self.grounded = False
            emit(Jumped, material=self.ground_material or "none")
        if not self.grounded:
            self.velocity[1] = max(self.velocity[1] - s.gravity * dt, -s.max_fall_speed)
        damage = max((float(self._contact_damage[self.materials.id_of(m)]) for m in self.touching), default=0.0)
        drain = damage + (s.sprint_drain if self.sprinting else 0.0)
        if drain > 0:
            worst = max(sorted(self.touching), key=lambda m: self._contact_damage[self.materials.id_of(m)],
                        default=None)
            self.add_stamina(-drain * dt, f"contact:{worst}" if damage > 0 else "sprint")
        elif self.stamina < s.stamina_max:
            self.add_stamina(s.regeneration * dt, "rest")

    def collide(self, collider: Collider, dt: float, emit: Callable) -> None:
        """Move by ``velocity * dt`` against ``collider`` (see :class:`~voxelworld.game.world.Collider`) in
        sub-steps of at most half the radius, so nothing is tunnelled through (at most ``MAX_SUBSTEPS``: a move
        longer than that many half radii takes longer sub-steps); then record what it touches."""
        s = self.settings
        start = self.position.copy()
        was_grounded = self.grounded
        self._fall_speed = max(self._fall_speed, -self.velocity[1])
        displacement = self.velocity * dt
        steps = max(1, math.ceil(min(float(np.linalg.norm(displacement)) / (0.5 * s.radius), MAX_SUBSTEPS)))
        for _ in range(steps):
            self._move_horizontally(collider, displacement / steps)
            self._move_vertically(collider, displacement[1] / steps, dt / steps, emit)
        self._push_out_of_walls(collider)
        self._keep_inside(was_grounded, emit)
        if was_grounded or self.grounded:
            self._moved = float(np.hypot(*(self.position - start)[[0, 2]]))
        else:
            self._moved = 0.0
        a, b = self._axis(0.0)
        contacts = collider.overlap_capsule(a, b, s.radius + s.contact_skin)
        touching = {collider.material_name(int(m)) for m in contacts.material}
        if self.grounded and self.ground_material is not None:
            touching.add(self.ground_material)
        touching.discard("none")
        self._new_touching = frozenset(touching)

    def control(self, emit: Callable) -> None:
        """After the move: footsteps every stride on the ground (at most ``MAX_FOOTSTEPS`` a frame), contact
        start/end and stamina events."""
        s = self.settings
        if self.grounded and self._moved > 0:
            self._stride_left -= self._moved
            for _ in range(MAX_FOOTSTEPS):
                if self._stride_left > 0:
                    break
                self._stride_left += s.stride
                ground = self.ground_material or "none"
                emit(Footstep, material=ground, position=tuple(float(v) for v in self.position),
                     sound=self.materials[ground].footstep if ground in self.materials else "")
            if self._stride_left <= 0:  # more strides than MAX_FOOTSTEPS in a frame: the rest are not heard
                self._stride_left = s.stride - (-self._stride_left) % s.stride
        for material in sorted(self.touching - self._new_touching):
            emit(ContactEnded, material=material)
        for material in sorted(self._new_touching - self.touching):
            emit(ContactStarted, material=material)
        self.touching = self._new_touching
        step = s.stamina_event_step
        if math.floor(self.stamina / step) != math.floor(self._reported_stamina / step):
            emit(StaminaChanged, stamina=self.stamina, change=self.stamina - self._reported_stamina, cause=self._cause)
            self._reported_stamina = self.stamina

    # ------------------------------------------------------------------------------------------ moving
    def _axis(self, lift: float) -> tuple[np.ndarray, np.ndarray]:
        """The capsule axis ends from ``lift`` metres above the feet to the top, inset by the radius."""
        r = self.settings.radius
        return self.position + _UP * (lift + r), self.position + _UP * (self.settings.height - r)

    def _probe(self, collider: Collider, x: float, z: float, top: float, bottom: float) -> Ground | None:
        """The highest surface under the footprint at (x, z) between heights ``top`` and ``bottom`` (m): its
        centre and four points 0.6 radius away (:meth:`Collider.ground_under`), or None."""
        return collider.ground_under(x, z, 0.6 * self.settings.radius, top, bottom)

    def _walkable(self, normal_y: float) -> bool:
        return normal_y >= math.cos(math.radians(self.settings.max_slope)) - 1e-9

    def _move_horizontally(self, collider: Collider, displacement: np.ndarray) -> None:
        """Move by the horizontal part of ``displacement``; a slope too steep to climb rising under the front of
        the footprint takes away the part of the move (and of the velocity) going into it, and the rest is tried
        again (up to ``_SLIDES`` times), so the player slides along obstacles instead of sticking to them."""
        s = self.settings
        dx, dz = float(displacement[0]), float(displacement[2])
        for _ in range(_SLIDES):
            length = math.hypot(dx, dz)
            if length < 1e-9:
                return
            feet = float(self.position[1])
            x, z = float(self.position[0]) + dx, float(self.position[2]) + dz
            reach = s.snap_distance if self.grounded else 0.05
            found = self._probe(collider, x, z, feet + s.step_height + 0.05, feet - reach)
            if found is None or found[0] <= feet + 0.02:
                break
            ux, uz = dx / length, dz / length
            if self._walkable(found[1][1]):
                if not self._rising_into_ledge(collider, found[0], length):
                    break
                nx, nz, size = -ux, -uz, 1.0  # the ledge's top, above the rising feet: a wall until they clear it
            else:
                # A steep surface rises under the front of the footprint: a step if walkable ground lies just
                # beyond it within step height, else a slope too steep to climb.
                ahead = self._probe(collider, x + ux * s.radius, z + uz * s.radius, feet + s.step_height + 0.05,
                                    feet + 0.02)
                if ahead is not None and self._walkable(ahead[1][1]) \
                        and not self._rising_into_ledge(collider, ahead[0], length + s.radius):
                    break
                # The slope's horizontal normal (facing the player); its part of the move and of the velocity goes.
                nx, nz = float(found[1][0]), float(found[1][2])
                size = math.hypot(nx, nz)
                if size < 1e-6 or (nx * ux + nz * uz) / size > -1e-6:  # no usable facing: the move is refused
                    nx, nz, size = -ux, -uz, 1.0
            nx, nz = nx / size, nz / size
            into = dx * nx + dz * nz
            dx, dz = dx - into * nx, dz - into * nz
            against = self.velocity[0] * nx + self.velocity[2] * nz
            if against < 0:
                self.velocity[0] -= against * nx
                self.velocity[2] -= against * nz
        else:
            return  # still blocked after every slide: stay
        self.position[0], self.position[2] = x, z
        self._push_out_of_walls(collider)

    def _rising_into_ledge(self, collider: Collider, top: float, length: float) -> bool:
        """Whether a walkable top at height ``top`` (m), ``length`` m ahead, is the edge of a ledge the player
        rises past in a jump: its feet are below it and it stands higher above the ground under the player than a
        slope of ``max_slope`` rises over ``length`` (a ledge, not a slope the jump runs along). Until the feet
        clear it, it stops the move like a wall (a step caught on the way down is still stood on), so forward +
        jump lands on a crate or a ledge about 1 m high instead of passing through its top and over it."""
        s = self.settings
        feet = float(self.position[1])
        if self.grounded or self.velocity[1] <= 0 or top <= feet + 0.02:
            return False
        here = self._probe(collider, float(self.position[0]), float(self.position[2]), feet + 0.05,
                           feet - s.step_height)
        ground = feet - s.step_height if here is None else here[0]
        return top - ground > length * math.tan(math.radians(s.max_slope)) + 0.02

    def _keep_inside(self, was_grounded: bool, emit: Callable) -> None:
        """The world's sides are walls and its bottom a floor (of no material): nobody walks or falls out."""
        if self.bounds is None:
            return
        lo, hi = self.bounds
        r = self.settings.radius
        for axis in (0, 2):
            inside = min(max(float(self.position[axis]), lo[axis] + r), hi[axis] - r)
            if inside != self.position[axis]:
                self.position[axis] = inside
                self.velocity[axis] = 0.0
        if self.position[1] < lo[1] or (self.position[1] == lo[1] and self.velocity[1] <= 0):
            self.position[1] = lo[1]
            self.velocity[1] = 0.0
            if not was_grounded:
                emit(Landed, material="none", speed=float(self._fall_speed))
            self.grounded, self.ground_material, self._fall_speed = True, "none", 0.0

    def _push_out_of_walls(self, collider: Collider) -> None:
        """Push the body (above step height) out of the triangles it overlaps: horizontally from walls,
        downwards from ceilings."""
        s = self.settings
        for _ in range(4):
            a, b = self._axis(s.step_height)
            moved = collider.capsule_push(a, b, s.radius)
            if moved.ceiling:
                self.velocity[1] = min(self.velocity[1], 0.0)
            push = moved.push
            if not (push[0] or push[1] or push[2]):
                return
            self.position += push + np.sign(push) * 1e-4

    def _move_vertically(self, collider: Collider, dy: float, dt: float, emit: Callable) -> None:
        s = self.settings
        feet = float(self.position[1])
        target = feet + dy
        snap = s.snap_distance if self.grounded and self.velocity[1] <= 0 else 0.0
        found = self._probe(collider, float(self.position[0]), float(self.position[2]), feet + s.step_height + 0.05,
                            min(feet, target) - snap - 0.01)
        if found is not None and self.velocity[1] <= 0 and found[0] >= target - snap - 0.01:
            height, normal, material = found
            normal_y = float(normal[1])
            self.position[1] = max(height, target) if not self._walkable(normal_y) else height
            self.ground_material = collider.material_name(material)
            if self._walkable(normal_y):
                if not self.grounded:
                    emit(Landed, material=self.ground_material, speed=float(self._fall_speed))
                self.grounded = True
                self._fall_speed = 0.0
                self.velocity[1] = 0.0
            else:
                # Too steep to stand on: slide down it, faster the steeper it is.
                self.grounded = False
                self.velocity[1] = 0.0
                size = math.hypot(normal[0], normal[2])
                if size > 1e-9:
                    push = s.gravity * (1.0 - normal_y) * dt
                    self.velocity[0] += normal[0] / size * push
                    self.velocity[2] += normal[2] / size * push
        else:
            self.position[1] = target
            if self.grounded:
                self.grounded = False
                self.ground_material = None
