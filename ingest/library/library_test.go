package library

import (
	"context"
	"errors"
	"path/filepath"
	"testing"

	"github.com/hearth-rpg/hearth/access"
	"github.com/hearth-rpg/hearth/chunk"
	"github.com/hearth-rpg/hearth/retrieve"
	"github.com/hearth-rpg/hearth/retrieve/sqliteindex"
)

func open(t testing.TB) (*Library, *sqliteindex.Index) {
	t.Helper()
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "hearth.db")
	ix, err := sqliteindex.Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ix.Close() })
	l, err := Open(ctx, path, ix)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	return l, ix
}

func search(t *testing.T, ix retrieve.Index, text string, role access.Level, tags ...string) []chunk.Chunk {
	t.Helper()
	res, err := ix.Search(context.Background(), retrieve.Query{Text: text, Role: role, Limit: 10, Filter: retrieve.Filter{Tags: tags}})
	if err != nil {
		t.Fatal(err)
	}
	var cs []chunk.Chunk
	for _, p := range res.Passages {
		cs = append(cs, p.Chunk)
	}
	return cs
}

func book(id string, lv access.Level, tags ...string) (Document, []Page, []Image, []chunk.Chunk) {
	d := Document{ID: id, Title: "Book " + id, Format: "text", Source: id + ".txt", Hash: "h" + id, Tags: tags, Access: lv}
	pages := []Page{{Number: 1, Text: "The griffon nests on the cliffs of volume " + id + "."}, {Number: 2, Text: "Roll 2d6 for the wind."}}
	images := []Image{{Page: 2, Index: 0, Width: 3, Height: 4, WebP: []byte("RIFF"), Context: "wind"}}
	chunks := []chunk.Chunk{{Page: 1, Ordinal: 0, Text: pages[0].Text, SourceType: chunk.Prose}, {Page: 2, Ordinal: 1, Text: pages[1].Text, SourceType: chunk.Prose}}
	return d, pages, images, chunks
}

func TestPutGetAccess(t *testing.T) {
	ctx := context.Background()
	l, ix := open(t)
	d, pages, images, chunks := book("a1", access.GM, "vol1", "saga")
	if err := l.Put(ctx, d, pages, images, chunks); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		role access.Level
		ok   bool
	}{{access.Player, false}, {access.Trusted, false}, {access.Assistant, false}, {access.GM, true}}
	for _, tt := range tests {
		p, err := l.Get(ctx, "a1", 2, tt.role)
		if tt.ok != (err == nil) || (!tt.ok && !errors.Is(err, ErrNotFound)) {
			t.Errorf("%s: Get err = %v", tt.role, err)
		}
		if tt.ok && p.Text != "Roll 2d6 for the wind." {
			t.Errorf("page 2 = %q", p.Text)
		}
		ims, err := l.Images(ctx, "a1", 2, tt.role, true)
		if err != nil || (len(ims) == 1) != tt.ok {
			t.Errorf("%s: images %v %v", tt.role, ims, err)
		}
		if got := search(t, ix, "griffon", tt.role); (len(got) == 1) != tt.ok {
			t.Errorf("%s: search found %d", tt.role, len(got))
		}
	}
	got := search(t, ix, "griffon", access.GM, "saga")
	if len(got) != 1 || got[0].Pack != "doc:a1" || got[0].File != "Book a1" || got[0].Page != 1 || got[0].Access != access.GM {
		t.Fatalf("search: %+v", got)
	}
	if got := search(t, ix, "griffon", access.GM, "vol2"); len(got) != 0 {
		t.Errorf("tag filter let through %d", len(got))
	}
	if _, err := l.Get(ctx, "a1", 3, access.GM); !errors.Is(err, ErrNotFound) {
		t.Errorf("missing page: %v", err)
	}
	doc, err := l.Document(ctx, "a1", access.GM)
	if err != nil || doc.Pages != 2 || doc.Chunks != 2 || len(doc.Tags) != 2 {
		t.Errorf("document: %+v %v", doc, err)
	}
	// Images follow their document's access, by join: lowering the
	// document's level shows them to players without touching the image.
	if _, err := l.w.ExecContext(ctx, `UPDATE library_documents SET access = ? WHERE id = 'a1'`, int(access.Player)); err != nil {
		t.Fatal(err)
	}
	if ims, err := l.Images(ctx, "a1", 0, access.Player, false); err != nil || len(ims) != 1 || ims[0].Width != 3 || ims[0].WebP != nil {
		t.Errorf("images after access change: %+v %v", ims, err)
	}
}

func TestListDelete(t *testing.T) {
	ctx := context.Background()
	l, ix := open(t)
	for _, id := range []string{"b", "a"} {
		d, p, im, cs := book(id, access.Player, "saga")
		if err := l.Put(ctx, d, p, im, cs); err != nil {
			t.Fatal(err)
		}
	}
	ds, err := l.List(ctx, access.Player)
	if err != nil || len(ds) != 2 || ds[0].ID != "a" {
		t.Fatalf("list: %+v %v", ds, err)
	}
	if got := search(t, ix, "griffon", access.Player, "saga"); len(got) != 2 {
		t.Fatalf("both volumes by tag: %d", len(got))
	}
	if err := l.Delete(ctx, "a"); err != nil {
		t.Fatal(err)
	}
	if got := search(t, ix, "griffon", access.Player); len(got) != 1 || got[0].Pack != "doc:b" {
		t.Errorf("after delete: %+v", got)
	}
	if _, err := l.Get(ctx, "a", 1, access.GM); !errors.Is(err, ErrNotFound) {
		t.Errorf("page of a deleted document: %v", err)
	}
	if ims, _ := l.Images(ctx, "a", 0, access.GM, false); len(ims) != 0 {
		t.Errorf("images of a deleted document: %d", len(ims))
	}
}

// A Put that fails part-way leaves no trace: no record, no pages, no
// chunks in the index.
func TestFailedPutLeavesNothing(t *testing.T) {
	ctx := context.Background()
	l, ix := open(t)
	d, pages, images, chunks := book("bad", access.Player)
	pages = append(pages, Page{Number: 1, Text: "a second page 1"}) // breaks the primary key
	if err := l.Put(ctx, d, pages, images, chunks); err == nil {
		t.Fatal("Put with a duplicate page succeeded")
	}
	if ds, _ := l.List(ctx, access.GM); len(ds) != 0 {
		t.Errorf("documents after a failed put: %+v", ds)
	}
	if got := search(t, ix, "griffon", access.GM); len(got) != 0 {
		t.Errorf("chunks after a failed put: %d", len(got))
	}
	st, _ := ix.Stats(ctx)
	if st.Chunks != 0 {
		t.Errorf("index holds %d chunks", st.Chunks)
	}
}
