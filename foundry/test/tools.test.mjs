import { test } from "node:test";
import assert from "node:assert/strict";
import { install } from "./harness.mjs";
import { runTool } from "../scripts/tools.mjs";

const ctxFor = (user, maxWrites = 5) => ({ user, budget: { writes: 0, maxWrites } });

test("fvtt_read", async (t) => {
  const h = install();
  const cases = [
    { name: "player reads own actor in full", user: h.player, id: "a-mine", check: (r) => assert.equal(r.system.characteristics.strength, 8) },
    { name: "player reads by name", user: h.player, id: "Captain Reyes", check: (r) => assert.equal(r.system.notes, "knows the route") },
    { name: "LIMITED gives a summary, not the data", user: h.player, id: "a-limited", check: (r) => { assert.equal(r.permission, "limited"); assert.equal(r.system, undefined); assert.doesNotMatch(JSON.stringify(r), /Duke/); } },
    { name: "hidden actor is refused like a missing one", user: h.player, id: "a-hidden", check: (r) => { assert.match(r.error, /that you may see/); assert.doesNotMatch(JSON.stringify(r), /plot twist|Archduke/); } },
    { name: "missing actor", user: h.player, id: "nope", check: (r) => assert.match(r.error, /that you may see/) },
    { name: "GM reads hidden actor", user: h.gm, id: "a-hidden", check: (r) => assert.equal(r.system.secret, "the plot twist") },
    { name: "ownership and flags are not sent", user: h.gm, id: "a-mine", check: (r) => { assert.equal(r.ownership, undefined); assert.equal(r.flags, undefined); } },
  ];
  for (const c of cases) {
    await t.test(c.name, async () => c.check(await runTool("fvtt_read", { document_type: "actor", document_id: c.id }, ctxFor(c.user))));
  }
  await t.test("unknown document type", async () => {
    const r = await runTool("fvtt_read", { document_type: "macro", document_id: "x" }, ctxFor(h.gm));
    assert.match(r.error, /Unknown document_type/);
  });
});

test("fvtt_query", async (t) => {
  const h = install();
  await t.test("player sees only what they may", async () => {
    const r = await runTool("fvtt_query", { document_type: "actor" }, ctxFor(h.player));
    assert.deepEqual(r.documents.map((d) => d.id).sort(), ["a-limited", "a-mine", "a-seen"]);
  });
  await t.test("filter on data fields skips LIMITED documents, so hidden data cannot be probed", async () => {
    const r = await runTool("fvtt_query", { document_type: "actor", filter: { "system.secret": "is the Duke" } }, ctxFor(h.player));
    assert.equal(r.total, 0);
  });
  await t.test("GM filters on data", async () => {
    const r = await runTool("fvtt_query", { document_type: "actor", filter: { type: "npc" }, limit: 1 }, ctxFor(h.gm));
    assert.equal(r.total, 3);
    assert.equal(r.documents.length, 1);
  });
});

test("fvtt_write", async (t) => {
  const h = install();
  await t.test("player updates own actor", async () => {
    const r = await runTool("fvtt_write", { document_type: "actor", operation: "update", data: { _id: "a-mine", "system.characteristics.strength": 9 } }, ctxFor(h.player));
    assert.equal(r.operation, "update");
    assert.equal(h.docs.mine.data.system.characteristics.strength, 9);
  });
  await t.test("player may not update an actor they only observe", async () => {
    const r = await runTool("fvtt_write", { document_type: "actor", operation: "update", data: { _id: "a-seen", name: "X" } }, ctxFor(h.player));
    assert.match(r.error, /do not own/);
    assert.equal(h.docs.seen.name, "Captain Reyes");
  });
  await t.test("player may not delete a hidden actor, nor learn it exists", async () => {
    const r = await runTool("fvtt_write", { document_type: "actor", operation: "delete", data: { _id: "a-hidden" } }, ctxFor(h.player));
    assert.match(r.error, /that you may see/);
    assert.equal(h.docs.hidden.deleted, false);
  });
  await t.test("player creates an item (has ITEM_CREATE) but not an actor", async () => {
    const ok = await runTool("fvtt_write", { document_type: "item", operation: "create", data: { name: "Blade", type: "weapon" } }, ctxFor(h.player));
    assert.equal(ok.name, "Blade");
    const no = await runTool("fvtt_write", { document_type: "actor", operation: "create", data: { name: "Y", type: "npc" } }, ctxFor(h.player));
    assert.match(no.error, /may not create/);
  });
  await t.test("GM deletes", async () => {
    const r = await runTool("fvtt_write", { document_type: "actor", operation: "delete", data: { _id: "a-hidden" } }, ctxFor(h.gm));
    assert.equal(r.operation, "delete");
    assert.equal(h.actors.has("a-hidden"), false);
  });
  await t.test("maxActionsPerRequest caps writes", async () => {
    const ctx = ctxFor(h.gm, 1);
    const first = await runTool("fvtt_write", { document_type: "actor", operation: "update", data: { _id: "a-seen", name: "A" } }, ctx);
    assert.equal(first.error, undefined);
    const second = await runTool("fvtt_write", { document_type: "actor", operation: "update", data: { _id: "a-seen", name: "B" } }, ctx);
    assert.match(second.error, /at most 1/);
    assert.equal(h.docs.seen.name, "A");
  });
});

test("dice_roll uses Foundry's Roll and posts it", async () => {
  const h = install({ dice: [3, 5] });
  const r = await runTool("dice_roll", { formula: "2d6+1", label: "Engineer (j-drive)" }, ctxFor(h.player));
  assert.equal(r.total, 9);
  assert.deepEqual(r.dice, [{ faces: 6, results: [3, 5] }]);
  assert.equal(h.Roll.messages.length, 1);
  assert.equal(h.Roll.messages[0].flavor, "Engineer (j-drive)");
  const bad = await runTool("dice_roll", { formula: "rm -rf" }, ctxFor(h.player));
  assert.match(bad.error, /not a dice formula/);
});

test("an unknown tool is an error result", async () => {
  const h = install();
  const r = await runTool("shell", {}, ctxFor(h.gm));
  assert.match(r.error, /no tool "shell"/);
});
