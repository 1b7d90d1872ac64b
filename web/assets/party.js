// Party play in the game view: who acted (name and colour on each turn),
// dice with their breakdown, the party sidebar with drop-in / release,
// the viewer's own sheet, nudges, whispers, the autopilot's speed and the
// branches (fork list, compare side by side, mark canonical).

import {h, replace} from "./dom.js";
import {modelSelect} from "./characters.js";

export const SPEEDS = ["slow", "normal", "fast"];

// Palette turns a member's "#rrggbb" into data-colour="rrggbb", styled by
// one adopted stylesheet, so no style attribute ever enters the page (the
// CSP forbids them). --who is the colour as given (stripes, swatches);
// --who-text the colour darkened until it reads at 4.5:1 on white.
export class Palette {
  constructor() {
    this.sheet = null;
    this.known = new Set();
  }

  attr(hex) {
    const m = /^#?([0-9a-f]{6})$/i.exec(hex || "");
    if (!m) return undefined;
    const c = m[1].toLowerCase();
    if (!this.known.has(c)) {
      if (!this.sheet) {
        this.sheet = new CSSStyleSheet();
        document.adoptedStyleSheets = [...document.adoptedStyleSheets, this.sheet];
      }
      this.known.add(c);
      this.sheet.insertRule(`[data-colour="${c}"] { --who: #${c}; --who-text: ${readable(c)}; }`);
    }
    return c;
  }
}

function luminance(rgb) {
  const [r, g, b] = rgb.map((v) => {
    const s = v / 255;
    return s <= 0.03928 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4;
  });
  return 0.2126 * r + 0.7152 * g + 0.0722 * b;
}

// readable darkens hex until its contrast with white is at least 4.5:1.
export function readable(hex) {
  let rgb = [0, 2, 4].map((i) => parseInt(hex.slice(i, i + 2), 16));
  while ((1.05) / (luminance(rgb) + 0.05) < 4.5) rgb = rgb.map((v) => Math.floor(v * 0.9));
  return "#" + rgb.map((v) => v.toString(16).padStart(2, "0")).join("");
}

// rollText is a roll with its breakdown: "Attack: 1d20+3 = 17 (1d20 [14] +3)".
export function rollText(r) {
  const terms = (r.terms || []).map((t, i) => {
    const sign = i === 0 ? (t.sign < 0 ? "−" : "") : (t.sign < 0 ? "− " : "+ ");
    const dice = (t.dice || []).map((d) => String(d.value) + (d.dropped ? "✗" : "") + (d.exploded ? "!" : ""));
    return sign + t.text + (dice.length ? ` [${dice.join(", ")}]` : "");
  }).join(" ");
  const head = (r.label ? r.label + ": " : "") + `${r.notation} = ${r.total}`;
  return terms ? `${head} (${terms})` : head;
}

// PartyPanel is the party's part of one game view.
export class PartyPanel {
  constructor(view) {
    this.view = view;
    this.app = view.app;
    this.t = view.t;
    this.palette = new Palette();
    this.whispers = new Map(); // id → whisper, as this viewer was sent them
    this.gm = this.app.can("assistant");
  }

  // member returns what the page knows of character id: name, colour.
  member(id) {
    const st = this.view.state || {}, w = st.world || {};
    const sum = (st.party || []).find((p) => p.character === id);
    const ch = (w.characters || {})[id];
    const pm = (w.party || []).find((p) => p.character === id);
    return {id, name: (sum && sum.name) || (ch && ch.name) || id, colour: pm && pm.colour};
  }

  // byline names who acted on a turn and who decided it; nothing for the
  // game master's own turns.
  byline(agent, controller) {
    if (!agent || agent === "dm") return null;
    const m = this.member(agent);
    return h("p", {class: "byline", "data-agent": agent, "data-colour": this.palette.attr(m.colour)},
      h("span", {class: "swatch"}),
      h("strong", {class: "who-name"}, m.name),
      controller ? h("span", {class: "by"}, " · " + this.t("party.played_by", {who: controller})) : null);
  }

  rolls(list) {
    if (!list || !list.length) return null;
    return h("ul", {class: "rolls", "aria-label": this.t("party.rolls")},
      list.map((r) => h("li", {class: "roll"}, "🎲 ", rollText(r))));
  }

