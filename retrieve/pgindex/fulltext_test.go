package pgindex_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/hearth-rpg/hearth/access"
	"github.com/hearth-rpg/hearth/chunk"
	"github.com/hearth-rpg/hearth/retrieve"
)

func topIDs(t *testing.T, ix retrieve.Index, q retrieve.Query) []string {
	t.Helper()
	r, err := ix.Search(context.Background(), q)
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, p := range r.Passages {
		ids = append(ids, p.Chunk.ID)
	}
	return ids
}

// The document frequencies behind IDF are cached per generation of the
// index: a write changes them, and the next search ranks by the new ones.
func TestTermStatsFollowWrites(t *testing.T) {
	ctx := context.Background()
	ix := open(t)
	one := func(file, text string) {
		t.Helper()
		if err := ix.Upsert(ctx, "p", file, "h", []chunk.Chunk{{Text: text}}); err != nil {
			t.Fatal(err)
		}
	}
	filler := func(word string) {
		t.Helper()
		var cs []chunk.Chunk
		for i := range 8 {
			cs = append(cs, chunk.Chunk{Ordinal: i, Text: fmt.Sprintf("%s and some filler prose number %d", word, i)})
		}
		if err := ix.Upsert(ctx, "p", "filler.md", "h", cs); err != nil {
			t.Fatal(err)
		}
	}
	one("a.md", "the basilisk stares")
	one("b.md", "the cockatrice pecks")
	filler("basilisk") // basilisk common: cockatrice is the rarer term
	q := retrieve.Query{Text: "basilisk cockatrice", Limit: 3}
	if ids := topIDs(t, ix, q); len(ids) == 0 || ids[0] != "p/b.md#0" {
		t.Fatalf("cockatrice rarer: top %v, want p/b.md#0 first", ids)
	}
	filler("cockatrice") // now basilisk is the rarer term
	if ids := topIDs(t, ix, q); len(ids) == 0 || ids[0] != "p/a.md#0" {
		t.Fatalf("after rewriting the filler, basilisk rarer: top %v, want p/a.md#0 first", ids)
	}
	if err := ix.DeleteFile(ctx, "p", "filler.md"); err != nil {
		t.Fatal(err)
	}
	filler("basilisk")
	if ids := topIDs(t, ix, q); len(ids) == 0 || ids[0] != "p/b.md#0" {
		t.Fatalf("after delete and rewrite: top %v, want p/b.md#0 first", ids)
	}
}

// Past the bound on ranked chunks, the chunks holding the rare term are
// still ranked first, and the role filter still holds.
func TestFullTextBoundedCandidates(t *testing.T) {
	if testing.Short() {
		t.Skip("writes 3,500 chunks")
	}
	ctx := context.Background()
	ix := open(t)
	ix.SetMemFullText(false) // the bounded tsvector ranking is under test
	var cs []chunk.Chunk
	for i := range 3500 {
		cs = append(cs, chunk.Chunk{Ordinal: i, Text: fmt.Sprintf("the torch burns low in hall %d", i)})
	}
	if err := ix.Upsert(ctx, "p", "common.md", "h", cs); err != nil {
		t.Fatal(err)
	}
	if err := ix.Upsert(ctx, "p", "rare.md", "h", []chunk.Chunk{
		{Ordinal: 0, Text: "a torch lights the obsidian gate", Access: access.Player},
		{Ordinal: 1, Text: "the obsidian torch of the lich burns", Access: access.GM},
	}); err != nil {
		t.Fatal(err)
	}
	ids := topIDs(t, ix, retrieve.Query{Text: "obsidian torch burns", Role: access.Player, Limit: 5})
	if len(ids) == 0 || ids[0] != "p/rare.md#0" {
		t.Fatalf("player: top %v, want p/rare.md#0 first", ids)
	}
	for _, id := range ids {
		if id == "p/rare.md#1" {
			t.Fatalf("player sees the GM chunk: %v", ids)
		}
	}
	if ids := topIDs(t, ix, retrieve.Query{Text: "obsidian torch burns", Role: access.GM, Limit: 5}); len(ids) < 2 || ids[0] != "p/rare.md#1" {
		t.Fatalf("GM: top %v, want p/rare.md#1 first", ids)
	}
	// Only common terms: the chunks holding every term are ranked.
	if ids := topIDs(t, ix, retrieve.Query{Text: "torch hall", Role: access.Player, Limit: 5}); len(ids) != 5 {
		t.Fatalf("common terms: %v, want 5 chunks", ids)
	}
}
