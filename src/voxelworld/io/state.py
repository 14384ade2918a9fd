"""A world's game state as the rows of a world file, and a working :class:`~voxelworld.game.world.World` rebuilt
from them (the voxels themselves are the file's chunk rows, see :mod:`voxelworld.io.world_file`).

:func:`capture` reads a world between two frames into JSON-able state rows (:class:`~voxelworld.io.codec.StateCodec`)
and named arrays; :func:`restore` builds a world from its volume and those rows. The objects hand over their
state themselves: each one's ``state_dict()`` gives the values it keeps from frame to frame (the world, its volume
and mesher, the player, the actions, the cast, each NPC and enemy and its motion, the navigation), which become a
row's keys, and ``load_state_dict(state)`` takes them back on an object the constructors made again; this module
only encodes, decodes and puts the rows together. Meshes, collision BVHs and the navmesh are rebuilt from the
voxels (they are functions of them); the navmesh is re-baked from the collision meshes it was last baked from
(those of chunks changed since are kept in the file) and must equal the saved one.

Edits queued for the next frame are saved as the recipe that made them (:mod:`voxelworld.io.queued_edits`).
Not saved: handlers added with ``World.add_handler`` (code), and ``applied_edits`` (the last update stage's
results, read only within that frame).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Collection
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, cast

import numpy as np

from ..errors import FormatError, ParameterError, short_value
from ..game.ground_things import attach
from ..game.level import Prop
from ..game.nav_stored import StoredTiles
from ..game.navigation import WorldNavigation
from ..game.npcs import NPC
from ..game.seats import MAX_NAME, MAX_SEATS, OWN_NAME, rename_own
from ..game.world import Inputs, World, WorldSettings
from ..meshing import CollisionMesh
from ..meshing.baked import BakedMeshes
from ..meshing.chunks import MESHED_FIELDS
from ..navigation import SceneObject
from ..terrain import GeneratorSettings, MaterialTable, SparseVolume, Volume, VoxelVolume
from ..terrain.scatter import ScatterSettings
from .codec import StateCodec, check_mapping, check_volume_size, material_table_data, material_table_from_data
from .queued_edits import queue_rows, restore_queue

if TYPE_CHECKING:
    from ..game.events import Event

__all__ = ["Captured", "capture", "empty_volume", "volume_storage", "restore", "encode_event", "decode_event"]

NAVMESH_ARRAYS = ("vertices", "polygon_start", "polygon_vertices", "polygon_level", "portals", "portal_segments")
COLLISION_ARRAYS = ("positions", "indices", "tri_material")
STATE_ROWS = ("volume", "materials", "props", "settings", "world", "player", "actions", "agents", "navigation",
              "queue")


@dataclass
class Captured:
    """A world's state rows (name -> JSON-able object) and the arrays they refer to (name -> ndarray)."""

    rows: dict[str, dict | None] = field(default_factory=dict)
    arrays: dict[str, np.ndarray] = field(default_factory=dict)


def _encoded(codec: StateCodec, state: dict, where: str) -> dict:
    """An object's ``state_dict()`` as the keys of its row, each value encoded."""
    return {key: codec.encode(value, f"{where}.{key}") for key, value in state.items()}


def _load(codec: StateCodec, obj: Any, row: dict, where: str, besides: Collection[str] = ()) -> None:
    """Give ``obj`` back the state of its row (every key but ``besides``, decoded); FormatError naming ``where``
    when the object refuses it (a missing key, a value out of range)."""
    check_mapping(row, where, ())
    state = {key: codec.decode(value, f"{where}.{key}") for key, value in row.items() if key not in besides}
    try:
        obj.load_state_dict(state)
    except ParameterError as error:
        name = where.split(".")[0].split("[")[0]  # where begins with its row's name
        raise FormatError(f"state row {name!r}" + ("" if where == name else f", {where}") + f": {error}") from error