  // build makes the sidebar's parts; the view places them.
  build() {
    const t = this.t;
    this.list = h("ul", {id: "party", class: "party"});
    this.sheet = h("div", {id: "sheet", class: "sheet"});
    this.sideEl = h("section", {class: "side card", "aria-labelledby": "party-h"},
      h("h2", {id: "party-h"}, t("party.title")), this.list,
      h("h2", {id: "sheet-h"}, t("party.sheet")), this.sheet);
    this.sideEl.hidden = true;

    const nudge = h("input", {id: "nudge-text", name: "nudge", type: "text", maxlength: "2000", required: true, autocomplete: "off"});
    this.nudgeForm = h("form", {id: "nudge", onsubmit: (ev) => {
      ev.preventDefault();
      const text = nudge.value.trim();
      if (text && this.view.send({type: "nudge", content: text})) {
        nudge.value = "";
        this.app.notify(t("party.nudged"), false);
      }
    }}, h("label", {for: "nudge-text"}, t("party.nudge")),
    h("div", {class: "row"}, nudge, h("button", {type: "submit", id: "nudge-go"}, t("party.nudge_send"))));

    this.whisperLog = h("ul", {id: "whispers", class: "whispers", "aria-live": "polite"});
    this.whisperTo = h("select", {id: "whisper-to", name: "to"});
    const text = h("input", {id: "whisper-text", name: "whisper", type: "text", maxlength: "2000", required: true, autocomplete: "off"});
    this.whisperForm = h("form", {id: "whisper", onsubmit: (ev) => {
      ev.preventDefault();
      const content = text.value.trim();
      if (content && this.view.send({type: "whisper", to: this.whisperTo.value, content})) text.value = "";
    }}, h("label", {for: "whisper-to"}, t("party.whisper_to")), this.whisperTo,
    h("label", {for: "whisper-text"}, t("party.whisper_text")),
    h("div", {class: "row"}, text, h("button", {type: "submit", id: "whisper-go"}, t("party.whisper_send"))));
    this.whisperEl = h("section", {class: "card", "aria-labelledby": "whispers-h", hidden: true},
      h("h2", {id: "whispers-h"}, t("party.whispers")),
      h("p", {class: "hint"}, t(this.gm ? "party.whispers_gm" : "party.whispers_own")),
      this.whisperLog, this.whisperForm, this.nudgeForm);
    this.renderWhispers();
    return {side: this.sideEl, whispers: this.whisperEl};
  }

  // render redraws the sidebar from the state.
  render(st) {
    const t = this.t, me = this.app.user && this.app.user.name;
    const party = st.party || [];
    const held = new Map((st.controls || []).map((c) => [c.character, c.user]));
    this.sideEl.hidden = party.length === 0;
    const colours = new Map(((st.world || {}).party || []).map((p) => [p.character, p.colour]));
    // A redraw keeps the focus where it was (a model dropdown, a button).
    const focused = this.list.contains(document.activeElement) ? document.activeElement.id : "";
    replace(this.list, party.map((p) => {
      const holder = held.get(p.character);
      const mine = holder && holder === me;
      const controller = holder ? t("party.human", {user: holder}) : controllerText(t, p.controller);
      const li = h("li", {"data-character": p.character, "data-colour": this.palette.attr(colours.get(p.character)),
        "data-held": holder ? (mine ? "me" : "other") : undefined, class: p.acting ? "member acting" : "member"},
      h("p", {class: "byline"}, h("span", {class: "swatch"}),
        h("strong", {class: "who-name"}, p.name || p.character), p.class ? " · " + p.class : "",
        p.acting ? h("span", {class: "tag"}, " · " + t("party.acting")) : null),
      h("p", {class: "meta"}, t("party.hp", {hp: p.hp ? t("hp." + p.hp) : "?"}),
        p.conditions && p.conditions.length ? " · " + p.conditions.join(", ") : ""),
      h("p", {class: "meta controller"}, controller));
      li.append(this.controlButton(p, holder, mine));
      if (this.gm && !holder && agentModel(p.controller) !== null) li.append(this.modelPicker(p));
      return li;
    }));
    if (focused) {
      const el = document.getElementById(focused);
      if (el) el.focus();
    }
    this.renderSheet(st);
    const options = this.gm ? party.map((p) => [p.character, p.name || p.character]) : [["dm", t("party.to_dm")]];
    const was = this.whisperTo.value;
    replace(this.whisperTo, options.map(([v, label]) => h("option", {value: v}, label)));
    if (options.some(([v]) => v === was)) this.whisperTo.value = was;
    // A player whispers from the character they hold.
    this.whisperForm.hidden = party.length === 0 || (!this.gm && ![...held.values()].includes(me));
    this.nudgeForm.hidden = false;
    this.whisperEl.hidden = party.length === 0 && this.whispers.size === 0;
  }

