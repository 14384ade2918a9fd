"""The player's actions in a world: buttons become queued voxel edits, objects and events.

:class:`PlayerActions` is what a :class:`~voxelworld.game.world.World` runs for its player (``world.actions``).
In the frame's "control" stage, after the move, it reads the buttons (a press is a button down now and up last frame):

- **throw** launches what the player holds (a readied bullet or a pulled-out piece) along the aim;
- **stance** readies a bullet (needs one, consumes it) as a ball held ahead of the eye;
- **punch** and **pull_out** aim at the collision mesh and queue a ``remove`` range; once the next frame's
  update stages apply it, punch scatters fragment objects and pull-out hands the player the piece;
- **suck** (held) queues a scrape, an interior range and a fragment erasure at the aim every frame;
- **use** picks up the loose fragment or opens the exposed treasure the player looks at within reach
  (:mod:`.use`): a fragment is then held like a pulled-out piece (throw it); a treasure pays its material's
  rewards into the player's stamina and currency (``PickedUp``, ``TreasureOpened`` events).

Then, in the "events" stage, the held object follows the view, fragments fall and come to rest, thrown objects
fly, and where one meets the terrain its impact edit is queued.

The edits' callbacks only make what a removal makes (fragments, the held piece) and keep the action's report;
the bookkeeping waits for the "deformation" stage, after the collisions (:meth:`PlayerActions.book`): suck's
gauge, update and bullet counting (:func:`~voxelworld.game.suck.suck_frame`), and the treasure and award
counters fed by punch, pull-out, suck and, with ``WorldSettings.thrown_deformation_counts``, the explosions of
thrown objects (:mod:`voxelworld.game.deformation`). Everything an action does is reported as
:class:`~voxelworld.game.events.ActionOutcome` events, bracketed by ``ActionStarted`` / ``ActionEnded``; an action
that does nothing says why in an :class:`~voxelworld.game.events.ActionBlocked` event (:mod:`.refusals`), once per
press (a held suck once per hold for each reason).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, replace
from functools import partial
from typing import TYPE_CHECKING, Any

import numpy as np
from numpy.typing import ArrayLike

from ..attribute_state import (
    attribute_state,
    flag,
    instance,
    number,
    optional,
    pair,
    restore_attributes,
    sequence,
    text,
    whole,
)
from ..collision import TriangleBVH
from ..errors import check_finite, check_integer, check_range
from ..terrain import Volume
from .actions import ActionEvent, ActionResult, PunchSettings
from .all_players import closed_treasures_of, treasure_name
from .checks import point_tuple
from .deformation import (
    AwardSettings,
    DeformationState,
    DeformationUpdate,
    Treasure,
    TreasureSettings,
    record_action,
    record_impact,
)
from .digger import ShovelSettings
from .events import ActionBlocked, ActionEnded, ActionOutcome, ActionStarted, ItemPlaced, PickedUp, TreasureOpened
from .objects import KeptByObject, ObjectTransform, WorldObject, fall_all, kept_by_object, out_of_ground
from .progress import upgraded_settings
from .refusals import Refusal, missed, not_terrain, refusal, too_hard, treasure_buried
from .shovel import PlayerShovel
from .state_checks import POSITION_MARGIN, check_inside, count, seconds, speed, world_box
from .strike import Strike, StrikeSettings
from .strike import warm as warm_strikes
from .suck import SuckSettings, SuckState, SuckUpdate, suck_edits, suck_frame
from .terrain_contacts import TerrainContacts
from .throwing import ImpactResult, ImpactRules, Projectile, ThrowSettings, fly, impact_edit, stance, throw
from .tool_motions import play_shovel, play_strike, start_strike
from .use import UseTarget, treasure_reward, use_target

if TYPE_CHECKING:
    from .edits import VoxelEdit
    from .inputs import Inputs
    from .player import Player
    from .world import World

__all__ = ["ActionSettings", "PlayerActions"]


@dataclass(frozen=True)
class ActionSettings:
    """Settings of the player's actions: ``punch`` and ``pull_out`` (:class:`PunchSettings`), ``suck`` (by
    default ranges sized for the demo world's 0.5 m voxels: a scrape of 0.75 m peeling 3 density units a
    frame, interiors within 1.25 m), ``throw`` (stance, throw and flight), ``impact`` (what thrown objects do),
    ``treasure`` and ``awards``.

    Reaches are measured from the eye (1.6 m above the feet) to where the aim meets the collision mesh: punch
    and pull-out 4 m (the ground 2 m ahead of the feet is 2.6 m from the eye, the ground seen 30 degrees down
    3.2 m: in reach), suck 6 m. Suck's pace fits its gauge: 3 density units a frame (at 60 frames a second) bore
    about 0.85 m a second into the demo world's soil and rock, so a full gauge (4 s) started on a surface up to
    2.6 m away ends within suck's 6 m (tests/game/test_feedback.py); while nothing is within reach the gauge
    waits. ``reaches()`` gives the three.

    ``fragment_lifetime``: s (> 0; 15 by default, time to pick one up) a punched fragment stays in the world;
    ``max_fragments``: loose fragments kept at most (>= 0, the oldest go first; 64 by default, some 8 punches'
    worth); ``use_reach``: m (> 0) from the eye within which use picks up a
    fragment or opens a treasure; ``use_angle``: degrees (0..90) off the aim it may lie. ``strike``: how the punch
    and pull-out move (:mod:`.strike`); ``shovel``: the player's shovel (:mod:`.shovel`; its ``height`` is the
    digger's: the player's shovel is held at the player's own size), by default a 0.75 m blade cutting 0.45 m
    around it, sized for the demo world's 0.5 m voxels."""

    punch: PunchSettings = PunchSettings(reach=4.0)
    pull_out: PunchSettings = PunchSettings(reach=4.0, radius=0.75)
    suck: SuckSettings = SuckSettings(reach=6.0, radius=0.75, step=3, material_radius=1.25, fragment_margin=0.5)
    throw: ThrowSettings = ThrowSettings()
    impact: ImpactRules = ImpactRules()
    treasure: TreasureSettings = TreasureSettings()
    awards: AwardSettings = AwardSettings()
    fragment_lifetime: float = 15.0
    max_fragments: int = 64
    strike: StrikeSettings = StrikeSettings()
    shovel: ShovelSettings = ShovelSettings(blade_end=0.75, blade_radius=0.1, cut_radius=0.45)
    use_reach: float = 2.5
    use_angle: float = 30.0

    def __post_init__(self) -> None:
        for name, kind in (("punch", PunchSettings), ("pull_out", PunchSettings), ("suck", SuckSettings),
                           ("throw", ThrowSettings), ("impact", ImpactRules), ("treasure", TreasureSettings),
                           ("awards", AwardSettings), ("strike", StrikeSettings),
                           ("shovel", ShovelSettings)):
            check_range(name, getattr(self, name), f"a {kind.__name__}", isinstance(getattr(self, name), kind))
        object.__setattr__(self, "fragment_lifetime", check_finite("fragment_lifetime", self.fragment_lifetime,
                                                                   minimum=0.0, strict_minimum=True, unit="s"))
        object.__setattr__(self, "max_fragments", check_integer("max_fragments", self.max_fragments, minimum=0))
        object.__setattr__(self, "use_reach", check_finite("use_reach", self.use_reach, minimum=0.0,
                                                           strict_minimum=True, unit="m"))
        object.__setattr__(self, "use_angle", check_finite("use_angle", self.use_angle, minimum=0.0, maximum=90.0,
                                                           unit="degrees"))

    def reaches(self) -> dict[str, float]:
        """How far from the eye (m) punch, pull-out and suck reach.

        >>> ActionSettings().reaches()
        {'punch': 4.0, 'pull_out': 4.0, 'suck': 6.0}
        """
        return {"punch": self.punch.reach, "pull_out": self.pull_out.reach, "suck": self.suck.reach}


