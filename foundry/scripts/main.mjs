// Hearth Seneschal: the entry point Foundry loads. It wires the settings,
// the panel, the /sen-ai command and the connection test into Foundry's
// hooks; everything else lives in modules a harness can load alone.
import { MODULE_ID } from "./constants.mjs";
import { getGame, t } from "./env.mjs";
import { answerOneShot, parseCommand } from "./chat-command.mjs";
import { createPanelClass } from "./panel.mjs";
import { getSystemCapabilities } from "./schema.mjs";
import { buildUserContext, runChat } from "./session.mjs";
import { clientFromSettings, mayUse, refreshModelChoices, registerSettings, setting, testConnection } from "./settings.mjs";

/** @type {import("./panel.mjs").PanelDeps} */
const deps = {
  client: clientFromSettings,
  user: () => getGame().user,
  userContext: () => buildUserContext(getGame().user, getGame().actors),
  systemSchema: getSystemCapabilities,
  maxWrites: () => Number(setting("maxActionsPerRequest")) || 5,
  model: () => String(setting("chatModel") ?? ""),
};

/** @type {any} */
let panel = null;

/** Open the panel, creating it on first use. */
export function openPanel() {
  if (!mayUse(getGame().user)) {
    /** @type {any} */ (globalThis).ui?.notifications?.warn(t("SENESCHAL.NotAllowed"));
    return;
  }
  if (!panel) {
    const Panel = createPanelClass(deps);
    panel = new Panel();
  }
  panel.render(true);
}

/**
 * The connection test menu: a dialog that tests the server and the key and
 * fills the model dropdowns.
 * @returns {any}
 */
function connectionMenuClass() {
  const g = /** @type {any} */ (globalThis);
  const Base = g.FormApplication;
  if (!Base) return null;
  return class SeneschalConnection extends Base {
    /** @returns {Promise<void>} */
    async render() {
      const res = await testConnection(clientFromSettings());
      if (res.ok) g.ui?.notifications?.info(res.message);
      else g.ui?.notifications?.error(res.message);
    }
  };
}

/**
 * The chatMessage hook: answers the one-shot command and stops Foundry
 * posting the command itself.
 * @param {unknown} _log
 * @param {string} message
 * @returns {boolean}
 */
export function onChatMessage(_log, message) {
  const query = parseCommand(message, String(setting("chatCommandPrefix") ?? "/sen-ai"));
  if (query === null) return true;
  const game = getGame();
  if (!mayUse(game.user)) {
    /** @type {any} */ (globalThis).ui?.notifications?.warn(t("SENESCHAL.NotAllowed"));
    return false;
  }
  const ask = (/** @type {string} */ q) => {
    /** @type {import("./api.mjs").ChatRequest} */
    const request = { messages: [{ role: "user", content: q }], user_context: deps.userContext(), system_schema: getSystemCapabilities() };
    const model = deps.model();
    if (model) request.model = model;
    // A one-shot query has nobody to ask at a pause: it ends with what it has.
    return runChat({ client: clientFromSettings(), request, user: game.user, maxWrites: deps.maxWrites() });
  };
  void answerOneShot(query, { user: game.user, ChatMessage: /** @type {any} */ (globalThis).ChatMessage, ask });
  return false;
}

/** Register the module's hooks; Foundry calls this once as the module loads. */
export function install() {
  Hooks.once("init", () => {
    registerSettings(connectionMenuClass());
    /** @type {any} */ (getGame().modules.get(MODULE_ID) ?? {}).api = { openPanel };
  });
  Hooks.once("ready", () => {
    const client = clientFromSettings();
    if (client.configured) refreshModelChoices(client).catch(() => {});
  });
  Hooks.on("chatMessage", onChatMessage);
  // A button above the chat log opens the panel (v12 and v13 both render the chat log).
  Hooks.on("renderChatLog", (/** @type {any} */ _app, /** @type {any} */ html) => {
    if (!mayUse(getGame().user)) return;
    const root = html instanceof HTMLElement ? html : html?.[0];
    if (!root || root.querySelector(".seneschal-open")) return;
    const b = document.createElement("button");
    b.type = "button";
    b.className = "seneschal-open";
    b.textContent = t("SENESCHAL.Name");
    b.addEventListener("click", openPanel);
    root.prepend(b);
  });
}

// Foundry loads this file as the module's entry; a harness page that
// imports the modules alone sets globalThis.SENESCHAL_NO_INSTALL first.
if (!(/** @type {any} */ (globalThis).SENESCHAL_NO_INSTALL) && typeof Hooks !== "undefined") install();
