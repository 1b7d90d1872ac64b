// The library: documents the reader's role may see, upload with live
// ingest progress, edit and delete (GM side), search with the reasons
// each passage ranked, and the page viewer at #/library/ID/pages/N (the
// assistant's citations link there).

import {ApiError} from "./api.js";
import {h, image, link, replace} from "./dom.js";

// Access levels by name, as the API sends and takes them (numbers 1–4
// are read too).
const LEVELS = ["player", "trusted", "assistant", "gm_only"];
const levelName = (v) => (LEVELS.includes(v) ? v : LEVELS[Number(v) - 1] || "player");

// How often a running ingest is asked for its progress.
const POLL_MS = 700;

export function pagePath(doc, page) {
  return `#/library/${encodeURIComponent(doc)}/pages/${Number(page) || 1}`;
}

export class LibraryView {
  constructor(app) {
    this.app = app;
    this.t = app.t;
    this.closed = false;
    this.timer = 0;
    this.xhr = null;
  }

  close() {
    this.closed = true;
    clearTimeout(this.timer);
    if (this.xhr) this.xhr.abort();
  }

  open() {
    const t = this.t;
    this.docs = h("div", {id: "library-docs"}, h("p", {}, t("loading")));
    this.results = h("div", {id: "search-results", "aria-live": "polite"});
    this.app.focusMain(t("library.title"));
    // The upload form, whose size is known, comes before the list, whose
    // size is not until it arrives: the list growing moves nothing.
    replace(this.app.main,
      h("h1", {id: "library-h"}, t("library.title")),
      this.searchForm(),
      this.results,
      this.app.can("assistant") ? this.uploadForm() : null,
      h("section", {"aria-labelledby": "docs-h"}, h("h2", {id: "docs-h"}, t("library.documents")), this.docs));
    this.load();
  }

  async load() {
    let list;
    try {
      list = await this.app.api.get("/api/documents");
    } catch (e) {
      return this.app.fail(e);
    }
    if (this.closed) return;
    const docs = list.documents || [];
    const running = (list.ingesting || []).filter((j) => j.status === "queued" || j.status === "running");
    replace(this.docs,
      docs.length ? this.table(docs) : h("p", {id: "no-documents"}, this.t("library.none")),
      running.length ? h("p", {class: "muted"}, this.t("library.ingesting", {count: running.length})) : null);
  }

  table(docs) {
    const t = this.t;
    const gm = this.app.can("assistant");
    const rows = docs.map((d) => {
      const title = d.title || d.source || d.id;
      const actions = h("td", {class: "actions"},
        link(pagePath(d.id, 1), {class: "button", "data-open": d.id, "aria-label": t("library.open_named", {title})}, t("library.open")));
      if (gm) {
        actions.append(
          h("button", {type: "button", "data-edit": d.id, "aria-label": t("library.edit_named", {title}),
            onclick: (ev) => this.edit(ev.target.closest("tr"), d)}, t("library.edit")),
          h("button", {type: "button", class: "danger", "data-delete": d.id, "aria-label": t("library.delete_named", {title}),
            onclick: () => this.confirmDelete(actions, d, title)}, t("library.delete")));
      }
      // data-label names each cell where narrow screens stack them.
      return h("tr", {"data-document": d.id},
        h("th", {scope: "row", class: "doc-title"}, title),
        h("td", {"data-label": t("library.col.format")}, d.format || ""),
        h("td", {"data-label": t("library.col.pages")}, String(d.pages || 0)),
        h("td", {"data-label": t("library.col.access")}, t("access." + levelName(d.access_level))),
        h("td", {class: "tags", "data-label": t("library.col.tags")}, (d.tags || []).join(", ")),
        actions);
    });
    return h("div", {class: "scroll"}, h("table", {id: "documents", class: "stack"},
      h("thead", {}, h("tr", {},
        ["title", "format", "pages", "access", "tags", "actions"].map((c) => h("th", {scope: "col"}, t("library.col." + c))))),
      h("tbody", {}, rows)));
  }

