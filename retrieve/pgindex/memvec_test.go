package pgindex_test

import (
	"context"
	"fmt"
	"math"
	"path/filepath"
	"slices"
	"testing"

	"github.com/hearth-rpg/hearth/access"
	"github.com/hearth-rpg/hearth/chunk"
	"github.com/hearth-rpg/hearth/embedding"
	"github.com/hearth-rpg/hearth/internal/pgdb/pgtest"
	"github.com/hearth-rpg/hearth/retrieve"
	"github.com/hearth-rpg/hearth/retrieve/pgindex"
	"github.com/hearth-rpg/hearth/retrieve/retrievetest"
	"github.com/hearth-rpg/hearth/retrieve/sqliteindex"
)

// vectorSignals is a result's vector ranking, as "id score" in rank
// order, read from the explained passages.
func vectorSignals(t *testing.T, ix retrieve.Index, q retrieve.Query) []string {
	t.Helper()
	q.Explain = true
	r, err := ix.Search(context.Background(), q)
	if err != nil {
		t.Fatal(err)
	}
	type ranked struct {
		rank int
		s    string
	}
	var rs []ranked
	for _, p := range r.Considered {
		for _, s := range p.Trace.Signals {
			if s.Kind == retrieve.Vector {
				rs = append(rs, ranked{s.Rank, fmt.Sprintf("%s %x", p.Chunk.ID, math.Float64bits(s.Score))})
			}
		}
	}
	slices.SortFunc(rs, func(a, b ranked) int { return a.rank - b.rank })
	out := make([]string, len(rs))
	for i, r := range rs {
		out[i] = r.s
	}
	return out
}

// TestMemVectorsMatchSQLite indexes the same real text in both backends
// with the same embedder and checks that PostgreSQL's in-memory vector
// search (the bounded estimate and re-rank, default candidates) ranks
// what SQLite's does, bit for bit, with roles and filters, and that the
// fused results are the same passages in the same order.
func TestMemVectorsMatchSQLite(t *testing.T) {
	ctx := context.Background()
	c := retrievetest.Build(t, 1500, 20, 9)
	emb := embedding.NewHashing(64)
	pg := open(t, pgindex.WithEmbedder(emb))
	sq, err := sqliteindex.Open(ctx, filepath.Join(t.TempDir(), "lore.db"), sqliteindex.WithEmbedder(emb))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sq.Close() })
	for _, ix := range []retrieve.Index{sq, pg} {
		if err := retrievetest.Fill(ctx, ix, c.Files); err != nil {
			t.Fatal(err)
		}
	}
	for _, wait := range []func(context.Context) error{sq.WaitFullText, pg.WaitFullText, pg.WaitVectors} {
		if err := wait(ctx); err != nil {
			t.Fatal(err)
		}
	}
	if _, _, ok, err := pg.MemVectorHits(ctx, "the wizard casts a spell", 10); err != nil || !ok {
		t.Fatalf("in-memory vectors serve: %v, %v", ok, err)
	}
	a, b := c.Files[2][0], c.Files[len(c.Files)/2][3]
	filters := []retrieve.Filter{
		{},
		{Packs: []string{a.Pack}},
		{ExcludePacks: []string{a.Pack, b.Pack}},
		{ContentTypes: []string{a.ContentType}},
		{Tags: a.Tags},
		{EntityIDs: []string{a.EntityID, b.EntityID}},
		{Location: a.Location},
		{Corpora: []chunk.Corpus{""}},
		{Packs: []string{a.Pack, b.Pack}, Tags: b.Tags, TagMatch: retrieve.All},
		{Packs: []string{"no-such-pack"}},
	}
	compared, found := 0, 0
	for i, q := range retrievetest.Queries(t) {
		if i%2 == 1 {
			continue // half the queries: the machine is shared
		}
		for _, role := range []access.Level{access.Player, access.GM} {
			rq := retrieve.Query{Text: q.Text, Role: role, Limit: 40, Budget: 1 << 30, Filter: filters[i/2%len(filters)]}
			want, got := vectorSignals(t, sq, rq), vectorSignals(t, pg, rq)
			if !slices.Equal(got, want) {
				t.Fatalf("%q as %v, filter %+v: vector ranking\n got %v\nwant %v", q.Text, role, rq.Filter, got, want)
			}
			if w, g := ids(t, sq, rq), ids(t, pg, rq); !slices.Equal(g, w) {
				t.Fatalf("%q as %v, filter %+v: passages\n got %v\nwant %v", q.Text, role, rq.Filter, g, w)
			}
			compared++
			if len(want) > 0 {
				found++
			}
		}
	}
	if found < compared/2 {
		t.Fatalf("only %d of %d searches ranked any vector; the test proves little", found, compared)
	}
}

