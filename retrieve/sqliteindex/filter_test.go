package sqliteindex

import (
	"context"
	"strings"
	"testing"

	"github.com/hearth-rpg/hearth/access"
	"github.com/hearth-rpg/hearth/chunk"
	"github.com/hearth-rpg/hearth/embedding"
	"github.com/hearth-rpg/hearth/retrieve"
)

// filterDocs are chunks with metadata spread so each filter field
// separates them differently. Every text mentions the harbour.
func filterDocs() []chunk.Chunk {
	return []chunk.Chunk{
		{ID: "a", Pack: "core", File: "npcs.md", Ordinal: 0, ContentType: "npc", EntityID: "core:mara", Refs: []string{"core:tam"},
			Location: "core:saltmere", Faction: "wardens", Threads: []string{"bell"}, Tags: []string{"coast", "npc-tag"}, Tier: 2,
			Text: "Mara keeps the harbour light."},
		{ID: "b", Pack: "core", File: "places.md", Ordinal: 0, ContentType: "location", EntityID: "core:saltmere",
			Location: "core:saltmere", Tags: []string{"coast"}, Tier: 1,
			Text: "Saltmere is a fishing town around a harbour."},
		{ID: "c", Pack: "extra", File: "npcs.md", Ordinal: 0, ContentType: "npc", EntityID: "extra:vex", Refs: []string{"core:mara"},
			Faction: "smugglers", Threads: []string{"bell", "heist"}, Tags: []string{"crime"}, Tier: 3,
			Text: "Vex smuggles brandy through the harbour."},
		{ID: "d", Pack: "extra", File: "rules.md", Ordinal: 0, ContentType: "rules", Tags: []string{"rules", "coast", "crime"},
			Text: "Smuggling checks at the harbour use Stealth."},
		{ID: "e", Corpus: chunk.History, Pack: "camp", File: "turns.md", Ordinal: 0, ContentType: "event", Refs: []string{"core:mara"},
			Location: "core:saltmere", Threads: []string{"heist"}, Tier: 5, Turn: 12,
			Text: "Turn 12: the party met Mara at the harbour."},
	}
}

func TestFilters(t *testing.T) {
	ctx := context.Background()
	docs := filterDocs()
	indexes := map[string]*Index{"no embedder": openTest(t), "hashing embedder": openTest(t, WithEmbedder(embedding.NewHashing(64)))}
	for _, ix := range indexes {
		for _, d := range docs {
			if err := ix.Upsert(ctx, d.Pack, d.File, "h", []chunk.Chunk{d}); err != nil {
				t.Fatal(err)
			}
		}
	}
	tests := []struct {
		name string
		f    retrieve.Filter
		want string // sorted ids
	}{
		{"none", retrieve.Filter{}, "a b c d e"},
		{"one pack", retrieve.Filter{Packs: []string{"core"}}, "a b"},
		{"two packs", retrieve.Filter{Packs: []string{"core", "extra"}}, "a b c d"},
		{"entity as id or ref", retrieve.Filter{EntityIDs: []string{"core:mara"}}, "a c e"},
		{"entity as ref only", retrieve.Filter{EntityIDs: []string{"core:tam"}}, "a"},
		{"location", retrieve.Filter{Location: "core:saltmere"}, "a b e"},
		{"faction", retrieve.Filter{Faction: "smugglers"}, "c"},
		{"thread", retrieve.Filter{Threads: []string{"bell"}}, "a c"},
		{"threads", retrieve.Filter{Threads: []string{"heist", "nope"}}, "c e"},
		{"content types", retrieve.Filter{ContentTypes: []string{"npc", "rules"}}, "a c d"},
		{"tags any", retrieve.Filter{Tags: []string{"crime", "npc-tag"}}, "a c d"},
		{"tags all", retrieve.Filter{Tags: []string{"coast", "crime"}, TagMatch: retrieve.All}, "d"},
		{"tags all, one tag", retrieve.Filter{Tags: []string{"coast"}, TagMatch: retrieve.All}, "a b d"},
		{"tags all, repeated", retrieve.Filter{Tags: []string{"coast", "coast", ""}, TagMatch: retrieve.All}, "a b d"},
		{"history corpus", retrieve.Filter{Corpora: []chunk.Corpus{chunk.History}}, "e"},
		{"lore corpus", retrieve.Filter{Corpora: []chunk.Corpus{chunk.Lore}}, "a b c d"},
		{"empty corpus means lore", retrieve.Filter{Corpora: []chunk.Corpus{""}}, "a b c d"},
		{"combined", retrieve.Filter{Packs: []string{"core"}, Location: "core:saltmere", Tags: []string{"coast"}}, "a b"},
		{"nothing", retrieve.Filter{Faction: "nobody"}, ""},
		{"blank values allow all", retrieve.Filter{Packs: []string{""}, Tags: []string{""}}, "a b c d e"},
	}
	for ixName, ix := range indexes {
		for _, tt := range tests {
			// The reference semantics agree with the table.
			var ref []string
			for _, d := range docs {
				if tt.f.Match(d) {
					ref = append(ref, d.ID)
				}
			}
			if got := strings.Join(ref, " "); got != tt.want {
				t.Errorf("%s: Filter.Match selects %q, want %q", tt.name, got, tt.want)
			}
			for _, text := range []string{"", "harbour"} {
				r := search(t, ix, retrieve.Query{Text: text, Filter: tt.f, Role: access.GM, Limit: 50})
				if got := sortedIDs(r.Passages); got != tt.want {
					t.Errorf("%s, %s, text %q: got %q, want %q", ixName, tt.name, text, got, tt.want)
				}
			}
		}
	}
}

func TestMetadataOrder(t *testing.T) {
	ix := openTest(t)
	ctx := context.Background()
	for _, d := range filterDocs() {
		if err := ix.Upsert(ctx, d.Pack, d.File, "h", []chunk.Chunk{d}); err != nil {
			t.Fatal(err)
		}
	}
	// Two more chunks of one file, to check file order within a tier.
	err := ix.Upsert(ctx, "core", "more.md", "h", []chunk.Chunk{
		{ID: "m1", Ordinal: 1, Tier: 1, Text: "second"},
		{ID: "m0", Ordinal: 0, Tier: 1, Text: "first"},
	})
	if err != nil {
		t.Fatal(err)
	}
	r := search(t, ix, retrieve.Query{Role: access.GM, Limit: 50, Explain: true})
	// Tier 1 (b, then m0 and m1 in file order), 2, 3, 5, and unset last.
	if got, want := strings.Join(idsOf(r.Passages), " "), "m0 m1 b a c e d"; got != want {
		t.Errorf("order %q, want %q", got, want)
	}
	for _, p := range r.Passages {
		if len(p.Trace.Signals) != 1 || p.Trace.Signals[0].Kind != retrieve.Metadata {
			t.Errorf("%s: signals %+v, want one metadata signal", p.Chunk.ID, p.Trace.Signals)
		}
	}
	// Only stopwords: no words to search, so the same order.
	r2 := search(t, ix, retrieve.Query{Text: "AND OR the of", Role: access.GM, Limit: 50})
	if got := strings.Join(idsOf(r2.Passages), " "); got != "m0 m1 b a c e d" {
		t.Errorf("stopword-only query: order %q", got)
	}
}
