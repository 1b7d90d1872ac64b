package chromiumtest

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/hearth-rpg/hearth/internal/hearthtest"
)

// browserContexts returns n browsers, each its own Chromium with its own
// profile and cookie jar, so each can be signed in as someone else. (A
// new browser context in one headless Chromium is refused with "no
// browser is open" by Debian's build.)
func browserContexts(t *testing.T, n int) []context.Context {
	t.Helper()
	out := make([]context.Context, n)
	for i := range out {
		out[i] = browseAs(t, fmt.Sprintf("browser %d", i))
	}
	return out
}

// TestTwoPlayersInOnePartyGame: two players, each in their own browser
// context, drop into their own characters of one party game; a third is
// refused the held one; the GM's whisper to one reaches only that one's
// page, and the GM's page sees every whisper.
func TestTwoPlayersInOnePartyGame(t *testing.T) {
	var annKey, bobKey, cidKey string
	h := serve(t, func(data string) {
		if err := os.CopyFS(filepath.Join(data, "campaigns", "party"), os.DirFS("../../game/testdata/party")); err != nil {
			t.Fatal(err)
		}
		annKey = addUser(t, data, "ann", "player")
		bobKey = addUser(t, data, "bob", "player")
		cidKey = addUser(t, data, "cid", "player")
	})
	c := &http.Client{Transport: hearthtest.Bearer{Key: h.key}}
	res, err := c.Post(h.url+"/api/sessions", "application/json", strings.NewReader(`{"campaign":"party","title":"Keep night"}`))
	if err != nil {
		t.Fatal(err)
	}
	var game struct{ ID string }
	json.NewDecoder(res.Body).Decode(&game)
	res.Body.Close()
	if res.StatusCode != http.StatusCreated || game.ID == "" {
		t.Fatalf("GM creates the party game: %d %+v", res.StatusCode, game)
	}

	ctxs := browserContexts(t, 4)
	gm, ann, bob, cid := ctxs[0], ctxs[1], ctxs[2], ctxs[3]
	open := func(ctx context.Context, who string, key string) {
		t.Helper()
		signIn(t, ctx, hearth{url: h.url, key: key})
		run(t, ctx, who+" opens the game",
			click(`#games [data-resume="`+game.ID+`"]`),
			chromedp.WaitVisible(`#conn[data-state="open"]`, chromedp.ByQuery),
			chromedp.WaitVisible(`#party li[data-character="wren"]`, chromedp.ByQuery))
	}
	open(gm, "the GM", h.key)
	open(ann, "ann", annKey)
	open(bob, "bob", bobKey)

	// The sidebar names each member's controller before anyone drops in.
	var controllers map[string]string
	eval(t, gm, `Object.fromEntries(Array.from(document.querySelectorAll("#party li")).map((li) =>
		[li.dataset.character, li.querySelector(".controller").textContent]))`, &controllers)
	for id, want := range map[string]string{"moss": "ollama/qwen3", "brand": "nobody", "wren": "offline"} {
		if !strings.Contains(controllers[id], want) {
			t.Errorf("%s's controller reads %q, want it to name %q", id, controllers[id], want)
		}
	}

	// Each player drops into their own character and sees its sheet whole.
	drop := func(ctx context.Context, who, char string) {
		t.Helper()
		run(t, ctx, who+" drops into "+char,
			click(`#party [data-drop="`+char+`"]`),
			chromedp.WaitVisible(`#party li[data-character="`+char+`"][data-held="me"] [data-release]`, chromedp.ByQuery),
			chromedp.WaitVisible(`#sheet dl[data-character="`+char+`"]`, chromedp.ByQuery))
	}
	drop(ann, "ann", "wren")
	drop(bob, "bob", "moss")
	var sheet string
	run(t, ann, "ann's sheet", chromedp.Text("#sheet", &sheet, chromedp.ByQuery))
	for _, want := range []string{"Wren", "fighter", "20/20", "STRENGTH 16", "sword"} {
		if !strings.Contains(sheet, want) {
			t.Errorf("ann's sheet lacks %q: %q", want, sheet)
		}
	}

	// A third player finds wren held: the button is disabled and says by
	// whom; and the server's own refusal, forced past the page, shows too.
	open(cid, "cid", cidKey)
	var reason string
	run(t, cid, "wren is held",
		chromedp.WaitVisible(`#party li[data-character="wren"][data-held="other"] button[data-drop][disabled]`, chromedp.ByQuery),
		chromedp.Text(`#party li[data-character="wren"] .reason`, &reason, chromedp.ByQuery))
	if !strings.Contains(reason, "ann") {
		t.Errorf("the refusal's reason %q does not name ann", reason)
	}
	var alert string
	run(t, cid, "forced drop-in",
		chromedp.Evaluate(`document.querySelector('#party [data-drop="wren"]').disabled = false`, nil),
		click(`#party [data-drop="wren"]`),
		chromedp.WaitVisible(`#alert.error`, chromedp.ByQuery),
		chromedp.Text("#alert", &alert, chromedp.ByQuery),
		chromedp.WaitVisible(`#party li[data-character="wren"][data-held="other"]`, chromedp.ByQuery))
	if strings.TrimSpace(alert) == "" {
		t.Error("the refused drop-in shows an empty alert")
	}
	shots(t, cid, "party-refused")

	// ann acts as wren: the turn is attributed to Wren, in Wren's colour.
	run(t, ann, "ann acts",
		sendAction("look around"),
		chromedp.WaitVisible(`#log article[data-agent="wren"][data-colour] .byline .who-name`, chromedp.ByQuery))
	var by string
	run(t, bob, "bob sees wren's turn",
		chromedp.WaitVisible(`#log article[data-agent="wren"][data-colour]`, chromedp.ByQuery),
		chromedp.Text(`#log article[data-agent="wren"] .byline`, &by, chromedp.ByQuery))
	if !strings.Contains(by, "Wren") || !strings.Contains(by, "ann") {
		t.Errorf("wren's turn is headed %q, want her name and ann", by)
	}

	// The GM whispers to wren, then to moss. Each player's socket gets its
	// whispers in order, so once bob has his, ann's would have come before.
	const toAnn, toBob = "The cellar key is under the third stone.", "Tomas owes you money."
	whisper := func(to, text string) {
		t.Helper()
		run(t, gm, "whisper to "+to,
			chromedp.SetValue("#whisper-to", to, chromedp.ByQuery),
			chromedp.SendKeys("#whisper-text", text, chromedp.ByQuery),
			click("#whisper-go"),
			chromedp.WaitVisible(`#whispers li[data-to="`+to+`"]`, chromedp.ByQuery))
	}
	whisper("wren", toAnn)
	whisper("moss", toBob)
	run(t, ann, "ann's whisper", chromedp.WaitVisible(`#whispers li[data-to="wren"]`, chromedp.ByQuery))
	run(t, bob, "bob's whisper", chromedp.WaitVisible(`#whispers li[data-to="moss"]`, chromedp.ByQuery))
	page := func(ctx context.Context) string {
		var s string
		eval(t, ctx, `document.body.textContent`, &s)
		return s
	}
	annPage, bobPage, gmPage := page(ann), page(bob), page(gm)
	if !strings.Contains(annPage, toAnn) || strings.Contains(annPage, toBob) {
		t.Errorf("ann's page: whisper to her shown %v, bob's shown %v", strings.Contains(annPage, toAnn), strings.Contains(annPage, toBob))
	}
	if !strings.Contains(bobPage, toBob) || strings.Contains(bobPage, toAnn) {
		t.Errorf("bob's page: whisper to him shown %v, ann's shown %v", strings.Contains(bobPage, toBob), strings.Contains(bobPage, toAnn))
	}
	if !strings.Contains(gmPage, toAnn) || !strings.Contains(gmPage, toBob) {
		t.Error("the GM's page does not show both whispers")
	}
	if strings.Contains(page(cid), toAnn) || strings.Contains(page(cid), toBob) {
		t.Error("cid, who holds nobody, saw a whisper")
	}
	for _, v := range []struct {
		ctx  context.Context
		name string
	}{{gm, "party-gm"}, {ann, "party-ann"}, {bob, "party-bob"}} {
		shots(t, v.ctx, v.name)
		assertAccessible(t, v.ctx, v.name)
	}

	// Release hands wren back; the page says nobody holds it.
	run(t, ann, "ann releases",
		click(`#party [data-release="wren"]`),
		chromedp.WaitVisible(`#party li[data-character="wren"]:not([data-held]) [data-drop]:not([disabled])`, chromedp.ByQuery))
	run(t, cid, "cid may now drop in",
		chromedp.WaitVisible(`#party li[data-character="wren"]:not([data-held]) [data-drop]:not([disabled])`, chromedp.ByQuery))

	// The GM's speed is kept with the game: a reload shows it. set_speed
	// is answered with session_state, which marks the status.
	run(t, gm, "speed",
		chromedp.SetValue("#autopilot-speed", "fast", chromedp.ByQuery),
		chromedp.Evaluate(`document.getElementById("autopilot-speed").dispatchEvent(new Event("change"))`, nil),
		chromedp.WaitVisible(`#autopilot-status[data-speed="fast"]`, chromedp.ByQuery),
		chromedp.Reload(),
		chromedp.WaitVisible(`#conn[data-state="open"]`, chromedp.ByQuery),
		chromedp.WaitVisible(`#autopilot-status[data-speed="fast"]`, chromedp.ByQuery),
		chromedp.Poll(`document.getElementById("autopilot-speed").value === "fast"`, nil))

	// Branches: fork, mark the fork canonical, compare it with main.
	run(t, gm, "fork, canonical, compare",
		chromedp.SendKeys("#fork-name", "side", chromedp.ByQuery),
		click("#fork-go"),
		chromedp.WaitVisible(`#forks li[data-fork="side"] [data-canon="side"]`, chromedp.ByQuery),
		click(`#forks [data-canon="side"]`),
		chromedp.WaitVisible(`#forks li[data-fork="side"][data-canonical]`, chromedp.ByQuery),
		chromedp.SetValue("#compare-a", "main", chromedp.ByQuery),
		chromedp.SetValue("#compare-b", "side", chromedp.ByQuery),
		click("#compare-go"),
		chromedp.WaitVisible(`#compare .branch[data-branch="main"]`, chromedp.ByQuery),
		chromedp.WaitVisible(`#compare .branch[data-branch="side"]`, chromedp.ByQuery))
	var canon int
	eval(t, gm, `document.querySelectorAll("#forks li[data-canonical]").length`, &canon)
	if canon != 1 {
		t.Errorf("%d branches marked canonical, want 1", canon)
	}
	shots(t, gm, "party-branches")
	assertAccessible(t, gm, "party-branches")
}

