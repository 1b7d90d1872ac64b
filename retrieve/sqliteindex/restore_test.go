package sqliteindex

import (
	"context"
	"database/sql"
	"fmt"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/hearth-rpg/hearth/access"
	"github.com/hearth-rpg/hearth/chunk"
	"github.com/hearth-rpg/hearth/embedding"
	"github.com/hearth-rpg/hearth/internal/sqlitefile"
	"github.com/hearth-rpg/hearth/retrieve"
	"modernc.org/sqlite"
)

// restoreFrom overwrites the database file at path with the copy at src
// through SQLite's online backup API, from a connection of its own, as a
// restore tool would while a server holds the file open.
func restoreFrom(t *testing.T, path, src string) {
	t.Helper()
	dsn, err := sqlitefile.DSN(path)
	if err != nil {
		t.Fatal(err)
	}
	db, err := sql.Open("sqlite", dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	conn, err := db.Conn(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	err = conn.Raw(func(dc any) error {
		r, ok := dc.(interface {
			NewRestore(string) (*sqlite.Backup, error)
		})
		if !ok {
			return fmt.Errorf("the driver's connection %T has no NewRestore", dc)
		}
		b, err := r.NewRestore(src)
		if err != nil {
			return err
		}
		for {
			more, err := b.Step(-1)
			if err != nil {
				b.Finish()
				return err
			}
			if !more {
				break
			}
		}
		return b.Finish()
	})
	if err != nil {
		t.Fatalf("restore %s from %s: %v", path, src, err)
	}
}

// counters reads the raw write counters a restore can bring back: the
// generation's counter and the newest entry of each change log.
func counters(t *testing.T, ix *Index) string {
	t.Helper()
	var gen string
	var text, vec sql.NullInt64
	if err := ix.w.QueryRow(`SELECT value, (SELECT MAX(seq) FROM lore_chunk_log), (SELECT MAX(seq) FROM lore_vector_log)
		FROM lore_meta WHERE key = 'generation'`).Scan(&gen, &text, &vec); err != nil {
		t.Fatal(err)
	}
	gen, _, _ = strings.Cut(gen, ".")
	return fmt.Sprintf("generation %s, chunk log %d, vector log %d", gen, text.Int64, vec.Int64)
}

// rewritten is file f with word added to every chunk's text.
func rewritten(f []chunk.Chunk, word string) []chunk.Chunk {
	out := make([]chunk.Chunk, len(f))
	for i, c := range f {
		c.Text += " " + word + " " + word
		out[i] = c
	}
	return out
}

// TestRestoredOlderCopy: a server holds kept results, the in-memory full
// text and the vectors at some state of the file; the file is restored
// from a copy taken k writes earlier, and k other writes of the same
// shape bring every counter (the generation, both change logs) back to
// what the server holds, with other contents. The server's next searches
// must be a fresh handle's, and each in-memory structure must be what a
// fresh handle builds.
func TestRestoredOlderCopy(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	path, copyPath := filepath.Join(dir, "hearth.db"), filepath.Join(dir, "copy.db")
	e := embedding.NewHashing(32)
	ix, err := Open(ctx, path, WithEmbedder(e))
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	c := newCorpus(47, 300)
	files := c.files(600, 10)
	if err := fill(ctx, ix, files); err != nil {
		t.Fatal(err)
	}
	if _, err := ix.w.ExecContext(ctx, `VACUUM INTO ?`, copyPath); err != nil {
		t.Fatal(err)
	}

	// k = 2 writes the server sees, then holds: results kept, full text
	// and vectors in memory.
	a, b := files[4], files[9]
	for _, f := range [][]chunk.Chunk{rewritten(a, "zyzzogeton"), rewritten(b, "zyzzogeton")} {
		if err := ix.Upsert(ctx, f[0].Pack, f[0].File, "h2", f); err != nil {
			t.Fatal(err)
		}
	}
	kept := []retrieve.Query{
		{Text: "zyzzogeton", Role: access.GM, Limit: 8},
		{Text: "quokkaberry", Role: access.GM, Limit: 8},
		{Text: c.queryText(3) + " zyzzogeton", Role: access.GM, Limit: 8},
	}
	for _, q := range kept {
		search(t, ix, q)
	}
	waitMemTest(t, ix)
	mustVectors(t, ix)
	held := counters(t, ix)

	// The restore, and k other writes of the same shape.
	restoreFrom(t, path, copyPath)
	for _, f := range [][]chunk.Chunk{rewritten(a, "quokkaberry"), rewritten(b, "quokkaberry")} {
		if err := ix.Upsert(ctx, f[0].Pack, f[0].File, "h3", f); err != nil {
			t.Fatal(err)
		}
	}
	if now := counters(t, ix); now != held {
		t.Fatalf("the counters are %s after the restore and writes, %s before: the test does not reach the case", now, held)
	}

	fresh, err := Open(ctx, path, WithEmbedder(e))
	if err != nil {
		t.Fatal(err)
	}
	defer fresh.Close()
	waitMemTest(t, fresh)

	// Kept results: the queries asked before the restore.
	for _, q := range kept {
		if got, want := idsOf(search(t, ix, q).Passages), idsOf(search(t, fresh, q).Passages); !reflect.DeepEqual(got, want) {
			t.Errorf("kept %q: %v, a fresh handle %v", q.Text, got, want)
		}
	}
	// The in-memory full text: terms ranked by it alone, once it serves
	// the index as it now stands.
	waitMemTest(t, ix)
	gen, err := ix.Generation(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, text := range []string{"quokkaberry", "zyzzogeton", c.queryText(5) + " quokkaberry"} {
		got, ok, err := ix.memRank(ctx, gen, text, int(access.GM), retrieve.Filter{}, 10)
		if err != nil {
			t.Fatal(err)
		}
		want, _, err := fresh.memRank(ctx, gen, text, int(access.GM), retrieve.Filter{}, 10)
		if err != nil {
			t.Fatal(err)
		}
		if !ok {
			t.Fatalf("%q: no in-memory full text after waiting for it", text)
		}
		if d := sameExactly(got, want); d != "" {
			t.Errorf("in-memory full text, %q: %s\nserver %v\n fresh %v", text, d, got, want)
		}
	}
	// The vectors.
	if got, want := snapshot(mustVectors(t, ix)), fresh2(t, fresh); !reflect.DeepEqual(got, want) {
		t.Errorf("the server's vectors differ from a fresh load's (%d and %d rows)", len(got), len(want))
	}
	// And a search asked for the first time.
	q := retrieve.Query{Text: c.queryText(7) + " quokkaberry", Role: access.GM, Limit: 8}
	if got, want := idsOf(search(t, ix, q).Passages), idsOf(search(t, fresh, q).Passages); !reflect.DeepEqual(got, want) {
		t.Errorf("new query: %v, a fresh handle %v", got, want)
	}
}

// fresh2 is the vectors an index loads with no cache to catch up from.
func fresh2(t *testing.T, ix *Index) map[int64]string {
	t.Helper()
	return snapshot(mustVectors(t, ix))
}
