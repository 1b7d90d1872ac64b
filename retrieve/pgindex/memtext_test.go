package pgindex_test

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"testing"

	"github.com/hearth-rpg/hearth/access"
	"github.com/hearth-rpg/hearth/chunk"
	"github.com/hearth-rpg/hearth/internal/pgdb/pgtest"
	"github.com/hearth-rpg/hearth/retrieve"
	"github.com/hearth-rpg/hearth/retrieve/pgindex"
	"github.com/hearth-rpg/hearth/retrieve/retrievetest"
	"github.com/hearth-rpg/hearth/retrieve/sqliteindex"
)

// TestMemFullTextMatchesSQLite indexes the same real text (retrievetest's
// recombined SRD and PDF paragraphs) in both backends and checks that
// PostgreSQL's in-memory full text returns what SQLite's does (which
// sqliteindex's tests hold to FTS5's own BM25) for the 160 SRD queries,
// with roles and filters: the same passages in the same order.
func TestMemFullTextMatchesSQLite(t *testing.T) {
	ctx := context.Background()
	c := retrievetest.Build(t, 1500, 20, 9)
	pg := open(t)
	sq, err := sqliteindex.Open(ctx, filepath.Join(t.TempDir(), "lore.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sq.Close() })
	for _, ix := range []retrieve.Index{sq, pg} {
		if err := retrievetest.Fill(ctx, ix, c.Files); err != nil {
			t.Fatal(err)
		}
	}
	if err := sq.WaitFullText(ctx); err != nil {
		t.Fatal(err)
	}
	if err := pg.WaitFullText(ctx); err != nil {
		t.Fatal(err)
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
		{ExcludePacks: []string{b.Pack}, ContentTypes: []string{a.ContentType, b.ContentType}},
	}
	compared, found := 0, 0
	for i, q := range retrievetest.Queries(t) {
		text := q.Text
		if i%5 == 0 {
			text += fmt.Sprintf(" tag%02d", i%50)
		}
		for _, role := range []access.Level{access.Player, access.GM} {
			rq := retrieve.Query{Text: text, Role: role, Limit: 40, Budget: 1 << 30, Filter: filters[i%len(filters)]}
			want := ids(t, sq, rq)
			got := ids(t, pg, rq)
			if !slices.Equal(got, want) {
				t.Fatalf("%q as %v, filter %+v:\n got %v\nwant %v", text, role, rq.Filter, got, want)
			}
			compared++
			if len(want) > 0 {
				found++
			}
		}
	}
	if found < compared/2 {
		t.Fatalf("only %d of %d searches found anything; the test proves little", found, compared)
	}
}

func ids(t *testing.T, ix retrieve.Index, q retrieve.Query) []string {
	t.Helper()
	r, err := ix.Search(context.Background(), q)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, p := range r.Passages {
		out = append(out, p.Chunk.ID)
	}
	return out
}

// TestMemFullTextAcrossServers: two handles on one database, as two
// servers. A write through one is seen by the other's next search at
// once (its in-memory index is stale by the generation), and the other
// then rebuilds and ranks from memory again.
func TestMemFullTextAcrossServers(t *testing.T) {
	ctx := context.Background()
	u := pgtest.URL(t)
	one, err := pgindex.Open(ctx, u)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { one.Close() })
	two, err := pgindex.Open(ctx, u)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { two.Close() })
	c := retrievetest.Build(t, 200, 20, 11)
	if err := retrievetest.Fill(ctx, one, c.Files); err != nil {
		t.Fatal(err)
	}
	if err := two.WaitFullText(ctx); err != nil {
		t.Fatal(err)
	}
	f := slices.Clone(c.Files[4])
	for i := range f {
		f[i].Text += " zyzzogeton"
		f[i].Access = access.Player
	}
	if err := one.Upsert(ctx, f[0].Pack, f[0].File, "h2", f); err != nil {
		t.Fatal(err)
	}
	q := retrieve.Query{Text: "zyzzogeton", Role: access.Player, Limit: 40}
	if got := ids(t, two, q); len(got) != len(f) {
		t.Fatalf("the other server, right after the write: %d passages, want %d", len(got), len(f))
	}
	if err := two.WaitFullText(ctx); err != nil {
		t.Fatal(err)
	}
	if got := ids(t, two, retrieve.Query{Text: "zyzzogeton", Role: access.Player, Limit: 40, Budget: 1 << 20}); len(got) != len(f) {
		t.Fatalf("the other server, from memory: %d passages, want %d", len(got), len(f))
	}
}
