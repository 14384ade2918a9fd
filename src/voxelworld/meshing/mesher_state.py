"""What :class:`~voxelworld.meshing.ChunkMesher` has seen of its volume, handed over and taken back: the chunk
versions it meshed and the voxels it saw where the volume changed since (its meshes are functions of them), so that
a saved game's mesher meshes again what the one that saved it would, bit for bit.

:class:`MesherState` is the part of ``ChunkMesher`` that does it (ChunkMesher inherits it; taking a state back runs
the mesher's update steps on the chunks whose voxels differ).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, cast

import numpy as np

from ..errors import ParameterError, check_integer, check_range
from ..terrain import Volume
from ..terrain.base import FIELD_DTYPES
from .chunk_surfaces import MESHED_FIELDS, all_chunks
from .mesher_levels import described

__all__ = ["MesherState"]


class MesherState:
    """The state of a :class:`~voxelworld.meshing.ChunkMesher` (a part of it: see the module)."""

    # Set by ChunkMesher (its __init__ and _start_over).
    volume: Volume
    _fields: Volume | None
    _seen: np.ndarray
    _copied: np.ndarray
    _seen_as_of: tuple[int, np.ndarray | None]
    _active: np.ndarray
    _activated: set[tuple]
    _deactivated: set[tuple]
    _shade: set[tuple]
    _shade_boxes: list[tuple[np.ndarray, np.ndarray]]
    _refreshes: int
    _taken_at: np.ndarray
    refresh_interval: int

    if TYPE_CHECKING:  # defined by ChunkMesher, MesherLevels and MesherCollision
        @property
        def active(self) -> np.ndarray: ...
        @property
        def display_levels(self) -> np.ndarray: ...
        @property
        def detail_levels(self) -> np.ndarray: ...
        def set_display_levels(self, levels: np.ndarray) -> frozenset[tuple[int, int, int]]: ...
        def set_detail_levels(self, levels: np.ndarray) -> frozenset[tuple[int, int, int]]: ...
        def _check_detail(self, levels: np.ndarray) -> None: ...
        def _forget_collision(self, chunk: tuple) -> None: ...
        def _start_over(self) -> None: ...
        def _active_chunks(self) -> set[tuple]: ...
        def _forget_inactive(self, owed: bool = False) -> None: ...
        def settle_deferred(self) -> None: ...
        def _take_changes(self, chunk: tuple, source: Volume) -> tuple[np.ndarray, np.ndarray] | None: ...
        def _chunks_reading(self, lo: np.ndarray, hi: np.ndarray) -> set[tuple]: ...
        def _chunks_shading(self, lo: np.ndarray, hi: np.ndarray) -> set[tuple]: ...
        def _refresh(self, rebuild: set[tuple]) -> frozenset[tuple[int, int, int]]: ...
        def simplify_vertices(self) -> frozenset[tuple[int, int, int]]: ...
        def build_display_meshes(self) -> object: ...

    def state_dict(self) -> dict[str, Any]:
        """What the mesher has seen of the volume (its meshes are functions of it): ``seen``, a copy of the chunk
        versions at the last :meth:`update` (-1 everywhere before the first), and ``behind``, the voxels it saw in
        the chunks changed since (those whose version in ``seen`` differs from the volume's): chunk (i, j, k) ->
        field name (:data:`MESHED_FIELDS`) -> a copy of the field's values in the chunk's window (its samples
        ``volume.chunk_box(chunk)``), in chunk order; None before the first update. Elsewhere it saw the volume's
        voxels as they are, so the state stays small: empty ``behind`` unless the volume was edited since.
        ``taken``: chunk -> how many updates ago its changes were last taken, for the chunks whose next changes
        would wait (``refresh_interval``), in chunk order.

        Examples
        --------
        >>> from voxelworld.meshing import ChunkMesher
        >>> from voxelworld.terrain import VoxelVolume, Sphere
        >>> ground = VoxelVolume.from_sdf(lambda x, y, z: y - 20.0, (64, 40, 64), material="soil")
        >>> mesher = ChunkMesher(ground)
        >>> _ = mesher.update()
        >>> _ = ground.remove(Sphere((10.0, 20.0, 10.0), 3.0))  # not meshed yet
        >>> state = mesher.state_dict()
        >>> sorted(state["behind"]), state["behind"][(0, 0, 0)]["density"].shape
        ([(0, 0, 0)], (32, 32, 32))
        >>> twin = ChunkMesher(ground)  # meshes the voxels as they are now, then goes back to what mesher saw
        >>> twin.load_state_dict(state)
        >>> twin.display_mesh().positions.tobytes() == mesher.display_mesh().positions.tobytes()
        True
        """
        if self._fields is None:
            return {"seen": self._seen.copy(), "behind": None, "levels": self.display_levels,
                    "detail": self.detail_levels, "active": self.active, "taken": {}}
        volume = self.volume
        behind = {}
        for chunk in map(tuple, np.argwhere((self._seen >= 0) & (self._seen != volume.chunk_versions)).tolist()):
            lo, hi = volume.chunk_box(chunk)
            behind[chunk] = {name: np.array(values) for name, values in
                             self._fields.read_window(lo, hi, MESHED_FIELDS).items()}
        return {"seen": self._seen.copy(), "behind": behind, "levels": self.display_levels,
                "detail": self.detail_levels, "active": self.active, "taken": self.recently_taken()}

    def recently_taken(self) -> dict[tuple, int]:
        """The chunks whose next changes would wait (``refresh_interval``): chunk -> how many updates ago its
        changes were last taken, in chunk order (the ``taken`` of :meth:`state_dict`)."""
        ago = self._refreshes - self._taken_at
        return {(i, j, k): int(ago[i, j, k]) for i, j, k in np.argwhere(ago < self.refresh_interval - 1).tolist()}

    def load_state_dict(self, state: Mapping[str, Any]) -> None:
        """Take back a :meth:`state_dict` on the volume as it is now (as it was when the state was handed over):
        the mesher's copy of the fields becomes the volume's with the ``behind`` chunks' voxels as it saw them,
        its chunk versions ``seen``; it remeshes from that copy the chunks whose vertices read a sample that
        differs from what it had meshed (every chunk if it had not updated yet). Its meshes are then those of the
        mesher that handed the state over, bit for bit, and its next :meth:`update` remeshes what that one's would.
        The volume is not touched. ``levels`` (optional: states saved before it existed leave the mesher's own)
        are the display levels per chunk (:meth:`set_display_levels`) and ``detail`` (optional too) the levels of
        detail (:meth:`set_detail_levels`), taken first; ``taken`` (optional: none waits) says which chunks' next
        changes wait.

        ParameterError, before anything changes, for a missing key, ``seen`` not an integer array of the chunk
        grid's shape (-1 everywhere, with ``behind`` None, or versions >= 0), ``behind`` not exactly the chunks
        whose version in ``seen`` differs from the volume's, or a field missing or not of its chunk window's shape
        and the volume's dtype.
        """
        seen, behind = self._checked_state(state)
        taken = self._checked_taken(state.get("taken", {}))
        self.settle_deferred()  # what was owed is made by the update steps below, or forgotten by a start over
        if state.get("active") is not None:
            check_range("state['active']", described(state["active"]),
                        f"a bool array of the chunk grid's shape {self.volume.chunk_grid_shape}",
                        isinstance(state["active"], np.ndarray) and state["active"].dtype == bool
                        and state["active"].shape == self.volume.chunk_grid_shape)
        if state.get("detail") is not None:
            self._check_detail(state["detail"])  # before anything changes
        if state.get("levels") is not None:
            self.set_display_levels(state["levels"])
        if state.get("detail") is not None:
            self.set_detail_levels(state["detail"])
        if state.get("active") is not None:
            self._active = state["active"].copy()
            self._activated, self._deactivated = set(), set()
        if behind is None:
            for every in all_chunks(self.volume):
                self._forget_collision(every)
            self._start_over()
            return
        volume = self.volume
        fields = volume.snapshot(MESHED_FIELDS)
        for chunk, saw in behind.items():
            fields._set_chunk(chunk, {name: saw[name] for name in MESHED_FIELDS})
        if self._fields is None:
            self._fields = fields
            rebuild = self._active_chunks()
            self._forget_inactive()
        else:
            # The mesher's copy differs from the new one at most where the mesher is behind the volume or the
            # state is.
            rebuild = set()
            # Chunks it did not follow: nothing meshed reads what it kept of them, so they take the new copy's
            # without a comparison (a chunk left in a store stays there: no read).
            for chunk in map(tuple, np.argwhere(self._seen < 0).tolist()):
                if chunk not in behind:
                    fields.copy_chunk_to(self._fields, chunk, MESHED_FIELDS)
            ahead = set(map(tuple, np.argwhere((self._seen >= 0) & (self._seen != volume.chunk_versions)).tolist()))
            for chunk in sorted(ahead | set(behind)):
                changed = self._take_changes(chunk, fields)
                if changed is not None:
                    rebuild |= self._chunks_reading(*changed)
                    self._shade |= self._chunks_shading(*changed)
                    self._shade_boxes.append(changed)
            rebuild |= self._activated
            self._forget_inactive()
        self._seen, self._seen_as_of = seen, (-1, None)
        # The copy holds the volume's voxels now but where the state was behind it.
        self._copied = volume.chunk_versions.copy()
        for chunk in behind:
            self._copied[chunk] = -1
        self._activated, self._deactivated = set(), set()
        self._refresh(rebuild)
        self.simplify_vertices()
        self.build_display_meshes()
        self._taken_at[...] = -self.refresh_interval
        for chunk, ago in taken.items():
            self._taken_at[chunk] = self._refreshes - ago

    def _checked_taken(self, taken: object) -> dict[tuple, int]:
        """``state['taken']`` checked: chunk (i, j, k) of the grid -> updates ago (a whole number >= 0)."""
        grid = self.volume.chunk_grid_shape
        check_range("state['taken']", described(taken), "a mapping chunk (i, j, k) -> updates ago (>= 0)",
                    isinstance(taken, Mapping))
        checked = {}
        for chunk, ago in cast(Mapping, taken).items():
            check_range("state['taken']", chunk, f"a chunk (i, j, k) of the grid {grid}",
                        isinstance(chunk, tuple) and len(chunk) == 3
                        and all(isinstance(c, int) and 0 <= c < n for c, n in zip(chunk, grid)))
            checked[chunk] = check_integer(f"state['taken'][{chunk}]", ago, minimum=0, maximum=2 ** 62)
        return checked

    def _checked_state(self, state: object) -> tuple[np.ndarray, dict[tuple, Mapping[str, np.ndarray]] | None]:
        """``state``'s ``seen`` (an int64 copy) and ``behind`` (by the grid's chunk tuples), or ParameterError."""
        volume = self.volume
        if not (isinstance(state, Mapping) and "seen" in state and "behind" in state):
            raise ParameterError("state", sorted(map(str, state)) if isinstance(state, Mapping) else described(state),
                                 "a mapping with the keys seen, behind")
        seen, behind, grid = state["seen"], state["behind"], volume.chunk_grid_shape
        check_range("state['seen']", described(seen), f"an integer array of the chunk grid's shape {grid}",
                    isinstance(seen, np.ndarray) and seen.dtype.kind in "iu" and seen.shape == grid)
        seen = seen.astype(np.int64)
        if behind is None:
            check_range("state['seen']", int(seen.max(initial=-1)), "-1 everywhere when behind is None (not updated)",
                        bool(np.all(seen == -1)))
            return seen, None
        check_range("state['seen']", int(seen.min(initial=0)), "chunk versions >= 0, or -1 where not followed",
                    bool(np.all(seen >= -1)))
        check_range("state['behind']", described(behind), "a mapping chunk (i, j, k) -> fields, or None",
                    isinstance(behind, Mapping))
        expected = list(map(tuple, np.argwhere((seen >= 0) & (seen != volume.chunk_versions)).tolist()))
        check_range("state['behind']", sorted(map(str, behind)),
                    f"exactly the chunks whose version in seen differs from the volume's: {expected}",
                    set(behind) == set(expected))
        checked = {}
        for chunk in expected:
            where = f"state['behind'][{chunk}]"
            fields = behind[chunk]
            check_range(where, sorted(map(str, fields)) if isinstance(fields, Mapping) else described(fields),
                        f"a mapping with the keys {', '.join(MESHED_FIELDS)}",
                        isinstance(fields, Mapping) and set(fields) == set(MESHED_FIELDS))
            shape = tuple(int(b - a) for a, b in zip(*volume.chunk_box(chunk)))
            for name in MESHED_FIELDS:
                values, dtype = fields[name], FIELD_DTYPES[name]
                check_range(f"{where}['{name}']", described(values),
                            f"a {dtype} array of the chunk window's shape {shape}",
                            isinstance(values, np.ndarray) and values.dtype == dtype and values.shape == shape)
            checked[chunk] = fields
        return seen, checked
