package storetest

import (
	"context"
	"errors"
	"slices"
	"strconv"
	"testing"

	"github.com/hearth-rpg/hearth/narrative"
	"github.com/hearth-rpg/hearth/store"
)

// Recaller reads memory events back, as the game does (package narrative).
type Recaller interface {
	Recall(ctx context.Context, q narrative.Query) ([]narrative.Match, error)
}

// RunMemories checks that a turn's memory events (Turn.Memories) commit
// with the turn and only with it. open must return a new, empty store
// and a Recaller over the same storage each call.
func RunMemories(t *testing.T, open func(t *testing.T) (store.Store, Recaller)) {
	tests := []struct {
		name string
		fn   func(*testing.T, store.Store, Recaller)
	}{
		{"CommittedWithTheTurn", testMemoriesCommitted},
		{"NoneWhenTheTurnConflicts", testMemoriesConflict},
		{"NoTurnWhenAMemoryIsBad", testMemoriesBad},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, r := open(t)
			t.Cleanup(func() { s.Close() })
			tt.fn(t, s, r)
		})
	}
}

func memory(sess *store.Session, n int, summary string) narrative.Event {
	return narrative.Event{Playthrough: sess.ID, Session: sess.Branch, Turn: n, Summary: summary, Significance: 5,
		Characters: []string{"pc"}, Kind: narrative.KindTriumph}
}

// recalled lists the playthrough's memories as "turn:summary", sorted.
func recalled(t *testing.T, r Recaller, playthrough string) []string {
	t.Helper()
	ms, err := r.Recall(ctx, narrative.Query{Playthrough: playthrough, Limit: 100})
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, m := range ms {
		out = append(out, strconv.Itoa(m.Event.Turn)+":"+m.Event.Summary)
	}
	slices.Sort(out)
	return out
}

func testMemoriesCommitted(t *testing.T, s store.Store, r Recaller) {
	sess := newSession(t, s, "mem")
	appendN(t, s, sess.Branch, 1, 1)
	t2 := turn(sess.Branch, 2)
	t2.Memories = []narrative.Event{memory(sess, 2, "The gate fell."), memory(sess, 2, "Owen cheered.")}
	if err := s.AppendTurn(ctx, t2, nil); err != nil {
		t.Fatal(err)
	}
	if got, want := recalled(t, r, sess.ID), []string{"2:Owen cheered.", "2:The gate fell."}; !slices.Equal(got, want) {
		t.Errorf("memories %q, want %q", got, want)
	}
	other := newSession(t, s, "other")
	if got := recalled(t, r, other.ID); len(got) != 0 {
		t.Errorf("another session remembers %q", got)
	}
}

func testMemoriesConflict(t *testing.T, s store.Store, r Recaller) {
	sess := newSession(t, s, "mem")
	appendN(t, s, sess.Branch, 1, 2)
	late := turn(sess.Branch, 2) // already taken
	late.Memories = []narrative.Event{memory(sess, 2, "A second turn two.")}
	if err := s.AppendTurn(ctx, late, nil); !errors.Is(err, store.ErrConflict) {
		t.Fatalf("append a taken number: %v", err)
	}
	if got := recalled(t, r, sess.ID); len(got) != 0 {
		t.Errorf("the refused turn left memories %q", got)
	}
}

func testMemoriesBad(t *testing.T, s store.Store, r Recaller) {
	sess := newSession(t, s, "mem")
	t1 := turn(sess.Branch, 1)
	bad := memory(sess, 1, "")
	t1.Memories = []narrative.Event{memory(sess, 1, "Fine."), bad}
	if err := s.AppendTurn(ctx, t1, nil); err == nil {
		t.Fatal("a turn with an empty memory was stored")
	}
	if tip, err := s.Tip(ctx, sess.Branch); err != nil || tip != 0 {
		t.Errorf("tip %d (%v); the turn must not be stored without its memories", tip, err)
	}
	if got := recalled(t, r, sess.ID); len(got) != 0 {
		t.Errorf("memories of an unstored turn: %q", got)
	}
	// The same turn, well formed, goes in.
	t1.Memories = t1.Memories[:1]
	if err := s.AppendTurn(ctx, t1, nil); err != nil {
		t.Fatal(err)
	}
	if got := recalled(t, r, sess.ID); !slices.Equal(got, []string{"1:Fine."}) {
		t.Errorf("memories %q", got)
	}
}
