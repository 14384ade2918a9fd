// The enemies' cut marks (the frame's "cuts", play protocol; voxelworld.game.kerf_marks): the capsules their blades
// cut with, which the terrain shader draws darker (shaders.js cutShade), so that a freshly sawn face reads against
// the untouched rock from 10 m and stays marked.
//
// A whole frame lists the marks the world keeps (the last ``keep``); a delta only the marks added since the frame
// before (its ``total`` counts every mark ever added: the marks listed are the last ones up to it). The marks go to
// the shader as uniforms (cutStart: a and the radius, cutEnd: b, for MAX_CUTS marks), in groups of CUT_GROUP with
// a bounding sphere each (cutGroups: centre and radius, -1 for an empty group), so that a pixel tests a capsule
// only where its group's sphere reaches: a pixel far from every cut costs MAX_CUTS / CUT_GROUP sphere tests.
// Consecutive marks lie along the kerf, so a group's sphere is small.

export const MAX_CUTS = 64; // the shader's marks (voxelworld.game.kerf_marks.MAX_MARKS)
export const CUT_GROUP = 8; // marks per bounding sphere
export const CUT_DARKNESS = 0.45; // the share of its colour a cut face loses
// Where the darkening reaches (``voxel`` m: the world's voxel size): fully dark up to CUT_REACH voxels beyond a
// mark's radius (the voxel surface the cut left lies up to about half a voxel beyond the capsule), fading over
// CUT_FADE voxels more.
export const CUT_REACH = 0.5, CUT_FADE = 0.5;
const FAR = 1e6; // an unused mark's ends: beyond every pixel

// The shader's uniforms for the cut marks (shared by every terrain material: shaders.js terrainUniforms).
export function cutUniforms() {
  return {
    cutStart: { value: new Float32Array(4 * MAX_CUTS).fill(FAR) },
    cutEnd: { value: new Float32Array(4 * MAX_CUTS).fill(FAR) },
    cutGroups: { value: new Float32Array(4 * (MAX_CUTS / CUT_GROUP)).fill(-1) },
    cutDarkness: { value: CUT_DARKNESS },
    cutReach: { value: CUT_REACH * 0.5 },
    cutFade: { value: CUT_FADE * 0.5 },
  };
}

export class CutMarks {
  // ``uniforms``: the terrain's (with cutUniforms').
  constructor(uniforms) {
    this.uniforms = uniforms;
    this.marks = []; // [ax, ay, az, bx, by, bz, radius], oldest first
    this.total = 0; // marks the world added, as of the last frame read
    this.shown = true;
  }

  // A new world: no marks; the darkening reaches by its voxel size (m).
  reset(voxel) {
    this.marks = [];
    this.total = 0;
    this.uniforms.cutReach.value = CUT_REACH * voxel;
    this.uniforms.cutFade.value = CUT_FADE * voxel;
    this.upload();
  }

  // A frame's ``cuts`` (none: nothing changed); ``whole``: a whole frame (its marks replace the page's).
  take(cuts, whole) {
    if (!cuts || !Array.isArray(cuts.marks)) return;
    const first = cuts.total - cuts.marks.length; // the number of the first mark listed
    if (whole || first > this.total || cuts.total < this.total) this.marks = cuts.marks.slice();
    else this.marks = this.marks.concat(cuts.marks.slice(this.total - first));
    const keep = Math.min(Math.max(cuts.keep ?? MAX_CUTS, 0), MAX_CUTS);
    this.marks = this.marks.slice(Math.max(0, this.marks.length - keep));
    this.total = cuts.total;
    this.upload();
  }

  // Show the marks or not (the browser tests compare the two pictures).
  show(on) {
    this.shown = on;
    this.uniforms.cutDarkness.value = on ? CUT_DARKNESS : 0;
  }

  // The marks into the shader's uniforms, with each group's bounding sphere (reaching as far as the darkening).
  upload() {
    const start = this.uniforms.cutStart.value, end = this.uniforms.cutEnd.value;
    const groups = this.uniforms.cutGroups.value;
    const reach = this.uniforms.cutReach.value + this.uniforms.cutFade.value;
    start.fill(FAR);
    end.fill(FAR);
    groups.fill(-1);
    this.marks.forEach((m, i) => {
      start.set([m[0], m[1], m[2], m[6]], 4 * i);
      end.set([m[3], m[4], m[5], 0], 4 * i);
    });
    for (let g = 0; g * CUT_GROUP < this.marks.length; g++) {
      const members = this.marks.slice(g * CUT_GROUP, (g + 1) * CUT_GROUP);
      const centre = [0, 1, 2].map((c) => members.reduce((sum, m) => sum + m[c] + m[c + 3], 0) / (2 * members.length));
      let radius = 0;
      for (const m of members) {
        for (const p of [m.slice(0, 3), m.slice(3, 6)]) radius = Math.max(radius, Math.hypot(p[0] - centre[0], p[1] - centre[1], p[2] - centre[2]) + m[6]);
      }
      groups.set([...centre, radius + reach], 4 * g);
    }
  }
}
