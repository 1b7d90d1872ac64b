package sqliteindex

import (
	"path/filepath"
	"reflect"
	"testing"

	"github.com/hearth-rpg/hearth/embedding"
	"github.com/hearth-rpg/hearth/retrieve"
)

// TestVectorCandidatesOption runs vector searches through a real index:
// the loaded cache has its int8 columns (else every search would quietly
// be exact), the default estimates, and with candidates for every row
// the search equals WithVectorCandidates(0)'s exact scan, also after
// writes that the cache catches up with.
func TestVectorCandidatesOption(t *testing.T) {
	ctx := t.Context()
	c := newCorpus(21, 3000)
	path := filepath.Join(t.TempDir(), "lore.db")
	emb := embedding.NewHashing(64)
	all, err := Open(ctx, path, WithEmbedder(emb), WithVectorCandidates(1<<20))
	if err != nil {
		t.Fatal(err)
	}
	defer all.Close()
	if err := fill(ctx, all, c.files(1200, 20)); err != nil {
		t.Fatal(err)
	}
	exact, err := Open(ctx, path, WithEmbedder(emb), WithVectorCandidates(0))
	if err != nil {
		t.Fatal(err)
	}
	defer exact.Close()
	def, err := Open(ctx, path, WithEmbedder(emb))
	if err != nil {
		t.Fatal(err)
	}
	defer def.Close()
	if def.cands != DefaultVectorCandidates || exact.cands != 0 {
		t.Fatalf("candidates %d and %d, want %d and 0", def.cands, exact.cands, DefaultVectorCandidates)
	}
	vc, err := all.vectors(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if !vc.Estimated() {
		t.Fatalf("loaded %d vectors without their int8 columns", vc.Len())
	}
	for round := range 2 {
		if round == 1 {
			// Writes since the load: the cache catches up with an extra slab.
			if err := fill(ctx, all, newCorpus(22, 3000).files(40, 20)); err != nil {
				t.Fatal(err)
			}
		}
		for i := range 30 {
			text := c.queryText(2 + i%4)
			filter := retrieve.Filter{}
			if i%3 == 0 {
				filter.Packs = []string{"pack01"}
			}
			cond, args := where(filter)
			for _, role := range []int{1, 4} {
				got, ran, _, err := all.vectorSearch(ctx, text, role, filter, cond, args, 20)
				want, _, _, err2 := exact.vectorSearch(ctx, text, role, filter, cond, args, 20)
				check(t, round, text, got, want, ran, err, err2)
				if _, ran, _, err := def.vectorSearch(ctx, text, role, filter, cond, args, 20); err != nil || !ran {
					t.Fatalf("default candidates: ran %v, %v", ran, err)
				}
			}
		}
	}
}

func check(t *testing.T, round int, text string, got, want []hit, ran bool, err, err2 error) {
	t.Helper()
	if err != nil || err2 != nil || !ran {
		t.Fatalf("round %d %q: ran %v, %v, %v", round, text, ran, err, err2)
	}
	if len(want) == 0 {
		t.Fatalf("round %d %q: no hits to compare", round, text)
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("round %d %q: %v, exact %v", round, text, got[:min(3, len(got))], want[:min(3, len(want))])
	}
}
