package sqliteindex

import (
	"context"
	"database/sql"
	"fmt"
	"path/filepath"
	"reflect"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/hearth-rpg/hearth/access"
	"github.com/hearth-rpg/hearth/chunk"
	"github.com/hearth-rpg/hearth/embedding"
	"github.com/hearth-rpg/hearth/retrieve"
)

// TestDeleteKeepsIndexConsistent: deleting files and packs leaves no row
// of theirs in the full-text index, the keys or the vectors. (What a
// search finds after deleting is the conformance suite's.)
func TestDeleteKeepsIndexConsistent(t *testing.T) {
	ctx := context.Background()
	ix := openTest(t, WithEmbedder(embedding.NewHashing(32)))
	put := func(pack, file, text string, tags ...string) {
		t.Helper()
		if err := ix.Upsert(ctx, pack, file, "h", []chunk.Chunk{{Text: text, Tags: tags, Refs: []string{"x:y"}}, {Ordinal: 1, Text: text + " again"}}); err != nil {
			t.Fatal(err)
		}
	}
	put("core", "a.md", "Basilisk venom petrifies.", "monster")
	put("core", "b.md", "Cockatrice feathers itch.", "monster")
	put("extra", "c.md", "Basilisk eggs sell for gold.", "treasure")
	if err := ix.DeleteFile(ctx, "core", "a.md"); err != nil {
		t.Fatal(err)
	}
	if err := ix.DeletePack(ctx, "extra"); err != nil {
		t.Fatal(err)
	}
	checkConsistent(t, ix)
	if got := countRows(t, ix, `SELECT COUNT(*) FROM lore_chunks`); got != 2 {
		t.Errorf("%d chunks left, want 2", got)
	}
}

// checkConsistent asserts that the full-text index, keys and vectors
// hold exactly the stored chunks.
func checkConsistent(t *testing.T, ix *Index) {
	t.Helper()
	if _, err := ix.w.Exec(`INSERT INTO lore_fts (lore_fts, rank) VALUES ('integrity-check', 1)`); err != nil {
		t.Errorf("full-text index out of step with the chunks: %v", err)
	}
	for _, q := range []string{
		`SELECT COUNT(*) FROM lore_keys WHERE chunk NOT IN (SELECT n FROM lore_chunks)`,
		`SELECT COUNT(*) FROM lore_vectors WHERE chunk NOT IN (SELECT n FROM lore_chunks)`,
		`SELECT COUNT(*) FROM lore_chunks WHERE n NOT IN (SELECT rowid FROM lore_fts_docsize)`,
		`SELECT COUNT(*) FROM lore_fts_docsize WHERE id NOT IN (SELECT n FROM lore_chunks)`,
	} {
		if n := countRows(t, ix, q); n != 0 {
			t.Errorf("%s = %d, want 0", q, n)
		}
	}
}

func TestSearchDeterministic(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "lore.db")
	c := newCorpus(7, 300)
	files := c.files(400, 10)
	var queries []retrieve.Query
	for i := range 20 {
		queries = append(queries, retrieve.Query{Text: c.queryText(1 + i%4), Explain: true, Limit: 15, Budget: 600, Role: access.Level(1 + i%4)})
	}
	run := func() []retrieve.Result {
		ix, err := Open(ctx, path, WithEmbedder(embedding.NewHashing(64)))
		if err != nil {
			t.Fatal(err)
		}
		defer ix.Close()
		if err := fill(ctx, ix, files); err != nil {
			t.Fatal(err)
		}
		var out []retrieve.Result
		for _, q := range queries {
			out = append(out, search(t, ix, q), search(t, ix, q))
		}
		return out
	}
	first := run()
	for i := 0; i < len(first); i += 2 {
		if !reflect.DeepEqual(first[i], first[i+1]) {
			t.Fatalf("query %d: two runs differ", i/2)
		}
	}
	// Re-indexing the same files (new row numbers) gives the same results.
	if again := run(); !reflect.DeepEqual(again, first) {
		t.Fatal("results changed after re-indexing the same content")
	}
	found := 0
	for _, r := range first {
		found += len(r.Passages)
	}
	if found == 0 {
		t.Fatal("the queries found nothing; the test proves nothing")
	}
}

