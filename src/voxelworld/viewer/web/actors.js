// What moves in the world, drawn from each frame message: every actor (the player, the NPCs, the chainsaw
// enemy) as a skinned CesiumMan posed by the frame's "characters" (its bones' local rotations, the root joint's
// translation, where it stands and faces; decode.js unpacks them from the binary poses message), the enemy's blade
// glowing while it cuts, and loose objects. An actor no longer in the frame is removed.
//
// The character (the hello's character.url) is loaded once; each actor gets its own SkeletonUtils.clone, tinted
// by its kind (its texture lit per vertex by three's Lambert model, skinning.js: the glTF's physically based
// material costs several times as much per pixel under software WebGL). Until it has loaded, or if it cannot be (a console warning says why),
// figures stand in: a capsule for every actor, the enemy's blade beside it.
//
// Before every picture (prepare): an actor farther than DETAIL_METRES from the camera is drawn with the lighter
// copy of the character (skinning.js), farther than FAR_METRES with the farthest (140 triangles: the NPCs of a camp
// 30 m off are a few dozen pixels tall, and under SwiftShader each of their triangles cost as much as one of the
// terrain's), nearer with the full one, and an actor whose pose or copy changed is
// skinned again (on the CPU: skinning.js); an actor outside the camera's view is neither skinned nor drawn (its
// skins are drawn without culling: under SwiftShader an NPC behind a hill cost as much as one in sight). Actors do not cast the sun's shadow-map shadow (the map is the static
// terrain's: scene.js); each stands on a soft dark disc instead.
//
// Treasures are gold; a buried one carries a label saying how deep it lies (the frame's objects[].depth: dig that
// far). What E would take (the frame's "use") is ringed, turned to the camera, and labelled with what E does.

import * as THREE from "./vendor/three.module.js";
import { GLTFLoader } from "./vendor/jsm/loaders/GLTFLoader.js";
import { clone as cloneSkinned } from "./vendor/jsm/utils/SkeletonUtils.js";
import { MeshoptSimplifier } from "./vendor/meshopt_simplifier.js";
import { FAR_ERROR, FAR_SHARE, lightSkin, lighterGeometry, skinData, skinGeometry, skinOnCpu,
  vertexLight } from "./skinning.js";
import { SUN_DIRECTION, THREE_LIGHTS } from "./shaders.js";
import { disposeSprite, textSprite } from "./labels.js";

export const v3 = (a) => new THREE.Vector3(a[0], a[1], a[2]);
const UP = new THREE.Vector3(0, 1, 0);
// An actor's bounds for culling: a sphere CULL_RADIUS m (times its scale) around the point 1 m (times its scale)
// above its feet (a CesiumMan is under 2 m tall; a swing of its arms or the enemy's blade stays within).
const CULL_RADIUS = 2.5, CULL_SPHERE = new THREE.Sphere();

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

// Show ``text`` (none for "") in a sprite ``up`` (in the object's units) above ``object``, made again only when the
// text changes.
const NAME_ABOVE = 1.8; // m above a player's feet its name's label is centred (the label's foot clears a 1.8 m head)

function label(object, text, colour, up = 0.6) {
  const old = object.userData.label;
  if ((old?.userData.text ?? "") === text) return;
  if (old) {
    object.remove(old);
    disposeSprite(old);
  }
  object.userData.label = null;
  if (!text) return;
  const sprite = textSprite(text, colour);
  sprite.name = `label:${text}`;
  sprite.position.set(0, up, 0);
  object.add(sprite);
  object.userData.label = sprite;
}

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

// Tints per kind (the model's texture is multiplied by them) so the player, NPCs and the enemy are told apart.
const KIND_TINTS = { player: 0xffd27a, npc: 0x8fb8ff, enemy: 0xff7a6a };
const BLADE_COLOUR = 0xb0b8c0;
const SHOVEL_COLOUR = 0x8a6d4a; // the player's shovel: a wooden shaft and blade
const BLADE_GLOW = 0xff5a00; // emissive while the blade cuts (the frame's contact is not null)