  accessSelect(id, value) {
    // Only levels the user's own role can see can be given.
    const own = LEVELS.indexOf(this.app.user.role);
    const sel = h("select", {id, name: "access_level"},
      LEVELS.filter((l, i) => own < 0 || i <= own).map((l) =>
        h("option", {value: l}, this.t("access." + l))));
    sel.value = value;
    return sel;
  }

  // edit turns a row into a form; Escape or Cancel puts it back.
  edit(row, d) {
    const t = this.t;
    const title = h("input", {id: "edit-title", name: "title", type: "text", maxlength: "300", required: true, value: d.title || ""});
    const tags = h("input", {id: "edit-tags", name: "tags", type: "text", value: (d.tags || []).join(", ")});
    const level = this.accessSelect("edit-access", levelName(d.access_level));
    const cancel = () => this.load();
    const form = h("form", {id: "edit-form", class: "edit", onkeydown: (ev) => { if (ev.key === "Escape") cancel(); },
      onsubmit: async (ev) => {
        ev.preventDefault();
        try {
          await this.app.api.request("PATCH", `/api/documents/${encodeURIComponent(d.id)}`, {
            title: title.value.trim(), access_level: level.value,
            tags: tags.value.split(",").map((s) => s.trim()).filter(Boolean)});
          this.app.notify(t("library.saved", {title: title.value.trim()}), false);
          this.load();
        } catch (e) {
          this.app.fail(e);
        }
      }},
    h("label", {for: "edit-title"}, t("library.field.title")), title,
    h("label", {for: "edit-tags"}, t("library.field.tags")), tags,
    h("label", {for: "edit-access"}, t("library.field.access")), level,
    h("div", {class: "row"}, h("button", {type: "submit", id: "edit-save"}, t("library.save")),
      h("button", {type: "button", class: "secondary", onclick: cancel}, t("library.cancel"))));
    replace(row, h("td", {colspan: "6"}, form));
    title.focus();
  }

  confirmDelete(cell, d, title) {
    const t = this.t;
    const yes = h("button", {type: "button", class: "danger", id: "confirm-delete", onclick: async () => {
      try {
        await this.app.api.del(`/api/documents/${encodeURIComponent(d.id)}`);
        this.app.notify(t("library.deleted", {title}), false);
        this.load();
      } catch (e) {
        this.app.fail(e);
      }
    }}, t("library.confirm_yes"));
    replace(cell, h("div", {class: "confirm", role: "group", "aria-label": t("library.delete_named", {title})},
      h("p", {}, t("library.confirm", {title})), yes,
      h("button", {type: "button", class: "secondary", onclick: () => this.load()}, t("library.cancel"))));
    yes.focus();
  }

  uploadForm() {
    const t = this.t;
    const file = h("input", {id: "upload-file", name: "file", type: "file", required: true,
      accept: ".pdf,.epub,.md,.markdown,.txt,application/pdf,application/epub+zip,text/markdown,text/plain"});
    const title = h("input", {id: "upload-title", name: "title", type: "text", maxlength: "300"});
    const tags = h("input", {id: "upload-tags", name: "tags", type: "text"});
    const level = this.accessSelect("upload-access", "player");
    this.bar = h("progress", {id: "upload-progress", max: "100", value: "0", "aria-labelledby": "upload-status", hidden: true});
    this.status = h("p", {id: "upload-status", role: "status", class: "line"});
    const form = h("form", {id: "upload", onsubmit: (ev) => {
      ev.preventDefault();
      if (!file.files.length) return;
      const fd = new FormData();
      fd.append("file", file.files[0]);
      fd.append("title", title.value.trim());
      fd.append("tags", tags.value);
      fd.append("access_level", level.value);
      this.upload(fd, form);
    }},
    h("label", {for: "upload-file"}, t("library.field.file")), file,
    h("p", {class: "hint", id: "upload-hint"}, t("library.upload_hint")),
    h("label", {for: "upload-title"}, t("library.field.title_optional")), title,
    h("label", {for: "upload-tags"}, t("library.field.tags")), tags,
    h("label", {for: "upload-access"}, t("library.field.access")), level,
    h("button", {type: "submit", id: "upload-go"}, t("library.upload")));
    return h("section", {class: "card", "aria-labelledby": "upload-h"},
      h("h2", {id: "upload-h"}, t("library.upload_title")), form, this.bar, this.status);
  }

