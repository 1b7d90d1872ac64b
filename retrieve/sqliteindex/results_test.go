package sqliteindex

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/hearth-rpg/hearth/access"
	"github.com/hearth-rpg/hearth/chunk"
	"github.com/hearth-rpg/hearth/embedding"
	"github.com/hearth-rpg/hearth/retrieve"
)

// TestSearchKeepsResultsUntilTheIndexChanges checks that a repeated query
// is answered from the kept results, that a caller cannot change a kept
// result, and that any write — this handle's, or another handle's on the
// same file, as another process would — is seen by the next search.
func TestSearchKeepsResultsUntilTheIndexChanges(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "hearth.db")
	ix, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	c := newCorpus(3, 300)
	if err := fill(ctx, ix, c.files(200, 10)); err != nil {
		t.Fatal(err)
	}
	text := c.queryText(3)
	q := retrieve.Query{Text: text, Role: access.GM, Explain: true, Limit: 5}
	first := search(t, ix, q)
	if len(first.Passages) == 0 {
		t.Fatal("the query found nothing; the test proves nothing")
	}
	again := search(t, ix, q)
	if ix.results.hits != 1 {
		t.Fatalf("kept results served %d times, want 1", ix.results.hits)
	}
	if !reflect.DeepEqual(again, first) {
		t.Fatal("the kept result differs from the searched one")
	}
	// Neither the searched result nor the kept one given out is the one
	// kept.
	want := fmt.Sprint(first)
	for _, r := range []retrieve.Result{first, again} {
		r.Passages[0].Chunk.Tags = append(r.Passages[0].Chunk.Tags[:0], "scribbled")
		r.Passages[0].Chunk.ID = "scribbled"
	}
	if r := search(t, ix, q); fmt.Sprint(r) != want {
		t.Fatal("changing a returned result changed the kept one")
	}
	first = search(t, ix, q)

	// A file about the query's words, written by this handle.
	best := chunk.Chunk{ID: "new/best.md#0", Pack: "new", File: "best.md", Section: []string{text}, SourceType: chunk.Prose,
		ContentType: "lore", Access: access.Player, Text: strings.Repeat(text+". ", 5), Tokens: 40}
	if err := ix.Upsert(ctx, "new", "best.md", "h1", []chunk.Chunk{best}); err != nil {
		t.Fatal(err)
	}
	if ids := idsOf(search(t, ix, q).Passages); !slices.Contains(ids, best.ID) {
		t.Fatalf("after an upsert: %v, want %s among them", ids, best.ID)
	}

	// Another handle on the file removes it, and then restores it.
	other, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	if err := other.DeleteFile(ctx, "new", "best.md"); err != nil {
		t.Fatal(err)
	}
	if ids := idsOf(search(t, ix, q).Passages); slices.Contains(ids, best.ID) {
		t.Fatalf("after another handle deleted it: %v still holds %s", ids, best.ID)
	}
	if err := other.Upsert(ctx, "new", "best.md", "h2", []chunk.Chunk{best}); err != nil {
		t.Fatal(err)
	}
	if ids := idsOf(search(t, ix, q).Passages); !slices.Contains(ids, best.ID) {
		t.Fatalf("after another handle wrote it again: %v, want %s among them", ids, best.ID)
	}
	if err := other.DeletePack(ctx, "new"); err != nil {
		t.Fatal(err)
	}
	if r := search(t, ix, q); !reflect.DeepEqual(r, first) {
		t.Fatal("after the pack was deleted, the result is not the first one again")
	}
}

// flakyEmbedder is a real embedder that fails while down is set, as an
// embedding server that is not reachable for a while.
type flakyEmbedder struct {
	embedding.Embedder
	down atomic.Bool
}

func (e *flakyEmbedder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	if e.down.Load() {
		return nil, errors.New("the embedding server is not answering")
	}
	return e.Embedder.Embed(ctx, texts)
}

// TestSearchDoesNotKeepADegradedResult checks that a search made without
// vectors because the embedder failed is not kept: once the embedder is
// back, the same query ranks by vectors too.
func TestSearchDoesNotKeepADegradedResult(t *testing.T) {
	ctx := context.Background()
	emb := &flakyEmbedder{Embedder: embedding.NewHashing(64)}
	ix := openTest(t, WithEmbedder(emb))
	c := newCorpus(9, 300)
	if err := fill(ctx, ix, c.files(100, 10)); err != nil {
		t.Fatal(err)
	}
	q := retrieve.Query{Text: c.queryText(3), Role: access.GM, Explain: true}
	vectors := func(r retrieve.Result) bool {
		for _, p := range r.Considered {
			for _, s := range p.Trace.Signals {
				if s.Kind == retrieve.Vector {
					return true
				}
			}
		}
		return false
	}
	emb.down.Store(true)
	if r := search(t, ix, q); vectors(r) {
		t.Fatal("vectors ranked while the embedder was down")
	}
	emb.down.Store(false)
	if r := search(t, ix, q); !vectors(r) {
		t.Fatal("the result made while the embedder was down was kept")
	}
}
