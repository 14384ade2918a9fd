// The page's sound: Web Audio, every sound synthesised here (no files). Footsteps by the material underfoot
// (the material table's "footstep" names), the punch's thud, the hiss while sucking, impacts and landings,
// explosions, the steam of cooled lava, and the chainsaw enemy's buzz, its pitch dropping with the hardness of
// the material its blade cuts.
//
// Browsers start audio only after a user gesture: the AudioContext is made on the page's first key press or
// click. M mutes (input.js's COMMAND_KEYS); the choice is remembered in localStorage under MUTE_KEY.

export const MUTE_KEY = "voxelworld.muted";
const VOLUME = 0.5; // the master gain when not muted
const HEARING = 30; // m: sounds farther from the camera than this are not played

// Filtered noise per footstep name: the band the noise is filtered to (Hz), its Q, how long the burst lasts (s),
// how loud, and an optional ring (a sine, Hz) for hard, resonant ground.
const STEPS = {
  grass: { type: "highpass", hz: 2500, q: 0.7, seconds: 0.09, gain: 0.18 },
  soil: { type: "lowpass", hz: 700, q: 0.9, seconds: 0.08, gain: 0.35 },
  sand: { type: "bandpass", hz: 4200, q: 0.6, seconds: 0.14, gain: 0.2 },
  stone: { type: "bandpass", hz: 1400, q: 2.5, seconds: 0.05, gain: 0.4 },
  rock: { type: "bandpass", hz: 1400, q: 2.5, seconds: 0.05, gain: 0.4 },
  wood: { type: "bandpass", hz: 650, q: 4, seconds: 0.07, gain: 0.45, ring: 210 },
  metal: { type: "bandpass", hz: 2600, q: 12, seconds: 0.06, gain: 0.35, ring: 1320 },
  glass: { type: "highpass", hz: 3800, q: 6, seconds: 0.05, gain: 0.25, ring: 2400 },
  ice: { type: "highpass", hz: 3200, q: 3, seconds: 0.06, gain: 0.25, ring: 1900 },
  lava: { type: "lowpass", hz: 260, q: 4, seconds: 0.16, gain: 0.4 },
};
const DEFAULT_STEP = { type: "bandpass", hz: 1000, q: 1, seconds: 0.07, gain: 0.3 };

export class Sound {
  // ``hardnessOf(material)``: a material's hardness (for the chainsaw's pitch).
  constructor(hardnessOf) {
    this.hardnessOf = hardnessOf;
    this.context = null;
    this.muted = readMuted();
    this.played = {}; // sound name -> times played (the debug hook reads it)
    this.sucking = false;
    this.saws = new Map(); // enemy name -> {oscillators, gain, filter}
    const start = () => this.start();
    for (const name of ["keydown", "mousedown", "pointerdown", "touchstart"]) {
      window.addEventListener(name, start, { capture: true });
    }
  }

  // Make the AudioContext (on a user gesture; later calls only resume it).
  start() {
    if (this.context) {
      if (this.context.state === "suspended") this.context.resume();
      return;
    }
    const Context = window.AudioContext || window.webkitAudioContext;
    if (!Context) return;
    const context = new Context();
    this.context = context;
    this.master = context.createGain();
    this.master.gain.value = this.muted ? 0 : VOLUME;
    this.master.connect(context.destination);
    this.noise = noiseBuffer(context, 1.0);
    this.hiss = this.loop(noiseBuffer(context, 2.0), { type: "bandpass", hz: 2400, q: 0.8 });
  }

  toggleMute() {
    this.muted = !this.muted;
    try { localStorage.setItem(MUTE_KEY, this.muted ? "1" : "0"); } catch { /* storage refused: still toggles */ }
    if (this.master) this.master.gain.setTargetAtTime(this.muted ? 0 : VOLUME, this.context.currentTime, 0.02);
    return this.muted;
  }

  // What the tests read: whether it plays, the context's state ("waiting" before the first gesture), counts.
  get state() {
    return {
      muted: this.muted, context: this.context ? this.context.state : "waiting",
      gain: this.master ? (this.muted ? 0 : VOLUME) : null, played: { ...this.played }, sucking: this.sucking,
      saws: Object.fromEntries([...this.saws].map(([name, saw]) => [name, saw.pitch])),
    };
  }

  count(name) {
    this.played[name] = (this.played[name] || 0) + 1;
  }

  // Gain for a sound at ``position`` heard from ``listener`` (THREE.Vector3s or arrays); 0 beyond HEARING.
  static loudness(position, listener) {
    if (!position || !listener) return 1;
    const d = Math.hypot(position[0] - listener.x, position[1] - listener.y, position[2] - listener.z);
    return d > HEARING ? 0 : 1 / (1 + 0.08 * d * d);
  }

