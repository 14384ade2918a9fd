"""Kernels of one :class:`~voxelworld.motion.ContactMotion` frame: the pose at per-joint clocks (sampled, the hand
turned, forward kinematics, placed, the torso shaken), the part placed, the first action's part, the arm re-joined.

Each replaces a run of small NumPy calls (a few microseconds of overhead each, about twenty per frame) by one
call over arrays the motion owns, and gives the same numbers bit for bit. The small products that NumPy hands to
its BLAS (``placement @ world``, ``wrist[:3, :3] @ part``, ``turn @ v``, ``a @ b``, ``norm(a)``) are computed
as the BLAS kernels compute them on x86-64 with FMA: each sum a chain of fused multiply-adds, in the order
:func:`dot3`, :func:`matvec3` and :func:`placed_product` spell out (the tests check them against NumPy and
against an exact plain-Python reference). So the poses are the ones the NumPy code gave, and they no longer
depend on which BLAS NumPy was built with.

``FrameTables`` (a named tuple, fixed for a motion): ``parents (n,)``; the rest pose ``rest_translation (n, 3)``,
``rest_rotation (n, 4)``, ``rest_scale (n, 3)``; the clip's packed channels (``clips.sample``'s six arrays, the
joint map resolved to the skeleton); the first action's table ``first_rotation (t, 4)``, ``first_end (t, 3)``,
``first_blade (t, 3)`` (zeros without a blade), ``first_position (t, 3)`` (the wrist's place); ``chain (k,)``,
``shaking (m,)`` and ``shake_axes (m, 3)``; ``part_local (3, c)`` (the part's start, end and blade normal as
columns, ``c`` 2 or 3); ``hold`` (bool): the wrist's *world* place follows its clock (``ContactMotion``'s
``hold_part``).
"""

from __future__ import annotations

import math
from collections import namedtuple
from typing import TYPE_CHECKING, TypeAlias

import numpy as np
from llvmlite import ir
from numba import njit, types
from numba.core import cgutils
from numba.extending import intrinsic

from . import clips as _clips
from . import contact as _contact
from . import fk as _fk
from . import ik as _ik

FrameTables = namedtuple("FrameTables", ["parents", "rest_translation", "rest_rotation", "rest_scale",
                                         "channel_joint", "channel_path", "channel_mode", "key_start", "key_times",
                                         "key_values", "first_rotation", "first_end", "first_blade", "chain",
                                         "shaking", "shake_axes", "part_local", "first_position", "hold"])
# before_query's answer: (lag, clocks0, targets, clocks, rates, translation, rotation, scale, shaken, world, places,
# hand, segment, driven, was_shaken, speed_sq, along)
BeforeQuery: TypeAlias = tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray,
                               np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray,
                               bool, float, float]
# after_query's answer: (clocks, rates, translation, rotation, scale, world, segment, elbow, joined, code, moved)
AfterQuery: TypeAlias = tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray,
                              np.ndarray, bool, int, float]


if TYPE_CHECKING:
    # numba's stub types a call of an intrinsic as a call of its typing function (typing context first) that never
    # returns: the type checker sees fma as the kernels call it.
    def fma(a: float, b: float, c: float) -> float:
        """``a * b + c`` rounded once."""
        ...
else:
    @intrinsic
    def fma(typingctx, a, b, c):
        """``a * b + c`` rounded once (LLVM's ``llvm.fma.f64``: the CPU's instruction, else libm's exact fma)."""
        signature = types.float64(types.float64, types.float64, types.float64)

        def codegen(context, builder, sig, args):
            double = ir.DoubleType()
            function = cgutils.get_or_insert_function(builder.module, ir.FunctionType(double, [double] * 3),
                                                      "llvm.fma.f64")
            return builder.call(function, args)

        return signature, codegen


@njit(cache=True)
def dot3(a: np.ndarray, b: np.ndarray) -> float:
    """``a @ b`` of two 3-vectors as NumPy's BLAS sums it: ``fma(a2, b2, fma(a1, b1, a0 * b0))``."""
    return fma(a[2], b[2], fma(a[1], b[1], a[0] * b[0]))


