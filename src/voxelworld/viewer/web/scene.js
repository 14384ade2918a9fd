// The three.js scene: renderer, lights, the terrain's chunk meshes, the props and the navmesh and collision
// overlays, built from what decode.js reads and the hello message's materials.

import * as THREE from "./vendor/three.module.js";
import { paletteTexture, terrainMaterial } from "./shaders.js";

const LEVEL_COLOURS = [0x2ad4ff, 0xffa020, 0xff40c0, 0xfff040, 0x9060ff, 0xff5050]; // navmesh levels 0, 1, ...

function group(name, visible = true) {
  const g = new THREE.Group();
  g.name = name;
  g.visible = visible;
  return g;
}

export class WorldScene {
  constructor(container) {
    this.renderer = new THREE.WebGLRenderer({ antialias: true, preserveDrawingBuffer: true });
    this.renderer.setPixelRatio(Math.min(window.devicePixelRatio || 1, 2));
    this.renderer.setSize(window.innerWidth, window.innerHeight);
    container.appendChild(this.renderer.domElement);
    this.scene = new THREE.Scene();
    // The sky is the page's background colour (index.html's style), defined there once.
    this.scene.background = new THREE.Color(getComputedStyle(document.body).backgroundColor);
    this.scene.add(new THREE.HemisphereLight(0xdde8ff, 0x5a4a3a, 1.2));
    const sun = new THREE.DirectionalLight(0xffffff, 1.6);
    sun.position.set(0.35, 1.0, 0.45);
    this.scene.add(sun);
    this.terrain = group("terrain");
    this.actors = group("actors");
    this.navmesh = group("navmesh", false);
    this.collision = group("collision", false);
    this.props = group("props");
    this.scene.add(this.terrain, this.props, this.actors, this.navmesh, this.collision);
    this.terrainShader = terrainMaterial(paletteTexture([]));
    this.materialsById = new Map();
    this.chunks = new Map(); // "i,j,k" -> Mesh
    this.triangles = 0;
  }

  get canvas() { return this.renderer.domElement; }

  materialColour(name) {
    for (const m of this.materialsById.values()) {
      if (m.name === name) return new THREE.Color().setRGB(...m.colour, THREE.SRGBColorSpace);
    }
    return new THREE.Color(0x999999);
  }

  clearGroup(g) {
    for (const child of [...g.children]) {
      g.remove(child);
      child.traverse((o) => {
        if (o.geometry) o.geometry.dispose();
        if (o.material && o.material !== this.terrainShader) o.material.dispose?.();
      });
    }
  }

  // A new world (the hello message): its materials and props; every chunk and overlay dropped.
  reset(hello) {
    this.materialsById = new Map(hello.materials.map((m) => [m.id, m]));
    this.terrainShader.dispose();
    this.terrainShader = terrainMaterial(paletteTexture(hello.materials));
    for (const g of [this.terrain, this.props, this.actors, this.navmesh, this.collision]) this.clearGroup(g);
    this.chunks.clear();
    this.triangles = 0;
    for (const prop of hello.props) {
      const geometry = new THREE.BufferGeometry();
      geometry.setAttribute("position", new THREE.Float32BufferAttribute(prop.positions, 3));
      geometry.setIndex(prop.indices);
      geometry.computeVertexNormals();
      const material = new THREE.MeshLambertMaterial({ color: this.materialColour(prop.material), flatShading: true });
      const mesh = new THREE.Mesh(geometry, material);
      mesh.name = prop.name;
      this.props.add(mesh);
    }
  }

  // A chunk's mesh from decodeChunk: replaces the chunk's old mesh (none when it has no triangles).
  setChunk(chunk) {
    const old = this.chunks.get(chunk.key);
    if (old) {
      this.terrain.remove(old);
      old.geometry.dispose();
      this.chunks.delete(chunk.key);
      this.triangles -= old.userData.triangles;
    }
    if (chunk.m === 0) return;
    const geometry = new THREE.BufferGeometry();
    geometry.setAttribute("position", new THREE.BufferAttribute(chunk.positions, 3));
    geometry.setAttribute("normal", new THREE.BufferAttribute(chunk.normals, 3));
    geometry.setAttribute("mat_a", new THREE.BufferAttribute(chunk.matA, 1));
    geometry.setAttribute("mat_b", new THREE.BufferAttribute(chunk.matB, 1));
    geometry.setAttribute("blend", new THREE.BufferAttribute(chunk.blend, 1));
    geometry.setIndex(new THREE.BufferAttribute(chunk.indices, 1));
    geometry.computeBoundingSphere();
    const mesh = new THREE.Mesh(geometry, this.terrainShader);
    mesh.name = `chunk ${chunk.key}`;
    mesh.userData.triangles = chunk.m;
    this.terrain.add(mesh);
    this.chunks.set(chunk.key, mesh);
    this.triangles += chunk.m;
  }

  // The navmesh overlay from decodeTriangles: triangles filled by level, a little above the ground, with edges.
  setNavmesh({ m, positions, indices, values }) {
    this.clearGroup(this.navmesh);
    const corners = new Float32Array(9 * m), colours = new Float32Array(9 * m);
    const colour = new THREE.Color();
    for (let t = 0; t < m; t++) {
      colour.setHex(LEVEL_COLOURS[values[t] % LEVEL_COLOURS.length], THREE.SRGBColorSpace);
      for (let c = 0; c < 3; c++) {
        const v = indices[3 * t + c];
        corners.set([positions[3 * v], positions[3 * v + 1] + 0.06, positions[3 * v + 2]], 9 * t + 3 * c);
        colours.set([colour.r, colour.g, colour.b], 9 * t + 3 * c);
      }
    }
    const geometry = new THREE.BufferGeometry();
    geometry.setAttribute("position", new THREE.BufferAttribute(corners, 3));
    geometry.setAttribute("color", new THREE.BufferAttribute(colours, 3));
    const fill = new THREE.Mesh(geometry, new THREE.MeshBasicMaterial({
      vertexColors: true, transparent: true, opacity: 0.6, side: THREE.DoubleSide, depthWrite: false,
      polygonOffset: true, polygonOffsetFactor: -2, polygonOffsetUnits: -4,
    }));
    const edges = new THREE.LineSegments(new THREE.WireframeGeometry(geometry),
      new THREE.LineBasicMaterial({ color: 0x10304a, transparent: true, opacity: 0.6 }));
    this.navmesh.add(fill, edges);
  }

  // The collision overlay from decodeTriangles: the triangles the player collides with, as a wireframe.
  setCollision({ positions, indices }) {
    this.clearGroup(this.collision);
    const geometry = new THREE.BufferGeometry();
    geometry.setAttribute("position", new THREE.BufferAttribute(positions, 3));
    geometry.setIndex(new THREE.BufferAttribute(indices, 1));
    this.collision.add(new THREE.LineSegments(new THREE.WireframeGeometry(geometry),
      new THREE.LineBasicMaterial({ color: 0xff00ff })));
  }

  resize() {
    this.renderer.setSize(window.innerWidth, window.innerHeight);
  }
}
