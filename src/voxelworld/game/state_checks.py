"""The ranges of the state the game's objects take back (``load_state_dict``, from a world file): limits no game
reaches, beyond which a forged file could make a frame's loops run for ever or its arithmetic overflow, and the
checks of the points of a state against the world's box.

Every time or clock of a state lies in [0, ``MAX_SECONDS``], every counter in [0, ``MAX_COUNT``], every velocity
within ``MAX_SPEED`` on each axis (:mod:`voxelworld.attribute_state`: the wings below the game use them too), and
every point within the world's box (its volume's first and last voxel samples) grown by :data:`POSITION_MARGIN`
on every side. The checks run when a state is taken back,
never in a frame.

Examples
--------
>>> box = (np.zeros(3), np.full(3, 10.0))
>>> check_inside("state['goal']", np.array([5.0, 5.0, 5.0]), box)
>>> check_inside("state['goal']", np.array([0.0, 0.0, 1e8]), box)
Traceback (most recent call last):
...
voxelworld.errors.ParameterError: state['goal'] = (0.0, 0.0, 100000000.0) is out of range: must be points within ...
>>> speed()("state['velocity']", np.array([0.0, -2e3, 0.0]))
Traceback (most recent call last):
...
voxelworld.errors.ParameterError: state['velocity'] = ... must be a float64 array ... every value within ±1000.0 m/s
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any

import numpy as np
from numpy.typing import ArrayLike

from ..attribute_state import MAX_COUNT, MAX_SECONDS, MAX_SPEED, array, bounded, count, seconds, speed
from ..errors import ParameterError, check_range
from ..terrain import MaterialTable, Volume
from .level import Prop

if TYPE_CHECKING:
    from .world import World

__all__ = ["MAX_SECONDS", "MAX_COUNT", "MAX_SPEED", "POSITION_MARGIN", "seconds", "count", "speed", "bounded",
           "world_box", "check_inside", "check_direction_state", "check_world_state", "generator_of_state",
           "check_props"]

POSITION_MARGIN = 64.0  # m: how far outside the world's box a point of a state may lie (jumps, flights, the sky)


def world_box(volume: Volume) -> tuple[np.ndarray, np.ndarray]:
    """The box (m) of ``volume``'s voxel samples: the first and the last."""
    return np.asarray(volume.origin, dtype=np.float64), volume.index_to_world(np.array(volume.shape) - 1)


def check_inside(name: str, points: ArrayLike, box: tuple[np.ndarray, np.ndarray], margin: float = POSITION_MARGIN
                 ) -> None:
    """``points`` ((3,) or (n, 3), m) lie within ``box`` (lo, hi) grown by ``margin`` m on every side."""
    points = np.asarray(points, dtype=np.float64).reshape(-1, 3)
    lo, hi = box[0] - margin, box[1] + margin
    shown = tuple(points[0].tolist()) if len(points) == 1 else f"{len(points)} points"
    check_range(name, shown, f"points within the world's box {tuple(box[0].tolist())} .. {tuple(box[1].tolist())} "
                f"grown by {margin} m", bool(np.all((points >= lo) & (points <= hi))))


def check_direction_state(name: str, value: Any) -> None:
    """A horizontal unit direction of a state (x, 0, z), as the constructors make them."""
    array((3,))(name, value)
    check_range(name, tuple(value.tolist()), "a horizontal unit direction (x, 0, z)",
                value[1] == 0.0 and abs(float(np.hypot(value[0], value[2])) - 1.0) <= 1e-9)


def check_world_state(world: World, name: str, state: Mapping[str, Any]) -> None:
    """A world's state: the last frame's length ``dt`` is one its ``settings.max_dt`` allows; the chunks it names
    are chunks of its grid; the places its snapshot shows (the player, the camera, the characters) lie within the
    world's box (its objects: as the actions' state holds them)."""
    check_range(f"{name}['dt']", state["dt"], f"a number in [0, max_dt = {world.settings.max_dt}] (s)",
                state["dt"] <= world.settings.max_dt)
    snapshot, box, grid = state["snapshot"], world_box(world.volume), world.volume.chunk_grid_shape
    for label, chunks in ((f"{name}['changed_chunks']", state["changed_chunks"]),
                          (f"{name}['rebuilt_chunks']", state["rebuilt_chunks"]),
                          (f"{name}['snapshot'].changed_chunks", snapshot.changed_chunks)):
        check_range(label, sorted(chunks)[:4], f"chunks (i, j, k) of the grid {grid}",
                    all(len(c) == 3 and all(0 <= i < n for i, n in zip(c, grid)) for c in chunks))
    check_inside(f"{name}['snapshot'].player_position", snapshot.player_position, box)
    check_inside(f"{name}['snapshot'].camera_eye", snapshot.camera_eye, box)
    for n, character in enumerate(snapshot.characters):
        check_inside(f"{name}['snapshot'].characters[{n}].position", character.position, box)


BIT_GENERATORS = {"PCG64": np.random.PCG64, "PCG64DXSM": np.random.PCG64DXSM, "MT19937": np.random.MT19937,
                   "Philox": np.random.Philox, "SFC64": np.random.SFC64}


def generator_of_state(state: object) -> np.random.Generator:
    """The generator whose bit generator has ``state`` (``bit_generator.state``); ParameterError if it is not
    the state of one of numpy's bit generators."""
    legal = f"the state of one of the bit generators {', '.join(BIT_GENERATORS)}"
    if not (isinstance(state, Mapping) and state.get("bit_generator") in BIT_GENERATORS):
        raise ParameterError("state['rng']", state.get("bit_generator") if isinstance(state, Mapping) else state,
                             legal)
    bits = BIT_GENERATORS[state["bit_generator"]]()
    try:
        bits.state = dict(state)
    except (TypeError, ValueError, KeyError, OverflowError) as error:  # Overflow: a number out of its range
        raise ParameterError("state['rng']", state, f"{legal} ({error})") from error
    return np.random.Generator(bits)


def check_props(props: Iterable[Prop], materials: MaterialTable) -> tuple[Prop, ...]:
    """``props`` as a tuple, checked: Props with names no other has and materials of ``materials``; else
    ParameterError naming the first bad one."""
    props, names = tuple(props), set()
    for n, prop in enumerate(props):
        check_range(f"props[{n}]", prop, "a Prop", isinstance(prop, Prop))
        check_range(f"props[{n}].name", prop.name, "a name no other prop has", prop.name not in names)
        check_range(f"props[{n}].material", prop.material, "a material of the table", prop.material in materials)
        names.add(prop.name)
    return props
