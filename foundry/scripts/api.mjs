// The Hearth client: the routes of seed 000 §4.3 the module uses, each
// request carrying the user's own key as a Bearer token.
import { readSSE } from "./sse.mjs";

/**
 * @typedef {object} ModelInfo
 * @property {string} name
 * @property {number} [context_length]
 * @property {string} [parameter_size]
 * @property {string} [quantization]
 */

/**
 * @typedef {object} ChatEvent an SSE event of seed 000 §2.4.4
 * @property {string} type content, tool_call, tool_status, tool_result, pause, error or done
 * @property {string} [text]
 * @property {string} [id]
 * @property {string} [tool]
 * @property {Record<string, unknown>} [args]
 * @property {string} [summary]
 * @property {string} [message]
 * @property {string} [reason]
 * @property {number} [tool_calls_made]
 * @property {number} [elapsed_seconds]
 * @property {boolean} [recoverable]
 * @property {{prompt_tokens: number, completion_tokens: number}} [usage]
 */

/**
 * @typedef {object} UserContext seed 000 §2.3
 * @property {string} userId
 * @property {string} userName
 * @property {number} role
 * @property {string[]} [ownedActorIds]
 * @property {string} [characterId]
 */

/**
 * @typedef {object} ChatRequest
 * @property {string} [model]
 * @property {{role: string, content: string}[]} messages
 * @property {boolean} [stream]
 * @property {UserContext} [user_context]
 * @property {string} [conversation_id]
 * @property {string[]} [tools]
 * @property {unknown} [system_schema]
 */

/** An HTTP error from Hearth, with its status and the server's message. */
export class HearthError extends Error {
  /**
   * @param {number} status
   * @param {string} message
   * @param {string} [code]
   */
  constructor(status, message, code) {
    super(message);
    this.name = "HearthError";
    this.status = status;
    this.code = code ?? "";
  }
}

export class HearthClient {
  /**
   * @param {object} opts
   * @param {string} opts.baseUrl the server, e.g. http://127.0.0.1:8080
   * @param {string} opts.apiKey the user's own key
   * @param {typeof fetch} [opts.fetch] for tests; the global fetch otherwise
   */
  constructor({ baseUrl, apiKey, fetch: f }) {
    this.baseUrl = String(baseUrl ?? "").replace(/\/+$/, "");
    this.apiKey = apiKey ?? "";
    this.fetchFn = f ?? globalThis.fetch.bind(globalThis);
  }

  /** @returns {boolean} whether a server and a key are set */
  get configured() {
    return this.baseUrl !== "" && this.apiKey !== "";
  }

  /**
   * @param {string} path
   * @param {RequestInit} [init]
   * @returns {Promise<Response>}
   */
  async request(path, init = {}) {
    if (!this.baseUrl) throw new HearthError(0, "The Hearth server URL is not set.");
    const headers = new Headers(init.headers);
    if (this.apiKey) headers.set("Authorization", `Bearer ${this.apiKey}`);
    if (init.body && !headers.has("Content-Type")) headers.set("Content-Type", "application/json");
    const res = await this.fetchFn(this.baseUrl + path, { ...init, headers });
    if (!res.ok) throw await errorOf(res);
    return res;
  }

  /**
   * @param {string} path
   * @param {unknown} [body]
   * @param {string} [method]
   * @returns {Promise<any>}
   */
  async json(path, body, method) {
    const init = body === undefined ? { method: method ?? "GET" } : { method: method ?? "POST", body: JSON.stringify(body) };
    const res = await this.request(path, init);
    if (res.status === 204) return null;
    return res.json();
  }

  /** @returns {Promise<{status: string, version: string}>} GET /health, which needs no key */
  health() {
    return this.json("/health");
  }

  /** @returns {Promise<ModelInfo[]>} */
  models() {
    return this.json("/api/models");
  }

  /**
   * Check the server answers and accepts the key: /health, then
   * /api/models (which needs the key).
   * @returns {Promise<{version: string, models: ModelInfo[]}>}
   */
  async testConnection() {
    const h = await this.health();
    const models = await this.models();
    return { version: h.version, models };
  }

