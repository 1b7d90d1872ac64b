package indextest

import (
	"context"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/hearth-rpg/hearth/access"
	"github.com/hearth-rpg/hearth/chunk"
	"github.com/hearth-rpg/hearth/embedding"
	"github.com/hearth-rpg/hearth/retrieve"
)

// Options says how open must open an index.
type Options struct {
	// Embedder, when set, turns on vector search with it.
	Embedder embedding.Embedder
}

// Run runs the suite. open must return a new, empty index each call and
// release it when t ends.
func Run(t *testing.T, open func(t *testing.T, o Options) retrieve.Index) {
	tests := []struct {
		name string
		fn   func(*testing.T, func(*testing.T, Options) retrieve.Index)
	}{
		{"UpsertReplacesAndHashes", testUpsert},
		{"Delete", testDelete},
		{"UpsertRejectsBadInput", testBadInput},
		{"Ranking", testRanking},
		{"Filters", testFilters},
		{"MetadataOrder", testMetadataOrder},
		{"RoleIsolation", testRoleIsolation},
		{"HostileQueries", testHostileQueries},
		{"VectorFindsWhatFullTextMisses", testVector},
		{"BudgetAndDuplicates", testBudget},
		{"Explain", testExplain},
		{"Deterministic", testDeterministic},
		{"Ties", Ties},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) { tt.fn(t, open) })
	}
}

var ctx = context.Background()

func search(t testing.TB, ix retrieve.Index, q retrieve.Query) retrieve.Result {
	t.Helper()
	r, err := ix.Search(ctx, q)
	if err != nil {
		t.Fatalf("Search(%+v): %v", q, err)
	}
	return r
}

func upsert(t testing.TB, ix retrieve.Index, pack, file string, cs ...chunk.Chunk) {
	t.Helper()
	if err := ix.Upsert(ctx, pack, file, "h", cs); err != nil {
		t.Fatal(err)
	}
}

// idsOf lists passages' chunk ids in order.
func idsOf(ps []retrieve.Passage) []string {
	out := make([]string, len(ps))
	for i, p := range ps {
		out[i] = p.Chunk.ID
	}
	return out
}

func sortedIDs(ps []retrieve.Passage) string {
	ids := idsOf(ps)
	slices.Sort(ids)
	return strings.Join(ids, " ")
}

