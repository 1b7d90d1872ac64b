// The character library in the games area: the list (open a sheet,
// delete), one character's sheet at #/characters/ID, and the creation
// wizard at #/characters/new — race, class, background, ability scores,
// skills, name, review — which asks the server at every step
// (POST /api/characters/preview) and shows its refusals beside the field
// they name, then saves to the library (POST /api/characters).

import {ApiError} from "./api.js";
import {h, link, replace} from "./dom.js";

const ABBR = {strength: "STR", dexterity: "DEX", constitution: "CON", intelligence: "INT", wisdom: "WIS", charisma: "CHA"};

// STEPS are the wizard's steps; FIELDS says on which step the server's
// refusal of each Choices field is shown.
const STEPS = ["race", "class", "background", "abilities", "skills", "story", "review"];
const FIELDS = {
  race: "race", subrace: "race", ability_bonuses: "race",
  class: "class", fighting_style: "class", armor: "class", shield: "class", weapon: "class",
  background: "background", extra_languages: "background",
  scores: "abilities",
  skills: "skills", race_skills: "skills", expertise: "skills",
  name: "story", level: "story",
};

// randomSeed is a seed for the server's rolls and backstory templates.
function randomSeed() {
  const a = new Uint32Array(1);
  crypto.getRandomValues(a);
  return a[0] || 1;
}

const signed = (n) => (n >= 0 ? "+" : "−") + Math.abs(n);

// characterTable lists library characters: name, what they are, actions.
export function characterTable(app, list, onDelete) {
  const t = app.t;
  if (!list.length) return h("p", {id: "no-characters"}, t("chars.none"));
  const rows = list.map((s) => {
    const c = s.character || {};
    const name = c.name || s.id;
    const actions = h("td", {class: "actions"},
      link(`#/characters/${encodeURIComponent(s.id)}`, {class: "button", "data-open-character": s.id, "aria-label": t("chars.open_named", {name})}, t("chars.open")));
    actions.append(h("button", {type: "button", class: "danger", "data-delete-character": s.id, "aria-label": t("chars.delete_named", {name}),
      onclick: () => confirmDelete(app, actions, s, name, onDelete)}, t("chars.delete")));
    return h("tr", {"data-character": s.id},
      h("th", {scope: "row"}, name),
      h("td", {}, t("chars.what", {level: c.level || 1, race: c.race_name || c.race || "", class: c.class_name || c.class || ""})),
      actions);
  });
  return h("div", {class: "scroll"}, h("table", {id: "characters"},
    h("thead", {}, h("tr", {},
      h("th", {scope: "col"}, t("chars.col.name")),
      h("th", {scope: "col"}, t("chars.col.what")),
      h("th", {scope: "col"}, t("chars.col.actions")))),
    h("tbody", {}, rows)));
}

function confirmDelete(app, cell, s, name, done) {
  const t = app.t;
  const yes = h("button", {type: "button", class: "danger", id: "confirm-delete-character", onclick: async () => {
    try {
      await app.api.del(`/api/characters/${encodeURIComponent(s.id)}`);
      app.notify(t("chars.deleted", {name}), false);
      done();
    } catch (e) {
      app.fail(e);
    }
  }}, t("games.confirm_yes"));
  replace(cell, h("div", {class: "confirm", role: "group", "aria-label": t("chars.delete_named", {name})},
    h("p", {}, t("chars.confirm", {name})), yes,
    h("button", {type: "button", class: "secondary", onclick: done}, t("games.cancel"))));
  yes.focus();
}

