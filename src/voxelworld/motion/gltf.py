"""glTF 2.0 characters: the first skin's joints as a :class:`Skeleton`, the animations as clips, the skinned mesh.

What is read (with pygltflib; ``.glb``, and ``.gltf`` with embedded ``data:`` or external buffers):

- the joints of the first skin, ordered parents first (a file listing a child before its parent is reordered;
  :attr:`Character.joint_nodes` maps each joint back to its glTF node); joint names are node names
  (``node<i>`` when unnamed; a repeated name gets ``#<node index>`` appended);
- each joint's rest transform from the node's TRS or matrix (a matrix is split into translation, rotation and
  scale; one with shear is refused);
- the inverse bind matrices (identity when the skin has none);
- every animation whose channels target joints (translation / rotation / scale; channels on other nodes and
  morph-weight channels are ignored), with the sampler's interpolation;
- the mesh of the first node using the skin: its triangle primitives merged, with ``JOINTS_0`` / ``WEIGHTS_0``
  (further influence sets are ignored).

Accessors are read through their buffer views with ``byteStride`` and ``normalized`` integers; sparse accessors
are refused with a :class:`FormatError`.

Nothing in the file is trusted: every count, offset, stride and index is checked against what the buffers hold
and the lists contain before anything is allocated; an accessor without a buffer view (zeros, as the
specification says) may hold at most :data:`MAX_UNBACKED_VALUES` numbers; the nodes must form trees (a node that
is its own ancestor, or the child of two nodes, is refused); node transforms, inverse bind matrices, key values,
vertex positions and weights must be finite. Each refusal is a :class:`FormatError` naming the file, the field,
the value and what would be legal.

Spaces: a skeleton's world space is the space of its root joints' parent node; :attr:`Character.root_transform`
is that node's global transform (CesiumMan: the Z-up to Y-up rotation of its ``Z_UP`` and ``Armature``
nodes). :func:`skin` returns positions in the glTF scene, as a viewer shows them; the mesh node's own
transform is ignored, as glTF prescribes for skinned meshes.

Examples
--------
>>> from voxelworld.motion import CESIUM_MAN  # the packaged Khronos sample (CC BY 4.0, (c) 2017 Cesium)
>>> character = load_gltf(CESIUM_MAN)
>>> len(character.skeleton), list(character.clips)
(19, ['animation0'])
"""

from __future__ import annotations

import base64
import math
import urllib.parse
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from voxelworld.errors import FormatError, ParameterError
from voxelworld.motion import quaternions as quat
from voxelworld.motion.clip import PATHS, Channel, Clip
from voxelworld.motion.skeleton import Pose, Skeleton

if TYPE_CHECKING:
    import pygltflib  # imported where used: reading a file needs it, the module does not

__all__ = ["Character", "SkinnedMesh", "load_gltf", "skin", "MAX_UNBACKED_VALUES", "QUATERNION_LENGTH"]

MAX_UNBACKED_VALUES = 1 << 22
"""Most numbers an accessor without a buffer view (all zeros) may declare: 4 Mi values, 32 MiB as float64."""
QUATERNION_LENGTH = (1e-6, 1e6)
"""A node's rotation quaternion's length is more than the first and at most the second (glTF's are unit ones)."""

_COMPONENTS = {5120: "<i1", 5121: "<u1", 5122: "<i2", 5123: "<u2", 5125: "<u4", 5126: "<f4"}
_NORMALIZE = {5120: (127.0, -1.0), 5121: (255.0, 0.0), 5122: (32767.0, -1.0), 5123: (65535.0, 0.0)}
_WIDTHS = {"SCALAR": 1, "VEC2": 2, "VEC3": 3, "VEC4": 4, "MAT2": 4, "MAT3": 9, "MAT4": 16}
_TRIANGLES = 4


