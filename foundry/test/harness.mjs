// A small Foundry-shaped harness: the globals the module reads (game,
// CONFIG, Roll, ChatMessage, Hooks, FilePicker, ui), with documents that
// carry ownership levels and answer testUserPermission as Foundry does.
// install() puts them on globalThis; the Chromium harness page can do the
// same with this file.

export const LEVELS = { NONE: 0, LIMITED: 1, OBSERVER: 2, OWNER: 3 };

export class User {
  constructor({ id, name, role, character = null, permissions = [] }) {
    Object.assign(this, { id, name, role, character });
    this.permissions = new Set(permissions);
  }
  get isGM() {
    return this.role >= 4;
  }
  can(action) {
    return this.isGM || this.permissions.has(action);
  }
}

export class Document {
  constructor(data, { ownership = {}, documentName = "Actor" } = {}) {
    this.data = structuredClone(data);
    this.ownership = { default: 0, ...ownership };
    this.documentName = documentName;
    this.deleted = false;
  }
  get id() {
    return this.data._id;
  }
  get name() {
    return this.data.name;
  }
  get type() {
    return this.data.type;
  }
  get img() {
    return this.data.img;
  }
  /** Foundry's rule: GMs own everything; else the user's level, or default. */
  testUserPermission(user, level) {
    const want = typeof level === "number" ? level : LEVELS[level];
    if (user.isGM) return true;
    const have = this.ownership[user.id] ?? this.ownership.default;
    return have >= want;
  }
  toObject() {
    return structuredClone({ ...this.data, ownership: this.ownership, flags: {}, _stats: {} });
  }
  async update(changes) {
    for (const [k, v] of Object.entries(changes)) {
      if (k === "_id") continue;
      const path = k.split(".");
      let o = this.data;
      for (const p of path.slice(0, -1)) o = o[p] ??= {};
      o[path.at(-1)] = v;
    }
    return this;
  }
  async delete() {
    this.deleted = true;
    this.collection?.delete(this.id);
    return this;
  }
}

export class Collection extends Map {
  constructor(docs = []) {
    super();
    for (const d of docs) this.add(d);
  }
  add(d) {
    d.collection = this;
    this.set(d.id, d);
    return d;
  }
  get contents() {
    return Array.from(this.values());
  }
  getName(name) {
    return this.contents.find((d) => d.name === name);
  }
  find(fn) {
    return this.contents.find(fn);
  }
}

/** A Roll whose dice come from a queue of results, so tests know the total. */
export function makeRoll(queue) {
  return class Roll {
    static validate(formula) {
      return /^\s*(\d*d\d+|\d+)(\s*[-+]\s*(\d*d\d+|\d+))*\s*$/i.test(formula);
    }
    static messages = [];
    constructor(formula) {
      this.formula = formula.replace(/\s+/g, " ").trim();
      this.dice = [];
      this.total = undefined;
      this.result = "";
    }
    async evaluate() {
      let total = 0;
      const parts = [];
      for (const m of this.formula.replace(/\s+/g, "").matchAll(/([-+]?)(\d*)d(\d+)|([-+]?)(\d+)/gi)) {
        if (m[3]) {
          const n = Number(m[2] || 1);
          const faces = Number(m[3]);
          const results = Array.from({ length: n }, () => ({ result: queue.length ? queue.shift() : 1, active: true }));
          const sum = results.reduce((s, r) => s + r.result, 0);
          this.dice.push({ faces, number: n, results });
          total += m[1] === "-" ? -sum : sum;
          parts.push(results.map((r) => r.result).join(" + "));
        } else {
          const v = Number(m[5]);
          total += m[4] === "-" ? -v : v;
          parts.push(String(v));
        }
      }
      this.total = total;
      this.result = parts.join(" + ");
      this._evaluated = true;
      return this;
    }
    async toMessage(data) {
      Roll.messages.push({ roll: this, ...data });
      return data;
    }
  };
}

export class ChatMessage {
  static created = [];
  constructor(data) {
    this.data = { ...data };
    this.content = data.content;
    this.whisper = data.whisper ?? [];
    this.updates = [];
  }
  static async create(data) {
    const m = new ChatMessage(data);
    ChatMessage.created.push(m);
    return m;
  }
  static getWhisperRecipients(name) {
    return globalThis.game.users.contents.filter((u) => u.name === name || (name === "GM" && u.isGM));
  }
  async update(changes) {
    this.updates.push(changes);
    Object.assign(this, changes);
    return this;
  }
}

export class Hooks {
  static events = new Map();
  static on(name, fn) {
    if (!Hooks.events.has(name)) Hooks.events.set(name, []);
    Hooks.events.get(name).push({ fn, once: false });
  }
  static once(name, fn) {
    if (!Hooks.events.has(name)) Hooks.events.set(name, []);
    Hooks.events.get(name).push({ fn, once: true });
  }
  /** Like Foundry's Hooks.call: stops at the first handler returning false. */
  static call(name, ...args) {
    for (const h of [...(Hooks.events.get(name) ?? [])]) {
      if (h.once) Hooks.events.set(name, Hooks.events.get(name).filter((x) => x !== h));
      if (h.fn(...args) === false) return false;
    }
    return true;
  }
}

