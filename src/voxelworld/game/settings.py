"""`WorldSettings`: the settings of a :class:`~voxelworld.game.World`, and the game's meshing defaults."""

from __future__ import annotations

import math
from dataclasses import dataclass

from ..errors import check_finite, check_integer, check_range
from ..meshing import DETAIL_DISTANCES, MeshOptions
from .chainsaw_settings import ChainsawSettings
from .enemy_reaction import ReactionSettings
from .kerf_marks import MAX_MARKS
from .play import ActionSettings
from .player import PlayerSettings
from .progress import DEMO_GOALS, Goal, check_goals

# The game's meshes: a collision mesh coarser than the display mesh (on the demo world about 60 % of its vertices
# and 85 % of its triangles: a looser shape error, and only each vertex's leading material counts towards a
# merge's two kinds) yet within 0.3 voxel edges of the voxel surface, so that a blade or a foot resting on it
# touches the voxels. Both merge two octree levels (nodes of 4 voxels): deeper collision merges hide a material
# band of a few voxels under its neighbours' triangles (a rock band between soil and lava), which footsteps,
# punches and pull-outs read.
GAME_MESH_OPTIONS = MeshOptions(levels=2, collision_levels=2, collision_tolerance=0.3)
NAVIGATION_DISTANCE = 64.0  # m: the largest default navigation distance (WorldSettings.navigation_radius)


