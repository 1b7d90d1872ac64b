package chromiumtest

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// logBoxes describes a log's frame (the element frame, which scrolls)
// and its entries (items): the frame's visible box, its scroll offset
// and height, and each entry's number (its data-turn, else its place)
// and box, top and bottom in the viewport.
func logBoxes(frame, items string) string {
	return `(() => {
		const f = document.querySelector(` + jsString(frame) + `), r = f.getBoundingClientRect();
		const items = Array.from(document.querySelectorAll(` + jsString(items) + `)).filter((e) => e.offsetHeight > 0).map((e, i) => {
			const b = e.getBoundingClientRect();
			return {n: e.dataset.turn || String(i), top: Math.round(b.top), bottom: Math.round(b.bottom)};
		});
		return {top: Math.round(r.top), bottom: Math.round(r.top + f.clientHeight), scrollTop: Math.round(f.scrollTop),
			scrollHeight: f.scrollHeight, width: f.clientWidth, items};
	})()`
}

type logView struct {
	Top, Bottom, ScrollTop, ScrollHeight, Width int
	Items                                       []struct {
		N           string
		Top, Bottom int
	}
}

func (v logView) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "frame %d–%d px, %d wide, scrolled %d of %d; entries:", v.Top, v.Bottom, v.Width, v.ScrollTop, v.ScrollHeight)
	for _, it := range v.Items {
		fmt.Fprintf(&b, " %s@%d–%d", it.N, it.Top, it.Bottom)
	}
	return b.String()
}

// lastInView says whether the newest entry lies inside the frame's
// visible box (give or take a pixel of rounding), or, taller than the
// frame, fills it down to its own end.
func (v logView) lastInView() bool {
	if len(v.Items) == 0 {
		return false
	}
	l := v.Items[len(v.Items)-1]
	return l.Bottom <= v.Bottom+1 && l.Bottom > v.Top && (l.Top >= v.Top-1 || l.Bottom-l.Top > v.Bottom-v.Top-32)
}

// lastInViewJS is lastInView in the page, of logBoxes's v.
const lastInViewJS = `(v) => { const l = v.items.at(-1);
	return !!l && l.bottom <= v.bottom + 1 && l.bottom > v.top && (l.top >= v.top - 1 || l.bottom - l.top > v.bottom - v.top - 32); }`

// atTop is the entry the frame's top edge cuts or starts: the one a
// reader scrolled up reads first.
func (v logView) atTop() string {
	for _, it := range v.Items {
		if it.Bottom > v.Top+1 {
			return it.N
		}
	}
	return ""
}

// twoFrames waits until two frames have been painted.
func twoFrames(t *testing.T, ctx context.Context) {
	t.Helper()
	var ok bool
	eval(t, ctx, `new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(() => setTimeout(() => done(true), 0))))`, &ok)
}

// resizeKeepsEnd checks a log scrolled to its end, then narrows the page
// from 1440 to 390 px (a phone's 390 × 844) and waits, generously, for
// the newest entry to lie inside the frame's visible box again.
func resizeKeepsEnd(t *testing.T, ctx context.Context, frame, items string) {
	t.Helper()
	var v logView
	eval(t, ctx, logBoxes(frame, items), &v)
	t.Logf("at 1440 px: %s", v)
	if v.ScrollHeight < 2*(v.Bottom-v.Top)+(v.Bottom-v.Top)/5 {
		t.Fatalf("the log does not overflow its frame at 1440 px, so resizing proves nothing: %s", v)
	}
	if !v.lastInView() {
		t.Fatalf("at 1440 px the newest entry is not in the frame: %s", v)
	}
	run(t, ctx, "narrow the page to 390 px", chromedp.EmulateViewport(390, 844))
	waitEnd(t, ctx, frame, items, "v.width < 400", "narrowed to 390 px")
}

// waitEnd waits, generously, until the frame is as cond (a condition on
// logBoxes's v) says and its newest entry lies inside it.
func waitEnd(t *testing.T, ctx context.Context, frame, items, cond, what string) {
	t.Helper()
	err := chromedp.Run(ctx, chromedp.Poll(`(() => { const v = `+logBoxes(frame, items)+`;
		return `+cond+` && (`+lastInViewJS+`)(v); })()`, nil,
		chromedp.WithPollingTimeout(30*time.Second)))
	var v logView
	eval(t, ctx, logBoxes(frame, items), &v)
	t.Logf("%s: %s", what, v)
	if err != nil {
		t.Fatalf("%s, the newest entry is not in the frame (%v): %s", what, err, v)
	}
}

