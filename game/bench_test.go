package game_test

import (
	"context"
	"fmt"
	"os"
	"sync"
	"testing"

	"github.com/hearth-rpg/hearth/game"
	"github.com/hearth-rpg/hearth/store/sqlitestore"
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

var (
	cycle = []string{"go north", "go south", "wait", "search"}
	forks int // names each benchmark run's branch
)

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
	db, err := sqlitestore.Open(ctx, dir)
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
// length of the campaign. sync=full includes the fsync of every commit;
// sync=normal shows the engine's own time.
func BenchmarkAct(b *testing.B) {
	for _, sync := range []string{"full", "normal"} {
		for _, at := range []int{10, 10_000} {
			b.Run(fmt.Sprintf("sync=%s/turn=%d", sync, at), func(b *testing.B) { benchAct(b, sync, at) })
		}
	}
}

func benchAct(b *testing.B, sync string, at int) {
	g := playedGame(b, at)
	ctx := context.Background()
	var opts []sqlitestore.Option
	if sync == "normal" {
		opts = append(opts, sqlitestore.WithSynchronousNormal())
	}
	db, err := sqlitestore.Open(ctx, g.dir, opts...)
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	s, err := game.Open(ctx, db, g.id, game.Options{})
	if err != nil {
		b.Fatal(err)
	}
	// Every run plays on a branch of its own from main's last turn.
	if err := s.Switch(ctx, "main"); err != nil {
		b.Fatal(err)
	}
	longMu.Lock()
	forks++
	name := fmt.Sprintf("bench-%d", forks)
	longMu.Unlock()
	if _, err := s.Fork(ctx, name); err != nil {
		b.Fatal(err)
	}
	if s.Turn() != at {
		b.Fatalf("benchmark starts at turn %d, want %d", s.Turn(), at)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := range b.N {
		if _, err := s.Act(ctx, cycle[i%len(cycle)]); err != nil {
			b.Fatal(err)
		}
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
