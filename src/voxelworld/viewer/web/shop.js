// The shop panel (B opens and closes it): the tool upgrades currency buys, from the hud message's "shop" (each
// upgrade's title, what a level does, the level bought of its highest, and the next level's cost), and the goals
// checklist on the HUD from its "goals" (docs/specs/play-protocol.md). While the shop is open, a click on an
// upgrade or its number key (input.js SHOP_KEYS) buys it: the page sends the input message's "buy" and the
// server answers with a "bought" event, or a "blocked" one (action "buy") saying why not.

const $ = (id) => document.getElementById(id);

function text(element, value) {
  if (element.textContent !== value) element.textContent = value;
}

export class Shop {
  // ``buy(name)`` asks the server for the upgrade ``name``; it returns false when this page cannot (it watches).
  constructor(buy) {
    this.buy = buy;
    this.panel = $("shop");
    this.list = $("shop-list");
    this.note = $("shop-note");
    this.goals = $("goals");
    this.entries = []; // the hud's "shop", as last shown
    this.key = ""; // what the list shows, to redraw only when it changes
    this.goalsKey = "";
  }

  get open() {
    return !this.panel.hidden;
  }

  // Open or close the panel; opening it frees a locked mouse, so that its rows can be clicked.
  toggle() {
    this.panel.hidden = !this.panel.hidden;
    if (!this.open) return;
    text(this.note, "");
    if (document.pointerLockElement) document.exitPointerLock();
  }

  // Buy the upgrade at ``index`` (0: the first), if the shop is open and it is there.
  choose(index) {
    const entry = this.entries[index];
    if (!this.open || !entry) return;
    if (entry.cost === null) { text(this.note, `${entry.title} is at its highest level`); return; }
    if (!this.buy(entry.name)) text(this.note, "watching: press P to play, then buy");
  }

  update(hud) {
    this.entries = hud.shop || [];
    const currency = hud.currency;
    const key = JSON.stringify([this.entries, currency]);
    if (key !== this.key) {
      this.key = key;
      this.list.replaceChildren(...this.entries.map((entry, n) => this.row(entry, n)));
      text($("shop-currency"), `currency: ${currency.toFixed(currency % 1 ? 2 : 0)}`);
    }
    this.showGoals(hud.goals || []);
  }

  row(entry, n) {
    const button = document.createElement("button");
    button.className = "upgrade";
    button.dataset.upgrade = entry.name;
    const maxed = entry.cost === null;
    button.disabled = maxed || !entry.affordable;
    const pips = "●".repeat(entry.level) + "○".repeat(entry.max_level - entry.level);
    const cost = maxed ? "max" : `${entry.cost}`;
    button.innerHTML = `<span class="key">${n + 1}</span><span class="title"></span><span class="pips">${pips}</span>`
      + `<span class="cost">${cost}</span><span class="what"></span>`;
    button.querySelector(".title").textContent = entry.title;
    button.querySelector(".what").textContent = entry.text;
    button.title = maxed ? "bought to its highest level" : entry.affordable ? `buy for ${entry.cost}`
      : `costs ${entry.cost}: open treasures for currency`;
    button.addEventListener("click", () => this.choose(n));
    return button;
  }

  // The goals checklist: a line per goal, ticked once reached (redrawn only when it changes).
  showGoals(goals) {
    const key = JSON.stringify(goals);
    if (key === this.goalsKey) return;
    this.goalsKey = key;
    const done = goals.filter((g) => g.done).length;
    const items = goals.map((goal) => {
      const line = document.createElement("li");
      line.className = goal.done ? "done" : "";
      line.dataset.goal = goal.name;
      line.textContent = `${goal.done ? "✓" : "○"} ${goal.text}`;
      return line;
    });
    const title = document.createElement("h3");
    title.textContent = `goals ${done} / ${goals.length}`;
    this.goals.replaceChildren(title, ...items);
    this.goals.hidden = goals.length === 0;
  }

  // The frame's events the shop answers: a purchase or its refusal shows in the panel's note line.
  events(list) {
    for (const event of list) {
      if (event.event === "bought") {
        const entry = this.entries.find((e) => e.name === event.upgrade);
        text(this.note, `bought ${entry ? entry.title : event.upgrade} (level ${event.level}) for ${event.cost}`);
      } else if (event.event === "blocked" && event.action === "buy") {
        text(this.note, event.text);
      }
    }
  }
}