// sheetList is a built character's sheet as a description list.
export function sheetList(t, c, sheet) {
  const rows = [];
  const add = (k, v) => {
    if (v === undefined || v === null || v === "" || (Array.isArray(v) && !v.length)) return;
    rows.push(h("dt", {}, t("sheet." + k)), h("dd", {}, Array.isArray(v) ? v.join(", ") : String(v)));
  };
  add("name", c.name);
  add("class", [c.race_name, c.class_name, t("sheet.level_n", {n: c.level || 1})].filter(Boolean).join(" "));
  add("background", c.background_name);
  add("hp", c.max_hit_points);
  add("ac", c.armor_class);
  add("speed", c.speed);
  add("abilities", Object.keys(ABBR).filter((a) => c.abilities && a in c.abilities)
    .map((a) => `${ABBR[a]} ${c.abilities[a]} (${signed((c.modifiers || {})[a] || 0)})`));
  add("saves", c.saving_throws);
  add("skills", Object.entries(c.skill_modifiers || {}).filter(([k]) => (c.skill_proficiencies || []).includes(k))
    .map(([k, v]) => `${k.replaceAll("_", " ")} ${signed(v)}`));
  add("languages", c.languages);
  add("features", c.class_features);
  add("traits", c.racial_traits);
  if (c.attack) add("attack", `${c.attack.name} ${signed(c.attack.bonus)}, ${c.attack.damage} ${c.attack.damage_type}`);
  if (c.spell_save_dc) add("spells", t("sheet.spells_line", {dc: c.spell_save_dc, attack: signed(c.spell_attack_bonus || 0)}));
  const story = c.story || {};
  add("backstory", story.backstory || (sheet && sheet.backstory));
  add("personality", story.personality_traits);
  add("ideals", story.ideals);
  add("bonds", story.bonds);
  add("flaws", story.flaws);
  return h("dl", {class: "sheet-list"}, rows);
}

// CharacterView is one library character's sheet.
export class CharacterView {
  constructor(app, id) {
    this.app = app;
    this.t = app.t;
    this.id = id;
    this.closed = false;
  }

  close() { this.closed = true; }

  async open() {
    const t = this.t;
    replace(this.app.main, h("p", {}, t("loading")));
    let v;
    try {
      v = await this.app.api.get(`/api/characters/${encodeURIComponent(this.id)}`);
    } catch (e) {
      if (e instanceof ApiError && e.status === 404) {
        replace(this.app.main, h("h1", {id: "character-h"}, t("chars.missing")), h("p", {}, e.message), link("#/games", {}, "← " + t("game.back")));
        return this.app.focusMain(t("chars.missing"));
      }
      return this.app.fail(e);
    }
    if (this.closed) return;
    const c = v.character || {};
    replace(this.app.main,
      h("nav", {class: "crumbs", "aria-label": t("game.back")}, link("#/games", {id: "back"}, "← " + t("game.back"))),
      h("h1", {id: "character-h", "data-character": v.id}, c.name || v.id),
      h("section", {class: "card", "aria-labelledby": "character-h"}, sheetList(t, c, v.sheet)));
    this.app.focusMain(c.name || v.id);
  }
}

// Wizard creates a character step by step.
export class Wizard {
  constructor(app) {
    this.app = app;
    this.t = app.t;
    this.closed = false;
    this.step = 0;
    this.errors = {}; // field → the server's words
    this.preview = null;
    this.story = randomSeed();
  }

  close() { this.closed = true; }

  async open() {
    const t = this.t;
    replace(this.app.main, h("p", {}, t("loading")));
    try {
      this.cat = await this.app.api.get("/api/characters/options");
    } catch (e) {
      return this.app.fail(e);
    }
    if (this.closed) return;
    this.defaults();
    this.app.focusMain(t("wizard.title"));
    this.render(false);
  }

  race() { return this.cat.races.find((r) => r.id === this.c.race) || this.cat.races[0]; }
  klass() { return this.cat.classes.find((c) => c.id === this.c.class) || this.cat.classes[0]; }
  background() { return this.cat.backgrounds.find((b) => b.id === this.c.background) || this.cat.backgrounds[0]; }
  subrace() { return this.cat.subraces.find((r) => r.id === this.c.subrace); }

