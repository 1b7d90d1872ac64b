package pgstore_test

import (
	"context"
	"encoding/json"
	"errors"
	"reflect"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hearth-rpg/hearth/internal/pgdb/pgtest"
	"github.com/hearth-rpg/hearth/narrative"
	"github.com/hearth-rpg/hearth/narrative/pgnarrative"
	"github.com/hearth-rpg/hearth/store"
	"github.com/hearth-rpg/hearth/store/pgstore"
	"github.com/hearth-rpg/hearth/store/storetest"
)

func open(t *testing.T) *pgstore.DB {
	t.Helper()
	db, err := pgstore.Open(context.Background(), pgtest.URL(t))
	if err != nil {
		t.Fatal(err)
	}
	return db
}

func TestConformance(t *testing.T) {
	pgtest.Skip(t)
	storetest.Run(t, func(t *testing.T) store.Store { return open(t) })
}

func TestConformanceMemories(t *testing.T) {
	pgtest.Skip(t)
	storetest.RunMemories(t, func(t *testing.T) (store.Store, storetest.Recaller) {
		db := open(t)
		m, err := pgnarrative.New(context.Background(), db.Handle())
		if err != nil {
			t.Fatal(err)
		}
		return db, m
	})
}

// Two servers sharing one database: appends to one branch through two
// pools still have exactly one winner per turn number.
func TestTwoHandlesOneWinner(t *testing.T) {
	ctx := context.Background()
	url := pgtest.URL(t)
	a, err := pgstore.Open(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	b, err := pgstore.Open(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	s := &store.Session{ID: "shared", Name: "Shared", Campaign: "c", Seed: 1}
	if err := a.CreateSession(ctx, s, store.Snapshot{State: json.RawMessage(`{}`)}); err != nil {
		t.Fatal(err)
	}
	for n := 1; n <= 5; n++ {
		var wg sync.WaitGroup
		var wins atomic.Int32
		for i := range 8 {
			db := []*pgstore.DB{a, b}[i%2]
			wg.Go(func() {
				err := db.AppendTurn(ctx, &store.Turn{BranchID: s.Branch, Number: n, Input: "x", Narrative: "y"}, nil)
				switch {
				case err == nil:
					wins.Add(1)
				case !errors.Is(err, store.ErrConflict):
					t.Errorf("turn %d: %v", n, err)
				}
			})
		}
		wg.Wait()
		if wins.Load() != 1 {
			t.Fatalf("turn %d: %d winners, want 1", n, wins.Load())
		}
	}
	if tip, err := b.Tip(ctx, s.Branch); err != nil || tip != 5 {
		t.Errorf("tip %d %v, want 5", tip, err)
	}
}

// A memory event comes back from PostgreSQL as it went in: arrays,
// embedding, times.
func TestMemoryEventRoundTrip(t *testing.T) {
	ctx := context.Background()
	db := open(t)
	defer db.Close()
	s := &store.Session{ID: "m", Name: "M", Campaign: "c"}
	if err := db.CreateSession(ctx, s, store.Snapshot{State: json.RawMessage(`{}`)}); err != nil {
		t.Fatal(err)
	}
	wall := time.Date(2026, 1, 2, 3, 4, 5, 6, time.UTC)
	want := narrative.Event{Playthrough: "m", Session: s.Branch, Turn: 1, Scene: 2, At: 3600, Wall: wall, Summary: "The bridge burned.",
		Characters: []string{"pc", "owen"}, Location: "bridge", Action: "burn", Significance: 8, Tags: []string{"fire"},
		Kind: narrative.KindFailure, Embedding: []float32{0.25, -1, 3.5}}
	if err := db.AppendTurn(ctx, &store.Turn{BranchID: s.Branch, Number: 1, Input: "x", Narrative: "y", Memories: []narrative.Event{want}}, nil); err != nil {
		t.Fatal(err)
	}
	// A second embedding of another dimension in the playthrough is refused.
	odd := want
	odd.Embedding = []float32{1}
	if err := db.AppendTurn(ctx, &store.Turn{BranchID: s.Branch, Number: 2, Input: "x", Narrative: "y", Memories: []narrative.Event{odd}}, nil); err == nil {
		t.Error("an embedding of another dimension was stored")
	}
	m, err := pgnarrative.New(ctx, db.Handle())
	if err != nil {
		t.Fatal(err)
	}
	evs, err := m.Events(ctx, "m")
	if err != nil || len(evs) != 1 {
		t.Fatalf("events %+v %v", evs, err)
	}
	got := evs[0]
	want.ID = got.ID
	if !reflect.DeepEqual(got, want) {
		t.Errorf("read back\n got %+v\nwant %+v", got, want)
	}
}
