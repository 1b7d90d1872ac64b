// The game view: the story so far from REST, then the game's WebSocket
// (the session cookie goes along; the server checks the Origin), with
// narration streamed into an aria-live log as turn_delta arrives.

import {h, image, link, replace, stickToEnd} from "./dom.js";
import {Branches, PartyPanel, SPEEDS} from "./party.js";

const MAX_BACKOFF = 15000;
const CONNECT_TIMEOUT = 10000; // ms a socket may take to open before it is tried again

export class GameView {
  constructor(app, id) {
    this.app = app;
    this.t = app.t;
    this.id = id;
    this.closed = false;
    this.ws = null;
    this.retry = 0;
    this.timer = 0;
    this.state = null;
    this.shown = {turn: -1, branch: ""}; // what the log holds
    this.loading = 0; // history loads in flight, newest wins
    this.historyPending = false; // the newest load has not drawn yet
    this.sockets = 0; // sockets opened; with sent, on #conn for whoever debugs a hung turn
    this.sent = 0;
    // The action last sent and not yet answered (no turn, no error since):
    // a socket that closes first may have taken it along unread, so it
    // goes back in the box rather than vanish without a word.
    this.pending = null;
  }

  open() {
    const t = this.t;
    this.title = h("h1", {id: "game-title"}, t("loading"));
    this.conn = h("p", {id: "conn", class: "conn", role: "status"}, t("game.connecting"));
    // The status line has its line before the state fills it in, and
    // the story its height before the history does (app.css): nothing
    // below them moves as they arrive. The log fits its turns at the
    // foot of the story's frame, as a chat's does: a new turn scrolls
    // the frame rather than push the action box down.
    this.status = h("p", {id: "status", class: "status line"});
    this.log = h("div", {id: "log", class: "log", role: "log", "aria-live": "polite", "aria-relevant": "additions text",
      "aria-labelledby": "log-h", tabindex: "0"});
    this.frame = h("div", {class: "log-frame"}, this.log);
    this.sticky = stickToEnd(this.frame, this.log);
    this.choices = h("div", {id: "choices", class: "choices", role: "group", "aria-label": t("game.choices")});
    this.input = h("input", {id: "action", name: "action", type: "text", autocomplete: "off", maxlength: "2000", required: true});
    this.form = h("form", {id: "act", class: "act", onsubmit: (ev) => {
      ev.preventDefault();
      const text = this.input.value.trim();
      if (text && this.send({type: "human_action", content: text})) this.input.value = "";
    }}, h("label", {for: "action"}, t("game.action")), h("div", {class: "row"}, this.input, h("button", {type: "submit", id: "send"}, t("game.send"))));
    this.here = h("ul", {id: "here", class: "here"});
    // Hidden until the state says who is here: the sidebar's sections
    // show together when it arrives, none pushing another that showed.
    this.side = h("section", {class: "side", "aria-labelledby": "here-h", hidden: true}, h("h2", {id: "here-h"}, t("game.here")), this.here);
    this.party = new PartyPanel(this);
    const party = this.party.build();
    // The choices come after the action box, in a row kept for them:
    // choices arriving never move the box a player is about to use.
    const story = h("section", {class: "story", "aria-labelledby": "log-h"},
      h("h2", {id: "log-h", class: "sr"}, t("game.log")), this.frame, this.form, this.choices);
    const tools = this.app.can("assistant") ? this.gmTools() : null;
    this.branches = this.app.can("assistant") ? new Branches(this) : null;
    this.scene = h("section", {id: "scene", class: "card scene", "aria-labelledby": "scene-h", hidden: true});
    // The scene images come last: whether there are any is known only
    // once the game's details arrive, and showing them then moves nothing.
    replace(this.app.main,
      h("nav", {class: "crumbs", "aria-label": t("game.back")}, link("#/games", {id: "back"}, "← " + t("game.back"))),
      this.title, this.conn, this.status,
      h("div", {class: "game"}, story, h("aside", {class: "sidebar", "aria-label": t("party.sidebar")}, party.side, this.side, party.whispers)),
      tools, this.branches ? this.branches.build() : null, this.transcriptLinks(), this.scene);
    if (this.branches) this.branches.load();
    if (this.app.can("assistant")) this.loadModels();
    this.app.focusMain(t("loading"));
    this.connect();
    this.loadInfo();
  }

