package chromiumtest

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"github.com/hearth-rpg/hearth/imagegen/imagegentest"
	"github.com/hearth-rpg/hearth/internal/chromelayout"
)

// viewWatch runs in every document after chromelayout's watcher and
// before the page's own scripts (injected over the DevTools protocol,
// which the CSP does not govern). It keeps when the game view's action
// box, the library's upload form, the wizard's step heading, the games
// list's heading and the assistant's question box were first painted;
// and how many of the page's fetches are in flight, so a test can wait
// for every request a view made to be answered.
const viewWatch = `(() => {
	window.__marks = {};
	window.__inflight = 0;
	const marks = {action: "#action", upload: "#upload", wizard: "#wizard #step-h", games: "#games-h", question: "#question"};
	// A mark is set once the frame that first showed its element has
	// been painted: the next frame's animation callback.
	new MutationObserver(() => {
		for (const [k, sel] of Object.entries(marks)) {
			if (window.__marks[k] === undefined && document.querySelector(sel)) {
				window.__marks[k] = null;
				requestAnimationFrame(() => requestAnimationFrame(() => { window.__marks[k] = performance.now(); }));
			}
		}
	}).observe(document, {subtree: true, childList: true});
	const fetch0 = window.fetch;
	window.fetch = function (...args) {
		window.__inflight++;
		return fetch0.apply(this, args).finally(() => { window.__inflight--; });
	};
})()`

// watchShifts injects chromelayout's watcher and viewWatch into every
// document the tab loads from now on.
func watchShifts(t *testing.T, ctx context.Context) {
	t.Helper()
	run(t, ctx, "watch layout shifts", chromelayout.Watch(), chromedp.ActionFunc(func(ctx context.Context) error {
		_, err := page.AddScriptToEvaluateOnNewDocument(viewWatch).Do(ctx)
		return err
	}))
}

// afresh loads url as a new document, not as a hash change of the page
// shown: a link opened in a new tab, or typed.
func afresh(url string) chromedp.Action {
	return chromedp.Tasks{chromedp.Navigate("about:blank"), chromedp.Navigate(url)}
}

// settled waits until the page has no fetch in flight and then two
// frames have been painted, so that the layout-shift entries of what
// arrived are delivered.
func settled() chromedp.Action {
	return chromedp.Tasks{
		chromedp.Poll(`window.__inflight === 0`, nil),
		chromedp.Evaluate(`new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(() => setTimeout(() => done(true), 0))))`, nil,
			func(p *runtime.EvaluateParams) *runtime.EvaluateParams { return p.WithAwaitPromise(true) }),
	}
}

// shiftsSince returns the layout shifts after the mark (a key of
// viewWatch's marks, which must be set), their sum, the sum of those
// before it (as the shell became the view) and a report naming what
// moved in each.
func shiftsSince(t *testing.T, ctx context.Context, mark string) (after, before float64, report string) {
	t.Helper()
	var at float64
	run(t, ctx, "the "+mark+" mark", chromedp.Poll(`typeof window.__marks[`+jsString(mark)+`] === "number"`, nil))
	eval(t, ctx, `window.__marks[`+jsString(mark)+`]`, &at)
	shifts, err := chromelayout.Shifts(ctx)
	if err != nil {
		t.Fatal(err)
	}
	a, b := chromelayout.Split(shifts, at)
	return a.Sum, b.Sum, fmt.Sprintf("layout shift after %s: %.4f in %d entries%s\nbefore it, as the shell became the view: %.4f in %d entries%s",
		mark, a.Sum, a.Count, a.Text, b.Sum, b.Count, b.Text)
}

// maxGameShift is the most the game view may move after its action box
// first shows: a layout property, 0 if every panel that fills in later
// had its space from the start. A tenth of the Web Vitals' "good" bound
// (0.1) leaves room for a line of text wrapping differently, not for a
// panel pushing the action box or the sidebar aside.
const maxGameShift = 0.01

