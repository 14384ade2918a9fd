"""Players who joined a world besides its own (issue #35: one world, several players, the world in charge).

A :class:`~voxelworld.game.world.World` has its own player (``world.player``, ``world.actions``, its inputs
``world.inputs``); :meth:`World.join <voxelworld.game.world.World.join>` seats another: a :class:`Seat` with its own
:class:`~voxelworld.game.player.Player`, its own :class:`~voxelworld.game.play.PlayerActions` (reach, stamina,
strikes, bullets, held and thrown objects, treasures opened and paid to it) and its own inputs. A frame
(:meth:`World.step <voxelworld.game.world.World.step>`) takes one :class:`~voxelworld.game.inputs.Inputs` for each
player, the world's own first, then the seats' in the order they joined, and runs every player's part of each
stage in that order, so that the same inputs give the same world.

A save keeps the seats (world file row ``joined``: each one's name, character, actions and inputs; an edit a
seat's action queued names it, ``by``), and a load seats them again in their order. The enemies notice and strike
the nearest player (:func:`nearest_player`), every player's bullets hit them, the NPCs walk round every player
(the crowd's obstacles), and the regions keep actors awake near any player. Every event says whose it is
(``Event.player``: the part of a frame it came from, :func:`each_player` and ``World.add_handler(..., player)`` run
as that player); each player buys with its own currency and reaches its own goals
(:func:`~voxelworld.game.progress.attach_progress`), and ``World.end`` sums up each one's play. The snapshot
poses every player (each from its own actions), and :func:`leave` lets a joined player go.

Examples
--------
>>> from voxelworld.game.world import Inputs, World
>>> world = World.demo(seed=0, npcs=0)
>>> guest = world.join("guest", spawn=world.player.position + (2.0, 0.0, 0.0))
>>> _ = [world.step([Inputs(), Inputs(move=(0.0, 1.0))]) for _ in range(30)]
>>> [name for name, _ in world.players()], bool(guest.player.position[2] != world.player.position[2])
(['player', 'guest'], True)
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np
from numpy.typing import ArrayLike

from ..errors import ParameterError, check_range
from .all_players import every_actions
from .events import PlayEnded
from .inputs import Inputs
from .play import PlayerActions
from .player import OWN_NAME, Player
from .progress import attach_progress
from .state_checks import check_inside

if TYPE_CHECKING:
    from .world import World

__all__ = ["Seat", "OWN_NAME", "MAX_SEATS", "join", "rename_own", "leave", "seat_inputs", "each_player", "inputs_of",
           "player_points", "nearest_player", "every_actions", "play_ended"]

MAX_SEATS = 63  # players who may join a world besides its own (the server holds far fewer: --players)
MAX_NAME = 32  # characters of a player's name


@dataclass(eq=False)
class Seat:
    """A player who joined a world: its ``name`` (unique in the world), character, actions and this frame's and
    the last frame's inputs."""

    name: str
    player: Player
    actions: PlayerActions
    inputs: Inputs = field(default_factory=Inputs)
    previous_inputs: Inputs = field(default_factory=Inputs)


def join(world: World, name: str, spawn: ArrayLike | None = None, spawn_yaw: float = 0.0) -> Seat:
    """Seat a new player named ``name`` in ``world`` at ``spawn`` (its feet, m; the world's own player's place by
    default), looking along ``spawn_yaw`` degrees; its actions run after those of every player before it.
    ParameterError, before anything changes, for a name taken, empty or longer than MAX_NAME, a spawn outside the
    world's box, or a world with MAX_SEATS seats already."""
    taken = {own for own, _ in world.players()}
    check_range("name", name, f"a name of 1 to {MAX_NAME} characters no player has ({', '.join(sorted(taken))})",
                isinstance(name, str) and 0 < len(name) <= MAX_NAME and name not in taken)
    check_range("world.joined", len(world.joined), f"fewer than {MAX_SEATS} seats", len(world.joined) < MAX_SEATS)
    own = world.player
    player = Player(own.position if spawn is None else spawn, spawn_yaw, world.settings.player, world.materials,
                    name)
    player.bounds = own.bounds
    if player.bounds is not None:
        check_inside("spawn", player.position, player.bounds)
    actions = PlayerActions(world.settings.actions)
    actions.attach(world, player)
    attach_progress(world, actions)
    seat = Seat(name, player, actions)
    world.joined.append(seat)
    return seat


def rename_own(world: World, name: str) -> None:
    """The world's own player takes the name ``name`` (a page named it: ``voxelworld.viewer.page_seats``): its
    queued edits and, from now on, its events, objects and pose carry it; the events logged before keep the name they
    had, and a save keeps the new one (world file row ``player``, key ``name``). ParameterError, before anything
    changes, for a name another player has, empty or longer than MAX_NAME.

    >>> from voxelworld.game.world import World
    >>> world = World.demo(seed=0, npcs=0)
    >>> rename_own(world, "Ann")
    >>> [name for name, _ in world.players()]
    ['Ann']
    """
    own = world.player
    taken = {other for other, player in world.players() if player is not own}
    check_range("name", name, f"a name of 1 to {MAX_NAME} characters no other player has ({', '.join(sorted(taken))})",
                isinstance(name, str) and 0 < len(name) <= MAX_NAME and name not in taken)
    old, own.name = own.name, name
    world._queued_by = [name if by == old else by for by in world._queued_by]  # (whose each queued edit is)


