package sqliteindex

import (
	"context"
	"io/fs"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/hearth-rpg/hearth/access"
	"github.com/hearth-rpg/hearth/internal/sqlitedb"
	"github.com/hearth-rpg/hearth/retrieve"
)

// TestStampsMigration opens a file written under migrations 0001–0004
// (chunks logged, a counter for a generation) with today's index: the
// generation keeps its counter and gains a stamp, the logged entries get
// stamps, and the in-memory full text then catches up from the log as
// before, ranking as a fresh build.
func TestStampsMigration(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "hearth.db")
	old := fstest.MapFS{}
	for _, n := range []string{"0001_init.sql", "0002_vector_log.sql", "0003_generation.sql", "0004_chunk_log.sql"} {
		b, err := fs.ReadFile(migrations, "migrations/"+n)
		if err != nil {
			t.Fatal(err)
		}
		old["migrations/"+n] = &fstest.MapFile{Data: b}
	}
	m := Migrations
	m.FS = old
	h, err := sqlitedb.Open(ctx, path, sqlitedb.Options{Migrations: []sqlitedb.Migrations{m}})
	if err != nil {
		t.Fatal(err)
	}
	c := newCorpus(51, 300)
	files := c.files(300, 10)
	for _, f := range files {
		for _, ch := range f {
			if _, err := h.Writer().ExecContext(ctx, insertChunk, chunkArgs(ch)...); err != nil {
				t.Fatal(err)
			}
		}
	}
	var before string
	if err := h.Writer().QueryRowContext(ctx, `SELECT value FROM lore_meta WHERE key = 'generation'`).Scan(&before); err != nil {
		t.Fatal(err)
	}
	h.Close()

	ix, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	gen, err := ix.generation(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if !regexp.MustCompile(`^[0-9]+\.[0-9]+$`).MatchString(gen) || !strings.HasPrefix(gen, before+".") {
		t.Fatalf("generation %q after the migration; it was %q", gen, before)
	}
	if n := countRows(t, ix, `SELECT count(*) FROM lore_chunk_log WHERE stamp = 0`); n > 1 {
		t.Fatalf("%d of the logged entries have no stamp", n)
	}
	waitMemTest(t, ix)
	builds, catchUps := memCounts(ix)
	f := files[5]
	for i := range f {
		f[i].Text += " zyzzogeton"
		f[i].Access = access.GM
	}
	if err := ix.Upsert(ctx, f[0].Pack, f[0].File, "h2", f); err != nil {
		t.Fatal(err)
	}
	if gen, err = ix.generation(ctx); err != nil {
		t.Fatal(err)
	}
	if ix.memSnapshot(ctx, gen) == nil {
		t.Fatal("the search after the write found no in-memory full text: not caught up")
	}
	if nb, nc := memCounts(ix); nb != builds || nc != catchUps+1 {
		t.Fatalf("%d full builds and %d catch-ups; want 0 and 1", nb-builds, nc-catchUps)
	}
	sameAsFresh(t, ix, gen, []string{"zyzzogeton", c.text(4), c.queryText(2) + " zyzzogeton"},
		[]retrieve.Filter{{}, {Packs: []string{f[0].Pack}}})
}
