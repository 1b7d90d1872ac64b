package pgindex_test

import (
	"context"
	"os/exec"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/hearth-rpg/hearth/access"
	"github.com/hearth-rpg/hearth/internal/pgdb/pgtest"
	"github.com/hearth-rpg/hearth/retrieve"
	"github.com/hearth-rpg/hearth/retrieve/pgindex"
	"github.com/hearth-rpg/hearth/retrieve/retrievetest"
)

// textQueries are the words the full-text checks rank: common ones (most
// rows match) and the words the writes below put in.
var textQueries = []string{query, "the and of", "dragon gold hoard", "zyxqwv fire"}

// newTextFixture is a server whose in-memory full text is checked, over
// a small corpus (built in the search that asks: no background timing).
func newTextFixture(t *testing.T) *changeFixture {
	t.Helper()
	ctx := context.Background()
	u := pgtest.URL(t)
	ix, err := pgindex.Open(ctx, u)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ix.Close() })
	c := retrievetest.Build(t, 300, 20, 17)
	if err := retrievetest.Fill(ctx, ix, c.Files); err != nil {
		t.Fatal(err)
	}
	if err := ix.WaitFullText(ctx); err != nil {
		t.Fatal(err)
	}
	return &changeFixture{url: u, ix: ix}
}

// textHits is the in-memory full text's ranking, which must serve the
// index as it now stands.
func textHits(t *testing.T, ix *pgindex.Index, text string, role access.Level, f retrieve.Filter, k int) ([]int64, []float64) {
	t.Helper()
	rows, scores, ok, err := ix.MemTextHits(context.Background(), text, role, f, k)
	if err != nil || !ok {
		t.Fatalf("%q: the in-memory full text does not serve the index as it stands (%v, %v)", text, ok, err)
	}
	return rows, scores
}

// sameAsFresh checks that f's caught-up full text ranks every query, as
// a player and the GM, with and without filters, exactly as a server
// that builds it whole now: the same rows and the same scores, bit for
// bit (the document count, mean length and term counts are the same).
func sameAsFresh(t *testing.T, f *changeFixture, step string) {
	t.Helper()
	ctx := context.Background()
	fresh, err := pgindex.Open(ctx, f.url)
	if err != nil {
		t.Fatal(err)
	}
	defer fresh.Close()
	if err := fresh.WaitFullText(ctx); err != nil {
		t.Fatal(err)
	}
	conn, err := pgx.Connect(ctx, f.url)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	var loc string
	if err := conn.QueryRow(ctx, `SELECT coalesce(max(location), '') FROM lore_chunks`).Scan(&loc); err != nil {
		t.Fatal(err)
	}
	for _, flt := range []retrieve.Filter{{}, {Packs: []string{"new"}}, {ExcludePacks: []string{"new"}},
		{Location: loc}, {Tags: []string{"hoard"}}, {Packs: []string{"copies"}}} {
		for _, role := range []access.Level{access.Player, access.GM} {
			for _, q := range textQueries {
				gotRows, gotScores := textHits(t, f.ix, q, role, flt, 30)
				wantRows, wantScores := textHits(t, fresh, q, role, flt, 30)
				if !slices.Equal(gotRows, wantRows) || !slices.Equal(gotScores, wantScores) {
					t.Fatalf("%s: %q as %v, filter %+v: caught up\n got %v %v\nbuilt whole\nwant %v %v",
						step, q, role, flt, gotRows, gotScores, wantRows, wantScores)
				}
			}
		}
	}
}

