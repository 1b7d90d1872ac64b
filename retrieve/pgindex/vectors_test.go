package pgindex

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/hearth-rpg/hearth/chunk"
	"github.com/hearth-rpg/hearth/embedding"
	"github.com/hearth-rpg/hearth/internal/pgdb"
	"github.com/hearth-rpg/hearth/internal/pgdb/pgtest"
	"github.com/hearth-rpg/hearth/retrieve"
)

// hnswIndexes lists the HNSW indexes on lore_vectors in the schema.
func hnswIndexes(t *testing.T, ix *Index) []string {
	t.Helper()
	rows, err := ix.h.Pool().Query(context.Background(), `SELECT indexname FROM pg_indexes
		WHERE schemaname = current_schema() AND tablename = 'lore_vectors' AND indexdef LIKE '%USING hnsw%' ORDER BY 1`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var n string
		if err := rows.Scan(&n); err != nil {
			t.Fatal(err)
		}
		out = append(out, n)
	}
	return out
}

// With pgvector, the vector query is answered through the HNSW index of
// the embedder's dimension; a new embedder replaces the index and the
// vectors; the start-up log says which search runs.
func TestHNSW(t *testing.T) {
	ctx := context.Background()
	url := pgtest.URL(t)
	var logged bytes.Buffer
	ix, err := Open(ctx, url, WithEmbedder(embedding.NewHashing(32)), WithEfSearch(40), WithLogger(slog.New(slog.NewTextHandler(&logged, nil))))
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	if ix.Mode() != VectorsHNSW {
		t.Skipf("pgvector is not installed on the test server: %s", ix.VectorSearch())
	}
	if !strings.Contains(logged.String(), "mode=hnsw") || !strings.Contains(logged.String(), "HNSW") {
		t.Errorf("start-up log does not report HNSW: %s", logged.String())
	}
	var cs []chunk.Chunk
	for i := range 200 {
		cs = append(cs, chunk.Chunk{Ordinal: i, Text: fmt.Sprintf("the %d-th lantern of tower %d burns %s", i, i%7, strings.Repeat("bright ", i%5))})
	}
	if err := ix.Upsert(ctx, "p", "f.md", "h", cs); err != nil {
		t.Fatal(err)
	}
	if got := hnswIndexes(t, ix); len(got) != 1 || got[0] != "lore_vectors_hnsw_32" {
		t.Fatalf("HNSW indexes %v, want lore_vectors_hnsw_32", got)
	}
	// The plan of the search's own query, with sequential scans priced
	// out as a large table would price them, uses the index.
	vec, _ := ix.emb.Embed(ctx, []string{"lantern tower"})
	plan := explainVector(t, ix, vec[0])
	if !strings.Contains(plan, "lore_vectors_hnsw_32") {
		t.Errorf("the vector query does not use the HNSW index:\n%s", plan)
	}
	r, err := ix.Search(ctx, retrieve.Query{Text: "lantern tower 3", Limit: 5})
	if err != nil || len(r.Passages) == 0 {
		t.Fatalf("search: %v, %v", r, err)
	}

	// Another dimension: the old index and vectors go, a new index comes.
	ix2, err := Open(ctx, url, WithEmbedder(embedding.NewHashing(48)))
	if err != nil {
		t.Fatal(err)
	}
	defer ix2.Close()
	if got := hnswIndexes(t, ix2); len(got) != 1 || got[0] != "lore_vectors_hnsw_48" {
		t.Errorf("after switching embedder: HNSW indexes %v, want lore_vectors_hnsw_48", got)
	}
	if st, err := ix2.Stats(ctx); err != nil || st.Vectors != 200 || st.Dim != 48 || st.Embedder != "hashing-48" {
		t.Errorf("after switching embedder: %+v, %v", st, err)
	}
}

func explainVector(t *testing.T, ix *Index, v []float32) string {
	t.Helper()
	ctx := context.Background()
	var plan strings.Builder
	err := ix.h.Tx(ctx, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `SET LOCAL enable_seqscan = off`); err != nil {
			return err
		}
		rows, err := tx.Query(ctx, `EXPLAIN SELECT v.chunk FROM lore_vectors v JOIN lore_chunks c ON c.n = v.chunk
			WHERE c.access <= 1 ORDER BY v.vec::vector(32) <=> $1::real[]::vector(32) LIMIT 40`, v)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var line string
			if err := rows.Scan(&line); err != nil {
				return err
			}
			plan.WriteString(line + "\n")
		}
		return rows.Err()
	})
	if err != nil {
		t.Fatal(err)
	}
	return plan.String()
}

// Without an embedder, or told not to use pgvector, the report says so.
func TestVectorSearchReport(t *testing.T) {
	url := pgtest.URL(t)
	h, err := pgdb.Open(context.Background(), url, pgdb.Options{Migrations: []pgdb.Migrations{Migrations}})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	tests := []struct {
		opts []Option
		mode VectorMode
		says string
	}{
		{nil, VectorsOff, "off"},
		{[]Option{WithEmbedder(embedding.NewHashing(16)), WithoutPGVector()}, VectorsExact, "exact cosine scan"},
	}
	for _, tt := range tests {
		ix, err := New(context.Background(), h, tt.opts...)
		if err != nil {
			t.Fatal(err)
		}
		if ix.Mode() != tt.mode || !strings.Contains(ix.VectorSearch(), tt.says) {
			t.Errorf("mode %s (%q), want %s saying %q", ix.Mode(), ix.VectorSearch(), tt.mode, tt.says)
		}
	}
}
