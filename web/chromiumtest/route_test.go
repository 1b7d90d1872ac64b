package chromiumtest

import (
	"net/http"
	"testing"

	"github.com/chromedp/chromedp"
)

// TestHashChangeKeepsTheGameInUse: a hash change that arrives for the
// view already shown (the page routed to it already: signing in does, and
// two changes in a row arrive as two events that both read the newest
// hash) must not draw the game again. Before, it did: the player's half
// typed action went with the old view, the new one's empty action box
// refused the click on Send (it is required) without a word, and the turn
// never came — a first turn that hung with the page "Live" at turn 0.
func TestHashChangeKeepsTheGameInUse(t *testing.T) {
	h := serve(t, nil)
	var game struct{ ID string }
	if code := apiStatus(t, h, h.key, "POST", "/api/sessions", `{"campaign":"saltmere","title":"Twice"}`, &game); code != http.StatusCreated {
		t.Fatalf("create the game: %d", code)
	}
	ctx := browse(t)
	signIn(t, ctx, h)
	var before, after int
	eval(t, ctx, `Number(document.getElementById("main").dataset.routes)`, &before)
	// Two changes in one task: both events read the game's hash.
	run(t, ctx, "open the game by two hash changes",
		chromedp.Evaluate(`location.hash = "#/library"; location.hash = "#/game/`+game.ID+`"`, nil),
		chromedp.WaitVisible(`#conn[data-state="open"]`, chromedp.ByQuery),
		chromedp.WaitVisible(`#status[data-turn="0"]`, chromedp.ByQuery))
	// The second event has run by now: a task queued after both of them
	// sees the page as they left it.
	eval(t, ctx, `new Promise((done) => setTimeout(() => done(Number(document.getElementById("main").dataset.routes)), 0))`, &after)
	if after-before != 1 {
		t.Errorf("opening the game drew %d views, want 1", after-before)
	}
	run(t, ctx, "type an action", chromedp.SendKeys("#action", "look around", chromedp.ByQuery))
	// A hash change for the game arriving late, while the player types.
	var kept struct {
		Value   string
		Sockets string
	}
	eval(t, ctx, `(() => {
		document.getElementById("action").dataset.mine = "1";
		window.dispatchEvent(new HashChangeEvent("hashchange"));
		const a = document.querySelector("#action[data-mine]");
		return {value: a ? a.value : "(the action box was drawn anew)", sockets: document.getElementById("conn").dataset.sockets || ""};
	})()`, &kept)
	if kept.Value != "look around" {
		t.Fatalf("after a late hash change the action box holds %q, not what the player typed", kept.Value)
	}
	run(t, ctx, "play the turn",
		pressAct(),
		chromedp.WaitVisible(`#log[data-turn="1"] article[data-turn="1"]`, chromedp.ByQuery))
	var sockets string
	eval(t, ctx, `document.getElementById("conn").dataset.sockets`, &sockets)
	if sockets != "1" || kept.Sockets != "1" {
		t.Errorf("the game view opened %s sockets (%s at the late hash change), want 1", sockets, kept.Sockets)
	}
}
