package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hearth-rpg/hearth/internal/hearthtest"
)

// figuresEnv turns on the measurements BENCHMARKS.md reports; they take
// minutes and assert nothing about speed.
const figuresEnv = "HEARTH_SCALEOUT_FIGURES"

func pct(ds []time.Duration, p float64) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[min(len(s)-1, int(float64(len(s))*p))]
}

func loadAvg() string {
	b, _ := os.ReadFile("/proc/loadavg")
	return strings.Join(strings.Fields(string(b))[:3], " ")
}

// TestScaleOutFigures measures, with real servers on PostgreSQL, turns
// played at once on one server, on two (each game's clients on the
// server that owns it), and on two with every turn forwarded (the
// clients on the server that does not own the game); then the time from
// a kill -9 of a game's owner to the next autopilot turn on the other.
func TestScaleOutFigures(t *testing.T) {
	if os.Getenv(figuresEnv) == "" {
		t.Skip(figuresEnv + " is unset: the scale-out figures take minutes")
	}
	games, rounds := 8, 25
	t.Run("throughput", func(t *testing.T) {
		for _, mode := range []string{"one server", "two servers", "two servers, all forwarded"} {
			env := scaleEnv(t)
			dir := t.TempDir()
			gmKey := regexp.MustCompile(`hth_[a-z0-9_]+`).FindString(runEnv(t, env, nil, "user", "add", "gm", "--role", "gm", "--data", dir))
			urls := []string{}
			for i := range 2 {
				if i == 1 && mode == "one server" {
					break
				}
				cmd, url := hearthtest.Server{Bin: hearthBin, Data: dir, Env: env}.Launch(t)
				t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
				urls = append(urls, url)
			}
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Minute)
			var mu sync.Mutex
			var lat []time.Duration
			var wg sync.WaitGroup
			var ws []*watcher
			for g := range games {
				owner := urls[g%len(urls)]
				code, b := apiCall(t, "POST", owner+"/api/sessions", gmKey, "application/json", strings.NewReader(fmt.Sprintf(`{"campaign":"saltmere","seed":%d}`, g+1)))
				var game struct{ ID string }
				if json.Unmarshal(b, &game); code != http.StatusCreated {
					t.Fatalf("create: %d %s", code, b)
				}
				// The owner opens it first.
				own := watch(t, ctx, "owner", owner, gmKey, game.ID)
				own.wait(0, time.Minute, "state", func(f frame) bool { return f.Type == "session_state" })
				w := own
				if mode == "two servers, all forwarded" {
					w = watch(t, ctx, "forwarded", urls[(g+1)%2], gmKey, game.ID)
					w.wait(0, time.Minute, "state", func(f frame) bool { return f.Type == "session_state" })
				}
				ws = append(ws, w)
			}
			// Every game set up and watched; now they play at once.
			start := time.Now()
			for _, w := range ws {
				wg.Add(1)
				go func() {
					defer wg.Done()
					for range rounds {
						from := w.len()
						sent := time.Now()
						w.send(`{"type":"human_action","content":"look around"}`)
						_, _, at := w.wait(from, 5*time.Minute, "the turn", committedTurn)
						mu.Lock()
						lat = append(lat, at.Sub(sent))
						mu.Unlock()
					}
				}()
			}
			wg.Wait()
			took := time.Since(start)
			cancel()
			t.Logf("%s: %d games × %d turns at once: %.1f turns/s, turn p50 %v p99 %v (load %s)", mode, games, rounds,
				float64(len(lat))/took.Seconds(), pct(lat, 0.5).Round(time.Millisecond), pct(lat, 0.99).Round(time.Millisecond), loadAvg())
		}
	})
	t.Run("takeover", func(t *testing.T) {
		// The defaults: a 10s lease, looked for every 2s.
		env := scaleEnv(t)
		env = slices.DeleteFunc(env, func(e string) bool { return strings.Contains(e, "LEASE_") })
		dir := t.TempDir()
		gmKey := regexp.MustCompile(`hth_[a-z0-9_]+`).FindString(runEnv(t, env, nil, "user", "add", "gm", "--role", "gm", "--data", dir))
		launch := func() (*exec.Cmd, string) {
			cmd, url := hearthtest.Server{Bin: hearthBin, Data: dir, Env: env}.Launch(t)
			t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
			return cmd, url
		}
		ownerCmd, ownerURL := launch()
		survivorCmd, survivorURL := launch()
		code, b := apiCall(t, "POST", ownerURL+"/api/sessions", gmKey, "application/json", strings.NewReader(`{"campaign":"saltmere","seed":3}`))
		var game struct{ ID string }
		if json.Unmarshal(b, &game); code != http.StatusCreated {
			t.Fatalf("create: %d %s", code, b)
		}
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Minute)
		defer cancel()
		o := watch(t, ctx, "owner", ownerURL, gmKey, game.ID)
		o.wait(0, time.Minute, "state", func(f frame) bool { return f.Type == "session_state" })
		o.send(`{"type":"start_autopilot","speed":"fast"}`)
		var took []time.Duration
		for range 5 {
			w := watch(t, ctx, "survivor", survivorURL, gmKey, game.ID)
			_, i, _ := w.wait(0, 3*time.Minute, "a turn", committedTurn)
			w.wait(i+1, 3*time.Minute, "a turn", committedTurn)
			mark := w.len()
			ownerCmd.Process.Kill()
			killed := time.Now()
			ownerCmd.Wait()
			_, _, at := w.wait(mark, 5*time.Minute, "a turn after the kill", committedTurn)
			took = append(took, at.Sub(killed))
			w.c.CloseNow()
			// The survivor owns the game now; a new server is its follower,
			// and the next round kills the survivor.
			ownerCmd = survivorCmd
			survivorCmd, survivorURL = launch()
		}
		t.Logf("takeover after kill -9 (lease 10s, poll 2s, autopilot fast = 1s pause): %d kills, p50 %v p99 %v, all %v (load %s)",
			len(took), pct(took, 0.5).Round(10*time.Millisecond), pct(took, 0.99).Round(10*time.Millisecond), took, loadAvg())
	})
}
