// The GM assistant: the user's conversations, and a chat whose answers
// stream as server-sent events over a POST (fetch and a stream reader, as
// EventSource cannot post), rendered as inert Markdown. The browser asks
// for the book tools and runs dice_roll itself.

import {ApiError} from "./api.js";
import {h, link, replace, stickToEnd} from "./dom.js";
import {render} from "./markdown.js";

// TOOLS are the tools this page asks for: the server's book tools, and
// dice_roll, which runs here.
const TOOLS = ["document_search", "document_get", "dice_roll"];

export class AssistantView {
  constructor(app, id) {
    this.app = app;
    this.t = app.t;
    this.id = id || "";
    this.closed = false;
    this.abort = new AbortController();
    this.busy = false;
  }

  open() {
    const t = this.t;
    this.list = h("ul", {id: "conversations", class: "convs"});
    this.log = h("div", {id: "chat-log", class: "log chat", role: "log", "aria-live": "polite", "aria-labelledby": "chat-h", tabindex: "0"});
    // The log fits the conversation at the foot of a frame of fixed
    // height (app.css): what arrives scrolls it, nothing on the page moves.
    this.frame = h("div", {class: "log-frame"}, this.log);
    this.sticky = stickToEnd(this.frame, this.log);
    this.status = h("p", {id: "chat-status", class: "conn line", role: "status"}); // its line kept: "Thinking…" moves nothing
    // The pause's question comes at the end of the conversation, in the
    // log's own height, not above the question box it would push down.
    this.pauseBox = h("div", {id: "pause", class: "confirm card", role: "group", "aria-labelledby": "pause-q", hidden: true});
    this.input = h("textarea", {id: "question", name: "question", maxlength: "32000", required: true});
    this.input.rows = 3;
    this.send = h("button", {type: "submit", id: "ask"}, t("assistant.send"));
    this.form = h("form", {id: "chat-form", class: "act", onsubmit: (ev) => {
      ev.preventDefault();
      this.ask(this.input.value.trim());
    }}, h("label", {for: "question"}, t("assistant.question")), this.input, this.send);
    // Enter sends, Shift+Enter is a new line, as in other chats.
    this.input.addEventListener("keydown", (ev) => {
      if (ev.key === "Enter" && !ev.shiftKey && !ev.isComposing) {
        ev.preventDefault();
        this.form.requestSubmit();
      }
    });
    const side = h("aside", {class: "side convs-side", "aria-labelledby": "convs-h"},
      h("h2", {id: "convs-h"}, t("assistant.conversations")),
      h("button", {type: "button", id: "new-chat", onclick: () => { location.hash = "#/assistant"; }}, t("assistant.new")),
      this.list);
    const chat = h("section", {class: "story", "aria-labelledby": "chat-h"},
      h("h2", {id: "chat-h", class: "sr"}, t("assistant.chat")), this.frame, this.status, this.form);
    replace(this.app.main, h("h1", {id: "assistant-h"}, t("assistant.title")), h("div", {class: "game"}, chat, side));
    this.app.focusMain(t("assistant.title"));
    this.loadList();
    if (this.id) this.loadConversation();
    else {
      this.log.append(h("p", {id: "chat-empty", class: "note"}, t("assistant.empty")));
      this.sticky.end();
    }
  }

  close() {
    this.closed = true;
    clearTimeout(this.listTimer);
    if (this.sticky) this.sticky.stop();
    this.abort.abort();
  }

  // loadList shows the user's conversations. Only the newest load may
  // draw, so a slow early answer cannot replace a later one; and when the
  // open conversation is not listed yet, it asks again a few times.
  async loadList(attempt = 0) {
    const seq = this.listSeq = (this.listSeq || 0) + 1;
    let convs;
    try {
      convs = await this.app.api.get("/api/conversations");
    } catch (e) {
      return this.app.fail(e);
    }
    if (this.closed || seq !== this.listSeq) return;
    if (this.id && attempt < 4 && !(convs || []).some((c) => c.id === this.id)) {
      this.listTimer = setTimeout(() => this.loadList(attempt + 1), 250 * 2 ** attempt);
    }
    const fmt = new Intl.DateTimeFormat(this.app.lang, {dateStyle: "medium", timeStyle: "short"});
    if (!convs || convs.length === 0) return replace(this.list, h("li", {id: "no-convs"}, this.t("assistant.none")));
    replace(this.list, convs.map((c) => {
      const when = fmt.format(new Date(c.updated_at));
      const label = this.t("assistant.conversation", {when, messages: c.messages});
      const li = h("li", {"data-conversation": c.id},
        link(`#/assistant/${encodeURIComponent(c.id)}`, {"aria-current": c.id === this.id ? "page" : null}, label));
      li.append(h("button", {type: "button", class: "danger small", "data-delete": c.id, "aria-label": this.t("assistant.delete_named", {name: label}),
        onclick: () => this.confirmDelete(li, c.id, label)}, this.t("assistant.delete")));
      return li;
    }));
  }

