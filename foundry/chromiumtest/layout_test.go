package chromiumtest

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"github.com/hearth-rpg/hearth/internal/chromelayout"
)

// maxPanelShift is the most the panel may move once it shows, as the web
// UI's views (web/chromiumtest): a line of text wrapping differently,
// not a bar pushing the input box aside.
const maxPanelShift = 0.01

// settledFrames resolves after two painted frames, so that the
// layout-shift entries of what last changed are delivered.
const settledFrames = `new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(() => setTimeout(() => done(performance.now()), 0))))`

// panelBoxes is where the panel's status line and input form are.
const panelBoxes = `["status", "form"].map((k) => { const r = document.querySelector("#seneschal-panel .seneschal-" + k).getBoundingClientRect();
	return [Math.round(r.x), Math.round(r.y), Math.round(r.width), Math.round(r.height)]; })`

// TestSeneschalPanelHoldsStill opens the panel in its Foundry-sized
// window (420 × 620 px), in English and German, asks the question the
// model answers after a pause (three tool calls run in the browser, then
// Continue, then a streamed answer) and measures how far the panel moved
// after it first showed: every layout shift counts, also those within
// half a second of a key or click, which browsers leave out of the
// score. The status line and the input form must stay where they were:
// before, the pause bar showed between them and the status line jumped
// 65 px up and back.
func TestSeneschalPanelHoldsStill(t *testing.T) {
	_, pageSrv, hearth, _, playerKey := setUp(t)
	for _, lang := range []string{"en", "de"} {
		t.Run(lang, func(t *testing.T) {
			ctx := browse(t)
			run(t, ctx, "watch layout shifts", chromelayout.Watch())
			run(t, ctx, "open the harness", chromedp.Navigate(pageSrv.URL+"/"), chromedp.WaitReady(`body[data-ready]`, chromedp.ByQuery))
			var booted struct {
				User string `json:"user"`
			}
			eval(t, ctx, fmt.Sprintf(`boot({backendUrl: %s, apiKey: %s, user: "pl1", dice: [4, 5], maxActionsPerRequest: 1, language: %s})`,
				jsString(hearth), jsString(playerKey), jsString(lang)), &booted)
			run(t, ctx, "model choices", chromedp.Poll(`"fake" in (harness.game.settings.settings.get("hearth-seneschal.chatModel").choices || {})`, nil,
				chromedp.WithPollingInterval(50*time.Millisecond), chromedp.WithPollingTimeout(time.Minute)))
			run(t, ctx, "open the panel",
				click("#chat button.seneschal-open"),
				chromedp.WaitVisible("#seneschal-panel .seneschal-input", chromedp.ByQuery))
			var mark float64
			eval(t, ctx, settledFrames, &mark)
			var form0, form1, form2 [][]int
			eval(t, ctx, panelBoxes, &form0)
			run(t, ctx, "ask",
				chromedp.SendKeys("#seneschal-panel .seneschal-input", "PANEL: how strong is my character?", chromedp.ByQuery),
				chromedp.SendKeys("#seneschal-panel .seneschal-input", kb.Enter, chromedp.ByQuery),
				chromedp.WaitVisible("#seneschal-panel .seneschal-continue", chromedp.ByQuery))
			var ok float64
			eval(t, ctx, settledFrames, &ok)
			eval(t, ctx, panelBoxes, &form1)
			run(t, ctx, "continue",
				click("#seneschal-panel .seneschal-continue"),
				chromedp.WaitNotPresent("#seneschal-panel .seneschal-streaming", chromedp.ByQuery))
			eval(t, ctx, settledFrames, &ok)
			eval(t, ctx, panelBoxes, &form2)
			var answer string
			eval(t, ctx, `Array.from(document.querySelectorAll("#seneschal-panel .seneschal-assistant")).at(-1).textContent`, &answer)
			if !strings.Contains(answer, "Strength 8") {
				t.Errorf("the panel's answer: %q", answer)
			}

			shifts, err := chromelayout.Shifts(ctx)
			if err != nil {
				t.Fatal(err)
			}
			after, _ := chromelayout.Split(shifts, mark)
			sum := after.Sum
			report := fmt.Sprintf("the status line and the input form at %v, at the pause %v, after the answer %v; layout shift after the panel showed: %.4f%s",
				form0, form1, form2, sum, after.Text)
			t.Log(report)
			if fmt.Sprint(form0) != fmt.Sprint(form1) || fmt.Sprint(form0) != fmt.Sprint(form2) {
				t.Errorf("the panel's status line or input form moved: %s", report)
			}
			if sum > maxPanelShift {
				t.Errorf("the panel moved by %.4f, more than %.2f: %s", sum, maxPanelShift, report)
			}
		})
	}
}

