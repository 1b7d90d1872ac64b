// Settings for the GM: which model each role uses (read-only: the
// configuration file sets them), a connection test per model, and users
// with their keys. A new key is shown once, from this view's memory only:
// it is never stored, and a reload shows it no more.

import {h, replace} from "./dom.js";

const ROLES = ["player", "trusted", "assistant", "gm"];

export class SettingsView {
  constructor(app) {
    this.app = app;
    this.t = app.t;
    this.closed = false;
  }

  close() {
    this.closed = true;
    this.fresh = null;
  }

  open() {
    const t = this.t;
    this.models = h("div", {id: "models"}, h("p", {}, t("loading")));
    this.users = h("div", {id: "users"}, h("p", {}, t("loading")));
    this.keyBox = h("div", {id: "new-key-box"});
    this.app.focusMain(t("settings.title"));
    replace(this.app.main,
      h("h1", {id: "settings-h"}, t("settings.title")),
      h("section", {class: "card", "aria-labelledby": "models-h"}, h("h2", {id: "models-h"}, t("settings.models")), this.models),
      h("section", {class: "card", "aria-labelledby": "users-h"}, h("h2", {id: "users-h"}, t("settings.users")),
        this.keyBox, this.users, this.newUserForm()));
    this.loadModels();
    this.loadUsers();
  }

  async loadModels() {
    const t = this.t;
    let roles, models, problem = "";
    try {
      roles = (await this.app.api.get("/api/models/roles")).roles || [];
    } catch (e) {
      return this.app.fail(e);
    }
    try {
      models = await this.app.api.get("/api/models");
    } catch (e) {
      models = [];
      problem = e.message;
    }
    if (this.closed) return;
    const roleRows = roles.map((r) => h("tr", {"data-role": r.role},
      h("th", {scope: "row"}, t("mrole." + r.role)), h("td", {}, r.provider), h("td", {}, r.model || t("settings.default_model"))));
    const modelRows = (models || []).map((m) => {
      const result = h("td", {class: "test-result", "aria-live": "polite", "data-label": t("settings.col.result")});
      const btn = h("button", {type: "button", "data-test": m.name, "aria-label": t("settings.test_named", {model: m.name}),
        onclick: () => this.test(m.name, btn, result)}, t("settings.test"));
      return h("tr", {"data-model": m.name},
        h("th", {scope: "row"}, m.name),
        h("td", {"data-label": t("settings.col.context")}, m.context_length ? String(m.context_length) : ""),
        h("td", {class: "actions"}, btn), result);
    });
    replace(this.models,
      h("h3", {}, t("settings.roles")),
      h("p", {class: "muted", id: "roles-readonly"}, t("settings.roles_readonly")),
      h("div", {class: "scroll"}, h("table", {id: "model-roles"},
        h("thead", {}, h("tr", {}, ["role", "provider", "model"].map((c) => h("th", {scope: "col"}, t("settings.col." + c))))),
        h("tbody", {}, roleRows))),
      h("h3", {}, t("settings.available")),
      problem ? h("p", {class: "alert error", id: "models-problem"}, t("settings.models_failed", {reason: problem})) : null,
      modelRows.length ? h("div", {class: "scroll"}, h("table", {id: "model-list", class: "stack"},
        h("thead", {}, h("tr", {}, ["model", "context", "test", "result"].map((c) => h("th", {scope: "col"}, t("settings.col." + c))))),
        h("tbody", {}, modelRows))) : (problem ? null : h("p", {}, t("settings.no_models"))));
  }

  async test(model, btn, cell) {
    const t = this.t;
    btn.disabled = true;
    cell.dataset.ok = "";
    replace(cell, t("settings.testing"));
    try {
      const r = await this.app.api.post("/api/models/test", {model});
      if (this.closed) return;
      cell.dataset.ok = r.ok ? "true" : "false";
      replace(cell, r.ok ? t("settings.test_ok", {ms: r.latency_ms}) : t("settings.test_failed", {reason: r.error}));
    } catch (e) {
      if (this.closed) return;
      cell.dataset.ok = "false";
      replace(cell, t("settings.test_failed", {reason: e.message}));
    } finally {
      btn.disabled = false;
    }
  }

  async loadUsers() {
    let list;
    try {
      list = (await this.app.api.get("/api/users")).users || [];
    } catch (e) {
      return this.app.fail(e);
    }
    if (this.closed) return;
    replace(this.users, list.map((u) => this.user(u)));
  }