  confirmDelete(li, id, label) {
    const yes = h("button", {type: "button", class: "danger", id: "confirm-delete", onclick: async () => {
      try {
        await this.app.api.del(`/api/conversations/${encodeURIComponent(id)}`);
        this.app.notify(this.t("assistant.deleted", {name: label}), false);
        if (id === this.id) location.hash = "#/assistant";
        else this.loadList();
      } catch (e) {
        this.app.fail(e);
      }
    }}, this.t("games.confirm_yes"));
    li.append(h("div", {class: "confirm", role: "group", "aria-label": this.t("assistant.delete_named", {name: label})},
      h("p", {}, this.t("assistant.confirm")), yes,
      h("button", {type: "button", onclick: () => this.loadList()}, this.t("games.cancel"))));
    yes.focus();
  }

  async loadConversation() {
    let c;
    try {
      c = await this.app.api.get(`/api/conversations/${encodeURIComponent(this.id)}`);
    } catch (e) {
      if (e instanceof ApiError && e.status === 404) {
        this.app.notify(this.t("assistant.gone"), true);
        return;
      }
      return this.app.fail(e);
    }
    if (this.closed) return;
    replace(this.log, (c.messages || []).filter((m) => (m.role === "user" || m.role === "assistant") && m.content)
      .map((m) => m.role === "user" ? this.userEntry(m.content) : this.answerEntry(m.content)));
    this.sticky.end();
  }

  userEntry(text) {
    return h("article", {class: "turn ask"}, h("p", {class: "input"}, this.t("assistant.you", {text})));
  }

  answerEntry(md) {
    const body = h("div", {class: "narration answer"});
    body.append(render(md));
    return h("article", {class: "turn"}, body);
  }

  line(cls, text, attrs) {
    const el = h("p", Object.assign({class: "note " + cls}, attrs || {}), text);
    (cls === "error" ? this.current : this.steps).append(el);
    this.sticky.end();
    return el;
  }

  setBusy(busy) {
    this.busy = busy;
    this.send.disabled = busy;
    this.log.setAttribute("aria-busy", busy ? "true" : "false");
  }

  // ask sends a question and reads the answer's events until the stream
  // ends.
  async ask(text) {
    if (!text || this.busy) return;
    this.app.clearAlert();
    const empty = this.log.querySelector("#chat-empty");
    if (empty) empty.remove();
    this.input.value = "";
    this.log.append(this.userEntry(text));
    // Tool lines go above the answer, in the order they happen.
    this.steps = h("div", {class: "steps"});
    this.answer = h("div", {class: "narration answer", "data-streaming": ""});
    this.current = h("article", {class: "turn streaming"}, this.steps, this.answer);
    this.log.append(this.current);
    this.sticky.end();
    this.text = "";
    this.finished = false;
    this.errored = false;
    this.setBusy(true);
    replace(this.status, this.t("assistant.thinking"));
    const body = {messages: [{role: "user", content: text}], tools: TOOLS};
    if (this.id) body.conversation_id = this.id;
    try {
      const res = await this.app.api.stream("/api/chat", body, this.abort.signal);
      const id = res.headers.get("X-Conversation-ID");
      if (id && id !== this.id) {
        this.id = id;
        // The address names the conversation, without a new view.
        history.replaceState(null, "", `#/assistant/${encodeURIComponent(id)}`);
      }
      await readEvents(res.body, (ev) => this.event(ev));
      if (!this.finished && !this.errored && !this.closed) this.failed(this.t("assistant.cut_off"));
    } catch (e) {
      if (this.closed) return;
      if (e instanceof ApiError) this.failed(this.httpError(e));
      else if (e.name !== "AbortError") this.failed(this.t("assistant.cut_off"));
    } finally {
      if (!this.closed) this.end();
    }
  }

  httpError(e) {
    switch (e.status) {
      case 0: return this.t("error.network");
      case 429: return this.t("assistant.rate_limited", {seconds: e.retryAfter || 60});
      case 409: return this.t("assistant.busy");
      case 503: return this.t("assistant.unavailable", {message: e.message});
      default: return this.t("assistant.refused", {message: e.message});
    }
  }

  end() {
    delete this.answer.dataset.streaming;
    this.current.classList.remove("streaming");
    this.pauseBox.hidden = true;
    replace(this.pauseBox);
    this.setBusy(false);
    replace(this.status, "");
    this.loadList();
    this.input.focus();
  }

  event(ev) {
    if (this.closed) return;
    switch (ev.type) {
      case "content":
        this.text += ev.text || "";
        this.draw();
        break;
      case "tool_status":
        this.line("tool", ev.message || "", {"data-tool-status": ""});
        break;
      case "tool_result":
        this.line("tool", this.t("assistant.tool_done", {tool: ev.tool, summary: ev.summary || ""}), {"data-tool-done": ev.tool});
        break;
      case "tool_call":
        this.external(ev);
        break;
      case "pause":
        this.paused(ev);
        break;
      case "error":
        this.errored = true;
        this.failed(this.t(ev.recoverable ? "assistant.error_retry" : "assistant.error_final", {message: ev.message || ""}));
        break;
      case "done":
        this.finished = true;
        this.draw();
        replace(this.status, "");
        this.current.dataset.done = "";
        break;
    }
  }

