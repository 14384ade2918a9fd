"""Numba kernels of a standing character's two questions (:meth:`TriangleBVH.ground_under`,
:meth:`TriangleBVH.capsule_push`): each one call where a character's frame used to make a batch of
:func:`~._kernels.raycast` or an :func:`~._kernels.overlap` call and then sift its answers in Python (the wrappers
and the sifting cost several times the traversal). They read the tree as the other queries do (:mod:`._kernels`)
and answer as those queries would, sifted in the same order."""

from __future__ import annotations

import math

import numba as nb
import numpy as np

from ._build_kernels import WIDTH
from ._kernels import STACK, facing_normal, first_hit, overlap

# The footprint's rays: its centre, then ``spread`` along +x, -x, +z and -z (the order ties are broken in).
FOOTPRINT = np.array([[0.0, 0.0], [1.0, 0.0], [-1.0, 0.0], [0.0, 1.0], [0.0, -1.0]])
CONTACT_ROOM = 64  # contacts capsule_push makes room for at first (a character's capsule touches a few)


@nb.njit(cache=True, nogil=True)
def ground_under(tri: np.ndarray, order: np.ndarray, box: np.ndarray, child: np.ndarray, root_box: np.ndarray,
                 root: np.ndarray, tri_material: np.ndarray, footprint: np.ndarray, x: float, z: float, spread: float,
                 top: float, bottom: float, out: np.ndarray) -> int:
    """The highest first hit of the rays cast straight down from height ``top`` to ``bottom`` at (x, z) plus each
    ``footprint`` row (x, z offsets) times ``spread``: its height, and its triangle's unit normal facing up the ray,
    into ``out`` (4,). Returns its material id, or -1 when no ray hits (``out`` untouched). Of equal heights the
    first ray's wins. Each ray is :func:`~._kernels.raycast`'s (the same distance, point and normal)."""
    stack_ref = np.empty(STACK, dtype=np.int64)
    stack_count = np.empty(STACK, dtype=np.int64)
    stack_entry = np.empty(STACK)
    flat, lanes, entries = box.reshape(box.size), box.shape[1] // 6, np.empty(WIDTH)
    best_height, best_q = -np.inf, -1
    found = -1
    for r in range(footprint.shape[0]):
        ox, oz = x + footprint[r, 0] * spread, z + footprint[r, 1] * spread
        distance, triangle, q = first_hit(tri, order, box, flat, lanes, entries, child, root_box, root, stack_ref,
                                          stack_count, stack_entry, ox, top, oz, 0.0, -1.0, 0.0, top - bottom)
        if triangle >= 0 and top + -1.0 * distance > best_height:
            best_height, best_q, found = top + -1.0 * distance, q, triangle
    if found < 0:
        return -1
    out[0] = best_height
    out[1], out[2], out[3] = facing_normal(tri, best_q, 0.0, -1.0, 0.0)
    return tri_material[found]


@nb.njit(cache=True, nogil=True)
def capsule_push(positions: np.ndarray, indices: np.ndarray, normals: np.ndarray, order: np.ndarray,
                 box: np.ndarray, child: np.ndarray, root_box: np.ndarray, root: np.ndarray, ends: np.ndarray,
                 radius: float, out: np.ndarray) -> int:
    """How far to move an upright capsule (axis ``ends[0]`` -> ``ends[1]``, ``radius`` m) out of the triangles it
    overlaps, into ``out`` (3,): down from ceilings (contact normals pointing more than half down: the deepest),
    and horizontally from the rest, each contact's normal laid flat and its depth grown by 1 / its flat length
    (at most 5 times), adding only what the push along that direction still lacks (two triangles of one wall
    push once), in :func:`~._kernels.overlap`'s order of contacts. Contacts whose normal is (nearly) vertical
    push nothing. Returns 0 with no contact, else 1, plus 2 when a ceiling was touched."""
    starts, stops, radii = ends[0:1], ends[1:2], np.full(1, radius)
    counts = np.zeros(1, dtype=np.int64)
    room = CONTACT_ROOM
    while True:
        query, triangle = np.empty(room, dtype=np.int64), np.empty(room, dtype=np.int64)
        point, normal, depth = np.empty((room, 3)), np.empty((room, 3)), np.empty(room)
        overlap(positions, indices, normals, order, box, child, root_box, root, starts, stops, radii, counts, query,
                triangle, point, normal, depth)
        if counts[0] <= room:
            break
        room = counts[0]
    px, py, pz = 0.0, 0.0, 0.0
    ceiling = False
    for k in range(counts[0]):
        nx, ny, nz = normal[k, 0], normal[k, 1], normal[k, 2]
        if ny < -0.5:
            py = min(py, -depth[k])
            ceiling = True
            continue
        size = math.sqrt(nx * nx + nz * nz)
        if size < 1e-6:
            continue
        hx, hz = nx / size, nz / size
        amount = depth[k] / max(size, 0.2)
        current = px * hx + py * 0.0 + pz * hz
        if amount > current:
            px, py, pz = px + hx * (amount - current), py + 0.0 * (amount - current), pz + hz * (amount - current)
    out[0], out[1], out[2] = px, py, pz
    return (0 if counts[0] == 0 else 1) + (2 if ceiling else 0)
