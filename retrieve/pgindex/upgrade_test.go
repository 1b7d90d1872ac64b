package pgindex_test

import (
	"context"
	"os"
	"slices"
	"testing"
	"testing/fstest"

	"github.com/hearth-rpg/hearth/access"
	"github.com/hearth-rpg/hearth/internal/pgdb"
	"github.com/hearth-rpg/hearth/internal/pgdb/pgtest"
	"github.com/hearth-rpg/hearth/retrieve"
	"github.com/hearth-rpg/hearth/retrieve/pgindex"
	"github.com/hearth-rpg/hearth/retrieve/retrievetest"
)

// TestStampsMigration fills a schema under migrations 0001–0002, then
// opens it with today's index: the generation keeps its counter and gains
// a stamp, and the in-memory full text catches up from the change log
// after a write as before, ranking as a fresh build.
func TestStampsMigration(t *testing.T) {
	ctx := context.Background()
	u := pgtest.URL(t)
	old := fstest.MapFS{}
	for _, n := range []string{"0001_init.sql", "0002_changes.sql"} {
		b, err := os.ReadFile("migrations/" + n)
		if err != nil {
			t.Fatal(err)
		}
		old["migrations/"+n] = &fstest.MapFile{Data: b}
	}
	m := pgindex.Migrations
	m.FS = old
	h, err := pgdb.Open(ctx, u, pgdb.Options{Migrations: []pgdb.Migrations{m}})
	if err != nil {
		t.Fatal(err)
	}
	// Rows written as any SQL client would: the triggers count and log.
	if _, err := h.Pool().Exec(ctx, `INSERT INTO lore_chunks (id, corpus, pack, file, section, heading, page, ordinal, source_type, content_type,
		entity_type, entity_id, refs, location, faction, threads, tags, tier, is_player, access, text, tokens, file_hash, turn, tsv)
		SELECT 'old/f.md#' || k, 'lore', 'old', 'f.md', '{}', 'Old ' || k, 0, k, 'prose', 'npc', '', '', '{}', '', '', '{}', '{}', 1, false, 1,
			'the wizard casts a spell of fire number ' || k, 10, 'h', 0, to_tsvector('english', 'the wizard casts a spell of fire')
		FROM generate_series(1, 40) k`); err != nil {
		t.Fatal(err)
	}
	var before string
	if err := h.Pool().QueryRow(ctx, `SELECT value FROM lore_meta WHERE key = 'generation'`).Scan(&before); err != nil {
		t.Fatal(err)
	}
	h.Close()

	ix, err := pgindex.Open(ctx, u)
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	if err := ix.WaitFullText(ctx); err != nil {
		t.Fatal(err)
	}
	f := &changeFixture{url: u, ix: ix}
	if n := f.int(t, `SELECT count(*) FROM lore_stamps s JOIN lore_meta m ON m.key = 'generation' AND s.gen = m.value::bigint
		WHERE m.value = '`+before+`'`); n != 1 {
		t.Fatalf("%d stamps recorded for the schema's generation %s", n, before)
	}
	reads := ix.FullTextReads()
	c := retrievetest.Build(t, 3, 3, 5)
	for i := range c.Files[0] {
		c.Files[0][i].Text = "The dragon sleeps on its gold hoard, zyxqwv"
		c.Files[0][i].ID = ""
	}
	if err := ix.Upsert(ctx, "new", "dragons.md", "h", c.Files[0]); err != nil {
		t.Fatal(err)
	}
	if got, _ := textHits(t, ix, "zyxqwv", access.GM, retrieve.Filter{}, 10); len(got) != 3 {
		t.Fatalf("the new file's three chunks: found %v", got)
	}
	if n := ix.FullTextReads(); n != reads {
		t.Fatalf("built whole %d times after the write; want a catch-up", n-reads)
	}
	fresh, err := pgindex.Open(ctx, u)
	if err != nil {
		t.Fatal(err)
	}
	defer fresh.Close()
	if err := fresh.WaitFullText(ctx); err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{"zyxqwv", query} {
		gotRows, gotScores := textHits(t, ix, q, access.GM, retrieve.Filter{}, 20)
		wantRows, wantScores := textHits(t, fresh, q, access.GM, retrieve.Filter{}, 20)
		if !slices.Equal(gotRows, wantRows) || !slices.Equal(gotScores, wantScores) {
			t.Fatalf("%q: caught up %v %v, built whole %v %v", q, gotRows, gotScores, wantRows, wantScores)
		}
	}
}
