package storetest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sync"
	"testing"

	"github.com/hearth-rpg/hearth/store"
)

// Run runs the suite; open must return a new, empty store each call.
func Run(t *testing.T, open func(t *testing.T) store.Store) {
	tests := []struct {
		name string
		fn   func(*testing.T, store.Store)
	}{
		{"SessionLifecycle", testSessionLifecycle},
		{"AppendAndRead", testAppendAndRead},
		{"AppendWrongNumberConflicts", testAppendConflict},
		{"ForkSharesHistory", testFork},
		{"NestedForks", testNestedForks},
		{"BranchNotes", testBranchNotes},
		{"SnapshotsFollowTheLine", testSnapshots},
		{"SetHead", testSetHead},
		{"SetConfig", testSetConfig},
		{"NotFound", testNotFound},
		{"DeleteRemovesEverything", testDelete},
		{"ConcurrentAppendsOneWinner", testConcurrentAppend},
		{"SceneLoreFollowsTheLine", testSceneLore},
		{"Episodes", testEpisodes},
		{"FlagsFollowTheLine", testFlags},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := open(t)
			t.Cleanup(func() { s.Close() })
			tt.fn(t, s)
		})
	}
}

var ctx = context.Background()

func newSession(t *testing.T, s store.Store, id string) *store.Session {
	t.Helper()
	sess := &store.Session{ID: id, Name: "Test " + id, Campaign: "test", Seed: 42, Config: json.RawMessage(`{"k":"v"}`)}
	if err := s.CreateSession(ctx, sess, store.Snapshot{State: json.RawMessage(`{"turn":0}`), RNGState: []byte{1, 2, 3}}); err != nil {
		t.Fatal(err)
	}
	return sess
}

func turn(branch string, n int) *store.Turn {
	return &store.Turn{BranchID: branch, Number: n, Actor: "pc", Controller: fmt.Sprintf("user-%d", n), Input: fmt.Sprintf("input %d", n),
		Intents: json.RawMessage(`[{"type":"look"}]`), Effects: json.RawMessage(fmt.Sprintf(`[{"type":"turn_began","turn":%d}]`, n)),
		Rolls: json.RawMessage(`[]`), Narrative: fmt.Sprintf("narrative %d", n), RNGState: []byte{byte(n)}}
}

func appendN(t *testing.T, s store.Store, branch string, from, to int) {
	t.Helper()
	for n := from; n <= to; n++ {
		if err := s.AppendTurn(ctx, turn(branch, n), nil); err != nil {
			t.Fatalf("append %d: %v", n, err)
		}
	}
}

func numbers(t *testing.T, s store.Store, branch string, from, to int) []int {
	t.Helper()
	ts, err := s.Turns(ctx, branch, from, to)
	if err != nil {
		t.Fatal(err)
	}
	out := []int{}
	for _, x := range ts {
		out = append(out, x.Number)
	}
	return out
}

