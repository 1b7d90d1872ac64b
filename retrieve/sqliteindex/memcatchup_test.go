package sqliteindex

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hearth-rpg/hearth/access"
	"github.com/hearth-rpg/hearth/internal/sqlitefile"
	"github.com/hearth-rpg/hearth/retrieve"
	"github.com/hearth-rpg/hearth/retrieve/bm25"
)

// sqlWriterEnv makes the test binary, run again, a separate process that
// writes to a lore index file with plain SQL, as the sqlite3 CLI or
// another program would, and exits (TestMain).
const sqlWriterEnv = "HEARTH_TEST_SQL_WRITER"

// runSQLWriter runs the JSON list of statements stmts on the database
// at path in one transaction, through a connection of its own.
func runSQLWriter(path, stmts string) int {
	var list []string
	if err := json.Unmarshal([]byte(stmts), &list); err != nil {
		fmt.Fprintln(os.Stderr, "sql writer: the statements:", err)
		return 2
	}
	dsn, err := sqlitefile.DSN(path)
	if err != nil {
		fmt.Fprintln(os.Stderr, "sql writer:", err)
		return 2
	}
	db, err := sql.Open("sqlite", dsn)
	if err != nil {
		fmt.Fprintln(os.Stderr, "sql writer:", err)
		return 2
	}
	defer db.Close()
	tx, err := db.Begin()
	if err != nil {
		fmt.Fprintln(os.Stderr, "sql writer:", err)
		return 1
	}
	for _, s := range list {
		if _, err := tx.Exec(s); err != nil {
			tx.Rollback()
			fmt.Fprintf(os.Stderr, "sql writer: %s: %v\n", s, err)
			return 1
		}
	}
	if err := tx.Commit(); err != nil {
		fmt.Fprintln(os.Stderr, "sql writer:", err)
		return 1
	}
	return 0
}

// writeInProcess runs stmts on the file at path from another process.
func writeInProcess(t *testing.T, path string, stmts ...string) {
	t.Helper()
	js, err := json.Marshal(stmts)
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(os.Args[0], "-test.run", "^$")
	cmd.Env = append(os.Environ(), sqlWriterEnv+"="+path, sqlWriterEnv+"_STMTS="+string(js))
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("the writing process: %v\n%s", err, out)
	}
}

// memCounts reads how many full builds and catch-ups the index began.
func memCounts(ix *Index) (builds, catchUps int) {
	ix.mem.mu.Lock()
	defer ix.mem.mu.Unlock()
	return ix.mem.builds, ix.mem.catchUps
}

// sameAsFresh compares ix's in-memory full text at generation gen with
// that of a handle newly opened on the file, built whole: the document
// count, token count and postings, every query term's document count,
// and each query's ranking (rows and scores, bit for bit; rows of equal
// scores in either order) for both roles and every filter.
func sameAsFresh(t *testing.T, ix *Index, gen string, queries []string, filters []retrieve.Filter) {
	t.Helper()
	ctx := context.Background()
	fresh, err := Open(ctx, ix.Path())
	if err != nil {
		t.Fatal(err)
	}
	defer fresh.Close()
	waitMemTest(t, fresh)
	if g, err := fresh.generation(ctx); err != nil || g != gen {
		t.Fatalf("the fresh handle reads generation %s (%v), want %s", g, err, gen)
	}
	got, want := ix.memSnapshot(ctx, gen), fresh.memSnapshot(ctx, gen)
	if got == nil || want == nil {
		t.Fatalf("no in-memory full text at generation %s: caught up %v, fresh %v", gen, got != nil, want != nil)
	}
	if got.ix.Docs() != want.ix.Docs() || got.ix.Tokens() != want.ix.Tokens() || got.ix.Postings() != want.ix.Postings() {
		t.Fatalf("caught up: %d docs, %d tokens, %d postings; fresh: %d, %d, %d", got.ix.Docs(), got.ix.Tokens(), got.ix.Postings(),
			want.ix.Docs(), want.ix.Tokens(), want.ix.Postings())
	}
	compared, nonEmpty := 0, 0
	for qi, text := range queries {
		for _, w := range retrieve.Terms(text) {
			for _, tok := range bm25.Tokens(w) {
				if a, b := got.ix.DocFreq(tok), want.ix.DocFreq(tok); a != b {
					t.Fatalf("token %q: in %d documents caught up, %d fresh", tok, a, b)
				}
			}
		}
		for fi, f := range filters {
			if (qi+fi)%2 == 1 && fi > 0 {
				continue // half the pairs: enough, and quicker
			}
			for _, role := range []int{int(access.Player), int(access.GM)} {
				a, ok, err := ix.memRank(ctx, gen, text, role, f, 20)
				if err != nil || !ok {
					t.Fatalf("%q: caught up: %v, %v", text, ok, err)
				}
				b, ok, err := fresh.memRank(ctx, gen, text, role, f, 20)
				if err != nil || !ok {
					t.Fatalf("%q: fresh: %v, %v", text, ok, err)
				}
				if d := sameExactly(a, b); d != "" {
					t.Fatalf("%q, role %d, filter %+v: %s\ncaught up %v\n    fresh %v", text, role, f, d, a, b)
				}
				compared++
				if len(b) > 0 {
					nonEmpty++
				}
			}
		}
	}
	if nonEmpty < compared/2 {
		t.Fatalf("%d of %d rankings non-empty; the test proves little", nonEmpty, compared)
	}
}

