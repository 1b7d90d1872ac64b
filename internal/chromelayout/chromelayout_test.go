package chromelayout_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"

	"github.com/hearth-rpg/hearth/internal/chromelayout"
)

const chromium = "/usr/bin/chromium"

// testPage has a paragraph that stays still until push() puts a 200 px
// box above it.
const testPage = `<!doctype html><html><head><style>
body { margin: 0; font: 16px sans-serif; }
p { margin: 0; }
#slot > div { height: 200px; background: #eee; }
</style></head><body><div id="slot"></div><p id="story" class="told">The lantern keeper trims the wick.</p>
<script>
window.push = () => { document.getElementById("slot").append(document.createElement("div")); };
</script></body></html>`

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

// frames resolves, after two painted frames, to the page's clock.
func frames(out *float64) chromedp.Action {
	return chromedp.Evaluate(`new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(() => setTimeout(() => done(performance.now()), 0))))`,
		out, func(p *runtime.EvaluateParams) *runtime.EvaluateParams { return p.WithAwaitPromise(true) })
}

// TestWatchSeesWhatMoved loads a page with the watcher, lets it settle,
// pushes its paragraph down and reads back one shift after the mark that
// names the paragraph and its boxes, and none before it.
func TestWatchSeesWhatMoved(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Write([]byte(testPage))
	}))
	t.Cleanup(srv.Close)
	ctx := browse(t)
	var mark, end float64
	if err := chromedp.Run(ctx, chromelayout.Watch(), chromedp.Navigate(srv.URL), chromedp.WaitVisible("#story", chromedp.ByQuery), frames(&mark)); err != nil {
		t.Fatal(err)
	}
	still, err := chromelayout.Shifts(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(still) != 0 {
		t.Fatalf("a still page has %d layout shifts: %+v", len(still), still)
	}
	if err := chromedp.Run(ctx, chromedp.Evaluate(`push()`, nil), frames(&end)); err != nil {
		t.Fatal(err)
	}
	shifts, err := chromelayout.Shifts(ctx)
	if err != nil {
		t.Fatal(err)
	}
	after, before := chromelayout.Split(shifts, mark)
	t.Logf("after the mark: %.4f in %d%s", after.Sum, after.Count, after.Text)
	if before.Count != 0 || before.Sum != 0 {
		t.Errorf("before the mark: %.4f in %d entries%s", before.Sum, before.Count, before.Text)
	}
	if after.Count != 1 || after.Sum <= 0 {
		t.Fatalf("after the push: %.4f in %d entries, want one shift", after.Sum, after.Count)
	}
	if src := shifts[0].Sources; len(src) != 1 || src[0].Node != "p#story.told" || len(src[0].From) != 4 || src[0].To[1]-src[0].From[1] != 200 {
		t.Errorf("the shift's sources: %+v, want p#story.told 200 px down", src)
	}
	if !strings.Contains(after.Text, "p#story.told [") {
		t.Errorf("the report does not name the paragraph:%s", after.Text)
	}
	// Split puts the same entry before a later mark.
	if a, b := chromelayout.Split(shifts, end+1); a.Count != 0 || b.Count != 1 || b.Sum != after.Sum {
		t.Errorf("split at a later mark: after %+v, before %+v", a, b)
	}
}

// TestShiftsWithoutWatch: a page loaded without the watcher is an error
// that says what to do, not an empty (and so passing) list.
func TestShiftsWithoutWatch(t *testing.T) {
	ctx := browse(t)
	if err := chromedp.Run(ctx, chromedp.Navigate("about:blank")); err != nil {
		t.Fatal(err)
	}
	_, err := chromelayout.Shifts(ctx)
	if err == nil || !strings.Contains(err.Error(), "call Watch") {
		t.Fatalf("Shifts without Watch: %v", err)
	}
}