export const DETAIL_METRES = 2.5; // nearer the camera than this, an actor is drawn with the full character
export const FAR_METRES = 12; // farther than this, with the farthest copy (about a pixel's error at the floor's 0.45)
const SHADOW_RADIUS = 0.5, SHADOW_OPACITY = 0.45; // m, and darkness at the centre of the disc under an actor

// The model faces +Z; a yaw of 0 faces -Z (the player's view convention): turn it half a turn more.
const MODEL_YAW = Math.PI;

// A soft dark disc (the shadow an actor stands on), its alpha falling from the centre to the rim.
function shadowDisc() {
  const size = 32, data = new Uint8Array(size * size * 4).fill(255);
  for (let y = 0; y < size; y++) {
    for (let x = 0; x < size; x++) {
      const r = Math.hypot(x + 0.5 - size / 2, y + 0.5 - size / 2) / (size / 2);
      data[4 * (y * size + x) + 3] = Math.round(255 * Math.max(0, 1 - r * r) ** 1.5);
    }
  }
  const texture = new THREE.DataTexture(data, size, size, THREE.RGBAFormat);
  texture.magFilter = texture.minFilter = THREE.LinearFilter;
  texture.needsUpdate = true;
  const material = new THREE.MeshBasicMaterial({ color: 0x000000, map: texture, transparent: true,
    opacity: SHADOW_OPACITY, depthWrite: false, polygonOffset: true, polygonOffsetFactor: -2, polygonOffsetUnits: -4 });
  const disc = new THREE.Mesh(new THREE.CircleGeometry(SHADOW_RADIUS, 16).rotateX(-Math.PI / 2), material);
  disc.position.y = 0.04;
  disc.name = "shadow";
  return disc;
}
const SHADOW = shadowDisc();

// One actor's character: the template cloned (its skinned meshes hidden: each is drawn as a "skin" mesh, skinned
// on the CPU in world space), tinted by ``kind``. ``levels``: per template geometry, the full and the lighter
// geometry with their skinData, and the farthest (``far``).
function characterObject(template, kind, joints, tints, levels) {
  const model = cloneSkinned(template);
  const bones = {};
  const skins = [];
  model.traverse((o) => {
    if (o.isBone) bones[o.name] = o;
    if (!o.isSkinnedMesh) return;
    o.visible = false;
    const { full, light, far } = levels.get(o.geometry);
    const skin = new THREE.Mesh(skinGeometry(full.geometry), tints[kind]);
    skin.name = "skin";
    skin.frustumCulled = false; // its positions change with the pose; the bounds are never computed
    skin.matrixAutoUpdate = skin.matrixWorldAutoUpdate = false; // world space already
    skins.push({ mesh: o, skin, full: { ...full, drawn: skin.geometry },
      light: { ...light, drawn: light === full ? skin.geometry : skinGeometry(light.geometry) },
      far: { ...far, drawn: far === full ? skin.geometry : skinGeometry(far.geometry) }, level: null });
  });
  const group = new THREE.Group();
  group.userData.bones = joints.map((name) => bones[name] || bones[THREE.PropertyBinding.sanitizeNodeName(name)]);
  group.userData.kind = kind;
  group.userData.skins = skins;
  group.userData.posed = false; // the pose changed since the skins were last written
  group.add(model, SHADOW.clone(), ...skins.map((s) => s.skin));
  if (kind === "enemy" || kind === "player") { // the chainsaw's blade; the player's shovel while it digs
    const blade = new THREE.Mesh(new THREE.BoxGeometry(1, 1, 1),
      new THREE.MeshLambertMaterial({ color: kind === "enemy" ? BLADE_COLOUR : SHOVEL_COLOUR, emissive: 0x000000 }));
    blade.name = "blade";
    group.userData.blade = blade;
  }
  return group;
}

// A character's skins (world space, as skinned with the character at userData.skinnedAt) moved to where it stands
// now: between two poses only the page's own player moves (placeOwn), and the skin follows without a new skinning.
function shiftSkins(object) {
  const at = object.userData.skinnedAt, p = object.position;
  if (!at) return;
  for (const skin of object.userData.skins) skin.skin.matrixWorld.makeTranslation(p.x - at.x, p.y - at.y, p.z - at.z);
}