// TestGameViewStaysPut opens a game that has turns, a party and scene
// images, in a page loaded afresh (as a link to a game opens it), as the
// GM and as a player, 1440 and 390 px wide, in English and German, lets
// every request and the socket's first messages arrive, and measures how
// much the view moved after the action box first showed, and the shell
// before it. Before the panels had their space reserved, the status
// line, the log's history, the choices and the sidebar each pushed the
// action box or the panels beside it as they arrived; and at 390 px the
// shell's "Loading…" moved by 0.146 (0.119 in German) as the header's
// navigation filled in and wrapped.
func TestGameViewStaysPut(t *testing.T) {
	draw := imagegentest.OpenAI(t)
	var annKey string
	h := serveEnv(t, func(data string) {
		if err := os.CopyFS(filepath.Join(data, "campaigns", "party"), os.DirFS("../../game/testdata/party")); err != nil {
			t.Fatal(err)
		}
		annKey = addUser(t, data, "ann", "player")
	}, "HEARTH__IMAGES__PROVIDER=openai", "HEARTH__IMAGES__BASE_URL="+draw.Base, "HEARTH__IMAGES__API_KEY="+imagegentest.Key)
	var game struct{ ID string }
	if code := apiStatus(t, h, h.key, "POST", "/api/sessions", `{"campaign":"party","title":"Settling"}`, &game); code != http.StatusCreated {
		t.Fatalf("create the game: %d", code)
	}
	// ann plays three turns as wren: the log has a history to load.
	ann := browseAs(t, "ann")
	signIn(t, ann, hearth{url: h.url, key: annKey})
	run(t, ann, "ann drops in",
		chromedp.Navigate(h.url+"/#/game/"+game.ID),
		chromedp.WaitVisible(`#conn[data-state="open"]`, chromedp.ByQuery),
		click(`#party [data-drop="wren"]`),
		chromedp.WaitVisible(`#party li[data-character="wren"][data-held="me"]`, chromedp.ByQuery))
	for i, act := range []string{"look around", "search the gate", "look around"} {
		run(t, ann, act, sendAction(act), chromedp.Poll(fmt.Sprintf(`document.querySelectorAll("#log article:not(.streaming)").length >= %d`, i+2), nil))
	}
	var turn string
	eval(t, ann, `document.getElementById("log").dataset.turn`, &turn)

	for _, who := range []struct {
		name  string
		key   string
		width int64
		lang  string
	}{{"gm", h.key, 1440, "en"}, {"player", annKey, 1440, "en"}, {"gm-narrow", h.key, 390, "en"}, {"player-narrow", annKey, 390, "en"},
		{"gm-de", h.key, 1440, "de"}, {"gm-narrow-de", h.key, 390, "de"}, {"player-narrow-de", annKey, 390, "de"}} {
		t.Run(who.name, func(t *testing.T) {
			ctx := browse(t)
			signIn(t, ctx, hearth{url: h.url, key: who.key})
			// The language as the switcher keeps it: German's longer
			// words wrap where English's do not.
			run(t, ctx, "speak "+who.lang, chromedp.Evaluate(`localStorage.setItem("hearth.lang", `+jsString(who.lang)+`)`, nil))
			watchShifts(t, ctx)
			run(t, ctx, "open the game afresh",
				chromedp.EmulateViewport(who.width, 900),
				afresh(h.url+"/#/game/"+game.ID),
				chromedp.WaitVisible(`#conn[data-state="open"]`, chromedp.ByQuery),
				chromedp.WaitVisible(`#game-title[data-named]`, chromedp.ByQuery),
				chromedp.WaitVisible(`#log[data-turn="`+turn+`"] article[data-turn="`+turn+`"]`, chromedp.ByQuery),
				chromedp.WaitVisible(`#party li[data-character="wren"]`, chromedp.ByQuery),
				chromedp.WaitVisible(`html[lang="`+who.lang+`"]`, chromedp.ByQuery),
				settled())
			if who.key == h.key {
				run(t, ctx, "the GM's panels", chromedp.WaitVisible(`#forks li[data-fork="main"]`, chromedp.ByQuery),
					chromedp.WaitVisible(`#scene-generate`, chromedp.ByQuery), settled())
			}
			sum, shell, report := shiftsSince(t, ctx, "action")
			t.Log(report)
			if sum > maxGameShift {
				t.Errorf("the game view moved by %.4f after its action box showed, more than %.2f: %s", sum, maxGameShift, report)
			}
			// Before the view: the shell's "Loading…" as the header's
			// navigation fills in (at 390 px it wraps) and the view
			// replaces it.
			if shell > maxGameShift {
				t.Errorf("the shell moved by %.4f as it became the game view, more than %.2f: %s", shell, maxGameShift, report)
			}
			if who.key != h.key {
				return
			}
			// A message (here: the refusal of a branch named as one that
			// is there) floats over the page; it does not push the action
			// box down.
			top := `(() => document.getElementById("act").getBoundingClientRect().top + scrollY)()`
			var before, after float64
			eval(t, ctx, top, &before)
			run(t, ctx, "a message",
				chromedp.SendKeys("#fork-name", "main", chromedp.ByQuery),
				click("#fork-go"),
				chromedp.WaitVisible(`#alert.error`, chromedp.ByQuery),
				settled())
			eval(t, ctx, top, &after)
			if before != after {
				t.Errorf("a message moved the action box from %.0f to %.0f px down the page", before, after)
			}
		})
	}
}