func equal(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func seq(from, to int) []int {
	out := []int{}
	for i := from; i <= to; i++ {
		out = append(out, i)
	}
	return out
}

func testSessionLifecycle(t *testing.T, s store.Store) {
	a := newSession(t, s, "a")
	if a.Branch == "" || a.Head != 0 || a.CreatedAt.IsZero() {
		t.Fatalf("created: %+v", a)
	}
	got, err := s.Session(ctx, "a")
	if err != nil {
		t.Fatal(err)
	}
	if got.Name != "Test a" || got.Seed != 42 || string(got.Config) != `{"k":"v"}` || got.Branch != a.Branch {
		t.Errorf("read back: %+v", got)
	}
	bs, err := s.Branches(ctx, "a")
	if err != nil || len(bs) != 1 || bs[0].Name != "main" || bs[0].ID != a.Branch || bs[0].ParentID != "" {
		t.Fatalf("branches: %+v %v", bs, err)
	}
	snap, err := s.Snapshot(ctx, a.Branch, 0)
	if err != nil || snap.Turn != 0 || string(snap.State) != `{"turn":0}` || string(snap.RNGState) != "\x01\x02\x03" {
		t.Fatalf("initial snapshot: %+v %v", snap, err)
	}
	newSession(t, s, "b")
	appendN(t, s, a.Branch, 1, 1) // a is now the most recently updated
	list, err := s.Sessions(ctx)
	if err != nil || len(list) != 2 || list[0].ID != "a" {
		t.Errorf("sessions: %+v %v", list, err)
	}
	if err := s.CreateSession(ctx, &store.Session{ID: "a", Campaign: "x"}, store.Snapshot{State: json.RawMessage(`{}`)}); !errors.Is(err, store.ErrConflict) {
		t.Errorf("duplicate session: %v", err)
	}
}

func testAppendAndRead(t *testing.T, s store.Store) {
	a := newSession(t, s, "a")
	want := turn(a.Branch, 1)
	want.Passes = json.RawMessage(`{"narrator":"offline"}`)
	want.Timings = json.RawMessage(`{"resolve_us":12}`)
	if err := s.AppendTurn(ctx, want, nil); err != nil {
		t.Fatal(err)
	}
	appendN(t, s, a.Branch, 2, 5)
	ts, err := s.Turns(ctx, a.Branch, 1, 1)
	if err != nil || len(ts) != 1 {
		t.Fatal(err)
	}
	got := ts[0]
	if got.SessionID != "a" || got.Actor != "pc" || got.Controller != "user-1" || got.Input != want.Input || string(got.Effects) != string(want.Effects) || string(got.Passes) != string(want.Passes) ||
		string(got.Timings) != string(want.Timings) || got.Narrative != want.Narrative || string(got.RNGState) != string(want.RNGState) || got.CreatedAt.IsZero() {
		t.Errorf("turn read back:\n got %+v\nwant %+v", got, want)
	}
	if tip, _ := s.Tip(ctx, a.Branch); tip != 5 {
		t.Errorf("tip %d", tip)
	}
	if n := numbers(t, s, a.Branch, 2, 4); !equal(n, []int{2, 3, 4}) {
		t.Errorf("range: %v", n)
	}
	if n := numbers(t, s, a.Branch, 4, 99); !equal(n, []int{4, 5}) {
		t.Errorf("range past the end: %v", n)
	}
	sess, _ := s.Session(ctx, "a")
	if sess.Head != 5 || sess.Branch != a.Branch {
		t.Errorf("head after appends: %+v", sess)
	}
}

func testAppendConflict(t *testing.T, s store.Store) {
	a := newSession(t, s, "a")
	appendN(t, s, a.Branch, 1, 2)
	for _, n := range []int{2, 4, 0} {
		if err := s.AppendTurn(ctx, turn(a.Branch, n), nil); !errors.Is(err, store.ErrConflict) {
			t.Errorf("append %d after 2: %v, want ErrConflict", n, err)
		}
	}
	if err := s.AppendTurn(ctx, turn(a.Branch, 3), &store.Snapshot{BranchID: a.Branch, Turn: 2}); err == nil {
		t.Error("a snapshot for another turn was accepted")
	}
	if tip, _ := s.Tip(ctx, a.Branch); tip != 2 {
		t.Errorf("a refused append changed the tip to %d", tip)
	}
}

func testFork(t *testing.T, s store.Store) {
	a := newSession(t, s, "a")
	appendN(t, s, a.Branch, 1, 8)
	alt := &store.Branch{SessionID: "a", Name: "alt", ParentID: a.Branch, ForkTurn: 5}
	if err := s.CreateBranch(ctx, alt); err != nil {
		t.Fatal(err)
	}
	if alt.ID == "" || alt.CreatedAt.IsZero() {
		t.Fatalf("branch: %+v", alt)
	}
	if tip, _ := s.Tip(ctx, alt.ID); tip != 5 {
		t.Errorf("new branch tip %d, want its fork turn 5", tip)
	}
	if err := s.AppendTurn(ctx, turn(alt.ID, 9), nil); !errors.Is(err, store.ErrConflict) {
		t.Errorf("first turn of a branch forked at 5 must be 6: %v", err)
	}
	appendN(t, s, alt.ID, 6, 7)
	appendN(t, s, a.Branch, 9, 9) // both branches go on independently
	if n := numbers(t, s, alt.ID, 1, 100); !equal(n, seq(1, 7)) {
		t.Errorf("alt line: %v", n)
	}
	ts, _ := s.Turns(ctx, alt.ID, 5, 7)
	if ts[0].BranchID != a.Branch || ts[1].BranchID != alt.ID {
		t.Errorf("turn 5 should come from main and 6 from alt: %s %s", ts[0].BranchID, ts[1].BranchID)
	}
	if n := numbers(t, s, a.Branch, 1, 100); !equal(n, seq(1, 9)) {
		t.Errorf("main line: %v", n)
	}
	if err := s.CreateBranch(ctx, &store.Branch{SessionID: "a", Name: "alt", ParentID: a.Branch, ForkTurn: 1}); !errors.Is(err, store.ErrConflict) {
		t.Errorf("duplicate branch name: %v", err)
	}
	if err := s.CreateBranch(ctx, &store.Branch{SessionID: "a", Name: "future", ParentID: a.Branch, ForkTurn: 50}); !errors.Is(err, store.ErrConflict) {
		t.Errorf("fork past the tip: %v", err)
	}
	b, err := s.BranchByName(ctx, "a", "alt")
	if err != nil || b.ID != alt.ID || b.ParentID != a.Branch || b.ForkTurn != 5 {
		t.Errorf("by name: %+v %v", b, err)
	}
	bs, _ := s.Branches(ctx, "a")
	if len(bs) != 2 || bs[0].Name != "main" || bs[1].Name != "alt" {
		t.Errorf("branches: %+v", bs)
	}
}

func testBranchNotes(t *testing.T, s store.Store) {
	a := newSession(t, s, "a")
	other := newSession(t, s, "b")
	appendN(t, s, a.Branch, 1, 3)
	alt := &store.Branch{SessionID: "a", Name: "alt", ParentID: a.Branch, ForkTurn: 2, Description: "the party spares the dragon"}
	if err := s.CreateBranch(ctx, alt); err != nil {
		t.Fatal(err)
	}
	if b, err := s.BranchByName(ctx, "a", "alt"); err != nil || b.Description != "the party spares the dragon" || b.Canonical {
		t.Fatalf("new branch notes: %+v %v", b, err)
	}
	yes, no := true, false
	canon := func(sessionID string) []string {
		t.Helper()
		bs, err := s.Branches(ctx, sessionID)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, b := range bs {
			if b.Canonical {
				out = append(out, b.Name)
			}
		}
		return out
	}
	if err := s.UpdateBranch(ctx, other.Branch, store.BranchUpdate{Canonical: &yes}); err != nil {
		t.Fatal(err)
	}
	steps := []struct {
		branch string
		u      store.BranchUpdate
		want   []string
	}{
		{a.Branch, store.BranchUpdate{Canonical: &yes}, []string{"main"}},
		{alt.ID, store.BranchUpdate{Canonical: &yes}, []string{"alt"}},  // unmarks main
		{a.Branch, store.BranchUpdate{Canonical: &no}, []string{"alt"}}, // main was not marked
		{alt.ID, store.BranchUpdate{Canonical: &no}, nil},
		{alt.ID, store.BranchUpdate{Canonical: &yes}, []string{"alt"}},
	}
	for i, st := range steps {
		if err := s.UpdateBranch(ctx, st.branch, st.u); err != nil {
			t.Fatalf("step %d: %v", i, err)
		}
		if got := canon("a"); !slices.Equal(got, st.want) {
			t.Errorf("step %d: canonical %v, want %v", i, got, st.want)
		}
	}
	if got := canon("b"); !slices.Equal(got, []string{"main"}) {
		t.Errorf("another session's canonical mark changed: %v", got)
	}
	d := "the dragon lives"
	if err := s.UpdateBranch(ctx, alt.ID, store.BranchUpdate{Description: &d}); err != nil {
		t.Fatal(err)
	}
	b, err := s.BranchByName(ctx, "a", "alt")
	if err != nil || b.Description != d || !b.Canonical || b.ForkTurn != 2 || b.ParentID != a.Branch {
		t.Errorf("after a description change: %+v %v", b, err)
	}
	if err := s.UpdateBranch(ctx, "nope", store.BranchUpdate{Description: &d}); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("update of a missing branch: %v, want ErrNotFound", err)
	}
	// The line of history is untouched by notes.
	appendN(t, s, alt.ID, 3, 4)
	if n := numbers(t, s, alt.ID, 1, 100); !equal(n, seq(1, 4)) {
		t.Errorf("alt line after notes: %v", n)
	}
}

