import { test } from "node:test";
import assert from "node:assert/strict";
import { install } from "./harness.mjs";
import { getSystemCapabilities, MGT2E_ENHANCEMENTS } from "../scripts/schema.mjs";

test("getSystemCapabilities describes types and data model fields", () => {
  install({ system: "mgt2e" });
  const caps = getSystemCapabilities();
  assert.equal(caps.system, "mgt2e");
  assert.deepEqual(caps.actorTypes, ["traveller", "npc"], "base is not a type");
  assert.deepEqual(caps.actorSchemas.traveller, { characteristics: { strength: "number", dexterity: "number" }, bio: "html", skills: ["string"] });
  assert.deepEqual(caps.actorSchemas.npc, { notes: "string", hostile: "boolean" });
  // no data model for weapon: the template.json data (game.model) says its fields
  assert.deepEqual(caps.itemSchemas.weapon, { damage: "string", range: "number", traits: ["string"] });
  assert.deepEqual(caps.enhancements, MGT2E_ENHANCEMENTS);
  assert.ok(JSON.stringify(caps).length > 0, "serialisable as system_schema");
});

test("getSystemCapabilities adds no mgt2e enhancements to other systems", () => {
  install({ system: "dnd5e" });
  const caps = getSystemCapabilities();
  assert.equal(caps.system, "dnd5e");
  assert.equal(caps.enhancements, undefined);
});
