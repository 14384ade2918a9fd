"""The scripted demo session behind ``voxelworld demo --frames 600 --out demo/``.

:func:`demo_inputs` is the player, a plain function of the frame number and the world: it walks towards the
rock wall, punches a hole in the ground across npc_1's patrol (fragments fly, npc_1 re-plans around it), pulls
a piece out and throws it at the wall (it sticks), sucks the ground until bullets come, readies one (stance)
and throws it into the lava pool (it cools), then walks up to the wall and punches it until the rock gives way.
The chainsaw enemy cuts the wall from the first frame on.

:func:`run_session` plays it headless on :meth:`World.demo <voxelworld.game.world.World.demo>`, times every
``World.step``, draws offscreen PNG snapshots at the key frames (each from where its subject shows:
:mod:`.subject_view`), an overview and the achievements chart, and writes ``report.md`` (with why actions did
nothing and why NPCs re-planned: :mod:`.explanations`); every file is written atomically.

>>> from voxelworld.game.world import World
>>> inputs = demo_inputs(0, World.demo(seed=0))
>>> inputs.move, inputs.look, phase_of(150)                  # walk along +x, towards the wall
((0.0, 1.0), (270.0, 0.0), 'punch the ground')
"""

from __future__ import annotations

import math
import time
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from .. import __version__
from ..collision import TriangleBVH
from ..errors import ParameterError, check_integer
from ..files import write_atomically
from ..game.enemy import ChainsawEnemy
from ..game.events import ActionEnded, ActionOutcome, EnemyChanged, Event, NPCChanged, VoxelsEdited
from ..game.player import view_direction
from ..game.throwing import RULES
from ..game.world import Inputs, World
from ..terrain import MaterialTable
from .camera import Camera
from .character_mesh import KIND_MATERIALS, character_mesh
from .charts import achievements_png
from .explanations import Explanation, blocked_actions, replans
from .snapshot import MAX_SIZE, render, snapshot
from .subject_view import subject_camera, visible_share

__all__ = ["DT", "FrameTimes", "SCRIPT", "SECTIONS", "demo_inputs", "phase_of", "run_session", "SessionResult",
           "KeyFrame"]

DT = 1 / 60  # s per frame
FRAME_BUDGET_MS = 1000 / 60  # 16.7 ms: a frame at 60 frames per second
MAX_FRAMES = 1_000_000  # about 4.6 hours of game time
STAND_X = 28.4  # m: where the player digs, 1.6 m short of npc_1's patrol line (x = 30, z 18 .. 30)
DIG_YAW = 300.0  # degrees: ahead and to the left (-z), off the way to the wall
AHEAD = 270.0  # degrees: the yaw looking along +x, at the wall
THROW_PITCH = 6.0  # degrees up: a throw from the digging spot meets the wall above the ground
LAVA, LAVA_PITCH = (12.0, 12.0), 27.0  # the pool's centre (x, z) in m; a throw at 27 degrees lands in it
WALL_FACE_X, WALL_STAND_X, WALL_WAY_Z = 38.4, 36.2, 25.0  # m: the face, where to punch from, the way's z
WALL_LOOK = (AHEAD, -5.0)  # degrees: punching the wall at chest height
PUNCH_REACH = 2.4  # m: the script steps closer than this before it punches (well inside the punch's reach)
OVERVIEW = ((9.0, 8.0, 9.0), (41.0, 12.0, 33.0))  # m: the box the overview frames, the pool to the wall

# The script: (first frame, phase); the player then watches the enemy. A strike (game.strike) plays ~0.6 s.
SCRIPT = ((0, "walk"), (145, "punch the ground"), (185, "pull out"), (225, "throw the piece"), (255, "suck"),
          (320, "stance"), (330, "throw the bullet"), (365, "walk to the wall and punch it"), (590, "watch"))
SECTIONS = ("Pictures", "Timeline", "Events", "Achievements", "Bullets, throws, NPCs and the enemy",
            "Why: blocked actions and re-plans", "Hashes", "Frame times (this machine)")
EXPLAINED_ROWS = 12  # rows of each "why" table; the rest are counted


def phase_of(frame: int) -> str:
    """The script's phase at ``frame`` (see :data:`SCRIPT`)."""
    return next(name for start, name in reversed(SCRIPT) if frame >= start)


def _yaw_to(world: World, x: float, z: float) -> float:
    """The yaw (degrees) from the player towards (x, z) m."""
    dx, dz = x - float(world.player.position[0]), z - float(world.player.position[2])
    return math.degrees(math.atan2(-dx, -dz)) % 360.0


