// Hearth in the browser: sign-in, the games list and the game view, routed
// by the location hash (#/games, #/game/ID) so the server serves one shell.

import {Api, ApiError} from "./api.js";
import {h, link, replace} from "./dom.js";
import {loadCatalog, pickLanguage, saveLanguage, translator} from "./i18n.js";
import {GameView} from "./game.js";
import {AssistantView} from "./assistant.js";
import {LibraryView, PageView} from "./library.js";
import {SettingsView} from "./settings.js";
import {CharacterView, Wizard, characterTable, modelSelect} from "./characters.js";

const RANK = {player: 1, trusted: 2, assistant: 3, gm_only: 4};

class App {
  constructor() {
    this.api = new Api();
    this.user = null;
    this.view = null; // the live view, closed on navigation
    this.loads = 0; // counts navigations and page loads; a slower, older load must not draw over a newer one
    this.routes = 0; // views drawn, on #main for whoever debugs a view drawn twice
    this.routed = null; // the hash the view shown was drawn for
    this.main = document.getElementById("main");
    this.nav = document.getElementById("nav");
    this.alertBox = document.getElementById("alert");
  }

  async start() {
    this.english = await loadCatalog("en");
    await this.setLanguage(pickLanguage(), false);
    const sel = document.getElementById("lang");
    sel.addEventListener("change", () => this.setLanguage(sel.value, true));
    // Routes are #/…; the skip link's #main only moves focus. A hash the
    // view shown was drawn for is not drawn again: signing in draws the
    // games page before its hash change arrives, and two changes in a row
    // arrive as two events that both read the newest hash. Drawing again
    // would replace the view in use, and with it what the user is typing
    // and a game's socket.
    window.addEventListener("hashchange", () => {
      if (location.hash === this.routed) return;
      if (location.hash === "" || location.hash.startsWith("#/")) this.route();
    });
    document.getElementById("skip").addEventListener("click", (ev) => {
      ev.preventDefault();
      this.main.focus();
    });
    try {
      const s = await this.api.session();
      this.user = s ? s.user : null;
    } catch (e) {
      this.fail(e);
    }
    this.route();
  }

  async setLanguage(lang, save) {
    const messages = lang === "en" ? this.english : await loadCatalog(lang).catch(() => this.english);
    this.t = translator(messages, this.english);
    this.lang = lang;
    this.api.setLanguage(lang);
    document.documentElement.lang = lang;
    document.getElementById("lang").value = lang;
    document.getElementById("lang-label").textContent = this.t("language");
    document.getElementById("skip").textContent = this.t("skip");
    if (save) {
      saveLanguage(lang);
      this.route();
    }
  }

  can(role) { return this.user && (RANK[this.user.role] || 0) >= RANK[role]; }

  // notify shows a message in the alert region; errors stay until the
  // next navigation, notices fade.
  notify(text, isError) {
    this.alertBox.hidden = false;
    this.alertBox.className = isError ? "alert error" : "alert notice";
    replace(this.alertBox, h("span", {class: "alert-text"}, text),
      h("button", {type: "button", id: "alert-close", "aria-label": this.t("alert.close"), onclick: () => this.clearAlert()}, "×"));
  }

  clearAlert() {
    this.alertBox.hidden = true;
    replace(this.alertBox);
  }

  fail(e) {
    if (e instanceof ApiError && e.status === 401) {
      this.user = null;
      location.hash = "#/";
      this.route();
      return;
    }
    const msg = e instanceof ApiError && e.status === 0 ? this.t("error.network") : this.t("error.generic", {message: e.message});
    this.notify(msg, true);
  }

  renderNav() {
    if (!this.user) return replace(this.nav);
    replace(this.nav,
      link("#/games", {}, this.t("nav.games")),
      link("#/assistant", {id: "nav-assistant"}, this.t("nav.assistant")),
      link("#/library", {id: "nav-library"}, this.t("nav.library")),
      this.can("gm_only") ? link("#/settings", {id: "nav-settings"}, this.t("nav.settings")) : null,
      h("span", {class: "who"}, this.t("nav.signed_in", {name: this.user.name, role: this.user.role})),
      h("button", {type: "button", id: "signout", onclick: () => this.signOut()}, this.t("nav.signout")));
  }

  route() {
    this.loads++;
    this.main.dataset.routes = String(++this.routes);
    if (this.view) {
      this.view.close();
      this.view = null;
    }
    this.renderNav();
    this.routed = location.hash;
    const hash = location.hash || "#/";
    if (!this.user) return this.signInView();
    const m = /^#\/game\/([A-Za-z0-9_-]+)$/.exec(hash);
    if (m) {
      this.view = new GameView(this, m[1]);
      return this.view.open();
    }
    if (hash === "#/characters/new") {
      this.view = new Wizard(this);
      return this.view.open();
    }
    const ch = /^#\/characters\/([A-Za-z0-9_-]+)$/.exec(hash);
    if (ch) {
      this.view = new CharacterView(this, ch[1]);
      return this.view.open();
    }
    const chat = /^#\/assistant(?:\/([A-Za-z0-9_-]+))?$/.exec(hash);
    if (chat) {
      this.view = new AssistantView(this, chat[1]);
      return this.view.open();
    }
    const pg = /^#\/library\/([^/]+)\/pages\/([0-9]+)$/.exec(hash);
    if (pg) {
      this.view = new PageView(this, decodeURIComponent(pg[1]), Number(pg[2]));
      return this.view.open();
    }
    if (hash === "#/library") {
      this.view = new LibraryView(this);
      return this.view.open();
    }
    // Players get no link here; the API answers them 403 all the same.
    if (hash === "#/settings") {
      this.view = new SettingsView(this);
      return this.view.open();
    }
    return this.gamesView();
  }