func TestMatchQuery(t *testing.T) {
	tests := []struct{ in, want string }{
		{"", ""},
		{"the of and", ""},
		{"Lighthouse keeper", `"lighthouse" OR "keeper"`},
		{`NEAR("gate" tower*)`, `"near" OR "gate" OR "tower"`},
		{"keeper KEEPER keeper's", `"keeper"`},
		{"can't won’t I'm we'd s", `"won" OR "s"`},
		{"how does grappling work", `"grappling"`},
		{"what happens to the work", `"happens" OR "work"`},
		{"col:term -x ^y", `"col" OR "term" OR "x" OR "y"`},
		{"façade a\u0301b", `"façade" OR "a` + "\u0301" + `b"`},
		{strings.Repeat("z", maxTermBytes+1) + " ok", `"ok"`},
	}
	for _, tt := range tests {
		if got := matchQuery(tt.in); got != tt.want {
			t.Errorf("matchQuery(%q) = %s, want %s", tt.in, got, tt.want)
		}
	}
	var many []string
	for i := range 100 {
		many = append(many, fmt.Sprintf("w%d", i))
	}
	if n := strings.Count(matchQuery(strings.Join(many, " ")), " OR ") + 1; n != maxTerms {
		t.Errorf("%d terms kept, want %d", n, maxTerms)
	}
}

// FuzzMatchQuery checks that whatever the text, the MATCH expression is
// either empty or valid FTS5 that SQLite runs without error.
func FuzzMatchQuery(f *testing.F) {
	for _, s := range []string{"", `"`, "NEAR(", "*", "-", "AND OR", "lighthouse keeper", "日本語", "a\u0301", `x:"y"`, "\x00"} {
		f.Add(s)
	}
	db, err := sql.Open("sqlite", "file::memory:")
	if err != nil {
		f.Fatal(err)
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	if _, err := db.Exec(`CREATE VIRTUAL TABLE t USING fts5(a, tokenize = 'porter unicode61');
		INSERT INTO t (a) VALUES ('the lighthouse keeper'), ('日本語 text')`); err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, text string) {
		q := matchQuery(text)
		if q == "" {
			return
		}
		for _, term := range strings.Split(q, " OR ") {
			if len(term) < 3 || term[0] != '"' || term[len(term)-1] != '"' || strings.Contains(term[1:len(term)-1], `"`) {
				t.Fatalf("matchQuery(%q) = %s: term %s is not one quoted word", text, q, term)
			}
		}
		rows, err := db.Query(`SELECT rowid FROM t WHERE t MATCH ? ORDER BY rank`, q)
		if err != nil {
			t.Fatalf("matchQuery(%q) = %s: %v", text, q, err)
		}
		for rows.Next() {
		}
		if err := rows.Err(); err != nil {
			t.Fatalf("matchQuery(%q) = %s: %v", text, q, err)
		}
		rows.Close()
	})
}

// countingEmbedder counts the texts it embeds.
type countingEmbedder struct {
	embedding.Embedder
	texts atomic.Int64
}

func (e *countingEmbedder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	e.texts.Add(int64(len(texts)))
	return e.Embedder.Embed(ctx, texts)
}

func TestEmbedderChangeReembeds(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "lore.db")
	open := func(e embedding.Embedder) *Index {
		t.Helper()
		var opts []Option
		if e != nil {
			opts = append(opts, WithEmbedder(e))
		}
		ix, err := Open(ctx, path, opts...)
		if err != nil {
			t.Fatal(err)
		}
		return ix
	}
	ix := open(embedding.NewHashing(64))
	for i := range 5 {
		if err := ix.Upsert(ctx, "core", fmt.Sprintf("f%d.md", i), "h", []chunk.Chunk{{Text: fmt.Sprintf("Chunk %d about the necromancer.", i)}}); err != nil {
			t.Fatal(err)
		}
	}
	ix.Close()

	stats := func(ix *Index) retrieve.Stats {
		s, err := ix.Stats(ctx)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	// Same embedder: nothing to do.
	same := &countingEmbedder{Embedder: embedding.NewHashing(64)}
	ix = open(same)
	if n := same.texts.Load(); n != 0 {
		t.Errorf("reopening with the same embedder embedded %d texts", n)
	}
	ix.Close()

	// A new embedder: every chunk is embedded again, in its space.
	other := &countingEmbedder{Embedder: embedding.NewHashing(32)}
	ix = open(other)
	if n := other.texts.Load(); n != 5 {
		t.Errorf("switching embedders embedded %d texts, want 5", n)
	}
	if s := stats(ix); s.Embedder != "hashing-32" || s.Dim != 32 || s.Vectors != 5 || s.Chunks != 5 {
		t.Errorf("after the switch: %+v", s)
	}
	if n := countRows(t, ix, `SELECT COUNT(*) FROM lore_vectors WHERE length(vec) != 4*32`); n != 0 {
		t.Errorf("%d vectors of the old dimension remain", n)
	}
	ix.Close()

	// Chunks indexed without an embedder get vectors at the next open.
	ix = open(nil)
	if err := ix.Upsert(ctx, "core", "late.md", "h", []chunk.Chunk{{Text: "Added while offline."}}); err != nil {
		t.Fatal(err)
	}
	if s := stats(ix); s.Vectors != 5 || s.Chunks != 6 {
		t.Errorf("without an embedder: %+v", s)
	}
	ix.Close()
	ix = open(embedding.NewHashing(32))
	defer ix.Close()
	if s := stats(ix); s.Vectors != 6 {
		t.Errorf("missing vector not filled in: %+v", s)
	}
}