  // upload sends the file, showing the bytes sent, then follows the
  // ingest job.
  async upload(fd, form) {
    const t = this.t;
    const go = form.querySelector("#upload-go");
    go.disabled = true;
    this.bar.hidden = false;
    this.bar.value = 0;
    this.progress("sending", t("library.sending", {percent: 0}));
    const up = this.app.api.upload("/api/documents", fd, (loaded, total) => {
      const pct = Math.round((loaded / total) * 100);
      this.bar.value = pct;
      this.progress("sending", t("library.sending", {percent: pct}));
    });
    this.xhr = up;
    let body;
    try {
      body = await up.done;
    } catch (e) {
      if (this.closed) return;
      go.disabled = false;
      if (e.status === 401) return this.app.fail(e);
      return this.progress("failed", e.status === 0 ? t("error.network") : t("library.failed", {reason: e.message}));
    } finally {
      this.xhr = null;
    }
    if (this.closed) return;
    go.disabled = false;
    form.reset();
    if (body.existing) {
      this.bar.value = 100;
      this.progress("done", t("library.existing"), body.document_id);
      return this.load();
    }
    this.follow(body.id);
  }

  // follow polls the ingest job (GET /api/documents/JOB) until it is done
  // or failed, showing its stage and pages.
  async follow(id) {
    const t = this.t;
    let j;
    try {
      j = await this.app.api.get(`/api/documents/${encodeURIComponent(id)}`);
    } catch (e) {
      return this.app.fail(e);
    }
    if (this.closed) return;
    if (j.status === "done") {
      this.bar.value = 100;
      this.progress("done", t("library.done", {title: j.title || j.file}), j.document_id);
      return this.load();
    }
    if (j.status === "failed") {
      this.progress("failed", t("library.failed", {reason: j.error || ""}));
      return this.load();
    }
    // A job just taken by the server runs before its first stage is named.
    const stage = j.stage ? t("stage." + j.stage) : t(j.status === "running" ? "library.starting" : "library.queued");
    if (j.total > 0) {
      this.bar.value = Math.round((j.done / j.total) * 100);
      this.progress(j.status, t(j.stage === "extract" ? "library.stage_pages" : "library.stage_items", {stage, done: j.done, total: j.total}), "", j.stage);
    } else {
      this.progress(j.status, stage, "", j.stage);
    }
    this.timer = setTimeout(() => this.follow(id), POLL_MS);
  }

  progress(status, text, doc, stage) {
    this.status.dataset.status = status;
    if (stage) this.status.dataset.stage = stage;
    replace(this.status, text, doc ? [" ", link(pagePath(doc, 1), {id: "upload-open"}, this.t("library.open"))] : null);
  }

  searchForm() {
    const t = this.t;
    const q = h("input", {id: "search-q", name: "query", type: "search", maxlength: "2000", required: true});
    return h("form", {id: "search", role: "search", "aria-label": t("library.search"), onsubmit: (ev) => {
      ev.preventDefault();
      this.search(q.value.trim());
    }}, h("label", {for: "search-q"}, t("library.search")),
    h("div", {class: "row"}, q, h("button", {type: "submit", id: "search-go"}, t("library.search_go"))));
  }

  async search(query) {
    if (!query) return;
    const t = this.t;
    replace(this.results, h("p", {}, t("loading")));
    let res;
    try {
      res = await this.app.api.post("/api/search", {query, explain: true, limit: 10});
    } catch (e) {
      replace(this.results);
      return this.app.fail(e);
    }
    if (this.closed) return;
    const hits = res.results || [];
    const sum = [t("library.examined", {kept: hits.length, examined: res.examined || hits.length})];
    if (res.withheld) sum.push(t("library.withheld", {count: res.withheld}));
    replace(this.results, h("section", {"aria-labelledby": "results-h"},
      h("h2", {id: "results-h"}, t("library.results")),
      h("p", {class: "muted", id: "search-summary"}, sum.join(" ")),
      hits.length ? h("ol", {class: "hits"}, hits.map((x) => this.hit(x))) : h("p", {id: "no-results"}, t("library.no_results")),
      (res.cut || []).length ? h("details", {class: "cut"}, h("summary", {}, t("library.cut", {count: res.cut.length})),
        h("ol", {class: "hits"}, res.cut.map((x) => this.hit(x)))) : null));
  }