// sameExactly is sameRanking with scores equal bit for bit.
func sameExactly(got, want []bm25.Hit) string {
	if d := sameRanking(got, want); d != "" {
		return d
	}
	for i := range got {
		if got[i].Score != want[i].Score {
			return fmt.Sprintf("hit %d scores %.17g, want %.17g exactly", i, got[i].Score, want[i].Score)
		}
	}
	return ""
}

// TestMemCatchesUp writes to the index through its own handle, through a
// second handle on the file (another connection pool, as another Hearth
// process) and from another process with plain SQL: after each, the next
// search finds the in-memory full text caught up from lore_chunk_log at
// once, without a full build, and it ranks exactly as one built whole
// from the file: new, deleted and changed chunks, access levels and the
// filter columns.
func TestMemCatchesUp(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "hearth.db")
	ix, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	c := newCorpus(33, 300)
	files := c.files(2000, 10)
	if err := fill(ctx, ix, files); err != nil {
		t.Fatal(err)
	}
	waitMemTest(t, ix)
	other, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()

	a, b := files[3][2], files[11][4]
	queries := []string{"zyzzogeton", "quokkaberry", "fandangle", c.text(3) + " zyzzogeton", c.text(6), c.queryText(2),
		c.queryText(3) + " quokkaberry", c.text(2) + " tag07", a.Text[:40], b.Text[:60]}
	filters := []retrieve.Filter{
		{},
		{Packs: []string{a.Pack}},
		{ExcludePacks: []string{b.Pack}},
		{ContentTypes: []string{a.ContentType, "lighthouse"}},
		{Location: "loc999"},
		{Location: a.Location},
		{Tags: a.Tags},
		{Packs: []string{"pack77"}},
	}
	steps := []struct {
		name  string
		write func(t *testing.T)
	}{
		{"own upsert: a file rewritten with a new word, one chunk fewer, new levels", func(t *testing.T) {
			f := files[7][:9]
			for i := range f {
				f[i].Text += " zyzzogeton"
				f[i].Access = []access.Level{access.Player, access.GM}[i%2]
			}
			if err := ix.Upsert(ctx, f[0].Pack, f[0].File, "h2", f); err != nil {
				t.Fatal(err)
			}
		}},
		{"second handle: a file deleted, a file added", func(t *testing.T) {
			if err := other.DeleteFile(ctx, files[20][0].Pack, files[20][0].File); err != nil {
				t.Fatal(err)
			}
			nf := newCorpus(34, 300).files(12, 6)[0]
			for i := range nf {
				nf[i].ID, nf[i].Pack, nf[i].File = fmt.Sprintf("pack77/new.md#%d", i), "pack77", "new.md"
				nf[i].Text += " quokkaberry"
				nf[i].ContentType = "lighthouse"
			}
			if err := other.Upsert(ctx, "pack77", "new.md", "h", nf); err != nil {
				t.Fatal(err)
			}
		}},
		{"another process: rows updated, deleted and inserted in SQL", func(t *testing.T) {
			writeInProcess(t, path,
				`UPDATE lore_chunks SET text = text || ' fandangle fandangle', access = 4, location = 'loc999' WHERE id = '`+a.ID+`'`,
				`UPDATE lore_chunks SET heading = 'fandangle', content_type = 'lighthouse' WHERE id = '`+b.ID+`'`,
				`UPDATE lore_chunks SET location = 'loc999' WHERE id = '`+files[30][1].ID+`'`,
				`DELETE FROM lore_chunks WHERE id IN ('`+files[40][0].ID+`', '`+files[41][3].ID+`')`,
				`INSERT INTO lore_chunks (id, corpus, pack, file, section, heading, page, ordinal, source_type, content_type,
					entity_type, entity_id, refs, location, faction, threads, tags, tier, is_player, access, text, tokens, file_hash, turn)
				VALUES ('pack77/sql.md#0', '', 'pack77', 'sql.md', '[]', 'fandangle harbour', 0, 0, 'prose', 'lighthouse',
					'', '', '[]', 'loc999', '', '[]', '["tag07"]', 1, 0, 1, 'the fandangle of the quokkaberry keeper', 10, 'h', 0)`)
		}},
		{"another process: a column the full text does not hold", func(t *testing.T) {
			writeInProcess(t, path, `UPDATE lore_chunks SET page = page + 1 WHERE id = '`+a.ID+`'`)
		}},
	}
	for _, s := range steps {
		t.Run(s.name, func(t *testing.T) {
			builds, catchUps := memCounts(ix)
			s.write(t)
			gen, err := ix.generation(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if ix.memSnapshot(ctx, gen) == nil {
				t.Fatal("the search after the write found no in-memory full text: not caught up")
			}
			if nb, nc := memCounts(ix); nb != builds || nc != catchUps+1 {
				t.Fatalf("%d full builds and %d catch-ups; want %d and %d", nb-builds, nc-catchUps, 0, 1)
			}
			sameAsFresh(t, ix, gen, queries, filters)
		})
	}
}