// TestUpsertRejectsHugeChunks: SQLite's own limit on a chunk's text, and
// no trace of a failed Upsert in the index's tables. (The other bad
// inputs are the conformance suite's.)
func TestUpsertRejectsHugeChunks(t *testing.T) {
	ctx := context.Background()
	ix := openTest(t)
	if err := ix.Upsert(ctx, "core", "a.md", "h", []chunk.Chunk{{ID: "shared", Text: "x"}}); err != nil {
		t.Fatal(err)
	}
	err := ix.Upsert(ctx, "core", "b.md", "h", []chunk.Chunk{{Text: "fine"}, {Ordinal: 1, Text: strings.Repeat("x", MaxChunkBytes+1)}})
	if err == nil || !strings.Contains(err.Error(), "split it") {
		t.Errorf("huge text: err = %v, want it to say to split it", err)
	}
	for _, bad := range [][]chunk.Chunk{{{Access: 9, Text: "x"}}, {{ID: "shared", Text: "y"}}} {
		if err := ix.Upsert(ctx, "core", "b.md", "h", bad); err == nil {
			t.Errorf("%+v accepted", bad)
		}
	}
	if n := countRows(t, ix, `SELECT COUNT(*) FROM lore_chunks`); n != 1 {
		t.Errorf("%d chunks after failed upserts, want 1", n)
	}
	checkConsistent(t, ix)
}

func TestSharesADatabaseFile(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "hearth.db")
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec(`CREATE TABLE sessions (id TEXT PRIMARY KEY); INSERT INTO sessions VALUES ('s1');
		CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY); INSERT INTO schema_migrations VALUES (42)`); err != nil {
		t.Fatal(err)
	}
	ix, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	if err := ix.Upsert(ctx, "core", "a.md", "h", []chunk.Chunk{{Text: "shared file"}}); err != nil {
		t.Fatal(err)
	}
	ix.Close()
	var id string
	var v int
	if err := db.QueryRow(`SELECT (SELECT id FROM sessions), (SELECT version FROM schema_migrations)`).Scan(&id, &v); err != nil || id != "s1" || v != 42 {
		t.Errorf("other tables changed: %q %d %v", id, v, err)
	}
	rows, err := db.Query(`SELECT name FROM sqlite_schema WHERE type = 'table' AND name NOT LIKE 'lore\_%' ESCAPE '\' AND name NOT IN ('sessions', 'schema_migrations', 'hearth_schema')`)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var name string
		rows.Scan(&name)
		t.Errorf("table %q is not prefixed lore_", name)
	}
	rows.Close()

	// A lore schema from the future is refused, not misread.
	if _, err := db.Exec(`INSERT INTO hearth_schema (component, version, applied_at) VALUES ('lore', 99, 0)`); err != nil {
		t.Fatal(err)
	}
	if ix, err := Open(ctx, path); err == nil || !strings.Contains(err.Error(), "newer Hearth") {
		if ix != nil {
			ix.Close()
		}
		t.Errorf("opening a newer schema: err = %v", err)
	}
}

func TestConcurrentSearchAndWrite(t *testing.T) {
	ctx := context.Background()
	ix := openTest(t, WithEmbedder(embedding.NewHashing(32)))
	c := newCorpus(9, 200)
	files := c.files(200, 10)
	if err := fill(ctx, ix, files[:10]); err != nil {
		t.Fatal(err)
	}
	queries := make([]string, 50)
	for i := range queries {
		queries[i] = c.queryText(2)
	}
	errs := make(chan error, 8)
	done := make(chan struct{})
	for g := range 3 {
		go func() {
			for i := g; ; i++ {
				select {
				case <-done:
					errs <- nil
					return
				default:
				}
				r, err := ix.Search(ctx, retrieve.Query{Text: queries[i%len(queries)], Role: access.Player, Explain: true})
				if err != nil {
					errs <- err
					return
				}
				for _, p := range r.Considered {
					if p.Chunk.Access > access.Player {
						errs <- fmt.Errorf("chunk %s above the role", p.Chunk.ID)
						return
					}
				}
			}
		}()
	}
	// Writes invalidate the vector cache under the searches' feet.
	err := fill(ctx, ix, files[10:])
	close(done)
	for range 3 {
		if e := <-errs; e != nil {
			t.Error(e)
		}
	}
	if err != nil {
		t.Fatal(err)
	}
	checkConsistent(t, ix)
}