def _distance(world: World, look: tuple[float, float]) -> float:
    """How far (m) the terrain is from the player's eye looking at ``look`` (yaw, pitch); inf for nothing."""
    hits = world.collider.raycast(world.player.eye, view_direction(*look), 30.0)
    return float(hits.distance[0]) if hits.hit[0] else math.inf


def _down_within_reach(world: World, yaw: float) -> tuple[float, float]:
    """The look along ``yaw`` at the ground within reach: the shallowest of a few pitches that gets there."""
    return next(((yaw, p) for p in (-50.0, -55.0, -60.0, -65.0) if _distance(world, (yaw, p)) <= PUNCH_REACH),
                (yaw, -70.0))


def demo_inputs(frame: int, world: World) -> Inputs:
    """The scripted player's inputs for ``frame`` (0, 1, ...), reading only the world's state (deterministic).
    A button acts on a press (down now, up last frame): each press here lasts one frame."""
    since = frame - next(first for first, _ in reversed(SCRIPT) if frame >= first)
    phase, (x, z) = phase_of(frame), (float(world.player.position[0]), float(world.player.position[2]))
    if phase == "walk":
        return Inputs(move=(0.0, 1.0) if x < STAND_X else (0.0, 0.0), look=(AHEAD, 0.0))
    if phase == "punch the ground":  # grass and soil give way at once
        return Inputs(look=_down_within_reach(world, DIG_YAW), punch=since == 2)
    if phase == "pull out":
        return Inputs(look=_down_within_reach(world, DIG_YAW + 40.0), pull_out=since == 2)
    if phase == "throw the piece":
        return Inputs(look=(AHEAD, THROW_PITCH), throw=since == 4)
    if phase == "suck":  # held while sweeping over the ground: a scrape every frame, a bullet every few
        return Inputs(look=(DIG_YAW - 10.0 + 0.5 * since, -22.0), suck=since < 60)
    if phase in ("stance", "throw the bullet"):
        return Inputs(look=(_yaw_to(world, *LAVA), LAVA_PITCH), stance=phase == "stance" and since == 2,
                      throw=phase == "throw the bullet" and since == 4)
    if phase == "walk to the wall and punch it":  # rock: the first punches on a spot only damage it
        ahead = _distance(world, WALL_LOOK)
        if x < WALL_STAND_X or (ahead > PUNCH_REACH and x < WALL_FACE_X):  # up to the wall, then into the hole
            return Inputs(move=(0.6, 0.8) if z < WALL_WAY_Z else (0.0, 1.0), look=WALL_LOOK,
                          sprint=x < WALL_STAND_X - 2.0)
        if ahead <= PUNCH_REACH:
            return Inputs(look=WALL_LOOK, punch=frame % 12 == 0)
    enemy = world.agents.enemies[0].position if world.agents.enemies else (WALL_FACE_X, 0.0, 30.0)
    return Inputs(look=(_yaw_to(world, enemy[0], enemy[2]), -10.0))


# --------------------------------------------------------------------------------------------- key frames
@dataclass(frozen=True)
class KeyFrame:
    """A frame worth a picture: ``frame``, world ``time`` (s), a file-name ``slug``, a ``caption``, the ``focus``
    point (m) its subject is around, the subject's ``radius`` (m: the surface within it is what must be seen),
    the ``material`` the subject is made of (None: any), the ``actor`` (the name of an NPC, or of the enemy's
    blade) whose box is part of the subject (None: no actor) and more ``points`` (m) on the subject."""

    frame: int
    time: float
    slug: str
    caption: str
    focus: tuple[float, float, float]
    radius: float = 1.2
    material: str | None = None
    actor: str | None = None
    points: tuple[tuple[float, float, float], ...] = ()

    @property
    def picture(self) -> str:
        return f"frame-{self.frame:04d}-{self.slug}.png"


