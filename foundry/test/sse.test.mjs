import { test } from "node:test";
import assert from "node:assert/strict";
import { SSEParser } from "../scripts/sse.mjs";

test("SSEParser", async (t) => {
  const cases = [
    { name: "one event", pieces: ['data: {"type":"done"}\n\n'], want: [['message', '{"type":"done"}']] },
    { name: "split mid-line and mid-separator", pieces: ["da", 'ta: {"a"', ":1}\n", "\n"], want: [["message", '{"a":1}']] },
    { name: "CRLF, with the CR and LF in different pieces", pieces: ["data: x\r", "\n\r", "\n"], want: [["message", "x"]] },
    { name: "lone CR line endings", pieces: ["data: x\r\r"], want: [["message", "x"]] },
    { name: "multi-line data joins with newline", pieces: ["data: a\ndata: b\ndata:c\n\n"], want: [["message", "a\nb\nc"]] },
    { name: "comments and keep-alives are ignored", pieces: [": keep-alive\n\n: hi\ndata: y\n\n"], want: [["message", "y"]] },
    { name: "event and id fields", pieces: ["event: ping\nid: 7\ndata: z\n\n"], want: [["ping", "z"]] },
    { name: "an unterminated event is dropped at the end", pieces: ["data: a\n\ndata: b"], want: [["message", "a"]] },
    { name: "a field without colon and unknown fields", pieces: ["data\nretry: 10\nfoo: bar\n\n"], want: [["message", ""]] },
  ];
  for (const c of cases) {
    await t.test(c.name, () => {
      const got = [];
      const p = new SSEParser((m) => got.push([m.event, m.data]));
      for (const piece of c.pieces) p.feed(piece);
      p.end();
      assert.deepEqual(got, c.want);
    });
  }
});