// TestMemCatchUpFallsBack checks the cases the log cannot or should not
// serve: too many changes, and a log trimmed past the entry the memory
// index holds. Each builds whole (FTS5 serving meanwhile), and the result
// ranks as a fresh build.
func TestMemCatchUpFallsBack(t *testing.T) {
	ctx := context.Background()
	c := newCorpus(35, 300)
	files := c.files(2000, 10)
	queries := []string{"zyzzogeton", c.text(4), c.queryText(2) + " zyzzogeton"}
	filters := []retrieve.Filter{{}, {Packs: []string{"pack03"}}}
	for _, tc := range []struct {
		name  string
		write func(t *testing.T, ix *Index)
	}{
		{"more changes than 256 + rows/16", func(t *testing.T, ix *Index) {
			for _, f := range files[:40] { // 400 chunks rewritten: 800 logged
				for i := range f {
					f[i].Text += " zyzzogeton"
				}
				if err := ix.Upsert(ctx, f[0].Pack, f[0].File, "h2", f); err != nil {
					t.Fatal(err)
				}
			}
		}},
		{"log trimmed past the entry held", func(t *testing.T, ix *Index) {
			writeInProcess(t, ix.Path(),
				`UPDATE lore_chunks SET text = text || ' zyzzogeton' WHERE id = '`+files[5][5].ID+`'`,
				`UPDATE lore_chunks SET text = text || ' zyzzogeton' WHERE id = '`+files[6][6].ID+`'`,
				`DELETE FROM lore_chunk_log WHERE seq < (SELECT MAX(seq) FROM lore_chunk_log)`)
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ix := openTest(t)
			if err := fill(ctx, ix, files); err != nil {
				t.Fatal(err)
			}
			waitMemTest(t, ix)
			builds, catchUps := memCounts(ix)
			tc.write(t, ix)
			gen, err := ix.generation(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if ix.memSnapshot(ctx, gen) != nil {
				t.Fatal("caught up; want a full build")
			}
			waitMemTest(t, ix)
			if nb, nc := memCounts(ix); nb != builds+1 || nc != catchUps {
				t.Fatalf("%d full builds and %d catch-ups; want 1 and 0", nb-builds, nc-catchUps)
			}
			sameAsFresh(t, ix, gen, queries, filters)
		})
	}
}

// TestMemCatchUpUnderSearches writes while other goroutines search (run
// it with -race): searches wait for a catch-up under way or are served
// by FTS5, and at the end the memory index ranks as a fresh build.
func TestMemCatchUpUnderSearches(t *testing.T) {
	ctx := context.Background()
	ix := openTest(t)
	c := newCorpus(36, 300)
	files := c.files(1000, 10)
	if err := fill(ctx, ix, files); err != nil {
		t.Fatal(err)
	}
	waitMemTest(t, ix)
	builds, _ := memCounts(ix)
	var texts []string // the corpus's generator is not safe for concurrent use
	for i := range 12 {
		texts = append(texts, c.queryText(1+i%3)+" zyzzogeton")
	}
	stop := make(chan struct{})
	errs := make(chan error, 4)
	for g := range 4 {
		go func() {
			for i := 0; ; i++ {
				select {
				case <-stop:
					errs <- nil
					return
				default:
				}
				q := retrieve.Query{Text: texts[(g+i)%len(texts)], Role: access.GM, Limit: 10, Budget: 1000 + i}
				if _, err := ix.Search(ctx, q); err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	// 10 files rewritten: 200 changes, within 256 + 1,000/16.
	for i := range 10 {
		f := files[i]
		for j := range f {
			f[j].Text += " zyzzogeton"
		}
		if err := ix.Upsert(ctx, f[0].Pack, f[0].File, fmt.Sprint("h", i), f); err != nil {
			t.Fatal(err)
		}
	}
	close(stop)
	for range 4 {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
	gen, err := ix.generation(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if ix.memSnapshot(ctx, gen) == nil {
		t.Fatal("not caught up after the writes")
	}
	if nb, _ := memCounts(ix); nb != builds {
		t.Fatalf("%d full builds during the writes; want none", nb-builds)
	}
	sameAsFresh(t, ix, gen, []string{"zyzzogeton", c.text(3), c.queryText(2) + " zyzzogeton"}, []retrieve.Filter{{}, {Packs: []string{"pack02"}}})
}

// TestMemCatchUpChecksFTS5Lengths makes FTS5's record of a row the
// catch-up adds disagree with the Go tokenizer: the catch-up must refuse
// it, the full build that follows fail saying so, and FTS5 serve.
func TestMemCatchUpChecksFTS5Lengths(t *testing.T) {
	ctx := context.Background()
	ix := openTest(t)
	c := newCorpus(37, 300)
	files := c.files(300, 10)
	if err := fill(ctx, ix, files); err != nil {
		t.Fatal(err)
	}
	waitMemTest(t, ix)
	f := files[4]
	for i := range f {
		f[i].Text += " zyzzogeton"
	}
	if err := ix.Upsert(ctx, f[0].Pack, f[0].File, "h2", f); err != nil {
		t.Fatal(err)
	}
	// One varint per column: heading, text, tags.
	if _, err := ix.w.Exec(`UPDATE lore_fts_docsize SET sz = X'017F01' WHERE id = (SELECT max(id) FROM lore_fts_docsize)`); err != nil {
		t.Fatal(err)
	}
	old := ix.mem.snap
	if _, _, err := ix.catchUpMem(ctx, old); err == nil || !strings.Contains(err.Error(), "in FTS5; full text stays with FTS5") {
		t.Fatalf("catch-up: %v, want the length disagreement", err)
	}
	if err := ix.waitMem(ctx); err == nil || !strings.Contains(err.Error(), "in FTS5; full text stays with FTS5") {
		t.Fatalf("after the catch-up: %v, want the full build's length disagreement", err)
	}
	r := search(t, ix, retrieve.Query{Text: "zyzzogeton", Role: access.GM, Limit: 40})
	if len(r.Passages) != len(f) {
		t.Fatalf("FTS5 found %d passages, want %d", len(r.Passages), len(f))
	}
}