export class Settings {
  constructor() {
    this.settings = new Map();
    this.values = new Map();
    this.menus = new Map();
  }
  register(ns, key, cfg) {
    this.settings.set(`${ns}.${key}`, { ...cfg, key, namespace: ns });
  }
  registerMenu(ns, key, cfg) {
    this.menus.set(`${ns}.${key}`, cfg);
  }
  get(ns, key) {
    const id = `${ns}.${key}`;
    if (this.values.has(id)) return this.values.get(id);
    if (!this.settings.has(id)) throw new Error(`setting ${id} is not registered`);
    return this.settings.get(id).default;
  }
  async set(ns, key, v) {
    this.values.set(`${ns}.${key}`, v);
    return v;
  }
}

// Data model fields shaped like foundry.data.fields: the schema
// discovery reads their class names and nesting.
export class StringField {
  constructor(opts = {}) {
    Object.assign(this, opts);
  }
}
export class NumberField extends StringField {}
export class BooleanField extends StringField {}
export class HTMLField extends StringField {}
export class SchemaField {
  constructor(fields) {
    this.fields = fields;
  }
}
export class ArrayField {
  constructor(element) {
    this.element = element;
  }
}

/**
 * Install the harness globals and return handles to them.
 * @param {object} [opts]
 * @param {string} [opts.system] the game system id
 * @param {number[]} [opts.dice] the dice results Roll will produce
 */
export function install({ system = "mgt2e", dice = [] } = {}) {
  const gm = new User({ id: "gm1", name: "Gamemaster", role: 4 });
  const player = new User({ id: "pl1", name: "Ann", role: 1, permissions: ["ITEM_CREATE"] });
  const other = new User({ id: "pl2", name: "Bob", role: 1 });
  const mine = new Document({ _id: "a-mine", name: "Marcus Chen", type: "traveller", system: { characteristics: { strength: 8 } } }, { ownership: { pl1: 3 } });
  const seen = new Document({ _id: "a-seen", name: "Captain Reyes", type: "npc", system: { notes: "knows the route" } }, { ownership: { default: 2 } });
  const glimpse = new Document({ _id: "a-limited", name: "Masked Stranger", type: "npc", system: { secret: "is the Duke" } }, { ownership: { default: 1 } });
  const hidden = new Document({ _id: "a-hidden", name: "The Archduke", type: "npc", system: { secret: "the plot twist" } }, { ownership: { default: 0 } });
  const actors = new Collection([mine, seen, glimpse, hidden]);
  const items = new Collection([new Document({ _id: "i-gun", name: "Autopistol", type: "weapon", system: { damage: "3D-3" } }, { ownership: { default: 2 }, documentName: "Item" })]);
  const created = [];
  const docClass = (documentName, coll) => ({
    async create(data) {
      const d = new Document({ _id: `new${created.length + 1}`, ...data }, { ownership: { [globalThis.game.user.id]: 3 }, documentName });
      coll.add(d);
      created.push(d);
      return d;
    },
  });
  const settings = new Settings();
  const users = new Collection([gm, player, other]);
  const Roll = makeRoll([...dice]);
  const uploads = [];
  const FilePicker = {
    async upload(source, path, file, body, opts) {
      uploads.push({ source, path, file, body, opts, bytes: new Uint8Array(await file.arrayBuffer()) });
      return { status: "success", path: path ? `${path}/${file.name}` : file.name };
    },
    async createDirectory(source, target) {
      uploads.push({ dir: target });
    },
  };
  const i18n = {
    localize: (k) => k,
    format: (k, data) => `${k} ${JSON.stringify(data)}`,
  };
  const game = {
    user: gm,
    users,
    actors,
    items,
    journal: new Collection(),
    scenes: new Collection(),
    tables: new Collection(),
    settings,
    i18n,
    system: { id: system, title: system === "mgt2e" ? "Mongoose Traveller 2nd Edition" : system, version: "1.0" },
    documentTypes: { Actor: ["base", "traveller", "npc"], Item: ["base", "weapon"] },
    model: { Actor: {}, Item: { weapon: { damage: "", range: 0, traits: [""] } } },
    modules: new Map([["hearth-seneschal", { id: "hearth-seneschal" }]]),
  };
  const CONFIG = {
    Actor: {
      documentClass: docClass("Actor", actors),
      dataModels: {
        traveller: { schema: new SchemaField({ characteristics: new SchemaField({ strength: new NumberField(), dexterity: new NumberField() }), bio: new HTMLField(), skills: new ArrayField(new StringField()) }) },
        npc: { schema: new SchemaField({ notes: new StringField(), hostile: new BooleanField() }) },
      },
    },
    Item: { documentClass: docClass("Item", items), dataModels: {} },
  };
  ChatMessage.created = [];
  Hooks.events = new Map();
  const notes = [];
  const ui = { notifications: { info: (m) => notes.push(["info", m]), warn: (m) => notes.push(["warn", m]), error: (m) => notes.push(["error", m]) } };
  Object.assign(globalThis, { game, CONFIG, Roll, ChatMessage, Hooks, ui, foundry: { applications: { apps: { FilePicker } } } });
  return { game, CONFIG, Roll, ChatMessage, Hooks, gm, player, other, actors, items, created, uploads, notes, docs: { mine, seen, glimpse, hidden }, settings };
}