# --------------------------------------------------------------------------------------------------- capture
def capture(world: World) -> Captured:
    """The state rows and arrays of ``world`` (between frames). ParameterError, naming it, for state voxelworld.io
    cannot store (a value of an unknown type, a queued edit it cannot make again)."""
    out = Captured()
    codec = StateCodec(world.materials, out.arrays)
    enc = codec.encode
    volume = world.volume
    table = material_table_data(world.materials)
    own = material_table_data(volume.materials)
    out.rows["volume"] = {"storage": "sparse" if isinstance(volume, SparseVolume) else "dense",
                          "shape": list(volume.shape), "voxel_size": volume.voxel_size,
                          "origin": [float(v) for v in volume.origin], "iso": volume.iso,
                          "chunk_size": volume.chunk_size, "dirty": enc(volume.state_dict()["dirty"], "volume.dirty"),
                          "materials": None if volume.materials is world.materials or own == table else own,
                          "mesher_behind": enc(_mesher_behind(world, out.arrays), "volume.mesher_behind"),
                          "mesher_levels": enc(world.mesher.display_levels, "volume.mesher_levels"),
                          "mesher_active": enc(world.mesher.active, "volume.mesher_active"),
                          "mesher_detail": enc(world.mesher.detail_levels, "volume.mesher_detail"),
                          "mesher_taken": enc(tuple(world.mesher.recently_taken().items()), "volume.mesher_taken")}
    out.rows["materials"] = table
    out.rows["props"] = {"props": [[p.name, p.role, p.material] for p in world.props]}
    for n, prop in enumerate(world.props):
        out.arrays[f"props.{n}.positions"], out.arrays[f"props.{n}.indices"] = prop.positions, prop.indices
    out.rows["settings"] = {"settings": enc(world.settings, "settings")}
    out.rows["world"] = _encoded(codec, world.state_dict(), "world") | {"event_count": len(world.events)}
    out.rows["player"] = _encoded(codec, world.player.state_dict(), "player") | (
        {} if world.player.name == OWN_NAME else {"name": world.player.name})  # (a page named it: rename_own)
    out.rows["actions"] = _encoded(codec, world.actions.state_dict(), "actions")
    if world.joined:  # players who joined besides the world's own (a world without has no row: its files as before)
        out.rows["joined"] = {"seats": [
            {"name": seat.name, "player": _encoded(codec, seat.player.state_dict(), f"joined[{n}].player"),
             "actions": _encoded(codec, seat.actions.state_dict(), f"joined[{n}].actions"),
             "inputs": codec.encode(seat.inputs, f"joined[{n}].inputs"),
             "previous_inputs": codec.encode(seat.previous_inputs, f"joined[{n}].previous_inputs")}
            for n, seat in enumerate(world.joined)]}
    out.rows["agents"] = _agents_row(codec, world)
    out.rows["navigation"] = _navigation_row(codec, world, out.arrays)
    out.rows["queue"] = {"edits": queue_rows(codec, world)}
    if world.generator is not None and world.ground_things is not None:  # a generated world (none: no row)
        out.rows["ground_things"] = {"generator": _fields(world.generator),
                                     "scatter": _fields(world.ground_things.settings),
                                     **world.ground_things.state_dict()}
    regions = world.agents.regions
    if regions.enabled or regions.sleeping:  # a world meshed whole has none (its files as before)
        out.rows["regions"] = _encoded(codec, regions.state_dict(), "regions")
    return out


def _fields(settings: object) -> dict:
    """A frozen settings dataclass's fields (numbers) by name."""
    return {f.name: getattr(settings, f.name) for f in dataclasses.fields(settings)}  # type: ignore[arg-type]


def _restore_ground_things(world: World, row: object) -> None:
    """Give ``world`` its generator and things on the ground (the changed columns as saved) from the
    ``ground_things`` row, which files without things lack (then nothing changes)."""
    generator, scatter, columns = saved_things(row)
    try:
        attach(world, generator, scatter, {"columns": columns})
    except (ParameterError, TypeError) as error:
        raise FormatError(f"state 'ground_things'.columns: {error}") from error


def saved_things(row: object) -> tuple[GeneratorSettings, ScatterSettings, list]:
    """The generator, the scatter's settings and the changed columns (``GroundThings.state_dict()["columns"]``,
    checked when taken back) of a ``ground_things`` state row; FormatError naming the part that is not one."""
    where = "state 'ground_things'"
    check_mapping(row, where, ("generator", "scatter", "columns"))
    assert isinstance(row, dict)  # (checked)
    part = "generator"
    try:
        generator = GeneratorSettings(**check_mapping(row["generator"], f"{where}.generator", ()))
        part = "scatter"
        scatter = ScatterSettings(**check_mapping(row["scatter"], f"{where}.scatter", ()))
    except (ParameterError, TypeError) as error:
        raise FormatError(f"{where}.{part}: {error}") from error
    if not isinstance(row["columns"], list):
        raise FormatError(f"{where}.columns: {short_value(row['columns'])} is not a list of changed columns")
    return generator, scatter, row["columns"]