  // modelPicker is the GM's choice of the model an agent member plays
  // with, changed at once (a turn of the DM's, which the log shows).
  modelPicker(p) {
    const t = this.t, name = p.name || p.character, id = `member-model-${p.character}`;
    const sel = modelSelect(t, id, this.view.models || [], agentModel(p.controller));
    sel.dataset.member = p.character;
    // Not disabled while it saves: that would take the keyboard's focus.
    sel.addEventListener("change", async () => {
      sel.setAttribute("aria-busy", "true");
      try {
        await this.app.api.put(`/api/sessions/${encodeURIComponent(this.view.id)}/party/${encodeURIComponent(p.character)}/controller`,
          {kind: "ai", model: sel.value || undefined});
        this.app.notify(t("party.model_changed", {name, model: sel.value || t("new.offline")}), false);
      } catch (e) {
        sel.value = agentModel(p.controller);
        this.app.fail(e);
      } finally {
        sel.removeAttribute("aria-busy");
      }
    });
    return h("div", {class: "model-pick"}, h("label", {for: id, class: "meta"}, t("party.model_for", {name})), sel);
  }

  controlButton(p, holder, mine) {
    const t = this.t, name = p.name || p.character;
    if (mine) {
      return h("button", {type: "button", class: "small", "data-release": p.character, "aria-label": t("party.release_named", {name}),
        onclick: () => this.view.send({type: "release_control", character: p.character})}, t("party.release"));
    }
    if (holder && !this.gm) {
      const why = `why-${p.character}`;
      return h("span", {class: "row"},
        // Disabled, but wired: should the page be behind the server, the
        // server's refusal is what the viewer sees.
        h("button", {type: "button", class: "small", disabled: true, "data-drop": p.character, "aria-describedby": why,
          onclick: () => this.view.send({type: "drop_in", character: p.character})}, t("party.drop_in")),
        h("span", {id: why, class: "reason"}, t("party.held_by", {user: holder})));
    }
    return h("button", {type: "button", class: "small", "data-drop": p.character,
      "aria-label": holder ? t("party.take_over_named", {name}) : t("party.drop_in_named", {name}),
      onclick: () => this.view.send({type: "drop_in", character: p.character})}, holder ? t("party.take_over") : t("party.drop_in"));
  }

  // renderSheet shows the held character's sheet whole: the player view
  // sends it whole for the viewer's own character only.
  renderSheet(st) {
    const me = this.app.user && this.app.user.name;
    const mine = (st.controls || []).find((c) => c.user === me);
    const id = mine ? mine.character : (!this.gm && st.character);
    const c = id && ((st.world || {}).characters || {})[id];
    if (!c) {
      replace(this.sheet, h("p", {class: "hint"}, this.t("party.no_sheet")));
      return;
    }
    const rows = [];
    const add = (k, v) => {
      if (v === undefined || v === null || v === "" || (Array.isArray(v) && !v.length)) return;
      rows.push(h("dt", {}, this.t("sheet." + k)), h("dd", {}, Array.isArray(v) ? v.map(show).join(", ") : show(v)));
    };
    const pairs = (m, f) => Object.entries(m || {}).map(f);
    add("name", c.name);
    add("class", [c.race, c.class, c.level ? this.t("sheet.level_n", {n: c.level}) : ""].filter(Boolean).join(" "));
    add("background", c.background);
    if (c.max_hit_points) add("hp", `${c.hit_points}/${c.max_hit_points}`);
    add("ac", c.armor_class);
    add("abilities", pairs(c.abilities, ([k, v]) => `${k.toUpperCase()} ${v}`));
    add("skills", pairs(c.skills, ([k, v]) => `${k} ${v >= 0 ? "+" : ""}${v}`));
    add("conditions", c.conditions);
    add("equipped", c.equipped);
    add("inventory", pairs(c.inventory, ([k, n]) => n > 1 ? `${k} ×${n}` : k));
    add("gold", c.gold);
    add("languages", c.languages);
    add("description", c.description);
    replace(this.sheet, h("dl", {"data-character": id}, rows));
  }

  // whisper records a whisper this connection was sent.
  whisper(m) {
    this.whispers.set(m.id || String(this.whispers.size), m);
    this.renderWhispers();
  }

  reveal(m) {
    const w = this.whispers.get(m.id);
    if (w) w.revealed = true;
    this.renderWhispers();
  }

  renderWhispers() {
    const rows = [...this.whispers.values()].map((w) => {
      const who = (id) => id === "dm" || id === "gm" ? this.t("party.gm") : this.member(id).name;
      return h("li", {"data-whisper": w.id, "data-to": w.to},
        h("strong", {}, this.t("party.whisper_line", {from: who(w.from), to: who(w.to), turn: w.turn})), " ", w.content,
        w.revealed ? h("span", {class: "tag"}, " · " + this.t("party.revealed")) : null);
    });
    replace(this.whisperLog, rows.length ? rows : h("li", {class: "hint", id: "no-whispers"}, this.t("party.no_whispers")));
  }
}

// controllerText says who plays a member nobody holds: the summary's
// controller is an agent's "provider/model", "offline", "none", or the
// user a campaign gave the character to.
function controllerText(t, c) {
  if (!c || c === "none") return t("party.nobody");
  if (c === "offline") return t("party.offline");
  if (c.includes("/")) return t("party.ai", {model: c});
  return t("party.human", {user: c});
}