function poseCharacter(object, entry, actorsGroup) {
  object.position.set(...entry.position);
  object.rotation.set(0, THREE.MathUtils.degToRad(entry.yaw) + MODEL_YAW, 0);
  object.scale.setScalar(entry.scale ?? 1);
  const bones = object.userData.bones;
  const r = entry.rotations;
  for (let j = 0; j < bones.length; j++) { // (NaN: a far actor's joint never sent, left as it is)
    if (!bones[j] || Number.isNaN(r[4 * j])) continue;
    bones[j].quaternion.set(r[4 * j], r[4 * j + 1], r[4 * j + 2], r[4 * j + 3]);
  }
  if (bones[0]) bones[0].position.set(...entry.root);
  object.userData.posed = true;
  const blade = object.userData.blade;
  if (blade) blade.visible = Boolean(entry.blade); // the player's shovel shows only while it digs
  if (blade && entry.blade) {
    if (!blade.parent) actorsGroup.add(blade); // in world space, where the game says the blade is
    placeBone(blade, v3(entry.blade[0]), v3(entry.blade[1]), 0.07);
    if (entry.kind === "enemy") {
      blade.material.color.setHex(entry.contact ? 0xffc090 : BLADE_COLOUR);
      blade.material.emissive.setHex(entry.contact ? BLADE_GLOW : 0x000000);
    }
  }
}

export class Actors {
  constructor(group) {
    this.group = group; // the scene's "actors" group
    this.meshes = new Map(); // name -> Object3D
    this.character = null; // { template, joints, tints, levels } once loaded
    this.blend = new Float32Array(16 * 256); // skinOnCpu's bone matrices (up to 256 bones)
    this.light = vertexLight(THREE_LIGHTS, SUN_DIRECTION); // the skins' light (lightSkin)
    this.characterState = "none"; // none, loading, loaded, failed
  }

  // Load the hello's character once (later hellos reuse it); on failure the old figures stay, with a warning.
  useCharacter(character) {
    if (!character || this.characterState === "loading" || this.characterState === "loaded") return;
    this.characterState = "loading";
    new GLTFLoader().load(character.url, async (gltf) => {
      let source = null;
      const skinned = [];
      gltf.scene.traverse((o) => {
        if (!o.isSkinnedMesh) return;
        source ??= o.material;
        skinned.push(o.geometry);
      });
      const tints = {};
      for (const [kind, tint] of Object.entries(KIND_TINTS)) {
        tints[kind] = new THREE.MeshBasicMaterial({ map: source?.map ?? null, color: tint, vertexColors: true });
      }
      const levels = new Map(); // template geometry -> { full, light: { geometry, data }, far: the same }
      let simplifier = null;
      try {
        await MeshoptSimplifier.ready;
      } catch (error) {
        simplifier = error;
        console.warn(`voxelworld: no lighter character (${error?.message || error}); drawing the full one at any distance`);
      }
      for (const geometry of skinned) {
        const full = { geometry, data: skinData(geometry) };
        const lighter = simplifier ? null : lighterGeometry(geometry);
        const farthest = simplifier ? null : lighterGeometry(geometry, FAR_SHARE, FAR_ERROR, ["Permissive"]);
        levels.set(geometry, { full, light: lighter ? { geometry: lighter, data: skinData(lighter) } : full,
          far: farthest ? { geometry: farthest, data: skinData(farthest) } : full });
      }
      this.character = { template: gltf.scene, joints: character.joints, tints, levels };
      this.characterState = "loaded";
    }, undefined, (error) => {
      this.characterState = "failed";
      console.warn(`voxelworld: the character ${character.url} did not load (${error?.message || error}); ` +
                   "drawing capsules instead");
    });
  }

