// Game system schema discovery (seed 000 §3.5.2, §3.6): what the client
// sends as system_schema so the backend's system_schema tool can answer.
import { getConfig, getGame } from "./env.mjs";

/** Native support for Mongoose Traveller 2e (seed 000 §3.6). */
export const MGT2E_ENHANCEMENTS = Object.freeze({
  actorTypes: {
    traveller: {
      description: "Player character or NPC with full characteristics",
      characteristics: ["strength", "dexterity", "endurance", "intellect", "education", "social"],
      skillSystem: "Skills are embedded Items with value and optional speciality",
    },
    npc: { description: "Simplified NPC without full career history" },
    creature: { description: "Animal or alien creature with instinct-based behavior" },
    spacecraft: { description: "Starship with tonnage, jump rating, and crew positions" },
    vehicle: { description: "Ground or air vehicle" },
    world: { description: "Planet with UWP (Universal World Profile) data" },
  },
  itemTypes: {
    weapon: { key_fields: ["damage", "range", "traits", "tl"] },
    armour: { key_fields: ["protection", "tl", "radiation"] },
    skill: { key_fields: ["value", "speciality"] },
    term: { key_fields: ["career", "assignment", "rank"] },
  },
  uwpFormat: "Starport-Size-Atmo-Hydro-Pop-Gov-Law-TL (e.g., A867949-C)",
});

/**
 * The running game system. The types declare foundry.packages.System as an
 * empty class in 13.340.1, hence the cast.
 * @returns {{id: string, title: string, version: string}}
 */
function systemInfo() {
  const s = /** @type {any} */ (getGame().system) ?? {};
  return { id: String(s.id ?? ""), title: String(s.title ?? ""), version: String(s.version ?? "") };
}

/** @returns {typeof MGT2E_ENHANCEMENTS | null} */
export function getMgt2eEnhancements() {
  return systemInfo().id === "mgt2e" ? MGT2E_ENHANCEMENTS : null;
}

const MAX_DEPTH = 6;

/**
 * Describe a DataModel schema (a SchemaField) as field name → type.
 * @param {any} field
 * @param {number} [depth]
 * @returns {any}
 */
export function describeSchema(field, depth = 0) {
  if (!field || depth > MAX_DEPTH) return null;
  const fields = field.fields;
  if (fields && typeof fields === "object") {
    /** @type {Record<string, any>} */
    const out = {};
    for (const [name, f] of Object.entries(fields)) out[name] = describeSchema(f, depth + 1);
    return out;
  }
  const kind = fieldKind(field);
  if (kind === "array" || kind === "set") {
    const inner = field.element ? describeSchema(field.element, depth + 1) : "any";
    return [inner];
  }
  if (Array.isArray(field.choices) && field.choices.length) return `${kind} (${field.choices.join(" | ")})`;
  if (field.choices && typeof field.choices === "object" && !Array.isArray(field.choices)) {
    const keys = Object.keys(field.choices);
    if (keys.length) return `${kind} (${keys.join(" | ")})`;
  }
  return kind;
}

/**
 * @param {any} field
 * @returns {string}
 */
function fieldKind(field) {
  const name = String(field?.constructor?.name ?? "");
  const known = /** @type {Record<string, string>} */ ({
    StringField: "string", NumberField: "number", BooleanField: "boolean", ArrayField: "array",
    SetField: "set", ObjectField: "object", HTMLField: "html", FilePathField: "file",
    ColorField: "color", DocumentIdField: "id", ForeignDocumentField: "id", EmbeddedDataField: "object",
    AngleField: "number", AlphaField: "number", IntegerSortField: "number", JSONField: "json",
    EmbeddedCollectionField: "array", DocumentUUIDField: "uuid",
  });
  if (known[name]) return known[name];
  if (name.endsWith("Field")) return name.slice(0, -5).toLowerCase();
  return "any";
}

/**
 * Describe a template.json default data object (v12 systems without data
 * models): each value's JSON type.
 * @param {any} value
 * @param {number} [depth]
 * @returns {any}
 */
export function describeTemplate(value, depth = 0) {
  if (depth > MAX_DEPTH) return null;
  if (Array.isArray(value)) return [value.length ? describeTemplate(value[0], depth + 1) : "any"];
  if (value === null || value === undefined) return "any";
  if (typeof value === "object") {
    /** @type {Record<string, any>} */
    const out = {};
    for (const [k, v] of Object.entries(value)) out[k] = describeTemplate(v, depth + 1);
    return out;
  }
  return typeof value;
}

/**
 * The types of one document class, without Foundry's "base" placeholder.
 * @param {"Actor" | "Item"} documentName
 * @returns {string[]}
 */
function typesOf(documentName) {
  const game = /** @type {any} */ (getGame());
  const types = game.documentTypes?.[documentName] ?? Object.keys(game.model?.[documentName] ?? game.system?.template?.[documentName] ?? {});
  return types.filter((/** @type {string} */ t) => t !== "base" && t !== "types" && t !== "templates");
}

/**
 * The fields of one type: its data model's schema (v12+ systems), or the
 * template.json default data (game.model, then game.system.template).
 * @param {"Actor" | "Item"} documentName
 * @param {string} type
 * @returns {any}
 */
function fieldsOf(documentName, type) {
  const model = getConfig()?.[documentName]?.dataModels?.[type];
  if (model?.schema) return describeSchema(model.schema);
  const game = /** @type {any} */ (getGame());
  const template = game.model?.[documentName]?.[type] ?? game.system?.template?.[documentName]?.[type];
  return template ? describeTemplate(template) : null;
}

/**
 * getSystemCapabilities of seed 000 §3.5.2, plus the mgt2e enhancements
 * when that system runs.
 * @returns {Record<string, unknown>}
 */
export function getSystemCapabilities() {
  const system = systemInfo();
  const actorTypes = typesOf("Actor");
  const itemTypes = typesOf("Item");
  /** @type {Record<string, unknown>} */
  const caps = {
    system: system.id,
    systemTitle: system.title,
    systemVersion: system.version,
    actorTypes,
    itemTypes,
    actorSchemas: Object.fromEntries(actorTypes.map((t) => [t, fieldsOf("Actor", t)])),
    itemSchemas: Object.fromEntries(itemTypes.map((t) => [t, fieldsOf("Item", t)])),
  };
  const mgt2e = getMgt2eEnhancements();
  if (mgt2e) caps.enhancements = mgt2e;
  return caps;
}