  // defaults are choices the rules accept, so Enter alone walks through.
  defaults() {
    const cat = this.cat;
    const human = cat.races.find((r) => r.id === "human") || cat.races[0];
    const fighter = cat.classes.find((c) => c.id === "fighter") || cat.classes[0];
    this.c = {name: "", race: human.id, subrace: "", class: fighter.id, background: cat.backgrounds[0].id,
      method: "standard_array", scores: {}, seed: 0, ability_bonuses: [], skills: [], race_skills: [], expertise: [],
      fighting_style: "", armor: "", shield: false, weapon: ""};
    this.rolls = null;
    this.raceDefaults();
    this.classDefaults();
    this.methodDefaults();
  }

  raceDefaults() {
    const r = this.race();
    this.c.subrace = (r.subraces || [])[0] || "";
    const n = r.choose_ability_bonus || 0;
    this.c.ability_bonuses = this.cat.abilities.filter((a) => !(r.ability_bonus || {})[a]).slice(0, n);
    this.skillDefaults();
  }

  classDefaults() {
    const k = this.klass();
    this.c.fighting_style = k.fighting_styles && (k.fighting_style_level || 1) <= 1 ? k.fighting_styles[0] : "";
    this.skillDefaults();
  }

  // granted are the skills the race and background give already.
  granted() {
    const r = this.race(), s = this.subrace();
    return new Set([...(this.background().skills || []), ...(r.skills || []), ...((s && s.skills) || [])]);
  }

  skillDefaults() {
    if (!this.cat) return;
    const k = this.klass(), r = this.race(), g = this.granted();
    this.c.skills = k.skill_choices.filter((s) => !g.has(s)).slice(0, k.skill_count);
    const taken = new Set([...g, ...this.c.skills]);
    this.c.race_skills = this.cat.skills.map((s) => s.id).filter((s) => !taken.has(s)).slice(0, r.choose_skills || 0);
    this.c.expertise = [...this.c.skills, ...this.c.race_skills, ...g].slice(0, this.expertiseCount());
  }

  expertiseCount() { return ((this.klass().expertise || {})["1"]) || 0; }

  methodDefaults() {
    const a = this.cat.abilities;
    if (this.c.method === "standard_array") a.forEach((x, i) => { this.c.scores[x] = this.cat.standard_array[i]; });
    if (this.c.method === "point_buy") a.forEach((x) => { this.c.scores[x] = 8; });
    if (this.c.method === "rolled") {
      if (this.rolls) a.forEach((x, i) => { this.c.scores[x] = this.rolls[i]; });
      else this.c.scores = {};
    }
  }

  // body is what the server is sent: the choices, a stand-in name until
  // the name step (so earlier steps are checked on their own).
  body(save) {
    const c = this.c;
    const b = {name: c.name.trim() || (STEPS[this.step] === "story" || save ? "" : "?"), race: c.race, subrace: c.subrace || undefined,
      class: c.class, background: c.background, method: c.method, scores: Object.keys(c.scores).length ? c.scores : undefined,
      seed: c.method === "rolled" ? c.seed : undefined,
      ability_bonuses: c.ability_bonuses.length ? c.ability_bonuses : undefined, skills: c.skills,
      race_skills: c.race_skills.length ? c.race_skills : undefined, expertise: c.expertise.length ? c.expertise : undefined,
      fighting_style: c.fighting_style || undefined, armor: c.armor || undefined, shield: c.shield || undefined, weapon: c.weapon || undefined};
    if (save) b.story_seed = this.story;
    return b;
  }

