package pgindex_test

import (
	"context"
	"testing"

	"github.com/hearth-rpg/hearth/internal/pgdb/pgtest"
	"github.com/hearth-rpg/hearth/retrieve"
	"github.com/hearth-rpg/hearth/retrieve/indextest"
	"github.com/hearth-rpg/hearth/retrieve/pgindex"
)

// open opens an index in a schema of its own.
func open(t testing.TB, opts ...pgindex.Option) *pgindex.Index {
	t.Helper()
	ix, err := pgindex.Open(context.Background(), pgtest.URL(t), opts...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ix.Close() })
	return ix
}

// TestConformance runs the backend-neutral suite with the vectors in
// memory (the default), with pgvector's exact scan and its HNSW index
// when the server has the extension, and with the exact scan in SQL the
// index falls back to without it.
func TestConformance(t *testing.T) {
	for _, tc := range []struct {
		name string
		opts []pgindex.Option
		want pgindex.VectorMode
	}{
		{"memory", nil, pgindex.VectorsPGExact}, // vectors in memory once loaded (at once for a small index)
		{"pgvector", []pgindex.Option{pgindex.WithoutMemVectors()}, pgindex.VectorsPGExact},
		{"hnsw", []pgindex.Option{pgindex.WithEfSearch(40)}, pgindex.VectorsHNSW},
		{"exact", []pgindex.Option{pgindex.WithoutPGVector(), pgindex.WithoutMemVectors()}, pgindex.VectorsExact},
	} {
		t.Run(tc.name, func(t *testing.T) {
			indextest.Run(t, func(t *testing.T, o indextest.Options) retrieve.Index {
				opts := tc.opts
				if o.Embedder != nil {
					opts = append(opts[:len(opts):len(opts)], pgindex.WithEmbedder(o.Embedder))
				}
				ix := open(t, opts...)
				if o.Embedder != nil && ix.Mode() != tc.want {
					if tc.want != pgindex.VectorsExact {
						t.Skipf("pgvector is not installed on the test server: %s", ix.VectorSearch())
					}
					t.Fatalf("vector mode %s, want %s", ix.Mode(), tc.want)
				}
				return ix
			})
		})
	}
}

// TestTiesInSQL runs the suite's check of equal scores on PostgreSQL's
// own rankings, which serve until the in-memory ones are built: the
// tsvector full text, and vectors by pgvector's exact scan or by the
// exact scan in SQL.
func TestTiesInSQL(t *testing.T) {
	for _, tc := range []struct {
		name string
		opts []pgindex.Option
	}{
		{"pgvector", []pgindex.Option{pgindex.WithoutMemVectors()}},
		{"exact", []pgindex.Option{pgindex.WithoutPGVector(), pgindex.WithoutMemVectors()}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			indextest.Ties(t, func(t *testing.T, o indextest.Options) retrieve.Index {
				opts := tc.opts
				if o.Embedder != nil {
					opts = append(opts[:len(opts):len(opts)], pgindex.WithEmbedder(o.Embedder))
				}
				ix := open(t, opts...)
				ix.SetMemFullText(false)
				return ix
			})
		})
	}
}
