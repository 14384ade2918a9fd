"""Edits queued for the next frame, saved as the recipe that made them and made again on load.

A queued :class:`~voxelworld.game.edits.VoxelEdit` carries callbacks (what a punch does once its range is
applied: fragments, events, counters), which cannot be stored. What made it can: the player's punch or pull-out
(from the eye and aim), a frame of suck (three edits, from the suck state and the frame time), a thrown object's
impact (the object and the contact), a chainsaw enemy's carve (the enemy and the material). :func:`queue_rows`
names each queued edit's recipe, checks that the recipe makes the same edits again, and writes both; on load,
:func:`restore_queue` makes them again with the same functions (callbacks to the loaded world's objects) and
checks them against the stored edits. An edit without callbacks is stored as it is.
"""

from __future__ import annotations

import inspect
from functools import partial

from ..errors import FormatError, ParameterError
from ..game.actions import pull_out_edit, punch_edit
from ..game.edits import VoxelEdit
from ..game.enemy import ChainsawEnemy
from ..game.suck import suck_edits
from ..game.throwing import impact_edit
from ..game.world import World
from .codec import StateCodec, check_mapping

__all__ = ["queue_rows", "restore_queue"]


def _edit_data(codec: StateCodec, edit: VoxelEdit, where: str) -> dict:
    return {name: codec.encode(getattr(edit, name), f"{where}.{name}")
            for name in ("kind", "shape", "material", "tool", "step", "source", "source_material")}


def _nonlocals(function) -> dict:
    try:
        return inspect.getclosurevars(function).nonlocals
    except TypeError:
        return {}


def _recipe(world: World, queue: list, i: int) -> tuple[dict, int]:
    """The recipe of the queued edit ``i`` (and how many edits it made), or ParameterError."""
    edit = queue[i]
    player = world.player
    if edit.on_before is None and edit.on_applied is None:
        return {"make": "plain"}, 1
    if edit.source in ("punch", "pull_out"):
        return {"make": edit.source, "eye": player.eye, "aim": player.aim}, 1
    if edit.source == "suck" and i + 2 < len(queue):
        held = _nonlocals(queue[i + 2].on_applied)
        if "state" in held and "dt" in held:
            return {"make": "suck", "eye": player.eye, "aim": player.aim, "state": held["state"], "dt": held["dt"]}, 3
    if edit.source.startswith("impact:"):
        held = _nonlocals(edit.on_applied)
        if "thing" in held and "contact" in held:
            return {"make": "impact", "thing": held["thing"], "contact": held["contact"]}, 1
    hook = edit.on_applied
    if isinstance(hook, partial) and getattr(hook.func, "__func__", None) is ChainsawEnemy._record_carve:
        enemy = hook.func.__self__
        if any(e is enemy for e in world.agents.enemies) and len(hook.args) == 1:
            return {"make": "carve", "enemy": enemy.name, "material": hook.args[0]}, 1
    raise ParameterError(f"world.queued_edits[{i}]", edit,
                         "a queued edit voxelworld.io can make again: one without callbacks, or one made by the "
                         "player's actions, a thrown object's impact or a chainsaw enemy's carve")


def _make(world: World, recipe: dict, edits: list[dict], codec: StateCodec, at_load: bool) -> list[VoxelEdit]:
    """The edits ``recipe`` makes; their callbacks go to the world's objects when ``at_load`` (else nowhere:
    saving only checks that the recipe makes the queued edits again)."""
    actions, make = world.actions, recipe["make"]
    volume, bvh, s = world.volume, world.collider.bvh, world.actions.settings

    def to(method, *args):
        return partial(method, *args) if at_load else (lambda result: None)

    if make == "plain":
        values = {name: codec.decode(data, "edit") for name, data in edits[0].items()}
        return [VoxelEdit(**values)]
    if make in ("punch", "pull_out"):
        eye, aim = recipe["eye"], recipe["aim"]
        if make == "punch":
            edit = punch_edit(volume, bvh, eye, aim, to(actions._punched, world, eye), s.punch)
        else:
            edit = pull_out_edit(volume, bvh, eye, aim, to(actions._pulled, world, eye), s.pull_out)
        return [] if edit is None else [edit]
    if make == "suck":
        eye = recipe["eye"]
        return list(suck_edits(recipe["state"], volume, bvh, eye, recipe["aim"], recipe["dt"], True,
                               to(actions._sucked, world, eye), s.suck))
    if make == "impact":
        edit = impact_edit(volume, recipe["thing"], recipe["contact"], to(actions._impacted, world), s.impact)
        return [] if edit is None else [edit]
    if make == "carve":
        enemy = next((e for e in world.agents.enemies if e.name == recipe["enemy"]), None)
        if enemy is None:
            raise FormatError(f"queue: a carve of enemy {recipe['enemy']!r}, which the world does not have")
        shape = codec.decode(edits[0]["shape"], "edit.shape")
        hook = partial(enemy._record_carve, recipe["material"]) if at_load else None
        return [VoxelEdit("remove", shape, tool=enemy.settings.tool, source=enemy.name, on_applied=hook)]
    raise FormatError(f"queue: unknown recipe {make!r}")


def queue_rows(codec: StateCodec, world: World) -> list:
    """The rows of the ``queue`` state row: each queued edit's recipe and the edits it made. ParameterError for an
    edit voxelworld.io cannot make again."""
    queue, rows, i = list(world._queue), [], 0
    while i < len(queue):
        recipe, count = _recipe(world, queue, i)
        where = f"queue[{len(rows)}]"
        edits = [_edit_data(codec, e, f"{where}.edits[{n}]") for n, e in enumerate(queue[i:i + count])]
        remade = [_edit_data(codec, e, where) for e in _make(world, recipe, edits, codec, at_load=False)]
        if remade != edits:
            raise ParameterError(f"world.queued_edits[{i}]", queue[i], "a queued edit its recipe makes again (the "
                                 f"{recipe['make']} it came from no longer matches the world)")
        rows.append({name: codec.encode(value, f"{where}.{name}") for name, value in recipe.items()} |
                    {"edits": edits})
        i += count
    return rows


def restore_queue(codec: StateCodec, world: World, row: dict) -> None:
    """Queue in ``world`` the edits the ``queue`` row's recipes make; FormatError if they are not the stored ones."""
    for n, data in enumerate(check_mapping(row, "state 'queue'", ("edits",))["edits"]):
        where = f"queue[{n}]"
        check_mapping(data, where, ("make", "edits"))
        recipe = {name: codec.decode(value, f"{where}.{name}") for name, value in data.items() if name != "edits"}
        try:
            edits = _make(world, recipe, data["edits"], codec, at_load=True)
        except (ParameterError, KeyError, TypeError) as error:
            raise FormatError(f"{where}: the queued edit cannot be made again: {error}") from error
        if [_edit_data(codec, e, where) for e in edits] != data["edits"]:
            raise FormatError(f"{where}: the {recipe['make']} recipe makes other edits than the saved ones")
        for edit in edits:
            world.queue_edit(edit)