  user(u) {
    const t = this.t;
    const fmt = new Intl.DateTimeFormat(this.app.lang, {dateStyle: "medium", timeStyle: "short"});
    const when = (s) => (s ? fmt.format(new Date(s)) : t("settings.never"));
    const rows = u.keys.map((k) => {
      const actions = h("td", {class: "actions"});
      if (!k.revoked) {
        actions.append(h("button", {type: "button", class: "danger", "data-revoke": k.id,
          "aria-label": t("settings.revoke_named", {prefix: k.prefix}),
          onclick: () => this.confirmRevoke(actions, k)}, t("settings.revoke")));
      }
      return h("tr", {"data-key": k.id, "data-revoked": k.revoked ? "true" : "false"},
        h("th", {scope: "row"}, h("code", {}, k.prefix + "…"), k.current ? [" ", h("span", {class: "badge"}, t("settings.current"))] : null),
        h("td", {"data-label": t("settings.col.created")}, when(k.created)),
        h("td", {"data-label": t("settings.col.used")}, when(k.last_used)),
        h("td", {"data-label": t("settings.col.state")}, k.revoked ? t("settings.revoked_at", {when: when(k.revoked)}) : t("settings.active")),
        actions);
    });
    const id = "user-" + u.name.replace(/[^A-Za-z0-9_-]/g, "_");
    return h("section", {class: "user", "data-user": u.name, "aria-labelledby": id},
      h("h3", {id}, t("settings.user_heading", {name: u.name, role: t("role." + u.role)})),
      rows.length ? h("div", {class: "scroll"}, h("table", {class: "keys stack"},
        h("caption", {class: "sr"}, t("settings.keys_of", {name: u.name})),
        h("thead", {}, h("tr", {}, ["key", "created", "used", "state", "actions"].map((c) => h("th", {scope: "col"}, t("settings.col." + c))))),
        h("tbody", {}, rows))) : h("p", {}, t("settings.no_keys")),
      h("button", {type: "button", "data-new-key": u.name, "aria-label": t("settings.new_key_named", {name: u.name}),
        onclick: () => this.issue(`/api/users/${encodeURIComponent(u.name)}/keys`, {})}, t("settings.new_key")));
  }

  confirmRevoke(cell, k) {
    const t = this.t;
    const yes = h("button", {type: "button", class: "danger", id: "confirm-revoke", onclick: async () => {
      try {
        await this.app.api.del(`/api/keys/${encodeURIComponent(k.id)}`);
        this.app.notify(t("settings.revoked", {prefix: k.prefix}), false);
        this.loadUsers();
      } catch (e) {
        this.app.fail(e);
      }
    }}, t("settings.revoke_yes"));
    replace(cell, h("div", {class: "confirm", role: "group", "aria-label": t("settings.revoke_named", {prefix: k.prefix})},
      h("p", {}, k.current ? t("settings.revoke_own") : t("settings.revoke_confirm", {prefix: k.prefix})), yes,
      h("button", {type: "button", class: "secondary", onclick: () => this.loadUsers()}, t("settings.cancel"))));
    yes.focus();
  }

  newUserForm() {
    const t = this.t;
    const name = h("input", {id: "new-user-name", name: "name", type: "text", maxlength: "64", required: true, autocomplete: "off"});
    const role = h("select", {id: "new-user-role", name: "role"}, ROLES.map((r) => h("option", {value: r}, t("role." + (r === "gm" ? "gm_only" : r)))));
    return h("form", {id: "new-user", onsubmit: async (ev) => {
      ev.preventDefault();
      if (await this.issue("/api/users", {name: name.value.trim(), role: role.value})) ev.target.reset();
    }},
    h("h3", {}, t("settings.new_user")),
    h("label", {for: "new-user-name"}, t("settings.field.name")), name,
    h("label", {for: "new-user-role"}, t("settings.field.role")), role,
    h("button", {type: "submit", id: "new-user-go"}, t("settings.create_user")));
  }

  // issue makes a key (with a new user or for one) and shows it once.
  async issue(path, body) {
    let k;
    try {
      k = await this.app.api.post(path, body);
    } catch (e) {
      this.app.fail(e);
      return false;
    }
    if (this.closed) return false;
    this.showKey(k);
    this.loadUsers();
    return true;
  }

  showKey(k) {
    const t = this.t;
    const field = h("input", {id: "new-key", type: "text", readonly: true, spellcheck: "false", autocomplete: "off",
      "aria-describedby": "new-key-note"});
    field.value = k.key; // the property, not the attribute: kept out of the markup
    const copied = h("span", {id: "copy-status", role: "status"});
    const copy = h("button", {type: "button", id: "copy-key", onclick: async () => {
      try {
        await navigator.clipboard.writeText(field.value);
        replace(copied, t("settings.copied"));
      } catch (e) {
        // Without clipboard access the key is selected for Ctrl+C.
        field.select();
        replace(copied, t("settings.copy_manually"));
      }
    }}, t("settings.copy"));
    const box = h("div", {class: "card new-key", role: "region", "aria-labelledby": "new-key-h"},
      h("h3", {id: "new-key-h"}, t("settings.new_key_for", {name: k.user, role: t("role." + k.role)})),
      h("p", {id: "new-key-note"}, t("settings.shown_once")),
      h("label", {for: "new-key", class: "sr"}, t("settings.key")),
      h("div", {class: "row"}, field, copy), copied,
      h("button", {type: "button", class: "secondary", id: "hide-key", onclick: () => replace(this.keyBox)}, t("settings.hide_key")));
    replace(this.keyBox, box);
    field.focus();
    field.select();
  }
}
