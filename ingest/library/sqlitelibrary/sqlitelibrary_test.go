package sqlitelibrary

import (
	"context"
	"database/sql"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/hearth-rpg/hearth/access"
	"github.com/hearth-rpg/hearth/ingest/library"
	"github.com/hearth-rpg/hearth/ingest/library/librarytest"
	"github.com/hearth-rpg/hearth/retrieve"
	"github.com/hearth-rpg/hearth/retrieve/sqliteindex"
)

// open returns a library over a fresh database file, its store and index.
func open(t testing.TB) (*library.Library, *Store) {
	t.Helper()
	st, ix := openStore(t)
	return library.New(st, ix), st
}

func openStore(t testing.TB) (*Store, *sqliteindex.Index) {
	t.Helper()
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "hearth.db")
	ix, err := sqliteindex.Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ix.Close() })
	st, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st, ix
}

func TestConformance(t *testing.T) {
	librarytest.Run(t, func(t *testing.T) (library.Store, retrieve.Index) { return openStore(t) })
}

// The full-text table follows replaced and deleted images: no row of a
// gone image is left to match.
func TestImageSearchIndexInStep(t *testing.T) {
	ctx := context.Background()
	l, st := open(t)
	librarytest.Illustrated(t, l, "a", access.Player, [2]string{"A dragon.", "x"}, [2]string{"A map.", "y"})
	librarytest.Illustrated(t, l, "b", access.GM, [2]string{"A temple.", "z"})
	librarytest.Illustrated(t, l, "b", access.GM, [2]string{"A wall.", ""})
	if err := l.Delete(ctx, "a"); err != nil {
		t.Fatal(err)
	}
	var n int
	if err := st.r.QueryRowContext(ctx, `SELECT COUNT(*) FROM library_images_fts`).Scan(&n); err != nil || n != 1 {
		t.Errorf("the full-text index holds %d rows, want 1 (%v)", n, err)
	}
}

// A library written before migrations (its own version table, images with
// a caption column, WebP bytes in a webp column) opens with its rows kept
// and searchable, its pictures WebP.
func TestMigrateOldLibrary(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "hearth.db")
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{
		`CREATE TABLE library_schema (version INTEGER NOT NULL)`,
		`INSERT INTO library_schema VALUES (1)`,
		`CREATE TABLE library_documents (id TEXT PRIMARY KEY, title TEXT NOT NULL, format TEXT NOT NULL, source TEXT NOT NULL, hash TEXT NOT NULL,
			tags TEXT NOT NULL, access INTEGER NOT NULL, pages INTEGER NOT NULL, chunks INTEGER NOT NULL, created TEXT NOT NULL)`,
		`CREATE TABLE library_pages (document TEXT NOT NULL REFERENCES library_documents(id) ON DELETE CASCADE, number INTEGER NOT NULL,
			label TEXT NOT NULL, text TEXT NOT NULL, PRIMARY KEY (document, number)) WITHOUT ROWID`,
		`CREATE TABLE library_images (document TEXT NOT NULL REFERENCES library_documents(id) ON DELETE CASCADE, page INTEGER NOT NULL,
			idx INTEGER NOT NULL, width INTEGER NOT NULL, height INTEGER NOT NULL, webp BLOB NOT NULL, caption TEXT NOT NULL,
			context TEXT NOT NULL, PRIMARY KEY (document, page, idx)) WITHOUT ROWID`,
		`INSERT INTO library_documents VALUES ('old', 'Old', 'pdf', 'old.pdf', 'h', '[]', 1, 1, 0, '2025-01-01T00:00:00Z')`,
		`INSERT INTO library_images VALUES ('old', 1, 0, 30, 40, x'52494646', 'A griffon in flight', 'near text')`,
	} {
		if _, err := db.Exec(q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	db.Close()
	ix, err := sqliteindex.Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	st, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	l := library.New(st, ix)
	got, err := l.SearchImages(ctx, library.ImageQuery{Text: "griffon", Role: access.Player})
	if err != nil || len(got) != 1 || got[0].Description != "A griffon in flight" || got[0].Width != 30 || got[0].Context != "near text" {
		t.Fatalf("after migrating: %+v %v", got, err)
	}
	// Its picture, stored when every picture was WebP, is WebP.
	if im, err := l.Image(ctx, got[0].ID, access.Player, true); err != nil || string(im.Data) != "RIFF" || im.MediaType != "image/webp" {
		t.Errorf("the old picture reads back as %q %q (%v), want RIFF image/webp", im.MediaType, im.Data, err)
	}
	var n int
	st.r.QueryRowContext(ctx, `SELECT COUNT(*) FROM sqlite_master WHERE name = 'library_schema'`).Scan(&n)
	if n != 0 {
		t.Errorf("the old version table is still there")
	}
}

// FuzzSearchImages: no text a user types makes the image search fail;
// whatever it finds, it finds only what the role may see.
func FuzzSearchImages(f *testing.F) {
	for _, s := range []string{"dragon", `"*" OR -`, `NEAR(a b)`, "ünïcödé map", "a:b ^c", ""} {
		f.Add(s)
	}
	l, _ := open(f)
	librarytest.Illustrated(f, l, "pub", access.Player, [2]string{"A green dragon.", "near text"})
	librarytest.Illustrated(f, l, "gm", access.GM, [2]string{"A green dragon.", "secret text"})
	f.Fuzz(func(t *testing.T, text string) {
		ims, err := l.SearchImages(context.Background(), library.ImageQuery{Text: text, Role: access.Player})
		if err != nil {
			t.Fatalf("search %q: %v", text, err)
		}
		for _, im := range ims {
			if im.Document != "pub" {
				t.Fatalf("search %q found %s's image as a player", text, im.Document)
			}
		}
	})
}

// BenchmarkSearchImages searches the descriptions of 5,000 images in 50
// documents, as GET /api/images?search= does.
func BenchmarkSearchImages(b *testing.B) {
	ctx := context.Background()
	l, _ := open(b)
	words := []string{"dragon", "map", "tower", "river", "portrait", "knight", "ship", "deck", "plan", "forest", "cave", "sword"}
	for d := range 50 {
		var ims [][2]string
		for i := range 100 {
			n := d*100 + i
			ims = append(ims, [2]string{
				fmt.Sprintf("A %s beside a %s, drawn in ink; plate %d.", words[n%len(words)], words[(n/7)%len(words)], n),
				fmt.Sprintf("Figure %d: the %s of the %s.", n, words[(n/3)%len(words)], words[(n/11)%len(words)]),
			})
		}
		librarytest.Illustrated(b, l, fmt.Sprintf("doc%02d", d), access.Level(1+d%4), ims...)
	}
	b.ResetTimer()
	for b.Loop() {
		ims, err := l.SearchImages(ctx, library.ImageQuery{Text: "dragon map of the river", Role: access.Trusted, Limit: 20})
		if err != nil || len(ims) == 0 {
			b.Fatal(len(ims), err)
		}
	}
}
