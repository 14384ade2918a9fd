"""Forward kinematics: local translation / rotation / scale per joint -> world 4x4 matrices.

Arrays (float64, C-contiguous): ``parents (n,)`` int64 with every parent before its child (-1: root);
``translation (f, n, 3)``, ``rotation (f, n, 4)`` quaternions ``(x, y, z, w)``, ``scale (f, n, 3)``;
``out (f, n, 4, 4)``. The local matrix is ``T @ R @ S``; a joint's world matrix is its parent's world matrix
times its local matrix. The 4x4 products are spelled out: no helper is called per joint.
"""

from __future__ import annotations

import numpy as np
from numba import njit


@njit(cache=True)
def world_transforms(parents: np.ndarray, translation: np.ndarray, rotation: np.ndarray, scale: np.ndarray,
                     out: np.ndarray) -> None:
    """Fill ``out[f, j]`` with the world matrix of joint ``j`` in frame ``f``."""
    frames, joints = translation.shape[0], translation.shape[1]
    for f in range(frames):
        for j in range(joints):
            x, y, z, w = rotation[f, j, 0], rotation[f, j, 1], rotation[f, j, 2], rotation[f, j, 3]
            # 2 / |q|^2 keeps the matrix a pure rotation for slightly unnormalised quaternions.
            s = 2.0 / (x * x + y * y + z * z + w * w)
            sx, sy, sz = scale[f, j, 0], scale[f, j, 1], scale[f, j, 2]
            l00 = (1.0 - s * (y * y + z * z)) * sx
            l01 = s * (x * y - w * z) * sy
            l02 = s * (x * z + w * y) * sz
            l10 = s * (x * y + w * z) * sx
            l11 = (1.0 - s * (x * x + z * z)) * sy
            l12 = s * (y * z - w * x) * sz
            l20 = s * (x * z - w * y) * sx
            l21 = s * (y * z + w * x) * sy
            l22 = (1.0 - s * (x * x + y * y)) * sz
            t0, t1, t2 = translation[f, j, 0], translation[f, j, 1], translation[f, j, 2]
            p = parents[j]
            if p < 0:
                out[f, j, 0, 0], out[f, j, 0, 1], out[f, j, 0, 2], out[f, j, 0, 3] = l00, l01, l02, t0
                out[f, j, 1, 0], out[f, j, 1, 1], out[f, j, 1, 2], out[f, j, 1, 3] = l10, l11, l12, t1
                out[f, j, 2, 0], out[f, j, 2, 1], out[f, j, 2, 2], out[f, j, 2, 3] = l20, l21, l22, t2
            else:
                for r in range(3):
                    a0, a1, a2, a3 = out[f, p, r, 0], out[f, p, r, 1], out[f, p, r, 2], out[f, p, r, 3]
                    out[f, j, r, 0] = a0 * l00 + a1 * l10 + a2 * l20
                    out[f, j, r, 1] = a0 * l01 + a1 * l11 + a2 * l21
                    out[f, j, r, 2] = a0 * l02 + a1 * l12 + a2 * l22
                    out[f, j, r, 3] = a0 * t0 + a1 * t1 + a2 * t2 + a3
            out[f, j, 3, 0], out[f, j, 3, 1], out[f, j, 3, 2], out[f, j, 3, 3] = 0.0, 0.0, 0.0, 1.0