  // loadInfo fetches the game's own name (the socket's state names the
  // campaign).
  async loadInfo() {
    try {
      this.info = await this.app.api.get(`/api/sessions/${encodeURIComponent(this.id)}`);
      if (this.closed) return;
      this.renderTitle();
      if (this.info.images) this.buildScene(this.info.images);
    } catch (e) {
      this.app.fail(e);
    }
  }

  // loadModels fetches the models the GM may give an agent member; none
  // (no model server) leaves the offline agent.
  async loadModels() {
    try {
      const ms = await this.app.api.get("/api/models");
      this.models = Array.isArray(ms) ? ms : [];
    } catch {
      this.models = [];
    }
    if (!this.closed && this.state) this.party.render(this.state);
  }

  // buildScene shows the game's scene images and, for whoever may, the
  // button that has the current scene drawn.
  buildScene(images) {
    const t = this.t;
    this.sceneStatus = h("p", {id: "scene-status", role: "status"});
    this.sceneBar = h("progress", {id: "scene-progress", "aria-labelledby": "scene-status", hidden: true});
    this.sceneList = h("div", {id: "scene-images"});
    this.sceneGo = images.generate ? h("button", {type: "button", id: "scene-generate", onclick: () => this.generateImage()}, t("scene.generate")) : null;
    replace(this.scene, h("h2", {id: "scene-h"}, t("scene.title")), this.sceneGo, this.sceneBar, this.sceneStatus, this.sceneList);
    // Without a provider the section shows only images drawn before.
    this.scene.hidden = !images.generate;
    this.loadImages();
  }

  async loadImages() {
    if (!this.sceneList) return;
    try {
      const res = await this.app.api.get(`/api/sessions/${encodeURIComponent(this.id)}/images`);
      if (!this.closed) this.renderImages(res.images || []);
    } catch (e) {
      this.app.fail(e);
    }
  }

  // renderImages shows the newest first; the prompt is the alt text, an
  // attribute and never markup.
  renderImages(list) {
    const t = this.t;
    const shown = [...list].reverse();
    if (shown.length) this.scene.hidden = false;
    replace(this.sceneList, shown.length ? shown.map((im) => h("figure", {"data-image": im.id, "data-turn": String(im.turn_number ?? im.turn ?? "")},
      image(im.image_url, im.prompt || t("scene.alt")),
      h("figcaption", {}, t("scene.caption", {turn: im.turn_number ?? im.turn ?? "?"}))))
      : h("p", {class: "hint", id: "no-images"}, t("scene.none")));
  }

  async generateImage() {
    const t = this.t;
    this.sceneGo.disabled = true;
    this.scene.setAttribute("aria-busy", "true");
    this.sceneBar.hidden = false;
    this.sceneStatus.className = "";
    this.sceneStatus.dataset.state = "working";
    replace(this.sceneStatus, t("scene.generating"));
    try {
      await this.app.api.post(`/api/sessions/${encodeURIComponent(this.id)}/images/generate-current`, {});
      if (this.closed) return;
      this.sceneStatus.dataset.state = "done";
      replace(this.sceneStatus, t("scene.ready"));
      await this.loadImages();
    } catch (e) {
      if (this.closed) return;
      if (e.status === 401) return this.app.fail(e);
      this.sceneStatus.dataset.state = "failed";
      this.sceneStatus.className = "field-error";
      replace(this.sceneStatus, e.status === 0 ? t("error.network") : t("scene.failed", {message: e.message}));
    } finally {
      if (!this.closed) {
        this.sceneGo.disabled = false;
        this.sceneBar.hidden = true;
        this.scene.removeAttribute("aria-busy");
      }
    }
  }

