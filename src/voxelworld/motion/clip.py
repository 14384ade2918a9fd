"""Keyframed animation clips: per-joint translation / rotation / scale channels, sampled into poses.

Interpolation follows glTF 2.0: ``LINEAR`` (rotations by shortest-path slerp), ``STEP`` (hold the key before),
``CUBICSPLINE`` (Hermite with in-tangent, value, out-tangent per key, tangents per second; rotations are
normalised after the Hermite step). Before the first key a channel holds the first value, after the last key
the last value.

Examples
--------
>>> import numpy as np
>>> from voxelworld.motion.clip import Clip
>>> from voxelworld.motion.skeleton import Pose, Skeleton
>>> skeleton = Skeleton(["root", "tip"], [-1, 0], Pose([[0, 0, 0], [0, 1, 0]], [[0, 0, 0, 1]] * 2, [[1, 1, 1]] * 2))
>>> lift = Clip.from_keys("lift", {"root": {"translation": ([0.0, 2.0], [[0, 0, 0], [0, 1, 0]])}})
>>> lift.duration
2.0
>>> lift.sample(skeleton, 0.5).translation
array([[0.  , 0.25, 0.  ],
       [0.  , 1.  , 0.  ]])
>>> lift.sample(skeleton, np.array([2.0, 0.0])).translation[0]  # each joint at its own time
array([0., 1., 0.])
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType

import numpy as np
from numpy.typing import ArrayLike

from voxelworld.errors import FormatError, ParameterError
from voxelworld.motion._kernels import clips as _kernel
from voxelworld.motion.skeleton import Pose, Skeleton

__all__ = ["Channel", "Clip", "INTERPOLATIONS", "PATHS", "FORMAT", "VERSION"]

INTERPOLATIONS = ("LINEAR", "STEP", "CUBICSPLINE")
PATHS = ("translation", "rotation", "scale")
WIDTH = {"translation": 3, "rotation": 4, "scale": 3}
FORMAT, VERSION = "voxelworld-clip", 1


@dataclass(frozen=True)
class Channel:
    """The keys of one joint property.

    Parameters
    ----------
    times : array_like, shape (k,)
        Key times (s), >= 0 and strictly increasing.
    values : array_like, shape (k, c) or, for CUBICSPLINE, (k, 3, c)
        Key values (``c`` = 3 for translation and scale, 4 for rotation quaternions ``(x, y, z, w)``);
        CUBICSPLINE keys hold in-tangent, value, out-tangent (tangents in units per second).
    interpolation : {"LINEAR", "STEP", "CUBICSPLINE"}

    Examples
    --------
    >>> Channel([0.0, 1.0], [[0, 0, 0], [1, 0, 0]]).values.shape
    (2, 3)
    """

    times: np.ndarray
    values: np.ndarray
    interpolation: str = "LINEAR"

    def __post_init__(self) -> None:
        if self.interpolation not in INTERPOLATIONS:
            raise ParameterError("interpolation", self.interpolation, " or ".join(INTERPOLATIONS))
        times = _numeric("times", self.times)
        values = _numeric("values", self.values)
        if times.ndim != 1 or times.size == 0:
            raise ParameterError("times", times.shape, "a non-empty array of shape (k,)")
        if not np.isfinite(times).all() or times[0] < 0.0 or np.any(np.diff(times) <= 0.0):
            raise ParameterError("times", times, "finite times (s) >= 0, strictly increasing")
        cubic = self.interpolation == "CUBICSPLINE"
        expected = "(k, 3, c)" if cubic else "(k, c)"
        if (values.ndim != (3 if cubic else 2) or values.shape[0] != times.size or values.shape[-1] not in (3, 4)
                or (cubic and values.shape[1] != 3)):
            raise ParameterError("values", values.shape, f"shape {expected} with k = {times.size}, c = 3 or 4")
        if not np.isfinite(values).all():
            raise ParameterError("values", "an array containing NaN or infinity", "finite numbers")
        times.setflags(write=False)
        values.setflags(write=False)
        object.__setattr__(self, "times", times)
        object.__setattr__(self, "values", values)

    @property
    def width(self) -> int:
        """Components per value: 3 (translation, scale) or 4 (rotation)."""
        return self.values.shape[-1]

    def key_values(self) -> np.ndarray:
        """The values at the keys ``(k, c)`` (the middle entry of CUBICSPLINE keys)."""
        return self.values[:, 1] if self.interpolation == "CUBICSPLINE" else self.values


def _numeric(parameter: str, value: ArrayLike) -> np.ndarray:
    try:
        return np.array(value, dtype=np.float64)
    except (TypeError, ValueError, OverflowError):  # OverflowError: an int beyond the float range
        shown = repr(value)
        raise ParameterError(parameter, shown if len(shown) <= 80 else shown[:77] + "...",
                             "numbers (a regular array of them)") from None


class Clip:
    """A named animation: keyed local transforms for some joints, addressed by joint name.

    Parameters
    ----------
    name : str
    channels : mapping of joint name -> mapping of path -> Channel
        ``path`` is ``"translation"``, ``"rotation"`` or ``"scale"``; rotation channels have 4 components,
        the others 3.

    Notes
    -----
    Sampling (:meth:`sample`) clamps times into ``[0, duration]`` (or wraps them with ``loop=True``); joints
    without a channel keep the skeleton's rest values; ``duration`` is the latest key time of any channel.

    JSON format (``to_json`` / ``from_json``), version 1::

        {"format": "voxelworld-clip", "version": 1, "name": "walk",
         "joints": {
           "<joint name>": {
             "<translation | rotation | scale>": {
               "interpolation": "LINEAR" | "STEP" | "CUBICSPLINE",
               "times": [t0, t1, ...],                  # seconds, >= 0, strictly increasing
               "values": [[x, y, z], ...]               # translation, scale (metres, factors)
                      or [[x, y, z, w], ...]            # rotation quaternions
                      or [[in, value, out], ...]        # CUBICSPLINE: three such lists per key
             }, ...
           }, ...
         }}

    Numbers are written with Python's shortest round-trip repr, so a clip survives ``to_json`` /
    ``from_json`` bit for bit; joints keep their order, channels are written translation, rotation, scale.

    Examples
    --------
    >>> wave = Clip.from_keys("wave", {"hand": {"rotation": ([0.0, 1.0], [[0, 0, 0, 1], [0, 0, 1, 0]])}})
    >>> Clip.from_json(wave.to_json()).joint_names
    ('hand',)
    """

    def __init__(self, name: str, channels: Mapping[str, Mapping[str, Channel]]):
        if not isinstance(name, str):
            raise ParameterError("name", name, "a string")
        table: dict[str, MappingProxyType] = {}
        for joint, by_path in channels.items():
            if not isinstance(joint, str) or not joint:
                raise ParameterError("channels", joint, "joint names (non-empty strings) as keys")
            ordered = {}
            for path in PATHS:
                if path in by_path:
                    channel = by_path[path]
                    if not isinstance(channel, Channel):
                        raise ParameterError(f"channels[{joint!r}][{path!r}]", type(channel).__name__, "a Channel")
                    if channel.width != WIDTH[path]:
                        raise ParameterError(f"channels[{joint!r}][{path!r}]", f"{channel.width} components",
                                             f"{WIDTH[path]} components per {path} value")
                    if path == "rotation" and np.any(np.linalg.norm(channel.values, axis=-1) < 1e-12) \
                            and channel.interpolation != "CUBICSPLINE":
                        raise ParameterError(f"channels[{joint!r}]['rotation']", "a zero quaternion",
                                             "non-zero quaternions")
                    ordered[path] = channel
            unknown = sorted(set(by_path) - set(PATHS))
            if unknown:
                raise ParameterError(f"channels[{joint!r}]", unknown[0], " or ".join(PATHS))
            if ordered:
                table[joint] = MappingProxyType(ordered)
        self._name = name
        self._channels = MappingProxyType(table)
        self._duration = max((c.times[-1] for by in table.values() for c in by.values()), default=0.0)
        self._packed = self._pack()
        self._joint_maps: dict[tuple[str, ...], np.ndarray] = {}

    @classmethod
    def from_keys(cls, name: str, keys: Mapping[str, Mapping[str, tuple]], interpolation: str = "LINEAR") -> Clip:
        """A clip authored in code: ``{joint: {path: (times, values) or (times, values, interpolation)}}``.

        Examples
        --------
        >>> clip = Clip.from_keys("nod", {"head": {"rotation": ([0, 1], [[0, 0, 0, 1], [0.5, 0, 0, 0.866]])},
        ...                               "root": {"translation": ([0, 1], [[0, 0, 0], [0, 0, 1]], "STEP")}})
        >>> clip.channels["root"]["translation"].interpolation
        'STEP'
        """
        channels: dict[str, dict[str, Channel]] = {}
        for joint, by_path in keys.items():
            channels[joint] = {}
            for path, spec in by_path.items():
                if not isinstance(spec, (tuple, list)) or len(spec) not in (2, 3):
                    raise ParameterError(f"keys[{joint!r}][{path!r}]", spec,
                                         "a tuple (times, values) or (times, values, interpolation)")
                channels[joint][path] = Channel(spec[0], spec[1], spec[2] if len(spec) == 3 else interpolation)
        return cls(name, channels)

    @property
    def name(self) -> str:
        return self._name

    @property
    def channels(self) -> Mapping[str, Mapping[str, Channel]]:
        """Read-only ``{joint name: {path: Channel}}``."""
        return self._channels

    @property
    def joint_names(self) -> tuple[str, ...]:
        """The joints that have at least one channel, in the clip's order."""
        return tuple(self._channels)

    @property
    def duration(self) -> float:
        """The latest key time (s) of any channel; 0 for a clip without channels."""
        return float(self._duration)

    def __repr__(self) -> str:
        return f"Clip({self._name!r}, {len(self._channels)} joints, {self.duration:g} s)"

    def _pack(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        joints, paths, modes, starts, times, values = [], [], [], [0], [], []
        for j, by_path in enumerate(self._channels.values()):
            for path, channel in by_path.items():
                joints.append(j)
                paths.append(PATHS.index(path))
                modes.append(INTERPOLATIONS.index(channel.interpolation))
                starts.append(starts[-1] + channel.times.size)
                times.append(channel.times)
                padded = np.zeros((channel.times.size, 3, 4))
                if channel.interpolation == "CUBICSPLINE":
                    padded[:, :, :channel.width] = channel.values
                else:
                    padded[:, 1, :channel.width] = channel.values
                values.append(padded)
        as_int = lambda items: np.array(items, dtype=np.int64)  # noqa: E731
        return (as_int(joints), as_int(paths), as_int(modes), as_int(starts),
                np.concatenate(times) if times else np.zeros(0),
                np.concatenate(values) if values else np.zeros((0, 3, 4)))

    def _joint_map(self, skeleton: Skeleton) -> np.ndarray:
        """Skeleton index of each packed channel (cached per joint-name tuple)."""
        found = self._joint_maps.get(skeleton.names)
        if found is None:
            missing = [name for name in self._channels if name not in skeleton.names]
            if missing:
                raise ParameterError("skeleton", skeleton, f"a skeleton with every joint of the clip "
                                     f"(missing {', '.join(missing[:4])}{', ...' if len(missing) > 4 else ''})")
            clip_to_skeleton = np.array([skeleton.index(name) for name in self._channels], dtype=np.int64)
            found = clip_to_skeleton[self._packed[0]] if self._packed[0].size else self._packed[0]
            if len(self._joint_maps) > 8:
                self._joint_maps.clear()
            self._joint_maps[skeleton.names] = found
        return found

    def _clock(self, t: np.ndarray, loop: bool) -> np.ndarray:
        if loop:
            return np.mod(t, self._duration) if self._duration > 0.0 else np.zeros_like(t)
        return np.clip(t, 0.0, self._duration)

    def _run(self, skeleton: Skeleton, joint_time: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        rest = skeleton.rest
        frames = joint_time.shape[0]
        translation = np.repeat(rest.translation[None], frames, axis=0)
        rotation = np.repeat(rest.rotation[None], frames, axis=0)
        scale = np.repeat(rest.scale[None], frames, axis=0)
        joints, paths, modes, starts, times, values = self._packed
        _kernel.sample(self._joint_map(skeleton), paths, modes, starts, times, values,
                       np.ascontiguousarray(joint_time), translation, rotation, scale)
        return translation, rotation, scale

    def sample(self, skeleton: Skeleton, t: ArrayLike, loop: bool = False) -> Pose:
        """The pose of ``skeleton`` at time ``t`` (s): a scalar, or one time per joint ``(n,)``.

        Parameters
        ----------
        skeleton : Skeleton
            Must have every joint the clip names; other joints keep their rest values.
        t : float or array_like, shape (n,)
            The clip time, or each joint's own clip time (joints then move on separate clocks).
        loop : bool
            Wrap times into ``[0, duration)`` instead of clamping them to ``[0, duration]``.
        """
        if not isinstance(skeleton, Skeleton):
            raise ParameterError("skeleton", type(skeleton).__name__, "a Skeleton")
        times = self._times("t", t, (len(skeleton),), loop)
        times = np.broadcast_to(times, (1, len(skeleton)))
        translation, rotation, scale = self._run(skeleton, times)
        return Pose(translation[0], rotation[0], scale[0])

    def sample_frames(self, skeleton: Skeleton, times: ArrayLike, loop: bool = False) -> Pose:
        """A batched pose ``(f, n, ...)`` at the times ``(f,)`` or per-joint times ``(f, n)`` (s).

        Examples
        --------
        >>> skeleton = Skeleton(["root"], [-1], Pose.identity(1))
        >>> clip = Clip.from_keys("slide", {"root": {"translation": ([0, 1], [[0, 0, 0], [1, 0, 0]])}})
        >>> clip.sample_frames(skeleton, [0.0, 0.5, 1.0]).translation[:, 0, 0]
        array([0. , 0.5, 1. ])
        """
        if not isinstance(skeleton, Skeleton):
            raise ParameterError("skeleton", type(skeleton).__name__, "a Skeleton")
        array = self._times("times", times, None, loop)
        if array.ndim == 1:
            array = np.repeat(array[:, None], len(skeleton), axis=1)
        elif array.ndim != 2 or array.shape[1] != len(skeleton):
            raise ParameterError("times", array.shape, f"shape (f,) or (f, {len(skeleton)})")
        return Pose(*self._run(skeleton, array))

    def _times(self, parameter: str, value: ArrayLike, per_joint: tuple | None, loop: bool) -> np.ndarray:
        try:
            array = np.asarray(value, dtype=np.float64)
        except (TypeError, ValueError):
            raise ParameterError(parameter, value, "times (s) as numbers") from None
        if per_joint is not None and array.ndim != 0 and array.shape != per_joint:
            raise ParameterError(parameter, array.shape, f"a scalar time or one time per joint {per_joint}")
        if per_joint is None and array.ndim not in (1, 2):
            raise ParameterError(parameter, array.shape, "an array of times (f,) or (f, n)")
        if not np.isfinite(array).all():
            raise ParameterError(parameter, value, "finite times (s)")
        return self._clock(array, loop)

    def to_json(self) -> str:
        """This clip in the versioned JSON format (see the class docstring)."""
        joints = {}
        for joint, by_path in self._channels.items():
            joints[joint] = {path: {"interpolation": c.interpolation, "times": c.times.tolist(),
                                    "values": c.values.tolist()} for path, c in by_path.items()}
        return json.dumps({"format": FORMAT, "version": VERSION, "name": self._name, "joints": joints})

    @classmethod
    def from_json(cls, text: str) -> Clip:
        """The clip written by :meth:`to_json`; :class:`FormatError` names what is wrong in a bad document."""
        try:
            document = json.loads(text)
        except (TypeError, ValueError) as error:
            raise FormatError(f"clip JSON: not valid JSON ({error})") from None
        except RecursionError:  # the C decoder's nesting guard; a clip document is 6 levels deep
            raise FormatError("clip JSON: nested too deeply to be a clip (a clip document is 6 levels deep)") \
                from None
        if not isinstance(document, dict) or document.get("format") != FORMAT:
            raise FormatError(f"clip JSON: 'format' must be {FORMAT!r}")
        if document.get("version") != VERSION:
            raise FormatError(f"clip JSON: version {document.get('version')!r} is not supported (only {VERSION})")
        joints = document.get("joints")
        if not isinstance(joints, dict) or not isinstance(document.get("name"), str):
            raise FormatError("clip JSON: needs 'name' (a string) and 'joints' (an object)")
        channels: dict[str, dict[str, Channel]] = {}
        for joint, by_path in joints.items():
            if not isinstance(by_path, dict):
                raise FormatError(f"clip JSON: joints[{joint!r}] must be an object of channels")
            channels[joint] = {}
            for path, entry in by_path.items():
                where = f"joints[{joint!r}][{path!r}]"
                if not isinstance(entry, dict) or not {"times", "values"} <= set(entry):
                    raise FormatError(f"clip JSON: {where} needs 'times' and 'values'")
                try:
                    channels[joint][path] = Channel(entry["times"], entry["values"],
                                                    entry.get("interpolation", "LINEAR"))
                except ParameterError as error:
                    raise FormatError(f"clip JSON: {where}: {error}") from None
        try:
            return cls(document["name"], channels)
        except ParameterError as error:
            raise FormatError(f"clip JSON: {error}") from None

