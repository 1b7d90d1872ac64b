package database_test

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/hearth-rpg/hearth/database"
	"github.com/hearth-rpg/hearth/internal/pgdb/pgtest"
	"github.com/hearth-rpg/hearth/store"
)

// BenchmarkTurnCommit commits turns as a game does (a turn with its
// effects, dice state and narration; a snapshot every tenth turn), on
// SQLite and on PostgreSQL in one run, each through database.Open as the
// server opens it, and reports the median and 99th percentile of one
// commit. PostgreSQL runs when HEARTH_TEST_POSTGRES_URL is set.
func BenchmarkTurnCommit(b *testing.B) {
	for _, backend := range []string{database.SQLite, database.Postgres} {
		b.Run(backend, func(b *testing.B) {
			ctx := context.Background()
			var opts []database.Option
			if backend == database.Postgres {
				opts = append(opts, database.WithURL(pgtest.URL(b)))
			}
			db, err := database.Open(ctx, b.TempDir(), opts...)
			if err != nil {
				b.Fatal(err)
			}
			defer db.Close()
			s := &store.Session{ID: "bench", Name: "bench", Campaign: "c"}
			state := json.RawMessage(`{"hp":` + strings.Repeat(`{"hero":10,"owen":7},`, 400) + `0}`)
			if err := db.Games.CreateSession(ctx, s, store.Snapshot{State: state}); err != nil {
				b.Fatal(err)
			}
			effects := json.RawMessage(`[{"type":"turn_began","turn":1},{"type":"character_moved","character":"hero","from":"quay","to":"tavern"},{"type":"hp_changed","target":"hero","from":10,"to":7}]`)
			narration := strings.Repeat("You walk north through the fog, past the shuttered chandlery. ", 8)
			times := make([]time.Duration, 0, b.N)
			b.ResetTimer()
			for i := range b.N {
				n := i + 1
				t := &store.Turn{BranchID: s.Branch, Number: n, Actor: "pc", Input: "go north", Effects: effects,
					Narrative: narration, RNGState: make([]byte, 20)}
				var snap *store.Snapshot
				if n%10 == 0 {
					snap = &store.Snapshot{SessionID: s.ID, BranchID: s.Branch, Turn: n, State: state, RNGState: make([]byte, 20)}
				}
				start := time.Now()
				if err := db.Games.AppendTurn(ctx, t, snap); err != nil {
					b.Fatal(err)
				}
				times = append(times, time.Since(start))
			}
			b.StopTimer()
			slices.Sort(times)
			b.ReportMetric(float64(times[len(times)/2].Microseconds()), "p50-µs")
			b.ReportMetric(float64(times[min(len(times)-1, len(times)*99/100)].Microseconds()), "p99-µs")
		})
	}
}
