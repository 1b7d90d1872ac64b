// The browser-side runners of the external tools (seed 000 §2.4.1, §3.5):
// fvtt_read, fvtt_write, fvtt_query and dice_roll, each run with the
// permissions of the user whose browser runs it. A refusal is a result the
// model reads ({error}), not an exception: the chat goes on.
import { getConfig, getGame } from "./env.mjs";
import { canUserAccess, canUserModify } from "./permissions.mjs";
import { deliverImage } from "./images.mjs";

/** Document types the tools accept, and their Foundry names and collections. */
export const DOCUMENT_TYPES = Object.freeze({
  actor: { name: "Actor", collection: "actors", create: "ACTOR_CREATE" },
  item: { name: "Item", collection: "items", create: "ITEM_CREATE" },
  journal_entry: { name: "JournalEntry", collection: "journal", create: "JOURNAL_CREATE" },
  scene: { name: "Scene", collection: "scenes", create: "" },
  rollable_table: { name: "RollableTable", collection: "tables", create: "" },
});

/** The server keeps at most 64 KiB of a tool result; stay under it. */
const MAX_RESULT_CHARS = 60000;

/**
 * @typedef {object} ToolContext
 * @property {any} user the Foundry user the tools run as
 * @property {{writes: number, maxWrites: number}} budget fvtt_write calls this request may still make
 * @property {import("./api.mjs").HearthClient} [client] delivers the library images fvtt_write names as hearth-image:<id>
 */

/** A value fvtt_write replaces with the delivered image's Foundry path. */
const IMAGE_REF = /^hearth-image:(\d+)$/;

/**
 * Replace each "hearth-image:<id>" string in data, however deep, with the
 * Foundry path of that library image, delivered directly by the server
 * or shuttled through FilePicker. The same id is delivered once.
 * @param {any} data
 * @param {ToolContext} ctx
 * @returns {Promise<any>}
 */
export async function resolveImages(data, ctx) {
  /** @type {Map<string, Promise<string>>} */
  const paths = new Map();
  /** @param {string} id */
  const deliver = (id) => {
    if (!paths.has(id)) {
      if (!ctx.client) throw new ToolError("This client cannot import library images (not connected to Hearth).");
      const client = ctx.client;
      paths.set(
        id,
        deliverImage(client, id).then(
          (r) => r.path,
          (err) => {
            throw new ToolError(`Could not import hearth-image:${id} into Foundry: ${err instanceof Error ? err.message : String(err)}`);
          },
        ),
      );
    }
    return /** @type {Promise<string>} */ (paths.get(id));
  };
  /**
   * @param {any} v
   * @returns {Promise<any>}
   */
  const walk = async (v) => {
    if (typeof v === "string") {
      const m = IMAGE_REF.exec(v.trim());
      return m ? deliver(m[1]) : v;
    }
    if (Array.isArray(v)) return Promise.all(v.map(walk));
    if (v && typeof v === "object") {
      /** @type {Record<string, any>} */
      const out = {};
      for (const [k, x] of Object.entries(v)) out[k] = await walk(x);
      return out;
    }
    return v;
  };
  return walk(data);
}

/** A tool refused or failed: the model gets the message. */
export class ToolError extends Error {}

/**
 * @param {string} type
 * @returns {{name: string, collection: string, create: string}}
 */
function typeInfo(type) {
  const info = /** @type {Record<string, {name: string, collection: string, create: string}>} */ (DOCUMENT_TYPES)[type];
  if (!info) throw new ToolError(`Unknown document_type "${type}"; use one of ${Object.keys(DOCUMENT_TYPES).join(", ")}.`);
  return info;
}

/**
 * @param {string} type
 * @returns {any} the world collection of that type
 */
function collectionOf(type) {
  const info = typeInfo(type);
  const c = /** @type {any} */ (getGame())[info.collection];
  if (!c) throw new ToolError(`This world has no ${info.name} collection.`);
  return c;
}

/**
 * Find a document by id, then by exact name.
 * @param {any} collection
 * @param {string} idOrName
 * @returns {any}
 */
