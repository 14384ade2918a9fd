"""ChunkMesher.state_dict / load_state_dict: a mesher behind its volume (edited directly after an update) hands
over the voxels it saw where it is behind, and a mesher on the volume as it is now takes them back: its meshes are
then the first one's bit for bit, without the volume being touched, and after update() both are identical again.
A bad state is refused before anything changes."""

from __future__ import annotations

import re

import numpy as np
import pytest

from voxelworld.errors import ParameterError
from voxelworld.meshing import ChunkMesher, MeshOptions
from voxelworld.meshing.chunks import MESHED_FIELDS
from voxelworld.terrain import Box, Sphere, VoxelVolume

OPTIONS = MeshOptions(levels=2, collision_levels=2)  # simplification crosses chunk borders: seams must match


def terrain() -> VoxelVolume:
    """Rolling ground with a grass top layer, in 3 x 2 x 3 chunks of 8 samples."""
    volume = VoxelVolume.from_sdf(lambda x, y, z: y - 7.0 - 1.5 * np.sin(x / 3.0) * np.cos(z / 4.0), (24, 16, 24),
                                  material="soil", chunk_size=8)
    volume.paint(Box((0.0, 5.5, 0.0), (24.0, 16.0, 24.0)), "grass")
    return volume


def dig_a(volume: VoxelVolume) -> None:
    volume.remove(Sphere((8.0, 7.0, 8.0), 2.5))  # across the borders of four chunks


def dig_b(volume: VoxelVolume) -> None:
    volume.remove(Sphere((18.0, 7.0, 4.0), 2.0))
    volume.paint(Sphere((15.0, 7.0, 17.0), 2.0), "rock")


def mesh_bytes(mesher: ChunkMesher) -> dict:
    """Every chunk's display mesh and the whole collision mesh, as bytes (bit-for-bit comparisons)."""
    out = {chunk: tuple(getattr(mesh, a).tobytes() for a in ("positions", "normals", "indices", "mat_a", "mat_b",
                                                              "blend"))
           for chunk, mesh in mesher.meshes.items()}
    collision = mesher.collision_mesh()
    out["collision"] = tuple(getattr(collision, a).tobytes() for a in ("positions", "indices", "tri_material"))
    return out


def state_bytes(state: dict) -> tuple:
    behind = state["behind"]
    return state["seen"].tobytes(), None if behind is None else {
        chunk: {name: (values.dtype.name, values.shape, values.tobytes()) for name, values in fields.items()}
        for chunk, fields in behind.items()}


def voxels(volume: VoxelVolume) -> tuple:
    return tuple(getattr(volume, name).tobytes() for name in MESHED_FIELDS) + (volume.chunk_versions.tobytes(),)


def behind_mesher() -> tuple[VoxelVolume, ChunkMesher, dict]:
    """A mesher that updated, then its volume dug without an update; and the fields it saw."""
    volume = terrain()
    mesher = ChunkMesher(volume, options=OPTIONS)
    mesher.update()
    saw = {name: getattr(volume, name).copy() for name in MESHED_FIELDS}
    dig_a(volume)
    return volume, mesher, saw


@pytest.mark.parametrize("twin_updated", [False, True])
def test_a_mesher_behind_its_volume_is_rebuilt_from_its_state(twin_updated):
    volume, mesher, saw = behind_mesher()
    state = mesher.state_dict()
    changed = {tuple(c) for c in np.argwhere(state["seen"] != volume.chunk_versions).tolist()}
    assert len(changed) >= 2 and set(state["behind"]) == changed
    for chunk, fields in state["behind"].items():  # the voxels it saw there, not the current ones
        lo, hi = volume.chunk_box(chunk)
        window = tuple(slice(a, b) for a, b in zip(lo, hi))
        for name in MESHED_FIELDS:
            assert np.array_equal(fields[name], saw[name][window]) and fields[name].dtype == saw[name].dtype
    assert any(not np.array_equal(fields["density"], volume.density[tuple(slice(a, b) for a, b in
                                                                            zip(*volume.chunk_box(chunk)))])
               for chunk, fields in state["behind"].items())
    twin = ChunkMesher(volume, options=OPTIONS)
    if twin_updated:
        twin.update()  # meshes the dug voxels first, then goes back
        assert mesh_bytes(twin) != mesh_bytes(mesher)
    before = voxels(volume)
    twin.load_state_dict(state)
    assert voxels(volume) == before  # the volume is not touched
    assert mesh_bytes(twin) == mesh_bytes(mesher)
    assert state_bytes(twin.state_dict()) == state_bytes(state)
    first, second = mesher.update(), twin.update()
    assert first.remeshed == second.remeshed and first.remeshed
    assert {c: m.positions.tobytes() for c, m in first.meshes.items()} == \
           {c: m.positions.tobytes() for c, m in second.meshes.items()}
    assert mesh_bytes(twin) == mesh_bytes(mesher)
    fresh = ChunkMesher(volume, options=OPTIONS)
    fresh.update()
    assert mesh_bytes(fresh) == mesh_bytes(mesher)


