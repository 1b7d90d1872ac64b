import { test } from "node:test";
import assert from "node:assert/strict";
import { install } from "./harness.mjs";
import { modelChoices, registerSettings } from "../scripts/settings.mjs";

test("settings are those of seed 000 §3.2", () => {
  const h = install();
  registerSettings(class Menu {});
  const want = {
    backendUrl: ["world", String, ""],
    apiKey: ["client", String, ""],
    chatModel: ["world", String, ""],
    visionModel: ["world", String, ""],
    enablePlayerAccess: ["world", Boolean, false],
    maxActionsPerRequest: ["world", Number, 5],
    chatCommandPrefix: ["world", String, "/sen-ai"],
  };
  assert.equal(h.settings.settings.size, Object.keys(want).length);
  for (const [key, [scope, type, def]] of Object.entries(want)) {
    const s = h.settings.settings.get(`hearth-seneschal.${key}`);
    assert.deepEqual([s.scope, s.type, s.default], [scope, type, def], key);
  }
  assert.ok(h.settings.menus.has("hearth-seneschal.connection"), "connection test menu");
  assert.ok(h.settings.settings.get("hearth-seneschal.chatModel").choices, "chatModel is a dropdown");
});

test("modelChoices lists name and context length and keeps the saved model", () => {
  install();
  const c = modelChoices([{ name: "llama3.2", context_length: 131072 }, { name: "mistral" }], "gone");
  assert.deepEqual(Object.keys(c), ["", "llama3.2", "mistral", "gone"]);
  assert.match(c["llama3.2"], /llama3\.2 \(131.?072 tokens\)/);
});
