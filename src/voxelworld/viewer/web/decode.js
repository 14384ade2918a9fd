// Binary messages of the play protocol, version 3 (docs/specs/play-protocol.md): a kind byte, a version byte, a
// header, then arrays. Chunk meshes come quantised (positions as int16 steps from the chunk's corner, normals
// octahedral int16, blend and occlusion as bytes, indices u16 or u32) and are decoded to the float arrays the
// scene draws; a chunk patch is applied to the page's own copy of the chunk; poses unpack each joint's rotation
// from 32 bits ("smallest three"). Plain data out: nothing here knows three.js.
//
// The kinds, the version and the header sizes are protocol.py's (KIND_*, MESH_VERSION, CHUNK_HEADER.size,
// PATCH_HEADER.size, POSES_HEADER.size, TRIANGLES_HEADER.size); tests/viewer/test_page_constants.py checks that
// they agree.

export const KIND_CHUNK = 1, KIND_NAVMESH = 2, KIND_COLLISION = 3, KIND_CHUNK_PATCH = 4, KIND_POSES = 5;
export const MESH_VERSION = 3; // the version byte this page reads
export const PROTOCOL_VERSION = 6; // the hello's "protocol" this page speaks
// u8 kind, u8 version, u16 flags, i32 chunk i, j, k, u32 revision, vertices n, triangles m, f32 origin x, y, z, step
export const CHUNK_HEADER_BYTES = 44;
// u8 kind, u8 version, u16 flags, i32 chunk i, j, k, u32 base, revision, old n, old m, n, m, vertex copies,
// triangle copies
export const PATCH_HEADER_BYTES = 48;
export const POSES_HEADER_BYTES = 16; // u8 kind, u8 version, u16 actors, u32 frame, u32 base frame, u16 joints, u16 0
export const TRIANGLES_HEADER_BYTES = 16; // u8 kind, u8 version, u16 0, u32 revision, vertices n, triangles m

const WIDE_INDICES = 1; // a chunk header's flag: indices are u32
const OCT_SCALE = 32767;
const ACTOR_KINDS = ["player", "npc", "enemy"];
const HALF = Math.SQRT1_2;
const COARSE = 2; // a poses actor's flag: only some joints sent (frame_messages.COARSE)

// The kind and version bytes of a binary message, and an error text when this page cannot read it.
export function binaryHeader(buffer) {
  if (buffer.byteLength < 2) return { kind: -1, version: -1, error: `a binary message of ${buffer.byteLength} bytes` };
  const view = new DataView(buffer);
  const kind = view.getUint8(0), version = view.getUint8(1);
  const known = kind >= KIND_CHUNK && kind <= KIND_POSES;
  let error = null;
  if (!known) error = `a binary message of unknown kind ${kind}`;
  else if (version !== MESH_VERSION) {
    error = `a binary message of version ${version}; this page reads version ${MESH_VERSION} (reload the page)`;
  }
  return { kind, version, error };
}

const pad4 = (offset) => offset + ((4 - (offset % 4)) % 4);

// ``count`` quantised vertices from ``offset`` (positions i16 x 3, padding, normals i16 x 2, mat_a, mat_b, blend,
// occlusion u8 each, padding) as floats: positions origin + q * step (m), unit normals, blend and occlusion in 0..1.
function readVertices(buffer, offset, count, origin, step) {
  const q = new Int16Array(buffer, offset, 3 * count);
  offset = pad4(offset + 6 * count);
  const oct = new Int16Array(buffer, offset, 2 * count);
  offset += 4 * count;
  const positions = new Float32Array(3 * count), normals = new Float32Array(3 * count);
  for (let v = 0; v < count; v++) {
    for (let c = 0; c < 3; c++) positions[3 * v + c] = origin[c] + q[3 * v + c] * step;
    let x = Math.fround(oct[2 * v] / OCT_SCALE), y = Math.fround(oct[2 * v + 1] / OCT_SCALE);
    const z = 1 - Math.abs(x) - Math.abs(y), t = Math.max(-z, 0);
    x += x >= 0 ? -t : t;
    y += y >= 0 ? -t : t;
    const length = Math.hypot(x, y, z);
    normals[3 * v] = x / length; normals[3 * v + 1] = y / length; normals[3 * v + 2] = z / length;
  }
  const matA = new Uint8Array(buffer, offset, count).slice(); offset += count;
  const matB = new Uint8Array(buffer, offset, count).slice(); offset += count;
  const blend = Float32Array.from(new Uint8Array(buffer, offset, count), (b) => b / 255); offset += count;
  const occlusion = Float32Array.from(new Uint8Array(buffer, offset, count), (b) => b / 255); offset += count;
  return { positions, normals, matA, matB, blend, occlusion, end: pad4(offset) };
}

function readIndices(buffer, offset, count, wide) {
  const source = wide ? new Uint32Array(buffer, offset, 3 * count) : new Uint16Array(buffer, offset, 3 * count);
  return { indices: Uint32Array.from(source), end: pad4(offset + source.byteLength) };
}

