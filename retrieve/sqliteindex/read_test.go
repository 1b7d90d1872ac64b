package sqliteindex

import (
	"context"
	"testing"

	"github.com/hearth-rpg/hearth/access"
	"github.com/hearth-rpg/hearth/chunk"
	"github.com/hearth-rpg/hearth/retrieve"
)

// Chunks reads a file back whole, above any role, so its metadata can be
// changed and the file upserted again.
func TestChunksRestamp(t *testing.T) {
	ctx := context.Background()
	ix := openTest(t)
	in := []chunk.Chunk{
		{Ordinal: 0, Section: []string{"Ships"}, Tags: []string{"core"}, Access: access.GM, Page: 3, Text: "The jump drive needs refined fuel."},
		{Ordinal: 1, Tags: []string{"core"}, Access: access.GM, Page: 4, Text: "Unrefined fuel risks a misjump."},
	}
	if err := ix.Upsert(ctx, "doc:x", "Core", "h1", in); err != nil {
		t.Fatal(err)
	}
	if r := search(t, ix, retrieve.Query{Text: "misjump", Role: access.Player}); len(r.Passages) != 0 {
		t.Fatalf("player sees gm chunks before restamp: %v", idsOf(r.Passages))
	}
	got, err := ix.Chunks(ctx, "doc:x", "Core")
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got[0].Text != in[0].Text || got[1].Page != 4 || got[0].Section[0] != "Ships" {
		t.Fatalf("Chunks = %+v", got)
	}
	for i := range got {
		got[i].Access = access.Player
		got[i].Tags = []string{"core", "ships"}
	}
	if err := ix.Upsert(ctx, "doc:x", "Core", "h1", got); err != nil {
		t.Fatal(err)
	}
	r := search(t, ix, retrieve.Query{Text: "misjump", Role: access.Player, Filter: retrieve.Filter{Tags: []string{"ships"}}})
	if len(r.Passages) != 1 || r.Passages[0].Chunk.ID != "doc:x/Core#1" {
		t.Fatalf("after restamp: %v", idsOf(r.Passages))
	}
	if none, err := ix.Chunks(ctx, "doc:x", "missing"); err != nil || len(none) != 0 {
		t.Fatalf("missing file: %v, %v", none, err)
	}
}
