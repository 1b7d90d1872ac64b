package sqlitenarrative

import (
	"context"
	"slices"
	"testing"

	"github.com/hearth-rpg/hearth/narrative"
)

// Events written by someone else's transaction (a turn's, in package
// store/sqlitestore) reach recall once, and only once, that transaction commits.
func TestRecallLearnsCommittedEventsOnly(t *testing.T) {
	ctx := context.Background()
	db := openDB(t, "")
	ev := func(s string) narrative.Event {
		return narrative.Event{Playthrough: "p", Turn: 1, Summary: s, Significance: 5}
	}
	summaries := func() []string {
		t.Helper()
		ms, err := db.Recall(ctx, narrative.Query{Playthrough: "p", Limit: 50})
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
	if _, err := db.Remember(ctx, ev("first")); err != nil {
		t.Fatal(err)
	}
	if got := summaries(); !slices.Equal(got, []string{"first"}) { // loads the index
		t.Fatalf("before: %q", got)
	}
	for _, commit := range []bool{false, true} {
		tx, err := db.w.BeginTx(ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := InsertEvents(ctx, tx, []narrative.Event{ev("turn"), ev("turn too")}); err != nil {
			t.Fatal(err)
		}
		if got := summaries(); !slices.Equal(got, []string{"first"}) {
			t.Errorf("uncommitted events recalled: %q", got)
		}
		if commit {
			err = tx.Commit()
		} else {
			err = tx.Rollback()
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	want := []string{"first", "turn", "turn too"}
	for range 2 { // the second recall adds nothing twice
		if got := summaries(); !slices.Equal(got, want) {
			t.Errorf("after commit: %q, want %q", got, want)
		}
	}

	// Forgetting the newest event frees its ID for the next one: that one
	// must still be learnt.
	ms, _ := db.Recall(ctx, narrative.Query{Playthrough: "p", Limit: 50})
	var newest int64
	for _, m := range ms {
		newest = max(newest, m.Event.ID)
	}
	if err := db.Forget(ctx, "p", newest); err != nil {
		t.Fatal(err)
	}
	got, err := db.Remember(ctx, ev("again"))
	if err != nil {
		t.Fatal(err)
	}
	if got[0] != newest {
		t.Logf("SQLite gave ID %d, not the freed %d", got[0], newest)
	}
	if got := summaries(); !slices.Equal(got, []string{"again", "first", "turn"}) {
		t.Errorf("after forget and remember: %q", got)
	}
}