  // render draws the current step; focus goes to its heading after the
  // first, so a screen reader hears where it is.
  render(focus = true) {
    const t = this.t, name = STEPS[this.step];
    const heading = h("h2", {id: "step-h", tabindex: "-1", "data-step": name}, t("wizard.step", {n: this.step + 1, of: STEPS.length, name: t("wizard.step." + name)}));
    const back = this.step > 0 ? h("button", {type: "button", class: "secondary", id: "wizard-back", onclick: () => this.go(this.step - 1)}, t("wizard.back")) : null;
    const next = name === "review" ? h("button", {type: "submit", id: "wizard-save"}, t("wizard.save"))
      : h("button", {type: "submit", id: "wizard-next"}, t("wizard.next"));
    // Its line is kept while empty: "Checking…" must not push the
    // buttons from under the pointer that pressed Next.
    this.status = h("p", {id: "wizard-status", role: "status", class: "hint line"});
    const form = h("form", {id: "wizard", class: "card wizard", "data-step": name, "aria-labelledby": "step-h",
      onsubmit: (ev) => { ev.preventDefault(); this.submit(); }},
    heading, this["step_" + name](), this.status, h("div", {class: "row"}, back, next));
    replace(this.app.main,
      h("nav", {class: "crumbs", "aria-label": t("game.back")}, link("#/games", {id: "back"}, "← " + t("game.back"))),
      h("h1", {id: "wizard-h"}, t("wizard.title")),
      h("ol", {class: "steps", "aria-label": t("wizard.steps")}, STEPS.map((s, i) => h("li", {"aria-current": i === this.step ? "step" : undefined,
        class: i < this.step ? "done" : undefined}, t("wizard.step." + s)))),
      form);
    if (focus) heading.focus();
  }

  go(step) {
    this.step = step;
    this.render();
  }

  // error is the server's refusal of field, shown beside it.
  error(field) {
    const msg = this.errors[field];
    return h("p", {id: "error-" + field, class: "field-error", "data-field": field, hidden: !msg}, msg || "");
  }

  described(field) { return this.errors[field] ? "error-" + field : undefined; }

  select(id, field, options, value, onchange) {
    const sel = h("select", {id, name: field, "aria-describedby": this.described(field), onchange: (ev) => onchange(ev.target.value)},
      options.map(([v, label]) => h("option", {value: v}, label)));
    sel.value = value;
    return sel;
  }

  checks(group, legend, ids, chosen, count, field, disabled = new Set()) {
    const t = this.t;
    const boxes = ids.map((id) => {
      const box = h("input", {type: "checkbox", id: `${group}-${id}`, name: group, value: id, disabled: disabled.has(id),
        onchange: (ev) => {
          const set = new Set(this.c[field]);
          if (ev.target.checked) set.add(id); else set.delete(id);
          this.c[field] = ids.filter((x) => set.has(x));
          replace(this.app.main.querySelector(`#${group}-count`), t("wizard.chosen", {n: this.c[field].length, of: count}));
        }});
      box.checked = chosen.includes(id);
      return h("label", {class: "check", for: `${group}-${id}`}, box, " ", this.skillName(id),
        disabled.has(id) ? h("span", {class: "hint"}, " · " + t("wizard.granted")) : null);
    });
    return h("fieldset", {id: group, "aria-describedby": this.described(field)},
      h("legend", {}, legend), h("p", {id: `${group}-count`, class: "hint", "aria-live": "polite"}, t("wizard.chosen", {n: chosen.length, of: count})),
      h("div", {class: "checks"}, boxes), this.error(field));
  }

  skillName(id) {
    const s = this.cat.skills.find((x) => x.id === id);
    return s ? s.name : id.replaceAll("_", " ");
  }

