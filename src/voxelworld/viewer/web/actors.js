// What moves in the world, drawn from each frame message: the player and the NPCs as capsules, the chainsaw
// enemy's skeleton and blade, loose objects. An actor no longer in the frame is removed.

import * as THREE from "./vendor/three.module.js";

export const v3 = (a) => new THREE.Vector3(a[0], a[1], a[2]);
const UP = new THREE.Vector3(0, 1, 0);

const capsuleMaterials = {
  player: new THREE.MeshLambertMaterial({ color: 0xf2c94c }),
  npc: new THREE.MeshLambertMaterial({ color: 0x4f8fe0 }),
  enemy: new THREE.MeshLambertMaterial({ color: 0x9b2d2d }),
};

const objectGeometries = {
  fragment: new THREE.BoxGeometry(0.22, 0.22, 0.22),
  held: new THREE.SphereGeometry(0.18, 14, 10),
  bullet: new THREE.SphereGeometry(0.18, 14, 10),
  projectile: new THREE.SphereGeometry(0.22, 14, 10),
  treasure: new THREE.OctahedronGeometry(0.3),
};

function capsule(radius, height, material) {
  const body = new THREE.Mesh(new THREE.CapsuleGeometry(radius, Math.max(height - 2 * radius, 0.01), 4, 12), material);
  body.position.y = height / 2;
  const group = new THREE.Group();
  group.add(body);
  const nose = new THREE.Mesh(new THREE.BoxGeometry(0.12, 0.12, 0.3), new THREE.MeshLambertMaterial({ color: 0x222222 }));
  nose.position.set(0, height * 0.85, -radius);
  group.add(nose);
  return group;
}

// A bone: a thin box from one joint to the next.
function placeBone(box, a, b, width) {
  const mid = a.clone().add(b).multiplyScalar(0.5);
  const length = a.distanceTo(b);
  box.position.copy(mid);
  box.scale.set(width, Math.max(length, 1e-3), width);
  box.quaternion.setFromUnitVectors(UP, b.clone().sub(a).normalize());
}

function enemyObject(enemy) {
  const group = new THREE.Group();
  const bones = new THREE.Group();
  bones.name = "bones";
  const boneMaterial = new THREE.MeshLambertMaterial({ color: 0xc8553d });
  for (let j = 0; j < enemy.parents.length; j++) {
    if (enemy.parents[j] >= 0) bones.add(new THREE.Mesh(new THREE.BoxGeometry(1, 1, 1), boneMaterial));
  }
  const lines = new THREE.LineSegments(new THREE.BufferGeometry(), new THREE.LineBasicMaterial({ color: 0xffffff }));
  lines.geometry.setAttribute("position", new THREE.BufferAttribute(new Float32Array(6 * enemy.parents.length), 3));
  lines.name = "skeleton";
  const joints = new THREE.Group();
  for (let j = 0; j < enemy.parents.length; j++) {
    joints.add(new THREE.Mesh(new THREE.SphereGeometry(0.07, 10, 8), new THREE.MeshLambertMaterial({ color: 0xffe0b0 })));
  }
  const blade = new THREE.Mesh(new THREE.BoxGeometry(1, 1, 1), new THREE.MeshLambertMaterial({ color: 0xb0b8c0 }));
  blade.name = "blade";
  const legs = new THREE.Mesh(new THREE.BoxGeometry(1, 1, 1), new THREE.MeshLambertMaterial({ color: 0x5a2020 }));
  legs.name = "legs"; // from the feet to the root joint (the swing's skeleton starts at the hips)
  group.add(bones, lines, joints, blade, legs);
  return group;
}

function updateEnemy(object, enemy) {
  const [bones, lines, joints, blade, legs] = object.children;
  const points = enemy.joints.map(v3);
  const line = lines.geometry.attributes.position;
  let b = 0;
  for (let j = 0; j < points.length; j++) {
    joints.children[j].position.copy(points[j]);
    const p = enemy.parents[j];
    if (p >= 0) {
      placeBone(bones.children[b++], points[p], points[j], 0.09);
      line.setXYZ(2 * j, ...points[p].toArray());
      line.setXYZ(2 * j + 1, ...points[j].toArray());
    }
  }
  line.needsUpdate = true;
  lines.geometry.computeBoundingSphere();
  placeBone(blade, v3(enemy.blade[0]), v3(enemy.blade[1]), 0.06);
  placeBone(legs, v3(enemy.position), points[enemy.parents.indexOf(-1)], 0.16);
  blade.material.color.setHex(enemy.contact ? 0xff6a00 : 0xb0b8c0);
}

export class Actors {
  constructor(group) {
    this.group = group; // the scene's "actors" group
    this.meshes = new Map(); // name -> Object3D
  }

  clear() {
    this.meshes.clear();
  }

  actor(name, make) {
    let object = this.meshes.get(name);
    if (!object) {
      object = make();
      object.name = name;
      this.group.add(object);
      this.meshes.set(name, object);
    }
    object.userData.seen = true;
    return object;
  }

  // Place every actor of ``frame`` (``world``: the hello message; ``colour(name)``: a material's colour).
  update(frame, world, firstPerson, colour) {
    for (const object of this.meshes.values()) object.userData.seen = false;
    const p = world.player;
    const me = this.actor("player", () => capsule(p.radius, p.height, capsuleMaterials.player));
    me.position.set(...frame.player.position);
    me.rotation.y = THREE.MathUtils.degToRad(frame.player.yaw);
    me.visible = !firstPerson;
    for (const npc of frame.npcs) {
      const object = this.actor(`npc:${npc.name}`, () => capsule(world.npc.radius, world.npc.height, capsuleMaterials.npc));
      object.position.set(...npc.position);
    }
    for (const enemy of frame.enemies) {
      updateEnemy(this.actor(`enemy:${enemy.name}`, () => enemyObject(enemy)), enemy);
    }
    for (const item of frame.objects) {
      const object = this.actor(`object:${item.name}`, () => {
        const geometry = objectGeometries[item.kind] || objectGeometries.fragment;
        const tint = item.kind === "treasure" ? new THREE.Color(0xffd700) : colour(item.material);
        return new THREE.Mesh(geometry, new THREE.MeshLambertMaterial({ color: tint }));
      });
      object.position.set(...item.position);
    }
    for (const [name, object] of this.meshes) {
      if (!object.userData.seen) {
        this.group.remove(object);
        object.traverse((o) => { if (o.material) o.material.dispose?.(); });
        this.meshes.delete(name);
      }
    }
  }
}