  // Before a picture: E's ring turned to the camera at ``eye`` (its position); each character drawn with the full
  // mesh when nearer ``eye`` than DETAIL_METRES, with the lighter copy beyond, with the farthest beyond FAR_METRES;
  // its skin written again when its pose
  // or its copy changed. With ``frustum`` (the camera's view, a THREE.Frustum), a character wholly outside it is
  // not drawn (nor skinned).
  prepare(eye, frustum = null) {
    if (this.useMark?.visible) this.useMark.userData.ring.lookAt(eye);
    for (const object of this.meshes.values()) {
      const skins = object.userData.skins;
      if (!skins) continue;
      const scale = object.scale.x;
      CULL_SPHERE.center.copy(object.position).addScaledVector(UP, scale);
      CULL_SPHERE.radius = CULL_RADIUS * scale;
      const seen = !frustum || frustum.intersectsSphere(CULL_SPHERE);
      for (const skin of skins) skin.skin.visible = seen;
      if (!seen) continue;
      const distance = object.position.distanceTo(eye);
      const level = distance < DETAIL_METRES ? "full" : distance < FAR_METRES ? "light" : "far";
      const stale = object.userData.posed || skins.some((s) => s.level !== level);
      if (!stale || !object.visible) {
        shiftSkins(object);
        continue;
      }
      object.updateWorldMatrix(true, true);
      for (const skin of skins) {
        const { data, drawn } = skin[level];
        skin.skin.geometry = drawn;
        skinOnCpu(skin.mesh, data, drawn, this.blend);
        lightSkin(drawn, this.light);
        skin.level = level;
      }
      object.userData.posed = false;
      (object.userData.skinnedAt ??= new THREE.Vector3()).copy(object.position);
      shiftSkins(object);
    }
  }

  // How many skins each kind of actor has in the scene, how many are drawn with a lighter copy (the farthest
  // included: ``farthest``), and whether the character loaded (tests).
  characterCounts() {
    const counts = { state: this.characterState, skinned: 0, lighter: 0, farthest: 0, player: 0, npc: 0, enemy: 0 };
    for (const object of this.meshes.values()) {
      for (const skin of object.userData.skins ?? []) {
        counts.skinned++;
        if (skin.level && skin.level !== "full" && skin[skin.level].drawn !== skin.full.drawn) counts.lighter++;
        if (skin.level === "far" && skin.far.drawn !== skin.full.drawn) counts.farthest++;
        counts[object.userData.kind]++;
      }
    }
    return counts;
  }

  clear() {
    this.meshes.clear();
  }

  // The player's object (its character, or the capsule standing in for it), or null: what the camera fades.
  player() {
    return this.meshes.get(`character:player:${this.own}`) ?? this.meshes.get(`figure:player:${this.own}`) ?? null;
  }

  // An actor as this page draws it: its own player hidden in the first-person view, the other players named.
  placeActor(object, entry, firstPerson) {
    const own = entry.kind === "player" && entry.name === this.own;
    object.visible = !(firstPerson && own);
    if (entry.kind === "player") label(object, own ? "" : entry.name, "#ffe08a", NAME_ABOVE);
    if (!own) return;
    (object.userData.served ??= new THREE.Vector3()).copy(object.position); // where the frame puts it (placeOwn)
    const blade = object.userData.blade;
    if (blade) (blade.userData.served ??= new THREE.Vector3()).copy(blade.position);
  }