def _key_frames(world: World, events: list[Event], seen: set[str], sides: dict[str, float]) -> list[KeyFrame]:
    """This frame's key moments not yet ``seen``; ``sides`` keeps which side of the player npc_1 was on."""
    found = []

    def key(slug: str, caption: str, focus: Iterable[Any] | None, **subject: Any) -> None:
        if slug not in seen:
            assert focus is not None  # these outcomes say where they happened
            seen.add(slug)
            found.append(KeyFrame(world.frame - 1, world.time - world.dt, slug, caption, _point(focus), **subject))

    for e in (e for e in events if isinstance(e, ActionOutcome)):
        if e.kind == "punch" and e.amount > 0:
            fragments = sum(1 for item in world.actions.objects if item.kind == "fragment")
            slug = "wall-gives-way" if e.material is not None and "rock" in e.material else "first-punch"
            key(slug, f"Punch: {e.amount:.2f} m³ of {e.material} removed, {fragments} fragments", e.position)
        elif e.kind == "pull_out" and e.amount > 0:
            key("pull-out", f"Pull-out: a piece of {e.material} in the player's hands", e.position)
        elif e.kind == "bullet":
            key("first-bullet", f"Suck: the first bullet ({e.material})", e.position, radius=1.5)
        elif e.kind == "cool":  # the subject is the crust the cooling made, wherever on the pool it lies
            key("impact-cool", f"Thrown {e.material} meets {e.item}: cool ({e.amount:.2f} m³ of obsidian)",
                e.position, radius=4.0, material="obsidian")
        elif e.kind in RULES:
            key(f"impact-{e.kind}", f"Thrown {e.material} meets {e.item}: {e.kind} ({e.amount:.2f} m³)", e.position)
    if world.agents.npcs:  # npc_1 crosses the player's way: its z passes the player's, a few metres ahead
        npc, player = world.agents.npcs[0], world.player.position
        side = float(npc.position[2] - player[2])
        if abs(float(npc.position[0] - player[0])) < 6.0 and sides.get(npc.name, side) * side < 0:
            key("npc-crossing", f"{npc.name} crosses the player's way", npc.position + (0.0, 0.9, 0.0),
                radius=1.0, actor=npc.name)
        sides[npc.name] = side
    return found


def _track_cuts(world: World, events: list[Event], cuts: list[np.ndarray]) -> None:
    """Keep where the enemy's blade was (its two ends, m) each time it carved something."""
    for e in events:
        if isinstance(e, EnemyChanged) and e.kind == "carved" and e.amount > 0:
            enemy = next(enemy for enemy in world.agents.enemies if enemy.name == e.enemy)
            cuts.extend(np.asarray(end, dtype=np.float64) for end in enemy.motion.part_segment)


def _last_frame(world: World, frame: int, cuts: list[np.ndarray]) -> KeyFrame:
    """The last picture: the enemy's blade in its cut (the cut's rock around the blade, the blade itself), else the
    player's aim."""
    caption = f"The last frame ({frame})"
    if cuts and world.agents.enemies:
        material = next(e.material for e in reversed(world.events) if isinstance(e, EnemyChanged)
                        and e.kind == "carved" and e.amount > 0)
        enemy = world.agents.enemies[0]
        start, end = (np.asarray(p, dtype=np.float64) for p in enemy.motion.part_segment)
        blade = tuple(_point(start + share * (end - start)) for share in np.linspace(0.0, 1.0, 5))
        return KeyFrame(frame, world.time - DT, "last-frame", f"{caption}: the enemy's blade in its cut in the "
                        f"{material}", blade[2], radius=1.2, actor=f"{enemy.name} blade", points=blade)
    focus = world.player.eye + 6.0 * world.player.aim
    return KeyFrame(frame, world.time - DT, "last-frame", caption, _point(focus), radius=1.5)


def _point(values: Iterable[Any]) -> tuple[float, float, float]:  # three numbers (m) as plain floats
    x, y, z = (float(v) for v in values)
    return x, y, z


# ---------------------------------------------------------------------------------------------- pictures
_BOX = np.array([[0, 1, 5], [0, 5, 4], [2, 6, 7], [2, 7, 3], [0, 4, 6], [0, 6, 2], [1, 3, 7], [1, 7, 5],
                 [0, 2, 3], [0, 3, 1], [4, 5, 7], [4, 7, 6]])  # a box's triangles, corners numbered by bits x y z
_CORNERS = np.array([[(c >> a) & 1 for a in range(3)] for c in range(8)], dtype=np.float64)
# What stands or flies, drawn as a box: (material giving the colour, half width m, height m, standing on feet).
_MARKERS = {"player": ("wood", 0.35, 1.8, True), "npc": ("ice", 0.35, 1.8, True), "enemy": ("lava", 0.4, 1.9, True),
            "fragment": ("sand", 0.15, 0.3, False), "treasure": ("iron", 0.2, 0.4, False)}