  renderTitle() {
    const name = (this.info && this.info.title) || (this.state && (this.state.title || this.state.campaign)) || this.id;
    replace(this.title, name);
    if (this.info) this.title.dataset.named = "";
    document.title = name + " · Hearth";
  }

  close() {
    this.closed = true;
    clearTimeout(this.timer);
    if (this.sticky) this.sticky.stop();
    if (this.ws) this.ws.close(1000, "navigated away");
  }

  gmTools() {
    const t = this.t;
    this.apStatus = h("p", {id: "autopilot-status"}, t("game.autopilot_off"));
    this.apStart = h("button", {type: "button", id: "autopilot-start", onclick: () => this.send({type: "start_autopilot"})}, t("game.autopilot_start"));
    this.apStop = h("button", {type: "button", id: "autopilot-stop", onclick: () => this.send({type: "stop_autopilot"})}, t("game.autopilot_stop"));
    this.apSpeed = h("select", {id: "autopilot-speed", name: "speed", onchange: () => this.send({type: "set_speed", speed: this.apSpeed.value})},
      SPEEDS.map((s) => h("option", {value: s}, t("speed." + s))));
    const turn = h("input", {id: "restore-turn", name: "turn", type: "number", min: "0", step: "1", required: true});
    const fork = h("input", {id: "fork-name", name: "name", type: "text", maxlength: "40", required: true});
    return h("section", {class: "tools card", "aria-labelledby": "tools-h"},
      h("h2", {id: "tools-h"}, t("game.autopilot")), this.apStatus, h("div", {class: "row"}, this.apStart, this.apStop,
        h("label", {for: "autopilot-speed", class: "inline"}, t("game.speed")), this.apSpeed),
      h("h2", {}, t("game.timeline")),
      h("form", {id: "restore", onsubmit: (ev) => {
        ev.preventDefault();
        this.rest(`/restore`, {turn: Number(turn.value)}, () => t("game.restored", {turn: turn.value}));
      }}, h("label", {for: "restore-turn"}, t("game.restore_turn")), h("div", {class: "row"}, turn, h("button", {type: "submit", id: "restore-go"}, t("game.restore")))),
      h("form", {id: "fork", onsubmit: (ev) => {
        ev.preventDefault();
        const name = fork.value.trim();
        this.rest(`/forks`, {name}, () => t("game.forked", {name}));
      }}, h("label", {for: "fork-name"}, t("game.fork_name")), h("div", {class: "row"}, fork, h("button", {type: "submit", id: "fork-go"}, t("game.fork")))));
  }

  transcriptLinks() {
    const base = `/api/sessions/${encodeURIComponent(this.id)}/transcript`;
    return h("section", {class: "card", "aria-labelledby": "tr-h"}, h("h2", {id: "tr-h"}, this.t("game.transcript")),
      h("p", {class: "row"},
        link(`${base}?format=md`, {id: "transcript-md", download: true, class: "button"}, this.t("game.download_md")),
        link(`${base}?format=json`, {id: "transcript-json", download: true, class: "button"}, this.t("game.download_json"))));
  }

  // rest changes the game over REST; the log is reloaded from the answer
  // (the socket's session_state would do it too, but may come later).
  async rest(path, body, done) {
    try {
      await this.app.api.post(`/api/sessions/${encodeURIComponent(this.id)}${path}`, body);
      this.app.notify(done(), false);
      this.shown = {turn: -1, branch: ""};
      if (this.branches) this.branches.load();
      await this.loadHistory();
    } catch (e) {
      this.app.fail(e);
    }
  }

