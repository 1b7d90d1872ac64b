package pgnarrative_test

import (
	"context"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/hearth-rpg/hearth/internal/pgdb"
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

// Recall keeps each playthrough in memory and must still see what other
// servers write: events they commit (even one that started before an
// event committed first), and events they forget.
func TestRecallAcrossServers(t *testing.T) {
	ctx := context.Background()
	url := pgtest.URL(t)
	reader, writer, other := open(t, url), open(t, url), open(t, url)
	ev := func(s string) narrative.Event {
		return narrative.Event{Playthrough: "p", Summary: s, Significance: 5, Embedding: []float32{1, 0, 0}}
	}
	recalled := func() []string {
		t.Helper()
		ms, err := reader.Recall(ctx, narrative.Query{Playthrough: "p", Vector: []float32{1, 0, 0}, Limit: 50, MinScore: -1})
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, m := range ms {
			out = append(out, m.Event.Summary)
		}
		slices.Sort(out)
		return out
	}
	want := func(w ...string) {
		t.Helper()
		if got := recalled(); !slices.Equal(got, w) {
			t.Errorf("recalled %q, want %q", got, w)
		}
	}
	want() // loads an empty index
	ids, err := writer.Remember(ctx, ev("first"), ev("second"))
	if err != nil {
		t.Fatal(err)
	}
	want("first", "second")

	// A turn's transaction holds its events uncommitted while another
	// server stores one: the later writer waits for the earlier, so the
	// reader never holds the later event while missing the earlier.
	h, err := pgdb.Open(ctx, url, pgdb.Options{Migrations: []pgdb.Migrations{pgnarrative.Migrations}})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	tx, err := h.Pool().Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback(ctx)
	if _, err := pgnarrative.InsertEvents(ctx, tx, []narrative.Event{ev("slow turn")}); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() {
		_, err := other.Remember(ctx, ev("quick note"))
		done <- err
	}()
	// Give the other server a second to commit, which it must not manage
	// before the slow turn does; if it did, the reader would hold the
	// quick note and must still find the slow turn once it commits.
	committed := false
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
		committed = true
		want("first", "quick note", "second")
	case <-time.After(time.Second):
		want("first", "second")
	}
	if err := tx.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	if !committed {
		if err := <-done; err != nil {
			t.Fatal(err)
		}
	}
	want("first", "quick note", "second", "slow turn")

	// Forgotten by another server, then by the reader itself.
	if err := writer.Forget(ctx, "p", ids[0]); err != nil {
		t.Fatal(err)
	}
	want("quick note", "second", "slow turn")
	if err := reader.Forget(ctx, "p", ids[1]); err != nil {
		t.Fatal(err)
	}
	want("quick note", "slow turn")
	if _, err := other.Remember(ctx, ev("last")); err != nil {
		t.Fatal(err)
	}
	want("last", "quick note", "slow turn")
}