def _mesher_behind(world: World, arrays: dict) -> tuple:
    """The part of the mesher's state (``ChunkMesher.state_dict``) that the volume does not hold: the chunks
    changed since its last update (the volume edited directly between frames), each with the chunk version it
    saw; the voxels it saw there go to ``arrays``. :func:`_load_mesher` gives them back to a loaded world's
    mesher, so that its next frame remeshes what the saved world's would (and its navmesh re-bakes the same)."""
    state = world.mesher.state_dict()  # a world's mesher has updated: behind is a mapping
    for n, fields in enumerate(state["behind"].values()):
        for name in MESHED_FIELDS:
            arrays[f"mesher.behind.{n}.{name}"] = fields[name]
    return tuple((chunk, int(state["seen"][chunk])) for chunk in state["behind"])



def _agents_row(codec: StateCodec, world: World) -> dict:
    agents = world.agents
    row = _encoded(codec, agents.state_dict(), "agents")
    row["npcs"] = [{"name": npc.name, "settings": codec.encode(npc.settings, f"agents.npcs[{n}].settings"),
                    "position": codec.encode(npc.position, f"agents.npcs[{n}].position"),
                    **_encoded(codec, npc.state_dict(), f"agents.npcs[{n}]")} for n, npc in enumerate(agents.npcs)]
    row["enemies"] = []
    for n, enemy in enumerate(agents.enemies):
        where = f"agents.enemies[{n}]"
        row["enemies"].append({"name": enemy.name, "position": codec.encode(enemy.position, f"{where}.position"),
                               "settings": codec.encode(enemy.settings, f"{where}.settings"),
                               **_encoded(codec, enemy.state_dict(), where),
                               "motion": _encoded(codec, enemy.motion.state_dict(), f"{where}.motion")})
    return row


def _navigation_row(codec: StateCodec, world: World, arrays: dict) -> dict | None:
    """The navmesh's settings, revision and log, its arrays, and the collision meshes it was baked from where they
    differ from the mesher's now (chunks changed since the last re-bake)."""
    nav = world.agents.navigation
    if nav is None:
        return None
    names = [p.name for p in world.props]
    if [p.name for p in nav.props] != names:
        raise ParameterError("world.agents.navigation", "a navmesh of other props than the world's",
                             "the navmesh Agents.navigate bakes (the world's props)")
    for name in NAVMESH_ARRAYS + ("polygon_area_type",):
        arrays[f"navmesh.{name}"] = getattr(nav.mesh, name)
    baked_from: list[tuple[tuple[int, int, int], bool]] = []
    now: CollisionMesh | None
    meshes = nav.chunk_meshes
    for chunk in sorted(meshes):
        mesh, now = meshes[chunk], world.mesher.chunk_collision_mesh(chunk)
        now = now if now.triangle_count else None
        if mesh is None and now is None or (mesh is not None and now is not None and all(
                np.array_equal(getattr(mesh, a), getattr(now, a)) for a in COLLISION_ARRAYS)):
            continue
        if mesh is not None:
            for a in COLLISION_ARRAYS:
                arrays[f"navigation.baked_from.{len(baked_from)}.{a}"] = getattr(mesh, a)
        baked_from.append((chunk, mesh is not None))
    streaming = {} if nav.tiled is None else {"navigation_distance": nav.navigation_distance,
                                              "tiles_per_frame": nav.tiles_per_frame}
    return {"settings": codec.encode(nav.settings, "navigation.settings"),
            "region": codec.encode(nav.region, "navigation.region"),
            "prop_min_height": nav.prop_min_height, **streaming, **_encoded(codec, nav.state_dict(), "navigation"),
            "terrain_area_types": nav.terrain_areas is not None, "area_types": list(nav.mesh.area_types),
            "baked_from": codec.encode(tuple(baked_from), "navigation.baked_from")}