  // A burst of noise through a filter, with an attack of 4 ms and an exponential tail.
  burst(filter, seconds, gain, when = 0) {
    const context = this.context;
    const t = context.currentTime + when;
    const source = context.createBufferSource();
    source.buffer = this.noise;
    source.playbackRate.value = 0.8 + 0.4 * Math.random();
    const shape = context.createBiquadFilter();
    shape.type = filter.type;
    shape.frequency.value = filter.hz;
    shape.Q.value = filter.q;
    const envelope = context.createGain();
    envelope.gain.setValueAtTime(0.0001, t);
    envelope.gain.exponentialRampToValueAtTime(Math.max(gain, 0.0002), t + 0.004);
    envelope.gain.exponentialRampToValueAtTime(0.0001, t + seconds);
    source.connect(shape).connect(envelope).connect(this.master);
    source.start(t, Math.random() * 0.5);
    source.stop(t + seconds + 0.05);
  }

  // A sine falling from ``from`` to ``to`` Hz over ``seconds`` (thuds, rings, booms).
  tone(from, to, seconds, gain, type = "sine") {
    const context = this.context;
    const t = context.currentTime;
    const oscillator = context.createOscillator();
    oscillator.type = type;
    oscillator.frequency.setValueAtTime(from, t);
    oscillator.frequency.exponentialRampToValueAtTime(Math.max(to, 1), t + seconds);
    const envelope = context.createGain();
    envelope.gain.setValueAtTime(Math.max(gain, 0.0002), t);
    envelope.gain.exponentialRampToValueAtTime(0.0001, t + seconds);
    oscillator.connect(envelope).connect(this.master);
    oscillator.start(t);
    oscillator.stop(t + seconds + 0.05);
  }

  // Noise looping through a filter into a gain held at 0 until it is needed (the suck's hiss).
  loop(buffer, filter) {
    const context = this.context;
    const source = context.createBufferSource();
    source.buffer = buffer;
    source.loop = true;
    const shape = context.createBiquadFilter();
    shape.type = filter.type;
    shape.frequency.value = filter.hz;
    shape.Q.value = filter.q;
    const gain = context.createGain();
    gain.gain.value = 0;
    source.connect(shape).connect(gain).connect(this.master);
    source.start();
    return { source, shape, gain };
  }

  footstep(name, loudness) {
    const step = STEPS[name] || DEFAULT_STEP;
    this.burst(step, step.seconds, step.gain * loudness);
    if (step.ring) this.tone(step.ring, step.ring * 0.97, step.seconds * 2.5, 0.06 * loudness);
    this.count(`footstep:${name || "none"}`);
  }

  // The frame's events, heard from ``listener`` (the camera's position).
  events(list, listener) {
    if (!this.context || this.context.state !== "running") return;
    for (const event of list) {
      const loudness = Sound.loudness(event.position, listener);
      if (loudness === 0) continue;
      if (event.event === "footstep" && event.sound) this.footstep(event.sound, loudness);
      else if (event.event === "landed") {
        const hard = Math.min((event.speed || 0) / 8, 1);
        this.burst({ type: "lowpass", hz: 500, q: 1 }, 0.18, (0.2 + 0.5 * hard) * loudness);
        this.count("landed");
      } else if (event.event === "outcome") this.outcome(event, loudness);
      else if (event.event === "opened") this.treasureChime(event, loudness);
      else if (event.event === "blocked") {
        this.tone(220, 180, 0.12, 0.08, "triangle");
        this.count("blocked");
      }
    }
  }

  outcome(event, loudness) {
    switch (event.kind) {
      case "punch":
        this.tone(140, 45, 0.22, 0.7 * loudness);
        this.burst({ type: "lowpass", hz: 900, q: 1 }, 0.15, 0.5 * loudness);
        break;
      case "dig": // the blade into the ground: a short scrape
        this.burst({ type: "bandpass", hz: 700, q: 1.5 }, 0.18, 0.3 * loudness);
        break;
      case "pull_out":
        this.tone(90, 60, 0.3, 0.4 * loudness);
        this.burst({ type: "bandpass", hz: 500, q: 2 }, 0.3, 0.35 * loudness);
        break;
      case "explode":
        this.tone(70, 28, 1.2, 0.9 * loudness);
        this.burst({ type: "lowpass", hz: 1800, q: 0.7 }, 1.1, 0.9 * loudness);
        break;
      case "cool":
        this.burst({ type: "highpass", hz: 3000, q: 0.7 }, 0.9, 0.35 * loudness);
        break;
      case "attach": case "lost": case "nothing": // a thrown piece hits
        this.burst({ type: "lowpass", hz: 1200, q: 1.5 }, 0.12, 0.45 * loudness);
        break;
      case "bullet":
        this.tone(900, 1300, 0.06, 0.05 * loudness, "triangle");
        break;
      case "throw":
        this.burst({ type: "bandpass", hz: 1800, q: 1 }, 0.2, 0.15 * loudness);
        break;
      default:
        return;
    }
    this.count(event.kind);
  }

