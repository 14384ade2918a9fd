"""The things on the ground of a generated world (trees, pines, bushes, rocks, crates): made per chunk column as the
column enters the streamed area, forgotten when it leaves unless changed, and falling or removed when the ground
under them is dug.

:class:`GroundThings` is ``world.ground_things`` of a world that has a generator (``world.generator``, set by
:func:`voxelworld.game.populate.populate`); a world without one (the demo world, older files) has none and
nothing here runs for it. What a column holds at first is :func:`voxelworld.terrain.scatter.scatter_chunk_column`
of the generator: a pure function of the seed and the column, whenever the column streams in. After each frame's
edits, only the columns those edits touched are checked: a thing whose support (the two voxel samples under its
base) is no longer solid falls (trees and pines: state 1, lying along its yaw, and stays so) or is removed
(state 2), and a :class:`~voxelworld.game.events.ThingChanged` event says so. Changed columns are kept when they
leave the streamed area and saved with the world (:meth:`GroundThings.state_dict`).

Standing trunks, rocks, crates and fallen trees are obstacles: to the player (:meth:`GroundThings.collision_parts`,
a BVH per column, combined into the world's collider only when the things near it change) and to the navmesh
(:meth:`GroundThings.obstacles`, an obstacle box per thing handed to
:class:`~voxelworld.game.navigation.WorldNavigation`, re-baked where a thing falls or goes). Bushes are neither.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from ..collision import TriangleBVH
from ..errors import ParameterError, check_range
from ..navigation import SceneObject
from ..terrain import Box, GeneratorSettings, MaterialTable, Volume
from ..terrain.scatter import THING_KINDS, ScatterSettings, Things, column_count, scatter_chunk_column
from .events import ThingChanged

if TYPE_CHECKING:
    from .world import World

__all__ = ["GroundThings", "STANDING", "FALLEN", "REMOVED", "OBSTACLE_HEIGHT", "LOG_KEPT"]

STANDING, FALLEN, REMOVED = 0, 1, 2
STATE_NAMES = ("standing", "fallen", "removed")
OBSTACLE_HEIGHT = 3.0  # m: the part of a tree that stands in the way (its trunk below the crown)
# Entries of GroundThings.log kept: past twice as many the oldest go (a reader that far behind reads every column
# again: GroundThings.logged_since), so hours of streaming hold a few MiB of log, not one entry a column made.
LOG_KEPT = 1 << 16
# m: the navmesh's obstacle boxes are this much wider on every side (an agent's radius): the bake leaves a hole of
# about an obstacle's own footprint, too small to matter for a trunk (0.6 m) without it.
NAV_GROW = 0.4
# m: and at most this high. The bake excludes nothing under an obstacle box much taller than the agent's clearance
# (1.8 m): a 3 m trunk left the ground under it walkable. Taller than a step (0.5 m), it still stops every agent.
NAV_HEIGHT = 1.5
_MATERIALS = ("bark", "bark", "", "rock", "wood")  # what each kind's obstacle is made of ("": no obstacle)
# A box's corners (unit cube 0..1) and its twelve triangles, outward.
_CORNERS = np.array([(x, y, z) for x in (0.0, 1.0) for y in (0.0, 1.0) for z in (0.0, 1.0)])
_BOX = np.array([(0, 1, 3), (0, 3, 2), (4, 6, 7), (4, 7, 5), (0, 4, 5), (0, 5, 1), (2, 3, 7), (2, 7, 6),
                 (0, 2, 6), (0, 6, 4), (1, 5, 7), (1, 7, 3)], dtype=np.int64)


class ColumnThings:
    """One column's things: the scattered :class:`Things` and each one's state (0 standing, 1 fallen,
    2 removed); ``version`` counts its changes (0: as generated)."""

    def __init__(self, things: Things, state: np.ndarray | None = None, version: int = 0) -> None:
        self.things = things
        self.state = np.zeros(len(things), np.uint8) if state is None else state
        self.version = version
        self.bvh: TriangleBVH | None = None  # the obstacles' BVH (None: none, or not built: ``built``)
        self.built = False
        self.objects: list[SceneObject] | None = None  # the navmesh's obstacles (None: not made yet)

    def changed(self) -> None:
        self.version += 1
        self.bvh, self.built, self.objects = None, False, None


def _box(kind: int, position: np.ndarray, yaw: float, scale: float, state: int, grow: float = 0.0,
         tallest: float = OBSTACLE_HEIGHT) -> np.ndarray:
    """The 8 corners (m) of the obstacle box of a thing: a standing one's upright footprint (2 radius square,
    ``tallest`` m high at most), a fallen tree's trunk lying along its yaw; ``grow`` m wider on every side."""
    spec = THING_KINDS[kind]
    r = spec.radius * scale + grow
    if state == FALLEN:
        size, offset = np.array([spec.height * scale + 2 * grow, 2 * r, 2 * r]), np.array([-grow, 0.0, -r])
    else:
        size = np.array([2 * r, min(spec.height * scale, tallest), 2 * r])
        offset = np.array([-r, -0.2, -r])  # sunk a little: no gap under it on a slope
    local = _CORNERS * size + offset
    a = math.radians(yaw)
    c, s = math.cos(a), math.sin(a)
    # yaw about +y: local x turns to (cos, 0, -sin), local z to (sin, 0, cos)
    x = local[:, 0] * c + local[:, 2] * s
    z = -local[:, 0] * s + local[:, 2] * c
    return np.stack([x + position[0], local[:, 1] + position[1], z + position[2]], axis=1)