// A chunk's whole mesh (kind 1): { key, revision, n, m, origin, step, positions, normals, indices, matA, matB,
// blend, occlusion } (m = 0: the chunk was removed; no arrays).
export function decodeChunk(buffer) {
  const view = new DataView(buffer);
  const flags = view.getUint16(2, true);
  const i = view.getInt32(4, true), j = view.getInt32(8, true), k = view.getInt32(12, true);
  const revision = view.getUint32(16, true), n = view.getUint32(20, true), m = view.getUint32(24, true);
  const origin = [view.getFloat32(28, true), view.getFloat32(32, true), view.getFloat32(36, true)];
  const step = view.getFloat32(40, true);
  const chunk = { key: `${i},${j},${k}`, revision, n, m, origin, step };
  if (m === 0) return chunk;
  const vertices = readVertices(buffer, CHUNK_HEADER_BYTES, n, origin, step);
  const { indices } = readIndices(buffer, vertices.end, m, flags & WIDE_INDICES);
  return { ...chunk, ...vertices, indices };
}

// A patch's copies (new start, old start, count) from ``offset``, checked against the ``count`` new and ``oldCount``
// old rows (each after the one before), and how many rows they copy.
function copiesAt(buffer, offset, copies, count, oldCount, what, rowsName) {
  const rows = new Uint32Array(buffer, offset, 3 * copies);
  let total = 0, end = 0;
  for (let c = 0; c < copies; c++) {
    const start = rows[3 * c], from = rows[3 * c + 1], length = rows[3 * c + 2];
    if (start < end || start + length > count || from + length > oldCount) {
      return { error: `a ${what} copy past the ${count} ${rowsName} of the patch or the ${oldCount} of the page's mesh` };
    }
    end = start + length;
    total += length;
  }
  return { rows, total };
}

// ``count`` rows of ``width``: the copies of ``old``'s rows, the ``literal`` ones in the rows between them in order.
function copied(old, width, count, copies, literal) {
  const out = new old.constructor(width * count);
  let next = 0, row = 0;
  const fill = (until) => {
    out.set(literal.subarray(width * next, width * (next + until - row)), width * row);
    next += until - row;
  };
  for (let c = 0; c < copies.length; c += 3) {
    const start = copies[c], from = copies[c + 1], length = copies[c + 2];
    fill(start);
    out.set(old.subarray(width * from, width * (from + length)), width * start);
    row = start + length;
  }
  fill(count);
  return out;
}

// Where each old vertex is among the ``count`` new ones (-1: gone): its first copy, or the new vertex in its place
// between two copies that replace as many old rows, none copied elsewhere (chunk_messages._new_of_old).
function newOfOld(copies, oldCount, count) {
  const map = new Int32Array(oldCount).fill(-1);
  for (let c = copies.length - 3; c >= 0; c -= 3) {
    for (let k = 0; k < copies[c + 2]; k++) map[copies[c + 1] + k] = copies[c] + k;
  }
  let newEnd = 0, oldEnd = 0;
  for (let c = 0; c <= copies.length; c += 3) {
    const newStart = c < copies.length ? copies[c] : count, oldStart = c < copies.length ? copies[c + 1] : oldCount;
    const gap = newStart - newEnd;
    if (gap > 0 && gap === oldStart - oldEnd && map.subarray(oldEnd, oldStart).every((v) => v < 0)) {
      for (let k = 0; k < gap; k++) map[oldEnd + k] = newEnd + k;
    }
    if (c < copies.length) { newEnd = copies[c] + copies[c + 2]; oldEnd = copies[c + 1] + copies[c + 2]; }
  }
  return map;
}

