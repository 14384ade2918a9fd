"""Edits queued for the next frame, saved as the recipe that made them and made again on load.

A queued :class:`~voxelworld.game.edits.VoxelEdit` carries callbacks (what a punch does once its range is
applied: fragments, events, counters), which cannot be stored. What made it can, and the makers say so in the
edit's :class:`~voxelworld.game.edits.EditRecipe` (``edit.recipe``): the player's punch or pull-out (the eye and
aim), a frame of suck (three edits sharing one recipe: the suck state, eye, aim and frame time), a thrown
object's impact (the object and the contact), a chainsaw enemy's carve (the enemy and the material).
:func:`queue_rows` writes each queued edit's recipe with the edits it made, after checking that the recipe makes
the same edits again; on load, :func:`restore_queue` makes them again with the same functions (callbacks to the
loaded world's objects: :meth:`~voxelworld.game.play.PlayerActions.callback_for`,
:meth:`~voxelworld.game.enemy.ChainsawEnemy.carve_edit`) and checks them against the stored edits. An edit
without callbacks is stored as it is.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from ..errors import FormatError, ParameterError
from ..game.actions import pull_out_edit, punch_edit
from ..game.edits import VoxelEdit
from ..game.seats import every_actions
from ..game.shovel import shovel_edit
from ..game.suck import suck_edits
from ..game.throwing import impact_edit
from ..game.world import World
from .codec import StateCodec, check_mapping

if TYPE_CHECKING:
    import numpy as np

    from ..game.play import PlayerActions

__all__ = ["queue_rows", "restore_queue"]


def _edit_data(codec: StateCodec, edit: VoxelEdit, where: str) -> dict:
    return {name: codec.encode(getattr(edit, name), f"{where}.{name}")
            for name in ("kind", "shape", "material", "tool", "step", "source", "source_material")}


def _recipe(edit: VoxelEdit, i: int) -> dict:
    """The recipe row of the queued edit ``i``: ``make`` and the maker's values; ParameterError for an edit
    with callbacks but no recipe."""
    if edit.recipe is not None:
        return {"make": edit.recipe.make} | edit.recipe.as_dict()
    if edit.on_before is None and edit.on_applied is None:
        return {"make": "plain"}
    raise ParameterError(f"world.queued_edits[{i}]", edit,
                         "a queued edit voxelworld.io can make again: one without callbacks, or one with a recipe "
                         "(made by the player's actions, a thrown object's impact or a chainsaw enemy's carve)")


def _make(world: World, recipe: dict, edits: list[dict], codec: StateCodec, at_load: bool,
          by: str = "") -> list[VoxelEdit]:
    """The edits ``recipe`` makes; their callbacks go to the world's objects when ``at_load`` (else nowhere:
    saving only checks that the recipe makes the queued edits again, and a maker may call its callback at
    once); a player's action's to the actions of the player named ``by`` ("": the world's own)."""
    actions, make = _actions_of(world, by), recipe["make"]
    volume, bvh, s = world.volume, world.collider.bvh, actions.settings

    # The maker's callback: it takes what the maker reports (an action's, a suck's or an impact's result).
    def finish(eye: np.ndarray | None = None) -> Callable[[Any], object]:
        return actions.callback_for(world, make, eye) if at_load else (lambda result: None)

    if make == "plain":
        values = {name: codec.decode(data, "edit") for name, data in edits[0].items()}
        return [VoxelEdit(**values)]
    if make in ("punch", "pull_out"):
        eye, aim = recipe["eye"], recipe["aim"]
        if make == "punch":
            edit = punch_edit(volume, bvh, eye, aim, finish(eye), s.punch)
        else:
            edit = pull_out_edit(volume, bvh, eye, aim, finish(eye), s.pull_out)
        return [] if edit is None else [edit]
    if make == "suck":
        eye = recipe["eye"]
        return list(suck_edits(recipe["state"], volume, bvh, eye, recipe["aim"], recipe["dt"], True, finish(eye),
                               s.suck))
    if make == "impact":
        edit = impact_edit(volume, recipe["thing"], recipe["contact"], finish(), s.impact)
        return [] if edit is None else [edit]
    if make == "shovel":
        return [shovel_edit(recipe["eye"], recipe["start"], recipe["end"], recipe["material"], s.shovel,
                            finish(recipe["eye"]))]
    if make == "carve":
        enemy = next((e for e in world.agents.enemies if e.name == recipe["enemy"]), None)
        if enemy is None:
            raise FormatError(f"queue: a carve of enemy {recipe['enemy']!r}, which the world does not have")
        return [enemy.carve_edit(codec.decode(edits[0]["shape"], "edit.shape"), recipe["material"])]
    raise FormatError(f"queue: unknown recipe {make!r}")


def _actions_of(world: World, name: str) -> PlayerActions:
    """The actions of the player named ``name`` ("": the world's own, whatever its name); FormatError for a name no
    player of the world has."""
    if name == "":
        return world.actions
    actions = next((a for a in every_actions(world) if a.player.name == name), None)
    if actions is None:
        raise FormatError(f"queue: an edit by player {name!r}, whom the world does not have")
    return actions


def queue_rows(codec: StateCodec, world: World) -> list:
    """The rows of the ``queue`` state row: each queued edit's recipe and the edits it made. ParameterError for an
    edit voxelworld.io cannot make again."""
    rows: list[dict]
    queue, by, rows, i = list(world.queued_edits), world.queued_by(), [], 0
    while i < len(queue):
        recipe = _recipe(queue[i], i)
        count = 1  # the edits one call made share its recipe object (a frame of suck: three)
        while queue[i].recipe is not None and i + count < len(queue) and queue[i + count].recipe is queue[i].recipe:
            count += 1
        where = f"queue[{len(rows)}]"
        edits = [_edit_data(codec, e, f"{where}.edits[{n}]") for n, e in enumerate(queue[i:i + count])]
        try:
            made = _make(world, recipe, edits, codec, False, by[i])
            remade = [_edit_data(codec, e, where) for e in made]
        except (FormatError, KeyError, TypeError) as error:  # a recipe the world cannot make (a carve of an
            # enemy it does not have, an unknown maker, a missing value)
            raise ParameterError(f"world.queued_edits[{i}]", queue[i], f"a queued edit its recipe makes again "
                                 f"({error})") from error
        if remade != edits:
            raise ParameterError(f"world.queued_edits[{i}]", queue[i], "a queued edit its recipe makes again (the "
                                 f"{recipe['make']} it came from no longer matches the world)")
        rows.append({name: codec.encode(value, f"{where}.{name}") for name, value in recipe.items()} |
                    {"edits": edits} | ({"by": by[i]} if by[i] not in ("", world.player.name) else {}))  # (a seat's)
        i += count
    return rows


def restore_queue(codec: StateCodec, world: World, row: dict) -> None:
    """Queue in ``world`` the edits the ``queue`` row's recipes make; FormatError if they are not the stored ones."""
    for n, data in enumerate(check_mapping(row, "state 'queue'", ("edits",))["edits"]):
        where = f"queue[{n}]"
        check_mapping(data, where, ("make", "edits"))
        recipe = {name: codec.decode(value, f"{where}.{name}") for name, value in data.items()
                  if name not in ("edits", "by")}
        by = data.get("by", "")  # (none: the world's own player's, or no player's)
        try:
            edits = _make(world, recipe, data["edits"], codec, True, by if isinstance(by, str) else repr(by))
        except (ParameterError, KeyError, TypeError) as error:
            raise FormatError(f"{where}: the queued edit cannot be made again: {error}") from error
        if [_edit_data(codec, e, where) for e in edits] != data["edits"]:
            raise FormatError(f"{where}: the {recipe['make']} recipe makes other edits than the saved ones")
        player = None if recipe["make"] in ("plain", "carve") else _actions_of(world, by).player  # not a player's
        for edit in edits:
            world.queue_edit(edit, player)
