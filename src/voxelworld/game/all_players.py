"""Every player's part of a world at once (issue #35): their actions in joining order and the treasures any of
them may open. A module of its own so that the actions (:mod:`voxelworld.game.play`) and the seats
(:mod:`voxelworld.game.seats`) both use it without importing each other.

Examples
--------
>>> from voxelworld.game.world import World
>>> world = World.demo(seed=0, npcs=0)
>>> guest = world.join("guest", spawn=world.player.position + (2.0, 0.0, 0.0))
>>> [actions.player.name for actions in every_actions(world)], treasure_name(guest.actions, 0)
(['player', 'guest'], 'guest/treasure-0')
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .player import OWN_NAME

if TYPE_CHECKING:
    from .deformation import Treasure
    from .play import PlayerActions
    from .world import World

__all__ = ["every_actions", "closed_treasures_of", "object_name", "treasure_name"]


def every_actions(world: World) -> list[PlayerActions]:
    """Every player's actions, the world's own first, then the seats' in joining order."""
    return [world.actions] + [seat.actions for seat in world.joined]


def closed_treasures_of(world: World) -> list[tuple[PlayerActions, int, Treasure]]:
    """Every player's treasures not opened yet, as ``(owner's actions, n, Treasure)``, the world's own player's
    first: any player may open any of them (issue #35)."""
    return [(actions, n, t) for actions in every_actions(world) for n, t in actions.closed_treasures()]


def object_name(actions: PlayerActions, name: str) -> str:
    """The name of an object (a fragment, a treasure) of the player whose ``actions`` these are, told apart from
    every other player's: the world's own player's as it is named, a joined player's prefixed with its name and a
    slash (``guest/fragment-3``)."""
    return name if actions.player.name == OWN_NAME else f"{actions.player.name}/{name}"


def treasure_name(owner: PlayerActions, n: int) -> str:
    """The name of ``owner``'s ``n``-th treasure: :func:`object_name` of ``treasure-<n>``."""
    return object_name(owner, f"treasure-{n}")
