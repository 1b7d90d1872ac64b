// The client and session against a real local HTTP server speaking
// Hearth's wire format: "data: <json>\n\n" events, ": keep-alive"
// comments, X-Conversation-ID, JSON errors {"error":{"code","message"}}.
import { test } from "node:test";
import assert from "node:assert/strict";
import http from "node:http";
import { install } from "./harness.mjs";
import { HearthClient, HearthError } from "../scripts/api.mjs";
import { runChat } from "../scripts/session.mjs";
import { deliverImage } from "../scripts/images.mjs";
import { answerOneShot, parseCommand, whisperFor } from "../scripts/chat-command.mjs";

/** A fake Hearth: a script of events per chat, waiting for tool results and continues. */
async function fakeHearth(script) {
  const seen = { auth: [], toolResults: [], continues: [], chats: [] };
  let waiter = null;
  const wait = () => new Promise((r) => (waiter = r));
  const server = http.createServer(async (req, res) => {
    seen.auth.push(req.headers.authorization);
    let body = "";
    for await (const c of req) body += c;
    if (req.headers.authorization !== "Bearer key-ann") {
      res.writeHead(401, { "Content-Type": "application/json" });
      res.end(JSON.stringify({ error: { code: "unauthorized", message: "the key is not valid" } }));
      return;
    }
    const json = body ? JSON.parse(body) : null;
    switch (`${req.method} ${req.url}`) {
      case "GET /health":
        return res.end(JSON.stringify({ status: "healthy", version: "test" }));
      case "GET /api/models":
        return res.end(JSON.stringify([{ name: "llama3.2", context_length: 131072 }]));
      case "POST /api/tool_result":
        seen.toolResults.push(json);
        waiter?.(json);
        return res.end(JSON.stringify({ status: "accepted" }));
      case "POST /api/chat/continue":
        seen.continues.push(json);
        waiter?.(json);
        return res.end(JSON.stringify({ status: "accepted", action: json.action }));
      case "POST /api/images/7/deliver":
        return res.end(JSON.stringify({ mode: "shuttle", image_id: 7, suggested_path: "seneschal/core/page_4_1.webp", data_url: `http://127.0.0.1:${server.address().port}/api/images/7/data` }));
      case "GET /api/images/7/data":
        res.writeHead(200, { "Content-Type": "image/webp" });
        return res.end(Buffer.from("RIFFwebp"));
      case "POST /api/chat": {
        seen.chats.push(json);
        res.writeHead(200, { "Content-Type": "text/event-stream", "X-Conversation-ID": "conv_1" });
        for (const step of script) {
          if (step === "wait") {
            await wait();
            continue;
          }
          // Written in awkward pieces: the parser must reassemble them.
          const text = typeof step === "string" ? step : `data: ${JSON.stringify(step)}\n\n`;
          for (let i = 0; i < text.length; i += 7) {
            res.write(text.slice(i, i + 7));
            await new Promise((r) => setImmediate(r));
          }
        }
        return res.end();
      }
    }
    res.writeHead(404).end();
  });
  await new Promise((r) => server.listen(0, "127.0.0.1", r));
  const url = `http://127.0.0.1:${server.address().port}`;
  return { url, seen, close: () => new Promise((r) => server.close(r)) };
}

test("runChat streams content, runs tools with the user's permissions, answers pauses", async () => {
  const h = install();
  const hearth = await fakeHearth([
    ": keep-alive\n\n",
    { type: "tool_status", message: "Searching the rulebooks…" },
    { type: "tool_call", id: "call_1", tool: "fvtt_read", args: { document_type: "actor", document_id: "a-hidden" } },
    "wait",
    { type: "tool_call", id: "call_2", tool: "fvtt_read", args: { document_type: "actor", document_id: "a-mine" } },
    "wait",
    { type: "pause", reason: "tool_limit", tool_calls_made: 10, elapsed_seconds: 4, message: "Continue?" },
    "wait",
    { type: "content", text: "Marcus has " },
    { type: "content", text: "STR 8." },
    { type: "done", usage: { prompt_tokens: 1, completion_tokens: 2 } },
  ]);
  try {
    const client = new HearthClient({ baseUrl: hearth.url + "/", apiKey: "key-ann" });
    const chunks = [];
    const statuses = [];
    const pauses = [];
    const res = await runChat({
      client,
      request: { messages: [{ role: "user", content: "How strong is Marcus?" }], system_schema: { system: "mgt2e" } },
      user: h.player,
      maxWrites: 5,
      handlers: { onContent: (c) => chunks.push(c), onStatus: (s) => statuses.push(s), onPause: async (e) => (pauses.push(e), "continue") },
    });
    assert.equal(res.conversationId, "conv_1");
    assert.equal(res.text, "Marcus has STR 8.");
    assert.deepEqual(chunks, ["Marcus has ", "STR 8."]);
    assert.equal(res.done, true);
    assert.equal(res.toolCalls, 2);
    assert.ok(statuses.includes("Searching the rulebooks…"));
    assert.equal(pauses.length, 1);
    assert.deepEqual(hearth.seen.continues, [{ conversation_id: "conv_1", action: "continue" }]);
    const [hidden, mine] = hearth.seen.toolResults;
    assert.equal(hidden.conversation_id, "conv_1");
    assert.equal(hidden.tool_call_id, "call_1");
    assert.match(hidden.result.error, /that you may see/);
    assert.doesNotMatch(JSON.stringify(hidden), /plot twist/);
    assert.equal(mine.tool_call_id, "call_2");
    assert.equal(mine.result.system.characteristics.strength, 8);
    assert.deepEqual(hearth.seen.chats[0].system_schema, { system: "mgt2e" });
    assert.equal(hearth.seen.chats[0].stream, true);
    assert.ok(hearth.seen.auth.every((a) => a === "Bearer key-ann"), "every request carries the user's key");
  } finally {
    await hearth.close();
  }
});

