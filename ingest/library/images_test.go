package library

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"testing"

	"github.com/hearth-rpg/hearth/access"
	"github.com/hearth-rpg/hearth/chunk"
	"github.com/hearth-rpg/hearth/retrieve/sqliteindex"
)

// illustrated stores a document whose images have the given descriptions
// and contexts, one image per page.
func illustrated(t testing.TB, l *Library, id string, lv access.Level, ims ...[2]string) {
	t.Helper()
	var pages []Page
	var images []Image
	for i, im := range ims {
		pages = append(pages, Page{Number: i + 1, Text: "page text " + im[1]})
		images = append(images, Image{Page: i + 1, Width: 20, Height: 10, WebP: []byte("RIFF" + id), Description: im[0], Context: im[1]})
	}
	chunks := []chunk.Chunk{{Page: 1, Text: "page one of " + id, SourceType: chunk.Prose}}
	if err := l.Put(context.Background(), Document{ID: id, Title: id, Format: "pdf", Source: id + ".pdf", Hash: id, Access: lv}, pages, images, chunks); err != nil {
		t.Fatal(err)
	}
}

func names(ims []Image) []string {
	var out []string
	for _, im := range ims {
		out = append(out, im.Document+"/"+string(rune('0'+im.Page)))
	}
	return out
}

func TestSearchImages(t *testing.T) {
	ctx := context.Background()
	l, _ := open(t)
	illustrated(t, l, "bestiary", access.Player,
		[2]string{"A green dragon coiled on a hoard of coins.", "Dragons hoard treasure."},
		[2]string{"A hand-drawn map of a river valley with a ruined tower.", "The valley of Ost."},
		[2]string{"", "A dragon's lair, as the map shows."}, // no caption: context alone
	)
	illustrated(t, l, "secrets", access.GM,
		[2]string{"A dragon cult's hidden temple, cut away.", "Only the GM knows."},
	)
	tests := []struct {
		name string
		q    ImageQuery
		want []string
	}{
		{"description first, then context", ImageQuery{Text: "dragon", Role: access.Player}, []string{"bestiary/1", "bestiary/3"}},
		{"the GM sees the GM's book too", ImageQuery{Text: "dragon", Role: access.GM}, []string{"bestiary/1", "secrets/1", "bestiary/3"}},
		{"stemmed, any word", ImageQuery{Text: "maps of towers", Role: access.Player}, []string{"bestiary/2", "bestiary/3"}},
		{"one document", ImageQuery{Text: "dragon", Document: "secrets", Role: access.Player}, nil},
		{"one page", ImageQuery{Text: "dragon", Document: "bestiary", Page: 3, Role: access.Player}, []string{"bestiary/3"}},
		{"no words, no search", ImageQuery{Text: `"*" OR -`, Role: access.GM}, nil},
		{"FTS syntax is text", ImageQuery{Text: `dragon" OR "temple`, Role: access.Player}, []string{"bestiary/1", "bestiary/3"}},
		{"list without text", ImageQuery{Role: access.Player}, []string{"bestiary/1", "bestiary/2", "bestiary/3"}},
		{"limit", ImageQuery{Role: access.GM, Limit: 2}, []string{"bestiary/1", "bestiary/2"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := l.SearchImages(ctx, tt.q)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(names(got), tt.want) {
				t.Errorf("got %v, want %v", names(got), tt.want)
			}
			for _, im := range got {
				if im.ID == 0 || im.WebP != nil {
					t.Errorf("image %+v: no id, or bytes not asked for", im)
				}
			}
		})
	}
	// By id, through the same join.
	got, _ := l.SearchImages(ctx, ImageQuery{Text: "temple", Role: access.GM, WithData: true})
	if len(got) != 1 || string(got[0].WebP) != "RIFFsecrets" || got[0].Description == "" {
		t.Fatalf("temple: %+v", got)
	}
	if _, err := l.Image(ctx, got[0].ID, access.Player, false); !errors.Is(err, ErrNotFound) {
		t.Errorf("a player read a GM image by id: %v", err)
	}
	if im, err := l.Image(ctx, got[0].ID, access.GM, true); err != nil || string(im.WebP) != "RIFFsecrets" || im.Page != 1 {
		t.Errorf("image by id: %+v %v", im, err)
	}
	// Replacing and deleting documents keeps the search index in step.
	illustrated(t, l, "secrets", access.GM, [2]string{"A plain wall.", ""})
	if got, _ := l.SearchImages(ctx, ImageQuery{Text: "temple", Role: access.GM}); len(got) != 0 {
		t.Errorf("a replaced image is still found: %v", names(got))
	}
	if err := l.Delete(ctx, "bestiary"); err != nil {
		t.Fatal(err)
	}
	if got, _ := l.SearchImages(ctx, ImageQuery{Text: "dragon map wall", Role: access.GM}); !slices.Equal(names(got), []string{"secrets/1"}) {
		t.Errorf("after delete: %v", names(got))
	}
	var n int
	if err := l.r.QueryRowContext(ctx, `SELECT COUNT(*) FROM library_images_fts`).Scan(&n); err != nil || n != 1 {
		t.Errorf("the full-text index holds %d rows, want 1 (%v)", n, err)
	}
}

// A library written before migrations (its own version table, images with
// a caption column) opens with its rows kept and searchable.
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
	l, err := Open(ctx, path, ix)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	got, err := l.SearchImages(ctx, ImageQuery{Text: "griffon", Role: access.Player})
	if err != nil || len(got) != 1 || got[0].Description != "A griffon in flight" || got[0].Width != 30 || got[0].Context != "near text" {
		t.Fatalf("after migrating: %+v %v", got, err)
	}
	var n int
	l.r.QueryRowContext(ctx, `SELECT COUNT(*) FROM sqlite_master WHERE name = 'library_schema'`).Scan(&n)
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
	illustrated(f, l, "pub", access.Player, [2]string{"A green dragon.", "near text"})
	illustrated(f, l, "gm", access.GM, [2]string{"A green dragon.", "secret text"})
	f.Fuzz(func(t *testing.T, text string) {
		ims, err := l.SearchImages(context.Background(), ImageQuery{Text: text, Role: access.Player})
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
		illustrated(b, l, fmt.Sprintf("doc%02d", d), access.Level(1+d%4), ims...)
	}
	b.ResetTimer()
	for b.Loop() {
		ims, err := l.SearchImages(ctx, ImageQuery{Text: "dragon map of the river", Role: access.Trusted, Limit: 20})
		if err != nil || len(ims) == 0 {
			b.Fatal(len(ims), err)
		}
	}
}
