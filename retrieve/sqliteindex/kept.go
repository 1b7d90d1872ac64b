package sqliteindex

import (
	"context"

	"github.com/hearth-rpg/hearth/retrieve"
)

// Generation returns the index's generation stamp, which every write
// changes (migrations/0003): results kept for one generation are the
// results for as long as it lasts.
func (ix *Index) Generation(ctx context.Context) (int64, error) { return ix.generation(ctx) }

// Kept reports whether Search keeps a result for every query in qs at
// generation gen: searching them again while the stamp is gen gives the
// same results. A result found without vectors because the embedder
// failed is not kept.
func (ix *Index) Kept(gen int64, qs []retrieve.Query) bool {
	for _, q := range qs {
		key, ok := resultKey(q)
		if !ok || !ix.results.has(gen, key) {
			return false
		}
	}
	return true
}
