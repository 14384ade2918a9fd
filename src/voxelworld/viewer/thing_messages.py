"""The play server's messages about the things on the ground (:mod:`voxelworld.game.ground_things`):
``thing_kinds`` once after ``hello``, and ``things`` per chunk column when the page is first sent a chunk of the
column and again whenever they change (docs/specs/play-protocol.md). A world without things sends neither.

:class:`ThingTexts` runs in the world thread: after each frame it encodes the columns made, changed or forgotten
since the last (read from :attr:`GroundThings.log <voxelworld.game.ground_things.GroundThings.log>`, so a frame
where nothing happened costs a comparison). :func:`publish` and :func:`due` run on the event loop: the texts kept,
and those a page lacks after being sent some chunks.

Examples
--------
>>> import json
>>> json.loads(thing_kinds_message())["kinds"][0]
{'name': 'tree', 'radius': 0.3, 'height': 8.0}
>>> things_message((3, 5), [[0, 1.5, 20.25, 7.0, 90.0, 1.1, 0]])
'{"type":"things","chunk":[3,0,5],"things":[[0,1.5,20.25,7.0,90.0,1.1,0]]}'
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from ..terrain.scatter import THING_KINDS

if TYPE_CHECKING:
    from ..game.world import World

__all__ = ["thing_kinds_message", "things_message", "ThingTexts", "publish", "due"]

Column = tuple[int, int]
# A frame's changes: column -> (version, text), or None for a column forgotten (its things are sent again with
# its chunks).
Changes = dict[Column, "tuple[int, str] | None"]


def _dumps(message: dict) -> str:
    return json.dumps(message, separators=(",", ":"))


def thing_kinds_message() -> str:
    """``{"type": "thing_kinds", "kinds": [{"name", "radius" (m), "height" (m)}, ...]}``: the kinds a ``things``
    row's first number indexes."""
    return _dumps({"type": "thing_kinds", "kinds": [{"name": k.name, "radius": k.radius, "height": k.height}
                                                    for k in THING_KINDS]})


def things_message(column: Column, rows: list[list[Any]]) -> str:
    """``{"type": "things", "chunk": [ci, 0, ck], "things": rows}``: the things of the chunk column (ci, ck)
    (rows ``[kind, x, y, z, yaw, scale, state]``, :meth:`GroundThings.rows`; empty: none left)."""
    return _dumps({"type": "things", "chunk": [column[0], 0, column[1]], "things": rows})


class ThingTexts:
    """The world thread's encoder of ``world``'s things messages (nothing for a world without things)."""

    def __init__(self, world: World) -> None:
        self.world = world
        self._read = 0  # how much of the things' whole log is encoded (GroundThings.logged_since)
        self._encoded: set[Column] = set()  # the columns encoded and not forgotten since

    @property
    def kinds(self) -> str | None:
        """The ``thing_kinds`` message, None for a world without things."""
        return None if self.world.ground_things is None else thing_kinds_message()

    def all(self) -> Changes:
        """Every column made, encoded (what a server starts from)."""
        things = self.world.ground_things
        if things is None:
            return {}
        self._read = things.log_start + len(things.log)
        self._encoded = set(things.columns)
        return {c: (things.columns[c].version, things_message(c, things.rows(c))) for c in sorted(things.columns)}

    def changes(self) -> Changes | None:
        """The columns made, changed or forgotten since the last call, encoded; None when there are none. Read so
        far behind that the log let go of what came since: every column again, and those forgotten as None."""
        things = self.world.ground_things
        if things is None or self._read == things.log_start + len(things.log):
            return None
        touched = things.logged_since(self._read)
        if touched is None:
            forgotten: Changes = {c: None for c in sorted(self._encoded) if c not in things.columns}
            return forgotten | self.all()
        self._read = things.log_start + len(things.log)
        out: Changes = {}
        for column in touched:
            kept = things.columns.get(column)
            out[column] = None if kept is None else (kept.version, things_message(column, things.rows(column)))
            if kept is None:
                self._encoded.discard(column)
            else:
                self._encoded.add(column)
        return out


def publish(texts: dict[Column, tuple[int, str]], changes: Changes | None, pages: Iterable[Any]) -> None:
    """Keep a frame's ``changes`` in ``texts`` (on the event loop). A page sent a column that changed gets it
    again (its ``things_due``); a forgotten column is forgotten by the pages too (their ``things_sent``: column ->
    version), so that its things go again with its chunks."""
    if not changes:
        return
    pages = list(pages)
    for column, entry in changes.items():
        if entry is None:
            texts.pop(column, None)
            for page in pages:
                page.things_sent.pop(column, None)
            continue
        texts[column] = entry
        for page in pages:
            if column in page.things_sent:
                page.things_due.add(column)


def due(texts: dict[Column, tuple[int, str]], page: Any, chunks: Iterable[tuple[int, int, int]],
        chunk_ratio: float = 1.0) -> list[str]:
    """The ``things`` messages ``page`` lacks: those of the columns of the ``chunks`` just sent to it, and those of
    its ``things_due`` (columns it was sent that changed since); its ``things_sent`` (column -> version) follows.
    ``chunk_ratio``: a chunk's edge over a things column's (1 for the generated worlds' chunks of 32 voxels)."""
    columns = {(int(i * chunk_ratio), int(k * chunk_ratio)) for i, _, k in chunks} | page.things_due
    page.things_due = set()
    out = []
    for column in sorted(columns):
        entry = texts.get(column)
        if entry is not None and page.things_sent.get(column) != entry[0]:
            page.things_sent[column] = entry[0]
            out.append(entry[1])
    return out