def _box(world: World, corner: ArrayLike, axes: ArrayLike, material: str) -> SimpleNamespace:
    """A flat-shaded box (a display mesh) from ``corner`` (m) along the three ``axes`` (m, right-handed)."""
    triangles = (np.asarray(corner, dtype=np.float64) + _CORNERS @ np.asarray(axes, dtype=np.float64))[_BOX]
    normals = np.cross(triangles[:, 1] - triangles[:, 0], triangles[:, 2] - triangles[:, 0])
    ids = np.full(36, world.materials.id_of(material), np.uint8)
    return SimpleNamespace(positions=triangles.reshape(-1, 3), indices=np.arange(36).reshape(12, 3),
                           normals=np.repeat(normals / np.linalg.norm(normals, axis=1)[:, None], 3, 0),
                           mat_a=ids, mat_b=ids, blend=np.zeros(36))


def _blade(world: World, enemy: ChainsawEnemy) -> SimpleNamespace:
    """The chainsaw's blade: a bar 0.1 m thick along its segment, iron grey."""
    start, end = (np.asarray(p, dtype=np.float64) for p in enemy.motion.part_segment)
    along = end - start
    across = np.cross(along, (0.0, 1.0, 0.0) if abs(along[1]) < 0.9 * np.linalg.norm(along) else (1.0, 0.0, 0.0))
    across *= 0.1 / np.linalg.norm(across)
    up = np.cross(along, across)
    up *= 0.1 / np.linalg.norm(up)
    return _box(world, start - across / 2 - up / 2, (along, across, up), "iron")


def _markers(world: World) -> list[tuple[str, SimpleNamespace]]:
    """The player, the NPCs and the enemy as the skinned character in their poses (:mod:`.character_mesh`), the
    enemy's blade, and boxes at the moving objects, with the name of what each marks."""
    snapshot = world.snapshot()
    posed = {pose.name: pose for pose in snapshot.characters}
    boxes = []
    for name, kind, position in [("player", "player", world.player.position)] + [
            (o.name, o.kind, o.position) for o in snapshot.objects]:
        if kind in KIND_MATERIALS and name in posed:  # an actor: the skinned character the page draws
            boxes.append((name, character_mesh(posed[name], world.materials)))
            continue
        material, half, height, standing = _MARKERS.get(kind, ("sand", 0.2, 0.4, False))
        low = np.asarray(position, dtype=np.float64) + (-half, 0.0 if standing else -height / 2, -half)
        boxes.append((name, _box(world, low, np.diag((2 * half, height, 2 * half)), material)))
    return boxes + [(f"{enemy.name} blade", _blade(world, enemy)) for enemy in world.agents.enemies]


@dataclass(frozen=True)
class _Scene:
    """What a picture draws (``meshes``: the terrain's display meshes, then the markers) and the same triangles
    as ``occluders`` for line-of-sight tests, each marker's triangles numbered by its place in ``actors``."""

    meshes: list
    occluders: TriangleBVH
    actors: tuple[str, ...]


def _scene(world: World) -> _Scene:
    terrain = [mesh for mesh in world.mesher.meshes.values() if mesh.triangle_count]
    markers = _markers(world)
    meshes = terrain + [mesh for _, mesh in markers]
    offsets = np.cumsum([0] + [len(mesh.positions) for mesh in meshes])
    objects = [np.full(len(mesh.indices), -1) for mesh in terrain] + [np.full(len(mesh.indices), n)
                                                                  for n, (_, mesh) in enumerate(markers)]
    occluders = TriangleBVH(np.vstack([mesh.positions for mesh in meshes]),
                            np.vstack([np.asarray(mesh.indices) + offset for mesh, offset in zip(meshes, offsets)]),
                            tri_object=np.concatenate(objects))
    return _Scene(meshes, occluders, tuple(name for name, _ in markers))


def _subject_points(world: World, key: KeyFrame) -> np.ndarray:
    """Points on ``key``'s subject: the display vertices within its radius of its focus (of its material, if it
    names one), the focus itself and the key's own ``points``."""
    focus = np.asarray(key.focus, dtype=np.float64)
    wanted = None if key.material is None else world.materials.id_of(key.material)
    found = [focus[None], np.asarray(key.points, dtype=np.float64).reshape(-1, 3)]
    for mesh in world.mesher.meshes.values():
        if not mesh.triangle_count:
            continue
        near = np.linalg.norm(mesh.positions - focus, axis=1) <= key.radius
        if wanted is not None:  # vertices that show some of it
            near &= ((mesh.mat_a == wanted) & (mesh.blend < 1.0)) | ((mesh.mat_b == wanted) & (mesh.blend > 0.0))
        found.append(mesh.positions[near])
    points = np.vstack(found)
    if wanted is not None and len(points) > 1:  # the made material's own vertices: look at them, not the throw
        points = points[1:]
    return points


