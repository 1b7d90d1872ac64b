// Package chromiumtest runs Hearth Seneschal, the Foundry VTT module in
// foundry/, in a real Chromium (Debian's /usr/bin/chromium, through
// chromedp) against a real `hearth serve` and a model server speaking the
// OpenAI wire format. Foundry itself cannot run here: a harness page on its
// own origin, as a Foundry world is, installs Foundry-shaped globals
// (foundry/test/harness.mjs plus the browser parts in
// testdata/harness-globals.mjs) and loads the module's ES modules straight
// from foundry/ as module.json lists them. It holds tests only; they skip
// when Chromium is absent. Clicks are real presses of the mouse through
// internal/chromeclick, once their target can take them; layout shift
// is measured through internal/chromelayout, as in web/chromiumtest.
package chromiumtest