func testNestedForks(t *testing.T, s store.Store) {
	a := newSession(t, s, "a")
	appendN(t, s, a.Branch, 1, 4)
	b1 := &store.Branch{SessionID: "a", Name: "b1", ParentID: a.Branch, ForkTurn: 2}
	if err := s.CreateBranch(ctx, b1); err != nil {
		t.Fatal(err)
	}
	appendN(t, s, b1.ID, 3, 6)
	b2 := &store.Branch{SessionID: "a", Name: "b2", ParentID: b1.ID, ForkTurn: 4}
	if err := s.CreateBranch(ctx, b2); err != nil {
		t.Fatal(err)
	}
	appendN(t, s, b2.ID, 5, 5)
	ts, err := s.Turns(ctx, b2.ID, 1, 10)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{a.Branch, a.Branch, b1.ID, b1.ID, b2.ID}
	if len(ts) != len(want) {
		t.Fatalf("b2 line has %d turns, want %d", len(ts), len(want))
	}
	for i, x := range ts {
		if x.Number != i+1 || x.BranchID != want[i] {
			t.Errorf("turn %d from %s, want turn %d from %s", x.Number, x.BranchID, i+1, want[i])
		}
	}
	if err := s.CreateBranch(ctx, &store.Branch{SessionID: "a", Name: "empty-fork", ParentID: b2.ID, ForkTurn: 0}); err != nil {
		t.Errorf("fork at turn 0: %v", err)
	}
}

