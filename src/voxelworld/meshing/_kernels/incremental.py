"""Kernels of incremental remeshing: what changed in a chunk's border vertices."""

from __future__ import annotations

import numba as nb
import numpy as np


# ---------------------------------------------------------------------------------------- incremental work
@nb.njit(cache=True, nogil=True, inline="always")
def same_vertex(a_positions: np.ndarray, a_normals: np.ndarray, a_mat: np.ndarray, a_evals: np.ndarray, va: int,
                b_positions: np.ndarray, b_normals: np.ndarray, b_mat: np.ndarray, b_evals: np.ndarray,
                vb: int) -> bool:
    for axis in range(3):
        if a_positions[va, axis] != b_positions[vb, axis] or a_normals[va, axis] != b_normals[vb, axis]:
            return False
    return (a_mat[va, 0] == b_mat[vb, 0] and a_mat[va, 1] == b_mat[vb, 1]
            and a_evals[va, 0] == b_evals[vb, 0] and a_evals[va, 1] == b_evals[vb, 1])


@nb.njit(cache=True, nogil=True)
def top_layer_changes(axis: int, patch_count: np.ndarray, a_case: np.ndarray, a_first: np.ndarray, a_rep: np.ndarray,
                      a_positions: np.ndarray, a_normals: np.ndarray, a_mat: np.ndarray, a_evals: np.ndarray,
                      b_case: np.ndarray, b_first: np.ndarray, b_rep: np.ndarray, b_positions: np.ndarray,
                      b_normals: np.ndarray, b_mat: np.ndarray, b_evals: np.ndarray, changed: np.ndarray) -> None:
    """``changed[p, q]`` = whether the cell at (p, q) of the top cell layer along ``axis`` (the other two axes
    in order) looks different to a neighbour in surface b than in surface a: its case, or the data of the
    vertex standing for any of its patches."""
    dims = a_case.shape
    top = dims[axis] - 1
    for p in range(changed.shape[0]):
        for q in range(changed.shape[1]):
            if axis == 0:
                i, j, k = top, p, q
            elif axis == 1:
                i, j, k = p, top, q
            else:
                i, j, k = p, q, top
            mask = a_case[i, j, k]
            differs = mask != b_case[i, j, k]
            if not differs:
                for patch in range(patch_count[mask]):
                    va = a_rep[a_first[i, j, k] + patch]
                    vb = b_rep[b_first[i, j, k] + patch]
                    if not same_vertex(a_positions, a_normals, a_mat, a_evals, va, b_positions, b_normals, b_mat,
                                       b_evals, vb):
                        differs = True
                        break
            changed[p, q] = differs