@dataclass(frozen=True)
class SkinnedMesh:
    """A triangle mesh bound to a skeleton.

    Attributes
    ----------
    positions : ndarray, shape (v, 3)
        Bind-pose vertex positions (mesh space).
    joints : ndarray, shape (v, 4)
        int64 skeleton joint indices (already in the skeleton's order) of each vertex's four influences.
    weights : ndarray, shape (v, 4)
        The influences' weights (they sum to 1 in a well-formed file).
    indices : ndarray, shape (t, 3)
        int64 vertex indices of the triangles.
    """

    positions: np.ndarray
    joints: np.ndarray
    weights: np.ndarray
    indices: np.ndarray


    def __post_init__(self) -> None:
        for array in (self.positions, self.joints, self.weights, self.indices):
            array.setflags(write=False)


@dataclass(frozen=True)
class Character:
    """A skinned, animated character read from glTF.

    Attributes
    ----------
    skeleton : Skeleton
        The first skin's joints, parents first, with the nodes' rest transforms.
    clips : dict of str -> Clip
        The animations that drive joints, by name (``animation<i>`` when unnamed).
    inverse_bind : ndarray, shape (n, 4, 4)
        Each joint's inverse bind matrix, in skeleton order.
    joint_nodes : ndarray, shape (n,)
        The glTF node index of each joint.
    mesh : SkinnedMesh or None
        The mesh skinned to these joints, if the file has one.
    root_transform : ndarray, shape (4, 4)
        Global transform of the root joints' parent node (identity when they are scene roots).
    """

    skeleton: Skeleton
    clips: dict
    inverse_bind: np.ndarray
    joint_nodes: np.ndarray
    mesh: SkinnedMesh | None
    root_transform: np.ndarray

    def __post_init__(self) -> None:
        for array in (self.inverse_bind, self.joint_nodes, self.root_transform):
            array.setflags(write=False)


def load_gltf(path: str | Path) -> Character:
    """Read the first skin, its animations and its mesh from a ``.glb`` or ``.gltf`` file.

    Raises :class:`FormatError` naming the file and what in it cannot be read.
    """
    import pygltflib

    path = Path(path)
    try:
        document = pygltflib.GLTF2().load(str(path))
    except Exception as error:  # pygltflib raises many kinds on a broken file
        raise FormatError(f"{path}: not a readable glTF file ({type(error).__name__}: {error})") from None
    if document is None:
        raise FormatError(f"{path}: not a readable glTF file")
    return _Reader(document, path).character()


def skin(character: Character, pose: Pose | None = None) -> np.ndarray:
    """Linear blend skinning: the mesh's vertex positions ``(v, 3)`` in ``pose`` (rest pose by default).

    Each vertex moves by the weighted sum of its joints' ``root_transform @ world @ inverse_bind`` matrices.
    """
    if not isinstance(character, Character):
        raise ParameterError("character", type(character).__name__, "a Character")
    if character.mesh is None:
        raise ParameterError("character", "a character without a skinned mesh", "a character with a mesh")
    world = character.skeleton.world_transforms(pose)
    if world.ndim != 3:
        raise ParameterError("pose", "a batched pose", "a single pose")
    matrices = (character.root_transform @ world @ character.inverse_bind)[:, :3, :]
    mesh = character.mesh
    homogeneous = np.concatenate([mesh.positions, np.ones((len(mesh.positions), 1))], axis=1)
    out = np.zeros((len(mesh.positions), 3))
    for k in range(4):
        out += mesh.weights[:, k:k + 1] * np.einsum("vij,vj->vi", matrices[mesh.joints[:, k]], homogeneous)
    return out