# -------------------------------------------------------------------------------------------------- events
def encode_event(codec: StateCodec, event: Event, seq: int) -> dict:
    return codec.encode(event, f"events[{seq}]")


def decode_event(codec: StateCodec, data: object, seq: int) -> Event:
    from ..game.events import Event
    event = codec.decode(data, f"events[{seq}]")
    if not isinstance(event, Event):
        raise FormatError(f"events[{seq}]: not an event")
    if not (isinstance(event.player, str) and len(event.player) <= MAX_NAME):
        raise FormatError(f"events[{seq}].player: {event.player!r} is not a player's name (a string of at most "
                          f"{MAX_NAME} characters, \"\" for no player's)")
    return event


# --------------------------------------------------------------------------------------------------- restore
def world_materials(rows: dict) -> tuple[MaterialTable, MaterialTable]:
    """The world's material table and the volume's (the same object unless the file holds another)."""
    materials = material_table_from_data(rows["materials"], "state 'materials'")
    own = check_mapping(rows["volume"], "state 'volume'", ("materials",))["materials"]
    return materials, (materials if own is None else material_table_from_data(own, "state 'volume'.materials"))


def _world_table(volume: Volume, rows: dict) -> MaterialTable:
    """The world's table: the volume's own when the file holds one table (one object, as when saved)."""
    if rows["volume"]["materials"] is None:
        return volume.materials
    return material_table_from_data(rows["materials"], "state 'materials'")


def volume_storage(row: object) -> str:
    """``dense`` or ``sparse``: how the ``volume`` row's volume stores its voxels (files of version 1: dense)."""
    storage = row.get("storage", "dense") if isinstance(row, dict) else "dense"
    if storage not in ("dense", "sparse"):
        raise FormatError(f"state 'volume'.storage: {storage!r} is not 'dense' or 'sparse'")
    return storage


def empty_volume(rows: dict) -> VoxelVolume | SparseVolume:
    """The volume the rows describe (a VoxelVolume, or a SparseVolume for storage ``sparse``), every voxel empty
    (the chunk rows fill it)."""
    row = check_mapping(rows["volume"], "state 'volume'", ("shape", "voxel_size", "origin", "iso", "chunk_size",
                                                              "dirty", "mesher_behind"))
    sparse = volume_storage(row) == "sparse"
    shape = check_volume_size(row["shape"], row["chunk_size"], "state 'volume'", dense=not sparse)
    _, materials = world_materials(rows)
    try:
        volume = (SparseVolume if sparse else VoxelVolume)(shape, row["voxel_size"], tuple(row["origin"]),
                                                           row["iso"], row["chunk_size"], materials)
    except (ParameterError, TypeError) as error:
        raise FormatError(f"state 'volume': not a valid volume: {error}") from error
    dirty = StateCodec(materials).decode(row["dirty"], "state 'volume'.dirty")
    if not isinstance(dirty, frozenset) or not all(isinstance(c, tuple) and len(c) == 3 for c in dirty):
        raise FormatError("state 'volume'.dirty: not a set of chunks (i, j, k)")
    try:
        volume.load_state_dict({"chunk_versions": volume.chunk_versions, "dirty": dirty})
    except ParameterError as error:
        raise FormatError(f"state 'volume': {error}") from error
    return volume


