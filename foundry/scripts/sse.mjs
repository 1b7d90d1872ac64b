// A server-sent events parser (the WHATWG event-stream format) for fetch
// streams: EventSource cannot POST or send an Authorization header.

/**
 * @typedef {object} SSEMessage
 * @property {string} event the event field, "message" when absent
 * @property {string} data the data lines joined by "\n"
 * @property {string} id the last event id seen
 */

/** Parses an event stream fed in arbitrary pieces. */
export class SSEParser {
  /** @param {(msg: SSEMessage) => void} onMessage */
  constructor(onMessage) {
    this.onMessage = onMessage;
    this.buffer = "";
    /** @type {string[]} */
    this.data = [];
    this.event = "";
    this.lastId = "";
    this.sawData = false;
  }

  /**
   * Feed the next piece of the stream's text.
   * @param {string} text
   */
  feed(text) {
    this.buffer += text;
    for (;;) {
      const i = this.buffer.search(/[\r\n]/);
      if (i < 0) return;
      // A CR at the very end may be the first half of a CRLF split across
      // pieces: wait for the next one.
      if (this.buffer[i] === "\r" && i === this.buffer.length - 1) return;
      const line = this.buffer.slice(0, i);
      const skip = this.buffer[i] === "\r" && this.buffer[i + 1] === "\n" ? 2 : 1;
      this.buffer = this.buffer.slice(i + skip);
      this.line(line);
    }
  }

  /** The stream ended: a trailing CR ends its line; an unterminated event is dropped, as the spec says. */
  end() {
    if (this.buffer.endsWith("\r")) {
      this.line(this.buffer.slice(0, -1));
    }
    this.buffer = "";
  }

  /** @param {string} line */
  line(line) {
    if (line === "") {
      this.dispatch();
      return;
    }
    if (line.startsWith(":")) return; // a comment, such as a keep-alive
    const colon = line.indexOf(":");
    let field = line;
    let value = "";
    if (colon >= 0) {
      field = line.slice(0, colon);
      value = line.slice(colon + 1);
      if (value.startsWith(" ")) value = value.slice(1);
    }
    switch (field) {
      case "data":
        this.data.push(value);
        this.sawData = true;
        break;
      case "event":
        this.event = value;
        break;
      case "id":
        if (!value.includes("\0")) this.lastId = value;
        break;
      default: // retry and unknown fields are ignored
    }
  }

  dispatch() {
    if (this.sawData) {
      this.onMessage({ event: this.event || "message", data: this.data.join("\n"), id: this.lastId });
    }
    this.data = [];
    this.event = "";
    this.sawData = false;
  }
}

/**
 * Read a fetch body as an event stream until it ends or signal aborts.
 * @param {ReadableStream<Uint8Array>} body
 * @param {(msg: SSEMessage) => void} onMessage
 * @returns {Promise<void>}
 */
export async function readSSE(body, onMessage) {
  const parser = new SSEParser(onMessage);
  const decoder = new TextDecoder();
  const reader = body.getReader();
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      parser.feed(decoder.decode(value, { stream: true }));
    }
    parser.feed(decoder.decode());
    parser.end();
  } finally {
    reader.releaseLock();
  }
}