func testUpsert(t *testing.T, open func(*testing.T, Options) retrieve.Index) {
	ix := open(t, Options{Embedder: embedding.NewHashing(64)})
	first := []chunk.Chunk{
		{Ordinal: 0, Section: []string{"Lighthouse"}, Text: "The lantern burns whale oil."},
		{Ordinal: 1, Text: "Gulls nest on the gallery."},
		{Ordinal: 2, Text: "A trapdoor leads to the cistern."},
	}
	if err := ix.Upsert(ctx, "core", "places/light.md", "hash1", first); err != nil {
		t.Fatal(err)
	}
	if err := ix.Upsert(ctx, "core", "places/town.md", "hashT", []chunk.Chunk{{Text: "The town square floods."}}); err != nil {
		t.Fatal(err)
	}
	r := search(t, ix, retrieve.Query{Text: "trapdoor cistern"})
	if len(r.Passages) == 0 || r.Passages[0].Chunk.ID != "core/places/light.md#2" {
		t.Fatalf("before replacing: got %v, want core/places/light.md#2 first", idsOf(r.Passages))
	}
	got := r.Passages[0].Chunk
	if got.Pack != "core" || got.File != "places/light.md" || got.FileHash != "hash1" || got.Corpus != chunk.Lore ||
		got.Access != access.Player || got.Tokens == 0 || got.Text != first[2].Text {
		t.Errorf("stored chunk lacks defaults: %+v", got)
	}

	second := []chunk.Chunk{{Ordinal: 0, Text: "The lantern now burns paraffin."}}
	if err := ix.Upsert(ctx, "core", "places/light.md", "hash2", second); err != nil {
		t.Fatal(err)
	}
	r = search(t, ix, retrieve.Query{Text: "trapdoor cistern gulls", Explain: true})
	for _, p := range r.Considered {
		for _, old := range first {
			if p.Chunk.Text == old.Text {
				t.Errorf("replaced chunk %q still found", old.Text)
			}
		}
	}
	if r := search(t, ix, retrieve.Query{Text: "paraffin"}); len(r.Passages) != 1 || r.Passages[0].Chunk.FileHash != "hash2" {
		t.Errorf("new chunk: got %+v", r.Passages)
	}
	hashes, err := ix.Hashes(ctx, "core")
	if err != nil {
		t.Fatal(err)
	}
	if want := map[string]string{"places/light.md": "hash2", "places/town.md": "hashT"}; !reflect.DeepEqual(hashes, want) {
		t.Errorf("Hashes = %v, want %v", hashes, want)
	}
	// A file with no chunks is still recorded, so it is not re-read.
	if err := ix.Upsert(ctx, "core", "empty.md", "hashE", nil); err != nil {
		t.Fatal(err)
	}
	st, err := ix.Stats(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if want := (retrieve.Stats{Packs: 1, Files: 3, Chunks: 2, Vectors: 2, Embedder: "hashing-64", Dim: 64}); st != want {
		t.Errorf("Stats = %+v, want %+v", st, want)
	}
	if hashes, err := ix.Hashes(ctx, "other"); err != nil || len(hashes) != 0 {
		t.Errorf("Hashes of an unknown pack = %v, %v", hashes, err)
	}
}

func testDelete(t *testing.T, open func(*testing.T, Options) retrieve.Index) {
	ix := open(t, Options{Embedder: embedding.NewHashing(32)})
	put := func(pack, file, text string, tags ...string) {
		t.Helper()
		upsert(t, ix, pack, file, chunk.Chunk{Text: text, Tags: tags, Refs: []string{"x:y"}}, chunk.Chunk{Ordinal: 1, Text: text + " again"})
	}
	put("core", "a.md", "Basilisk venom petrifies.", "monster")
	put("core", "b.md", "Cockatrice feathers itch.", "monster")
	put("extra", "c.md", "Basilisk eggs sell for gold.", "treasure")

	if err := ix.DeleteFile(ctx, "core", "a.md"); err != nil {
		t.Fatal(err)
	}
	if err := ix.DeleteFile(ctx, "core", "missing.md"); err != nil {
		t.Errorf("deleting a missing file: %v", err)
	}
	r := search(t, ix, retrieve.Query{Text: "basilisk venom", Explain: true})
	for _, p := range r.Considered {
		if p.Chunk.File == "a.md" {
			t.Errorf("deleted chunk %s still found", p.Chunk.ID)
		}
	}
	if len(r.Passages) == 0 || r.Passages[0].Chunk.File != "c.md" {
		t.Errorf("after deleting a.md: got %v, want c.md's chunks", idsOf(r.Passages))
	}
	if err := ix.DeletePack(ctx, "extra"); err != nil {
		t.Fatal(err)
	}
	if err := ix.DeletePack(ctx, "never"); err != nil {
		t.Errorf("deleting a missing pack: %v", err)
	}
	r = search(t, ix, retrieve.Query{Text: "basilisk cockatrice", Explain: true})
	for _, p := range r.Considered {
		if p.Chunk.Pack == "extra" || p.Chunk.File == "a.md" {
			t.Errorf("after deleting the pack: %s still found", p.Chunk.ID)
		}
	}
	if got := sortedIDs(search(t, ix, retrieve.Query{Limit: 50}).Passages); got != "core/b.md#0 core/b.md#1" {
		t.Errorf("left: %q, want b.md's two chunks", got)
	}
	if h, _ := ix.Hashes(ctx, "extra"); len(h) != 0 {
		t.Errorf("hashes of a deleted pack: %v", h)
	}
	if h, _ := ix.Hashes(ctx, "core"); !reflect.DeepEqual(h, map[string]string{"b.md": "h"}) {
		t.Errorf("hashes of core: %v", h)
	}
	if st, err := ix.Stats(ctx); err != nil || st.Packs != 1 || st.Files != 1 || st.Chunks != 2 || st.Vectors != 2 {
		t.Errorf("Stats after deletes = %+v, %v", st, err)
	}
}

func testBadInput(t *testing.T, open func(*testing.T, Options) retrieve.Index) {
	ix := open(t, Options{})
	if err := ix.Upsert(ctx, "core", "a.md", "h", []chunk.Chunk{{ID: "shared", Text: "the original text"}}); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name       string
		pack, file string
		chunks     []chunk.Chunk
	}{
		{"no pack", "", "a.md", nil},
		{"no file", "core", "", nil},
		{"access too high", "core", "b.md", []chunk.Chunk{{Access: 9, Text: "x"}}},
		{"negative access", "core", "b.md", []chunk.Chunk{{Access: -1, Text: "x"}}},
		{"unknown corpus", "core", "b.md", []chunk.Chunk{{Corpus: "dreams", Text: "x"}}},
		{"id twice", "core", "b.md", []chunk.Chunk{{ID: "x"}, {ID: "x"}}},
		{"id of another file", "core", "b.md", []chunk.Chunk{{ID: "ok", Text: "fine"}, {ID: "shared", Text: "y"}}},
		{"replacing a file with one bad chunk", "core", "a.md", []chunk.Chunk{{ID: "new", Text: "z"}, {Access: 9, Text: "bad"}}},
	}
	for _, tt := range tests {
		if err := ix.Upsert(ctx, tt.pack, tt.file, "h2", tt.chunks); err == nil {
			t.Errorf("%s: accepted", tt.name)
		}
	}
	// A failed Upsert changes nothing.
	if h, _ := ix.Hashes(ctx, "core"); !reflect.DeepEqual(h, map[string]string{"a.md": "h"}) {
		t.Errorf("hashes after failed upserts: %v", h)
	}
	r := search(t, ix, retrieve.Query{Role: access.GM, Limit: 50})
	if len(r.Passages) != 1 || r.Passages[0].Chunk.ID != "shared" || r.Passages[0].Chunk.Text != "the original text" {
		t.Errorf("chunks after failed upserts: %+v", r.Passages)
	}
	if _, err := ix.Search(ctx, retrieve.Query{Text: strings.Repeat("x", retrieve.MaxQueryBytes+1)}); err == nil {
		t.Error("an oversized query was accepted")
	}
}