@njit(cache=True, inline="always")
def _matvec_row(a0: float, a1: float, a2: float, b0: float, b1: float, b2: float) -> float:
    # A (3, 3) matrix times a vector: BLAS's gemv sums a row as fma(a2, b2, fma(a0, b0, a1 * b1)).
    return fma(a2, b2, fma(a0, b0, a1 * b1))


@njit(cache=True)
def placed_product(placement: np.ndarray, local: np.ndarray, out: np.ndarray) -> None:
    """``out[j] = placement @ local[j]`` for ``local (n, 4, 4)``: each entry the chain
    ``fma(p3 l3, fma(p2 l2, fma(p1 l1, p0 l0)))``, as BLAS's gemm sums it."""
    for j in range(local.shape[0]):
        for r in range(4):
            p0, p1, p2, p3 = placement[r, 0], placement[r, 1], placement[r, 2], placement[r, 3]
            for c in range(4):
                out[j, r, c] = fma(p3, local[j, 3, c], fma(p2, local[j, 2, c], fma(p1, local[j, 1, c],
                                                                                    p0 * local[j, 0, c])))


@njit(cache=True)
def first_row(clock: float, duration: float, loop: bool, step: float, last: int) -> tuple[int, int, float]:
    """The first action's table rows ``(i, j)`` around ``clock`` (s) and the share ``u`` between them."""
    if duration <= 0.0 or last == 0:
        return 0, 0, 0.0
    if loop:
        clock = clock % duration
    else:
        clock = min(max(clock, 0.0), duration)
    position = clock / step
    i = min(int(position), last - 1)
    return i, i + 1, position - i


@njit(cache=True)
def pose_world(tables: FrameTables, translation: np.ndarray, rotation: np.ndarray, scale: np.ndarray,
               placement: np.ndarray, placed: bool, scratch: np.ndarray, out: np.ndarray) -> None:
    """Forward kinematics of one pose into ``out (n, 4, 4)``, placed (``scratch``: the unplaced matrices)."""
    n = translation.shape[0]
    if not placed:
        _fk.world_transforms(tables.parents, translation.reshape((1, n, 3)), rotation.reshape((1, n, 4)),
                             scale.reshape((1, n, 3)), out.reshape((1, n, 4, 4)))
        return
    _fk.world_transforms(tables.parents, translation.reshape((1, n, 3)), rotation.reshape((1, n, 4)),
                         scale.reshape((1, n, 3)), scratch.reshape((1, n, 4, 4)))
    placed_product(placement, scratch, out)


@njit(cache=True)
def sample_pose(tables: FrameTables, clocks: np.ndarray, duration: float, loop: bool, translation: np.ndarray,
                rotation: np.ndarray, scale: np.ndarray) -> None:
    """The clip's local arrays ``translation (n, 3)``, ``rotation (n, 4)``, ``scale (n, 3)`` at per-joint
    ``clocks (n,)`` (s), wrapped into the clip with ``loop`` (as ``np.mod``), else clamped to ``[0, duration]``
    (as ``np.clip``); joints without a channel keep the rest pose."""
    n = clocks.shape[0]
    joint_time = np.empty((1, n))
    for j in range(n):
        t = clocks[j]
        if loop:
            t = t % duration if duration > 0.0 else 0.0
        else:
            t = t if t > 0.0 else 0.0  # as np.clip: the larger, then the smaller (NaN aside)
            t = t if t < duration else duration
        joint_time[0, j] = t
    translation[:] = tables.rest_translation
    rotation[:] = tables.rest_rotation
    scale[:] = tables.rest_scale
    _clips.sample(tables.channel_joint, tables.channel_path, tables.channel_mode, tables.key_start,
                  tables.key_times, tables.key_values, joint_time, translation.reshape((1, n, 3)),
                  rotation.reshape((1, n, 4)), scale.reshape((1, n, 3)))