// TestPartyColoursAndDice checks the page's own helpers in the browser:
// every default party colour is darkened to read at 4.5:1 on white, and a
// roll shows its dice.
func TestPartyColoursAndDice(t *testing.T) {
	h := serve(t, nil)
	ctx := browse(t)
	run(t, ctx, "open", chromedp.Navigate(h.url+"/"), chromedp.WaitVisible("#key", chromedp.ByQuery))
	var r struct {
		Ratios []float64 `json:"ratios"`
		Roll   string    `json:"roll"`
	}
	eval(t, ctx, `import(document.querySelector("script[type=module]").src.replace("app.js", "party.js")).then((m) => {
		const lum = (hex) => {
			const c = [0, 2, 4].map((i) => parseInt(hex.slice(1 + i, 3 + i), 16) / 255)
				.map((s) => s <= 0.03928 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4);
			return 0.2126 * c[0] + 0.7152 * c[1] + 0.0722 * c[2];
		};
		const colours = ["c0392b", "2e86c1", "27ae60", "8e44ad", "d68910", "17a589", "ffff00", "ffffff"];
		return {
			ratios: colours.map((c) => 1.05 / (lum(m.readable(c)) + 0.05)),
			roll: m.rollText({notation: "2d20kh1+3", label: "Attack", total: 17,
				terms: [{text: "2d20kh1", sign: 1, value: 14, dice: [{sides: 20, value: 14}, {sides: 20, value: 2, dropped: true}]},
					{text: "3", sign: 1, value: 3}]}),
		};
	})`, &r)
	for i, ratio := range r.Ratios {
		if ratio < 4.5 {
			t.Errorf("colour %d reads at %.2f:1 on white", i, ratio)
		}
	}
	if len(r.Ratios) != 8 {
		t.Errorf("%d ratios", len(r.Ratios))
	}
	if r.Roll != "Attack: 2d20kh1+3 = 17 (2d20kh1 [14, 2✗] + 3)" {
		t.Errorf("roll text %q", r.Roll)
	}
}
