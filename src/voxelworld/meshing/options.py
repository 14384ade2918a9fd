"""`MeshOptions`: how volumes are turned into meshes."""

from __future__ import annotations

from dataclasses import dataclass

from ..errors import ParameterError, check_finite, check_integer

__all__ = ["MeshOptions"]


@dataclass(frozen=True)
class MeshOptions:
    """Settings of the mesher, validated on construction.

    Parameters
    ----------
    sharp : bool
        False: each vertex is the mean of its cell's edge crossings (surface nets, smooth). True: the point that
        best fits the crossings' tangent planes, clamped to the cell (dual contouring, keeps sharp edges).
    levels : int
        Octree simplification levels (0..5): level L merges up to 2^L x 2^L x 2^L cells into one vertex. 0 keeps
        every cell's vertex. Merges never cross chunk borders, so levels above log2(chunk_size) do nothing.
    tolerance : float
        Largest shape error (voxel edges, >= 0) a display-mesh merge may make: the RMS distance of the merged
        vertex to its cells' tangent planes, and its distance to the surface (proven: the trilinear density
        changes side within that distance along the vertex's normal).
    collision_levels : int
        Octree levels of the collision mesh (0..5).
    collision_tolerance : float
        The shape error a collision-mesh merge may make (voxel edges, >= ``tolerance``): coarser, so fewer
        triangles. Every merged collision vertex stands within this distance of the surface. Collision merges
        count only each vertex's leading material towards the two kinds.

    Examples
    --------
    >>> MeshOptions(levels=0).levels
    0
    """

    sharp: bool = False
    levels: int = 3
    tolerance: float = 0.25
    collision_levels: int = 5
    collision_tolerance: float = 2.0

    def __post_init__(self) -> None:
        if not isinstance(self.sharp, bool):
            raise ParameterError("sharp", self.sharp, "True or False")
        object.__setattr__(self, "levels", check_integer("levels", self.levels, minimum=0, maximum=5))
        object.__setattr__(self, "collision_levels", check_integer("collision_levels", self.collision_levels,
                                                                   minimum=0, maximum=5))
        tolerance = check_finite("tolerance", self.tolerance, minimum=0.0, unit="voxel edges")
        object.__setattr__(self, "tolerance", tolerance)
        object.__setattr__(self, "collision_tolerance", check_finite(
            "collision_tolerance", self.collision_tolerance, minimum=tolerance, unit="voxel edges"))
