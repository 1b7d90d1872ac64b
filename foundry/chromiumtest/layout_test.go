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