def _camera(world: World, scene: _Scene, key: KeyFrame, aspect: float) -> Camera:
    """A camera that shows ``key``'s subject: around it, on the side most of it is seen from (through the
    terrain and every box), the player's side first (:func:`~voxelworld.viewer.subject_view.subject_camera`)."""
    points = _subject_points(world, key)
    prefer = world.player.eye - points.mean(axis=0)
    return subject_camera(scene.occluders, points, prefer=prefer, aspect=aspect, fov=60.0,
                          own_object=_own_object(scene, key))


def _own_object(scene: _Scene, key: KeyFrame) -> int:
    """The object number of ``key``'s actor's box in ``scene.occluders`` (-2: no actor)."""
    return scene.actors.index(key.actor) if key.actor in scene.actors else -2


def _draw(scene: _Scene, world: World, path: Path, camera: Camera, size: tuple[int, int]) -> Path:
    return snapshot(scene.meshes, path, materials=world.materials, camera=camera, size=size)


# ------------------------------------------------------------------------------------------------ report
def _count_key(e: Event) -> tuple[str, str]:
    """The (event type, kind) an event is counted under."""
    name = type(e).__name__
    if isinstance(e, ActionEnded):
        return name, f"{e.action}: {e.outcome}"
    if isinstance(e, VoxelsEdited):
        return name, f"{e.kind} ({e.source})"
    return name, next((str(getattr(e, f)) for f in ("kind", "action", "material", "cause", "item") if hasattr(e, f)),
                      "")


def _timeline_text(e: Event, first: set[tuple[str, str]]) -> str | None:
    """The timeline's words for ``e``; None for routine events (footsteps, edits, every re-plan after the first)."""
    if isinstance(e, ActionEnded):
        return f"{e.action} ends: {e.outcome}"
    if isinstance(e, ActionOutcome):
        where = "" if e.position is None else " at ({:.1f}, {:.1f}, {:.1f})".format(*e.position)
        if e.kind in RULES:
            return f"impact: thrown {e.material} on {e.item}: {e.kind} ({e.amount:.2f} m³){where}"
        return {"bullet": f"bullet {e.amount:.0f} of {e.material}{where}", "award": f"award: {e.item}",
                "treasure": f"treasure placed{where}", "stance": f"stance: a {e.material} bullet ready",
                "throw": f"throw: {e.material}", "lost": f"thrown {e.material} lost"}.get(e.kind)
    if isinstance(e, NPCChanged) and e.kind != "replanned":
        return f"{e.npc} {e.kind}"
    if isinstance(e, (NPCChanged, EnemyChanged)) and e.kind in ("replanned", "carved", "contact_started"):
        who, material = (e.npc, "") if isinstance(e, NPCChanged) else (e.enemy, f" ({e.material})")
        if (who, e.kind) not in first:
            first.add((who, e.kind))
            return f"{who}: first {e.kind.replace('_', ' ')}{material}"
    return None


@dataclass(frozen=True)
class FrameTimes:
    """A session's ``World.step`` times: ``median``, ``p95``, ``worst`` and ``mean`` in ms, and how many of the
    ``frames`` took longer than the 16.7 ms budget (``frames_over``). The report and the command's summary line
    both print :meth:`over_budget`, so that they agree.

    >>> FrameTimes.of([0.002] * 199 + [0.020]).over_budget()
    '0.5% (1 of 200)'
    """

    median: float
    p95: float
    worst: float
    mean: float
    frames_over: int
    frames: int

    @classmethod
    def of(cls, times: ArrayLike) -> FrameTimes:
        """The figures of ``times`` (s per frame, at least one)."""
        ms = 1000.0 * np.asarray(times, dtype=np.float64)
        return cls(float(np.median(ms)), float(np.percentile(ms, 95)), float(ms.max()), float(ms.mean()),
                   int(np.count_nonzero(ms > FRAME_BUDGET_MS)), len(ms))

    @property
    def over(self) -> float:
        """The share (0..1) of frames over budget."""
        return self.frames_over / self.frames

    def over_budget(self) -> str:
        """The frames over budget as a share with one decimal and as a count: never a 0% that hides a frame."""
        return f"{self.over:.1%} ({self.frames_over} of {self.frames})"


def _timeline(world: World, keys: list[KeyFrame]) -> list[str]:
    rows, pictures = ["| frame | time (s) | what |", "|---:|---:|---|"], {k.frame: k for k in keys}
    first: set[tuple[str, str]] = set()
    for e in world.events:
        if e.frame in pictures:
            k = pictures.pop(e.frame)
            rows.append(f"| {k.frame} | {k.time:.2f} | picture: [{k.caption}]({k.picture}) |")
        text = _timeline_text(e, first)
        rows += [f"| {e.frame} | {e.time:.2f} | {text} |"] if text else []
    return rows + [f"| {k.frame} | {k.time:.2f} | picture: [{k.caption}]({k.picture}) |" for k in pictures.values()]


