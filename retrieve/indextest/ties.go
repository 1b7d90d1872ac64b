package indextest

import (
	"fmt"
	"reflect"
	"testing"

	"github.com/hearth-rpg/hearth/access"
	"github.com/hearth-rpg/hearth/chunk"
	"github.com/hearth-rpg/hearth/embedding"
	"github.com/hearth-rpg/hearth/retrieve"
)

// tieText is every tied chunk's text: equal in every score.
const tieText = "The harbour bell rings at dusk for the drowned sailors of Saltmere."

// tieDocs returns n chunks of one text, IDs in an order unlike the
// order they are given (and so indexed) in.
func tieDocs(n int) []chunk.Chunk {
	out := make([]chunk.Chunk, n)
	for i := range out {
		// 37 shares no factor with 30 or 50: a permutation of the IDs.
		out[i] = chunk.Chunk{ID: fmt.Sprintf("tie-%02d", (i*37+11)%n), Ordinal: i, Section: []string{"Harbour"}, Text: tieText, Tier: 2}
	}
	return out
}

// Ties is the suite's check of equal scores, exported so that a backend
// can run it once more with a ranking the suite cannot ask for (say, one
// that serves only until an in-memory index is built). Chunks of one
// text, equal in every ranking, come in the order they were indexed in,
// the same on every run and on every backend; with more of them than a
// ranking holds (40 for a limit of 5), the ranking cuts the run of
// equals at the same place.
func Ties(t *testing.T, open func(*testing.T, Options) retrieve.Index) {
	for _, tc := range []struct {
		name string
		emb  embedding.Embedder
		n    int
	}{
		{"full text", nil, 50},
		// Vectors too, fewer than a ranking holds: an approximate
		// index (HNSW) may cut a run of equal distances anywhere.
		{"with vectors", embedding.NewHashing(64), 30},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ix := open(t, Options{Embedder: tc.emb})
			docs := tieDocs(tc.n)
			upsert(t, ix, "core", "ties.md", docs...)
			var want []string
			for _, c := range docs[:min(len(docs), 40)] {
				want = append(want, c.ID)
			}
			for run := range 3 {
				q := retrieve.Query{Text: "harbour bell", Role: access.GM, Limit: 5, Budget: 100000 + run, Explain: true}
				r := search(t, ix, q)
				if got := idsOf(r.Considered); !reflect.DeepEqual(got, want) {
					t.Fatalf("run %d: considered %v,\nwant the first %d in the order indexed: %v", run, got, len(want), want)
				}
				// One text: the first is kept, the others are its duplicates.
				if got := idsOf(r.Passages); len(got) != 1 || got[0] != want[0] {
					t.Fatalf("run %d: kept %v, want [%s]", run, got, want[0])
				}
			}
		})
	}
}
