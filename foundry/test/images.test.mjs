// fvtt_write's "hearth-image:<id>" values, resolved against a real local
// HTTP server answering POST /api/images/{id}/deliver in either mode.
import { test } from "node:test";
import assert from "node:assert/strict";
import http from "node:http";
import { install } from "./harness.mjs";
import { HearthClient } from "../scripts/api.mjs";
import { runTool } from "../scripts/tools.mjs";
import { canImportImages, imageRefs, importImage } from "../scripts/images.mjs";

/** A Hearth that delivers image 7 (WebP) and 8 (a JPEG) in mode, refuses others as not found. */
async function imageHearth(mode) {
  const delivers = [];
  const server = http.createServer(async (req, res) => {
    for await (const _ of req);
    const m = /^\/api\/images\/(\d+)\/(deliver|data)$/.exec(req.url ?? "");
    if (!m || !["7", "8"].includes(m[1]) || req.headers.authorization !== "Bearer key-ann") {
      res.writeHead(404, { "Content-Type": "application/json" });
      return res.end(JSON.stringify({ error: { code: "not_found", message: "no such image" } }));
    }
    const jpeg = m[1] === "8";
    const path = `seneschal/Core_Rulebook/page_${m[1]}.${jpeg ? "jpg" : "webp"}`;
    if (m[2] === "data") {
      res.writeHead(200, { "Content-Type": jpeg ? "image/jpeg" : "image/webp" });
      return res.end(Buffer.from(`${jpeg ? "\xff\xd8" : "RIFF"}${m[1]}`, "latin1"));
    }
    delivers.push(m[1]);
    res.writeHead(200, { "Content-Type": "application/json" });
    if (mode === "direct") return res.end(JSON.stringify({ mode: "direct", fvtt_path: path }));
    res.end(JSON.stringify({ mode: "shuttle", image_id: Number(m[1]), suggested_path: path, data_url: `http://127.0.0.1:${server.address().port}/api/images/${m[1]}/data` }));
  });
  await new Promise((r) => server.listen(0, "127.0.0.1", r));
  const url = `http://127.0.0.1:${server.address().port}`;
  return { client: new HearthClient({ baseUrl: url, apiKey: "key-ann" }), delivers, close: () => new Promise((r) => server.close(r)) };
}

const ctxFor = (user, client) => ({ user, budget: { writes: 0, maxWrites: 5 }, client });

for (const mode of ["direct", "shuttle"]) {
  test(`fvtt_write resolves hearth-image ids (${mode})`, async (t) => {
    const h = install();
    const hearth = await imageHearth(mode);
    t.after(hearth.close);
    await t.test("an actor's img and its token, the same id delivered once", async () => {
      const r = await runTool("fvtt_write", { document_type: "actor", operation: "update", data: { _id: "a-mine", img: "hearth-image:7", "prototypeToken.texture.src": "hearth-image:7" } }, ctxFor(h.player, hearth.client));
      assert.equal(r.error, undefined);
      assert.equal(r.img, "seneschal/Core_Rulebook/page_7.webp");
      assert.equal(h.docs.mine.data.prototypeToken.texture.src, "seneschal/Core_Rulebook/page_7.webp");
      assert.deepEqual(hearth.delivers, ["7"]);
      const files = h.uploads.filter((u) => u.file);
      if (mode === "direct") {
        assert.equal(files.length, 0, "direct mode uploads nothing");
      } else {
        assert.equal(files.length, 1);
        assert.equal(files[0].path, "seneschal/Core_Rulebook");
        assert.equal(files[0].file.name, "page_7.webp");
        assert.equal(Buffer.from(files[0].bytes).toString(), "RIFF7");
      }
    });
    await t.test("a created document's nested value", async () => {
      const r = await runTool("fvtt_write", { document_type: "item", operation: "create", data: { name: "Map", type: "base", system: { pictures: ["hearth-image:8", "plain text"] } } }, ctxFor(h.player, hearth.client));
      assert.equal(r.error, undefined);
      assert.deepEqual(h.created.at(-1).data.system.pictures, ["seneschal/Core_Rulebook/page_8.jpg", "plain text"]);
      if (mode === "shuttle") {
        const up = h.uploads.filter((u) => u.file).at(-1);
        assert.equal(up.file.name, "page_8.jpg");
        assert.equal(up.file.type, "image/jpeg", "a JPEG is uploaded as one");
        assert.equal(Buffer.from(up.bytes).toString("latin1"), "\xff\xd88");
      }
    });
    await t.test("a refused write delivers nothing", async () => {
      const before = hearth.delivers.length;
      const r = await runTool("fvtt_write", { document_type: "actor", operation: "update", data: { _id: "a-seen", img: "hearth-image:8" } }, ctxFor(h.player, hearth.client));
      assert.match(r.error, /do not own/);
      assert.equal(hearth.delivers.length, before);
    });
    await t.test("an image the server refuses leaves the document as it was", async () => {
      const r = await runTool("fvtt_write", { document_type: "actor", operation: "update", data: { _id: "a-mine", img: "hearth-image:99", name: "Changed" } }, ctxFor(h.player, hearth.client));
      assert.match(r.error, /hearth-image:99.*no such image/);
      assert.equal(h.docs.mine.name, "Marcus Chen");
    });
  });
}

test("fvtt_write without a client refuses hearth-image values", async () => {
  const h = install();
  const r = await runTool("fvtt_write", { document_type: "actor", operation: "update", data: { _id: "a-mine", img: "hearth-image:7" } }, ctxFor(h.player, undefined));
  assert.match(r.error, /cannot import library images/);
  assert.equal(h.docs.mine.img, undefined);
});

test("imageRefs finds the images an answer names, once each", () => {
  const cases = [
    ["The map is hearth-image:7; the portrait hearth-image:12 and again hearth-image:7.", ["7", "12"]],
    ["[deck plan](http://127.0.0.1:8080/api/images/9/data) and /api/images/3", ["9", "3"]],
    ["no images, hearth-image:x, /api/images/abc", []],
  ];
  for (const [text, want] of cases) assert.deepEqual(imageRefs(text), want, text);
});

test("canImportImages: the GM, or a player who owns an actor", () => {
  const h = install();
  assert.equal(canImportImages(h.gm, h.actors), true);
  assert.equal(canImportImages(h.player, h.actors), true, "Ann owns Marcus Chen");
  assert.equal(canImportImages(h.other, h.actors), false, "Bob owns nothing");
  assert.equal(canImportImages(null, h.actors), false);
});

for (const mode of ["direct", "shuttle"]) {
  test(`importImage notifies the Foundry path (${mode}), or the failure`, async () => {
    const h = install();
    const hearth = await imageHearth(mode);
    try {
      const notes = [];
      const notify = { info: (m) => notes.push(["info", m]), error: (m) => notes.push(["error", m]) };
      const t = (k, d) => `${k} ${JSON.stringify(d)}`;
      assert.equal(await importImage(hearth.client, "7", notify, t), "seneschal/Core_Rulebook/page_7.webp");
      assert.deepEqual(notes[0], ["info", 'SENESCHAL.Images.Imported {"path":"seneschal/Core_Rulebook/page_7.webp"}']);
      assert.equal(h.uploads.filter((u) => u.file).length, mode === "shuttle" ? 1 : 0);
      assert.equal(await importImage(hearth.client, "99", notify, t), "");
      assert.equal(notes[1][0], "error");
      assert.match(notes[1][1], /no such image/);
    } finally {
      await hearth.close();
    }
  });
}