def restore(volume: VoxelVolume | SparseVolume, rows: dict, arrays: dict, events: list,
            baked: BakedMeshes | None = None, stored_tiles: StoredTiles | None = None) -> World:
    """A working world on ``volume`` (filled from the chunk rows) with the state of ``rows``, ``arrays`` and the
    decoded ``events``; its mesher takes the ``baked`` display meshes where they are what it would make, its navmesh
    the ``stored_tiles`` (the world file's bake, :mod:`voxelworld.io.baked_rows`). FormatError naming the row when
    something does not fit."""
    materials = _world_table(volume, rows)
    codec = StateCodec(materials, arrays)
    dec = codec.decode
    settings = dec(check_mapping(rows["settings"], "state 'settings'", ("settings",))["settings"], "settings")
    if not isinstance(settings, WorldSettings):
        raise FormatError("state 'settings': not a WorldSettings")
    world_row = check_mapping(rows["world"], "state 'world'", ("seed",))
    player_row = check_mapping(rows["player"], "state 'player'", ("position", "yaw"))
    try:
        props = [Prop(name, role, material, _array(arrays, f"props.{n}.positions"),
                      _array(arrays, f"props.{n}.indices"))
                 for n, (name, role, material) in enumerate(rows["props"]["props"])]
        world = World(volume, materials, props, dec(world_row["seed"], "world.seed"), settings,
                      spawn=dec(player_row["position"], "player.position"), spawn_yaw=dec(player_row["yaw"], "yaw"),
                      baked=baked, stored_tiles=stored_tiles)
    except (ParameterError, KeyError, TypeError, ValueError) as error:
        raise FormatError(f"state 'props' or 'world': the world cannot be built: {error}") from error
    _load_mesher(codec, world, rows["volume"], arrays)
    if rows.get("ground_things") is not None:  # before the navmesh: its things are obstacles in it
        _restore_ground_things(world, rows["ground_things"])
    _load(codec, world.player, player_row, "player", besides=("name",))
    if "name" in player_row:  # the world's own player, named by a page (files before have none: "player")
        try:
            rename_own(world, player_row["name"])
        except ParameterError as error:
            raise FormatError(f"state row 'player': {error}") from error
    _load(codec, world.actions, rows["actions"], "actions")
    if rows.get("joined") is not None:  # files saved before players could join have none
        _restore_seats(codec, world, rows["joined"])
    if rows.get("regions") is not None:  # files saved before regions have none: nothing asleep
        _load(codec, world.agents.regions, rows["regions"], "regions")
    _restore_agents(codec, world, rows["agents"], rows["navigation"], arrays)
    _load(codec, world, world_row, "world", besides=("event_count",))
    restore_queue(codec, world, rows["queue"])
    world.events = events
    return world


def _restore_seats(codec: StateCodec, world: World, row: object) -> None:
    """Seat again the players of the ``joined`` row, in their order, with their characters, actions and inputs."""
    seats = check_mapping(row, "state 'joined'", ("seats",))["seats"]
    if not isinstance(seats, list) or len(seats) > MAX_SEATS:
        raise FormatError(f"state 'joined': seats must be a list of at most {MAX_SEATS}")
    for n, data in enumerate(seats):
        where = f"joined[{n}]"
        check_mapping(data, where, ("name", "player", "actions", "inputs", "previous_inputs"))
        player = check_mapping(data["player"], f"{where}.player", ("position", "yaw"))
        inputs = [codec.decode(data[key], f"{where}.{key}") for key in ("inputs", "previous_inputs")]
        if not all(isinstance(one, Inputs) for one in inputs):
            raise FormatError(f"state 'joined', {where}: its inputs are not Inputs")
        try:
            seat = world.join(data["name"], codec.decode(player["position"], f"{where}.player.position"),
                              codec.decode(player["yaw"], f"{where}.player.yaw"))
        except ParameterError as error:
            raise FormatError(f"state 'joined', {where}: {error}") from error
        _load(codec, seat.player, player, f"{where}.player")
        _load(codec, seat.actions, data["actions"], f"{where}.actions")
        seat.inputs, seat.previous_inputs = inputs


