package librarytest

import (
	"errors"
	"slices"
	"testing"

	"github.com/hearth-rpg/hearth/access"
	"github.com/hearth-rpg/hearth/ingest/library"
	"github.com/hearth-rpg/hearth/retrieve"
)

func testUpdate(t *testing.T, st library.Store, ix retrieve.Index) {
	l := library.New(st, ix)
	d, pages, images, chunks := book("u1", access.GM, "vol1")
	if err := l.Put(ctx, d, pages, images, chunks); err != nil {
		t.Fatal(err)
	}
	title, tags, player := "The Griffon Book", []string{"saga", "vol2"}, access.Player
	if _, err := l.Update(ctx, "u1", access.Trusted, library.Change{Access: &player}); !errors.Is(err, library.ErrNotFound) {
		t.Fatalf("a role that cannot read the document changed it: %v", err)
	}
	got, err := l.Update(ctx, "u1", access.GM, library.Change{Title: &title, Tags: &tags, Access: &player})
	if err != nil {
		t.Fatal(err)
	}
	if got.Title != title || !slices.Equal(got.Tags, tags) || got.Access != access.Player || got.Pages != 2 || got.Chunks != 2 {
		t.Errorf("updated: %+v", got)
	}
	if stored, err := l.Document(ctx, "u1", access.Player); err != nil || stored.Title != title || !slices.Equal(stored.Tags, tags) {
		t.Errorf("stored: %+v %v", stored, err)
	}
	// The chunks follow: the new title, tags and level.
	hits := search(t, ix, "griffon", access.Player, "vol2")
	if len(hits) != 1 || hits[0].File != title || hits[0].Access != access.Player || hits[0].Page != 1 {
		t.Fatalf("search after update: %+v", hits)
	}
	if hits := search(t, ix, "griffon", access.GM, "vol1"); len(hits) != 0 {
		t.Errorf("the old tag still finds %d chunks", len(hits))
	}
	if st, _ := ix.Stats(ctx); st.Chunks != 2 || st.Files != 1 {
		t.Errorf("index: %+v, want the 2 chunks under one file", st)
	}
	if ims, err := l.Images(ctx, "u1", 0, access.Player, false); err != nil || len(ims) != 1 {
		t.Errorf("images after lowering access: %v %v", ims, err)
	}
	gm := access.GM
	if _, err := l.Update(ctx, "u1", access.Player, library.Change{Access: &gm}); err != nil {
		t.Fatal(err)
	}
	if hits := search(t, ix, "griffon", access.Player); len(hits) != 0 {
		t.Errorf("players still find a gm_only document: %d", len(hits))
	}
	empty, bad := "  ", access.Level(9)
	for _, ch := range []library.Change{{Title: &empty}, {Access: &bad}} {
		if _, err := l.Update(ctx, "u1", access.GM, ch); err == nil {
			t.Errorf("change %+v accepted", ch)
		}
	}
}