def _facts(world: World, off_line: dict[str, float]) -> list[str]:
    """Bullets, impacts, the enemy's carving and the NPCs' re-plans, one line each."""
    made = [e for e in world.events if isinstance(e, ActionOutcome) and e.kind == "bullet"]
    impacts = Counter(e.kind for e in world.events if isinstance(e, ActionOutcome) and e.kind in RULES)
    lines = [f"- Bullets sucked up: {len(made)} ({', '.join(sorted({str(e.material) for e in made})) or '-'}); "
             f"carried at the end: {len(world.actions.suck.bullets)}.",
             f"- Throw impacts: {', '.join(f'{rule} {n}' for rule, n in sorted(impacts.items())) or 'none'}."]
    for enemy in world.agents.enemies:
        carves = [e for e in world.events if isinstance(e, EnemyChanged) and e.enemy == enemy.name
                  and e.kind == "carved"]
        by_material: Counter[str] = Counter()  # m³ (floats) by material
        for carve in carves:
            by_material[carve.material] += carve.amount  # type: ignore[assignment]  # typeshed's Counter counts ints
        lines.append(f"- Enemy {enemy.name}: carved {enemy.carved_volume:.3f} m³ ({enemy.carved_voxels} voxels; "
                     + ", ".join(f"{m} {v:.3f}" for m, v in by_material.most_common()) + f") in {len(carves)} "
                     f"carves, {sum(c.amount == 0 for c in carves)} of which removed nothing; slowest wrist rate "
                     f"{enemy.slowest_wrist_rate:.3f}; walked {enemy.walked:.1f} m along the wall.")
    return lines + [f"- NPC {n.name}: {n.replans} re-plans, now {n.state}; at most {off_line[n.name]:.2f} m off "
                    "the straight line of its patrol." for n in world.agents.npcs]


def _explained(title: str, who: str, explanations: list[Explanation]) -> list[str]:
    """A table of ``explanations`` (frame, time, who, why), the first :data:`EXPLAINED_ROWS` of them."""
    if not explanations:
        return [f"{title}: none."]
    rows = [f"{title}:", "", f"| frame | time (s) | {who} | why |", "|---:|---:|---|---|"]
    rows += [f"| {e.frame} | {e.time:.2f} | {e.who} | {e.why} |" for e in explanations[:EXPLAINED_ROWS]]
    more = len(explanations) - EXPLAINED_ROWS
    return rows + ([f"| ... | | | and {more} more |"] if more > 0 else [])


def _why(world: World, rebaked: set[tuple[int, str]]) -> list[str]:
    """The report's words on each action that did nothing and each NPC re-plan (:mod:`.explanations`;
    ``rebaked``: the re-plans the navmesh's re-bakes under the NPC's way caused)."""
    return [*_explained("Player actions that did nothing", "action", blocked_actions(world.events)), "",
            *_explained("NPC re-plans", "NPC", replans(world.events, rebaked))]


