// The enemies' cut marks (the frame's "cuts", play protocol; voxelworld.game.kerf_marks): the capsules their blades
// cut with. The terrain draws the vertices within a mark darker (its "cut" attribute, shaders.js), so that a
// freshly sawn face reads against the untouched rock from 10 m and stays marked, near or far.
//
// A whole frame lists the marks the world keeps (the last ``keep``); a delta only the marks added since the frame
// before (its ``total`` counts every mark ever added: the marks listed are the last ones up to it).
//
// Why per vertex, worked out here: a pixel's test against every mark cost the page's pictures four times their time
// under SwiftShader (which runs both sides of a branch, so no bounding test skipped the marks). A vertex's share
// is worked out once, when its chunk's mesh arrives or the marks near it change, and read as one more attribute:
// the pictures cost what they did. The marks reach far enough (CUT_REACH, CUT_FADE: the voxel surface a cut left
// lies up to about half a voxel beyond its capsule) that the voxel-sized triangles of the cut face are dark.

export const CUT_DARKNESS = 0.5; // the share of its colour a cut face loses
// Fully dark up to CUT_REACH voxel edges beyond a mark's radius, fading over CUT_FADE voxel edges more.
export const CUT_REACH = 0.5, CUT_FADE = 0.75;

// A vertex's share of its colour at ``distance`` m beyond a mark's surface, as a byte (255: untouched).
function shareByte(distance, reach, fade, darkness) {
  const t = Math.min(Math.max((distance - reach) / fade, 0), 1);
  const near = 1 - t * t * (3 - 2 * t); // 1 within reach, 0 past the fade (smoothstep)
  return Math.round(255 * (1 - darkness * near));
}

// Distance (m) from the point (x, y, z) to the segment of mark ``m`` ([ax, ay, az, bx, by, bz, radius]), less its
// radius.
function beyond(m, x, y, z) {
  const abx = m[3] - m[0], aby = m[4] - m[1], abz = m[5] - m[2];
  const px = x - m[0], py = y - m[1], pz = z - m[2];
  const length2 = abx * abx + aby * aby + abz * abz;
  const t = length2 > 1e-12 ? Math.min(Math.max((px * abx + py * aby + pz * abz) / length2, 0), 1) : 0;
  return Math.hypot(px - t * abx, py - t * aby, pz - t * abz) - m[6];
}

export class CutMarks {
  constructor() {
    this.marks = []; // [ax, ay, az, bx, by, bz, radius], oldest first
    this.total = 0; // marks the world added, as of the last frame read
    this.darkness = CUT_DARKNESS;
    this.voxel = 1; // m: the world's voxel edge
  }

  get reach() { return (CUT_REACH + CUT_FADE) * this.voxel; } // m beyond a mark's radius that it darkens

  // A new world (its voxel edge, m): no marks.
  reset(voxel) {
    this.marks = [];
    this.total = 0;
    this.voxel = voxel > 0 ? voxel : 1;
  }

  // A frame's ``cuts`` (none: nothing changed); ``whole``: a whole frame (its marks replace the page's). Returns
  // the marks that came or went (to shade the chunks near them again), none when nothing changed.
  take(cuts, whole) {
    if (!cuts || !Array.isArray(cuts.marks) || !Number.isInteger(cuts.total)) return [];
    const before = this.marks;
    const first = cuts.total - cuts.marks.length; // the number of the first mark listed
    let marks;
    if (whole || first > this.total || cuts.total < this.total) marks = cuts.marks.slice();
    else marks = before.concat(cuts.marks.slice(this.total - first));
    const keep = Math.max(Number.isInteger(cuts.keep) ? cuts.keep : marks.length, 0);
    marks = marks.slice(Math.max(0, marks.length - keep));
    this.total = cuts.total;
    const kept = new Set(marks.map(String)), had = new Set(before.map(String));
    const changed = [...before.filter((m) => !kept.has(String(m))), ...marks.filter((m) => !had.has(String(m)))];
    this.marks = marks;
    return changed;
  }

  // Whether any of ``marks`` reaches the sphere ``sphere`` (three.js Sphere: a chunk's bounds).
  touches(sphere, marks = this.marks) {
    const { x, y, z } = sphere.center;
    return marks.some((m) => beyond(m, x, y, z) <= sphere.radius + this.reach);
  }

  // Show the marks or not (the browser tests compare the two pictures): the darkness the next shading uses.
  show(on) {
    this.darkness = on ? CUT_DARKNESS : 0;
  }

  // Set ``geometry``'s "cut" attribute (a byte a vertex, the share of its colour: 255 untouched) from the marks
  // that reach its bounding sphere. Returns whether it changed.
  shade(geometry) {
    const positions = geometry.attributes.position.array, n = positions.length / 3;
    const attribute = geometry.attributes.cut;
    const shares = attribute.array;
    if (!geometry.boundingSphere) geometry.computeBoundingSphere();
    const near = this.marks.filter((m) => this.touches(geometry.boundingSphere, [m]));
    if (!near.length && !geometry.userData.cut) return false;
    const reach = CUT_REACH * this.voxel, fade = CUT_FADE * this.voxel, far = reach + fade;
    let changed = false, any = false;
    for (let v = 0; v < n; v++) {
      const x = positions[3 * v], y = positions[3 * v + 1], z = positions[3 * v + 2];
      let nearest = Infinity;
      for (const m of near) nearest = Math.min(nearest, beyond(m, x, y, z));
      const share = nearest >= far ? 255 : shareByte(nearest, reach, fade, this.darkness);
      if (share !== shares[v]) {
        shares[v] = share;
        changed = true;
      }
      any ||= share !== 255;
    }
    geometry.userData.cut = any;
    if (changed) attribute.needsUpdate = true;
    return changed;
  }
}