  step_race() {
    const t = this.t, r = this.race();
    const parts = [h("label", {for: "race"}, t("wizard.race")),
      this.select("race", "race", this.cat.races.map((x) => [x.id, x.name]), this.c.race, (v) => {
        this.c.race = v;
        this.raceDefaults();
        this.render(false);
        this.app.main.querySelector("#race").focus();
      }), this.error("race")];
    if ((r.subraces || []).length) {
      parts.push(h("label", {for: "subrace"}, t("wizard.subrace")),
        this.select("subrace", "subrace", r.subraces.map((id) => [id, (this.cat.subraces.find((s) => s.id === id) || {}).name || id]), this.c.subrace, (v) => {
          this.c.subrace = v;
          this.skillDefaults();
        }));
    }
    const bonus = Object.entries(r.ability_bonus || {}).map(([a, n]) => `${ABBR[a] || a} +${n}`).join(", ");
    parts.push(h("p", {class: "hint", id: "race-about"}, t("wizard.race_about", {bonus: bonus || "—", speed: r.speed, size: r.size})));
    if (r.choose_ability_bonus) {
      const ids = this.cat.abilities;
      const not = new Set(ids.filter((a) => (r.ability_bonus || {})[a]));
      parts.push(h("fieldset", {id: "bonuses", "aria-describedby": this.described("ability_bonuses")},
        h("legend", {}, t("wizard.bonuses", {n: r.choose_ability_bonus})),
        h("div", {class: "checks"}, ids.map((a) => {
          const box = h("input", {type: "checkbox", id: "bonus-" + a, name: "ability_bonuses", value: a, disabled: not.has(a), onchange: (ev) => {
            const set = new Set(this.c.ability_bonuses);
            if (ev.target.checked) set.add(a); else set.delete(a);
            this.c.ability_bonuses = ids.filter((x) => set.has(x));
          }});
          box.checked = this.c.ability_bonuses.includes(a);
          return h("label", {class: "check", for: "bonus-" + a}, box, " ", t("ability." + a));
        }))));
    }
    parts.push(this.error("ability_bonuses"));
    return parts;
  }

  step_class() {
    const t = this.t, k = this.klass();
    const parts = [h("label", {for: "class"}, t("wizard.class")),
      this.select("class", "class", this.cat.classes.map((x) => [x.id, x.name]), this.c.class, (v) => {
        this.c.class = v;
        this.classDefaults();
        this.render(false);
        this.app.main.querySelector("#class").focus();
      }), this.error("class"),
      h("p", {class: "hint", id: "class-about"}, t("wizard.class_about", {die: k.hit_die, saves: (k.saving_throws || []).map((a) => ABBR[a] || a).join(", ")}))];
    if (this.c.fighting_style || (k.fighting_styles && (k.fighting_style_level || 1) <= 1)) {
      parts.push(h("label", {for: "fighting-style"}, t("wizard.style")),
        this.select("fighting-style", "fighting_style", k.fighting_styles.map((s) => [s, s.replaceAll("_", " ")]), this.c.fighting_style, (v) => { this.c.fighting_style = v; }));
    }
    parts.push(this.error("fighting_style"),
      h("label", {for: "armor"}, t("wizard.armor")),
      this.select("armor", "armor", [["", t("wizard.none")], ...this.cat.armor.map((a) => [a.id, `${a.name} (${a.category})`])], this.c.armor, (v) => { this.c.armor = v; }),
      this.error("armor"));
    const shield = h("input", {type: "checkbox", id: "shield", name: "shield", onchange: (ev) => { this.c.shield = ev.target.checked; }});
    shield.checked = this.c.shield;
    parts.push(h("label", {class: "check", for: "shield"}, shield, " ", t("wizard.shield")), this.error("shield"),
      h("label", {for: "weapon"}, t("wizard.weapon")),
      this.select("weapon", "weapon", [["", t("wizard.none")], ...this.cat.weapons.map((w) => [w.id, `${w.name} (${w.damage})`])], this.c.weapon, (v) => { this.c.weapon = v; }),
      this.error("weapon"));
    return parts;
  }

  step_background() {
    const t = this.t, b = this.background();
    return [h("label", {for: "background"}, t("wizard.background")),
      this.select("background", "background", this.cat.backgrounds.map((x) => [x.id, x.name]), this.c.background, (v) => {
        this.c.background = v;
        this.skillDefaults();
        this.render(false);
        this.app.main.querySelector("#background").focus();
      }), this.error("background"),
      h("p", {class: "hint", id: "background-about"}, t("wizard.background_about", {skills: (b.skills || []).map((s) => this.skillName(s)).join(", "), feature: b.feature})),
      this.error("extra_languages")];
  }

