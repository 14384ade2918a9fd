"""Cut marks: where the chainsaw enemies' blades cut, kept so that a renderer can draw the sawn face darker than the
untouched rock around it (issue 32: the kerf reads from 10 m).

A :class:`CutMarks` is the world's bounded list of the capsules its enemies' carves cut with (``world.cut_marks``):
each applied edit made by :meth:`~voxelworld.game.enemy.ChainsawEnemy.carve_edit` (its recipe ``carve``) that
removed voxels adds its capsule (the blade's segment and the cut radius), unless a mark already covers it (both
ends of the new segment within :data:`MERGE_DISTANCE` of one mark's segment, the mark's radius at least as large):
a blade slowed in rock carves the same place many times a second, and a mark is worth sending to a page only where
the kerf grew. Only the last ``capacity`` marks are kept (``WorldSettings.cut_marks``, at most :data:`MAX_MARKS`,
what the page's shader holds; 0 keeps none); ``total`` counts every mark ever added, so that a page that has the
marks up to one total is sent only the ones after it. The marks are part of the world's state (saved, taken back
range-checked); a world saved before they existed loads with none.

The work per carve is a few numpy operations on at most :data:`MAX_MARKS` segments; nothing runs per frame.

Examples
--------
>>> from voxelworld.terrain import Capsule
>>> marks = CutMarks(capacity=2)
>>> marks.add(Capsule((0.0, 1.0, 0.0), (0.0, 2.0, 0.0), 0.3))
True
>>> marks.add(Capsule((0.05, 1.1, 0.0), (0.0, 1.9, 0.1), 0.3))  # the blade where it cut a moment ago
False
>>> marks.add(Capsule((0.0, 1.0, 1.0), (0.0, 2.0, 1.0), 0.3)), marks.add(Capsule((0.0, 1.0, 2.0), (0.0, 2.0, 2.0), 0.3))
(True, True)
>>> len(marks), marks.total, marks.marks[0, :3].tolist()  # the oldest dropped
(2, 3, [0.0, 1.0, 1.0])
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from ..attribute_state import array, attribute_state, count, restore_attributes
from ..errors import check_integer, check_range
from ..terrain import Capsule, EditResult, Volume
from .edits import VoxelEdit
from .state_checks import check_inside, world_box

__all__ = ["CutMarks", "MAX_MARKS", "MERGE_DISTANCE", "MAX_RADIUS"]

MAX_MARKS = 64  # the most marks a world keeps: the page's shader holds this many
MERGE_DISTANCE = 0.25  # m: a carve whose segment's ends both lie this close to a mark's segment adds no mark
MAX_RADIUS = 100.0  # m: the largest radius of a mark a state may hold (ChainsawSettings' largest cut radius)
WIDTH = 7  # a mark's numbers: a (x, y, z), b (x, y, z), radius, in m


def _segment_distances(points: np.ndarray, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Distance (m) from each of ``points`` (3,) to each segment ``a[i]``-``b[i]`` ((n, 3) each): (n,)."""
    ab = b - a
    length2 = np.maximum(np.einsum("ij,ij->i", ab, ab), 1e-12)
    t = np.clip(np.einsum("ij,ij->i", points - a, ab) / length2, 0.0, 1.0)
    return np.linalg.norm(points - a - t[:, None] * ab, axis=1)