  hit(x) {
    const t = this.t;
    const where = [x.title, x.heading, x.page ? t("library.page", {page: x.page}) : ""].filter(Boolean).join(" · ");
    const e = x.explain || {signals: []};
    const reasons = e.signals.map((s) => t("explain." + s.kind, {rank: s.rank, score: Number(s.score).toFixed(3)}));
    if (e.cut) reasons.push(t("explain.cut." + e.cut));
    return h("li", {class: "hit", "data-chunk": x.id},
      h("p", {class: "where"}, x.document_id && x.page ? link(pagePath(x.document_id, x.page), {"data-page-link": ""}, where) : where),
      h("p", {class: "text"}, x.text.length > 600 ? x.text.slice(0, 600) + "…" : x.text),
      h("p", {class: "explain"}, t("library.why", {rank: e.rank || "?", score: Number(x.score).toFixed(4)}), " ",
        h("span", {class: "reasons"}, reasons.join("; "))));
  }
}

// PageView shows one page of a document: its text, its images and the
// way to the pages beside it.
export class PageView {
  constructor(app, doc, page) {
    this.app = app;
    this.t = app.t;
    this.doc = doc;
    this.page = page;
    this.closed = false;
  }

  close() { this.closed = true; }

  async open() {
    const t = this.t;
    replace(this.app.main, h("p", {}, t("loading")));
    const id = encodeURIComponent(this.doc);
    let d, p, ims;
    try {
      [d, p, ims] = await Promise.all([
        this.app.api.get(`/api/documents/${id}`),
        this.app.api.get(`/api/documents/${id}/pages/${this.page}`),
        this.app.api.get(`/api/images?document_id=${id}&page_number=${this.page}`).catch(() => ({images: []})),
      ]);
    } catch (e) {
      if (e instanceof ApiError && e.status === 404) {
        replace(this.app.main, this.crumbs(), h("h1", {id: "page-h"}, t("page.missing_title")), h("p", {id: "page-missing"}, e.message));
        return this.app.focusMain(t("page.missing_title"));
      }
      return this.app.fail(e);
    }
    if (this.closed) return;
    const title = d.title || d.source || this.doc;
    const images = Array.isArray(ims) ? ims : (ims.images || []);
    const nav = h("nav", {class: "pager row", "aria-label": t("page.pages")},
      this.page > 1 ? link(pagePath(this.doc, this.page - 1), {id: "page-prev", class: "button", rel: "prev"}, "← " + t("page.prev")) : null,
      h("span", {id: "page-of"}, t("page.of", {page: this.page, pages: d.pages || "?"})),
      this.page < (d.pages || 0) ? link(pagePath(this.doc, this.page + 1), {id: "page-next", class: "button", rel: "next"}, t("page.next") + " →") : null);
    replace(this.app.main,
      this.crumbs(),
      h("h1", {id: "page-h", "data-document": this.doc, "data-page": String(this.page)}, title),
      nav,
      h("article", {id: "page-text", class: "page-text", "aria-labelledby": "page-h"}, (p.text || "").split(/\n{2,}/).map((para) => h("p", {}, para))),
      images.length ? h("section", {"aria-labelledby": "images-h"}, h("h2", {id: "images-h"}, t("page.images")),
        h("div", {class: "images"}, images.map((im) => h("figure", {},
          image(`/api/images/${Number(im.id)}/data`, im.description || t("page.image_alt", {page: this.page, n: im.index + 1}),
            {width: im.width, height: im.height}),
          im.description ? h("figcaption", {}, im.description) : null)))) : null);
    this.app.focusMain(t("page.title", {title, page: this.page}));
  }

  crumbs() {
    return h("nav", {class: "crumbs", "aria-label": this.t("library.title")},
      link("#/library", {id: "back-library"}, "← " + this.t("library.title")));
  }
}
