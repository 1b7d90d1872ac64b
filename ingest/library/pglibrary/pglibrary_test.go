package pglibrary_test

import (
	"context"
	"io/fs"
	"testing"
	"testing/fstest"

	"github.com/hearth-rpg/hearth/access"
	"github.com/hearth-rpg/hearth/ingest/library"
	"github.com/hearth-rpg/hearth/ingest/library/librarytest"
	"github.com/hearth-rpg/hearth/ingest/library/pglibrary"
	"github.com/hearth-rpg/hearth/internal/pgdb"
	"github.com/hearth-rpg/hearth/internal/pgdb/pgtest"
	"github.com/hearth-rpg/hearth/retrieve"
	"github.com/hearth-rpg/hearth/retrieve/pgindex"
)

func openStore(t testing.TB) (*pglibrary.Store, *pgindex.Index) {
	t.Helper()
	return openStoreAt(t, pgtest.URL(t))
}

func openStoreAt(t testing.TB, url string) (*pglibrary.Store, *pgindex.Index) {
	t.Helper()
	ctx := context.Background()
	ix, err := pgindex.Open(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ix.Close() })
	st, err := pglibrary.Open(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st, ix
}

func TestConformance(t *testing.T) {
	pgtest.Skip(t)
	librarytest.Run(t, func(t *testing.T) (library.Store, retrieve.Index) { return openStore(t) })
}

// FuzzSearchImages: no text a user types makes the image search fail;
// whatever it finds, it finds only what the role may see.
func FuzzSearchImages(f *testing.F) {
	for _, s := range []string{"dragon", `"*" OR -`, `a & !b | c:*`, "ünïcödé map", "a:b ^c <-> d", "", "the of"} {
		f.Add(s)
	}
	st, ix := openStore(f)
	l := library.New(st, ix)
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

// TestMigrateWebPPictures: a library written when every picture was WebP
// (migration 0001 only, bytes in a webp column) keeps its pictures, now
// read as image/webp, beside a new JPEG one.
func TestMigrateWebPPictures(t *testing.T) {
	pgtest.Skip(t)
	ctx := context.Background()
	url := pgtest.URL(t)
	first, err := fs.ReadFile(pglibrary.Migrations.FS, "migrations/0001_init.sql")
	if err != nil {
		t.Fatal(err)
	}
	old := pglibrary.Migrations
	old.FS = fstest.MapFS{"migrations/0001_init.sql": &fstest.MapFile{Data: first}}
	db, err := pgdb.Open(ctx, url, pgdb.Options{Migrations: []pgdb.Migrations{old}})
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{
		`INSERT INTO library_documents (id, title, format, source, hash, tags, access, pages, chunks, created)
			VALUES ('old', 'Old', 'pdf', 'old.pdf', 'h', '{}', 1, 1, 0, 0)`,
		`INSERT INTO library_images (document, page, idx, width, height, webp, description, context)
			VALUES ('old', 1, 0, 30, 40, '\x52494646', 'A griffon in flight', 'near text')`,
	} {
		if _, err := db.Pool().Exec(ctx, q); err != nil {
			db.Close()
			t.Fatalf("%s: %v", q, err)
		}
	}
	db.Close()
	st, ix := openStoreAt(t, url)
	l := library.New(st, ix)
	got, err := l.Images(ctx, "old", 0, access.Player, true)
	if err != nil || len(got) != 1 || string(got[0].Data) != "RIFF" || got[0].MediaType != "image/webp" || got[0].Description != "A griffon in flight" {
		t.Fatalf("the old picture after migrating: %+v %v", got, err)
	}
	jpeg := library.Image{Page: 1, Width: 3, Height: 4, Data: []byte("\xff\xd8\xff"), MediaType: "image/jpeg"}
	if err := l.Put(ctx, library.Document{ID: "new", Title: "New", Format: "pdf", Source: "new.pdf", Hash: "n", Access: access.Player}, []library.Page{{Number: 1, Text: "x"}}, []library.Image{jpeg}, nil); err != nil {
		t.Fatal(err)
	}
	if got, err := l.Images(ctx, "new", 0, access.Player, true); err != nil || len(got) != 1 || got[0].MediaType != "image/jpeg" || string(got[0].Data) != "\xff\xd8\xff" {
		t.Fatalf("a JPEG picture after migrating: %+v %v", got, err)
	}
}