def _load_mesher(codec: StateCodec, world: World, row: dict, arrays: dict) -> None:
    """Give ``world``'s mesher back (from the ``volume`` row) its meshed chunks and levels of detail, the voxels
    the saved world's mesher last saw (see :func:`_mesher_behind`) and its display levels per chunk (files saved
    before these were kept have none: the new world's, chosen from its actors' places, stay): it remeshes the
    chunks they change; the volume keeps its voxels."""
    data, levels = row["mesher_behind"], row.get("mesher_levels")
    grid = world.volume.chunk_grid_shape
    seen = world.volume.chunk_versions.copy()
    behind = {}
    for n, item in enumerate(codec.decode(data, "volume.mesher_behind")):
        if not (isinstance(item, tuple) and len(item) == 2 and isinstance(item[0], tuple) and len(item[0]) == 3
                and all(isinstance(c, int) and 0 <= c < g for c, g in zip(item[0], grid))
                and isinstance(item[1], int) and 0 <= item[1] < 2 ** 63):
            raise FormatError(f"volume.mesher_behind[{n}]: not a chunk (i, j, k) of the grid {grid} and a version")
        chunk, version = item
        seen[chunk] = version
        behind[chunk] = {name: _array(arrays, f"mesher.behind.{n}.{name}") for name in MESHED_FIELDS}
    state = {"seen": seen, "behind": behind}
    if row.get("mesher_taken") is not None:  # (files saved before it: nothing waits)
        taken = codec.decode(row["mesher_taken"], "volume.mesher_taken")
        pairs = isinstance(taken, tuple) and all(isinstance(item, tuple) and len(item) == 2 for item in taken)
        if not (pairs and all(isinstance(chunk, tuple) and all(isinstance(c, int) for c in chunk) for chunk, _ in taken)):
            raise FormatError(f"volume.mesher_taken: {short_value(taken)} is not a list of [[i, j, k], updates ago]")
        state["taken"] = dict(taken)
    if levels is not None:
        state["levels"] = codec.decode(levels, "volume.mesher_levels")
    try:
        if row.get("mesher_detail") is not None:  # the streamed world as saved (its chunks changed as set_* do)
            world.mesher.set_detail_levels(codec.decode(row["mesher_detail"], "volume.mesher_detail"))
        if row.get("mesher_active") is not None:
            world.mesher.set_active(codec.decode(row["mesher_active"], "volume.mesher_active"))
        world.mesher.load_state_dict(state)
    except ParameterError as error:
        raise FormatError(f"volume.mesher_behind, mesher_levels, mesher_active, mesher_detail or mesher_taken: "
                          f"{error}") from error


def _array(arrays: dict, name: str) -> np.ndarray:
    if name not in arrays:
        raise FormatError(f"array {name!r} is missing")
    return arrays[name]


def _restore_agents(codec: StateCodec, world: World, row: dict, nav_row: dict | None, arrays: dict) -> None:
    """The cast as saved; an NPC standing where the loaded world cannot bake its navmesh (beyond the view, where
    nothing is meshed) loads asleep in its region (:mod:`voxelworld.game.regions`) and wakes as the player nears."""
    agents = world.agents
    check_mapping(row, "state 'agents'", ("npcs", "enemies"))
    if nav_row is not None:
        agents.navigation = _navigation(codec, world, nav_row, arrays)
    elif row["npcs"]:
        raise FormatError("state 'agents': NPCs without a navmesh")
    asleep: list[tuple[str, dict]] = []
    for n, data in enumerate(row["npcs"]):
        where = f"agents.npcs[{n}]"
        check_mapping(data, where, ("name", "settings", "position"))
        position = codec.decode(data["position"], f"{where}.position")
        try:
            # The navmesh is set above: a row of NPCs without one is refused.
            npc = NPC(data["name"], cast(WorldNavigation, agents.navigation), position,
                      codec.decode(data["settings"], f"{where}.settings"))
        except (ParameterError, KeyError) as error:
            if _beyond_the_navmesh(world, position):
                asleep.append((where, data))
                continue
            raise FormatError(f"{where}: {error}") from error
        _load(codec, npc, data, where, besides=("name", "settings", "position"))
        agents.npcs.append(npc)
    for n, data in enumerate(row["enemies"]):
        where = f"agents.enemies[{n}]"
        check_mapping(data, where, ("name", "position", "facing", "settings", "motion"))
        try:
            enemy = agents.add_enemy(data["name"], codec.decode(data["position"], f"{where}.position"),
                                     codec.decode(data["facing"], f"{where}.facing"),
                                     codec.decode(data["settings"], f"{where}.settings"))
        except ParameterError as error:
            raise FormatError(f"{where}: {error}") from error
        _load(codec, enemy, data, where, besides=("name", "position", "settings", "motion"))
        _load(codec, enemy.motion, data["motion"], f"{where}.motion")  # after the enemy's: it may build its body
    _load(codec, agents, row, "agents", besides=("npcs", "enemies"))
    for where, data in asleep:
        _sleep_npc(codec, world, where, data)


def _beyond_the_navmesh(world: World, position: object) -> bool:
    """Whether ``position`` lies where the world's streaming navmesh cannot bake its tile now (its chunks not
    meshed): an NPC saved there sleeps."""
    nav = world.agents.navigation
    if nav is None or nav.tiled is None or not world.agents.regions.enabled:
        return False
    try:
        point = np.array(position, dtype=np.float64).reshape(3)
        return bool(np.all(np.isfinite(point))) and nav.tiled.tile_of(point) not in nav.tiled.tiles
    except (ParameterError, TypeError, ValueError):
        return False