func testSnapshots(t *testing.T, s store.Store) {
	a := newSession(t, s, "a")
	for n := 1; n <= 10; n++ {
		var snap *store.Snapshot
		if n%4 == 0 {
			snap = &store.Snapshot{BranchID: a.Branch, Turn: n, State: json.RawMessage(fmt.Sprintf(`{"turn":%d}`, n))}
		}
		if err := s.AppendTurn(ctx, turn(a.Branch, n), snap); err != nil {
			t.Fatal(err)
		}
	}
	alt := &store.Branch{SessionID: "a", Name: "alt", ParentID: a.Branch, ForkTurn: 6}
	if err := s.CreateBranch(ctx, alt); err != nil {
		t.Fatal(err)
	}
	appendN(t, s, alt.ID, 7, 9)
	if err := s.AppendTurn(ctx, turn(alt.ID, 10), &store.Snapshot{BranchID: alt.ID, Turn: 10, State: json.RawMessage(`{"alt":10}`)}); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		branch string
		at     int
		want   int
		state  string
	}{
		{a.Branch, 0, 0, `{"turn":0}`},
		{a.Branch, 3, 0, `{"turn":0}`},
		{a.Branch, 4, 4, `{"turn":4}`},
		{a.Branch, 9, 8, `{"turn":8}`},
		{alt.ID, 9, 4, `{"turn":4}`}, // main's snapshot at 8 is after the fork: not on alt's line
		{alt.ID, 10, 10, `{"alt":10}`},
		{alt.ID, 100, 10, `{"alt":10}`},
	}
	for _, tt := range tests {
		snap, err := s.Snapshot(ctx, tt.branch, tt.at)
		if err != nil {
			t.Fatal(err)
		}
		if snap.Turn != tt.want || string(snap.State) != tt.state {
			t.Errorf("Snapshot(at %d) on %s = turn %d %s, want %d %s", tt.at, tt.branch, snap.Turn, snap.State, tt.want, tt.state)
		}
	}
}

