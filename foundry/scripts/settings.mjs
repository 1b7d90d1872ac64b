// Settings of seed 000 §3.2, and the connection test menu.
import { MODULE_ID } from "./constants.mjs";
import { HearthClient } from "./api.mjs";
import { getGame, t } from "./env.mjs";

/** The settings' keys and defaults (seed 000 §3.2). */
export const SETTINGS = Object.freeze({
  backendUrl: { scope: "world", type: String, default: "" },
  apiKey: { scope: "client", type: String, default: "" },
  chatModel: { scope: "world", type: String, default: "" },
  visionModel: { scope: "world", type: String, default: "" },
  enablePlayerAccess: { scope: "world", type: Boolean, default: false },
  maxActionsPerRequest: { scope: "world", type: Number, default: 5 },
  chatCommandPrefix: { scope: "world", type: String, default: "/sen-ai" },
});

/**
 * Read a setting of this module.
 * @param {keyof typeof SETTINGS} key
 * @returns {any}
 */
export function setting(key) {
  return /** @type {any} */ (getGame().settings).get(MODULE_ID, key);
}

/** @returns {HearthClient} a client with the world's server and this user's key */
export function clientFromSettings() {
  return new HearthClient({ baseUrl: setting("backendUrl"), apiKey: setting("apiKey") });
}

/**
 * Whether the current user may use Seneschal: GMs always, players when
 * enablePlayerAccess is on. The server still enforces each key's role.
 * @param {any} user
 * @returns {boolean}
 */
export function mayUse(user) {
  return !!user && (user.isGM || setting("enablePlayerAccess") === true);
}

/**
 * Register the settings and the connection menu; run at init.
 * @param {any} ConnectionMenu the settings menu's application class
 */
export function registerSettings(ConnectionMenu) {
  const settings = /** @type {any} */ (getGame().settings);
  for (const [key, def] of Object.entries(SETTINGS)) {
    /** @type {Record<string, unknown>} */
    const cfg = {
      name: `SENESCHAL.Settings.${key}.Name`,
      hint: `SENESCHAL.Settings.${key}.Hint`,
      scope: def.scope,
      config: true,
      type: def.type,
      default: def.default,
    };
    // The model dropdowns start with the saved value and are filled from
    // /api/models once the server answers (refreshModelChoices).
    if (key === "chatModel" || key === "visionModel") cfg.choices = { "": t("SENESCHAL.Settings.ServerDefault") };
    if (key === "maxActionsPerRequest") cfg.range = { min: 1, max: 50, step: 1 };
    settings.register(MODULE_ID, key, cfg);
  }
  if (ConnectionMenu) {
    settings.registerMenu(MODULE_ID, "connection", {
      name: "SENESCHAL.Settings.connection.Name",
      label: "SENESCHAL.Settings.connection.Label",
      hint: "SENESCHAL.Settings.connection.Hint",
      icon: "fas fa-plug",
      type: ConnectionMenu,
      restricted: false,
    });
  }
}

/**
 * The dropdown entries for models: name and context length (seed 000 §4.3.2).
 * @param {import("./api.mjs").ModelInfo[]} models
 * @param {string} current the saved value, kept even when the server no longer lists it
 * @returns {Record<string, string>}
 */
export function modelChoices(models, current) {
  /** @type {Record<string, string>} */
  const out = { "": t("SENESCHAL.Settings.ServerDefault") };
  for (const m of models) out[m.name] = m.context_length ? `${m.name} (${m.context_length.toLocaleString()} tokens)` : m.name;
  if (current && !(current in out)) out[current] = current;
  return out;
}

/**
 * Fill the chatModel and visionModel dropdowns from GET /api/models.
 * @param {HearthClient} client
 * @returns {Promise<import("./api.mjs").ModelInfo[]>}
 */
export async function refreshModelChoices(client) {
  const models = await client.models();
  const registry = /** @type {any} */ (getGame().settings).settings;
  for (const key of ["chatModel", "visionModel"]) {
    const cfg = registry.get(`${MODULE_ID}.${key}`);
    if (cfg) cfg.choices = modelChoices(models, setting(/** @type {any} */ (key)));
  }
  return models;
}

/**
 * Test the connection with the current settings and describe the outcome.
 * @param {HearthClient} client
 * @returns {Promise<{ok: boolean, message: string}>}
 */
export async function testConnection(client) {
  try {
    const res = await client.testConnection();
    await refreshModelChoices(client);
    return { ok: true, message: t("SENESCHAL.Connection.Ok", { version: res.version, models: String(res.models.length) }) };
  } catch (err) {
    return { ok: false, message: t("SENESCHAL.Connection.Failed", { error: err instanceof Error ? err.message : String(err) }) };
  }
}