  connect() {
    if (this.closed) return;
    const proto = location.protocol === "https:" ? "wss:" : "ws:";
    const ws = new WebSocket(`${proto}//${location.host}/ws/game/${encodeURIComponent(this.id)}`);
    this.ws = ws;
    // A handshake that hangs never fires onclose; give it up after a
    // while, so the backoff below tries again instead of waiting forever.
    const opening = setTimeout(() => { if (ws.readyState === WebSocket.CONNECTING) ws.close(); }, CONNECT_TIMEOUT);
    ws.onopen = () => {
      clearTimeout(opening);
      // A socket this view has given up (closed, or replaced by a newer
      // one) must not mark the view live: the page would show "Live" over
      // a connection nothing reads.
      if (this.ws !== ws || this.closed) {
        ws.close(1000, "superseded");
        return;
      }
      this.retry = 0;
      replace(this.conn, this.t("game.connected"));
      this.conn.dataset.state = "open";
      this.conn.dataset.sockets = String(++this.sockets);
    };
    ws.onmessage = (ev) => {
      let msg;
      try { msg = JSON.parse(ev.data); } catch { return; }
      this.receive(msg);
    };
    ws.onclose = () => {
      clearTimeout(opening);
      if (this.ws !== ws || this.closed) return;
      this.ws = null;
      if (this.pending !== null) {
        if (!this.input.value) this.input.value = this.pending;
        this.pending = null;
        this.app.notify(this.t("game.unanswered"), true);
      }
      // Back off 0.5 s, 1 s, 2 s … up to 15 s, with jitter so that many
      // clients of a restarted server do not all come back at once.
      const delay = Math.min(MAX_BACKOFF, 500 * 2 ** this.retry) * (0.75 + Math.random() / 2);
      this.retry++;
      this.conn.dataset.state = "closed";
      replace(this.conn, this.t("game.reconnecting", {seconds: Math.ceil(delay / 1000)}));
      this.timer = setTimeout(() => this.connect(), delay);
    };
  }

  send(msg) {
    if (!this.ws || this.ws.readyState !== WebSocket.OPEN) {
      this.app.notify(this.t("error.network"), true);
      return false;
    }
    this.ws.send(JSON.stringify(msg));
    this.conn.dataset.sent = String(++this.sent);
    if (msg.type === "human_action") this.pending = msg.content;
    return true;
  }

  receive(msg) {
    // A turn being told, or an error (a refusal is an answer too), answers
    // the action sent.
    if (msg.type === "turn_delta" || msg.type === "turn_update" || msg.type === "error") this.pending = null;
    switch (msg.type) {
      case "session_state":
        this.setState(msg.state);
        break;
      case "turn_delta":
        this.delta(msg.turn, msg.text);
        break;
      case "turn_update":
        this.turnUpdate(msg);
        break;
      case "awaiting_input":
        break;
      case "autopilot_started":
        this.setAutopilot({running: true, speed: msg.speed});
        break;
      case "autopilot_stopped":
        this.setAutopilot({running: false, speed: this.apSpeed && this.apSpeed.value});
        if (msg.reason !== "user_request") this.app.notify(this.t("game.stopped", {reason: this.t("stopped." + msg.reason)}), msg.reason === "error");
        break;
      case "error":
        // A recoverable error leaves the game playable; say so.
        this.app.notify(msg.recoverable ? this.t("game.error_recoverable", {message: msg.message}) : msg.message, true);
        this.errorCount = (this.errorCount || 0) + 1;
        this.conn.dataset.errors = String(this.errorCount);
        break;
      case "notice":
        this.app.notify(msg.message || msg.text || "", false);
        break;
      case "whisper":
        this.party.whisper(msg);
        break;
      case "secret_revealed":
        this.party.reveal(msg);
        this.app.notify(this.t("party.secret_revealed", {content: msg.content}), false);
        break;
      case "control_released":
        break;
      case "image_ready":
        this.loadImages();
        break;
    }
  }

  setState(st) {
    if (!st) return;
    this.state = st;
    this.renderTitle();
    this.renderStatus();
    this.renderHere();
    this.party.render(st);
    this.renderChoices(st.awaiting);
    this.setAutopilot(st.autopilot || {});
    if (st.turn !== this.shown.turn || st.branch !== this.shown.branch) this.loadHistory();
  }

