// The Seneschal panel (seed 000 §3.3). PanelView is the panel's DOM and
// logic, independent of Foundry's application classes so a harness page
// can mount it on any element; createPanelClass wraps it in
// ApplicationV2 (v13, and v12 where present) or Application (v12).
import { appendNodes, parseMarkdown } from "./markdown.mjs";
import { runChat } from "./session.mjs";
import { getGame, t } from "./env.mjs";
import { canImportImages, imageRefs, importImage } from "./images.mjs";

/**
 * @typedef {object} PanelDeps
 * @property {() => import("./api.mjs").HearthClient} client
 * @property {() => any} user
 * @property {() => import("./api.mjs").UserContext} userContext
 * @property {() => unknown} systemSchema
 * @property {() => number} maxWrites
 * @property {() => string} model
 */

export class PanelView {
  /**
   * @param {HTMLElement} root
   * @param {PanelDeps} deps
   */
  constructor(root, deps) {
    this.root = root;
    this.deps = deps;
    this.doc = root.ownerDocument;
    this.conversationId = "";
    this.busy = false;
    /** @type {((choice: "continue" | "cancel") => void) | null} */
    this.pauseResolve = null;
    this.ui = this.build();
  }

  /**
   * @param {string} tag
   * @param {string} [cls]
   * @param {string} [text]
   * @returns {HTMLElement}
   */
  make(tag, cls, text) {
    const e = this.doc.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined) e.textContent = text;
    return e;
  }

  /** Build the panel's DOM and wire its controls. */
  build() {
    this.root.replaceChildren();
    this.root.classList.add("seneschal-panel");
    const bar = this.make("div", "seneschal-toolbar");
    const newButton = this.make("button", "seneschal-new", t("SENESCHAL.Panel.New"));
    const historyButton = this.make("button", "seneschal-history-button", t("SENESCHAL.Panel.History"));
    bar.append(newButton, historyButton);
    const history = this.make("ul", "seneschal-history");
    history.hidden = true;
    const log = this.make("div", "seneschal-log");
    const status = this.make("div", "seneschal-status");
    const pauseBar = this.make("div", "seneschal-pause");
    pauseBar.hidden = true;
    const pauseText = this.make("span", "seneschal-pause-text");
    const continueButton = this.make("button", "seneschal-continue", t("SENESCHAL.Panel.Continue"));
    const cancelButton = this.make("button", "seneschal-cancel", t("SENESCHAL.Panel.Cancel"));
    pauseBar.append(pauseText, continueButton, cancelButton);
    const form = this.make("form", "seneschal-form");
    const input = /** @type {HTMLTextAreaElement} */ (this.make("textarea", "seneschal-input"));
    input.placeholder = t("SENESCHAL.Panel.Placeholder");
    const sendButton = this.make("button", "seneschal-send", t("SENESCHAL.Panel.Send"));
    sendButton.setAttribute("type", "submit");
    form.append(input, sendButton);
    // The pause bar comes between the log and the status line: showing
    // it takes its height from the log, so neither the status line nor
    // the input below moves (in a window of fixed height, as Foundry's).
    this.root.append(bar, history, log, pauseBar, status, form);
    this.stickToEnd(log);

    form.addEventListener("submit", (ev) => {
      ev.preventDefault();
      void this.send(input.value);
    });
    input.addEventListener("keydown", (ev) => {
      if (ev.key === "Enter" && !ev.shiftKey) {
        ev.preventDefault();
        void this.send(input.value);
      }
    });
    newButton.addEventListener("click", () => this.newConversation());
    historyButton.addEventListener("click", () => void this.toggleHistory());
    continueButton.addEventListener("click", () => this.resolvePause("continue"));
    cancelButton.addEventListener("click", () => this.resolvePause("cancel"));
    return { newButton, historyButton, history, log, status, pauseBar, pauseText, continueButton, cancelButton, input, sendButton };
  }

  /**
   * Keep the log at its end across a change of its size (the window
   * resized, the pause bar or the history list taking their height from
   * it), if it was at its end before: the messages rewrap and the scroll
   * offset alone would leave the newest below the fold. A log the user
   * scrolled up is left to the browser, whose scroll anchoring keeps the
   * message they were reading in place.
   * @param {HTMLElement} log
   */
  stickToEnd(log) {
    const Observer = this.doc.defaultView?.ResizeObserver;
    if (!Observer) return;
    let atEnd = true;
    let seen = ""; // the size the observer last acted on
    const size = () => `${log.clientWidth}x${log.clientHeight}`;
    // A pixel or two of slack: zoomed pages scroll by fractions.
    const measure = () => { atEnd = log.scrollHeight - log.scrollTop - log.clientHeight <= 2; };
    // A scroll while the size differs from what the observer saw is the
    // browser's (anchoring a message as the text rewraps), not the
    // user's: the observer decides.
    log.addEventListener("scroll", () => { if (size() === seen) measure(); }, { passive: true });
    new Observer(() => {
      if (atEnd) log.scrollTop = log.scrollHeight;
      seen = size();
      measure();
    }).observe(log);
  }

  /**
   * Add a message to the log; model text as sanitised Markdown.
   * @param {"user" | "assistant" | "error"} role
   * @param {string} text
   * @returns {HTMLElement}
   */
  addMessage(role, text) {
    const m = this.make("div", `seneschal-message seneschal-${role}`);
    if (role === "assistant") {
      appendNodes(parseMarkdown(text), m, this.doc);
      this.addImageActions(m, text);
    } else m.textContent = text;
    this.ui.log.append(m);
    this.ui.log.scrollTop = this.ui.log.scrollHeight;
    return m;
  }

  /**
   * @param {HTMLElement} el
   * @param {string} text
   */
  renderAnswer(el, text) {
    el.replaceChildren();
    appendNodes(parseMarkdown(text), el, this.doc);
    this.ui.log.scrollTop = this.ui.log.scrollHeight;
  }

  /**
   * Give each library image the answer names an "Import to Foundry"
   * button, for users who may use one (canImportImages).
   * @param {HTMLElement} el the answer
   * @param {string} text its Markdown
   */
  addImageActions(el, text) {
    const ids = imageRefs(text);
    if (ids.length === 0 || !canImportImages(this.deps.user(), getGame()?.actors)) return;
    const bar = this.make("div", "seneschal-image-actions");
    for (const id of ids) {
      const b = /** @type {HTMLButtonElement} */ (this.make("button", "seneschal-import-image", `${t("SENESCHAL.Images.Import")} (hearth-image:${id})`));
      b.type = "button";
      b.dataset.imageId = id;
      b.addEventListener("click", async () => {
        b.disabled = true;
        const ui = /** @type {any} */ (globalThis).ui;
        const notify = {
          info: (/** @type {string} */ m) => ui?.notifications?.info(m),
          error: (/** @type {string} */ m) => ui?.notifications?.error(m),
        };
        const path = await importImage(this.deps.client(), id, notify, t);
        if (path) b.title = path;
        b.disabled = false;
      });
      bar.append(b);
    }
    el.append(bar);
  }

  newConversation() {
    if (this.busy) return;
    this.conversationId = "";
    this.ui.log.replaceChildren();
    this.ui.status.textContent = "";
  }

  /** @param {"continue" | "cancel"} choice */
  resolvePause(choice) {
    this.ui.pauseBar.hidden = true;
    const r = this.pauseResolve;
    this.pauseResolve = null;
    r?.(choice);
  }

  /**
   * Send a message and stream the answer.
   * @param {string} text
   */
  async send(text) {
    const q = text.trim();
    if (!q || this.busy) return;
    this.busy = true;
    this.ui.input.value = "";
    this.addMessage("user", q);
    const answer = this.addMessage("assistant", "");
    answer.classList.add("seneschal-streaming");
    let sofar = "";
    /** @type {import("./api.mjs").ChatRequest} */
    const request = {
      messages: [{ role: "user", content: q }],
      user_context: this.deps.userContext(),
      system_schema: this.deps.systemSchema(),
    };
    const model = this.deps.model();
    if (model) request.model = model;
    if (this.conversationId) request.conversation_id = this.conversationId;
    try {
      const res = await runChat({
        client: this.deps.client(),
        request,
        user: this.deps.user(),
        maxWrites: this.deps.maxWrites(),
        handlers: {
          onConversation: (id) => (this.conversationId = id),
          onContent: (chunk) => {
            sofar += chunk;
            this.renderAnswer(answer, sofar);
          },
          onStatus: (msg) => (this.ui.status.textContent = msg),
          onError: (msg) => this.addMessage("error", msg),
          onPause: (e) =>
            new Promise((resolve) => {
              this.ui.pauseText.textContent = e.message ?? "";
              this.ui.pauseBar.hidden = false;
              // The log is now shorter by the bar: keep its end in view.
              this.ui.log.scrollTop = this.ui.log.scrollHeight;
              this.pauseResolve = resolve;
            }),
        },
      });
      if (!res.text && !res.error) this.renderAnswer(answer, t("SENESCHAL.NoAnswer"));
      else this.addImageActions(answer, sofar);
    } catch (err) {
      this.addMessage("error", err instanceof Error ? err.message : String(err));
    } finally {
      answer.classList.remove("seneschal-streaming");
      this.ui.status.textContent = "";
      this.ui.pauseBar.hidden = true;
      this.busy = false;
    }
  }

  /** Show or hide the user's conversations; choosing one loads it. */
  async toggleHistory() {
    if (!this.ui.history.hidden) {
      this.ui.history.hidden = true;
      return;
    }
    this.ui.history.replaceChildren();
    try {
      const list = await this.deps.client().conversations();
      for (const c of list) {
        const li = this.make("li", "seneschal-history-item");
        const b = this.make("button", "", `${new Date(c.updated_at).toLocaleString()} · ${c.messages}`);
        b.dataset.id = c.id;
        b.addEventListener("click", () => void this.load(c.id));
        li.append(b);
        this.ui.history.append(li);
      }
      if (list.length === 0) this.ui.history.append(this.make("li", "seneschal-history-empty", t("SENESCHAL.Panel.NoHistory")));
    } catch (err) {
      this.ui.history.append(this.make("li", "seneschal-error", err instanceof Error ? err.message : String(err)));
    }
    this.ui.history.hidden = false;
  }

  /**
   * Load a past conversation to continue it.
   * @param {string} id
   */
  async load(id) {
    const conv = await this.deps.client().conversation(id);
    this.conversationId = conv.id;
    this.ui.log.replaceChildren();
    for (const m of conv.messages ?? []) {
      if ((m.role === "user" || m.role === "assistant") && m.content) this.addMessage(m.role, m.content);
    }
    this.ui.history.hidden = true;
  }
}

