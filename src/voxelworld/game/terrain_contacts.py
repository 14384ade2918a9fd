"""What a tool held by a character touches in the terrain: contact queries for
:meth:`voxelworld.motion.ContactMotion.step` answered by the terrain's collision mesh near the character and the
hardness of the *voxel* behind the contact point.

The chainsaw enemy (:mod:`voxelworld.game.enemy`) and the shovel digger (:mod:`voxelworld.game.digger`) ask
the same question every frame: does the tool's capsule touch the ground, and how hard is what it touches? The
collision mesh gives the contact (one material per triangle, as gameplay needs); the voxel just behind the
surface gives the material the blade is actually in (the dominant material of the first solid voxel found up to
two voxels behind the contact, the triangle's material if none is), so a blade slows by the rock it cuts even
where a soil triangle covers it.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike

from ..collision import TriangleBVH
from ..errors import ParameterError, check_finite, check_point
from ..meshing import ChunkMesher
from ..motion import Contact
from ..terrain import Volume
from .collider import Collider, chunk_bvhs

__all__ = ["TerrainContacts"]

# A box holding everything (the world's collider's part is asked for every query).
_EVERYWHERE = (np.full(3, -np.inf), np.full(3, np.inf))
# Where voxel_material looks, in voxels behind the point (against the normal; negative: in front), in order.
_BEHIND = np.array([0.5, 1.0, 1.5, 2.0, -0.5, -1.0])


class TerrainContacts:
    """Contact queries of a tool against the terrain within ``reach`` of a centre (see the module).

    Parameters
    ----------
    volume : VoxelVolume
    mesher : ChunkMesher
        The mesher of ``volume``; its collision meshes as of its last ``update()`` are what the tool touches.
    reach : float
        m (> 0): the collision mesh within this distance of the centre is searched.

    Examples
    --------
    >>> from voxelworld.terrain import Box, VoxelVolume
    >>> from voxelworld.meshing import ChunkMesher
    >>> volume = VoxelVolume((32, 16, 32), voxel_size=0.1, chunk_size=16)
    >>> _ = volume.add(Box((0.0, 0.0, 0.0), (3.2, 0.5, 3.2)), "rock")
    >>> mesher = ChunkMesher(volume)
    >>> _ = mesher.update()
    >>> contacts = TerrainContacts(volume, mesher, reach=1.0)
    >>> contacts.refresh((1.6, 0.5, 1.6))
    >>> hit = contacts((1.6, 0.9, 1.6), (1.6, 0.45, 1.6), 0.05)
    >>> hit.material, hit.hardness
    ('rock', 5.0)
    >>> contacts((1.6, 0.9, 1.6), (1.6, 0.7, 1.6), 0.05) is None
    True
    """

    def __init__(self, volume: Volume, mesher: ChunkMesher, reach: float) -> None:
        if not isinstance(volume, Volume):
            raise ParameterError("volume", type(volume).__name__, "a voxelworld.terrain.VoxelVolume or SparseVolume")
        if not isinstance(mesher, ChunkMesher) or mesher.volume is not volume:
            raise ParameterError("mesher", type(mesher).__name__, "a ChunkMesher of this volume")
        self.volume, self.mesher = volume, mesher
        self.reach = check_finite("reach", reach, minimum=0.0, strict_minimum=True, unit="m")
        self._key: tuple | None = None
        # The BVHs asked, in the chunks' order, and their vertices' boxes (m; rows of _lows, _highs): the chunks
        # within reach, or the world's collider (then props are in it, and their contacts are not the terrain's:
        # _shared).
        self._parts: list[TriangleBVH] = []
        self._lows, self._highs = np.zeros((0, 3)), np.zeros((0, 3))
        self._shared = False

    def refresh(self, centre: ArrayLike, collider: Collider | None = None) -> None:
        """Take the collision mesh within ``reach`` of ``centre`` (m): ``collider``'s (the world's, combined this
        frame) when it :meth:`~Collider.covers` that ball, else the BVHs of the chunks within reach (each chunk's
        BVH is the one the world's collider shares, :func:`~voxelworld.game.collider.chunk_bvhs`; a query asks
        those whose box it meets, none combined). The contacts are the same either way."""
        centre = check_point("centre", centre)
        if collider is not None and collider.covers(centre, self.reach):
            self._key, self._shared = None, True
            self._set_parts([] if collider.bvh is None else [(collider.bvh, *_EVERYWHERE)])
            return
        key = self.mesher.collision_key(near=np.array(centre), radius=self.reach)
        if key != self._key or self._shared:
            self._key, self._shared = key, False
            # A chunk's BVH is new when its collision mesh is (never refitted): the boxes of those kept are kept.
            boxes = {id(bvh): (lo, hi) for bvh, lo, hi in zip(self._parts, self._lows, self._highs)}
            self._set_parts([(bvh, *(boxes.get(id(bvh)) or (bvh.positions.min(axis=0), bvh.positions.max(axis=0))))
                             for bvh in chunk_bvhs(self.mesher).chunk_parts(key)])

    def _set_parts(self, parts: list[tuple[TriangleBVH, np.ndarray, np.ndarray]]) -> None:
        self._parts = [bvh for bvh, _, _ in parts]
        self._lows = np.array([lo for _, lo, _ in parts]).reshape(-1, 3)
        self._highs = np.array([hi for _, _, hi in parts]).reshape(-1, 3)

    def voxel_material(self, point: ArrayLike, normal: ArrayLike) -> int:
        """The material id of the first solid voxel just behind ``point`` (against ``normal``, then along it,
        up to two voxels), by its dominant material; 0 if none is solid."""
        volume = self.volume
        point, normal = np.asarray(point, dtype=float), np.asarray(normal, dtype=float)
        candidates = np.rint((point - normal * _BEHIND[:, None] * volume.voxel_size - volume.origin)
                             / volume.voxel_size).astype(np.int64)
        # Voxel by voxel, in order (the first is mostly solid: one voxel read, not a window of the few around).
        shape = volume.shape
        for index in candidates.tolist():
            if all(0 <= v < n for v, n in zip(index, shape)):
                voxel = volume.read_voxel(np.array(index, dtype=np.int64))
                if voxel["density"] >= volume.iso:
                    return voxel["mat_b"] if voxel["mix"] > 127 else voxel["mat_a"]
        return 0

    def __call__(self, start: ArrayLike, end: ArrayLike, radius: float) -> Contact | None:
        """The contact of the capsule ``start``-``end`` (m) of ``radius`` (m) with the terrain, the deepest of its
        triangles (ties: the first, in chunk then triangle order), or None."""
        start, end = np.asarray(start, dtype=float), np.asarray(end, dtype=float)
        lo, hi = np.minimum(start, end) - radius, np.maximum(start, end) + radius
        best = None  # (depth, point, normal, material id)
        # The parts whose box the capsule's box meets, in order (one test for all: a few dozen chunks near).
        meets = ((lo <= self._highs) & (hi >= self._lows)).all(axis=1)
        for n in np.flatnonzero(meets).tolist():
            found = self._parts[n].overlap_capsule(start, end, radius)
            depth = found.depth if not self._shared else np.where(found.object < 0, found.depth, -np.inf)
            if depth.size == 0 or depth.max() == -np.inf:
                continue
            deepest = int(np.argmax(depth))
            if best is None or depth[deepest] > best[0]:
                best = (depth[deepest], found.point[deepest], found.normal[deepest], int(found.material[deepest]))
        if best is None:
            return None
        _, point, normal, triangle_material = best
        material = self.voxel_material(point, normal) or triangle_material
        materials = self.volume.materials
        if material not in materials:
            return None
        return Contact(tuple(point), tuple(normal), materials[material].name, materials[material].hardness)
