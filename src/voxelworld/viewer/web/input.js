// The player's input: keys, mouse buttons and mouse look, turned into the protocol's input message
// (docs/specs/play-protocol.md). Every key the page reads is bound in the tables below, in one place (the
// help panel in index.html lists them for the player).

import * as THREE from "./vendor/three.module.js";

// Held buttons: sent in every input message while held (and once for a tap shorter than a frame).
export const BUTTON_KEYS = {
  Space: "suck", KeyF: "punch", KeyR: "pull_out", KeyG: "stance", KeyT: "throw", KeyE: "use", KeyJ: "jump", KeyX: "dig",
  ShiftLeft: "sprint", ShiftRight: "sprint",
};
export const MOUSE_BUTTONS = { 0: "punch", 2: "suck" }; // left and right button, while the mouse is locked
export const MOVE_KEYS = { forward: "KeyW", back: "KeyS", left: "KeyA", right: "KeyD" };
export const LOOK_KEYS = {
  left: ["ArrowLeft"], right: ["ArrowRight"], up: ["ArrowUp"], down: ["ArrowDown"],
};
// Commands of the page itself (Ctrl+S saves too).
export const COMMAND_KEYS = {
  KeyN: "navmesh", KeyC: "collision", KeyV: "camera", KeyK: "save", KeyP: "control", KeyH: "help", KeyM: "mute",
  KeyQ: "quality", KeyI: "details", KeyB: "shop",
};
// While the shop is open (B), these buy its first, second and third upgrade (shop.js).
export const SHOP_KEYS = { Digit1: 0, Digit2: 1, Digit3: 2 };

const LOOK_RATE = 90; // degrees a second for the look keys
const MOUSE_DEGREES = 0.15; // degrees per pixel
const SCROLL_KEYS = ["Space", "ArrowUp", "ArrowDown", "ArrowLeft", "ArrowRight"]; // keys the page must not scroll on
// ms: while the stick is held the input goes again this often, said or not: each one a step of the page's
// prediction that a frame acknowledges (predict.js); a little under a frame of the server's 60 a second.
const RESEND_MS = 15;

export class Input {
  // ``onCommand(name)`` is called with a COMMAND_KEYS name (and "save" for Ctrl+S); ``onCommand("buy", n)`` for a
  // SHOP_KEYS key.
  constructor(canvas, onCommand) {
    this.canvas = canvas;
    this.keys = new Set(); // codes held now
    this.tapped = new Set(); // buttons pressed since the last input message (a tap shorter than a frame counts)
    this.mouseButtons = new Set();
    this.view = { yaw: 0, pitch: 0 }; // this page's view while it plays
    this.playing = false;
    this.lastSent = "";
    this.sentAt = -Infinity; // performance.now() when the last input went
    this.seq = 0; // the seq of the last input sent (frame.input_seq acknowledges it)
    this.next = null; // the input steer() made, until it is sent: {text, fields}
    this.current = { move: [0, 0], sprint: false, yaw: 0 }; // the stick, sprint and yaw of the last input sent
    this.buying = null; // the upgrade to buy with the next input message (shop.js)
    window.addEventListener("keydown", (event) => {
      if (event.ctrlKey && event.code === "KeyS") { event.preventDefault(); onCommand("save"); return; }
      if (event.ctrlKey || event.metaKey || event.altKey) return;
      if (SCROLL_KEYS.includes(event.code)) event.preventDefault();
      if (event.repeat) return;
      this.keys.add(event.code);
      if (BUTTON_KEYS[event.code]) this.tapped.add(BUTTON_KEYS[event.code]);
      if (COMMAND_KEYS[event.code]) onCommand(COMMAND_KEYS[event.code]);
      if (SHOP_KEYS[event.code] !== undefined) onCommand("buy", SHOP_KEYS[event.code]);
    });
    window.addEventListener("keyup", (event) => { this.keys.delete(event.code); });
    window.addEventListener("blur", () => { this.keys.clear(); this.mouseButtons.clear(); });
    canvas.addEventListener("contextmenu", (event) => event.preventDefault());
    canvas.addEventListener("mousedown", (event) => {
      if (document.pointerLockElement !== canvas) {
        canvas.requestPointerLock?.();
        return;
      }
      this.mouseButtons.add(event.button);
      if (MOUSE_BUTTONS[event.button]) this.tapped.add(MOUSE_BUTTONS[event.button]);
    });
    window.addEventListener("mouseup", (event) => this.mouseButtons.delete(event.button));
    document.addEventListener("mousemove", (event) => {
      if (document.pointerLockElement !== canvas || !this.playing) return;
      this.view.yaw -= event.movementX * MOUSE_DEGREES;
      this.view.pitch = THREE.MathUtils.clamp(this.view.pitch - event.movementY * MOUSE_DEGREES, -89, 89);
    });
  }

  // Start playing: the next input message is sent whatever the last one was.
  startPlaying(view) {
    if (view) this.view = view;
    this.lastSent = "";
    this.current = { move: [0, 0], sprint: false, yaw: this.view.yaw }; // nothing sent for this player yet
  }

  heldButtons() {
    const held = new Set(this.tapped);
    for (const code of this.keys) if (BUTTON_KEYS[code]) held.add(BUTTON_KEYS[code]);
    for (const button of this.mouseButtons) if (MOUSE_BUTTONS[button]) held.add(MOUSE_BUTTONS[button]);
    return [...held].sort();
  }

  stick() {
    const axis = (plus, minus) => (this.keys.has(plus) ? 1 : 0) - (this.keys.has(minus) ? 1 : 0);
    return [axis(MOVE_KEYS.right, MOVE_KEYS.left), axis(MOVE_KEYS.forward, MOVE_KEYS.back)];
  }

  pressed(codes) {
    return codes.some((code) => this.keys.has(code)) ? 1 : 0;
  }

  // Turn the view by the look keys over ``dt`` seconds and return the input message, or null when it says what
  // the last one said and the stick is let go or was sent less than RESEND_MS before ``now`` (one message per
  // animation frame at most: well under the server's 120 a second). Each message carries the next seq.
  steer(dt, now = performance.now()) {
    const view = this.view;
    view.yaw += (this.pressed(LOOK_KEYS.left) - this.pressed(LOOK_KEYS.right)) * LOOK_RATE * dt;
    view.pitch = THREE.MathUtils.clamp(view.pitch + (this.pressed(LOOK_KEYS.up) - this.pressed(LOOK_KEYS.down))
      * LOOK_RATE * dt, -89, 89);
    if (view.yaw > 3600 || view.yaw < -3600) view.yaw = ((view.yaw % 360) + 360) % 360;
    const fields = {
      type: "input", move: this.stick(),
      look: [Math.round(view.yaw * 1000) / 1000, Math.round(view.pitch * 1000) / 1000], held: this.heldButtons(),
    };
    if (this.buying) fields.buy = this.buying; // once: the next message leaves it out
    const message = JSON.stringify(fields);
    this.tapped.clear();
    this.buying = null;
    const moving = fields.move[0] !== 0 || fields.move[1] !== 0;
    if (message === this.lastSent && !(moving && now - this.sentAt >= RESEND_MS)) return null;
    this.next = { text: message, fields, now };
    return JSON.stringify({ ...fields, seq: this.seq + 1 });
  }

  // The message steer() returned went.
  sent() {
    const { text, fields, now } = this.next;
    this.lastSent = text;
    this.sentAt = now;
    this.seq++;
    this.current = { move: fields.move, sprint: fields.held.includes("sprint"), yaw: fields.look[0] };
    this.next = null;
  }
}
