"""Which page plays which player on the ``voxelworld play`` server (issue #35: every page its own player).

Up to ``players`` pages play at once (``voxelworld play --players N``, default :data:`DEFAULT_PLAYERS`), each its
own character in the one world; the pages beyond them watch. The first page to play takes the world's own player
(``"player"``, renamed as the page asks if no page named it before: :func:`~voxelworld.game.seats.rename_own`);
the next ones join the world as players of their own (:meth:`World.join
<voxelworld.game.world.World.join>`), named as the page asks (``?name=`` on the websocket's URL, or ``control``'s
``name``) or ``player-2``, ``player-3``, ... A player a saved world holds whom no page plays is taken by a page
that asks for its name (loading gives each player its character back).

A page that takes a player is given a **resume token** (:data:`TOKEN_BYTES` random bytes, hex). When the page goes
away its player stands, let go, for :data:`GRACE_SECONDS`; a page that connects with that token (``?token=``)
within them plays it again, with everything it had. After them a joined player leaves the world (:meth:`World.leave
<voxelworld.game.world.World.leave>`), and the world's own player waits for the next page. A wrong or stale token
is refused, counted and answered with an error; the page then plays a new player (or watches).

:class:`PageSeat` keeps one played player's controls as its page last sent them; :meth:`PageSeat.take_inputs`
turns them into the frame's :class:`~voxelworld.game.inputs.Inputs` (a button tapped between two frames is held
for one).
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass, field

from ..game.inputs import Inputs
from .protocol import BUTTONS

__all__ = ["PageSeat", "DEFAULT_PLAYERS", "MAX_PLAYERS", "GRACE_SECONDS", "TOKEN_BYTES", "new_token", "free_name",
           "seat_message"]

DEFAULT_PLAYERS = 8  # pages that play at once, by default (--players)
MAX_PLAYERS = 16  # at most (the server holds at most 16 pages: MAX_CLIENTS)
GRACE_SECONDS = 60.0  # s a player whose page went away waits for it to come back with its token
TOKEN_BYTES = 32  # random bytes of a resume token (64 hex digits)


def new_token() -> str:
    """A new resume token: :data:`TOKEN_BYTES` bytes from the system's secure random source, as hex."""
    return secrets.token_hex(TOKEN_BYTES)


@dataclass(eq=False)
class PageSeat:
    """A player a page plays (or played: ``page`` None while it is away, since ``left_at``, loop time s): its
    ``name`` in the world, its resume ``token`` and its controls as the page last sent them."""

    name: str
    token: str = field(default_factory=new_token)
    page: int | None = None
    left_at: float | None = None
    move: tuple[float, float] = (0.0, 0.0)
    look: tuple[float, float] | None = None
    held: frozenset[str] = frozenset()
    pressed: set[str] = field(default_factory=set)  # pressed since the last frame: held for at least one frame
    buying: str | None = None  # the upgrade asked for since the last frame: bought in the next

    def take_inputs(self) -> Inputs:
        """This frame's inputs (the buttons pressed since the last frame count as held once)."""
        held = self.held | self.pressed
        self.pressed = set()
        buy, self.buying = self.buying, None
        return Inputs(move=self.move, look=self.look, buy=buy, **{name: name in held for name in BUTTONS})

    def let_go(self) -> None:
        """The stick and buttons let go, the view kept (its page went away or gave it up)."""
        self.move, self.look, self.held, self.pressed, self.buying = (0.0, 0.0), None, frozenset(), set(), None


def free_name(asked: str | None, taken: set[str], number: int) -> str:
    """The name of a new player: ``asked`` when no player has it, else ``player-<n>`` from ``number`` up, the
    first free one.

    >>> free_name("Ann", {"player"}, 2), free_name("player", {"player"}, 2), free_name(None, {"player-2"}, 2)
    ('Ann', 'player-2', 'player-3')
    """
    if asked is not None and asked not in taken:
        return asked
    while f"player-{number}" in taken:
        number += 1
    return f"player-{number}"


def seat_message(you: PageSeat | None, playing: list[str], seats: int) -> dict[str, object]:
    """The ``control`` message a page is sent when what it plays or who plays changes: ``you`` (whether it
    plays), ``name`` and ``token`` of its player (None while it watches), the names of the players pages play
    (``players``, in the world's order) and how many may (``seats``)."""
    return {"type": "control", "you": you is not None, "name": None if you is None else you.name,
            "token": None if you is None else you.token, "players": playing, "seats": seats}