function find(collection, idOrName) {
  return collection.get(idOrName) ?? collection.getName?.(idOrName) ?? collection.find((/** @type {any} */ d) => d.name === idOrName) ?? null;
}

/**
 * The document's data for the model, without what only Foundry needs.
 * @param {any} doc
 * @returns {Record<string, unknown>}
 */
export function serialize(doc) {
  const data = /** @type {Record<string, any>} */ (doc.toObject ? doc.toObject() : { ...doc });
  delete data._stats;
  delete data.flags;
  delete data.ownership;
  let out = data;
  if (JSON.stringify(out).length > MAX_RESULT_CHARS) {
    // Too big for the model: embedded documents become their names.
    out = { ...data };
    for (const k of ["items", "effects", "pages", "results", "tokens", "walls", "lights", "drawings", "notes", "sounds", "tiles"]) {
      if (Array.isArray(out[k])) out[k] = out[k].map((/** @type {any} */ e) => ({ _id: e._id, name: e.name ?? e.text, type: e.type }));
    }
  }
  return out;
}

/**
 * A summary any user with LIMITED permission may see.
 * @param {any} doc
 * @returns {{id: string, name: string, type?: string, img?: string}}
 */
function limitedView(doc) {
  /** @type {{id: string, name: string, type?: string, img?: string}} */
  const v = { id: doc.id, name: doc.name };
  if (doc.type) v.type = doc.type;
  if (doc.img) v.img = doc.img;
  return v;
}

/**
 * fvtt_read: one document, in full for OBSERVER, as a summary for LIMITED.
 * @param {{document_type: string, document_id: string}} args
 * @param {ToolContext} ctx
 */
export async function fvttRead(args, ctx) {
  const coll = collectionOf(args.document_type);
  const doc = find(coll, String(args.document_id ?? ""));
  // The same answer for missing and forbidden, so hidden documents do not leak.
  const denied = `No ${args.document_type} "${args.document_id}" that you may see.`;
  if (!doc || !canUserAccess(doc, ctx.user, "LIMITED")) throw new ToolError(denied);
  if (!canUserAccess(doc, ctx.user, "OBSERVER")) return { ...limitedView(doc), permission: "limited" };
  return serialize(doc);
}

/**
 * Whether doc's data matches filter: each key a dot path, each value equal.
 * @param {any} data
 * @param {Record<string, unknown>} filter
 * @returns {boolean}
 */
function matches(data, filter) {
  return Object.entries(filter).every(([path, want]) => {
    const got = path.split(".").reduce((/** @type {any} */ o, k) => (o == null ? undefined : o[k]), data);
    if (typeof want === "string" && typeof got === "string") return got.toLowerCase() === want.toLowerCase();
    return JSON.stringify(got) === JSON.stringify(want);
  });
}

/**
 * fvtt_query: documents of a type matching a filter, among those the user
 * may see. Users with LIMITED permission may match on name and type only.
 * @param {{document_type: string, filter?: Record<string, unknown>, limit?: number}} args
 * @param {ToolContext} ctx
 */
export async function fvttQuery(args, ctx) {
  const coll = collectionOf(args.document_type);
  const filter = args.filter && typeof args.filter === "object" ? args.filter : {};
  const limit = Math.max(1, Math.min(Number(args.limit) || 20, 100));
  const publicKeys = new Set(["name", "type"]);
  const found = [];
  let total = 0;
  for (const doc of coll.contents ?? Array.from(coll.values())) {
    if (!canUserAccess(doc, ctx.user, "LIMITED")) continue;
    const full = canUserAccess(doc, ctx.user, "OBSERVER");
    if (!full && !Object.keys(filter).every((k) => publicKeys.has(k))) continue;
    if (!matches(full ? doc.toObject?.() ?? doc : limitedView(doc), filter)) continue;
    total++;
    if (found.length < limit) found.push(limitedView(doc));
  }
  return { document_type: args.document_type, total, documents: found };
}

/**
 * fvtt_write: create, update or delete, with OWNER permission (create: the
 * user's create permission for that type; scenes and tables: GM only).
 * At most maxActionsPerRequest writes per chat request.
 * @param {{document_type: string, operation: string, data: any}} args
 * @param {ToolContext} ctx
 */
