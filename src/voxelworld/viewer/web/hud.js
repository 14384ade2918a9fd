// The HUD: reticle with the material panel, stamina, currency, suck gauge, bullets, what is held, the achievements
// bar chart, and the status line (the goals checklist and the shop: shop.js). Fed by the server's "hud" and "frame" messages (docs/specs/play-protocol.md).
//
// Reach: the reticle carries one mark per action (punch, pull out, suck; index.html gives each its colour), lit
// while the aimed point is within that action's reach and dimmed beyond it; the material panel lists the same
// reaches in metres and the voxel's damage against the damage at which it gives way ("75 / 100", "cannot break").
// Why an action did nothing (the frame's "blocked" events) shows under the reticle for WHY_SECONDS.

const $ = (id) => document.getElementById(id);
// What the player holds, as the HUD names it: a pulled-out piece or a picked-up fragment, a readied bullet.
const HELD_NAMES = { held: "piece", fragment: "piece", bullet: "bullet" };

export const REACH_ACTIONS = ["punch", "pull_out", "suck"]; // one reticle mark each, in this order
export const WHY_SECONDS = 1.5; // how long a blocked action's reason stays on screen

function css(colour) {
  const [r, g, b] = colour.map((c) => Math.round(c * 255));
  return `rgb(${r}, ${g}, ${b})`;
}

function text(element, value) {
  if (element.textContent !== value) element.textContent = value;
}

// The aimed voxel's damage against the damage at which it gives way: "75 / 100", "cannot break" when it
// never does, "gives way at once" for soft ground, the bare damage when the server does not say (a hud message
// without "break_at"). The damage is against the player's tool, whoever did it: the server sends at most
// "break_at" (an enemy's chainsaw leaves voxels at 1300 of rock's 100), so a voxel that gives way at the next hit
// reads "100 / 100 · breaks at the next hit"; the page clamps it too.
export function damageText(aim) {
  if (aim.damage === null || aim.damage === undefined) return "-";
  if (!("break_at" in aim)) return String(aim.damage);
  if (aim.break_at === null) return "cannot break";
  if (aim.break_at === 0) return "gives way at once";
  const damage = Math.min(aim.damage, aim.break_at);
  return damage >= aim.break_at ? `${damage} / ${aim.break_at} · breaks at the next hit` : `${damage} / ${aim.break_at}`;
}

export class Hud {
  constructor() {
    this.materials = new Map(); // name -> {id, name, group, hardness, colour}
    this.last = null;
    this.reticle = $("reticle");
    this.aimPanel = $("aim");
    this.chart = $("achievements");
    this.why = $("why");
    this.whyTimer = null;
    this.said = []; // the reasons shown, newest last, with when (ms, performance.now) each came and went
  }

  setMaterials(materials) {
    this.materials = new Map(materials.map((m) => [m.name, m]));
  }

  colourOf(name) {
    const m = this.materials.get(name);
    return m ? css(m.colour) : "rgb(128, 128, 128)";
  }

  update(hud) {
    this.last = hud;
    const aim = hud.aim;
    if (aim) {
      text($("aim-material"), aim.prop ? `${aim.material} (${aim.prop})` : aim.material);
      $("aim-swatch").style.background = this.colourOf(aim.material);
      text($("aim-hardness"), aim.hardness.toFixed(1));
      text($("aim-damage"), damageText(aim));
      text($("aim-distance"), `${aim.distance.toFixed(1)} m`);
      this.aimPanel.classList.remove("empty");
    } else {
      text($("aim-material"), "nothing aimed at");
      $("aim-swatch").style.background = "transparent";
      text($("aim-hardness"), "-");
      text($("aim-damage"), "-");
      text($("aim-distance"), "-");
      this.aimPanel.classList.add("empty");
    }
    this.showReach(aim);
    const stamina = hud.stamina_max > 0 ? hud.stamina / hud.stamina_max : 0;
    $("stamina-fill").style.width = `${(100 * stamina).toFixed(1)}%`;
    text($("stamina-value"), `${hud.stamina.toFixed(0)} / ${hud.stamina_max.toFixed(0)}`);
    text($("currency"), `currency: ${hud.currency.toFixed(hud.currency % 1 ? 2 : 0)}`);
    $("gauge-fill").style.width = `${(100 * hud.gauge).toFixed(1)}%`;
    $("gauge").classList.toggle("exhausted", hud.exhausted);
    $("gauge").classList.toggle("sucking", hud.sucking);
    text($("gauge-value"), hud.exhausted ? "empty: let go" : `${Math.round(100 * hud.gauge)}%`);
    this.bullets(hud.bullets);
    text($("held"), hud.held ? `holding a ${HELD_NAMES[hud.held.kind] || hud.held.kind} of ${hud.held.material}` : "");
    text($("items"), hud.items.length ? `items: ${hud.items.join(", ")}` : "");
    this.drawAchievements(hud.achievements, hud.thresholds);
    // Each player's share of the digging, when several play (issue #35).
    const shares = hud.shares ?? [];
    text($("shares"), shares.length > 1 ? `by player: ${shares.map(([name, m3]) => `${name} ${m3.toFixed(1)}`)
      .join(" · ")} m³` : "");
  }