class _Reader:
    """One pass over a loaded pygltflib document."""

    def __init__(self, document: pygltflib.GLTF2, path: Path) -> None:
        import pygltflib

        self.document, self.path = document, path
        self._buffers: dict[int, bytes] = {}
        for field, kind in (("nodes", pygltflib.Node), ("skins", pygltflib.Skin), ("meshes", pygltflib.Mesh),
                            ("accessors", pygltflib.Accessor), ("bufferViews", pygltflib.BufferView),
                            ("buffers", pygltflib.Buffer), ("animations", pygltflib.Animation)):
            setattr(document, field, self.listed(field, getattr(document, field), kind))
        for a, animation in enumerate(document.animations):
            animation.channels = self.listed(f"animation {a} channels", animation.channels,
                                             pygltflib.AnimationChannel)
            animation.samplers = self.listed(f"animation {a} samplers", animation.samplers,
                                             pygltflib.AnimationSampler)
            for c, channel in enumerate(animation.channels):
                if channel.target is not None and not isinstance(channel.target, pygltflib.AnimationChannelTarget):
                    raise self.refuse(f"animation {a} channel {c} target", channel.target, "an object")
        for m, mesh in enumerate(document.meshes):
            mesh.primitives = self.listed(f"mesh {m} primitives", mesh.primitives, pygltflib.Primitive)
            for k, primitive in enumerate(mesh.primitives):
                if not isinstance(primitive.attributes, pygltflib.Attributes):
                    raise self.refuse(f"mesh {m} primitive {k} attributes", primitive.attributes, "an object")

    def listed(self, field: str, value: object, kind: type) -> list:
        """``value`` (``None``: an empty list) if it is a list of ``kind`` objects, else a :class:`FormatError`."""
        if value is None:
            return []
        if not isinstance(value, list) or not all(isinstance(item, kind) for item in value):
            raise self.refuse(field, value, "a list of objects")
        return value

    def fail(self, what: str) -> FormatError:
        return FormatError(f"{self.path}: {what}")

    def refuse(self, field: str, value: object, legal: str) -> FormatError:
        shown = repr(value)
        if len(shown) > 80:
            shown = shown[:77] + "..."
        return self.fail(f"{field} = {shown} is out of range: must be {legal}")

    def whole(self, field: str, value: object, minimum: int, maximum: int | None = None) -> int:
        """``value`` if it is an int in ``[minimum, maximum]``, else a :class:`FormatError`."""
        if (not isinstance(value, int) or isinstance(value, bool) or value < minimum
                or (maximum is not None and value > maximum)):
            legal = f"a whole number >= {minimum}" if maximum is None else f"a whole number in [{minimum}, {maximum}]"
            raise self.refuse(field, value, legal)
        return value

    def index(self, field: str, value: object, items: list | None, kind: str) -> int:
        """``value`` if it indexes ``items`` (the file's list of ``kind``), else a :class:`FormatError`."""
        count = len(items or [])
        if not isinstance(value, int) or isinstance(value, bool) or not 0 <= value < count:
            raise self.refuse(field, value, f"the index of one of the file's {count} {kind}")
        return value

    def numbers(self, field: str, value: object, length: int) -> np.ndarray:
        """``value`` as ``length`` finite float64s, else a :class:`FormatError`."""
        legal = f"a list of {length} finite numbers"
        if not isinstance(value, (list, tuple)) or len(value) != length or not all(
                isinstance(v, (int, float)) and not isinstance(v, bool) for v in value):
            raise self.refuse(field, value, legal)
        try:
            array = np.array(value, dtype=np.float64)
        except OverflowError:
            raise self.refuse(field, value, legal) from None
        if not np.isfinite(array).all():
            raise self.refuse(field, value, legal)
        return array

    # -- raw data ------------------------------------------------------------------------------------------
    def buffer(self, index: int) -> bytes:
        if index in self._buffers:
            return self._buffers[index]
        entry = self.document.buffers[index]
        byte_length = self.whole(f"buffer {index} byteLength", entry.byteLength, 1)
        uri = entry.uri
        if uri is None:
            data = self.document.binary_blob()
            if data is None:
                raise self.fail(f"buffer {index} has no uri and the file has no binary chunk")
        elif not isinstance(uri, str):
            raise self.refuse(f"buffer {index} uri", uri, "a string")
        elif uri.startswith("data:"):
            try:
                data = base64.b64decode(uri.split(",", 1)[1])
            except (IndexError, ValueError):
                raise self.fail(f"buffer {index}: broken data URI") from None
        else:
            data = self.external(index, uri, byte_length)
        if len(data) < byte_length:
            raise self.fail(f"buffer {index} holds {len(data)} bytes, fewer than its byteLength {byte_length}")
        self._buffers[index] = bytes(data)
        return self._buffers[index]

    def external(self, index: int, uri: str, byte_length: int) -> bytes:
        """The first ``byte_length`` bytes of the regular file ``uri`` names, relative to the glTF file."""
        name = urllib.parse.unquote(uri)
        if urllib.parse.urlsplit(uri).scheme or Path(name).is_absolute() or "\0" in name:
            raise self.refuse(f"buffer {index} uri", uri, "a data: URI or a path relative to the glTF file")
        target = self.path.parent / name
        try:
            if not target.is_file():  # not a device, a pipe or a folder: their reads may never end
                raise self.refuse(f"buffer {index} uri", uri, "the name of a regular file")
            with target.open("rb") as file:
                return file.read(byte_length)
        except OSError as error:
            raise self.fail(f"buffer {index}: cannot read {uri!r} ({error.strerror})") from None

    def accessor(self, index: int | None, what: str) -> np.ndarray:
        """Accessor ``index`` as an array ``(count, width)``: float64 for floats and normalized ints."""
        index = self.index(what, index, self.document.accessors, "accessors")
        accessor = self.document.accessors[index]
        where = f"{what} (accessor {index})"
        if accessor.sparse is not None:
            raise self.fail(f"{where} is sparse; sparse accessors are not supported")
        if not isinstance(accessor.componentType, int) or accessor.componentType not in _COMPONENTS:
            raise self.refuse(f"accessor {index} componentType", accessor.componentType,
                              f"one of {sorted(_COMPONENTS)}")
        if not isinstance(accessor.type, str) or accessor.type not in _WIDTHS:
            raise self.refuse(f"accessor {index} type", accessor.type, f"one of {sorted(_WIDTHS)}")
        dtype = np.dtype(_COMPONENTS[accessor.componentType])
        width = _WIDTHS[accessor.type]
        if accessor.type in ("MAT2", "MAT3") and dtype.itemsize < 4:
            raise self.fail(f"{where}: {accessor.type} of {dtype.itemsize}-byte components (padded columns) "
                            "is not supported")
        count = self.whole(f"accessor {index} count", accessor.count, 1)
        offset = self.whole(f"accessor {index} byteOffset", accessor.byteOffset or 0, 0)
        if accessor.bufferView is None:
            if count * width > MAX_UNBACKED_VALUES:
                raise self.refuse(f"accessor {index} count", count, f"at most {MAX_UNBACKED_VALUES // width} "
                                  f"{accessor.type} elements in an accessor without a bufferView")
            array = np.zeros((count, width), dtype)
        else:
            view_index = self.index(f"accessor {index} bufferView", accessor.bufferView, self.document.bufferViews,
                                    "bufferViews")
            view = self.document.bufferViews[view_index]
            buffer_index = self.index(f"bufferView {view_index} buffer", view.buffer, self.document.buffers,
                                      "buffers")
            element = dtype.itemsize * width
            view_offset = self.whole(f"bufferView {view_index} byteOffset", view.byteOffset or 0, 0)
            view_length = self.whole(f"bufferView {view_index} byteLength", view.byteLength, 1)
            stride = self.whole(f"bufferView {view_index} byteStride", view.byteStride or element, element, 252)
            start = view_offset + offset
            end = start + stride * (count - 1) + element
            view_end = view_offset + view_length
            if end > view_end:
                raise self.fail(f"{where}: {count} elements of {element} bytes, stride {stride}, from byte "
                                f"{offset} do not fit bufferView {view_index} ({view_length} bytes)")
            data = self.buffer(buffer_index)
            if view_end > len(data):
                raise self.fail(f"bufferView {view_index} (bytes {view_offset}..{view_end}) does not fit buffer "
                                f"{buffer_index} ({len(data)} bytes)")
            array = np.ndarray((count, width), dtype, buffer=data, offset=start, strides=(stride, dtype.itemsize))
        if dtype.kind == "f":
            return array.astype(np.float64)
        if accessor.normalized is not None and not isinstance(accessor.normalized, bool):
            raise self.refuse(f"accessor {index} normalized", accessor.normalized, "true or false")
        if accessor.normalized:
            scaling = _NORMALIZE.get(accessor.componentType)
            if scaling is None:
                raise self.fail(f"{where}: normalized is not allowed for 32-bit integers")
            divisor, lowest = scaling
            return np.maximum(array.astype(np.float64) / divisor, lowest)
        return array.astype(np.int64)

    # -- nodes ---------------------------------------------------------------------------------------------
    def node_label(self, index: int) -> str:
        name = self.document.nodes[index].name
        return f"node {index} ({name!r})" if isinstance(name, str) else f"node {index}"

    def node_parents(self) -> dict[int, int]:
        """Each child node's parent, once the nodes are known to form trees (every child exists, no node is the
        child of two nodes or its own ancestor): the walks up the hierarchy that follow cannot loop."""
        nodes = self.document.nodes or []
        parent_node: dict[int, int] = {}
        for index, node in enumerate(nodes):
            children = node.children or []
            if not isinstance(children, list):
                raise self.refuse(f"node {index} children", children, "a list of node indices")
            for child in children:
                child = self.index(f"node {index} children", child, nodes, "nodes")
                if child == index:
                    raise self.fail(f"{self.node_label(index)} is its own child; nodes must form trees")
                if child in parent_node:
                    raise self.fail(f"node {child} is a child of both node {parent_node[child]} and node {index}; "
                                    "a node has at most one parent")
                parent_node[child] = index
        finished: set[int] = set()
        for start in range(len(nodes)):
            walk: list[int] = []
            node = start
            while node is not None and node not in finished:
                if node in walk:
                    cycle = " -> ".join(str(n) for n in walk[walk.index(node):] + [node])
                    raise self.fail(f"{self.node_label(node)} is its own ancestor (parent chain "
                                    f"{cycle}); nodes must form trees")
                walk.append(node)
                node = parent_node.get(node)
            finished.update(walk)
        return parent_node

    def node_trs(self, index: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        node = self.document.nodes[index]
        if node.matrix is not None:
            # glTF stores column-major
            matrix = self.numbers(f"node {index} matrix", node.matrix, 16).reshape(4, 4).T
            translation = matrix[:3, 3].copy()
            linear = matrix[:3, :3]
            scale = np.linalg.norm(linear, axis=0)
            if np.any(scale < 1e-12):
                raise self.fail(f"node {index} has a singular matrix")
            if np.linalg.det(linear) < 0.0:
                scale[0] = -scale[0]
            rotation = quat.from_matrix(linear / scale)
            rebuilt = quat.to_matrix(rotation) * scale
            if not np.allclose(rebuilt, linear, atol=1e-5 * max(1.0, float(np.abs(linear).max()))):
                raise self.fail(f"node {index}'s matrix has shear; only translation, rotation and scale can be read")
            return translation, rotation, scale
        translation = self.numbers(f"node {index} translation",
                                   node.translation if node.translation is not None else [0.0, 0.0, 0.0], 3)
        rotation = self.numbers(f"node {index} rotation",
                                node.rotation if node.rotation is not None else [0.0, 0.0, 0.0, 1.0], 4)
        low, high = QUATERNION_LENGTH
        if not low < math.hypot(*rotation) <= high:  # hypot: [1e308, 1e308, 0, 1] has no length np.linalg can square
            raise self.refuse(f"node {index} rotation", node.rotation, "a quaternion (x, y, z, w) of non-zero length, "
                              f"more than {low:g} and at most {high:g} (glTF asks for unit quaternions)")
        scale = self.numbers(f"node {index} scale", node.scale if node.scale is not None else [1.0, 1.0, 1.0], 3)
        return translation, quat.normalize(rotation), scale

    def node_matrix(self, index: int) -> np.ndarray:
        node = self.document.nodes[index]
        if node.matrix is not None:
            return self.numbers(f"node {index} matrix", node.matrix, 16).reshape(4, 4).T
        translation, rotation, scale = self.node_trs(index)
        matrix = np.eye(4)
        matrix[:3, :3] = quat.to_matrix(rotation) * scale
        matrix[:3, 3] = translation
        return matrix

    # -- the character -------------------------------------------------------------------------------------
    def character(self) -> Character:
        document = self.document
        if not document.skins:
            raise self.fail("has no skin; a character needs one (the first skin is read)")
        skin_entry = document.skins[0]
        if not isinstance(skin_entry.joints, list):
            raise self.refuse("skin 0 joints", skin_entry.joints, "a list of node indices")
        file_joints = [self.index("skin 0 joints", node, document.nodes, "nodes") for node in skin_entry.joints]
        if not file_joints or len(set(file_joints)) != len(file_joints):
            raise self.fail("skin 0 has no joints or repeats a joint")
        parent_node = self.node_parents()
        joint_set = set(file_joints)
        parent_joint: dict[int, int | None] = {}
        root_parent: dict[int, int | None] = {}
        for node in file_joints:
            up = parent_node.get(node)
            while up is not None and up not in joint_set:
                up = parent_node.get(up)
            if up is not None and parent_node.get(node) != up:
                raise self.fail(f"a non-joint node lies between joint nodes {up} and {node}")
            parent_joint[node] = up
            if up is None:
                root_parent[node] = parent_node.get(node)
        order: list[int] = []  # file order, each joint preceded by its not yet listed ancestors
        placed = set()
        for joint in file_joints:
            lineage = []
            walker: int | None = joint
            while walker is not None and walker not in placed:
                lineage.append(walker)
                walker = parent_joint[walker]
            for member in reversed(lineage):
                order.append(member)
                placed.add(member)
        our_index = {node: i for i, node in enumerate(order)}
        names, used = [], set()
        for node in order:
            name = document.nodes[node].name or f"node{node}"
            if name in used:
                name = f"{name}#{node}"
            used.add(name)
            names.append(name)
        parents = [-1 if (up_joint := parent_joint[node]) is None else our_index[up_joint] for node in order]
        trs = [self.node_trs(node) for node in order]
        try:
            rest = Pose(np.array([t for t, _, _ in trs]), np.array([r for _, r, _ in trs]),
                        np.array([s for _, _, s in trs]))
            skeleton = Skeleton(names, parents, rest)
        except ParameterError as error:
            raise self.fail(f"skin 0: the joints do not make a skeleton ({error})") from None

        root_transform = self.root_transform(root_parent, parent_node)
        file_position = {node: k for k, node in enumerate(file_joints)}
        file_to_ours = np.array([our_index[node] for node in file_joints], dtype=np.int64)
        if skin_entry.inverseBindMatrices is None:
            inverse_bind = np.tile(np.eye(4), (len(order), 1, 1))
        else:
            matrices = self.accessor(skin_entry.inverseBindMatrices, "skin 0 inverseBindMatrices")
            if matrices.shape != (len(file_joints), 16):
                raise self.fail(f"skin 0 inverseBindMatrices: {matrices.shape[0]} matrices for "
                                f"{len(file_joints)} joints (MAT4 expected)")
            if not np.isfinite(matrices).all():
                bad = int(np.flatnonzero(~np.isfinite(matrices).all(axis=1))[0])
                raise self.refuse(f"skin 0 inverseBindMatrices[{bad}]", matrices[bad].tolist(),
                                  "16 finite numbers")
            matrices = matrices.reshape(-1, 4, 4).transpose(0, 2, 1)  # column-major storage
            inverse_bind = matrices[[file_position[node] for node in order]]
        return Character(skeleton=skeleton, clips=self.clips(our_index, names),
                         inverse_bind=np.ascontiguousarray(inverse_bind),
                         joint_nodes=np.array(order, dtype=np.int64), mesh=self.mesh(file_to_ours),
                         root_transform=root_transform)

    def root_transform(self, root_parent: dict, parent_node: dict) -> np.ndarray:
        transforms = []
        for parent in set(root_parent.values()):
            matrix = np.eye(4)
            while parent is not None:
                matrix = self.node_matrix(parent) @ matrix
                parent = parent_node.get(parent)
            transforms.append(matrix)
        if any(not np.allclose(m, transforms[0], atol=1e-9) for m in transforms[1:]):
            raise self.fail("the skin's root joints sit under differently placed nodes")
        return transforms[0]

    def clips(self, our_index: dict, names: list[str]) -> dict:
        clips = {}
        for a, animation in enumerate(self.document.animations or []):
            channels: dict[str, dict[str, Channel]] = {}
            for c, channel in enumerate(animation.channels):
                target = channel.target
                where = f"animation {a} channel {c}"
                if target is None or target.node is None:
                    continue
                self.index(f"{where} target node", target.node, self.document.nodes, "nodes")
                if target.node not in our_index or target.path not in PATHS:
                    continue
                sampler = animation.samplers[self.index(f"{where} sampler", channel.sampler, animation.samplers,
                                                        f"samplers of animation {a}")]
                times = self.accessor(sampler.input, f"{where} input")
                values = self.accessor(sampler.output, f"{where} output")
                interpolation = sampler.interpolation or "LINEAR"
                if times.shape[1] != 1:
                    raise self.fail(f"{where}: key times must be SCALAR")
                if interpolation == "CUBICSPLINE":
                    if values.shape[0] != 3 * times.shape[0]:
                        raise self.fail(f"{where}: CUBICSPLINE needs 3 values per key")
                    values = values.reshape(times.shape[0], 3, values.shape[1])
                joint = names[our_index[target.node]]
                if target.path in channels.get(joint, {}):
                    raise self.fail(f"{where}: a second {target.path} channel for joint {joint!r}")
                try:
                    channels.setdefault(joint, {})[target.path] = Channel(times[:, 0], values, interpolation)
                except ParameterError as error:
                    raise self.fail(f"{where}: {error}") from None
            if not channels:
                continue
            name = animation.name or f"animation{a}"
            if name in clips:
                name = f"{name}#{a}"
            try:
                clips[name] = Clip(name, channels)
            except ParameterError as error:
                raise self.fail(f"animation {a}: {error}") from None
        return clips

    def mesh(self, file_to_ours: np.ndarray) -> SkinnedMesh | None:
        document = self.document
        owner = next((node for node in document.nodes if node.skin == 0 and node.mesh is not None), None)
        if owner is None:
            return None
        self.index("the skinned node's mesh", owner.mesh, document.meshes, "meshes")
        positions, joints, weights, indices, base = [], [], [], [], 0
        for p, primitive in enumerate(document.meshes[owner.mesh].primitives):
            attributes = primitive.attributes
            if (primitive.mode not in (None, _TRIANGLES) or attributes.POSITION is None
                    or attributes.JOINTS_0 is None or attributes.WEIGHTS_0 is None):
                continue
            where = f"mesh {owner.mesh} primitive {p}"
            position = self.accessor(attributes.POSITION, f"{where} POSITION")
            joint = self.accessor(attributes.JOINTS_0, f"{where} JOINTS_0")
            weight = self.accessor(attributes.WEIGHTS_0, f"{where} WEIGHTS_0")
            if position.shape[1] != 3 or joint.shape != (len(position), 4) or weight.shape != (len(position), 4):
                raise self.fail(f"{where}: POSITION, JOINTS_0 and WEIGHTS_0 disagree in count or width")
            if not (np.isfinite(position).all() and np.isfinite(weight).all()):
                raise self.fail(f"{where}: POSITION and WEIGHTS_0 must be finite numbers")
            if joint.dtype.kind == "f" or joint.min(initial=0) < 0 or joint.max(initial=0) >= len(file_to_ours):
                raise self.fail(f"{where}: JOINTS_0 must be unsigned integers below {len(file_to_ours)}")
            if primitive.indices is None:
                index = np.arange(len(position), dtype=np.int64)
            else:
                index = self.accessor(primitive.indices, f"{where} indices")[:, 0]
                if index.dtype.kind == "f" or index.min(initial=0) < 0 or index.max(initial=0) >= len(position):
                    raise self.fail(f"{where}: indices out of range")
            if len(index) % 3:
                raise self.fail(f"{where}: {len(index)} indices do not make whole triangles")
            positions.append(position)
            joints.append(file_to_ours[joint])
            weights.append(weight)
            indices.append(index.reshape(-1, 3) + base)
            base += len(position)
        if not positions:
            return None
        return SkinnedMesh(positions=np.concatenate(positions), joints=np.concatenate(joints),
                           weights=np.concatenate(weights), indices=np.concatenate(indices))
