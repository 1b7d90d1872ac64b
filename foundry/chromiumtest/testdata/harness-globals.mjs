// The browser half of the Foundry-shaped harness: foundry/test/harness.mjs
// (documents with ownership, Roll, Hooks, settings) plus what only a page
// has — i18n from the module's lang/en.json, an ApplicationV2 that renders
// into a window element, a chat log that renders ChatMessage content as
// HTML the way Foundry does, and the chat input that fires the chatMessage
// hook. boot() then loads the module as Foundry would: module.json's
// styles and esmodules, then the init and ready hooks.
import { install } from "/module/test/harness.mjs";

const MODULE_ID = "hearth-seneschal";

/**
 * An ApplicationV2 reduced to what the panel uses: a window and its
 * content, sized from options.position as Foundry sizes it (harness.css
 * gives the window Foundry's frame: a column whose content fills it).
 */
class ApplicationV2 {
  static DEFAULT_OPTIONS = {};
  constructor(options = {}) {
    this.options = { ...this.constructor.DEFAULT_OPTIONS, ...options };
    this.element = null;
    this.rendered = false;
  }
  async render() {
    if (!this.element) {
      const w = document.createElement("section");
      w.id = this.options.id;
      w.className = ["application", ...(this.options.classes ?? [])].join(" ");
      const { width, height } = this.options.position ?? {};
      if (width) w.style.width = `${width}px`;
      if (height) w.style.height = `${height}px`;
      const header = document.createElement("header");
      header.className = "window-header";
      header.textContent = globalThis.game.i18n.localize(this.options.window?.title ?? "");
      const content = document.createElement("div");
      content.className = "window-content";
      w.append(header, content);
      document.body.append(w);
      this.element = w;
    }
    const result = await this._renderHTML({}, {});
    this._replaceHTML(result, this.element.querySelector(".window-content"), {});
    this.rendered = true;
    return this;
  }
}

/** ChatMessage whose content the chat log shows as HTML, as Foundry's does. */
class ChatMessage {
  static created = [];
  constructor(data) {
    this.id = `msg${ChatMessage.created.length + 1}`;
    this.content = data.content ?? "";
    this.whisper = data.whisper ?? [];
    this.speaker = data.speaker ?? {};
    this.author = data.author ?? globalThis.game.user.id;
    this.updates = 0;
  }
  static async create(data) {
    const m = new ChatMessage(data);
    ChatMessage.created.push(m);
    m.render();
    return m;
  }
  async update(changes) {
    Object.assign(this, changes);
    this.updates++;
    this.render();
    return this;
  }
  render() {
    let li = document.querySelector(`#chat-log [data-message-id="${this.id}"]`);
    if (!li) {
      li = document.createElement("li");
      li.className = "chat-message";
      li.dataset.messageId = this.id;
      document.getElementById("chat-log").append(li);
    }
    li.dataset.whisper = this.whisper.join(",");
    li.innerHTML = this.content;
  }
}

/**
 * Install the globals as the given user, load the module and run its
 * hooks (ready fetches the model list in the background, as in Foundry).
 * @param {{backendUrl: string, apiKey: string, user: string, dice: number[], maxActionsPerRequest: number, language?: string}} opts
 */
export async function boot({ backendUrl, apiKey, user, dice, maxActionsPerRequest, language = "en" }) {
  const h = install({ dice });
  const lang = await (await fetch(`/module/lang/${language}.json`)).json();
  const localize = (/** @type {string} */ k) => {
    const v = k.split(".").reduce((o, p) => o?.[p], lang);
    return typeof v === "string" ? v : k;
  };
  h.game.i18n = {
    lang: language,
    localize,
    format: (k, data) => localize(k).replace(/\{(\w+)\}/g, (m, n) => (n in data ? String(data[n]) : m)),
  };
  h.game.user = h.game.users.get(user);
  globalThis.foundry.applications.api = { ApplicationV2 };
  globalThis.ChatMessage = ChatMessage;
  window.harness = h;

  // The module, as Foundry loads it from module.json.
  const manifest = await (await fetch("/module/module.json")).json();
  for (const css of manifest.styles) {
    const link = document.createElement("link");
    link.rel = "stylesheet";
    link.href = `/module/${css}`;
    document.head.append(link);
  }
  for (const js of manifest.esmodules) await import(`/module/${js}`);

  h.Hooks.call("init");
  const s = h.game.settings;
  await s.set(MODULE_ID, "backendUrl", backendUrl);
  await s.set(MODULE_ID, "apiKey", apiKey);
  await s.set(MODULE_ID, "enablePlayerAccess", true);
  await s.set(MODULE_ID, "maxActionsPerRequest", maxActionsPerRequest);
  h.Hooks.call("ready");

  // Foundry renders the chat log, and the chat input fires chatMessage:
  // a handler returning false means the module took the message.
  const chat = document.getElementById("chat");
  h.Hooks.call("renderChatLog", {}, chat);
  const input = document.getElementById("chat-message");
  input.addEventListener("keydown", (ev) => {
    if (ev.key !== "Enter" || ev.shiftKey) return;
    ev.preventDefault();
    const text = input.value;
    input.value = "";
    if (h.Hooks.call("chatMessage", {}, text, { user: h.game.user.id }) !== false) {
      const p = document.createElement("p");
      p.textContent = text;
      void ChatMessage.create({ content: p.outerHTML });
    }
  });
  return { user: h.game.user.name, modules: manifest.esmodules };
}

/** Switch the signed-in Foundry user and their key, as another client would be. */
export async function become(user, apiKey) {
  const h = window.harness;
  h.game.user = h.game.users.get(user);
  await h.game.settings.set(MODULE_ID, "apiKey", apiKey);
}