def leave(world: World, name: str) -> Seat:
    """The joined player ``name`` leaves ``world``: its seat, its handlers and sources, and the edits its actions
    queued that no frame applied yet go (its character leaves nothing half-done); returns the seat. ParameterError,
    before anything changes, for a name no joined player has (the world's own player never leaves)."""
    seat = next((s for s in world.joined if s.name == name), None)
    check_range("name", name, f"the name of a joined player ({', '.join(s.name for s in world.joined) or 'none'})",
                seat is not None)
    assert seat is not None
    world.joined.remove(seat)
    for handlers in world._handlers.values():  # (seats is the world's part for its players: World.join, leave)
        handlers[:] = [(handler, player) for handler, player in handlers if player is not seat.player]
    world._focus_sources.remove(seat.actions.projectile_points)
    world._object_sources.remove(seat.actions.object_transforms)
    kept = [(edit, by) for edit, by in zip(world._queue, world._queued_by) if by != name]
    world._queue, world._queued_by = [edit for edit, _ in kept], [by for _, by in kept]
    return seat


def seat_inputs(world: World, inputs: Inputs | Sequence[Inputs] | None) -> list[Inputs]:
    """A frame's inputs, one per player (the world's own first, then the seats in joining order), checked:
    ``inputs`` is one Inputs (or None: none pressed) for the world's own player, the seats' all none pressed; or a
    sequence of one Inputs each."""
    players = 1 + len(world.joined)
    if inputs is None or isinstance(inputs, Inputs):
        given = [Inputs() if inputs is None else inputs] + [Inputs()] * (players - 1)
    else:
        check_range("inputs", inputs, f"an Inputs or a sequence of {players} (one per player)",
                    isinstance(inputs, Sequence) and not isinstance(inputs, str) and len(inputs) == players)
        given = list(inputs)
    for n, one in enumerate(given):
        name = "inputs" if isinstance(inputs, Inputs) or inputs is None else f"inputs[{n}]"
        check_range(name, one, "an Inputs", isinstance(one, Inputs))
        Inputs(**{key: getattr(one, key) for key in Inputs.__dataclass_fields__})  # checked again, if changed since
    return given


def each_player(world: World, players: Sequence[tuple[Player, Inputs]], do: Callable[[Player, Inputs], None]) -> None:
    """``do(player, its_inputs)`` for each of a frame's ``players``, in order (a stage's part for every player), as
    that player (``world.acting``: the events it emits are the player's)."""
    for player, inputs in players:
        world.acting = player.name
        do(player, inputs)
    world.acting = ""


def inputs_of(world: World, player: Player) -> tuple[Inputs, Inputs]:
    """``player``'s inputs this frame and the last (``World.inputs_of``); ParameterError for a player not in
    ``world``."""
    if player is world.player:
        return world.inputs, world.previous_inputs
    for seat in world.joined:
        if seat.player is player:
            return seat.inputs, seat.previous_inputs
    raise ParameterError("player", player, "a player of this world (World.players)")


def player_points(world: World) -> np.ndarray:
    """Every player's feet (m, (players, 3)), the world's own first."""
    return np.array([player.position for _, player in world.players()], dtype=np.float64)


def nearest_player(world: World, point: ArrayLike) -> Player:
    """The player whose feet lie nearest ``point`` across the ground (x, z; the first in joining order of those as
    near): whom an enemy notices, and what decides whether an actor is far from every player."""
    if not world.joined:  # (every frame, for every enemy: the one player without arrays)
        return world.player
    points = player_points(world)
    at = np.asarray(point, dtype=np.float64)
    distance = np.hypot(points[:, 0] - at[0], points[:, 2] - at[2])
    return world.players()[int(np.argmin(distance))][1]


def play_ended(world: World, reason: str, actions: PlayerActions) -> PlayEnded:
    """The :class:`~voxelworld.game.events.PlayEnded` summing up the play of the player whose ``actions`` these
    are (``World.end``): its stamina, currency, treasures opened, bullets and volume removed per material group."""
    player = actions.player
    removed = tuple((group, float(volume)) for group, volume in sorted(actions.achievements().items()))
    return PlayEnded(frame=world.frame, time=world.time, reason=reason, frames=world.frame, seconds=float(world.time),
                     stamina=float(player.stamina), currency=float(player.currency),
                     treasures_opened=actions.treasures_taken, bullets=len(actions.suck.bullets),
                     removed=removed, player=player.name)
