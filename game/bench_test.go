package game_test

import (
	"context"
	"fmt"
	"os"
	"sync"
	"testing"

	"github.com/hearth-rpg/hearth/game"
	"github.com/hearth-rpg/hearth/store/sqlite"
)

// longGames caches games played to a given length, so each benchmark's
// setup runs once per process, not once per b.N.
var (
	longMu    sync.Mutex
	longGames = map[int]longGame{}
)

type longGame struct {
	dir, id string
}

var cycle = []string{"go north", "go south", "wait", "search"}

func playedGame(b *testing.B, turns int) longGame {
	longMu.Lock()
	defer longMu.Unlock()
	if g, ok := longGames[turns]; ok {
		return g
	}
	ctx := context.Background()
	dir, err := os.MkdirTemp("", "hearth-bench-")
	if err != nil {
		b.Fatal(err)
	}
	db, err := sqlite.Open(ctx, dir)
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	s, err := game.New(ctx, db, loadTiny(b), 1, game.Options{})
	if err != nil {
		b.Fatal(err)
	}
	for i := range turns {
		if _, err := s.Act(ctx, cycle[i%len(cycle)]); err != nil {
			b.Fatal(err)
		}
	}
	g := longGame{dir: dir, id: s.ID()}
	longGames[turns] = g
	return g
}

// BenchmarkAct measures a whole offline turn — interpret, resolve, react,
// narrate, commit — at turn 10 and turn 10,000. It must not grow with the
// length of the campaign.
func BenchmarkAct(b *testing.B) {
	for _, at := range []int{10, 10_000} {
		b.Run(fmt.Sprintf("turn=%d", at), func(b *testing.B) {
			g := playedGame(b, at)
			ctx := context.Background()
			db := openDB(b, g.dir)
			s, err := game.Open(ctx, db, g.id, game.Options{})
			if err != nil {
				b.Fatal(err)
			}
			// Play on a branch of its own so every run starts at the same turn.
			if _, err := s.Fork(ctx, fmt.Sprintf("bench-%d-%d", at, b.N)); err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			b.ResetTimer()
			for i := range b.N {
				if _, err := s.Act(ctx, cycle[i%len(cycle)]); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkRestore measures restoring turn 9,000 (a snapshot turn) and
// turn 9,049 (the most effects to fold) of a 10,000-turn game.
func BenchmarkRestore(b *testing.B) {
	g := playedGame(b, 10_000)
	ctx := context.Background()
	for _, to := range []int{9_000, 9_049} {
		b.Run(fmt.Sprintf("to=%d", to), func(b *testing.B) {
			db := openDB(b, g.dir)
			s, err := game.Open(ctx, db, g.id, game.Options{})
			if err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			b.ResetTimer()
			for range b.N {
				if err := s.Restore(ctx, to); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
