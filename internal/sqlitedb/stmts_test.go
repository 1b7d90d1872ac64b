package sqlitedb_test

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hearth-rpg/hearth/internal/sqlitedb"
)

// A statement is prepared once per pool and text, and none after Close.
func TestStmts(t *testing.T) {
	ctx := context.Background()
	db, err := sqlitedb.Open(ctx, filepath.Join(t.TempDir(), "hearth.db"), sqlitedb.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	s := sqlitedb.Stmts{What: "the test store"}
	a, err := s.Get(ctx, db.Reader(), "SELECT 1")
	if err != nil {
		t.Fatal(err)
	}
	if b, err := s.Get(ctx, db.Reader(), "SELECT 1"); err != nil || b != a {
		t.Fatalf("the same query on the same pool: %p, %v; want %p", b, err, a)
	}
	if w, err := s.Get(ctx, db.Writer(), "SELECT 1"); err != nil || w == a {
		t.Fatalf("the same query on another pool: %p, %v; want a statement of its own", w, err)
	}
	if _, err := s.Get(ctx, db.Reader(), "SELEC nonsense"); err == nil {
		t.Fatal("a statement that does not parse was prepared")
	}
	if n := s.Len(); n != 2 {
		t.Fatalf("%d statements kept, want 2", n)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if n := s.Len(); n != 0 {
		t.Fatalf("%d statements left after Close", n)
	}
	if _, err := a.QueryContext(ctx); err == nil {
		t.Fatal("a statement still runs after Close")
	}
	if _, err := s.Get(ctx, db.Reader(), "SELECT 2"); err == nil || !strings.Contains(err.Error(), "the test store is closed") {
		t.Fatalf("Get after Close: %v", err)
	}
}