// TestFullTextCatchesUpWithOtherWriters writes behind a server that
// holds the full text in memory, from another server, another
// connection's SQL and psql, and checks after each write that it ranks
// exactly as a server that builds the full text whole, having caught up
// from the change log rather than built it again.
func TestFullTextCatchesUpWithOtherWriters(t *testing.T) {
	ctx := context.Background()
	f := newTextFixture(t)
	top, _ := textHits(t, f.ix, query, access.GM, retrieve.Filter{}, 10)
	reads := f.ix.FullTextReads()

	// Another server writes a file of new words.
	other, err := pgindex.Open(ctx, f.url)
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	c := retrievetest.Build(t, 3, 3, 5)
	for i := range c.Files[0] {
		c.Files[0][i].Text = "The dragon sleeps on its gold hoard, zyxqwv " + strconv.Itoa(i)
		c.Files[0][i].Tags = []string{"hoard"}
		c.Files[0][i].Section = nil
		c.Files[0][i].ID = ""
	}
	c.Files[0][1].Access = access.GM
	if err := other.Upsert(ctx, "new", "dragons.md", "h", c.Files[0]); err != nil {
		t.Fatal(err)
	}
	if got, _ := textHits(t, f.ix, "zyxqwv", access.GM, retrieve.Filter{}, 10); len(got) != 3 {
		t.Fatalf("the new file's three chunks: found %v", got)
	}
	sameAsFresh(t, f, "a new file")

	// Another connection deletes the best old chunk.
	f.sql(t, `DELETE FROM lore_chunks WHERE n = `+strconv.FormatInt(top[0], 10))
	if got, _ := textHits(t, f.ix, query, access.GM, retrieve.Filter{}, 30); slices.Contains(got, top[0]) {
		t.Fatalf("deleted chunk %d still found: %v", top[0], got)
	}
	sameAsFresh(t, f, "a deleted chunk")

	// psql changes a chunk's text, tags and access level.
	stmt := `UPDATE lore_chunks SET text = 'a gold hoard guarded by a dragon of fire', tags = '{hoard}', access = 0 WHERE n = ` + strconv.FormatInt(top[5], 10)
	if _, err := exec.LookPath("psql"); err == nil {
		cmd := exec.Command("psql", "-X", "-q", "-v", "ON_ERROR_STOP=1", "-c", stmt, pgtest.Skip(t))
		cmd.Env = append(cmd.Environ(), "PGOPTIONS=-c search_path="+schema(t, f.url))
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("psql: %v\n%s", err, out)
		}
	} else {
		f.sql(t, stmt)
	}
	if got, _ := textHits(t, f.ix, "dragon gold hoard", access.Player, retrieve.Filter{Tags: []string{"hoard"}}, 10); !slices.Contains(got, top[5]) {
		t.Fatalf("the changed chunk %d is not found by its new words and tag: %v", top[5], got)
	}
	sameAsFresh(t, f, "a changed chunk")

	// A copy of a chunk (equal scores, ranked by row), and the file
	// deleted by the other server.
	f.sql(t, copyChunk("copied", top[2], top[2]))
	sameAsFresh(t, f, "a copied chunk")
	if err := other.DeleteFile(ctx, "new", "dragons.md"); err != nil {
		t.Fatal(err)
	}
	sameAsFresh(t, f, "a deleted file")

	if n := f.ix.FullTextReads(); n != reads {
		t.Errorf("the full text was built whole %d times after the writes, want 0: the change log was not used", n-reads)
	}
}

// TestFullTextFallsBackToFullBuild: when the change log cannot bring the
// full text up to date (trimmed past the generation held, a TRUNCATE),
// it is built whole, and ranks the rows as they stand.
func TestFullTextFallsBackToFullBuild(t *testing.T) {
	f := newTextFixture(t)
	top, _ := textHits(t, f.ix, query, access.GM, retrieve.Filter{}, 10)
	reads := f.ix.FullTextReads()
	f.sql(t, `DELETE FROM lore_chunks WHERE n = `+strconv.FormatInt(top[0], 10)+`;
		DELETE FROM lore_changes;
		UPDATE lore_meta SET value = (SELECT value FROM lore_meta WHERE key = 'generation') WHERE key = 'changes_from'`)
	waitText(t, f)
	if got, _ := textHits(t, f.ix, query, access.GM, retrieve.Filter{}, 30); slices.Contains(got, top[0]) {
		t.Fatalf("after a trimmed log: deleted chunk %d still found: %v", top[0], got)
	}
	sameAsFresh(t, f, "a trimmed log")
	if n := f.ix.FullTextReads(); n != reads+1 {
		t.Fatalf("built whole %d times after a trimmed log, want 1", n-reads)
	}
	f.sql(t, `TRUNCATE lore_chunks CASCADE`)
	waitText(t, f)
	if got, _ := textHits(t, f.ix, query, access.GM, retrieve.Filter{}, 10); len(got) != 0 {
		t.Fatalf("after TRUNCATE: %v; want no hits", got)
	}
	if n := f.ix.FullTextReads(); n != reads+2 {
		t.Fatalf("built whole %d times after a TRUNCATE too, want 2", n-reads)
	}
}

func waitText(t *testing.T, f *changeFixture) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	if err := f.ix.WaitFullText(ctx); err != nil {
		t.Fatal(err)
	}
}
