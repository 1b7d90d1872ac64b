package sqlitestore

import (
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hearth-rpg/hearth/narrative/sqlitenarrative"
	"github.com/hearth-rpg/hearth/store"
	"github.com/hearth-rpg/hearth/store/storetest"
)

func TestConformance(t *testing.T) {
	storetest.Run(t, func(t *testing.T) store.Store {
		db, err := Open(context.Background(), t.TempDir())
		if err != nil {
			t.Fatal(err)
		}
		return db
	})
}

func TestConformanceMemories(t *testing.T) {
	storetest.RunMemories(t, func(t *testing.T) (store.Store, storetest.Recaller) {
		dir := t.TempDir()
		db, err := Open(context.Background(), dir)
		if err != nil {
			t.Fatal(err)
		}
		mem, err := sqlitenarrative.Open(context.Background(), filepath.Join(dir, FileName))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { mem.Close() })
		return db, mem
	})
}

func TestConformanceSynchronousNormal(t *testing.T) {
	storetest.Run(t, func(t *testing.T) store.Store {
		db, err := Open(context.Background(), t.TempDir(), WithSynchronousNormal())
		if err != nil {
			t.Fatal(err)
		}
		return db
	})
}

func TestReopenPersists(t *testing.T) {
	ctx := context.Background()
	dir := filepath.Join(t.TempDir(), "nested", "data")
	db, err := Open(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	s := &store.Session{ID: "s", Name: "S", Campaign: "c", Seed: 1<<63 + 5}
	if err := db.CreateSession(ctx, s, store.Snapshot{State: json.RawMessage(`{}`)}); err != nil {
		t.Fatal(err)
	}
	if err := db.AppendTurn(ctx, &store.Turn{BranchID: s.Branch, Number: 1, Input: "look", Narrative: "Dark."}, nil); err != nil {
		t.Fatal(err)
	}
	db.Close()
	if fi, err := os.Stat(dir); err != nil || fi.Mode().Perm() != 0o700 {
		t.Errorf("data dir: %v %v", fi.Mode(), err)
	}
	db, err = Open(ctx, dir) // migrations run again: idempotent
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	got, err := db.Session(ctx, "s")
	if err != nil || got.Seed != 1<<63+5 || got.Head != 1 {
		t.Fatalf("reopened: %+v %v", got, err)
	}
	ts, err := db.Turns(ctx, s.Branch, 1, 1)
	if err != nil || len(ts) != 1 || ts[0].Narrative != "Dark." {
		t.Fatalf("turns: %+v %v", ts, err)
	}
	var versions int
	files, _ := fs.Glob(migrations, "migrations/*.sql")
	if err := db.r.QueryRow(`SELECT COUNT(*) FROM hearth_schema WHERE component = 'store'`).Scan(&versions); err != nil || versions != len(files) {
		t.Errorf("hearth_schema rows of the store: %d, want one per migration (%d) %v", versions, len(files), err)
	}
}

func TestNewerSchemaIsRefused(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	db, err := Open(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.w.Exec(`INSERT INTO hearth_schema (component, version, applied_at) VALUES ('store', 999, 0)`); err != nil {
		t.Fatal(err)
	}
	db.Close()
	_, err = Open(ctx, dir)
	if err == nil || !strings.Contains(err.Error(), "newer Hearth (schema 999") || !strings.Contains(err.Error(), "upgrade") {
		t.Errorf("newer schema: %v", err)
	}
}

func TestNotADatabase(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, FileName), []byte(strings.Repeat("this is not sqlite\n", 100)), 0o600); err != nil {
		t.Fatal(err)
	}
	_, err := Open(context.Background(), dir)
	if err == nil || !strings.Contains(err.Error(), "is not a Hearth database") {
		t.Errorf("text file: %v", err)
	}
}

func TestDefaultDir(t *testing.T) {
	t.Setenv("HEARTH_DATA", "/srv/hearth")
	if d, err := DefaultDir(); err != nil || d != "/srv/hearth" {
		t.Errorf("with HEARTH_DATA: %s %v", d, err)
	}
	t.Setenv("HEARTH_DATA", "")
	t.Setenv("XDG_DATA_HOME", "/xdg")
	if d, _ := DefaultDir(); d != "/xdg/hearth" && d != filepath.Join("/xdg", "hearth") {
		t.Logf("on this OS the default is %s", d)
	}
}

