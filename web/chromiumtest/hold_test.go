package chromiumtest

import (
	"context"
	"sync"
	"testing"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/fetch"
	"github.com/chromedp/chromedp"
)

// held is the page's requests to a URL pattern, held in the browser
// until release: a slow answer made to order.
type held struct {
	t        *testing.T
	ctx      context.Context
	mu       sync.Mutex
	ids      []fetch.RequestID
	released bool
	paused   chan struct{} // one value once the first request is held
}

// holdRequests holds every request of the page in ctx whose URL matches
// pattern until release is called; later ones pass.
func holdRequests(t *testing.T, ctx context.Context, pattern string) *held {
	hd := &held{t: t, ctx: ctx, paused: make(chan struct{}, 1)}
	chromedp.ListenTarget(ctx, func(ev any) {
		e, ok := ev.(*fetch.EventRequestPaused)
		if !ok {
			return
		}
		hd.mu.Lock()
		defer hd.mu.Unlock()
		if hd.released {
			hd.cont(e.RequestID)
			return
		}
		hd.ids = append(hd.ids, e.RequestID)
		select {
		case hd.paused <- struct{}{}:
		default:
		}
	})
	run(t, ctx, "hold "+pattern, fetch.Enable().WithPatterns([]*fetch.RequestPattern{{URLPattern: pattern}}))
	return hd
}

func (hd *held) cont(id fetch.RequestID) {
	go func() {
		c := chromedp.FromContext(hd.ctx)
		if err := fetch.ContinueRequest(id).Do(cdp.WithExecutor(hd.ctx, c.Target)); err != nil && hd.ctx.Err() == nil {
			hd.t.Logf("continue %s: %v", id, err)
		}
	}()
}

// wait returns once a request is held; what names it in the failure.
func (hd *held) wait(what string) {
	select {
	case <-hd.paused:
	case <-hd.ctx.Done():
		hd.t.Fatalf("the page never asked for %s", what)
	}
}

// release lets the held requests and every later one go, and says how
// many were held.
func (hd *held) release() int {
	hd.mu.Lock()
	defer hd.mu.Unlock()
	hd.released = true
	for _, id := range hd.ids {
		hd.cont(id)
	}
	return len(hd.ids)
}