export async function fvttWrite(args, ctx) {
  const info = typeInfo(args.document_type);
  if (ctx.budget.writes >= ctx.budget.maxWrites) {
    throw new ToolError(`This request may make at most ${ctx.budget.maxWrites} changes (setting maxActionsPerRequest); ask the user to continue in a new request.`);
  }
  let data = args.data && typeof args.data === "object" ? { ...args.data } : {};
  const isGM = ctx.user?.isGM || ctx.user?.role >= 4;
  switch (args.operation) {
    case "create": {
      const allowed = isGM || (info.create !== "" && ctx.user?.can?.(info.create) === true);
      if (!allowed) throw new ToolError(`You may not create ${args.document_type} documents.`);
      const cls = getConfig()?.[info.name]?.documentClass;
      if (!cls?.create) throw new ToolError(`Cannot create ${info.name} documents here.`);
      delete data._id;
      // Images are imported only for a write that is allowed.
      data = await resolveImages(data, ctx);
      ctx.budget.writes++;
      const doc = await cls.create(data);
      return { operation: "create", ...limitedView(doc) };
    }
    case "update":
    case "delete": {
      const id = String(data._id ?? data.id ?? "");
      if (!id) throw new ToolError(`${args.operation} needs data._id, the document's id.`);
      const doc = find(collectionOf(args.document_type), id);
      if (!doc || !canUserAccess(doc, ctx.user, "LIMITED")) throw new ToolError(`No ${args.document_type} "${id}" that you may see.`);
      if (!canUserModify(doc, ctx.user)) throw new ToolError(`You do not own ${doc.name}; only its owner or a GM may change it.`);
      if (args.operation === "update") data = await resolveImages(data, ctx);
      ctx.budget.writes++;
      if (args.operation === "delete") {
        await doc.delete();
        return { operation: "delete", id: doc.id, name: doc.name };
      }
      delete data.id;
      data._id = doc.id;
      await doc.update(data);
      return { operation: "update", ...limitedView(doc) };
    }
    default:
      throw new ToolError(`Unknown operation "${args.operation}"; use create, update or delete.`);
  }
}

/**
 * dice_roll through Foundry's Roll, posted to the chat log as the user's
 * roll (in the user's roll mode) so everyone who should sees it.
 * @param {{formula: string, label?: string}} args
 * @param {ToolContext} _ctx
 */
export async function diceRoll(args, _ctx) {
  const formula = String(args.formula ?? "").trim();
  const RollClass = /** @type {typeof Roll} */ (/** @type {any} */ (globalThis).Roll);
  if (!formula || (RollClass.validate && !RollClass.validate(formula))) throw new ToolError(`"${formula}" is not a dice formula Foundry understands, e.g. 2d6+1.`);
  const roll = new RollClass(formula);
  await roll.evaluate();
  const dice = roll.dice.map((d) => ({ faces: d.faces, results: d.results.map((r) => r.result) }));
  /** @type {any} */
  const messageData = { flavor: args.label || undefined };
  await roll.toMessage(messageData);
  return { formula: roll.formula, label: args.label ?? "", total: roll.total, result: roll.result, dice };
}

/** The runners by tool name. */
export const RUNNERS = Object.freeze({
  fvtt_read: fvttRead,
  fvtt_write: fvttWrite,
  fvtt_query: fvttQuery,
  dice_roll: diceRoll,
});

/**
 * Run an external tool; a refusal or failure becomes {error: message}.
 * @param {string} name
 * @param {any} args
 * @param {ToolContext} ctx
 * @returns {Promise<unknown>}
 */
export async function runTool(name, args, ctx) {
  const run = /** @type {Record<string, (a: any, c: ToolContext) => Promise<unknown>>} */ (RUNNERS)[name];
  if (!run) return { error: `This client has no tool "${name}".` };
  try {
    return await run(args ?? {}, ctx);
  } catch (err) {
    return { error: err instanceof Error ? err.message : String(err) };
  }
}