  setAutopilot(ap) {
    if (!this.apStatus) return;
    const speed = ap.speed ? this.t("speed." + ap.speed) : "";
    replace(this.apStatus, ap.running ? this.t(ap.paused ? "game.autopilot_paused" : "game.autopilot_on", {speed}) : this.t("game.autopilot_off"));
    this.apStatus.dataset.running = ap.running ? "yes" : "no";
    if (ap.speed) this.apStatus.dataset.speed = ap.speed;
    this.apStart.disabled = !!ap.running;
    this.apStop.disabled = !ap.running;
    if (SPEEDS.includes(ap.speed)) this.apSpeed.value = ap.speed;
  }

  renderStatus() {
    const st = this.state, w = st.world || {};
    const parts = [this.t("game.status", {turn: st.turn, branch: st.branch || "main"})];
    const pc = (w.characters || {})[st.character || w.player];
    if (pc) {
      if (pc.max_hit_points) parts.push(this.t("game.hp", {hp: pc.hit_points, max: pc.max_hit_points}));
      const loc = (w.locations || {})[pc.location];
      if (loc) parts.push(this.t("game.location", {place: loc.name || loc.id}));
    }
    replace(this.status, parts.join(" · "));
    this.status.dataset.turn = String(st.turn);
  }

  // renderHere lists who else is where the player is, as the player's view
  // of the world shows them, each with their portrait when the campaign
  // has art for them (the view's vars.portraits holds only those the
  // player has met).
  renderHere() {
    const w = this.state.world || {}, me = this.state.character || w.player;
    const pc = (w.characters || {})[me];
    const portraits = (w.vars && w.vars.portraits) || {};
    const others = Object.values(w.characters || {}).filter((c) => c.id !== me && pc && c.location === pc.location);
    replace(this.here, others.map((c) => h("li", {"data-character": c.id},
      this.portrait(portraits[c.id], c),
      h("strong", {}, c.name || c.id), c.description ? h("span", {class: "desc"}, " — ", c.description) : null)));
    this.side.hidden = others.length === 0;
  }

  // portrait is a character's campaign art, or nothing: only an asset the
  // game API serves, its alt text an attribute, never markup.
  portrait(url, c) {
    if (typeof url !== "string" || !url.startsWith("/api/campaigns/")) return null;
    portraitStyle();
    return image(url, this.t("game.portrait", {name: c.name || c.id}),
      {class: "portrait", width: "64", height: "64", "data-portrait": c.id});
  }

  renderChoices(aw) {
    // A clarifying question stays in view where the answer is typed.
    this.input.placeholder = aw && aw.kind === "clarification" ? aw.prompt || "" : "";
    const opts = (aw && aw.options) || [];
    // One row of them, scrolled sideways when they overflow it (app.css);
    // a choice cut short there is whole in its title.
    replace(this.choices, opts.map((o) => h("button", {type: "button", class: "choice", title: o, onclick: () => this.send({type: "human_action", content: o})}, o)));
  }

  async loadHistory() {
    const seq = ++this.loading;
    const st = this.state;
    if (!st) return;
    this.historyPending = true;
    try {
      const from = Math.max(1, st.turn - 199);
      const page = await this.app.api.get(`/api/sessions/${encodeURIComponent(this.id)}/turns?from=${from}&to=${st.turn}`);
      if (seq !== this.loading || this.closed) return;
      this.historyPending = false;
      this.log.setAttribute("aria-busy", "true");
      replace(this.log, (page.turns || []).map((r) => this.entry(r.number, r.input, r.narrative, true, r)));
      this.log.removeAttribute("aria-busy");
      this.shown = {turn: page.turn, branch: page.branch};
      this.log.dataset.turn = String(page.turn);
      this.log.dataset.branch = page.branch;
      this.sticky.end();
    } catch (e) {
      if (seq === this.loading) this.historyPending = false;
      this.app.fail(e);
    }
  }