  // Each action's mark on the reticle and in the panel: lit when the aim is within its reach, dimmed beyond it
  // (all dimmed when nothing is aimed at). Without the hud's "reach" field, every mark stays lit.
  showReach(aim) {
    const reach = aim && aim.reach;
    let any = false;
    for (const action of REACH_ACTIONS) {
      const inReach = aim ? (reach ? !!reach[action] : true) : false;
      any = any || inReach;
      for (const mark of document.querySelectorAll(`[data-reach="${action}"]`)) mark.classList.toggle("out", !inReach);
      const metres = aim && aim.reaches ? aim.reaches[action] : null;
      text($(`reach-${action}`), typeof metres === "number" ? `${metres.toFixed(1)} m` : "");
    }
    this.reticle.classList.toggle("unreachable", !any);
    this.aimPanel.classList.toggle("far", !!aim && !any);
  }

  // A blocked action's reason (``text`` of a frame's "blocked" event) under the reticle for WHY_SECONDS.
  say(message) {
    const entry = { text: message, shown: performance.now(), hidden: null };
    this.said.push(entry);
    if (this.said.length > 20) this.said.shift();
    text(this.why, message);
    this.why.classList.add("shown");
    clearTimeout(this.whyTimer);
    this.whyTimer = setTimeout(() => {
      this.why.classList.remove("shown");
      entry.hidden = performance.now();
    }, WHY_SECONDS * 1000);
  }

  // The frame's events the HUD answers: blocked actions say why.
  events(list) {
    for (const event of list) {
      if (event.event === "blocked" && event.text) this.say(event.text);
      if (event.event === "outcome" && event.kind === "award") {
        this.toast(`award: ${event.item} (${event.amount} m³ dug)`, "award");
      }
      if (event.event === "goal") this.toast(`goal reached: ${event.text} (${event.reached} / ${event.goals})`, "award");
      if (event.event === "bought") this.toast(`bought: ${event.upgrade.replace("_", " ")} level ${event.level}`);
    }
  }

  bullets(list) {
    text($("bullet-count"), String(list.length));
    const box = $("bullet-list");
    const key = list.join(",");
    if (box.dataset.key === key) return;
    box.dataset.key = key;
    box.replaceChildren();
    const shown = list.slice(-24);
    for (const material of shown) {
      const chip = document.createElement("span");
      chip.className = "bullet";
      chip.title = material;
      chip.style.background = this.colourOf(material);
      box.appendChild(chip);
    }
    // Materials by count, newest last: "rock_interior x3, soil x1".
    const counts = new Map();
    for (const material of list) counts.set(material, (counts.get(material) || 0) + 1);
    text($("bullet-materials"), [...counts].map(([m, n]) => `${m} ×${n}`).join(", "));
  }

  // One bar per material group: the volume removed (m³) against the group's award thresholds (ticks); each
  // bar's scale is the larger of its last threshold and its value.
  drawAchievements(totals, thresholds) {
    const groups = Object.keys(totals);
    const canvas = this.chart;
    const row = 12; // a small chart: a thin bar per group
    const height = 4 + row * Math.max(groups.length, 1);
    if (canvas.height !== height) canvas.height = height;
    const ctx = canvas.getContext("2d");
    ctx.clearRect(0, 0, canvas.width, canvas.height);
    ctx.font = "10px sans-serif";
    ctx.textBaseline = "middle";
    const left = 62, right = canvas.width - 44;
    groups.forEach((group, n) => {
      const y = 2 + n * row;
      const value = totals[group];
      const ticks = thresholds[group] || [];
      const scale = Math.max(value, ticks.length ? ticks[ticks.length - 1] : 1, 1e-9);
      ctx.fillStyle = "#ddd";
      ctx.fillText(group, 4, y + row / 2);
      ctx.fillStyle = "rgba(255,255,255,0.12)";
      ctx.fillRect(left, y + 2, right - left, row - 4);
      const material = [...this.materials.values()].find((m) => m.group === group);
      ctx.fillStyle = material ? css(material.colour) : "#aaa";
      ctx.fillRect(left, y + 2, (right - left) * Math.min(value / scale, 1), row - 4);
      ctx.strokeStyle = "rgba(255,255,255,0.8)";
      for (const t of ticks) {
        const x = left + (right - left) * (t / scale);
        ctx.beginPath();
        ctx.moveTo(x + 0.5, y + 1);
        ctx.lineTo(x + 0.5, y + row - 1);
        ctx.stroke();
      }
      ctx.fillStyle = "#ddd";
      ctx.fillText(`${value.toFixed(value < 10 ? 2 : 1)} m³`, right + 4, y + row / 2);
    });
  }

  // The reticle sits where the aim meets the terrain, projected to the screen (at the centre when it is
  // behind the camera or off screen). The material panel stays at the bottom centre, away from what is aimed
  // at; the reason of a blocked action shows just under the reticle.
  placeReticle(x, y, visible) {
    if (this.reticle.style.left !== `${x}px` || this.reticle.style.top !== `${y}px`) {
      this.reticle.style.left = `${x}px`;
      this.reticle.style.top = `${y}px`;
      this.why.style.left = `${x}px`;
      this.why.style.top = `${y + 30}px`;
    }
    this.reticle.classList.toggle("far", !visible);
  }

  status(message) {
    text($("status"), message);
  }

  toast(message, kind = "info") {
    const box = $("toasts");
    const item = document.createElement("div");
    item.className = `toast ${kind}`;
    item.textContent = message;
    box.appendChild(item);
    while (box.children.length > 4) box.firstChild.remove();
    setTimeout(() => item.remove(), kind === "error" ? 6000 : 3000);
  }
}