@njit(cache=True)
def pose_at(tables: FrameTables, clocks: np.ndarray, duration: float, loop: bool, first_step: float, wrist: int,
            placement: np.ndarray, placed: bool, shake: float, sampled: bool, translation: np.ndarray,
            rotation: np.ndarray, scale: np.ndarray, shaken: np.ndarray, scratch: np.ndarray, world: np.ndarray,
            steady_places: np.ndarray, steady_hand: np.ndarray) -> bool:
    """The pose at per-joint ``clocks (n,)``: the local arrays sampled (:func:`sample_pose`; ``sampled``: they
    already hold it), the wrist's local rotation turned to the first action's world rotation at the wrist's clock
    when the clocks differ, and the placed world matrices ``world (n, 4, 4)``. With ``shake`` (radians, not 0)
    the chain's steady places ``(k, 3)`` and hand ``(4, 4)`` are kept first, then ``shaken (n, 4)`` is the
    rotation with the torso shaken and ``world`` its pose. With ``tables.hold`` and the clocks apart, the steady
    hand stands where the first action puts the wrist at the wrist's clock (placed), and ``shaken`` is the
    rotation, shaken or not. Returns whether the chain must be re-joined to the steady hand (it shook or is
    held). ``scratch (n, 4, 4)``: working space."""
    n = clocks.shape[0]
    if not sampled:
        sample_pose(tables, clocks, duration, loop, translation, rotation, scale)
    pose_world(tables, translation, rotation, scale, placement, placed, scratch, world)
    same = True
    for j in range(n):
        if clocks[j] != clocks[wrist]:
            same = False
    i, k, u = 0, 0, 0.0
    if not same:
        # The hand turns as the first action turns it at the hand's own clock, in the world.
        i, k, u = first_row(clocks[wrist], duration, loop, first_step, tables.first_end.shape[0] - 1)
        current = rotation[wrist].copy()
        _contact.hand_rotation(world[tables.parents[wrist]], placement, tables.first_rotation, i, k, u, current,
                               rotation[wrist])
        pose_world(tables, translation, rotation, scale, placement, placed, scratch, world)
    hold = tables.hold and not same
    if shake == 0.0 and not hold:
        return False
    chain = tables.chain
    for c in range(chain.shape[0]):
        for r in range(3):
            steady_places[c, r] = world[chain[c], r, 3]
    steady_hand[:] = world[chain[chain.shape[0] - 1]]
    if hold:
        # Held back: the wrist's world place is the first action's at the wrist's clock (the arm bends to it).
        position = tables.first_position
        a0 = (1.0 - u) * position[i, 0] + u * position[k, 0]
        a1 = (1.0 - u) * position[i, 1] + u * position[k, 1]
        a2 = (1.0 - u) * position[i, 2] + u * position[k, 2]
        for r in range(3):
            steady_hand[r, 3] = _matvec_row(placement[r, 0], placement[r, 1], placement[r, 2], a0, a1, a2) \
                + placement[r, 3]
        if shake == 0.0:
            shaken[:] = rotation
            return True
    _contact.shake(rotation, tables.shaking, tables.shake_axes, shake, shaken)
    pose_world(tables, translation, shaken, scale, placement, placed, scratch, world)
    return True


@njit(cache=True)
def shake_cap(room: np.ndarray, clock: float, rates: np.ndarray, joints: np.ndarray, duration: float, loop: bool,
              step: float, dt: float, share: float) -> float:
    """The largest shake amplitude (degrees) a frame of ``dt`` seconds may take at the body's ``clock`` (s; the
    clip's ``duration``, looping or not): the shake's per-frame turn (at most twice its amplitude) stays within
    ``share`` of the spare motion of the joints it moves, ``1 - max(rates[joints])``, times the first action's
    room ``room`` (rad/s, a row every ``step`` seconds; see ``contact_setup.shake_room``). So a slowed joint,
    shaken, still moves less per frame than the first action moves it: a shake never reads as speed."""
    fastest = rates[joints[0]]
    for j in joints:
        fastest = max(fastest, rates[j])
    spare = 1.0 - fastest
    if spare <= 0.0:
        return 0.0
    row = 0
    if duration > 0.0 and step > 0.0:
        clock = clock % duration if loop else min(max(clock, 0.0), duration)
        row = min(int(clock / step), room.shape[0] - 1)
    return math.degrees(share * spare * room[row] * dt / 2.0)


