package chromiumtest

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/hearth-rpg/hearth/internal/hearthtest"
)

// failing keeps, per test, what a failed test shows before its browsers
// close: where each page was, then each server's games and goroutines.
// Cleanups run last first, so without it the browsers would be gone
// before the servers were dumped, and with them the WebSocket and HTTP
// handlers a hung turn waits in.
var failing struct {
	sync.Mutex
	m map[testing.TB]*diagnosis
}

type diagnosis struct {
	once    sync.Once
	pages   []func() // each browser's page, in the order they started
	servers []func() // each server's games, then its goroutines
}

func diagnosisOf(t testing.TB) *diagnosis {
	failing.Lock()
	defer failing.Unlock()
	if failing.m == nil {
		failing.m = map[testing.TB]*diagnosis{}
	}
	d := failing.m[t]
	if d == nil {
		d = &diagnosis{}
		failing.m[t] = d
		t.Cleanup(func() {
			failing.Lock()
			delete(failing.m, t)
			failing.Unlock()
		})
	}
	return d
}

// onFailPage adds a browser's page to what a failure shows.
func onFailPage(t testing.TB, show func()) {
	d := diagnosisOf(t)
	failing.Lock()
	d.pages = append(d.pages, show)
	failing.Unlock()
}

// onFailServer adds a server: its games as the API tells them (was a turn
// played that the page never showed?), then its goroutines.
func onFailServer(t testing.TB, h hearth, dump func()) {
	d := diagnosisOf(t)
	failing.Lock()
	d.servers = append(d.servers, func() {
		c := &http.Client{Transport: hearthtest.Bearer{Key: h.key}, Timeout: 20 * time.Second}
		if res, err := c.Get(h.url + "/api/sessions"); err != nil {
			t.Logf("the server's games are unknown: %v", err)
		} else {
			b, _ := io.ReadAll(io.LimitReader(res.Body, 1<<16))
			res.Body.Close()
			var games struct {
				Sessions []struct {
					ID    string `json:"id"`
					Title string `json:"title"`
					Turn  int    `json:"turn"`
				} `json:"sessions"`
			}
			if json.Unmarshal(b, &games) != nil {
				t.Logf("the server's games (%d): %s", res.StatusCode, b)
			}
			for _, g := range games.Sessions {
				t.Logf("the server has game %s (%q) at turn %d", g.ID, g.Title, g.Turn)
			}
		}
		dump()
	})
	failing.Unlock()
}

// diagnose shows, once, where a failed test's pages and servers were,
// while the browsers are still open.
func diagnose(t testing.TB) {
	if !t.Failed() {
		return
	}
	d := diagnosisOf(t)
	d.once.Do(func() {
		failing.Lock()
		pages, servers := append([]func(){}, d.pages...), append([]func(){}, d.servers...)
		failing.Unlock()
		for _, p := range pages {
			p()
		}
		for _, s := range servers {
			s()
		}
	})
}

// showPage logs where the page was: its address, the alert, the action
// box, the focus, how many views and sockets it had and what it sent, and
// the start and the end of the view (a game's log and status are at the
// top, its scene images and tools at the bottom).
func showPage(t testing.TB, tab context.Context, name string) {
	dctx, cancel := context.WithTimeout(tab, 20*time.Second)
	defer cancel()
	var where string
	err := chromedp.Run(dctx, chromedp.Evaluate(`(() => {
		const m = document.getElementById("main");
		const main = (m || {}).innerHTML || "";
		const action = document.getElementById("action");
		const active = document.activeElement;
		return location.href + "\n" + document.title + "\n" +
			"alert: " + ((document.getElementById("alert") || {}).textContent || "") + "\n" +
			"action box: " + (action ? JSON.stringify(action.value) : "none") + "\n" +
			"focus: " + (active ? active.tagName + "#" + active.id : "none") + "\n" +
			"views drawn: " + ((m && m.dataset.routes) || "?") + "\n" +
			(main.length <= 6000 ? main : main.slice(0, 3000) + "\n…\n" + main.slice(-3000));
	})()`, &where))
	if err != nil {
		t.Logf("%s: where the page was is unknown: %v", name, err)
		return
	}
	t.Logf("%s at the failure:\n%s", name, where)
}