  step_abilities() {
    const t = this.t, c = this.c, cat = this.cat;
    const method = this.select("method", "method", cat.methods.map((m) => [m, t("method." + m)]), c.method, (v) => {
      c.method = v;
      this.methodDefaults();
      this.render(false);
      this.app.main.querySelector("#method").focus();
    });
    let values;
    if (c.method === "standard_array") values = cat.standard_array;
    else if (c.method === "point_buy") values = Object.keys(cat.point_buy_costs).map(Number).sort((a, b) => b - a);
    else values = this.rolls || [];
    this.budget = h("p", {id: "budget", "aria-live": "polite", class: "budget"});
    const parts = [h("label", {for: "method"}, t("wizard.method")), method];
    if (c.method === "rolled") {
      parts.push(h("div", {class: "row"}, h("button", {type: "button", id: "roll", onclick: () => this.roll()}, t(this.rolls ? "wizard.reroll" : "wizard.roll")),
        h("span", {id: "rolls", class: "hint"}, this.rolls ? t("wizard.rolls", {rolls: this.rolls.join(", "), seed: c.seed}) : t("wizard.roll_first"))));
    }
    const grid = h("div", {class: "scores"}, cat.abilities.map((a) => {
      const opts = [...new Set(values)].map((v) => [String(v), String(v)]);
      if (c.scores[a] !== undefined && !values.includes(c.scores[a])) opts.push([String(c.scores[a]), String(c.scores[a])]);
      const sel = this.select("score-" + a, a, opts, String(c.scores[a] ?? ""), (v) => {
        c.scores[a] = Number(v);
        this.showBudget();
      });
      sel.setAttribute("aria-describedby", ["budget", this.described("scores")].filter(Boolean).join(" "));
      return h("div", {class: "score"}, h("label", {for: "score-" + a}, t("ability." + a)), sel);
    }));
    parts.push(h("fieldset", {id: "scores", "aria-describedby": this.described("scores")}, h("legend", {}, t("wizard.scores")), grid, this.budget), this.error("scores"));
    this.showBudget();
    return parts;
  }

  // showBudget is point buy's live count: spent of the budget, and how
  // far over; the server has the last word when the step is checked.
  showBudget() {
    const t = this.t, c = this.c, cat = this.cat;
    if (c.method !== "point_buy") {
      replace(this.budget, c.method === "standard_array" ? t("wizard.array_hint", {array: cat.standard_array.join(", ")}) : "");
      return;
    }
    const spent = cat.abilities.reduce((n, a) => n + (cat.point_buy_costs[c.scores[a]] ?? 0), 0);
    const over = spent - cat.point_buy_budget;
    this.budget.dataset.spent = String(spent);
    this.budget.dataset.over = over > 0 ? "yes" : "no";
    replace(this.budget, over > 0 ? t("wizard.budget_over", {spent, budget: cat.point_buy_budget, over})
      : t("wizard.budget", {spent, budget: cat.point_buy_budget, left: -over}));
  }

  // roll asks the server for the six rolls of a new seed.
  async roll() {
    const c = this.c;
    c.seed = randomSeed();
    try {
      const b = this.body(false);
      b.scores = undefined;
      const ch = await this.app.api.post("/api/characters/preview", {...b, name: "?"});
      this.rolls = ch.rolls;
    } catch (e) {
      // Another step's choice may be refused; the rolls come with it.
      if (!(e instanceof ApiError && e.status === 400)) return this.app.fail(e);
      this.rolls = null;
      this.errors = {[e.field || "scores"]: e.message};
    }
    this.methodDefaults();
    this.render(false);
    const btn = this.app.main.querySelector("#roll");
    if (btn) btn.focus();
  }