@njit(cache=True)
def distance(a: np.ndarray, b: np.ndarray) -> float:
    """``np.linalg.norm(a - b)`` of two 3-vectors, as NumPy computes it (the root of BLAS's dot)."""
    d = np.empty(3)
    for r in range(3):
        d[r] = a[r] - b[r]
    return math.sqrt(dot3(d, d))


@njit(cache=True)
def place_part(wrist_world: np.ndarray, local: np.ndarray, out: np.ndarray) -> None:
    """The part placed by the wrist's world matrix ``(4, 4)``: ``out[0]`` its start, ``out[1]`` its end (m) and,
    when ``local`` has a third column, ``out[2]`` its unit blade normal (as ``PartShape.placed``)."""
    columns = local.shape[1]
    for c in range(columns):
        for r in range(3):
            # wrist[:3, :3] @ local as gemm sums it
            out[c, r] = fma(wrist_world[r, 2], local[2, c], fma(wrist_world[r, 1], local[1, c],
                                                                 wrist_world[r, 0] * local[0, c]))
    for c in range(2):
        for r in range(3):
            out[c, r] = out[c, r] + wrist_world[r, 3]
    if columns > 2:
        norm = math.sqrt(dot3(out[2], out[2]))
        for r in range(3):
            out[2, r] = out[2, r] / norm


@njit(cache=True)
def driven_part(tables: FrameTables, clock: float, duration: float, loop: bool, first_step: float,
                placement: np.ndarray, has_blade: bool, previous_end: np.ndarray, dt: float,
                out: np.ndarray) -> tuple[float, float]:
    """The part's end ``out[0]`` and unit blade normal ``out[1]`` (if ``has_blade``) as the first action alone
    holds them at ``clock`` (s), placed (the table interpolated), and ``out[2]`` the end's velocity from
    ``previous_end`` over ``dt`` (m/s). Returns ``(velocity @ velocity, blade @ velocity)``."""
    i, j, u = first_row(clock, duration, loop, first_step, tables.first_end.shape[0] - 1)
    end, blade = tables.first_end, tables.first_blade
    a0 = (1.0 - u) * end[i, 0] + u * end[j, 0]
    a1 = (1.0 - u) * end[i, 1] + u * end[j, 1]
    a2 = (1.0 - u) * end[i, 2] + u * end[j, 2]
    for r in range(3):
        out[0, r] = _matvec_row(placement[r, 0], placement[r, 1], placement[r, 2], a0, a1, a2) + placement[r, 3]
        out[2, r] = (out[0, r] - previous_end[r]) / dt
    if has_blade:
        a0 = (1.0 - u) * blade[i, 0] + u * blade[j, 0]
        a1 = (1.0 - u) * blade[i, 1] + u * blade[j, 1]
        a2 = (1.0 - u) * blade[i, 2] + u * blade[j, 2]
        for r in range(3):
            out[1, r] = _matvec_row(placement[r, 0], placement[r, 1], placement[r, 2], a0, a1, a2)
        norm = math.sqrt(dot3(out[1], out[1]))
        for r in range(3):
            out[1, r] = out[1, r] / norm
    return dot3(out[2], out[2]), dot3(out[1], out[2]) if has_blade else 0.0


