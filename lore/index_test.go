package lore_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/hearth-rpg/hearth/access"
	"github.com/hearth-rpg/hearth/campaign"
	"github.com/hearth-rpg/hearth/lore"
	"github.com/hearth-rpg/hearth/retrieve"
	"github.com/hearth-rpg/hearth/retrieve/sqliteindex"
	"github.com/hearth-rpg/hearth/tokens"
)

func TestIndexPackIsIncremental(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	write := func(name, text string) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("pack.yml", "id: marsh\nname: The Marsh\nversion: 1.0.0\nlayer: base\n")
	write("lore_bog.md", "---\nentity_type: lore\n---\n# The Bog\nWill-o'-wisps lead travellers into the sucking mud.\n")
	write("lore_heron.md", "# Heron Folk\nThe heron folk trade reeds for salt.\n")
	ix, err := sqliteindex.Open(ctx, filepath.Join(t.TempDir(), "lore.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	tok, err := tokens.CL100K()
	if err != nil {
		t.Fatal(err)
	}
	index := func() lore.IndexReport {
		t.Helper()
		p, err := campaign.LoadPack(ctx, dir)
		if err != nil {
			t.Fatal(err)
		}
		var calls int
		rep, err := lore.IndexPack(ctx, ix, p, tok, func(done, total int, file string) { calls++ })
		if err != nil {
			t.Fatal(err)
		}
		if calls == 0 {
			t.Error("no progress reported")
		}
		return rep
	}
	found := func(q string) int {
		t.Helper()
		res, err := ix.Search(ctx, retrieve.Query{Text: q, Role: access.Player, Filter: retrieve.Filter{Packs: []string{"marsh"}}})
		if err != nil {
			t.Fatal(err)
		}
		return len(res.Passages)
	}

	if rep := index(); rep.Indexed != 2 || rep.Chunks == 0 || rep.Unchanged != 0 {
		t.Errorf("first index: %+v", rep)
	}
	if rep := index(); rep.Indexed != 0 || rep.Unchanged != 2 || rep.Chunks != 0 {
		t.Errorf("unchanged pack was indexed again: %+v", rep)
	}
	write("lore_heron.md", "# Heron Folk\nThe heron folk trade eels for iron.\n")
	if rep := index(); rep.Indexed != 1 || rep.Unchanged != 1 {
		t.Errorf("one changed file: %+v", rep)
	}
	if found("reeds salt") != 0 || found("eels iron") == 0 {
		t.Error("the index still holds the old text of a changed file")
	}
	if err := os.Remove(filepath.Join(dir, "lore_bog.md")); err != nil {
		t.Fatal(err)
	}
	if rep := index(); rep.Removed != 1 || rep.Files != 1 {
		t.Errorf("removed file: %+v", rep)
	}
	if found("wisps mud") != 0 {
		t.Error("a removed file is still found")
	}
}

// optimizing is a real index that counts the calls to Optimize.
type optimizing struct {
	*sqliteindex.Index
	calls int
}

func (o *optimizing) Optimize(ctx context.Context) error {
	o.calls++
	return o.Index.Optimize(ctx)
}

// TestIndexPackOptimizesWhatChanged checks that a pack written to the
// index has it optimized once, and an unchanged pack not at all.
func TestIndexPackOptimizesWhatChanged(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "pack.yml"), []byte("id: marsh\nname: The Marsh\nversion: 1.0.0\nlayer: base\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"lore_bog.md", "lore_heron.md"} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte("# "+name+"\nReeds and salt.\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	sx, err := sqliteindex.Open(ctx, filepath.Join(t.TempDir(), "lore.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer sx.Close()
	ix := &optimizing{Index: sx}
	tok, err := tokens.CL100K()
	if err != nil {
		t.Fatal(err)
	}
	p, err := campaign.LoadPack(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	for i, want := range []int{1, 1} {
		if _, err := lore.IndexPack(ctx, ix, p, tok, nil); err != nil {
			t.Fatal(err)
		}
		if ix.calls != want {
			t.Errorf("after indexing %d times: optimized %d times, want %d", i+1, ix.calls, want)
		}
	}
}
