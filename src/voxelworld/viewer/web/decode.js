// Binary messages of the play protocol (docs/specs/play-protocol.md): a kind byte, a version byte, a header,
// then arrays that each start on a multiple of 4 bytes, so they are read as views, not copies. Plain data out:
// nothing here knows three.js.
//
// The kinds, the version and the header sizes are protocol.py's (KIND_*, MESH_VERSION, CHUNK_HEADER.size,
// TRIANGLES_HEADER.size); tests/viewer/test_page_constants.py checks that they agree.

export const KIND_CHUNK = 1, KIND_NAVMESH = 2, KIND_COLLISION = 3;
export const MESH_VERSION = 2; // the version byte this page reads
export const CHUNK_HEADER_BYTES = 24; // u8 kind, u8 version, u16 0, i32 chunk i, j, k, u32 vertices n, triangles m
export const TRIANGLES_HEADER_BYTES = 16; // u8 kind, u8 version, u16 0, u32 revision, vertices n, triangles m

// The kind and version bytes of a binary message, and an error text when this page cannot read it.
export function binaryHeader(buffer) {
  if (buffer.byteLength < 2) return { kind: -1, version: -1, error: `a binary message of ${buffer.byteLength} bytes` };
  const view = new DataView(buffer);
  const kind = view.getUint8(0), version = view.getUint8(1);
  const known = kind === KIND_CHUNK || kind === KIND_NAVMESH || kind === KIND_COLLISION;
  let error = null;
  if (!known) error = `a binary message of unknown kind ${kind}`;
  else if (version !== MESH_VERSION) {
    error = `a binary message of version ${version}; this page reads version ${MESH_VERSION} (reload the page)`;
  }
  return { kind, version, error };
}

// A chunk's display mesh (kind 1): positions, normals, indices, mat_a, mat_b, padding, blend, occlusion (u8, 255 =
// open; yielded as floats in [0, 1]), padding (m = 0: removed).
export function decodeChunk(buffer) {
  const header = new DataView(buffer);
  const i = header.getInt32(4, true), j = header.getInt32(8, true), k = header.getInt32(12, true);
  const n = header.getUint32(16, true), m = header.getUint32(20, true);
  const chunk = { key: `${i},${j},${k}`, n, m };
  if (m === 0) return chunk;
  let offset = CHUNK_HEADER_BYTES;
  chunk.positions = new Float32Array(buffer, offset, 3 * n); offset += 12 * n;
  chunk.normals = new Float32Array(buffer, offset, 3 * n); offset += 12 * n;
  chunk.indices = new Uint32Array(buffer, offset, 3 * m); offset += 12 * m;
  chunk.matA = new Uint8Array(buffer, offset, n); offset += n;
  chunk.matB = new Uint8Array(buffer, offset, n); offset += n;
  offset += (4 - (offset % 4)) % 4;
  chunk.blend = new Float32Array(buffer, offset, n); offset += 4 * n;
  const occlusion = new Uint8Array(buffer, offset, n);
  chunk.occlusion = Float32Array.from(occlusion, (value) => value / 255);
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