func testSetHead(t *testing.T, s store.Store) {
	a := newSession(t, s, "a")
	appendN(t, s, a.Branch, 1, 3)
	if err := s.SetHead(ctx, "a", a.Branch, 1); err != nil {
		t.Fatal(err)
	}
	got, _ := s.Session(ctx, "a")
	if got.Head != 1 || got.Branch != a.Branch {
		t.Errorf("head: %+v", got)
	}
	if err := s.SetHead(ctx, "a", a.Branch, 4); !errors.Is(err, store.ErrConflict) {
		t.Errorf("head past the tip: %v", err)
	}
	newSession(t, s, "b")
	other, _ := s.Session(ctx, "b")
	if err := s.SetHead(ctx, "a", other.Branch, 0); !errors.Is(err, store.ErrConflict) {
		t.Errorf("head on another session's branch: %v", err)
	}
}

func testSetConfig(t *testing.T, s store.Store) {
	newSession(t, s, "a")
	if err := s.SetConfig(ctx, "a", json.RawMessage(`{"k":"w","n":2}`)); err != nil {
		t.Fatal(err)
	}
	got, err := s.Session(ctx, "a")
	if err != nil || string(got.Config) != `{"k":"w","n":2}` {
		t.Errorf("config after SetConfig: %s, %v", got.Config, err)
	}
	if err := s.SetConfig(ctx, "a", json.RawMessage(`{"k":`)); err == nil {
		t.Error("SetConfig took broken JSON")
	}
	if got, _ := s.Session(ctx, "a"); string(got.Config) != `{"k":"w","n":2}` {
		t.Errorf("a refused config changed the stored one to %s", got.Config)
	}
}

func testNotFound(t *testing.T, s store.Store) {
	checks := map[string]error{}
	_, checks["Session"] = s.Session(ctx, "nope")
	_, checks["Branches"] = s.Branches(ctx, "nope")
	_, checks["BranchByName"] = s.BranchByName(ctx, "nope", "main")
	_, checks["Tip"] = s.Tip(ctx, "nope")
	_, checks["Turns"] = s.Turns(ctx, "nope", 1, 2)
	_, checks["Snapshot"] = s.Snapshot(ctx, "nope", 1)
	checks["AppendTurn"] = s.AppendTurn(ctx, turn("nope", 1), nil)
	checks["SetHead"] = s.SetHead(ctx, "nope", "nope", 0)
	checks["SetConfig"] = s.SetConfig(ctx, "nope", json.RawMessage(`{}`))
	checks["DeleteSession"] = s.DeleteSession(ctx, "nope")
	checks["CreateBranch"] = s.CreateBranch(ctx, &store.Branch{SessionID: "nope", Name: "x", ParentID: "nope"})
	for name, err := range checks {
		if !errors.Is(err, store.ErrNotFound) {
			t.Errorf("%s on a missing session or branch: %v, want ErrNotFound", name, err)
		}
	}
}

func testDelete(t *testing.T, s store.Store) {
	a := newSession(t, s, "a")
	appendN(t, s, a.Branch, 1, 3)
	alt := &store.Branch{SessionID: "a", Name: "alt", ParentID: a.Branch, ForkTurn: 2}
	if err := s.CreateBranch(ctx, alt); err != nil {
		t.Fatal(err)
	}
	appendN(t, s, alt.ID, 3, 4)
	keep := newSession(t, s, "keep")
	appendN(t, s, keep.Branch, 1, 2)
	if err := s.DeleteSession(ctx, "a"); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Session(ctx, "a"); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("deleted session still readable: %v", err)
	}
	if _, err := s.Tip(ctx, alt.ID); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("deleted branch still readable: %v", err)
	}
	if ts, err := s.Turns(ctx, alt.ID, 1, 10); err == nil && len(ts) > 0 {
		t.Errorf("deleted turns still readable: %d", len(ts))
	}
	if n := numbers(t, s, keep.Branch, 1, 10); !equal(n, []int{1, 2}) {
		t.Errorf("the other session was touched: %v", n)
	}
}