class PlayerActions:
    """The player's punch, pull-out, suck, stance, throw and use in a world, with the objects they make.

    Attributes
    ----------
    suck : SuckState
        Gauge, update count and the bullets carried (``suck.bullets``: each bullet's material).
    deformation : DeformationState
        Removal counters, awards passed and the treasures placed.
    held : WorldObject or None
        What the player holds: a readied bullet, a pulled-out piece or a picked-up fragment.
    objects : list of WorldObject
        Loose fragments and thrown objects, oldest first.
    items : tuple of str
        Items granted so far (awards), in order.
    opened_treasures : tuple of int
        The treasures of these actions (found by their digging, or placed for the world's own player) that a
        player opened, as indices into ``deformation.treasures`` (placement order), in opening order.
    treasures_taken : int
        The treasures this player opened, whoever's they were (a treasure belongs to whoever opens it).
    """

    # What the actions keep from frame to frame (:meth:`state_dict`); the other attributes: the settings.
    STATE_ATTRIBUTES = ("suck", "deformation", "held", "objects", "items", "_made", "opened_treasures",
                        "treasures_taken")
    # Saved since treasures open (a file from before has none opened), and since they belong to whoever opens them
    # (issue #35; a file from before: its own player opened those of its own that are open).
    STATE_ADDED = ("opened_treasures", "treasures_taken")
    # Ranges (voxelworld.game.state_checks): times (held_time, objects' age and flight_time) in [0, MAX_SECONDS],
    # counters in [0, MAX_COUNT]; the treasures' positions within the world's box grown by POSITION_MARGIN, the
    # objects' by that and how far one flies before it is lost (settings.throw: 2 * speed and gravity for
    # max_flight_time), their velocities within ±MAX_SPEED; at most max_bullets bullets.
    STATE_CHECKS: dict[str, Callable[..., None]] = {
        "suck": instance(SuckState, holding=flag, gauge=number(0.0, 1.0), exhausted=flag,
                         held_time=seconds(), updates=count(), bullets=sequence(text()),
                         said=sequence(text())),
        "deformation": instance(DeformationState, since_treasure=number(minimum=0.0),
                                removed_by_group=sequence(pair(text(), number(minimum=0.0))),
                                awarded=sequence(pair(text(), count())),
                                treasures=sequence(instance(Treasure))),
        "held": optional(instance(WorldObject, age=seconds(), flight_time=seconds())),
        "objects": sequence(instance(WorldObject, age=seconds(), flight_time=seconds()), list),
        "items": sequence(text()), "made": count(), "opened_treasures": sequence(whole(0)), "treasures_taken": count(),
        "*": lambda actions, name, state: actions._check_places(name, state)}
    OTHER_ATTRIBUTES = ("base_settings", "_upgraded", "_player", "_awaiting_bookkeeping", "_box", "strike", "shovel",
                        "_dig_contacts", "_transforms")  # strike, shovel: saved by their own state_dicts

    def __init__(self, settings: ActionSettings = ActionSettings()):
        self._player: Player | None = None  # whose upgrades apply, once attached
        self.base_settings: ActionSettings
        self._upgraded: tuple[tuple[tuple[str, int], ...], ActionSettings]  # (upgrades, what they make), cached
        self.settings = settings  # the world's (base_settings); read back with the player's upgrades on top
        self.suck = SuckState()
        self.deformation = DeformationState()
        self.held: WorldObject | None = None
        self.objects: list[WorldObject] = []
        self.items: tuple[str, ...] = ()
        self.opened_treasures: tuple[int, ...] = ()
        self.treasures_taken = 0
        self.strike = Strike(settings.strike)  # the punch or pull-out playing
        self.shovel = PlayerShovel(settings.shovel)  # the dig playing
        self._dig_contacts: TerrainContacts | None = None  # what the shovel's blade meets, once attached
        self._made = 0
        # (make, eye, report) of the actions whose edits this frame's update stages applied, in that order,
        # awaiting the deformation stage's bookkeeping (empty between frames); by make, the report is an
        # ActionResult (punch, pull_out), a SuckUpdate or an ImpactResult (whose eye is None).
        self._awaiting_bookkeeping: list[tuple[str, Any, Any]] = []
        self._box: tuple[np.ndarray, np.ndarray] | None = None  # the world's (m), once attached
        self._transforms: KeptByObject[ObjectTransform] = {}  # the last snapshot's (object_transforms)

    @property
    def settings(self) -> ActionSettings:
        """The settings the actions use: the world's (``base_settings``) changed by the upgrades the player bought
        (:func:`~voxelworld.game.progress.upgraded_settings`; worked out again only when they change)."""
        upgrades = () if self._player is None else self._player.progress.upgrades
        if upgrades != self._upgraded[0]:
            self._upgraded = (upgrades, upgraded_settings(self.base_settings, upgrades))
        return self._upgraded[1]

    @settings.setter
    def settings(self, settings: ActionSettings) -> None:
        """Set the world's settings (``base_settings``); the player's upgrades still apply on top of them."""
        check_range("settings", settings, "an ActionSettings", isinstance(settings, ActionSettings))
        self.base_settings, self._upgraded = settings, ((), settings)

    def _check_places(self, name: str, state: Mapping[str, Any]) -> None:
        """The places of a state within the world's box (once attached), the objects' velocities in range, the
        bullets no more than suck carries."""
        bullets, most = len(state["suck"].bullets), self.settings.suck.max_bullets
        check_range(f"{name}['suck'].bullets", f"{bullets} bullets", f"at most max_bullets = {most}", bullets <= most)
        items = [state["held"]] if state["held"] is not None else []
        throw = self.settings.throw  # an object flies (off the world's side too) until max_flight_time is over
        flight = 2.0 * throw.speed * throw.max_flight_time + 0.5 * throw.gravity * throw.max_flight_time ** 2
        for n, item in enumerate(items + state["objects"]):
            where = f"{name}['held']" if n < len(items) else f"{name}['objects'][{n - len(items)}]"
            speed()(f"{where}.object.velocity", np.array(item.object.velocity, dtype=np.float64))
            if self._box is not None:
                check_inside(f"{where}.object.position", item.object.position, self._box, POSITION_MARGIN + flight)
        if self._box is not None:
            for n, treasure in enumerate(state["deformation"].treasures):
                check_inside(f"{name}['deformation'].treasures[{n}].position", treasure.position, self._box)

    def state_dict(self) -> dict:
        """What the actions keep from frame to frame (``STATE_ATTRIBUTES``; a private attribute's key has no
        leading underscore), the values themselves (:mod:`voxelworld.attribute_state`), ``"strike"``: the
        punch or pull-out playing (:meth:`Strike.state_dict`) and ``"shovel"``: the dig playing
        (:meth:`PlayerShovel.state_dict`)."""
        return attribute_state(self, self.STATE_ATTRIBUTES) | {"strike": self.strike.state_dict(),
                                                              "shovel": self.shovel.state_dict()}

    def load_state_dict(self, state: Mapping[str, Any]) -> None:
        """Take back a :meth:`state_dict`; ParameterError, before anything changes, for a missing key or a value
        out of its range (``STATE_CHECKS``; the ranges: docs/specs/world-format.md). A state saved before strikes
        and digs played (no ``"strike"``, no ``"shovel"``) has none playing."""
        strike, shovel = Strike(self.settings.strike), PlayerShovel(self.settings.shovel)
        if isinstance(state, Mapping):
            for key, part in (("strike", strike), ("shovel", shovel)):
                if key in state:
                    part.load_state_dict(state[key], f"state[{key!r}]")
            state = {key: value for key, value in state.items() if key not in ("strike", "shovel")}
        restore_attributes(self, state, self.STATE_ATTRIBUTES, self.STATE_ADDED, self.STATE_CHECKS)
        if "treasures_taken" not in state:
            self.treasures_taken = len(self.opened_treasures)
        self.strike, self.shovel = strike, shovel

    def attach(self, world: World, player: Player | None = None) -> None:
        """Run in ``world``'s frames for ``player`` (``world.player`` by default: whose eye aims, whose stamina and
        currency treasures pay, whose upgrades apply): buttons in the "control" stage, bookkeeping in the
        "deformation" stage, objects in the "events" stage; thrown objects keep collision triangles around them;
        all objects show in snapshots."""
        self._box = world_box(world.volume)
        warm_strikes(self.settings.strike)
        self._player = world.player if player is None else player
        self._dig_contacts = TerrainContacts(world.volume, world.mesher, self.settings.shovel.reach)
        world.add_handler(self.act, "control", self._player)  # (as the player: its events say whose)
        world.add_handler(self.book, "deformation", self._player)
        world.add_handler(self.move_objects, "events", self._player)
        world.add_collision_focus(self.projectile_points)
        world.add_object_source(self.object_transforms)

    def projectile_points(self, world: World) -> list[tuple[float, float, float]]:
        """Where the thrown objects fly (the world keeps collision triangles around them)."""
        return [o.object.position for o in self.objects if o.kind == "projectile"]

    @property
    def player(self) -> Player:
        """The player these actions are (:meth:`attach`)."""
        check_range("actions.player", self._player, "a player: PlayerActions.attach first", self._player is not None)
        assert self._player is not None
        return self._player

    def achievements(self) -> dict[str, float]:
        """Volume removed per material group (m³), sorted by group name."""
        return self.deformation.achievements()

    def closed_treasures(self) -> list[tuple[int, Treasure]]:
        """The treasures not opened yet, as ``(n, Treasure)`` (the n-th placed, from 0; named ``treasure-<n>``)."""
        opened = set(self.opened_treasures)
        return [(n, t) for n, t in enumerate(self.deformation.treasures) if n not in opened]

    def object_transforms(self, world: World) -> list[ObjectTransform]:
        """The held object, loose and thrown objects and the treasures not opened yet, for a snapshot (the world's
        object source): an object kept from the last call keeps its transform (:func:`kept_by_object`)."""
        items = ([self.held] if self.held is not None else []) + self.objects
        found, self._transforms = kept_by_object(items, self._transforms, lambda item: (item.name, item.kind),
                                                 WorldObject.transform)
        return found + [ObjectTransform(f"treasure-{n}", "treasure", t.position, 0.0)
                        for n, t in self.closed_treasures()]

    # ------------------------------------------------------------------------------------------ buttons
    def act(self, world: World, inputs: Inputs) -> None:
        """The "control" stage: throw, stance, punch, pull-out, use, then this frame of suck (see the module)."""
        inputs, before = world.inputs_of(self.player)  # (the world's are its own player's)
        player, volume, bvh, s = self.player, world.volume, world.collider.bvh, self.settings
        eye, aim = player.eye, player.aim
        for action in ("throw", "stance", "punch", "pull_out", "use"):
            if getattr(inputs, action) and not getattr(before, action):
                if action in ("punch", "pull_out") and (self.strike.busy or self.shovel.busy):
                    self.strike.queued = action  # starts as the strike or dig playing ends
                    continue
                world.emit(ActionStarted, action=action)
                getattr(self, f"_{action}")(world, eye, aim, volume, bvh)
        play_strike(self, world)
        play_shovel(self, world, inputs.dig)
        if inputs.suck and not before.suck:
            world.emit(ActionStarted, action="suck")
        for edit in suck_edits(self._suck_as_booked(), volume, bvh, eye, aim, world.dt, inputs.suck,
                               self.callback_for(world, "suck", eye), s.suck):
            world.queue_edit(edit, self.player)

    def _suck_as_booked(self) -> SuckState:
        """Suck's state once the frames this frame applied are booked (the deformation stage, after the buttons):
        what this frame of suck starts from, so that a gauge emptied by the frame before queues nothing more."""
        state = self.suck
        for make, _, report in self._awaiting_bookkeeping:
            if make == "suck":
                state = suck_frame(replace(report, state=state), self.settings.suck).state
        return state

    def _throw(self, world: World, eye: np.ndarray, aim: np.ndarray, volume: Volume, bvh: TriangleBVH | None
               ) -> None:
        if self.held is None:
            self._refuse(world, refusal("throw", "nothing_to_hold"), "nothing_held")
            return
        thrown = throw(self.held.object, eye, aim, self.settings.throw)
        self.objects.append(replace(self.held, kind="projectile", object=thrown.projectile.object, age=0.0))
        self.held = None
        self._report(world, thrown.events)
        world.emit(ActionEnded, action="throw", outcome="done")

    def _stance(self, world: World, eye: np.ndarray, aim: np.ndarray, volume: Volume, bvh: TriangleBVH | None
                ) -> None:
        if self.held is not None:
            self._refuse(world, refusal("stance", "hands_full"), "hands_full")
            return
        result = stance(self.suck, volume, eye, aim, self.settings.throw)
        self.suck = result.state
        self._report(world, result.events)
        if result.bullet is None:
            self._refuse(world, refusal("stance", "no_bullet"), "no_bullet")
            return
        self.held = WorldObject(self._name("bullet"), "bullet", result.bullet)
        world.emit(ActionEnded, action="stance", outcome="done")

    def _punch(self, world: World, eye: np.ndarray, aim: np.ndarray, volume: Volume, bvh: TriangleBVH | None
               ) -> None:
        start_strike(self, world, "punch", eye, aim, bvh)

    def _pull_out(self, world: World, eye: np.ndarray, aim: np.ndarray, volume: Volume, bvh: TriangleBVH | None
                  ) -> None:
        if self.held is not None:
            self._refuse(world, refusal("pull_out", "hands_full"), "hands_full")
            return
        start_strike(self, world, "pull_out", eye, aim, bvh)

    def _use(self, world: World, eye: np.ndarray, aim: np.ndarray, volume: Volume, bvh: TriangleBVH | None
             ) -> None:
        closed = closed_treasures_of(world)
        target = self.use_target(world)
        if target is None:
            self._refuse(world, refusal("use", "nothing_to_use"), "nothing_in_reach")
        elif target.kind == "treasure":
            self._open(world, *closed[target.index][:2])
        elif target.kind == "buried":
            self._refuse(world, treasure_buried(target.depth), "buried")
        elif self.held is not None:
            self._refuse(world, refusal("use", "hands_full"), "hands_full")
        else:
            item = self.objects.pop(target.index)
            thing = replace(item.object, velocity=(0.0, 0.0, 0.0))
            self.held = replace(item, kind="held", object=thing, age=0.0, resting=False, flight_time=0.0)
            world.emit(PickedUp, name=item.name, material=thing.material, position=thing.position)
            world.emit(ActionEnded, action="use", outcome="picked_up")

    def use_target(self, world: World) -> UseTarget | None:
        """What the use button would take now (:func:`~voxelworld.game.use.use_target`): its ``index`` counts
        into :func:`closed_treasures_of` for a treasure (every player's: a treasure belongs to whoever opens it),
        into ``objects`` for a fragment (other objects are never taken, but keep their places)."""
        s, player = self.settings, self.player
        loose = [n for n, o in enumerate(self.objects) if o.kind == "fragment"]
        target = use_target(world.volume, player.eye, player.aim, [t.position for _, _, t in closed_treasures_of(world)],
                            [self.objects[n].object.position for n in loose], s.use_reach, s.use_angle)
        return replace(target, index=loose[target.index]) if target is not None and target.kind == "fragment" \
            else target

    def _open(self, world: World, owner: PlayerActions, n: int) -> None:
        """Open the ``n``-th treasure of ``owner`` (these actions or another player's): it pays this player."""
        treasure = owner.deformation.treasures[n]
        reward = treasure_reward(world.volume, treasure.position)
        owner.opened_treasures += (n,)
        self.treasures_taken += 1
        self.player.add_stamina(reward.stamina, "treasure")
        self.player.add_currency(reward.currency)
        world.emit(TreasureOpened, name=treasure_name(owner, n), material=reward.material,
                   position=treasure.position, stamina=reward.stamina, currency=reward.currency)
        world.emit(ActionEnded, action="use", outcome="opened")

    def _queue(self, world: World, action: str, edit: VoxelEdit | None, eye: np.ndarray, aim: np.ndarray,
               reach: float) -> None:
        if edit is None:
            self._refuse(world, missed(world.collider.bvh, eye, aim, action, reach), "missed")
        else:
            world.queue_edit(edit, self.player)

    @staticmethod
    def _refuse(world: World, refused: Refusal | None, outcome: str | None = None) -> None:
        """Say why an action did nothing (an ``ActionBlocked`` event), then end it with ``outcome`` (if given);
        nothing for None (no refusal)."""
        if refused is None:
            return
        world.emit(ActionBlocked, action=refused.action, reason=refused.reason, text=refused.text)
        if outcome is not None:
            world.emit(ActionEnded, action=refused.action, outcome=outcome)

    # ----------------------------------------------------------------------------- once edits are applied
    def callback_for(self, world: World, make: str, eye: ArrayLike | None = None) -> Callable[..., None]:
        """The ``finish`` callback the player's ``make`` (``punch``, ``pull_out``, ``suck`` or ``impact``) hands
        its edit maker in ``world``: it adds what the removal made (fragments, the held piece) and keeps the
        action's report for the deformation stage's bookkeeping (:meth:`book`). ``eye`` (m) is where the player
        looked from (for the treasure and award counters; not used by impact). A loaded world's queued edits are
        made again with it (:mod:`voxelworld.io`)."""
        finishers: dict[str, Callable[..., None]] = {"punch": self._punched, "pull_out": self._pulled,
                                                     "suck": self._sucked, "shovel": self._dug}
        if make == "impact":
            return partial(self._impacted, world)
        check_range("make", make, "punch, pull_out, suck, shovel or impact", make in finishers)
        return partial(finishers[make], world, eye)

    def _punched(self, world: World, eye: ArrayLike, result: ActionResult) -> None:
        for fragment in result.fragments:
            self.objects.append(WorldObject(self._name("fragment"), "fragment", fragment))
        loose = [o for o in self.objects if o.kind == "fragment"]
        for old in loose[:max(0, len(loose) - self.settings.max_fragments)]:
            self.objects.remove(old)
        self._awaiting_bookkeeping.append(("punch", eye, result))

    def _pulled(self, world: World, eye: ArrayLike, result: ActionResult) -> None:
        if result.held is not None:
            piece = WorldObject(self._name("piece"), "held", result.held)
            if self.held is None:
                self.held = piece
            else:  # a bullet was readied meanwhile: the piece drops
                self.objects.append(replace(piece, kind="fragment"))
        self._awaiting_bookkeeping.append(("pull_out", eye, result))

    def _dug(self, world: World, eye: ArrayLike, result: ActionResult) -> None:
        self._awaiting_bookkeeping.append(("dig", eye, result))

    def _sucked(self, world: World, eye: ArrayLike, update: SuckUpdate) -> None:
        # A frame that made no update (button up, gauge empty, nothing in reach) is known as the button is read,
        # in the control stage; it waits for the deformation stage too, so that it is booked after the frames
        # whose edits this frame applied (queued before it).
        self._awaiting_bookkeeping.append(("suck", eye, update))

    def _impacted(self, world: World, result: ImpactResult) -> None:
        self._awaiting_bookkeeping.append(("impact", None, result))

    # ---------------------------------------------------------------------------------------- bookkeeping
    def book(self, world: World, inputs: Inputs) -> None:
        """The "deformation" stage: the bookkeeping of the actions whose edits this frame applied, in the order
        they were applied: their outcome events, suck's gauge, updates and bullets, the treasure and award
        counters (thrown objects' explosions too, with ``WorldSettings.thrown_deformation_counts``), and the end
        of punch, pull-out and suck."""
        awaiting, self._awaiting_bookkeeping = self._awaiting_bookkeeping, []
        for make, eye, report in awaiting:
            if make == "suck":
                self._book_suck(world, eye, report)
            elif make == "impact":
                self._book_impact(world, report)
            else:
                self._book_dig(world, eye, make, report)

    def _book_dig(self, world: World, eye: ArrayLike, action: str, result: ActionResult) -> None:
        self._report(world, result.events)
        self._record(world, record_action(self.deformation, world.volume, eye, result, self.settings.treasure,
                                          self.settings.awards))
        if action == "dig":  # a dig's contact frames end once, with its motion (_play_shovel)
            return
        if result.volume_removed > 0:
            world.emit(ActionEnded, action=action, outcome="done")
        else:
            self._refuse(world, self._too_hard(world, eye, action, result), "blocked")

    def _too_hard(self, world: World, eye: ArrayLike | None, action: str, result: ActionResult) -> Refusal:
        """Why a punch or pull-out that met something removed nothing: no voxel in its range (a prop), or the aimed
        material's hardness against the tool and the damage the voxels around the hit have taken so far."""
        settings = self.settings.punch if action == "punch" else self.settings.pull_out
        material = result.aimed_material or "none"
        if not any(edit.voxels_changed or edit.voxels_damaged or edit.voxels_blocked for edit in result.edits):
            return not_terrain(action, material)  # the range held no voxel: the aim met a prop
        hardness = float(world.materials[material].hardness) if material in world.materials else 0.0
        eye = self.player.eye if eye is None else np.asarray(eye, dtype=np.float64)
        voxel = world.voxel_along(eye, result.aim, float(np.linalg.norm(np.asarray(result.point) - eye)))
        damage = 0 if voxel is None else world.volume.read_voxel(voxel)["damage"]
        return too_hard(action, material, hardness, settings.tool.break_threshold(hardness), damage)

    def _book_suck(self, world: World, eye: ArrayLike, update: SuckUpdate) -> None:
        # Booked against the state as it is now, not as it was when the frame's edits were queued: the buttons
        # are read (and the next frame of suck queued) before the bookkeeping of the frame queued before.
        frame = suck_frame(replace(update, state=self.suck), self.settings.suck)
        self.suck = frame.state
        self._report(world, frame.result.events)
        self._refuse(world, frame.refusal)
        if frame.result.volume_removed > 0:
            self._record(world, record_action(self.deformation, world.volume, eye, frame.result,
                                              self.settings.treasure, self.settings.awards))
        kinds = {event.kind for event in frame.result.events}
        if "suck_exhausted" in kinds:
            world.emit(ActionEnded, action="suck", outcome="time_limit")
        elif "suck_end" in kinds:
            world.emit(ActionEnded, action="suck", outcome="released")

    def _book_impact(self, world: World, result: ImpactResult) -> None:
        self._report(world, result.events)
        if world.settings.thrown_deformation_counts:
            self._record(world, record_impact(self.deformation, world.volume, self.player.eye, result,
                                              self.settings.treasure, self.settings.awards))

    def _record(self, world: World, update: DeformationUpdate) -> None:
        """Take the counters' ``update``: the new state, the items granted and their events."""
        self.deformation = update.state
        self.items += tuple(award.item for award in update.awards)
        self._report(world, update.events)
        if update.treasure is not None:
            where = update.treasure.position
            index = tuple(int(v) for v in np.round(world.volume.world_to_index(where)))
            material = world.materials.name_by_id[world.volume.read_voxel(index)["mat_a"]]
            world.emit(ItemPlaced, item=update.treasure.item, material=material, position=where)

    @staticmethod
    def _report(world: World, events: Iterable[ActionEvent]) -> None:
        for event in events:
            world.emit(ActionOutcome, kind=event.kind, position=event.position, material=event.material,
                       amount=float(event.amount), item=event.item)

    def _name(self, kind: str) -> str:
        self._made += 1
        return f"{kind}-{self._made}"

    # -------------------------------------------------------------------------------------------- objects
    def move_objects(self, world: World, inputs: Inputs) -> None:
        """The "events" stage, after the bookkeeping: the held object follows the view, fragments fall and rest,
        thrown objects fly and meet the terrain."""
        s, dt, bvh, materials = self.settings, world.dt, world.collider.bvh, world.materials
        if self.held is not None:
            where = self.player.eye + self.player.aim * s.throw.hold_distance
            self.held = replace(self.held, object=replace(self.held.object, position=point_tuple(where)),
                                age=self.held.age + dt)
        kept = []
        # Fragments made this frame (age 0) that lie under the ground go up onto it, the frame's collider at hand.
        born = [n for n, item in enumerate(self.objects) if item.kind == "fragment" and item.age == 0.0]
        for n, item in zip(born, out_of_ground([self.objects[n] for n in born], bvh)):
            self.objects[n] = item
        loose = [item for item in self.objects if item.kind != "projectile"]
        fallen = iter(fall_all(loose, bvh, dt, materials, s.throw))  # (in the objects' order)
        for item in self.objects:
            if item.kind == "projectile":
                step = fly(Projectile(item.object, item.flight_time), bvh, dt, materials, s.throw)
                if step.contact is not None:
                    edit = impact_edit(world.volume, item.object, step.contact,
                                       self.callback_for(world, "impact"), s.impact)
                    if edit is not None:
                        world.queue_edit(edit, self.player)
                elif step.projectile is None:
                    self._report(world, step.events)
                else:
                    kept.append(replace(item, object=step.projectile.object, age=item.age + dt,
                                        flight_time=step.projectile.flight_time))
                continue
            moved = next(fallen)
            if moved is not None and moved.age <= s.fragment_lifetime:
                kept.append(moved)
        self.objects = kept
