package pgnarrative_test

import (
	"context"
	"sync"
	"testing"

	"github.com/hearth-rpg/hearth/internal/pgdb/pgtest"
	"github.com/hearth-rpg/hearth/narrative"
	"github.com/hearth-rpg/hearth/narrative/narrativetest"
	"github.com/hearth-rpg/hearth/narrative/pgnarrative"
)

func open(t *testing.T, url string, opts ...pgnarrative.Option) *pgnarrative.DB {
	t.Helper()
	db, err := pgnarrative.Open(context.Background(), url, opts...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// TestConformance runs the backend-neutral suite over a schema of its own
// per store; Reopen opens a new pool on the same schema.
func TestConformance(t *testing.T) {
	pgtest.Skip(t)
	var mu sync.Mutex
	urls := map[*pgnarrative.DB]string{}
	narrativetest.Run(t, func(t *testing.T, o narrativetest.Options) narrative.Store {
		var opts []pgnarrative.Option
		if o.Embedder != nil {
			opts = append(opts, pgnarrative.WithEmbedder(o.Embedder))
		}
		mu.Lock()
		defer mu.Unlock()
		url := ""
		if o.Reopen != nil {
			old := o.Reopen.(*pgnarrative.DB)
			if err := old.Close(); err != nil {
				t.Fatal(err)
			}
			url = urls[old]
		} else {
			url = pgtest.URL(t)
		}
		db := open(t, url, opts...)
		urls[db] = url
		return db
	})
}

// Two servers on one database evaluating the same transition at once
// trigger each beat once: the playthrough's lock orders them.
func TestTransitionAcrossHandles(t *testing.T) {
	ctx := context.Background()
	url := pgtest.URL(t)
	dbs := []*pgnarrative.DB{open(t, url), open(t, url)}
	beats := []narrative.Beat{{ID: "ambush"}}
	var wg sync.WaitGroup
	got := make([][]narrative.Decision, 8)
	errs := make([]error, len(got))
	for i := range got {
		wg.Go(func() {
			got[i], errs[i] = dbs[i%2].Transition(ctx, "p", 1, beats, noState{}, narrative.BeatOptions{})
		})
	}
	wg.Wait()
	triggered := 0
	for i, ds := range got {
		if errs[i] != nil {
			t.Fatalf("transition %d: %v", i, errs[i])
		}
		for _, d := range ds {
			if d.Action == narrative.Trigger {
				triggered++
			}
		}
	}
	if triggered != 1 {
		t.Errorf("beat triggered %d times over two handles; want once", triggered)
	}
}

// noState is a game state with nothing in it.
type noState struct{}

func (noState) Stat(string) (float64, bool) { return 0, false }
func (noState) Flag(string) bool            { return false }
func (noState) Location() string            { return "" }
func (noState) HasItem(string) bool         { return false }
func (noState) Reputation(string) float64   { return 0 }
func (noState) Perception(string) float64   { return 0 }
