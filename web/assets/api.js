// The API client: same-origin fetches with the session cookie, the CSRF
// token (held in memory only) on every state-changing request, and the
// server's {"error":{code,message}} turned into an ApiError (with the
// field a refusal names, when it names one).

export class ApiError extends Error {
  constructor(status, code, message, field) {
    super(message || `HTTP ${status}`);
    this.status = status;
    this.code = code;
    this.field = field || "";
  }
}

const UNSAFE = new Set(["POST", "PUT", "PATCH", "DELETE"]);

export class Api {
  #csrf = "";
  #lang = "";

  setCSRF(token) { this.#csrf = token || ""; }

  // setLanguage makes the server word its messages (a refused character
  // build, say) in the language the page shows, which the switcher may have
  // set apart from the browser's.
  setLanguage(lang) { this.#lang = lang || ""; }

  async request(method, path, body) {
    const headers = {"Accept": "application/json"};
    if (body !== undefined) headers["Content-Type"] = "application/json";
    if (UNSAFE.has(method)) headers["X-CSRF-Token"] = this.#csrf;
    if (this.#lang) headers["Accept-Language"] = this.#lang;
    let res;
    try {
      res = await fetch(path, {method, headers, credentials: "same-origin", cache: "no-store",
        body: body === undefined ? undefined : JSON.stringify(body)});
    } catch (e) {
      throw new ApiError(0, "network", "");
    }
    if (res.status === 204) return null;
    const data = await res.json().catch(() => null);
    if (!res.ok) {
      const err = data && data.error ? data.error : {};
      throw new ApiError(res.status, err.code || "", err.message || "", err.field);
    }
    return data;
  }

  // stream posts body and returns the Response unread, for a streamed
  // answer (server-sent events); an error status is an ApiError.
  async stream(path, body, signal) {
    const headers = {"Accept": "text/event-stream", "Content-Type": "application/json", "X-CSRF-Token": this.#csrf};
    if (this.#lang) headers["Accept-Language"] = this.#lang;
    let res;
    try {
      res = await fetch(path, {method: "POST", credentials: "same-origin", cache: "no-store", signal, headers,
        body: JSON.stringify(body)});
    } catch (e) {
      if (e.name === "AbortError") throw e;
      throw new ApiError(0, "network", "");
    }
    if (!res.ok) {
      const data = await res.json().catch(() => null);
      const err = data && data.error ? data.error : {};
      const e = new ApiError(res.status, err.code || "", err.message || "");
      e.retryAfter = Number(res.headers.get("Retry-After")) || 0;
      throw e;
    }
    return res;
  }

  // upload posts a FormData with XMLHttpRequest, whose upload events give
  // the bytes sent (fetch has none), calling onProgress(loaded, total);
  // abort() on the returned handle stops it.
  upload(path, form, onProgress) {
    const xhr = new XMLHttpRequest();
    const done = new Promise((resolve, reject) => {
      xhr.open("POST", path);
      xhr.setRequestHeader("Accept", "application/json");
      xhr.setRequestHeader("X-CSRF-Token", this.#csrf);
      xhr.upload.addEventListener("progress", (ev) => {
        if (ev.lengthComputable) onProgress(ev.loaded, ev.total);
      });
      xhr.addEventListener("error", () => reject(new ApiError(0, "network", "")));
      xhr.addEventListener("abort", () => reject(new ApiError(0, "aborted", "")));
      xhr.addEventListener("load", () => {
        let data = null;
        try { data = JSON.parse(xhr.responseText); } catch (e) { /* no JSON: said below */ }
        if (xhr.status >= 200 && xhr.status < 300 && data) return resolve(data);
        const err = data && data.error ? data.error : {};
        reject(new ApiError(xhr.status, err.code || "", err.message || ""));
      });
      xhr.send(form);
    });
    return {done, abort: () => xhr.abort()};
  }

  get(path) { return this.request("GET", path); }
  post(path, body) { return this.request("POST", path, body ?? {}); }
  put(path, body) { return this.request("PUT", path, body ?? {}); }
  del(path) { return this.request("DELETE", path); }

  // signIn trades the key for the session cookie; the key goes no further.
  async signIn(key, username) {
    const s = await this.post("/api/session", {key, username});
    this.setCSRF(s.csrf_token);
    return s;
  }

  async session() {
    try {
      const s = await this.get("/api/session");
      this.setCSRF(s.csrf_token);
      return s;
    } catch (e) {
      if (e.status === 401 || e.status === 404) return null;
      throw e;
    }
  }

  async signOut() {
    try { await this.del("/api/session"); } finally { this.setCSRF(""); }
  }
}
