"""Mesh checks for the meshing tests, written from the definitions (no meshing code is used here).

Meshes from the mesher duplicate vertices: a chunk copies its lower neighbours' border vertices, and the display
mesh emits a vertex once per material pair. Both copies come from the same float, so welding by exact position
recovers the shared vertices; the checks below then look at the welded triangles.

- boundary edge: an undirected edge used by exactly one triangle (a hole or a crack between chunks);
- non-manifold edge: an undirected edge used by more than two triangles;
- inconsistent edge: a directed edge used by more than one triangle (two neighbours wound opposite ways);
- unbalanced edge: an undirected edge used more often one way than the other. A closed, consistently wound
  surface has none, even where it pinches (an edge of four triangles, two each way): a weaker check than the
  three above together;
- degenerate triangle: two of its corners are the same welded vertex;
- orientation: triangles wind counter-clockwise seen from outside, so the signed volume of a closed mesh is the
  enclosed volume (> 0) and the winding number is 1 inside the solid and 0 outside.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


def weld(positions: np.ndarray, indices: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(unique positions, triangles over them)``: vertices at bit-identical positions become one."""
    positions = np.ascontiguousarray(positions)
    if len(positions) == 0:
        return positions.reshape(0, 3), np.zeros((0, 3), dtype=np.int64)
    unique, inverse = np.unique(positions, axis=0, return_inverse=True)
    triangles = inverse.reshape(-1)[np.asarray(indices, dtype=np.int64)]
    return unique, triangles.reshape(-1, 3)


@dataclass(frozen=True)
class Topology:
    triangles: int
    vertices: int  # after welding
    boundary_edges: int
    non_manifold_edges: int
    inconsistent_edges: int
    unbalanced_edges: int
    degenerate_triangles: int
    duplicate_triangles: int  # the same three welded vertices used by two triangles (any winding)

    @property
    def closed_manifold_oriented(self) -> bool:
        return (self.boundary_edges == 0 and self.non_manifold_edges == 0 and self.inconsistent_edges == 0
                and self.degenerate_triangles == 0 and self.duplicate_triangles == 0)


def _edge_keys(a: np.ndarray, b: np.ndarray, n: int) -> np.ndarray:
    return a.astype(np.int64) * n + b.astype(np.int64)


def topology(positions: np.ndarray, indices: np.ndarray, welded: bool = True) -> Topology:
    """Edge and triangle counts of the mesh after welding (see the module docstring); ``welded`` False counts
    on the mesh's own indices."""
    if welded:
        vertices, tris = weld(positions, indices)
    else:
        vertices, tris = positions, np.asarray(indices, dtype=np.int64).reshape(-1, 3)
    n = max(len(vertices), 1)
    degenerate = (tris[:, 0] == tris[:, 1]) | (tris[:, 1] == tris[:, 2]) | (tris[:, 0] == tris[:, 2])
    good = tris[~degenerate]
    starts = good.reshape(-1)
    ends = np.roll(good, -1, axis=1).reshape(-1)
    directed = _edge_keys(starts, ends, n)
    _, directed_counts = np.unique(directed, return_counts=True)
    undirected = _edge_keys(np.minimum(starts, ends), np.maximum(starts, ends), n)
    keys, undirected_index, undirected_counts = np.unique(undirected, return_inverse=True, return_counts=True)
    forward = np.bincount(undirected_index.reshape(-1), weights=(starts < ends), minlength=len(keys))
    as_sets = np.sort(good, axis=1)
    _, set_counts = np.unique(as_sets, axis=0, return_counts=True) if len(good) else (None, np.zeros(0, int))
    return Topology(
        triangles=len(tris),
        vertices=len(vertices),
        boundary_edges=int(np.sum(undirected_counts == 1)),
        non_manifold_edges=int(np.sum(undirected_counts > 2)),
        inconsistent_edges=int(np.sum(directed_counts > 1)),
        unbalanced_edges=int(np.sum(2 * forward != undirected_counts)),
        degenerate_triangles=int(np.sum(degenerate)),
        duplicate_triangles=int(np.sum(set_counts - 1)),
    )


def signed_volume(positions: np.ndarray, indices: np.ndarray) -> float:
    """Sum over triangles of det(a, b, c) / 6: the enclosed volume of a closed mesh wound outward."""
    p = np.asarray(positions, dtype=np.float64)[np.asarray(indices, dtype=np.int64)]
    return float(np.einsum("ij,ij->i", p[:, 0], np.cross(p[:, 1], p[:, 2])).sum() / 6.0)


