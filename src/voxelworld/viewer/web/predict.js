// This page's own player, predicted (play protocol 5), as Quake's and Source's clients do: the page moves its
// player at once from the stick it sends, and reconciles with the server's frames as they come.
//
// Every animation frame while the page plays, step() moves the predicted feet across the ground (x, z) with the
// stick, sprint and yaw of the input the page sent last, by the world's own model (voxelworld.game.player,
// Player.begin_frame: the horizontal velocity follows the stick at hello.movement.traction per second on the
// ground, air_control in the air; walk_speed, sprint_speed), and keeps the step with its input's seq (a step
// moves by the input the page sent before it: the world applies an input from when it comes until the next one).
// Each frame says the seq of the newest input the world applied and the frame that first applied it
// (frame.input_seq, input_frame): reconcile() drops the steps of older inputs, starts from the server's feet and
// replays what the world has not applied yet: of that input's steps the time past the frames that applied it
// (1/fps s each), then the steps of the newer inputs. What the picture showed and the new prediction differ by (the
// world's timing, a wall the page does not know of) is blended away over about BLEND_SECONDS; more than
// SNAP_METRES (a teleport, a respawn) is taken at once. The height is the server's: only the ground's two axes are
// predicted.
//
// The steps go by the world's clock: a server that cannot keep up steps its world slower than real time, and the
// page's seconds would run ahead of it. From the frames between those that first applied two of its inputs
// (input_frame) and the page's time between sending them, pace() learns how many of the world's seconds a second of
// the page's gets.

export const BLEND_SECONDS = 0.1; // s: an error is 95% gone after this long
export const SNAP_METRES = 2.0; // m: an error larger than this is taken at once
export const KEPT_STEPS = 600; // steps kept at most (10 s at 60 a second) when no frame acknowledges them
export const PACE_SECONDS = 2.0; // s of the page's inputs over which the world's pace is measured
const PACE_LIMITS = [0.25, 1.5]; // the world's seconds a second of the page's, at least and at most

// Move ``body`` ({x, z, vx, vz}: feet, m, and velocity, m/s, across the ground) by one ``step`` ({dt, move, sprint,
// yaw}) of the world's model with the numbers of ``movement`` (hello.movement); ``grounded``: whether it stands.
export function advance(body, step, movement, grounded) {
  const y = step.yaw * Math.PI / 180;
  const [right, forward] = step.move;
  let sx = Math.cos(y) * right - Math.sin(y) * forward, sz = -Math.sin(y) * right - Math.cos(y) * forward;
  const length = Math.hypot(sx, sz);
  if (length > 1) { sx /= length; sz /= length; }
  const speed = step.sprint && length > 0 && grounded ? movement.sprint_speed : movement.walk_speed;
  const blend = Math.min(1, (grounded ? movement.traction : movement.air_control) * step.dt);
  body.vx += (sx * speed - body.vx) * blend;
  body.vz += (sz * speed - body.vz) * blend;
  body.x += body.vx * step.dt;
  body.z += body.vz * step.dt;
}

export class Prediction {
  constructor() {
    this.movement = null; // hello.movement: nothing is predicted without it
    this.fps = 60; // hello.fps: the world's frames a second, each 1/fps s
    this.reset();
  }

  // Forget everything (a new player, a new connection): the next frame starts it afresh.
  reset() {
    this.steps = []; // {seq, dt (the world's s), move, sprint, yaw, vx, vz} not acknowledged yet, oldest first
    this.sentAt = new Map(); // seq -> performance.now() when the input went, for those not acknowledged yet
    this.body = null; // the predicted feet and velocity across the ground
    this.server = null; // the last frame's player.position
    this.grounded = true;
    this.error = [0, 0]; // m: what is still to be blended away (shown = predicted + error)
    this.ack = null; // the last frame's input_seq
    this.resting = { vx: 0, vz: 0 }; // the velocity the prediction had after the acknowledged step
    this.acked = null; // {seq, since}: the last frame's input_seq and input_frame
    this.paces = []; // [the page's s, the world's s] of the inputs acknowledged lately
    this.rate = 1; // the world's seconds a second of the page's
    this.stats = { reconciled: 0, snapped: 0, replayed: 0 };
  }

  // The input ``seq`` went at ``now`` (ms, performance.now()).
  sent(seq, now) {
    this.sentAt.set(seq, now);
  }