  // entry is one turn in the log; who (a turn record or turn_update)
  // names the member who acted, its controller and the dice rolled.
  entry(n, input, text, committed, who = {}) {
    const el = h("article", {class: committed ? "turn" : "turn aside", "data-turn": String(n)});
    const by = this.party.byline(who.agent, who.controller);
    if (by) {
      el.dataset.agent = who.agent;
      if (by.dataset.colour) el.dataset.colour = by.dataset.colour;
      el.append(by);
    }
    if (input) el.append(h("p", {class: "input"}, by ? this.t("game.input", {input}) : this.t("game.you", {input})));
    const rolls = this.party.rolls(typeof who.rolls === "string" ? safeJSON(who.rolls) : who.rolls);
    if (rolls) el.append(rolls);
    const body = h("div", {class: "narration"});
    paragraphs(body, text || "");
    // A turn with nothing to read (a whisper the viewer is not shown, a
    // module choice) keeps its place in the log, out of sight.
    if (!by && !input && !(text || "").trim() && committed) el.classList.add("empty");
    el.append(body);
    if (!committed) el.append(h("p", {class: "note"}, this.t("game.aside")));
    return el;
  }

  // delta appends narration as it is written to the turn's entry, made
  // when the first piece arrives.
  delta(n, text) {
    let el = this.log.querySelector(`article[data-streaming="${Number(n)}"]`);
    if (!el) {
      el = h("article", {class: "turn streaming", "data-streaming": String(Number(n)), "data-deltas": "0"},
        h("div", {class: "narration"}, h("p", {})));
      this.log.append(el);
    }
    const p = el.querySelector(".narration p:last-child");
    p.append(document.createTextNode(text));
    el.dataset.deltas = String(Number(el.dataset.deltas) + 1);
    this.sticky.end();
  }

  // turnUpdate replaces the streamed text with the turn as stored.
  turnUpdate(m) {
    // One turn streams at a time; a question streams as the next turn but
    // comes back numbered as the current one.
    const streamed = this.log.querySelector("article[data-streaming]");
    if (m.state) this.state = m.state; // names the agent's character
    const el = this.entry(m.turn, m.input, m.content, m.committed, m);
    if (streamed) {
      el.dataset.deltas = streamed.dataset.deltas;
      streamed.replaceWith(el);
    } else {
      this.log.append(el);
    }
    if (m.committed && this.branches) this.branches.load(); // the tip moved
    if (m.committed && m.state) {
      this.shown = {turn: m.state.turn, branch: m.state.branch};
      this.log.dataset.turn = String(m.state.turn);
      this.log.dataset.branch = m.state.branch;
      // A history load still in flight asked for the turns before this
      // one and would draw the log without it: ask again, up to here.
      if (this.historyPending) this.loadHistory();
    }
    if (m.state) {
      this.renderStatus();
      this.renderHere();
      this.party.render(m.state);
    }
    this.renderChoices(m.awaiting);
    if (m.notice) this.app.notify(m.notice, false);
    if (m.rejected) this.app.notify(m.rejected, false);
    this.sticky.end();
  }
}

// portraitStyle adopts the portraits' stylesheet once: the page's CSP
// allows no inline styles, and a constructed sheet is not one.
let portraitSheet = null;
function portraitStyle() {
  if (portraitSheet) return;
  portraitSheet = new CSSStyleSheet();
  portraitSheet.replaceSync(`.here li:has(> .portrait) { list-style: none; margin-left: -1.2rem; display: flex; gap: 0.5rem; align-items: center; flex-wrap: wrap; }
.here .portrait { width: 4rem; height: 4rem; object-fit: cover; border-radius: 0.25rem; border: 1px solid var(--line); flex: none; }`);
  document.adoptedStyleSheets = [...document.adoptedStyleSheets, portraitSheet];
}

function safeJSON(s) {
  try { return JSON.parse(s); } catch { return null; }
}

// paragraphs puts text into el as <p>s split at blank lines, as text.
function paragraphs(el, text) {
  for (const para of text.split(/\n{2,}/)) {
    if (para.trim()) el.append(h("p", {}, para));
  }
}
