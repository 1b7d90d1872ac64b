package chromiumtest

import (
	"encoding/json"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/fetch"
	"github.com/chromedp/chromedp"

	"github.com/hearth-rpg/hearth/internal/hearthtest"
)

// TestStaleHistoryLoadKeepsTheNewTurn holds the game page's first history
// load (the turns before the game's first) until a turn has been played
// and shown, then lets it finish. The late answer must not draw the log
// without the turn played meanwhile: on a busy machine a full-suite run
// once showed "Turn 1" in the status over an empty log.
func TestStaleHistoryLoadKeepsTheNewTurn(t *testing.T) {
	h := serve(t, nil)
	ctx := browse(t)
	signIn(t, ctx, h)
	c := &http.Client{Transport: hearthtest.Bearer{Key: h.key}}
	res, err := c.Post(h.url+"/api/sessions", "application/json", strings.NewReader(`{"campaign":"saltmere","title":"Late"}`))
	if err != nil {
		t.Fatal(err)
	}
	var g struct{ ID string }
	json.NewDecoder(res.Body).Decode(&g)
	res.Body.Close()
	if res.StatusCode != http.StatusCreated || g.ID == "" {
		t.Fatalf("creating a game: %d %+v", res.StatusCode, g)
	}

	var (
		mu       sync.Mutex
		held     []fetch.RequestID
		released bool
	)
	paused := make(chan struct{}, 1)
	cont := func(id fetch.RequestID) {
		go func() {
			c := chromedp.FromContext(ctx)
			if err := fetch.ContinueRequest(id).Do(cdp.WithExecutor(ctx, c.Target)); err != nil && ctx.Err() == nil {
				t.Logf("continue %s: %v", id, err)
			}
		}()
	}
	chromedp.ListenTarget(ctx, func(ev any) {
		e, ok := ev.(*fetch.EventRequestPaused)
		if !ok {
			return
		}
		mu.Lock()
		defer mu.Unlock()
		if released {
			cont(e.RequestID)
			return
		}
		held = append(held, e.RequestID)
		select {
		case paused <- struct{}{}:
		default:
		}
	})
	run(t, ctx, "hold the history loads", fetch.Enable().WithPatterns([]*fetch.RequestPattern{{URLPattern: "*/turns?*"}}))
	run(t, ctx, "open the game",
		chromedp.Evaluate(`location.hash = "#/game/`+g.ID+`"`, nil),
		chromedp.WaitVisible(`#conn[data-state="open"]`, chromedp.ByQuery))
	select {
	case <-paused:
	case <-ctx.Done():
		t.Fatal("the game page never asked for its history")
	}
	run(t, ctx, "play while the history is held",
		chromedp.SendKeys("#action", "look around", chromedp.ByQuery),
		chromedp.Click("#send", chromedp.ByQuery),
		chromedp.WaitVisible(`#log article[data-turn="1"]`, chromedp.ByQuery))
	mu.Lock()
	released = true
	for _, id := range held {
		cont(id)
	}
	n := len(held)
	mu.Unlock()
	t.Logf("released %d held history loads", n)
	// The next turn comes after the released answers: the log must hold
	// both turns, whichever load drew last.
	run(t, ctx, "play on",
		chromedp.SendKeys("#action", "talk to nell", chromedp.ByQuery),
		chromedp.Click("#send", chromedp.ByQuery),
		chromedp.WaitVisible(`#log[data-turn="2"] article[data-turn="2"]`, chromedp.ByQuery),
		chromedp.WaitVisible(`#log article[data-turn="1"]`, chromedp.ByQuery))
}
