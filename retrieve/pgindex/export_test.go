package pgindex

import (
	"context"

	"github.com/hearth-rpg/hearth/access"
	"github.com/hearth-rpg/hearth/retrieve"
)

// VectorHits runs the vector search alone, as the GM with no filter, and
// returns the chunk rows best first: for measuring HNSW against the
// exact scan.
func (ix *Index) VectorHits(ctx context.Context, text string, k int) ([]int64, error) {
	hits, _, err := ix.vectorSearch(ctx, text, int(access.GM), retrieve.Filter{}, k)
	out := make([]int64, len(hits))
	for i, h := range hits {
		out[i] = h.n
	}
	return out, err
}