class GroundThings:
    """The things on a generated world's ground (see the module docstring).

    Parameters
    ----------
    volume : Volume
        The world's terrain (the generator's world: same shape and voxel size).
    generator : GeneratorSettings
    settings : ScatterSettings
    materials : MaterialTable, optional
        The table the obstacles' materials are looked up in (the world's; by default the volume's).

    Attributes
    ----------
    columns : dict of (ci, ck) to ColumnThings
        The columns made (in the streamed area) and the changed ones kept beyond it.
    log : list of (ci, ck)
        The columns made, changed or forgotten, in order, the last ``LOG_KEPT`` to twice that
        (:meth:`logged_since`; :mod:`voxelworld.viewer.thing_messages` reads it).
    log_start : int
        The place in the whole log of ``log``'s first entry (the entries before it were let go).
    revision : int
        Raised whenever a column's obstacles near the last collider change (the world combines its collider again).
    """

    def __init__(self, volume: Volume, generator: GeneratorSettings, settings: ScatterSettings = ScatterSettings(),
                 materials: MaterialTable | None = None) -> None:
        check_range("generator", generator, "a GeneratorSettings", isinstance(generator, GeneratorSettings))
        check_range("settings", settings, "a ScatterSettings", isinstance(settings, ScatterSettings))
        check_range("volume", volume.shape, f"the generator's world shape {generator.shape}",
                    tuple(volume.shape) == generator.shape and volume.voxel_size == generator.voxel_size)
        self.generator, self.settings = generator, settings
        self.materials = volume.materials if materials is None else materials
        self.columns: dict[tuple[int, int], ColumnThings] = {}
        self.revision = 0
        self._grid = column_count(generator)
        self._edge = volume.chunk_size * volume.voxel_size  # m: a column of the volume's chunks
        self._scatter_edge = 32 * generator.voxel_size  # m: a scatter column
        self._wanted = np.zeros(self._grid, dtype=bool)
        self._collider_columns: frozenset[tuple[int, int]] = frozenset()  # the columns the last collider read
        self._collider_revision = -1  # the revision the last collider was combined at
        self._nav_changes: list[tuple[np.ndarray, np.ndarray]] = []  # boxes the navmesh must re-bake
        self.made = 0  # columns scattered so far
        self.log: list[tuple[int, int]] = []  # columns made, changed or forgotten, in order (the page's messages)
        self.log_start = 0

    # ------------------------------------------------------------------------------------------ streaming
    def follow(self, wanted: np.ndarray | None) -> None:
        """Make the things of the columns ``wanted`` ((chunks x, y, z) bool of the volume's chunks: a column is
        wanted when any of its chunks is; None: every column) that are not made yet, and forget the unchanged
        ones no longer wanted. Called by the world's streaming when the wanted chunks are chosen again."""
        if wanted is None:
            columns = np.ones(self._grid, dtype=bool)
        else:
            columns = self._columns_of(np.asarray(wanted.any(axis=1), dtype=bool))
        for ci, ck in np.argwhere(columns & ~self._wanted).tolist():
            if (ci, ck) not in self.columns:
                self._make((ci, ck))
        for ci, ck in np.argwhere(self._wanted & ~columns).tolist():
            kept = self.columns.get((ci, ck))
            if kept is not None and kept.version == 0:
                del self.columns[(ci, ck)]
                self._touched((ci, ck))
        self._wanted = columns

    def _columns_of(self, chunks: np.ndarray) -> np.ndarray:
        """The scatter columns under the chunk columns ``chunks`` ((chunks x, z) bool) that are any True: the same
        grid for the generated worlds' chunks of 32 voxels, else blocks of it (whole arrays, no loop per column)."""
        ratio = self._scatter_edge / self._edge
        if ratio >= 1.0:  # r x r chunk columns a scatter column
            r = round(ratio)
            nx, nz = chunks.shape
            padded = np.zeros((-(-nx // r) * r, -(-nz // r) * r), dtype=bool)
            padded[:nx, :nz] = chunks
            columns = np.asarray(padded.reshape(padded.shape[0] // r, r, padded.shape[1] // r, r).any(axis=(1, 3)))
        else:  # a chunk column over r x r scatter columns
            r = round(1.0 / ratio)
            columns = np.repeat(np.repeat(chunks, r, axis=0), r, axis=1)
        out = np.zeros(self._grid, dtype=bool)
        gx, gz = min(self._grid[0], columns.shape[0]), min(self._grid[1], columns.shape[1])
        out[:gx, :gz] = columns[:gx, :gz]
        return out

    def _make(self, column: tuple[int, int]) -> None:
        things = scatter_chunk_column(self.generator, self.settings, column)
        self.columns[column] = ColumnThings(things)
        self.made += 1
        self._touched(column)

    def _touched(self, column: tuple[int, int]) -> None:
        """``column`` was made, changed or forgotten: logged, and the collider combined again if it reads it."""
        if column in self._collider_columns:
            self.revision += 1
        self._log(column)

    def _log(self, column: tuple[int, int]) -> None:
        log = self.log
        log.append(column)
        if len(log) > 2 * LOG_KEPT:
            self.log_start += len(log) - LOG_KEPT
            del log[:len(log) - LOG_KEPT]

    def logged_since(self, place: int) -> list[tuple[int, int]] | None:
        """The columns made, changed or forgotten from ``place`` in the whole log on (``log_start + len(log)``:
        the end now), each once, in order; None when entries from ``place`` on were let go (read every column)."""
        if place < self.log_start:
            return None
        return sorted(set(self.log[place - self.log_start:]))

    # ------------------------------------------------------------------------------------------ edits
    def after_edits(self, world: World, inputs: object = None) -> None:
        """The world's handler after the frame's edits ("fragment_erasure"): check the things of the columns the
        edits touched. Nothing to do in a frame without edits."""
        if not world.applied_edits:
            return
        chunks: set[tuple[int, int, int]] = set()
        for _, result in world.applied_edits:
            chunks |= result.dirty_chunks
        for column in sorted(self.chunk_columns(chunks)):
            kept = self.columns.get(column)
            if kept is not None and len(kept.things):
                self._check(world, column, kept)

    def _check(self, world: World, column: tuple[int, int], kept: ColumnThings) -> None:
        volume = world.volume
        s, iso = volume.voxel_size, volume.iso
        things, changed = kept.things, False
        for n in np.flatnonzero(kept.state == STANDING).tolist():
            p = things.position[n]
            local = (p - volume.origin) / s  # (a generated world's corner is 0, but the volume says where it is)
            i, k = round(local[0]), round(local[2])
            j = math.floor(local[1])
            lo = np.array([i, max(j - 2, 0), k])
            if lo[0] >= volume.shape[0] or lo[2] >= volume.shape[2] or j < 1:
                continue
            density = volume.read_window(lo, np.array([i + 1, max(j, 1), k + 1]), ("density",))["density"]
            if (density >= iso).any():
                continue
            spec = THING_KINDS[int(things.kind[n])]
            old = _box(int(things.kind[n]), p, float(things.yaw[n]), float(things.scale[n]), STANDING, NAV_GROW)
            kept.state[n] = FALLEN if spec.falls else REMOVED
            new = _box(int(things.kind[n]), p, float(things.yaw[n]), float(things.scale[n]), FALLEN, NAV_GROW) \
                if spec.falls else old
            both = np.concatenate([old, new])
            self._nav_changes.append((both.min(axis=0), both.max(axis=0)))
            changed = True
            world.emit(ThingChanged, kind=spec.name, column=column, index=n,
                       position=tuple(round(float(v), 3) for v in p), state=STATE_NAMES[int(kept.state[n])])
        if changed:
            kept.changed()
            self._touched(column)
            self._rebake(world)

    def _rebake(self, world: World) -> None:
        """Hand the boxes of the things that fell or went to the world's navmesh (re-baked there now)."""
        nav = world.agents.navigation if getattr(world, "agents", None) is not None else None
        changes, self._nav_changes = self._nav_changes, []
        if nav is None or not changes:
            return
        lo = np.min([c[0] for c in changes], axis=0)
        hi = np.max([c[1] for c in changes], axis=0)
        nav.things_changed(lo, hi)

    # ------------------------------------------------------------------------------------------ obstacles
    def _thing_boxes(self, kept: ColumnThings, grow: float = 0.0, tallest: float = OBSTACLE_HEIGHT
                     ) -> list[tuple[int, np.ndarray]]:
        things = kept.things
        return [(n, _box(int(things.kind[n]), things.position[n], float(things.yaw[n]), float(things.scale[n]),
                         int(kept.state[n]), grow, tallest))
                for n in range(len(things)) if kept.state[n] != REMOVED and _MATERIALS[int(things.kind[n])]]

    def collider_stale(self) -> bool:
        """Whether the obstacles near the last collider changed since it was combined (a frame's only cost)."""
        return self.revision != self._collider_revision

    def collision_parts(self, boxes: Sequence[Box]) -> list[TriangleBVH]:
        """The obstacles' BVHs (one per column with any; object -1, each triangle of its kind's material) of the
        columns meeting the x-z extent of any of ``boxes`` (m), in column order; remembers those columns (see
        :attr:`revision`)."""
        e, (gi, gk) = self._scatter_edge, self._grid
        columns = set()
        for box in boxes:
            ci0, ck0 = max(int(box.min[0] // e), 0), max(int(box.min[2] // e), 0)
            ci1, ck1 = min(int(box.max[0] // e), gi - 1), min(int(box.max[2] // e), gk - 1)
            columns |= {(ci, ck) for ci in range(ci0, ci1 + 1) for ck in range(ck0, ck1 + 1)}
        self._collider_columns = frozenset(columns)
        self._collider_revision = self.revision
        parts = []
        materials = self.materials
        for ci, ck in sorted(columns):
            kept = self.columns.get((ci, ck))
            if kept is None:
                continue
            if not kept.built:
                kept.built = True
                things = self._thing_boxes(kept)
                if not things:
                    kept.bvh = None
                else:
                    ids = [materials.id_of(_MATERIALS[int(kept.things.kind[n])])
                           if _MATERIALS[int(kept.things.kind[n])] in materials else 0 for n, _ in things]
                    kept.bvh = TriangleBVH(np.concatenate([b for _, b in things]),
                                           np.concatenate([_BOX + 8 * m for m in range(len(things))]),
                                           np.repeat(np.array(ids, np.uint8), len(_BOX)))
            if kept.bvh is not None:
                parts.append(kept.bvh)
        return parts

    def obstacles(self, columns: Iterable[tuple[int, int]] | None = None) -> list[SceneObject]:
        """The navmesh's obstacles (a box per standing trunk, rock or crate, or fallen tree; role "obstacle")
        of ``columns`` (scatter columns; None: every column made), in column order."""
        chosen = sorted(self.columns) if columns is None else sorted(set(columns) & set(self.columns))
        out: list[SceneObject] = []
        for column in chosen:
            kept = self.columns[column]
            if kept.objects is None:
                kept.objects = [SceneObject(f"thing/{column[0]},{column[1]}/{n}", box, _BOX, "obstacle")
                                for n, box in self._thing_boxes(kept, NAV_GROW, NAV_HEIGHT)]
            out.extend(kept.objects)
        return out

    def chunk_columns(self, chunks: Iterable[tuple[int, int, int]]) -> set[tuple[int, int]]:
        """The scatter columns under the volume's ``chunks``."""
        ratio = self._scatter_edge / self._edge
        out: set[tuple[int, int]] = set()
        for ci, _, ck in chunks:
            a0, a1 = int(ci // ratio), int(math.ceil((ci + 1) / ratio))
            b0, b1 = int(ck // ratio), int(math.ceil((ck + 1) / ratio))
            out.update((a, b) for a in range(a0, a1) for b in range(b0, b1))
        return out

    # ------------------------------------------------------------------------------------------ page
    def rows(self, column: tuple[int, int]) -> list[list[Any]]:
        """A column's things as the page's rows ``[kind index, x, y, z, yaw degrees, scale, state]`` (positions
        rounded to 1 cm, the removed left out; docs/specs/play-protocol.md)."""
        kept = self.columns.get(column)
        if kept is None:
            return []
        t = kept.things
        return [[int(t.kind[n]), round(float(t.position[n, 0]), 2), round(float(t.position[n, 1]), 2),
                 round(float(t.position[n, 2]), 2), round(float(t.yaw[n]), 1), round(float(t.scale[n]), 3),
                 int(kept.state[n])] for n in range(len(t)) if kept.state[n] != REMOVED]

    def version(self, column: tuple[int, int]) -> int | None:
        """The column's version (0: as generated; None: not made)."""
        kept = self.columns.get(column)
        return None if kept is None else kept.version

    # ------------------------------------------------------------------------------------------ state
    def state_dict(self) -> dict:
        """The changed columns' things (those that differ from the generator's): ``columns`` a list of
        ``[ci, ck, version, [[index, state], ...]]`` of the things not standing."""
        out = []
        for column in sorted(self.columns):
            kept = self.columns[column]
            if kept.version:
                changed = np.flatnonzero(kept.state != STANDING).tolist()
                out.append([column[0], column[1], kept.version, [[n, int(kept.state[n])] for n in changed]])
        return {"columns": out}

    def load_state_dict(self, state: Mapping) -> None:
        """Take back a :meth:`state_dict` (the changed columns are scattered again and their states set);
        ParameterError, before anything changes, for a column, index or state out of range."""
        if not (isinstance(state, Mapping) and isinstance(state.get("columns"), list)):
            raise ParameterError("state['columns']", state, "a list of [ci, ck, version, [[index, state], ...]]")
        loaded = {}
        for m, row in enumerate(state["columns"]):
            where = f"state['columns'][{m}]"
            if not (isinstance(row, list) and len(row) == 4 and all(isinstance(v, int) for v in row[:3])
                    and 0 <= row[0] < self._grid[0] and 0 <= row[1] < self._grid[1] and row[2] >= 1
                    and isinstance(row[3], list)):
                raise ParameterError(where, row, f"[ci, ck, version >= 1, [[index, state], ...]] of a column below "
                                     f"{self._grid}")
            things = scatter_chunk_column(self.generator, self.settings, (row[0], row[1]))
            kept = ColumnThings(things, version=row[2])
            for pair in row[3]:
                if not (isinstance(pair, list) and len(pair) == 2 and all(isinstance(v, int) for v in pair)
                        and 0 <= pair[0] < len(things) and pair[1] in (FALLEN, REMOVED)):
                    raise ParameterError(where, pair, f"[index below {len(things)}, state 1 or 2]")
                kept.state[pair[0]] = pair[1]
            loaded[(row[0], row[1])] = kept
        self.columns.update(loaded)
        for column in sorted(loaded):
            self._log(column)
        self.revision += 1


def attach(world: World, generator: GeneratorSettings, settings: ScatterSettings = ScatterSettings(),
           state: Mapping | None = None) -> GroundThings:
    """Give ``world`` the generator it was made by and its things on the ground: ``world.generator``,
    ``world.ground_things`` (the columns of the streamed area made now; ``state``: a saved
    :meth:`GroundThings.state_dict` taken back), checked after each frame's edits; a navmesh the world already
    has bakes them in (:meth:`~voxelworld.game.navigation.WorldNavigation.attach_things`)."""
    check_range("world.ground_things", world.ground_things, "None: a world gets its things once",
                world.ground_things is None)
    things = GroundThings(world.volume, generator, settings, world.materials)
    if state is not None:
        things.load_state_dict(state)
    if world.settings.view_distance is None:
        things.follow(None)  # a world meshed whole: every column
    else:  # the area the streaming keeps: made now, not in the first frame (3 400 columns, 0.4 s, on the 1 km world)
        things.follow(world.chunks_in_view()[1])
    world.generator, world.ground_things = generator, things
    world.add_handler(things.after_edits, "fragment_erasure")
    nav = world.agents.navigation
    if nav is not None:
        nav.attach_things(things)
    return things