func testConcurrentAppend(t *testing.T, s store.Store) {
	a := newSession(t, s, "a")
	const writers = 8
	for n := 1; n <= 5; n++ {
		var wg sync.WaitGroup
		var mu sync.Mutex
		wins := 0
		for range writers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				err := s.AppendTurn(ctx, turn(a.Branch, n), nil)
				switch {
				case err == nil:
					mu.Lock()
					wins++
					mu.Unlock()
				case !errors.Is(err, store.ErrConflict):
					t.Errorf("append %d: %v", n, err)
				}
			}()
		}
		wg.Wait()
		if wins != 1 {
			t.Fatalf("turn %d: %d writers won, want exactly 1", n, wins)
		}
	}
	if n := numbers(t, s, a.Branch, 1, 10); !equal(n, seq(1, 5)) {
		t.Errorf("turns: %v", n)
	}
}

func testSceneLore(t *testing.T, s store.Store) {
	a := newSession(t, s, "a")
	if _, err := s.SceneLore(ctx, a.Branch, 0); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("no lore yet: %v", err)
	}
	if err := s.PutSceneLore(ctx, &store.SceneLore{BranchID: a.Branch, Turn: 0, Scene: 1, Lore: json.RawMessage(`{"s":1}`)}); err != nil {
		t.Fatal(err)
	}
	for n := 1; n <= 6; n++ {
		tu := turn(a.Branch, n)
		if n == 3 || n == 6 {
			tu.SceneLore = &store.SceneLore{Scene: n, Lore: json.RawMessage(fmt.Sprintf(`{"s":%d}`, n))}
		}
		if err := s.AppendTurn(ctx, tu, nil); err != nil {
			t.Fatal(err)
		}
		if tu.SceneLore != nil && (tu.SceneLore.Turn != n || tu.SceneLore.BranchID != a.Branch) {
			t.Errorf("AppendTurn did not fill in the lore's place: %+v", tu.SceneLore)
		}
	}
	alt := &store.Branch{SessionID: "a", Name: "alt", ParentID: a.Branch, ForkTurn: 4}
	if err := s.CreateBranch(ctx, alt); err != nil {
		t.Fatal(err)
	}
	appendN(t, s, alt.ID, 5, 7)
	tests := []struct {
		branch string
		at     int
		scene  int
	}{
		{a.Branch, 0, 1},
		{a.Branch, 2, 1},
		{a.Branch, 3, 3},
		{a.Branch, 100, 6},
		{alt.ID, 7, 3}, // main's scene 6 began after the fork
	}
	for _, tt := range tests {
		l, err := s.SceneLore(ctx, tt.branch, tt.at)
		if err != nil {
			t.Fatal(err)
		}
		if l.Scene != tt.scene || string(l.Lore) != fmt.Sprintf(`{"s":%d}`, tt.scene) {
			t.Errorf("SceneLore(at %d) = scene %d %s, want %d", tt.at, l.Scene, l.Lore, tt.scene)
		}
	}
	// Rebuilding a cache replaces it.
	if err := s.PutSceneLore(ctx, &store.SceneLore{BranchID: a.Branch, Turn: 3, Scene: 3, Lore: json.RawMessage(`{"s":33}`)}); err != nil {
		t.Fatal(err)
	}
	if l, _ := s.SceneLore(ctx, a.Branch, 4); string(l.Lore) != `{"s":33}` {
		t.Errorf("replaced lore: %s", l.Lore)
	}
	if err := s.PutSceneLore(ctx, &store.SceneLore{BranchID: "nope", Scene: 1, Lore: json.RawMessage(`{}`)}); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("lore for a missing branch: %v", err)
	}
}