def _sleep_npc(codec: StateCodec, world: World, where: str, data: dict) -> None:
    """The NPC of ``data`` (a row's) asleep in its region, its state as saved (checked as it wakes)."""
    agents = world.agents
    name = data["name"]
    state = {key: codec.decode(value, f"{where}.{key}") for key, value in data.items()
             if key not in ("name", "settings", "position")}
    walk = state.get("walk")
    if not (isinstance(name, str) and isinstance(walk, dict) and "position" in walk and "goal" in walk):
        raise FormatError(f"{where}: an NPC beyond the navmesh without the state of its walk")
    try:
        agents.regions.sleep_state(name, codec.decode(data["settings"], f"{where}.settings"), state)
    except (ParameterError, TypeError, ValueError) as error:
        raise FormatError(f"{where}: {error}") from error


def _navigation(codec: StateCodec, world: World, row: dict, arrays: dict) -> WorldNavigation:
    """The navmesh re-baked from the collision meshes it was baked from; it must equal the saved arrays."""
    where = "state 'navigation'"
    check_mapping(row, where, ("settings", "region", "prop_min_height", "baked_from"))
    baked_from = {}
    for n, (chunk, present) in enumerate(codec.decode(row["baked_from"], "navigation.baked_from")):
        name = f"navigation.baked_from.{n}"
        baked_from[chunk] = CollisionMesh(*(_array(arrays, f"{name}.{a}") for a in COLLISION_ARRAYS)) \
            if present else None
    props = [SceneObject(p.name, p.positions, p.indices, p.role) for p in world.props]  # (their types: ground)
    # A streaming navigation's tiles are baked again (they need their chunks meshed: those around the player are,
    # the loaded world meshes around it at once).
    streaming = {}
    if "navigation_distance" in row:
        streaming = {"navigation_distance": row["navigation_distance"], "tiles_per_frame": row.get("tiles_per_frame", 1),
                     "tiles": codec.decode(row.get("tiles", []), "navigation.tiles")}
    # Area types from the terrain's materials: files of format 3 on say so; older ones baked every triangle ground.
    typed = row.get("terrain_area_types", False)
    if not isinstance(typed, bool):
        raise FormatError(f"{where}: 'terrain_area_types' = {typed!r} is not true or false")
    try:
        # Where regions sleep (a streaming world), tiles whose chunks the loaded world has not meshed (beyond its
        # player's view: an NPC saved there sleeps) are left out, and baked again as actors come near.
        nav = WorldNavigation(world.volume, world.mesher, props, codec.decode(row["settings"], "navigation.settings"),
                              row["prop_min_height"], codec.decode(row["region"], "navigation.region"),
                              baked_from=baked_from, **streaming, area_types=typed, things=world.ground_things,
                              meshed_tiles_only=bool(streaming) and world.agents.regions.enabled,
                              stored_tiles=world.stored_tiles)
    except ParameterError as error:
        raise FormatError(f"{where}: the navmesh cannot be baked: {error}") from error
    # (tiles left out, as their chunks are not meshed: their area types may be missing from the navmesh)
    left_out = bool(streaming) and nav.tiled is not None and set(nav.tiled.tiles) != set(streaming["tiles"])
    if "area_types" in row and row["area_types"] != list(nav.mesh.area_types) and not left_out:
        raise FormatError(f"{where}: the navmesh baked from the saved collision meshes has the area types "
                          f"{list(nav.mesh.area_types)}, not the saved {row['area_types']!r}")
    for name in NAVMESH_ARRAYS + (("polygon_area_type",) if "area_types" in row else ()) if not left_out else ():
        saved = _array(arrays, f"navmesh.{name}")
        if not np.array_equal(saved, getattr(nav.mesh, name)) or saved.dtype != getattr(nav.mesh, name).dtype:
            raise FormatError(f"{where}: the navmesh baked from the saved collision meshes differs from the saved "
                              f"navmesh ({name})")
    _load(codec, nav, row, "navigation", besides=("settings", "region", "prop_min_height", "baked_from",
                                                  "navigation_distance", "tiles_per_frame", "terrain_area_types",
                                                  "area_types") + (("tiles",) if left_out else ()))
    return nav