// benchStore returns a store holding a session whose main branch has n
// turns, a fork at n/2 with 10 turns, and snapshots every 50.
func benchStore(b *testing.B, n int, opts ...Option) (*DB, *store.Session) {
	b.Helper()
	ctx := context.Background()
	db, err := Open(ctx, b.TempDir(), opts...)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { db.Close() })
	s := &store.Session{ID: "bench", Name: "bench", Campaign: "c"}
	if err := db.CreateSession(ctx, s, store.Snapshot{State: json.RawMessage(`{}`)}); err != nil {
		b.Fatal(err)
	}
	tx, err := db.w.Begin()
	if err != nil {
		b.Fatal(err)
	}
	payload := []byte(`[{"type":"hp_changed","target":"hero","from":10,"to":7}]`)
	for i := 1; i <= n; i++ {
		if _, err := tx.Exec(`INSERT INTO turns (branch_id, number, actor, input, effects, narrative, created_at) VALUES (?, ?, 'pc', 'go north', ?, 'You walk north through the fog.', 0)`, s.Branch, i, payload); err != nil {
			b.Fatal(err)
		}
		if i%50 == 0 {
			if _, err := tx.Exec(`INSERT INTO snapshots (branch_id, turn, state) VALUES (?, ?, ?)`, s.Branch, i, []byte(strings.Repeat("x", 20_000))); err != nil {
				b.Fatal(err)
			}
		}
	}
	if _, err := tx.Exec(`UPDATE branches SET tip = ? WHERE id = ?`, n, s.Branch); err != nil {
		b.Fatal(err)
	}
	if err := tx.Commit(); err != nil {
		b.Fatal(err)
	}
	return db, s
}

// BenchmarkAppendTurn shows a turn's write cost does not grow with the
// number of turns already stored.
func BenchmarkAppendTurn(b *testing.B) {
	for _, sync := range []string{"full", "normal"} {
		for _, n := range []int{10, 10_000} {
			b.Run(fmt.Sprintf("sync=%s/turns=%d", sync, n), func(b *testing.B) {
				var opts []Option
				if sync == "normal" {
					opts = append(opts, WithSynchronousNormal())
				}
				db, s := benchStore(b, n, opts...)
				ctx := context.Background()
				effects := json.RawMessage(`[{"type":"turn_began","turn":1},{"type":"character_moved","character":"hero","from":"quay","to":"tavern"}]`)
				b.ReportAllocs()
				b.ResetTimer()
				for i := range b.N {
					t := &store.Turn{BranchID: s.Branch, Number: n + 1 + i, Actor: "pc", Input: "go north", Effects: effects,
						Narrative: "You walk north through the fog.", RNGState: make([]byte, 20)}
					if err := db.AppendTurn(ctx, t, nil); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

func BenchmarkSnapshotLookup(b *testing.B) {
	db, s := benchStore(b, 10_000)
	ctx := context.Background()
	alt := &store.Branch{SessionID: s.ID, Name: "alt", ParentID: s.Branch, ForkTurn: 9_025}
	if err := db.CreateBranch(ctx, alt); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		snap, err := db.Snapshot(ctx, alt.ID, 9_030)
		if err != nil || snap.Turn != 9_000 {
			b.Fatalf("%v %v", snap, err)
		}
	}
}

func BenchmarkTurnsRange(b *testing.B) {
	db, s := benchStore(b, 10_000)
	ctx := context.Background()
	alt := &store.Branch{SessionID: s.ID, Name: "alt", ParentID: s.Branch, ForkTurn: 9_050}
	if err := db.CreateBranch(ctx, alt); err != nil {
		b.Fatal(err)
	}
	for i := 9_051; i <= 9_100; i++ {
		if err := db.AppendTurn(ctx, &store.Turn{BranchID: alt.ID, Number: i, Input: "x", Narrative: "y"}, nil); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		ts, err := db.Turns(ctx, alt.ID, 9_001, 9_100)
		if err != nil || len(ts) != 100 {
			b.Fatalf("%d %v", len(ts), err)
		}
	}
}