def face_normals(positions: np.ndarray, indices: np.ndarray) -> np.ndarray:
    """Unnormalised (b - a) x (c - a) of each triangle: points outward for counter-clockwise winding."""
    p = np.asarray(positions, dtype=np.float64)[np.asarray(indices, dtype=np.int64)]
    return np.cross(p[:, 1] - p[:, 0], p[:, 2] - p[:, 0])


def normal_agreement(positions: np.ndarray, normals: np.ndarray, indices: np.ndarray) -> float:
    """Share of triangles whose face normal points the same way as the mean of their vertex normals."""
    if len(indices) == 0:
        return 1.0
    vertex_mean = np.asarray(normals, dtype=np.float64)[np.asarray(indices, dtype=np.int64)].sum(axis=1)
    return float(np.mean(np.einsum("ij,ij->i", face_normals(positions, indices), vertex_mean) > 0.0))


def winding_numbers(positions: np.ndarray, indices: np.ndarray, points: np.ndarray) -> np.ndarray:
    """Generalised winding number of the mesh around each point: the sum of the triangles' signed solid angles
    over 4 pi (Van Oosterom and Strackee). For a closed mesh wound outward it is 1 inside and 0 outside."""
    tri = np.asarray(positions, dtype=np.float64)[np.asarray(indices, dtype=np.int64)]
    out = np.zeros(len(points))
    for start in range(0, len(points), 64):
        chunk = np.asarray(points[start:start + 64], dtype=np.float64)
        a = tri[None, :, 0, :] - chunk[:, None, :]
        b = tri[None, :, 1, :] - chunk[:, None, :]
        c = tri[None, :, 2, :] - chunk[:, None, :]
        la, lb, lc = (np.linalg.norm(v, axis=2) for v in (a, b, c))
        numerator = np.einsum("ptk,ptk->pt", a, np.cross(b, c))
        denominator = (la * lb * lc + np.einsum("ptk,ptk->pt", a, b) * lc + np.einsum("ptk,ptk->pt", b, c) * la
                       + np.einsum("ptk,ptk->pt", c, a) * lb)
        out[start:start + 64] = 2.0 * np.arctan2(numerator, denominator).sum(axis=1) / (4.0 * np.pi)
    return out


def display_material_defects(mesh) -> dict[str, int]:
    """Breaches of the material rules of :class:`DisplayMesh`: triangles whose corners disagree on the
    (mat_a, mat_b) pair, whose pair is out of order (need mat_a < mat_b, or mat_b 0) or has no material, and
    vertices whose blend is outside [0, 1] (or not finite) or nonzero without a second material."""
    idx = np.asarray(mesh.indices, dtype=np.int64)
    a, b = mesh.mat_a[idx].astype(np.int64), mesh.mat_b[idx].astype(np.int64)
    blend = np.asarray(mesh.blend, dtype=np.float64)
    return {
        "pair differs between corners": int(np.sum((a != a[:, :1]).any(axis=1) | (b != b[:, :1]).any(axis=1))),
        "pair out of order": int(np.sum(~((a[:, 0] < b[:, 0]) | (b[:, 0] == 0)))),
        "no material": int(np.sum(a[:, 0] == 0)),
        "blend outside [0, 1]": int(np.sum(~(np.isfinite(blend) & (blend >= 0.0) & (blend <= 1.0)))),
        "blend without a second material": int(np.sum((np.asarray(mesh.mat_b) == 0) & (blend != 0.0))),
    }


def boundary_edge_points(positions: np.ndarray, indices: np.ndarray) -> np.ndarray:
    """The two end points of every boundary edge (after welding), shape (k, 2, 3)."""
    vertices, tris = weld(positions, indices)
    n = max(len(vertices), 1)
    starts, ends = tris.reshape(-1), np.roll(tris, -1, axis=1).reshape(-1)
    keys = _edge_keys(np.minimum(starts, ends), np.maximum(starts, ends), n)
    unique, counts = np.unique(keys, return_counts=True)
    single = unique[counts == 1]
    return vertices[np.stack([single // n, single % n], axis=1)] if len(single) else np.zeros((0, 2, 3))
