package pgindex_test

import (
	"context"
	"testing"

	"github.com/hearth-rpg/hearth/access"
	"github.com/hearth-rpg/hearth/chunk"
	"github.com/hearth-rpg/hearth/retrieve"
)

// Chunks reads a file back whole, above any role, so its metadata can be
// changed and the file upserted again (as sqliteindex's TestChunksRestamp).
func TestChunksRestamp(t *testing.T) {
	ctx := context.Background()
	ix := open(t)
	in := []chunk.Chunk{
		{Ordinal: 0, Section: []string{"Ships"}, Tags: []string{"core"}, Access: access.GM, Page: 3, Text: "The jump drive needs refined fuel."},
		{Ordinal: 1, Tags: []string{"core"}, Access: access.GM, Page: 4, Text: "Unrefined fuel risks a misjump."},
	}
	if err := ix.Upsert(ctx, "doc:x", "Core", "h1", in); err != nil {
		t.Fatal(err)
	}
	search := func(q retrieve.Query) []string {
		t.Helper()
		r, err := ix.Search(ctx, q)
		if err != nil {
			t.Fatal(err)
		}
		var ids []string
		for _, p := range r.Passages {
			ids = append(ids, p.Chunk.ID)
		}
		return ids
	}
	if ids := search(retrieve.Query{Text: "misjump", Role: access.Player}); len(ids) != 0 {
		t.Fatalf("player sees gm chunks before restamp: %v", ids)
	}
	got, err := ix.Chunks(ctx, "doc:x", "Core")
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got[0].Text != in[0].Text || got[1].Page != 4 || got[0].Section[0] != "Ships" || got[1].Section != nil {
		t.Fatalf("Chunks = %+v", got)
	}
	for i := range got {
		got[i].Access = access.Player
		got[i].Tags = []string{"core", "ships"}
	}
	if err := ix.Upsert(ctx, "doc:x", "Core", "h1", got); err != nil {
		t.Fatal(err)
	}
	if ids := search(retrieve.Query{Text: "misjump", Role: access.Player, Filter: retrieve.Filter{Tags: []string{"ships"}}}); len(ids) != 1 || ids[0] != "doc:x/Core#1" {
		t.Fatalf("after restamp: %v", ids)
	}
	if none, err := ix.Chunks(ctx, "doc:x", "missing"); err != nil || len(none) != 0 {
		t.Fatalf("missing file: %v, %v", none, err)
	}
}
