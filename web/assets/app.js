// Hearth in the browser: sign-in, the games list and the game view, routed
// by the location hash (#/games, #/game/ID) so the server serves one shell.

import {Api, ApiError} from "./api.js";
import {h, link, replace} from "./dom.js";
import {loadCatalog, pickLanguage, saveLanguage, translator} from "./i18n.js";
import {GameView} from "./game.js";
import {AssistantView} from "./assistant.js";
import {LibraryView, PageView} from "./library.js";
import {SettingsView} from "./settings.js";

const RANK = {player: 1, trusted: 2, assistant: 3, gm_only: 4};

class App {
  constructor() {
    this.api = new Api();
    this.user = null;
    this.view = null; // the live view, closed on navigation
    this.main = document.getElementById("main");
    this.nav = document.getElementById("nav");
    this.alertBox = document.getElementById("alert");
  }

  async start() {
    this.english = await loadCatalog("en");
    await this.setLanguage(pickLanguage(), false);
    const sel = document.getElementById("lang");
    sel.addEventListener("change", () => this.setLanguage(sel.value, true));
    // Routes are #/…; the skip link's #main only moves focus.
    window.addEventListener("hashchange", () => {
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
    replace(this.alertBox, text);
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
    if (this.view) {
      this.view.close();
      this.view = null;
    }
    this.renderNav();
    const hash = location.hash || "#/";
    if (!this.user) return this.signInView();
    const m = /^#\/game\/([A-Za-z0-9_-]+)$/.exec(hash);
    if (m) {
      this.view = new GameView(this, m[1]);
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
    this.focusMain(this.t("games.title"));
    replace(this.main, h("p", {}, this.t("loading")));
    let sessions, campaigns = null;
    try {
      sessions = (await this.api.get("/api/sessions")).sessions || [];
      if (this.can("assistant")) campaigns = (await this.api.get("/api/campaigns")).campaigns || [];
    } catch (e) {
      return this.fail(e);
    }
    const list = h("section", {"aria-labelledby": "games-h"}, h("h1", {id: "games-h"}, this.t("games.title")));
    if (sessions.length === 0) {
      list.append(h("p", {id: "no-games"}, this.t("games.none")));
    } else {
      list.append(this.gamesTable(sessions));
    }
    replace(this.main, list, campaigns ? this.newGameForm(campaigns) : null);
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

  newGameForm(campaigns) {
    const sel = h("select", {id: "campaign", name: "campaign", required: true},
      campaigns.map((c) => h("option", {value: c.name, disabled: !!c.problem},
        c.problem ? this.t("new.broken", {name: c.name}) : `${c.title || c.name} (${c.name})`)));
    const name = h("input", {id: "game-name", name: "title", type: "text", maxlength: "200"});
    const ok = campaigns.some((c) => !c.problem);
    return h("section", {"aria-labelledby": "new-h", class: "card"},
      h("h2", {id: "new-h"}, this.t("new.title")),
      ok ? h("form", {id: "new-game", onsubmit: async (ev) => {
        ev.preventDefault();
        try {
          const g = await this.api.post("/api/sessions", {campaign: sel.value, title: name.value.trim() || undefined});
          location.hash = `#/game/${encodeURIComponent(g.id)}`;
        } catch (e) {
          this.fail(e);
        }
      }},
      h("label", {for: "campaign"}, this.t("new.campaign")), sel,
      h("label", {for: "game-name"}, this.t("new.name")), name,
      h("button", {type: "submit"}, this.t("new.create"))) : h("p", {}, this.t("new.none")));
  }
}

new App().start().catch((e) => {
  const main = document.getElementById("main");
  replace(main, h("p", {class: "alert error"}, String(e && e.message || e)));
});
