// Tree crowns. The terrain's trees are trunks of bark around wood (voxels, cut and sucked like the rest); the
// material table has no leaves, so the page crowns each trunk's top with foliage drawn here: a few lit,
// shadow-casting blobs of leaves. A trunk's top is where its up-facing bark or wood vertices are highest; digging
// the top away moves the crown down with it, and a trunk cut to the ground loses it.

import * as THREE from "./vendor/three.module.js";

export const TRUNK_MATERIALS = ["bark", "wood"]; // terrain materials a trunk is made of
const SAME_TREE = 2.0; // m: up-facing trunk vertices closer than this across the ground are one trunk's top
const LEAVES = new THREE.MeshLambertMaterial({ color: 0x3d7330 }); // flat faces by their normals (BLOB_GEOMETRY)
const BLOBS = [[0, 1.3, 0, 1.9], [1.0, 0.7, 0.4, 1.3], [-0.8, 0.9, -0.6, 1.4], [0.2, 2.4, -0.2, 1.2]]; // x y z r

export class Foliage {
  constructor(group) {
    this.group = group;
    this.trunkIds = new Set();
    this.tops = new Map(); // chunk key -> [[x, y, z], ...] up-facing trunk vertices
    this.shown = ""; // the crowns drawn, as text (rebuilt only when they change)
  }

  // A new world: the ids of its trunk materials (by name).
  reset(materials) {
    this.trunkIds = new Set(materials.filter((m) => TRUNK_MATERIALS.includes(m.name)).map((m) => m.id));
    this.tops.clear();
    this.update();
  }

  // A chunk's mesh (decode.js's decodeChunk) arrived: its up-facing vertices mostly of a trunk material replace
// its old ones.
  setChunk(chunk) {
    const found = [];
    for (let v = 0; v < (chunk.m === 0 ? 0 : chunk.n); v++) {
      const dominant = chunk.blend[v] < 0.5 ? chunk.matA[v] : chunk.matB[v]; // the vertex's larger share
      if (chunk.normals[3 * v + 1] > 0.6 && this.trunkIds.has(dominant)) {
        found.push([chunk.positions[3 * v], chunk.positions[3 * v + 1], chunk.positions[3 * v + 2]]);
      }
    }
    const had = this.tops.has(chunk.key);
    if (found.length) this.tops.set(chunk.key, found);
    else this.tops.delete(chunk.key);
    if (found.length || had) this.update();
  }

  // The crowns: one per trunk, on its highest up-facing vertex.
  crowns() {
    const crowns = [];
    for (const points of this.tops.values()) {
      for (const p of points) {
        const near = crowns.find((c) => Math.hypot(c[0] - p[0], c[2] - p[2]) < SAME_TREE);
        if (!near) crowns.push([...p]);
        else if (p[1] > near[1]) near.splice(0, 3, ...p);
      }
    }
    return crowns;
  }

  update() {
    const crowns = this.crowns().map((c) => c.map((x) => Math.round(x * 4) / 4));
    const shown = JSON.stringify(crowns);
    if (shown === this.shown) return;
    this.shown = shown;
    for (const child of [...this.group.children]) this.group.remove(child);
    for (const [x, y, z] of crowns) {
      const crown = new THREE.Group();
      crown.name = "crown";
      crown.position.set(x, y, z);
      for (const [bx, by, bz, r] of BLOBS) {
        const blob = new THREE.Mesh(BLOB_GEOMETRY, LEAVES);
        blob.position.set(bx, by, bz);
        blob.scale.setScalar(r);
        blob.castShadow = true; // the crowns are the highest things: they take no shadow (one lookup a pixel less)
        crown.add(blob);
      }
      this.group.add(crown);
    }
  }
}

// Each face its own normal: the faceted look without flatShading's per-pixel derivatives.
const BLOB_GEOMETRY = new THREE.IcosahedronGeometry(1, 1);
BLOB_GEOMETRY.computeVertexNormals(); // not indexed: every triangle's corners take its face's normal