  // focusMain titles the page and, after the first view, moves focus to
  // the new content as a page load would; the first view leaves focus
  // where it starts, so the first Tab reaches the skip link.
  focusMain(heading) {
    document.title = heading + " · Hearth";
    if (this.shown) this.main.focus({preventScroll: true});
    this.shown = true;
  }

  signInView() {
    const key = h("input", {id: "key", name: "key", type: "password", autocomplete: "off", required: true, spellcheck: "false"});
    const user = h("input", {id: "username", name: "username", type: "text", autocomplete: "username"});
    const form = h("form", {id: "signin", class: "card", onsubmit: async (ev) => {
      ev.preventDefault();
      const k = key.value;
      key.value = ""; // the key leaves the page with this request and nowhere else
      try {
        const s = await this.api.signIn(k, user.value.trim());
        this.user = s.user;
        this.clearAlert();
        location.hash = "#/games";
        this.route();
      } catch (e) {
        this.notify(this.t("signin.failed", {message: e.message}), true);
        key.focus();
      }
    }},
    h("h1", {}, this.t("signin.title")),
    h("p", {}, this.t("signin.intro")),
    h("label", {for: "key"}, this.t("signin.key")), key,
    h("label", {for: "username"}, this.t("signin.username")), user,
    h("button", {type: "submit"}, this.t("signin.submit")));
    replace(this.main, form);
    this.focusMain(this.t("signin.title"));
  }

  async signOut() {
    try {
      await this.api.signOut();
    } catch (e) {
      if (!(e instanceof ApiError && (e.status === 401 || e.status === 404))) return this.fail(e);
    }
    this.user = null;
    location.hash = "#/";
    this.route();
  }

  async gamesView() {
    const load = ++this.loads;
    this.focusMain(this.t("games.title"));
    replace(this.main, h("p", {}, this.t("loading")));
    let sessions, campaigns = null, chars = null, models = [];
    try {
      sessions = (await this.api.get("/api/sessions")).sessions || [];
      if (this.can("assistant")) campaigns = (await this.api.get("/api/campaigns")).campaigns || [];
      // A server without a character library answers 503: no section.
      chars = await this.api.get("/api/characters").catch((e) => {
        if (e instanceof ApiError && e.status === 503) return null;
        throw e;
      });
      // No model list (no model server) leaves the offline agent.
      if (campaigns) models = await this.api.get("/api/models").catch(() => []);
    } catch (e) {
      if (load !== this.loads) return;
      return this.fail(e);
    }
    // Signing in, a deletion or the user navigating may have started a
    // newer page load meanwhile; only the newest draws.
    if (load !== this.loads) return;
    const list = h("section", {"aria-labelledby": "games-h"}, h("h1", {id: "games-h"}, this.t("games.title")));
    if (sessions.length === 0) {
      list.append(h("p", {id: "no-games"}, this.t("games.none")));
    } else {
      list.append(this.gamesTable(sessions));
    }
    const library = chars ? h("section", {"aria-labelledby": "chars-h", class: "card", id: "library-characters"},
      h("h2", {id: "chars-h"}, this.t("chars.title")),
      characterTable(this, chars, () => this.gamesView()),
      h("p", {}, link("#/characters/new", {class: "button", id: "new-character"}, this.t("chars.create")))) : null;
    replace(this.main, list, campaigns ? this.newGameForm(campaigns, chars || [], Array.isArray(models) ? models : []) : null, library);
  }

  gamesTable(sessions) {
    const fmt = new Intl.DateTimeFormat(this.lang, {dateStyle: "medium", timeStyle: "short"});
    const rows = sessions.map((s) => {
      const title = s.title || s.id;
      const actions = h("td", {class: "actions"},
        link(`#/game/${encodeURIComponent(s.id)}`, {class: "button", "aria-label": this.t("games.resume_named", {title}), "data-resume": s.id}, this.t("games.resume")));
      if (this.can("assistant")) {
        actions.append(h("button", {type: "button", class: "danger", "data-delete": s.id,
          "aria-label": this.t("games.delete_named", {title}), onclick: () => this.confirmDelete(actions, s, title)}, this.t("games.delete")));
      }
      return h("tr", {"data-game": s.id},
        h("th", {scope: "row"}, title),
        h("td", {}, s.campaign),
        h("td", {}, String(s.turn)),
        h("td", {}, s.updated ? fmt.format(new Date(s.updated)) : ""),
        actions);
    });
    return h("div", {class: "scroll"}, h("table", {id: "games"},
      h("thead", {}, h("tr", {},
        h("th", {scope: "col"}, this.t("games.col.title")),
        h("th", {scope: "col"}, this.t("games.col.campaign")),
        h("th", {scope: "col"}, this.t("games.col.turn")),
        h("th", {scope: "col"}, this.t("games.col.updated")),
        h("th", {scope: "col"}, this.t("games.col.actions")))),
      h("tbody", {}, rows)));
  }

