"""Each player's view of a frame (play protocol 4): the ``frame`` and ``hud`` JSON messages of one player of a
:class:`~voxelworld.game.world.World` (the world's own by default, or a joined one's, :mod:`voxelworld.game.seats`).

A ``frame`` is the part every page shares (the time, every player's loose objects, the enemies' cut marks, the
frame's events, each naming whose it is) and the part that is its player's: ``player`` (feet, view, eye, aim,
camera) and ``use``. The ``hud`` is all its player's: aim, stamina, currency, gauge, bullets, held, achievements,
shop and goals. A watching page gets the world's own player's view.

Examples
--------
>>> from voxelworld.game.world import World
>>> world = World.demo(seed=0, npcs=0)
>>> guest = world.join("guest", spawn=world.player.position + (2.0, 0.0, 0.0))
>>> own, theirs = frame_message(world), frame_message(world, actions=guest.actions)
>>> own["player"]["position"] != theirs["player"]["position"], own["objects"] == theirs["objects"]
(True, True)
"""

from __future__ import annotations

import weakref
from typing import TYPE_CHECKING, Any

from ..game.all_players import closed_treasures_of, every_actions, object_name, treasure_name
from ..game.events import ActionBlocked, ActionOutcome, Footstep, GoalReached, Landed, TreasureOpened, UpgradeBought
from ..game.follow_camera import follow_camera
from ..game.objects import KeptByObject, WorldObject, kept_by_object
from ..game.use import treasure_depth
from . import frame_messages
from .frame_messages import cuts_field
from .protocol import MAX_FRAME_EVENTS, _round

if TYPE_CHECKING:
    from ..game.events import Event
    from ..game.play import PlayerActions
    from ..game.world import World

__all__ = ["frame_message", "frame_shared", "player_fields", "frame_events", "events_message", "hud_message",
           "FRAME_STATE", "object_name", "shares"]

FRAME_STATE = ("player", "use", "navmesh_revision")  # a frame's fields a delta leaves out when unchanged (and the
# objects: frame_messages.objects_delta, those that changed)


# Each player's objects' fields as the last frame sent them (:func:`kept_by_object`): a resting fragment's are made
# once, not every frame, and compare equal to the last frame's at once.
_SENT: weakref.WeakKeyDictionary[PlayerActions, KeptByObject[dict[str, Any]]] = weakref.WeakKeyDictionary()


def _objects(world: World) -> list[dict[str, Any]]:
    """Every player's held, loose and thrown objects (:func:`_loose_objects`) and the treasures it found and did not
    open, the world's own player's first."""
    objects = []
    for actions in every_actions(world):
        objects += _loose_objects(actions)
        objects += [{"name": treasure_name(actions, n), "kind": "treasure", "position": _round(t.position),
                     "material": None, "resting": True, "depth": treasure_depth(world.volume, t.position)}
                    for n, t in actions.closed_treasures()]
    return objects


def _loose_objects(actions: PlayerActions) -> list[dict[str, Any]]:
    """The fields of the held, loose and thrown objects of the player whose ``actions`` these are: those of an object
    that neither moved nor changed are the last frame's (the same dict: nothing changes them)."""
    def key(item: WorldObject) -> tuple[str, str, bool]:
        return object_name(actions, item.name), item.kind, item.resting

    def fields(item: WorldObject) -> dict[str, Any]:
        name, kind, resting = key(item)
        return {"name": name, "kind": kind, "position": _round(item.object.position),
                "material": item.object.material, "resting": resting}

    items = ([actions.held] if actions.held is not None else []) + list(actions.objects)
    found, _SENT[actions] = kept_by_object(items, _SENT.get(actions, {}), key, fields)
    return found