@njit(cache=True)
def join_chain(tables: FrameTables, world: np.ndarray, translation: np.ndarray, rotation: np.ndarray, scale: np.ndarray,
               places: np.ndarray, hand: np.ndarray, previous: np.ndarray, has_previous: bool, parent_world: np.ndarray,
               placement: np.ndarray, placed: bool, scratch: np.ndarray, out_rotation: np.ndarray,
               out_world: np.ndarray, out_elbow: np.ndarray) -> int:
    """Re-join a three-joint chain: two-bone IK from where its joints are in ``world`` to the hand's place
    ``hand[:3, 3]`` (pole: the middle joint's steady place ``places[1]``; ``previous (3,)``: last frame's middle
    joint, read if ``has_previous``), the chain's local rotations re-posed under ``parent_world`` (the chain's
    parent's world matrix, or the placement), ``out_rotation``: ``rotation`` with the chain's rows replaced,
    ``out_world`` its placed pose and ``out_elbow`` the middle joint's new place. Returns the IK kernel's code
    (``ik.OK``, else the bad input's: the outputs are then not written)."""
    chain = tables.chain
    points = np.empty((6, 3))  # root, mid, tip, target, pole, previous mid
    for r in range(3):
        points[0, r] = world[chain[0], r, 3]
        points[1, r] = world[chain[1], r, 3]
        points[2, r] = world[chain[2], r, 3]
        points[3, r] = hand[r, 3]
        points[4, r] = places[1, r]
        points[5, r] = previous[r] if has_previous else points[1, r]
    answer = np.empty((2, 3))  # the new mid and tip
    _, code = _ik.two_bone(points[0:1], points[1:2], points[2:3], points[3:4], points[4:5], points[5:6],
                           has_previous, answer[0:1], answer[1:2])
    if code != _ik.OK:
        return code
    positions = np.empty((3, 3))
    positions[0] = points[0]
    positions[1:] = answer
    out_elbow[:] = answer[0]
    rotations = np.empty((chain.shape[0], 4))
    _contact.repose_chain(parent_world, translation, rotation, chain, positions, hand, rotations)
    out_rotation[:] = rotation
    for c in range(chain.shape[0]):
        out_rotation[chain[c]] = rotations[c]
    pose_world(tables, translation, out_rotation, scale, placement, placed, scratch, out_world)
    return code


@njit(cache=True)
def lag_of(clocks: np.ndarray, duration: float, loop: bool, lag: np.ndarray, clocks0: np.ndarray) -> None:
    """Each joint's lag ``lag (n,)`` behind the leaders (s) and its clock ``clocks0 (n,)`` re-expressed from it:
    looping (and ``duration`` > 0), the lag is counted within one clip length (as ``np.mod``)."""
    n = clocks.shape[0]
    lead = clocks[0]
    for j in range(1, n):
        if clocks[j] > lead:
            lead = clocks[j]
    for j in range(n):
        lag[j] = lead - clocks[j]
    if not loop or duration <= 0.0:
        clocks0[:] = clocks
        return
    for j in range(n):
        lag[j] = lag[j] % duration
        clocks0[j] = lead - lag[j]


@njit(cache=True)
def frame_targets(inside: np.ndarray, held: np.ndarray, delays: np.ndarray, since: float, rates: np.ndarray,
                  lag: np.ndarray, max_catch_up: float, catch_up_time: float, catch_up_floor: float,
                  recovered_rate: float, contact_targets: np.ndarray, has_contact: bool, out: np.ndarray) -> None:
    """Every joint's target rate ``out (n,)`` this frame: its rate in the media (``inside``), the last contact's
    (``held``) while within its recovery delay (``since < delays``), a catch-up rate for a free joint behind
    the leaders once no joint is held and every free joint runs at ``recovered_rate`` or faster, and at most
    ``contact_targets`` when ``has_contact``."""
    n = inside.shape[0]
    holding = False
    for j in range(n):
        t = inside[j]
        if since < delays[j]:  # still within its recovery delay: keeps last contact's rate
            holding = True
            t = t if t <= held[j] else held[j]
        out[j] = t
    if not holding:
        recovered = True
        for j in range(n):
            if out[j] >= 1.0 and not rates[j] >= recovered_rate:
                recovered = False
        if recovered:
            for j in range(n):
                if out[j] >= 1.0 and lag[j] > 0.0:
                    catch_up = lag[j] / catch_up_time
                    catch_up = 1.0 + (catch_up if catch_up >= catch_up_floor else catch_up_floor)
                    out[j] = max_catch_up if max_catch_up <= catch_up else catch_up
    if has_contact:
        for j in range(n):
            out[j] = out[j] if out[j] <= contact_targets[j] else contact_targets[j]