// A chunk patch (kind 4) applied to ``chunks`` (key -> the chunk as decodeChunk or this function gave it): the
// chunk's new mesh, or { key, error } when this page does not have the patch's base or the patch does not fit it.
export function applyChunkPatch(buffer, chunks) {
  const view = new DataView(buffer);
  const u32 = (at) => view.getUint32(at, true);
  const flags = view.getUint16(2, true);
  const key = `${view.getInt32(4, true)},${view.getInt32(8, true)},${view.getInt32(12, true)}`;
  const base = u32(16), revision = u32(20), oldN = u32(24), oldM = u32(28), n = u32(32), m = u32(36);
  const vertexCopies = u32(40), triangleCopies = u32(44);
  const old = chunks.get(key);
  if (!old || old.revision !== base || old.n !== oldN || old.m !== oldM) {
    return { key, error: `a patch of chunk ${key} against revision ${base}, which this page does not have (reload the page)` };
  }
  let offset = PATCH_HEADER_BYTES;
  const vertexRows = copiesAt(buffer, offset, vertexCopies, n, oldN, "vertex", "vertices");
  offset += 12 * vertexCopies;
  const triangleRows = copiesAt(buffer, offset, triangleCopies, m, oldM, "triangle", "triangles");
  offset += 12 * triangleCopies;
  if (vertexRows.error || triangleRows.error) return { key, error: vertexRows.error || triangleRows.error };
  const literal = readVertices(buffer, offset, n - vertexRows.total, old.origin, old.step);
  const { indices: literalIndices } = readIndices(buffer, literal.end, m - triangleRows.total, flags & WIDE_INDICES);
  const chunk = { key, revision, n, m, origin: old.origin, step: old.step };
  for (const [name, width] of [["positions", 3], ["normals", 3], ["matA", 1], ["matB", 1], ["blend", 1], ["occlusion", 1]]) {
    chunk[name] = copied(old[name], width, n, vertexRows.rows, literal[name]);
  }
  const map = newOfOld(vertexRows.rows, oldN, n);
  const moved = Int32Array.from(old.indices, (v) => map[v]);
  const indices = copied(moved, 3, m, triangleRows.rows, Int32Array.from(literalIndices));
  if (indices.some((v) => v < 0 || v >= n)) return { key, error: `a patch of chunk ${key} names a vertex it does not have` };
  chunk.indices = Uint32Array.from(indices);
  return chunk;
}

// Triangles with one byte per triangle (kind 2, the navmesh: its level; kind 3, the collision mesh: material).
export function decodeTriangles(buffer) {
  const header = new DataView(buffer);
  const revision = header.getUint32(4, true), n = header.getUint32(8, true), m = header.getUint32(12, true);
  let offset = TRIANGLES_HEADER_BYTES;
  const positions = new Float32Array(buffer, offset, 3 * n); offset += 12 * n;
  const indices = new Uint32Array(buffer, offset, 3 * m); offset += 12 * m;
  const values = new Uint8Array(buffer, offset, m);
  return { revision, n, m, positions, indices, values };
}

// A joint's rotation (x, y, z, w) from its 32 bits: the largest component's index, then the other three in 10
// bits each.
export function unpackRotation(word, out, at) {
  const largest = word >>> 30;
  const others = [(word >>> 20) & 1023, (word >>> 10) & 1023, word & 1023].map((b) => ((b - 511) / 511) * HALF);
  const rest = Math.sqrt(Math.max(0, 1 - others[0] ** 2 - others[1] ** 2 - others[2] ** 2));
  for (let c = 0, o = 0; c < 4; c++) out[at + c] = c === largest ? rest : others[o++];
}

// Every actor's pose (kind 5): { frame, base, characters: [{ name, kind, position, yaw, scale, root, rotations
// (Float32Array, 4 per joint), blade, contact: material id }] }; a delta (base frame given) is completed from
// ``previous`` ("kind/name" -> rotations of the base frame), or { error } when an actor's base is missing. A coarse
// actor (flag 2: far from this page's player, only its big joints sent) keeps the joints left out as ``previous``
// has them, else NaN: the page leaves those bones as they are (the rest pose of a new one).
export function decodePoses(buffer, previous) {
  const view = new DataView(buffer);
  const count = view.getUint16(2, true), frame = view.getUint32(4, true), base = view.getUint32(8, true);
  const joints = view.getUint16(12, true), maskBytes = (joints + 7) >> 3;
  const characters = [];
  let offset = POSES_HEADER_BYTES;
  const f32 = () => { const value = view.getFloat32(offset, true); offset += 4; return value; };
  for (let a = 0; a < count; a++) {
    const kind = ACTOR_KINDS[view.getUint8(offset)], length = view.getUint8(offset + 1);
    const name = new TextDecoder().decode(new Uint8Array(buffer, offset + 2, length));
    offset += 2 + length;
    const contact = view.getUint8(offset), flags = view.getUint8(offset + 1);
    offset += 2;
    const position = [f32(), f32(), f32()], yaw = f32(), scale = f32(), root = [f32(), f32(), f32()];
    const mask = new Uint8Array(buffer, offset, maskBytes);
    offset += maskBytes;
    const before = previous?.get(`${kind}/${name}`);
    const rotations = new Float32Array(4 * joints);
    for (let j = 0; j < joints; j++) {
      if (mask[j >> 3] & (1 << (j & 7))) {
        unpackRotation(view.getUint32(offset, true), rotations, 4 * j);
        offset += 4;
      } else if (before) {
        rotations.set(before.subarray(4 * j, 4 * j + 4), 4 * j);
      } else if (flags & COARSE) {
        rotations.fill(NaN, 4 * j, 4 * j + 4);
      } else {
        return { error: `poses of frame ${frame} against frame ${base}, which this page does not have for ${name}` };
      }
    }
    const entry = { name, kind, position, yaw, scale, root, rotations, contact };
    if (flags & 1) entry.blade = [[f32(), f32(), f32()], [f32(), f32(), f32()]];
    characters.push(entry);
  }
  return { frame, base, characters };
}
