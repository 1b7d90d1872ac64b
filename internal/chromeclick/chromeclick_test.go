package chromeclick_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/hearth-rpg/hearth/internal/chromeclick"
)

const chromium = "/usr/bin/chromium"

// page serves one test page; its script counts, per element id, the
// clicks the page saw, in window.clicks.
func page(t *testing.T, body string) string {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprintf(w, `<!doctype html><html><head><style>
body { margin: 0; font: 16px sans-serif; }
button { display: block; width: 12rem; height: 3rem; margin: 0.5rem; }
.panel { height: 200px; background: #eee; }
#cover { position: fixed; inset: 0; background: rgb(0 0 0 / 30%%); }
</style></head><body>%s<script>
window.clicks = {};
document.addEventListener("click", (ev) => {
	const id = ev.target.id || ev.target.tagName.toLowerCase();
	window.clicks[id] = (window.clicks[id] || 0) + 1;
});
</script></body></html>`, body)
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}

func browse(t *testing.T) context.Context {
	t.Helper()
	if _, err := os.Stat(chromium); err != nil {
		t.Skipf("%s is absent; install it with apt-get install chromium", chromium)
	}
	opts := append(chromedp.DefaultExecAllocatorOptions[:], chromedp.ExecPath(chromium), chromedp.WindowSize(800, 600))
	if os.Geteuid() == 0 {
		opts = append(opts, chromedp.NoSandbox)
	}
	actx, cancelA := chromedp.NewExecAllocator(context.Background(), opts...)
	tab, cancelB := chromedp.NewContext(actx)
	ctx, cancelT := context.WithTimeout(tab, 2*time.Minute)
	t.Cleanup(func() { cancelT(); cancelB(); cancelA() })
	return ctx
}

func clicks(t *testing.T, ctx context.Context) map[string]int {
	t.Helper()
	var got map[string]int
	if err := chromedp.Run(ctx, chromedp.Evaluate(`window.clicks`, &got)); err != nil {
		t.Fatal(err)
	}
	return got
}

// TestClickLandsOnTheTarget: each page makes a naive click at the
// target's coordinates go wrong in its own way; Click must land on the
// target once, and nothing else may see a click.
func TestClickLandsOnTheTarget(t *testing.T) {
	for _, c := range []struct {
		name, body string
	}{
		// A panel is put above the target, and taken away, on every
		// frame for a while: the target keeps moving under the pointer,
		// and a decoy takes its place every other frame.
		{"moving", `<div id="slot"></div><button id="target">target</button><button id="decoy">decoy</button>
<script>
let n = 0;
const flip = () => {
	const slot = document.getElementById("slot");
	slot.className = n % 2 ? "" : "panel";
	if (++n < 60) requestAnimationFrame(flip);
};
requestAnimationFrame(flip);
</script>`},
		// An overlay covers the page for a while.
		{"covered", `<button id="target">target</button><div id="cover"></div>
<script>setTimeout(() => document.getElementById("cover").remove(), 700);</script>`},
		// The target is disabled, then enabled.
		{"disabled", `<button id="target" disabled>target</button>
<script>setTimeout(() => { document.getElementById("target").disabled = false; }, 700);</script>`},
		// The target comes late, and below the fold.
		{"late and out of view", `<div style="height: 1500px"></div>
<script>setTimeout(() => { const b = document.createElement("button"); b.id = "target"; b.textContent = "target"; document.body.append(b); }, 500);</script>`},
		// The page moves the target on the press itself: the first press
		// lands on what took its place, which must not see a click.
		{"moves on press", `<div id="slot"></div><button id="target">target</button><button id="decoy">decoy</button>
<script>
let moved = false;
document.addEventListener("pointerdown", () => { if (!moved) { moved = true; document.getElementById("slot").className = "panel"; } }, true);
</script>`},
	} {
		t.Run(c.name, func(t *testing.T) {
			ctx := browse(t)
			if err := chromedp.Run(ctx, chromedp.Navigate(page(t, c.body)), chromeclick.Click("#target")); err != nil {
				t.Fatal(err)
			}
			got := clicks(t, ctx)
			if got["target"] != 1 || len(got) != 1 {
				t.Errorf("the page saw clicks %v, want one on the target only", got)
			}
		})
	}
}

// TestClickSaysWhyNot: an element that never becomes clickable is an
// error naming what kept it, once the context ends, also when it ends
// during a look at a page too busy to answer at once (a loaded machine).
func TestClickSaysWhyNot(t *testing.T) {
	for _, c := range []struct{ name, body string }{
		{"covered", `<button id="target">target</button><div id="cover"></div>`},
		{"covered, on a busy page", `<button id="target">target</button><div id="cover"></div>
<script>setInterval(() => { const t = performance.now(); while (performance.now() - t < 400); }, 20);</script>`},
	} {
		t.Run(c.name, func(t *testing.T) {
			ctx := browse(t)
			if err := chromedp.Run(ctx, chromedp.Navigate(page(t, c.body))); err != nil {
				t.Fatal(err)
			}
			// Long enough for several looks on a loaded machine; the
			// context may still end during one.
			short, cancel := context.WithTimeout(ctx, 5*time.Second)
			defer cancel()
			err := chromedp.Run(short, chromeclick.Click("#target"))
			if err == nil || !strings.Contains(err.Error(), "covered by div#cover") {
				t.Errorf("clicking a covered button: %v", err)
			}
			if got := clicks(t, ctx); len(got) != 0 {
				t.Errorf("the page saw clicks %v", got)
			}
		})
	}
}
