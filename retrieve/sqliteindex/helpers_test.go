package sqliteindex

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/hearth-rpg/hearth/retrieve"
)

func openTest(t testing.TB, opts ...Option) *Index {
	t.Helper()
	ix, err := Open(context.Background(), filepath.Join(t.TempDir(), "hearth.db"), opts...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ix.Close() })
	return ix
}

func search(t testing.TB, ix *Index, q retrieve.Query) retrieve.Result {
	t.Helper()
	r, err := ix.Search(context.Background(), q)
	if err != nil {
		t.Fatalf("Search(%+v): %v", q, err)
	}
	return r
}

// idsOf lists passages' chunk ids in order.
func idsOf(ps []retrieve.Passage) []string {
	out := make([]string, len(ps))
	for i, p := range ps {
		out[i] = p.Chunk.ID
	}
	return out
}

// countRows counts a table's rows.
func countRows(t testing.TB, ix *Index, query string) int {
	t.Helper()
	var n int
	if err := ix.w.QueryRow(query).Scan(&n); err != nil {
		t.Fatalf("%s: %v", query, err)
	}
	return n
}