  // Draw this page's own player with its feet at ``feet`` ([x, y, z]: where predict.js shows it, not where the
  // last frame put it): its character, disc and name moved, its skin and shovel shifted along (not skinned again).
  placeOwn(feet) {
    const object = this.player(), served = object?.userData.served;
    if (!served || !feet) return;
    object.position.set(feet[0], feet[1], feet[2]);
    const blade = object.userData.blade;
    if (blade?.userData.served) blade.position.copy(blade.userData.served).add(object.position).sub(served);
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
  update(frame, world, firstPerson, colour, own = "player") {
    this.own = own; // the name of this page's own player (the one a watching page follows: the world's own)
    for (const object of this.meshes.values()) object.userData.seen = false;
    if (this.character) this.updateCharacters(frame, firstPerson);
    else this.updateFigures(frame, world, firstPerson);
    for (const item of frame.objects ?? []) {
      const object = this.actor(`object:${item.name}`, () => {
        const geometry = objectGeometries[item.kind] || objectGeometries.fragment;
        const tint = item.kind === "treasure" ? new THREE.Color(0xffd700) : colour(item.material);
        return new THREE.Mesh(geometry, new THREE.MeshLambertMaterial({ color: tint }));
      });
      object.position.set(...item.position);
      if (item.kind === "treasure") label(object, item.depth > 0 ? `${item.depth.toFixed(1)} m deep` : "", "#ffd84a");
    }
    for (const [name, object] of this.meshes) {
      if (!object.userData.seen) this.remove(name, object);
    }
    this.markUseTarget(frame.use ?? null, (frame.objects ?? []).some((o) => o.kind === "held" || o.kind === "bullet"));
  }

  // Ring what E would take (``use``: the frame's, or null) and say under it what E does with it (``holding``:
  // the player's hands are full, so a fragment is not picked up).
  markUseTarget(use, holding) {
    if (!this.useMark) {
      this.useMark = new THREE.Group();
      this.useMark.name = "use-target";
      const ring = new THREE.Mesh(new THREE.TorusGeometry(1, 0.08, 8, 40),
        new THREE.MeshBasicMaterial({ color: 0xffffff, depthTest: false, transparent: true, opacity: 0.9 }));
      ring.renderOrder = 9;
      this.useMark.add(ring);
      this.useMark.userData.ring = ring;
    }
    const mark = this.useMark, ring = mark.userData.ring, target = use && this.meshes.get(`object:${use.name}`);
    if (mark.parent !== this.group) this.group.add(mark); // (the scene's reset empties the group)
    mark.visible = !!target;
    mark.userData.use = target ? { ...use } : null;
    if (!target) return;
    mark.position.copy(target.position);
    const treasure = use.kind !== "fragment";
    ring.scale.setScalar(treasure ? 0.5 : 0.3);
    ring.material.color.setHex(use.kind === "buried" ? 0xff9a3c : treasure ? 0xfff2a0 : 0xffffff);
    const does = { treasure: "E: open", fragment: holding ? "hands full" : "E: pick up", buried: "" }[use.kind];
    label(mark, does ?? "", "#ffffff", treasure ? -0.65 : -0.45);
  }

  // Every actor a posed CesiumMan.
  updateCharacters(frame, firstPerson) {
    const { template, joints, tints, levels } = this.character;
    for (const entry of frame.characters ?? []) {
      const object = this.actor(`character:${entry.kind}:${entry.name}`,
        () => characterObject(template, entry.kind, joints, tints, levels));
      poseCharacter(object, entry, this.group);
      this.placeActor(object, entry, firstPerson);
    }
  }

  // The stand-ins while the character is not loaded (or could not be): a capsule per actor, of its kind's colour
  // (the player's and NPCs' sizes from the hello, scaled as the actor), the enemy's blade beside it.
  updateFigures(frame, world, firstPerson) {
    for (const entry of frame.characters ?? []) {
      const size = entry.kind === "player" ? world.player : world.npc, scale = entry.scale ?? 1;
      const object = this.actor(`figure:${entry.kind}:${entry.name}`,
        () => capsule(size.radius * scale, size.height * scale, capsuleMaterials[entry.kind] ?? capsuleMaterials.npc));
      object.position.set(...entry.position);
      object.rotation.y = THREE.MathUtils.degToRad(entry.yaw);
      if (entry.blade) {
        if (!object.userData.blade) {
          object.userData.blade = new THREE.Mesh(new THREE.BoxGeometry(1, 1, 1),
            new THREE.MeshLambertMaterial({ color: BLADE_COLOUR }));
          this.group.add(object.userData.blade);
        }
        const blade = object.userData.blade;
        placeBone(blade, v3(entry.blade[0]), v3(entry.blade[1]), 0.06);
        blade.material.color.setHex(entry.contact ? 0xff6a00 : BLADE_COLOUR);
      }
      this.placeActor(object, entry, firstPerson);
    }
  }

  remove(name, object) {
    this.group.remove(object);
    if (object.userData.label) disposeSprite(object.userData.label);
    const blade = object.userData.blade;
    if (blade) {
      this.group.remove(blade);
      blade.material.dispose();
    }
    for (const skin of object.userData.skins ?? []) {
      skin.full.drawn.dispose();
      skin.light.drawn.dispose();
      skin.far.drawn.dispose();
    }
    const shared = new Set([SHADOW.material, ...(this.character ? Object.values(this.character.tints) : [])]);
    object.traverse((o) => { if (o.material && !shared.has(o.material)) o.material.dispose?.(); });
    this.meshes.delete(name);
  }
}