  /**
   * POST /api/chat as a stream, calling onEvent for each event until the
   * stream ends. Resolves with the conversation id from X-Conversation-ID.
   * @param {ChatRequest} req
   * @param {(e: ChatEvent) => void | Promise<void>} onEvent
   * @param {AbortSignal} [signal]
   * @param {(conversationId: string) => void} [onOpen] called with the id before the first event
   * @returns {Promise<string>}
   */
  async streamChat(req, onEvent, signal, onOpen) {
    const res = await this.request("/api/chat", {
      method: "POST",
      body: JSON.stringify({ ...req, stream: true }),
      headers: { Accept: "text/event-stream" },
      signal,
    });
    const conversationId = res.headers.get("X-Conversation-ID") ?? "";
    onOpen?.(conversationId);
    if (!res.body) throw new HearthError(res.status, "The server sent no stream.");
    /** @type {Promise<void>} */
    let queue = Promise.resolve();
    await readSSE(res.body, (msg) => {
      /** @type {ChatEvent} */
      let e;
      try {
        e = JSON.parse(msg.data);
      } catch {
        return; // not an event of ours
      }
      // Events are handled one at a time, in order, even when a handler waits.
      queue = queue.then(() => onEvent(e));
    });
    await queue;
    return conversationId;
  }

  /**
   * POST /api/tool_result: the result of an external tool the stream asked for.
   * @param {string} conversationId
   * @param {string} toolCallId
   * @param {unknown} result
   */
  toolResult(conversationId, toolCallId, result) {
    return this.json("/api/tool_result", { conversation_id: conversationId, tool_call_id: toolCallId, result });
  }

  /**
   * POST /api/chat/continue after a pause.
   * @param {string} conversationId
   * @param {"continue" | "cancel"} action
   */
  continueChat(conversationId, action = "continue") {
    return this.json("/api/chat/continue", { conversation_id: conversationId, action });
  }

  /** @param {string} conversationId */
  cancel(conversationId) {
    return this.continueChat(conversationId, "cancel");
  }

  /** @returns {Promise<{id: string, created_at: string, updated_at: string, messages: number}[]>} */
  conversations() {
    return this.json("/api/conversations");
  }

  /**
   * @param {string} id
   * @returns {Promise<{id: string, messages: {role: string, content: string}[]}>}
   */
  conversation(id) {
    return this.json(`/api/conversations/${encodeURIComponent(id)}`);
  }

  /** @param {string} id */
  deleteConversation(id) {
    return this.json(`/api/conversations/${encodeURIComponent(id)}`, undefined, "DELETE");
  }

  /**
   * POST /api/images/:id/deliver (seed 000 §4.3.7).
   * @param {string | number} id
   * @param {string} [targetPath]
   * @returns {Promise<{mode: "direct", fvtt_path: string} | {mode: "shuttle", image_id: number, suggested_path: string, data_url: string}>}
   */
  deliverImage(id, targetPath) {
    return this.json(`/api/images/${encodeURIComponent(String(id))}/deliver`, targetPath ? { target_path: targetPath } : {});
  }

  /**
   * GET an image's bytes (shuttle mode). url is the data_url the server
   * gave, absolute or relative to the server.
   * @param {string} url
   * @returns {Promise<Blob>}
   */
  async imageData(url) {
    const path = url.startsWith(this.baseUrl) ? url.slice(this.baseUrl.length) : url;
    if (/^[a-z]+:/i.test(path)) throw new HearthError(0, `The image is on another server: ${url}`);
    const res = await this.request(path);
    return res.blob();
  }
}

/**
 * @param {Response} res
 * @returns {Promise<HearthError>}
 */
async function errorOf(res) {
  let message = `${res.status} ${res.statusText}`;
  let code = "";
  try {
    const body = await res.json();
    const err = body?.error ?? body;
    if (typeof err?.message === "string") message = err.message;
    if (typeof err?.code === "string") code = err.code;
  } catch {
    // not JSON: the status says it
  }
  return new HearthError(res.status, message, code);
}