def _use_target(world: World, actions: PlayerActions) -> dict[str, Any] | None:
    """What the use button of the player whose ``actions`` these are would take now (``name``, ``kind`` treasure,
    fragment or buried, ``depth`` m), or None."""
    target = actions.use_target(world)
    if target is None:
        return None
    if target.kind == "fragment":
        name = object_name(actions, actions.objects[target.index].name)
    else:  # any player's treasure (a treasure belongs to whoever opens it)
        owner, n, _ = closed_treasures_of(world)[target.index]
        name = treasure_name(owner, n)
    return {"name": name, "kind": target.kind, "depth": _round(target.depth)}


def _event(event: Event, world: World) -> dict[str, Any] | None:
    """A frame event as the page reads it (blocked actions, footsteps, action outcomes, treasures opened, upgrades
    bought, goals reached, landings), None for the kinds the page does not hear of."""
    if isinstance(event, ActionBlocked):
        return {"event": "blocked", "action": event.action, "reason": event.reason, "text": event.text}
    if isinstance(event, Footstep):
        return {"event": "footstep", "position": _round(event.position), "material": event.material,
                "sound": event.sound}
    if isinstance(event, ActionOutcome):
        outcome = {"event": "outcome", "kind": event.kind,
                   "position": None if event.position is None else _round(event.position),
                   "material": event.material, "amount": _round(event.amount)}
        return outcome if event.item is None else outcome | {"item": event.item}
    if isinstance(event, TreasureOpened):
        return {"event": "opened", "name": event.name, "position": _round(event.position),
                "material": event.material, "stamina": _round(event.stamina), "currency": _round(event.currency)}
    if isinstance(event, (UpgradeBought, GoalReached)):
        return frame_messages.progress_event(event)
    if isinstance(event, Landed):  # where the player stands after the frame it landed in
        position = next((p.position for name, p in world.players() if name == event.player), world.player.position)
        return {"event": "landed", "position": _round(position), "material": event.material,
                "speed": _round(event.speed)}
    return None


def frame_events(world: World) -> tuple[list[dict[str, Any]], int]:
    """The last frame's events for the pages (:func:`_event`), each with ``player`` (whose: a player's name, ""
    for none), at most ``MAX_FRAME_EVENTS``, and how many were dropped past that. A page shows the texts and HUD
    changes (``blocked``, ``opened``, ``bought``, ``goal``) of its own player's alone; footsteps, outcomes and
    landings of every player are heard and seen where they happen."""
    events = []
    for event in world.frame_events:
        message = _event(event, world)
        if message is not None:
            events.append(message | {"player": event.player})
    return events[:MAX_FRAME_EVENTS], max(0, len(events) - MAX_FRAME_EVENTS)


def frame_shared(world: World, step_ms: float | None = None) -> dict[str, Any]:
    """The part of the last frame's ``frame`` message every page shares: the frame number, the game's time (s) and
    ``step_ms`` (how long World.step took), every player's loose objects (a treasure with its ``depth``), the
    navmesh's revision, the enemies' cut marks (``cuts``: :func:`~voxelworld.viewer.frame_messages.cuts_field`),
    what happened (``events``: :func:`frame_events`, ``events_dropped`` those past ``MAX_FRAME_EVENTS``; both left
    out when there are none). ``base`` is None: a whole frame."""
    navigation = world.agents.navigation
    events, dropped = frame_events(world)
    message = {"type": "frame", "frame": world.frame, "base": None, "time": _round(world.time),
               "step_ms": _round(step_ms, 3) if step_ms is not None else None, "objects": _objects(world),
               "navmesh_revision": navigation.revision if navigation is not None else None, "cuts": cuts_field(world)}
    if events:
        message["events"] = events
    if dropped:
        message["events_dropped"] = dropped
    return message


def player_fields(world: World, actions: PlayerActions | None = None) -> dict[str, Any]:
    """The part of the ``frame`` message that is the player's whose ``actions`` these are (the world's own by
    default): ``player`` (its ``name``, feet, view, eye, aim, grounded, and ``camera``: the third-person camera's
    spring arm in m, :func:`~voxelworld.game.follow_camera.follow_camera`) and ``use`` (what its use button would
    take)."""
    actions = world.actions if actions is None else actions
    player = actions.player
    return {"player": {"name": player.name, "position": _round(player.position), "yaw": _round(player.yaw),
                       "pitch": _round(player.pitch), "eye": _round(player.eye), "aim": _round(player.aim),
                       "grounded": bool(player.grounded),
                       "camera": _round(follow_camera(world, player=player).distance)},
            "use": _use_target(world, actions)}