def _report(world: World, seed: int, keys: list[KeyFrame], times: np.ndarray, built: float, off_line: dict[str, float],
            rebaked: set[tuple[int, str]]) -> str:
    frames, s = len(times), world.volume.voxel_size
    size = " x ".join(f"{n * s:g}" for n in world.volume.shape)
    where = ", ".join(f"{v:.2f}" for v in world.player.position)
    pictures = [line for k in keys for line in (f"Frame {k.frame} ({k.time:.2f} s): {k.caption}", "",
                                                f"![{k.caption}]({k.picture})", "")]
    counts = sorted(Counter(map(_count_key, world.events)).items())
    removed = [f"| {group} | {amount:.2f} |" for group, amount in world.achievements().items()] or ["| - | 0 |"]
    stats = FrameTimes.of(times)
    return "\n".join([
        "# voxelworld demo session", "",
        f"Seed {seed}, {frames} frames of 1/60 s ({frames * DT:.2f} s of game time) played headless by the script in "
        f"`voxelworld/viewer/demo_session.py` on `World.demo(seed={seed})`: a {size} m level of {s:g} m voxels, "
        f"{len(world.agents.npcs)} NPCs, {len(world.agents.enemies)} chainsaw enemy; voxelworld {__version__}. "
        f"The player ends at ({where}); {len(world.events)} events.", "",
        f"## {SECTIONS[0]}", "", "Boxes mark the player (wood brown), NPCs (ice blue), the enemy (lava orange) and "
        "its blade (an iron bar), fragments and thrown things (sand).", "", *pictures,
        "The level after the last frame:", "", "![overview](overview.png)", "",
        f"## {SECTIONS[1]}", "", *_timeline(world, keys), "",
        f"## {SECTIONS[2]}", "", "| event | kind | count |", "|---|---|---:|",
        *(f"| {name} | {kind} | {n} |" for (name, kind), n in counts), "",
        f"## {SECTIONS[3]}", "", "Volume removed by the player's actions, per material group:", "",
        "| group | removed (m³) |", "|---|---:|", *removed, "",
        f"Items granted: {', '.join(world.actions.items) or 'none'}; treasures placed: "
        f"{len(world.actions.deformation.treasures)}.", "", "![achievements](achievements.png)", "",
        f"## {SECTIONS[4]}", "", *_facts(world, off_line), "",
        f"## {SECTIONS[5]}", "", *_why(world, rebaked), "",
        f"## {SECTIONS[6]}", "", "Two runs with the same seed and frames give the same hashes.", "",
        f"- event log: `{world.event_log_hash()}`", f"- voxels: `{world.voxel_hash()}`", "",
        f"## {SECTIONS[7]}", "", f"World built in {1000 * built:.0f} ms. Each `World.step` timed with "
        f"perf_counter (the first, {1000 * times[0]:.1f} ms, included):", "",
        "| median (ms) | p95 (ms) | max (ms) | mean (ms) | frames over 16.7 ms |", "|---:|---:|---:|---:|---:|",
        f"| {stats.median:.2f} | {stats.p95:.2f} | {stats.worst:.2f} | {stats.mean:.2f} | {stats.over_budget()} |",
        ""])


# ------------------------------------------------------------------------------------------------ session
@dataclass(frozen=True)
class SessionResult:
    """What :func:`run_session` did: the ``report`` path, the ``pictures`` written (key frames, overview,
    achievements chart), the ``key_frames``, each frame's step ``times`` (s), the two hashes and the ``world``;
    per key frame the ``cameras`` of its picture and the share of its subject's points each saw (``seen``, 0..1,
    through the terrain and every box)."""

    report: Path
    pictures: tuple[Path, ...]
    key_frames: tuple[KeyFrame, ...]
    times: np.ndarray
    event_log_hash: str
    voxel_hash: str
    world: World
    cameras: tuple[Camera, ...] = ()
    seen: tuple[float, ...] = ()

    def stats(self) -> FrameTimes:
        """Frame times: median, p95, max, mean in ms and the share of frames over 16.7 ms."""
        return FrameTimes.of(self.times)


def _check_renderer() -> None:
    """Draw one triangle on 2 x 2 pixels: RenderError where there is no offscreen OpenGL."""
    triangle = SimpleNamespace(positions=np.eye(3), normals=np.ones((3, 3)), indices=np.array([[0, 1, 2]]),
                               mat_a=np.zeros(3, np.uint8), mat_b=np.zeros(3, np.uint8), blend=np.zeros(3))
    render(triangle, materials=MaterialTable.default(), size=(2, 2), camera=Camera((2, 2, 2), (0, 0, 0)))


def _ways(world: World) -> tuple[int, dict[str, np.ndarray]]:
    """The navmesh's revision and each walking NPC's way (its position, then its path's points, m) now."""
    navigation = world.agents.navigation
    assert navigation is not None  # the demo's NPCs navigate from the first frame
    return navigation.revision, {npc.name: np.vstack([npc.position[None], npc.path]) for npc in
                                              world.agents.npcs if npc.path is not None}


def _track_rebakes(world: World, events: list[Event], ways: tuple[int, dict[str, np.ndarray]],
                   rebaked: set[tuple[int, str]]) -> None:
    """Add (frame, NPC) to ``rebaked`` for each re-plan of this frame whose NPC's way before it (``ways``, from
    :func:`_ways`) crossed navmesh tiles that the frame baked again."""
    revision, before = ways
    navigation = world.agents.navigation
    assert navigation is not None  # the demo's NPCs navigate from the first frame
    for e in events:
        if isinstance(e, NPCChanged) and e.kind == "replanned" and e.npc in before:
            tiles = navigation.changed_since(revision)
            if tiles is None or tiles & navigation.tiles_crossed(before[e.npc]):
                rebaked.add((e.frame, e.npc))