// TestLibraryAndWizardLayoutShift measures, and reports, how much the
// library and the character wizard move as they load: the library with
// a document listed, the wizard's first step and each step after it
// (reached with Enter, as a keyboard user does).
func TestLibraryAndWizardLayoutShift(t *testing.T) {
	h := serveEnv(t, func(data string) {
		book := filepath.Join(t.TempDir(), "lantern.md")
		if err := os.WriteFile(book, []byte("# The Lantern\n\nThe lantern keeper trims the wick at dusk.\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		if out, err := exec.Command(bin, "ingest", book, "--title", "The Lantern", "--data", data).CombinedOutput(); err != nil {
			t.Fatalf("hearth ingest: %v\n%s", err, out)
		}
	})
	ctx := browse(t)
	signIn(t, ctx, h)
	watchShifts(t, ctx)
	run(t, ctx, "the library afresh",
		afresh(h.url+"/#/library"),
		chromedp.WaitVisible(`#documents tbody tr[data-document]`, chromedp.ByQuery),
		settled())
	sum, shell, report := shiftsSince(t, ctx, "upload")
	t.Log("library: " + report)
	if sum > maxGameShift || shell > maxGameShift {
		t.Errorf("the library moved by %.4f after its upload form showed, %.4f before: %s", sum, shell, report)
	}
	run(t, ctx, "the games list afresh",
		afresh(h.url+"/#/games"),
		chromedp.WaitVisible(`#new-game`, chromedp.ByQuery),
		settled())
	sum, shell, report = shiftsSince(t, ctx, "games")
	t.Log("games list: " + report)
	if sum > maxGameShift || shell > maxGameShift {
		t.Errorf("the games list moved by %.4f after its heading showed, %.4f before: %s", sum, shell, report)
	}
	run(t, ctx, "the wizard afresh",
		afresh(h.url+"/#/characters/new"),
		step("race"),
		settled())
	sum, shell, report = shiftsSince(t, ctx, "wizard")
	t.Log("wizard, first step: " + report)
	if sum > maxGameShift || shell > maxGameShift {
		t.Errorf("the wizard moved by %.4f after its first step showed, %.4f before: %s", sum, shell, report)
	}
	for _, s := range []string{"class", "background", "abilities", "skills", "story"} {
		tabTo(t, ctx, "#wizard-next")
		run(t, ctx, "Enter to "+s, chromedp.KeyEvent("\r"), step(s), settled())
	}
	_, _, report = shiftsSince(t, ctx, "wizard")
	t.Log("wizard, through the steps (shifts within 0.5 s of a key press are the user's own and not counted by browsers): " + report)
}

// widths are the page widths and languages the layout tests hold the
// views to: a desktop and a phone, English and German (whose longer
// words wrap where English's do not).
var widths = []struct {
	name  string
	width int64
	lang  string
}{{"1440-en", 1440, "en"}, {"1440-de", 1440, "de"}, {"390-en", 390, "en"}, {"390-de", 390, "de"}}

// place is where an element is on the page (not in the viewport), or
// null when it is absent.
func place(sel string) string {
	return `(() => { const e = document.querySelector(` + jsString(sel) + `); if (!e) return null;
		const r = e.getBoundingClientRect(); return [Math.round(r.x), Math.round(r.y + scrollY), Math.round(r.width), Math.round(r.height)]; })()`
}

// TestGameHoldsStillAsTurnsArrive opens a new game (the story so far one
// turn long) and watches turns arrive from another tab of the same
// game: the last of them asks the player to choose, offering five
// choices, more than one row holds at 1440 px and at 390 px. The log
// fits its turns (no empty box under a short story), yet neither the
// action box nor what follows the game moves, and the view's layout
// shift stays under maxGameShift; at 390 px the log, focused with Tab,
// still scrolls the story with Page Up. Before, the log was 60vh tall
// however few its turns, and a second row of choices pushed the GM's
// tools (at 1440 px) and the sidebar (at 390 px) down.
func TestGameHoldsStillAsTurnsArrive(t *testing.T) {
	h := serve(t, nil)
	for _, w := range widths {
		t.Run(w.name, func(t *testing.T) {
			var game struct{ ID string }
			if code := apiStatus(t, h, h.key, "POST", "/api/sessions", `{"campaign":"saltmere","title":"Arriving"}`, &game); code != http.StatusCreated {
				t.Fatalf("create the game: %d", code)
			}
			ctx := browse(t)
			signIn(t, ctx, h)
			run(t, ctx, "speak "+w.lang, chromedp.Evaluate(`localStorage.setItem("hearth.lang", `+jsString(w.lang)+`)`, nil))
			watchShifts(t, ctx)
			run(t, ctx, "open the game afresh",
				chromedp.EmulateViewport(w.width, 900),
				afresh(h.url+"/#/game/"+game.ID),
				chromedp.WaitVisible(`#conn[data-state="open"]`, chromedp.ByQuery),
				chromedp.WaitVisible(`#status[data-turn="0"]`, chromedp.ByQuery),
				chromedp.WaitVisible(`html[lang="`+w.lang+`"]`, chromedp.ByQuery),
				settled())
			// What follows the game: the GM's tools, or at 390 px the
			// sidebar below the story.
			follows := `.game + *`
			if w.width < 900 {
				follows = `.game > .sidebar`
			}
			var act0, next0 []int
			eval(t, ctx, place("#act"), &act0)
			eval(t, ctx, place(follows), &next0)

			other := browseAs(t, "other tab")
			signIn(t, other, h)
			run(t, other, "the other tab opens the game",
				chromedp.Navigate(h.url+"/#/game/"+game.ID),
				chromedp.WaitVisible(`#conn[data-state="open"]`, chromedp.ByQuery))
			for i, act := range []string{"look around", "talk to nell"} {
				run(t, other, act, sendAction(act), chromedp.WaitVisible(fmt.Sprintf(`#log[data-turn="%d"] article[data-turn="%d"]`, i+1, i+1), chromedp.ByQuery))
			}
			run(t, ctx, "the turns arrive",
				chromedp.WaitVisible(`#log[data-turn="2"] article[data-turn="2"]`, chromedp.ByQuery),
				chromedp.Poll(`document.querySelectorAll("#choices button.choice").length >= 5`, nil),
				settled())
			var act1, next1 []int
			eval(t, ctx, place("#act"), &act1)
			eval(t, ctx, place(follows), &next1)
			var fit struct {
				Log   []int `json:"log"`
				Last  []int `json:"last"`
				Rows  int   `json:"rows"`
				Shown bool  `json:"shown"`
			}
			eval(t, ctx, `(() => {
				const turns = Array.from(document.querySelectorAll("#log article")).filter((a) => a.offsetHeight > 0);
				const tops = new Set(Array.from(document.querySelectorAll("#choices button.choice")).map((b) => Math.round(b.getBoundingClientRect().top)));
				const box = (e) => { const r = e.getBoundingClientRect(); return [Math.round(r.top), Math.round(r.bottom)]; };
				return {log: box(document.getElementById("log")), last: box(turns.at(-1)), rows: tops.size,
					shown: Array.from(document.querySelectorAll("#choices button.choice")).every((b) => b.getBoundingClientRect().height > 0)};
			})()`, &fit)
			sum, _, report := shiftsSince(t, ctx, "action")
			t.Logf("%s: action box %v → %v, %s %v → %v, log %v, its last turn %v, choices in %d rows\n%s",
				w.name, act0, act1, follows, next0, next1, fit.Log, fit.Last, fit.Rows, report)
			if fmt.Sprint(act0) != fmt.Sprint(act1) {
				t.Errorf("the action box moved from %v to %v as turns arrived", act0, act1)
			}
			if fmt.Sprint(next0) != fmt.Sprint(next1) {
				t.Errorf("what follows the game (%s) moved from %v to %v as turns arrived", follows, next0, next1)
			}
			// The log's box ends with its last turn, give or take its
			// padding: no empty box under a short story.
			if len(fit.Log) != 2 || len(fit.Last) != 2 || fit.Log[1]-fit.Last[1] > 32 {
				t.Errorf("the log %v ends %d px below its last turn %v: empty space under two turns", fit.Log, fit.Log[1]-fit.Last[1], fit.Last)
			}
			if sum > maxGameShift {
				t.Errorf("the game view moved by %.4f as turns arrived, more than %.2f: %s", sum, maxGameShift, report)
			}
			if w.width == 390 {
				// The keyboard still scrolls the story: the log, focused
				// with Tab, scrolls its frame with Page Up.
				tabTo(t, ctx, "#log")
				var top0, top1 float64
				eval(t, ctx, `document.querySelector(".log-frame").scrollTop`, &top0)
				run(t, ctx, "Page Up", chromedp.KeyEvent(kb.PageUp))
				eval(t, ctx, `new Promise((done) => setTimeout(() => done(document.querySelector(".log-frame").scrollTop), 500))`, &top1)
				t.Logf("Page Up in the focused log: the story scrolled from %.0f to %.0f", top0, top1)
				if top1 >= top0 {
					t.Errorf("Page Up in the focused log left the story scrolled at %.0f (was %.0f)", top1, top0)
				}
				shots(t, ctx, "turns-arrived-"+w.lang)
			}
		})
	}
}

// TestAssistantPauseStaysPut asks the assistant a question it answers
// only after a pause (two tool calls), at 1440 and 390 px in English and
// German, and checks that the pause's question and the answer after it
// do not move the question box: before, the pause box appeared above the
// question box and pushed it down.
func TestAssistantPauseStaysPut(t *testing.T) {
	model := newFakeModel(t)
	h := serveAssistant(t, model, "HEARTH__ASSISTANT__TOOL_CALL_PAUSE_THRESHOLD=2")
	for _, w := range widths {
		t.Run(w.name, func(t *testing.T) {
			ctx := browse(t)
			signIn(t, ctx, h)
			run(t, ctx, "speak "+w.lang, chromedp.Evaluate(`localStorage.setItem("hearth.lang", `+jsString(w.lang)+`)`, nil))
			watchShifts(t, ctx)
			run(t, ctx, "open the assistant afresh",
				chromedp.EmulateViewport(w.width, 900),
				afresh(h.url+"/#/assistant"),
				chromedp.WaitVisible(`html[lang="`+w.lang+`"] #chat-form`, chromedp.ByQuery),
				chromedp.WaitVisible(`#conversations li`, chromedp.ByQuery),
				settled())
			// The empty conversation's hint shows at the foot of the
			// chat's frame, not scrolled out of it.
			var hint bool
			eval(t, ctx, `(() => { const f = document.querySelector("#chat-log").parentElement.getBoundingClientRect(),
				e = document.getElementById("chat-empty").getBoundingClientRect();
				return e.height > 0 && e.top >= f.top && e.bottom <= f.bottom; })()`, &hint)
			if !hint {
				t.Error("the empty conversation's hint is not in view in the chat's frame")
			}
			var q0, q1, q2 []int
			eval(t, ctx, place("#question"), &q0)
			run(t, ctx, "ask",
				chromedp.SendKeys("#question", "Where does the keeper get lantern oil? Roll Perception for me.\r", chromedp.ByQuery),
				chromedp.WaitVisible("#continue", chromedp.ByQuery),
				settled())
			eval(t, ctx, place("#question"), &q1)
			run(t, ctx, "continue",
				click("#continue"),
				chromedp.WaitVisible("#chat-log article[data-done] a.cite", chromedp.ByQuery),
				chromedp.WaitNotPresent("#chat-log [data-streaming]", chromedp.ByQuery),
				settled())
			eval(t, ctx, place("#question"), &q2)
			// Every shift after the question box showed counts, also those
			// within half a second of the key or the click that browsers
			// leave out: the pause comes when the model has called its
			// tools, not as the key is pressed.
			after, _, report := shiftsSince(t, ctx, "question")
			t.Logf("%s: question box %v, at the pause %v, after the answer %v\n%s", w.name, q0, q1, q2, report)
			if fmt.Sprint(q0) != fmt.Sprint(q1) || fmt.Sprint(q0) != fmt.Sprint(q2) {
				t.Errorf("the question box moved: %v, at the pause %v, after the answer %v", q0, q1, q2)
			}
			if after > maxGameShift {
				t.Errorf("the assistant view moved by %.4f, more than %.2f: %s", after, maxGameShift, report)
			}
		})
	}
}