// agentModel is the model of an agent member's controller summary
// ("provider/model"), "" for the offline agent, null for no agent.
function agentModel(c) {
  if (c === "offline") return "";
  if (c && c.includes("/")) return c.slice(c.indexOf("/") + 1);
  return null;
}

function show(v) {
  if (v && typeof v === "object") return v.name || v.id || JSON.stringify(v);
  return String(v);
}

// Branches is the GM's fork list: switch, mark canonical, and compare two
// branches side by side.
export class Branches {
  constructor(view) {
    this.view = view;
    this.app = view.app;
    this.t = view.t;
  }

  build() {
    const t = this.t;
    this.list = h("ul", {id: "forks", class: "forks"});
    this.a = h("select", {id: "compare-a", name: "a"});
    this.b = h("select", {id: "compare-b", name: "b"});
    this.out = h("div", {id: "compare", class: "compare"});
    return h("section", {class: "card", "aria-labelledby": "forks-h"},
      h("h2", {id: "forks-h"}, t("forks.title")), this.list,
      h("form", {id: "compare-form", onsubmit: (ev) => {
        ev.preventDefault();
        this.compare();
      }}, h("div", {class: "row"},
        h("span", {}, h("label", {for: "compare-a"}, t("forks.a")), this.a),
        h("span", {}, h("label", {for: "compare-b"}, t("forks.b")), this.b)),
      h("button", {type: "submit", id: "compare-go"}, t("forks.compare"))),
      this.out);
  }

  path(p) { return `/api/sessions/${encodeURIComponent(this.view.id)}${p}`; }

  async load() {
    try {
      const res = await this.app.api.get(this.path("/forks"));
      this.render(res.forks || []);
    } catch (e) {
      this.app.fail(e);
    }
  }

  render(forks) {
    const t = this.t;
    replace(this.list, forks.map((f) => h("li", {"data-fork": f.name, "data-canonical": f.is_canonical ? "" : undefined},
      h("strong", {}, f.name), " ", t("forks.line", {fork: f.fork_turn, tip: f.tip}),
      f.current ? h("span", {class: "tag"}, " · " + t("forks.current")) : null,
      f.is_canonical ? h("span", {class: "tag canon"}, " · " + t("forks.canonical")) : null,
      f.description ? h("span", {class: "desc"}, " — " + f.description) : null,
      h("span", {class: "row"},
        f.current ? null : h("button", {type: "button", class: "small", "data-switch": f.name,
          "aria-label": t("forks.switch_named", {name: f.name}), onclick: () => this.act(`/forks/${encodeURIComponent(f.name)}/switch`, "POST", undefined, t("forks.switched", {name: f.name}))}, t("forks.switch")),
        f.is_canonical ? null : h("button", {type: "button", class: "small", "data-canon": f.name,
          "aria-label": t("forks.mark_named", {name: f.name}), onclick: () => this.act(`/forks/${encodeURIComponent(f.name)}`, "PUT", {is_canonical: true}, t("forks.marked", {name: f.name}))}, t("forks.mark"))))));
    for (const [sel, pick] of [[this.a, (f) => f.is_canonical || f.name === "main"], [this.b, (f) => f.current]]) {
      const was = sel.value;
      replace(sel, forks.map((f) => h("option", {value: f.name}, f.name)));
      const def = forks.find(pick);
      sel.value = forks.some((f) => f.name === was) ? was : (def ? def.name : (forks[0] || {}).name || "");
    }
  }

  async act(path, method, body, done) {
    try {
      await this.app.api.request(method, this.path(path), body ?? {});
      this.app.notify(done, false);
      await this.load();
    } catch (e) {
      this.app.fail(e);
    }
  }

  async compare() {
    const t = this.t;
    try {
      const c = await this.app.api.get(this.path(`/compare?a=${encodeURIComponent(this.a.value)}&b=${encodeURIComponent(this.b.value)}`));
      const side = (line) => h("section", {class: "branch", "data-branch": line.branch, "aria-label": line.branch},
        h("h3", {}, t("forks.side", {name: line.branch, tip: line.tip})),
        (line.turns || []).length ? line.turns.map((r) => h("article", {class: "turn", "data-turn": String(r.number)},
          h("p", {class: "input"}, `${r.number}. ${r.input || ""}`), h("p", {}, r.narrative || ""))) : h("p", {class: "hint"}, t("forks.same")),
        line.truncated ? h("p", {class: "hint"}, t("forks.truncated")) : null);
      replace(this.out, h("p", {}, t("forks.ancestor", {turn: c.ancestor})), h("div", {class: "sides"}, side(c.a), side(c.b)));
    } catch (e) {
      this.app.fail(e);
    }
  }
}