def _track_off_line(world: World, patrols: dict[str, tuple[np.ndarray, np.ndarray]],
                    off_line: dict[str, float]) -> None:
    """Keep each NPC's largest distance (m, in x-z) from the straight line between its patrol's ends."""
    for npc in world.agents.npcs:
        a, b = patrols[npc.name]
        ab, ap = (b - a)[[0, 2]], (npc.position - a)[[0, 2]]
        off = abs(ab[0] * ap[1] - ab[1] * ap[0]) / max(float(np.hypot(*ab)), 1e-9)
        off_line[npc.name] = max(off_line.get(npc.name, 0.0), float(off))


def run_session(seed: int = 0, frames: int = 600, out_dir: str | Path = "demo",
                size: tuple[int, int] | list[int] = (960, 540)) -> SessionResult:
    """Play the scripted session for ``frames`` frames (1/60 s each, >= 1; the script fills 600, later frames
    watch the enemy) on ``World.demo(seed)`` (seed >= 0) and write into ``out_dir`` (a folder, made with its
    parents if missing) a PNG per key frame, ``overview.png``, ``achievements.png`` and ``report.md``; pictures
    are ``size`` (width, height) pixels. A bad argument raises ParameterError, and no offscreen OpenGL a
    RenderError, before anything is written."""
    seed = check_integer("seed", seed, minimum=0)
    frames = check_integer("frames", frames, minimum=1, maximum=MAX_FRAMES, unit="frames")
    if not (isinstance(size, (tuple, list)) and len(size) == 2):
        raise ParameterError("size", size, f"(width, height) in pixels, each from 16 to {MAX_SIZE}")
    width, height = (check_integer("size", v, minimum=16, maximum=MAX_SIZE, unit="pixels") for v in size)
    size = (width, height)
    out = Path(out_dir)
    blocking = next((p for p in (out, *out.parents) if p.exists() and not p.is_dir()), None)
    if blocking is not None:
        raise ParameterError("out_dir", str(out_dir), f"a folder, made if missing ({blocking} is a file)")
    _check_renderer()
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        raise ParameterError("out_dir", str(out_dir), f"a folder that can be made and written ({error})") from None

    started = time.perf_counter()
    world = World.demo(seed=seed)
    built = time.perf_counter() - started
    patrols: dict[str, tuple[np.ndarray, np.ndarray]] = {}
    for npc in world.agents.npcs:
        assert npc.goal is not None  # the demo's NPCs patrol between two ends
        patrols[npc.name] = (npc.position.copy(), npc.goal.copy())
    seen, sides, off_line = set[str](), dict[str, float](), dict[str, float]()
    cuts, rebaked = list[np.ndarray](), set[tuple[int, str]]()
    times, keys, pictures, aspect, cameras, subject_seen = np.zeros(frames), [], [], size[0] / size[1], [], []
    for frame in range(frames):
        inputs, ways = demo_inputs(frame, world), _ways(world)
        started = time.perf_counter()
        events = world.step(inputs, DT)
        times[frame] = time.perf_counter() - started
        _track_off_line(world, patrols, off_line)
        _track_cuts(world, events, cuts)
        _track_rebakes(world, events, ways, rebaked)
        found = _key_frames(world, events, seen, sides)
        if frame == frames - 1:  # the last picture looks at the enemy cutting the wall
            found.append(_last_frame(world, frame, cuts))
        if not found:
            continue
        scene = _scene(world)
        for key in found:  # drawn between steps: not in the step times
            keys.append(key)
            camera = _camera(world, scene, key, aspect)
            cameras.append(camera)
            subject_seen.append(visible_share(scene.occluders, camera.eye, _subject_points(world, key),
                                              _own_object(scene, key)))
            pictures.append(_draw(scene, world, out / key.picture, camera, size))
    overview = Camera.looking_at_bounds(*OVERVIEW, aspect=aspect, direction=(-0.7, 0.75, 0.35))
    pictures.append(_draw(_scene(world), world, out / "overview.png", overview, size))
    # A group's colour is its first material's (grass, soil, rock, ...).
    colours = {material.group: material.colour for material in reversed(tuple(world.materials))}
    world.end("finished")  # the design's end step: the play's summary closes the event log
    pictures.append(achievements_png(out / "achievements.png", world.achievements(),
                                     world.actions.settings.awards.thresholds, colours))
    text = _report(world, seed, keys, times, built, off_line, rebaked).encode("utf-8")
    report = write_atomically(out / "report.md", lambda file: file.write(text))
    return SessionResult(report, tuple(pictures), tuple(keys), times, world.event_log_hash(), world.voxel_hash(),
                         world, tuple(cameras), tuple(subject_seen))