test("a pause without a handler cancels", async () => {
  const h = install();
  const hearth = await fakeHearth([{ type: "pause", reason: "time_limit", message: "?" }, "wait", { type: "content", text: "partial" }, { type: "done" }]);
  try {
    const res = await runChat({ client: new HearthClient({ baseUrl: hearth.url, apiKey: "key-ann" }), request: { messages: [{ role: "user", content: "q" }] }, user: h.player, maxWrites: 5 });
    assert.deepEqual(hearth.seen.continues, [{ conversation_id: "conv_1", action: "cancel" }]);
    assert.equal(res.text, "partial");
  } finally {
    await hearth.close();
  }
});

test("HearthClient reports the server's error and tests the connection", async () => {
  const hearth = await fakeHearth([]);
  try {
    const bad = new HearthClient({ baseUrl: hearth.url, apiKey: "wrong" });
    await assert.rejects(bad.models(), (err) => err instanceof HearthError && err.status === 401 && err.code === "unauthorized" && /not valid/.test(err.message));
    const good = new HearthClient({ baseUrl: hearth.url, apiKey: "key-ann" });
    assert.deepEqual(await good.testConnection(), { version: "test", models: [{ name: "llama3.2", context_length: 131072 }] });
    await assert.rejects(new HearthClient({ baseUrl: "", apiKey: "k" }).models(), /not set/);
  } finally {
    await hearth.close();
  }
});

test("deliverImage shuttles: fetches with the key, uploads with FilePicker", async () => {
  const h = install();
  const hearth = await fakeHearth([]);
  try {
    const got = await deliverImage(new HearthClient({ baseUrl: hearth.url, apiKey: "key-ann" }), 7);
    assert.deepEqual(got, { path: "seneschal/core/page_4_1.webp", mode: "shuttle" });
    const up = h.uploads.find((u) => u.file);
    assert.equal(up.source, "data");
    assert.equal(up.path, "seneschal/core");
    assert.equal(Buffer.from(up.bytes).toString(), "RIFFwebp");
  } finally {
    await hearth.close();
  }
});

test("the chat command", async (t) => {
  await t.test("parseCommand", () => {
    assert.equal(parseCommand("/sen-ai what is jump 2?", "/sen-ai"), "what is jump 2?");
    assert.equal(parseCommand("/sen-aix what", "/sen-ai"), null);
    assert.equal(parseCommand("/sen-ai   ", "/sen-ai"), null);
    assert.equal(parseCommand("hello", "/sen-ai"), null);
    assert.equal(parseCommand("/ask rules", "/ask"), "rules");
  });
  const h = install();
  const cases = [
    { name: "a player's answer is whispered to the player", user: h.player, whisper: ["pl1"] },
    { name: "a GM's answer is public", user: h.gm, whisper: [] },
  ];
  for (const c of cases) {
    await t.test(c.name, async () => {
      assert.deepEqual(whisperFor(c.user), c.whisper);
      const msg = await answerOneShot("jump?", { user: c.user, ChatMessage: h.ChatMessage, ask: async () => ({ text: "**Jump 2** <script>x</script>", conversationId: "", done: true, error: "", toolCalls: 0 }) });
      assert.deepEqual(msg.whisper, c.whisper);
      assert.match(msg.content, /<strong>Jump 2<\/strong>/);
      assert.match(msg.content, /&lt;script&gt;/);
      assert.doesNotMatch(msg.content, /<script>/);
    });
  }
  await t.test("a failure replaces the thinking message with the error", async () => {
    const msg = await answerOneShot("q", { user: h.player, ChatMessage: h.ChatMessage, ask: async () => { throw new Error("<b>down</b>"); } });
    assert.match(msg.content, /seneschal-error/);
    assert.match(msg.content, /&lt;b&gt;down/);
  });
});

test("the chatMessage hook swallows the command and leaves other messages", async () => {
  const h = install();
  globalThis.SENESCHAL_NO_INSTALL = false;
  const main = await import("../scripts/main.mjs");
  const { registerSettings } = await import("../scripts/settings.mjs");
  registerSettings(null);
  h.game.user = h.player;
  assert.equal(main.onChatMessage(null, "hello all"), true);
  // players are refused while enablePlayerAccess is off
  assert.equal(main.onChatMessage(null, "/sen-ai rules?"), false);
  assert.deepEqual(h.notes.at(-1), ["warn", "SENESCHAL.NotAllowed"]);
  assert.equal(h.ChatMessage.created.length, 0);
  // and the module registered its hooks on load
  assert.ok(h.Hooks.events.has("chatMessage"));
});