  step_skills() {
    const t = this.t, k = this.klass(), r = this.race(), g = this.granted();
    const parts = [h("p", {class: "hint", id: "granted"}, t("wizard.granted_list", {skills: [...g].map((s) => this.skillName(s)).join(", ") || "—"})),
      this.checks("skills", t("wizard.skills", {n: k.skill_count}), k.skill_choices, this.c.skills, k.skill_count, "skills", g)];
    if (r.choose_skills) {
      parts.push(this.checks("race-skills", t("wizard.race_skills", {n: r.choose_skills}), this.cat.skills.map((s) => s.id), this.c.race_skills, r.choose_skills, "race_skills", g));
    }
    const n = this.expertiseCount();
    if (n) {
      const prof = [...new Set([...g, ...this.c.skills, ...this.c.race_skills])];
      parts.push(this.checks("expertise", t("wizard.expertise", {n}), prof, this.c.expertise, n, "expertise"));
    }
    return parts;
  }

  step_story() {
    const t = this.t;
    const name = h("input", {id: "char-name", name: "name", type: "text", maxlength: "100", autocomplete: "off", required: true, value: this.c.name,
      "aria-describedby": ["story-hint", this.described("name")].filter(Boolean).join(" "), oninput: (ev) => { this.c.name = ev.target.value; }});
    return [h("label", {for: "char-name"}, t("wizard.name")), name, this.error("name"),
      h("p", {id: "story-hint", class: "hint"}, t("wizard.story_hint")), this.error("level")];
  }

  step_review() {
    const t = this.t;
    const p = this.preview;
    return [h("p", {class: "hint"}, t("wizard.review_hint")), p ? sheetList(t, p) : h("p", {}, t("loading"))];
  }

  // submit checks the step with the server: a refusal of this step's
  // fields (or an earlier one's) is shown beside the field; otherwise on
  // to the next step, or, from the review, into the library.
  async submit() {
    const t = this.t, here = STEPS[this.step];
    if (here === "story" && !this.c.name.trim()) {
      this.errors = {name: t("wizard.name_needed")};
      this.render(false);
      return this.app.main.querySelector("#char-name").focus();
    }
    const save = here === "review";
    this.app.main.querySelector("#wizard").setAttribute("aria-busy", "true");
    replace(this.status, t(save ? "wizard.saving" : "wizard.checking"));
    let out;
    try {
      out = await this.app.api.post(save ? "/api/characters" : "/api/characters/preview", this.body(save));
    } catch (e) {
      if (this.closed) return;
      if (!(e instanceof ApiError && e.status === 400)) {
        replace(this.status);
        return this.app.fail(e);
      }
      const field = e.field || "";
      const at = STEPS.indexOf(FIELDS[field] || here);
      if (at > this.step && !save) return this.advance(null); // a later step's choice: checked there
      this.errors = {[field || "form"]: e.message};
      this.step = at < 0 ? this.step : at;
      this.render(false);
      const shown = this.app.main.querySelector(`#error-${field}`);
      if (shown) {
        const ctl = this.app.main.querySelector(`[aria-describedby~="error-${field}"]:not(fieldset)`) || shown;
        if (ctl.focus) ctl.focus();
      } else {
        replace(this.status, e.message);
        this.status.classList.add("field-error");
      }
      return;
    }
    if (this.closed) return;
    if (save) {
      this.app.notify(t("wizard.saved", {name: out.character.name}), false);
      location.hash = `#/characters/${encodeURIComponent(out.id)}`;
      return;
    }
    this.advance(out);
  }

  advance(preview) {
    if (preview) this.preview = preview;
    this.errors = {};
    this.go(this.step + 1);
  }
}

// modelSelect chooses a party member's agent: the offline agent ("") or
// one of the server's models.
export function modelSelect(t, id, models, value) {
  const names = models.map((m) => m.name || m).filter(Boolean);
  if (value && !names.includes(value)) names.push(value);
  const sel = h("select", {id, name: "model"},
    h("option", {value: ""}, t("new.offline")), names.map((n) => h("option", {value: n}, n)));
  sel.value = value || "";
  return sel;
}