class CutMarks:
    """The last ``capacity`` (0..:data:`MAX_MARKS`) capsules the enemies cut with (see the module).

    Attributes
    ----------
    marks : (n, 7) float64
        Oldest first: each mark's segment ends a and b and its radius (m).
    total : int
        Marks added since the world began (kept or dropped).
    """

    STATE_ATTRIBUTES = ("marks", "total")
    OTHER_ATTRIBUTES = ("capacity", "_wire")  # the world's setting; the marks as last sent (wire)

    def __init__(self, capacity: int = MAX_MARKS) -> None:
        self.capacity = check_integer("capacity", capacity, minimum=0, maximum=MAX_MARKS)
        self.marks = np.zeros((0, WIDTH))
        self.total = 0
        self._wire: tuple[int, list[list[float]]] = (0, [])

    def __len__(self) -> int:
        return len(self.marks)

    def note(self, edit: VoxelEdit, result: EditResult) -> bool:
        """Add the capsule of an applied edit if it is an enemy's carve that removed voxels (and no mark covers it
        yet); whether a mark was added. The world calls it for every edit it applies."""
        recipe = edit.recipe
        if recipe is None or recipe.make != "carve" or result.voxels_changed <= 0 or not isinstance(edit.shape,
                                                                                                   Capsule):
            return False
        return self.add(edit.shape)

    def add(self, capsule: Capsule) -> bool:
        """Add ``capsule`` as the newest mark unless a mark covers it (see the module); whether it was added."""
        if self.capacity == 0:
            return False
        a, b = np.array(capsule.a, dtype=np.float64), np.array(capsule.b, dtype=np.float64)
        if len(self.marks):
            starts, ends, radii = self.marks[:, 0:3], self.marks[:, 3:6], self.marks[:, 6]
            covered = ((_segment_distances(a, starts, ends) <= MERGE_DISTANCE)
                       & (_segment_distances(b, starts, ends) <= MERGE_DISTANCE) & (radii >= capsule.radius))
            if covered.any():
                return False
        mark = np.concatenate([a, b, [float(capsule.radius)]])[None, :]
        self.marks = np.concatenate([self.marks, mark])[-self.capacity:]
        self.total += 1
        return True

    def wire(self) -> list[list[float]]:
        """The marks as a page is sent them: each ``[ax, ay, az, bx, by, bz, radius]`` rounded to the millimetre
        (worked out once per change)."""
        if self._wire[0] != self.total or len(self._wire[1]) != len(self.marks):
            self._wire = (self.total, np.round(self.marks, 3).tolist())
        return self._wire[1]

    # ------------------------------------------------------------------------------------------- state
    def state_dict(self) -> dict[str, Any]:
        """``marks`` and ``total``, the values themselves."""
        return attribute_state(self, self.STATE_ATTRIBUTES)

    def check_state(self, name: str, state: object, volume: Volume) -> None:
        """ParameterError naming ``name[key]`` unless ``state`` is a :meth:`state_dict` this list can take back in
        a world on ``volume``: at most ``capacity`` marks of 7 finite numbers, their ends within the world's box
        grown by :data:`~voxelworld.game.state_checks.POSITION_MARGIN`, radii in (0, MAX_RADIUS] m, and a total no
        smaller than the marks kept."""
        check_range(name, type(state).__name__, "a mapping with the keys marks, total",
                    isinstance(state, Mapping) and "marks" in state and "total" in state)
        assert isinstance(state, Mapping)
        marks, total = state["marks"], state["total"]
        array((None, WIDTH))(f"{name}['marks']", marks)
        check_range(f"{name}['marks']", f"{len(marks)} marks", f"at most capacity = {self.capacity} marks",
                    len(marks) <= self.capacity)
        check_inside(f"{name}['marks']", marks[:, :6].reshape(-1, 3), world_box(volume))
        check_range(f"{name}['marks']", "a mark's radius out of range", f"radii in (0, {MAX_RADIUS}] m",
                    bool(np.all((marks[:, 6] > 0.0) & (marks[:, 6] <= MAX_RADIUS))))
        count()(f"{name}['total']", total)
        check_range(f"{name}['total']", total, f"a whole number >= the marks kept ({len(marks)})",
                    total >= len(marks))

    def load_state_dict(self, state: Mapping[str, Any], volume: Volume) -> None:
        """Take back a :meth:`state_dict` (checked first: :meth:`check_state`; nothing changes when it is
        refused)."""
        self.check_state("state", state, volume)
        restore_attributes(self, state, self.STATE_ATTRIBUTES)
        self.marks = np.array(self.marks, dtype=np.float64)
        self.total = int(self.total)