// TestLogStaysAtItsEndAcrossResize plays a game until its log overflows
// its frame at 1440 px, scrolled to its end as play leaves it, narrows
// the page to a phone's 390 × 844 and waits for the newest turn to lie
// inside the frame; then, back at 1440 px, scrolls up to the second
// turn, narrows again and finds that turn still at the frame's top; a
// new turn then scrolls the log to its end, where widening leaves it.
// Before, the frame kept its scroll offset as the story rewrapped three
// times as tall, and the newest turn fell far below the frame's fold.
func TestLogStaysAtItsEndAcrossResize(t *testing.T) {
	h := serve(t, nil)
	var game struct{ ID string }
	if code := apiStatus(t, h, h.key, "POST", "/api/sessions", `{"campaign":"saltmere","title":"Rewrapping"}`, &game); code != http.StatusCreated {
		t.Fatalf("create the game: %d", code)
	}
	ctx := browse(t)
	signIn(t, ctx, h)
	run(t, ctx, "open the game",
		chromedp.EmulateViewport(1440, 900),
		chromedp.Navigate(h.url+"/#/game/"+game.ID),
		chromedp.WaitVisible(`#conn[data-state="open"]`, chromedp.ByQuery),
		chromedp.WaitVisible(`#status[data-turn="0"]`, chromedp.ByQuery))
	played := 0
	for turn := 1; ; turn++ {
		var over bool
		eval(t, ctx, `(() => { const f = document.querySelector(".log-frame"); return document.getElementById("log").offsetHeight > 1.2 * f.clientHeight; })()`, &over)
		if over {
			break
		}
		if turn > 40 {
			t.Fatal("40 turns did not overflow the log's frame at 1440 px")
		}
		run(t, ctx, fmt.Sprintf("turn %d", turn), sendAction("look around"),
			chromedp.WaitVisible(fmt.Sprintf(`#log[data-turn="%d"] article[data-turn="%d"]`, turn, turn), chromedp.ByQuery))
		played = turn
	}
	twoFrames(t, ctx)
	resizeKeepsEnd(t, ctx, ".log-frame", "#log article")

	// Scrolled up, the log stays where the reader left it.
	run(t, ctx, "widen the page to 1440 px", chromedp.EmulateViewport(1440, 900),
		chromedp.Poll(`document.querySelector(".log-frame").clientWidth > 400`, nil))
	twoFrames(t, ctx)
	eval(t, ctx, `(() => { const f = document.querySelector(".log-frame"), a = document.querySelector('#log article[data-turn="2"]');
		f.scrollTop += a.getBoundingClientRect().top - f.getBoundingClientRect().top; return true; })()`, nil)
	twoFrames(t, ctx)
	var v logView
	eval(t, ctx, logBoxes(".log-frame", "#log article"), &v)
	t.Logf("scrolled up at 1440 px: %s", v)
	if v.atTop() != "2" {
		t.Fatalf("scrolled to turn 2, the frame's top shows turn %q: %s", v.atTop(), v)
	}
	run(t, ctx, "narrow the page to 390 px", chromedp.EmulateViewport(390, 844),
		chromedp.Poll(`document.querySelector(".log-frame").clientWidth < 400`, nil))
	twoFrames(t, ctx)
	twoFrames(t, ctx)
	eval(t, ctx, logBoxes(".log-frame", "#log article"), &v)
	t.Logf("scrolled up, at 390 px: %s", v)
	if v.atTop() != "2" {
		t.Errorf("scrolled up to turn 2 and narrowed, the frame's top shows turn %q: %s", v.atTop(), v)
	}

	// A new turn scrolls a scrolled-up log to its end, as before, and
	// there it stays as the page widens again.
	next := played + 1
	run(t, ctx, "one more turn", sendAction("look around"),
		chromedp.WaitVisible(fmt.Sprintf(`#log[data-turn="%d"] article[data-turn="%d"]`, next, next), chromedp.ByQuery))
	waitEnd(t, ctx, ".log-frame", "#log article", fmt.Sprintf(`v.items.at(-1).n === "%d"`, next), "a new turn at 390 px")
	run(t, ctx, "widen the page to 1440 px", chromedp.EmulateViewport(1440, 900))
	waitEnd(t, ctx, ".log-frame", "#log article", "v.width > 400", "widened to 1440 px")
}

// TestChatStaysAtItsEndAcrossResize asks the assistant a question long
// enough that, with its answer, the chat overflows its frame at 1440 px,
// and narrows the page to 390 × 844: the answer must still lie inside
// the chat's frame.
func TestChatStaysAtItsEndAcrossResize(t *testing.T) {
	model := newFakeModel(t)
	h := serveAssistant(t, model)
	ctx := browse(t)
	signIn(t, ctx, h)
	question := strings.Repeat("Where does the keeper get lantern oil, and who sells it in the harbour town? ", 40) + "Roll Perception for me."
	run(t, ctx, "ask",
		chromedp.EmulateViewport(1440, 900),
		chromedp.Navigate(h.url+"/#/assistant"),
		chromedp.WaitVisible("#chat-form", chromedp.ByQuery),
		chromedp.SetValue("#question", question, chromedp.ByQuery),
		chromedp.SendKeys("#question", "\r", chromedp.ByQuery),
		chromedp.WaitVisible("#chat-log article[data-done] a.cite", chromedp.ByQuery),
		chromedp.WaitNotPresent("#chat-log [data-streaming]", chromedp.ByQuery))
	twoFrames(t, ctx)
	resizeKeepsEnd(t, ctx, ".log-frame", "#chat-log > *")
}
