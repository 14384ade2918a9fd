"""Kernels of incremental remeshing: what changed in the samples and in a chunk's border vertices."""

from __future__ import annotations

import numba as nb


# ---------------------------------------------------------------------------------------- incremental work
@nb.njit(cache=True, nogil=True)
def take_changes(current, seen, lo, hi, box):
    """Copy ``current`` into ``seen`` over the sample box ``lo .. hi - 1`` and widen ``box`` (inclusive corners,
    ``box[0] > box[1]`` when empty) to every sample where they differed. Returns whether any did."""
    changed = False
    for i in range(lo[0], hi[0]):
        for j in range(lo[1], hi[1]):
            for k in range(lo[2], hi[2]):
                if current[i, j, k] != seen[i, j, k]:
                    seen[i, j, k] = current[i, j, k]
                    changed = True
                    box[0, 0], box[1, 0] = min(box[0, 0], i), max(box[1, 0], i)
                    box[0, 1], box[1, 1] = min(box[0, 1], j), max(box[1, 1], j)
                    box[0, 2], box[1, 2] = min(box[0, 2], k), max(box[1, 2], k)
    return changed


@nb.njit(cache=True, inline="always")
def same_vertex(a_positions, a_normals, a_mat, a_evals, va, b_positions, b_normals, b_mat, b_evals, vb):
    for axis in range(3):
        if a_positions[va, axis] != b_positions[vb, axis] or a_normals[va, axis] != b_normals[vb, axis]:
            return False
    return (a_mat[va, 0] == b_mat[vb, 0] and a_mat[va, 1] == b_mat[vb, 1]
            and a_evals[va, 0] == b_evals[vb, 0] and a_evals[va, 1] == b_evals[vb, 1])


@nb.njit(cache=True, nogil=True)
def top_layer_changes(axis, patch_count, a_case, a_first, a_rep, a_positions, a_normals, a_mat, a_evals,
                      b_case, b_first, b_rep, b_positions, b_normals, b_mat, b_evals, changed):
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
