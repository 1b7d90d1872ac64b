package pgindex_test

import (
	"context"
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/hearth-rpg/hearth/access"
	"github.com/hearth-rpg/hearth/chunk"
	"github.com/hearth-rpg/hearth/embedding"
	"github.com/hearth-rpg/hearth/retrieve"
	"github.com/hearth-rpg/hearth/retrieve/pgindex"
	"github.com/hearth-rpg/hearth/retrieve/retrievetest"
)

// loreTables lists the index's tables in the schema.
func loreTables(t *testing.T, conn *pgx.Conn) []string {
	t.Helper()
	rows, err := conn.Query(context.Background(), `SELECT table_name::text FROM information_schema.tables
		WHERE table_schema = current_schema() AND table_type = 'BASE TABLE' AND table_name LIKE 'lore\_%' ORDER BY 1`)
	if err != nil {
		t.Fatal(err)
	}
	names, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		t.Fatal(err)
	}
	return names
}

// saveCopy copies every lore table, and the chunks' identity sequence,
// into tables of their own: the state a backup holds.
func (f *changeFixture) saveCopy(t *testing.T) {
	t.Helper()
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, f.url)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	var b strings.Builder
	for _, n := range loreTables(t, conn) {
		fmt.Fprintf(&b, "CREATE TABLE backup_%s AS SELECT * FROM %s;\n", n, n)
	}
	b.WriteString(`CREATE TABLE backup_seq AS SELECT last_value, is_called FROM lore_chunks_n_seq;`)
	if _, err := conn.Exec(ctx, b.String()); err != nil {
		t.Fatalf("copy the tables: %v", err)
	}
}

// restoreCopy puts the copy back as a data-only restore does
// (pg_restore --data-only --disable-triggers): the tables emptied and
// refilled with the triggers off, the sequence set, in one transaction.
func (f *changeFixture) restoreCopy(t *testing.T) {
	t.Helper()
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, f.url)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	names := loreTables(t, conn)
	var b strings.Builder
	b.WriteString("BEGIN;\n")
	for _, n := range names {
		fmt.Fprintf(&b, "ALTER TABLE %s DISABLE TRIGGER USER;\n", n)
	}
	fmt.Fprintf(&b, "TRUNCATE %s;\n", strings.Join(names, ", "))
	for _, n := range []string{"lore_files", "lore_chunks", "lore_vectors"} {
		fmt.Fprintf(&b, "INSERT INTO %s OVERRIDING SYSTEM VALUE SELECT * FROM backup_%s;\n", n, n)
	}
	for _, n := range names {
		if !slices.Contains([]string{"lore_files", "lore_chunks", "lore_vectors"}, n) {
			fmt.Fprintf(&b, "INSERT INTO %s SELECT * FROM backup_%s;\n", n, n)
		}
		fmt.Fprintf(&b, "ALTER TABLE %s ENABLE TRIGGER USER;\n", n)
	}
	b.WriteString("SELECT setval('lore_chunks_n_seq', last_value, is_called) FROM backup_seq;\nCOMMIT;")
	if _, err := conn.Exec(ctx, b.String()); err != nil {
		t.Fatalf("restore the tables: %v", err)
	}
}

// writeCounters reads what a restore brings back: the generation's
// counter and the newest change logged.
func (f *changeFixture) writeCounters(t *testing.T) string {
	t.Helper()
	gen := f.int(t, `SELECT split_part(value, '.', 1)::bigint FROM lore_meta WHERE key = 'generation'`)
	last := f.int(t, `SELECT coalesce(max(gen), 0) FROM lore_changes`)
	rows := f.int(t, `SELECT count(*) FROM lore_changes`)
	return fmt.Sprintf("generation %d, log to %d, %d entries", gen, last, rows)
}

func withWord(f []chunk.Chunk, word string) []chunk.Chunk {
	out := make([]chunk.Chunk, len(f))
	for i, c := range f {
		c.Text += " " + word + " " + word
		out[i] = c
	}
	return out
}