@njit(cache=True)
def frame_clocks(clocks: np.ndarray, rates: np.ndarray, inside: np.ndarray, held: np.ndarray, delays: np.ndarray,
                 taus: np.ndarray, since: float, lag: np.ndarray, max_catch_up: float, catch_up_time: float,
                 catch_up_floor: float, recovered_rate: float, contact_targets: np.ndarray, has_contact: bool,
                 dt: float, duration: float, loop: bool, snap: float, targets: np.ndarray, out_clocks: np.ndarray,
                 out_rates: np.ndarray) -> None:
    """One frame's target rates (:func:`frame_targets` into ``targets``) and every joint's clock and rate advanced
    from ``clocks`` (``contact.advance_clocks`` into ``out_clocks``, ``out_rates``)."""
    frame_targets(inside, held, delays, since, rates, lag, max_catch_up, catch_up_time, catch_up_floor,
                  recovered_rate, contact_targets, has_contact, targets)
    _contact.advance_clocks(clocks, rates, targets, taus, lag, dt, duration, loop, snap, out_clocks, out_rates)


@njit(cache=True)
def before_query(tables: FrameTables, clocks: np.ndarray, rates: np.ndarray, inside: np.ndarray, held: np.ndarray,
                 delays: np.ndarray, taus: np.ndarray, since: float, max_catch_up: float, catch_up_time: float,
                 catch_up_floor: float, recovered_rate: float, dt: float, duration: float, loop: bool, snap: float,
                 first_step: float, wrist: int, root: int, placement: np.ndarray, placed: bool, shake: float,
                 has_blade: bool, previous_driven_end: np.ndarray) -> BeforeQuery:
    """A frame up to its contact query, as the motion would play it without contact (no media, no second clip):
    the lag (:func:`lag_of`), the targets, clocks and rates (:func:`frame_clocks`), the pose (:func:`pose_at`,
    shaken by ``shake`` radians), the part placed (:func:`place_part`: by the steady hand when shaken) and, with a
    blade, the first action's part (:func:`driven_part`). Returns ``(lag, clocks0, targets, clocks, rates,
    translation, rotation, scale, shaken, world, places, hand, segment, driven, was_shaken, speed_sq, along)``."""
    n = clocks.shape[0]
    lag, clocks0 = np.empty(n), np.empty(n)
    lag_of(clocks, duration, loop, lag, clocks0)
    targets, new_clocks, new_rates = np.empty(n), np.empty(n), np.empty(n)
    frame_clocks(clocks0, rates, inside, held, delays, taus, since, lag, max_catch_up, catch_up_time, catch_up_floor,
                 recovered_rate, inside, False, dt, duration, loop, snap, targets, new_clocks, new_rates)
    translation, rotation, scale, shaken = np.empty((n, 3)), np.empty((n, 4)), np.empty((n, 3)), np.empty((n, 4))
    scratch, world = np.empty((n, 4, 4)), np.empty((n, 4, 4))
    places, hand = np.empty((tables.chain.shape[0], 3)), np.empty((4, 4))
    was_shaken = pose_at(tables, new_clocks, duration, loop, first_step, wrist, placement, placed, shake, False,
                         translation, rotation, scale, shaken, scratch, world, places, hand)
    segment = np.empty((3, 3))
    place_part(hand if was_shaken else world[wrist], tables.part_local, segment)
    driven = np.zeros((3, 3))
    speed_sq, along = 0.0, 0.0
    if has_blade:
        speed_sq, along = driven_part(tables, new_clocks[root], duration, loop, first_step, placement, True,
                                      previous_driven_end, dt, driven)
    return (lag, clocks0, targets, new_clocks, new_rates, translation, rotation, scale, shaken, world, places, hand,
            segment, driven, was_shaken, speed_sq, along)


