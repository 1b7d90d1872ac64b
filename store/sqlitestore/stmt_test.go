package sqlitestore

import (
	"context"
	"encoding/json"
	"path/filepath"
	"testing"

	"github.com/hearth-rpg/hearth/internal/sqlitedb"
	"github.com/hearth-rpg/hearth/narrative/sqlitenarrative"
	"github.com/hearth-rpg/hearth/store"
)

// A store over a shared handle, as package database makes it.
func sharedStore(t *testing.T) (*sqlitedb.DB, *DB) {
	t.Helper()
	h, err := sqlitedb.Open(context.Background(), filepath.Join(t.TempDir(), FileName),
		sqlitedb.Options{Migrations: []sqlitedb.Migrations{Migrations, sqlitenarrative.Migrations}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { h.Close() })
	return h, New(h)
}

// The hot statements are prepared once per store, not per turn: what
// each turn parsed and planned again was a large share of its commit.
func TestHotStatementsPreparedOnce(t *testing.T) {
	ctx := context.Background()
	_, db := sharedStore(t)
	s := &store.Session{ID: "s", Name: "s", Campaign: "c"}
	if err := db.CreateSession(ctx, s, store.Snapshot{State: json.RawMessage(`{}`)}); err != nil {
		t.Fatal(err)
	}
	for n := 1; n <= 20; n++ {
		tip, err := db.Tip(ctx, s.Branch)
		if err != nil {
			t.Fatal(err)
		}
		turn := &store.Turn{BranchID: s.Branch, Number: tip + 1, Actor: "pc", Input: "go north",
			SceneLore: &store.SceneLore{Scene: 1, Lore: json.RawMessage(`[]`)}}
		var snap *store.Snapshot
		if n%5 == 0 {
			snap = &store.Snapshot{BranchID: s.Branch, Turn: tip + 1, State: json.RawMessage(`{}`)}
		}
		if err := db.AppendTurn(ctx, turn, snap); err != nil {
			t.Fatalf("turn %d: %v", n, err)
		}
	}
	if tip, err := db.Tip(ctx, s.Branch); err != nil || tip != 20 {
		t.Fatalf("tip = %d, %v; want 20", tip, err)
	}
	db.mu.Lock()
	got := db.stmts.Len()
	db.mu.Unlock()
	if want := len(appendSQL) + 1; got != want { // + Tip
		t.Errorf("%d statements prepared after 20 turns, want %d", got, want)
	}
}

// Close over a shared handle closes the store's statements and leaves the
// handle to its owner; the closed store refuses to work.
func TestCloseOverSharedHandle(t *testing.T) {
	ctx := context.Background()
	h, db := sharedStore(t)
	s := &store.Session{ID: "s", Name: "s", Campaign: "c"}
	if err := db.CreateSession(ctx, s, store.Snapshot{State: json.RawMessage(`{}`)}); err != nil {
		t.Fatal(err)
	}
	if err := db.AppendTurn(ctx, &store.Turn{BranchID: s.Branch, Number: 1, Actor: "pc", Input: "look"}, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Tip(ctx, s.Branch); err != nil {
		t.Fatal(err)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	if db.stmts.Len() != 0 {
		t.Errorf("%d statements left open after Close", db.stmts.Len())
	}
	if _, err := db.Tip(ctx, s.Branch); err == nil {
		t.Error("Tip on a closed store: no error")
	}
	if err := db.AppendTurn(ctx, &store.Turn{BranchID: s.Branch, Number: 2, Actor: "pc", Input: "look"}, nil); err == nil {
		t.Error("AppendTurn on a closed store: no error")
	}
	// The handle is still open: a new store over it carries on.
	tip, err := New(h).Tip(ctx, s.Branch)
	if err != nil || tip != 1 {
		t.Fatalf("a new store over the handle: tip = %d, %v; want 1", tip, err)
	}
	if err := h.Reader().PingContext(ctx); err != nil {
		t.Fatalf("the shared handle was closed: %v", err)
	}
}