@dataclass(frozen=True)
class WorldSettings:
    """Settings of a :class:`World`, checked on construction.

    ``player``: the player's body and abilities; ``actions``: punch, pull-out, suck, stance, throw, impacts,
    treasure and awards; ``chainsaw``: the level's chainsaw enemies; ``mesh_options``: display and collision
    meshing (the collision mesh coarser than the display mesh but within 0.3 voxel edges of the voxel surface, so
    that a step the player may not climb is not smoothed into a ramp it can; see ``GAME_MESH_OPTIONS``);
    ``collision_radius``: m (> 0) around each actor covered by the collision BVH; ``aim_distance``: m (> 0),
    how far :meth:`World.aim_info` looks; ``max_dt``: s (> 0), the longest frame :meth:`World.step` accepts;
    ``navmesh_delay``: s (>= 0), how long a terrain change may wait before the navmesh is re-baked there when no
    walking NPC's path crosses it within the distance the NPC walks meanwhile (changes that one does are re-baked
    in their frame; 0 re-bakes every change at once); a re-bake that falls due in a frame that changed the terrain
    itself waits for the next frame that did not, at most two frames;
    ``thrown_deformation_counts``: whether the density the player's thrown objects remove (explosions) counts
    toward treasure placement and the group awards, like punch, pull-out and suck;
    ``detail_radius``: m (>= 0), chunks within this distance of the player or an enemy (the actors that dig) draw
    every voxel's vertex (display level 0: holes, punches, tunnels and cuts keep their voxel-scale shape there),
    the others the ``mesh_options.levels`` (the collision mesh is the same everywhere);
    ``detail_changes_per_frame``: chunks (>= 1) whose display level may change in one frame as the actors move
    (nearest first), so that a frame stays in its budget;
    ``remesh_interval``: frames (>= 1): a chunk of voxels changed again within this many frames of the frame that
    last remeshed it waits for the rest of them, its changes meanwhile remeshed together (the mesher's
    ``refresh_interval``), so that ground dug every frame (suck, several players) is remeshed, for display and
    collision, every ``remesh_interval`` frames, its meshes at most ``remesh_interval - 1`` frames behind its
    voxels, while ground dug once is remeshed in the frame its edit is applied; 1 remeshes every change at once;
    ``view_distance``: m (> ``collision_radius``), or None: the chunks within this distance of an actor (the player,
    the enemies, the NPCs) are meshed and collide, the others are not (a large world streams around its actors);
    None meshes every chunk (small worlds); ``detail_distances``: increasing m (> 0, 1..5 of them), or None: the
    outer edge of each level of detail's band (:func:`voxelworld.meshing.detail_levels`): far chunks are drawn
    coarser (no cracks where levels meet); None draws every chunk at full detail; ``stream_chunks_per_frame``:
    work (>= 1) that streaming may hand the mesher's background thread a frame, nearest first: chunks turning
    meshed (1 each, ``STREAM_COLD_COST`` where one may hold a surface), and, of a budget of its own, new levels
    of detail (``STREAM_HOT_COST`` or
    ``STREAM_COLD_COST`` for a chunk with vertices, see :meth:`World.stream`), so streaming spreads over frames
    and the second core (the world meshes what is within 64 m of its actors at once: FIRST_VIEW_DISTANCE);
    ``navigation_distance``: m (> 0, < ``view_distance``) or None (half the view distance, at most
    ``NAVIGATION_DISTANCE`` = 64 m: :attr:`navigation_radius`), on a streaming world: the navmesh keeps the tiles within
    this distance (x-z, to the tile's edge) of every NPC, enemy and actor about to wake (not the player), baked
    once every chunk the bake reads is meshed, and drops them beyond this distance plus one tile (19.2 m with the default navmesh settings), or when a
    chunk they read stops being meshed (:class:`~voxelworld.game.navigation.WorldNavigation`); ignored by a world
    meshed whole; ``navigation_tiles_per_frame``: tiles (>= 1) asked for a frame (nearest first, together every
    :data:`~voxelworld.game.nav_streaming.ASK_EVERY` frames), each baked ahead on the navigation's thread and baked half a second to three quarters later
    (:data:`~voxelworld.game.nav_streaming.TILE_LAG` frames and up to a landing's, ``LANDING_EVERY``; docs/game.md);
    ``enemy_reacts``: whether the chainsaw enemies react to the player (notice, turn and swing at them, hurt them,
    can be stopped: :mod:`voxelworld.game.enemy_reaction`), ``enemy_reaction`` how; off, they work their walls
    whoever comes near (the frame benchmarks run with it off);
    ``goals``: the world's goals (:class:`~voxelworld.game.progress.Goal`, distinct names; the demo world's three
    by default: open three treasures, reach the iron, cool the lava; () for none), ticked off per player.
    ``cut_marks``: marks (0..64) of the enemies' cuts the world keeps, the last ones, for the page to draw the sawn
    face darker (:mod:`voxelworld.game.kerf_marks`); 0 keeps none.
    """

    player: PlayerSettings = PlayerSettings()
    actions: ActionSettings = ActionSettings()
    chainsaw: ChainsawSettings = ChainsawSettings()
    mesh_options: MeshOptions = GAME_MESH_OPTIONS
    collision_radius: float = 12.0
    aim_distance: float = 30.0
    max_dt: float = 0.1
    navmesh_delay: float = 0.25
    thrown_deformation_counts: bool = True
    detail_radius: float = 3.0
    detail_changes_per_frame: int = 3
    remesh_interval: int = 3
    view_distance: float | None = None
    detail_distances: tuple[float, ...] | None = None
    stream_chunks_per_frame: int = 48
    navigation_distance: float | None = None
    navigation_tiles_per_frame: int = 1
    enemy_reacts: bool = True
    enemy_reaction: ReactionSettings = ReactionSettings()
    goals: tuple[Goal, ...] = DEMO_GOALS
    cut_marks: int = MAX_MARKS

    @property
    def navigation_radius(self) -> float | None:
        """The navigation distance in use (m): ``navigation_distance``, or its default; None for a world meshed
        whole (no ``view_distance``), whose navmesh is baked whole."""
        if self.view_distance is None:
            return None
        if self.navigation_distance is not None:
            return self.navigation_distance
        return min(self.view_distance / 2, NAVIGATION_DISTANCE)

    def __post_init__(self) -> None:
        check_range("player", self.player, "a PlayerSettings", isinstance(self.player, PlayerSettings))
        check_range("actions", self.actions, "an ActionSettings", isinstance(self.actions, ActionSettings))
        check_range("chainsaw", self.chainsaw, "a ChainsawSettings", isinstance(self.chainsaw, ChainsawSettings))
        check_goals(self.goals)
        check_range("mesh_options", self.mesh_options, "a MeshOptions", isinstance(self.mesh_options, MeshOptions))
        object.__setattr__(self, "navmesh_delay", check_finite("navmesh_delay", self.navmesh_delay, minimum=0.0,
                                                               unit="s"))
        check_range("thrown_deformation_counts", self.thrown_deformation_counts, "True or False",
                    isinstance(self.thrown_deformation_counts, bool))
        object.__setattr__(self, "detail_radius", check_finite("detail_radius", self.detail_radius, minimum=0.0,
                                                               unit="m"))
        object.__setattr__(self, "detail_changes_per_frame", check_integer(
            "detail_changes_per_frame", self.detail_changes_per_frame, minimum=1))
        object.__setattr__(self, "remesh_interval", check_integer("remesh_interval", self.remesh_interval,
                                                                  minimum=1, maximum=60, unit="frames"))
        for name in ("collision_radius", "aim_distance", "max_dt"):
            object.__setattr__(self, name, check_finite(name, getattr(self, name), minimum=0.0, strict_minimum=True,
                                                        unit="s" if name == "max_dt" else "m"))
        if self.view_distance is not None:
            object.__setattr__(self, "view_distance", check_finite(
                "view_distance", self.view_distance, minimum=self.collision_radius, strict_minimum=True, unit="m"))
        if self.detail_distances is not None:
            bands = self.detail_distances
            check_range("detail_distances", bands, "1..5 increasing distances > 0 (m), or None",
                        isinstance(bands, (tuple, list)) and 1 <= len(bands) <= 5
                        and all(isinstance(d, (int, float)) and not isinstance(d, bool) and math.isfinite(d)
                                for d in bands)
                        and all(d > 0 for d in bands) and all(b > a for a, b in zip(bands, bands[1:])))
            object.__setattr__(self, "detail_distances", tuple(float(d) for d in bands))
        object.__setattr__(self, "stream_chunks_per_frame", check_integer(
            "stream_chunks_per_frame", self.stream_chunks_per_frame, minimum=1))
        if self.navigation_distance is not None:
            distance = check_finite("navigation_distance", self.navigation_distance, minimum=0.0,
                                    strict_minimum=True, unit="m")
            check_range("navigation_distance", self.navigation_distance,
                        f"a finite number < view_distance = {self.view_distance} (m): the tiles' chunks must be meshed",
                        self.view_distance is None or distance < self.view_distance)
            object.__setattr__(self, "navigation_distance", distance)
        object.__setattr__(self, "navigation_tiles_per_frame", check_integer(
            "navigation_tiles_per_frame", self.navigation_tiles_per_frame, minimum=1))
        check_range("enemy_reacts", self.enemy_reacts, "True or False", isinstance(self.enemy_reacts, bool))
        check_range("enemy_reaction", self.enemy_reaction, "a ReactionSettings",
                    isinstance(self.enemy_reaction, ReactionSettings))
        object.__setattr__(self, "cut_marks", check_integer("cut_marks", self.cut_marks, minimum=0,
                                                            maximum=MAX_MARKS))


# A world of real size (voxelworld new): meshed within 500 m of its actors, far chunks at coarser levels of detail;
# its navmesh tiles within LARGE_NAVIGATION_DISTANCE of its NPCs and enemies (a tile is baked in the frame, 10-20 ms:
# about 15 tiles an actor instead of about 45 at 64 m).
LARGE_NAVIGATION_DISTANCE = 32.0  # m
LARGE_WORLD_SETTINGS = WorldSettings(view_distance=500.0, detail_distances=DETAIL_DISTANCES,
                                     navigation_distance=LARGE_NAVIGATION_DISTANCE)
