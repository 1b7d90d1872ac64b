package chromiumtest

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"

	"github.com/hearth-rpg/hearth/internal/hearthtest"
)

// marks records, in the page and before its own scripts run, when the
// sign-in form's key field and the game's open socket first appear, in
// milliseconds since navigation start (performance.now()). Injected over
// the DevTools protocol, which the page's CSP does not govern.
const marks = `(() => {
	window.__tti = {};
	const seen = () => {
		if (!window.__tti.signin && document.querySelector("#key")) window.__tti.signin = performance.now();
		if (!window.__tti.game && document.querySelector('#conn[data-state="open"]')) window.__tti.game = performance.now();
	};
	new MutationObserver(seen).observe(document, {subtree: true, childList: true, attributes: true});
})()`

// transfer is what the page fetched over the network: bytes on the
// wire (headers and compressed bodies) and requests.
const transfer = `(() => {
	const all = [...performance.getEntriesByType("navigation"), ...performance.getEntriesByType("resource")];
	return {bytes: all.reduce((n, e) => n + e.transferSize, 0), body: all.reduce((n, e) => n + e.encodedBodySize, 0), requests: all.length};
})()`

// TestTimeToInteractive measures, over 20 cold loads each (browser cache
// cleared), navigation start → sign-in form usable, and navigation start
// → game view with its socket open, with the bytes transferred. It
// reports; it asserts nothing about time. Run with HEARTH_TEST_TTI=1 and
// -v; BENCHMARKS.md has the figures.
func TestTimeToInteractive(t *testing.T) {
	if os.Getenv("HEARTH_TEST_TTI") == "" {
		t.Skip("a measurement, not a test; set HEARTH_TEST_TTI=1 to run it")
	}
	const loads = 20
	h := serve(t, nil)
	c := &http.Client{Transport: hearthtest.Bearer{Key: h.key}}
	res, err := c.Post(h.url+"/api/sessions", "application/json", strings.NewReader(`{"campaign":"saltmere"}`))
	if err != nil {
		t.Fatal(err)
	}
	var game struct{ ID string }
	json.NewDecoder(res.Body).Decode(&game)
	res.Body.Close()
	ctx := browse(t)
	run(t, ctx, "instrument", chromedp.ActionFunc(func(ctx context.Context) error {
		_, err := page.AddScriptToEvaluateOnNewDocument(marks).Do(ctx)
		return err
	}))
	type load struct {
		ms       float64
		bytes    int
		body     int
		requests int
	}
	measure := func(url, key, ready string) load {
		t.Helper()
		var tti struct{ Signin, Game float64 }
		var tr struct{ Bytes, Body, Requests int }
		run(t, ctx, "load "+url,
			chromedp.Navigate("about:blank"),
			network.ClearBrowserCache(),
			chromedp.Navigate(url),
			chromedp.WaitVisible(ready, chromedp.ByQuery),
			chromedp.Evaluate(`window.__tti`, &tti),
			chromedp.Evaluate(transfer, &tr))
		ms := tti.Signin
		if key == "game" {
			ms = tti.Game
		}
		if ms <= 0 {
			t.Fatalf("%s: no mark for %s: %+v", url, key, tti)
		}
		return load{ms, tr.Bytes, tr.Body, tr.Requests}
	}
	report := func(what string, ls []load) {
		t.Helper()
		ms := make([]float64, len(ls))
		for i, l := range ls {
			ms[i] = l.ms
		}
		slices.Sort(ms)
		p := func(q float64) float64 { return ms[min(len(ms)-1, int(q*float64(len(ms))))] }
		t.Logf("%s over %d cold loads: p50 %.0f ms, p99 %.0f ms (min %.0f); transfer %d bytes (%d of bodies) in %d requests",
			what, len(ls), p(0.50), p(0.99), ms[0], ls[0].bytes, ls[0].body, ls[0].requests)
	}
	var signin, play []load
	for range loads {
		signin = append(signin, measure(h.url+"/", "signin", "#key"))
	}
	report("navigation start → sign-in form usable", signin)
	signIn(t, ctx, h)
	for range loads {
		play = append(play, measure(h.url+"/#/game/"+game.ID, "game", `#conn[data-state="open"]`))
	}
	report("navigation start → game view, socket open", play)
	if b, err := os.ReadFile("/proc/loadavg"); err == nil {
		t.Logf("load average: %s", bytes.TrimSpace(b))
	}
}