  // An opened treasure: a rising arpeggio of bells, one note higher for a treasure that paid currency.
  treasureChime(event, loudness) {
    const context = this.context, notes = event.currency > 0 ? [659, 784, 988, 1319] : [659, 784, 988];
    notes.forEach((hz, n) => {
      const t = context.currentTime + 0.09 * n;
      const oscillator = context.createOscillator();
      oscillator.type = "triangle";
      oscillator.frequency.setValueAtTime(hz, t);
      const envelope = context.createGain();
      envelope.gain.setValueAtTime(0.0001, t);
      envelope.gain.exponentialRampToValueAtTime(0.25 * loudness + 0.0002, t + 0.01);
      envelope.gain.exponentialRampToValueAtTime(0.0001, t + 0.6);
      oscillator.connect(envelope).connect(this.master);
      oscillator.start(t);
      oscillator.stop(t + 0.65);
    });
    this.count("treasure");
  }

  // Called every animation frame: the suck's hiss while ``sucking``; one buzzing saw per enemy in ``enemies``
  // (frame entries with "name", "position", "contact"), loud near ``listener``, low while cutting hard material.
  update(sucking, enemies, listener) {
    this.sucking = sucking;
    if (!this.context) return;
    const now = this.context.currentTime;
    this.hiss.gain.gain.setTargetAtTime(sucking ? 0.22 : 0, now, 0.05);
    if (sucking) this.played.suck = (this.played.suck || 0) + 1;
    const seen = new Set();
    for (const enemy of enemies) {
      seen.add(enemy.name);
      let saw = this.saws.get(enemy.name);
      if (!saw) {
        saw = this.saw();
        this.saws.set(enemy.name, saw);
      }
      const hardness = enemy.contact ? this.hardnessOf(enemy.contact) : 0;
      const pitch = enemy.contact ? 150 / (1 + 0.12 * hardness) : 170; // Hz: idle revs, slower in hard rock
      for (const [n, oscillator] of saw.oscillators.entries()) {
        oscillator.frequency.setTargetAtTime(pitch * (n ? 1.01 : 1), now, 0.08);
      }
      saw.filter.frequency.setTargetAtTime(enemy.contact ? 900 : 1800, now, 0.1);
      const gain = (enemy.contact ? 0.18 : 0.07) * Sound.loudness(enemy.position, listener);
      saw.gain.gain.setTargetAtTime(gain, now, 0.1);
      saw.pitch = pitch;
    }
    for (const [name, saw] of this.saws) {
      if (!seen.has(name)) {
        saw.gain.gain.setTargetAtTime(0, now, 0.05);
        for (const oscillator of saw.oscillators) oscillator.stop(now + 0.3);
        this.saws.delete(name);
      }
    }
  }

  // Two detuned sawtooths through a low-pass filter: an engine's buzz.
  saw() {
    const context = this.context;
    const filter = context.createBiquadFilter();
    filter.type = "lowpass";
    filter.Q.value = 3;
    const gain = context.createGain();
    gain.gain.value = 0;
    filter.connect(gain).connect(this.master);
    const oscillators = [0, 1].map(() => {
      const oscillator = context.createOscillator();
      oscillator.type = "sawtooth";
      oscillator.frequency.value = 170;
      oscillator.connect(filter);
      oscillator.start();
      return oscillator;
    });
    return { oscillators, filter, gain, pitch: 170 };
  }
}

function readMuted() {
  try { return localStorage.getItem(MUTE_KEY) === "1"; } catch { return false; }
}

// ``seconds`` of white noise, mono (deterministic: a fixed linear congruential sequence).
function noiseBuffer(context, seconds) {
  const buffer = context.createBuffer(1, Math.round(context.sampleRate * seconds), context.sampleRate);
  const data = buffer.getChannelData(0);
  let seed = 12345;
  for (let i = 0; i < data.length; i++) {
    seed = (Math.imul(seed, 1664525) + 1013904223) >>> 0;
    data[i] = seed / 2147483648 - 1;
  }
  return buffer;
}
