package chromeclick

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
)

// tries is how many presses may be swallowed before Click gives up: each
// means the page moved between the look and the press, which a settling
// page does a few times at most.
const tries = 10

// poll is the pause between two looks at an element not yet clickable.
const poll = 50 * time.Millisecond

// ready says where to press the first element matching the selector, or
// why not yet. The element's box must be the same over two frames (the
// page is not moving it), and the element, or one inside it, must be
// what the page would hit at the box's centre.
const ready = `(async (sel) => {
	const name = (e) => !e ? "nothing" : e.tagName.toLowerCase() + (e.id ? "#" + e.id : "") +
		(e.classList && e.classList.length ? "." + Array.from(e.classList).join(".") : "");
	const el = document.querySelector(sel);
	if (!el) return {why: "absent"};
	if (el.disabled || el.closest("fieldset:disabled")) return {why: "disabled"};
	const box = () => { const r = el.getBoundingClientRect(); return [r.x, r.y, r.width, r.height]; };
	const frame = () => new Promise((done) => requestAnimationFrame(() => done()));
	const a = box();
	await frame();
	await frame();
	const b = box();
	if (a.join() !== b.join()) return {why: "moving"};
	if (b[2] === 0 || b[3] === 0 || getComputedStyle(el).visibility !== "visible") return {why: "not shown"};
	const x = b[0] + b[2] / 2, y = b[1] + b[3] / 2;
	if (x < 0 || y < 0 || x >= innerWidth || y >= innerHeight) {
		el.scrollIntoView({block: "center", inline: "center"});
		return {why: "out of view"};
	}
	const top = document.elementFromPoint(x, y);
	if (!top || (top !== el && !el.contains(top))) {
		// Something floats over it (a message at the viewport's foot, a
		// sticky bar): a user would scroll it clear, if the page can.
		el.scrollIntoView({block: "center", inline: "center"});
		return {why: "covered by " + name(top)};
	}
	return {ok: true, x, y};
})`

// arm makes the page swallow, until disarmed, a press or a click that
// does not land on the element, and record whether one did.
const arm = `((sel) => {
	const name = (e) => !e || !e.tagName ? "nothing" : e.tagName.toLowerCase() + (e.id ? "#" + e.id : "") +
		(e.classList && e.classList.length ? "." + Array.from(e.classList).join(".") : "");
	const el = document.querySelector(sel);
	const g = {state: "armed", target: ""};
	const on = (ev) => {
		if (el && el.isConnected && (ev.target === el || el.contains(ev.target))) {
			if (ev.type === "click" && g.state === "armed") g.state = "hit";
			return;
		}
		ev.preventDefault();
		ev.stopImmediatePropagation();
		g.state = "missed";
		g.target = name(ev.target);
	};
	for (const type of ["pointerdown", "mousedown", "pointerup", "mouseup", "click"]) window.addEventListener(type, on, true);
	g.off = () => { for (const type of ["pointerdown", "mousedown", "pointerup", "mouseup", "click"]) window.removeEventListener(type, on, true); };
	window.__chromeclick = g;
	return true;
})`

// disarm removes the guard and says what the press did: "hit",
// "missed <what it landed on>", or "armed" if no click came. A page
// replaced by the click (a navigation) has no guard left: "gone".
const disarm = `(() => {
	const g = window.__chromeclick;
	if (!g) return "gone";
	if (g.state === "armed") return "armed";
	g.off();
	delete window.__chromeclick;
	return g.state === "missed" ? "missed " + g.target : g.state;
})()`

type spot struct {
	OK  bool    `json:"ok"`
	X   float64 `json:"x"`
	Y   float64 `json:"y"`
	Why string  `json:"why"`
}

// Click presses the mouse on the first element matching the CSS
// selector sel once it can take a user's click. It waits for as long as
// ctx allows; an error says what kept the element from being clicked.
func Click(sel string) chromedp.Action {
	return chromedp.ActionFunc(func(ctx context.Context) error {
		arg, _ := json.Marshal(sel)
		why := ""
		for try := 0; try < tries; try++ {
			var at spot
			last := "" // why the element could not be clicked at the last look
			for {
				if err := eval(ctx, ready+"("+string(arg)+")", &at); err != nil {
					if ctx.Err() != nil && last != "" {
						// The context ended during a look (a loaded
						// machine's slow evaluation): say what kept it.
						return fmt.Errorf("click %s: never clickable (last: %s): %w", sel, last, ctx.Err())
					}
					return fmt.Errorf("click %s: %w", sel, err)
				}
				if at.OK {
					break
				}
				last = at.Why
				select {
				case <-ctx.Done():
					return fmt.Errorf("click %s: never clickable (last: %s): %w", sel, last, ctx.Err())
				case <-time.After(poll):
				}
			}
			if err := eval(ctx, arm+"("+string(arg)+")", nil); err != nil {
				return fmt.Errorf("click %s: %w", sel, err)
			}
			if err := chromedp.MouseClickXY(at.X, at.Y).Do(ctx); err != nil {
				return fmt.Errorf("click %s at (%.0f, %.0f): %w", sel, at.X, at.Y, err)
			}
			// Chromium answers the released button once the page has
			// handled it, click included; a little grace all the same.
			var got string
			for range 20 {
				if err := eval(ctx, disarm, &got); err != nil {
					// The click replaced the page (a navigation): it landed.
					var ex *runtime.ExceptionDetails
					if errors.As(err, &ex) || ctx.Err() != nil {
						return fmt.Errorf("click %s: %w", sel, err)
					}
					return nil
				}
				if got != "armed" {
					break
				}
				time.Sleep(poll)
			}
			switch {
			case got == "hit" || got == "gone":
				return nil
			case got == "armed":
				eval(ctx, `window.__chromeclick && window.__chromeclick.off()`, nil)
				return fmt.Errorf("click %s at (%.0f, %.0f): the page got no click", sel, at.X, at.Y)
			}
			why = got
		}
		return fmt.Errorf("click %s: %d presses landed elsewhere (last: %s)", sel, tries, why)
	})
}

func eval(ctx context.Context, js string, out any) error {
	return chromedp.Evaluate(js, out, func(p *runtime.EvaluateParams) *runtime.EvaluateParams {
		return p.WithAwaitPromise(true)
	}).Do(ctx)
}
