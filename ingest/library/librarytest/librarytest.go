// Package librarytest is the conformance suite every library.Store must
// pass, run through the library.Library service over a real lore index:
// access through the document's level, replacing and deleting documents,
// a failed put leaving nothing, image search, updates, documents by file
// hash and ingest jobs. A backend's tests call Run with a function that
// opens a fresh, empty store and an index.
package librarytest

import (
	"context"
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/hearth-rpg/hearth/access"
	"github.com/hearth-rpg/hearth/chunk"
	"github.com/hearth-rpg/hearth/ingest/library"
	"github.com/hearth-rpg/hearth/retrieve"
)

// Open returns a new, empty store and the index its documents' chunks
// go to. The test closes neither: Open registers what must be closed
// with t.Cleanup.
type Open func(t *testing.T) (library.Store, retrieve.Index)

// Run runs the suite.
func Run(t *testing.T, open Open) {
	tests := []struct {
		name string
		fn   func(*testing.T, library.Store, retrieve.Index)
	}{
		{"PutGetAccess", testPutGetAccess},
		{"ListDelete", testListDelete},
		{"FailedPutLeavesNothing", testFailedPut},
		{"ReplaceUnderAnotherTitle", testReplaceTitle},
		{"WithHash", testWithHash},
		{"SearchImages", testSearchImages},
		{"Update", testUpdate},
		{"Jobs", testJobs},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			st, ix := open(t)
			tt.fn(t, st, ix)
		})
	}
}

var ctx = context.Background()

func search(t *testing.T, ix retrieve.Index, text string, role access.Level, tags ...string) []chunk.Chunk {
	t.Helper()
	res, err := ix.Search(ctx, retrieve.Query{Text: text, Role: role, Limit: 10, Filter: retrieve.Filter{Tags: tags}})
	if err != nil {
		t.Fatal(err)
	}
	var cs []chunk.Chunk
	for _, p := range res.Passages {
		cs = append(cs, p.Chunk)
	}
	return cs
}

func book(id string, lv access.Level, tags ...string) (library.Document, []library.Page, []library.Image, []chunk.Chunk) {
	d := library.Document{ID: id, Title: "Book " + id, Format: "text", Source: id + ".txt", Hash: "h" + id, Tags: tags, Access: lv}
	pages := []library.Page{{Number: 1, Text: "The griffon nests on the cliffs of volume " + id + "."}, {Number: 2, Text: "Roll 2d6 for the wind."}}
	images := []library.Image{{Page: 2, Index: 0, Width: 3, Height: 4, Data: []byte("\xff\xd8\xff\xe0"), MediaType: "image/jpeg", Context: "wind"}}
	chunks := []chunk.Chunk{{Page: 1, Ordinal: 0, Text: pages[0].Text, SourceType: chunk.Prose}, {Page: 2, Ordinal: 1, Text: pages[1].Text, SourceType: chunk.Prose}}
	return d, pages, images, chunks
}