@njit(cache=True)
def after_query(tables: FrameTables, clocks0: np.ndarray, rates: np.ndarray, inside: np.ndarray, held: np.ndarray,
                delays: np.ndarray, taus: np.ndarray, since: float, lag: np.ndarray, max_catch_up: float,
                catch_up_time: float, catch_up_floor: float, recovered_rate: float, contact_targets: np.ndarray,
                has_contact: bool, targets: np.ndarray, dt: float, duration: float, loop: bool, snap: float,
                first_step: float, wrist: int, placement: np.ndarray, placed: bool, shake: float, parent: int,
                previous_elbow: np.ndarray, has_previous: bool, previous_end: np.ndarray, clocks: np.ndarray,
                new_rates: np.ndarray, translation: np.ndarray, rotation: np.ndarray, scale: np.ndarray,
                shaken: np.ndarray, world: np.ndarray, places: np.ndarray, hand: np.ndarray, segment: np.ndarray,
                was_shaken: bool) -> AfterQuery:
    """The rest of a three-joint chain's frame after its contact query (see :func:`before_query`): the targets
    again with the contact's (``contact_targets`` if ``has_contact``); where the contact or the new targets change
    the frame, the clocks, rates, pose and part again (shaken by ``shake``); where the torso shook, the chain
    re-joined (:func:`join_chain`, ``parent``: the chain's parent joint or -1). Returns ``(clocks, rates,
    translation, rotation, scale, world, segment, elbow, joined, code, moved)``: the frame's local rotation
    (shaken, re-joined), ``elbow`` the middle joint's new place when ``joined``, ``code`` the IK's (``ik.OK``, else
    the pose before the chain is re-joined), ``moved`` the part end's distance from ``previous_end``."""
    n = clocks0.shape[0]
    second, second_clocks, second_rates = np.empty(n), np.empty(n), np.empty(n)
    frame_clocks(clocks0, rates, inside, held, delays, taus, since, lag, max_catch_up, catch_up_time, catch_up_floor,
                 recovered_rate, contact_targets, has_contact, dt, duration, loop, snap, second, second_clocks,
                 second_rates)
    changed = has_contact
    for j in range(n):
        if second[j] != targets[j]:
            changed = True
    local = shaken if was_shaken else rotation
    if changed:
        clocks, new_rates = second_clocks, second_rates
        translation, rotation, scale = np.empty((n, 3)), np.empty((n, 4)), np.empty((n, 3))
        shaken, world = np.empty((n, 4)), np.empty((n, 4, 4))
        places, hand = np.empty((tables.chain.shape[0], 3)), np.empty((4, 4))
        was_shaken = pose_at(tables, clocks, duration, loop, first_step, wrist, placement, placed, shake, False,
                             translation, rotation, scale, shaken, np.empty((n, 4, 4)), world, places, hand)
        segment = np.empty((3, 3))
        place_part(hand if was_shaken else world[wrist], tables.part_local, segment)
        local = shaken if was_shaken else rotation
    elbow = np.empty(3)
    joined, code = False, _ik.OK
    if was_shaken:
        parent_world = world[parent] if parent >= 0 else placement
        out_rotation, out_world = np.empty((n, 4)), np.empty((n, 4, 4))
        code = join_chain(tables, world, translation, local, scale, places, hand, previous_elbow, has_previous,
                          np.ascontiguousarray(parent_world), placement, placed, np.empty((n, 4, 4)), out_rotation,
                          out_world, elbow)
        if code == _ik.OK:
            local, world, joined = out_rotation, out_world, True
            if tables.hold:  # the part where the joined wrist is (the arm may not reach the held hand)
                place_part(world[wrist], tables.part_local, segment)
    moved = distance(segment[1], previous_end)
    return clocks, new_rates, translation, local, scale, world, segment, elbow, joined, code, moved
