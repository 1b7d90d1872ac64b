import { test } from "node:test";
import assert from "node:assert/strict";
import { install } from "./harness.mjs";
import { canUserAccess, canUserModify } from "../scripts/permissions.mjs";

test("canUserAccess and canUserModify follow ownership; a GM sees all", async (t) => {
  const h = install();
  const cases = [
    { user: h.gm, doc: h.docs.hidden, level: "OBSERVER", access: true, modify: true },
    { user: h.player, doc: h.docs.mine, level: "OBSERVER", access: true, modify: true },
    { user: h.player, doc: h.docs.seen, level: "OBSERVER", access: true, modify: false },
    { user: h.player, doc: h.docs.glimpse, level: "OBSERVER", access: false, modify: false },
    { user: h.player, doc: h.docs.glimpse, level: "LIMITED", access: true, modify: false },
    { user: h.player, doc: h.docs.hidden, level: "LIMITED", access: false, modify: false },
    { user: h.other, doc: h.docs.mine, level: "OBSERVER", access: false, modify: false },
    { user: null, doc: h.docs.seen, level: "LIMITED", access: false, modify: false },
  ];
  for (const c of cases) {
    await t.test(`${c.user?.name ?? "nobody"} ${c.level} ${c.doc.name}`, () => {
      assert.equal(canUserAccess(c.doc, c.user, c.level), c.access);
      assert.equal(canUserModify(c.doc, c.user), c.modify);
    });
  }
});