func testPutGetAccess(t *testing.T, st library.Store, ix retrieve.Index) {
	l := library.New(st, ix)
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
		if tt.ok != (err == nil) || (!tt.ok && !errors.Is(err, library.ErrNotFound)) {
			t.Errorf("%s: Get err = %v", tt.role, err)
		}
		if tt.ok && p.Text != "Roll 2d6 for the wind." {
			t.Errorf("page 2 = %q", p.Text)
		}
		if _, err := l.Document(ctx, "a1", tt.role); tt.ok != (err == nil) {
			t.Errorf("%s: Document err = %v", tt.role, err)
		}
		ims, err := l.Images(ctx, "a1", 2, tt.role, true)
		if err != nil || (len(ims) == 1) != tt.ok {
			t.Errorf("%s: images %v %v", tt.role, ims, err)
		}
		if len(ims) == 1 && (string(ims[0].Data) != "\xff\xd8\xff\xe0" || ims[0].MediaType != "image/jpeg") {
			t.Errorf("%s: the JPEG picture reads back as %s %q", tt.role, ims[0].MediaType, ims[0].Data)
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
	if _, err := l.Get(ctx, "a1", 3, access.GM); !errors.Is(err, library.ErrNotFound) {
		t.Errorf("missing page: %v", err)
	}
	doc, err := l.Document(ctx, "a1", access.GM)
	if err != nil || doc.Pages != 2 || doc.Chunks != 2 || len(doc.Tags) != 2 || doc.Hash != "ha1" {
		t.Errorf("document: %+v %v", doc, err)
	}
	// Images follow their document's level: lowering it in the store
	// alone shows them to players without touching the image.
	doc.Access = access.Player
	if err := st.UpdateDocument(ctx, doc); err != nil {
		t.Fatal(err)
	}
	if ims, err := l.Images(ctx, "a1", 0, access.Player, false); err != nil || len(ims) != 1 || ims[0].Width != 3 || ims[0].Data != nil || ims[0].MediaType != "image/jpeg" {
		t.Errorf("images after access change: %+v %v", ims, err)
	}
	if err := st.UpdateDocument(ctx, library.Document{ID: "absent", Title: "x", Access: access.Player}); !errors.Is(err, library.ErrNotFound) {
		t.Errorf("updating an absent document: %v", err)
	}
}

func testListDelete(t *testing.T, st library.Store, ix retrieve.Index) {
	l := library.New(st, ix)
	for _, id := range []string{"b", "a"} {
		d, p, im, cs := book(id, access.Player, "saga")
		if err := l.Put(ctx, d, p, im, cs); err != nil {
			t.Fatal(err)
		}
	}
	d, p, im, cs := book("c", access.GM)
	if err := l.Put(ctx, d, p, im, cs); err != nil {
		t.Fatal(err)
	}
	ds, err := l.List(ctx, access.Player)
	if err != nil || len(ds) != 2 || ds[0].ID != "a" || ds[1].ID != "b" {
		t.Fatalf("list: %+v %v", ds, err)
	}
	if ds, _ := l.List(ctx, access.GM); len(ds) != 3 {
		t.Fatalf("the GM lists %d", len(ds))
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
	if _, err := l.Get(ctx, "a", 1, access.GM); !errors.Is(err, library.ErrNotFound) {
		t.Errorf("page of a deleted document: %v", err)
	}
	if ims, _ := l.Images(ctx, "a", 0, access.GM, false); len(ims) != 0 {
		t.Errorf("images of a deleted document: %d", len(ims))
	}
	if err := l.Delete(ctx, "a"); err != nil {
		t.Errorf("deleting again: %v", err)
	}
}

// A Put that fails part-way leaves no trace: no record, no pages, no
// chunks in the index.
func testFailedPut(t *testing.T, st library.Store, ix retrieve.Index) {
	l := library.New(st, ix)
	d, pages, images, chunks := book("bad", access.Player)
	pages = append(pages, library.Page{Number: 1, Text: "a second page 1"})
	if err := l.Put(ctx, d, pages, images, chunks); err == nil {
		t.Fatal("Put with a duplicate page succeeded")
	}
	if ds, _ := l.List(ctx, access.GM); len(ds) != 0 {
		t.Errorf("documents after a failed put: %+v", ds)
	}
	if got := search(t, ix, "griffon", access.GM); len(got) != 0 {
		t.Errorf("chunks after a failed put: %d", len(got))
	}
	if _, err := l.Get(ctx, "bad", 2, access.GM); !errors.Is(err, library.ErrNotFound) {
		t.Errorf("a page of a failed put: %v", err)
	}
}

// The same id put again under another title replaces the document and
// its chunks: their ids are the document's, so the old ones go first.
func testReplaceTitle(t *testing.T, st library.Store, ix retrieve.Index) {
	l := library.New(st, ix)
	d, p, im, cs := book("r", access.Player)
	if err := l.Put(ctx, d, p, im, cs); err != nil {
		t.Fatal(err)
	}
	d.Title = "Another Title"
	if err := l.Put(ctx, d, p, im, cs); err != nil {
		t.Fatalf("put again under another title: %v", err)
	}
	got := search(t, ix, "griffon", access.Player)
	if len(got) != 1 || got[0].File != "Another Title" {
		t.Fatalf("search after the new title: %+v", got)
	}
	if ds, _ := l.List(ctx, access.GM); len(ds) != 1 || ds[0].Title != "Another Title" {
		t.Errorf("documents: %+v", ds)
	}
	if ims, _ := l.Images(ctx, "r", 0, access.GM, false); len(ims) != 1 {
		t.Errorf("images after replacing: %d", len(ims))
	}
}

func testWithHash(t *testing.T, st library.Store, ix retrieve.Index) {
	l := library.New(st, ix)
	// Put in another order than they were made: "one" is the oldest.
	for _, b := range []struct {
		id, hash string
		lv       access.Level
		day      int
	}{{"two", "same", access.Player, 2}, {"one", "same", access.GM, 1}, {"other", "else", access.Player, 3}} {
		d, p, im, cs := book(b.id, b.lv)
		d.Hash, d.Created = b.hash, time.Date(2025, 1, b.day, 0, 0, 0, 0, time.UTC)
		if err := l.Put(ctx, d, p, im, cs); err != nil {
			t.Fatal(err)
		}
	}
	ds, err := l.WithHash(ctx, "same")
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, d := range ds {
		ids = append(ids, d.ID)
	}
	if !slices.Equal(ids, []string{"one", "two"}) {
		t.Errorf("documents of the file, oldest first, every level: %v", ids)
	}
	if ds, err := l.WithHash(ctx, "none"); err != nil || len(ds) != 0 {
		t.Errorf("no such file: %v %v", ds, err)
	}
}