/**
 * The panel's Foundry application class: ApplicationV2 when the running
 * Foundry has it, Application otherwise (v12). The bases are `any`: the
 * types' application classes are generic over render contexts this panel,
 * which renders its own DOM, does not use.
 * @param {PanelDeps} deps
 * @returns {any}
 */
export function createPanelClass(deps) {
  const g = /** @type {any} */ (globalThis);
  const V2 = g.foundry?.applications?.api?.ApplicationV2;
  if (V2) {
    return class SeneschalPanel extends V2 {
      static DEFAULT_OPTIONS = {
        id: "seneschal-panel",
        classes: ["seneschal"],
        window: { title: "SENESCHAL.PanelTitle", resizable: true, minimizable: true },
        position: { width: 420, height: 620 },
      };

      /** @returns {Promise<HTMLElement>} */
      async _renderHTML() {
        if (!this.view) {
          const root = document.createElement("div");
          this.view = new PanelView(root, deps);
        }
        return this.view.root;
      }

      /**
       * @param {HTMLElement} result
       * @param {HTMLElement} content
       */
      _replaceHTML(result, content) {
        if (result.parentElement !== content) content.replaceChildren(result);
      }
    };
  }
  const V1 = g.Application;
  return class SeneschalPanelV1 extends V1 {
    static get defaultOptions() {
      return g.foundry.utils.mergeObject(super.defaultOptions, {
        id: "seneschal-panel",
        classes: ["seneschal"],
        title: t("SENESCHAL.PanelTitle"),
        width: 420,
        height: 620,
        resizable: true,
        minimizable: true,
      });
    }

    /** @returns {Promise<any>} the panel as jQuery, as Application expects */
    async _renderInner() {
      if (!this.view) this.view = new PanelView(document.createElement("div"), deps);
      return g.$(this.view.root);
    }
  };
}