  // draw renders the answer so far; content events come in small pieces,
  // so it is redrawn once a frame at most.
  draw() {
    if (this.drawing) return;
    this.drawing = true;
    requestAnimationFrame(() => {
      this.drawing = false;
      replace(this.answer, render(this.text));
      this.sticky.end();
    });
  }

  failed(message) {
    this.line("error", message, {role: "alert", "data-error": ""});
    replace(this.status, "");
  }

  // external runs a tool the server left to the browser: dice_roll here;
  // any other is answered with an error the model can read.
  async external(ev) {
    let result;
    if (ev.tool === "dice_roll") {
      const args = ev.args || {};
      try {
        const r = roll(String(args.formula || ""));
        result = Object.assign({label: args.label || ""}, r);
        this.line("roll", this.t("assistant.rolled", {label: args.label || r.formula, formula: r.formula,
          rolls: r.rolls.join(", "), total: r.total}), {"data-roll": String(r.total)});
      } catch (e) {
        result = {error: e.message};
        this.line("error", this.t("assistant.roll_bad", {formula: String(args.formula || "")}));
      }
    } else {
      result = {error: `the tool ${ev.tool} is not available in the browser`};
    }
    try {
      await this.app.api.post("/api/tool_result", {conversation_id: this.id, tool_call_id: ev.id, result});
    } catch (e) {
      if (!this.closed) this.failed(this.httpError(e));
    }
  }

  paused(ev) {
    const t = this.t;
    const decide = async (action) => {
      for (const b of this.pauseBox.querySelectorAll("button")) b.disabled = true;
      // Said before the post: the answer may end before the post does.
      replace(this.status, t(action === "continue" ? "assistant.thinking" : "assistant.cancelling"));
      try {
        await this.app.api.post("/api/chat/continue", {conversation_id: this.id, action});
        this.pauseBox.hidden = true;
        replace(this.pauseBox);
        this.input.focus();
      } catch (e) {
        for (const b of this.pauseBox.querySelectorAll("button")) b.disabled = false;
        this.failed(this.httpError(e));
      }
    };
    const go = h("button", {type: "button", id: "continue", onclick: () => decide("continue")}, t("assistant.continue"));
    replace(this.pauseBox, h("p", {id: "pause-q"}, ev.message || t("assistant.paused")), go,
      h("button", {type: "button", id: "cancel", class: "danger", onclick: () => decide("cancel")}, t("assistant.cancel")));
    this.log.append(this.pauseBox);
    this.pauseBox.hidden = false;
    this.sticky.end();
    replace(this.status, t("assistant.paused"));
    go.focus();
  }
}

// readEvents reads a server-sent event stream, calling fn with each data
// event's JSON; comment lines (keep-alives) are skipped.
export async function readEvents(body, fn) {
  const reader = body.pipeThrough(new TextDecoderStream()).getReader();
  let buf = "";
  for (;;) {
    const {value, done} = await reader.read();
    if (done) break;
    buf += value.replace(/\r\n?/g, "\n");
    let end;
    while ((end = buf.indexOf("\n\n")) >= 0) {
      const block = buf.slice(0, end);
      buf = buf.slice(end + 2);
      const data = block.split("\n").filter((l) => l.startsWith("data:")).map((l) => l.slice(5).replace(/^ /, "")).join("\n");
      if (!data) continue;
      let ev;
      try { ev = JSON.parse(data); } catch { continue; }
      fn(ev);
    }
  }
}

// roll rolls dice notation NdM+K (N up to 100, M from 2 to 1000) with the
// browser's cryptographic random numbers.
export function roll(formula) {
  const m = /^\s*(\d{0,3})\s*[dD]\s*(\d{1,4})\s*(?:([+-])\s*(\d{1,5}))?\s*$/.exec(formula);
  if (!m) throw new Error(`not dice notation: ${formula}`);
  const n = m[1] === "" ? 1 : Number(m[1]), sides = Number(m[2]), mod = m[3] ? Number(m[3] + m[4]) : 0;
  if (n < 1 || n > 100 || sides < 2 || sides > 1000) throw new Error(`out of range: ${formula}`);
  const rolls = [];
  const buf = new Uint32Array(1);
  // Rejection sampling keeps every face equally likely.
  const limit = Math.floor(2 ** 32 / sides) * sides;
  while (rolls.length < n) {
    crypto.getRandomValues(buf);
    if (buf[0] < limit) rolls.push(buf[0] % sides + 1);
  }
  const total = rolls.reduce((a, b) => a + b, 0) + mod;
  const norm = `${n}d${sides}${mod > 0 ? "+" + mod : mod < 0 ? String(mod) : ""}`;
  return {formula: norm, rolls, modifier: mod, total};
}