// TestMemVectorsAllCandidatesArePGVectorExact: with candidates for every
// row, the in-memory search is exact, so it ranks as pgvector's exact
// cosine scan does (the hashing embedder's vectors are unit length, so
// cosine is their dot product); rows may trade places only where their
// scores tie to float32 rounding.
func TestMemVectorsAllCandidatesArePGVectorExact(t *testing.T) {
	ctx := context.Background()
	c := retrievetest.Build(t, 1200, 20, 13)
	ix := open(t, pgindex.WithEmbedder(embedding.NewHashing(64)), pgindex.WithVectorCandidates(1<<20))
	if ix.Mode() != pgindex.VectorsPGExact {
		t.Skipf("pgvector is not installed on the test server: %s", ix.VectorSearch())
	}
	if err := retrievetest.Fill(ctx, ix, c.Files); err != nil {
		t.Fatal(err)
	}
	if err := ix.WaitVectors(ctx); err != nil {
		t.Fatal(err)
	}
	for i, q := range retrievetest.Queries(t) {
		if i%4 != 0 {
			continue
		}
		got, scores, ok, err := ix.MemVectorHits(ctx, q.Text, 20)
		if err != nil || !ok {
			t.Fatalf("%q: in memory %v, %v", q.Text, ok, err)
		}
		want, err := ix.ExactHits(ctx, q.Text, len(got))
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != len(want) {
			t.Fatalf("%q: %d hits, pgvector %d", q.Text, len(got), len(want))
		}
		for j := range got {
			if got[j] == want[j] {
				continue
			}
			k := slices.Index(got, want[j])
			if k < 0 || math.Abs(scores[k]-scores[j]) > 1e-6 {
				t.Fatalf("%q: hit %d is row %d (%v), pgvector's row %d (in memory at %d)", q.Text, j, got[j], scores[j], want[j], k)
			}
		}
	}
}

// TestMemVectorsAcrossServers: two handles on one database, as two
// servers. A write through one is seen by the other's next vector search
// at once (its in-memory vectors are stale by the generation, so the
// database answers), and the other then reloads and searches from memory
// again.
func TestMemVectorsAcrossServers(t *testing.T) {
	ctx := context.Background()
	u := pgtest.URL(t)
	emb := embedding.NewHashing(64)
	var ixs [2]*pgindex.Index
	for i := range ixs {
		ix, err := pgindex.Open(ctx, u, pgindex.WithEmbedder(emb))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { ix.Close() })
		ixs[i] = ix
	}
	one, two := ixs[0], ixs[1]
	c := retrievetest.Build(t, 200, 20, 11)
	if err := retrievetest.Fill(ctx, one, c.Files); err != nil {
		t.Fatal(err)
	}
	if err := two.WaitVectors(ctx); err != nil {
		t.Fatal(err)
	}
	const text = "zyzzogeton quillwort"
	if rows, _, ok, err := two.MemVectorHits(ctx, text, 40); err != nil || !ok || len(rows) == 0 {
		t.Fatalf("before the write, from memory: %d rows, %v, %v", len(rows), ok, err)
	}
	f := slices.Clone(c.Files[4])
	for i := range f {
		f[i].Text = text
		f[i].Access = access.Player
	}
	if err := one.Upsert(ctx, f[0].Pack, f[0].File, "h2", f); err != nil {
		t.Fatal(err)
	}
	want := map[string]bool{}
	for _, x := range f {
		want[x.ID] = true
	}
	top := func(what string) {
		t.Helper()
		r, err := two.Search(ctx, retrieve.Query{Text: text, Role: access.Player, Limit: len(f), Budget: 1 << 20, Explain: true})
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for _, p := range r.Considered {
			for _, s := range p.Trace.Signals {
				if s.Kind == retrieve.Vector && s.Rank <= len(f) {
					n++
					if !want[p.Chunk.ID] {
						t.Fatalf("%s: vector rank %d is %s, not one of the rewritten chunks", what, s.Rank, p.Chunk.ID)
					}
				}
			}
		}
		if n != len(f) {
			t.Fatalf("%s: %d of the top %d vector hits, want all", what, n, len(f))
		}
	}
	top("the other server, right after the write")
	if err := two.WaitVectors(ctx); err != nil {
		t.Fatal(err)
	}
	if _, _, ok, err := two.MemVectorHits(ctx, text, 40); err != nil || !ok {
		t.Fatalf("after the reload: in memory %v, %v", ok, err)
	}
	top("the other server, from memory")
}
