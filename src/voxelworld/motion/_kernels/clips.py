"""Keyframe sampling: every channel of a clip evaluated at each joint's own clock, in one pass.

Channel arrays (a clip packs them once, see ``Clip._packed``):

- ``channel_joint (c,)`` int64: the skeleton joint the channel drives;
- ``channel_path (c,)`` int64: 0 translation, 1 rotation, 2 scale;
- ``channel_mode (c,)`` int64: 0 LINEAR, 1 STEP, 2 CUBICSPLINE;
- ``key_start (c + 1,)`` int64: channel ``k``'s keys are ``key_start[k]:key_start[k + 1]``;
- ``times (K,)`` float64 (s), strictly increasing within a channel;
- ``values (K, 3, 4)`` float64: in-tangent, value, out-tangent per key (tangents only for CUBICSPLINE),
  padded to 4 components (3-vectors leave the last one 0).

``joint_time (f, n)`` (s) is each joint's clock in each frame, already clamped or wrapped into the clip.
Outputs ``translation (f, n, 3)``, ``rotation (f, n, 4)``, ``scale (f, n, 3)`` hold the rest values on entry;
joints without a channel keep them. Sampling exactly at a key returns the key's value bit for bit.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

LINEAR, STEP, CUBICSPLINE = 0, 1, 2
TRANSLATION, ROTATION, SCALE = 0, 1, 2
_LINEAR_BELOW = 1e-6  # as quaternions.slerp: nearly equal rotations are lerped and normalised


@njit(cache=True)
def sample(channel_joint: np.ndarray, channel_path: np.ndarray, channel_mode: np.ndarray, key_start: np.ndarray,
           times: np.ndarray, values: np.ndarray, joint_time: np.ndarray, translation: np.ndarray, rotation: np.ndarray,
           scale: np.ndarray) -> None:
    """Write every channel's value at its joint's time into the pose arrays."""
    frames = joint_time.shape[0]
    out = np.zeros(4)  # scratch: one channel's value
    for f in range(frames):
        for c in range(channel_joint.shape[0]):
            joint, path, mode = channel_joint[c], channel_path[c], channel_mode[c]
            first, last = key_start[c], key_start[c + 1] - 1
            width = 4 if path == ROTATION else 3
            t = joint_time[f, joint]
            if t <= times[first] or first == last:
                k, u = first, 0.0
            elif t >= times[last]:
                k, u = last, 0.0
            else:
                lo, hi = first, last  # invariant: times[lo] <= t < times[hi]
                while hi - lo > 1:
                    mid = (lo + hi) // 2
                    if times[mid] <= t:
                        lo = mid
                    else:
                        hi = mid
                k = lo
                u = (t - times[k]) / (times[k + 1] - times[k])
            if u == 0.0 or mode == STEP:
                for i in range(width):
                    out[i] = values[k, 1, i]
            elif mode == LINEAR and path == ROTATION:
                dot = 0.0
                for i in range(4):
                    dot += values[k, 1, i] * values[k + 1, 1, i]
                sign = 1.0
                if dot < 0.0:
                    sign, dot = -1.0, -dot
                angle = math.acos(min(dot, 1.0))
                sin_angle = math.sin(angle)
                if sin_angle < _LINEAR_BELOW:
                    wa, wb = 1.0 - u, u
                else:
                    wa, wb = math.sin((1.0 - u) * angle) / sin_angle, math.sin(u * angle) / sin_angle
                norm = 0.0
                for i in range(4):
                    out[i] = wa * values[k, 1, i] + wb * sign * values[k + 1, 1, i]
                    norm += out[i] * out[i]
                if sin_angle < _LINEAR_BELOW:
                    norm = math.sqrt(norm)
                    for i in range(4):
                        out[i] /= norm
            elif mode == LINEAR:
                for i in range(width):
                    out[i] = values[k, 1, i] + u * (values[k + 1, 1, i] - values[k, 1, i])
            else:
                # glTF cubic Hermite: tangents are per second, scaled by the key interval.
                dt = times[k + 1] - times[k]
                u2, u3 = u * u, u * u * u
                h00, h10 = 2.0 * u3 - 3.0 * u2 + 1.0, u3 - 2.0 * u2 + u
                h01, h11 = -2.0 * u3 + 3.0 * u2, u3 - u2
                norm = 0.0
                for i in range(width):
                    out[i] = (h00 * values[k, 1, i] + h10 * dt * values[k, 2, i]
                              + h01 * values[k + 1, 1, i] + h11 * dt * values[k + 1, 0, i])
                    norm += out[i] * out[i]
                if path == ROTATION:
                    norm = math.sqrt(norm)
                    for i in range(4):
                        out[i] /= norm
            if path == TRANSLATION:
                for i in range(3):
                    translation[f, joint, i] = out[i]
            elif path == ROTATION:
                for i in range(4):
                    rotation[f, joint, i] = out[i]
            else:
                for i in range(3):
                    scale[f, joint, i] = out[i]