def frame_message(world: World, step_ms: float | None = None, actions: PlayerActions | None = None) -> dict[str, Any]:
    """The last frame's state besides the poses (:func:`~voxelworld.viewer.frame_messages.encode_poses` sends
    those) as the page of the player whose ``actions`` these are (the world's own by default) is sent it:
    :func:`frame_shared` and :func:`player_fields`."""
    return frame_shared(world, step_ms) | player_fields(world, actions)


def events_message(frame: dict[str, Any]) -> dict[str, Any] | None:
    """The ``events`` of a :func:`frame_message` as a message of their own (``{"type": "events", "frame",
    "events", "events_dropped"}``), None when the frame had none. A page sent only every other frame (it fell
    behind) gets the skipped frames' events this way, so no blocked-action text, sound or debris is lost."""
    if not frame.get("events") and not frame.get("events_dropped"):
        return None
    return {"type": "events", "frame": frame["frame"], "events": frame.get("events", []),
            "events_dropped": frame.get("events_dropped", 0)}


def hud_message(world: World, actions: PlayerActions | None = None) -> dict[str, Any]:
    """The HUD of the player whose ``actions`` these are (the world's own by default): what it aims at (material,
    hardness, the voxel's damage and the damage at which it gives way, ``break_at``; each action's reach,
    ``reaches``, and whether the aimed point is within it, ``reach``; the aim reports surfaces beyond every reach
    too, for the page to show dimmed), stamina, currency (what opened treasures paid), the suck gauge, the bullets
    carried (each one's material), what is held, and the volume removed per material group (every group of the
    table, 0 for none yet) with each group's award thresholds and the items granted, every player's share of the
    digging (``shares``: :func:`shares`), and the shop and goals
    (:func:`~voxelworld.viewer.frame_messages.progress_fields`)."""
    actions = world.actions if actions is None else actions
    player = actions.player
    aim = world.aim_info(actions=actions)
    suck, held, settings = actions.suck, actions.held, actions.settings.awards
    removed = actions.achievements()
    groups = sorted({m.group for m in world.materials} | set(removed))
    return {"type": "hud",
            "aim": None if aim is None else {"material": aim.material, "hardness": _round(aim.hardness),
                                             "damage": aim.damage, "distance": _round(aim.distance, 3),
                                             "point": _round(aim.point), "prop": aim.prop,
                                             "break_at": aim.break_at, "reach": dict(aim.in_reach),
                                             "reaches": {a: _round(m, 3) for a, m in aim.reaches.items()}},
            "stamina": _round(player.stamina, 2), "stamina_max": world.settings.player.stamina_max,
            "currency": _round(player.currency, 2),
            "gauge": _round(suck.gauge, 3), "exhausted": suck.exhausted,
            "sucking": bool(world.inputs_of(player)[0].suck), "bullets": list(suck.bullets),
            "held": None if held is None else {"kind": held.kind, "material": held.object.material},
            "achievements": {g: _round(removed.get(g, 0.0), 3) for g in groups},
            "thresholds": {g: list(settings.thresholds_of(g)) for g in groups},
            "items": list(actions.items), "shares": shares(world)} | frame_messages.progress_fields(world, player)


def shares(world: World) -> list[list[Any]]:
    """Each player's share of the digging: ``[name, m³ its actions removed]`` for every player, the world's own
    first (the achievements chart shows them when several play), to 0.1 m³ as the page shows them (finer, the HUD
    of every page changed nearly every frame that anyone dug)."""
    return [[other.player.name, _round(sum(other.achievements().values()), 1)] for other in every_actions(world)]