// panelLog is the panel's log: its visible box and scroll offset, and
// each message's index and box in the viewport.
const panelLog = `(() => {
	const l = document.querySelector("#seneschal-panel .seneschal-log"), r = l.getBoundingClientRect();
	const items = Array.from(l.children).filter((e) => e.offsetHeight > 0).map((e, i) => {
		const b = e.getBoundingClientRect();
		return {n: i, top: Math.round(b.top), bottom: Math.round(b.bottom)};
	});
	return {top: Math.round(r.top), bottom: Math.round(r.top + l.clientHeight), width: l.clientWidth,
		scrollTop: Math.round(l.scrollTop), scrollHeight: l.scrollHeight, items};
})()`

type panelLogView struct {
	Top, Bottom, Width, ScrollTop, ScrollHeight int
	Items                                       []struct{ N, Top, Bottom int }
}

func (v panelLogView) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "log %d–%d px, %d wide, scrolled %d of %d; messages:", v.Top, v.Bottom, v.Width, v.ScrollTop, v.ScrollHeight)
	for _, it := range v.Items {
		fmt.Fprintf(&b, " %d@%d–%d", it.N, it.Top, it.Bottom)
	}
	return b.String()
}

// TestSeneschalLogStaysAtItsEnd asks the panel (420 × 620 px) a long
// question and two short ones, whose answers overflow the log, scrolled
// to its end, and then resizes the window to 300 × 500 px, as a user dragging
// its corner does: the answer must lie inside the log's visible box
// again. Before, the log kept its scroll offset as the messages rewrapped
// taller, and the answer fell below the fold. Then, scrolled up to the
// answer's top, the log keeps the answer at its top as the window
// narrows.
func TestSeneschalLogStaysAtItsEnd(t *testing.T) {
	_, pageSrv, hearth, _, playerKey := setUp(t)
	ctx := browse(t)
	run(t, ctx, "open the harness", chromedp.Navigate(pageSrv.URL+"/"), chromedp.WaitReady(`body[data-ready]`, chromedp.ByQuery))
	var booted struct {
		User string `json:"user"`
	}
	eval(t, ctx, fmt.Sprintf(`boot({backendUrl: %s, apiKey: %s, user: "pl1", dice: [4, 5], maxActionsPerRequest: 1, language: "en"})`,
		jsString(hearth), jsString(playerKey)), &booted)
	run(t, ctx, "model choices", chromedp.Poll(`"fake" in (harness.game.settings.settings.get("hearth-seneschal.chatModel").choices || {})`, nil,
		chromedp.WithPollingInterval(50*time.Millisecond), chromedp.WithPollingTimeout(time.Minute)))
	question := "ONESHOT " + strings.Repeat("Which captain knows the safe route through the reefs north of the harbour? ", 24)
	run(t, ctx, "ask",
		click("#chat button.seneschal-open"),
		chromedp.WaitVisible("#seneschal-panel .seneschal-input", chromedp.ByQuery),
		chromedp.SetValue("#seneschal-panel .seneschal-input", question, chromedp.ByQuery),
		chromedp.SendKeys("#seneschal-panel .seneschal-input", kb.Enter, chromedp.ByQuery),
		chromedp.WaitVisible("#seneschal-panel .seneschal-assistant", chromedp.ByQuery),
		chromedp.WaitNotPresent("#seneschal-panel .seneschal-streaming", chromedp.ByQuery))
	// Two more questions and answers under the first answer, so that it
	// can be scrolled to the log's top.
	for n := 2; n <= 3; n++ {
		run(t, ctx, fmt.Sprintf("ask again (%d)", n),
			chromedp.SendKeys("#seneschal-panel .seneschal-input", "ONESHOT and the captain?"+kb.Enter, chromedp.ByQuery),
			chromedp.Poll(fmt.Sprintf(`document.querySelectorAll("#seneschal-panel .seneschal-assistant").length === %d &&
				!document.querySelector("#seneschal-panel .seneschal-streaming")`, n), nil))
	}
	var ok float64
	eval(t, ctx, settledFrames, &ok)
	var v panelLogView
	eval(t, ctx, panelLog, &v)
	t.Logf("at 420 × 620 px: %s", v)
	inView := func(v panelLogView) bool {
		l := v.Items[len(v.Items)-1]
		return l.Top >= v.Top-1 && l.Bottom <= v.Bottom+1
	}
	if v.ScrollHeight < (v.Bottom-v.Top)*6/5 || len(v.Items) < 2 {
		t.Fatalf("the log does not overflow at 420 × 620 px, so resizing proves nothing: %s", v)
	}
	if !inView(v) {
		t.Fatalf("after the answer the log is not at its end: %s", v)
	}
	resize := func(w, h int) string {
		return fmt.Sprintf(`(() => { const s = document.querySelector("#seneschal-panel").closest(".application").style;
			s.width = "%dpx"; s.height = "%dpx"; return true; })()`, w, h)
	}
	eval(t, ctx, resize(300, 500), nil)
	err := chromedp.Run(ctx, chromedp.Poll(`(() => { const v = `+panelLog+`, l = v.items.at(-1);
		return v.width < 300 && l.top >= v.top - 1 && l.bottom <= v.bottom + 1; })()`, nil, chromedp.WithPollingTimeout(30*time.Second)))
	eval(t, ctx, panelLog, &v)
	t.Logf("at 300 × 500 px: %s", v)
	if err != nil {
		t.Fatalf("resized to 300 × 500 px, the answer is not in the log (%v): %s", err, v)
	}

	// Scrolled up to the answer's top, the log keeps the answer there as
	// the window narrows again (the question above it rewrapping taller):
	// the browser's scroll anchoring does, unless the panel wrongly takes
	// the log to be at its end and scrolls it there.
	eval(t, ctx, resize(420, 620), nil)
	run(t, ctx, "wider", chromedp.Poll(`document.querySelector("#seneschal-panel .seneschal-log").clientWidth > 300`, nil))
	eval(t, ctx, settledFrames, &ok)
	eval(t, ctx, `(() => { const l = document.querySelector("#seneschal-panel .seneschal-log"), a = l.children[1];
		l.scrollTop += a.getBoundingClientRect().top - l.getBoundingClientRect().top; return true; })()`, nil)
	eval(t, ctx, settledFrames, &ok)
	eval(t, ctx, panelLog, &v)
	t.Logf("scrolled up at 420 × 620 px: %s", v)
	atTop := func(v panelLogView) int {
		for _, it := range v.Items {
			if it.Bottom > v.Top+1 {
				return it.N
			}
		}
		return -1
	}
	if atTop(v) != 1 {
		t.Fatalf("scrolled to the answer, the log's top shows message %d: %s", atTop(v), v)
	}
	eval(t, ctx, resize(300, 500), nil)
	run(t, ctx, "narrower", chromedp.Poll(`document.querySelector("#seneschal-panel .seneschal-log").clientWidth < 300`, nil))
	eval(t, ctx, settledFrames, &ok)
	eval(t, ctx, settledFrames, &ok)
	eval(t, ctx, panelLog, &v)
	t.Logf("scrolled up, at 300 × 500 px: %s", v)
	if atTop(v) != 1 {
		t.Errorf("scrolled to the answer and narrowed, the log's top shows message %d: %s", atTop(v), v)
	}
}
