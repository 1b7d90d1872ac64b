package gameapi_test

import (
	"context"
	"net/http"
	"runtime"
	"slices"
	"testing"
	"time"

	"github.com/hearth-rpg/hearth/game"
	"github.com/hearth-rpg/hearth/offlinegm"
	"github.com/hearth-rpg/hearth/server/gameapi"
	"github.com/hearth-rpg/hearth/store/sqlitestore"
	"github.com/hearth-rpg/hearth/world"
)

// BenchmarkPartyRound is the engine's cost of one round of a party of four
// (Kestrel, Bram, Oona, Pim in the bundled campaign): for each member, the
// supervisor's routing, the member's own view, the offline agent's
// decision, and the turn played and committed with the offline game
// master. No model is called, so this is the overhead a model's time adds
// to. sync=full includes an fsync per turn; sync=normal is the engine's
// own time. It reports the rounds' p50 and p99.
func BenchmarkPartyRound(b *testing.B) {
	for _, sync := range []string{"full", "normal"} {
		b.Run("sync="+sync, func(b *testing.B) {
			var opts []sqlitestore.Option
			if sync == "normal" {
				opts = append(opts, sqlitestore.WithSynchronousNormal())
			}
			benchPartyRound(b, opts...)
		})
	}
}

func benchPartyRound(b *testing.B, opts ...sqlitestore.Option) {
	ctx := context.Background()
	db, err := sqlitestore.Open(ctx, b.TempDir(), opts...)
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	load := partySaltmere(b)
	var (
		s  *game.Session
		sv game.Supervisor
	)
	newGame := func() {
		c, err := load(ctx, "party")
		if err != nil {
			b.Fatal(err)
		}
		if s, err = game.New(ctx, db, c, 9, game.Options{}); err != nil {
			b.Fatal(err)
		}
		sv = game.Supervisor{}
	}
	newGame()
	// round plays one turn per member; false when nobody can act (the
	// party is down), so the caller starts a new game.
	round := func() bool {
		for range 4 {
			w := s.World()
			m, ok := sv.Next(w, func(m world.PartyMember) bool { return w.Characters[m.Character].Alive() })
			if !ok {
				return false
			}
			a := offlinegm.NewAgent()
			words, err := a.Decide(ctx, game.AgentView(w, m.Character), m)
			if err != nil {
				b.Fatal(err)
			}
			r, err := s.PlayTurn(ctx, game.Play{Input: words, Agent: m.Character, Controller: game.AgentName(a, m)}, nil)
			if err != nil {
				b.Fatal(err)
			}
			if r.Committed {
				sv.Observe(s.World(), r.Agent, r.Narrative)
			}
		}
		return true
	}
	took := make([]time.Duration, 0, b.N)
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		start := time.Now()
		for !round() {
			b.StopTimer()
			newGame()
			b.StartTimer()
			start = time.Now()
		}
		took = append(took, time.Since(start))
	}
	b.StopTimer()
	slices.Sort(took)
	b.ReportMetric(float64(took[len(took)/2].Microseconds()), "p50-µs/round")
	b.ReportMetric(float64(took[len(took)*99/100].Microseconds()), "p99-µs/round")
}

// BenchmarkLivePartyGames is the memory a live party game holds: 20
// party games are created, each with a GM's WebSocket connected and one
// round played by the autopilot's offline agents (next_turn four times),
// and the heap in use and goroutine stacks are read, after a GC, before
// and after. The connections' client ends live in the same process, so
// the figures are an upper bound on the server's share. Run it with
// -benchtime 1x: each iteration opens 20 more games.
func BenchmarkLivePartyGames(b *testing.B) {
	const games = 20
	for range b.N {
		b.StopTimer()
		h := newHarness(b, func(o *gameapi.Options) { o.Campaign = partySaltmere(b) })
		before := memNow()
		b.StartTimer()
		for i := range games {
			var in gameapi.SessionInfo
			h.ok(http.StatusCreated, "POST", "/api/sessions", gm, map[string]any{"campaign": "party", "seed": uint64(i + 1)}, &in)
			c := h.dial(in.ID, gm)
			c.state()
			for turn := 1; turn <= 4; turn++ {
				c.send(gameapi.Command{Type: gameapi.NextTurn})
				c.turnUpdate(func(u gameapi.TurnUpdate) bool { return u.Turn == turn })
			}
		}
		b.StopTimer()
		after := memNow()
		b.ReportMetric(float64(after.heap-before.heap)/games/1024, "heap-KiB/game")
		b.ReportMetric(float64(after.stack-before.stack)/games/1024, "stack-KiB/game")
		b.ReportMetric(float64(after.goroutines-before.goroutines)/games, "goroutines/game")
	}
}

type mem struct {
	heap, stack uint64
	goroutines  int
}

// memNow is the heap in use and the goroutine stacks after a full GC.
func memNow() mem {
	runtime.GC()
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return mem{heap: m.HeapAlloc, stack: m.StackInuse, goroutines: runtime.NumGoroutine()}
}