// TestRestoredOlderCopy: a server holds the full text and the vectors in
// memory at some generation; the schema's tables are restored from a
// copy taken k writes earlier, and k other writes of the same shape bring
// the generation and the change log back to what the server holds, with
// other contents. The server must then rank as a fresh server does.
func TestRestoredOlderCopy(t *testing.T) {
	ctx := context.Background()
	f := newChangeFixture(t)
	if err := f.ix.WaitFullText(ctx); err != nil {
		t.Fatal(err)
	}
	c := retrievetest.Build(t, 300, 20, 17)
	f.saveCopy(t)

	a, b := c.Files[2], c.Files[5]
	for _, fl := range [][]chunk.Chunk{withWord(a, "zyzzogeton"), withWord(b, "zyzzogeton")} {
		if err := f.ix.Upsert(ctx, fl[0].Pack, fl[0].File, "h2", fl); err != nil {
			t.Fatal(err)
		}
	}
	texts := []string{"zyzzogeton", "quokkaberry", query + " quokkaberry"}
	for _, q := range texts {
		textHits(t, f.ix, q, access.GM, retrieve.Filter{}, 10)
		if _, err := f.ix.FullTextHits(ctx, q, 10, math.MaxInt64); err != nil {
			t.Fatal(err)
		}
	}
	waitServes(t, f)
	held := f.writeCounters(t)

	f.restoreCopy(t)
	for _, fl := range [][]chunk.Chunk{withWord(a, "quokkaberry"), withWord(b, "quokkaberry")} {
		if err := f.ix.Upsert(ctx, fl[0].Pack, fl[0].File, "h3", fl); err != nil {
			t.Fatal(err)
		}
	}
	if now := f.writeCounters(t); now != held {
		t.Fatalf("after the restore and writes: %s; before: %s: the test does not reach the case", now, held)
	}

	fresh, err := pgindex.Open(ctx, f.url, pgindex.WithEmbedder(embedding.NewHashing(64)), pgindex.WithVectorCandidates(1<<20))
	if err != nil {
		t.Fatal(err)
	}
	defer fresh.Close()
	if err := fresh.WaitFullText(ctx); err != nil {
		t.Fatal(err)
	}
	if err := fresh.WaitVectors(ctx); err != nil {
		t.Fatal(err)
	}
	waitText(t, f)
	for _, q := range texts {
		gotRows, gotScores := textHits(t, f.ix, q, access.GM, retrieve.Filter{}, 10)
		wantRows, wantScores := textHits(t, fresh, q, access.GM, retrieve.Filter{}, 10)
		if !slices.Equal(gotRows, wantRows) || !slices.Equal(gotScores, wantScores) {
			t.Errorf("in-memory full text, %q:\n got %v %v\nwant %v %v", q, gotRows, gotScores, wantRows, wantScores)
		}
	}
	// The tsvector ranking's term counts, kept per generation.
	for _, q := range texts {
		got, err := f.ix.FullTextHits(ctx, q, 10, 20)
		if err != nil {
			t.Fatal(err)
		}
		want, err := fresh.FullTextHits(ctx, q, 10, 20)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(got, want) {
			t.Errorf("tsvector ranking, %q: %v, a fresh server %v", q, got, want)
		}
	}
	waitServes(t, f)
	for _, q := range texts {
		got, gotScores, ok, err := f.ix.MemVectorHits(ctx, q, 10)
		if err != nil || !ok {
			t.Fatalf("%q: the in-memory vectors do not serve (%v, %v)", q, ok, err)
		}
		want, wantScores, _, err := fresh.MemVectorHits(ctx, q, 10)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(got, want) || !slices.Equal(gotScores, wantScores) {
			t.Errorf("in-memory vectors, %q:\n got %v %v\nwant %v %v", q, got, gotScores, want, wantScores)
		}
	}
}