  // confirmDelete asks in the page, not with window.confirm, so the
  // question is keyboard- and screen-reader-friendly.
  confirmDelete(cell, s, title) {
    const yes = h("button", {type: "button", class: "danger", id: "confirm-delete", onclick: async () => {
      try {
        await this.api.del(`/api/sessions/${encodeURIComponent(s.id)}`);
        this.notify(this.t("games.deleted", {title}), false);
        this.gamesView();
      } catch (e) {
        this.fail(e);
      }
    }}, this.t("games.confirm_yes"));
    const box = h("div", {class: "confirm", role: "group", "aria-label": this.t("games.delete_named", {title})},
      h("p", {}, this.t("games.confirm", {title})), yes,
      h("button", {type: "button", onclick: () => this.gamesView()}, this.t("games.cancel")));
    replace(cell, box);
    yes.focus();
  }

  newGameForm(campaigns, chars, models) {
    const sel = h("select", {id: "campaign", name: "campaign", required: true},
      campaigns.map((c) => h("option", {value: c.name, disabled: !!c.problem},
        c.problem ? this.t("new.broken", {name: c.name}) : `${c.title || c.name} (${c.name})`)));
    const name = h("input", {id: "game-name", name: "title", type: "text", maxlength: "200"});
    const ok = campaigns.some((c) => !c.problem);
    const picks = chars.map((c) => this.partyPick(c, models));
    return h("section", {"aria-labelledby": "new-h", class: "card"},
      h("h2", {id: "new-h"}, this.t("new.title")),
      ok ? h("form", {id: "new-game", onsubmit: async (ev) => {
        ev.preventDefault();
        const party = picks.map((p) => p.value()).filter(Boolean);
        try {
          const g = await this.api.post("/api/sessions", {campaign: sel.value, title: name.value.trim() || undefined,
            party: party.length ? party : undefined});
          location.hash = `#/game/${encodeURIComponent(g.id)}`;
        } catch (e) {
          this.fail(e);
        }
      }},
      h("label", {for: "campaign"}, this.t("new.campaign")), sel,
      h("label", {for: "game-name"}, this.t("new.name")), name,
      picks.length ? h("fieldset", {class: "party-pick", id: "party-pick"}, h("legend", {}, this.t("new.party")),
        h("p", {class: "hint"}, this.t("new.party_hint")), picks.map((p) => p.el)) : null,
      h("button", {type: "submit"}, this.t("new.create"))) : h("p", {}, this.t("new.none")));
  }

  // partyPick is one library character in the new-game form: in the
  // party or not, and who plays it — an agent on a model of the server's
  // (or the offline agent), a human player by username, or nobody.
  partyPick(s, models) {
    const t = this.t, id = s.id, c = s.character || {};
    const on = h("input", {type: "checkbox", id: `pick-${id}`, name: "party", value: id});
    const ctl = h("select", {id: `ctl-${id}`, name: "controller", onchange: () => show()},
      ["ai", "human", "none"].map((k) => h("option", {value: k}, t("new.controller." + k))));
    const model = modelSelect(t, `model-${id}`, models, "");
    const user = h("input", {id: `user-${id}`, name: "user", type: "text", autocomplete: "off", maxlength: "100"});
    const modelRow = h("div", {}, h("label", {for: `model-${id}`}, t("new.model")), model);
    const userRow = h("div", {}, h("label", {for: `user-${id}`}, t("new.user")), user);
    const show = () => {
      modelRow.hidden = ctl.value !== "ai";
      userRow.hidden = ctl.value !== "human";
    };
    show();
    const el = h("div", {class: "pick", "data-pick": id},
      h("label", {class: "check", for: `pick-${id}`}, on, " ", c.name || id, " · ",
        t("chars.what", {level: c.level || 1, race: c.race_name || "", class: c.class_name || ""})),
      h("label", {for: `ctl-${id}`}, t("new.controller")), ctl, modelRow, userRow);
    return {el, value: () => {
      if (!on.checked) return null;
      const v = {character: id, controller: ctl.value};
      if (ctl.value === "ai" && model.value) v.model = model.value;
      if (ctl.value === "human") v.user = user.value.trim();
      return v;
    }};
  }
}

new App().start().catch((e) => {
  const main = document.getElementById("main");
  replace(main, h("p", {class: "alert error"}, String(e && e.message || e)));
});
