package chromelayout

import (
	"context"
	"fmt"
	"strings"

	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"
)

// Script keeps every layout-shift entry in window.__shifts, buffered so
// that none from before it began is lost. It runs before the page's own
// scripts, injected over the DevTools protocol, which a page's CSP does
// not govern.
const Script = `(() => {
	window.__shifts = [];
	const name = (n) => {
		if (!n) return "(gone)";
		if (n.nodeType !== 1) n = n.parentElement;
		if (!n) return "(text)";
		const one = (e) => e.tagName.toLowerCase() + (e.id ? "#" + e.id : "") +
			(e.classList.length ? "." + Array.from(e.classList).join(".") : "");
		const path = [one(n)];
		for (let p = n.parentElement; p && p !== document.body && path.length < 4 && !n.id; p = p.parentElement) {
			path.unshift(one(p));
			if (p.id) break;
		}
		return path.join(" > ");
	};
	const box = (r) => r ? [Math.round(r.x), Math.round(r.y), Math.round(r.width), Math.round(r.height)] : null;
	new PerformanceObserver((list) => {
		for (const e of list.getEntries()) {
			window.__shifts.push({value: e.value, at: e.startTime, input: e.hadRecentInput,
				sources: (e.sources || []).map((s) => ({node: name(s.node), from: box(s.previousRect), to: box(s.currentRect)}))});
		}
	}).observe({type: "layout-shift", buffered: true});
})()`

// Shift is one layout-shift entry as Script kept it.
type Shift struct {
	Value float64 `json:"value"`
	// At is the entry's start time, in ms since the document began.
	At float64 `json:"at"`
	// Input is true when the shift came within half a second of a key
	// or click: browsers leave those out of the page's score.
	Input   bool     `json:"input"`
	Sources []Source `json:"sources"`
}

// Source is an element that moved, and its box (x, y, width, height in
// the viewport) before and after.
type Source struct {
	Node string `json:"node"`
	From []int  `json:"from"`
	To   []int  `json:"to"`
}

// Watch installs Script in every document the tab loads from now on
// (not in the one it shows).
func Watch() chromedp.Action {
	return chromedp.ActionFunc(func(ctx context.Context) error {
		if _, err := page.AddScriptToEvaluateOnNewDocument(Script).Do(ctx); err != nil {
			return fmt.Errorf("install the layout-shift watcher: %w", err)
		}
		return nil
	})
}

// Shifts reads back the entries kept in the page shown. It fails if the
// page has no watcher: one loaded before Watch.
func Shifts(ctx context.Context) ([]Shift, error) {
	var out struct {
		On     bool    `json:"on"`
		Shifts []Shift `json:"shifts"`
	}
	if err := chromedp.Run(ctx, chromedp.Evaluate(`({on: Array.isArray(window.__shifts), shifts: window.__shifts || []})`, &out)); err != nil {
		return nil, fmt.Errorf("read the layout shifts: %w", err)
	}
	if !out.On {
		return nil, fmt.Errorf("the page has no layout-shift watcher: call Watch before loading it")
	}
	return out.Shifts, nil
}

// Tally is the layout shift of some entries: their sum, how many, and a
// line for each naming what moved from where to where.
type Tally struct {
	Sum   float64
	Count int
	Text  string
}

// Split tallies the entries that began at or after mark (a time on the
// page's clock, in ms) apart from those before it.
func Split(shifts []Shift, mark float64) (after, before Tally) {
	var a, b strings.Builder
	for _, s := range shifts {
		t, w := &after, &a
		if s.At < mark {
			t, w = &before, &b
		}
		t.Sum += s.Value
		t.Count++
		fmt.Fprintf(w, "\n  %.4f at %.0f ms (input %v):", s.Value, s.At-mark, s.Input)
		for _, src := range s.Sources {
			fmt.Fprintf(w, "\n    %s %v → %v", src.Node, src.From, src.To)
		}
	}
	after.Text, before.Text = a.String(), b.String()
	return after, before
}