func testEpisodes(t *testing.T, s store.Store) {
	a := newSession(t, s, "a")
	if _, err := s.EndEpisode(ctx, "a", 0, ""); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("end without an open episode: %v", err)
	}
	if err := s.StartEpisode(ctx, &store.Episode{SessionID: "missing", BranchID: a.Branch, FirstTurn: 1}); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("episode of a missing session: %v", err)
	}
	first := &store.Episode{SessionID: "a", BranchID: a.Branch, FirstTurn: 1, Lore: json.RawMessage(`{"campaign":"lore"}`)}
	if err := s.StartEpisode(ctx, first); err != nil {
		t.Fatal(err)
	}
	if first.Number != 1 || first.StartedAt.IsZero() || !first.Open() {
		t.Errorf("started: %+v", first)
	}
	if err := s.StartEpisode(ctx, &store.Episode{SessionID: "a", BranchID: a.Branch}); !errors.Is(err, store.ErrConflict) {
		t.Errorf("second open episode: %v", err)
	}
	appendN(t, s, a.Branch, 1, 5)
	ended, err := s.EndEpisode(ctx, "a", 5, "The lantern was lit.")
	if err != nil {
		t.Fatal(err)
	}
	if ended.Number != 1 || ended.LastTurn != 5 || ended.Summary != "The lantern was lit." || ended.Open() {
		t.Errorf("ended: %+v", ended)
	}
	second := &store.Episode{SessionID: "a", BranchID: a.Branch, FirstTurn: 6, Recap: "Previously: the lantern was lit."}
	if err := s.StartEpisode(ctx, second); err != nil {
		t.Fatal(err)
	}
	eps, err := s.Episodes(ctx, "a")
	if err != nil {
		t.Fatal(err)
	}
	if len(eps) != 2 || eps[0].Summary == "" || string(eps[0].Lore) != `{"campaign":"lore"}` || eps[1].Number != 2 || eps[1].Recap == "" || !eps[1].Open() {
		t.Errorf("episodes: %+v", eps)
	}
	if err := s.DeleteSession(ctx, "a"); err != nil {
		t.Fatal(err)
	}
	if eps, _ := s.Episodes(ctx, "a"); len(eps) != 0 {
		t.Errorf("episodes outlived their session: %+v", eps)
	}
}

func testFlags(t *testing.T, s store.Store) {
	a := newSession(t, s, "a")
	appendN(t, s, a.Branch, 1, 6)
	alt := &store.Branch{SessionID: "a", Name: "alt", ParentID: a.Branch, ForkTurn: 3}
	if err := s.CreateBranch(ctx, alt); err != nil {
		t.Fatal(err)
	}
	appendN(t, s, alt.ID, 4, 5)
	for _, f := range []store.Flag{
		{BranchID: a.Branch, Turn: 2, By: "ann", Reason: "the innkeeper was dead"},
		{BranchID: a.Branch, Turn: 5, By: "bob", Reason: "only on main"},
		{BranchID: alt.ID, Turn: 4, Reason: "only on alt"},
		{BranchID: a.Branch, Turn: 2, By: "bob", Reason: "second on the same turn"},
	} {
		if err := s.AddFlag(ctx, &f); err != nil {
			t.Fatal(err)
		}
		if f.ID == 0 || f.SessionID != "a" || f.CreatedAt.IsZero() {
			t.Errorf("added: %+v", f)
		}
	}
	for _, bad := range []store.Flag{
		{BranchID: alt.ID, Turn: 2, Reason: "turn 2 is stored under main"},
		{BranchID: a.Branch, Turn: 9, Reason: "not played"},
		{BranchID: "missing", Turn: 1, Reason: "no branch"},
	} {
		if err := s.AddFlag(ctx, &bad); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("%s: %v", bad.Reason, err)
		}
	}
	reasons := func(branch string) []string {
		fs, err := s.Flags(ctx, branch)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, f := range fs {
			out = append(out, fmt.Sprintf("%d %s %s", f.Turn, f.By, f.Reason))
		}
		return out
	}
	if got, want := reasons(alt.ID), []string{"2 ann the innkeeper was dead", "2 bob second on the same turn", "4  only on alt"}; !slices.Equal(got, want) {
		t.Errorf("alt's flags: %q, want %q", got, want)
	}
	if got, want := reasons(a.Branch), []string{"2 ann the innkeeper was dead", "2 bob second on the same turn", "5 bob only on main"}; !slices.Equal(got, want) {
		t.Errorf("main's flags: %q, want %q", got, want)
	}
	if err := s.DeleteSession(ctx, "a"); err != nil {
		t.Fatal(err)
	}
	if fs, err := s.Flags(ctx, a.Branch); err == nil && len(fs) != 0 {
		t.Errorf("flags outlived their session: %+v", fs)
	}
}