  // The inputs of ``page`` s of the page's got ``world`` s of the world's frames.
  pace(page, world) {
    const paces = this.paces;
    paces.push([page, world]);
    let pages = paces.reduce((sum, [p]) => sum + p, 0);
    while (paces.length > 1 && pages - paces[0][0] >= PACE_SECONDS) pages -= paces.shift()[0];
    const worlds = paces.reduce((sum, [, w]) => sum + w, 0);
    if (pages >= PACE_SECONDS / 4) this.rate = Math.min(Math.max(worlds / pages, PACE_LIMITS[0]), PACE_LIMITS[1]);
  }

  // ``dt`` s since the last picture with the input of ``seq`` (the last one sent): its ``move`` [right, forward],
  // ``sprint`` (held, and stamina left) and ``yaw`` (degrees).
  step(dt, seq, move, sprint, yaw) {
    if (!this.movement || !this.body || !(dt > 0)) return;
    const step = { seq, dt: dt * this.rate, move: [move[0], move[1]], sprint, yaw, vx: 0, vz: 0 };
    advance(this.body, step, this.movement, this.grounded);
    step.vx = this.body.vx;
    step.vz = this.body.vz;
    const last = this.steps[this.steps.length - 1], still = (s) => !s.move[0] && !s.move[1] && !s.vx && !s.vz;
    if (last && last.seq === seq && still(last) && still(step)) last.dt += step.dt; // standing: one step
    else this.steps.push(step);
    if (this.steps.length > KEPT_STEPS) this.steps.shift();
    const fade = Math.exp(-3 * dt / BLEND_SECONDS);
    this.error[0] *= fade;
    this.error[1] *= fade;
  }

  // A ``frame`` (its number, player's position and grounded, input_seq and input_frame: the newest input it
  // applied, null for none yet, and the frame that first did): the server's feet plus what it has not applied,
  // the difference from what was shown blended.
  reconcile(frame) {
    const player = frame.player, ack = frame.input_seq ?? null;
    if (!this.movement || !player) return;
    const shown = this.body && [this.body.x + this.error[0], this.body.z + this.error[1]];
    this.server = player.position;
    this.grounded = player.grounded !== false;
    this.ack = ack;
    let applied = 0; // s of the acknowledged input's steps the world applied
    if (ack !== null) {
      const since = frame.input_frame ?? frame.frame, was = this.acked;
      if (was && was.seq < ack && this.sentAt.has(was.seq) && this.sentAt.has(ack)) {
        this.pace((this.sentAt.get(ack) - this.sentAt.get(was.seq)) / 1000, (since - was.since) / this.fps);
      }
      for (const seq of this.sentAt.keys()) if (seq < ack) this.sentAt.delete(seq);
      this.acked = { seq: ack, since };
      let n = 0;
      while (n < this.steps.length && this.steps[n].seq < ack) n++;
      if (n > 0) this.resting = { vx: this.steps[n - 1].vx, vz: this.steps[n - 1].vz };
      this.steps.splice(0, n);
      applied = (frame.frame - since + 1) / this.fps;
    }
    const body = { x: player.position[0], z: player.position[2], ...this.resting };
    for (const step of this.steps) {
      if (step.seq !== ack) advance(body, step, this.movement, this.grounded);
      else if (step.dt > applied) advance(body, { ...step, dt: step.dt - applied }, this.movement, this.grounded);
      if (step.seq === ack) applied = Math.max(0, applied - step.dt);
    }
    this.body = body;
    this.stats.reconciled++;
    this.stats.replayed += this.steps.length;
    if (!shown) return;
    this.error = [shown[0] - body.x, shown[1] - body.z];
    if (Math.hypot(...this.error) > SNAP_METRES) {
      this.error = [0, 0];
      this.stats.snapped++;
    }
  }

  // Where the player is shown now: [x, y, z] (y the server's), or null before the first frame.
  shown() {
    if (!this.body || !this.server) return null;
    return [this.body.x + this.error[0], this.server[1], this.body.z + this.error[1]];
  }

  // ``frame`` with its player moved to where it is shown (its feet and eye; the camera follows them).
  frame(frame) {
    const shown = this.shown();
    if (!frame || !frame.player || !shown) return frame;
    const dx = shown[0] - frame.player.position[0], dz = shown[2] - frame.player.position[2];
    const eye = frame.player.eye;
    return { ...frame, player: { ...frame.player, position: shown, eye: [eye[0] + dx, eye[1], eye[2] + dz] } };
  }
}
