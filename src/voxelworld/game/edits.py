"""Voxel edits as values: what the player's actions, thrown objects and enemies do to the terrain.

A :class:`VoxelEdit` names one update range and what to do there. The :class:`~voxelworld.game.world.World`
queues them (:meth:`~voxelworld.game.world.World.queue_edit`) and applies them in its update stage, density
ranges first, then material ranges, then fragment erasure (:data:`EDIT_PHASES`); the pure action functions
(:func:`~voxelworld.game.actions.punch`, :func:`~voxelworld.game.throwing.impact`, ...) build the same values
and apply them at once, so a world and a script edit the terrain by one path.

Examples
--------
>>> from voxelworld.terrain import Sphere, VoxelVolume
>>> ground = VoxelVolume.from_sdf(lambda x, y, z: y - 4.0, (12, 12, 12), "lava")
>>> result = VoxelEdit("convert", Sphere((6.0, 4.0, 6.0), 2.0), "obsidian", source_material="lava").apply(ground)
>>> sorted(result.added_by_material), result.volume_removed
(['obsidian'], 0.0)
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import cast

from ..errors import check_integer, check_range
from ..terrain import Box, EditResult, Shape, Tool, Volume

__all__ = ["VoxelEdit", "EditRecipe", "EDIT_PHASES", "convert_material"]

# Edit kind -> phase of the update stage: density ranges, then material ranges, then fragment erasure.
EDIT_PHASES = {"remove": 0, "add": 0, "scrape": 0, "paint": 1, "expose_interior": 1, "convert": 1,
               "remove_fragments": 2}


@dataclass(frozen=True, eq=False)
class EditRecipe:
    """What made a :class:`VoxelEdit` that carries callbacks, so it can be made again (a saved world does).

    ``make`` names the maker; ``values`` are its arguments by name, in this order:

    - ``"punch"``, ``"pull_out"``: ``eye``, ``aim`` (the arrays given to
      :func:`~voxelworld.game.actions.punch_edit` / :func:`~voxelworld.game.actions.pull_out_edit`);
    - ``"suck"``: ``eye``, ``aim``, ``state`` (the :class:`~voxelworld.game.suck.SuckState` before the frame),
      ``dt`` (s) of :func:`~voxelworld.game.suck.suck_edits`, held down;
    - ``"impact"``: ``thing``, ``contact`` of :func:`~voxelworld.game.throwing.impact_edit`;
    - ``"carve"``: ``enemy`` (the :class:`~voxelworld.game.enemy.ChainsawEnemy`'s name), ``material`` (what the
      blade touched); the capsule is the edit's own shape (see
      :meth:`~voxelworld.game.enemy.ChainsawEnemy.carve_edit`).

    The settings are not part of it: they are the world's. A maker that makes several edits at once (a frame of
    suck: three) gives them all the same recipe object. Compared by identity (the values hold arrays).
    """

    make: str
    values: tuple[tuple[str, object], ...] = ()

    def __post_init__(self) -> None:
        check_range("make", self.make, "a non-empty string", isinstance(self.make, str) and bool(self.make))
        ok = isinstance(self.values, tuple) and all(
            isinstance(pair, tuple) and len(pair) == 2 and isinstance(pair[0], str) for pair in self.values)
        check_range("values", self.values, "a tuple of (name, value) pairs", ok)

    def as_dict(self) -> dict[str, object]:
        """``values`` as a dict, in their order."""
        return dict(self.values)


@dataclass(frozen=True, eq=False)
class VoxelEdit:
    """A voxel update: ``kind`` over the range ``shape``.

    ``kind``: remove, add, scrape (density ranges), paint, expose_interior, convert (material ranges) or
    remove_fragments; ``shape``: the update range (for remove_fragments a :class:`~voxelworld.terrain.Box`
    judgment region or None for the whole volume); ``material``: what add and paint put, and what convert turns
    ``source_material`` into (in both material slots, density kept); ``tool``: the hardness gate of remove and
    scrape (the default :class:`~voxelworld.terrain.Tool` when None); ``step``: density units (1..255) a scrape
    peels; ``source``: who made it (shown in the :class:`~voxelworld.game.events.VoxelsEdited` event);
    ``on_before``: called with the volume just before the edit applies (to keep what it will change);
    ``on_applied``: called with the :class:`~voxelworld.terrain.EditResult` once applied; ``recipe``: what made
    it (an :class:`EditRecipe`), which the makers of edits with callbacks fill in
    (:func:`~voxelworld.game.actions.punch_edit`, :func:`~voxelworld.game.actions.pull_out_edit`,
    :func:`~voxelworld.game.suck.suck_edits`, :func:`~voxelworld.game.throwing.impact_edit`,
    :meth:`~voxelworld.game.enemy.ChainsawEnemy.carve_edit`) so that :mod:`voxelworld.io` can save a queued edit
    and make it again with its callbacks on load. An edit without callbacks needs none: it is stored as it is.
    Callbacks and recipe are not part of the edit's repr.
    """

    kind: str
    shape: Shape | None
    material: str | int | None = None
    tool: Tool | None = None
    step: int = 0
    source: str = ""
    source_material: str | int | None = None
    on_before: Callable[[Volume], None] | None = field(default=None, repr=False)
    on_applied: Callable[[EditResult], None] | None = field(default=None, repr=False)
    recipe: EditRecipe | None = field(default=None, repr=False, compare=False)

    def __post_init__(self) -> None:
        check_range("kind", self.kind, f"one of {', '.join(EDIT_PHASES)}", self.kind in EDIT_PHASES)
        if self.kind == "remove_fragments":
            check_range("shape", self.shape, "a Box or None for remove_fragments",
                        self.shape is None or isinstance(self.shape, Box))
        else:
            check_range("shape", self.shape, "a voxelworld.terrain Shape", isinstance(self.shape, Shape))
        if self.kind in ("add", "paint", "convert"):
            check_range("material", self.material, "a material name or id", isinstance(self.material, (str, int)))
        if self.kind == "convert":
            check_range("source_material", self.source_material, "a material name or id for convert",
                        isinstance(self.source_material, (str, int)))
        check_range("tool", self.tool, "a Tool or None", self.tool is None or isinstance(self.tool, Tool))
        if self.kind == "scrape":
            object.__setattr__(self, "step", check_integer("step", self.step, minimum=1, maximum=255))
        check_range("source", self.source, "a string", isinstance(self.source, str))
        for name in ("on_before", "on_applied"):
            hook = getattr(self, name)
            check_range(name, hook, "a callable or None", hook is None or callable(hook))
        check_range("recipe", self.recipe, "an EditRecipe or None",
                    self.recipe is None or isinstance(self.recipe, EditRecipe))

    @property
    def phase(self) -> int:
        """0 for density ranges, 1 for material ranges, 2 for fragment erasure."""
        return EDIT_PHASES[self.kind]

    def check_materials(self, volume: Volume) -> None:
        """Raise :class:`~voxelworld.errors.ParameterError` if a material it names is not in ``volume``'s table."""
        for value in (self.material, self.source_material):
            if value is not None:
                volume.materials.id_of(value)

    def apply(self, volume: Volume, announce: Callable[[VoxelEdit, EditResult], None] | None = None
              ) -> EditResult:
        """Apply the edit to ``volume`` and return what it did: ``on_before``, the edit, ``announce(edit, result)``
        when given (the world's event), then ``on_applied``."""
        self.check_materials(volume)
        if self.on_before is not None:
            self.on_before(volume)
        result = self._apply(volume)
        if announce is not None:
            announce(self, result)
        if self.on_applied is not None:
            self.on_applied(result)
        return result

    def _apply(self, volume: Volume) -> EditResult:
        tool = self.tool or Tool()
        # What __post_init__ checked: a Shape for every kind but remove_fragments (a Box or None there), a material
        # for add, paint and convert, a source material for convert.
        shape, material = cast(Shape, self.shape), cast("str | int", self.material)
        if self.kind == "remove":
            return volume.remove(shape, tool)
        if self.kind == "scrape":
            return volume.scrape(shape, self.step, tool)
        if self.kind == "add":
            return volume.add(shape, material)
        if self.kind == "paint":
            return volume.paint(shape, material)
        if self.kind == "expose_interior":
            return volume.expose_interior(shape)
        if self.kind == "convert":
            return convert_material(volume, shape, cast("str | int", self.source_material), material)
        return volume.remove_fragments(cast("Box | None", self.shape))


def convert_material(volume: Volume, shape: Shape, source: str | int, target: str | int) -> EditResult:
    """Turn material ``source`` into ``target`` (names or ids) in both material slots of the voxels whose samples
    lie in ``shape``: :meth:`voxelworld.terrain.VoxelVolume.convert`, which keeps density and the other
    materials, reports the converted volume as removed from ``source`` and added to ``target`` and marks dirty
    only the chunks it changed."""
    return volume.convert(shape, source, target)