def takes_the_state_and_keeps_up(twin: ChunkMesher, mesher: ChunkMesher) -> None:
    """``twin`` takes ``mesher``'s state: the same meshes and state at once, and again after both update."""
    state = mesher.state_dict()
    twin.load_state_dict(state)
    assert mesh_bytes(twin) == mesh_bytes(mesher)
    assert state_bytes(twin.state_dict()) == state_bytes(state)
    mesher.update()
    twin.update()
    assert mesh_bytes(twin) == mesh_bytes(mesher)


def test_a_mesher_behind_elsewhere_takes_the_state_of_another():
    # The twin saw a later volume than the mesher in some chunks, and is behind the volume in others.
    volume, mesher, _ = behind_mesher()
    twin = ChunkMesher(volume, options=OPTIONS)
    twin.update()
    dig_b(volume)
    takes_the_state_and_keeps_up(twin, mesher)


def test_a_mesher_further_behind_than_the_state_catches_up_with_the_volume_elsewhere():
    # The twin has not seen dig_b, which the mesher handing over its state had: the twin takes the volume's
    # voxels there, though the state does not name those chunks.
    volume = terrain()
    twin = ChunkMesher(volume, options=OPTIONS)
    twin.update()
    dig_b(volume)
    mesher = ChunkMesher(volume, options=OPTIONS)
    mesher.update()
    dig_a(volume)
    state = mesher.state_dict()
    lagging = {tuple(c) for c in np.argwhere(twin.state_dict()["seen"] != volume.chunk_versions).tolist()}
    assert lagging - set(state["behind"])
    takes_the_state_and_keeps_up(twin, mesher)


def test_a_mesher_not_behind_hands_over_nothing_but_its_versions():
    volume = terrain()
    mesher = ChunkMesher(volume, options=OPTIONS)
    mesher.update()
    state = mesher.state_dict()
    assert state["behind"] == {} and np.array_equal(state["seen"], volume.chunk_versions)


def test_a_mesher_that_never_updated_hands_over_that():
    volume, mesher, _ = behind_mesher()
    new = ChunkMesher(volume, options=OPTIONS)
    state = new.state_dict()
    assert state["behind"] is None and (state["seen"] == -1).all()
    key = mesher.collision_key()
    mesher.load_state_dict(state)
    assert mesher.meshes == {} and mesher.state_dict()["behind"] is None
    assert mesher.collision_key() != key  # its collision meshes were dropped
    mesher.update()
    new.update()
    assert mesh_bytes(mesher) == mesh_bytes(new)


def bad_states(volume: VoxelVolume, state: dict) -> list[tuple[object, str]]:
    """States wrong in one way each, with what the error must name."""
    chunk = next(iter(state["behind"]))
    other = next(c for c in np.ndindex(volume.chunk_grid_shape) if c not in state["behind"])

    def with_field(name, values=None):
        fields = dict(state["behind"][chunk])
        if values is None:
            del fields[name]
        else:
            fields[name] = values
        return {"seen": state["seen"], "behind": {**state["behind"], chunk: fields}}

    density = state["behind"][chunk]["density"]
    seen_more = state["seen"].copy()
    seen_more[other] += 1
    return [
        ("not a state", "state"),
        ({"seen": state["seen"]}, "behind"),
        ({"seen": state["seen"][:-1], "behind": state["behind"]}, "seen"),
        ({"seen": state["seen"].astype(float), "behind": state["behind"]}, "seen"),
        ({"seen": state["seen"].tolist(), "behind": state["behind"]}, "seen"),
        ({"seen": np.full_like(state["seen"], -1), "behind": state["behind"]}, "seen"),
        ({"seen": state["seen"], "behind": None}, "seen"),
        ({"seen": state["seen"], "behind": [chunk]}, "behind"),
        ({"seen": state["seen"], "behind": {c: f for c, f in state["behind"].items() if c != chunk}}, "behind"),
        ({"seen": seen_more, "behind": state["behind"]}, "behind"),
        ({"seen": volume.chunk_versions.copy(), "behind": state["behind"]}, "behind"),
        (with_field("mix"), f"state['behind'][{chunk}]"),
        (with_field("mat_a", state["behind"][chunk]["mat_a"][:-1]), "mat_a"),
        (with_field("density", density.astype(np.float32)), "density"),
        (with_field("density", density.tolist()), "density"),
    ]


def test_bad_states_are_refused_and_change_nothing():
    volume, mesher, _ = behind_mesher()
    state = mesher.state_dict()
    twin = ChunkMesher(volume, options=OPTIONS)
    twin.update()
    meshes, own = mesh_bytes(twin), state_bytes(twin.state_dict())
    for bad, named in bad_states(volume, state):
        with pytest.raises(ParameterError, match=re.escape(named)):
            twin.load_state_dict(bad)
        assert mesh_bytes(twin) == meshes and state_bytes(twin.state_dict()) == own
    twin.load_state_dict(state)  # the good one still loads
    assert mesh_bytes(twin) == mesh_bytes(mesher)
