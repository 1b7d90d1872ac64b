package lore_test

import (
	"context"
	"reflect"
	"strings"
	"testing"

	"github.com/hearth-rpg/hearth/access"
	"github.com/hearth-rpg/hearth/chunk"
	"github.com/hearth-rpg/hearth/lore"
	"github.com/hearth-rpg/hearth/retrieve"
	"github.com/hearth-rpg/hearth/retrieve/sqliteindex"
)

// counting is a sqliteindex.Index that counts searches. It keeps the
// index's Generation and Kept, so the keeper may reuse a prepared scene.
type counting struct {
	*sqliteindex.Index
	searches int
}

func (c *counting) Search(ctx context.Context, q retrieve.Query) (retrieve.Result, error) {
	c.searches++
	return c.Index.Search(ctx, q)
}

// searchOnly hides Generation and Kept: every scene is prepared afresh.
type searchOnly struct{ ix *sqliteindex.Index }

func (s searchOnly) Search(ctx context.Context, q retrieve.Query) (retrieve.Result, error) {
	return s.ix.Search(ctx, q)
}

// TestSceneReusedWhileIndexUnchanged checks that a scene entered again
// with the world and index as they were is the scene prepared afresh,
// without searching; that what a caller adds to it is not kept; and that
// a write to the index prepares it again.
func TestSceneReusedWhileIndexUnchanged(t *testing.T) {
	ctx := context.Background()
	ix := index(t)
	idx := &counting{Index: ix}
	k := &lore.Keeper{Index: idx, Campaign: "cove", Packs: []string{"cove"}}
	fresh := &lore.Keeper{Index: searchOnly{ix}, Campaign: "cove", Packs: []string{"cove"}}
	w := cove()

	first, err := k.Scene(ctx, w)
	if err != nil {
		t.Fatal(err)
	}
	n := idx.searches
	if n == 0 {
		t.Fatal("the first preparation did not search")
	}
	// A caller adding to its scene must not change the kept one.
	w.Characters["bo"].Location = "cove"
	if added, err := k.Join(ctx, w, first); err != nil || !added {
		t.Fatalf("join: %v %v", added, err)
	}
	first.Cuts = append(first.Cuts, lore.Cut{ID: "scribble"})
	w.Characters["bo"].Location = "quay"

	again, err := k.Scene(ctx, w)
	if err != nil {
		t.Fatal(err)
	}
	if idx.searches != n+1 { // the join's one search, none for the scene
		t.Errorf("entering the scene again searched %d times", idx.searches-n-1)
	}
	want, err := fresh.Scene(ctx, w)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(again, want) {
		t.Errorf("reused scene differs from one prepared afresh:\n got %+v\nwant %+v", again, want)
	}

	// Another scene number is another scene.
	w.Scene.Number++
	if c, err := k.Scene(ctx, w); err != nil || c.Scene != w.Scene.Number {
		t.Fatalf("next scene: %v %+v", err, c)
	}

	// A write changes the generation: the scene is prepared again.
	before := idx.searches
	extra := chunk.Chunk{ID: "cove/location_cove_gulls.md#0", Pack: "cove", File: "location_cove_gulls.md", SourceType: chunk.Prose,
		ContentType: "location", EntityID: "cove:cove", Tier: 2, Access: access.Player,
		Text: "Gulls wheel over the basalt cove, screaming at the kelp.", Tokens: 9}
	if err := ix.Upsert(ctx, "cove", extra.File, "h", []chunk.Chunk{extra}); err != nil {
		t.Fatal(err)
	}
	after, err := k.Scene(ctx, w)
	if err != nil {
		t.Fatal(err)
	}
	if idx.searches == before {
		t.Error("the scene was reused after the index changed")
	}
	gulls := false
	for _, p := range after.Atmosphere {
		gulls = gulls || strings.Contains(p.Text, "Gulls")
	}
	if !gulls {
		t.Errorf("the new passage is not in the scene prepared after the write: %+v", after.Atmosphere)
	}
}
